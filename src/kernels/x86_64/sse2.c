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
 *             blocks.h).
 * The _nt kernels take the temporal kernel's path up to
 * PB_NT_THRESHOLD_BYTES (1 MiB, blocks.h); above, the bulk loop's stores
 * are streaming (movntdq) and memcpy_nt prefetches the source
 * PB_NT_PREFETCH_AHEAD_BYTES ahead into L2 (prefetcht1, one per line)
 * until that point reaches the source's end.
 */
#include <emmintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define W 16

static inline __m128i load(const uint8_t *s)
{
	return _mm_loadu_si128((const __m128i *)s);
}
static inline void store(uint8_t *d, __m128i v)
{
	_mm_storeu_si128((__m128i *)d, v);
}

/* ---- memset ---- */

/* W <= n <= 2W. */
static inline void set_head_tail(uint8_t *d, size_t n, __m128i v)
{
	store(d, v);
	store(d + n - W, v);
}

/* 2W <= n <= 4W. */
static inline void set_head_tail_x2(uint8_t *d, size_t n, __m128i v)
{
	store(d, v);
	store(d + W, v);
	store(d + n - 2 * W, v);
	store(d + n - W, v);
}

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
	uint8_t *d = dst, *end = d + n;

	if (n <= 64) {
		set_upto64(d, n, c);
		return dst;
	}
	__m128i v = _mm_set1_epi8((char)c);
	set_head_tail_x2(d, 64, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64) {
		_mm_store_si128((__m128i *)p, v);
		_mm_store_si128((__m128i *)(p + 16), v);
		_mm_store_si128((__m128i *)(p + 32), v);
		_mm_store_si128((__m128i *)(p + 48), v);
	}
	set_head_tail_x2(end - 64, 64, v);
	return dst;
}

void *pb_memset_sse2_nt(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memset_sse2(dst, c, n);
	__m128i v = _mm_set1_epi8((char)c);
	set_head_tail_x2(d, 64, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64) {
		_mm_stream_si128((__m128i *)p, v);
		_mm_stream_si128((__m128i *)(p + 16), v);
		_mm_stream_si128((__m128i *)(p + 32), v);
		_mm_stream_si128((__m128i *)(p + 48), v);
	}
	set_head_tail_x2(end - 64, 64, v);
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
}

/* ---- memcpy ---- */

/* W <= n <= 2W. */
static inline void copy_head_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	__m128i a = load(s), z = load(s + n - W);
	store(d, a);
	store(d + n - W, z);
}

/* 2W <= n <= 4W. */
static inline void copy_head_tail_x2(uint8_t *d, const uint8_t *s, size_t n)
{
	__m128i a = load(s), b = load(s + W);
	__m128i y = load(s + n - 2 * W), z = load(s + n - W);
	store(d, a);
	store(d + W, b);
	store(d + n - 2 * W, y);
	store(d + n - W, z);
}

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

/* One line at the line-aligned p, then a compiler barrier: the next
 * line's stores come after these four (PB_STORE_ORDER, blocks.h). */
static inline void store_line(uint8_t *p, __m128i a, __m128i b, __m128i e, __m128i f)
{
	_mm_store_si128((__m128i *)p, a);
	_mm_store_si128((__m128i *)(p + 16), b);
	_mm_store_si128((__m128i *)(p + 32), e);
	_mm_store_si128((__m128i *)(p + 48), f);
	PB_STORE_ORDER();
}

void *pb_memcpy_sse2(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= 64) {
		copy_upto64(d, s, n);
		return dst;
	}
	copy_head_tail_x2(d, s, 64);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 128; p += 128) {
		const uint8_t *q = s + (p - d);
		__m128i a = load(q), b = load(q + 16), e = load(q + 32), f = load(q + 48);
		__m128i g = load(q + 64), h = load(q + 80), i = load(q + 96), j = load(q + 112);
		store_line(p, a, b, e, f);
		store_line(p + 64, g, h, i, j);
	}
	if (end - p > 64) {
		const uint8_t *q = s + (p - d);
		__m128i a = load(q), b = load(q + 16), e = load(q + 32), f = load(q + 48);
		store_line(p, a, b, e, f);
	}
	copy_head_tail_x2(end - 64, s + n - 64, 64);
	return dst;
}

/* One line from q to the line-aligned p, with streaming stores. */
static inline void stream_line(uint8_t *p, const uint8_t *q)
{
	__m128i a = load(q), b = load(q + 16), e = load(q + 32), f = load(q + 48);
	_mm_stream_si128((__m128i *)p, a);
	_mm_stream_si128((__m128i *)(p + 16), b);
	_mm_stream_si128((__m128i *)(p + 32), e);
	_mm_stream_si128((__m128i *)(p + 48), f);
}

void *pb_memcpy_sse2_nt(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	const uint8_t *s = src;

	if (n <= PB_NT_THRESHOLD_BYTES)
		return pb_memcpy_sse2(dst, src, n);
	copy_head_tail_x2(d, s, 64);
	uint8_t *p = pb_next_line(d);
	/* Every line it prefetches lies inside the source. */
	for (; end - p > 64 + PB_NT_PREFETCH_AHEAD_BYTES; p += 64) {
		const uint8_t *q = s + (p - d);
		_mm_prefetch((const char *)(q + PB_NT_PREFETCH_AHEAD_BYTES), _MM_HINT_T1);
		stream_line(p, q);
	}
	for (; end - p > 64; p += 64)
		stream_line(p, s + (p - d));
	copy_head_tail_x2(end - 64, s + n - 64, 64);
	_mm_sfence();
	return dst;
}
