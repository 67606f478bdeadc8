/* test_counters.c - hardware counters (perf_event_open group).
 *
 * Deterministic everywhere: the path without counters (forced with
 * PRIMBENCH_NO_COUNTERS), calls on a group that is not open, and the pure
 * parts fed with what a machine with counters returns (the PERF_FORMAT_GROUP
 * read layout, multiplexing scaling, failure reasons), and the group's
 * syscalls with software events standing in for the hardware ones. The
 * real open is
 * checked for either outcome, never for which one (most VMs have no PMU),
 * and never for speed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "primbench/counters.h"
#include "primbench/error.h"
#include "timer/counters_internal.h"

static void assert_one_line(const char *s)
{
	assert_non_null(s);
	assert_true(strlen(s) > 0);
	assert_null(strchr(s, '\n'));
}

static void spin(void)
{
	volatile uint64_t sink = 0;
	for (int i = 0; i < 1000000; i++)
		sink = sink + (uint64_t)i;
}

/* PRIMBENCH_NO_COUNTERS=1: the probe and every open fail, naming it. */
static void test_absent_by_env(void **state)
{
	(void)state;
	assert_int_equal(setenv("PRIMBENCH_NO_COUNTERS", "1", 1), 0);
	pb_counters_reset_for_tests();

	pb_fail("sentinel");
	char why[PB_COUNTERS_REASON_LEN] = "";
	assert_false(pb_counters_available(why, sizeof why));
	assert_one_line(why);
	assert_non_null(strstr(why, "disabled by PRIMBENCH_NO_COUNTERS"));
	assert_string_equal(pb_error(), "sentinel"); /* the probe leaves pb_error() alone */

	/* Cached: the same answer without probing again. */
	char again[PB_COUNTERS_REASON_LEN] = "";
	assert_false(pb_counters_available(again, sizeof again));
	assert_string_equal(why, again);
	assert_false(pb_counters_available(NULL, 0));

	struct pb_counters c;
	assert_int_equal(pb_counters_open(&c), -1);
	assert_one_line(c.reason);
	assert_non_null(strstr(c.reason, "disabled by PRIMBENCH_NO_COUNTERS"));
	assert_string_equal(pb_error(), c.reason);

	/* A failed open leaves a group that is not open. */
	struct pb_counter_values v;
	assert_int_equal(pb_counters_start(&c), -1);
	assert_int_equal(pb_counters_stop(&c, &v), -1);
	pb_counters_close(&c);
	assert_non_null(strstr(c.reason, "PRIMBENCH_NO_COUNTERS")); /* close keeps it */

	assert_int_equal(unsetenv("PRIMBENCH_NO_COUNTERS"), 0);
	pb_counters_reset_for_tests();
}

/* "" and "0" do not disable. */
static void test_env_zero_does_not_disable(void **state)
{
	(void)state;
	const char *values[] = {"0", ""};
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		assert_int_equal(setenv("PRIMBENCH_NO_COUNTERS", values[i], 1), 0);
		pb_counters_reset_for_tests();
		char why[PB_COUNTERS_REASON_LEN] = "";
		(void)pb_counters_available(why, sizeof why);
		assert_one_line(why);
		assert_null(strstr(why, "PRIMBENCH_NO_COUNTERS"));
	}
	assert_int_equal(unsetenv("PRIMBENCH_NO_COUNTERS"), 0);
	pb_counters_reset_for_tests();
}

/* Whatever this machine has: -1 with a reason, or 0 and sane counts. */
static void test_real_open_either_way(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("PRIMBENCH_NO_COUNTERS"), 0);
	pb_counters_reset_for_tests();

	char why[PB_COUNTERS_REASON_LEN] = "";
	bool avail = pb_counters_available(why, sizeof why);
	assert_one_line(why);
	print_message("pb_counters_available: %s: %s\n", avail ? "yes" : "no", why);

	struct pb_counters c;
	if (pb_counters_open(&c) != 0) {
		assert_one_line(c.reason);
		assert_string_equal(pb_error(), c.reason);
		assert_non_null(strstr(c.reason, "hardware performance counters"));
		struct pb_counter_values v;
		assert_int_equal(pb_counters_start(&c), -1);
		assert_int_equal(pb_counters_stop(&c, &v), -1);
		pb_counters_close(&c);
		return;
	}
	assert_string_equal(c.reason, "");
	struct pb_counter_values v;
	assert_int_equal(pb_counters_stop(&c, &v), -1); /* not started */
	for (int round = 0; round < 2; round++) {       /* the group can be reused */
		assert_int_equal(pb_counters_start(&c), 0);
		spin();
		assert_int_equal(pb_counters_stop(&c, &v), 0);
		assert_true(v.instructions > 0);
		assert_true(v.cycles > 0);
		assert_true(v.running_fraction > 0 && v.running_fraction <= 1);
		assert_true(v.multiplexed == (v.running_fraction < 1));
		print_message("cycles %llu instructions %llu cache misses %llu running %.3f\n",
		              (unsigned long long)v.cycles, (unsigned long long)v.instructions,
		              (unsigned long long)v.cache_misses, v.running_fraction);
	}
	assert_int_equal(pb_counters_stop(&c, &v), -1); /* stopped already */
	pb_counters_close(&c);
	assert_int_equal(pb_counters_start(&c), -1); /* closed */
	pb_counters_close(&c);                       /* twice is harmless */
}

