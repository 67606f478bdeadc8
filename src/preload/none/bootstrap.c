/* bootstrap.c (no arch support) - the kernels that serve calls before the
 * library is ready, in plain C: byte loops, forward, or backward for a
 * memmove whose destination lies inside its source. No state, nothing to
 * initialise, async-signal-safe. Compiled with -fno-builtin and
 * -fno-tree-loop-distribute-patterns so the loops stay loops (a loop that
 * became a call of memcpy would call back into this library).
 */
#include <stdint.h>

#include "kernels/generic/blocks.h"
#include "preload.h"

PB_NO_VECTORIZE void *pb_boot_memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	for (size_t i = 0; i < n; i++)
		d[i] = (uint8_t)c;
	return dst;
}

PB_NO_VECTORIZE void *pb_boot_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return dst;
}

PB_NO_VECTORIZE void *pb_boot_memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (!pb_move_backward(dst, src, n)) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
		return dst;
	}
	while (n > 0) {
		n--;
		d[n] = s[n];
	}
	return dst;
}
