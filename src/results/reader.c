/* reader.c - the one reader of result files (include/primbench/reader.h):
 * loading and checking, the canonical key, and naming the cases of every
 * suite (each key's own name, then labels told apart across files).
 */
#define _GNU_SOURCE
#include "primbench/reader.h"
#include "results/results_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "primbench/error.h"
#include "primbench/profile.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"
#include "results/typed.h"

#define LABEL_MAX 40 /* argv and generic labels are abbreviated past this */

/* The largest result file read (a run's samples take a few MB; a file of
 * more is not one, and reading an endless stream must stop somewhere). */
#define PB_RESULTS_MAX_FILE_BYTES (1 << 30)

/* ---- reading keys ----------------------------------------------------- */

const char *pb_key_str(const json_t *key, const char *field)
{
	return json_string_value(json_object_get(key, field));
}

bool pb_key_int(const json_t *key, const char *field, long long *out)
{
	const json_t *v = json_object_get(key, field);
	if (!json_is_integer(v))
		return false;
	*out = (long long)json_integer_value(v);
	return true;
}

const json_t *pb_json_path(const json_t *o, const char *path)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", path);
	char *save = NULL;
	for (char *t = strtok_r(buf, ".", &save); t && o; t = strtok_r(NULL, ".", &save))
		o = json_is_object(o) ? json_object_get(o, t) : NULL;
	return o;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **pb_json_field_names(const json_t *a, const json_t *b, size_t *n)
{
	size_t k = 0;
	const char **names = pb_xcalloc(json_object_size(a) + json_object_size(b), sizeof *names);
	for (void *it = json_object_iter((json_t *)a); it;
	     it = json_object_iter_next((json_t *)a, it))
		names[k++] = json_object_iter_key(it);
	for (void *it = json_object_iter((json_t *)b); it;
	     it = json_object_iter_next((json_t *)b, it))
		if (!json_object_get(a, json_object_iter_key(it)))
			names[k++] = json_object_iter_key(it);
	qsort(names, k, sizeof *names, cmp_str);
	*n = k;
	return names;
}

char *pb_json_text(const json_t *v)
{
	if (!v)
		return pb_xstrdup("(missing)");
	if (json_is_string(v))
		return pb_printable(json_string_value(v), false);
	if (json_is_integer(v))
		return pb_xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
	if (json_is_real(v))
		return pb_xasprintf("%.10g", json_real_value(v));
	char *s = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	char *r = pb_xstrdup(s ? s : "?");
	free(s);
	return r;
}

char *pb_printable(const char *s, bool ascii)
{
	size_t n = strlen(s);
	char *out = pb_xcalloc(4 * n + 1, 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n' || *p == '\t' || *p == '\r') {
			*o++ = '\\';
			*o++ = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
		} else if (*p < 0x20 || *p == 0x7f || (ascii && *p > 0x7f)) {
			o += sprintf(o, "\\x%02x", *p);
		} else {
			*o++ = (char)*p;
		}
	}
	*o = '\0';
	return out;
}

/* ---- names -------------------------------------------------------------- */

static void abbreviate(char *s, size_t max)
{
	if (strlen(s) > max)
		strcpy(s + max - 3, "...");
}

static char *size_text(long long bytes)
{
	char buf[32];
	if (bytes < 0)
		return pb_xasprintf("%lld", bytes);
	pb_format_bytes(buf, sizeof buf, (uint64_t)bytes, PB_BYTES_EXACT);
	return pb_xstrdup(buf);
}

static bool mem_name(const struct pb_key *key, char **group, char **label)
{
	const char *op = pb_field_str(key, "op"), *kernel = pb_field_str(key, "kernel");
	const char *state = pb_field_str(key, "cache_state");
	long long size, v;
	/* a replay (mem --distribution) names its distribution, not a size */
	const char *dist = pb_field_str(key, "distribution");
	if (!op || !kernel || !state || (!dist && !pb_field_int(key, "size_bytes", &size)))
		return false;
	*group = pb_xasprintf("%s %s", op, state);
	char *sz = dist ? pb_xasprintf("dist=%s", dist) : size_text(size);
	char buf[256];
	int n = snprintf(buf, sizeof buf, "%s %s", kernel, sz);
	free(sz);
#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (n >= 0 && (size_t)n < sizeof buf)                                              \
			n += snprintf(buf + n, sizeof buf - (size_t)n, __VA_ARGS__);               \
	} while (0)
	if (pb_field_int(key, "dst_offset_bytes", &v) && v != 0)
		ADD(" dst+%lld", v);
	if (pb_field_int(key, "src_offset_bytes", &v) && v != 2048)
		ADD(" src+%lld", v);
	if (pb_field_int(key, "distance_bytes", &v))
		ADD(" dist%+lld", v);
	if (pb_field_int(key, "extent_bytes", &v) && v != 0) {
		char *e = size_text(v);
		ADD(" ext=%s", e);
		free(e);
	}
	if (pb_field_int(key, "fill_value", &v) && v != 0)
		ADD(" v=0x%02llx", v);
	if (pb_field_int(key, "page_bytes", &v) && v != 4096 && strcmp(state, "fault-thp") != 0) {
		char *p = size_text(v);
		ADD(" page=%s", p);
		free(p);
	}
	if (pb_field_true(key, "then_read"))
		ADD(" +read");
	if (dist && pb_field_int(key, "seed", &v) && v != 1)
		ADD(" seed=%lld", v);
	if (dist && pb_field_str(key, "offsets") &&
	    strcmp(pb_field_str(key, "offsets"), "random") != 0)
		ADD(" %s", pb_field_str(key, "offsets"));
	if (pb_field_int(key, "threads", &v) && v != 1)
		ADD(" x%lld", v);
	if (pb_field_str(key, "placement") &&
	    strcmp(pb_field_str(key, "placement"), "compact") != 0)
		ADD(" %s", pb_field_str(key, "placement"));
	if (pb_field_str(key, "mem_node") && strcmp(pb_field_str(key, "mem_node"), "local") != 0)
		ADD(" mem=%s", pb_field_str(key, "mem_node"));
#undef ADD
	*label = pb_xstrdup(buf);
	return true;
}

static bool syscall_name(const struct pb_key *key, char **group, char **label)
{
	const char *bench = pb_field_str(key, "benchmark"), *place = pb_field_str(key, "placement");
	long long page;
	if (!bench)
		return false;
	char *pg = pb_field_int(key, "page_bytes", &page) ? size_text(page) : NULL;
	*group = pb_xstrdup("syscall");
	*label = pb_xasprintf("%s%s%s%s%s", bench, pg ? " " : "", pg ? pg : "", place ? " " : "",
	                      place ? place : "");
	free(pg);
	return true;
}

/* mem map (map.h): group "map demand", label "2M THP 4 threads". */
static bool map_name(const struct pb_key *key, char **group, char **label)
{
	const char *fault = pb_field_str(key, "fault"), *src = pb_field_str(key, "page_source");
	long long page, threads;
	if (!fault || !src || !pb_field_int(key, "page_bytes", &page) ||
	    !pb_field_int(key, "threads", &threads))
		return false;
	char *pg = size_text(page);
	*group = pb_xasprintf("map %s", fault);
	bool base = !strcmp(src, "4K"); /* the source of 4K pages says nothing more */
	*label = pb_xasprintf("%s%s%s %lld thread%s", pg, base ? "" : " ", base ? "" : src, threads,
	                      threads == 1 ? "" : "s");
	free(pg);
	return true;
}

