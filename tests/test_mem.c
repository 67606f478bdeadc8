/* test_mem.c - invariants of the mem suite and of its result documents
 * (never speed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#define assert_near(a, b)                                                                          \
	assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * (1 + fabs((double)(b))))

#include "primbench/compare.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/mem.h"
#include "primbench/memory.h"
#include "primbench/pages.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/timer.h"
#include "suites/readback.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

static const struct pb_mem_placement default_placement = {.src_offset_bytes = 2048};

static struct pb_mem_params params(const struct pb_kernel **ks, size_t nk, const uint64_t *sizes,
                                   size_t ns, const enum pb_cache_state *st, size_t nst)
{
	struct pb_mem_params p = {
	    .op = ks[0]->op,
	    .kernels = ks,
	    .n_kernels = nk,
	    .sizes_bytes = sizes,
	    .n_sizes = ns,
	    .states = st,
	    .n_states = nst,
	    .placements = &default_placement,
	    .n_placements = 1,
	    .budget_s = 0.001,
	    .min_samples = 6,
	    .max_samples = 8,
	    .l1_bytes = 32 << 10,
	    .l2_bytes = 1 << 20,
	    .llc_bytes = 8 << 20,
	    .seed = 42,
	};
	return p;
}

/* pb_mem_params_make: every default, and nothing else set. */
static void test_params_make_defaults(void **state)
{
	(void)state;
	struct pb_cache_info caches = {0};
	caches.level[PB_CACHE_L1D].size_bytes = 48 << 10;
	caches.level[PB_CACHE_L2].size_bytes = 2 << 20;
	caches.level[PB_CACHE_LLC].size_bytes = 32 << 20;
	volatile sig_atomic_t stop = 0;
	struct pb_mem_params p = pb_mem_params_make(PB_OP_MEMCPY, &caches, 0.25, 77, &stop);
	assert_int_equal(p.op, PB_OP_MEMCPY);
	assert_near(p.budget_s, 0.25);
	assert_int_equal(p.seed, 77);
	assert_ptr_equal(p.stop, &stop);
	assert_int_equal(p.min_samples, PB_MEM_MIN_SAMPLES_DEFAULT);
	assert_int_equal(p.max_samples, PB_MEM_MAX_SAMPLES_DEFAULT);
	assert_int_equal(p.warmup_samples, PB_MEM_WARMUP_SAMPLES_DEFAULT);
	assert_int_equal(PB_MEM_MIN_SAMPLES_DEFAULT, 11);
	assert_int_equal(PB_MEM_MAX_SAMPLES_DEFAULT, 201);
	assert_int_equal(PB_MEM_WARMUP_SAMPLES_DEFAULT, 1);
	assert_int_equal(p.l1_bytes, 48 << 10);
	assert_int_equal(p.l2_bytes, 2 << 20);
	assert_int_equal(p.llc_bytes, 32 << 20);
	/* one placement: dst page-aligned, src 2048 bytes past */
	assert_int_equal(p.n_placements, 1);
	assert_non_null(p.placements);
	assert_int_equal(p.placements[0].dst_offset_bytes, 0);
	assert_int_equal(p.placements[0].src_offset_bytes, 2048);
	assert_false(p.placements[0].has_distance);
	/* the rest is zero: one thread, 4K pages, no extras */
	assert_null(p.kernels);
	assert_int_equal(p.n_kernels, 0);
	assert_null(p.sizes_bytes);
	assert_int_equal(p.n_sizes, 0);
	assert_null(p.states);
	assert_int_equal(p.n_states, 0);
	assert_int_equal(p.extent_bytes, 0);
	assert_false(p.then_read);
	assert_int_equal(p.value, 0);
	assert_near(p.precision, 0);
	assert_null(p.counters);
	assert_null(p.progress);
	assert_int_equal(p.threads, 0);
	assert_int_equal(p.n_thread_counts, 0);
	assert_null(p.cpus);
	assert_null(p.pin);
	assert_null(p.thread_placement);
	assert_int_equal(p.mem_node, PB_MEM_NODE_LOCAL);
	assert_null(p.bind_memory);
	assert_int_equal(p.n_page_sizes, 0);
	assert_null(p.page_sizes);
	/* usable as it is once kernels, sizes and states are set */
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	assert_non_null(ks[0]);
	uint64_t sizes[] = {64};
	enum pb_cache_state hot = PB_STATE_HOT;
	p.kernels = ks;
	p.n_kernels = 1;
	p.sizes_bytes = sizes;
	p.n_sizes = 1;
	p.states = &hot;
	p.n_states = 1;
	p.budget_s = 0.001;
	p.min_samples = 2;
	p.max_samples = 3;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 1);
	assert_true(r.cases[0].n_samples >= 2);
	pb_mem_result_free(&r);
}

/* pb_mem_replicate_params: the seed, budget and most samples of each. */
static void test_replicate_params(void **state)
{
	(void)state;
	struct pb_mem_params p = {
	    .seed = 42, .budget_s = 0.6, .min_samples = 11, .max_samples = 201};
	for (size_t rep = 0; rep < 3; rep++) {
		struct pb_mem_params q = pb_mem_replicate_params(&p, rep, 3);
		assert_int_equal(q.seed, 42 + rep * 0x9E3779B97F4A7C15ull);
		assert_near(q.budget_s, 0.2);
		assert_int_equal(q.max_samples, 67); /* 201 / 3 */
		assert_int_equal(q.min_samples, 11);
	}
	/* the seed wraps modulo 2^64 */
	p.seed = UINT64_MAX;
	assert_int_equal(pb_mem_replicate_params(&p, 1, 2).seed,
	                 UINT64_MAX + 0x9E3779B97F4A7C15ull);
	/* never below min_samples; one replicate keeps p's */
	assert_int_equal(pb_mem_replicate_params(&p, 0, 30).max_samples, 11);
	struct pb_mem_params one = pb_mem_replicate_params(&p, 0, 1);
	assert_int_equal(one.seed, p.seed);
	assert_near(one.budget_s, p.budget_s);
	assert_int_equal(one.max_samples, 201);
}

/* What pb_mem_run_replicates' start callback saw. */
struct seen {
	size_t starts, ends;
	uint64_t seeds[4];
	size_t max_samples[4];
	char labels[4][64];
	/* the label as start got it, read again by every progress update
	 * of the run (the cli's progress line keeps the pointer) */
	const char *kept;
	size_t progress_calls, label_gone;
};

static void seen_progress(void *ctx, size_t done, size_t total)
{
	(void)done;
	(void)total;
	struct seen *s = ctx;
	s->progress_calls++;
	if (!s->kept || strncmp(s->kept, "memcpy, replicate ", 18) != 0)
		s->label_gone++;
}

static void seen_start(void *ctx, const char *label, const struct pb_mem_params *p)
{
	struct seen *s = ctx;
	if (s->starts < 4) {
		s->seeds[s->starts] = p->seed;
		s->max_samples[s->starts] = p->max_samples;
		snprintf(s->labels[s->starts], sizeof s->labels[0], "%s", label);
	}
	s->kept = label;
	s->starts++;
}

