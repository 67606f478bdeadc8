/* vec_blocks.h - the vector blocks and bulk loops of one x86-64 vector
 * width, written once for every width (after LLVM libc's memory_utils:
 * block, head_tail, loop_and_tail; generic/blocks.h has the word blocks).
 *
 * Included by sse2.c, avx2.c and avx512.c, after blocks.h (PB_LINE_BYTES,
 * PB_STORE_ORDER, pb_next_line, pb_move_backward, the NT constants) and
 * <immintrin.h> or <emmintrin.h> (prefetch, sfence), each after defining:
 *   VEC           the vector type (__m128i, __m256i, __m512i)
 *   W             its width in bytes (16, 32, 64)
 *   ISA           the function attribute that enables it (empty for SSE2)
 *   LOADU(s)      an unaligned load from s
 *   STOREU(d, v)  an unaligned store to d
 *   STOREA(p, v)  an aligned, temporal store to p
 *   STREAM(p, v)  an aligned, non-temporal (streaming) store to p
 *   COPY_STEP     vectors per step of memcpy's temporal loop: 8 (loads of
 *                 two steps of 4 before their stores) or 4
 * No include guard: one width per translation unit.
 *
 * Temporal and streaming kernels come from the same source: the line
 * loops (vec_lines.h) are read twice, once with aligned temporal stores
 * (functions *_t) and once with streaming stores (*_nt). Not one function
 * with a flag: clang merges the two stores of `if (nt) stream else store`
 * into one plain store before the flag is known, dropping the
 * non-temporal hint. The loops store whole lines from the first line
 * boundary after d (aligned stores) and put a compiler barrier after each
 * line (PB_STORE_ORDER, blocks.h), so that the stores of one line stay
 * consecutive.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VINLINE static inline __attribute__((always_inline)) ISA

VINLINE VEC vload(const uint8_t *s)
{
	return LOADU(s);
}
VINLINE void vstore(uint8_t *d, VEC v)
{
	STOREU(d, v);
}

/* ---- blocks ---- */

/* W <= n <= 2W: one vector at the head, one ending at the end. */
VINLINE void set_head_tail(uint8_t *d, size_t n, VEC v)
{
	vstore(d, v);
	vstore(d + n - W, v);
}

/* 2W <= n <= 4W: two at the head, two ending at the end. */
VINLINE void set_head_tail_x2(uint8_t *d, size_t n, VEC v)
{
	vstore(d, v);
	vstore(d + W, v);
	vstore(d + n - 2 * W, v);
	vstore(d + n - W, v);
}

/* W <= n <= 2W; loads before stores (any overlap). */
VINLINE void copy_head_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	VEC a = vload(s), z = vload(s + n - W);
	vstore(d, a);
	vstore(d + n - W, z);
}

/* 2W <= n <= 4W; loads before stores (any overlap). */
VINLINE void copy_head_tail_x2(uint8_t *d, const uint8_t *s, size_t n)
{
	VEC a = vload(s), b = vload(s + W);
	VEC y = vload(s + n - 2 * W), z = vload(s + n - W);
	vstore(d, a);
	vstore(d + W, b);
	vstore(d + n - 2 * W, y);
	vstore(d + n - W, z);
}

/* The 64 bytes at d (the head block of the bulk copy paths). */
VINLINE void copy_block64(uint8_t *d, const uint8_t *s)
{
#if W == 64
	vstore(d, vload(s));
#elif W == 32
	copy_head_tail(d, s, 64);
#else
	copy_head_tail_x2(d, s, 64);
#endif
}

/* Every line of the 4W bytes at q into L2 (prefetcht1). */
VINLINE void prefetch_x4(const uint8_t *q)
{
	_mm_prefetch((const char *)q, _MM_HINT_T1);
	if (4 * W >= 2 * PB_LINE_BYTES)
		_mm_prefetch((const char *)(q + PB_LINE_BYTES), _MM_HINT_T1);
	if (4 * W >= 4 * PB_LINE_BYTES) {
		_mm_prefetch((const char *)(q + 2 * PB_LINE_BYTES), _MM_HINT_T1);
		_mm_prefetch((const char *)(q + 3 * PB_LINE_BYTES), _MM_HINT_T1);
	}
}

/* After the k-th aligned store (1-based) from a line boundary: the barrier
 * when it ends a line. */
#define LINE_DONE(k)                                                                               \
	do {                                                                                       \
		if ((k)*W % PB_LINE_BYTES == 0)                                                    \
			PB_STORE_ORDER();                                                          \
	} while (0)

/* The line loops and bulk paths: put_x4_t, copy_x4_t, copy_x8_t,
 * copy_loop_t, set_bulk_t, copy_bulk_t (temporal), then put_x4_nt and
 * copy_x4_nt (streaming). */
// clang-format off
#define NT 0
#include "vec_lines.h"
#undef NT
#define NT 1
#include "vec_lines.h"
#undef NT
// clang-format on

/* ---- streaming: whole lines, at every size (blocks.h, pb_nt_lines) ---- */

/* One line at the line-aligned p, streaming, then the barrier. */
VINLINE void put_line_nt(uint8_t *p, VEC v)
{
	for (int k = 0; k < PB_LINE_BYTES / W; k++)
		STREAM(p + k * W, v);
	PB_STORE_ORDER();
}
VINLINE void copy_line_nt(uint8_t *p, const uint8_t *q)
{
	VEC a[PB_LINE_BYTES / W];
	for (int k = 0; k < PB_LINE_BYTES / W; k++)
		a[k] = vload(q + k * W);
	for (int k = 0; k < PB_LINE_BYTES / W; k++)
		STREAM(p + k * W, a[k]);
	PB_STORE_ORDER();
}

