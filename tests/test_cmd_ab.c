/* test_cmd_ab.c - the engine of `primbench cmd` (include/primbench/cmd_ab.h)
 * with harmless commands (/bin/true, /bin/false): ABBA order, runs counted
 * per side, warm-ups run but not counted, failures, the progress and message
 * hooks, --until-verdict's looks, the argv of a side, and the statistics
 * and verdict on made-up runs. Never a speed threshold. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "primbench/cmd_ab.h"

static char *true_argv[] = {"/bin/true", NULL};
static char *false_argv[] = {"/bin/false", NULL};

struct seen {
	size_t progress, last_total;
	size_t errors, warnings;
	char last_error[256];
};

static void on_progress(void *ctx, size_t done, size_t total)
{
	struct seen *s = ctx;
	assert_int_equal(done, s->progress); /* before each run: the runs so far */
	s->progress++;
	s->last_total = total;
}

static void on_message(void *ctx, enum pb_cmd_ab_msg kind, const char *text)
{
	struct seen *s = ctx;
	if (kind == PB_CMD_AB_ERROR) {
		s->errors++;
		snprintf(s->last_error, sizeof s->last_error, "%s", text);
	} else {
		s->warnings++;
	}
}

/* --duet: before each pair, the runs so far (two a pair) */
static void on_progress_pairs(void *ctx, size_t done, size_t total)
{
	struct seen *s = ctx;
	assert_int_equal(done, 2 * s->progress);
	s->progress++;
	s->last_total = total;
}

static struct pb_cmd_ab_params params(struct seen *s, int nsides, char **a, char **b)
{
	struct pb_cmd_ab_params p = {.nsides = nsides, .runs = 4, .metric = PB_CMD_REAL};
	p.side[0].argv = a;
	p.side[1].argv = b;
	p.hooks =
	    (struct pb_cmd_ab_hooks){.ctx = s, .progress = on_progress, .message = on_message};
	return p;
}

static void test_abba_warmup(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 2, true_argv, true_argv);
	p.warmup = 1;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_int_equal(r.nrecs, 10);
	assert_int_equal(r.counted[0], 4);
	assert_int_equal(r.counted[1], 4);
	assert_int_equal(r.warm[0], 1);
	assert_int_equal(r.warm[1], 1);
	/* warm-ups first (A, B), then ABBA blocks: AB BA AB BA */
	static const int side[10] = {0, 1, 0, 1, 1, 0, 0, 1, 1, 0};
	size_t index[2] = {0, 0};
	for (size_t i = 0; i < r.nrecs; i++) {
		assert_int_equal(r.recs[i].side, side[i]);
		assert_int_equal(r.recs[i].warmup, i < 2);
		assert_int_equal(r.recs[i].position, i);
		if (i == 2)
			index[0] = index[1] = 0;
		assert_int_equal(r.recs[i].index, ++index[side[i]]);
		assert_int_equal(r.recs[i].run.exit_code, 0);
	}
	assert_int_equal(s.progress, 10);
	assert_int_equal(s.last_total, 10);
	assert_int_equal(s.errors, 0);
	assert_null(r.ended_by);
	/* the warm-ups are not among the values */
	double v[10];
	assert_int_equal(pb_cmd_ab_values(r.recs, r.nrecs, 0, PB_CMD_REAL, v), 4);
	assert_int_equal(pb_cmd_ab_values(r.recs, r.nrecs, 1, PB_CMD_USER, v), 4);
	struct pb_cmd_ab_stats ab;
	pb_cmd_ab_stats(r.recs, r.nrecs, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.valid);
	assert_int_equal(ab.na, 4);
	assert_int_equal(ab.nb, 4);
	assert_true(ab.t_valid);
	pb_cmd_ab_result_free(&r);
}

