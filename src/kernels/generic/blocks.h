/* blocks.h - the building blocks every kernel is made of (after LLVM libc
 * memory_utils: block, head_tail, loop_and_tail).
 *
 *   block      one store (or load + store) of a fixed width at one address
 *   head_tail  two blocks, one at the start and one ending at the end of
 *              [d, d + n): covers any n with width <= n <= 2 * width,
 *              the two blocks overlapping in the middle
 *   upto16/64  a ladder of head_tail blocks for 0 <= n <= 16 (or 64):
 *              no loop, no byte-by-byte path
 *
 * Unaligned accesses go through may_alias, aligned(1) types: a plain load
 * or store instruction on x86-64, and never a call of memcpy (these files
 * are compiled with -fno-builtin; tests/check_kernel_symbols.sh checks).
 * Vector blocks live with their ISA in src/kernels/<arch>/.
 */
#ifndef PRIMBENCH_KERNELS_BLOCKS_H
#define PRIMBENCH_KERNELS_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_LINE_BYTES 64

/* The smallest size clzero's line loop takes: below it, a streaming store
 * to a partly written line only costs, and the sfence is a fixed price. */
#define PB_NT_MIN_BYTES 256

/* The non-temporal store kernels (sse2_nt, avx2_nt, avx512_nt, movnti; on
 * arm64 neon_nt) stream at every size: every whole line inside [d, end)
 * is written with streaming stores, the bytes before the first line
 * boundary and after the last with the temporal kernel's ordinary stores
 * (a line written whole by one thread's streaming stores goes to memory
 * in one piece; a partly written one costs a partial write), then one
 * sfence on x86-64. Below PB_LINE_BYTES no whole line fits, and from 64
 * to 127 bytes one fits only when a line boundary lies inside: those
 * calls run the temporal kernel's code alone (the rows' same_code_as up
 * to 63 bytes; pb_nt_lines says which calls stream). Whether streaming
 * pays at a size is a policy's choice (`avx2<=1M,avx2_nt`), not the
 * kernel's: before kernel revision 2 the kernels took their temporal
 * path up to 1 MiB (docs/performance.md, "Non-temporal kernels at every
 * size"). */

/* The first line boundary at or after d, and the last at or before end. */
static inline uint8_t *pb_line_up(uint8_t *d)
{
	return (uint8_t *)(((uintptr_t)d + PB_LINE_BYTES - 1) & ~(uintptr_t)(PB_LINE_BYTES - 1));
}
static inline uint8_t *pb_line_down(uint8_t *end)
{
	return (uint8_t *)((uintptr_t)end & ~(uintptr_t)(PB_LINE_BYTES - 1));
}

/* Whether a streaming kernel's call on [d, d + n) streams: at least one
 * whole line lies inside it. */
static inline bool pb_nt_lines(uint8_t *d, size_t n)
{
	return n >= PB_LINE_BYTES && pb_line_up(d) < pb_line_down(d + n);
}

/* How far ahead of the copy the non-temporal memcpy kernels prefetch the
 * source (prefetcht1: into L2): 48 lines. Measured at 64 MiB from DRAM:
 * 2, 3 and 4 KiB ahead are one plateau, 14-40% above no software
 * prefetch; prefetchnta loses (-13% at 256 B ahead, -34% at 2 KiB),
 * prefetcht0 gains 0-10%. Method: Intel Optimization Reference Manual, "Optimizing
 * Cache Usage" (prefetch scheduling distance: far enough ahead to cover
 * the memory latency, near enough that the line is still cached). */
#define PB_NT_PREFETCH_AHEAD_BYTES 3072

/* A compiler barrier: no load or store moves across it. Unrolled loops put
 * one between the lines they store, so the two (or four) stores of one
 * line are consecutive: at 4 KiB hot, memcpy/avx2's loop ran at half the
 * rate of memset/avx2 when GCC interleaved the stores of two lines (line
 * 0, 1, 0, 1), as if two stores commit in one cycle only to one line. */
#define PB_STORE_ORDER() __asm__ volatile("" ::: "memory")

/* Keeps GCC from turning a function's scalar loops and stores into vector
 * code (-O2 vectorizes since GCC 12): a kernel named "bytes" or "gpr" must
 * measure what its name says. */
#if defined(__clang__)
#define PB_NO_VECTORIZE
#else
#define PB_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#endif

