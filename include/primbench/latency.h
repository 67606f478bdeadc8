/* primbench/latency.h - a pointer-chase curve of load-to-use latency over
 * working-set sizes (`primbench latency`; `info --latency` is its old
 * form), which shows where the real cache levels end, to check the figures
 * the machine reports (primbench/cpu.h). Module suites: a measurement, it
 * uses the timer and writes results.
 */
#ifndef PRIMBENCH_LATENCY_H
#define PRIMBENCH_LATENCY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/curve.h"
#include "primbench/latency_result.h"
#include "primbench/pages.h"
#include "primbench/stats.h"

#define PB_LATENCY_ROUND_LOADS 16384        /* dependent loads per round */
#define PB_LATENCY_MIN_BYTES   128          /* two lines: the smallest chain */
#define PB_LATENCY_MAX_BYTES   (1ull << 34) /* 16 GiB: a guard against a typo */

/* The visiting order of a chase over n slots (1 <= n <= 2^32): order[0..n)
 * becomes a uniformly random permutation of 0..n-1 (Fisher-Yates, Knuth
 * TAOCP vol. 2 3.4.2 algorithm P, with xorshift64* from *seed, which
 * advances; *seed must not be 0). The chain links order[i] to
 * order[(i + 1) % n]: one cycle through every slot, whatever the
 * permutation, in an order no stride or stream prefetcher can learn. */
void pb_chase_order(uint32_t *order, size_t n, uint64_t *seed);

/* Links n slots of `stride` bytes (stride >= sizeof(void *), a multiple of
 * it) of buf into the cycle pb_chase_order gives: the first word of each
 * slot points at the next slot's first word. `order` is scratch for n
 * entries. Returns the first slot of the cycle. */
void **pb_chase_build(char *buf, size_t n, size_t stride, uint32_t *order, uint64_t *seed);

/* The points of a sweep the commands ask for (at two an octave, 40
 * octaves: more than any sweep's range): as many as the curve's step
 * finder takes (curve.h). */
#define PB_LATENCY_SWEEP_POINTS PB_CURVE_MAX_POINTS

/* What a sweep asks for. */
struct pb_latency_params {
	uint64_t min_bytes, max_bytes; /* rounded to whole lines; min at least 128 */
	int max_points;                /* capacity of the output */
	uint64_t seed;                 /* 0: a fixed default (the same chains each run) */
	volatile sig_atomic_t *stop;   /* NULL, or non-zero to stop before the next size
	                                  (pb_session_stop_flag) */
	/* --pages: 0 keeps the default buffer (THP requested, not forced);
	 * else the buffer is mapped with pb_pages_map in pages of page_bytes
	 * (PB_PAGE_4K, _2M, _1G) from page_source (a pb_pages_probe answer,
	 * not PB_PAGES_NONE). */
	size_t page_bytes;
	enum pb_page_source page_source;
};

/* Measures load-to-use latency at two sizes per octave (2^k and 1.5 *
 * 2^k) from min_bytes to max_bytes, PB_LATENCY_ROUNDS rounds of
 * PB_LATENCY_ROUND_LOADS loads each after a warm-up chase. Uses the timer
 * (pb_timer_init() is called). About 0.1-0.4 s for 4 KiB..128 MiB.
 * Returns the number of points written to out (at most p->max_points; fewer
 * when *p->stop became non-zero, info->interrupted then true), or
 * -1 with pb_error() set (a range outside 128 B..16 GiB, min > max, no
 * memory). info may be NULL. */
int pb_latency_sweep(const struct pb_latency_params *p, struct pb_latency_point *out,
                     struct pb_latency_info *info);

/* The old entry point: pb_latency_sweep with the default seed. */
int pb_cache_latency_sweep(uint64_t min_bytes, uint64_t max_bytes, struct pb_latency_point *out,
                           int max_points);

/* ---- replicates (include/primbench/replicates.h) ----------------------- */

/* (max - min) of a point's rounds (every replicate's) over its figure
 * (per_load.median x round_loads), a fraction; 0 when that is not
 * positive. */
double pb_latency_round_spread(const struct pb_latency_rpoint *pt);

/* The half-width of a point's interval, a fraction of its figure, into
 * *ci: true when it has one (two or more replicates, a valid CI, a
 * positive median). */
bool pb_latency_point_ci(const struct pb_latency_rpoint *pt, double *ci);

/* The point as the curve's printers and step finder take it (curve.h):
 * size, ns and ticks per load, spread, interval. */
void pb_latency_curve_point(const struct pb_latency_rpoint *pt, struct pb_curve_point *out);

/* The whole sweep of p `replicates` times in a row (1..PB_LATENCY_MAX_
 * REPLICATES), each a fresh draw of what varies between runs: a fresh
 * buffer (mapped for the replicate, unmapped after it) and a fresh chain
 * seed (replicate r: p->seed, or the default, + r x a constant), into
 * out[0..p->max_points) with their run-level figures. A stop ends the run
 * where it is: the points of the last replicate it measured keep that
 * replicate, the rest do not. info (NULL or) the first replicate's buffer,
 * the last one's THP seen, interrupted when a stop came. Returns the
 * number of points (those of the first replicate), or -1 with pb_error()
 * as pb_latency_sweep. */
int pb_latency_sweep_replicates(const struct pb_latency_params *p, size_t replicates,
                                struct pb_latency_rpoint *out, struct pb_latency_info *info);

/* ---- loaded latency ------------------------------------------------------ */

struct pb_kernel;

/* What a loaded-latency run asks for: the chase over chase_bytes on the
 * calling thread (pinned by the caller), while 0, 1, ..., n_load threads
 * run `kernel` in a loop, each pinned to its CPU of load_cpus. */
struct pb_loaded_params {
	uint64_t chase_bytes;           /* the chase's working set (past the LLC) */
	const struct pb_kernel *kernel; /* a memset or memcpy row of the table */
	uint64_t load_bytes;            /* each load thread's buffer (memcpy: half
	                                   source, half destination) */
	uint64_t call_bytes;            /* bytes per kernel call */
	const int *load_cpus;
	int n_load;    /* 0..PB_LATENCY_MAX_LOAD */
	uint64_t seed; /* 0: the default */
};

#define PB_LATENCY_MAX_LOAD 64

/* Runs the levels 0..n_load (out has n_load + 1 entries): for each, starts
 * that many load threads, waits until each has made a call, then times the
 * chase as pb_latency_sweep does one point, counting the load's bytes over
 * the same window; stops and joins the threads. Returns the number of
 * levels, or -1 with pb_error() (a bad size, a kernel that is not memset
 * or memcpy, no memory, a thread that cannot start or be pinned). */
int pb_latency_loaded(const struct pb_loaded_params *p, struct pb_loaded_point *out);

/* pb_latency_loaded `replicates` times in a row (1..PB_LATENCY_MAX_
 * REPLICATES), each with a fresh chase buffer and chain seed (as
 * pb_latency_sweep_replicates), into out[0..p->n_load]. *stop (NULL, or
 * pb_session_stop_flag) non-zero ends the run after the replicate it
 * came in (*interrupted then true). Returns the number of levels, or -1
 * with pb_error() as pb_latency_loaded. */
int pb_latency_loaded_replicates(const struct pb_loaded_params *p, size_t replicates,
                                 volatile sig_atomic_t *stop, struct pb_loaded_rpoint *out,
                                 bool *interrupted);

#endif
