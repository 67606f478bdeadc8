/* harness.c - the measuring harness (include/primbench/harness.h) and the
 * small pieces suites share with it (suites/sampling.h). */
#define _GNU_SOURCE
#include "primbench/harness.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "primbench/error.h"
#include "primbench/replicates.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"
#include "suites/sampling.h"

uint64_t pb_rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

uint64_t pb_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += PB_SEED_STEP);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void pb_shuffle_u32(uint32_t *a, size_t n, uint64_t *rng)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = pb_rng_next(rng) % i;
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* The least a batch should last, in ns. */
#define MIN_BATCH_NS 20000.0

double pb_batch_target_ticks(void)
{
	const struct pb_timer_info *ti = pb_timer_info();
	double target = MIN_BATCH_NS * ti->hz / 1e9;
	if (target < 1000 * ti->step_ticks)
		target = 1000 * ti->step_ticks;
	if (target < 200 * ti->overhead_ticks)
		target = 200 * ti->overhead_ticks;
	return target;
}

static size_t batch_calls(double best_ticks, double overhead_ticks, double target_ticks,
                          size_t max_calls)
{
	double per = best_ticks - overhead_ticks;
	if (per < 1)
		per = 1;
	double k = ceil(target_ticks / per);
	if (k < 1)
		k = 1;
	return k > (double)max_calls ? max_calls : (size_t)k;
}

size_t pb_batch_calls(double best_ticks, double target_ticks, size_t max_calls)
{
	return batch_calls(best_ticks, pb_timer_info()->overhead_ticks, target_ticks, max_calls);
}

double pb_monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pb_note_append(char *notes, size_t cap, const char *fmt, ...)
{
	size_t used = strlen(notes);
	if (used + 2 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(notes + used, cap - used - 1, fmt, ap);
	va_end(ap);
	used = strlen(notes);
	notes[used] = '\n';
	notes[used + 1] = '\0';
}

/* ---- worker threads (threads > 1) -------------------------------------- */

/* Pins the calling thread as worker t. */
static int pin_self(const struct pb_harness_pinning *pn, unsigned t)
{
	if (!pn)
		return 0;
	if (pn->pin)
		return pn->pin(pn->pin_ctx, t);
	if (!pn->cpus)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	if (pn->cpus[t] < 0 || pn->cpus[t] >= CPU_SETSIZE)
		return pb_fail("cannot pin thread %u to CPU %d: no such CPU", t, pn->cpus[t]);
	CPU_SET(pn->cpus[t], &set);
	int e = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	if (e)
		return pb_fail("cannot pin thread %u to CPU %d: %s", t, pn->cpus[t], strerror(e));
	return 0;
}

/* The N workers of one run. The calling thread writes a command, both
 * sides meet at `start`, the workers act, and all meet at `end` (except
 * after QUIT, where the workers return). */
enum pool_cmd { POOL_READY, POOL_BATCH, POOL_QUIT };

struct pool;
struct worker {
	struct pool *pool;
	pthread_t tid;
	unsigned t;
	int cpu;       /* cpu_now() once pinned */
	int rc;        /* pinning's, then each batch callback's */
	bool migrated; /* the batch's two CPU queries differed */
	struct pb_harness_batch b;
	char error[512]; /* its pb_error() when rc < 0 */
};

struct pool {
	const struct pb_harness_params *p;
	unsigned n;
	struct worker *w;
	pthread_barrier_t start, end;
	pthread_barrier_t timed; /* the workers alone: every timed region is over */
	/* the gate: workers wait for it once, until every one was created */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	bool gate_open, gate_abort;
	/* the command (written before `start`, read after it) */
	enum pool_cmd cmd;
	size_t contender, k;
	enum pb_harness_phase phase;
	bool only0; /* calibration: worker 0 alone */
};

static int cpu_now(const struct pb_harness_params *p);

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct pool *pl = w->pool;
	const struct pb_harness_params *p = pl->p;
	w->rc = pin_self(&p->pinning, w->t);
	if (w->rc < 0)
		snprintf(w->error, sizeof w->error, "%s", pb_error());
	w->cpu = cpu_now(p);
	pthread_mutex_lock(&pl->gate_mu);
	while (!pl->gate_open)
		pthread_cond_wait(&pl->gate_cv, &pl->gate_mu);
	bool abort_now = pl->gate_abort;
	pthread_mutex_unlock(&pl->gate_mu);
	if (abort_now)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&pl->start);
		if (pl->cmd == POOL_QUIT)
			return NULL;
		if (pl->cmd == POOL_BATCH) {
			w->rc = 0;
			w->migrated = false;
			w->b = (struct pb_harness_batch){0};
			if (!pl->only0 || w->t == 0) {
				int cpu0 = cpu_now(p);
				w->rc = p->time_batch(p->ctx, pl->contender, w->t, pl->k, pl->phase,
				                      &w->b);
				if (w->rc < 0)
					snprintf(w->error, sizeof w->error, "%s", pb_error());
				w->migrated = cpu_now(p) != cpu0;
			}
			if (p->thread_after) {
				pthread_barrier_wait(&pl->timed);
				if (w->rc >= 0 && (!pl->only0 || w->t == 0) &&
				    p->thread_after(p->ctx, pl->contender, w->t) < 0) {
					w->rc = -1;
					snprintf(w->error, sizeof w->error, "%s", pb_error());
				}
			}
		}
		pthread_barrier_wait(&pl->end);
	}
}

