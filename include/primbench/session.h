/* primbench/session.h - one measuring run's set-up and tear-down, shared by
 * every subcommand that measures (mem, syscall, xsave, tune, cmd) and by
 * bench/perf-targets: the stop signals, the seed, the timer, the CPU the
 * measuring thread is pinned to, the machine's noise during the run, and
 * the result document with its atomic write.
 *
 *     struct pb_session s;
 *     struct pb_session_params p = {.argc = argc, .argv = argv, .seed = seed,
 *                                   .pin = PB_SESSION_PIN_CPU, .cpu = 1, .timer = true, .noise =
 * true, .doc = true, .record_seed = true, .out_path = out}; if (pb_session_begin(&p, &s) != 0)
 *             die("%s", pb_error());
 *     ... run suites with .seed = s.seed, .stop = pb_session_stop_flag(&s),
 *         adding their cases to s.doc ...
 *     pb_session_finish(&s, pb_session_stopped(&s));  // noise + "interrupted"
 *     pb_session_write(&s, s.doc);                   // temp file + rename
 *     int status = pb_session_stopped(&s) ? pb_session_exit_status(&s) : 0;
 *     pb_session_end(&s);
 *
 * One session is active at a time (signals are per process).
 */
#ifndef PRIMBENCH_SESSION_H
#define PRIMBENCH_SESSION_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "primbench/cpu.h"
#include "primbench/cpu_noise.h"
#include "primbench/results.h"

/* What the machine did besides the measurement (src/suites/noise.c): a
 * snapshot at the start; pb_noise_end() turns it into struct pb_noise
 * (include/primbench/results.h). */
#define PB_NOISE_MAX_CPUS 1024
struct pb_noise_mark {
	unsigned long long total, steal;
	unsigned long long cpu_total[PB_NOISE_MAX_CPUS], cpu_idle[PB_NOISE_MAX_CPUS];
	unsigned long long idle_beyond, total_beyond; /* CPUs from PB_NOISE_MAX_CPUS on */
	int pinned_cpu;
	uint64_t present[PB_NOISE_MAX_CPUS / 64]; /* CPUs /proc/stat listed */
	uint64_t mine[PB_NOISE_MAX_CPUS / 64];    /* more CPUs of the run (threads) */
	long nvcsw, nivcsw;
	bool ok;
	/* the measuring thread's schedstat (run ns, run-queue wait ns), the
	 * process's and its reaped children's CPU time (ns), the time (ns) */
	unsigned long long run_ns, wait_ns, self_ns, children_ns, mono_ns;
	bool sched_ok;
	long clk_tck; /* USER_HZ: /proc/stat's unit */
	/* spans left out of the wait and preemption rules (pb_noise_exclude_
	 * begin/end): their wait ns, time ns and involuntary switches */
	unsigned long long x_wait_ns, x_mono_ns, x0_wait_ns, x0_mono_ns;
	long x_nivcsw, x0_nivcsw;
	bool x_on;
};
/* Leaves the span between these two out of the measuring thread's wait
 * and preemption figures: a benchmark whose own children or partners run
 * on the measuring CPU (fork, exec, pipe: the syscall suite) makes the
 * thread wait by itself. */
void pb_noise_exclude_begin(struct pb_noise_mark *m);
void pb_noise_exclude_end(struct pb_noise_mark *m);
void pb_noise_begin(struct pb_noise_mark *m, int pinned_cpu);
/* A snapshot from text, for tests (fixture /proc text): proc_stat is
 * /proc/stat, schedstat /proc/thread-self/schedstat (NULL: none); the
 * rest as a snapshot takes them. */
void pb_noise_mark_from_text(struct pb_noise_mark *m, int pinned_cpu, const char *proc_stat,
                             const char *schedstat, long nvcsw, long nivcsw,
                             unsigned long long self_ns, unsigned long long mono_ns, long clk_tck);
