/* primbench/xsave.h - the cost of saving and restoring the SIMD register
 * state: the price a kernel pays before it may use SIMD registers
 * (docs/methodology.md "SIMD state saving").
 *
 * Pieces:
 * - pb_xsave_parse(): cpuid leaves 1 and 0xD, XCR0 and the AMX permission
 *   turned into struct pb_xsave_info (pure: tests feed synthetic values);
 *   pb_xsave_detect() reads them from this CPU (x86-64; elsewhere nothing).
 * - pb_xsave_variants(): which of the 5 instructions x 2 upper states run
 *   here, and why not (pure).
 * - pb_xsave_run(): times save+restore pairs, interleaved across variants
 *   (src/suites/x86_64/xsave.c; src/suites/none/xsave.c reports every
 *   variant unavailable).
 * - pb_xsave_sweep_run(): the hot memset/memcpy sweep of the SIMD kernels
 *   and rep, its break-even line decided by the analysis module
 *   (pb_xsave_breakeven, breakeven.h: where SIMD + one save/restore beats
 *   rep).
 */
#ifndef PRIMBENCH_XSAVE_H
#define PRIMBENCH_XSAVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/stats.h"
#include "primbench/xsave_result.h"

struct pb_cache_info;

/* What cpuid and xgetbv said (the input of pb_xsave_parse). */
struct pb_xsave_raw {
	uint32_t max_leaf;                       /* cpuid 0:EAX */
	uint32_t leaf1_ecx, leaf1_edx;           /* XSAVE ECX[26], OSXSAVE ECX[27], FXSR EDX[24] */
	uint32_t d0_eax, d0_ebx, d0_ecx, d0_edx; /* leaf 0xD, ECX=0 */
	uint32_t d1_eax, d1_ebx;                 /* leaf 0xD, ECX=1 */
	/* leaf 0xD, ECX=i (i >= 2): EAX size, EBX standard offset, ECX flags
	 * (bit 0 supervisor, bit 1 64-byte aligned when compacted) */
	uint32_t sub_eax[PB_XS_MAX_COMPONENTS], sub_ebx[PB_XS_MAX_COMPONENTS],
	    sub_ecx[PB_XS_MAX_COMPONENTS];
	uint64_t xcr0;       /* xgetbv(0); only meaningful with OSXSAVE */
	uint64_t xcomp_perm; /* arch_prctl(ARCH_GET_XCOMP_PERM), 0 when unknown */
};

/* Parses raw into out. Never fails: absent features give false and 0. */
void pb_xsave_parse(const struct pb_xsave_raw *raw, struct pb_xsave_info *out);

/* Reads this CPU's cpuid/XCR0/AMX permission (x86-64; zeros elsewhere). */
void pb_xsave_raw_read(struct pb_xsave_raw *raw);

/* pb_xsave_raw_read + pb_xsave_parse. */
void pb_xsave_detect(struct pb_xsave_info *out);

/* Formats the components of mask as "x87, SSE, AVX" into buf. */
void pb_xsave_format_mask(uint64_t mask, char *buf, size_t len);

/* Bytes to allocate for insn's save area with info's rfbm: the instruction's
 * size rounded up to 64 (fxsave: 512). 0 when it cannot run. */
uint32_t pb_xsave_area_bytes(const struct pb_xsave_info *info, enum pb_xsave_insn insn);

/* Fills out[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT] in display order:
 * available where info says the instruction runs at CPL 3 and, for
 * dirty, AVX state is enabled; reasons otherwise. arch_ok false (non-x86
 * build) makes every variant unavailable with arch_reason. */
void pb_xsave_variants(const struct pb_xsave_info *info, bool arch_ok, const char *arch_reason,
                       struct pb_xsave_variant *out);

struct pb_xsave_params {
	double budget_s; /* once every case has min_samples */
	size_t min_samples, max_samples, warmup_samples;
	uint64_t seed;
	volatile sig_atomic_t *stop; /* stop after the current sample when set */
};

/* Fills r->notes: one line per skipped instruction (or variant) with
 * its reason. pb_xsave_run() calls it. */
void pb_xsave_notes(struct pb_xsave_result *r);

/* Whether this build can execute the instructions (x86-64), and why not. */
bool pb_xsave_arch_supported(const char **why);

/* Times every available variant. pb_timer_init() must have succeeded.
 * Returns 0 (also when interrupted), or -1 with pb_error(). */
int pb_xsave_run(const struct pb_xsave_params *p, struct pb_xsave_result *r);
void pb_xsave_result_free(struct pb_xsave_result *r);

