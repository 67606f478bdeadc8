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
 * The _nt kernels take the temporal kernel's path up to
 * PB_NT_THRESHOLD_BYTES (1 MiB, blocks.h); above, the bulk loop's stores
 * are streaming (vmovntdq), 4 x 32 bytes per iteration, and memcpy_nt
 * prefetches the source PB_NT_PREFETCH_AHEAD_BYTES ahead into L2
 * (prefetcht1, one per line) until that point reaches the source's end.
 * Functions carry their target: no per-file compiler flags, and the CPU
 * check is the registry's.
 */
#include <immintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define AVX2 __attribute__((target("avx2")))
#define W    32

static inline AVX2 __m256i load(const uint8_t *s)
{
	return _mm256_loadu_si256((const __m256i *)s);
}
static inline AVX2 void store(uint8_t *d, __m256i v)
{
	_mm256_storeu_si256((__m256i *)d, v);
}

/* ---- memset ---- */

/* 16 <= n <= 32. */
static inline AVX2 void set_head_tail16(uint8_t *d, size_t n, __m256i v)
{
	_mm_storeu_si128((__m128i *)d, _mm256_castsi256_si128(v));
	_mm_storeu_si128((__m128i *)(d + n - 16), _mm256_castsi256_si128(v));
}

/* W <= n <= 2W. */
static inline AVX2 void set_head_tail(uint8_t *d, size_t n, __m256i v)
{
	store(d, v);
	store(d + n - W, v);
}

/* 2W <= n <= 4W. */
static inline AVX2 void set_head_tail_x2(uint8_t *d, size_t n, __m256i v)
{
	store(d, v);
	store(d + W, v);
	store(d + n - 2 * W, v);
	store(d + n - W, v);
}

AVX2 void *pb_memset_avx2(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

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
	set_head_tail(d, 64, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W) {
		_mm256_store_si256((__m256i *)p, v);
		_mm256_store_si256((__m256i *)(p + W), v);
		_mm256_store_si256((__m256i *)(p + 2 * W), v);
		_mm256_store_si256((__m256i *)(p + 3 * W), v);
	}
	set_head_tail_x2(end - 4 * W, 4 * W, v);
	return dst;
}

AVX2 void *pb_memset_avx2_nt(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memset_avx2(dst, c, n);
	__m256i v = _mm256_set1_epi8((char)c);
	set_head_tail(d, 64, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W) {
		_mm256_stream_si256((__m256i *)p, v);
		_mm256_stream_si256((__m256i *)(p + W), v);
		_mm256_stream_si256((__m256i *)(p + 2 * W), v);
		_mm256_stream_si256((__m256i *)(p + 3 * W), v);
	}
	set_head_tail_x2(end - 4 * W, 4 * W, v);
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
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

/* W <= n <= 2W. */
static inline AVX2 void copy_head_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	__m256i a = load(s), z = load(s + n - W);
	store(d, a);
	store(d + n - W, z);
}

/* 2W <= n <= 4W. */
static inline AVX2 void copy_head_tail_x2(uint8_t *d, const uint8_t *s, size_t n)
{
	__m256i a = load(s), b = load(s + W);
	__m256i y = load(s + n - 2 * W), z = load(s + n - W);
	store(d, a);
	store(d + W, b);
	store(d + n - 2 * W, y);
	store(d + n - W, z);
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

/* One line at the line-aligned p, then a compiler barrier: the next
 * line's stores come after both of these (PB_STORE_ORDER, blocks.h). */
static inline AVX2 void store_line(uint8_t *p, __m256i x, __m256i y)
{
	_mm256_store_si256((__m256i *)p, x);
	_mm256_store_si256((__m256i *)(p + W), y);
	PB_STORE_ORDER();
}
static inline AVX2 void stream_line(uint8_t *p, __m256i x, __m256i y)
{
	_mm256_stream_si256((__m256i *)p, x);
	_mm256_stream_si256((__m256i *)(p + W), y);
	PB_STORE_ORDER();
}

/* 8W bytes from q to the line-aligned p: all loads, then line by line. */
static inline AVX2 void copy_lines4(uint8_t *p, const uint8_t *q)
{
	__m256i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
	__m256i g = load(q + 4 * W), h = load(q + 5 * W), i = load(q + 6 * W), j = load(q + 7 * W);
	store_line(p, a, b);
	store_line(p + 2 * W, e, f);
	store_line(p + 4 * W, g, h);
	store_line(p + 6 * W, i, j);
}

/* 4W bytes from q to the line-aligned p. */
static inline AVX2 void copy_lines2(uint8_t *p, const uint8_t *q)
{
	__m256i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
	store_line(p, a, b);
	store_line(p + 2 * W, e, f);
}
static inline AVX2 void stream_lines2(uint8_t *p, const uint8_t *q)
{
	__m256i a = load(q), b = load(q + W), e = load(q + 2 * W), f = load(q + 3 * W);
	stream_line(p, a, b);
	stream_line(p + 2 * W, e, f);
}

AVX2 void *pb_memcpy_avx2(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= 4 * W) {
		copy_upto128(d, s, n);
		return dst;
	}
	copy_head_tail(d, s, 64);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 8 * W; p += 8 * W)
		copy_lines4(p, s + (p - d));
	if (end - p > 4 * W) {
		copy_lines2(p, s + (p - d));
		p += 4 * W;
	}
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
	return dst;
}

