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

/* A region of `len` usable bytes with a PROT_NONE page right before
 * `lo_page` and right after the last usable byte's page. */
struct pb_guarded {
	void *map;       /* whole mapping (munmap target) */
	size_t map_bytes;
	uint8_t *base;   /* first byte after the lower guard page (page aligned) */
	size_t bytes;    /* usable bytes from base (multiple of 4096) */
};

/* Maps `bytes` (rounded up to pages) between two guard pages.
 * Returns 0 or -1 with pb_error(). */
int pb_guarded_alloc(struct pb_guarded *g, size_t bytes);
void pb_guarded_free(struct pb_guarded *g);

#endif
