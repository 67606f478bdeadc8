/* test_format.c - every output format of a result file round-trips
 * (include/primbench/format.h): JSON back to the same document, CSV back
 * to every case's statistics (exact), Markdown and text back to every
 * case's median, and Go's benchmark format checked line by line against
 * the rules of its design document (golang.org/design/14313-benchmark-
 * format) and back to every sample; the HTML tables hold the Markdown's
 * cells and read as XML. Fixtures: tests/data/format/, real
 * results of mem, syscall, xsave and cmd runs on the development machine
 * (xsave trimmed to 4 cases). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/text.h"
#include "results/results_json.h"

#include "html_check.h"

static const char *const fixtures[] = {"mem.json", "syscall.json", "xsave.json", "cmd.json"};
#define NFIX (sizeof fixtures / sizeof fixtures[0])

static char *render(const struct pb_results_file *f, enum pb_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	if (pb_format_write(m, f, fmt) != 0)
		fail_msg("pb_format_write %s: %s", pb_format_name(fmt), pb_error());
	assert_int_equal(fclose(m), 0);
	return text;
}

static void load(const char *name, struct pb_results_file *f)
{
	if (pb_results_load(name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
	assert_true(f->ncases > 0);
}

static const json_t *case_json(const struct pb_results_file *f, size_t i)
{
	return json_array_get(json_object_get(pb_results_file_json(f), "cases"), f->cases[i].index);
}

static void test_parse(void **state)
{
	(void)state;
	enum pb_format fmt;
	const char *ok[] = {"text", "json", "csv", "markdown", "md", "benchfmt"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		assert_int_equal(pb_format_parse(ok[i], &fmt), 0);
	assert_int_equal(pb_format_parse("md", &fmt), 0);
	assert_int_equal(fmt, PB_FORMAT_MARKDOWN);
	assert_int_equal(pb_format_parse("xml", &fmt), -1);
	assert_non_null(strstr(pb_error(), "unknown format 'xml'"));
	assert_int_equal(pb_format_parse("", &fmt), -1);
	assert_int_equal(pb_format_parse("JSON", &fmt), -1);
}

static void test_json_round_trip(void **state)
{
	(void)state;
	for (size_t k = 0; k < NFIX; k++) {
		struct pb_results_file f;
		load(fixtures[k], &f);
		char *text = render(&f, PB_FORMAT_JSON);
		json_error_t err;
		json_t *back = json_loads(text, 0, &err);
		if (!back)
			fail_msg("%s: %s at %d:%d", fixtures[k], err.text, err.line, err.column);
		assert_true(json_equal(back, pb_results_file_json(&f)));
		json_decref(back);
		free(text);
		pb_results_file_free(&f);
	}
}

/* RFC 4180 fields of one record starting at *p (CRLF-terminated); returns
 * the count and advances *p past the record. */
static size_t csv_record(const char **p, char fields[][256], size_t max)
{
	size_t n = 0;
	const char *s = *p;
	for (;;) {
		assert_true(n < max);
		size_t len = 0;
		if (*s == '"') {
			s++;
			for (;;) {
				assert_true(*s != '\0');
				if (*s == '"' && s[1] == '"') {
					fields[n][len++] = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					fields[n][len++] = *s++;
				}
				assert_true(len < 255);
			}
		} else {
			while (*s && *s != ',' && *s != '\r' && *s != '\n') {
				fields[n][len++] = *s++;
				assert_true(len < 255);
			}
		}
		fields[n++][len] = '\0';
		if (*s == ',') {
			s++;
			continue;
		}
		assert_true(s[0] == '\r' && s[1] == '\n'); /* CRLF ends every record */
		*p = s + 2;
		return n;
	}
}

