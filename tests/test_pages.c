/* test_pages.c - page sizes (primbench/pages.h): the --pages grammar and
 * its errors, the probe on fake sysfs trees (the "not available" path and
 * its one skip line, always), mapping and touching 4K pages, and the
 * huge-page paths only when this machine happens to offer them (skipped
 * otherwise: tests never reserve pages). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/mem.h"
#include "primbench/pages.h"

static void test_parse(void **state)
{
	(void)state;
	size_t s[PB_PAGE_SIZES_MAX], n;
	assert_int_equal(pb_pages_parse("4K,2M,1G", s, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(s[0], 4096);
	assert_int_equal(s[1], 2u << 20);
	assert_int_equal(s[2], 1u << 30);
	assert_int_equal(pb_pages_parse("2m", s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[0], PB_PAGE_2M);
	assert_int_equal(pb_pages_parse("1G,4096", s, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(s[0], PB_PAGE_1G);
	assert_int_equal(s[1], PB_PAGE_4K);
	assert_string_equal(pb_pages_name(PB_PAGE_4K), "4K");
	assert_string_equal(pb_pages_name(PB_PAGE_2M), "2M");
	assert_string_equal(pb_pages_name(PB_PAGE_1G), "1G");
	assert_string_equal(pb_pages_name(8192), "?");
}

static void test_parse_errors(void **state)
{
	(void)state;
	size_t s[PB_PAGE_SIZES_MAX], n;
	assert_int_equal(pb_pages_parse("3M", s, &n), -1);
	assert_string_equal(pb_error(), "bad page size '3M' (4K, 2M or 1G)");
	assert_int_equal(pb_pages_parse("4K,4096", s, &n), -1);
	assert_string_equal(pb_error(), "page size 4K given twice");
	assert_int_equal(pb_pages_parse("", s, &n), -1);
	assert_string_equal(pb_error(), "empty page size list (4K, 2M or 1G)");
	assert_int_equal(pb_pages_parse("4K,", s, &n), -1);
	assert_string_equal(pb_error(), "bad page size '' (4K, 2M or 1G)");
	assert_int_equal(pb_pages_parse("huge", s, &n), -1);
	assert_non_null(strstr(pb_error(), "'huge'"));
}

/* A fake sysfs mm directory: free_2m and free_1g pages, THP `enabled`. */
static char *fake_sysfs(const char *free_2m, const char *free_1g, const char *thp)
{
	char *dir = strdup("/tmp/pb-test-pages-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char path[512];
	const char *sub[] = {"hugepages", "hugepages/hugepages-2048kB",
	                     "hugepages/hugepages-1048576kB", "transparent_hugepage"};
	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, sub[i]);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	const char *files[][2] = {{"hugepages/hugepages-2048kB/free_hugepages", free_2m},
	                          {"hugepages/hugepages-1048576kB/free_hugepages", free_1g},
	                          {"transparent_hugepage/enabled", thp}};
	for (size_t i = 0; i < 3; i++) {
		if (!files[i][1])
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", files[i][1]);
		fclose(f);
	}
	return dir;
}

static void rm_fake(char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static void test_probe_none(void **state)
{
	(void)state;
	char *d = fake_sysfs("0", "0", "always madvise [never]");
	struct pb_pages_avail a;
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_4K, &a), 0);
	assert_int_equal(a.source, PB_PAGES_BASE);
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_2M, &a), 0);
	assert_int_equal(a.source, PB_PAGES_NONE);
	assert_false(a.thp_enabled);
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_1G, &a), 0);
	assert_int_equal(a.source, PB_PAGES_NONE);
	assert_int_equal(pb_pages_probe_at(d, 8192, &a), -1);
	rm_fake(d);
	/* nothing readable at all: 4K only */
	assert_int_equal(pb_pages_probe_at("/nonexistent/pb", PB_PAGE_2M, &a), 0);
	assert_int_equal(a.source, PB_PAGES_NONE);
	assert_int_equal(pb_pages_probe_at("/nonexistent/pb", PB_PAGE_1G, &a), 0);
	assert_int_equal(a.source, PB_PAGES_NONE);
}