/* The noise between snapshots a and b (what pb_noise_end computes), then
 * pb_noise_judge. */
void pb_noise_between(const struct pb_noise_mark *a, const struct pb_noise_mark *b,
                      struct pb_noise *out);
/* Whether the noise is HIGH, and why (out->high, out->high_cause): steal
 * over 2% of CPU time (the hypervisor ran something else on our vCPUs);
 * the other CPUs over 50% busy; the measuring thread waiting on a run
 * queue over 1% of the window (another task took its CPU); its CPU giving
 * over 5% of its time to other tasks (over a window of 1 s or more:
 * /proc/stat counts in 10 ms ticks); over 100 involuntary switches a
 * second (an idle guest here: 7-9). */
void pb_noise_judge(struct pb_noise *out);
/* Counts CPU `cpu` as the run's own (a worker thread's), not as another
 * CPU; call before pb_noise_end. CPUs from PB_NOISE_MAX_CPUS on are
 * ignored. */
void pb_noise_exclude(struct pb_noise_mark *m, int cpu);
void pb_noise_end(const struct pb_noise_mark *m, struct pb_noise *out);

/* Where the measuring thread goes (pb_session_params.pin). */
enum pb_session_pin {
	/* the quietest allowed CPU by the noise probe (include/primbench/
	 * cpu_noise.h, pb_cpu_place_decide; one "placement:" line on stderr
	 * says which and why); without a choice (one CPU: that one; no probe,
	 * or it failed) the CPU the run starts on. A failure to pin leaves the
	 * thread unbound and pb_session.cpu -1, no error */
	PB_SESSION_PIN_HERE = 0,
	/* pb_session_params.cpu; an error when it cannot be bound there */
	PB_SESSION_PIN_CPU,
	/* nowhere: the thread's CPUs are left alone (cmd: its --cpu LIST pins
	 * the measured command, not primbench) */
	PB_SESSION_PIN_NONE,
};

/* What a run asks for. Zero-initialise, then set the fields wanted. */
struct pb_session_params {
	int argc;                             /* the command line the document records, as typed */
	char **argv;                          /* (may be NULL when .doc is false) */
	uint64_t seed;                        /* 0: make one (pb_session_make_seed) */
	enum pb_session_pin pin;              /* where the measuring thread goes */
	int cpu;                              /* the CPU of PB_SESSION_PIN_CPU */
	const char *cpu_list;                 /* NULL, or a --cpu LIST ("1", "0,2-3", "all":
	                                         pb_cpu_list_parse, placement.h) checked
	                                         into pb_session.cpus; the thread is not bound */
	bool timer;                           /* pb_timer_init: an error when there is no clock */
	bool noise;                           /* measure the machine's noise from begin to
	                                         pb_session_noise/pb_session_finish */
	bool doc;                             /* make pb_session.doc (pb_results_new) */
	bool record_seed;                     /* doc["seed"] = the seed (with .doc) */
	const uint64_t *cache_override_bytes; /* NULL, or [PB_CACHE_LEVELS]
	                                         bytes (0: detect that level) */
	const char *out_path;                 /* NULL: no file; else reserved at begin
	                                         (pb_output_reserve) and written by
	                                         pb_session_write */
	time_t started;                       /* 0: now; the document's started_at */
};

/* A run in progress. Read its fields; change them only through the
 * functions below. */
