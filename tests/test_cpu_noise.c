/* test_cpu_noise.c - placement by measured noise (include/primbench/
 * cpu_noise.h): the choice rule on fixture figures (a clear winner,
 * near-ties broken by the tail then the CPU number, a CPU that could not
 * be probed, a single CPU, none usable), the placement line and the
 * "placement" JSON object on fixtures, PRIMBENCH_PROBE_MS, and the probe's
 * invariants only (never its timings): chunks > 0, min <= median <= p99
 * <= max, 0 <= lost_share < 1, the thread's affinity put back. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu_noise.h"
#include "primbench/error.h"
#include "results/results_json.h"
#include "primbench/session.h"

static struct pb_cpu_noise fig(int cpu, double lost, double median, double p99)
{
	return (struct pb_cpu_noise){.cpu = cpu,
	                             .ok = true,
	                             .chunks = 1000,
	                             .min_ns = 7000,
	                             .median_ns = median,
	                             .p99_ns = p99,
	                             .max_ns = 2 * p99,
	                             .lost_share = lost,
	                             .probe_ns = 1e8};
}

static void test_choose_least_lost(void **state)
{
	(void)state;
	struct pb_cpu_noise f[] = {fig(0, 0.079, 7500, 9000), fig(1, 0.011, 7500, 20000)};
	enum pb_cpu_choice why;
	assert_int_equal(pb_cpu_noise_choose(f, 2, &why), 1);
	assert_int_equal(why, PB_CHOICE_LEAST_LOST);
	/* the measured levels: 1.0-3.8% against 5.8-17% */
	struct pb_cpu_noise g[] = {fig(0, 0.038, 7500, 9000), fig(1, 0.058, 7500, 9000)};
	assert_int_equal(pb_cpu_noise_choose(g, 2, &why), 0);
	assert_int_equal(why, PB_CHOICE_LEAST_LOST);
}

static void test_choose_near_ties(void **state)
{
	(void)state;
	enum pb_cpu_choice why;
	/* within 1 point: the shorter tail, even with a larger share */
	struct pb_cpu_noise f[] = {fig(0, 0.020, 8000, 16000), fig(1, 0.027, 8000, 9000),
	                           fig(2, 0.200, 8000, 8000)};
	assert_int_equal(pb_cpu_noise_choose(f, 3, &why), 1);
	assert_int_equal(why, PB_CHOICE_TAIL);
	/* just over 1 point: the share decides */
	f[1].lost_share = 0.0301;
	assert_int_equal(pb_cpu_noise_choose(f, 3, &why), 0);
	assert_int_equal(why, PB_CHOICE_LEAST_LOST);
	/* tails within 1% of the median as well: the lower CPU number, in any
	 * order of the entries */
	struct pb_cpu_noise g[] = {fig(3, 0.015, 8000, 9000), fig(1, 0.020, 8000, 9050),
	                           fig(2, 0.011, 8000, 9010)};
	assert_int_equal(pb_cpu_noise_choose(g, 3, &why), 1);
	assert_int_equal(why, PB_CHOICE_NUMBER);
	/* equal figures: the lower number */
	struct pb_cpu_noise h[] = {fig(1, 0.05, 8000, 9000), fig(0, 0.05, 8000, 9000)};
	assert_int_equal(pb_cpu_noise_choose(h, 2, &why), 1);
	assert_int_equal(h[1].cpu, 0);
}

