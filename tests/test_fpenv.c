/* test_fpenv.c - every suite leaves the floating-point environment as it
 * found it (issue 15): the x87 control word and MXCSR's control bits
 * exactly, and no AVX
 * (XINUSE bit 2) or ZMM_Hi256 (bit 6) state in use that was not in use
 * before (the vzeroupper discipline; Intel SDM Vol. 1 14.8 "Accessing YMM
 * registers"; opmask and Hi16_ZMM may already be in use from glibc's EVEX
 * functions, and that is fine). XINUSE is read with XGETBV(ECX=1) where
 * CPUID.(EAX=0DH,ECX=1):EAX[2] says it exists (Intel SDM Vol. 1 13.6
 * "Processor Tracking of XSAVE-Managed State"); elsewhere that part is
 * skipped with a reason.
 *
 * The control words are set to values that are not the defaults before
 * each call (53-bit x87 precision; FTZ and DAZ in MXCSR), so a suite that
 * "restores" the default instead of what it found is caught, and the x87
 * state is in use (XINUSE bit 0), as in any process that did long-double
 * arithmetic (GSL's sums): the state in which an xsaveopt64 into an area
 * written by software since the last xrstor64 from it may skip the x87
 * region and load a zero control word back (docs/methodology.md "SIMD
 * state saving"). Each check runs twice in a row, so the second run
 * meets the areas and the tracking the first one left.
 *
 * No timing is asserted. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/mem.h"
#include "primbench/policy.h"
#include "primbench/syscall.h"
#include "primbench/timer.h"
#include "primbench/xsave.h"

#if defined(__x86_64__)
#include "fpenv.h"

static void check_env(const char *what, const struct fpenv *before, const struct fpenv *after)
{
	reset_env();
	const char *why = env_change(before, after);
	if (why)
		fail_msg("%s: %s", what, why);
}

#define CHECKED(what, call)                                                                        \
	do {                                                                                       \
		struct fpenv before_, after_;                                                      \
		prepare(&before_);                                                                 \
		int rc_ = (call);                                                                  \
		read_env(&after_);                                                                 \
		check_env(what, &before_, &after_);                                                \
		if (rc_ != 0)                                                                      \
			fail_msg("%s: %s", what, pb_error());                                      \
	} while (0)

static int setup(void **state)
{
	(void)state;
	detect();
	if (!have_xinuse)
		fprintf(stderr, "test_fpenv: XINUSE not checked: no XGETBV(ECX=1) "
		                "(CPUID.(EAX=0DH,ECX=1):EAX[2] is 0)\n");
	return pb_timer_init();
}

/* ---- xsave --------------------------------------------------------- */

static int xsave_run_once(void)
{
	struct pb_xsave_params p = {
	    .budget_s = 0.001, .min_samples = 3, .max_samples = 3, .warmup_samples = 1, .seed = 7};
	struct pb_xsave_result r;
	int rc = pb_xsave_run(&p, &r);
	if (rc == 0)
		pb_xsave_result_free(&r);
	return rc;
}

/* Every available instruction's round trip, back to back, twice: a check's
 * area is often the previous one's block (freed and handed back by the
 * allocator) right after that one's xrstor64, and nothing in between
 * touches the x87 state. */
static int roundtrips(const struct pb_xsave_variant *v)
{
	for (int round = 0; round < 2; round++)
		for (int i = PB_XS_FXSAVE; i < PB_XS_XSAVES; i++)
			if (v[i * PB_XS_UPPER_COUNT].available &&
			    pb_xsave_roundtrip_check((enum pb_xsave_insn)i) != 0)
				return -1;
	return 0;
}

