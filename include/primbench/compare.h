/* primbench/compare.h - comparing result files (`primbench compare`,
 * README "compare", docs/results-schema.md "compare output").
 *
 * Files are read and their cases named by the results module's reader
 * (include/primbench/reader.h); cases match on the canonical JSON of their
 * key. For each case in both files: the median per call of each
 * side with its confidence interval, the Hodges-Lehmann estimate of the
 * ratio new / old with its interval, and the Mann-Whitney U test's p
 * (include/primbench/twosample.h). A difference counts as shown when the
 * ratio's interval excludes 1 and p < 1 - level (the interval is the
 * inversion of the same rank-sum test, so the two agree except at the edge,
 * where requiring both is the conservative choice; pb_verdict, the rule
 * `cmd` uses too); otherwise the table prints "~".
 *
 * A cmd case's samples are the real (wall-clock) times of its runs: those
 * are what is compared (not user, sys or the other figures of a run).
 *
 * Units: a pair of cases is compared in their common unit. When one side is
 * in "tsc_ticks" and the other in "ns", or both in ticks from TSCs whose
 * frequencies differ by more than 0.1%, ticks are converted to ns with each
 * file's machine.timer.hz (no hz: refused). Other pairs of different units
 * are refused.
 */
#ifndef PRIMBENCH_COMPARE_H
#define PRIMBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "primbench/compare_result.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/stats.h"
#include "primbench/twosample.h"

/* Per side, at most this many samples enter the two-sample figures (their
 * cost is nx * ny): a larger sample is reduced to this many evenly spaced
 * order statistics, with a note. */
#define PB_COMPARE_MAX_SAMPLES 2000

/* Compares fb with fa (the baseline) at confidence `level` (e.g. 0.95).
 * Files must have been named (pb_results_name). Different hardware fails
 * (-1, "different hardware from A: cpu.model 143 vs 167; use --force")
 * unless force; the differences are in r->hw either way. A unit mismatch
 * that cannot be converted fails. Free r with pb_compare_result_free (also
 * after a failure). */
int pb_compare_run(const struct pb_results_file *fa, const struct pb_results_file *fb, double level,
                   bool force, struct pb_compare_result *r);
/* The same with several files a side, taken as runs (benchstat's use of
 * several files): a[0..na) the old side, b[0..nb) the new; each side is
 * the union of its files' cases (a case in some files only is compared on
 * the files that have it, with a note; a case on one side only is listed
 * in only_a or only_b), and each file of a side that has the case gives
 * one run, its figure the case's median (pb_results_case_summary).
 * Every file is checked against a[0] for hardware as pb_compare_run does.
 * The arrays must outlive r. */
int pb_compare_sides(const struct pb_results_file *const *a, size_t na,
                     const struct pb_results_file *const *b, size_t nb, double level, bool force,
                     struct pb_compare_result *r);
void pb_compare_result_free(struct pb_compare_result *r);
/* Judges every row of r again with `margin` (a fraction, >= 0; compare's
 * --equivalence): a change inside it is no change. */
void pb_compare_set_margin(struct pb_compare_result *r, double margin);

/* The text: "differs:" lines, one table per case group (rows: cases; old,
 * new: median +- CI half-width in % of it; delta with its interval; p;
 * '*' when the medians' change is outside the interval), geometric means
 * per unit, cases in only one file (or, with no case in both, which suites
 * each file has), notes, and a legend that names only the units and marks
 * present. Every line fits in 80 columns. */
void pb_compare_print(FILE *f, const struct pb_compare_result *r);

/* The same as GitHub Markdown (compare -f markdown): a "## primbench
 * compare" heading, the files and "differs:" as a list, per case group a
 * table (case, old, new, delta, its CI, p, verdict: "different",
 * "equivalent", "cannot tell" or "no verdict (one run)"; the cells as the
 * text prints them), the geometric means as a table, the cases in only one
 * file (every one), notes and the legend. */
void pb_compare_markdown(FILE *f, const struct pb_compare_result *r);

/* The same as HTML, for the HTML page (html.h; report --html of several
 * files): the files and the machine differences as a <ul
 * class="pb-files">, per case group a <table class="pb-table"> (caption:
 * the group; header cells case, old, new, delta, its CI, p, verdict as
 * <th scope="col">; the case's label in <th scope="row">; the cells as
 * the markdown table's, number cells with class="num", the verdict cell
 * with class "verdict-different", "verdict-equivalent", "verdict-none"
 * (cannot tell) or "verdict-one-run"),
 * the geometric means as a table (caption "geomean"), the cases in only
 * one file and the notes as lists under <h3> headings ("only in one file",
 * "notes"), the legend (and why nothing matched, when nothing did) as a
 * <p>. No profile table (Markdown has none either); the tables have no
 * id. Every text through pb_html_text; polyglot HTML (html.h). */
void pb_compare_html(FILE *f, const struct pb_compare_result *r);

/* The comparisons r[0..n) as one CSV table (compare -f csv, RFC 4180 as
 * format.h's): a header, then one row per case in both files: old_file,
 * new_file (with several files a side, every one, ';' between them),
 * group, case, the old case's key fields (their union over every row, in
 * first-seen order; "key_" before a name that is also a column's), unit
 * (of the medians and their CIs, per call), old_ and new_ n, median,
 * ci_lo, ci_hi, delta_pct, delta_pct_lo, delta_pct_hi (new/old - 1 in %),
 * p, verdict (as the JSON's), one_run, runs_old, runs_new. Numbers in the
 * shortest text that reads back as the same double; empty when there is
 * none. No geometric means, lists or notes: those are in the text,
 * Markdown and JSON. */
void pb_compare_csv(FILE *f, const struct pb_compare_result *r, size_t n);

/* ---- the regression gate (compare --fail-if-slower) ---- */

/* (struct pb_gate: compare_result.h, where the results module writes it.) */
/* The regression gate on r at threshold `pct` (in %, >= 0; compare's
 * --fail-if-slower, by default 100 x r->margin): a change fails when it
 * is "different" (the row's verdict with r->margin: the run-level
 * interval excludes 0, p < 1 - level, the estimate beyond the margin) and
 * slower by more than pct at the interval's lower end (pct_lo > pct), so
 * that a change that is only possibly beyond pct does not fail.
 * Judged: every case with a verdict (one_run rows are counted in
 * cases_unjudged and never fail), then, per case group and unit (in the
 * rows' order) with two or more run-level cases, their geometric mean; and
 * per unit that spans several groups, the geometric mean of all its
 * run-level cases. A geometric mean is judged on per-run figures: run j's
 * is the geometric mean over the cases of their run j (the figures in
 * row->run_va, run_vb), with Welch's t on their logs (pb_runs_ratio at
 * r->level) and pb_verdict at r->margin, as a case; cases whose run counts
 * differ leave it unjudged. Faster is never a failure. Failures in order:
 * the cases, then the geometric means. Returns 0, or -1 with pb_error() (a
 * threshold not >= 0). Free out with pb_gate_free. (docs/statistics.md,
 * "The regression gate".) */
int pb_compare_gate(const struct pb_compare_result *r, double pct, struct pb_gate *out);
void pb_gate_free(struct pb_gate *g);

/* The comparison as JSON (docs/results-schema.md "compare output"):
 * written by the results module, include/primbench/compare_result.h. */

#endif