static void test_choose_failures(void **state)
{
	(void)state;
	enum pb_cpu_choice why;
	/* a CPU that could not be probed is never chosen, whatever it holds */
	struct pb_cpu_noise f[] = {fig(0, 0.0, 7000, 7000), fig(1, 0.09, 7500, 9000)};
	f[0].ok = false;
	f[0].error = 1;
	assert_int_equal(pb_cpu_noise_choose(f, 2, &why), 1);
	assert_int_equal(why, PB_CHOICE_LEAST_LOST);
	/* nor one without chunks */
	f[0].ok = true;
	f[0].chunks = 0;
	assert_int_equal(pb_cpu_noise_choose(f, 2, NULL), 1);
	/* a single CPU */
	assert_int_equal(pb_cpu_noise_choose(&f[1], 1, &why), 0);
	/* none usable */
	f[1].ok = false;
	assert_int_equal(pb_cpu_noise_choose(f, 2, &why), -1);
	assert_int_equal(pb_cpu_noise_choose(f, 0, &why), -1);
}

static void test_set_format(void **state)
{
	(void)state;
	cpu_set_t s;
	CPU_ZERO(&s);
	char buf[64];
	assert_string_equal(pb_cpu_set_format(&s, buf, sizeof buf), "");
	CPU_SET(0, &s);
	CPU_SET(1, &s);
	assert_string_equal(pb_cpu_set_format(&s, buf, sizeof buf), "0-1");
	CPU_SET(3, &s);
	CPU_SET(5, &s);
	CPU_SET(6, &s);
	CPU_SET(7, &s);
	assert_string_equal(pb_cpu_set_format(&s, buf, sizeof buf), "0-1,3,5-7");
	assert_string_equal(pb_cpu_set_format(&s, buf, 5), "0-1"); /* truncated whole */
}

static struct pb_cpu_place fixture_place(void)
{
	struct pb_cpu_place pl = {
	    .how = PB_PLACE_PROBE, .cpu = 0, .why = PB_CHOICE_LEAST_LOST, .probed = true};
	snprintf(pl.cpus, sizeof pl.cpus, "0-1");
	pl.probe.n = 2;
	pl.probe.cpu[0] = fig(0, 0.011, 7500, 9000);
	pl.probe.cpu[1] = fig(1, 0.079, 7500, 20000);
	pl.probe.wall_ms = 203;
	pl.probe.budget_ms = 200;
	pl.probe.slice_ms = 10;
	pl.probe.iters = 30000;
	return pl;
}

static void test_describe(void **state)
{
	(void)state;
	char buf[400];
	struct pb_cpu_place pl = fixture_place();
	assert_string_equal(pb_cpu_place_describe(&pl, "running unpinned", buf, sizeof buf),
	                    "CPU 0, the quietest of 0-1: a 0.20 s probe lost 1.1% of its time to "
	                    "interruptions there, 7.9% on CPU 1 (--cpu overrides)");
	pl.probe.n = 3;
	pl.probe.cpu[2] = fig(2, 0.03, 7500, 9000);
	snprintf(pl.cpus, sizeof pl.cpus, "0-2");
	pl.why = PB_CHOICE_TAIL;
	assert_non_null(strstr(pb_cpu_place_describe(&pl, "x", buf, sizeof buf),
	                       "CPU 0, a near-tie, the shorter tail, of 0-2"));
	assert_non_null(strstr(buf, "3.0-7.9% on the 2 others"));
	struct pb_cpu_place only = {.how = PB_PLACE_ONLY, .cpu = 3};
	assert_string_equal(pb_cpu_place_describe(&only, "x", buf, sizeof buf),
	                    "CPU 3, the only CPU this process may use (no probe)");
	struct pb_cpu_place none = {.how = PB_PLACE_NONE, .cpu = -1};
	snprintf(none.note, sizeof none.note, "--cpu any");
	assert_string_equal(pb_cpu_place_describe(&none, "running unpinned", buf, sizeof buf),
	                    "--cpu any: running unpinned");
}