/* One command for every worker; returns when all are done with it. */
static void pool_round(struct pool *pl, enum pool_cmd cmd)
{
	pl->cmd = cmd;
	pthread_barrier_wait(&pl->start);
	if (cmd != POOL_QUIT)
		pthread_barrier_wait(&pl->end);
}

static void open_gate(struct pool *pl, bool abort_now)
{
	pthread_mutex_lock(&pl->gate_mu);
	pl->gate_open = true;
	pl->gate_abort = abort_now;
	pthread_cond_broadcast(&pl->gate_cv);
	pthread_mutex_unlock(&pl->gate_mu);
}

/* Joins created workers and frees the pool (barriers when `barriers`). */
static void pool_free(struct pool *pl, unsigned created, bool barriers)
{
	for (unsigned t = 0; t < created; t++)
		pthread_join(pl->w[t].tid, NULL);
	if (barriers) {
		pthread_barrier_destroy(&pl->start);
		pthread_barrier_destroy(&pl->end);
		pthread_barrier_destroy(&pl->timed);
	}
	pthread_mutex_destroy(&pl->gate_mu);
	pthread_cond_destroy(&pl->gate_cv);
	free(pl->w);
	free(pl);
}

/* Starts p->threads workers, pinned, and waits until each is ready.
 * Returns the pool, or NULL with pb_error(). */
static struct pool *pool_start(const struct pb_harness_params *p)
{
	struct pool *pl = calloc(1, sizeof *pl);
	struct worker *w = calloc(p->threads, sizeof *w);
	if (!pl || !w) {
		free(pl);
		free(w);
		pb_fail("out of memory for %u threads", p->threads);
		return NULL;
	}
	pl->p = p;
	pl->n = p->threads;
	pl->w = w;
	pthread_mutex_init(&pl->gate_mu, NULL);
	pthread_cond_init(&pl->gate_cv, NULL);
	unsigned created = 0;
	int e = 0;
	for (; created < pl->n; created++) {
		w[created] = (struct worker){.pool = pl, .t = created};
		e = pthread_create(&w[created].tid, NULL, worker_main, &w[created]);
		if (e)
			break;
	}
	bool barriers = false;
	if (!e) {
		e = pthread_barrier_init(&pl->start, NULL, pl->n + 1);
		if (!e) {
			e = pthread_barrier_init(&pl->end, NULL, pl->n + 1);
			if (e)
				pthread_barrier_destroy(&pl->start);
		}
		if (!e) {
			e = pthread_barrier_init(&pl->timed, NULL, pl->n);
			if (e) {
				pthread_barrier_destroy(&pl->start);
				pthread_barrier_destroy(&pl->end);
			}
		}
		barriers = !e;
	}
	open_gate(pl, !barriers);
	if (!barriers) {
		pool_free(pl, created, false);
		pb_fail("cannot start %u threads: %s", p->threads, strerror(e));
		return NULL;
	}
	pool_round(pl, POOL_READY);
	for (unsigned t = 0; t < pl->n; t++)
		if (w[t].rc < 0) {
			char msg[512];
			snprintf(msg, sizeof msg, "%s", w[t].error);
			pool_round(pl, POOL_QUIT);
			pool_free(pl, pl->n, true);
			pb_fail("%s", msg);
			return NULL;
		}
	return pl;
}