/* latency (latency.h): group "latency", "latency 2M THP" (key page_bytes)
 * or "latency loaded memcpy/libc" (key load_threads), label the working
 * set ("48K"), loaded " 2 load threads" after it. */
static bool latency_name(const struct pb_key *key, char **group, char **label)
{
	const char *src = pb_field_str(key, "page_source"), *lk = pb_field_str(key, "load_kernel");
	long long size, page, load;
	if (!pb_field_int(key, "size_bytes", &size))
		return false;
	char *sz = size_text(size);
	if (pb_field_int(key, "load_threads", &load)) {
		*group = pb_xasprintf("latency loaded%s%s", lk ? " " : "", lk ? lk : "");
		*label = pb_xasprintf("%s %lld load thread%s", sz, load, load == 1 ? "" : "s");
	} else if (pb_field_int(key, "page_bytes", &page)) {
		char *pg = size_text(page);
		bool base = !src || !strcmp(src, "4K");
		*group = pb_xasprintf("latency %s%s%s", pg, base ? "" : " ", base ? "" : src);
		*label = pb_xstrdup(sz);
		free(pg);
	} else {
		*group = pb_xstrdup("latency");
		*label = pb_xstrdup(sz);
	}
	free(sz);
	return true;
}

static bool xsave_name(const struct pb_key *key, char **group, char **label)
{
	const char *insn = pb_field_str(key, "instruction"),
	           *upper = pb_field_str(key, "upper_state");
	if (!insn)
		return false;
	*group = pb_xstrdup("xsave");
	*label = pb_xasprintf("%s%s%s", insn, upper ? " " : "", upper ? upper : "");
	return true;
}

/* kernel (kernel_result.h; docs/results-schema.md "A `kernel` case"):
 * clear_page and copy_page: group "kernel clear_page hot" (the op and
 * cache_state), label the variant and page size ("rep_stosb 4K");
 * user_copy: group "kernel user_copy hot", label the variant and size
 * ("copy_to_user 4K"); fpu: one group "kernel fpu", label the variant and
 * upper state ("ioctl_fpu dirty512"), as xsave's "xsaveopt dirty": the
 * states of one variant side by side in one table, where a group per
 * state would split begin_end clean from begin_end dirty. " irqs off"
 * after the label when the key says so. */
static bool kernel_name(const struct pb_key *key, char **group, char **label)
{
	const char *op = pb_field_str(key, "op"), *v = pb_field_str(key, "variant"),
	           *st = pb_field_str(key, "cache_state");
	const char *irqs = pb_field_true(key, "irqs_off") ? " irqs off" : "";
	long long bytes;
	if (!op || !v)
		return false;
	if (!strcmp(op, "fpu")) {
		const char *upper = pb_field_str(key, "upper_state");
		if (!upper)
			return false;
		*group = pb_xstrdup("kernel fpu");
		*label = pb_xasprintf("%s %s%s", v, upper, irqs);
		return true;
	}
	if (!st ||
	    !pb_field_int(key, !strcmp(op, "user_copy") ? "size_bytes" : "page_bytes", &bytes))
		return false;
	char *sz = size_text(bytes);
	*group = pb_xasprintf("kernel %s %s", op, st);
	*label = pb_xasprintf("%s %s%s", v, sz, irqs);
	free(sz);
	return true;
}

/* The elements of an array field as JSON (new reference), NULL when f is
 * not an array. */
static json_t *array_of(const struct pb_field *f)
{
	if (!f || (f->kind != PB_FIELD_STRINGS && (f->kind != PB_FIELD_OTHER || f->s[0] != '[')))
		return NULL;
	return pb_field_to_json(f);
}

char *pb_key_cmd_text(const struct pb_key *key)
{
	json_t *argv = array_of(pb_field_get(key, "argv"));
	size_t first = 0;
	const char *c1 = json_string_value(json_array_get(argv, 1));
	char *l = pb_xstrdup("");
	if (pb_field_true(key, "shell") && json_array_size(argv) >= 3 && c1 && !strcmp(c1, "-c")) {
		pb_xappend(&l, "sh:");
		first = 2;
	}
	for (size_t i = first; i < json_array_size(argv); i++) {
		char *t = pb_json_text(json_array_get(argv, i));
		if (*l)
			pb_xappend(&l, " ");
		pb_xappend(&l, t);
		free(t);
	}
	json_decref(argv);
	return l;
}

static bool cmd_name(const struct pb_key *key, char **group, char **label)
{
	const struct pb_field *argv = pb_field_get(key, "argv");
	if (!argv ||
	    (argv->kind != PB_FIELD_STRINGS && (argv->kind != PB_FIELD_OTHER || argv->s[0] != '[')))
		return false;
	const char *side = pb_field_str(key, "side");
	*group = side ? pb_xasprintf("cmd %s", side) : pb_xstrdup("cmd");
	char *l = pb_key_cmd_text(key);
	abbreviate(l, LABEL_MAX);
	*label = l;
	return true;
}

/* Any other key: "field=value" for every field but the suite, in name
 * order, not abbreviated. */
static char *generic_text(const struct pb_key *key)
{
	const char *suite = pb_field_str(key, "suite");
	char *l = pb_xstrdup("");
	size_t nk;
	const char **names = pb_key_field_names(key, NULL, &nk);
	for (size_t i = 0; i < nk; i++) {
		if (!strcmp(names[i], "suite") && suite)
			continue;
		char *t = pb_field_text(pb_field_get(key, names[i]));
		char *item = pb_xasprintf("%s%s=%s", *l ? " " : "", names[i], t);
		pb_xappend(&l, item);
		free(item);
		free(t);
	}
	free(names);
	return l;
}

/* Any other key: the suite, then field=value for the rest in key order. */
static void generic_name(const struct pb_key *key, char **group, char **label)
{
	const char *suite = pb_field_str(key, "suite");
	*group = pb_xstrdup(suite ? suite : "?");
	char *l = generic_text(key);
	abbreviate(l, LABEL_MAX);
	*label = l;
}

/* The name of a key; *generic tells whether it is generic_name's (no
 * name of the suite's own, or the key lacks a field that one needs). */
static void key_name(const struct pb_key *key, char **group, char **label, bool *generic)
{
	const char *suite = pb_field_str(key, "suite");
	*group = *label = NULL;
	bool ok = false;
	if (suite && !strcmp(suite, "mem"))
		ok = mem_name(key, group, label);
	else if (suite && !strcmp(suite, "syscall"))
		ok = syscall_name(key, group, label);
	else if (suite && !strcmp(suite, "xsave"))
		ok = xsave_name(key, group, label);
	else if (suite && !strcmp(suite, "map"))
		ok = map_name(key, group, label);
	else if (suite && !strcmp(suite, "latency"))
		ok = latency_name(key, group, label);
	else if (suite && !strcmp(suite, "cmd"))
		ok = cmd_name(key, group, label);
	else if (suite && !strcmp(suite, "kernel"))
		ok = kernel_name(key, group, label);
	if (!ok) {
		free(*group);
		free(*label);
		generic_name(key, group, label);
	}
	if (generic)
		*generic = !ok;
	/* Names come from the file: nothing in them may break a line. */
	char *g = pb_printable(*group, false), *l = pb_printable(*label, false);
	free(*group);
	free(*label);
	*group = g;
	*label = l;
}

void pb_key_name(const struct pb_key *key, char **group, char **label)
{
	key_name(key, group, label, NULL);
}

void pb_results_key_name(const json_t *key, char **group, char **label)
{
	struct pb_key k;
	pb_key_from_json(&k, key);
	pb_key_name(&k, group, label);
	pb_key_clear(&k);
}

