/* primbench/mem.h - the memory-kernel suite: time memset/memcpy/memmove
 * kernels across sizes and cache states.
 *
 * Method (docs/methodology.md "The mem suite"):
 * - A sample is one timed batch of k calls of one kernel at one size;
 *   k is calibrated per kernel so a batch lasts well above the timer's step
 *   and overhead; the timer overhead is subtracted from each batch.
 * - For each (cache state, size) group, every kernel's samples are taken
 *   round-robin in a freshly shuffled order each round, so drift of a
 *   shared machine hits every contender alike.
 * - hot: every call uses the same two destination (and source) buffers.
 *   dram: every call uses a slot drawn in random order from a working set
 *   far larger than the LLC; after each batch the used destination slots are
 *   refilled with non-temporal stores and the used source slots flushed, so
 *   each call starts with its buffers out of cache.
 * - Destinations are refilled (untimed, between samples) with a value
 *   different from the one the kernel writes (prefill_value), except in
 *   repeat: one destination (and one source) every call, back to back and
 *   never refilled, so each call writes over the previous call's bytes, as
 *   perf bench mem and lmbench's bw_mem do (docs/validation.md).
 * - Threads (threads / thread_counts): each count of threads is a group of
 *   its own, and the 1-thread count is always run too, on the calling
 *   thread exactly as without threads. With N > 1, N workers (the harness's,
 *   include/primbench/harness.h) each own an arena allocated and first
 *   touched by that worker, once pinned, all N at once; a sample starts
 *   them at a barrier, every thread runs its k calls on its own buffers and
 *   the sample is the span from the first begin to the last end, with
 *   k x N calls: its ticks per call give the aggregate (size / ticks per
 *   call). Every cache state means the same per thread: hot and repeat:
 *   its own buffers, as one thread's; l2: the L2 set per thread (an L2 per
 *   core); llc: its share of the LLC set, the one-thread set / N; dram:
 *   the one-thread set per thread, cut when N of them (both regions of a
 *   copy) would exceed half the free memory, but never below the
 *   one-thread set / N (together the threads still rotate through at
 *   least 4 x the LLC) nor 8 slots. k is calibrated on one thread.
 */
#ifndef PRIMBENCH_MEM_H
#define PRIMBENCH_MEM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/counters.h"
#include "primbench/distribution.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/pages.h"
#include "primbench/placement.h"
#include "primbench/stats.h"
#include "primbench/units.h"

struct pb_mem_params {
	enum pb_op op;
	const struct pb_kernel *const *kernels; /* all must be usable */
	size_t n_kernels;
	const uint64_t *sizes_bytes; /* bytes per call; 0 times the call alone */
	size_t n_sizes;
	const enum pb_cache_state *states;
	size_t n_states;
	const struct pb_mem_placement *placements; /* the alignment/aliasing grid */
	size_t n_placements;
	uint64_t extent_bytes; /* 0: calibrated batches; else one sample = calls on
	                          consecutive size-byte chunks covering this many bytes
	                          (a multiple of every size; hot and dram only) */
	bool then_read;        /* also time reading back what each batch wrote */
	int value;             /* memset byte */
	double budget_s;       /* time per group, once min_samples are in */
	double precision;      /* stop a group early when every case's 95% CI
	                          half-width is below this fraction of its median
	                          (0: off) */
	size_t min_samples;    /* per case, >= 1 (>= 6 for a 95% CI of the median) */
	size_t max_samples;    /* per case */
	size_t warmup_samples; /* per case, taken and discarded before the samples */
	uint64_t l1_bytes, l2_bytes, llc_bytes; /* size the cache-state working sets */
	uint64_t seed;                          /* shuffles and slot order */
	struct pb_counters *counters;           /* open hardware counters, or NULL: each
	                                           kept sample's batch is counted too */
	volatile sig_atomic_t *stop; /* when set (e.g. by SIGINT), stop after the current sample */
	/* Called after each group; may be NULL. */
	void (*progress)(void *ctx, size_t groups_done, size_t groups_total);
	void *progress_ctx;
	/* Threads (the top of this file). With all of these zero, one thread,
	 * as ever. The counts run: thread_counts[0..n_thread_counts) when
	 * given, else {threads} (0 means 1); 1 is always added, each count
	 * runs once, in ascending order. Not with then_read; counters count
	 * the 1-thread cases only. */
	unsigned threads;
	const unsigned *thread_counts;
	size_t n_thread_counts;
	/* Worker t's CPU: cpus[t] ([the largest count]), or with cpus NULL the
	 * t-th CPU the process may use (sched_getaffinity), wrapping past the
	 * last (oversubscribed); pin, when set, pins instead (the placement
	 * module: returns 0, or -1 with pb_error()). The 1-thread case runs on
	 * the calling thread, wherever the caller pinned it. */
	const int *cpus;
	int (*pin)(void *pin_ctx, unsigned thread);
	void *pin_ctx;
	const char *thread_placement; /* the key's placement for N > 1: "compact"
	                                 (NULL) or "scatter"; pin does it */
	/* Memory node of every thread's buffers. LOCAL needs nothing: each
	 * thread first-touches its own. The others need bind_memory, called
	 * by the thread on each region it maps, before it touches it (the
	 * placement module's hook; returns 0, or -1 with pb_error()); not in
	 * the fault states nor with a distance from PB_MEM_FAR_DISTANCE_BYTES
	 * on (their mappings are first-touched only). */
	enum pb_mem_node_kind mem_node;
	unsigned mem_node_index;
	int (*bind_memory)(void *bind_ctx, unsigned thread, void *addr, size_t bytes);
	void *bind_ctx;
	/* Page sizes (docs/methodology.md "Page sizes"): every (state, size,
	 * kernel) case runs once per page_sizes[i] (PB_PAGE_4K, _2M, _1G of
	 * pages.h) with pages from page_sources[i] (pb_mem_pages_avail's
	 * answer; not PB_PAGES_NONE), in this order. n_page_sizes 0: 4K only,
	 * as ever. fault-thp runs once, with 2M pages, whatever the list. */
	const size_t *page_sizes;
	const enum pb_page_source *page_sources;
	size_t n_page_sizes;
};

