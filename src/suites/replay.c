/* replay.c - replaying a call-size distribution (pb_mem_replay_run in
 * include/primbench/mem.h).
 *
 * Everything random is drawn before the first timed call: the sizes, the
 * offsets and the slot of every call sit in arrays, so a timed pass is a
 * loop over pointers and sizes. Branch predictors see a sequence of
 * batch_calls random sizes, repeated `passes` times in a sample: a sequence
 * of thousands of calls is far longer than a predictor's history. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/mem.h"
#include "primbench/memory.h"
#include "primbench/policy.h"
#include "primbench/timer.h"
#include "suites/sampling.h"

#define DRAM_MIN_WORKING_SET (256ull << 20)
#define MAX_PASSES           256
/* The source's window starts this far past a page boundary, so that
 * destination and source never share a page offset (no 4K aliasing of
 * loads with stores), as mem's default --src-offset. */
#define SRC_PAGE_OFFSET 2048u

const char *pb_replay_offsets_name(enum pb_replay_offsets o)
{
	return o == PB_OFFSETS_ALIGNED ? "aligned" : "random";
}

int pb_replay_offsets_parse(const char *s, enum pb_replay_offsets *out)
{
	if (!strcmp(s, "random"))
		*out = PB_OFFSETS_RANDOM;
	else if (!strcmp(s, "aligned"))
		*out = PB_OFFSETS_ALIGNED;
	else
		return pb_fail("unknown offsets mode '%s' (known: random, aligned)", s);
	return 0;
}

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* One cache state's buffers and the batch's pointers into them. */
struct replay_arena {
	enum pb_cache_state state;
	bool copy;
	uint8_t *dst, *src;
	size_t region_bytes, slot_bytes, nslots;
	void **d;
	const void **s;
	uint64_t ws_bytes;
};

static void arena_free(struct replay_arena *a)
{
	if (a->dst)
		pb_unmap(a->dst, a->region_bytes);
	if (a->src)
		pb_unmap(a->src, a->region_bytes);
	a->dst = NULL;
	a->src = NULL;
}

/* Maps the state's regions and points every call of the batch into them. */
static int arena_init(struct replay_arena *a, const struct pb_mem_params *p, enum pb_cache_state st,
                      const uint32_t *offs, size_t n, size_t need, int prefill, uint64_t *rng)
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
		bytes = p->l2_bytes / 2 / sides;
		if (bytes <= 2 * p->l1_bytes)
			return pb_fail("its %llu KiB working set is not larger than twice the L1d",
			               (unsigned long long)(bytes >> 10));
		break;
	case PB_STATE_LLC:
		bytes = p->llc_bytes / 2 / sides;
		if (bytes <= 2 * p->l2_bytes)
			return pb_fail("its %llu KiB working set is not larger than twice the L2",
			               (unsigned long long)(bytes >> 10));
		break;
	case PB_STATE_DRAM:
		bytes = 4 * p->llc_bytes;
		if (bytes < DRAM_MIN_WORKING_SET)
			bytes = DRAM_MIN_WORKING_SET;
		if (bytes < 2 * n * a->slot_bytes)
			bytes = 2 * n * a->slot_bytes;
		break;
	default:
		return pb_fail("a replay cannot run in the %s state (hot, l2, llc, dram only)",
		               pb_cache_state_name(st));
	}
	bytes = round_up(bytes, PB_PAGE_BYTES);
	a->nslots = bytes / a->slot_bytes;
	if (a->nslots == 0)
		return pb_fail("its working set does not hold one call of the distribution");
	uint64_t avail = (uint64_t)sysconf(_SC_AVPHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (bytes * sides > avail / 2)
		return pb_fail("needs %llu MiB of buffers, more than half the %llu MiB of free "
		               "memory",
		               (unsigned long long)(bytes * sides >> 20),
		               (unsigned long long)(avail >> 20));
	a->region_bytes = bytes;
	a->dst = pb_map(bytes, false, false);
	if (!a->dst)
		return -1;
	memset(a->dst, prefill, bytes);
	if (a->copy) {
		a->src = pb_map(bytes, false, false);
		if (!a->src) {
			arena_free(a);
			return -1;
		}
		for (size_t i = 0; i < bytes; i += 8) {
			uint64_t r = pb_rng_next(rng);
			memcpy(a->src + i, &r, 8);
		}
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
		arena_free(a);
		return pb_fail("out of memory");
	}
	for (size_t i = 0; i < a->nslots; i++)
		perm[i] = (uint32_t)i;
	pb_shuffle_u32(perm, a->nslots, rng);
	for (size_t i = 0; i < n; i++) {
		size_t slot = (size_t)perm[i % a->nslots] * a->slot_bytes;
		a->d[i] = a->dst + slot + offs[2 * i];
		a->s[i] = a->copy ? a->src + slot + SRC_PAGE_OFFSET + offs[2 * i + 1] : NULL;
	}
	free(perm);
	size_t used = n < a->nslots ? n : a->nslots;
	a->ws_bytes = (st == PB_STATE_HOT ? need : used * a->slot_bytes) * sides;
	return 0;
}

