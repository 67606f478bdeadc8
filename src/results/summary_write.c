/* summary_write.c - the `summary` object of a result document written
 * from its record, and the measured checks of a stored one read back
 * (include/primbench/summary_result.h, docs/results-schema.md "summary"). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "primbench/error.h"
#include "primbench/reader.h"
#include "results/results_json.h"
#include "primbench/summary_result.h"

void pb_summary_report_free(struct pb_summary_report *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_libc; i++)
		free(s->libc[i].fastest_other);
	free(s->libc);
	free(s->glibc.thresholds);
	free(s->glibc.policies);
	free(s->glibc.measured);
	for (size_t i = 0; i < s->n_crossings; i++)
		free(s->crossings[i].name);
	free(s->crossings);
	for (size_t i = 0; i < s->n_text; i++)
		free(s->text[i]);
	free(s->text);
	free(s);
}

/* ---- writing -------------------------------------------------------------- */

static json_t *triple(const double v[3])
{
	return json_pack("[o,o,o]", pb_json_number(v[0]), pb_json_number(v[1]),
	                 pb_json_number(v[2]));
}

static json_t *pair(const double v[2])
{
	return json_pack("[o,o]", pb_json_number(v[0]), pb_json_number(v[1]));
}

static json_t *rules_json(const struct pb_summary_rules *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "margin", json_real(r->margin));
	json_object_set_new(o, "within_noise", json_string(r->within_noise));
	json_object_set_new(o, "behind", json_string(r->behind));
	json_object_set_new(o, "ahead", json_string(r->ahead));
	json_object_set_new(o, "cannot_tell", json_string(r->cannot_tell));
	json_object_set_new(o, "consistent", json_string(r->consistent));
	json_object_set_new(o, "too_noisy_to_conclude", json_string(r->too_noisy_to_conclude));
	return o;
}

static json_t *libc_json(const struct pb_summary_libc *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(x->op));
	json_object_set_new(o, "cache_state", json_string(x->cache_state));
	json_object_set_new(o, "size_bytes", json_integer((json_int_t)x->size_bytes));
	json_object_set_new(o, "verdict", json_string(x->verdict));
	json_object_set_new(o, "fastest_other", json_string(x->fastest_other));
	json_object_set_new(o, "libc_ticks", triple(x->libc_ticks));
	json_object_set_new(o, "fastest_ticks", triple(x->fastest_ticks));
	json_object_set_new(o, "ratio", pb_json_number(x->ratio));
	json_object_set_new(o, "ratio_least", pb_json_number(x->ratio_least));
	json_object_set_new(o, "ratio_bound", pb_json_number(x->ratio_bound));
	json_object_set_new(o, "ratio_ci", pair(x->ratio_ci));
	return o;
}

static json_t *size_or_null(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *threshold_json(const struct pb_summary_threshold *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(t->op));
	json_object_set_new(o, "cache_state", json_string(t->cache_state));
	json_object_set_new(o, "threshold", json_string(t->threshold));
	json_object_set_new(o, "threshold_bytes", json_integer((json_int_t)t->threshold_bytes));
	json_object_set_new(o, "verdict", json_string(t->verdict));
	json_object_set_new(o, "lower_path", json_string(t->lower_path));
	json_object_set_new(o, "upper_path", json_string(t->upper_path));
	json_object_set_new(o, "lower_faster_up_to_bytes",
	                    size_or_null(t->lower_faster_up_to_bytes));
	json_object_set_new(o, "upper_faster_from_bytes", size_or_null(t->upper_faster_from_bytes));
	return o;
}

static json_t *policy_json(const struct pb_summary_policy *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(p->op));
	json_object_set_new(o, "cache_state", json_string(p->cache_state));
	json_object_set_new(o, "policy", json_string(p->policy));
	json_object_set_new(o, "switches", json_integer((json_int_t)p->switches));
	if (p->has_env) {
		json_object_set_new(o, "env", json_string(p->env));
		json_object_set_new(o, "current_is_closest", json_boolean(p->current_is_closest));
		json_object_set_new(o, "mismatch_octaves", pb_json_number(p->mismatch_octaves));
		json_object_set_new(o, "libc_behind_sizes",
		                    json_integer((json_int_t)p->libc_behind_sizes));
	}
	json_t *peers = json_array();
	for (size_t i = 0; i < p->n_bands && i < PB_POLICY_MAX_BANDS; i++) {
		json_t *one = json_array();
		for (size_t k = 0; k < p->n_peers[i] && k < PB_SUMMARY_MAX_PEERS; k++)
			json_array_append_new(one, json_string(p->peers[i][k]));
		json_array_append_new(peers, one);
	}
	json_object_set_new(o, "policy_peers", peers);
	return o;
}

