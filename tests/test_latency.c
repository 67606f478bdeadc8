/* test_latency.c - the pointer chase of `primbench latency`
 * (src/suites/latency.c): its visiting order is a permutation, the chain
 * built from it is one cycle through every slot (over several sizes,
 * strides and seeds), different seeds give different orders; a small sweep
 * gives points in order with their rounds; and the result cases carry the
 * documented keys (docs/results-schema.md, "A latency case"); a sweep in
 * replicates groups each point's rounds by replicate (R groups of 5 that
 * add up to the samples), its figure is the geometric mean of the
 * replicates' medians, its cases carry "replicates" and read back with
 * them, and an older file without replicates still reads as one run.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"
#include "primbench/latency.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "results/results_json.h"

static const size_t sizes[] = {1, 2, 3, 7, 64, 1000, 4096, 65537};
static const uint64_t seeds[] = {1, 0x9E3779B97F4A7C15ull, 42, 0xffffffffffffffffull};

static void test_order_is_permutation(void **state)
{
	(void)state;
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
		for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
			size_t n = sizes[si];
			uint32_t *order = malloc(n * sizeof *order);
			unsigned char *seen = calloc(n, 1);
			uint64_t seed = seeds[k];
			pb_chase_order(order, n, &seed);
			for (size_t i = 0; i < n; i++) {
				assert_true(order[i] < n);
				assert_int_equal(seen[order[i]], 0);
				seen[order[i]] = 1;
			}
			assert_true(seed != seeds[k] || n < 2); /* the seed advanced */
			free(order);
			free(seen);
		}
}

/* Follows the chain from its start: every slot exactly once, then back at
 * the start after n loads. */
static void check_cycle(size_t n, size_t stride, uint64_t seed)
{
	char *buf = calloc(n, stride);
	uint32_t *order = malloc(n * sizeof *order);
	unsigned char *seen = calloc(n, 1);
	assert_non_null(buf);
	void **start = pb_chase_build(buf, n, stride, order, &seed);
	void **p = start;
	for (size_t i = 0; i < n; i++) {
		size_t off = (size_t)((char *)p - buf);
		assert_int_equal(off % stride, 0);
		size_t slot = off / stride;
		assert_true(slot < n);
		if (seen[slot])
			fail_msg("n %zu stride %zu: slot %zu visited twice (step %zu)", n, stride,
			         slot, i);
		seen[slot] = 1;
		p = (void **)*p;
	}
	assert_ptr_equal(p, start);
	free(buf);
	free(order);
	free(seen);
}

static void test_chain_single_cycle(void **state)
{
	(void)state;
	static const size_t strides[] = {sizeof(void *), 64, 4096};
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
		for (size_t st = 0; st < sizeof strides / sizeof strides[0]; st++) {
			if (sizes[si] * strides[st] > (64u << 20))
				continue;
			for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++)
				check_cycle(sizes[si], strides[st], seeds[k]);
		}
}

/* Not the identity, nor the same order for two seeds (n large enough that
 * a coincidence is out of the question). */
static void test_order_random(void **state)
{
	(void)state;
	enum { N = 4096 };
	static uint32_t a[N], b[N];
	uint64_t s1 = 1, s2 = 2;
	pb_chase_order(a, N, &s1);
	pb_chase_order(b, N, &s2);
	size_t fixed = 0, same = 0, sequential = 0;
	for (size_t i = 0; i < N; i++) {
		fixed += a[i] == i;
		same += a[i] == b[i];
		sequential += i + 1 < N && a[i + 1] == a[i] + 1;
	}
	assert_true(fixed < 16);
	assert_true(same < 16);
	assert_true(sequential < 16); /* no stride for a prefetcher */
}

