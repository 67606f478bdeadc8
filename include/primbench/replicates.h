/* primbench/replicates.h - run-level figures: a case measured in R
 * replicates, each a fresh draw of what varies between runs (fresh
 * buffers and batch calibration; with `--processes`, a fresh process),
 * and comparisons whose unit is the replicate or the run, not the sample.
 *
 * Why (docs/statistics.md, "What varies between runs"): the samples of one
 * process describe the noise inside it; two processes of the same command
 * differ by 10 to 50 times more, so an interval over the samples says
 * nothing about the next run. The replicates' medians are the level at
 * which runs differ.
 *
 * Method: two-level ("iterations within executions"), after T. Kalibera
 * and R. Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013,
 * section 4: the figure of a replicate is the median of its samples (robust
 * to the interrupts that only add time); the figure of the case is the
 * mean of the replicates' log medians, exponentiated (a geometric mean:
 * times are compared as ratios), with Student's t interval on those logs
 * (R - 1 degrees of freedom). A replicate's median of hundreds of samples
 * is close to normal (the central limit theorem for sample quantiles), and
 * its log turns the multiplicative between-run effects into additive ones.
 * Two cases compare by Welch's t on the logs (B. L. Welch, Biometrika 34,
 * 1947; Welch-Satterthwaite degrees of freedom): the ratio B/A, its
 * interval and the two-sided p.
 */
#ifndef PRIMBENCH_REPLICATES_H
#define PRIMBENCH_REPLICATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

/* The medians of the replicates of x[0..n): replicate r holds the next
 * rep_n[r] values (sum of rep_n = n). Empty replicates are skipped; the
 * count of medians written to med[0..n_rep) is returned (0 on out of
 * memory, with pb_error()). */
size_t pb_replicate_medians(const double *x, size_t n, const size_t *rep_n, size_t n_rep,
                            double *med);

/* The summary of x[0..n) as replicates (rep_n as above): with fewer than
 * two non-empty replicates (rep_n NULL or n_rep <= 1 among them) exactly
 * pb_summarize (replicates = 1). Otherwise n, min, max, mean, stddev, p10,
 * p90 of the pooled values, and median, ci_lo, ci_hi at `level` from the
 * replicates' medians (top of this file; ci_valid true, replicates = R);
 * when a median is 0 the arithmetic mean and t on the values themselves.
 * Returns 0, or -1 with pb_error() (n 0, a bad level, out of memory). */
int pb_summarize_replicates(const double *x, size_t n, const size_t *rep_n, size_t n_rep,
                            double level, struct pb_summary *out);

/* A suite's batch samples joined replicate by replicate: (*ticks, *calls)
 * hold n batches (a batch's timer ticks and its calls), *rep_n the sizes
 * of the *n_rep replicates so far; the on batches (ot, oc) are appended
 * as one more replicate (on may be 0: an empty replicate). The caller
 * adds on to its n. Returns 0, or -1 with pb_error() (out of memory; the
 * arrays then stay valid, the replicate not added). */
int pb_replicate_join(double **ticks, uint64_t **calls, size_t n, size_t **rep_n, size_t *n_rep,
                      const double *ot, const uint64_t *oc, size_t on);

/* pb_summarize_replicates of the per-call values ticks[i] / calls[i] of n
 * batches (n >= 1, calls > 0) in n_rep replicates of rep_n[] batches.
 * Returns 0, or -1 with pb_error(). */
int pb_summarize_batch_replicates(const double *ticks, const uint64_t *calls, size_t n,
                                  const size_t *rep_n, size_t n_rep, double level,
                                  struct pb_summary *out);

/* 2^64 over the golden ratio, odd: the step between the seeds of
 * replicates and sweeps, and the seed of a run given none (splitmix64's
 * increment; Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
#define PB_SEED_STEP 0x9E3779B97F4A7C15ull

/* The seed of replicate `rep` (0-based) of a run seeded `seed`: seed +
 * rep x PB_SEED_STEP, mod 2^64. Replicate 0 keeps the run's seed; each
 * next one draws another order. */
