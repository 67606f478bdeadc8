/* compare_out.c - a comparison of result files as JSON, and the
 * differences of two machines (include/primbench/compare_result.h,
 * docs/results-schema.md "compare output"). */
#define _GNU_SOURCE
#include "primbench/compare_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "primbench/error.h"
#include "primbench/profile.h"
#include "primbench/xalloc.h"
#include "results/results_json.h"
#include "results/typed.h"

static char *full_name(const struct pb_results_case *c)
{
	return pb_xasprintf("%s: %s", c->group, c->label);
}

static bool same(const json_t *a, const json_t *b)
{
	return (!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b));
}

/* ---- machines ------------------------------------------------------------ */

static const char *const hardware_fields[] = {
    "cpu.vendor", "cpu.family", "cpu.model", "cpu.stepping", "cpu.online_cpus",
};

static const char *const software_fields[] = {
    "cpu.microcode",
    "kernel",
    "kernel_version",
    "mitigations.cmdline",
    "mitigations.vulnerabilities", /* per entry */
    "thp.enabled",
    "thp.defrag",
    "preemption.model",
    "preemption.dynamic",
    "preemption.cmdline",
    "hugepages.2048kB.reserved",
    "hugepages.1048576kB.reserved",
    "cpufreq.governor",
    "glibc.version",
    "glibc.tunables_env",
    "glibc.x86_rep_movsb_threshold",
    "glibc.x86_rep_stosb_threshold",
    "glibc.x86_non_temporal_threshold",
    "glibc.x86_shared_cache_size",
    "glibc.x86_data_cache_size",
    "build.primbench_version",
    "build.compiler",
    "build.build_flags",
    "features.usable", /* as sets */
    "caches.line_bytes",
    "caches.L1d.size_bytes",
    "caches.L2.size_bytes",
    "caches.LLC.size_bytes",
    "timer.clock",
};

static void diff_push(struct pb_compare_diff **d, size_t *n, size_t *cap, char *field, char *a,
                      char *b)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		struct pb_compare_diff *nd = realloc(*d, *cap * sizeof *nd);
		if (!nd) {
			fputs("primbench: out of memory\n", stderr);
			abort();
		}
		*d = nd;
	}
	(*d)[(*n)++] = (struct pb_compare_diff){field, a, b};
}

static void scalar_diff(struct pb_compare_diff **d, size_t *n, size_t *cap, const char *field,
                        const json_t *a, const json_t *b)
{
	if (!same(a, b))
		diff_push(d, n, cap, pb_xstrdup(field), pb_json_text(a), pb_json_text(b));
}

/* The elements of a not in b, space-separated ("(none)" when none). */
static char *set_minus(const json_t *a, const json_t *b)
{
	char *s = pb_json_array_minus_text(a, b);
	if (!*s)
		pb_xappend(&s, "(none)");
	return s;
}

int pb_compare_hardware_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < sizeof hardware_fields / sizeof *hardware_fields; i++)
		scalar_diff(out, &n, &cap, hardware_fields[i], pb_json_path(ma, hardware_fields[i]),
		            pb_json_path(mb, hardware_fields[i]));
	return (int)n;
}

int pb_compare_software_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out)
{
	size_t n = 0, cap = 0;
	*out = NULL;
	for (size_t i = 0; i < sizeof software_fields / sizeof *software_fields; i++) {
		const char *field = software_fields[i];
		const json_t *a = pb_json_path(ma, field), *b = pb_json_path(mb, field);
		if (same(a, b))
			continue;
		if (!strcmp(field, "mitigations.vulnerabilities") && json_is_object(a) &&
		    json_is_object(b)) {
			/* Entry by entry, in name order. */
			size_t k;
			const char **names = pb_json_field_names(a, b, &k);
			for (size_t j = 0; j < k; j++) {
				char *f = pb_xasprintf("%s.%s", field, names[j]);
				scalar_diff(out, &n, &cap, f, json_object_get(a, names[j]),
				            json_object_get(b, names[j]));
				free(f);
			}
			free(names);
		} else if (!strcmp(field, "features.usable") && json_is_array(a) &&
		           json_is_array(b)) {
			char *only_a = set_minus(a, b), *only_b = set_minus(b, a);
			if (!strcmp(only_a, "(none)") && !strcmp(only_b, "(none)")) {
				free(only_a); /* the same set in another order */
				free(only_b);
				continue;
			}
			diff_push(out, &n, &cap, pb_xstrdup("features.usable (not in both)"),
			          only_a, only_b);
		} else {
			scalar_diff(out, &n, &cap, field, a, b);
		}
	}
	return (int)n;
}

