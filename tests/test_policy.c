/* test_policy.c - the policy grammar (include/primbench/policy.h): parse,
 * format, the round trip, pick, and every error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/policy.h"

#define ALL ((pb_features)-1)
#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)

static const struct pb_kernel *k(enum pb_op op, const char *name)
{
	const struct pb_kernel *kr = pb_kernel_find(op, name);
	if (!kr)
		fail_msg("no kernel %s: %s", name, pb_error());
	return kr;
}

static struct pb_policy ok(enum pb_op op, const char *text)
{
	struct pb_policy p;
	if (pb_policy_parse(op, text, ALL, &p) != 0)
		fail_msg("'%s': unexpected error: %s", text, pb_error());
	return p;
}

static void bad(enum pb_op op, const char *text, pb_features have, const char *message)
{
	struct pb_policy p, before;
	memset(&p, 0x5a, sizeof p);
	before = p;
	pb_fail("(not set)");
	assert_int_equal(pb_policy_parse(op, text, have, &p), -1);
	assert_string_equal(pb_error(), message);
	assert_memory_equal(&p, &before, sizeof p); /* untouched */
}

static void round_trip(enum pb_op op, const char *text, const char *formatted)
{
	struct pb_policy p = ok(op, text), q;
	char buf[PB_POLICY_TEXT_MAX];
	int n = pb_policy_format(&p, buf, sizeof buf);
	assert_int_equal(n, (int)strlen(formatted));
	assert_string_equal(buf, formatted);
	if (pb_policy_parse(op, buf, ALL, &q) != 0)
		fail_msg("'%s' (from '%s'): %s", buf, text, pb_error());
	assert_true(pb_policy_equal(&p, &q));
}

static void test_parse(void **state)
{
	(void)state;
	struct pb_policy p = ok(PB_OP_MEMSET, "bytes<=64,gpr_unrolled<=2K,libc");
	assert_int_equal(p.op, PB_OP_MEMSET);
	assert_int_equal(p.n_bands, 3);
	assert_ptr_equal(p.bands[0].kernel, k(PB_OP_MEMSET, "bytes"));
	assert_true(p.bands[0].max_bytes == 64);
	assert_ptr_equal(p.bands[1].kernel, k(PB_OP_MEMSET, "gpr_unrolled"));
	assert_true(p.bands[1].max_bytes == 2 * KIB);
	assert_ptr_equal(p.bands[2].kernel, k(PB_OP_MEMSET, "libc"));
	assert_true(p.bands[2].max_bytes == UINT64_MAX);

	/* one kernel for every size; ids with the op; hex and suffixes */
	p = ok(PB_OP_MEMCPY, "libc");
	assert_int_equal(p.n_bands, 1);
	assert_ptr_equal(p.bands[0].kernel, k(PB_OP_MEMCPY, "libc"));
	p = ok(PB_OP_MEMCPY, "memcpy/bytes<=0x40,strided<=1MiB,memcpy/libc");
	assert_int_equal(p.n_bands, 3);
	assert_ptr_equal(p.bands[0].kernel, k(PB_OP_MEMCPY, "bytes"));
	assert_true(p.bands[0].max_bytes == 64);
	assert_true(p.bands[1].max_bytes == MIB);
	/* a bound of 0 serves size 0 only; the same kernel twice is allowed */
	p = ok(PB_OP_MEMSET, "bytes<=0,bytes<=8,libc");
	assert_int_equal(p.n_bands, 3);
	assert_true(p.bands[0].max_bytes == 0);
	/* the largest bound: the default then serves nothing, still valid */
	p = ok(PB_OP_MEMSET, "bytes<=18446744073709551615,libc");
	assert_true(p.bands[0].max_bytes == UINT64_MAX);
	/* PB_POLICY_MAX_BANDS kernels */
	p = ok(PB_OP_MEMSET,
	       "bytes<=1,libc<=2,bytes<=3,libc<=4,bytes<=5,libc<=6,bytes<=7,libc<=8,"
	       "bytes<=9,libc<=10,bytes<=11,libc<=12,bytes<=13,libc<=14,bytes<=15,libc");
	assert_int_equal(p.n_bands, PB_POLICY_MAX_BANDS);
}

