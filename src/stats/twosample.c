/* twosample.c - comparing two sets of samples (include/primbench/twosample.h,
 * docs/statistics.md "Comparing two sets of samples").
 *
 * The null distribution of the Mann-Whitney statistic. Without ties, under
 * H0 every split of the ranks 1..m+n into m for x and n for y is equally
 * likely, and the number of splits with U = u is the coefficient of q^u in
 * the Gaussian binomial coefficient
 *
 *     [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)
 *
 * (the generating function of Mann and Whitney's 1947 recursion
 * f(m,n,u) = f(m-1,n,u-n) + f(m,n-1,u); Gaussian polynomials: Andrews,
 * The Theory of Partitions, 1976, ch. 3). Multiplying the factors in one at a time gives exact
 * integer counts in O(m * u) additions: dividing by (1 - q^i) is a running
 * sum with stride i, multiplying by (1 - q^(n+i)) a subtraction that
 * always leaves the next Gaussian binomial's nonnegative coefficients.
 * With m, n <= 50 every count is below C(100, 50) ~ 1.01e29, exact in an
 * unsigned __int128 (GCC/Clang extension; this is gnu11).
 *
 * With ties, H0 makes every split of the observed values into nx for x
 * and ny for y equally likely (the permutation distribution conditional
 * on the values: Lehmann, Nonparametrics, 1975, ch. 1, on ties). The rank
 * sum of x is then the sum of the midranks of a random subset of size nx;
 * doubled, a midrank is the integer 2i + t + 1 (a group of t equal values
 * from 0-based position i), and the number of subsets of each size with
 * each doubled sum is a subset-sum count, group by group: a group of t
 * values of doubled rank w contributes c of them, C(t, c) ways, adding
 * c w (exact_tied_p). While nx + ny <= EXACT_TIED_MAX_N every count is below
 * C(60, 30) ~ 1.2e17, exact in 64 bits.
 *
 * The same counts give the Hodges-Lehmann interval: with D(1) <= ... <=
 * D(mn) the sorted differences y_j - x_i and the true shift d, the number
 * of differences below d has U's null distribution, so
 * P(d < D(k)) = P(U <= k-1) and [D(k), D(mn+1-k)] covers d with
 * probability 1 - 2 P(U <= k-1) (Hollander & Wolfe, Nonparametric
 * Statistical Methods, 2nd ed., 1999, 4.3). The narrowest interval with
 * coverage >= level is reported, as for the median (stats.c).
 */
#include "primbench/twosample.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/text.h"

/* The exact distribution is used while both sizes are at most this. */
#define EXACT_MAX_N 50
/* With ties, the exact conditional distribution while nx + ny is at most
 * this: (min(nx, ny) + 1) x (N (N + 1) + 1) counts of 8 bytes (0.9 MB),
 * about N min(nx, ny) N (N + 1) / 2 additions (a few ms). */
#define EXACT_TIED_MAX_N 60

/* A coverage computed as 1 - 2P may land an ulp under a level it meets
 * exactly; this much slack accepts it (as in stats.c). */
#define COVERAGE_SLACK 1e-12

/* More pairwise differences than this (2 GiB of doubles) is refused. */
#define MAX_PAIRS ((size_t)1 << 28)

typedef unsigned __int128 u128;

/* ---- input checks ---- */

static int check_sample(const char *name, const double *v, size_t n, size_t min_n, bool positive)
{
	if (n < min_n)
		return pb_fail("%s has %zu sample%s; needs at least %zu", name, n,
		               n == 1 ? "" : "s", min_n);
	if (!v)
		return pb_fail("%s is NULL", name);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return pb_fail("%s[%zu] is not finite ('%g')", name, i, v[i]);
		if (positive && !(v[i] > 0))
			return pb_fail(
			    "%s[%zu] = %g is not above 0 (a ratio needs positive values)", name, i,
			    v[i]);
	}
	return 0;
}

static int check_level(double level)
{
	if (!(level > 0.0 && level < 1.0))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	return 0;
}

/* ---- Student's t, pooled ---- */

