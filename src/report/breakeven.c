/* breakeven.c - crossings of kernels, the recommended policy and the glibc
 * tunables closest to it (include/primbench/breakeven.h,
 * docs/breakeven.md).
 *
 * Everything works on x = log2(size) and on logarithms of times: a ratio
 * of two kernels' times is a difference of logs, and a crossing is where
 * that difference, interpolated linearly in x between two measured sizes,
 * is zero.
 */
#include "primbench/breakeven.h"
#include "primbench/fingerprint.h"
#include "primbench/report.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/replicates.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/twosample.h"
#include "primbench/xalloc.h"

/* ---- the grid of one (op, state) --------------------------------------- */

/* Kernels x sizes of one (op, state): the first case of each (kernel,
 * size) with samples and a positive median (a result with several
 * placements per size contributes its first). Sizes ascending, > 0;
 * kernels in catalogue order. */
struct grid {
	size_t ns, nk;
	uint64_t *sizes;
	double *x; /* log2(size) */
	const struct pb_kernel **kernels;
	double *med; /* nk * ns, natural logs of ticks per call */
	bool *has;
	const struct pb_mem_case **cs; /* nk * ns: each cell's case */
	/* nk * nk * ns, filled as asked (ratio()): kernel b's ticks per call
	 * over kernel a's at size j, with its 95% interval */
	struct pb_shift *rat;
	bool *rat_done;
};

#define AT(g, k, j) ((k) * (g)->ns + (j))

static void grid_free(struct grid *g)
{
	free(g->sizes);
	free(g->x);
	free(g->kernels);
	free(g->med);
	free(g->has);
	free(g->cs);
	free(g->rat);
	free(g->rat_done);
	memset(g, 0, sizeof *g);
}

/* auto's cases are left out: auto runs a policy, it cannot serve a band
 * of one (pb_policy_parse refuses it), and as the peer of every kernel it
 * serves it would take every band (the default run times it beside the
 * kernels it dispatches to). */
static bool usable_case(const struct pb_mem_case *c, enum pb_op op, enum pb_cache_state st)
{
	return c->op == op && c->state == st && c->n_samples > 0 && c->size_bytes > 0 &&
	       isfinite(c->ticks_per_call.median) && c->ticks_per_call.median > 0 &&
	       !(c->kernel && !strcmp(c->kernel->name, "auto"));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_kernel(const void *a, const void *b)
{
	const struct pb_kernel *const *ka = a, *const *kb = b;
	uintptr_t x = (uintptr_t)*ka, y = (uintptr_t)*kb;
	return x < y ? -1 : x > y;
}

static size_t index_of_size(const struct grid *g, uint64_t n)
{
	size_t lo = 0, hi = g->ns;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (g->sizes[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t index_of_kernel(const struct grid *g, const struct pb_kernel *k)
{
	for (size_t i = 0; i < g->nk; i++)
		if (g->kernels[i] == k)
			return i;
	return g->nk;
}

/* Returns 1 with a grid, 0 when (op, st) has no usable case, -1 on
 * allocation failure. */
static int grid_build(struct grid *g, const struct pb_mem_result *r, enum pb_op op,
                      enum pb_cache_state st)
{
	memset(g, 0, sizeof *g);
	size_t n = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		n += usable_case(&r->cases[i], op, st);
	if (n == 0)
		return 0;
	g->sizes = malloc(n * sizeof *g->sizes);
	g->kernels = malloc(n * sizeof *g->kernels);
	if (!g->sizes || !g->kernels)
		goto oom;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!usable_case(c, op, st))
			continue;
		g->sizes[g->ns++] = c->size_bytes;
		g->kernels[g->nk++] = c->kernel;
	}
	qsort(g->sizes, g->ns, sizeof *g->sizes, cmp_u64);
	qsort(g->kernels, g->nk, sizeof *g->kernels, cmp_kernel);
	size_t u = 0;
	for (size_t i = 0; i < g->ns; i++)
		if (u == 0 || g->sizes[u - 1] != g->sizes[i])
			g->sizes[u++] = g->sizes[i];
	g->ns = u;
	u = 0;
	for (size_t i = 0; i < g->nk; i++)
		if (u == 0 || g->kernels[u - 1] != g->kernels[i])
			g->kernels[u++] = g->kernels[i];
	g->nk = u;

	size_t cells = g->nk * g->ns;
	g->x = malloc(g->ns * sizeof *g->x);
	g->med = malloc(cells * sizeof *g->med);
	g->has = calloc(cells, sizeof *g->has);
	g->cs = calloc(cells, sizeof *g->cs);
	g->rat = calloc(cells * g->nk, sizeof *g->rat);
	g->rat_done = calloc(cells * g->nk, sizeof *g->rat_done);
	if (!g->x || !g->med || !g->has || !g->cs || !g->rat || !g->rat_done)
		goto oom;
	for (size_t j = 0; j < g->ns; j++)
		g->x[j] = log2((double)g->sizes[j]);
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!usable_case(c, op, st))
			continue;
		size_t at = AT(g, index_of_kernel(g, c->kernel), index_of_size(g, c->size_bytes));
		if (g->has[at])
			continue;
		const struct pb_summary *s = &c->ticks_per_call;
		g->has[at] = true;
		g->med[at] = log(s->median);
		g->cs[at] = c;
	}
	/* Kernels that run another measured kernel's code at a size are one
	 * candidate there (struct pb_kernel's same_code_as): the base row
	 * speaks for both, so noise cannot choose between two timings of one
	 * code path. Where the base was not measured the kernel stays. */
	for (size_t k = 0; k < g->nk; k++) {
		for (size_t j = 0; j < g->ns; j++) {
			const struct pb_kernel *base =
			    pb_kernel_code_at(g->kernels[k], g->sizes[j]);
			size_t bk = index_of_kernel(g, base);
			if (base != g->kernels[k] && bk < g->nk && g->has[AT(g, bk, j)])
				g->has[AT(g, k, j)] = false;
		}
	}
	return 1;
oom:
	grid_free(g);
	return pb_fail("out of memory computing break-even points");
}

/* The kernel with the lowest median at size j (one was measured there:
 * every size of the grid comes from a case). */
static size_t fastest_at(const struct grid *g, size_t j)
{
	size_t w = g->nk;
	for (size_t k = 0; k < g->nk; k++)
		if (g->has[AT(g, k, j)] &&
		    (w == g->nk || g->med[AT(g, k, j)] < g->med[AT(g, w, j)]))
			w = k;
	return w;
}

/* Kernel b's ticks per call over kernel a's at size j (both measured
 * there), with its 95% interval: pb_contender_ratio (replicates.h), the
 * two interleaved in one run, paired by replicate or by the samples.
 * ci_valid false when it cannot be had. Computed once per (a, b, j). */
static const struct pb_shift *ratio(const struct grid *g, size_t a, size_t b, size_t j)
{
	size_t at = (a * g->nk + b) * g->ns + j;
	if (!g->rat_done[at]) {
		g->rat_done[at] = true;
		struct pb_shift *r = &g->rat[at];
		const struct pb_mem_case *ca = g->cs[AT(g, a, j)], *cb = g->cs[AT(g, b, j)];
		double *x = ca ? pb_mem_case_per_call(ca) : NULL;
		double *y = cb ? pb_mem_case_per_call(cb) : NULL;
		if (!x || !y ||
		    pb_contender_ratio(x, ca->n_samples, ca->replicate_samples, ca->n_replicates, y,
		                       cb->n_samples, cb->replicate_samples, cb->n_replicates, 0.95,
		                       r) != 0)
			r->ci_valid = false;
		free(x);
		free(y);
	}
	return &g->rat[at];
}

/* How clearly a beats b at size j with margin m, in logs: min(ln lo,
 * ln estimate - ln(1 + m)) of b / a, > 0 exactly when pb_verdict calls
 * the ratio different with a faster; -inf without an interval. */
static double win(const struct grid *g, size_t a, size_t b, size_t j, double m)
{
	const struct pb_shift *r = ratio(g, a, b, j);
	if (!r->ci_valid)
		return -INFINITY;
	const struct pb_verdict_rule rule = {.null = 1, .margin = m};
	double u = fmin(log(r->lo), log(r->estimate) - log1p(m));
	bool faster = pb_verdict(r, &rule) == PB_VERDICT_DIFFERENT && r->estimate > 1;
	/* the one rule decides; u only measures how far (their edge cases
	 * agree: lo > 1 and estimate > 1 + m) */
	return faster ? fmax(u, DBL_MIN) : fmin(u, 0);
}

/* Kernel a is faster than b at size j: pb_verdict with the one margin. */
static bool clearly_faster(const struct grid *g, size_t a, size_t b, size_t j)
{
	return win(g, a, b, j, pb_equivalence()) > 0;
}

/* Where the line through (x0, y0), (x1, y1) is 0; y0 and y1 of opposite
 * signs or y1 == 0. */
static double zero_at(double x0, double y0, double x1, double y1)
{
	return x0 + (x1 - x0) * y0 / (y0 - y1);
}

/* ---- crossings ----------------------------------------------------------- */

struct crossings {
	struct pb_crossing *v;
	size_t n, cap;
};

static int crossings_add(struct crossings *c, const struct pb_crossing *x)
{
	if (pb_grow(&c->v, &c->cap, c->n, sizeof *c->v, 16) != 0)
		return pb_fail("out of memory computing break-even points");
	c->v[c->n++] = *x;
	return 0;
}

/* +1 when a's median is lower at idx[i], -1 when b's, 0 when equal. */
static int medsign(const struct grid *g, size_t a, size_t b, const size_t *idx, size_t i)
{
	double ma = g->med[AT(g, a, idx[i])], mb = g->med[AT(g, b, idx[i])];
	return ma < mb ? 1 : ma > mb ? -1 : 0;
}

/* +1 when a is faster by the one rule at idx[i] (clearly_faster), -1 when b
 * is, else 0. */
static int clearsign(const struct grid *g, size_t a, size_t b, const size_t *idx, size_t i)
{
	return clearly_faster(g, a, b, idx[i]) ? 1 : clearly_faster(g, b, a, idx[i]) ? -1 : 0;
}

