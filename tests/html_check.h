/* html_check.h - a check that HTML is polyglot (reads as XML too), for
 * the tests of the HTML writers (test_format, test_compare): every element
 * closed in order, names lower-case, attributes name="value", no
 * character reference but &amp; &lt; &gt; &quot; &apos;, no '>' in text.
 * No comments, doctype or self-closed elements: the writers use none.
 * tests/format/html_xml.py checks the same outputs with a real XML
 * parser. */
#ifndef PB_TEST_HTML_CHECK_H
#define PB_TEST_HTML_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Whether s[0..] starts one of the five references; its length in *n. */
static bool html_check_ref(const char *s, size_t *n)
{
	static const char *const refs[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
	for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
		if (!strncmp(s, refs[i], strlen(refs[i]))) {
			*n = strlen(refs[i]);
			return true;
		}
	return false;
}

static size_t html_check_name(const char *s)
{
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || (n && s[n] == '-'))
		n++;
	return n;
}

/* NULL when s is well-formed, else what is wrong (a static buffer). The
 * text outside every element must be blank. */
static const char *html_check(const char *s)
{
	static char why[160];
	const char *open[64];
	size_t lens[64], depth = 0, n;
	for (const char *p = s; *p;) {
		if (*p == '&') {
			if (!html_check_ref(p, &n)) {
				snprintf(why, sizeof why, "a reference not of the five at %.40s",
				         p);
				return why;
			}
			p += n;
		} else if (*p == '>') {
			snprintf(why, sizeof why, "'>' in text at %.40s", p);
			return why;
		} else if (p[0] == '<' && p[1] == '/') {
			n = html_check_name(p + 2);
			if (!depth || n != lens[depth - 1] || strncmp(p + 2, open[depth - 1], n) ||
			    p[2 + n] != '>') {
				snprintf(why, sizeof why, "a close tag out of order at %.40s", p);
				return why;
			}
			depth--;
			p += n + 3;
		} else if (*p == '<') {
			n = html_check_name(p + 1);
			if (!n || depth == 64) {
				snprintf(why, sizeof why, "a bad tag at %.40s", p);
				return why;
			}
			open[depth] = p + 1;
			lens[depth++] = n;
			p += n + 1;
			while (*p == ' ') { /* attributes: name="value" */
				n = html_check_name(p + 1);
				if (!n || strncmp(p + 1 + n, "=\"", 2)) {
					snprintf(why, sizeof why, "a bad attribute at %.40s", p);
					return why;
				}
				p += n + 3;
				for (; *p != '"'; p++) {
					if (!*p || *p == '<' || *p == '>') {
						snprintf(why, sizeof why, "a bad value at %.40s",
						         p);
						return why;
					}
					if (*p == '&') {
						if (!html_check_ref(p, &n)) {
							snprintf(
							    why, sizeof why,
							    "a reference not of the five at %.40s",
							    p);
							return why;
						}
						p += n - 1;
					}
				}
				p++;
			}
			if (*p != '>') {
				snprintf(why, sizeof why, "a tag not closed by '>' at %.40s", p);
				return why;
			}
			p++;
		} else {
			if (!depth && *p != ' ' && *p != '\n') {
				snprintf(why, sizeof why, "text outside every element at %.40s", p);
				return why;
			}
			p++;
		}
	}
	if (depth) {
		snprintf(why, sizeof why, "%zu elements not closed, the last <%.*s", depth,
		         (int)lens[depth - 1], open[depth - 1]);
		return why;
	}
	return NULL;
}

#endif