static void test_csv_round_trip(void **state)
{
	(void)state;
	static char hdr[64][256], rec[64][256];
	for (size_t k = 0; k < NFIX; k++) {
		struct pb_results_file f;
		load(fixtures[k], &f);
		char *text = render(&f, PB_FORMAT_CSV);
		const char *p = text;
		size_t nh = csv_record(&p, hdr, 64);
		assert_true(nh >= 6);
		assert_string_equal(hdr[0], "group");
		assert_string_equal(hdr[1], "case");
		assert_string_equal(hdr[nh - 3], "statistic");
		assert_string_equal(hdr[nh - 2], "value");
		assert_string_equal(hdr[nh - 1], "unit");
		/* every case's every per_call statistic comes back exactly */
		size_t want = 0, seen_median = 0;
		for (size_t i = 0; i < f.ncases; i++) {
			const json_t *pc = json_object_get(case_json(&f, i), "per_call");
			const json_t *md = json_object_get(case_json(&f, i), "median_derived");
			static const char *const st[] = {"n",     "min",  "p10",  "median",
			                                 "p90",   "max",  "mean", "stddev",
			                                 "ci_lo", "ci_hi"};
			for (size_t s = 0; s < sizeof st / sizeof st[0]; s++)
				want += json_object_get(pc, st[s]) != NULL;
			want += json_object_size(md);
		}
		size_t rows = 0;
		while (*p) {
			size_t n = csv_record(&p, rec, 64);
			assert_int_equal(n, nh);
			rows++;
			/* find the case by its key fields */
			for (size_t i = 0; i < f.ncases; i++) {
				bool match = true;
				for (size_t j = 2; j < nh - 3 && match; j++) {
					const json_t *v = json_object_get(
					    pb_results_case_key_json(&f, &f.cases[i]), hdr[j]);
					char buf[256];
					if (!v || json_is_null(v))
						buf[0] = '\0';
					else if (json_is_string(v))
						snprintf(buf, sizeof buf, "%s",
						         json_string_value(v));
					else if (json_is_integer(v))
						snprintf(buf, sizeof buf, "%lld",
						         (long long)json_integer_value(v));
					else if (json_is_boolean(v))
						snprintf(buf, sizeof buf, "%s",
						         json_is_true(v) ? "true" : "false");
					else {
						char *t =
						    json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
						snprintf(buf, sizeof buf, "%s", t);
						free(t);
					}
					match = !strcmp(buf, rec[j]);
				}
				if (!match)
					continue;
				const json_t *pc = json_object_get(case_json(&f, i), "per_call");
				const json_t *v = json_object_get(pc, rec[nh - 3]);
				if (v) {
					assert_true(strtod(rec[nh - 2], NULL) ==
					            json_number_value(v));
					seen_median += !strcmp(rec[nh - 3], "median");
					assert_string_equal(rec[nh - 1], !strcmp(rec[nh - 3], "n")
					                                     ? "count"
					                                     : f.cases[i].unit);
				}
				break;
			}
		}
		assert_int_equal(rows, want);
		assert_int_equal(seen_median, f.ncases);
		free(text);
		pb_results_file_free(&f);
	}
}

/* The median as the text and Markdown tables print it. */
static void median_cell(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1e4)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A copy_page (clear_page) run's file: its 4 KiB cases of the op are
 * titled by the page op and per page, from the file's page_op or, in a
 * file before that field, from its command line; the other sizes keep the
 * op's name. Fixture: mem.json (memcpy at 64 B and 4 KiB, hot and dram). */
static char *render_edited(const char *name, const char *field, json_t *value, enum pb_format fmt)
{
	json_error_t err;
	json_t *doc = json_load_file(name, 0, &err);
	assert_non_null(doc);
	json_object_set_new(doc, field, value);
	char *text = json_dumps(doc, 0);
	json_decref(doc);
	struct pb_results_file f;
	if (pb_results_load_text(text, strlen(text), name, &f) != 0)
		fail_msg("%s: %s", name, pb_error());
	free(text);
	char *out = render(&f, fmt);
	pb_results_file_free(&f);
	return out;
}

