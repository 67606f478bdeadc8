/* primbench/accounting.h - reading the accounting files of libprimswitch.so
 * (include/primbench/account.h) and reporting them: what `primbench cmd
 * --account` prints and records.
 *
 * The files of one side of a command (every process image it started that
 * loaded the preload library with PRIMBENCH_ACCOUNT set) are read with
 * pb_acct_read_dir() and summed into one struct pb_acct_total. A file is
 * read with read(2) while its process may still be writing to it: a
 * snapshot, whose counters may be a few calls apart from each other.
 *
 * Estimated ticks (PRIMBENCH_ACCOUNT=ticks): the preload library times one
 * call in N per thread. For a size bucket, summed over every file, the
 * estimate is sampled_ticks * calls / sampled_calls (the mean ticks of its
 * timed calls times its calls); a bucket with calls but no timed call has
 * no estimate (unknown, not 0). A range of buckets (a size class, a
 * primitive) sums the estimates of its buckets that have one and counts the
 * calls of those that have none: its estimate is then a lower bound.
 * Ticks are TSC ticks (reference cycles at the TSC frequency, not core
 * cycles); seconds = ticks / tsc_hz with a frequency the caller gives (the
 * files' own tsc_hz is often 0 and is not used).
 *
 * Not seen by the preload library, so in no figure here: calls made inside
 * libc itself (printf, qsort, libc's own use of memcpy), statically linked
 * programs, and programs that drop LD_PRELOAD (set-user-ID programs).
 */
#ifndef PRIMBENCH_ACCOUNTING_H
#define PRIMBENCH_ACCOUNTING_H

#include <stdint.h>
#include <stdio.h>

#include "primbench/account.h"
#include "primbench/accounting_result.h"

/* The estimate of a range of buckets (see the top of this file). */
struct pb_acct_est {
	uint64_t calls, bytes;      /* sums over the buckets */
	uint64_t sampled_calls;     /* calls timed */
	double ticks;               /* estimated ticks of the buckets that have a timed call;
	                               0 without calls; NaN when there are calls but no
	                               bucket with calls has a timed call (unknown) */
	uint64_t calls_estimated;   /* calls in buckets with a timed call */
	uint64_t calls_unestimated; /* calls in buckets with calls but none timed */
};

/* "memset", "bzero", "explicit_bzero", "memcpy", "mempcpy", "memmove";
 * "all" for PB_ACCT_NPRIM; NULL past it. */
const char *pb_acct_prim_name(int prim);

/* The label of class c ("0", "1..15", "16..63", "64..255", "256..1023",
 * "1K..4K-1", "4K..64K-1", "64K..1M-1", ">=1M") and its first and last log2
 * bucket (account.h). Returns NULL for c out of range (lo, hi untouched). */
const char *pb_acct_class(int c, unsigned *lo_bucket, unsigned *hi_bucket);

/* The sizes of bucket b (account.h: 0 holds 0, b holds 2^(b-1)..2^b-1) in
 * *lo and *hi (bytes, inclusive). b must be < PB_ACCT_BUCKETS. */
void pb_acct_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

/* Estimated ticks of one bucket: sampled_ticks * calls / sampled_calls; 0
 * for a bucket without calls; NaN (unknown) for calls without a timed
 * call. */
double pb_acct_bucket_est_ticks(const struct pb_acct_bucket *b);

/* The estimate of buckets lo..hi (inclusive, clamped to the last bucket) of
 * primitive prim, or of all primitives summed for prim == PB_ACCT_NPRIM
 * (another prim: all zero); each bucket estimated on the sums over the
 * files (pooled: the timed calls of one process stand for the untimed
 * calls of the same bucket in another). */
void pb_acct_estimate(const struct pb_acct_total *t, int prim, unsigned lo, unsigned hi,
                      struct pb_acct_est *out);

/* The share of cpu_time_s (percent) that the estimate *e stands for, with
 * the bound of the timer's serialisation: *share_pct = e->ticks / tsc_hz /
 * cpu_time_s * 100, and *min_pct the same with overhead_ticks (one empty
 * timer pair, struct pb_acct_total's timer_overhead_ticks_max) taken off
 * each estimated call, at least 0. Why a bound: a timed call runs alone
 * between `lfence; rdtsc; lfence` pairs, so it pays the pipeline's refill
 * and cannot overlap the caller's work; in flow it may cost up to about
 * one pair less (measured on bench/memset-share: docs/profile.md, "The
 * memset share"). Both NaN when a figure is unknown (ticks NaN, tsc_hz or
 * cpu_time_s not > 0). */
