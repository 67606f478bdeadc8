/* accounting_write.c - accounting tables as the `accounting` object of a
 * cmd case (include/primbench/accounting_result.h, docs/results-schema.md
 * "A cmd case"). */
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "primbench/accounting_result.h"
#include "primbench/error.h"
#include "results/results_json.h"

static json_t *u64(uint64_t v)
{
	return v <= (uint64_t)INT64_MAX ? json_integer((json_int_t)v) : json_real((double)v);
}

static void est_json(json_t *o, const struct pb_acct_est_record *e)
{
	json_object_set_new(o, "calls", u64(e->calls));
	json_object_set_new(o, "bytes", u64(e->bytes));
	json_object_set_new(o, "sampled_calls", u64(e->sampled_calls));
	json_object_set_new(o, "est_ticks", pb_json_number(e->est_ticks));
	json_object_set_new(o, "est_s", pb_json_number(e->est_s));
	if (e->share) {
		json_object_set_new(o, "cpu_pct", pb_json_number(e->cpu_pct));
		json_object_set_new(o, "cpu_pct_min", pb_json_number(e->cpu_pct_min));
	}
	json_object_set_new(o, "calls_unestimated", u64(e->calls_unestimated));
}

/* A path as the file gives it (maybe truncated, maybe not UTF-8: then each
 * byte >= 0x80 becomes '?'). */
static json_t *text_json(const char *s)
{
	json_t *j = json_string(s);
	if (j)
		return j;
	char buf[PB_ACCT_TEXT];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return json_string(buf);
}

static json_t *max_bytes(uint64_t z)
{
	return z == UINT64_MAX ? json_null() : u64(z);
}

json_t *pb_results_acct_json(const struct pb_acct_tables *tab)
{
	const struct pb_acct_total *t = tab->total;
	json_t *o = json_object();
	if (!o) {
		pb_fail("out of memory");
		return NULL;
	}
	json_object_set_new(o, "processes", u64(t->processes));
	json_object_set_new(o, "forked", u64(t->forked));
	json_object_set_new(o, "policy_failed", u64(t->policy_failed));
	json_object_set_new(o, "ticks_processes", u64(t->ticks_processes));
	json_object_set_new(o, "files_skipped", u64(t->skipped));
	json_t *notes = json_array();
	for (uint64_t i = 0; i < t->skipped && i < PB_ACCT_MAX_NOTES; i++)
		json_array_append_new(notes, json_string(t->skip_note[i]));
	json_object_set_new(o, "skip_notes", notes);

	json_t *progs = json_array();
	for (unsigned i = 0; i < t->n_exe && i < PB_ACCT_MAX_EXES; i++) {
		json_t *p = json_object();
		json_object_set_new(p, "exe", text_json(t->exe[i].path));
		json_object_set_new(p, "processes", u64(t->exe[i].processes));
		json_array_append_new(progs, p);
	}
	json_object_set_new(o, "programs", progs);
	json_object_set_new(o, "programs_other", u64(t->exe_other));

	json_t *rates = json_array();
	for (unsigned i = 0; i < t->n_rate && i < PB_ACCT_MAX_RATES; i++)
		json_array_append_new(rates, json_pack("{s:I,s:o}", "sample_every",
		                                       (json_int_t)t->rate[i].sample_every,
		                                       "processes", u64(t->rate[i].processes)));
	json_object_set_new(o, "sample_every", rates);
	json_object_set_new(o, "sample_every_other", u64(t->rate_other));
	json_object_set_new(o, "tsc_hz", pb_json_number(tab->tsc_hz));
	json_object_set_new(o, "cpu_time_s", pb_json_number(tab->cpu_time_s));
	json_object_set_new(o, "timer_overhead_ticks", pb_json_number(tab->timer_overhead_ticks));

	json_t *prims = json_object();
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		const struct pb_acct_prim_counts *c = &t->prim[p];
		json_t *po = json_object();
		est_json(po, &tab->prim[p].est);
		/* The primitive's own counters (equal to the buckets' sums but
		 * for a live writer's snapshot), in the places of the estimate's. */
		json_object_set_new(po, "calls", u64(c->calls));
		json_object_set_new(po, "bytes", u64(c->bytes));
		json_t *cls = json_array();
		for (int k = 0; k < PB_ACCT_NCLASSES; k++) {
			const struct pb_acct_class_record *cr = &tab->prim[p].cls[k];
			json_t *co = json_object();
			json_object_set_new(co, "class", json_string(cr->label));
			json_object_set_new(co, "min_bytes", u64(cr->min_bytes));
			json_object_set_new(co, "max_bytes", max_bytes(cr->max_bytes));
			est_json(co, &cr->est);
			json_array_append_new(cls, co);
		}
		json_object_set_new(po, "classes", cls);
		json_t *bk = json_array();
		for (unsigned k = 0; k < PB_ACCT_BUCKETS; k++) {
			const struct pb_acct_bucket *b = &c->bucket[k];
			if (!b->calls && !b->bytes && !b->sampled_calls && !b->sampled_ticks)
				continue;
			json_t *bo = json_object();
			json_object_set_new(bo, "bucket", json_integer(k));
			json_object_set_new(bo, "min_bytes", u64(tab->bucket_min[k]));
			json_object_set_new(bo, "max_bytes", max_bytes(tab->bucket_max[k]));
			json_object_set_new(bo, "calls", u64(b->calls));
			json_object_set_new(bo, "bytes", u64(b->bytes));
			json_object_set_new(bo, "sampled_calls", u64(b->sampled_calls));
			json_object_set_new(bo, "sampled_ticks", u64(b->sampled_ticks));
			json_array_append_new(bk, bo);
		}
		json_object_set_new(po, "buckets", bk);
		json_object_set_new(prims, tab->prim_name[p], po);
	}
	json_object_set_new(o, "primitives", prims);

	json_t *all = json_object();
	est_json(all, &tab->all);
	json_object_set_new(o, "all", all);

	if (tab->n_ran_other_code) {
		json_t *ran = json_array();
		for (size_t i = 0; i < tab->n_ran_other_code; i++) {
			const struct pb_acct_ran_other_code *r = &tab->ran_other_code[i];
			json_t *ro = json_object();
			json_object_set_new(ro, "op", json_string(r->op));
			json_object_set_new(ro, "kernel", json_string(r->kernel));
			json_object_set_new(ro, "ran_code_of", json_string(r->ran_code_of));
			json_object_set_new(ro, "calls", json_integer((json_int_t)r->calls));
			json_array_append_new(ran, ro);
		}
		json_object_set_new(o, "ran_other_code", ran);
	}
	return o;
}

int pb_results_add_accounting(struct pb_results_doc *doc, const struct pb_acct_tables *t)
{
	json_t *o = pb_results_acct_json(t);
	if (!o || json_object_set_new(pb_results_doc_json(doc), "accounting", o) != 0)
		return pb_fail("out of memory");
	return 0;
}