int pb_ttest_pooled(const double *x, size_t nx, const double *y, size_t ny, double level,
                    struct pb_ttest *out)
{
	if (check_level(level) || check_sample("x", x, nx, 2, false) ||
	    check_sample("y", y, ny, 2, false))
		return -1;
	double vx = gsl_stats_variance(x, 1, nx), vy = gsl_stats_variance(y, 1, ny);
	double df = (double)(nx + ny - 2);
	memset(out, 0, sizeof *out);
	out->level = level;
	out->mean_x = gsl_stats_mean(x, 1, nx);
	out->mean_y = gsl_stats_mean(y, 1, ny);
	out->diff = out->mean_y - out->mean_x;
	out->df = df;
	out->pooled_sd = sqrt(((double)(nx - 1) * vx + (double)(ny - 1) * vy) / df);
	out->t_quantile = gsl_cdf_tdist_Pinv((1.0 + level) / 2.0, df);
	out->half_width =
	    out->t_quantile * out->pooled_sd * sqrt(1.0 / (double)nx + 1.0 / (double)ny);
	out->pct = 100.0 * out->diff / out->mean_x;
	out->pct_half_width = 100.0 * out->half_width / out->mean_x;
	out->significant = fabs(out->diff) > out->half_width;
	return 0;
}

/* ---- the exact null distribution of U (no ties) ---- */

/* C(m + n, m), exact for m + n <= 2 * EXACT_MAX_N. */
static u128 binomial(size_t m, size_t n)
{
	u128 c = 1;
	for (size_t k = 1; k <= m; k++)
		c = c * (u128)(n + k) / (u128)k; /* exact: c * (n+k) = C(n+k, k) * k */
	return c;
}

/* cdf[u] = P(U <= u) for u = 0..umax, sizes m and n (both <= EXACT_MAX_N,
 * umax <= m * n), in a new array of umax + 1 the caller frees. NULL with
 * pb_error() when out of memory. */
static double *exact_cdf(size_t m, size_t n, size_t umax)
{
	double *cdf = malloc((umax + 1) * sizeof *cdf);
	if (!cdf) {
		pb_fail("out of memory for the distribution of U");
		return NULL;
	}
	u128 *c = calloc(umax + 1, sizeof *c);
	if (!c) {
		pb_fail("out of memory for the distribution of U (%zu x %zu)", m, n);
		free(cdf);
		return NULL;
	}
	if (m > n) { /* the product over the smaller size is cheaper */
		size_t t = m;
		m = n;
		n = t;
	}
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = i; k <= umax; k++) /* / (1 - q^i) */
			c[k] += c[k - i];
		for (size_t k = umax; k >= n + i; k--) /* * (1 - q^(n+i)) */
			c[k] -= c[k - n - i];
	}
	long double total = (long double)binomial(m, n), sum = 0;
	for (size_t u = 0; u <= umax; u++) {
		sum += (long double)c[u];
		cdf[u] = (double)(sum / total);
	}
	free(c);
	return cdf;
}

/* ---- the exact conditional distribution with ties ---- */

/* C(n, k) for n <= EXACT_TIED_MAX_N (below 2^57). */
static uint64_t binomial64(size_t n, size_t k)
{
	uint64_t c = 1;
	for (size_t i = 1; i <= k; i++)
		c = c * (uint64_t)(n - k + i) / (uint64_t)i; /* exact: C(n-k+i, i) * i */
	return c;
}

/* The two-sided p of a rank sum among N = nx + ny <= EXACT_TIED_MAX_N
 * values in `ngroups` groups of equal values: tsize[g] values sharing the
 * doubled midrank w2[g]. The subsets of size k (either sample's size) are
 * counted by doubled rank sum; `obs` is that sample's observed doubled
 * rank sum. p = 2 min(P(W <= obs), P(W >= obs)), at most 1 (the same for
 * either sample: the other's sum is N (N + 1) - obs). */
static int exact_tied_p(const size_t *tsize, const size_t *w2, size_t ngroups, size_t N, size_t k,
                        size_t obs, double *p)
{
	size_t smax = N * (N + 1); /* all doubled ranks together */
	uint64_t *cnt = calloc((k + 1) * (smax + 1), sizeof *cnt);
	size_t *hi = calloc(k + 1, sizeof *hi); /* the largest sum reached per size */
	if (!cnt || !hi) {
		free(cnt);
		free(hi);
		return pb_fail("out of memory for the distribution of U (%zu values)", N);
	}
#define CNT(j, s) cnt[(j) * (smax + 1) + (s)]
	CNT(0, 0) = 1;
	size_t seen = 0; /* values in the groups so far: row j is empty past it */
	for (size_t g = 0; g < ngroups; g++) {
		size_t t = tsize[g], w = w2[g];
		seen += t;
		/* Rows in descending order: row j - c is still the old one. */
		for (size_t j = seen < k ? seen : k; j >= 1; j--) {
			for (size_t c = 1; c <= t && c <= j; c++) {
				if (j - c > seen - t)
					continue; /* no subset of that size before this group */
				uint64_t ways = binomial64(t, c);
				size_t add = c * w;
				for (size_t s = 0; s <= hi[j - c]; s++)
					if (CNT(j - c, s))
						CNT(j, s + add) += CNT(j - c, s) * ways;
				if (hi[j - c] + add > hi[j])
					hi[j] = hi[j - c] + add;
			}
		}
	}
	uint64_t below = 0, above = 0, total = 0;
	for (size_t s = 0; s <= hi[k]; s++) {
		total += CNT(k, s);
		if (s <= obs)
			below += CNT(k, s);
		if (s >= obs)
			above += CNT(k, s);
	}
#undef CNT
	free(cnt);
	free(hi);
	uint64_t tail = below < above ? below : above;
	*p = fmin(1.0, (double)(2.0L * (long double)tail / (long double)total));
	return 0;
}

