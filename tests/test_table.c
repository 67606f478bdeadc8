/* test_table.c - the mem tables' figures (src/report/table.c): small
 * figures keep three significant digits (never "0.00"), and size 0, which
 * moves no bytes, has no per-byte figure ("-", said under the table);
 * cmd's times show no more decimals than their clock resolves. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/kernels.h"
#include "primbench/mem.h"
#include "primbench/report.h"
#include "primbench/timer.h"

static void test_sig3(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *want;
	} cases[] = {
	    {0, "0"},
	    {1234, "1234"},
	    {12.34, "12.3"},
	    {1.234, "1.23"},
	    {0.5234, "0.523"},
	    {0.05234, "0.0523"},
	    {0.005234, "0.00523"},
	    {0.0016543, "0.00165"},
	    {0.0005234, "5.23e-4"},
	    {0.99996, "1.00"},
	    {0.099996, "0.100"},
	    {1.58e7, "1.58e7"},
	    {NAN, "-"},
	    {INFINITY, "inf"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[24];
		pb_format_sig3(buf, sizeof buf, cases[i].v);
		if (strcmp(buf, cases[i].want))
			fail_msg("%g: got '%s', want '%s'", cases[i].v, buf, cases[i].want);
		assert_true(strlen(buf) <= 7);
	}
}

/* cmd's times: decimals from the clock's resolution, never more. */
static void test_time(void **state)
{
	(void)state;
	char buf[24];
	pb_format_time(buf, sizeof buf, 481, 1e3, 1000); /* user, us */
	assert_string_equal(buf, "481");
	pb_format_time(buf, sizeof buf, 0.481, 1e6, 1000); /* user, ms */
	assert_string_equal(buf, "0.481");
	pb_format_time(buf, sizeof buf, 12.3456, 1e9, 1000); /* user, s */
	assert_string_equal(buf, "12.346");
	pb_format_time(buf, sizeof buf, 481.25, 1e3, 1); /* real, us */
	assert_string_equal(buf, "481.250");
	pb_format_time(buf, sizeof buf, 481.27, 1e3, 100); /* a mean of user, us */
	assert_string_equal(buf, "481.3");
	pb_format_time(buf, sizeof buf, 123456.7, 1e6, 1);
	assert_string_equal(buf, "1.235e+05");
}

static struct pb_mem_case mem_case(const char *kernel, uint64_t size, double ticks)
{
	struct pb_mem_case c = {0};
	c.op = PB_OP_MEMSET;
	c.kernel = pb_kernel_find(PB_OP_MEMSET, kernel);
	assert_non_null(c.kernel);
	c.size_bytes = size;
	c.state = PB_STATE_DRAM;
	c.page_bytes = 4096;
	c.n_samples = 11;
	c.ticks_per_call = (struct pb_summary){.n = 11,
	                                       .median = ticks,
	                                       .ci_valid = true,
	                                       .ci_lo = ticks * 0.99,
	                                       .ci_hi = ticks * 1.01};
	return c;
}

/* The table's text, malloc'd. text and len are static, as in
 * test_accounting.c's print(): with automatic ones gcc 12 (aarch64, -O2)
 * takes the returned text for a pointer that may still point at them
 * (-Wdangling-pointer). */
static char *table(const struct pb_mem_result *r, enum pb_unit unit, bool fastest)
{
	static char *text;
	static size_t len;
	text = NULL;
	len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	if (fastest)
		pb_print_mem_fastest(f, r, PB_OP_MEMSET, PB_STATE_DRAM);
	else
		pb_print_mem_table(f, r, PB_OP_MEMSET, PB_STATE_DRAM, unit);
	fclose(f);
	return text;
}

