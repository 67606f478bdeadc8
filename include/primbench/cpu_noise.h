/* primbench/cpu_noise.h - placement by measured noise (docs/statistics.md,
 * "Placement by measured noise"): a short
 * probe of how much time each allowed CPU loses to interruptions, and the
 * choice of the quietest one for the measuring thread (or, for `cmd`, the
 * measured command).
 *
 * What the probe measures. The calling thread, pinned to one CPU at a
 * time, runs a fixed work quantum (a chain of dependent multiply-adds in
 * a register, behind an empty asm so the compiler cannot drop or shorten
 * it; a volatile counter's stack slot ran at two speeds on AMD Zen; its
 * iteration count is calibrated
 * once per probe to take about 8 us, so nothing assumes a CPU speed) back
 * to back, reading CLOCK_MONOTONIC (clock_gettime) between quanta: each
 * "chunk" is the time from one reading to the next, so no time falls
 * between chunks. Every chunk does the same work, so a chunk longer than
 * the fastest one lost that difference to something else: an interrupt,
 * the host descheduling the vCPU (steal), another task, an SMI. The share
 * of the probe's time lost that way on a CPU is
 *     lost_share = (sum(chunk) - chunks * min(chunk)) / sum(chunk),
 * the "time lost to interruptions" of Linux's osnoise tracer (Documentation/
 * trace/osnoise-tracer.rst: a loop that reads the time and sums what was
 * taken away from it) and hwlatdetect, and the fixed-work-quantum method
 * of noise measurement (Sottile and Minnich, "Analysis of microbenchmarks
 * for performance tuning of clusters", IEEE Cluster 2004; Hoefler,
 * Schneider and Lumsdaine, "Characterizing the Influence of System Noise
 * on Large-Scale Applications by Simulation", SC 2010).
 *
 * How long. The CPUs are interleaved: slices of about 10 ms, round-robin
 * over the CPUs, so a host burst of a few tens of ms does not land on one
 * CPU only. The whole probe takes pb_cpu_probe_budget_ms(n): 100 ms per
 * CPU, at most 500 ms in all (2 CPUs: 0.2 s; 8: 62.5 ms each), at least 5
 * ms per CPU; at most PB_CPU_NOISE_MAX CPUs (the first ones of the set)
 * are probed. The first chunk of every slice is left out (the migration's
 * cold start). The thread's affinity is put back afterwards.
 *
 * The rule (pb_cpu_noise_choose): the CPU with the smallest lost_share;
 * a CPU within 1 percentage point of it is a near-tie (below what repeated
 * 0.2 s probes of one CPU can tell apart: on the 2-vCPU KVM guests of
 * docs/statistics.md ("Runs to a verdict") one CPU's share spread over 1-3
 * points; an absolute band, not a
 * relative one, so that a loaded machine's large shares are still told
 * apart by their difference), and near-ties go to the shorter tail, (p99 -
 * median) / median, itself compared within 0.01, then to the lower CPU
 * number (a stable answer when the CPUs are alike).
 *
 * Errors: -1 with one line in pb_error() (include/primbench/error.h).
 * Nothing here prints. Generic C (Linux sched_setaffinity, clock_gettime),
 * no architecture code.
 */
#ifndef PRIMBENCH_CPU_NOISE_H
#define PRIMBENCH_CPU_NOISE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* The most CPUs one probe looks at (the first ones of the set). */
#define PB_CPU_NOISE_MAX 128

/* One CPU's figures. Times in ns of CLOCK_MONOTONIC; chunks of the same
 * work quantum. */
struct pb_cpu_noise {
	int cpu;           /* OS CPU number (what taskset uses) */
	bool ok;           /* false: the thread could not be pinned there */
	int error;         /* errno of that sched_setaffinity, else 0 */
	size_t chunks;     /* chunks timed (not the first of each slice) */
	double min_ns;     /* the fastest chunk: the quantum undisturbed */
	double median_ns;  /* min <= median <= p99 <= max */
	double p99_ns;     /* nearest-rank 99th percentile */
	double max_ns;     /* the longest interruption plus a quantum */
	double lost_share; /* 0 <= share < 1: (probe_ns - chunks * min_ns) / probe_ns */
	double probe_ns;   /* sum of the chunks: the time measured on this CPU */
};

/* A probe of a set of CPUs. */
struct pb_cpu_probe {
	size_t n;                                  /* CPUs probed (entries of cpu) */
	size_t not_probed;                         /* CPUs of the set beyond PB_CPU_NOISE_MAX */
	struct pb_cpu_noise cpu[PB_CPU_NOISE_MAX]; /* ascending CPU numbers */
	unsigned long iters;                       /* loop iterations of one quantum */
	double budget_ms;                          /* the whole probe's time asked for */
	double slice_ms;                           /* one slice on one CPU */
	double wall_ms; /* what it took, calibration and moves included */
};

