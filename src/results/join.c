/* join.c - result documents read back and joined: the files of the
 * processes of `--processes N` and of each side of `--vs-env`
 * (include/primbench/results_join.h). */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/results_join.h"
#include "results/results_json.h"

struct pb_results_doc *pb_results_doc_load(const char *path)
{
	json_error_t err;
	json_t *d = json_load_file(path, 0, &err);
	if (!d) {
		pb_fail("%s: %s", path, err.text);
		return NULL;
	}
	struct pb_results_doc *doc = pb_results_doc_adopt(d);
	if (!doc)
		pb_fail("out of memory");
	return doc;
}

/* The case of doc with key `key`, or NULL. */
static json_t *find_case(json_t *doc, const json_t *key)
{
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(doc, "cases"), i, c)
	{
		if (json_equal(json_object_get(c, "key"), key))
			return c;
	}
	return NULL;
}

/* Scales the fields of median_derived that follow the median (times by
 * f, rates by 1/f): the figures of the joined median. */
static void rescale_derived(json_t *c, double f)
{
	json_t *d = json_object_get(c, "median_derived");
	const char *times[] = {"ns_per_call",
	                       "ticks_per_page",
	                       "ns_per_4k_page",
	                       "ticks_per_4k_page",
	                       "ns_per_page",
	                       "ns_per_load",
	                       NULL};
	const char *rates[] = {"bytes_per_tick", "gb_per_s", NULL};
	for (size_t i = 0; d && times[i]; i++) {
		json_t *v = json_object_get(d, times[i]);
		if (json_is_number(v))
			json_object_set_new(d, times[i], pb_json_number(json_number_value(v) * f));
	}
	for (size_t i = 0; d && rates[i]; i++) {
		json_t *v = json_object_get(d, rates[i]);
		if (json_is_number(v))
			json_object_set_new(d, rates[i], pb_json_number(json_number_value(v) / f));
	}
}

/* A case's per-call values and replicate counts, from its JSON. */
static int case_values(const json_t *c, double **v, size_t *n, size_t **rep, size_t *nrep)
{
	const json_t *s = json_object_get(c, "samples"), *r = json_object_get(c, "replicates");
	*n = json_array_size(s);
	*nrep = json_array_size(r);
	*v = calloc(*n ? *n : 1, sizeof **v);
	*rep = calloc(*nrep ? *nrep : 1, sizeof **rep);
	if (!*v || !*rep)
		return pb_fail("out of memory");
	for (size_t i = 0; i < *n; i++) {
		const json_t *x = json_array_get(s, i);
		(*v)[i] = json_number_value(json_array_get(x, 0)) /
		          json_number_value(json_array_get(x, 1));
	}
	for (size_t i = 0; i < *nrep; i++)
		(*rep)[i] =
		    (size_t)json_integer_value(json_object_get(json_array_get(r, i), "samples"));
	if (*nrep == 0) { /* one run */
		(*rep)[0] = *n;
		*nrep = 1;
	}
	return 0;
}

/* base's integer fields keys[] (NULL-ended) += more's, where both have one. */
static void add_integers(json_t *base, const json_t *more, const char *const *keys)
{
	for (size_t k = 0; keys[k]; k++) {
		json_t *x = json_object_get(base, keys[k]), *y = json_object_get(more, keys[k]);
		if (json_is_integer(x) && json_is_integer(y))
			json_object_set_new(
			    base, keys[k],
			    json_integer(json_integer_value(x) + json_integer_value(y)));
	}
}

/* The processes' noise as one: the worst steal and business of the other
 * CPUs, the context switches summed. */
