/* test_cmd_layout.c - --randomize-env and --layout-audit
 * (include/primbench/cmd_layout.h): the pads' draws (range, seed, both
 * sides alike), the pad in the child's environment with its length
 * recorded, kept out of the case key, the audit's sizes and order, and its
 * arithmetic on fixtures against values worked by hand (Kruskal-Wallis H
 * and its chi-square p, the F test on logs, whose tail has a closed form
 * for 2 numerator degrees of freedom). Never a speed threshold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/cmd_ab.h"
#include "primbench/cmd_layout.h"
#include "results/results_json.h"

static char *true_argv[] = {"/bin/true", NULL};

static void test_draws(void **state)
{
	(void)state;
	struct pb_layout_plan a = {.mode = PB_LAYOUT_RANDOM, .seed = 7};
	struct pb_layout_plan b = a, c = {.mode = PB_LAYOUT_RANDOM, .seed = 8};
	struct pb_layout_plan none = {.mode = PB_LAYOUT_NONE, .seed = 7};
	assert_int_equal(pb_layout_pad_of(NULL, 3), -1);
	assert_int_equal(pb_layout_pad_of(&none, 3), -1);
	size_t same_seed = 0, other_seed = 0;
	/* 16 bins of 256 bytes over 40960 draws: 2560 each if uniform; the
	 * draws are fixed by the seed, so the bounds cannot flake. Positions of
	 * side A and side B (ABBA) fill their own bins alike. */
	size_t bins[2][16] = {{0}};
	for (size_t i = 0; i < 40960; i++) {
		long pa = pb_layout_pad_of(&a, i);
		assert_true(pa >= 0 && pa <= PB_LAYOUT_PAD_MAX_BYTES);
		same_seed += pa == pb_layout_pad_of(&b, i);
		other_seed += pa == pb_layout_pad_of(&c, i);
		bins[pb_cmd_abba_side(i)][pa / 256]++;
	}
	assert_int_equal(same_seed, 40960); /* the seed reproduces the pads */
	assert_true(other_seed < 100);      /* another seed, other pads */
	for (int sd = 0; sd < 2; sd++)
		for (int k = 0; k < 16; k++)
			assert_true(bins[sd][k] > 1080 && bins[sd][k] < 1480);
	char *e = pb_layout_pad_entry(5);
	assert_string_equal(e, "PRIMBENCH_PAD=xxxxx");
	free(e);
	e = pb_layout_pad_entry(0);
	assert_string_equal(e, "PRIMBENCH_PAD=");
	free(e);
	uint64_t s = pb_layout_default_seed();
	assert_true(s <= 4294967295u);
}

static void test_audit_sizes_order(void **state)
{
	(void)state;
	for (unsigned k = 0; k < PB_LAYOUT_AUDIT_SIZES; k++) {
		assert_int_equal(pb_layout_audit_size(k), 528 * (long)k);
		assert_int_equal(pb_layout_audit_index(528 * (long)k), (int)k);
		assert_true(pb_layout_audit_size(k) <= PB_LAYOUT_PAD_MAX_BYTES);
	}
	assert_int_equal(pb_layout_audit_index(1), -1);
	/* Every round of 8 counted runs (after 3 warm-ups) visits each size
	 * once; the rounds' orders differ. */
	struct pb_layout_plan pl = {.mode = PB_LAYOUT_AUDIT, .seed = 11, .warmup = 3};
	bool orders_differ = false;
	for (size_t round = 0; round < 6; round++) {
		unsigned seen = 0;
		for (size_t j = 0; j < PB_LAYOUT_AUDIT_SIZES; j++) {
			size_t pos = 3 + round * PB_LAYOUT_AUDIT_SIZES + j;
			int k = pb_layout_audit_index(pb_layout_pad_of(&pl, pos));
			assert_true(k >= 0);
			seen |= 1u << k;
			if (round)
				orders_differ |= pb_layout_pad_of(&pl, pos) !=
				                 pb_layout_pad_of(&pl, pos - PB_LAYOUT_AUDIT_SIZES);
		}
		assert_int_equal(seen, 0xffu);
	}
	assert_true(orders_differ);
	for (size_t w = 0; w < 3; w++)
		assert_true(pb_layout_audit_index(pb_layout_pad_of(&pl, w)) >= 0);
}

/* The engine pads every run, warm-ups and both sides, as the plan says,
 * and records it. */