static void test_pick(void **state)
{
	(void)state;
	struct pb_policy p = ok(PB_OP_MEMSET, "bytes<=64,gpr_unrolled<=2K,libc");
	const struct pb_kernel *b = k(PB_OP_MEMSET, "bytes"), *g = k(PB_OP_MEMSET, "gpr_unrolled"),
	                       *l = k(PB_OP_MEMSET, "libc");
	assert_ptr_equal(pb_policy_pick(&p, 0), b);
	assert_ptr_equal(pb_policy_pick(&p, 64), b);
	assert_ptr_equal(pb_policy_pick(&p, 65), g);
	assert_ptr_equal(pb_policy_pick(&p, 2048), g);
	assert_ptr_equal(pb_policy_pick(&p, 2049), l);
	assert_ptr_equal(pb_policy_pick(&p, SIZE_MAX), l);
	p = ok(PB_OP_MEMSET, "rbw");
	assert_ptr_equal(pb_policy_pick(&p, 0), k(PB_OP_MEMSET, "rbw"));
	assert_ptr_equal(pb_policy_pick(&p, SIZE_MAX), k(PB_OP_MEMSET, "rbw"));
	p = ok(PB_OP_MEMSET, "bytes<=0,libc");
	assert_ptr_equal(pb_policy_pick(&p, 0), b);
	assert_ptr_equal(pb_policy_pick(&p, 1), l);
	p = ok(PB_OP_MEMSET, "bytes<=18446744073709551615,libc");
	assert_ptr_equal(pb_policy_pick(&p, SIZE_MAX), b);
}

static void test_format_round_trip(void **state)
{
	(void)state;
	round_trip(PB_OP_MEMSET, "bytes<=2048,gpr_unrolled<=25165824,libc",
	           "bytes<=2K,gpr_unrolled<=24M,libc");
	round_trip(PB_OP_MEMSET, "memset/bytes<=1536,libc", "bytes<=1536,libc");
	round_trip(PB_OP_MEMCPY, "bytes<=0,strided<=1,gpr_unrolled<=0x40000000,libc",
	           "bytes<=0,strided<=1,gpr_unrolled<=1G,libc");
	round_trip(PB_OP_MEMCPY, "libc", "libc");
	round_trip(PB_OP_MEMCPY, "bytes<=3857,libc", "bytes<=3857,libc");
	round_trip(PB_OP_MEMSET, "bytes<=18446744073709551615,libc",
	           "bytes<=18446744073709551615,libc");
	round_trip(PB_OP_MEMSET, "bytes<=1T,libc", "bytes<=1T,libc");
	/* above 2^53, where a double is not exact (found by fuzz_policy:
	 * tests/fuzz/regress/policy/bound-above-2p53) */
	round_trip(PB_OP_MEMSET, "bytes<=9007199254740993,libc", "bytes<=9007199254740993,libc");
	round_trip(PB_OP_MEMSET, "bytes<=18418446744073709615,libc",
	           "bytes<=18418446744073709615,libc");
	round_trip(PB_OP_MEMSET, "bytes<=0xfffffffffffffc00,libc",
	           "bytes<=18014398509481983K,libc");
}

static void test_format_small_buffer(void **state)
{
	(void)state;
	struct pb_policy p = ok(PB_OP_MEMSET, "bytes<=2K,libc");
	char buf[8];
	memset(buf, 'x', sizeof buf);
	assert_int_equal(pb_policy_format(&p, buf, sizeof buf), -1);
	assert_string_equal(pb_error(), "policy text needs 15 bytes, the buffer has 8");
	assert_string_equal(buf, "bytes<=");
	char exact[15];
	assert_int_equal(pb_policy_format(&p, exact, sizeof exact), 14);
	assert_string_equal(exact, "bytes<=2K,libc");
	assert_int_equal(pb_policy_format(&p, exact, 14), -1);
	assert_int_equal(pb_policy_format(&p, NULL, 0), -1);
}

static void test_equal(void **state)
{
	(void)state;
	struct pb_policy a = ok(PB_OP_MEMSET, "bytes<=2K,libc");
	struct pb_policy b = ok(PB_OP_MEMSET, "bytes<=2048,memset/libc");
	assert_true(pb_policy_equal(&a, &b));
	b = ok(PB_OP_MEMSET, "bytes<=2049,libc");
	assert_false(pb_policy_equal(&a, &b));
	b = ok(PB_OP_MEMSET, "rbw<=2K,libc");
	assert_false(pb_policy_equal(&a, &b));
	b = ok(PB_OP_MEMSET, "bytes<=2K,libc<=4K,libc");
	assert_false(pb_policy_equal(&a, &b));
	b = ok(PB_OP_MEMCPY, "bytes<=2K,libc");
	assert_false(pb_policy_equal(&a, &b));
}

