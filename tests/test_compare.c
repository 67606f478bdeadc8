/* test_compare.c - `primbench compare` (include/primbench/compare.h): loading
 * and every bad-input message, naming, matching on the key, the machine
 * check, unit conversion, the '~' rule and the geometric mean on fixed data,
 * the text layout (80 columns), and the Markdown, CSV and HTML tables. Real
 * result files are in
 * tests/data/compare (make_fixtures.py there derives the edited ones). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/glibc_effect.h"
#include "primbench/profile.h"
#include "primbench/text.h"
#include "results/results_json.h"

#include "html_check.h"

#define assert_close(a, b, eps)                                                                    \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!strstr(h_, n_)) {                                                             \
			fprintf(stderr, "---\n%s---\ndoes not contain\n---\n%s---\n", h_, n_);     \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* tests/data/compare/NAME, by a relative path: main() changes into that
 * directory, so that the text printed (which holds the paths) does not depend
 * on where the checkout is. */
static const char *data(const char *name)
{
	return name;
}

static void load_ok(const char *name, struct pb_results_file *f)
{
	if (pb_results_load(data(name), f) != 0)
		fail_msg("%s: %s", name, pb_error());
}

/* The error of loading a bad file; it starts with the path. */
static void load_fails(const char *name, const char *want)
{
	struct pb_results_file f;
	const char *path = data(name);
	assert_int_equal(pb_results_load(path, &f), -1);
	assert_int_equal(strncmp(pb_error(), path, strlen(path)), 0);
	assert_contains(pb_error(), want);
	assert_null(strchr(pb_error(), '\n'));
	pb_results_file_free(&f);
}

/* Text of pb_compare_print; every line <= 80 columns. */
static char *print_text(const struct pb_compare_result *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	assert_non_null(m);
	pb_compare_print(m, r);
	fclose(m);
	for (char *line = s; *line;) {
		size_t n = strcspn(line, "\n");
		if (n > 80)
			fail_msg("line of %zu columns: %.*s", n, (int)n, line);
		line += n + (line[n] ? 1 : 0);
	}
	return s;
}

/* Wrapped text as one line: newlines and runs of spaces become one space. */
static void squash(char *text)
{
	char *o = text;
	for (const char *c = text; *c; c++) {
		char ch = *c == '\n' ? ' ' : *c;
		if (ch == ' ' && o > text && o[-1] == ' ')
			continue;
		*o++ = ch;
	}
	*o = '\0';
}

/* ---- synthetic documents ---- */

static json_t *doc_new(void)
{
	return json_pack("{s:s, s:i, s:{s:{s:s, s:i, s:i, s:i, s:i}, s:{s:f}, s:s}, s:[]}",
	                 "schema", "primbench-result", "schema_version", 1, "machine", "cpu",
	                 "vendor", "GenuineIntel", "family", 6, "model", 167, "stepping", 1,
	                 "online_cpus", 2, "timer", "hz", 2e9, "kernel", "6.1.0-18-amd64", "cases");
}

static json_t *mem_key(const char *kernel, long size)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:i, s:n, s:n, s:i, s:s, s:i, s:i, s:b}", "suite",
	                 "mem", "op", "memset", "kernel", kernel, "size_bytes", size,
	                 "dst_offset_bytes", 0, "src_offset_bytes", "distance_bytes",
	                 "extent_bytes", 0, "cache_state", "hot", "page_bytes", 4096, "fill_value",
	                 0, "then_read", 0);
}

/* A case with per-call values v (stored as [4 v, 4]: exact in binary). */
static void add_case(json_t *doc, json_t *key, const char *unit, const double *v, size_t n)
{
	json_t *samples = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(samples, json_pack("[f, i]", 4 * v[i], 4));
	json_array_append_new(
	    json_object_get(doc, "cases"),
	    json_pack("{s:o, s:s, s:o}", "key", key, "unit", unit, "samples", samples));
}

static void load_doc(json_t *doc, const char *name, struct pb_results_file *f)
{
	char *text = json_dumps(doc, 0);
	assert_non_null(text);
	if (pb_results_load_text(text, strlen(text), name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
	free(text);
	json_decref(doc);
}

/* n values m * (1 + step * (i - n/2)): median exactly m for odd n. */
static double *spread(double m, double step, size_t n)
{
	double *v = malloc(n * sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = m * (1 + step * ((double)i - (double)(n / 2)));
	return v;
}

/* ---- tests ---- */

static void test_load_real_files(void **state)
{
	(void)state;
	struct pb_results_file f[3];
	load_ok("mem_a.json", &f[0]);
	load_ok("sys_a.json", &f[1]);
	load_ok("xsave.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	assert_int_equal(f[0].ncases, 6);
	assert_int_equal(f[0].cases[0].n, 20);
	assert_string_equal(f[0].cases[0].unit, "tsc_ticks");
	assert_true(f[0].tsc_hz > 1e8);
	assert_string_equal(f[0].cases[0].group, "memset hot");
	assert_string_equal(f[0].cases[0].label, "libc 64");
	assert_string_equal(f[0].cases[5].label, "rep_stosb 4K");
	/* per-call value = value / calls */
	json_t *s0 = json_array_get(
	    json_object_get(
	        json_array_get(json_object_get(pb_results_file_json(&f[0]), "cases"), 0),
	        "samples"),
	    0);
	assert_close(
	    f[0].cases[0].v[0],
	    json_number_value(json_array_get(s0, 0)) / json_number_value(json_array_get(s0, 1)), 0);
	assert_string_equal(f[1].cases[0].group, "syscall");
	assert_string_equal(f[1].cases[0].label, "null cpu 1");
	assert_string_equal(f[2].cases[0].group, "xsave");
	assert_string_equal(f[2].cases[0].label, "fxsave64/fxrstor64 clean");
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);
}

static void test_bad_input(void **state)
{
	(void)state;
	load_fails("truncated.json", "invalid JSON at line ");
	load_fails("truncated.json", "(truncated file?)");
	load_fails("malformed.json", "invalid JSON at line 4, column ");
	load_fails("wrong_schema.json",
	           "not a primbench result (schema 'primbench-compare', expected "
	           "'primbench-result')");
	load_fails("wrong_version.json",
	           "schema_version 3 is not supported (this primbench reads versions 1 to 2)");
	load_fails("not_object.json", "not a primbench result (the top level is not an object)");
	load_fails("bad_sample.json",
	           "cases[1] (memset hot: bytes 64): samples[2] is not a [value, calls] pair");
	load_fails("dup_key.json", "cases[3] (memset hot: libc 64): the same key as cases[0]");
	load_fails("negative.json",
	           "cases[1] (memset hot: bytes 64): samples[3] is -5: a time cannot be negative");
	load_fails("empty.json", "empty file");
	load_fails("no-such-file.json", "cannot read: No such file or directory");
	load_fails(".", "cannot read: Is a directory"); /* the directory itself */

	/* Documents in memory: each check of the layout. */
	static const struct {
		const char *text, *want;
	} bad[] = {
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"cases\": []}",
	     "x.json: no 'machine' object"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}}",
	     "x.json: no 'cases' array"},
	    {"{\"schema_version\": 1}", "x.json: not a primbench result (no 'schema' field)"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": \"1\"}",
	     "x.json: schema_version \"1\" is a string, not an integer (this primbench reads "
	     "versions 1 to 2)"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1.5}",
	     "x.json: schema_version 1.5 is a number, not an integer"},
	    {"{\"schema\": \"primbench-result\"}", "x.json: no 'schema_version' field"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}, "
	     "\"cases\": [{\"unit\": \"ns\"}]}",
	     "x.json: cases[0]: no 'key' object"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}, "
	     "\"cases\": [{\"key\": {\"suite\": \"syscall\", \"benchmark\": \"null\"}, "
	     "\"samples\": [[1, 1]]}]}",
	     "x.json: cases[0] (syscall: null): no 'unit'"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}, "
	     "\"cases\": [{\"key\": {\"suite\": \"syscall\", \"benchmark\": \"null\"}, "
	     "\"unit\": \"ns\", \"samples\": [[1, 0]]}]}",
	     "x.json: cases[0] (syscall: null): samples[0] has calls 0 (must be >= 1)"},
	    {"{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}, "
	     "\"cases\": [{\"key\": {\"suite\": \"syscall\"}, \"unit\": \"ns\", \"samples\": 5}]}",
	     "x.json: cases[0] (syscall: ): 'samples' is not an array"},
	    {"{\"a\": 1, \"a\": 2}", "x.json: invalid JSON at line 1, column "},
	    /* bytes of the file in a message are escaped: one line, no
	     * terminal escapes */
	    {"{\"schema\": \x1b[31mx}", "x.json: invalid JSON at line 1, column 12: invalid token "
	                                "near '\\x1b'"},
	    {"{\"schema\": \"a\\u001b[2Jb\\nc\"}",
	     "x.json: not a primbench result (schema 'a\\x1b[2Jb\\nc', expected"},
	    {"{\"schema\": ", "x.json: invalid JSON at line 1, column 11: "},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct pb_results_file f;
		assert_int_equal(
		    pb_results_load_text(bad[i].text, strlen(bad[i].text), "x.json", &f), -1);
		assert_contains(pb_error(), bad[i].want);
		pb_results_file_free(&f);
	}
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text("", 0, "x.json", &f), -1);
	assert_string_equal(pb_error(), "x.json: empty file");
	pb_results_file_free(&f);
}

