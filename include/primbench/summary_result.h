/* primbench/summary_result.h - the summary of a default run as data: the
 * `summary` object of a result document (docs/results-schema.md
 * "summary"). Report computes it from a loaded file
 * (include/primbench/summary.h: pb_summary_build); the results module
 * alone writes it (pb_results_add_summary) and reads back what a file's
 * stored summary keeps that cannot be recomputed, its measured
 * GLIBC_TUNABLES lines (pb_results_read_glibc_checks). Part of the results
 * module.
 *
 * Figures are as written: NaN is written as null. Strings marked "static"
 * point to constant strings (names of ops, states, verdicts, rules);
 * "owned" ones are malloc'd and freed by pb_summary_report_free.
 */
#ifndef PRIMBENCH_SUMMARY_RESULT_H
#define PRIMBENCH_SUMMARY_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/policy.h"
#include "primbench/twosample.h"

struct pb_results_doc;
struct pb_results_file;

/* ---- summary.glibc.measured: a GLIBC_TUNABLES line timed ---------------- */

#define PB_GLIBC_CHECK_MAX      16 /* checks a summary keeps */
#define PB_GLIBC_CHECK_MAX_ROWS 8  /* sizes of one check */

/* One size of a check: libc without and with the line. */
struct pb_glibc_check_row {
	uint64_t size_bytes;
	char unit[32];              /* "tsc_ticks", "ns"; "" (null): not measured */
	double without, with;       /* libc's median a call, A's and B's (unit) */
	double pct, pct_lo, pct_hi; /* 100 (with/without - 1) and its 95% interval */
	bool run_level;             /* the interval is Welch's t over the processes */
	enum pb_verdict verdict;    /* written as pb_verdict_name */
	char word[8];               /* "faster", "slower", "same", "unclear", "missing" */
	double predicted_pct;       /* the proposing run's figure, percent; NaN: none */
	char predicted_kernel[33];  /* "" (null): none */
};

/* One check: {"op", "cache_state", "env", "processes_a", "processes_b",
 * "order", "margin", "rows"}. */
struct pb_glibc_check {
	char op[16];          /* "memset" or "memcpy" */
	char cache_state[16]; /* "hot", "dram", ... */
	char env[2049];       /* "GLIBC_TUNABLES=..." */
	size_t processes_a, processes_b;
	char order[256]; /* "ABBA...": the processes' order */
	double margin;   /* the verdicts' margin, a fraction */
	struct pb_glibc_check_row rows[PB_GLIBC_CHECK_MAX_ROWS];
	size_t n_rows;
};

/* ---- the summary --------------------------------------------------------- */

/* summary.rules: the margin (a fraction) and the rules in words. */
struct pb_summary_rules {
	double margin;
	char within_noise[400];
	const char *behind, *ahead, *cannot_tell, *consistent, *too_noisy_to_conclude; /* static */
};

/* summary.libc[]: libc against the fastest other kernel at one size. */
struct pb_summary_libc {
	const char *op, *cache_state; /* static */
	uint64_t size_bytes;
	const char *verdict;     /* static: pb_standing_name */
	char *fastest_other;     /* owned */
	double libc_ticks[3];    /* median, ci_lo, ci_hi (ticks a call) */
	double fastest_ticks[3]; /* the same of fastest_other */
	double ratio, ratio_least, ratio_bound;
	double ratio_ci[2];
};

/* summary.glibc.thresholds[]: one glibc threshold against the run. */
struct pb_summary_threshold {
	const char *op, *cache_state, *threshold; /* static */
	uint64_t threshold_bytes;
	const char *verdict, *lower_path, *upper_path; /* static */
	uint64_t lower_faster_up_to_bytes;             /* 0: null */
	uint64_t upper_faster_from_bytes;              /* 0: null */
};

#define PB_SUMMARY_MAX_PEERS 8

/* summary.glibc.policies[]: the policy --breakeven computes for one (op,
 * cache state), and with glibc's thresholds known (has_env) the closest
 * GLIBC_TUNABLES line. */
struct pb_summary_policy {
	const char *op, *cache_state; /* static */
	char policy[PB_POLICY_TEXT_MAX];
	size_t switches;
	bool has_env; /* env, current_is_closest, mismatch_octaves, libc_behind_sizes */
	char env[256];
	bool current_is_closest;
	double mismatch_octaves;
	size_t libc_behind_sizes;
	/* policy_peers: per band, the kernels it cannot tell from its own (static names) */
	size_t n_bands;
	const char *peers[PB_POLICY_MAX_BANDS][PB_SUMMARY_MAX_PEERS];
	size_t n_peers[PB_POLICY_MAX_BANDS];
};

/* summary.glibc */
struct pb_summary_glibc {
	struct pb_summary_threshold *thresholds; /* owned array */
	size_t n_thresholds;
	struct pb_summary_policy *policies; /* owned array */
	size_t n_policies;
	bool has_cases_other_code; /* false: the key is left out (no mem cases) */
	size_t cases_other_code;
	bool has_measured;               /* "measured" written (maybe empty) */
	struct pb_glibc_check *measured; /* owned array */
	size_t n_measured;
};

/* summary.crossings[]: one syscall case in ns per op. */
struct pb_summary_crossing {
	char *name;      /* owned: the case's label */
	bool has_figure; /* false: only "case" (no ns conversion) */
	double ns_per_op, ci_ns[2], ci_halfwidth_pct;
};

/* summary.trust */
struct pb_summary_trust {
	size_t cases, samples;
	double widest_ci_halfwidth_pct;
	char widest_ci_case[160];
	size_t noisy_cases, cases_without_ci;
	long long migrations, outliers;
	bool high_noise, too_noisy_to_conclude, interrupted;
};

/* The whole summary, in the order written: rules, libc, glibc, crossings,
 * trust, text (paragraphs; leading spaces are the indent). */
struct pb_summary_report {
	struct pb_summary_rules rules;
	struct pb_summary_libc *libc; /* owned array */
	size_t n_libc;
	struct pb_summary_glibc glibc;
	struct pb_summary_crossing *crossings; /* owned array */
	size_t n_crossings;
	struct pb_summary_trust trust;
	char **text; /* owned array of owned strings */
	size_t n_text;
};

/* Frees s and everything it owns (NULL: nothing). */
void pb_summary_report_free(struct pb_summary_report *s);

/* Sets doc["summary"] to s (replacing one there). Returns 0, or -1 with
 * pb_error() when out of memory. */
int pb_results_add_summary(struct pb_results_doc *doc, const struct pb_summary_report *s);

/* The measured checks a file's stored summary keeps
 * (summary.glibc.measured), checked: at most 16, each with op memset or
 * memcpy, cache_state hot or dram, a printable env "GLIBC_TUNABLES=..."
 * (up to 2048 characters), order of A and B, processes_a and processes_b
 * 1..255, margin in [0, 1), 1 to 8 rows, each with size_bytes 1 B..1 PiB,
 * a known word and unit, medians in [0, 1e15], percentages in [-100,
 * 1e6] (or null) and a kernel name of up to 32 printable characters.
 * *present: whether the file has the array (then *out, malloc'd, holds
 * *n checks; NULL when 0). Returns 0, or -1 with pb_error() naming the
 * first bad field ("summary.glibc.measured[0].rows[2].pct: out of range"),
 * *out NULL then. */
int pb_results_read_glibc_checks(const struct pb_results_file *f, struct pb_glibc_check **out,
                                 size_t *n, bool *present);

#endif
