/* avx512.c - 64-byte vector kernels (AVX-512F, with AVX-512BW for the
 * byte-masked small sizes) and their non-temporal variants.
 *
 * Ladder, memset and memcpy alike:
 *   n <= 64    one byte-masked load/store: bytes outside the mask are not
 *              accessed and cannot fault (Intel SDM Vol. 1 15.4.1, fault
 *              suppression), so no size needs a narrower block (memset
 *              from 64 to 128: two 32-byte stores at each end; memcpy
 *              and memmove: n < 64; at 64 the head/tail pair of plain
 *              vectors took 3.2-3.3 TSC ticks against 4.1-4.5 masked)
 *   n <= 128   one vector at the head, one ending at the end
 *   n <= 256   two at the head, two ending at the end
 *   n <= 512   four at the head, four ending at the end (no loop: glibc's
 *              memmove-vec-unaligned-erms.S does the same up to 8 vectors)
 *   n > 512    one vector at d; the bulk loop, 4 x 64 bytes per iteration,
 *              from the first line boundary after d (aligned stores); a
 *              256-byte tail block ending at the end.
 * The _nt kernels take the temporal kernel's path up to
 * PB_NT_THRESHOLD_BYTES (1 MiB, blocks.h says why); above, the bulk
 * loop's stores are streaming (vmovntdq) and memcpy_nt prefetches the
 * source PB_NT_PREFETCH_AHEAD_BYTES ahead into L2 (prefetcht1, one per
 * line) until that point reaches the source's end.
 */
#include <immintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define AVX512 __attribute__((target("avx512f,avx512bw")))
#define W      64

static inline AVX512 __m512i load(const uint8_t *s)
{
	return _mm512_loadu_si512((const void *)s);
}
static inline AVX512 void store(uint8_t *d, __m512i v)
{
	_mm512_storeu_si512((void *)d, v);
}

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

/* 2W <= n <= 4W. */
static inline AVX512 void set_head_tail_x2(uint8_t *d, size_t n, __m512i v)
{
	store(d, v);
	store(d + W, v);
	store(d + n - 2 * W, v);
	store(d + n - W, v);
}

AVX512 void *pb_memset_avx512(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

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
		set_head_tail_x2(end - 4 * W, 4 * W, v);
		return dst;
	}
	store(d, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W) {
		_mm512_store_si512((void *)p, v);
		_mm512_store_si512((void *)(p + W), v);
		_mm512_store_si512((void *)(p + 2 * W), v);
		_mm512_store_si512((void *)(p + 3 * W), v);
	}
	set_head_tail_x2(end - 4 * W, 4 * W, v);
	return dst;
}

AVX512 void *pb_memset_avx512_nt(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memset_avx512(dst, c, n);
	__m512i v = _mm512_set1_epi8((char)c);
	store(d, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W) {
		_mm512_stream_si512((void *)p, v);
		_mm512_stream_si512((void *)(p + W), v);
		_mm512_stream_si512((void *)(p + 2 * W), v);
		_mm512_stream_si512((void *)(p + 3 * W), v);
	}
	set_head_tail_x2(end - 4 * W, 4 * W, v);
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
}

/* ---- memcpy ---- */

/* W <= n <= 2W. */
static inline AVX512 void copy_head_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	__m512i a = load(s), z = load(s + n - W);
	store(d, a);
	store(d + n - W, z);
}

/* 2W <= n <= 4W. */
static inline AVX512 void copy_head_tail_x2(uint8_t *d, const uint8_t *s, size_t n)
{
	__m512i a = load(s), b = load(s + W);
	__m512i y = load(s + n - 2 * W), z = load(s + n - W);
	store(d, a);
	store(d + W, b);
	store(d + n - 2 * W, y);
	store(d + n - W, z);
}

/* 4W < n <= 8W: four vectors at the head and four ending at the end, every
 * load before any store (so memmove may use it for any overlap). */
static inline AVX512 void copy_head_tail_x4(uint8_t *d, const uint8_t *s, size_t n)
{
	__m512i a = load(s), b = load(s + W), e = load(s + 2 * W), f = load(s + 3 * W);
	__m512i w = load(s + n - 4 * W), x = load(s + n - 3 * W);
	__m512i y = load(s + n - 2 * W), z = load(s + n - W);
	store(d, a);
	store(d + W, b);
	store(d + 2 * W, e);
	store(d + 3 * W, f);
	store(d + n - 4 * W, w);
	store(d + n - 3 * W, x);
	store(d + n - 2 * W, y);
	store(d + n - W, z);
}

