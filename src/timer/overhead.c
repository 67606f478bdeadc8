/* overhead.c - the clock switch the hot path reads, and the overhead of an
 * empty begin/end pair: shared by pb_timer_init() (timer.c) and
 * pb_timer_init_quick(), which the preload library uses. That library
 * links this file and src/timer/<arch>/tsc.c but not timer.c (no
 * calibration, qsort or large static tables inside a preloaded program's
 * first call), so nothing here allocates or calls stdio.
 */
#include <stddef.h>
#include <stdint.h>

#include "primbench/cpu.h"
#include "primbench/timer.h"
#include "timer/timer_internal.h"

int pb_timer_use_tsc;

/* Empty pairs timed before the measured ones: code and TLB warm. */
#define WARMUP_PAIRS 8
/* pb_timer_init_quick()'s measured pairs (on the stack: 808 bytes). */
#define QUICK_PAIRS 101

/* The k-th smallest of v[0..n) (0-based; n >= 1), v reordered so that
 * v[0..k) <= v[k] <= v[k+1..n): Hoare's selection ("FIND", CACM 4(7),
 * 1961) with the middle element as pivot. Expected O(n), no allocation. */
static uint64_t select_k(uint64_t *v, ptrdiff_t n, ptrdiff_t k)
{
	ptrdiff_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint64_t pivot = v[lo + (hi - lo) / 2];
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				uint64_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		}
		/* v[lo..j] <= pivot, v[i..hi] >= pivot, v[j+1..i-1] == pivot */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return v[k];
}

double pb_timer_overhead_measure(uint64_t *scratch, size_t pairs)
{
	for (int i = 0; i < WARMUP_PAIRS; i++)
		(void)pb_timer_end(pb_timer_begin());
	for (size_t i = 0; i < pairs; i++)
		scratch[i] = pb_timer_end(pb_timer_begin());
	ptrdiff_t n = (ptrdiff_t)pairs, mid = n / 2;
	double upper = (double)select_k(scratch, n, mid);
	if (n % 2)
		return upper;
	/* even: the largest of the lower half is the other middle value */
	uint64_t lower = scratch[0];
	for (ptrdiff_t i = 1; i < mid; i++)
		if (scratch[i] > lower)
			lower = scratch[i];
	return ((double)lower + upper) / 2;
}

double pb_timer_overhead_trimmed_mean(const uint64_t *v, size_t n, double median)
{
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if ((double)v[i] <= 2 * median) {
			sum += (double)v[i];
			k++;
		}
	return k ? sum / (double)k : 0;
}

void pb_timer_init_quick(struct pb_timer_quick *out)
{
	pb_timer_use_tsc = pb_tsc_arch_present() && pb_tsc_arch_unusable() == NULL;
	uint64_t t[QUICK_PAIRS];
	out->tsc = pb_timer_use_tsc != 0;
	out->overhead_ticks = pb_timer_overhead_measure(t, QUICK_PAIRS);
	out->overhead_mean_ticks =
	    pb_timer_overhead_trimmed_mean(t, QUICK_PAIRS, out->overhead_ticks);
	if (out->tsc) {
		double hz15, hz16;
		char leaves[160];
		double stated = pb_tsc_arch_stated_hz(leaves, sizeof leaves);
		pb_tsc_cpuid_freq(&hz15, &hz16, leaves, sizeof leaves);
		out->hz = stated > 0 ? stated : hz15 > 0 ? hz15 : hz16;
	} else {
		out->hz = 1e9; /* CLOCK_MONOTONIC_RAW: ticks are ns */
	}
}