/* The sampling every mem run starts from (pb_mem_params_make): at least
 * 11 samples per case (a 95% CI of the median needs 6), at most 201, after
 * one warm-up sample; mem's --min-samples, --max-samples and --warmup
 * default to these. */
#define PB_MEM_MIN_SAMPLES_DEFAULT    11
#define PB_MEM_MAX_SAMPLES_DEFAULT    201
#define PB_MEM_WARMUP_SAMPLES_DEFAULT 1

/* The parameters of a mem run with every default set once: op; budget_s
 * (seconds per group); PB_MEM_MIN_SAMPLES_DEFAULT, PB_MEM_MAX_SAMPLES_
 * DEFAULT and PB_MEM_WARMUP_SAMPLES_DEFAULT samples per case; l1_bytes,
 * l2_bytes, llc_bytes from caches (its L1D, L2 and LLC levels:
 * pb_cache_detect's figures); seed; stop (may be NULL); one placement, the
 * destination page-aligned and the source 2048 bytes past a page boundary
 * (dst - src = 2048 mod 4096: no 4K aliasing; static storage); memset value
 * 0; no precision stop, extent, read-back, counters, progress, threads,
 * memory binding or page-size list (4K pages). The caller then sets the
 * kernels, sizes and states, and whatever else it changes. */
struct pb_cache_info;
struct pb_mem_params pb_mem_params_make(enum pb_op op, const struct pb_cache_info *caches,
                                        double budget_s, uint64_t seed,
                                        volatile sig_atomic_t *stop);

/* The page sizes of a --pages list this machine offers: sizes[0..n) (pages.h
 * PB_PAGE_*) probed under sysfs_mm (NULL: "/sys/kernel/mm"; tests pass a
 * directory of their own); the available ones, in order, into out[] and
 * sources[] (arrays of PB_PAGE_SIZES_MAX), their count into *n_out; one
 * pb_pages_skip_line per size that is not, each ending in '\n', appended
 * to notes[notes_len] (terminated). Returns 0, or -1 with pb_error() for a
 * size that is not 4K, 2M or 1G. */
int pb_mem_pages_avail(const char *sysfs_mm, const size_t *sizes, size_t n, size_t *out,
                       enum pb_page_source *sources, size_t *n_out, char *notes, size_t notes_len);

/* Runs the suite. Returns 0 (also when interrupted: result->interrupted),
 * or -1 with pb_error() on bad parameters or when buffers cannot be mapped.
 * pb_timer_init() must have succeeded. */
int pb_mem_run(const struct pb_mem_params *p, struct pb_mem_result *result);

