/* test_cmd_counters.c - instructions and cycles as cmd metrics
 * (include/primbench/cmd.h, "Hardware counters over a whole command"):
 * the metric names and kinds, the scaling of a multiplexed read, fixture
 * runs with counts through the A/B statistics and the case JSON, and the
 * open: refused with its reason under PRIMBENCH_NO_COUNTERS (any machine),
 * and where the machine has no PMU either outcome keeps its shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/cmd.h"
#include "primbench/cmd_ab.h"
#include "primbench/error.h"
#include "results/results_json.h"

static char *true_argv[] = {"/bin/true", NULL};

static void test_metric_names(void **state)
{
	(void)state;
	assert_int_equal(pb_cmd_parse_figure("instructions"), PB_CMD_INSTRUCTIONS);
	assert_int_equal(pb_cmd_parse_figure("cycles"), PB_CMD_CYCLES);
	assert_int_equal(pb_cmd_parse_figure("user+sys"), PB_CMD_USER_SYS);
	assert_string_equal(pb_cmd_figure_name((enum pb_cmd_figure)PB_CMD_INSTRUCTIONS),
	                    "instructions");
	assert_string_equal(pb_cmd_figure_name((enum pb_cmd_figure)PB_CMD_CYCLES), "cycles");
	assert_string_equal(pb_cmd_figure_name((enum pb_cmd_figure)PB_CMD_USER_SYS), "user+sys");
	assert_true(pb_cmd_metric_is_counter(PB_CMD_INSTRUCTIONS));
	assert_true(pb_cmd_metric_is_counter(PB_CMD_CYCLES));
	assert_false(pb_cmd_metric_is_counter(PB_CMD_REAL));
	assert_false(pb_cmd_metric_is_time(PB_CMD_INSTRUCTIONS));
	assert_false(pb_cmd_metric_is_time(PB_CMD_CYCLES));
	assert_true(pb_cmd_metric_is_time(PB_CMD_USER_SYS));
	assert_true(pb_cmd_metric_is_time(PB_CMD_REAL));
	struct pb_cmd_run r = {.user_ns = 1, .sys_ns = 2};
	assert_true(isnan(pb_cmd_metric_value(&r, PB_CMD_INSTRUCTIONS)));
	r.counters = true;
	r.instructions = 5e9;
	r.cycles = 2e9;
	assert_float_equal(pb_cmd_metric_value(&r, PB_CMD_INSTRUCTIONS), 5e9, 0);
	assert_float_equal(pb_cmd_metric_value(&r, PB_CMD_CYCLES), 2e9, 0);
	assert_float_equal(pb_cmd_metric_value(&r, PB_CMD_USER_SYS), 3, 0);
}

static void test_scale(void **state)
{
	(void)state;
	assert_float_equal(pb_cmd_counter_scale(1000, 50, 50), 1000, 0);
	assert_float_equal(pb_cmd_counter_scale(1000, 100, 25), 4000, 1e-9);
	assert_true(isnan(pb_cmd_counter_scale(1000, 100, 0)));
}

/* Fixture runs: A 1.00e9..1.04e9 instructions, B 10% more; cycles too. */
static void fixture(struct pb_cmd_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int side = pb_cmd_abba_side(i);
		double base = 1e9 * (1 + 0.01 * (double)(i % 5));
		recs[i] = (struct pb_cmd_record){.side = side, .index = i / 2 + 1, .position = i};
		recs[i].run.wall_ns = 1e8;
		recs[i].run.counters = true;
		recs[i].run.instructions = side ? 1.1 * base : base;
		recs[i].run.cycles = side ? 0.9 * base : base / 2;
	}
}