/* Untimed: puts back what a sample changed. */
static void arena_restore(struct replay_arena *a, const uint32_t *sizes, size_t n, int prefill)
{
	if (a->state == PB_STATE_DRAM) {
		for (size_t i = 0; i < n; i++) {
			pb_fill_uncached(a->d[i], prefill, sizes[i]);
			if (a->copy)
				pb_flush_range(a->s[i], sizes[i]);
		}
		return;
	}
	if (a->state == PB_STATE_HOT) {
		memset(a->dst, prefill, a->slot_bytes);
		return;
	}
	for (size_t i = 0; i < n; i++)
		memset(a->d[i], prefill, sizes[i]);
}

/* One timed sample: `passes` passes over the batch. */
static uint64_t time_passes(const struct pb_kernel *kr, void *const *d, const void *const *s,
                            const uint32_t *sz, size_t n, int value, unsigned passes)
{
	pb_stamp t;
	uint64_t ticks;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				fn(d[i], value, sz[i]);
		ticks = pb_timer_end(t);
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				fn(d[i], s[i], sz[i]);
		ticks = pb_timer_end(t);
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				fn(d[i], s[i], sz[i]);
		ticks = pb_timer_end(t);
	}
	return ticks;
}

struct replay_ct {
	const struct pb_kernel *kernel;
	unsigned passes;
	struct pb_mem_case *c;
	size_t cap;
};

static int summarize(struct pb_mem_case *c)
{
	if (!c->n_samples)
		return 0;
	double *v = malloc(c->n_samples * sizeof *v);
	if (!v)
		return pb_fail("out of memory");
	for (size_t i = 0; i < c->n_samples; i++)
		v[i] = c->batch_ticks[i] / (double)c->batch_calls[i];
	int rc = pb_summarize(v, c->n_samples, 0.95, &c->ticks_per_call);
	if (rc == 0)
		rc = pb_count_outliers_mz(v, c->n_samples, 3.5, &c->outliers);
	free(v);
	return rc;
}

static bool precise_enough(struct replay_ct *cts, size_t nk, double precision)
{
	for (size_t i = 0; i < nk; i++) {
		struct pb_mem_case *c = cts[i].c;
		if (summarize(c) != 0)
			return false;
		const struct pb_summary *s = &c->ticks_per_call;
		if (!s->ci_valid || s->median <= 0 ||
		    (s->ci_hi - s->ci_lo) / 2 > precision * s->median)
			return false;
	}
	return true;
}

/* Calibration, warm-up and the interleaved rounds of one state. */
static int run_state(const struct pb_mem_params *p, struct replay_arena *a, struct replay_ct *cts,
                     const uint32_t *sizes, size_t n, int prefill, uint64_t *rng)
{
	double target = pb_batch_target_ticks(), overhead = pb_timer_info()->overhead_ticks;
	for (size_t i = 0; i < p->n_kernels; i++) {
		/* The least of three single passes (after one discarded). */
		double best = INFINITY;
		for (int rep = 0; rep < 4; rep++) {
			double t =
			    (double)time_passes(cts[i].kernel, a->d, a->s, sizes, n, p->value, 1);
			arena_restore(a, sizes, n, prefill);
			if (rep > 0 && t < best)
				best = t;
		}
		double per = best - overhead;
		unsigned passes = per > 0 ? (unsigned)ceil(target / per) : MAX_PASSES;
		if (passes < 1)
			passes = 1;
		if (passes > MAX_PASSES)
			passes = MAX_PASSES;
		/* dram: a second pass would find the batch's lines cached. */
		cts[i].passes = a->state == PB_STATE_DRAM ? 1 : passes;
	}
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
		size_t taken = warm ? 0 : round - p->warmup_samples;
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
			struct replay_ct *ct = &cts[order[j]];
			int cpu0 = sched_getcpu();
			uint64_t t =
			    time_passes(ct->kernel, a->d, a->s, sizes, n, p->value, ct->passes);
			int cpu1 = sched_getcpu();
			arena_restore(a, sizes, n, prefill);
			if (warm)
				continue;
			if (cpu0 != cpu1) {
				ct->c->migrations++;
				continue;
			}
			double v = (double)t - overhead;
			rc = pb_mem_case_add_sample(ct->c, &ct->cap, v > 0 ? v : 0, 0,
			                            (uint64_t)n * ct->passes);
			if (p->stop && *p->stop)
				break;
		}
	}
	free(order);
	return rc;
}

