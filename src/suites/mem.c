/* mem.c - the memory-kernel suite (include/primbench/mem.h). */
#define _GNU_SOURCE
#include "primbench/mem.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/memory.h"
#include "primbench/timer.h"
#include "suites/readback.h"
#include "suites/sampling.h"

/* Most calls one batch may hold (bounds the pointer arrays). */
#define MAX_BATCH_CALLS 16384u
/* A batch aims to last this long at least, and far above step and overhead. */
/* The dram working set is at least this large, and at least 4 x the LLC. */
#define DRAM_MIN_WORKING_SET (256ull << 20)
/* Fresh mappings one fault batch may create. */
#define FAULT_MAX_BATCH_BYTES (64ull << 20)
#define HUGE_PAGE_BYTES       (2ull << 20)

static const char *const state_names[PB_STATE_COUNT] = {"hot",   "l2",        "llc",   "dram",
                                                        "fault", "fault-thp", "repeat"};

const char *pb_cache_state_name(enum pb_cache_state s)
{
	return s < PB_STATE_COUNT ? state_names[s] : "?";
}

int pb_cache_state_parse(const char *name, enum pb_cache_state *out)
{
	for (int s = 0; s < PB_STATE_COUNT; s++)
		if (!strcmp(name, state_names[s])) {
			*out = (enum pb_cache_state)s;
			return 0;
		}
	return pb_fail("unknown cache state '%s' (known: hot, l2, llc, dram, fault, fault-thp, "
	               "repeat)",
	               name);
}

int pb_mem_prefill_value(enum pb_op op, int value)
{
	return op != PB_OP_MEMSET ? 0xA5 : (value ^ 0xA5) & 0xff;
}

double pb_ticks_per_page(double t, uint64_t n)
{
	return n ? t * (double)PB_PAGE_BYTES / (double)n : NAN;
}

double pb_bytes_per_tick(double t, uint64_t n)
{
	if (n == 0)
		return 0;
	return t > 0 ? (double)n / t : INFINITY;
}

double pb_gb_per_s(double t, uint64_t n)
{
	double ns = pb_ticks_to_ns(t);
	if (n == 0)
		return 0;
	return ns > 0 ? (double)n / ns : INFINITY;
}

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

/* Where one (state, size, placement) group's calls write and read.
 *
 * Rotating states (hot, l2, llc, dram) divide a region into slots; each call
 * takes the next slot of a shuffled order. A slot holds the destination at
 * its page offset, and with a distance also the source (src = dst + D);
 * otherwise the source is at the same slot of a second region. Fault states
 * map fresh slots for every batch. */
