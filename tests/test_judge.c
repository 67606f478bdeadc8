/* test_judge.c - the judgements of one run's contenders (judge.h) on
 * made-up cases: y / x and the one rule's verdict, no interval from one
 * value, no ratio from values <= 0, and a kernel's standing against the
 * fastest of the others replicate by replicate and against the best
 * alone. No timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "primbench/judge.h"

#define N 30

/* A case of n values around `level`, +-0.5% in a fixed pattern, in
 * reps replicates of n / reps values (reps <= 1: one run). */
static void make_case(struct pb_results_case *k, double *v, size_t *rep_n, size_t n, size_t reps,
                      double level)
{
	memset(k, 0, sizeof *k);
	for (size_t i = 0; i < n; i++)
		v[i] = level * (1 + 0.005 * (double)((int)(i % 5) - 2) / 2);
	k->v = v;
	k->n = n;
	k->unit = "tsc_ticks";
	if (reps > 1) {
		for (size_t r = 0; r < reps; r++)
			rep_n[r] = n / reps;
		k->rep_n = rep_n;
		k->n_rep = reps;
	}
}

static void test_cases_slower_and_equivalent(void **state)
{
	(void)state;
	double a[N], b[N], c[N];
	struct pb_results_case x, y, z;
	make_case(&x, a, NULL, N, 1, 100);
	make_case(&y, b, NULL, N, 1, 200);
	make_case(&z, c, NULL, N, 1, 100);
	struct pb_shift r;
	assert_int_equal(pb_judge_cases(&x, &y, &r), PB_VERDICT_DIFFERENT);
	assert_true(r.ci_valid);
	assert_float_equal(r.estimate, 2, 0.01);
	assert_int_equal(pb_judge_cases(&y, &x, &r), PB_VERDICT_DIFFERENT);
	assert_float_equal(r.estimate, 0.5, 0.01);
	assert_int_equal(pb_judge_cases(&x, &z, &r), PB_VERDICT_EQUIVALENT);
	assert_float_equal(r.estimate, 1, 0.005);
}

static void test_cases_no_interval(void **state)
{
	(void)state;
	double a[1] = {100}, b[1] = {120}, d[N];
	struct pb_results_case x, y, w;
	make_case(&x, a, NULL, 1, 1, 100);
	make_case(&y, b, NULL, 1, 1, 120);
	struct pb_shift r;
	assert_int_equal(pb_judge_cases(&x, &y, &r), PB_VERDICT_NONE);
	assert_false(r.ci_valid);
	/* values <= 0: no ratio at all */
	make_case(&w, d, NULL, N, 1, 100);
	for (size_t i = 0; i < N; i++)
		d[i] = 0;
	struct pb_results_case z;
	double e[N];
	make_case(&z, e, NULL, N, 1, 100);
	assert_int_equal(pb_judge_cases(&z, &w, &r), PB_VERDICT_NONE);
	assert_false(r.ci_valid);
}

static void test_standing(void **state)
{
	(void)state;
	double lv[N], f1[N], f2[N];
	size_t lr[3], r1[3], r2[3];
	struct pb_results_case libc, k1, k2;
	make_case(&libc, lv, lr, N, 3, 150);
	make_case(&k1, f1, r1, N, 3, 100);
	make_case(&k2, f2, r2, N, 3, 120);
	const struct pb_results_case *others[2] = {&k1, &k2};
	struct pb_standing_judgement j;
	pb_judge_vs_fastest(&libc, 150, others, 2, &k1, 100, &j);
	assert_true(j.replicate_by_replicate);
	assert_int_equal(j.standing, PB_STANDING_BEHIND);
	assert_float_equal(j.ratio, 1.5, 0.02);
	assert_true(j.least > 1.01);
	assert_string_equal(pb_standing_name(j.standing), "behind");
	/* the same level as the fastest: within the noise */
	make_case(&libc, lv, lr, N, 3, 100);
	pb_judge_vs_fastest(&libc, 100, others, 2, &k1, 100, &j);
	assert_int_equal(j.standing, PB_STANDING_WITHIN);
	assert_true(isnan(j.least));
	/* one run each: against the best alone, by the samples */
	make_case(&libc, lv, NULL, N, 1, 80);
	make_case(&k1, f1, NULL, N, 1, 100);
	make_case(&k2, f2, NULL, N, 1, 120);
	pb_judge_vs_fastest(&libc, 80, others, 2, &k1, 100, &j);
	assert_false(j.replicate_by_replicate);
	assert_int_equal(j.standing, PB_STANDING_AHEAD);
	assert_float_equal(j.ratio, 0.8, 0.01);
	/* no interval: cannot tell, with the medians' ratio */
	double one[1] = {90}, two[1] = {100};
	struct pb_results_case a1, b1;
	make_case(&a1, one, NULL, 1, 1, 90);
	make_case(&b1, two, NULL, 1, 1, 100);
	const struct pb_results_case *o1[1] = {&b1};
	pb_judge_vs_fastest(&a1, 90, o1, 1, &b1, 100, &j);
	assert_int_equal(j.standing, PB_STANDING_UNSURE);
	assert_float_equal(j.ratio, 0.9, 1e-12);
	assert_true(isnan(j.lo) && isnan(j.hi));
	assert_string_equal(pb_standing_name(PB_STANDING_UNSURE), "cannot_tell");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases_slower_and_equivalent),
	    cmocka_unit_test(test_cases_no_interval),
	    cmocka_unit_test(test_standing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
