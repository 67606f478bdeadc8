/* test_html.c - pb_html_write() (include/primbench/html.h) on the
 * fixtures of tests/data: the sections in their order, a figure's picture
 * inlined as base64 that decodes back to the same bytes and sized by its
 * viewBox, a figure not drawn said so, every label escaped, a default
 * run's summary, a comparison of two files, no script and no external
 * reference. The page in a browser: tests/html/browser.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/html.h"
#include "primbench/twosample.h"

static void load(const char *path, struct pb_results_file *f)
{
	if (pb_results_load(path, f) != 0)
		fail_msg("%s", pb_error());
}

/* The page of p as text (malloc'd). */
static char *page_of(const struct pb_html_page *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	if (pb_html_write(m, p) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(fclose(m), 0);
	return text;
}

/* Base64 (RFC 4648) of s up to the first byte not in its alphabet,
 * decoded into a malloc'd, NUL-terminated buffer. */
static char *unbase64(const char *s)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t n = strspn(s, tab);
	char *out = calloc(n, 1);
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n; i++) {
		acc = acc << 6 | (uint32_t)(strchr(tab, s[i]) - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)(acc >> bits & 0xff);
		}
	}
	out[o] = '\0';
	return out;
}

static const char *after(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);
	if (!p)
		fail_msg("not in the page: %s", needle);
	return p;
}

