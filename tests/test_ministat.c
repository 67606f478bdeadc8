/* test_ministat.c - ministat(1)'s arithmetic (src/stats/ministat.c) on
 * ministat's own example, figures as ministat prints them (`ministat -c 80
 * iguana chameleon`), and its t table's quirks. The CLI's byte-for-byte
 * parity with ministat is test_stats_cli's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "primbench/ministat.h"

static void assert_g(double v, const char *printed, int digits)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*g", digits, v);
	assert_string_equal(buf, printed);
}

static void test_levels(void **state)
{
	(void)state;
	assert_int_equal(pb_ministat_level_index(95), 2);
	assert_int_equal(pb_ministat_level_index(99.5), 5);
	assert_int_equal(pb_ministat_level_index(97), -1);
	assert_true(pb_ministat_level_pct(0) == 80);
}

static void test_t_table(void **state)
{
	(void)state;
	assert_true(pb_ministat_t(10, 2) == 2.228); /* the exact quantile, rounded */
	assert_true(pb_ministat_t(101, 2) == 1.96); /* the normal beyond 100 df */
	assert_true(pb_ministat_t(100, 2) == 1.984);
	assert_true(pb_ministat_t(7, 5) == 4.782); /* one of ministat's own digits */
	assert_true(pb_ministat_t(13, 5) == round(1000 * 3.8520) / 1000);
}

static void test_iguana_chameleon(void **state)
{
	(void)state;
	double x[] = {50, 200, 150, 400, 750, 400, 150};
	double y[] = {150, 400, 720, 500, 930};
	struct pb_ministat_vitals vx, vy;
	pb_ministat_vitals(x, 7, &vx);
	pb_ministat_vitals(y, 5, &vy);
	assert_true(x[0] == 50 && x[6] == 750); /* sorted in place */
	assert_true(vx.sum == 2100 && vx.mean == 300 && vx.median == 200);
	assert_true(vy.mean == 540 && vy.median == 500);
	assert_g(vx.sd, "238.04761", 8);
	assert_g(vy.sd, "299.08193", 8);
	struct pb_ministat_relative r;
	assert_int_equal(pb_ministat_relative(x, 7, &vx, y, 5, &vy, 0, &r), 0);
	assert_true(r.significant);
	assert_g(r.diff, "240", 6);
	assert_g(r.half_width, "212.215", 6);
	assert_g(r.pct, "80", 6);
	assert_g(r.pct_half_width, "70.7384", 6);
	assert_g(r.pooled_sd, "264.159", 6);
	assert_int_equal(pb_ministat_relative(x, 7, &vx, y, 5, &vy, 2, &r), 0);
	assert_false(r.significant); /* "No difference proven at 95.0% confidence" */
}

static void test_even_median(void **state)
{
	(void)state;
	double v[] = {4, 1, 3, 2};
	struct pb_ministat_vitals s;
	pb_ministat_vitals(v, 4, &s);
	assert_true(s.median == 3); /* the upper middle value, as ministat */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test(test_t_table),
	    cmocka_unit_test(test_iguana_chameleon),
	    cmocka_unit_test(test_even_median),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
