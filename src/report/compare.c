/* compare.c - result files side by side (include/primbench/compare.h):
 * matching the cases the reader loaded and named (include/primbench/
 * reader.h) on their key, the machine check, the two-sample figures, the
 * benchstat-style table; results writes a comparison (compare_result.h,
 * docs/results-schema.md "compare output"). */
#define _GNU_SOURCE
#include "primbench/compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/fingerprint.h"
#include "primbench/format.h"
#include "primbench/kernels.h"
#include "primbench/profile.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"

#define NAME_WIDTH 20 /* the case column; longer labels get a line of their own */
#define LIST_MAX   8  /* names listed in "only in" and "skipped" lines */

/* TSC frequencies further apart than this make ticks incomparable. */
#define HZ_TOLERANCE 0.001

static char *full_name(const struct pb_results_case *c)
{
	return pb_xasprintf("%s: %s", c->group, c->label);
}

/* ---- comparing ----------------------------------------------------------- */

static const struct pb_results_case *find_case(const struct pb_results_file *f, const char *canon)
{
	size_t lo = 0, hi = f->ncases;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pb_results_case *c = &f->cases[f->order[mid]];
		int r = strcmp(canon, c->canon);
		if (!r)
			return c;
		if (r < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One side's samples of a case, in the unit compared in, with their runs
 * (rep_n, n_rep as a case's: NULL, 0 for none). */
struct side_samples {
	double *v;
	size_t n;
	size_t *rep_n;
	size_t n_rep;
	size_t files; /* the files they came from */
};

/* The samples of case c (from file `ref`) scaled by `scale`; by_file,
 * those of every file of the side that has the case (in the same unit),
 * pooled, ticks brought to ref's rate first, each file's replicates (or
 * the file, without any) a run. */
static void pool_side(const struct pb_results_case *c, const struct pb_results_file *ref,
                      const struct pb_results_file *const *side, size_t nside, bool by_file,
                      double scale, struct side_samples *out)
{
	memset(out, 0, sizeof *out);
	const struct pb_results_case *only = c;
	size_t total = 0, runs = 0;
	if (by_file) {
		only = NULL;
		for (size_t f = 0; f < nside; f++) {
			const struct pb_results_case *k = find_case(side[f], c->canon);
			if (!k || strcmp(k->unit, c->unit))
				continue;
			out->files++;
			only = out->files == 1 ? k : NULL;
			total += k->n;
			runs += k->n_rep ? k->n_rep : 1;
		}
	}
	if (only) { /* one file: its samples and runs as they are */
		out->files = 1;
		out->n = only->n;
		out->v = pb_xcalloc(only->n ? only->n : 1, sizeof *out->v);
		for (size_t i = 0; i < only->n; i++)
			out->v[i] = only->v[i] * scale;
		if (only->n_rep) {
			out->rep_n = pb_xcalloc(only->n_rep, sizeof *out->rep_n);
			memcpy(out->rep_n, only->rep_n, only->n_rep * sizeof *out->rep_n);
			out->n_rep = only->n_rep;
		}
		return;
	}
	out->v = pb_xcalloc(total ? total : 1, sizeof *out->v);
	out->rep_n = pb_xcalloc(runs ? runs : 1, sizeof *out->rep_n);
	bool ticks = pb_tick_unit_is_counter(c->unit);
	for (size_t f = 0; f < nside; f++) {
		const struct pb_results_case *k = find_case(side[f], c->canon);
		if (!k || strcmp(k->unit, c->unit))
			continue;
		double rate = ticks && ref->tsc_hz > 0 && side[f]->tsc_hz > 0
		                  ? ref->tsc_hz / side[f]->tsc_hz
		                  : 1;
		for (size_t i = 0; i < k->n; i++)
			out->v[out->n++] = k->v[i] * rate * scale;
		if (k->n_rep)
			for (size_t j = 0; j < k->n_rep; j++)
				out->rep_n[out->n_rep++] = k->rep_n[j];
		else
			out->rep_n[out->n_rep++] = k->n;
	}
}

static void side_samples_free(struct side_samples *s)
{
	free(s->v);
	free(s->rep_n);
}

/* The values v[0..n), reduced to at most PB_COMPARE_MAX_SAMPLES evenly
 * spaced order statistics for the two-sample figures (*few NULL: no
 * need). */
static void prepare(const double *v, size_t n, double **few, size_t *nfew)
{
	if (n <= PB_COMPARE_MAX_SAMPLES) {
		*few = NULL;
		*nfew = n;
		return;
	}
	double *sorted = pb_xcalloc(n, sizeof *sorted);
	memcpy(sorted, v, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, cmp_double);
	size_t m = PB_COMPARE_MAX_SAMPLES;
	*few = pb_xcalloc(m, sizeof **few);
	pb_order_statistics(sorted, n, *few, m);
	*nfew = m;
	free(sorted);
}

static bool all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return false;
	return true;
}

/* latency and map cases compare in their own unit, not ticks per call:
 * ns per dependent load, and ns per 4 KiB of the region mapped (the inverse
 * of GB/s). The unit, and in *per the factor from ns per call (per page for
 * map), or NULL for every other case. */
static const char *suite_unit(const struct pb_results_case *c, double *per)
{
	const char *suite = pb_field_str(&c->fields, "suite");
	long long page;
	*per = 1;
	if (suite && !strcmp(suite, "latency"))
		return "ns/load";
	if (suite && !strcmp(suite, "map") && pb_field_int(&c->fields, "page_bytes", &page) &&
	    page > 0) {
		*per = 4096.0 / (double)page;
		return "ns/4KiB";
	}
	return NULL;
}

/* The run figures of one side of a row into *out (malloc'd), their count
 * returned: by replicate, its case's replicates' medians (one when it has
 * none); by_file, one figure per file of the side that has the case, its
 * median (pb_results_case_summary), ticks brought to the rate of `ref`
 * (c's file). `scale` turns ref's values into the row's unit. */
static size_t side_runs(const struct pb_results_case *c, const struct pb_results_file *ref,
                        const struct pb_results_file *const *side, size_t nside, bool by_file,
                        double scale, double level, double **out)
{
	if (!by_file) {
		size_t cap = c->n_rep > 1 ? c->n_rep : 1;
		*out = pb_xcalloc(cap, sizeof **out);
		size_t n = pb_results_case_runs(c, *out, cap);
		for (size_t i = 0; i < n; i++)
			(*out)[i] *= scale;
		return n;
	}
	*out = pb_xcalloc(nside, sizeof **out);
	size_t n = 0;
	bool ticks = pb_tick_unit_is_counter(c->unit);
	for (size_t f = 0; f < nside; f++) {
		const struct pb_results_case *k = find_case(side[f], c->canon);
		struct pb_summary s;
		if (!k || strcmp(k->unit, c->unit) || pb_results_case_summary(k, level, &s) != 0)
			continue;
		double rate = ticks && ref->tsc_hz > 0 && side[f]->tsc_hz > 0
		                  ? ref->tsc_hz / side[f]->tsc_hz
		                  : 1;
		(*out)[n++] = s.median * rate * scale;
	}
	return n;
}

/* A side's median and CI from its files' figures `v` (n of them). Leaves
 * `s` alone below two: one file's own summary is its replicates'. */
static void summarize_runs(const double *v, size_t n, double level, struct pb_summary *s)
{
	if (n < 2)
		return;
	size_t *ones = pb_xcalloc(n, sizeof *ones);
	for (size_t i = 0; i < n; i++)
		ones[i] = 1;
	struct pb_summary t;
	if (pb_summarize_replicates(v, n, ones, n, level, &t) == 0) {
		s->median = t.median;
		s->ci_lo = t.ci_lo;
		s->ci_hi = t.ci_hi;
		s->ci_valid = t.ci_valid;
		s->replicates = t.replicates;
	}
	free(ones);
}

/* The row's run-level figures (struct pb_compare_row): with two or more
 * runs a side, the delta, interval, p and verdict are Welch's t on the
 * runs' logs; else one_run and no verdict. */
static int run_level(struct pb_compare_row *row, const struct pb_compare_result *r, double sa,
                     double sb, double level)
{
	/* a cmd case's samples are runs already: each a process of its own */
	if (pb_key_is_cmd(&row->a->fields) && r->nside_a == 1 && r->nside_b == 1) {
		row->runs_a = row->a->n;
		row->runs_b = row->b->n;
		return 0;
	}
	double *ra, *rb;
	/* several files on either side: a file is the unit on both */
	bool by_file = r->nside_a > 1 || r->nside_b > 1;
	size_t na = side_runs(row->a, row->file_a, r->side_a, r->nside_a, by_file, sa, level, &ra);
	size_t nb = side_runs(row->b, row->file_b, r->side_b, r->nside_b, by_file, sb, level, &rb);
	row->runs_a = na;
	row->runs_b = nb;
	int rc = 0;
	if (row->ratio && na >= 2 && nb >= 2)
		rc = pb_runs_ratio(ra, na, rb, nb, level, &row->runs);
	if (rc == 0 && row->runs.valid) {
		row->run_level = true;
		row->run_va = ra;
		row->run_vb = rb;
		ra = rb = NULL;
		row->shift = (struct pb_shift){.estimate = row->runs.estimate,
		                               .lo = row->runs.lo,
		                               .hi = row->runs.hi,
		                               .level = level,
		                               .coverage = level,
		                               .ci_valid = true};
		row->u.p = row->runs.p;
		row->u.exact = false;
	} else if (pb_key_is_cmd(&row->a->fields)) {
		/* a cmd case's samples are runs, each a process of its own: with
		 * fewer than two files a side that have it, the delta, interval,
		 * p and verdict are its samples' (every file with the case,
		 * pooled), as with one file a side */
		row->runs_a = row->sa.n;
		row->runs_b = row->sb.n;
	} else {
		row->one_run = true;
	}
	/* Several files on a side: its median and CI are those of its files'
	 * figures, whether or not a verdict could be had (one file on the other
	 * side), so the old column is every old file, not the first. */
	if (by_file) {
		summarize_runs(row->run_va ? row->run_va : ra, na, level, &row->sa);
		summarize_runs(row->run_vb ? row->run_vb : rb, nb, level, &row->sb);
		/* one run on a side: the delta, its interval and p stay the
		 * Hodges-Lehmann figures and the U test of the samples of
		 * every file with the case, pooled (compare_case), marked as
		 * one run's */
	}
	free(ra);
	free(rb);
	return rc;
}

/* The row's verdict (struct pb_compare_row) with `margin`. */
static void judge_row(struct pb_compare_row *row, double margin)
{
	const struct pb_verdict_rule rule = {
	    .null = row->ratio ? 1 : 0, .margin = row->ratio ? margin : 0, .u = &row->u};
	/* one run a side: the interval is the noise of one process, no verdict */
	row->verdict = row->one_run ? PB_VERDICT_NONE : pb_verdict(&row->shift, &rule);
	row->significant = row->verdict == PB_VERDICT_DIFFERENT;
}

void pb_compare_set_margin(struct pb_compare_result *r, double margin)
{
	r->margin = margin;
	for (size_t i = 0; i < r->nrows; i++)
		judge_row(&r->rows[i], margin);
}

static int compare_case(struct pb_compare_row *row, const struct pb_compare_result *res,
                        double level, size_t *converted)
{
	const struct pb_results_file *fa = row->file_a, *fb = row->file_b;
	const struct pb_results_case *a = row->a, *b = row->b;
	double sa = 1, sb = 1;
	row->unit = a->unit;
	bool ticks_a = pb_tick_unit_is_counter(a->unit), ticks_b = pb_tick_unit_is_counter(b->unit);
	bool ns_a = !strcmp(a->unit, "ns"), ns_b = !strcmp(b->unit, "ns");
	bool convert = false;
	if (ticks_a && ticks_b)
		convert = strcmp(a->unit, b->unit) || /* a TSC against an arm64 counter */
		          (fa->tsc_hz > 0 && fb->tsc_hz > 0 &&
		           fabs(fb->tsc_hz / fa->tsc_hz - 1) > HZ_TOLERANCE);
	else if ((ticks_a && ns_b) || (ns_a && ticks_b))
		convert = true;
	else if (strcmp(a->unit, b->unit)) {
		char *n = full_name(a);
		pb_fail("%s: case '%s' is in '%s' there and in '%s' in %s: cannot compare",
		        fb->path, n, b->unit, a->unit, fa->path);
		free(n);
		return -1;
	}
	if (convert) {
		const struct pb_results_file *f = NULL;
		if (ticks_a && !(fa->tsc_hz > 0))
			f = fa;
		else if (ticks_b && !(fb->tsc_hz > 0))
			f = fb;
		if (f) {
			char *n = full_name(a);
			pb_fail("%s: case '%s' needs %s converted to ns, but the file has no "
			        "machine.timer.hz",
			        f->path, n, f == fa ? a->unit : b->unit);
			free(n);
			return -1;
		}
		sa = pb_file_ns_per_value(fa, a->unit);
		sb = pb_file_ns_per_value(fb, b->unit);
		row->unit = "ns";
		(*converted)++;
	}
	double per;
	const char *own = suite_unit(a, &per);
	if (own && (ticks_a || ns_a) && (ticks_b || ns_b) && (!ticks_a || fa->tsc_hz > 0) &&
	    (!ticks_b || fb->tsc_hz > 0)) {
		sa = pb_file_ns_per_value(fa, a->unit) * per;
		sb = pb_file_ns_per_value(fb, b->unit) * per;
		row->unit = own;
	}

	/* with several files a side, the samples of every file of the side
	 * with the case, pooled */
	bool by_file = res->nside_a > 1 || res->nside_b > 1;
	struct side_samples pa, pb;
	pool_side(a, fa, res->side_a, res->nside_a, by_file, sa, &pa);
	pool_side(b, fb, res->side_b, res->nside_b, by_file, sb, &pb);
	double *fewa, *fewb;
	size_t na, nb;
	prepare(pa.v, pa.n, &fewa, &na);
	prepare(pb.v, pb.n, &fewb, &nb);
	row->thinned = fewa || fewb;
	const double *x = fewa ? fewa : pa.v, *y = fewb ? fewb : pb.v;
	int rc = pb_summarize_replicates(pa.v, pa.n, pa.rep_n, pa.n_rep, level, &row->sa);
	if (rc == 0)
		rc = pb_summarize_replicates(pb.v, pb.n, pb.rep_n, pb.n_rep, level, &row->sb);
	row->ratio = all_positive(x, na) && all_positive(y, nb);
	if (rc == 0)
		rc = row->ratio ? pb_hodges_lehmann_ratio(x, na, y, nb, level, &row->shift)
		                : pb_hodges_lehmann(x, na, y, nb, level, &row->shift);
	if (rc == 0)
		rc = pb_mann_whitney(x, na, y, nb, &row->u);
	if (rc == 0)
		rc = run_level(row, res, sa, sb, level);
	row->rev_a = a->kernel_revision;
	row->rev_b = b->kernel_revision;
	side_samples_free(&pa);
	side_samples_free(&pb);
	free(fewa);
	free(fewb);
	if (rc != 0) {
		char *n = full_name(a);
		char msg[512];
		snprintf(msg, sizeof msg, "%s", pb_error());
		pb_fail("%s: case '%s': %s", fb->path, n, msg);
		free(n);
		return -1;
	}
	const struct pb_shift *s = &row->shift;
	row->pct = row->pct_lo = row->pct_hi = NAN;
	if (row->ratio) {
		row->pct = 100 * (s->estimate - 1);
		if (s->ci_valid) {
			row->pct_lo = 100 * (s->lo - 1);
			row->pct_hi = 100 * (s->hi - 1);
		}
	} else if (row->sa.median > 0) {
		row->pct = 100 * s->estimate / row->sa.median;
		if (s->ci_valid) {
			row->pct_lo = 100 * s->lo / row->sa.median;
			row->pct_hi = 100 * s->hi / row->sa.median;
		}
	}
	judge_row(row, res->margin);
	/* The medians' own change, as the delta is: it can lie outside the
	 * delta's interval (bimodal samples). */
	row->pct_medians = NAN;
	if (row->ratio)
		row->pct_medians = 100 * (row->sb.median / row->sa.median - 1);
	else if (row->sa.median > 0)
		row->pct_medians = 100 * (row->sb.median - row->sa.median) / row->sa.median;
	return 0;
}

static void list_note(struct pb_strv *notes, const char *head, const char *const *names, size_t n)
{
	char *s = pb_xasprintf("%s %zu case%s: ", head, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		if (i)
			pb_xappend(&s, "; ");
		pb_xappend(&s, names[i]);
	}
	if (n > LIST_MAX) {
		char *more = pb_xasprintf("; and %zu more", n - LIST_MAX);
		pb_xappend(&s, more);
		free(more);
	}
	pb_strv_push(notes, s);
}

/* The key fields whose values differ, comma-separated ("env", "cwd,
 * env"), in name order. */
static char *fields_differing(const struct pb_key *ka, const struct pb_key *kb)
{
	size_t k;
	const char **names = pb_key_field_names(ka, kb, &k);
	char *s = pb_xstrdup("");
	for (size_t i = 0; i < k; i++) {
		if (pb_field_equal(pb_field_get(ka, names[i]), pb_field_get(kb, names[i])))
			continue;
		if (*s)
			pb_xappend(&s, ", ");
		pb_xappend(&s, names[i]);
	}
	free(names);
	return s;
}

/* Cases in only one file each that a person would take for the same case
 * (the same name before it was made distinct: `cmd --vs-env X=1` before,
 * `--vs-env X=2` after): a note says they are not compared, and why. */
static void near_misses(const struct pb_compare_result *r, struct pb_strv *notes)
{
	size_t found = 0;
	for (size_t i = 0; i < r->nonly_a; i++) {
		char *ga, *la;
		pb_key_name(&r->only_a[i]->fields, &ga, &la);
		for (size_t j = 0; j < r->nonly_b; j++) {
			char *gb, *lb;
			pb_key_name(&r->only_b[j]->fields, &gb, &lb);
			if (!strcmp(ga, gb) && !strcmp(la, lb)) {
				if (found++ < LIST_MAX) {
					char *f = fields_differing(&r->only_a[i]->fields,
					                           &r->only_b[j]->fields);
					pb_strv_push(
					    notes,
					    pb_xasprintf("not compared: %s: %s (old) and %s: %s "
					                 "(new), whose keys differ in %s; cases "
					                 "match on the whole key",
					                 r->only_a[i]->group, r->only_a[i]->label,
					                 r->only_b[j]->group, r->only_b[j]->label,
					                 f));
					free(f);
				}
			}
			free(gb);
			free(lb);
		}
		free(ga);
		free(la);
	}
	if (found > LIST_MAX)
		pb_strv_push(notes,
		             pb_xasprintf("not compared: %zu more such pairs", found - LIST_MAX));
}

static void level_text(char *buf, size_t len, double level);

/* latency and map rows without a CI of the median ("+-?"): why. Their
 * samples are rounds, few of them (latency: 5, fixed; map: --rounds,
 * default 5), and a distribution-free interval of the median at `level`
 * needs n with 1 - 2^(1-n) >= level (6 at 95%; src/stats/stats.c). */
static void ci_note(const struct pb_compare_result *r, double level, struct pb_strv *notes)
{
	size_t none = 0, least = SIZE_MAX;
	bool map = false;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		double per;
		if (!suite_unit(row->a, &per) || (row->sa.ci_valid && row->sb.ci_valid))
			continue;
		none++;
		least = row->a->n < least ? row->a->n : least;
		least = row->b->n < least ? row->b->n : least;
		map |= !strcmp(pb_field_str(&row->a->fields, "suite"), "map");
	}
	if (!none)
		return;
	size_t need = 1;
	while (need < 64 && 1 - pow(2, 1 - (double)need) < level)
		need++;
	char lv[32];
	level_text(lv, sizeof lv, level);
	pb_strv_push(notes, pb_xasprintf("%zu latency/map case%s without a %s CI of the median "
	                                 "(+-?): as few as %zu samples (rounds) a side, and a "
	                                 "%s interval of a median needs %zu%s; the delta's "
	                                 "interval does not need that",
	                                 none, none == 1 ? "" : "s", lv, least, lv, need,
	                                 map ? " (mem map --rounds N)" : ""));
}

/* How many of side[0..n) have the case `canon`. */
static size_t files_with(const struct pb_results_file *const *side, size_t n, const char *canon)
{
	size_t k = 0;
	for (size_t f = 0; f < n; f++)
		k += find_case(side[f], canon) != NULL;
	return k;
}

/* What the runs were, and the rows with one run a side. The least runs a
 * side are over every row compared: with several files a side, the files
 * that have the case (a case in fewer files counts, run level or not);
 * with one, the replicates of every row but a cmd row judged on its
 * samples (those are processes, not replicates). */
static void run_notes(const struct pb_compare_result *r, struct pb_strv *notes)
{
	size_t one = 0, runs = 0, least_a = SIZE_MAX, least_b = SIZE_MAX;
	bool by_file = r->nside_a > 1 || r->nside_b > 1;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		one += row->one_run;
		runs += row->run_level;
		size_t ra = row->runs_a, rb = row->runs_b;
		if (by_file) {
			ra = files_with(r->side_a, r->nside_a, row->a->canon);
			rb = files_with(r->side_b, r->nside_b, row->b->canon);
		} else if (!row->run_level && !row->one_run) {
			continue;
		}
		least_a = ra < least_a ? ra : least_a;
		least_b = rb < least_b ? rb : least_b;
	}
	if (runs && by_file)
		pb_strv_push(notes, pb_xasprintf("runs: one per file (%zu old, %zu new files; at "
		                                 "least %zu and %zu with each case)",
		                                 r->nside_a, r->nside_b, least_a, least_b));
	else if (runs) {
		long long pa = r->fa->processes_count, pb = r->fb->processes_count;
		const char *which = pa > 1 && pb > 1 ? NULL
		                    : pa > 1         ? "the new side in one process"
		                    : pb > 1         ? "the old side in one process"
		                                     : "in one process a side";
		char *tail =
		    which ? pb_xasprintf("; %s, so a change of the machine's state between "
		                         "processes (on a shared host: seconds-long episodes, "
		                         "docs/statistics.md) is not all in the interval: for a "
		                         "before/after, measure several files a side alternately "
		                         "and give them as compare A1 A2 A3 -- B1 B2 B3",
		                         which)
		          : pb_xasprintf("%s", "");
		pb_strv_push(notes, pb_xasprintf("runs: the replicates in each file (at least %zu "
		                                 "old, %zu new a case)%s",
		                                 least_a, least_b, tail));
		free(tail);
	}
	if (one)
		pb_strv_push(
		    notes,
		    pb_xasprintf(
		        "%zu case%s with one run on a side (%s): the interval covers the noise "
		        "inside one process, not between runs, so no verdict ('?' after "
		        "the delta); measure with --replicates, or give several files a "
		        "side: compare A1 A2 A3 -- B1 B2 B3",
		        one, one == 1 ? "" : "s",
		        r->nside_a > 1 || r->nside_b > 1
		            ? "with '--' a file is a run: one file on a side"
		            : "a file without replicates: schema v1, or --replicates 1"));
}

