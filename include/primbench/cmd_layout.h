/* primbench/cmd_layout.h - memory layout as a source of variance in
 * `primbench cmd`: --randomize-env pads each run's environment by a random
 * size, --layout-audit runs A against itself at a few environment sizes
 * and says how far layout alone moves the figure (docs/statistics.md,
 * "Layout: the environment's size").
 *
 * Why the environment: execve(2) copies the argument and environment
 * strings to the top of the new stack, below them the auxiliary vector,
 * the envp and argv arrays, then main's frame. Every byte of environment
 * moves the initial stack pointer (rounded to the ABI's 16 bytes) and with
 * it the alignment of every stack variable relative to cache lines and
 * pages. Mytkowicz, Diwan, Hauswirth and Sweeney, "Producing Wrong Data
 * Without Doing Anything Obviously Wrong!" (ASPLOS 2009) measured a
 * program's time moving by several percent with the environment's size
 * alone; STABILIZER (Curtsinger and Berger, ASPLOS 2013) turns such bias
 * into variance by randomizing layout on every run, so that a comparison's
 * interval covers it instead of a fixed layout deciding it.
 *
 * The pad is one variable, PRIMBENCH_PAD=xxx..., whose value is 0 to 4095
 * bytes long: 4096 consecutive lengths shift the stack by every multiple
 * of 16 bytes within one page (256 offsets), which covers each stack
 * slot's offset within a cache line and within a page (the 4 KiB aliasing
 * of loads against earlier stores on x86 compares the low 12 address
 * bits); a longer pad would repeat page offsets and only use more stack.
 * With the kernel's address space randomization on
 * (/proc/sys/kernel/randomize_va_space 1 or 2) x86-64 Linux already moves
 * the initial stack by a random 0..8191 bytes on 16-byte steps
 * (arch_align_stack), so the pad matters most under `setarch -R` or with
 * randomization off; the audit measures what is left either way.
 *
 * The draws come from a seeded generator: the pad of the run at position
 * i of a session (warm-ups included, both sides alike) is a function of
 * (seed, i) only, uniform on 0..4095, so both sides draw from the same
 * distribution, independently, and the same seed gives the same pads.
 */
#ifndef PRIMBENCH_CMD_LAYOUT_H
#define PRIMBENCH_CMD_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/cmd_layout_result.h"

/* The pad length in bytes (the value's, not counting "PRIMBENCH_PAD=") of
 * the run at `position` (0-based in the session, warm-ups included), or
 * -1 for no pad (pl NULL or PB_LAYOUT_NONE). RANDOM: uniform on
 * 0..PB_LAYOUT_PAD_MAX_BYTES from (seed, position) by SplitMix64 (Steele,
 * Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014), whichever side runs there. AUDIT: pb_layout_audit_size of the
 * size index of that run: each round of PB_LAYOUT_AUDIT_SIZES counted runs
 * visits every size once, in an order shuffled per round from the seed (no
 * size always first after a given one; drift spreads over all). */
long pb_layout_pad_of(const struct pb_layout_plan *pl, size_t position);

/* "PRIMBENCH_PAD=" and `bytes` 'x's, allocated (free it), or NULL when out
 * of memory. */
char *pb_layout_pad_entry(size_t bytes);

/* A seed for the draws when none is given (--seed): the session's seed
 * maker (pb_session_make_seed, the clock and the pid) cut below 2^32, so
 * that JSON readers keep it exact. */
uint64_t pb_layout_default_seed(void);

/* The audit's figures over n runs: v[i] the run's value (the verdict's
 * figure: ns, or counts), group[i] its size index (< k). Per size: n and
 * median. spread: max median / min median - 1. Kruskal-Wallis H (ties
 * corrected) with k - 1 degrees of freedom and its p (gsl_cdf_chisq_Q);
 * one-way ANOVA on log(v): F, p (gsl_cdf_fdist_Q with k - 1 and n - k
 * degrees of freedom) and between_share = SS between / SS total (eta
 * squared) of the logs. valid false (and nothing else set) when a size has
 * no run, k < 2, n <= k or a value is not positive. Sources: Kruskal and
 * Wallis, "Use of ranks in one-criterion variance analysis" (JASA 1952);
 * NIST/SEMATECH e-Handbook 7.4.3 (one-way ANOVA). */
int pb_layout_audit_stats(const double *v, const unsigned *group, size_t n, unsigned k,
                          struct pb_layout_audit *out);

/* The size index of a pad length (pb_layout_audit_size), or -1. */
int pb_layout_audit_index(long pad_bytes);

#endif
