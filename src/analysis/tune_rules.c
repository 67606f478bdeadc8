/* tune_rules.c - the rules `primbench tune` decides by
 * (include/primbench/tune_rules.h): the policies' merge and ranges, two
 * states combined, auto's inline kernel at small sizes, the no-loss rule
 * against libc, the winner on a distribution and the check's verdicts.
 * Nothing here measures or prints: the tune suite (src/suites/tune.c)
 * measures, cli/cmd_tune.c prints. */
#include "primbench/tune_rules.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/auto.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/judge.h"

/* Joins neighbours of b[0..n) with the same kernel (the upper one's bound
 * stays); returns the new count. */
static size_t join_equal(struct pb_policy_band *b, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && b[m - 1].kernel == b[i].kernel)
			b[m - 1].max_bytes = b[i].max_bytes;
		else
			b[m++] = b[i];
	}
	return m;
}

void pb_policy_join_equal(struct pb_policy *p)
{
	p->n_bands = join_equal(p->bands, p->n_bands);
}

int pb_tune_merge(const struct pb_policy *hot, const struct pb_policy *dram, uint64_t split_bytes,
                  struct pb_policy *out)
{
	if (split_bytes == 0)
		return pb_fail("tune: the split size must be positive");
	if (dram && dram->op != hot->op)
		return pb_fail("tune: a %s policy and a %s policy cannot be merged",
		               pb_op_name(hot->op), pb_op_name(dram->op));
	/* Up to 2 x 16 bands before joining: the hot bands up to the split,
	 * the dram bands above it. */
	struct pb_policy_band b[2 * PB_POLICY_MAX_BANDS];
	size_t n = 0;
	for (size_t i = 0; i < hot->n_bands; i++) {
		b[n] = hot->bands[i];
		if (dram && b[n].max_bytes >= split_bytes) {
			b[n++].max_bytes = split_bytes;
			break;
		}
		n++;
	}
	for (size_t i = 0; dram && i < dram->n_bands; i++)
		if (dram->bands[i].max_bytes > split_bytes)
			b[n++] = dram->bands[i];
	/* Join equal neighbours; then, while too many, drop the band with the
	 * fewest octaves (the next one takes its sizes) and join again. */
	size_t m = join_equal(b, n);
	while (m > PB_POLICY_MAX_BANDS) {
		size_t best = 0;
		double best_w = 1e300;
		for (size_t i = 0; i + 1 < m; i++) {
			double lo = i ? (double)b[i - 1].max_bytes : 1.0,
			       hi = (double)b[i].max_bytes;
			double w = hi / (lo > 0 ? lo : 1.0);
			if (w < best_w)
				best_w = w, best = i;
		}
		for (size_t i = best; i + 1 < m; i++)
			b[i] = b[i + 1];
		m = join_equal(b, m - 1);
	}
	out->op = hot->op;
	out->n_bands = m;
	for (size_t i = 0; i < m; i++)
		out->bands[i] = b[i];
	out->bands[m - 1].max_bytes = UINT64_MAX;
	return 0;
}

int pb_tune_set_range(struct pb_policy *p, uint64_t lo_bytes, uint64_t hi_bytes,
                      const struct pb_kernel *k)
{
	if (lo_bytes > hi_bytes)
		return pb_fail("tune: an empty size range (%llu..%llu)",
		               (unsigned long long)lo_bytes, (unsigned long long)hi_bytes);
	if (k->op != p->op)
		return pb_fail("tune: a %s kernel in a %s policy", pb_op_name(k->op),
		               pb_op_name(p->op));
	/* at most every old band, cut in two around the range, plus the range */
	struct pb_policy_band b[2 * PB_POLICY_MAX_BANDS + 1];
	size_t n = 0;
	uint64_t from = 0; /* the first size of band i */
	bool placed = false;
	for (size_t i = 0; i < p->n_bands; from = p->bands[i].max_bytes + 1, i++) {
		const struct pb_policy_band *o = &p->bands[i];
		if (from < lo_bytes) /* the part below the range */
			b[n++] = (struct pb_policy_band){
			    .max_bytes = o->max_bytes < lo_bytes - 1 ? o->max_bytes : lo_bytes - 1,
			    .kernel = o->kernel};
		if (!placed && o->max_bytes >= lo_bytes) {
			b[n++] = (struct pb_policy_band){.max_bytes = hi_bytes, .kernel = k};
			placed = true;
		}
		if (o->max_bytes > hi_bytes) /* the part above it */
			b[n++] = *o;
		if (o->max_bytes == UINT64_MAX)
			break;
	}
	n = join_equal(b, n);
	if (n > PB_POLICY_MAX_BANDS)
		return pb_fail("tune: %zu bands (at most %d)", n, PB_POLICY_MAX_BANDS);
	p->n_bands = n;
	for (size_t i = 0; i < n; i++)
		p->bands[i] = b[i];
	return 0;
}

