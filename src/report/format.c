/* format.c - a loaded result file as text, JSON, CSV, Markdown or Go's
 * benchmark data format, and through ci_formats.c in the formats CI
 * trackers read (include/primbench/format.h, docs/formats.md). */
#define _GNU_SOURCE
#include "primbench/format.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ci_formats.h"
#include "primbench/curve_text.h"
#include "primbench/error.h"
#include "primbench/report.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"

static const char *const names[] = {
    [PB_FORMAT_TEXT] = "text",         [PB_FORMAT_JSON] = "json",         [PB_FORMAT_CSV] = "csv",
    [PB_FORMAT_MARKDOWN] = "markdown", [PB_FORMAT_BENCHFMT] = "benchfmt", [PB_FORMAT_BMF] = "bmf",
    [PB_FORMAT_GBENCH] = "gbench",     [PB_FORMAT_ACTION] = "action",
};

int pb_format_parse(const char *name, enum pb_format *out)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum pb_format)i;
			return 0;
		}
	if (!strcmp(name, "md")) {
		*out = PB_FORMAT_MARKDOWN;
		return 0;
	}
	return pb_fail("unknown format '%s' (text, json, csv, markdown, benchfmt, bmf, gbench, "
	               "action)",
	               name);
}

const char *pb_format_name(enum pb_format fmt)
{
	return (size_t)fmt < sizeof names / sizeof names[0] ? names[fmt] : "?";
}

/* ---- reading the document ------------------------------------------------ */

/* A number of the case's object `obj` ("per_call", "median_derived"), or
 * NAN (missing, null, not a number). */
static double obj_num(const struct pb_facts *facts, const char *obj, const char *name)
{
	char path[160];
	snprintf(path, sizeof path, "%s.%s", obj, name);
	return pb_facts_num(facts, path);
}

static const char *str(const struct pb_key *key, const char *name)
{
	const char *s = pb_field_str(key, name);
	return s ? s : "";
}

/* Four significant digits, no exponent for ordinary magnitudes. */
static void fmt_num(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1e4 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* A scalar key value as text: strings as they are, numbers and booleans as
 * JSON, null as "", arrays and objects as compact JSON. Malloc'd. */
static char *value_text(const struct pb_field *v)
{
	if (!v || v->kind == PB_FIELD_NULL)
		return strdup("");
	if (v->kind == PB_FIELD_STRING)
		return strdup(v->s);
	if (v->kind == PB_FIELD_INT) {
		char *s;
		return asprintf(&s, "%lld", v->i) < 0 ? NULL : s;
	}
	if (v->kind == PB_FIELD_REAL) {
		char buf[32];
		pb_csv_double(buf, sizeof buf, v->r);
		return strdup(buf);
	}
	if (v->kind == PB_FIELD_BOOL)
		return strdup(v->b ? "true" : "false");
	return pb_field_raw_text(v);
}

/* ---- groups (text and markdown) -------------------------------------------- */

struct row {
	const struct pb_key *key;
	char *group, *label;
	const char *unit, *per;       /* "call", "run", ... */
	const struct pb_facts *facts; /* the case's: per_call, median_derived */
};

/* A number of a row's per_call, of its median_derived; NAN when missing. */
static double pc_num(const struct row *w, const char *name)
{
	return obj_num(w->facts, "per_call", name);
}

static double dv_num(const struct row *w, const char *name)
{
	return obj_num(w->facts, "median_derived", name);
}

/* A case's group (pb_key_name's) titled by the page op of its
 * file (pb_key_page_op_of: "clear_page hot", not "memset hot"), in
 * place. Whether it was renamed. */
static bool page_op_group(const char *page_op, const struct pb_key *key, char **group)
{
	const char *po = pb_key_page_op_of(page_op, key);
	const char *op = pb_field_str(key, "op");
	if (!po || !op || !strcmp(po, op) || strncmp(*group, op, strlen(op)) != 0)
		return false;
	char *g = pb_xasprintf("%s%s", po, *group + strlen(op));
	free(*group);
	*group = g;
	return true;
}

/* What a kernel case's figure is per (docs/results-schema.md, "A `kernel`
 * case"): a page of page_bytes (clear_page, copy_page), else a call (fpu:
 * one begin/end pair or one ioctl; user_copy: one copy of size_bytes). */
static const char *kernel_per(const struct pb_key *key)
{
	const char *op = str(key, "op");
	return op && (!strcmp(op, "fpu") || !strcmp(op, "user_copy")) ? "call" : "page";
}

static struct row *rows_of(const struct pb_results_file *r)
{
	struct row *rows = calloc(r->ncases + 1, sizeof *rows);
	if (!rows)
		return NULL;
	const char *page_op = r->page_op;
	for (size_t i = 0; i < r->ncases; i++) {
		const struct pb_results_case *c = &r->cases[i];
		pb_key_name(&c->fields, &rows[i].group, &rows[i].label);
		rows[i].key = &c->fields;
		rows[i].unit = c->unit;
		const char *suite = str(&c->fields, "suite");
		rows[i].per = !strcmp(suite, "cmd")       ? "run"
		              : !strcmp(suite, "syscall") ? "op"
		              : !strcmp(suite, "xsave")   ? "save+restore"
		              : !strcmp(suite, "kernel")  ? kernel_per(&c->fields)
		                                          : "call";
		/* clear_page/copy_page runs: "clear_page hot" per page, not
		 * "memset hot" per call */
		if (page_op_group(page_op, &c->fields, &rows[i].group))
			rows[i].per = "page";
		rows[i].facts = &c->facts;
	}
	return rows;
}

static void rows_free(struct row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].group);
		free(rows[i].label);
	}
	free(rows);
}