static void test_stats_on_counts(void **state)
{
	(void)state;
	struct pb_cmd_record recs[20];
	fixture(recs, 20);
	struct pb_cmd_ab_stats ab;
	pb_cmd_ab_stats(recs, 20, PB_CMD_INSTRUCTIONS, 0.95, false, &ab);
	assert_true(ab.valid);
	assert_int_equal(ab.na, 10);
	assert_int_equal(ab.nb, 10);
	assert_float_equal(ab.ratio.estimate, 1.1, 1e-9);
	assert_float_equal(ab.med_b / ab.med_a, 1.1, 1e-9);
	pb_cmd_ab_stats(recs, 20, PB_CMD_CYCLES, 0.95, false, &ab);
	assert_true(ab.valid);
	assert_float_equal(ab.ratio.estimate, 1.8, 1e-9);
	/* A run without counts: no comparison on them. */
	recs[3].run.counters = false;
	pb_cmd_ab_stats(recs, 20, PB_CMD_INSTRUCTIONS, 0.95, false, &ab);
	assert_false(ab.valid);
	double v[20];
	assert_int_equal(pb_cmd_ab_values(recs, 20, 0, PB_CMD_CYCLES, v), 10);
	assert_float_equal(v[0], 0.5e9, 0);
}

static void test_case_json_counts(void **state)
{
	(void)state;
	struct pb_cmd_record recs[20];
	fixture(recs, 20);
	struct pb_cmd_spec spec = {.argv = true_argv};
	json_t *c = pb_cmd_case_json(&spec, false, 0, recs, 20, 1, false);
	json_t *figs = json_object_get(c, "figures");
	json_t *ins = json_object_get(figs, "instructions");
	assert_non_null(ins);
	assert_float_equal(json_number_value(json_object_get(ins, "median")), 1.02e9, 1);
	assert_non_null(json_object_get(figs, "cycles"));
	json_t *run = json_array_get(json_object_get(c, "runs"), 0);
	assert_float_equal(json_number_value(json_object_get(run, "instructions")), 1e9, 0);
	assert_float_equal(json_number_value(json_object_get(run, "cycles")), 0.5e9, 0);
	json_decref(c);
	/* Without counts: neither figure nor field. */
	for (size_t i = 0; i < 20; i++)
		recs[i].run.counters = false;
	c = pb_cmd_case_json(&spec, false, 0, recs, 20, 1, false);
	assert_null(json_object_get(json_object_get(c, "figures"), "instructions"));
	assert_null(json_object_get(json_array_get(json_object_get(c, "runs"), 0), "cycles"));
	assert_non_null(json_object_get(json_object_get(c, "figures"), "real"));
	json_decref(c);
}

static void test_open_refused(void **state)
{
	(void)state;
	setenv("PRIMBENCH_NO_COUNTERS", "1", 1);
	int fd[2] = {7, 7};
	assert_int_equal(pb_cmd_counters_open(fd), -1);
	assert_int_equal(fd[0], -1);
	assert_non_null(strstr(pb_error(), "disabled by PRIMBENCH_NO_COUNTERS"));
	assert_int_equal(pb_cmd_counters_check(), -1);
	/* A run that asks for them cannot start. */
	struct pb_cmd_spec spec = {.argv = true_argv, .counters = true};
	struct pb_cmd_run r;
	assert_int_equal(pb_cmd_run_once(&spec, &r, NULL), -1);
	unsetenv("PRIMBENCH_NO_COUNTERS");
}

/* The machine as it is: counters count /bin/true's tree, or the reason
 * has its shape. */
static void test_open_either_way(void **state)
{
	(void)state;
	struct pb_cmd_spec spec = {.argv = true_argv, .counters = true};
	struct pb_cmd_run r;
	if (pb_cmd_counters_check() != 0) {
		assert_non_null(strstr(pb_error(), "no hardware counters here: perf_event_open("));
		assert_int_equal(pb_cmd_run_once(&spec, &r, NULL), -1);
		return;
	}
	assert_int_equal(pb_cmd_run_once(&spec, &r, NULL), 0);
	assert_true(r.counters);
	assert_true(r.instructions > 0);
	assert_true(r.cycles > 0);
}

int main(void)
{
	unsetenv("PRIMBENCH_NO_COUNTERS");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metric_names),    cmocka_unit_test(test_scale),
	    cmocka_unit_test(test_stats_on_counts), cmocka_unit_test(test_case_json_counts),
	    cmocka_unit_test(test_open_refused),    cmocka_unit_test(test_open_either_way),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
