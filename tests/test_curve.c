/* test_curve.c - latency and map results through report, compare and plot
 * (issue 22): the shared printers of include/primbench/curve_text.h on
 * made-up points (marks, steps, the check of the cache sizes), and the
 * fixtures of tests/data/latency (README there) through pb_format_write,
 * pb_compare_run and pb_plot_write (--script-only's script, no gnuplot):
 * every figure printed or drawn against the file's own samples and
 * median_derived. No timing is asserted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "primbench/compare.h"
#include "primbench/curve_text.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/plot.h"
#include "primbench/reader.h"
#include "results/results_json.h"
#include "primbench/text.h"

static char dir[] = "/tmp/pb-curve-test-XXXXXX";

static void clean(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	clean();
	rmdir(dir);
	return 0;
}

static void load(const char *path, struct pb_results_file *f)
{
	if (pb_results_load(path, f) != 0)
		fail_msg("%s", pb_error());
}

static char *slurp(const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* What fn printed into a memory stream. */
#define CAPTURE(text, stmt)                                                                        \
	do {                                                                                       \
		size_t len_ = 0;                                                                   \
		FILE *out = open_memstream(&(text), &len_);                                        \
		assert_non_null(out);                                                              \
		stmt;                                                                              \
		fclose(out);                                                                       \
	} while (0)

static const json_t *case_json(const struct pb_results_file *f, size_t i)
{
	return json_array_get(json_object_get(pb_results_file_json(f), "cases"), f->cases[i].index);
}

static double member(const json_t *o, const char *a, const char *b)
{
	return json_number_value(json_object_get(json_object_get(o, a), b));
}

static long long key_int(const json_t *key, const char *name)
{
	return (long long)json_integer_value(json_object_get(key, name));
}

/* ---- the printers on made-up points ------------------------------------ */

static void test_curve_marks_and_steps(void **state)
{
	(void)state;
	/* 4K..128K, a step of x4 at 32K; L1d 16K, L2 64K, LLC unknown. */
	struct pb_curve_point pts[6];
	for (int i = 0; i < 6; i++)
		pts[i] = (struct pb_curve_point){.size_bytes = 4096ull << i,
		                                 .ns_per_load = i < 3 ? 1.0 : 4.0,
		                                 .ticks_per_load = i < 3 ? 2.5 : 10.0,
		                                 .spread = i == 0 ? NAN : 0.02};
	struct pb_cache_info c = {0};
	c.level[PB_CACHE_L1D] =
	    (struct pb_cache_level_info){.size_bytes = 16384, .source = PB_SRC_SYSFS};
	c.level[PB_CACHE_L2] =
	    (struct pb_cache_level_info){.size_bytes = 65536, .source = PB_SRC_CPUID};
	c.level[PB_CACHE_L2].by_source_bytes[PB_SRC_SYSCONF] = 1 << 30;
	c.level[PB_CACHE_L2].plausible[PB_SRC_SYSCONF] = false;
	char *t = NULL;
	CAPTURE(t, pb_curve_print(out, &c, pts, 6, false));
	assert_non_null(strstr(t, "        size    ns/load   ticks/load  spread\n"));
	/* spread NaN: "-"; a fraction as %. */
	assert_non_null(strstr(t, "       4 KiB        1.0          2.5       -\n"));
	assert_non_null(strstr(t, "       8 KiB        1.0          2.5    2.0%\n"));
	/* the step and the first point past L1d: a mark that does not fit
	 * in 80 columns on a line of its own, under the first */
	assert_non_null(strstr(t, "      32 KiB        4.0         10.0    2.0%  x4.0 vs half the "
	                          "size\n                                              (past L1d "
	                          "16 KiB)\n"));
	assert_non_null(
	    strstr(t, "     128 KiB        4.0         10.0    2.0%  (past L2 64 KiB)\n"));
	/* an unknown level is not marked */
	assert_null(strstr(t, "past LLC"));
	assert_non_null(strstr(t, "  steps         32 KiB (x4.0)\n"));
	assert_non_null(strstr(t, "  L1d           16 KiB (sysfs): the curve steps up at 32 KiB: "
	                          "consistent\n"));
	/* the curve reaches twice L2 without a step: "not where the curve
	 * says"; LLC (0: unknown) is not judged */
	assert_non_null(strstr(t, "  L2            64 KiB (cpuid): no step between 64 KiB and "
	                          "256 KiB: not where\n"));
	assert_non_null(strstr(t, "  LLC           no figure: nothing to check\n"));
	assert_non_null(strstr(t, "sysconf says 1 GiB, rejected as implausible"));
	free(t);
	CAPTURE(t, pb_curve_print(out, &c, pts, 6, true));
	assert_null(strstr(t, "the reported cache sizes"));
	free(t);
}

