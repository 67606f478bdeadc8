/* gpr_unrolled.c - 64-bit general-purpose stores, one line per iteration.
 *
 * Ladder (memset, memcpy): up to 64 bytes with overlapping head/tail words;
 * above, a 64-byte head block, whole aligned lines, and a 64-byte tail
 * block ending at the end (it may overlap the last line of the loop).
 * memmove differs: see pb_memmove_gpr_unrolled.
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

PB_NO_VECTORIZE void *pb_memset_gpr_unrolled(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	uint64_t v = pb_splat64(c);

	if (n <= 64) {
		pb_set_upto64(d, n, v);
		return dst;
	}
	pb_set_block64(d, v);
	uint8_t *p = pb_next_line(d);
	/* n > 64, so p <= d + 64 < end: the loop and the tail stay in [d, end). */
	for (; end - p > 64; p += 64)
		pb_set_block64(p, v);
	pb_set_block64(end - 64, v);
	return dst;
}

PB_NO_VECTORIZE void *pb_memcpy_gpr_unrolled(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= 64) {
		pb_copy_upto64(d, s, n);
		return dst;
	}
	pb_copy_block64(d, s);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64)
		pb_copy_block64(p, s + (p - d));
	pb_copy_block64(end - 64, s + n - 64);
	return dst;
}

/* memmove: 64-byte blocks (eight loads, then eight stores) from the start
 * or from the end, then the rest with one block of upto64. No alignment
 * step and no tail block ending at the end: with overlapping buffers a
 * block may only read source bytes no earlier store has reached, so every
 * byte is copied exactly once, in the direction's order. */
PB_NO_VECTORIZE void *pb_memmove_gpr_unrolled(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (n <= 64) {
		pb_move_upto64(d, s, n);
		return dst;
	}
	if (!pb_move_backward(d, s, n)) {
		/* Stores so far end at d + i <= s + i: the source from s + i is intact. */
		size_t i = 0;
		for (; n - i >= 64; i += 64)
			pb_copy_block64(d + i, s + i);
		pb_move_upto64(d + i, s + i, n - i);
	} else {
		/* Stores so far start at d + i > s + i: the source below s + i is intact. */
		size_t i = n;
		for (; i >= 64; i -= 64)
			pb_copy_block64(d + i - 64, s + i - 64);
		pb_move_upto64(d, s, i);
	}
	return dst;
}