static bool usable(const struct pb_mem_case *c)
{
	return c->ticks_per_call.n > 0 && c->ticks_per_call.median > 0 &&
	       isfinite(c->ticks_per_call.median);
}

int pb_tune_combine(const struct pb_mem_result *a, const struct pb_mem_result *b, uint64_t lo_bytes,
                    uint64_t hi_bytes, enum pb_cache_state as, struct pb_mem_result *out)
{
	memset(out, 0, sizeof *out);
	if (a->n_cases == 0)
		return 0;
	out->cases = calloc(a->n_cases, sizeof *out->cases);
	if (!out->cases)
		return pb_fail("out of memory combining results");
	for (size_t i = 0; i < a->n_cases; i++) {
		const struct pb_mem_case *x = &a->cases[i];
		if (!usable(x) || x->size_bytes < lo_bytes || x->size_bytes > hi_bytes)
			continue;
		const struct pb_mem_case *y = NULL;
		for (size_t j = 0; j < b->n_cases && !y; j++)
			if (b->cases[j].op == x->op && b->cases[j].kernel == x->kernel &&
			    b->cases[j].size_bytes == x->size_bytes && usable(&b->cases[j]))
				y = &b->cases[j];
		if (!y)
			continue;
		struct pb_mem_case *c = &out->cases[out->n_cases++];
		*c = *x;
		c->state = as;
		/* samples: the geometric mean of the two states' i-th per-call
		 * values, one call each, for as many as both have (what the one
		 * rule sets kernels against each other with, pb_contender_ratio);
		 * without sample arrays on a side, none, and the summaries' count */
		c->batch_ticks = NULL;
		c->batch_calls = NULL;
		c->read_ticks = NULL;
		c->thread_cpus = NULL;
		c->thread_batch_ticks = NULL;
		c->thread_ticks_per_call = NULL;
		c->replicate_samples = NULL;
		c->n_replicates = 0;
		double *px = pb_mem_case_per_call(x), *py = pb_mem_case_per_call(y);
		/* replicate by replicate when both sides have the same replicates
		 * (the i-th values of replicate r paired), so that the combined
		 * case keeps its run-level intervals; else as one run */
		size_t nr = x->n_replicates > 1 && x->n_replicates == y->n_replicates &&
		                    x->replicate_samples && y->replicate_samples
		                ? x->n_replicates
		                : 1;
		size_t np = 0;
		if (px && py) {
			for (size_t r = 0; r < nr; r++) {
				size_t xr = nr > 1 ? x->replicate_samples[r] : x->n_samples;
				size_t yr = nr > 1 ? y->replicate_samples[r] : y->n_samples;
				np += xr < yr ? xr : yr;
			}
		}
		c->n_samples = 0;
		if (np) {
			c->batch_ticks = malloc(np * sizeof *c->batch_ticks);
			c->batch_calls = malloc(np * sizeof *c->batch_calls);
			c->replicate_samples =
			    nr > 1 ? malloc(nr * sizeof *c->replicate_samples) : NULL;
			if (!c->batch_ticks || !c->batch_calls ||
			    (nr > 1 && !c->replicate_samples)) {
				free(px);
				free(py);
				out->n_cases--;
				free(c->batch_ticks);
				free(c->batch_calls);
				free(c->replicate_samples);
				pb_mem_result_free(out);
				return pb_fail("out of memory combining results");
			}
			size_t k = 0, ox = 0, oy = 0;
			for (size_t r = 0; r < nr; r++) {
				size_t xr = nr > 1 ? x->replicate_samples[r] : x->n_samples;
				size_t yr = nr > 1 ? y->replicate_samples[r] : y->n_samples;
				size_t m = xr < yr ? xr : yr;
				for (size_t q = 0; q < m; q++, k++) {
					c->batch_ticks[k] = sqrt(px[ox + q] * py[oy + q]);
					c->batch_calls[k] = 1;
				}
				if (nr > 1)
					c->replicate_samples[r] = m;
				ox += xr;
				oy += yr;
			}
			c->n_samples = np;
			c->n_replicates = nr > 1 ? nr : 0;
		}
		free(px);
		free(py);
		if (!np)
			c->n_samples = x->ticks_per_call.n < y->ticks_per_call.n
			                   ? x->ticks_per_call.n
			                   : y->ticks_per_call.n;
		const struct pb_summary *sx = &x->ticks_per_call, *sy = &y->ticks_per_call;
		struct pb_summary *s = &c->ticks_per_call;
		s->n = c->n_samples;
		s->median = sqrt(sx->median * sy->median);
		s->ci_valid = sx->ci_valid && sy->ci_valid && sx->ci_lo > 0 && sy->ci_lo > 0;
		s->ci_lo = s->ci_valid ? sqrt(sx->ci_lo * sy->ci_lo) : NAN;
		s->ci_hi = s->ci_valid ? sqrt(sx->ci_hi * sy->ci_hi) : NAN;
		s->min = sqrt(sx->min * sy->min);
		s->max = sqrt(sx->max * sy->max);
		s->mean = s->p10 = s->p90 = s->stddev = NAN;
	}
	return 0;
}

