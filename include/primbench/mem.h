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
#include "primbench/placement.h"
#include "primbench/stats.h"

enum pb_cache_state {
	PB_STATE_HOT,       /* the same two buffers every call */
	PB_STATE_L2,        /* rotate through a working set of half the L2 */
	PB_STATE_LLC,       /* rotate through a working set of half the LLC */
	PB_STATE_DRAM,      /* random slots of a set far larger than the LLC, evicted */
	PB_STATE_FAULT,     /* freshly mapped, untouched 4 KiB pages every call */
	PB_STATE_FAULT_THP, /* freshly mapped, untouched transparent huge pages */
	PB_STATE_REPEAT,    /* one buffer (and source), back to back, never refilled:
	                       the pattern of perf bench mem and lmbench bw_mem */
	PB_STATE_COUNT
};

/* "hot", "l2", "llc", "dram", "fault", "fault-thp", "repeat". */
const char *pb_cache_state_name(enum pb_cache_state s);
/* Returns 0, or -1 with pb_error(): "unknown cache state 'lukewarm' (known: hot, l2, ...)". */
int pb_cache_state_parse(const char *name, enum pb_cache_state *out);

/* Where the source sits, for memcpy and memmove: at a page offset of its
 * own buffer, or at a signed distance from the destination, in the same
 * region (src = dst + distance). memcpy needs |distance| >= size (no
 * overlap); memmove takes any distance: |distance| < size overlaps, and a
 * negative one puts dst above src (memmove(p + d, p, n) is distance -d, a
 * backward copy), except in the fault states (a separate source there).
 *
 * Distance and states: up to PB_MEM_DENSE_DISTANCE_MAX_BYTES either way,
 * every state (its buffers hold the whole distance). Beyond it, up to the
 * user address space (pb_user_address_bits(): 47 bits, 56 with 5-level
 * paging), the hot state only and without an extent: from
 * PB_MEM_FAR_DISTANCE_BYTES on, the hot state maps just the pages its two
 * slots touch, destinations and sources in two mappings that far apart
 * (pb_map_pair), so 4 GiB x N + d costs a few pages, not N x 4 GiB. Other
 * states are refused there (pb_mem_run fails with one line saying so). */
#define PB_MEM_DENSE_DISTANCE_MAX_BYTES ((int64_t)1 << 32)
#define PB_MEM_FAR_DISTANCE_BYTES       ((uint64_t)64 << 20)
struct pb_mem_placement {
	uint64_t dst_offset_bytes; /* from a page boundary, < 4096 */
	uint64_t src_offset_bytes; /* from a page boundary, < 4096 (when !has_distance) */
	bool has_distance;
	int64_t distance_bytes; /* src - dst in bytes */
};

/* Where each thread's buffers live (primbench/placement.h):
 * PB_MEM_NODE_LOCAL, first touch by the pinned thread (its CPU's node);
 * PB_MEM_NODE_FIXED, node mem_node_index; PB_MEM_NODE_INTERLEAVE, over
 * the nodes (the last two bound by bind_memory). "local", "interleave" or
 * "node N" into buf; returns buf. */
const char *pb_mem_node_text(enum pb_mem_node_kind node, unsigned index, char *buf, size_t len);

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
};

/* Replay of a call-size distribution (pb_mem_replay_run): the batch every
 * kernel of a run replays. */
enum pb_replay_offsets {
	PB_OFFSETS_RANDOM,  /* dst and src offsets uniform in 0..PB_REPLAY_WINDOW-1 */
	PB_OFFSETS_ALIGNED, /* both 0: dst page-aligned, src 2048 past a page */
};
/* Offsets of random mode stay below this: every position in a 64-byte
 * cache line (what vector heads and tails see), and the touched region
 * stays at most 4096 + 63 bytes per buffer, so hot stays in L1. */
#define PB_REPLAY_WINDOW 64u

struct pb_mem_replay {
	const struct pb_distribution *dist;
	uint64_t seed; /* of the sizes and offsets (GSL MT19937) */
	enum pb_replay_offsets offsets;
	size_t batch_calls;    /* (size, offset) pairs drawn: calls per pass */
	uint64_t batch_bytes;  /* their sum (set by pb_mem_replay_run) */
	uint64_t batch_le_128; /* calls of the batch of at most 128 bytes (set) */
};

/* "random", "aligned"; parse returns 0 or -1 with pb_error(). */
const char *pb_replay_offsets_name(enum pb_replay_offsets o);
int pb_replay_offsets_parse(const char *s, enum pb_replay_offsets *out);

