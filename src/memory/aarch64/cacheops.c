/* cacheops.c (arm64) - evicting buffers between timed batches.
 *
 * DC CIVAC (clean and invalidate data cache by VA to the Point of
 * Coherency; Arm ARM (DDI 0487) C5.3 "A64 System instructions for cache
 * maintenance", DC CIVAC) writes a dirty line back and drops it from every
 * cache level up to the PoC, here memory. EL0 may execute it when
 * SCTLR_EL1.UCI is 1 (D23.2 "SCTLR_EL1"), which Linux sets; where an
 * erratum makes Linux clear it, the kernel traps and emulates the
 * instruction (arch/arm64/kernel/traps.c, user_cache_maint_handler), so it
 * works in every Linux process, only slower there.
 *
 * The stride is the smallest data cache line of the hierarchy:
 * CTR_EL0.DminLine (bits 19:16, log2 of the line in 4-byte words; D23.2
 * "CTR_EL0, Cache Type Register"), readable at EL0 when SCTLR_EL1.UCT is 1
 * (Linux sets it, or traps and emulates the read on CPUs that need it).
 * Stepping by the smallest line reaches every line of every level.
 *
 * Completion: a DC by VA is guaranteed complete only after a DSB (Arm ARM
 * chapter D7, "The AArch64 System Level Memory Model": ordering and
 * completion of data cache maintenance instructions); DSB ISH waits for the invalidations in the
 * inner shareable domain, the one that holds every CPU's caches, so no CPU's load that follows
 * finds a line still in a cache. (Linux's dcache_clean_inval_poc uses DSB SY because a non-coherent
 * device may be the observer; the only observer here is this program.)
 */
#include <stdint.h>
#include <string.h>

#include "primbench/memory.h"

/* The smallest data cache line in bytes: 4 << CTR_EL0.DminLine. Read once
 * (an emulated read traps into the kernel); 64 if the register says less
 * than 16 bytes, which no implementation has. */
static uintptr_t dmin_line_bytes(void)
{
	static uintptr_t line; /* 0: not read yet; racing readers store the same value */
	uintptr_t l = __atomic_load_n(&line, __ATOMIC_RELAXED);
	if (l)
		return l;
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	l = (uintptr_t)4 << ((ctr >> 16) & 0xf);
	if (l < 16)
		l = 64;
	__atomic_store_n(&line, l, __ATOMIC_RELAXED);
	return l;
}

bool pb_flush_range(const void *p, size_t bytes)
{
	if (bytes == 0)
		return true;
	uintptr_t line = dmin_line_bytes();
	uintptr_t a = (uintptr_t)p & ~(line - 1);
	uintptr_t end = (uintptr_t)p + bytes;
	for (; a < end; a += line)
		__asm__ volatile("dc civac, %0" ::"r"(a) : "memory");
	__asm__ volatile("dsb ish" ::: "memory");
	return true;
}

/* STNP is only a hint (Arm ARM C3.2, load/store pair non-temporal: the
 * access may still allocate into the caches), so it cannot promise what
 * this function promises: ordinary stores, then every line cleaned and
 * invalidated to memory. */
void pb_fill_uncached(void *p, int value, size_t bytes)
{
	memset(p, value, bytes);
	pb_flush_range(p, bytes);
}
