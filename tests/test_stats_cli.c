/* test_stats_cli.c - `primbench stats` against ministat(1) on the same
 * files (skipped when ministat is not installed), against stored outputs,
 * and within 80 columns. Runs the primbench binary next to this test's
 * directory in the build tree; the data files are in tests/data/stats/. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char bin[PATH_MAX];  /* the primbench binary */
static char data[PATH_MAX]; /* tests/data/stats */

static int setup(void **state)
{
	(void)state;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	/* In a cross build's tests, the wrapper that runs primbench under the
	 * emulator (tests/CMakeLists.txt: PB_TEST_EMULATED, <build>/emulated). */
	snprintf(bin, sizeof bin, "%s/../%sprimbench", dirname(exe),
	         getenv("PB_TEST_EMULATED") ? "emulated/" : "");
	char src[PATH_MAX];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(data, sizeof data, "%s/data/stats", dirname(src));
	return 0;
}

/* Runs `cd DATA && COMMAND` and returns its stdout (free() it); the exit
 * status in *status. */
static char *run(const char *command, int *status)
{
	char *cmd;
	if (asprintf(&cmd, "cd '%s' && %s", data, command) < 0)
		fail_msg("out of memory");
	FILE *p = popen(cmd, "r");
	free(cmd);
	assert_non_null(p);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	size_t got;
	while ((got = fread(out + len, 1, cap - len - 1, p)) > 0) {
		len += got;
		if (len + 1 == cap) {
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
	}
	out[len] = '\0';
	int rc = pclose(p);
	*status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	return out;
}

static bool have_ministat(void)
{
	return system("command -v ministat >/dev/null 2>&1") == 0;
}

/* Splits text into lines in place; returns the count. */
static size_t split_lines(char *text, char **lines, size_t max)
{
	size_t n = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && n < max;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	return n;
}

static bool is_border(const char *l)
{
	return l[0] == '+' && l[1] == '-';
}

/* The first of the plot's bar lines (the mean/median/stddev bars: more
 * than points and spaces) in lines[from..to), or `to`. */
static size_t first_bar(char **lines, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const char *in = lines[i] + 1;
		if (strspn(in, " x+*%#@O") < strlen(in) - 1)
			return i;
	}
	return to;
}

/* The lines ministat and primbench must share: everything outside the
 * plot, the plot's borders and bars, and its lowest row of points.
 * (Above that row primbench shows every stacked point; ministat sizes
 * the plot by the last file's stacks and loses taller ones.) */
static void compare(const char *opts)
{
	char *cmd;
	int st_m, st_p;
	assert_true(asprintf(&cmd, "ministat %s", opts) > 0);
	char *m = run(cmd, &st_m);
	free(cmd);
	assert_true(asprintf(&cmd, "'%s' stats --no-extra %s", bin, opts) > 0);
	char *p = run(cmd, &st_p);
	free(cmd);
	assert_int_equal(st_m, 0);
	assert_int_equal(st_p, 0);
	char *ml[256], *pl[256];
	size_t nm = split_lines(m, ml, 256), np = split_lines(p, pl, 256);
	/* Outside the plot: from the top down to its first border, and from
	 * the bottom up to its last. */
	size_t top = 0;
	while (top < nm && top < np && !is_border(ml[top])) {
		if (strcmp(ml[top], pl[top]))
			fail_msg("ministat %s, line %zu:\n  ministat:  %s\n  primbench: %s", opts,
			         top + 1, ml[top], pl[top]);
		top++;
	}
	size_t bm = nm, bp = np;
	while (bm > top && bp > top && !is_border(ml[bm - 1])) {
		if (strcmp(ml[bm - 1], pl[bp - 1]))
			fail_msg("ministat %s, line %zu from the end:\n  ministat:  %s\n  "
			         "primbench: %s",
			         opts, nm - bm + 1, ml[bm - 1], pl[bp - 1]);
		bm--, bp--;
	}
	if (bm > top) { /* a plot: borders, bar lines, lowest row of points */
		assert_true(bp > top && is_border(pl[bp - 1]) && is_border(pl[top]));
		assert_string_equal(ml[top], pl[top]);
		assert_string_equal(ml[bm - 1], pl[bp - 1]);
		size_t bars_m = first_bar(ml, top + 1, bm - 1);
		size_t bars_p = first_bar(pl, top + 1, bp - 1);
		assert_int_equal(bm - bars_m, bp - bars_p);
		for (size_t i = 0; i < bm - bars_m; i++)
			assert_string_equal(ml[bars_m + i], pl[bars_p + i]);
		assert_true(bars_m > top + 1 && bars_p > top + 1);
		assert_string_equal(ml[bars_m - 1], pl[bars_p - 1]);
		assert_true(bars_p - top >= bars_m - top); /* never fewer rows */
	} else {
		assert_int_equal(nm, np);
	}
	print_message("same as ministat: stats %s\n", opts);
	free(m);
	free(p);
}