static void test_page_op_title(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("mem.json", &f);
	assert_null(pb_results_page_op(pb_results_file_json(&f)));
	char *plain = render(&f, PB_FORMAT_TEXT);
	assert_non_null(strstr(plain, "memcpy hot (tsc_ticks per call)"));
	assert_null(strstr(plain, "copy_page"));
	free(plain);
	pb_results_file_free(&f);

	char *text = render_edited("mem.json", "page_op", json_string("copy_page"), PB_FORMAT_TEXT);
	assert_non_null(strstr(text, "copy_page hot (tsc_ticks per page)"));
	assert_non_null(strstr(text, "copy_page dram (tsc_ticks per page)"));
	assert_non_null(strstr(text, "memcpy hot (tsc_ticks per call)")); /* its 64 B cases */
	assert_null(strstr(text, "clear_page"));
	free(text);
	char *md =
	    render_edited("mem.json", "page_op", json_string("copy_page"), PB_FORMAT_MARKDOWN);
	assert_non_null(strstr(md, "### copy_page hot (tsc_ticks per page)"));
	free(md);
	/* csv's group as text's; its key fields (and benchfmt's name, all key
	 * fields) keep the op: the key a memcpy --sizes 4K file matches */
	char *csv = render_edited("mem.json", "page_op", json_string("copy_page"), PB_FORMAT_CSV);
	assert_non_null(strstr(csv, "\ncopy_page hot,"));
	assert_non_null(strstr(csv, "\ncopy_page dram,"));
	assert_non_null(strstr(csv, "\nmemcpy hot,")); /* its 64 B cases */
	assert_null(strstr(csv, "clear_page"));
	assert_non_null(strstr(csv, ",memcpy,"));
	free(csv);
	char *bf =
	    render_edited("mem.json", "page_op", json_string("copy_page"), PB_FORMAT_BENCHFMT);
	assert_non_null(strstr(bf, "/op=memcpy/"));
	assert_null(strstr(bf, "copy_page"));
	free(bf);
	/* a file before the field: its command line says it */
	json_t *cl =
	    json_pack("[s, s, s, s, s]", "primbench", "mem", "copy_page", "--kernels", "libc");
	char *old = render_edited("mem.json", "command_line", cl, PB_FORMAT_TEXT);
	assert_non_null(strstr(old, "copy_page hot (tsc_ticks per page)"));
	free(old);

	/* the names it knows, and only for its own op at 4 KiB */
	json_t *doc = json_pack("{s:s}", "page_op", "bogus");
	assert_null(pb_results_page_op(doc));
	json_object_set_new(doc, "page_op", json_string("clear_page"));
	assert_string_equal(pb_results_page_op(doc), "clear_page");
	json_decref(doc);
	doc = json_pack("{s:[s, s, s]}", "command_line", "primbench", "mem", "memset");
	assert_null(pb_results_page_op(doc));
	json_decref(doc);
	json_t *key =
	    json_pack("{s:s, s:s, s:i}", "suite", "mem", "op", "memset", "size_bytes", 4096);
	assert_string_equal(pb_results_page_op_of("clear_page", key), "clear_page");
	assert_string_equal(pb_results_page_op_of("copy_page", key), "memset");
	assert_string_equal(pb_results_page_op_of(NULL, key), "memset");
	json_object_set_new(key, "size_bytes", json_integer(64));
	assert_string_equal(pb_results_page_op_of("clear_page", key), "memset");
	json_object_set_new(key, "suite", json_string("syscall"));
	assert_null(pb_results_page_op_of("clear_page", key));
	json_decref(key);
}

