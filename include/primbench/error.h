/* primbench/error.h - one error path for libprimbench.
 *
 * Library functions that can fail return -1 (or NULL) and leave a one-line,
 * lower-case message that quotes its subject (e.g. "unknown kernel 'avx3'")
 * in a thread-local buffer read with pb_error(). They never print and never
 * exit: the CLI decides (usage/input/environment errors exit 2).
 */
#ifndef PRIMBENCH_ERROR_H
#define PRIMBENCH_ERROR_H

/* Records a printf-style message as the calling thread's last error.
 * Always returns -1 so callers can write `return pb_fail("...")`. */
int pb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The calling thread's last error message ("" when none). Valid until the
 * next pb_fail() on this thread. */
const char *pb_error(void);

#endif
