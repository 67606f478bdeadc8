/* replay.c - replaying a call-size distribution (pb_mem_replay_run in
 * include/primbench/mem.h).
 *
 * Everything random is drawn before the first timed call: the sizes, the
 * offsets and the slot of every call sit in arrays, so a timed pass is a
 * loop over pointers and sizes. Branch predictors see a sequence of
 * batch_calls random sizes, repeated `passes` times in a sample: a sequence
 * of thousands of calls is far longer than a predictor's history. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/mem.h"
#include "primbench/memory.h"
#include "primbench/policy.h"
#include "primbench/replicates.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"
#include "suites/cache_states.h"
#include "suites/sampling.h"

#define MAX_PASSES 256

/* One timed sample: `passes` passes over the batch. */
static uint64_t time_passes(const struct pb_kernel *kr, void *const *d, const void *const *s,
                            const uint32_t *sz, size_t n, int value, unsigned passes)
{
	uint64_t ticks;
	/* The timed loop, written once: `call` is made for each i of each pass
	 * with the kernel's function in a local (loaded once, before the clock). */
#define TIME_PASSES(call)                                                                          \
	do {                                                                                       \
		pb_stamp t = pb_timer_begin();                                                     \
		for (unsigned r = 0; r < passes; r++)                                              \
			for (size_t i = 0; i < n; i++)                                             \
				call;                                                              \
		ticks = pb_timer_end(t);                                                           \
	} while (0)
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		TIME_PASSES(fn(d[i], value, sz[i]));
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		TIME_PASSES(fn(d[i], s[i], sz[i]));
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		TIME_PASSES(fn(d[i], s[i], sz[i]));
	}
#undef TIME_PASSES
	return ticks;
}

/* The harness's context (include/primbench/harness.h): one state's
 * arena and the drawn batch; kernels, or with policies one kernel per call
 * and policy (ks[j * n + i]). */
struct replay_group {
	const struct pb_mem_params *p;
	struct pb_replay_arena *a;
	const uint32_t *sizes;
	size_t n;
	int prefill;
	const struct pb_kernel *const *ks; /* policies only */
};

/* The batch callback: k passes over the batch by kernel i. */
static int replay_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                        struct pb_harness_batch *out)
{
	const struct replay_group *g = ctx;
	(void)thread;
	(void)phase;
	out->ticks = (double)time_passes(g->p->kernels[i], g->a->d, g->a->s, g->sizes, g->n,
	                                 g->p->value, (unsigned)k);
	return 0;
}

/* Untimed, after every batch: puts back what it changed. */
static void replay_after(void *ctx, size_t i, size_t k)
{
	const struct replay_group *g = ctx;
	(void)i;
	(void)k;
	pb_replay_arena_restore(g->a, g->sizes, g->n, g->prefill);
}

/* The harness's parameters for a replay: k is the passes over the batch
 * (at most MAX_PASSES; dram 1: a second pass would find the batch's lines
 * cached), each pass n calls; rounds cut only after a kept sample. */
static struct pb_harness_params replay_harness(const struct pb_mem_params *p,
                                               struct replay_group *g,
                                               struct pb_harness_contender *hc, size_t nc,
                                               uint64_t *rng)
{
	for (size_t i = 0; i < nc; i++)
		hc[i] = (struct pb_harness_contender){
		    .max_k = g->a->state == PB_STATE_DRAM ? 1 : MAX_PASSES};
	struct pb_harness_params hp = {
	    .n_contenders = nc,
	    .contenders = hc,
	    .time_batch = replay_batch,
	    .after_batch = replay_after,
	    .ctx = g,
	    .calls_per_k = g->n,
	    .stop_check = PB_HARNESS_STOP_AFTER_KEPT,
	};
	pb_mem_harness_sampling(&hp, p, rng);
	return hp;
}

/* Calibration, warm-up and the interleaved rounds of one state, on the
 * harness; the samples and summaries go into cases[0..n_kernels). */
static int run_state(const struct pb_mem_params *p, struct replay_group *g,
                     struct pb_mem_case *cases, uint64_t *rng)
{
	struct pb_harness_contender *hc = calloc(p->n_kernels, sizeof *hc);
	if (!hc)
		return pb_fail("out of memory");
	struct pb_harness_params hp = replay_harness(p, g, hc, p->n_kernels, rng);
	struct pb_harness_result hr;
	int rc = pb_harness_run(&hp, &hr);
	free(hc);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < p->n_kernels; i++)
		pb_mem_case_take(&cases[i], &hr.c[i]);
	pb_harness_result_free(&hr);
	return 0;
}

/* Unless rc is already non-zero: draws the batch's n sizes and offsets
 * (offs: 2n) from rp's distribution and seed. Sets rp->batch_bytes and
 * rp->batch_le_128 (0 when nothing was drawn). Returns rc, or the draw's
 * -1 with pb_error(). */
