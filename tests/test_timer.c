/* test_timer.c - invariants of the timer on whatever machine runs the test.
 * No thresholds on speed: a loaded CI machine must not fail these.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/timer.h"
#include "timer/timer_internal.h"

static void check_info(const struct pb_timer_info *t)
{
	assert_non_null(t->clock_desc);
	assert_non_null(t->freq_source_desc);
	assert_true(t->hz > 0);
	assert_true(t->overhead_ticks >= 0);
	assert_true(t->step_ticks > 0);
	assert_true(t->core_hz_estimate >= 0);
	if (t->clock == PB_CLOCK_TSC) {
		assert_null(t->fallback_reason);
		assert_true(t->calibrated_hz > 0);
		assert_true(t->calibration_error_ppm >= 0);
		assert_true(
		    t->freq_source == PB_FREQ_CPUID_15H || t->freq_source == PB_FREQ_CPUID_16H ||
		    t->freq_source == PB_FREQ_REGISTER || t->freq_source == PB_FREQ_CALIBRATED);
		assert_true(pb_tick_unit_is_counter(t->tick_unit));
	} else {
		assert_non_null(t->fallback_reason);
		assert_true(t->hz == 1e9);
		assert_int_equal(t->freq_source, PB_FREQ_NOMINAL_NS);
	}
}

static void test_init(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	check_info(pb_timer_info());
	/* Idempotent: the same figures, not a new measurement. */
	struct pb_timer_info first = *pb_timer_info();
	assert_int_equal(pb_timer_init(), 0);
	assert_memory_equal(&first, pb_timer_info(), sizeof first);
}

static void test_tsc_when_invariant(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	bool want_tsc = pb_tsc_arch_present() && pb_tsc_arch_unusable() == NULL;
	/* A usable invariant TSC is used unless its calibration failed, which
	 * the fallback reason then says. */
	if (want_tsc && pb_timer_info()->clock != PB_CLOCK_TSC)
		assert_non_null(strstr(pb_timer_info()->fallback_reason, "rate against"));
	if (!want_tsc)
		assert_int_equal(pb_timer_info()->clock, PB_CLOCK_MONOTONIC_RAW);
}

static void test_begin_end_monotonic(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	pb_stamp prev = pb_timer_begin();
	for (int i = 0; i < 100000; i++) {
		pb_stamp now = pb_timer_begin();
		assert_true(now >= prev);
		prev = now;
	}
	/* A region that sleeps 2 ms lasts at least ~2 ms in ticks (a lower
	 * bound only: it may last any longer). */
	pb_stamp s = pb_timer_begin();
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
	uint64_t ticks = pb_timer_end(s);
	assert_true(pb_ticks_to_ns((double)ticks) >= 2000000 * 0.99);
}

static void test_ticks_to_ns(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	const struct pb_timer_info *t = pb_timer_info();
	assert_true(pb_ticks_to_ns(0) == 0);
	double ns = pb_ticks_to_ns(t->hz);
	assert_true(ns > 0.999999e9 && ns < 1.000001e9);
}

static void test_hw_counters_probe_answers(void **state)
{
	(void)state;
	char why[200] = "";
	(void)pb_timer_hw_counters_probe(why, sizeof why);
	assert_true(strlen(why) > 0); /* either way, it says why */
}

static void test_choose_hz(void **state)
{
	(void)state;
	enum pb_freq_source src;
	char d[320];
	/* 0x15 within 1%: cpuid wins (exact by construction). */
	double hz = pb_timer_choose_hz(2.1e9, 2.1e9, "leaves", 2.1001e9, 5, &src, d, sizeof d);
	assert_true(hz == 2.1e9);
	assert_int_equal(src, PB_FREQ_CPUID_15H);
	/* 0x15 off by 5%: calibration, and the description says so. */
	hz = pb_timer_choose_hz(2.2e9, 0, "leaves", 2.0e9, 5, &src, d, sizeof d);
	assert_true(hz == 2.0e9);
	assert_int_equal(src, PB_FREQ_CALIBRATED);
	assert_non_null(strstr(d, "not used"));
	/* 0x16 within 1% but calibration steady: calibration, 0x16 a cross-check. */
	hz = pb_timer_choose_hz(0, 2.6e9, "leaves", 2.599998e9, 5, &src, d, sizeof d);
	assert_true(hz == 2.599998e9);
	assert_int_equal(src, PB_FREQ_CALIBRATED);
	assert_non_null(strstr(d, "cross-check"));
	/* 0x16 within 1% and calibration noisy: 0x16. */
	hz = pb_timer_choose_hz(0, 2.6e9, "leaves", 2.599e9, 3000, &src, d, sizeof d);
	assert_true(hz == 2.6e9);
	assert_int_equal(src, PB_FREQ_CPUID_16H);
	/* Nothing from cpuid: calibration, with what the leaves said. */
	hz = pb_timer_choose_hz(0, 0, "cpuid leaves 0x15/0x16 exist but are zero", 2.6e9, 1, &src,
	                        d, sizeof d);
	assert_true(hz == 2.6e9);
	assert_int_equal(src, PB_FREQ_CALIBRATED);
	assert_non_null(strstr(d, "exist but are zero"));
}

