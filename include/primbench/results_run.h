/* primbench/results_run.h - the sections of a result document that say how
 * a run was made rather than what a suite measured (docs/results-schema.md):
 * "counters", "auto_policy", "threads", "equivalence", "xsave_breakeven",
 * "perf_targets", notes, and the accounting document of `primbench
 * account`. The command line fills the structs below; src/results/
 * (run_write.c) alone turns them into JSON. Part of the results module. */
#ifndef PRIMBENCH_RESULTS_RUN_H
#define PRIMBENCH_RESULTS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/kernels.h"
#include "primbench/results.h"
#include "primbench/tsc_sync.h"

/* doc["counters"]: whether hardware counters could be opened here. */
struct pb_counters_status {
	bool available;     /* "available" */
	const char *reason; /* "reason": why not (NULL: no member) */
	bool has_measured;  /* write "measured" (cmd: whether the runs counted) */
	bool measured;
};

/* Sets doc["counters"] to {"available", "reason" (when not NULL),
 * "measured" (when has_measured)}, replacing one there. */
void pb_results_set_counters(struct pb_results_doc *doc, const struct pb_counters_status *c);

/* Sets doc["auto_policy"][pb_op_name(op)] (the object made when missing) to
 * {"policy": policy (pb_policy_format's text), "source": "file" or
 * "default", "path": the policy file looked for or null, then "file_cpu"
 * (from the file) or "default_row" (the built-in table's row)}, from o
 * (pb_auto_setup's origin). */
void pb_results_set_auto_policy(struct pb_results_doc *doc, enum pb_op op, const char *policy,
                                const struct pb_auto_origin *o);

/* doc["threads"] of a run with --threads. */
struct pb_threads_record {
	const char *placement;              /* "compact" or "scatter" */
	const unsigned *cpus;               /* the threads' OS CPUs, in thread order */
	size_t n_cpus;                      /* entries of cpus */
	const char *mem_node;               /* where the memory is, in words */
	bool oversubscribed;                /* more threads than CPUs */
	const struct pb_tsc_sync *tsc_sync; /* the TSC check (NULL: not checked) */
};

/* Sets doc["threads"] to {"placement", "cpus": [...], "mem_node",
 * "oversubscribed", "tsc_sync": {"invariant", "measured", "synchronized",
 * "max_abs_offset_ticks", "bound_ticks" (TSC ticks)} when checked}. */
void pb_results_set_threads(struct pb_results_doc *doc, const struct pb_threads_record *t);

/* Sets doc["equivalence"]: the margin (a fraction, 0.01 = 1%) the run's
 * verdicts used (twosample.h). */
void pb_results_set_equivalence(struct pb_results_doc *doc, double margin);

/* One line of `xsave --breakeven`: from which size SIMD plus the
 * save/restore pair beats the rep kernel. */
struct pb_xsave_breakeven_record {
	const char *op;                /* "memset", "memcpy" */
	const char *pair;              /* the pair's instruction name */
	double pair_median_ticks;      /* TSC ticks per pair */
	bool pair_ci_valid;            /* pair_ci_lo/hi hold a CI */
	double pair_ci_lo, pair_ci_hi; /* ticks */
	size_t replicates;             /* the pair's replicates (1: one run) */
	const char *rep_kernel;        /* the rep kernel's name */
	bool found;                    /* a break-even size was found */
	uint64_t size_bytes;           /* found: the size */
	const char *simd_kernel;       /* found: the SIMD kernel there */
	bool complete;                 /* the sweep ended (not interrupted) */
};

/* Appends {"op", "pair", "pair_upper_state": "dirty", "pair_median_ticks",
 * "pair_ci_ticks": [lo, hi] or null, "replicates", "rep_kernel",
 * "size_bytes" and "simd_kernel" (null when not found), "complete"} to
 * doc["xsave_breakeven"] (made when missing). */
void pb_results_add_xsave_breakeven(struct pb_results_doc *doc,
                                    const struct pb_xsave_breakeven_record *b);

/* One row of bench/perf-targets (docs/performance.md). Medians in TSC
 * ticks per call (NAN: none, written as null); ratio = reference / best. */
struct pb_perf_target_row {
	const char *row, *op;
	uint64_t size_bytes;
	const char *cache_state;
	bool has_fill_value; /* memset: the value it fills with */
	int fill_value;
	const char *probe_isa;
	const char *reference; /* "" when none */
	double reference_ticks_per_call, libc_ticks_per_call;
	const char *best_kernel; /* "" when none */
	double best_ticks_per_call;
	double ratio, ratio_lo, ratio_hi, target;
	const char *result; /* "PASS", "SHORT" or "n/a" */
};

/* Sets doc["perf_targets"] to the array of rows[0..n), each an object with
 * the members above in that order (fill_value only when has_fill_value). */
void pb_results_set_perf_targets(struct pb_results_doc *doc, const struct pb_perf_target_row *rows,
                                 size_t n);

/* Appends each non-empty line of text to doc["notes"], prefix before each
 * ("map: ", or ""). 0, or -1 with pb_error() (not a result document, out
 * of memory). */
int pb_results_add_doc_notes(struct pb_results_doc *doc, const char *prefix, const char *text);

/* Appends text to doc["notes"] as one note, as it is. 0, or -1 with
 * pb_error(). */
int pb_results_append_note(struct pb_results_doc *doc, const char *text);

/* A new accounting document (`primbench account -o`): {"schema":
 * "primbench-accounting", "schema_version": 1, "directory": dir}; its
 * "accounting" object follows. NULL with pb_error() when out of memory. */
struct pb_results_doc *pb_results_accounting_new(const char *dir);

#endif
