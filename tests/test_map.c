/* test_map.c - `mem map`'s accounting (primbench/map.h), never its speed:
 * the split of a region over threads, the per-page figures, the memory
 * cap, runs on a small 4K region (8 MiB: pages = size / page size, bytes
 * and samples) with one and two threads, demand and populate, the skipped
 * sizes of a fake sysfs with no huge pages, and the JSON cases. */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/map.h"
#include "primbench/pages.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/timer.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

static void test_split(void **state)
{
	(void)state;
	uint64_t pages;
	size_t bytes;
	assert_true(pb_map_split(8u << 20, PB_PAGE_4K, 1, &pages, &bytes));
	assert_int_equal(pages, 2048);
	assert_int_equal(bytes, 8u << 20);
	assert_true(pb_map_split(8u << 20, PB_PAGE_2M, 1, &pages, &bytes));
	assert_int_equal(pages, 4);
	assert_int_equal(bytes, 8u << 20);
	/* 3 threads: whole pages per thread, the rest left out */
	assert_true(pb_map_split(8u << 20, PB_PAGE_2M, 3, &pages, &bytes));
	assert_int_equal(pages, 3);
	assert_int_equal(bytes, 6u << 20);
	assert_true(pb_map_split((8u << 20) + 100, PB_PAGE_4K, 2, &pages, &bytes));
	assert_int_equal(pages, 2048);
	/* fewer pages than threads */
	assert_false(pb_map_split(1u << 30, PB_PAGE_1G, 2, &pages, &bytes));
	assert_int_equal(pages, 0);
	assert_false(pb_map_split(4095, PB_PAGE_4K, 1, &pages, &bytes));
}

static void test_figures(void **state)
{
	(void)state;
	struct pb_map_figures f;
	/* 4 KiB in 1000 ns: 4.096 GB/s */
	pb_map_figures_of(PB_PAGE_4K, 1000, &f);
	assert_true(fabs(f.gb_per_s - 4.096) < 1e-12);
	assert_true(fabs(f.ns_per_4k - 1000) < 1e-12);
	assert_true(fabs(f.ns_per_page - 1000) < 1e-12);
	/* a 2 MiB page in 204800 ns: 400 ns per 4 KiB, 10.24 GB/s */
	pb_map_figures_of(PB_PAGE_2M, 204800, &f);
	assert_true(fabs(f.ns_per_4k - 400) < 1e-9);
	assert_true(fabs(f.gb_per_s - 10.24) < 1e-9);
	pb_map_figures_of(PB_PAGE_1G, 0, &f);
	assert_true(isnan(f.gb_per_s));
}

static void test_cap_and_modes(void **state)
{
	(void)state;
	bool capped;
	assert_int_equal(pb_map_size_cap(1u << 30, 4ull << 30, &capped), 1u << 30);
	assert_false(capped);
	assert_int_equal(pb_map_size_cap(1u << 30, 1ull << 30, &capped), 512u << 20);
	assert_true(capped);
	assert_int_equal(pb_map_size_cap(1u << 30, 0, &capped), 1u << 30); /* unknown */
	assert_false(capped);
	assert_true(pb_map_mem_available() > 0);
	enum pb_map_fault f;
	assert_int_equal(pb_map_fault_parse("populate", &f), 0);
	assert_int_equal(f, PB_MAP_POPULATE);
	assert_string_equal(pb_map_fault_name(f), "populate");
	assert_int_equal(pb_map_fault_parse("demand", &f), 0);
	assert_int_equal(f, PB_MAP_DEMAND);
	assert_int_equal(pb_map_fault_parse("lazy", &f), -1);
	assert_string_equal(pb_error(), "unknown fault mode 'lazy' (demand or populate)");
}

/* 8 MiB of 4K pages, 1 and 2 threads; 2M and 1G skipped by a sysfs
 * without huge pages. */
