/* compare_gate.c - the regression gate of `primbench compare
 * --fail-if-slower` (include/primbench/compare.h, pb_compare_gate): which
 * cases, and which geometric means of a group's cases, a comparison shows
 * slower than a threshold, judged on the run-level intervals compare.c
 * computed (docs/statistics.md, "The regression gate"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/replicates.h"
#include "primbench/twosample.h"
#include "primbench/xalloc.h"

/* A judged change fails the gate: shown different (pb_verdict with the
 * comparison's margin) and its interval's lower end slower than pct. */
static bool fails(enum pb_verdict v, double pct_lo, double pct)
{
	return v == PB_VERDICT_DIFFERENT && pct_lo > pct;
}

static void add_failure(struct pb_gate *g, const struct pb_gate_failure *f)
{
	g->fail = pb_xrealloc(g->fail, (g->nfail + 1) * sizeof *g->fail);
	g->fail[g->nfail++] = *f;
}

/* Whether row i of r belongs to the set: its unit is `unit`, and its
 * group `group` (NULL: any). */
static bool in_set(const struct pb_compare_row *row, const char *group, const char *unit)
{
	return !strcmp(row->unit, unit) && (!group || !strcmp(row->a->group, group));
}

/* The geometric mean of the run-level rows of one set (a group in one
 * unit, or a whole unit when group is NULL), judged on per-run geometric
 * means: run j's figure is the geometric mean over the set's cases of
 * their run j (replicate j of one process, which ran every case in that
 * round, or the side's j-th file), so what moved a whole run moves its
 * figure, and Welch's t on the logs of those figures (pb_runs_ratio)
 * gives the interval, as for one case. Needs two or more cases with the
 * same run counts on each side; 1 when judged (a failure added to g), 0
 * when there is no such set or its counts differ (unjudged: counted when
 * it had two or more cases), -1 with pb_error(). */
static int judge_geomean(const struct pb_compare_result *r, const char *group, const char *unit,
                         double pct, struct pb_gate *g)
{
	size_t k = 0, na = 0, nb = 0;
	bool aligned = true;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (!in_set(row, group, unit) || !row->run_level || !row->run_va || !row->run_vb)
			continue;
		if (k == 0) {
			na = row->runs_a;
			nb = row->runs_b;
		} else if (row->runs_a != na || row->runs_b != nb) {
			aligned = false;
		}
		k++;
	}
	if (k < 2)
		return 0;
	if (!aligned) {
		g->geomeans_unjudged++;
		return 0;
	}
	double *la = pb_xcalloc(na, sizeof *la), *lb = pb_xcalloc(nb, sizeof *lb);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (!in_set(row, group, unit) || !row->run_level || !row->run_va || !row->run_vb)
			continue;
		for (size_t j = 0; j < na; j++)
			la[j] += log(row->run_va[j]) / (double)k;
		for (size_t j = 0; j < nb; j++)
			lb[j] += log(row->run_vb[j]) / (double)k;
	}
	for (size_t j = 0; j < na; j++)
		la[j] = exp(la[j]);
	for (size_t j = 0; j < nb; j++)
		lb[j] = exp(lb[j]);
	struct pb_runs_ratio rr;
	int rc = pb_runs_ratio(la, na, lb, nb, r->level, &rr);
	free(la);
	free(lb);
	if (rc != 0)
		return -1;
	if (!rr.valid) {
		g->geomeans_unjudged++;
		return 0;
	}
	g->geomeans_judged++;
	const struct pb_shift s = {.estimate = rr.estimate,
	                           .lo = rr.lo,
	                           .hi = rr.hi,
	                           .level = r->level,
	                           .coverage = r->level,
	                           .ci_valid = true};
	const struct pb_utest u = {.p = rr.p};
	const struct pb_verdict_rule rule = {.null = 1, .margin = r->margin, .u = &u};
	const struct pb_gate_failure f = {.row = NULL,
	                                  .group = group,
	                                  .unit = unit,
	                                  .n = k,
	                                  .pct = 100 * (rr.estimate - 1),
	                                  .pct_lo = 100 * (rr.lo - 1),
	                                  .pct_hi = 100 * (rr.hi - 1)};
	if (fails(pb_verdict(&s, &rule), f.pct_lo, pct))
		add_failure(g, &f);
	return 1;
}

/* Whether an earlier row than i has i's group (group set) and unit. */
static bool seen_before(const struct pb_compare_result *r, size_t i, bool group)
{
	const struct pb_compare_row *row = &r->rows[i];
	for (size_t j = 0; j < i; j++)
		if (in_set(&r->rows[j], group ? row->a->group : NULL, row->unit))
			return true;
	return false;
}

int pb_compare_gate(const struct pb_compare_result *r, double pct, struct pb_gate *out)
{
	memset(out, 0, sizeof *out);
	if (!(pct >= 0) || !isfinite(pct)) {
		pb_fail("gate: threshold %g%% is not a percentage >= 0", pct);
		return -1;
	}
	out->pct = pct;
	/* the cases, in the table's order of rows */
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (row->one_run || !row->shift.ci_valid) {
			out->cases_unjudged++;
			continue;
		}
		out->cases_judged++;
		if (fails(row->verdict, row->pct_lo, pct))
			add_failure(out, &(struct pb_gate_failure){.row = row,
			                                           .group = row->a->group,
			                                           .unit = row->unit,
			                                           .n = 1,
			                                           .pct = row->pct,
			                                           .pct_lo = row->pct_lo,
			                                           .pct_hi = row->pct_hi});
	}
	/* each group's geometric mean (per unit), in order of first appearance */
	for (size_t i = 0; i < r->nrows; i++)
		if (!seen_before(r, i, true) &&
		    judge_geomean(r, r->rows[i].a->group, r->rows[i].unit, pct, out) < 0)
			goto fail;
	/* a unit's over every group, where it spans more than one */
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (seen_before(r, i, false))
			continue;
		bool several = false;
		for (size_t j = i + 1; j < r->nrows && !several; j++)
			several = !strcmp(r->rows[j].unit, row->unit) &&
			          strcmp(r->rows[j].a->group, row->a->group);
		if (several && judge_geomean(r, NULL, row->unit, pct, out) < 0)
			goto fail;
	}
	return 0;
fail:
	pb_gate_free(out);
	return -1;
}

void pb_gate_free(struct pb_gate *g)
{
	free(g->fail);
	memset(g, 0, sizeof *g);
}
