/* clzero.c - memset by AMD's CLZERO: zeroes the whole 64-byte line that
 * contains the address in rAX (AMD64 APM Vol. 3, CLZERO).
 *
 * Only value 0 and only whole lines: the line-aligned middle of [d, end)
 * is cleared with clzero when the value is 0 and n > PB_NT_MIN_BYTES;
 * the partial lines at both ends, every other value and small sizes go to
 * memset/sse2 (temporal stores). CLZERO is weakly ordered like streaming
 * stores (APM: "use an SFENCE ... to enforce memory ordering"): one sfence
 * after the last one.
 */
#include <emmintrin.h>
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

/* The instruction's bytes (0f 01 fc): assemblers older than binutils 2.28
 * do not know the mnemonic. It writes the line containing p, aligned down:
 * callers pass line-aligned addresses only. */
static inline void clzero_line(uint8_t *p)
{
	__asm__ volatile(".byte 0x0f, 0x01, 0xfc" : : "a"(p) : "memory");
}

void *pb_memset_clzero(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

	if ((uint8_t)c != 0 || n <= PB_NT_MIN_BYTES)
		return pb_memset_sse2(dst, c, n);
	/* n > 256: at least two whole lines lie between first and last. */
	uint8_t *first = (uint8_t *)(((uintptr_t)d + 63) & ~(uintptr_t)63);
	uint8_t *last = (uint8_t *)((uintptr_t)end & ~(uintptr_t)63);
	pb_memset_sse2(d, 0, (size_t)(first - d));
	for (uint8_t *p = first; p < last; p += 64)
		clzero_line(p);
	pb_memset_sse2(last, 0, (size_t)(end - last));
	_mm_sfence();
	return dst;
}
