/* test_summary.c - the default run's summary (include/primbench/summary.h)
 * says what recorded runs support and nothing more. Fixtures:
 * tests/data/summary/ (README.md there: a real default run of this
 * project's machine, trimmed, where libc loses at large sizes; a copy
 * edited so libc is within the noise everywhere; one edited to be too
 * noisy to conclude). Every claim is checked against its ratio interval
 * by pb_verdict's rule with PB_EQUIVALENCE (twosample.h). */
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

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/summary.h"
#include "primbench/twosample.h"
#include "results/results_json.h"

/* The summaries built, each beside its JSON as the result file has it
 * (pb_results_summary_json): the tests read the JSON, print the record. */
static struct {
	json_t *json;
	struct pb_summary_report *report;
} built[4];

/* The JSON of summary r (NULL: NULL), kept beside r until drop(). */
static json_t *as_json(struct pb_summary_report *r)
{
	if (!r)
		return NULL;
	json_t *j = pb_results_summary_json(r);
	assert_non_null(j);
	for (size_t i = 0; i < sizeof built / sizeof *built; i++)
		if (!built[i].json) {
			built[i].json = j;
			built[i].report = r;
			return j;
		}
	fail_msg("more than 4 summaries at once");
	return NULL;
}

static const struct pb_summary_report *report_of(const json_t *s)
{
	for (size_t i = 0; i < sizeof built / sizeof *built; i++)
		if (built[i].json == s)
			return built[i].report;
	fail_msg("not a summary built here");
	return NULL;
}

static void drop(json_t *s)
{
	for (size_t i = 0; i < sizeof built / sizeof *built; i++)
		if (built[i].json == s) {
			pb_summary_report_free(built[i].report);
			built[i].json = NULL;
			built[i].report = NULL;
		}
	json_decref(s);
}

static json_t *build_doc(json_t *doc)
{
	struct pb_results_doc *d = pb_results_doc_adopt(json_incref(doc));
	assert_non_null(d);
	json_t *s = as_json(pb_summary_build_doc(d));
	pb_results_doc_free(d);
	return s;
}

