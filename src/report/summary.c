/* summary.c - what a default run found (include/primbench/summary.h).
 *
 * Four sections, each built as data (include/primbench/summary_result.h;
 * src/results/summary_write.c writes it) and, beside it, paragraphs of
 * text made from the same figures: libc against the fastest kernel,
 * glibc's thresholds against the measured switches, the kernel crossings
 * (syscall cases), and how far to trust the run.
 */
#define _GNU_SOURCE
#include "primbench/summary.h"

#include <assert.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/breakeven.h"
#include "primbench/breakeven_text.h"
#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/glibc_effect.h"
#include "primbench/judge.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/report.h"
#include "primbench/results_join.h"
#include "primbench/sizes.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"
#include "primbench/units.h"

/* One usable mem case of the file: op memset or memcpy, a size > 0, no
 * extent, read-back or replay; its per-call summary recomputed. */
struct mcase {
	enum pb_op op;
	enum pb_cache_state st;
	const char *kernel; /* borrowed from the document */
	uint64_t size;
	unsigned revision; /* the row's kernel_revision when measured */
	struct pb_summary s;
	const struct pb_results_case *k; /* borrowed from the file */
};

struct ctx {
	const struct pb_results_file *f;
	struct mcase *mc;
	size_t nmc;
	struct pb_summary_report *out; /* its text: the paragraphs */
	size_t text_cap;
	bool oom; /* a paragraph or record could not be allocated */
	/* cases left out of the policies: their kernel ran, at their size,
	 * other code than its row runs now (an older kernel_revision), or
	 * code not known here (a newer one) */
	size_t other_code;
	/* sizes where libc is behind (pb_verdict, the one margin), per op and state;
	 * the texts' "+-1%" is PB_EQUIVALENCE */
	size_t behind[PB_OP_COUNT][PB_STATE_COUNT];
};

static void para(struct ctx *c, int indent, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Inserts the paragraph `line` (taken; NULL: out of memory) at index at. */
static void text_insert(struct ctx *c, size_t at, char *line)
{
	struct pb_summary_report *o = c->out;
	if (line && o->n_text == c->text_cap) {
		size_t cap = c->text_cap ? 2 * c->text_cap : 32;
		char **t = realloc(o->text, cap * sizeof *t);
		if (t) {
			o->text = t;
			c->text_cap = cap;
		} else {
			free(line);
			line = NULL;
		}
	}
	if (!line) {
		c->oom = true;
		return;
	}
	memmove(o->text + at + 1, o->text + at, (o->n_text - at) * sizeof *o->text);
	o->text[at] = line;
	o->n_text++;
}

static void para(struct ctx *c, int indent, const char *fmt, ...)
{
	char *body = NULL, *line = NULL;
	va_list ap;
	va_start(ap, fmt);
	int rc = vasprintf(&body, fmt, ap);
	va_end(ap);
	if (rc < 0) {
		c->oom = true;
		return;
	}
	if (asprintf(&line, "%*s%s", indent, "", body) < 0)
		line = NULL;
	text_insert(c, c->out->n_text, line);
	free(body);
}

static char *dup_or_oom(struct ctx *c, const char *s)
{
	char *d = strdup(s);
	c->oom |= d == NULL;
	return d;
}

/* A ratio with 3 significant figures at least: "1.42", "1.004". */
static const char *fmt_ratio(double r, char *buf, size_t len)
{
	snprintf(buf, len, r < 1.1 && r > 0.9 ? "%.3f" : "%.2f", r);
	return buf;
}

/* Sizes in the tables' style: "64", "4K", "32M". */
static const char *size_word(uint64_t n, char *buf, size_t len)
{
	pb_format_bytes(buf, len, n, PB_BYTES_EXACT);
	return buf;
}

static int collect(struct ctx *c)
{
	const struct pb_results_file *f = c->f;
	const struct pb_key *first_key[PB_OP_COUNT] = {0}; /* per op */
	c->mc = calloc(f->ncases ? f->ncases : 1, sizeof *c->mc);
	if (!c->mc)
		return pb_fail("out of memory");
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_results_case *k = &f->cases[i];
		const struct pb_key *key = &k->fields;
		const char *suite = pb_field_str(key, "suite"), *op = pb_field_str(key, "op");
		const char *st = pb_field_str(key, "cache_state"),
		           *kern = pb_field_str(key, "kernel");
		long long size = 0, extent = 0, threads = 0;
		struct mcase m = {0};
		/* (a field of another type counts as absent: extent and threads 0) */
		pb_field_int(key, "extent_bytes", &extent);
		pb_field_int(key, "threads", &threads);
		if (!suite || strcmp(suite, "mem") || !op || !st || !kern ||
		    !pb_field_int(key, "size_bytes", &size) || size <= 0 || extent != 0 ||
		    pb_field_true(key, "then_read") || pb_field_get(key, "distribution") ||
		    k->n == 0)
			continue;
		/* one thread's cases only (N threads' aggregates are not a kernel's speed) */
		if (threads > 1)
			continue;
		if (pb_op_parse(op, &m.op) != 0 || pb_cache_state_parse(st, &m.st) != 0)
			continue;
		if (m.op != PB_OP_MEMSET && m.op != PB_OP_MEMCPY)
			continue;
		/* One placement per op: its first case's (a grid's others are
		 * left out, so kernels are compared where they ran alike). */
		static const char *const place[] = {"dst_offset_bytes", "src_offset_bytes",
		                                    "distance_bytes"};
		bool same = true;
		for (size_t p = 0; p < 3 && first_key[m.op]; p++)
			same &= pb_field_equal(pb_field_get(first_key[m.op], place[p]),
			                       pb_field_get(key, place[p]));
		if (!same)
			continue;
		if (!first_key[m.op])
			first_key[m.op] = key;
		m.kernel = kern;
		m.size = (uint64_t)size;
		/* the reader gives >= 1; past unsigned: unknown here */
		m.revision = k->kernel_revision <= UINT_MAX ? (unsigned)k->kernel_revision : 0;
		if (pb_results_case_summary(k, 0.95, &m.s) != 0)
			continue;
		m.k = k;
		c->mc[c->nmc++] = m;
	}
	return 0;
}

static bool has_ci(const struct pb_summary *s)
{
	return s->ci_valid && isfinite(s->ci_lo) && isfinite(s->ci_hi) && s->ci_lo > 0;
}

/* ---- libc against the fastest other kernel -------------------------------- */

/* The row whose code m's kernel ran at m's size, at the revision the case
 * recorded (kernel_revision): NULL when the kernel is unknown here or its
 * revision is newer than this build's. */
static const struct pb_kernel *code_measured(const struct mcase *m)
{
	const struct pb_kernel *k = pb_kernel_find(m->op, m->kernel);
	return k ? pb_kernel_code_at_revision(k, m->revision, (size_t)m->size) : NULL;
}

