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

/* The mean of v[0..n) (ticks of empty begin/end pairs) over the values at
 * most twice their median `median` (an interrupt or a preemption inside a
 * pair, microseconds, is left out). The correction that makes a timed
 * call's mean reading unbiased: a clock read in steps (21 ticks on the
 * project's VM) gives each pair one of a few step multiples, and a call's
 * readings, dithered over the steps, average to the pair's mean cost plus
 * the call's; the median is one of the multiples and can miss the mean by
 * up to a step (docs/preload.md, "Ticks"). 0 when n is 0. */
double pb_timer_overhead_trimmed_mean(const uint64_t *v, size_t n, double median);

/* ---- provided by src/timer/<arch>/tsc.c ---- */

/* True when this build can read a TSC at all (x86-64), or the arm64
 * generic timer's virtual counter (CNTVCT_EL0): "the counter" below. */
bool pb_tsc_arch_present(void);

/* Why the counter cannot be the clock here, or NULL when it can (x86: the
 * invariant TSC bit clear, or invariant_tsc hidden; arm64: never, the
 * system counter runs at a fixed frequency by architecture, Arm ARM D12.1
 * "About the Generic Timer"). The caller checks pb_tsc_arch_present()
 * first. No allocation. */
const char *pb_tsc_arch_unusable(void);

/* Names of the counter: clock "tsc" / "cntvct_el0" (the machine object's
 * timer.clock), desc ("tsc (lfence; rdtsc; lfence at both ends)"), the
 * unit of its ticks in result files ("tsc_ticks" / "cntvct_ticks",
 * primbench/units.h). */
struct pb_tsc_arch_names {
	const char *clock, *desc, *tick_unit;
};
const struct pb_tsc_arch_names *pb_tsc_arch_names(void);

/* The counter frequency an architectural register states (arm64:
 * CNTFRQ_EL0), 0 where none (x86: cpuid's leaves, pb_tsc_cpuid_freq).
 * desc gets its name ("CNTFRQ_EL0"). */
double pb_tsc_arch_stated_hz(char *desc, size_t desc_len);

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

/* The counter frequency from a register's statement (stated_hz, named
 * `reg`, > 0) and the calibration: the register when the two agree within
 * 1% (as cpuid leaf 0x15 on x86), else the calibration, and desc says the
 * register was set aside and by how much. Pure. */
double pb_timer_choose_stated_hz(double stated_hz, const char *reg, double cal_hz,
                                 double spread_ppm, enum pb_freq_source *source, char *desc,
                                 size_t desc_len);

/* ---- test support ---- */

/* Forgets the measured figures so the next pb_timer_init() measures again
 * (and re-reads the usable features, e.g. after hiding invariant_tsc). */
void pb_timer_reset_for_tests(void);

#endif