static void test_matching_and_case_sets(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	load_ok("mem_a.json", &f[0]);
	load_ok("mem_b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nhw, 0);
	assert_int_equal(r.nsw, 0);
	/* libc and bytes at 64 and 4K in both; rep_stosb only in a, avx2 only in b */
	assert_int_equal(r.nrows, 4);
	const char *want[] = {"libc 64", "bytes 64", "libc 4K", "bytes 4K"};
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(r.rows[i].a->label, want[i]);
		assert_string_equal(r.rows[i].a->canon, r.rows[i].b->canon);
		assert_true(r.rows[i].b != r.rows[i].a);
		assert_string_equal(r.rows[i].unit, "tsc_ticks");
		assert_true(r.rows[i].ratio);
		assert_int_equal(r.rows[i].sa.n, 20);
	}
	assert_int_equal(r.nonly_a, 2);
	assert_int_equal(r.nonly_b, 2);
	assert_string_equal(r.only_a[0]->label, "rep_stosb 64");
	assert_string_equal(r.only_b[1]->label, "avx2 4K");
	char *text = print_text(&r);
	assert_contains(text,
	                "\nonly in mem_a.json: 2 cases: memset hot: rep_stosb 64; memset hot: "
	                "rep_stosb 4K\n");
	assert_contains(text,
	                "\nonly in mem_b.json: 2 cases: memset hot: avx2 64; memset hot: avx2 "
	                "4K\n");
	assert_contains(text, "memset hot             old ticks      new ticks      delta 95% "
	                      "CI              p\n");
	assert_null(strstr(text, "differs:"));
	free(text);

	json_t *j = pb_compare_json(&r);
	assert_int_equal(json_array_size(json_object_get(j, "cases")), 4);
	assert_int_equal(json_array_size(json_object_get(j, "only_in_old")), 2);
	json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
	assert_string_equal(json_string_value(json_object_get(c0, "name")), "memset hot: libc 64");
	assert_true(json_is_boolean(json_object_get(c0, "significant")));
	json_decref(j);
	pb_compare_result_free(&r);

	/* A file with itself: every case matches, nothing differs. */
	assert_int_equal(pb_compare_run(&f[0], &f[0], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 6);
	assert_int_equal(r.nonly_a + r.nonly_b, 0);
	for (size_t i = 0; i < r.nrows; i++) {
		assert_false(r.rows[i].significant);
		assert_close(r.rows[i].shift.estimate, 1, 1e-12);
	}
	assert_close(r.gm[0].ratio, 1, 1e-12);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* A change of infinite percent (an interval bound over a median of
 * 6e-324, the smallest double) prints as "+inf": fmt_pct converted
 * floor(log10(inf)) to int, undefined behaviour that printed
 * "+1e-2147483647" (found by the results fuzz target,
 * tests/fuzz/regress/results/pct-infinite). */
static void test_infinite_percent(void **state)
{
	(void)state;
	static const char text[] =
	    "{\"schema\":\"primbench-result\",\"schema_version\":1,\"machine\":{},\"cases\":"
	    "[{\"key\":{},\"unit\":\"s\",\"samples\":[[1,2],[4,2],[6e-324,1],[4,1]]}]}";
	struct pb_results_file f[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(
		    pb_results_load_text(text, strlen(text), i ? "b.json" : "a.json", &f[i]), 0);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	char *out = print_text(&r);
	assert_non_null(strstr(out, "+inf]"));
	assert_null(strstr(out, "e-2147483"));
	free(out);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

static void test_hardware_refused(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	load_ok("mem_a.json", &f[0]);
	load_ok("other_hw.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), -1);
	assert_contains(pb_error(), "other_hw.json: different hardware from ");
	assert_contains(pb_error(),
	                "mem_a.json: cpu.model 167 vs 143, cpu.online_cpus 2 vs 4; use --force");
	pb_compare_result_free(&r);
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, true, &r), 0);
	assert_int_equal(r.nhw, 2);
	assert_string_equal(r.hw[0].field, "cpu.model");
	assert_string_equal(r.hw[0].a, "167");
	assert_string_equal(r.hw[0].b, "143");
	assert_int_equal(r.nsw, 0); /* model and CPU count are hardware only */
	assert_int_equal(r.nrows, 4);
	char *text = print_text(&r);
	assert_contains(text, "differs: cpu.model 167 -> 143 (hardware; --force)\n");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

static void test_software_differs(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	load_ok("mem_a.json", &f[0]);
	load_ok("sw_diff.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	const char *fields[] = {"kernel", "kernel_version", "mitigations.cmdline",
	                        "mitigations.vulnerabilities.retbleed", "build.primbench_version"};
	assert_int_equal(r.nsw, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(r.sw[i].field, fields[i]);
	assert_string_equal(r.sw[3].a, "Vulnerable");
	assert_string_equal(r.sw[3].b, "Mitigation: IBRS");
	assert_int_equal(r.nrows, 4);
	char *text = print_text(&r);
	assert_contains(text, "differs: kernel 6.18.44-fc-v769 -> 6.1.0-20-amd64\n");
	/* a long value wraps under the first */
	assert_contains(text, "differs: kernel_version #1 SMP PREEMPT_DYNAMIC @0 -> #1 SMP "
	                      "PREEMPT_DYNAMIC\n         Debian 6.1.85-1 (2024-04-11)\n");
	assert_contains(text, "differs: build.primbench_version 0536119-dirty -> "
	                      "v0.2-3-gabcdef0\n");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* Usable features as sets; vulnerabilities entry by entry. */
	json_t *ma = json_pack("{s:{s:[s,s,s]}, s:{s:{s:s, s:s}}}", "features", "usable", "sse2",
	                       "avx2", "avx512f", "mitigations", "vulnerabilities", "mds",
	                       "Not affected", "l1tf", "Vulnerable");
	json_t *mb = json_pack("{s:{s:[s,s,s]}, s:{s:{s:s, s:s}}}", "features", "usable", "avx2",
	                       "sse2", "amx", "mitigations", "vulnerabilities", "mds",
	                       "Not affected", "srso", "Vulnerable");
	assert_non_null(ma);
	assert_non_null(mb);
	struct pb_compare_diff *d;
	int n = pb_compare_software_diffs(ma, mb, &d);
	assert_int_equal(n, 3);
	assert_string_equal(d[0].field, "mitigations.vulnerabilities.l1tf");
	assert_string_equal(d[0].b, "(missing)");
	assert_string_equal(d[1].field, "mitigations.vulnerabilities.srso");
	assert_string_equal(d[2].field, "features.usable (not in both)");
	assert_string_equal(d[2].a, "avx512f");
	assert_string_equal(d[2].b, "amx");
	pb_compare_diffs_free(d, (size_t)n);
	/* the same set in another order is no difference */
	json_array_remove(json_object_get(json_object_get(mb, "features"), "usable"), 2);
	json_array_remove(json_object_get(json_object_get(ma, "features"), "usable"), 2);
	json_object_set(mb, "mitigations", json_object_get(ma, "mitigations"));
	assert_int_equal(pb_compare_software_diffs(ma, mb, &d), 0);
	pb_compare_diffs_free(d, 0);
	/* the preemption model and reserved huge pages are software settings */
	json_object_set_new(ma, "preemption",
	                    json_pack("{s:s, s:b}", "model", "none", "dynamic", 1));
	json_object_set_new(mb, "preemption",
	                    json_pack("{s:s, s:b}", "model", "full", "dynamic", 1));
	json_object_set_new(ma, "hugepages", json_pack("{s:{s:i}}", "2048kB", "reserved", 0));
	json_object_set_new(mb, "hugepages", json_pack("{s:{s:i}}", "2048kB", "reserved", 512));
	assert_int_equal(pb_compare_software_diffs(ma, mb, &d), 2);
	assert_string_equal(d[0].field, "preemption.model");
	assert_string_equal(d[0].a, "none");
	assert_string_equal(d[0].b, "full");
	assert_string_equal(d[1].field, "hugepages.2048kB.reserved");
	assert_string_equal(d[1].b, "512");
	pb_compare_diffs_free(d, 2);
	json_decref(ma);
	json_decref(mb);
}

/* The '~' rule and the figures of a row on fixed data. */
static void test_tilde_rule(void **state)
{
	(void)state;
	json_t *da = doc_new(), *db = doc_new();
	double *a = spread(100, 0.001, 21), *faster = spread(90, 0.001, 21);
	add_case(da, mem_key("faster", 64), "tsc_ticks", a, 21);
	add_case(db, mem_key("faster", 64), "tsc_ticks", faster, 21);
	add_case(da, mem_key("same", 64), "tsc_ticks", a, 21);
	add_case(db, mem_key("same", 64), "tsc_ticks", a, 21);
	/* 3 against 3: no 95% interval exists (the best covers 90%) */
	const double few_a[] = {10, 11, 12}, few_b[] = {20, 22, 24};
	add_case(da, mem_key("few", 64), "tsc_ticks", few_a, 3);
	add_case(db, mem_key("few", 64), "tsc_ticks", few_b, 3);
	/* values of 0 (a batch under the timer's resolution): the shift, in %
	 * of the old median */
	const double za[] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	const double zb[] = {9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
	add_case(da, mem_key("zero", 0), "tsc_ticks", za, 11);
	add_case(db, mem_key("zero", 0), "tsc_ticks", zb, 11);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 4);

	/* one run a side (no replicates): the samples' figures, no verdict */
	const struct pb_compare_row *x = &r.rows[0];
	assert_true(x->ratio);
	assert_true(x->one_run);
	assert_false(x->run_level);
	assert_false(x->significant);
	assert_close(x->sa.median, 100, 1e-9);
	assert_close(x->sb.median, 90, 1e-9);
	assert_close(x->pct, -10, 0.05); /* HL ratio of the two spreads ~ 0.9 */
	assert_true(x->pct_lo < -10 + 0.1 && x->pct_hi > -10 - 0.1 && x->pct_hi < 0);
	assert_true(x->u.p < 0.001);

	x = &r.rows[1];
	assert_false(x->significant);
	assert_close(x->shift.estimate, 1, 1e-12);
	assert_true(x->pct_lo < 0 && x->pct_hi > 0);
	assert_true(x->u.p > 0.9);

	x = &r.rows[2];
	assert_false(x->shift.ci_valid);
	assert_false(x->significant); /* doubled, but 3 samples cannot show it */
	assert_close(x->pct, 100, 1e-9);
	assert_true(isnan(x->pct_lo));
	assert_false(x->sa.ci_valid);

	x = &r.rows[3];
	assert_false(x->ratio);
	assert_true(x->one_run);
	assert_false(x->significant);
	assert_close(x->shift.estimate, 10, 1e-9);
	assert_close(x->pct, 100 * 10.0 / 4, 1e-9); /* old median 4 */

	char *text = print_text(&r);
	/* old/new median +- CI half-width %, delta, CI, p */
	assert_contains(text, "\nfaster 64                100 +-0.5%    90.0 +-0.5% -10.0%? "
	                      "[-10.4, -9.6]   0.000\n");
	assert_contains(text, "\nsame 64                  100 +-0.5%     100 +-0.5%  +0.0%? "
	                      "[-0.4, +0.4]    1.000\n");
	assert_contains(text, "\nfew 64                  11.0 +-?       22.0 +-?     +100%? "
	                      "-               0.100\n");
	assert_contains(text, "\nzero 0                  4.00 +->99%    14.0 +-29%   +250%? "
	                      "[+175, +325]    0.000\n");
	for (char *c = text; *c; c++) /* the legend is wrapped */
		if (*c == '\n')
			*c = ' ';
	assert_contains(text, "=: equivalent within +-1% (the interval lies inside it); ~: cannot "
	                      "tell (the interval includes 0 or p >= 0.05, or the delta lies "
	                      "inside the margin and the interval beyond it)");
	free(text);
	pb_compare_result_free(&r);

	/* At 99.9% the level is in the header. */
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.999, false, &r), 0);
	assert_true(r.rows[0].one_run);
	text = print_text(&r);
	assert_contains(text, "delta 99.9% CI");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
	free(a);
	free(faster);
}

static void test_geomean(void **state)
{
	(void)state;
	json_t *da = doc_new(), *db = doc_new();
	double *a1 = spread(100, 0.001, 21), *b1 = spread(200, 0.001, 21);
	double *a2 = spread(400, 0.001, 21), *b2 = spread(200, 0.001, 21);
	double *a3 = spread(50, 0.001, 21);
	add_case(da, mem_key("x", 64), "tsc_ticks", a1, 21);
	add_case(db, mem_key("x", 64), "tsc_ticks", b1, 21);
	add_case(da, mem_key("y", 64), "tsc_ticks", a2, 21);
	add_case(db, mem_key("y", 64), "tsc_ticks", b2, 21);
	add_case(da, mem_key("only_a", 64), "tsc_ticks", a3, 21); /* not in the mean */
	/* a median of 0 (size 0, under the timer's resolution): left out of
	 * the mean, and said so by name */
	const double zeros[] = {0, 0, 0, 0, 0, 1, 2};
	add_case(da, mem_key("z", 0), "tsc_ticks", zeros, 7);
	add_case(db, mem_key("z", 0), "tsc_ticks", zeros, 7);
	/* another unit: its own mean */
	json_t *k = json_pack("{s:s, s:[s], s:s}", "suite", "cmd", "argv", "true", "side", "A");
	add_case(da, k, "ns", a3, 21);
	add_case(db, json_deep_copy(k), "ns", b1, 21);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.ngm, 2);
	assert_string_equal(r.gm[0].unit, "tsc_ticks");
	assert_int_equal(r.gm[0].n, 2);
	assert_close(r.gm[0].a, 200, 1e-9); /* sqrt(100 * 400) */
	assert_close(r.gm[0].b, 200, 1e-9);
	assert_close(r.gm[0].ratio, 1, 1e-12); /* 2 x 0.5 */
	assert_string_equal(r.gm[1].unit, "ns");
	assert_int_equal(r.gm[1].n, 1);
	assert_close(r.gm[1].ratio, 4, 1e-9);
	char *text = print_text(&r);
	assert_contains(text, "\ncmd A                    old ns         new ns       delta");
	assert_contains(text, "\ntrue                    50.0 +-0.5%     200 +-0.5%   +300% "
	                      "[+298, +302]    0.000\n");
	assert_contains(text, "\ngeomean                   old            new         delta "
	                      "cases\nticks                    200            200          "
	                      "+0.0% 2\nns                      50.0            200          "
	                      "+300% 1\n");
	for (char *c = text; *c; c++) /* notes are wrapped */
		if (*c == '\n')
			*c = ' ';
	assert_contains(text, "geomean: a median of 0 (no logarithm) leaves out 1 case: "
	                      "memset hot: z 0");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
	free(a1);
	free(b1);
	free(a2);
	free(b2);
	free(a3);
}

static void test_units(void **state)
{
	(void)state;
	/* The fixture in ns against ticks: converted with timer.hz. */
	struct pb_results_file f[3];
	load_ok("mem_b.json", &f[0]);
	load_ok("ns.json", &f[1]);
	load_ok("no_samples.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 6);
	for (size_t i = 0; i < r.nrows; i++) {
		assert_string_equal(r.rows[i].unit, "ns");
		assert_close(r.rows[i].shift.estimate, 1, 1e-9); /* the same samples */
		assert_close(
		    r.rows[i].sa.median * f[0].tsc_hz / 1e9,
		    json_number_value(json_object_get(
		        json_object_get(
		            json_array_get(json_object_get(pb_results_file_json(&f[0]), "cases"),
		                           r.rows[i].a->index),
		            "per_call"),
		        "median")),
		    1e-6);
	}
	assert_int_equal(r.nnotes, 2); /* and the one-run note */
	assert_contains(r.notes[0], "6 cases compared in ns: tsc_ticks converted");
	assert_contains(r.notes[1], "6 cases with one run on a side");
	pb_compare_result_free(&r);

	/* A case without samples is skipped with a note. */
	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 5);
	assert_int_equal(r.nonly_a, 1);
	assert_int_equal(r.nnotes, 2); /* and the one-run note */
	assert_contains(r.notes[0], "no_samples.json: skipped (no samples): 1 case: memset hot: "
	                            "libc 64");
	pb_compare_result_free(&r);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);

	/* Units that cannot be converted; ticks without timer.hz. */
	const double v[] = {1, 2, 3, 4, 5, 6};
	json_t *da = doc_new(), *db = doc_new();
	add_case(da, mem_key("k", 64), "tsc_ticks", v, 6);
	add_case(db, mem_key("k", 64), "bytes", v, 6);
	struct pb_results_file g[2];
	load_doc(da, "a.json", &g[0]);
	load_doc(db, "b.json", &g[1]);
	assert_int_equal(pb_results_name(g, 2), 0);
	assert_int_equal(pb_compare_run(&g[0], &g[1], 0.95, false, &r), -1);
	assert_string_equal(pb_error(), "b.json: case 'memset hot: k 64' is in 'bytes' there and "
	                                "in 'tsc_ticks' in a.json: cannot compare");
	pb_compare_result_free(&r);
	pb_results_file_free(&g[0]);
	pb_results_file_free(&g[1]);

	da = doc_new();
	db = doc_new();
	json_object_del(json_object_get(json_object_get(da, "machine"), "timer"), "hz");
	add_case(da, mem_key("k", 64), "tsc_ticks", v, 6);
	add_case(db, mem_key("k", 64), "ns", v, 6);
	load_doc(da, "a.json", &g[0]);
	load_doc(db, "b.json", &g[1]);
	assert_int_equal(pb_results_name(g, 2), 0);
	assert_int_equal(pb_compare_run(&g[0], &g[1], 0.95, false, &r), -1);
	assert_contains(pb_error(), "a.json: case 'memset hot: k 64' needs tsc_ticks converted");
	pb_compare_result_free(&r);
	pb_results_file_free(&g[0]);
	pb_results_file_free(&g[1]);

	/* Ticks of TSCs 10% apart: both converted to ns. */
	da = doc_new();
	db = doc_new();
	json_object_set_new(json_object_get(json_object_get(db, "machine"), "timer"), "hz",
	                    json_real(2.2e9));
	add_case(da, mem_key("k", 64), "tsc_ticks", v, 6);
	add_case(db, mem_key("k", 64), "tsc_ticks", v, 6);
	load_doc(da, "a.json", &g[0]);
	load_doc(db, "b.json", &g[1]);
	assert_int_equal(pb_results_name(g, 2), 0);
	assert_int_equal(pb_compare_run(&g[0], &g[1], 0.95, false, &r), 0);
	assert_string_equal(r.rows[0].unit, "ns");
	assert_close(r.rows[0].sa.median, 3.5 / 2.0, 1e-12);
	assert_close(r.rows[0].sb.median, 3.5 / 2.2, 1e-12);
	pb_compare_result_free(&r);
	pb_results_file_free(&g[0]);
	pb_results_file_free(&g[1]);
}

static void test_thinning(void **state)
{
	(void)state;
	size_t n = 2 * PB_COMPARE_MAX_SAMPLES + 1;
	double *a = spread(100, 1e-5, n), *b = spread(101, 1e-5, n);
	json_t *da = doc_new(), *db = doc_new();
	add_case(da, mem_key("k", 64), "tsc_ticks", a, n);
	add_case(db, mem_key("k", 64), "tsc_ticks", b, n);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_true(r.rows[0].thinned);
	assert_int_equal(r.rows[0].sa.n, n); /* the medians use every sample */
	assert_close(r.rows[0].pct, 1, 0.01);
	assert_true(r.rows[0].one_run); /* no replicates: no verdict */
	assert_int_equal(r.nnotes, 2);
	assert_contains(r.notes[0], "one run on a side");
	assert_contains(r.notes[1], "2000 evenly spaced order statistics");
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
	free(a);
	free(b);
}

static void test_names(void **state)
{
	(void)state;
	static const struct {
		const char *key, *group, *label;
	} cases[] = {
	    {"{\"suite\":\"mem\",\"op\":\"memcpy\",\"kernel\":\"avx2\",\"size_bytes\":4096,"
	     "\"dst_offset_bytes\":1,\"src_offset_bytes\":2048,\"distance_bytes\":null,"
	     "\"extent_bytes\":0,\"cache_state\":\"dram\",\"page_bytes\":4096,"
	     "\"fill_value\":null,\"then_read\":true}",
	     "memcpy dram", "avx2 4K dst+1 +read"},
	    {"{\"suite\":\"mem\",\"op\":\"memcpy\",\"kernel\":\"libc\",\"size_bytes\":4096,"
	     "\"dst_offset_bytes\":0,\"src_offset_bytes\":null,\"distance_bytes\":-1048576,"
	     "\"extent_bytes\":2147483648,\"cache_state\":\"hot\",\"page_bytes\":4096,"
	     "\"fill_value\":null,\"then_read\":false}",
	     "memcpy hot", "libc 4K dist-1048576 ext=2G"},
	    {"{\"suite\":\"mem\",\"op\":\"memset\",\"kernel\":\"rep_stosb\",\"size_bytes\":4096,"
	     "\"dst_offset_bytes\":0,\"src_offset_bytes\":null,\"distance_bytes\":null,"
	     "\"extent_bytes\":0,\"cache_state\":\"fault-thp\",\"page_bytes\":2097152,"
	     "\"fill_value\":90,\"then_read\":false}",
	     "memset fault-thp", "rep_stosb 4K v=0x5a"},
	    /* --pages (issue 22): fault with 2M pages, hot with 1G pages */
	    {"{\"suite\":\"mem\",\"op\":\"memset\",\"kernel\":\"rep_stosb\",\"size_bytes\":4096,"
	     "\"dst_offset_bytes\":0,\"src_offset_bytes\":null,\"distance_bytes\":null,"
	     "\"extent_bytes\":0,\"cache_state\":\"fault\",\"page_bytes\":2097152,"
	     "\"fill_value\":0,\"then_read\":false}",
	     "memset fault", "rep_stosb 4K page=2M"},
	    {"{\"suite\":\"mem\",\"op\":\"memset\",\"kernel\":\"libc\",\"size_bytes\":65536,"
	     "\"dst_offset_bytes\":0,\"src_offset_bytes\":null,\"distance_bytes\":null,"
	     "\"extent_bytes\":0,\"cache_state\":\"hot\",\"page_bytes\":1073741824,"
	     "\"fill_value\":0,\"then_read\":false}",
	     "memset hot", "libc 64K page=1G"},
	    {"{\"suite\":\"syscall\",\"benchmark\":\"fault\",\"placement\":\"cpu 0\","
	     "\"page_bytes\":2097152}",
	     "syscall", "fault 2M cpu 0"},
	    {"{\"suite\":\"syscall\",\"benchmark\":\"pipe-rtt\",\"placement\":\"cpus 1,0\","
	     "\"page_bytes\":null}",
	     "syscall", "pipe-rtt cpus 1,0"},
	    {"{\"suite\":\"xsave\",\"instruction\":\"xsaveopt64/xrstor64\",\"upper_state\":"
	     "\"dirty\"}",
	     "xsave", "xsaveopt64/xrstor64 dirty"},
	    {"{\"suite\":\"cmd\",\"argv\":[\"gzip\",\"-9\",\"-c\",\"big.tar\"],\"shell\":false,"
	     "\"cwd\":\"/tmp\",\"env\":[],\"side\":\"B\"}",
	     "cmd B", "gzip -9 -c big.tar"},
	    {"{\"suite\":\"cmd\",\"argv\":[\"/bin/sh\",\"-c\",\"make -j8 all && make check && "
	     "make install DESTDIR=/tmp/x\"],\"shell\":true,\"side\":\"A\"}",
	     "cmd A", "sh: make -j8 all && make check && mak..."},
	    {"{\"suite\":\"future\",\"b\":2,\"a\":\"x\"}", "future", "a=x b=2"},
	    {"{\"op\":\"memset\"}", "?", "op=memset"},
	    {"{\"suite\":\"cmd\",\"argv\":[\"printf\",\"a\\nb\\u001b[0m\"],\"side\":\"A\"}",
	     "cmd A", "printf a\\nb\\x1b[0m"},
	    {"{\"suite\":\"x\\ty\",\"k\":\"\\r\"}", "x\\ty", "k=\\r"},
	    {"{\"suite\":\"mem\",\"op\":\"memset\"}", "mem", "op=memset"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		json_t *k = json_loads(cases[i].key, 0, NULL);
		assert_non_null(k);
		char *g, *l;
		pb_results_key_name(k, &g, &l);
		assert_string_equal(g, cases[i].group);
		assert_string_equal(l, cases[i].label);
		free(g);
		free(l);
		json_decref(k);
	}

	/* Distinct keys that would share a name show what tells them apart,
	 * the same in every file: here the working directory. */
	const double v[] = {1, 2, 3, 4, 5, 6};
	json_t *da = doc_new(), *db = doc_new();
	json_t *k1 = json_pack("{s:s, s:[s], s:s, s:s}", "suite", "cmd", "argv", "make", "side",
	                       "A", "cwd", "/src/one");
	json_t *k2 = json_pack("{s:s, s:[s], s:s, s:s}", "suite", "cmd", "argv", "make", "side",
	                       "A", "cwd", "/src/two");
	add_case(da, json_deep_copy(k1), "ns", v, 6);
	add_case(da, json_deep_copy(k2), "ns", v, 6);
	add_case(db, k2, "ns", v, 6);
	add_case(db, k1, "ns", v, 6);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	assert_string_equal(f[0].cases[0].label, "make (in /src/one)");
	assert_string_equal(f[0].cases[1].label, "make (in /src/two)");
	assert_string_equal(f[1].cases[0].label, "make (in /src/two)");
	assert_string_equal(f[1].cases[1].label, "make (in /src/one)");
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 2);
	assert_ptr_equal(r.rows[0].b, &f[1].cases[1]);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* A field the name leaves out: numbered in order of first appearance,
	 * the first file's first (whatever the keys' canonical order). */
	da = doc_new();
	db = doc_new();
	json_t *m1 = mem_key("libc", 64), *m2 = mem_key("libc", 64);
	json_object_set_new(m1, "zz_extra", json_integer(2)); /* sorts after m2 */
	json_object_set_new(m2, "zz_extra", json_integer(1));
	add_case(da, m1, "tsc_ticks", v, 6);
	add_case(db, m2, "tsc_ticks", v, 6);
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	assert_string_equal(f[0].cases[0].label, "libc 64 #1");
	assert_string_equal(f[1].cases[0].label, "libc 64 #2");
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 0);
	/* and a note on the pair that looks alike */
	assert_int_equal(r.nnotes, 1);
	assert_string_equal(r.notes[0], "not compared: memset hot: libc 64 #1 (old) and memset "
	                                "hot: libc 64 #2 (new), whose keys differ in zz_extra; "
	                                "cases match on the whole key");
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* cmd results of `cmd --vs-env`, before and after: the B sides differ in
 * their env, long argvs only past the 40 characters a label shows. */