void pb_compare_diffs_free(struct pb_compare_diff *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].field);
		free(d[i].a);
		free(d[i].b);
	}
	free(d);
}

/* The machine m as its JSON object (from its facts). New reference. */
static json_t *machine_json(const struct pb_results_machine *m)
{
	json_t *o = pb_facts_to_json(&m->facts, NULL, 0);
	return o ? o : json_object();
}

int pb_results_hardware_diffs(const struct pb_results_machine *ma,
                              const struct pb_results_machine *mb, struct pb_compare_diff **out)
{
	json_t *a = machine_json(ma), *b = machine_json(mb);
	int n = pb_compare_hardware_diffs(a, b, out);
	json_decref(a);
	json_decref(b);
	return n;
}

int pb_results_software_diffs(const struct pb_results_machine *ma,
                              const struct pb_results_machine *mb, struct pb_compare_diff **out)
{
	json_t *a = machine_json(ma), *b = machine_json(mb);
	int n = pb_compare_software_diffs(a, b, out);
	json_decref(a);
	json_decref(b);
	return n;
}

/* ---- the comparison as JSON ---------------------------------------------------------------- */

static json_t *side_json(const struct pb_summary *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)s->n));
	json_object_set_new(o, "median", pb_json_number(s->median));
	json_object_set_new(o, "ci_lo", s->ci_valid ? pb_json_number(s->ci_lo) : json_null());
	json_object_set_new(o, "ci_hi", s->ci_valid ? pb_json_number(s->ci_hi) : json_null());
	return o;
}