/* ---- the rank k of the Hodges-Lehmann interval ---- */

/* A few ranks are remembered per thread: the sequential plan and its
 * looks ask for the same sizes and level over and over. */
struct ci_rank {
	size_t m, n;
	double level;
	size_t k;
	double coverage;
};

static _Thread_local struct ci_rank rank_cache[8];
static _Thread_local unsigned rank_cache_next;

/* The largest k in 1..(mn+1)/2 whose interval [D(k), D(mn+1-k)] has
 * coverage >= level, with the coverage in *coverage; 0 when none. Exact
 * while both sizes are at most EXACT_MAX_N (ties do not matter: the
 * distribution is that of continuous data, and with ties the closed
 * interval covers at least as often). */
static int hl_rank(size_t m, size_t n, double level, size_t *k_out, double *coverage)
{
	if (m > n) {
		size_t t = m;
		m = n;
		n = t;
	}
	for (size_t i = 0; i < sizeof rank_cache / sizeof rank_cache[0]; i++) {
		const struct ci_rank *r = &rank_cache[i];
		if (r->m == m && r->n == n && r->level == level) {
			*k_out = r->k;
			*coverage = r->coverage;
			return 0;
		}
	}
	double mn = (double)m * (double)n;
	size_t kmax = (size_t)((mn + 1) / 2);
	size_t k = 0;
	double cov = NAN;
	if (n <= EXACT_MAX_N) {
		/* coverage(k) = 1 - 2 F(k-1) falls with k. */
		double *cdf = exact_cdf(m, n, kmax);
		if (!cdf)
			return -1;
		while (k < kmax && 1.0 - 2.0 * cdf[k] >= level - COVERAGE_SLACK)
			k++;
		if (k > 0)
			cov = 1.0 - 2.0 * cdf[k - 1];
		free(cdf);
	} else {
		/* Normal approximation with continuity correction:
		 * F(k-1) ~ Phi((k - 1/2 - mn/2) / sigma), sigma^2 = mn(m+n+1)/12. */
		double sigma = sqrt(mn * (double)(m + n + 1) / 12.0);
		double z = gsl_cdf_ugaussian_Pinv((1.0 + level) / 2.0);
		double kk = floor(mn / 2.0 + 0.5 - z * sigma);
		if (kk >= 1) {
			k = kk > (double)kmax ? kmax : (size_t)kk;
			cov = 1.0 - 2.0 * gsl_cdf_ugaussian_P(((double)k - 0.5 - mn / 2.0) / sigma);
		}
	}
	struct ci_rank *r = &rank_cache[rank_cache_next++ % 8];
	*r = (struct ci_rank){.m = m, .n = n, .level = level, .k = k, .coverage = cov};
	*k_out = k;
	*coverage = cov;
	return 0;
}

/* ---- Mann-Whitney U ---- */

struct labelled {
	double v;
	int from_x;
};

static int cmp_labelled(const void *a, const void *b)
{
	double x = ((const struct labelled *)a)->v, y = ((const struct labelled *)b)->v;
	return (x > y) - (x < y);
}

