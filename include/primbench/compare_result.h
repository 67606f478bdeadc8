/* primbench/compare_result.h - a comparison of result files as the
 * results module holds and writes it (docs/results-schema.md "compare
 * output"): the structs `primbench compare` (include/primbench/compare.h,
 * which computes them) fills, the machine differences read from two
 * files' machines, and the writer of the compare document. Part of the
 * results module.
 */
#ifndef PRIMBENCH_COMPARE_RESULT_H
#define PRIMBENCH_COMPARE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/twosample.h"

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
int pb_results_hardware_diffs(const struct pb_results_machine *ma,
                              const struct pb_results_machine *mb, struct pb_compare_diff **out);
int pb_results_software_diffs(const struct pb_results_machine *ma,
                              const struct pb_results_machine *mb, struct pb_compare_diff **out);
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
	/* run_level rows: the runs' figures behind `runs` (runs_a, runs_b of
	 * them, in the row's unit per call, in run order: replicate i, or the
	 * side's i-th file with the case), malloc'd and freed with the result
	 * (the regression gate's geometric means, pb_compare_gate); NULL
	 * otherwise */
	double *run_va, *run_vb;
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

/* ---- the regression gate (compare --fail-if-slower; pb_compare_gate,
 * include/primbench/compare.h, fills it) ---- */

/* One change the gate found slower than its threshold: a case, or the
 * geometric mean of a group's cases (or of a unit's, across groups). */
struct pb_gate_failure {
	const struct pb_compare_row *row; /* the case; NULL for a geometric mean */
	const char *group;                /* the case group ("memset hot"); NULL for a
	                                     unit's geometric mean across groups */
	const char *unit;                 /* the rows' unit */
	size_t n;                         /* the cases behind it (1 for a case) */
	double pct, pct_lo, pct_hi;       /* new/old - 1 in %, and its interval */
};

/* What pb_compare_gate judged. Borrows from the comparison it came from. */
struct pb_gate {
	double pct; /* the threshold, in % */
	struct pb_gate_failure *fail;
	size_t nfail;
	/* cases with a verdict (run-level rows; cmd rows, whose samples are
	 * runs), and without one (one run a side: they cannot be judged) */
	size_t cases_judged, cases_unjudged;
	/* geometric means judged, and those of two or more run-level cases
	 * that could not be (run counts that differ between the cases) */
	size_t geomeans_judged, geomeans_unjudged;
};

/* ---- the compare document (docs/results-schema.md "compare output") ---- */

#define PB_COMPARE_SCHEMA         "primbench-compare"
#define PB_COMPARE_SCHEMA_VERSION 2

/* A new compare document: schema, schema_version, command_line (argv[0..
 * argc)), level, equivalence (margin), forced, then "files": per file of
 * files[0..nfiles) its path, machine.fingerprint_hash and started_at (null
 * when missing), cases (with samples) and cases_without_samples. NULL with
 * pb_error() when out of memory. Free with pb_results_doc_free. */
struct pb_results_doc *pb_results_compare_new(int argc, char *const *argv, double level,
                                              double margin, bool force,
                                              const struct pb_results_file *files, size_t nfiles);
/* Adds "sides": {"old": the paths of files[0..na), "new": those of
 * files[na..n)} (compare A1 A2 -- B1 B2). */
void pb_results_compare_sides(struct pb_results_doc *doc, const struct pb_results_file *files,
                              size_t n, size_t na);
/* Appends r to the document's "comparisons" (made at the first): old,
 * new, old_files, new_files, hardware_differs, software_differs, cases
 * (per row: name, key, unit, old and new {n, median, ci_lo, ci_hi}, delta
 * {method "ratio" or "shift", estimate, lo, hi, coverage, pct, pct_lo,
 * pct_hi}, p, p_exact, significant, verdict, runs {unit "process", "file"
 * or "replicate", old, new, run_level, one_run, with a run-level delta
 * method "welch-t-log", df, sd_log_old, sd_log_new}, kernel_revision_old
 * and _new, thinned, and with a profile on both sides profile.families
 * [{name, old, new, change}]), geomean [{unit, n, old, new, ratio}],
 * only_in_old and only_in_new [{name, key}], notes. Numbers that are not
 * finite are null. 0, or -1 with pb_error() when out of memory. */
int pb_results_add_comparison(struct pb_results_doc *doc, const struct pb_compare_result *r);

/* Sets "gate" on the document's last comparison: threshold_pct, failed
 * (any failure), cases_judged, cases_unjudged, geomeans_judged,
 * geomeans_unjudged, failures [{kind "case" or "geomean", name (a case's
 * "GROUP: LABEL"; a geometric mean's group, null across groups), key (a
 * case's; null), group, unit, n, pct, pct_lo, pct_hi}]. 0, or -1 with
 * pb_error() (no comparison yet, out of memory). */
int pb_results_add_gate(struct pb_results_doc *doc, const struct pb_gate *g);

/* A document as text on f as result files are written (indented by 1,
 * reals to 10 significant digits), then a newline. 0, or -1 with
 * pb_error() when out of memory; errors of the stream f are the caller's
 * to check (ferror). */
int pb_results_compare_print(FILE *f, const struct pb_results_doc *doc);

#endif
