/* kernel_check.h - the parts of the kernels' fuzz target (fuzz_kernels.c)
 * built without sanitizers (tests/fuzz/CMakeLists.txt): the call of a
 * kernel between two readings of the SIMD state, and the byte checks. */
#ifndef PB_FUZZ_KERNEL_CHECK_H
#define PB_FUZZ_KERNEL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/kernels.h"

/* Reads the CPU's SIMD facilities once (XINUSE, AVX); call before
 * pb_fz_call. */
void pb_fz_env_detect(void);

/* Calls the op's function: memset_fn(dst, c, n), memcpy_fn(dst, src, n)
 * or memmove_fn(dst, src, n) (one of them set, as in struct pb_kernel).
 * Around the call: x87 control word and MXCSR set to values that are not
 * the defaults, the upper SIMD halves clean (vzeroupper), and afterwards
 * compared (tests/fpenv.h: the x87 control word, MXCSR's control bits, no
 * AVX or ZMM_Hi256 state newly in use), then the defaults restored.
 * Returns what the kernel returned; *env_why is NULL, or what changed
 * (static text). x86-64 only; elsewhere *env_why is always NULL. */
void *pb_fz_call(enum pb_op op, pb_memset_fn set, pb_memcpy_fn cpy, pb_memmove_fn move, void *dst,
                 const void *src, int c, size_t n, const char **env_why);

/* The index of the first of p's n bytes that is not c; n when none. */
size_t pb_fz_first_not(const uint8_t *p, size_t n, uint8_t c);

/* The index of the first byte where a and b differ; n when none. */
size_t pb_fz_first_diff(const uint8_t *a, const uint8_t *b, size_t n);

/* Wrong kernels, for the checker's own test (ctest fuzz_kernels_selftest):
 * PB_FUZZ_KERNELS_BROKEN=KIND in replay_kernels replaces every contender
 * with one that is wrong in that way, and the replay must fail.
 *   overrun   writes one byte past the range
 *   underrun  writes one byte before the range
 *   value     a wrong byte in the middle of the range
 *   forward   memmove always copies forward (wrong when dst > src overlaps)
 *   ret       returns dst + 1
 *   mxcsr     leaves MXCSR's rounding control changed
 *   avx       leaves the upper halves of the ymm registers in use (x86-64
 *             with AVX; elsewhere the same as mxcsr)
 *   none      writes nothing: the range keeps the bytes it had */
enum pb_fz_broken {
	PB_FZ_OK,
	PB_FZ_OVERRUN,
	PB_FZ_UNDERRUN,
	PB_FZ_VALUE,
	PB_FZ_FORWARD,
	PB_FZ_RET,
	PB_FZ_MXCSR,
	PB_FZ_AVX,
	PB_FZ_NONE
};
extern enum pb_fz_broken pb_fz_broken;
void *pb_fz_broken_memset(void *dst, int c, size_t n);
void *pb_fz_broken_memcpy(void *restrict dst, const void *restrict src, size_t n);
void *pb_fz_broken_memmove(void *dst, const void *src, size_t n);

#endif
