/* primbench/twosample.h - comparing two sets of samples: is B different
 * from A, by how much, and how sure are we (docs/statistics.md, "Comparing
 * two sets of samples").
 *
 * Conventions for every function below: x[0..nx) is the baseline ("A",
 * "old", ministat's first file), y[0..ny) the contender ("B", "new"). A
 * difference is y - x, a ratio y / x. Inputs are not modified. Every
 * function returns 0, or -1 with pb_error() when a size is below its stated
 * minimum, a value is not finite (or, for ratios, not > 0), the level is
 * not in (0, 1), or allocation fails.
 */
#ifndef PRIMBENCH_TWOSAMPLE_H
#define PRIMBENCH_TWOSAMPLE_H

#include <stdbool.h>
#include <stddef.h>

/* ministat's verdict: Student's t test with pooled variance (equal
 * variances assumed, as ministat does; FreeBSD ministat(1)), two-sided.
 * nx, ny >= 2. The t quantile is exact (gsl_cdf_tdist_Pinv) where ministat
 * uses a table rounded to 3 decimals (and 1.960 etc. beyond 100 degrees of
 * freedom): figures agree with ministat's to about 3 significant digits. */
struct pb_ttest {
	double level;          /* confidence level asked for, e.g. 0.95 */
	double mean_x, mean_y; /* arithmetic means */
	double diff;           /* mean_y - mean_x */
	double half_width;     /* t(df, (1+level)/2) * pooled_sd * sqrt(1/nx + 1/ny) */
	double pct;            /* 100 * diff / mean_x */
	double pct_half_width; /* 100 * half_width / mean_x */
	double pooled_sd;      /* sqrt(((nx-1) sx^2 + (ny-1) sy^2) / (nx+ny-2)) */
	double t_quantile;     /* the t value used */
	double df;             /* nx + ny - 2 */
	bool significant;      /* |diff| > half_width: "Difference at L% confidence" */
};
int pb_ttest_pooled(const double *x, size_t nx, const double *y, size_t ny, double level,
                    struct pb_ttest *out);

/* Mann-Whitney U test (Wilcoxon rank-sum), two-sided. nx, ny >= 1.
 * u_x = #(x_i > y_j) + 0.5 #(x_i == y_j). p = 2 min(P(U <= u_x),
 * P(U >= u_x)), at most 1, from:
 *   - without ties, nx, ny <= 50: the exact permutation distribution of U;
 *   - with ties, nx + ny <= 60: the exact permutation distribution of U
 *     conditional on the observed values (every split of them into nx and
 *     ny equally likely; the tie pattern is kept), so p is never below
 *     2 / C(nx + ny, nx), the smallest any split can give;
 *   - otherwise the normal approximation with tie-corrected variance and
 *     continuity correction (Conover, Practical Nonparametric Statistics,
 *     3rd ed., 5.1; SciPy's mannwhitneyu(method="auto") differs only in
 *     where it switches to the approximation). */
struct pb_utest {
	double u_x; /* U statistic of x, in [0, nx * ny] */
	double z;   /* normal score of u_x (with continuity correction); 0 when exact */
	double p;   /* two-sided p-value, in (0, 1] */
	bool exact; /* p from the exact distribution */
};
int pb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, struct pb_utest *out);

/* Hodges-Lehmann estimate of the shift y - x (the median of the nx * ny
 * pairwise differences y_j - x_i) with its distribution-free confidence
 * interval: the k-th smallest and k-th largest pairwise difference, k the
 * largest with coverage 1 - 2 P(U <= k-1) >= level, P from the null
 * distribution of U for continuous data: exact when nx, ny <= 50 (ties or
 * not: with ties the closed interval only covers more; the conditional
 * distribution pb_mann_whitney uses with ties belongs to the tie pattern
 * at shift 0, the interval to every shift, docs/statistics.md), else the normal
 * approximation with continuity correction (Hollander & Wolfe,
 * Nonparametric Statistical Methods, 2nd ed., 4.3; Bauer, JASA 67, 1972).
 * nx, ny >= 1. ci_valid is false when no such interval exists (too few
 * samples for the level); lo, hi and coverage are then NaN. Cost:
 * O(nx * ny) memory and time (order statistics by selection, not a full
 * sort; about 0.1 s for 2000 x 2000); over 2^28 pairs is refused. */