static void test_cmd_names(void **state)
{
	(void)state;
	const double v[] = {1e6, 1.1e6, 1.2e6, 1.3e6, 1.4e6, 1.5e6};
	static const char *const long_argv = "./my-program --input /data/big-file.txt "
	                                     "--threads 4 --mode";
	json_t *da = doc_new(), *db = doc_new();
	/* before: cmd --vs-env GLIBC_TUNABLES=...=256 ./my-program ... --mode fast */
	json_t *a = json_pack("{s:s, s:[s], s:b, s:n, s:[], s:s}", "suite", "cmd", "argv",
	                      "./bench", "shell", 0, "cwd", "env", "side", "A");
	json_t *b1 = json_pack("{s:s, s:[s], s:b, s:n, s:[s], s:s}", "suite", "cmd", "argv",
	                       "./bench", "shell", 0, "cwd", "env",
	                       "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=256", "side", "B");
	json_t *b2 = json_pack(
	    "{s:s, s:[s], s:b, s:n, s:[s], s:s}", "suite", "cmd", "argv", "./bench", "shell", 0,
	    "cwd", "env", "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=2048", "side", "B");
	char *wa = NULL, *wb = NULL;
	assert_true(asprintf(&wa, "%s fast", long_argv) > 0);
	assert_true(asprintf(&wb, "%s slow", long_argv) > 0);
	json_t *l1 = json_pack("{s:s, s:[s,s,s,s,s,s,s], s:s}", "suite", "cmd", "argv",
	                       "./my-program", "--input", "/data/big-file.txt", "--threads", "4",
	                       "--mode", "fast", "side", "A");
	json_t *l2 = json_pack("{s:s, s:[s,s,s,s,s,s,s], s:s}", "suite", "cmd", "argv",
	                       "./my-program", "--input", "/data/big-file.txt", "--threads", "4",
	                       "--mode", "slow", "side", "A");
	add_case(da, json_deep_copy(a), "ns", v, 6);
	add_case(da, b1, "ns", v, 6);
	add_case(da, l1, "ns", v, 6);
	add_case(db, a, "ns", v, 6);
	add_case(db, b2, "ns", v, 6);
	add_case(db, l2, "ns", v, 6);
	struct pb_results_file f[2];
	load_doc(da, "before.json", &f[0]);
	load_doc(db, "after.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	for (size_t i = 0; i < 3; i++)
		print_message("%s: %s | %s: %s\n", f[0].cases[i].group, f[0].cases[i].label,
		              f[1].cases[i].group, f[1].cases[i].label);
	assert_string_equal(f[0].cases[0].label, "./bench");
	assert_string_equal(f[1].cases[0].label, "./bench");
	assert_string_equal(f[0].cases[1].label, "...x86_rep_stosb_threshold=256 ./bench");
	assert_string_equal(f[1].cases[1].label, "...x86_rep_stosb_threshold=2048 ./bench");
	assert_string_equal(f[0].cases[2].label, "./my-program ... --threads 4 --mode fast");
	assert_string_equal(f[1].cases[2].label, "./my-program ... --threads 4 --mode slow");
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < f[i].ncases; j++)
			assert_true(strlen(f[i].cases[j].label) <= 40);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 1);
	char *text = print_text(&r);
	assert_contains(text, "only in before.json: 2 cases: cmd B: "
	                      "...x86_rep_stosb_threshold=256 ./bench;");
	squash(text); /* notes and the legend are wrapped */
	assert_contains(text, "not compared: cmd B: ...x86_rep_stosb_threshold=256 ./bench "
	                      "(old) and cmd B: ...x86_rep_stosb_threshold=2048 ./bench (new), "
	                      "whose keys differ in env;");
	assert_contains(text, "whose keys differ in argv;");
	/* only ns of whole commands: no ticks in the legend; real time only */
	assert_null(strstr(text, "TSC"));
	assert_contains(text, "cmd: the real (wall-clock) time of a run, not user or sys");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
	free(wa);
	free(wb);
}

