/* tune_check.h - tune's check of the policy it found (src/cli/tune_check.c):
 * auto running that policy against libc, at sizes between the tuned ones
 * (held back from the tuning), in fresh processes of `primbench mem`,
 * before the policy file is written (docs/breakeven.md, "The check before
 * the file is written"). */
#ifndef PRIMBENCH_CLI_TUNE_CHECK_H
#define PRIMBENCH_CLI_TUNE_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/mem.h"

/* What to check: op's auto with the policy file policy_path against libc
 * at sizes[0..n_sizes) in the hot and dram states, `processes` fresh
 * processes of `replicates` replicates each (joined: the run-level
 * interval spans the processes), budget_s seconds per size and state in
 * all, on CPU cpu (-1: each process places itself). */
struct tune_check_params {
	enum pb_op op;
	const char *policy_path;
	const uint64_t *sizes;
	size_t n_sizes;
	size_t processes, replicates;
	double budget_s;
	int cpu;
	/* the session's stop flag (pb_session_stop_flag): when a SIGINT or
	 * SIGTERM sets it while the processes run, they get a SIGTERM */
	volatile sig_atomic_t *stop;
};

/* One size in one state: ratio = libc time / auto time (> 1: auto
 * faster), the run-level 95% interval lo..hi (pb_contender_ratio over the
 * replicates; NaN when there is none), auto's median, and whether auto
 * lost: slower than libc by pb_verdict with the one margin
 * (pb_equivalence). */
struct tune_check_point {
	enum pb_cache_state state;
	uint64_t size_bytes;
	double ratio, lo, hi;
	double auto_ticks; /* auto's median per call, the case's unit (TSC ticks) */
	bool loss;
};

/* The check's outcome: its points (size order within each state, hot
 * first), the losses among them, and per state (0 hot, 1 dram) the
 * geometric mean of the ratios and how many points it is over. */
struct tune_check {
	struct tune_check_point *pts;
	size_t n, losses;
	double geomean[2];
	size_t count[2];
};

/* Runs the check in cli_tmp_dir() (stdout of the processes discarded,
 * their stderr kept for the error line). Returns 0; -1 with pb_error()
 * when the processes failed ("the check's processes (primbench mem memset
 * --kernels auto,libc) failed: THEIR ERROR LINE") or their result cannot
 * be read; 128 + signal when they were killed or interrupted. Free out
 * with tune_check_free (also after a failure). */
int tune_check_run(const struct tune_check_params *p, struct tune_check *out);
void tune_check_free(struct tune_check *c);

/* The held-back sizes: 16 B x 2^((k + 1/2) / per_octave) for k = 0, 1, ...
 * up to max_bytes, the midpoints (geometric) of tune's own grid. Returns
 * how many were written to out (at most cap). */
size_t tune_check_sizes(unsigned per_octave, uint64_t max_bytes, uint64_t *out, size_t cap);

#endif
