/* bootstrap.c (no arch support) - the kernels that serve calls before the
 * library is ready, in plain C: the catalogue's `bytes` kernels (byte
 * loops; forward, or backward for a memmove whose destination lies inside
 * its source; src/kernels/generic/bytes.c). No state, nothing to
 * initialise, async-signal-safe; the kernels' objects are compiled so the
 * loops stay loops (a loop that became a call of memcpy would call back
 * into this library).
 */
#include "kernels/generic/protos.h"

/* After protos.h: the rows become prototypes. */
#include "kernels/generic/generic_rows.h"
#include "preload.h"

void *pb_boot_memset(void *dst, int c, size_t n)
{
	return pb_memset_bytes(dst, c, n);
}

void *pb_boot_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return pb_memcpy_bytes(dst, src, n);
}

void *pb_boot_memmove(void *dst, const void *src, size_t n)
{
	return pb_memmove_bytes(dst, src, n);
}
