/* primbench/plot.h - gnuplot scripts that draw result files
 * (`primbench plot`, README "plot", docs/primbench.1).
 *
 * The library writes a gnuplot script and its data files; running gnuplot
 * is the caller's business (src/cli/cmd_plot.c), so the script can be
 * tested, and kept, without gnuplot.
 *
 * What is drawn, from files loaded and checked by pb_results_load()
 * (include/primbench/reader.h):
 *  - mem results: one panel per (op, cache state); in each, one line per
 *    kernel (colour per kernel, the same in every panel) and per file (dash
 *    and point type per file, for before/after), x = bytes per call on a
 *    log2 axis, y = the median in the chosen unit with its 95% confidence
 *    interval as error bars. The first file's L1d, L2 and LLC sizes are
 *    vertical dotted lines labelled with the figure and its source
 *    (machine.caches.*.source); the first file's break-even points
 *    (top-level "breakeven": where its recommended policy switches kernel)
 *    are marked at the bottom, labelled "below|above". Size 0 is left out
 *    (a log axis has no 0).
 *  - mem cases run on N > 1 threads (key "threads"; absent means 1): the
 *    size panels above keep to the 1-thread cases (and say "1 thread" in
 *    their titles when a file has others); a scaling panel per (op, cache
 *    state, size, memory node, placement): x = threads (integer tics; a
 *    log2 axis beyond 16), y = the aggregate throughput (GB/s, or
 *    bytes/tick with that unit: an N-thread case's time per call is the
 *    span over all threads' calls), per kernel and file the median with
 *    its 95% CI at 1 thread and at each N, and the ideal line N x the
 *    file's own 1-thread figure, dashed in the kernel's colour; the key
 *    gives the efficiency at the most threads (aggregate / (N x 1
 *    thread), as median_derived.efficiency), the title the placement
 *    and memory node when they are not "compact" and "local".
 *  - mem alignment grids (one op, state and size measured at several
 *    destination offsets): a heat map per file, kernels against offsets,
 *    colour = the median in the unit.
 *  - mem replays (mem --distribution): one panel per op, distribution and
 *    cache state; per kernel a bar per file, the median per call over the
 *    batch in ns/call (ticks/call with that unit; no other unit fits a
 *    batch of mixed sizes) with its 95% CI, and above it the ratio to the
 *    same file's libc, as the replay table ("x1.39": faster than libc).
 *  - cmd results: every counted run of each side (A, B) of each file as a
 *    point, left to right in the order they ran (so that equal times stay
 *    visible), its median as a bar; y = the figure the A/B verdict is on
 *    (ab.metric: real, user, sys or user+sys time; real for a file
 *    without ab or ab.metric), so that the axis and the B/A ratio in the
 *    title measure the same thing. A/B files on different metrics cannot
 *    share a plot. The title names the first file's sides by what sets
 *    them apart (pb_plot_cmd_labels).
 *  - latency results (primbench latency -o): the curve, x = working set
 *    on a log2 axis, y = ns per load on a log axis (median; bars: min..max
 *    of the rounds, the latency command's spread), one line per file and
 *    group (page size: "latency 2M THP"), the first file's L1d, L2 and LLC
 *    as dotted lines labelled with size and source as in the mem panels;
 *    loaded latency (latency --load N) in a panel of its own: ns per load
 *    against the load's aggregate GB/s, each point labelled with its load
 *    threads.
 *  - map results (mem map -o): GB/s (page_bytes / time per page) per page
 *    size, source and fault mode against threads, bars p10..p90 (mem
 *    map's spread); when every case ran on one thread count, a bar per
 *    page size and file instead.
 * Files of different kinds (mem, cmd, latency, map) cannot share one plot. Other suites (syscall,
 * xsave) are not drawn: a file with mem cases beside them (the default run's, with syscall cases;
 * xsave's, with its break-even sweep) draws its mem cases, and pb_plot_note() says what was left
 * out. Errors name a file by its path (pb_results_file.path), never by its label.
 */
#ifndef PRIMBENCH_PLOT_H
#define PRIMBENCH_PLOT_H

#include <stddef.h>

#include "primbench/reader.h"
#include "primbench/report.h"

/* The name of the script pb_plot_write() writes in its directory. */
#define PB_PLOT_SCRIPT "plot.gp"

struct pb_plot_input {
	const char *label;                  /* legend name, e.g. "before" */
	const struct pb_results_file *file; /* loaded with pb_results_load() */
};