static void test_probe_sources(void **state)
{
	(void)state;
	struct pb_pages_avail a;
	char *d = fake_sysfs("0", "0", "always [madvise] never");
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_2M, &a), 0);
	assert_int_equal(a.source, PB_PAGES_THP);
	assert_true(a.thp_enabled);
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_1G, &a), 0);
	assert_int_equal(a.source, PB_PAGES_NONE); /* 1G never from THP */
	rm_fake(d);
	d = fake_sysfs("16", "2", "[always] madvise never");
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_2M, &a), 0);
	assert_int_equal(a.source, PB_PAGES_HUGETLB); /* hugetlbfs before THP */
	assert_int_equal(a.free_pages, 16);
	assert_int_equal(pb_pages_probe_at(d, PB_PAGE_1G, &a), 0);
	assert_int_equal(a.source, PB_PAGES_HUGETLB);
	assert_int_equal(a.free_pages, 2);
	rm_fake(d);
	assert_string_equal(pb_pages_source_name(PB_PAGES_HUGETLB), "hugetlbfs");
	assert_string_equal(pb_pages_source_name(PB_PAGES_THP), "THP");
}

static void test_skip_lines(void **state)
{
	(void)state;
	char buf[512];
	pb_pages_skip_line(PB_PAGE_2M, buf, sizeof buf);
	assert_string_equal(buf, "2M pages: skipped: no hugetlbfs pages reserved and THP is off "
	                         "(reserve some with sysctl vm.nr_hugepages=N or "
	                         "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)");
	pb_pages_skip_line(PB_PAGE_1G, buf, sizeof buf);
	assert_string_equal(buf, "1G pages: skipped: no hugetlbfs pages reserved (reserve some "
	                         "with /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages "
	                         "or hugepagesz=1G hugepages=N at boot)");
	assert_null(strchr(buf, '\n'));
	char small[8];
	int need = pb_pages_skip_line(PB_PAGE_1G, small, sizeof small);
	assert_true(need > (int)sizeof small);
	assert_int_equal(strlen(small), sizeof small - 1);
}

/* 4K: map without touching, touch one byte per page, count; populate. */
static void test_map_4k(void **state)
{
	(void)state;
	struct pb_pages_region r;
	assert_int_equal(pb_pages_map(8u << 20, PB_PAGE_4K, PB_PAGES_BASE, false, &r), 0);
	assert_non_null(r.p);
	assert_int_equal(r.bytes, 8u << 20);
	assert_int_equal((uintptr_t)r.p % 4096, 0);
	assert_int_equal(pb_pages_touch(r.p, r.bytes, r.page_bytes), (8u << 20) / 4096);
	assert_int_equal(r.p[4096], 1);
	assert_int_equal(pb_thp_bytes_at(r.p), 0); /* MADV_NOHUGEPAGE */
	pb_pages_unmap(&r);
	assert_null(r.p);
	pb_pages_unmap(&r); /* a cleared region is fine */
	/* rounded up to the page size */
	assert_int_equal(pb_pages_map(5000, PB_PAGE_4K, PB_PAGES_BASE, true, &r), 0);
	assert_int_equal(r.bytes, 8192);
	pb_pages_unmap(&r);
	assert_int_equal(pb_pages_map(0, PB_PAGE_4K, PB_PAGES_BASE, false, &r), -1);
	assert_int_equal(pb_pages_map(4096, PB_PAGE_1G, PB_PAGES_THP, false, &r), -1);
	assert_string_equal(pb_error(), "1G pages cannot come from THP");
	assert_int_equal(pb_pages_touch(NULL, 0, PB_PAGE_2M), 0);
}

/* The huge sizes this machine offers: mapped and faulted; THP verified in
 * smaps when the kernel gave huge pages. Skipped when neither is here. */