/* pb_curve_llc_step: the step above a size that rises most, if by at
 * least min_rise. A curve at 2^k and 1.5 x 2^k from 256 KiB to 512 MiB,
 * as the sweep makes: 1 ns to 1 MiB (L2), 10 ns to 24 MiB, 30 ns at
 * 32 MiB, 80 ns from 48 MiB (DRAM past a 32 MiB LLC), 120 ns from
 * 384 MiB (a page-walk step, x1.5). */
/* Sweeps agree when more than half found the step and the largest is
 * within twice the smallest: then the median (the upper middle). */
static void test_llc_agree(void **state)
{
	(void)state;
	uint64_t llc = 7;
	uint64_t a[3] = {64u << 20, 32u << 20, 48u << 20};
	assert_true(pb_curve_llc_agree(a, 3, 3, &llc));
	assert_int_equal(llc, 48u << 20);
	assert_true(a[0] == 32u << 20 && a[2] == 64u << 20); /* sorted */
	uint64_t b[2] = {64u << 20, 32u << 20};
	assert_true(pb_curve_llc_agree(b, 2, 3, &llc));
	assert_int_equal(llc, 64u << 20);
	uint64_t c[2] = {256u << 20, 4u << 20}; /* 64x apart */
	llc = 7;
	assert_false(pb_curve_llc_agree(c, 2, 3, &llc));
	assert_int_equal(llc, 7);
	uint64_t d[1] = {32u << 20}; /* one of three: not most */
	assert_false(pb_curve_llc_agree(d, 1, 3, &llc));
	assert_false(pb_curve_llc_agree(d, 0, 3, &llc));
}

static void test_llc_step(void **state)
{
	(void)state;
	struct pb_curve_point pts[32];
	int n = 0;
	for (uint64_t b = 256 << 10; b <= 512ull << 20; b *= 2) {
		uint64_t sz[2] = {b, b + b / 2};
		for (int k = 0; k < 2 && sz[k] <= 512ull << 20; k++) {
			double ns = sz[k] <= (1 << 20)     ? 1
			            : sz[k] <= (24u << 20) ? 10
			            : sz[k] <= (32u << 20) ? 30
			            : sz[k] < (384u << 20) ? 80
			                                   : 120;
			pts[n++] = (struct pb_curve_point){.size_bytes = sz[k], .ns_per_load = ns};
		}
	}
	uint64_t from = 0;
	double rise = 0;
	/* above twice L2 (the step at 1.5 MiB is L2's own): the 32..64 MiB
	 * step (8x over 24 MiB's 10 ns), not the later, smaller one at
	 * 384 MiB */
	assert_int_equal(pb_curve_llc_step(pts, n, 2 << 20, 2.0, &from, &rise), 1);
	assert_int_equal(from, 32u << 20);
	assert_true(fabs(rise - 8.0) < 1e-9);
	/* above 64 MiB only the x1.5 step: under min_rise 2, none; under
	 * 1.3, it */
	from = 7;
	assert_int_equal(pb_curve_llc_step(pts, n, 64u << 20, 2.0, &from, &rise), 0);
	assert_int_equal(from, 7);
	assert_int_equal(pb_curve_llc_step(pts, n, 64u << 20, 1.3, &from, &rise), 1);
	assert_int_equal(from, 384u << 20);
	/* above 512 KiB the L2 step (x10 at 1.5 MiB) rises most */
	assert_int_equal(pb_curve_llc_step(pts, n, 512 << 10, 2.0, &from, &rise), 1);
	assert_int_equal(from, 3u << 19);
	assert_int_equal(pb_curve_llc_step(pts, 0, 0, 2.0, &from, &rise), 0);
}

