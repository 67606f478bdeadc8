/* vec_lines.h - the line loops and bulk paths of vec_blocks.h for one kind
 * of aligned store: read twice by vec_blocks.h, with NT 0 (STOREA,
 * temporal; functions named *_t) and NT 1 (STREAM, non-temporal; *_nt).
 * No include guard. The temporal bulk paths need n >= 4W; the streaming
 * ones (vec_blocks.h: set_lines_nt, copy_lines_nt) take whole lines.
 */
#if NT
#define PUT(p, v) STREAM(p, v)
#define SFX(f)    f##_nt
#else
#define PUT(p, v) STOREA(p, v)
#define SFX(f)    f##_t
#endif

/* 4W bytes at the line-aligned p, in address order, a barrier after each
 * line. */
VINLINE void SFX(put_x4)(uint8_t *p, VEC a, VEC b, VEC e, VEC f)
{
	PUT(p, a);
	LINE_DONE(1);
	PUT(p + W, b);
	LINE_DONE(2);
	PUT(p + 2 * W, e);
	LINE_DONE(3);
	PUT(p + 3 * W, f);
	LINE_DONE(4);
}

/* 4W bytes from q: the four loads, then the stores. */
VINLINE void SFX(copy_x4)(uint8_t *p, const uint8_t *q)
{
	VEC a = vload(q), b = vload(q + W), e = vload(q + 2 * W), f = vload(q + 3 * W);
	SFX(put_x4)(p, a, b, e, f);
}

#if !NT
/* 8W bytes from q: all eight loads, then the stores. */
VINLINE void copy_x8_t(uint8_t *p, const uint8_t *q)
{
	VEC a = vload(q), b = vload(q + W), e = vload(q + 2 * W), f = vload(q + 3 * W);
	VEC g = vload(q + 4 * W), h = vload(q + 5 * W), i = vload(q + 6 * W), j = vload(q + 7 * W);
	put_x4_t(p, a, b, e, f);
	put_x4_t(p + 4 * W, g, h, i, j);
}

/* The copy loop from the line-aligned p while more than 4W bytes are left
 * before end: COPY_STEP vectors per step (8: then at most one step of 4);
 * source at s + (p - d). */
VINLINE void copy_loop_t(uint8_t *p, const uint8_t *end, const uint8_t *d, const uint8_t *s)
{
#if COPY_STEP == 8
	for (; end - p > 8 * W; p += 8 * W)
		copy_x8_t(p, s + (p - d));
	if (end - p > 4 * W)
		copy_x4_t(p, s + (p - d));
#else
	for (; end - p > 4 * W; p += 4 * W)
		copy_x4_t(p, s + (p - d));
#endif
}
#endif

#if !NT
/* memset, n >= 4W: 4W at d (unaligned), then 4W per step of aligned stores
 * from the line boundary 4W - 64 bytes past the first one after d (at most
 * d + 4W: the head covers everything before it), 4W ending at the end.
 * The geometry of glibc 2.36's memset-vec-unaligned-erms.S loop: with a
 * 64-byte head instead, n = 609..2048 took one 64-byte store more than
 * glibc's (1.4 TSC ticks a call on Zen 4, docs/performance.md "memset
 * between 512 B and 2 KiB"); sizes a little above a multiple of 4W now
 * take three more than before, as glibc's do. */
VINLINE void set_bulk_t(uint8_t *d, size_t n, VEC v)
{
	vstore(d, v); /* first: it may share the caller's stores at d */
	vstore(d + W, v);
	vstore(d + 2 * W, v);
	vstore(d + 3 * W, v);
	uint8_t *end = d + n, *p = pb_next_line(d) + (4 * W - PB_LINE_BYTES);
	for (; end - p > 4 * W; p += 4 * W)
		put_x4_t(p, v, v, v, v);
	set_head_tail_x2(end - 4 * W, 4 * W, v);
}

/* memcpy: as set_bulk_t, with copy_loop_t. */
VINLINE void copy_bulk_t(uint8_t *d, const uint8_t *s, size_t n)
{
	uint8_t *end = d + n;
	copy_block64(d, s);
	copy_loop_t(pb_next_line(d), end, d, s);
	copy_head_tail_x2(end - 4 * W, s + n - 4 * W, 4 * W);
}
#endif

#undef PUT
#undef SFX