static json_t *load_summary(const char *name, struct pb_results_file *f)
{
	if (pb_results_load(name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
	json_t *s = as_json(pb_summary_build(f));
	if (!s)
		fail_msg("%s: %s", name, pb_error());
	return s;
}

/* The fixture `name` as a JSON document, to edit before loading it
 * (load_doc): the reader types a file once, when it loads it. */
static json_t *fixture_doc(const char *name)
{
	json_error_t err;
	json_t *d = json_load_file(name, 0, &err);
	if (!d)
		fail_msg("%s: %s", name, err.text);
	return d;
}

/* The document d loaded into f, as pb_results_load loads a file. */
static void load_doc(const json_t *d, const char *name, struct pb_results_file *f)
{
	char *t = json_dumps(d, JSON_COMPACT);
	assert_non_null(t);
	if (pb_results_load_text(t, strlen(t), name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
	free(t);
}

static char *printed(const json_t *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	pb_summary_print(m, report_of(s));
	assert_int_equal(fclose(m), 0);
	return text;
}

/* The paragraphs, unwrapped, one a line. */
static char *joined(const json_t *s)
{
	char *text = NULL;
	size_t len = 0, i;
	const json_t *p;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	json_array_foreach(json_object_get(s, "text"), i, p)
	    fprintf(m, "%s\n", json_string_value(p));
	assert_int_equal(fclose(m), 0);
	return text;
}

/* Every printed line fits in 80 columns. */
static void check_width(const char *text)
{
	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		if (n > 80)
			fail_msg("line over 80 columns: %.*s", (int)n, l);
		l += n + (e != NULL);
	}
}

static double at(const json_t *triple, size_t i)
{
	return json_number_value(json_array_get(triple, i));
}

/* Each libc verdict follows from its figures, by the stated rules. */
static size_t check_libc(const json_t *s, const char *want_only, size_t *behind)
{
	const json_t *arr = json_object_get(s, "libc");
	size_t i, n = 0;
	const json_t *x;
	*behind = 0;
	json_array_foreach(arr, i, x)
	{
		const char *v = json_string_value(json_object_get(x, "verdict"));
		const json_t *l = json_object_get(x, "libc_ticks");
		const json_t *b = json_object_get(x, "fastest_ticks");
		assert_non_null(v);
		assert_non_null(l);
		assert_non_null(b);
		const json_t *ci = json_object_get(x, "ratio_ci");
		double r = json_number_value(json_object_get(x, "ratio")), lo = at(ci, 0),
		       hi = at(ci, 1), m = pb_equivalence();
		if (!strcmp(v, "behind")) {
			(*behind)++;
			assert_true(lo > 1 && r > 1 + m);
			assert_true(json_number_value(json_object_get(x, "ratio_least")) > 1);
		} else if (!strcmp(v, "ahead")) {
			assert_true(hi < 1 && r < 1 - m);
		} else if (!strcmp(v, "within_noise")) {
			assert_true(lo >= 1 - m && hi <= 1 + m);
		} else {
			assert_string_equal(v, "cannot_tell");
			/* neither inside the margin nor a difference beyond it */
			assert_false(lo >= 1 - m && hi <= 1 + m);
			assert_false((lo > 1 && r > 1 + m) || (hi < 1 && r < 1 - m));
		}
		if (want_only)
			assert_string_equal(v, want_only);
		/* never a kernel that runs another kernel's code at this size
		 * (every base kernel is measured in these fixtures) */
		enum pb_op op;
		assert_int_equal(pb_op_parse(json_string_value(json_object_get(x, "op")), &op), 0);
		const struct pb_kernel *k =
		    pb_kernel_find(op, json_string_value(json_object_get(x, "fastest_other")));
		assert_non_null(k);
		assert_ptr_equal(pb_kernel_code_at(k, (size_t)json_integer_value(
		                                          json_object_get(x, "size_bytes"))),
		                 k);
		n++;
	}
	return n;
}

/* glibc threshold verdicts agree with the sizes they give. */
static void check_thresholds(const json_t *s)
{
	const json_t *arr = json_object_get(json_object_get(s, "glibc"), "thresholds");
	size_t i;
	const json_t *x;
	assert_true(json_array_size(arr) > 0);
	json_array_foreach(arr, i, x)
	{
		const char *v = json_string_value(json_object_get(x, "verdict"));
		json_int_t t = json_integer_value(json_object_get(x, "threshold_bytes"));
		const json_t *lo = json_object_get(x, "lower_faster_up_to_bytes");
		const json_t *hi = json_object_get(x, "upper_faster_from_bytes");
		assert_non_null(v);
		if (!strcmp(v, "too_low"))
			assert_true(json_integer_value(lo) > t);
		else if (!strcmp(v, "too_high"))
			assert_true(json_is_integer(hi) && json_integer_value(hi) <= t);
		else if (!strcmp(v, "unresolved"))
			assert_true(json_is_null(lo) && json_is_null(hi));
		else if (!strcmp(v, "consistent") || !strcmp(v, "outside_sizes"))
			assert_true((!json_is_integer(lo) || json_integer_value(lo) <= t) &&
			            (!json_is_integer(hi) || json_integer_value(hi) > t));
	}
}

static const json_t *find_libc(const json_t *s, const char *op, const char *st, json_int_t size)
{
	size_t i;
	const json_t *x;
	json_array_foreach(json_object_get(s, "libc"), i, x)
	{
		if (!strcmp(json_string_value(json_object_get(x, "op")), op) &&
		    !strcmp(json_string_value(json_object_get(x, "cache_state")), st) &&
		    json_integer_value(json_object_get(x, "size_bytes")) == size)
			return x;
	}
	return NULL;
}

static bool trust_flag(const json_t *s, const char *k)
{
	return json_is_true(json_object_get(json_object_get(s, "trust"), k));
}

/* The fixtures are x86-64 results: the verdicts look up their kernels
 * (which runs whose code at a size) and glibc's x86 tunables. In a build
 * without those kernels (another ISA, or -DPRIMBENCH_ARCH=none) there is
 * nothing to compare them with. */
static void need_x86_kernels(void)
{
	if (!pb_kernel_find(PB_OP_MEMSET, "avx2") || !pb_kernel_find(PB_OP_MEMCPY, "rep_movsb")) {
		print_message("the fixtures' kernels are x86-64's, not in this build\n");
		skip();
	}
}

static void test_within_noise(void **state)
{
	(void)state;
	need_x86_kernels();
	struct pb_results_file f;
	json_t *s = load_summary("within-noise.json", &f);
	size_t behind;
	/* libc has the fastest kernel's samples: never behind or ahead; within
	 * the margin wherever the interval is narrow enough (at 64 B in dram
	 * its samples spread so that it reaches x1.01: cannot tell) */
	assert_int_equal(check_libc(s, NULL, &behind), 12);
	assert_int_equal(behind, 0);
	check_thresholds(s);
	char *t = printed(s);
	check_width(t);
	free(t);
	t = joined(s);
	assert_non_null(strstr(t, "within the noise of the fastest kernel at 10 of 12 points"));
	assert_non_null(strstr(t, "ahead at 0, behind at 0, cannot tell at 2."));
	static const char *const lines[] = {"memset hot", "memcpy hot"};
	for (size_t k = 0; k < 2; k++) {
		char want[96];
		snprintf(want, sizeof want, "\n  %s: within the noise at 64, 4K, 1M.\n", lines[k]);
		assert_non_null(strstr(t, want));
	}
	assert_null(strstr(t, "Too noisy"));
	assert_false(trust_flag(s, "too_noisy_to_conclude"));
	/* libc is the kernel of every policy: glibc's thresholds need no move */
	size_t i;
	const json_t *p;
	json_array_foreach(json_object_get(json_object_get(s, "glibc"), "policies"), i, p)
	    assert_true(json_is_true(json_object_get(p, "current_is_closest")));
	assert_null(strstr(t, "GLIBC_TUNABLES="));
	/* a v1 file: sse2_nt and avx2_nt ran sse2's and avx2's code at
	 * 64 B, 4K and 1M (revision 1, issue 30); they stream now, so their
	 * 12 cases are left out of the policies, and the text says so */
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(s, "glibc"), "cases_other_code")),
	    12);
	assert_non_null(strstr(t, "12 cases left out of these policies: their kernel ran other "
	                          "code at their size than this build's row runs there"));
	free(t);
	drop(s);
	pb_results_file_free(&f);
}

