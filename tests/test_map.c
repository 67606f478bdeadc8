/* test_map.c - `mem map`'s accounting (primbench/map.h), never its speed:
 * the split of a region over threads, the per-page figures, the memory
 * cap, runs on a small 4K region (8 MiB: pages = size / page size, bytes
 * and samples) with one and two threads, demand and populate, the skipped
 * sizes of a fake sysfs with no huge pages, the JSON cases, and replicates
 * (samples grouped per replicate, the figure the geometric mean of the
 * replicates' medians, a run in replicates and its stop, an older file
 * without them still read). */
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

#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/map.h"
#include "primbench/pages.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"

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
	struct pb_results_doc *rdoc = pb_results_doc_adopt(json_incref(doc));
	json_object_set_new(doc, "cases", json_array());
	json_object_set_new(doc, "notes", json_array());
	assert_int_equal(pb_map_result_to_doc(rdoc, &r), 0);
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
	pb_results_doc_free(rdoc);
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
	assert_string_equal(r.cases[0].skip, "4K pages, 2 threads: skipped: the region holds 1 "
	                                     "4K page, fewer than threads");
	pb_map_result_free(&r);
	/* --size under one page: skipped whatever the threads, said once
	 * among the notes (not as a threads line) */
	unsigned one[] = {1, 2};
	p.threads = one;
	p.n_threads = 2;
	p.bytes = 8192;
	p.page_sizes[0] = PB_PAGE_2M;
	/* a sysfs whose THP is on: 2M pages available, nothing mapped */
	char mm[] = "/tmp/pb-test-map-XXXXXX", path[64];
	assert_non_null(mkdtemp(mm));
	snprintf(path, sizeof path, "%s/transparent_hugepage", mm);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/transparent_hugepage/enabled", mm);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[always] madvise never\n", f);
	fclose(f);
	p.sysfs_mm = mm;
	assert_int_equal(pb_map_run(&p, &r), 0);
	unlink(path);
	snprintf(path, sizeof path, "%s/transparent_hugepage", mm);
	rmdir(path);
	rmdir(mm);
	assert_int_equal(r.cases[0].source, PB_PAGES_THP);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(r.cases[i].skip, "2M pages: skipped: --size 8K is smaller than "
		                                     "one 2M page");
		assert_int_equal(r.cases[i].n_samples, 0);
	}
	const char *n1 = strstr(r.notes, "--size 8K is smaller than one 2M page\n");
	assert_non_null(n1);
	assert_null(strstr(n1 + 1, "--size 8K"));
	assert_null(strstr(r.notes, "thread"));
	pb_map_result_free(&r);
	p.bytes = 4096;
	p.page_sizes[0] = PB_PAGE_4K;
	p.sysfs_mm = NULL;
	p.threads = counts;
	p.n_threads = 1;
	p.rounds = 0;
	assert_int_equal(pb_map_run(&p, &r), -1);
	p.rounds = 1;
	counts[0] = 0;
	assert_int_equal(pb_map_run(&p, &r), -1);
}

/* Nothing measured (issue 33, item 4): the error line carries the
 * distinct skip lines, in case order, joined by "; "; the heading's size
 * is what the measured cases map, the size asked beside it when other. */
