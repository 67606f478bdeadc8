/* test_harness.c - invariants of the measuring harness (never speed), with
 * fake contenders whose batch callback returns synthetic tick counts:
 * calibration's k, warm-up, sample bounds, budget, precision and stop-flag
 * stops, shuffled rounds that depend on the seed, migrations, summaries. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "primbench/harness.h"
#include "primbench/stats.h"

#define MAXC     4
#define MAXLOG   4096
#define OVERHEAD 5.0
#define TARGET   1000.0

struct call {
	size_t contender, k;
	enum pb_harness_phase phase;
};

/* The fake contenders: contender i costs per_call[i] ticks a call (times
 * 1 + noise x (j % 3) for its j-th kept batch), plus the overhead. */
struct fake {
	double per_call[MAXC];
	double first_calibration_ticks; /* what every rep 0 of calibration returns */
	double noise;
	struct call log[MAXLOG];
	size_t n_log, kept_calls[MAXC], after_calls;
	size_t migrate_every; /* > 0: every n-th kept batch changes the CPU */
	size_t stop_after;    /* > 0: set *stop after this many kept batches */
	size_t drop_every;    /* > 0: every n-th kept batch returns 1 */
	int fail_at;          /* > 0: the n-th call returns -1 */
	double sleep_s;       /* per kept batch */
	volatile sig_atomic_t *stop;
	size_t kept_total, cal_rep[MAXC];
};

static int fake_cpu;

static int cpu_query(void)
{
	return fake_cpu;
}

static int fake_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                      struct pb_harness_batch *out)
{
	struct fake *f = ctx;
	assert_int_equal(thread, 0);
	if (f->n_log < MAXLOG)
		f->log[f->n_log++] = (struct call){i, k, phase};
	if (f->fail_at && (int)f->n_log == f->fail_at)
		return -1;
	double per = f->per_call[i];
	if (phase == PB_HARNESS_CALIBRATE) {
		assert_int_equal(k, 1);
		if (f->cal_rep[i]++ % 4 == 0) {
			out->ticks = f->first_calibration_ticks;
			return 0;
		}
	}
	if (phase == PB_HARNESS_KEEP) {
		size_t j = f->kept_calls[i]++;
		per *= 1 + f->noise * (double)(j % 3);
		f->kept_total++;
		if (f->migrate_every && f->kept_total % f->migrate_every == 0)
			fake_cpu++;
		if (f->stop_after && f->kept_total == f->stop_after)
			*f->stop = 1;
		if (f->sleep_s > 0) {
			struct timespec ts = {0, (long)(f->sleep_s * 1e9)};
			nanosleep(&ts, NULL);
		}
		if (f->drop_every && f->kept_total % f->drop_every == 0)
			return 1;
	}
	out->ticks = OVERHEAD + per * (double)k;
	out->read_ticks = OVERHEAD + 2 * per * (double)k;
	return 0;
}

static void fake_after(void *ctx, size_t i, size_t k)
{
	(void)i;
	(void)k;
	((struct fake *)ctx)->after_calls++;
}

static struct pb_harness_contender cts[MAXC];

static struct pb_harness_params params(struct fake *f, size_t n, uint64_t *rng)
{
	for (size_t i = 0; i < n; i++)
		cts[i] = (struct pb_harness_contender){.max_k = 1u << 20};
	if (!f->first_calibration_ticks)
		f->first_calibration_ticks = OVERHEAD + 1e6;
	return (struct pb_harness_params){
	    .n_contenders = n,
	    .contenders = cts,
	    .time_batch = fake_batch,
	    .ctx = f,
	    .warmup_samples = 0,
	    .min_samples = 6,
	    .max_samples = 6,
	    .budget_s = 1e9,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .rng = rng,
	    .overhead_ticks = OVERHEAD,
	    .target_ticks = TARGET,
	    .cpu_now = cpu_query,
	};
}