/* mem rows whose kernel row ran other code in the two files (its revision
 * differs): one note per kernel, with what changed. */
static void revision_notes(const struct pb_compare_result *r, struct pb_strv *notes)
{
	char seen[64][128];
	size_t nseen = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (row->rev_a == row->rev_b)
			continue;
		const char *op = pb_field_str(&row->a->fields, "op"),
		           *name = pb_field_str(&row->a->fields, "kernel");
		if (!op || !name)
			continue;
		char id[128];
		snprintf(id, sizeof id, "%s/%s", op, name);
		bool dup = false;
		for (size_t j = 0; j < nseen && !dup; j++)
			dup = !strcmp(seen[j], id);
		if (dup || nseen == 64)
			continue;
		snprintf(seen[nseen++], sizeof seen[0], "%s", id);
		enum pb_op o;
		const struct pb_kernel *k = NULL;
		if (pb_op_parse(op, &o) == 0)
			k = pb_kernel_find(o, name);
		long long lo = row->rev_a < row->rev_b ? row->rev_a : row->rev_b;
		const char *change = k ? pb_kernel_revision_change(k, (unsigned)lo) : NULL;
		char *item = pb_xasprintf("%s: kernel row revision %lld (old) and %lld (new): the "
		                          "two files measured different code%s%s",
		                          id, row->rev_a, row->rev_b, change ? ": " : "",
		                          change ? change : "");
		pb_strv_push(notes, item);
	}
}