static bool same_group(const struct row *a, const struct row *b)
{
	return !strcmp(a->group, b->group) && !strcmp(a->unit, b->unit);
}

/* The cells of one row: n, median, CI, ns/call, GB/s. */
struct cells {
	char n[16], median[24], ci[52], ns[24], gbs[24];
};

/* The median and CI of a row are divided by div (1, or 1e3, 1e6, 1e9 for
 * cmd times shown in us, ms, s). */
static void cells_of(const struct row *w, double div, struct cells *c)
{
	double n = pc_num(w, "n");
	if (isfinite(n))
		snprintf(c->n, sizeof c->n, "%.0f", n);
	else
		snprintf(c->n, sizeof c->n, "-");
	fmt_num(pc_num(w, "median") / div, c->median, sizeof c->median);
	double lo = pc_num(w, "ci_lo"), hi = pc_num(w, "ci_hi");
	if (isfinite(lo) && isfinite(hi)) {
		char a[24], b[24];
		fmt_num(lo / div, a, sizeof a);
		fmt_num(hi / div, b, sizeof b);
		snprintf(c->ci, sizeof c->ci, "%s..%s", a, b);
	} else {
		snprintf(c->ci, sizeof c->ci, "-");
	}
	fmt_num(dv_num(w, "ns_per_call"), c->ns, sizeof c->ns);
	fmt_num(dv_num(w, "gb_per_s"), c->gbs, sizeof c->gbs);
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* How the tables are written: aligned text (split when wider than 80
 * columns), Markdown, or HTML (pb_format_html_tables). */
enum style { STYLE_TEXT, STYLE_MARKDOWN, STYLE_HTML };

static bool is_cmd_run(const struct row *w)
{
	return !strcmp(w->per, "run") && !strcmp(w->unit, "ns");
}

/* One HTML cell: <TAG ATTRS>text</TAG>, the text escaped. */
static void html_cell(FILE *f, const char *tag, const char *attrs, const char *text)
{
	fprintf(f, "<%s%s>", tag, attrs);
	pb_html_text(f, text);
	fprintf(f, "</%s>", tag);
}

/* One group rows[a..b) as an HTML table (pb_format_html_tables) with the
 * cells cs of its rows, titled `title`, id `id`. */
static void html_group(FILE *f, const struct row *rows, size_t a, size_t b, const struct cells *cs,
                       bool derived, const char *title, const char *id)
{
	fputs("<table class=\"pb-table\" id=\"", f);
	pb_html_text(f, id);
	fputs("\">\n", f);
	html_cell(f, "caption", "", title);
	fputs("\n<thead>\n<tr>", f);
	html_cell(f, "th", " scope=\"col\"", "case");
	static const char *const heads[] = {"n", "median", "95% CI", "ns/call", "GB/s"};
	for (size_t h = 0; h < (derived ? 5u : 3u); h++)
		html_cell(f, "th", " scope=\"col\" class=\"num\"", heads[h]);
	fputs("</tr>\n</thead>\n<tbody>\n", f);
	for (size_t i = a; i < b; i++) {
		const struct cells *c = &cs[i - a];
		fputs("<tr>", f);
		html_cell(f, "th", " scope=\"row\"", rows[i].label);
		const char *const v[] = {c->n, c->median, c->ci, c->ns, c->gbs};
		for (size_t h = 0; h < (derived ? 5u : 3u); h++)
			html_cell(f, "td", " class=\"num\"", v[h]);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* One group rows[a..b) as an aligned text table (split when wider than 80
 * columns), a Markdown table or an HTML one (with the id `id`). 0, or -1
 * with pb_error() when out of memory. */
static int group_table(FILE *f, const struct row *rows, size_t a, size_t b, enum style style,
                       double cmd_ns, const char *id)
{
	bool derived = false;
	for (size_t i = a; i < b; i++)
		derived |= isfinite(dv_num(&rows[i], "gb_per_s"));
	struct cells *cs = calloc(b - a, sizeof *cs);
	if (!cs)
		return pb_fail("out of memory");
	/* cmd runs (ns) in the unit `primbench cmd` prints them in (cmd_ns:
	 * the longest median of the file's runs, one unit for A and B). */
	const char *unit = rows[a].unit;
	double div = 1;
	if (is_cmd_run(&rows[a])) {
		div = cmd_ns >= 1e9 ? 1e9 : cmd_ns >= 1e6 ? 1e6 : 1e3;
		unit = cmd_ns >= 1e9 ? "s" : cmd_ns >= 1e6 ? "ms" : "us";
	}
	size_t wl = 4, wn = 1, wm = 6, wc = 6, wns = 7, wg = 4;
	for (size_t i = a; i < b; i++) {
		cells_of(&rows[i], div, &cs[i - a]);
		wl = max_sz(wl, strlen(rows[i].label));
		wn = max_sz(wn, strlen(cs[i - a].n));
		wm = max_sz(wm, strlen(cs[i - a].median));
		wc = max_sz(wc, strlen(cs[i - a].ci));
		wns = max_sz(wns, strlen(cs[i - a].ns));
		wg = max_sz(wg, strlen(cs[i - a].gbs));
	}
	if (style == STYLE_HTML) {
		char *title = NULL;
		if (asprintf(&title, "%s (%s per %s)", rows[a].group, unit, rows[a].per) < 0) {
			free(cs);
			return pb_fail("out of memory");
		}
		html_group(f, rows, a, b, cs, derived, title, id);
		free(title);
		free(cs);
		return 0;
	}
	if (style == STYLE_MARKDOWN) {
		fprintf(f, "### %s (%s per %s)\n\n", rows[a].group, unit, rows[a].per);
		fprintf(f, "| case | n | median | 95%% CI |%s\n",
		        derived ? " ns/call | GB/s |" : "");
		fprintf(f, "|---|---:|---:|---:|%s\n", derived ? "---:|---:|" : "");
		for (size_t i = a; i < b; i++) {
			const struct cells *c = &cs[i - a];
			fputs("| ", f);
			for (const char *q = rows[i].label; *q; q++)
				fputs(*q == '|' ? "\\|" : (char[2]){*q, 0}, f);
			fprintf(f, " | %s | %s | %s |", c->n, c->median, c->ci);
			if (derived)
				fprintf(f, " %s | %s |", c->ns, c->gbs);
			fprintf(f, "\n");
		}
		fprintf(f, "\n");
		free(cs);
		return 0;
	}
	fprintf(f, "%s (%s per %s)\n", rows[a].group, unit, rows[a].per);
	size_t base = wl + 2 + wn + 2 + wm + 2 + wc;
	bool split = derived && base + 2 + wns + 2 + wg > PB_TEXT_WIDTH;
	for (int part = 0; part < (split ? 2 : 1); part++) {
		if (part == 1)
			fprintf(f, "\n%s, derived from the median\n", rows[a].group);
		if (part == 0)
			fprintf(f, "%-*s  %*s  %*s  %*s", (int)wl, "case", (int)wn, "n", (int)wm,
			        "median", (int)wc, "95% CI");
		else
			fprintf(f, "%-*s", (int)wl, "case");
		if (derived && (split ? part == 1 : true))
			fprintf(f, "  %*s  %*s", (int)wns, "ns/call", (int)wg, "GB/s");
		fprintf(f, "\n");
		for (size_t i = a; i < b; i++) {
			const struct cells *c = &cs[i - a];
			if (part == 0)
				fprintf(f, "%-*s  %*s  %*s  %*s", (int)wl, rows[i].label, (int)wn,
				        c->n, (int)wm, c->median, (int)wc, c->ci);
			else
				fprintf(f, "%-*s", (int)wl, rows[i].label);
			if (derived && (split ? part == 1 : true))
				fprintf(f, "  %*s  %*s", (int)wns, c->ns, (int)wg, c->gbs);
			fprintf(f, "\n");
		}
	}
	fprintf(f, "\n");
	free(cs);
	return 0;
}

/* ---- latency and map groups (text) ------------------------------------------ */

static double key_num(const struct pb_key *key, const char *name)
{
	return pb_field_num(key, name);
}

/* A key's count or size field as a whole number; 0 when it is missing or
 * not a number in range (a malformed file: the cast of NaN is undefined). */
static uint64_t key_whole(const struct pb_key *key, const char *name)
{
	double v = key_num(key, name);
	return v >= 0 && v < 0x1p64 ? (uint64_t)v : 0;
}

static int cmp_row_size(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double x = key_num(a->key, "load_threads"), y = key_num(b->key, "load_threads");
	if (isfinite(x) && isfinite(y) && x != y)
		return (x > y) - (x < y);
	x = key_num(a->key, "size_bytes");
	y = key_num(b->key, "size_bytes");
	return (x > y) - (x < y);
}

/* (max - min) / median of a case's per-call figures: the latency
 * command's spread (its rounds all have the same loads). */
static double range_spread(const struct row *pc)
{
	double med = pc_num(pc, "median");
	return med > 0 ? (pc_num(pc, "max") - pc_num(pc, "min")) / med : NAN;
}

/* The half-width of a case's interval, a fraction of its median, when
 * its per_call stands for replicates (a latency run in replicates). */
static bool replicates_ci(const struct row *pc, double *ci)
{
	double med = pc_num(pc, "median"), lo = pc_num(pc, "ci_lo"), hi = pc_num(pc, "ci_hi");
	if (!(pc_num(pc, "replicates") > 1) || !(med > 0) || !isfinite(lo) || !isfinite(hi))
		return false;
	*ci = (hi - lo) / 2 / med;
	return true;
}

/* What a latency group's figures are: "median of 5 rounds", or with
 * replicates their geometric mean and interval. */
static void latency_method(char *out, size_t len, const struct row *pc)
{
	double rounds = pc_num(pc, "n"), reps = pc_num(pc, "replicates");
	if (reps > 1)
		snprintf(out, len,
		         "the geometric mean of %.0f replicates' medians of %.0f rounds each; 95%% "
		         "CI: +- the half-width of its Student t interval on the replicates' logs, "
		         "in %% of it; spread: (max - min) of all %.0f rounds over that figure",
		         reps, rounds / reps, rounds);
	else
		snprintf(out, len,
		         "median of %.0f rounds; spread: (max - min) / median of the rounds",
		         rounds);
}

/* A latency group (rows sorted by size, or by load threads) as the
 * latency command prints it: the curve with the file's cache sizes marked
 * and checked, or the loaded-latency table. */
static void latency_group(FILE *f, const struct pb_results_file *r, struct row *rows, size_t n)
{
	qsort(rows, n, sizeof *rows, cmp_row_size);
	const struct pb_key *k = rows[0].key;
	const char *src = str(k, "page_source");
	double page = key_num(k, "page_bytes");
	char size[32], pages[96] = "THP requested", head[640], method[256];
	latency_method(method, sizeof method, &rows[0]);
	if (isfinite(key_num(k, "load_threads"))) {
		pb_format_bytes(size, sizeof size, key_num(k, "size_bytes"), PB_BYTES_IEC);
		snprintf(head, sizeof head,
		         "%s: loaded latency (the chase over %s while 0..N threads on other "
		         "CPUs run %s; load GB/s: the bytes its calls copied or set, all threads, "
		         "over the chase's time; %s)",
		         rows[0].group, size, str(k, "load_kernel"), method);
		pb_print_wrapped_at(f, 0, 0, head);
		struct pb_loaded_row *lr = calloc(n, sizeof *lr);
		for (size_t i = 0; lr && i < n; i++) {
			lr[i] = (struct pb_loaded_row){
			    .threads = (int)key_whole(rows[i].key, "load_threads"),
			    .ns_per_load = dv_num(&rows[i], "ns_per_load"),
			    .ticks_per_load = pc_num(&rows[i], "median"),
			    .load_gb_per_s = dv_num(&rows[i], "load_gb_per_s"),
			    .spread = range_spread(&rows[i])};
			lr[i].has_ci = replicates_ci(&rows[i], &lr[i].ci);
		}
		if (lr)
			pb_loaded_print(f, lr, (int)n);
		free(lr);
		fputc('\n', f);
		return;
	}
	if (isfinite(page)) {
		pb_format_bytes(size, sizeof size, page, PB_BYTES_EXACT);
		snprintf(pages, sizeof pages, "%s pages from %s", size,
		         !strcmp(src, "4K") ? "base pages (THP off)" : src);
	}
	snprintf(head, sizeof head,
	         "%s: the curve (pointer chase: one dependent load per line, the lines in a "
	         "random order within and across pages; %s; %s; marks: the cache sizes of "
	         "the file's machine)",
	         rows[0].group, pages, method);
	pb_print_wrapped_at(f, 0, 0, head);
	struct pb_cache_info c;
	bool caches = pb_curve_caches_of(&r->mach, &c) == 0;
	struct pb_curve_point *pts = calloc(n, sizeof *pts);
	for (size_t i = 0; pts && i < n; i++) {
		pts[i] = (struct pb_curve_point){.size_bytes = key_whole(rows[i].key, "size_bytes"),
		                                 .ns_per_load = dv_num(&rows[i], "ns_per_load"),
		                                 .ticks_per_load = pc_num(&rows[i], "median"),
		                                 .spread = range_spread(&rows[i])};
		pts[i].has_ci = replicates_ci(&rows[i], &pts[i].ci);
	}
	if (pts)
		pb_curve_print(f, &c, pts, (int)n, !caches);
	if (!caches)
		fprintf(f, "(the file's machine object has no cache sizes: nothing marked)\n");
	free(pts);
	fputc('\n', f);
}

/* A map group as mem map prints it: per page size and thread count, the
 * figure's GB/s, ns per 4 KiB and per page (with replicates: of the
 * geometric mean of their medians, and its 95% CI), spread p10..p90. */
static void map_group(FILE *f, const struct row *rows, size_t n)
{
	char head[384];
	double reps = pc_num(&rows[0], "replicates");
	if (reps > 1)
		snprintf(head, sizeof head,
		         "%s: per page size and thread count (the geometric mean of %.0f "
		         "replicates' medians, %.0f samples in all; 95%% CI: +- the half-width of "
		         "its Student t interval on the replicates' logs, in %% of it; spread: "
		         "(p90 - p10) / median of the samples)",
		         rows[0].group, reps, pc_num(&rows[0], "n"));
	else
		snprintf(head, sizeof head,
		         "%s: per page size and thread count (median of %.0f samples; spread: "
		         "(p90 - p10) / median)",
		         rows[0].group, pc_num(&rows[0], "n"));
	pb_print_wrapped_at(f, 0, 0, head);
	struct pb_map_row *m = calloc(n + 1, sizeof *m);
	char(*pages)[32] = calloc(n + 1, sizeof *pages);
	for (size_t i = 0; m && pages && i < n; i++) {
		const struct row *pc = &rows[i];
		double med = pc_num(pc, "median"), lo = pc_num(pc, "ci_lo"),
		       hi = pc_num(pc, "ci_hi");
		pb_format_bytes(pages[i], sizeof pages[i], key_num(rows[i].key, "page_bytes"),
		                PB_BYTES_EXACT);
		m[i] = (struct pb_map_row){
		    .pages = pages[i],
		    .source = str(rows[i].key, "page_source"),
		    .threads = (unsigned)key_whole(rows[i].key, "threads"),
		    .gb_per_s = dv_num(&rows[i], "gb_per_s"),
		    .ns_per_4k = dv_num(&rows[i], "ns_per_4k_page"),
		    .ns_per_page = dv_num(&rows[i], "ns_per_page"),
		    .spread = med > 0 ? (pc_num(pc, "p90") - pc_num(pc, "p10")) / med : NAN,
		    /* the interval of replicates only: a few rounds' own is none */
		    .has_ci =
		        pc_num(pc, "replicates") > 1 && med > 0 && isfinite(lo) && isfinite(hi),
		    .ci = (hi - lo) / 2 / med};
	}
	if (m && pages)
		pb_map_print(f, m, n);
	free(m);
	free(pages);
	fputc('\n', f);
}

/* Whether rows (one group) print as their suite's own table: latency
 * and map cases that name themselves (not a generic key name), in text. */
static bool own_table(const struct row *rows, size_t n, const char *suite)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(str(rows[i].key, "suite"), suite) ||
		    !isfinite(dv_num(&rows[i], !strcmp(suite, "map") ? "gb_per_s" : "ns_per_load")))
			return false;
	return n > 0 && strncmp(rows[0].group, suite, strlen(suite)) == 0;
}

/* The id of a group's HTML table: prefix, then the group's slug (its
 * letters lower-cased and its digits, every other run of bytes between
 * them one '-'; "group" when that leaves nothing), "-2", "-3", ... appended while an id
 * of ids[0..n) has it. Malloc'd; NULL when out of memory. */
static char *table_id(const char *prefix, const char *group, char *const *ids, size_t n)
{
	size_t pl = strlen(prefix), len = pl + strlen(group) + sizeof "group" + 24;
	char *id = malloc(len);
	if (!id)
		return NULL;
	memcpy(id, prefix, pl);
	char *o = id + pl;
	for (const char *p = group; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x80 && isalnum(c))
			*o++ = (char)tolower(c);
		else if (o > id + pl && o[-1] != '-')
			*o++ = '-';
	}
	if (o > id + pl && o[-1] == '-')
		o--;
	if (o == id + pl)
		o += sprintf(o, "group");
	*o = '\0';
	size_t base = (size_t)(o - id);
	for (unsigned k = 2;; k++) {
		bool taken = false;
		for (size_t i = 0; i < n && !taken; i++)
			taken = !strcmp(ids[i], id);
		if (!taken)
			return id;
		snprintf(id + base, len - base, "-%u", k);
	}
}

