/* mem.c - the memory-kernel suite (include/primbench/mem.h). */
#define _GNU_SOURCE
#include "primbench/mem.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/memory.h"
#include "primbench/timer.h"

/* Most calls one batch may hold (bounds the pointer arrays). */
#define MAX_BATCH_CALLS 16384u
/* A batch aims to last this long at least, and far above step and overhead. */
#define TARGET_BATCH_NS 20000.0
/* The dram working set is at least this large, and at least 4 x the LLC. */
#define DRAM_MIN_WORKING_SET (256ull << 20)

static const char *const state_names[PB_STATE_COUNT] = {"hot", "dram"};

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
	return pb_fail("unknown cache state '%s' (known: hot, dram)", name);
}

int pb_mem_prefill_value(enum pb_op op, int value)
{
	return op == PB_OP_MEMCPY ? 0xA5 : (value ^ 0xA5) & 0xff;
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

/* xorshift64*: cheap, seeded, reproducible (Vigna 2016, "An experimental
 * exploration of Marsaglia's xorshift generators"). */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static void shuffle_u32(uint32_t *a, size_t n, uint64_t *rng)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_next(rng) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* Where the calls of one state write and read. */
struct arena {
	enum pb_cache_state state;
	bool copy;
	int prefill;
	/* hot: two buffers each; dram: one large region each */
	uint8_t *dst[2], *src[2];
	size_t dst_bytes, src_bytes; /* bytes of each mapping */
	/* dram slot rotation */
	size_t slot_bytes, nslots;
	uint32_t *dst_perm, *src_perm;
	size_t dst_next, src_next;
	uint64_t rng;
};

static void arena_free(struct arena *a)
{
	for (int i = 0; i < 2; i++) {
		if (a->dst[i])
			pb_unmap(a->dst[i], a->dst_bytes);
		if (a->src[i])
			pb_unmap(a->src[i], a->src_bytes);
	}
	free(a->dst_perm);
	free(a->src_perm);
	memset(a, 0, sizeof *a);
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t *rng)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t r = rng_next(rng);
		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)rng_next(rng);
}