struct pb_shift {
	double estimate;
	double lo, hi;
	double level;    /* asked for */
	double coverage; /* achieved (>= level when ci_valid) */
	bool ci_valid;
};
int pb_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double level,
                      struct pb_shift *out);

/* m evenly spaced order statistics of sorted[0..n): out[i] =
 * sorted[round(i (n - 1) / (m - 1))], the minimum and the maximum among
 * them; 2 <= m <= n. How `compare` and `stats` reduce a large sample
 * before pb_hodges_lehmann() (its cost is nx * ny): the estimate moves
 * little, the interval is that of m values, so wider (conservative). */
void pb_order_statistics(const double *sorted, size_t n, double *out, size_t m);

/* The same on log values, exponentiated: the ratio y / x and its interval
 * (a scale model: B's distribution is A's times a factor). Values > 0. */
int pb_hodges_lehmann_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                            struct pb_shift *out);

/* Other estimators of the ratio y / x with an interval, compared on this
 * machine's recorded runs in docs/statistics.md ("Choosing the
 * estimator"); each fills a struct pb_shift like pb_hodges_lehmann_ratio.
 * Values > 0.
 *
 * Yuen's trimmed means on log values (Yuen, Biometrika 61, 1974): the
 * difference of the two gamma-trimmed means (g = floor(gamma n) values off
 * each end), its standard error from the winsorized variances, and the
 * interval from Welch's t with Yuen's degrees of freedom. 0 <= gamma <
 * 0.5; each side needs n - 2g >= 2. coverage is the level asked for (the
 * interval is approximate). */
int pb_trimmed_ratio(const double *x, size_t nx, const double *y, size_t ny, double gamma,
                     double level, struct pb_shift *out);

/* The minimum of every block of `block` consecutive values (the seeds'
 * "minimum of 10 runs"), then pb_hodges_lehmann_ratio on the minima: block
 * minima are independent when runs are, so the interval stays
 * distribution-free; a partial last block is left out. block >= 1; each
 * side needs at least one whole block. */
int pb_block_min_ratio(const double *x, size_t nx, const double *y, size_t ny, size_t block,
                       double level, struct pb_shift *out);

/* Mode-aware: when the pooled log values split into two well separated
 * clusters (the 2-means split of the sorted pooled values, taken when
 * Ashman's D = sqrt(2) |m1 - m2| / sqrt(s1^2 + s2^2) > 2 and each cluster
 * holds at least 10% of each side's values: a clean shift of one mode
 * splits A from B, and is not two modes), pb_hodges_lehmann_ratio on the
 * values of the fast (low) cluster of each side; otherwise on all. The
 * split depends only on the pooled values, so with identical
 * distributions the low values of each side are still a random split of
 * the low values, and the interval keeps its level. *split, when not
 * NULL, is set to whether the values were split. */
int pb_low_mode_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                      struct pb_shift *out, bool *split);

/* One name for each estimator (bench/estimators.c compares them). */
enum pb_estimator {
	PB_EST_HL,        /* pb_hodges_lehmann_ratio */
	PB_EST_TRIMMED,   /* pb_trimmed_ratio, gamma = param */
	PB_EST_BLOCK_MIN, /* pb_block_min_ratio, block = param */
	PB_EST_LOW_MODE,  /* pb_low_mode_ratio */
	/* pb_block_min_ratio, block = param, while the minima are enough for
	 * an interval at the level asked for; before that (the first looks of
	 * --until-verdict) pb_hodges_lehmann_ratio on every value. Each look
	 * is a valid test at its level either way, so the plan's union bound
	 * holds. */
	PB_EST_BLOCK_MIN_OR_ALL,
};
int pb_ratio_estimate(enum pb_estimator e, double param, const double *x, size_t nx,
                      const double *y, size_t ny, double level, struct pb_shift *out);