/* Whether m's kernel ran another kernel's code at m's size (its table
 * row's same_code_as below differs_from_bytes, at the case's revision:
 * avx512_nt below 64 B runs avx512; at revision 1, up to 1 MiB) and that
 * kernel was measured beside it: the two are one candidate there (as in
 * break-even), named by the base kernel, so noise between identical code
 * paths does not pick the name. */
static bool runs_measured_base(const struct ctx *c, const struct mcase *m)
{
	const struct pb_kernel *k = pb_kernel_find(m->op, m->kernel);
	const struct pb_kernel *code = code_measured(m);
	if (!code || code == k)
		return false;
	for (size_t i = 0; i < c->nmc; i++) {
		const struct mcase *o = &c->mc[i];
		if (o->op == m->op && o->st == m->st && o->size == m->size &&
		    !strcmp(o->kernel, code->name))
			return true;
	}
	return false;
}

/* The verdicts of libc at a size: where it stands against the fastest
 * other kernel (judge.h), V_* short for PB_STANDING_*. */
enum verdict {
	V_AHEAD = PB_STANDING_AHEAD,
	V_WITHIN = PB_STANDING_WITHIN,
	V_BEHIND = PB_STANDING_BEHIND,
	V_UNSURE = PB_STANDING_UNSURE,
	V_COUNT = PB_STANDING_COUNT
};

struct cmp {
	enum pb_op op;
	enum pb_cache_state st;
	uint64_t size;
	const struct mcase *libc, *best;
	enum verdict v;
	double ratio, ratio_least; /* libc / best, and its interval's low end (behind) */
	double ratio_lo, ratio_hi; /* libc / best's 95% interval (NAN: none) */
	double bound;              /* its high end: how much slower libc may be */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The verdict on libc at one size: where it stands against the fastest
 * other kernel by the one rule (pb_judge_vs_fastest, judge.h: replicate by
 * replicate against the fastest of others chosen on the other replicates,
 * else against `best`, the fastest by the medians). */
static void judge(struct cmp *x, const struct mcase *const *others, size_t k)
{
	const struct pb_results_case *ok[k ? k : 1];
	for (size_t i = 0; i < k; i++)
		ok[i] = others[i]->k;
	struct pb_standing_judgement j;
	pb_judge_vs_fastest(x->libc->k, x->libc->s.median, ok, k, x->best->k, x->best->s.median,
	                    &j);
	x->v = (enum verdict)j.standing;
	x->ratio = j.ratio;
	x->ratio_lo = j.lo;
	x->ratio_hi = j.hi;
	x->bound = j.hi;
	x->ratio_least = j.least;
}

/* Appends to buf a list of the sizes of xs[] with verdict v. */
static void size_list(char *buf, size_t len, const struct cmp *xs, size_t n, enum verdict v)
{
	size_t used = strlen(buf);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (xs[i].v != v)
			continue;
		char sz[24], item[160];
		size_word(xs[i].size, sz, sizeof sz);
		if (v == V_BEHIND) {
			char r1[16], r2[16];
			snprintf(item, sizeof item, "%s (%s x%s, >=x%s)", sz, xs[i].best->kernel,
			         fmt_ratio(xs[i].ratio, r1, sizeof r1),
			         fmt_ratio(xs[i].ratio_least, r2, sizeof r2));
		} else if (v == V_AHEAD)
			snprintf(item, sizeof item, "%s (x%.2f faster than %s)", sz,
			         1 / xs[i].ratio, xs[i].best->kernel);
		else if (v == V_UNSURE && isfinite(xs[i].bound))
			snprintf(item, sizeof item, "%s (interval up to x%.2f)", sz, xs[i].bound);
		else if (v == V_UNSURE)
			snprintf(item, sizeof item, "%s (no CI: under 6 samples)", sz);
		else
			snprintf(item, sizeof item, "%s", sz);
		snprintf(buf + used, len - used, "%s%s", first ? "" : ", ", item);
		used = strlen(buf);
		first = false;
	}
}

/* libc_section's working arrays, and what it carries from one (op, state)
 * to the next. */
struct libc_scan {
	struct ctx *c;
	size_t *counts; /* [V_COUNT], the caller's */
	struct cmp *xs;
	uint64_t *sizes;
	const struct mcase **others;
	struct cmp worst_v;
	const struct cmp *worst; /* a copy: xs is refilled per (op, state) */
};

/* The record of one size's comparison x into c's libc section. */
static void libc_point(struct ctx *c, const struct cmp *x)
{
	const struct mcase *libc = x->libc, *best = x->best;
	struct pb_summary_libc *o = &c->out->libc[c->out->n_libc++];
	*o = (struct pb_summary_libc){
	    .op = pb_op_name(x->op),
	    .cache_state = pb_cache_state_name(x->st),
	    .size_bytes = x->size,
	    .verdict = pb_standing_name((enum pb_standing)x->v),
	    .fastest_other = dup_or_oom(c, best->kernel),
	    .libc_ticks = {libc->s.median, libc->s.ci_lo, libc->s.ci_hi},
	    .fastest_ticks = {best->s.median, best->s.ci_lo, best->s.ci_hi},
	    .ratio = x->ratio,
	    .ratio_least = x->ratio_least,
	    .ratio_bound = x->bound,
	    .ratio_ci = {x->ratio_lo, x->ratio_hi},
	};
}

/* libc against the fastest other kernel at each size of (op, st) into s->xs: counts, records;
 * returns how many. */
static size_t libc_compare_state(struct libc_scan *s, enum pb_op op, enum pb_cache_state st)
{
	struct ctx *c = s->c;
	uint64_t *sizes = s->sizes;
	size_t ns = 0, nx = 0;
	for (size_t i = 0; i < c->nmc; i++)
		if (c->mc[i].op == op && c->mc[i].st == st)
			sizes[ns++] = c->mc[i].size;
	qsort(sizes, ns, sizeof *sizes, cmp_u64);
	for (size_t j = 0; j < ns; j++) {
		if (j && sizes[j] == sizes[j - 1])
			continue;
		const struct mcase *libc = NULL, *best = NULL;
		size_t k = 0;
		for (size_t i = 0; i < c->nmc; i++) {
			const struct mcase *m = &c->mc[i];
			if (m->op != op || m->st != st || m->size != sizes[j])
				continue;
			if (!strcmp(m->kernel, "libc")) {
				if (!libc)
					libc = m;
			} else if (runs_measured_base(c, m)) {
				continue;
			} else {
				s->others[k++] = m;
				if (!best || m->s.median < best->s.median)
					best = m;
			}
		}
		if (!libc || !best || !(libc->s.median > 0) || !(best->s.median > 0))
			continue;
		struct cmp *x = &s->xs[nx++];
		*x = (struct cmp){.op = op, .st = st, .size = sizes[j], .libc = libc, .best = best};
		judge(x, s->others, k);
		s->counts[x->v]++;
		c->behind[x->op][x->st] += x->v == V_BEHIND;
		if (x->v == V_BEHIND && (!s->worst || x->ratio_least > s->worst->ratio_least)) {
			s->worst_v = *x;
			s->worst = &s->worst_v;
		}
		libc_point(c, x);
	}
	return nx;
}

