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
 * Many cores (threads = N > 1). One contender on N threads needs no second
 * loop: the harness starts N workers once per run (pthreads, joined before
 * it returns), each pinned first (pinning.pin, else pinning.cpus, else not
 * at all), and drives them sample by sample: every worker waits at a start
 * barrier, calls the same batch callback with its own thread index (the
 * callback keeps per-thread buffers in its ctx) and waits at an end
 * barrier. Each worker's batch reports the stamp its timed calls began at
 * (begin_stamp) beside their ticks, so the sample is the span first begin
 * .. last end over the N threads, with k x calls_per_k x N calls: total
 * bytes over that span is the aggregate. Each thread's own ticks are kept
 * beside it (thread_ticks, thread_per_call). With N threads:
 *  - calibration runs on worker 0 alone (the others wait at the barriers):
 *    k is the one-thread k, so each thread's batch lasts at least the
 *    target however the threads contend;
 *  - a sample is dropped and counted in `migrations` when any worker's two
 *    CPU queries differ; dropped silently when any callback returns 1; a
 *    callback's -1 ends the run with that worker's pb_error();
 *  - read_ticks of a sample is the slowest thread's read-back;
 *  - after_batch runs on the calling thread once the workers are done;
 *  - the stop flag is read by the calling thread where it is read with one
 *    thread: a raised flag stops every worker before the next sample; the
 *    samples so far are kept, summarized and the workers joined.
 * The batch callback must then be safe to run on N threads at once (each
 * on its own thread's data).
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
	double ticks;         /* the k calls */
	double read_ticks;    /* read-back of what they wrote (read_back only) */
	uint64_t begin_stamp; /* threads > 1, required: the pb_stamp from which
	                         `ticks` were counted (pb_timer_begin's); the calls
	                         ended at begin_stamp + ticks */
};

/* Times one batch of k calls of contender `contender` on thread `thread`
 * (0..threads-1; always 0 with one thread) and fills *out. Untimed set-up and restore around the
 * timed loop may happen inside, within the CPU-migration window. Returns 0;
 * 1 when nothing was timed and the sample is to be dropped silently (e.g.
 * a child killed by the same Ctrl-C: the stop flag is checked next); -1
 * with pb_error() on a failure, which ends the run. */
typedef int (*pb_harness_batch_fn)(void *ctx, size_t contender, unsigned thread, size_t k,
                                   enum pb_harness_phase phase, struct pb_harness_batch *out);

/* Untimed, after the second CPU query of every batch (calibration's too). */
typedef void (*pb_harness_after_fn)(void *ctx, size_t contender, size_t k);

/* threads > 1: untimed, run by every worker on its own thread once every
 * worker has finished its timed calls (so one thread's restore never
 * overlaps another's timed calls), before the sample ends. Returns 0, or
 * -1 with pb_error(), which ends the run. */
typedef int (*pb_harness_thread_after_fn)(void *ctx, size_t contender, unsigned thread);

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

/* Pins the calling thread, worker `thread` of a run (e.g. the placement
 * module's plan). Returns 0, or -1 with pb_error(). */
typedef int (*pb_harness_pin_fn)(void *pin_ctx, unsigned thread);

/* Where workers run (threads > 1, and pb_harness_on_threads). */
struct pb_harness_pinning {
	pb_harness_pin_fn pin; /* NULL, or pins worker t (used instead of cpus) */
	void *pin_ctx;
	const int *cpus; /* NULL, or [threads]: worker t on CPU cpus[t]
	                    (pthread_setaffinity_np); neither: not pinned */
};

struct pb_harness_params {
	size_t n_contenders;
	const struct pb_harness_contender *contenders; /* [n_contenders] */
	pb_harness_batch_fn time_batch;
	pb_harness_after_fn after_batch;         /* NULL: none */
	pb_harness_thread_after_fn thread_after; /* NULL: none (threads > 1 only) */
	void *ctx;                               /* passed to both */
	uint64_t calls_per_k;                    /* calls one unit of k stands for (replay: the
	                                            batch's calls per pass); 0 means 1 */
	bool read_back;                          /* keep and summarize read_ticks */
	size_t warmup_samples;                   /* rounds discarded first */
	size_t min_samples, max_samples;         /* kept rounds: 1 <= min <= max */
	double budget_s;                         /* seconds of rounds, once min_samples are in */
	double precision;            /* > 0: stop when every CI half-width <= this x median */
	volatile sig_atomic_t *stop; /* NULL or a flag set e.g. by SIGINT */
	enum pb_harness_stop_check stop_check;
	uint64_t *rng;         /* the suite's xorshift state (pb_rng_next), advanced */
	double overhead_ticks; /* subtracted from every batch: pb_timer_info()'s */
	double target_ticks;   /* ticks a batch should last; 0: pb_batch_target_ticks() */
	int (*cpu_now)(void);  /* NULL: sched_getcpu (tests inject their own) */
	unsigned threads;      /* 0 or 1: the calling thread; N > 1: N workers (top) */
	struct pb_harness_pinning pinning; /* threads > 1: where the workers run */
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
	/* threads > 1 (else NULL): each thread's own batch ticks, overhead
	 * subtracted, sample j's thread t at [j x threads + t]; and each
	 * thread's per-call summary over them (k x calls_per_k calls each) */
	double *thread_ticks;
	struct pb_summary *thread_per_call; /* [threads] */
};

struct pb_harness_result {
	size_t n_contenders;
	struct pb_harness_samples *c; /* [n_contenders] */
	bool interrupted;             /* the stop flag was set when the run ended */
	unsigned threads;             /* 1, or the workers of each sample */
	int *thread_cpus;             /* threads > 1: [threads], the CPU each worker was on
	                                 once pinned (cpu_now); else NULL */
};

/* Runs the contenders (see the top of this file). On success returns 0 with
 * *r filled (free with pb_harness_result_free); on a bad parameter, a
 * callback's failure or out of memory returns -1 with pb_error() and *r
 * freed. */
int pb_harness_run(const struct pb_harness_params *p, struct pb_harness_result *r);

void pb_harness_result_free(struct pb_harness_result *r);

/* Runs fn(ctx, t) for t = 0..n-1 at once, each on a thread of its own
 * pinned as a run's worker t would be (pinning may be NULL: not pinned),
 * and joins them: per-thread set-up, such as buffers allocated and first
 * touched by the thread that will use them. Returns 0, or -1 with the
 * pb_error() of the first thread (lowest t) that failed. */
int pb_harness_on_threads(unsigned n, const struct pb_harness_pinning *pinning,
                          int (*fn)(void *ctx, unsigned thread), void *ctx);

/* ---- the pieces the harness is built from, shared with suites -------- */

/* xorshift64*: cheap, seeded, reproducible (Vigna 2016, "An experimental
 * exploration of Marsaglia's xorshift generators"). *state must not be 0. */
uint64_t pb_rng_next(uint64_t *state);

/* SplitMix64: advances *state by PB_SEED_STEP (replicates.h) and returns
 * its output function of the new state (Steele, Lea and Flood, OOPSLA
 * 2014); any state, 0 included. For draws that must not depend on the
 * order they are made in: hash a position into a state, draw once. */
uint64_t pb_splitmix64(uint64_t *state);

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