char *pb_results_cmd_text(const json_t *key)
{
	struct pb_key k;
	pb_key_from_json(&k, key);
	char *t = pb_key_cmd_text(&k);
	pb_key_clear(&k);
	return t;
}

bool pb_results_key_is_cmd(const json_t *key)
{
	struct pb_key k;
	pb_key_from_json(&k, key);
	bool is = pb_key_is_cmd(&k);
	pb_key_clear(&k);
	return is;
}

const char *pb_results_page_op_of(const char *page_op, const json_t *key)
{
	struct pb_key k;
	pb_key_from_json(&k, key);
	const char *name = pb_key_page_op_of(page_op, &k);
	pb_key_clear(&k);
	/* the key's own op: borrowed from the json key, not the copy */
	return name && name != page_op ? pb_key_str(key, "op") : name;
}

static const char *known_page_op(const char *name)
{
	if (name && !strcmp(name, "clear_page"))
		return "clear_page";
	if (name && !strcmp(name, "copy_page"))
		return "copy_page";
	return NULL;
}

const char *pb_results_page_op(const json_t *doc)
{
	const json_t *po = json_object_get(doc, "page_op");
	if (po)
		return known_page_op(json_string_value(po));
	/* before the field: "primbench mem clear_page ..." */
	const json_t *cl = json_object_get(doc, "command_line");
	for (size_t i = 1; i + 1 < json_array_size(cl); i++)
		if (!strcmp(json_string_value(json_array_get(cl, i)) ?: "", "mem"))
			return known_page_op(json_string_value(json_array_get(cl, i + 1)));
	return NULL;
}

const char *pb_key_page_op_of(const char *page_op, const struct pb_key *key)
{
	const char *suite = pb_field_str(key, "suite"), *op = pb_field_str(key, "op");
	if (!suite || strcmp(suite, "mem") != 0 || !op)
		return NULL;
	long long size;
	const char *base = !page_op ? NULL : !strcmp(page_op, "clear_page") ? "memset" : "memcpy";
	if (base && !strcmp(op, base) && pb_field_int(key, "size_bytes", &size) && size == 4096)
		return page_op;
	return op;
}

/* ---- loading -------------------------------------------------------------- */

static int cmp_canon(const void *pa, const void *pb, void *ctx)
{
	const struct pb_results_case *cs = ctx;
	return strcmp(cs[*(const size_t *)pa].canon, cs[*(const size_t *)pb].canon);
}

