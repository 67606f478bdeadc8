/* table.c - text tables for email (at most 80 columns). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "primbench/error.h"
#include "primbench/judge.h"
#include "primbench/kernels.h"
#include "primbench/replicates.h"
#include "primbench/report.h"
#include "primbench/sizes.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"

#define NAME_WIDTH 13
#define CELL_WIDTH 9 /* value (7) + marker (1) + space */

void pb_format_sig3(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (!isfinite(v))
		snprintf(buf, len, "inf");
	else if (v >= 1e7) {
		int e = (int)floor(log10(v));
		double m = v / pow(10, e);
		if (m >= 9.995) { /* 9.999e7 would print as "10.00e7" */
			m /= 10;
			e++;
		}
		snprintf(buf, len, "%.2fe%d", m, e);
	} else if (v >= 100 || v == 0)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 10)
		snprintf(buf, len, "%.1f", v);
	else if (v >= 1)
		snprintf(buf, len, "%.2f", v);
	else if (v >= 0.001) {
		/* 0.523, 0.0523, 0.00523: never "0.00" for a figure > 0 (64 B
		 * on fresh huge pages is 0.003 GB/s) */
		int dec = v >= 0.1 ? 3 : v >= 0.01 ? 4 : 5;
		snprintf(buf, len, "%.*f", dec, v);
		if (strtod(buf, NULL) >= (dec == 3 ? 1 : dec == 4 ? 0.1 : 0.01))
			snprintf(buf, len, "%.*f", dec - 1, v); /* 0.9996 -> "1.000" */
	} else if (v > 0) {
		int e = (int)floor(log10(v));
		double m = v / pow(10, e);
		if (m >= 9.995) {
			m /= 10;
			e++;
		}
		snprintf(buf, len, "%.2fe%d", m, e);
	} else
		snprintf(buf, len, "%.3g", v);
}

void pb_format_time(char *buf, size_t len, double v, double div, double resolution_ns)
{
	int dec = (int)lround(log10(div / resolution_ns));
	dec = dec < 0 ? 0 : dec > 3 ? 3 : dec;
	if (v < 99999.9995)
		snprintf(buf, len, "%.*f", dec, v);
	else
		snprintf(buf, len, "%.4g", v);
}

bool pb_format_first_run(char *buf, size_t len, const double *x, size_t n)
{
	double ratio, lo, hi;
	bool out = pb_first_outlier(x, n, &ratio);
	if (len)
		buf[0] = '\0';
	if (n < 2 || isnan(ratio))
		return false;
	char later[64];
	if (n == 2)
		snprintf(later, sizeof later, "run 2");
	else
		snprintf(later, sizeof later, "the median of runs 2-%zu", n);
	if (!pb_first_outlier_fences(x, n, &lo, &hi)) {
		snprintf(buf, len,
		         "run 1 took %.2fx %s (too few runs to call it an outlier: the rule needs "
		         "3 later runs)",
		         ratio, later);
		return true;
	}
	/* a lower fence at or below 0 bounds nothing: a time is positive */
	char range[48];
	if (lo > 0)
		snprintf(range, sizeof range, "%s %.2fx-%.2fx", out ? "outside" : "inside", lo, hi);
	else
		snprintf(range, sizeof range, "%s %.2fx", out ? "above" : "below", hi);
	snprintf(buf, len,
	         "run 1 took %.2fx %s: %s, %s that median (the later runs' far-out "
	         "fences, Q1 - 3 IQR and Q3 + 3 IQR, at least +-10%%)%s",
	         ratio, later, out ? "an outlier" : "not an outlier", range,
	         !out        ? ""
	         : ratio > 1 ? ". A cold cache or a first load? It is counted; --warmup 1 would "
	                       "exclude it."
	                     : ". It is counted; --warmup 1 would exclude it.");
	return true;
}

bool pb_format_cputime_note(char *buf, size_t len, double cpu_ns,
                            const struct pb_cputime_accounting *acc)
{
	if (len)
		buf[0] = '\0';
	if (acc->tick_split == 0 || !isfinite(cpu_ns) || cpu_ns < 0)
		return false;
	double tick_ns = acc->hz > 0 ? 1e9 / acc->hz : 10e6;
	double ticks = cpu_ns / tick_ns;
	if (ticks >= 10)
		return false;
	char tick[96];
	if (acc->hz > 0)
		snprintf(tick, sizeof tick, "%.3g ms at CONFIG_HZ=%d", tick_ns / 1e6, acc->hz);
	else
		snprintf(tick, sizeof tick,
		         "1-10 ms: CONFIG_HZ is not readable here, 10 ms assumed");
	snprintf(buf, len,
	         "user and sys: a run used %.3g ms of CPU time (the median of user+sys), %s "
	         "one scheduler tick (%s). The kernel splits CPU time between user and sys by "
	         "the ticks that fell in each (kernel/sched/cputime.c), so each run's split is "
	         "off by up to a tick%s: at this length user and sys say little apart; "
	         "user+sys (--metric user+sys) and real are what is measured.",
	         cpu_ns / 1e6, ticks < 1 ? "under" : "a few times", tick,
	         ticks < 1 ? ": a run no tick fell in shows all of its time as user and 0 as "
	                     "sys, one whose ticks all fell in the kernel all as sys and 0 as "
	                     "user"
	                   : "");
	return true;
}

