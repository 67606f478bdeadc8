/* primbench/pages.h - page sizes (4K, 2M, 1G): the --pages grammar, whether
 * a size is available on this machine and from where, mapping a region of
 * one size, and the one line that says how to reserve pages when it is not
 * (docs/methodology.md "Page sizes").
 *
 * Sources: 4K is always there (ordinary anonymous pages, MADV_NOHUGEPAGE so
 * THP in "always" mode does not turn them into 2 MiB ones). 2M comes from
 * hugetlbfs when the pool has free pages (/sys/kernel/mm/hugepages/
 * hugepages-2048kB/free_hugepages > 0: mmap MAP_HUGETLB | MAP_HUGE_2MB),
 * else from transparent huge pages when THP is "always" or "madvise"
 * (madvise(MADV_HUGEPAGE) on a 2 MiB aligned mapping; whether the kernel
 * really gave huge pages is seen afterwards in /proc/self/smaps'
 * AnonHugePages, pb_thp_bytes_at). 1G comes only from hugetlbfs
 * (hugepages-1048576kB, MAP_HUGE_1GB). Nothing here reserves pages.
 * Kernel sources: Documentation/admin-guide/mm/hugetlbpage.rst and
 * transhuge.rst; mmap(2), madvise(2).
 */
#ifndef PRIMBENCH_PAGES_H
#define PRIMBENCH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/memory.h"

/* PB_PAGE_BYTES (memory.h) is the one definition of the base page. */
#define PB_PAGE_4K        ((size_t)PB_PAGE_BYTES)
#define PB_PAGE_2M        ((size_t)2 << 20)
#define PB_PAGE_1G        ((size_t)1 << 30)
#define PB_PAGE_SIZES_MAX 3 /* 4K, 2M, 1G: a --pages list has at most these */

/* Where a region's pages come from. */
enum pb_page_source {
	PB_PAGES_NONE,    /* not available here */
	PB_PAGES_BASE,    /* 4 KiB base pages */
	PB_PAGES_HUGETLB, /* hugetlbfs pool (reserved pages) */
	PB_PAGES_THP,     /* transparent huge pages (madvise) */
};

/* Parses a --pages list: comma-separated page sizes, each 4K, 2M or 1G in
 * the size grammar of sizes.h (4096, 4KiB, 2m, 0x200000 ... as long as the
 * value is one of the three). Fills sizes[0..*n) in list order (bytes).
 * Returns 0, or -1 with pb_error(): "bad page size '3M' (4K, 2M or 1G)",
 * "page size 2M given twice", "empty page size list", or sizes.h's error
 * for text that is not a size. */
int pb_pages_parse(const char *list, size_t sizes[PB_PAGE_SIZES_MAX], size_t *n);

/* "4K", "2M", "1G", or "?" for any other value. */
const char *pb_pages_name(size_t page_bytes);

/* "4K", "hugetlbfs", "THP" or "none". */
const char *pb_pages_source_name(enum pb_page_source s);

/* What this machine offers for one page size. */
struct pb_pages_avail {
	size_t page_bytes;
	enum pb_page_source source; /* PB_PAGES_NONE: not available */
	uint64_t free_pages;        /* hugetlbfs: free pages of this size in the
	                               pool (0 when none or unreadable) */
	bool thp_enabled;           /* 2M: THP is "always" or "madvise" */
};

/* Finds where page_bytes (PB_PAGE_4K, _2M or _1G) can come from, reading
 * sysfs_mm (normally "/sys/kernel/mm"; tests pass a directory of their
 * own): hugepages/hugepages-<kB>kB/free_hugepages and
 * transparent_hugepage/enabled (the word in brackets). A file that cannot
 * be read counts as none. Returns 0, or -1 with pb_error() for any other
 * page size. */
int pb_pages_probe_at(const char *sysfs_mm, size_t page_bytes, struct pb_pages_avail *out);

/* The same for this machine ("/sys/kernel/mm"). */
int pb_pages_probe(size_t page_bytes, struct pb_pages_avail *out);

/* The one line printed for a page size that is not available (no newline),
 * into buf[len] (cut to fit, always terminated); returns snprintf's length:
 *   2M: "2M pages: skipped: no hugetlbfs pages reserved and THP is off
 *       (reserve some with sysctl vm.nr_hugepages=N or
 *       /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)"
 *   1G: "1G pages: skipped: no hugetlbfs pages reserved (reserve some with
 *       /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages or
 *       hugepagesz=1G hugepages=N at boot)"
 * 4K is always available: its line says so. */
int pb_pages_skip_line(size_t page_bytes, char *buf, size_t len);

/* A mapped region of one page size. */
struct pb_pages_region {
	uint8_t *p;   /* first byte, aligned to page_bytes (NULL: none) */
	size_t bytes; /* mapped length: the request rounded up to page_bytes */
	size_t page_bytes;
	enum pb_page_source source;
};

/* Maps `bytes` (rounded up to page_bytes) anonymous private read-write
 * memory of page_bytes pages from `source` (a pb_pages_probe answer, not
 * NONE). populate: the pages are faulted in before it returns (hugetlbfs:
 * MAP_POPULATE; 4K and THP: madvise(MADV_POPULATE_WRITE), Linux 5.14,
 * after the MADV_[NO]HUGEPAGE advice, since MAP_POPULATE would fault
 * before the advice could pick the page size); else no page is touched.
 * Returns 0, or -1 with pb_error() (mmap's or madvise's errno: hugetlbfs
 * says ENOMEM when the pool has fewer free pages than asked). */
int pb_pages_map(size_t bytes, size_t page_bytes, enum pb_page_source source, bool populate,
                 struct pb_pages_region *r);

/* munmap of the region; r is cleared. A cleared region is fine. */
void pb_pages_unmap(struct pb_pages_region *r);

/* Demand-faults [p, p + bytes): one volatile byte write at the start of
 * each page of `page_bytes` (a write, not a read, so no shared zero page is
 * mapped). Returns the pages touched: ceil(bytes / page_bytes). */
uint64_t pb_pages_touch(void *p, size_t bytes, size_t page_bytes);

/* AnonHugePages (bytes) of the mapping of smaps `text` (proc(5) format)
 * that contains `addr`; 0 when none, or the mapping is not there. */
uint64_t pb_smaps_anon_huge_bytes(const char *text, uintptr_t addr);

/* The same from /proc/self/smaps (0 when unreadable). */
uint64_t pb_thp_bytes_at(const void *addr);

#endif