/* The usable case of kernel k at size n in r, or NULL. */
static const struct pb_mem_case *case_of(const struct pb_mem_result *r, const struct pb_kernel *k,
                                         uint64_t n)
{
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].kernel == k && r->cases[i].size_bytes == n && usable(&r->cases[i]))
			return &r->cases[i];
	return NULL;
}

size_t pb_tune_guard_combined(struct pb_mem_result *out, const struct pb_mem_result *a,
                              const struct pb_mem_result *b, const struct pb_kernel *guard,
                              double margin)
{
	size_t scaled = 0;
	for (size_t i = 0; guard && i < out->n_cases; i++) {
		struct pb_mem_case *c = &out->cases[i];
		if (c->kernel == guard)
			continue;
		const struct pb_mem_case *xa = case_of(a, c->kernel, c->size_bytes),
		                         *xb = case_of(b, c->kernel, c->size_bytes),
		                         *ga = case_of(a, guard, c->size_bytes),
		                         *gb = case_of(b, guard, c->size_bytes);
		if (!xa || !xb || !ga || !gb)
			continue;
		double ra = xa->ticks_per_call.median / ga->ticks_per_call.median,
		       rb = xb->ticks_per_call.median / gb->ticks_per_call.median;
		double worst = ra > rb ? ra : rb;
		if (!(worst > 1 + margin))
			continue;
		double f = worst / sqrt(ra * rb);
		for (size_t k = 0; c->batch_ticks && k < c->n_samples; k++)
			c->batch_ticks[k] *= f;
		struct pb_summary *s = &c->ticks_per_call;
		s->median *= f;
		s->min *= f;
		s->max *= f;
		if (s->ci_valid) {
			s->ci_lo *= f;
			s->ci_hi *= f;
		}
		scaled++;
	}
	return scaled;
}

const struct pb_mem_case *pb_tune_case_at(const struct pb_mem_result *r, const struct pb_kernel *k,
                                          uint64_t n)
{
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].kernel == k && r->cases[i].size_bytes == n &&
		    r->cases[i].n_samples > 0)
			return &r->cases[i];
	return NULL;
}

bool pb_tune_beats_dispatch(const struct pb_mem_case *c, const struct pb_mem_case *fast)
{
	/* fast / c, judged below with the dispatch's margin, not the one */
	struct pb_shift sh;
	(void)pb_judge_mem_cases(c, fast, &sh);
	double med = c->ticks_per_call.median;
	const struct pb_verdict_rule rule = {
	    .null = 1,
	    .margin = fmax(pb_equivalence(), med > 0 ? PB_AUTO_DISPATCH_TICKS / med : INFINITY)};
	return sh.ci_valid && pb_verdict(&sh, &rule) == PB_VERDICT_DIFFERENT && sh.estimate > 1;
}

