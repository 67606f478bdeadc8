/* test_numbers.c - number files as `primbench stats` reads them
 * (include/primbench/numbers.h, src/stats/numbers.c): columns, comments,
 * blank lines, and each error, after which nothing is left allocated. The
 * CLI's messages around these are tests/cli/stats.cases'. */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/numbers.h"

/* Reads text (as a file named "f") with column and delim. */
static int read_text(const char *text, size_t column, const char *delim, struct pb_numbers *out)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	int rc = pb_numbers_read(f, "f", column, delim, out);
	fclose(f);
	return rc;
}

static void test_values(void **state)
{
	(void)state;
	struct pb_numbers n;
	assert_int_equal(read_text("# a comment\n1\n\n  2.5  \n-3e2 # trailing\n", 1, " \t", &n),
	                 0);
	assert_int_equal(n.n, 3);
	assert_true(n.v[0] == 1 && n.v[1] == 2.5 && n.v[2] == -300);
	pb_numbers_free(&n);
	assert_null(n.v);
	assert_int_equal(read_text("", 1, " \t", &n), 0);
	assert_int_equal(n.n, 0);
	pb_numbers_free(&n);
}

static void test_columns(void **state)
{
	(void)state;
	struct pb_numbers n;
	assert_int_equal(read_text("a,1,x\nb,,2,y\n", 2, ",", &n), 0);
	assert_int_equal(n.n, 2); /* a run of delimiters is one */
	assert_true(n.v[0] == 1 && n.v[1] == 2);
	pb_numbers_free(&n);
}

/* Each error: its message, and out empty. */
static void check_error(const char *text, size_t column, const char *delim, const char *msg)
{
	struct pb_numbers n = {0};
	assert_int_equal(read_text(text, column, delim, &n), -1);
	assert_string_equal(pb_error(), msg);
	assert_null(n.v);
	assert_int_equal(n.n, 0);
}

static void test_errors(void **state)
{
	(void)state;
	check_error("1\n2\nabc\n", 1, " \t", "f:3: 'abc' is not a number");
	check_error("1 2\n3\n", 2, " \t", "f:2: no column 2");
	check_error("1,x\n", 2, ",", "f:1: column 2: 'x' is not a number");
	check_error("1\ninf\n", 1, " \t", "f:2: 'inf' is not a finite number");
	check_error("nan\n", 1, " \t", "f:1: 'nan' is not a finite number");
	check_error("1e999\n", 1, " \t", "f:1: '1e999' is not a finite number");
	check_error("\x1b[31m\n", 1, " \t", "f:1: '\\x1b[31m' is not a number");
	/* at most 24 characters of a token */
	check_error("123456789012345678901234567890x\n", 1, " ",
	            "f:1: '123456789012345678901234...' is not a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_columns),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