/* The one-thread cases: the N-thread ones have their own table
 * (pb_print_mem_threads). */
static bool matches(const struct pb_mem_case *c, enum pb_op op, enum pb_cache_state st)
{
	return c->op == op && c->state == st && c->n_samples > 0 && c->threads <= 1;
}

/* Distinct sizes and kernels of (op, st), in first-seen order. */
struct grid {
	uint64_t *sizes;
	size_t nsizes;
	const struct pb_kernel **kernels;
	size_t nkernels;
};

static int grid_build(struct grid *g, const struct pb_mem_result *r, enum pb_op op,
                      enum pb_cache_state st)
{
	g->sizes = calloc(r->n_cases + 1, sizeof *g->sizes);
	g->kernels = calloc(r->n_cases + 1, sizeof *g->kernels);
	g->nsizes = g->nkernels = 0;
	if (!g->sizes || !g->kernels)
		return -1;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!matches(c, op, st))
			continue;
		size_t j;
		for (j = 0; j < g->nsizes && g->sizes[j] != c->size_bytes; j++)
			;
		if (j == g->nsizes)
			g->sizes[g->nsizes++] = c->size_bytes;
		for (j = 0; j < g->nkernels && g->kernels[j] != c->kernel; j++)
			;
		if (j == g->nkernels)
			g->kernels[g->nkernels++] = c->kernel;
	}
	return 0;
}

static void grid_free(struct grid *g)
{
	free(g->sizes);
	free(g->kernels);
}

static const struct pb_mem_case *find(const struct pb_mem_result *r, enum pb_op op,
                                      enum pb_cache_state st, const struct pb_kernel *k, uint64_t n)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (matches(c, op, st) && c->kernel == k && c->size_bytes == n)
			return c;
	}
	return NULL;
}

static const struct pb_mem_case *fastest(const struct pb_mem_result *r, enum pb_op op,
                                         enum pb_cache_state st, uint64_t n)
{
	const struct pb_mem_case *best = NULL;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (matches(c, op, st) && c->size_bytes == n &&
		    (!best || c->ticks_per_call.median < best->ticks_per_call.median))
			best = c;
	}
	return best;
}

char pb_mem_mark(const struct pb_mem_case *c, const struct pb_mem_case *best)
{
	if (c == best)
		return '*';
	struct pb_shift r;
	enum pb_verdict v = pb_judge_mem_cases(best, c, &r);
	if (isnan(r.estimate))
		return ' '; /* no ratio at all */
	return v == PB_VERDICT_DIFFERENT && r.estimate > 1 ? ' ' : '=';
}

/* A cell `width` columns wide: v right-aligned in width - 2, its mark and
 * a space; the row's last cell without trailing blanks. */
static void put_cell(FILE *f, int width, const char *v, char mark, bool last)
{
	fprintf(f, "%*s", width - 2, v);
	if (mark != ' ' || !last)
		fputc(mark, f);
	if (!last)
		fputc(' ', f);
}

/* The page size of r's first op/st case (4096 when none). */
static unsigned state_page_bytes(const struct pb_mem_result *r, enum pb_op op,
                                 enum pb_cache_state st)
{
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].op == op && r->cases[i].state == st)
			return r->cases[i].page_bytes;
	return 4096;
}

/* The name a table is titled by: clear_page or copy_page for those runs
 * (pb_mem_result.page_op), else the op's. */
static const char *op_title(const struct pb_mem_result *r, enum pb_op op)
{
	return r->page_op ? r->page_op : pb_op_name(op);
}

static const char *state_desc(enum pb_cache_state st, unsigned page_bytes)
{
	if (st == PB_STATE_FAULT && page_bytes == 2u << 20)
		return "fault (fresh, untouched 2 MiB pages every call)";
	if (st == PB_STATE_FAULT && page_bytes == 1u << 30)
		return "fault (fresh, untouched 1 GiB pages every call)";
	switch (st) {
	case PB_STATE_HOT:
		return "hot (the same 2 buffers every call)";
	case PB_STATE_L2:
		return "l2 (random slots of a working set of half the L2)";
	case PB_STATE_LLC:
		return "llc (random slots of a working set of half the LLC)";
	case PB_STATE_DRAM:
		return "dram (random slots, evicted from the caches between batches)";
	case PB_STATE_FAULT:
		return "fault (fresh, untouched 4 KiB pages every call)";
	case PB_STATE_FAULT_THP:
		return "fault-thp (fresh transparent huge pages every call)";
	case PB_STATE_REPEAT:
		return "repeat (the same buffer every call, never refilled)";
	default:
		return "?";
	}
}

static bool same_placement(const struct pb_mem_placement *a, const struct pb_mem_placement *b)
{
	return a->dst_offset_bytes == b->dst_offset_bytes &&
	       a->src_offset_bytes == b->src_offset_bytes && a->has_distance == b->has_distance &&
	       a->distance_bytes == b->distance_bytes;
}