static void test_loaded_and_map_rows(void **state)
{
	(void)state;
	struct pb_loaded_row lr[2] = {{.threads = 0,
	                               .ns_per_load = 100.04,
	                               .ticks_per_load = 260.0,
	                               .load_gb_per_s = 0,
	                               .spread = 0.1},
	                              {.threads = 3,
	                               .ns_per_load = 180.0,
	                               .ticks_per_load = 468.0,
	                               .load_gb_per_s = 21.456,
	                               .spread = NAN}};
	char *t = NULL;
	CAPTURE(t, pb_loaded_print(out, lr, 2));
	assert_string_equal(t, "  load threads    ns/load   ticks/load  load GB/s  spread\n"
	                       "             0      100.0        260.0       0.00   10.0%\n"
	                       "             3      180.0        468.0      21.46       -\n");
	free(t);
	/* a load level whose threads got no CPU time is named as such */
	lr[1].load_gb_per_s = 0;
	CAPTURE(t, pb_loaded_print(out, lr, 2));
	assert_non_null(strstr(t, "note: a load level with 0 GB/s: its load threads got no CPU"));
	free(t);
	struct pb_map_row m[2] = {{.pages = "2M",
	                           .source = "hugetlbfs",
	                           .threads = 4,
	                           .gb_per_s = 12.345,
	                           .ns_per_4k = 300.0,
	                           .ns_per_page = 153600.0,
	                           .spread = 0.05},
	                          {.pages = "4K",
	                           .source = "4K",
	                           .threads = 1,
	                           .gb_per_s = 4,
	                           .ns_per_4k = 1024,
	                           .ns_per_page = 1024,
	                           .spread = NAN}};
	CAPTURE(t, pb_map_print(out, m, 2));
	assert_string_equal(t,
	                    "pages source    threads     GB/s   ns/4KiB     ns/page    spread\n"
	                    "2M    hugetlbfs       4    12.35     300.0    153600.0      5.0%\n"
	                    "4K    4K              1     4.00    1024.0      1024.0         -\n");
	free(t);
	/* a row with the interval of replicates: the "95% CI" column appears */
	m[0].has_ci = true;
	m[0].ci = 0.012;
	CAPTURE(t, pb_map_print(out, m, 2));
	assert_string_equal(
	    t, "pages source    threads     GB/s   ns/4KiB     ns/page   95% CI    spread\n"
	       "2M    hugetlbfs       4    12.35     300.0    153600.0   +-1.2%      5.0%\n"
	       "4K    4K              1     4.00    1024.0      1024.0        -         -\n");
	free(t);
}

static void test_caches_of(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("latency/curve_a.json", &f);
	struct pb_cache_info c;
	assert_int_equal(pb_curve_caches_of(&f.mach, &c), 0);
	const json_t *caches = json_object_get(pb_results_file_machine_json(&f), "caches");
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const char *name = pb_cache_level_name((enum pb_cache_level)l);
		const json_t *o = json_object_get(caches, name);
		assert_int_equal(c.level[l].size_bytes, key_int(o, "size_bytes"));
		assert_string_equal(pb_cache_source_name(c.level[l].source),
		                    json_string_value(json_object_get(o, "source")));
		const char *src;
		json_t *v;
		json_object_foreach(json_object_get(o, "by_source"), src, v)
		{
			int s = 0;
			while (s < PB_SRC_COUNT &&
			       strcmp(src, pb_cache_source_name((enum pb_cache_source)s)))
				s++;
			assert_true(s < PB_SRC_COUNT);
			assert_int_equal(c.level[l].by_source_bytes[s], key_int(v, "size_bytes"));
			assert_int_equal(c.level[l].plausible[s],
			                 json_is_true(json_object_get(v, "plausible")));
		}
	}
	struct pb_results_machine none = {0};
	assert_int_equal(pb_curve_caches_of(&none, &c), -1);
	assert_int_equal(c.level[PB_CACHE_L1D].size_bytes, 0);
	pb_results_file_free(&f);
}

