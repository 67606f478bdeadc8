/* test_gate.c - the regression gate of `primbench compare --fail-if-slower`
 * (pb_compare_gate, include/primbench/compare.h): synthetic rows (slower
 * beyond the threshold, slower but inside it, an interval that crosses 0,
 * faster, one run a side, a group's geometric mean that fails while none
 * of its cases does, run counts that differ, a unit across groups), the
 * "gate" object of the compare document, and the fixtures of
 * tests/data/gate (an A/A pair, and libc's memset forced onto rep stosb). */
#define _GNU_SOURCE
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

#include <jansson.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/twosample.h"
#include "results/results_json.h"

#define MARGIN 0.01

/* A case of group `group` named `label` (only what the gate reads). */
static struct pb_results_case make_case(const char *group, const char *label)
{
	return (struct pb_results_case){.group = (char *)group, .label = (char *)label};
}

/* A row with a change pct [lo, hi] in % and its verdict as compare gives
 * it (run level, margin 1%), without run figures. */
static void set_row(struct pb_compare_row *row, const struct pb_results_case *c, double pct,
                    double lo, double hi, double p)
{
	memset(row, 0, sizeof *row);
	row->a = row->b = c;
	row->unit = "tsc_ticks";
	row->ratio = true;
	row->run_level = true;
	row->runs_a = row->runs_b = 5;
	row->shift = (struct pb_shift){.estimate = 1 + pct / 100,
	                               .lo = 1 + lo / 100,
	                               .hi = 1 + hi / 100,
	                               .level = 0.95,
	                               .coverage = 0.95,
	                               .ci_valid = true};
	row->u.p = p;
	row->pct = pct;
	row->pct_lo = lo;
	row->pct_hi = hi;
	const struct pb_verdict_rule rule = {.null = 1, .margin = MARGIN, .u = &row->u};
	row->verdict = pb_verdict(&row->shift, &rule);
	row->significant = row->verdict == PB_VERDICT_DIFFERENT;
}

/* A run-level row from its runs' figures a[0..na), b[0..nb), judged as
 * compare.c judges one (Welch's t on the logs, pb_verdict at 1%). */
static void runs_row(struct pb_compare_row *row, const struct pb_results_case *c, const char *unit,
                     const double *a, size_t na, const double *b, size_t nb)
{
	struct pb_runs_ratio rr;
	assert_int_equal(pb_runs_ratio(a, na, b, nb, 0.95, &rr), 0);
	assert_true(rr.valid);
	set_row(row, c, 100 * (rr.estimate - 1), 100 * (rr.lo - 1), 100 * (rr.hi - 1), rr.p);
	row->unit = unit;
	row->runs_a = na;
	row->runs_b = nb;
	row->runs = rr;
	row->run_va = malloc(na * sizeof *a);
	row->run_vb = malloc(nb * sizeof *b);
	memcpy(row->run_va, a, na * sizeof *a);
	memcpy(row->run_vb, b, nb * sizeof *b);
}

static struct pb_compare_result make_result(size_t n)
{
	struct pb_compare_result r = {.level = 0.95, .margin = MARGIN};
	r.rows = calloc(n, sizeof *r.rows);
	r.nrows = n;
	return r;
}

