/* mem_result.c - the mem suite's cases and results as data
 * (include/primbench/mem_result.h). */
#include "primbench/mem_result.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/replicates.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"
#include "results/names.h"

static const char *const state_names[PB_STATE_COUNT] = {"hot",   "l2",        "llc",   "dram",
                                                        "fault", "fault-thp", "repeat"};

PB_NAME_FUNCTIONS(enum pb_cache_state, pb_cache_state_name, pb_cache_state_parse, state_names,
                  PB_STATE_COUNT, "cache state")

const char *pb_replay_offsets_name(enum pb_replay_offsets o)
{
	return o == PB_OFFSETS_ALIGNED ? "aligned" : "random";
}

int pb_replay_offsets_parse(const char *s, enum pb_replay_offsets *out)
{
	if (!strcmp(s, "random"))
		*out = PB_OFFSETS_RANDOM;
	else if (!strcmp(s, "aligned"))
		*out = PB_OFFSETS_ALIGNED;
	else
		return pb_fail("unknown offsets mode '%s' (known: random, aligned)", s);
	return 0;
}

/* Whether a and b have the same key but for the threads and placement. */
static bool same_but_threads(const struct pb_mem_case *a, const struct pb_mem_case *b)
{
	return a->op == b->op && a->kernel == b->kernel && a->size_bytes == b->size_bytes &&
	       a->placement.dst_offset_bytes == b->placement.dst_offset_bytes &&
	       a->placement.src_offset_bytes == b->placement.src_offset_bytes &&
	       a->placement.has_distance == b->placement.has_distance &&
	       a->placement.distance_bytes == b->placement.distance_bytes &&
	       a->extent_bytes == b->extent_bytes && a->state == b->state &&
	       a->page_bytes == b->page_bytes && a->fill_value == b->fill_value &&
	       a->then_read == b->then_read && a->replay == b->replay &&
	       a->mem_node == b->mem_node && a->mem_node_index == b->mem_node_index;
}

double *pb_mem_case_per_call(const struct pb_mem_case *c)
{
	if (!c->n_samples || !c->batch_ticks || !c->batch_calls)
		return NULL;
	double *v = malloc(c->n_samples * sizeof *v);
	for (size_t i = 0; v && i < c->n_samples; i++)
		v[i] = c->batch_calls[i] ? c->batch_ticks[i] / (double)c->batch_calls[i] : 0;
	return v;
}

double pb_mem_efficiency(const struct pb_mem_result *r, const struct pb_mem_case *c)
{
	unsigned n = c->threads > 1 ? c->threads : 1;
	if (c->n_samples == 0 || !(c->ticks_per_call.median > 0))
		return NAN;
	if (n == 1)
		return 1;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *one = &r->cases[i];
		if (one->threads > 1 || !same_but_threads(one, c))
			continue;
		if (one->n_samples == 0)
			return NAN;
		return one->ticks_per_call.median / ((double)n * c->ticks_per_call.median);
	}
	return NAN;
}

const char *pb_mem_node_text(enum pb_mem_node_kind node, unsigned index, char *buf, size_t len)
{
	return pb_mem_node_describe(&(struct pb_mem_node){.kind = node, .node = index}, buf, len);
}

void pb_mem_result_free(struct pb_mem_result *r)
{
	if (!r->cases)
		return;
	static const size_t owned[] = {offsetof(struct pb_mem_case, batch_ticks),
	                               offsetof(struct pb_mem_case, batch_calls),
	                               offsetof(struct pb_mem_case, read_ticks),
	                               offsetof(struct pb_mem_case, thread_cpus),
	                               offsetof(struct pb_mem_case, thread_batch_ticks),
	                               offsetof(struct pb_mem_case, thread_ticks_per_call),
	                               offsetof(struct pb_mem_case, replicate_samples)};
	PB_FREE_STRUCTS(r->cases, r->n_cases, owned);
	r->cases = NULL;
	r->n_cases = 0;
}

int pb_mem_result_end(struct pb_mem_result *r, int rc)
{
	if (rc == 0)
		return 0;
	pb_mem_result_free(r);
	return -1;
}

/* Whether a and b are the same case (the key, threads included). */
static bool same_case(const struct pb_mem_case *a, const struct pb_mem_case *b)
{
	return same_but_threads(a, b) &&
	       (a->threads > 1 ? a->threads : 1) == (b->threads > 1 ? b->threads : 1) &&
	       (a->thread_placement == b->thread_placement ||
	        (a->thread_placement && b->thread_placement &&
	         !strcmp(a->thread_placement, b->thread_placement)));
}

/* dst[0..n) then src[0..m): realloc'd into *dst (NULL src: nothing). */
static int append_doubles(double **dst, size_t n, const double *src, size_t m)
{
	if (!src || m == 0)
		return 0;
	double *v = realloc(*dst, (n + m) * sizeof *v);
	if (!v)
		return pb_fail("out of memory");
	memcpy(v + n, src, m * sizeof *v);
	*dst = v;
	return 0;
}

