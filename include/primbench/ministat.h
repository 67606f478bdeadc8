/* primbench/ministat.h - ministat(1)'s arithmetic, kept digit for digit
 * (FreeBSD usr.bin/ministat/ministat.c; Debian's 20150715): what `primbench
 * stats` prints in ministat's table and verdict (src/cli/cmd_stats.c prints
 * it; docs/statistics.md, "primbench stats and ministat").
 *
 * ministat's quirks are kept on purpose:
 *   - the median is the upper middle value for an even count (ministat's
 *     points[n / 2]; pb_summarize averages the two middle values);
 *   - the t quantiles come from a table rounded to 3 decimals with rows
 *     for 1..100 degrees of freedom and the normal quantile beyond (the
 *     table is the exact quantile rounded, except six entries where
 *     ministat's table, observed by running it, differs in the last
 *     digit), and level 99.5 uses the 0.999 quantile (a 99.8% two-sided
 *     interval: ministat's column, conservative);
 *   - the mean is the sum in file order over n, and the % figures divide
 *     by the first set's mean.
 * The standard deviation is GSL's two-pass one (ministat's running sums of
 * x and x^2 lose digits when the spread is tiny next to the mean).
 */
#ifndef PRIMBENCH_MINISTAT_H
#define PRIMBENCH_MINISTAT_H

#include <stdbool.h>
#include <stddef.h>

/* ministat's confidence levels, in its -c order: 80, 90, 95, 98, 99, 99.5. */
#define PB_MINISTAT_NLEVELS 6
/* Level index i (< PB_MINISTAT_NLEVELS) as a percentage. */
double pb_ministat_level_pct(size_t level);
/* The index of the level `pct` (exactly one of the percentages), or -1. */
int pb_ministat_level_index(double pct);
/* ministat's t quantile for df degrees of freedom at level index `level`. */
double pb_ministat_t(double df, size_t level);

/* The vitals of one set, from its values in file order: v[0..n) is sorted
 * in place (n >= 1). */
struct pb_ministat_vitals {
	double sum;    /* in file order, as ministat: the same mean to the bit */
	double mean;   /* sum / n */
	double sd;     /* GSL's two-pass standard deviation around mean */
	double median; /* v[n / 2] of the sorted values */
};
void pb_ministat_vitals(double *v, size_t n, struct pb_ministat_vitals *out);

/* ministat's Relative(): set y against set x (values and their vitals),
 * Student's t with pooled variance at level index `level`, ministat's t
 * table. Returns 0, or -1 with pb_error() (nx or ny below 2, allocation). */
struct pb_ministat_relative {
	double diff;           /* mean_y - mean_x (the table's means) */
	double half_width;     /* t * pooled_sd * sqrt(1/nx + 1/ny) */
	double pct;            /* diff * 100 / mean_x */
	double pct_half_width; /* half_width * 100 / mean_x */
	double pooled_sd;
	bool significant; /* |diff| > half_width: "Difference at L% confidence" */
};
int pb_ministat_relative(const double *x, size_t nx, const struct pb_ministat_vitals *vx,
                         const double *y, size_t ny, const struct pb_ministat_vitals *vy,
                         size_t level, struct pb_ministat_relative *out);

#endif