/* The tables of r in `style`; id_prefix: HTML's (pb_format_html_tables). */
static int write_tables(FILE *f, const struct pb_results_file *r, enum style style,
                        const char *id_prefix)
{
	struct row *rows = rows_of(r);
	if (!rows)
		return pb_fail("out of memory");
	const char *brand = r->mach.brand ? r->mach.brand : "";
	const char *started = r->started_at ? r->started_at : "";
	const char *intr = r->interrupted ? " (interrupted)" : "";
	/* --processes N: the file joins N processes' replicates */
	char procs[96] = "";
	long long np = r->processes_count, re = r->replicates_each;
	if (np > 0)
		snprintf(procs, sizeof procs, ", %lld process%s of %lld replicate%s each", np,
		         np == 1 ? "" : "es", re, re == 1 ? "" : "s");
	/* HTML: the tables only, the page says what the file is */
	if (style == STYLE_MARKDOWN)
		fprintf(f, "## primbench result: %s\n\n%s, started %s%s%s\n\n", r->path, brand,
		        started, procs, intr);
	else if (style == STYLE_TEXT) {
		char *head;
		if (asprintf(&head, "%s: %s, started %s%s%s", r->path, brand, started, procs,
		             intr) >= 0) {
			pb_print_wrapped_at(f, 0, 4, head);
			free(head);
		}
		fputc('\n', f);
	}
	/* groups in first-seen order; each group's cases in file order */
	bool *done = calloc(r->ncases + 1, sizeof *done);
	struct row *order = calloc(r->ncases + 1, sizeof *order);
	char **ids = calloc(r->ncases + 1, sizeof *ids); /* HTML's, so far */
	size_t nids = 0;
	int rc = 0;
	if (!done || !order || !ids)
		rc = pb_fail("out of memory");
	double cmd_ns = 0; /* the longest median of a cmd run */
	for (size_t i = 0; i < r->ncases; i++)
		if (is_cmd_run(&rows[i]))
			cmd_ns = fmax(cmd_ns, pc_num(&rows[i], "median"));
	for (size_t i = 0; rc == 0 && i < r->ncases; i++) {
		if (done[i])
			continue;
		size_t n = 0;
		for (size_t j = i; j < r->ncases; j++)
			if (!done[j] && same_group(&rows[i], &rows[j])) {
				order[n++] = rows[j];
				done[j] = true;
			}
		if (style == STYLE_TEXT && own_table(order, n, "latency"))
			latency_group(f, r, order, n);
		else if (style == STYLE_TEXT && own_table(order, n, "map"))
			map_group(f, order, n);
		else if (style == STYLE_HTML) {
			char *id = table_id(id_prefix, order[0].group, ids, nids);
			if (!id)
				rc = pb_fail("out of memory");
			else {
				ids[nids++] = id;
				rc = group_table(f, order, 0, n, style, cmd_ns, id);
			}
		} else
			rc = group_table(f, order, 0, n, style, cmd_ns, NULL);
	}
	if (rc == 0 && r->ncases == 0)
		fputs(style == STYLE_HTML ? "<p>no case with samples</p>\n"
		                          : "(no case with samples)\n",
		      f);
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	free(done);
	free(order);
	rows_free(rows, r->ncases);
	return rc;
}