int pb_mem_replay_run(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                      struct pb_mem_result *r)
{
	memset(r, 0, sizeof *r);
	size_t n = rp->batch_calls;
	if (p->n_kernels == 0 || p->n_states == 0 || n == 0)
		return pb_fail("nothing to measure");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	for (size_t i = 0; i < p->n_kernels; i++)
		if (p->kernels[i]->op != p->op)
			return pb_fail("kernel '%s/%s' is not a %s kernel",
			               pb_op_name(p->kernels[i]->op), p->kernels[i]->name,
			               pb_op_name(p->op));
	bool copy = p->op != PB_OP_MEMSET;
	int prefill = pb_mem_prefill_value(p->op, p->value);
	uint32_t window = rp->offsets == PB_OFFSETS_RANDOM ? PB_REPLAY_WINDOW : 1;
	uint32_t *sizes = malloc(n * sizeof *sizes);
	uint32_t *offs = malloc(2 * n * sizeof *offs);
	void **d = malloc(n * sizeof *d);
	const void **s = malloc(n * sizeof *s);
	r->cases = calloc(p->n_states * p->n_kernels, sizeof *r->cases);
	struct replay_ct *cts = calloc(p->n_kernels, sizeof *cts);
	int rc = 0;
	if (!sizes || !offs || !d || !s || !r->cases || !cts)
		rc = pb_fail("out of memory");
	if (rc == 0)
		rc = pb_distribution_draw(rp->dist, rp->seed, sizes, n, offs, window);
	rp->batch_bytes = 0;
	rp->batch_le_128 = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rp->batch_bytes += sizes[i];
		rp->batch_le_128 += sizes[i] <= 128;
	}
	/* Room for the largest size at the largest offset, the source's
	 * window past SRC_PAGE_OFFSET. */
	size_t need = rp->dist->max_bytes + window - 1;
	if (copy)
		need += SRC_PAGE_OFFSET;
	if (need == 0)
		need = 1;
	uint64_t rng = p->seed ? p->seed : 0x9E3779B97F4A7C15ull;
	for (size_t si = 0; rc == 0 && si < p->n_states; si++) {
		enum pb_cache_state st = p->states[si];
		if (p->stop && *p->stop) {
			r->interrupted = true;
			break;
		}
		struct replay_arena a = {.copy = copy, .d = d, .s = s};
		if (arena_init(&a, p, st, offs, n, need, prefill, &rng) != 0) {
			pb_note_append(r->notes, sizeof r->notes, "%s: skipped: %s",
			               pb_cache_state_name(st), pb_error());
			continue;
		}
		for (size_t ki = 0; ki < p->n_kernels; ki++) {
			struct pb_mem_case *c = &r->cases[r->n_cases++];
			c->op = p->op;
			c->kernel = p->kernels[ki];
			c->state = st;
			c->page_bytes = PB_PAGE_BYTES;
			c->fill_value = copy ? -1 : (p->value & 0xff);
			c->prefill_value = prefill;
			c->placement.src_offset_bytes = copy ? SRC_PAGE_OFFSET : 0;
			c->replay = rp;
			c->working_set_bytes = a.ws_bytes;
			cts[ki] = (struct replay_ct){.kernel = p->kernels[ki], .c = c};
		}
		rc = run_state(p, &a, cts, sizes, n, prefill, &rng);
		for (size_t ki = 0; ki < p->n_kernels && rc == 0; ki++)
			rc = summarize(cts[ki].c);
		arena_free(&a);
		if (p->stop && *p->stop)
			r->interrupted = true;
		if (p->progress)
			p->progress(p->progress_ctx, si + 1, p->n_states);
	}
	free(sizes);
	free(offs);
	free(d);
	free(s);
	free(cts);
	if (rc != 0) {
		pb_mem_result_free(r);
		return -1;
	}
	return 0;
}

/* One timed sample of a policy: `passes` passes, call i by kernel ks[i]. */
static uint64_t time_policy(enum pb_op op, const struct pb_kernel *const *ks, void *const *d,
                            const void *const *s, const uint32_t *sz, size_t n, int value,
                            unsigned passes)
{
	pb_stamp t;
	uint64_t ticks;
	if (op == PB_OP_MEMSET) {
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				ks[i]->memset_fn(d[i], value, sz[i]);
		ticks = pb_timer_end(t);
	} else if (op == PB_OP_MEMCPY) {
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				ks[i]->memcpy_fn(d[i], s[i], sz[i]);
		ticks = pb_timer_end(t);
	} else {
		t = pb_timer_begin();
		for (unsigned r = 0; r < passes; r++)
			for (size_t i = 0; i < n; i++)
				ks[i]->memmove_fn(d[i], s[i], sz[i]);
		ticks = pb_timer_end(t);
	}
	return ticks;
}