static void test_engine_records_pads(void **state)
{
	(void)state;
	struct pb_layout_plan pl = {.mode = PB_LAYOUT_RANDOM, .seed = 123};
	struct pb_cmd_ab_params p = {.nsides = 2, .runs = 3, .warmup = 1, .layout = &pl};
	p.side[0].argv = true_argv;
	p.side[1].argv = true_argv;
	struct pb_cmd_ab_result r;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_int_equal(r.nrecs, 8);
	for (size_t i = 0; i < r.nrecs; i++) {
		assert_true(r.recs[i].padded);
		assert_int_equal((long)r.recs[i].pad_bytes, pb_layout_pad_of(&pl, i));
	}
	pb_cmd_ab_result_free(&r);
	/* Without a plan: no pad. */
	p.layout = NULL;
	assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
	for (size_t i = 0; i < r.nrecs; i++)
		assert_false(r.recs[i].padded);
	pb_cmd_ab_result_free(&r);
}

/* The command sees PRIMBENCH_PAD with the recorded length. */
static void test_child_sees_pad(void **state)
{
	(void)state;
	char out[] = "/tmp/primbench-test-pad-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	char *argv[] = {"/bin/sh", "-c", "printf %s \"${PRIMBENCH_PAD-unset}\" | wc -c", NULL};
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct pb_layout_plan pl = {.mode = PB_LAYOUT_RANDOM, .seed = seed};
		struct pb_cmd_ab_params p = {.nsides = 1, .runs = 1, .layout = &pl};
		p.side[0].argv = argv;
		p.side[0].stdout_path = out;
		struct pb_cmd_ab_result r;
		assert_int_equal(pb_cmd_ab_run(&p, &r), 0);
		assert_int_equal(r.nrecs, 1);
		FILE *f = fopen(out, "r");
		assert_non_null(f);
		long len = -1;
		assert_int_equal(fscanf(f, "%ld", &len), 1);
		fclose(f);
		assert_true(r.recs[0].padded);
		assert_int_equal(len, (long)r.recs[0].pad_bytes);
		pb_cmd_ab_result_free(&r);
	}
	unlink(out);
}

/* Out of the key, in runs[]. */
static void test_case_json(void **state)
{
	(void)state;
	char *env[] = {"A=1", "PRIMBENCH_PAD=xxxx", NULL};
	assert_false(pb_cmd_env_in_key("PRIMBENCH_PAD=xx"));
	assert_true(pb_cmd_env_in_key("A=1"));
	struct pb_cmd_spec spec = {
	    .argv = true_argv, .env_set = env, .env_extra = "PRIMBENCH_PAD=x"};
	struct pb_cmd_record recs[2] = {
	    {.run = {.wall_ns = 1e6}, .index = 1, .padded = true, .pad_bytes = 4},
	    {.run = {.wall_ns = 2e6}, .index = 2, .position = 1},
	};
	json_t *c = pb_cmd_case_json(&spec, false, 0, recs, 2, 1, false);
	assert_non_null(c);
	json_t *k = json_object_get(json_object_get(c, "key"), "env");
	assert_int_equal(json_array_size(k), 1);
	assert_string_equal(json_string_value(json_array_get(k, 0)), "A=1");
	json_t *runs = json_object_get(c, "runs");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(runs, 0), "pad_bytes")),
	                 4);
	assert_null(json_object_get(json_array_get(runs, 1), "pad_bytes"));
	json_decref(c);
}