static json_t *names_json(const struct pb_results_case *const *cases, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		char *name = full_name(cases[i]);
		json_object_set_new(o, "name", json_string(name));
		free(name);
		json_object_set_new(o, "key", pb_key_to_json(&cases[i]->fields));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *diffs_json(const struct pb_compare_diff *d, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "field", json_string(d[i].field));
		json_object_set_new(o, "old", json_string(d[i].a));
		json_object_set_new(o, "new", json_string(d[i].b));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *pb_compare_json(const struct pb_compare_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "old", json_string(r->fa->path));
	json_object_set_new(o, "new", json_string(r->fb->path));
	/* with `--`, every file of a side ("old"/"new": the first of each) */
	json_t *fa = json_array(), *fb = json_array();
	size_t na = r->side_a ? r->nside_a : 1, nb = r->side_b ? r->nside_b : 1;
	for (size_t i = 0; i < na; i++)
		json_array_append_new(fa,
		                      json_string(r->side_a ? r->side_a[i]->path : r->fa->path));
	for (size_t i = 0; i < nb; i++)
		json_array_append_new(fb,
		                      json_string(r->side_b ? r->side_b[i]->path : r->fb->path));
	json_object_set_new(o, "old_files", fa);
	json_object_set_new(o, "new_files", fb);
	json_object_set_new(o, "hardware_differs", diffs_json(r->hw, r->nhw));
	json_object_set_new(o, "software_differs", diffs_json(r->sw, r->nsw));
	json_t *cases = json_array();
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		json_t *c = json_object();
		char *name = full_name(row->a);
		json_object_set_new(c, "name", json_string(name));
		free(name);
		json_object_set_new(c, "key", pb_key_to_json(&row->a->fields));
		json_object_set_new(c, "unit", json_string(row->unit));
		json_object_set_new(c, "old", side_json(&row->sa));
		json_object_set_new(c, "new", side_json(&row->sb));
		json_t *d = json_object();
		json_object_set_new(d, "method", json_string(row->ratio ? "ratio" : "shift"));
		json_object_set_new(d, "estimate", pb_json_number(row->shift.estimate));
		json_object_set_new(
		    d, "lo", row->shift.ci_valid ? pb_json_number(row->shift.lo) : json_null());
		json_object_set_new(
		    d, "hi", row->shift.ci_valid ? pb_json_number(row->shift.hi) : json_null());
		json_object_set_new(d, "coverage",
		                    row->shift.ci_valid ? pb_json_number(row->shift.coverage)
		                                        : json_null());
		json_object_set_new(d, "pct", pb_json_number(row->pct));
		json_object_set_new(d, "pct_lo", pb_json_number(row->pct_lo));
		json_object_set_new(d, "pct_hi", pb_json_number(row->pct_hi));
		json_object_set_new(c, "delta", d);
		json_object_set_new(c, "p", pb_json_number(row->u.p));
		json_object_set_new(c, "p_exact", json_boolean(row->u.exact));
		json_object_set_new(c, "significant", json_boolean(row->significant));
		json_object_set_new(c, "verdict", json_string(pb_verdict_name(row->verdict)));
		/* v2: the runs the delta is about */
		json_t *runs = json_object();
		/* a cmd row judged on its samples: each a process */
		bool procs = !row->run_level && !row->one_run && pb_key_is_cmd(&row->a->fields);
		json_object_set_new(runs, "unit",
		                    json_string(procs                              ? "process"
		                                : r->nside_a > 1 || r->nside_b > 1 ? "file"
		                                                                   : "replicate"));
		json_object_set_new(runs, "old", json_integer((json_int_t)row->runs_a));
		json_object_set_new(runs, "new", json_integer((json_int_t)row->runs_b));
		json_object_set_new(runs, "run_level", json_boolean(row->run_level));
		json_object_set_new(runs, "one_run", json_boolean(row->one_run));
		if (row->run_level) {
			json_object_set_new(runs, "method", json_string("welch-t-log"));
			json_object_set_new(runs, "df", pb_json_number(row->runs.df));
			json_object_set_new(runs, "sd_log_old", pb_json_number(row->runs.sd_log_a));
			json_object_set_new(runs, "sd_log_new", pb_json_number(row->runs.sd_log_b));
		}
		json_object_set_new(c, "runs", runs);
		json_object_set_new(c, "kernel_revision_old", json_integer(row->rev_a));
		json_object_set_new(c, "kernel_revision_new", json_integer(row->rev_b));
		json_object_set_new(c, "thinned", json_boolean(row->thinned));
		if (pb_facts_has(&row->a->facts, "profile") &&
		    pb_facts_has(&row->b->facts, "profile")) {
			json_t *fams = json_array();
			for (int k = 0; k < PB_PROF_NFAMILIES; k++) {
				double sa, sb;
				const char *fname = pb_prof_families[k].name;
				bool ca = pb_results_case_profile_share(row->a, fname, &sa) == 0;
				bool cb = pb_results_case_profile_share(row->b, fname, &sb) == 0;
				json_array_append_new(
				    fams,
				    json_pack("{s:s, s:o, s:o, s:o}", "name", fname, "old",
				              ca ? pb_json_number(sa) : json_null(), "new",
				              cb ? pb_json_number(sb) : json_null(), "change",
				              ca && cb ? pb_json_number(sb - sa) : json_null()));
			}
			json_object_set_new(c, "profile", json_pack("{s:o}", "families", fams));
		}
		json_array_append_new(cases, c);
	}
	json_object_set_new(o, "cases", cases);
	json_t *gm = json_array();
	for (size_t g = 0; g < r->ngm; g++) {
		json_t *m = json_object();
		json_object_set_new(m, "unit", json_string(r->gm[g].unit));
		json_object_set_new(m, "n", json_integer((json_int_t)r->gm[g].n));
		json_object_set_new(m, "old", pb_json_number(r->gm[g].a));
		json_object_set_new(m, "new", pb_json_number(r->gm[g].b));
		json_object_set_new(m, "ratio", pb_json_number(r->gm[g].ratio));
		json_array_append_new(gm, m);
	}
	json_object_set_new(o, "geomean", gm);
	json_object_set_new(o, "only_in_old", names_json(r->only_a, r->nonly_a));
	json_object_set_new(o, "only_in_new", names_json(r->only_b, r->nonly_b));
	json_t *notes = json_array();
	for (size_t i = 0; i < r->nnotes; i++)
		json_array_append_new(notes, json_string(r->notes[i]));
	json_object_set_new(o, "notes", notes);
	return o;
}

/* ---- the compare document ------------------------------------------------ */

static json_t *file_json(const struct pb_results_file *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "path", json_string(f->path));
	const char *hash[] = {"fingerprint_hash"}, *started[] = {"started_at"};
	json_t *h = pb_facts_to_json(&f->mach.facts, hash, 1);
	json_object_set_new(o, "fingerprint_hash", h ? h : json_null());
	json_t *s = pb_facts_to_json(&f->facts, started, 1);
	json_object_set_new(o, "started_at", s ? s : json_null());
	json_object_set_new(o, "cases", json_integer((json_int_t)f->ncases));
	json_object_set_new(o, "cases_without_samples", json_integer((json_int_t)f->nskipped));
	return o;
}