int pb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, struct pb_utest *out)
{
	if (check_sample("x", x, nx, 1, false) || check_sample("y", y, ny, 1, false))
		return -1;
	size_t n = nx + ny;
	struct labelled *all = malloc(n * sizeof *all);
	if (!all)
		return pb_fail("out of memory ranking %zu samples", n);
	for (size_t i = 0; i < nx; i++)
		all[i] = (struct labelled){x[i], 1};
	for (size_t j = 0; j < ny; j++)
		all[nx + j] = (struct labelled){y[j], 0};
	qsort(all, n, sizeof *all, cmp_labelled);

	/* Midranks: a run of t equal values at 0-based positions i..i+t-1
	 * shares the rank i + (t + 1) / 2, doubled 2i + t + 1 (an integer).
	 * With ties and few values, the groups are kept for the exact
	 * conditional distribution. */
	bool keep = n <= EXACT_TIED_MAX_N;
	size_t tsize[EXACT_TIED_MAX_N], w2[EXACT_TIED_MAX_N], ngroups = 0, obs2_x = 0;
	double rank_sum_x = 0, ties = 0; /* ties: sum of t^3 - t over tie groups */
	for (size_t i = 0; i < n;) {
		size_t t = 1, in_x = 0;
		while (i + t < n && all[i + t].v == all[i].v)
			t++;
		for (size_t j = i; j < i + t; j++)
			in_x += (size_t)all[j].from_x;
		rank_sum_x += (double)in_x * ((double)i + ((double)t + 1.0) / 2.0);
		ties += ((double)t * (double)t - 1.0) * (double)t;
		if (keep) {
			tsize[ngroups] = t;
			w2[ngroups++] = 2 * i + t + 1;
			obs2_x += in_x * (2 * i + t + 1);
		}
		i += t;
	}
	free(all);

	double mn = (double)nx * (double)ny;
	memset(out, 0, sizeof *out);
	out->u_x = rank_sum_x - (double)nx * ((double)nx + 1.0) / 2.0;
	if (ties == 0 && nx <= EXACT_MAX_N && ny <= EXACT_MAX_N) {
		/* P(U >= u) = P(U <= mn - u) by symmetry; u is a whole number. */
		double u = fmin(out->u_x, mn - out->u_x);
		size_t umax = (size_t)u;
		double *cdf = exact_cdf(nx, ny, umax);
		if (!cdf)
			return -1;
		out->p = fmin(1.0, 2.0 * cdf[umax]);
		out->exact = true;
		free(cdf);
		return 0;
	}
	if (ties > 0 && keep) {
		/* Count subsets of the smaller size: fewer rows. */
		size_t k = nx <= ny ? nx : ny;
		size_t obs = nx <= ny ? obs2_x : n * (n + 1) - obs2_x;
		if (exact_tied_p(tsize, w2, ngroups, n, k, obs, &out->p) != 0)
			return -1;
		out->exact = true;
		return 0;
	}
	/* Normal approximation (Conover 1999, 5.1): mean mn/2, variance
	 * mn/12 ((N+1) - sum(t^3 - t) / (N(N-1))); |U - mn/2| reduced by the
	 * continuity correction 1/2 (not below 0). */
	double nn = (double)n;
	double var = mn / 12.0 * ((nn + 1.0) - (n > 1 ? ties / (nn * (nn - 1.0)) : 0.0));
	double dev = out->u_x - mn / 2.0;
	if (!(var > 0)) { /* every value equal: no evidence either way */
		out->z = 0;
		out->p = 1;
		return 0;
	}
	double z = fmax(0.0, fabs(dev) - 0.5) / sqrt(var);
	out->z = dev < 0 ? -z : z;
	out->p = fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z));
	return 0;
}

/* ---- Hodges-Lehmann ---- */

/* A small deterministic generator for the pivots (PCG-style LCG step). */
static size_t next_random(uint64_t *s, size_t bound)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (size_t)((*s >> 33) % bound);
}

/* Rearranges a[0..n) so that a[k] holds the k-th smallest value (0-based),
 * nothing before it is larger and nothing after it smaller. Quickselect
 * with random pivots and a three-way partition (many equal differences
 * are common: timings come in whole ticks): expected O(n). */