static void placement_label(const struct pb_mem_case *c, char *buf, size_t len)
{
	const struct pb_mem_placement *pl = &c->placement;
	if (pl->has_distance)
		snprintf(buf, len, "%llu %+lld", (unsigned long long)pl->dst_offset_bytes,
		         (long long)pl->distance_bytes);
	else if (c->op != PB_OP_MEMSET)
		snprintf(buf, len, "%llu/%llu", (unsigned long long)pl->dst_offset_bytes,
		         (unsigned long long)pl->src_offset_bytes);
	else
		snprintf(buf, len, "%llu", (unsigned long long)pl->dst_offset_bytes);
}

/* The kernel-name column: NAME_WIDTH, or wider for a longer name
 * ("rep_movsb_fwd_movsq_bwd"): names are never cut. */
static int kernel_column(const struct grid *g)
{
	int w = NAME_WIDTH;
	for (size_t k = 0; k < g->nkernels; k++)
		if ((int)strlen(g->kernels[k]->name) + 1 > w)
			w = (int)strlen(g->kernels[k]->name) + 1;
	return w;
}

/* What pb_print_mem_grid's steps share: the cases of (op, st, n), their
 * placements (rows) and kernels (columns), and the columns' widths. */
struct grid_print {
	FILE *f;
	const struct pb_mem_result *r;
	enum pb_op op;
	enum pb_cache_state st;
	uint64_t n;
	enum pb_unit unit;
	const struct grid *g;
	const struct pb_mem_case **rows; /* a case per placement, in first-seen order */
	size_t nrows;
	int cw, lw; /* a kernel's column, the label column */
};

/* The placements of (op, st, n) in first-seen order, a case each (NULL: out of memory). */
static const struct pb_mem_case **grid_rows(const struct pb_mem_result *r, enum pb_op op,
                                            enum pb_cache_state st, uint64_t n, size_t *nrows_out)
{
	/* Rows: the placements of (op, st, n) in first-seen order. */
	const struct pb_mem_case **rows = calloc(r->n_cases + 1, sizeof *rows);
	size_t nrows = 0;
	for (size_t i = 0; rows && i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!matches(c, op, st) || c->size_bytes != n)
			continue;
		size_t j;
		for (j = 0; j < nrows && !same_placement(&rows[j]->placement, &c->placement); j++)
			;
		if (j == nrows)
			rows[nrows++] = c;
	}
	*nrows_out = nrows;
	return rows;
}

/* The grid's head: op, size and state, the unit and the rows' axis, the marks. */
static void grid_head(const struct grid_print *p)
{
	FILE *f = p->f;
	const struct pb_mem_result *r = p->r;
	enum pb_op op = p->op;
	enum pb_cache_state st = p->st;
	enum pb_unit unit = p->unit;
	char sz[24];
	pb_format_bytes(sz, sizeof sz, p->n, PB_BYTES_EXACT);
	const struct pb_mem_case *c0 = p->rows[0];
	const char *axis = c0->placement.has_distance ? "dst offset, src - dst distance"
	                   : op != PB_OP_MEMSET       ? "dst/src offset"
	                                              : "dst offset";
	fprintf(f, "\n%s %s bytes, %s\n", op_title(r, op), sz,
	        state_desc(st, state_page_bytes(r, op, st)));
	fprintf(f, "median %s, %s is better; rows: %s (bytes)\n", pb_unit_name(unit),
	        unit == PB_UNIT_BYTES_PER_TICK || unit == PB_UNIT_GB_S ? "higher" : "lower", axis);
	fprintf(f, "* fastest in its row; = not shown slower than it beyond +-%g%%\n",
	        100 * pb_equivalence());
}

/* The columns' widths: a kernel's (its name, at least a value and marker), the labels'. */
static void grid_widths(struct grid_print *p)
{
	const struct grid *g = p->g;
	/* Columns as wide as the longest kernel name (kernel names are the
	 * headers here), at least a value and its marker. */
	int cw = CELL_WIDTH;
	for (size_t k = 0; k < g->nkernels; k++)
		if ((int)strlen(g->kernels[k]->name) + 1 > cw)
			cw = (int)strlen(g->kernels[k]->name) + 1;
	/* The label column holds the longest label: a distance of 2^47
	 * bytes is never cut (it used to be, to 9 characters). */
	int lw = NAME_WIDTH;
	for (size_t i = 0; i < p->nrows; i++) {
		char lab[48];
		placement_label(p->rows[i], lab, sizeof lab);
		if ((int)strlen(lab) + 1 > lw)
			lw = (int)strlen(lab) + 1;
	}
	p->cw = cw;
	p->lw = lw;
}

