/* replicates.c - run-level summaries and comparisons
 * (include/primbench/replicates.h; GSL does the arithmetic). */
#include "primbench/replicates.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/twosample.h"

size_t pb_replicate_medians(const double *x, size_t n, const size_t *rep_n, size_t n_rep,
                            double *med)
{
	double *s = malloc((n ? n : 1) * sizeof *s);
	if (!s) {
		pb_fail("out of memory");
		return 0;
	}
	size_t at = 0, out = 0;
	for (size_t r = 0; r < n_rep && at < n; r++) {
		size_t m = rep_n[r] < n - at ? rep_n[r] : n - at;
		if (m == 0)
			continue;
		memcpy(s, x + at, m * sizeof *s);
		gsl_sort(s, 1, m);
		med[out++] = gsl_stats_quantile_from_sorted_data(s, 1, m, 0.5);
		at += m;
	}
	free(s);
	return out;
}

/* mean and sample sd of v[0..n) (n >= 2), of their logs when `logs` */
static void mean_sd(const double *v, size_t n, bool logs, double *mean, double *sd)
{
	double *w = malloc(n * sizeof *w);
	if (!w) {
		*mean = *sd = NAN;
		return;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = logs ? log(v[i]) : v[i];
	*mean = gsl_stats_mean(w, 1, n);
	*sd = gsl_stats_sd_m(w, 1, n, *mean);
	free(w);
}

int pb_summarize_replicates(const double *x, size_t n, const size_t *rep_n, size_t n_rep,
                            double level, struct pb_summary *out)
{
	if (n == 0)
		return pb_fail("no samples");
	if (pb_summarize(x, n, level, out) != 0)
		return -1;
	if (!rep_n || n_rep < 2)
		return 0;
	double *med = malloc(n_rep * sizeof *med);
	if (!med)
		return pb_fail("out of memory");
	size_t r = pb_replicate_medians(x, n, rep_n, n_rep, med);
	if (r < 2) {
		free(med);
		return 0;
	}
	bool logs = true;
	for (size_t i = 0; i < r; i++)
		logs &= med[i] > 0;
	double m, sd;
	mean_sd(med, r, logs, &m, &sd);
	free(med);
	if (!isfinite(m))
		return pb_fail("out of memory");
	double t = gsl_cdf_tdist_Pinv((1 + level) / 2, (double)(r - 1));
	double hw = t * sd / sqrt((double)r);
	out->median = logs ? exp(m) : m;
	out->ci_lo = logs ? exp(m - hw) : m - hw;
	out->ci_hi = logs ? exp(m + hw) : m + hw;
	out->ci_valid = true;
	out->ci_level = level;
	out->replicates = r;
	return 0;
}

/* *out empty (NANs) at `level`; -1 with pb_error() for a bad level. */
static int ratio_start(struct pb_runs_ratio *out, double level)
{
	memset(out, 0, sizeof *out);
	if (!(level > 0 && level < 1))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	out->level = level;
	out->estimate = out->lo = out->hi = out->p = out->df = NAN;
	return 0;
}

int pb_runs_ratio(const double *a, size_t na, const double *b, size_t nb, double level,
                  struct pb_runs_ratio *out)
{
	if (ratio_start(out, level) != 0)
		return -1;
	if (na < 2 || nb < 2)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (!(a[i] > 0))
			return 0;
	for (size_t i = 0; i < nb; i++)
		if (!(b[i] > 0))
			return 0;
	double ma, sa, mb, sb;
	mean_sd(a, na, true, &ma, &sa);
	mean_sd(b, nb, true, &mb, &sb);
	if (!isfinite(ma) || !isfinite(mb))
		return pb_fail("out of memory");
	double va = sa * sa / (double)na, vb = sb * sb / (double)nb, d = mb - ma;
	double se = sqrt(va + vb);
	out->valid = true;
	out->sd_log_a = sa;
	out->sd_log_b = sb;
	out->estimate = exp(d);
	if (!(se > 0)) {
		/* both sides constant: no spread to test against */
		out->lo = out->hi = out->estimate;
		out->df = (double)(na + nb - 2);
		out->p = d == 0 ? 1 : 0;
		return 0;
	}
	double df =
	    (va + vb) * (va + vb) / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	double t = gsl_cdf_tdist_Pinv((1 + level) / 2, df);
	out->df = df;
	out->lo = exp(d - t * se);
	out->hi = exp(d + t * se);
	out->p = 2 * gsl_cdf_tdist_Q(fabs(d) / se, df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

int pb_paired_ratio(const double *a, const double *b, size_t n, double level,
                    struct pb_runs_ratio *out)
{
	if (ratio_start(out, level) != 0)
		return -1;
	if (n < 2)
		return 0;
	double *r = malloc(n * sizeof *r);
	if (!r)
		return pb_fail("out of memory");
	for (size_t i = 0; i < n; i++) {
		if (!(a[i] > 0) || !(b[i] > 0)) {
			free(r);
			return 0;
		}
		r[i] = b[i] / a[i];
	}
	double m, sd;
	mean_sd(r, n, true, &m, &sd);
	free(r);
	if (!isfinite(m))
		return pb_fail("out of memory");
	out->valid = true;
	out->sd_log_a = sd;
	out->estimate = exp(m);
	out->df = (double)(n - 1);
	double se = sd / sqrt((double)n);
	if (!(se > 0)) {
		out->lo = out->hi = out->estimate;
		out->p = m == 0 ? 1 : 0;
		return 0;
	}
	double t = gsl_cdf_tdist_Pinv((1 + level) / 2, out->df);
	out->lo = exp(m - t * se);
	out->hi = exp(m + t * se);
	out->p = 2 * gsl_cdf_tdist_Q(fabs(m) / se, out->df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

int pb_replicate_join(double **ticks, uint64_t **calls, size_t n, size_t **rep_n, size_t *n_rep,
                      const double *ot, const uint64_t *oc, size_t on)
{
	size_t *rs = realloc(*rep_n, (*n_rep + 1) * sizeof *rs);
	if (!rs)
		return pb_fail("out of memory");
	*rep_n = rs;
	if (on) {
		double *t = realloc(*ticks, (n + on) * sizeof *t);
		if (!t)
			return pb_fail("out of memory");
		*ticks = t;
		uint64_t *k = realloc(*calls, (n + on) * sizeof *k);
		if (!k)
			return pb_fail("out of memory");
		*calls = k;
		memcpy(t + n, ot, on * sizeof *t);
		memcpy(k + n, oc, on * sizeof *k);
	}
	rs[(*n_rep)++] = on;
	return 0;
}

uint64_t pb_replicate_seed(uint64_t seed, size_t rep)
{
	return seed + (uint64_t)rep * PB_SEED_STEP;
}

int pb_summarize_batch_replicates(const double *ticks, const uint64_t *calls, size_t n,
                                  const size_t *rep_n, size_t n_rep, double level,
                                  struct pb_summary *out)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v)
		return pb_fail("out of memory");
	for (size_t j = 0; j < n; j++)
		v[j] = ticks[j] / (double)calls[j];
	int rc = pb_summarize_replicates(v, n, rep_n, n_rep, level, out);
	free(v);
	return rc;
}

int pb_vs_fastest_ratio(const double *med, size_t k, size_t n, const double *y, double level,
                        struct pb_runs_ratio *out, size_t *chosen)
{
	memset(out, 0, sizeof *out);
	out->level = level;
	if (!(level > 0 && level < 1))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	if (k == 0 || n < 3)
		return 0;
	for (size_t i = 0; i < k * n; i++)
		if (!(med[i] > 0))
			return 0;
	double *sum = malloc(k * sizeof *sum), *a = malloc(n * sizeof *a);
	if (!sum || !a) {
		free(sum);
		free(a);
		return pb_fail("out of memory");
	}
	for (size_t c = 0; c < k; c++) {
		sum[c] = 0;
		for (size_t i = 0; i < n; i++)
			sum[c] += log(med[c * n + i]);
	}
	for (size_t i = 0; i < n; i++) {
		size_t best = 0;
		for (size_t c = 1; c < k; c++)
			if (sum[c] - log(med[c * n + i]) < sum[best] - log(med[best * n + i]))
				best = c;
		a[i] = med[best * n + i];
		if (chosen)
			chosen[i] = best;
	}
	int rc = pb_paired_ratio(a, y, n, level, out);
	free(sum);
	free(a);
	return rc;
}

int pb_contender_ratio(const double *x, size_t nx, const size_t *rx, size_t nrx, const double *y,
                       size_t ny, const size_t *ry, size_t nry, double level, struct pb_shift *out)
{
	memset(out, 0, sizeof *out);
	out->estimate = out->lo = out->hi = NAN;
	out->level = level;
	if (!(level > 0 && level < 1))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	if (rx && ry && nrx >= 2 && nrx == nry) {
		double *mx = malloc(nrx * sizeof *mx), *my = malloc(nry * sizeof *my);
		if (!mx || !my) {
			free(mx);
			free(my);
			return pb_fail("out of memory");
		}
		size_t kx = pb_replicate_medians(x, nx, rx, nrx, mx);
		size_t ky = pb_replicate_medians(y, ny, ry, nry, my);
		struct pb_runs_ratio pr = {0};
		int rc = kx >= 2 && kx == ky ? pb_paired_ratio(mx, my, kx, level, &pr) : 0;
		free(mx);
		free(my);
		if (rc != 0)
			return -1;
		if (pr.valid) {
			*out = (struct pb_shift){.estimate = pr.estimate,
			                         .lo = pr.lo,
			                         .hi = pr.hi,
			                         .level = level,
			                         .coverage = level,
			                         .ci_valid = true};
			return 0;
		}
	}
	if (nx == 0 || ny == 0)
		return 0;
	for (size_t i = 0; i < nx; i++)
		if (!(x[i] > 0))
			return 0;
	for (size_t i = 0; i < ny; i++)
		if (!(y[i] > 0))
			return 0;
	if (pb_hodges_lehmann_ratio(x, nx, y, ny, level, out) != 0)
		return -1;
	if (out->ci_valid && !(isfinite(out->lo) && isfinite(out->hi) && out->lo > 0))
		out->ci_valid = false;
	return 0;
}
