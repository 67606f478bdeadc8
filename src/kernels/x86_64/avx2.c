/* avx2.c - 32-byte vector kernels (AVX2) and their non-temporal variants.
 *
 * Ladder, memset and memcpy alike:
 *   n <= 16    word head/tail (blocks.h)
 *   n <= 32    one 16-byte vector at the head, one ending at the end
 *   n <= 64    one 32-byte vector at the head, one ending at the end
 *   n <= 128   two at the head, two ending at the end
 *   n > 128    a 64-byte head block at d; the bulk loop from the first
 *              line boundary after d (aligned stores); a 128-byte tail
 *              block ending at the end. memset's loop stores 4 x 32 bytes
 *              per iteration; memcpy's and memmove's load 8 x 32 bytes
 *              (then at most one 4 x 32 step) and store them line by
 *              line in address order (PB_STORE_ORDER, blocks.h): at 4 KiB
 *              hot that took memcpy from 2x to ~1.1x avx512's ticks.
 * The _nt kernels stream at every size (blocks.h, pb_nt_lines): the
 * whole lines inside the buffer with vmovntdq stores, the bytes around
 * them with the temporal kernel, one sfence; memcpy_nt prefetches the
 * source PB_NT_PREFETCH_AHEAD_BYTES ahead into L2 (prefetcht1, one per
 * line) while that point stays inside the source.
 * Functions carry their target: no per-file compiler flags, and the CPU
 * check is the registry's. The blocks and loops: vec_blocks.h.
 */
#include <immintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define AVX2         __attribute__((target("avx2")))
#define VEC          __m256i
#define W            32
#define ISA          AVX2
#define LOADU(s)     _mm256_loadu_si256((const __m256i *)(s))
#define STOREU(d, v) _mm256_storeu_si256((__m256i *)(d), v)
#define STOREA(p, v) _mm256_store_si256((__m256i *)(p), v)
#define STREAM(p, v) _mm256_stream_si256((__m256i *)(p), v)
#define COPY_STEP    8
#include "vec_blocks.h"

/* ---- memset ---- */

/* 16 <= n <= 32. */
static inline AVX2 void set_head_tail16(uint8_t *d, size_t n, __m256i v)
{
	_mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(v));
	_mm_storeu_si128((__m128i *)(d + n - 16), _mm256_castsi256_si128(v));
}

AVX2 void *pb_memset_avx2(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	if (n <= 16) {
		pb_set_upto16(d, n, pb_splat64(c));
		return dst;
	}
	__m256i v = _mm256_set1_epi8((char)c);
	if (n <= 32) {
		set_head_tail16(d, n, v);
		return dst;
	}
	if (n <= 2 * W) {
		set_head_tail(d, n, v);
		return dst;
	}
	if (n <= 4 * W) {
		set_head_tail_x2(d, n, v);
		return dst;
	}
	set_bulk_t(d, n, v);
	return dst;
}

AVX2 void *pb_memset_avx2_nt(void *dst, int c, size_t n)
{
	return memset_nt_lines(dst, c, n, _mm256_set1_epi8((char)c), pb_memset_avx2);
}

/* ---- memcpy ---- */

/* 16 <= n <= 32. */
static inline AVX2 void copy_head_tail16(uint8_t *d, const uint8_t *s, size_t n)
{
	__m128i a = _mm_loadu_si128((const __m128i *)s);
	__m128i z = _mm_loadu_si128((const __m128i *)(s + n - 16));
	_mm_storeu_si128((__m128i *)d, a);
	_mm_storeu_si128((__m128i *)(d + n - 16), z);
}

/* 0 <= n <= 4W. */
static inline AVX2 void copy_upto128(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n <= 16)
		pb_copy_upto16(d, s, n);
	else if (n <= 32)
		copy_head_tail16(d, s, n);
	else if (n <= 2 * W)
		copy_head_tail(d, s, n);
	else
		copy_head_tail_x2(d, s, n);
}

AVX2 void *pb_memcpy_avx2(void *restrict dst, const void *restrict src, size_t n)
{
	if (n <= 4 * W) {
		copy_upto128(dst, src, n);
		return dst;
	}
	copy_bulk_t(dst, src, n);
	return dst;
}

AVX2 void *pb_memcpy_avx2_nt(void *restrict dst, const void *restrict src, size_t n)
{
	return memcpy_nt_lines(dst, src, n, pb_memcpy_avx2);
}

/* ---- memmove: the memcpy ladder (copy_upto128: every block loads before it
 * stores, so any overlap), then move_bulk (vec_blocks.h) ---- */
AVX2 void *pb_memmove_avx2(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (n <= 4 * W) {
		copy_upto128(d, s, n);
		return dst;
	}
	move_bulk(d, s, n);
	return dst;
}