static void test_sweep_and_cases(void **state)
{
	(void)state;
	struct pb_latency_point pts[16];
	struct pb_latency_info info;
	struct pb_latency_params p = {.min_bytes = 4096, .max_bytes = 64 << 10, .max_points = 16};
	int n = pb_latency_sweep(&p, pts, &info);
	assert_int_equal(n, 9); /* 4K 6K 8K 12K 16K 24K 32K 48K 64K */
	for (int i = 0; i < n; i++) {
		assert_true(i == 0 || pts[i].size_bytes > pts[i - 1].size_bytes);
		assert_int_equal(pts[i].round_loads, PB_LATENCY_ROUND_LOADS);
		assert_true(pts[i].ns_per_load > 0);
	}
	assert_int_equal(info.buffer_bytes, 2u << 20);
	assert_false(info.interrupted);
	/* A stop flag already set: nothing measured, and said so. */
	volatile sig_atomic_t stop = 1;
	p.stop = &stop;
	assert_int_equal(pb_latency_sweep(&p, pts, &info), 0);
	assert_true(info.interrupted);
	p.stop = NULL;
	/* A bad range, and too few points allowed. */
	p.min_bytes = 1 << 20;
	assert_int_equal(pb_latency_sweep(&p, pts, NULL), -1);
	p = (struct pb_latency_params){.min_bytes = 4096, .max_bytes = 1 << 20, .max_points = 3};
	assert_int_equal(pb_latency_sweep(&p, pts, NULL), 3);

	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	char *argv[] = {"primbench", "latency", NULL};
	struct pb_results_doc *rdoc = pb_results_new(2, argv, 0, &c, -1);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_latency(rdoc, pts, n, &info), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), (size_t)n);
	for (int i = 0; i < n; i++) {
		json_t *o = json_array_get(cases, (size_t)i), *key = json_object_get(o, "key");
		assert_string_equal(json_string_value(json_object_get(key, "suite")), "latency");
		assert_int_equal(json_integer_value(json_object_get(key, "size_bytes")),
		                 (json_int_t)pts[i].size_bytes);
		assert_int_equal(json_array_size(json_object_get(o, "samples")), PB_LATENCY_ROUNDS);
		json_t *pc = json_object_get(o, "per_call");
		assert_true(json_is_number(json_object_get(pc, "min")));
		assert_true(json_is_number(json_object_get(pc, "max")));
		assert_true(json_is_number(
		    json_object_get(json_object_get(o, "median_derived"), "ns_per_load")));
		assert_true(json_is_integer(json_object_get(o, "thp_bytes_seen")));
		assert_true(json_is_integer(json_object_get(o, "outliers")));
	}
	pb_results_doc_free(rdoc);
}

/* --pages: a small sweep in 4K pages records page_bytes 4096 and its
 * source; 1G pages when none are reserved cannot be mapped, so no case
 * (the command prints the skip line instead). */
static void test_sweep_pages(void **state)
{
	(void)state;
	struct pb_latency_point pts[16];
	struct pb_latency_info info;
	struct pb_latency_params p = {.min_bytes = 4096,
	                              .max_bytes = 16 << 10,
	                              .max_points = 16,
	                              .page_bytes = PB_PAGE_4K,
	                              .page_source = PB_PAGES_BASE};
	int n = pb_latency_sweep(&p, pts, &info);
	assert_int_equal(n, 5); /* 4K 6K 8K 12K 16K */
	assert_int_equal(info.page_bytes, 4096);
	assert_int_equal(info.buffer_bytes, 16 << 10);
	assert_int_equal(info.thp_bytes, 0);
	json_t *doc = json_pack("{s:[], s:[]}", "cases", "notes");
	struct pb_results_doc *rdoc = pb_results_doc_adopt(json_incref(doc));
	assert_int_equal(pb_results_add_latency(rdoc, pts, n, &info), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), (size_t)n);
	json_t *key = json_object_get(json_array_get(cases, 0), "key");
	assert_int_equal(json_integer_value(json_object_get(key, "page_bytes")), 4096);
	assert_string_equal(json_string_value(json_object_get(key, "page_source")), "4K");

	struct pb_pages_avail av;
	assert_int_equal(pb_pages_probe(PB_PAGE_1G, &av), 0);
	if (av.source == PB_PAGES_NONE) {
		p.page_bytes = PB_PAGE_1G;
		p.page_source = PB_PAGES_HUGETLB;
		assert_int_equal(pb_latency_sweep(&p, pts, &info), -1);
		char line[320];
		pb_pages_skip_line(PB_PAGE_1G, line, sizeof line);
		assert_non_null(strstr(line, "1G pages: skipped"));
	}
	assert_int_equal(json_array_size(cases), (size_t)n); /* nothing added */
	pb_results_doc_free(rdoc);
	json_decref(doc);
}

/* Loaded latency on small sizes: level 0 has no load, level 1 (when a
 * second CPU is allowed) has some; the cases carry the load's keys. */