static void select_kth(double *a, size_t n, size_t k, uint64_t *seed)
{
	size_t lo = 0, hi = n; /* the k-th smallest lies in a[lo..hi) */
	while (hi - lo > 1) {
		double pivot = a[lo + next_random(seed, hi - lo)];
		/* a[lo..lt) < pivot, a[lt..i) == pivot, a[gt..hi) > pivot */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			double v = a[i];
			if (v < pivot) {
				a[i++] = a[lt];
				a[lt++] = v;
			} else if (v > pivot) {
				a[i] = a[--gt];
				a[gt] = v;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

/* The shift on x and y as given (no checks), into out. */
static int hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double level,
                          struct pb_shift *out)
{
	if (nx > MAX_PAIRS / ny)
		return pb_fail("too many pairs (%zu x %zu) for a Hodges-Lehmann estimate", nx, ny);
	size_t mn = nx * ny;
	double *d = malloc(mn * sizeof *d);
	if (!d)
		return pb_fail("out of memory for %zu pairwise differences", mn);
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			d[i * ny + j] = y[j] - x[i];

	size_t k;
	double coverage;
	if (hl_rank(nx, ny, level, &k, &coverage) != 0) {
		free(d);
		return -1;
	}

	/* The median: d[mid] after selecting it splits the array, so the
	 * interval's ends are selected in one half each. */
	uint64_t seed = 0x853c49e6748fea9bULL;
	size_t mid = mn / 2;
	select_kth(d, mn, mid, &seed);
	double upper = d[mid];
	if (mn % 2) {
		out->estimate = upper;
	} else {
		double lower = d[0];
		for (size_t i = 1; i < mid; i++)
			lower = d[i] > lower ? d[i] : lower;
		out->estimate = (lower + upper) / 2;
	}
	out->level = level;
	out->ci_valid = k > 0;
	out->coverage = k > 0 ? coverage : NAN;
	out->lo = out->hi = NAN;
	if (k > 0) {
		size_t ilo = k - 1, ihi = mn - k; /* 0-based; ilo <= mid <= ihi */
		if (ilo < mid) {
			select_kth(d, mid, ilo, &seed);
			out->lo = d[ilo];
		} else {
			out->lo = d[mid];
		}
		if (ihi > mid) {
			select_kth(d + mid + 1, mn - mid - 1, ihi - mid - 1, &seed);
			out->hi = d[ihi];
		} else {
			out->hi = d[mid];
		}
	}
	free(d);
	return 0;
}

void pb_order_statistics(const double *sorted, size_t n, double *out, size_t m)
{
	for (size_t i = 0; i < m; i++)
		out[i] = sorted[(size_t)llround((double)i * (double)(n - 1) / (double)(m - 1))];
}

int pb_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny, double level,
                      struct pb_shift *out)
{
	if (check_level(level) || check_sample("x", x, nx, 1, false) ||
	    check_sample("y", y, ny, 1, false))
		return -1;
	return hodges_lehmann(x, nx, y, ny, level, out);
}

int pb_hodges_lehmann_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                            struct pb_shift *out)
{
	if (check_level(level) || check_sample("x", x, nx, 1, true) ||
	    check_sample("y", y, ny, 1, true))
		return -1;
	double *lx = malloc((nx + ny) * sizeof *lx);
	if (!lx)
		return pb_fail("out of memory for %zu logarithms", nx + ny);
	double *ly = lx + nx;
	for (size_t i = 0; i < nx; i++)
		lx[i] = log(x[i]);
	for (size_t j = 0; j < ny; j++)
		ly[j] = log(y[j]);
	int rc = hodges_lehmann(lx, nx, ly, ny, level, out);
	free(lx);
	if (rc == 0) {
		out->estimate = exp(out->estimate);
		out->lo = exp(out->lo); /* exp(NaN) is NaN */
		out->hi = exp(out->hi);
	}
	return rc;
}

/* ---- other estimators of the ratio ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorted logs of v[0..n) into a new array (NULL with pb_error()). */
static double *sorted_logs(const double *v, size_t n)
{
	double *l = malloc(n * sizeof *l);
	if (!l) {
		pb_fail("out of memory for %zu logarithms", n);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		l[i] = log(v[i]);
	qsort(l, n, sizeof *l, cmp_double);
	return l;
}

/* Yuen's trimmed mean of sorted[0..n) and d = (n-1) s_w^2 / (h (h-1)),
 * s_w^2 the winsorized variance, h = n - 2g. */
static void yuen_side(const double *sorted, size_t n, size_t g, double *tmean, double *d)
{
	size_t h = n - 2 * g;
	double sum = 0;
	for (size_t i = g; i < n - g; i++)
		sum += sorted[i];
	*tmean = sum / (double)h;
	double wmean = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = i < g ? g : i >= n - g ? n - g - 1 : i;
		wmean += sorted[j];
	}
	wmean /= (double)n;
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = i < g ? g : i >= n - g ? n - g - 1 : i;
		ss += (sorted[j] - wmean) * (sorted[j] - wmean);
	}
	*d = ss / ((double)h * (double)(h - 1)); /* (n-1) s_w^2 = ss */
}

