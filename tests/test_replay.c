/* test_replay.c - pb_mem_replay_run and pb_mem_replay_policies
 * (include/primbench/mem.h): the cases a replay makes, the batch it
 * records, every state it takes, and policies timed on a batch. No timing
 * is asserted: only that samples exist and the bookkeeping adds up. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/mem.h"
#include "primbench/policy.h"
#include "primbench/timer.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

static struct pb_mem_params params(enum pb_op op, const struct pb_kernel **ks, size_t nk,
                                   const enum pb_cache_state *st, size_t nst)
{
	struct pb_mem_params p = {
	    .op = op,
	    .kernels = ks,
	    .n_kernels = nk,
	    .states = st,
	    .n_states = nst,
	    .budget_s = 0.001,
	    .min_samples = 3,
	    .max_samples = 4,
	    .l1_bytes = 32 << 10,
	    .l2_bytes = 1 << 20,
	    .llc_bytes = 8 << 20,
	    .seed = 42,
	};
	return p;
}

/* A tiny distribution: sizes 0..200, most of the weight on 8 and 200. */
static void tiny(struct pb_distribution *d)
{
	uint64_t c[201] = {0};
	c[0] = 1;
	c[8] = 10;
	c[200] = 5;
	char *text = pb_distribution_format_counts(c, 201);
	assert_int_equal(pb_distribution_parse("tiny.csv", text, strlen(text), d), 0);
	free(text);
}

static void test_replay_cases(void **state)
{
	(void)state;
	struct pb_distribution d;
	tiny(&d);
	for (int op = 0; op < PB_OP_COUNT; op++) {
		const struct pb_kernel *ks[2] = {pb_kernel_find((enum pb_op)op, "libc"),
		                                 pb_kernel_find((enum pb_op)op, "bytes")};
		assert_non_null(ks[0]);
		size_t nk = ks[1] ? 2 : 1;
		/* dram (256 MiB or more of buffers, flushed) once: memcpy */
		enum pb_cache_state st[] = {PB_STATE_HOT, PB_STATE_L2, PB_STATE_DRAM};
		size_t nst = op == PB_OP_MEMCPY ? 3 : 2;
		struct pb_mem_params p = params((enum pb_op)op, ks, nk, st, nst);
		struct pb_mem_replay rp = {.dist = &d, .seed = 7, .batch_calls = 256};
		struct pb_mem_result r;
		assert_int_equal(pb_mem_replay_run(&p, &rp, &r), 0);
		uint64_t batch_bytes = rp.batch_bytes;
		assert_true(rp.batch_le_128 > 0 && rp.batch_le_128 < 256);
		assert_true(batch_bytes > 0 && batch_bytes <= 256 * 200);
		assert_int_equal(r.n_cases, nst * nk);
		for (size_t i = 0; i < r.n_cases; i++) {
			const struct pb_mem_case *c = &r.cases[i];
			assert_ptr_equal(c->replay, &rp);
			assert_int_equal(c->size_bytes, 0);
			/* min_samples taken; under emulation on a busy machine the
			 * thread may change CPU during some, which are dropped and
			 * counted (as test_mem allows) */
			assert_true(c->n_samples + c->migrations >= 3);
			assert_true(c->n_samples >= 1);
			/* a sample's calls: whole passes over the batch */
			for (size_t j = 0; j < c->n_samples; j++)
				assert_int_equal(c->batch_calls[j] % 256, 0);
			if (c->state == PB_STATE_DRAM)
				assert_int_equal(c->batch_calls[0], 256);
		}
		pb_mem_result_free(&r);
		/* the same seed, the same batch; aligned offsets, another seed */
		rp.seed = 7;
		rp.offsets = PB_OFFSETS_ALIGNED;
		p.n_states = 1;
		assert_int_equal(pb_mem_replay_run(&p, &rp, &r), 0);
		assert_int_equal(rp.batch_bytes, batch_bytes);
		pb_mem_result_free(&r);
	}
	/* the fault states are refused, as a note */
	const struct pb_kernel *k = pb_kernel_find(PB_OP_MEMSET, "libc");
	enum pb_cache_state fault = PB_STATE_FAULT;
	struct pb_mem_params p = params(PB_OP_MEMSET, &k, 1, &fault, 1);
	struct pb_mem_replay rp = {.dist = &d, .seed = 1, .batch_calls = 16};
	struct pb_mem_result r;
	assert_int_equal(pb_mem_replay_run(&p, &rp, &r), 0);
	assert_int_equal(r.n_cases, 0);
	assert_non_null(strstr(r.notes, "fault: skipped: a replay cannot run in the fault state"));
	pb_mem_result_free(&r);
	pb_distribution_free(&d);
}

static void test_replay_policies(void **state)
{
	(void)state;
	struct pb_distribution d;
	tiny(&d);
	struct pb_policy pols[2];
	assert_int_equal(pb_policy_parse(PB_OP_MEMCPY, "bytes<=64,libc", (pb_features)-1, &pols[0]),
	                 0);
	assert_int_equal(pb_policy_parse(PB_OP_MEMCPY, "libc", (pb_features)-1, &pols[1]), 0);
	struct pb_mem_params p = params(PB_OP_MEMCPY, NULL, 0, NULL, 0);
	struct pb_mem_replay rp = {.dist = &d, .seed = 3, .batch_calls = 128};
	struct pb_summary s[2];
	assert_int_equal(pb_mem_replay_policies(&p, &rp, pols, 2, s, NULL), 0);
	assert_true(s[0].n >= 3 && s[1].n >= 3);
	assert_true(s[0].median >= 0 && s[1].median >= 0);
	/* a policy of another op is refused */
	struct pb_policy set;
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, "libc", (pb_features)-1, &set), 0);
	assert_int_equal(pb_mem_replay_policies(&p, &rp, &set, 1, s, NULL), -1);
	assert_non_null(strstr(pb_error(), "a memset policy cannot replay memcpy calls"));
	pb_distribution_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_replay_cases),
	    cmocka_unit_test(test_replay_policies),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
