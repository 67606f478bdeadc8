/* breakeven.c - crossings of kernels and the recommended policy
 * (include/primbench/breakeven.h, docs/breakeven.md); glibc's model is
 * glibc_model.c, the text and JSON report's breakeven_text.c.
 *
 * Everything works on x = log2(size) and on logarithms of times: a ratio
 * of two kernels' times is a difference of logs, and a crossing is where
 * that difference, interpolated linearly in x between two measured sizes,
 * is zero.
 */
#include "primbench/breakeven.h"

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