json_t *pb_results_glibc_check_json(const struct pb_glibc_check *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n_rows && i < PB_GLIBC_CHECK_MAX_ROWS; i++) {
		const struct pb_glibc_check_row *e = &c->rows[i];
		json_t *r = json_object();
		json_object_set_new(r, "size_bytes", json_integer((json_int_t)e->size_bytes));
		json_object_set_new(r, "unit", e->unit[0] ? json_string(e->unit) : json_null());
		json_object_set_new(r, "without", pb_json_number(e->without));
		json_object_set_new(r, "with", pb_json_number(e->with));
		json_object_set_new(r, "pct", pb_json_number(e->pct));
		json_object_set_new(r, "pct_lo", pb_json_number(e->pct_lo));
		json_object_set_new(r, "pct_hi", pb_json_number(e->pct_hi));
		json_object_set_new(r, "run_level", json_boolean(e->run_level));
		json_object_set_new(r, "verdict", json_string(pb_verdict_name(e->verdict)));
		json_object_set_new(r, "word", json_string(e->word[0] ? e->word : "missing"));
		json_object_set_new(r, "predicted_pct", pb_json_number(e->predicted_pct));
		json_object_set_new(r, "predicted_kernel",
		                    e->predicted_kernel[0] ? json_string(e->predicted_kernel)
		                                           : json_null());
		json_array_append_new(a, r);
	}
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(c->op));
	json_object_set_new(o, "cache_state", json_string(c->cache_state));
	json_object_set_new(o, "env", json_string(c->env));
	json_object_set_new(o, "processes_a", json_integer((json_int_t)c->processes_a));
	json_object_set_new(o, "processes_b", json_integer((json_int_t)c->processes_b));
	json_object_set_new(o, "order", json_string(c->order));
	json_object_set_new(o, "margin", json_real(c->margin));
	json_object_set_new(o, "rows", a);
	return o;
}

static json_t *glibc_json(const struct pb_summary_glibc *g)
{
	json_t *o = json_object(), *th = json_array(), *pol = json_array();
	for (size_t i = 0; i < g->n_thresholds; i++)
		json_array_append_new(th, threshold_json(&g->thresholds[i]));
	for (size_t i = 0; i < g->n_policies; i++)
		json_array_append_new(pol, policy_json(&g->policies[i]));
	json_object_set_new(o, "thresholds", th);
	json_object_set_new(o, "policies", pol);
	if (g->has_cases_other_code)
		json_object_set_new(o, "cases_other_code",
		                    json_integer((json_int_t)g->cases_other_code));
	if (g->has_measured) {
		json_t *m = json_array();
		for (size_t i = 0; i < g->n_measured; i++)
			json_array_append_new(m, pb_results_glibc_check_json(&g->measured[i]));
		json_object_set_new(o, "measured", m);
	}
	return o;
}

static json_t *crossing_json(const struct pb_summary_crossing *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "case", json_string(x->name ? x->name : "?"));
	if (x->has_figure) {
		json_object_set_new(o, "ns_per_op", pb_json_number(x->ns_per_op));
		json_object_set_new(o, "ci_ns", pair(x->ci_ns));
		json_object_set_new(o, "ci_halfwidth_pct", pb_json_number(x->ci_halfwidth_pct));
	}
	return o;
}

static json_t *trust_json(const struct pb_summary_trust *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "cases", json_integer((json_int_t)t->cases));
	json_object_set_new(o, "samples", json_integer((json_int_t)t->samples));
	json_object_set_new(o, "widest_ci_halfwidth_pct",
	                    pb_json_number(t->widest_ci_halfwidth_pct));
	json_object_set_new(o, "widest_ci_case", json_string(t->widest_ci_case));
	json_object_set_new(o, "noisy_cases", json_integer((json_int_t)t->noisy_cases));
	json_object_set_new(o, "cases_without_ci", json_integer((json_int_t)t->cases_without_ci));
	json_object_set_new(o, "migrations", json_integer((json_int_t)t->migrations));
	json_object_set_new(o, "outliers", json_integer((json_int_t)t->outliers));
	json_object_set_new(o, "high_noise", json_boolean(t->high_noise));
	json_object_set_new(o, "too_noisy_to_conclude", json_boolean(t->too_noisy_to_conclude));
	json_object_set_new(o, "interrupted", json_boolean(t->interrupted));
	return o;
}

