/* test_distribution.c - call-size distributions (include/primbench/
 * distribution.h): the file format's rules and its errors with line and
 * column, the built-in files and their lookup by name, and that drawn sizes
 * follow the file (a chi-square test at a fixed seed). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "primbench/distribution.h"
#include "primbench/error.h"

static int parse(const char *text, struct pb_distribution *d)
{
	return pb_distribution_parse("t.csv", text, strlen(text), d);
}

static void expect_error(const char *text, const char *msg)
{
	struct pb_distribution d;
	assert_int_equal(parse(text, &d), -1);
	if (!strstr(pb_error(), msg))
		fail_msg("'%s': got '%s', want '%s'", text, pb_error(), msg);
}

static void test_format(void **state)
{
	(void)state;
	struct pb_distribution d;
	assert_int_equal(parse("0.5,0.25,0.25", &d), 0);
	assert_int_equal(d.n_values, 3);
	assert_true(fabs(d.prob[0] - 0.5) < 1e-12);
	assert_true(fabs(d.mean_bytes - 0.75) < 1e-12);
	assert_true(fabs(d.share_le_128 - 1) < 1e-12);
	assert_int_equal(d.min_bytes, 0);
	assert_int_equal(d.max_bytes, 2);
	assert_string_equal(d.name, "t");
	pb_distribution_free(&d);
	/* leading zero weights are not sizes (list --distributions, issue 16) */
	assert_int_equal(parse("0,0,0.5,0,0.5", &d), 0);
	assert_int_equal(d.min_bytes, 2);
	assert_int_equal(d.max_bytes, 4);
	pb_distribution_free(&d);
	/* one newline, or CRLF, may end the line; trailing zeros are dropped;
	 * weights are normalised; exponents and bare fractions are numbers */
	assert_int_equal(parse("3,1,0,0\n", &d), 0);
	assert_int_equal(d.n_values, 2);
	assert_true(fabs(d.prob[0] - 0.75) < 1e-12);
	assert_true(fabs(d.weight_sum - 4) < 1e-12);
	pb_distribution_free(&d);
	assert_int_equal(parse("1e-1,.1,1.0E+0\r\n", &d), 0);
	assert_int_equal(d.n_values, 3);
	pb_distribution_free(&d);
	/* a value past 128 bytes */
	char *big = pb_distribution_format_counts((const uint64_t[]){0}, 1);
	assert_string_equal(big, "0\n");
	free(big);
	uint64_t c[200] = {0};
	c[100] = 3;
	c[150] = 1;
	char *text = pb_distribution_format_counts(c, 200);
	assert_int_equal(parse(text, &d), 0);
	free(text);
	assert_int_equal(d.n_values, 151); /* trailing zeros not written */
	assert_true(fabs(d.share_le_128 - 0.75) < 1e-12);
	assert_true(fabs(d.mean_bytes - 112.5) < 1e-12);
	pb_distribution_free(&d);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("", "t.csv:1:1: empty file");
	expect_error("0.5,0.25,x,0.25", "t.csv:1:10: expected a number, found 'x'");
	expect_error("0.5,,0.5", "t.csv:1:5: expected a number, found ','");
	expect_error("1, 2", "t.csv:1:3: expected a number, found ' '");
	expect_error("-1,2", "t.csv:1:1: expected a number, found '-'");
	expect_error("1,2,", "t.csv:1:5: expected a number, found the end of the file");
	expect_error("1e,2", "t.csv:1:2: bad exponent");
	expect_error("1;2", "t.csv:1:2: expected ',' or the end of the line, found ';'");
	expect_error("0.5,0.25\n0.25\n", "t.csv:2:1: expected the end of the file");
	expect_error("1\n\n", "t.csv:2:1: expected the end of the file after the line of "
	                      "weights, found a newline");
	expect_error("0,0,0", "t.csv:1:1: no positive weight");
	expect_error("1e999", "t.csv:1:1: number '1e999' is out of range");
	/* finite weights whose sum is not (found by fuzz_distribution:
	 * tests/fuzz/regress/distribution/sum-overflow) */
	expect_error("1e308,1e308", "t.csv:1:1: the weights sum to more than 1.79769e+308 (the "
	                            "largest double): scale them down");
	expect_error("1\r2", "t.csv:1:2: expected ',' or the end of the line, found byte 0x0d");
	char *many = malloc(2 * (PB_DIST_SIZES + 1));
	for (unsigned i = 0; i <= PB_DIST_SIZES; i++) {
		many[2 * i] = '1';
		many[2 * i + 1] = i < PB_DIST_SIZES ? ',' : '\0';
	}
	expect_error(many, "t.csv:1:8195: more than 4097 values");
	free(many);
	/* files: the path leads the message */
	struct pb_distribution d;
	assert_int_equal(pb_distribution_load("distributions/bad-char.csv", &d), -1);
	assert_string_equal(pb_error(),
	                    "distributions/bad-char.csv:1:10: expected a number, found 'x'");
	assert_int_equal(pb_distribution_load("distributions/nonexistent.csv", &d), -1);
	assert_non_null(strstr(pb_error(), "distributions/nonexistent.csv: cannot read: "));
	assert_int_equal(pb_distribution_find("distributions/small.csv", &d), 0);
	assert_int_equal(d.n_values, 2);
	assert_string_equal(d.name, "small");
	pb_distribution_free(&d);
}