/* The ratio each look of `cmd --until-verdict` tests: the minima of blocks
 * of PB_SEQ_BLOCK consecutive runs per side, or every run while they are
 * too few (PB_EST_BLOCK_MIN_OR_ALL), chosen on this machine's recorded
 * runs (docs/statistics.md, "Choosing the estimator"). x and y in the
 * order the runs were made. PB_SEQ_METHOD names it in cmd's JSON. */
#define PB_SEQ_BLOCK  3
#define PB_SEQ_METHOD "min-of-3-runs-hodges-lehmann-log"
int pb_seq_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                 struct pb_shift *out);

/* Sequential testing for `cmd --until-verdict`: Bonferroni over a fixed
 * schedule of looks (the union bound: with K looks each tested at alpha/K,
 * P(any false verdict) <= alpha whatever the dependence between looks;
 * e.g. Jennison & Turnbull, Group Sequential Methods with Applications to
 * Clinical Trials, 2000, 1.3). The schedule is fixed before the first run:
 * looks at n = first, then growing by ~1.5x (rounded up; a last step
 * under 1.25x is merged into the one before), the last at max_n runs per
 * side. `first` is the smallest n per side at which an interval at level
 * 1 - alpha/K exists (4 at 95%: 1 - 2/C(8,4) = 97.1%). K moves `first` and
 * `first` moves K: the plan takes the smallest K whose schedule has at
 * most K looks, and tests each at 1 - alpha/(its number of looks); e.g.
 * max_n 60, alpha 0.05: 6 9 14 21 32 48 60 at 99.29%. Stopping early for
 * a budget only removes looks, so the bound still holds. */
#define PB_SEQ_MAX_LOOKS 32
struct pb_seq_plan {
	double alpha;                    /* overall error rate, e.g. 0.05 */
	size_t nlooks;                   /* K */
	size_t look_n[PB_SEQ_MAX_LOOKS]; /* runs per side at each look, ascending */
	double level_per_look;           /* 1 - alpha / K */
};
/* max_n >= 2. Returns -1 with pb_error() when no look can reach its level
 * with max_n runs per side ("--max-runs N is too few for ..."). */
int pb_seq_plan_make(size_t max_n, double alpha, struct pb_seq_plan *out);

/* The same plan with another first look: first_n(level) is the smallest
 * sample (runs or pairs per side) whose interval reaches `level`, 0 when
 * none does. pb_seq_plan_make passes the Hodges-Lehmann two-sample one. */
int pb_seq_plan_make_with(size_t max_n, double alpha, size_t (*first_n)(double level),
                          struct pb_seq_plan *out);

/* ---- Paired runs (src/stats/paired.c) ----
 *
 * The ratio y / x of n pairs (x[i], y[i]) measured together: the adjacent
 * A and B runs of an ABBA block, or the two sides of a duet pair (docs/
 * statistics.md, "Paired ratios and duet runs"). Drift slower than a pair
 * cancels in each pair's ratio. The estimate is the median of the Walsh
 * averages of d_i = log(y_i / x_i), exponentiated (the one-sample
 * Hodges-Lehmann estimator), and the interval [W(k), W(M+1-k)] of the
 * sorted Walsh averages, k the largest with 1 - 2 P(T+ <= k-1) >= level,
 * T+ Wilcoxon's signed-rank statistic: exact while n <= 300, else its
 * normal approximation with continuity correction (Hodges & Lehmann, Ann.
 * Math. Statist. 34, 1963; Hollander & Wolfe, Nonparametric Statistical
 * Methods, 2nd ed., 1999, 3.1-3.3). It assumes the d_i independent and
 * symmetric about their centre. Values > 0; 1 <= n <= 2800. ci_valid is
 * false when n is too small for the level (fewer than 6 pairs at 95%).
 * Returns 0, or -1 with pb_error() (a value not above 0, n out of range,
 * out of memory). */