static size_t count_phase(const struct fake *f, enum pb_harness_phase ph, size_t contender)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n_log; i++)
		n += f->log[i].phase == ph && f->log[i].contender == contender;
	return n;
}

static void test_calibration_k(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 3, 1, 0.25}};
	/* the discarded first timing would give k = 1 if it counted */
	f.first_calibration_ticks = 1e9;
	uint64_t rng = 1;
	struct pb_harness_params p = params(&f, 4, &rng);
	cts[2].max_k = 50; /* 1000 calls wanted, 50 allowed */
	cts[3].fixed_k = 7;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(r.c[0].k, 100); /* ceil(1000 / 10) */
	assert_int_equal(r.c[1].k, 334); /* ceil(1000 / 3) */
	assert_int_equal(r.c[2].k, 50);
	assert_int_equal(r.c[3].k, 7);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(count_phase(&f, PB_HARNESS_CALIBRATE, i), 4);
	assert_int_equal(count_phase(&f, PB_HARNESS_CALIBRATE, 3), 0);
	/* calibration ends before the first sample */
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(f.log[i].phase, PB_HARNESS_CALIBRATE);
	for (size_t i = 12; i < f.n_log; i++) {
		assert_int_not_equal(f.log[i].phase, PB_HARNESS_CALIBRATE);
		assert_int_equal(f.log[i].k, r.c[f.log[i].contender].k);
	}
	pb_harness_result_free(&r);
}

static void test_warmup_discarded(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 20}};
	uint64_t rng = 7;
	struct pb_harness_params p = params(&f, 2, &rng);
	p.warmup_samples = 3;
	p.after_batch = fake_after;
	p.calls_per_k = 4;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(count_phase(&f, PB_HARNESS_WARMUP, i), 3);
		assert_int_equal(count_phase(&f, PB_HARNESS_KEEP, i), 6);
		assert_int_equal(r.c[i].n_samples, 6);
		for (size_t j = 0; j < r.c[i].n_samples; j++) {
			/* overhead subtracted; calls = k x calls_per_k */
			assert_true(fabs(r.c[i].ticks[j] - f.per_call[i] * (double)r.c[i].k) <
			            1e-9);
			assert_int_equal(r.c[i].calls[j], 4 * r.c[i].k);
		}
		assert_null(r.c[i].read_ticks);
	}
	/* the warm-up rounds come first, all of them */
	size_t first_keep = 0;
	while (f.log[first_keep].phase != PB_HARNESS_KEEP)
		first_keep++;
	for (size_t i = first_keep; i < f.n_log; i++)
		assert_int_equal(f.log[i].phase, PB_HARNESS_KEEP);
	assert_int_equal(f.after_calls, f.n_log); /* after every batch */
	pb_harness_result_free(&r);
}

static void test_sample_bounds_and_budget(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 20, 30}};
	uint64_t rng = 3;
	struct pb_harness_params p = params(&f, 3, &rng);
	p.min_samples = 4;
	p.max_samples = 9;
	struct pb_harness_result r;
	/* an unbounded budget: max_samples */
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(r.c[i].n_samples, 9);
	pb_harness_result_free(&r);
	/* a spent budget: min_samples */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	f.per_call[1] = 20;
	f.per_call[2] = 30;
	p.budget_s = 0;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(r.c[i].n_samples, 4);
	pb_harness_result_free(&r);
	/* a budget of 30 ms with 2 ms batches: above min, far below max */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	f.sleep_s = 0.002;
	p = params(&f, 1, &rng);
	p.min_samples = 2;
	p.max_samples = 100000;
	p.budget_s = 0.03;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_true(r.c[0].n_samples >= 2);
	assert_true(r.c[0].n_samples <= 1000);
	assert_false(r.interrupted);
	pb_harness_result_free(&r);
	/* bad bounds and threads */
	p.min_samples = 0;
	assert_int_equal(pb_harness_run(&p, &r), -1);
	p.min_samples = 2;
	p.threads = 2;
	assert_int_equal(pb_harness_run(&p, &r), -1);
}

