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

#include <jansson.h>

#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/stats.h"
#include "primbench/twosample.h"

/* Per side, at most this many samples enter the two-sample figures (their
 * cost is nx * ny): a larger sample is reduced to this many evenly spaced
 * order statistics, with a note. */
#define PB_COMPARE_MAX_SAMPLES 2000

/* One field that differs between two machines. */
struct pb_compare_diff {
	char *field; /* "cpu.model", "kernel", "mitigations.vulnerabilities.mds" */
	char *a, *b; /* values as text ("(missing)" when absent) */
};

/* The hardware fields (cpu.vendor, cpu.family, cpu.model, cpu.stepping,
 * cpu.online_cpus) and the software ones (microcode, kernel, kernel
 * version, mitigations, THP, cpufreq governor, glibc version, tunables and
 * thresholds, primbench build, usable features, cache sizes, clock) that
 * differ. Returns the count stored in *out (malloc'd array), or -1. */
int pb_compare_hardware_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);
int pb_compare_software_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);
void pb_compare_diffs_free(struct pb_compare_diff *d, size_t n);

/* One case in both files. */
struct pb_compare_row {
	const struct pb_results_case *a, *b;
	/* the files a and b are from: with several files a side, the first
	 * file of the side that has the case (a side is the union of its
	 * files' cases) */
	const struct pb_results_file *file_a, *file_b;
	const char *unit; /* compared in: a's, b's, "ns"; latency "ns/load", map "ns/4KiB" */
	/* per-call summaries, median CI at level; n: the samples behind the
	 * side, with several files a side those of every file that has the
	 * case (pooled) */
	struct pb_summary sa, sb;
	bool ratio;            /* all values > 0: shift is the HL ratio */
	struct pb_shift shift; /* ratio b/a, or else the shift b - a */
	/* delta in %: 100 (ratio - 1), or 100 shift / median of a; NaN when
	 * not defined (lo, hi: also without an interval) */
	double pct, pct_lo, pct_hi;
	struct pb_utest u;
	/* pb_verdict (twosample.h) on the delta with the result's margin (a
	 * ratio row; a shift row: none); significant: verdict different.
	 * one_run rows: none. */
	enum pb_verdict verdict;
	bool significant;
	bool thinned; /* a side had more than PB_COMPARE_MAX_SAMPLES */
	/* The change of the medians in % (as pct: of the ratio of the medians,
	 * or of their difference in % of a's). It can lie outside [pct_lo,
	 * pct_hi]: the delta is the median of all pairwise ratios (or
	 * differences), not the ratio of the medians, and with bimodal samples
	 * a median can jump between modes. The table marks such a row '*'
	 * (judged on the printed figures). */
	double pct_medians;
	/* Run level (include/primbench/replicates.h): the runs of each side,
	 * their figures, and Welch's t on their logs. With one file a side a
	 * run is a replicate of the case (schema v2); with several files a
	 * side, a file that has the case (its replicates' geometric mean).
	 * With two or more runs a side (and every value > 0) the delta, its
	 * interval, p and the verdict are the runs' (run_level); otherwise
	 * one_run: the delta is the samples' Hodges-Lehmann figure (with
	 * several files a side, of the samples of every file that has the
	 * case, pooled), which describes one process only, and there is no
	 * verdict. A cmd case's samples are runs, each a process: with one
	 * file a side, or fewer than two files with the case on a side, it is
	 * neither: the delta, interval, p and verdict are its samples' (of
	 * every file with it, pooled), and runs_a, runs_b count them. */
	size_t runs_a, runs_b;
	bool run_level, one_run;
	struct pb_runs_ratio runs;
	/* mem: the kernel row's revision in each file (1: not recorded) */
	long long rev_a, rev_b;
};

/* Geometric means over the rows of one unit whose medians are > 0 (the
 * others are named in a note of the result). */
struct pb_compare_geomean {
	const char *unit;
	size_t n;
	double a, b;  /* geometric means of the medians */
	double ratio; /* b / a: the geometric mean of the median ratios */
};

struct pb_compare_result {
	const struct pb_results_file *fa, *fb; /* the first file of each side */
	/* every file of each side (pb_compare_sides; NULL after pb_compare_run,
	 * whose one file a side is fa, fb). Borrowed: valid while the caller's
	 * arrays are. */
	const struct pb_results_file *const *side_a, *const *side_b;
	size_t nside_a, nside_b;
	double level;
	double margin; /* of "equivalent": PB_EQUIVALENCE unless pb_compare_set_margin */
	struct pb_compare_diff *hw, *sw;
	size_t nhw, nsw;
	struct pb_compare_row *rows; /* in a's order */
	size_t nrows;
	struct pb_compare_geomean *gm;
	size_t ngm;
	const struct pb_results_case **only_a, **only_b;
	size_t nonly_a, nonly_b;
	char **notes;
	size_t nnotes;
};

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

/* The comparison as JSON (docs/results-schema.md "compare output"). */
json_t *pb_compare_json(const struct pb_compare_result *r);

#endif