/* The flips of the medians' order among idx[lo..hi]: each is between two
 * consecutive sizes of unequal medians whose order differs. Returns how
 * many; with `want` < that count, stores the want-th (from 0): the size
 * before it in *before, the one after in *after, and its interpolated x. */
static unsigned flips(const struct grid *g, size_t a, size_t b, const size_t *idx, size_t lo,
                      size_t hi, unsigned want, size_t *before, size_t *after, double *x)
{
	unsigned n = 0;
	size_t prev = SIZE_MAX;
	for (size_t i = lo; i <= hi; i++) {
		int s = medsign(g, a, b, idx, i);
		if (s == 0)
			continue;
		if (prev != SIZE_MAX && medsign(g, a, b, idx, prev) != s) {
			if (n == want) {
				size_t j0 = idx[prev], j1 = idx[i];
				double d0 = g->med[AT(g, a, j0)] - g->med[AT(g, b, j0)];
				double d1 = g->med[AT(g, a, j1)] - g->med[AT(g, b, j1)];
				*before = j0;
				*after = j1;
				*x = zero_at(g->x[j0], d0, g->x[j1], d1);
			}
			n++;
		}
		prev = i;
	}
	return n;
}

/* The lower end of a crossing's interval: between sizes j0 (where `below`
 * is faster by the one rule) and j1 (where it is not), the zero of
 * win(below, above) interpolated in log2(size): where that verdict is
 * lost. j0 itself when j1 has no interval. */
static double verdict_lost_at(const struct grid *g, size_t below, size_t above, size_t j0,
                              size_t j1)
{
	double u0 = win(g, below, above, j0, pb_equivalence());
	double u1 = win(g, below, above, j1, pb_equivalence());
	if (!isfinite(u1) || !isfinite(u0) || u1 > 0 || !(u0 > 0))
		return (double)g->sizes[j0];
	return exp2(zero_at(g->x[j0], u0, g->x[j1], u1));
}

/* The crossings of kernels a and b (grid indices). idx[0..m) lists the
 * sizes at which both were measured.
 *
 * A size is "clear" when one kernel is faster there by the one rule
 * (clearly_faster: pb_verdict on their ratio, the 1% margin).
 * Between two consecutive clear sizes of opposite kernels (or before the
 * first clear size, or after the last), the medians' order flips an odd
 * number of times: one crossing, placed at the middle flip. Between clear
 * sizes of the same kernel the flips come in pairs: noise, no crossing.
 * A pair never clear anywhere gives nothing. */
static int pair_crossings(const struct grid *g, size_t a, size_t b, const size_t *idx, size_t m,
                          struct crossings *out)
{
	size_t left = SIZE_MAX; /* the clear size below the window; SIZE_MAX: none */
	for (;;) {
		size_t right = left == SIZE_MAX ? 0 : left + 1; /* the clear size above; m: none */
		while (right < m && clearsign(g, a, b, idx, right) == 0)
			right++;
		if (left == SIZE_MAX && right == m)
			return 0; /* never clear */

		/* Which kernel is faster on each side: the clear sign, or at an
		 * open end the median's order nearest to it. */
		size_t lo_i = left == SIZE_MAX ? 0 : left, hi_i = right == m ? m - 1 : right;
		int sl = 0, sr = 0;
		if (left != SIZE_MAX)
			sl = clearsign(g, a, b, idx, left);
		for (size_t i = lo_i; i <= hi_i && !sl; i++)
			sl = medsign(g, a, b, idx, i);
		if (right != m)
			sr = clearsign(g, a, b, idx, right);
		for (size_t i = hi_i + 1; i-- > lo_i && !sr;)
			sr = medsign(g, a, b, idx, i);

		unsigned n = sl && sr && sl != sr
		                 ? flips(g, a, b, idx, lo_i, hi_i, UINT_MAX, NULL, NULL, NULL)
		                 : 0;
		if (n > 0) {
			size_t below = sl > 0 ? a : b, above = sl > 0 ? b : a, j0 = 0, j1 = 0;
			double x = 0;
			flips(g, a, b, idx, lo_i, hi_i, n / 2, &j0, &j1, &x);
			struct pb_crossing c = {
			    .below = g->kernels[below],
			    .above = g->kernels[above],
			    .size_bytes = exp2(x),
			    .bracket_lo = g->sizes[j0],
			    .bracket_hi = g->sizes[j1],
			    .flips = n,
			};
			if (left == SIZE_MAX) {
				c.lo_open = true;
				c.lo_bytes = (double)g->sizes[idx[0]];
			} else {
				c.lo_bytes =
				    verdict_lost_at(g, below, above, idx[left], idx[left + 1]);
			}
			/* The upper end mirrors the lower: seen from above, `above`
			 * is the faster one and its verdict is lost at idx[right - 1]. */
			if (right == m) {
				c.hi_open = true;
				c.hi_bytes = (double)g->sizes[idx[m - 1]];
			} else {
				c.hi_bytes =
				    verdict_lost_at(g, above, below, idx[right], idx[right - 1]);
			}
			if (crossings_add(out, &c) != 0)
				return -1;
		}
		if (right == m)
			return 0;
		left = right;
	}
}

static int cmp_crossing(const void *a, const void *b)
{
	double x = ((const struct pb_crossing *)a)->size_bytes;
	double y = ((const struct pb_crossing *)b)->size_bytes;
	return x < y ? -1 : x > y;
}

/* ---- the recommended policy --------------------------------------------- */

/* A band is kept only where its kernel beats the neighbour's by more than
 * 3% somewhere, by pb_verdict with that gain as its margin (the default of
 * pb_breakeven_compute;
 * primbench tune asks for more): smaller gains are not worth a switch
 * point in a policy, and on a noisy machine they come and go. */
#define DEFAULT_MIN_GAIN 0.03

struct band {
	size_t k;      /* grid kernel */
	size_t j0, j1; /* grid sizes, inclusive */
};

/* How far band kernel kb beats kernel ko somewhere in [j0, j1], beyond
 * what the keep rule asks at that size: the largest lo(ko) - hi(kb) -
 * need(size) (logs, win()); > 0 means pb_verdict calls kb faster with the
 * rule's gain as its margin, by more than the
 * rule's gain at that size. -inf when never comparable with CIs; +inf when
 * ko was not measured there at all (nothing says it could serve the band). */
static double advantage(const struct grid *g, size_t kb, size_t ko, size_t j0, size_t j1,
                        const struct pb_gain_rule *rule)
{
	double best = -INFINITY;
	bool any = false;
	for (size_t j = j0; j <= j1; j++) {
		size_t pb = AT(g, kb, j), po = AT(g, ko, j);
		if (!g->has[pb] || !g->has[po])
			continue;
		any = true;
		/* the rule's gain is the margin, never below the one margin */
		double gain = g->sizes[j] >= rule->large_from_bytes ? rule->large : rule->small;
		double u = win(g, kb, ko, j, fmax(gain, pb_equivalence()));
		if (u > best)
			best = u;
	}
	return any ? best : INFINITY;
}

static size_t coalesce(struct band *b, size_t n)
{
	size_t u = 0;
	for (size_t i = 0; i < n; i++) {
		if (u > 0 && b[u - 1].k == b[i].k)
			b[u - 1].j1 = b[i].j1;
		else
			b[u++] = b[i];
	}
	return u;
}

/* What serving band kernel kb's sizes [j0, j1] with ko instead costs: the
 * sum of ln(median ko / median kb) over the sizes both were measured at;
 * +inf when ko was measured at none of them. */
static double merge_cost(const struct grid *g, size_t kb, size_t ko, size_t j0, size_t j1)
{
	double sum = 0;
	bool any = false;
	for (size_t j = j0; j <= j1; j++) {
		size_t pb = AT(g, kb, j), po = AT(g, ko, j);
		if (g->has[pb] && g->has[po]) {
			any = true;
			sum += g->med[po] - g->med[pb];
		}
	}
	return any ? sum : INFINITY;
}

/* Merges one band into a neighbour: among the (band, neighbour) pairs
 * where the band's kernel is nowhere faster than the neighbour's kernel
 * by the keep rule (any pair when `force`), the one whose merge costs
 * least. Returns whether it merged. */
static bool merge_weakest(const struct grid *g, struct band *b, size_t *n, bool force,
                          const struct pb_gain_rule *rule)
{
	double best = INFINITY;
	size_t bi = 0, bk = 0;
	bool found = false;
	size_t count = *n;
	for (size_t i = 0; count > 1 && i < count; i++) {
		for (int side = 0; side < 2; side++) {
			if ((side == 0 && i == 0) || (side == 1 && i + 1 == count))
				continue;
			size_t other = side == 0 ? b[i - 1].k : b[i + 1].k;
			if (!force && advantage(g, b[i].k, other, b[i].j0, b[i].j1, rule) > 0)
				continue;
			double cost = merge_cost(g, b[i].k, other, b[i].j0, b[i].j1);
			if (!found || cost < best) {
				found = true;
				best = cost;
				bi = i;
				bk = other;
			}
		}
	}
	if (!found)
		return false;
	b[bi].k = bk;
	*n = coalesce(b, *n);
	return true;
}

/* The bound between two bands: the crossing of their kernels' medians
 * between the last size of the first and the first of the second when
 * their order flips there, else the last size of the first. */
static uint64_t band_bound(const struct grid *g, const struct band *lo, const struct band *hi)
{
	size_t j0 = lo->j1, j1 = hi->j0;
	uint64_t n0 = g->sizes[j0], n1 = g->sizes[j1];
	size_t a0 = AT(g, lo->k, j0), b0 = AT(g, hi->k, j0);
	size_t a1 = AT(g, lo->k, j1), b1 = AT(g, hi->k, j1);
	if (!g->has[a0] || !g->has[b0] || !g->has[a1] || !g->has[b1])
		return n0;
	double d0 = g->med[a0] - g->med[b0], d1 = g->med[a1] - g->med[b1];
	if (d0 < 0 && d1 == 0)
		return n1 - 1;
	if (!(d0 < 0 && d1 > 0))
		return n0;
	double at = floor(exp2(zero_at(g->x[j0], d0, g->x[j1], d1)));
	if (!(at >= (double)n0))
		return n0;
	if (at >= (double)n1)
		return n1 - 1;
	return (uint64_t)at;
}