void pb_acct_share_bounds(const struct pb_acct_est *e, double overhead_ticks, double tsc_hz,
                          double cpu_time_s, double *share_pct, double *min_pct);

/* Reads the accounting file at `path` into *out: a snapshot taken with
 * read(2) (its process may be alive). Checks, in order, that it is a
 * regular file, holds at least the magic, version and size fields, has
 * PB_ACCT_MAGIC, PB_ACCT_VERSION, and a size (on disk and in size_bytes) of
 * sizeof(struct pb_acct_file). The text fields are NUL-terminated in the
 * copy. Returns 0, or -1 with pb_error(), e.g.
 *   "PATH: cannot open: No such file or directory"
 *   "PATH: not a primswitch accounting file (bad magic)"
 *   "PATH: not a primswitch accounting file (not a regular file)"
 *   "PATH: incomplete: no magic yet (its process may have died while creating it)"
 *   "PATH: incomplete: no version yet (...)" (magic written, version still 0)
 *   "PATH: accounting file version 3; this primbench reads version 2"
 *   "PATH: truncated accounting file (100 bytes, expected 13664)"
 *   "PATH: accounting file of more than 13664 bytes, expected 13664"
 *   "PATH: accounting file says it has 12 bytes, expected 13664" (size_bytes)
 * *out is written only on success. */
int pb_acct_read_file(const char *path, struct pb_acct_file *out);

/* Adds one file to *t: its counters, and one process to the counts
 * (forked, policy_failed, ticks mode, its exe and sample rate). A bucket's
 * sampled_ticks above INT64_MAX is a negative sum (account.h) and adds 0. */
void pb_acct_add(struct pb_acct_total *t, const struct pb_acct_file *f);

/* Reads every "primswitch-*.acct" file (PB_ACCT_FILE_PREFIX ... SUFFIX)
 * directly in `dir`, in name order, and adds it to *t (which must be
 * zeroed or hold earlier sums). Other names are ignored. A file that
 * cannot be read or is malformed is skipped: t->skipped counts it and the
 * first PB_ACCT_MAX_NOTES get pb_acct_read_file()'s message in
 * t->skip_note. Returns the number of files added (>= 0), or -1 with
 * pb_error() when the directory cannot be read ("DIR: cannot read
 * accounting directory: REASON"); *t is untouched then. */
int pb_acct_read_dir(const char *dir, struct pb_acct_total *t);

/* Flags of pb_acct_print(). PB_ACCT_PRINT_BUCKETS: a row per non-empty
 * log2 bucket instead of per size class. PB_ACCT_PRINT_NO_CAVEATS: leave
 * out the paragraph on what is estimated and what is not seen (to print it
 * once for two sides). */
#define PB_ACCT_PRINT_BUCKETS    1
#define PB_ACCT_PRINT_NO_CAVEATS 2

/* Prints t as text, every line at most 80 columns:
 * - files (one per process image: exec'd, forked children), policy
 *   failures, files skipped and why,
 *   programs, timing mode and sample rate(s), the TSC frequency used;
 * - per primitive with calls, and "all": calls, bytes (binary units),
 *   mean bytes per call, estimated ticks and time, and the share of
 *   cpu_time_s ("%cpu"); a '+' marks an estimate that misses calls of
 *   untimed buckets (a lower bound);
 * - per primitive with calls, per size class (or log2 bucket with
 *   PB_ACCT_PRINT_BUCKETS) with calls: calls, % of the primitive's calls,
 *   % of its bytes, % of its estimated time, estimated ticks per call, and
 *   calls timed;
 * - unless PB_ACCT_PRINT_NO_CAVEATS, what is estimated and what is not
 *   seen.
 * tsc_hz: TSC ticks per second (pb_timer_info()->hz in TSC mode), <= 0 or
 * NaN when unknown (times are left out). cpu_time_s: the command's user +
 * sys time (seconds) over the same runs the files come from, <= 0 or NaN
 * when unknown (shares are left out). */
void pb_acct_print(FILE *f, const struct pb_acct_total *t, double tsc_hz, double cpu_time_s,
                   int flags);

/* The figures of pb_acct_print() as the record of the `accounting` field
 * of a cmd case (docs/results-schema.md, "A cmd case";
 * include/primbench/accounting_result.h, written by the results module):
 * per primitive, its size classes and "all", the estimates with their
 * share of cpu_time_s; tsc_hz and cpu_time_s as for pb_acct_print()
 * (unknown: NaN in *out). *out borrows t (out->total): t must outlive it.
 * Never fails. */
void pb_acct_tables(const struct pb_acct_total *t, double tsc_hz, double cpu_time_s,
                    struct pb_acct_tables *out);

#endif