/* ---- report ------------------------------------------------------------- */

static char *report_text(const char *path, enum pb_format fmt)
{
	struct pb_results_file f;
	load(path, &f);
	char *t = NULL;
	CAPTURE(t, assert_int_equal(pb_format_write(out, &f, fmt), 0));
	pb_results_file_free(&f);
	return t;
}

/* Every latency case of path as a row of the curve or loaded table, its
 * figures the file's own. */
static void check_latency_rows(const char *path, const char *t)
{
	struct pb_results_file f;
	load(path, &f);
	for (size_t i = 0; i < f.ncases; i++) {
		const json_t *cj = case_json(&f, i),
		             *key = pb_results_case_key_json(&f, &f.cases[i]);
		double ns = member(cj, "median_derived", "ns_per_load");
		double med = member(cj, "per_call", "median");
		double spread =
		    (member(cj, "per_call", "max") - member(cj, "per_call", "min")) / med;
		char row[160], sp[16];
		snprintf(sp, sizeof sp, "%.1f%%", 100 * spread);
		if (json_object_get(key, "load_threads"))
			snprintf(row, sizeof row, "  %12lld %10.1f %12.1f %10.2f %7s\n",
			         key_int(key, "load_threads"), ns, med,
			         member(cj, "median_derived", "load_gb_per_s"), sp);
		else {
			char sz[32];
			pb_format_bytes(sz, sizeof sz, (double)key_int(key, "size_bytes"),
			                PB_BYTES_IEC);
			snprintf(row, sizeof row, "  %10s %10.1f %12.1f %7s", sz, ns, med, sp);
		}
		if (!strstr(t, row))
			fail_msg("%s: no row '%s' in:\n%s", path, row, t);
	}
	pb_results_file_free(&f);
}

static void test_report_latency(void **state)
{
	(void)state;
	char *t = report_text("latency/curve_a.json", PB_FORMAT_TEXT);
	check_latency_rows("latency/curve_a.json", t);
	assert_non_null(strstr(t, "latency: the curve (pointer chase"));
	assert_non_null(strstr(t, "THP requested"));
	/* L1d (32 KiB in the file) marked on the first point past it */
	assert_non_null(strstr(t, "      64 KiB "));
	assert_true(strstr(t, "(past L1d 32 KiB)") > strstr(t, "      64 KiB "));
	assert_true(strstr(t, "(past L1d 32 KiB)") < strstr(t, "     128 KiB "));
	assert_non_null(strstr(t, "the reported cache sizes against the curve"));
	assert_non_null(strstr(t, "sysconf says 320 MiB, rejected as implausible"));
	assert_null(strstr(t, "size_bytes="));
	assert_null(strstr(t, "tsc_ticks per call"));
	free(t);

	t = report_text("latency/pages.json", PB_FORMAT_TEXT);
	check_latency_rows("latency/pages.json", t);
	assert_non_null(strstr(t, "latency 4K: the curve"));
	assert_non_null(strstr(t, "latency 2M THP: the curve"));
	assert_non_null(strstr(t, "4K pages from base pages (THP off)"));
	assert_non_null(strstr(t, "2M pages from THP"));
	free(t);

	t = report_text("latency/loaded.json", PB_FORMAT_TEXT);
	check_latency_rows("latency/loaded.json", t);
	assert_non_null(
	    strstr(t, "latency loaded memcpy/libc: loaded latency (the chase over 8 MiB"));
	assert_non_null(strstr(t, "  load threads    ns/load   ticks/load  load GB/s  spread\n"));
	free(t);

	/* markdown keeps the generic table, with the new names */
	t = report_text("latency/pages.json", PB_FORMAT_MARKDOWN);
	assert_non_null(strstr(t, "### latency 2M THP (tsc_ticks per call)"));
	assert_non_null(strstr(t, "| 64K | 5 |"));
	free(t);
}