static void seen_end(void *ctx)
{
	((struct seen *)ctx)->ends++;
}

/* pb_mem_run_replicates on libc with a tiny budget: R replicates, each
 * with its seed and label, joined into run-level cases. */
static void test_run_replicates(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	assert_non_null(ks[0]);
	uint64_t sizes[] = {64, 256};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 1);
	p.min_samples = 2;
	p.max_samples = 9;
	struct seen seen = {0};
	p.progress = seen_progress;
	p.progress_ctx = &seen;
	struct pb_mem_replicates rs = {
	    .n = 3, .label = "memcpy", .start = seen_start, .end = seen_end, .ctx = &seen};
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run_replicates(&p, &rs, &r), 0);
	assert_true(seen.progress_calls >= 3);
	assert_int_equal(seen.label_gone, 0);
	assert_int_equal(seen.starts, 3);
	assert_int_equal(seen.ends, 3);
	for (size_t rep = 0; rep < 3; rep++) {
		assert_int_equal(seen.seeds[rep], 42 + rep * 0x9E3779B97F4A7C15ull);
		assert_int_equal(seen.max_samples[rep], 3);
		char want[64];
		snprintf(want, sizeof want, "memcpy, replicate %zu of 3", rep + 1);
		assert_string_equal(seen.labels[rep], want);
	}
	assert_false(r.interrupted);
	assert_int_equal(r.n_cases, 2);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_mem_case *c = &r.cases[i];
		assert_int_equal(c->n_replicates, 3);
		size_t sum = 0;
		for (size_t k = 0; k < c->n_replicates; k++) {
			assert_in_range(c->replicate_samples[k], 2, 3);
			sum += c->replicate_samples[k];
		}
		assert_int_equal(sum, c->n_samples);
		assert_int_equal(c->ticks_per_call.replicates, 3);
	}
	pb_mem_result_free(&r);

	/* one replicate (n 0 is one): the label alone, p's own sampling */
	memset(&seen, 0, sizeof seen);
	rs.n = 0;
	assert_int_equal(pb_mem_run_replicates(&p, &rs, &r), 0);
	assert_int_equal(seen.starts, 1);
	assert_string_equal(seen.labels[0], "memcpy");
	assert_int_equal(seen.seeds[0], 42);
	assert_int_equal(seen.max_samples[0], 9);
	assert_true(r.cases[0].n_replicates <= 1);
	pb_mem_result_free(&r);

	/* a bad plan: -1, the result empty, end still called */
	memset(&seen, 0, sizeof seen);
	rs.n = 2;
	p.n_kernels = 0;
	assert_int_equal(pb_mem_run_replicates(&p, &rs, &r), -1);
	assert_int_equal(seen.ends, 1);
	assert_int_equal(r.n_cases, 0);
	assert_null(r.cases);
}

/* A stop flag set during the first replicate: no second one. */
static void stop_at_start(void *ctx, const char *label, const struct pb_mem_params *p)
{
	(void)label;
	(void)ctx;
	*p->stop = 1;
}

static void test_run_replicates_stop(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	assert_non_null(ks[0]);
	uint64_t sizes[] = {64};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	volatile sig_atomic_t stop = 0;
	p.stop = &stop;
	struct pb_mem_replicates rs = {.n = 4, .start = stop_at_start};
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run_replicates(&p, &rs, &r), 0);
	assert_true(r.interrupted);
	for (size_t i = 0; i < r.n_cases; i++)
		assert_true(r.cases[i].n_replicates <= 1);
	pb_mem_result_free(&r);
}

static void test_cases_and_samples(void **state)
{
	(void)state;
	const struct pb_kernel *ks[2] = {pb_kernel_find(PB_OP_MEMCPY, "libc"),
	                                 pb_kernel_find(PB_OP_MEMCPY, "bytes")};
	assert_non_null(ks[0]);
	assert_non_null(ks[1]);
	uint64_t sizes[] = {1, 64, 5000};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 2, sizes, 3, st, 2);
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2 * 3 * 2);
	assert_false(r.interrupted);
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_true(c->n_samples + c->migrations >= 6 && c->n_samples <= 8);
		assert_int_equal(c->ticks_per_call.n, c->n_samples);
		assert_true(c->ticks_per_call.min <= c->ticks_per_call.median);
		assert_true(c->ticks_per_call.median <= c->ticks_per_call.max);
		/* a sample lost to a migration (an emulator moves threads) can
		 * leave fewer than the 6 a median's interval needs */
		assert_true(c->ticks_per_call.ci_valid || c->n_samples < 6);
		if (c->ticks_per_call.ci_valid) {
			assert_true(c->ticks_per_call.ci_lo <= c->ticks_per_call.median);
			assert_true(c->ticks_per_call.median <= c->ticks_per_call.ci_hi);
		}
		assert_int_equal(c->extent_bytes, 0);
		assert_int_equal(c->fill_value, -1);
		for (size_t j = 0; j < c->n_samples; j++)
			assert_true(c->batch_calls[j] >= 1);
		if (c->state == PB_STATE_DRAM)
			assert_true(c->working_set_bytes >= 2 * (256ull << 20));
	}
	/* Cases come grouped by state, then size, then kernel. */
	assert_int_equal(r.cases[0].state, PB_STATE_HOT);
	assert_int_equal(r.cases[0].size_bytes, 1);
	assert_ptr_equal(r.cases[1].kernel, ks[1]);
	assert_int_equal(r.cases[6].state, PB_STATE_DRAM);
	pb_mem_result_free(&r);
}

static void test_memset_prefill_differs(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	for (int v = 0; v < 256; v += 85) {
		struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
		p.value = v;
		struct pb_mem_result r;
		assert_int_equal(pb_mem_run(&p, &r), 0);
		assert_int_equal(r.cases[0].fill_value, v);
		assert_int_not_equal(r.cases[0].prefill_value, v);
		pb_mem_result_free(&r);
	}
}

static void test_stop_flag_interrupts(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {64, 128};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	volatile sig_atomic_t stop = 1;
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 1);
	p.stop = &stop;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_true(r.interrupted);
	assert_true(r.n_cases <= 1);
	pb_mem_result_free(&r);
}

/* Every cache state yields cases with samples; fault-thp records what
 * /proc/self/smaps saw (0 allowed: THP may be off on the machine). */
static void test_all_states(void **state)
{
	(void)state;
	const struct pb_kernel *ks[2] = {pb_kernel_find(PB_OP_MEMSET, "libc"),
	                                 pb_kernel_find(PB_OP_MEMSET, "bytes")};
	uint64_t sizes[] = {64, 4096};
	enum pb_cache_state st[] = {PB_STATE_HOT,  PB_STATE_L2,    PB_STATE_LLC,
	                            PB_STATE_DRAM, PB_STATE_FAULT, PB_STATE_FAULT_THP};
	struct pb_mem_params p = params(ks, 2, sizes, 2, st, 6);
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 6 * 2 * 2);
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_true(c->n_samples + c->migrations >= 6);
		assert_int_equal(c->page_bytes, c->state == PB_STATE_FAULT_THP ? 2u << 20 : 4096u);
		if (c->state == PB_STATE_L2)
			assert_int_equal(c->working_set_bytes, 512 << 10);
		if (c->state == PB_STATE_LLC)
			assert_int_equal(c->working_set_bytes, 4 << 20);
	}
	pb_mem_result_free(&r);
}