/* Row i of the grid: its placement and the median of kernels first..last-1, marked. */
static void grid_row(const struct grid_print *p, size_t i, size_t first, size_t last)
{
	FILE *f = p->f;
	const struct pb_mem_result *r = p->r;
	enum pb_op op = p->op;
	enum pb_cache_state st = p->st;
	uint64_t n = p->n;
	const struct pb_mem_case **rows = p->rows;
	char lab[48];
	placement_label(rows[i], lab, sizeof lab);
	fprintf(f, "%-*s", p->lw, lab);
	const struct pb_mem_case *best = NULL;
	for (size_t j = 0; j < r->n_cases; j++) {
		const struct pb_mem_case *c = &r->cases[j];
		if (matches(c, op, st) && c->size_bytes == n &&
		    same_placement(&c->placement, &rows[i]->placement) &&
		    (!best || c->ticks_per_call.median < best->ticks_per_call.median))
			best = c;
	}
	for (size_t k = first; k < last; k++) {
		const struct pb_mem_case *c = NULL;
		for (size_t j = 0; j < r->n_cases && !c; j++) {
			const struct pb_mem_case *x = &r->cases[j];
			if (matches(x, op, st) && x->size_bytes == n &&
			    x->kernel == p->g->kernels[k] &&
			    same_placement(&x->placement, &rows[i]->placement))
				c = x;
		}
		char v[24] = "-";
		char mark = ' ';
		if (c) {
			pb_format_sig3(v, sizeof v,
			               pb_unit_value(p->unit, c->ticks_per_call.median, n));
			mark = pb_mem_mark(c, best);
		}
		put_cell(f, p->cw, v, mark, k + 1 == last);
	}
	fputc('\n', f);
}

/* The grid as tables of as many kernels as fit the width, a row per placement. */
static void grid_tables(const struct grid_print *p)
{
	FILE *f = p->f;
	const struct grid *g = p->g;
	int cw = p->cw, lw = p->lw;
	size_t per_table = (size_t)((PB_TEXT_WIDTH - lw) / cw);
	for (size_t first = 0; first < g->nkernels; first += per_table) {
		size_t last = first + per_table < g->nkernels ? first + per_table : g->nkernels;
		fprintf(f, "%-*s", lw, "placement");
		for (size_t k = first; k < last; k++)
			fprintf(f, "%*s%s", cw - 1, g->kernels[k]->name, k + 1 < last ? " " : "");
		fputc('\n', f);
		for (size_t i = 0; i < p->nrows; i++)
			grid_row(p, i, first, last);
		if (last < g->nkernels)
			fputc('\n', f);
	}
}

/* Per kernel: its worst row against the row's fastest, and its rows at under half speed. */
static void grid_behind(const struct grid_print *p)
{
	FILE *f = p->f;
	const struct pb_mem_result *r = p->r;
	enum pb_op op = p->op;
	enum pb_cache_state st = p->st;
	uint64_t n = p->n;
	const struct grid *g = p->g;
	const struct pb_mem_case **rows = p->rows;
	size_t nrows = p->nrows;
	/* Per kernel: how far it falls behind each row's fastest, the worst
	 * row, and how many rows it runs at under half the fastest's speed
	 * (case M1's question). */
	int kw = kernel_column(g) - 1;
	fprintf(f, "%-*s %9s  %-20s %s\n", kw, "vs row's best", "worst", "at placement",
	        "rows at < 1/2 speed");
	for (size_t k = 0; k < g->nkernels; k++) {
		double worst = 0;
		size_t worst_row = 0, slow = 0, seen = 0;
		for (size_t i = 0; i < nrows; i++) {
			const struct pb_mem_case *c = NULL, *best = NULL;
			for (size_t j = 0; j < r->n_cases; j++) {
				const struct pb_mem_case *x = &r->cases[j];
				if (!matches(x, op, st) || x->size_bytes != n ||
				    !same_placement(&x->placement, &rows[i]->placement))
					continue;
				if (x->kernel == g->kernels[k])
					c = x;
				if (!best || x->ticks_per_call.median < best->ticks_per_call.median)
					best = x;
			}
			if (!c || !best || best->ticks_per_call.median <= 0)
				continue;
			seen++;
			double ratio = c->ticks_per_call.median / best->ticks_per_call.median;
			if (ratio > 2)
				slow++;
			if (ratio > worst) {
				worst = ratio;
				worst_row = i;
			}
		}
		if (!seen)
			continue;
		char lab[48], w[24];
		placement_label(rows[worst_row], lab, sizeof lab);
		snprintf(w, sizeof w, "%.2fx", worst);
		fprintf(f, "%-*s %9s  %-20s %zu of %zu\n", kw, g->kernels[k]->name, w, lab, slow,
		        seen);
	}
}

void pb_print_mem_grid(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                       enum pb_cache_state st, uint64_t n, enum pb_unit unit)
{
	struct grid g;
	if (grid_build(&g, r, op, st) != 0 || g.nkernels == 0) {
		grid_free(&g);
		return;
	}
	struct grid_print p = {.f = f, .r = r, .op = op, .st = st, .n = n, .unit = unit, .g = &g};
	p.rows = grid_rows(r, op, st, n, &p.nrows);
	if (p.nrows == 0) {
		free(p.rows);
		grid_free(&g);
		return;
	}
	grid_head(&p);
	grid_widths(&p);
	grid_tables(&p);
	grid_behind(&p);
	free(p.rows);
	grid_free(&g);
}

