/* auto_internal.h - what an architecture's auto entry points
 * (src/kernels/<arch>/auto_<arch>.c) share with generic/auto.c. */
#ifndef PRIMBENCH_KERNELS_AUTO_INTERNAL_H
#define PRIMBENCH_KERNELS_AUTO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

/* The installed policy of an op: each band's bound beside its function,
 * and the sizes an AVX-512 entry may run itself, in one 64-byte-aligned
 * block whose first line holds those sizes and the first three bands, so
 * that a small call reads one line of it (formerly: bounds and
 * functions in two arrays and a byte per size for the inline sizes, two
 * or three lines). Predicted to cut auto's extra time in the dram state
 * at 19-108 B (5-45 TSC ticks a call through the dispatch on Zen 4);
 * measured: no change beyond the run-to-run spread, since the dram state
 * flushes only the buffers, not this table (docs/performance.md, "auto's
 * dispatch in the dram state"). Kept: one line, no 1.5 KiB byte table. */
struct pb_auto_table {
	/* sizes n with n - inline_lo < inline_count (unsigned) run the
	 * AVX-512 entry's own path: the longest run of sizes up to
	 * PB_AUTO_SMALL_MAX whose band's code at n is a row with auto_inline
	 * (avx512; avx512_nt below a line, 64 B); inline_count 0: none */
	uint32_t inline_lo, inline_count;
	uint64_t n; /* bands, >= 1 */
	struct {
		uint64_t max; /* inclusive; the last is UINT64_MAX */
		union {       /* the op's function */
			pb_memset_fn set;
			pb_memcpy_fn cpy;
			pb_memmove_fn mov;
		} fn;
	} band[PB_POLICY_MAX_BANDS];
} __attribute__((aligned(64)));
extern struct pb_auto_table pb_auto_tables[PB_OP_COUNT];

/* Whether the AVX-512 entry may run a call of n bytes itself. */
static inline int pb_auto_inline(const struct pb_auto_table *t, size_t n)
{
	return (uint64_t)n - t->inline_lo < t->inline_count;
}

/* The band of a call of n bytes. The last bound is UINT64_MAX, so the scan
 * needs no count; the first band is tested alone because most calls of
 * real programs are small (a scan with a count check cost ~2.5 TSC ticks
 * per call here, one compare ~0.2: docs/performance.md). */
static inline size_t pb_auto_band(const struct pb_auto_table *t, size_t n)
{
	if (__builtin_expect((uint64_t)n <= t->band[0].max, 1))
		return 0;
	size_t i = 1;
	while ((uint64_t)n > t->band[i].max)
		i++;
	return i;
}

/* The dispatch by the installed policy's bands (one compare for the first
 * band, a scan for the others, one indirect jump). */
void *pb_auto_memset_dispatch(void *dst, int c, size_t n);
void *pb_auto_memcpy_dispatch(void *restrict dst, const void *restrict src, size_t n);
void *pb_auto_memmove_dispatch(void *dst, const void *src, size_t n);

#endif