static void test_precision_stop(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 20}};
	uint64_t rng = 5;
	struct pb_harness_params p = params(&f, 2, &rng);
	p.min_samples = 6;
	p.max_samples = 40;
	p.precision = 0.01;
	struct pb_harness_result r;
	/* identical samples: the CI has width 0 once it exists */
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(r.c[i].n_samples, 6);
	pb_harness_result_free(&r);
	/* 0%, 100%, 200% above: never within 1e-6 of the median */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	f.per_call[1] = 20;
	f.noise = 1;
	p.precision = 1e-6;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(r.c[i].n_samples, 40);
	pb_harness_result_free(&r);
}

static void test_stop_flag(void **state)
{
	(void)state;
	static volatile sig_atomic_t stop;
	static struct fake f;
	uint64_t rng = 11;
	enum pb_harness_stop_check modes[] = {
	    PB_HARNESS_STOP_EACH_SAMPLE, PB_HARNESS_STOP_AFTER_KEPT, PB_HARNESS_STOP_ROUND_START};
	for (size_t m = 0; m < 3; m++) {
		memset(&f, 0, sizeof f);
		f.per_call[0] = 10;
		f.per_call[1] = 20;
		f.per_call[2] = 30;
		f.stop = &stop;
		f.stop_after = 7; /* in the third kept round, its first batch */
		stop = 0;
		struct pb_harness_params p = params(&f, 3, &rng);
		p.max_samples = 100;
		p.min_samples = 100;
		p.stop = &stop;
		p.stop_check = modes[m];
		struct pb_harness_result r;
		assert_int_equal(pb_harness_run(&p, &r), 0);
		assert_true(r.interrupted);
		size_t total = r.c[0].n_samples + r.c[1].n_samples + r.c[2].n_samples;
		/* cut after the batch that set it, or at the end of its round */
		assert_int_equal(total, modes[m] == PB_HARNESS_STOP_ROUND_START ? 9 : 7);
		pb_harness_result_free(&r);
	}
	/* set before the run: nothing timed at all */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	stop = 1;
	struct pb_harness_params p = params(&f, 1, &rng);
	p.stop = &stop;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_true(r.interrupted);
	assert_int_equal(f.n_log, 0);
	assert_int_equal(r.c[0].n_samples, 0);
	pb_harness_result_free(&r);
}

/* The order of every round, as the harness visited the contenders. */
static void orders(uint64_t seed, uint32_t *out, size_t n, size_t rounds)
{
	static struct fake f;
	memset(&f, 0, sizeof f);
	for (size_t i = 0; i < n; i++)
		f.per_call[i] = 10;
	uint64_t rng = seed;
	struct pb_harness_params p = params(&f, n, &rng);
	p.warmup_samples = 1;
	p.min_samples = p.max_samples = rounds - 1;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	pb_harness_result_free(&r);
	size_t j = 0;
	for (size_t i = 0; i < f.n_log; i++)
		if (f.log[i].phase != PB_HARNESS_CALIBRATE)
			out[j++] = (uint32_t)f.log[i].contender;
	assert_int_equal(j, n * rounds);
}

static void test_rounds_shuffled(void **state)
{
	(void)state;
	enum { N = 4, ROUNDS = 12 };
	uint32_t a[N * ROUNDS], b[N * ROUNDS], c[N * ROUNDS];
	orders(42, a, N, ROUNDS);
	orders(42, b, N, ROUNDS);
	orders(43, c, N, ROUNDS);
	/* every round visits every contender once */
	for (size_t r = 0; r < ROUNDS; r++) {
		unsigned seen = 0;
		for (size_t i = 0; i < N; i++)
			seen |= 1u << a[r * N + i];
		assert_int_equal(seen, (1u << N) - 1);
	}
	/* the same seed, the same orders: pb_shuffle_u32 of the previous
	 * round's order with the caller's rng; another seed, other orders */
	assert_memory_equal(a, b, sizeof a);
	assert_memory_not_equal(a, c, sizeof a);
	uint32_t o[N] = {0, 1, 2, 3};
	uint64_t rng = 42;
	for (size_t r = 0; r < ROUNDS; r++) {
		pb_shuffle_u32(o, N, &rng);
		assert_memory_equal(o, a + r * N, sizeof o);
	}
	/* not the same order every round */
	bool differ = false;
	for (size_t r = 1; r < ROUNDS; r++)
		differ |= memcmp(a, a + r * N, sizeof o) != 0;
	assert_true(differ);
}

