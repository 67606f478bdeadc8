/* primbench/tune_rules.h - the rules `primbench tune` decides by (the
 * analysis module; docs/performance.md "auto and tune", docs/breakeven.md):
 * how the hot and dram policies merge, how two states' runs combine into
 * one, which kernel auto serves without its dispatch at small sizes, where
 * a policy is slower than libc and which sizes libc then takes, the
 * winner on a call-size distribution, and the check's verdicts on the
 * results of its processes. Decisions on results only: the measuring is
 * the tune suite's (include/primbench/tune.h), the printing the command
 * line's. Every verdict is pb_verdict (twosample.h) with the one margin
 * (pb_equivalence), or with a larger one where this file says so.
 */
#ifndef PRIMBENCH_TUNE_RULES_H
#define PRIMBENCH_TUNE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/policy.h"
#include "primbench/reader.h"
#include "primbench/stats.h"
#include "primbench/twosample.h"

/* ---- policies ------------------------------------------------------------ */

/* The hot policy up to split_bytes (inclusive), the dram policy above it.
 * Adjacent bands with the same kernel are joined; when more than
 * PB_POLICY_MAX_BANDS remain, the smallest ones are joined into their
 * upper neighbour. hot and dram must be policies of the same op (dram may
 * be NULL: the hot policy serves every size). Returns 0, or -1 with
 * pb_error() when the ops differ or split_bytes is 0. */
int pb_tune_merge(const struct pb_policy *hot, const struct pb_policy *dram, uint64_t split_bytes,
                  struct pb_policy *out);

/* p with kernel k serving the sizes lo_bytes..hi_bytes (inclusive, lo <=
 * hi): the bands below and above keep their kernels over the rest of
 * their sizes; equal neighbours are joined. How tune hands a size range
 * where its policy lost to glibc over to libc. Returns 0, or -1 with
 * pb_error() (p unchanged) when lo > hi, k is of another op, or the result
 * would have more than PB_POLICY_MAX_BANDS bands. */
int pb_tune_set_range(struct pb_policy *p, uint64_t lo_bytes, uint64_t hi_bytes,
                      const struct pb_kernel *k);

/* Joins neighbouring bands of p that name the same kernel (the upper one's
 * bound stays). */
void pb_policy_join_equal(struct pb_policy *p);

/* ---- two states as one --------------------------------------------------- */

/* The cases both a and b measured (same op, kernel and size; sizes in
 * [lo_bytes, hi_bytes]) as one result in state `as`, each case's median
 * and CI bounds the geometric means of the two cases' (ticks per call):
 * the break-even finder on it chooses the kernel that is best over both
 * states together (the mean of the two log times; a kernel 10% faster in
 * one state and 10% slower in the other ties). tune uses it with a = hot
 * and b = dram for sizes that may live in either. The CI of a combined case
 * is valid only when both are (and conservative: the mean of the bounds'
 * logs). Each case's samples, as many as the smaller side has, are the
 * geometric means of the two cases' i-th per-call values (one call each;
 * none when a side has no sample arrays: n_samples then the summaries'
 * smaller count), replicate by replicate when both have the same number
 * of replicates (n_replicates and replicate_samples then the pairs of
 * each, so that pb_contender_ratio still pairs by replicate). Returns 0 (out may
 * have no case), or -1 with pb_error() on allocation failure; free out with
 * pb_mem_result_free(). */
int pb_tune_combine(const struct pb_mem_result *a, const struct pb_mem_result *b, uint64_t lo_bytes,
                    uint64_t hi_bytes, enum pb_cache_state as, struct pb_mem_result *out);

/* The no-loss rule for sizes that may live in either state (auto must
 * never be slower than glibc there in either: docs/breakeven.md, "Never
 * slower than glibc"): in out, a result
 * of pb_tune_combine(a, b, ...), every case of a kernel other than guard
 * (libc) whose median in a or in b is slower than guard's there by more
 * than margin (a fraction, 0.01 for 1%) has its figures (samples, median,
 * CI, min, max) scaled so that its ratio to guard's combined median is its
 * worse state's ratio, max(t_a / g_a, t_b / g_b), instead of the geometric
 * mean of the two. Such a kernel then ranks behind guard (ratio 1) at that
 * size whatever it gains in the other state, while a kernel slower in
 * neither keeps the geometric mean. Cases without a usable guard case in
 * both states at their size are left as they are. Returns how many cases
 * were scaled. */
size_t pb_tune_guard_combined(struct pb_mem_result *out, const struct pb_mem_result *a,
                              const struct pb_mem_result *b, const struct pb_kernel *guard,
                              double margin);

/* ---- a run's kernels set against each other -------------------------------- */

/* The case of kernel k at size n (bytes) in r with samples (n_samples >
 * 0), or NULL. */