void pb_tune_loss_range(uint64_t s, unsigned per_octave, uint64_t *lo, uint64_t *hi)
{
	double r = exp2(0.5 / (double)per_octave) * 1.01;
	*lo = (uint64_t)floor((double)s / r);
	*hi = (uint64_t)ceil((double)s * r);
	if (*lo > s)
		*lo = s;
	if (*hi < s)
		*hi = s;
}

const struct pb_kernel *pb_tune_inline_kernel(enum pb_op op)
{
	size_t nk;
	const struct pb_kernel *t = pb_kernels(&nk);
	for (size_t i = 0; i < nk; i++)
		if (t[i].op == op && t[i].auto_inline &&
		    pb_kernel_usable(&t[i], pb_cpu_features(), NULL, 0))
			return &t[i];
	return NULL;
}

/* The ranges of the band [lo, hi] of kernel k that go to fast, into
 * give_lo/give_hi from *ngive on (at most cap): around each size of k
 * measured in r that does not beat fast's case there by the dispatch. */
static void give_band(const struct pb_mem_result *r, const struct pb_kernel *k,
                      const struct pb_kernel *fast, uint64_t lo, uint64_t hi, unsigned per_octave,
                      uint64_t *give_lo, uint64_t *give_hi, size_t *ngive, size_t cap)
{
	/* the band's smallest and largest measured sizes: their ranges reach
	 * to the band's ends (nothing measured beyond them) */
	uint64_t first = UINT64_MAX, last = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (c->kernel == k && c->n_samples > 0 && c->size_bytes >= lo &&
		    c->size_bytes <= hi) {
			first = c->size_bytes < first ? c->size_bytes : first;
			last = c->size_bytes > last ? c->size_bytes : last;
		}
	}
	bool measured = first != UINT64_MAX;
	for (size_t i = 0; measured && i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (c->kernel != k || c->n_samples == 0 || c->size_bytes < lo || c->size_bytes > hi)
			continue;
		/* fast not measured there: no evidence that c loses */
		const struct pb_mem_case *f = pb_tune_case_at(r, fast, c->size_bytes);
		if (!f || pb_tune_beats_dispatch(c, f) || *ngive == cap)
			continue;
		uint64_t a, z;
		pb_tune_loss_range(c->size_bytes, per_octave, &a, &z);
		give_lo[*ngive] = a > lo && c->size_bytes != first ? a : lo;
		give_hi[(*ngive)++] = z < hi && c->size_bytes != last ? z : hi;
	}
	if (!measured && *ngive < cap) /* no evidence that the kernel wins */
		give_lo[*ngive] = lo, give_hi[(*ngive)++] = hi;
}

void pb_tune_prefer_inline(struct pb_policy *p, const struct pb_mem_result *r,
                           const struct pb_kernel *fast, unsigned per_octave)
{
	if (!fast)
		return;
	enum { CAP = 64 };
	uint64_t give_lo[CAP], give_hi[CAP];
	size_t ngive = 0;
	uint64_t lo = 0;
	for (size_t b = 0; b < p->n_bands && lo <= PB_AUTO_SMALL_MAX;
	     lo = p->bands[b].max_bytes + 1, b++) {
		const struct pb_policy_band *band = &p->bands[b];
		if (band->kernel == fast)
			continue;
		uint64_t hi =
		    band->max_bytes < PB_AUTO_SMALL_MAX ? band->max_bytes : PB_AUTO_SMALL_MAX;
		/* a kernel that runs fast's code at every one of the band's
		 * sizes up to PB_AUTO_SMALL_MAX (avx512_nt below 64 B) is fast
		 * there */
		if (pb_kernel_code_at(band->kernel, (size_t)hi) == fast) {
			if (ngive < CAP)
				give_lo[ngive] = lo, give_hi[ngive++] = hi;
			continue;
		}
		give_band(r, band->kernel, fast, lo, hi, per_octave, give_lo, give_hi, &ngive, CAP);
	}
	/* a band count over PB_POLICY_MAX_BANDS leaves that part as it was */
	for (size_t i = 0; i < ngive; i++)
		(void)pb_tune_set_range(p, give_lo[i], give_hi[i], fast);
	pb_policy_join_equal(p);
}

