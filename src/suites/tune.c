/* tune.c - the tune suite: the policy file's text
 * (include/primbench/tune.h). */
#include "primbench/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		pb_fail("out of memory");
		return NULL;
	}
	if (comment) {
		for (const char *p = comment; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(m, "#%s%.*s\n", n ? " " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f->set[op])
			continue;
		char text[PB_POLICY_TEXT_MAX];
		if (pb_policy_format(&f->policy[op], text, sizeof text) < 0) {
			fclose(m);
			free(buf);
			return NULL;
		}
		fprintf(m, "%s = %s\n", pb_op_name((enum pb_op)op), text);
	}
	if (f->cpu[0])
		fprintf(m, "cpu = %s\n", f->cpu);
	if (fclose(m) != 0) {
		free(buf);
		pb_fail("out of memory");
		return NULL;
	}
	return buf;
}