static void test_json_shape(void **state)
{
	(void)state;
	struct pb_cpu_place pl = fixture_place();
	pl.probe.cpu[1].ok = false;
	pl.probe.cpu[1].error = 1; /* EPERM */
	json_t *o = pb_cpu_place_json(&pl);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "how")), "probe");
	assert_int_equal(json_integer_value(json_object_get(o, "cpu")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "cpus")), "0-1");
	json_t *probe = json_object_get(o, "probe");
	assert_true(json_is_object(probe));
	assert_true(json_is_number(json_object_get(probe, "wall_ms")));
	assert_true(json_is_string(json_object_get(probe, "rule")));
	json_t *per = json_object_get(probe, "per_cpu");
	assert_int_equal(json_array_size(per), 2);
	json_t *c0 = json_array_get(per, 0), *c1 = json_array_get(per, 1);
	assert_true(json_is_null(json_object_get(c0, "error")));
	assert_true(json_is_true(json_object_get(c0, "ok")));
	assert_true(json_is_string(json_object_get(c1, "error")));
	const char *keys[] = {"chunks", "min_ns",     "median_ns", "p99_ns",
	                      "max_ns", "lost_share", "probe_ns"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		assert_true(json_is_number(json_object_get(c0, keys[i])));
	assert_true(json_real_value(json_object_get(c0, "lost_share")) == 0.011);
	json_decref(o);
	/* --cpu any: no probe, null cpu */
	struct pb_cpu_place none = {.how = PB_PLACE_NONE, .cpu = -1};
	snprintf(none.note, sizeof none.note, "--cpu any");
	o = pb_cpu_place_json(&none);
	assert_string_equal(json_string_value(json_object_get(o, "how")), "none");
	assert_true(json_is_null(json_object_get(o, "cpu")));
	assert_true(json_is_null(json_object_get(o, "probe")));
	assert_string_equal(json_string_value(json_object_get(o, "note")), "--cpu any");
	json_decref(o);
	struct pb_cpu_place opt = {.how = PB_PLACE_OPTION, .cpu = 1};
	o = pb_cpu_place_json(&opt);
	assert_string_equal(json_string_value(json_object_get(o, "how")), "--cpu");
	json_decref(o);
}

static void test_budget(void **state)
{
	(void)state;
	unsetenv("PRIMBENCH_PROBE_MS");
	assert_true(pb_cpu_probe_budget_ms(2) == 200);
	assert_true(pb_cpu_probe_budget_ms(8) == 500);
	setenv("PRIMBENCH_PROBE_MS", "0", 1);
	assert_true(pb_cpu_probe_budget_ms(2) == 0);
	setenv("PRIMBENCH_PROBE_MS", "x", 1);
	assert_true(pb_cpu_probe_budget_ms(2) < 0);
	assert_non_null(strstr(pb_error(), "bad PRIMBENCH_PROBE_MS 'x'"));
	setenv("PRIMBENCH_PROBE_MS", "20000", 1);
	assert_true(pb_cpu_probe_budget_ms(2) < 0);
	unsetenv("PRIMBENCH_PROBE_MS");
}

static void check_invariants(const struct pb_cpu_noise *f)
{
	assert_true(f->ok);
	assert_int_equal(f->error, 0);
	assert_true(f->chunks > 0);
	assert_true(f->min_ns > 0);
	assert_true(f->min_ns <= f->median_ns);
	assert_true(f->median_ns <= f->p99_ns);
	assert_true(f->p99_ns <= f->max_ns);
	assert_true(f->lost_share >= 0 && f->lost_share < 1);
	assert_true(f->probe_ns >= (double)f->chunks * f->min_ns);
}