int pb_trimmed_ratio(const double *x, size_t nx, const double *y, size_t ny, double gamma,
                     double level, struct pb_shift *out)
{
	if (check_level(level) || check_sample("x", x, nx, 2, true) ||
	    check_sample("y", y, ny, 2, true))
		return -1;
	if (!(gamma >= 0 && gamma < 0.5))
		return pb_fail("trimming %g is not in [0, 0.5)", gamma);
	size_t gx = (size_t)floor(gamma * (double)nx), gy = (size_t)floor(gamma * (double)ny);
	if (nx - 2 * gx < 2 || ny - 2 * gy < 2)
		return pb_fail("too few values (%zu and %zu) to trim %g and keep 2 per side", nx,
		               ny, gamma);
	double *lx = sorted_logs(x, nx), *ly = lx ? sorted_logs(y, ny) : NULL;
	if (!ly) {
		free(lx);
		return -1;
	}
	double tx, dx, ty, dy;
	yuen_side(lx, nx, gx, &tx, &dx);
	yuen_side(ly, ny, gy, &ty, &dy);
	free(lx);
	free(ly);
	double hx = (double)(nx - 2 * gx), hy = (double)(ny - 2 * gy);
	double diff = ty - tx, se = sqrt(dx + dy), hw = 0;
	if (se > 0) {
		double df = (dx + dy) * (dx + dy) / (dx * dx / (hx - 1) + dy * dy / (hy - 1));
		hw = gsl_cdf_tdist_Pinv((1.0 + level) / 2.0, df) * se;
	}
	memset(out, 0, sizeof *out);
	out->estimate = exp(diff);
	out->lo = exp(diff - hw);
	out->hi = exp(diff + hw);
	out->level = level;
	out->coverage = level;
	out->ci_valid = true;
	return 0;
}

/* The minima of the whole blocks of v[0..n), into m (count in *k). */
static void block_minima(const double *v, size_t n, size_t block, double *m, size_t *k)
{
	*k = n / block;
	for (size_t b = 0; b < *k; b++) {
		double lo = v[b * block];
		for (size_t i = 1; i < block; i++)
			lo = fmin(lo, v[b * block + i]);
		m[b] = lo;
	}
}

int pb_block_min_ratio(const double *x, size_t nx, const double *y, size_t ny, size_t block,
                       double level, struct pb_shift *out)
{
	if (check_level(level) || check_sample("x", x, nx, 1, true) ||
	    check_sample("y", y, ny, 1, true))
		return -1; /* fmin would pass over a NaN */
	if (block < 1)
		return pb_fail("a block of %zu runs", block);
	if (nx < block || ny < block)
		return pb_fail("%zu and %zu values make no whole block of %zu", nx, ny, block);
	double *mx = malloc((nx / block + ny / block) * sizeof *mx);
	if (!mx)
		return pb_fail("out of memory for block minima");
	double *my = mx + nx / block;
	size_t kx, ky;
	block_minima(x, nx, block, mx, &kx);
	block_minima(y, ny, block, my, &ky);
	int rc = pb_hodges_lehmann_ratio(mx, kx, my, ky, level, out);
	free(mx);
	return rc;
}

/* Ashman's D above this, and each cluster at least this share of the
 * values, count as two modes. */
#define MODE_ASHMAN_D  2.0
#define MODE_MIN_SHARE 0.1

/* The threshold between the two clusters of the sorted values l[0..n)
 * that minimise the within-cluster sum of squares (2-means in one
 * dimension, an exhaustive scan of the n-1 splits), when they are two
 * modes by the rule above; else NAN. */
static double mode_threshold(const double *l, size_t n)
{
	if (n < 4)
		return NAN;
	double total = 0, total2 = 0;
	for (size_t i = 0; i < n; i++) {
		total += l[i];
		total2 += l[i] * l[i];
	}
	size_t best = 0;
	double best_ss = INFINITY, s = 0, s2 = 0;
	for (size_t i = 1; i < n; i++) { /* low cluster l[0..i) */
		s += l[i - 1];
		s2 += l[i - 1] * l[i - 1];
		if (l[i] == l[i - 1])
			continue;
		double n1 = (double)i, n2 = (double)(n - i);
		double ss = (s2 - s * s / n1) + ((total2 - s2) - (total - s) * (total - s) / n2);
		if (ss < best_ss) {
			best_ss = ss;
			best = i;
		}
	}
	size_t lo_min = (size_t)ceil(MODE_MIN_SHARE * (double)n);
	if (best < lo_min || n - best < lo_min || best < 2 || n - best < 2)
		return NAN;
	double m1 = gsl_stats_mean(l, 1, best), m2 = gsl_stats_mean(l + best, 1, n - best);
	double v1 = gsl_stats_variance_m(l, 1, best, m1),
	       v2 = gsl_stats_variance_m(l + best, 1, n - best, m2);
	double spread = sqrt(v1 + v2);
	if (!(spread > 0) || sqrt(2.0) * (m2 - m1) / spread <= MODE_ASHMAN_D)
		return NAN;
	return (l[best - 1] + l[best]) / 2;
}

