/* buffer.c - page-aligned mappings and guarded buffers (memory.h). */
#define _GNU_SOURCE /* MAP_FIXED_NOREPLACE */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "primbench/error.h"
#include "primbench/memory.h"
#include "primbench/pages.h"

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
	size_t extra = huge ? PB_PAGE_2M : 0;
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
		p = (uint8_t *)(((uintptr_t)raw + PB_PAGE_2M - 1) & ~(uintptr_t)(PB_PAGE_2M - 1));
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

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17 uapi value */
#endif

/* Maps [addr, addr + bytes) exactly, or fails with errno (EEXIST: taken).
 * A kernel older than 4.17 takes the flag as a hint: a mapping elsewhere
 * is undone and reported as EEXIST. */
static void *map_exact(uintptr_t addr, size_t bytes)
{
	void *p = mmap((void *)addr, bytes, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if ((uintptr_t)p != addr) {
		munmap(p, bytes);
		errno = EEXIST;
		return NULL;
	}
	return p;
}

unsigned pb_user_address_bits(void)
{
	static unsigned bits;
	if (bits)
		return bits;
	static const unsigned probe[] = {56, 52, 48, 47};
	bits = 47;
	for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
		if (probe[i] - 1 >= sizeof(uintptr_t) * 8)
			continue;
		void *p = map_exact((uintptr_t)1 << (probe[i] - 1), PB_PAGE_BYTES);
		if (p || errno == EEXIST) {
			if (p)
				munmap(p, PB_PAGE_BYTES);
			bits = probe[i];
			break;
		}
	}
	return bits;
}

/* The free gaps of this process's address space in [lo, hi): the
 * complement of /proc/self/maps (sorted by address). Returns how many
 * were stored (at most cap), or -1. */
static int free_gaps(uint64_t lo, uint64_t hi, uint64_t (*gap)[2], int cap)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	char line[512];
	uint64_t at = lo;
	int n = 0;
	while (n < cap && fgets(line, sizeof line, f)) {
		unsigned long long a, b;
		if (sscanf(line, "%llx-%llx", &a, &b) != 2)
			continue;
		if (a > at && at < hi)
			gap[n][0] = at, gap[n][1] = a < hi ? a : hi, n++;
		if (b > at)
			at = b;
		/* a line longer than the buffer: skip its rest */
		while (!strchr(line, '\n') && fgets(line, sizeof line, f))
			;
	}
	fclose(f);
	if (n < cap && at < hi)
		gap[n][0] = at, gap[n][1] = hi, n++;
	return n;
}

int pb_map_pair(size_t a_bytes, int64_t b_offset_bytes, size_t b_bytes, void **a, void **b)
{
	*a = *b = NULL;
	size_t la = round_to_pages(a_bytes), lb = round_to_pages(b_bytes);
	if (la == 0 || lb == 0 || b_offset_bytes % (int64_t)PB_PAGE_BYTES != 0)
		return pb_fail("pb_map_pair: bad sizes or offset");
	if ((b_offset_bytes >= 0 && (uint64_t)b_offset_bytes < la) ||
	    (b_offset_bytes < 0 && (uint64_t)-b_offset_bytes < lb))
		return pb_fail("pb_map_pair: the two mappings overlap");
	unsigned bits = pb_user_address_bits();
	/* Above 4 GiB: the program, its heap and 32-bit users stay apart. */
	const uint64_t lo = (uint64_t)1 << 32, hi = ((uint64_t)1 << bits) - PB_PAGE_BYTES;
	for (int attempt = 0; attempt < 8; attempt++) {
		uint64_t gap[512][2];
		int n = free_gaps(lo, hi, gap, 512);
		if (n < 0)
			return pb_fail("cannot read /proc/self/maps: %s", strerror(errno));
		/* The lowest A with [A, A + la) in one gap and [A + off,
		 * A + off + lb) in another (or the same). */
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < n; i++) {
			if (gap[i][1] - gap[i][0] < la)
				continue;
			for (int j = 0; j < n; j++) {
				if (gap[j][1] - gap[j][0] < lb)
					continue;
				/* A in [gi0, gi1 - la] and A + off in [gj0, gj1 - lb] */
				__int128 lo_a = gap[i][0], hi_a = (__int128)gap[i][1] - la;
				__int128 lo_b = (__int128)gap[j][0] - b_offset_bytes;
				__int128 hi_b = (__int128)gap[j][1] - lb - b_offset_bytes;
				__int128 x = lo_a > lo_b ? lo_a : lo_b;
				__int128 y = hi_a < hi_b ? hi_a : hi_b;
				if (x <= y && x >= (__int128)lo && (uint64_t)x < best)
					best = (uint64_t)x;
			}
		}
		if (best == UINT64_MAX)
			return pb_fail(
			    "no room for two mappings %lld bytes apart in the %u-bit user "
			    "address space",
			    (long long)b_offset_bytes, bits);
		void *pa = map_exact((uintptr_t)best, la);
		if (!pa) {
			if (errno == EEXIST)
				continue; /* another thread mapped there meanwhile */
			return pb_fail("mmap of %zu bytes at %#llx failed: %s", la,
			               (unsigned long long)best, strerror(errno));
		}
		void *pb = map_exact((uintptr_t)((__int128)best + b_offset_bytes), lb);
		if (!pb) {
			int err = errno;
			munmap(pa, la);
			if (err == EEXIST)
				continue;
			return pb_fail("mmap of %zu bytes at %#llx failed: %s", lb,
			               (unsigned long long)(best + (uint64_t)b_offset_bytes),
			               strerror(err));
		}
		*a = pa;
		*b = pb;
		return 0;
	}
	return pb_fail("the address space kept changing while mapping two buffers");
}
