/* names.h - looking a name up in a table of names (private to src/results:
 * cache states, units). */
#ifndef PB_RESULTS_NAMES_H
#define PB_RESULTS_NAMES_H

/* The index of `name` in names[0..n), or -1 with pb_error() "unknown WHAT
 * 'NAME' (known: NAMES[0], NAMES[1], ...)". */
int pb_name_index(const char *const *names, int n, const char *name, const char *what);

#endif