/* The lines [p, e) (both line boundaries, p < e): 4W per step, then line
 * by line; no fence (the caller's). */
VINLINE void set_lines_nt(uint8_t *p, uint8_t *e, VEC v)
{
	for (; e - p >= 4 * W; p += 4 * W)
		put_x4_nt(p, v, v, v, v);
	for (; p < e; p += PB_LINE_BYTES)
		put_line_nt(p, v);
}

/* As set_lines_nt, from the source at q = s + (p - d); each 4W step
 * prefetches PB_NT_PREFETCH_AHEAD_BYTES ahead (blocks.h) while that point
 * stays below e's source (every line it prefetches lies inside the
 * source). */
VINLINE void copy_lines_nt(uint8_t *p, uint8_t *e, const uint8_t *q)
{
	for (; e - p >= 4 * W + PB_NT_PREFETCH_AHEAD_BYTES; p += 4 * W, q += 4 * W) {
		prefetch_x4(q + PB_NT_PREFETCH_AHEAD_BYTES);
		copy_x4_nt(p, q);
	}
	for (; e - p >= 4 * W; p += 4 * W, q += 4 * W)
		copy_x4_nt(p, q);
	for (; p < e; p += PB_LINE_BYTES, q += PB_LINE_BYTES)
		copy_line_nt(p, q);
}

/* The streaming memset of one width: the whole lines of [d, d + n)
 * streamed, the bytes around them by the temporal kernel t (its ordinary
 * stores), one sfence; t alone when no whole line lies inside. */
VINLINE void *memset_nt_lines(void *dst, int c, size_t n, VEC v, void *(*t)(void *, int, size_t))
{
	uint8_t *d = dst;
	if (!pb_nt_lines(d, n))
		return t(dst, c, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	if (p > d)
		t(d, c, (size_t)(p - d));
	set_lines_nt(p, e, v);
	if (end > e)
		t(e, c, (size_t)(end - e));
	/* Streaming stores are weakly ordered: fence once, before returning. */
	_mm_sfence();
	return dst;
}

/* As memset_nt_lines, for memcpy. */
VINLINE void *memcpy_nt_lines(void *restrict dst, const void *restrict src, size_t n,
                              void *(*t)(void *restrict, const void *restrict, size_t))
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (!pb_nt_lines(d, n))
		return t(dst, src, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	if (p > d)
		t(d, s, (size_t)(p - d));
	copy_lines_nt(p, e, s + (p - d));
	if (end > e)
		t(e, s + (e - d), (size_t)(end - e));
	_mm_sfence();
	return dst;
}

#if W >= 32
/* memmove above its ladder (n > 4W): the loop goes forward (dst <=
 * src, or no overlap) or backward (dst inside the source), and every block
 * the loop does not cover is loaded before the loop and stored after it:
 * the loop may overwrite source bytes those blocks read. The loop itself
 * (copy_x8_t, copy_x4_t: all loads of a step before its stores) only reads
 * source bytes no earlier store of it reached, because it runs in the
 * safe direction. The 64-byte blocks are 64 / W vectors (1 or 2). */
VINLINE void move_bulk(uint8_t *d, const uint8_t *s, size_t n)
{
	uint8_t *end = d + n;
	if (!pb_move_backward(d, s, n)) {
		/* Head: 64 bytes at d; tail: 4W ending at the end. */
		VEC h0 = vload(s);
#if W == 32
		VEC h1 = vload(s + W);
#endif
		VEC t0 = vload(s + n - 4 * W), t1 = vload(s + n - 3 * W);
		VEC t2 = vload(s + n - 2 * W), t3 = vload(s + n - W);
		copy_loop_t(pb_next_line(d), end, d, s);
		vstore(end - 4 * W, t0);
		vstore(end - 3 * W, t1);
		vstore(end - 2 * W, t2);
		vstore(end - W, t3);
		vstore(d, h0);
#if W == 32
		vstore(d + W, h1);
#endif
		return;
	}
	/* Backward. Head: 4W at d; tail: 64 bytes ending at the end. The loop
	 * runs down from the last line boundary at or below the end, so
	 * [that boundary, end) lies in the tail block. */
	VEC h0 = vload(s), h1 = vload(s + W), h2 = vload(s + 2 * W), h3 = vload(s + 3 * W);
	VEC t0 = vload(s + n - 64);
#if W == 32
	VEC t1 = vload(s + n - W);
#endif
	uint8_t *p = (uint8_t *)((uintptr_t)end & ~(uintptr_t)(PB_LINE_BYTES - 1));
#if COPY_STEP == 8
	while (p - d > 8 * W) {
		p -= 8 * W;
		copy_x8_t(p, s + (p - d));
	}
	if (p - d > 4 * W) {
		p -= 4 * W;
		copy_x4_t(p, s + (p - d));
	}
#else
	while (p - d > 4 * W) {
		p -= 4 * W;
		copy_x4_t(p, s + (p - d));
	}
#endif
	vstore(end - 64, t0);
#if W == 32
	vstore(end - W, t1);
#endif
	vstore(d, h0);
	vstore(d + W, h1);
	vstore(d + 2 * W, h2);
	vstore(d + 3 * W, h3);
}
#endif
