/* test_ci_formats.c - the formats CI trackers read (bmf, gbench, action;
 * include/primbench/format.h, docs/formats.md), the C side: names from
 * keys (pb_format_ci_name: each suite's rule, defaults left out, '/' and
 * '%' encoded), names that need JSON escaping read back through jansson
 * as they were made, a case without an interval written without bounds,
 * a median that is missing computed from the samples, a unit that does
 * not convert to ns kept (gbench: the case left out), and two keys that
 * name alike kept apart. The fixtures' outputs against the documented
 * JSON Schemas: tests/format/ci_formats.py. Fixture: tests/data/format/
 * syscall.json (2 cases, tsc_ticks, machine.timer.hz). */
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
#include <unistd.h>

#include <jansson.h>

#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/reader.h"

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

/* The output of f in fmt, parsed (it must be JSON). */
static json_t *output(const struct pb_results_file *f, enum pb_format fmt)
{
	char *text = render(f, fmt);
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);
	if (!j)
		fail_msg("%s: not JSON: %s (line %d)\n%s", pb_format_name(fmt), err.text, err.line,
		         text);
	free(text);
	return j;
}

static json_t *fixture(void)
{
	json_error_t err;
	json_t *doc = json_load_file("syscall.json", 0, &err);
	assert_non_null(doc);
	return doc;
}

static void load_doc(json_t *doc, struct pb_results_file *f)
{
	char *t = json_dumps(doc, JSON_COMPACT);
	assert_non_null(t);
	if (pb_results_load_text(t, strlen(t), "edited.json", f) != 0)
		fail_msg("edited.json: %s", pb_error());
	free(t);
	json_decref(doc);
}

static json_t *case_at(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "cases"), i);
}

static void test_parse(void **state)
{
	(void)state;
	enum pb_format fmt;
	assert_int_equal(pb_format_parse("bmf", &fmt), 0);
	assert_int_equal(fmt, PB_FORMAT_BMF);
	assert_int_equal(pb_format_parse("gbench", &fmt), 0);
	assert_int_equal(fmt, PB_FORMAT_GBENCH);
	assert_int_equal(pb_format_parse("action", &fmt), 0);
	assert_int_equal(fmt, PB_FORMAT_ACTION);
	assert_string_equal(pb_format_name(PB_FORMAT_GBENCH), "gbench");
	assert_int_equal(pb_format_parse("BMF", &fmt), -1);
	assert_non_null(strstr(pb_error(), "bmf, gbench, action"));
}

/* The name of a key given as JSON text. */
static char *name_of(const char *key_json)
{
	char *doc = NULL;
	int n = asprintf(&doc,
	                 "{\"schema\": \"primbench-result\", \"schema_version\": 2, \"machine\": "
	                 "{}, \"cases\": [{\"key\": %s, \"unit\": \"ns\", \"samples\": [[1, 1]]}]}",
	                 key_json);
	assert_true(n > 0);
	struct pb_results_file f;
	if (pb_results_load_text(doc, strlen(doc), "key.json", &f) != 0)
		fail_msg("%s: %s", key_json, pb_error());
	free(doc);
	char *name = pb_format_ci_name(&f.cases[0].fields);
	pb_results_file_free(&f);
	return name;
}