static void test_errors(void **state)
{
	(void)state;
	bad(PB_OP_MEMSET, "", ALL, "bad policy '': empty");
	bad(PB_OP_MEMSET, "bytes<=64,,libc", ALL, "bad policy 'bytes<=64,,libc': empty item");
	bad(PB_OP_MEMSET, "bytes<=64,", ALL, "bad policy 'bytes<=64,': empty item");
	bad(PB_OP_MEMSET, ",libc", ALL, "bad policy ',libc': empty item");
	bad(PB_OP_MEMSET, "avx3<=64,libc", ALL,
	    "bad policy 'avx3<=64,libc': unknown kernel 'avx3'");
	bad(PB_OP_MEMSET, "bytes<=64,lib", ALL, "bad policy 'bytes<=64,lib': unknown kernel 'lib'");
	bad(PB_OP_MEMSET, "memcpy/bytes<=64,libc", ALL,
	    "bad policy 'memcpy/bytes<=64,libc': kernel 'memcpy/bytes' is not a memset kernel");
	bad(PB_OP_MEMCPY, "rbw<=64,libc", ALL,
	    "bad policy 'rbw<=64,libc': unknown kernel 'memcpy/rbw' (there is memset/rbw)");
	bad(PB_OP_MEMSET, "bytes<=10Q,libc", ALL,
	    "bad policy 'bytes<=10Q,libc': bad size '10Q': unknown suffix 'Q'");
	bad(PB_OP_MEMSET, "bytes<=-1,libc", ALL,
	    "bad policy 'bytes<=-1,libc': bad size '-1': must not be negative");
	bad(PB_OP_MEMSET, "bytes<=99999999999999999999,libc", ALL,
	    "bad policy 'bytes<=99999999999999999999,libc': size '99999999999999999999' "
	    "overflows");
	bad(PB_OP_MEMSET, "bytes<=,libc", ALL, "bad policy 'bytes<=,libc': 'bytes<=' has no bound");
	bad(PB_OP_MEMSET, "<=64,libc", ALL, "bad policy '<=64,libc': no kernel before '<=64'");
	bad(PB_OP_MEMSET, "bytes<64,libc", ALL,
	    "bad policy 'bytes<64,libc': 'bytes<64' is not 'kernel<=bytes' (bounds are "
	    "inclusive)");
	bad(PB_OP_MEMSET, "bytes=64,libc", ALL,
	    "bad policy 'bytes=64,libc': 'bytes=64' is not 'kernel<=bytes' (bounds are "
	    "inclusive)");
	bad(PB_OP_MEMSET, "bytes<=64<=128,libc", ALL,
	    "bad policy 'bytes<=64<=128,libc': 'bytes<=64<=128' is not 'kernel<=bytes'");
	bad(PB_OP_MEMSET, "bytes<=4K,rbw<=2K,libc", ALL,
	    "bad policy 'bytes<=4K,rbw<=2K,libc': bound '2K' is not above the previous bound "
	    "'4K'");
	bad(PB_OP_MEMSET, "bytes<=2048,rbw<=2K,libc", ALL,
	    "bad policy 'bytes<=2048,rbw<=2K,libc': bound '2K' is not above the previous bound "
	    "'2048'");
	bad(PB_OP_MEMSET, "bytes<=64", ALL,
	    "bad policy 'bytes<=64': no default kernel after 'bytes<=64' (end with a kernel "
	    "without a bound)");
	bad(PB_OP_MEMSET, "bytes<=64,rbw<=128", ALL,
	    "bad policy 'bytes<=64,rbw<=128': no default kernel after 'rbw<=128' (end with a "
	    "kernel without a bound)");
	bad(PB_OP_MEMSET, "bytes,libc", ALL,
	    "bad policy 'bytes,libc': only the last kernel may go without a bound ('bytes')");
	bad(PB_OP_MEMSET,
	    "bytes<=1,libc<=2,bytes<=3,libc<=4,bytes<=5,libc<=6,bytes<=7,libc<=8,bytes<=9,"
	    "libc<=10,bytes<=11,libc<=12,bytes<=13,libc<=14,bytes<=15,libc<=16,bytes",
	    ALL,
	    "bad policy 'bytes<=1,libc<=2,bytes<=3,libc<=4,bytes<=5,libc<=6,bytes<=7,libc<=8,"
	    "bytes<=9,libc<=10,bytes<=11,libc<=12,bytes<=13,libc<=14,bytes<=15,libc<=16,bytes': "
	    "more than 16 kernels");
	bad(PB_OP_COUNT, "libc", ALL, "bad policy 'libc': no op (memset, memcpy or memmove)");
	bad(PB_OP_MEMMOVE, "strided<=64,libc", ALL,
	    "bad policy 'strided<=64,libc': unknown kernel 'memmove/strided' (there is "
	    "memcpy/strided)");
	bad(PB_OP_MEMMOVE, "memcpy/bytes<=64,libc", ALL,
	    "bad policy 'memcpy/bytes<=64,libc': kernel 'memcpy/bytes' is not a memmove kernel");
	bad(PB_OP_MEMCPY, "memmove/bytes<=64,libc", ALL,
	    "bad policy 'memmove/bytes<=64,libc': kernel 'memmove/bytes' is not a memcpy "
	    "kernel");
}