int pb_mem_replay_policies(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                           const struct pb_policy *pols, size_t np, struct pb_summary *out)
{
	size_t n = rp->batch_calls;
	if (np == 0 || n == 0)
		return pb_fail("nothing to measure");
	for (size_t j = 0; j < np; j++)
		if (pols[j].op != p->op)
			return pb_fail("a %s policy cannot replay %s calls", pb_op_name(pols[j].op),
			               pb_op_name(p->op));
	bool copy = p->op != PB_OP_MEMSET;
	int prefill = pb_mem_prefill_value(p->op, p->value);
	uint32_t window = rp->offsets == PB_OFFSETS_RANDOM ? PB_REPLAY_WINDOW : 1;
	uint32_t *sizes = malloc(n * sizeof *sizes), *offs = malloc(2 * n * sizeof *offs);
	void **d = malloc(n * sizeof *d);
	const void **s = malloc(n * sizeof *s);
	const struct pb_kernel **ks = malloc(np * n * sizeof *ks);
	unsigned *passes = calloc(np, sizeof *passes);
	double **v = calloc(np, sizeof *v);
	size_t *nv = calloc(np, sizeof *nv);
	uint32_t *order = malloc(np * sizeof *order);
	int rc = 0;
	if (!sizes || !offs || !d || !s || !ks || !passes || !v || !nv || !order)
		rc = pb_fail("out of memory");
	for (size_t j = 0; rc == 0 && j < np; j++)
		if (!(v[j] = malloc((p->max_samples + 1) * sizeof *v[j])))
			rc = pb_fail("out of memory");
	if (rc == 0)
		rc = pb_distribution_draw(rp->dist, rp->seed, sizes, n, offs, window);
	rp->batch_bytes = 0;
	rp->batch_le_128 = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rp->batch_bytes += sizes[i];
		rp->batch_le_128 += sizes[i] <= 128;
	}
	size_t need = rp->dist->max_bytes + window - 1 + (copy ? SRC_PAGE_OFFSET : 0);
	uint64_t rng = p->seed ? p->seed : 0x9E3779B97F4A7C15ull;
	struct replay_arena a = {.copy = copy, .d = d, .s = s};
	bool mapped = false;
	if (rc == 0) {
		rc = arena_init(&a, p, PB_STATE_HOT, offs, n, need ? need : 1, prefill, &rng);
		mapped = rc == 0;
	}
	double overhead = pb_timer_info()->overhead_ticks;
	for (size_t j = 0; rc == 0 && j < np; j++) {
		for (size_t i = 0; i < n; i++)
			ks[j * n + i] = pb_policy_pick(&pols[j], sizes[i]);
		double best = INFINITY;
		for (int rep = 0; rep < 4; rep++) {
			double t =
			    (double)time_policy(p->op, ks + j * n, d, s, sizes, n, p->value, 1);
			arena_restore(&a, sizes, n, prefill);
			if (rep > 0 && t < best)
				best = t;
		}
		double per = best - overhead;
		double want = per > 0 ? ceil(pb_batch_target_ticks() / per) : MAX_PASSES;
		passes[j] = want < 1 ? 1 : want > MAX_PASSES ? MAX_PASSES : (unsigned)want;
		order[j] = (uint32_t)j;
	}
	double start = pb_monotonic_s();
	for (size_t round = 0; rc == 0 && round < p->warmup_samples + p->max_samples; round++) {
		bool warm = round < p->warmup_samples;
		if (!warm && round - p->warmup_samples >= p->min_samples &&
		    pb_monotonic_s() - start >= p->budget_s)
			break;
		if (p->stop && *p->stop)
			break;
		pb_shuffle_u32(order, np, &rng);
		for (size_t k = 0; k < np; k++) {
			size_t j = order[k];
			int cpu0 = sched_getcpu();
			uint64_t t =
			    time_policy(p->op, ks + j * n, d, s, sizes, n, p->value, passes[j]);
			int cpu1 = sched_getcpu();
			arena_restore(&a, sizes, n, prefill);
			if (warm || cpu0 != cpu1)
				continue;
			double tv = (double)t - overhead;
			v[j][nv[j]++] = (tv > 0 ? tv : 0) / ((double)n * passes[j]);
		}
	}
	for (size_t j = 0; rc == 0 && j < np; j++) {
		memset(&out[j], 0, sizeof out[j]);
		if (nv[j] && pb_summarize(v[j], nv[j], 0.95, &out[j]) != 0)
			rc = -1;
	}
	if (mapped)
		arena_free(&a);
	for (size_t j = 0; v && j < np; j++)
		free(v[j]);
	free(v);
	free(nv);
	free(order);
	free(passes);
	free(ks);
	free(sizes);
	free(offs);
	free(d);
	free(s);
	return rc;
}
