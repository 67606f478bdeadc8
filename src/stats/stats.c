/* stats.c - summaries of samples, with GSL doing the arithmetic.
 *
 * Confidence interval of the median (Conover, Practical Nonparametric
 * Statistics, 3rd ed., 1999, section 3.2): for n samples from any continuous
 * distribution, the number B of samples below the true median is
 * binomial(n, 1/2), so the order statistics x(k) <= x(n+1-k) enclose it with
 * probability
 *
 *     P(k <= B <= n-k) = 1 - 2 * P(B <= k-1)
 *
 * (the binomial(n, 1/2) is symmetric). The coverage falls as k rises; the
 * interval reported is the narrowest one, the largest k whose coverage is
 * still >= the level asked for. The achieved coverage is therefore at least
 * the level, usually above it (n = 10: [x(2), x(9)], 97.9%). When even
 * [x(1), x(n)] falls short (1 - 2^(1-n) < level; n < 6 at 95%) there is no
 * interval and ci_valid is false: an interval that does not cover what it
 * says would mislead.
 */
#include "primbench/stats.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

/* A coverage computed as 1 - 2P in floating point may land an ulp under a
 * level it meets exactly (n = 2, level 0.5); this much slack accepts it. */
#define COVERAGE_SLACK 1e-12

/* Validates x[0..n) and returns a sorted copy (free() it), or NULL with
 * pb_error() set. */
static double *sorted_copy(const double *x, size_t n)
{
	if (n == 0) {
		pb_fail("no samples to summarize");
		return NULL;
	}
	if (n > UINT_MAX) { /* gsl_cdf_binomial_P takes an unsigned int */
		pb_fail("too many samples (%zu) to summarize", n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i])) {
			pb_fail("sample %zu is not finite ('%g')", i, x[i]);
			return NULL;
		}
	}
	double *s = malloc(n * sizeof *s);
	if (!s) {
		pb_fail("out of memory summarizing %zu samples", n);
		return NULL;
	}
	memcpy(s, x, n * sizeof *s);
	gsl_sort(s, 1, n);
	return s;
}

static double median_ci_coverage(size_t n, size_t k)
{
	return 1.0 - 2.0 * gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
}

/* The largest k (1-based) with coverage of [x(k), x(n+1-k)] >= level, or 0
 * when none exists. Binary search: the coverage decreases in k. */
static size_t median_ci_rank(size_t n, double level)
{
	size_t lo = 1, hi = (n + 1) / 2;
	if (median_ci_coverage(n, 1) < level - COVERAGE_SLACK)
		return 0;
	while (lo < hi) { /* invariant: coverage(lo) >= level */
		size_t mid = lo + (hi - lo + 1) / 2;
		if (median_ci_coverage(n, mid) >= level - COVERAGE_SLACK)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

int pb_summarize(const double *x, size_t n, double ci_level, struct pb_summary *out)
{
	if (!(ci_level > 0.0 && ci_level < 1.0))
		return pb_fail("confidence level %g is not between 0 and 1", ci_level);
	double *s = sorted_copy(x, n);
	if (!s)
		return -1;

	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->mean = gsl_stats_mean(s, 1, n);
	out->stddev = n > 1 ? gsl_stats_sd(s, 1, n) : NAN;
	out->median = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.5);
	out->p10 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.1);
	out->p90 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.9);
	out->ci_level = ci_level;
	size_t k = median_ci_rank(n, ci_level);
	out->ci_valid = k > 0;
	out->ci_lo = k > 0 ? s[k - 1] : NAN;
	out->ci_hi = k > 0 ? s[n - k] : NAN;
	out->replicates = 1;

	free(s);
	return 0;
}

int pb_count_outliers(const double *x, size_t n, size_t *out_count, double *out_upper_fence)
{
	double *s = sorted_copy(x, n);
	if (!s)
		return -1;
	double q1 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.25);
	double q3 = gsl_stats_quantile_from_sorted_data(s, 1, n, 0.75);
	double fence = q3 + 3.0 * (q3 - q1);
	size_t count = 0;
	while (count < n && s[n - 1 - count] > fence)
		count++;
	free(s);
	*out_count = count;
	if (out_upper_fence)
		*out_upper_fence = fence;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int pb_count_outliers_mz(const double *x, size_t n, double threshold, size_t *out_count)
{
	if (n == 0)
		return pb_fail("no samples");
	double *v = malloc(n * sizeof *v);
	if (!v)
		return pb_fail("out of memory");
	memcpy(v, x, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_double);
	double med = median_of_sorted(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(x[i] - med);
	qsort(v, n, sizeof *v, cmp_double);
	double mad = median_of_sorted(v, n);
	size_t count = 0;
	for (size_t i = 0; i < n; i++) {
		double dev = fabs(x[i] - med);
		if (mad > 0 ? 0.6745 * dev / mad > threshold : dev > 0)
			count++;
	}
	free(v);
	*out_count = count;
	return 0;
}

/* The median of x[1..n) (n >= 2) and, when n >= 4, the fences of
 * pb_first_outlier around it, in x's unit: Tukey's far-out fences, never
 * inside +-10% of the median (later runs that agree to 0.1% would else
 * make a 2% slower run 1 an outlier, and runs that agree exactly, IQR 0,
 * would not). Returns whether the fences were set; *med is NaN when n < 2
 * or out of memory. */
static bool later_runs(const double *x, size_t n, double *med, double *lo, double *hi)
{
	*med = NAN;
	if (n < 2)
		return false;
	size_t m = n - 1;
	double *rest = malloc(m * sizeof *rest);
	if (!rest)
		return false;
	memcpy(rest, x + 1, m * sizeof *rest);
	gsl_sort(rest, 1, m);
	*med = gsl_stats_median_from_sorted_data(rest, 1, m);
	bool fences = n >= 4;
	if (fences) {
		double q1 = gsl_stats_quantile_from_sorted_data(rest, 1, m, 0.25);
		double q3 = gsl_stats_quantile_from_sorted_data(rest, 1, m, 0.75);
		double iqr = q3 - q1;
		*lo = fmin(q1 - 3 * iqr, *med - 0.10 * fabs(*med));
		*hi = fmax(q3 + 3 * iqr, *med + 0.10 * fabs(*med));
	}
	free(rest);
	return fences;
}

bool pb_first_outlier_fences(const double *x, size_t n, double *lo, double *hi)
{
	double l, h, med;
	if (!later_runs(x, n, &med, &l, &h) || !(med > 0))
		return false;
	*lo = l / med;
	*hi = h / med;
	return true;
}

bool pb_first_outlier(const double *x, size_t n, double *ratio)
{
	double med, lo, hi;
	bool fences = later_runs(x, n, &med, &lo, &hi);
	*ratio = med > 0 ? x[0] / med : NAN;
	return fences && (x[0] > hi || x[0] < lo);
}
