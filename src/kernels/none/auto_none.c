/* auto_none.c - the auto kernels' entry points where no architecture code
 * exists: the policy's dispatch itself (generic/auto.c). */
#include "auto_internal.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

void *pb_memset_auto(void *dst, int c, size_t n)
{
	return pb_auto_memset_dispatch(dst, c, n);
}

void *pb_memcpy_auto(void *restrict dst, const void *restrict src, size_t n)
{
	return pb_auto_memcpy_dispatch(dst, src, n);
}

void *pb_memmove_auto(void *dst, const void *src, size_t n)
{
	return pb_auto_memmove_dispatch(dst, src, n);
}
