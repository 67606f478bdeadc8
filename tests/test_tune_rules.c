/* test_tune_rules.c - the rules tune decides by (include/primbench/
 * tune_rules.h) on made-up results: a kernel beating another by more than
 * auto's dispatch, the ranges a loss hands over, auto's inline kernel at
 * small sizes, the sizes where a policy is slower than libc and libc's
 * handover, the winner on a distribution, and the check's verdicts, second
 * round and undoing. Only kernels every architecture has (libc, bytes,
 * gpr_unrolled, rbw); gpr_unrolled stands for auto's inline kernel. No
 * timing: the samples are written by hand. (pb_tune_merge, _combine,
 * _guard_combined and _set_range: tests/test_auto.c.) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/auto.h"
#include "primbench/error.h"
#include "primbench/tune_rules.h"

#define NS 21

/* The samples of one made-up case: NS calls, each med x (1 +- up to 0.6%). */
struct samples {
	double ticks[NS];
	uint64_t calls[NS];
};

static struct pb_mem_case mk(struct samples *s, enum pb_op op, const char *kernel, uint64_t n,
                             double med)
{
	for (size_t i = 0; i < NS; i++) {
		s->ticks[i] = med * (1 + 0.002 * ((double)(i % 7) - 3));
		s->calls[i] = 1;
	}
	struct pb_mem_case c = {0};
	c.op = op;
	c.kernel = pb_kernel_find(op, kernel);
	assert_non_null(c.kernel);
	c.size_bytes = n;
	c.state = PB_STATE_HOT;
	c.n_samples = NS;
	c.batch_ticks = s->ticks;
	c.batch_calls = s->calls;
	c.ticks_per_call.n = NS;
	c.ticks_per_call.median = med;
	return c;
}

static struct pb_policy policy(enum pb_op op, const char *text)
{
	struct pb_policy p;
	if (pb_policy_parse(op, text, (pb_features)-1, &p) != 0)
		fail_msg("%s", pb_error());
	return p;
}

static void policy_is(const struct pb_policy *p, const char *want)
{
	char text[PB_POLICY_TEXT_MAX];
	assert_true(pb_policy_format(p, text, sizeof text) > 0);
	assert_string_equal(text, want);
}

static const struct pb_kernel *memset_kernel(const char *name)
{
	const struct pb_kernel *k = pb_kernel_find(PB_OP_MEMSET, name);
	assert_non_null(k);
	return k;
}

/* pb_tune_beats_dispatch: beyond the dispatch's share of c's median (4
 * ticks of 100: 4%; of 10: 40%), never below the one margin; no samples,
 * no evidence. */
static void test_beats_dispatch(void **state)
{
	(void)state;
	struct samples a, b;
	struct pb_mem_case c = mk(&a, PB_OP_MEMSET, "bytes", 1024, 100);
	struct pb_mem_case f = mk(&b, PB_OP_MEMSET, "gpr_unrolled", 1024, 150);
	assert_true(pb_tune_beats_dispatch(&c, &f));  /* 1.5 */
	assert_false(pb_tune_beats_dispatch(&f, &c)); /* slower */
	f = mk(&b, PB_OP_MEMSET, "gpr_unrolled", 1024, 102);
	assert_false(pb_tune_beats_dispatch(&c, &f)); /* 2%, inside 4% */
	f = mk(&b, PB_OP_MEMSET, "gpr_unrolled", 1024, 106);
	assert_true(pb_tune_beats_dispatch(&c, &f)); /* 6%, beyond it */
	c = mk(&a, PB_OP_MEMSET, "bytes", 64, 10);
	f = mk(&b, PB_OP_MEMSET, "gpr_unrolled", 64, 13);
	assert_false(pb_tune_beats_dispatch(&c, &f)); /* 30%, inside 40% */
	f = mk(&b, PB_OP_MEMSET, "gpr_unrolled", 64, 20);
	assert_true(pb_tune_beats_dispatch(&c, &f));
	c.n_samples = 0;
	assert_false(pb_tune_beats_dispatch(&c, &f));
}

/* pb_tune_loss_range: from the lower neighbour on the other grid to the
 * upper one, 1% to spare; two neighbouring sizes' ranges meet. */
