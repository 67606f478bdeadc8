/* test_kernels.c - every row of the kernel table, checked with the
 * selftest module at the STANDARD grid (selftest.h; memmove kernels also
 * over case M6's overlaps), one cmocka test per kernel ("memset/avx2");
 * kernels this CPU cannot run are skipped, not passed. Then case M6's
 * literal example for every memmove kernel, broken memmove kernels that
 * the selftest must reject, the table itself, the rows' properties and the
 * lookup errors.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/memory.h"
#include "primbench/selftest.h"

#include "hide_profile.h"

/* The ISA's features this test names (the feature enum is per ISA,
 * primbench/cpu.h): a baseline feature every CPU of the ISA has, and the
 * features of the auto entry's inline kernel (0: no such entry). */
#if defined(__aarch64__)
#define BASE_FEATURE    PB_F(ASIMD)
#define INLINE_FEATURES 0 /* src/kernels/aarch64/auto_aarch64.c inlines nothing */
#else
#define BASE_FEATURE    PB_F(SSE2)
#define INLINE_FEATURES (PB_F(AVX512F) | PB_F(AVX512BW)) /* x86_64/auto_x86.c */
#endif

static void test_kernel(void **state)
{
	const struct pb_kernel *k = *state;
	char why[128];
	if (!pb_kernel_usable(k, pb_cpu_features(), why, sizeof why)) {
		print_message("%s/%s: %s\n", pb_op_name(k->op), k->name, why);
		skip();
	}
	struct pb_selftest_result r;
#ifdef __SANITIZE_ADDRESS__
	/* Under ASan (3x slower) the quick level: every size and offset class
	 * and both guard pages still run; the standard sweep runs in the
	 * plain build. */
	enum pb_selftest_level level = PB_SELFTEST_QUICK;
#else
	enum pb_selftest_level level = PB_SELFTEST_STANDARD;
#endif
	/* Under a profile of hidden features (tests/CMakeLists.txt) the quick
	 * level too: the kernels left are the plain run's, which sweeps them;
	 * the profile's run is about which kernels are left. */
	if (getenv("PB_TEST_HIDE_PROFILE"))
		level = PB_SELFTEST_QUICK;
	int rc = pb_selftest_kernel(k, level, &r);
	if (rc < 0)
		fail_msg("%s", pb_error());
	if (rc > 0)
		fail_msg("%s", r.detail);
	print_message("%s/%s: %llu cases, %.2f s\n", pb_op_name(k->op), k->name,
	              (unsigned long long)r.cases, r.seconds);
}

static bool has_kernel(enum pb_op op, const char *name)
{
	size_t count;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++)
		if (t[i].op == op && !strcmp(t[i].name, name))
			return true;
	return false;
}

static void test_table(void **state)
{
	(void)state;
	size_t count, per_op[PB_OP_COUNT] = {0};
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		assert_true(t[i].op < PB_OP_COUNT);
		per_op[t[i].op]++;
		assert_non_null(t[i].name);
		assert_null(strchr(t[i].name, '/'));
		assert_true(t[i].description && t[i].description[0]);
		assert_true(t[i].source && t[i].source[0]);
		/* Exactly the op's function. */
		assert_true(!t[i].memset_fn == (t[i].op != PB_OP_MEMSET));
		assert_true(!t[i].memcpy_fn == (t[i].op != PB_OP_MEMCPY));
		assert_true(!t[i].memmove_fn == (t[i].op != PB_OP_MEMMOVE));
		/* memset rows first, then memcpy rows, then memmove rows. */
		if (i > 0)
			assert_true(t[i - 1].op <= t[i].op);
		for (size_t j = 0; j < i; j++)
			assert_false(t[j].op == t[i].op && !strcmp(t[j].name, t[i].name));
	}
	static const char *const portable[] = {"libc", "bytes", "gpr_unrolled"};
	for (size_t i = 0; i < 3; i++) {
		assert_true(has_kernel(PB_OP_MEMSET, portable[i]));
		assert_true(has_kernel(PB_OP_MEMCPY, portable[i]));
		assert_true(has_kernel(PB_OP_MEMMOVE, portable[i]));
	}
	assert_true(has_kernel(PB_OP_MEMSET, "rbw"));
	assert_true(has_kernel(PB_OP_MEMCPY, "strided"));