AVX512 void *pb_memcpy_avx512(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n < W) { /* n == W: two plain vectors are faster than a full mask */
		__mmask64 m = low_bytes(n);
		_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
		return dst;
	}
	if (n <= 2 * W) {
		copy_head_tail(d, s, n);
		return dst;
	}
	if (n <= 4 * W) {
		copy_head_tail_x2(d, s, n);
		return dst;
	}
	if (n <= 8 * W) {
		copy_head_tail_x4(d, s, n);
		return dst;
	}
	store(d, load(s));
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W) {
		const uint8_t *q = s + (p - d);
		__m512i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
		_mm512_store_si512((void *)p, a);
		_mm512_store_si512((void *)(p + W), b);
		_mm512_store_si512((void *)(p + 2 * W), e);
		_mm512_store_si512((void *)(p + 3 * W), f);
	}
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
	return dst;
}

/* 4W bytes from q to the line-aligned p, with streaming stores. */
static inline AVX512 void stream_x4(uint8_t *p, const uint8_t *q)
{
	__m512i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
	_mm512_stream_si512((void *)p, a);
	_mm512_stream_si512((void *)(p + W), b);
	_mm512_stream_si512((void *)(p + 2 * W), e);
	_mm512_stream_si512((void *)(p + 3 * W), f);
}

AVX512 void *pb_memcpy_avx512_nt(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memcpy_avx512(dst, src, n);
	store(d, load(s));
	uint8_t *p = pb_next_line(d);
	/* Every line it prefetches lies inside the source. */
	for (; end - p > 4 * W + PB_NT_PREFETCH_AHEAD_BYTES; p += 4 * W) {
		const uint8_t *q = s + (p - d), *ahead = q + PB_NT_PREFETCH_AHEAD_BYTES;
		_mm_prefetch((const char *)ahead, _MM_HINT_T1);
		_mm_prefetch((const char *)(ahead + W), _MM_HINT_T1);
		_mm_prefetch((const char *)(ahead + 2 * W), _MM_HINT_T1);
		_mm_prefetch((const char *)(ahead + 3 * W), _MM_HINT_T1);
		stream_x4(p, q);
	}
	for (; end - p > 4 * W; p += 4 * W)
		stream_x4(p, s + (p - d));
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
	_mm_sfence();
	return dst;
}

/* ---- memmove ----
 *
 * Up to 8W the memcpy ladder: every block loads before it stores, so any
 * overlap is fine. Above, the loop goes forward (dst <= src, or no
 * overlap) or backward (dst inside the source), and the blocks the loop
 * does not cover are loaded before the loop and stored after it: the loop
 * may overwrite source bytes they read. The loop itself only reads source
 * bytes no earlier store of it reached, because it runs in the safe
 * direction. */
AVX512 void *pb_memmove_avx512(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n < W) {
		__mmask64 m = low_bytes(n);
		_mm512_mask_storeu_epi8(d, m, _mm512_maskz_loadu_epi8(m, s));
		return dst;
	}
	if (n <= 2 * W) {
		copy_head_tail(d, s, n);
		return dst;
	}
	if (n <= 4 * W) {
		copy_head_tail_x2(d, s, n);
		return dst;
	}
	if (n <= 8 * W) {
		copy_head_tail_x4(d, s, n);
		return dst;
	}
	if (!pb_move_backward(d, s, n)) {
		/* Head: one vector at d; tail: 4W ending at the end. */
		__m512i h = load(s);
		__m512i t0 = load(s + n - 4 * W), t1 = load(s + n - 3 * W);
		__m512i t2 = load(s + n - 2 * W), t3 = load(s + n - W);
		uint8_t *p = pb_next_line(d);
		for (; end - p > 4 * W; p += 4 * W) {
			const uint8_t *q = s + (p - d);
			__m512i a = load(q), b = load(q + W), e = load(q + 2 * W),
			        f = load(q + 3 * W);
			_mm512_store_si512((void *)p, a);
			_mm512_store_si512((void *)(p + W), b);
			_mm512_store_si512((void *)(p + 2 * W), e);
			_mm512_store_si512((void *)(p + 3 * W), f);
		}
		store(end - 4 * W, t0);
		store(end - 3 * W, t1);
		store(end - 2 * W, t2);
		store(end - W, t3);
		store(d, h);
		return dst;
	}
	/* Backward. Head: 4W at d; tail: one vector ending at the end. The
	 * loop runs down from the last line boundary at or below the end, so
	 * [that boundary, end) lies in the tail block. */
	__m512i h0 = load(s), h1 = load(s + W), h2 = load(s + 2 * W), h3 = load(s + 3 * W);
	__m512i t = load(s + n - W);
	uint8_t *p = (uint8_t *)((uintptr_t)end & ~(uintptr_t)(PB_LINE_BYTES - 1));
	while (p - d > 4 * W) {
		p -= 4 * W;
		const uint8_t *q = s + (p - d);
		__m512i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
		_mm512_store_si512((void *)p, a);
		_mm512_store_si512((void *)(p + W), b);
		_mm512_store_si512((void *)(p + 2 * W), e);
		_mm512_store_si512((void *)(p + 3 * W), f);
	}
	store(end - W, t);
	store(d, h0);
	store(d + W, h1);
	store(d + 2 * W, h2);
	store(d + 3 * W, h3);
	return dst;
}