/* The switch between bands lo and hi: the crossing of their kernels
 * (a, b) found as pair_crossings finds one, over the sizes of the two
 * bands where both were measured. The window runs from the last size of
 * lo's band where a is faster by the one rule to the first of hi's band
 * where b is (an end without one is open); the medians flip an odd number
 * of times in it and the crossing is the middle flip. An even count (a
 * merged band, where a third kernel led) falls back to band_bound. The
 * bound is the crossing rounded down: the policy's bound and the printed
 * switch are this one figure. */
static void switch_point(const struct grid *g, const struct band *lo, const struct band *hi,
                         size_t *idx, struct pb_crossing *out)
{
	size_t a = lo->k, b = hi->k, m = 0, t = 0;
	for (size_t j = lo->j0; j <= hi->j1; j++) {
		if (g->has[AT(g, a, j)] && g->has[AT(g, b, j)]) {
			idx[m++] = j;
			if (j <= lo->j1)
				t = m;
		}
	}
	uint64_t fallback = band_bound(g, lo, hi);
	memset(out, 0, sizeof *out);
	out->below = g->kernels[a];
	out->above = g->kernels[b];
	out->bracket_lo = g->sizes[lo->j1];
	out->bracket_hi = g->sizes[hi->j0];
	out->size_bytes = (double)fallback + 0.5;
	out->bound_bytes = fallback;
	out->lo_open = out->hi_open = true;
	out->lo_bytes = (double)g->sizes[lo->j0];
	out->hi_bytes = (double)g->sizes[hi->j1];
	out->bound_how = PB_BOUND_BANDS;
	out->moved_from_bytes = fallback;
	if (m == 0)
		return;
	size_t left = SIZE_MAX, right = m;
	for (size_t i = t; i-- > 0 && left == SIZE_MAX;)
		if (clearsign(g, a, b, idx, i) > 0)
			left = i;
	for (size_t i = t; i < m && right == m; i++)
		if (clearsign(g, a, b, idx, i) < 0)
			right = i;
	size_t lo_i = left == SIZE_MAX ? 0 : left, hi_i = right == m ? m - 1 : right;
	out->lo_bytes = (double)g->sizes[idx[lo_i]];
	out->hi_bytes = (double)g->sizes[idx[hi_i]];
	if (left != SIZE_MAX && left + 1 < m) {
		out->lo_open = false;
		out->lo_bytes = verdict_lost_at(g, a, b, idx[left], idx[left + 1]);
	}
	if (right != m) {
		/* b clear at the first size both were measured at: no
		 * undecided size seen above the switch */
		out->hi_open = false;
		out->hi_bytes = right > 0 ? verdict_lost_at(g, b, a, idx[right], idx[right - 1])
		                          : (double)g->sizes[idx[0]];
	}
	out->undecided_measured = left == SIZE_MAX || right == m || right > left + 1;
	unsigned n = flips(g, a, b, idx, lo_i, hi_i, UINT_MAX, NULL, NULL, NULL);
	out->flips = n;
	if (n % 2 == 0)
		return;
	size_t j0 = 0, j1 = 0;
	double x = 0;
	flips(g, a, b, idx, lo_i, hi_i, n / 2, &j0, &j1, &x);
	double at = floor(exp2(x));
	if (!(at >= (double)g->sizes[j0]))
		at = (double)g->sizes[j0];
	if (at >= (double)g->sizes[j1])
		at = (double)g->sizes[j1] - 1;
	out->size_bytes = exp2(x);
	out->bound_bytes = (uint64_t)at;
	out->moved_from_bytes = out->bound_bytes;
	out->bound_how = PB_BOUND_CROSSING;
	out->bracket_lo = g->sizes[j0];
	out->bracket_hi = g->sizes[j1];
}

/* Kernel kb beats ko over the band's sizes [j0, j1] taken together, by
 * the one rule (pb_verdict, PB_EQUIVALENCE): in each replicate r, the
 * geometric mean over the sizes of ko's median over kb's, paired by
 * replicate (pb_paired_ratio: the two were interleaved in one run), so
 * that one size's noise does not decide a band of many (docs/breakeven.md,
 * "Kernels that cannot be told apart"). 1: kb faster; 0: not; -1: no such
 * interval (a size of kb without ko, or without the same two or more
 * replicates on both). */
static int band_faster(const struct grid *g, size_t kb, size_t ko, size_t j0, size_t j1)
{
	size_t R = 0, nsz = 0;
	double *la = NULL, *lb = NULL, *ma = NULL, *mb = NULL;
	int res = -1;
	for (size_t j = j0; j <= j1; j++) {
		if (!g->has[AT(g, kb, j)])
			continue;
		const struct pb_mem_case *ca = g->cs[AT(g, kb, j)], *cb = g->cs[AT(g, ko, j)];
		if (!g->has[AT(g, ko, j)] || !ca || !cb || ca->n_replicates < 2 ||
		    cb->n_replicates != ca->n_replicates || (R && ca->n_replicates != R))
			goto out;
		if (!R) {
			R = ca->n_replicates;
			la = calloc(R, sizeof *la);
			lb = calloc(R, sizeof *lb);
			ma = malloc(R * sizeof *ma);
			mb = malloc(R * sizeof *mb);
			if (!la || !lb || !ma || !mb)
				goto out;
		}
		double *x = pb_mem_case_per_call(ca), *y = pb_mem_case_per_call(cb);
		size_t kx =
		    x ? pb_replicate_medians(x, ca->n_samples, ca->replicate_samples, R, ma) : 0;
		size_t ky =
		    y ? pb_replicate_medians(y, cb->n_samples, cb->replicate_samples, R, mb) : 0;
		free(x);
		free(y);
		if (kx != R || ky != R)
			goto out;
		for (size_t r = 0; r < R; r++) {
			if (!(ma[r] > 0 && mb[r] > 0))
				goto out;
			la[r] += log(ma[r]);
			lb[r] += log(mb[r]);
		}
		nsz++;
	}
	if (!nsz)
		goto out;
	for (size_t r = 0; r < R; r++) {
		la[r] = exp(la[r] / (double)nsz);
		lb[r] = exp(lb[r] / (double)nsz);
	}
	struct pb_runs_ratio pr = {0};
	if (pb_paired_ratio(la, lb, R, 0.95, &pr) != 0 || !pr.valid)
		goto out;
	const struct pb_shift sh = {.estimate = pr.estimate,
	                            .lo = pr.lo,
	                            .hi = pr.hi,
	                            .level = 0.95,
	                            .coverage = 0.95,
	                            .ci_valid = true};
	const struct pb_verdict_rule rule = {.null = 1, .margin = pb_equivalence()};
	res = pb_verdict(&sh, &rule) == PB_VERDICT_DIFFERENT && sh.estimate > 1;
out:
	free(la);
	free(lb);
	free(ma);
	free(mb);
	return res;
}

/* Kernel ko cannot be told from band kernel kb over the band's sizes
 * [j0, j1]: ko was measured at every size kb was and kb is not faster
 * over them by the one rule (pb_verdict, PB_EQUIVALENCE): over the band
 * as a whole (band_faster) where the replicates give that interval, else
 * at none of its sizes (the tables' `=`).
 * With a `close` rule, also that ko's medians be on average within the
 * rule's gain at each size (never below the one margin) of kb's: the mean
 * of log(ko / kb) - log(1 + gain), <= 0. Serving the band with ko then
 * costs by the medians no more than the gain the keep rule says is not
 * worth a band. */
static bool peer_of(const struct grid *g, size_t kb, size_t ko, size_t j0, size_t j1,
                    const struct pb_gain_rule *close)
{
	if (ko == kb)
		return false;
	/* the band as a whole where its replicates allow, else size by size */
	int whole = band_faster(g, kb, ko, j0, j1);
	if (whole == 1)
		return false;
	double sum = 0;
	size_t n = 0;
	for (size_t j = j0; j <= j1; j++) {
		if (!g->has[AT(g, kb, j)])
			continue;
		if (!g->has[AT(g, ko, j)] || (whole < 0 && clearly_faster(g, kb, ko, j)))
			return false;
		double gain = 0;
		if (close)
			gain = fmax(g->sizes[j] >= close->large_from_bytes ? close->large
			                                                   : close->small,
			            pb_equivalence());
		sum += g->med[AT(g, ko, j)] - g->med[AT(g, kb, j)] - log1p(gain);
		n++;
	}
	return n > 0 && (!close || sum <= 0);
}

/* Each band served by the first kernel in catalogue order (libc first,
 * or last for tune: rule->libc_last) among its own and its close peers
 * (peer_of): which of two kernels the data cannot tell apart
 * has the lower medians is noise, and a policy that names whichever was
 * lucky does not repeat in a second process (rep_movsb and rep_movsq, or
 * two non-temporal loops, traded bands between two tunes here: docs/
 * breakeven.md, "Policies that repeat"). Bands that then name the same
 * kernel join. */
static size_t canonical_rank(const struct grid *g, size_t k, const struct pb_gain_rule *rule)
{
	/* libc first, or with libc_last (tune) last: what it runs moves with
	 * GLIBC_TUNABLES, the very line tune prints beside the policy */
	if (strcmp(g->kernels[k]->name, "libc"))
		return k + 1;
	return rule->libc_last ? g->nk + 1 + k : 0;
}

/* A close peer that is a neighbouring band's kernel comes first: serving
 * the band with it removes a switch the data cannot show pays (two tunes
 * here kept avx512 from 16 B to 454 KiB in one run, and in the other an
 * avx2 band inside it at 942 B..50 KiB that listed avx512 as its peer). */
