/* dc_zva.c - memset by DC ZVA (Data Cache Zero by VA): zeroes the whole
 * naturally aligned block that contains the address, of the size
 * DCZID_EL0.BS gives (4 << BS bytes: 64 on Neoverse N1, 256 on A64FX);
 * Arm ARM C5.3 DC ZVA and D23.2 DCZID_EL0. Linux's arm64 clear_page
 * zeroes a page this way (arch/arm64/lib/clear_page.S).
 *
 * Only value 0 and only whole blocks: the block-aligned middle of
 * [d, end) is zeroed with DC ZVA when the value is 0 and n >
 * PB_NT_MIN_BYTES; the partial blocks at both ends, every other value,
 * small sizes, and a CPU where DC ZVA is prohibited (DCZID_EL0.DZP) go to
 * memset/neon, as x86's clzero falls back to sse2. DC ZVA is ordered as
 * a store (Arm ARM: it "behaves as a set of stores" for ordering), so no
 * barrier follows it.
 *
 * DCZID_EL0 is readable at EL0 (the kernel does not trap it): read once
 * per process, in this file, so the kernel works the same inside
 * libprimswitch.so (no dependency on src/cpu).
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

/* DCZID_EL0 (Arm ARM D23.2): BS, bits [3:0], log2 of the block size in
 * 4-byte words; DZP, bit 4, DC ZVA prohibited. */
#define DCZID_BS_MASK 0xfu
#define DCZID_DZP     0x10u

/* The DC ZVA block size in bytes, or 0 when DC ZVA is prohibited. The
 * register's value is fixed for the process: a relaxed atomic cache is
 * enough (threads racing to fill it write the same value). 1 marks "not
 * read yet" apart from 0 (prohibited). */
static size_t zva_block_bytes(void)
{
	static size_t cached = 1;
	size_t bytes = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (bytes != 1)
		return bytes;
	uint64_t id;
	__asm__ volatile("mrs %0, dczid_el0" : "=r"(id));
	bytes = (id & DCZID_DZP) ? 0 : (size_t)4 << (id & DCZID_BS_MASK);
	__atomic_store_n(&cached, bytes, __ATOMIC_RELAXED);
	return bytes;
}

void *pb_memset_dc_zva(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;

	if ((uint8_t)c != 0 || n <= PB_NT_MIN_BYTES)
		return pb_memset_neon(dst, c, n);
	size_t bs = zva_block_bytes();
	if (bs == 0)
		return pb_memset_neon(dst, c, n);
	uint8_t *first = (uint8_t *)(((uintptr_t)d + bs - 1) & ~(uintptr_t)(bs - 1));
	uint8_t *last = (uint8_t *)((uintptr_t)end & ~(uintptr_t)(bs - 1));
	/* A block larger than what lies inside [d, end) (up to 2 KiB): no
	 * whole block to zero. */
	if (first >= last)
		return pb_memset_neon(dst, c, n);
	pb_memset_neon(d, 0, (size_t)(first - d));
	for (uint8_t *p = first; p < last; p += bs)
		__asm__ volatile("dc zva, %0" : : "r"(p) : "memory");
	pb_memset_neon(last, 0, (size_t)(end - last));
	return dst;
}
