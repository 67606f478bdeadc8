/* harness.h - the one measuring harness every sampling suite runs on
 * (mem, replay, syscall, xsave): calibration, warm-up, interleaved rounds,
 * stopping, migration checks, timer overhead and the per-contender summary.
 *
 * Modelled on zstd's programs/benchfn.h: a parameter struct in, a result
 * out. A suite keeps only what is its own: a callback that times one batch
 * of k calls of one contender (the timed loop stays a tight loop inside the
 * suite's callback, compiled with the suite's flags; the harness calls it
 * once per batch, never once per call), and optionally an untimed hook run
 * after it.
 *
 * One run, for contenders 0..n-1:
 *  1. Calibration, contender by contender (the stop flag checked before
 *     each): k = fixed_k when given; otherwise the batch callback times four
 *     batches of k = 1 (PB_HARNESS_CALIBRATE), the first discarded (cold
 *     code and TLB), and k = pb_batch_calls(least of the other three,
 *     target_ticks, max_k).
 *  2. Rounds: warmup_samples rounds whose samples are discarded, then up to
 *     max_samples rounds. A round visits every contender once, in an order
 *     freshly shuffled (pb_shuffle_u32 with the caller's rng: the same seed
 *     gives the same orders). Before each kept round, once min_samples are
 *     in: stop when budget_s seconds have passed since calibration ended, or
 *     (precision > 0) when every contender's 95% CI half-width of the median
 *     per-call ticks is at most precision x its median. Every round starts
 *     with a check of the stop flag; inside a round, stop_check says when it
 *     is checked again.
 *  3. A sample: cpu query, batch callback, cpu query, then after_batch (out
 *     of the CPU window). A warm-up sample is dropped; a sample whose two CPU
 *     queries differ is dropped and counted in `migrations` (it mixes two
 *     CPUs' caches and clocks); a kept sample stores ticks - overhead_ticks
 *     (at least 0), the same for read_ticks, and k x calls_per_k calls.
 *  4. Summary of each contender's kept samples: pb_summarize of the per-call
 *     ticks (95%), outliers by modified z-score > 3.5 (Iglewicz and Hoaglin),
 *     and with read_back the per-call read-back ticks.
 *
 * Many cores (not implemented: `threads` must be 0 or 1). One contender on
 * N threads needs no second loop: with threads = N the harness would start N
 * workers pinned by the caller's CPU list, each calling the same batch
 * callback with its thread index (`thread`: the callback keeps per-thread
 * buffers in its ctx), released together by a start barrier after the
 * untimed set-up of every thread; every worker reports the begin and end
 * stamps of its batch in struct pb_harness_batch (fields to add), and the
 * sample becomes the span first begin .. last end, with k x calls_per_k x N
 * calls, so that the aggregate is total bytes over that span. Per-thread
 * spans would be kept beside it (the slowest thread's share). Calibration,
 * rounds, stopping, migration (any thread migrated: dropped) and the
 * summary stay as they are.
 */
#ifndef PRIMBENCH_HARNESS_H
#define PRIMBENCH_HARNESS_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

/* Why the batch callback runs. */
enum pb_harness_phase {
	PB_HARNESS_CALIBRATE, /* k = 1, to size batches; nothing kept */
	PB_HARNESS_WARMUP,    /* a warm-up round's sample; dropped */
	PB_HARNESS_KEEP,      /* a sample that is kept unless the CPU changed */
};

/* What one timed batch reports: raw ticks from pb_timer_begin/end, timer
 * overhead included (the harness subtracts it). */
struct pb_harness_batch {
	double ticks;      /* the k calls */
	double read_ticks; /* read-back of what they wrote (read_back only) */
};

/* Times one batch of k calls of contender `contender` on thread `thread`
 * (always 0 today) and fills *out. Untimed set-up and restore around the
 * timed loop may happen inside, within the CPU-migration window. Returns 0;
 * 1 when nothing was timed and the sample is to be dropped silently (e.g.
 * a child killed by the same Ctrl-C: the stop flag is checked next); -1
 * with pb_error() on a failure, which ends the run. */
typedef int (*pb_harness_batch_fn)(void *ctx, size_t contender, unsigned thread, size_t k,
                                   enum pb_harness_phase phase, struct pb_harness_batch *out);

/* Untimed, after the second CPU query of every batch (calibration's too). */
typedef void (*pb_harness_after_fn)(void *ctx, size_t contender, size_t k);

