/* primbench/memory.h - buffers: page-aligned mappings, and guarded buffers
 * for correctness tests (PROT_NONE pages on both sides, case M7).
 */
#ifndef PRIMBENCH_MEMORY_H
#define PRIMBENCH_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_PAGE_BYTES 4096u

/* Anonymous private mapping of at least `bytes` (rounded up to pages),
 * page aligned. huge: madvise(MADV_HUGEPAGE) (2 MiB aligned). Pages are
 * prefaulted (written) unless `fault_later`. Returns NULL with pb_error(). */
void *pb_map(size_t bytes, bool huge, bool fault_later);
void pb_unmap(void *p, size_t bytes);

/* The bits of the user address space: 47 on x86-64 with 4-level paging,
 * 56 with 5-level paging (Linux Documentation/arch/x86/x86_64/5level-
 * paging.rst: addresses above 47 bits only when mmap is asked for one),
 * 48 or 52 elsewhere. Found once by asking mmap(MAP_FIXED_NOREPLACE) for a
 * page at 2^55, 2^51, 2^47, 2^46 (an address taken already counts: it
 * exists). 47 when every probe fails. */
unsigned pb_user_address_bits(void);

/* Two anonymous private mappings at a fixed distance: a of a_bytes, and b
 * of b_bytes starting at a + b_offset_bytes (signed, a multiple of 4096;
 * the two must not overlap). Addresses are picked from the gaps of
 * /proc/self/maps above 4 GiB and below 2^pb_user_address_bits(), and
 * mapped with MAP_FIXED_NOREPLACE (Linux 4.17, mmap(2)), so only these
 * pages are mapped however far apart they are. Pages are not prefaulted.
 * Returns 0, or -1 with pb_error() ("no room for two mappings 2^50 bytes
 * apart in the 47-bit address space"). Unmap each with pb_unmap(). */
int pb_map_pair(size_t a_bytes, int64_t b_offset_bytes, size_t b_bytes, void **a, void **b);

/* A region of `bytes` usable bytes from `base`, with a PROT_NONE page
 * right before `base` and right after base + bytes. */
struct pb_guarded {
	void *map; /* whole mapping (munmap target) */
	size_t map_bytes;
	uint8_t *base; /* first byte after the lower guard page (page aligned) */
	size_t bytes;  /* usable bytes from base (multiple of 4096) */
};

/* Maps `bytes` (rounded up to pages) between two guard pages.
 * Returns 0 or -1 with pb_error(). */
int pb_guarded_alloc(struct pb_guarded *g, size_t bytes);
void pb_guarded_free(struct pb_guarded *g);

/* Writes `value` over [p, p+bytes) without leaving the lines in any cache
 * level: non-temporal stores + sfence where the CPU has them (x86-64:
 * movnti, Intel SDM Vol. 1 10.4.6.2), else ordinary stores followed by
 * pb_flush_range() (arm64, where STNP is only a hint). Used to refill
 * buffers between timed batches. */
void pb_fill_uncached(void *p, int value, size_t bytes);

/* Evicts every cache line of [p, p+bytes) from all cache levels
 * (x86-64: clflushopt when usable, else clflush; Intel SDM Vol. 2A
 * CLFLUSHOPT; arm64: DC CIVAC per CTR_EL0.DminLine bytes, Arm ARM C5.3),
 * then fences (mfence; DSB ISH) and returns true. On architectures without
 * a user-mode flush: does nothing and returns false (callers rely on
 * rotation through a large working set). */
bool pb_flush_range(const void *p, size_t bytes);

#endif