static void test_migrations(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 20}};
	f.migrate_every = 3;
	uint64_t rng = 9;
	struct pb_harness_params p = params(&f, 2, &rng);
	p.warmup_samples = 2;
	p.min_samples = p.max_samples = 12;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	/* 24 kept batches, every third migrated: 8 dropped and counted */
	assert_int_equal(r.c[0].migrations + r.c[1].migrations, 8);
	assert_int_equal(r.c[0].n_samples + r.c[1].n_samples, 16);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(r.c[i].n_samples + r.c[i].migrations, 12);
	pb_harness_result_free(&r);
	/* a batch that timed nothing (1) is dropped, not counted */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	f.drop_every = 2;
	p = params(&f, 1, &rng);
	p.min_samples = p.max_samples = 10;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(r.c[0].n_samples, 5);
	assert_int_equal(r.c[0].migrations, 0);
	pb_harness_result_free(&r);
	/* a failure (-1) ends the run */
	memset(&f, 0, sizeof f);
	f.per_call[0] = 10;
	f.fail_at = 9;
	assert_int_equal(pb_harness_run(&p, &r), -1);
	assert_null(r.c);
}

static bool same_summary(const struct pb_summary *a, const struct pb_summary *b)
{
	return a->n == b->n && a->min == b->min && a->max == b->max && a->mean == b->mean &&
	       a->stddev == b->stddev && a->median == b->median && a->p10 == b->p10 &&
	       a->p90 == b->p90 && a->ci_valid == b->ci_valid && a->ci_lo == b->ci_lo &&
	       a->ci_hi == b->ci_hi && a->ci_level == b->ci_level;
}

static void test_summaries(void **state)
{
	(void)state;
	static struct fake f = {.per_call = {10, 20, 7}};
	f.noise = 0.5;
	uint64_t rng = 13;
	struct pb_harness_params p = params(&f, 3, &rng);
	p.read_back = true;
	p.calls_per_k = 3;
	p.min_samples = p.max_samples = 25;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	for (size_t i = 0; i < 3; i++) {
		const struct pb_harness_samples *c = &r.c[i];
		double v[25], rv[25];
		assert_int_equal(c->n_samples, 25);
		for (size_t j = 0; j < 25; j++) {
			v[j] = c->ticks[j] / (double)c->calls[j];
			rv[j] = c->read_ticks[j] / (double)c->calls[j];
			assert_true(fabs(rv[j] - 2 * v[j]) < 1e-9);
		}
		struct pb_summary s, rs;
		size_t outliers;
		assert_int_equal(pb_summarize(v, 25, 0.95, &s), 0);
		assert_int_equal(pb_summarize(rv, 25, 0.95, &rs), 0);
		assert_int_equal(pb_count_outliers_mz(v, 25, 3.5, &outliers), 0);
		assert_true(same_summary(&s, &c->per_call));
		assert_true(same_summary(&rs, &c->read_per_call));
		assert_int_equal(outliers, c->outliers);
		assert_true(c->per_call.median > f.per_call[i] / 3 * 0.99);
	}
	pb_harness_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_calibration_k),
	    cmocka_unit_test(test_warmup_discarded),
	    cmocka_unit_test(test_sample_bounds_and_budget),
	    cmocka_unit_test(test_precision_stop),
	    cmocka_unit_test(test_stop_flag),
	    cmocka_unit_test(test_rounds_shuffled),
	    cmocka_unit_test(test_migrations),
	    cmocka_unit_test(test_summaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
