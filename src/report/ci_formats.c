/* ci_formats.c - a loaded result file in the formats CI trackers read:
 * Bencher Metric Format (bmf), Google Benchmark's JSON (gbench: what
 * github-action-benchmark's googlecpp tool and Bencher's cpp_google
 * adapter read) and github-action-benchmark's customSmallerIsBetter array
 * (action). include/primbench/format.h, docs/formats.md.
 *
 * The JSON is written by hand: strings escaped as RFC 8259 requires
 * (pb_ci_json_string), numbers in the shortest text that reads back as the
 * same double (pb_ci_json_number), never NaN or infinity (a figure that is not
 * finite is left out). */
#define _GNU_SOURCE
#include "ci_formats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/replicates.h"
#include "primbench/stats.h"
#include "primbench/xalloc.h"

/* ---- JSON text ------------------------------------------------------------ */

/* s as a JSON string: '"' and '\' escaped, control characters as \n, \t,
 * ... or \u00XX; every other byte as it is (the reader took the file's
 * strings as valid UTF-8). */
void pb_ci_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* v (finite) in the shortest text that reads back as the same double. */
void pb_ci_json_number(FILE *f, double v)
{
	char buf[32];
	if (!isfinite(v)) {
		fputs("null", f); /* never reached: callers leave such figures out */
		return;
	}
	pb_csv_double(buf, sizeof buf, v);
	fputs(buf, f);
}

/* ---- names ------------------------------------------------------------------ */

/* The naming rule of docs/formats.md ("Names"): per suite, the fields
 * whose values lead the name (in this order; null ones skipped), whether
 * the name starts with the suite, and the values of the other fields that
 * are left out as the suite's defaults. */
struct name_rule {
	const char *suite;
	bool prefix;
	const char *lead[6];
	const char *const (*defaults)[2];
	size_t ndefaults;
};

static const char *const mem_defaults[][2] = {
    {"dst_offset_bytes", "0"}, {"src_offset_bytes", "2048"},
    {"extent_bytes", "0"},     {"fill_value", "0"},
    {"page_bytes", "4096"},    {"then_read", "false"},
    {"threads", "1"},          {"mem_node", "local"},
    {"offsets", "random"},     {"seed", "1"},
};
static const char *const cmd_defaults[][2] = {{"shell", "false"}};
static const char *const kernel_defaults[][2] = {{"irqs_off", "false"}};

static const struct name_rule rules[] = {
    {"mem",
     false,
     {"op", "kernel", "size_bytes", "distribution", "cache_state"},
     mem_defaults,
     sizeof mem_defaults / sizeof mem_defaults[0]},
    {"syscall", true, {"benchmark"}, NULL, 0},
    {"xsave", true, {"instruction", "upper_state"}, NULL, 0},
    {"kernel",
     true,
     {"op", "variant", "page_bytes", "size_bytes", "upper_state", "cache_state"},
     kernel_defaults,
     1},
    {"cmd", true, {"side", "argv"}, cmd_defaults, 1},
    {"latency", true, {"size_bytes"}, NULL, 0},
    {"map", true, {"fault", "page_source"}, NULL, 0},
};

/* A field's value for a name: strings as they are, integers as written,
 * other numbers in the shortest exact text, true/false, an array of
 * strings its elements joined by blanks, anything else its compact JSON;
 * NULL for null and for an empty string or array (left out). cmd's argv
 * as pb_key_cmd_text gives it ("sh: TEXT" for --shell). Malloc'd. */
static char *name_value_text(const struct pb_key *key, const struct pb_field *v)
{
	char buf[32];
	switch (v->kind) {
	case PB_FIELD_NULL:
		return NULL;
	case PB_FIELD_BOOL:
		return pb_xstrdup(v->b ? "true" : "false");
	case PB_FIELD_INT:
		return pb_xasprintf("%lld", v->i);
	case PB_FIELD_REAL:
		pb_csv_double(buf, sizeof buf, v->r);
		return pb_xstrdup(buf);
	case PB_FIELD_STRING:
		return *v->s ? pb_xstrdup(v->s) : NULL;
	case PB_FIELD_STRINGS: {
		if (v->nstr == 0)
			return NULL;
		if (!strcmp(v->name, "argv") && pb_key_is_cmd(key))
			return pb_key_cmd_text(key);
		char *s = pb_xstrdup("");
		for (size_t i = 0; i < v->nstr; i++) {
			if (i)
				pb_xappend(&s, " ");
			pb_xappend(&s, v->strv[i]);
		}
		return s;
	}
	case PB_FIELD_OTHER:
		return strcmp(v->s, "[]") ? pb_xstrdup(v->s) : NULL;
	}
	return NULL;
}

