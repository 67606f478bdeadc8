/* primbench/curve.h - the latency curve's steps (the analysis module):
 * where a load-to-use latency curve rises, the step that ends the last
 * cache level, and the LLC size several sweeps agree on. curve_text.h
 * prints them; tune's --llc-from-curve decides with them
 * (docs/breakeven.md, "The LLC from the latency curve").
 */
#ifndef PRIMBENCH_CURVE_H
#define PRIMBENCH_CURVE_H

#include <stdbool.h>
#include <stdint.h>

#define PB_CURVE_MAX_POINTS 80  /* a curve's points at most (and its steps) */
#define PB_CURVE_STEP_RATIO 1.3 /* a step: this much slower than half the size */

/* One point of the curve. spread: (max - min) / median of the point's
 * rounds, a fraction (NaN: unknown). has_ci: the figure has an interval
 * (a run in replicates), ci its half-width, a fraction of the figure. */
struct pb_curve_point {
	uint64_t size_bytes;
	double ns_per_load, ticks_per_load, spread;
	bool has_ci;
	double ci;
};

/* The ratio of point i's ns_per_load to that of the point of half its
 * size, or 0 when there is none. */
double pb_curve_step_ratio(const struct pb_curve_point *pts, int n, int i);

/* A step of the curve: a run of consecutive points each
 * PB_CURVE_STEP_RATIO or more slower than the point of half its size (one
 * transition shows on two or three points), from the first to the last,
 * and the rise over it. */
struct pb_curve_step {
	uint64_t from, to;
	double rise; /* the run's last point over the point before the run (0: none) */
};

/* The curve's steps into st[0..cap), pts ascending by size; returns how
 * many. */
int pb_curve_steps(const struct pb_curve_point *pts, int n, struct pb_curve_step *st, int cap);

/* The last level's step of the curve: among its steps (runs of points
 * each 1.3x or more slower than the point of half their size, as
 * pb_curve_print marks them) that start above above_bytes and rise by
 * min_rise or more over the point before them, the one that rises most:
 * *from_bytes its first point, the first size past the cache level that
 * ends there, and *rise its rise. The largest rise, not the last step: a
 * sweep far past the LLC shows smaller steps of its own (page walks: 1.3-2x
 * at 384 MiB on the Zen 4 guest), the LLC-to-DRAM step is 3-10x. How tune
 * finds the LLC when the reported one is implausible. pts ascending by
 * size, ns_per_load > 0. Returns 1, or 0 when no step qualifies (outputs
 * untouched). */
int pb_curve_llc_step(const struct pb_curve_point *pts, int n, uint64_t above_bytes,
                      double min_rise, uint64_t *from_bytes, double *rise);

/* The LLC size several sweeps agree on: found[0..nfound) the steps
 * pb_curve_llc_step found in `sweeps` sweeps (sorted in place). They agree
 * when more than half the sweeps found one and the largest is at most
 * twice the smallest; then *llc_bytes is their median (the upper one of an
 * even count) and the result is true. One sweep's step moved by up to 64x
 * between runs on a busy 2-vCPU guest (docs/breakeven.md). */
bool pb_curve_llc_agree(uint64_t *found, int nfound, int sweeps, uint64_t *llc_bytes);

#endif