static void test_map_huge_when_available(void **state)
{
	(void)state;
	bool any = false;
	const size_t sizes[] = {PB_PAGE_2M, PB_PAGE_1G};
	for (size_t i = 0; i < 2; i++) {
		struct pb_pages_avail a;
		assert_int_equal(pb_pages_probe(sizes[i], &a), 0);
		if (a.source == PB_PAGES_NONE)
			continue;
		any = true;
		struct pb_pages_region r;
		size_t bytes = 2 * sizes[i];
		if (a.source == PB_PAGES_HUGETLB && a.free_pages < 2)
			bytes = sizes[i];
		if (pb_pages_map(bytes, sizes[i], a.source, false, &r) != 0) {
			print_message("%s: %s\n", pb_pages_name(sizes[i]), pb_error());
			continue; /* the pool emptied meanwhile: not this test's business */
		}
		assert_int_equal((uintptr_t)r.p % sizes[i], 0);
		assert_int_equal(pb_pages_touch(r.p, r.bytes, r.page_bytes), bytes / sizes[i]);
		if (a.source == PB_PAGES_THP)
			print_message("THP: %llu bytes of huge pages seen in smaps\n",
			              (unsigned long long)pb_thp_bytes_at(r.p));
		pb_pages_unmap(&r);
	}
	if (!any)
		skip();
}

static void test_smaps_parser(void **state)
{
	(void)state;
	const char *t = "7f3a00000000-7f3a00600000 rw-p 00000000 00:00 0 \n"
	                "Size:               6144 kB\n"
	                "AnonHugePages:      4096 kB\n"
	                "7f3a00600000-7f3a00800000 rw-p 00000000 00:00 0 \n"
	                "AnonHugePages:         0 kB\n";
	assert_int_equal(pb_smaps_anon_huge_bytes(t, 0x7f3a00000000ul), 4096u << 10);
	assert_int_equal(pb_smaps_anon_huge_bytes(t, 0x7f3a00600000ul), 0);
	assert_int_equal(pb_smaps_anon_huge_bytes(t, 0x1000), 0);
}

/* mem --pages (issue 22): the sizes not available are the pages module's
 * one line each, in the notes, and no size for them; 2M from THP when it
 * is on. */
static void test_mem_pages_avail(void **state)
{
	(void)state;
	char *d = fake_sysfs("0", "0", "always [madvise] never");
	size_t want[] = {PB_PAGE_4K, PB_PAGE_1G, PB_PAGE_2M}, got[PB_PAGE_SIZES_MAX], n = 9;
	enum pb_page_source src[PB_PAGE_SIZES_MAX];
	char notes[1024] = "";
	assert_int_equal(pb_mem_pages_avail(d, want, 3, got, src, &n, notes, sizeof notes), 0);
	assert_int_equal(n, 2);
	assert_int_equal(got[0], PB_PAGE_4K);
	assert_int_equal(src[0], PB_PAGES_BASE);
	assert_int_equal(got[1], PB_PAGE_2M);
	assert_int_equal(src[1], PB_PAGES_THP);
	char line[320];
	pb_pages_skip_line(PB_PAGE_1G, line, sizeof line);
	strcat(line, "\n");
	assert_string_equal(notes, line);
	assert_non_null(strstr(notes, "hugepages-1048576kB/nr_hugepages"));
	rm_fake(d);

	d = fake_sysfs("0", "0", "always madvise [never]");
	notes[0] = '\0';
	size_t two[] = {PB_PAGE_2M};
	assert_int_equal(pb_mem_pages_avail(d, two, 1, got, src, &n, notes, sizeof notes), 0);
	assert_int_equal(n, 0);
	assert_non_null(strstr(notes, "2M pages: skipped"));
	assert_int_equal(strchr(notes, '\n') - notes + 1, (long)strlen(notes)); /* one line */
	rm_fake(d);

	d = fake_sysfs("3", "0", "always madvise [never]");
	notes[0] = '\0';
	assert_int_equal(pb_mem_pages_avail(d, two, 1, got, src, &n, notes, sizeof notes), 0);
	assert_int_equal(n, 1);
	assert_int_equal(src[0], PB_PAGES_HUGETLB);
	assert_string_equal(notes, "");
	rm_fake(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_probe_none),
	    cmocka_unit_test(test_probe_sources),
	    cmocka_unit_test(test_skip_lines),
	    cmocka_unit_test(test_map_4k),
	    cmocka_unit_test(test_map_huge_when_available),
	    cmocka_unit_test(test_smaps_parser),
	    cmocka_unit_test(test_mem_pages_avail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