int pb_low_mode_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                      struct pb_shift *out, bool *split)
{
	if (split)
		*split = false;
	if (check_level(level) || check_sample("x", x, nx, 1, true) ||
	    check_sample("y", y, ny, 1, true))
		return -1;
	double *all = malloc(2 * (nx + ny) * sizeof *all);
	if (!all)
		return pb_fail("out of memory for %zu values", nx + ny);
	for (size_t i = 0; i < nx; i++)
		all[i] = log(x[i]);
	for (size_t j = 0; j < ny; j++)
		all[nx + j] = log(y[j]);
	qsort(all, nx + ny, sizeof *all, cmp_double);
	double t = mode_threshold(all, nx + ny);
	int rc;
	if (isnan(t)) {
		rc = pb_hodges_lehmann_ratio(x, nx, y, ny, level, out);
	} else {
		double *lx = all + nx + ny, *ly;
		size_t kx = 0, ky = 0;
		for (size_t i = 0; i < nx; i++)
			if (log(x[i]) < t)
				lx[kx++] = x[i];
		ly = lx + kx;
		for (size_t j = 0; j < ny; j++)
			if (log(y[j]) < t)
				ly[ky++] = y[j];
		/* Both sides must have runs in both modes: a clean shift of a
		 * single mode also splits the pooled values in two, A below and
		 * B above, and is not two modes. */
		double sx = MODE_MIN_SHARE * (double)nx, sy = MODE_MIN_SHARE * (double)ny;
		if ((double)kx < sx || (double)(nx - kx) < sx || (double)ky < sy ||
		    (double)(ny - ky) < sy) {
			rc = pb_hodges_lehmann_ratio(x, nx, y, ny, level, out);
		} else {
			rc = pb_hodges_lehmann_ratio(lx, kx, ly, ky, level, out);
			if (split)
				*split = true;
		}
	}
	free(all);
	return rc;
}

int pb_ratio_estimate(enum pb_estimator e, double param, const double *x, size_t nx,
                      const double *y, size_t ny, double level, struct pb_shift *out)
{
	switch (e) {
	case PB_EST_HL:
		return pb_hodges_lehmann_ratio(x, nx, y, ny, level, out);
	case PB_EST_TRIMMED:
		return pb_trimmed_ratio(x, nx, y, ny, param, level, out);
	case PB_EST_BLOCK_MIN:
		return pb_block_min_ratio(x, nx, y, ny, (size_t)param, level, out);
	case PB_EST_LOW_MODE:
		return pb_low_mode_ratio(x, nx, y, ny, level, out, NULL);
	case PB_EST_BLOCK_MIN_OR_ALL: {
		size_t block = (size_t)param;
		if (block >= 1 && nx >= block && ny >= block) {
			if (pb_block_min_ratio(x, nx, y, ny, block, level, out) != 0)
				return -1;
			if (out->ci_valid)
				return 0;
		}
		return pb_hodges_lehmann_ratio(x, nx, y, ny, level, out);
	}
	}
	return pb_fail("unknown estimator %d", (int)e);
}

int pb_seq_ratio(const double *x, size_t nx, const double *y, size_t ny, double level,
                 struct pb_shift *out)
{
	return pb_ratio_estimate(PB_EST_BLOCK_MIN_OR_ALL, PB_SEQ_BLOCK, x, nx, y, ny, level, out);
}

/* ---- the sequential plan ---- */

/* The smallest n per side at which [D(1), D(n^2)] reaches `level`, or 0
 * when none up to `limit` does. */
static int first_look(double level, size_t limit, size_t *out)
{
	*out = 0;
	for (size_t n = 2; n <= limit; n++) {
		size_t k;
		double coverage;
		if (hl_rank(n, n, level, &k, &coverage) != 0)
			return -1;
		if (k > 0) {
			*out = n;
			return 0;
		}
	}
	return 0;
}

/* Looks from `first` to max_n, each about `growth` times the last; a last
 * step under 1.25x is merged into the one before. Returns the count (up
 * to PB_SEQ_MAX_LOOKS + 1: more means "too many"). */
static size_t schedule(size_t first, size_t max_n, double growth, size_t *look_n)
{
	size_t count = 0, n = first;
	look_n[count++] = n;
	while (n < max_n && count <= PB_SEQ_MAX_LOOKS) {
		double next = ceil((double)n * growth);
		if (next < (double)n + 1)
			next = (double)n + 1;
		if (next * 1.25 > (double)max_n)
			next = (double)max_n;
		n = (size_t)next;
		look_n[count++] = n;
	}
	return count;
}

