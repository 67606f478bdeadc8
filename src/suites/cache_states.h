/* cache_states.h - the cache states' working sets ("arenas", struct
 * pb_arena) of the mem and replay suites (internal): where a batch's
 * calls write and read, and what puts back
 * what they changed, untimed, so that the next batch finds the bytes in
 * the same cache level (docs/methodology.md "Cache states").
 *
 * Shared by both: the l2/llc/dram working-set sizes and their checks, the
 * free-memory check, the region fill and the dram restore (non-temporal
 * refill and flushes). They differ in the slots: mem gives each call the
 * next slot of a shuffled order (two fixed slots in hot, one in repeat,
 * fresh mappings in the fault states, a far mapping for large distances);
 * a replay points its batch of calls into the slots once, at their drawn
 * offsets. */
#ifndef PRIMBENCH_SUITES_CACHE_STATES_H
#define PRIMBENCH_SUITES_CACHE_STATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/mem.h"
#include "primbench/pages.h"

/* The dram working set is at least this large, and at least 4 x the LLC. */
#define DRAM_MIN_WORKING_SET (256ull << 20)
/* Fresh mappings one fault batch may create. */
#define FAULT_MAX_BATCH_BYTES (64ull << 20)
/* A replay's source window starts this far past a page boundary, so that
 * destination and source never share a page offset (no 4K aliasing of
 * loads with stores), as mem's default --src-offset. */
#define PB_REPLAY_SRC_PAGE_OFFSET 2048u

/* Where one (state, size, placement) group's calls write and read.
 *
 * Rotating states (hot, l2, llc, dram) divide a region into slots; each call
 * takes the next slot of a shuffled order. A slot holds the destination at
 * its page offset, and with a distance also the source (src = dst + D);
 * otherwise the source is at the same slot of a second region. Fault states
 * map fresh slots for every batch. */
struct pb_arena {
	enum pb_cache_state state;
	size_t page_bytes;               /* PB_PAGE_4K, _2M or _1G (pages.h) */
	enum pb_page_source page_source; /* where pages above 4K come from */
	bool copy;
	bool extent; /* one region, one pass per sample: no slots */
	int prefill;
	uint8_t *dst, *src;  /* regions (rotating states) */
	size_t region_bytes; /* each region's mapping */
	uint8_t *fault_src;  /* fault states: the (hot) source of memcpy */
	size_t fault_src_bytes;
	/* the group's layout */
	uint64_t n;
	struct pb_mem_placement pl;
	size_t slot_bytes, nslots, ws_bytes;
	uint64_t dst_in_slot, src_in_slot; /* byte offsets inside a slot */
	uint32_t *perm;
	size_t next;
	uint64_t rng;
	/* fault states: this batch's mapping */
	uint8_t *batch_map;
	size_t batch_map_bytes;
	/* hot, distance from PB_MEM_FAR_DISTANCE_BYTES on: this group's two
	 * slots of destinations, and their sources (far_src_map spans
	 * far_dst + dst_in_slot + D over both slots) */
	bool far;
	uint8_t *far_dst, *far_src_map;
	size_t far_dst_bytes, far_src_bytes;
};

/* |distance| of a placement, in bytes. */
uint64_t pb_arena_abs_distance(const struct pb_mem_placement *pl);

/* Whether (st, pl) takes the far layout: two mappings at the distance. */
bool pb_arena_far_group(const struct pb_mem_params *p, enum pb_cache_state st,
                        const struct pb_mem_placement *pl);

/* fault and fault-thp. */
bool pb_cache_state_is_fault(enum pb_cache_state st);

/* Bytes a slot needs for size n at placement pl, and where dst and src sit
 * (byte offsets in the slot). At least 1. */
uint64_t pb_arena_slot_layout(uint64_t n, const struct pb_mem_placement *pl, bool copy,
                              uint64_t *dst_in, uint64_t *src_in);

/* Maps the state's regions (p's op, cache sizes and extent), sized for
 * slots up to max_slot bytes, filled (memset: prefill; copies: random
 * bytes from seed) and, for dram, flushed. Returns 0, or -1 with pb_error()
 * (l2/llc working set not larger than twice the level above, more than
 * half the free memory, a failed mapping). */
int pb_arena_init(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                  int prefill, uint64_t max_slot, uint64_t seed);

