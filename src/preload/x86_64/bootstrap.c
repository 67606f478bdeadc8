/* bootstrap.c (x86-64) - the kernels that serve calls before the library
 * is ready: rep stosb and forward rep movsb (correct for any size and
 * alignment, fast with ERMS/FSRM, one instruction each: nothing to
 * relocate, no state, async-signal-safe), and for a memmove whose
 * destination lies inside its source a backward loop of 8-byte words, then
 * bytes. The backward copy avoids std; rep movsb: slow on many CPUs
 * (glibc commit 88b57b8ed41d, case M6), and nothing here ever runs with
 * DF set. The SysV ABI guarantees DF = 0 on entry (also in signal
 * handlers: Linux clears it when it builds the frame).
 */
#include <stdint.h>

#include "kernels/generic/blocks.h"
#include "preload.h"

void *pb_boot_memset(void *dst, int c, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

/* Forward: byte by byte in the architecture's terms (the fast-string
 * microcode keeps that result), so also right for an overlap with dst <
 * src. */
static inline void *movsb_forward(void *dst, const void *src, size_t n)
{
	void *d = dst;
	const void *s = src;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}

void *pb_boot_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return movsb_forward(dst, src, n);
}

/* Each word is loaded before it is stored, and every later load is below
 * the bytes stored so far (dst > src): correct for any overlap. */
PB_NO_VECTORIZE void *pb_boot_memmove(void *dst, const void *src, size_t n)
{
	if (!pb_move_backward(dst, src, n))
		return movsb_forward(dst, src, n);
	uint8_t *d = dst;
	const uint8_t *s = src;
	while (n >= 8) {
		n -= 8;
		pb_store64(d + n, pb_load64(s + n));
	}
	while (n > 0) {
		n--;
		d[n] = s[n];
	}
	return dst;
}