/* Maps the buffers of `state` for sizes up to max_slot_bytes. */
static int arena_init(struct arena *a, enum pb_cache_state state, bool copy, int prefill,
                      uint64_t max_slot_bytes, uint64_t llc_bytes, uint64_t seed)
{
	memset(a, 0, sizeof *a);
	a->state = state;
	a->copy = copy;
	a->prefill = prefill;
	a->rng = seed | 1;
	int nbuf = state == PB_STATE_HOT ? 2 : 1;
	size_t bytes = max_slot_bytes;
	if (state == PB_STATE_DRAM) {
		uint64_t ws = 4 * llc_bytes;
		if (ws < DRAM_MIN_WORKING_SET)
			ws = DRAM_MIN_WORKING_SET;
		if (ws < 8 * max_slot_bytes)
			ws = 8 * max_slot_bytes;
		bytes = round_up(ws, 2u << 20);
	}
	a->dst_bytes = a->src_bytes = bytes;
	uint64_t need = (uint64_t)bytes * (uint64_t)nbuf * (copy ? 2u : 1u);
	uint64_t avail = (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (need > avail / 2)
		return pb_fail(
		    "needs %llu MiB of buffers, more than half the %llu MiB of free memory",
		    (unsigned long long)(need >> 20), (unsigned long long)(avail >> 20));
	for (int i = 0; i < nbuf; i++) {
		a->dst[i] = pb_map(bytes, false, false);
		if (!a->dst[i])
			goto fail;
		if (copy) {
			a->src[i] = pb_map(bytes, false, false);
			if (!a->src[i])
				goto fail;
			fill_pattern(a->src[i], bytes, &a->rng);
		}
		if (state == PB_STATE_DRAM) {
			pb_fill_uncached(a->dst[i], prefill, bytes);
			if (copy)
				pb_flush_range(a->src[i], bytes);
		} else {
			memset(a->dst[i], prefill, bytes);
		}
	}
	return 0;
fail:
	arena_free(a);
	return -1;
}

/* Lays the dram region out in slots for one size. */
static int arena_set_size(struct arena *a, uint64_t slot_bytes)
{
	if (a->state != PB_STATE_DRAM)
		return 0;
	free(a->dst_perm);
	free(a->src_perm);
	a->dst_perm = a->src_perm = NULL;
	/* Size 0 (a call that moves nothing: the call's own cost) still gets
	 * one page per slot. */
	a->slot_bytes = slot_bytes ? round_up(slot_bytes, PB_PAGE_BYTES) : PB_PAGE_BYTES;
	a->nslots = a->dst_bytes / a->slot_bytes;
	if (a->nslots > UINT32_MAX)
		a->nslots = UINT32_MAX;
	a->dst_perm = malloc(a->nslots * sizeof *a->dst_perm);
	a->src_perm = malloc(a->nslots * sizeof *a->src_perm);
	if (!a->dst_perm || !a->src_perm)
		return pb_fail("out of memory for %zu slots", a->nslots);
	for (size_t i = 0; i < a->nslots; i++)
		a->dst_perm[i] = a->src_perm[i] = (uint32_t)i;
	shuffle_u32(a->dst_perm, a->nslots, &a->rng);
	shuffle_u32(a->src_perm, a->nslots, &a->rng);
	a->dst_next = a->src_next = 0;
	return 0;
}

static uint32_t next_slot(uint32_t *perm, size_t n, size_t *next, uint64_t *rng)
{
	if (*next == n) {
		shuffle_u32(perm, n, rng);
		*next = 0;
	}
	return perm[(*next)++];
}

/* Fills the pointer arrays for a batch of k calls. */
static void arena_pick(struct arena *a, size_t k, uint64_t doff, uint64_t soff, void **d,
                       const void **s)
{
	for (size_t i = 0; i < k; i++) {
		if (a->state == PB_STATE_HOT) {
			d[i] = a->dst[i & 1] + doff;
			s[i] = a->copy ? a->src[i & 1] + soff : NULL;
		} else {
			uint32_t ds = next_slot(a->dst_perm, a->nslots, &a->dst_next, &a->rng);
			d[i] = a->dst[0] + (size_t)ds * a->slot_bytes + doff;
			if (a->copy) {
				uint32_t ss =
				    next_slot(a->src_perm, a->nslots, &a->src_next, &a->rng);
				s[i] = a->src[0] + (size_t)ss * a->slot_bytes + soff;
			} else {
				s[i] = NULL;
			}
		}
	}
}

/* Untimed: puts back what the batch changed, and evicts it for dram. */
static void arena_restore(struct arena *a, size_t k, size_t n, void **d, const void **s)
{
	if (a->state == PB_STATE_HOT) {
		size_t m = k < 2 ? k : 2;
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

static uint64_t time_batch(const struct pb_kernel *kr, void **d, const void **s, int value,
                           size_t n, size_t k)
{
	pb_stamp t;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], value, n);
	} else {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], s[i], n);
	}
	return pb_timer_end(t);
}

struct contender {
	const struct pb_kernel *kernel;
	size_t k;
	struct pb_mem_case *c;
	size_t cap;
};

