/* primbench/timer.h - all clock code lives behind this header.
 *
 * Callers never read the TSC themselves: they take a stamp with
 * pb_timer_begin() and get the ticks since it from pb_timer_end().
 *
 * TSC mode (x86-64, invariant TSC reported by cpuid 0x80000007:EDX[8]):
 * begin = lfence; rdtsc; lfence   end = lfence; rdtsc; lfence
 * (Intel SDM Vol. 2B, RDTSC: "LFENCE immediately before RDTSC" waits for
 * earlier instructions, "LFENCE immediately after" keeps later ones from
 * starting; AMD APM Vol. 3 RDTSC likewise with LFENCE dispatch-serializing).
 * rdtscp is not used, even where cpuid reports it (src/timer/x86_64/tsc.c
 * says why): one sequence at both ends, on every machine.
 * Ticks are TSC ticks: reference cycles at the TSC frequency, not core
 * cycles.
 *
 * arm64: the generic timer's virtual counter, isb; mrs CNTVCT_EL0; isb at
 * both ends (src/timer/aarch64/tsc.c); its frequency CNTFRQ_EL0, checked
 * against CLOCK_MONOTONIC_RAW. Ticks are counter ticks at that frequency
 * (often 24-1000 MHz), not cycles. "TSC" below means this counter there.
 *
 * Fallback mode (no invariant TSC, non-x86, or hidden with
 * PRIMBENCH_HIDE_FEATURES=invariant_tsc): clock_gettime(CLOCK_MONOTONIC_RAW),
 * ticks are nanoseconds and hz is 1e9.
 */
#ifndef PRIMBENCH_TIMER_H
#define PRIMBENCH_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_clock { PB_CLOCK_TSC, PB_CLOCK_MONOTONIC_RAW };

enum pb_freq_source {
	PB_FREQ_CPUID_15H,  /* cpuid leaf 0x15: crystal Hz * EBX/EAX */
	PB_FREQ_CPUID_16H,  /* cpuid leaf 0x16: base MHz (approximate) */
	PB_FREQ_CALIBRATED, /* measured against CLOCK_MONOTONIC_RAW */
	PB_FREQ_NOMINAL_NS, /* fallback clock: 1 tick = 1 ns by definition */
	PB_FREQ_REGISTER,   /* arm64: CNTFRQ_EL0, agreeing with calibration */
};

struct pb_timer_info {
	enum pb_clock clock;         /* PB_CLOCK_TSC: the CPU's counter (x86 TSC, arm64
	                                CNTVCT_EL0) */
	const char *clock_name;      /* "tsc", "cntvct_el0", "clock_monotonic_raw" */
	const char *tick_unit;       /* unit of ticks in result files: "tsc_ticks",
	                                "cntvct_ticks", "ns" (primbench/units.h) */
	const char *clock_desc;      /* "tsc (lfence; rdtsc; lfence)" etc. */
	const char *fallback_reason; /* why not the TSC, or NULL */
	double hz;                   /* ticks per second */
	enum pb_freq_source freq_source;
	const char *freq_source_desc; /* human-readable, e.g. "calibrated against
	                                 CLOCK_MONOTONIC_RAW (5 x 20 ms)" */
	double calibrated_hz; /* calibration result (also when cpuid gave hz), 0 if not run */
	double calibration_error_ppm; /* spread of the calibration rounds (max-min)/median, ppm */
	double overhead_ticks;        /* median ticks of begin+end with nothing between */
	double step_ticks;            /* timer resolution: smallest non-zero difference
	                                 between successive reads, median over runs */
	double core_hz_estimate;      /* core clock from a dependent-add chain (one add
	                                 per core cycle); estimate, 0 if not measured */
	double granularity_ticks;     /* greatest common divisor of the differences seen
	                                 while measuring step: > 1 when the clock only
	                                 advances in fixed increments (2 on one KVM guest) */
};

/* Chooses the clock and measures overhead, step and frequency (about
 * 0.1-0.2 s). Idempotent: later calls return at once. Returns 0; -1 with
 * pb_error() set only if no clock works at all. */
int pb_timer_init(void);

/* The figures measured by pb_timer_init(); it must have been called. */
const struct pb_timer_info *pb_timer_info(void);

/* The clock for a process that cannot afford pb_timer_init() (its 0.1 s
 * of calibration, qsort and static tables): the preload library's
 * accounting (docs/preload.md). pb_timer_init_quick() chooses the TSC when
 * this build reads one and cpu reports invariant_tsc usable (not hidden),
 * else CLOCK_MONOTONIC_RAW, as pb_timer_begin/end then read; it does not
 * calibrate, allocate or call stdio. Never fails. */
struct pb_timer_quick {
	bool tsc;                   /* the TSC; false: CLOCK_MONOTONIC_RAW, ticks are ns */
	double overhead_ticks;      /* median ticks of an empty begin+end, over 101 pairs */
	double overhead_mean_ticks; /* their mean, pairs over twice the median left out:
	                               what a timed call's mean reading carries (a clock
	                               that advances in steps makes the median a step
	                               multiple, off the mean by up to a step) */
	double hz;                  /* TSC: cpuid leaf 0x15, else 0x16, 0 when neither
	                               states it; the clock: 1e9 */
};
void pb_timer_init_quick(struct pb_timer_quick *out);

typedef uint64_t pb_stamp;

/* Start of a timed region. */
pb_stamp pb_timer_begin(void);

/* Ticks elapsed since `start` (raw: overhead NOT subtracted). */
uint64_t pb_timer_end(pb_stamp start);

/* Whether a result file's unit is a counter's ticks, converted to time
 * through the file's timer.hz: "tsc_ticks" (x86 TSC) or "cntvct_ticks"
 * (arm64 generic timer). "ns" and others: false. */
bool pb_tick_unit_is_counter(const char *unit);

/* The one label of a tick unit (for text, tables and plots): "tsc_ticks"
 * -> "TSC ticks (reference cycles)"; "cntvct_ticks" -> "counter ticks at
 * 62.500 MHz" (hz > 0) or "counter ticks"; any other unit as it is. */
void pb_tick_unit_label(const char *unit, double hz, char *buf, size_t len);

/* Converts ticks to nanoseconds with the chosen frequency. */
double pb_ticks_to_ns(double ticks);

/* Whether hardware performance counters work for this process: opens
 * perf_event_open(PERF_COUNT_HW_CPU_CYCLES) for the calling thread, user
 * space only, and checks that it counts. Returns the answer; `why` gets a
 * one-line account either way (e.g. "... fails (No such file or
 * directory): no hardware PMU exposed (usual in VMs)"). */
bool pb_timer_hw_counters_probe(char *why, size_t why_len);

#endif