/* The paragraph of one (op, state): its sizes, by verdict. */
static void libc_state_line(struct ctx *c, enum pb_op op, enum pb_cache_state st,
                            const struct cmp *xs, size_t nx)
{
	char line[4096];
	snprintf(line, sizeof line, "%s %s:", pb_op_name(op), pb_cache_state_name(st));
	static const char *const heads[] = {"ahead at", "within the noise at", "behind at",
	                                    "cannot tell at"};
	static const enum verdict order[] = {V_WITHIN, V_BEHIND, V_AHEAD, V_UNSURE};
	bool first = true;
	for (size_t k = 0; k < 4; k++) {
		size_t cnt = 0;
		for (size_t i = 0; i < nx; i++)
			cnt += xs[i].v == order[k];
		if (!cnt)
			continue;
		size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, "%s %s ", first ? "" : ";",
		         heads[order[k]]);
		size_list(line, sizeof line, xs, nx, order[k]);
		first = false;
	}
	para(c, 2, "%s.", line);
}

/* The paragraph of the totals, moved before the (op, state) ones (or: nothing to say). */
static void libc_conclusion(struct ctx *c, const size_t counts[V_COUNT], const struct cmp *worst,
                            bool any, size_t headline_at)
{
	size_t total = 0;
	for (int v = 0; v < V_COUNT; v++)
		total += counts[v];
	if (!any) {
		para(c, 2, "no libc case beside another kernel's in this file: nothing to say.");
	} else {
		char w[256] = "";
		if (worst) {
			char sz[24];
			snprintf(w, sizeof w,
			         " Its largest deficit: %s %s %s, where %s is x%.2f "
			         "as fast (at least x%.2f by the interval).",
			         pb_op_name(worst->op), pb_cache_state_name(worst->st),
			         size_word(worst->size, sz, sizeof sz), worst->best->kernel,
			         worst->ratio, worst->ratio_least);
		}
		para(c, 2,
		     "In all: libc within the noise of the fastest kernel at %zu of %zu points, "
		     "ahead at %zu, behind at %zu, cannot tell at %zu.%s",
		     counts[V_WITHIN], total, counts[V_AHEAD], counts[V_BEHIND], counts[V_UNSURE],
		     w);
		/* the conclusion first, the sizes after it */
		struct pb_summary_report *o = c->out;
		if (o->n_text > headline_at) {
			char *last = o->text[--o->n_text];
			text_insert(c, headline_at, last);
		}
	}
}

/* The summary's libc section: libc against the fastest other kernel, per size, with its text. */
static void libc_section(struct ctx *c, size_t counts[V_COUNT])
{
	static const enum pb_op ops[] = {PB_OP_MEMSET, PB_OP_MEMCPY};
	struct libc_scan s = {.c = c, .counts = counts};
	s.xs = calloc(c->nmc ? c->nmc : 1, sizeof *s.xs);
	s.sizes = calloc(c->nmc ? c->nmc : 1, sizeof *s.sizes);
	s.others = calloc(c->nmc ? c->nmc : 1, sizeof *s.others);
	/* one comparison per (op, state, size) at most: nmc of them */
	c->out->libc = calloc(c->nmc ? c->nmc : 1, sizeof *c->out->libc);
	if (!s.xs || !s.sizes || !s.others || !c->out->libc) {
		free(s.xs);
		free(s.sizes);
		free(s.others);
		c->oom = true;
		return;
	}
	para(c, 0,
	     "libc against the fastest other kernel at each size, in ticks per call, "
	     "as the ratio libc / kernel with its 95%% interval (replicate by "
	     "replicate within this run, each replicate against the kernel fastest "
	     "in the other replicates; under three replicates: against the fastest "
	     "by the medians, with one replicate by the samples), judged as "
	     "compare and cmd judge, with a margin of +-%g%%. Within the noise: the "
	     "interval lies inside the margin. Behind at SIZE (KERNEL xR, >=xL): the "
	     "interval lies above 1 and R beyond the margin; L is its low end. Ahead: "
	     "the same below 1. Cannot tell: no interval, or one too wide for either "
	     "(interval up to xB: its high end).",
	     100 * pb_equivalence());
	size_t headline_at = c->out->n_text;
	bool any = false;
	for (size_t o = 0; o < 2; o++) {
		for (int st = 0; st < PB_STATE_COUNT; st++) {
			size_t nx = libc_compare_state(&s, ops[o], (enum pb_cache_state)st);
			if (!nx)
				continue;
			any = true;
			libc_state_line(c, ops[o], (enum pb_cache_state)st, s.xs, nx);
		}
	}
	libc_conclusion(c, counts, s.worst, any, headline_at);
	free(s.xs);
	free(s.sizes);
	free(s.others);
}

/* ---- glibc's thresholds against the measured switches --------------------- */

/* A threshold of the file's machine (struct pb_results_machine: -1 when
 * it has none) into *out: true, or false (unknown). */
static bool glibc_value(long long v, uint64_t *out)
{
	if (v < 0)
		return false;
	*out = (uint64_t)v;
	return true;
}

#define PATH_BIT(p) (1u << (p))

/* The best case of (op, st, size) among kernels whose glibc path is in
 * `paths` (PATH_BITs)
 * (a rep path only by a kernel whose row has no glibc note: rep_stosb or
 * rep_movsb, glibc's own). */
static const struct mcase *best_of_path(const struct ctx *c, enum pb_op op, enum pb_cache_state st,
                                        uint64_t size, unsigned paths)
{
	const struct mcase *best = NULL;
	for (size_t i = 0; i < c->nmc; i++) {
		const struct mcase *m = &c->mc[i];
		const struct pb_kernel *k;
		if (m->op != op || m->st != st || m->size != size ||
		    !(k = pb_kernel_find(op, m->kernel)))
			continue;
		enum pb_glibc_path path = pb_glibc_path_of(k);
		if (!(paths & PATH_BIT(path)))
			continue;
		if (path == PB_GLIBC_PATH_REP && k->glibc_note)
			continue;
		if (!best || m->s.median < best->s.median)
			best = m;
	}
	return best;
}

/* What threshold_one finds along the sizes of one (op, state). */
struct crossing {
	uint64_t lo_upto, next, hi_from, min, max;
	const struct mcase *lo_at, *hi_at, *lo_vs, *hi_vs;
	size_t both; /* sizes with a kernel of each path and an interval */
};

/* The best kernels of paths lo and hi compared at each size of (op, st) into x; -1 out of memory.
 */