/* Under a table: each kernel that ran another row's code at some of its
 * sizes (same_code_as below differs_from_bytes: an NT row below a line,
 * 64 B, has no whole line to stream), with those sizes, so a figure is
 * never read as the named kernel's own code. */
static void print_other_code(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                             enum pb_cache_state st, const struct grid *g)
{
	for (size_t i = 0; i < g->nkernels; i++) {
		const struct pb_kernel *k = g->kernels[i], *base = NULL;
		char sizes[160] = "";
		size_t pos = 0, n = 0;
		for (size_t j = 0; j < g->nsizes; j++) {
			const struct pb_kernel *code = pb_kernel_code_at(k, (size_t)g->sizes[j]);
			if (code == k || !find(r, op, st, k, g->sizes[j]))
				continue;
			if (base && code != base)
				continue; /* one base per note: rows have one */
			base = code;
			char sz[24];
			pb_format_bytes(sz, sizeof sz, g->sizes[j], PB_BYTES_EXACT);
			if (pos < sizeof sizes) {
				int w = snprintf(sizes + pos, sizeof sizes - pos, "%s%s",
				                 n ? ", " : "", sz);
				pos += w > 0 ? (size_t)w : 0;
			}
			n++;
		}
		if (n)
			fprintf(f,
			        "%s at %s: runs %s's code there (not its own; 'primbench list')\n",
			        k->name, sizes, base->name);
	}
}

void pb_print_mem_table(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, enum pb_unit unit)
{
	struct grid g;
	if (grid_build(&g, r, op, st) != 0 || g.nsizes == 0) {
		grid_free(&g);
		return;
	}
	bool higher_better = unit == PB_UNIT_BYTES_PER_TICK || unit == PB_UNIT_GB_S;
	bool ticks = unit == PB_UNIT_TICKS_PER_CALL || unit == PB_UNIT_TICKS_PER_PAGE;
	fprintf(f, "\n%s, %s\n", op_title(r, op), state_desc(st, state_page_bytes(r, op, st)));
	fprintf(f, "median %s%s, %s is better\n", pb_unit_name(unit),
	        !ticks                                   ? ""
	        : pb_timer_info()->clock != PB_CLOCK_TSC ? " (ticks are ns: clock_gettime fallback)"
	        : !strcmp(pb_timer_info()->tick_unit, "tsc_ticks") ? " (TSC ticks)"
	                                                           : " (counter ticks)",
	        higher_better ? "higher" : "lower");
	fprintf(f, "* fastest; = not shown slower than it beyond +-%g%% (ratio's 95%% CI)\n",
	        100 * pb_equivalence());
	int nw = kernel_column(&g);
	size_t per_table = (size_t)(PB_TEXT_WIDTH - nw) / CELL_WIDTH;
	bool per_byte = unit == PB_UNIT_BYTES_PER_TICK || unit == PB_UNIT_GB_S ||
	                unit == PB_UNIT_TICKS_PER_PAGE;
	bool zero_cells = false;
	for (size_t first = 0; first < g.nsizes; first += per_table) {
		size_t last = first + per_table < g.nsizes ? first + per_table : g.nsizes;
		fprintf(f, "%-*s", nw, "kernel");
		for (size_t j = first; j < last; j++) {
			char sz[24];
			pb_format_bytes(sz, sizeof sz, g.sizes[j], PB_BYTES_EXACT);
			fprintf(f, "%*s%s", CELL_WIDTH - 1, sz, j + 1 < last ? " " : "");
		}
		fputc('\n', f);
		for (size_t i = 0; i < g.nkernels; i++) {
			fprintf(f, "%-*s", nw, g.kernels[i]->name);
			for (size_t j = first; j < last; j++) {
				const struct pb_mem_case *c =
				    find(r, op, st, g.kernels[i], g.sizes[j]);
				if (!c) {
					fprintf(f, "%*s%s", CELL_WIDTH - 1, "-",
					        j + 1 < last ? " " : "");
					continue;
				}
				const struct pb_mem_case *b = fastest(r, op, st, g.sizes[j]);
				char mark = ' ';
				double val =
				    pb_unit_value(unit, c->ticks_per_call.median, c->size_bytes);
				/* At size 0 byte-based units are 0 or undefined for
				 * every kernel: "-", said under the table. */
				if (c->size_bytes == 0 && per_byte) {
					val = NAN;
					zero_cells = true;
				}
				bool rankable = isfinite(val) && val != 0;
				if (rankable)
					mark = pb_mem_mark(c, b);
				char v[24];
				pb_format_sig3(v, sizeof v, val);
				put_cell(f, CELL_WIDTH, v, mark, j + 1 == last);
			}
			fputc('\n', f);
		}
		if (last < g.nsizes)
			fputc('\n', f);
	}
	if (zero_cells)
		fprintf(f,
		        "size 0 moves no bytes: no %s (--unit ticks/call or ns/call times "
		        "it)\n",
		        pb_unit_name(unit));
	print_other_code(f, r, op, st, &g);
	grid_free(&g);
}

/* A shallow copy of r's then-read cases with the read-back summaries in
 * place of the write summaries, so the table printers show them. The
 * caller frees view->cases. Returns false when there is nothing to show. */
