/* tsc_sync.c - the TSC synchronization check (include/primbench/tsc_sync.h).
 *
 * Generic C: the TSC is read through pb_tsc_read() (src/timer/<arch>/
 * tsc.c), which orders the read after the load that received the token
 * and before the store that sends it (lfence on both sides), so a stamp
 * lies between the messages it is compared with.
 *
 * The spin loops have no pause instruction: a pause (about 140 cycles on
 * Skylake and later) would widen every round trip and so the bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/tsc_sync.h"
#include "timer/timer_internal.h"

#define DEFAULT_ROUNDS 20000u
#define ABORT          UINT64_MAX

/* The token and b's stamp share one cache line, alone on it. */
struct line {
	_Alignas(64) _Atomic uint64_t seq; /* 2i+1: a sent round i; 2i+2: b answered */
	_Atomic uint64_t b_stamp;
	char pad[64 - 2 * sizeof(uint64_t)];
};

struct side {
	struct line *line;
	unsigned cpu, rounds;
	_Atomic int *ready; /* b: 1 pinned, -1 failed; a waits for it */
	int err;            /* errno of a failed pin, 0 */
	/* a only: the intersection of the rounds' bounds */
	int64_t lo, hi;
	uint64_t min_rtt;
};

static int pin_self(unsigned cpu)
{
	cpu_set_t one;
	if (cpu >= CPU_SETSIZE)
		return EINVAL;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof one, &one) == 0 ? 0 : errno;
}

/* Spins until seq == want; false when a aborted. */
static bool wait_for(struct line *l, uint64_t want)
{
	for (;;) {
		uint64_t s = atomic_load_explicit(&l->seq, memory_order_acquire);
		if (s == want)
			return true;
		if (s == ABORT)
			return false;
	}
}

static void *run_b(void *arg)
{
	struct side *b = arg;
	b->err = pin_self(b->cpu);
	atomic_store(b->ready, b->err ? -1 : 1);
	if (b->err)
		return NULL;
	for (unsigned i = 0; i < b->rounds; i++) {
		if (!wait_for(b->line, 2 * (uint64_t)i + 1))
			return NULL;
		uint64_t t = pb_tsc_read();
		atomic_store_explicit(&b->line->b_stamp, t, memory_order_relaxed);
		atomic_store_explicit(&b->line->seq, 2 * (uint64_t)i + 2, memory_order_release);
	}
	return NULL;
}

static void *run_a(void *arg)
{
	struct side *a = arg;
	a->err = pin_self(a->cpu);
	int r;
	while ((r = atomic_load(a->ready)) == 0)
		;
	if (a->err || r < 0) {
		atomic_store(&a->line->seq, ABORT);
		return NULL;
	}
	a->lo = INT64_MIN;
	a->hi = INT64_MAX;
	a->min_rtt = UINT64_MAX;
	uint64_t sent = pb_tsc_read();
	for (unsigned i = 0; i < a->rounds; i++) {
		atomic_store_explicit(&a->line->seq, 2 * (uint64_t)i + 1, memory_order_release);
		wait_for(a->line, 2 * (uint64_t)i + 2);
		uint64_t back = pb_tsc_read();
		uint64_t b = atomic_load_explicit(&a->line->b_stamp, memory_order_relaxed);
		/* b's stamp came after `sent` and before `back` (in real time). */
		int64_t hi = (int64_t)(b - sent), lo = (int64_t)(b - back);
		if (hi < a->hi)
			a->hi = hi;
		if (lo > a->lo)
			a->lo = lo;
		if (back - sent < a->min_rtt)
			a->min_rtt = back - sent;
		sent = back;
	}
	return NULL;
}