static void test_tables(void **state)
{
	(void)state;
	for (size_t k = 0; k < NFIX; k++) {
		struct pb_results_file f;
		load(fixtures[k], &f);
		char *text = render(&f, PB_FORMAT_TEXT);
		char *md = render(&f, PB_FORMAT_MARKDOWN);
		/* text: at most 80 columns, no trailing blanks */
		for (const char *line = text; *line;) {
			size_t n = strcspn(line, "\n");
			if (n > 80)
				fail_msg("%s: %zu columns: %.*s", fixtures[k], n, (int)n, line);
			assert_true(n == 0 || line[n - 1] != ' ');
			line += n + (line[n] == '\n');
		}
		/* Markdown: every table line has the header's cell count */
		size_t cells = 0;
		for (const char *line = md; *line;) {
			size_t n = strcspn(line, "\n");
			if (n && line[0] == '|') {
				size_t bars = 0;
				for (size_t i = 0; i < n; i++)
					bars += line[i] == '|';
				if (line[1] == ' ' && !strncmp(line, "| case ", 7))
					cells = bars;
				assert_int_equal(bars, cells);
			}
			line += n + (line[n] == '\n');
		}
		/* both: every case's label and median */
		for (size_t i = 0; i < f.ncases; i++) {
			char *g, *l, med[32], row[512];
			pb_results_key_name(pb_results_case_key_json(&f, &f.cases[i]), &g, &l);
			double v = json_number_value(json_object_get(
			    json_object_get(case_json(&f, i), "per_call"), "median"));
			/* cmd runs: in s, ms or us by the file's longest median,
			 * as `primbench cmd` prints them */
			if (!strcmp(json_string_value(json_object_get(
			                pb_results_case_key_json(&f, &f.cases[i]), "suite")),
			            "cmd")) {
				double longest = 0;
				for (size_t j = 0; j < f.ncases; j++) {
					char *gj, *lj;
					pb_results_key_name(
					    pb_results_case_key_json(&f, &f.cases[j]), &gj, &lj);
					if (!strncmp(gj, "cmd", 3))
						longest = fmax(longest,
						               json_number_value(json_object_get(
						                   json_object_get(case_json(&f, j),
						                                   "per_call"),
						                   "median")));
					free(gj);
					free(lj);
				}
				v /= longest >= 1e9 ? 1e9 : longest >= 1e6 ? 1e6 : 1e3;
				assert_null(strstr(text, "ns per run"));
			}
			median_cell(v, med, sizeof med);
			snprintf(row, sizeof row, "| %s | ", l);
			const char *at = strstr(md, row);
			assert_non_null(at);
			assert_non_null(strstr(at, med));
			assert_non_null(strstr(text, l));
			assert_non_null(strstr(text, med));
			free(g);
			free(l);
		}
		free(text);
		free(md);
		pb_results_file_free(&f);
	}
}

/* The benchmark format's rules (design 14313): a line is blank, a
 * configuration line (key: lower-case first, no blanks and no upper case;
 * one or more blanks after the colon), or a result line (a name that
 * starts "Benchmark" followed by end or a non-lower-case character, no
 * blanks; an integer iteration count; then value unit pairs, each value a
 * float and each unit free of blanks). */
static void test_benchfmt(void **state)
{
	(void)state;
	regex_t config, result;
	assert_int_equal(regcomp(&config, "^[a-z][^[:space:][:upper:]]*:[ \t]+[^\n]*$",
	                         REG_EXTENDED | REG_NOSUB),
	                 0);
	assert_int_equal(
	    regcomp(&result,
	            "^Benchmark([^[:space:][:lower:]][^[:space:]]*)?([ \t]+[0-9]+)"
	            "([ \t]+[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?[ \t]+[^[:space:]]+)+$",
	            REG_EXTENDED | REG_NOSUB),
	    0);
	for (size_t k = 0; k < NFIX; k++) {
		struct pb_results_file f;
		load(fixtures[k], &f);
		char *text = render(&f, PB_FORMAT_BENCHFMT);
		size_t results = 0, configs = 0, samples = 0;
		bool has_goos = false, has_ns = false;
		for (size_t i = 0; i < f.ncases; i++)
			samples += f.cases[i].n;
		for (char *line = text; *line;) {
			size_t n = strcspn(line, "\n");
			char save = line[n];
			line[n] = '\0';
			if (n == 0) {
			} else if (regexec(&result, line, 0, NULL, 0) == 0) {
				results++;
				has_ns |= strstr(line, " ns/op") != NULL;
				/* the value per op times the count gives the sample back */
				char name[512];
				double iters, v;
				assert_int_equal(sscanf(line, "%511s %lf %lf", name, &iters, &v),
				                 3);
				assert_true(iters >= 1 && v >= 0);
			} else if (regexec(&config, line, 0, NULL, 0) == 0) {
				assert_int_equal(results, 0); /* configuration comes first here */
				configs++;
				has_goos |= !strncmp(line, "goos: ", 6);
			} else {
				fail_msg("%s: line breaks the format: '%s'", fixtures[k], line);
			}
			line[n] = save;
			line += n + (save == '\n');
		}
		assert_int_equal(results, samples);
		assert_true(configs >= 5);
		assert_true(has_goos);
		assert_true(has_ns);
		free(text);
		pb_results_file_free(&f);
	}
	regfree(&config);
	regfree(&result);
}