json_t *pb_results_summary_json(const struct pb_summary_report *s)
{
	json_t *o = json_object();
	if (!o) {
		pb_fail("out of memory");
		return NULL;
	}
	json_object_set_new(o, "rules", rules_json(&s->rules));
	json_t *libc = json_array();
	for (size_t i = 0; i < s->n_libc; i++)
		json_array_append_new(libc, libc_json(&s->libc[i]));
	json_object_set_new(o, "libc", libc);
	json_object_set_new(o, "glibc", glibc_json(&s->glibc));
	json_t *xs = json_array();
	for (size_t i = 0; i < s->n_crossings; i++)
		json_array_append_new(xs, crossing_json(&s->crossings[i]));
	json_object_set_new(o, "crossings", xs);
	json_object_set_new(o, "trust", trust_json(&s->trust));
	json_t *text = json_array();
	for (size_t i = 0; i < s->n_text; i++)
		json_array_append_new(text, json_string(s->text[i]));
	json_object_set_new(o, "text", text);
	return o;
}

int pb_results_add_summary(struct pb_results_doc *doc, const struct pb_summary_report *s)
{
	json_t *o = pb_results_summary_json(s);
	if (!o || json_object_set_new(pb_results_doc_json(doc), "summary", o) != 0)
		return pb_fail("out of memory");
	return 0;
}

/* ---- reading the measured checks ------------------------------------------ */

static bool printable(const char *s, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (n >= max || (unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	return n > 0;
}

/* A number of row `r` under key k in [lo, hi] (null allowed when
 * nullable: NAN). Returns false with pb_error() naming it. */
static bool row_num(const json_t *r, size_t i, size_t j, const char *k, double lo, double hi,
                    bool nullable, double *out)
{
	const json_t *v = json_object_get(r, k);
	*out = NAN;
	if (nullable && (!v || json_is_null(v)))
		return true;
	if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi)) {
		pb_fail("summary.glibc.measured[%zu].rows[%zu].%s: %s", i, j, k,
		        json_is_number(v) ? "out of range" : "not a number");
		return false;
	}
	*out = json_number_value(v);
	return true;
}

/* Row j of check i into e. */
static bool read_row(const json_t *r, size_t i, size_t j, struct pb_glibc_check_row *e)
{
	static const char *const words[] = {"faster", "slower", "same", "unclear", "missing"};
	static const char *const units[] = {"tsc_ticks", "ns"};
	memset(e, 0, sizeof *e);
	const json_t *size = json_object_get(r, "size_bytes");
	if (!json_is_object(r) || !json_is_integer(size) || json_integer_value(size) <= 0 ||
	    json_integer_value(size) > (json_int_t)1 << 50)
		return pb_fail("summary.glibc.measured[%zu].rows[%zu]: %s", i, j,
		               json_is_object(r) ? "size_bytes is not a size from 1 B to 1 PiB"
		                                 : "not an object"),
		       false;
	e->size_bytes = (uint64_t)json_integer_value(size);
	const char *word = json_string_value(json_object_get(r, "word"));
	for (size_t w = 0; word && w < sizeof words / sizeof *words; w++)
		if (!strcmp(word, words[w]))
			snprintf(e->word, sizeof e->word, "%s", words[w]);
	if (!e->word[0])
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].word: not one of faster, "
		               "slower, same, unclear, missing",
		               i, j),
		       false;
	bool measured = strcmp(e->word, "missing") != 0;
	const json_t *u = json_object_get(r, "unit");
	if (measured || !json_is_null(u)) {
		const char *unit = json_string_value(u);
		for (size_t w = 0; unit && w < sizeof units / sizeof *units; w++)
			if (!strcmp(unit, units[w]))
				snprintf(e->unit, sizeof e->unit, "%s", units[w]);
		if (!e->unit[0])
			return pb_fail("summary.glibc.measured[%zu].rows[%zu].unit: not tsc_ticks "
			               "or ns",
			               i, j),
			       false;
	}
	if (!row_num(r, i, j, "without", 0, 1e15, true, &e->without) ||
	    !row_num(r, i, j, "with", 0, 1e15, true, &e->with) ||
	    !row_num(r, i, j, "pct", -100, 1e6, true, &e->pct) ||
	    !row_num(r, i, j, "pct_lo", -100, 1e6, true, &e->pct_lo) ||
	    !row_num(r, i, j, "pct_hi", -100, 1e6, true, &e->pct_hi) ||
	    !row_num(r, i, j, "predicted_pct", -100, 1e6, true, &e->predicted_pct))
		return false;
	const json_t *pk = json_object_get(r, "predicted_kernel");
	if (!json_is_null(pk) && pk) {
		const char *k = json_string_value(pk);
		if (!k || !printable(k, 32))
			return pb_fail(
			           "summary.glibc.measured[%zu].rows[%zu].predicted_kernel: not a "
			           "kernel name (up to 32 printable characters)",
			           i, j),
			       false;
		snprintf(e->predicted_kernel, sizeof e->predicted_kernel, "%s", k);
	}
	const json_t *rl = json_object_get(r, "run_level");
	const char *v = json_string_value(json_object_get(r, "verdict"));
	if (!json_is_boolean(rl))
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].run_level: not true or false",
		               i, j),
		       false;
	if (!v || (strcmp(v, "different") && strcmp(v, "equivalent") && strcmp(v, "none")))
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].verdict: not different, "
		               "equivalent or none",
		               i, j),
		       false;
	e->run_level = json_is_true(rl);
	e->verdict = !strcmp(v, "different")    ? PB_VERDICT_DIFFERENT
	             : !strcmp(v, "equivalent") ? PB_VERDICT_EQUIVALENT
	                                        : PB_VERDICT_NONE;
	return true;
}

