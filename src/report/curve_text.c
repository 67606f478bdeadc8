/* curve_text.c - the latency curve, loaded latency and mem map's table as
 * text (include/primbench/curve_text.h). The printers were the latency
 * and mem map commands' own (src/cli/cmd_latency.c, cmd_mem_map.c); they
 * are here so that `primbench report` prints a result file the same way. */
#include "primbench/curve_text.h"

#include <math.h>
#include <string.h>

#include "primbench/text.h"

/* Prints a row and its marks, marks that do not fit in the width on lines
 * of their own under the first mark. */
static void print_row(FILE *f, const char *row, char marks[][48], int nmarks)
{
	int width = (int)strlen(row);
	int col = fprintf(f, "%s", row);
	for (int i = 0; i < nmarks; i++) {
		int w = (int)strlen(marks[i]);
		if (i > 0 && col + 2 + w > PB_TEXT_WIDTH)
			col = fprintf(f, "\n%*s", width, "") - 1;
		col += fprintf(f, "  %s", marks[i]);
	}
	fputc('\n', f);
}

/* "1 MiB" or "1 MiB..2 MiB". */
static void step_text(char *out, size_t len, const struct pb_curve_step *s)
{
	char a[32], b[32];
	pb_format_bytes(a, sizeof a, s->from, PB_BYTES_IEC);
	pb_format_bytes(b, sizeof b, s->to, PB_BYTES_IEC);
	if (s->from == s->to)
		snprintf(out, len, "%s", a);
	else
		snprintf(out, len, "%s..%s", a, b);
}

/* One reported size against the curve's steps: a level of `bytes` ends
 * where a step starts after it, within four times it. */
static void judge(char *out, size_t len, const struct pb_curve_point *pts, int n,
                  const struct pb_curve_step *st, int nst, uint64_t bytes)
{
	char a[32], b[32], t[80];
	uint64_t top = n ? pts[n - 1].size_bytes : 0;
	for (int i = 0; i < nst; i++)
		if (st[i].to > bytes && st[i].from <= 4 * bytes) {
			step_text(t, sizeof t, &st[i]);
			snprintf(out, len, "the curve steps up at %s: consistent", t);
			return;
		}
	if (top < 2 * bytes) {
		pb_format_bytes(a, sizeof a, top, PB_BYTES_IEC);
		snprintf(out, len, "beyond the curve (it stops at %s)", a);
	} else {
		pb_format_bytes(a, sizeof a, bytes, PB_BYTES_IEC);
		pb_format_bytes(b, sizeof b, 4 * bytes, PB_BYTES_IEC);
		snprintf(out, len, "no step between %s and %s: not where the curve says", a, b);
	}
}

/* The reported sizes against the curve: the steps seen, one line per
 * level, one per rejected source. */
static void print_check(FILE *f, const struct pb_cache_info *c, const struct pb_curve_point *pts,
                        int n)
{
	struct pb_curve_step st[PB_CURVE_MAX_POINTS];
	int nst = pb_curve_steps(pts, n, st, PB_CURVE_MAX_POINTS);
	char steps[512] = "", sz[32], text[600], verdict[200], t[80];
	size_t used = 0;
	for (int i = 0; i < nst && used < sizeof steps; i++) {
		step_text(t, sizeof t, &st[i]);
		used += (size_t)snprintf(steps + used, sizeof steps - used, "%s%s (x%.1f)",
		                         used ? ", " : "", t, st[i].rise);
	}
	fprintf(f,
	        "\nthe reported cache sizes against the curve (a step: %.1fx or more over half\n"
	        "the size)\n",
	        PB_CURVE_STEP_RATIO);
	pb_print_labelled(f, 16, "  steps", used ? steps : "none");
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const struct pb_cache_level_info *li = &c->level[l];
		char label[32];
		snprintf(label, sizeof label, "  %s", pb_cache_level_name((enum pb_cache_level)l));
		pb_format_bytes(sz, sizeof sz, li->size_bytes, PB_BYTES_IEC);
		judge(verdict, sizeof verdict, pts, n, st, nst, li->size_bytes);
		snprintf(text, sizeof text, "%s (%s): %s", sz, pb_cache_source_name(li->source),
		         verdict);
		pb_print_labelled(f, 16, label,
		                  li->size_bytes ? text : "no figure: nothing to check");
		for (int s = 0; s < PB_SRC_COUNT; s++) {
			uint64_t b = li->by_source_bytes[s];
			if (!b || li->plausible[s])
				continue;
			pb_format_bytes(sz, sizeof sz, b, PB_BYTES_IEC);
			judge(verdict, sizeof verdict, pts, n, st, nst, b);
			if (nst)
				step_text(t, sizeof t, &st[nst - 1]);
			snprintf(text, sizeof text,
			         "%s says %s, rejected as implausible (src/cpu/caches.c): %s%s%s",
			         pb_cache_source_name((enum pb_cache_source)s), sz, verdict,
			         nst ? "; the curve's last step is at " : "", nst ? t : "");
			pb_print_labelled(f, 16, "", text);
		}
	}
}

/* The "95% CI" cell: +-ci in %, or "-" without an interval. */
static void ci_cell(char *out, size_t len, bool has_ci, double ci)
{
	if (has_ci && isfinite(ci))
		snprintf(out, len, "+-%.1f%%", 100 * ci);
	else
		snprintf(out, len, "-");
}