/* Long names get a line of their own; every line fits in 80 columns. */
static void test_width(void **state)
{
	(void)state;
	const double v[] = {1e9, 1.1e9, 1.2e9, 1.3e9, 1.4e9, 1.5e9};
	const double w[] = {1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3};
	json_t *da = doc_new(), *db = doc_new();
	json_t *k =
	    json_pack("{s:s, s:[s,s,s,s], s:s}", "suite", "cmd", "argv", "/usr/bin/python3", "-c",
	              "import sys; sys.exit(0)", "--a-very-long-option-name", "side", "A");
	add_case(da, json_deep_copy(k), "ns", v, 6);
	add_case(db, k, "ns", w, 6);
	json_t *m = json_loads("{\"suite\":\"mem\",\"op\":\"memcpy\",\"kernel\":\"avx512_nt\","
	                       "\"size_bytes\":33554432,\"dst_offset_bytes\":63,"
	                       "\"src_offset_bytes\":4095,\"distance_bytes\":null,"
	                       "\"extent_bytes\":2147483648,\"cache_state\":\"fault-thp\","
	                       "\"page_bytes\":2097152,\"fill_value\":null,\"then_read\":true}",
	                       0, NULL);
	add_case(da, json_deep_copy(m), "tsc_ticks", w, 6);
	add_case(db, m, "tsc_ticks", v, 6);
	json_t *g = json_pack("{s:s, s:s}", "suite", "a-suite-with-a-name-far-too-long", "x", "y");
	add_case(da, json_deep_copy(g), "ns", v, 6);
	add_case(db, g, "ns", v, 6);
	struct pb_results_file f[2];
	load_doc(da, "a-result-file-in-a-directory-with-a-long-name/and-a-long-file-name.json",
	         &f[0]);
	json_object_set_new(json_object_get(db, "machine"), "kernel",
	                    json_string("6.1.0-20-amd64-with-a-local-version-string-that-is-"
	                                "longer-than-a-line-of-eighty-columns-by-itself"));
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	char *text = print_text(&r);
	assert_contains(text, "\ndiffers: kernel 6.1.0-18-amd64 ->\n         6.1.0-20-amd64-with");
	assert_contains(text, "\n/usr/bin/python3 -c import sys; sys.e...\n                     "
	                      " 1.25e9 +-20%  3.50e-3 +-71%    -100% [-100, -100]    0.002\n");
	assert_contains(text, "\nmemcpy fault-thp       old ticks      new ticks      delta"
	                      " 95% CI              p\navx512_nt 32M dst+63 src+4095 ext=2G "
	                      "+read\n                     3.50e-3 +-71%   1.25e9 +-20%  +4e13%? "
	                      "[+2e13, +1e14]  0.002\n");
	/* ns of whole commands print in the unit their size suits (here s). */
	assert_contains(text, "\na-suite-with-a-name-far-too-long\n                         "
	                      "old s          new s        delta");
	assert_contains(text, "\nticks                3.50e-3         1.25e9         +4e13% 1\n");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* A file in the synthetic documents' machine with one mem case per
 * (kernel, values) pair. */
static json_t *mem_doc(const char *kernel, const double *v, size_t n)
{
	json_t *d = doc_new();
	add_case(d, mem_key(kernel, 4096), "tsc_ticks", v, n);
	return d;
}

/* A row whose medians' ratio lies outside the delta's interval (bimodal
 * samples: the median moves from one mode to the other, most pairwise
 * ratios barely move) is marked '*', with a legend line; others are not. */
static void test_medians_outside(void **state)
{
	(void)state;
	/* old: 11 at 100, 10 at 110 (median 100); new: 10 at 100.5, 11 at
	 * 110.5 (median 110.5, +10.5%); most pairs move by about +0.5%. */
	double a[21], b[21];
	for (size_t i = 0; i < 21; i++) {
		a[i] = i < 11 ? 100 + 0.01 * (double)i : 110 + 0.01 * (double)i;
		b[i] = i < 10 ? 100.5 + 0.01 * (double)i : 110.5 + 0.01 * (double)i;
	}
	struct pb_results_file f[2];
	load_doc(mem_doc("bimodal", a, 21), "a.json", &f[0]);
	load_doc(mem_doc("bimodal", b, 21), "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	const struct pb_compare_row *row = &r.rows[0];
	print_message("medians %+.2f%%, delta %+.2f%% [%+.2f, %+.2f]\n", row->pct_medians, row->pct,
	              row->pct_lo, row->pct_hi);
	assert_true(row->pct_medians > row->pct_hi);
	assert_close(row->pct_medians, 100 * (row->sb.median / row->sa.median - 1), 1e-12);
	char *text = print_text(&r);
	assert_contains(text, "\nbimodal 4K               100 +-5%       111 +-5%    +0.5%? "
	                      "[+0.4, +0.5]*   0.002\n");
	squash(text);
	assert_contains(text, "*: the change of the medians as printed (new/old - 1 of the old "
	                      "and new columns) lies outside the delta's interval.");
	/* only ticks: no word on commands in the legend */
	assert_contains(text, "(ticks: TSC ticks)");
	assert_null(strstr(text, "cmd:"));
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* Unimodal: the medians' change is inside; no mark, no legend line. */
	double *u = spread(100, 0.001, 21), *w = spread(110, 0.001, 21);
	load_doc(mem_doc("plain", u, 21), "a.json", &f[0]);
	load_doc(mem_doc("plain", w, 21), "b.json", &f[1]);
	free(u);
	free(w);
	assert_int_equal(pb_results_name(f, 2), 0);
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_true(r.rows[0].pct_medians >= r.rows[0].pct_lo);
	assert_true(r.rows[0].pct_medians <= r.rows[0].pct_hi);
	text = print_text(&r);
	assert_null(strstr(text, "]*"));
	assert_null(strstr(text, "*: the change"));
	free(text);
	pb_compare_result_free(&r);
	/* A file with itself: never. */
	assert_int_equal(pb_compare_run(&f[0], &f[0], 0.95, false, &r), 0);
	text = print_text(&r);
	assert_null(strstr(text, "]*"));
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* Judged on the figures as printed: medians 1.000 and 1.004 print as
	 * 1.00 and 1.00 (no change seen), against an interval of about
	 * [+0.3, +0.5]: marked, though the exact medians' change (+0.4%) is
	 * inside. */
	double c[11], d[11];
	for (size_t i = 0; i < 11; i++) {
		c[i] = 1.0 + 0.0001 * ((double)i - 5);
		d[i] = 1.004 + 0.0001 * ((double)i - 5);
	}
	load_doc(mem_doc("rounded", c, 11), "a.json", &f[0]);
	load_doc(mem_doc("rounded", d, 11), "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_true(r.rows[0].pct_medians >= r.rows[0].pct_lo);
	text = print_text(&r);
	assert_contains(text, "\nrounded 4K              1.00 +-0.0%    1.00 +-0.0%  +0.4%? "
	                      "[+0.4, +0.4]*   0.000\n");
	free(text);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* No case in both files: what each has, and why nothing matched. */
/* cmd cases with a profile (cmd --profile) in both files: the families'
 * shares old and new, in the text and the JSON; a case with a profile in
 * one file only prints nothing more. */
static json_t *profile_obj(double clear, double memset_share, bool hidden)
{
	json_t *fams = json_array();
	const double share[PB_PROF_NFAMILIES] = {clear, 0, memset_share, 0, 0, 0};
	for (int k = 0; k < PB_PROF_NFAMILIES; k++)
		json_array_append_new(
		    fams, json_pack("{s:s, s:s, s:o}", "name", pb_prof_families[k].name, "label",
		                    pb_prof_families[k].label, "share",
		                    hidden && pb_prof_families[k].kernel ? json_null()
		                                                         : json_real(share[k])));
	return json_pack("{s:s, s:i, s:o}", "event", "cpu-clock", "samples", 1000, "families",
	                 fams);
}

static void test_profiles(void **state)
{
	(void)state;
	const double v[] = {1e6, 1.1e6, 1.2e6, 1.3e6, 1.4e6, 1.5e6};
	json_t *da = doc_new(), *db = doc_new();
	json_t *k1 = json_pack("{s:s, s:[s], s:b, s:n, s:[], s:s}", "suite", "cmd", "argv",
	                       "./zero", "shell", 0, "cwd", "env", "side", "A");
	json_t *k2 = json_pack("{s:s, s:[s], s:b, s:n, s:[], s:s}", "suite", "cmd", "argv",
	                       "./other", "shell", 0, "cwd", "env", "side", "A");
	add_case(da, json_deep_copy(k1), "ns", v, 6);
	add_case(da, json_deep_copy(k2), "ns", v, 6);
	add_case(db, k1, "ns", v, 6);
	add_case(db, k2, "ns", v, 6);
	json_t *ca = json_object_get(da, "cases"), *cb = json_object_get(db, "cases");
	json_object_set_new(json_array_get(ca, 0), "profile", profile_obj(0.05, 0.074, false));
	json_object_set_new(json_array_get(cb, 0), "profile", profile_obj(0.034, 0, true));
	json_object_set_new(json_array_get(ca, 1), "profile", profile_obj(0.05, 0.074, false));
	struct pb_results_file f[2];
	load_doc(da, "pa.json", &f[0]);
	load_doc(db, "pb.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	char *text = print_text(&r);
	assert_contains(text, "\nprofile: each family's share of all samples");
	assert_contains(text, "\n  cmd A: ./zero\n");
	assert_null(strstr(text, "  cmd A: ./other\n")); /* one side only */
	squash(text);
	assert_contains(text, "family old new change kernel page clearing 5.0% - - "
	                      "kernel copying 0.0% - - libc memset 7.4% 0.0% -7.4 pt");
	assert_null(strstr(text, "primbench memset")); /* no samples on either side */
	free(text);
	json_t *j = pb_compare_json(&r);
	json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
	json_t *fams = json_object_get(json_object_get(c0, "profile"), "families");
	assert_int_equal(json_array_size(fams), PB_PROF_NFAMILIES);
	json_t *lm = json_array_get(fams, PB_PROF_LIBC_MEMSET);
	assert_string_equal(json_string_value(json_object_get(lm, "name")), "libc_memset");
	assert_true(fabs(json_number_value(json_object_get(lm, "change")) + 0.074) < 1e-12);
	assert_true(json_is_null(json_object_get(json_array_get(fams, 0), "new")));
	assert_null(json_object_get(json_array_get(json_object_get(j, "cases"), 1), "profile"));
	json_decref(j);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

static void test_nothing_in_both(void **state)
{
	(void)state;
	struct pb_results_file f[3];
	load_ok("mem_a.json", &f[0]);
	load_ok("sys_a.json", &f[1]);
	const double v[] = {1, 2, 3, 4, 5, 6};
	load_doc(mem_doc("other", v, 6), "other.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 0);
	char *text = print_text(&r);
	squash(text);
	assert_contains(text, "mem_a.json has 6 mem cases, ");
	assert_contains(text, "sys_a.json has 2 syscall cases; cases match only within a "
	                      "suite, on their whole key.");
	assert_null(strstr(text, "old, new: median")); /* no table, no legend */
	free(text);
	pb_compare_result_free(&r);
	/* the same suite, other keys */
	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, true, &r), 0);
	text = print_text(&r);
	squash(text);
	assert_contains(text, "mem_a.json has 6 mem cases, other.json has 1 mem case, but no "
	                      "key is in both");
	assert_contains(text, "only in other.json: 1 case: memset hot: other 4K");
	free(text);
	pb_compare_result_free(&r);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);
}

/* ---- the command line (the primbench binary next to this test) ---- */

static char bin[PATH_MAX];

/* Runs `primbench compare ARGS` in `dir`; returns the exit status and
 * stderr in err (free it). */
static int run_compare(const char *dir, const char *args, char **err)
{
	char *cmd, *errfile;
	assert_true(asprintf(&errfile, "%s/stderr", dir) > 0);
	assert_true(asprintf(&cmd, "cd '%s' && '%s' compare %s >/dev/null 2>'%s'", dir, bin, args,
	                     errfile) > 0);
	int rc = system(cmd);
	free(cmd);
	FILE *fp = fopen(errfile, "r");
	assert_non_null(fp);
	char *buf = calloc(1, 4096);
	assert_non_null(buf);
	size_t got = fread(buf, 1, 4095, fp);
	buf[got] = '\0';
	fclose(fp);
	unlink(errfile);
	free(errfile);
	*err = buf;
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* bin: the primbench next to this test; false when there is none. */
static bool find_bin(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* In a cross build's tests, the wrapper that runs primbench under the
	 * emulator (tests/CMakeLists.txt: PB_TEST_EMULATED, <build>/emulated). */
	snprintf(bin, sizeof bin, "%s/../%sprimbench", dirname(exe),
	         getenv("PB_TEST_EMULATED") ? "emulated/" : "");
	return access(bin, X_OK) == 0;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	rewind(fp);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

/* -o naming an input (itself, through a symbolic or a hard link) is
 * refused with one line and exit 2, the input untouched; a new file is
 * written. */
static void test_output_is_input(void **state)
{
	(void)state;
	if (!find_bin())
		skip();
	char dir[] = "/tmp/pb-compare-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cmd;
	assert_true(asprintf(&cmd,
	                     "cp '%s' '%s/aa.json' && cp '%s' '%s/b.json' && ln -s aa.json "
	                     "'%s/link.json' && ln '%s/aa.json' '%s/hard.json'",
	                     data("mem_a.json"), dir, data("mem_b.json"), dir, dir, dir, dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	char *before = slurp(data("mem_a.json"));
	static const char *const outs[] = {"aa.json", "./aa.json", "link.json", "hard.json",
	                                   "b.json"};
	for (size_t i = 0; i < sizeof outs / sizeof *outs; i++) {
		char *args, *err;
		assert_true(asprintf(&args, "aa.json b.json -o %s", outs[i]) > 0);
		int rc = run_compare(dir, args, &err);
		print_message("compare %s: %d: %s", args, rc, err);
		assert_int_equal(rc, 2);
		assert_contains(err, "primbench: compare: -o ");
		assert_contains(err, "would overwrite the input ");
		assert_non_null(strchr(err, '\n'));
		assert_true(strchr(err, '\n')[1] == '\0'); /* one line */
		free(args);
		free(err);
	}
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/aa.json", dir);
	char *after = slurp(path);
	assert_string_equal(after, before);
	free(after);
	free(before);
	char *err;
	assert_int_equal(run_compare(dir, "aa.json b.json -o cmp.json", &err), 0);
	free(err);
	snprintf(path, sizeof path, "%s/cmp.json", dir);
	assert_int_equal(access(path, R_OK), 0);
	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Runs `primbench compare ARGS` in `dir` (stderr: to dir/stderr);
 * returns the exit status and standard output in out (free it). */
static int run_compare_stdout(const char *dir, const char *args, char **out)
{
	char *cmd, *outfile;
	assert_true(asprintf(&outfile, "%s/stdout", dir) > 0);
	assert_true(asprintf(&cmd, "cd '%s' && '%s' compare %s >'%s' 2>stderr", dir, bin, args,
	                     outfile) > 0);
	int rc = system(cmd);
	free(cmd);
	*out = slurp(outfile);
	unlink(outfile);
	free(outfile);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The number of lines of s that start with `prefix`. */
static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0;
	for (const char *l = s; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] ? 1 : 0))
		n += strncmp(l, prefix, strlen(prefix)) == 0;
	return n;
}

/* compare -f: each format on standard output and nothing else, in both
 * modes (OLD NEW MORE..., and A.. -- B..); -f json is -o's document, and
 * with -o both get it; benchfmt and unknown formats are refused. */
static void test_format_cli(void **state)
{
	(void)state;
	if (!find_bin())
		skip();
	char dir[] = "/tmp/pb-compare-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cmd;
	assert_true(asprintf(&cmd, "cp mem_a.json mem_b.json sw_diff.json '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	char *out, *text;

	/* text: the default, as before */
	assert_int_equal(run_compare_stdout(dir, "mem_a.json mem_b.json", &text), 0);
	assert_int_equal(run_compare_stdout(dir, "-f text mem_a.json mem_b.json", &out), 0);
	assert_string_equal(out, text);
	assert_contains(text, "\nmemset hot             old ticks      new ticks ");
	free(out);
	free(text);

	/* json: the document, parsed; the cases' fields */
	assert_int_equal(run_compare_stdout(dir, "mem_a.json mem_b.json --format json", &out), 0);
	json_error_t err;
	json_t *doc = json_loads(out, 0, &err);
	if (!doc)
		fail_msg("-f json: %s at line %d:\n%s", err.text, err.line, out);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "primbench-compare");
	json_t *cmps = json_object_get(doc, "comparisons");
	assert_int_equal(json_array_size(cmps), 1);
	json_t *cases = json_object_get(json_array_get(cmps, 0), "cases");
	assert_int_equal(json_array_size(cases), 4);
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		assert_true(json_is_string(json_object_get(c, "name")));
		assert_true(json_is_string(json_object_get(c, "unit")));
		assert_true(json_is_number(json_object_get(json_object_get(c, "old"), "median")));
		assert_true(json_is_number(json_object_get(json_object_get(c, "new"), "median")));
		assert_true(json_is_number(json_object_get(json_object_get(c, "delta"), "pct")));
		assert_true(json_is_number(json_object_get(c, "p")));
		assert_true(json_is_string(json_object_get(c, "verdict")));
	}
	json_decref(doc);
	free(out);

	/* json and -o: the same document to both, and no "results:" line */
	assert_int_equal(run_compare_stdout(dir, "mem_a.json mem_b.json -f json -o cmp.json", &out),
	                 0);
	char path[PATH_MAX + 32];
	snprintf(path, sizeof path, "%s/cmp.json", dir);
	char *file = slurp(path);
	assert_string_equal(out, file);
	free(file);
	free(out);
	/* csv with -o: the file is written, standard output is the CSV alone */
	unlink(path);
	assert_int_equal(run_compare_stdout(dir, "-f csv -o cmp.json mem_a.json mem_b.json", &out),
	                 0);
	assert_int_equal(access(path, R_OK), 0);
	assert_null(strstr(out, "results:"));
	assert_int_equal(count_lines(out, ""), 5); /* header + 4 cases */
	free(out);
	/* -f text with -o: text keeps its "results:" line, as every
	 * subcommand's text does (README, primbench.1; issue 33, item 5) */
	unlink(path);
	assert_int_equal(run_compare_stdout(dir, "-f text -o cmp.json mem_a.json mem_b.json", &out),
	                 0);
	assert_contains(out, "\nresults: cmp.json\n");
	free(out);

	/* csv: one header, a row per case of each comparison */
	assert_int_equal(run_compare_stdout(dir, "-f csv mem_a.json mem_b.json sw_diff.json", &out),
	                 0);
	assert_int_equal(count_lines(out, "old_file,new_file,group,case,"), 1);
	assert_int_equal(count_lines(out, "mem_a.json,mem_b.json,"), 4);
	assert_int_equal(count_lines(out, "mem_a.json,sw_diff.json,"), 4);
	assert_int_equal(count_lines(out, ""), 9);
	free(out);

	/* markdown: a section per comparison, a table row per case */
	assert_int_equal(run_compare_stdout(dir, "-f md mem_a.json mem_b.json sw_diff.json", &out),
	                 0);
	assert_int_equal(count_lines(out, "## primbench compare"), 2);
	assert_int_equal(count_lines(out, "| case | old ticks | new ticks | delta | 95% CI | p |"),
	                 2);
	assert_int_equal(count_lines(out, "| libc 64 | "), 2);
	assert_int_equal(count_lines(out, "- only in `mem_b.json`, 2 cases: "), 1);
	free(out);

	/* A.. -- B..: the same formats */
	assert_int_equal(run_compare_stdout(dir, "-f json mem_a.json -- mem_b.json", &out), 0);
	doc = json_loads(out, 0, &err);
	assert_non_null(doc);
	assert_int_equal(json_array_size(json_object_get(json_object_get(doc, "sides"), "new")), 1);
	assert_int_equal(json_array_size(json_object_get(
	                     json_array_get(json_object_get(doc, "comparisons"), 0), "cases")),
	                 4);
	json_decref(doc);
	free(out);
	assert_int_equal(run_compare_stdout(dir, "-f csv mem_a.json -- mem_b.json", &out), 0);
	assert_int_equal(count_lines(out, "mem_a.json,mem_b.json,memset hot,"), 4);
	free(out);
	assert_int_equal(run_compare_stdout(dir, "-f markdown mem_a.json -- mem_b.json", &out), 0);
	assert_int_equal(count_lines(out, "| case | old ticks |"), 1);
	free(out);

	/* refused: nothing on standard output, exit 2 */
	static const char *const bad[] = {"-f benchfmt", "-f xml", "-f ''"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char *args;
		assert_true(asprintf(&args, "%s mem_a.json mem_b.json", bad[i]) > 0);
		assert_int_equal(run_compare_stdout(dir, args, &out), 2);
		assert_string_equal(out, "");
		free(out);
		free(args);
	}
	assert_true(asprintf(&cmd, "rm -rf '%s'", dir) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* Issue 21: threads, placement and mem_node in the mem key. A file
 * without them (written before) reads as before and matches the 1-thread
 * cases of a file with them (threads 1, placement null, mem_node
 * "local"); an N-thread case is a case of its own, named "x2", "scatter",
 * "mem=node 1" where not the default. */
static json_t *threaded_key(const char *kernel, long size, int threads, const char *placement,
                            const char *node)
{
	json_t *k = mem_key(kernel, size);
	json_object_set_new(k, "threads", json_integer(threads));
	json_object_set_new(k, "placement", placement ? json_string(placement) : json_null());
	json_object_set_new(k, "mem_node", json_string(node));
	return k;
}

static void test_threads_keys(void **state)
{
	(void)state;
	double v[6] = {10, 10.5, 11, 9.5, 10, 10.25};
	json_t *old = doc_new();
	add_case(old, mem_key("libc", 64), "tsc_ticks", v, 6);
	add_case(old, mem_key("libc", 4096), "tsc_ticks", v, 6);
	json_t *neu = doc_new();
	add_case(neu, threaded_key("libc", 64, 1, NULL, "local"), "tsc_ticks", v, 6);
	add_case(neu, threaded_key("libc", 64, 2, "compact", "local"), "tsc_ticks", v, 6);
	add_case(neu, threaded_key("libc", 64, 2, "scatter", "node 1"), "tsc_ticks", v, 6);
	add_case(neu, threaded_key("libc", 4096, 1, NULL, "local"), "tsc_ticks", v, 6);
	struct pb_results_file f[2];
	load_doc(old, "old.json", &f[0]);
	load_doc(neu, "new.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	/* the old file: its canonical keys and names as before */
	assert_string_equal(f[0].cases[0].label, "libc 64");
	assert_null(strstr(f[0].cases[0].canon, "threads"));
	assert_string_equal(f[1].cases[0].label, "libc 64");
	assert_string_equal(f[1].cases[0].canon, f[0].cases[0].canon);
	assert_string_equal(f[1].cases[1].label, "libc 64 x2");
	assert_string_equal(f[1].cases[2].label, "libc 64 x2 scatter mem=node 1");
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 2); /* libc 64 and 4K, one thread */
	assert_int_equal(r.nonly_a, 0);
	assert_int_equal(r.nonly_b, 2);
	assert_string_equal(r.only_b[0]->label, "libc 64 x2");
	pb_compare_result_free(&r);
	/* the new file with itself: every case its own row */
	assert_int_equal(pb_compare_run(&f[1], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 4);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* threads 1 written and absent are one key: twice in a file is refused */
	json_t *dup = doc_new();
	add_case(dup, mem_key("libc", 64), "tsc_ticks", v, 6);
	add_case(dup, threaded_key("libc", 64, 1, NULL, "local"), "tsc_ticks", v, 6);
	char *text = json_dumps(dup, 0);
	struct pb_results_file g;
	assert_int_equal(pb_results_load_text(text, strlen(text), "dup.json", &g), -1);
	assert_non_null(strstr(pb_error(), "the same key as cases[0]"));
	pb_results_file_free(&g);
	free(text);
	json_decref(dup);
}

/* A v2 case: R replicates of n values, replicate r's values level[r] x
 * (1 + 0.001 (i - n/2)), with its "replicates" array. */
static void add_replicated(json_t *doc, json_t *key, const double *level, size_t R, size_t n)
{
	json_object_set_new(doc, "schema_version", json_integer(2));
	json_t *samples = json_array(), *reps = json_array();
	for (size_t r = 0; r < R; r++) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(
			    samples,
			    json_pack("[f, i]",
			              4 * level[r] * (1 + 0.001 * ((double)i - (double)(n / 2))),
			              4));
		json_array_append_new(
		    reps, json_pack("{s:i, s:f}", "samples", (int)n, "median", level[r]));
	}
	json_array_append_new(json_object_get(doc, "cases"),
	                      json_pack("{s:o, s:s, s:o, s:o}", "key", key, "unit", "tsc_ticks",
	                                "samples", samples, "replicates", reps));
}

/* v2 files: the verdict comes from the replicates; a v1 file beside a v2
 * one gets no verdict; a malformed replicates array is refused. */
static void test_replicates_v2(void **state)
{
	(void)state;
	/* the levels move between replicates by +-4%: each replicate's samples
	 * are tight (0.1%), so the samples alone would call 2% "different" */
	const double a[] = {100, 104, 96, 102, 98}, same[] = {101, 97, 103, 99, 105},
	             slower[] = {120, 124, 116, 122, 118};
	json_t *da = doc_new(), *db = doc_new();
	add_replicated(da, mem_key("aa", 64), a, 5, 21);
	add_replicated(db, mem_key("aa", 64), same, 5, 21);
	add_replicated(da, mem_key("ab", 64), a, 5, 21);
	add_replicated(db, mem_key("ab", 64), slower, 5, 21);
	struct pb_results_file f[3];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(f[0].cases[0].n_rep, 5);
	assert_int_equal(f[0].cases[0].rep_n[4], 21);
	json_t *d1 = doc_new(); /* v1: one run of the same samples as a's */
	double v1[21];
	for (size_t i = 0; i < 21; i++)
		v1[i] = 100 * (1 + 0.001 * ((double)i - 10));
	add_case(d1, mem_key("aa", 64), "tsc_ticks", v1, 21);
	load_doc(d1, "v1.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);

	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 2);
	const struct pb_compare_row *aa = &r.rows[0], *ab = &r.rows[1];
	assert_true(aa->run_level);
	assert_int_equal(aa->runs_a, 5);
	assert_int_equal(aa->runs_b, 5);
	assert_false(aa->significant);
	assert_true(ab->run_level);
	assert_true(ab->significant);
	assert_close(ab->shift.estimate, 1.2, 0.005);
	assert_close(aa->sa.median, exp((log(100) + log(104) + log(96) + log(102) + log(98)) / 5),
	             1e-6);
	assert_int_equal(aa->sa.replicates, 5);
	char *text = print_text(&r);
	assert_contains(text, "note: runs: the replicates in each file (at least 5 old, 5 new");
	squash(text);
	assert_contains(text, "Welch's t interval on their logs");
	free(text);
	json_t *j = pb_compare_json(&r);
	json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(c0, "runs"), "unit")),
	                    "replicate");
	json_decref(j);
	pb_compare_result_free(&r);

	/* v1 against v2: one run on the old side, no verdict */
	assert_int_equal(pb_compare_run(&f[2], &f[0], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 1);
	assert_true(r.rows[0].one_run);
	assert_false(r.rows[0].significant);
	assert_int_equal(r.rows[0].runs_a, 1);
	text = print_text(&r);
	assert_contains(text, "1 case with one run on a side");
	free(text);
	pb_compare_result_free(&r);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);

	/* replicates whose counts do not add up to the samples */
	json_t *bad = doc_new();
	add_replicated(bad, mem_key("x", 64), a, 5, 21);
	json_t *rep = json_array_get(
	    json_object_get(json_array_get(json_object_get(bad, "cases"), 0), "replicates"), 0);
	json_object_set_new(rep, "samples", json_integer(20));
	char *t = json_dumps(bad, 0);
	struct pb_results_file fb;
	assert_int_equal(pb_results_load_text(t, strlen(t), "bad.json", &fb), -1);
	assert_non_null(
	    strstr(pb_error(), "the replicates' samples add up to 104, 'samples' has 105"));
	pb_results_file_free(&fb);
	free(t);
	json_decref(bad);
}

/* The one margin (PB_EQUIVALENCE, compare --equivalence): a change the
 * replicates show but smaller than the margin is no change; an interval
 * inside it is "equivalent"; with margin 0 the same change is one. */
static void test_margin(void **state)
{
	(void)state;
	const double a[] = {100, 100.1, 99.9, 100.05, 99.95},
	             b[] = {100.5, 100.6, 100.4, 100.55, 100.45},
	             c[] = {103, 103.1, 102.9, 103.05, 102.95};
	json_t *da = doc_new(), *db = doc_new();
	add_replicated(da, mem_key("small", 64), a, 5, 21);
	add_replicated(db, mem_key("small", 64), b, 5, 21);
	add_replicated(da, mem_key("large", 64), a, 5, 21);
	add_replicated(db, mem_key("large", 64), c, 5, 21);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_true(r.margin == PB_EQUIVALENCE);
	assert_int_equal(r.nrows, 2);
	const struct pb_compare_row *small = &r.rows[0], *large = &r.rows[1];
	assert_true(small->shift.lo > 1);                        /* shown, */
	assert_int_equal(small->verdict, PB_VERDICT_EQUIVALENT); /* but inside the margin */
	assert_false(small->significant);
	assert_int_equal(large->verdict, PB_VERDICT_DIFFERENT);
	assert_true(large->significant);
	json_t *j = pb_compare_json(&r);
	json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
	assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "equivalent");
	json_decref(j);
	/* the table: '=' for equivalent, the change for different */
	char *text = print_text(&r);
	char *ls = strstr(text, "\nsmall 64"), *ll = strstr(text, "\nlarge 64");
	assert_non_null(ls);
	assert_non_null(ll);
	*strchr(ll + 1, '\n') = 0; /* large first: small's end is large's start */
	*strchr(ls + 1, '\n') = 0;
	ll++;
	assert_non_null(
	    strstr(ls, " = ")); /* e.g. "small 64 100 +-0.1% 100 +-0.1% = [+0.4, +0.6]" */
	assert_null(strstr(ls, "~"));
	assert_non_null(strstr(ll, "%"));
	assert_null(strstr(ll, "~"));
	free(text);
	pb_compare_set_margin(&r, 0);
	assert_int_equal(r.rows[0].verdict, PB_VERDICT_DIFFERENT);
	assert_true(r.rows[0].significant);
	pb_compare_set_margin(&r, 0.05);
	assert_false(r.rows[1].significant);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* compare A1 A2 A3 -- B1 B2 B3: each file one run (v1 files), the delta
 * Welch's t over the files' medians; v2 files a side give their
 * replicates' geometric means. */
static void test_sides(void **state)
{
	(void)state;
	struct pb_results_file f[6];
	const double lv[] = {100, 103, 98, 130, 127, 133};
	for (int i = 0; i < 6; i++) {
		json_t *d = doc_new();
		double *v = spread(lv[i], 0.0001, 11);
		add_case(d, mem_key("k", 64), "tsc_ticks", v, 11);
		free(v);
		char name[16];
		snprintf(name, sizeof name, "%c%d.json", i < 3 ? 'a' : 'b', i % 3 + 1);
		load_doc(d, name, &f[i]);
	}
	assert_int_equal(pb_results_name(f, 6), 0);
	const struct pb_results_file *sa[] = {&f[0], &f[1], &f[2]}, *sb[] = {&f[3], &f[4], &f[5]};
	struct pb_compare_result r;
	assert_int_equal(pb_compare_sides(sa, 3, sb, 3, 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 1);
	const struct pb_compare_row *row = &r.rows[0];
	assert_true(row->run_level);
	assert_int_equal(row->runs_a, 3);
	assert_int_equal(row->runs_b, 3);
	assert_true(row->significant);
	double ga = cbrt(100.0 * 103 * 98), gb = cbrt(130.0 * 127 * 133);
	assert_close(row->shift.estimate, gb / ga, 1e-6);
	assert_close(row->sa.median, ga, 1e-6);
	char *text = print_text(&r);
	assert_contains(text, "note: runs: one per file (3 old, 3 new files");
	free(text);
	json_t *j = pb_compare_json(&r);
	json_t *c0 = json_array_get(json_object_get(j, "cases"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(c0, "runs"), "unit")),
	                    "file");
	assert_int_equal(json_array_size(json_object_get(j, "old_files")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "new_files"), 2)),
	                    "b3.json");
	json_decref(j);
	pb_compare_result_free(&r);
	/* one file against three: a file is the unit on both sides, so the
	 * lone file is one run and there is no verdict */
	assert_int_equal(pb_compare_sides(sa, 1, sb, 3, 0.95, false, &r), 0);
	assert_true(r.rows[0].one_run);
	assert_false(r.rows[0].significant);
	assert_int_equal(r.rows[0].runs_a, 1);
	assert_int_equal(r.rows[0].runs_b, 3);
	/* the new column is every new file; the delta is the Hodges-Lehmann
	 * figure of the samples, each side's files pooled, with its interval
	 * and the U test's p, marked as one run's (issue 33, item 3) */
	assert_close(r.rows[0].sb.median, gb, 1e-6);
	assert_close(r.rows[0].shift.estimate, 1.30, 0.005);
	assert_true(r.rows[0].shift.ci_valid);
	assert_false(isnan(r.rows[0].u.p));
	/* n: the samples pooled, 3 files of 11 (issue 33, item 6) */
	assert_int_equal(r.rows[0].sa.n, 11);
	assert_int_equal(r.rows[0].sb.n, 33);
	pb_compare_result_free(&r);
	/* three old files against one: the old column is all three */
	assert_int_equal(pb_compare_sides(sa, 3, sb, 1, 0.95, false, &r), 0);
	assert_true(r.rows[0].one_run);
	assert_close(r.rows[0].sa.median, ga, 1e-6);
	assert_close(r.rows[0].shift.estimate, 1.30, 0.01);
	/* and a p: the U test of the pooled samples */
	assert_false(isnan(r.rows[0].u.p));
	assert_int_equal(r.rows[0].sa.n, 33);
	text = print_text(&r);
	assert_false(strstr(text, "%? -                   -\n"));
	assert_contains(text, "old: a1.json, a2.json, a3.json (3 runs)");
	assert_contains(text, "new: b1.json\n");
	free(text);
	pb_compare_result_free(&r);
	/* A/A: the old side against its own files reordered */
	const struct pb_results_file *sa2[] = {&f[2], &f[0], &f[1]};
	assert_int_equal(pb_compare_sides(sa, 3, sa2, 3, 0.95, false, &r), 0);
	assert_false(r.rows[0].significant);
	assert_close(r.rows[0].shift.estimate, 1, 1e-9);
	pb_compare_result_free(&r);
	for (int i = 0; i < 6; i++)
		pb_results_file_free(&f[i]);
}

/* ---- -f markdown and -f csv (issue 33, item 5) ---- */

/* not inlined: GCC's -Wdangling-pointer takes the memstream's buffer for
 * the local that held its address */
__attribute__((noinline)) static char *markdown_text(const struct pb_compare_result *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	assert_non_null(m);
	pb_compare_markdown(m, r);
	fclose(m);
	return s;
}

static char *csv_text(const struct pb_compare_result *r, size_t n)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	assert_non_null(m);
	pb_compare_csv(m, r, n);
	fclose(m);
	return s;
}

/* The lines of a group's table under the header line `head`: the rows
 * after it and its separator, up to the first line that is not one. */
static size_t table_rows(const char *text, const char *head)
{
	const char *at = strstr(text, head);
	assert_non_null(at);
	at = strchr(at, '\n') + 1;
	assert_true(strncmp(at, "|---|", 5) == 0);
	at = strchr(at, '\n') + 1;
	size_t n = 0;
	for (; *at == '|'; at = strchr(at, '\n') + 1)
		n++;
	return n;
}

/* The CSV's records (CRLF-terminated) as a NULL-ended array of fields
 * each; no field of these fixtures is quoted. */
static char ***csv_records(char *text, size_t *nrec)
{
	char ***rec = NULL;
	size_t n = 0;
	for (char *line = text; *line;) {
		char *end = strstr(line, "\r\n");
		assert_non_null(end); /* every record ends in CRLF */
		*end = '\0';
		rec = realloc(rec, (n + 1) * sizeof *rec);
		assert_non_null(rec);
		char **fields = NULL;
		size_t nf = 0;
		for (char *f = line;; f++) {
			char *comma = strchr(f, ',');
			fields = realloc(fields, (nf + 2) * sizeof *fields);
			assert_non_null(fields);
			fields[nf++] = f;
			if (!comma)
				break;
			*comma = '\0';
			f = comma;
		}
		fields[nf] = NULL;
		rec[n++] = fields;
		line = end + 2;
	}
	*nrec = n;
	return rec;
}

static size_t csv_column(char **header, const char *name)
{
	for (size_t i = 0; header[i]; i++)
		if (!strcmp(header[i], name))
			return i;
	fail_msg("no column '%s'", name);
	return 0;
}

static void csv_records_free(char ***rec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rec[i]);
	free(rec);
}

static void test_markdown_csv(void **state)
{
	(void)state;
	struct pb_results_file f[3];
	load_ok("mem_a.json", &f[0]);
	load_ok("mem_b.json", &f[1]);
	load_ok("sw_diff.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	struct pb_compare_result r[2];
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r[0]), 0);
	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, false, &r[1]), 0);
	assert_int_equal(r[0].nrows, 4);

	/* Markdown: the files, one table per group with a row per case, the
	 * geometric means, the cases in one file only, the notes */
	char *md = markdown_text(&r[0]);
	assert_contains(md, "## primbench compare\n\n- old: `mem_a.json`\n- new: `mem_b.json`\n");
	assert_contains(md, "\n### memset hot\n\n");
	const char *head = "| case | old ticks | new ticks | delta | 95% CI | p | verdict |\n";
	assert_contains(md, head);
	assert_int_equal(table_rows(md, head), r[0].nrows);
	/* the text's cells, the verdict in words */
	assert_contains(md, "\n| libc 64 | 4.32 +-1% | 4.27 +-7% | -0.3%? | [-2.0, +0.8] | 0.490 "
	                    "| no verdict (one run) |\n");
	const char *gm = "| unit | old | new | delta | cases |\n";
	assert_contains(md, gm);
	assert_int_equal(table_rows(md, gm), r[0].ngm);
	assert_contains(md, "| ticks | 67.7 | 67.5 | -0.3% | 4 |\n");
	assert_contains(md,
	                "\n### only in one file\n\n- only in `mem_a.json`, 2 cases: memset hot: "
	                "rep_stosb 64; memset hot: rep_stosb 4K\n- only in `mem_b.json`, 2 "
	                "cases: memset hot: avx2 64; memset hot: avx2 4K\n");
	assert_contains(md, "\n### notes\n\n- 4 cases with one run on a side");
	assert_contains(md, "\nold, new: median per call (ticks: TSC ticks)");
	free(md);
	md = markdown_text(&r[1]);
	assert_contains(md, "\n- differs: kernel 6.18.44-fc-v769 -> 6.1.0-20-amd64\n");
	assert_int_equal(table_rows(md, head), r[1].nrows);
	free(md);

	/* CSV: a header, then a row per case of every comparison, each as
	 * wide as the header; numbers in full */
	char *csv = csv_text(r, 2);
	size_t n;
	char ***rec = csv_records(csv, &n);
	assert_int_equal(n, 1 + r[0].nrows + r[1].nrows);
	char **h = rec[0];
	assert_string_equal(h[0], "old_file");
	assert_string_equal(h[1], "new_file");
	assert_string_equal(h[2], "group");
	assert_string_equal(h[3], "case");
	assert_string_equal(h[4], "suite"); /* the key's fields */
	size_t nh = 0;
	while (h[nh])
		nh++;
	for (size_t i = 1; i < n; i++) {
		size_t nf = 0;
		while (rec[i][nf])
			nf++;
		assert_int_equal(nf, nh);
	}
	size_t unit = csv_column(h, "unit"), med = csv_column(h, "old_median"),
	       hi = csv_column(h, "new_ci_hi"), pct = csv_column(h, "delta_pct"),
	       p = csv_column(h, "p"), verdict = csv_column(h, "verdict"),
	       size = csv_column(h, "size_bytes"), nfile = csv_column(h, "new_file");
	for (size_t i = 0; i < r[0].nrows; i++) {
		char **row = rec[1 + i];
		const struct pb_compare_row *w = &r[0].rows[i];
		assert_string_equal(row[2], "memset hot");
		assert_string_equal(row[3], w->a->label);
		assert_string_equal(row[unit], "tsc_ticks");
		assert_string_equal(row[nfile], "mem_b.json");
		/* exactly the figures, not as the table rounds them */
		assert_true(strtod(row[med], NULL) == w->sa.median);
		assert_true(strtod(row[hi], NULL) == w->sb.ci_hi);
		assert_true(strtod(row[pct], NULL) == w->pct);
		assert_true(strtod(row[p], NULL) == w->u.p);
		assert_string_equal(row[verdict], "none");
		assert_string_equal(row[size], i < 2 ? "64" : "4096");
	}
	assert_string_equal(rec[1 + r[0].nrows][nfile], "sw_diff.json");
	csv_records_free(rec, n);
	free(csv);
	for (int i = 0; i < 2; i++)
		pb_compare_result_free(&r[i]);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);

	/* Runs a side: the verdict column; no p (empty in the CSV); a name
	 * with Markdown's characters escaped, with CSV's quoted */
	struct pb_results_file g[4];
	const double lv[] = {100, 103, 130, 127};
	for (int i = 0; i < 4; i++) {
		json_t *d = doc_new();
		double *v = spread(lv[i], 0.0001, 11);
		add_case(d, mem_key("k|*x, y", 64), "tsc_ticks", v, 11);
		free(v);
		char name[16];
		/* b`1.json: a name that cannot be Markdown code */
		snprintf(name, sizeof name, "%s%d.json", i < 2 ? "a" : "b`", i % 2 + 1);
		load_doc(d, name, &g[i]);
	}
	assert_int_equal(pb_results_name(g, 4), 0);
	const struct pb_results_file *sa[] = {&g[0], &g[1]}, *sb[] = {&g[2], &g[3]};
	struct pb_compare_result q;
	assert_int_equal(pb_compare_sides(sa, 2, sb, 2, 0.95, false, &q), 0);
	assert_true(q.rows[0].significant);
	md = markdown_text(&q);
	assert_contains(md, "- old: `a1.json`, `a2.json` (2 runs)\n");
	assert_contains(md, "- new: b\\`1.json, b\\`2.json (2 runs)\n");
	assert_contains(md, "\n| k\\|\\*x, y 64 | ");
	assert_contains(md, " | different |\n");
	free(md);
	csv = csv_text(&q, 1);
	assert_contains(csv, "a1.json;a2.json,b`1.json;b`2.json,memset hot,\"k|*x, y 64\",mem,");
	assert_contains(csv, ",different,false,2,2\r\n");
	free(csv);
	pb_compare_result_free(&q);
	assert_int_equal(pb_compare_sides(sa, 2, sb, 1, 0.95, false, &q), 0);
	/* one run a side: the pooled samples' U test gives p (issue 33, 3) */
	assert_false(isnan(q.rows[0].u.p));
	md = markdown_text(&q);
	assert_contains(md, " | no verdict (one run) |\n");
	assert_false(strstr(md, " | - | no verdict (one run) |\n"));
	free(md);
	csv = csv_text(&q, 1);
	assert_contains(csv, ",none,true,2,1\r\n");
	assert_false(strstr(csv, ",,none,true,2,1\r\n"));
	free(csv);
	pb_compare_result_free(&q);
	for (int i = 0; i < 4; i++)
		pb_results_file_free(&g[i]);
}