/* text appended to *name, '/', '%' and control characters as %XX (so that
 * '/' only separates the name's parts). */
static void append_encoded(char **name, const char *text)
{
	size_t n = strlen(*name), len = strlen(text);
	char *s = pb_xrealloc(*name, n + 3 * len + 1);
	char *o = s + n;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f)
			o += sprintf(o, "%%%02X", *p);
		else
			*o++ = (char)*p;
	}
	*o = '\0';
	*name = s;
}

static int cmp_field_name(const void *a, const void *b)
{
	const struct pb_field *x = *(const struct pb_field *const *)a,
	                      *y = *(const struct pb_field *const *)b;
	return strcmp(x->name, y->name);
}

/* A syscall case's placement without its CPU numbers, in place: "cpu 3"
 * -> "cpu", "same cpu 0" -> "same cpu", "cpus 0,1" -> "cpus"
 * ("unpinned" and mem's placements stay). Without --cpu the run chooses
 * the CPU (the quietest by the noise probe, or where it started), so the
 * number changes from run to run while the case stays the same. */
static void placement_class(char *t)
{
	static const char *const pinned[] = {"same cpu ", "cpus ", "cpu "};
	for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++) {
		size_t l = strlen(pinned[i]);
		if (!strncmp(t, pinned[i], l) && t[l] >= '0' && t[l] <= '9' &&
		    strspn(t + l, "0123456789,") == strlen(t + l)) {
			t[l - 1] = '\0';
			return;
		}
	}
}

char *pb_format_ci_name(const struct pb_key *key)
{
	const char *suite = pb_field_str(key, "suite");
	static const struct name_rule generic = {NULL, true, {NULL}, NULL, 0};
	const struct name_rule *rule = &generic;
	for (size_t i = 0; suite && i < sizeof rules / sizeof rules[0]; i++)
		if (!strcmp(rules[i].suite, suite))
			rule = &rules[i];
	char *name = pb_xstrdup("");
	bool first = true;
	if (rule->prefix) {
		append_encoded(&name, suite ? suite : "case");
		first = false;
	}
	for (size_t l = 0; l < sizeof rule->lead / sizeof rule->lead[0] && rule->lead[l]; l++) {
		const struct pb_field *v = pb_field_get(key, rule->lead[l]);
		char *t = v ? name_value_text(key, v) : NULL;
		if (t) {
			if (!first)
				pb_xappend(&name, "/");
			append_encoded(&name, t);
			first = false;
		}
		free(t);
	}
	/* the other fields, by name, as field=value, defaults left out */
	const struct pb_field **rest = pb_xcalloc(key->n + 1, sizeof *rest);
	size_t nrest = 0;
	for (size_t k = 0; k < key->n; k++) {
		const struct pb_field *v = &key->fields[k];
		bool lead = !strcmp(v->name, "suite");
		for (size_t l = 0;
		     !lead && l < sizeof rule->lead / sizeof rule->lead[0] && rule->lead[l]; l++)
			lead = !strcmp(rule->lead[l], v->name);
		if (!lead)
			rest[nrest++] = v;
	}
	qsort(rest, nrest, sizeof *rest, cmp_field_name);
	for (size_t k = 0; k < nrest; k++) {
		char *t = name_value_text(key, rest[k]);
		if (t && !strcmp(rest[k]->name, "placement"))
			placement_class(t);
		bool dflt = false;
		for (size_t d = 0; t && d < rule->ndefaults && !dflt; d++)
			dflt = !strcmp(rule->defaults[d][0], rest[k]->name) &&
			       !strcmp(rule->defaults[d][1], t);
		if (t && !dflt) {
			if (!first)
				pb_xappend(&name, "/");
			append_encoded(&name, rest[k]->name);
			pb_xappend(&name, "=");
			append_encoded(&name, t);
			first = false;
		}
		free(t);
	}
	free(rest);
	if (first)
		pb_xappend(&name, "case");
	return name;
}