static void test_xsave(void **state)
{
	(void)state;
	const char *why;
	if (!pb_xsave_arch_supported(&why))
		skip();
	struct pb_xsave_info in;
	struct pb_xsave_variant v[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	pb_xsave_detect(&in);
	pb_xsave_variants(&in, true, NULL, v);
	CHECKED("the round trip checks, back to back", roundtrips(v));
	CHECKED("pb_xsave_run", xsave_run_once());
	CHECKED("pb_xsave_run, again", xsave_run_once());
}

/* ---- mem: every usable kernel, one direct call each, then a run ------ */

static void call_kernel(const struct pb_kernel *k, uint8_t *dst, uint8_t *src, size_t n)
{
	switch (k->op) {
	case PB_OP_MEMSET:
		k->memset_fn(dst, 0x5a, n);
		break;
	case PB_OP_MEMCPY:
		k->memcpy_fn(dst, src, n);
		break;
	default:
		k->memmove_fn(dst, dst + 64, n);
		break;
	}
}

static void test_kernels_direct(void **state)
{
	(void)state;
	size_t n;
	const struct pb_kernel *ks = pb_kernels(&n);
	/* Sizes that take each kernel's short, middle and bulk paths (the NT
	 * ones stream every whole line). */
	static const size_t sizes[] = {0, 1, 31, 64, 200, 4096, 70000, 4u << 20};
	size_t cap = (4u << 20) + 4096;
	uint8_t *dst = aligned_alloc(4096, cap), *src = aligned_alloc(4096, cap);
	assert_non_null(dst);
	assert_non_null(src);
	memset(src, 1, cap);
	size_t checked = 0, bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (!pb_kernel_usable(&ks[i], pb_cpu_features(), NULL, 0))
			continue;
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			struct fpenv before, after;
			prepare(&before);
			call_kernel(&ks[i], dst, src, sizes[s]);
			read_env(&after);
			reset_env();
			const char *why = env_change(&before, &after);
			if (why) {
				/* every offender listed, then one failure */
				print_error("%s/%s at %zu bytes: %s\n", pb_op_name(ks[i].op),
				            ks[i].name, sizes[s], why);
				bad++;
			}
		}
		checked++;
	}
	if (bad)
		fail_msg("%zu kernel calls changed the floating-point environment", bad);
	assert_true(checked > 0);
	free(dst);
	free(src);
}

static const struct pb_mem_placement placement = {.src_offset_bytes = 2048};

static struct pb_mem_params mem_params(enum pb_op op, const struct pb_kernel **ks, size_t nk,
                                       const uint64_t *sizes, size_t ns,
                                       const enum pb_cache_state *st, size_t nst)
{
	struct pb_mem_params p = {
	    .op = op,
	    .kernels = ks,
	    .n_kernels = nk,
	    .sizes_bytes = sizes,
	    .n_sizes = ns,
	    .states = st,
	    .n_states = nst,
	    .placements = &placement,
	    .n_placements = 1,
	    .budget_s = 0.001,
	    .min_samples = 2,
	    .max_samples = 2,
	    .l1_bytes = 32 << 10,
	    .l2_bytes = 1 << 20,
	    .llc_bytes = 8 << 20,
	    .seed = 42,
	};
	return p;
}

static size_t usable_kernels(enum pb_op op, const struct pb_kernel **out, size_t cap)
{
	size_t n, k = 0;
	const struct pb_kernel *ks = pb_kernels(&n);
	for (size_t i = 0; i < n && k < cap; i++)
		if (ks[i].op == op && pb_kernel_usable(&ks[i], pb_cpu_features(), NULL, 0))
			out[k++] = &ks[i];
	return k;
}

static int mem_run_once(const struct pb_mem_params *p)
{
	struct pb_mem_result r;
	int rc = pb_mem_run(p, &r);
	if (rc == 0)
		pb_mem_result_free(&r);
	return rc;
}