/* --pages as a case axis: every (state, size, kernel) case once per page
 * size, 4K and 2M (THP: whether the kernel gave huge pages does not
 * matter here), the page size in the case; fault-thp once, at 2M, whatever
 * the list. */
static void test_pages_axis(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_FAULT, PB_STATE_FAULT_THP};
	size_t pages[] = {PB_PAGE_4K, PB_PAGE_2M};
	enum pb_page_source src[] = {PB_PAGES_BASE, PB_PAGES_THP};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 3);
	p.page_sizes = pages;
	p.page_sources = src;
	p.n_page_sizes = 2;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2 + 2 + 1);
	size_t seen[3][2] = {{0}};
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_true(c->n_samples + c->migrations >= 6);
		assert_true(c->page_bytes == PB_PAGE_4K || c->page_bytes == PB_PAGE_2M);
		seen[c->state == PB_STATE_HOT     ? 0
		     : c->state == PB_STATE_FAULT ? 1
		                                  : 2][c->page_bytes == PB_PAGE_2M]++;
	}
	assert_int_equal(seen[0][0], 1);
	assert_int_equal(seen[0][1], 1);
	assert_int_equal(seen[1][0], 1);
	assert_int_equal(seen[1][1], 1);
	assert_int_equal(seen[2][0], 0);
	assert_int_equal(seen[2][1], 1);
	pb_mem_result_free(&r);
}

/* The available path where this machine happens to have hugetlbfs pages
 * reserved (tests never reserve them): a hot case in those pages. */
static void test_pages_hugetlb_when_reserved(void **state)
{
	(void)state;
	size_t sizes_try[] = {PB_PAGE_2M, PB_PAGE_1G};
	for (size_t i = 0; i < 2; i++) {
		struct pb_pages_avail av;
		assert_int_equal(pb_pages_probe(sizes_try[i], &av), 0);
		if (av.source != PB_PAGES_HUGETLB || av.free_pages < 4)
			continue;
		const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
		uint64_t sizes[] = {4096};
		enum pb_cache_state st[] = {PB_STATE_HOT};
		struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
		p.page_sizes = &sizes_try[i];
		p.page_sources = &av.source;
		p.n_page_sizes = 1;
		struct pb_mem_result r;
		assert_int_equal(pb_mem_run(&p, &r), 0);
		assert_int_equal(r.n_cases, 1);
		assert_int_equal(r.cases[0].page_bytes, sizes_try[i]);
		pb_mem_result_free(&r);
	}
}

/* A memset kernel that records what every call saw: which destinations,
 * and how many calls found bytes other than the fill value there (a
 * refill, or the arena's first contents). */
#define SPY_MAX_PTRS 8
static struct {
	void *ptrs[SPY_MAX_PTRS];
	size_t n_ptrs, calls, saw_other;
} spy;

static void *spy_memset(void *d, int c, size_t n)
{
	bool known = false;
	for (size_t i = 0; i < spy.n_ptrs; i++)
		known |= spy.ptrs[i] == d;
	if (!known && spy.n_ptrs < SPY_MAX_PTRS)
		spy.ptrs[spy.n_ptrs++] = d;
	spy.calls++;
	const unsigned char *b = d;
	if (n && (b[0] != (unsigned char)c || b[n - 1] != (unsigned char)c))
		spy.saw_other++;
	return memset(d, c, n);
}

static const struct pb_kernel spy_kernel = {
    .op = PB_OP_MEMSET, .name = "spy", .memset_fn = spy_memset, .description = "test"};

/* repeat: one destination for every call, never refilled, so after the
 * first call every call writes over its own value; hot: two destinations,
 * refilled with prefill_value after every batch. */
static void test_repeat_state(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {&spy_kernel};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_REPEAT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	p.value = 0x3c;
	struct pb_mem_result r;
	memset(&spy, 0, sizeof spy);
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 1);
	assert_true(r.cases[0].n_samples + r.cases[0].migrations >= 6);
	assert_true(spy.calls > 6);
	assert_int_equal(spy.n_ptrs, 1);
	assert_int_equal(spy.saw_other, 1); /* the arena's first contents only */
	assert_int_equal(r.cases[0].prefill_value, 0x3c);
	assert_int_equal(r.cases[0].working_set_bytes, 4096);
	pb_mem_result_free(&r);

	st[0] = PB_STATE_HOT;
	memset(&spy, 0, sizeof spy);
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(spy.n_ptrs, 2);
	assert_true(spy.saw_other > 6); /* every sample starts refilled */
	assert_int_equal(r.cases[0].prefill_value, 0x3c ^ 0xA5);
	pb_mem_result_free(&r);

	/* memcpy: one source and one destination; the destination held the
	 * previous copy (-1); an extent works there too. */
	const struct pb_kernel *mk[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	st[0] = PB_STATE_REPEAT;
	p = params(mk, 1, sizes, 1, st, 1);
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.cases[0].prefill_value, -1);
	/* one slot per side: 4 KiB from a source offset of 2048 spans 2 pages */
	assert_int_equal(r.cases[0].working_set_bytes, 2 * 8192);
	pb_mem_result_free(&r);
	p.extent_bytes = 4 * 4096;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 1);
	assert_true(r.cases[0].n_samples > 0);
	assert_int_equal(r.cases[0].batch_calls[0], 4);
	pb_mem_result_free(&r);
}

/* A state whose working set cannot hold two slots of a size skips it. */
static void test_state_too_small_skips(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {64, 1 << 20};
	enum pb_cache_state st[] = {PB_STATE_L2};
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 1);
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 1);
	assert_int_equal(r.cases[0].size_bytes, 64);
	assert_non_null(strstr(r.notes, "l2: size 1048576 skipped"));
	pb_mem_result_free(&r);
}

/* A grid of placements gives one case per placement; distances place the
 * source inside the destination's slot; then-read adds read-back samples. */
static void test_grid_distance_then_read(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_placement pls[] = {
	    {.dst_offset_bytes = 0, .has_distance = true, .distance_bytes = 65536 + 8},
	    {.dst_offset_bytes = 15, .has_distance = true, .distance_bytes = -8192},
	    {.dst_offset_bytes = 63, .src_offset_bytes = 1},
	};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 2);
	p.placements = pls;
	p.n_placements = 3;
	p.then_read = true;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2 * 3);
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_true(c->then_read);
		assert_non_null(c->read_ticks);
		assert_int_equal(c->read_ticks_per_call.n, c->n_samples);
		assert_int_equal(c->placement.dst_offset_bytes, pls[i % 3].dst_offset_bytes);
		assert_int_equal(c->placement.has_distance, pls[i % 3].has_distance);
	}
	pb_mem_result_free(&r);
	/* An overlapping distance is refused. */
	struct pb_mem_placement overlap = {.has_distance = true, .distance_bytes = 8};
	p.placements = &overlap;
	p.n_placements = 1;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "overlaps"));
}