static void test_messages(void **state)
{
	(void)state;
	struct pb_map_case cs[4] = {{0}};
	struct pb_map_result r = {.n_cases = 0, .cases = cs};
	char buf[512];
	pb_map_nothing_line(&r, buf, sizeof buf);
	assert_string_equal(buf, "nothing was measured");
	/* two thread counts: the size's line once, each threads line */
	snprintf(cs[0].skip, sizeof cs[0].skip, "2M pages: skipped: --size 8K is smaller");
	snprintf(cs[1].skip, sizeof cs[1].skip, "4K pages, 2 threads: skipped: 1 page");
	snprintf(cs[2].skip, sizeof cs[2].skip, "2M pages: skipped: --size 8K is smaller");
	snprintf(cs[3].skip, sizeof cs[3].skip, "4K pages, 3 threads: skipped: 1 page");
	r.n_cases = 1;
	pb_map_nothing_line(&r, buf, sizeof buf);
	assert_string_equal(buf, "nothing was measured: 2M pages: skipped: --size 8K is smaller");
	r.n_cases = 4;
	int n = pb_map_nothing_line(&r, buf, sizeof buf);
	assert_string_equal(buf, "nothing was measured: 2M pages: skipped: --size 8K is "
	                         "smaller; 4K pages, 2 threads: skipped: 1 page; 4K pages, "
	                         "3 threads: skipped: 1 page");
	assert_int_equal(n, (int)strlen(buf));
	assert_null(strchr(buf, '\n'));
	/* too small a buffer: cut, terminated, the whole length returned */
	char small[24];
	assert_int_equal(pb_map_nothing_line(&r, small, sizeof small), n);
	assert_string_equal(small, "nothing was measured: 2");

	/* the heading: nothing measured, the size asked */
	pb_map_round_size(&r, 4097, buf, sizeof buf);
	assert_string_equal(buf, "4097 per round");
	/* --size 4097 of 4K pages maps 4K */
	memset(cs, 0, sizeof cs);
	cs[0] = (struct pb_map_case){.page_bytes = PB_PAGE_4K, .bytes = 4096, .n_samples = 2};
	r.n_cases = 1;
	pb_map_round_size(&r, 4097, buf, sizeof buf);
	assert_string_equal(buf, "4K per round (4097 asked)");
	pb_map_round_size(&r, 4096, buf, sizeof buf);
	assert_string_equal(buf, "4K per round");
	/* --size 3M: 4K pages map 3M, 2M pages 2M; a skipped case not counted */
	cs[0].bytes = 3u << 20;
	cs[1] = (struct pb_map_case){.page_bytes = PB_PAGE_2M, .bytes = 2u << 20, .n_samples = 2};
	cs[2] = (struct pb_map_case){.page_bytes = PB_PAGE_1G};
	snprintf(cs[2].skip, sizeof cs[2].skip, "1G pages: skipped");
	r.n_cases = 3;
	pb_map_round_size(&r, 3u << 20, buf, sizeof buf);
	assert_string_equal(buf, "2M to 3M per round (3M asked)");
	cs[1].n_samples = 0; /* not measured (interrupted): not counted */
	pb_map_round_size(&r, 3u << 20, buf, sizeof buf);
	assert_string_equal(buf, "3M per round");
}

/* One hand-made run of two cases (4K and 2M THP, 1 thread), with the
 * per-page values vals4k[0..n4k) and vals2m[0..n2m) (pages 1 each) and the
 * THP case's least AnonHugePages. */
static void fake_run(struct pb_map_result *r, const double *vals4k, size_t n4k,
                     const double *vals2m, size_t n2m, uint64_t thp)
{
	memset(r, 0, sizeof *r);
	r->n_cases = 2;
	r->cases = pb_xcalloc(2, sizeof *r->cases);
	const double *v[2] = {vals4k, vals2m};
	size_t n[2] = {n4k, n2m};
	for (size_t i = 0; i < 2; i++) {
		struct pb_map_case *c = &r->cases[i];
		c->page_bytes = i ? PB_PAGE_2M : PB_PAGE_4K;
		c->source = i ? PB_PAGES_THP : PB_PAGES_BASE;
		c->threads = 1;
		c->fault = PB_MAP_DEMAND;
		c->pages = 1;
		c->bytes = i ? 4u << 20 : 4096;
		c->thp_bytes = i ? thp : 0;
		c->n_samples = n[i];
		c->ticks = pb_xcalloc(n[i] + 1, sizeof *c->ticks);
		c->calls = pb_xcalloc(n[i] + 1, sizeof *c->calls);
		for (size_t j = 0; j < n[i]; j++) {
			c->ticks[j] = v[i][j];
			c->calls[j] = 1;
		}
		c->migrations = 1;
	}
	snprintf(r->notes, sizeof r->notes, "1G pages: skipped: none reserved\n");
}

/* Replicates by hand: the samples of R runs grouped per replicate, the
 * figure the geometric mean of their medians, a THP shortfall said once
 * with the least of the runs. */