static void pool_stop(struct pool *pl)
{
	if (!pl)
		return;
	pool_round(pl, POOL_QUIT);
	pool_free(pl, pl->n, true);
}

/* One batch on the workers (worker 0 alone with only0). Returns the first
 * failing worker's -1 (pb_error() set), 1 when any returned 1, else 0. */
static int pool_batch(struct pool *pl, size_t i, size_t k, enum pb_harness_phase phase, bool only0)
{
	pl->contender = i;
	pl->k = k;
	pl->phase = phase;
	pl->only0 = only0;
	pool_round(pl, POOL_BATCH);
	int rc = 0;
	for (unsigned t = 0; t < pl->n; t++) {
		if (pl->w[t].rc < 0)
			return pb_fail("%s", pl->w[t].error);
		if (pl->w[t].rc > 0)
			rc = 1;
	}
	return rc;
}

struct on_threads {
	const struct pb_harness_pinning *pinning;
	int (*fn)(void *ctx, unsigned thread);
	void *ctx;
	unsigned t;
	int rc;
	pthread_t tid;
	char error[512];
};

static void *on_thread_main(void *arg)
{
	struct on_threads *o = arg;
	o->rc = pin_self(o->pinning, o->t);
	if (o->rc == 0)
		o->rc = o->fn(o->ctx, o->t);
	if (o->rc != 0)
		snprintf(o->error, sizeof o->error, "%s", pb_error());
	return NULL;
}

int pb_harness_on_threads(unsigned n, const struct pb_harness_pinning *pinning,
                          int (*fn)(void *ctx, unsigned thread), void *ctx)
{
	struct on_threads *o = calloc(n ? n : 1, sizeof *o);
	if (!o)
		return pb_fail("out of memory for %u threads", n);
	unsigned created = 0;
	int e = 0;
	for (; created < n; created++) {
		o[created] =
		    (struct on_threads){.pinning = pinning, .fn = fn, .ctx = ctx, .t = created};
		e = pthread_create(&o[created].tid, NULL, on_thread_main, &o[created]);
		if (e)
			break;
	}
	for (unsigned t = 0; t < created; t++)
		pthread_join(o[t].tid, NULL);
	int rc = 0;
	if (e)
		rc = pb_fail("cannot start %u threads: %s", n, strerror(e));
	for (unsigned t = 0; t < created && rc == 0; t++)
		if (o[t].rc != 0)
			rc = pb_fail("%s", o[t].error);
	free(o);
	return rc;
}

/* ---- the harness ------------------------------------------------------ */

static bool stopped(const struct pb_harness_params *p)
{
	return p->stop && *p->stop;
}

static int cpu_now(const struct pb_harness_params *p)
{
	return p->cpu_now ? p->cpu_now() : sched_getcpu();
}