static void test_one_side(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 1, true_argv, NULL);
	p.runs = 3;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.nrecs, 3);
	assert_int_equal(r.counted[0], 3);
	assert_int_equal(r.counted[1], 0);
	for (size_t i = 0; i < r.nrecs; i++)
		assert_int_equal(r.recs[i].side, 0);
	struct pb_cmd_ab_stats ab;
	pb_cmd_ab_stats(r.recs, r.nrecs, PB_CMD_REAL, 0.95, false, &ab);
	assert_false(ab.valid); /* no B */
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_NONE);
	pb_cmd_ab_result_free(&r);
}

static void test_failure(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 2, true_argv, false_argv);
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_FAILED);
	assert_int_equal(r.nrecs, 2); /* A1, then B1 failed: recorded, the session stops */
	assert_int_equal(s.errors, 1);
	assert_string_equal(s.last_error, "run B1 exited with status 1 (see --show-output; or -i)");
	pb_cmd_ab_result_free(&r);

	struct seen s2 = {0};
	p = params(&s2, 2, true_argv, false_argv);
	p.ignore_failure = true;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_int_equal(r.nrecs, 8);
	assert_int_equal(s2.errors, 0);
	size_t counted;
	assert_int_equal(pb_cmd_ab_failed_runs(&r, &counted), 4);
	assert_int_equal(counted, 8);
	pb_cmd_ab_result_free(&r);
}

static void test_prepare_fails(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 1, true_argv, NULL);
	struct pb_cmd_spec prep = {.argv = false_argv};
	p.prepare = &prep;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_FAILED);
	assert_int_equal(r.nrecs, 0);
	assert_string_equal(s.last_error, "--prepare command failed (exit status 1)");
	pb_cmd_ab_result_free(&r);
}

static void test_until_verdict(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 2, true_argv, true_argv);
	p.until_verdict = true;
	p.max_runs = 6;
	p.equivalence = 0.01;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_non_null(r.ended_by); /* a verdict, or the last look */
	assert_int_equal(s.last_total, 0);
	assert_true(r.plan.nlooks >= 1);
	assert_true(r.looks >= 1 && r.looks <= r.plan.nlooks);
	assert_int_equal(r.look[r.looks - 1].runs_per_side, r.counted[0]);
	assert_int_equal(r.counted[0], r.counted[1]);
	assert_int_equal(r.counted[0], r.plan.look_n[r.looks - 1]);
	if (strcmp(r.ended_by, "verdict") == 0)
		assert_int_not_equal(r.verdict, PB_VERDICT_NONE);
	else
		assert_string_equal(r.ended_by, "max-runs");
	pb_cmd_ab_result_free(&r);
	p.max_runs = 2; /* no plan reaches 95% with 2 runs per side */
	assert_int_equal(pb_cmd_ab_run(&p, &r), -1);
	pb_cmd_ab_result_free(&r);
}

/* Made-up runs: real times of A and B. */
static void recs_of(struct pb_cmd_record *recs, const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++) {
		int side = pb_cmd_abba_side(i);
		memset(&recs[i], 0, sizeof recs[i]);
		recs[i].side = side;
		recs[i].run.wall_ns = side ? b[i / 2] : a[i / 2];
	}
}