static void test_loaded(void **state)
{
	(void)state;
	const struct pb_kernel *k = pb_kernel_find(PB_OP_COUNT, "memcpy/libc");
	assert_non_null(k);
	cpu_set_t set;
	int other = -1, here = sched_getcpu();
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
			if (CPU_ISSET(c, &set) && c != here)
				other = c;
	struct pb_loaded_params p = {
	    .chase_bytes = 1 << 20,
	    .kernel = k,
	    .load_bytes = 4 << 20,
	    .call_bytes = 64 << 10,
	    .load_cpus = &other,
	    .n_load = other >= 0 ? 1 : 0,
	};
	struct pb_loaded_point pts[2];
	int n = pb_latency_loaded(&p, pts);
	assert_int_equal(n, p.n_load + 1);
	assert_int_equal(pts[0].threads, 0);
	assert_true(pts[0].load_bytes_per_s == 0);
	assert_true(pts[0].chase.ns_per_load > 0);
	if (n == 2) {
		assert_int_equal(pts[1].threads, 1);
		/* >= 0, not > 0: the load thread ran before the window (load_start
		 * waits for its first call) but may get no CPU time inside it when
		 * its CPU is busy; the printer then says so. */
		assert_true(pts[1].load_bytes_per_s >= 0);
	}
	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	char *argv[] = {"primbench", "latency", NULL};
	struct pb_results_doc *rdoc = pb_results_new(2, argv, 0, &c, -1);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_int_equal(pb_results_add_loaded(rdoc, p.kernel, pts, n), 0);
	json_t *last = json_array_get(json_object_get(doc, "cases"), (size_t)n - 1);
	json_t *key = json_object_get(last, "key");
	assert_string_equal(json_string_value(json_object_get(key, "load_kernel")), "memcpy/libc");
	assert_int_equal(json_integer_value(json_object_get(key, "load_threads")), n - 1);
	assert_int_equal(json_integer_value(json_object_get(key, "size_bytes")), 1 << 20);
	assert_true(json_is_number(
	    json_object_get(json_object_get(last, "median_derived"), "load_gb_per_s")));
	pb_results_doc_free(rdoc);

	/* Not a memcpy or memset kernel; a buffer smaller than two calls. */
	p.kernel = pb_kernel_find(PB_OP_COUNT, "memmove/libc");
	assert_non_null(p.kernel);
	assert_int_equal(pb_latency_loaded(&p, pts), -1);
	p.kernel = k;
	p.load_bytes = p.call_bytes;
	assert_int_equal(pb_latency_loaded(&p, pts), -1);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of replicate r's rounds of rp, per load. */
static double rep_median(const struct pb_latency_rpoint *rp, size_t r)
{
	double v[PB_LATENCY_ROUNDS];
	for (int k = 0; k < PB_LATENCY_ROUNDS; k++)
		v[k] = rp->round_ticks[r][k] / (double)rp->round_loads;
	qsort(v, PB_LATENCY_ROUNDS, sizeof v[0], cmp_dbl);
	return v[PB_LATENCY_ROUNDS / 2];
}

/* R replicates of a small sweep: R groups per point, the figure the
 * geometric mean of the replicates' medians with a t interval around it;
 * the cases' samples and "replicates" agree, and read back. */
static void test_sweep_replicates(void **state)
{
	(void)state;
	enum { R = 4 };
	struct pb_latency_rpoint *pts = calloc(16, sizeof *pts);
	assert_non_null(pts);
	struct pb_latency_info info;
	struct pb_latency_params p = {
	    .min_bytes = 4096, .max_bytes = 16 << 10, .max_points = 16, .seed = 7};
	int n = pb_latency_sweep_replicates(&p, R, pts, &info);
	assert_int_equal(n, 5); /* 4K 6K 8K 12K 16K */
	assert_false(info.interrupted);
	for (int i = 0; i < n; i++) {
		const struct pb_latency_rpoint *rp = &pts[i];
		assert_true(i == 0 || rp->size_bytes > pts[i - 1].size_bytes);
		assert_int_equal(rp->n_rep, R);
		assert_int_equal(rp->round_loads, PB_LATENCY_ROUND_LOADS);
		assert_int_equal(rp->per_load.n, R * PB_LATENCY_ROUNDS);
		assert_int_equal(rp->per_load.replicates, R);
		double logs = 0;
		bool positive = true;
		for (size_t r = 0; r < R; r++) {
			double m = rep_median(rp, r);
			positive &= m > 0;
			logs += log(m > 0 ? m : 1);
		}
		if (positive) {
			double gm = exp(logs / R);
			assert_true(fabs(rp->per_load.median - gm) <= 1e-9 * gm);
			assert_true(rp->per_load.ci_valid);
			assert_true(rp->per_load.ci_lo <= rp->per_load.median);
			assert_true(rp->per_load.ci_hi >= rp->per_load.median);
		}
		assert_true(rp->ns_per_load > 0);
	}

	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	char *argv[] = {"primbench", "latency", NULL};
	struct pb_results_doc *rdoc = pb_results_new(2, argv, 0, &c, -1);
	json_t *doc = pb_results_doc_json(rdoc);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_latency_run(rdoc, pts, n, &info), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), (size_t)n);
	for (int i = 0; i < n; i++) {
		json_t *o = json_array_get(cases, (size_t)i);
		json_t *reps = json_object_get(o, "replicates");
		assert_int_equal(json_array_size(reps), R);
		size_t sum = 0;
		for (size_t r = 0; r < R; r++) {
			json_t *x = json_array_get(reps, r);
			sum += (size_t)json_integer_value(json_object_get(x, "samples"));
			assert_true(fabs(json_number_value(json_object_get(x, "median")) -
			                 rep_median(&pts[i], r)) <= 1e-9 * rep_median(&pts[i], r));
		}
		assert_int_equal(sum, json_array_size(json_object_get(o, "samples")));
		assert_int_equal(sum, R * PB_LATENCY_ROUNDS);
		json_t *pc = json_object_get(o, "per_call");
		assert_int_equal(json_integer_value(json_object_get(pc, "replicates")), R);
		assert_true(fabs(json_number_value(json_object_get(pc, "median")) -
		                 pts[i].per_load.median) <= 1e-9 * pts[i].per_load.median);
	}
	/* read back: the reader's replicates and figure are the run's */
	char *text = json_dumps(doc, 0);
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(text, strlen(text), "replicates.json", &f), 0);
	assert_int_equal(f.ncases, (size_t)n);
	for (size_t i = 0; i < f.ncases; i++) {
		const struct pb_results_case *k = &f.cases[i];
		assert_int_equal(k->n_rep, R);
		size_t sum = 0;
		for (size_t r = 0; r < k->n_rep; r++)
			sum += k->rep_n[r];
		assert_int_equal(sum, k->n);
		struct pb_summary s;
		assert_int_equal(pb_results_case_summary(k, 0.95, &s), 0);
		assert_int_equal(s.replicates, R);
	}
	pb_results_file_free(&f);
	free(text);
	pb_results_doc_free(rdoc);

	/* one replicate: the rounds' own summary, as a sweep without them */
	assert_int_equal(pb_latency_sweep_replicates(&p, 1, pts, &info), n);
	for (int i = 0; i < n; i++) {
		struct pb_summary s;
		double v[PB_LATENCY_ROUNDS];
		for (int k = 0; k < PB_LATENCY_ROUNDS; k++)
			v[k] = pts[i].round_ticks[0][k] / (double)pts[i].round_loads;
		assert_int_equal(pts[i].n_rep, 1);
		assert_int_equal(pb_summarize(v, PB_LATENCY_ROUNDS, 0.95, &s), 0);
		assert_true(pts[i].per_load.median == s.median);
		assert_true(pts[i].per_load.replicates <= 1);
	}
	/* a stop already set: nothing measured, and said so */
	volatile sig_atomic_t stop = 1;
	p.stop = &stop;
	assert_int_equal(pb_latency_sweep_replicates(&p, R, pts, &info), 0);
	assert_true(info.interrupted);
	p.stop = NULL;
	/* bad counts of replicates */
	assert_int_equal(pb_latency_sweep_replicates(&p, 0, pts, NULL), -1);
	assert_int_equal(pb_latency_sweep_replicates(&p, PB_LATENCY_MAX_REPLICATES + 1, pts, NULL),
	                 -1);
	free(pts);
}