/* Stores one kept sample; thread_ticks: NULL, or the threads' own ticks. */
static int add_sample(const struct pb_harness_params *p, struct pb_harness_samples *c, double ticks,
                      double read_ticks, uint64_t calls, const double *thread_ticks)
{
	if (c->n_samples == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		double *t = realloc(c->ticks, cap * sizeof *t);
		if (!t)
			return pb_fail("out of memory for samples");
		c->ticks = t;
		uint64_t *n = realloc(c->calls, cap * sizeof *n);
		if (!n)
			return pb_fail("out of memory for samples");
		c->calls = n;
		if (p->read_back) {
			double *rt = realloc(c->read_ticks, cap * sizeof *rt);
			if (!rt)
				return pb_fail("out of memory for samples");
			c->read_ticks = rt;
		}
		if (thread_ticks) {
			double *tt = realloc(c->thread_ticks, cap * p->threads * sizeof *tt);
			if (!tt)
				return pb_fail("out of memory for samples");
			c->thread_ticks = tt;
		}
		c->cap = cap;
	}
	if (thread_ticks)
		memcpy(c->thread_ticks + c->n_samples * p->threads, thread_ticks,
		       p->threads * sizeof *thread_ticks);
	c->ticks[c->n_samples] = ticks;
	c->calls[c->n_samples] = calls;
	if (p->read_back)
		c->read_ticks[c->n_samples] = read_ticks;
	c->n_samples++;
	return 0;
}

/* Per-call values of a contender's samples into a new array (NULL when
 * out of memory). */
static double *per_call(const struct pb_harness_samples *c, const double *ticks)
{
	double *v = malloc((c->n_samples ? c->n_samples : 1) * sizeof *v);
	if (v)
		for (size_t i = 0; i < c->n_samples; i++)
			v[i] = ticks[i] / (double)c->calls[i];
	return v;
}

/* k for every contender: fixed, or from the least of three single calls
 * after a discarded one. Stops early (k left 0) when the flag is set. */
static int calibrate(const struct pb_harness_params *p, struct pool *pl,
                     struct pb_harness_result *r)
{
	double target = p->target_ticks > 0 ? p->target_ticks : pb_batch_target_ticks();
	for (size_t i = 0; i < p->n_contenders; i++) {
		const struct pb_harness_contender *ct = &p->contenders[i];
		if (stopped(p))
			return 0;
		if (ct->fixed_k) {
			r->c[i].k = ct->fixed_k;
			continue;
		}
		double best = INFINITY;
		size_t k = 0;
		for (int rep = 0; rep < 4 && k == 0; rep++) {
			struct pb_harness_batch b = {0};
			int rc;
			if (pl) { /* worker 0 alone */
				rc = pool_batch(pl, i, 1, PB_HARNESS_CALIBRATE, true);
				b = pl->w[0].b;
			} else {
				rc = p->time_batch(p->ctx, i, 0, 1, PB_HARNESS_CALIBRATE, &b);
			}
			if (rc < 0)
				return -1;
			if (rc > 0) {
				k = 1; /* nothing timed: the rounds' stop check ends it */
				break;
			}
			if (p->after_batch)
				p->after_batch(p->ctx, i, 1);
			if (rep > 0 && b.ticks < best)
				best = b.ticks;
		}
		r->c[i].k = k ? k : batch_calls(best, p->overhead_ticks, target, ct->max_k);
	}
	return 0;
}

/* One sample of contender i; *kept tells whether it was stored. */
static int take_sample(const struct pb_harness_params *p, struct pb_harness_samples *c, size_t i,
                       bool warm, bool *kept)
{
	struct pb_harness_batch b = {0};
	*kept = false;
	int cpu0 = cpu_now(p);
	int rc = p->time_batch(p->ctx, i, 0, c->k, warm ? PB_HARNESS_WARMUP : PB_HARNESS_KEEP, &b);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	int cpu1 = cpu_now(p);
	if (p->after_batch)
		p->after_batch(p->ctx, i, c->k);
	if (warm)
		return 0;
	if (cpu0 != cpu1) {
		/* A migration mixes two CPUs' caches and clocks: dropped, counted. */
		c->migrations++;
		return 0;
	}
	double v = b.ticks - p->overhead_ticks, rv = b.read_ticks - p->overhead_ticks;
	uint64_t calls = (uint64_t)c->k * (p->calls_per_k ? p->calls_per_k : 1);
	*kept = true;
	return add_sample(p, c, v > 0 ? v : 0, rv > 0 ? rv : 0, calls, NULL);
}

