/* cmd_layout.c - environment padding and the layout audit of `primbench
 * cmd` (include/primbench/cmd_layout.h). */
#define _GNU_SOURCE
#include "primbench/cmd_layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "primbench/harness.h"
#include "primbench/session.h"

/* SplitMix64's output function of a state z (pb_splitmix64 on a copy). */
static uint64_t splitmix64(uint64_t z)
{
	return pb_splitmix64(&z);
}

/* The draw number i of stream `stream` from seed: independent of order. */
static uint64_t draw(uint64_t seed, uint64_t stream, uint64_t i)
{
	return splitmix64(splitmix64(seed ^ (stream * 0xD1B54A32D192ED03ull)) + i);
}

int pb_layout_audit_index(long pad_bytes)
{
	for (unsigned k = 0; k < PB_LAYOUT_AUDIT_SIZES; k++)
		if (pb_layout_audit_size(k) == pad_bytes)
			return (int)k;
	return -1;
}

/* The size index of counted run j of an audit: round j / K, its order a
 * Fisher-Yates shuffle seeded by (seed, round). */
static unsigned audit_index(uint64_t seed, size_t j)
{
	unsigned order[PB_LAYOUT_AUDIT_SIZES];
	for (unsigned k = 0; k < PB_LAYOUT_AUDIT_SIZES; k++)
		order[k] = k;
	size_t round = j / PB_LAYOUT_AUDIT_SIZES;
	for (unsigned i = PB_LAYOUT_AUDIT_SIZES; i > 1; i--) {
		unsigned r = (unsigned)(draw(seed, 2 + round, i) % i), t = order[i - 1];
		order[i - 1] = order[r];
		order[r] = t;
	}
	return order[j % PB_LAYOUT_AUDIT_SIZES];
}

long pb_layout_pad_of(const struct pb_layout_plan *pl, size_t position)
{
	if (!pl || pl->mode == PB_LAYOUT_NONE)
		return -1;
	if (pl->mode == PB_LAYOUT_RANDOM)
		return (long)(draw(pl->seed, 1, position) % (PB_LAYOUT_PAD_MAX_BYTES + 1));
	size_t j = position < pl->warmup ? position : position - pl->warmup;
	return pb_layout_audit_size(audit_index(pl->seed, j));
}

char *pb_layout_pad_entry(size_t bytes)
{
	size_t pre = strlen(PB_LAYOUT_PAD_NAME "=");
	char *e = malloc(pre + bytes + 1);
	if (!e)
		return NULL;
	memcpy(e, PB_LAYOUT_PAD_NAME "=", pre);
	memset(e + pre, 'x', bytes);
	e[pre + bytes] = 0;
	return e;
}

uint64_t pb_layout_default_seed(void)
{
	/* 32 bits, so that every JSON reader keeps it exact */
	return pb_session_make_seed(0) & UINT32_MAX;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n), n >= 1 (v is sorted in place). */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct ranked {
	double v;
	unsigned g;
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->v, &((const struct ranked *)b)->v);
}

/* Kruskal-Wallis H with the ties' correction, into a. */
static int kruskal_wallis(const double *v, const unsigned *group, size_t n, unsigned k,
                          struct pb_layout_audit *a)
{
	struct ranked *r = malloc(n * sizeof *r);
	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){v[i], group[i]};
	qsort(r, n, sizeof *r, cmp_ranked);
	double rank_sum[PB_LAYOUT_AUDIT_SIZES] = {0}, ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && r[j].v == r[i].v)
			j++;
		double mid = 0.5 * (double)(i + 1 + j); /* mean of ranks i+1..j */
		for (size_t t = i; t < j; t++)
			rank_sum[r[t].g] += mid;
		double t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	free(r);
	double N = (double)n, h = 0;
	for (unsigned g = 0; g < k; g++)
		h += rank_sum[g] * rank_sum[g] / (double)a->n[g];
	h = 12.0 / (N * (N + 1)) * h - 3 * (N + 1);
	double corr = 1 - ties / (N * N * N - N);
	a->kw_h = corr > 0 ? h / corr : 0;
	a->kw_p = corr > 0 ? gsl_cdf_chisq_Q(a->kw_h, (double)(k - 1)) : 1;
	return 0;
}

/* One-way ANOVA on the logarithms, into a. */
static void anova_log(const double *v, const unsigned *group, size_t n, unsigned k,
                      struct pb_layout_audit *a)
{
	double sum[PB_LAYOUT_AUDIT_SIZES] = {0}, total = 0;
	for (size_t i = 0; i < n; i++) {
		sum[group[i]] += log(v[i]);
		total += log(v[i]);
	}
	double grand = total / (double)n, ssb = 0, ssw = 0;
	for (unsigned g = 0; g < k; g++) {
		double m = sum[g] / (double)a->n[g];
		ssb += (double)a->n[g] * (m - grand) * (m - grand);
	}
	for (size_t i = 0; i < n; i++) {
		double d = log(v[i]) - sum[group[i]] / (double)a->n[group[i]];
		ssw += d * d;
	}
	double df1 = (double)(k - 1), df2 = (double)(n - k);
	a->between_share = ssb + ssw > 0 ? ssb / (ssb + ssw) : 0;
	if (ssw > 0) {
		a->anova_f = (ssb / df1) / (ssw / df2);
		a->anova_p = gsl_cdf_fdist_Q(a->anova_f, df1, df2);
	} else {
		a->anova_f = ssb > 0 ? INFINITY : 0;
		a->anova_p = ssb > 0 ? 0 : 1;
	}
}

int pb_layout_audit_stats(const double *v, const unsigned *group, size_t n, unsigned k,
                          struct pb_layout_audit *out)
{
	memset(out, 0, sizeof *out);
	out->k = k;
	if (k < 2 || k > PB_LAYOUT_AUDIT_SIZES || n <= k)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (group[i] >= k || !(v[i] > 0))
			return 0;
		out->n[group[i]]++;
	}
	double *buf = malloc(n * sizeof *buf);
	if (!buf)
		return -1;
	double lo = INFINITY, hi = 0;
	for (unsigned g = 0; g < k; g++) {
		if (out->n[g] == 0) {
			free(buf);
			return 0;
		}
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				buf[m++] = v[i];
		out->median[g] = median_of(buf, m);
		lo = fmin(lo, out->median[g]);
		hi = fmax(hi, out->median[g]);
	}
	free(buf);
	out->spread = hi / lo - 1;
	if (kruskal_wallis(v, group, n, k, out) != 0)
		return -1;
	anova_log(v, group, n, k, out);
	out->valid = true;
	return 0;
}
