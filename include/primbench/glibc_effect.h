/* glibc_effect.h - what a GLIBC_TUNABLES line did to libc, judged (issue
 * 32): from the comparison of libc run without the line (side A) and with
 * it (side B) in fresh processes (`--vs-env`), one row per size the line
 * changes glibc's path at (pb_glibc_path_at, breakeven.h), beside what the
 * measurement that proposed it predicted. The measuring is the CLI's
 * (src/cli/glibc_check.c); this is the judgement and its text. */
#ifndef PRIMBENCH_GLIBC_EFFECT_H
#define PRIMBENCH_GLIBC_EFFECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/compare.h"
#include "primbench/summary_result.h"
#include "primbench/twosample.h"

/* A size the line changes, with the proposing run's prediction. */
struct pb_glibc_point {
	uint64_t size_bytes;
	/* the median of the policy's kernel there over libc's, minus 1 (-0.13:
	 * 13% faster with the line); NAN when there is no figure */
	double predicted;
	const char *predicted_kernel; /* the policy's kernel there, or NULL */
};

/* One size: libc without and with the line. */
struct pb_glibc_effect_row {
	struct pb_glibc_point pt;
	bool measured;              /* a row of the comparison had this size */
	const char *unit;           /* of without, with: "tsc_ticks", "ns", ... */
	double without, with;       /* libc's median a call, A's and B's */
	double pct, pct_lo, pct_hi; /* 100 (with/without - 1) and its 95% interval */
	bool run_level;             /* two or more processes a side: pct's interval
	                               is Welch's t over their medians; else no verdict */
	enum pb_verdict verdict;    /* pb_verdict with the comparison's margin */
	const char *word;           /* pb_glibc_effect_word */
};

/* The rows of pts[0..n) from r, the comparison of A (without) and B
 * (with) with cases of kernel libc (pb_compare_run, its margin set): the
 * row of r whose case has size_bytes pts[i].size_bytes fills out[i] (not
 * found: measured false). Returns n. */
size_t pb_glibc_effect(const struct pb_compare_result *r, const struct pb_glibc_point *pts,
                       size_t n, struct pb_glibc_effect_row *out);

/* The verdict in words: "faster" or "slower" (different: the interval
 * excludes 0 and the change lies beyond the margin), "same" (equivalent
 * within the margin), "unclear" (neither, or no run-level interval). */
const char *pb_glibc_effect_word(enum pb_verdict v, double pct);

/* The table under `heading` (one line, wrapped): size, without, with,
 * measured change with its interval, verdict, prediction; then a line
 * counting the verdicts and a legend with the margin (a fraction). Every
 * line fits in 80 columns. */
void pb_glibc_effect_print(FILE *f, const char *heading, const struct pb_glibc_effect_row *rows,
                           size_t n, double margin);

/* One check printed: its heading ("memset hot, libc without and with the
 * line, measured: 5 fresh processes each way in the order ABBA... (primbench
 * mem memset --kernels libc --sizes ... --cache hot --vs-env with the
 * line)", the sizes those of rows), then pb_glibc_effect_print. */
void pb_glibc_effect_print_check(FILE *f, const char *op, const char *state, size_t processes,
                                 const char *order, const struct pb_glibc_effect_row *rows,
                                 size_t n, double margin);

/* A check as the record a summary keeps (docs/results-schema.md, summary
 * "glibc.measured"; include/primbench/summary_result.h, written by the
 * results module): op, state, env, the processes of each side, their
 * order, the margin and up to PB_GLIBC_CHECK_MAX_ROWS rows (more are left
 * out), each row's prediction as a percentage (100 predicted; NaN: none).
 * Strings are copied (truncated to the record's fields). */
void pb_glibc_effect_check_make(const char *op, const char *state, const char *env,
                                size_t processes_a, size_t processes_b, const char *order,
                                double margin, const struct pb_glibc_effect_row *rows, size_t n,
                                struct pb_glibc_check *out);

/* Prints a kept check as pb_glibc_effect_print_check does (the processes
 * of side A, the rows' predictions back as fractions). */
void pb_glibc_effect_print_stored(FILE *f, const struct pb_glibc_check *check);

#endif