#if defined(__x86_64__)
	static const char *const x86_set[] = {"rep_stosb", "rep_stosq", "sse2",   "sse2_nt",
	                                      "avx2",      "avx2_nt",   "avx512", "avx512_nt",
	                                      "movnti",    "clzero"};
	static const char *const x86_cpy[] = {"rep_movsb", "rep_movsq", "sse2",
	                                      "sse2_nt",   "avx2",      "avx2_nt",
	                                      "avx512",    "avx512_nt", "movnti"};
	for (size_t i = 0; i < sizeof x86_set / sizeof x86_set[0]; i++)
		assert_true(has_kernel(PB_OP_MEMSET, x86_set[i]));
	for (size_t i = 0; i < sizeof x86_cpy / sizeof x86_cpy[0]; i++)
		assert_true(has_kernel(PB_OP_MEMCPY, x86_cpy[i]));
	static const char *const x86_move[] = {"rep_movsb", "rep_movsb_fwd_movsq_bwd", "avx2",
	                                       "avx512"};
	for (size_t i = 0; i < sizeof x86_move / sizeof x86_move[0]; i++)
		assert_true(has_kernel(PB_OP_MEMMOVE, x86_move[i]));
	assert_true(per_op[PB_OP_MEMSET] >= 14);
	assert_true(per_op[PB_OP_MEMCPY] >= 13);
	assert_true(per_op[PB_OP_MEMMOVE] >= 7);
#elif defined(__aarch64__)
	static const char *const arm_set[] = {"neon", "neon_nt", "dc_zva",
	                                      "sve",  "mops",    "mops_nt"};
	static const char *const arm_cpy[] = {"neon", "neon_nt", "sve", "mops", "mops_nt"};
	for (size_t i = 0; i < sizeof arm_set / sizeof arm_set[0]; i++)
		assert_true(has_kernel(PB_OP_MEMSET, arm_set[i]));
	for (size_t i = 0; i < sizeof arm_cpy / sizeof arm_cpy[0]; i++) {
		assert_true(has_kernel(PB_OP_MEMCPY, arm_cpy[i]));
		assert_true(has_kernel(PB_OP_MEMMOVE, arm_cpy[i]));
	}
#endif
}

static void test_op_parse(void **state)
{
	(void)state;
	enum pb_op op;
	assert_int_equal(pb_op_parse("memset", &op), 0);
	assert_int_equal(op, PB_OP_MEMSET);
	assert_int_equal(pb_op_parse("memcpy", &op), 0);
	assert_int_equal(op, PB_OP_MEMCPY);
	assert_string_equal(pb_op_name(PB_OP_MEMSET), "memset");
	assert_string_equal(pb_op_name(PB_OP_MEMCPY), "memcpy");
	assert_int_equal(pb_op_parse("memmove", &op), 0);
	assert_int_equal(op, PB_OP_MEMMOVE);
	assert_string_equal(pb_op_name(PB_OP_MEMMOVE), "memmove");
	assert_int_equal(pb_op_parse("memfrob", &op), -1);
	assert_string_equal(pb_error(), "unknown op 'memfrob'");
	assert_int_equal(pb_op_parse("", &op), -1);
	assert_string_equal(pb_error(), "unknown op ''");
}

