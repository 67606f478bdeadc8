/* primbench/tune.h - the tune suite (docs/performance.md "auto and
 * tune"): measure, analyse, measure. Per op, every candidate kernel is
 * timed at small sizes in the hot state and at large ones in the dram
 * state, the mid sizes (from the gain rule's large_from_bytes to the
 * split) in both; each run's break-even policy (breakeven.h), the mid
 * sizes' policy over both states together and the merged policy follow
 * (the rules: include/primbench/tune_rules.h). --distribution's
 * candidates are timed on a batch of call sizes. Progress and each run's
 * outcome reach the caller through hooks; nothing here prints. And the
 * policy file's text.
 */
#ifndef PRIMBENCH_TUNE_H
#define PRIMBENCH_TUNE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/breakeven.h"
#include "primbench/distribution.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/policy.h"
#include "primbench/stats.h"
#include "primbench/twosample.h"

/* The kernels a policy of op may name: every usable one (this CPU's
 * features, less the hidden ones) whose row says tune_candidate (not auto,
 * whose policy it is, nor the kernels that only demonstrate a technique;
 * primbench/kernels.h), in catalogue order, into out (at most cap).
 * Returns how many. */
size_t pb_tune_candidates(enum pb_op op, const struct pb_kernel **out, size_t cap);

/* One of tune's runs: op's candidates at sizes_bytes[0..n_sizes) in
 * state, their result (replicates joined, include/primbench/replicates.h)
 * and its break-even computation (be: the policy the break-even finder
 * recommends, its switches and peers), and the policy tune takes from it
 * (be.policy; for the hot run after pb_tune_prefer_inline). The run of
 * both states together (combined) has no sizes nor result of its own: its
 * break-even is that of pb_tune_combine of the hot and dram results over
 * the mid sizes, after pb_tune_guard_combined scaled `held` cases. */
struct pb_tune_run {
	enum pb_op op;
	enum pb_cache_state state; /* hot or dram; combined: hot */
	bool combined;
	size_t held;
	uint64_t *sizes_bytes;
	size_t n_sizes;
	struct pb_mem_result result;
	bool have_result;
	struct pb_breakeven be;
	bool have_be;
	struct pb_policy policy;
};

/* What the suite tells its caller, each may be NULL; ctx is passed back.
 * start: a replicate of a run begins, label "tune: memset hot, replicate 2
 * of 5" ("tune: memset hot" with one replicate); progress: the mem run's
 * groups done of total (pb_mem_params' progress); end: the replicate
 * ended. run_done: a run's outcome, after its break-even (have_be false
 * when it could not be computed: the run then fails) and before
 * pb_tune_prefer_inline; not called for a run that was interrupted or
 * failed to measure, nor for a combined run that had nothing to combine. */
struct pb_tune_hooks {
	void (*start)(void *ctx, const char *label);
	void (*progress)(void *ctx, size_t done, size_t total);
	void (*end)(void *ctx);
	void (*run_done)(void *ctx, const struct pb_tune_run *run);
	void *ctx;
};

/* One op's tuning. kernels[0..n_kernels): the candidates
 * (pb_tune_candidates), all usable. Sizes: 16 B x 2^(k / per_octave),
 * hot up to split_bytes, dram from rule.large_from_bytes to max_bytes
 * (split_bytes < max_bytes). budget_s: per size and state, shared out
 * among the replicates (1 or more), as are the most samples
 * (PB_MEM_MAX_SAMPLES_DEFAULT; never fewer than the least). caches: the
 * working sets (pb_mem_params_make). glibc: the thresholds the hot and
 * dram break-evens map their policies to (NULL: none). seed: the
 * session's; the hot run takes seed + op, the dram run seed + 3 + op,
 * replicate r adds r x PB_SEED_STEP. stop: a set flag ends the
 * run after the current sample (may be NULL). */
struct pb_tune_params {
	enum pb_op op;
	const struct pb_kernel *const *kernels;
	size_t n_kernels;
	uint64_t split_bytes, max_bytes;
	unsigned per_octave;
	struct pb_gain_rule rule;
	double budget_s;
	size_t replicates;
	const struct pb_cache_info *caches;
	const struct pb_glibc_thresholds *glibc;
	uint64_t seed;
	volatile sig_atomic_t *stop;
	struct pb_tune_hooks hooks;
};

/* An op's tuning: its runs (both: the mid sizes over both states, when
 * have_both) and the merged policy: the hot policy below
 * rule.large_from_bytes, both's up to the split, the dram policy above
 * (pb_tune_merge). interrupted: a stop ended a run; merged is then not
 * set. */
