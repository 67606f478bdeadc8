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

/* pb_memset_libc, pb_memcpy_libc, pb_memmove_libc */
PB_FORWARD_OPS(pb_, _libc, libc_, )