uint64_t pb_replicate_seed(uint64_t seed, size_t rep);

/* A suite's generator state from its parameters' seed: the seed, or
 * PB_SEED_STEP when it is 0 (an xorshift state must not be 0). */
static inline uint64_t pb_seed_or_default(uint64_t seed)
{
	return seed ? seed : PB_SEED_STEP;
}

/* B against A at the run level: Welch's t on log a[0..na) and log
 * b[0..nb) (each value a replicate's or a run's figure, > 0). */
struct pb_runs_ratio {
	bool valid;      /* na, nb >= 2 and every value > 0 */
	double estimate; /* exp(mean log b - mean log a): B/A */
	double lo, hi;   /* its interval at `level`; equal to estimate when both
	                    sides are constant */
	double level;
	double df;                 /* Welch-Satterthwaite degrees of freedom */
	double p;                  /* two-sided, "same mean of logs" */
	double sd_log_a, sd_log_b; /* the spread of each side's logs */
};
/* Returns 0 (out->valid false when a side has fewer than two values or a
 * value is not > 0), or -1 with pb_error() for a bad level. */
int pb_runs_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
                  struct pb_runs_ratio *out);

/* B against A within one run whose replicates measured both, in the same
 * order (replicate i of a and of b share buffers, calibration and the
 * machine's state at that time): the paired t interval on the n logs of
 * b[i] / a[i], df n - 1, the contenders compared as interleaved ratios, so
 * that what moves a whole replicate cancels. sd_log_a holds the spread of
 * the log ratios, sd_log_b 0. Returns 0 (out->valid false when n < 2 or a
 * value is not > 0), or -1 with pb_error() for a bad level. (Student's
 * paired t; Kalibera and Jones, ISMM 2013, section 4, on ratios of means of
 * logs.) */
int pb_paired_ratio(const double *a, const double *b, size_t n, double level,
                    struct pb_runs_ratio *out);

/* y against the fastest of k contenders, within one run of n replicates
 * whose replicates measured them all: med[c * n + i] is contender c's
 * median in replicate i, y[i] y's. For each replicate i the contender is
 * chosen on the other replicates (the least mean log median over them:
 * leave-one-out), and replicate i's ratio is y[i] / med[chosen * n + i];
 * out is the paired t interval on those n log ratios (as pb_paired_ratio).
 * Choosing the fastest of several by the same medians the ratio is then
 * taken from favours the one whose noise was lucky (the winner's curse:
 * with k equal contenders the minimum of their medians lies below their
 * common level), so y looks slower than it is; a replicate that did not
 * choose cannot flatter its own choice. chosen[0..n) (may be NULL)
 * receives each replicate's contender. n >= 3 (with 2 a replicate is
 * chosen on one other); out->valid false otherwise, or when a value is
 * not > 0. Returns 0, or -1 with pb_error() (a bad level, out of memory).
 * (Cross-validation against selection bias: M. Stone, "Cross-validatory
 * choice and assessment of statistical predictions", JRSS B 36, 1974.) */
int pb_vs_fastest_ratio(const double *med, size_t k, size_t n, const double *y, double level,
                        struct pb_runs_ratio *out, size_t *chosen);

/* Two contenders of one run, per-call values x (nx of them, in nrx
 * replicates of rx[] values; rx NULL or nrx <= 1: one run) and y alike:
 * y / x as an interval at `level` for pb_verdict (twosample.h), the one
 * way a run's kernels are set against each other (the summary's libc
 * verdicts, the tables' marks). Paired by replicate (pb_paired_ratio of
 * the replicates' medians) when both have the same two or more
 * replicates; else the samples' Hodges-Lehmann ratio (pb_hodges_lehmann_
 * ratio), which needs every value > 0. out->ci_valid false when neither
 * can be had. Returns 0, or -1 with pb_error() (a bad level, out of
 * memory). */
struct pb_shift;
int pb_contender_ratio(const double *x, size_t nx, const size_t *rx, size_t nrx, const double *y,
                       size_t ny, const size_t *ry, size_t nry, double level, struct pb_shift *out);

#endif
