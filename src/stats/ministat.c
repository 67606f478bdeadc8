/* ministat.c - ministat(1)'s arithmetic (include/primbench/ministat.h). */
#include "primbench/ministat.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>

#include "primbench/twosample.h"

#define T_TABLE_MAX 100 /* degrees of freedom with their own row */

/* ministat's confidence levels and the t quantile its column holds. */
static const struct {
	double pct, quantile;
} levels[PB_MINISTAT_NLEVELS] = {{80, 0.90}, {90, 0.95},  {95, 0.975},
                                 {98, 0.99}, {99, 0.995}, {99.5, 0.999}};

/* The entries where ministat's t table is not the exact quantile rounded
 * to 3 decimals (all in its 99.5 column), found by running ministat on
 * data whose pooled standard error is 1. */
static const struct {
	int df;
	double t;
} t_table_exceptions[] = {{7, 4.782},  {8, 4.499},  {9, 4.296},
                          {10, 4.143}, {11, 4.024}, {12, 3.929}};

double pb_ministat_level_pct(size_t level)
{
	return levels[level].pct;
}

int pb_ministat_level_index(double pct)
{
	for (int i = 0; i < PB_MINISTAT_NLEVELS; i++)
		if (pct == levels[i].pct)
			return i;
	return -1;
}

double pb_ministat_t(double df, size_t level)
{
	if (level == PB_MINISTAT_NLEVELS - 1)
		for (size_t i = 0; i < sizeof t_table_exceptions / sizeof t_table_exceptions[0];
		     i++)
			if (df == t_table_exceptions[i].df)
				return t_table_exceptions[i].t;
	double q = levels[level].quantile;
	double t = df > T_TABLE_MAX ? gsl_cdf_ugaussian_Pinv(q) : gsl_cdf_tdist_Pinv(q, df);
	return round(t * 1000) / 1000;
}

void pb_ministat_vitals(double *v, size_t n, struct pb_ministat_vitals *out)
{
	out->sum = 0;
	for (size_t i = 0; i < n; i++)
		out->sum += v[i];
	gsl_sort(v, 1, n);
	out->mean = out->sum / (double)n;
	out->sd = gsl_stats_sd_m(v, 1, n, out->mean);
	out->median = v[n / 2];
}

int pb_ministat_relative(const double *x, size_t nx, const struct pb_ministat_vitals *vx,
                         const double *y, size_t ny, const struct pb_ministat_vitals *vy,
                         size_t level, struct pb_ministat_relative *out)
{
	struct pb_ttest t;
	if (pb_ttest_pooled(x, nx, y, ny, levels[level].pct / 100, &t) != 0)
		return -1;
	out->pooled_sd = t.pooled_sd;
	out->half_width =
	    pb_ministat_t(t.df, level) * t.pooled_sd * sqrt(1.0 / (double)nx + 1.0 / (double)ny);
	out->diff = vy->mean - vx->mean;
	out->pct = out->diff * 100 / vx->mean;
	out->pct_half_width = out->half_width * 100 / vx->mean;
	out->significant = fabs(out->diff) > out->half_width;
	return 0;
}
