/* primbench/accounting_result.h - the accounting of libprimswitch.so's
 * files as data: the sums over a set of files (struct pb_acct_total,
 * filled by report's include/primbench/accounting.h) and the tables
 * computed from them (struct pb_acct_tables, pb_acct_tables()), which the
 * results module alone writes as the `accounting` object of a cmd case
 * (docs/results-schema.md, "A cmd case"). Part of the results module.
 *
 * Counts are numbers of calls, bytes, files; ticks are TSC ticks,
 * seconds are ticks / tsc_hz. A figure that is NaN is unknown and written
 * as null; a count above INT64_MAX is written as a real. */
#ifndef PRIMBENCH_ACCOUNTING_RESULT_H
#define PRIMBENCH_ACCOUNTING_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "primbench/account.h"

struct pb_results_doc;

#define PB_ACCT_MAX_EXES  16 /* distinct programs listed; more are counted together */
#define PB_ACCT_MAX_RATES 8  /* distinct sample_every values listed */
#define PB_ACCT_MAX_NOTES 4  /* skipped files described; more are only counted */
#define PB_ACCT_NOTE_LEN  512

/* Size classes of the printed table (groups of log2 buckets). */
enum pb_acct_class {
	PB_ACCT_CLASS_0,      /* 0 bytes                (bucket 0) */
	PB_ACCT_CLASS_1_15,   /* 1..15                  (buckets 1-4) */
	PB_ACCT_CLASS_16_63,  /* 16..63                 (buckets 5-6) */
	PB_ACCT_CLASS_64_255, /* 64..255                (buckets 7-8) */
	PB_ACCT_CLASS_256_1K, /* 256..1023              (buckets 9-10) */
	PB_ACCT_CLASS_1K_4K,  /* 1 KiB..4 KiB-1         (buckets 11-12) */
	PB_ACCT_CLASS_4K_64K, /* 4 KiB..64 KiB-1        (buckets 13-16) */
	PB_ACCT_CLASS_64K_1M, /* 64 KiB..1 MiB-1        (buckets 17-20) */
	PB_ACCT_CLASS_1M_UP,  /* 1 MiB and more         (buckets 21-64) */
	PB_ACCT_NCLASSES
};

/* The sums over a set of accounting files. All-zero (`= {0}`) is the empty
 * total. Counts are numbers of files, one per process image. */
struct pb_acct_total {
	uint64_t processes;       /* files added */
	uint64_t forked;          /* of them made in a fork child (forked == 1) */
	uint64_t policy_failed;   /* of them with policy_ok == 0 (libc served their calls) */
	uint64_t ticks_processes; /* of them in ticks mode (ticks == 1) */
	uint64_t skipped;         /* files named like accounting files that could not be read
	                             or were malformed (pb_acct_read_dir) */
	char skip_note[PB_ACCT_MAX_NOTES][PB_ACCT_NOTE_LEN]; /* why, for the first ones */
	/* Distinct exe paths (as the files give them, maybe truncated) with
	 * their number of processes, in first-seen order; processes whose
	 * program did not fit in the list are counted in exe_other. */
	struct {
		char path[PB_ACCT_TEXT];
		uint64_t processes;
	} exe[PB_ACCT_MAX_EXES];
	unsigned n_exe;
	uint64_t exe_other;
	/* Distinct sample_every values of the ticks-mode files, with their
	 * number of processes; rate_other counts the ones past the list. */
	struct {
		uint32_t sample_every;
		uint64_t processes;
	} rate[PB_ACCT_MAX_RATES];
	unsigned n_rate;
	uint64_t rate_other;
	/* Per primitive: the files' calls and bytes, and per bucket the sums
	 * of calls, bytes, sampled_calls and sampled_ticks. The primitive's
	 * calls/bytes and the sums of its buckets are added separately (a live
	 * writer's snapshot may differ by a few calls). Additions saturate at
	 * UINT64_MAX. */
	struct pb_acct_prim_counts prim[PB_ACCT_NPRIM];
	/* The largest timer_overhead_ticks of the ticks-mode files: the cost
	 * of one empty timer pair, what each timed call had subtracted. */
	double timer_overhead_ticks_max;
};

/* One estimate as written: {"calls", "bytes", "sampled_calls",
 * "est_ticks", "est_s", ["cpu_pct", "cpu_pct_min"] (share),
 * "calls_unestimated"}. */
struct pb_acct_est_record {
	uint64_t calls, bytes, sampled_calls;
	double est_ticks;   /* NaN: unknown */
	double est_s;       /* est_ticks / tsc_hz; NaN: unknown */
	bool share;         /* cpu_pct and cpu_pct_min written */
	double cpu_pct;     /* est_s over cpu_time_s, percent */
	double cpu_pct_min; /* the same less the timer's serialisation, at least 0 */
	uint64_t calls_unestimated;
};

/* One size class of a primitive: {"class", "min_bytes", "max_bytes"
 * (null: no upper bound), the estimate's fields}. */
struct pb_acct_class_record {
	const char *label;             /* "0", "1..15", ... (static) */
	uint64_t min_bytes, max_bytes; /* UINT64_MAX max_bytes: null */
	struct pb_acct_est_record est;
};

/* An op whose kernel (the policy's, cmd --memset etc.) ran another row's
 * code for some of its calls (an NT row below a cache line: same_code_as):
 * one object of the array "ran_other_code", {"op", "kernel",
 * "ran_code_of", "calls"} (the counted calls that ran that code). The
 * strings are borrowed (static names). */
struct pb_acct_ran_other_code {
	const char *op, *kernel, *ran_code_of;
	uint64_t calls;
};

/* The `accounting` object: the counts of total (processes, forked,
 * policy_failed, ticks_processes, files_skipped, skip_notes, programs,
 * programs_other, sample_every, sample_every_other), the figures used,
 * per primitive (named prim_name[p]) its estimate with the primitive's own
 * calls and bytes, its classes and non-empty buckets (bucket_min,
 * bucket_max: each log2 bucket's sizes), "all", and (a cmd side's, when
 * n_ran_other_code > 0) "ran_other_code". */
struct pb_acct_tables {
	const struct pb_acct_total *total; /* borrowed */
	double tsc_hz, cpu_time_s;         /* NaN: unknown */
	double timer_overhead_ticks;       /* NaN without ticks-mode files */
	const char *prim_name[PB_ACCT_NPRIM];
	struct {
		struct pb_acct_est_record est;
		struct pb_acct_class_record cls[PB_ACCT_NCLASSES];
	} prim[PB_ACCT_NPRIM];
	struct pb_acct_est_record all;
	uint64_t bucket_min[PB_ACCT_BUCKETS], bucket_max[PB_ACCT_BUCKETS];
	/* cmd --account: the calls that ran another row's code, set by the
	 * caller after pb_acct_tables() (which leaves none); borrowed */
	const struct pb_acct_ran_other_code *ran_other_code;
	size_t n_ran_other_code;
};

/* Sets doc["accounting"] to t's object (in an accounting document,
 * pb_results_accounting_new, results_run.h; a cmd case's is written with
 * the case, pb_results_add_cmd_case, primbench/cmd_result.h).
 * Returns 0, or -1 with pb_error() when out of memory. */
int pb_results_add_accounting(struct pb_results_doc *doc, const struct pb_acct_tables *t);

#endif
