/* neon.c - 16-byte q-register kernels (Advanced SIMD, baseline on arm64)
 * and their non-temporal variants.
 *
 * Ladder, memset and memcpy alike:
 *   n <= 16   word head/tail (blocks.h)
 *   n <= 32   one q register at the head, one ending at the end
 *   n <= 64   two at the head, two ending at the end
 *   n > 64    a 64-byte head block at d; the bulk loop over whole lines
 *             from the first line boundary after d (aligned stores, two
 *             STP q per line); a 64-byte tail block ending at the end.
 *             memcpy's loop loads a line (LDP q) before it stores it.
 * memmove: up to 64 bytes every load before any store (any overlap);
 * above, 64-byte blocks (four loads, then four stores) from the start,
 * or from the end when dst lies inside the source, then the rest as one
 * block of the ladder: every byte is copied once, in the safe direction.
 *
 * The _nt kernels stream at every size (blocks.h, pb_nt_lines): memset
 * and memcpy store the whole lines inside the buffer with STNP q (memcpy
 * loads them with LDNP q) and the bytes around them with the temporal
 * kernel; memmove from 64 bytes on moves 64-byte blocks with LDNP/STNP q
 * (move_bulk: in the safe direction, so not line-aligned). The
 * non-temporal pair instructions are a hint (Arm ARM C3.2.4 "Load/Store Non-temporal pair"
 * and C7.2 LDNP, STNP): they change no ordering rule that matters here
 * (the exception concerns LDNP's address dependencies as seen by other
 * observers), so no barrier follows them, unlike x86's sfence.
 * The compiler pairs adjacent q loads and stores into LDP/STP q itself
 * (checked with objdump); the non-temporal pairs are inline asm, there
 * being no intrinsic for them.
 */
#include <arm_neon.h>
#include <stdbool.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

#define VINLINE static inline __attribute__((always_inline))

VINLINE uint8x16_t vload(const uint8_t *s)
{
	return vld1q_u8(s);
}
VINLINE void vstore(uint8_t *d, uint8x16_t v)
{
	vst1q_u8(d, v);
}

/* 32 bytes at p: one STNP of two q registers. */
VINLINE void stnp(uint8_t *p, uint8x16_t a, uint8x16_t b)
{
	__asm__ volatile("stnp %q1, %q2, [%0]" : : "r"(p), "w"(a), "w"(b) : "memory");
}

/* 32 bytes from p into *a, *b: one LDNP. "memory": ordered after the
 * stores before it (memmove reads what it may have written). */
VINLINE void ldnp(const uint8_t *p, uint8x16_t *a, uint8x16_t *b)
{
	__asm__ volatile("ldnp %q0, %q1, [%2]" : "=w"(*a), "=w"(*b) : "r"(p) : "memory");
}

/* ---- blocks ---- */

/* 16 <= n <= 32: one vector at the head, one ending at the end. */
VINLINE void set_head_tail(uint8_t *d, size_t n, uint8x16_t v)
{
	vstore(d, v);
	vstore(d + n - 16, v);
}

/* 32 <= n <= 64: two at the head, two ending at the end. */
VINLINE void set_head_tail_x2(uint8_t *d, size_t n, uint8x16_t v)
{
	vstore(d, v);
	vstore(d + 16, v);
	vstore(d + n - 32, v);
	vstore(d + n - 16, v);
}

/* 16 <= n <= 32; loads before stores (any overlap). */
VINLINE void copy_head_tail(uint8_t *d, const uint8_t *s, size_t n)
{
	uint8x16_t a = vload(s), z = vload(s + n - 16);
	vstore(d, a);
	vstore(d + n - 16, z);
}

/* 32 <= n <= 64; loads before stores (any overlap). */
VINLINE void copy_head_tail_x2(uint8_t *d, const uint8_t *s, size_t n)
{
	uint8x16_t a = vload(s), b = vload(s + 16);
	uint8x16_t y = vload(s + n - 32), z = vload(s + n - 16);
	vstore(d, a);
	vstore(d + 16, b);
	vstore(d + n - 32, y);
	vstore(d + n - 16, z);
}

/* 0 <= n <= 64; every load before any store (any overlap). */
VINLINE void copy_upto64(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n <= 16)
		pb_copy_upto16(d, s, n);
	else if (n <= 32)
		copy_head_tail(d, s, n);
	else
		copy_head_tail_x2(d, s, n);
}

/* One 64-byte line at p: two STP q, or two STNP q. */
VINLINE void set_line(uint8_t *p, uint8x16_t v, bool nt)
{
	if (nt) {
		stnp(p, v, v);
		stnp(p + 32, v, v);
	} else {
		vstore(p, v);
		vstore(p + 16, v);
		vstore(p + 32, v);
		vstore(p + 48, v);
	}
}