static void join_noise(json_t *base, const json_t *more)
{
	if (!json_is_object(base) || !json_is_object(more))
		return;
	/* the worst process's figures, and its own judgement (pb_noise_judge) */
	const char *worst[] = {"steal_pct",         "other_cpus_busy_pct",
	                       "run_delay_pct",     "measuring_cpu_others_pct",
	                       "involuntary_per_s", NULL};
	for (size_t k = 0; worst[k]; k++) {
		json_t *x = json_object_get(base, worst[k]), *y = json_object_get(more, worst[k]);
		if (json_is_number(y) &&
		    (!json_is_number(x) || json_number_value(y) > json_number_value(x)))
			json_object_set(base, worst[k], y);
	}
	static const char *const sum[] = {"voluntary_switches", "involuntary_switches", NULL};
	add_integers(base, more, sum);
	if (json_is_true(json_object_get(more, "high")) &&
	    !json_is_true(json_object_get(base, "high"))) {
		json_object_set(base, "high", json_true());
		json_t *cause = json_object_get(more, "high_cause");
		if (cause)
			json_object_set(base, "high_cause", cause);
	}
}

int pb_results_doc_join(struct pb_results_doc *base_doc, const struct pb_results_doc *more_doc)
{
	json_t *base = pb_results_doc_json(base_doc);
	/* more's values are shared into base (their references counted) */
	json_t *more = (json_t *)pb_results_doc_cjson(more_doc);
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(more, "cases"), i, c)
	{
		json_t *b = find_case(base, json_object_get(c, "key"));
		if (!b) {
			json_array_append(json_object_get(base, "cases"), c);
			continue;
		}
		json_t *bs = json_object_get(b, "samples"), *cs = json_object_get(c, "samples");
		if (!json_is_array(bs) || !json_is_array(cs))
			continue;
		json_array_extend(bs, cs);
		json_t *br = json_object_get(b, "replicates"),
		       *cr = json_object_get(c, "replicates");
		if (json_is_array(br) && json_is_array(cr))
			json_array_extend(br, cr);
		static const char *const sum[] = {"migrations", "outliers", NULL};
		add_integers(b, c, sum);
	}
	json_t *bn = json_object_get(base, "notes");
	json_array_foreach(json_object_get(more, "notes"), i, c)
	{
		bool have = false;
		size_t j;
		json_t *x;
		json_array_foreach(bn, j, x) have |= json_equal(x, c);
		if (!have)
			json_array_append(bn, c);
	}
	join_noise(json_object_get(base, "noise"), json_object_get(more, "noise"));
	if (json_is_true(json_object_get(more, "interrupted")))
		json_object_set_new(base, "interrupted", json_true());
	return 0;
}

int pb_results_doc_resummarize(struct pb_results_doc *d)
{
	json_t *doc = pb_results_doc_json(d);
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(doc, "cases"), i, c)
	{
		json_t *pc = json_object_get(c, "per_call");
		if (!pc || !json_array_size(json_object_get(c, "samples")))
			continue;
		double *v;
		size_t n, *rep, nrep;
		int rc = case_values(c, &v, &n, &rep, &nrep);
		struct pb_summary s;
		if (rc == 0)
			rc = pb_summarize_replicates(v, n, rep, nrep, 0.95, &s);
		free(v);
		free(rep);
		if (rc != 0)
			return -1;
		double old = json_number_value(json_object_get(pc, "median"));
		json_object_set_new(c, "per_call", pb_json_summary(&s));
		if (old > 0 && s.median > 0)
			rescale_derived(c, s.median / old);
	}
	return 0;
}

void pb_results_set_command_line(struct pb_results_doc *doc, int argc, char *const *argv)
{
	json_t *cl = json_array();
	for (int j = 0; j < argc; j++)
		json_array_append_new(cl, json_string(argv[j]));
	json_object_set_new(pb_results_doc_json(doc), "command_line", cl);
}

void pb_results_set_processes(struct pb_results_doc *doc, size_t count, size_t replicates_each)
{
	json_object_set_new(pb_results_doc_json(doc), "processes",
	                    json_pack("{s:I, s:I}", "count", (json_int_t)count, "replicates_each",
	                              (json_int_t)replicates_each));
}