int pb_paired_hl_ratio(const double *x, const double *y, size_t n, double level,
                       struct pb_shift *out);
/* The fewest pairs whose interval reaches `level` (6 at 95%), 0 when above
 * 300 pairs. */
size_t pb_paired_hl_min_pairs(double level);
/* pb_seq_plan_make for looks on pb_paired_hl_ratio: n counts pairs. */
int pb_seq_plan_make_paired(size_t max_n, double alpha, struct pb_seq_plan *out);
#define PB_SEQ_PAIRED_METHOD "paired-walsh-hodges-lehmann-log"

/* The one verdict rule of primbench: `cmd` (its A/B verdict line and
 * every look of --until-verdict), `compare` (a row's delta, or "~"), the
 * default run's summary (libc ahead, behind, within the margin) and
 * tune's winner decide with pb_verdict(), all with one margin.
 *
 * PB_EQUIVALENCE: the margin's default, a fraction (cmd and compare:
 * --equivalence P%). A change inside it does not matter. Why 1%: two
 * identical processes on this project's KVM guests differ by a median
 * 1.2-1.75% case by case, and the replicate-level intervals of a default
 * run are +-1-3% wide (docs/statistics.md, "What varies between runs"), so
 * 1% is about the smallest change one run can call equivalent. A margin
 * much wider would also hide the 2-3% effects people patch for. */
#define PB_EQUIVALENCE 0.01
/* The margin every verdict of this process uses where no command gives
 * its own: PB_EQUIVALENCE until pb_equivalence_set (a command's
 * --equivalence: mem, the default run, tune; cmd and compare keep theirs
 * in their parameters and start from it). The tables' `=`, the summary,
 * break-even's peers and crossings, tune's rules and the glibc checks read
 * it, and a result file records it ("equivalence"), so that `report`
 * judges a saved run with the margin it was run with. Set it before any
 * measuring thread starts; it is read, never written, after that. */
double pb_equivalence(void);
/* m a fraction in [0, 0.5); returns 0, or -1 with pb_error() otherwise. */
int pb_equivalence_set(double m);
enum pb_verdict {
	PB_VERDICT_NONE,       /* neither of the two below: "cannot tell" */
	PB_VERDICT_DIFFERENT,  /* the interval excludes null and the estimate lies beyond
	                          the margin (y above x when lo > null) */
	PB_VERDICT_EQUIVALENT, /* the interval lies inside [null - margin, null + margin] */
};
struct pb_verdict_rule {
	double null;   /* no difference: 1 for a ratio y / x, 0 for a shift y - x */
	double margin; /* for EQUIVALENT, e.g. 0.01 for --equivalence 1%; 0: never */
	/* when set, DIFFERENT also needs the rank-sum test of the same values
	 * to reject: u->p < 1 - level of the interval. The interval is that
	 * test inverted, so they agree except at the edge (and with ties, whose
	 * p is conditional on the tie pattern), where requiring both is the
	 * conservative choice. NULL: the interval alone (the looks of
	 * --until-verdict, whose interval is of block minima at the look's
	 * level, not the inversion of a test on every run). */
	const struct pb_utest *u;
};
/* The verdict for an interval s of y against x. No interval (ci_valid
 * false) is NONE. An interval inside the margin is EQUIVALENT even when it
 * excludes null (a difference, but smaller than the margin that was
 * declared not to matter); one that excludes null with its estimate inside
 * the margin but its ends beyond it is NONE (there is a difference, but
 * whether it matters cannot be told). Margin 0: DIFFERENT whenever the
 * interval excludes null. */
enum pb_verdict pb_verdict(const struct pb_shift *s, const struct pb_verdict_rule *rule);
/* pb_verdict for a ratio interval with a margin and the interval alone:
 * the rule of a look of --until-verdict (pb_seq_ratio at the plan's
 * level_per_look). */
enum pb_verdict pb_verdict_of(const struct pb_shift *ratio, double margin);
const char *pb_verdict_name(enum pb_verdict v); /* "none", "different", "equivalent" */

#endif