static void test_report_map(void **state)
{
	(void)state;
	const char *paths[] = {"latency/map_a.json", "latency/map_threads.json"};
	for (size_t p = 0; p < 2; p++) {
		char *t = report_text(paths[p], PB_FORMAT_TEXT);
		assert_non_null(strstr(t, "map demand: per page size and thread count"));
		assert_non_null(strstr(t,
		                       "pages source    threads     GB/s   ns/4KiB     ns/page    "
		                       "spread\n"));
		struct pb_results_file f;
		load(paths[p], &f);
		for (size_t i = 0; i < f.ncases; i++) {
			const json_t *cj = case_json(&f, i),
			             *key = pb_results_case_key_json(&f, &f.cases[i]);
			char pg[32], row[160], sp[16];
			double med = member(cj, "per_call", "median");
			snprintf(
			    sp, sizeof sp, "%.1f%%",
			    100 * (member(cj, "per_call", "p90") - member(cj, "per_call", "p10")) /
			        med);
			pb_format_bytes(pg, sizeof pg, (double)key_int(key, "page_bytes"),
			                PB_BYTES_EXACT);
			snprintf(row, sizeof row, "%-5s %-9s %7lld %8.2f %9.1f %11.1f %9s\n", pg,
			         json_string_value(json_object_get(key, "page_source")),
			         key_int(key, "threads"), member(cj, "median_derived", "gb_per_s"),
			         member(cj, "median_derived", "ns_per_4k_page"),
			         member(cj, "median_derived", "ns_per_page"), sp);
			if (!strstr(t, row))
				fail_msg("%s: no row '%s' in:\n%s", paths[p], row, t);
		}
		pb_results_file_free(&f);
		free(t);
	}
}

/* ---- compare ------------------------------------------------------------ */

static bool has_note(const struct pb_compare_result *r, const char *text)
{
	for (size_t i = 0; i < r->nnotes; i++)
		if (strstr(r->notes[i], text))
			return true;
	return false;
}

static void compare_pair(const char *a, const char *b, double level, const char *unit, bool ci_note)
{
	struct pb_results_file f[2];
	load(a, &f[0]);
	load(b, &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[1], level, false, &r), 0);
	assert_int_equal(r.nrows, f[0].ncases);
	for (size_t i = 0; i < r.nrows; i++) {
		const struct pb_compare_row *row = &r.rows[i];
		assert_string_equal(row->unit, unit);
		/* ticks per load or page as ns (per 4 KiB for map) */
		long long page = key_int(pb_results_case_key_json(&f[0], row->a), "page_bytes");
		double per = !strcmp(unit, "ns/4KiB") ? 4096.0 / (double)page : 1;
		const json_t *ca = json_array_get(
		    json_object_get(pb_results_file_json(&f[0]), "cases"), row->a->index);
		double want = member(ca, "per_call", "median") * 1e9 / f[0].tsc_hz * per;
		assert_true(fabs(row->sa.median / want - 1) < 1e-9);
		if (!strcmp(unit, "ns/load"))
			assert_true(
			    fabs(row->sa.median / member(ca, "median_derived", "ns_per_load") - 1) <
			    1e-6);
		else
			assert_true(
			    fabs(row->sa.median / member(ca, "median_derived", "ns_per_4k_page") -
			         1) < 1e-6);
	}
	assert_int_equal(has_note(&r, "without a"), ci_note);
	if (ci_note) {
		assert_true(has_note(&r, "a 95% interval of a median needs 6"));
		assert_int_equal(has_note(&r, "mem map --rounds N"), !strcmp(unit, "ns/4KiB"));
	}
	char *t = NULL;
	CAPTURE(t, pb_compare_print(out, &r));
	char head[64];
	snprintf(head, sizeof head, "old %s", unit);
	assert_non_null(strstr(t, head));
	assert_non_null(strstr(t, !strcmp(unit, "ns/load") ? "ns per dependent load"
	                                                   : "ns per 4 KiB of the region"));
	free(t);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

