/* rep.c - the string instructions: rep stos and rep movs.
 *
 * These kernels are the instruction itself for every size, as the Linux
 * kernel uses them: the microcode handles alignment and short sizes (ERMS,
 * FSRM), and how well it does so is what they measure (cases M1, M3, M5).
 * The SysV ABI guarantees DF = 0 on entry, so the copies run forward.
 *
 * The memmove kernels copy backward with DF = 1: std, the rep instruction
 * from the last element down, cld, all in one asm statement, so compiled
 * code never runs with DF set and DF is clear on return (the ABI requires
 * it). The DF window is the rep instruction itself. A signal taken inside
 * it (a rep string operation is interruptible and resumes: Intel SDM
 * Vol. 2B, REP) runs its handler with DF clear: Linux clears DF when it
 * builds the signal frame (arch/x86/kernel/signal.c, handle_signal) and
 * sigreturn restores DF = 1, so the copy resumes backward. A handler that
 * leaves by siglongjmp (the selftest's guard-page fault handler) keeps the
 * handler's DF = 0. Backward rep movs misses the fast-string microcode on
 * the CPUs of glibc 88b57b8ed41d; case M6 (docs/cases.md) times it here.
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

/* rep movsb: n bytes from s to d, forward (DF = 0). */
static inline void movsb_forward(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

void *pb_memcpy_rep_movsb(void *restrict dst, const void *restrict src, size_t n)
{
	movsb_forward(dst, src, n);
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

void *pb_memmove_rep_movsb(void *dst, const void *src, size_t n)
{
	if (!pb_move_backward(dst, src, n)) {
		movsb_forward(dst, src, n);
		return dst;
	}
	/* n >= 1 here; rdi and rsi point at the last byte. */
	void *d = (uint8_t *)dst + n - 1;
	const void *s = (const uint8_t *)src + n - 1;
	__asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(d), "+S"(s), "+c"(n) : : "memory", "cc");
	return dst;
}

void *pb_memmove_rep_movsb_fwd_movsq_bwd(void *dst, const void *src, size_t n)
{
	if (!pb_move_backward(dst, src, n)) {
		movsb_forward(dst, src, n);
		return dst;
	}
	if (n < 8) {
		pb_copy_upto16(dst, src, n); /* loads before it stores */
		return dst;
	}
	/* The words from the end down cover [n % 8, n); the first 8 bytes,
	 * loaded before anything is stored, cover [0, 8). */
	uint64_t head = pb_load64(src);
	size_t words = n / 8;
	void *d = (uint8_t *)dst + n - 8;
	const void *s = (const uint8_t *)src + n - 8;
	__asm__ volatile("std\n\trep movsq\n\tcld"
	                 : "+D"(d), "+S"(s), "+c"(words)
	                 :
	                 : "memory", "cc");
	pb_store64(dst, head);
	return dst;
}
