/* test_tsc_sync.c - the TSC synchronization check: sane figures on two
 * CPUs of this machine (when it has two), a single CPU trivially
 * synchronized, errors. No timing thresholds: only relations the method
 * guarantees (include/primbench/tsc_sync.h).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hwloc.h>

#include "primbench/error.h"
#include "primbench/placement.h"
#include "primbench/tsc_sync.h"
#include "timer/timer_internal.h"

#define ROUNDS 2000

/* The first two CPUs the cgroup allows (not the affinity: the tests run
 * under taskset -c 0, and the check may widen its own threads'). Returns
 * false when there are fewer than two. */
static bool two_cpus(unsigned *a, unsigned *b)
{
	hwloc_topology_t t = pb_placement_topology();
	assert_non_null(t);
	hwloc_const_cpuset_t set = hwloc_topology_get_allowed_cpuset(t);
	int first = hwloc_bitmap_first(set), second = hwloc_bitmap_next(set, first);
	if (first < 0 || second < 0)
		return false;
	*a = (unsigned)first;
	*b = (unsigned)second;
	return true;
}

static void check_pair(const struct pb_tsc_pair *p)
{
	printf("# cpu %u -> %u: offset %.1f ticks, bound %.1f, min round trip %llu, %s\n", p->cpu_a,
	       p->cpu_b, p->offset_ticks, p->bound_ticks,
	       (unsigned long long)p->min_round_trip_ticks,
	       p->synchronized ? "synchronized" : "not synchronized");
	assert_true(isfinite(p->offset_ticks));
	assert_true(isfinite(p->bound_ticks));
	assert_true(p->min_round_trip_ticks > 0);
	/* The intersection of the rounds' intervals is no wider than the
	 * narrowest, one round trip. */
	assert_true(p->bound_ticks <= (double)p->min_round_trip_ticks / 2);
	assert_int_equal(p->synchronized, fabs(p->offset_ticks) <= p->bound_ticks);
	/* A bound <= 0 means no constant offset explains the stamps. */
	assert_true(p->bound_ticks > 0 || !p->synchronized);
}

/* Under qemu-user (PB_TEST_EMULATED: tests/CMakeLists.txt) CNTVCT_EL0
 * comes from the host's gettimeofday: it moves in 1 us steps (62-63 ticks
 * at 62.5 MHz), so a round trip between two threads, shorter than that,
 * often reads 0 ticks and the bounds below cannot hold. */
static void skip_when_emulated(void)
{
	if (getenv("PB_TEST_EMULATED")) {
		print_message("emulated: the counter moves in 1 us steps\n");
		skip();
	}
}

static void test_pair(void **state)
{
	(void)state;
	skip_when_emulated();
	unsigned a = 0, b = 0;
	if (!two_cpus(&a, &b))
		skip();
	struct pb_tsc_pair p;
	if (!pb_tsc_arch_present()) {
		assert_int_equal(pb_tsc_sync_pair(a, b, ROUNDS, &p), -1);
		assert_string_equal(pb_error(), "no TSC on this architecture build");
		return;
	}
	if (pb_tsc_sync_pair(a, b, ROUNDS, &p) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(p.cpu_a, a);
	assert_int_equal(p.cpu_b, b);
	check_pair(&p);
	/* The other way round: the offset changes sign, within the bounds. */
	struct pb_tsc_pair q;
	assert_int_equal(pb_tsc_sync_pair(b, a, ROUNDS, &q), 0);
	check_pair(&q);
	if (p.bound_ticks > 0 && q.bound_ticks > 0)
		assert_true(fabs(p.offset_ticks + q.offset_ticks) <= p.bound_ticks + q.bound_ticks);
}

static void test_set(void **state)
{
	(void)state;
	skip_when_emulated();
	unsigned cpus[3] = {0, 0, 0};
	if (!two_cpus(&cpus[0], &cpus[1]))
		skip();
	cpus[2] = cpus[0]; /* a repeat of the first: skipped */
	struct pb_tsc_sync s;
	assert_int_equal(pb_tsc_sync_check(cpus, 3, ROUNDS, &s), 0);
	if (!pb_tsc_arch_present()) {
		assert_false(s.measured);
		assert_false(s.synchronized);
		assert_string_equal(s.note, "no TSC on this architecture build");
		return;
	}
	assert_true(s.measured);
	assert_int_equal(s.n_pairs, 1);
	assert_int_equal(s.worst_cpu, cpus[1]);
	assert_true(isfinite(s.max_abs_offset_ticks) && s.max_abs_offset_ticks >= 0);
	assert_true(s.min_round_trip_ticks > 0);
	assert_int_equal(s.synchronized, s.max_abs_offset_ticks <= s.bound_ticks);
	if (s.synchronized && s.invariant)
		assert_string_equal(s.note, "");
	else
		assert_true(s.note[0] != '\0');
	printf("# set: max |offset| %.1f ticks, bound %.1f: %s\n", s.max_abs_offset_ticks,
	       s.bound_ticks, s.note[0] ? s.note : "synchronized");
}

static void test_one_cpu(void **state)
{
	(void)state;
	unsigned cpus[] = {0, 0};
	struct pb_tsc_sync s;
	for (unsigned n = 1; n <= 2; n++) {
		assert_int_equal(pb_tsc_sync_check(cpus, n, ROUNDS, &s), 0);
		assert_false(s.measured);
		assert_int_equal(s.n_pairs, 0);
		assert_int_equal(s.worst_cpu, 0);
		assert_true(s.max_abs_offset_ticks == 0);
		if (pb_tsc_arch_present()) {
			assert_true(s.synchronized);
			assert_string_equal(s.note, "one CPU: nothing to compare");
		}
	}
}

static void test_errors(void **state)
{
	(void)state;
	struct pb_tsc_sync s;
	assert_int_equal(pb_tsc_sync_check(NULL, 0, ROUNDS, &s), -1);
	assert_string_equal(pb_error(), "the TSC check needs at least one CPU");
	if (!pb_tsc_arch_present())
		return;
	struct pb_tsc_pair p;
	assert_int_equal(pb_tsc_sync_pair(0, 0, ROUNDS, &p), -1);
	assert_string_equal(pb_error(), "the TSC check needs two CPUs (both are 0)");
	/* No CPU 1000 here (CPU_SETSIZE is 1024): the pin fails, nothing hangs. */
	assert_int_equal(pb_tsc_sync_pair(0, 1000, ROUNDS, &p), -1);
	assert_string_equal(pb_error(), "cannot run on CPU 1000: Invalid argument");
	assert_int_equal(pb_tsc_sync_pair(1000, 0, ROUNDS, &p), -1);
	assert_string_equal(pb_error(), "cannot run on CPU 1000: Invalid argument");
	assert_int_equal(pb_tsc_sync_pair(0, 5000, ROUNDS, &p), -1);
	assert_string_equal(pb_error(), "cannot run on CPU 5000: Invalid argument");
	unsigned cpus[] = {0, 1000};
	assert_int_equal(pb_tsc_sync_check(cpus, 2, ROUNDS, &s), -1);
	assert_string_equal(pb_error(), "cannot run on CPU 1000: Invalid argument");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pair),
	    cmocka_unit_test(test_set),
	    cmocka_unit_test(test_one_cpu),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
