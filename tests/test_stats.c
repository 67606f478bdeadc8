/* test_stats.c - summaries against hand-computed answers; the median's
 * confidence interval against binomial tables and an exact recount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/stats.h"

#define EPS 1e-12

/* cmocka 1.1 compares floats only; doubles here. */
#define assert_close(a, b, eps)                                                                    \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

/* x[i] = i + 1 for i < n, shuffled deterministically, so that each order
 * statistic equals its rank: x(k) == k. */
static double *ranks(size_t n)
{
	double *x = malloc(n * sizeof *x);
	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (double)(i + 1);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	for (size_t i = n; i > 1; i--) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		size_t j = (size_t)((seed >> 33) % i);
		double t = x[i - 1];
		x[i - 1] = x[j];
		x[j] = t;
	}
	return x;
}

static void test_one_to_ten(void **state)
{
	(void)state;
	const double x[] = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
	double copy[10];
	memcpy(copy, x, sizeof x);
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, 10, 0.95, &s), 0);
	assert_memory_equal(x, copy, sizeof x); /* input untouched */
	assert_int_equal(s.n, 10);
	assert_close(s.min, 1, EPS);
	assert_close(s.max, 10, EPS);
	assert_close(s.mean, 5.5, EPS);
	/* sum (i - 5.5)^2 = 82.5; / 9 */
	assert_close(s.stddev, sqrt(82.5 / 9), EPS);
	assert_close(s.median, 5.5, EPS);
	/* type 7: h = (n - 1) p; p10 at h = 0.9: 1 + 0.9; p90 at h = 8.1: 9 + 0.1 */
	assert_close(s.p10, 1.9, EPS);
	assert_close(s.p90, 9.1, EPS);
	assert_close(s.ci_level, 0.95, 0);
}

static void test_uneven_values(void **state)
{
	(void)state;
	/* The textbook set: mean 5, population sd 2, sample sd sqrt(32/7). */
	const double x[] = {9, 4, 2, 5, 4, 7, 4, 5};
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, 8, 0.95, &s), 0);
	assert_close(s.mean, 5, EPS);
	assert_close(s.stddev, sqrt(32.0 / 7), EPS);
	assert_close(s.median, 4.5, EPS);
	/* sorted 2 4 4 4 5 5 7 9; h = 0.7 -> 2 + 0.7 * 2; h = 6.3 -> 7 + 0.3 * 2 */
	assert_close(s.p10, 3.4, EPS);
	assert_close(s.p90, 7.6, EPS);
	assert_close(s.min, 2, EPS);
	assert_close(s.max, 9, EPS);
}

static void test_odd_n_median(void **state)
{
	(void)state;
	const double x[] = {30, 10, 20};
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, 3, 0.95, &s), 0);
	assert_close(s.median, 20, EPS);
	assert_close(s.p10, 12, EPS); /* h = 0.2 */
	assert_close(s.p90, 28, EPS); /* h = 1.8 */
	assert_close(s.stddev, 10, EPS);
}

static void test_single_sample(void **state)
{
	(void)state;
	const double x[] = {42};
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, 1, 0.95, &s), 0);
	assert_close(s.min, 42, 0);
	assert_close(s.max, 42, 0);
	assert_close(s.median, 42, 0);
	assert_close(s.p10, 42, 0);
	assert_close(s.p90, 42, 0);
	assert_close(s.mean, 42, 0);
	assert_true(isnan(s.stddev)); /* undefined for one sample */
	assert_false(s.ci_valid);
}

/* Checks the CI of x = ranks(n) is [x(lo), x(hi)] at the level. */
static void check_ci(size_t n, double level, size_t lo, size_t hi)
{
	double *x = ranks(n);
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, n, level, &s), 0);
	free(x);
	if (!s.ci_valid)
		fail_msg("n=%zu level=%g: no interval, expected [x(%zu), x(%zu)]", n, level, lo,
		         hi);
	if (s.ci_lo != (double)lo || s.ci_hi != (double)hi)
		fail_msg("n=%zu level=%g: [x(%g), x(%g)], expected [x(%zu), x(%zu)]", n, level,
		         s.ci_lo, s.ci_hi, lo, hi);
}

static void check_no_ci(size_t n, double level)
{
	double *x = ranks(n);
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, n, level, &s), 0);
	free(x);
	if (s.ci_valid)
		fail_msg("n=%zu level=%g: got [%g, %g], expected none", n, level, s.ci_lo, s.ci_hi);
	assert_true(isnan(s.ci_lo) && isnan(s.ci_hi));
}

/* Ranks from binomial(n, 1/2) tables (coverage in parentheses). */
static void test_median_ci_tables(void **state)
{
	(void)state;
	check_no_ci(1, 0.95);
	check_no_ci(2, 0.95);
	check_no_ci(5, 0.95);           /* [x(1), x(5)] covers 1 - 2/32 = 93.75% */
	check_ci(6, 0.95, 1, 6);        /* 96.9% */
	check_ci(8, 0.95, 1, 8);        /* 99.2%; [x(2), x(7)] only 93.0% */
	check_ci(9, 0.95, 2, 8);        /* 96.1% */
	check_ci(10, 0.95, 2, 9);       /* 97.9%; [x(3), x(8)] only 89.1% */
	check_ci(20, 0.95, 6, 15);      /* 95.9%; [x(7), x(14)] only 88.5% */
	check_ci(100, 0.95, 40, 61);    /* 96.5% */
	check_ci(1000, 0.95, 469, 532); /* 95.4% */
	check_ci(10, 0.99, 1, 10);      /* 99.8% */
	check_ci(100, 0.99, 37, 64);    /* 99.3% */
	check_ci(10, 0.80, 3, 8);       /* 89.1% */
	check_ci(2, 0.5, 1, 2);         /* exactly 50%: the level is met */
	check_no_ci(6, 0.99);           /* 96.9% < 99% */
	check_ci(8, 0.99, 1, 8);        /* 99.2% */
}