static int threshold_scan(const struct ctx *c, enum pb_op op, enum pb_cache_state st, unsigned lo,
                          unsigned hi, struct crossing *x)
{
	uint64_t *sizes = calloc(c->nmc ? c->nmc : 1, sizeof *sizes);
	size_t ns = 0;
	if (!sizes)
		return -1;
	for (size_t i = 0; i < c->nmc; i++)
		if (c->mc[i].op == op && c->mc[i].st == st)
			sizes[ns++] = c->mc[i].size;
	qsort(sizes, ns, sizeof *sizes, cmp_u64);
	uint64_t lo_upto = 0, next = 0, hi_from = 0, min = 0, max = 0;
	const struct mcase *lo_at = NULL, *hi_at = NULL, *lo_vs = NULL, *hi_vs = NULL;
	size_t both = 0;
	for (size_t j = 0; j < ns; j++) {
		if (j && sizes[j] == sizes[j - 1])
			continue;
		const struct mcase *a = best_of_path(c, op, st, sizes[j], lo);
		const struct mcase *b = best_of_path(c, op, st, sizes[j], hi);
		if (!a || !b)
			continue;
		/* b / a by the one rule (pb_contender_ratio, pb_verdict with
		 * PB_EQUIVALENCE): above 1, a's path is faster */
		struct pb_shift r;
		bool differ = pb_judge_cases(a->k, b->k, &r) == PB_VERDICT_DIFFERENT;
		if (!r.ci_valid)
			continue;
		if (!both++)
			min = sizes[j];
		max = sizes[j];
		if (differ && r.estimate > 1) {
			lo_upto = sizes[j];
			lo_at = a;
			lo_vs = b;
			next = 0;
			hi_from = 0;
		} else if (!next && lo_upto) {
			next = sizes[j];
		}
		if (differ && r.estimate < 1 && !hi_from) {
			hi_from = sizes[j];
			hi_at = b;
			hi_vs = a;
		}
	}
	free(sizes);
	*x = (struct crossing){.lo_upto = lo_upto,
	                       .next = next,
	                       .hi_from = hi_from,
	                       .min = min,
	                       .max = max,
	                       .lo_at = lo_at,
	                       .hi_at = hi_at,
	                       .lo_vs = lo_vs,
	                       .hi_vs = hi_vs,
	                       .both = both};
	return 0;
}

/* The paragraph on threshold t (head) against the crossing x; returns its verdict's name. */
static const char *threshold_text(struct ctx *c, const char *head, uint64_t t, const char *wl,
                                  const char *wh, const struct crossing *x)
{
	uint64_t lo_upto = x->lo_upto, hi_from = x->hi_from, min = x->min, max = x->max;
	const struct mcase *lo_at = x->lo_at, *hi_at = x->hi_at, *lo_vs = x->lo_vs,
	                   *hi_vs = x->hi_vs;
	char s1[32], s2[32], s3[32], r1[64] = "", r2[64] = "";
	const char *verdict;
	if (x->both == 0) {
		verdict = "no_data";
		para(c, 2,
		     "%s: no size with a kernel of each path (%s; %s) and CIs: no comparison.",
		     head, wl, wh);
	} else {
		char x1[16], x2[16];
		if (lo_at)
			snprintf(r1, sizeof r1, "%s x%s faster than %s", lo_at->kernel,
			         fmt_ratio(lo_vs->s.median / lo_at->s.median, x1, sizeof x1),
			         lo_vs->kernel);
		if (hi_at)
			snprintf(r2, sizeof r2, "%s x%s faster than %s", hi_at->kernel,
			         fmt_ratio(hi_vs->s.median / hi_at->s.median, x2, sizeof x2),
			         hi_vs->kernel);
		size_word(min, s1, sizeof s1);
		size_word(max, s2, sizeof s2);
		if (t < lo_upto) {
			verdict = "too_low";
			para(c, 2,
			     "%s: below this run's crossing: glibc uses %s above it, but %s is "
			     "still "
			     "faster beyond +-%g%% at %s (%s).",
			     head, wh, wl, 100 * pb_equivalence(),
			     size_word(lo_upto, s3, sizeof s3), r1);
		} else if (hi_from && t >= hi_from) {
			verdict = "too_high";
			para(c, 2,
			     "%s: above this run's crossing: glibc keeps %s up to it, but %s is "
			     "already faster beyond +-%g%% at %s (%s).",
			     head, wl, wh, 100 * pb_equivalence(),
			     size_word(hi_from, s3, sizeof s3), r2);
		} else if (t >= max || t < min) {
			verdict = "outside_sizes";
			para(c, 2,
			     "%s: %s the sizes measured (%s to %s), none of which contradicts it; "
			     "the run cannot tell whether it sits near the crossing.",
			     head, t >= max ? "above" : "below", s1, s2);
		} else {
			if (!lo_upto && !hi_from) {
				verdict = "unresolved";
				para(
				    c, 2,
				    "%s: the run cannot place it: at no size is either path faster "
				    "beyond +-%g%%.",
				    head, 100 * pb_equivalence());
			} else {
				verdict = "consistent";
				char upto[96] = "", from[128] = "";
				if (lo_upto)
					snprintf(upto, sizeof upto,
					         "; the largest size where %s is faster beyond "
					         "+-%g%%: %s",
					         wl, 100 * pb_equivalence(),
					         size_word(lo_upto, s3, sizeof s3));
				if (hi_from)
					snprintf(from, sizeof from, "; %s from %s (%s)", wh,
					         size_word(hi_from, s3, sizeof s3), r2);
				else
					snprintf(from, sizeof from,
					         "; %s is not faster beyond +-%g%% at any size", wh,
					         100 * pb_equivalence());
				para(c, 2, "%s: not contradicted by this run%s%s.", head, upto,
				     from);
			}
		}
	}
	return verdict;
}

/* Where glibc switches from path `lo` to path `hi` at threshold t (sizes
 * above t take `hi`), against this run's (op, st): the largest size where
 * lo's best kernel is faster by the one rule (pb_verdict on their ratio,
 * PB_EQUIVALENCE), the next size measured after it, and the smallest size
 * where hi's is faster so. */
static void threshold_one(struct ctx *c, enum pb_op op, enum pb_cache_state st, const char *tname,
                          uint64_t t, unsigned lo, unsigned hi, const char *wl, const char *wh)
{
	struct crossing x;
	if (threshold_scan(c, op, st, lo, hi, &x) != 0) {
		c->oom = true;
		return;
	}
	char tb[32];
	pb_format_bytes(tb, sizeof tb, (double)t, PB_BYTES_PROSE);
	char head[128];
	snprintf(head, sizeof head, "%s %s, glibc's %s (%s)", pb_op_name(op),
	         pb_cache_state_name(st), tname, tb);
	const char *verdict = threshold_text(c, head, t, wl, wh, &x);
	struct pb_summary_glibc *g = &c->out->glibc;
	assert(g->n_thresholds < 3 * PB_STATE_COUNT); /* glibc_section's room */
	g->thresholds[g->n_thresholds++] = (struct pb_summary_threshold){
	    .op = pb_op_name(op),
	    .cache_state = pb_cache_state_name(st),
	    .threshold = tname,
	    .threshold_bytes = t,
	    .verdict = verdict,
	    .lower_path = hi == PATH_BIT(PB_GLIBC_PATH_NT) ? "vector_or_rep" : "vector",
	    .upper_path = hi == PATH_BIT(PB_GLIBC_PATH_NT) ? "non_temporal" : "rep",
	    .lower_faster_up_to_bytes = x.lo_upto,
	    .upper_faster_from_bytes = x.hi_from,
	};
}

