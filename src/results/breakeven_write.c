/* breakeven_write.c - a break-even record as an object of a result
 * document's "breakeven" array (include/primbench/breakeven_result.h,
 * docs/breakeven.md). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "primbench/breakeven_result.h"
#include "primbench/error.h"
#include "results/results_json.h"

void pb_breakeven_record_free(struct pb_breakeven_record *r)
{
	free(r->leading);
	free(r->crossings);
	free(r->switches);
	r->leading = NULL;
	r->crossings = r->switches = NULL;
	r->n_leading = r->n_crossings = r->n_switches = 0;
}

static json_t *jsize(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? json_null() : json_integer((json_int_t)v);
}

/* The crossings (or the policy's switches, with their bounds) as an
 * array of objects. */
static json_t *crossings_json(const struct pb_breakeven_crossing_record *cs, size_t n,
                              bool with_bound)
{
	json_t *xs = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct pb_breakeven_crossing_record *c = &cs[i];
		json_t *x = json_object();
		json_object_set_new(x, "below", json_string(c->below));
		json_object_set_new(x, "above", json_string(c->above));
		if (with_bound) {
			json_object_set_new(x, "bound_bytes", jsize(c->bound_bytes));
			json_object_set_new(x, "bound_from", json_string(c->bound_from));
			if (c->has_moved_from)
				json_object_set_new(x, "moved_from_bytes",
				                    jsize(c->moved_from_bytes));
			json_object_set_new(x, "ci_overlap_measured",
			                    json_boolean(c->ci_overlap_measured));
		}
		json_object_set_new(x, "size_bytes", pb_json_number(c->size_bytes));
		json_object_set_new(x, "bracket_bytes",
		                    json_pack("[o,o]", jsize(c->bracket_lo), jsize(c->bracket_hi)));
		json_object_set_new(
		    x, "ci_overlap_bytes",
		    json_pack("[o,o]", pb_json_number(c->lo_bytes), pb_json_number(c->hi_bytes)));
		json_object_set_new(x, "ci_overlap_open",
		                    json_pack("[b,b]", c->lo_open, c->hi_open));
		json_object_set_new(x, "flips", json_integer(c->flips));
		json_array_append_new(xs, x);
	}
	return xs;
}

static json_t *glibc_json(const struct pb_breakeven_record *b)
{
	json_t *gl = json_object();
	json_t *rec = json_object(), *cur = b->current_known ? json_object() : json_null();
	json_object_set_new(gl, "model", json_string("glibc 2.36 x86-64"));
	if (b->is_memcpy) {
		json_object_set_new(rec, "x86_rep_movsb_threshold", jsize(b->rep_movsb));
		json_object_set_new(rec, "x86_non_temporal_threshold", jsize(b->non_temporal));
		if (b->current_known) {
			json_object_set_new(cur, "x86_rep_movsb_threshold",
			                    jsize(b->cur_rep_movsb));
			json_object_set_new(cur, "x86_non_temporal_threshold",
			                    jsize(b->cur_non_temporal));
			json_object_set_new(cur, "rep_movsb_stop_threshold",
			                    b->cur_rep_movsb_stop ? jsize(b->cur_rep_movsb_stop)
			                                          : json_null());
		}
	} else {
		json_object_set_new(rec, "x86_rep_stosb_threshold", jsize(b->rep_stosb));
		if (b->current_known)
			json_object_set_new(cur, "x86_rep_stosb_threshold",
			                    jsize(b->cur_rep_stosb));
	}
	json_object_set_new(gl, "tunables", rec);
	json_object_set_new(gl, "current", cur);
	json_object_set_new(gl, "env", json_string(b->env));
	json_object_set_new(gl, "mismatch_octaves", pb_json_number(b->mismatch_octaves));
	json_object_set_new(gl, "no_path_octaves", pb_json_number(b->no_path_octaves));
	json_t *notes = json_array();
	for (size_t i = 0; i < b->n_notes && i < PB_BREAKEVEN_RECORD_MAX_NOTES; i++)
		json_array_append_new(notes, json_string(b->notes[i]));
	json_object_set_new(gl, "not_expressible", notes);
	return gl;
}

json_t *pb_results_breakeven_json(const struct pb_breakeven_record *b)
{
	json_t *o = json_object();
	if (!o) {
		pb_fail("out of memory");
		return NULL;
	}
	json_object_set_new(o, "op", json_string(b->op));
	json_object_set_new(o, "cache_state", json_string(b->cache_state));
	json_object_set_new(o, "method", json_string("docs/breakeven.md"));
	json_object_set_new(o, "min_size_bytes", jsize(b->min_size_bytes));
	json_object_set_new(o, "max_size_bytes", jsize(b->max_size_bytes));
	json_t *lead = json_array();
	for (size_t i = 0; i < b->n_leading; i++)
		json_array_append_new(lead, json_string(b->leading[i]));
	json_object_set_new(o, "leading_kernels", lead);
	json_object_set_new(o, "crossings", crossings_json(b->crossings, b->n_crossings, false));
	json_object_set_new(o, "switches", crossings_json(b->switches, b->n_switches, true));
	json_object_set_new(o, "policy", json_string(b->policy));
	json_object_set_new(o, "policy_simplified", json_boolean(b->policy_simplified));
	json_t *peers = json_array();
	for (size_t i = 0; i < b->n_bands && i < PB_POLICY_MAX_BANDS; i++) {
		json_t *one = json_array();
		for (size_t k = 0; k < b->n_peers[i] && k < PB_BREAKEVEN_RECORD_MAX_PEERS; k++)
			json_array_append_new(one, json_string(b->peers[i][k]));
		json_array_append_new(peers, one);
	}
	json_object_set_new(o, "policy_peers", peers);
	if (b->have_glibc)
		json_object_set_new(o, "glibc", glibc_json(b));
	return o;
}

int pb_results_add_breakeven(struct pb_results_doc *doc, const struct pb_breakeven_record *r)
{
	json_t *root = pb_results_doc_json(doc);
	json_t *be = pb_results_breakeven_json(r);
	if (!be)
		return -1;
	json_t *arr = json_object_get(root, "breakeven");
	if (!arr) {
		arr = json_array();
		if (json_object_set_new(root, "breakeven", arr) != 0) {
			json_decref(be);
			return pb_fail("out of memory");
		}
	}
	if (json_array_append_new(arr, be) != 0)
		return pb_fail("out of memory");
	return 0;
}
