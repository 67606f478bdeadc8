/* protos.h - turns the row lists into function prototypes.
 *
 * A row list (generic_rows.h, <arch>/arch_rows.h) is a sequence of
 *   PB_MEMSET(name, fn, requires, same_code_as, differs_from_bytes, description, source)
 *   PB_MEMCPY(name, fn, requires, same_code_as, differs_from_bytes, description, source)
 *   PB_MEMMOVE(name, fn, requires, same_code_as, differs_from_bytes, description, source)
 * (same_code_as, differs_from_bytes: struct pb_kernel in primbench/kernels.h)
 * with no include guard, read once per meaning of the three macros (STYLE 1).
 * Include this header, then the row list(s) whose functions you define or
 * use; the kernel files get their prototypes from the same rows the
 * registry builds its table from, so the two cannot drift apart.
 */
#ifndef PRIMBENCH_KERNELS_PROTOS_H
#define PRIMBENCH_KERNELS_PROTOS_H

#include <stddef.h>

#include "primbench/cpu.h"

#define PB_MEMSET(name, fn, requires, same_code_as, differs_from_bytes, description, source)       \
	void *fn(void *dst, int c, size_t n);
#define PB_MEMCPY(name, fn, requires, same_code_as, differs_from_bytes, description, source)       \
	void *fn(void *restrict dst, const void *restrict src, size_t n);
#define PB_MEMMOVE(name, fn, requires, same_code_as, differs_from_bytes, description, source)      \
	void *fn(void *dst, const void *src, size_t n);

#endif
