/* primbench/stats.h - summaries of samples (GSL underneath).
 *
 * Quantiles: gsl_stats_quantile_from_sorted_data (linear interpolation,
 * Hyndman & Fan type 7). Confidence interval of the median: distribution-
 * free, from order statistics with binomial(n, 1/2) coverage (Conover,
 * Practical Nonparametric Statistics, 3rd ed., 3.2): the narrowest
 * symmetric pair of ranks whose coverage >= level. Fewer than 6 samples:
 * no 95% interval exists; ci_valid is false.
 */
#ifndef PRIMBENCH_STATS_H
#define PRIMBENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct pb_summary {
	size_t n;
	double min, max, mean, stddev; /* stddev: sample (n-1); NaN when n == 1 */
	double median, p10, p90;
	bool ci_valid;
	double ci_lo, ci_hi; /* CI of the median at ci_level; NaN when !ci_valid */
	double ci_level;     /* e.g. 0.95; the achieved coverage may be higher */
	/* Runs the median and its CI stand for (include/primbench/replicates.h):
	 * 0 or 1, one run: median and CI are the pooled samples' (the CI covers
	 * the noise inside that one process only); R >= 2 replicates: median
	 * is the geometric mean of the replicates' medians and the CI Student's
	 * t on their logarithms (pb_summarize_replicates). */
	size_t replicates;
};

/* Summarizes x[0..n) (not modified; sorted internally in a copy).
 * Returns 0, or -1 with pb_error() when n == 0, a sample is not finite,
 * ci_level is not in (0, 1), or allocation fails. */
int pb_summarize(const double *x, size_t n, double ci_level, struct pb_summary *out);

/* Counts the samples of x[0..n) above Tukey's upper "far out" fence,
 * Q3 + 3 * (Q3 - Q1) (Tukey, Exploratory Data Analysis, 1977), with the
 * quartiles by type 7 as above (Tukey's hinges differ slightly for small n).
 * Only the upper side: a timing is slowed by an interrupt, a migration or a
 * page fault, never sped up. The fence is stored in *out_upper_fence when
 * that is not NULL. Returns 0, or -1 with pb_error() when n == 0, a sample
 * is not finite, or allocation fails. */
int pb_count_outliers(const double *x, size_t n, size_t *out_count, double *out_upper_fence);

/* Counts samples whose modified z-score |0.6745 (x - median) / MAD| exceeds
 * `threshold` (3.5 recommended: Iglewicz and Hoaglin, "How to Detect and
 * Handle Outliers", ASQC 1993). MAD is the median absolute deviation; when
 * it is 0 (over half the samples equal), any sample != median counts.
 * Returns 0, or -1 with pb_error() when n == 0 or allocation fails. */
int pb_count_outliers_mz(const double *x, size_t n, double threshold, size_t *out_count);

/* Is the first value x[0] (a command's run 1) an outlier against the later
 * ones x[1..n)? Yes when it lies outside Tukey's far-out fences of x[1..n)
 * (Q1 - 3 IQR, Q3 + 3 IQR: Tukey, "Exploratory Data Analysis", 1977),
 * widened to at least +-10% of their median (a tiny IQR would else flag a
 * run 1 a few % off; an IQR of 0 is the same rule). Needs n >= 4 (3 later
 * values); returns false otherwise. *ratio gets x[0] / median(x[1..n))
 * (NaN when n < 2 or that median is <= 0). */
bool pb_first_outlier(const double *x, size_t n, double *ratio);

/* The fences pb_first_outlier judges x[0] by, as ratios to the median of
 * x[1..n): *lo and *hi get min(Q1 - 3 IQR, 0.9 median) / median and
 * max(Q3 + 3 IQR, 1.1 median) / median of x[1..n). Returns false
 * (fences untouched) when n < 4 or that median is <= 0. */
bool pb_first_outlier_fences(const double *x, size_t n, double *lo, double *hi);

#endif
