/* names.h - looking a name up in a table of names (private to src/results:
 * cache states, units). */
#ifndef PB_RESULTS_NAMES_H
#define PB_RESULTS_NAMES_H

#include "primbench/text.h" /* pb_enum_name */

/* The index of `name` in names[0..n), or -1 with pb_error() "unknown WHAT
 * 'NAME' (known: NAMES[0], NAMES[1], ...)". */
int pb_name_index(const char *const *names, int n, const char *name, const char *what);

/* Defines the two functions of an enum named by a table NAMES[COUNT]
 * (indexed by the enum): `const char *NAME_FN(TYPE v)`, names[v] or "?"
 * out of range; and `int PARSE_FN(const char *name, TYPE *out)`, 0 with
 * *out set, or -1 with pb_error() from pb_name_index (WHAT in its
 * message). */
#define PB_NAME_FUNCTIONS(type, name_fn, parse_fn, names, count, what)                             \
	const char *name_fn(type v)                                                                \
	{                                                                                          \
		return pb_enum_name(names, count, v, "?");                                         \
	}                                                                                          \
	int parse_fn(const char *name, type *out)                                                  \
	{                                                                                          \
		int i = pb_name_index(names, count, name, what);                                   \
		if (i < 0)                                                                         \
			return -1;                                                                 \
		*out = (type)i;                                                                    \
		return 0;                                                                          \
	}

#endif
