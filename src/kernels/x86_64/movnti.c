/* movnti.c - 8-byte non-temporal stores (movnti, SSE2) from general-purpose
 * registers.
 *
 * Up to PB_NT_THRESHOLD_BYTES (1 MiB, blocks.h): the gpr_unrolled kernel
 * (temporal). Above: a temporal 64-byte head block at d, whole lines of
 * eight movnti from the first line boundary after d (a line written whole
 * by one thread's streaming stores goes to memory in one piece), a
 * temporal 64-byte tail block ending at the end, and one sfence.
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
	for (; end - p > 64; p += 64) {
		stream64(p, v);
		stream64(p + 8, v);
		stream64(p + 16, v);
		stream64(p + 24, v);
		stream64(p + 32, v);
		stream64(p + 40, v);
		stream64(p + 48, v);
		stream64(p + 56, v);
	}
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
		uint64_t w0 = pb_load64(q), w1 = pb_load64(q + 8), w2 = pb_load64(q + 16),
		         w3 = pb_load64(q + 24), w4 = pb_load64(q + 32), w5 = pb_load64(q + 40),
		         w6 = pb_load64(q + 48), w7 = pb_load64(q + 56);
		stream64(p, w0);
		stream64(p + 8, w1);
		stream64(p + 16, w2);
		stream64(p + 24, w3);
		stream64(p + 32, w4);
		stream64(p + 40, w5);
		stream64(p + 48, w6);
		stream64(p + 56, w7);
	}
	pb_copy_block64(end - 64, s + n - 64);
	_mm_sfence();
	return dst;
}
