/* buffer.c - page-aligned mappings and guarded buffers (memory.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "primbench/error.h"
#include "primbench/memory.h"

#define HUGE_PAGE_BYTES ((size_t)2 << 20)

/* Rounds up to whole pages; 0 when that overflows. */
static size_t round_to_pages(size_t bytes)
{
	if (bytes > SIZE_MAX - (PB_PAGE_BYTES - 1))
		return 0;
	return (bytes + PB_PAGE_BYTES - 1) & ~(size_t)(PB_PAGE_BYTES - 1);
}

void *pb_map(size_t bytes, bool huge, bool fault_later)
{
	size_t len = round_to_pages(bytes);
	if (len == 0) {
		if (bytes)
			pb_fail("mapping of %zu bytes is too large", bytes);
		else
			pb_fail("cannot map 0 bytes");
		return NULL;
	}
	/* For huge pages, over-map by 2 MiB and trim both ends so the mapping
	 * starts on a 2 MiB boundary and is exactly `len` long (pb_unmap then
	 * needs only `bytes`). */
	size_t extra = huge ? HUGE_PAGE_BYTES : 0;
	if (len > SIZE_MAX - extra) {
		pb_fail("mapping of %zu bytes is too large", bytes);
		return NULL;
	}
	uint8_t *raw =
	    mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		pb_fail("mmap of %zu bytes failed: %s", len + extra, strerror(errno));
		return NULL;
	}
	uint8_t *p = raw;
	if (huge) {
		p = (uint8_t *)(((uintptr_t)raw + HUGE_PAGE_BYTES - 1) &
		                ~(uintptr_t)(HUGE_PAGE_BYTES - 1));
		if (p > raw)
			munmap(raw, (size_t)(p - raw));
		if (raw + extra > p)
			munmap(p + len, (size_t)(raw + extra - p));
		if (madvise(p, len, MADV_HUGEPAGE) != 0) {
			int err = errno;
			munmap(p, len);
			pb_fail("madvise(MADV_HUGEPAGE) on %zu bytes failed: %s (transparent huge "
			        "pages disabled?)",
			        len, strerror(err));
			return NULL;
		}
	}
	if (!fault_later) {
		/* A write per page: a read would map the shared zero page, and the
		 * first write would then still fault. Volatile: the compiler must
		 * not drop stores it might think redundant. */
		for (size_t off = 0; off < len; off += PB_PAGE_BYTES)
			((volatile uint8_t *)p)[off] = 0;
	}
	return p;
}

void pb_unmap(void *p, size_t bytes)
{
	if (p)
		munmap(p, round_to_pages(bytes));
}

int pb_guarded_alloc(struct pb_guarded *g, size_t bytes)
{
	size_t len = round_to_pages(bytes);
	if (bytes && len == 0)
		return pb_fail("guarded buffer of %zu bytes is too large", bytes);
	if (len > SIZE_MAX - 2 * PB_PAGE_BYTES)
		return pb_fail("guarded buffer of %zu bytes is too large", bytes);
	size_t map_bytes = len + 2 * PB_PAGE_BYTES;
	uint8_t *map = mmap(NULL, map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return pb_fail("mmap of %zu bytes failed: %s", map_bytes, strerror(errno));
	if (len && mprotect(map + PB_PAGE_BYTES, len, PROT_READ | PROT_WRITE) != 0) {
		int err = errno;
		munmap(map, map_bytes);
		return pb_fail("mprotect of %zu bytes failed: %s", len, strerror(err));
	}
	g->map = map;
	g->map_bytes = map_bytes;
	g->base = map + PB_PAGE_BYTES;
	g->bytes = len;
	return 0;
}

void pb_guarded_free(struct pb_guarded *g)
{
	if (g->map)
		munmap(g->map, g->map_bytes);
	g->map = NULL;
	g->map_bytes = 0;
	g->base = NULL;
	g->bytes = 0;
}
