/* harness.c - the measuring harness (include/primbench/harness.h) and the
 * small pieces suites share with it (suites/sampling.h). */
#define _GNU_SOURCE
#include "primbench/harness.h"

#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "primbench/error.h"
#include "primbench/timer.h"
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

/* ---- the harness ------------------------------------------------------ */

static bool stopped(const struct pb_harness_params *p)
{
	return p->stop && *p->stop;
}

static int cpu_now(const struct pb_harness_params *p)
{
	return p->cpu_now ? p->cpu_now() : sched_getcpu();
}

static int add_sample(const struct pb_harness_params *p, struct pb_harness_samples *c, double ticks,
                      double read_ticks, uint64_t calls)
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
		c->cap = cap;
	}
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
static int calibrate(const struct pb_harness_params *p, struct pb_harness_result *r)
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
			int rc = p->time_batch(p->ctx, i, 0, 1, PB_HARNESS_CALIBRATE, &b);
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
	return add_sample(p, c, v > 0 ? v : 0, rv > 0 ? rv : 0, calls);
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
static int run_rounds(const struct pb_harness_params *p, struct pb_harness_result *r)
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
			rc = take_sample(p, &r->c[order[j]], order[j], warm, &kept);
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
	return rc;
}

int pb_harness_run(const struct pb_harness_params *p, struct pb_harness_result *r)
{
	memset(r, 0, sizeof *r);
	if (!p->time_batch || !p->rng || (p->n_contenders && !p->contenders))
		return pb_fail("harness: no batch callback, contenders or rng");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	if (p->threads > 1)
		return pb_fail("harness: %u threads: one thread only so far", p->threads);
	for (size_t i = 0; i < p->n_contenders; i++)
		if (!p->contenders[i].fixed_k && p->contenders[i].max_k < 1)
			return pb_fail("harness: contender %zu has no max_k", i);
	r->c = calloc(p->n_contenders ? p->n_contenders : 1, sizeof *r->c);
	if (!r->c)
		return pb_fail("out of memory");
	r->n_contenders = p->n_contenders;
	int rc = calibrate(p, r);
	if (rc == 0)
		rc = run_rounds(p, r);
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
	for (size_t i = 0; r->c && i < r->n_contenders; i++) {
		free(r->c[i].ticks);
		free(r->c[i].read_ticks);
		free(r->c[i].calls);
	}
	free(r->c);
	memset(r, 0, sizeof *r);
}