/* pc's samples from the file's case k: per-call values as batches of one
 * call each, and its replicates. 0, or -1 out of memory. */
static int case_samples(struct pb_mem_case *pc, const struct pb_results_case *k)
{
	if (!k || !k->n)
		return 0;
	pc->batch_ticks = malloc(k->n * sizeof *pc->batch_ticks);
	pc->batch_calls = malloc(k->n * sizeof *pc->batch_calls);
	if (!pc->batch_ticks || !pc->batch_calls)
		return -1;
	memcpy(pc->batch_ticks, k->v, k->n * sizeof *pc->batch_ticks);
	for (size_t j = 0; j < k->n; j++)
		pc->batch_calls[j] = 1;
	pc->n_samples = k->n;
	if (k->n_rep >= 2 && k->rep_n) {
		pc->replicate_samples = malloc(k->n_rep * sizeof *pc->replicate_samples);
		if (!pc->replicate_samples)
			return -1;
		memcpy(pc->replicate_samples, k->rep_n, k->n_rep * sizeof *pc->replicate_samples);
		pc->n_replicates = k->n_rep;
	}
	return 0;
}

static void policy_one(struct ctx *c, enum pb_op op, enum pb_cache_state st,
                       const struct pb_glibc_thresholds *g)
{
	/* The cases of (op, st) as a mem result, as the run had them. */
	struct pb_mem_result r = {0};
	r.cases = calloc(c->nmc ? c->nmc : 1, sizeof *r.cases);
	if (!r.cases) {
		c->oom = true;
		return;
	}
	for (size_t i = 0; i < c->nmc; i++) {
		const struct mcase *m = &c->mc[i];
		const struct pb_kernel *k;
		if (m->op != op || m->st != st || !(k = pb_kernel_find(op, m->kernel)))
			continue;
		/* break-even reads the rows as they are now: a case that ran
		 * other code than the row runs now at its size says nothing of
		 * the kernel's code there */
		if (code_measured(m) != pb_kernel_code_at(k, (size_t)m->size)) {
			c->other_code++;
			continue;
		}
		struct pb_mem_case *pc = &r.cases[r.n_cases++];
		pc->op = op;
		pc->kernel = k;
		pc->size_bytes = m->size;
		pc->state = st;
		pc->ticks_per_call = m->s;
		pc->n_samples = m->s.n;
		/* the samples and their replicates, so that break-even judges
		 * kernels by the one rule on their intervals as --breakeven does
		 * (without them no band could be shown faster and every policy
		 * was one band) */
		if (case_samples(pc, m->k) != 0) {
			pb_mem_result_free(&r);
			c->oom = true;
			return;
		}
	}
	struct pb_breakeven b;
	int rc = r.n_cases ? pb_breakeven_compute(&r, op, st, g, &b) : 0;
	if (rc <= 0) {
		pb_mem_result_free(&r);
		return;
	}
	struct pb_summary_policy *o = &c->out->glibc.policies[c->out->glibc.n_policies++];
	memset(o, 0, sizeof *o);
	pb_policy_format(&b.policy, o->policy, sizeof o->policy);
	const char *policy = o->policy;
	o->op = pb_op_name(op);
	o->cache_state = pb_cache_state_name(st);
	o->switches = b.n_switches;
	if (b.have_glibc && g && g->known) {
		const struct pb_glibc_tunables *t = &b.glibc;
		bool same = op == PB_OP_MEMSET ? t->rep_stosb == g->rep_stosb
		                               : t->rep_movsb == g->rep_movsb &&
		                                     t->non_temporal == g->non_temporal;
		size_t behind = c->behind[op][st];
		o->has_env = true;
		snprintf(o->env, sizeof o->env, "%s", t->line);
		o->current_is_closest = same;
		o->mismatch_octaves = t->mismatch_octaves;
		o->libc_behind_sizes = behind;
		/* A new setting is worth naming only where libc lost beyond the
		 * CIs: elsewhere the run gives no reason to move glibc. */
		if (!same && !behind) {
			para(c, 2,
			     "%s %s: policy '%s'; libc is behind beyond +-%g%% at no size here: "
			     "no reason from this run to move glibc's thresholds.",
			     pb_op_name(op), pb_cache_state_name(st), policy,
			     100 * pb_equivalence());
			same = true; /* nothing more to print */
		} else if (same)
			para(c, 2,
			     "%s %s: policy '%s'; glibc's current thresholds are already the "
			     "closest glibc setting to it.",
			     pb_op_name(op), pb_cache_state_name(st), policy);
		else
			para(c, 2,
			     "%s %s: policy '%s' (libc behind at %zu size%s); the closest glibc "
			     "setting to it:",
			     pb_op_name(op), pb_cache_state_name(st), policy, behind,
			     behind == 1 ? "" : "s");
		if (!same)
			para(c, 4, "%s", t->line);
		/* the default run measures a line at the sizes it measured
		 * where the line changes glibc's path: none, nothing measured */
		size_t changed = 0;
		for (size_t i = 0; !same && i < r.n_cases; i++)
			changed += pb_glibc_path_at(g, op, NULL, r.cases[i].size_bytes) !=
			           pb_glibc_path_at(g, op, t, r.cases[i].size_bytes);
		if (!same && !changed)
			para(c, 4,
			     "(it changes glibc's path at none of the sizes this run measured, so "
			     "the run does not measure it: time libc without and with it at sizes "
			     "where it does, 'primbench mem %s --kernels libc --cache %s --sizes "
			     "... --vs-env' with the line)",
			     pb_op_name(op), pb_cache_state_name(st));
	} else {
		para(c, 2, "%s %s: policy '%s'.", pb_op_name(op), pb_cache_state_name(st), policy);
	}
	/* where another kernel would do as well: a second run may name it */
	o->n_bands = b.policy.n_bands;
	for (size_t i = 0; i < b.policy.n_bands; i++) {
		o->n_peers[i] = b.peers[i].n;
		for (size_t k = 0; k < b.peers[i].n; k++)
			o->peers[i][k] = b.peers[i].kernels[k]->name;
	}
	char text[1024];
	pb_breakeven_peers_text(&b, text, sizeof text);
	if (text[0])
		para(c, 4,
		     "cannot be told apart from the band's kernel (not slower by the one rule "
		     "over its sizes; another run may name one of these): %s",
		     text);
	pb_breakeven_free(&b);
	pb_mem_result_free(&r);
}

_Static_assert(PB_SUMMARY_MAX_PEERS == PB_BREAKEVEN_MAX_PEERS, "a band's peers fit the record");

