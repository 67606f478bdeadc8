/* primbench/latency.h - a pointer-chase sweep of load-to-use latency that
 * shows where the real cache levels end (`primbench info --latency`), to
 * check the figures the machine reports (primbench/cpu.h). Module suites: a
 * measurement, it uses the timer.
 */
#ifndef PRIMBENCH_LATENCY_H
#define PRIMBENCH_LATENCY_H

#include <stdint.h>

/* One point of a pointer-chase sweep: a random cyclic chain through one
 * pointer per cache line of a size_bytes buffer (transparent huge pages
 * requested, so TLB misses stay small next to cache misses). */
struct pb_latency_point {
	uint64_t size_bytes;
	double ticks_per_load; /* timer ticks per dependent load (median of rounds) */
	double ns_per_load;
};

/* Measures load-to-use latency at two sizes per octave from min_bytes to
 * max_bytes (both rounded to whole lines; at most max_points points). Uses
 * the timer (pb_timer_init() is called). About 0.1-0.4 s for 4 KiB..128 MiB.
 * Returns the number of points, or -1 with pb_error() set. */
int pb_cache_latency_sweep(uint64_t min_bytes, uint64_t max_bytes, struct pb_latency_point *out,
                           int max_points);

#endif