static double at_least_0(double v)
{
	return v > 0 ? v : 0;
}

/* take_sample on the workers: the span first begin .. last end, with
 * k x calls_per_k x N calls, and each thread's own ticks beside it. */
static int take_pool_sample(const struct pb_harness_params *p, struct pool *pl,
                            struct pb_harness_samples *c, size_t i, bool warm, bool *kept)
{
	*kept = false;
	int rc = pool_batch(pl, i, c->k, warm ? PB_HARNESS_WARMUP : PB_HARNESS_KEEP, false);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (p->after_batch)
		p->after_batch(p->ctx, i, c->k);
	if (warm)
		return 0;
	bool migrated = false;
	for (unsigned t = 0; t < pl->n; t++)
		migrated |= pl->w[t].migrated;
	if (migrated) {
		c->migrations++;
		return 0;
	}
	double *own = malloc(pl->n * sizeof *own);
	if (!own)
		return pb_fail("out of memory for samples");
	uint64_t first = pl->w[0].b.begin_stamp, last = first;
	double read = 0;
	for (unsigned t = 0; t < pl->n; t++) {
		const struct pb_harness_batch *b = &pl->w[t].b;
		uint64_t end = b->begin_stamp + (uint64_t)llround(b->ticks > 0 ? b->ticks : 0);
		if (b->begin_stamp < first)
			first = b->begin_stamp;
		if (end > last)
			last = end;
		own[t] = at_least_0(b->ticks - p->overhead_ticks);
		if (b->read_ticks > read)
			read = b->read_ticks;
	}
	uint64_t calls = (uint64_t)c->k * (p->calls_per_k ? p->calls_per_k : 1) * pl->n;
	*kept = true;
	rc = add_sample(p, c, at_least_0((double)(last - first) - p->overhead_ticks),
	                at_least_0(read - p->overhead_ticks), calls, own);
	free(own);
	return rc;
}

/* Whether every contender's CI half-width is at most precision x median. */
static bool precise_enough(const struct pb_harness_params *p, const struct pb_harness_result *r)
{
	for (size_t i = 0; i < p->n_contenders; i++) {
		const struct pb_harness_samples *c = &r->c[i];
		struct pb_summary s;
		double *v = per_call(c, c->ticks);
		if (!v)
			return false;
		int rc = pb_summarize(v, c->n_samples, 0.95, &s);
		free(v);
		if (rc != 0 || !s.ci_valid || s.median <= 0 ||
		    (s.ci_hi - s.ci_lo) / 2 > p->precision * s.median)
			return false;
	}
	return true;
}

/* Warm-up rounds, then kept rounds until a bound, the budget, the
 * precision or the stop flag. */
static int run_rounds(const struct pb_harness_params *p, struct pool *pl,
                      struct pb_harness_result *r)
{
	size_t n = p->n_contenders;
	uint32_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return pb_fail("out of memory");
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	int rc = 0;
	double start = pb_monotonic_s();
	size_t rounds = p->warmup_samples + p->max_samples;
	for (size_t round = 0; round < rounds && rc == 0; round++) {
		bool warm = round < p->warmup_samples;
		if (!warm && round - p->warmup_samples >= p->min_samples) {
			if (pb_monotonic_s() - start >= p->budget_s)
				break;
			if (p->precision > 0 && precise_enough(p, r))
				break;
		}
		if (stopped(p))
			break;
		pb_shuffle_u32(order, n, p->rng);
		for (size_t j = 0; j < n && rc == 0; j++) {
			bool kept;
			rc = pl ? take_pool_sample(p, pl, &r->c[order[j]], order[j], warm, &kept)
			        : take_sample(p, &r->c[order[j]], order[j], warm, &kept);
			bool check = p->stop_check == PB_HARNESS_STOP_EACH_SAMPLE ||
			             (p->stop_check == PB_HARNESS_STOP_AFTER_KEPT && kept);
			if (check && stopped(p))
				break;
		}
	}
	free(order);
	return rc;
}