static void glibc_section(struct ctx *c)
{
	struct pb_summary_glibc *o = &c->out->glibc;
	/* per (op, state): memset one threshold, memcpy two; one policy */
	o->thresholds = calloc(3 * PB_STATE_COUNT, sizeof *o->thresholds);
	o->policies = calloc(2 * PB_STATE_COUNT, sizeof *o->policies);
	if (!o->thresholds || !o->policies) {
		c->oom = true;
		return;
	}
	const struct pb_results_machine *mach = &c->f->mach;
	struct pb_glibc_thresholds g = {0};
	g.known = glibc_value(mach->glibc_rep_movsb, &g.rep_movsb) &&
	          glibc_value(mach->glibc_rep_stosb, &g.rep_stosb) &&
	          glibc_value(mach->glibc_non_temporal, &g.non_temporal);
	const char *ver = mach->glibc_version;
	static const enum pb_op ops[] = {PB_OP_MEMSET, PB_OP_MEMCPY};
	if (!c->nmc) {
		para(c, 0, "glibc's thresholds: no memset or memcpy cases to set them against.");
		return;
	}
	if (!g.known) {
		para(c, 0,
		     "glibc's thresholds are not in this file: nothing to set against "
		     "the run.");
	} else {
		para(c, 0,
		     "glibc %s's thresholds against this run (its kernels of each glibc path, "
		     "the best per size; faster: by the ratio's 95%% interval, beyond +-%g%%):",
		     ver ? ver : "(version unknown)", 100 * pb_equivalence());
		for (size_t o2 = 0; o2 < 2; o2++)
			for (int st = 0; st < PB_STATE_COUNT; st++) {
				bool have = false;
				for (size_t i = 0; i < c->nmc && !have; i++)
					have = c->mc[i].op == ops[o2] &&
					       c->mc[i].st == (enum pb_cache_state)st;
				if (!have)
					continue;
				threshold_one(c, ops[o2], (enum pb_cache_state)st,
				              ops[o2] == PB_OP_MEMSET ? "x86_rep_stosb_threshold"
				                                      : "x86_rep_movsb_threshold",
				              ops[o2] == PB_OP_MEMSET ? g.rep_stosb : g.rep_movsb,
				              PATH_BIT(PB_GLIBC_PATH_VECTOR),
				              PATH_BIT(PB_GLIBC_PATH_REP), "the vector loop",
				              "rep");
				if (ops[o2] != PB_OP_MEMCPY)
					continue;
				/* memcpy: from the non-temporal threshold on, glibc stops
				 * rep movsb too (Intel; AMD: at the L2 size) and uses its
				 * non-temporal loop; compared with the best cached path. */
				threshold_one(c, ops[o2], (enum pb_cache_state)st,
				              "x86_non_temporal_threshold", g.non_temporal,
				              PATH_BIT(PB_GLIBC_PATH_VECTOR) |
				                  PATH_BIT(PB_GLIBC_PATH_REP),
				              PATH_BIT(PB_GLIBC_PATH_NT),
				              "cached stores (vector or rep)", "non-temporal");
			}
	}
	para(c, 0,
	     "the policy --breakeven computes from this run (docs/breakeven.md) and the "
	     "GLIBC_TUNABLES line closest to it:");
	for (size_t o2 = 0; o2 < 2; o2++)
		for (int st = 0; st < PB_STATE_COUNT; st++)
			policy_one(c, ops[o2], (enum pb_cache_state)st, g.known ? &g : NULL);
	if (c->other_code) {
		para(c, 2,
		     "%zu case%s left out of these policies: %s kernel ran other code at %s size "
		     "than this build's row runs there (an older kernel_revision; 'primbench list' "
		     "says what each row runs now).",
		     c->other_code, c->other_code == 1 ? "" : "s",
		     c->other_code == 1 ? "its" : "their", c->other_code == 1 ? "its" : "their");
	}
	o->has_cases_other_code = true;
	o->cases_other_code = c->other_code;
}

/* ---- kernel crossings ----------------------------------------------------- */

/* ns per value of case k, or 0 when it cannot be converted (the file's
 * own timer figures, file_units.h). */
static double ns_scale(const struct ctx *c, const struct pb_results_case *k)
{
	return pb_file_ns_per_value(c->f, k->unit);
}

/* A time for prose, 4 significant figures: "176.7 ns", "5.195 us",
 * "3.953 ms". */
static const char *fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e6)
		snprintf(buf, len, "%.4g ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.4g us", ns / 1e3);
	else
		snprintf(buf, len, "%.4g ns", ns);
	return buf;
}

static void crossings_section(struct ctx *c, double *widest_pct)
{
	const struct pb_results_file *f = c->f;
	c->out->crossings = calloc(f->ncases ? f->ncases : 1, sizeof *c->out->crossings);
	if (!c->out->crossings) {
		c->oom = true;
		return;
	}
	char widest_name[128] = "";
	double fault_ns[3] = {NAN, NAN, NAN};
	bool any = false;
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_results_case *k = &f->cases[i];
		const char *suite = pb_field_str(&k->fields, "suite");
		if (!suite || strcmp(suite, "syscall"))
			continue;
		if (!any)
			para(c, 0,
			     "kernel crossings (median ns per op, 95%% CI, the CI's half-width in "
			     "%% of the median):");
		any = true;
		struct pb_summary s;
		double sc = ns_scale(c, k);
		char *group = NULL, *label = NULL;
		pb_key_name(&k->fields, &group, &label);
		struct pb_summary_crossing *o = &c->out->crossings[c->out->n_crossings++];
		*o = (struct pb_summary_crossing){.name = dup_or_oom(c, label ? label : "?")};
		if (sc == 0 || pb_results_case_summary(k, 0.95, &s) != 0) {
			para(c, 2, "%s: no figure (unit '%s' without a TSC frequency).", label,
			     k->unit);
			free(group);
			free(label);
			continue;
		}
		double hw = has_ci(&s) ? 50 * (s.ci_hi - s.ci_lo) / s.median : NAN;
		o->has_figure = true;
		o->ns_per_op = s.median * sc;
		o->ci_ns[0] = has_ci(&s) ? s.ci_lo * sc : NAN;
		o->ci_ns[1] = has_ci(&s) ? s.ci_hi * sc : NAN;
		o->ci_halfwidth_pct = hw;
		char t0[32], t1[32], t2[32];
		if (has_ci(&s))
			para(c, 2, "%s: %s (%s to %s, +-%.1f%%)", label,
			     fmt_ns(s.median * sc, t0, sizeof t0),
			     fmt_ns(s.ci_lo * sc, t1, sizeof t1),
			     fmt_ns(s.ci_hi * sc, t2, sizeof t2), hw);
		else
			para(c, 2, "%s: %s (no CI: under 6 samples)", label,
			     fmt_ns(s.median * sc, t0, sizeof t0));
		if (isfinite(hw) && hw > *widest_pct) {
			*widest_pct = hw;
			snprintf(widest_name, sizeof widest_name, "%s", label);
		}
		const char *bench = pb_field_str(&k->fields, "benchmark");
		long long pg = 0;
		if (bench && !strcmp(bench, "fault") &&
		    pb_field_int(&k->fields, "page_bytes", &pg) && pg == 4096 && has_ci(&s)) {
			fault_ns[0] = s.median * sc;
			fault_ns[1] = s.ci_lo * sc;
			fault_ns[2] = s.ci_hi * sc;
		}
		free(group);
		free(label);
	}
	if (!any) {
		para(c, 0, "kernel crossings: no syscall cases in this file.");
		return;
	}
	if (widest_name[0])
		para(c, 2,
		     "The widest of these CIs is +-%.1f%% (%s): a difference between two of "
		     "these figures smaller than their half-widths together is within this "
		     "run's noise, and another run on this machine may move each by more "
		     "than its CI (the CI covers this run's samples only).",
		     *widest_pct, widest_name);
	/* A page fault beside the fastest hot 4 KiB memset of the same run. */
	const struct mcase *best = NULL;
	for (size_t i = 0; i < c->nmc; i++) {
		const struct mcase *m = &c->mc[i];
		if (m->op == PB_OP_MEMSET && m->st == PB_STATE_HOT && m->size == 4096 &&
		    has_ci(&m->s) && (!best || m->s.median < best->s.median))
			best = m;
	}
	double msc = 0;
	for (size_t i = 0; i < f->ncases; i++) {
		const char *suite = pb_field_str(&f->cases[i].fields, "suite");
		if (suite && !strcmp(suite, "mem")) {
			msc = ns_scale(c, &f->cases[i]);
			break;
		}
	}
	if (best && isfinite(fault_ns[0]) && msc > 0) {
		double m = best->s.median * msc, lo = best->s.ci_lo * msc, hi = best->s.ci_hi * msc;
		char t0[32], t1[32];
		para(c, 2,
		     "A page fault on a 4 KiB page (%s) costs as much as %.1f hot 4 KiB "
		     "memsets by the fastest kernel (%s, %s; by the CIs %.1f to %.1f).",
		     fmt_ns(fault_ns[0], t0, sizeof t0), fault_ns[0] / m, best->kernel,
		     fmt_ns(m, t1, sizeof t1), fault_ns[1] / hi, fault_ns[2] / lo);
	}
}