/* The real open/ioctl/read path with software events, which need no PMU:
 * each interval counts only its own page faults (RESET works, every member
 * counts in every interval, values land by id). Where perf_event_open is
 * forbidden altogether (perf_event_paranoid 3, seccomp) it only checks the
 * reason. */
static void test_group_mechanics_with_software_events(void **state)
{
	(void)state;
	assert_int_equal(unsetenv("PRIMBENCH_NO_COUNTERS"), 0);
	pb_counters_use_software_events_for_tests(true);
	struct pb_counters c;
	if (pb_counters_open(&c) != 0) {
		print_message("software events not available: %s\n", c.reason);
		assert_one_line(c.reason);
		pb_counters_use_software_events_for_tests(false);
		return;
	}
	for (size_t round = 1; round <= 3; round++) {
		size_t pages = 64 * round;
		char *p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(p != MAP_FAILED);
		struct pb_counter_values v;
		assert_int_equal(pb_counters_start(&c), 0);
		for (size_t i = 0; i < pages; i++)
			((volatile char *)p)[i * 4096] = 1;
		assert_int_equal(pb_counters_stop(&c, &v), 0);
		assert_int_equal(munmap(p, pages * 4096), 0);
		/* cycles = task-clock ns, instructions = cpu-clock ns,
		 * cache_misses = page faults: at least one (a kernel may map
		 * several pages per fault; a sanitizer's shadow memory adds
		 * faults of its own, so no upper bound). */
		assert_true(v.cycles > 0);
		assert_true(v.instructions > 0);
		assert_true(v.cache_misses >= 1);
		assert_false(v.multiplexed);
		assert_true(v.running_fraction == 1.0);
	}
	pb_counters_close(&c);
	pb_counters_use_software_events_for_tests(false);
}

/* Back to the hardware events even when the test above failed midway. */
static int use_hardware_events(void **state)
{
	(void)state;
	pb_counters_use_software_events_for_tests(false);
	return 0;
}

/* A zero-initialized group was never opened: -1, no crash. */
static void test_unopened(void **state)
{
	(void)state;
	struct pb_counters c = {0};
	struct pb_counter_values v;
	memset(&v, 0xff, sizeof v);
	assert_int_equal(pb_counters_start(&c), -1);
	assert_one_line(pb_error());
	assert_int_equal(pb_counters_stop(&c, &v), -1);
	assert_one_line(pb_error());
	assert_true(v.cycles == 0 && v.instructions == 0 && v.cache_misses == 0);
	pb_counters_close(&c);
	pb_counters_close(&c);
}

/* The read layout: nr, time_enabled, time_running, {value, id} x nr, with
 * values placed by id whatever order the kernel lists them in. */
static void test_decode(void **state)
{
	(void)state;
	const uint64_t ids[PB_COUNTERS_EVENTS] = {101, 102, 103};
	uint64_t buf[PB_COUNTERS_READ_WORDS] = {3, 5000, 4000, 30, 103, 10, 101, 20, 102};
	struct pb_counters_reading r;
	char why[200];
	assert_int_equal(pb_counters_decode(buf, sizeof buf, ids, &r, why, sizeof why), 0);
	assert_true(r.time_enabled == 5000 && r.time_running == 4000);
	assert_true(r.value[0] == 10 && r.value[1] == 20 && r.value[2] == 30);

	assert_int_equal(pb_counters_decode(buf, sizeof buf - 8, ids, &r, why, sizeof why), -1);
	assert_non_null(strstr(why, "bytes"));
	assert_int_equal(pb_counters_decode(buf, -1, ids, &r, why, sizeof why), -1);
	buf[0] = 2;
	assert_int_equal(pb_counters_decode(buf, sizeof buf, ids, &r, why, sizeof why), -1);
	assert_non_null(strstr(why, "events"));
	buf[0] = 3;
	buf[4] = 999;
	assert_int_equal(pb_counters_decode(buf, sizeof buf, ids, &r, why, sizeof why), -1);
	assert_non_null(strstr(why, "999"));
	buf[4] = 101; /* 101 twice, 103 missing */
	assert_int_equal(pb_counters_decode(buf, sizeof buf, ids, &r, why, sizeof why), -1);
}