struct arena {
	enum pb_cache_state state;
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

static uint64_t abs_distance(const struct pb_mem_placement *pl)
{
	return pl->distance_bytes < 0 ? (uint64_t)-pl->distance_bytes
	                              : (uint64_t)pl->distance_bytes;
}

/* Whether (st, pl) takes the far layout: two mappings at the distance. */
static bool far_group(const struct pb_mem_params *p, enum pb_cache_state st,
                      const struct pb_mem_placement *pl)
{
	return st == PB_STATE_HOT && p->op != PB_OP_MEMSET && pl->has_distance &&
	       !p->extent_bytes && abs_distance(pl) >= PB_MEM_FAR_DISTANCE_BYTES;
}

static void far_unmap(struct arena *a)
{
	pb_unmap(a->far_dst, a->far_dst_bytes);
	pb_unmap(a->far_src_map, a->far_src_bytes);
	a->far_dst = a->far_src_map = NULL;
	a->far_dst_bytes = a->far_src_bytes = 0;
	a->far = false;
}

static bool is_fault(enum pb_cache_state st)
{
	return st == PB_STATE_FAULT || st == PB_STATE_FAULT_THP;
}

static void arena_free(struct arena *a)
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

static uint64_t avail_bytes(void)
{
	return (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Bytes a slot needs for size n at placement pl, and where dst and src sit. */
static uint64_t slot_layout(uint64_t n, const struct pb_mem_placement *pl, bool copy,
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
	/* l2 and llc: the whole working set (both regions for memcpy) is half
	 * the level, so it stays there but not in the level above. */
	unsigned sides = p->op != PB_OP_MEMSET ? 2 : 1;
	if (p->extent_bytes)
		return max_slot;
	switch (st) {
	case PB_STATE_HOT:
		return 2 * max_slot;
	case PB_STATE_REPEAT:
		return max_slot;
	case PB_STATE_L2:
		return p->l2_bytes / 2 / sides;
	case PB_STATE_LLC:
		return p->llc_bytes / 2 / sides;
	case PB_STATE_DRAM: {
		uint64_t ws = 4 * p->llc_bytes;
		if (ws < DRAM_MIN_WORKING_SET)
			ws = DRAM_MIN_WORKING_SET;
		if (ws < 8 * max_slot)
			ws = 8 * max_slot;
		return round_up(ws, HUGE_PAGE_BYTES);
	}
	default:
		return 0;
	}
}

/* Maps the state's regions, sized for slots up to max_slot bytes. */
static int arena_init(struct arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                      int prefill, uint64_t max_slot, uint64_t seed)
{
	memset(a, 0, sizeof *a);
	a->state = st;
	a->copy = p->op != PB_OP_MEMSET;
	a->extent = p->extent_bytes != 0;
	a->prefill = prefill;
	a->rng = seed | 1;
	if (is_fault(st)) {
		if (a->copy) {
			a->fault_src_bytes = round_up(max_slot, PB_PAGE_BYTES);
			a->fault_src = pb_map(a->fault_src_bytes, false, false);
			if (!a->fault_src)
				return -1;
			fill_pattern(a->fault_src, a->fault_src_bytes, &a->rng);
		}
		return 0;
	}
	uint64_t bytes = round_up(state_region_bytes(p, st, max_slot), PB_PAGE_BYTES);
	if (st == PB_STATE_L2 && !a->extent && bytes <= 2 * p->l1_bytes)
		return pb_fail("its %llu KiB working set is not larger than twice the L1d",
		               (unsigned long long)(bytes >> 10));
	if (st == PB_STATE_LLC && !a->extent && bytes <= 2 * p->l2_bytes)
		return pb_fail("its %llu KiB working set is not larger than twice the L2",
		               (unsigned long long)(bytes >> 10));
	uint64_t need = bytes * (a->copy ? 2u : 1u);
	uint64_t avail = avail_bytes();
	if (need > avail / 2)
		return pb_fail(
		    "needs %llu MiB of buffers, more than half the %llu MiB of free memory",
		    (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
	a->region_bytes = bytes;
	a->dst = pb_map(bytes, false, false);
	if (!a->dst)
		return -1;
	if (a->copy) {
		a->src = pb_map(bytes, false, false);
		if (!a->src) {
			arena_free(a);
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

/* Lays the region out in slots for size n at placement pl. Returns 1 when
 * the state cannot hold two slots (the group is skipped), 0, or -1. */
static int arena_set_group(struct arena *a, uint64_t n, const struct pb_mem_placement *pl, bool far)
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
	uint64_t need = slot_layout(n, pl, a->copy, &a->dst_in_slot, &a->src_in_slot);
	uint64_t page = a->state == PB_STATE_FAULT_THP ? HUGE_PAGE_BYTES : PB_PAGE_BYTES;
	a->slot_bytes = round_up(need, page);
	free(a->perm);
	a->perm = NULL;
	if (is_fault(a->state)) {
		a->nslots = FAULT_MAX_BATCH_BYTES / a->slot_bytes;
		if (a->nslots == 0)
			a->nslots = 1;
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
static int arena_pick(struct arena *a, size_t k, void **d, const void **s)
{
	if (is_fault(a->state)) {
		a->batch_map_bytes = k * a->slot_bytes;
		a->batch_map = pb_map(a->batch_map_bytes, a->state == PB_STATE_FAULT_THP, true);
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
static void arena_restore(struct arena *a, size_t k, void **d, const void **s)
{
	size_t n = a->n;
	if (a->state == PB_STATE_REPEAT)
		return;
	if (is_fault(a->state)) {
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
	for (size_t i = 0; i < k; i++) {
		pb_fill_uncached(d[i], a->prefill, n);
		if (a->copy)
			pb_flush_range(s[i], n);
	}
}

/* AnonHugePages of the mapping that holds p, from /proc/self/smaps
 * (proc(5)); 0 when none or unreadable. */
static uint64_t thp_bytes_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 0;
	char line[512];
	bool inside = false;
	uint64_t kb = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %lu kB", &lo) == 1) {
			kb = lo;
			break;
		}
	}
	fclose(f);
	return kb << 10;
}

/* The consumer of what a kernel just wrote: the widest loads usable here
 * (suites/readback.h), picked when a run starts. */
static pb_read_back_fn read_back;

static volatile uint64_t read_sink;

/* One timed batch; *read_ticks gets the read-back time when asked. */
static uint64_t time_batch(const struct pb_kernel *kr, void **d, const void **s, int value,
                           size_t n, size_t k, double *read_ticks)
{
	pb_stamp t;
	uint64_t ticks;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], value, n);
		ticks = pb_timer_end(t);
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], s[i], n);
		ticks = pb_timer_end(t);
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], s[i], n);
		ticks = pb_timer_end(t);
	}
	if (read_ticks) {
		uint64_t sum = 0;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			sum += read_back(d[i], n);
		*read_ticks = (double)pb_timer_end(t);
		read_sink = sum;
	}
	return ticks;
}

/* One timed pass over an extent: consecutive n-byte calls from base. */
static uint64_t time_extent(const struct pb_kernel *kr, uint8_t *dst, const uint8_t *src, int value,
                            size_t n, uint64_t extent, double *read_ticks)
{
	pb_stamp t;
	uint64_t ticks;
	size_t step = n ? n : 1;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, value, n);
		ticks = pb_timer_end(t);
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, src + o, n);
		ticks = pb_timer_end(t);
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, src + o, n);
		ticks = pb_timer_end(t);
	}
	if (read_ticks) {
		t = pb_timer_begin();
		read_sink = read_back(dst, extent);
		*read_ticks = (double)pb_timer_end(t);
	}
	return ticks;
}