/* ---- how far to trust the run --------------------------------------------- */

static void trust_section(struct ctx *c, const size_t counts[V_COUNT])
{
	const struct pb_results_file *f = c->f;
	size_t samples = 0, noisy = 0, no_ci = 0, cases = 0;
	long long migrations = 0, outliers = 0;
	double widest = 0;
	char widest_name[160] = "";
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_results_case *k = &f->cases[i];
		/* the case's counts (not integers: none) */
		long long mig = 0, out = 0;
		pb_facts_int(&k->facts, "migrations", &mig);
		pb_facts_int(&k->facts, "outliers", &out);
		migrations += mig;
		outliers += out;
		struct pb_summary s;
		if (pb_results_case_summary(k, 0.95, &s) != 0)
			continue;
		cases++;
		samples += k->n;
		if (s.median > 0 && (s.p90 - s.p10) / (2 * 1.2816 * s.median) > 0.2)
			noisy++;
		if (!has_ci(&s)) {
			no_ci++;
			continue;
		}
		double hw = s.median > 0 ? 50 * (s.ci_hi - s.ci_lo) / s.median : 0;
		if (hw > widest) {
			widest = hw;
			char *g = NULL, *l = NULL;
			pb_key_name(&k->fields, &g, &l);
			snprintf(widest_name, sizeof widest_name, "%s %s", g ? g : "", l ? l : "");
			free(g);
			free(l);
		}
	}

	/* the run's noise (NAN: not recorded) */
	double steal = f->noise_steal_pct, busy = f->noise_other_cpus_busy_pct;
	bool high = pb_summary_noise_high(f);
	const char *cause = f->noise_cause;
	size_t total = 0;
	for (int v = 0; v < V_COUNT; v++)
		total += counts[v];
	bool too_noisy = total && 2 * counts[V_UNSURE] >= total;
	struct pb_summary_trust *o = &c->out->trust;
	*o = (struct pb_summary_trust){
	    .cases = cases,
	    .samples = samples,
	    .widest_ci_halfwidth_pct = widest,
	    .noisy_cases = noisy,
	    .cases_without_ci = no_ci,
	    .migrations = migrations,
	    .outliers = outliers,
	    .high_noise = high,
	    .too_noisy_to_conclude = too_noisy,
	    .interrupted = f->interrupted,
	};
	snprintf(o->widest_ci_case, sizeof o->widest_ci_case, "%s", widest_name);

	para(c, 0, "how far to trust it:");
	para(c, 2,
	     "%zu samples in %zu cases; the widest 95%% CI of a median is +-%.1f%% (%s); %zu "
	     "case%s vary by over 20%% (robust CV); %zu without a CI; %lld sample%s dropped "
	     "for a CPU change; %lld outlier%s kept.",
	     samples, cases, widest, widest_name[0] ? widest_name : "none", noisy,
	     noisy == 1 ? "" : "s", no_ci, migrations, migrations == 1 ? "" : "s", outliers,
	     outliers == 1 ? "" : "s");
	char waited[96] = "";
	if (!isnan(f->noise_run_delay_pct))
		snprintf(waited, sizeof waited, ", which waited for its CPU %.1f%% of the run",
		         f->noise_run_delay_pct);
	char why[320] = "";
	if (high && cause)
		snprintf(why, sizeof why, " (%s)", cause);
	if (!isnan(steal) && !isnan(busy))
		para(c, 2,
		     "During the run: steal %.1f%% of CPU time, the other CPUs %.0f%% busy, %lld "
		     "involuntary context switches of the measuring thread%s%s",
		     steal, busy, f->noise_involuntary_switches, waited,
		     high ? ": HIGH, so absolute figures may not repeat in another run; the "
		            "ratios between kernels of this run are the figures to use."
		          : ".");
	if (isnan(steal) || isnan(busy))
		para(c, 2,
		     "The machine's noise during the run was not recorded (no /proc/stat "
		     "figures in this file).");
	else if (why[0])
		para(c, 4, "HIGH because%s.", why);
	if (f->interrupted)
		para(c, 2, "The run was interrupted: this summary covers only what it measured.");
	if (too_noisy)
		para(c, 2,
		     "Too noisy to conclude about libc: at %zu of %zu points the CIs are too "
		     "wide to tell it from the fastest kernel. Run again on a quieter machine, "
		     "or with a larger --budget.",
		     counts[V_UNSURE], total);
}

/* ---- the whole ------------------------------------------------------------ */

bool pb_summary_noise_high(const struct pb_results_file *f)
{
	/* the run's own judgement (pb_noise_judge) where it has one; an older
	 * file: steal and the other CPUs alone (NAN, not recorded: not high) */
	return f->noise_judged ? f->noise_high
	                       : f->noise_steal_pct > 2 || f->noise_other_cpus_busy_pct > 50;
}

