/* numbers.c - number files (include/primbench/numbers.h); moved here from
 * src/cli/cmd_stats.c, whose messages these are. */
#define _GNU_SOURCE /* getline */
#include "primbench/numbers.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

void pb_numbers_free(struct pb_numbers *nums)
{
	free(nums->v);
	*nums = (struct pb_numbers){0};
}

static int add_value(struct pb_numbers *nums, double v)
{
	if (nums->n == nums->cap) {
		size_t cap = nums->cap ? 2 * nums->cap : 256;
		double *grown = realloc(nums->v, cap * sizeof *grown);
		if (!grown)
			return -1;
		nums->v = grown;
		nums->cap = cap;
	}
	nums->v[nums->n++] = v;
	return 0;
}

/* The token in `column` (from 1) of `line`, or NULL when the line has
 * none; *blank is set when the line has no token at all (before a '#'). */
static char *column_of(char *line, size_t column, const char *delim, bool *blank)
{
	char *save = NULL;
	char *t = strtok_r(line, delim, &save);
	*blank = !t || *t == '#';
	for (size_t i = 1; t && *t != '#'; i++) {
		if (i == column)
			return t;
		t = strtok_r(NULL, delim, &save);
	}
	return NULL;
}

/* A token of a bad line for an error message: bytes outside printable
 * ASCII as \xNN (an escape sequence or invalid UTF-8 in the file must not
 * reach the terminal; a number has no other bytes), a backslash doubled,
 * and at most TOKEN_MAX characters of the token ("..." after). */
#define TOKEN_MAX 24
static const char *shown(const char *t, char *buf, size_t len)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		char one[8];
		if (*p < 0x20 || *p > 0x7e)
			snprintf(one, sizeof one, "\\x%02x", *p);
		else if (*p == '\\')
			snprintf(one, sizeof one, "\\\\");
		else
			snprintf(one, sizeof one, "%c", *p);
		if (o + strlen(one) > TOKEN_MAX || o + strlen(one) + 4 > len) {
			snprintf(buf + o, len - o, "...");
			return buf;
		}
		memcpy(buf + o, one, strlen(one) + 1);
		o += strlen(one);
	}
	buf[o] = '\0';
	return buf;
}

int pb_numbers_read(FILE *f, const char *name, size_t column, const char *delim,
                    struct pb_numbers *out)
{
	char tok[TOKEN_MAX + 8];
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	char where[32] = ""; /* " column C:" after NAME:LINE: when column > 1 */
	if (column > 1)
		snprintf(where, sizeof where, " column %zu:", column);
	*out = (struct pb_numbers){0};
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && isspace((unsigned char)line[len - 1]))
			line[--len] = '\0';
		bool blank;
		char *t = column_of(line, column, delim, &blank);
		if (!t && blank)
			continue;
		if (!t) {
			pb_fail("%s:%zu: no column %zu", name, lineno, column);
			goto fail;
		}
		char *end;
		double v = strtod(t, &end);
		while (end != t && isspace((unsigned char)*end))
			end++;
		if (end == t || *end) {
			pb_fail("%s:%zu:%s '%s' is not a number", name, lineno, where,
			        shown(t, tok, sizeof tok));
			goto fail;
		}
		if (!isfinite(v)) {
			pb_fail("%s:%zu:%s '%s' is not a finite number", name, lineno, where,
			        shown(t, tok, sizeof tok));
			goto fail;
		}
		if (add_value(out, v) != 0) {
			pb_fail("out of memory reading '%s'", name);
			goto fail;
		}
	}
	int e = errno;
	if (ferror(f)) {
		pb_fail("cannot read '%s': %s", name, strerror(e ? e : EIO));
		goto fail;
	}
	free(line);
	return 0;
fail:
	free(line);
	pb_numbers_free(out);
	return -1;
}
