/* cmd_write.c - the cmd suite's parts of a result document
 * (docs/results-schema.md, "A cmd case" with its accounting and profile
 * objects, the "layout" object and the looks of a sequential session),
 * from the records of include/primbench/cmd_result.h,
 * cmd_layout_result.h, accounting_result.h and profile.h. */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/accounting_result.h"
#include "primbench/cmd_layout_result.h"
#include "primbench/cmd_result.h"
#include "primbench/error.h"
#include "primbench/profile.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/stats.h"

static json_t *string_array(char *const *v)
{
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The environment as part of the case key: what was set, minus what
 * changes from run to run without changing the case: the accounting
 * directory (a fresh temporary one each time) and the directory the
 * preload library was found in (LD_PRELOAD=/x/build/libprimswitch.so is
 * recorded as LD_PRELOAD=libprimswitch.so), so that a before/after pair of
 * files from two checkouts match. */
static json_t *env_key(char *const *v)
{
	static const char lib[] = "/" PB_PRELOAD_NAME;
	json_t *a = json_array();
	for (size_t i = 0; v && v[i]; i++) {
		if (!pb_cmd_env_in_key(v[i]))
			continue;
		const char *sp = NULL;
		if (strncmp(v[i], "LD_PRELOAD=", 11) == 0) {
			const char *path = v[i] + 11, *end = strpbrk(path, " :");
			size_t len = end ? (size_t)(end - path) : strlen(path);
			if (len >= sizeof lib - 1 &&
			    memcmp(path + len - (sizeof lib - 1), lib, sizeof lib - 1) == 0)
				sp = end ? end : "";
		}
		if (sp) {
			char *e;
			if (asprintf(&e, "LD_PRELOAD=%s%s", PB_PRELOAD_NAME, sp) >= 0) {
				json_array_append_new(a, json_string(e));
				free(e);
			}
		} else {
			json_array_append_new(a, json_string(v[i]));
		}
	}
	return a;
}

static json_t *run_json(const struct pb_cmd_record *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "run", json_integer((json_int_t)r->index));
	json_object_set_new(o, "warmup", json_boolean(r->warmup));
	json_object_set_new(o, "position", json_integer((json_int_t)r->position));
	if (r->duet_slot) { /* --duet: which of the two CPU sets, who started first */
		json_object_set_new(o, "duet_slot", json_integer(r->duet_slot));
		json_object_set_new(o, "spawned_first", json_boolean(r->spawned_first));
	}
	json_object_set_new(o, "real_ns", pb_json_number(r->run.wall_ns));
	json_object_set_new(o, "user_ns", pb_json_number(r->run.user_ns));
	json_object_set_new(o, "sys_ns", pb_json_number(r->run.sys_ns));
	json_object_set_new(o, "max_rss_kib", json_integer(r->run.max_rss_kib));
	json_object_set_new(o, "minflt", json_integer(r->run.minflt));
	json_object_set_new(o, "majflt", json_integer(r->run.majflt));
	json_object_set_new(o, "nvcsw", json_integer(r->run.nvcsw));
	json_object_set_new(o, "nivcsw", json_integer(r->run.nivcsw));
	json_object_set_new(o, "exit_code",
	                    r->run.exit_code >= 0 ? json_integer(r->run.exit_code) : json_null());
	json_object_set_new(o, "term_signal",
	                    r->run.term_signal ? json_integer(r->run.term_signal) : json_null());
	json_object_set_new(o, "leftovers", json_integer(r->run.leftovers));
	if (r->run.counters) {
		json_object_set_new(o, "instructions", pb_json_number(r->run.instructions));
		json_object_set_new(o, "cycles", pb_json_number(r->run.cycles));
	}
	if (r->padded)
		json_object_set_new(o, "pad_bytes", json_integer((json_int_t)r->pad_bytes));
	return o;
}