static void test_find(void **state)
{
	(void)state;
	const struct pb_kernel *k = pb_kernel_find(PB_OP_MEMSET, "bytes");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMSET);
	assert_string_equal(k->name, "bytes");

	k = pb_kernel_find(PB_OP_MEMCPY, "memcpy/bytes");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMCPY);
	k = pb_kernel_find(PB_OP_COUNT, "memset/rbw");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMSET);
	/* A name only one op has needs no op. */
	k = pb_kernel_find(PB_OP_COUNT, "strided");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMCPY);

	assert_null(pb_kernel_find(PB_OP_MEMSET, "nosuch"));
	assert_string_equal(pb_error(), "unknown kernel 'nosuch'");
	assert_null(pb_kernel_find(PB_OP_COUNT, "memset/nosuch"));
	assert_string_equal(pb_error(), "unknown kernel 'memset/nosuch'");
	k = pb_kernel_find(PB_OP_COUNT, "memmove/bytes");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMMOVE);
	assert_non_null(k->memmove_fn);
	k = pb_kernel_find(PB_OP_MEMMOVE, "gpr_unrolled");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMMOVE);
	assert_null(pb_kernel_find(PB_OP_COUNT, "memfrob/bytes"));
	assert_string_equal(pb_error(), "unknown kernel 'memfrob/bytes'");
	assert_null(pb_kernel_find(PB_OP_MEMMOVE, "memcpy/bytes"));
	assert_string_equal(pb_error(), "kernel 'memcpy/bytes' is not a memmove kernel");
	assert_null(pb_kernel_find(PB_OP_MEMMOVE, "rbw"));
	assert_string_equal(pb_error(), "unknown kernel 'memmove/rbw' (there is memset/rbw)");
	assert_null(pb_kernel_find(PB_OP_MEMSET, ""));
	assert_string_equal(pb_error(), "unknown kernel ''");
	assert_null(pb_kernel_find(PB_OP_MEMSET, "memcpy/bytes"));
	assert_string_equal(pb_error(), "kernel 'memcpy/bytes' is not a memset kernel");
	assert_null(pb_kernel_find(PB_OP_MEMSET, "strided"));
	assert_string_equal(pb_error(),
	                    "unknown kernel 'memset/strided' (there is memcpy/strided)");
	assert_null(pb_kernel_find(PB_OP_MEMCPY, "rbw"));
	assert_string_equal(pb_error(), "unknown kernel 'memcpy/rbw' (there is memset/rbw)");
	assert_null(pb_kernel_find(PB_OP_COUNT, "bytes"));
	assert_string_equal(pb_error(), "kernel name 'bytes' is ambiguous: say memset/bytes, "
	                                "memcpy/bytes or memmove/bytes");
#if defined(__x86_64__)
	assert_null(pb_kernel_find(PB_OP_COUNT, "rep_movsb"));
	assert_string_equal(pb_error(), "kernel name 'rep_movsb' is ambiguous: say "
	                                "memcpy/rep_movsb or memmove/rep_movsb");
	k = pb_kernel_find(PB_OP_COUNT, "rep_movsb_fwd_movsq_bwd");
	assert_non_null(k);
	assert_int_equal(k->op, PB_OP_MEMMOVE);
	assert_null(pb_kernel_find(PB_OP_MEMMOVE, "rep_movsq"));
	assert_string_equal(pb_error(),
	                    "unknown kernel 'memmove/rep_movsq' (there is memcpy/rep_movsq)");
	/* Issue 16, defect 18: the op asked for first, then every other. */
	assert_null(pb_kernel_find(PB_OP_MEMMOVE, "avx512_nt"));
	assert_string_equal(pb_error(), "unknown kernel 'memmove/avx512_nt' (there are "
	                                "memset/avx512_nt and memcpy/avx512_nt)");
#endif
}

static void test_usable_reason(void **state)
{
	(void)state;
	char why[128];
	struct pb_kernel fake = {.op = PB_OP_MEMSET, .name = "fake", .requires = BASE_FEATURE};
	assert_true(pb_kernel_usable(&fake, BASE_FEATURE, why, sizeof why));
	assert_false(pb_kernel_usable(&fake, 0, NULL, 0));
	/* A tiny buffer is cut, still terminated. */
	assert_false(pb_kernel_usable(&fake, 0, why, 4));
	assert_int_equal(strlen(why), 3);
#if defined(__aarch64__)
	/* QEMU 7.2 has no FEAT_MOPS: `primbench list` says why. */
	if (!(pb_cpu_features_detected() & PB_F(MOPS))) {
		const struct pb_kernel *k = pb_kernel_find(PB_OP_MEMCPY, "mops");
		assert_non_null(k);
		assert_false(pb_kernel_usable(k, pb_cpu_features(), why, sizeof why));
		assert_string_equal(why, "needs mops (not on this CPU)");
	}
#else
	if (!(pb_cpu_features_detected() & PB_F(CLZERO))) {
		const struct pb_kernel *k = pb_kernel_find(PB_OP_MEMSET, "clzero");
		if (k) {
			assert_false(pb_kernel_usable(k, pb_cpu_features(), why, sizeof why));
			assert_string_equal(why, "needs clzero (not on this CPU)");
		}
	}
#endif
}

/* Case M6's example on every usable memmove kernel: 11 22 33 44 00, four
 * bytes moved to dst = src + 1, gives 11 11 22 33 44 (and returns dst);
 * and the mirror, dst = src - 1. */
