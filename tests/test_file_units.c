/* test_file_units.c - the one conversion of per-call ticks into the
 * printed units (pb_unit_convert, units.h) and a result file's own ns per
 * value (pb_file_ns_per_value, file_units.h): hand values, the edges at
 * size 0 and t <= 0, and a file read elsewhere converting with its own
 * timer.hz, never this process's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "primbench/file_units.h"
#include "primbench/units.h"

static void test_convert_hand_values(void **state)
{
	(void)state;
	/* 100 ticks at 0.5 ns each for 4096 bytes */
	assert_float_equal(pb_unit_convert(PB_UNIT_TICKS_PER_CALL, 100, 0.5, 4096), 100, 1e-12);
	assert_float_equal(pb_unit_convert(PB_UNIT_TICKS_PER_PAGE, 100, 0.5, 8192), 50, 1e-12);
	assert_float_equal(pb_unit_convert(PB_UNIT_NS_PER_CALL, 100, 0.5, 4096), 50, 1e-12);
	assert_float_equal(pb_unit_convert(PB_UNIT_BYTES_PER_TICK, 100, 0.5, 4096), 40.96, 1e-12);
	/* 4096 bytes in 50 ns: 81.92 bytes/ns = 81.92 GB/s */
	assert_float_equal(pb_unit_convert(PB_UNIT_GB_S, 100, 0.5, 4096), 81.92, 1e-12);
}

static void test_convert_edges(void **state)
{
	(void)state;
	assert_true(isnan(pb_unit_convert(PB_UNIT_TICKS_PER_PAGE, 100, 0.5, 0)));
	assert_float_equal(pb_unit_convert(PB_UNIT_BYTES_PER_TICK, 100, 0.5, 0), 0, 0);
	assert_float_equal(pb_unit_convert(PB_UNIT_GB_S, 100, 0.5, 0), 0, 0);
	assert_true(isinf(pb_unit_convert(PB_UNIT_BYTES_PER_TICK, 0, 0.5, 64)));
	assert_true(isinf(pb_unit_convert(PB_UNIT_GB_S, 0, 0.5, 64)));
	/* unknown ns per tick: the time-based units are NaN, the others not */
	assert_true(isnan(pb_unit_convert(PB_UNIT_NS_PER_CALL, 100, NAN, 64)));
	assert_true(isnan(pb_unit_convert(PB_UNIT_GB_S, 100, NAN, 64)));
	assert_float_equal(pb_unit_convert(PB_UNIT_BYTES_PER_TICK, 128, NAN, 64), 0.5, 1e-12);
	/* the helpers of units.h are the same conversion */
	assert_float_equal(pb_ticks_per_page(100, 8192), 50, 1e-12);
	assert_true(isnan(pb_ticks_per_page(100, 0)));
	assert_float_equal(pb_bytes_per_tick(100, 4096), 40.96, 1e-12);
}

static void test_file_ns_per_value(void **state)
{
	(void)state;
	struct pb_results_file f;
	memset(&f, 0, sizeof f);
	f.tsc_hz = 2e9;
	assert_float_equal(pb_file_ns_per_value(&f, "tsc_ticks"), 0.5, 1e-15);
	assert_float_equal(pb_file_ns_per_value(&f, "cntvct_ticks"), 0.5, 1e-15);
	assert_float_equal(pb_file_ns_per_value(&f, "ns"), 1, 0);
	assert_float_equal(pb_file_ns_per_value(&f, "furlongs"), 0, 0);
	assert_float_equal(pb_file_ns_per_value(&f, NULL), 0, 0);
	assert_float_equal(
	    pb_unit_convert(PB_UNIT_NS_PER_CALL, 100, pb_file_ns_per_value(&f, "tsc_ticks"), 64),
	    50, 1e-12);
	/* a file without machine.timer.hz: ticks cannot become ns, ns stay */
	f.tsc_hz = 0;
	assert_float_equal(pb_file_ns_per_value(&f, "tsc_ticks"), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_convert_hand_values),
	    cmocka_unit_test(test_convert_edges),
	    cmocka_unit_test(test_file_ns_per_value),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
