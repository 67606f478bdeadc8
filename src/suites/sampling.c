/* sampling.c - see sampling.h. */
#include "suites/sampling.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "primbench/timer.h"

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

size_t pb_batch_calls(double best_ticks, double target_ticks, size_t max_calls)
{
	double per = best_ticks - pb_timer_info()->overhead_ticks;
	if (per < 1)
		per = 1;
	double k = ceil(target_ticks / per);
	if (k < 1)
		k = 1;
	return k > (double)max_calls ? max_calls : (size_t)k;
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