struct pb_session {
	/* Number of SIGINT, SIGTERM and SIGHUP received since begin (the
	 * suites poll it between samples; cmd kills its command at the
	 * second); the last one's number in stop_signal. */
	volatile sig_atomic_t stop, stop_signal;
	uint64_t seed;     /* at most INT64_MAX: what the document records */
	int cpu;           /* the CPU the thread is bound to, or -1 */
	cpu_set_t allowed; /* the CPUs allowed before pinning (empty when
	                      unknown): where a helper process may go */
	cpu_set_t cpus;    /* params.cpu_list's CPUs (has_cpus) */
	bool has_cpus;
	struct pb_cache_info caches; /* detected, with the overrides */
	time_t started;
	struct pb_results_doc *doc; /* the result document (params.doc), else NULL */
	const char *out_path;       /* params.out_path */
	struct pb_noise noise;      /* after pb_session_noise; valid false before */
	struct pb_cpu_place place;  /* how the thread's CPU was chosen (doc
	                               "placement": pb_results_add_placement) */
	/* private */
	struct pb_noise_mark mark;
	bool noise_running, signals_installed;
	struct sigaction old_int, old_term, old_hup, old_pipe;
};

/* Starts a run, in this order: installs the stop signals' handler for
 * SIGINT, SIGTERM and SIGHUP, without SA_RESTART (a blocking wait4 or read
 * returns EINTR, so the suite sees the stop flag at once), and ignores
 * SIGPIPE (a reader that quits must not cost the work); makes the seed;
 * reserves out_path; detects the caches; checks the cpu_list; notes the
 * allowed CPUs, then pins; starts the timer; makes the document; starts the
 * noise window. Returns 0, or -1 with pb_error(): "--cpu N: cannot bind to
 * it", the cpu_list's error (pb_cpu_list_parse_set's: "CPU list '9': CPU 9
 * not available to this process (allowed: 0,1)", "bad CPU list '2-1': a
 * range runs backwards (...)"),
 * "no usable clock: REASON", or the reservation's "cannot write 'PATH':
 * REASON". After a failure, pb_session_end is still to be called. */
int pb_session_begin(const struct pb_session_params *p, struct pb_session *s);

/* The flag the suites poll (pb_mem_params.stop and the like); non-zero
 * once a stop signal came. */
volatile sig_atomic_t *pb_session_stop_flag(struct pb_session *s);

/* Counts CPU `cpu` as the run's own in the noise window (a worker
 * thread's CPU), not as another CPU whose load is noise. */
void pb_session_noise_exclude(struct pb_session *s, int cpu);

/* True once a stop signal came. */
bool pb_session_stopped(const struct pb_session *s);

/* The exit status of a stopped run: 128 + the signal (130 for SIGINT, also
 * when stopped otherwise). */
int pb_session_exit_status(const struct pb_session *s);

/* Ends the noise window (the first call; later calls return the same) and
 * returns its figures; valid is false without params.noise or /proc/stat. */
const struct pb_noise *pb_session_noise(struct pb_session *s);

/* pb_session_noise, then records the noise and the interrupted flag in
 * s->doc (when there is one): pb_results_finish. */
void pb_session_finish(struct pb_session *s, bool interrupted);

/* Writes doc whole to params.out_path: a temporary file in its directory
 * (the one reserved at begin), fsync, rename over the path, so a reader
 * sees the old file or the whole new one, and a run cut short by a signal
 * keeps what it measured. 0 (also without an out_path), or -1 with
 * pb_error() "cannot write 'PATH': REASON" (the text is then saved under
 * $TMPDIR and the error names it: pb_write_file_whole). */
int pb_session_write(struct pb_session *s, const struct pb_results_doc *doc);

/* Frees the document and puts back the signal actions begin replaced. The
 * thread stays where it was pinned. Safe after a failed begin. */
void pb_session_end(struct pb_session *s);

/* The seed of a run: given (non-zero), or made from the clock and the
 * process id; then masked to 63 bits (a JSON integer, and the same seed
 * replays the same order). A made seed is never 0. */
uint64_t pb_session_make_seed(uint64_t given);

/* Binds the calling thread to CPU want (>= 0), or (want < 0) to the CPU it
 * runs on. Returns the CPU, or -1 with pb_error() ("--cpu N:
 * cannot bind to it", or "cannot find the CPU this thread runs on"). */
int pb_session_pin(int want);

#endif
