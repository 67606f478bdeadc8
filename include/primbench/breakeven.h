/* primbench/breakeven.h - where kernels cross, the policy that follows,
 * and the glibc tunables closest to it: the computation (the analysis
 * module; its text and JSON are report's breakeven_text.h) (docs/breakeven.md;
 * docs/cases.md, M4: where non-temporal stores start to pay).
 *
 * Input: one op and one cache state of a pb_mem_result. Every figure comes
 * from the cases' medians of ticks per call and the 95% confidence
 * intervals of those medians (include/primbench/stats.h). Sizes 0, and
 * cases whose median or CI is not positive, are left out (the method works
 * on logarithms of sizes and of times).
 *
 * - Crossing: between two adjacent measured sizes where the order of two
 *   kernels' medians flips, the size where ln(median_a / median_b),
 *   interpolated linearly in log2(size), is 0 (exact when both kernels
 *   follow power laws between the two sizes).
 * - Its interval: the sizes around it where neither kernel is faster by
 *   the one rule (pb_verdict on their ratio with PB_EQUIVALENCE,
 *   twosample.h), from where that verdict is lost on each side (the same
 *   interpolation). It says over which sizes the run could not tell the
 *   two kernels apart; it is NOT a confidence interval of the crossing
 *   (docs/breakeven.md says why).
 * - Policy: the lower envelope of the medians, then a band is kept only
 *   where its kernel beats a neighbouring band's kernel by the one rule
 *   with the keep gain as its margin, at one size at least; otherwise it
 *   joins that neighbour (fewer switches).
 *   Each bound is the crossing of its two bands' kernels (a switch), found
 *   by the crossing rule over the two bands' sizes: the printed switches
 *   and the policy's bounds are one computation.
 * - Kernels that run another measured kernel's code at a size
 *   (pb_kernel_code_at) count as that kernel there: their own cases at
 *   those sizes are left out.
 * - glibc: the x86_rep_movsb_threshold / x86_rep_stosb_threshold /
 *   x86_non_temporal_threshold values whose glibc 2.36 x86-64 bands differ
 *   from the policy over the fewest octaves of the measured sizes, and what
 *   glibc cannot express.
 */
#ifndef PRIMBENCH_BREAKEVEN_H
#define PRIMBENCH_BREAKEVEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/glibc_model.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/policy.h"

/* One crossing of two leading kernels. */
struct pb_crossing {
	const struct pb_kernel *below;   /* the faster one below size_bytes */
	const struct pb_kernel *above;   /* the faster one above */
	double size_bytes;               /* where the medians cross (interpolated) */
	uint64_t bracket_lo, bracket_hi; /* the measured sizes around size_bytes */
	/* Where neither kernel is faster by the one rule (pb_verdict with
	 * PB_EQUIVALENCE) around the crossing. lo_open: neither is at the
	 * smallest size both were measured at either (lo_bytes is that size);
	 * hi_open likewise at the largest. (JSON: ci_overlap_bytes, the name
	 * kept from the overlap rule this replaced.) */
	double lo_bytes, hi_bytes;
	bool lo_open, hi_open;
	/* Times the medians crossed inside the interval: odd; more than 1 when
	 * noise flipped the order back and forth (size_bytes is the middle
	 * crossing). A switch with an even count (0 included) has no crossing
	 * of its own: its bound is where its bands meet (docs/breakeven.md). */
	unsigned flips;
	/* Switches only: the policy's bound, bytes (`below` serves sizes up to
	 * it): size_bytes rounded down, or moved as docs/breakeven.md says. */
	uint64_t bound_bytes;
	/* Switches only: how bound_bytes was placed; moved_from_bytes is the
	 * bound before a move (PB_BOUND_CODE, PB_BOUND_ASCENDING). */
	enum pb_bound_how {
		PB_BOUND_CROSSING,  /* the middle crossing, rounded down */
		PB_BOUND_BANDS,     /* no crossing of their own (even flips): where
		                       the bands meet */
		PB_BOUND_CODE,      /* moved to where `above` stops running
		                       `below`'s code */
		PB_BOUND_ASCENDING, /* moved above the previous switch's bound */
	} bound_how;
	uint64_t moved_from_bytes;
	/* Switches only: at a measured size in [lo_bytes, hi_bytes] neither
	 * kernel is faster by the one rule (pb_verdict, PB_EQUIVALENCE; false:
	 * one is faster at every measured size and the interval is only an
	 * interpolation between two of them). JSON: ci_overlap_measured, the
	 * name kept from the overlap rule it replaced. */
	bool undecided_measured;
};