static void run_small(enum pb_map_fault fault)
{
	unsigned counts[] = {1, 2};
	struct pb_map_params p = {
	    .bytes = 8u << 20,
	    .page_sizes = {PB_PAGE_4K, PB_PAGE_2M, PB_PAGE_1G},
	    .n_page_sizes = 3,
	    .fault = fault,
	    .threads = counts,
	    .n_threads = 2,
	    .rounds = 3,
	    .warmup = 1,
	    .seed = 7,
	    .sysfs_mm = "/nonexistent/pb-test-map",
	};
	struct pb_map_result r;
	if (pb_map_run(&p, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(r.n_cases, 6);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_map_case *c = &r.cases[i];
		assert_int_equal(c->threads, counts[i / 3]);
		assert_int_equal(c->fault, fault);
		if (c->page_bytes != PB_PAGE_4K) {
			assert_int_equal(c->source, PB_PAGES_NONE);
			assert_non_null(strstr(c->skip, "skipped: no hugetlbfs pages reserved"));
			assert_int_equal(c->n_samples, 0);
			continue;
		}
		assert_int_equal(c->source, PB_PAGES_BASE);
		assert_string_equal(c->skip, "");
		assert_int_equal(c->pages, (8u << 20) / 4096);
		assert_int_equal(c->bytes, 8u << 20);
		assert_int_equal(c->n_samples + c->migrations, 3);
		for (size_t j = 0; j < c->n_samples; j++) {
			assert_int_equal(c->calls[j], 2048);
			assert_true(c->ticks[j] >= 0);
		}
		if (c->n_samples) {
			assert_int_equal(c->per_page.n, c->n_samples);
			/* per page = the sample's ticks / its pages */
			assert_true(c->per_page.min * 2048 <= c->ticks[0] * (1 + 1e-9));
		}
	}
	/* the two skip lines, once each, among the notes */
	assert_non_null(strstr(r.notes,
	                       "2M pages: skipped: no hugetlbfs pages reserved and THP "
	                       "is off (reserve some with sysctl vm.nr_hugepages=N or "
	                       "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)\n"));
	assert_non_null(
	    strstr(r.notes, "1G pages: skipped: no hugetlbfs pages reserved (reserve "));
	assert_null(strstr(strstr(r.notes, "1G pages:") + 1, "1G pages:"));

	json_t *doc = json_object();
	json_object_set_new(doc, "cases", json_array());
	json_object_set_new(doc, "notes", json_array());
	assert_int_equal(pb_results_add_map(doc, &r), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *o = json_array_get(cases, i), *key = json_object_get(o, "key");
		assert_string_equal(json_string_value(json_object_get(key, "suite")), "map");
		assert_string_equal(json_string_value(json_object_get(key, "fault")),
		                    pb_map_fault_name(fault));
		assert_int_equal(json_integer_value(json_object_get(key, "page_bytes")), 4096);
		assert_string_equal(json_string_value(json_object_get(key, "page_source")), "4K");
		assert_int_equal(json_integer_value(json_object_get(key, "threads")), counts[i]);
		assert_int_equal(json_integer_value(json_object_get(key, "region_bytes")),
		                 8u << 20);
		assert_int_equal(json_integer_value(json_object_get(o, "pages")), 2048);
		json_t *dv = json_object_get(o, "median_derived");
		assert_non_null(json_object_get(dv, "gb_per_s"));
		assert_non_null(json_object_get(dv, "ns_per_4k_page"));
		assert_non_null(json_object_get(dv, "ns_per_page"));
		json_t *s0 = json_array_get(json_object_get(o, "samples"), 0);
		assert_int_equal(json_integer_value(json_array_get(s0, 1)), 2048);
	}
	json_t *notes = json_object_get(doc, "notes");
	assert_int_equal(json_array_size(notes), 2);
	assert_non_null(strstr(json_string_value(json_array_get(notes, 0)), "map: 2M pages: "));
	json_decref(doc);
	pb_map_result_free(&r);
}

static void test_run_demand(void **state)
{
	(void)state;
	run_small(PB_MAP_DEMAND);
}

static void test_run_populate(void **state)
{
	(void)state;
	run_small(PB_MAP_POPULATE);
}

static void test_run_errors(void **state)
{
	(void)state;
	unsigned counts[] = {2};
	struct pb_map_params p = {
	    .bytes = 4096,
	    .page_sizes = {PB_PAGE_4K},
	    .n_page_sizes = 1,
	    .threads = counts,
	    .n_threads = 1,
	    .rounds = 1,
	};
	struct pb_map_result r;
	/* one page, two threads: skipped, not an error */
	assert_int_equal(pb_map_run(&p, &r), 0);
	assert_string_equal(r.cases[0].skip, "4K pages, 2 threads: skipped: the region holds "
	                                     "fewer 4K pages than threads");
	pb_map_result_free(&r);
	p.rounds = 0;
	assert_int_equal(pb_map_run(&p, &r), -1);
	p.rounds = 1;
	counts[0] = 0;
	assert_int_equal(pb_map_run(&p, &r), -1);
}

/* compare, report and the reader name a map case by its key. */
static void test_key_name(void **state)
{
	(void)state;
	json_t *key = json_pack("{s:s, s:s, s:i, s:s, s:i, s:i}", "suite", "map", "fault",
	                        "populate", "page_bytes", 2097152, "page_source", "THP", "threads",
	                        4, "region_bytes", 1 << 30);
	char *group, *label;
	pb_results_key_name(key, &group, &label);
	assert_string_equal(group, "map populate");
	assert_string_equal(label, "2M THP 4 threads");
	free(group);
	free(label);
	json_object_set_new(key, "page_bytes", json_integer(4096));
	json_object_set_new(key, "page_source", json_string("4K"));
	json_object_set_new(key, "threads", json_integer(1));
	pb_results_key_name(key, &group, &label);
	assert_string_equal(label, "4K 1 thread");
	free(group);
	free(label);
	json_decref(key);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_split),         cmocka_unit_test(test_figures),
	    cmocka_unit_test(test_cap_and_modes), cmocka_unit_test(test_run_demand),
	    cmocka_unit_test(test_run_populate),  cmocka_unit_test(test_run_errors),
	    cmocka_unit_test(test_key_name),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