static void test_audit_stats(void **state)
{
	(void)state;
	struct pb_layout_audit a;
	/* No ties: ranks are the values; R = 6, 15, 24 and
	 * H = 12 / (9 * 10) * (36 + 225 + 576) / 3 - 3 * 10 = 7.2, p = e^-3.6. */
	const double v1[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
	const unsigned g1[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
	assert_int_equal(pb_layout_audit_stats(v1, g1, 9, 3, &a), 0);
	assert_true(a.valid);
	assert_float_equal(a.median[0], 2, 1e-12);
	assert_float_equal(a.median[2], 8, 1e-12);
	assert_float_equal(a.spread, 3, 1e-12);
	assert_float_equal(a.kw_h, 7.2, 1e-9);
	assert_float_equal(a.kw_p, exp(-3.6), 1e-9);
	/* F on the logs (worked out of the sums of squares), and with 2 and d
	 * degrees of freedom P(F > f) = (1 + 2 f / d)^(-d / 2). */
	assert_float_equal(a.anova_f, 13.97656537051248, 1e-9);
	assert_float_equal(a.anova_p, pow(1 + 2 * a.anova_f / 6, -3), 1e-9);
	assert_float_equal(a.anova_p, 0.005518413936821002, 1e-9);
	assert_float_equal(a.between_share, 0.8232858099076469, 1e-9);
	/* Ties: midranks, R = 6.5, 15.5, 23; H = 6.0667 / (1 - 36 / 720). */
	const double v2[] = {1, 1, 2, 2, 3, 3, 3, 4, 5};
	const unsigned g2[] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
	assert_int_equal(pb_layout_audit_stats(v2, g2, 9, 3, &a), 0);
	assert_float_equal(a.kw_h, 6.385964912280698, 1e-9);
	assert_float_equal(a.kw_p, exp(-6.385964912280698 / 2), 1e-9);
	assert_float_equal(a.anova_f, 10.602078291257177, 1e-9);
	assert_float_equal(a.anova_p, 0.010728721044587124, 1e-9);
	assert_float_equal(a.spread, 4.0 / 1 - 1, 1e-12);
	/* Every value alike: no spread, H 0, p 1. */
	const double v3[] = {5, 5, 5, 5, 5, 5};
	const unsigned g3[] = {0, 1, 0, 1, 0, 1};
	assert_int_equal(pb_layout_audit_stats(v3, g3, 6, 2, &a), 0);
	assert_true(a.valid);
	assert_float_equal(a.spread, 0, 0);
	assert_float_equal(a.kw_p, 1, 0);
	assert_float_equal(a.anova_p, 1, 0);
	/* Not valid: a size without runs, a zero, too few runs. */
	const unsigned g4[] = {0, 0, 0, 0, 0, 0};
	assert_int_equal(pb_layout_audit_stats(v3, g4, 6, 2, &a), 0);
	assert_false(a.valid);
	const double v5[] = {5, 0, 5, 5};
	assert_int_equal(pb_layout_audit_stats(v5, g3, 4, 2, &a), 0);
	assert_false(a.valid);
	assert_int_equal(pb_layout_audit_stats(v3, g3, 2, 2, &a), 0);
	assert_false(a.valid);
	/* The JSON of an audit. */
	assert_int_equal(pb_layout_audit_stats(v1, g1, 9, 3, &a), 0);
	struct pb_layout_plan pl = {.mode = PB_LAYOUT_AUDIT, .seed = 9};
	json_t *o = pb_layout_json(&pl, &a, 3, "real");
	assert_string_equal(json_string_value(json_object_get(o, "mode")), "audit-only");
	assert_int_equal(json_integer_value(json_object_get(o, "seed")), 9);
	json_t *au = json_object_get(o, "audit");
	assert_int_equal(json_array_size(json_object_get(au, "sizes_bytes")), 3);
	assert_float_equal(json_number_value(json_object_get(au, "spread")), 3, 1e-12);
	json_t *kw = json_object_get(au, "kruskal_wallis");
	assert_int_equal(json_integer_value(json_object_get(kw, "df")), 2);
	assert_float_equal(json_number_value(json_object_get(kw, "h")), 7.2, 1e-9);
	json_decref(o);
}

/* The audit's session: A alone, each size runs_per_size times. */
static void test_audit_session(void **state)
{
	(void)state;
	struct pb_cmd_ab_params p = {.nsides = 2, .runs = 50, .warmup = 1, .until_verdict = true};
	p.side[0].argv = true_argv;
	p.side[1].argv = true_argv;
	struct pb_cmd_ab_result r;
	struct pb_layout_audit a;
	assert_int_equal(pb_cmd_ab_layout_audit(&p, 2, 5, &r, &a), 0);
	assert_int_equal(r.end, PB_CMD_AB_DONE);
	assert_int_equal(r.nrecs, 1 + 2 * PB_LAYOUT_AUDIT_SIZES);
	size_t per[PB_LAYOUT_AUDIT_SIZES] = {0};
	for (size_t i = 0; i < r.nrecs; i++) {
		assert_int_equal(r.recs[i].side, 0);
		assert_true(r.recs[i].padded);
		if (!r.recs[i].warmup)
			per[pb_layout_audit_index((long)r.recs[i].pad_bytes)]++;
	}
	for (unsigned k = 0; k < PB_LAYOUT_AUDIT_SIZES; k++) {
		assert_int_equal(per[k], 2);
		assert_int_equal(a.n[k], 2);
	}
	assert_true(a.valid);
	assert_int_equal(a.k, PB_LAYOUT_AUDIT_SIZES);
	pb_cmd_ab_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_draws),
	    cmocka_unit_test(test_audit_sizes_order),
	    cmocka_unit_test(test_engine_records_pads),
	    cmocka_unit_test(test_child_sees_pad),
	    cmocka_unit_test(test_case_json),
	    cmocka_unit_test(test_audit_stats),
	    cmocka_unit_test(test_audit_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