static void test_loses_large(void **state)
{
	(void)state;
	need_x86_kernels();
	struct pb_results_file f;
	json_t *s = load_summary("loses-large.json", &f);
	size_t behind;
	assert_int_equal(check_libc(s, NULL, &behind), 12);
	assert_true(behind > 0);
	check_thresholds(s);
	const json_t *x = find_libc(s, "memset", "dram", 1 << 20);
	assert_non_null(x);
	assert_string_equal(json_string_value(json_object_get(x, "verdict")), "behind");
	assert_string_equal(json_string_value(json_object_get(x, "fastest_other")), "clzero");
	x = find_libc(s, "memcpy", "dram", 1 << 20);
	assert_non_null(x);
	assert_string_equal(json_string_value(json_object_get(x, "verdict")), "behind");
	char *t = printed(s);
	check_width(t);
	free(t);
	t = joined(s);
	assert_non_null(strstr(t, "1M (clzero x"));
	assert_non_null(strstr(t, "Its largest deficit: memset dram 1M, where clzero is x"));
	assert_null(strstr(t, "Too noisy"));
	assert_false(trust_flag(s, "too_noisy_to_conclude"));
	/* the machine was busy during the real run: said, not hidden */
	assert_true(trust_flag(s, "high_noise"));
	assert_non_null(strstr(t, "HIGH"));
	/* kernel crossings: every syscall case, and the fault beside memset */
	assert_int_equal(json_array_size(json_object_get(s, "crossings")), 9);
	assert_non_null(strstr(t, "A page fault on a 4 KiB page ("));
	/* the policy that moves glibc's thresholds, as --breakeven prints it */
	assert_non_null(strstr(t, "GLIBC_TUNABLES=glibc.cpu.x86_rep_"));
	/* the policies are judged on the cases' samples, as --breakeven
	 * judges them: clzero's clear lead from 1M on in dram is a band of its
	 * own (without the samples every policy was one band), and each band
	 * has its list of kernels it cannot be told from */
	size_t i;
	const json_t *p, *dram = NULL;
	json_array_foreach(json_object_get(json_object_get(s, "glibc"), "policies"), i, p)
	{
		const json_t *peers = json_object_get(p, "policy_peers");
		assert_true(json_is_array(peers));
		assert_int_equal(json_array_size(peers),
		                 json_integer_value(json_object_get(p, "switches")) + 1);
		if (!strcmp(json_string_value(json_object_get(p, "op")), "memset") &&
		    !strcmp(json_string_value(json_object_get(p, "cache_state")), "dram"))
			dram = p;
	}
	assert_non_null(dram);
	assert_true(json_integer_value(json_object_get(dram, "switches")) >= 1);
	const char *pol = json_string_value(json_object_get(dram, "policy"));
	assert_non_null(strstr(pol, ",clzero"));
	assert_non_null(strstr(t, "cannot be told apart from the band's kernel"));
	free(t);
	drop(s);
	pb_results_file_free(&f);
}