/* When the stop flag is read inside a round (it is always read before one). */
enum pb_harness_stop_check {
	PB_HARNESS_STOP_EACH_SAMPLE, /* after every sample (mem, syscall) */
	PB_HARNESS_STOP_AFTER_KEPT,  /* after every kept sample (replay, xsave) */
	PB_HARNESS_STOP_ROUND_START, /* rounds are never cut (replay's policies) */
};

struct pb_harness_contender {
	size_t max_k;   /* calibration's bound on k, >= 1 */
	size_t fixed_k; /* > 0: this k, without calibration (mem's extent) */
};

struct pb_harness_params {
	size_t n_contenders;
	const struct pb_harness_contender *contenders; /* [n_contenders] */
	pb_harness_batch_fn time_batch;
	pb_harness_after_fn after_batch; /* NULL: none */
	void *ctx;                       /* passed to both */
	uint64_t calls_per_k;            /* calls one unit of k stands for (replay: the
	                                    batch's calls per pass); 0 means 1 */
	bool read_back;                  /* keep and summarize read_ticks */
	size_t warmup_samples;           /* rounds discarded first */
	size_t min_samples, max_samples; /* kept rounds: 1 <= min <= max */
	double budget_s;                 /* seconds of rounds, once min_samples are in */
	double precision;                /* > 0: stop when every CI half-width <= this x median */
	volatile sig_atomic_t *stop;     /* NULL or a flag set e.g. by SIGINT */
	enum pb_harness_stop_check stop_check;
	uint64_t *rng;         /* the suite's xorshift state (pb_rng_next), advanced */
	double overhead_ticks; /* subtracted from every batch: pb_timer_info()'s */
	double target_ticks;   /* ticks a batch should last; 0: pb_batch_target_ticks() */
	int (*cpu_now)(void);  /* NULL: sched_getcpu (tests inject their own) */
	unsigned threads;      /* 0 or 1 (see the header comment for N) */
};

/* One contender's outcome. Arrays hold n_samples kept samples (capacity
 * cap); a suite may take them over (then set them to NULL). */
struct pb_harness_samples {
	size_t k; /* calibrated (or fixed) k; 0 when stopped before calibration */
	size_t n_samples, cap;
	double *ticks;              /* batch ticks, overhead subtracted, >= 0 */
	double *read_ticks;         /* the same for the read-back (read_back only, else NULL) */
	uint64_t *calls;            /* calls in the batch: k x calls_per_k */
	size_t migrations;          /* kept-phase samples dropped because the CPU changed */
	struct pb_summary per_call; /* ticks per call (zero when no samples) */
	size_t outliers;            /* per-call values with modified z-score > 3.5 */
	struct pb_summary read_per_call; /* read-back ticks per call (read_back only) */
};

struct pb_harness_result {
	size_t n_contenders;
	struct pb_harness_samples *c; /* [n_contenders] */
	bool interrupted;             /* the stop flag was set when the run ended */
};

/* Runs the contenders (see the top of this file). On success returns 0 with
 * *r filled (free with pb_harness_result_free); on a bad parameter, a
 * callback's failure or out of memory returns -1 with pb_error() and *r
 * freed. */
int pb_harness_run(const struct pb_harness_params *p, struct pb_harness_result *r);

void pb_harness_result_free(struct pb_harness_result *r);

/* ---- the pieces the harness is built from, shared with suites -------- */

/* xorshift64*: cheap, seeded, reproducible (Vigna 2016, "An experimental
 * exploration of Marsaglia's xorshift generators"). *state must not be 0. */
uint64_t pb_rng_next(uint64_t *state);

/* Fisher-Yates shuffle of a[0..n) with pb_rng_next. */
void pb_shuffle_u32(uint32_t *a, size_t n, uint64_t *rng);

/* The ticks one timed batch should last: at least 20 us, 1000 timer steps
 * and 200 timer overheads, so the timer's resolution and cost vanish in it
 * (docs/methodology.md "Calibration"). pb_timer_init() must have run. */
double pb_batch_target_ticks(void);

/* Calls per batch for an op whose least single timing (overhead included)
 * was best_ticks: target / (best - overhead), at least 1, at most max_calls
 * (Google Benchmark's iteration growth, in one step); overhead is
 * pb_timer_info()'s. */
size_t pb_batch_calls(double best_ticks, double target_ticks, size_t max_calls);

/* CLOCK_MONOTONIC in seconds: for budgets, never for measurements. */
double pb_monotonic_s(void);

#endif
