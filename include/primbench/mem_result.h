/* primbench/mem_result.h - the mem suite's cases and results as data:
 * the key of a case (op, kernel, size, placement, cache state, replay,
 * threads, memory node), its samples and summaries, and the result of a
 * run. Written by the mem suite (include/primbench/mem.h), serialized by
 * pb_results_add_mem (include/primbench/results.h) and printed by the
 * report tables (include/primbench/report.h). Part of the results module.
 */
#ifndef PRIMBENCH_MEM_RESULT_H
#define PRIMBENCH_MEM_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	/* key (docs/results-schema.md, "A `mem` case": its `key`) */
	enum pb_op op;
	const struct pb_kernel *kernel;
	uint64_t size_bytes;
	struct pb_mem_placement placement;
	uint64_t extent_bytes; /* bytes one sample covers (0: calibrated batches) */
	enum pb_cache_state state;
	unsigned page_bytes; /* the buffers' pages (--pages): 4096, 2 MiB or 1 GiB;
	                        2 MiB always for fault-thp */
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
	 * case's read-back was within noise of it (not slower by the one rule:
	 * pb_verdict on their ratio with PB_EQUIVALENCE, twosample.h; without
	 * an interval, its median within 5%): then the read-back measured the
	 * loop, not where the written bytes sit. */
	struct pb_summary read_loop_ticks_per_call;
	bool read_loop_bound;
	unsigned migrations;        /* samples during which the thread changed CPU (dropped) */
	size_t outliers;            /* samples with modified z-score > 3.5 (kept) */
	uint64_t working_set_bytes; /* bytes the state rotated through (dst, plus src) */
	uint64_t thp_bytes;         /* fault-thp, and fault with 2M THP pages:
	                               AnonHugePages seen in the mapping */
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
	/* Replicates (include/primbench/replicates.h): the samples are
	 * n_replicates runs of the case one after another, replicate r's
	 * replicate_samples[r] of them; n_replicates 0 or 1 (NULL array): one
	 * run. With two or more, ticks_per_call's median and CI are the
	 * replicates' (pb_summarize_replicates). */
	size_t n_replicates;
	size_t *replicate_samples;
};

struct pb_mem_result {
	struct pb_mem_case *cases;
	size_t n_cases;
	bool interrupted;
	char notes[2048]; /* skipped states/sizes, one per line */
	/* then_read: the read-back loop, e.g. "64-byte loads (avx512f)" (the
	 * widest loads usable here, chosen at run time) */
	const char *read_loop;
	/* "clear_page" or "copy_page" when the run is `mem clear_page` or
	 * `mem copy_page` (memset 0 / memcpy of one page-aligned 4 KiB page):
	 * the tables are titled by it, not by the op; NULL otherwise. A static
	 * string, not freed. */
	const char *page_op;
};

/* c's per-call values, batch ticks / calls of each sample (a batch of 0
 * calls: 0), in a malloc'd array of c->n_samples; NULL when c has no
 * samples or out of memory. */
double *pb_mem_case_per_call(const struct pb_mem_case *c);

/* Efficiency of a case: its aggregate over N x the aggregate of the
 * 1-thread case of the same run with the same key otherwise (same kernel,
 * size, placement, state, ...): the 1-thread median ticks per call over N x
 * this case's. 1 for a 1-thread case; NaN when either has no samples or
 * there is no such case. */
double pb_mem_efficiency(const struct pb_mem_result *r, const struct pb_mem_case *c);

/* Replicates: adds the run `more` (the same plan as the runs already in
 * acc, another seed) to acc, case by case: each case of more joins acc's
 * case of the same key (its samples appended as one more replicate), or
 * becomes a case of its own; more's notes not already in acc are kept.
 * more is emptied (its arrays taken or freed). acc may be empty (zeroed):
 * more then becomes its first replicate. Returns 0, or -1 with pb_error()
 * (out of memory; acc then keeps what it had). */
int pb_mem_result_add_replicate(struct pb_mem_result *acc, struct pb_mem_result *more);

/* After the last replicate: every case's summaries from all its samples,
 * ticks_per_call by pb_summarize_replicates at 95%. 0 or -1 with
 * pb_error(). */
int pb_mem_result_end_replicates(struct pb_mem_result *r);

/* Frees the samples of every case and the cases; r is then empty. */
void pb_mem_result_free(struct pb_mem_result *result);

/* The end of a run that fills a result (the mem and replay suites): rc 0
 * returns 0; otherwise frees the result as pb_mem_result_free does (a run
 * that failed leaves nothing half-made) and returns -1. */
int pb_mem_result_end(struct pb_mem_result *result, int rc);

#endif