/* The kernels a policy band's sizes cannot tell from the band's kernel:
 * measured wherever it was, and not slower than it by the one rule
 * (pb_verdict, PB_EQUIVALENCE) at any of them. The band's kernel is the
 * first in catalogue order (libc first, or last: pb_gain_rule's
 * libc_last) among itself and those of these
 * whose medians are within that margin on average (docs/breakeven.md,
 * "Kernels that cannot be told apart"), so a second process that finds
 * the same ones names the same kernel. */
#define PB_BREAKEVEN_MAX_PEERS 8
struct pb_band_peers {
	const struct pb_kernel *kernels[PB_BREAKEVEN_MAX_PEERS];
	size_t n;
};

/* The keep rule with a gain that depends on the size: `small` below
 * large_from_bytes, `large` from it on (fractions: 0.10 is 10%). A band is
 * kept only where its kernel beats a neighbouring band's by more than the
 * rule's gain (pb_verdict with it as the margin) at one size of the band
 * at least. A large
 * size can be served on a smaller margin: a dispatch's few ticks are
 * nothing there (docs/performance.md, "tune's keep rule"). */
struct pb_gain_rule {
	double small, large;
	uint64_t large_from_bytes;
	/* Among kernels a band cannot tell apart (struct pb_band_peers), libc
	 * is the first choice (false: a band libc serves as well needs no
	 * other kernel, the summary's reading) or the last (true: tune, whose
	 * policy must not follow what GLIBC_TUNABLES makes of libc). */
	bool libc_last;
};

struct pb_breakeven {
	enum pb_op op;
	enum pb_cache_state state;
	struct pb_gain_rule rule;         /* the keep rule it was computed with */
	size_t n_sizes;                   /* positive sizes measured */
	uint64_t min_size, max_size;      /* of those */
	const struct pb_kernel **leading; /* fastest at a size, and libc */
	size_t n_leading;
	struct pb_crossing *crossings; /* ascending size_bytes */
	size_t n_crossings;
	struct pb_policy policy; /* recommended */
	/* Where policy switches kernels: switches[i] is between bands i and
	 * i + 1, its bound_bytes is policy.bands[i].max_bytes. */
	struct pb_crossing *switches;
	size_t n_switches;
	/* peers[i]: band i's (policy.bands[i]); JSON: policy_peers */
	struct pb_band_peers peers[PB_POLICY_MAX_BANDS];
	bool policy_simplified; /* more than PB_POLICY_MAX_BANDS bands were merged anyway */
	bool have_glibc;        /* glibc was asked for (g != NULL) */
	struct pb_glibc_thresholds glibc_now;
	struct pb_glibc_tunables glibc;
};

/* Computes the crossings, the policy and (when g is not NULL) the glibc
 * mapping for (op, st) of r. Returns 1 when done, 0 when r has no usable
 * case of (op, st) (nothing to free), or -1 with pb_error() (allocation).
 * Free with pb_breakeven_free(). */
int pb_breakeven_compute(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                         const struct pb_glibc_thresholds *g, struct pb_breakeven *out);
/* The same with the policy's keep rule at min_gain (a fraction: 0.03 is
 * pb_breakeven_compute's 3%): a band is kept only where its kernel beats a
 * neighbouring band's by more than that, by the one rule (pb_verdict with
 * that gain as its margin), at one size at least. */
int pb_breakeven_compute_gain(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                              const struct pb_glibc_thresholds *g, double min_gain,
                              struct pb_breakeven *out);
/* pb_breakeven_compute_gain with that rule. */
int pb_breakeven_compute_rule(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                              const struct pb_glibc_thresholds *g, const struct pb_gain_rule *rule,
                              struct pb_breakeven *out);
void pb_breakeven_free(struct pb_breakeven *b);

/* ---- SIMD plus a state save against rep (xsave's break-even line) ---- */

/* simd[i], rep[i]: the best SIMD kernel's and the rep kernel's median
 * ticks a call at sizes[i] of one hot sweep (sizes ascending; NaN: not
 * measured), pair: one save+restore of the SIMD state (ticks). The
 * break-even size: the smallest i from which simd[j] + pair < rep[j]
 * holds for every j >= i (a NaN entry never holds; a sum and a
 * comparison of three figures, no interval of its own). Returns i, or -1
 * when it never holds up to the largest size (src/analysis/
 * xsave_breakeven.c; docs/methodology.md "SIMD state saving"). */
int pb_xsave_breakeven(const double *simd, const double *rep, size_t n, double pair);

/* When it never holds, how close it came: the i where SIMD leads rep most,
 * rep[i] - simd[i] largest (the first of equal ones; both measured).
 * Returns i, or -1 when no size has both. */
int pb_xsave_largest_lead(const double *simd, const double *rep, size_t n);

#endif