json_t *pb_cmd_case_json(const struct pb_cmd_spec *spec, bool shell, int side,
                         const struct pb_cmd_record *recs, size_t n, double first_ratio,
                         bool first_outlier)
{
	double *v = malloc((n ? n : 1) * sizeof *v);
	if (!v) {
		pb_fail("out of memory");
		return NULL;
	}
	json_t *o = json_object(), *key = pb_results_key("cmd");
	json_object_set_new(key, "argv", string_array(spec->argv));
	json_object_set_new(key, "shell", json_boolean(shell));
	json_object_set_new(key, "cwd", spec->cwd ? json_string(spec->cwd) : json_null());
	json_object_set_new(key, "env", env_key(spec->env_set));
	json_object_set_new(key, "side", json_string(side ? "B" : "A"));
	/* Only when given: the keys of files without it still match. */
	if (spec->wait_children)
		json_object_set_new(key, "wait_children", json_true());
	json_object_set_new(o, "key", key);
	json_object_set_new(o, "unit", json_string("ns"));
	json_object_set_new(o, "overhead_subtracted", json_false());

	json_t *samples = json_array(), *runs = json_array();
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (recs[i].side != side)
			continue;
		json_array_append_new(runs, run_json(&recs[i]));
		if (recs[i].warmup)
			continue;
		json_array_append_new(samples,
		                      json_pack("[o,i]", pb_json_number(recs[i].run.wall_ns), 1));
		v[m++] = recs[i].run.wall_ns;
	}
	json_object_set_new(o, "samples", samples);
	if (m > 0) {
		struct pb_summary s;
		json_t *figs = json_object();
		bool counted = false; /* instructions and cycles, when measured */
		for (size_t i = 0; i < n; i++)
			counted |= recs[i].side == side && !recs[i].warmup && recs[i].run.counters;
		for (int f = 0; f <= PB_CMD_CYCLES; f++) {
			if (f == PB_CMD_USER_SYS || (pb_cmd_metric_is_counter(f) && !counted))
				continue;
			size_t k = 0;
			for (size_t i = 0; i < n; i++)
				if (recs[i].side == side && !recs[i].warmup)
					v[k++] = pb_cmd_metric_value(&recs[i].run, f);
			if (pb_summarize(v, k, 0.95, &s) == 0) {
				if (f == PB_CMD_REAL)
					json_object_set_new(o, "per_call", pb_json_summary(&s));
				json_object_set_new(figs, pb_cmd_figure_name((enum pb_cmd_figure)f),
				                    pb_json_summary(&s));
			}
		}
		json_object_set_new(o, "figures", figs);
		json_t *fr = json_object();
		json_object_set_new(fr, "ratio_to_later_median", pb_json_number(first_ratio));
		json_object_set_new(fr, "outlier", json_boolean(first_outlier));
		json_object_set_new(o, "first_run", fr);
	}
	json_object_set_new(o, "runs", runs);
	free(v);
	return o;
}

json_t *pb_layout_json(const struct pb_layout_plan *pl, const struct pb_layout_audit *a,
                       size_t runs_per_size, const char *metric)
{
	json_t *o = json_object();
	json_object_set_new(
	    o, "mode", json_string(pl->mode == PB_LAYOUT_RANDOM ? "randomize-env" : "audit-only"));
	json_object_set_new(o, "variable", json_string(PB_LAYOUT_PAD_NAME));
	json_object_set_new(o, "pad_bytes_max", json_integer(PB_LAYOUT_PAD_MAX_BYTES));
	json_object_set_new(o, "seed", json_integer((json_int_t)pl->seed));
	int aslr = pb_layout_aslr();
	json_object_set_new(o, "randomize_va_space", aslr >= 0 ? json_integer(aslr) : json_null());
	if (!a)
		return o;
	json_t *au = json_object(), *sizes = json_array(), *med = json_array();
	for (unsigned g = 0; g < a->k; g++) {
		json_array_append_new(sizes, json_integer(pb_layout_audit_size(g)));
		json_array_append_new(med, a->valid ? pb_json_number(a->median[g]) : json_null());
	}
	json_object_set_new(au, "sizes_bytes", sizes);
	json_object_set_new(au, "runs_per_size", json_integer((json_int_t)runs_per_size));
	json_object_set_new(au, "metric", json_string(metric));
	json_object_set_new(au, "valid", json_boolean(a->valid));
	json_object_set_new(au, "medians", med);
	if (a->valid) {
		size_t n = 0;
		for (unsigned g = 0; g < a->k; g++)
			n += a->n[g];
		json_object_set_new(au, "spread", pb_json_number(a->spread));
		json_object_set_new(au, "kruskal_wallis",
		                    json_pack("{s:o,s:i,s:o}", "h", pb_json_number(a->kw_h), "df",
		                              (int)a->k - 1, "p", pb_json_number(a->kw_p)));
		json_object_set_new(au, "anova_log",
		                    json_pack("{s:o,s:i,s:i,s:o,s:o}", "f",
		                              pb_json_number(a->anova_f), "df1", (int)a->k - 1,
		                              "df2", (int)(n - a->k), "p",
		                              pb_json_number(a->anova_p), "between_share",
		                              pb_json_number(a->between_share)));
	}
	json_object_set_new(o, "audit", au);
	return o;
}

