/* cache_states.c - where the mem and replay suites' calls write and read, per
 * cache state (suites/cache_states.h). */
#define _GNU_SOURCE
#include "suites/cache_states.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/memory.h"

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t *rng)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t r = pb_rng_next(rng);
		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)pb_rng_next(rng);
}

uint64_t pb_arena_abs_distance(const struct pb_mem_placement *pl)
{
	return pl->distance_bytes < 0 ? (uint64_t)-pl->distance_bytes
	                              : (uint64_t)pl->distance_bytes;
}

/* Whether (st, pl) takes the far layout: two mappings at the distance. */
bool pb_arena_far_group(const struct pb_mem_params *p, enum pb_cache_state st,
                        const struct pb_mem_placement *pl)
{
	return st == PB_STATE_HOT && p->op != PB_OP_MEMSET && pl->has_distance &&
	       !p->extent_bytes && pb_arena_abs_distance(pl) >= PB_MEM_FAR_DISTANCE_BYTES;
}

static void far_unmap(struct pb_arena *a)
{
	pb_unmap(a->far_dst, a->far_dst_bytes);
	pb_unmap(a->far_src_map, a->far_src_bytes);
	a->far_dst = a->far_src_map = NULL;
	a->far_dst_bytes = a->far_src_bytes = 0;
	a->far = false;
}

bool pb_cache_state_is_fault(enum pb_cache_state st)
{
	return st == PB_STATE_FAULT || st == PB_STATE_FAULT_THP;
}

void pb_arena_free(struct pb_arena *a)
{
	if (a->dst)
		pb_unmap(a->dst, a->region_bytes);
	if (a->src)
		pb_unmap(a->src, a->region_bytes);
	if (a->fault_src)
		pb_unmap(a->fault_src, a->fault_src_bytes);
	if (a->batch_map)
		munmap(a->batch_map, a->batch_map_bytes);
	far_unmap(a);
	free(a->perm);
	memset(a, 0, sizeof *a);
}

/* Fails when an l2 or llc working set of `bytes` is not larger than twice
 * the level above (it would not leave that level). */
static int level_check(const struct pb_mem_params *p, enum pb_cache_state st, uint64_t bytes)
{
	if (st == PB_STATE_L2 && bytes <= 2 * p->l1_bytes)
		return pb_fail("its %llu KiB working set is not larger than twice the L1d",
		               (unsigned long long)(bytes >> 10));
	if (st == PB_STATE_LLC && bytes <= 2 * p->l2_bytes)
		return pb_fail("its %llu KiB working set is not larger than twice the L2",
		               (unsigned long long)(bytes >> 10));
	return 0;
}