static void test_names(void **state)
{
	(void)state;
	static const struct {
		const char *key, *name;
	} cases[] = {
	    /* mem: the defaults left out, whatever the fields' order */
	    {"{\"suite\": \"mem\", \"op\": \"memset\", \"kernel\": \"libc\", \"size_bytes\": 4096, "
	     "\"dst_offset_bytes\": 0, \"src_offset_bytes\": null, \"distance_bytes\": null, "
	     "\"extent_bytes\": 0, \"cache_state\": \"hot\", \"page_bytes\": 4096, \"fill_value\": "
	     "0, \"then_read\": false}",
	     "memset/libc/4096/hot"},
	    {"{\"then_read\": true, \"cache_state\": \"dram\", \"size_bytes\": 64, \"kernel\": "
	     "\"avx2\", \"op\": \"memcpy\", \"suite\": \"mem\", \"src_offset_bytes\": 2048, "
	     "\"dst_offset_bytes\": 1, \"threads\": 2, \"placement\": \"compact\", \"mem_node\": "
	     "\"local\"}",
	     "memcpy/avx2/64/dram/dst_offset_bytes=1/placement=compact/then_read=true/threads=2"},
	    /* a replay: its distribution where the size would be */
	    {"{\"suite\": \"mem\", \"op\": \"memcpy\", \"kernel\": \"auto\", \"size_bytes\": null, "
	     "\"cache_state\": \"hot\", \"distribution\": \"MemcpyGoogleA\", \"offsets\": "
	     "\"random\", \"seed\": 1, \"batch_calls\": 4096}",
	     "memcpy/auto/MemcpyGoogleA/hot/batch_calls=4096"},
	    {"{\"suite\": \"syscall\", \"benchmark\": \"fault\", \"placement\": \"cpu 1\", "
	     "\"page_bytes\": 2097152}",
	     "syscall/fault/page_bytes=2097152/placement=cpu"},
	    /* the CPU a run chose is not part of the case: pipe-rtt keeps same/other */
	    {"{\"suite\": \"syscall\", \"benchmark\": \"pipe-rtt\", \"placement\": \"same cpu 3\"}",
	     "syscall/pipe-rtt/placement=same cpu"},
	    {"{\"suite\": \"syscall\", \"benchmark\": \"pipe-rtt\", \"placement\": \"cpus 0,1\"}",
	     "syscall/pipe-rtt/placement=cpus"},
	    {"{\"suite\": \"syscall\", \"benchmark\": \"null\", \"placement\": \"unpinned\"}",
	     "syscall/null/placement=unpinned"},
	    {"{\"suite\": \"xsave\", \"instruction\": \"xsaveopt\", \"upper_state\": \"dirty\"}",
	     "xsave/xsaveopt/dirty"},
	    /* '/' and '%' of a value encoded; an empty env left out */
	    {"{\"suite\": \"cmd\", \"argv\": [\"/bin/true\", \"100%\"], \"shell\": false, \"cwd\": "
	     "null, \"env\": [], \"side\": \"A\"}",
	     "cmd/A/%2Fbin%2Ftrue 100%25"},
	    {"{\"suite\": \"cmd\", \"argv\": [\"/bin/sh\", \"-c\", \"make -j2\"], \"shell\": true, "
	     "\"cwd\": \"/tmp\", \"env\": [\"A=1\", \"B=2\"], \"side\": \"B\"}",
	     "cmd/B/sh: make -j2/cwd=%2Ftmp/env=A=1 B=2/shell=true"},
	    {"{\"suite\": \"latency\", \"size_bytes\": 8388608, \"load_threads\": 1, "
	     "\"load_kernel\": \"memcpy/libc\"}",
	     "latency/8388608/load_kernel=memcpy%2Flibc/load_threads=1"},
	    {"{\"suite\": \"map\", \"fault\": \"demand\", \"page_bytes\": 4096, \"page_source\": "
	     "\"4K\", \"threads\": 1, \"region_bytes\": 8388608}",
	     "map/demand/4K/page_bytes=4096/region_bytes=8388608/threads=1"},
	    /* a suite without a rule: every field; a real in its exact text */
	    {"{\"suite\": \"future\", \"b\": 0.5, \"a\": \"x\\ny\"}", "future/a=x%0Ay/b=0.5"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *name = name_of(cases[i].key);
		if (strcmp(name, cases[i].name))
			fail_msg("%s\n  named '%s'\n  expected '%s'", cases[i].key, name,
			         cases[i].name);
		free(name);
	}
}

/* A name that JSON must escape (a quote, a backslash, a tab, a control
 * character, non-ASCII text) reads back as it was made, in every format;
 * the values are the median in ns and its interval. */
static void test_escaping(void **state)
{
	(void)state;
	json_t *doc = fixture();
	const char *bench = "say \"hi\"\\ \t\x01 caf\xc3\xa9";
	json_object_set_new(json_object_get(case_at(doc, 0), "key"), "benchmark",
	                    json_string(bench));
	struct pb_results_file f;
	load_doc(doc, &f);
	char *expect = pb_format_ci_name(&f.cases[0].fields);
	/* the tab and \x01 percent-encoded in the name, the rest as it is */
	assert_string_equal(expect, "syscall/say \"hi\"\\ %09%01 caf\xc3\xa9/placement=cpu");
	double hz = pb_facts_num(&f.mach.facts, "timer.hz");
	double med = pb_facts_num(&f.cases[0].facts, "per_call.median") / hz * 1e9;
	double lo = pb_facts_num(&f.cases[0].facts, "per_call.ci_lo") / hz * 1e9;
	double hi = pb_facts_num(&f.cases[0].facts, "per_call.ci_hi") / hz * 1e9;

	json_t *bmf = output(&f, PB_FORMAT_BMF);
	json_t *lat = json_object_get(json_object_get(bmf, expect), "latency");
	assert_non_null(lat);
	assert_float_equal(json_number_value(json_object_get(lat, "value")), med, med * 1e-15);
	assert_float_equal(json_number_value(json_object_get(lat, "lower_value")), lo, lo * 1e-15);
	assert_float_equal(json_number_value(json_object_get(lat, "upper_value")), hi, hi * 1e-15);
	assert_null(json_object_get(json_object_get(bmf, expect), "throughput")); /* not mem */
	json_decref(bmf);

	json_t *gb = output(&f, PB_FORMAT_GBENCH);
	json_t *b0 = json_array_get(json_object_get(gb, "benchmarks"), 0);
	assert_string_equal(json_string_value(json_object_get(b0, "name")), expect);
	assert_string_equal(json_string_value(json_object_get(b0, "time_unit")), "ns");
	assert_float_equal(json_number_value(json_object_get(b0, "real_time")), med, med * 1e-15);
	assert_true(json_is_array(json_object_get(json_object_get(gb, "context"), "caches")));
	json_decref(gb);

	json_t *act = output(&f, PB_FORMAT_ACTION);
	json_t *a0 = json_array_get(act, 0);
	assert_string_equal(json_string_value(json_object_get(a0, "name")), expect);
	assert_string_equal(json_string_value(json_object_get(a0, "unit")), "ns");
	const char *range = json_string_value(json_object_get(a0, "range"));
	assert_non_null(range);
	assert_memory_equal(range, "\xc2\xb1 ", 3);
	assert_float_equal(strtod(range + 3, NULL), fmax(med - lo, hi - med),
	                   fmax(med - lo, hi - med) * 1e-5);
	assert_non_null(strstr(json_string_value(json_object_get(a0, "extra")), "95% CI: "));
	json_decref(act);
	free(expect);
	pb_results_file_free(&f);
}

/* A case without an interval (fewer than 6 samples: ci_lo, ci_hi null)
 * has no bounds; a median that is missing is computed from the samples
 * (NaN is never written). */
static void test_no_ci(void **state)
{
	(void)state;
	json_t *doc = fixture();
	json_t *pc = json_object_get(case_at(doc, 0), "per_call");
	json_object_set_new(pc, "ci_lo", json_null());
	json_object_set_new(pc, "ci_hi", json_null());
	/* case 1: no per_call at all */
	json_object_del(case_at(doc, 1), "per_call");
	struct pb_results_file f;
	load_doc(doc, &f);
	char *n0 = pb_format_ci_name(&f.cases[0].fields),
	     *n1 = pb_format_ci_name(&f.cases[1].fields);

	json_t *bmf = output(&f, PB_FORMAT_BMF);
	json_t *lat = json_object_get(json_object_get(bmf, n0), "latency");
	assert_true(json_is_number(json_object_get(lat, "value")));
	assert_null(json_object_get(lat, "lower_value"));
	assert_null(json_object_get(lat, "upper_value"));
	json_t *lat1 = json_object_get(json_object_get(bmf, n1), "latency");
	double v1 = json_number_value(json_object_get(lat1, "value"));
	assert_true(isfinite(v1) && v1 > 0);
	json_decref(bmf);

	json_t *gb = output(&f, PB_FORMAT_GBENCH);
	json_t *b0 = json_array_get(json_object_get(gb, "benchmarks"), 0);
	assert_null(json_object_get(b0, "ci_lo"));
	assert_null(json_object_get(b0, "ci_hi"));
	json_decref(gb);

	json_t *act = output(&f, PB_FORMAT_ACTION);
	assert_null(json_object_get(json_array_get(act, 0), "range"));
	assert_non_null(
	    strstr(json_string_value(json_object_get(json_array_get(act, 0), "extra")), "no CI"));
	json_decref(act);
	free(n0);
	free(n1);
	pb_results_file_free(&f);
}

/* Without machine.timer.hz ticks do not convert: bmf's measure is the
 * unit's slug, action keeps the unit, gbench leaves the cases out (its
 * times are times). */
static void test_no_ns(void **state)
{
	(void)state;
	json_t *doc = fixture();
	json_object_del(json_object_get(json_object_get(doc, "machine"), "timer"), "hz");
	struct pb_results_file f;
	load_doc(doc, &f);
	char *n0 = pb_format_ci_name(&f.cases[0].fields);
	double med = pb_facts_num(&f.cases[0].facts, "per_call.median");

	json_t *bmf = output(&f, PB_FORMAT_BMF);
	json_t *m = json_object_get(json_object_get(bmf, n0), "tsc-ticks");
	assert_non_null(m);
	assert_float_equal(json_number_value(json_object_get(m, "value")), med, 0);
	assert_null(json_object_get(json_object_get(bmf, n0), "latency"));
	json_decref(bmf);

	json_t *gb = output(&f, PB_FORMAT_GBENCH);
	assert_int_equal(json_array_size(json_object_get(gb, "benchmarks")), 0);
	assert_null(json_object_get(json_object_get(gb, "context"), "mhz_per_cpu"));
	json_decref(gb);

	json_t *act = output(&f, PB_FORMAT_ACTION);
	assert_string_equal(json_string_value(json_object_get(json_array_get(act, 0), "unit")),
	                    "tsc_ticks");
	json_decref(act);
	free(n0);
	pb_results_file_free(&f);
}

/* Two keys that differ only by a null field name alike: the later gets
 * "/#I" (its position in the file), so every name is unique. */
static void test_unique(void **state)
{
	(void)state;
	json_t *doc = fixture();
	json_object_set_new(json_object_get(case_at(doc, 1), "key"), "benchmark",
	                    json_string("null"));
	json_object_set_new(json_object_get(case_at(doc, 1), "key"), "page_bytes",
	                    json_string("")); /* an empty string is left out, as null is */
	struct pb_results_file f;
	load_doc(doc, &f);
	json_t *bmf = output(&f, PB_FORMAT_BMF);
	assert_int_equal(json_object_size(bmf), 2);
	assert_non_null(json_object_get(bmf, "syscall/null/placement=cpu"));
	assert_non_null(json_object_get(bmf, "syscall/null/placement=cpu/#2"));
	json_decref(bmf);
	pb_results_file_free(&f);
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
	    cmocka_unit_test(test_parse),    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_escaping), cmocka_unit_test(test_no_ci),
	    cmocka_unit_test(test_no_ns),    cmocka_unit_test(test_unique),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
