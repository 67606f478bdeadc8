/* test_tune.c - the tune suite (include/primbench/tune.h): the
 * candidates, an op's runs (their sizes, replicates, the hooks in order,
 * the combined run, the merged policy), a stop, and --distribution's
 * candidates. Tiny budgets and a small LLC (the dram state's working set):
 * what is checked is the plumbing, never a speed. Only kernels every
 * architecture has (libc, gpr_unrolled). (The rules: test_tune_rules.c.) */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "primbench/cpu.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/timer.h"
#include "primbench/tune.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

/* pb_tune_candidates: tune_candidate rows only (not auto, not the
 * demonstration kernels), usable, at most cap. */
static void test_candidates(void **state)
{
	(void)state;
	const struct pb_kernel *ks[64];
	size_t n = pb_tune_candidates(PB_OP_MEMSET, ks, 64);
	bool libc = false, gpr = false;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ks[i]->op, PB_OP_MEMSET);
		assert_true(ks[i]->tune_candidate);
		assert_true(pb_kernel_usable(ks[i], pb_cpu_features(), NULL, 0));
		assert_string_not_equal(ks[i]->name, "auto");
		assert_string_not_equal(ks[i]->name, "bytes");
		assert_string_not_equal(ks[i]->name, "rbw");
		libc |= !strcmp(ks[i]->name, "libc");
		gpr |= !strcmp(ks[i]->name, "gpr_unrolled");
	}
	assert_true(libc && gpr);
	assert_int_equal(pb_tune_candidates(PB_OP_MEMSET, ks, 1), 1);
}

/* What the hooks saw. */
struct seen {
	size_t starts, ends, progress, runs;
	char first_label[160];
	bool order_ok; /* hot, dram, then the combined run */
};

static void on_start(void *ctx, const char *label)
{
	struct seen *s = ctx;
	if (!s->starts++)
		snprintf(s->first_label, sizeof s->first_label, "%s", label);
}

static void on_progress(void *ctx, size_t done, size_t total)
{
	struct seen *s = ctx;
	assert_true(done <= total);
	s->progress++;
}

static void on_end(void *ctx)
{
	((struct seen *)ctx)->ends++;
}

static void on_run(void *ctx, const struct pb_tune_run *run)
{
	struct seen *s = ctx;
	static const enum pb_cache_state want[3] = {PB_STATE_HOT, PB_STATE_DRAM, PB_STATE_HOT};
	if (s->runs < 3)
		s->order_ok = s->order_ok && run->state == want[s->runs] &&
		              run->combined == (s->runs == 2) && run->have_be;
	s->runs++;
}

static struct pb_cache_info small_caches(void)
{
	struct pb_cache_info c = {.line_bytes = 64};
	c.level[PB_CACHE_L1D].size_bytes = 32 << 10;
	c.level[PB_CACHE_L2].size_bytes = 1 << 20;
	c.level[PB_CACHE_LLC].size_bytes = 1 << 20;
	return c;
}

static const struct pb_kernel *ks[2];

static struct pb_tune_params params(const struct pb_cache_info *caches, volatile sig_atomic_t *stop,
                                    struct seen *seen)
{
	ks[0] = pb_kernel_find(PB_OP_MEMSET, "libc");
	ks[1] = pb_kernel_find(PB_OP_MEMSET, "gpr_unrolled");
	return (struct pb_tune_params){
	    .op = PB_OP_MEMSET,
	    .kernels = ks,
	    .n_kernels = 2,
	    .split_bytes = 256,
	    .max_bytes = 1024,
	    .per_octave = 1,
	    .rule = {.small = 0.10, .large = 0.03, .large_from_bytes = 128, .libc_last = true},
	    .budget_s = 0.002,
	    .replicates = 2,
	    .caches = caches,
	    .seed = 42,
	    .stop = stop,
	    .hooks = {.start = on_start,
	              .progress = on_progress,
	              .end = on_end,
	              .run_done = on_run,
	              .ctx = seen},
	};
}