struct pb_results_doc *pb_results_compare_new(int argc, char *const *argv, double level,
                                              double margin, bool force,
                                              const struct pb_results_file *files, size_t nfiles)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string(PB_COMPARE_SCHEMA));
	json_object_set_new(doc, "schema_version", json_integer(PB_COMPARE_SCHEMA_VERSION));
	json_t *cl = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cl, json_string(argv[i]));
	json_object_set_new(doc, "command_line", cl);
	json_object_set_new(doc, "level", json_real(level));
	json_object_set_new(doc, "equivalence", json_real(margin));
	json_object_set_new(doc, "forced", json_boolean(force));
	json_t *fl = json_array();
	for (size_t i = 0; i < nfiles; i++)
		json_array_append_new(fl, file_json(&files[i]));
	json_object_set_new(doc, "files", fl);
	struct pb_results_doc *d = pb_results_doc_adopt(doc);
	if (!d)
		pb_fail("compare: out of memory");
	return d;
}

void pb_results_compare_sides(struct pb_results_doc *doc, const struct pb_results_file *files,
                              size_t n, size_t na)
{
	json_t *sides = json_object(), *ja = json_array(), *jb = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(i < na ? ja : jb, json_string(files[i].path));
	json_object_set_new(sides, "old", ja);
	json_object_set_new(sides, "new", jb);
	json_object_set_new(pb_results_doc_json(doc), "sides", sides);
}

int pb_results_add_comparison(struct pb_results_doc *doc, const struct pb_compare_result *r)
{
	json_t *root = pb_results_doc_json(doc);
	json_t *comparisons = json_object_get(root, "comparisons");
	if (!comparisons) {
		comparisons = json_array();
		if (json_object_set_new(root, "comparisons", comparisons) != 0)
			return pb_fail("compare: out of memory");
	}
	json_t *c = pb_compare_json(r);
	if (!c || json_array_append_new(comparisons, c) != 0)
		return pb_fail("compare: out of memory");
	return 0;
}

int pb_results_add_gate(struct pb_results_doc *doc, const struct pb_gate *g)
{
	json_t *comparisons = json_object_get(pb_results_doc_json(doc), "comparisons");
	size_t n = json_array_size(comparisons);
	if (!n)
		return pb_fail("compare: a gate before any comparison");
	json_t *o = json_object(), *fl = json_array();
	if (!o || !fl) {
		json_decref(o);
		json_decref(fl);
		return pb_fail("compare: out of memory");
	}
	json_object_set_new(o, "threshold_pct", pb_json_number(g->pct));
	json_object_set_new(o, "failed", json_boolean(g->nfail > 0));
	json_object_set_new(o, "cases_judged", json_integer((json_int_t)g->cases_judged));
	json_object_set_new(o, "cases_unjudged", json_integer((json_int_t)g->cases_unjudged));
	json_object_set_new(o, "geomeans_judged", json_integer((json_int_t)g->geomeans_judged));
	json_object_set_new(o, "geomeans_unjudged", json_integer((json_int_t)g->geomeans_unjudged));
	for (size_t i = 0; i < g->nfail; i++) {
		const struct pb_gate_failure *f = &g->fail[i];
		json_t *e = json_object();
		json_object_set_new(e, "kind", json_string(f->row ? "case" : "geomean"));
		if (f->row) {
			char *name = full_name(f->row->a);
			json_object_set_new(e, "name", json_string(name));
			free(name);
			json_object_set_new(e, "key", pb_key_to_json(&f->row->a->fields));
		} else {
			json_object_set_new(e, "name",
			                    f->group ? json_string(f->group) : json_null());
			json_object_set_new(e, "key", json_null());
		}
		json_object_set_new(e, "group", f->group ? json_string(f->group) : json_null());
		json_object_set_new(e, "unit", json_string(f->unit));
		json_object_set_new(e, "n", json_integer((json_int_t)f->n));
		json_object_set_new(e, "pct", pb_json_number(f->pct));
		json_object_set_new(e, "pct_lo", pb_json_number(f->pct_lo));
		json_object_set_new(e, "pct_hi", pb_json_number(f->pct_hi));
		json_array_append_new(fl, e);
	}
	json_object_set_new(o, "failures", fl);
	if (json_object_set_new(json_array_get(comparisons, n - 1), "gate", o) != 0)
		return pb_fail("compare: out of memory");
	return 0;
}

int pb_results_compare_print(FILE *f, const struct pb_results_doc *doc)
{
	char *text =
	    json_dumps(pb_results_doc_cjson(doc), JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text)
		return pb_fail("out of memory");
	fprintf(f, "%s\n", text);
	free(text);
	return 0;
}