/* pb_latency_rpoint_add: replicates of one point only, at most the
 * maximum; the figure of made-up rounds is the geometric mean of their
 * medians. */
static void test_rpoint(void **state)
{
	(void)state;
	struct pb_latency_rpoint *rp = calloc(1, sizeof *rp);
	struct pb_latency_point pt = {.size_bytes = 4096, .round_loads = 10};
	assert_int_equal(pb_latency_rpoint_end(rp), -1); /* no replicate */
	const double level[3] = {10, 20, 40};            /* per load */
	for (int r = 0; r < 3; r++) {
		for (int k = 0; k < PB_LATENCY_ROUNDS; k++)
			pt.round_ticks[k] = 10 * (level[r] + k - PB_LATENCY_ROUNDS / 2);
		assert_int_equal(pb_latency_rpoint_add(rp, &pt), 0);
	}
	assert_int_equal(pb_latency_rpoint_end(rp), 0);
	assert_int_equal(rp->n_rep, 3);
	assert_true(fabs(rp->per_load.median - 20.0) < 1e-9); /* (10 x 20 x 40)^(1/3) */
	assert_int_equal(rp->per_load.replicates, 3);
	struct pb_latency_point other = pt;
	other.size_bytes = 8192;
	assert_int_equal(pb_latency_rpoint_add(rp, &other), -1);
	memset(rp, 0, sizeof *rp);
	for (int r = 0; r < PB_LATENCY_MAX_REPLICATES; r++)
		assert_int_equal(pb_latency_rpoint_add(rp, &pt), 0);
	assert_int_equal(pb_latency_rpoint_add(rp, &pt), -1);
	free(rp);
}