bool pb_summary_is_default_run(const struct pb_results_file *f)
{
	if (f->ncommand_line == 0)
		return false;
	if (f->ncommand_line == 1)
		return true;
	const char *a = f->command_line[1];
	return !strcmp(a, "run") || a[0] == '-';
}

struct pb_summary_report *pb_summary_build(const struct pb_results_file *f)
{
	struct ctx c = {.f = f};
	if (collect(&c) != 0)
		return NULL;
	bool sc = false;
	for (size_t i = 0; i < f->ncases && !sc; i++) {
		const char *s = pb_field_str(&f->cases[i].fields, "suite");
		sc = s && !strcmp(s, "syscall");
	}
	if (!c.nmc && !sc) {
		free(c.mc);
		pb_fail("%s: no memset, memcpy or syscall cases to summarize", f->path);
		return NULL;
	}
	/* what the run measured of its lines cannot be rebuilt from the cases:
	 * a saved run's is kept, once checked (a malformed one fails the build) */
	struct pb_glibc_check *measured = NULL;
	size_t n_measured = 0;
	bool has_measured = false;
	if (pb_results_read_glibc_checks(f, &measured, &n_measured, &has_measured) != 0) {
		char msg[400];
		snprintf(msg, sizeof msg, "%s", pb_error());
		free(c.mc);
		pb_fail("%s: %s", f->path, msg);
		return NULL;
	}
	struct pb_summary_report *o = calloc(1, sizeof *o);
	if (!o) {
		free(measured);
		free(c.mc);
		pb_fail("out of memory");
		return NULL;
	}
	c.out = o;
	o->rules = (struct pb_summary_rules){
	    .margin = pb_equivalence(),
	    .behind = "the interval lies above 1 and the ratio beyond the margin (pb_verdict: "
	              "different)",
	    .ahead = "the interval lies below 1 and the ratio beyond the margin (pb_verdict: "
	             "different)",
	    .cannot_tell = "no interval, or one neither inside the margin nor clear of 1 with "
	                   "the ratio beyond it",
	    .consistent = "glibc's threshold lies where neither path is faster by the one rule, "
	                  "between the sizes where each is",
	    .too_noisy_to_conclude = "at least half of the libc comparisons cannot tell",
	};
	snprintf(o->rules.within_noise, sizeof o->rules.within_noise,
	         "the 95%% interval of libc / the fastest other kernel (ratio_ci: paired by "
	         "replicate, or the samples' Hodges-Lehmann with one) lies inside 1 +- %g "
	         "(pb_verdict: equivalent)",
	         pb_equivalence());

	size_t reps = 0; /* the most replicates of a case: v2 files */
	for (size_t i = 0; i < f->ncases; i++)
		reps = f->cases[i].n_rep > reps ? f->cases[i].n_rep : reps;
	if (reps >= 2)
		para(&c, 0,
		     "summary (medians and 95%% CIs of this run: across its %zu replicates where "
		     "a case has them, else of its samples):",
		     reps);
	else
		para(&c, 0, "summary (every figure from this run's samples: medians, 95%% CIs):");
	size_t counts[V_COUNT] = {0};
	libc_section(&c, counts);
	glibc_section(&c);
	o->glibc.has_measured = has_measured;
	o->glibc.measured = measured;
	o->glibc.n_measured = n_measured;
	double widest = 0;
	crossings_section(&c, &widest);
	trust_section(&c, counts);
	/* The conclusion first: a run that cannot support one says so at once. */
	if (o->trust.too_noisy_to_conclude) {
		char *line = NULL;
		if (asprintf(&line,
		             "  Too noisy to conclude about libc at most sizes: %zu of %zu "
		             "comparisons cannot tell (\"how far to trust it\", below).",
		             counts[V_UNSURE],
		             counts[V_AHEAD] + counts[V_WITHIN] + counts[V_BEHIND] +
		                 counts[V_UNSURE]) < 0)
			line = NULL;
		text_insert(&c, o->n_text < 1 ? o->n_text : 1, line);
	}
	free(c.mc);
	if (c.oom) {
		pb_summary_report_free(o);
		pb_fail("out of memory");
		return NULL;
	}
	return o;
}

struct pb_summary_report *pb_summary_build_doc(const struct pb_results_doc *doc)
{
	struct pb_results_file f;
	struct pb_summary_report *s = NULL;
	if (pb_results_doc_read(doc, "this run", &f) == 0)
		s = pb_summary_build(&f);
	pb_results_file_free(&f);
	return s;
}

/* A GLIBC_TUNABLES line longer than a line: cut after a ':' with a
 * backslash, the rest at column 0, so a shell joins it again. */
static void print_env_line(FILE *out, int indent, const char *s)
{
	int col = indent;
	fprintf(out, "%*s", indent, "");
	while (*s) {
		const char *colon = strchr(s, ':');
		size_t len = colon ? (size_t)(colon - s + 1) : strlen(s);
		if (col > 0 && col + (int)len + 1 > PB_TEXT_WIDTH) {
			fputs("\\\n", out);
			col = 0;
		}
		fprintf(out, "%.*s", (int)len, s);
		col += (int)len;
		s += len;
	}
	fputc('\n', out);
}

void pb_summary_print(FILE *out, const struct pb_summary_report *summary)
{
	fputc('\n', out);
	for (size_t i = 0; i < summary->n_text; i++) {
		const char *s = summary->text[i];
		int indent = (int)strspn(s, " ");
		if (!strncmp(s + indent, "GLIBC_TUNABLES=", 15))
			print_env_line(out, indent, s + indent);
		else
			pb_print_wrapped_at(out, indent, indent + 2, s + indent);
	}
	/* the default run's GLIBC_TUNABLES lines, measured (glibc_effect.h) */
	if (summary->glibc.n_measured)
		pb_print_wrapped_at(
		    out, 0, 2,
		    "\nthe GLIBC_TUNABLES lines above, measured: libc without and "
		    "with each at the sizes where it changes glibc's path, in fresh "
		    "processes A B B A ...:");
	for (size_t i = 0; i < summary->glibc.n_measured; i++) {
		const struct pb_glibc_check *p = &summary->glibc.measured[i];
		fputc('\n', out);
		print_env_line(out, 0, p->env);
		pb_glibc_effect_print_stored(out, p);
	}
}

int pb_summary_add_measured(struct pb_summary_report *s, const struct pb_glibc_check *check)
{
	struct pb_summary_glibc *g = &s->glibc;
	if (g->n_measured >= PB_GLIBC_CHECK_MAX)
		return pb_fail("more than %d measured GLIBC_TUNABLES lines", PB_GLIBC_CHECK_MAX);
	struct pb_glibc_check *m = realloc(g->measured, (g->n_measured + 1) * sizeof *m);
	if (!m)
		return pb_fail("out of memory");
	m[g->n_measured++] = *check;
	g->measured = m;
	g->has_measured = true;
	return 0;
}
