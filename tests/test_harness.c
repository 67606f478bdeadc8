/* test_harness.c - invariants of the measuring harness (never speed), with
 * fake contenders whose batch callback returns synthetic tick counts:
 * calibration's k, warm-up, sample bounds, budget, precision and stop-flag
 * stops, shuffled rounds that depend on the seed, migrations, summaries;
 * and with 2 and 3 threads the start barrier, the span of a sample, the
 * stop flag, migrations, failures and pinning. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/replicates.h"
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
	/* bad bounds */
	p.min_samples = 0;
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

/* ---- threads > 1 ------------------------------------------------------- */

#define MAXT    3
#define MAXS    64 /* batches per thread the log holds */
#define BASE    1000000ull
#define SKEW    13 /* thread t's batch begins t x SKEW ticks after thread 0's */
#define SLOWER  5  /* and lasts t x SLOWER ticks longer */
#define PER_ONE 10.0

/* A fake contender run by N workers at once: every field a worker writes is
 * its own (slot t) or atomic; violations are counted and checked by the
 * test's thread (cmocka asserts only there). */
struct tfake {
	unsigned threads;
	atomic_size_t done;        /* batches of the sampling phases finished */
	atomic_size_t early;       /* a batch began before the previous sample ended */
	atomic_size_t bad_thread;  /* thread index >= threads */
	atomic_size_t cal_not_0;   /* calibration on a thread other than 0 */
	size_t n[MAXT];            /* sampling batches per thread */
	size_t cal[MAXT];          /* calibration batches per thread */
	size_t seen_k[MAXT][MAXS]; /* each batch's k */
	size_t migrate_at;         /* > 0: thread 1's n-th kept batch changes its CPU */
	size_t stop_at;            /* > 0: thread 0's n-th kept batch raises the flag */
	size_t fail_at;            /* > 0: thread 2's n-th kept batch fails */
	volatile sig_atomic_t *stop;
};

static _Thread_local int thread_cpu; /* the fake CPU of each worker */

static int thread_cpu_query(void)
{
	return thread_cpu;
}

static int tfake_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                       struct pb_harness_batch *out)
{
	struct tfake *f = ctx;
	(void)i;
	if (thread >= f->threads) {
		atomic_fetch_add(&f->bad_thread, 1);
		return 0;
	}
	if (phase == PB_HARNESS_CALIBRATE) {
		if (thread != 0)
			atomic_fetch_add(&f->cal_not_0, 1);
		f->cal[thread]++;
		out->begin_stamp = BASE;
		out->ticks = OVERHEAD + PER_ONE;
		return 0;
	}
	size_t j = f->n[thread]++;
	/* the end barrier: every thread finished sample j - 1 before any
	 * begins sample j */
	if (atomic_load(&f->done) < j * f->threads)
		atomic_fetch_add(&f->early, 1);
	if (j < MAXS)
		f->seen_k[thread][j] = k;
	out->begin_stamp = BASE * (j + 1) + SKEW * thread;
	out->ticks = OVERHEAD + PER_ONE * (double)k + SLOWER * thread;
	if (phase == PB_HARNESS_KEEP) {
		if (thread == 1 && f->migrate_at && j + 1 == f->migrate_at)
			thread_cpu++;
		if (thread == 0 && f->stop_at && j + 1 == f->stop_at)
			*f->stop = 1;
		if (thread == 2 && f->fail_at && j + 1 == f->fail_at) {
			atomic_fetch_add(&f->done, 1);
			return pb_fail("thread 2 failed on purpose");
		}
	}
	atomic_fetch_add(&f->done, 1);
	return 0;
}

static struct pb_harness_params tparams(struct tfake *f, unsigned threads, uint64_t *rng)
{
	f->threads = threads;
	cts[0] = (struct pb_harness_contender){.max_k = 1u << 20};
	return (struct pb_harness_params){
	    .n_contenders = 1,
	    .contenders = cts,
	    .time_batch = tfake_batch,
	    .ctx = f,
	    .warmup_samples = 1,
	    .min_samples = 8,
	    .max_samples = 8,
	    .budget_s = 1e9,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .rng = rng,
	    .overhead_ticks = OVERHEAD,
	    .target_ticks = TARGET,
	    .cpu_now = thread_cpu_query,
	    .threads = threads,
	};
}

/* The barrier and the span: every thread's batch ran once per sample,
 * never ahead of the others; indices 0..N-1; calibration on thread 0
 * alone; the sample spans first begin .. last end, covers each thread's
 * own span and counts k x N calls. */
