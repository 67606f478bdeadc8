/* sve.c - SVE kernels, vector-length agnostic: the same code runs at any
 * vector length from 128 to 2048 bits (svcntb() bytes per vector, read at
 * run time), with predicates instead of a scalar tail (Arm ACLE for SVE:
 * svwhilelt_b8, svld1_u8, svst1_u8; the instructions WHILELO, LD1B,
 * ST1B).
 *
 * memset and memcpy: four whole vectors per step while at least four are
 * left (memcpy loads all four before it stores), then the rest by a loop
 * of WHILELO-predicated vectors (at most four). memmove: the same steps
 * forward when dst <= src or the buffers do not overlap; backward from
 * the end when dst lies inside the source, the last partial vector (at
 * the start) by one predicated vector. Every step loads before it
 * stores, and runs in the safe direction, so any overlap is copied right.
 *
 * This file alone is compiled with -march=armv8.2-a+sve (CMakeLists.txt):
 * the rest of the build stays baseline armv8-a, and these functions run
 * only where the registry found SVE usable.
 */
#include <arm_sve.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

void *pb_memset_sve(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	const uint64_t vl = svcntb();
	const svbool_t all = svptrue_b8();
	const svuint8_t v = svdup_n_u8((uint8_t)c);
	uint64_t i = 0;

	for (; n - i >= 4 * vl; i += 4 * vl) {
		svst1_u8(all, d + i, v);
		svst1_vnum_u8(all, d + i, 1, v);
		svst1_vnum_u8(all, d + i, 2, v);
		svst1_vnum_u8(all, d + i, 3, v);
	}
	for (; i < n; i += vl)
		svst1_u8(svwhilelt_b8_u64(i, n), d + i, v);
	return dst;
}

/* Four vectors from s + i to d + i: the loads, then the stores. */
static inline __attribute__((always_inline)) void copy_x4(uint8_t *d, const uint8_t *s,
                                                          svbool_t all)
{
	svuint8_t a = svld1_u8(all, s), b = svld1_vnum_u8(all, s, 1);
	svuint8_t e = svld1_vnum_u8(all, s, 2), f = svld1_vnum_u8(all, s, 3);
	svst1_u8(all, d, a);
	svst1_vnum_u8(all, d, 1, b);
	svst1_vnum_u8(all, d, 2, e);
	svst1_vnum_u8(all, d, 3, f);
}

/* Forward from byte 0: four vectors per step, then predicated vectors. */
static inline __attribute__((always_inline)) void copy_forward(uint8_t *d, const uint8_t *s,
                                                               size_t n)
{
	const uint64_t vl = svcntb();
	const svbool_t all = svptrue_b8();
	uint64_t i = 0;
	for (; n - i >= 4 * vl; i += 4 * vl)
		copy_x4(d + i, s + i, all);
	for (; i < n; i += vl) {
		svbool_t pg = svwhilelt_b8_u64(i, n);
		svst1_u8(pg, d + i, svld1_u8(pg, s + i));
	}
}

void *pb_memcpy_sve(void *restrict dst, const void *restrict src, size_t n)
{
	copy_forward(dst, src, n);
	return dst;
}

void *pb_memmove_sve(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (!pb_move_backward(d, s, n)) {
		/* Stores so far end at d + i <= s + i: the source from s + i is intact. */
		copy_forward(d, s, n);
		return dst;
	}
	/* Stores so far start at d + i > s + i: the source below s + i is intact. */
	const uint64_t vl = svcntb();
	const svbool_t all = svptrue_b8();
	uint64_t i = n;
	for (; i >= 4 * vl; i -= 4 * vl)
		copy_x4(d + i - 4 * vl, s + i - 4 * vl, all);
	for (; i >= vl; i -= vl)
		svst1_u8(all, d + i - vl, svld1_u8(all, s + i - vl));
	if (i) {
		svbool_t pg = svwhilelt_b8_u64(0, i);
		svst1_u8(pg, d, svld1_u8(pg, s));
	}
	return dst;
}
