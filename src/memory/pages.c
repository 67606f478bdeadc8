/* pages.c - page sizes: parse, probe, map, touch (primbench/pages.h). */
#define _GNU_SOURCE /* MAP_HUGETLB, MADV_HUGEPAGE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/io.h"
#include "primbench/memory.h"
#include "primbench/pages.h"
#include "primbench/sizes.h"

/* uapi values (include/uapi/asm-generic/hugetlb_encode.h, mman-common.h)
 * for older headers. */
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

static bool known_size(size_t b)
{
	return b == PB_PAGE_4K || b == PB_PAGE_2M || b == PB_PAGE_1G;
}

int pb_pages_parse(const char *list, size_t sizes[PB_PAGE_SIZES_MAX], size_t *n)
{
	*n = 0;
	if (!list || !*list)
		return pb_fail("empty page size list (4K, 2M or 1G)");
	const char *s = list;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char item[64];
		if (len == 0 || len >= sizeof item)
			return pb_fail("bad page size '%.*s' (4K, 2M or 1G)",
			               (int)(len > 40 ? 40 : len), s);
		memcpy(item, s, len);
		item[len] = '\0';
		uint64_t v;
		if (pb_parse_size(item, &v) != 0)
			return -1;
		if (!known_size((size_t)v) || v != (size_t)v)
			return pb_fail("bad page size '%s' (4K, 2M or 1G)", item);
		for (size_t i = 0; i < *n; i++)
			if (sizes[i] == (size_t)v)
				return pb_fail("page size %s given twice",
				               pb_pages_name((size_t)v));
		sizes[(*n)++] = (size_t)v; /* three distinct known sizes at most */
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

const char *pb_pages_name(size_t page_bytes)
{
	return page_bytes == PB_PAGE_4K   ? "4K"
	       : page_bytes == PB_PAGE_2M ? "2M"
	       : page_bytes == PB_PAGE_1G ? "1G"
	                                  : "?";
}

const char *pb_pages_source_name(enum pb_page_source s)
{
	switch (s) {
	case PB_PAGES_BASE:
		return "4K";
	case PB_PAGES_HUGETLB:
		return "hugetlbfs";
	case PB_PAGES_THP:
		return "THP";
	default:
		return "none";
	}
}

/* The first line of sysfs_mm/rel into buf (newline dropped, cut to
 * len - 1 bytes); false when unreadable. */
static bool read_line(const char *sysfs_mm, const char *rel, char *buf, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", sysfs_mm, rel);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char *text = pb_read_fd_all(fd, 4096, NULL); /* sysfs values are one short line */
	close(fd);
	if (!text)
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
	return true;
}

int pb_pages_probe_at(const char *sysfs_mm, size_t page_bytes, struct pb_pages_avail *out)
{
	if (!known_size(page_bytes))
		return pb_fail("page size %zu bytes: not 4K, 2M or 1G", page_bytes);
	memset(out, 0, sizeof *out);
	out->page_bytes = page_bytes;
	if (page_bytes == PB_PAGE_4K) {
		out->source = PB_PAGES_BASE;
		return 0;
	}
	char rel[96], line[256];
	snprintf(rel, sizeof rel, "hugepages/hugepages-%zukB/free_hugepages", page_bytes >> 10);
	unsigned long long free_pages = 0;
	if (read_line(sysfs_mm, rel, line, sizeof line) && sscanf(line, "%llu", &free_pages) == 1)
		out->free_pages = free_pages;
	if (page_bytes == PB_PAGE_2M &&
	    read_line(sysfs_mm, "transparent_hugepage/enabled", line, sizeof line))
		out->thp_enabled = strstr(line, "[always]") || strstr(line, "[madvise]");
	if (out->free_pages > 0)
		out->source = PB_PAGES_HUGETLB;
	else if (out->thp_enabled)
		out->source = PB_PAGES_THP;
	else
		out->source = PB_PAGES_NONE;
	return 0;
}

int pb_pages_probe(size_t page_bytes, struct pb_pages_avail *out)
{
	return pb_pages_probe_at("/sys/kernel/mm", page_bytes, out);
}

int pb_pages_skip_line(size_t page_bytes, char *buf, size_t len)
{
	if (page_bytes == PB_PAGE_2M)
		return snprintf(buf, len,
		                "2M pages: skipped: no hugetlbfs pages reserved and THP is off "
		                "(reserve some with sysctl vm.nr_hugepages=N or "
		                "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)");
	if (page_bytes == PB_PAGE_1G)
		return snprintf(buf, len,
		                "1G pages: skipped: no hugetlbfs pages reserved (reserve some "
		                "with /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages "
		                "or hugepagesz=1G hugepages=N at boot)");
	if (page_bytes == PB_PAGE_4K)
		return snprintf(buf, len, "4K pages: always available");
	return snprintf(buf, len, "page size %zu bytes: not 4K, 2M or 1G", page_bytes);
}

int pb_pages_map(size_t bytes, size_t page_bytes, enum pb_page_source source, bool populate,
                 struct pb_pages_region *r)
{
	memset(r, 0, sizeof *r);
	if (!known_size(page_bytes))
		return pb_fail("page size %zu bytes: not 4K, 2M or 1G", page_bytes);
	if (bytes == 0)
		return pb_fail("cannot map 0 bytes");
	if (bytes > SIZE_MAX - page_bytes)
		return pb_fail("mapping of %zu bytes is too large", bytes);
	size_t len = (bytes + page_bytes - 1) / page_bytes * page_bytes;
	const char *name = pb_pages_name(page_bytes);
	uint8_t *p;
	if (source == PB_PAGES_HUGETLB) {
		int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		            (page_bytes == PB_PAGE_1G ? MAP_HUGE_1GB : MAP_HUGE_2MB) |
		            (populate ? MAP_POPULATE : 0);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED)
			return pb_fail("mmap of %zu bytes of %s hugetlbfs pages failed: %s", len,
			               name, strerror(errno));
	} else if ((source == PB_PAGES_BASE && page_bytes == PB_PAGE_4K) ||
	           (source == PB_PAGES_THP && page_bytes == PB_PAGE_2M)) {
		bool thp = source == PB_PAGES_THP;
		/* pb_map aligns a THP mapping to 2 MiB and advises MADV_HUGEPAGE */
		p = pb_map(len, thp, true);
		if (!p)
			return -1;
		if (!thp && madvise(p, len, MADV_NOHUGEPAGE) != 0) {
			int err = errno;
			pb_unmap(p, len);
			return pb_fail("madvise(MADV_NOHUGEPAGE) on %zu bytes failed: %s", len,
			               strerror(err));
		}
		if (populate && madvise(p, len, MADV_POPULATE_WRITE) != 0) {
			int err = errno;
			pb_unmap(p, len);
			return pb_fail("madvise(MADV_POPULATE_WRITE) on %zu bytes failed: %s%s",
			               len, strerror(err),
			               err == EINVAL ? " (needs Linux 5.14)" : "");
		}
	} else {
		return pb_fail("%s pages cannot come from %s", name, pb_pages_source_name(source));
	}
	r->p = p;
	r->bytes = len;
	r->page_bytes = page_bytes;
	r->source = source;
	return 0;
}