static void threads_barrier_and_span(unsigned n)
{
	static struct tfake f;
	memset(&f, 0, sizeof f);
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, n, &rng);
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_false(r.interrupted);
	assert_int_equal(r.threads, n);
	assert_non_null(r.thread_cpus);
	assert_int_equal(atomic_load(&f.bad_thread), 0);
	assert_int_equal(atomic_load(&f.early), 0);
	assert_int_equal(atomic_load(&f.cal_not_0), 0);
	assert_int_equal(f.cal[0], 4);
	const struct pb_harness_samples *c = &r.c[0];
	assert_int_equal(c->k, 100); /* ceil(TARGET / PER_ONE), one thread's */
	assert_int_equal(c->n_samples, 8);
	for (unsigned t = 0; t < n; t++) {
		assert_int_equal(f.n[t], 1 + 8); /* warm-up + kept: once per sample */
		for (size_t j = 0; j < f.n[t]; j++)
			assert_int_equal(f.seen_k[t][j], 100);
	}
	assert_non_null(c->thread_ticks);
	assert_non_null(c->thread_per_call);
	for (size_t j = 0; j < c->n_samples; j++) {
		assert_int_equal(c->calls[j], 100 * n);
		/* last end - first begin - overhead */
		double span = (double)(SKEW + SLOWER) * (n - 1) + PER_ONE * 100;
		assert_true(fabs(c->ticks[j] - span) < 1e-9);
		for (unsigned t = 0; t < n; t++) {
			double own = c->thread_ticks[j * n + t];
			assert_true(fabs(own - (PER_ONE * 100 + SLOWER * t)) < 1e-9);
			assert_true(c->ticks[j] >= own);
		}
	}
	for (unsigned t = 0; t < n; t++)
		assert_true(fabs(c->thread_per_call[t].median - (PER_ONE + SLOWER * t / 100.0)) <
		            1e-9);
	assert_true(c->per_call.median <
	            PER_ONE); /* N threads' calls over one span: an aggregate */
	pb_harness_result_free(&r);
}

/* thread_after: each worker's untimed restore runs only once every
 * worker of the sample has finished its timed calls (no restore overlaps
 * another thread's timed region), once per batch and thread. */
static atomic_size_t after_seen_timed_short, after_calls;
static int tfake_after(void *ctx, size_t i, unsigned thread)
{
	struct tfake *f = ctx;
	(void)i;
	(void)thread;
	size_t done = atomic_load(&f->done);
	atomic_fetch_add(&after_calls, 1);
	/* sampling batches so far (calibration's do not count): every
	 * thread's of this sample are done before any restore of it, and no
	 * thread's next batch begins before every restore is over */
	if (done % f->threads != 0)
		atomic_fetch_add(&after_seen_timed_short, 1);
	return 0;
}

static void test_threads_after(void **state)
{
	(void)state;
	static struct tfake f;
	memset(&f, 0, sizeof f);
	atomic_store(&after_seen_timed_short, 0);
	atomic_store(&after_calls, 0);
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, 3, &rng);
	p.thread_after = tfake_after;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(r.c[0].n_samples, 8);
	assert_int_equal(atomic_load(&after_seen_timed_short), 0);
	/* 4 calibration batches on thread 0, then 9 samples x 3 threads */
	assert_int_equal(atomic_load(&after_calls), 4 + 9 * 3);
	pb_harness_result_free(&r);
}

static void test_threads_2(void **state)
{
	(void)state;
	threads_barrier_and_span(2);
}

static void test_threads_3(void **state)
{
	(void)state;
	threads_barrier_and_span(3);
}

/* A stop flag raised mid-run (thread 0's 4th kept batch) stops every
 * worker at the next sample: the run returns interrupted, with the 4
 * samples so far, and no thread ran a batch after them. */
static void test_threads_stop(void **state)
{
	(void)state;
	static struct tfake f;
	memset(&f, 0, sizeof f);
	volatile sig_atomic_t stop = 0;
	f.stop = &stop;
	f.stop_at = 1 + 4; /* the warm-up, then 4 kept */
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, 3, &rng);
	p.max_samples = 1000;
	p.stop = &stop;
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_true(r.interrupted);
	assert_int_equal(r.c[0].n_samples, 4);
	for (unsigned t = 0; t < 3; t++)
		assert_int_equal(f.n[t], 5);
	assert_non_null(r.c[0].thread_per_call);
	pb_harness_result_free(&r);
}

/* Any worker migrated: the sample is dropped and counted. */
static void test_threads_migration(void **state)
{
	(void)state;
	static struct tfake f;
	memset(&f, 0, sizeof f);
	f.migrate_at = 1 + 3;
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, 2, &rng);
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(r.c[0].migrations, 1);
	assert_int_equal(r.c[0].n_samples, 7);
	pb_harness_result_free(&r);
}

