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

int pb_grow(void *arrp, size_t *cap, size_t n, size_t elem, size_t first)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? 2 * *cap : first;
	void *old;
	memcpy(&old, arrp, sizeof old);
	void *p = realloc(old, c * elem);
	if (!p)
		return -1;
	memcpy(arrp, &p, sizeof p);
	*cap = c;
	return 0;
}

void pb_free_structs(void *v, size_t n, size_t elem, const size_t *off, size_t noff)
{
	unsigned char *b = v;
	for (size_t i = 0; b && i < n; i++)
		for (size_t j = 0; j < noff; j++) {
			void *p;
			memcpy(&p, b + i * elem + off[j], sizeof p);
			free(p);
		}
	free(v);
}