/* Issue 16, defect 17: distances beyond 4 GiB (aliasing at 4 GiB x N + d)
 * in the hot state map two windows that far apart, not the distance;
 * other states are refused with one line; the address space bounds it. */
static void test_far_distance(void **state)
{
	(void)state;
	void *a, *b;
	int64_t off = (int64_t)1 << 45;
	assert_int_equal(pb_map_pair(8192, off, 4096, &a, &b), 0);
	assert_true((uintptr_t)b - (uintptr_t)a == (uintptr_t)off);
	((volatile char *)a)[8191] = 1;
	((volatile char *)b)[0] = 2;
	pb_unmap(a, 8192);
	pb_unmap(b, 4096);
	assert_int_equal(pb_map_pair(8192, -off, 4096, &a, &b), 0);
	assert_true((uintptr_t)a - (uintptr_t)b == (uintptr_t)off);
	pb_unmap(a, 8192);
	pb_unmap(b, 4096);
	assert_int_equal(pb_map_pair(8192, 4096, 4096, &a, &b), -1); /* overlap */
	assert_true(pb_user_address_bits() >= 47);

	const struct pb_kernel *ks[2] = {pb_kernel_find(PB_OP_MEMCPY, "bytes"),
	                                 pb_kernel_find(PB_OP_MEMMOVE, "bytes")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state hot = PB_STATE_HOT;
	struct pb_mem_placement pls[] = {
	    {.dst_offset_bytes = 0, .has_distance = true, .distance_bytes = 4294963201},
	    {.dst_offset_bytes = 7, .has_distance = true, .distance_bytes = (INT64_C(3) << 32) + 9},
	    {.dst_offset_bytes = 0, .has_distance = true, .distance_bytes = -(INT64_C(1) << 44)},
	    {.dst_offset_bytes = 0, .has_distance = true, .distance_bytes = 65536},
	};
	for (int op = 0; op < 2; op++) {
		struct pb_mem_params p = params(&ks[op], 1, sizes, 1, &hot, 1);
		p.placements = pls;
		p.n_placements = 4;
		struct pb_mem_result r;
		assert_int_equal(pb_mem_run(&p, &r), 0);
		assert_int_equal(r.n_cases, 4);
		assert_string_equal(r.notes, "");
		for (size_t i = 0; i < r.n_cases; i++) {
			assert_true(r.cases[i].n_samples + r.cases[i].migrations >= 6);
			assert_true(r.cases[i].placement.distance_bytes == pls[i].distance_bytes);
		}
		pb_mem_result_free(&r);
	}

	/* other states: refused, in one line naming the state */
	enum pb_cache_state both[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 1, sizes, 1, both, 2);
	p.placements = pls;
	p.n_placements = 1;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0); /* 4 GiB - 4095: dense, every state */
	pb_mem_result_free(&r);
	p.placements = &pls[1];
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "hot state only, not 'dram'"));
	struct pb_mem_placement huge = {.has_distance = true, .distance_bytes = INT64_C(1) << 58};
	p.placements = &huge;
	p.n_states = 1;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "user address space"));
}

/* Issue 16, defect 8: the read-back loop reads every byte (one flipped
 * byte changes its result, at every size and offset around its vector
 * widths), and a run records the loop's own hot speed beside each case. */
static void test_read_back_loop(void **state)
{
	(void)state;
	const char *what = NULL;
	pb_read_back_fn fn = pb_read_back_pick(&what);
	assert_non_null(fn);
	assert_non_null(what);
	assert_non_null(strstr(what, "-byte loads"));
	static unsigned char buf[1024 + 64];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (size_t off = 0; off < 64; off += 9) {
		for (size_t n = 0; n <= 1024; n += n < 300 ? 1 : 61) {
			uint64_t base = fn(buf + off, n);
			for (size_t at = 0; at < n; at += n / 7 + 1) {
				buf[off + at] ^= 0x40;
				uint64_t flipped = fn(buf + off, n);
				buf[off + at] ^= 0x40;
				if (flipped == base)
					fail_msg("%s: byte %zu of %zu at offset %zu not read", what,
					         at, n, off);
			}
			/* bytes outside [p, p + n) do not count */
			buf[off + n] ^= 0x40;
			assert_true(fn(buf + off, n) == base);
			buf[off + n] ^= 0x40;
		}
	}

	const struct pb_kernel *ks[2] = {pb_kernel_find(PB_OP_MEMCPY, "libc"),
	                                 pb_kernel_find(PB_OP_MEMCPY, "bytes")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 2, sizes, 1, st, 2);
	p.then_read = true;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_non_null(r.read_loop);
	assert_string_equal(r.read_loop, what);
	assert_int_equal(r.n_cases, 4);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_mem_case *c = &r.cases[i];
		assert_int_equal(c->read_loop_ticks_per_call.n, 21);
		assert_true(c->read_loop_ticks_per_call.median > 0);
		/* the flag is the one rule (pb_verdict on read-back / loop of the
		 * samples, the 1% margin; the loop's samples are not kept): not
		 * bound means shown slower by more than the margin, so the
		 * read-back's median cannot lie well below the loop's */
		const struct pb_summary *rd = &c->read_ticks_per_call,
		                        *lp = &c->read_loop_ticks_per_call;
		if (!c->read_loop_bound)
			assert_true(rd->median > 0.99 * lp->median);
	}
	/* the printout names the loop and what the flag means */
	r.cases[0].read_loop_bound = true;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	pb_print_mem_readback(f, &r, PB_OP_MEMCPY, PB_STATE_HOT, PB_UNIT_TICKS_PER_CALL);
	fclose(f);
	assert_non_null(strstr(text, "read-back loop: "));
	assert_non_null(strstr(text, what));
	assert_non_null(strstr(text, "bounded by the loop (within noise of its hot speed"));
	assert_non_null(strstr(text, "libc 4K"));
	free(text);
	pb_mem_result_free(&r);
	p.then_read = false;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_null(r.read_loop);
	pb_mem_result_free(&r);
}

/* memmove: overlapping placements in the same region (backward with a
 * negative distance, forward with a positive one, in place at 0) in every
 * rotating state and with an extent; the fault states refuse an overlap
 * (their source is a separate buffer) but take a distant source. Under the
 * sanitizers this also checks that every call stays inside its slot. */