/* A case of a side and the first of the side's files that has it. */
struct side_case {
	const struct pb_results_case *c;
	const struct pb_results_file *f;
};

/* The union of the cases of side[0..n), each once (its first file's),
 * in the order of the files, then of their cases; the count. */
static size_t side_union(const struct pb_results_file *const *side, size_t n,
                         struct side_case **out)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		total += side[i]->ncases;
	*out = pb_xcalloc(total ? total : 1, sizeof **out);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < side[i]->ncases; j++) {
			const struct pb_results_case *c = &side[i]->cases[j];
			bool seen = false;
			for (size_t e = 0; e < i && !seen; e++)
				seen = find_case(side[e], c->canon) != NULL;
			if (!seen)
				(*out)[k++] = (struct side_case){c, side[i]};
		}
	return k;
}

/* With several files a side: the rows whose case some file of a side
 * lacks, each with how many files of each side had it (it is compared on
 * those). */
static void partial_notes(const struct pb_compare_result *r, struct pb_strv *notes)
{
	if (r->nside_a < 2 && r->nside_b < 2)
		return;
	size_t found = 0;
	char *list = pb_xstrdup("");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		size_t fa = 0, fb = 0;
		for (size_t f = 0; f < r->nside_a; f++)
			fa += find_case(r->side_a[f], row->a->canon) != NULL;
		for (size_t f = 0; f < r->nside_b; f++)
			fb += find_case(r->side_b[f], row->b->canon) != NULL;
		if (fa == r->nside_a && fb == r->nside_b)
			continue;
		if (++found > LIST_MAX)
			continue;
		char *n = full_name(row->a);
		char *item = pb_xasprintf("%s%s (old %zu of %zu files, new %zu of %zu)",
		                          found > 1 ? "; " : "", n, fa, r->nside_a, fb, r->nside_b);
		pb_xappend(&list, item);
		free(item);
		free(n);
	}
	if (found > LIST_MAX) {
		char *more = pb_xasprintf("; and %zu more", found - LIST_MAX);
		pb_xappend(&list, more);
		free(more);
	}
	if (found)
		pb_strv_push(notes, pb_xasprintf("%zu case%s not in every file of a side, compared "
		                                 "on the files that have %s: %s",
		                                 found, found == 1 ? "" : "s",
		                                 found == 1 ? "it" : "them", list));
	free(list);
}

/* Two kernel files (`primbench kernel`, docs/results-schema.md "A
 * `kernel` case") whose module differs: its module_version, the kernel
 * release it ran under, or its tsc_khz (the rate of the cases' ticks), as
 * software differences after the machine's (a "differs:" line each, and
 * compare's JSON software_differs). Only when both files have the kernel
 * object. */
static void kernel_diffs(struct pb_compare_result *r)
{
	static const char *const fields[] = {"kernel.module_version", "kernel.release",
	                                     "kernel.tsc_khz"};
	const struct pb_facts *a = &r->fa->facts, *b = &r->fb->facts;
	if (!pb_facts_is_object(a, "kernel") || !pb_facts_is_object(b, "kernel"))
		return;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const struct pb_field *x = pb_facts_get(a, fields[i]),
		                      *y = pb_facts_get(b, fields[i]);
		if (pb_field_equal(x, y))
			continue;
		r->sw = pb_xrealloc(r->sw, (r->nsw + 1) * sizeof *r->sw);
		r->sw[r->nsw++] = (struct pb_compare_diff){pb_xstrdup(fields[i]), pb_field_text(x),
		                                           pb_field_text(y)};
	}
}

/* Each file's hardware against the first old file's (-1, said, unless force); fills hw, sw. */
static int check_hardware(struct pb_compare_result *r, bool force)
{
	const struct pb_results_file *const *sa = r->side_a, *const *sb = r->side_b;
	size_t nsa = r->nside_a, nsb = r->nside_b;
	const struct pb_results_file *fa = r->fa, *fb = r->fb;
	/* every further file of a side against the first old one */
	for (size_t i = 0; i < nsa + nsb; i++) {
		const struct pb_results_file *f = i < nsa ? sa[i] : sb[i - nsa];
		if (f == fa || f == fb)
			continue;
		struct pb_compare_diff *d = NULL;
		size_t nd = (size_t)pb_results_hardware_diffs(&fa->mach, &f->mach, &d);
		if (nd && !force) {
			pb_fail("%s: different hardware from %s: %s %s vs %s; use --force", f->path,
			        fa->path, d[0].field, d[0].a, d[0].b);
			pb_compare_diffs_free(d, nd);
			return -1;
		}
		pb_compare_diffs_free(d, nd);
	}
	r->nhw = (size_t)pb_results_hardware_diffs(&fa->mach, &fb->mach, &r->hw);
	if (r->nhw && !force) {
		char *s = pb_xstrdup("");
		for (size_t i = 0; i < r->nhw; i++) {
			char *item = pb_xasprintf("%s%s %s vs %s", i ? ", " : "", r->hw[i].field,
			                          r->hw[i].a, r->hw[i].b);
			pb_xappend(&s, item);
			free(item);
		}
		pb_fail("%s: different hardware from %s: %s; use --force", fb->path, fa->path, s);
		free(s);
		return -1;
	}
	r->nsw = (size_t)pb_results_software_diffs(&fa->mach, &fb->mach, &r->sw);
	kernel_diffs(r);
	return 0;
}