static void test_size_zero(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	struct pb_mem_case cases[] = {
	    mem_case("libc", 0, 50),
	    mem_case("bytes", 0, 60),
	    mem_case("libc", 64, 70),
	    mem_case("bytes", 64, 90),
	};
	struct pb_mem_result r = {.cases = cases, .n_cases = 4};
	char *t = table(&r, PB_UNIT_GB_S, false);
	/* size 0: "-" for every kernel, and why, once */
	assert_non_null(strstr(t, "\nlibc               -  "));
	assert_non_null(strstr(t, "\nbytes              -  "));
	assert_non_null(strstr(t, "\nsize 0 moves no bytes: no GB/s (--unit ticks/call or ns/call "
	                          "times it)\n"));
	free(t);
	/* ticks/call times it: figures, no note */
	t = table(&r, PB_UNIT_TICKS_PER_CALL, false);
	assert_non_null(strstr(t, "\nlibc            50.0*"));
	assert_null(strstr(t, "size 0 moves no bytes"));
	free(t);
	/* the fastest table: per-byte columns "-" at size 0 */
	t = table(&r, PB_UNIT_GB_S, true);
	assert_non_null(strstr(t, "\n       0  libc                 50.0           -           -"
	                          "          -\n"));
	free(t);
}

/* mem clear_page's tables are titled clear_page, not memset
 * (pb_mem_result.page_op), and a plain memset run's by the op. */
static void test_page_op_title(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	struct pb_mem_case cases[] = {mem_case("libc", 4096, 90), mem_case("bytes", 4096, 2900)};
	struct pb_mem_result r = {.cases = cases, .n_cases = 2};
	char *t = table(&r, PB_UNIT_TICKS_PER_PAGE, false);
	assert_non_null(strstr(t, "\nmemset, dram ("));
	free(t);
	t = table(&r, PB_UNIT_TICKS_PER_CALL, true);
	assert_non_null(strstr(t, "\nfastest memset, dram"));
	free(t);
	r.page_op = "clear_page";
	t = table(&r, PB_UNIT_TICKS_PER_PAGE, false);
	assert_non_null(strstr(t, "\nclear_page, dram ("));
	assert_null(strstr(t, "memset"));
	free(t);
	t = table(&r, PB_UNIT_TICKS_PER_CALL, true);
	assert_non_null(strstr(t, "\nfastest clear_page, dram"));
	free(t);
	/* the spread line names the case by it too */
	char *q = NULL;
	size_t qlen = 0;
	FILE *f = open_memstream(&q, &qlen);
	assert_non_null(f);
	pb_print_mem_quality(f, &r);
	fclose(f);
	assert_non_null(strstr(q, "(clear_page/libc 4K dram)"));
	assert_null(strstr(q, "memset"));
	free(q);
}