const struct pb_mem_case *pb_tune_case_at(const struct pb_mem_result *r, const struct pb_kernel *k,
                                          uint64_t n);

/* Whether case c beats case fast (the same size, interleaved in one run)
 * by more than auto's dispatch: the ratio fast / c (pb_judge_mem_cases's
 * interval, replicate by replicate, judge.h) called different by pb_verdict with c faster,
 * its margin the dispatch's share of c's median (PB_AUTO_DISPATCH_TICKS
 * over c's median ticks per call, auto.h), never below the one margin
 * (pb_equivalence). No interval (too few samples, no samples): false, no
 * evidence that c wins. */
bool pb_tune_beats_dispatch(const struct pb_mem_case *c, const struct pb_mem_case *fast);

/* The sizes around a size s (bytes) of either grid (tuned sizes are 16 B x
 * 2^(k / per_octave), the check's halfway between, pb_tune_check_sizes):
 * from s's lower neighbour on the other grid to its upper one, both
 * included (with 1% to spare for their rounding to whole bytes), into *lo
 * and *hi (bytes; lo <= s <= hi), so that the ranges of two neighbouring
 * sizes meet and no size between them keeps the kernel neither was
 * measured to win with. */
void pb_tune_loss_range(uint64_t s, unsigned per_octave, uint64_t *lo, uint64_t *hi);

/* The usable kernel of op that auto runs without its dispatch (the row's
 * auto_inline: avx512 on x86-64), or NULL. */
const struct pb_kernel *pb_tune_inline_kernel(enum pb_op op);

/* auto's inline table (auto.h): auto serves sizes up to PB_AUTO_SMALL_MAX
 * that its inline kernel `fast` serves without a dispatch; any other kernel
 * there costs the dispatch, PB_AUTO_DISPATCH_TICKS a call in the hot state
 * and more in dram (5-45 ticks at 19-108 B on Zen 4, where the inline
 * path costs 0-4: docs/performance.md, "auto's dispatch in the dram
 * state"). At each size up to PB_AUTO_SMALL_MAX measured in r (the hot run
 * the policy p came from) of a band of another kernel, that kernel keeps
 * the sizes around it (pb_tune_loss_range; the band's first and last
 * measured sizes reach to the band's ends) only where it beats `fast` by
 * more than the dispatch (pb_tune_beats_dispatch); otherwise `fast` takes
 * them. `fast` not measured at a size: the band keeps it. A band measured
 * at no size goes to `fast` (no evidence that its kernel wins); so does a
 * band whose kernel runs fast's code at every one of its sizes up to
 * PB_AUTO_SMALL_MAX (pb_kernel_code_at). Equal neighbours are then joined;
 * a range that would need more than PB_POLICY_MAX_BANDS bands is left as
 * it was. fast NULL: p unchanged. */
void pb_tune_prefer_inline(struct pb_policy *p, const struct pb_mem_result *r,
                           const struct pb_kernel *fast, unsigned per_octave);

/* ---- never slower than libc ------------------------------------------------ */

/* A size where a policy's kernel was slower than libc in a run: the two
 * cases (of the run's result). */
struct pb_tune_loss {
	uint64_t size_bytes;
	const struct pb_mem_case *kernel_case, *libc_case;
};

/* The no-loss rule at the sizes tune timed above PB_AUTO_SMALL_MAX: of
 * sizes[0..n) (a run's, in its order), those above PB_AUTO_SMALL_MAX and
 * at most max_bytes where policy's kernel is not libc and libc beats it in
 * r by the one rule beyond the dispatch (pb_tune_beats_dispatch(libc's
 * case, the kernel's case)), into out (at most cap). Up to
 * PB_AUTO_SMALL_MAX a libc band would add auto's dispatch to libc's time:
 * those sizes are never judged. Returns how many were written. */
size_t pb_tune_libc_losses(const struct pb_policy *policy, const struct pb_mem_result *r,
                           const uint64_t *sizes, size_t n, uint64_t max_bytes,
                           struct pb_tune_loss *out, size_t cap);

/* A handover to libc (pb_tune_hand_to_libc): the sizes lo..hi (bytes), the
 * kernel that served s before, and whether the policy changed. */
struct pb_tune_handover {
	uint64_t lo_bytes, hi_bytes;
	const struct pb_kernel *from;
	bool changed;
};

/* libc takes the sizes around s (pb_tune_loss_range) in p
 * (pb_tune_set_range). Returns 1 when handed (out filled; out->changed
 * false when p came out equal, pb_policy_equal), 0 when there is nothing to
 * hand (op has no libc kernel, or libc serves s already), or -1 with
 * pb_error() when pb_tune_set_range refused (p unchanged; out->lo_bytes,
 * hi_bytes and from filled). */