typedef uint16_t pb_u16u __attribute__((aligned(1), may_alias));
typedef uint32_t pb_u32u __attribute__((aligned(1), may_alias));
typedef uint64_t pb_u64u __attribute__((aligned(1), may_alias));

/* The fill byte in every byte of a word (memset converts c to unsigned char). */
static inline uint64_t pb_splat64(int c)
{
	return (uint64_t)(uint8_t)c * 0x0101010101010101ull;
}

/* The first line boundary after d: in [d + 1, d + 64]. A kernel that has
 * stored a 64-byte head block at d continues here with no gap. */
static inline uint8_t *pb_next_line(uint8_t *d)
{
	return (uint8_t *)(((uintptr_t)d + PB_LINE_BYTES) & ~(uintptr_t)(PB_LINE_BYTES - 1));
}

static inline void pb_store16(uint8_t *d, uint16_t v)
{
	*(pb_u16u *)d = v;
}
static inline void pb_store32(uint8_t *d, uint32_t v)
{
	*(pb_u32u *)d = v;
}
static inline void pb_store64(uint8_t *d, uint64_t v)
{
	*(pb_u64u *)d = v;
}
static inline uint16_t pb_load16(const uint8_t *s)
{
	return *(const pb_u16u *)s;
}
static inline uint32_t pb_load32(const uint8_t *s)
{
	return *(const pb_u32u *)s;
}
static inline uint64_t pb_load64(const uint8_t *s)
{
	return *(const pb_u64u *)s;
}

/* ---- memset blocks (v: the byte in all 8 lanes, pb_splat64) ---------- */

/* 0 <= n <= 16. */
static inline void pb_set_upto16(uint8_t *d, size_t n, uint64_t v)
{
	if (n >= 8) {
		pb_store64(d, v);
		pb_store64(d + n - 8, v);
	} else if (n >= 4) {
		pb_store32(d, (uint32_t)v);
		pb_store32(d + n - 4, (uint32_t)v);
	} else if (n >= 2) {
		pb_store16(d, (uint16_t)v);
		pb_store16(d + n - 2, (uint16_t)v);
	} else if (n == 1) {
		*d = (uint8_t)v;
	}
}

/* 16 <= n <= 32: two words at the head, two ending at the end. */
static inline void pb_set_head_tail16(uint8_t *d, size_t n, uint64_t v)
{
	pb_store64(d, v);
	pb_store64(d + 8, v);
	pb_store64(d + n - 16, v);
	pb_store64(d + n - 8, v);
}

/* One 64-byte line of words at d, stored by PUT(address, word): pb_store64,
 * or a streaming store (movnti.c), so temporal and streaming lines come
 * from this one source. PB_PUT_WORDS64 stores w0..w7 in address order;
 * PB_SET_LINE64 stores v eight times; PB_COPY_LINE64 loads the eight words
 * at s, then stores them. d and s are evaluated more than once. */
#define PB_PUT_WORDS64(d, PUT, w0, w1, w2, w3, w4, w5, w6, w7)                                     \
	do {                                                                                       \
		PUT((d), w0);                                                                      \
		PUT((d) + 8, w1);                                                                  \
		PUT((d) + 16, w2);                                                                 \
		PUT((d) + 24, w3);                                                                 \
		PUT((d) + 32, w4);                                                                 \
		PUT((d) + 40, w5);                                                                 \
		PUT((d) + 48, w6);                                                                 \
		PUT((d) + 56, w7);                                                                 \
	} while (0)
#define PB_SET_LINE64(d, v, PUT) PB_PUT_WORDS64(d, PUT, v, v, v, v, v, v, v, v)
#define PB_COPY_LINE64(d, s, PUT)                                                                  \
	do {                                                                                       \
		uint64_t w0_ = pb_load64(s), w1_ = pb_load64((s) + 8), w2_ = pb_load64((s) + 16),  \
		         w3_ = pb_load64((s) + 24), w4_ = pb_load64((s) + 32),                     \
		         w5_ = pb_load64((s) + 40), w6_ = pb_load64((s) + 48),                     \
		         w7_ = pb_load64((s) + 56);                                                \
		PB_PUT_WORDS64(d, PUT, w0_, w1_, w2_, w3_, w4_, w5_, w6_, w7_);                    \
	} while (0)

/* One 64-byte block: eight word stores. */
static inline void pb_set_block64(uint8_t *d, uint64_t v)
{
	PB_SET_LINE64(d, v, pb_store64);
}

