/* primbench/tsc_sync.h - are the TSCs of a set of CPUs one clock? (for
 * --threads: docs/methodology.md, "Threads")
 *
 * A threaded run takes stamps on several CPUs and compares them; that is
 * only sound when the TSC is invariant (constant rate in every power
 * state: cpuid 0x80000007:EDX[8], Intel SDM Vol. 3B 17.17.1 "Invariant
 * TSC"; AMD APM Vol. 3, CPUID Fn8000_0007_EDX[8] TscInvariant) and the
 * CPUs' counters agree (the SDM's 17.17 leaves synchronization across
 * packages to the platform; firmware, a hypervisor or IA32_TSC_ADJUST can
 * leave them apart).
 *
 * Method (the classic "TSC warp" check, as Linux checks a CPU coming up,
 * arch/x86/kernel/tsc_sync.c, but estimating the offset): two threads,
 * pinned to CPU a and CPU b, pass a token through one shared cache line
 * `rounds` times. a stamps its TSC (lfence; rdtsc; lfence, the timer's
 * read) and sends; b stamps on receipt and sends back; a stamps on
 * receipt, which is also its next send. Causality bounds the offset
 * d = TSC_b - TSC_a at the same instant: for each round i,
 *     b_i - a_next_i  <  d  <  b_i - a_i,
 * and the intersection over all rounds is [lo, hi], about one round trip
 * wide. offset = (lo + hi) / 2, bound = (hi - lo) / 2; the pair is
 * synchronized when |offset| <= bound (d = 0 is possible). When lo > hi no
 * constant offset explains the stamps (a TSC that steps or drifts, or a
 * stamp that went backwards): not synchronized.
 */
#ifndef PRIMBENCH_TSC_SYNC_H
#define PRIMBENCH_TSC_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* One pair: TSC of cpu_b minus TSC of cpu_a. Ticks are TSC ticks. */
struct pb_tsc_pair {
	unsigned cpu_a, cpu_b;         /* OS CPU numbers */
	double offset_ticks;           /* estimated d, (lo + hi) / 2 */
	double bound_ticks;            /* (hi - lo) / 2: |d - offset| is below it;
	                                  negative when the stamps contradict every
	                                  constant offset */
	uint64_t min_round_trip_ticks; /* fastest a -> b -> a of all rounds */
	bool synchronized;             /* |offset_ticks| <= bound_ticks */
};

/* Measures one pair (cpu_a != cpu_b) with `rounds` round trips (0: 20000,
 * a few ms). Starts two threads and pins them (sched_setaffinity); the
 * calling thread is not moved. Returns 0, or -1 with pb_error(): "no TSC on
 * this architecture build", "cannot run on CPU 5: Invalid argument",
 * "cannot start a thread: ...". */
int pb_tsc_sync_pair(unsigned cpu_a, unsigned cpu_b, unsigned rounds, struct pb_tsc_pair *out);

/* A set of CPUs: every CPU against the first (as Linux checks each CPU
 * against the one already running). */
struct pb_tsc_sync {
	bool invariant;                /* cpuid 0x80000007:EDX[8], usable (not hidden) */
	bool measured;                 /* at least one pair was measured */
	bool synchronized;             /* every pair synchronized (one CPU: true) */
	unsigned n_pairs;              /* pairs measured */
	unsigned worst_cpu;            /* the CPU with the largest |offset| (cpus[0]
	                                  when no pair) */
	double max_abs_offset_ticks;   /* largest |offset| over the pairs, 0 if none */
	double bound_ticks;            /* the bound of that pair */
	uint64_t min_round_trip_ticks; /* smallest round trip over the pairs, 0 if none */
	char note[200];                /* "" or one line: why not measured or not usable */
};

/* Checks cpus[0..n_cpus) (OS CPU numbers; repeats of cpus[0] are skipped)
 * with `rounds` per pair (0: the default). A set of one CPU is trivially
 * synchronized (measured false, note says so); a build without a TSC
 * (PRIMBENCH_ARCH=none) is not synchronized and says why in the note; both
 * return 0. Returns -1 with pb_error() when n_cpus is 0 or a pair cannot be
 * measured (a CPU this process may not run on). */
int pb_tsc_sync_check(const unsigned *cpus, unsigned n_cpus, unsigned rounds,
                      struct pb_tsc_sync *out);

#endif