static bool readback_view(const struct pb_mem_result *r, struct pb_mem_result *view)
{
	memset(view, 0, sizeof *view);
	view->cases = calloc(r->n_cases + 1, sizeof *view->cases);
	if (!view->cases)
		return false;
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].then_read) {
			view->cases[view->n_cases] = r->cases[i];
			view->cases[view->n_cases].ticks_per_call = r->cases[i].read_ticks_per_call;
			view->n_cases++;
		}
	return view->n_cases > 0;
}

static const char readback_title[] =
    "\nthen-read: the time to read back, after each batch, what it wrote\n";

/* Below a read-back table: the loop, its own speed on a hot buffer per
 * size, and the cases whose read-back was within noise of it (bounded by
 * the loop: they cannot show where the bytes sit). */
static void print_read_loop(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                            enum pb_cache_state st, uint64_t only_size)
{
	char line[1024];
	int len = snprintf(line, sizeof line, "read-back loop: %s; its own speed on a hot buffer:",
	                   r->read_loop ? r->read_loop : "unknown");
	size_t bound = 0, total = 0;
	uint64_t last = UINT64_MAX;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!c->then_read || c->op != op || c->state != st || c->n_samples == 0 ||
		    c->read_loop_ticks_per_call.n == 0 ||
		    (only_size != UINT64_MAX && c->size_bytes != only_size))
			continue;
		total++;
		bound += c->read_loop_bound;
		if (c->size_bytes == last || len >= (int)sizeof line)
			continue;
		last = c->size_bytes;
		char sz[24], v[24];
		pb_format_bytes(sz, sizeof sz, c->size_bytes, PB_BYTES_EXACT);
		pb_format_sig3(v, sizeof v, c->read_loop_ticks_per_call.median);
		len += snprintf(line + len, sizeof line - (size_t)len, " %s %s,", sz, v);
	}
	if (total == 0)
		return;
	if (len > 0 && len < (int)sizeof line && line[len - 1] == ',')
		line[--len] = '\0';
	if (len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len, " ticks/read");
	pb_print_wrapped_at(f, 0, 2, line);
	if (bound == 0) {
		fprintf(f,
		        "bounded by the loop: none (every read-back is slower than the loop's\n"
		        "hot speed beyond +-%g%%)\n",
		        100 * pb_equivalence());
		return;
	}
	len = snprintf(line, sizeof line,
	               "bounded by the loop (within noise of its hot speed, so these show the "
	               "loop, not where the bytes sit): %zu of %zu:",
	               bound, total);
	for (size_t i = 0; i < r->n_cases && len < (int)sizeof line; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!c->then_read || c->op != op || c->state != st || !c->read_loop_bound ||
		    (only_size != UINT64_MAX && c->size_bytes != only_size))
			continue;
		char sz[24];
		pb_format_bytes(sz, sizeof sz, c->size_bytes, PB_BYTES_EXACT);
		if (only_size != UINT64_MAX && c->placement.has_distance)
			len += snprintf(line + len, sizeof line - (size_t)len, " %s (%llu %+lld),",
			                c->kernel->name,
			                (unsigned long long)c->placement.dst_offset_bytes,
			                (long long)c->placement.distance_bytes);
		else
			len += snprintf(line + len, sizeof line - (size_t)len, " %s %s,",
			                c->kernel->name, sz);
	}
	if (len > 0 && len < (int)sizeof line && line[len - 1] == ',')
		line[--len] = '\0';
	pb_print_wrapped_at(f, 0, 2, line);
}

void pb_print_mem_readback(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                           enum pb_cache_state st, enum pb_unit unit)
{
	struct pb_mem_result view;
	if (readback_view(r, &view)) {
		fputs(readback_title, f);
		pb_print_mem_table(f, &view, op, st, unit);
		print_read_loop(f, r, op, st, UINT64_MAX);
	}
	free(view.cases);
}

void pb_print_mem_readback_grid(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                                enum pb_cache_state st, uint64_t size_bytes, enum pb_unit unit)
{
	struct pb_mem_result view;
	if (readback_view(r, &view)) {
		fputs(readback_title, f);
		pb_print_mem_grid(f, &view, op, st, size_bytes, unit);
		print_read_loop(f, r, op, st, size_bytes);
	}
	free(view.cases);
}