static void test_memmove_overlap(void **state)
{
	(void)state;
	const struct pb_kernel *ks[2] = {pb_kernel_find(PB_OP_MEMMOVE, "libc"),
	                                 pb_kernel_find(PB_OP_MEMMOVE, "bytes")};
	assert_non_null(ks[0]);
	assert_non_null(ks[1]);
	uint64_t sizes[] = {64, 4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_L2, PB_STATE_DRAM};
	struct pb_mem_placement pls[] = {
	    {.has_distance = true, .distance_bytes = -64},
	    {.dst_offset_bytes = 5, .has_distance = true, .distance_bytes = -1},
	    {.dst_offset_bytes = 4095, .has_distance = true, .distance_bytes = 63},
	    {.has_distance = true, .distance_bytes = 0},
	    {.src_offset_bytes = 2048},
	};
	size_t npl = sizeof pls / sizeof pls[0];
	struct pb_mem_params p = params(ks, 2, sizes, 2, st, 3);
	p.placements = pls;
	p.n_placements = npl;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 3 * 2 * npl * 2);
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_int_equal(c->op, PB_OP_MEMMOVE);
		assert_int_equal(c->kernel->op, PB_OP_MEMMOVE);
		assert_true(c->n_samples + c->migrations >= 6);
		assert_int_equal(c->fill_value, -1);
		assert_int_equal(c->prefill_value, 0xA5);
		size_t q = (i / 2) % npl;
		assert_int_equal(c->placement.has_distance, pls[q].has_distance);
		assert_int_equal(c->placement.distance_bytes, pls[q].distance_bytes);
		/* Source and destination share the region: one side's bytes. */
		int64_t dd = pls[q].distance_bytes;
		uint64_t span =
		    c->placement.dst_offset_bytes + (uint64_t)(dd < 0 ? -dd : dd) + c->size_bytes;
		if (c->state == PB_STATE_HOT && pls[q].has_distance)
			assert_int_equal(c->working_set_bytes, 2 * ((span + 4095) / 4096 * 4096));
	}
	/* The result keys: op "memmove", the source as a distance or an offset. */
	struct pb_cache_info caches;
	pb_cache_detect(&caches, (uint64_t[PB_CACHE_LEVELS]){0});
	char *argv[] = {"primbench", "mem", "memmove"};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, 0);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_mem(rdoc, &r), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), r.n_cases);
	for (size_t i = 0; i < r.n_cases; i++) {
		json_t *key = json_object_get(json_array_get(cases, i), "key");
		assert_string_equal(json_string_value(json_object_get(key, "op")), "memmove");
		assert_true(json_is_null(json_object_get(key, "fill_value")));
		const struct pb_mem_placement *pl = &r.cases[i].placement;
		json_t *src = json_object_get(key, "src_offset_bytes");
		json_t *dist = json_object_get(key, "distance_bytes");
		if (pl->has_distance) {
			assert_true(json_is_null(src));
			assert_int_equal(json_integer_value(dist), pl->distance_bytes);
		} else {
			assert_int_equal(json_integer_value(src), 2048);
			assert_true(json_is_null(dist));
		}
	}
	pb_results_doc_free(rdoc);
	pb_mem_result_free(&r);

	/* An extent of overlapping moves, and (memcpy too) a source 1 MiB
	 * below the extent: the slot holds the distance as well. */
	uint64_t four_k[] = {4096};
	struct pb_mem_placement far = {.has_distance = true, .distance_bytes = -(1 << 20)};
	enum pb_cache_state hot_dram[] = {PB_STATE_HOT, PB_STATE_DRAM};
	p = params(ks, 2, four_k, 1, hot_dram, 2);
	p.extent_bytes = 64 << 10;
	p.placements = pls;
	p.n_placements = 1;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 4);
	pb_mem_result_free(&r);
	p.placements = &far;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	pb_mem_result_free(&r);
	const struct pb_kernel *cpy[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	p = params(cpy, 1, four_k, 1, hot_dram, 2);
	p.extent_bytes = 64 << 10;
	p.placements = &far;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2);
	pb_mem_result_free(&r);
	/* memcpy still refuses the overlap memmove takes. */
	p.placements = pls;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "overlaps"));

	/* fault: an overlap is refused, a distant source is fine. */
	enum pb_cache_state fault[] = {PB_STATE_FAULT};
	p = params(ks, 2, four_k, 1, fault, 1);
	p.placements = pls;
	p.n_placements = 1;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "cannot place an overlapping memmove"));
	p.placements = &far;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2);
	pb_mem_result_free(&r);
}

/* An extent: each sample is extent/size consecutive calls. */
static void test_extent(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {4096, 1 << 20};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 2);
	p.extent_bytes = 4 << 20;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 4);
	for (size_t i = 0; i < r.n_cases; i++) {
		struct pb_mem_case *c = &r.cases[i];
		assert_int_equal(c->extent_bytes, 4 << 20);
		for (size_t j = 0; j < c->n_samples; j++)
			assert_int_equal(c->batch_calls[j], (4u << 20) / c->size_bytes);
	}
	pb_mem_result_free(&r);
	uint64_t odd[] = {3000};
	p = params(ks, 1, odd, 1, st, 1);
	p.extent_bytes = 4 << 20;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "not a multiple"));
}

/* --precision stops a group before max_samples once every CI is narrow
 * enough; here 50% is always reached at min_samples. */
static void test_precision_stops_early(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {256};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	p.budget_s = 100;
	p.min_samples = 11;
	p.max_samples = 5000;
	p.precision = 0.5;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_true(r.cases[0].n_samples + r.cases[0].migrations < 5000);
	pb_mem_result_free(&r);
}

/* Size 0 times the call alone; per-page figures are undefined there. */
static void test_size_zero(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	uint64_t sizes[] = {0};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 2);
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2);
	for (size_t i = 0; i < r.n_cases; i++) {
		/* under emulation on a loaded machine a sample may be lost to a
		 * migration (dropped, counted): it still counts toward the 6 */
		assert_true(r.cases[i].n_samples + r.cases[i].migrations >= 6);
		assert_true(r.cases[i].n_samples == 0 || r.cases[i].ticks_per_call.median >= 0);
		/* hot rotates through two one-page-or-less buffers per side */
		if (r.cases[i].state == PB_STATE_HOT)
			assert_int_equal(r.cases[i].working_set_bytes, 2 * 4096 * 2);
	}
	assert_true(isnan(pb_ticks_per_page(10, 0)));
	assert_near(pb_bytes_per_tick(10, 0), 0);
	assert_near(pb_gb_per_s(10, 0), 0);
	pb_mem_result_free(&r);
}

static void test_bad_params(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_result r;
	uint64_t ok[] = {64};
	struct pb_mem_params p = params(ks, 1, ok, 1, st, 1);
	struct pb_mem_placement bad = {.dst_offset_bytes = 4096};
	p.placements = &bad;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	p = params(ks, 1, ok, 1, st, 1);
	p.op = PB_OP_MEMCPY;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "not a memcpy kernel"));
}

static void test_cache_state_names(void **state)
{
	(void)state;
	enum pb_cache_state s;
	assert_int_equal(pb_cache_state_parse("dram", &s), 0);
	assert_int_equal(s, PB_STATE_DRAM);
	assert_int_equal(pb_cache_state_parse("lukewarm", &s), -1);
	assert_string_equal(pb_error(), "unknown cache state 'lukewarm' (known: hot, l2, llc, "
	                                "dram, fault, fault-thp, repeat)");
	assert_int_equal(pb_cache_state_parse("repeat", &s), 0);
	assert_int_equal(s, PB_STATE_REPEAT);
	assert_string_equal(pb_cache_state_name(PB_STATE_REPEAT), "repeat");
}