static void test_stats_verdict(void **state)
{
	(void)state;
	double a[10], b[10];
	struct pb_cmd_record recs[20];
	struct pb_cmd_ab_stats ab;
	for (int i = 0; i < 10; i++) {
		a[i] = 1e6 + 1e3 * i;
		b[i] = 2 * a[i];
	}
	recs_of(recs, a, b, 10); /* clear loss: B takes twice as long */
	pb_cmd_ab_stats(recs, 20, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.valid && ab.ratio.lo > 1);
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_DIFFERENT);
	recs_of(recs, b, a, 10); /* clear win */
	pb_cmd_ab_stats(recs, 20, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.ratio.hi < 1);
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_DIFFERENT);
	recs_of(recs, a, a, 10); /* the same runs: inside the margin, or no verdict without */
	pb_cmd_ab_stats(recs, 20, PB_CMD_REAL, 0.95, false, &ab);
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_EQUIVALENT);
	assert_int_equal(pb_cmd_ab_verdict(&ab, 0), PB_VERDICT_NONE);
	for (int i = 0; i < 10; i++) /* B 0.5% slower, every run: shown, but inside it */
		b[i] = 1.005 * a[i];
	recs_of(recs, a, b, 10);
	pb_cmd_ab_stats(recs, 20, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.ratio.lo > 1);
	assert_int_equal(pb_cmd_ab_verdict(&ab, 0), PB_VERDICT_DIFFERENT);
	assert_int_not_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_DIFFERENT);
	for (int i = 0; i < 10; i++)
		b[i] = 2 * a[i];
	recs_of(recs, a, b, 2); /* too few runs for an interval */
	pb_cmd_ab_stats(recs, 4, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.valid && !ab.ratio.ci_valid);
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_NONE);
	a[0] = 0; /* a figure of 0: no ratio */
	recs_of(recs, a, b, 10);
	pb_cmd_ab_stats(recs, 20, PB_CMD_REAL, 0.95, false, &ab);
	assert_false(ab.valid);
	assert_true(ab.nonpositive);
}

/* --duet: A and B at once, the CPU sets swapped every pair, the side
 * spawned first every two pairs; two records per pair, A's first. */
static void test_duet(void **state)
{
	(void)state;
	struct seen s = {0};
	struct pb_cmd_ab_params p = params(&s, 2, true_argv, true_argv);
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	p.duet = p.paired = true;
	p.duet_cpus[0] = p.duet_cpus[1] = &set; /* any CPUs: the order is what is tested */
	p.warmup = 1;
	p.hooks.progress = on_progress_pairs;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_int_equal(r.nrecs, 10);
	assert_int_equal(r.counted[0], 4);
	assert_int_equal(r.counted[1], 4);
	assert_int_equal(r.warm[0], 1);
	/* pair k: A's slot 1 + k % 2, A spawned first in pairs 0, 1 (of the
	 * counted; the warm-up pair is pair 0 of its own) */
	static const int a_slot[5] = {1, 1, 2, 1, 2};
	static const bool a_first[5] = {true, true, true, false, false};
	for (size_t i = 0; i < r.nrecs; i++) {
		const struct pb_cmd_record *rec = &r.recs[i];
		size_t pair = i / 2;
		assert_int_equal(rec->side, (int)(i % 2));
		assert_int_equal(rec->warmup, pair == 0);
		assert_int_equal(rec->position, i);
		assert_int_equal(rec->index, pair == 0 ? 1 : pair);
		assert_int_equal(rec->duet_slot, rec->side ? 3 - a_slot[pair] : a_slot[pair]);
		assert_int_equal(rec->spawned_first, rec->side ? !a_first[pair] : a_first[pair]);
		assert_int_equal(rec->run.exit_code, 0);
		assert_true(rec->run.wall_ns > 0);
	}
	assert_int_equal(s.progress, 5); /* one step per pair */
	assert_int_equal(s.last_total, 10);
	struct pb_cmd_ab_stats ab;
	pb_cmd_ab_stats(r.recs, r.nrecs, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.paired_valid);
	assert_int_equal(ab.npairs, 4);
	pb_cmd_ab_result_free(&r);

	/* B fails: the pair is recorded, the session stops with B's error */
	struct seen s2 = {0};
	p = params(&s2, 2, true_argv, false_argv);
	p.duet = p.paired = true;
	p.duet_cpus[0] = p.duet_cpus[1] = &set;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_FAILED);
	assert_int_equal(r.nrecs, 2);
	assert_string_equal(s2.last_error,
	                    "run B1 exited with status 1 (see --show-output; or -i)");
	pb_cmd_ab_result_free(&r);

	/* --until-verdict on pairs: the plan's first look has an interval */
	struct seen s3 = {0};
	p = params(&s3, 2, true_argv, true_argv);
	p.paired = true;
	p.until_verdict = true;
	p.max_runs = 12;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_true(r.plan.look_n[0] >= pb_paired_hl_min_pairs(r.plan.level_per_look));
	assert_int_equal(r.counted[0], r.plan.look_n[r.looks - 1]);
	pb_cmd_ab_result_free(&r);
}