/* Check i into *out. */
static bool read_check(const json_t *check, size_t i, struct pb_glibc_check *out)
{
	memset(out, 0, sizeof *out);
	if (!json_is_object(check))
		return pb_fail("summary.glibc.measured[%zu]: not an object", i), false;
	const char *op = json_string_value(json_object_get(check, "op"));
	const char *state = json_string_value(json_object_get(check, "cache_state"));
	const char *order = json_string_value(json_object_get(check, "order"));
	const char *env = json_string_value(json_object_get(check, "env"));
	const json_t *pa = json_object_get(check, "processes_a");
	const json_t *pb = json_object_get(check, "processes_b");
	const json_t *m = json_object_get(check, "margin");
	const json_t *rows = json_object_get(check, "rows");
	const char *bad = NULL;
	if (!op || (strcmp(op, "memset") && strcmp(op, "memcpy")))
		bad = "op: not memset or memcpy";
	else if (!state || (strcmp(state, "hot") && strcmp(state, "dram")))
		bad = "cache_state: not hot or dram";
	else if (!env || !printable(env, 2048) || strncmp(env, "GLIBC_TUNABLES=", 15))
		bad = "env: not a GLIBC_TUNABLES= line of up to 2048 printable characters";
	else if (!order || !printable(order, 255) || strspn(order, "AB") != strlen(order))
		bad = "order: not a sequence of A and B";
	else if (!json_is_integer(pa) || json_integer_value(pa) < 1 || json_integer_value(pa) > 255)
		bad = "processes_a: not a count from 1 to 255";
	else if (!json_is_integer(pb) || json_integer_value(pb) < 1 || json_integer_value(pb) > 255)
		bad = "processes_b: not a count from 1 to 255";
	else if (!json_is_number(m) || !(json_number_value(m) >= 0 && json_number_value(m) < 1))
		bad = "margin: not a fraction from 0 to 1";
	else if (!json_is_array(rows) || json_array_size(rows) < 1 ||
	         json_array_size(rows) > PB_GLIBC_CHECK_MAX_ROWS)
		bad = "rows: not an array of 1 to 8 rows";
	if (bad)
		return pb_fail("summary.glibc.measured[%zu].%s", i, bad), false;
	snprintf(out->op, sizeof out->op, "%s", op);
	snprintf(out->cache_state, sizeof out->cache_state, "%s", state);
	snprintf(out->env, sizeof out->env, "%s", env);
	snprintf(out->order, sizeof out->order, "%s", order);
	out->processes_a = (size_t)json_integer_value(pa);
	out->processes_b = (size_t)json_integer_value(pb);
	out->margin = json_number_value(m);
	out->n_rows = json_array_size(rows);
	for (size_t j = 0; j < out->n_rows; j++)
		if (!read_row(json_array_get(rows, j), i, j, &out->rows[j]))
			return false;
	return true;
}

int pb_results_glibc_checks_from_json(const json_t *measured, struct pb_glibc_check **out,
                                      size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!json_is_array(measured) || json_array_size(measured) > PB_GLIBC_CHECK_MAX)
		return pb_fail("summary.glibc.measured: not an array of up to %d checks",
		               PB_GLIBC_CHECK_MAX);
	size_t k = json_array_size(measured);
	struct pb_glibc_check *c = k ? calloc(k, sizeof *c) : NULL;
	if (k && !c)
		return pb_fail("out of memory");
	for (size_t i = 0; i < k; i++)
		if (!read_check(json_array_get(measured, i), i, &c[i])) {
			free(c);
			return -1;
		}
	*out = c;
	*n = k;
	return 0;
}

int pb_results_read_glibc_checks(const struct pb_results_file *f, struct pb_glibc_check **out,
                                 size_t *n, bool *present)
{
	const json_t *measured = json_object_get(
	    json_object_get(json_object_get(pb_results_file_json(f), "summary"), "glibc"), "measured");
	*present = measured != NULL;
	*out = NULL;
	*n = 0;
	return measured ? pb_results_glibc_checks_from_json(measured, out, n) : 0;
}