static void test_loss_range(void **state)
{
	(void)state;
	uint64_t lo, hi;
	pb_tune_loss_range(1024, 1, &lo, &hi);
	assert_int_equal(lo, 716); /* 1024 / (sqrt(2) x 1.01) */
	assert_int_equal(hi, 1463);
	pb_tune_loss_range(1024, 2, &lo, &hi);
	assert_int_equal(lo, 852);
	assert_int_equal(hi, 1230);
	uint64_t lo2, hi2;
	pb_tune_loss_range(1448, 2, &lo2, &hi2); /* the check's size above 1024 */
	assert_true(lo2 <= hi);
	pb_tune_loss_range(1, 1, &lo, &hi);
	assert_true(lo <= 1 && hi >= 1);
}

/* pb_tune_prefer_inline: a band of another kernel keeps only the sizes
 * where it beats the inline kernel by more than the dispatch; an
 * unmeasured band goes to it; nothing above PB_AUTO_SMALL_MAX changes. */
static void test_prefer_inline(void **state)
{
	(void)state;
	const struct pb_kernel *fast = memset_kernel("gpr_unrolled");
	struct samples s[6];
	struct pb_mem_case cases[] = {
	    mk(&s[0], PB_OP_MEMSET, "bytes", 16, 10),        /* bytes wins by 3x */
	    mk(&s[1], PB_OP_MEMSET, "gpr_unrolled", 16, 30), /* */
	    mk(&s[2], PB_OP_MEMSET, "bytes", 64, 40),        /* loses */
	    mk(&s[3], PB_OP_MEMSET, "gpr_unrolled", 64, 20), /* */
	    mk(&s[4], PB_OP_MEMSET, "bytes", 256, 100),      /* loses */
	    mk(&s[5], PB_OP_MEMSET, "gpr_unrolled", 256, 50),
	};
	struct pb_mem_result r = {.cases = cases, .n_cases = 6};
	struct pb_policy p = policy(PB_OP_MEMSET, "bytes<=256,gpr_unrolled<=4K,libc");
	pb_tune_prefer_inline(&p, &r, fast, 1);
	/* 64: 44..92 (its range); 256, the band's last size: 179 to the
	 * band's end, joined with the band above */
	policy_is(&p, "bytes<=43,gpr_unrolled<=92,bytes<=178,gpr_unrolled<=4K,libc");

	/* the inline kernel not measured at a size: the band keeps it */
	r.n_cases = 5; /* no gpr_unrolled at 256 */
	p = policy(PB_OP_MEMSET, "bytes<=256,gpr_unrolled<=4K,libc");
	pb_tune_prefer_inline(&p, &r, fast, 1);
	policy_is(&p, "bytes<=43,gpr_unrolled<=92,bytes<=256,gpr_unrolled<=4K,libc");

	/* a band measured nowhere: no evidence that its kernel wins */
	p = policy(PB_OP_MEMSET, "rbw<=1K,libc");
	pb_tune_prefer_inline(&p, &r, fast, 1);
	policy_is(&p, "gpr_unrolled<=512,rbw<=1K,libc");

	/* no inline kernel: unchanged */
	p = policy(PB_OP_MEMSET, "rbw<=1K,libc");
	pb_tune_prefer_inline(&p, &r, NULL, 1);
	policy_is(&p, "rbw<=1K,libc");
}

/* pb_tune_libc_losses: above PB_AUTO_SMALL_MAX, up to max_bytes, where
 * libc beats the policy's kernel beyond the dispatch. */
