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
 * Temporal and streaming kernels come from the same source: the bulk
 * functions take `nt` and every caller passes a constant, so after
 * inlining (always_inline) each kernel has its own store instruction and
 * no branch on it. The loops store whole lines from the first line
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

/* The aligned store of the bulk loops: streaming when nt. */
VINLINE void vput(uint8_t *p, VEC v, bool nt)
{
	if (nt)
		STREAM(p, v);
	else
		STOREA(p, v);
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

/* The 64 bytes at d (the head block of the bulk paths). */
VINLINE void set_block64(uint8_t *d, VEC v)
{
#if W == 64
	vstore(d, v);
#elif W == 32
	set_head_tail(d, 64, v);
#else
	set_head_tail_x2(d, 64, v);
#endif
}
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

/* ---- the bulk loops' steps: 4W bytes at the line-aligned p ---- */

/* After the k-th aligned store (1-based) from a line boundary: the barrier
 * when it ends a line. */
#define LINE_DONE(k)                                                                               \
	do {                                                                                       \
		if ((k)*W % PB_LINE_BYTES == 0)                                                    \
			PB_STORE_ORDER();                                                          \
	} while (0)

VINLINE void put_x4(uint8_t *p, VEC a, VEC b, VEC e, VEC f, bool nt)
{
	vput(p, a, nt);
	LINE_DONE(1);
	vput(p + W, b, nt);
	LINE_DONE(2);
	vput(p + 2 * W, e, nt);
	LINE_DONE(3);
	vput(p + 3 * W, f, nt);
	LINE_DONE(4);
}

/* 4W bytes from q: the four loads, then the stores. */
VINLINE void copy_x4(uint8_t *p, const uint8_t *q, bool nt)
{
	VEC a = vload(q), b = vload(q + W), e = vload(q + 2 * W), f = vload(q + 3 * W);
	put_x4(p, a, b, e, f, nt);
}

/* 8W bytes from q, temporal: all eight loads, then the stores. */
VINLINE void copy_x8(uint8_t *p, const uint8_t *q)
{
	VEC a = vload(q), b = vload(q + W), e = vload(q + 2 * W), f = vload(q + 3 * W);
	VEC g = vload(q + 4 * W), h = vload(q + 5 * W), i = vload(q + 6 * W), j = vload(q + 7 * W);
	put_x4(p, a, b, e, f, false);
	put_x4(p + 4 * W, g, h, i, j, false);
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

/* The temporal copy loop from the line-aligned p while more than 4W bytes
 * are left before end: COPY_STEP vectors per step (8: then at most one
 * step of 4); source at s + (p - d). */
VINLINE void copy_loop(uint8_t *p, const uint8_t *end, const uint8_t *d, const uint8_t *s)
{
#if COPY_STEP == 8
	for (; end - p > 8 * W; p += 8 * W)
		copy_x8(p, s + (p - d));
	if (end - p > 4 * W)
		copy_x4(p, s + (p - d), false);
#else
	for (; end - p > 4 * W; p += 4 * W)
		copy_x4(p, s + (p - d), false);
#endif
}

/* ---- the bulk paths (n >= 4W): head block, line loop, tail block ---- */

/* memset: the 64-byte head at d, 4W per step from the first line boundary
 * after d, 4W ending at the end; streaming stores and one sfence when nt. */
VINLINE void set_bulk(uint8_t *d, size_t n, VEC v, bool nt)
{
	uint8_t *end = d + n;
	set_block64(d, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 4 * W; p += 4 * W)
		put_x4(p, v, v, v, v, nt);
	set_head_tail_x2(end - 4 * W, 4 * W, v);
	/* Streaming stores are weakly ordered: fence once, before returning. */
	if (nt)
		_mm_sfence();
}

/* memcpy: as set_bulk. Temporal: copy_loop. Streaming: 4W per step, each step prefetching the
 * source PB_NT_PREFETCH_AHEAD_BYTES ahead (blocks.h) until that point
 * reaches the source's end, then one sfence. */
VINLINE void copy_bulk(uint8_t *d, const uint8_t *s, size_t n, bool nt)
{
	uint8_t *end = d + n;
	copy_block64(d, s);
	uint8_t *p = pb_next_line(d);
	if (nt) {
		/* Every line it prefetches lies inside the source. */
		for (; end - p > 4 * W + PB_NT_PREFETCH_AHEAD_BYTES; p += 4 * W) {
			const uint8_t *q = s + (p - d);
			prefetch_x4(q + PB_NT_PREFETCH_AHEAD_BYTES);
			copy_x4(p, q, true);
		}
		for (; end - p > 4 * W; p += 4 * W)
			copy_x4(p, s + (p - d), true);
	} else {
		copy_loop(p, end, d, s);
	}
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
	if (nt)
		_mm_sfence();
}

#if W >= 32
/* memmove above its ladder (n > 4W): the loop goes forward (dst <=
 * src, or no overlap) or backward (dst inside the source), and every block
 * the loop does not cover is loaded before the loop and stored after it:
 * the loop may overwrite source bytes those blocks read. The loop itself
 * (copy_x8, copy_x4: all loads of a step before its stores) only reads
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
		copy_loop(pb_next_line(d), end, d, s);
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
		copy_x8(p, s + (p - d));
	}
	if (p - d > 4 * W) {
		p -= 4 * W;
		copy_x4(p, s + (p - d), false);
	}
#else
	while (p - d > 4 * W) {
		p -= 4 * W;
		copy_x4(p, s + (p - d), false);
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