/* The notes on the two first files themselves: interrupted, skipped cases. */
static void file_notes(const struct pb_compare_result *r, struct pb_strv *notes)
{
	const struct pb_results_file *fa = r->fa, *fb = r->fb;
	const struct pb_results_file *both[2] = {fa, fb};
	for (int i = 0; i < 2; i++) {
		if (i == 1 && fb == fa)
			break;
		if (both[i]->interrupted)
			pb_strv_push(notes,
			             pb_xasprintf("%s: the run was interrupted (its cases are "
			                          "what it measured)",
			                          both[i]->path));
		if (both[i]->nskipped) {
			char *head = pb_xasprintf("%s: skipped (no samples):", both[i]->path);
			list_note(notes, head, (const char *const *)both[i]->skipped,
			          both[i]->nskipped);
			free(head);
		}
	}
}

/* The rows (matched cases compared) and only_a, only_b; -1 at the first row that fails. */
static int match_cases(struct pb_compare_result *r, double level, size_t *converted_out,
                       size_t *thinned_out)
{
	const struct pb_results_file *const *sa = r->side_a, *const *sb = r->side_b;
	size_t nsa = r->nside_a, nsb = r->nside_b;
	/* Each side is the union of its files' cases, in the order of its
	 * files, then of their cases: a case missing from a side's first file
	 * is still that side's. */
	struct side_case *ua, *ub;
	size_t nua = side_union(sa, nsa, &ua), nub = side_union(sb, nsb, &ub);
	r->rows = pb_xcalloc(nua ? nua : 1, sizeof *r->rows);
	r->only_a = pb_xcalloc(nua ? nua : 1, sizeof *r->only_a);
	r->only_b = pb_xcalloc(nub ? nub : 1, sizeof *r->only_b);
	bool *used = pb_xcalloc(nub ? nub : 1, sizeof *used);
	size_t converted = 0, thinned = 0;
	int rc = 0;
	for (size_t i = 0; i < nua && rc == 0; i++) {
		const struct pb_results_case *a = ua[i].c;
		size_t j = 0;
		while (j < nub && strcmp(ub[j].c->canon, a->canon))
			j++;
		if (j == nub) {
			r->only_a[r->nonly_a++] = a;
			continue;
		}
		used[j] = true;
		struct pb_compare_row *row = &r->rows[r->nrows];
		row->a = a;
		row->b = ub[j].c;
		row->file_a = ua[i].f;
		row->file_b = ub[j].f;
		rc = compare_case(row, r, level, &converted);
		if (rc == 0) {
			thinned += row->thinned;
			r->nrows++;
		}
	}
	for (size_t i = 0; i < nub; i++)
		if (!used[i])
			r->only_b[r->nonly_b++] = ub[i].c;
	free(used);
	free(ua);
	free(ub);
	*converted_out = converted;
	*thinned_out = thinned;
	return rc;
}

/* The notes on the rows: conversion, interval, partial sides, runs, revisions, thinning. */
static void row_notes(const struct pb_compare_result *r, double level, size_t converted,
                      size_t thinned, struct pb_strv *notes)
{
	const struct pb_results_file *fa = r->fa, *fb = r->fb;
	if (converted)
		pb_strv_push(notes,
		             pb_xasprintf("%zu case%s compared in ns: tsc_ticks converted with "
		                          "each file's machine.timer.hz (%.3f and %.3f MHz)",
		                          converted, converted == 1 ? "" : "s", fa->tsc_hz / 1e6,
		                          fb->tsc_hz / 1e6));
	ci_note(r, level, notes);
	partial_notes(r, notes);
	run_notes(r, notes);
	revision_notes(r, notes);
	if (thinned)
		pb_strv_push(notes,
		             pb_xasprintf("%zu case%s with more than %d samples on a side: the "
		                          "delta, its interval and p use %d evenly spaced "
		                          "order statistics of that side",
		                          thinned, thinned == 1 ? "" : "s", PB_COMPARE_MAX_SAMPLES,
		                          PB_COMPARE_MAX_SAMPLES));
}

/* The geometric means per unit (r->gm) and a note naming the rows they leave out. */
static void geomeans(struct pb_compare_result *r, struct pb_strv *notes)
{
	/* Geometric means per unit, units in order of first appearance. */
	r->gm = pb_xcalloc(r->nrows, sizeof *r->gm);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		size_t g = 0;
		while (g < r->ngm && strcmp(r->gm[g].unit, row->unit))
			g++;
		if (g == r->ngm)
			r->gm[r->ngm++].unit = row->unit;
		if (row->sa.median > 0 && row->sb.median > 0) {
			r->gm[g].n++;
			r->gm[g].a += log(row->sa.median);
			r->gm[g].b += log(row->sb.median);
		}
	}
	/* The rows the geometric means leave out (a median of 0 has no
	 * logarithm), by name. */
	const char **left = pb_xcalloc(r->nrows + 1, sizeof *left);
	char **owned = pb_xcalloc(r->nrows + 1, sizeof *owned);
	size_t nleft = 0;
	for (size_t i = 0; i < r->nrows; i++)
		if (!(r->rows[i].sa.median > 0 && r->rows[i].sb.median > 0))
			left[nleft] = owned[nleft] = full_name(r->rows[i].a), nleft++;
	if (nleft)
		list_note(notes, "geomean: a median of 0 (no logarithm) leaves out", left, nleft);
	for (size_t i = 0; i < nleft; i++)
		free(owned[i]);
	free(owned);
	free(left);
	for (size_t g = 0; g < r->ngm; g++) {
		struct pb_compare_geomean *m = &r->gm[g];
		if (m->n) {
			m->a = exp(m->a / (double)m->n);
			m->b = exp(m->b / (double)m->n);
			m->ratio = m->b / m->a;
		} else {
			m->a = m->b = m->ratio = NAN;
		}
	}
}

int pb_compare_run(const struct pb_results_file *fa, const struct pb_results_file *fb, double level,
                   bool force, struct pb_compare_result *r)
{
	int rc = pb_compare_sides(&fa, 1, &fb, 1, level, force, r);
	r->side_a = r->side_b = NULL; /* they pointed at this frame's fa, fb */
	return rc;
}

int pb_compare_sides(const struct pb_results_file *const *sa, size_t nsa,
                     const struct pb_results_file *const *sb, size_t nsb, double level, bool force,
                     struct pb_compare_result *r)
{
	memset(r, 0, sizeof *r);
	if (nsa < 1 || nsb < 1)
		return pb_fail("a side without a file");
	const struct pb_results_file *fa = sa[0], *fb = sb[0];
	r->fa = fa;
	r->fb = fb;
	r->side_a = sa;
	r->side_b = sb;
	r->nside_a = nsa;
	r->nside_b = nsb;
	r->level = level;
	r->margin = pb_equivalence();
	if (!(level > 0 && level < 1))
		return pb_fail("confidence level %g is not between 0 and 1", level);
	if (check_hardware(r, force) != 0)
		return -1;

	struct pb_strv notes = {0};
	file_notes(r, &notes);
	size_t converted = 0, thinned = 0;
	int rc = match_cases(r, level, &converted, &thinned);
	near_misses(r, &notes);
	if (rc != 0) {
		r->notes = notes.v;
		r->nnotes = notes.n;
		return -1;
	}
	row_notes(r, level, converted, thinned, &notes);
	geomeans(r, &notes);
	r->notes = notes.v;
	r->nnotes = notes.n;
	return 0;
}

void pb_compare_result_free(struct pb_compare_result *r)
{
	pb_compare_diffs_free(r->hw, r->nhw);
	pb_compare_diffs_free(r->sw, r->nsw);
	for (size_t i = 0; r->rows && i < r->nrows; i++) {
		free(r->rows[i].run_va);
		free(r->rows[i].run_vb);
	}
	free(r->rows);
	free(r->gm);
	free(r->only_a);
	free(r->only_b);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof *r);
}

/* ---- text ---------------------------------------------------------------- */

/* m x 10^e in at most `width` characters: "1.58e7", "-2.5e-4". */
static void fmt_exp(char *buf, size_t len, double v, int width)
{
	for (int digits = 2; digits >= 0; digits--) {
		int e = (int)floor(log10(fabs(v)));
		double m = v / pow(10, e);
		double lim = 10 - 0.5 * pow(10, -digits); /* rounds up to 10 */
		if (fabs(m) >= lim) {
			m /= 10;
			e++;
		}
		snprintf(buf, len, "%.*fe%d", digits, m, e);
		if ((int)strlen(buf) <= width)
			return;
	}
}

/* A median in at most 7 characters: three significant figures, large and
 * small magnitudes in e-notation ("1.58e7", "2.50e-4"). */
static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (!isfinite(v))
		snprintf(buf, len, v < 0 ? "-inf" : "inf");
	else if (a == 0)
		snprintf(buf, len, "0");
	else if (a >= (v < 0 ? 999999.5 : 9999999.5) || a < 0.00995)
		fmt_exp(buf, len, v, 7);
	else if (a >= 99.95)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 9.995)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

/* A percentage with sign in at most 6 characters. */
static void fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v)) /* a ratio over a zero or subnormal median */
		snprintf(buf, len, "%s", v < 0 ? "-inf" : "+inf");
	else if (fabs(v) < 1e-9)
		snprintf(buf, len, "+0.0"); /* no change, whatever the rounding error */
	else if (fabs(v) < 99.95)
		snprintf(buf, len, "%+.1f", v);
	else if (fabs(v) < 99999.5)
		snprintf(buf, len, "%+.0f", v);
	else {
		int e = (int)floor(log10(fabs(v)));
		double m = round(fabs(v) / pow(10, e));
		if (m >= 10) {
			m = 1;
			e++;
		}
		snprintf(buf, len, "%s%.0fe%d", v < 0 ? "-" : "+", m, e);
	}
}

/* "+-1.2%" style half-width of the median's interval, in % of it: at most
 * 4 characters after "+-"; "?" without an interval. */
static void fmt_ci(char *buf, size_t len, const struct pb_summary *s)
{
	if (!s->ci_valid || !(fabs(s->median) > 0)) {
		snprintf(buf, len, "?");
		return;
	}
	double h = 100 * (s->ci_hi - s->ci_lo) / 2 / fabs(s->median);
	if (h < 0.95)
		snprintf(buf, len, "%.1f%%", h);
	else if (h < 99.5)
		snprintf(buf, len, "%.0f%%", h);
	else
		snprintf(buf, len, ">99%%");
}

static const char *unit_short(const char *unit)
{
	return pb_tick_unit_is_counter(unit) ? "ticks" : unit;
}