/* The probe's time for n CPUs in ms: PRIMBENCH_PROBE_MS when set (a number
 * from 0 to 2000, so that Ctrl-C, which the probe does not watch, is
 * never kept waiting long; 0: no probe; tests set it small), else min(100 * n, 500).
 * Returns -1 with pb_error() "bad PRIMBENCH_PROBE_MS 'x' (milliseconds, 0
 * to 2000)". */
double pb_cpu_probe_budget_ms(size_t n);

/* Probes the CPUs of `cpus` (at most PB_CPU_NOISE_MAX) for budget_ms in all
 * (> 0), interleaved as above, and fills *out. The calling thread is pinned
 * to each CPU in turn and its affinity put back at the end. A CPU that
 * cannot be pinned to is recorded with ok false and its errno. Returns 0,
 * or -1 with pb_error() (an empty set, budget_ms not > 0, no memory, the
 * thread's affinity unreadable). */
int pb_cpu_probe_run(const cpu_set_t *cpus, double budget_ms, struct pb_cpu_probe *out);

/* Why pb_cpu_noise_choose chose its CPU. */
enum pb_cpu_choice {
	PB_CHOICE_LEAST_LOST, /* the smallest lost_share, no near-tie */
	PB_CHOICE_TAIL,       /* near-tie on lost_share: the shorter tail */
	PB_CHOICE_NUMBER,     /* near-tie on both: the lower CPU number */
};

/* The quietest of f[0..n-1] by the rule above (pure: tests use fixture
 * figures). Entries with ok false or no chunks are left out. Returns its
 * index, or -1 when no entry is usable; *why (may be NULL) gets the reason. */
int pb_cpu_noise_choose(const struct pb_cpu_noise *f, size_t n, enum pb_cpu_choice *why);

/* ---- a placement decision ------------------------------------------------ */

enum pb_cpu_place_how {
	PB_PLACE_NONE = 0, /* not pinned: --cpu any, no probe, or the probe failed */
	PB_PLACE_PROBE,    /* the quietest CPU by the probe */
	PB_PLACE_ONLY,     /* the only CPU allowed: no probe */
	PB_PLACE_OPTION,   /* --cpu said where */
	PB_PLACE_HERE,     /* in-process suites without a probe: where the thread was */
};

/* Where a run goes and why; what the result file's "placement" records. */
struct pb_cpu_place {
	enum pb_cpu_place_how how;
	int cpu;                /* the chosen CPU, -1 none */
	enum pb_cpu_choice why; /* PB_PLACE_PROBE: which rule decided */
	char cpus[128];         /* the CPUs considered ("0-1"), or --cpu's list */
	char note[160];         /* PB_PLACE_NONE/HERE: why not probed ("" else) */
	bool probed;            /* probe holds figures */
	bool probe_off;         /* PRIMBENCH_PROBE_MS=0: no probe asked for */
	struct pb_cpu_probe probe;
};

/* Decides among `allowed` (the thread's affinity before any pinning): a
 * budget of 0: PB_PLACE_NONE with note "no probe (PRIMBENCH_PROBE_MS=0)";
 * one CPU: PB_PLACE_ONLY; else the probe and pb_cpu_noise_choose
 * (PB_PLACE_PROBE), or PB_PLACE_NONE with note "the probe could not pin
 * to CPU 1: Operation not permitted" when no CPU could be probed. The
 * thread is not pinned (the caller pins it, or the command). Returns 0, or
 * -1 with pb_error() (a bad PRIMBENCH_PROBE_MS, no memory). */
int pb_cpu_place_decide(const cpu_set_t *allowed, struct pb_cpu_place *out);

/* One line for stderr (without "placement: " or a newline), e.g. "CPU 0,
 * the quietest of 0-1: a 0.20 s probe lost 1.1% of its time to
 * interruptions there, 7.9% on CPU 1 (--cpu overrides)", "CPU 0, the only
 * CPU this process may use (no probe)", "no probe (PRIMBENCH_PROBE_MS=0):
 * " + fallback. fallback says what happens without a choice ("running
 * unpinned", "staying on CPU 3, where the run started"). Truncated to len.
 * Returns buf. */
char *pb_cpu_place_describe(const struct pb_cpu_place *pl, const char *fallback, char *buf,
                            size_t len);

/* A CPU set as a list: ascending numbers and ranges ("0-1", "0,2-5"), ""
 * for an empty set. Truncated to len (always terminated). Returns buf. */
char *pb_cpu_set_format(const cpu_set_t *set, char *buf, size_t len);

#endif