static int summarize(const struct pb_harness_params *p, struct pb_harness_samples *c)
{
	if (c->n_samples == 0)
		return 0;
	double *v = per_call(c, c->ticks);
	if (!v)
		return pb_fail("out of memory");
	int rc = pb_summarize(v, c->n_samples, 0.95, &c->per_call);
	if (rc == 0)
		rc = pb_count_outliers_mz(v, c->n_samples, 3.5, &c->outliers);
	free(v);
	if (rc == 0 && p->read_back) {
		v = per_call(c, c->read_ticks);
		if (!v)
			return pb_fail("out of memory");
		rc = pb_summarize(v, c->n_samples, 0.95, &c->read_per_call);
		free(v);
	}
	if (rc == 0 && c->thread_ticks) {
		/* each thread's own span over its own k x calls_per_k calls */
		unsigned n = p->threads;
		c->thread_per_call = calloc(n, sizeof *c->thread_per_call);
		v = malloc(c->n_samples * sizeof *v);
		if (!c->thread_per_call || !v) {
			free(v);
			return pb_fail("out of memory");
		}
		for (unsigned t = 0; t < n && rc == 0; t++) {
			for (size_t j = 0; j < c->n_samples; j++)
				v[j] = c->thread_ticks[j * n + t] / (double)(c->calls[j] / n);
			rc = pb_summarize(v, c->n_samples, 0.95, &c->thread_per_call[t]);
		}
		free(v);
	}
	return rc;
}

int pb_harness_run(const struct pb_harness_params *p, struct pb_harness_result *r)
{
	memset(r, 0, sizeof *r);
	if (!p->time_batch || !p->rng || (p->n_contenders && !p->contenders))
		return pb_fail("harness: no batch callback, contenders or rng");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	for (size_t i = 0; i < p->n_contenders; i++)
		if (!p->contenders[i].fixed_k && p->contenders[i].max_k < 1)
			return pb_fail("harness: contender %zu has no max_k", i);
	r->c = calloc(p->n_contenders ? p->n_contenders : 1, sizeof *r->c);
	if (!r->c)
		return pb_fail("out of memory");
	r->n_contenders = p->n_contenders;
	r->threads = p->threads > 1 ? p->threads : 1;
	struct pool *pl = NULL;
	if (p->threads > 1) {
		r->thread_cpus = malloc(p->threads * sizeof *r->thread_cpus);
		pl = r->thread_cpus ? pool_start(p) : NULL;
		if (!pl) {
			if (!r->thread_cpus)
				pb_fail("out of memory");
			pb_harness_result_free(r);
			return -1;
		}
		for (unsigned t = 0; t < p->threads; t++)
			r->thread_cpus[t] = pl->w[t].cpu;
	}
	int rc = calibrate(p, pl, r);
	if (rc == 0)
		rc = run_rounds(p, pl, r);
	/* every worker stops here, also on a stop flag or a failure */
	pool_stop(pl);
	for (size_t i = 0; i < p->n_contenders && rc == 0; i++)
		rc = summarize(p, &r->c[i]);
	r->interrupted = stopped(p);
	if (rc != 0) {
		pb_harness_result_free(r);
		return -1;
	}
	return 0;
}

void pb_harness_result_free(struct pb_harness_result *r)
{
	static const size_t owned[] = {offsetof(struct pb_harness_samples, ticks),
	                               offsetof(struct pb_harness_samples, read_ticks),
	                               offsetof(struct pb_harness_samples, calls),
	                               offsetof(struct pb_harness_samples, thread_ticks),
	                               offsetof(struct pb_harness_samples, thread_per_call)};
	PB_FREE_STRUCTS(r->c, r->n_contenders, owned);
	free(r->thread_cpus);
	memset(r, 0, sizeof *r);
}