/* ---- HTML (pb_compare_html) ---- */

__attribute__((noinline)) static char *html_text(const struct pb_compare_result *r)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	assert_non_null(m);
	pb_compare_html(m, r);
	fclose(m);
	const char *why = html_check(s);
	if (why)
		fail_msg("not polyglot HTML: %s\n%s", why, s);
	return s;
}

static void html_append(char **out, const char *s, size_t n, bool escape)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	if (escape) {
		char *part = strndup(s, n);
		assert_non_null(part);
		pb_html_text(m, part);
		free(part);
	} else {
		fwrite(s, 1, n, m);
	}
	fclose(m);
	size_t have = *out ? strlen(*out) : 0;
	*out = realloc(*out, have + len + 1);
	assert_non_null(*out);
	memcpy(*out + have, text, len + 1);
	free(text);
}

static void html_put(char **out, const char *s)
{
	html_append(out, s, strlen(s), false);
}

/* The class of the verdict cell of the Markdown verdict `word`. */
static const char *verdict_class(const char *word, size_t n)
{
	static const char *const map[][2] = {{"different", "verdict-different"},
	                                     {"equivalent", "verdict-equivalent"},
	                                     {"cannot tell", "verdict-none"},
	                                     {"no verdict (one run)", "verdict-one-run"}};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strlen(map[i][0]) == n && !strncmp(word, map[i][0], n))
			return map[i][1];
	fail_msg("verdict '%.*s'", (int)n, word);
	return NULL;
}