/* pb_tune_op_run: hot 16..256, dram 128..1024 (the mid sizes in both),
 * two replicates each, the combined run, a merged policy of the
 * candidates; the hooks in order. */
static void test_op_run(void **state)
{
	(void)state;
	struct pb_cache_info caches = small_caches();
	volatile sig_atomic_t stop = 0;
	struct seen seen = {.order_ok = true};
	struct pb_tune_params p = params(&caches, &stop, &seen);
	struct pb_tune_op_result r;
	assert_int_equal(pb_tune_op_run(&p, &r), 0);
	assert_false(r.interrupted);
	const uint64_t hot[] = {16, 32, 64, 128, 256}, dram[] = {128, 256, 512, 1024};
	assert_int_equal(r.hot.n_sizes, 5);
	assert_memory_equal(r.hot.sizes_bytes, hot, sizeof hot);
	assert_int_equal(r.dram.n_sizes, 4);
	assert_memory_equal(r.dram.sizes_bytes, dram, sizeof dram);
	assert_true(r.hot.have_result && r.hot.have_be);
	assert_true(r.dram.have_result && r.dram.have_be);
	for (size_t i = 0; i < r.hot.result.n_cases; i++) {
		const struct pb_mem_case *c = &r.hot.result.cases[i];
		assert_int_equal(c->state, PB_STATE_HOT);
		assert_int_equal(c->n_replicates, 2);
	}
	assert_true(r.have_both);
	assert_true(r.both.combined);
	assert_false(r.both.have_result);
	/* every band a candidate's, the last one open */
	assert_true(r.merged.n_bands >= 1);
	for (size_t b = 0; b < r.merged.n_bands; b++)
		assert_true(r.merged.bands[b].kernel == ks[0] || r.merged.bands[b].kernel == ks[1]);
	assert_true(r.merged.bands[r.merged.n_bands - 1].max_bytes == UINT64_MAX);
	/* 2 runs x 2 replicates; then hot, dram, combined */
	assert_int_equal(seen.starts, 4);
	assert_int_equal(seen.ends, 4);
	assert_true(seen.progress >= 4);
	assert_string_equal(seen.first_label, "tune: memset hot, replicate 1 of 2");
	assert_int_equal(seen.runs, 3);
	assert_true(seen.order_ok);

	/* --distribution: the policy and each candidate on one batch */
	struct pb_distribution dist;
	assert_int_equal(pb_distribution_find("MemsetGoogleW", &dist), 0);
	struct pb_tune_distribution d;
	assert_int_equal(
	    pb_tune_distribution_run(&r.merged, ks, 2, &dist, 0.001, &caches, 42, &stop, &d), 0);
	assert_int_equal(d.n, 3);
	assert_true(pb_policy_equal(&d.cands[0], &r.merged));
	assert_ptr_equal(pb_policy_pick(&d.cands[2], 1), ks[1]); /* gpr_unrolled serves D */
	assert_int_equal(d.batch_calls, 4096);
	assert_true(d.pick < 3);
	assert_false(d.interrupted);
	pb_tune_distribution_free(&d);
	pb_distribution_free(&dist);
	pb_tune_op_free(&r);
}

/* A stop before the first sample: interrupted, no merged policy, no
 * run_done. */
static void test_op_stopped(void **state)
{
	(void)state;
	struct pb_cache_info caches = small_caches();
	volatile sig_atomic_t stop = 1;
	struct seen seen = {.order_ok = true};
	struct pb_tune_params p = params(&caches, &stop, &seen);
	struct pb_tune_op_result r;
	assert_int_equal(pb_tune_op_run(&p, &r), 0);
	assert_true(r.interrupted);
	assert_int_equal(seen.runs, 0);
	pb_tune_op_free(&r);
	/* a run that cannot be measured (no kernels): pb_mem_run's error */
	stop = 0;
	p.n_kernels = 0;
	assert_int_equal(pb_tune_op_run(&p, &r), -1);
	assert_true(strlen(pb_error()) > 0);
	pb_tune_op_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_candidates),
	    cmocka_unit_test(test_op_run),
	    cmocka_unit_test(test_op_stopped),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