static void test_replicates_join(void **state)
{
	(void)state;
	static const double a4[] = {100, 300, 200}, b4[] = {400}, c4[] = {800, 800};
	static const double a2[] = {10, 10}, b2[] = {40, 40}, c2[] = {160};
	struct pb_map_result acc = {0}, one;
	fake_run(&one, a4, 3, a2, 2, 2u << 20);
	assert_int_equal(pb_map_result_add_replicate(&acc, &one), 0);
	fake_run(&one, b4, 1, b2, 2, 4u << 20);
	assert_int_equal(pb_map_result_add_replicate(&acc, &one), 0);
	fake_run(&one, c4, 2, c2, 1, 0);
	assert_int_equal(pb_map_result_add_replicate(&acc, &one), 0);
	assert_null(one.cases); /* taken over */
	assert_int_equal(pb_map_result_end_replicates(&acc), 0);
	assert_int_equal(acc.n_cases, 2);
	size_t want_n[2][3] = {{3, 1, 2}, {2, 2, 1}};
	double want_med[2] = {cbrt(200.0 * 400 * 800), cbrt(10.0 * 40 * 160)};
	for (size_t i = 0; i < 2; i++) {
		const struct pb_map_case *c = &acc.cases[i];
		assert_int_equal(c->n_replicates, 3);
		size_t sum = 0;
		for (size_t k = 0; k < 3; k++) {
			assert_int_equal(c->replicate_samples[k], want_n[i][k]);
			sum += c->replicate_samples[k];
		}
		assert_int_equal(sum, c->n_samples);
		assert_int_equal(c->migrations, 3);
		assert_int_equal(c->per_page.replicates, 3);
		assert_int_equal(c->per_page.n, c->n_samples);
		assert_true(c->per_page.ci_valid);
		assert_true(fabs(c->per_page.median - want_med[i]) < 1e-9 * want_med[i]);
		assert_true(c->per_page.ci_lo < c->per_page.median);
		assert_true(c->per_page.ci_hi > c->per_page.median);
	}
	/* samples in replicate order: the first run's, then the second's */
	assert_true(acc.cases[0].ticks[3] == 400 && acc.cases[0].ticks[5] == 800);
	/* the least AnonHugePages of any run, and its note once */
	assert_int_equal(acc.cases[1].thp_bytes, 0);
	const char *thp = strstr(acc.notes, "2M pages, 1 threads: in some round THP gave only ");
	assert_non_null(thp);
	assert_non_null(strstr(thp, "only 0 MiB of huge pages for 4 MiB"));
	assert_null(strstr(strstr(thp, "THP gave only") + 1, "THP gave only"));
	/* the skip line of every run, once */
	assert_non_null(strstr(acc.notes, "1G pages: skipped"));
	assert_null(strstr(strstr(acc.notes, "1G pages: skipped") + 1, "1G pages: skipped"));

	/* the file: "replicates" per case, per_call their summary, read back */
	struct pb_cache_info caches;
	assert_int_equal(pb_cache_detect(&caches, NULL), 0);
	char *argv[] = {"primbench", "mem", "map", NULL};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, -1);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_map_result_to_doc(rdoc, &acc), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), 2);
	for (size_t i = 0; i < 2; i++) {
		json_t *o = json_array_get(cases, i), *reps = json_object_get(o, "replicates");
		assert_int_equal(json_array_size(reps), 3);
		size_t sum = 0;
		for (size_t k = 0; k < 3; k++)
			sum += (size_t)json_integer_value(
			    json_object_get(json_array_get(reps, k), "samples"));
		assert_int_equal(sum, json_array_size(json_object_get(o, "samples")));
		json_t *pc = json_object_get(o, "per_call");
		assert_int_equal(json_integer_value(json_object_get(pc, "replicates")), 3);
		double med = json_number_value(json_object_get(pc, "median"));
		assert_true(fabs(med - want_med[i]) < 1e-6 * want_med[i]);
		/* the derived figures are the run-level figure's */
		double ns = json_number_value(
		    json_object_get(json_object_get(o, "median_derived"), "ns_per_page"));
		assert_true(fabs(ns - pb_ticks_to_ns(want_med[i])) < 1e-6 * ns);
	}
	char *text = json_dumps(doc, JSON_INDENT(1));
	struct pb_results_file f;
	if (pb_results_load_text(text, strlen(text), "map-replicates", &f) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(f.ncases, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(f.cases[i].n_rep, 3);
		struct pb_summary sm;
		assert_int_equal(pb_results_case_summary(&f.cases[i], 0.95, &sm), 0);
		assert_int_equal(sm.replicates, 3);
		assert_true(fabs(sm.median - want_med[i]) < 1e-6 * want_med[i]);
		double runs[3];
		assert_int_equal(pb_results_case_runs(&f.cases[i], runs, 3), 3);
	}
	pb_results_file_free(&f);
	free(text);
	pb_results_doc_free(rdoc);
	pb_map_result_free(&acc);
}