static void test_mem_runs(void **state)
{
	(void)state;
	static const uint64_t sizes[] = {64, 4096};
	static const enum pb_cache_state st[] = {PB_STATE_HOT};
	for (int op = 0; op < PB_OP_COUNT; op++) {
		const struct pb_kernel *ks[64];
		size_t nk = usable_kernels((enum pb_op)op, ks, 64);
		assert_true(nk > 0);
		struct pb_mem_params p = mem_params((enum pb_op)op, ks, nk, sizes, 2, st, 1);
		char what[64];
		snprintf(what, sizeof what, "pb_mem_run %s, every usable kernel",
		         pb_op_name((enum pb_op)op));
		CHECKED(what, mem_run_once(&p));
	}
	/* then-read and the streaming sizes, where the read-back loops and
	 * the NT kernels' bulk paths run */
	const struct pb_kernel *ks[64];
	size_t nk = usable_kernels(PB_OP_MEMSET, ks, 64);
	static const uint64_t big[] = {2u << 20};
	struct pb_mem_params p = mem_params(PB_OP_MEMSET, ks, nk, big, 1, st, 1);
	p.then_read = true;
	p.min_samples = p.max_samples = 1;
	CHECKED("pb_mem_run memset 2 MiB --then-read", mem_run_once(&p));
}

/* ---- replay and tune's policy timing ------------------------------- */

static void tiny_distribution(struct pb_distribution *d)
{
	uint64_t c[201] = {0};
	c[8] = 10;
	c[200] = 5;
	char *text = pb_distribution_format_counts(c, 201);
	assert_int_equal(pb_distribution_parse("tiny.csv", text, strlen(text), d), 0);
	free(text);
}

static int replay_once(const struct pb_mem_params *p, struct pb_mem_replay *rp)
{
	struct pb_mem_result r;
	int rc = pb_mem_replay_run(p, rp, &r);
	if (rc == 0)
		pb_mem_result_free(&r);
	return rc;
}

static void test_replay_and_tune(void **state)
{
	(void)state;
	struct pb_distribution d;
	tiny_distribution(&d);
	static const enum pb_cache_state st[] = {PB_STATE_HOT};
	for (int op = 0; op < PB_OP_COUNT; op++) {
		const struct pb_kernel *ks[64];
		size_t nk = usable_kernels((enum pb_op)op, ks, 64);
		struct pb_mem_params p = mem_params((enum pb_op)op, ks, nk, NULL, 0, st, 1);
		struct pb_mem_replay rp = {.dist = &d, .seed = 7, .batch_calls = 64};
		char what[64];
		snprintf(what, sizeof what, "pb_mem_replay_run %s", pb_op_name((enum pb_op)op));
		CHECKED(what, replay_once(&p, &rp));
		/* tune's measuring path: policies timed on the batch (its break-even
		 * runs are pb_mem_run, checked above); auto is among the kernels */
		struct pb_policy pols[2];
		assert_int_equal(
		    pb_policy_parse((enum pb_op)op, "libc", pb_cpu_features(), &pols[0]), 0);
		char one[64];
		snprintf(one, sizeof one, "%s<=64,libc", ks[nk - 1]->name);
		assert_int_equal(pb_policy_parse((enum pb_op)op, one, pb_cpu_features(), &pols[1]),
		                 0);
		struct pb_summary s[2];
		snprintf(what, sizeof what, "pb_mem_replay_policies %s",
		         pb_op_name((enum pb_op)op));
		CHECKED(what, pb_mem_replay_policies(&p, &rp, pols, 2, s, NULL));
	}
	pb_distribution_free(&d);
}

/* ---- syscall ------------------------------------------------------- */

static int syscall_once(void)
{
	struct pb_syscall_params p = {
	    .cpu = -1, .peer_cpu = -1, .budget_s = 0.001, .min_samples = 2, .max_samples = 2};
	for (int b = 0; b < PB_SC_COUNT; b++)
		p.selected[b] = true;
	struct pb_syscall_result r;
	int rc = pb_syscall_run(&p, &r);
	if (rc == 0)
		pb_syscall_result_free(&r);
	return rc;
}

static void test_syscall(void **state)
{
	(void)state;
	CHECKED("pb_syscall_run, every benchmark", syscall_once());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xsave),    cmocka_unit_test(test_kernels_direct),
	    cmocka_unit_test(test_mem_runs), cmocka_unit_test(test_replay_and_tune),
	    cmocka_unit_test(test_syscall),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

#else /* not x86-64: no x87, MXCSR or XINUSE to check */

static void test_not_x86(void **state)
{
	(void)state;
	skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_not_x86)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