static void test_probe_invariants(void **state)
{
	(void)state;
	cpu_set_t before;
	assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
	struct pb_cpu_probe *pr = malloc(sizeof *pr);
	assert_non_null(pr);
	assert_int_equal(pb_cpu_probe_run(&before, 20, pr), 0);
	assert_int_equal(pr->n, (size_t)CPU_COUNT(&before) < PB_CPU_NOISE_MAX
	                            ? (size_t)CPU_COUNT(&before)
	                            : PB_CPU_NOISE_MAX);
	assert_true(pr->iters > 0);
	assert_true(pr->wall_ms > 0);
	for (size_t i = 0; i < pr->n; i++) {
		assert_true(CPU_ISSET(pr->cpu[i].cpu, &before));
		check_invariants(&pr->cpu[i]);
	}
	cpu_set_t now;
	sched_getaffinity(0, sizeof now, &now);
	assert_true(CPU_EQUAL(&now, &before)); /* put back */

	/* a CPU it cannot pin to: recorded, the others probed */
	int last = CPU_SETSIZE - 1;
	if (!CPU_ISSET(last, &before)) {
		cpu_set_t set = before;
		CPU_SET(last, &set);
		assert_int_equal(pb_cpu_probe_run(&set, 10, pr), 0);
		const struct pb_cpu_noise *bad = &pr->cpu[pr->n - 1];
		assert_int_equal(bad->cpu, last);
		assert_false(bad->ok);
		assert_true(bad->error != 0);
		assert_int_equal(bad->chunks, 0);
		int pick = pb_cpu_noise_choose(pr->cpu, pr->n, NULL);
		assert_true(pick >= 0 && pr->cpu[pick].cpu != last);
		/* only that CPU: nothing to choose */
		CPU_ZERO(&set);
		CPU_SET(last, &set);
		assert_int_equal(pb_cpu_probe_run(&set, 10, pr), 0);
		assert_int_equal(pb_cpu_noise_choose(pr->cpu, pr->n, NULL), -1);
		sched_getaffinity(0, sizeof now, &now);
		assert_true(CPU_EQUAL(&now, &before));
	}
	cpu_set_t empty;
	CPU_ZERO(&empty);
	assert_int_equal(pb_cpu_probe_run(&empty, 10, pr), -1);
	assert_int_equal(pb_cpu_probe_run(&before, 0, pr), -1);
	free(pr);
}

static void test_decide(void **state)
{
	(void)state;
	cpu_set_t before;
	sched_getaffinity(0, sizeof before, &before);
	int first = -1;
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &before))
			first = c;
	struct pb_cpu_place *pl = malloc(sizeof *pl);
	assert_non_null(pl);
	/* one CPU: that one, no probe */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(pb_cpu_place_decide(&one, pl), 0);
	assert_int_equal(pl->how, PB_PLACE_ONLY);
	assert_int_equal(pl->cpu, first);
	assert_false(pl->probed);
	/* two CPUs (one may be unusable): PRIMBENCH_PROBE_MS=0 skips the probe */
	cpu_set_t two = one;
	CPU_SET(first + 1, &two);
	setenv("PRIMBENCH_PROBE_MS", "0", 1);
	assert_int_equal(pb_cpu_place_decide(&two, pl), 0);
	assert_int_equal(pl->how, PB_PLACE_NONE);
	assert_int_equal(pl->cpu, -1);
	assert_non_null(strstr(pl->note, "PRIMBENCH_PROBE_MS=0"));
	setenv("PRIMBENCH_PROBE_MS", "bad", 1);
	assert_int_equal(pb_cpu_place_decide(&two, pl), -1);
	/* a short probe of the allowed CPUs picks one of them */
	setenv("PRIMBENCH_PROBE_MS", "10", 1);
	assert_int_equal(pb_cpu_place_decide(&before, pl), 0);
	if (CPU_COUNT(&before) > 1) {
		assert_int_equal(pl->how, PB_PLACE_PROBE);
		assert_true(pl->probed);
		assert_true(CPU_ISSET(pl->cpu, &before));
	}
	unsetenv("PRIMBENCH_PROBE_MS");
	cpu_set_t now;
	sched_getaffinity(0, sizeof now, &now);
	assert_true(CPU_EQUAL(&now, &before)); /* decide pins nothing */
	free(pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_choose_least_lost),
	    cmocka_unit_test(test_choose_near_ties),
	    cmocka_unit_test(test_choose_failures),
	    cmocka_unit_test(test_set_format),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_json_shape),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_probe_invariants),
	    cmocka_unit_test(test_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
