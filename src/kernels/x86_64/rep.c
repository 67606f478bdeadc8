/* rep.c - the string instructions: rep stos and rep movs.
 *
 * These kernels are the instruction itself for every size, as the Linux
 * kernel uses them: the microcode handles alignment and short sizes (ERMS,
 * FSRM), and how well it does so is what they measure (cases M1, M3, M5).
 * The SysV ABI guarantees DF = 0 on entry, so the copies run forward.
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

void *pb_memset_rep_stosb(void *dst, int c, size_t n)
{
	void *d = dst;
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

void *pb_memset_rep_stosq(void *dst, int c, size_t n)
{
	void *d = dst;
	size_t words = n / 8, tail = n % 8;
	uint64_t v = pb_splat64(c);
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(words) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(tail) : "a"(v) : "memory");
	return dst;
}

void *pb_memcpy_rep_movsb(void *restrict dst, const void *restrict src, size_t n)
{
	void *d = dst;
	const void *s = src;
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}

void *pb_memcpy_rep_movsq(void *restrict dst, const void *restrict src, size_t n)
{
	void *d = dst;
	const void *s = src;
	size_t words = n / 8, tail = n % 8;
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(words) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(tail) : : "memory");
	return dst;
}
