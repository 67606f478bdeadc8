/* test_xsave_replicates.c - the xsave suite's replicates, never its speed:
 * hand-made runs joined (samples grouped per replicate, adding up to the
 * samples; R replicates give R groups; the figure the geometric mean of
 * the replicates' medians), their result file read back with them, and an
 * older file without replicates still read as one run a case. Synthetic:
 * it runs no xsave instruction, so it runs on every ISA. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/timer.h"
#include "primbench/xsave.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

/* One run: fxsave clean and xsave dirty measured (per-op values a[] and
 * b[], one pair a batch), the other variants skipped. */
static void fake_run(struct pb_xsave_result *r, const double *a, size_t na, const double *b,
                     size_t nb)
{
	memset(r, 0, sizeof *r);
	struct pb_xsave_info info = {0};
	r->n_cases = PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT;
	struct pb_xsave_variant v[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	pb_xsave_variants(&info, false, "synthetic", v);
	for (size_t i = 0; i < r->n_cases; i++)
		r->cases[i].v = v[i];
	const double *vals[2] = {a, b};
	size_t n[2] = {na, nb}, at[2] = {PB_XS_FXSAVE * PB_XS_UPPER_COUNT + PB_XS_CLEAN,
	                                 PB_XS_XSAVE * PB_XS_UPPER_COUNT + PB_XS_DIRTY};
	for (size_t k = 0; k < 2; k++) {
		struct pb_xsave_case *c = &r->cases[at[k]];
		c->v.available = true;
		c->v.reason[0] = '\0';
		c->area_bytes = 1024;
		c->n_samples = n[k];
		c->batch_ticks = calloc(n[k] + 1, sizeof *c->batch_ticks);
		c->batch_calls = calloc(n[k] + 1, sizeof *c->batch_calls);
		assert_non_null(c->batch_ticks);
		assert_non_null(c->batch_calls);
		for (size_t j = 0; j < n[k]; j++) {
			c->batch_calls[j] = 10;
			c->batch_ticks[j] = vals[k][j] * 10;
		}
		c->outliers = 1;
	}
	pb_xsave_notes(r);
}

static void test_join(void **state)
{
	(void)state;
	static const double a1[] = {100, 120, 110}, a2[] = {200, 200}, a3[] = {400, 380, 420, 400};
	static const double b1[] = {50}, b2[] = {60, 60, 70}, b3[] = {90, 80};
	struct pb_xsave_result acc = {0}, one;
	fake_run(&one, a1, 3, b1, 1);
	assert_int_equal(pb_xsave_result_add_replicate(&acc, &one), 0);
	fake_run(&one, a2, 2, b2, 3);
	assert_int_equal(pb_xsave_result_add_replicate(&acc, &one), 0);
	fake_run(&one, a3, 4, b3, 2);
	assert_int_equal(pb_xsave_result_add_replicate(&acc, &one), 0);
	assert_int_equal(one.n_cases, 0); /* emptied */
	assert_int_equal(pb_xsave_result_end_replicates(&acc), 0);
	const struct pb_xsave_case *fx = &acc.cases[PB_XS_FXSAVE * PB_XS_UPPER_COUNT + PB_XS_CLEAN],
	                           *xd = &acc.cases[PB_XS_XSAVE * PB_XS_UPPER_COUNT + PB_XS_DIRTY];
	const struct pb_xsave_case *cs[2] = {fx, xd};
	size_t want_n[2][3] = {{3, 2, 4}, {1, 3, 2}};
	double want[2] = {cbrt(110.0 * 200 * 400), cbrt(50.0 * 60 * 85)};
	for (size_t k = 0; k < 2; k++) {
		const struct pb_xsave_case *c = cs[k];
		assert_int_equal(c->n_replicates, 3);
		size_t sum = 0;
		for (size_t r = 0; r < 3; r++) {
			assert_int_equal(c->replicate_samples[r], want_n[k][r]);
			sum += c->replicate_samples[r];
		}
		assert_int_equal(sum, c->n_samples);
		assert_int_equal(c->outliers, 3);
		assert_int_equal(c->ticks_per_op.replicates, 3);
		assert_true(c->ticks_per_op.ci_valid);
		assert_true(fabs(c->ticks_per_op.median - want[k]) < 1e-9 * want[k]);
		assert_true(c->ticks_per_op.ci_lo < want[k] && want[k] < c->ticks_per_op.ci_hi);
	}
	/* a skipped variant stays skipped, without samples or replicates of
	 * its own; its note once */
	const struct pb_xsave_case *sk = &acc.cases[PB_XS_XSAVES * PB_XS_UPPER_COUNT];
	assert_false(sk->v.available);
	assert_int_equal(sk->n_samples, 0);
	const char *nt = strstr(acc.notes, "xsaves64/xrstors64 not run: synthetic");
	assert_non_null(nt);
	assert_null(strstr(nt + 1, "xsaves64/xrstors64 not run"));

	/* the file: replicates per case, per_call their summary, read back */
	struct pb_cache_info caches;
	assert_int_equal(pb_cache_detect(&caches, NULL), 0);
	char *argv[] = {"primbench", "xsave", NULL};
	struct pb_results_doc *rdoc = pb_results_new(2, argv, 0, &caches, -1);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_xsave(rdoc, &acc), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), 2);
	for (size_t k = 0; k < 2; k++) {
		json_t *o = json_array_get(cases, k), *reps = json_object_get(o, "replicates");
		assert_int_equal(json_array_size(reps), 3);
		size_t sum = 0;
		for (size_t r = 0; r < 3; r++)
			sum += (size_t)json_integer_value(
			    json_object_get(json_array_get(reps, r), "samples"));
		assert_int_equal(sum, json_array_size(json_object_get(o, "samples")));
		json_t *pc = json_object_get(o, "per_call");
		assert_int_equal(json_integer_value(json_object_get(pc, "replicates")), 3);
		assert_true(fabs(json_number_value(json_object_get(pc, "median")) - want[k]) <
		            1e-6 * want[k]);
	}
	char *text = json_dumps(doc, JSON_INDENT(1));
	struct pb_results_file f;
	if (pb_results_load_text(text, strlen(text), "xsave-replicates", &f) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(f.ncases, 2);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(f.cases[k].n_rep, 3);
		struct pb_summary s;
		assert_int_equal(pb_results_case_summary(&f.cases[k], 0.95, &s), 0);
		assert_int_equal(s.replicates, 3);
		assert_true(fabs(s.median - want[k]) < 1e-6 * want[k]);
	}
	pb_results_file_free(&f);
	free(text);
	pb_results_doc_free(rdoc);
	pb_xsave_result_free(&acc);
}

/* A file from before replicates (tests/data/format/xsave.json): one run
 * a case. */
static void test_old_file(void **state)
{
	(void)state;
	char src[PATH_MAX], path[PATH_MAX + 64];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(path, sizeof path, "%s/data/format/xsave.json", dirname(src));
	struct pb_results_file f;
	if (pb_results_load(path, &f) != 0)
		fail_msg("%s", pb_error());
	assert_true(f.ncases > 0);
	for (size_t i = 0; i < f.ncases; i++) {
		assert_int_equal(f.cases[i].n_rep, 0);
		struct pb_summary s;
		assert_int_equal(pb_results_case_summary(&f.cases[i], 0.95, &s), 0);
		assert_true(s.replicates <= 1);
	}
	pb_results_file_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_join),
	    cmocka_unit_test(test_old_file),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
