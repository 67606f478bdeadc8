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

/* Room for one more element in a growing malloc'd array that may fail:
 * arrp points to the array's pointer (any T **), *cap is its capacity and
 * n the elements in use, each elem bytes. When n == *cap, reallocates to
 * twice the capacity (`first` elements the first time) and updates *arrp
 * and *cap. Returns 0, or -1 with nothing changed when out of memory (no
 * message: the caller says what it was doing, with pb_fail). */
int pb_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first);

/* Frees an array of n structs of elem bytes each (v malloc'd, or NULL):
 * first, in every struct, the malloc'd pointer members at the byte
 * offsets off[0..noff) (offsetof of each member the struct owns), then v
 * itself. */
void pb_free_structs(void *v, size_t n, size_t elem, const size_t *off, size_t noff);
/* The same for an array v[0..n) and an array `owned` of offsets. */
#define PB_FREE_STRUCTS(v, n, owned)                                                               \
	pb_free_structs((v), (n), sizeof *(v), (owned), sizeof(owned) / sizeof *(owned))

#endif