int pb_tsc_sync_pair(unsigned cpu_a, unsigned cpu_b, unsigned rounds, struct pb_tsc_pair *out)
{
	memset(out, 0, sizeof *out);
	out->cpu_a = cpu_a;
	out->cpu_b = cpu_b;
	if (!pb_tsc_arch_present())
		return pb_fail("no TSC on this architecture build");
	if (cpu_a == cpu_b)
		return pb_fail("the TSC check needs two CPUs (both are %u)", cpu_a);
	struct line *line = aligned_alloc(64, sizeof *line);
	if (!line)
		return pb_fail("out of memory");
	atomic_init(&line->seq, 0);
	atomic_init(&line->b_stamp, 0);
	_Atomic int ready = 0;
	unsigned n = rounds ? rounds : DEFAULT_ROUNDS;
	struct side a = {.line = line, .cpu = cpu_a, .rounds = n, .ready = &ready};
	struct side b = {.line = line, .cpu = cpu_b, .rounds = n, .ready = &ready};
	pthread_t ta, tb;
	int rc = pthread_create(&tb, NULL, run_b, &b);
	if (rc != 0) {
		free(line);
		return pb_fail("cannot start a thread: %s", strerror(rc));
	}
	rc = pthread_create(&ta, NULL, run_a, &a);
	if (rc != 0) {
		atomic_store(&line->seq, ABORT); /* b leaves its first wait */
		pthread_join(tb, NULL);
		free(line);
		return pb_fail("cannot start a thread: %s", strerror(rc));
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	free(line);
	if (b.err || a.err)
		return pb_fail("cannot run on CPU %u: %s", b.err ? cpu_b : cpu_a,
		               strerror(b.err ? b.err : a.err));
	out->offset_ticks = ((double)a.lo + (double)a.hi) / 2;
	out->bound_ticks = ((double)a.hi - (double)a.lo) / 2;
	out->min_round_trip_ticks = a.min_rtt;
	out->synchronized = a.lo <= a.hi && a.lo <= 0 && a.hi >= 0;
	return 0;
}

int pb_tsc_sync_check(const unsigned *cpus, unsigned n_cpus, unsigned rounds,
                      struct pb_tsc_sync *out)
{
	memset(out, 0, sizeof *out);
	if (n_cpus == 0)
		return pb_fail("the TSC check needs at least one CPU");
	out->worst_cpu = cpus[0];
	out->invariant = pb_tsc_arch_present() && pb_tsc_arch_unusable() == NULL;
	if (!pb_tsc_arch_present()) {
		snprintf(out->note, sizeof out->note, "no TSC on this architecture build");
		return 0;
	}
	out->synchronized = true;
	for (unsigned i = 1; i < n_cpus; i++) {
		if (cpus[i] == cpus[0])
			continue;
		struct pb_tsc_pair p;
		if (pb_tsc_sync_pair(cpus[0], cpus[i], rounds, &p) != 0)
			return -1;
		double off = p.offset_ticks < 0 ? -p.offset_ticks : p.offset_ticks;
		if (out->n_pairs == 0 || off > out->max_abs_offset_ticks) {
			out->max_abs_offset_ticks = off;
			out->bound_ticks = p.bound_ticks;
			out->worst_cpu = cpus[i];
		}
		if (out->n_pairs == 0 || p.min_round_trip_ticks < out->min_round_trip_ticks)
			out->min_round_trip_ticks = p.min_round_trip_ticks;
		out->synchronized &= p.synchronized;
		out->n_pairs++;
	}
	out->measured = out->n_pairs > 0;
	if (!out->measured)
		snprintf(out->note, sizeof out->note, "one CPU: nothing to compare");
	else if (!out->synchronized)
		snprintf(out->note, sizeof out->note,
		         "CPU %u's TSC is %.0f ticks from CPU %u's (bound %.0f): stamps taken on "
		         "different CPUs do not compare",
		         out->worst_cpu, out->max_abs_offset_ticks, cpus[0], out->bound_ticks);
	else if (!out->invariant)
		snprintf(out->note, sizeof out->note,
		         "the TSC is not invariant (cpuid 0x80000007:EDX[8] clear or hidden): "
		         "its rate may change");
	return 0;
}