/* ---- the figures of a case --------------------------------------------------- */

struct ci_case {
	const struct pb_results_case *c;
	char *name;
	bool ns;          /* value, lo, hi in ns (else in c->unit) */
	const char *unit; /* "ns" or c->unit */
	double value;     /* the median per call */
	double lo, hi;    /* its interval; NAN, NAN: none */
	double level;     /* the interval's level in percent (95) */
	double n;         /* samples */
	double runs;      /* replicates the median and interval stand for */
	double calls;     /* the samples' calls, summed */
	bool mem;         /* a mem case (throughput, bytes) */
	double size;      /* mem: size_bytes per call; NAN: none */
};

static void ci_cases_free(struct ci_case *cs, size_t n)
{
	for (size_t i = 0; cs && i < n; i++)
		free(cs[i].name);
	free(cs);
}

/* The figures of every case of r into *out (r->ncases of them, names
 * unique): 0, or -1 with pb_error(). */
static int ci_cases(const struct pb_results_file *r, struct ci_case **out)
{
	struct ci_case *cs = calloc(r->ncases + 1, sizeof *cs);
	if (!cs)
		return pb_fail("out of memory");
	for (size_t i = 0; i < r->ncases; i++) {
		const struct pb_results_case *c = &r->cases[i];
		struct ci_case *x = &cs[i];
		x->c = c;
		x->name = pb_format_ci_name(&c->fields);
		/* the (very unlikely) name of an earlier case: the case's position */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(cs[j].name, x->name)) {
				char *t = pb_xasprintf("%s/#%zu", x->name, c->index + 1);
				free(x->name);
				x->name = t;
				break;
			}
		double med = pb_facts_num(&c->facts, "per_call.median");
		double lo = pb_facts_num(&c->facts, "per_call.ci_lo");
		double hi = pb_facts_num(&c->facts, "per_call.ci_hi");
		double level = pb_facts_num(&c->facts, "per_call.ci_level");
		double runs = pb_facts_num(&c->facts, "per_call.replicates");
		if (!isfinite(med)) {
			/* a file without its summary: computed as the writer does */
			struct pb_summary s;
			if (pb_results_case_summary(c, 0.95, &s) != 0) {
				ci_cases_free(cs, i + 1);
				return -1;
			}
			med = s.median;
			lo = s.ci_valid ? s.ci_lo : NAN;
			hi = s.ci_valid ? s.ci_hi : NAN;
			level = s.ci_level;
			runs = (double)s.replicates;
		}
		if (!(isfinite(lo) && isfinite(hi) && lo <= med && med <= hi))
			lo = hi = NAN;
		double scale = pb_file_ns_per_value(r, c->unit);
		x->ns = scale > 0;
		if (!x->ns)
			scale = 1;
		x->unit = x->ns ? "ns" : c->unit;
		x->value = med * scale;
		x->lo = lo * scale;
		x->hi = hi * scale;
		x->level = isfinite(level) && level > 0 && level < 1 ? level * 100 : 95;
		x->n = (double)c->n;
		x->runs =
		    isfinite(runs) && runs >= 1 ? runs : (c->n_rep > 1 ? (double)c->n_rep : 1);
		x->calls = 0;
		for (size_t s = 0; s < c->n; s++)
			x->calls += c->sample_calls[s];
		const char *suite = pb_field_str(&c->fields, "suite");
		x->mem = suite && !strcmp(suite, "mem");
		x->size = x->mem ? pb_field_num(&c->fields, "size_bytes") : NAN;
	}
	*out = cs;
	return 0;
}

static bool has_ci(const struct ci_case *x)
{
	return isfinite(x->lo) && isfinite(x->hi);
}

/* A figure for people (range, extra): 6 significant digits. */
static void short_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.6g", v);
}

/* ---- bmf ------------------------------------------------------------------------ */

/* A BMF measure's slug for a unit that is not ns: its ASCII letters and
 * digits lower-cased, every other run of bytes '-' ("tsc_ticks" ->
 * "tsc-ticks"). */
static void unit_slug(char *buf, size_t len, const char *unit)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)unit; *p && o + 2 < len; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			buf[o++] = (char)*p;
		else if (*p >= 'A' && *p <= 'Z')
			buf[o++] = (char)(*p - 'A' + 'a');
		else if (o > 0 && buf[o - 1] != '-')
			buf[o++] = '-';
	}
	while (o > 0 && buf[o - 1] == '-')
		o--;
	if (o == 0)
		o = (size_t)snprintf(buf, len, "value");
	buf[o] = '\0';
}