static void test_memmove_example(void **state)
{
	(void)state;
	size_t count, checked = 0;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		if (t[i].op != PB_OP_MEMMOVE ||
		    !pb_kernel_usable(&t[i], pb_cpu_features(), NULL, 0))
			continue;
		uint8_t b[5] = {0x11, 0x22, 0x33, 0x44, 0x00};
		static const uint8_t up[5] = {0x11, 0x11, 0x22, 0x33, 0x44};
		if (t[i].memmove_fn(b + 1, b, 4) != b + 1 || memcmp(b, up, 5) != 0)
			fail_msg("memmove/%s: got %02x %02x %02x %02x %02x", t[i].name, b[0], b[1],
			         b[2], b[3], b[4]);
		uint8_t c[5] = {0x00, 0x11, 0x22, 0x33, 0x44};
		static const uint8_t down[5] = {0x11, 0x22, 0x33, 0x44, 0x44};
		if (t[i].memmove_fn(c, c + 1, 4) != c || memcmp(c, down, 5) != 0)
			fail_msg("memmove/%s (down): got %02x %02x %02x %02x %02x", t[i].name, c[0],
			         c[1], c[2], c[3], c[4]);
		checked++;
	}
	assert_true(checked >= 3);
}

/* Broken memmove kernels the selftest must reject (its checks would
 * otherwise pass anything). */
static void *move_forward_only(void *dst, const void *src, size_t n)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

static void *move_backward_only(void *dst, const void *src, size_t n)
{
	volatile uint8_t *d = dst;
	const volatile uint8_t *s = src;
	for (size_t i = n; i > 0; i--)
		d[i - 1] = s[i - 1];
	return dst;
}

/* Right, but when the buffers overlap it also stores the source byte at
 * the same distance one past the end. */
static void *move_overlap_overrun(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	if (d != s && (d > s ? d - s < n : s - d < n)) {
		uint8_t after = ((const volatile uint8_t *)src)[n];
		if (d > s)
			move_backward_only(dst, src, n);
		else
			move_forward_only(dst, src, n);
		((volatile uint8_t *)dst)[n] = after;
		return dst;
	}
	return move_forward_only(dst, src, n);
}

static void expect_rejected(pb_memmove_fn fn, const char *want)
{
	struct pb_kernel k = {.op = PB_OP_MEMMOVE,
	                      .name = "broken",
	                      .memmove_fn = fn,
	                      .description = "test",
	                      .source = "test"};
	struct pb_selftest_result r;
	assert_int_equal(pb_selftest_kernel(&k, PB_SELFTEST_QUICK, &r), 1);
	print_message("%s\n", r.detail);
	if (!strstr(r.detail, want))
		fail_msg("'%s' does not say '%s'", r.detail, want);
}

static void test_memmove_rejects(void **state)
{
	(void)state;
	/* Fails case M6's example first. */
	expect_rejected(move_forward_only, "11 22 33 44 00 became 11 11 11 11 11");
	/* Passes the example and every copy between separate buffers. */
	expect_rejected(move_backward_only,
	                "n=2, lower of dst, src at page offset 0, dst - src = -1: "
	                "first difference at dst[0]");
	expect_rejected(move_overlap_overrun, "wrote past the end: dst[2]");
}

static sigjmp_buf probe_jump;

static void probe_fault(int sig)
{
	siglongjmp(probe_jump, sig);
}

/* Whether reading *p faults. */
static bool faults(const volatile uint8_t *p)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = probe_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old);
	bool faulted = true;
	if (sigsetjmp(probe_jump, 1) == 0) {
		(void)*p;
		faulted = false;
	}
	sigaction(SIGSEGV, &old, NULL);
	return faulted;
}