/* Fails when `need` bytes of buffers exceed half the free memory. */
static int memory_check(uint64_t need)
{
	uint64_t avail = (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (need > avail / 2)
		return pb_fail(
		    "needs %llu MiB of buffers, more than half the %llu MiB of free memory",
		    (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
	return 0;
}

/* l2 and llc: the whole working set (both regions for a copy) is half the
 * level, so it stays there but not in the level above. */
static uint64_t level_bytes(const struct pb_mem_params *p, enum pb_cache_state st, unsigned sides)
{
	return (st == PB_STATE_L2 ? p->l2_bytes : p->llc_bytes) / 2 / sides;
}

/* dram: 4 x the LLC, at least DRAM_MIN_WORKING_SET and at_least. */
static uint64_t dram_bytes(const struct pb_mem_params *p, uint64_t at_least)
{
	uint64_t ws = 4 * p->llc_bytes;
	if (ws < DRAM_MIN_WORKING_SET)
		ws = DRAM_MIN_WORKING_SET;
	return ws < at_least ? at_least : ws;
}

/* Untimed, dram: the k destinations back to prefill with non-temporal
 * stores, and they and the sources flushed; call i has sizes[i] bytes, or
 * n when sizes is NULL. */
static void restore_dram(void *const *d, const void *const *s, size_t k, const uint32_t *sizes,
                         size_t n, int prefill, bool copy)
{
	for (size_t i = 0; i < k; i++) {
		size_t bytes = sizes ? sizes[i] : n;
		pb_fill_uncached(d[i], prefill, bytes);
		if (copy)
			pb_flush_range(s[i], bytes);
	}
}

/* Bytes a slot needs for size n at placement pl, and where dst and src sit. */
uint64_t pb_arena_slot_layout(uint64_t n, const struct pb_mem_placement *pl, bool copy,
                              uint64_t *dst_in, uint64_t *src_in)
{
	uint64_t need = pl->dst_offset_bytes + n;
	*dst_in = pl->dst_offset_bytes;
	*src_in = pl->src_offset_bytes;
	if (copy && pl->has_distance) {
		uint64_t d = pl->distance_bytes < 0 ? (uint64_t)-pl->distance_bytes
		                                    : (uint64_t)pl->distance_bytes;
		if (pl->distance_bytes < 0)
			*dst_in += d;
		*src_in = *dst_in + (uint64_t)pl->distance_bytes;
		need = pl->dst_offset_bytes + d + n;
	} else if (copy && pl->src_offset_bytes + n > need) {
		need = pl->src_offset_bytes + n;
	}
	return need ? need : 1;
}

/* Region bytes the rotating state st needs for slots up to max_slot. */
static uint64_t state_region_bytes(const struct pb_mem_params *p, enum pb_cache_state st,
                                   uint64_t max_slot)
{
	unsigned sides = p->op != PB_OP_MEMSET ? 2 : 1;
	if (p->extent_bytes)
		return max_slot;
	switch (st) {
	case PB_STATE_HOT:
		return 2 * max_slot;
	case PB_STATE_REPEAT:
		return max_slot;
	case PB_STATE_L2:
	case PB_STATE_LLC:
		return level_bytes(p, st, sides);
	case PB_STATE_DRAM:
		return round_up(dram_bytes(p, 8 * max_slot), (uint64_t)PB_PAGE_2M);
	default:
		return 0;
	}
}

/* dram, threads > 1: the one-thread set per thread, cut to fit N of them
 * in half the free memory, never below the set / N nor 8 slots. */
static uint64_t dram_thread_bytes(const struct pb_mem_params *p, uint64_t max_slot,
                                  unsigned threads)
{
	unsigned sides = p->op != PB_OP_MEMSET ? 2 : 1;
	uint64_t per = round_up(dram_bytes(p, 8 * max_slot), (uint64_t)PB_PAGE_2M);
	uint64_t avail = (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t cap = avail / 2 / threads / sides / (uint64_t)PB_PAGE_2M * (uint64_t)PB_PAGE_2M;
	uint64_t floor = round_up((dram_bytes(p, 0) + threads - 1) / threads, (uint64_t)PB_PAGE_2M);
	if (floor < round_up(8 * max_slot, (uint64_t)PB_PAGE_2M))
		floor = round_up(8 * max_slot, (uint64_t)PB_PAGE_2M);
	if (per > cap)
		per = cap > floor ? cap : floor;
	return per;
}

int pb_arena_region_bytes(const struct pb_mem_params *p, enum pb_cache_state st, uint64_t max_slot,
                          unsigned threads, uint64_t *out)
{
	bool copy = p->op != PB_OP_MEMSET;
	*out = 0;
	if (threads < 1)
		threads = 1;
	if (pb_cache_state_is_fault(st))
		return 0;
	uint64_t bytes = state_region_bytes(p, st, max_slot);
	if (threads > 1 && !p->extent_bytes && st == PB_STATE_LLC)
		bytes /= threads; /* its share of the shared level */
	if (threads > 1 && !p->extent_bytes && st == PB_STATE_DRAM)
		bytes = dram_thread_bytes(p, max_slot, threads);
	bytes = round_up(bytes, PB_PAGE_BYTES);
	if (!p->extent_bytes && level_check(p, st, bytes) != 0)
		return -1;
	if (memory_check(bytes * (copy ? 2u : 1u) * threads) != 0)
		return -1;
	*out = bytes;
	return 0;
}

/* Binds a region just mapped, before its first touch (non-local nodes). */
static int bind_region(const struct pb_mem_params *p, unsigned thread, void *addr, size_t bytes)
{
	if (p->mem_node == PB_MEM_NODE_LOCAL || !p->bind_memory)
		return 0;
	return p->bind_memory(p->bind_ctx, thread, addr, bytes);
}

/* Maps `bytes` in the arena's page size: 4K as ever (pb_map), larger
 * through pages.h; fault_later: no page is touched (4K and THP). */
static uint8_t *arena_map(const struct pb_arena *a, size_t bytes, bool fault_later)
{
	if (a->page_bytes <= PB_PAGE_BYTES)
		return pb_map(bytes, false, fault_later);
	struct pb_pages_region r;
	if (pb_pages_map(bytes, a->page_bytes, a->page_source, false, &r) != 0)
		return NULL;
	return r.p;
}

int pb_arena_init_sized(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                        int prefill, uint64_t max_slot, uint64_t bytes, uint64_t seed,
                        unsigned thread)
{
	return pb_arena_init_paged(a, p, st, prefill, max_slot, bytes, seed, thread, PB_PAGE_4K,
	                           PB_PAGES_BASE);
}

int pb_arena_init_paged(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                        int prefill, uint64_t max_slot, uint64_t bytes, uint64_t seed,
                        unsigned thread, size_t page_bytes, enum pb_page_source source)
{
	memset(a, 0, sizeof *a);
	a->state = st;
	a->page_bytes = page_bytes;
	a->page_source = source;
	if (st == PB_STATE_FAULT_THP) {
		/* fault with 2M pages (docs/methodology.md "Page sizes") */
		a->page_bytes = PB_PAGE_2M;
		if (source == PB_PAGES_NONE || source == PB_PAGES_BASE)
			a->page_source = PB_PAGES_THP;
	}
	a->copy = p->op != PB_OP_MEMSET;
	a->extent = p->extent_bytes != 0;
	a->prefill = prefill;
	a->rng = seed | 1;
	if (pb_cache_state_is_fault(st)) {
		if (a->copy) {
			a->fault_src_bytes = round_up(max_slot, PB_PAGE_BYTES);
			a->fault_src = pb_map(a->fault_src_bytes, false, false);
			if (!a->fault_src)
				return -1;
			fill_pattern(a->fault_src, a->fault_src_bytes, &a->rng);
		}
		return 0;
	}
	bytes = round_up(bytes, a->page_bytes);
	a->region_bytes = bytes;
	a->dst = arena_map(a, bytes, false);
	if (!a->dst)
		return -1;
	if (bind_region(p, thread, a->dst, bytes) != 0) {
		pb_arena_free(a);
		return -1;
	}
	if (a->copy) {
		a->src = arena_map(a, bytes, false);
		if (!a->src || bind_region(p, thread, a->src, bytes) != 0) {
			pb_arena_free(a);
			return -1;
		}
		fill_pattern(a->src, bytes, &a->rng);
		/* With a distance the source lives in the destination region:
		 * the bytes between destinations stay random, each destination
		 * range is refilled with prefill. */
		fill_pattern(a->dst, bytes, &a->rng);
	} else {
		memset(a->dst, prefill, bytes);
	}
	if (st == PB_STATE_DRAM) {
		pb_flush_range(a->dst, bytes);
		if (a->copy)
			pb_flush_range(a->src, bytes);
	}
	return 0;
}

/* Maps the state's regions, sized for slots up to max_slot bytes. */
int pb_arena_init(struct pb_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                  int prefill, uint64_t max_slot, uint64_t seed)
{
	uint64_t bytes;
	memset(a, 0, sizeof *a);
	if (pb_arena_region_bytes(p, st, max_slot, 1, &bytes) != 0)
		return -1;
	return pb_arena_init_sized(a, p, st, prefill, max_slot, bytes, seed, 0);
}

/* Lays the region out in slots for size n at placement pl. Returns 1 when
 * the state cannot hold two slots (the group is skipped), 0, or -1. */
int pb_arena_set_group(struct pb_arena *a, uint64_t n, const struct pb_mem_placement *pl, bool far)
{
	a->n = n;
	a->pl = *pl;
	far_unmap(a);
	if (far) {
		/* Two slots of destinations, [A, A + 2 x slot); their sources
		 * at dst + D, in a second mapping of just the pages they use. */
		a->dst_in_slot = pl->dst_offset_bytes;
		a->slot_bytes = round_up(pl->dst_offset_bytes + (n ? n : 1), PB_PAGE_BYTES);
		int64_t d = pl->distance_bytes;
		int64_t first = (int64_t)a->dst_in_slot + d; /* slot 0's source, from A */
		int64_t lo = first >= 0 ? first / (int64_t)PB_PAGE_BYTES * (int64_t)PB_PAGE_BYTES
		                        : -(int64_t)round_up((uint64_t)-first, PB_PAGE_BYTES);
		int64_t hi = first + (int64_t)a->slot_bytes + (int64_t)n;
		a->far_dst_bytes = 2 * a->slot_bytes;
		a->far_src_bytes = round_up((uint64_t)(hi - lo), PB_PAGE_BYTES);
		void *dp, *sp;
		if (pb_map_pair(a->far_dst_bytes, lo, a->far_src_bytes, &dp, &sp) != 0) {
			a->far_dst_bytes = a->far_src_bytes = 0;
			return 1;
		}
		a->far_dst = dp;
		a->far_src_map = sp;
		a->far = true;
		fill_pattern(a->far_dst, a->far_dst_bytes, &a->rng);
		fill_pattern(a->far_src_map, a->far_src_bytes, &a->rng);
		a->nslots = 2;
		a->ws_bytes = a->far_dst_bytes + a->far_src_bytes;
		free(a->perm);
		a->perm = malloc(2 * sizeof *a->perm);
		if (!a->perm)
			return pb_fail("out of memory for 2 slots");
		a->perm[0] = 0;
		a->perm[1] = 1;
		a->next = 0;
		return 0;
	}
	uint64_t need = pb_arena_slot_layout(n, pl, a->copy, &a->dst_in_slot, &a->src_in_slot);
	uint64_t page = pb_cache_state_is_fault(a->state) ? a->page_bytes : PB_PAGE_BYTES;
	a->slot_bytes = round_up(need, page);
	free(a->perm);
	a->perm = NULL;
	if (pb_cache_state_is_fault(a->state)) {
		a->nslots = FAULT_MAX_BATCH_BYTES / a->slot_bytes;
		if (a->nslots == 0)
			a->nslots = 1;
		/* hugetlbfs: a batch's fresh pages must be in the pool */
		struct pb_pages_avail av;
		if (a->page_source == PB_PAGES_HUGETLB && pb_pages_probe(a->page_bytes, &av) == 0) {
			uint64_t fit = av.free_pages * a->page_bytes / a->slot_bytes;
			if (fit == 0) {
				pb_fail("hugetlbfs has %llu free %s pages, fewer than one call "
				        "needs",
				        (unsigned long long)av.free_pages,
				        pb_pages_name(a->page_bytes));
				return 1;
			}
			if (fit < a->nslots)
				a->nslots = fit;
		}
		a->ws_bytes = a->slot_bytes;
		return 0;
	}
	if (a->extent) {
		a->nslots = 1;
		a->ws_bytes = a->region_bytes * (a->copy ? 2 : 1);
		return 0;
	}
	bool fixed = a->state == PB_STATE_HOT || a->state == PB_STATE_REPEAT;
	a->nslots = a->state == PB_STATE_HOT      ? 2
	            : a->state == PB_STATE_REPEAT ? 1
	                                          : a->region_bytes / a->slot_bytes;
	if (a->nslots < (a->state == PB_STATE_REPEAT ? 1u : 2u) ||
	    a->nslots * a->slot_bytes > a->region_bytes)
		return 1;
	if (a->nslots > UINT32_MAX)
		a->nslots = UINT32_MAX;
	a->ws_bytes = (fixed ? a->nslots * a->slot_bytes : a->region_bytes) *
	              (a->copy && !pl->has_distance ? 2 : 1);
	a->perm = malloc(a->nslots * sizeof *a->perm);
	if (!a->perm)
		return pb_fail("out of memory for %zu slots", a->nslots);
	for (size_t i = 0; i < a->nslots; i++)
		a->perm[i] = (uint32_t)i;
	if (!fixed)
		pb_shuffle_u32(a->perm, a->nslots, &a->rng);
	a->next = 0;
	return 0;
}

/* Fills the pointer arrays for a batch of k calls (untimed). */
int pb_arena_pick(struct pb_arena *a, size_t k, void **d, const void **s)
{
	if (pb_cache_state_is_fault(a->state)) {
		a->batch_map_bytes = k * a->slot_bytes;
		a->batch_map = a->page_source == PB_PAGES_THP
		                   ? pb_map(a->batch_map_bytes, true, true) /* as fault-thp ever */
		                   : arena_map(a, a->batch_map_bytes, true);
		if (!a->batch_map) {
			a->batch_map_bytes = 0;
			return -1;
		}
		for (size_t i = 0; i < k; i++) {
			d[i] = a->batch_map + i * a->slot_bytes + a->dst_in_slot;
			s[i] = a->copy ? a->fault_src + a->pl.src_offset_bytes : NULL;
		}
		return 0;
	}
	for (size_t i = 0; i < k; i++) {
		if (a->next == a->nslots) {
			if (a->state != PB_STATE_HOT)
				pb_shuffle_u32(a->perm, a->nslots, &a->rng);
			a->next = 0;
		}
		size_t slot = (size_t)a->perm[a->next++] * a->slot_bytes;
		if (a->far) {
			/* the source lies in far_src_map: same address arithmetic,
			 * done on integers (the two are separate objects) */
			d[i] = a->far_dst + slot + a->dst_in_slot;
			s[i] = (const void *)(uintptr_t)((uintptr_t)d[i] +
			                                 (uintptr_t)a->pl.distance_bytes);
			continue;
		}
		d[i] = a->dst + slot + a->dst_in_slot;
		if (!a->copy)
			s[i] = NULL;
		else if (a->pl.has_distance)
			s[i] = a->dst + slot + a->src_in_slot;
		else
			s[i] = a->src + slot + a->src_in_slot;
	}
	return 0;
}

/* Untimed: puts back what the batch changed (temporal stores for the
 * cached states, non-temporal + flushes for dram); fault states unmap;
 * repeat leaves the previous call's bytes in place. */
void pb_arena_restore(struct pb_arena *a, size_t k, void **d, const void **s)
{
	size_t n = a->n;
	if (a->state == PB_STATE_REPEAT)
		return;
	if (pb_cache_state_is_fault(a->state)) {
		munmap(a->batch_map, a->batch_map_bytes);
		a->batch_map = NULL;
		a->batch_map_bytes = 0;
		return;
	}
	if (a->state != PB_STATE_DRAM) {
		size_t m = a->state == PB_STATE_HOT && k > 2 ? 2 : k;
		for (size_t i = 0; i < m; i++)
			memset(d[i], a->prefill, n);
		return;
	}
	restore_dram(d, s, k, NULL, n, a->prefill, a->copy);
}

void pb_arena_restore_extent(struct pb_arena *a, const uint8_t *src, uint64_t extent)
{
	if (a->state == PB_STATE_DRAM) {
		pb_fill_uncached(a->dst + a->dst_in_slot, a->prefill, extent);
		if (src)
			pb_flush_range(src, extent);
	} else if (a->state != PB_STATE_REPEAT) {
		memset(a->dst + a->dst_in_slot, a->prefill, extent);
	}
}

/* ---- replay's arena ---------------------------------------------------- */

void pb_replay_arena_free(struct pb_replay_arena *a)
{
	if (a->dst)
		pb_unmap(a->dst, a->region_bytes);
	if (a->src)
		pb_unmap(a->src, a->region_bytes);
	a->dst = NULL;
	a->src = NULL;
}

int pb_replay_arena_init(struct pb_replay_arena *a, const struct pb_mem_params *p,
                         enum pb_cache_state st, const uint32_t *offs, size_t n, size_t need,
                         int prefill, uint64_t *rng)
{
	unsigned sides = a->copy ? 2 : 1;
	a->state = st;
	a->slot_bytes = round_up(need, PB_PAGE_BYTES);
	uint64_t bytes;
	switch (st) {
	case PB_STATE_HOT:
		bytes = a->slot_bytes;
		break;
	case PB_STATE_L2:
	case PB_STATE_LLC:
		bytes = level_bytes(p, st, sides);
		if (level_check(p, st, bytes) != 0)
			return -1;
		break;
	case PB_STATE_DRAM:
		bytes = dram_bytes(p, 2 * n * a->slot_bytes);
		break;
	default:
		return pb_fail("a replay cannot run in the %s state (hot, l2, llc, dram only)",
		               pb_cache_state_name(st));
	}
	bytes = round_up(bytes, PB_PAGE_BYTES);
	a->nslots = bytes / a->slot_bytes;
	if (a->nslots == 0)
		return pb_fail("its working set does not hold one call of the distribution");
	if (memory_check(bytes * sides) != 0)
		return -1;
	a->region_bytes = bytes;
	a->dst = pb_map(bytes, false, false);
	if (!a->dst)
		return -1;
	memset(a->dst, prefill, bytes);
	if (a->copy) {
		a->src = pb_map(bytes, false, false);
		if (!a->src) {
			pb_replay_arena_free(a);
			return -1;
		}
		fill_pattern(a->src, bytes, rng); /* bytes: whole pages */
	}
	if (st == PB_STATE_DRAM) {
		pb_flush_range(a->dst, bytes);
		if (a->copy)
			pb_flush_range(a->src, bytes);
	}
	/* Slots: hot has one; l2 and llc cycle through all in a shuffled
	 * order; dram gives every call of the batch its own slot. */
	uint32_t *perm = malloc(a->nslots * sizeof *perm);
	if (!perm) {
		pb_replay_arena_free(a);
		return pb_fail("out of memory");
	}
	for (size_t i = 0; i < a->nslots; i++)
		perm[i] = (uint32_t)i;
	pb_shuffle_u32(perm, a->nslots, rng);
	for (size_t i = 0; i < n; i++) {
		size_t slot = (size_t)perm[i % a->nslots] * a->slot_bytes;
		a->d[i] = a->dst + slot + offs[2 * i];
		a->s[i] =
		    a->copy ? a->src + slot + PB_REPLAY_SRC_PAGE_OFFSET + offs[2 * i + 1] : NULL;
	}
	free(perm);
	size_t used = n < a->nslots ? n : a->nslots;
	a->ws_bytes = (st == PB_STATE_HOT ? need : used * a->slot_bytes) * sides;
	return 0;
}

void pb_replay_arena_restore(struct pb_replay_arena *a, const uint32_t *sizes, size_t n,
                             int prefill)
{
	if (a->state == PB_STATE_DRAM) {
		restore_dram(a->d, a->s, n, sizes, 0, prefill, a->copy);
		return;
	}
	if (a->state == PB_STATE_HOT) {
		memset(a->dst, prefill, a->slot_bytes);
		return;
	}
	for (size_t i = 0; i < n; i++)
		memset(a->d[i], prefill, sizes[i]);
}