static size_t canonical_kernels(const struct grid *g, struct band *b, size_t n,
                                const struct pb_gain_rule *rule)
{
	for (size_t i = 0; i < n; i++) {
		size_t best = b[i].k;
		bool best_nb = false;
		for (size_t k = 0; k < g->nk; k++) {
			if (k == b[i].k || !peer_of(g, b[i].k, k, b[i].j0, b[i].j1, rule))
				continue;
			bool nb = (i > 0 && b[i - 1].k == k) || (i + 1 < n && b[i + 1].k == k);
			if ((nb && !best_nb) ||
			    (nb == best_nb &&
			     canonical_rank(g, k, rule) < canonical_rank(g, best, rule))) {
				best = k;
				best_nb = nb;
			}
		}
		b[i].k = best;
	}
	return coalesce(b, n);
}

static int recommend(const struct grid *g, enum pb_op op, const struct pb_gain_rule *rule,
                     struct pb_policy *p, bool *simplified, struct pb_crossing *sw,
                     struct pb_band_peers *peers)
{
	struct band *b = malloc(g->ns * sizeof *b);
	if (!b)
		return pb_fail("out of memory computing break-even points");
	size_t n = 0;
	for (size_t j = 0; j < g->ns; j++) {
		size_t w = fastest_at(g, j);
		if (n > 0 && b[n - 1].k == w)
			b[n - 1].j1 = j;
		else
			b[n++] = (struct band){w, j, j};
	}
	while (merge_weakest(g, b, &n, false, rule))
		;
	n = canonical_kernels(g, b, n, rule);
	while (merge_weakest(g, b, &n, false, rule))
		;
	*simplified = false;
	while (n > PB_POLICY_MAX_BANDS && merge_weakest(g, b, &n, true, rule))
		*simplified = true;

	size_t *idx = malloc(g->ns * sizeof *idx);
	if (!idx) {
		free(b);
		return pb_fail("out of memory computing break-even points");
	}
	p->op = op;
	p->n_bands = n;
	for (size_t i = 0; i < n; i++) {
		p->bands[i].kernel = g->kernels[b[i].k];
		peers[i].n = 0;
		for (size_t k = 0; k < g->nk && peers[i].n < PB_BREAKEVEN_MAX_PEERS; k++)
			if (peer_of(g, b[i].k, k, b[i].j0, b[i].j1, NULL))
				peers[i].kernels[peers[i].n++] = g->kernels[k];
		p->bands[i].max_bytes = UINT64_MAX;
		if (i + 1 == n)
			break;
		struct pb_crossing *x = &sw[i];
		switch_point(g, &b[i], &b[i + 1], idx, x);
		/* Where the upper kernel still runs the lower one's code, the
		 * switch can only take effect where their code differs. */
		const struct pb_kernel *up = x->above;
		if (x->bound_bytes < SIZE_MAX &&
		    pb_kernel_code_at(up, (size_t)x->bound_bytes + 1) == x->below &&
		    up->differs_from_bytes > 0) {
			x->moved_from_bytes = x->bound_bytes;
			x->bound_how = PB_BOUND_CODE;
			x->bound_bytes = up->differs_from_bytes - 1;
		}
		/* Bounds ascend: a switch placed below the one before it (two
		 * windows that overlap) moves to its own bands' boundary. */
		if (i > 0 && x->bound_bytes <= p->bands[i - 1].max_bytes) {
			uint64_t fb = band_bound(g, &b[i], &b[i + 1]);
			x->moved_from_bytes = x->bound_bytes;
			x->bound_how = PB_BOUND_ASCENDING;
			x->bound_bytes =
			    fb > p->bands[i - 1].max_bytes ? fb : p->bands[i - 1].max_bytes + 1;
		}
		p->bands[i].max_bytes = x->bound_bytes;
	}
	free(idx);
	free(b);
	return 0;
}

/* ---- glibc 2.36 x86-64 ---------------------------------------------------
 *
 * The bands glibc 2.36's x86-64 string functions use (the *_unaligned_erms
 * variants, chosen when the CPU has ERMS; memmove-vec-unaligned-erms.S and
 * memset-vec-unaligned-erms.S; checked against the disassembly of Debian
 * 12's libc.so.6, 2.36-9+deb12u14):
 *   memcpy: n > x86_rep_movsb_threshold and n < rep_movsb_stop: rep movsb;
 *           otherwise n >= x86_non_temporal_threshold: non-temporal stores
 *           (4-page interleaved vmovntdq loop; source and destination must
 *           not overlap), else the vector loop. rep_movsb_stop is
 *           x86_non_temporal_threshold on Intel (it follows the tunable), the
 *           L2 size on AMD (not tunable).
 *   memset: n > 2 x VEC_SIZE and n > x86_rep_stosb_threshold: rep stosb;
 *           else vector stores. No non-temporal path (added in 2.40).
 * Accepted values (dl-cacheinfo.h, checked with ld.so --list-diagnostics):
 * x86_rep_movsb_threshold > 8 x VEC_SIZE; x86_rep_stosb_threshold >= 1;
 * x86_non_temporal_threshold in (0x4040, 0x0fffffffffffffff]. Values out
 * of range are ignored silently. */

enum gclass { G_VEC, G_REP, G_NT, G_NONE, G_ANY };

static const char *const gclass_words[] = {"its vector loop", "rep movsb", "non-temporal stores",
                                           "nothing", "anything"};

/* The class of the glibc model k's own code has (its row's glibc path,
 * primbench/kernels.h); G_NONE for kernels glibc has no path for. */
static enum gclass kernel_class(const struct pb_kernel *k)
{
	switch (k->glibc) {
	case PB_GLIBC_PATH_VECTOR:
		return G_VEC;
	case PB_GLIBC_PATH_REP:
		return G_REP;
	case PB_GLIBC_PATH_NT:
		return G_NT;
	case PB_GLIBC_PATH_ANY:
		return G_ANY;
	default:
		return G_NONE;
	}
}

enum pb_glibc_path pb_glibc_path_of(const struct pb_kernel *k)
{
	return !k || k->glibc == PB_GLIBC_PATH_ANY ? PB_GLIBC_PATH_NONE : k->glibc;
}

/* One setting of glibc's thresholds and how its bands follow from it. */
struct gmodel {
	enum pb_op op;
	uint64_t rep;  /* rep movsb or rep stosb threshold */
	uint64_t nt;   /* memcpy */
	uint64_t stop; /* memcpy, when !stop_follows_nt */
	bool stop_follows_nt;
	uint64_t two_vec; /* memset: no rep stosb up to this; 0 = unknown */
};

static enum gclass gmodel_class(const struct gmodel *m, uint64_t n)
{
	if (m->op == PB_OP_MEMSET)
		return n > m->rep && n > m->two_vec ? G_REP : G_VEC;
	if (n > m->rep && n < (m->stop_follows_nt ? m->nt : m->stop))
		return G_REP;
	return n >= m->nt ? G_NT : G_VEC;
}

enum pb_glibc_path pb_glibc_path_at(const struct pb_glibc_thresholds *cur, enum pb_op op,
                                    const struct pb_glibc_tunables *set, uint64_t n)
{
	if (!cur || !cur->known || (op != PB_OP_MEMSET && op != PB_OP_MEMCPY))
		return PB_GLIBC_PATH_NONE;
	bool cpy = op == PB_OP_MEMCPY;
	struct gmodel m = {.op = op};
	m.stop_follows_nt = cur->rep_movsb_stop == 0 || cur->rep_movsb_stop == cur->non_temporal;
	m.stop = m.stop_follows_nt ? 0 : cur->rep_movsb_stop;
	m.two_vec = cur->rep_movsb_min ? cur->rep_movsb_min / 4 : 0;
	m.rep = cpy ? cur->rep_movsb : cur->rep_stosb;
	m.nt = cpy && cur->non_temporal ? cur->non_temporal : PB_GLIBC_NT_MAX;
	if (set) {
		uint64_t r = cpy ? set->rep_movsb : set->rep_stosb;
		if (r >= 1 && r <= PB_GLIBC_NT_MAX && (!cpy || r > cur->rep_movsb_min))
			m.rep = r;
		if (cpy && set->non_temporal > PB_GLIBC_NT_MIN &&
		    set->non_temporal <= PB_GLIBC_NT_MAX)
			m.nt = set->non_temporal;
	}
	switch (gmodel_class(&m, n)) {
	case G_REP:
		return PB_GLIBC_PATH_REP;
	case G_NT:
		return PB_GLIBC_PATH_NT;
	default:
		return PB_GLIBC_PATH_VECTOR;
	}
}

int pb_glibc_tunables_from_line(const char *line, enum pb_op op, struct pb_glibc_tunables *out)
{
	memset(out, 0, sizeof *out);
	out->op = op;
	snprintf(out->line, sizeof out->line, "%s", line);
	const char *q = line;
	if (!strncmp(q, "GLIBC_TUNABLES=", 15))
		q += 15;
	while (*q) {
		size_t n = strcspn(q, ":");
		const char *eq = memchr(q, '=', n);
		if (!eq || eq + 1 == q + n)
			return pb_fail("GLIBC_TUNABLES: '%.*s' is not name=value", (int)n, q);
		char num[32];
		size_t vn = (size_t)(q + n - (eq + 1));
		char *end = NULL;
		unsigned long long v = 0;
		if (vn < sizeof num) {
			memcpy(num, eq + 1, vn);
			num[vn] = '\0';
			errno = 0;
			v = strtoull(num, &end, 0);
		}
		size_t kn = (size_t)(eq - q);
#define PB_IS(name) (kn == sizeof(name) - 1 && !strncmp(q, name, kn))
		bool ours = PB_IS("glibc.cpu.x86_rep_stosb_threshold") ||
		            PB_IS("glibc.cpu.x86_rep_movsb_threshold") ||
		            PB_IS("glibc.cpu.x86_non_temporal_threshold");
		if (ours && (vn >= sizeof num || errno || *end || end == num || num[0] == '-'))
			return pb_fail("GLIBC_TUNABLES: '%.*s': not a number", (int)n, q);
		if (op == PB_OP_MEMSET && PB_IS("glibc.cpu.x86_rep_stosb_threshold"))
			out->rep_stosb = v;
		else if (op == PB_OP_MEMCPY && PB_IS("glibc.cpu.x86_rep_movsb_threshold"))
			out->rep_movsb = v;
		else if (op == PB_OP_MEMCPY && PB_IS("glibc.cpu.x86_non_temporal_threshold"))
			out->non_temporal = v;
#undef PB_IS
		q += n + (q[n] == ':');
	}
	return 0;
}