/* The per-op figures of the benchmark lines of one case, against its
 * samples: ticks/op exactly as value / calls (6 digits). */
static void test_benchfmt_values(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("mem.json", &f);
	char *text = render(&f, PB_FORMAT_BENCHFMT);
	double hz = json_number_value(
	    json_object_get(json_object_get(pb_results_file_machine_json(&f), "timer"), "hz"));
	assert_true(hz > 0);
	const char *line = strstr(text, "\nBenchmark");
	assert_non_null(line);
	line++;
	for (size_t i = 0; i < f.ncases; i++) {
		for (size_t s = 0; s < f.cases[i].n; s++) {
			char name[512], u1[32], u2[32];
			double iters, ns, ticks;
			assert_int_equal(sscanf(line, "%511s %lf %lf %31s %lf %31s", name, &iters,
			                        &ns, u1, &ticks, u2),
			                 6);
			assert_string_equal(u1, "ns/op");
			assert_string_equal(u2, "tsc_ticks/op");
			double want = f.cases[i].v[s];
			assert_true(fabs(ticks - want) <= 1e-5 * want);
			assert_true(fabs(ns - want / hz * 1e9) <= 1e-5 * ns);
			assert_non_null(strstr(name, "BenchmarkMem/op=memcpy/kernel="));
			line = strchr(line, '\n');
			assert_non_null(line);
			line++;
		}
	}
	free(text);
	pb_results_file_free(&f);
}

/* Latency and map figures in CSV carry their own units, not the ticks of
 * the per-call statistics (ns/load was labelled tsc_ticks). */
static void test_csv_derived_units(void **state)
{
	(void)state;
	static const struct {
		const char *file, *row;
	} want[] = {
	    {"../latency/loaded.json", ",median_ns_per_load,"},
	    {"../latency/loaded.json", ",median_load_gb_per_s,"},
	    {"../latency/map_a.json", ",median_ns_per_page,"},
	};
	static const char *const unit[] = {"ns/load", "GB/s", "ns/page"};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct pb_results_file f;
		load(want[i].file, &f);
		char *text = render(&f, PB_FORMAT_CSV);
		const char *row = strstr(text, want[i].row);
		assert_non_null(row);
		const char *eol = strstr(row, "\r\n");
		assert_non_null(eol);
		size_t ul = strlen(unit[i]);
		assert_true((size_t)(eol - row) > ul);
		assert_memory_equal(eol - ul, unit[i], ul);
		assert_true(eol[-(long)ul - 1] == ',');
		free(text);
		pb_results_file_free(&f);
	}
}

/* A file's text loaded into f (pb_results_load_text), for edited fixtures. */
static void load_edited(json_t *d, struct pb_results_file *f)
{
	char *t = json_dumps(d, JSON_COMPACT);
	assert_non_null(t);
	if (pb_results_load_text(t, strlen(t), "edited.json", f) != 0)
		fail_msg("edited.json: %s", pb_error());
	free(t);
}

/* Malformed members reach the tables as what they are (found by mutating
 * the fixtures, old binary against new): a statistic or a median_derived
 * member that is an object is a CSV cell of its JSON, once; a latency
 * case whose size_bytes is not a number is a point of 0 bytes (casting
 * its NaN was undefined). */