static void test_buffers(void **state)
{
	(void)state;
	uint8_t *p = pb_map(5000, false, false);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % PB_PAGE_BYTES, 0);
	p[8191] = 1;
	pb_unmap(p, 5000);

	p = pb_map((size_t)3 << 20, true, true);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % ((size_t)2 << 20), 0);
	p[((size_t)3 << 20) - 1] = 1;
	pb_unmap(p, (size_t)3 << 20);

	assert_null(pb_map(0, false, false));
	assert_string_equal(pb_error(), "cannot map 0 bytes");

	struct pb_guarded g;
	assert_int_equal(pb_guarded_alloc(&g, 100), 0);
	assert_int_equal(g.bytes, PB_PAGE_BYTES);
	assert_ptr_equal(g.base, (uint8_t *)g.map + PB_PAGE_BYTES);
	assert_int_equal(g.map_bytes, 3 * PB_PAGE_BYTES);
	g.base[0] = 1;
	g.base[g.bytes - 1] = 1;
	assert_false(faults(g.base));
	assert_true(faults(g.base - 1));
	assert_true(faults(g.base + g.bytes));
	pb_guarded_free(&g);
	assert_null(g.map);
}

/* same_code_as / differs_from_bytes: every row whose small sizes fall
 * through to another row's code names it (read from the kernels'
 * sources: `if (!pb_nt_lines(d, n)) return pb_memset_avx512(...)`),
 * every other row names none, and pb_kernel_code_at follows the rows. */
static void test_same_code(void **state)
{
	(void)state;
	static const struct {
		enum pb_op op;
		const char *name, *base;
		size_t from;
	} want[] = {
		{PB_OP_MEMCPY, "strided", "gpr_unrolled", 65},
#if defined(__x86_64__)
		{PB_OP_MEMSET, "sse2_nt", "sse2", 64},
		{PB_OP_MEMSET, "avx2_nt", "avx2", 64},
		{PB_OP_MEMSET, "avx512_nt", "avx512", 64},
		{PB_OP_MEMSET, "movnti", "gpr_unrolled", 64},
		{PB_OP_MEMSET, "clzero", "sse2", 257},
		{PB_OP_MEMCPY, "sse2_nt", "sse2", 64},
		{PB_OP_MEMCPY, "avx2_nt", "avx2", 64},
		{PB_OP_MEMCPY, "avx512_nt", "avx512", 64},
		{PB_OP_MEMCPY, "movnti", "gpr_unrolled", 64},
#elif defined(__aarch64__)
		{PB_OP_MEMSET, "neon_nt", "neon", 64},
		{PB_OP_MEMSET, "dc_zva", "neon", 257},
		{PB_OP_MEMCPY, "neon_nt", "neon", 64},
		{PB_OP_MEMMOVE, "neon_nt", "neon", 64},
#endif
	};
	size_t count;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		const struct pb_kernel *k = &t[i];
		size_t w = 0;
		while (w < sizeof want / sizeof want[0] &&
		       (want[w].op != k->op || strcmp(want[w].name, k->name)))
			w++;
		if (w == sizeof want / sizeof want[0]) {
			assert_null(k->same_code_as);
			assert_int_equal(k->differs_from_bytes, 0);
			assert_ptr_equal(pb_kernel_code_at(k, 64), k);
			continue;
		}
		assert_non_null(k->same_code_as);
		assert_string_equal(k->same_code_as, want[w].base);
		assert_int_equal(k->differs_from_bytes, want[w].from);
		const struct pb_kernel *base = pb_kernel_find(k->op, want[w].base);
		assert_non_null(base);
		assert_null(base->same_code_as); /* one step: no chains */
		assert_ptr_equal(pb_kernel_code_at(k, 0), base);
		assert_ptr_equal(pb_kernel_code_at(k, want[w].from - 1), base);
		assert_ptr_equal(pb_kernel_code_at(k, want[w].from), k);
		assert_ptr_equal(pb_kernel_code_at(k, SIZE_MAX), k);
	}
}

/* The widest vector register the features imply, bytes: 64 (AVX-512F),
 * 32 (AVX2), 16 (SSE2, ASIMD), 0 (none, or SVE: vector-length agnostic
 * code has no fixed width). */
static unsigned widest_vector(pb_features f)
{
#if defined(__aarch64__)
	if (f & (PB_F(SVE) | PB_F(SVE2)))
		return 0;
	return f & PB_F(ASIMD) ? 16 : 0;
#else
	if (f & PB_F(AVX512F))
		return 64;
	if (f & PB_F(AVX2))
		return 32;
	if (f & PB_F(SSE2))
		return 16;
	return 0;
#endif
}

/* The rows' properties agree with one another, with `requires` and with
 * same_code_as (struct pb_kernel, primbench/kernels.h). */