struct contender {
	const struct pb_kernel *kernel;
	size_t k;
	struct pb_mem_case *c;
	size_t cap;
};

int pb_mem_case_add_sample(struct pb_mem_case *c, size_t *cap_io, double ticks, double read,
                           uint64_t calls)
{
	if (c->n_samples == *cap_io) {
		size_t cap = *cap_io ? 2 * *cap_io : 64;
		double *bt = realloc(c->batch_ticks, cap * sizeof *bt);
		if (!bt)
			return pb_fail("out of memory for samples");
		c->batch_ticks = bt;
		uint64_t *bc = realloc(c->batch_calls, cap * sizeof *bc);
		if (!bc)
			return pb_fail("out of memory for samples");
		c->batch_calls = bc;
		if (c->then_read) {
			double *rt = realloc(c->read_ticks, cap * sizeof *rt);
			if (!rt)
				return pb_fail("out of memory for samples");
			c->read_ticks = rt;
		}
		*cap_io = cap;
	}
	c->batch_ticks[c->n_samples] = ticks;
	c->batch_calls[c->n_samples] = calls;
	if (c->then_read)
		c->read_ticks[c->n_samples] = read;
	c->n_samples++;
	return 0;
}

#define note(r, ...) pb_note_append((r)->notes, sizeof(r)->notes, __VA_ARGS__)

/* Per-call figures of a case's samples into a new array. */
static double *per_call(const struct pb_mem_case *c, const double *ticks)
{
	double *v = malloc((c->n_samples ? c->n_samples : 1) * sizeof *v);
	if (v)
		for (size_t i = 0; i < c->n_samples; i++)
			v[i] = ticks[i] / (double)c->batch_calls[i];
	return v;
}

