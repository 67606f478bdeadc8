/* paired.c - the ratio of paired runs (include/primbench/twosample.h,
 * "Paired runs"; docs/statistics.md, "Paired ratios and duet runs").
 *
 * The sample is d_i = log y_i - log x_i, one per pair. Under the null of
 * a symmetric distribution of d about its centre theta, the number of
 * Walsh averages (d_i + d_j) / 2, i <= j, below theta has the null
 * distribution of Wilcoxon's signed-rank statistic T+, so with W(1) <= ...
 * <= W(M), M = n (n + 1) / 2, the interval [W(k), W(M + 1 - k)] covers
 * theta with probability 1 - 2 P(T+ <= k - 1); the estimate is the median
 * of the Walsh averages (Hodges and Lehmann, Ann. Math. Statist. 34, 1963;
 * Hollander & Wolfe, Nonparametric Statistical Methods, 2nd ed., 1999,
 * 3.1-3.3; Tukey's "Walsh averages" interval).
 *
 * The null distribution of T+: each rank 1..n enters the sum with
 * probability 1/2, independently, so the probabilities of each sum are
 * built rank by rank, p'(w) = (p(w) + p(w - r)) / 2, exactly up to
 * EXACT_MAX_PAIRS pairs (n^3 / 4 additions, a few ms at 300), above it
 * the normal approximation with continuity correction (mean n (n + 1) / 4,
 * variance n (n + 1) (2n + 1) / 24).
 */
#include "primbench/twosample.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

#define EXACT_MAX_PAIRS 300
/* Walsh averages kept in memory: n (n + 1) / 2 doubles, 32 MB at 2,828. */
#define MAX_PAIRS      2800
#define COVERAGE_SLACK 1e-12

/* The largest k with 1 - 2 P(T+ <= k - 1) >= level among 1 .. M/2 (0: no
 * interval at this level), and that coverage. */
static int signed_rank_k(size_t n, double level, size_t *k_out, double *coverage)
{
	size_t m = n * (n + 1) / 2, kmax = (m + 1) / 2, k = 0;
	double cov = NAN;
	if (n <= EXACT_MAX_PAIRS) {
		double *p = calloc(m + 1, sizeof *p);
		if (!p)
			return pb_fail(
			    "out of memory for the signed-rank distribution of %zu pairs", n);
		p[0] = 1;
		size_t top = 0;
		for (size_t r = 1; r <= n; r++) {
			top += r;
			for (size_t w = top; w >= r; w--)
				p[w] = (p[w] + p[w - r]) / 2;
			for (size_t w = r; w-- > 0;)
				p[w] /= 2;
		}
		/* coverage(k) = 1 - 2 F(k - 1) falls with k */
		double cdf = 0;
		while (k < kmax) {
			double next = cdf + p[k]; /* F(k) */
			if (1.0 - 2.0 * next < level - COVERAGE_SLACK)
				break;
			cdf = next;
			k++;
		}
		if (k > 0)
			cov = 1.0 - 2.0 * cdf;
		free(p);
	} else {
		double mean = (double)m / 2.0;
		double sigma = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) / 24.0);
		double z = gsl_cdf_ugaussian_Pinv((1.0 + level) / 2.0);
		double kk = floor(mean + 0.5 - z * sigma);
		if (kk >= 1) {
			k = kk > (double)kmax ? kmax : (size_t)kk;
			cov = 1.0 - 2.0 * gsl_cdf_ugaussian_P(((double)k - 0.5 - mean) / sigma);
		}
	}
	*k_out = k;
	*coverage = cov;
	return 0;
}

size_t pb_paired_hl_min_pairs(double level)
{
	for (size_t n = 1; n <= EXACT_MAX_PAIRS; n++) {
		size_t k;
		double cov;
		if (signed_rank_k(n, level, &k, &cov) != 0)
			return 0;
		if (k > 0)
			return n;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int pb_paired_hl_ratio(const double *x, const double *y, size_t n, double level,
                       struct pb_shift *out)
{
	memset(out, 0, sizeof *out);
	out->estimate = out->lo = out->hi = out->coverage = NAN;
	if (!(level > 0.0 && level < 1.0))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	if (n < 1)
		return pb_fail("no pairs");
	if (n > MAX_PAIRS)
		return pb_fail("%zu pairs: at most %d", n, MAX_PAIRS);
	if (!x || !y)
		return pb_fail("no values");
	for (size_t i = 0; i < n; i++)
		if (!(isfinite(x[i]) && isfinite(y[i]) && x[i] > 0 && y[i] > 0))
			return pb_fail("pair %zu (%g, %g) is not two positive values (a ratio "
			               "needs them)",
			               i, x[i], y[i]);
	size_t m = n * (n + 1) / 2;
	double *d = malloc(n * sizeof *d), *w = malloc(m * sizeof *w);
	if (!d || !w) {
		free(d);
		free(w);
		return pb_fail("out of memory for %zu Walsh averages", m);
	}
	for (size_t i = 0; i < n; i++)
		d[i] = log(y[i]) - log(x[i]);
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[c++] = (d[i] + d[j]) / 2;
	qsort(w, m, sizeof *w, cmp_double);
	double med = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
	size_t k;
	double cov;
	int rc = signed_rank_k(n, level, &k, &cov);
	if (rc == 0) {
		out->estimate = exp(med);
		out->level = level;
		if (k > 0) {
			out->lo = exp(w[k - 1]);
			out->hi = exp(w[m - k]);
			out->coverage = cov;
			out->ci_valid = true;
		}
	}
	free(d);
	free(w);
	return rc;
}

/* Looks on every pair so far (pb_paired_hl_ratio). */
int pb_seq_plan_make_paired(size_t max_n, double alpha, struct pb_seq_plan *out)
{
	return pb_seq_plan_make_with(max_n, alpha, pb_paired_hl_min_pairs, out);
}
