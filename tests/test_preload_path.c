/* test_preload_path.c - pb_preload_path(): the PRIMBENCH_PRELOAD override
 * and its errors, the canonical absolute path it returns, and the search
 * when the override is unset (found in an unsanitized build, where
 * src/preload makes the library; a one-line error naming the places
 * otherwise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/preload.h"

static char dir[] = "/tmp/pb-preload-path-XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, PB_PRELOAD_NAME);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fclose(f);
	snprintf(path, sizeof path, "%s/with space.so", dir);
	if (!(f = fopen(path, "w")))
		return -1;
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, PB_PRELOAD_NAME);
	unlink(path);
	snprintf(path, sizeof path, "%s/with space.so", dir);
	unlink(path);
	rmdir(dir);
	unsetenv("PRIMBENCH_PRELOAD");
	return 0;
}

static void test_override(void **state)
{
	(void)state;
	char want[PATH_MAX], got[PATH_MAX], given[PATH_MAX];
	snprintf(want, sizeof want, "%s/%s", dir, PB_PRELOAD_NAME);
	/* A roundabout spelling comes back canonical. */
	snprintf(given, sizeof given, "%s/./%s", dir, PB_PRELOAD_NAME);
	setenv("PRIMBENCH_PRELOAD", given, 1);
	assert_int_equal(pb_preload_path(got, sizeof got), 0);
	assert_string_equal(got, want);
	/* Too small a buffer is an error, not a truncated path. */
	assert_int_equal(pb_preload_path(got, 8), -1);
	assert_non_null(strstr(pb_error(), "path longer than the 8 bytes given"));
}

static void test_override_errors(void **state)
{
	(void)state;
	char got[PATH_MAX], given[PATH_MAX], msg[PATH_MAX + 100];
	snprintf(given, sizeof given, "%s/nosuch.so", dir);
	setenv("PRIMBENCH_PRELOAD", given, 1);
	assert_int_equal(pb_preload_path(got, sizeof got), -1);
	snprintf(msg, sizeof msg, "PRIMBENCH_PRELOAD: '%s': No such file or directory", given);
	assert_string_equal(pb_error(), msg);

	setenv("PRIMBENCH_PRELOAD", dir, 1);
	assert_int_equal(pb_preload_path(got, sizeof got), -1);
	snprintf(msg, sizeof msg,
	         "PRIMBENCH_PRELOAD: '%s': not a regular file (give the .so itself)", dir);
	assert_string_equal(pb_error(), msg);

	snprintf(given, sizeof given, "%s/with space.so", dir);
	setenv("PRIMBENCH_PRELOAD", given, 1);
	assert_int_equal(pb_preload_path(got, sizeof got), -1);
	assert_non_null(strstr(pb_error(), "LD_PRELOAD cannot carry a path with a space"));
}

static void test_search(void **state)
{
	(void)state;
	char got[PATH_MAX];
	unsetenv("PRIMBENCH_PRELOAD");
	if (pb_preload_path(got, sizeof got) == 0) {
		assert_true(got[0] == '/');
		const char *base = strrchr(got, '/') + 1;
		assert_string_equal(base, PB_PRELOAD_NAME);
		assert_int_equal(access(got, R_OK), 0);
	} else {
		/* A sanitizer build makes no library: the message says where it
		 * looked and what to set. */
		assert_non_null(strstr(pb_error(), "libprimswitch.so not found (looked in "));
		assert_non_null(strstr(pb_error(), "set PRIMBENCH_PRELOAD"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_override),
	    cmocka_unit_test(test_override_errors),
	    cmocka_unit_test(test_search),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