/* A real run in replicates on the small region: R replicates give R
 * groups whose counts add up to the samples; the rounds shared out. */
static void test_replicates_run(void **state)
{
	(void)state;
	assert_int_equal(pb_map_rounds_each(5, 5), 1);
	assert_int_equal(pb_map_rounds_each(5, 2), 2);
	assert_int_equal(pb_map_rounds_each(10, 5), 2);
	assert_int_equal(pb_map_rounds_each(1, 5), 1);
	assert_int_equal(pb_map_rounds_each(7, 0), 7);
	unsigned counts[] = {1};
	struct pb_map_params p = {
	    .bytes = 4u << 20,
	    .page_sizes = {PB_PAGE_4K},
	    .n_page_sizes = 1,
	    .fault = PB_MAP_DEMAND,
	    .threads = counts,
	    .n_threads = 1,
	    .rounds = 2,
	    .warmup = 0,
	    .sysfs_mm = "/nonexistent/pb-test-map",
	};
	struct pb_map_result acc = {0};
	for (size_t rep = 0; rep < 4; rep++) {
		struct pb_map_result one;
		p.seed = 11 + rep;
		if (pb_map_run(&p, &one) != 0)
			fail_msg("%s", pb_error());
		assert_int_equal(pb_map_result_add_replicate(&acc, &one), 0);
	}
	assert_int_equal(pb_map_result_end_replicates(&acc), 0);
	assert_int_equal(acc.n_cases, 1);
	const struct pb_map_case *c = &acc.cases[0];
	assert_int_equal(c->n_replicates, 4);
	size_t sum = 0, nonempty = 0;
	double med[4];
	for (size_t k = 0; k < 4; k++) {
		sum += c->replicate_samples[k];
		nonempty += c->replicate_samples[k] > 0;
		assert_true(c->replicate_samples[k] <= 2);
	}
	assert_int_equal(sum, c->n_samples);
	assert_int_equal(sum + c->migrations, 8);
	if (nonempty >= 2 && c->per_page.median > 0) {
		double *v = pb_xcalloc(c->n_samples, sizeof *v);
		for (size_t j = 0; j < c->n_samples; j++)
			v[j] = c->ticks[j] / (double)c->calls[j];
		size_t m = pb_replicate_medians(v, c->n_samples, c->replicate_samples, 4, med);
		assert_int_equal(m, nonempty);
		double lg = 0;
		for (size_t k = 0; k < m; k++)
			lg += log(med[k]);
		assert_int_equal(c->per_page.replicates, m);
		assert_true(fabs(c->per_page.median - exp(lg / (double)m)) <=
		            1e-9 * c->per_page.median);
		free(v);
	}
	pb_map_result_free(&acc);
}

/* What pb_map_run_replicates' progress saw; raises *stop as replicate
 * stop_at starts (when stop is set). */
struct rep_calls {
	size_t n, rep[8], total;
	volatile sig_atomic_t *stop;
	size_t stop_at;
};

static void count_replicate(void *ctx, size_t rep, size_t replicates)
{
	struct rep_calls *c = ctx;
	if (c->n < 8)
		c->rep[c->n] = rep;
	c->n++;
	c->total = replicates;
	if (c->stop && rep == c->stop_at)
		*c->stop = 1;
}

/* pb_map_run_replicates on a 64 KiB region, one round a replicate: each
 * replicate's rounds and seed, one group of samples a replicate, the
 * progress before each; a stop ends the run after the replicate it came
 * in. */