static void level_text(char *buf, size_t len, double level)
{
	snprintf(buf, len, "%.10g%%", level * 100);
}

/* One table line, trailing spaces removed. */
static void put_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_line(FILE *f, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	while (n > 0 && line[n - 1] == ' ')
		line[--n] = '\0';
	fprintf(f, "%s\n", line);
}

/* The interval's column ends in '*' when the medians' change is outside
 * the interval. */
#define ROW_FMT  "%-*s %7s +-%-4s %7s +-%-4s %7s %-15s %5s"
#define CI_WIDTH 15
_Static_assert(NAME_WIDTH + 1 + 14 + 1 + 14 + 1 + 7 + 1 + CI_WIDTH + 1 + 5 <= PB_TEXT_WIDTH,
               "a table row fits in 80 columns");

/* Times in ns print in the unit that suits their size: ns, us, ms or s
 * (whole commands take seconds). Returns the divisor; *name the unit. */
static double ns_display(const char *unit, double typical, const char **name)
{
	*name = unit_short(unit);
	if (strcmp(unit, "ns") != 0 || !(typical >= 1e4))
		return 1;
	*name = typical >= 1e9 ? "s" : typical >= 1e6 ? "ms" : "us";
	return typical >= 1e9 ? 1e9 : typical >= 1e6 ? 1e6 : 1e3;
}

/* Half the last printed digit of a figure: "+2.3" 0.05, "+165" 0.5,
 * "+2e13" 5e12. */
static double half_digit(const char *fig)
{
	const char *e = strchr(fig, 'e'), *dot = strchr(fig, '.');
	double exp10 = e ? strtod(e + 1, NULL) : 0;
	size_t decimals = dot ? strspn(dot + 1, "0123456789") : 0;
	return 0.5 * pow(10, exp10 - (double)decimals);
}

/* Whether the change of the medians as printed (old and new columns) lies
 * outside the interval as printed (each end give or take its rounding):
 * what a reader checking the row by hand would see as a contradiction. */
static bool printed_outside(const struct pb_compare_row *row, const char *oa, const char *ob,
                            const char *lo, const char *hi)
{
	if (isnan(row->pct_lo))
		return false;
	double a = strtod(oa, NULL), b = strtod(ob, NULL);
	double l = strtod(lo, NULL), h = strtod(hi, NULL);
	if (!(a > 0 && isfinite(a) && isfinite(b)))
		return false;
	double pm = row->ratio ? 100 * (b / a - 1) : 100 * (b - a) / a;
	return pm < l - half_digit(lo) || pm > h + half_digit(hi);
}

/* A row's cells as the table prints them: old and new median (in the
 * unit of div ns) and their CI half-widths, the delta ("~", "=", "-3.1%",
 * "+2.0%?"), its interval ("[-4.0, -2.2]", '*' after it when the change of
 * the printed medians lies outside it) and p. */
struct row_cells {
	char oa[16], ob[16], ca[16], cb[16], d[16], ci[40], p[16];
	bool marked;
};

static void row_cells(const struct pb_compare_row *row, double div, struct row_cells *c)
{
	char lo[16], hi[16];
	c->marked = false;
	fmt_num(c->oa, sizeof c->oa, row->sa.median / div);
	fmt_num(c->ob, sizeof c->ob, row->sb.median / div);
	fmt_ci(c->ca, sizeof c->ca, &row->sa);
	fmt_ci(c->cb, sizeof c->cb, &row->sb);
	if (row->one_run && !isnan(row->pct)) {
		/* no verdict from one run: the estimate, marked */
		fmt_pct(c->d, sizeof c->d - 2, row->pct);
		strcat(c->d, "%?");
	} else if (row->verdict == PB_VERDICT_EQUIVALENT)
		snprintf(c->d, sizeof c->d, "="); /* the interval inside the margin */
	else if (!row->significant)
		snprintf(c->d, sizeof c->d, "~");
	else {
		fmt_pct(c->d, sizeof c->d - 1, row->pct);
		if (!isnan(row->pct))
			strcat(c->d, "%");
	}
	if (isnan(row->pct_lo))
		snprintf(c->ci, sizeof c->ci, "-");
	else {
		fmt_pct(lo, sizeof lo, row->pct_lo);
		fmt_pct(hi, sizeof hi, row->pct_hi);
		c->marked = printed_outside(row, c->oa, c->ob, lo, hi);
		const char *mark = c->marked ? "*" : "";
		snprintf(c->ci, sizeof c->ci, "[%s, %s]%s", lo, hi, mark);
		if (strlen(c->ci) > CI_WIDTH) /* two figures of 5 or 6 characters */
			snprintf(c->ci, sizeof c->ci, "[%s,%s]%s", lo, hi, mark);
	}
	if (isnan(row->u.p))
		snprintf(c->p, sizeof c->p, "-");
	else
		snprintf(c->p, sizeof c->p, "%.3f", row->u.p);
}

/* A geometric mean's cells as every table prints them: its unit as
 * displayed, old and new in it, the change in % ("+2.0%"), the cases. */
struct gm_cells {
	const char *unit;
	char oa[16], ob[16], d[16], n[32];
};

static void geomean_cells(const struct pb_compare_geomean *m, struct gm_cells *c)
{
	double div = ns_display(m->unit, fmin(m->a, m->b), &c->unit);
	fmt_num(c->oa, sizeof c->oa, m->a / div);
	fmt_num(c->ob, sizeof c->ob, m->b / div);
	fmt_pct(c->d, sizeof c->d - 1, 100 * (m->ratio - 1));
	if (m->n)
		strcat(c->d, "%");
	snprintf(c->n, sizeof c->n, "%zu", m->n);
}

/* What a row marked '*' is (MARK_*): the kinds of delta the footnote
 * explains. */
enum { MARK_HL = 1, MARK_RUNS = 2 };

static unsigned mark_kind(const struct pb_compare_row *row, bool marked)
{
	return !marked ? 0 : row->run_level ? MARK_RUNS : MARK_HL;
}

/* One row; its MARK_* when it is marked '*', else 0. */
static unsigned print_row(FILE *f, const struct pb_compare_row *row, double div)
{
	struct row_cells c;
	row_cells(row, div, &c);
	const char *label = row->a->label;
	if ((int)strlen(label) > NAME_WIDTH) {
		fprintf(f, "%s\n", label);
		label = "";
	}
	put_line(f, ROW_FMT, NAME_WIDTH, label, c.oa, c.ca, c.ob, c.cb, c.d, c.ci, c.p);
	return mark_kind(row, c.marked);
}

/* A header centred over a 14-column cell (value, "+-", CI). */
static void centre(char *buf, size_t len, const char *text)
{
	int w = (int)strlen(text), pad = w < 14 ? (14 - w) / 2 : 0;
	snprintf(buf, len, "%*s%-*s", pad, "", 14 - pad, text);
}

static void print_header(FILE *f, const char *name, const char *old, const char *new,
                         const char *ci, const char *p)
{
	char oh[48], nh[48];
	centre(oh, sizeof oh, old);
	centre(nh, sizeof nh, new);
	if ((int)strlen(name) > NAME_WIDTH) {
		fprintf(f, "%s\n", name);
		name = "";
	}
	put_line(f, "%-*s %s %s %7s %-15s %5s", NAME_WIDTH, name, oh, nh, "delta", ci, p);
}

/* The divisor and display unit of the rows of one group in one unit not
 * yet done (ns_display of their smallest median). */
static double group_div(const struct pb_compare_result *r, const char *group, const char *unit,
                        const bool *done, const char **uname)
{
	double smallest = INFINITY;
	for (size_t i = 0; i < r->nrows; i++)
		if (!done[i] && !strcmp(r->rows[i].a->group, group) &&
		    !strcmp(r->rows[i].unit, unit))
			smallest = fmin(smallest, fmin(r->rows[i].sa.median, r->rows[i].sb.median));
	return ns_display(unit, smallest, uname);
}

/* The rows of one group in one unit; the MARK_* of the rows marked '*'. */
static unsigned print_group(FILE *f, const struct pb_compare_result *r, const char *group,
                            const char *unit, bool *done)
{
	unsigned marked = 0;
	char lv[32], ci_head[40], oh[32], nh[32];
	const char *uname;
	double div = group_div(r, group, unit, done, &uname);
	level_text(lv, sizeof lv, r->level);
	snprintf(ci_head, sizeof ci_head, "%s CI", lv);
	snprintf(oh, sizeof oh, "old %s", uname);
	snprintf(nh, sizeof nh, "new %s", uname);
	fputc('\n', f);
	print_header(f, group, oh, nh, ci_head, "p");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (done[i] || strcmp(row->a->group, group) || strcmp(row->unit, unit))
			continue;
		done[i] = true;
		marked |= print_row(f, row, div);
	}
	return marked;
}

static void print_names(FILE *f, const char *head, const struct pb_results_case *const *cases,
                        size_t n)
{
	/* The head (with a path in it) goes into the wrapped text, not the
	 * label: a long path is then cut at 80 columns like any long word. */
	char *s = pb_xasprintf("%s %zu case%s:", head, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < LIST_MAX; i++) {
		char *item = pb_xasprintf(" %s: %s%s", cases[i]->group, cases[i]->label,
		                          i + 1 < n ? ";" : "");
		pb_xappend(&s, item);
		free(item);
	}
	if (n > LIST_MAX) {
		char *more = pb_xasprintf(" and %zu more", n - LIST_MAX);
		pb_xappend(&s, more);
		free(more);
	}
	pb_print_wrapped_at(f, 0, 4, s);
	free(s);
}

/* "mem cases (6)" or "6 mem and 2 cmd cases" of a file's cases with
 * samples, suites in order of first appearance; "no cases with samples". */
