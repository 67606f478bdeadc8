/* sse2.c - 16-byte vector kernels (SSE2, baseline on x86-64) and their
 * non-temporal variants.
 *
 * Ladder, memset and memcpy alike:
 *   n <= 16   word head/tail (blocks.h)
 *   n <= 32   one vector at the head, one ending at the end (overlapping)
 *   n <= 64   two at the head, two ending at the end
 *   n > 64    a 64-byte head block at d; the bulk loop over whole lines
 *             from the first line boundary after d (so its stores are
 *             aligned); a 64-byte tail block ending at the end. memcpy's
 *             loop loads two lines per iteration (then at most one more
 *             line) and stores them in address order (PB_STORE_ORDER,
 *             blocks.h). The blocks and loops: vec_blocks.h.
 * The _nt kernels stream at every size (blocks.h, pb_nt_lines): the
 * whole lines inside the buffer with movntdq stores, the bytes around
 * them with the temporal kernel, one sfence; memcpy_nt prefetches the
 * source PB_NT_PREFETCH_AHEAD_BYTES ahead into L2 (prefetcht1, one per
 * line) while that point stays inside the source.
 */
#include <emmintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define VEC          __m128i
#define W            16
#define ISA          /* SSE2: the x86-64 baseline */
#define LOADU(s)     _mm_loadu_si128((const __m128i *)(s))
#define STOREU(d, v) _mm_storeu_si128((__m128i *)(d), v)
#define STOREA(p, v) _mm_store_si128((__m128i *)(p), v)
#define STREAM(p, v) _mm_stream_si128((__m128i *)(p), v)
#define COPY_STEP    8
#include "vec_blocks.h"

/* ---- memset ---- */

/* 0 <= n <= 64. */
static inline void set_upto64(uint8_t *d, size_t n, int c)
{
	__m128i v = _mm_set1_epi8((char)c);
	if (n <= 16)
		pb_set_upto16(d, n, pb_splat64(c));
	else if (n <= 32)
		set_head_tail(d, n, v);
	else
		set_head_tail_x2(d, n, v);
}

void *pb_memset_sse2(void *dst, int c, size_t n)
{
	if (n <= 64) {
		set_upto64(dst, n, c);
		return dst;
	}
	set_bulk_t(dst, n, _mm_set1_epi8((char)c));
	return dst;
}

void *pb_memset_sse2_nt(void *dst, int c, size_t n)
{
	return memset_nt_lines(dst, c, n, _mm_set1_epi8((char)c), pb_memset_sse2);
}

/* ---- memcpy ---- */

/* 0 <= n <= 64. */
static inline void copy_upto64(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n <= 16)
		pb_copy_upto16(d, s, n);
	else if (n <= 32)
		copy_head_tail(d, s, n);
	else
		copy_head_tail_x2(d, s, n);
}

void *pb_memcpy_sse2(void *restrict dst, const void *restrict src, size_t n)
{
	if (n <= 64) {
		copy_upto64(dst, src, n);
		return dst;
	}
	copy_bulk_t(dst, src, n);
	return dst;
}

void *pb_memcpy_sse2_nt(void *restrict dst, const void *restrict src, size_t n)
{
	return memcpy_nt_lines(dst, src, n, pb_memcpy_sse2);
}