/* The one margin, set (--equivalence): every verdict of the summary and
 * its texts follow it; a bad one is refused and leaves it as it was. */
static void test_margin(void **state)
{
	(void)state;
	need_x86_kernels();
	assert_int_equal(pb_equivalence_set(0.5), -1);
	assert_int_equal(pb_equivalence_set(-0.01), -1);
	assert_true(pb_equivalence() == PB_EQUIVALENCE);
	struct pb_results_file f;
	json_t *s = load_summary("loses-large.json", &f);
	size_t behind_1, behind_30;
	check_libc(s, NULL, &behind_1);
	drop(s);
	pb_results_file_free(&f);
	assert_int_equal(pb_equivalence_set(0.30), 0);
	s = load_summary("loses-large.json", &f);
	check_libc(s, NULL, &behind_30);
	assert_true(json_real_value(json_object_get(json_object_get(s, "rules"), "margin")) ==
	            0.30);
	/* behind now needs the ratio beyond x1.30 */
	size_t i;
	const json_t *x;
	json_array_foreach(json_object_get(s, "libc"), i, x)
	{
		if (!strcmp(json_string_value(json_object_get(x, "verdict")), "behind"))
			assert_true(json_real_value(json_object_get(x, "ratio")) > 1.30);
	}
	assert_true(behind_30 < behind_1);
	char *t = joined(s);
	assert_non_null(strstr(t, "a margin of +-30%"));
	assert_null(strstr(t, "+-1%"));
	free(t);
	drop(s);
	pb_results_file_free(&f);
	assert_int_equal(pb_equivalence_set(PB_EQUIVALENCE), 0);
}

/* A file with the run's own noise judgement (pb_noise_judge): the summary
 * says HIGH and why, whatever steal and the other CPUs were. */
static void test_noise_cause(void **state)
{
	(void)state;
	need_x86_kernels();
	struct pb_results_file f;
	json_t *doc = fixture_doc("within-noise.json");
	json_t *nz = json_object_get(doc, "noise");
	assert_non_null(nz);
	json_object_set_new(nz, "high", json_true());
	json_object_set_new(
	    nz, "high_cause",
	    json_string("the measuring thread waited 49.0% of the run for its CPU"));
	json_object_set_new(nz, "run_delay_pct", json_real(49.0));
	load_doc(doc, "within-noise.json", &f);
	json_t *s = as_json(pb_summary_build(&f));
	assert_non_null(s);
	assert_true(trust_flag(s, "high_noise"));
	char *t = joined(s);
	assert_non_null(strstr(t, "which waited for its CPU 49.0% of the run: HIGH"));
	assert_non_null(strstr(t, "HIGH because (the measuring thread waited 49.0% of the run for "
	                          "its CPU)."));
	free(t);
	drop(s);
	pb_results_file_free(&f);
	/* judged quiet by the run: no HIGH, though nothing else changed */
	json_object_set_new(nz, "high", json_false());
	load_doc(doc, "within-noise.json", &f);
	s = as_json(pb_summary_build(&f));
	t = joined(s);
	assert_null(strstr(t, "HIGH"));
	free(t);
	drop(s);
	pb_results_file_free(&f);
	json_decref(doc);
}

static void test_too_noisy(void **state)
{
	(void)state;
	need_x86_kernels();
	struct pb_results_file f;
	json_t *s = load_summary("too-noisy.json", &f);
	size_t behind;
	assert_int_equal(check_libc(s, NULL, &behind), 12);
	check_thresholds(s);
	const json_t *x;
	size_t i, within = 0, unsure = 0;
	json_array_foreach(json_object_get(s, "libc"), i, x)
	{
		const char *v = json_string_value(json_object_get(x, "verdict"));
		within += !strcmp(v, "within_noise");
		unsure += !strcmp(v, "cannot_tell");
	}
	assert_int_equal(within, 0);
	assert_true(2 * unsure >= 12);
	assert_true(trust_flag(s, "too_noisy_to_conclude"));
	assert_true(trust_flag(s, "high_noise"));
	char *t = printed(s);
	check_width(t);
	free(t);
	t = joined(s);
	/* said first, right under the title, and again with the noise */
	const char *first = strstr(t, "Too noisy to conclude");
	assert_non_null(first);
	assert_true(first < strstr(t, "libc against the fastest"));
	assert_non_null(strstr(first + 1, "Too noisy to conclude"));
	assert_non_null(strstr(t, "steal 12.0%"));
	/* no new glibc setting where libc was not shown to lose */
	assert_null(strstr(t, "GLIBC_TUNABLES="));
	assert_null(strstr(t, "within the noise at"));
	free(t);
	drop(s);
	pb_results_file_free(&f);
}