static char *suites_text(const struct pb_results_file *fl)
{
	if (!fl->ncases)
		return pb_xstrdup("no cases with samples");
	const char **suite = pb_xcalloc(fl->ncases, sizeof *suite);
	size_t *count = pb_xcalloc(fl->ncases, sizeof *count), ns = 0;
	for (size_t i = 0; i < fl->ncases; i++) {
		const char *name = pb_field_str(&fl->cases[i].fields, "suite");
		name = name ? name : "(no suite)";
		size_t k = 0;
		while (k < ns && strcmp(suite[k], name))
			k++;
		if (k == ns)
			suite[ns++] = name;
		count[k]++;
	}
	char *s = pb_xstrdup("");
	for (size_t k = 0; k < ns; k++) {
		char *item = pb_xasprintf("%s%zu %s",
		                          k == 0       ? ""
		                          : k + 1 < ns ? ", "
		                                       : " and ",
		                          count[k], suite[k]);
		char *p = pb_printable(item, true);
		pb_xappend(&s, p);
		free(p);
		free(item);
	}
	pb_xappend(&s, fl->ncases == 1 ? " case" : " cases");
	free(suite);
	free(count);
	return s;
}

/* Whether the two files have a suite in common (among cases with samples). */
static bool suites_overlap(const struct pb_results_file *fa, const struct pb_results_file *fb)
{
	for (size_t i = 0; i < fa->ncases; i++)
		for (size_t j = 0; j < fb->ncases; j++) {
			const char *a = pb_field_str(&fa->cases[i].fields, "suite");
			const char *b = pb_field_str(&fb->cases[j].fields, "suite");
			if ((!a && !b) || (a && b && !strcmp(a, b)))
				return true;
		}
	return false;
}

/* Why no case is in both files: what each has. */
static char *nothing_matched(const struct pb_compare_result *r)
{
	char *ta = suites_text(r->fa), *tb = suites_text(r->fb), *s;
	if (!r->fa->ncases || !r->fb->ncases)
		s = pb_xasprintf("no cases in both files: %s has %s, %s has %s.", r->fa->path, ta,
		                 r->fb->path, tb);
	else if (!suites_overlap(r->fa, r->fb))
		s = pb_xasprintf("no cases in both files: %s has %s, %s has %s; cases match only "
		                 "within a suite, on their whole key.",
		                 r->fa->path, ta, r->fb->path, tb);
	else
		s = pb_xasprintf("no cases in both files: %s has %s, %s has %s, but no key is in "
		                 "both (cases match on their whole key: the lists below show each "
		                 "file's).",
		                 r->fa->path, ta, r->fb->path, tb);
	free(ta);
	free(tb);
	return s;
}

/* Appends one part to the legend's unit list, "; " between parts. */
static void units_add(char **units, const char *part)
{
	if (**units)
		pb_xappend(units, "; ");
	pb_xappend(units, part);
}

/* The legend, naming only the units and kinds of case in the table. */
static char *legend_text(const struct pb_compare_result *r)
{
	bool ticks = false, counter = false, cmd = false, scaled = false, lat = false, map = false;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		const char *name;
		lat |= !strcmp(row->unit, "ns/load");
		map |= !strcmp(row->unit, "ns/4KiB");
		ticks |= !strcmp(row->unit, "tsc_ticks");
		counter |= !strcmp(row->unit, "cntvct_ticks");
		cmd |= pb_key_is_cmd(&row->a->fields);
		scaled |= ns_display(row->unit, fmin(row->sa.median, row->sb.median), &name) != 1;
	}
	char *units = pb_xstrdup("");
	if (ticks || counter)
		units_add(&units, ticks && counter ? "ticks: TSC ticks, arm64 counter ticks"
		                  : ticks          ? "ticks: TSC ticks"
		                                   : "ticks: arm64 counter ticks");
	if (scaled)
		units_add(&units, "times in the header's unit, ns, us, ms or s");
	if (lat)
		units_add(&units, "ns/load: ns per dependent load (latency)");
	if (map)
		units_add(&units, "ns/4KiB: ns per 4 KiB of the region mapped (map; its GB/s is "
		                  "4.096 / it)");
	if (cmd)
		units_add(&units, "cmd: the real (wall-clock) time of a run, not user or sys");
	char lv[32], alpha[32];
	level_text(lv, sizeof lv, r->level);
	snprintf(alpha, sizeof alpha, "%.10g", 1 - r->level);
	/* the kinds of delta in the table: the runs' (Welch), one run a side
	 * (the samples' Hodges-Lehmann, no verdict), and a cmd row in one file
	 * on a side (each sample a run: Hodges-Lehmann with a verdict); the
	 * range of the Hodges-Lehmann intervals' actual coverage */
	bool runs = false, one = false, cmdruns = false;
	double cov_lo = INFINITY, cov_hi = -INFINITY;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		runs |= row->run_level;
		one |= row->one_run;
		cmdruns |= !row->run_level && !row->one_run;
		if (!row->run_level && row->shift.ci_valid) {
			cov_lo = fmin(cov_lo, row->shift.coverage);
			cov_hi = fmax(cov_hi, row->shift.coverage);
		}
	}
	char *how = pb_xstrdup("");
	if (runs)
		pb_xappend(&how,
		           "with runs on both sides (replicates, or files): the ratio of the "
		           "runs' geometric means with Welch's t interval on their logs, p from "
		           "that t test");
	if (cmdruns)
		pb_xappend(&how, runs ? "; cmd in one file on a side (each sample a run): the "
		                        "Hodges-Lehmann estimate of the runs' times with its "
		                        "interval, p from the Mann-Whitney U test"
		                      : "the Hodges-Lehmann estimate (the median of all pairwise "
		                        "ratios) of the runs' times with its interval, p from the "
		                        "Mann-Whitney U test");
	if (one)
		pb_xappend(&how,
		           runs || cmdruns
		               ? "; with one run a side: the Hodges-Lehmann estimate of the "
		                 "samples with its interval, p from the Mann-Whitney U test, "
		                 "and no verdict ('?': it covers one process only)"
		               : "the Hodges-Lehmann estimate of the samples with its interval, "
		                 "p from the Mann-Whitney U test, and no verdict ('?': it "
		                 "covers one process only)");
	/* a rank-sum interval covers what its ranks attain, at least the level */
	char at[256];
	char lo_txt[32], hi_txt[32];
	snprintf(lo_txt, sizeof lo_txt, "%.1f%%", 100 * cov_lo);
	snprintf(hi_txt, sizeof hi_txt, "%.1f%%", 100 * cov_hi);
	if (cov_lo <= cov_hi && (fabs(cov_lo - r->level) > 5e-4 || fabs(cov_hi - r->level) > 5e-4))
		snprintf(at, sizeof at,
		         "%s (the Hodges-Lehmann interval%s: %s%s%s, the nearest "
		         "its ranks attain)",
		         lv, strcmp(lo_txt, hi_txt) ? "s" : "", lo_txt,
		         strcmp(lo_txt, hi_txt) ? " to " : "",
		         strcmp(lo_txt, hi_txt) ? hi_txt : "");
	else
		snprintf(at, sizeof at, "%s", lv);
	char *legend = pb_xasprintf(
	    "old, new: median per call%s%s%s +- the half-width of its %s "
	    "confidence interval in %% of it (with replicates: their geometric mean and a "
	    "t interval; ?: too few samples). delta: new/old - 1, %s, at %s; =: equivalent "
	    "within +-%g%% (the interval lies inside it); ~: cannot tell (the interval "
	    "includes 0 or p >= %s, or the delta lies inside the margin and the interval "
	    "beyond it). geomean: of the medians; delta new/old.",
	    *units ? " (" : "", units, *units ? ")" : "", lv, how, at, 100 * r->margin, alpha);
	free(how);
	free(units);
	return legend;
}

/* A family's share in a case's profile as text: "5.0%", "-" when not
 * counted. */
static bool family_share(const struct pb_results_case *c, const char *name, double *share,
                         char *buf, size_t len)
{
	bool ok = pb_results_case_profile_share(c, name, share) == 0;
	if (ok)
		snprintf(buf, len, "%.1f%%", 100 * *share);
	else
		snprintf(buf, len, "-");
	return ok;
}

/* cmd cases with a profile in both files: each family's share, old and
 * new, and the change in percentage points (docs/profile.md). */
static void print_profiles(FILE *f, const struct pb_compare_result *r)
{
	bool head = false;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_results_case *pa = r->rows[i].a, *pb = r->rows[i].b;
		if (!pb_facts_has(&pa->facts, "profile") || !pb_facts_has(&pb->facts, "profile"))
			continue;
		if (!head) {
			fprintf(f,
			        "\nprofile: each family's share of all samples (cmd --profile)\n");
			head = true;
		}
		char *name = full_name(r->rows[i].a);
		fputc('\n', f);
		pb_print_labelled(f, 2, "", name);
		free(name);
		put_line(f, "  %-27s %8s %8s %9s", "family", "old", "new", "change");
		for (int k = 0; k < PB_PROF_NFAMILIES; k++) {
			const struct pb_prof_family *fam = &pb_prof_families[k];
			double sa = 0, sb = 0;
			char ta[16], tb[16], d[24] = "-";
			bool ca = family_share(pa, fam->name, &sa, ta, sizeof ta);
			bool cb = family_share(pb, fam->name, &sb, tb, sizeof tb);
			if (fam->preload && sa == 0 && sb == 0)
				continue;
			if (ca && cb)
				snprintf(d, sizeof d, "%+.1f pt", 100 * (sb - sa));
			put_line(f, "  %-27s %8s %8s %9s", fam->label, ta, tb, d);
		}
	}
}

/* "old: a1.json, a2.json (2 runs)": every file of a side ('--'). */
static void print_side(FILE *f, const char *label, const struct pb_results_file *first,
                       const struct pb_results_file *const *side, size_t n)
{
	if (n < 2) {
		pb_print_labelled(f, 5, label, first->path);
		return;
	}
	char *s = pb_xasprintf("%s", side[0]->path);
	for (size_t i = 1; i < n; i++) {
		pb_xappend(&s, ", ");
		pb_xappend(&s, side[i]->path);
	}
	char *t = pb_xasprintf(" (%zu runs)", n);
	pb_xappend(&s, t);
	free(t);
	pb_print_labelled(f, 5, label, s);
	free(s);
}

/* What a '*' after a row's interval means, for the kinds of row marked
 * (MARK_*): the delta is the median of all pairwise ratios (Hodges-Lehmann)
 * or the ratio of the runs' geometric means, not the ratio of the medians
 * in the columns. */