/* For every n up to 60 the binomial sums are exact in uint64: recount the
 * expected rank independently of GSL and compare. */
static void test_median_ci_exact_recount(void **state)
{
	(void)state;
	const double levels[] = {0.90, 0.95, 0.99};
	for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
		for (size_t n = 1; n <= 60; n++) {
			uint64_t c = 1, below = 0; /* c = C(n, i); below = sum C(n, <i) */
			long double total = ldexpl(1, (int)n);
			size_t k_best = 0;
			for (size_t k = 1; k <= (n + 1) / 2; k++) {
				below += c; /* now sum_{i < k} C(n, i) */
				c = c * (n - (k - 1)) / k;
				if (total - 2.0L * (long double)below >= levels[li] * total)
					k_best = k;
			}
			if (k_best == 0)
				check_no_ci(n, levels[li]);
			else
				check_ci(n, levels[li], k_best, n + 1 - k_best);
		}
	}
}

static void test_summarize_errors(void **state)
{
	(void)state;
	const double x[] = {1, 2, 3};
	struct pb_summary s;
	assert_int_equal(pb_summarize(x, 0, 0.95, &s), -1);
	assert_string_equal(pb_error(), "no samples to summarize");
	assert_int_equal(pb_summarize(x, 3, 0, &s), -1);
	assert_string_equal(pb_error(), "confidence level 0 is not between 0 and 1");
	assert_int_equal(pb_summarize(x, 3, 1, &s), -1);
	assert_string_equal(pb_error(), "confidence level 1 is not between 0 and 1");
	assert_int_equal(pb_summarize(x, 3, NAN, &s), -1);
	assert_string_equal(pb_error(), "confidence level nan is not between 0 and 1");
	const double bad[] = {1, NAN, 3};
	assert_int_equal(pb_summarize(bad, 3, 0.95, &s), -1);
	assert_string_equal(pb_error(), "sample 1 is not finite ('nan')");
	const double inf[] = {1, 2, INFINITY};
	assert_int_equal(pb_summarize(inf, 3, 0.95, &s), -1);
	assert_string_equal(pb_error(), "sample 2 is not finite ('inf')");
}

static void test_outliers(void **state)
{
	(void)state;
	/* sorted 1..9, 100: Q1 at h = 2.25 -> 3.25, Q3 at h = 6.75 -> 7.75,
	 * IQR 4.5, fence 7.75 + 13.5 = 21.25 */
	double x[] = {5, 100, 1, 9, 2, 8, 3, 7, 4, 6};
	size_t count = 99;
	double fence = 0;
	assert_int_equal(pb_count_outliers(x, 10, &count, &fence), 0);
	assert_int_equal(count, 1);
	assert_close(fence, 21.25, EPS);

	/* On the fence is not beyond it. */
	x[1] = 21.25;
	assert_int_equal(pb_count_outliers(x, 10, &count, &fence), 0);
	assert_int_equal(count, 0);
	x[1] = 21.26;
	assert_int_equal(pb_count_outliers(x, 10, &count, NULL), 0);
	assert_int_equal(count, 1);

	/* Only the upper side counts. */
	x[1] = -1000;
	assert_int_equal(pb_count_outliers(x, 10, &count, NULL), 0);
	assert_int_equal(count, 0);
}

static void test_outliers_several(void **state)
{
	(void)state;
	/* 16 samples of 10 and 11, then 3 far out: sorted 10 x8, 11 x8, 50, 60, 70.
	 * n = 19: Q1 at h = 4.5 -> 10, Q3 at h = 13.5 -> 11, fence 11 + 3 = 14. */
	double x[19];
	for (size_t i = 0; i < 16; i++)
		x[i] = 10 + (double)(i % 2);
	x[16] = 50;
	x[17] = 70;
	x[18] = 60;
	size_t count;
	double fence;
	assert_int_equal(pb_count_outliers(x, 19, &count, &fence), 0);
	assert_close(fence, 14, EPS);
	assert_int_equal(count, 3);
}

static void test_outliers_constant_and_errors(void **state)
{
	(void)state;
	const double same[] = {3, 3, 3, 3};
	size_t count = 99;
	double fence;
	assert_int_equal(pb_count_outliers(same, 4, &count, &fence), 0);
	assert_int_equal(count, 0);
	assert_close(fence, 3, 0);
	assert_int_equal(pb_count_outliers(same, 1, &count, &fence), 0);
	assert_int_equal(count, 0);
	assert_int_equal(pb_count_outliers(same, 0, &count, &fence), -1);
	assert_string_equal(pb_error(), "no samples to summarize");
	const double bad[] = {1, NAN};
	assert_int_equal(pb_count_outliers(bad, 2, &count, &fence), -1);
	assert_string_equal(pb_error(), "sample 1 is not finite ('nan')");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_to_ten),
	    cmocka_unit_test(test_uneven_values),
	    cmocka_unit_test(test_odd_n_median),
	    cmocka_unit_test(test_single_sample),
	    cmocka_unit_test(test_median_ci_tables),
	    cmocka_unit_test(test_median_ci_exact_recount),
	    cmocka_unit_test(test_summarize_errors),
	    cmocka_unit_test(test_outliers),
	    cmocka_unit_test(test_outliers_several),
	    cmocka_unit_test(test_outliers_constant_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