/* One Markdown table line (n bytes, "| a | b |") as the HTML row that
 * should hold the same cells: header cells (head) or a body row;
 * num[i]: column i is a number column; verdict: the last is a verdict. */
static char *html_row_of(const char *line, size_t n, bool head, const bool *num, bool verdict)
{
	char *out = NULL;
	html_put(&out, "<tr>");
	const char *p = line + 2, *end = line + n - 2;
	for (size_t i = 0; p <= end; i++) {
		const char *bar = strstr(p, " | ");
		if (!bar || bar > end)
			bar = end;
		size_t len = (size_t)(bar - p);
		bool last = bar == end;
		if (head)
			html_put(&out, num[i] ? "<th scope=\"col\" class=\"num\">"
			                      : "<th scope=\"col\">");
		else if (i == 0)
			html_put(&out, "<th scope=\"row\">");
		else if (last && verdict) {
			html_put(&out, "<td class=\"");
			html_put(&out, verdict_class(p, len));
			html_put(&out, "\">");
		} else
			html_put(&out, num[i] ? "<td class=\"num\">" : "<td>");
		/* Markdown's escapes undone: the cell's own text */
		char *cell = malloc(len + 1);
		assert_non_null(cell);
		size_t k = 0;
		for (size_t j = 0; j < len; j++)
			if (!(p[j] == '\\' && j + 1 < len && strchr("\\|*`<~", p[j + 1])))
				cell[k++] = p[j];
			else
				cell[k++] = p[++j];
		html_append(&out, cell, k, true);
		free(cell);
		html_put(&out, head || i == 0 ? "</th>" : "</td>");
		p = bar + 3;
	}
	html_put(&out, "</tr>");
	return out;
}