static int fail_case(const char *name, size_t i, const json_t *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_case(const char *name, size_t i, const json_t *key, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (!json_is_object(key))
		return pb_fail("%s: cases[%zu]: %s", name, i, what);
	char *g, *l;
	pb_results_key_name(key, &g, &l);
	pb_fail("%s: cases[%zu] (%s: %s): %s", name, i, g, l, what);
	free(g);
	free(l);
	return -1;
}

/* The text cases match on: the key, sorted and compact, without the mem
 * fields that only say the default (threads 1, placement null, mem_node
 * "local"), so that a file written before they existed matches a newer
 * one's 1-thread cases. NULL when it cannot be encoded. */
static char *canonical_key(const struct pb_key *fields)
{
	json_t *k = pb_key_to_json(fields);
	const char *suite = pb_key_str(k, "suite");
	if (!suite || strcmp(suite, "mem") != 0) {
		char *canon = json_dumps(k, JSON_SORT_KEYS | JSON_COMPACT);
		json_decref(k);
		return canon;
	}
	long long threads;
	if (pb_key_int(k, "threads", &threads) && threads == 1)
		json_object_del(k, "threads");
	if (json_is_null(json_object_get(k, "placement")))
		json_object_del(k, "placement");
	if (pb_key_str(k, "mem_node") && !strcmp(pb_key_str(k, "mem_node"), "local"))
		json_object_del(k, "mem_node");
	char *canon = json_dumps(k, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(k);
	return canon;
}

/* A case's "replicates": [{"samples": n, "median": m}, ...], the counts
 * adding up to the samples' (docs/results-schema.md, v2). */
static int load_replicates(struct pb_results_case *cc, const json_t *key, const json_t *reps,
                           const char *name, size_t i)
{
	if (!reps || json_is_null(reps))
		return 0;
	if (!json_is_array(reps) || json_array_size(reps) == 0)
		return fail_case(name, i, key, "'replicates' is not a non-empty array");
	size_t n = json_array_size(reps), sum = 0;
	cc->rep_n = pb_xcalloc(n, sizeof *cc->rep_n);
	cc->n_rep = n;
	for (size_t r = 0; r < n; r++) {
		const json_t *s = json_object_get(json_array_get(reps, r), "samples");
		if (!json_is_integer(s) || json_integer_value(s) < 0 ||
		    (size_t)json_integer_value(s) > cc->n)
			return fail_case(name, i, key,
			                 "replicates[%zu] has no 'samples' count from 0 to %zu", r,
			                 cc->n);
		cc->rep_n[r] = (size_t)json_integer_value(s);
		sum += cc->rep_n[r];
	}
	if (sum != cc->n)
		return fail_case(name, i, key,
		                 "the replicates' samples add up to %zu, 'samples' has %zu", sum,
		                 cc->n);
	return 0;
}

int pb_results_case_summary(const struct pb_results_case *k, double level, struct pb_summary *out)
{
	return pb_summarize_replicates(k->v, k->n, k->rep_n, k->n_rep, level, out);
}

size_t pb_results_case_runs(const struct pb_results_case *k, double *med, size_t max)
{
	if (k->n == 0 || max == 0)
		return 0;
	if (k->n_rep < 2) {
		size_t one = k->n;
		return pb_replicate_medians(k->v, k->n, &one, 1, med);
	}
	double *all = pb_xcalloc(k->n_rep, sizeof *all);
	size_t r = pb_replicate_medians(k->v, k->n, k->rep_n, k->n_rep, all);
	if (r > max)
		r = max;
	memcpy(med, all, r * sizeof *med);
	free(all);
	return r;
}

static void case_clear(struct pb_results_case *c)
{
	free(c->v);
	free(c->canon);
	free(c->group);
	free(c->label);
	free(c->rep_n);
	free(c->sample_value);
	free(c->sample_calls);
	pb_key_clear(&c->fields);
	pb_facts_clear(&c->facts);
	memset(c, 0, sizeof *c);
}

/* What pb_results_write_file needs besides the typed members: the order
 * of the members, the cases without samples, how samples were written. */
struct layout_case {
	char **members; /* the case's member names in file order */
	size_t nmembers;
	struct pb_results_case *typed; /* NULL: a case without samples, */
	struct pb_key key;             /* whose key and */
	struct pb_facts facts;         /* other members are these */
	unsigned char *sample_int;     /* typed: per sample, 1: value integer, 2: calls */
};

struct pb_results_layout {
	json_t *doc;           /* the document as loaded (pb_results_file_json) */
	const json_t *machine; /* its machine object */
	char **members;        /* the document's member names in file order */
	size_t nmembers;
	struct layout_case *cases; /* every case of the file */
	size_t ncases;
};

static char **member_names(const json_t *o, size_t *n)
{
	char **v = pb_xcalloc(json_object_size(o) + 1, sizeof *v);
	*n = 0;
	const char *name;
	json_t *x;
	json_object_foreach((json_t *)o, name, x) v[(*n)++] = pb_xstrdup(name);
	return v;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void layout_free(struct pb_results_layout *l)
{
	if (!l)
		return;
	json_decref(l->doc);
	free_names(l->members, l->nmembers);
	for (size_t i = 0; i < l->ncases; i++) {
		free_names(l->cases[i].members, l->cases[i].nmembers);
		pb_key_clear(&l->cases[i].key);
		pb_facts_clear(&l->cases[i].facts);
		free(l->cases[i].sample_int);
	}
	free(l->cases);
	free(l);
}

/* A kernel case's key, by its op: clear_page, copy_page (and a key of
 * any other op, as before the ops were named) a page_bytes of whole 4 KiB
 * pages (4 KiB or a huge page); user_copy a positive integer size_bytes;
 * fpu an upper_state "clean", "dirty" or "dirty512". 0, or -1 with
 * pb_error() naming the case. */
static int check_kernel_key(const char *name, size_t i, const json_t *key)
{
	const char *op = json_string_value(json_object_get(key, "op"));
	if (op && !strcmp(op, "fpu")) {
		const char *u = json_string_value(json_object_get(key, "upper_state"));
		if (!u || (strcmp(u, "clean") && strcmp(u, "dirty") && strcmp(u, "dirty512")))
			return fail_case(name, i, key,
			                 "a kernel fpu case's upper_state must be \"clean\", "
			                 "\"dirty\" or \"dirty512\"");
		return 0;
	}
	if (op && !strcmp(op, "user_copy")) {
		const json_t *sz = json_object_get(key, "size_bytes");
		if (!json_is_integer(sz) || json_integer_value(sz) <= 0)
			return fail_case(name, i, key,
			                 "a kernel user_copy case's size_bytes must be a positive "
			                 "integer");
		return 0;
	}
	const json_t *pg = json_object_get(key, "page_bytes");
	if (!json_is_integer(pg) || json_integer_value(pg) <= 0 || json_integer_value(pg) % 4096)
		return fail_case(name, i, key,
		                 "a kernel case's page_bytes must be a positive multiple of 4096");
	return 0;
}

static int load_case(struct pb_results_file *f, const json_t *c, size_t i, struct pb_strv *skipped)
{
	const char *name = f->path;
	if (!json_is_object(c))
		return fail_case(name, i, NULL, "not an object");
	json_t *key = json_object_get(c, "key");
	if (!json_is_object(key))
		return fail_case(name, i, NULL, "no 'key' object");
	const json_t *samples = json_object_get(c, "samples");
	if (json_is_null(samples))
		samples = NULL;
	if (samples && !json_is_array(samples))
		return fail_case(name, i, key, "'samples' is not an array");
	struct layout_case *lc = &f->layout->cases[f->layout->ncases++];
	lc->members = member_names(c, &lc->nmembers);
	if (!samples || json_array_size(samples) == 0) {
		static const char *const not_facts[] = {"key"};
		pb_key_from_json(&lc->key, key);
		pb_facts_add_json(&lc->facts, c, NULL, 0, not_facts, 1);
		char *g, *l;
		pb_results_key_name(key, &g, &l);
		pb_strv_push(skipped, pb_xasprintf("%s: %s", g, l));
		free(g);
		free(l);
		return 0;
	}
	const char *unit = json_string_value(json_object_get(c, "unit"));
	if (!unit || !*unit)
		return fail_case(name, i, key, "no 'unit'");
	/* a kernel case's own fields (docs/results-schema.md, "A `kernel` case") */
	const char *suite = json_string_value(json_object_get(key, "suite"));
	if (suite && !strcmp(suite, "kernel") && check_kernel_key(name, i, key) != 0)
		return -1;
	struct pb_results_case *cc = &f->cases[f->ncases];
	cc->n = json_array_size(samples);
	cc->v = pb_xcalloc(cc->n, sizeof *cc->v);
	cc->sample_value = pb_xcalloc(cc->n, sizeof *cc->sample_value);
	cc->sample_calls = pb_xcalloc(cc->n, sizeof *cc->sample_calls);
	lc->sample_int = pb_xcalloc(cc->n, 1);
	for (size_t j = 0; j < cc->n; j++) {
		const json_t *s = json_array_get(samples, j);
		const json_t *val = json_array_get(s, 0), *calls = json_array_get(s, 1);
		if (!json_is_array(s) || json_array_size(s) != 2 || !json_is_number(val) ||
		    !json_is_number(calls)) {
			case_clear(cc);
			return fail_case(name, i, key, "samples[%zu] is not a [value, calls] pair",
			                 j);
		}
		/* Integers are kept as doubles: one above 2^53 would be read and
		 * written back as another (IEEE 754 binary64 holds every integer
		 * up to 2^53 exactly; a sample's ticks or calls reach 2^53 after
		 * 34 days at 3 GHz). */
		for (int k = 0; k < 2; k++) {
			const json_t *x = k ? calls : val;
			json_int_t xi = json_is_integer(x) ? json_integer_value(x) : 0;
			if (xi > (json_int_t)1 << 53 || xi < -((json_int_t)1 << 53)) {
				case_clear(cc);
				return fail_case(name, i, key,
				                 "samples[%zu] has %s %lld: above 2^53, more than "
				                 "a double holds exactly",
				                 j, k ? "calls" : "value", (long long)xi);
			}
		}
		double v = json_number_value(val), n = json_number_value(calls);
		if (!isfinite(v) || !(n >= 1) || !isfinite(n)) {
			case_clear(cc);
			return fail_case(name, i, key, "samples[%zu] has calls %g (must be >= 1)",
			                 j, n);
		}
		/* A time cannot be negative: every suite clamps a sample at 0
		 * after subtracting the timer's overhead (0 is a real reading:
		 * a batch below the timer's resolution). */
		if (v < 0) {
			case_clear(cc);
			return fail_case(name, i, key,
			                 "samples[%zu] is %g: a time cannot be negative", j, v);
		}
		cc->v[j] = v / n;
		cc->sample_value[j] = v;
		cc->sample_calls[j] = n;
		lc->sample_int[j] =
		    (unsigned char)(json_is_integer(val) | json_is_integer(calls) << 1);
	}
	pb_key_from_json(&cc->fields, key);
	static const char *const not_facts[] = {"key", "unit", "samples"};
	pb_facts_add_json(&cc->facts, c, NULL, 0, not_facts, 3);
	lc->typed = cc;
	cc->canon = canonical_key(&cc->fields);
	if (!cc->canon) {
		case_clear(cc);
		lc->typed = NULL;
		return fail_case(name, i, key, "key cannot be encoded");
	}
	cc->unit = unit;
	cc->index = i;
	cc->kernel_revision = 1;
	const json_t *kr = json_object_get(c, "kernel_revision");
	int rc = 0;
	if (kr && (!json_is_integer(kr) || json_integer_value(kr) < 1))
		rc = fail_case(name, i, key, "'kernel_revision' is not an integer >= 1");
	else if (kr)
		cc->kernel_revision = json_integer_value(kr);
	if (rc == 0)
		rc = load_replicates(cc, key, json_object_get(c, "replicates"), name, i);
	if (rc != 0) {
		case_clear(cc);
		lc->typed = NULL;
		return -1;
	}
	f->ncases++;
	return 0;
}

/* A source by its name (pb_cache_source_name), PB_SRC_COUNT when none. */
static enum pb_cache_source source_of(const char *name)
{
	for (int s = 0; name && s < PB_SRC_COUNT; s++)
		if (!strcmp(name, pb_cache_source_name((enum pb_cache_source)s)))
			return (enum pb_cache_source)s;
	return PB_SRC_COUNT;
}

int pb_results_machine_caches(const json_t *machine, struct pb_cache_info *c)
{
	memset(c, 0, sizeof *c);
	const json_t *caches = json_object_get(machine, "caches");
	if (!json_is_object(caches))
		return -1;
	const json_t *line = json_object_get(caches, "line_bytes");
	c->line_bytes = json_is_integer(line) ? (unsigned)json_integer_value(line) : 64;
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		struct pb_cache_level_info *li = &c->level[l];
		const json_t *o =
		    json_object_get(caches, pb_cache_level_name((enum pb_cache_level)l));
		const json_t *sz = json_object_get(o, "size_bytes");
		enum pb_cache_source src =
		    source_of(json_string_value(json_object_get(o, "source")));
		li->size_bytes = json_is_integer(sz) && json_integer_value(sz) > 0
		                     ? (uint64_t)json_integer_value(sz)
		                     : 0;
		li->source = src < PB_SRC_COUNT ? src : PB_SRC_FALLBACK;
		const char *note = json_string_value(json_object_get(o, "note"));
		snprintf(li->note, sizeof li->note, "%s", note ? note : "");
		const char *name;
		const json_t *v;
		json_object_foreach((json_t *)json_object_get(o, "by_source"), name, v)
		{
			enum pb_cache_source s = source_of(name);
			const json_t *b = json_object_get(v, "size_bytes");
			if (s == PB_SRC_COUNT || !json_is_integer(b) || json_integer_value(b) <= 0)
				continue;
			li->by_source_bytes[s] = (uint64_t)json_integer_value(b);
			li->plausible[s] = json_is_true(json_object_get(v, "plausible"));
		}
	}
	return 0;
}

/* The typed machine and document members of f (struct
 * pb_results_machine, pb_results_file) from its checked document. */
static void type_doc(struct pb_results_file *f, const json_t *doc)
{
	struct pb_results_machine *m = &f->mach;
	pb_facts_add_json(&m->facts, f->layout->machine, NULL, 0, NULL, 0);
	double hz = pb_facts_num(&m->facts, "timer.hz");
	m->tsc_hz = hz > 0 ? hz : 0;
	m->timer_clock = pb_facts_str(&m->facts, "timer.clock");
	m->brand = pb_facts_str(&m->facts, "cpu.brand");
	m->vendor = pb_facts_str(&m->facts, "cpu.vendor");
	long long *ints[] = {&m->family, &m->model, &m->stepping};
	const char *int_names[] = {"cpu.family", "cpu.model", "cpu.stepping"};
	for (size_t i = 0; i < 3; i++)
		if (!pb_facts_int(&m->facts, int_names[i], ints[i]))
			*ints[i] = -1;
	m->fingerprint_hash = pb_facts_str(&m->facts, "fingerprint_hash");
	m->kernel = pb_facts_str(&m->facts, "kernel");
	m->kernel_version = pb_facts_str(&m->facts, "kernel_version");
	m->glibc_version = pb_facts_str(&m->facts, "glibc.version");
	long long *thresholds[] = {&m->glibc_rep_movsb, &m->glibc_rep_stosb,
	                           &m->glibc_non_temporal};
	const char *threshold_names[] = {"glibc.x86_rep_movsb_threshold",
	                                 "glibc.x86_rep_stosb_threshold",
	                                 "glibc.x86_non_temporal_threshold"};
	for (size_t i = 0; i < 3; i++)
		if (!pb_facts_int(&m->facts, threshold_names[i], thresholds[i]) ||
		    *thresholds[i] < 0)
			*thresholds[i] = -1;
	m->has_caches = pb_results_machine_caches(f->layout->machine, &m->caches) == 0;
	f->tsc_hz = m->tsc_hz;

	static const char *const not_facts[] = {"machine", "cases"};
	pb_facts_add_json(&f->facts, doc, NULL, 0, not_facts, 2);
	/* A kernel file's cases are TSC ticks read in the kernel
	 * (docs/kernel.md): their rate is the module's tsc_khz, which the
	 * file's own ns and GB/s (median_derived, the text tables) use too.
	 * The user timer's hz may be another clock's (machine.timer.clock
	 * "clock_monotonic_raw": 1e9, the rate of ns), or a calibration that
	 * differs (primbench kernel notes a difference over 1%). */
	double kernel_khz = pb_facts_num(&f->facts, "kernel.tsc_khz");
	if (kernel_khz > 0)
		f->tsc_hz = kernel_khz * 1e3;
	f->layout->members = member_names(doc, &f->layout->nmembers);
	const struct pb_facts *d = &f->facts;
	f->interrupted = pb_facts_get(d, "interrupted") &&
	                 pb_facts_get(d, "interrupted")->kind == PB_FIELD_BOOL &&
	                 pb_facts_get(d, "interrupted")->b;
	pb_facts_int(d, "schema_version", &f->schema_version);
	f->started_at = pb_facts_str(d, "started_at");
	const struct pb_field *cl = pb_facts_get(d, "command_line");
	if (cl && cl->kind == PB_FIELD_STRINGS) {
		f->command_line = cl->strv;
		f->ncommand_line = cl->nstr;
	}
	f->has_equivalence = pb_facts_has(d, "equivalence");
	f->equivalence = pb_facts_num(d, "equivalence");
	pb_facts_int(d, "processes.count", &f->processes_count);
	pb_facts_int(d, "processes.replicates_each", &f->replicates_each);
	f->page_op = pb_results_page_op(doc);
	f->primbench_version = pb_facts_str(d, "primbench.version");
	f->primbench_arch = pb_facts_str(d, "primbench.arch");
	const struct pb_field *notes = pb_facts_get(d, "notes");
	if (notes && notes->kind == PB_FIELD_STRINGS) {
		f->notes = notes->strv;
		f->nnotes = notes->nstr;
	}
	f->has_noise = pb_facts_has(d, "noise");
	const struct pb_field *high = pb_facts_get(d, "noise.high");
	f->noise_high = high && high->kind == PB_FIELD_BOOL && high->b;
	f->noise_cause = pb_facts_str(d, "noise.high_cause");
	f->noise_judged = high && high->kind == PB_FIELD_BOOL;
	f->noise_steal_pct = pb_facts_num(d, "noise.steal_pct");
	f->noise_other_cpus_busy_pct = pb_facts_num(d, "noise.other_cpus_busy_pct");
	f->noise_run_delay_pct = pb_facts_num(d, "noise.run_delay_pct");
	if (!pb_facts_int(d, "noise.involuntary_switches", &f->noise_involuntary_switches))
		f->noise_involuntary_switches = 0;
}

/* A file with kernel cases needs the rate of their ticks: kernel.tsc_khz,
 * an integer from 1000 to 10^8 (1 MHz to 100 GHz). Without it their ns,
 * GB/s and any comparison would silently use another clock's rate
 * (machine.timer.hz, which under emulation is ns). */
static int check_kernel_rate(const json_t *doc, const json_t *cases, const char *name)
{
	size_t i;
	const json_t *c;
	bool kernel_cases = false;
	json_array_foreach(cases, i, c)
	{
		const char *suite =
		    json_string_value(json_object_get(json_object_get(c, "key"), "suite"));
		kernel_cases = kernel_cases || (suite && !strcmp(suite, "kernel"));
	}
	if (!kernel_cases)
		return 0;
	const json_t *khz = json_object_get(json_object_get(doc, "kernel"), "tsc_khz");
	if (!json_is_integer(khz) || json_integer_value(khz) < 1000 ||
	    json_integer_value(khz) > 100000000)
		return pb_fail("%s: kernel cases need kernel.tsc_khz, the module's TSC rate in kHz "
		               "(an integer, 1000 to 100000000)",
		               name);
	return 0;
}

static int check_doc(struct pb_results_file *f)
{
	const char *name = f->path;
	const json_t *doc = f->layout->doc;
	if (!json_is_object(doc))
		return pb_fail("%s: not a primbench result (the top level is not an object)", name);
	const json_t *schema = json_object_get(doc, "schema");
	if (!schema)
		return pb_fail("%s: not a primbench result (no 'schema' field)", name);
	if (!json_is_string(schema) || strcmp(json_string_value(schema), PB_RESULTS_SCHEMA)) {
		char *t = pb_json_text(schema);
		pb_fail("%s: not a primbench result (schema '%s', expected '%s')", name, t,
		        PB_RESULTS_SCHEMA);
		free(t);
		return -1;
	}
	const json_t *ver = json_object_get(doc, "schema_version");
	if (!ver)
		return pb_fail("%s: no 'schema_version' field (this primbench reads versions 1 to "
		               "%d)",
		               name, PB_RESULTS_SCHEMA_VERSION);
	if (!json_is_integer(ver)) {
		/* as written: 2.0 is not "2" */
		char *t = json_is_string(ver) ? pb_json_text(ver)
		                              : json_dumps(ver, JSON_ENCODE_ANY | JSON_COMPACT);
		bool str = json_is_string(ver);
		pb_fail("%s: schema_version %s%s%s is a %s, not an integer (this primbench reads "
		        "versions 1 to %d)",
		        name, str ? "\"" : "", t, str ? "\"" : "",
		        str                   ? "string"
		        : json_is_number(ver) ? "number"
		                              : "JSON value",
		        PB_RESULTS_SCHEMA_VERSION);
		free(t);
		return -1;
	}
	if (json_integer_value(ver) < 1 || json_integer_value(ver) > PB_RESULTS_SCHEMA_VERSION) {
		char *t = pb_json_text(ver);
		pb_fail(
		    "%s: schema_version %s is not supported (this primbench reads versions 1 to "
		    "%d)",
		    name, t, PB_RESULTS_SCHEMA_VERSION);
		free(t);
		return -1;
	}
	f->layout->machine = json_object_get(doc, "machine");
	if (!json_is_object(f->layout->machine))
		return pb_fail("%s: no 'machine' object", name);
	const json_t *cases = json_object_get(doc, "cases");
	if (!json_is_array(cases))
		return pb_fail("%s: no 'cases' array", name);
	if (check_kernel_rate(doc, cases, name) != 0)
		return -1;
	type_doc(f, doc);

	size_t n = json_array_size(cases);
	f->cases = pb_xcalloc(n, sizeof *f->cases);
	f->layout->cases = pb_xcalloc(n + 1, sizeof *f->layout->cases);
	struct pb_strv skipped = {0};
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = load_case(f, json_array_get(cases, i), i, &skipped);
	f->skipped = skipped.v;
	f->nskipped = skipped.n;
	if (rc != 0)
		return -1;

	f->order = pb_xcalloc(f->ncases, sizeof *f->order);
	for (size_t i = 0; i < f->ncases; i++)
		f->order[i] = i;
	qsort_r(f->order, f->ncases, sizeof *f->order, cmp_canon, f->cases);
	for (size_t i = 1; i < f->ncases; i++) {
		const struct pb_results_case *p = &f->cases[f->order[i - 1]];
		const struct pb_results_case *c = &f->cases[f->order[i]];
		if (!strcmp(p->canon, c->canon)) {
			size_t lo = p->index < c->index ? p->index : c->index;
			size_t hi = p->index < c->index ? c->index : p->index;
			return fail_case(name, hi, pb_results_case_key_json(f, c),
			                 "the same key as cases[%zu]", lo);
		}
	}
	return 0;
}

int pb_results_load_text(const char *text, size_t len, const char *name, struct pb_results_file *f)
{
	memset(f, 0, sizeof *f);
	f->path = pb_xstrdup(name);
	if (len == 0)
		return pb_fail("%s: empty file", name);
	json_error_t err;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		/* jansson reads to the end before it notices a missing close. */
		bool at_end = err.position >= 0 && (size_t)err.position >= len;
		/* jansson quotes the bad token: bytes of the file. */
		char *msg = pb_printable(err.text, true);
		abbreviate(msg, 60);
		pb_fail("%s: invalid JSON at line %d, column %d: %s%s", name, err.line, err.column,
		        msg, at_end ? " (truncated file?)" : "");
		free(msg);
		return -1;
	}
	f->layout = pb_xcalloc(1, sizeof *f->layout);
	f->layout->doc = doc;
	return check_doc(f);
}

int pb_results_load(const char *path, struct pb_results_file *f)
{
	memset(f, 0, sizeof *f);
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		f->path = pb_xstrdup(path);
		return pb_fail("%s: cannot read: %s", path, strerror(errno));
	}
	/* A device is never a result file, and one such as /dev/zero never
	 * ends: refused before reading (a pipe, <(...), is read as a file). */
	struct stat st;
	if (fstat(fileno(fp), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		fclose(fp);
		f->path = pb_xstrdup(path);
		return pb_fail("%s: a device, not a result file", path);
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	int rc = 0;
	while (buf) {
		if (len >= PB_RESULTS_MAX_FILE_BYTES) {
			fclose(fp);
			free(buf);
			f->path = pb_xstrdup(path);
			return pb_fail("%s: more than %d MiB: not a result file", path,
			               PB_RESULTS_MAX_FILE_BYTES >> 20);
		}
		if (len == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, fp);
		len += got;
		if (got == 0)
			break;
	}
	if (!buf) {
		f->path = pb_xstrdup(path);
		rc = pb_fail("%s: out of memory", path);
	} else if (ferror(fp)) {
		f->path = pb_xstrdup(path);
		rc = pb_fail("%s: cannot read: %s", path, strerror(errno));
	}
	fclose(fp);
	if (rc == 0)
		rc = pb_results_load_text(buf, len, path, f);
	free(buf);
	return rc;
}

void pb_results_file_free(struct pb_results_file *f)
{
	for (size_t i = 0; i < f->ncases; i++)
		case_clear(&f->cases[i]);
	free(f->cases);
	free(f->order);
	for (size_t i = 0; i < f->nskipped; i++)
		free(f->skipped[i]);
	free(f->skipped);
	pb_facts_clear(&f->mach.facts);
	pb_facts_clear(&f->facts);
	layout_free(f->layout);
	free(f->path);
	memset(f, 0, sizeof *f);
}

/* ---- naming -------------------------------------------------------------- */

bool pb_json_array_has(const json_t *arr, const json_t *v)
{
	for (size_t i = 0; i < json_array_size(arr); i++)
		if (json_equal(json_array_get(arr, i), (json_t *)v))
			return true;
	return false;
}

char *pb_json_array_minus_text(const json_t *a, const json_t *b)
{
	char *s = pb_xstrdup("");
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *e = json_array_get(a, i);
		if (pb_json_array_has(b, e))
			continue;
		char *t = pb_json_text(e);
		if (*s)
			pb_xappend(&s, " ");
		pb_xappend(&s, t);
		free(t);
	}
	return s;
}

char *pb_key_array_minus_text(const struct pb_key *a, const struct pb_key *b, const char *name)
{
	json_t *x = array_of(pb_field_get(a, name)), *y = array_of(pb_field_get(b, name));
	char *s = pb_json_array_minus_text(x, y);
	json_decref(x);
	json_decref(y);
	return s;
}

const char **pb_key_field_names(const struct pb_key *a, const struct pb_key *b, size_t *n)
{
	size_t k = 0;
	const char **names = pb_xcalloc((a ? a->n : 0) + (b ? b->n : 0) + 1, sizeof *names);
	for (size_t i = 0; a && i < a->n; i++)
		names[k++] = a->fields[i].name;
	for (size_t i = 0; b && i < b->n; i++)
		if (!pb_field_get(a, b->fields[i].name))
			names[k++] = b->fields[i].name;
	qsort(names, k, sizeof *names, cmp_str);
	*n = k;
	return names;
}

/* A case and where it first appears: files in order, cases in file order
 * (so the baseline's cases come first). */
struct named {
	struct pb_results_case *c;
	size_t pos;
};

static int cmp_named(const void *pa, const void *pb)
{
	const struct named *na = pa, *nb = pb;
	const struct pb_results_case *a = na->c, *b = nb->c;
	int c = strcmp(a->group, b->group);
	if (!c)
		c = strcmp(a->label, b->label);
	if (!c)
		c = strcmp(a->canon, b->canon);
	return c ? c : (na->pos > nb->pos) - (na->pos < nb->pos);
}

bool pb_key_is_cmd(const struct pb_key *key)
{
	const char *suite = pb_field_str(key, "suite");
	json_t *argv = array_of(pb_field_get(key, "argv"));
	json_decref(argv);
	return suite && !strcmp(suite, "cmd") && argv;
}

/* The text that tells the cmd key keys[i] apart from the others of
 * keys[0..n) (which share its name): the env entries not in every one of
 * them, before the command as a shell would show them ("X=1 ./prog"),
 * the whole argv, and " (in DIR)" when the working directories differ. */
static char *cmd_full_text(const struct pb_key *const *keys, size_t n, size_t i)
{
	char *s = pb_xstrdup("");
	json_t **envs = pb_xcalloc(n, sizeof *envs);
	for (size_t j = 0; j < n; j++)
		envs[j] = array_of(pb_field_get(keys[j], "env"));
	const json_t *env = envs[i];
	for (size_t e = 0; e < json_array_size(env); e++) {
		const json_t *entry = json_array_get(env, e);
		bool everywhere = true;
		for (size_t j = 0; j < n && everywhere; j++)
			everywhere = pb_json_array_has(envs[j], entry);
		if (everywhere)
			continue;
		char *t = pb_json_text(entry);
		pb_xappend(&s, t);
		pb_xappend(&s, " ");
		free(t);
	}
	for (size_t j = 0; j < n; j++)
		json_decref(envs[j]);
	free(envs);
	char *argv = pb_key_cmd_text(keys[i]);
	pb_xappend(&s, argv);
	free(argv);
	/* null or missing: primbench's own directory, "." */
	const char *cwd = pb_field_str(keys[i], "cwd");
	bool cwd_differs = false;
	for (size_t j = 0; j < n; j++) {
		const char *other = pb_field_str(keys[j], "cwd");
		cwd_differs |= (cwd == NULL) != (other == NULL) || (cwd && strcmp(cwd, other));
	}
	if (cwd_differs) {
		char *item = pb_xasprintf(" (in %s)", cwd ? cwd : ".");
		pb_xappend(&s, item);
		free(item);
	}
	return s;
}

static bool is_part_sep(char c)
{
	return c && strchr(" =/,:.;", c);
}

/* s cut to at most `max` characters around s[start..end), the part that
 * tells it apart: before it, the first word (the program) and "... " and
 * the words just before the part, or "..." and the characters just before
 * it (from a separator on); after it, the rest or "...". NULL when the
 * part does not fit. */
static char *elide(const char *s, size_t start, size_t end, size_t max)
{
	size_t len = strlen(s), part = end - start, tail = len - end;
	size_t lead = start ? 3 : 0; /* at least "..." before the part */
	bool whole_tail = part + tail + lead <= max;
	size_t tail_cost = whole_tail ? tail : tail ? 3 : 0;
	if (part + tail_cost + lead > max)
		return NULL;
	size_t room = max - part - tail_cost; /* for what comes before the part */
	size_t w = strcspn(s, " ");           /* the first word */
	char *out;
	if (start <= room) {
		out = pb_xasprintf("%.*s", (int)start, s);
	} else if (w < start && w + 5 <= room) {
		size_t c = start - (room - w - 5); /* "WORD ... " then context */
		while (c < start && s[c - 1] != ' ')
			c++;
		out = pb_xasprintf("%.*s ... %.*s", (int)w, s, (int)(start - c), s + c);
	} else {
		size_t c = start - (room - 3);
		while (c < start && !is_part_sep(s[c - 1]))
			c++;
		out = pb_xasprintf("...%.*s", (int)(start - c), s + c);
	}
	char *p = pb_xasprintf("%.*s", (int)part, s + start);
	pb_xappend(&out, p);
	free(p);
	if (tail)
		pb_xappend(&out, whole_tail ? s + end : "...");
	return out;
}

void pb_results_distinct_labels(char *const *full, size_t n, size_t max, char **out)
{
	size_t cp = strlen(full[0]), minlen = cp;
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;
		while (k < cp && full[i][k] == full[0][k])
			k++;
		cp = k;
		minlen = strlen(full[i]) < minlen ? strlen(full[i]) : minlen;
	}
	size_t cs = 0, len0 = strlen(full[0]);
	while (cs < minlen - cp) {
		bool all = true;
		for (size_t i = 1; i < n && all; i++)
			all = full[i][strlen(full[i]) - 1 - cs] == full[0][len0 - 1 - cs];
		if (!all)
			break;
		cs++;
	}
	for (size_t i = 0; i < n; i++) {
		const char *s = full[i];
		size_t len = strlen(s);
		out[i] = NULL;
		if (len <= max) {
			out[i] = pb_xstrdup(s);
			continue;
		}
		/* whole words, then parts of words */
		for (int level = 0; level < 2 && !out[i]; level++) {
			size_t a = cp, e = len - cs;
			while (a > 0 && (level ? !is_part_sep(s[a - 1]) : s[a - 1] != ' '))
				a--;
			while (e < len && (level ? !is_part_sep(s[e]) : s[e] != ' '))
				e++;
			out[i] = elide(s, a, e, max);
		}
		if (!out[i]) /* the differing part alone is too long: its start */
			out[i] = pb_xasprintf("%s%.*s...", cp ? "..." : "",
			                      (int)(max - 3 - (cp ? 3 : 0)), s + cp);
	}
}