/* Replicates (include/primbench/replicates.h), as every mem caller runs
 * them: the whole plan of p again for each, in a row, with fresh buffers
 * and calibration. Replicate rep (0-based) of n (>= 1) runs with
 * pb_mem_replicate_params: the seed p->seed + rep x PB_SEED_STEP
 * (other slot orders and shuffles), the budget p->budget_s / n, and the
 * most samples p->max_samples / n, but never below p->min_samples (their
 * sum stays within max_samples). Every other field is p's. */
struct pb_mem_params pb_mem_replicate_params(const struct pb_mem_params *p, size_t rep, size_t n);

/* How pb_mem_run_replicates runs and reports. Zero-initialise, then set
 * the fields wanted. */
struct pb_mem_replicates {
	size_t n;                     /* replicates; 0 runs one */
	struct pb_mem_replay *replay; /* NULL: each replicate is a pb_mem_run; else a
	                                 pb_mem_replay_run of it (its batch keeps its
	                                 own seed: the same calls every replicate) */
	const char *label;            /* the progress label (NULL: "") */
	/* Called before each replicate with its label, "LABEL" when n is 1,
	 * else "LABEL, replicate I of N" (I from 1), and its parameters; may
	 * be NULL. */
	void (*start)(void *ctx, const char *label, const struct pb_mem_params *p);
	/* Called after each replicate's run, also one that failed; may be
	 * NULL. */
	void (*end)(void *ctx);
	void *ctx;
};

/* Runs p in rs->n replicates (pb_mem_replicate_params) into *r, each
 * joined by pb_mem_result_add_replicate and summarised at the end by
 * pb_mem_result_end_replicates; stops after the replicate in which p->stop
 * was set (r->interrupted). Returns 0 with *r filled (free it with
 * pb_mem_result_free), or -1 with pb_error() and *r empty: bad parameters,
 * buffers that cannot be mapped, out of memory. */
int pb_mem_run_replicates(const struct pb_mem_params *p, const struct pb_mem_replicates *rs,
                          struct pb_mem_result *r);

/* Replays rp's distribution (include/primbench/distribution.h) with the
 * kernels of p, interleaved as pb_mem_run does, in p's cache states (hot,
 * l2, llc, dram; not the fault states) with p's sampling, budget and stop
 * fields; p's sizes, placements, extent, then_read and counters are not
 * used. The batch is drawn once, before anything is timed: batch_calls
 * sizes and (dst, src) offsets, the same for every kernel and state. One
 * sample is the batch replayed `passes` times in a row (passes calibrated
 * per kernel so a sample lasts pb_batch_target_ticks(); 1 in dram); the
 * case's batch_calls are batch_calls x passes. Buffers:
 * - hot: one destination (and source) window of max size + 63 bytes, used
 *   by every call: L1-resident (LLVM libc's benchmarks do the same);
 * - l2, llc: slots rotating through half the level, as pb_mem_run;
 * - dram: every call a different slot of a set far larger than the LLC,
 *   refilled with non-temporal stores (dst) and flushed (src) after each
 *   sample.
 * Fills rp->batch_bytes and rp->batch_le_128. Returns 0 or -1 with
 * pb_error(). */
int pb_mem_replay_run(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                      struct pb_mem_result *result);

/* Times policies (include/primbench/policy.h) on rp's batch in the hot
 * state: each call goes to the kernel its policy picks for its size (picked
 * before timing, so a policy costs what its kernels cost, called the same
 * way for every candidate: one kernel's policy is a candidate like any
 * other). Uses p's op, value, sampling and budget fields (its kernels,
 * states and sizes are not used); candidates interleaved in shuffled
 * rounds. out[i] gets the summary of policy i's ticks per call and, when
 * vs_first is not NULL, vs_first[i] policy i's ticks per call over policy
 * 0's as an interval at 95% (pb_contender_ratio, replicates.h: the
 * interleaved samples' Hodges-Lehmann ratio; ci_valid false without
 * enough), for pb_verdict. Returns 0 (also when stopped: out then holds
 * what was taken; n may be 0), or -1 with pb_error(). */
struct pb_policy;
struct pb_shift;
int pb_mem_replay_policies(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                           const struct pb_policy *policies, size_t n_policies,
                           struct pb_summary *out, struct pb_shift *vs_first);

/* The byte a destination holds before each sample: for memset the value
 * XOR 0xA5 (never the value itself), for memcpy and memmove 0xA5. */
int pb_mem_prefill_value(enum pb_op op, int value);
#endif