int pb_tune_hand_to_libc(struct pb_policy *p, uint64_t s, unsigned per_octave,
                         struct pb_tune_handover *out);

/* ---- the winner on a distribution ------------------------------------------ */

/* --distribution's choice among n candidates timed on one batch of call
 * sizes (pb_mem_replay_policies), candidate 0 the policy tune found: sum[i]
 * each one's median ticks a call (a candidate without samples, n 0, is
 * never the fastest), vs[i] the ratio candidate i / candidate 0. The
 * fastest by the medians (the first of equal ones; 0 unless another is
 * faster) is chosen when pb_verdict calls its ratio different with the one
 * margin and below 1; otherwise the policy stays. Returns the index chosen
 * (0: the policy). */
size_t pb_tune_distribution_pick(const struct pb_summary *sum, const struct pb_shift *vs, size_t n);

/* ---- the check before the policy file is written ---------------------------- */

/* One size in one state of the check (auto with the policy against libc
 * in fresh processes): ratio = libc time / auto time (> 1: auto faster),
 * the run-level 95% interval lo..hi (pb_contender_ratio over the
 * replicates; NaN when there is none), auto's median, and whether auto
 * lost: slower than libc by pb_verdict with the one margin
 * (pb_equivalence). */
struct pb_tune_check_point {
	enum pb_cache_state state;
	uint64_t size_bytes;
	double ratio, lo, hi;
	double auto_ticks; /* auto's median per call, the case's unit (TSC ticks) */
	bool loss;
};

/* The check's outcome: its points (size order within each state, hot
 * first), the losses among them, and per state (0 hot, 1 dram) the
 * geometric mean of the ratios and how many points it is over. */
struct pb_tune_check {
	struct pb_tune_check_point *pts;
	size_t n, losses;
	double geomean[2];
	size_t count[2];
};

/* The held-back sizes: 16 B x 2^((k + 1/2) / per_octave) for k = 0, 1, ...
 * up to max_bytes, the midpoints (geometric) of tune's own grid. Returns
 * how many were written to out (at most cap). */
size_t pb_tune_check_sizes(unsigned per_octave, uint64_t max_bytes, uint64_t *out, size_t cap);

/* The check's verdicts on f, a result of `primbench mem OP --kernels
 * auto,libc --cache hot,dram` at sizes[0..n): for each state (hot, dram)
 * and size with both an auto and a libc case of op, a point judged by
 * pb_judge_cases (judge.h; a size missing either case, or whose ratio
 * cannot be had, has none: interrupted before it). *out is set from
 * scratch. Returns 0, or -1 with pb_error() (out of memory); free out with
 * pb_tune_check_free (also after a failure). */
int pb_tune_check_judge(enum pb_op op, const uint64_t *sizes, size_t n,
                        const struct pb_results_file *f, struct pb_tune_check *out);
void pb_tune_check_free(struct pb_tune_check *c);

/* The check's second round: the sizes of c's losses above
 * PB_AUTO_SMALL_MAX where policy's kernel is not libc, then
 * suspects[0..n_suspects) (the sizes tune's own runs saw lose,
 * pb_tune_libc_losses), each size once, in that order, into out (at most
 * cap); *small_losses gets the number of c's losses at or below
 * PB_AUTO_SMALL_MAX (where a libc band would add auto's dispatch to libc's
 * time: they are left). Returns how many sizes were written. */
size_t pb_tune_check_again(const struct pb_tune_check *c, const struct pb_policy *policy,
                           const uint64_t *suspects, size_t n_suspects, uint64_t *out, size_t cap,
                           size_t *small_losses);

/* A handover the check undid (pb_tune_check_undo): the size and state
 * where libc did worse, its ratio there and the ratio before, and the
 * kernel the sizes around it went back to. */
struct pb_tune_undo {
	uint64_t size_bytes;
	enum pb_cache_state state;
	double ratio, was_ratio;
	const struct pb_kernel *kernel;
};

/* The check's third round: c measured the sizes handed to libc with the
 * new policy; was[0..n_was) are those sizes' points from the round before
 * (the handover's reason), before the policy before it. A handover that
 * did worse than the kernel it replaced (libc's dispatch can cost more
 * than the loss: a point of c that lost, with a ratio below its was
 * point's of the same size and state) is undone: the sizes around it
 * (pb_tune_loss_range) go back to before's kernel there
 * (pb_tune_set_range; a refused range is left). Each undone one into out
 * (at most cap). Returns how many were undone. */
size_t pb_tune_check_undo(struct pb_policy *policy, const struct pb_policy *before,
                          const struct pb_tune_check *c, const struct pb_tune_check_point *was,
                          size_t n_was, unsigned per_octave, struct pb_tune_undo *out, size_t cap);

#endif