static void test_units(void **state)
{
	(void)state;
	enum pb_unit u;
	assert_int_equal(pb_unit_parse("GB/s", &u), 0);
	assert_int_equal(u, PB_UNIT_GB_S);
	assert_int_equal(pb_unit_parse("furlongs", &u), -1);
	assert_near(pb_unit_value(PB_UNIT_TICKS_PER_PAGE, 100, 1024), 400);
	assert_near(pb_unit_value(PB_UNIT_BYTES_PER_TICK, 64, 4096), 64);
	double ns = pb_ticks_to_ns(1000);
	assert_near(pb_unit_value(PB_UNIT_GB_S, 1000, 4096), 4096 / ns);
}

/* The JSON document: written whole, readable, with the case key. */
static void test_results_round_trip(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {256};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	p.value = 0x5a;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	struct pb_cache_info caches;
	pb_cache_detect(&caches, (uint64_t[PB_CACHE_LEVELS]){0});
	char *argv[] = {"primbench", "mem", "memset"};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, 0);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_mem(rdoc, &r), 0);
	struct pb_noise noise = {.valid = true, .steal_pct = 1.5};
	pb_results_finish(rdoc, &noise, false);

	char dir[] = "/tmp/pbtestXXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/r.json", dir);
	assert_int_equal(pb_results_check_path(path), 0);
	assert_int_equal(pb_results_write(rdoc, path), 0);
	pb_results_doc_free(rdoc);

	json_error_t err;
	json_t *back = json_load_file(path, 0, &err);
	assert_non_null(back);
	assert_string_equal(json_string_value(json_object_get(back, "schema")), "primbench-result");
	assert_int_equal(json_integer_value(json_object_get(back, "schema_version")), 2);
	json_t *c = json_array_get(json_object_get(back, "cases"), 0);
	json_t *key = json_object_get(c, "key");
	assert_string_equal(json_string_value(json_object_get(key, "kernel")), "libc");
	assert_string_equal(json_string_value(json_object_get(key, "op")), "memset");
	assert_int_equal(json_integer_value(json_object_get(key, "size_bytes")), 256);
	assert_int_equal(json_integer_value(json_object_get(key, "fill_value")), 0x5a);
	assert_string_equal(json_string_value(json_object_get(key, "cache_state")), "hot");
	assert_int_equal(json_array_size(json_object_get(c, "samples")), r.cases[0].n_samples);
	json_t *first = json_array_get(json_object_get(c, "samples"), 0);
	assert_int_equal(json_array_size(first), 2);
	assert_true(json_is_true(json_object_get(c, "overhead_subtracted")));
	assert_non_null(json_object_get(json_object_get(back, "machine"), "caches"));
	assert_non_null(json_object_get(json_object_get(back, "machine"), "timer"));
	json_decref(back);
	pb_mem_result_free(&r);

	/* Nothing but the result is left in the directory. */
	char cmd[128];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = r.json", dir);
	assert_int_equal(system(cmd), 0);
	unlink(path);
	rmdir(dir);
}

/* Issue 16 item 5: the output is reserved at the start (a temporary file
 * in its directory, used at the end; where none can be made, the start
 * fails), and a write that fails at the end lands in $TMPDIR instead. */
static void test_results_reserve_and_rescue(void **state)
{
	(void)state;
	/* /proc passes an access() check as root but holds no new file */
	assert_int_equal(pb_output_reserve("/proc/primbench-test.json"), -1);
	assert_non_null(strstr(pb_error(), "cannot write '/proc/primbench-test.json'"));

	char dir[] = "/tmp/pbtestXXXXXX", rescue[] = "/tmp/pbrescueXXXXXX";
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(rescue));
	char path[64], cmd[256];
	snprintf(path, sizeof path, "%s/r.json", dir);
	assert_int_equal(pb_output_reserve(path), 0);
	/* the temporary file is there from the start, hidden */
	snprintf(cmd, sizeof cmd, "ls -A %s | grep -q '^\\.primbench-'", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(pb_write_file_whole(path, "{}\n", 3), 0);
	snprintf(cmd, sizeof cmd, "test \"$(ls -A %s)\" = r.json", dir);
	assert_int_equal(system(cmd), 0);

	/* The directory goes during the run: the final rename fails, the text
	 * is saved in $TMPDIR and the error says where. */
	assert_int_equal(pb_output_reserve(path), 0);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	setenv("TMPDIR", rescue, 1);
	assert_int_equal(pb_write_file_whole(path, "{\"x\": 1}\n", 9), -1);
	unsetenv("TMPDIR");
	assert_non_null(strstr(pb_error(), "cannot write '"));
	const char *saved = strstr(pb_error(), "saved it as '");
	assert_non_null(saved);
	char name[256];
	snprintf(name, sizeof name, "%s", saved + strlen("saved it as '"));
	char *q = strchr(name, '\'');
	assert_non_null(q);
	*q = '\0';
	assert_memory_equal(name, rescue, strlen(rescue));
	assert_non_null(strstr(name, "/r-"));
	assert_non_null(strstr(name, ".json"));
	FILE *f = fopen(name, "r");
	assert_non_null(f);
	char text[32] = "";
	assert_non_null(fgets(text, sizeof text, f));
	fclose(f);
	assert_string_equal(text, "{\"x\": 1}\n");
	unlink(name);
	assert_int_equal(rmdir(rescue), 0);
}

/* Issue 16 item 14: counts of one read "1 sample", "1 case varies". */
static void test_quality_plurals(void **state)
{
	(void)state;
	struct pb_mem_case c = {0};
	c.n_samples = 1;
	c.migrations = 1;
	c.outliers = 1;
	c.ticks_per_call.median = 2;
	c.ticks_per_call.p10 = 1;
	c.ticks_per_call.p90 = 10; /* noisy */
	struct pb_mem_result r = {0};
	r.cases = &c;
	r.n_cases = 1;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	pb_print_mem_quality(f, &r);
	fclose(f);
	assert_non_null(strstr(text, "spread: 1 sample in 1 case"));
	assert_non_null(strstr(text, "note: 1 case had fewer than 6 samples"));
	assert_non_null(strstr(text, "warning: noisy: 1 case varies by over 20%"));
	assert_non_null(strstr(text, "note: 1 sample saw the thread change CPU"));
	assert_non_null(strstr(text, "note: 1 sample had a modified z-score"));
	assert_null(strstr(text, "1 samples"));
	free(text);
}

static void test_results_bad_path(void **state)
{
	(void)state;
	assert_int_equal(pb_results_check_path("/nonexistent/dir/x.json"), -1);
	assert_non_null(strstr(pb_error(), "cannot write '/nonexistent/dir/x.json'"));
	json_t *doc = json_object();
	assert_int_equal(pb_results_write_json(doc, "/nonexistent/dir/x.json"), -1);
	json_decref(doc);
}