void pb_pages_unmap(struct pb_pages_region *r)
{
	if (r->p)
		munmap(r->p, r->bytes);
	memset(r, 0, sizeof *r);
}

uint64_t pb_pages_touch(void *p, size_t bytes, size_t page_bytes)
{
	uint64_t n = 0;
	for (size_t off = 0; off < bytes; off += page_bytes, n++)
		((volatile uint8_t *)p)[off] = 1;
	return n;
}

uint64_t pb_smaps_anon_huge_bytes(const char *text, uintptr_t addr)
{
	bool inside = false;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		unsigned long lo, hi;
		char tail;
		/* A mapping's header: "lo-hi perms offset dev inode [path]". */
		if (sscanf(line, "%lx-%lx%c", &lo, &hi, &tail) == 3 && tail == ' ') {
			inside = addr >= lo && addr < hi;
		} else if (inside && sscanf(line, "AnonHugePages: %lu kB", &lo) == 1) {
			return (uint64_t)lo << 10;
		}
		line = nl ? nl + 1 : NULL;
	}
	return 0;
}

uint64_t pb_thp_bytes_at(const void *addr)
{
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char *buf = pb_read_fd_all(fd, 0, NULL);
	close(fd);
	if (!buf)
		return 0;
	uint64_t v = pb_smaps_anon_huge_bytes(buf, (uintptr_t)addr);
	free(buf);
	return v;
}