static int summarize_case(struct pb_mem_case *c)
{
	if (c->n_samples == 0)
		return 0;
	double *v = per_call(c, c->batch_ticks);
	if (!v)
		return pb_fail("out of memory");
	int rc = pb_summarize(v, c->n_samples, 0.95, &c->ticks_per_call);
	size_t outliers = 0;
	if (rc == 0)
		rc = pb_count_outliers_mz(v, c->n_samples, 3.5, &outliers);
	c->outliers = outliers;
	free(v);
	if (rc == 0 && c->then_read) {
		v = per_call(c, c->read_ticks);
		if (!v)
			return pb_fail("out of memory");
		rc = pb_summarize(v, c->n_samples, 0.95, &c->read_ticks_per_call);
		free(v);
	}
	return rc;
}

/* Whether every case of the group has its CI half-width below the target. */
static bool precise_enough(struct contender *cts, size_t nk, double precision)
{
	for (size_t i = 0; i < nk; i++) {
		struct pb_mem_case *c = cts[i].c;
		struct pb_summary s;
		double *v = per_call(c, c->batch_ticks);
		if (!v)
			return false;
		int rc = pb_summarize(v, c->n_samples, 0.95, &s);
		free(v);
		if (rc != 0 || !s.ci_valid || s.median <= 0 ||
		    (s.ci_hi - s.ci_lo) / 2 > precision * s.median)
			return false;
	}
	return true;
}

/* One sample of one contender. Returns 0, or -1 on a mapping failure. */
static int take_sample(const struct pb_mem_params *p, struct arena *a, struct contender *ct,
                       void **d, const void **s, bool keep)
{
	double read = 0;
	int cpu0 = sched_getcpu();
	uint64_t t;
	size_t calls;
	if (p->extent_bytes) {
		calls = a->n ? (size_t)(p->extent_bytes / a->n) : (size_t)p->extent_bytes;
		const uint8_t *src = a->copy ? (a->pl.has_distance ? a->dst + a->src_in_slot
		                                                   : a->src + a->src_in_slot)
		                             : NULL;
		t = time_extent(ct->kernel, a->dst + a->dst_in_slot, src, p->value, a->n,
		                p->extent_bytes, p->then_read ? &read : NULL);
		if (a->state == PB_STATE_DRAM) {
			pb_fill_uncached(a->dst + a->dst_in_slot, a->prefill, p->extent_bytes);
			if (src)
				pb_flush_range(src, p->extent_bytes);
		} else if (a->state != PB_STATE_REPEAT) {
			memset(a->dst + a->dst_in_slot, a->prefill, p->extent_bytes);
		}
	} else {
		calls = ct->k;
		if (arena_pick(a, calls, d, s) != 0)
			return -1;
		bool count = keep && p->counters && pb_counters_start(p->counters) == 0;
		t = time_batch(ct->kernel, d, s, p->value, a->n, calls,
		               p->then_read ? &read : NULL);
		struct pb_counter_values cv;
		if (count && pb_counters_stop(p->counters, &cv) == 0) {
			ct->c->counted_calls += calls;
			ct->c->cycles += cv.cycles;
			ct->c->instructions += cv.instructions;
			ct->c->cache_misses += cv.cache_misses;
			ct->c->counters_multiplexed |= cv.multiplexed;
		}
		if (a->state == PB_STATE_FAULT_THP && ct->c->thp_bytes == 0 && keep)
			ct->c->thp_bytes = thp_bytes_at(d[0]);
		arena_restore(a, calls, d, s);
	}
	int cpu1 = sched_getcpu();
	if (!keep)
		return 0;
	if (cpu0 != cpu1) {
		/* A migration mixes two CPUs' caches and clocks: dropped, counted. */
		ct->c->migrations++;
		return 0;
	}
	double overhead = pb_timer_info()->overhead_ticks;
	double v = (double)t - overhead, rv = read - overhead;
	return pb_mem_case_add_sample(ct->c, &ct->cap, v > 0 ? v : 0, rv > 0 ? rv : 0, calls);
}