static void bmf_metric(FILE *f, const char *measure, double v, double lo, double hi, bool last)
{
	fputs("    ", f);
	pb_ci_json_string(f, measure);
	fputs(": {\"value\": ", f);
	pb_ci_json_number(f, v);
	if (isfinite(lo) && isfinite(hi)) {
		fputs(", \"lower_value\": ", f);
		pb_ci_json_number(f, lo);
		fputs(", \"upper_value\": ", f);
		pb_ci_json_number(f, hi);
	}
	fputs(last ? "}\n" : "},\n", f);
}

static void write_bmf(FILE *f, const struct ci_case *cs, size_t n)
{
	fputs("{", f);
	for (size_t i = 0; i < n; i++) {
		const struct ci_case *x = &cs[i];
		fputs(i ? ",\n  " : "\n  ", f);
		pb_ci_json_string(f, x->name);
		fputs(": {\n", f);
		/* throughput: calls per second, Bencher's built-in measure (ops/s) */
		bool tput = x->mem && x->ns && x->value > 0;
		char slug[64];
		if (x->ns)
			snprintf(slug, sizeof slug, "latency");
		else
			unit_slug(slug, sizeof slug, x->unit);
		bool ci = has_ci(x);
		bmf_metric(f, slug, x->value, ci ? x->lo : NAN, ci ? x->hi : NAN, !tput);
		if (tput) {
			bool tci = ci && x->lo > 0;
			bmf_metric(f, "throughput", 1e9 / x->value, tci ? 1e9 / x->hi : NAN,
			           tci ? 1e9 / x->lo : NAN, true);
		}
		fputs("  }", f);
	}
	fputs(n ? "\n}\n" : "}\n", f);
}

/* ---- gbench ------------------------------------------------------------------- */

static void member_str(FILE *f, const char *indent, const char *name, const char *v, bool *first)
{
	if (!v)
		return;
	fputs(*first ? "" : ",\n", f);
	*first = false;
	fprintf(f, "%s\"%s\": ", indent, name);
	pb_ci_json_string(f, v);
}

static void member_num(FILE *f, const char *indent, const char *name, double v, bool *first)
{
	if (!isfinite(v))
		return;
	fputs(*first ? "" : ",\n", f);
	*first = false;
	fprintf(f, "%s\"%s\": ", indent, name);
	pb_ci_json_number(f, v);
}