struct mapctx {
	const struct pb_policy *p;
	bool cur_known;
	struct gmodel cur;      /* glibc now (when cur_known) */
	struct gmodel base;     /* fixed parts: op, stop, two_vec */
	uint64_t rep_movsb_min; /* glibc ignores x86_rep_movsb_threshold <= this; 0: unknown */
};

/* The class of the code the policy runs at n: a kernel that runs another
 * row's code there (avx512_nt below a line, 64 B) has that row's class. */
static enum gclass want_class(const struct mapctx *c, uint64_t n)
{
	enum gclass kc =
	    kernel_class(pb_kernel_code_at(pb_policy_pick(c->p, (size_t)n), (size_t)n));
	if (kc == G_NONE)
		return G_ANY;
	if (kc == G_ANY)
		return c->cur_known ? gmodel_class(&c->cur, n) : G_ANY;
	return kc;
}

static void add_point(uint64_t *pts, size_t *n, uint64_t v)
{
	pts[(*n)++] = v;
}

/* Every size where the policy's or a model's class can change. */
static size_t breakpoints(const struct mapctx *c, const struct gmodel *m, uint64_t lo, uint64_t hi,
                          uint64_t *pts)
{
	size_t n = 0;
	add_point(pts, &n, lo);
	add_point(pts, &n, hi);
	for (size_t i = 0; i < c->p->n_bands; i++) {
		if (i + 1 < c->p->n_bands && c->p->bands[i].max_bytes < UINT64_MAX)
			add_point(pts, &n, c->p->bands[i].max_bytes + 1);
		if (c->p->bands[i].kernel->same_code_as)
			add_point(pts, &n, c->p->bands[i].kernel->differs_from_bytes);
	}
	const struct gmodel *ms[2] = {m, c->cur_known ? &c->cur : NULL};
	for (int i = 0; i < 2; i++) {
		if (!ms[i])
			continue;
		if (ms[i]->rep < UINT64_MAX)
			add_point(pts, &n, ms[i]->rep + 1);
		add_point(pts, &n, ms[i]->nt);
		add_point(pts, &n, ms[i]->stop);
		if (ms[i]->op == PB_OP_MEMSET && ms[i]->two_vec)
			add_point(pts, &n, ms[i]->two_vec + 1);
	}
	qsort(pts, n, sizeof *pts, cmp_u64);
	return n;
}

/* Octaves of [lo, hi] (hi exclusive) where glibc's class under m differs
 * from the policy's. */
static double mismatch(const struct mapctx *c, const struct gmodel *m, uint64_t lo, uint64_t hi)
{
	uint64_t pts[3 * PB_POLICY_MAX_BANDS + 16];
	size_t n = breakpoints(c, m, lo, hi, pts);
	double sum = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t a = pts[i], b = pts[i + 1];
		if (a < lo || b > hi || a >= b)
			continue;
		enum gclass want = want_class(c, a);
		if (want != G_ANY && want != gmodel_class(m, a))
			sum += log2((double)b) - log2((double)a);
	}
	return sum;
}

/* Distance of a candidate from glibc's current values, in octaves. */
static double distance(const struct gmodel *a, const struct gmodel *b)
{
	double d = fabs(log2((double)a->rep + 1) - log2((double)b->rep + 1));
	if (a->op == PB_OP_MEMCPY)
		d += fabs(log2((double)a->nt) - log2((double)b->nt));
	return d;
}

static size_t add_candidate(uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return n;
	v[n] = x;
	return n + 1;
}