/* Calibrates k per contender: the least of three single calls gives the
 * per-call estimate, and pb_batch_calls() scales it to pb_batch_target_ticks()
 * (suites/sampling.h). Each contender's first call is discarded (cold code
 * and TLB). */
static int calibrate(const struct pb_mem_params *p, struct arena *a, struct contender *cts,
                     void **d, const void **s)
{
	double target = pb_batch_target_ticks();
	/* dram: no slot twice in a batch (it would be cached the second time);
	 * fault: at most FAULT_MAX_BATCH_BYTES of fresh mappings per batch. */
	size_t max_k = MAX_BATCH_CALLS;
	if (a->state == PB_STATE_DRAM && a->nslots / 2 < max_k)
		max_k = a->nslots / 2 ? a->nslots / 2 : 1;
	if (is_fault(a->state) && a->nslots < max_k)
		max_k = a->nslots;
	for (size_t i = 0; i < p->n_kernels; i++) {
		if (p->stop && *p->stop)
			return 0;
		if (p->extent_bytes) {
			cts[i].k = p->extent_bytes / (a->n ? a->n : 1);
			continue;
		}
		double best = INFINITY;
		for (int rep = 0; rep < 4; rep++) {
			if (arena_pick(a, 1, d, s) != 0)
				return -1;
			double t = (double)time_batch(cts[i].kernel, d, s, p->value, a->n, 1, NULL);
			arena_restore(a, 1, d, s);
			if (rep > 0 && t < best)
				best = t;
		}
		cts[i].k = pb_batch_calls(best, target, max_k);
	}
	return 0;
}

/* One group: calibrate, warm up, then interleaved rounds. */
static int run_group(const struct pb_mem_params *p, struct arena *a, struct contender *cts,
                     void **d, const void **s, uint64_t *rng)
{
	if (calibrate(p, a, cts, d, s) != 0)
		return -1;
	uint32_t *order = malloc(p->n_kernels * sizeof *order);
	if (!order)
		return pb_fail("out of memory");
	for (size_t i = 0; i < p->n_kernels; i++)
		order[i] = (uint32_t)i;
	int rc = 0;
	double start = pb_monotonic_s();
	size_t rounds = p->warmup_samples + p->max_samples;
	for (size_t round = 0; round < rounds && rc == 0; round++) {
		bool warm = round < p->warmup_samples;
		size_t taken = round - (warm ? round : p->warmup_samples);
		if (!warm && taken >= p->min_samples) {
			if (pb_monotonic_s() - start >= p->budget_s)
				break;
			if (p->precision > 0 && precise_enough(cts, p->n_kernels, p->precision))
				break;
		}
		if (p->stop && *p->stop)
			break;
		pb_shuffle_u32(order, p->n_kernels, rng);
		for (size_t j = 0; j < p->n_kernels && rc == 0; j++) {
			rc = take_sample(p, a, &cts[order[j]], d, s, !warm);
			if (p->stop && *p->stop)
				break;
		}
	}
	free(order);
	return rc;
}

static bool same_op(const struct pb_mem_params *p, char *bad, size_t len)
{
	for (size_t i = 0; i < p->n_kernels; i++)
		if (p->kernels[i]->op != p->op) {
			snprintf(bad, len, "%s/%s", pb_op_name(p->kernels[i]->op),
			         p->kernels[i]->name);
			return false;
		}
	return true;
}

