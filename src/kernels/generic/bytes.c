/* bytes.c - the naive kernels: one byte per iteration.
 *
 * The loops must stay byte loops: PB_NO_LIBCALL_FLAGS (cmake/compiler.cmake,
 * set for every kernel object) keeps the compiler from calling memset/memcpy
 * for them, PB_NO_VECTORIZE keeps it from widening them.
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

PB_NO_VECTORIZE void *pb_memset_bytes(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)c;
	return dst;
}

PB_NO_VECTORIZE void *pb_memcpy_bytes(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

PB_NO_VECTORIZE void *pb_memmove_bytes(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (!pb_move_backward(d, s, n)) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		for (size_t i = n; i > 0; i--)
			d[i - 1] = s[i - 1];
	}
	return dst;
}