AVX2 void *pb_memcpy_avx2_nt(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memcpy_avx2(dst, src, n);
	copy_head_tail(d, s, 64);
	uint8_t *p = pb_next_line(d);
	/* Every line it prefetches lies inside the source. */
	for (; end - p > 4 * W + PB_NT_PREFETCH_AHEAD_BYTES; p += 4 * W) {
		const uint8_t *q = s + (p - d), *ahead = q + PB_NT_PREFETCH_AHEAD_BYTES;
		_mm_prefetch((const char *)ahead, _MM_HINT_T1);
		_mm_prefetch((const char *)(ahead + 2 * W), _MM_HINT_T1);
		stream_lines2(p, q);
	}
	for (; end - p > 4 * W; p += 4 * W)
		stream_lines2(p, s + (p - d));
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
	_mm_sfence();
	return dst;
}

/* ---- memmove ----
 *
 * Up to 4W every block loads before it stores (copy_upto128): any overlap.
 * Above, the loop (memcpy's copy_lines4, all eight loads of a step before
 * its stores) goes forward (dst <= src, or no overlap) or backward
 * (dst inside the source), and every block the loop does not cover is
 * loaded before the loop and stored after it: the loop may overwrite
 * source bytes those blocks read. The loop itself only reads source bytes
 * no earlier store of it reached, because it runs in the safe direction. */
AVX2 void *pb_memmove_avx2(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= 4 * W) {
		copy_upto128(d, s, n);
		return dst;
	}
	if (!pb_move_backward(d, s, n)) {
		/* Head: 64 bytes at d; tail: 4W ending at the end. */
		__m256i h0 = load(s), h1 = load(s + W);
		__m256i t0 = load(s + n - 4 * W), t1 = load(s + n - 3 * W);
		__m256i t2 = load(s + n - 2 * W), t3 = load(s + n - W);
		uint8_t *p = pb_next_line(d);
		for (; end - p > 8 * W; p += 8 * W)
			copy_lines4(p, s + (p - d));
		if (end - p > 4 * W) {
			copy_lines2(p, s + (p - d));
			p += 4 * W;
		}
		store(end - 4 * W, t0);
		store(end - 3 * W, t1);
		store(end - 2 * W, t2);
		store(end - W, t3);
		store(d, h0);
		store(d + W, h1);
		return dst;
	}
	/* Backward. Head: 4W at d; tail: 64 bytes ending at the end. The loop
	 * runs down from the last line boundary at or below the end, so
	 * [that boundary, end) lies in the tail block. */
	__m256i h0 = load(s), h1 = load(s + W), h2 = load(s + 2 * W), h3 = load(s + 3 * W);
	__m256i t0 = load(s + n - 2 * W), t1 = load(s + n - W);
	uint8_t *p = (uint8_t *)((uintptr_t)end & ~(uintptr_t)(PB_LINE_BYTES - 1));
	while (p - d > 8 * W) {
		p -= 8 * W;
		copy_lines4(p, s + (p - d));
	}
	if (p - d > 4 * W) {
		p -= 4 * W;
		copy_lines2(p, s + (p - d));
	}
	store(end - 2 * W, t0);
	store(end - W, t1);
	store(d, h0);
	store(d + W, h1);
	store(d + 2 * W, h2);
	store(d + 3 * W, h3);
	return dst;
}
