/* test_by_machine.c - many machines in one table (include/primbench/by_machine.h):
 * figure specs and their errors, rows per fingerprint, files of one
 * machine as its runs, the run-level figure, "-" for a missing figure, and
 * the three writers. Fixtures: tests/data (by_machine/README). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/by_machine.h"
#include "primbench/error.h"
#include "primbench/text.h"

/* The three machines: a real AMD EPYC run, four real Intel Xeon runs (two
 * mem, two syscall), two runs of the synthetic machine. */
static const char *const three[] = {
    "summary/loses-large.json",    "compare/mem_a.json", "compare/sys_a.json",
    "compare/mem_b.json",          "compare/sys_b.json", "by_machine/synthetic_1.json",
    "by_machine/synthetic_2.json",
};
#define NTHREE (sizeof three / sizeof *three)

static struct pb_results_file *load(const char *const *paths, size_t n)
{
	struct pb_results_file *f = calloc(n, sizeof *f);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pb_results_load(paths[i], &f[i]), 0);
	return f;
}

static void unload(struct pb_results_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pb_results_file_free(&f[i]);
	free(f);
}

static void test_parse_default(void **state)
{
	(void)state;
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse(PB_BM_DEFAULT_FIGURES, &g), 0);
	assert_int_equal(g.n, 5);
	assert_string_equal(g.v[0].title, "memset hot 4K");
	assert_int_equal(g.v[0].unit, PB_BM_GBS);
	assert_string_equal(g.v[0].fastest, "kernel");
	assert_string_equal(g.v[1].title, "memset dram 32M");
	assert_string_equal(g.v[2].title, "null");
	assert_int_equal(g.v[2].unit, PB_BM_NS);
	assert_null(g.v[2].fastest);
	assert_string_equal(g.v[4].title, "fault 4K");
	assert_true(g.v[4].cond[2].is_size);
	assert_int_equal(g.v[4].cond[2].bytes, 4096);
	pb_bm_figures_free(&g);

	assert_int_equal(
	    pb_bm_figures_parse("mem/memcpy/dram/1M/libc@ns,suite=xsave+instruction=xsave@ns", &g),
	    0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.v[0].unit, PB_BM_NS);
	assert_null(g.v[0].fastest);
	assert_string_equal(g.v[0].title, "memcpy dram 1M libc");
	assert_string_equal(g.v[1].title, "xsave");
	pb_bm_figures_free(&g);
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *list, *msg;
	} bad[] = {
	    {"mem/memset", "figure 'mem/memset': mem/OP/STATE/SIZE[/KERNEL] has 4 or 5 parts"},
	    {"foo/x", "figure 'foo/x': unknown form"},
	    {"suite=mem+op", "figure 'suite=mem+op': 'op' is not FIELD=VALUE"},
	    {"syscall/null@kb", "figure 'syscall/null@kb': unknown unit 'kb' (ns, gbs)"},
	    {"", "figure '': empty"},
	    {"syscall/null,", "figure '': empty"},
	    {"op=fastest+kernel=fastest", "two fields are 'fastest'"},
	    {"suite=mem+suite=mem", "field 'suite' twice"},
	    {"mem/memset/hot/4Q", "figure 'mem/memset/hot/4Q': bad size '4Q'"},
	    {"mem//hot/4K", "an empty part"},
	    {"=x", "empty field"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct pb_bm_figures g;
		assert_int_equal(pb_bm_figures_parse(bad[i].list, &g), -1);
		if (!strstr(pb_error(), bad[i].msg))
			fail_msg("'%s': got '%s', want '%s'", bad[i].list, pb_error(), bad[i].msg);
		assert_null(strchr(pb_error(), '\n'));
		pb_bm_figures_free(&g);
	}
}

static const struct pb_bm_cell *cell(const struct pb_bm_table *t, size_t m, size_t j)
{
	assert_true(m < t->nm);
	assert_true(j < t->figs->n);
	return &t->m[m].cell[j];
}