static int draw_batch(struct pb_mem_replay *rp, uint32_t *sizes, uint32_t *offs, size_t n,
                      uint32_t window, int rc)
{
	if (rc == 0)
		rc = pb_distribution_draw(rp->dist, rp->seed, sizes, n, offs, window);
	rp->batch_bytes = 0;
	rp->batch_le_128 = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rp->batch_bytes += sizes[i];
		rp->batch_le_128 += sizes[i] <= 128;
	}
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
	int rc = 0;
	if (!sizes || !offs || !d || !s || !r->cases)
		rc = pb_fail("out of memory");
	rc = draw_batch(rp, sizes, offs, n, window, rc);
	/* Room for the largest size at the largest offset, the source's
	 * window past PB_REPLAY_SRC_PAGE_OFFSET. */
	size_t need = rp->dist->max_bytes + window - 1;
	if (copy)
		need += PB_REPLAY_SRC_PAGE_OFFSET;
	if (need == 0)
		need = 1;
	uint64_t rng = pb_seed_or_default(p->seed);
	for (size_t si = 0; rc == 0 && si < p->n_states; si++) {
		enum pb_cache_state st = p->states[si];
		if (p->stop && *p->stop) {
			r->interrupted = true;
			break;
		}
		struct pb_replay_arena a = {.copy = copy, .d = d, .s = s};
		if (pb_replay_arena_init(&a, p, st, offs, n, need, prefill, &rng) != 0) {
			pb_note_append(r->notes, sizeof r->notes, "%s: skipped: %s",
			               pb_cache_state_name(st), pb_error());
			continue;
		}
		struct pb_mem_case *cases = &r->cases[r->n_cases];
		for (size_t ki = 0; ki < p->n_kernels; ki++) {
			struct pb_mem_case *c = &r->cases[r->n_cases++];
			c->op = p->op;
			c->kernel = p->kernels[ki];
			c->state = st;
			c->page_bytes = PB_PAGE_BYTES;
			c->fill_value = copy ? -1 : (p->value & 0xff);
			c->prefill_value = prefill;
			c->placement.src_offset_bytes = copy ? PB_REPLAY_SRC_PAGE_OFFSET : 0;
			c->replay = rp;
			c->working_set_bytes = a.ws_bytes;
		}
		struct replay_group g = {
		    .p = p, .a = &a, .sizes = sizes, .n = n, .prefill = prefill};
		rc = run_state(p, &g, cases, &rng);
		pb_replay_arena_free(&a);
		if (p->stop && *p->stop)
			r->interrupted = true;
		if (p->progress)
			p->progress(p->progress_ctx, si + 1, p->n_states);
	}
	free(sizes);
	free(offs);
	free(d);
	free(s);
	return pb_mem_result_end(r, rc);
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

/* The batch callback of a policy: k passes, call c by kernel ks[i * n + c]. */
static int policy_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                        struct pb_harness_batch *out)
{
	const struct replay_group *g = ctx;
	(void)thread;
	(void)phase;
	out->ticks = (double)time_policy(g->p->op, g->ks + i * g->n, g->a->d, g->a->s, g->sizes,
	                                 g->n, g->p->value, (unsigned)k);
	return 0;
}

/* Policy j's per-call values (batch ticks / calls) over policy 0's. */
static int ratio_vs_first(const struct pb_harness_result *hr, size_t j, struct pb_shift *out)
{
	const struct pb_harness_samples *x = &hr->c[0], *y = &hr->c[j];
	double *vx = malloc((x->n_samples + 1) * sizeof *vx),
	       *vy = malloc((y->n_samples + 1) * sizeof *vy);
	if (!vx || !vy) {
		free(vx);
		free(vy);
		return pb_fail("out of memory");
	}
	for (size_t i = 0; i < x->n_samples; i++)
		vx[i] = x->calls[i] ? x->ticks[i] / (double)x->calls[i] : 0;
	for (size_t i = 0; i < y->n_samples; i++)
		vy[i] = y->calls[i] ? y->ticks[i] / (double)y->calls[i] : 0;
	int rc =
	    pb_contender_ratio(vx, x->n_samples, NULL, 0, vy, y->n_samples, NULL, 0, 0.95, out);
	free(vx);
	free(vy);
	return rc;
}

int pb_mem_replay_policies(const struct pb_mem_params *p, struct pb_mem_replay *rp,
                           const struct pb_policy *pols, size_t np, struct pb_summary *out,
                           struct pb_shift *vs_first)
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
	struct pb_harness_contender *hc = calloc(np, sizeof *hc);
	int rc = 0;
	if (!sizes || !offs || !d || !s || !ks || !hc)
		rc = pb_fail("out of memory");
	rc = draw_batch(rp, sizes, offs, n, window, rc);
	size_t need = rp->dist->max_bytes + window - 1 + (copy ? PB_REPLAY_SRC_PAGE_OFFSET : 0);
	uint64_t rng = pb_seed_or_default(p->seed);
	struct pb_replay_arena a = {.copy = copy, .d = d, .s = s};
	bool mapped = false;
	if (rc == 0) {
		rc = pb_replay_arena_init(&a, p, PB_STATE_HOT, offs, n, need ? need : 1, prefill,
		                          &rng);
		mapped = rc == 0;
	}
	for (size_t j = 0; rc == 0 && j < np; j++)
		for (size_t i = 0; i < n; i++)
			ks[j * n + i] = pb_policy_pick(&pols[j], sizes[i]);
	if (rc == 0) {
		/* No precision stop, and rounds are never cut: as before the
		 * harness; migrated samples are dropped (not reported). */
		struct replay_group g = {
		    .p = p, .a = &a, .sizes = sizes, .n = n, .prefill = prefill, .ks = ks};
		struct pb_harness_params hp = replay_harness(p, &g, hc, np, &rng);
		hp.time_batch = policy_batch;
		hp.precision = 0;
		hp.stop_check = PB_HARNESS_STOP_ROUND_START;
		struct pb_harness_result hr;
		rc = pb_harness_run(&hp, &hr);
		if (rc == 0) {
			for (size_t j = 0; rc == 0 && j < np; j++) {
				out[j] = hr.c[j].per_call;
				if (vs_first)
					rc = ratio_vs_first(&hr, j, &vs_first[j]);
			}
			pb_harness_result_free(&hr);
		}
	}
	if (mapped)
		pb_replay_arena_free(&a);
	free(hc);
	free(ks);
	free(sizes);
	free(offs);
	free(d);
	free(s);
	return rc;
}