static void write_gbench(FILE *f, const struct pb_results_file *r, const struct ci_case *cs,
                         size_t n)
{
	const struct pb_results_machine *m = &r->mach;
	fputs("{\n  \"context\": {\n", f);
	bool first = true;
	const char *in = "    ";
	member_str(f, in, "date", r->started_at, &first);
	member_str(f, in, "host_name", pb_facts_str(&m->facts, "hostname"), &first);
	member_str(f, in, "executable", "primbench", &first);
	member_num(f, in, "num_cpus", pb_facts_num(&m->facts, "cpu.online_cpus"), &first);
	/* the counter's rate (TSC: the nominal clock), not the core's */
	if (m->tsc_hz > 0)
		member_num(f, in, "mhz_per_cpu", round(m->tsc_hz / 1e6), &first);
	/* the caches primbench took: L1d (data, level 1), L2 and the LLC
	 * (unified, levels 2 and 3) */
	fputs(",\n    \"caches\": [", f);
	static const struct {
		const char *path, *type;
		int level;
	} levels[] = {{"caches.L1d.size_bytes", "Data", 1},
	              {"caches.L2.size_bytes", "Unified", 2},
	              {"caches.LLC.size_bytes", "Unified", 3}};
	bool any = false;
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
		double size = pb_facts_num(&m->facts, levels[i].path);
		if (!(isfinite(size) && size > 0))
			continue;
		fprintf(f, "%s\n      {\"type\": \"%s\", \"level\": %d, \"size\": ", any ? "," : "",
		        levels[i].type, levels[i].level);
		pb_ci_json_number(f, size);
		fputs("}", f);
		any = true;
	}
	fputs(any ? "\n    ]" : "]", f);
	const char *flags = pb_facts_str(&r->facts, "primbench.build_flags");
	if (flags)
		member_str(f, in, "library_build_type",
		           !strncmp(flags, "Debug", 5) ? "debug" : "release", &first);
	member_str(f, in, "primbench_version", r->primbench_version, &first);
	fputs("\n  },\n  \"benchmarks\": [", f);
	bool any_case = false;
	for (size_t i = 0; i < n; i++) {
		const struct ci_case *x = &cs[i];
		if (!x->ns)
			continue; /* Google Benchmark's times are times: ns, us, ms, s */
		fputs(any_case ? ",\n    {\n" : "\n    {\n", f);
		any_case = true;
		const char *bi = "      ";
		bool bf = true;
		member_str(f, bi, "name", x->name, &bf);
		member_str(f, bi, "run_name", x->name, &bf);
		member_str(f, bi, "run_type", "iteration", &bf);
		member_num(f, bi, "repetitions", 1, &bf);
		member_num(f, bi, "repetition_index", 0, &bf);
		long long threads = 1;
		if (!pb_field_int(&x->c->fields, "threads", &threads) || threads < 1)
			threads = 1;
		member_num(f, bi, "threads", (double)threads, &bf);
		member_num(f, bi, "iterations", round(x->calls), &bf);
		member_num(f, bi, "real_time", x->value, &bf);
		member_num(f, bi, "cpu_time", x->value, &bf);
		member_str(f, bi, "time_unit", "ns", &bf);
		if (isfinite(x->size) && x->size > 0 && x->value > 0)
			member_num(f, bi, "bytes_per_second", x->size / x->value * 1e9, &bf);
		if (has_ci(x)) {
			member_num(f, bi, "ci_lo", x->lo, &bf);
			member_num(f, bi, "ci_hi", x->hi, &bf);
		}
		member_num(f, bi, "samples", x->n, &bf);
		member_num(f, bi, "runs", x->runs, &bf);
		fputs("\n    }", f);
	}
	fputs(any_case ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ---- action ------------------------------------------------------------------- */

static void write_action(FILE *f, const struct ci_case *cs, size_t n)
{
	fputs("[", f);
	for (size_t i = 0; i < n; i++) {
		const struct ci_case *x = &cs[i];
		fputs(i ? ",\n  {\n" : "\n  {\n", f);
		const char *in = "    ";
		bool first = true;
		member_str(f, in, "name", x->name, &first);
		member_str(f, in, "unit", x->unit, &first);
		member_num(f, in, "value", x->value, &first);
		char a[32], b[32], c[32];
		char *extra;
		if (has_ci(x)) {
			/* the larger side: value +- range covers the interval */
			short_num(a, sizeof a, fmax(x->value - x->lo, x->hi - x->value));
			char *range = pb_xasprintf("\xc2\xb1 %s", a);
			member_str(f, in, "range", range, &first);
			free(range);
			short_num(a, sizeof a, x->lo);
			short_num(b, sizeof b, x->hi);
			short_num(c, sizeof c, x->level);
			extra = pb_xasprintf("%s%% CI: %s .. %s %s\n", c, a, b, x->unit);
		} else {
			extra = pb_xasprintf("%s", "no CI\n");
		}
		short_num(a, sizeof a, x->n);
		short_num(b, sizeof b, x->runs);
		char *more =
		    pb_xasprintf("n: %s samples in %s run%s", a, b, x->runs == 1 ? "" : "s");
		pb_xappend(&extra, more);
		free(more);
		member_str(f, in, "extra", extra, &first);
		free(extra);
		fputs("\n  }", f);
	}
	fputs(n ? "\n]\n" : "]\n", f);
}

int pb_ci_format_write(FILE *f, const struct pb_results_file *r, enum pb_format fmt)
{
	struct ci_case *cs = NULL;
	if (ci_cases(r, &cs) != 0)
		return -1;
	int rc = 0;
	switch (fmt) {
	case PB_FORMAT_BMF:
		write_bmf(f, cs, r->ncases);
		break;
	case PB_FORMAT_GBENCH:
		write_gbench(f, r, cs, r->ncases);
		break;
	case PB_FORMAT_ACTION:
		write_action(f, cs, r->ncases);
		break;
	default:
		rc = pb_fail("not a CI format: %d", (int)fmt);
	}
	ci_cases_free(cs, r->ncases);
	return rc;
}