static void test_malformed_members(void **state)
{
	(void)state;
	json_error_t err;
	json_t *d = json_load_file("../latency/loaded.json", 0, &err);
	assert_non_null(d);
	json_t *c0 = json_array_get(json_object_get(d, "cases"), 0);
	json_object_set_new(json_object_get(c0, "per_call"), "max",
	                    json_pack("{s:i, s:i}", "a", 1, "b", 2));
	json_object_set_new(json_object_get(c0, "median_derived"), "odd",
	                    json_pack("{s:i, s:i}", "x", 3, "y", 4));
	struct pb_results_file f;
	load_edited(d, &f);
	char *text = render(&f, PB_FORMAT_CSV);
	assert_non_null(strstr(text, ",max,\"{\"\"a\"\":1,\"\"b\"\":2}\","));
	const char *odd = strstr(text, ",median_odd,\"{\"\"x\"\":3,\"\"y\"\":4}\",");
	assert_non_null(odd);
	assert_null(strstr(odd + 1, ",median_odd,"));
	free(text);
	pb_results_file_free(&f);
	json_decref(d);

	d = json_load_file("../latency/curve_a.json", 0, &err);
	assert_non_null(d);
	c0 = json_array_get(json_object_get(d, "cases"), 0);
	json_object_set_new(json_object_get(c0, "key"), "size_bytes", json_array());
	load_edited(d, &f);
	text = render(&f, PB_FORMAT_TEXT);
	assert_null(strstr(text, "TiB"));
	free(text);
	pb_results_file_free(&f);
	json_decref(d);
}

/* ---- HTML tables (pb_format_html_tables) ---- */

/* not inlined: GCC's -Wdangling-pointer takes the memstream's buffer for
 * the local that held its address */
__attribute__((noinline)) static char *render_html(const struct pb_results_file *f,
                                                   const char *prefix)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	if (pb_format_html_tables(m, f, prefix) != 0)
		fail_msg("pb_format_html_tables: %s", pb_error());
	assert_int_equal(fclose(m), 0);
	const char *why = html_check(text);
	if (why)
		fail_msg("%s: not polyglot HTML: %s", f->path, why);
	return text;
}

/* s[0..n) through pb_html_text, appended to *out. */
static void append_escaped(char **out, const char *s, size_t n)
{
	char *part = strndup(s, n), *text = NULL;
	size_t len = 0;
	assert_non_null(part);
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	pb_html_text(m, part);
	assert_int_equal(fclose(m), 0);
	size_t have = *out ? strlen(*out) : 0;
	*out = realloc(*out, have + len + 1);
	assert_non_null(*out);
	memcpy(*out + have, text, len + 1);
	free(part);
	free(text);
}