/* Names distinct keys that share a name: first by what tells them apart
 * (cmd: env entries, argv words, the directory; other suites without a
 * name of their own: the fields), then, where labels still coincide, " #1",
 * " #2", ... in order of first appearance, so the baseline's come first
 * (only that without tell_apart). run[0..n) holds one name, sorted by key
 * then position. */
static void rename_run(struct named *run, size_t n, bool tell_apart)
{
	/* The distinct keys, at the first position of each. */
	const struct pb_key **keys = pb_xcalloc(n, sizeof *keys);
	size_t *first = pb_xcalloc(n, sizeof *first), *of = pb_xcalloc(n, sizeof *of);
	size_t r = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(run[i].c->canon, run[i - 1].c->canon)) {
			keys[r] = &run[i].c->fields;
			first[r++] = run[i].pos;
		} else if (run[i].pos < first[r - 1]) {
			first[r - 1] = run[i].pos;
		}
		of[i] = r - 1;
	}
	char **full = pb_xcalloc(r, sizeof *full), **label = pb_xcalloc(r, sizeof *label);
	bool cmd = true, generic = true;
	for (size_t k = 0; k < r; k++) {
		char *g, *l;
		bool gen;
		key_name(keys[k], &g, &l, &gen);
		cmd &= pb_key_is_cmd(keys[k]);
		generic &= gen;
		free(g);
		free(l);
	}
	for (size_t k = 0; k < r; k++)
		full[k] = cmd       ? cmd_full_text(keys, r, k)
		          : generic ? generic_text(keys[k])
		                    : pb_xstrdup(run[0].c->label);
	bool differ = true; /* the full texts tell every key apart */
	for (size_t k = 0; k < r && differ; k++)
		for (size_t j = k + 1; j < r && differ; j++)
			differ = strcmp(full[k], full[j]) != 0;
	if (tell_apart && differ && (cmd || generic)) {
		pb_results_distinct_labels(full, r, LABEL_MAX, label);
	} else {
		for (size_t k = 0; k < r; k++)
			label[k] = pb_xstrdup(run[0].c->label);
	}
	for (size_t k = 0; k < r; k++) {
		char *p = pb_printable(label[k], false);
		free(label[k]);
		label[k] = p;
	}
	/* Labels still shared: numbered in order of first appearance. */
	char **final = pb_xcalloc(r, sizeof *final);
	for (size_t k = 0; k < r; k++) {
		size_t same_before = 0, same_total = 0;
		for (size_t j = 0; j < r; j++) {
			if (strcmp(label[j], label[k]))
				continue;
			same_total++;
			same_before += first[j] < first[k];
		}
		final[k] = same_total > 1 ? pb_xasprintf("%s #%zu", label[k], same_before + 1)
		                          : pb_xstrdup(label[k]);
	}
	for (size_t i = 0; i < n; i++) {
		free(run[i].c->label);
		run[i].c->label = pb_xstrdup(final[of[i]]);
	}
	for (size_t k = 0; k < r; k++) {
		free(full[k]);
		free(label[k]);
		free(final[k]);
	}
	free(full);
	free(label);
	free(final);
	free(keys);
	free(first);
	free(of);
}

