/* test_verdict.c - the one verdict rule (pb_verdict, twosample.h) on real
 * intervals from pb_hodges_lehmann_ratio and pb_mann_whitney: a clear win,
 * a clear loss, overlap, too few runs, equivalence, the rank test at the
 * edge, and a shift (null 0) as `compare` uses for values that are not all
 * positive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "primbench/twosample.h"

struct two {
	struct pb_shift s;
	struct pb_utest u;
};

static void ratio_of(const double *x, size_t nx, const double *y, size_t ny, struct two *t)
{
	assert_int_equal(pb_hodges_lehmann_ratio(x, nx, y, ny, 0.95, &t->s), 0);
	assert_int_equal(pb_mann_whitney(x, nx, y, ny, &t->u), 0);
}

static const double a[] = {100, 101, 102, 103, 104, 105, 106, 107, 108, 109};

static void test_clear_loss(void **state) /* B slower: the ratio above 1 */
{
	(void)state;
	double b[10];
	for (int i = 0; i < 10; i++)
		b[i] = a[i] * 1.5;
	struct two t;
	ratio_of(a, 10, b, 10, &t);
	struct pb_verdict_rule rule = {.null = 1, .u = &t.u};
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_DIFFERENT);
	assert_true(t.s.lo > 1);
	assert_int_equal(pb_verdict_of(&t.s, 0), PB_VERDICT_DIFFERENT);
}

static void test_clear_win(void **state) /* B faster: the ratio below 1 */
{
	(void)state;
	double b[10];
	for (int i = 0; i < 10; i++)
		b[i] = a[i] * 0.5;
	struct two t;
	ratio_of(a, 10, b, 10, &t);
	struct pb_verdict_rule rule = {.null = 1, .u = &t.u};
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_DIFFERENT);
	assert_true(t.s.hi < 1);
}

static void test_overlap(void **state)
{
	(void)state;
	const double b[] = {109, 100, 108, 101, 107, 102, 106, 103, 105, 104.5};
	struct two t;
	ratio_of(a, 10, b, 10, &t);
	struct pb_verdict_rule rule = {.null = 1, .u = &t.u};
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_NONE);
	rule.margin = 0.2; /* the interval lies in [0.8, 1.2] */
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_EQUIVALENT);
}

static void test_too_few_runs(void **state)
{
	(void)state;
	const double x[] = {100, 101}, y[] = {200, 201};
	struct two t;
	ratio_of(x, 2, y, 2, &t);
	assert_false(t.s.ci_valid);
	struct pb_verdict_rule rule = {.null = 1, .margin = 0.5, .u = &t.u};
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_NONE);
}

/* An interval that excludes the null with a rank test that does not
 * reject: DIFFERENT only when the rule leaves the test out. */
static void test_rank_test_required(void **state)
{
	(void)state;
	struct pb_shift s = {
	    .estimate = 1.1, .lo = 1.01, .hi = 1.2, .level = 0.95, .ci_valid = true};
	struct pb_utest u = {.p = 0.06};
	struct pb_verdict_rule rule = {.null = 1, .u = &u};
	assert_int_equal(pb_verdict(&s, &rule), PB_VERDICT_NONE);
	u.p = 0.04;
	assert_int_equal(pb_verdict(&s, &rule), PB_VERDICT_DIFFERENT);
	rule.u = NULL;
	u.p = 0.5;
	assert_int_equal(pb_verdict(&s, &rule), PB_VERDICT_DIFFERENT);
}

static void test_shift(void **state) /* null 0: compare's values that are not all > 0 */
{
	(void)state;
	const double x[] = {0, 1, 2, 3, 4, 5, 6, 7}, y[] = {10, 11, 12, 13, 14, 15, 16, 17};
	struct two t;
	assert_int_equal(pb_hodges_lehmann(x, 8, y, 8, 0.95, &t.s), 0);
	assert_int_equal(pb_mann_whitney(x, 8, y, 8, &t.u), 0);
	struct pb_verdict_rule rule = {.null = 0, .u = &t.u};
	assert_int_equal(pb_verdict(&t.s, &rule), PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_verdict(&t.s, &(struct pb_verdict_rule){.null = 10, .u = NULL}),
	                 PB_VERDICT_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clear_loss),
	    cmocka_unit_test(test_clear_win),
	    cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_too_few_runs),
	    cmocka_unit_test(test_rank_test_required),
	    cmocka_unit_test(test_shift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