static void test_compare(void **state)
{
	(void)state;
	/* latency: 5 rounds, never a 95% CI of the median */
	compare_pair("latency/curve_a.json", "latency/curve_b.json", 0.95, "ns/load", true);
	compare_pair("latency/loaded.json", "latency/loaded.json", 0.95, "ns/load", true);
	/* map: 8 rounds have one, 3 do not */
	compare_pair("latency/map_a.json", "latency/map_b.json", 0.95, "ns/4KiB", false);
	compare_pair("latency/map_3rounds.json", "latency/map_3rounds_b.json", 0.95, "ns/4KiB",
	             true);
}

/* ---- plot --------------------------------------------------------------- */

/* The data file of the plot clause titled `title`. */
static char *dat_of(const char *script, const char *title)
{
	char want[160];
	snprintf(want, sizeof want, "title \"%s\"", title);
	const char *t = strstr(script, want);
	if (!t)
		fail_msg("no clause titled '%s' in:\n%s", title, script);
	const char *q = t;
	while (q > script && strncmp(q, ".dat\"", 5))
		q--;
	char name[8];
	memcpy(name, q - 3, 7);
	name[7] = '\0';
	return slurp(name);
}

static char *plot(const char **paths, const char **labels, size_t n, struct pb_results_file *f)
{
	clean();
	struct pb_plot_input in[4];
	for (size_t i = 0; i < n; i++) {
		load(paths[i], &f[i]);
		in[i] = (struct pb_plot_input){labels[i], &f[i]};
	}
	struct pb_plot_opts o = {.output = "/tmp/out.png", .unit = PB_UNIT_GB_S, .title = NULL};
	if (pb_plot_write(in, n, &o, dir) != 0)
		fail_msg("%s", pb_error());
	return slurp(PB_PLOT_SCRIPT);
}

/* Every row of a data file "x y lo hi ..." against the cases of f it
 * draws: latency, those of group; map, those of page size `group`. */
static void check_dat(const char *dat, const struct pb_results_file *f, const char *group, bool map)
{
	size_t rows = 0;
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_results_case *c = &f->cases[i];
		const json_t *ckey = pb_results_case_key_json(f, c);
		char *g, *l;
		pb_results_key_name(ckey, &g, &l);
		bool mine = map ? key_int(ckey, "page_bytes") == atoll(group) : !strcmp(g, group);
		free(g);
		free(l);
		if (!mine)
			continue;
		const json_t *cj = case_json(f, i);
		double x, y, lo, hi;
		if (map) {
			double b = (double)key_int(ckey, "page_bytes") * f->tsc_hz / 1e9;
			x = (double)key_int(ckey, "threads");
			y = b / member(cj, "per_call", "median");
			lo = b / member(cj, "per_call", "p90");
			hi = b / member(cj, "per_call", "p10");
			assert_true(fabs(y / member(cj, "median_derived", "gb_per_s") - 1) < 1e-6);
		} else {
			double k = 1e9 / f->tsc_hz;
			x = json_object_get(ckey, "load_threads")
			        ? member(cj, "median_derived", "load_gb_per_s")
			        : (double)key_int(ckey, "size_bytes");
			y = member(cj, "per_call", "median") * k;
			lo = member(cj, "per_call", "min") * k;
			hi = member(cj, "per_call", "max") * k;
		}
		char line[160];
		snprintf(line, sizeof line, "%.6g %.6g %.6g %.6g", x, y, lo, hi);
		if (!strstr(dat, line))
			fail_msg("no row '%s' in:\n%s", line, dat);
		rows++;
	}
	assert_true(rows > 0);
}