size_t pb_tune_libc_losses(const struct pb_policy *policy, const struct pb_mem_result *r,
                           const uint64_t *sizes, size_t n, uint64_t max_bytes,
                           struct pb_tune_loss *out, size_t cap)
{
	const struct pb_kernel *libc = pb_kernel_find(policy->op, "libc");
	size_t m = 0;
	for (size_t i = 0; libc && i < n && m < cap; i++) {
		uint64_t s = sizes[i];
		/* up to 512 B a libc band adds auto's dispatch */
		if (s > max_bytes || s <= PB_AUTO_SMALL_MAX)
			continue;
		const struct pb_kernel *k = pb_policy_pick(policy, (size_t)s);
		const struct pb_mem_case *c = pb_tune_case_at(r, k, s),
		                         *l = pb_tune_case_at(r, libc, s);
		if (k == libc || !c || !l || !pb_tune_beats_dispatch(l, c))
			continue;
		out[m++] = (struct pb_tune_loss){.size_bytes = s, .kernel_case = c, .libc_case = l};
	}
	return m;
}

int pb_tune_hand_to_libc(struct pb_policy *p, uint64_t s, unsigned per_octave,
                         struct pb_tune_handover *out)
{
	*out = (struct pb_tune_handover){0};
	const struct pb_kernel *libc = pb_kernel_find(p->op, "libc");
	const struct pb_kernel *k = pb_policy_pick(p, (size_t)s);
	if (!libc || k == libc)
		return 0;
	out->from = k;
	pb_tune_loss_range(s, per_octave, &out->lo_bytes, &out->hi_bytes);
	struct pb_policy before = *p;
	if (pb_tune_set_range(p, out->lo_bytes, out->hi_bytes, libc) != 0)
		return -1;
	out->changed = !pb_policy_equal(&before, p);
	return 1;
}

size_t pb_tune_distribution_pick(const struct pb_summary *sum, const struct pb_shift *vs, size_t n)
{
	size_t best = 0;
	for (size_t j = 0; j < n; j++)
		if (sum[j].n && sum[j].median < sum[best].median)
			best = j;
	/* the one rule: pb_verdict on best / the policy, the interleaved
	 * samples' ratio, with the one margin: faster beyond it */
	const struct pb_verdict_rule rule = {.null = 1, .margin = pb_equivalence()};
	bool wins = best != 0 && pb_verdict(&vs[best], &rule) == PB_VERDICT_DIFFERENT &&
	            vs[best].estimate < 1;
	return wins ? best : 0;
}

size_t pb_tune_check_sizes(unsigned per_octave, uint64_t max_bytes, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (unsigned k = 0; n < cap; k++) {
		double v = 16.0 * exp2(((double)k + 0.5) / (double)per_octave);
		uint64_t s = (uint64_t)llround(v);
		if (s > max_bytes)
			break;
		if (n && s == out[n - 1])
			continue;
		out[n++] = s;
	}
	return n;
}

void pb_tune_check_free(struct pb_tune_check *c)
{
	free(c->pts);
	c->pts = NULL;
	c->n = 0;
}

/* The case of f with op, kernel, state and size, or NULL. */
static const struct pb_results_case *find(const struct pb_results_file *f, const char *op,
                                          const char *kernel, const char *state, uint64_t n)
{
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_key *key = &f->cases[i].fields;
		const char *o = pb_field_str(key, "op"), *k = pb_field_str(key, "kernel"),
		           *s = pb_field_str(key, "cache_state");
		long long size;
		if (o && k && s && !strcmp(o, op) && !strcmp(k, kernel) && !strcmp(s, state) &&
		    pb_field_int(key, "size_bytes", &size) && (uint64_t)size == n)
			return &f->cases[i];
	}
	return NULL;
}

