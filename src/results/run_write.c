/* run_write.c - the sections of a result document that say how a run was
 * made (include/primbench/results_run.h). */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/results_run.h"

void pb_results_set_counters(struct pb_results_doc *doc, const struct pb_counters_status *c)
{
	json_t *hc = json_object();
	json_object_set_new(hc, "available", json_boolean(c->available));
	if (c->reason)
		json_object_set_new(hc, "reason", json_string(c->reason));
	if (c->has_measured)
		json_object_set_new(hc, "measured", json_boolean(c->measured));
	json_object_set_new(pb_results_doc_json(doc), "counters", hc);
}

void pb_results_set_auto_policy(struct pb_results_doc *doc, enum pb_op op, const char *policy,
                                const struct pb_auto_origin *o)
{
	json_t *root = pb_results_doc_json(doc);
	json_t *ap = json_object_get(root, "auto_policy");
	if (!ap) {
		ap = json_object();
		json_object_set_new(root, "auto_policy", ap);
	}
	json_t *j = json_object();
	json_object_set_new(j, "policy", json_string(policy));
	json_object_set_new(j, "source", json_string(o->from_file[op] ? "file" : "default"));
	json_object_set_new(j, "path", o->path[0] ? json_string(o->path) : json_null());
	if (o->from_file[op])
		json_object_set_new(j, "file_cpu", json_string(o->file_cpu));
	else
		json_object_set_new(j, "default_row", json_string(o->default_row[op]));
	json_object_set_new(ap, pb_op_name(op), j);
}

void pb_results_set_threads(struct pb_results_doc *doc, const struct pb_threads_record *t)
{
	json_t *tj = json_object();
	json_t *cj = json_array();
	for (size_t i = 0; i < t->n_cpus; i++)
		json_array_append_new(cj, json_integer(t->cpus[i]));
	json_object_set_new(tj, "placement", json_string(t->placement));
	json_object_set_new(tj, "cpus", cj);
	json_object_set_new(tj, "mem_node", json_string(t->mem_node));
	json_object_set_new(tj, "oversubscribed", json_boolean(t->oversubscribed));
	if (t->tsc_sync) {
		const struct pb_tsc_sync *ts = t->tsc_sync;
		json_t *sj = json_object();
		json_object_set_new(sj, "invariant", json_boolean(ts->invariant));
		json_object_set_new(sj, "measured", json_boolean(ts->measured));
		json_object_set_new(sj, "synchronized", json_boolean(ts->synchronized));
		json_object_set_new(sj, "max_abs_offset_ticks",
		                    json_real(ts->max_abs_offset_ticks));
		json_object_set_new(sj, "bound_ticks", json_real(ts->bound_ticks));
		json_object_set_new(tj, "tsc_sync", sj);
	}
	json_object_set_new(pb_results_doc_json(doc), "threads", tj);
}

void pb_results_set_equivalence(struct pb_results_doc *doc, double margin)
{
	json_object_set_new(pb_results_doc_json(doc), "equivalence", json_real(margin));
}

void pb_results_add_xsave_breakeven(struct pb_results_doc *doc,
                                    const struct pb_xsave_breakeven_record *b)
{
	json_t *be = json_object();
	json_object_set_new(be, "op", json_string(b->op));
	json_object_set_new(be, "pair", json_string(b->pair));
	json_object_set_new(be, "pair_upper_state", json_string("dirty"));
	json_object_set_new(be, "pair_median_ticks", json_real(b->pair_median_ticks));
	json_object_set_new(be, "pair_ci_ticks",
	                    b->pair_ci_valid ? json_pack("[f, f]", b->pair_ci_lo, b->pair_ci_hi)
	                                     : json_null());
	json_object_set_new(be, "replicates", json_integer((json_int_t)b->replicates));
	json_object_set_new(be, "rep_kernel", json_string(b->rep_kernel));
	json_object_set_new(be, "size_bytes",
	                    b->found ? json_integer((json_int_t)b->size_bytes) : json_null());
	json_object_set_new(be, "simd_kernel",
	                    b->found ? json_string(b->simd_kernel) : json_null());
	json_object_set_new(be, "complete", json_boolean(b->complete));
	json_t *root = pb_results_doc_json(doc);
	json_t *arr = json_object_get(root, "xsave_breakeven");
	if (!arr) {
		arr = json_array();
		json_object_set_new(root, "xsave_breakeven", arr);
	}
	json_array_append_new(arr, be);
}

void pb_results_set_perf_targets(struct pb_results_doc *doc, const struct pb_perf_target_row *rows,
                                 size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct pb_perf_target_row *rw = &rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "row", json_string(rw->row));
		json_object_set_new(o, "op", json_string(rw->op));
		json_object_set_new(o, "size_bytes", json_integer((json_int_t)rw->size_bytes));
		json_object_set_new(o, "cache_state", json_string(rw->cache_state));
		if (rw->has_fill_value)
			json_object_set_new(o, "fill_value", json_integer(rw->fill_value));
		const struct pb_json_member m[] = {
		    {"probe_isa", json_string(rw->probe_isa)},
		    {"reference", json_string(rw->reference)},
		    {"reference_ticks_per_call", pb_json_number(rw->reference_ticks_per_call)},
		    {"libc_ticks_per_call", pb_json_number(rw->libc_ticks_per_call)},
		    {"best_kernel", json_string(rw->best_kernel)},
		    {"best_ticks_per_call", pb_json_number(rw->best_ticks_per_call)},
		    {"ratio", pb_json_number(rw->ratio)},
		    {"ratio_lo", pb_json_number(rw->ratio_lo)},
		    {"ratio_hi", pb_json_number(rw->ratio_hi)},
		    {"target", pb_json_number(rw->target)},
		    {"result", json_string(rw->result)},
		};
		pb_json_set_members(o, m, sizeof m / sizeof m[0]);
		json_array_append_new(arr, o);
	}
	json_object_set_new(pb_results_doc_json(doc), "perf_targets", arr);
}

int pb_results_add_doc_notes(struct pb_results_doc *doc, const char *prefix, const char *text)
{
	json_t *cases, *notes;
	if (pb_results_arrays(pb_results_doc_json(doc), &cases, &notes) != 0)
		return -1;
	return pb_results_add_notes(notes, prefix, text);
}

int pb_results_append_note(struct pb_results_doc *doc, const char *text)
{
	json_t *notes = json_object_get(pb_results_doc_json(doc), "notes");
	if (!json_is_array(notes))
		return pb_fail("not a result document");
	if (json_array_append_new(notes, json_string(text)) != 0)
		return pb_fail("out of memory");
	return 0;
}

struct pb_results_doc *pb_results_accounting_new(const char *dir)
{
	json_t *root = json_object();
	if (!root) {
		pb_fail("out of memory");
		return NULL;
	}
	json_object_set_new(root, "schema", json_string("primbench-accounting"));
	json_object_set_new(root, "schema_version", json_integer(1));
	json_object_set_new(root, "directory", json_string(dir));
	struct pb_results_doc *doc = pb_results_doc_adopt(root);
	if (!doc)
		pb_fail("out of memory");
	return doc;
}