/* 32 <= n <= 64: 32 bytes at the head, 32 ending at the end. */
static inline void pb_set_head_tail32(uint8_t *d, size_t n, uint64_t v)
{
	pb_set_head_tail16(d, 32, v);
	pb_set_head_tail16(d + n - 32, 32, v);
}

/* 0 <= n <= 64. */
static inline void pb_set_upto64(uint8_t *d, size_t n, uint64_t v)
{
	if (n <= 16)
		pb_set_upto16(d, n, v);
	else if (n <= 32)
		pb_set_head_tail16(d, n, v);
	else
		pb_set_head_tail32(d, n, v);
}

/* ---- memcpy blocks: every block loads all it needs before it stores ---- */

/* 0 <= n <= 16. */
static inline void pb_copy_upto16(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n >= 8) {
		uint64_t a = pb_load64(s), b = pb_load64(s + n - 8);
		pb_store64(d, a);
		pb_store64(d + n - 8, b);
	} else if (n >= 4) {
		uint32_t a = pb_load32(s), b = pb_load32(s + n - 4);
		pb_store32(d, a);
		pb_store32(d + n - 4, b);
	} else if (n >= 2) {
		uint16_t a = pb_load16(s), b = pb_load16(s + n - 2);
		pb_store16(d, a);
		pb_store16(d + n - 2, b);
	} else if (n == 1) {
		*d = *s;
	}
}

/* 16 <= n <= 32. */
static inline void pb_copy_head_tail16(uint8_t *d, const uint8_t *s, size_t n)
{
	uint64_t a = pb_load64(s), b = pb_load64(s + 8);
	uint64_t y = pb_load64(s + n - 16), z = pb_load64(s + n - 8);
	pb_store64(d, a);
	pb_store64(d + 8, b);
	pb_store64(d + n - 16, y);
	pb_store64(d + n - 8, z);
}

/* One 64-byte block: eight word loads, then eight word stores. */
static inline void pb_copy_block64(uint8_t *d, const uint8_t *s)
{
	PB_COPY_LINE64(d, s, pb_store64);
}

/* 32 <= n <= 64. */
static inline void pb_copy_head_tail32(uint8_t *d, const uint8_t *s, size_t n)
{
	pb_copy_head_tail16(d, s, 32);
	pb_copy_head_tail16(d + n - 32, s + n - 32, 32);
}

/* 0 <= n <= 64. */
static inline void pb_copy_upto64(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n <= 16)
		pb_copy_upto16(d, s, n);
	else if (n <= 32)
		pb_copy_head_tail16(d, s, n);
	else
		pb_copy_head_tail32(d, s, n);
}

/* ---- memmove blocks ------------------------------------------------------
 * The memcpy blocks above that are one block (upto16, head_tail16, block64)
 * load everything before they store, so they are correct for any overlap of
 * their source and destination; head_tail32 is two blocks and is not. */

/* Whether a memmove of n bytes from s to d must copy backward: d lies
 * inside the source, past its start (0 < d - s < n; one unsigned compare,
 * as glibc's memmove-vec-unaligned-erms.S). Otherwise a forward copy is
 * correct: d <= s, or the ranges do not overlap. */
static inline bool pb_move_backward(const void *d, const void *s, size_t n)
{
	uintptr_t diff = (uintptr_t)d - (uintptr_t)s;
	return diff != 0 && diff < n;
}

/* 32 <= n <= 64: eight words loaded, then stored. */
static inline void pb_move_head_tail32(uint8_t *d, const uint8_t *s, size_t n)
{
	uint64_t a = pb_load64(s), b = pb_load64(s + 8), e = pb_load64(s + 16),
	         f = pb_load64(s + 24);
	uint64_t w = pb_load64(s + n - 32), x = pb_load64(s + n - 24), y = pb_load64(s + n - 16),
	         z = pb_load64(s + n - 8);
	pb_store64(d, a);
	pb_store64(d + 8, b);
	pb_store64(d + 16, e);
	pb_store64(d + 24, f);
	pb_store64(d + n - 32, w);
	pb_store64(d + n - 24, x);
	pb_store64(d + n - 16, y);
	pb_store64(d + n - 8, z);
}

/* 0 <= n <= 64, any overlap. */
static inline void pb_move_upto64(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n <= 16)
		pb_copy_upto16(d, s, n);
	else if (n <= 32)
		pb_copy_head_tail16(d, s, n);
	else
		pb_move_head_tail32(d, s, n);
}

#endif
