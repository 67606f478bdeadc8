/* avx512.c - 64-byte vector kernels (AVX-512F, with AVX-512BW for the
 * byte-masked small sizes) and their non-temporal variants.
 *
 * Ladder, memset and memcpy alike:
 *   n <= 64    one byte-masked load/store: bytes outside the mask are not
 *              accessed and cannot fault (Intel SDM Vol. 1 15.4.1, fault
 *              suppression), so no size needs a narrower block (memset
 *              below 64, from 64 to 128 two 32-byte stores at each end;
 *              memcpy and memmove below 16 only: from 16 to 63 a pair of
 *              16- or 32-byte vectors, head and tail, as glibc 2.36's
 *              avx512 memmove, which was 6-10% faster than the masked
 *              pair from DRAM and no slower hot on Zen 4 (kernel revision
 *              2, docs/performance.md); at 64 the head/tail pair of plain
 *              vectors took 3.2-3.3 TSC ticks against 4.1-4.5 masked)
 *   n <= 128   one vector at the head, one ending at the end
 *   n <= 256   two at the head, two ending at the end
 *   n <= 512   four at the head, four ending at the end (no loop: glibc's
 *              memmove-vec-unaligned-erms.S does the same up to 8 vectors)
 *   n > 512    one vector at d; the bulk loop, 4 x 64 bytes per iteration,
 *              from the first line boundary after d (aligned stores); a
 *              256-byte tail block ending at the end.
 * The _nt kernels stream at every size (blocks.h, pb_nt_lines): the
 * whole lines inside the buffer with vmovntdq zmm stores, the bytes around
 * them with the temporal kernel, one sfence; memcpy_nt prefetches the
 * source PB_NT_PREFETCH_AHEAD_BYTES ahead into L2 (prefetcht1, one per
 * line) while that point stays inside the source. The blocks and loops:
 * vec_blocks.h.
 */
#include <immintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define AVX512       __attribute__((target("avx512f,avx512bw")))
#define VEC          __m512i
#define W            64
#define ISA          AVX512
#define LOADU(s)     _mm512_loadu_si512((const void *)(s))
#define STOREU(d, v) _mm512_storeu_si512((void *)(d), v)
#define STOREA(p, v) _mm512_store_si512((void *)(p), v)
#define STREAM(p, v) _mm512_stream_si512((void *)(p), v)
#define COPY_STEP    4
#include "vec_blocks.h"

/* The mask of the low n bytes, 0 <= n <= 64. */
static inline __mmask64 low_bytes(size_t n)
{
	return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
}

/* ---- memset ---- */

/* W <= n <= 2W with 32-byte stores, two at each end (glibc 2.36's EVEX
 * memset, 32-byte vectors, took 3.8 TSC ticks at 76-128 B against 4.4-5.1
 * for two 64-byte stores, one of which crosses a line;
 * docs/performance.md). */
static inline AVX512 void set_head_tail_ymm(uint8_t *d, size_t n, __m256i v)
{
	_mm256_storeu_si256((__m256i *)d, v);
	_mm256_storeu_si256((__m256i *)(d + W / 2), v);
	_mm256_storeu_si256((__m256i *)(d + n - W), v);
	_mm256_storeu_si256((__m256i *)(d + n - W / 2), v);
}

AVX512 void *pb_memset_avx512(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	if (n < W) {
		_mm512_mask_storeu_epi8(d, low_bytes(n), _mm512_set1_epi8((char)c));
		return dst;
	}
	if (n <= 2 * W) {
		set_head_tail_ymm(d, n, _mm256_set1_epi8((char)c));
		return dst;
	}
	__m512i v = _mm512_set1_epi8((char)c);
	if (n <= 4 * W) {
		set_head_tail_x2(d, n, v);
		return dst;
	}
	if (n <= 8 * W) {
		set_head_tail_x2(d, 4 * W, v);
		set_head_tail_x2(d + n - 4 * W, 4 * W, v);
		return dst;
	}
	set_bulk_t(d, n, v);
	return dst;
}

AVX512 void *pb_memset_avx512_nt(void *dst, int c, size_t n)
{
	return memset_nt_lines(dst, c, n, _mm512_set1_epi8((char)c), pb_memset_avx512);
}

/* ---- memcpy ---- */

/* 4W < n <= 8W: four vectors at the head and four ending at the end, every
 * load before any store (so memmove may use it for any overlap). */
static inline AVX512 void copy_head_tail_x4(uint8_t *d, const uint8_t *s, size_t n)
{
	__m512i a = vload(s), b = vload(s + W), e = vload(s + 2 * W), f = vload(s + 3 * W);
	__m512i w = vload(s + n - 4 * W), x = vload(s + n - 3 * W);
	__m512i y = vload(s + n - 2 * W), z = vload(s + n - W);
	vstore(d, a);
	vstore(d + W, b);
	vstore(d + 2 * W, e);
	vstore(d + 3 * W, f);
	vstore(d + n - 4 * W, w);
	vstore(d + n - 3 * W, x);
	vstore(d + n - 2 * W, y);
	vstore(d + n - W, z);
}

/* The ladder memcpy and memmove share, for n <= 8W (every block loads
 * before it stores: any overlap): copies and returns true, or returns
 * false for larger n. The size tests run smallest first. */
static inline __attribute__((always_inline)) AVX512 bool copy_upto512(uint8_t *d, const uint8_t *s,
                                                                      size_t n)
{
	if (n < W) {              /* n == W: two plain vectors are faster than a full mask */
		if (n >= W / 2) { /* 32..63: two 32-byte vectors, both loads first */
			__m256i a = _mm256_loadu_si256((const __m256i *)s);
			__m256i b = _mm256_loadu_si256((const __m256i *)(s + n - W / 2));
			_mm256_storeu_si256((__m256i *)d, a);
			_mm256_storeu_si256((__m256i *)(d + n - W / 2), b);
		} else if (n >= W / 4) { /* 16..31: two 16-byte vectors */
			__m128i a = _mm_loadu_si128((const __m128i *)s);
			__m128i b = _mm_loadu_si128((const __m128i *)(s + n - W / 4));
			_mm_storeu_si128((__m128i *)d, a);
			_mm_storeu_si128((__m128i *)(d + n - W / 4), b);
		} else {
			__mmask64 m = low_bytes(n);
			_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
		}
		return true;
	}
	if (n <= 2 * W) {
		copy_head_tail(d, s, n);
		return true;
	}
	if (n <= 4 * W) {
		copy_head_tail_x2(d, s, n);
		return true;
	}
	if (n <= 8 * W) {
		copy_head_tail_x4(d, s, n);
		return true;
	}
	return false;
}

AVX512 void *pb_memcpy_avx512(void *restrict dst, const void *restrict src, size_t n)
{
	if (!copy_upto512(dst, src, n))
		copy_bulk_t(dst, src, n);
	return dst;
}

AVX512 void *pb_memcpy_avx512_nt(void *restrict dst, const void *restrict src, size_t n)
{
	return memcpy_nt_lines(dst, src, n, pb_memcpy_avx512);
}

/* ---- memmove: the memcpy ladder (copy_upto512: every block loads before it
 * stores, so any overlap), then move_bulk (vec_blocks.h) ---- */
AVX512 void *pb_memmove_avx512(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (copy_upto512(d, s, n))
		return dst;
	move_bulk(d, s, n);
	return dst;
}