/* Every Markdown table line of the comparison as an HTML row of the same
 * cells, in order; the number of case rows (not the geometric means'). */
static size_t html_rows_match(const char *md, const char *html)
{
	static const bool cases_num[] = {false, true, true, true, false, true, false};
	static const bool gm_num[] = {false, true, true, true, true};
	const bool *num = NULL;
	const char *at = html;
	size_t rows = 0;
	for (const char *line = md; *line;) {
		size_t n = strcspn(line, "\n");
		char *want = NULL;
		if (!strncmp(line, "| case |", 8)) {
			num = cases_num;
			want = html_row_of(line, n, true, num, false);
		} else if (!strncmp(line, "| unit |", 8)) {
			num = gm_num;
			want = html_row_of(line, n, true, num, false);
		} else if (!strncmp(line, "| ", 2)) {
			assert_non_null(num);
			want = html_row_of(line, n, false, num, num == cases_num);
			rows += num == cases_num;
		}
		if (want) {
			const char *found = strstr(at, want);
			if (!found)
				fail_msg("no '%s' in order in\n%s", want, html);
			at = found + strlen(want);
			free(want);
		}
		line += n + (line[n] == '\n');
	}
	return rows;
}

static size_t html_count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The Markdown's cells in HTML tables, a row per case, the verdict's
 * class as its word; the files, differences, geometric means, only-in
 * cases and notes; every text escaped. */