static void fmt_threshold(uint64_t v, char *buf, size_t len)
{
	if (v >= PB_GLIBC_NT_MAX)
		snprintf(buf, len, "0x%" PRIx64, v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void add_note(struct pb_glibc_tunables *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_note(struct pb_glibc_tunables *t, const char *fmt, ...)
{
	if (t->n_notes >= PB_GLIBC_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->n_notes], sizeof t->notes[0], fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < t->n_notes; i++)
		if (!strcmp(t->notes[i], t->notes[t->n_notes]))
			return; /* said already */
	t->n_notes++;
}

/* "up to 2 KiB", "2 KiB to 24 MiB", "24 MiB and up" for sizes [a, b]. */
static void fmt_band(uint64_t a, uint64_t b, char *buf, size_t len)
{
	char x[32], y[32];
	pb_format_bytes(x, sizeof x, a, PB_BYTES_PROSE);
	pb_format_bytes(y, sizeof y, b, PB_BYTES_PROSE);
	if (a == 0)
		snprintf(buf, len, "up to %s", y);
	else if (b == UINT64_MAX)
		snprintf(buf, len, "%s and up", x);
	else
		snprintf(buf, len, "%s to %s", x, y);
}

static const char *mismatch_reason(const struct mapctx *c, const struct gmodel *m, enum gclass want,
                                   enum gclass got, uint64_t a)
{
	bool cpy = m->op == PB_OP_MEMCPY;
	if (cpy && got == G_REP && !m->stop_follows_nt)
		return "above its threshold rep movsb runs up to its stop threshold, the L2 size "
		       "on "
		       "AMD, which is not tunable";
	if (cpy && want == G_VEC && got == G_REP)
		return "a vector band above rep movsb needs the rep movsb stop threshold, which is "
		       "not tunable (Intel: = x86_non_temporal_threshold; AMD: the L2 size)";
	if (cpy && want == G_REP && got != G_REP && !m->stop_follows_nt && a >= m->stop)
		return "rep movsb above its stop threshold (the L2 size on AMD) is not tunable";
	if (cpy && want == G_REP && got == G_VEC && c->rep_movsb_min && a <= c->rep_movsb_min)
		return "glibc ignores x86_rep_movsb_threshold at or below 8 x its vector size";
	if (!cpy && want == G_REP && m->two_vec && a <= m->two_vec)
		return "glibc memset uses vector stores up to 2 x its vector size";
	if (want == G_NT && a <= PB_GLIBC_NT_MIN)
		return "glibc ignores x86_non_temporal_threshold <= 16448 (0x4040)";
	if (cpy && got == G_NT)
		return "glibc uses non-temporal stores for every size above its threshold";
	if (cpy && want == G_NT)
		return "glibc uses non-temporal stores only above every other band";
	if (want == G_REP)
		return cpy ? "glibc uses rep movsb in one band only, above its threshold"
		           : "glibc uses rep stosb for every size above one threshold";
	return cpy ? "glibc's bands are vector, rep movsb, non-temporal, in that order"
	           : "glibc uses rep stosb for every size above one threshold";
}

void pb_glibc_map_policy(const struct pb_policy *p, const struct pb_glibc_thresholds *cur,
                         uint64_t range_lo, uint64_t range_hi, struct pb_glibc_tunables *out)
{
	memset(out, 0, sizeof *out);
	out->op = p->op;
	bool cpy = p->op == PB_OP_MEMCPY;
	bool known = cur && cur->known;

	struct mapctx c = {.p = p, .cur_known = known};
	c.base.op = p->op;
	c.base.stop_follows_nt =
	    !known || cur->rep_movsb_stop == 0 || cur->rep_movsb_stop == cur->non_temporal;
	c.base.stop = c.base.stop_follows_nt ? 0 : cur->rep_movsb_stop;
	c.rep_movsb_min = known ? cur->rep_movsb_min : 0;
	c.base.two_vec = known && cur->rep_movsb_min ? cur->rep_movsb_min / 4 : 0;
	c.base.nt = PB_GLIBC_NT_MAX;
	if (known) {
		c.cur = c.base;
		c.cur.rep = cpy ? cur->rep_movsb : cur->rep_stosb;
		c.cur.nt = cpy ? cur->non_temporal : PB_GLIBC_NT_MAX;
		if (c.cur.nt == 0)
			c.cur.nt = PB_GLIBC_NT_MAX;
	}

	uint64_t max_bound = 0;
	for (size_t i = 0; i + 1 < p->n_bands; i++)
		if (p->bands[i].max_bytes > max_bound)
			max_bound = p->bands[i].max_bytes;
	if (range_lo == 0 && range_hi == 0) {
		range_lo = 64;
		range_hi = max_bound < (UINT64_C(1) << 58) ? 2 * max_bound : max_bound;
		if (range_hi < (UINT64_C(64) << 20))
			range_hi = UINT64_C(64) << 20;
	}
	if (range_lo == 0)
		range_lo = 1;
	if (range_hi < range_lo)
		range_hi = range_lo;
	uint64_t top = range_hi + 1, far = UINT64_C(1) << 60;
	if (far < top)
		far = top;

	/* Candidate values. The lowest rep movsb threshold glibc accepts is
	 * min + 1; unknown min: 513 works whatever glibc's vector size. */
	/* The lowest threshold glibc accepts: for rep movsb 8 x VEC_SIZE + 1;
	 * with VEC_SIZE unknown, 513 works for all of them (the "rep movsb
	 * from the start" candidate) and 129 is the least any accepts. */
	uint64_t rep_min = cpy ? (c.rep_movsb_min ? c.rep_movsb_min + 1 : 513) : 1;
	uint64_t rep_floor = cpy ? (c.rep_movsb_min ? c.rep_movsb_min + 1 : 129) : 1;
	uint64_t reps[2 * PB_POLICY_MAX_BANDS + 4], nts[2 * PB_POLICY_MAX_BANDS + 4];
	size_t nrep = 0, nnt = 0;
	nrep = add_candidate(reps, nrep, rep_min);
	nrep = add_candidate(reps, nrep, PB_GLIBC_NT_MAX);
	nnt = add_candidate(nts, nnt, PB_GLIBC_NT_MAX);
	if (known) {
		nrep = add_candidate(reps, nrep, c.cur.rep);
		if (cpy)
			nnt = add_candidate(nts, nnt, c.cur.nt);
	}
	for (size_t i = 0; i + 1 < p->n_bands; i++) {
		uint64_t b = p->bands[i].max_bytes;
		uint64_t r = b < rep_floor ? rep_floor : b > PB_GLIBC_NT_MAX ? PB_GLIBC_NT_MAX : b;
		nrep = add_candidate(reps, nrep, r);
		uint64_t n = b >= PB_GLIBC_NT_MAX ? PB_GLIBC_NT_MAX : b + 1;
		if (n <= PB_GLIBC_NT_MIN)
			n = PB_GLIBC_NT_MIN + 1;
		if (cpy)
			nnt = add_candidate(nts, nnt, n);
	}
	/* Where a band's kernel starts running its own code (avx512_nt:
	 * streams from a line, 64 B, on) is a switch of classes too. */
	for (size_t i = 0; i < p->n_bands; i++) {
		size_t from = p->bands[i].kernel->differs_from_bytes;
		if (!p->bands[i].kernel->same_code_as || from < 2)
			continue;
		nrep = add_candidate(reps, nrep, from - 1 < rep_floor ? rep_floor : from - 1);
		if (cpy && from > PB_GLIBC_NT_MIN)
			nnt = add_candidate(nts, nnt, from);
	}

	struct gmodel best = c.base;
	double best_in = INFINITY, best_far = INFINITY, best_dist = INFINITY;
	for (size_t i = 0; i < nrep; i++) {
		for (size_t j = 0; j < nnt; j++) {
			struct gmodel m = c.base;
			m.rep = reps[i];
			m.nt = nts[j];
			double in = mismatch(&c, &m, range_lo, top);
			double fa = mismatch(&c, &m, range_lo, far);
			double di = known ? distance(&m, &c.cur) : 0;
			const double eps = 1e-9;
			bool better =
			    in < best_in - eps ||
			    (in < best_in + eps &&
			     (fa < best_far - eps ||
			      (fa < best_far + eps &&
			       (di < best_dist - eps ||
			        (di < best_dist + eps &&
			         (m.rep < best.rep || (m.rep == best.rep && m.nt < best.nt)))))));
			if (better) {
				best = m;
				best_in = in;
				best_far = fa;
				best_dist = di;
			}
		}
	}
	out->mismatch_octaves = best_in;
	{
		uint64_t pts[3 * PB_POLICY_MAX_BANDS + 16];
		size_t n = breakpoints(&c, &best, range_lo, top, pts);
		for (size_t i = 0; i + 1 < n; i++) {
			uint64_t a = pts[i], b = pts[i + 1];
			if (a < range_lo || b > top || a >= b)
				continue;
			const struct pb_kernel *k =
			    pb_kernel_code_at(pb_policy_pick(p, (size_t)a), (size_t)a);
			if (kernel_class(k) == G_NONE)
				out->no_path_octaves += log2((double)b) - log2((double)a);
		}
	}
	char a[32], b[32];
	fmt_threshold(best.rep, a, sizeof a);
	if (cpy) {
		out->rep_movsb = best.rep;
		out->non_temporal = best.nt;
		fmt_threshold(best.nt, b, sizeof b);
		snprintf(out->line, sizeof out->line,
		         "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=%s:glibc.cpu.x86_non_"
		         "temporal_threshold=%s",
		         a, b);
	} else {
		out->rep_stosb = best.rep;
		snprintf(out->line, sizeof out->line,
		         "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=%s", a);
	}

	/* What glibc cannot express: kernels it has no path for, then sizes
	 * where its bands still differ from the policy. */
	char band[96];
	const char *vec_kernel = NULL;
	bool mixed_vec = false, has_libc = false;
	for (size_t i = 0; i < p->n_bands; i++) {
		uint64_t lo = i == 0 ? 0 : p->bands[i - 1].max_bytes + 1;
		/* A band wholly below where its kernel's own code starts runs
		 * another row's code: that row's path is what glibc must match. */
		const struct pb_kernel *k = p->bands[i].kernel;
		const struct pb_kernel *code =
		    p->bands[i].max_bytes < SIZE_MAX
		        ? pb_kernel_code_at(k, (size_t)p->bands[i].max_bytes)
		        : k;
		enum gclass kc = kernel_class(code);
		fmt_band(lo, p->bands[i].max_bytes, band, sizeof band);
		if (code->glibc_note)
			add_note(out, "%s (%s): %s", k->name, band, code->glibc_note);
		else if (kc == G_NONE)
			add_note(out, "%s (%s): glibc has no such path", k->name, band);
		if (kc == G_VEC && !code->glibc_note) {
			if (vec_kernel && strcmp(vec_kernel, k->name))
				mixed_vec = true;
			vec_kernel = k->name;
		}
		has_libc |= kc == G_ANY;
	}
	if (mixed_vec)
		add_note(out,
		         "bands of different vector widths: glibc uses one width for every size "
		         "(chosen at start-up; glibc.cpu.hwcaps can change it)");
	if (has_libc && !known)
		add_note(out,
		         "glibc's current thresholds are unknown: 'libc' bands were left free");

	uint64_t pts[3 * PB_POLICY_MAX_BANDS + 16];
	size_t n = breakpoints(&c, &best, range_lo, top, pts);
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t s = pts[i];
		if (s < range_lo || pts[i + 1] > top || s >= pts[i + 1])
			continue;
		enum gclass want = want_class(&c, s), got = gmodel_class(&best, s);
		if (want == G_ANY || want == got)
			continue;
		/* Extend over following segments with the same disagreement. */
		uint64_t e = pts[i + 1];
		const struct pb_kernel *k = pb_policy_pick(p, (size_t)s);
		const char *why = mismatch_reason(&c, &best, want, got, s);
		while (i + 2 < n && pts[i + 2] <= top && pts[i + 1] < pts[i + 2] &&
		       want_class(&c, pts[i + 1]) == want &&
		       gmodel_class(&best, pts[i + 1]) == got &&
		       pb_policy_pick(p, (size_t)pts[i + 1]) == k &&
		       mismatch_reason(&c, &best, want, got, pts[i + 1]) == why) {
			i++;
			e = pts[i + 1];
		}
		fmt_band(s, e - 1, band, sizeof band);
		const char *what = gclass_words[got];
		if (!cpy && got == G_REP)
			what = "rep stosb";
		add_note(out, "%s (%s): glibc would use %s there: %s", k->name, band, what, why);
	}
	if (cpy && (!known || cur->rep_movsb_stop == 0))
		add_note(out,
		         "rep movsb stop threshold unknown: taken as x86_non_temporal_threshold "
		         "(Intel); on AMD it is the L2 size");
	if (cpy && best.rep < PB_GLIBC_NT_MAX && best.rep <= 512 && !(known && cur->rep_movsb_min))
		add_note(out,
		         "glibc ignores x86_rep_movsb_threshold at or below 8 x its vector size "
		         "(128, 256 or 512): see ld.so --list-tunables");
}

/* ---- compute --------------------------------------------------------------- */

int pb_breakeven_compute(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                         const struct pb_glibc_thresholds *gt, struct pb_breakeven *out)
{
	return pb_breakeven_compute_gain(r, op, st, gt, DEFAULT_MIN_GAIN, out);
}

int pb_breakeven_compute_gain(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                              const struct pb_glibc_thresholds *gt, double min_gain,
                              struct pb_breakeven *out)
{
	struct pb_gain_rule rule = {.small = min_gain, .large = min_gain, .large_from_bytes = 0};
	return pb_breakeven_compute_rule(r, op, st, gt, &rule, out);
}

int pb_breakeven_compute_rule(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                              const struct pb_glibc_thresholds *gt, const struct pb_gain_rule *rule,
                              struct pb_breakeven *out)
{
	struct grid g;
	memset(out, 0, sizeof *out);
	int rc = grid_build(&g, r, op, st);
	if (rc <= 0)
		return rc;
	out->op = op;
	out->state = st;
	/* the rule as applied: no gain below the one margin (a band is never
	 * kept for a difference the margin calls none), so that its text says
	 * what decided */
	out->rule = *rule;
	out->rule.small = fmax(rule->small, pb_equivalence());
	out->rule.large = fmax(rule->large, pb_equivalence());
	rule = &out->rule;
	out->n_sizes = g.ns;
	out->min_size = g.sizes[0];
	out->max_size = g.sizes[g.ns - 1];

	/* Leading kernels: fastest (median) at a size at least, then libc. */
	bool *lead = calloc(g.nk, sizeof *lead);
	size_t *idx = malloc(g.ns * sizeof *idx);
	out->leading = malloc(g.nk * sizeof *out->leading);
	struct crossings cx = {0};
	if (!lead || !idx || !out->leading)
		goto oom;
	for (size_t j = 0; j < g.ns; j++)
		lead[fastest_at(&g, j)] = true;
	for (size_t k = 0; k < g.nk; k++)
		if (!strcmp(g.kernels[k]->name, "libc"))
			lead[k] = true;
	for (size_t k = 0; k < g.nk; k++)
		if (lead[k])
			out->leading[out->n_leading++] = g.kernels[k];

	for (size_t a = 0; a < g.nk; a++) {
		for (size_t b = a + 1; b < g.nk; b++) {
			if (!lead[a] || !lead[b])
				continue;
			size_t m = 0;
			for (size_t j = 0; j < g.ns; j++)
				if (g.has[AT(&g, a, j)] && g.has[AT(&g, b, j)])
					idx[m++] = j;
			if (m >= 2 && pair_crossings(&g, a, b, idx, m, &cx) != 0)
				goto fail;
		}
	}
	if (cx.n > 1)
		qsort(cx.v, cx.n, sizeof *cx.v, cmp_crossing);
	out->crossings = cx.v;
	out->n_crossings = cx.n;
	cx.v = NULL;

	out->switches = calloc(PB_POLICY_MAX_BANDS, sizeof *out->switches);
	if (!out->switches)
		goto oom;
	if (recommend(&g, op, rule, &out->policy, &out->policy_simplified, out->switches,
	              out->peers) != 0)
		goto fail;
	out->n_switches = out->policy.n_bands - 1;
	if (gt) {
		out->have_glibc = true;
		out->glibc_now = *gt;
		pb_glibc_map_policy(&out->policy, gt, out->min_size, out->max_size, &out->glibc);
	}
	free(lead);
	free(idx);
	grid_free(&g);
	return 1;
oom:
	pb_fail("out of memory computing break-even points");
fail:
	free(cx.v);
	free(lead);
	free(idx);
	grid_free(&g);
	pb_breakeven_free(out);
	return -1;
}

void pb_breakeven_free(struct pb_breakeven *b)
{
	free(b->leading);
	free(b->crossings);
	free(b->switches);
	b->leading = NULL;
	b->crossings = NULL;
	b->switches = NULL;
	b->n_leading = b->n_crossings = b->n_switches = 0;
}

/* ---- text ----------------------------------------------------------------- */

/* "between 1.7 and 2.2 KiB", "from below 64 B to 2.2 KiB", ... */
static void fmt_interval(const struct pb_crossing *c, char *buf, size_t len)
{
	char lo[32], hi[32];
	pb_format_bytes(lo, sizeof lo, c->lo_bytes, PB_BYTES_PROSE);
	pb_format_bytes(hi, sizeof hi, c->hi_bytes, PB_BYTES_PROSE);
	const char *ul = strchr(lo, ' '), *uh = strchr(hi, ' ');
	if (c->lo_open || c->hi_open)
		snprintf(buf, len, "from %s%s to %s%s", c->lo_open ? "below " : "", lo,
		         c->hi_open ? "beyond " : "", hi);
	else if (!strcmp(lo, hi))
		snprintf(buf, len, "around %s", lo); /* narrower than the rounding */
	else if (ul && uh && !strcmp(ul, uh))
		snprintf(buf, len, "between %.*s and %s", (int)(ul - lo), lo, hi);
	else
		snprintf(buf, len, "between %s and %s", lo, hi);
}

static void fmt_value(uint64_t v, char *buf, size_t len)
{
	fmt_threshold(v, buf, len);
	if (v < PB_GLIBC_NT_MAX) {
		char h[32];
		pb_format_bytes(h, sizeof h, v, PB_BYTES_PROSE);
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, " (%s)", h);
	}
}