/* The run's summary (from its document) and report's (from the file) agree. */
static void test_doc_equals_file(void **state)
{
	(void)state;
	struct pb_results_file f;
	json_t *a = load_summary("loses-large.json", &f);
	json_t *b = build_doc(pb_results_file_json(&f));
	assert_non_null(b);
	assert_true(json_equal(a, b));
	assert_true(pb_summary_is_default_run(&f));
	drop(a);
	drop(b);
	pb_results_file_free(&f);
}

static void test_not_default_or_empty(void **state)
{
	(void)state;
	struct pb_results_file f;
	json_t *doc = fixture_doc("loses-large.json");
	json_t *cl = json_object_get(doc, "command_line");
	json_array_set_new(cl, 1, json_string("mem"));
	load_doc(doc, "loses-large.json", &f);
	assert_false(pb_summary_is_default_run(&f));
	pb_results_file_free(&f);
	json_array_clear(cl);
	json_array_append_new(cl, json_string("primbench"));
	load_doc(doc, "loses-large.json", &f);
	assert_true(pb_summary_is_default_run(&f));
	pb_results_file_free(&f);
	json_decref(doc);

	/* nothing to summarize: NULL with a message */
	static const char xs[] =
	    "{\"schema\":\"primbench-result\",\"schema_version\":1,\"machine\":{},"
	    "\"cases\":[{\"key\":{\"suite\":\"xsave\",\"instruction\":\"xsave64/xrstor64\","
	    "\"upper_state\":\"clean\"},\"unit\":\"tsc_ticks\",\"samples\":[[10,1],[11,1]]}]}";
	if (pb_results_load_text(xs, strlen(xs), "x.json", &f) != 0)
		fail_msg("%s", pb_error());
	assert_null(pb_summary_build(&f));
	assert_non_null(strstr(pb_error(), "no memset, memcpy or syscall cases"));
	pb_results_file_free(&f);
}

/* Cases at another placement (an offset grid's) do not enter the
 * comparisons: the libc verdicts of the file are unchanged. */
static void test_other_placement_ignored(void **state)
{
	(void)state;
	struct pb_results_file f;
	json_t *a = load_summary("loses-large.json", &f);
	json_t *doc = json_deep_copy(pb_results_file_json(&f));
	pb_results_file_free(&f);
	json_t *cases = json_object_get(doc, "cases");
	size_t i, added = 0, n = json_array_size(cases);
	for (i = 0; i < n; i++) {
		json_t *c = json_array_get(cases, i);
		json_t *key = json_object_get(c, "key");
		if (strcmp(json_string_value(json_object_get(key, "suite")), "mem") ||
		    strcmp(json_string_value(json_object_get(key, "kernel")), "libc"))
			continue;
		/* sse2 at offset 64, five times as fast as libc at offset 0 */
		json_t *copy = json_deep_copy(c);
		json_object_set_new(json_object_get(copy, "key"), "dst_offset_bytes",
		                    json_integer(64));
		json_object_set_new(json_object_get(copy, "key"), "kernel", json_string("sse2"));
		size_t j;
		json_t *smp;
		json_array_foreach(json_object_get(copy, "samples"), j, smp) json_array_set_new(
		    smp, 0, json_real(json_number_value(json_array_get(smp, 0)) / 5));
		json_array_append_new(cases, copy);
		added++;
	}
	assert_true(added > 0);
	json_t *b = build_doc(doc);
	assert_non_null(b);
	assert_true(json_equal(json_object_get(a, "libc"), json_object_get(b, "libc")));
	json_decref(doc);
	drop(a);
	drop(b);
}

/* A file with memset and memcpy cases in every cache state and glibc's
 * thresholds known: one threshold row per memset state and two per memcpy
 * state (21 with seven states), each with its verdict. */