static void test_html(void **state)
{
	(void)state;
	struct pb_results_file f[3];
	load_ok("mem_a.json", &f[0]);
	load_ok("mem_b.json", &f[1]);
	load_ok("sw_diff.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 4);
	char *md = markdown_text(&r), *html = html_text(&r);
	assert_int_equal(html_rows_match(md, html), r.nrows);
	assert_int_equal(
	    html_count(html, "<td class=\"verdict-one-run\">no verdict (one run)</td>"), r.nrows);
	assert_int_equal(html_count(html, "<td class=\"verdict-"), r.nrows);
	assert_int_equal(html_count(html, "<table class=\"pb-table\">"), 2);
	assert_int_equal(html_count(html, "</table>"), 2);
	assert_contains(html, "<ul class=\"pb-files\">\n<li>old: <code>mem_a.json</code></li>\n"
	                      "<li>new: <code>mem_b.json</code></li>\n</ul>\n");
	assert_contains(html, "<table class=\"pb-table\">\n<caption>memset hot</caption>\n"
	                      "<thead>\n<tr><th scope=\"col\">case</th><th scope=\"col\" "
	                      "class=\"num\">old ticks</th><th scope=\"col\" class=\"num\">new "
	                      "ticks</th><th scope=\"col\" class=\"num\">delta</th><th "
	                      "scope=\"col\">95% CI</th><th scope=\"col\" class=\"num\">p</th><th "
	                      "scope=\"col\">verdict</th></tr>\n</thead>\n<tbody>\n");
	assert_contains(html, "<tr><th scope=\"row\">libc 64</th><td class=\"num\">4.32 +-1%</td>"
	                      "<td class=\"num\">4.27 +-7%</td><td class=\"num\">-0.3%?</td>"
	                      "<td>[-2.0, +0.8]</td><td class=\"num\">0.490</td>"
	                      "<td class=\"verdict-one-run\">no verdict (one run)</td></tr>\n");
	assert_contains(html, "<caption>geomean</caption>");
	assert_contains(html, "<tr><th scope=\"row\">ticks</th><td class=\"num\">67.7</td><td "
	                      "class=\"num\">67.5</td><td class=\"num\">-0.3%</td><td "
	                      "class=\"num\">4</td></tr>\n");
	assert_contains(html, "<h3>only in one file</h3>\n<ul>\n<li>only in "
	                      "<code>mem_a.json</code>, 2 cases: memset hot: rep_stosb 64; memset "
	                      "hot: rep_stosb 4K</li>\n<li>only in <code>mem_b.json</code>, 2 "
	                      "cases: memset hot: avx2 64; memset hot: avx2 4K</li>\n</ul>\n");
	assert_contains(html, "<h3>notes</h3>\n<ul>\n<li>4 cases with one run on a side");
	assert_contains(html, "(&apos;?&apos; after the delta)");
	assert_contains(html, "\n<p>old, new: median per call (ticks: TSC ticks)");
	assert_contains(html, "p &gt;= 0.05");
	free(md);
	free(html);
	pb_compare_result_free(&r);
	/* the software that differs, in the files' list */
	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, false, &r), 0);
	md = markdown_text(&r);
	html = html_text(&r);
	assert_int_equal(html_rows_match(md, html), r.nrows);
	assert_contains(html, "<li>differs: kernel 6.18.44-fc-v769 -&gt; 6.1.0-20-amd64</li>\n");
	free(md);
	free(html);
	pb_compare_result_free(&r);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);

	/* equivalent, different and cannot tell (replicates a side), names
	 * with HTML's characters */
	const double a[] = {100, 100.1, 99.9, 100.05, 99.95},
	             b[] = {100.5, 100.6, 100.4, 100.55, 100.45},
	             c[] = {103, 103.1, 102.9, 103.05, 102.95}, d[] = {90, 112, 95, 108, 101};
	json_t *da = doc_new(), *db = doc_new();
	add_replicated(da, mem_key("small", 64), a, 5, 21);
	add_replicated(db, mem_key("small", 64), b, 5, 21);
	add_replicated(da, mem_key("a<b&c", 64), a, 5, 21);
	add_replicated(db, mem_key("a<b&c", 64), c, 5, 21);
	add_replicated(da, mem_key("noisy", 64), a, 5, 21);
	add_replicated(db, mem_key("noisy", 64), d, 5, 21);
	struct pb_results_file g[2];
	load_doc(da, "x<1.json", &g[0]);
	load_doc(db, "b&'2'.json", &g[1]);
	assert_int_equal(pb_results_name(g, 2), 0);
	assert_int_equal(pb_compare_run(&g[0], &g[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 3);
	assert_int_equal(r.rows[0].verdict, PB_VERDICT_EQUIVALENT);
	assert_true(r.rows[1].significant);
	assert_false(r.rows[2].significant);
	assert_int_equal(r.rows[2].verdict, PB_VERDICT_NONE);
	md = markdown_text(&r);
	html = html_text(&r);
	assert_int_equal(html_rows_match(md, html), r.nrows);
	assert_contains(html, "<tr><th scope=\"row\">small 64</th>");
	assert_contains(html, "<td class=\"verdict-equivalent\">equivalent</td></tr>\n<tr><th "
	                      "scope=\"row\">a&lt;b&amp;c 64</th>");
	assert_contains(html, "<td class=\"verdict-different\">different</td></tr>\n<tr><th "
	                      "scope=\"row\">noisy 64</th>");
	assert_contains(html, "<td class=\"verdict-none\">cannot tell</td></tr>\n</tbody>");
	assert_contains(html, "<li>old: <code>x&lt;1.json</code></li>\n"
	                      "<li>new: <code>b&amp;&apos;2&apos;.json</code></li>\n");
	assert_null(strstr(html, "a<b"));
	free(md);
	free(html);
	pb_compare_result_free(&r);
	pb_results_file_free(&g[0]);
	pb_results_file_free(&g[1]);

	/* nothing in both: a paragraph, no table, no legend */
	load_ok("mem_a.json", &f[0]);
	load_ok("sys_a.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	html = html_text(&r);
	assert_contains(html, "</ul>\n<p>no cases in both files: mem_a.json has 6 mem cases, ");
	assert_null(strstr(html, "<table"));
	assert_null(strstr(html, "old, new: median"));
	free(html);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* With '--', a side is the union of its files' cases (issue 33, item 1):
 * a case missing from a side's first file is compared on the files that
 * have it, with a note, or listed as only in that side; never dropped. */
static void test_sides_union(void **state)
{
	(void)state;
	struct pb_results_file f[4];
	/* a1, b1: 64 only; a2, b2: 64, 128 and (b2 only) 256 */
	for (int i = 0; i < 4; i++) {
		json_t *d = doc_new();
		double base = i < 2 ? 100 : 130;
		double *v = spread(base + i % 2, 0.0001, 11);
		add_case(d, mem_key("k", 64), "tsc_ticks", v, 11);
		if (i % 2)
			add_case(d, mem_key("k", 128), "tsc_ticks", v, 11);
		if (i == 3)
			add_case(d, mem_key("k", 256), "tsc_ticks", v, 11);
		free(v);
		char name[16];
		snprintf(name, sizeof name, "%c%d.json", i < 2 ? 'a' : 'b', i % 2 + 1);
		load_doc(d, name, &f[i]);
	}
	assert_int_equal(pb_results_name(f, 4), 0);
	const struct pb_results_file *sa[] = {&f[0], &f[1]}, *sb[] = {&f[2], &f[3]};
	struct pb_compare_result r;
	assert_int_equal(pb_compare_sides(sa, 2, sb, 2, 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 2);
	assert_int_equal(r.nonly_a, 0);
	assert_int_equal(r.nonly_b, 1);
	assert_string_equal(r.rows[1].a->label, r.rows[1].b->label);
	assert_ptr_equal(r.rows[1].file_a, &f[1]);
	assert_ptr_equal(r.rows[1].file_b, &f[3]);
	assert_int_equal(r.rows[1].runs_a, 1);
	assert_true(r.rows[1].one_run);
	char *text = print_text(&r);
	squash(text);
	assert_contains(text, "1 case not in every file of a side, compared on the files "
	                      "that have it: ");
	assert_contains(text, "(old 1 of 2 files, new 1 of 2)");
	assert_contains(text, "only in the new files:");
	/* the runs note's least is over every case compared: 128 is in one
	 * file a side (issue 33, item 5) */
	assert_contains(text, "note: runs: one per file (2 old, 2 new files; at least 1 and 1 "
	                      "with each case)");
	assert_null(strstr(text, "at least 2 and 2"));
	free(text);
	char *md = markdown_text(&r);
	squash(md);
	assert_contains(md, "runs: one per file (2 old, 2 new files; at least 1 and 1 with each "
	                    "case)");
	free(md);
	json_t *j = pb_compare_json(&r);
	json_t *jn = json_object_get(j, "notes");
	bool found = false;
	for (size_t i = 0; i < json_array_size(jn); i++) {
		const char *n = json_string_value(json_array_get(jn, i));
		assert_null(strstr(n, "at least 2 and 2"));
		found |= strstr(n, "at least 1 and 1 with each case") != NULL;
	}
	assert_true(found);
	json_decref(j);
	char *csv = csv_text(&r, 1);
	assert_int_equal(count_lines(csv, ""), 3); /* header and two rows */
	free(csv);
	pb_compare_result_free(&r);
	/* compare a1 -- b1 b2: b2's cases are listed though b1 lacks them */
	assert_int_equal(pb_compare_sides(sa, 1, sb, 2, 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 1);
	assert_int_equal(r.nonly_b, 2);
	pb_compare_result_free(&r);
	/* the smaller file first on both sides, or last: the same rows */
	const struct pb_results_file *ra[] = {&f[1], &f[0]}, *rb[] = {&f[3], &f[2]};
	assert_int_equal(pb_compare_sides(ra, 2, rb, 2, 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 2);
	assert_int_equal(r.nonly_b, 1);
	pb_compare_result_free(&r);
	for (int i = 0; i < 4; i++)
		pb_results_file_free(&f[i]);
}

static size_t count_substr(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *at = s; (at = strstr(at, needle)); at++)
		n++;
	return n;
}

/* compare c1 c2 -- c3 c4 with a cmd case in c1 and c3 only: its samples
 * are runs, each a process, so it is judged on them as compare c1 c3
 * judges it (a verdict, no one-process note); a mem case in one file a
 * side keeps no verdict (issue 33, item 5). */
static void test_sides_cmd_one_file(void **state)
{
	(void)state;
	struct pb_results_file f[4];
	for (int i = 0; i < 4; i++) {
		json_t *d = doc_new();
		double base = i < 2 ? 100 : 130;
		double *v = spread(base + i % 2, 0.0001, 11);
		add_case(d, mem_key("k", 64), "tsc_ticks", v, 11);
		free(v);
		if (i % 2 == 0) {
			json_t *k = json_pack("{s:s, s:[s], s:b, s:n, s:[]}", "suite", "cmd",
			                      "argv", "/bin/true", "shell", 0, "cwd", "env");
			double *c = spread(i ? 637e3 : 1350e3, 0.01, 15);
			add_case(d, k, "ns", c, 15);
			free(c);
			v = spread(base, 0.0001, 11);
			add_case(d, mem_key("k", 256), "tsc_ticks", v, 11);
			free(v);
		}
		char name[32];
		snprintf(name, sizeof name, "c%d.json", i + 1);
		load_doc(d, name, &f[i]);
	}
	assert_int_equal(pb_results_name(f, 4), 0);
	const struct pb_results_file *sa[] = {&f[0], &f[1]}, *sb[] = {&f[2], &f[3]};
	struct pb_compare_result r, one;
	assert_int_equal(pb_compare_sides(sa, 2, sb, 2, 0.95, false, &r), 0);
	assert_int_equal(r.nrows, 3);
	const struct pb_compare_row *cmd = NULL, *m256 = NULL;
	for (size_t i = 0; i < r.nrows; i++) {
		if (pb_key_is_cmd(&r.rows[i].a->fields))
			cmd = &r.rows[i];
		else if (i && !r.rows[i].run_level)
			m256 = &r.rows[i];
	}
	assert_non_null(cmd);
	assert_non_null(m256);
	assert_false(cmd->one_run);
	assert_false(cmd->run_level);
	assert_int_equal(cmd->verdict, PB_VERDICT_DIFFERENT);
	assert_true(cmd->significant);
	assert_int_equal(cmd->runs_a, 15);
	assert_int_equal(cmd->runs_b, 15);
	/* as the OLD NEW form judges it */
	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, false, &one), 0);
	const struct pb_compare_row *cmd1 = NULL;
	for (size_t i = 0; i < one.nrows; i++)
		if (pb_key_is_cmd(&one.rows[i].a->fields))
			cmd1 = &one.rows[i];
	assert_non_null(cmd1);
	assert_int_equal(cmd->verdict, cmd1->verdict);
	assert_close(cmd->shift.estimate, cmd1->shift.estimate, 1e-12);
	assert_close(cmd->pct_lo, cmd1->pct_lo, 1e-9);
	assert_close(cmd->pct_hi, cmd1->pct_hi, 1e-9);
	assert_close(cmd->u.p, cmd1->u.p, 1e-12);
	pb_compare_result_free(&one);
	/* the mem case in one file a side: no verdict still */
	assert_true(m256->one_run);
	assert_int_equal(m256->verdict, PB_VERDICT_NONE);
	char *text = print_text(&r);
	squash(text);
	assert_contains(text, "/bin/true 1350 +-4% 637 +-4% -52.8% [-54.6, -51.0] 0.000");
	/* one one-run case (the mem one), not two */
	assert_contains(text, "note: 1 case with one run on a side");
	free(text);
	char *md = markdown_text(&r);
	size_t nv = count_substr(md, "no verdict (one run)");
	assert_int_equal(nv, 1);
	assert_int_equal(count_substr(md, "| /bin/true |"), 1);
	size_t at = (size_t)(strstr(md, "| /bin/true |") - md);
	md[at + strcspn(md + at, "\n")] = '\0';
	assert_contains(md + at, "| different |");
	free(md);
	json_t *j = pb_compare_json(&r);
	json_t *cases = json_object_get(j, "cases");
	bool seen = false;
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *c = json_array_get(cases, i);
		json_t *runs = json_object_get(c, "runs");
		if (!pb_results_key_is_cmd(json_object_get(c, "key")))
			continue;
		seen = true;
		assert_string_equal(json_string_value(json_object_get(c, "verdict")), "different");
		assert_string_equal(json_string_value(json_object_get(runs, "unit")), "process");
		assert_false(json_is_true(json_object_get(runs, "one_run")));
	}
	assert_true(seen);
	json_decref(j);
	pb_compare_result_free(&r);
	for (int i = 0; i < 4; i++)
		pb_results_file_free(&f[i]);
}

/* The legend names the method of every kind of row in the table, and the
 * Hodges-Lehmann interval's actual coverage when the ranks do not attain
 * the level exactly (issue 33, item 2); the '*' footnote says what the
 * delta of the rows it marks is (item 4). */
static void test_legend_methods(void **state)
{
	(void)state;
	struct pb_results_file f;
	load_ok("../format/cmd.json", &f);
	assert_int_equal(pb_results_name(&f, 1), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f, &f, 0.95, false, &r), 0);
	assert_true(r.nrows > 0);
	assert_false(r.rows[0].run_level || r.rows[0].one_run);
	char *text = print_text(&r);
	squash(text);
	assert_null(strstr(text, ", , at"));
	assert_contains(text, "delta: new/old - 1, the Hodges-Lehmann estimate (the median of "
	                      "all pairwise ratios) of the runs' times with its interval, p from "
	                      "the Mann-Whitney U test, at 95%");
	free(text);
	char *md = markdown_text(&r);
	assert_null(strstr(md, ", , at"));
	free(md);
	pb_compare_result_free(&r);
	pb_results_file_free(&f);
	/* one run a side, 12 samples: the interval covers more than 95% */
	struct pb_results_file g[2];
	for (int i = 0; i < 2; i++) {
		json_t *d = doc_new();
		double *v = spread(100 + 30 * i, 0.001, 12);
		add_case(d, mem_key("k", 64), "tsc_ticks", v, 12);
		free(v);
		load_doc(d, i ? "b.json" : "a.json", &g[i]);
	}
	assert_int_equal(pb_results_name(g, 2), 0);
	assert_int_equal(pb_compare_run(&g[0], &g[1], 0.95, false, &r), 0);
	assert_true(r.rows[0].shift.ci_valid);
	assert_true(fabs(r.rows[0].shift.coverage - 0.95) > 5e-4);
	char want[128];
	snprintf(want, sizeof want,
	         "at 95%% (the Hodges-Lehmann interval: %.1f%%, the nearest its "
	         "ranks attain)",
	         100 * r.rows[0].shift.coverage);
	text = print_text(&r);
	squash(text);
	assert_contains(text, want);
	free(text);
	pb_compare_result_free(&r);
	for (int i = 0; i < 2; i++)
		pb_results_file_free(&g[i]);
}

/* A GLIBC_TUNABLES line judged (include/primbench/glibc_effect.h): the
 * two sides as --vs-env joins them (each process a replicate), a row per
 * size the line changes, the verdict by the one margin, and its text. */
static void test_glibc_effect(void **state)
{
	(void)state;
	const double a[] = {100, 104, 96, 102, 98}, faster[] = {80, 83.2, 76.8, 81.6, 78.4},
	             slower[] = {110, 114.4, 105.6, 112.2, 107.8},
	             tight_a[] = {100, 100.1, 99.9, 100.05, 99.95},
	             tight_b[] = {100.02, 99.92, 100.08, 99.98, 100.03},
	             wild[] = {80, 130, 95, 120, 70};
	json_t *da = doc_new(), *db = doc_new();
	add_replicated(da, mem_key("libc", 2896), a, 5, 21);
	add_replicated(db, mem_key("libc", 2896), faster, 5, 21);
	add_replicated(da, mem_key("libc", 4096), tight_a, 5, 21);
	add_replicated(db, mem_key("libc", 4096), tight_b, 5, 21);
	add_replicated(da, mem_key("libc", 8192), a, 5, 21);
	add_replicated(db, mem_key("libc", 8192), wild, 5, 21);
	add_replicated(da, mem_key("libc", 12288), a, 5, 21);
	add_replicated(db, mem_key("libc", 12288), slower, 5, 21);
	struct pb_results_file f[2];
	load_doc(da, "a.json", &f[0]);
	load_doc(db, "b.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	pb_compare_set_margin(&r, 0.01);
	const struct pb_glibc_point pts[] = {{2896, -0.19, "avx512"},
	                                     {4096, -0.08, "avx512"},
	                                     {8192, NAN, NULL},
	                                     {12288, -0.02, "avx512"},
	                                     {16384, -0.01, "avx512"}};
	struct pb_glibc_effect_row rows[5];
	assert_int_equal(pb_glibc_effect(&r, pts, 5, rows), 5);
	assert_true(rows[0].measured && rows[0].run_level);
	assert_string_equal(rows[0].word, "faster");
	assert_close(rows[0].pct, -20, 0.5);
	assert_true(rows[0].pct_lo < -20 && rows[0].pct_hi > -20 && rows[0].pct_hi < 0);
	assert_string_equal(rows[1].word, "same"); /* within +-1% */
	assert_string_equal(rows[2].word, "unclear");
	assert_string_equal(rows[3].word, "slower");
	assert_false(rows[4].measured);
	assert_string_equal(rows[4].word, "missing");
	assert_string_equal(pb_glibc_effect_word(PB_VERDICT_DIFFERENT, -3), "faster");
	assert_string_equal(pb_glibc_effect_word(PB_VERDICT_NONE, -30), "unclear");

	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	pb_glibc_effect_print(m, "memset hot, libc without and with the line", rows, 5, 0.01);
	fclose(m);
	assert_contains(buf, "memset hot, libc without and with the line\n");
	assert_contains(buf, "  2896 ");
	assert_contains(buf, " faster  -19% avx512\n");
	assert_contains(buf, " missing -1% avx512\n");
	assert_contains(
	    buf, "with the line: faster at 1 size, slower at 1, the same (within +-1%) at 1,\n"
	         "  unclear at 1.");
	assert_contains(buf, "(TSC ticks)");
	for (char *l = buf; *l;) {
		size_t n = strcspn(l, "\n");
		if (n > 80)
			fail_msg("a line of %zu columns: %.*s", n, (int)n, l);
		l += n + (l[n] == '\n');
	}
	free(buf);

	/* the JSON the default run keeps in its summary prints the same */
	char *direct = NULL, *again = NULL;
	m = open_memstream(&direct, &len);
	pb_glibc_effect_print_check(m, "memset", "hot", 5, "ABBAABBAAB", rows, 5, 0.01);
	fclose(m);
	struct pb_glibc_check check, *kept = NULL;
	size_t nkept = 0;
	pb_glibc_effect_check_make("memset", "hot", "GLIBC_TUNABLES=x", 5, 5, "ABBAABBAAB", 0.01,
	                           rows, 5, &check);
	json_t *j = pb_results_glibc_check_json(&check);
	char *jt = json_dumps(j, 0);
	json_decref(j);
	json_error_t err;
	j = json_loads(jt, 0, &err); /* NaN went out as null */
	assert_non_null(j);
	free(jt);
	json_t *arr = json_array();
	json_array_append(arr, j);
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), 0);
	assert_int_equal(nkept, 1);
	m = open_memstream(&again, &len);
	pb_glibc_effect_print_stored(m, &kept[0]);
	fclose(m);
	free(kept);
	assert_string_equal(direct, again);
	assert_contains(direct, "memset hot, libc without and with the line, measured: 5 fresh");
	assert_contains(direct, "2896,4096,8192,12288,16384");
	json_object_del(j, "order");
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), -1);
	assert_non_null(strstr(pb_error(), "measured[0].order: not a sequence of A and B"));
	json_decref(j);
	json_decref(arr);
	/* a file's checks: one bad field, named */
	arr = json_array();
	pb_glibc_effect_check_make("memset", "hot", "GLIBC_TUNABLES=x", 5, 5, "ABBA", 0.01, rows, 5,
	                           &check);
	j = pb_results_glibc_check_json(&check);
	json_array_append(arr, j);
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), 0);
	free(kept);
	json_object_set_new(json_array_get(json_object_get(j, "rows"), 2), "pct", json_real(1e308));
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), -1);
	assert_string_equal(pb_error(), "summary.glibc.measured[0].rows[2].pct: out of range");
	json_object_set_new(json_array_get(json_object_get(j, "rows"), 2), "pct", json_null());
	json_object_set_new(j, "env", json_string("GLIBC_TUNABLES=x\n\x1b[31m"));
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), -1);
	assert_non_null(strstr(pb_error(), "env: not a GLIBC_TUNABLES= line"));
	json_object_set_new(j, "env", json_string("GLIBC_TUNABLES=x"));
	json_object_set_new(json_array_get(json_object_get(j, "rows"), 0), "word",
	                    json_string("abc"));
	assert_int_equal(pb_results_glibc_checks_from_json(arr, &kept, &nkept), -1);
	assert_non_null(strstr(pb_error(), "rows[0].word: not one of"));
	json_decref(j);
	json_decref(arr);
	assert_int_equal(pb_results_glibc_checks_from_json(json_object_get(j = json_object(), "x"),
	                                                   &kept, &nkept),
	                 -1);
	json_decref(j);
	free(direct);
	free(again);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

int main(void)
{
	/* into tests/data/compare, found from this file's path (CMake compiles
	 * with absolute source paths) */
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/compare", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_glibc_effect),
	    cmocka_unit_test(test_load_real_files),
	    cmocka_unit_test(test_infinite_percent),
	    cmocka_unit_test(test_bad_input),
	    cmocka_unit_test(test_matching_and_case_sets),
	    cmocka_unit_test(test_hardware_refused),
	    cmocka_unit_test(test_software_differs),
	    cmocka_unit_test(test_tilde_rule),
	    cmocka_unit_test(test_geomean),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_thinning),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_cmd_names),
	    cmocka_unit_test(test_width),
	    cmocka_unit_test(test_medians_outside),
	    cmocka_unit_test(test_nothing_in_both),
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_output_is_input),
	    cmocka_unit_test(test_threads_keys),
	    cmocka_unit_test(test_replicates_v2),
	    cmocka_unit_test(test_sides),
	    cmocka_unit_test(test_sides_union),
	    cmocka_unit_test(test_sides_cmd_one_file),
	    cmocka_unit_test(test_legend_methods),
	    cmocka_unit_test(test_margin),
	    cmocka_unit_test(test_markdown_csv),
	    cmocka_unit_test(test_html),
	    cmocka_unit_test(test_format_cli),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
