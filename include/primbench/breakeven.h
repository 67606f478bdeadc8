/* primbench/breakeven.h - where kernels cross, the policy that follows,
 * and the glibc tunables closest to it (docs/breakeven.md; case M4 in
 * shared/cases/memory.md).
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

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/policy.h"

/* glibc's thresholds as it runs here (from `ld.so --list-diagnostics`:
 * x86.cpu_features.rep_movsb_threshold, .rep_stosb_threshold,
 * .non_temporal_threshold, .rep_movsb_stop_threshold; the minimum from
 * `ld.so --list-tunables`: "glibc.cpu.x86_rep_movsb_threshold: 0x840
 * (min: 0x200, ...)"). Bytes. */
struct pb_glibc_thresholds {
	uint64_t rep_movsb, rep_stosb, non_temporal;
	/* Where memcpy stops using rep movsb. 0 = unknown, taken as
	 * non_temporal. Intel: equal to non_temporal and moving with it; AMD:
	 * the L2 size, fixed (glibc computes it; no tunable). */
	uint64_t rep_movsb_stop;
	/* glibc ignores x86_rep_movsb_threshold values <= this (8 x its vector
	 * size: 128, 256 or 512). 0 = unknown. */
	uint64_t rep_movsb_min;
	bool known; /* false: the fields above are not filled */
};

/* glibc's thresholds as this process's ld.so reports them
 * (pb_glibc_read, include/primbench/fingerprint.h); out->known is false
 * when any of the three is unknown. Never fails. */
void pb_glibc_thresholds_read(struct pb_glibc_thresholds *out);

/* glibc 2.36 accepts x86_non_temporal_threshold only in (0x4040, this];
 * the value the mapping uses for "never". */
#define PB_GLIBC_NT_MAX UINT64_C(0x0fffffffffffffff)
#define PB_GLIBC_NT_MIN UINT64_C(0x4040) /* values <= this are ignored */

#define PB_GLIBC_MAX_NOTES 12

/* The policy as glibc tunables (only the op's are set). */
struct pb_glibc_tunables {
	enum pb_op op;
	uint64_t rep_movsb, non_temporal; /* memcpy */
	uint64_t rep_stosb;               /* memset */
	/* "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=N:glibc.cpu.
	 * x86_non_temporal_threshold=M" (memcpy) or "...x86_rep_stosb_threshold=N". */
	char line[256];
	/* Octaves of the measured range where glibc's kind of path (vector
	 * loop, rep, non-temporal) differs from the one the policy's kernel
	 * runs; sizes whose kernel glibc has no path for are not counted: */
	double mismatch_octaves;
	double no_path_octaves; /* those: bands of kernels glibc has no path for */
	size_t n_notes;         /* what glibc cannot express, in words */
	char notes[PB_GLIBC_MAX_NOTES][200];
};

/* Maps policy p onto glibc 2.36 x86-64 tunables: tries every candidate
 * value (each policy bound, glibc's current and lowest accepted values,
 * "never" = PB_GLIBC_NT_MAX) and keeps the one whose bands differ from the
 * policy over the fewest octaves of [range_lo, range_hi] (0, 0: 64 B up to
 * twice the largest bound, at least 64 MiB); ties go to the fewest octaves
 * up to 2^60, then to the values nearest glibc's current ones, then to
 * lower values. `cur` (may be NULL or !known) gives glibc's current values:
 * what a 'libc' band means, the rep movsb stop and minimum. Fills *out
 * (line, octaves still differing, notes in words); never fails. */
void pb_glibc_map_policy(const struct pb_policy *p, const struct pb_glibc_thresholds *cur,
                         uint64_t range_lo, uint64_t range_hi, struct pb_glibc_tunables *out);

/* The path glibc 2.36 x86-64 takes for op (memset or memcpy) at n bytes
 * with its thresholds `cur` (known), or with those of a GLIBC_TUNABLES
 * line `set` (pb_glibc_map_policy's; NULL: cur's own), the model the
 * mapping uses (the comment above gmodel in src/report/breakeven.c,
 * from glibc's memset-/memmove-vec-unaligned-erms.S and dl-cacheinfo.h).
 * A value of set that glibc ignores (x86_rep_movsb_threshold at or below
 * 8 x its vector size, x86_non_temporal_threshold <= 0x4040, 0) leaves
 * cur's. PB_GLIBC_PATH_NONE for another op or thresholds not known. The
 * sizes where the two differ are those a line changes: tune measures
 * libc there with and without it (src/cli/glibc_check.c). */
enum pb_glibc_path pb_glibc_path_at(const struct pb_glibc_thresholds *cur, enum pb_op op,
                                    const struct pb_glibc_tunables *set, uint64_t n);

/* The thresholds of a line pb_glibc_map_policy wrote ("GLIBC_TUNABLES=
 * glibc.cpu.x86_rep_stosb_threshold=2048", settings joined by ':', values
 * decimal or 0x hex; the "GLIBC_TUNABLES=" may be left out) into *out:
 * op's settings (memset: x86_rep_stosb_threshold; memcpy:
 * x86_rep_movsb_threshold and x86_non_temporal_threshold), 0 where the
 * line has none; other glibc.* settings are skipped. Returns 0, or -1
 * with pb_error() for a setting without a value or a bad number. */
int pb_glibc_tunables_from_line(const char *line, enum pb_op op, struct pb_glibc_tunables *out);

/* The kind of path of glibc 2.36 x86-64 a kernel's code corresponds to
 * (the classes the mapping above uses; the row's glibc field,
 * primbench/kernels.h): its vector loop, rep movsb/stosb, non-temporal
 * stores, or none (libc itself, kernels glibc has no path for: bytes, rbw,
 * clzero, a memset non-temporal loop, ...). Never PB_GLIBC_PATH_ANY. */
enum pb_glibc_path pb_glibc_path_of(const struct pb_kernel *k);

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

/* One switch of a policy in words, as pb_breakeven_print gives it:
 * "BELOW -> ABOVE above BOUND (HOW)", HOW saying how the bound was placed
 * and where neither kernel is faster by the one rule (pb_verdict with
 * PB_EQUIVALENCE), or that one is faster at every measured size, and how
 * often the medians crossed. Never fails; truncated to out_len. */
void pb_breakeven_switch_text(const struct pb_crossing *x, char *out, size_t out_len);

/* The bands with peers in words, "KERNEL<=BOUND: PEER, PEER; ...", the
 * bound as the policy writes it; "" when no band has one. Never fails;
 * truncated to out_len. */
void pb_breakeven_peers_text(const struct pb_breakeven *b, char *out, size_t out_len);

/* Prints, in at most 80 columns: the crossings, the recommended policy,
 * and with g the GLIBC_TUNABLES line beside glibc's current values and
 * what glibc cannot express. Nothing when r has no case of (op, st). */
void pb_print_breakeven(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, const struct pb_glibc_thresholds *g);
void pb_breakeven_print(FILE *f, const struct pb_breakeven *b);

/* The same as a JSON object for the result file (docs/breakeven.md);
 * NULL when r has no case of (op, st) or on allocation failure. */
json_t *pb_breakeven_json(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                          const struct pb_glibc_thresholds *g);
json_t *pb_breakeven_to_json(const struct pb_breakeven *b);

#endif