static void test_diff(void **state)
{
	(void)state;
	struct pb_counters_reading a = {1000, 1000, {100, 200, 300}};
	struct pb_counters_reading b = {3000, 3000, {1100, 2200, 3300}};
	struct pb_counter_values v;
	char why[200];

	/* On the PMU the whole time: exact differences. */
	assert_int_equal(pb_counters_diff(&a, &b, &v, why, sizeof why), 0);
	assert_false(v.multiplexed);
	assert_true(v.running_fraction == 1.0);
	assert_true(v.cycles == 1000 && v.instructions == 2000 && v.cache_misses == 3000);

	/* Half the time: flagged, scaled by enabled/running. */
	b.time_running = 2000;
	assert_int_equal(pb_counters_diff(&a, &b, &v, why, sizeof why), 0);
	assert_true(v.multiplexed);
	assert_true(v.running_fraction == 0.5);
	assert_true(v.cycles == 2000 && v.instructions == 4000 && v.cache_misses == 6000);

	/* A third of the time: rounded to nearest (1000 * 3 = 3000). */
	b.time_enabled = 4000; /* 3000 enabled, 1000 running */
	assert_int_equal(pb_counters_diff(&a, &b, &v, why, sizeof why), 0);
	assert_true(v.running_fraction > 0.333 && v.running_fraction < 0.334);
	assert_true(v.cycles == 3000);

	/* Never on the PMU: nothing counted, an error. */
	b.time_running = a.time_running;
	assert_int_equal(pb_counters_diff(&a, &b, &v, why, sizeof why), -1);
	assert_non_null(strstr(why, "never got onto the PMU"));
	assert_true(v.cycles == 0);

	/* Backwards: an error, not a wrapped difference. */
	b.time_running = 3000;
	b.value[1] = 1;
	assert_int_equal(pb_counters_diff(&a, &b, &v, why, sizeof why), -1);
	assert_non_null(strstr(why, "instructions"));
}

static void test_explain(void **state)
{
	(void)state;
	char m[PB_COUNTERS_REASON_LEN];

	pb_counters_explain(ENOENT, "cycles", 2, true, m, sizeof m);
	assert_string_equal(m, "hardware performance counters not available here: "
	                       "perf_event_open(cycles): No such file or directory (no PMU "
	                       "exposed to this guest)");
	pb_counters_explain(ENOENT, "cycles", 2, false, m, sizeof m);
	assert_non_null(strstr(m, "no hardware PMU driver"));
	pb_counters_explain(ENOENT, "cache-misses", 2, true, m, sizeof m);
	assert_non_null(strstr(m, "perf_event_open(cache-misses)"));
	assert_non_null(strstr(m, "no generic cache-misses event"));

	pb_counters_explain(EACCES, "cycles", 3, false, m, sizeof m);
	assert_one_line(m);
	assert_non_null(strstr(m, "Permission denied"));
	assert_non_null(strstr(m, "perf_event_paranoid is 3"));
	assert_non_null(strstr(m, "kernel.perf_event_paranoid=2"));
	pb_counters_explain(EPERM, "cycles", 2, false, m, sizeof m);
	assert_non_null(strstr(m, "perf_event_paranoid is 2, which allows it"));
	assert_non_null(strstr(m, "seccomp"));
	pb_counters_explain(EACCES, "cycles", PB_PARANOID_UNKNOWN, false, m, sizeof m);
	assert_non_null(strstr(m, "unreadable"));

	pb_counters_explain(ENOSYS, "cycles", PB_PARANOID_UNKNOWN, false, m, sizeof m);
	assert_non_null(strstr(m, "without perf events"));
	pb_counters_explain(ENOSYS, "cycles", 2, false, m, sizeof m);
	assert_non_null(strstr(m, "seccomp"));

	/* Other errors: the system's message, no hint; all one line. */
	pb_counters_explain(ENXIO, "instructions", 2, false, m, sizeof m);
	assert_one_line(m);
	assert_non_null(strstr(m, "perf_event_open(instructions): "));
	assert_true(m[strlen(m) - 1] != ')');

	/* A short buffer truncates, still terminated. */
	char small[20];
	pb_counters_explain(EACCES, "cycles", 3, false, small, sizeof small);
	assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_absent_by_env),
	    cmocka_unit_test(test_env_zero_does_not_disable),
	    cmocka_unit_test(test_real_open_either_way),
	    cmocka_unit_test_teardown(test_group_mechanics_with_software_events,
	                              use_hardware_events),
	    cmocka_unit_test(test_unopened),
	    cmocka_unit_test(test_decode),
	    cmocka_unit_test(test_diff),
	    cmocka_unit_test(test_explain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