/* A symbolic link keeps pointing at the result; special files are refused. */
static void test_results_symlink_and_special(void **state)
{
	(void)state;
	char dir[] = "/tmp/pbtestXXXXXX";
	assert_non_null(mkdtemp(dir));
	char target[64], link[64];
	snprintf(target, sizeof target, "%s/target.json", dir);
	snprintf(link, sizeof link, "%s/link.json", dir);
	FILE *f = fopen(target, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(symlink("target.json", link), 0);
	json_t *doc = json_pack("{s:i}", "x", 1);
	assert_int_equal(pb_results_check_path(link), 0);
	assert_int_equal(pb_results_write_json(doc, link), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	json_error_t err;
	json_t *back = json_load_file(target, 0, &err);
	assert_non_null(back);
	assert_int_equal(json_integer_value(json_object_get(back, "x")), 1);
	json_decref(back);
	assert_int_equal(pb_results_check_path("/dev/null"), -1);
	assert_non_null(strstr(pb_error(), "not a regular file"));
	assert_int_equal(pb_results_write_json(doc, "/dev/null"), -1);
	assert_int_equal(pb_results_check_path(dir), -1);
	assert_non_null(strstr(pb_error(), "it is a directory"));
	json_decref(doc);
	unlink(link);
	unlink(target);
	rmdir(dir);
}

/* Threads: with thread_counts {2} (and 3, oversubscribed on a 2-CPU
 * machine) the 1-thread case is run too, each count its own case; the
 * N-thread cases carry N CPUs, each thread's ticks and per-call summary,
 * k x N calls per sample; efficiency is derived from the 1-thread case. */
static void check_thread_cases(enum pb_op op, unsigned threads)
{
	const struct pb_kernel *ks[1] = {pb_kernel_find(op, "libc")};
	uint64_t sizes[] = {64, 4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_DRAM};
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 2);
	unsigned counts[] = {threads};
	p.thread_counts = counts;
	p.n_thread_counts = 1;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_false(r.interrupted);
	assert_int_equal(r.n_cases, 2 * 2 * 2); /* states x {1, N} x sizes */
	size_t seen[2] = {0};
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_mem_case *c = &r.cases[i];
		/* state by state, the 1-thread count first */
		assert_int_equal(c->state, st[i / 4]);
		assert_int_equal(c->threads, (i % 4) < 2 ? 1 : threads);
		assert_int_equal(c->size_bytes, sizes[i % 2]);
		assert_int_equal(c->mem_node, PB_MEM_NODE_LOCAL);
		assert_true(c->n_samples + c->migrations >= 6 && c->n_samples <= 8);
		assert_true(c->n_samples > 0);
		if (c->threads == 1) {
			seen[0]++;
			assert_null(c->thread_placement);
			assert_null(c->thread_cpus);
			assert_null(c->thread_batch_ticks);
			assert_null(c->thread_ticks_per_call);
			assert_near(pb_mem_efficiency(&r, c), 1);
			continue;
		}
		seen[1]++;
		assert_string_equal(c->thread_placement, "compact");
		assert_non_null(c->thread_cpus);
		assert_non_null(c->thread_batch_ticks);
		assert_non_null(c->thread_ticks_per_call);
		for (unsigned t = 0; t < threads; t++) {
			assert_true(c->thread_cpus[t] >= 0);
			assert_int_equal(c->thread_ticks_per_call[t].n, c->n_samples);
		}
		for (size_t j = 0; j < c->n_samples; j++) {
			/* calls = k x N, with the same k every sample */
			assert_int_equal(c->batch_calls[j] % threads, 0);
			assert_int_equal(c->batch_calls[j], c->batch_calls[0]);
			/* the span covers every thread's own batch */
			for (unsigned t = 0; t < threads; t++)
				assert_true(c->batch_ticks[j] + 1e-9 >=
				            c->thread_batch_ticks[j * threads + t]);
		}
		double e = pb_mem_efficiency(&r, c);
		assert_true(isfinite(e) && e > 0);
	}
	assert_int_equal(seen[0], 4);
	assert_int_equal(seen[1], 4);
	/* The tables: the state table shows the 1-thread cases only; the
	 * threads table has one column per count and the efficiency. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	pb_print_mem_table(f, &r, op, PB_STATE_HOT, PB_UNIT_TICKS_PER_CALL);
	long one_table = ftell(f);
	pb_print_mem_threads(f, &r, op, PB_STATE_DRAM, 4096);
	fclose(f);
	char head[32];
	snprintf(head, sizeof head, "%u thr", threads);
	assert_non_null(strstr(text, "aggregate GB/s"));
	assert_non_null(strstr(text + one_table, "1 thr"));
	assert_non_null(strstr(text + one_table, head));
	assert_non_null(strstr(text + one_table, "efficiency"));
	assert_non_null(strstr(text, "4K per call, by threads"));
	/* the aggregate's interval, every count's */
	const char *ci = strstr(text + one_table, "aggregate's 95% CI");
	assert_non_null(ci);
	assert_non_null(strstr(ci, head));
	assert_non_null(strstr(ci, "%\n"));
	/* one libc row in the state table, not one per count */
	const char *row = strstr(text, "\nlibc");
	assert_non_null(row);
	assert_true(strstr(row + 1, "\nlibc") == NULL ||
	            strstr(row + 1, "\nlibc") > text + one_table);
	free(text);
	pb_mem_result_free(&r);
}

static void test_threads_memset(void **state)
{
	(void)state;
	check_thread_cases(PB_OP_MEMSET, 2);
}

static void test_threads_memcpy(void **state)
{
	(void)state;
	check_thread_cases(PB_OP_MEMCPY, 2);
}

static void test_threads_oversubscribed(void **state)
{
	(void)state;
	check_thread_cases(PB_OP_MEMSET, 3);
}

/* llc: each of N threads rotates through its share, the one-thread set /
 * N; hot: its own two buffers, as one thread's. */
static void test_threads_share(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {4096};
	enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_LLC};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 2);
	p.llc_bytes = 16 << 20;
	p.threads = 2; /* counts {1, 2} */
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 4);
	assert_int_equal(r.cases[0].threads, 1);
	assert_int_equal(r.cases[1].threads, 2);
	assert_int_equal(r.cases[1].working_set_bytes, r.cases[0].working_set_bytes);
	assert_int_equal(r.cases[2].state, PB_STATE_LLC);
	assert_int_equal(r.cases[2].working_set_bytes, 8 << 20);
	assert_int_equal(r.cases[3].working_set_bytes, 4 << 20);
	pb_mem_result_free(&r);
}

/* The stop flag raised after the first group: the run ends interrupted
 * with the cases so far (the harness stops its workers, test_harness). */
static void stop_after_first(void *ctx, size_t done, size_t total)
{
	(void)done;
	(void)total;
	*(volatile sig_atomic_t *)ctx = 1;
}

