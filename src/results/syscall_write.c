/* syscall_write.c - the syscall suite's cases in a result document
 * (include/primbench/syscall_result.h; docs/results-schema.md, "A syscall
 * case"; the layout of the mem cases, written by src/results/json.c's
 * pb_json_add_samples). */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/syscall_result.h"
#include "primbench/timer.h"

static const char *const names[PB_SC_COUNT] = {
    "null",        "umask",       "getpid",       "read",  "write", "pipe", "pipe-rtt", "fork",
    "fork-helper", "exec-static", "exec-dynamic", "spawn", "fault", "mmap", "populate"};

const char *pb_syscall_bench_name(enum pb_sc_bench b)
{
	return b < PB_SC_COUNT ? names[b] : "?";
}

int pb_results_add_syscall(struct pb_results_doc *rdoc, const struct pb_syscall_result *r)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_syscall_case *c = &r->cases[i];
		json_t *o = json_object();
		json_t *key = pb_results_key("syscall");
		json_object_set_new(key, "benchmark", json_string(pb_syscall_bench_name(c->bench)));
		json_object_set_new(key, "placement", json_string(c->placement));
		json_object_set_new(key, "page_bytes",
		                    c->page_bytes ? json_integer(c->page_bytes) : json_null());
		json_object_set_new(o, "key", key);
		json_object_set_new(o, "op", json_string(c->op_desc ? c->op_desc : ""));
		json_t *cpus = json_array();
		if (c->cpu >= 0)
			json_array_append_new(cpus, json_integer(c->cpu));
		if (c->peer_cpu >= 0)
			json_array_append_new(cpus, json_integer(c->peer_cpu));
		json_object_set_new(o, "cpus", cpus);
		json_t *reps = pb_json_replicates(c->batch_ticks, c->batch_ops, c->n_samples,
		                                  c->replicate_samples, c->n_replicates);
		if (reps)
			json_object_set_new(o, "replicates", reps);
		pb_json_add_samples(o, c->batch_ticks, c->batch_ops, c->n_samples,
		                    &c->ticks_per_op);
		if (c->n_samples) {
			double med = c->ticks_per_op.median;
			json_t *dv = json_object();
			json_object_set_new(dv, "ns_per_call", pb_json_number(pb_ticks_to_ns(med)));
			if (c->page_bytes > 4096u) {
				double per4k = med * 4096.0 / (double)c->page_bytes;
				json_object_set_new(dv, "ticks_per_4k_page", pb_json_number(per4k));
				json_object_set_new(dv, "ns_per_4k_page",
				                    pb_json_number(pb_ticks_to_ns(per4k)));
			}
			json_object_set_new(o, "median_derived", dv);
			json_object_set_new(o, "cv", pb_json_number(c->cv));
		}
		pb_results_append_case(
		    cases, o,
		    c->bench == PB_SC_FAULT && c->page_bytes > 4096u ? &c->thp_bytes : NULL,
		    c->migrations, c->outliers);
	}
	return pb_results_add_notes(notes, "", r->notes);
}
