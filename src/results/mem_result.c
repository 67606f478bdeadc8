/* mem_result.c - the mem suite's cases and results as data
 * (include/primbench/mem_result.h). */
#include "primbench/mem_result.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
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
	                               offsetof(struct pb_mem_case, thread_ticks_per_call)};
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