void pb_print_mem_fastest(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                          enum pb_cache_state st)
{
	struct grid g;
	if (grid_build(&g, r, op, st) != 0 || g.nsizes == 0) {
		grid_free(&g);
		return;
	}
	fprintf(f, "\nfastest %s, %s (medians; ticks are %s)\n", op_title(r, op),
	        pb_cache_state_name(st),
	        !strcmp(pb_timer_info()->tick_unit, "cntvct_ticks") ? "counter ticks"
	                                                            : "TSC ticks");
	fprintf(f, "%8s  %-13s %11s %11s %11s %10s\n", "size", "kernel", "ticks/call", "ticks/page",
	        "bytes/tick", "GB/s");
	for (size_t j = 0; j < g.nsizes; j++) {
		const struct pb_mem_case *b = fastest(r, op, st, g.sizes[j]);
		char sz[24], v[4][24];
		pb_format_bytes(sz, sizeof sz, g.sizes[j], PB_BYTES_EXACT);
		double t = b->ticks_per_call.median;
		pb_format_sig3(v[0], sizeof v[0], t);
		/* size 0: no bytes, no per-byte figure ("-") */
		double none = b->size_bytes ? 0 : NAN;
		pb_format_sig3(v[1], sizeof v[1], pb_ticks_per_page(t, b->size_bytes) + none);
		pb_format_sig3(v[2], sizeof v[2], pb_bytes_per_tick(t, b->size_bytes) + none);
		pb_format_sig3(v[3], sizeof v[3], pb_gb_per_s(t, b->size_bytes) + none);
		fprintf(f, "%8s  %-13s %11s %11s %11s %10s\n", sz, b->kernel->name, v[0], v[1],
		        v[2], v[3]);
	}
	grid_free(&g);
}

void pb_print_mem_quality(FILE *f, const struct pb_mem_result *r)
{
	double worst = 0;
	const struct pb_mem_case *worst_c = NULL;
	unsigned migrations = 0;
	size_t outliers = 0, samples = 0, no_ci = 0, noisy = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		const struct pb_summary *s = &c->ticks_per_call;
		migrations += c->migrations;
		outliers += c->outliers;
		samples += c->n_samples;
		if (!c->n_samples)
			continue;
		/* Robust coefficient of variation: (p90 - p10) / (2 x 1.2816 x
		 * median), the normal distribution's 10-90% spread in sds. */
		if (s->median > 0 && (s->p90 - s->p10) / (2 * 1.2816 * s->median) > 0.2)
			noisy++;
		if (!s->ci_valid) {
			no_ci++;
			continue;
		}
		double hw = s->median > 0 ? 50.0 * (s->ci_hi - s->ci_lo) / s->median : 0;
		if (hw > worst) {
			worst = hw;
			worst_c = c;
		}
	}
	char line[512];
	int len = snprintf(line, sizeof line, "spread: %zu sample%s in %zu case%s", samples,
	                   pb_plural(samples), r->n_cases, r->n_cases == 1 ? "" : "s");
	if (worst_c) {
		char sz[24];
		if (worst_c->replay)
			snprintf(sz, sizeof sz, "%.16s", worst_c->replay->dist->name);
		else
			pb_format_bytes(sz, sizeof sz, worst_c->size_bytes, PB_BYTES_EXACT);
		snprintf(line + len, sizeof line - (size_t)len,
		         "; widest 95%% CI of a median: +-%.1f%% (%s/%s %s %s)", worst,
		         op_title(r, worst_c->op), worst_c->kernel->name, sz,
		         pb_cache_state_name(worst_c->state));
	}
	fputc('\n', f);
	pb_print_wrapped_at(f, 0, 8, line);
	/* "LEAD: N ONE|MANY REST", each when its count is not 0 */
	const struct {
		const char *lead;
		size_t n;
		const char *one, *many, *rest;
	} counts[] = {
	    {"note", no_ci, "case had", "cases had", "fewer than 6 samples: no 95% CI"},
	    {"warning: noisy", noisy, "case varies", "cases vary",
	     "by over 20% (robust CV of the samples)"},
	    {"note", migrations, "sample saw", "samples saw", "the thread change CPU (dropped)"},
	    {"note", outliers, "sample had", "samples had",
	     "a modified z-score over 3.5 (outliers, kept)"},
	};
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
		if (counts[i].n)
			fprintf(f, "%s: %zu %s %s\n", counts[i].lead, counts[i].n,
			        counts[i].n == 1 ? counts[i].one : counts[i].many, counts[i].rest);
	for (const char *l = r->notes; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);
		snprintf(line, sizeof line, "note: %.*s", n, l);
		pb_print_wrapped_at(f, 0, 6, line);
		l += n + (e != NULL);
	}
	if (r->interrupted)
		fprintf(f, "note: interrupted: the tables show what was measured before it\n");
}

void pb_print_mem_counters(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                           enum pb_cache_state st)
{
	bool any = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (c->op != op || c->state != st || !c->counted_calls)
			continue;
		if (!any)
			fprintf(f,
			        "\nhardware counters, %s %s (per call, user space):\n"
			        "%-13s %8s %12s %12s %12s\n",
			        op_title(r, op), pb_cache_state_name(st), "kernel", "size",
			        "cycles", "instructions", "cache misses");
		any = true;
		char sz[24];
		pb_format_bytes(sz, sizeof sz, c->size_bytes, PB_BYTES_EXACT);
		double calls = (double)c->counted_calls;
		fprintf(f, "%-13.13s %8s %12.1f %12.1f %12.2f%s\n", c->kernel->name, sz,
		        (double)c->cycles / calls, (double)c->instructions / calls,
		        (double)c->cache_misses / calls, c->counters_multiplexed ? " (mux)" : "");
	}
}