/* memmove policies (PRIMBENCH_MEMMOVE of the preload library): the memmove
 * rows, picked by size like the others. */
static void test_memmove(void **state)
{
	(void)state;
	struct pb_policy p = ok(PB_OP_MEMMOVE, "bytes<=64,memmove/gpr_unrolled<=2K,libc");
	assert_int_equal(p.op, PB_OP_MEMMOVE);
	assert_int_equal(p.n_bands, 3);
	assert_ptr_equal(pb_policy_pick(&p, 64), k(PB_OP_MEMMOVE, "bytes"));
	assert_ptr_equal(pb_policy_pick(&p, 65), k(PB_OP_MEMMOVE, "gpr_unrolled"));
	assert_ptr_equal(pb_policy_pick(&p, 4096), k(PB_OP_MEMMOVE, "libc"));
	assert_int_equal(pb_policy_pick(&p, 0)->op, PB_OP_MEMMOVE);
	round_trip(PB_OP_MEMMOVE, "bytes<=64,memmove/gpr_unrolled<=2048,libc",
	           "bytes<=64,gpr_unrolled<=2K,libc");
	/* The same text names other kernels for memcpy. */
	struct pb_policy q = ok(PB_OP_MEMCPY, "bytes<=64,gpr_unrolled<=2K,libc");
	assert_false(pb_policy_equal(&p, &q));
#if defined(__x86_64__)
	round_trip(PB_OP_MEMMOVE, "rep_movsb_fwd_movsq_bwd<=4K,avx512",
	           "rep_movsb_fwd_movsq_bwd<=4K,avx512");
	p = ok(PB_OP_MEMMOVE, "rep_movsb<=1K,avx2");
	assert_ptr_equal(pb_policy_pick(&p, 1024), k(PB_OP_MEMMOVE, "rep_movsb"));
#endif
}

/* A kernel that needs features the caller does not have. */
static void test_unusable(void **state)
{
	(void)state;
#if defined(__x86_64__)
	struct pb_policy p;
	pb_fail("(not set)");
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, "avx512<=64,libc", 0, &p), -1);
	const char *prefix = "bad policy 'avx512<=64,libc': kernel 'avx512' is not usable here: "
	                     "needs avx512f, avx512bw (";
	if (strncmp(pb_error(), prefix, strlen(prefix)) != 0)
		fail_msg("got '%s'", pb_error());
	/* the same text is fine with every feature */
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, "avx512<=64,libc", ALL, &p), 0);
	/* kernels without requirements are usable with none */
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, "rep_stosb<=2K,libc", 0, &p), 0);
	round_trip(PB_OP_MEMSET, "rep_stosb<=2048,avx512<=24M,avx512_nt",
	           "rep_stosb<=2K,avx512<=24M,avx512_nt");
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_pick),
	    cmocka_unit_test(test_format_round_trip),
	    cmocka_unit_test(test_format_small_buffer),
	    cmocka_unit_test(test_equal),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_unusable),
	    cmocka_unit_test(test_memmove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