/* The two-sample first look: the smallest n per side with an interval of
 * the Hodges-Lehmann shift at `level` (0: none up to EXACT_MAX_N * 4). */
static size_t first_look_two_sample(double level)
{
	size_t n;
	return first_look(level, 4 * EXACT_MAX_N, &n) == 0 ? n : 0;
}

int pb_seq_plan_make(size_t max_n, double alpha, struct pb_seq_plan *out)
{
	return pb_seq_plan_make_with(max_n, alpha, first_look_two_sample, out);
}

int pb_seq_plan_make_with(size_t max_n, double alpha, size_t (*first_n)(double level),
                          struct pb_seq_plan *out)
{
	if (!(alpha > 0.0 && alpha < 1.0))
		return pb_fail("error rate %g is not between 0 and 1", alpha);
	if (max_n < 2)
		return pb_fail("--max-runs %zu is too few: a comparison needs at least 2 runs "
		               "per side",
		               max_n);
	size_t first1 = first_n(1.0 - alpha);
	if (first1 > max_n)
		first1 = 0;
	if (first1 == 0)
		return pb_fail("--max-runs %zu is too few: no interval reaches %g%% with %zu runs "
		               "per side",
		               max_n, 100 * (1 - alpha), max_n);

	/* K looks test at 1 - alpha/K, which moves the first look and so the
	 * number of looks: take the smallest K whose schedule has at most K
	 * looks, and test at 1 - alpha/(its number of looks). */
	size_t looks[PB_SEQ_MAX_LOOKS + 2];
	double growth = 1.5;
	for (;;) {
		size_t prev_count = 0, prev_first = 0;
		for (size_t K = 1; K <= PB_SEQ_MAX_LOOKS; K++) {
			size_t first = first_n(1.0 - alpha / (double)K);
			if (first > max_n)
				first = 0;
			size_t count = first ? schedule(first, max_n, growth, looks) : 0;
			if (first && count <= K) {
				memset(out, 0, sizeof *out);
				out->alpha = alpha;
				out->nlooks = count;
				memcpy(out->look_n, looks, count * sizeof looks[0]);
				out->level_per_look = 1.0 - alpha / (double)count;
				return 0;
			}
			if (!first) {
				/* No interval at 1 - alpha/K within max_n: keep the
				 * last K-1 looks of the schedule for K-1 (every one
				 * reaches 1 - alpha/(K-1): they start at or after its
				 * first look). prev_count >= K here. */
				schedule(prev_first, max_n, growth, looks);
				memset(out, 0, sizeof *out);
				out->alpha = alpha;
				out->nlooks = K - 1;
				memcpy(out->look_n, looks + (prev_count - (K - 1)),
				       (K - 1) * sizeof looks[0]);
				out->level_per_look = 1.0 - alpha / (double)(K - 1);
				return 0;
			}
			prev_count = count;
			prev_first = first;
		}
		growth *= 1.25; /* more than PB_SEQ_MAX_LOOKS looks: grow faster */
	}
}

static double equivalence = PB_EQUIVALENCE;

double pb_equivalence(void)
{
	return equivalence;
}

int pb_equivalence_set(double m)
{
	if (!(m >= 0 && m < 0.5))
		return pb_fail("bad equivalence margin %g (a fraction in [0, 0.5))", m);
	equivalence = m;
	return 0;
}

enum pb_verdict pb_verdict(const struct pb_shift *s, const struct pb_verdict_rule *rule)
{
	if (!s->ci_valid)
		return PB_VERDICT_NONE;
	double null = rule->null, margin = rule->margin;
	if (margin > 0 && s->lo >= null - margin && s->hi <= null + margin)
		return PB_VERDICT_EQUIVALENT;
	if ((s->lo > null || s->hi < null) && (!rule->u || rule->u->p < 1 - s->level) &&
	    fabs(s->estimate - null) > margin)
		return PB_VERDICT_DIFFERENT;
	return PB_VERDICT_NONE;
}

enum pb_verdict pb_verdict_of(const struct pb_shift *ratio, double margin)
{
	return pb_verdict(ratio, &(struct pb_verdict_rule){.null = 1.0, .margin = margin});
}

static const char *const verdict_names[] = {
    [PB_VERDICT_DIFFERENT] = "different", [PB_VERDICT_EQUIVALENT] = "equivalent"};

const char *pb_verdict_name(enum pb_verdict v)
{
	return pb_enum_name(verdict_names, sizeof verdict_names / sizeof *verdict_names, v, "none");
}