static void test_cases(void **state)
{
	(void)state;
	struct pb_results_case c[6] = {
	    make_case("memset hot", "libc 256"), make_case("memset hot", "libc 4K"),
	    make_case("memset hot", "bytes 64"), make_case("memset hot", "avx2 4K"),
	    make_case("memset hot", "erms 64"),  make_case("memset hot", "libc 64"),
	};
	struct pb_compare_result r = make_result(6);
	set_row(&r.rows[0], &c[0], 35.2, 33.0, 37.5, 0.001);   /* slower beyond 2% */
	set_row(&r.rows[1], &c[1], 3.0, 1.5, 4.5, 0.01);       /* slower, not shown beyond 2% */
	set_row(&r.rows[2], &c[2], 4.0, -1.0, 9.0, 0.2);       /* crosses 0 */
	set_row(&r.rows[3], &c[3], -10.0, -12.0, -8.0, 0.001); /* faster */
	set_row(&r.rows[4], &c[4], 40.0, 20.0, 60.0, 0.01);    /* one run a side */
	r.rows[4].one_run = true;
	r.rows[4].run_level = false;
	r.rows[4].verdict = PB_VERDICT_NONE;
	set_row(&r.rows[5], &c[5], 2.5, 2.1, 2.9, 0.001); /* shown beyond 2%, just */
	assert_int_equal(r.rows[0].verdict, PB_VERDICT_DIFFERENT);
	assert_int_equal(r.rows[1].verdict, PB_VERDICT_DIFFERENT);
	assert_int_equal(r.rows[2].verdict, PB_VERDICT_NONE);
	assert_int_equal(r.rows[3].verdict, PB_VERDICT_DIFFERENT);

	struct pb_gate g;
	assert_int_equal(pb_compare_gate(&r, 2, &g), 0);
	assert_true(g.pct == 2);
	assert_int_equal(g.nfail, 2);
	assert_ptr_equal(g.fail[0].row, &r.rows[0]);
	assert_string_equal(g.fail[0].group, "memset hot");
	assert_int_equal(g.fail[0].n, 1);
	assert_true(g.fail[0].pct_lo == 33.0 && g.fail[0].pct_hi == 37.5);
	assert_ptr_equal(g.fail[1].row, &r.rows[5]);
	assert_int_equal(g.cases_judged, 5);
	assert_int_equal(g.cases_unjudged, 1);
	/* no run figures in these rows: no geometric mean */
	assert_int_equal(g.geomeans_judged, 0);
	pb_gate_free(&g);

	/* a threshold of 0: every shown slowdown (the row inside 2% too) */
	assert_int_equal(pb_compare_gate(&r, 0, &g), 0);
	assert_int_equal(g.nfail, 3);
	assert_ptr_equal(g.fail[1].row, &r.rows[1]);
	pb_gate_free(&g);
	/* a high one: nothing */
	assert_int_equal(pb_compare_gate(&r, 50, &g), 0);
	assert_int_equal(g.nfail, 0);
	assert_int_equal(g.cases_judged, 5);
	pb_gate_free(&g);
	/* a threshold that is no percentage */
	assert_int_equal(pb_compare_gate(&r, -1, &g), -1);
	assert_non_null(strstr(pb_error(), "threshold"));
	assert_int_equal(pb_compare_gate(&r, NAN, &g), -1);

	/* every row one run a side: nothing judged, nothing fails */
	for (size_t i = 0; i < r.nrows; i++) {
		r.rows[i].one_run = true;
		r.rows[i].run_level = false;
		r.rows[i].verdict = PB_VERDICT_NONE;
	}
	assert_int_equal(pb_compare_gate(&r, 0, &g), 0);
	assert_int_equal(g.nfail, 0);
	assert_int_equal(g.cases_judged, 0);
	assert_int_equal(g.cases_unjudged, 6);
	pb_gate_free(&g);
	pb_compare_result_free(&r);
}

/* Five cases each +4% slower with 2-4% noise a run: alone, none is shown
 * beyond 1% (their intervals reach below it); their geometric mean,
 * whose noise averages out run by run, is. */