static char *marked_text(unsigned kinds)
{
	const char *head = "*: the change of the medians as printed (new/old - 1 of the old and "
	                   "new columns) lies outside the delta's interval.";
	const char *hl = "the median of all pairwise ratios new/old of the samples, not the "
	                 "ratio of the medians, so with bimodal samples the medians can jump "
	                 "between the modes while most pairs barely move";
	const char *runs = "the ratio of the runs' geometric means, the old and new figures "
	                   "themselves, so only their rounding to 3 figures puts it outside";
	if (kinds == MARK_RUNS)
		return pb_xasprintf("%s With runs on both sides the delta is %s.", head, runs);
	if (kinds == MARK_HL)
		return pb_xasprintf("%s Both are right: the delta is %s; and the medians are "
		                    "rounded to 3 figures.",
		                    head, hl);
	return pb_xasprintf("%s Both are right: with one run a side (or a cmd row), the delta is "
	                    "%s; with runs on both sides, it is %s; and the medians are rounded "
	                    "to 3 figures.",
	                    head, hl, runs);
}

void pb_compare_print(FILE *f, const struct pb_compare_result *r)
{
	print_side(f, "old:", r->fa, r->side_a, r->nside_a);
	print_side(f, "new:", r->fb, r->side_b, r->nside_b);
	for (size_t i = 0; i < r->nhw; i++) {
		char *t = pb_xasprintf("%s %s -> %s (hardware; --force)", r->hw[i].field,
		                       r->hw[i].a, r->hw[i].b);
		pb_print_labelled(f, 9, "differs:", t);
		free(t);
	}
	for (size_t i = 0; i < r->nsw; i++) {
		char *t = pb_xasprintf("%s %s -> %s", r->sw[i].field, r->sw[i].a, r->sw[i].b);
		pb_print_labelled(f, 9, "differs:", t);
		free(t);
	}

	bool *done = pb_xcalloc(r->nrows, sizeof *done);
	unsigned marked = 0;
	for (size_t i = 0; i < r->nrows; i++)
		if (!done[i])
			marked |= print_group(f, r, r->rows[i].a->group, r->rows[i].unit, done);
	free(done);
	if (!r->nrows) {
		char *why = nothing_matched(r);
		fputc('\n', f);
		pb_print_labelled(f, 0, "", why);
		free(why);
	}

	if (r->ngm) {
		fputc('\n', f);
		print_header(f, "geomean", "old", "new", "cases", "");
		for (size_t g = 0; g < r->ngm; g++) {
			struct gm_cells c;
			geomean_cells(&r->gm[g], &c);
			put_line(f, "%-*s %7s %6s %7s %6s %7s %-15s", NAME_WIDTH, c.unit, c.oa, "",
			         c.ob, "", c.d, c.n);
		}
	}

	print_profiles(f, r);

	if (r->nonly_a || r->nonly_b)
		fputc('\n', f);
	if (r->nonly_a) {
		char *h = r->nside_a > 1 ? pb_xasprintf("only in the old files:")
		                         : pb_xasprintf("only in %s:", r->fa->path);
		print_names(f, h, r->only_a, r->nonly_a);
		free(h);
	}
	if (r->nonly_b) {
		char *h = r->nside_b > 1 ? pb_xasprintf("only in the new files:")
		                         : pb_xasprintf("only in %s:", r->fb->path);
		print_names(f, h, r->only_b, r->nonly_b);
		free(h);
	}
	if (r->nnotes)
		fputc('\n', f);
	for (size_t i = 0; i < r->nnotes; i++)
		pb_print_labelled(f, 6, "note:", r->notes[i]);

	if (r->nrows) {
		char *legend = legend_text(r);
		fputc('\n', f);
		pb_print_labelled(f, 0, "", legend);
		free(legend);
		if (marked) {
			char *t = marked_text(marked);
			pb_print_labelled(f, 0, "", t);
			free(t);
		}
	}
}

/* ---- Markdown ------------------------------------------------------------ */