struct pb_plot_opts {
	/* The picture gnuplot is to write: its suffix, ".svg" or ".png",
	 * chooses the terminal (svg, pngcairo). Written into the script as
	 * given: pass an absolute path when gnuplot runs elsewhere. */
	const char *output;
	enum pb_unit unit; /* mem y axis; PB_UNIT_GB_S is the usual */
	const char *title; /* NULL: the labels and the first file's CPU */
	/* 0: every panel in one picture (a grid of them). k >= 1: the k-th
	 * panel of pb_plot_panels() alone, in a picture of its own, titled by
	 * its own title only (unless `title`). */
	size_t panel;
	/* mem size panels: each kernel's 95% CI as a shaded band under its
	 * line (the HTML page's figures) instead of error bars */
	bool bands;
};

/* One panel of a plot, as pb_plot_panels() lists them. */
struct pb_plot_panel {
	char *title; /* "memset, hot (the same buffers every call)" */
	char *alt;   /* what it draws, in words: a figure's text alternative */
};

/* The panels pb_plot_write() draws for in[0..n) with the mem unit `unit`,
 * in its order (mem: size panels per op and cache state, scaling panels,
 * alignment grids, replays; latency: the curve, loaded latency; map and
 * cmd: one), into *out (malloc'd, *count of them; free with
 * pb_plot_panels_free). The alt text names the axes with their units, the
 * x range, and the lines (kernels, files, groups). Returns 0, or -1 with
 * pb_error() set as pb_plot_write() fails on the same input. */
int pb_plot_panels(const struct pb_plot_input *in, size_t n, enum pb_unit unit,
                   struct pb_plot_panel **out, size_t *count);
void pb_plot_panels_free(struct pb_plot_panel *p, size_t count);

/* Whether the files can be drawn together: each has mem, cmd, latency or
 * map cases, and one kind among them all; cmd A/B files on one metric.
 * Returns 0, or -1 with pb_error() set ("LABEL: no mem or cmd cases to
 * plot (suite 'syscall')", "mem and cmd results cannot share a plot
 * (LABEL1, LABEL2)", "cmd results on different metrics cannot share a
 * plot (LABEL1: real, LABEL2: user)", "PATH: ab.metric 'x': plot draws
 * real, user, sys or user+sys"). pb_plot_write() checks it too;
 * a caller checks first to report bad input before looking for gnuplot. */
int pb_plot_check(const struct pb_plot_input *in, size_t n);

/* What pb_plot_write() leaves out of f: "PATH: not drawn: 10 syscall
 * cases (plot draws mem, cmd, latency and map results); 2 mem cases of
 * size 0 (a log axis has no 0)". Malloc'd; NULL when everything is
 * drawn. */
char *pb_plot_note(const struct pb_results_file *f);

/* The two sides of a cmd A/B as the plot's title names them, each by
 * what sets it apart from the other (keys: the sides' case keys,
 * docs/results-schema.md "A cmd case"; A's first):
 *  - the command (argv joined by spaces; --shell's as "sh: TEXT"); where
 *    the two differ and a label must be cut, the part that differs, with
 *    the first word and "..." around it (pb_results_distinct_labels);
 *  - then, in parentheses, the side's env entries that the other side
 *    lacks (--env/--vs-env, the preload library's LD_PRELOAD and
 *    PRIMBENCH_MEMSET=POLICY ...), and ", in DIR" when the working
 *    directories differ: {"make"}, {"make (GLIBC_TUNABLES=glibc.cpu.x)"};
 *  - when that still reads the same: B "CMD (the same as A)" if the keys
 *    differ only in side (an A/A run), else each "CMD (FIELD=VALUE ...)"
 *    with the differing fields whole, so that two keys that differ never
 *    get one label.
 * Each label is at most max bytes (max >= 40), but for that last case.
 * labels[0] (A) and labels[1] (B) are malloc'd (aborts when out of
 * memory). Returns 0, or -1 with pb_error() and both NULL: "side B: not a
 * cmd case's key (suite "cmd" with an argv)", a max below 40. */
int pb_plot_cmd_labels(const struct pb_key *key_a, const struct pb_key *key_b, size_t max,
                       char *labels[2]);

/* Writes dir/PB_PLOT_SCRIPT and its data files (dir/NNN.dat, read by the
 * script relative to dir: run gnuplot with dir as its working directory).
 * Every file is written whole. Returns 0, or -1 with pb_error() set:
 * "output 'x.pdf' must end in .svg or .png", "LABEL: no mem or cmd cases
 * to plot (suite 'syscall')", "mem and cmd results cannot share a plot
 * (LABEL1, LABEL2)", "PATH: no timer.hz: cannot give GB/s", "PATH: case 2
 * (cmd B): runs[3] has no user_ns to draw the metric 'user' with", or a
 * write error, "panel 7 of 6". */
int pb_plot_write(const struct pb_plot_input *in, size_t n, const struct pb_plot_opts *o,
                  const char *dir);

#endif