static void test_geomean_fails_alone(void **state)
{
	(void)state;
	static const double e[5] = {-0.04, 0.02, 0.0, 0.03, -0.01};
	enum { K = 5, R = 5 };
	struct pb_results_case c[K + 1];
	static const char *const labels[K] = {"libc 64", "libc 256", "libc 1K", "libc 4K",
	                                      "libc 16K"};
	struct pb_compare_result r = make_result(K + 1);
	for (size_t k = 0; k < K; k++) {
		double a[R], b[R];
		for (size_t j = 0; j < R; j++) {
			a[j] = 100 * (1 + e[(j + k) % R]);
			b[j] = 104 * (1 + e[(j + 2 * k + 1) % R]);
		}
		c[k] = make_case("memset hot", labels[k]);
		runs_row(&r.rows[k], &c[k], "tsc_ticks", a, R, b, R);
		assert_true(r.rows[k].pct_lo < 1);
	}
	/* another group, in the same unit, unchanged */
	c[K] = make_case("memset dram", "libc 4K");
	const double flat_a[R] = {100, 101, 99, 100, 100}, flat_b[R] = {100, 99, 101, 100, 100};
	runs_row(&r.rows[K], &c[K], "tsc_ticks", flat_a, R, flat_b, R);

	struct pb_gate g;
	assert_int_equal(pb_compare_gate(&r, 1, &g), 0);
	assert_int_equal(g.cases_judged, K + 1);
	/* memset hot's geomean (memset dram has one case: none), and the
	 * unit's across both groups */
	assert_int_equal(g.geomeans_judged, 2);
	assert_true(g.nfail >= 1);
	const struct pb_gate_failure *f = &g.fail[0];
	assert_null(f->row);
	assert_string_equal(f->group, "memset hot");
	assert_string_equal(f->unit, "tsc_ticks");
	assert_int_equal(f->n, K);
	/* every run's geomean is exactly 4% up: e sums to 0 over the cases */
	assert_true(fabs(f->pct - 4) < 1e-9);
	assert_true(f->pct_lo > 1 && f->pct_lo <= f->pct && f->pct <= f->pct_hi);
	if (g.nfail == 2) {
		assert_null(g.fail[1].group);
		assert_int_equal(g.fail[1].n, K + 1);
	}

	/* the compare document records it */
	struct pb_results_doc *doc = pb_results_compare_new(0, NULL, 0.95, MARGIN, false, NULL, 0);
	assert_non_null(doc);
	assert_int_equal(pb_results_add_gate(doc, &g), -1); /* no comparison yet */
	json_t *cmp = json_object();
	json_t *arr = json_array();
	json_array_append_new(arr, cmp);
	json_object_set_new(pb_results_doc_json(doc), "comparisons", arr);
	assert_int_equal(pb_results_add_gate(doc, &g), 0);
	json_t *gate = json_object_get(cmp, "gate");
	assert_non_null(gate);
	assert_true(json_is_true(json_object_get(gate, "failed")));
	assert_true(json_number_value(json_object_get(gate, "threshold_pct")) == 1);
	assert_int_equal(json_integer_value(json_object_get(gate, "cases_judged")), K + 1);
	json_t *f0 = json_array_get(json_object_get(gate, "failures"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "kind")), "geomean");
	assert_string_equal(json_string_value(json_object_get(f0, "name")), "memset hot");
	assert_true(json_is_null(json_object_get(f0, "key")));
	assert_int_equal(json_integer_value(json_object_get(f0, "n")), K);
	pb_results_doc_free(doc);
	pb_gate_free(&g);

	/* run counts that differ between the cases: the geomean is not judged */
	r.rows[1].runs_b = 4;
	assert_int_equal(pb_compare_gate(&r, 1, &g), 0);
	assert_int_equal(g.geomeans_judged, 0);
	assert_int_equal(g.geomeans_unjudged, 2);
	assert_int_equal(g.nfail, 0);
	pb_gate_free(&g);
	r.rows[1].runs_b = R;

	/* faster by as much: never a failure */
	for (size_t k = 0; k < K; k++) {
		double *t = r.rows[k].run_va;
		r.rows[k].run_va = r.rows[k].run_vb;
		r.rows[k].run_vb = t;
	}
	assert_int_equal(pb_compare_gate(&r, 1, &g), 0);
	assert_int_equal(g.geomeans_judged, 2);
	assert_int_equal(g.nfail, 0);
	pb_gate_free(&g);
	pb_compare_result_free(&r);
}

static void load(const char *name, struct pb_results_file *f)
{
	if (pb_results_load(name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
}

/* tests/data/gate: a1 and a2 are one build twice (A/A), slow the same with
 * libc's memset forced onto rep stosb at 256 B (README there). */
static void test_fixtures(void **state)
{
	(void)state;
	struct pb_results_file f[3] = {0};
	load("a1.json", &f[0]);
	load("a2.json", &f[1]);
	load("slow.json", &f[2]);
	assert_int_equal(pb_results_name(f, 3), 0);
	struct pb_compare_result r;
	struct pb_gate g;
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(pb_compare_gate(&r, 100 * r.margin, &g), 0);
	assert_int_equal(g.nfail, 0);
	assert_int_equal(g.cases_judged, 2);
	assert_int_equal(g.geomeans_judged, 1);
	pb_gate_free(&g);
	pb_compare_result_free(&r);

	assert_int_equal(pb_compare_run(&f[0], &f[2], 0.95, false, &r), 0);
	assert_int_equal(pb_compare_gate(&r, 2, &g), 0);
	assert_true(g.nfail >= 1);
	assert_non_null(g.fail[0].row);
	assert_string_equal(g.fail[0].row->a->label, "libc 256");
	assert_true(g.fail[0].pct_lo > 2);
	/* the group's geomean is the last failure */
	assert_null(g.fail[g.nfail - 1].row);
	assert_string_equal(g.fail[g.nfail - 1].group, "memset hot");
	pb_gate_free(&g);
	pb_compare_result_free(&r);
	for (int i = 0; i < 3; i++)
		pb_results_file_free(&f[i]);
}

int main(void)
{
	/* into tests/data/gate, found from this file's path (CMake compiles
	 * with absolute source paths) */
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/gate", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_geomean_fails_alone),
	    cmocka_unit_test(test_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