static void test_libc_losses(void **state)
{
	(void)state;
	struct samples s[8];
	struct pb_mem_case cases[] = {
	    mk(&s[0], PB_OP_MEMSET, "gpr_unrolled", 256, 100), /* small: never judged */
	    mk(&s[1], PB_OP_MEMSET, "libc", 256, 10),
	    mk(&s[2], PB_OP_MEMSET, "gpr_unrolled", 1024, 200), /* libc 2x faster */
	    mk(&s[3], PB_OP_MEMSET, "libc", 1024, 100),
	    mk(&s[4], PB_OP_MEMSET, "gpr_unrolled", 4096, 400), /* libc a little slower */
	    mk(&s[5], PB_OP_MEMSET, "libc", 4096, 405),
	    mk(&s[6], PB_OP_MEMSET, "bytes", 16384, 1000), /* libc 2x faster */
	    mk(&s[7], PB_OP_MEMSET, "libc", 16384, 500),
	};
	struct pb_mem_result r = {.cases = cases, .n_cases = 8};
	const uint64_t sizes[] = {256, 1024, 4096, 16384};
	struct pb_policy p = policy(PB_OP_MEMSET, "gpr_unrolled<=8K,bytes");
	struct pb_tune_loss loss[4];
	size_t n = pb_tune_libc_losses(&p, &r, sizes, 4, UINT64_MAX, loss, 4);
	assert_int_equal(n, 2);
	assert_int_equal(loss[0].size_bytes, 1024);
	assert_ptr_equal(loss[0].kernel_case, &cases[2]);
	assert_ptr_equal(loss[0].libc_case, &cases[3]);
	assert_int_equal(loss[1].size_bytes, 16384);
	/* up to the split only (the hot run) */
	assert_int_equal(pb_tune_libc_losses(&p, &r, sizes, 4, 8192, loss, 4), 1);
	/* at most cap */
	assert_int_equal(pb_tune_libc_losses(&p, &r, sizes, 4, UINT64_MAX, loss, 1), 1);
	/* libc serving those sizes loses nothing to itself */
	p = policy(PB_OP_MEMSET, "libc");
	assert_int_equal(pb_tune_libc_losses(&p, &r, sizes, 4, UINT64_MAX, loss, 4), 0);
}

/* pb_tune_hand_to_libc: the sizes around s to libc; nothing when libc
 * serves s; a refused range leaves the policy. */
static void test_hand_to_libc(void **state)
{
	(void)state;
	struct pb_policy p = policy(PB_OP_MEMSET, "gpr_unrolled<=8K,bytes");
	struct pb_tune_handover h;
	assert_int_equal(pb_tune_hand_to_libc(&p, 1024, 1, &h), 1);
	assert_int_equal(h.lo_bytes, 716);
	assert_int_equal(h.hi_bytes, 1463);
	assert_ptr_equal(h.from, memset_kernel("gpr_unrolled"));
	assert_true(h.changed);
	policy_is(&p, "gpr_unrolled<=715,libc<=1463,gpr_unrolled<=8K,bytes");
	assert_int_equal(pb_tune_hand_to_libc(&p, 1024, 1, &h), 0);
	/* too many bands: refused, p as it was */
	p = policy(PB_OP_MEMSET, "gpr_unrolled<=8K,bytes");
	for (uint64_t lo = 100; p.n_bands + 2 <= PB_POLICY_MAX_BANDS; lo += 100)
		assert_int_equal(pb_tune_set_range(&p, lo, lo + 10, memset_kernel("rbw")), 0);
	struct pb_policy before = p;
	assert_int_equal(pb_tune_hand_to_libc(&p, 4096, 1, &h), -1);
	assert_true(pb_policy_equal(&p, &before));
	assert_ptr_equal(h.from, memset_kernel("gpr_unrolled"));
}

/* pb_tune_distribution_pick: the fastest candidate when its ratio to the
 * policy is below 1 beyond the one margin; else the policy (0). */
static void test_distribution_pick(void **state)
{
	(void)state;
	struct pb_summary sum[3] = {
	    {.n = 5, .median = 100}, {.n = 5, .median = 90}, {.n = 5, .median = 80}};
	struct pb_shift vs[3] = {
	    {.estimate = 1, .lo = 1, .hi = 1, .ci_valid = true},
	    {.estimate = 0.9, .lo = 0.88, .hi = 0.92, .ci_valid = true},
	    {.estimate = 0.8, .lo = 0.78, .hi = 0.82, .ci_valid = true},
	};
	assert_int_equal(pb_tune_distribution_pick(sum, vs, 3), 2);
	/* the fastest's interval reaches 1: the policy stays (not the next) */
	vs[2] = (struct pb_shift){.estimate = 0.8, .lo = 0.6, .hi = 1.05, .ci_valid = true};
	assert_int_equal(pb_tune_distribution_pick(sum, vs, 3), 0);
	/* inside the one margin (1%): the policy stays */
	vs[2] = (struct pb_shift){.estimate = 0.995, .lo = 0.993, .hi = 0.997, .ci_valid = true};
	assert_int_equal(pb_tune_distribution_pick(sum, vs, 3), 0);
	/* a candidate without samples is never the fastest */
	sum[2].n = 0;
	assert_int_equal(pb_tune_distribution_pick(sum, vs, 3), 1);
	/* the policy itself the fastest */
	sum[0].median = 50;
	assert_int_equal(pb_tune_distribution_pick(sum, vs, 3), 0);
}

