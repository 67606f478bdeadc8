/* movnti.c - 8-byte non-temporal stores (movnti, SSE2) from general-purpose
 * registers.
 *
 * At every size (blocks.h, pb_nt_lines): the whole lines inside the buffer
 * with eight movnti each (a line written whole by one thread's streaming
 * stores goes to memory in one piece), the bytes before the first line
 * boundary and after the last with the gpr_unrolled kernel (temporal),
 * and one sfence; gpr_unrolled alone when no whole line lies inside. The
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
	uint8_t *d = dst;
	if (!pb_nt_lines(d, n))
		return pb_memset_gpr_unrolled(dst, c, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	uint64_t v = pb_splat64(c);
	if (p > d)
		pb_memset_gpr_unrolled(d, c, (size_t)(p - d));
	for (; p < e; p += 64)
		PB_SET_LINE64(p, v, stream64);
	if (end > e)
		pb_memset_gpr_unrolled(e, c, (size_t)(end - e));
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
}

PB_NO_VECTORIZE void *pb_memcpy_movnti(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (!pb_nt_lines(d, n))
		return pb_memcpy_gpr_unrolled(dst, src, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	if (p > d)
		pb_memcpy_gpr_unrolled(d, s, (size_t)(p - d));
	for (; p < e; p += 64) {
		const uint8_t *q = s + (p - d);
		PB_COPY_LINE64(p, q, stream64);
	}
	if (end > e)
		pb_memcpy_gpr_unrolled(e, s + (e - d), (size_t)(end - e));
	_mm_sfence();
	return dst;
}
