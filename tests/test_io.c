/* test_io.c - pb_read_fd_all (include/primbench/io.h): a whole pipe past
 * the first buffer, the max_bytes cut, an empty input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "primbench/io.h"

/* A pipe holding n bytes 'a' + i % 26, its write end closed. */
static int pipe_of(size_t n)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	char *text = malloc(n ? n : 1);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		text[i] = (char)('a' + i % 26);
	if (n)
		assert_int_equal(write(fds[1], text, n), (ssize_t)n);
	free(text);
	close(fds[1]);
	return fds[0];
}

static void test_whole_and_cut(void **state)
{
	(void)state;
	const size_t n = 40000; /* past the first 16 KiB buffer, within a pipe's 64 KiB */
	size_t len = 0;
	int fd = pipe_of(n);
	char *buf = pb_read_fd_all(fd, 0, &len);
	close(fd);
	assert_non_null(buf);
	assert_int_equal(len, n);
	assert_int_equal(strlen(buf), n);
	assert_int_equal(buf[n - 1], 'a' + (n - 1) % 26);
	free(buf);

	fd = pipe_of(n);
	buf = pb_read_fd_all(fd, 20000, &len);
	close(fd);
	assert_non_null(buf);
	assert_int_equal(len, 20000);
	assert_int_equal(strlen(buf), 20000);
	free(buf);

	fd = pipe_of(0);
	buf = pb_read_fd_all(fd, 0, NULL);
	close(fd);
	assert_non_null(buf);
	assert_string_equal(buf, "");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_whole_and_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