/* pb_tune_check_sizes: the geometric midpoints of tune's grid. */
static void test_check_sizes(void **state)
{
	(void)state;
	uint64_t out[64];
	size_t n = pb_tune_check_sizes(1, 65536, out, 64);
	assert_int_equal(n, 12); /* 23, 45, ..., 46341 */
	assert_int_equal(out[0], 23);
	assert_int_equal(out[11], 46341);
	assert_int_equal(pb_tune_check_sizes(1, 65536, out, 3), 3);
}

/* A result file's case of `mem OP --kernels auto,libc`, by hand. */
static struct pb_results_case file_case(const char *kernel, const char *st, uint64_t n, double med,
                                        double *v)
{
	for (size_t i = 0; i < NS; i++)
		v[i] = med * (1 + 0.002 * ((double)(i % 7) - 3));
	struct pb_results_case c = {0};
	/* the typed key (reader.h) the reader makes of {"op": "memset",
	 * "kernel": kernel, "cache_state": st, "size_bytes": n} */
	struct pb_field *fl = calloc(4, sizeof *fl);
	assert_non_null(fl);
	fl[0] = (struct pb_field){.name = "op", .kind = PB_FIELD_STRING, .s = "memset"};
	fl[1] = (struct pb_field){.name = "kernel", .kind = PB_FIELD_STRING, .s = kernel};
	fl[2] = (struct pb_field){.name = "cache_state", .kind = PB_FIELD_STRING, .s = st};
	fl[3] = (struct pb_field){
	    .name = "size_bytes", .kind = PB_FIELD_INT, .i = (long long)n, .r = (double)n};
	c.fields = (struct pb_key){fl, 4};
	c.v = v;
	c.n = NS;
	return c;
}

/* pb_tune_check_judge: libc / auto at each size and state with both cases,
 * a loss where auto is slower beyond the one margin; the geometric means. */
static void test_check_judge(void **state)
{
	(void)state;
	double v[7][NS];
	struct pb_results_case cases[] = {
	    file_case("auto", "hot", 100, 50, v[0]),   file_case("libc", "hot", 100, 100, v[1]),
	    file_case("auto", "hot", 200, 120, v[2]),  file_case("libc", "hot", 200, 100, v[3]),
	    file_case("auto", "dram", 100, 100, v[4]), file_case("libc", "dram", 100, 100, v[5]),
	    file_case("auto", "dram", 200, 100, v[6]), /* no libc: not judged */
	};
	struct pb_results_file f = {.cases = cases, .ncases = 7};
	const uint64_t sizes[] = {100, 200};
	struct pb_tune_check c;
	assert_int_equal(pb_tune_check_judge(PB_OP_MEMSET, sizes, 2, &f, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.losses, 1);
	assert_int_equal(c.pts[0].state, PB_STATE_HOT);
	assert_int_equal(c.pts[0].size_bytes, 100);
	assert_true(fabs(c.pts[0].ratio - 2) < 1e-6);
	assert_false(c.pts[0].loss);
	assert_true(fabs(c.pts[0].auto_ticks - 50) < 1e-6);
	assert_true(c.pts[1].loss); /* auto 20% slower */
	assert_true(c.pts[1].ratio < 1 && c.pts[1].hi < 1);
	assert_int_equal(c.pts[2].state, PB_STATE_DRAM);
	assert_false(c.pts[2].loss);
	assert_int_equal(c.count[0], 2);
	assert_int_equal(c.count[1], 1);
	assert_true(fabs(c.geomean[0] - sqrt(2.0 * 100.0 / 120.0)) < 1e-6);
	assert_true(fabs(c.geomean[1] - 1) < 1e-6);
	pb_tune_check_free(&c);
	assert_null(c.pts);
	/* nothing in the file: no point, no mean */
	f.ncases = 0;
	assert_int_equal(pb_tune_check_judge(PB_OP_MEMSET, sizes, 2, &f, &c), 0);
	assert_int_equal(c.n, 0);
	assert_true(isnan(c.geomean[0]));
	pb_tune_check_free(&c);
	for (size_t i = 0; i < 7; i++)
		free(cases[i].fields.fields);
}

/* pb_tune_check_again: the losses above 512 B not served by libc, then
 * tune's own suspects, each once; the small losses counted. */
static void test_check_again(void **state)
{
	(void)state;
	struct pb_tune_check_point pts[] = {
	    {.state = PB_STATE_HOT, .size_bytes = 300, .loss = true},
	    {.state = PB_STATE_HOT, .size_bytes = 1024, .loss = true},
	    {.state = PB_STATE_HOT, .size_bytes = 1500, .loss = false},
	    {.state = PB_STATE_DRAM, .size_bytes = 1024, .loss = true},
	    {.state = PB_STATE_DRAM, .size_bytes = 20000, .loss = true}, /* libc's already */
	};
	struct pb_tune_check c = {.pts = pts, .n = 5, .losses = 4};
	struct pb_policy p = policy(PB_OP_MEMSET, "gpr_unrolled<=8K,libc");
	const uint64_t suspects[] = {4096, 1024};
	uint64_t out[8];
	size_t small;
	size_t n = pb_tune_check_again(&c, &p, suspects, 2, out, 8, &small);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 1024);
	assert_int_equal(out[1], 4096);
	assert_int_equal(small, 1);
	assert_int_equal(pb_tune_check_again(&c, &p, suspects, 2, out, 1, &small), 1);
}