static void test_thresholds_every_state(void **state)
{
	(void)state;
	need_x86_kernels();
	json_t *d = fixture_doc("loses-large.json");
	json_t *cases = json_object_get(d, "cases"), *all = json_array();
	size_t i;
	json_t *c;
	json_array_foreach(cases, i, c)
	{
		const char *st =
		    json_string_value(json_object_get(json_object_get(c, "key"), "cache_state"));
		if (!st || strcmp(st, "hot") != 0) {
			if (!st)
				json_array_append(all, c);
			continue;
		}
		for (int s = 0; s < PB_STATE_COUNT; s++) {
			json_t *cs = json_deep_copy(c);
			json_object_set_new(
			    json_object_get(cs, "key"), "cache_state",
			    json_string(pb_cache_state_name((enum pb_cache_state)s)));
			json_array_append_new(all, cs);
		}
	}
	json_object_set_new(d, "cases", all);
	struct pb_results_file f;
	load_doc(d, "every-state.json", &f);
	struct pb_summary_report *r = pb_summary_build(&f);
	assert_non_null(r);
	assert_int_equal(r->glibc.n_thresholds, 3 * PB_STATE_COUNT);
	for (size_t k = 0; k < r->glibc.n_thresholds; k++)
		assert_non_null(r->glibc.thresholds[k].verdict);
	pb_summary_report_free(r);
	pb_results_file_free(&f);
	json_decref(d);
}

/* A v2 file: loses-large.json with every case's samples cut into two
 * replicates, the second scaled by 1.2. The summary reads the replicates
 * (pb_results_case_summary): each median is the geometric mean of the two
 * replicates' medians. A shift of a whole replicate moves every kernel
 * alike, so libc / kernel, paired replicate by replicate, cancels it: the
 * large deficit stays "behind", every verdict follows its interval. */
static void test_replicates_v2(void **state)
{
	(void)state;
	need_x86_kernels();
	json_error_t err;
	json_t *doc = json_load_file("loses-large.json", 0, &err);
	assert_non_null(doc);
	json_object_set_new(doc, "schema_version", json_integer(2));
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(doc, "cases"), i, c)
	{
		json_t *samples = json_object_get(c, "samples");
		size_t n = json_array_size(samples), half = n / 2;
		if (n < 4)
			continue;
		for (size_t j = half; j < n; j++) {
			json_t *sm = json_array_get(samples, j);
			json_array_set_new(
			    sm, 0, json_real(1.2 * json_number_value(json_array_get(sm, 0))));
		}
		json_object_set_new(
		    c, "replicates",
		    json_pack("[{s:i}, {s:i}]", "samples", (int)half, "samples", (int)(n - half)));
	}
	char *text = json_dumps(doc, 0);
	json_decref(doc);
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(text, strlen(text), "v2.json", &f), 0);
	free(text);
	json_t *s = as_json(pb_summary_build(&f));
	assert_non_null(s);
	size_t behind;
	assert_int_equal(check_libc(s, NULL, &behind), 12);
	const json_t *x = find_libc(s, "memset", "dram", 1 << 20);
	assert_non_null(x);
	assert_string_equal(json_string_value(json_object_get(x, "verdict")), "behind");
	/* the median is the two replicates' geometric mean */
	const struct pb_results_case *k = NULL;
	for (size_t j = 0; j < f.ncases && !k; j++)
		if (f.cases[j].n_rep == 2)
			k = &f.cases[j];
	assert_non_null(k);
	struct pb_summary sum;
	assert_int_equal(pb_results_case_summary(k, 0.95, &sum), 0);
	double med[2];
	assert_int_equal(pb_results_case_runs(k, med, 2), 2);
	if (!(fabs(sum.median - sqrt(med[0] * med[1])) <= 1e-9 * sum.median))
		fail_msg("median %g, replicates %g and %g", sum.median, med[0], med[1]);
	assert_int_equal(sum.replicates, 2);
	char *t = printed(s);
	check_width(t);
	free(t);
	drop(s);
	pb_results_file_free(&f);
}

int main(void)
{
	/* into tests/data/summary, found from this file's path (CMake
	 * compiles with absolute source paths) */
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/summary", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replicates_v2),
	    cmocka_unit_test(test_within_noise),
	    cmocka_unit_test(test_loses_large),
	    cmocka_unit_test(test_too_noisy),
	    cmocka_unit_test(test_margin),
	    cmocka_unit_test(test_noise_cause),
	    cmocka_unit_test(test_doc_equals_file),
	    cmocka_unit_test(test_not_default_or_empty),
	    cmocka_unit_test(test_other_placement_ignored),
	    cmocka_unit_test(test_thresholds_every_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