int pb_format_html_tables(FILE *f, const struct pb_results_file *r, const char *id_prefix)
{
	return write_tables(f, r, STYLE_HTML, id_prefix ? id_prefix : "");
}

/* ---- CSV (RFC 4180) --------------------------------------------------------- */

void pb_csv_double(char *buf, size_t len, double v)
{
	if (isnan(v)) {
		snprintf(buf, len, "%s", "");
		return;
	}
	/* the shortest text that reads back as the same double */
	for (int digits = 10; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

char *pb_csv_value_text(const struct pb_field *v)
{
	return value_text(v);
}

void pb_csv_field(FILE *f, const char *s, bool last)
{
	bool quote =
	    strpbrk(s, ",\"\r\n") != NULL ||
	    (*s && (isspace((unsigned char)s[0]) || isspace((unsigned char)s[strlen(s) - 1])));
	if (quote) {
		fputc('"', f);
		for (const char *p = s; *p; p++) {
			if (*p == '"')
				fputc('"', f);
			fputc(*p, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputs(last ? "\r\n" : ",", f);
}

/* The unit of a median_derived figure, by its name. */
static const char *derived_unit(const char *name, const char *unit)
{
	static const struct {
		const char *name, *unit;
	} known[] = {
	    {"ns_per_call", "ns"},
	    {"ticks_per_page", "tsc_ticks/4096 bytes"},
	    {"bytes_per_tick", "bytes/tsc_tick"},
	    {"gb_per_s", "GB/s"},
	    {"ticks_per_4k_page", "tsc_ticks/4 KiB page"},
	    {"ns_per_4k_page", "ns/4 KiB page"},
	    {"ns_per_page", "ns/page"}, /* mem map: per page of its size */
	    {"ns_per_load", "ns/load"}, /* latency */
	    {"load_gb_per_s", "GB/s"},  /* latency --load: the load's */
	    {"efficiency", "ratio"},    /* N threads: aggregate / (N x 1 thread) */
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(known[i].name, name))
			return known[i].unit;
	return unit;
}

static int write_csv(FILE *f, const struct pb_results_file *r)
{
	/* the union of the key fields, first-seen order */
	struct pb_strv fields = {0};
	for (size_t i = 0; i < r->ncases; i++)
		for (size_t k = 0; k < r->cases[i].fields.n; k++) {
			const char *name = r->cases[i].fields.fields[k].name;
			bool seen = false;
			for (size_t j = 0; j < fields.n && !seen; j++)
				seen = !strcmp(fields.v[j], name);
			if (!seen)
				pb_strv_push(&fields, pb_xstrdup(name));
		}
	size_t nf = fields.n;
	pb_csv_field(f, "group", false);
	pb_csv_field(f, "case", false);
	for (size_t j = 0; j < nf; j++)
		pb_csv_field(f, fields.v[j], false);
	pb_csv_field(f, "statistic", false);
	pb_csv_field(f, "value", false);
	pb_csv_field(f, "unit", true);
	const char *page_op = r->page_op;
	static const char *const stats[] = {"n",   "min",  "p10",    "median", "p90",
	                                    "max", "mean", "stddev", "ci_lo",  "ci_hi"};
	int rc = 0;
	for (size_t i = 0; i < r->ncases; i++) {
		const struct pb_results_case *c = &r->cases[i];
		char *group, *label;
		pb_key_name(&c->fields, &group, &label);
		page_op_group(page_op, &c->fields, &group); /* as text titles it */
		size_t nk = nf;
		char **kv = calloc(nf + 1, sizeof *kv);
		if (!kv) {
			free(group);
			free(label);
			rc = pb_fail("out of memory");
			break;
		}
		for (size_t j = 0; j < nk; j++)
			kv[j] = value_text(pb_field_get(&c->fields, fields.v[j]));
		/* the statistics, then the median_derived members in file order */
		size_t nstat = sizeof stats / sizeof stats[0];
		size_t nfacts = c->facts.n;
		for (size_t s = 0; s < nstat + nfacts; s++) {
			const char *name, *unit;
			char statname[64];
			const struct pb_field *v;
			char *text = NULL;
			if (s < nstat) {
				name = stats[s];
				char path[64];
				snprintf(path, sizeof path, "per_call.%s", name);
				v = pb_facts_get(&c->facts, path);
				/* not a leaf: an object (a malformed file), as its JSON */
				text = v ? NULL : pb_facts_raw_text(&c->facts, path);
				unit = !strcmp(name, "n") ? "count" : c->unit;
			} else {
				const struct pb_fact *x = &c->facts.v[s - nstat];
				if (x->nseg < 2 || strcmp(x->seg[0], "median_derived"))
					continue;
				name = x->seg[1];
				v = &x->v;
				if (x->nseg > 2) {
					/* an object member (a malformed file): once, as its JSON */
					const struct pb_fact *p = s > nstat ? x - 1 : NULL;
					if (p && p->nseg > 2 &&
					    !strcmp(p->seg[0], "median_derived") &&
					    !strcmp(p->seg[1], name))
						continue;
					char path[160];
					snprintf(path, sizeof path, "median_derived.%s", name);
					v = NULL;
					text = pb_facts_raw_text(&c->facts, path);
				}
				unit = derived_unit(name, c->unit);
				snprintf(statname, sizeof statname, "median_%s", name);
				name = statname;
			}
			if (!v && !text)
				continue;
			pb_csv_field(f, group, false);
			pb_csv_field(f, label, false);
			for (size_t j = 0; j < nk; j++)
				pb_csv_field(f, kv[j] ? kv[j] : "", false);
			pb_csv_field(f, name, false);
			char *t = v ? value_text(v) : text;
			pb_csv_field(f, t ? t : "", false);
			free(t);
			pb_csv_field(f, unit, true);
		}
		for (size_t j = 0; j < nk; j++)
			free(kv[j]);
		free(kv);
		free(group);
		free(label);
	}
	for (size_t j = 0; j < fields.n; j++)
		free(fields.v[j]);
	free(fields.v);
	return rc;
}

/* ---- Go's benchmark data format ------------------------------------------------ */

/* A configuration value: one line, no control characters. */
static void config_line(FILE *f, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	fprintf(f, "%s: ", key);
	for (const char *p = value; *p; p++)
		fputc(iscntrl((unsigned char)*p) ? ' ' : *p, f);
	fputc('\n', f);
}

/* A name part's value: whitespace, '/' and '%' percent-encoded, so that a
 * name is one field and "/" only separates key=value parts. */
static void name_value(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isspace(*p) || iscntrl(*p) || *p == '/' || *p == '%')
			fprintf(f, "%%%02X", *p);
		else
			fputc(*p, f);
	}
}

static int write_benchfmt(FILE *f, const struct pb_results_file *r)
{
	const char *arch = r->primbench_arch ? r->primbench_arch : "";
	config_line(f, "goos", "linux");
	config_line(f, "goarch", !strcmp(arch, "x86_64") ? "amd64" : arch);
	config_line(f, "pkg", "primbench");
	config_line(f, "cpu", r->mach.brand ? r->mach.brand : "");
	/* Only what stays the same between a before and an after run on one
	 * machine: benchstat puts results whose configuration differs in
	 * separate tables, so a kernel, glibc or date line would keep the two
	 * files apart (primbench compare lists those differences instead). */
	double hz = pb_facts_num(&r->mach.facts, "timer.hz");
	char buf[64];
	config_line(f, "clock", r->mach.timer_clock ? r->mach.timer_clock : "");
	if (isfinite(hz)) {
		/* rounded to whole MHz, as the fingerprint does */
		snprintf(buf, sizeof buf, "%.0f", round(hz / 1e6) * 1e6);
		config_line(f, "clock-hz", buf);
	}
	fputc('\n', f);
	for (size_t i = 0; i < r->ncases; i++) {
		const struct pb_results_case *c = &r->cases[i];
		const char *suite = str(&c->fields, "suite");
		double size = pb_field_num(&c->fields, "size_bytes");
		bool ticks = pb_tick_unit_is_counter(c->unit) && r->tsc_hz > 0;
		bool ns = !strcmp(c->unit, "ns");
		for (size_t s = 0; s < c->n; s++) {
			double v = c->sample_value[s];
			double calls = c->sample_calls[s];
			fputs("Benchmark", f);
			/* "Benchmark" then an upper-case letter: Mem, Syscall, ... */
			fputc(toupper((unsigned char)(suite[0] ? suite[0] : 'X')), f);
			name_value(f, suite[0] ? suite + 1 : "");
			for (size_t j = 0; j < c->fields.n; j++) {
				const struct pb_field *kv = &c->fields.fields[j];
				const char *k = kv->name;
				if (!strcmp(k, "suite") || kv->kind == PB_FIELD_NULL)
					continue;
				char *t = value_text(kv);
				fputc('/', f);
				name_value(f, k);
				fputc('=', f);
				name_value(f, t ? t : "");
				free(t);
			}
			double per = v / calls;
			fprintf(f, " %.0f", calls);
			/* the cases' tick rate: r->tsc_hz (reader.h; a kernel file's own) */
			double per_ns = ticks ? per / r->tsc_hz * 1e9 : ns ? per : NAN;
			if (isfinite(per_ns))
				fprintf(f, per_ns >= 1e6 ? " %.0f ns/op" : " %.6g ns/op", per_ns);
			if (!ns) {
				fputc(' ', f);
				fprintf(f, "%.6g ", per);
				name_value(f, c->unit);
				fputs("/op", f);
			}
			if (isfinite(per_ns) && per_ns > 0 && isfinite(size) && size > 0)
				fprintf(f, " %.6g MB/s", size / per_ns * 1e3);
			fputc('\n', f);
		}
	}
	return 0;
}

int pb_format_write(FILE *f, const struct pb_results_file *r, enum pb_format fmt)
{
	int rc = 0;
	switch (fmt) {
	case PB_FORMAT_TEXT:
		rc = write_tables(f, r, STYLE_TEXT, NULL);
		break;
	case PB_FORMAT_MARKDOWN:
		rc = write_tables(f, r, STYLE_MARKDOWN, NULL);
		break;
	case PB_FORMAT_JSON:
		if (pb_results_file_print(f, r, 1, 10) != 0)
			rc = pb_fail("cannot write JSON");
		else
			fputc('\n', f);
		break;
	case PB_FORMAT_CSV:
		rc = write_csv(f, r);
		break;
	case PB_FORMAT_BENCHFMT:
		rc = write_benchfmt(f, r);
		break;
	case PB_FORMAT_BMF:
	case PB_FORMAT_GBENCH:
	case PB_FORMAT_ACTION:
		rc = pb_ci_format_write(f, r, fmt);
		break;
	default:
		rc = pb_fail("unknown format %d", (int)fmt);
	}
	return rc;
}