static void test_properties(void **state)
{
	(void)state;
	size_t count, n_inline[PB_OP_COUNT] = {0}, n_glibc_rep[PB_OP_COUNT] = {0};
	size_t n_inline_isa[PB_OP_COUNT] = {0}, n_rep[PB_OP_COUNT] = {0};
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		const struct pb_kernel *k = &t[i];
		print_message("%s/%s\n", pb_op_name(k->op), k->name);
		n_inline_isa[k->op] +=
		    INLINE_FEATURES && (k->requires & INLINE_FEATURES) == INLINE_FEATURES;
		n_rep[k->op] += k->store == PB_STORE_REP;
		/* Vector width: only vector and non-temporal stores have one, and
		 * it is the widest register the row's features give (none for
		 * vector-length agnostic code). */
		if (k->store == PB_STORE_VECTOR)
			assert_true(k->vector_bytes > 0 || widest_vector(k->requires) == 0);
		if (k->store != PB_STORE_VECTOR && k->store != PB_STORE_NT)
			assert_int_equal(k->vector_bytes, 0);
		if (k->vector_bytes)
			assert_int_equal(k->vector_bytes, widest_vector(k->requires));
		/* A non-temporal row streams at every size from a line on
		 * (blocks.h, pb_nt_lines): below, it is its temporal base, with
		 * the same registers, or it has none (mops_nt: the CPU's
		 * non-temporal instructions at every size). No row keeps the
		 * 1 MiB bound of kernel revision 1. */
		assert_int_not_equal(k->differs_from_bytes, (1u << 20) + 1);
		if (k->store == PB_STORE_NT && k->same_code_as)
			assert_int_equal(k->differs_from_bytes, 64);
		if (k->store == PB_STORE_NT && k->same_code_as) {
			const struct pb_kernel *base = pb_kernel_find(k->op, k->same_code_as);
			assert_non_null(base);
			assert_int_equal(base->vector_bytes, k->vector_bytes);
			/* vector, else general-purpose or string instructions (mops_nt) */
			if (k->vector_bytes)
				assert_int_equal(base->store, PB_STORE_VECTOR);
			else
				assert_true(base->store == PB_STORE_SCALAR ||
				            base->store == PB_STORE_REP);
		}
		/* The glibc path follows the store kind; mapped paths say so. */
		switch (k->glibc) {
		case PB_GLIBC_PATH_REP:
			assert_int_equal(k->store, PB_STORE_REP);
			n_glibc_rep[k->op] += !k->glibc_note;
			break;
		case PB_GLIBC_PATH_NT:
			assert_int_equal(k->store, PB_STORE_NT);
			assert_true(k->glibc_note || k->vector_bytes); /* glibc's loop is vector */
			break;
		case PB_GLIBC_PATH_VECTOR:
			assert_true(k->store == PB_STORE_VECTOR ||
			            (k->store == PB_STORE_SCALAR && k->glibc_note));
			break;
		case PB_GLIBC_PATH_ANY:
			assert_int_equal(k->store, PB_STORE_CALL);
			break;
		case PB_GLIBC_PATH_NONE:
			break;
		}
		if (k->op == PB_OP_MEMMOVE) /* the model covers memset and memcpy */
			assert_int_equal(k->glibc, PB_GLIBC_PATH_NONE);
		if (k->op == PB_OP_MEMSET && k->store == PB_STORE_NT) /* glibc 2.36 */
			assert_int_equal(k->glibc, PB_GLIBC_PATH_NONE);
		/* auto may inline only a tuned vector kernel its AVX-512 entry
		 * can reach (src/kernels/x86_64/auto_x86.c: the entry exists
		 * where avx512f and avx512bw do), one per op; none on arm64. */
		if (k->auto_inline) {
			n_inline[k->op]++;
			assert_int_equal(k->store, PB_STORE_VECTOR);
			assert_true(k->tune_candidate);
			assert_true(INLINE_FEATURES != 0);
			assert_int_equal(k->requires & INLINE_FEATURES, INLINE_FEATURES);
		}
		/* auto is never a candidate of its own policy. */
		if (!strcmp(k->name, "auto"))
			assert_false(k->tune_candidate);
	}
	for (unsigned op = 0; op < PB_OP_COUNT; op++) {
		/* One inline kernel per op where the table has AVX-512 rows (the
		 * x86-64 build); none elsewhere (the generic and arm64 builds). */
		assert_int_equal(n_inline[op], n_inline_isa[op] ? 1 : 0);
		/* glibc's own rep kernel (cmd_xsave.c's break-even), where the
		 * table has rep rows; the glibc model covers memset and memcpy,
		 * of x86-64 (arm64's string instructions, mops, map to none). */
#if defined(__aarch64__)
		assert_int_equal(n_glibc_rep[op], 0);
		(void)n_rep;
#else
		if (op != PB_OP_MEMMOVE)
			assert_int_equal(n_glibc_rep[op], n_rep[op] ? 1 : 0);
#endif
	}
}