/* c takes o's samples as one more replicate. */
static int join_case(struct pb_mem_case *c, struct pb_mem_case *o)
{
	size_t nt = c->threads > 1 ? c->threads : 1;
	if (c->n_replicates == 0) {
		c->replicate_samples = malloc(sizeof *c->replicate_samples);
		if (!c->replicate_samples)
			return pb_fail("out of memory");
		c->replicate_samples[0] = c->n_samples;
		c->n_replicates = 1;
	}
	size_t *rs = realloc(c->replicate_samples, (c->n_replicates + 1) * sizeof *rs);
	if (!rs)
		return pb_fail("out of memory");
	c->replicate_samples = rs;
	uint64_t *calls = NULL;
	if (o->n_samples) {
		calls = realloc(c->batch_calls, (c->n_samples + o->n_samples) * sizeof *calls);
		if (!calls)
			return pb_fail("out of memory");
		c->batch_calls = calls;
		memcpy(calls + c->n_samples, o->batch_calls, o->n_samples * sizeof *calls);
	}
	if (append_doubles(&c->batch_ticks, c->n_samples, o->batch_ticks, o->n_samples) != 0 ||
	    append_doubles(&c->read_ticks, c->n_samples, o->read_ticks, o->n_samples) != 0 ||
	    append_doubles(&c->thread_batch_ticks, c->n_samples * nt, o->thread_batch_ticks,
	                   o->n_samples * nt) != 0)
		return -1;
	rs[c->n_replicates++] = o->n_samples;
	c->n_samples += o->n_samples;
	c->migrations += o->migrations;
	c->outliers += o->outliers;
	c->counted_calls += o->counted_calls;
	c->cycles += o->cycles;
	c->instructions += o->instructions;
	c->cache_misses += o->cache_misses;
	c->counters_multiplexed |= o->counters_multiplexed;
	if (o->thp_bytes < c->thp_bytes)
		c->thp_bytes = o->thp_bytes; /* the least any replicate saw */
	if (!c->thread_cpus) {
		c->thread_cpus = o->thread_cpus;
		o->thread_cpus = NULL;
	}
	return 0;
}

static void free_case(struct pb_mem_case *c)
{
	free(c->batch_ticks);
	free(c->batch_calls);
	free(c->read_ticks);
	free(c->thread_cpus);
	free(c->thread_batch_ticks);
	free(c->thread_ticks_per_call);
	free(c->replicate_samples);
	memset(c, 0, sizeof *c);
}

int pb_mem_result_add_replicate(struct pb_mem_result *acc, struct pb_mem_result *more)
{
	if (!acc->cases) {
		*acc = *more;
		memset(more, 0, sizeof *more);
		for (size_t i = 0; i < acc->n_cases; i++) {
			struct pb_mem_case *c = &acc->cases[i];
			c->replicate_samples = malloc(sizeof *c->replicate_samples);
			if (!c->replicate_samples)
				return pb_fail("out of memory");
			c->replicate_samples[0] = c->n_samples;
			c->n_replicates = 1;
		}
		return 0;
	}
	int rc = 0;
	size_t first = acc->n_cases;
	for (size_t j = 0; j < more->n_cases && rc == 0; j++) {
		struct pb_mem_case *o = &more->cases[j];
		struct pb_mem_case *c = NULL;
		/* the same plan makes the same cases in the same order */
		if (j < first && same_case(&acc->cases[j], o))
			c = &acc->cases[j];
		for (size_t i = 0; !c && i < acc->n_cases; i++)
			if (same_case(&acc->cases[i], o))
				c = &acc->cases[i];
		if (c) {
			rc = join_case(c, o);
			continue;
		}
		struct pb_mem_case *cs = realloc(acc->cases, (acc->n_cases + 1) * sizeof *cs);
		if (!cs) {
			rc = pb_fail("out of memory");
			break;
		}
		acc->cases = cs;
		cs[acc->n_cases] = *o;
		memset(o, 0, sizeof *o);
		struct pb_mem_case *nc = &cs[acc->n_cases++];
		nc->replicate_samples = malloc(sizeof *nc->replicate_samples);
		if (!nc->replicate_samples)
			rc = pb_fail("out of memory");
		else
			nc->replicate_samples[0] = nc->n_samples, nc->n_replicates = 1;
	}
	/* notes: the lines acc does not have yet */
	pb_notes_merge(acc->notes, sizeof acc->notes, more->notes);
	acc->interrupted |= more->interrupted;
	if (!acc->read_loop)
		acc->read_loop = more->read_loop;
	for (size_t j = 0; j < more->n_cases; j++)
		free_case(&more->cases[j]);
	free(more->cases);
	memset(more, 0, sizeof *more);
	return rc;
}

int pb_mem_result_end_replicates(struct pb_mem_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		struct pb_mem_case *c = &r->cases[i];
		if (c->n_samples == 0)
			continue;
		size_t nt = c->threads > 1 ? c->threads : 1;
		double *v = malloc(c->n_samples * sizeof *v);
		if (!v)
			return pb_fail("out of memory");
		for (size_t j = 0; j < c->n_samples; j++)
			v[j] = c->batch_ticks[j] / (double)c->batch_calls[j];
		int rc = pb_summarize_replicates(v, c->n_samples, c->replicate_samples,
		                                 c->n_replicates, 0.95, &c->ticks_per_call);
		for (size_t j = 0; rc == 0 && c->read_ticks && j < c->n_samples; j++)
			v[j] = c->read_ticks[j] / (double)c->batch_calls[j];
		if (rc == 0 && c->read_ticks)
			rc =
			    pb_summarize_replicates(v, c->n_samples, c->replicate_samples,
			                            c->n_replicates, 0.95, &c->read_ticks_per_call);
		for (size_t t = 0; rc == 0 && nt > 1 && c->thread_batch_ticks &&
		                   c->thread_ticks_per_call && t < nt;
		     t++) {
			for (size_t j = 0; j < c->n_samples; j++)
				v[j] = c->thread_batch_ticks[j * nt + t] /
				       ((double)c->batch_calls[j] / (double)nt);
			rc = pb_summarize_replicates(v, c->n_samples, c->replicate_samples,
			                             c->n_replicates, 0.95,
			                             &c->thread_ticks_per_call[t]);
		}
		free(v);
		if (rc != 0)
			return -1;
	}
	return 0;
}