/* The shares of the data README's table, and the lookup rules. */
static void test_builtin(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		size_t values;
		double le128;
	} want[] = {
	    {"MemcpyGoogleA", 4092, 0.6431}, {"MemcpyGoogleB", 4092, 0.9295},
	    {"MemcpyGoogleD", 569, 0.9269},  {"MemcpyGoogleL", 4092, 0.9582},
	    {"MemcpyGoogleM", 4092, 0.9246}, {"MemcpyGoogleQ", 4092, 0.9843},
	    {"MemcpyGoogleS", 4092, 0.9093}, {"MemcpyGoogleU", 4092, 0.8354},
	    {"MemsetGoogleW", 1023, 0.8896}, {"Uniform384To4096", 4097, 0.0},
	};
	char **names;
	int n = pb_distribution_names(&names);
	assert_int_equal(n, 10);
	for (int i = 0; i < n; i++) {
		struct pb_distribution d;
		assert_string_equal(names[i], want[i].name);
		if (pb_distribution_find(names[i], &d) != 0)
			fail_msg("%s: %s", names[i], pb_error());
		assert_int_equal(d.n_values, want[i].values);
		assert_true(fabs(d.share_le_128 - want[i].le128) < 0.00005);
		pb_distribution_free(&d);
	}
	pb_distribution_names_free(names, n);
	struct pb_distribution d;
	assert_int_equal(pb_distribution_find("Uniform384To4096", &d), 0);
	assert_true(fabs(d.weight_sum - 3713) < 1e-9);
	assert_true(fabs(d.prob[384] - 1.0 / 3713) < 1e-15);
	assert_int_equal(d.min_bytes, 384);
	assert_int_equal(d.max_bytes, 4096);
	assert_true(fabs(d.mean_bytes - (384 + 4096) / 2.0) < 1e-9);
	pb_distribution_free(&d);
	/* a unique end of a stem, any case */
	assert_int_equal(pb_distribution_find("googlea", &d), 0);
	assert_string_equal(d.name, "MemcpyGoogleA");
	pb_distribution_free(&d);
	assert_int_equal(pb_distribution_find("W", &d), 0);
	assert_string_equal(d.name, "MemsetGoogleW");
	pb_distribution_free(&d);
	assert_int_equal(pb_distribution_find("Google", &d), -1);
	assert_non_null(strstr(pb_error(), "distribution 'Google' is ambiguous: MemcpyGoogleA, "));
	assert_int_equal(pb_distribution_find("GoogleZ", &d), -1);
	assert_non_null(strstr(pb_error(), "unknown distribution 'GoogleZ' (known: MemcpyGoogleA"));
}

/* Drawn sizes follow the file: Pearson's chi-square over the sizes (sizes
 * with fewer than 5 expected draws pooled in one cell), at a fixed seed, so
 * the outcome never changes; the bound is the 0.1% upper quantile. Also:
 * the same seed draws the same batch, offsets stay in the window. */
static void check_chi_square(const char *name, size_t n)
{
	struct pb_distribution d;
	assert_int_equal(pb_distribution_find(name, &d), 0);
	uint32_t *s = malloc(n * sizeof *s), *o = malloc(2 * n * sizeof *o);
	assert_int_equal(pb_distribution_draw(&d, 42, s, n, o, 64), 0);
	uint64_t *count = calloc(d.n_values, sizeof *count);
	for (size_t i = 0; i < n; i++) {
		assert_true(s[i] < d.n_values);
		assert_true(d.prob[s[i]] > 0);
		count[s[i]]++;
	}
	double chi = 0, pool_e = 0, pool_o = 0;
	size_t cells = 0;
	for (size_t v = 0; v < d.n_values; v++) {
		double e = d.prob[v] * (double)n;
		if (e < 5) {
			pool_e += e;
			pool_o += (double)count[v];
			continue;
		}
		chi += ((double)count[v] - e) * ((double)count[v] - e) / e;
		cells++;
	}
	if (pool_e >= 5) {
		chi += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
		cells++;
	}
	double bound = gsl_cdf_chisq_Qinv(0.001, (double)(cells - 1));
	if (!(chi < bound))
		fail_msg("%s: chi-square %.1f over %zu cells, bound %.1f", name, chi, cells, bound);
	/* offsets: in 0..63, every value seen, mean near 31.5 */
	uint64_t seen = 0;
	double sum = 0;
	for (size_t i = 0; i < 2 * n; i++) {
		assert_true(o[i] < 64);
		seen |= 1ull << o[i];
		sum += o[i];
	}
	assert_true(seen == ~0ull);
	assert_true(fabs(sum / (2.0 * (double)n) - 31.5) < 0.5);
	/* the same seed, the same batch; aligned offsets are 0 */
	uint32_t *s2 = malloc(n * sizeof *s2);
	assert_int_equal(pb_distribution_draw(&d, 42, s2, n, o, 1), 0);
	assert_memory_equal(s, s2, n * sizeof *s);
	for (size_t i = 0; i < 2 * n; i++)
		assert_int_equal(o[i], 0);
	free(s2);
	free(count);
	free(s);
	free(o);
	pb_distribution_free(&d);
}

static void test_sampling(void **state)
{
	(void)state;
	check_chi_square("MemcpyGoogleD", 200000);
	check_chi_square("MemsetGoogleW", 200000);
	check_chi_square("Uniform384To4096", 200000);
	check_chi_square("distributions/small.csv", 10000);
}

int main(void)
{
	/* into tests/data, found from this file's path (CMake compiles with
	 * absolute source paths); the built-in files come from the source
	 * tree compiled in, not from the environment */
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	unsetenv("PRIMBENCH_DATA_DIR");
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_builtin),
	    cmocka_unit_test(test_sampling),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