int pb_results_name(struct pb_results_file *files, size_t nfiles)
{
	size_t total = 0;
	for (size_t i = 0; i < nfiles; i++)
		total += files[i].ncases;
	struct named *all = pb_xcalloc(total, sizeof *all);
	size_t k = 0;
	for (size_t i = 0; i < nfiles; i++)
		for (size_t j = 0; j < files[i].ncases; j++) {
			struct pb_results_case *c = &files[i].cases[j];
			free(c->group);
			free(c->label);
			pb_key_name(&c->fields, &c->group, &c->label);
			all[k].c = c;
			all[k].pos = k;
			k++;
		}
	/* Runs of one name with more than one key; a second pass numbers any
	 * name the first made clash with another (not seen in practice). */
	for (int pass = 0; pass < 2; pass++) {
		qsort(all, total, sizeof *all, cmp_named);
		for (size_t s = 0; s < total;) {
			size_t e = s + 1, distinct = 1;
			while (e < total && !strcmp(all[e].c->group, all[s].c->group) &&
			       !strcmp(all[e].c->label, all[s].c->label)) {
				if (strcmp(all[e].c->canon, all[e - 1].c->canon))
					distinct++;
				e++;
			}
			if (distinct > 1)
				rename_run(all + s, e - s, pass == 0);
			s = e;
		}
	}
	free(all);
	return 0;
}