static int case_add_sample(struct contender *ct, double ticks, uint64_t calls)
{
	struct pb_mem_case *c = ct->c;
	if (c->n_samples == ct->cap) {
		size_t cap = ct->cap ? 2 * ct->cap : 64;
		double *bt = realloc(c->batch_ticks, cap * sizeof *bt);
		if (!bt)
			return pb_fail("out of memory for samples");
		c->batch_ticks = bt;
		uint64_t *bc = realloc(c->batch_calls, cap * sizeof *bc);
		if (!bc)
			return pb_fail("out of memory for samples");
		c->batch_calls = bc;
		ct->cap = cap;
	}
	c->batch_ticks[c->n_samples] = ticks;
	c->batch_calls[c->n_samples] = calls;
	c->n_samples++;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void note(struct pb_mem_result *r, const char *line)
{
	size_t used = strlen(r->notes);
	snprintf(r->notes + used, sizeof r->notes - used, "%s\n", line);
}

/* One (state, size) group: calibrate, then interleaved rounds. */
static int run_group(const struct pb_mem_params *p, struct arena *a, uint64_t n,
                     struct contender *cts, void **d, const void **s, uint64_t *rng)
{
	const struct pb_timer_info *ti = pb_timer_info();
	double overhead = ti->overhead_ticks;
	double target = TARGET_BATCH_NS * ti->hz / 1e9;
	if (target < 1000 * ti->step_ticks)
		target = 1000 * ti->step_ticks;
	if (target < 200 * overhead)
		target = 200 * overhead;
	size_t max_k = MAX_BATCH_CALLS;
	if (a->state == PB_STATE_DRAM && max_k > a->nslots / 2)
		max_k = a->nslots / 2 ? a->nslots / 2 : 1;

	/* Calibration: warm the code and the buffers' mappings, then take
	 * the least of three single-call timings as the per-call estimate. */
	for (size_t i = 0; i < p->n_kernels; i++) {
		double best = INFINITY;
		for (int rep = 0; rep < 4; rep++) {
			arena_pick(a, 1, p->dst_offset_bytes, p->src_offset_bytes, d, s);
			double t = (double)time_batch(cts[i].kernel, d, s, p->value, n, 1);
			arena_restore(a, 1, n, d, s);
			if (rep > 0 && t < best)
				best = t;
		}
		double per_call = best - overhead;
		if (per_call < 1)
			per_call = 1;
		double k = ceil(target / per_call);
		cts[i].k = k > (double)max_k ? max_k : (size_t)k;
	}

	uint32_t *order = malloc(p->n_kernels * sizeof *order);
	if (!order)
		return pb_fail("out of memory");
	for (size_t i = 0; i < p->n_kernels; i++)
		order[i] = (uint32_t)i;
	double start = now_s();
	for (size_t round = 0; round < p->max_samples; round++) {
		if (round >= p->min_samples && now_s() - start >= p->budget_s)
			break;
		if (p->stop && *p->stop)
			break;
		shuffle_u32(order, p->n_kernels, rng);
		for (size_t j = 0; j < p->n_kernels; j++) {
			struct contender *ct = &cts[order[j]];
			arena_pick(a, ct->k, p->dst_offset_bytes, p->src_offset_bytes, d, s);
			int cpu0 = sched_getcpu();
			uint64_t t = time_batch(ct->kernel, d, s, p->value, n, ct->k);
			int cpu1 = sched_getcpu();
			arena_restore(a, ct->k, n, d, s);
			double v = (double)t - overhead;
			if (v < 0)
				v = 0;
			if (cpu0 != cpu1)
				ct->c->migrations++;
			if (case_add_sample(ct, v, ct->k) != 0) {
				free(order);
				return -1;
			}
			if (p->stop && *p->stop)
				break;
		}
	}
	free(order);
	return 0;
}

static int summarize_case(struct pb_mem_case *c)
{
	if (c->n_samples == 0)
		return 0;
	double *per = malloc(c->n_samples * sizeof *per);
	if (!per)
		return pb_fail("out of memory");
	for (size_t i = 0; i < c->n_samples; i++)
		per[i] = c->batch_ticks[i] / (double)c->batch_calls[i];
	int rc = pb_summarize(per, c->n_samples, 0.95, &c->ticks_per_call);
	double fence;
	size_t outliers = 0;
	if (rc == 0)
		rc = pb_count_outliers(per, c->n_samples, &outliers, &fence);
	c->outliers = outliers;
	free(per);
	return rc;
}

int pb_mem_run(const struct pb_mem_params *p, struct pb_mem_result *r)
{
	memset(r, 0, sizeof *r);
	if (p->n_kernels == 0 || p->n_sizes == 0 || p->n_states == 0)
		return pb_fail("nothing to measure");
	if (p->dst_offset_bytes >= PB_PAGE_BYTES || p->src_offset_bytes >= PB_PAGE_BYTES)
		return pb_fail("offsets must be below 4096 bytes");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	for (size_t i = 0; i < p->n_kernels; i++)
		if (p->kernels[i]->op != p->op)
			return pb_fail("kernel '%s/%s' is not a %s kernel",
			               pb_op_name(p->kernels[i]->op), p->kernels[i]->name,
			               pb_op_name(p->op));

	bool copy = p->op == PB_OP_MEMCPY;
	int prefill = pb_mem_prefill_value(p->op, p->value);
	uint64_t max_off =
	    p->dst_offset_bytes > p->src_offset_bytes ? p->dst_offset_bytes : p->src_offset_bytes;
	uint64_t max_size = 0;
	for (size_t i = 0; i < p->n_sizes; i++)
		if (p->sizes_bytes[i] > max_size)
			max_size = p->sizes_bytes[i];
	uint64_t max_slot = round_up(max_size + max_off, PB_PAGE_BYTES);

	size_t total = p->n_states * p->n_sizes * p->n_kernels;
	r->cases = calloc(total, sizeof *r->cases);
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
	size_t groups_total = p->n_states * p->n_sizes, groups_done = 0;
	int rc = 0;

	for (size_t si = 0; si < p->n_states && rc == 0 && !r->interrupted; si++) {
		struct arena a;
		enum pb_cache_state st = p->states[si];
		if (arena_init(&a, st, copy, prefill, max_slot, p->llc_bytes, rng_next(&rng)) !=
		    0) {
			char line[300];
			snprintf(line, sizeof line, "%s: skipped: %s", pb_cache_state_name(st),
			         pb_error());
			note(r, line);
			groups_done += p->n_sizes;
			continue;
		}
		for (size_t zi = 0; zi < p->n_sizes && rc == 0; zi++) {
			uint64_t n = p->sizes_bytes[zi];
			if (arena_set_size(&a, n + max_off) != 0) {
				rc = -1;
				break;
			}
			/* Bytes the calls of this group rotate through. */
			uint64_t ws =
			    (st == PB_STATE_HOT ? 2 * (n + max_off) : a.dst_bytes) * (copy ? 2 : 1);
			for (size_t ki = 0; ki < p->n_kernels; ki++) {
				struct pb_mem_case *c = &r->cases[r->n_cases++];
				c->op = p->op;
				c->kernel = p->kernels[ki];
				c->size_bytes = n;
				c->dst_offset_bytes = p->dst_offset_bytes;
				c->src_offset_bytes = copy ? p->src_offset_bytes : 0;
				c->extent_bytes = n;
				c->state = st;
				c->page_bytes = PB_PAGE_BYTES;
				c->fill_value = copy ? -1 : (p->value & 0xff);
				c->prefill_value = prefill;
				c->working_set_bytes = ws;
				cts[ki] = (struct contender){.kernel = p->kernels[ki], .c = c};
			}
			rc = run_group(p, &a, n, cts, d, s, &rng);
			for (size_t ki = 0; ki < p->n_kernels && rc == 0; ki++)
				rc = summarize_case(cts[ki].c);
			if (p->stop && *p->stop)
				r->interrupted = true;
			groups_done++;
			if (p->progress)
				p->progress(p->progress_ctx, groups_done, groups_total);
			if (r->interrupted)
				break;
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
	}
	free(r->cases);
	r->cases = NULL;
	r->n_cases = 0;
}
