/* primbench/html.h - one self-contained HTML page for one or several
 * result files (`primbench report --html`, README "report", docs/formats.md
 * "HTML").
 *
 * The page needs nothing but itself when opened: no script, no external
 * style sheet, font or image; figures are SVG pictures (drawn by gnuplot
 * from the scripts of include/primbench/plot.h) inlined as data: URLs of
 * <img> elements, each with a text alternative. It is written as polyglot
 * HTML5 (every element closed, attributes quoted, only the five XML
 * character references), so an XML parser reads it too; tests/html/ checks
 * that, and that headless Chromium draws it without a console error.
 *
 * The page, in order (the ids are stable: tests and links use them):
 *  - <header>: "primbench report", the files with their labels, CPUs and
 *    start times.
 *  - <section id="summary">: a default run's summary (what it found,
 *    include/primbench/summary.h, as `primbench report` prints it); for
 *    several files, each comparison's verdict counts; otherwise what each
 *    file holds (cases per suite).
 *  - <section id="comparison"> (several files): each file against the
 *    first: the change per case with its interval and verdict
 *    (include/primbench/compare.h).
 *  - <section id="machine">: each file's machine: CPU, family/model, TSC
 *    rate (a `primbench kernel` file: its module's tsc_khz, the rate of
 *    its cases' ticks, and primbench's timer beside it), caches with their
 *    sources, kernel, glibc and its thresholds.
 *  - <section id="kernel"> (when a file is a `primbench kernel` file):
 *    per such file its module (device, versions, release, tsc_khz,
 *    overhead, variants; <table id="kernel-fN-module">), the correctness
 *    checks (kernel-fN-checks) and the break-even entries of SIMD inside
 *    kernel_fpu_begin/end (kernel-fN-breakeven), N the file's position.
 *  - <section id="figures">: <figure class="pb-figure" id="fig-N"> per
 *    picture, its heading, the picture and a caption; or a paragraph saying
 *    why there are none.
 *  - <section id="tables">: each file's tables (format.h's text tables).
 *  - <footer>: the generator and the command line.
 * A print style sheet drops the colours of the screen and keeps each
 * figure and table on one page where it fits; text runs in a column of at
 * most 80 characters, wide tables scroll on their own.
 */
#ifndef PRIMBENCH_HTML_H
#define PRIMBENCH_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "primbench/compare_result.h"
#include "primbench/plot.h"

/* One figure of the page. */
struct pb_html_figure {
	const char *title; /* its heading: "memset, hot (the same buffers every call)" */
	const char *alt;   /* the text alternative: what is drawn, in words */
	/* The SVG picture: svg_len bytes of text and a NUL after them; its
	 * viewBox gives the <img> its width and height. NULL: not drawn,
	 * `note` says why */
	const char *svg;
	size_t svg_len;
	const char *note; /* a line under the figure, or NULL */
};

struct pb_html_page {
	const struct pb_plot_input *in; /* the files, each with its label */
	size_t n;
	const struct pb_html_figure *figs;
	size_t nfigs;
	/* Why some or all figures are missing ("gnuplot not found: ..."), and
	 * what was not drawn (pb_plot_note); NULL: nothing to say */
	const char *figures_note;
	/* With n > 1: cmp[i] compares in[i + 1] with in[0] (n - 1 of them) */
	const struct pb_compare_result *cmp;
	size_t ncmp;
	const char *command_line; /* the footer's; NULL: left out */
	const char *generator;    /* what writes the page: "primbench 1.2" (NULL: "primbench") */
};

/* Writes the page p to f. Returns 0, or -1 with pb_error() set (out of
 * memory; a default run's saved summary that does not read); errors of the
 * stream f are the caller's to check (ferror). */
int pb_html_write(FILE *f, const struct pb_html_page *p);

#endif