/* A register's stated counter frequency (arm64 CNTFRQ_EL0) against the
 * calibration: used within 1%, set aside (and said so) beyond. */
static void test_choose_stated_hz(void **state)
{
	(void)state;
	enum pb_freq_source src;
	char d[320];
	double hz = pb_timer_choose_stated_hz(25e6, "CNTFRQ_EL0", 25.0001e6, 3, &src, d, sizeof d);
	assert_true(hz == 25e6);
	assert_int_equal(src, PB_FREQ_REGISTER);
	assert_non_null(strstr(d, "CNTFRQ_EL0"));
	/* firmware programmed the wrong figure: 5% off, the calibration wins */
	hz = pb_timer_choose_stated_hz(100e6, "CNTFRQ_EL0", 95e6, 3, &src, d, sizeof d);
	assert_true(hz == 95e6);
	assert_int_equal(src, PB_FREQ_CALIBRATED);
	assert_non_null(strstr(d, "not used"));
	assert_non_null(strstr(d, "+5.26%"));
	/* no calibration at all: never the register's word alone */
	hz = pb_timer_choose_stated_hz(1e9, "CNTFRQ_EL0", 0, 0, &src, d, sizeof d);
	assert_int_equal(src, PB_FREQ_CALIBRATED);
}

static void test_tick_unit_labels(void **state)
{
	(void)state;
	char b[64];
	assert_true(pb_tick_unit_is_counter("tsc_ticks"));
	assert_true(pb_tick_unit_is_counter("cntvct_ticks"));
	assert_false(pb_tick_unit_is_counter("ns"));
	assert_false(pb_tick_unit_is_counter(NULL));
	pb_tick_unit_label("tsc_ticks", 2e9, b, sizeof b);
	assert_string_equal(b, "TSC ticks (reference cycles)");
	pb_tick_unit_label("cntvct_ticks", 62.5e6, b, sizeof b);
	assert_string_equal(b, "counter ticks at 62.500 MHz");
	pb_tick_unit_label("cntvct_ticks", 0, b, sizeof b);
	assert_string_equal(b, "counter ticks");
	pb_tick_unit_label("ns", 1e9, b, sizeof b);
	assert_string_equal(b, "ns");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The shared overhead measurement's median is the sorted middle (odd and
 * even counts), and the quick start's clock and figures. */
static void test_overhead_median_and_quick(void **state)
{
	(void)state;
	static uint64_t v[1000], sorted[1000];
	for (size_t n = 1; n <= 1000; n += n < 8 ? 1 : 331) {
		double m = pb_timer_overhead_measure(v, n);
		memcpy(sorted, v, n * sizeof *v);
		qsort(sorted, n, sizeof *v, cmp_u64);
		double want = n % 2 ? (double)sorted[n / 2]
		                    : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
		assert_true(m == want);
	}
	assert_int_equal(pb_timer_init(), 0);
	struct pb_timer_quick q;
	pb_timer_init_quick(&q);
	/* the quick start does not calibrate: it takes the TSC whenever the
	 * full init does (and also where only calibration refused it) */
	if (pb_timer_info()->clock == PB_CLOCK_TSC)
		assert_true(q.tsc);
	assert_true(q.overhead_ticks >= 0);
	assert_true(q.tsc ? q.hz >= 0 : q.hz == 1e9);
}

#if defined(__x86_64__) /* invariant_tsc is an x86 feature */
/* Last: hiding invariant_tsc is permanent for this process. */
static void test_fallback_when_hidden(void **state)
{
	(void)state;
	assert_int_equal(pb_cpu_hide_features("invariant_tsc"), 0);
	pb_timer_reset_for_tests();
	assert_int_equal(pb_timer_init(), 0);
	const struct pb_timer_info *t = pb_timer_info();
	assert_int_equal(t->clock, PB_CLOCK_MONOTONIC_RAW);
	assert_non_null(t->fallback_reason);
	check_info(t);
	pb_stamp a = pb_timer_begin();
	uint64_t d = pb_timer_end(a);
	assert_true(d < 1000000000ull * 60); /* ns, not a wrapped difference */
	pb_stamp b = pb_timer_begin();
	assert_true(b >= a);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_tsc_when_invariant),
		cmocka_unit_test(test_begin_end_monotonic),
		cmocka_unit_test(test_ticks_to_ns),
		cmocka_unit_test(test_hw_counters_probe_answers),
		cmocka_unit_test(test_choose_hz),
		cmocka_unit_test(test_choose_stated_hz),
		cmocka_unit_test(test_tick_unit_labels),
		cmocka_unit_test(test_overhead_median_and_quick),
#if defined(__x86_64__)
		cmocka_unit_test(test_fallback_when_hidden),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