static void append(char **out, const char *s)
{
	size_t have = *out ? strlen(*out) : 0;
	*out = realloc(*out, have + strlen(s) + 1);
	assert_non_null(*out);
	strcpy(*out + have, s);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A Markdown table line "| a | b | c |" (n bytes) as an HTML row: the
 * first cell in `first`, the others in `rest` each. Malloc'd. */
static char *html_row(const char *line, size_t n, const char *first, const char *rest,
                      const char *close_first, const char *close_rest)
{
	char *out = NULL;
	append(&out, "<tr>");
	const char *p = line + 2, *end = line + n - 2; /* past "| ", before " |" */
	for (int i = 0; p <= end; i++) {
		const char *bar = strstr(p, " | ");
		if (!bar || bar > end)
			bar = end;
		append(&out, i ? rest : first);
		append_escaped(&out, p, (size_t)(bar - p));
		append(&out, i ? close_rest : close_first);
		p = bar + 3;
	}
	append(&out, "</tr>");
	return out;
}

/* Per Markdown heading one table captioned alike, in order; per
 * Markdown row one HTML row of the same cells; the header cells; ids with
 * the prefix, unique. */
static void test_html_tables(void **state)
{
	(void)state;
	static const char *const files[] = {
	    "mem.json",
	    "syscall.json",
	    "xsave.json",
	    "cmd.json",
	    "mem-bad-equivalence.json",
	    "mem-equivalence-5.json",
	    "../plot/run_default.json",
	    "../plot/mem_threads.json",
	    "../plot/cmd_ab.json",
	    "../plot/mem_sweep.json",
	    "../latency/loaded.json",
	    "../latency/curve_a.json",
	    "../latency/map_a.json",
	};
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		struct pb_results_file f;
		load(files[k], &f);
		char *md = render(&f, PB_FORMAT_MARKDOWN);
		char *html = render_html(&f, "t-");
		const char *at = html;
		size_t tables = 0, rows = 0;
		for (const char *line = md; *line;) {
			size_t n = strcspn(line, "\n");
			char *want = NULL;
			if (!strncmp(line, "### ", 4)) {
				append(&want, "<caption>");
				append_escaped(&want, line + 4, n - 4);
				append(&want, "</caption>");
				tables++;
			} else if (!strncmp(line, "| case |", 8)) {
				want =
				    html_row(line, n, "<th scope=\"col\">",
				             "<th scope=\"col\" class=\"num\">", "</th>", "</th>");
			} else if (!strncmp(line, "| ", 2)) {
				want = html_row(line, n, "<th scope=\"row\">", "<td class=\"num\">",
				                "</th>", "</td>");
				rows++;
			}
			if (want) {
				const char *found = strstr(at, want);
				if (!found)
					fail_msg("%s: no '%s' in order in\n%s", files[k], want,
					         html);
				at = found + strlen(want);
				free(want);
			}
			line += n + (line[n] == '\n');
		}
		assert_true(tables > 0);
		assert_int_equal(count(html, "<table class=\"pb-table\" id=\"t-"), tables);
		assert_int_equal(count(html, "<table"), tables);
		assert_int_equal(count(html, "</table>"), tables);
		assert_int_equal(rows, f.ncases);
		assert_int_equal(count(html, "<th scope=\"row\">"), rows);
		assert_int_equal(count(html, "<th scope=\"col\">case</th><th scope=\"col\" "
		                             "class=\"num\">n</th><th scope=\"col\" "
		                             "class=\"num\">median</th><th scope=\"col\" "
		                             "class=\"num\">95% CI</th>"),
		                 tables);
		/* the ids: unique */
		for (const char *id = strstr(html, " id=\""); id; id = strstr(id + 1, " id=\"")) {
			size_t n = strcspn(id + 5, "\"");
			for (const char *o = strstr(id + 1, " id=\""); o;
			     o = strstr(o + 1, " id=\""))
				if (strcspn(o + 5, "\"") == n && !strncmp(o + 5, id + 5, n))
					fail_msg("%s: id %.*s twice", files[k], (int)n, id + 5);
		}
		free(md);
		free(html);
		pb_results_file_free(&f);
	}
	/* ns/call and GB/s where the group has them */
	struct pb_results_file f;
	load("mem.json", &f);
	char *html = render_html(&f, "");
	assert_non_null(strstr(html,
	                       "<table class=\"pb-table\" id=\"memcpy-hot\">\n<caption>memcpy "
	                       "hot (tsc_ticks per call)</caption>\n<thead>\n"));
	assert_non_null(strstr(html, "<th scope=\"col\" class=\"num\">95% CI</th><th scope=\"col\" "
	                             "class=\"num\">ns/call</th><th scope=\"col\" "
	                             "class=\"num\">GB/s</th></tr>\n</thead>\n<tbody>\n<tr>"));
	free(html);
	pb_results_file_free(&f);
	load("syscall.json", &f);
	html = render_html(&f, NULL);
	assert_null(strstr(html, "GB/s"));
	assert_non_null(strstr(html, " id=\"syscall\""));
	free(html);
	pb_results_file_free(&f);
}

/* Labels and groups with HTML's characters come out escaped; groups of
 * one slug get -2, -3; a file without samples gets a paragraph. */