/* cmd's run-1 line names the rule it judged by and its fences. */
static void test_first_run_text(void **state)
{
	(void)state;
	char buf[400];
	/* later runs 100..106: median 103, Q1 101.5, Q3 104.5, fences
	 * 92.5-113.5, as ratios 0.90x-1.10x */
	const double cold[] = {314, 100, 101, 102, 103, 104, 105, 106};
	assert_true(pb_format_first_run(buf, sizeof buf, cold, 8));
	assert_non_null(strstr(buf, "run 1 took 3.05x the median of runs 2-8: an outlier, outside "
	                            "0.90x-1.10x that median"));
	assert_non_null(strstr(buf, "Q1 - 3 IQR and Q3 + 3 IQR"));
	assert_non_null(strstr(buf, "--warmup 1"));
	const double fast[] = {20, 100, 101, 102, 103, 104, 105, 106};
	assert_true(pb_format_first_run(buf, sizeof buf, fast, 8));
	assert_non_null(strstr(buf, "run 1 took 0.19x the median of runs 2-8: an outlier"));
	assert_null(strstr(buf, "cold cache"));
	assert_non_null(strstr(buf, "--warmup 1"));
	const double warm[] = {110, 100, 101, 102, 103, 104, 105, 106};
	assert_true(pb_format_first_run(buf, sizeof buf, warm, 8));
	assert_non_null(strstr(buf, "run 1 took 1.07x the median of runs 2-8: not an outlier, "
	                            "inside 0.90x-1.10x that median"));
	assert_null(strstr(buf, "--warmup"));
	/* later runs that agree to 0.04%: the fences stay +-10% wide, so a
	 * run 1 2% slower is no outlier */
	const double tight[] = {1.02, 1.0000, 1.0001, 1.0002, 1.0003, 1.0004};
	assert_true(pb_format_first_run(buf, sizeof buf, tight, 6));
	assert_non_null(strstr(buf, "not an outlier, inside 0.90x-1.10x that median"));
	assert_non_null(strstr(buf, "at least +-10%"));
	/* a lower fence below 0 (the spread of docs/cases.md's T1): only the
	 * upper one is named */
	const double t1[] = {864.743, 59.025, 65.021, 44.814, 45.377,
	                     54.098,  34.329, 34.511, 42.370, 59.928};
	assert_true(pb_format_first_run(buf, sizeof buf, t1, 10));
	assert_non_null(strstr(buf, "run 1 took 19.06x the median of runs 2-10: an outlier, above "
	                            "2.40x that median"));
	const double few[] = {300, 100, 101};
	assert_true(pb_format_first_run(buf, sizeof buf, few, 3));
	assert_non_null(strstr(buf, "the rule needs 3 later runs"));
	const double two[] = {300, 100};
	assert_true(pb_format_first_run(buf, sizeof buf, two, 2));
	assert_non_null(strstr(buf, "run 1 took 3.00x run 2 (too few runs"));
	assert_false(pb_format_first_run(buf, sizeof buf, two, 1));
	assert_string_equal(buf, "");
	const double zero[] = {1, 0, 0, 0};
	assert_false(pb_format_first_run(buf, sizeof buf, zero, 4));
}

/* cmd's note when user and sys are split by a few ticks at most. */
static void test_cputime_note(void **state)
{
	(void)state;
	char buf[600];
	struct pb_cputime_accounting hz250 = {.hz = 250, .tick_split = 1};
	assert_true(pb_format_cputime_note(buf, sizeof buf, 0.8e6, &hz250));
	assert_non_null(strstr(buf, "a run used 0.8 ms of CPU time"));
	assert_non_null(strstr(buf, "under one scheduler tick (4 ms at CONFIG_HZ=250)"));
	assert_non_null(strstr(buf, "shows all of its time as user and 0 as sys"));
	assert_non_null(strstr(buf, "all fell in the kernel all as sys and 0 as user"));
	assert_true(pb_format_cputime_note(buf, sizeof buf, 12e6, &hz250)); /* 3 ticks */
	assert_non_null(strstr(buf, "a few times one scheduler tick"));
	assert_null(strstr(buf, "0 as sys"));
	assert_false(pb_format_cputime_note(buf, sizeof buf, 40e6, &hz250)); /* 10 ticks */
	assert_string_equal(buf, "");
	struct pb_cputime_accounting native = {.hz = 250, .tick_split = 0};
	assert_false(pb_format_cputime_note(buf, sizeof buf, 0.8e6, &native));
	struct pb_cputime_accounting unknown = {.hz = 0, .tick_split = -1};
	assert_true(pb_format_cputime_note(buf, sizeof buf, 50e6, &unknown)); /* 5 x 10 ms */
	assert_non_null(strstr(buf, "CONFIG_HZ is not readable here"));
	assert_false(pb_format_cputime_note(buf, sizeof buf, 100e6, &unknown));
	assert_false(pb_format_cputime_note(buf, sizeof buf, NAN, &hz250));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sig3),           cmocka_unit_test(test_time),
	    cmocka_unit_test(test_size_zero),      cmocka_unit_test(test_page_op_title),
	    cmocka_unit_test(test_first_run_text), cmocka_unit_test(test_cputime_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