/* 64 bytes from q to p: the four loads (LDP q or LDNP q), then the four
 * stores (STP q or STNP q). Correct for any overlap of the two blocks. */
VINLINE void copy_line(uint8_t *p, const uint8_t *q, bool nt)
{
	if (nt) {
		uint8x16_t a, b, e, f;
		ldnp(q, &a, &b);
		ldnp(q + 32, &e, &f);
		stnp(p, a, b);
		stnp(p + 32, e, f);
	} else {
		uint8x16_t a = vload(q), b = vload(q + 16), e = vload(q + 32), f = vload(q + 48);
		vstore(p, a);
		vstore(p + 16, b);
		vstore(p + 32, e);
		vstore(p + 48, f);
	}
}

/* ---- bulk paths (n > 64) ---- */

VINLINE void set_bulk(uint8_t *d, size_t n, uint8x16_t v, bool nt)
{
	uint8_t *end = d + n, *p = pb_next_line(d);
	set_head_tail_x2(d, 64, v);
	/* n > 64, so p <= d + 64 < end: the loop and the tail stay in [d, end). */
	for (; end - p > 64; p += 64) {
		set_line(p, v, nt);
		PB_STORE_ORDER();
	}
	set_head_tail_x2(end - 64, 64, v);
}

VINLINE void copy_bulk(uint8_t *d, const uint8_t *s, size_t n, bool nt)
{
	uint8_t *end = d + n, *p = pb_next_line(d);
	const uint8_t *q = s + (p - d);
	copy_head_tail_x2(d, s, 64);
	for (; end - p > 64; p += 64, q += 64) {
		copy_line(p, q, nt);
		PB_STORE_ORDER();
	}
	copy_head_tail_x2(end - 64, s + n - 64, 64);
}

/* Forward when dst <= src or no overlap: stores so far end at d + i <=
 * s + i, so the source from s + i is intact. Backward otherwise: stores so
 * far start at d + i > s + i, so the source below s + i is intact. */
VINLINE void move_bulk(uint8_t *d, const uint8_t *s, size_t n, bool nt)
{
	if (!pb_move_backward(d, s, n)) {
		size_t i = 0;
		for (; n - i >= 64; i += 64)
			copy_line(d + i, s + i, nt);
		copy_upto64(d + i, s + i, n - i);
	} else {
		size_t i = n;
		for (; i >= 64; i -= 64)
			copy_line(d + i - 64, s + i - 64, nt);
		copy_upto64(d, s, i);
	}
}

/* ---- memset ---- */

void *pb_memset_neon(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	if (n <= 16) {
		pb_set_upto16(d, n, pb_splat64(c));
		return dst;
	}
	uint8x16_t v = vdupq_n_u8((uint8_t)c);
	if (n <= 32)
		set_head_tail(d, n, v);
	else if (n <= 64)
		set_head_tail_x2(d, n, v);
	else
		set_bulk(d, n, v, false);
	return dst;
}

void *pb_memset_neon_nt(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	if (!pb_nt_lines(d, n))
		return pb_memset_neon(dst, c, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	uint8x16_t v = vdupq_n_u8((uint8_t)c);
	if (p > d)
		pb_memset_neon(d, c, (size_t)(p - d));
	for (; p < e; p += 64) {
		set_line(p, v, true);
		PB_STORE_ORDER();
	}
	if (end > e)
		pb_memset_neon(e, c, (size_t)(end - e));
	return dst;
}

/* ---- memcpy ---- */

void *pb_memcpy_neon(void *restrict dst, const void *restrict src, size_t n)
{
	if (n <= 64)
		copy_upto64(dst, src, n);
	else
		copy_bulk(dst, src, n, false);
	return dst;
}

void *pb_memcpy_neon_nt(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (!pb_nt_lines(d, n))
		return pb_memcpy_neon(dst, src, n);
	uint8_t *end = d + n, *p = pb_line_up(d), *e = pb_line_down(end);
	if (p > d)
		pb_memcpy_neon(d, s, (size_t)(p - d));
	for (const uint8_t *q = s + (p - d); p < e; p += 64, q += 64) {
		copy_line(p, q, true);
		PB_STORE_ORDER();
	}
	if (end > e)
		pb_memcpy_neon(e, s + (e - d), (size_t)(end - e));
	return dst;
}

/* ---- memmove ---- */

void *pb_memmove_neon(void *dst, const void *src, size_t n)
{
	if (n <= 64)
		copy_upto64(dst, src, n);
	else
		move_bulk(dst, src, n, false);
	return dst;
}

void *pb_memmove_neon_nt(void *dst, const void *src, size_t n)
{
	if (n < PB_LINE_BYTES)
		return pb_memmove_neon(dst, src, n);
	move_bulk(dst, src, n, true);
	return dst;
}