static void test_html_escaping_ids(void **state)
{
	(void)state;
	json_error_t err;
	json_t *d = json_load_file("mem.json", 0, &err);
	assert_non_null(d);
	json_t *cases = json_object_get(d, "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *key = json_object_get(json_array_get(cases, i), "key");
		bool hot = !strcmp(json_string_value(json_object_get(key, "cache_state")), "hot");
		long long size = json_integer_value(json_object_get(key, "size_bytes"));
		/* three groups, one slug: memcpy-hot-cold */
		json_object_set_new(key, "cache_state",
		                    json_string(hot          ? "hot & <cold>"
		                                : size == 64 ? "Hot \"cold\""
		                                             : "HOT'COLD"));
	}
	json_object_set_new(json_object_get(json_array_get(cases, 0), "key"), "kernel",
	                    json_string("a<b&c"));
	struct pb_results_file f;
	load_edited(d, &f);
	char *html = render_html(&f, "p1-");
	assert_non_null(strstr(html, "<table class=\"pb-table\" id=\"p1-memcpy-hot-cold\">\n"
	                             "<caption>memcpy hot &amp; &lt;cold&gt; (tsc_ticks per "
	                             "call)</caption>"));
	assert_non_null(strstr(html, "<table class=\"pb-table\" id=\"p1-memcpy-hot-cold-2\">\n"
	                             "<caption>memcpy Hot &quot;cold&quot; (tsc_ticks per "
	                             "call)</caption>"));
	assert_non_null(strstr(html, "<table class=\"pb-table\" id=\"p1-memcpy-hot-cold-3\">\n"
	                             "<caption>memcpy HOT&apos;COLD (tsc_ticks per "
	                             "call)</caption>"));
	assert_non_null(strstr(html, "<tr><th scope=\"row\">a&lt;b&amp;c 64</th><td "
	                             "class=\"num\">"));
	assert_null(strstr(html, "a<b"));
	assert_null(strstr(html, "<cold>"));
	free(html);
	html = render_html(&f, NULL);
	assert_non_null(strstr(html, " id=\"memcpy-hot-cold\""));
	assert_non_null(strstr(html, " id=\"memcpy-hot-cold-3\""));
	free(html);
	pb_results_file_free(&f);

	/* no case with samples: a paragraph, no table */
	for (size_t i = 0; i < json_array_size(cases); i++)
		json_object_set_new(json_array_get(cases, i), "samples", json_array());
	load_edited(d, &f);
	assert_int_equal(f.ncases, 0);
	html = render_html(&f, "p1-");
	assert_string_equal(html, "<p>no case with samples</p>\n");
	free(html);
	pb_results_file_free(&f);
	json_decref(d);
}

/* The polyglot check itself (html_check.h) refuses what XML would. */
static void test_html_check(void **state)
{
	(void)state;
	assert_null(html_check("<p class=\"a&amp;b\">x &lt; y &apos;</p>\n<p></p>"));
	static const char *const bad[] = {"<p>x",
	                                  "<p><b></p></b>",
	                                  "<p>&nbsp;</p>",
	                                  "<p>&#160;</p>",
	                                  "<p>a & b</p>",
	                                  "<p class=a>x</p>",
	                                  "<p class='a'>x</p>",
	                                  "<p>a > b</p>",
	                                  "<br/>",
	                                  "<P>x</P>",
	                                  "text<p></p>",
	                                  "<p></p></p>",
	                                  "<!-- c --><p></p>"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (!html_check(bad[i]))
			fail_msg("'%s' passed", bad[i]);
}

int main(void)
{
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/format", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_json_round_trip),
	    cmocka_unit_test(test_csv_round_trip),
	    cmocka_unit_test(test_tables),
	    cmocka_unit_test(test_page_op_title),
	    cmocka_unit_test(test_benchfmt),
	    cmocka_unit_test(test_benchfmt_values),
	    cmocka_unit_test(test_csv_derived_units),
	    cmocka_unit_test(test_malformed_members),
	    cmocka_unit_test(test_html_check),
	    cmocka_unit_test(test_html_tables),
	    cmocka_unit_test(test_html_escaping_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
