/* primbench/summary.h - what a default run found, in words and numbers
 * (docs/results-schema.md "summary").
 *
 * Built from a loaded result file (include/primbench/reader.h), never
 * from the state of a run, so `primbench report FILE` prints the same
 * summary for a saved file as the run printed. Every figure is recomputed
 * from the file's samples: medians and their 95% confidence intervals
 * (include/primbench/stats.h), break-even switches and the glibc mapping
 * (include/primbench/breakeven.h), the run's noise object.
 *
 * Rules (the text states them too):
 * - libc against the fastest other kernel at one (op, cache state, size):
 *   the ratio libc / kernel of ticks per call with its 95% interval, paired
 *   replicate by replicate (pb_paired_ratio) when both have the same two or
 *   more replicates, else the samples' Hodges-Lehmann ratio; then
 *   pb_verdict (twosample.h) with the one margin PB_EQUIVALENCE:
 *   "behind" / "ahead": different, above / below 1 (how much: the ratio,
 *   and its interval's low end, ratio_least);
 *   "within the noise": equivalent (the interval inside 1 +- the margin);
 *   "cannot tell": no interval, or neither.
 * - glibc's threshold is "near" a measured switch between its paths when it
 *   lies inside the sizes where the two kernels' CIs overlap around the
 *   switch (struct pb_crossing's lo_bytes..hi_bytes).
 * - The run is "too noisy to conclude" about libc when at least half of
 *   its comparisons are "cannot tell".
 */
#ifndef PRIMBENCH_SUMMARY_H
#define PRIMBENCH_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/summary_result.h"

/* True when f was written by the default run (`primbench` or `primbench
 * run`: its command_line has no subcommand, or "run"). */
bool pb_summary_is_default_run(const struct pb_results_file *f);

/* Whether f's run was noisy: its own judgement (noise.high) where the file
 * has one; a file from before that, steal above 2% of CPU time or the
 * other CPUs above 50% busy (the summary's "how far to trust it" and the
 * HTML page's machine table use this one rule). */
bool pb_summary_noise_high(const struct pb_results_file *f);

/* The summary of f (docs/results-schema.md "summary";
 * include/primbench/summary_result.h): rules, libc (one record per
 * comparison), glibc (per op and cache state; with the measured
 * GLIBC_TUNABLES lines of f's stored summary, kept as they were), the
 * crossings (syscall cases, ns per op), trust, and the text (the
 * paragraphs pb_summary_print prints; leading spaces are the indent).
 * Sections without data are empty and the text says so. Written by
 * pb_results_add_summary; free with pb_summary_report_free. Returns NULL
 * with pb_error() when f has neither mem cases of memset or memcpy nor
 * syscall cases, when f's stored measured lines are malformed ("PATH:
 * summary.glibc.measured[0].rows[2].pct: out of range"), or on allocation
 * failure. */
struct pb_summary_report *pb_summary_build(const struct pb_results_file *f);

/* The same from a result document in memory (a run's, before it is
 * written): loaded as a file is (pb_results_doc_read, results_join.h). NULL with
 * pb_error(). */
struct pb_summary_report *pb_summary_build_doc(const struct pb_results_doc *doc);

/* Appends one measured GLIBC_TUNABLES line (a copy of *check) to
 * s->glibc.measured, which is then written even when it was absent.
 * Returns 0, or -1 with pb_error() (out of memory, or already
 * PB_GLIBC_CHECK_MAX lines). */
int pb_summary_add_measured(struct pb_summary_report *s, const struct pb_glibc_check *check);

/* Prints the summary's text under a blank line, wrapped at 80 columns
 * (continuation lines 2 spaces deeper than the paragraph's indent), then
 * its measured GLIBC_TUNABLES lines (pb_glibc_effect_print_stored). */
void pb_summary_print(FILE *out, const struct pb_summary_report *summary);

#endif