static void test_run_replicates(void **state)
{
	(void)state;
	unsigned counts[] = {1};
	struct pb_map_params p = {
	    .bytes = 64u << 10,
	    .page_sizes = {PB_PAGE_4K},
	    .n_page_sizes = 1,
	    .fault = PB_MAP_DEMAND,
	    .threads = counts,
	    .n_threads = 1,
	    .rounds = 5,
	    .seed = 7,
	    .sysfs_mm = "/nonexistent/pb-test-map",
	};
	/* replicate r's parameters: the rounds shared out, the seed moved */
	struct pb_map_params rp;
	pb_map_replicate_params(&p, 0, 2, &rp);
	assert_int_equal(rp.rounds, 2);
	assert_true(rp.seed == 7);
	assert_true(rp.threads == counts && rp.bytes == p.bytes);
	pb_map_replicate_params(&p, 3, 5, &rp);
	assert_int_equal(rp.rounds, 1);
	assert_true(rp.seed == 7 + 3 * 0x9E3779B97F4A7C15ull);
	assert_true(rp.seed == pb_replicate_seed(7, 3));

	p.rounds = 3;
	struct rep_calls calls = {0};
	struct pb_map_result r;
	if (pb_map_run_replicates(&p, 3, count_replicate, &calls, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(calls.n, 3);
	assert_int_equal(calls.total, 3);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(calls.rep[k], k);
	assert_false(r.interrupted);
	assert_int_equal(r.n_cases, 1);
	const struct pb_map_case *c = &r.cases[0];
	assert_int_equal(c->n_replicates, 3);
	size_t sum = 0;
	for (size_t k = 0; k < 3; k++) {
		assert_true(c->replicate_samples[k] <= 1);
		sum += c->replicate_samples[k];
	}
	assert_int_equal(sum, c->n_samples);
	assert_int_equal(sum + c->migrations, 3);
	pb_map_result_free(&r);

	/* a stop as the second replicate starts: it is the last one */
	volatile sig_atomic_t stop = 0;
	p.stop = &stop;
	calls = (struct rep_calls){.stop = &stop, .stop_at = 1};
	if (pb_map_run_replicates(&p, 3, count_replicate, &calls, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(calls.n, 2);
	assert_true(r.interrupted);
	assert_int_equal(r.n_cases, 1);
	assert_int_equal(r.cases[0].n_replicates, 2);
	pb_map_result_free(&r);

	/* 0 replicates: one, no progress needed */
	stop = 0;
	if (pb_map_run_replicates(&p, 0, NULL, NULL, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(r.cases[0].n_replicates, 1);
	pb_map_result_free(&r);
}

/* A file of mem map from before replicates (tests/data/latency/
 * map_threads.json, no "replicates"): read as one run a case. */
static void test_old_file(void **state)
{
	(void)state;
	char src[PATH_MAX], path[PATH_MAX + 64];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(path, sizeof path, "%s/data/latency/map_threads.json", dirname(src));
	struct pb_results_file f;
	if (pb_results_load(path, &f) != 0)
		fail_msg("%s", pb_error());
	assert_true(f.ncases > 0);
	for (size_t i = 0; i < f.ncases; i++) {
		assert_int_equal(f.cases[i].n_rep, 0);
		struct pb_summary s;
		assert_int_equal(pb_results_case_summary(&f.cases[i], 0.95, &s), 0);
		assert_true(s.replicates <= 1);
		double run;
		assert_int_equal(pb_results_case_runs(&f.cases[i], &run, 1), 1);
	}
	pb_results_file_free(&f);
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
	    cmocka_unit_test(test_split),          cmocka_unit_test(test_figures),
	    cmocka_unit_test(test_cap_and_modes),  cmocka_unit_test(test_run_demand),
	    cmocka_unit_test(test_run_populate),   cmocka_unit_test(test_run_errors),
	    cmocka_unit_test(test_key_name),       cmocka_unit_test(test_replicates_join),
	    cmocka_unit_test(test_replicates_run), cmocka_unit_test(test_run_replicates),
	    cmocka_unit_test(test_old_file),       cmocka_unit_test(test_messages),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