/* ---- writing back ------------------------------------------------------ */

static json_t *case_json(const struct layout_case *lc)
{
	json_t *o = json_object();
	const struct pb_results_case *c = lc->typed;
	for (size_t i = 0; i < lc->nmembers; i++) {
		const char *name = lc->members[i];
		json_t *v = NULL;
		if (!strcmp(name, "key")) {
			v = pb_key_to_json(c ? &c->fields : &lc->key);
		} else if (c && !strcmp(name, "unit")) {
			v = json_string(c->unit);
		} else if (c && !strcmp(name, "samples")) {
			v = json_array();
			for (size_t j = 0; j < c->n; j++) {
				double x = c->sample_value[j], n = c->sample_calls[j];
				json_array_append_new(
				    v, json_pack("[oo]",
				                 lc->sample_int[j] & 1 ? json_integer((json_int_t)x)
				                                       : json_real(x),
				                 lc->sample_int[j] & 2 ? json_integer((json_int_t)n)
				                                       : json_real(n)));
			}
		} else {
			const char *seg[1] = {name};
			v = pb_facts_to_json(c ? &c->facts : &lc->facts, seg, 1);
		}
		json_object_set_new(o, name, v ? v : json_null());
	}
	return o;
}

static json_t *file_json(const struct pb_results_file *f)
{
	json_t *doc = json_object();
	const struct pb_results_layout *l = f->layout;
	for (size_t i = 0; l && i < l->nmembers; i++) {
		const char *name = l->members[i];
		json_t *v;
		if (!strcmp(name, "machine")) {
			v = pb_facts_to_json(&f->mach.facts, NULL, 0);
			if (!v)
				v = json_object();
		} else if (!strcmp(name, "cases")) {
			v = json_array();
			for (size_t j = 0; j < l->ncases; j++)
				json_array_append_new(v, case_json(&l->cases[j]));
		} else {
			const char *seg[1] = {name};
			v = pb_facts_to_json(&f->facts, seg, 1);
		}
		json_object_set_new(doc, name, v ? v : json_null());
	}
	return doc;
}

