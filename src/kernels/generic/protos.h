/* protos.h - turns the row lists into function prototypes.
 *
 * A row list (generic_rows.h, <arch>/arch_rows.h) is a sequence of
 *   PB_MEMSET(name, fn, requires, same_code_as, differs_from_bytes,
 *             store, vector_bytes, glibc, glibc_note, flags, description, source)
 * and the same for PB_MEMCPY and PB_MEMMOVE (the fields of struct pb_kernel
 * in primbench/kernels.h; flags: PB_KF_* below)
 * with no include guard, read once per meaning of the three macros.
 * Include this header, then the row list(s) whose functions you define or
 * use; the kernel files get their prototypes from the same rows the
 * registry builds its table from, so the two cannot drift apart.
 */
#ifndef PRIMBENCH_KERNELS_PROTOS_H
#define PRIMBENCH_KERNELS_PROTOS_H

#include <stddef.h>

#include "primbench/cpu.h"

/* A row's flags (struct pb_kernel's bools): */
#define PB_KF_AUTO_INLINE 1u /* auto_inline */
#define PB_KF_NOT_TUNED   2u /* !tune_candidate */

/* Defines DP<op>DS for memset, memcpy and memmove, each returning
 * TP<op>TS(its arguments): a set of entry points that forward to another
 * set (libc.c, none/auto_none.c, the preload library's bootstrap). */
#define PB_FORWARD_OPS(dp, ds, tp, ts)                                                             \
	void *dp##memset##ds(void *dst, int c, size_t n)                                           \
	{                                                                                          \
		return tp##memset##ts(dst, c, n);                                                  \
	}                                                                                          \
	void *dp##memcpy##ds(void *restrict dst, const void *restrict src, size_t n)               \
	{                                                                                          \
		return tp##memcpy##ts(dst, src, n);                                                \
	}                                                                                          \
	void *dp##memmove##ds(void *dst, const void *src, size_t n)                                \
	{                                                                                          \
		return tp##memmove##ts(dst, src, n);                                               \
	}

#define PB_MEMSET(name, fn, ...)  void *fn(void *dst, int c, size_t n);
#define PB_MEMCPY(name, fn, ...)  void *fn(void *restrict dst, const void *restrict src, size_t n);
#define PB_MEMMOVE(name, fn, ...) void *fn(void *dst, const void *src, size_t n);

#endif
