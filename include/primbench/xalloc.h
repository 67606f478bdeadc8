/* primbench/xalloc.h - allocation that cannot fail: on exhaustion it
 * prints "primbench: out of memory" to stderr and aborts. For code that
 * builds text and tables from a result (the reader, compare, plot), where
 * unwinding every allocation would cost more than it saves. Part of util.
 */
#ifndef PRIMBENCH_XALLOC_H
#define PRIMBENCH_XALLOC_H

#include <stddef.h>

/* strdup of s ("" for NULL). */
char *pb_xstrdup(const char *s);
/* asprintf into a new string. */
char *pb_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* calloc of n (at least 1) elements of size bytes. */
void *pb_xcalloc(size_t n, size_t size);
/* realloc of p to n (at least 1) bytes. */
void *pb_xrealloc(void *p, size_t n);
/* Replaces the malloc'd string *s by *s followed by text. */
void pb_xappend(char **s, const char *text);

/* A growing list of malloc'd strings (v[0..n), capacity cap); starts
 * zeroed. */
struct pb_strv {
	char **v;
	size_t n, cap;
};
/* Appends str (owned by the list from now on). */
void pb_strv_push(struct pb_strv *s, char *str);

#endif