json_t *pb_cmd_ab_looks_json(const struct pb_cmd_ab_look *looks, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct pb_cmd_ab_look *l = &looks[i];
		json_t *lj = json_object();
		json_object_set_new(lj, "runs_per_side",
		                    json_integer((json_int_t)l->runs_per_side));
		json_object_set_new(lj, "ratio", pb_json_number(l->ratio));
		json_object_set_new(lj, "ci_lo", pb_json_number(l->ci_lo));
		json_object_set_new(lj, "ci_hi", pb_json_number(l->ci_hi));
		json_object_set_new(lj, "verdict", json_string(pb_verdict_name(l->verdict)));
		json_array_append_new(a, lj);
	}
	return a;
}

/* A side's profile as its case's "profile" object (primbench/profile.h,
 * struct pb_cmd_profile_record): pb_profile_json's 30 first symbols, then
 * how it was sampled. */
static json_t *cmd_profile_json(const struct pb_cmd_profile_record *e)
{
	json_t *o = pb_profile_json(e->prof, 30);
	json_object_set_new(o, "event_requested", json_string(e->event_requested));
	json_object_set_new(o, "event_kind", json_string(e->software ? "software" : "hardware"));
	json_object_set_new(o, "no_hardware_reason",
	                    e->software ? json_string(e->no_hardware_reason) : json_null());
	json_object_set_new(
	    o, "perf_event_paranoid",
	    e->perf_event_paranoid == INT_MIN ? json_null() : json_integer(e->perf_event_paranoid));
	json_object_set_new(o, "kptr_restrict",
	                    e->kptr_restrict == INT_MIN ? json_null()
	                                                : json_integer(e->kptr_restrict));
	json_object_set_new(o, "root", json_boolean(e->root));
	json_object_set_new(o, "preload", json_boolean(e->preload));
	return o;
}

int pb_results_add_cmd_case(struct pb_results_doc *doc, const struct pb_cmd_case *c,
                            const struct pb_acct_tables *acct,
                            const struct pb_cmd_profile_record *prof)
{
	json_t *o = pb_cmd_case_json(c->spec, c->shell, c->side, c->recs, c->n, c->first_ratio,
	                             c->first_outlier);
	if (!o)
		return -1;
	if (acct)
		json_object_set_new(o, "accounting", pb_results_acct_json(acct));
	if (prof)
		json_object_set_new(o, "profile", cmd_profile_json(prof));
	json_t *root = pb_results_doc_json(doc);
	json_t *cases = json_object_get(root, "cases");
	if (!cases) {
		cases = json_array();
		json_object_set_new(root, "cases", cases);
	}
	if (json_array_append_new(cases, o) != 0)
		return pb_fail("out of memory");
	return 0;
}

int pb_results_add_layout(struct pb_results_doc *doc, const struct pb_layout_plan *pl,
                          const struct pb_layout_audit *a, size_t runs_per_size, const char *metric)
{
	json_t *o = pb_layout_json(pl, a, runs_per_size, metric);
	if (!o || json_object_set_new(pb_results_doc_json(doc), "layout", o) != 0)
		return pb_fail("out of memory");
	return 0;
}