/* Pairs: drift across blocks widens the two-sample interval; each pair's
 * ratio is unmoved by it. */
static void test_paired_drift(void **state)
{
	(void)state;
	double a[12], b[12];
	struct pb_cmd_record recs[24];
	for (int i = 0; i < 12; i++) {
		a[i] = 1e6 * (1 + 0.05 * i); /* a 55% drift over the session */
		b[i] = 1.03 * a[i] * (1 + (i % 2 ? 1e-3 : -1e-3)); /* B 3% slower in every block */
	}
	recs_of(recs, a, b, 12);
	struct pb_cmd_ab_stats ab;
	pb_cmd_ab_stats(recs, 24, PB_CMD_REAL, 0.95, false, &ab);
	assert_true(ab.valid && ab.paired_valid);
	assert_int_equal(ab.npairs, 12);
	assert_true(ab.ratio.lo < 1); /* all runs: the drift hides B's loss */
	assert_int_equal(pb_cmd_ab_verdict(&ab, PB_EQUIVALENCE), PB_VERDICT_NONE);
	assert_true(ab.paired.lo > 1.025 && ab.paired.hi < 1.035);
	assert_float_equal(ab.paired.estimate, 1.03, 1e-3);
	assert_int_equal(pb_cmd_ab_verdict_paired(&ab, PB_EQUIVALENCE), PB_VERDICT_DIFFERENT);
	/* the pairs are A's k-th and B's k-th counted runs */
	double pa[24], pbv[24];
	assert_int_equal(pb_cmd_ab_pairs(recs, 24, PB_CMD_REAL, pa, pbv), 12);
	for (int i = 0; i < 12; i++) {
		assert_float_equal(pa[i], a[i], 0);
		assert_float_equal(pbv[i], b[i], 0);
	}
	/* too few pairs: no interval, no verdict */
	pb_cmd_ab_stats(recs, 8, PB_CMD_REAL, 0.95, false, &ab);
	assert_false(ab.paired.ci_valid);
	assert_int_equal(pb_cmd_ab_verdict_paired(&ab, PB_EQUIVALENCE), PB_VERDICT_NONE);
}

static void test_argv(void **state)
{
	(void)state;
	struct pb_cmd_ab_argv a;
	char *words[] = {"echo", "a b", NULL};
	char *const *v = pb_cmd_ab_argv(&a, words, NULL, false);
	assert_ptr_equal(v, words);
	pb_cmd_ab_argv_free(&a);
	v = pb_cmd_ab_argv(&a, words, NULL, true);
	assert_string_equal(v[0], "/bin/sh");
	assert_string_equal(v[1], "-c");
	assert_string_equal(v[2], "echo a b");
	assert_null(v[3]);
	pb_cmd_ab_argv_free(&a);
	v = pb_cmd_ab_argv(&a, NULL, "gzip -c 'a b'", false);
	assert_string_equal(v[0], "gzip");
	assert_string_equal(v[2], "a b");
	assert_null(v[3]);
	pb_cmd_ab_argv_free(&a);
	assert_null(pb_cmd_ab_argv(&a, NULL, "a | b", false));
	pb_cmd_ab_argv_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abba_warmup),   cmocka_unit_test(test_one_side),
	    cmocka_unit_test(test_failure),       cmocka_unit_test(test_prepare_fails),
	    cmocka_unit_test(test_until_verdict), cmocka_unit_test(test_stats_verdict),
	    cmocka_unit_test(test_argv),          cmocka_unit_test(test_duet),
	    cmocka_unit_test(test_paired_drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
