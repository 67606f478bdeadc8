/* strided.c - memcpy in the "comb" order: word i of each of 8 successive
 * lines, then word i + 1 of each, so successive stores never go to the same
 * line (every store hits a line other than the one before it, as when
 * copying a column of a row-major matrix).
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

#define COMB_LINES 8

/* Copies `lines` (<= COMB_LINES) whole lines from s to d in comb order. */
static inline void copy_comb(uint8_t *d, const uint8_t *s, size_t lines)
{
	for (size_t w = 0; w < PB_LINE_BYTES; w += 8)
		for (size_t l = 0; l < lines; l++)
			pb_store64(d + l * PB_LINE_BYTES + w, pb_load64(s + l * PB_LINE_BYTES + w));
}

PB_NO_VECTORIZE void *pb_memcpy_strided(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= 64) {
		pb_copy_upto64(d, s, n);
		return dst;
	}
	pb_copy_block64(d, s);
	uint8_t *p = pb_next_line(d);
	for (; end - p >= COMB_LINES * PB_LINE_BYTES; p += COMB_LINES * PB_LINE_BYTES)
		copy_comb(p, s + (p - d), COMB_LINES);
	size_t lines = (size_t)(end - p) / PB_LINE_BYTES;
	copy_comb(p, s + (p - d), lines);
	/* The last partial line: a block ending at the end, over bytes already copied. */
	pb_copy_block64(end - 64, s + n - 64);
	return dst;
}