static void test_vs_ministat(void **state)
{
	(void)state;
	if (!have_ministat()) {
		print_message("ministat is not installed: comparison skipped\n");
		skip();
	}
	compare("iguana chameleon");
	compare("-s -w 60 -c 80 iguana chameleon");
	compare("-c 90 hw-x hw-y");
	compare("-c 99.5 ticks-a ticks-b");
	compare("-c 98 -A ticks-a ticks-b hw-x");
	compare("-s ticks-a ticks-b hw-x");
	compare("-n iguana chameleon hw-y");
	compare("-w 30 ticks-b");
	compare("-d , -C 3 columns.csv columns-b.csv");
	compare("comments iguana");
	compare("-c 99 iguana chameleon ticks-a ticks-b hw-x hw-y comments");
}

/* Stored outputs (tests/data/stats/NAME.expected, made by this build and
 * checked against ministat above): the whole output, extra line included. */
static void check_output(const char *opts, const char *expected_file)
{
	char *cmd;
	int st;
	assert_true(asprintf(&cmd, "'%s' stats %s", bin, opts) > 0);
	char *got = run(cmd, &st);
	free(cmd);
	assert_int_equal(st, 0);
	assert_true(asprintf(&cmd, "cat %s", expected_file) > 0);
	char *want = run(cmd, &st);
	free(cmd);
	assert_int_equal(st, 0);
	if (strcmp(got, want))
		fail_msg("primbench stats %s:\n%s\nexpected (%s):\n%s", opts, got, expected_file,
		         want);
	free(got);
	free(want);
}

static void test_expected(void **state)
{
	(void)state;
	check_output("iguana chameleon", "iguana-chameleon.expected");
	check_output("-s -c 99 ticks-a ticks-b hw-x", "ticks-hw-s99.expected");
	/* 5 5 5 against 6 6 6: the exact p with ties, 2 / C(6, 3) = 0.1 (the
	 * normal approximation said 0.047, less than any split can give) */
	check_output("-q tied-5 tied-6", "tied.expected");
}

/* 100000 values a side (1..100000 against 2..100001): the shift is
 * computed (on order statistics), never left out as if it were zero. */
static void test_large(void **state)
{
	(void)state;
	char *cmd;
	int st;
	assert_true(asprintf(&cmd,
	                     "d=$(mktemp -d) && seq 1 100000 >\"$d/b1\" && "
	                     "seq 2 100001 >\"$d/b2\" && '%s' stats -q \"$d/b1\" \"$d/b2\"; "
	                     "s=$?; rm -rf \"$d\"; exit $s",
	                     bin) > 0);
	char *out = run(cmd, &st);
	free(cmd);
	assert_int_equal(st, 0);
	const char *line = strstr(out, "+ vs x: ");
	assert_non_null(line);
	double est, lo, hi;
	assert_int_equal(sscanf(line, "+ vs x: %lf [%lf, %lf]", &est, &lo, &hi), 3);
	assert_true(est == 1);
	assert_true(lo < 1 && 1 < hi);
	assert_non_null(strstr(out, "2000 evenly spaced order statistics"));
	assert_null(strstr(out, "no shift"));
	char *lines[64];
	size_t n = split_lines(out, lines, 64);
	for (size_t l = 0; l < n; l++)
		assert_true(strlen(lines[l]) <= 80);
	free(out);
}

static void test_width(void **state)
{
	(void)state;
	const char *cases[] = {
	    "iguana chameleon",
	    "-s ticks-a ticks-b hw-x hw-y iguana chameleon comments",
	    "-c 99.5 hw-x hw-y",
	    "--help",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cmd;
		int st;
		assert_true(asprintf(&cmd, "'%s' stats %s", bin, cases[i]) > 0);
		char *out = run(cmd, &st);
		free(cmd);
		assert_int_equal(st, 0);
		char *lines[256];
		size_t n = split_lines(out, lines, 256);
		for (size_t l = 0; l < n; l++)
			if (strlen(lines[l]) > 80)
				fail_msg("stats %s: %zu columns: %s", cases[i], strlen(lines[l]),
				         lines[l]);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vs_ministat),
	    cmocka_unit_test(test_expected),
	    cmocka_unit_test(test_width),
	    cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
