/* tune.c - policies from break-even runs, and the policy file's text
 * (include/primbench/tune.h). */
#include "primbench/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

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

char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		pb_fail("out of memory");
		return NULL;
	}
	if (comment) {
		for (const char *p = comment; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(m, "#%s%.*s\n", n ? " " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f->set[op])
			continue;
		char text[PB_POLICY_TEXT_MAX];
		if (pb_policy_format(&f->policy[op], text, sizeof text) < 0) {
			fclose(m);
			free(buf);
			return NULL;
		}
		fprintf(m, "%s = %s\n", pb_op_name((enum pb_op)op), text);
	}
	if (f->cpu[0])
		fprintf(m, "cpu = %s\n", f->cpu);
	if (fclose(m) != 0) {
		free(buf);
		pb_fail("out of memory");
		return NULL;
	}
	return buf;
}