struct pb_tune_op_result {
	struct pb_tune_run hot, dram, both;
	bool have_both;
	struct pb_policy merged;
	bool interrupted;
};

/* Runs p: the hot run, the dram run, the combined one, the merge. Returns
 * 0 (also when interrupted), or -1 with pb_error(): a run that could not
 * be measured (pb_mem_run's error), "no hot case of memset could be
 * timed", out of memory. pb_timer_init() must have run. Free out with
 * pb_tune_op_free (also after a failure). */
int pb_tune_op_run(const struct pb_tune_params *p, struct pb_tune_op_result *out);
void pb_tune_op_free(struct pb_tune_op_result *r);

/* --distribution (docs/distributions.md): the policy tune found against each
 * candidate kernel serving every size of dist (sizes above it keep the
 * policy's bands, pb_tune_merge), timed on one replay batch of 4096 calls,
 * seed 1, random offsets, hot (pb_mem_replay_policies). n = n_kernels + 1
 * candidates, cands[0] the policy, cands[i] kernel i - 1's; sum[i] the median
 * ticks a call of each, vs[i] candidate i over the policy (an interval at
 * 95%); batch_le_128: the batch's calls of at most 128 B; pick: the candidate
 * chosen (pb_tune_distribution_pick, tune_rules.h; 0: the policy stays). */
struct pb_tune_distribution {
	struct pb_policy *cands;
	struct pb_summary *sum;
	struct pb_shift *vs;
	size_t n;
	size_t batch_calls, batch_le_128;
	size_t pick;
	bool interrupted; /* stopped: the figures are partial, pick 0 */
};

/* Times it: budget_s x 10 per candidate in all, seed the session's + 6 +
 * op, stop as for pb_tune_op_run. Returns 0, or -1 with pb_error(); free
 * out with pb_tune_distribution_free (also after a failure). */
int pb_tune_distribution_run(const struct pb_policy *policy, const struct pb_kernel *const *kernels,
                             size_t n_kernels, const struct pb_distribution *dist, double budget_s,
                             const struct pb_cache_info *caches, uint64_t seed,
                             volatile sig_atomic_t *stop, struct pb_tune_distribution *out);
void pb_tune_distribution_free(struct pb_tune_distribution *d);

/* The text of a policy file (include/primbench/auto.h's format): the
 * comment lines (each prefixed with "# "; may be NULL), then one line per
 * op set in f, then the cpu line when f->cpu is not empty. Returns a
 * malloc'd string, or NULL with pb_error() when a policy cannot be
 * formatted. */
char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment);

/* ---- the LLC from the latency curve ------------------------------------ */

/* The latency sweep for the LLC: from a quarter of L2 (the steps compare
 * each point with the one of half its size) to 512 MiB or RAM / 8, which
 * finds a last level of up to ~340 MiB (its step must show by 1.5x). */
#define PB_TUNE_LLC_CURVE_MAX_BYTES (512ull << 20)
/* The least rise of the LLC's step: LLC to DRAM is 3-10x in ns a load;
 * the steps a sweep shows past the LLC (page walks) 1.3-2x. */
#define PB_TUNE_LLC_CURVE_MIN_RISE 2.0
/* Sweeps, fresh chains each: one sweep's step moved by up to 64x between
 * runs on a busy 2-vCPU guest (4 to 256 MiB). */
#define PB_TUNE_LLC_SWEEPS 3

struct pb_tune_llc_sweeps {
	uint64_t max_bytes;                 /* the sweeps' top size */
	int swept;                          /* sweeps that measured points */
	int nfound;                         /* of those, sweeps whose curve shows the step */
	uint64_t found[PB_TUNE_LLC_SWEEPS]; /* its first size, per sweep that found one */
	bool agree;         /* pb_curve_llc_agree: more than half found it, within 2x */
	uint64_t llc_bytes; /* agree: their median */
};

/* Sweeps the latency curve PB_TUNE_LLC_SWEEPS times (pb_latency_sweep,
 * seeds fixed per sweep) from max(l2_bytes / 4, 4 KiB) to
 * PB_TUNE_LLC_CURVE_MAX_BYTES or RAM / 8, finds each curve's largest step
 * starting above 2 x l2_bytes that rises PB_TUNE_LLC_CURVE_MIN_RISE or
 * more (pb_curve_llc_step) and whether they agree (pb_curve_llc_agree).
 * stop: checked between points. Never fails: a sweep that cannot be made
 * counts as not swept. (docs/breakeven.md, "The LLC from the latency
 * curve".) */
void pb_tune_llc_from_curve(uint64_t l2_bytes, volatile sig_atomic_t *stop,
                            struct pb_tune_llc_sweeps *out);

#endif