int pb_tune_check_judge(enum pb_op op, const uint64_t *sizes, size_t n,
                        const struct pb_results_file *f, struct pb_tune_check *out)
{
	static const enum pb_cache_state states[2] = {PB_STATE_HOT, PB_STATE_DRAM};
	*out = (struct pb_tune_check){.geomean = {NAN, NAN}};
	out->pts = calloc(2 * n, sizeof *out->pts);
	if (!out->pts)
		return pb_fail("out of memory");
	for (int s = 0; s < 2; s++) {
		double logs = 0;
		for (size_t i = 0; i < n; i++) {
			const char *st = pb_cache_state_name(states[s]), *opn = pb_op_name(op);
			const struct pb_results_case *a = find(f, opn, "auto", st, sizes[i]),
			                             *l = find(f, opn, "libc", st, sizes[i]);
			if (!a || !l)
				continue; /* interrupted before it: not judged */
			/* libc / auto: y = libc, x = auto; the one rule */
			struct pb_shift sh;
			enum pb_verdict v = pb_judge_cases(a, l, &sh);
			if (isnan(sh.estimate))
				return -1; /* no ratio at all: pb_error() says why */
			struct pb_summary sum;
			if (!(sh.estimate > 0) || pb_results_case_summary(a, 0.95, &sum) != 0)
				continue;
			struct pb_tune_check_point *pt = &out->pts[out->n++];
			*pt = (struct pb_tune_check_point){
			    .state = states[s],
			    .size_bytes = sizes[i],
			    .ratio = sh.estimate,
			    .lo = sh.ci_valid ? sh.lo : NAN,
			    .hi = sh.ci_valid ? sh.hi : NAN,
			    .auto_ticks = sum.median,
			    .loss = v == PB_VERDICT_DIFFERENT && sh.estimate < 1,
			};
			out->losses += pt->loss;
			logs += log(sh.estimate);
			out->count[s]++;
		}
		out->geomean[s] = out->count[s] ? exp(logs / (double)out->count[s]) : NAN;
	}
	return 0;
}

/* Adds s to sizes[0..*n) unless there (at most cap). */
static void add_size(uint64_t *sizes, size_t *n, size_t cap, uint64_t s)
{
	for (size_t i = 0; i < *n; i++)
		if (sizes[i] == s)
			return;
	if (*n < cap)
		sizes[(*n)++] = s;
}

size_t pb_tune_check_again(const struct pb_tune_check *c, const struct pb_policy *policy,
                           const uint64_t *suspects, size_t n_suspects, uint64_t *out, size_t cap,
                           size_t *small_losses)
{
	const struct pb_kernel *libc = pb_kernel_find(policy->op, "libc");
	size_t n = 0;
	*small_losses = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct pb_tune_check_point *pt = &c->pts[i];
		if (!pt->loss)
			continue;
		if (pt->size_bytes <= PB_AUTO_SMALL_MAX)
			(*small_losses)++;
		else if (pb_policy_pick(policy, (size_t)pt->size_bytes) != libc)
			add_size(out, &n, cap, pt->size_bytes);
	}
	for (size_t i = 0; i < n_suspects; i++)
		add_size(out, &n, cap, suspects[i]);
	return n;
}

size_t pb_tune_check_undo(struct pb_policy *policy, const struct pb_policy *before,
                          const struct pb_tune_check *c, const struct pb_tune_check_point *was,
                          size_t n_was, unsigned per_octave, struct pb_tune_undo *out, size_t cap)
{
	size_t undone = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct pb_tune_check_point *pt = &c->pts[i];
		for (size_t h = 0; h < n_was; h++) {
			if (was[h].size_bytes != pt->size_bytes || was[h].state != pt->state ||
			    !pt->loss || !(pt->ratio < was[h].ratio))
				continue;
			const struct pb_kernel *k = pb_policy_pick(before, (size_t)pt->size_bytes);
			uint64_t lo, hi;
			pb_tune_loss_range(pt->size_bytes, per_octave, &lo, &hi);
			if (pb_tune_set_range(policy, lo, hi, k) != 0)
				continue;
			if (undone < cap)
				out[undone] = (struct pb_tune_undo){.size_bytes = pt->size_bytes,
				                                    .state = pt->state,
				                                    .ratio = pt->ratio,
				                                    .was_ratio = was[h].ratio,
				                                    .kernel = k};
			undone++;
		}
	}
	return undone;
}