static void test_plot_latency(void **state)
{
	(void)state;
	struct pb_results_file f[3];
	const char *paths[] = {"latency/curve_a.json", "latency/pages.json", "latency/loaded.json"};
	const char *labels[] = {"curve", "pages", "loaded"};
	char *s = plot(paths, labels, 3, f);
	assert_non_null(s);
	assert_non_null(strstr(s, "set multiplot layout 2,1 title \"primbench latency results:"));
	assert_non_null(strstr(s, "set logscale x 2\n"));
	assert_non_null(strstr(s, "set logscale y 10\n"));
	/* the first file's cache sizes, with their source: L1d and L2 inside
	 * 4K..1M, LLC said in words */
	assert_non_null(strstr(s, "set arrow from 32768, graph 0 to 32768, graph 1 nohead"));
	assert_non_null(strstr(s, "(\"L1d 32K\\n(sysfs)\" 32768)"));
	assert_non_null(strstr(s, "(\"L2 1M\\n(sysfs)\" 1048576)"));
	assert_non_null(strstr(s, "outside the curve: LLC 32M (sysfs)"));
	assert_non_null(strstr(s, "set title \"loaded latency"));
	assert_non_null(strstr(s, "with labels"));
	assert_null(strstr(s, "nan"));
	char *d = dat_of(s, "curve: latency");
	check_dat(d, &f[0], "latency", false);
	free(d);
	d = dat_of(s, "pages: latency 2M THP");
	check_dat(d, &f[1], "latency 2M THP", false);
	free(d);
	d = dat_of(s, "loaded");
	check_dat(d, &f[2], "latency loaded memcpy/libc", false);
	free(d);
	free(s);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);

	/* the curve alone: one panel */
	s = plot(paths, labels, 1, f);
	assert_non_null(strstr(s, "set multiplot layout 1,1"));
	assert_null(strstr(s, "loaded latency"));
	assert_non_null(strstr(s, "title \"latency\""));
	free(s);
	pb_results_file_free(&f[0]);
}

static void test_plot_map(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	/* 1 and 2 threads: GB/s against threads */
	const char *p1[] = {"latency/map_a.json", "latency/map_threads.json"};
	const char *l1[] = {"one", "two"};
	char *s = plot(p1, l1, 2, f);
	assert_non_null(strstr(s, "GB/s against threads"));
	assert_non_null(strstr(s, "set xrange [0.5:2.5]"));
	char *d = dat_of(s, "one: demand 2M THP");
	check_dat(d, &f[0], "2097152", true);
	free(d);
	d = dat_of(s, "two: demand 4K");
	check_dat(d, &f[1], "4096", true);
	free(d);
	free(s);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);

	/* one thread count: bars per page size and file */
	const char *p2[] = {"latency/map_a.json", "latency/map_b.json"};
	s = plot(p2, l1, 2, f);
	assert_non_null(strstr(s, "GB/s on 1 thread\""));
	assert_non_null(strstr(s, "with boxes"));
	assert_non_null(strstr(s, "set xtics (\"demand 4K\" 1, \"demand 2M THP\" 2)"));
	free(s);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

static void test_plot_refused(void **state)
{
	(void)state;
	struct pb_results_file l, m, mem;
	load("latency/curve_a.json", &l);
	load("latency/map_a.json", &m);
	load("plot/mem_sweep.json", &mem);
	struct pb_plot_input in[2] = {{"l", &l}, {"m", &m}};
	assert_int_equal(pb_plot_check(in, 2), -1);
	assert_string_equal(pb_error(), "latency and map results cannot share a plot (l, m)");
	in[1] = (struct pb_plot_input){"s", &mem};
	assert_int_equal(pb_plot_check(in, 2), -1);
	assert_string_equal(pb_error(), "latency and mem results cannot share a plot (l, s)");
	in[0] = (struct pb_plot_input){"m", &m};
	assert_int_equal(pb_plot_check(in, 1), 0);
	pb_results_file_free(&l);
	pb_results_file_free(&m);
	pb_results_file_free(&mem);
}

int main(void)
{
	/* into tests/data, found from this file's path (CMake compiles with
	 * absolute source paths) */
	char src[PATH_MAX], data[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(data, sizeof data, "%s/data", dirname(src));
	if (chdir(data) != 0) {
		perror(data);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_curve_marks_and_steps),
	    cmocka_unit_test(test_llc_step),
	    cmocka_unit_test(test_llc_agree),
	    cmocka_unit_test(test_loaded_and_map_rows),
	    cmocka_unit_test(test_caches_of),
	    cmocka_unit_test(test_report_latency),
	    cmocka_unit_test(test_report_map),
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_plot_latency),
	    cmocka_unit_test(test_plot_map),
	    cmocka_unit_test(test_plot_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