/* Replicates: adds the run `more` (of the same parameters) to acc (zeroed
 * before the first), each variant's samples as one more replicate of
 * acc's same variant; more is freed and zeroed. Then
 * pb_xsave_result_end_replicates summarizes every case (ticks_per_op by
 * pb_summarize_replicates, 95%). Both return 0, or -1 with pb_error(). */
int pb_xsave_result_add_replicate(struct pb_xsave_result *acc, struct pb_xsave_result *more);
int pb_xsave_result_end_replicates(struct pb_xsave_result *r);

/* Every pair `replicates` times in a row (0 counts as 1), fresh save
 * areas, calibration and seed each (p->seed + r x PB_SEED_STEP for
 * replicate r), p's budget and max_samples shared out among them (their
 * sum within max_samples, each at least min_samples), joined by
 * pb_xsave_result_add_replicate and summarized by
 * pb_xsave_result_end_replicates. A stop (p->stop) or an interrupted
 * replicate ends the run after it: what was measured is kept. Returns 0
 * with *out filled, or -1 with pb_error() (out freed). */
int pb_xsave_run_replicates(const struct pb_xsave_params *p, size_t replicates,
                            struct pb_xsave_result *out);

/* The dirty pair a kernel would pay before using ymm/zmm: the cheapest
 * (by its median) of the xsave family measured in r (fxsave saves no
 * upper state, so it does not count), or NULL. */
const struct pb_xsave_case *pb_xsave_cheapest_dirty_pair(const struct pb_xsave_result *r);

/* ---- the break-even sweep ---------------------------------------------- */

#define PB_XSAVE_MAX_SIMD 8

/* The kernels of op the break-even compares, from the table's properties:
 * the usable temporal vector kernels (store kind VECTOR), widest first, in
 * ks (at most PB_XSAVE_MAX_SIMD); glibc's own rep kernel (glibc path REP,
 * no note: rep_stosb, rep_movsb) in *rep (set to NULL first), or NULL.
 * Returns their count. */
size_t pb_xsave_simd_kernels(enum pb_op op, const struct pb_kernel **ks,
                             const struct pb_kernel **rep);

/* The sweep: op's SIMD kernels and its rep kernel (pb_xsave_simd_kernels)
 * at sizes_bytes[0..n_sizes) (ascending) in the hot state, interleaved,
 * `replicates` times in a row (pb_mem_run_replicates, mem.h: budget_s and
 * max_samples shared out, the seed stepped), working sets from caches
 * (pb_mem_params_make); pair_ticks: the save+restore pair's figure the
 * line adds to SIMD. */
struct pb_xsave_sweep_params {
	enum pb_op op;
	const uint64_t *sizes_bytes;
	size_t n_sizes;
	double pair_ticks;
	const struct pb_cache_info *caches;
	double budget_s;
	size_t min_samples, max_samples, replicates;
	uint64_t seed;
	volatile sig_atomic_t *stop;
};

/* Its outcome. rep NULL or n_simd 0: nothing to compare, nothing measured.
 * Else result (the mem cases, replicates joined) and per size i < n: the
 * best SIMD kernel's median ticks a call simd_ticks[i] (simd_kernel[i]
 * which) and rep's rep_ticks[i] (NaN: not measured); at: the break-even
 * size's index (pb_xsave_breakeven, breakeven.h), -1 when it never holds
 * or the sweep was interrupted (no verdict then); lead: where SIMD leads
 * rep most (pb_xsave_largest_lead), -1 when none, set when at is -1. */
struct pb_xsave_sweep {
	const struct pb_kernel *rep;
	size_t n_simd;
	struct pb_mem_result result;
	size_t n;
	double *simd_ticks, *rep_ticks;
	const struct pb_kernel **simd_kernel;
	int at, lead;
	bool interrupted;
};

/* Runs the sweep and its reduction. pb_timer_init() must have run.
 * Returns 0 (also when interrupted, or with nothing to compare), or -1
 * with pb_error() (pb_mem_run's error, out of memory). Free out with
 * pb_xsave_sweep_free (also after a failure). */
int pb_xsave_sweep_run(const struct pb_xsave_sweep_params *p, struct pb_xsave_sweep *out);
void pb_xsave_sweep_free(struct pb_xsave_sweep *s);

/* Plumbing check for the tests: writes a known value to xmm0 (and the
 * upper half of ymm0 when AVX state is enabled), saves with insn, clobbers
 * the register, restores, reads it back. Returns 0 when the value came
 * back, -1 with pb_error() otherwise (or when insn cannot run here). */
int pb_xsave_roundtrip_check(enum pb_xsave_insn insn);

#endif