struct pb_mem_case {
	/* key (DESIGN.md "Measuring": the mem case key) */
	enum pb_op op;
	const struct pb_kernel *kernel;
	uint64_t size_bytes;
	struct pb_mem_placement placement;
	uint64_t extent_bytes; /* bytes one sample covers (0: calibrated batches) */
	enum pb_cache_state state;
	unsigned page_bytes; /* 4096, or 2 MiB for fault-thp */
	int fill_value;      /* memset byte; -1 for memcpy and memmove */
	int prefill_value;   /* what the destination held before each sample; in
	                        repeat the previous call's bytes: fill_value for
	                        memset, -1 (the source's bytes) for memcpy/memmove */
	bool then_read;
	const struct pb_mem_replay *replay; /* a replay's case (size_bytes 0), else NULL */
	unsigned threads;                   /* 1 (0 reads as 1), or N threads at once */
	const char *thread_placement;       /* N > 1: "compact" or "scatter"; else NULL */
	enum pb_mem_node_kind mem_node;
	unsigned mem_node_index;
	/* samples: batch ticks with the timer overhead subtracted, and calls per batch */
	size_t n_samples;
	double *batch_ticks;
	uint64_t *batch_calls;
	double *read_ticks;                    /* then_read: ticks to read back the batch's bytes */
	struct pb_summary ticks_per_call;      /* over samples of batch_ticks/batch_calls */
	struct pb_summary read_ticks_per_call; /* then_read only */
	/* then_read, size > 0: the read-back loop's own speed, reading a hot
	 * buffer of size_bytes over and over (ticks per read), and whether this
	 * case's read-back was within noise of it (its CI reaches that CI, or
	 * without CIs its median is within 5%): then the read-back measured
	 * the loop, not where the written bytes sit. */
	struct pb_summary read_loop_ticks_per_call;
	bool read_loop_bound;
	unsigned migrations;        /* samples during which the thread changed CPU (dropped) */
	size_t outliers;            /* samples with modified z-score > 3.5 (kept) */
	uint64_t working_set_bytes; /* bytes the state rotated through (dst, plus src) */
	uint64_t thp_bytes;         /* fault-thp: AnonHugePages seen in the mapping */
	/* hardware counters over the kept samples (counted_calls > 0 when
	 * counted): totals, user space only (include/primbench/counters.h) */
	uint64_t counted_calls, cycles, instructions, cache_misses;
	bool counters_multiplexed;
	/* threads > 1 (else NULL): batch_ticks are the span of the N threads
	 * and batch_calls k x N; beside them, the CPU each worker ran on, each
	 * thread's own batch ticks (sample j's thread t at [j x threads + t])
	 * and each thread's per-call summary over them */
	int *thread_cpus;
	double *thread_batch_ticks;
	struct pb_summary *thread_ticks_per_call;
};

struct pb_mem_result {
	struct pb_mem_case *cases;
	size_t n_cases;
	bool interrupted;
	char notes[2048]; /* skipped states/sizes, one per line */
	/* then_read: the read-back loop, e.g. "64-byte loads (avx512f)" (the
	 * widest loads usable here, chosen at run time) */
	const char *read_loop;
};

/* Efficiency of a case: its aggregate over N x the aggregate of the
 * 1-thread case of the same run with the same key otherwise (same kernel,
 * size, placement, state, ...): the 1-thread median ticks per call over N x
 * this case's. 1 for a 1-thread case; NaN when either has no samples or
 * there is no such case. */
double pb_mem_efficiency(const struct pb_mem_result *r, const struct pb_mem_case *c);

/* Runs the suite. Returns 0 (also when interrupted: result->interrupted),
 * or -1 with pb_error() on bad parameters or when buffers cannot be mapped.
 * pb_timer_init() must have succeeded. */
int pb_mem_run(const struct pb_mem_params *p, struct pb_mem_result *result);
void pb_mem_result_free(struct pb_mem_result *result);

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
 * rounds. out[i] gets the summary of policy i's ticks per call. Returns 0
 * (also when stopped: out then holds what was taken; n may be 0), or -1
 * with pb_error(). */
struct pb_policy;
int pb_mem_replay_policies(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                           const struct pb_policy *policies, size_t n_policies,
                           struct pb_summary *out);

/* The byte a destination holds before each sample: for memset the value
 * XOR 0xA5 (never the value itself), for memcpy and memmove 0xA5. */
int pb_mem_prefill_value(enum pb_op op, int value);

/* Derived figures of a per-call tick count t at size n (see README units).
 * At size 0: ticks/page is NaN (undefined), bytes/tick and GB/s are 0. */
double pb_ticks_per_page(double ticks_per_call, uint64_t size_bytes); /* per 4096 bytes */
double pb_bytes_per_tick(double ticks_per_call, uint64_t size_bytes);
double pb_gb_per_s(double ticks_per_call, uint64_t size_bytes); /* 1e9 bytes/s */

#endif
