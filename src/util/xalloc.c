/* xalloc.c - allocation that cannot fail (include/primbench/xalloc.h). */
#define _GNU_SOURCE
#include "primbench/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *checked(void *p)
{
	if (!p) {
		fputs("primbench: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *pb_xstrdup(const char *s)
{
	return checked(strdup(s ? s : ""));
}

char *pb_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = NULL;
	int n = vasprintf(&p, fmt, ap);
	va_end(ap);
	return checked(n < 0 ? NULL : p);
}

void *pb_xcalloc(size_t n, size_t size)
{
	return checked(calloc(n ? n : 1, size));
}

void *pb_xrealloc(void *p, size_t n)
{
	return checked(realloc(p, n ? n : 1));
}

void pb_xappend(char **s, const char *text)
{
	char *n = pb_xasprintf("%s%s", *s, text);
	free(*s);
	*s = n;
}

void pb_strv_push(struct pb_strv *s, char *str)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = pb_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = str;
}
