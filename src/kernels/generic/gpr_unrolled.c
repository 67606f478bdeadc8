/* gpr_unrolled.c - 64-bit general-purpose stores, one line per iteration.
 *
 * Ladder: up to 64 bytes with overlapping head/tail words; above, a 64-byte
 * head block, whole aligned lines, and a 64-byte tail block ending at the
 * end (it may overlap the last line of the loop).
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