/* pb_arena_init in two steps, for `threads` threads each with an arena of
 * its own (include/primbench/mem.h says what each state gives a thread).
 * pb_arena_region_bytes, once: each thread's region bytes, and the checks
 * (level; all threads' buffers within half the free memory); with one
 * thread the figure and checks of pb_arena_init. Returns 0, or -1 with
 * pb_error(). */
int pb_arena_region_bytes(const struct pb_mem_params *p, enum pb_cache_state st, uint64_t max_slot,
                          unsigned threads, uint64_t *out);
/* Then on each thread, pinned: maps regions of `bytes` (from above), binds
 * them with p->bind_memory (thread `thread`) when the node is not local,
 * and fills them, so their pages are first touched by that thread. */
int pb_arena_init_sized(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                        int prefill, uint64_t max_slot, uint64_t bytes, uint64_t seed,
                        unsigned thread);

/* pb_arena_init_sized with pages of page_bytes (PB_PAGE_4K, _2M or _1G)
 * from `source` (pb_pages_probe's answer): the regions of the rotating
 * states (rounded up to page_bytes), or the fault states' fresh batch
 * mappings (slots rounded up to page_bytes). 4K maps as
 * pb_arena_init_sized; fault-thp always has 2M pages (THP when source is
 * none). Same returns. */
int pb_arena_init_paged(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                        int prefill, uint64_t max_slot, uint64_t bytes, uint64_t seed,
                        unsigned thread, size_t page_bytes, enum pb_page_source source);

/* Lays the region out in slots for size n at placement pl (far: two slots
 * in the far layout). Returns 1 when the state cannot hold the slots (the
 * group is skipped; with far, and in a fault state whose hugetlbfs pool
 * has not the pages of one call, pb_error() says why; a smaller pool
 * makes fewer slots, so smaller batches), 0, or -1 with pb_error(). */
int pb_arena_set_group(struct pb_arena *a, uint64_t n, const struct pb_mem_placement *pl, bool far);

/* Untimed: the destinations and sources of a batch of k calls into d[0..k)
 * and s[0..k) (NULL sources for memset). Fault states map the batch's fresh
 * pages. Returns 0, or -1 with pb_error() when that mapping fails. */
int pb_arena_pick(struct pb_arena *a, size_t k, void **d, const void **s);

/* Untimed: puts back what the batch changed (temporal stores for the cached
 * states, non-temporal + flushes for dram); fault states unmap; repeat
 * leaves the previous call's bytes in place. */
void pb_arena_restore(struct pb_arena *a, size_t k, void **d, const void **s);

/* Untimed, after one pass over an extent of `extent` bytes from the slot's
 * destination (src: its source, or NULL): as pb_arena_restore. */
void pb_arena_restore_extent(struct pb_arena *a, const uint8_t *src, uint64_t extent);

void pb_arena_free(struct pb_arena *a);

/* A replay's buffers for one cache state (hot, l2, llc, dram) and the
 * batch's pointers into them (d and s: the caller's arrays of n). */
/* One cache state's buffers and the batch's pointers into them. */
struct pb_replay_arena {
	enum pb_cache_state state;
	bool copy;
	uint8_t *dst, *src;
	size_t region_bytes, slot_bytes, nslots;
	void **d;
	const void **s;
	uint64_t ws_bytes;
};

/* Maps the state's regions for calls of up to `need` bytes (size, offset
 * window and source offset) and points call i of n at its slot plus
 * offs[2i] (destination) and offs[2i+1] (source, past
 * PB_REPLAY_SRC_PAGE_OFFSET); the slots are shuffled with rng. Set a->copy,
 * a->d and a->s first. Returns 0, or -1 with pb_error() (a state a replay
 * cannot run in, or as pb_arena_init). */
int pb_replay_arena_init(struct pb_replay_arena *a, const struct pb_mem_params *p,
                         enum pb_cache_state st, const uint32_t *offs, size_t n, size_t need,
                         int prefill, uint64_t *rng);

/* Untimed: puts back what a sample of the n calls of sizes[] changed. */
void pb_replay_arena_restore(struct pb_replay_arena *a, const uint32_t *sizes, size_t n,
                             int prefill);

void pb_replay_arena_free(struct pb_replay_arena *a);

#endif
