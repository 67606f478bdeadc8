/* sampling.c - see sampling.h. */
#include "suites/sampling.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
