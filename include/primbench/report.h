/* primbench/report.h - text tables of results, laid out to paste into an
 * email (at most 80 columns: wide tables are split).
 */
#ifndef PRIMBENCH_REPORT_H
#define PRIMBENCH_REPORT_H

#include <stdio.h>

#include "primbench/fingerprint.h"
#include "primbench/mem_result.h"
#include "primbench/units.h"

/* The N-thread cases of (op, st) at one size (mem.h "Threads"): three
 * blocks with thread counts as columns: aggregate GB/s (every thread's
 * bytes over the span first start .. last end), the median thread's own
 * GB/s, and efficiency = aggregate / (N x the 1-thread figure of the same
 * run). Prints nothing when the size has one thread count. The other
 * table printers show the 1-thread cases only. */
void pb_print_mem_threads(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                          enum pb_cache_state st, uint64_t size_bytes);

/* The table of one (op, cache state) in r (nothing when r has none): rows
 * are kernels in catalogue order, columns sizes, cells the median in `unit`;
 * per column '*' marks the fastest and '=' every kernel whose 95% CI of the
 * median overlaps the fastest's (not distinguishable). */
void pb_print_mem_table(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, enum pb_unit unit);

/* The tables' mark of case c against the fastest of its column or row,
 * best: '*' on best itself; '=' when c is not shown slower than best
 * beyond the one margin (pb_verdict, twosample.h, PB_EQUIVALENCE, on
 * c / best from pb_contender_ratio: replicate by replicate, or by the
 * samples), so equivalent or cannot tell; ' ' when it is. Cases without
 * samples: ' '. */
char pb_mem_mark(const struct pb_mem_case *c, const struct pb_mem_case *best);

/* For one (op, state, size) with several placements (an alignment or
 * aliasing grid): rows are placements (dst offset, dst/src offsets, or dst
 * offset and distance), columns kernels; '*' the fastest per row, '=' not
 * shown slower than it (pb_mem_mark). */
void pb_print_mem_grid(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                       enum pb_cache_state st, uint64_t size_bytes, enum pb_unit unit);

/* With --then-read: the table of the read-back times (reading what each
 * batch wrote, timed separately), same layout as pb_print_mem_table. */
void pb_print_mem_readback(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                           enum pb_cache_state st, enum pb_unit unit);

/* With --counters on a machine that has them: cycles, instructions and
 * cache misses per call of each case of (op, state); "(mux)" marks counts
 * scaled for multiplexing. */
void pb_print_mem_counters(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                           enum pb_cache_state st);

/* The grid of read-back times (--then-read with several placements). */
void pb_print_mem_readback_grid(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                                enum pb_cache_state st, uint64_t size_bytes, enum pb_unit unit);

/* For one (op, state): the fastest kernel at each size, in every unit. */
void pb_print_mem_fastest(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                          enum pb_cache_state st);

/* "s" after a count other than 1, "" after 1: "%llu sample%s". */
static inline const char *pb_plural(unsigned long long n)
{
	return n == 1 ? "" : "s";
}

/* Three significant figures in at most 7 characters ("0.52", "12.3",
 * "4096", "1.58e7": large counts in e-notation so they cannot be read as
 * sizes such as "16M"); "-" for NaN, "inf" for infinity. */
void pb_format_sig3(char *buf, size_t len, double v);

/* A time v, already in a unit of div ns (1e3 us, 1e6 ms, 1e9 s), in at
 * most 9 characters, with no more decimals than its clock resolves
 * (resolution_ns: 1 for CLOCK_MONOTONIC, 1000 for wait4()'s struct
 * timeval), at most 3: user time 481 us is "481", not "481.000"; "%.4g"
 * from 100000 on. */
void pb_format_time(char *buf, size_t len, double v, double div, double resolution_ns);

/* cmd's line on its run 1 against the later runs: x[0..n) are one side's
 * counted real times in run order (any unit). "run 1 took 3.14x the median
 * of runs 2-10: an outlier, outside 0.62x-1.41x that median (the later
 * runs' far-out fences, Q1 - 3 IQR and Q3 + 3 IQR, at least +-10%) ...", or "..., not an
 * outlier: inside ...", or "(too few runs to call it an outlier: the rule
 * needs 3 later runs)"; the rule is pb_first_outlier's (stats.h). Returns
 * false (buf "") when there is nothing to say: n < 2, or a median <= 0. */
bool pb_format_first_run(char *buf, size_t len, const double *x, size_t n);

/* cmd's note on user and sys when a run used few ticks of CPU time:
 * cpu_ns is the median user+sys per run (ns), acc how this kernel splits
 * it (fingerprint.h, pb_cputime_read; hz 0: not known, taken as the
 * longest usual tick, 10 ms at CONFIG_HZ=100). Under 10 ticks the split
 * is off by up to a tick a run (kernel/sched/cputime.c, cputime_adjust),
 * under one a run no tick fell in shows all of its time as user, one whose
 * ticks fell in the kernel all of it as sys: the note
 * says so and what stays measured (user+sys, real). Returns false (buf
 * "") when there is nothing to say: 10 ticks or more, or a kernel that
 * measures the split (tick_split 0), or cpu_ns not a number. */
bool pb_format_cputime_note(char *buf, size_t len, double cpu_ns,
                            const struct pb_cputime_accounting *acc);

/* The table of a replay (pb_mem_replay_run) in state st: a header naming
 * the distribution, its file, the batch (calls, seed, offsets, share of
 * calls <= 128 B, mean bytes) and the state; then one row per kernel in r's
 * order: median ns/call, ticks/call, bytes/tick (the batch's bytes over its
 * ticks) and libc's median over the kernel's ("x libc": > 1 is faster than
 * libc; "-" without a libc row), '*' on the fastest, '=' on every kernel
 * whose 95% CI of the median overlaps the fastest's. */
void pb_print_mem_replay(FILE *f, const struct pb_mem_result *r, enum pb_cache_state st);

/* Measurement quality: worst CI half-width, migrations, outliers, skipped
 * states and other notes. */
void pb_print_mem_quality(FILE *f, const struct pb_mem_result *r);

#endif