void pb_results_doc_noise(const struct pb_results_doc *doc, struct pb_results_noise_seen *out)
{
	const json_t *noise = json_object_get(pb_results_doc_cjson(doc), "noise");
	out->steal_pct = json_number_value(json_object_get(noise, "steal_pct"));
	out->other_cpus_busy_pct = json_number_value(json_object_get(noise, "other_cpus_busy_pct"));
	out->high = json_is_true(json_object_get(noise, "high"));
	out->high_cause = json_string_value(json_object_get(noise, "high_cause"));
}

int pb_results_doc_read(const struct pb_results_doc *doc, const char *name,
                        struct pb_results_file *f)
{
	char *text = json_dumps(pb_results_doc_cjson(doc), JSON_COMPACT);
	if (!text) {
		memset(f, 0, sizeof *f);
		return pb_fail("out of memory");
	}
	int rc = pb_results_load_text(text, strlen(text), name, f);
	free(text);
	return rc;
}

int pb_results_doc_print(FILE *fp, const struct pb_results_doc *doc, int indent)
{
	char *t = json_dumps(pb_results_doc_cjson(doc), JSON_INDENT(indent));
	if (!t)
		return pb_fail("out of memory");
	fprintf(fp, "%s\n", t);
	free(t);
	return 0;
}

/* Whether case c is a one-thread mem case of (op, state, kernel); its
 * size into *size. */
static bool case_of(const json_t *c, const char *op, const char *state, const char *kernel,
                    uint64_t *size)
{
	const json_t *k = json_object_get(c, "key");
	const char *kop = json_string_value(json_object_get(k, "op"));
	const char *kst = json_string_value(json_object_get(k, "cache_state"));
	const char *kk = json_string_value(json_object_get(k, "kernel"));
	const json_t *ks = json_object_get(k, "size_bytes");
	const json_t *th = json_object_get(k, "threads");
	if (!kop || !kst || !kk || strcmp(kop, op) || strcmp(kst, state) || strcmp(kk, kernel) ||
	    !json_is_integer(ks) || json_integer_value(ks) <= 0 ||
	    (json_is_integer(th) && json_integer_value(th) != 1))
		return false;
	*size = (uint64_t)json_integer_value(ks);
	return true;
}

size_t pb_results_mem_sizes(const struct pb_results_doc *doc, const char *op, const char *state,
                            const char *kernel, uint64_t *sizes, size_t max)
{
	size_t ns = 0, j;
	const json_t *c;
	json_array_foreach(json_object_get(pb_results_doc_cjson(doc), "cases"), j, c)
	{
		if (ns < max && case_of(c, op, state, kernel, &sizes[ns]))
			ns++;
	}
	return ns;
}

double pb_results_mem_median(const struct pb_results_doc *doc, const char *op, const char *state,
                             const char *kernel, uint64_t size_bytes)
{
	size_t i;
	const json_t *c;
	uint64_t n;
	json_array_foreach(json_object_get(pb_results_doc_cjson(doc), "cases"), i, c)
	{
		if (!case_of(c, op, state, kernel, &n) || n != size_bytes)
			continue;
		const json_t *m = json_object_get(json_object_get(c, "per_call"), "median");
		return json_is_number(m) ? json_number_value(m) : NAN;
	}
	return NAN;
}

void pb_results_set_vs_env(struct pb_results_doc *doc, const struct pb_vs_env_record *v)
{
	json_t *cj = pb_results_doc_json(doc);
	json_t *vs = json_array();
	for (size_t e = 0; e < v->n_env; e++)
		json_array_append_new(vs, json_string(v->env[e]));
	json_object_set_new(cj, "vs_env",
	                    json_pack("{s:o, s:s, s:I, s:I}", "env", vs, "order", v->order,
	                              "processes_a", (json_int_t)v->processes_a, "processes_b",
	                              (json_int_t)v->processes_b));
	if (v->interrupted)
		json_object_set_new(cj, "interrupted", json_true());
}