/* A default run's page: sections in order, the summary, the figures. */
static void test_default_run(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("plot/run_default.json", &f);
	struct pb_plot_input in = {"a <b> & \"c\"", &f};
	/* sizes of one, two and three bytes past a multiple of 3: every
	 * padding of base64 */
	static const char svg1[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "
	                           "900 640\"><title>x</title></svg>";
	static const char svg2[] = "<svg xmlns=\"http://www.w3.org/2000/svg\"/>";
	struct pb_html_figure figs[] = {
	    {.title = "memset, hot", .alt = "Line chart <1>", .svg = svg1, .svg_len = strlen(svg1)},
	    {.title = "memset, dram",
	     .alt = "drawn without a viewBox",
	     .svg = svg2,
	     .svg_len = strlen(svg2)},
	    {.title = "memcpy, hot", .alt = "not drawn", .note = "gnuplot failed (exit 1)"},
	};
	struct pb_html_page p = {.in = &in,
	                         .n = 1,
	                         .figs = figs,
	                         .nfigs = 3,
	                         .figures_note = "2 syscall cases & more",
	                         .command_line = "primbench report --html x.html <y>"};
	char *s = page_of(&p);
	assert_true(strncmp(s, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
	assert_null(strstr(s, "<script"));
	assert_null(strstr(s, "http://w")); /* only the SVG's namespace, inside base64 */
	assert_null(strstr(s, "https:"));
	/* the sections in html.h's order; no comparison for one file */
	const char *sum = after(s, "<section id=\"summary\">");
	const char *mach = after(s, "<section id=\"machine\">");
	const char *fig = after(s, "<section id=\"figures\">");
	const char *tab = after(s, "<section id=\"tables\">");
	assert_true(sum < mach && mach < fig && fig < tab);
	assert_null(strstr(s, "id=\"comparison\""));
	/* the default run's summary, as the text prints it */
	const char *pre = after(sum, "<pre class=\"pb-summary\">");
	assert_true(pre < mach);
	assert_non_null(strstr(pre, "libc against the fastest other kernel"));
	/* labels, alt texts, notes and the command line escaped */
	assert_non_null(strstr(s, "a &lt;b&gt; &amp; &quot;c&quot;"));
	assert_null(strstr(s, "a <b>"));
	assert_non_null(strstr(s, "alt=\"Line chart &lt;1&gt;\""));
	assert_non_null(strstr(s, "2 syscall cases &amp; more"));
	assert_non_null(strstr(s, "<code>primbench report --html x.html &lt;y&gt;</code>"));
	/* figure 1: sized by its viewBox, its picture decodes to the SVG */
	const char *f1 = after(fig, "<figure class=\"pb-figure\" id=\"fig-1\">");
	const char *img = after(f1, "<img width=\"900\" height=\"640\" alt=");
	const char *src = after(img, "src=\"data:image/svg+xml;base64,");
	char *svg = unbase64(src + strlen("src=\"data:image/svg+xml;base64,"));
	assert_string_equal(svg, svg1);
	free(svg);
	/* figure 2: no viewBox, no size */
	const char *f2 = after(fig, "id=\"fig-2\"");
	img = after(f2, "<img alt=\"drawn without a viewBox\" src=\"data:image/svg+xml;base64,");
	svg = unbase64(img + strlen("<img alt=\"drawn without a viewBox\" "
	                            "src=\"data:image/svg+xml;base64,"));
	assert_string_equal(svg, svg2);
	free(svg);
	/* figure 3: not drawn, and why */
	const char *f3 = after(fig, "id=\"fig-3\"");
	const char *end3 = after(f3, "</figure>");
	const char *nd = after(f3, "Not drawn.");
	assert_true(nd < end3);
	assert_true(after(f3, "gnuplot failed (exit 1)") < end3);
	assert_true(strstr(f3, "<img") == NULL || strstr(f3, "<img") > end3);
	/* the machine: the file's CPU, TSC ticks named as reference cycles */
	assert_true(after(mach, "TSC ticks (reference cycles)") < fig);
	assert_true(after(mach, f.mach.brand) < fig);
	/* the tables: the prefix of the first file */
	assert_non_null(strstr(tab, "id=\"f1-"));
	free(s);

	/* no figure: the page says why */
	p.nfigs = 0;
	p.figures_note = NULL;
	s = page_of(&p);
	assert_non_null(strstr(s, "<p>No figure:"));
	free(s);

	/* no file: an error */
	p.n = 0;
	assert_int_equal(pb_html_write(stdout, &p), -1);
	assert_string_equal(pb_error(), "no result file");
	pb_results_file_free(&f);
}

/* Two files: the comparison after the summary, each verdict counted. */
static void test_comparison(void **state)
{
	(void)state;
	struct pb_results_file files[2];
	load("compare/mem_a.json", &files[0]);
	load("compare/mem_b.json", &files[1]);
	if (pb_results_name(files, 2) != 0)
		fail_msg("%s", pb_error());
	struct pb_compare_result r = {0};
	if (pb_compare_run(&files[0], &files[1], 0.95, true, &r) != 0)
		fail_msg("%s", pb_error());
	pb_compare_set_margin(&r, pb_equivalence());
	struct pb_plot_input in[] = {{"before", &files[0]}, {"after", &files[1]}};
	struct pb_html_page p = {.in = in, .n = 2, .cmp = &r, .ncmp = 1};
	char *s = page_of(&p);
	const char *sum = after(s, "<section id=\"summary\">");
	const char *cmp = after(s, "<section id=\"comparison\">");
	const char *mach = after(s, "<section id=\"machine\">");
	assert_true(sum < cmp && cmp < mach);
	char want[96];
	snprintf(want, sizeof want,
	         "<strong>after</strong> against <strong>before</strong>: %zu "
	         "case",
	         r.nrows);
	assert_true(after(sum, want) < cmp);
	/* the machine table has a column per file */
	assert_true(after(mach, "<th scope=\"col\">before</th><th scope=\"col\">after</th>") >
	            mach);
	/* each file's tables under its label, ids apart */
	assert_non_null(strstr(s, "id=\"f1-"));
	assert_non_null(strstr(s, "id=\"f2-"));
	free(s);
	pb_compare_result_free(&r);
	pb_results_file_free(&files[0]);
	pb_results_file_free(&files[1]);
}

int main(void)
{
	/* into tests/data, found from this file's path (CMake compiles with
	 * absolute source paths) */
	char src[PATH_MAX], data[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(data, sizeof data, "%s/data", dirname(src));
	if (chdir(data) != 0) {
		perror(data);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_run),
	    cmocka_unit_test(test_comparison),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