/* Loaded latency in replicates: every level has them all. */
static void test_loaded_replicates(void **state)
{
	(void)state;
	const struct pb_kernel *k = pb_kernel_find(PB_OP_COUNT, "memcpy/libc");
	assert_non_null(k);
	struct pb_loaded_params p = {
	    .chase_bytes = 256 << 10,
	    .kernel = k,
	    .load_bytes = 4 << 20,
	    .call_bytes = 64 << 10,
	    .n_load = 0,
	};
	struct pb_loaded_rpoint *pts = calloc(1, sizeof *pts);
	bool interrupted = true;
	assert_int_equal(pb_latency_loaded_replicates(&p, 3, NULL, pts, &interrupted), 1);
	assert_false(interrupted);
	assert_int_equal(pts[0].threads, 0);
	assert_int_equal(pts[0].chase.n_rep, 3);
	assert_true(pts[0].load_bytes_per_s == 0);
	json_t *doc = json_pack("{s:[], s:[]}", "cases", "notes");
	struct pb_results_doc *rdoc = pb_results_doc_adopt(json_incref(doc));
	assert_int_equal(pb_results_add_loaded_run(rdoc, p.kernel, pts, 1), 0);
	json_t *o = json_array_get(json_object_get(doc, "cases"), 0);
	assert_int_equal(json_array_size(json_object_get(o, "replicates")), 3);
	assert_int_equal(json_array_size(json_object_get(o, "samples")), 3 * PB_LATENCY_ROUNDS);
	pb_results_doc_free(rdoc);
	json_decref(doc);
	/* a stop after the first replicate ends the run there */
	volatile sig_atomic_t stop = 1;
	assert_int_equal(pb_latency_loaded_replicates(&p, 3, &stop, pts, &interrupted), 1);
	assert_true(interrupted);
	assert_int_equal(pts[0].chase.n_rep, 1);
	free(pts);
}

/* An older latency file (tests/data/latency/curve_a.json: no
 * "replicates") reads as one run a case, its figure the rounds' median. */
static void test_old_file_reads(void **state)
{
	(void)state;
	char src[PATH_MAX], path[PATH_MAX + 64];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(path, sizeof path, "%s/data/latency/curve_a.json", dirname(src));
	struct pb_results_file f;
	assert_int_equal(pb_results_load(path, &f), 0);
	assert_true(f.ncases > 0);
	for (size_t i = 0; i < f.ncases; i++) {
		const struct pb_results_case *k = &f.cases[i];
		assert_true(k->n_rep <= 1);
		struct pb_summary s;
		assert_int_equal(pb_results_case_summary(k, 0.95, &s), 0);
		assert_true(s.replicates <= 1);
		assert_true(s.median > 0);
	}
	pb_results_file_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_is_permutation), cmocka_unit_test(test_chain_single_cycle),
	    cmocka_unit_test(test_order_random),         cmocka_unit_test(test_sweep_and_cases),
	    cmocka_unit_test(test_sweep_pages),          cmocka_unit_test(test_loaded),
	    cmocka_unit_test(test_sweep_replicates),     cmocka_unit_test(test_rpoint),
	    cmocka_unit_test(test_loaded_replicates),    cmocka_unit_test(test_old_file_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