void pb_curve_print(FILE *f, const struct pb_cache_info *c, const struct pb_curve_point *pts, int n,
                    bool no_check)
{
	bool ci = false;
	for (int i = 0; i < n; i++)
		ci |= pts[i].has_ci;
	if (ci)
		fprintf(f, "  %10s %10s %12s %8s %7s\n", "size", "ns/load", "ticks/load", "95% CI",
		        "spread");
	else
		fprintf(f, "  %10s %10s %12s %7s\n", "size", "ns/load", "ticks/load", "spread");
	int next_level = 0;
	for (int i = 0; i < n; i++) {
		char sz[32], row[128], spread[16], cell[16], marks[1 + PB_CACHE_LEVELS][48];
		int nmarks = 0;
		pb_format_bytes(sz, sizeof sz, pts[i].size_bytes, PB_BYTES_IEC);
		if (isfinite(pts[i].spread))
			snprintf(spread, sizeof spread, "%.1f%%", 100 * pts[i].spread);
		else
			snprintf(spread, sizeof spread, "-");
		ci_cell(cell, sizeof cell, pts[i].has_ci, pts[i].ci);
		if (ci)
			snprintf(row, sizeof row, "  %10s %10.1f %12.1f %8s %7s", sz,
			         pts[i].ns_per_load, pts[i].ticks_per_load, cell, spread);
		else
			snprintf(row, sizeof row, "  %10s %10.1f %12.1f %7s", sz,
			         pts[i].ns_per_load, pts[i].ticks_per_load, spread);
		double r = pb_curve_step_ratio(pts, n, i);
		if (r >= PB_CURVE_STEP_RATIO)
			snprintf(marks[nmarks++], sizeof marks[0], "x%.1f vs half the size", r);
		while (next_level < PB_CACHE_LEVELS &&
		       pts[i].size_bytes > c->level[next_level].size_bytes) {
			char lv[32];
			if (!c->level[next_level].size_bytes) { /* unknown: no mark */
				next_level++;
				continue;
			}
			pb_format_bytes(lv, sizeof lv, c->level[next_level].size_bytes,
			                PB_BYTES_IEC);
			snprintf(marks[nmarks++], sizeof marks[0], "(past %s %s)",
			         pb_cache_level_name((enum pb_cache_level)next_level), lv);
			next_level++;
		}
		print_row(f, row, marks, nmarks);
	}
	if (!no_check)
		print_check(f, c, pts, n);
}

int pb_curve_caches_of(const struct pb_results_machine *m, struct pb_cache_info *c)
{
	if (!m->has_caches) {
		memset(c, 0, sizeof *c);
		return -1;
	}
	*c = m->caches;
	return 0;
}

void pb_loaded_print(FILE *f, const struct pb_loaded_row *rows, int n)
{
	bool ci = false;
	for (int i = 0; i < n; i++)
		ci |= rows[i].has_ci;
	if (ci)
		fprintf(f, "  %12s %10s %12s %8s %10s %7s\n", "load threads", "ns/load",
		        "ticks/load", "95% CI", "load GB/s", "spread");
	else
		fprintf(f, "  %12s %10s %12s %10s %7s\n", "load threads", "ns/load", "ticks/load",
		        "load GB/s", "spread");
	for (int i = 0; i < n; i++) {
		char spread[16] = "-", cell[16];
		if (isfinite(rows[i].spread))
			snprintf(spread, sizeof spread, "%.1f%%", 100 * rows[i].spread);
		ci_cell(cell, sizeof cell, rows[i].has_ci, rows[i].ci);
		if (ci)
			fprintf(f, "  %12d %10.1f %12.1f %8s %10.2f %7s\n", rows[i].threads,
			        rows[i].ns_per_load, rows[i].ticks_per_load, cell,
			        rows[i].load_gb_per_s, spread);
		else
			fprintf(f, "  %12d %10.1f %12.1f %10.2f %7s\n", rows[i].threads,
			        rows[i].ns_per_load, rows[i].ticks_per_load, rows[i].load_gb_per_s,
			        spread);
	}
	/* A load thread that got no CPU time while the chase ran (its CPU busy
	 * with something else) leaves a loaded row that is not loaded. */
	for (int i = 0; i < n; i++)
		if (rows[i].threads > 0 && !(rows[i].load_gb_per_s > 0)) {
			fputs("  note: a load level with 0 GB/s: its load threads got no CPU time "
			      "while the chase ran\n  (their CPUs were busy); that row is not a "
			      "loaded latency\n",
			      f);
			break;
		}
}

void pb_map_print(FILE *f, const struct pb_map_row *rows, size_t n)
{
	bool ci = false;
	for (size_t i = 0; i < n; i++)
		ci |= rows[i].has_ci;
	if (ci)
		fprintf(f, "%-5s %-9s %7s %8s %9s %11s %8s %9s\n", "pages", "source", "threads",
		        "GB/s", "ns/4KiB", "ns/page", "95% CI", "spread");
	else
		fprintf(f, "%-5s %-9s %7s %8s %9s %11s %9s\n", "pages", "source", "threads", "GB/s",
		        "ns/4KiB", "ns/page", "spread");
	for (size_t i = 0; i < n; i++) {
		const struct pb_map_row *r = &rows[i];
		char spread[16] = "-", cell[16] = "-";
		if (isfinite(r->spread))
			snprintf(spread, sizeof spread, "%.1f%%", 100 * r->spread);
		if (r->has_ci && isfinite(r->ci))
			snprintf(cell, sizeof cell, "+-%.1f%%", 100 * r->ci);
		if (ci)
			fprintf(f, "%-5s %-9s %7u %8.2f %9.1f %11.1f %8s %9s\n", r->pages,
			        r->source, r->threads, r->gb_per_s, r->ns_per_4k, r->ns_per_page,
			        cell, spread);
		else
			fprintf(f, "%-5s %-9s %7u %8.2f %9.1f %11.1f %9s\n", r->pages, r->source,
			        r->threads, r->gb_per_s, r->ns_per_4k, r->ns_per_page, spread);
	}
}