/* The thread counts of (op, st, size n) in r, ascending; returns how many. */
static size_t thread_counts(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                            uint64_t n, unsigned *out, size_t cap)
{
	size_t m = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		unsigned t = c->threads ? c->threads : 1;
		if (c->op != op || c->state != st || c->size_bytes != n)
			continue;
		size_t j = 0;
		while (j < m && out[j] < t)
			j++;
		if ((j < m && out[j] == t) || m == cap)
			continue;
		memmove(out + j + 1, out + j, (m - j) * sizeof *out);
		out[j] = t;
		m++;
	}
	return m;
}

static const struct pb_mem_case *find_threads(const struct pb_mem_result *r, enum pb_op op,
                                              enum pb_cache_state st, const struct pb_kernel *k,
                                              uint64_t n, unsigned t)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (c->op == op && c->state == st && c->kernel == k && c->size_bytes == n &&
		    (c->threads ? c->threads : 1) == t && c->n_samples > 0)
			return c;
	}
	return NULL;
}

/* The median over threads of each thread's own GB/s (per-thread figure). */
static double per_thread_gb_s(const struct pb_mem_case *c)
{
	if (!c->thread_ticks_per_call || c->threads < 2)
		return pb_gb_per_s(c->ticks_per_call.median, c->size_bytes);
	double *v = malloc(c->threads * sizeof *v);
	if (!v)
		return NAN;
	for (unsigned t = 0; t < c->threads; t++)
		v[t] = pb_gb_per_s(c->thread_ticks_per_call[t].median, c->size_bytes);
	double m = gsl_stats_median(v, 1, c->threads);
	free(v);
	return m;
}

#define MAX_THREAD_COLUMNS 16

void pb_print_mem_threads(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                          enum pb_cache_state st, uint64_t size_bytes)
{
	unsigned t[MAX_THREAD_COLUMNS];
	size_t nt = thread_counts(r, op, st, size_bytes, t, MAX_THREAD_COLUMNS);
	if (nt < 2)
		return;
	struct grid g;
	if (grid_build(&g, r, op, st) != 0) {
		grid_free(&g);
		return;
	}
	char sz[24];
	pb_format_bytes(sz, sizeof sz, size_bytes, PB_BYTES_EXACT);
	fprintf(f, "\n%s, %s, %s per call, by threads\n", op_title(r, op), pb_cache_state_name(st),
	        sz);
	fprintf(f, "aggregate GB/s (10^9 B/s: every thread's bytes over the span from the\n"
	           "first start to the last end), higher is better; per thread: the median\n"
	           "thread's own GB/s; eff: aggregate / (N x the 1-thread figure)\n");
	int nw = kernel_column(&g);
	static const char ci_title[] = "aggregate's 95% CI, +-% of it (across the replicates "
	                               "with two or more, else the samples')";
	const char *titles[4] = {"aggregate GB/s", "per-thread GB/s", "efficiency", ci_title};
	/* as many count columns as fit 80 columns; more go in another row of
	 * the block, as the size tables do */
	size_t per_row = (size_t)(PB_TEXT_WIDTH - nw) / CELL_WIDTH;
	if (per_row < 1)
		per_row = 1;
	for (int block = 0; block < 4; block++) {
		size_t from = block == 0 || block == 3 ? 0 : 1;
		if (block)
			fputc('\n', f);
		pb_print_wrapped_at(f, 0, 0, titles[block]);
		for (size_t first = from; first < nt; first += per_row) {
			size_t last = first + per_row < nt ? first + per_row : nt;
			if (first > from)
				fputc('\n', f);
			fprintf(f, "%-*s", nw, "kernel");
			for (size_t j = first; j < last; j++) {
				char h[24];
				snprintf(h, sizeof h, "%u thr", t[j]);
				fprintf(f, "%*s", CELL_WIDTH, h);
			}
			fputc('\n', f);
			for (size_t i = 0; i < g.nkernels; i++) {
				const struct pb_mem_case *one =
				    find_threads(r, op, st, g.kernels[i], size_bytes, 1);
				fprintf(f, "%-*s", nw, g.kernels[i]->name);
				for (size_t j = first; j < last; j++) {
					const struct pb_mem_case *c =
					    find_threads(r, op, st, g.kernels[i], size_bytes, t[j]);
					double v = NAN;
					if (c && block == 0)
						v = pb_gb_per_s(c->ticks_per_call.median,
						                size_bytes);
					else if (c && block == 1)
						v = per_thread_gb_s(c);
					else if (c && block == 3 && c->ticks_per_call.ci_valid)
						v = 50 *
						    (c->ticks_per_call.ci_hi -
						     c->ticks_per_call.ci_lo) /
						    c->ticks_per_call.median;
					else if (c && one && block == 2)
						v = pb_mem_efficiency(r, c);
					char s[24];
					if (isfinite(v) && block == 3)
						snprintf(s, sizeof s, "%.1f%%", v);
					else if (isfinite(v))
						pb_format_sig3(s, sizeof s, v);
					else
						snprintf(s, sizeof s, "-");
					fprintf(f, "%*s", CELL_WIDTH, s);
				}
				fputc('\n', f);
			}
		}
	}
	grid_free(&g);
}