/* Which code a row ran at an earlier revision (a result file's
 * kernel_revision): issue 30's NT rows ran their base row's code up to
 * 1 MiB at revision 1 and stream every whole line at revision 2. */
static void test_code_at_revision(void **state)
{
	(void)state;
#if defined(__x86_64__)
	const char *nt_name = "sse2_nt", *base_name = "sse2";
#elif defined(__aarch64__)
	const char *nt_name = "neon_nt", *base_name = "neon";
#else
	const char *nt_name = NULL, *base_name = NULL;
#endif
	if (!nt_name)
		skip();
	for (enum pb_op op = PB_OP_MEMSET; op <= PB_OP_MEMCPY; op++) {
		const struct pb_kernel *nt = pb_kernel_find(op, nt_name);
		const struct pb_kernel *base = pb_kernel_find(op, base_name);
		assert_non_null(nt);
		assert_non_null(base);
		unsigned now = pb_kernel_revision(nt, NULL);
		assert_int_equal(now, 2);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 1, 4096), base);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 1, 1u << 20), base);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 1, (1u << 20) + 1), nt);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 2, 4096), nt);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 2, 63), base);
		assert_ptr_equal(pb_kernel_code_at_revision(nt, 2, 64), nt);
		/* not known: revision 0, or newer than this build */
		assert_null(pb_kernel_code_at_revision(nt, 0, 4096));
		assert_null(pb_kernel_code_at_revision(nt, now + 1, 4096));
		/* a row without history */
		assert_int_equal(pb_kernel_revision(base, NULL), 1);
		assert_ptr_equal(pb_kernel_code_at_revision(base, 1, 4096), base);
		const char *line = pb_kernel_revision_change(nt, 1);
		assert_non_null(line);
		assert_non_null(strstr(line, "revision 1 ran"));
	}
}

int main(void)
{
	size_t count;
	const struct pb_kernel *t = pb_kernels(&count);
	size_t n_tests = count + 11;
	struct CMUnitTest *tests = calloc(n_tests, sizeof *tests);
	char(*names)[48] = calloc(count, sizeof *names);
	if (!tests || !names)
		return 1;
	/* First: the profile this run hides (tests/CMakeLists.txt) took effect. */
	tests[0] = (struct CMUnitTest)cmocka_unit_test(test_hide_profile);
	for (size_t i = 0; i < count; i++) {
		snprintf(names[i], sizeof names[i], "%s/%s", pb_op_name(t[i].op), t[i].name);
		tests[1 + i] = (struct CMUnitTest){
		    .name = names[i], .test_func = test_kernel, .initial_state = (void *)&t[i]};
	}
	tests[count + 1] = (struct CMUnitTest)cmocka_unit_test(test_table);
	tests[count + 2] = (struct CMUnitTest)cmocka_unit_test(test_op_parse);
	tests[count + 3] = (struct CMUnitTest)cmocka_unit_test(test_find);
	tests[count + 4] = (struct CMUnitTest)cmocka_unit_test(test_usable_reason);
	tests[count + 5] = (struct CMUnitTest)cmocka_unit_test(test_buffers);
	tests[count + 6] = (struct CMUnitTest)cmocka_unit_test(test_memmove_example);
	tests[count + 7] = (struct CMUnitTest)cmocka_unit_test(test_memmove_rejects);
	tests[count + 8] = (struct CMUnitTest)cmocka_unit_test(test_same_code);
	tests[count + 9] = (struct CMUnitTest)cmocka_unit_test(test_properties);
	tests[count + 10] = (struct CMUnitTest)cmocka_unit_test(test_code_at_revision);
	int failed = _cmocka_run_group_tests("kernels", tests, n_tests, NULL, NULL);
	free(names);
	free(tests);
	return failed;
}
