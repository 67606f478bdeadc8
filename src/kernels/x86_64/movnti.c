/* movnti.c - 8-byte non-temporal stores (movnti, SSE2) from general-purpose
 * registers.
 *
 * Up to PB_NT_THRESHOLD_BYTES (1 MiB, blocks.h): the gpr_unrolled kernel
 * (temporal). Above: a temporal 64-byte head block at d, whole lines of
 * eight movnti from the first line boundary after d (a line written whole
 * by one thread's streaming stores goes to memory in one piece), a
 * temporal 64-byte tail block ending at the end, and one sfence. The
 * streaming lines are blocks.h's, with movnti as their store.
 */
#include <emmintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"
#include "generic_rows.h"

static inline void stream64(uint8_t *p, uint64_t v)
{
	_mm_stream_si64((long long *)p, (long long)v);
}

PB_NO_VECTORIZE void *pb_memset_movnti(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	uint64_t v = pb_splat64(c);

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memset_gpr_unrolled(dst, c, n);
	pb_set_block64(d, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64)
		PB_SET_LINE64(p, v, stream64);
	pb_set_block64(end - 64, v);
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
}

PB_NO_VECTORIZE void *pb_memcpy_movnti(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memcpy_gpr_unrolled(dst, src, n);
	pb_copy_block64(d, s);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64) {
		const uint8_t *q = s + (p - d);
		PB_COPY_LINE64(p, q, stream64);
	}
	pb_copy_block64(end - 64, s + n - 64);
	_mm_sfence();
	return dst;
}