static int check_params(const struct pb_mem_params *p)
{
	char bad[64];
	if (p->n_kernels == 0 || p->n_sizes == 0 || p->n_states == 0 || p->n_placements == 0)
		return pb_fail("nothing to measure");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	if (!same_op(p, bad, sizeof bad))
		return pb_fail("kernel '%s' is not a %s kernel", bad, pb_op_name(p->op));
	for (size_t i = 0; i < p->n_placements; i++) {
		const struct pb_mem_placement *pl = &p->placements[i];
		if (pl->dst_offset_bytes >= PB_PAGE_BYTES || pl->src_offset_bytes >= PB_PAGE_BYTES)
			return pb_fail("offsets must be below 4096 bytes");
		/* memmove may overlap: that is what it is for. */
		for (size_t z = 0; pl->has_distance && p->op == PB_OP_MEMCPY && z < p->n_sizes;
		     z++) {
			int64_t dd = pl->distance_bytes;
			uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
			if (ad < p->sizes_bytes[z])
				return pb_fail(
				    "distance %lld overlaps a copy of %llu bytes (memcpy "
				    "needs |distance| >= size)",
				    (long long)dd, (unsigned long long)p->sizes_bytes[z]);
		}
	}
	/* Beyond PB_MEM_DENSE_DISTANCE_MAX_BYTES only the hot state's far
	 * layout places the source (mem.h). */
	for (size_t q = 0; q < p->n_placements; q++) {
		const struct pb_mem_placement *pl = &p->placements[q];
		if (!pl->has_distance || p->op == PB_OP_MEMSET)
			continue;
		uint64_t ad = abs_distance(pl);
		unsigned bits = pb_user_address_bits();
		if (ad >= (UINT64_C(1) << bits) - PB_PAGE_BYTES)
			return pb_fail("distance %lld does not fit the %u-bit user address space",
			               (long long)pl->distance_bytes, bits);
		if (ad <= (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES)
			continue;
		if (p->extent_bytes)
			return pb_fail("a distance beyond 4 GiB works without an extent only");
		for (size_t i = 0; i < p->n_states; i++)
			if (p->states[i] != PB_STATE_HOT)
				return pb_fail(
				    "a distance beyond 4 GiB works in the hot state only, not "
				    "'%s'",
				    pb_cache_state_name(p->states[i]));
	}
	/* The fault states' source is a separate prefaulted buffer. */
	for (size_t i = 0; p->op == PB_OP_MEMMOVE && i < p->n_states; i++) {
		if (!is_fault(p->states[i]))
			continue;
		for (size_t q = 0; q < p->n_placements; q++) {
			const struct pb_mem_placement *pl = &p->placements[q];
			int64_t dd = pl->distance_bytes;
			uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
			for (size_t z = 0; pl->has_distance && z < p->n_sizes; z++)
				if (ad < p->sizes_bytes[z])
					return pb_fail("the %s state cannot place an overlapping "
					               "memmove (distance %lld, %llu bytes)",
					               pb_cache_state_name(p->states[i]),
					               (long long)dd,
					               (unsigned long long)p->sizes_bytes[z]);
		}
	}
	for (size_t i = 0; p->extent_bytes && i < p->n_sizes; i++) {
		uint64_t n = p->sizes_bytes[i];
		if (n == 0 || p->extent_bytes % n != 0)
			return pb_fail("extent %llu is not a multiple of size %llu",
			               (unsigned long long)p->extent_bytes, (unsigned long long)n);
	}
	for (size_t i = 0; p->extent_bytes && i < p->n_states; i++)
		if (p->states[i] != PB_STATE_HOT && p->states[i] != PB_STATE_DRAM &&
		    p->states[i] != PB_STATE_REPEAT)
			return pb_fail("--extent works with the hot, dram and repeat states only, "
			               "not '%s'",
			               pb_cache_state_name(p->states[i]));
	return 0;
}

/* The read-back loop's own speed at size n: one hot buffer (at the
 * group's destination offset) read over and over, in batches sized like
 * the kernels' (pb_batch_calls), 21 samples; *out in ticks per read.
 * Returns 0, or -1 with pb_error() when the buffer cannot be mapped. */
#define READ_LOOP_SAMPLES 21
static int measure_read_loop(uint64_t n, uint64_t offset, struct pb_summary *out)
{
	uint8_t *buf = pb_map(offset + n, false, false);
	if (!buf)
		return -1;
	const uint8_t *b = buf + offset;
	double overhead = pb_timer_info()->overhead_ticks, best = INFINITY;
	read_sink = read_back(b, n); /* warm: lines, TLB, code */
	for (int i = 0; i < 3; i++) {
		pb_stamp t = pb_timer_begin();
		read_sink = read_back(b, n);
		double v = (double)pb_timer_end(t);
		if (v < best)
			best = v;
	}
	size_t k = pb_batch_calls(best, pb_batch_target_ticks(), MAX_BATCH_CALLS);
	double v[READ_LOOP_SAMPLES];
	for (int j = 0; j < READ_LOOP_SAMPLES; j++) {
		uint64_t sum = 0;
		pb_stamp t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			sum += read_back(b, n);
		double ticks = (double)pb_timer_end(t) - overhead;
		read_sink = sum;
		v[j] = (ticks > 0 ? ticks : 0) / (double)k;
	}
	pb_unmap(buf, offset + n);
	return pb_summarize(v, READ_LOOP_SAMPLES, 0.95, out);
}

/* Whether read-back summary rd is within noise of the loop's own speed. */
static bool within_loop_noise(const struct pb_summary *rd, const struct pb_summary *loop)
{
	if (rd->ci_valid && loop->ci_valid)
		return rd->ci_lo <= loop->ci_hi;
	return rd->median <= 1.05 * loop->median;
}

int pb_mem_run(const struct pb_mem_params *p, struct pb_mem_result *r)
{
	memset(r, 0, sizeof *r);
	if (check_params(p) != 0)
		return -1;
	read_back = pb_read_back_pick(&r->read_loop);
	if (!p->then_read)
		r->read_loop = NULL;

	bool copy = p->op != PB_OP_MEMSET;
	int prefill = pb_mem_prefill_value(p->op, p->value);
	/* The slots the regions must hold: max_slot for every group,
	 * max_dense_slot for the groups the hot state does not lay out far. */
	uint64_t max_slot = 0, max_dense_slot = PB_PAGE_BYTES;
	for (size_t z = 0; z < p->n_sizes; z++)
		for (size_t q = 0; q < p->n_placements; q++) {
			uint64_t di, si;
			/* With an extent, the one slot holds the extent (and the
			 * distance, when the source is in the same region). */
			uint64_t need =
			    slot_layout(p->extent_bytes ? p->extent_bytes : p->sizes_bytes[z],
			                &p->placements[q], copy, &di, &si);
			need = round_up(need, PB_PAGE_BYTES);
			if (need > max_slot)
				max_slot = need;
			if (!far_group(p, PB_STATE_HOT, &p->placements[q]) && need > max_dense_slot)
				max_dense_slot = need;
		}

	size_t groups_total = p->n_states * p->n_sizes * p->n_placements, groups_done = 0;
	r->cases = calloc(groups_total * p->n_kernels, sizeof *r->cases);
	struct contender *cts = calloc(p->n_kernels, sizeof *cts);
	void **d = malloc(MAX_BATCH_CALLS * sizeof *d);
	const void **s = malloc(MAX_BATCH_CALLS * sizeof *s);
	if (!r->cases || !cts || !d || !s) {
		free(cts);
		free(d);
		free(s);
		pb_mem_result_free(r);
		return pb_fail("out of memory");
	}
	uint64_t rng = p->seed ? p->seed : 0x9E3779B97F4A7C15ull;
	int rc = 0;

	for (size_t si = 0; si < p->n_states && rc == 0 && !r->interrupted; si++) {
		struct arena a;
		enum pb_cache_state st = p->states[si];
		if (p->stop && *p->stop) {
			r->interrupted = true;
			break;
		}
		if (arena_init(&a, p, st, prefill, st == PB_STATE_HOT ? max_dense_slot : max_slot,
		               pb_rng_next(&rng)) != 0) {
			note(r, "%s: skipped: %s", pb_cache_state_name(st), pb_error());
			groups_done += p->n_sizes * p->n_placements;
			continue;
		}
		for (size_t zi = 0; zi < p->n_sizes && rc == 0 && !r->interrupted; zi++) {
			uint64_t n = p->sizes_bytes[zi];
			for (size_t q = 0; q < p->n_placements && rc == 0; q++) {
				if (p->stop && *p->stop) {
					r->interrupted = true;
					break;
				}
				bool far = far_group(p, st, &p->placements[q]);
				int g = arena_set_group(&a, n, &p->placements[q], far);
				if (g < 0) {
					rc = -1;
					break;
				}
				groups_done++;
				if (g == 1 && far) {
					note(r, "%s: size %llu at distance %lld skipped: %s",
					     pb_cache_state_name(st), (unsigned long long)n,
					     (long long)p->placements[q].distance_bytes,
					     pb_error());
					continue;
				}
				if (g == 1) {
					if (q == 0)
						note(r,
						     "%s: size %llu skipped: the %llu KiB working "
						     "set "
						     "does not hold two of them",
						     pb_cache_state_name(st), (unsigned long long)n,
						     (unsigned long long)(a.region_bytes >> 10));
					continue;
				}
				for (size_t ki = 0; ki < p->n_kernels; ki++) {
					struct pb_mem_case *c = &r->cases[r->n_cases++];
					c->op = p->op;
					c->kernel = p->kernels[ki];
					c->size_bytes = n;
					c->placement = p->placements[q];
					if (!copy) {
						c->placement.src_offset_bytes = 0;
						c->placement.has_distance = false;
						c->placement.distance_bytes = 0;
					}
					c->extent_bytes = p->extent_bytes;
					c->state = st;
					c->page_bytes = st == PB_STATE_FAULT_THP ? HUGE_PAGE_BYTES
					                                         : PB_PAGE_BYTES;
					c->fill_value = copy ? -1 : (p->value & 0xff);
					/* Fresh pages read as zero; repeat's destination
					 * holds the previous call's bytes. */
					c->prefill_value = is_fault(st) ? 0
					                   : st == PB_STATE_REPEAT
					                       ? (copy ? -1 : (p->value & 0xff))
					                       : prefill;
					c->then_read = p->then_read;
					c->working_set_bytes =
					    p->extent_bytes ? p->extent_bytes * (copy ? 2 : 1)
					                    : a.ws_bytes;
					cts[ki] =
					    (struct contender){.kernel = p->kernels[ki], .c = c};
				}
				rc = run_group(p, &a, cts, d, s, &rng);
				for (size_t ki = 0; ki < p->n_kernels && rc == 0; ki++)
					rc = summarize_case(cts[ki].c);
				/* The read-back loop's own speed beside each case's
				 * read-back: within its noise, the read-back shows the
				 * loop, not where the bytes sit. */
				struct pb_summary loop;
				if (rc == 0 && p->then_read && n > 0 && !r->interrupted &&
				    cts[0].c->n_samples > 0 &&
				    measure_read_loop(n, p->placements[q].dst_offset_bytes,
				                      &loop) == 0) {
					for (size_t ki = 0; ki < p->n_kernels; ki++) {
						struct pb_mem_case *c = cts[ki].c;
						c->read_loop_ticks_per_call = loop;
						c->read_loop_bound =
						    c->n_samples > 0 &&
						    within_loop_noise(&c->read_ticks_per_call,
						                      &loop);
					}
				}
				if (rc == 0 && st == PB_STATE_FAULT_THP && n > 0 &&
				    cts[0].c->thp_bytes == 0)
					note(r,
					     "fault-thp: size %llu: no huge pages seen in "
					     "/proc/self/smaps (THP off, or not available)",
					     (unsigned long long)n);
				if (p->stop && *p->stop)
					r->interrupted = true;
				if (p->progress)
					p->progress(p->progress_ctx, groups_done, groups_total);
				if (r->interrupted)
					break;
			}
		}
		arena_free(&a);
	}
	free(cts);
	free(d);
	free(s);
	if (rc != 0) {
		pb_mem_result_free(r);
		return -1;
	}
	return 0;
}

void pb_mem_result_free(struct pb_mem_result *r)
{
	if (!r->cases)
		return;
	for (size_t i = 0; i < r->n_cases; i++) {
		free(r->cases[i].batch_ticks);
		free(r->cases[i].batch_calls);
		free(r->cases[i].read_ticks);
	}
	free(r->cases);
	r->cases = NULL;
	r->n_cases = 0;
}
