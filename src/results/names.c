/* names.c - looking a name up in a table of names (names.h). */
#include "results/names.h"

#include <stdio.h>
#include <string.h>

#include "primbench/error.h"

int pb_name_index(const char *const *names, int n, const char *name, const char *what)
{
	char known[256] = "";
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(name, names[i]))
			return i;
		int w =
		    snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", names[i]);
		if (w > 0 && (size_t)w < sizeof known - used)
			used += (size_t)w;
	}
	pb_fail("unknown %s '%s' (known: %s)", what, name, known);
	return -1;
}
