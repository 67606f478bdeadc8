/* libc.c - the `libc` rows: the C library's own memset, memcpy and memmove.
 *
 * The only kernel file that may reference libc's mem* functions, so it
 * lives in the library, outside the pb_kernels objects that
 * tests/check_kernel_symbols.sh checks. The calls go through volatile
 * pointers: the compiler cannot inline or specialize them, so every call
 * is a real call of the library's (ifunc-selected) function.
 */
#include <string.h>

#include "kernels/generic/protos.h"

/* After protos.h: the rows become prototypes. */
#include "kernels/generic/generic_rows.h"

static void *(*volatile libc_memset)(void *, int, size_t) = memset;
static void *(*volatile libc_memcpy)(void *restrict, const void *restrict, size_t) = memcpy;
static void *(*volatile libc_memmove)(void *, const void *, size_t) = memmove;

void *pb_memset_libc(void *dst, int c, size_t n)
{
	return libc_memset(dst, c, n);
}

void *pb_memcpy_libc(void *restrict dst, const void *restrict src, size_t n)
{
	return libc_memcpy(dst, src, n);
}

void *pb_memmove_libc(void *dst, const void *src, size_t n)
{
	return libc_memmove(dst, src, n);
}