/* pb_tune_check_undo: a handover after which libc did worse than the
 * kernel before goes back; one that did better stays. */
static void test_check_undo(void **state)
{
	(void)state;
	const struct pb_policy before = policy(PB_OP_MEMSET, "gpr_unrolled<=8K,bytes");
	struct pb_policy p = before;
	struct pb_tune_handover h;
	assert_int_equal(pb_tune_hand_to_libc(&p, 1024, 1, &h), 1);
	assert_int_equal(pb_tune_hand_to_libc(&p, 4096, 1, &h), 1);
	const struct pb_tune_check_point was[] = {
	    {.state = PB_STATE_HOT, .size_bytes = 1024, .ratio = 0.9, .loss = true},
	    {.state = PB_STATE_DRAM, .size_bytes = 4096, .ratio = 0.9, .loss = true},
	};
	struct pb_tune_check_point pts[] = {
	    {.state = PB_STATE_HOT, .size_bytes = 1024, .ratio = 0.8, .loss = true},   /* worse */
	    {.state = PB_STATE_DRAM, .size_bytes = 4096, .ratio = 0.95, .loss = true}, /* better */
	    {.state = PB_STATE_HOT,
	     .size_bytes = 4096,
	     .ratio = 0.5,
	     .loss = true}, /* other state */
	};
	struct pb_tune_check c = {.pts = pts, .n = 3, .losses = 3};
	struct pb_tune_undo undo[4];
	assert_int_equal(pb_tune_check_undo(&p, &before, &c, was, 2, 1, undo, 4), 1);
	assert_int_equal(undo[0].size_bytes, 1024);
	assert_int_equal(undo[0].state, PB_STATE_HOT);
	assert_true(undo[0].ratio == 0.8 && undo[0].was_ratio == 0.9);
	assert_ptr_equal(undo[0].kernel, memset_kernel("gpr_unrolled"));
	policy_is(&p, "gpr_unrolled<=2866,libc<=5851,gpr_unrolled<=8K,bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_beats_dispatch), cmocka_unit_test(test_loss_range),
	    cmocka_unit_test(test_prefer_inline),  cmocka_unit_test(test_libc_losses),
	    cmocka_unit_test(test_hand_to_libc),   cmocka_unit_test(test_distribution_pick),
	    cmocka_unit_test(test_check_sizes),    cmocka_unit_test(test_check_judge),
	    cmocka_unit_test(test_check_again),    cmocka_unit_test(test_check_undo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
