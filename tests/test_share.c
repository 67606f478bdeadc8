/* test_share.c - the two shares of time in a primitive and their
 * uncertainties (issue 33, item 2; docs/profile.md, "The memset share"):
 * the timer pair's mean that the accounting subtracts, a negative sum of
 * timed differences read as 0, the accounting's serialisation bound, the
 * profile's binomial interval, and the line that shows both. Fixture data
 * only: nothing here is timed. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/accounting.h"
#include "primbench/profile.h"
#include "primbench/profile_text.h"
#include "timer/timer_internal.h"

/* A clock read in steps of 21 ticks: empty pairs read 42 or 63, the
 * median 42 and the mean between. The correction is the mean, the
 * outlier (an interrupt inside a pair) left out. */
static void test_overhead_mean(void **state)
{
	(void)state;
	uint64_t v[102];
	for (int i = 0; i < 60; i++)
		v[i] = 42;
	for (int i = 60; i < 101; i++)
		v[i] = 63;
	v[101] = 50000;
	double median = 42;
	double mean = pb_timer_overhead_trimmed_mean(v, 102, median);
	assert_true(mean == (60 * 42.0 + 41 * 63.0) / 101);
	assert_true(mean > median + 8); /* what the median left in every timed call */
	assert_true(pb_timer_overhead_trimmed_mean(v, 0, 42) == 0);
	/* A median of 0 (a clock that did not move) keeps only the zeros. */
	uint64_t z[3] = {0, 0, 21};
	assert_true(pb_timer_overhead_trimmed_mean(z, 3, 0) == 0);
}

static void file_with(struct pb_acct_file *f, uint64_t sampled_ticks, double overhead)
{
	memset(f, 0, sizeof *f);
	f->ticks = 1;
	f->sample_every = 64;
	f->timer_overhead_ticks = overhead;
	struct pb_acct_bucket *b = &f->prim[PB_ACCT_MEMSET].bucket[6];
	b->calls = 640;
	b->bytes = 640 * 32;
	b->sampled_calls = 10;
	b->sampled_ticks = sampled_ticks;
	f->prim[PB_ACCT_MEMSET].calls = 640;
	f->prim[PB_ACCT_MEMSET].bytes = 640 * 32;
}

/* The library sums (ticks - mean pair) without clamping each call, modulo
 * 2^64: a bucket whose calls took less than the pair reads as a value
 * above INT64_MAX, and adds 0 (not 2^64 - 30). */
static void test_negative_sum(void **state)
{
	(void)state;
	static struct pb_acct_file f;
	static struct pb_acct_total t;
	memset(&t, 0, sizeof t);
	file_with(&f, (uint64_t)0 - 30, 50.0);
	pb_acct_add(&t, &f);
	assert_int_equal(t.prim[PB_ACCT_MEMSET].bucket[6].sampled_ticks, 0);
	assert_int_equal(t.prim[PB_ACCT_MEMSET].bucket[6].sampled_calls, 10);
	file_with(&f, 200, 48.0);
	pb_acct_add(&t, &f);
	assert_int_equal(t.prim[PB_ACCT_MEMSET].bucket[6].sampled_ticks, 200);
	assert_true(t.timer_overhead_ticks_max == 50.0);
}

/* 1e7 estimated calls of 100 ticks at 1 GHz in 10 s of CPU time: 10%;
 * taking one 50-tick pair off each: 5%. */
static void test_share_bounds(void **state)
{
	(void)state;
	struct pb_acct_est e = {.calls = 10000000, .calls_estimated = 10000000, .ticks = 1e9};
	double share, min;
	pb_acct_share_bounds(&e, 50, 1e9, 10, &share, &min);
	assert_float_equal(share, 10.0, 1e-9);
	assert_float_equal(min, 5.0, 1e-9);
	pb_acct_share_bounds(&e, 500, 1e9, 10, &share, &min);
	assert_float_equal(min, 0.0, 0); /* never below 0 */
	pb_acct_share_bounds(&e, 50, 0, 10, &share, &min);
	assert_true(share != share && min != min); /* NaN: no frequency */
	e.ticks = 0.0 / 0.0;
	pb_acct_share_bounds(&e, 50, 1e9, 10, &share, &min);
	assert_true(share != share && min != min);
}

/* Wilson's interval against values computed by hand. */
static void test_binomial_interval(void **state)
{
	(void)state;
	double lo, hi;
	pb_profile_share_ci95(50, 100, &lo, &hi);
	assert_float_equal(lo, 0.40383, 1e-4);
	assert_float_equal(hi, 0.59617, 1e-4);
	pb_profile_share_ci95(0, 100, &lo, &hi);
	assert_float_equal(lo, 0, 0);
	assert_float_equal(hi, 0.036994, 1e-5);
	pb_profile_share_ci95(100, 100, &lo, &hi);
	assert_float_equal(hi, 1, 0);
	/* 397 of 3939: near p +- 1.96 sqrt(p(1-p)/n) */
	pb_profile_share_ci95(397, 3939, &lo, &hi);
	double p = 397.0 / 3939, half = 1.959964 * 0.0047967;
	assert_float_equal(lo, p - half, 1e-3);
	assert_float_equal(hi, p + half, 1e-3);
	pb_profile_share_ci95(1, 0, &lo, &hi);
	assert_true(lo != lo && hi != hi);
}

/* The printed lines: both figures, each with its uncertainty. */
static void test_two_ways_line(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pb_share_two_ways_print(f, "A ", "memset", 16.34, 4.21, 50, 397, 3939);
	pb_share_two_ways_print(f, "", "memcpy/memmove", 0.0 / 0.0, 0.0 / 0.0, 50, 0, 0);
	fclose(f);
	assert_non_null(strstr(buf, "A memset share of CPU time, two ways:\n"));
	assert_non_null(strstr(buf, "  accounting 16.3%, at least 4.2% (timed alone; up to one "
	                            "50-tick timer pair"));
	assert_non_null(strstr(buf, "  profile 10.1% [9.2%, 11.1%] (95%, binomial; 397 of 3939 "
	                            "samples)\n"));
	assert_non_null(strstr(buf, "memcpy/memmove share of CPU time, two ways:\n"));
	assert_non_null(strstr(buf, "  accounting - (no timed calls"));
	assert_non_null(strstr(buf, "  profile - (no samples)\n"));
	for (char *s = buf, *nl; (nl = strchr(s, '\n')); s = nl + 1)
		assert_true(nl - s <= 80);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_overhead_mean), cmocka_unit_test(test_negative_sum),
	    cmocka_unit_test(test_share_bounds),  cmocka_unit_test(test_binomial_interval),
	    cmocka_unit_test(test_two_ways_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
