/* auto_internal.h - what an architecture's auto entry points
 * (src/kernels/<arch>/auto_<arch>.c) share with generic/auto.c. */
#ifndef PRIMBENCH_KERNELS_AUTO_INTERNAL_H
#define PRIMBENCH_KERNELS_AUTO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

/* The installed policy of an op as its bounds and functions side by side. */
struct pb_auto_table {
	size_t n;                          /* bands, >= 1 */
	uint64_t max[PB_POLICY_MAX_BANDS]; /* inclusive; the last is UINT64_MAX */
	union {                            /* the op's function of each band */
		pb_memset_fn set;
		pb_memcpy_fn cpy;
		pb_memmove_fn mov;
	} fn[PB_POLICY_MAX_BANDS];
};
extern struct pb_auto_table pb_auto_tables[PB_OP_COUNT];

/* The band of a call of n bytes. The last bound is UINT64_MAX, so the scan
 * needs no count; the first band is tested alone because most calls of
 * real programs are small (a scan with a count check cost ~2.5 TSC ticks
 * per call here, one compare ~0.2: docs/performance.md). */
static inline size_t pb_auto_band(const struct pb_auto_table *t, size_t n)
{
	if (__builtin_expect((uint64_t)n <= t->max[0], 1))
		return 0;
	size_t i = 1;
	while ((uint64_t)n > t->max[i])
		i++;
	return i;
}

/* The dispatch by the installed policy's bands (one compare for the first
 * band, a scan for the others, one indirect jump). */
void *pb_auto_memset_dispatch(void *dst, int c, size_t n);
void *pb_auto_memcpy_dispatch(void *restrict dst, const void *restrict src, size_t n);
void *pb_auto_memmove_dispatch(void *dst, const void *src, size_t n);

/* Per op and size n <= PB_AUTO_SMALL_MAX (auto.h): 1 when the code the
 * band serving n runs at n is a row with auto_inline (avx512; avx512_nt
 * runs it below a line, 64 B), whose path for n is its
 * small-size ladder (masked vector up to 64 bytes, head and tail vectors
 * up to 512): an entry point compiled for AVX-512 may run that ladder (or
 * jump straight to avx512) instead of dispatching. All 0 until
 * pb_auto_install. */
extern uint8_t pb_auto_small_avx512[PB_OP_COUNT][PB_AUTO_SMALL_MAX + 1];

#endif
