/* timer_internal.h - what src/timer/<arch>/tsc.c and overhead.c provide to
 * timer.c, and the test-only reset. Nothing outside src/timer and its tests
 * includes it (tests/check_layers.py checks).
 */
#ifndef PRIMBENCH_TIMER_INTERNAL_H
#define PRIMBENCH_TIMER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "primbench/timer.h"

/* The mode the hot path branches on: non-zero = TSC. Set by
 * pb_timer_init() before any figure is measured; 0 (the clock) before. */
extern int pb_timer_use_tsc;

/* CLOCK_MONOTONIC_RAW in nanoseconds: the fallback clock and the
 * reference the TSC is calibrated against (not slewed by NTP). */
static inline uint64_t pb_clock_raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- in overhead.c (also linked into the preload library) ---- */

/* Times `pairs` empty begin/end pairs (after a few untimed ones) into
 * scratch[0..pairs) and returns their median in ticks (reorders scratch;
 * pairs >= 1). No allocation. */
double pb_timer_overhead_measure(uint64_t *scratch, size_t pairs);

/* ---- provided by src/timer/<arch>/tsc.c ---- */

/* True when this build can read a TSC at all (x86-64). */
bool pb_tsc_arch_present(void);

/* One serialized TSC read, the same sequence pb_timer_begin() uses. */
uint64_t pb_tsc_read(void);

/* The TSC frequency cpuid states: *hz15 from leaf 0x15 (crystal Hz *
 * EBX/EAX, when EAX, EBX and ECX are non-zero), *hz16 from leaf 0x16 (base
 * MHz * 1e6); 0 where not given. desc gets what the leaves said, e.g.
 * "cpuid leaves 0x15/0x16 present but zero". */
void pb_tsc_cpuid_freq(double *hz15, double *hz16, char *desc, size_t desc_len);

/* Runs a dependent chain of about n register-register adds (one add per
 * core cycle). Returns the number of adds run, 0 when not available. */
uint64_t pb_arch_add_chain(uint64_t n);

/* ---- in timer.c, apart so tests can feed it ---- */

/* The TSC frequency from cpuid's figures (0 = not given) and the
 * calibration: returns hz, sets *source and a description (docs/
 * methodology.md, "Frequency and where it came from"). Pure. */
double pb_timer_choose_hz(double hz15, double hz16, const char *leaves, double cal_hz,
                          double spread_ppm, enum pb_freq_source *source, char *desc,
                          size_t desc_len);

/* ---- test support ---- */

/* Forgets the measured figures so the next pb_timer_init() measures again
 * (and re-reads the usable features, e.g. after hiding invariant_tsc). */
void pb_timer_reset_for_tests(void);

#endif