void pb_breakeven_switch_text(const struct pb_crossing *x, char *out, size_t out_len)
{
	char at[32], from[32], iv[256];
	pb_format_bytes(at, sizeof at, x->bound_bytes, PB_BYTES_PROSE);
	pb_format_bytes(from, sizeof from, x->moved_from_bytes, PB_BYTES_PROSE);
	size_t n = 0;
	iv[0] = '\0';
	if (x->bound_how == PB_BOUND_BANDS)
		n += (size_t)snprintf(iv, sizeof iv,
		                      "no crossing of their own: where their "
		                      "bands meet; ");
	else if (x->bound_how == PB_BOUND_CODE)
		n += (size_t)snprintf(
		    iv, sizeof iv,
		    "moved up from %s, the crossing: %s runs %s's "
		    "code up to %s; ",
		    from, x->above->name,
		    pb_kernel_code_at(x->above, (size_t)x->moved_from_bytes)->name, at);
	else if (x->bound_how == PB_BOUND_ASCENDING)
		n += (size_t)snprintf(iv, sizeof iv,
		                      "moved up from %s, below the switch before it; ", from);
	if (x->lo_open && !x->hi_open && x->lo_bytes == x->hi_bytes) {
		/* never compared below the switch: nothing undecided */
		char first[32];
		pb_format_bytes(first, sizeof first, x->hi_bytes, PB_BYTES_PROSE);
		snprintf(iv + n, sizeof iv - n, "first compared at %s", first);
	} else if (x->undecided_measured) {
		/* Where the bound is the crossing, it lies in the undecided region
		 * (a median crossing lies where neither is faster); only
		 * interpolation and rounding may put it a byte outside. */
		struct pb_crossing shown = *x;
		if (x->bound_how == PB_BOUND_CROSSING) {
			if (!shown.lo_open && shown.lo_bytes > (double)x->bound_bytes)
				shown.lo_bytes = (double)x->bound_bytes;
			if (!shown.hi_open && shown.hi_bytes < (double)x->bound_bytes + 1)
				shown.hi_bytes = (double)x->bound_bytes + 1;
		}
		snprintf(iv + n, sizeof iv - n, "neither faster ");
		n = strlen(iv);
		fmt_interval(&shown, iv + n, sizeof iv - n);
	} else if (x->bound_how == PB_BOUND_CROSSING) {
		struct pb_crossing around = {.lo_bytes = (double)x->bracket_lo,
		                             .hi_bytes = (double)x->bracket_hi};
		snprintf(iv + n, sizeof iv - n, "one faster at every measured size; crossing ");
		n = strlen(iv);
		fmt_interval(&around, iv + n, sizeof iv - n);
	} else {
		snprintf(iv + n, sizeof iv - n, "one faster at every measured size");
	}
	const struct pb_kernel *code = pb_kernel_code_at(
	    x->above, (size_t)(x->bound_bytes < SIZE_MAX ? x->bound_bytes : SIZE_MAX));
	if (code != x->above && x->bound_how != PB_BOUND_CODE) {
		n = strlen(iv);
		snprintf(iv + n, sizeof iv - n, "; up to %s %s runs %s's code", at, x->above->name,
		         code->name);
	}
	int len = snprintf(out, out_len, "%s -> %s above %s (%s)", x->below->name, x->above->name,
	                   at, iv);
	if (x->flips > 1 && len >= 0 && (size_t)len < out_len)
		snprintf(out + len, out_len - (size_t)len, "; the medians crossed %u times in it",
		         x->flips);
}

void pb_breakeven_peers_text(const struct pb_breakeven *b, char *out, size_t out_len)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < b->policy.n_bands && len < out_len; i++) {
		if (!b->peers[i].n)
			continue;
		const struct pb_policy_band *band = &b->policy.bands[i];
		int w =
		    i + 1 < b->policy.n_bands
		        ? snprintf(out + len, out_len - len, "%s%s<=%llu:", len ? "; " : "",
		                   band->kernel->name, (unsigned long long)band->max_bytes)
		        : snprintf(out + len, out_len - len,
		                   "%s%s (the last band):", len ? "; " : "", band->kernel->name);
		len += w > 0 ? (size_t)w : 0;
		for (size_t k = 0; k < b->peers[i].n && len < out_len; k++) {
			w = snprintf(out + len, out_len - len, "%s %s", k ? "," : "",
			             b->peers[i].kernels[k]->name);
			len += w > 0 ? (size_t)w : 0;
		}
	}
	if (len >= out_len && out_len > 0)
		out[out_len - 1] = '\0';
}