/* A worker's failure ends the run with its message. */
static void test_threads_failure(void **state)
{
	(void)state;
	static struct tfake f;
	memset(&f, 0, sizeof f);
	f.fail_at = 1 + 2;
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, 3, &rng);
	struct pb_harness_result r;
	assert_int_equal(pb_harness_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "thread 2 failed on purpose"));
}

/* Pinning: the pin callback is called once on every worker, with its
 * index; a CPU list pins for real (here three threads on one CPU: an
 * oversubscribed run works), and a bad CPU fails the run. */
static atomic_uint pinned_mask;
static int pin_record(void *ctx, unsigned thread)
{
	(void)ctx;
	atomic_fetch_or(&pinned_mask, 1u << thread);
	return 0;
}

static void test_threads_pinning(void **state)
{
	(void)state;
	static struct tfake f;
	memset(&f, 0, sizeof f);
	uint64_t rng = 1;
	struct pb_harness_params p = tparams(&f, 3, &rng);
	p.pinning.pin = pin_record;
	struct pb_harness_result r;
	atomic_store(&pinned_mask, 0);
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(atomic_load(&pinned_mask), 7);
	pb_harness_result_free(&r);

	int cpu = sched_getcpu();
	int cpus[3] = {cpu, cpu, cpu};
	memset(&f, 0, sizeof f);
	p = tparams(&f, 3, &rng);
	p.cpu_now = NULL; /* sched_getcpu: pinned, nobody migrates */
	p.pinning.cpus = cpus;
	assert_int_equal(pb_harness_run(&p, &r), 0);
	assert_int_equal(r.c[0].n_samples, 8);
	assert_int_equal(r.c[0].migrations, 0);
	for (unsigned t = 0; t < 3; t++)
		assert_int_equal(r.thread_cpus[t], cpu);
	pb_harness_result_free(&r);

	cpus[1] = -1;
	memset(&f, 0, sizeof f);
	p = tparams(&f, 3, &rng);
	p.pinning.cpus = cpus;
	assert_int_equal(pb_harness_run(&p, &r), -1);
	assert_non_null(strstr(pb_error(), "cannot pin thread 1"));
}

/* pb_harness_on_threads: every index once, each on its own thread. */
static int on_thread_fn(void *ctx, unsigned thread)
{
	atomic_uint *mask = ctx;
	atomic_fetch_or(mask, 1u << thread);
	return thread == 5 ? pb_fail("thread %u says no", thread) : 0;
}

static void test_on_threads(void **state)
{
	(void)state;
	atomic_uint mask = 0;
	assert_int_equal(pb_harness_on_threads(3, NULL, on_thread_fn, &mask), 0);
	assert_int_equal(atomic_load(&mask), 7);
	atomic_store(&mask, 0);
	assert_int_equal(pb_harness_on_threads(6, NULL, on_thread_fn, &mask), -1);
	assert_string_equal(pb_error(), "thread 5 says no");
	assert_int_equal(atomic_load(&mask), 63);
}

/* SplitMix64 against its reference outputs from state 0 (Vigna's
 * splitmix64.c: 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, ...), the state
 * advanced by PB_SEED_STEP each draw. */
static void test_splitmix64(void **state)
{
	(void)state;
	uint64_t s = 0;
	assert_true(pb_splitmix64(&s) == 0xe220a8397b1dcdafull);
	assert_true(s == PB_SEED_STEP);
	assert_true(pb_splitmix64(&s) == 0x6e789e6aa1b965f4ull);
	assert_true(pb_seed_or_default(0) == PB_SEED_STEP);
	assert_true(pb_seed_or_default(5) == 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_splitmix64),
	    cmocka_unit_test(test_calibration_k),
	    cmocka_unit_test(test_warmup_discarded),
	    cmocka_unit_test(test_sample_bounds_and_budget),
	    cmocka_unit_test(test_precision_stop),
	    cmocka_unit_test(test_stop_flag),
	    cmocka_unit_test(test_rounds_shuffled),
	    cmocka_unit_test(test_migrations),
	    cmocka_unit_test(test_summaries),
	    cmocka_unit_test(test_threads_2),
	    cmocka_unit_test(test_threads_after),
	    cmocka_unit_test(test_threads_3),
	    cmocka_unit_test(test_threads_stop),
	    cmocka_unit_test(test_threads_migration),
	    cmocka_unit_test(test_threads_failure),
	    cmocka_unit_test(test_threads_pinning),
	    cmocka_unit_test(test_on_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