static void test_threads_stop(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {64, 128};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	volatile sig_atomic_t stop = 0;
	struct pb_mem_params p = params(ks, 1, sizes, 2, st, 1);
	p.threads = 2;
	p.stop = &stop;
	p.progress = stop_after_first;
	p.progress_ctx = (void *)&stop;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_true(r.interrupted);
	assert_int_equal(r.n_cases, 1);
	assert_true(r.cases[0].n_samples > 0);
	pb_mem_result_free(&r);
}

/* A memory node other than local: the hook binds every region of every
 * thread, on that thread, before its first touch; without a hook, or with
 * then_read on threads, or a thread count of 0: refused. */
static atomic_uint bind_calls, bind_threads;
static int fake_bind(void *ctx, unsigned thread, void *addr, size_t bytes)
{
	(void)ctx;
	if (addr && bytes > 0) /* cmocka asserts only on the test's thread */
		atomic_fetch_add(&bind_calls, 1);
	atomic_fetch_or(&bind_threads, 1u << thread);
	return 0;
}

static void test_threads_mem_node(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMCPY, "libc")};
	uint64_t sizes[] = {64};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	p.threads = 2;
	p.mem_node = PB_MEM_NODE_INTERLEAVE;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "memory node 'interleave' needs a binding hook"));
	p.bind_memory = fake_bind;
	atomic_store(&bind_calls, 0);
	atomic_store(&bind_threads, 0);
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2);
	assert_int_equal(atomic_load(&bind_calls), 2 + 2 * 2); /* dst and src, 1 + 2 threads */
	assert_int_equal(atomic_load(&bind_threads), 3);
	assert_int_equal(r.cases[1].mem_node, PB_MEM_NODE_INTERLEAVE);
	pb_mem_result_free(&r);

	p = params(ks, 1, sizes, 1, st, 1);
	p.threads = 2;
	p.then_read = true;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "one thread only"));
	unsigned zero[] = {0};
	p.then_read = false;
	p.thread_counts = zero;
	p.n_thread_counts = 1;
	assert_int_equal(pb_mem_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "thread count of 0"));
	char buf[32];
	assert_string_equal(pb_mem_node_text(PB_MEM_NODE_FIXED, 3, buf, sizeof buf), "node 3");
	assert_string_equal(pb_mem_node_text(PB_MEM_NODE_LOCAL, 0, buf, sizeof buf), "local");
}

/* A threaded run's document: threads, placement and mem_node in every
 * key (1, null, "local" for the 1-thread case), each thread's figures
 * beside the N-thread case, and compare reads the keys apart. */
static void test_threads_results(void **state)
{
	(void)state;
	const struct pb_kernel *ks[1] = {pb_kernel_find(PB_OP_MEMSET, "libc")};
	uint64_t sizes[] = {256};
	enum pb_cache_state st[] = {PB_STATE_HOT};
	struct pb_mem_params p = params(ks, 1, sizes, 1, st, 1);
	p.threads = 2;
	struct pb_mem_result r;
	assert_int_equal(pb_mem_run(&p, &r), 0);
	assert_int_equal(r.n_cases, 2);
	struct pb_cache_info caches;
	pb_cache_detect(&caches, (uint64_t[PB_CACHE_LEVELS]){0});
	char *argv[] = {"primbench", "mem", "memset"};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, 0);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_int_equal(pb_results_add_mem(rdoc, &r), 0);
	struct pb_noise noise = {0};
	pb_results_finish(rdoc, &noise, false);
	json_t *cases = json_object_get(doc, "cases");
	json_t *k1 = json_object_get(json_array_get(cases, 0), "key");
	json_t *k2 = json_object_get(json_array_get(cases, 1), "key");
	assert_int_equal(json_integer_value(json_object_get(k1, "threads")), 1);
	assert_true(json_is_null(json_object_get(k1, "placement")));
	assert_string_equal(json_string_value(json_object_get(k1, "mem_node")), "local");
	assert_null(json_object_get(json_array_get(cases, 0), "per_thread"));
	assert_int_equal(json_integer_value(json_object_get(k2, "threads")), 2);
	assert_string_equal(json_string_value(json_object_get(k2, "placement")), "compact");
	assert_string_equal(json_string_value(json_object_get(k2, "mem_node")), "local");
	json_t *pt = json_object_get(json_array_get(cases, 1), "per_thread");
	assert_int_equal(json_array_size(pt), 2);
	for (size_t t = 0; t < 2; t++) {
		json_t *o = json_array_get(pt, t);
		assert_int_equal(json_integer_value(json_object_get(o, "thread")), t);
		assert_int_equal(json_array_size(json_object_get(o, "samples")),
		                 r.cases[1].n_samples);
		assert_non_null(json_object_get(o, "per_call"));
	}
	json_t *dv = json_object_get(json_array_get(cases, 1), "median_derived");
	assert_true(json_is_number(json_object_get(dv, "efficiency")));

	char *text = json_dumps(doc, 0);
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(text, strlen(text), "t.json", &f), 0);
	assert_int_equal(pb_results_name(&f, 1), 0);
	assert_int_equal(f.ncases, 2);
	assert_string_equal(f.cases[0].label, "libc 256");
	assert_string_equal(f.cases[1].label, "libc 256 x2");
	pb_results_file_free(&f);
	free(text);
	pb_results_doc_free(rdoc);
	pb_mem_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_params_make_defaults),
	    cmocka_unit_test(test_replicate_params),
	    cmocka_unit_test(test_run_replicates),
	    cmocka_unit_test(test_run_replicates_stop),
	    cmocka_unit_test(test_cases_and_samples),
	    cmocka_unit_test(test_memset_prefill_differs),
	    cmocka_unit_test(test_stop_flag_interrupts),
	    cmocka_unit_test(test_bad_params),
	    cmocka_unit_test(test_cache_state_names),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_size_zero),
	    cmocka_unit_test(test_all_states),
	    cmocka_unit_test(test_state_too_small_skips),
	    cmocka_unit_test(test_grid_distance_then_read),
	    cmocka_unit_test(test_far_distance),
	    cmocka_unit_test(test_read_back_loop),
	    cmocka_unit_test(test_extent),
	    cmocka_unit_test(test_memmove_overlap),
	    cmocka_unit_test(test_precision_stops_early),
	    cmocka_unit_test(test_repeat_state),
	    cmocka_unit_test(test_results_round_trip),
	    cmocka_unit_test(test_results_bad_path),
	    cmocka_unit_test(test_results_reserve_and_rescue),
	    cmocka_unit_test(test_quality_plurals),
	    cmocka_unit_test(test_results_symlink_and_special),
	    cmocka_unit_test(test_threads_memset),
	    cmocka_unit_test(test_threads_memcpy),
	    cmocka_unit_test(test_threads_oversubscribed),
	    cmocka_unit_test(test_threads_share),
	    cmocka_unit_test(test_threads_stop),
	    cmocka_unit_test(test_threads_mem_node),
	    cmocka_unit_test(test_threads_results),
	    cmocka_unit_test(test_pages_axis),
	    cmocka_unit_test(test_pages_hugetlb_when_reserved),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