static void test_three_machines(void **state)
{
	(void)state;
	struct pb_results_file *f = load(three, NTHREE);
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse(PB_BM_DEFAULT_FIGURES, &g), 0);
	struct pb_bm_table t;
	assert_int_equal(pb_bm_build(f, NTHREE, &g, &t), 0);
	assert_int_equal(t.nm, 3);
	/* rows in order of their first file, runs grouped by fingerprint */
	assert_string_equal(t.m[0].name, "AMD EPYC, 6.18.44-fc-v669, glibc 2.36");
	assert_int_equal(t.m[0].runs, 1);
	assert_string_equal(t.m[1].hash, f[1].mach.fingerprint_hash);
	assert_int_equal(t.m[1].runs, 4);
	assert_int_equal(t.m[1].family, 6);
	assert_string_equal(t.m[2].name,
	                    "Synthetic CPU (test fixture), 6.1.0-synthetic, glibc 2.41");
	assert_int_equal(t.m[2].runs, 2);
	/* memset hot 4K: everywhere, with its kernel */
	for (size_t m = 0; m < 3; m++) {
		assert_true(cell(&t, m, 0)->present);
		assert_non_null(cell(&t, m, 0)->chosen);
		assert_true(cell(&t, m, 0)->has_interval);
		assert_true(cell(&t, m, 0)->lo <= cell(&t, m, 0)->value);
		assert_true(cell(&t, m, 0)->value <= cell(&t, m, 0)->hi);
	}
	/* the Intel files: two mem runs, two syscall runs */
	assert_int_equal(cell(&t, 1, 0)->runs, 2);
	assert_int_equal(cell(&t, 1, 2)->runs, 2);
	/* memset dram 32M: only the synthetic machine has it */
	assert_false(cell(&t, 0, 1)->present);
	assert_false(cell(&t, 1, 1)->present);
	assert_true(cell(&t, 2, 1)->present);
	/* fork and fault: not in the Intel files */
	assert_true(cell(&t, 0, 3)->present);
	assert_false(cell(&t, 1, 3)->present);
	assert_false(cell(&t, 1, 4)->present);
	/* notes: the figures in 2 of the Intel machine's 4 runs */
	bool noted = false;
	for (size_t i = 0; i < t.nnotes; i++)
		noted |= strstr(t.notes[i], "m2: null from 2 of its 4 runs") != NULL;
	assert_true(noted);
	pb_bm_table_free(&t);
	pb_bm_figures_free(&g);
	unload(f, NTHREE);
}

/* Two runs: the geometric mean of the runs' figures, t across them. */
static void test_runs_geomean(void **state)
{
	(void)state;
	static const char *const syn[] = {"by_machine/synthetic_1.json",
	                                  "by_machine/synthetic_2.json"};
	struct pb_results_file *f = load(syn, 2);
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse("syscall/null,mem/memset/hot/4K/libc@ns", &g), 0);
	double one[2][2];
	for (size_t r = 0; r < 2; r++) {
		struct pb_bm_table t;
		assert_int_equal(pb_bm_build(&f[r], 1, &g, &t), 0);
		assert_int_equal(t.nm, 1);
		for (size_t j = 0; j < 2; j++) {
			assert_int_equal(cell(&t, 0, j)->runs, 1);
			one[r][j] = cell(&t, 0, j)->value;
		}
		pb_bm_table_free(&t);
	}
	struct pb_bm_table t;
	assert_int_equal(pb_bm_build(f, 2, &g, &t), 0);
	assert_int_equal(t.nm, 1);
	for (size_t j = 0; j < 2; j++) {
		const struct pb_bm_cell *c = cell(&t, 0, j);
		assert_int_equal(c->runs, 2);
		assert_float_equal(c->value, sqrt(one[0][j] * one[1][j]), 1e-9 * c->value);
		/* the runs differ by 5%: the interval holds both and is not one run's */
		assert_true(c->has_interval);
		assert_true(c->lo < fmin(one[0][j], one[1][j]));
		assert_true(c->hi > fmax(one[0][j], one[1][j]));
	}
	/* the synthetic runs are 0.80 and 0.84 of one file: 0.84/0.80 */
	assert_float_equal(one[1][0] / one[0][0], 0.84 / 0.80, 1e-9);
	pb_bm_table_free(&t);
	pb_bm_figures_free(&g);
	unload(f, 2);
}

/* Two AMD configurations (two builds): two rows, told apart by the hash;
 * a field form that matches two cases of a file: the first, and a note. */
static void test_names_and_matching(void **state)
{
	(void)state;
	static const char *const amd[] = {"plot/run_default.json", "summary/loses-large.json"};
	struct pb_results_file *f = load(amd, 2);
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse("suite=syscall+benchmark=fault,syscall/umask", &g), 0);
	struct pb_bm_table t;
	assert_int_equal(pb_bm_build(f, 2, &g, &t), 0);
	assert_int_equal(t.nm, 2);
	assert_non_null(strstr(t.m[0].name, " [12a357d3]"));
	assert_non_null(strstr(t.m[1].name, " [6b940f56]"));
	assert_false(cell(&t, 0, 0)->present); /* no fault in the short run */
	assert_true(cell(&t, 1, 0)->present);
	assert_true(cell(&t, 0, 1)->present);
	bool noted = false;
	for (size_t i = 0; i < t.nnotes; i++)
		noted |= strstr(t.notes[i], "2 cases match suite=syscall+benchmark=fault") != NULL;
	assert_true(noted);
	pb_bm_table_free(&t);
	pb_bm_figures_free(&g);
	unload(f, 2);
}