char *pb_results_file_text(const struct pb_results_file *f, int indent, int precision)
{
	json_t *doc = file_json(f);
	size_t flags = JSON_INDENT(indent) | (precision > 0 ? JSON_REAL_PRECISION(precision) : 0);
	if (indent == 0)
		flags |= JSON_COMPACT;
	char *text = json_dumps(doc, flags);
	json_decref(doc);
	if (!text)
		pb_fail("%s: out of memory", f->path);
	return text;
}

int pb_results_write_file(const struct pb_results_file *f, const char *path)
{
	char *text = pb_results_file_text(f, 1, 0);
	if (!text)
		return -1;
	char *whole = pb_xasprintf("%s\n", text);
	int rc = pb_write_file_whole(path, whole, strlen(whole));
	free(whole);
	free(text);
	return rc;
}

int pb_results_file_print(FILE *fp, const struct pb_results_file *f, int indent, int precision)
{
	char *text = pb_results_file_text(f, indent, precision);
	if (!text)
		return -1;
	int rc = fputs(text, fp) < 0 ? pb_fail("cannot write JSON") : 0;
	free(text);
	return rc;
}

int pb_results_case_profile_share(const struct pb_results_case *c, const char *family,
                                  double *share)
{
	const char *seg[1] = {"profile"};
	json_t *p = pb_facts_to_json(&c->facts, seg, 1);
	int rc = p ? pb_profile_json_share(p, family, share) : -1;
	if (!p)
		*share = 0;
	json_decref(p);
	return rc;
}

/* ---- the JSON behind a loaded file (results_json.h) ---------------------- */

json_t *pb_results_file_json(const struct pb_results_file *f)
{
	return f->layout ? f->layout->doc : NULL;
}

const json_t *pb_results_file_machine_json(const struct pb_results_file *f)
{
	return f->layout ? f->layout->machine : NULL;
}

const json_t *pb_results_case_key_json(const struct pb_results_file *f,
                                       const struct pb_results_case *c)
{
	const json_t *cases = json_object_get(pb_results_file_json(f), "cases");
	return json_object_get(json_array_get(cases, c->index), "key");
}