void pb_breakeven_print(FILE *f, const struct pb_breakeven *b)
{
	char line[512], a[64], c[64];
	fprintf(f, "\nbreak-even, %s, %s (medians of ticks/call and their 95%% CIs)\n",
	        pb_op_name(b->op), pb_cache_state_name(b->state));
	int len = snprintf(line, sizeof line, "leading kernels:");
	for (size_t i = 0; i < b->n_leading && len < (int)sizeof line; i++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %s", b->leading[i]->name);
	pb_print_wrapped_at(f, 0, 17, line);
	pb_format_bytes(a, sizeof a, b->min_size, PB_BYTES_PROSE);
	pb_format_bytes(c, sizeof c, b->max_size, PB_BYTES_PROSE);
	fprintf(f, "%zu size%s measured, %s to %s\n", b->n_sizes, b->n_sizes == 1 ? "" : "s", a, c);

	fprintf(f,
	        "where the recommended policy switches kernels (faster below -> faster\n"
	        "above; in brackets the sizes where neither is faster beyond +-%g%%, not\n"
	        "a confidence interval of the switch):\n",
	        100 * pb_equivalence());
	for (size_t i = 0; i < b->n_switches; i++) {
		pb_breakeven_switch_text(&b->switches[i], line, sizeof line);
		pb_print_wrapped_at(f, 2, 4, line);
	}
	if (b->n_switches == 0)
		fprintf(f, "  none: one kernel serves every size\n");
	if (b->n_crossings > 0)
		fprintf(f,
		        "  (every crossing of two leading kernels, %zu, is in the result file)\n",
		        b->n_crossings);

	char policy[PB_POLICY_TEXT_MAX];
	pb_policy_format(&b->policy, policy, sizeof policy);
	char gain[96];
	if (b->rule.small == b->rule.large || b->rule.large_from_bytes == 0)
		snprintf(gain, sizeof gain, "%g%%", 100 * b->rule.small);
	else {
		char from[32];
		pb_format_bytes(from, sizeof from, (double)b->rule.large_from_bytes,
		                PB_BYTES_EXACT);
		snprintf(gain, sizeof gain, "%g%% (from %s on %g%%)", 100 * b->rule.small, from,
		         100 * b->rule.large);
	}
	char head[256];
	snprintf(head, sizeof head,
	         "recommended policy (lower envelope of the medians; a band is kept only "
	         "where its kernel beats a neighbour's by over %s by the one rule):",
	         gain);
	pb_print_wrapped_at(f, 0, 0, head);
	/* Long policies break after commas; a short one stays one line. */
	const char *p = policy;
	const char *quote = "'";
	while (strlen(p) > PB_TEXT_WIDTH - 4) {
		const char *cut = p + PB_TEXT_WIDTH - 5;
		while (cut > p && *cut != ',')
			cut--;
		if (cut == p)
			break;
		fprintf(f, "  %s%.*s\n", quote, (int)(cut - p + 1), p);
		quote = "";
		p = cut + 1;
	}
	fprintf(f, "  %s%s'\n", quote, p);
	if (b->policy_simplified)
		fprintf(f, "  (merged down to %d bands: some distinguishable bands were dropped)\n",
		        PB_POLICY_MAX_BANDS);
	char peers[512];
	pb_breakeven_peers_text(b, peers, sizeof peers);
	if (peers[0]) {
		char text[768];
		snprintf(text, sizeof text,
		         "cannot be told apart from the band's kernel (not slower by the one "
		         "rule over its sizes; of those within the keep rule's gain by the "
		         "medians, the first in catalogue order serves it): %s",
		         peers);
		pb_print_wrapped_at(f, 2, 4, text);
	}

	if (!b->have_glibc)
		return;
	const struct pb_glibc_tunables *t = &b->glibc;
	const struct pb_glibc_thresholds *now = &b->glibc_now;
	struct row {
		const char *name;
		uint64_t v, now;
	} rows[2];
	size_t nrows = 0;
	if (b->op == PB_OP_MEMCPY) {
		rows[nrows++] =
		    (struct row){"x86_rep_movsb_threshold", t->rep_movsb, now->rep_movsb};
		rows[nrows++] =
		    (struct row){"x86_non_temporal_threshold", t->non_temporal, now->non_temporal};
	} else {
		rows[nrows++] =
		    (struct row){"x86_rep_stosb_threshold", t->rep_stosb, now->rep_stosb};
	}
	fprintf(f, "glibc 2.36 x86-64 tunables closest to it:\n");
	fprintf(f, "  %-26s  %-24s %s\n", "tunable", "for this policy", "glibc now");
	for (size_t i = 0; i < nrows; i++) {
		char v[64], n[64];
		fmt_value(rows[i].v, v, sizeof v);
		if (now->known)
			fmt_value(rows[i].now, n, sizeof n);
		else
			snprintf(n, sizeof n, "unknown");
		fprintf(f, "  %-26s  %-24s %s\n", rows[i].name, v, n);
	}
	/* The line splits with a backslash-newline: pasted into a shell it is
	 * one word again. */
	const char *colon = strchr(t->line, ':');
	if (colon)
		fprintf(f, "  %.*s\\\n%s\n", (int)(colon - t->line + 1), t->line, colon + 1);
	else
		fprintf(f, "  %s\n", t->line);
	len = snprintf(line, sizeof line,
	               "with these, glibc runs another kind of path (vector loop, rep, "
	               "non-temporal) than the policy's kernel over %.1f of the %.1f octaves "
	               "measured",
	               t->mismatch_octaves,
	               log2((double)b->max_size + 1) - log2((double)b->min_size));
	if (t->no_path_octaves > 0.05 && len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len,
		         "; not counted: %.1f octaves served by kernels glibc has no path for "
		         "(below)",
		         t->no_path_octaves);
	pb_print_wrapped_at(f, 2, 2, line);
	if (t->n_notes)
		fprintf(f, "  what glibc cannot express, or not exactly:\n");
	for (size_t i = 0; i < t->n_notes; i++) {
		snprintf(line, sizeof line, "- %s", t->notes[i]);
		pb_print_wrapped_at(f, 2, 4, line);
	}
}

void pb_print_breakeven(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, const struct pb_glibc_thresholds *g)
{
	struct pb_breakeven b;
	int rc = pb_breakeven_compute(r, op, st, g, &b);
	if (rc < 0) {
		fprintf(f, "\nbreak-even, %s, %s: %s\n", pb_op_name(op), pb_cache_state_name(st),
		        pb_error());
		return;
	}
	if (rc == 0)
		return;
	pb_breakeven_print(f, &b);
	pb_breakeven_free(&b);
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jsize(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v);
}
/* The crossings (or the policy's switches, with their bound_bytes) as a
 * JSON array of objects (docs/results-schema.md "breakeven"). */
static json_t *crossings_json(const struct pb_crossing *cs, size_t n, bool with_bound)
{
	json_t *xs = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct pb_crossing *c = &cs[i];
		json_t *x = json_object();
		json_object_set_new(x, "below", json_string(c->below->name));
		json_object_set_new(x, "above", json_string(c->above->name));
		if (with_bound) {
			static const char *const how[] = {
			    [PB_BOUND_CROSSING] = "crossing",
			    [PB_BOUND_BANDS] = "bands_meet",
			    [PB_BOUND_CODE] = "same_code",
			    [PB_BOUND_ASCENDING] = "ascending",
			};
			json_object_set_new(x, "bound_bytes", jsize(c->bound_bytes));
			json_object_set_new(x, "bound_from", json_string(how[c->bound_how]));
			if (c->bound_how == PB_BOUND_CODE || c->bound_how == PB_BOUND_ASCENDING)
				json_object_set_new(x, "moved_from_bytes",
				                    jsize(c->moved_from_bytes));
			json_object_set_new(x, "ci_overlap_measured",
			                    json_boolean(c->undecided_measured));
		}
		json_object_set_new(x, "size_bytes", jnum(c->size_bytes));
		json_object_set_new(x, "bracket_bytes",
		                    json_pack("[o,o]", jsize(c->bracket_lo), jsize(c->bracket_hi)));
		json_object_set_new(x, "ci_overlap_bytes",
		                    json_pack("[o,o]", jnum(c->lo_bytes), jnum(c->hi_bytes)));
		json_object_set_new(x, "ci_overlap_open",
		                    json_pack("[b,b]", c->lo_open, c->hi_open));
		json_object_set_new(x, "flips", json_integer(c->flips));
		json_array_append_new(xs, x);
	}
	return xs;
}

json_t *pb_breakeven_to_json(const struct pb_breakeven *b)
{
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "op", json_string(pb_op_name(b->op)));
	json_object_set_new(o, "cache_state", json_string(pb_cache_state_name(b->state)));
	json_object_set_new(o, "method", json_string("docs/breakeven.md"));
	json_object_set_new(o, "min_size_bytes", jsize(b->min_size));
	json_object_set_new(o, "max_size_bytes", jsize(b->max_size));
	json_t *lead = json_array();
	for (size_t i = 0; i < b->n_leading; i++)
		json_array_append_new(lead, json_string(b->leading[i]->name));
	json_object_set_new(o, "leading_kernels", lead);

	json_object_set_new(o, "crossings", crossings_json(b->crossings, b->n_crossings, false));
	json_object_set_new(o, "switches", crossings_json(b->switches, b->n_switches, true));

	char policy[PB_POLICY_TEXT_MAX];
	pb_policy_format(&b->policy, policy, sizeof policy);
	json_object_set_new(o, "policy", json_string(policy));
	json_object_set_new(o, "policy_simplified", json_boolean(b->policy_simplified));
	json_t *peers = json_array();
	for (size_t i = 0; i < b->policy.n_bands; i++) {
		json_t *one = json_array();
		for (size_t k = 0; k < b->peers[i].n; k++)
			json_array_append_new(one, json_string(b->peers[i].kernels[k]->name));
		json_array_append_new(peers, one);
	}
	json_object_set_new(o, "policy_peers", peers);

	if (b->have_glibc) {
		const struct pb_glibc_tunables *t = &b->glibc;
		const struct pb_glibc_thresholds *now = &b->glibc_now;
		json_t *gl = json_object();
		json_t *rec = json_object(), *cur = now->known ? json_object() : json_null();
		json_object_set_new(gl, "model", json_string("glibc 2.36 x86-64"));
		if (b->op == PB_OP_MEMCPY) {
			json_object_set_new(rec, "x86_rep_movsb_threshold", jsize(t->rep_movsb));
			json_object_set_new(rec, "x86_non_temporal_threshold",
			                    jsize(t->non_temporal));
			if (now->known) {
				json_object_set_new(cur, "x86_rep_movsb_threshold",
				                    jsize(now->rep_movsb));
				json_object_set_new(cur, "x86_non_temporal_threshold",
				                    jsize(now->non_temporal));
				json_object_set_new(cur, "rep_movsb_stop_threshold",
				                    now->rep_movsb_stop ? jsize(now->rep_movsb_stop)
				                                        : json_null());
			}
		} else {
			json_object_set_new(rec, "x86_rep_stosb_threshold", jsize(t->rep_stosb));
			if (now->known)
				json_object_set_new(cur, "x86_rep_stosb_threshold",
				                    jsize(now->rep_stosb));
		}
		json_object_set_new(gl, "tunables", rec);
		json_object_set_new(gl, "current", cur);
		json_object_set_new(gl, "env", json_string(t->line));
		json_object_set_new(gl, "mismatch_octaves", jnum(t->mismatch_octaves));
		json_object_set_new(gl, "no_path_octaves", jnum(t->no_path_octaves));
		json_t *notes = json_array();
		for (size_t i = 0; i < t->n_notes; i++)
			json_array_append_new(notes, json_string(t->notes[i]));
		json_object_set_new(gl, "not_expressible", notes);
		json_object_set_new(o, "glibc", gl);
	}
	return o;
}

json_t *pb_breakeven_json(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                          const struct pb_glibc_thresholds *g)
{
	struct pb_breakeven b;
	if (pb_breakeven_compute(r, op, st, g, &b) <= 0)
		return NULL;
	json_t *o = pb_breakeven_to_json(&b);
	pb_breakeven_free(&b);
	return o;
}

void pb_glibc_thresholds_read(struct pb_glibc_thresholds *out)
{
	struct pb_glibc_info gi;
	pb_glibc_read(&gi);
	const struct pb_glibc_diag *gd = &gi.diag;
	memset(out, 0, sizeof *out);
	out->known = gd->known[PB_GLIBC_REP_MOVSB_THRESHOLD] &&
	             gd->known[PB_GLIBC_REP_STOSB_THRESHOLD] &&
	             gd->known[PB_GLIBC_NON_TEMPORAL_THRESHOLD];
	out->rep_movsb = gd->value[PB_GLIBC_REP_MOVSB_THRESHOLD];
	out->rep_stosb = gd->value[PB_GLIBC_REP_STOSB_THRESHOLD];
	out->non_temporal = gd->value[PB_GLIBC_NON_TEMPORAL_THRESHOLD];
	out->rep_movsb_stop = gd->rep_movsb_stop;
	out->rep_movsb_min = gd->rep_movsb_min;
}
