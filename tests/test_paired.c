/* test_paired.c - the ratio of paired runs (pb_paired_hl_ratio,
 * include/primbench/twosample.h): Walsh averages and the signed-rank
 * interval against hand-computed values, the fewest pairs per level, the
 * plan of looks on pairs, symmetry, and bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "primbench/twosample.h"

/* Six pairs at 95%: P(T+ <= 0) = 1/64, P(T+ <= 1) = 2/64, so k = 1 and the
 * interval is the smallest and largest Walsh average, the smallest and
 * largest log ratio; coverage 1 - 2/64. The estimate: the median of the
 * 21 Walsh averages of d = log(y/x). */
static void test_six_pairs(void **state)
{
	(void)state;
	const double x[6] = {100, 100, 100, 100, 100, 100};
	const double r[6] = {1.01, 1.02, 1.03, 1.04, 1.05, 1.10};
	double y[6];
	for (int i = 0; i < 6; i++)
		y[i] = x[i] * r[i];
	struct pb_shift s;
	assert_int_equal(pb_paired_hl_ratio(x, y, 6, 0.95, &s), 0);
	assert_true(s.ci_valid);
	assert_float_equal(s.lo, 1.01, 1e-12);
	assert_float_equal(s.hi, 1.10, 1e-12);
	assert_float_equal(s.coverage, 1 - 2.0 / 64, 1e-12);
	/* the 21 Walsh averages of d, sorted: the 11th */
	double d[6], w[21];
	int c = 0;
	for (int i = 0; i < 6; i++)
		d[i] = log(r[i]);
	for (int i = 0; i < 6; i++)
		for (int j = i; j < 6; j++)
			w[c++] = (d[i] + d[j]) / 2;
	int below = 0;
	for (int i = 0; i < 21; i++)
		below += w[i] < log(s.estimate) - 1e-12;
	assert_int_equal(below, 10);
	/* five pairs: no 95% interval (1 - 2/32 < 0.95), an estimate still */
	assert_int_equal(pb_paired_hl_ratio(x, y, 5, 0.95, &s), 0);
	assert_false(s.ci_valid);
	assert_true(s.estimate > 1);
}

/* Ten pairs at 95%: the exact signed-rank distribution gives P(T+ <= 8) =
 * 25/1024 and P(T+ <= 9) = 33/1024 (the tables' critical value 8), so k =
 * 9 and coverage 1 - 50/1024. */
static void test_ten_pairs_coverage(void **state)
{
	(void)state;
	double x[10], y[10];
	for (int i = 0; i < 10; i++) {
		x[i] = 1000;
		y[i] = 1000 * (1 + 0.001 * (i * 7 % 10));
	}
	struct pb_shift s;
	assert_int_equal(pb_paired_hl_ratio(x, y, 10, 0.95, &s), 0);
	assert_true(s.ci_valid);
	assert_float_equal(s.coverage, 1 - 50.0 / 1024, 1e-12);
	assert_true(s.coverage >= 0.95);
	assert_true(s.lo <= s.estimate && s.estimate <= s.hi);
	/* swapping the sides inverts the ratio and its interval */
	struct pb_shift t;
	assert_int_equal(pb_paired_hl_ratio(y, x, 10, 0.95, &t), 0);
	assert_float_equal(t.estimate, 1 / s.estimate, 1e-12);
	assert_float_equal(t.lo, 1 / s.hi, 1e-12);
	assert_float_equal(t.hi, 1 / s.lo, 1e-12);
}

/* Above 300 pairs, the normal approximation: coverage at the level or a
 * little above, the interval around a known constant ratio's scatter. */
static void test_many_pairs(void **state)
{
	(void)state;
	enum { N = 400 };
	double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	assert_non_null(x);
	assert_non_null(y);
	for (int i = 0; i < N; i++) {
		x[i] = 1e6 * (1 + 0.5 * (i % 37) / 37.0); /* A varies a lot */
		y[i] = x[i] * 1.02 * (1 + 0.01 * ((i * 13 % 21) - 10) / 10.0);
	}
	struct pb_shift s;
	assert_int_equal(pb_paired_hl_ratio(x, y, N, 0.95, &s), 0);
	assert_true(s.ci_valid);
	assert_true(s.coverage >= 0.95 - 1e-9 && s.coverage < 0.96);
	assert_true(s.lo > 1.015 && s.hi < 1.025);
	assert_float_equal(s.estimate, 1.02, 2e-3);
	free(x);
	free(y);
}

static void test_min_pairs_and_plan(void **state)
{
	(void)state;
	assert_int_equal(pb_paired_hl_min_pairs(0.95), 6); /* 2^-6 <= 0.025 < 2^-5 */
	assert_int_equal(pb_paired_hl_min_pairs(0.99), 8); /* 2^-8 <= 0.005 < 2^-7 */
	struct pb_seq_plan plan;
	assert_int_equal(pb_seq_plan_make_paired(60, 0.05, &plan), 0);
	assert_true(plan.nlooks >= 1);
	assert_true(plan.look_n[0] >= pb_paired_hl_min_pairs(plan.level_per_look));
	assert_int_equal(plan.look_n[plan.nlooks - 1], 60);
	for (size_t i = 1; i < plan.nlooks; i++)
		assert_true(plan.look_n[i] > plan.look_n[i - 1]);
	assert_float_equal(plan.level_per_look, 1 - 0.05 / (double)plan.nlooks, 1e-12);
	/* 5 pairs never reach 95% */
	assert_int_equal(pb_seq_plan_make_paired(5, 0.05, &plan), -1);
	/* the two-sample plan is unchanged by the refactoring: 6 9 14 21 32 48 60 */
	assert_int_equal(pb_seq_plan_make(60, 0.05, &plan), 0);
	static const size_t want[] = {6, 9, 14, 21, 32, 48, 60};
	assert_int_equal(plan.nlooks, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(plan.look_n[i], want[i]);
}

static void test_bad_input(void **state)
{
	(void)state;
	const double x[3] = {1, 2, 3}, y[3] = {1, 0, 3};
	struct pb_shift s;
	assert_int_equal(pb_paired_hl_ratio(x, y, 3, 0.95, &s), -1); /* a 0 */
	assert_int_equal(pb_paired_hl_ratio(x, x, 0, 0.95, &s), -1);
	assert_int_equal(pb_paired_hl_ratio(x, x, 3, 1.5, &s), -1);
	assert_int_equal(pb_paired_hl_ratio(x, x, 3000, 0.95, &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_six_pairs),  cmocka_unit_test(test_ten_pairs_coverage),
	    cmocka_unit_test(test_many_pairs), cmocka_unit_test(test_min_pairs_and_plan),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