/* Text of the files (case names, paths, values): the characters that
 * would end a table cell or start code, emphasis, strikethrough or HTML
 * escaped ('_' is left: inside a word it emphasises nothing). */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (strchr("\\|*`<~", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* A path as code, unless a backtick or a line break in it would end that
 * (then as escaped text). */
static void md_path(FILE *f, const char *path)
{
	if (strpbrk(path, "`\r\n"))
		md_text(f, path);
	else
		fprintf(f, "`%s`", path);
}

/* How pb_compare_markdown and pb_compare_html write: one writer for both,
 * the cells the same. */
enum doc_style { DOC_MARKDOWN, DOC_HTML };

/* Text of the files, escaped for the style. */
static void doc_text(FILE *f, enum doc_style st, const char *s)
{
	if (st == DOC_HTML)
		pb_html_text(f, s);
	else
		md_text(f, s);
}

static void doc_path(FILE *f, enum doc_style st, const char *path)
{
	if (st == DOC_MARKDOWN) {
		md_path(f, path);
		return;
	}
	fputs("<code>", f);
	pb_html_text(f, path);
	fputs("</code>", f);
}

/* A list item's start and end. */
static void doc_item(FILE *f, enum doc_style st)
{
	fputs(st == DOC_HTML ? "<li>" : "- ", f);
}

static void doc_item_end(FILE *f, enum doc_style st)
{
	fputs(st == DOC_HTML ? "</li>\n" : "\n", f);
}

/* One HTML cell: <TAG ATTRS>text</TAG>, the text escaped. */
static void html_cell(FILE *f, const char *tag, const char *attrs, const char *text)
{
	fprintf(f, "<%s%s>", tag, attrs);
	pb_html_text(f, text);
	fprintf(f, "</%s>", tag);
}

/* An HTML table's start: its caption and header cells (num[i]: a number
 * column, class="num"). */
static void html_table_head(FILE *f, const char *caption, const char *const *heads, const bool *num,
                            size_t n)
{
	fputs("<table class=\"pb-table\">\n", f);
	html_cell(f, "caption", "", caption);
	fputs("\n<thead>\n<tr>", f);
	for (size_t i = 0; i < n; i++)
		html_cell(f, "th", num[i] ? " scope=\"col\" class=\"num\"" : " scope=\"col\"",
		          heads[i]);
	fputs("</tr>\n</thead>\n<tbody>\n", f);
}

static void md_side(FILE *f, enum doc_style st, const char *label,
                    const struct pb_results_file *first, const struct pb_results_file *const *side,
                    size_t n)
{
	doc_item(f, st);
	fprintf(f, "%s ", label);
	if (n < 2)
		doc_path(f, st, first->path);
	for (size_t i = 0; n >= 2 && i < n; i++) {
		fputs(i ? ", " : "", f);
		doc_path(f, st, side[i]->path);
	}
	if (n >= 2)
		fprintf(f, " (%zu runs)", n);
	doc_item_end(f, st);
}

/* The delta column's mark in words (Markdown's verdict column), and the
 * class of HTML's verdict cell. */
struct verdict_words {
	const char *word, *html_class;
};

static struct verdict_words verdict_words(const struct pb_compare_row *row)
{
	if (row->one_run)
		return (struct verdict_words){"no verdict (one run)", "verdict-one-run"};
	if (row->verdict == PB_VERDICT_EQUIVALENT)
		return (struct verdict_words){"equivalent", "verdict-equivalent"};
	return row->significant ? (struct verdict_words){"different", "verdict-different"}
	                        : (struct verdict_words){"cannot tell", "verdict-none"};
}

static const char *md_verdict(const struct pb_compare_row *row)
{
	return verdict_words(row).word;
}

/* path NULL: the side's several files, named by `side` */
static void md_names(FILE *f, enum doc_style st, const char *path, const char *side,
                     const struct pb_results_case *const *cases, size_t n)
{
	doc_item(f, st);
	fputs("only in ", f);
	if (path)
		doc_path(f, st, path);
	else
		fputs(side, f);
	fprintf(f, ", %zu case%s: ", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		char *name = full_name(cases[i]);
		fputs(i ? "; " : "", f);
		doc_text(f, st, name);
		free(name);
	}
	doc_item_end(f, st);
}

/* The rows of one group in one unit as a table; the MARK_* of the rows marked '*'. */
static unsigned md_group(FILE *f, enum doc_style st, const struct pb_compare_result *r,
                         const char *group, const char *unit, bool *done)
{
	unsigned marked = 0;
	char lv[32];
	const char *uname;
	double div = group_div(r, group, unit, done, &uname);
	level_text(lv, sizeof lv, r->level);
	if (st == DOC_HTML) {
		char *oh = pb_xasprintf("old %s", uname), *nh = pb_xasprintf("new %s", uname);
		char *ch = pb_xasprintf("%s CI", lv);
		/* aligned as Markdown's columns */
		const char *const heads[] = {"case", oh, nh, "delta", ch, "p", "verdict"};
		const bool num[] = {false, true, true, true, false, true, false};
		html_table_head(f, group, heads, num, 7);
		free(oh);
		free(nh);
		free(ch);
	} else {
		fputs("\n### ", f);
		md_text(f, group);
		fprintf(f, "\n\n| case | old %s | new %s | delta | %s CI | p | verdict |\n", uname,
		        uname, lv);
		fputs("|---|---:|---:|---:|---|---:|---|\n", f);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (done[i] || strcmp(row->a->group, group) || strcmp(row->unit, unit))
			continue;
		done[i] = true;
		struct row_cells c;
		row_cells(row, div, &c);
		marked |= mark_kind(row, c.marked);
		if (st == DOC_MARKDOWN) {
			fputs("| ", f);
			md_text(f, row->a->label);
			fprintf(f, " | %s +-%s | %s +-%s | %s | %s | %s | %s |\n", c.oa, c.ca, c.ob,
			        c.cb, c.d, c.ci, c.p, md_verdict(row));
			continue;
		}
		char *old = pb_xasprintf("%s +-%s", c.oa, c.ca);
		char *new = pb_xasprintf("%s +-%s", c.ob, c.cb);
		struct verdict_words v = verdict_words(row);
		char *vc = pb_xasprintf(" class=\"%s\"", v.html_class);
		fputs("<tr>", f);
		html_cell(f, "th", " scope=\"row\"", row->a->label);
		html_cell(f, "td", " class=\"num\"", old);
		html_cell(f, "td", " class=\"num\"", new);
		html_cell(f, "td", " class=\"num\"", c.d);
		html_cell(f, "td", "", c.ci);
		html_cell(f, "td", " class=\"num\"", c.p);
		html_cell(f, "td", vc, v.word);
		fputs("</tr>\n", f);
		free(old);
		free(new);
		free(vc);
	}
	if (st == DOC_HTML)
		fputs("</tbody>\n</table>\n", f);
	return marked;
}

/* A paragraph: Markdown's after a blank line, HTML's a <p>. */
static void doc_para(FILE *f, enum doc_style st, const char *text)
{
	if (st == DOC_MARKDOWN) {
		fprintf(f, "\n%s\n", text);
		return;
	}
	fputs("<p>", f);
	pb_html_text(f, text);
	fputs("</p>\n", f);
}

/* A section's heading: Markdown's "### ", HTML's <h3>. */
static void doc_heading(FILE *f, enum doc_style st, const char *text)
{
	if (st == DOC_MARKDOWN) {
		fprintf(f, "\n### %s\n\n", text);
		return;
	}
	html_cell(f, "h3", "", text);
	fputc('\n', f);
}

static void compare_doc(FILE *f, enum doc_style st, const struct pb_compare_result *r)
{
	if (st == DOC_MARKDOWN)
		fputs("## primbench compare\n\n", f);
	else
		fputs("<ul class=\"pb-files\">\n", f);
	md_side(f, st, "old:", r->fa, r->side_a, r->nside_a);
	md_side(f, st, "new:", r->fb, r->side_b, r->nside_b);
	for (size_t i = 0; i < r->nhw + r->nsw; i++) {
		const struct pb_compare_diff *d = i < r->nhw ? &r->hw[i] : &r->sw[i - r->nhw];
		char *t = pb_xasprintf("%s %s -> %s", d->field, d->a, d->b);
		doc_item(f, st);
		fputs("differs: ", f);
		doc_text(f, st, t);
		/* HTML (report --html): compared anyway, no option to name */
		fputs(i >= r->nhw      ? ""
		      : st == DOC_HTML ? " (hardware)"
		                       : " (hardware; --force)",
		      f);
		doc_item_end(f, st);
		free(t);
	}
	if (st == DOC_HTML)
		fputs("</ul>\n", f);

	bool *done = pb_xcalloc(r->nrows, sizeof *done);
	unsigned marked = 0;
	for (size_t i = 0; i < r->nrows; i++)
		if (!done[i])
			marked |= md_group(f, st, r, r->rows[i].a->group, r->rows[i].unit, done);
	free(done);
	if (!r->nrows) {
		char *why = nothing_matched(r);
		doc_para(f, st, why);
		free(why);
	}

	if (r->ngm && st == DOC_MARKDOWN)
		fputs("\n### geomean\n\n| unit | old | new | delta | cases |\n"
		      "|---|---:|---:|---:|---:|\n",
		      f);
	else if (r->ngm) {
		const char *const heads[] = {"unit", "old", "new", "delta", "cases"};
		const bool num[] = {false, true, true, true, true};
		html_table_head(f, "geomean", heads, num, 5);
	}
	for (size_t g = 0; g < r->ngm; g++) {
		struct gm_cells c;
		geomean_cells(&r->gm[g], &c);
		if (st == DOC_MARKDOWN) {
			fprintf(f, "| %s | %s | %s | %s | %s |\n", c.unit, c.oa, c.ob, c.d, c.n);
			continue;
		}
		fputs("<tr>", f);
		html_cell(f, "th", " scope=\"row\"", c.unit);
		html_cell(f, "td", " class=\"num\"", c.oa);
		html_cell(f, "td", " class=\"num\"", c.ob);
		html_cell(f, "td", " class=\"num\"", c.d);
		html_cell(f, "td", " class=\"num\"", c.n);
		fputs("</tr>\n", f);
	}
	if (r->ngm && st == DOC_HTML)
		fputs("</tbody>\n</table>\n", f);

	if (r->nonly_a || r->nonly_b) {
		doc_heading(f, st, "only in one file");
		if (st == DOC_HTML)
			fputs("<ul>\n", f);
	}
	if (r->nonly_a)
		md_names(f, st, r->nside_a > 1 ? NULL : r->fa->path, "the old files", r->only_a,
		         r->nonly_a);
	if (r->nonly_b)
		md_names(f, st, r->nside_b > 1 ? NULL : r->fb->path, "the new files", r->only_b,
		         r->nonly_b);
	if ((r->nonly_a || r->nonly_b) && st == DOC_HTML)
		fputs("</ul>\n", f);
	if (r->nnotes) {
		doc_heading(f, st, "notes");
		if (st == DOC_HTML)
			fputs("<ul>\n", f);
	}
	for (size_t i = 0; i < r->nnotes; i++) {
		doc_item(f, st);
		doc_text(f, st, r->notes[i]);
		doc_item_end(f, st);
	}
	if (r->nnotes && st == DOC_HTML)
		fputs("</ul>\n", f);

	if (r->nrows) {
		char *legend = legend_text(r);
		doc_para(f, st, legend);
		free(legend);
		if (marked) {
			char *t = marked_text(marked);
			doc_para(f, st, t);
			free(t);
		}
	}
}

void pb_compare_markdown(FILE *f, const struct pb_compare_result *r)
{
	compare_doc(f, DOC_MARKDOWN, r);
}

void pb_compare_html(FILE *f, const struct pb_compare_result *r)
{
	compare_doc(f, DOC_HTML, r);
}

/* ---- CSV ----------------------------------------------------------------- */

/* The columns before and after the key's fields. */
static const char *const csv_head[] = {"old_file", "new_file", "group", "case"};
static const char *const csv_tail[] = {
    "unit",       "old_n",     "old_median", "old_ci_lo", "old_ci_hi",    "new_n",
    "new_median", "new_ci_lo", "new_ci_hi",  "delta_pct", "delta_pct_lo", "delta_pct_hi",
    "p",          "verdict",   "one_run",    "runs_old",  "runs_new"};

/* The files of a side, ';' between them. Malloc'd. */
static char *csv_side(const struct pb_results_file *first,
                      const struct pb_results_file *const *side, size_t n)
{
	if (n < 2)
		return pb_xstrdup(first->path);
	char *s = pb_xstrdup("");
	for (size_t i = 0; i < n; i++) {
		if (i)
			pb_xappend(&s, ";");
		pb_xappend(&s, side[i]->path);
	}
	return s;
}

static void csv_num(FILE *f, double v, bool last)
{
	char buf[32];
	pb_csv_double(buf, sizeof buf, v);
	pb_csv_field(f, buf, last);
}

static void csv_count(FILE *f, size_t n, bool last)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%zu", n);
	pb_csv_field(f, buf, last);
}

static void csv_summary(FILE *f, const struct pb_summary *s)
{
	csv_count(f, s->n, false);
	csv_num(f, s->median, false);
	csv_num(f, s->ci_valid ? s->ci_lo : NAN, false);
	csv_num(f, s->ci_valid ? s->ci_hi : NAN, false);
}

void pb_compare_csv(FILE *f, const struct pb_compare_result *r, size_t n)
{
	/* the union of the old cases' key fields, first-seen order */
	struct pb_strv fields = {0};
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < r[k].nrows; i++) {
			const struct pb_key *key = &r[k].rows[i].a->fields;
			for (size_t x = 0; x < key->n; x++) {
				const char *name = key->fields[x].name;
				bool seen = false;
				for (size_t j = 0; j < fields.n && !seen; j++)
					seen = !strcmp(fields.v[j], name);
				if (!seen)
					pb_strv_push(&fields, pb_xstrdup(name));
			}
		}
	size_t nf = fields.n;
	for (size_t j = 0; j < sizeof csv_head / sizeof *csv_head; j++)
		pb_csv_field(f, csv_head[j], false);
	for (size_t j = 0; j < nf; j++) {
		/* a key field named like a column of the table's own keeps apart */
		const char *name = fields.v[j];
		bool clash = false;
		for (size_t c = 0; c < sizeof csv_head / sizeof *csv_head; c++)
			clash |= !strcmp(name, csv_head[c]);
		for (size_t c = 0; c < sizeof csv_tail / sizeof *csv_tail; c++)
			clash |= !strcmp(name, csv_tail[c]);
		char *col = pb_xasprintf("%s%s", clash ? "key_" : "", name);
		pb_csv_field(f, col, false);
		free(col);
	}
	for (size_t j = 0; j < sizeof csv_tail / sizeof *csv_tail; j++)
		pb_csv_field(f, csv_tail[j], j + 1 == sizeof csv_tail / sizeof *csv_tail);
	for (size_t k = 0; k < n; k++) {
		char *old = csv_side(r[k].fa, r[k].side_a, r[k].nside_a);
		char *new = csv_side(r[k].fb, r[k].side_b, r[k].nside_b);
		for (size_t i = 0; i < r[k].nrows; i++) {
			const struct pb_compare_row *row = &r[k].rows[i];
			pb_csv_field(f, old, false);
			pb_csv_field(f, new, false);
			pb_csv_field(f, row->a->group, false);
			pb_csv_field(f, row->a->label, false);
			for (size_t j = 0; j < nf; j++) {
				const char *name = fields.v[j];
				char *t = pb_csv_value_text(pb_field_get(&row->a->fields, name));
				pb_csv_field(f, t ? t : "", false);
				free(t);
			}
			pb_csv_field(f, row->unit, false);
			csv_summary(f, &row->sa);
			csv_summary(f, &row->sb);
			csv_num(f, row->pct, false);
			csv_num(f, row->pct_lo, false);
			csv_num(f, row->pct_hi, false);
			csv_num(f, row->u.p, false);
			pb_csv_field(f, pb_verdict_name(row->verdict), false);
			pb_csv_field(f, row->one_run ? "true" : "false", false);
			csv_count(f, row->runs_a, false);
			csv_count(f, row->runs_b, true);
		}
		free(old);
		free(new);
	}
	for (size_t j = 0; j < fields.n; j++)
		free(fields.v[j]);
	free(fields.v);
}
