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
#include "primbench/tune_rules.h"

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

/* Runs the check in cli_tmp_dir() (stdout of the processes discarded,
 * their stderr kept for the error line). Returns 0; -1 with pb_error()
 * when the processes failed ("the check's processes (primbench mem memset
 * --kernels auto,libc) failed: THEIR ERROR LINE") or their result cannot
 * be read; 128 + signal when they were killed or interrupted. The
 * verdicts are pb_tune_check_judge's (include/primbench/tune_rules.h).
 * Free out with pb_tune_check_free (also after a failure). */
int tune_check_run(const struct tune_check_params *p, struct pb_tune_check *out);

#endif