/* A "fastest" figure takes one case per run and kernel: a file with a
 * kernel's case at 1 and 2 threads (mem --threads) is one run of it, its
 * first case, not two runs averaged; a note says the others were left. */
static void test_fastest_one_case_per_run(void **state)
{
	(void)state;
	static const char *const threads[] = {"plot/mem_threads.json"};
	struct pb_results_file *f = load(threads, 1);
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse("mem/memset/hot/4K,mem/memset/hot/4K/libc", &g), 0);
	struct pb_bm_table t;
	assert_int_equal(pb_bm_build(f, 1, &g, &t), 0);
	assert_int_equal(t.nm, 1);
	const struct pb_bm_cell *fastest = cell(&t, 0, 0), *libc = cell(&t, 0, 1);
	assert_true(fastest->present && libc->present);
	assert_int_equal(fastest->runs, 1);
	assert_int_equal(libc->runs, 1);
	/* the fastest kernel's figure is its first case's, as naming it gives */
	if (!strcmp(fastest->chosen, "libc"))
		assert_true(fastest->value == libc->value);
	bool noted = false;
	for (size_t i = 0; i < t.nnotes; i++)
		noted |= strstr(t.notes[i], "more cases match mem/memset/hot/4K for a kernel "
		                            "already matched") != NULL;
	assert_true(noted);
	pb_bm_table_free(&t);
	pb_bm_figures_free(&g);
	unload(f, 1);
}

static char *write_table(const struct pb_bm_table *t, enum pb_format fmt, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	assert_non_null(m);
	*rc = pb_bm_write(m, t, fmt);
	assert_int_equal(fclose(m), 0);
	return text;
}

static void test_writers(void **state)
{
	(void)state;
	struct pb_results_file *f = load(three, NTHREE);
	struct pb_bm_figures g;
	assert_int_equal(pb_bm_figures_parse(PB_BM_DEFAULT_FIGURES, &g), 0);
	struct pb_bm_table t;
	assert_int_equal(pb_bm_build(f, NTHREE, &g, &t), 0);
	int rc;
	char *s = write_table(&t, PB_FORMAT_TEXT, &rc);
	assert_int_equal(rc, 0);
	for (char *line = s; *line;) {
		char *e = strchr(line, '\n');
		assert_non_null(e);
		assert_true(e - line <= PB_TEXT_WIDTH);
		line = e + 1;
	}
	assert_non_null(
	    strstr(s, "  m3  Synthetic CPU (test fixture), 6.1.0-synthetic, glibc 2.41\n"));
	assert_non_null(strstr(s, "memset dram 32M"));
	free(s);

	s = write_table(&t, PB_FORMAT_MARKDOWN, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(s, "| | machine | runs | memset hot 4K (GB/s) | 95% CI | kernel |"));
	assert_non_null(
	    strstr(s, "| m2 | Intel(R) Xeon(R) Processor, 6.18.44-fc-v769, glibc 2.36 | 4 |"));
	assert_non_null(strstr(s, " | - | - | - |")); /* 32M on the real machines */
	free(s);

	s = write_table(&t, PB_FORMAT_CSV, &rc);
	assert_int_equal(rc, 0);
	assert_true(strncmp(s,
	                    "machine,cpu_brand,cpu_family,cpu_model,kernel,glibc,fingerprint_hash,"
	                    "runs,mem/memset/hot/4K GB/s,mem/memset/hot/4K ci_lo,",
	                    120) == 0);
	/* 4 header lines and rows: one a machine, CRLF ends */
	size_t rows = 0;
	for (char *p = s; (p = strstr(p, "\r\n")); p += 2)
		rows++;
	assert_int_equal(rows, 4);
	/* the Intel machine: no fork, an empty field and 0 runs */
	assert_non_null(strstr(s, ",,,,0,"));
	free(s);

	s = write_table(&t, PB_FORMAT_JSON, &rc);
	assert_int_equal(rc, -1);
	assert_non_null(
	    strstr(pb_error(), "--by-machine writes text, markdown or csv, not 'json'"));
	free(s);
	pb_bm_table_free(&t);
	pb_bm_figures_free(&g);
	unload(f, NTHREE);
}

int main(void)
{
	/* into tests/data, found from this file's path (CMake compiles with
	 * absolute source paths) */
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_default),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_three_machines),
	    cmocka_unit_test(test_runs_geomean),
	    cmocka_unit_test(test_names_and_matching),
	    cmocka_unit_test(test_writers),
	    cmocka_unit_test(test_fastest_one_case_per_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
