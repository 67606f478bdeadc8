/* html.c - one self-contained HTML page for result files
 * (include/primbench/html.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/compare.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/html.h"
#include "primbench/summary.h"
#include "primbench/text.h"
#include "primbench/twosample.h"
#include "primbench/xalloc.h"

/* The page's style: a text column of at most 80 characters, tables and
 * figures as wide as they need (scrolling on their own), Tableau-like
 * neutral colours with enough contrast (WCAG 2.1 AA: 4.5:1 for text), and
 * a print style sheet. */
static const char style[] =
    ":root { color-scheme: light; }\n"
    "body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1a1a1a;"
    " background: #ffffff; margin: 0 auto; padding: 1em 1.5em; max-width: 1400px;"
    " line-height: 1.45; }\n"
    "header, section > p, section > ul, section > dl, section > h2, section > h3,"
    " footer, nav { max-width: 80ch; }\n"
    "h1 { font-size: 1.6em; margin: 0.2em 0; }\n"
    "h2 { font-size: 1.3em; border-bottom: 1px solid #c8c8c8; margin-top: 1.8em; }\n"
    "h3 { font-size: 1.1em; margin-top: 1.4em; }\n"
    "pre { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; font-size: 0.9em;"
    " background: #f4f4f4; padding: 0.8em; overflow-x: auto; max-width: 82ch;"
    " white-space: pre; }\n"
    "code { font-family: ui-monospace, 'DejaVu Sans Mono', monospace; }\n"
    ".scroll { overflow-x: auto; max-width: 100%; }\n"
    "table.pb-table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.9em; }\n"
    "table.pb-table caption { text-align: left; font-weight: 600; padding: 0.3em 0; }\n"
    "table.pb-table th, table.pb-table td { border-bottom: 1px solid #dddddd;"
    " padding: 0.2em 0.7em; text-align: left; vertical-align: top; }\n"
    "table.pb-table thead th { border-bottom: 2px solid #888888; }\n"
    "table.pb-table td.num { text-align: right; font-variant-numeric: tabular-nums;"
    " white-space: nowrap; }\n"
    "table.pb-table th[scope=row] { font-weight: normal; white-space: nowrap; }\n"
    ".verdict-different { color: #8b1a1a; font-weight: 600; }\n"
    ".verdict-equivalent { color: #1d5e20; }\n"
    "dl.pb-machine { display: grid; grid-template-columns: max-content auto;"
    " gap: 0.15em 1em; }\n"
    "dl.pb-machine dt { font-weight: 600; }\n"
    "dl.pb-machine dd { margin: 0; }\n"
    "figure.pb-figure { margin: 1.2em 0 2em; break-inside: avoid; page-break-inside: avoid; }\n"
    "figure.pb-figure img { display: block; max-width: 100%; height: auto;"
    " border: 1px solid #e0e0e0; background: #ffffff; }\n"
    "figcaption { max-width: 80ch; font-size: 0.9em; color: #333333; margin-top: 0.4em; }\n"
    ".note { max-width: 80ch; font-size: 0.9em; color: #444444; }\n"
    "nav ul { padding-left: 1.2em; }\n"
    "a { color: #0b5394; }\n"
    "@media print {\n"
    "  body { max-width: none; padding: 0; font-size: 10pt; color: #000000; }\n"
    "  nav { display: none; }\n"
    "  a { color: #000000; text-decoration: none; }\n"
    "  h2 { break-after: avoid; page-break-after: avoid; }\n"
    "  pre { break-inside: avoid; page-break-inside: avoid; }\n"
    "  .scroll, pre { overflow: visible; }\n"
    "  table.pb-table { font-size: 7.5pt; width: 100%; table-layout: auto; }\n"
    "  table.pb-table th, table.pb-table td { padding: 0.1em 0.3em; overflow-wrap: anywhere;"
    " white-space: normal; }\n"
    "  table.pb-table thead { display: table-header-group; }\n"
    "  pre { background: none; border: 1px solid #999999; white-space: pre-wrap; }\n"
    "  figure.pb-figure img { border: none; }\n"
    "  .verdict-different, .verdict-equivalent { color: #000000; }\n"
    "}\n";

/* Base64 (RFC 4648, section 4) of data[0..len) to f. */
static void base64(FILE *f, const unsigned char *data, size_t len)
{
	static const char tab[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;
	for (; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(tab[v >> 6 & 63], f);
		fputc(tab[v & 63], f);
	}
	if (len - i == 1) {
		uint32_t v = (uint32_t)data[i] << 16;
		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputs("==", f);
	} else if (len - i == 2) {
		uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8;
		fputc(tab[v >> 18 & 63], f);
		fputc(tab[v >> 12 & 63], f);
		fputc(tab[v >> 6 & 63], f);
		fputc('=', f);
	}
}

/* The labels of the files as "a, b and c". */
static void labels_text(FILE *f, const struct pb_html_page *p)
{
	for (size_t i = 0; i < p->n; i++) {
		fputs(i == 0 ? "" : i + 1 == p->n ? " and " : ", ", f);
		pb_html_text(f, p->in[i].label);
	}
}

static void head(FILE *f, const struct pb_html_page *p)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n"
	      "<meta name=\"generator\" content=\"",
	      f);
	pb_html_text(f, p->generator ? p->generator : "primbench");
	fputs("\" />\n<title>primbench report: ", f);
	labels_text(f, p);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

static void header(FILE *f, const struct pb_html_page *p)
{
	fputs("<header>\n<h1>primbench report</h1>\n<ul class=\"pb-files\">\n", f);
	for (size_t i = 0; i < p->n; i++) {
		const struct pb_results_file *r = p->in[i].file;
		fputs("<li><strong>", f);
		pb_html_text(f, p->in[i].label);
		fputs("</strong>: <code>", f);
		pb_html_text(f, r->path);
		fputs("</code>", f);
		if (r->mach.brand) {
			fputs(", ", f);
			pb_html_text(f, r->mach.brand);
		}
		if (r->started_at) {
			fputs(", started ", f);
			pb_html_text(f, r->started_at);
		}
		if (r->interrupted)
			fputs(" (interrupted: what was measured before the signal)", f);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</header>\n", f);
	fputs("<nav aria-label=\"contents\"><ul>\n<li><a href=\"#summary\">Summary</a></li>\n", f);
	if (p->n > 1)
		fputs("<li><a href=\"#comparison\">Comparison</a></li>\n", f);
	fputs("<li><a href=\"#machine\">Machine</a></li>\n"
	      "<li><a href=\"#figures\">Figures</a></li>\n"
	      "<li><a href=\"#tables\">Tables</a></li>\n</ul></nav>\n",
	      f);
}

/* Cases per suite of r: "12 mem, 10 syscall". */
static void suites_count(FILE *f, const struct pb_results_file *r)
{
	const char *seen[32];
	size_t count[32], ns = 0;
	for (size_t i = 0; i < r->ncases; i++) {
		const char *s = pb_field_str(&r->cases[i].fields, "suite");
		s = s ? s : "?";
		size_t j = 0;
		while (j < ns && strcmp(seen[j], s))
			j++;
		if (j == ns && ns < 32) {
			seen[ns] = s;
			count[ns++] = 0;
		}
		if (j < ns)
			count[j]++;
	}
	for (size_t j = 0; j < ns; j++) {
		fprintf(f, "%s%zu ", j ? ", " : "", count[j]);
		pb_html_text(f, seen[j]);
	}
	if (ns == 0)
		fputs("no case with samples", f);
}

/* A comparison's verdicts counted: the summary's line for it. */
static void compare_counts(FILE *f, const struct pb_html_page *p, size_t k)
{
	const struct pb_compare_result *r = &p->cmp[k];
	size_t slower = 0, faster = 0, equiv = 0, none = 0, one = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct pb_compare_row *row = &r->rows[i];
		if (row->one_run)
			one++;
		else if (row->verdict == PB_VERDICT_EQUIVALENT)
			equiv++;
		else if (row->significant && row->pct > 0)
			slower++;
		else if (row->significant)
			faster++;
		else
			none++;
	}
	fputs("<li><strong>", f);
	pb_html_text(f, p->in[k + 1].label);
	fputs("</strong> against <strong>", f);
	pb_html_text(f, p->in[0].label);
	fprintf(f, "</strong>: %zu case%s in both", r->nrows, r->nrows == 1 ? "" : "s");
	if (r->nrows)
		fprintf(
		    f,
		    ": <span%s>%zu slower, %zu faster</span> (the time per call; different "
		    "beyond the interval and the +-%g%% margin), <span%s>%zu equivalent</span>, "
		    "%zu cannot tell",
		    slower + faster ? " class=\"verdict-different\"" : "", slower, faster,
		    100 * r->margin, equiv ? " class=\"verdict-equivalent\"" : "", equiv, none);
	if (one)
		fprintf(f, ", %zu without a verdict (one run a side)", one);
	for (size_t g = 0; g < r->ngm; g++)
		if (r->gm[g].n && isfinite(r->gm[g].ratio)) {
			/* the unit as the tables name it */
			const char *u = r->gm[g].unit;
			fprintf(f, "; geometric mean of %zu in ", r->gm[g].n);
			pb_html_text(f, !strcmp(u, "tsc_ticks") ? "TSC ticks" : u);
			fprintf(f, ": %+.1f%%", 100 * (r->gm[g].ratio - 1));
		}
	if (r->nhw)
		fputs("; <strong>different hardware</strong> (see the comparison)", f);
	fputs("</li>\n", f);
}

/* A cmd A/B file's verdict (its "ab" object, docs/results-schema.md), as
 * cmd printed it: B/A on its metric with the 95% interval, and the
 * verdict; nothing for a file without one. */
static void ab_line(FILE *f, const struct pb_results_file *r)
{
	const struct pb_facts *d = &r->facts;
	if (!pb_facts_has(d, "ab"))
		return;
	double est = pb_facts_num(d, "ab.ratio.estimate");
	double lo = pb_facts_num(d, "ab.ratio.ci_lo"), hi = pb_facts_num(d, "ab.ratio.ci_hi");
	const char *metric = pb_facts_str(d, "ab.metric");
	const char *verdict = pb_facts_str(d, "ab.until_verdict.verdict");
	if (!verdict)
		verdict = pb_facts_str(d, "ab.verdict");
	fputs("<p class=\"pb-ab\">A/B: B against A", f);
	if (metric) {
		fputs(" (", f);
		pb_html_text(f, metric);
		fputs(" time)", f);
	}
	if (isnan(est))
		fputs(": no comparison (too few runs, or a figure of 0)", f);
	else {
		fprintf(f, ": B/A %.4g", est);
		if (!isnan(lo) && !isnan(hi))
			fprintf(f, ", 95%% CI [%.4g, %.4g]", lo, hi);
	}
	char judged[16];
	if (!verdict && !isnan(est)) {
		/* a file from before ab.verdict: judged by the same rule with
		 * its margin (pb_verdict_of, as plot and cmd do) */
		double m = pb_facts_num(d, "ab.equivalence");
		struct pb_shift sh = {
		    .estimate = est, .lo = lo, .hi = hi, .ci_valid = isfinite(lo) && isfinite(hi)};
		enum pb_verdict v = pb_verdict_of(&sh, !isnan(m) ? m : pb_equivalence());
		snprintf(judged, sizeof judged, "%s",
		         v == PB_VERDICT_DIFFERENT    ? "different"
		         : v == PB_VERDICT_EQUIVALENT ? "equivalent"
		                                      : "cannot tell");
		verdict = judged;
	}
	if (verdict) {
		bool diff = !strcmp(verdict, "different");
		fprintf(f, ": <strong%s>", diff ? " class=\"verdict-different\"" : "");
		pb_html_text(f, diff && !isnan(est) ? (est > 1 ? "B is slower" : "B is faster")
		                                    : verdict);
		fputs("</strong>", f);
	}
	fputs(".</p>\n", f);
}

static int summary(FILE *f, const struct pb_html_page *p)
{
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n", f);
	if (p->n > 1) {
		fputs("<ul>\n", f);
		for (size_t k = 0; k < p->ncmp; k++)
			compare_counts(f, p, k);
		fputs("</ul>\n", f);
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct pb_results_file *r = p->in[i].file;
		if (p->n > 1) {
			fputs("<h3>", f);
			pb_html_text(f, p->in[i].label);
			fputs("</h3>\n", f);
		}
		fputs("<p>", f);
		suites_count(f, r);
		if (r->nskipped)
			fprintf(f, "; %zu case%s without samples", r->nskipped,
			        r->nskipped == 1 ? "" : "s");
		if (r->noise_high) {
			fputs("; <strong>the run was noisy</strong>", f);
			if (r->noise_cause) {
				fputs(": ", f);
				pb_html_text(f, r->noise_cause);
			}
		}
		fputs(".</p>\n", f);
		ab_line(f, r);
		if (!pb_summary_is_default_run(r))
			continue;
		struct pb_summary_report *sum = pb_summary_build(r);
		if (!sum)
			return -1;
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (!m) {
			pb_summary_report_free(sum);
			return pb_fail("out of memory");
		}
		pb_summary_print(m, sum);
		fclose(m);
		pb_summary_report_free(sum);
		/* the summary's own text, as the run printed it (80 columns) */
		const char *t = text;
		while (*t == '\n')
			t++;
		fputs("<pre class=\"pb-summary\">", f);
		pb_html_text(f, t);
		fputs("</pre>\n", f);
		free(text);
	}
	fputs("</section>\n", f);
	return 0;
}

static void comparison(FILE *f, const struct pb_html_page *p)
{
	if (p->n < 2)
		return;
	fputs("<section id=\"comparison\">\n<h2>Comparison</h2>\n", f);
	fputs("<p>Each file against the first: the median per call of each side with its 95% "
	      "CI, the change with its interval, p and the verdict (docs/statistics.md; the "
	      "same figures as <code>primbench compare</code>).</p>\n",
	      f);
	for (size_t k = 0; k < p->ncmp; k++) {
		if (p->ncmp > 1) {
			fputs("<h3>", f);
			pb_html_text(f, p->in[k + 1].label);
			fputs(" against ", f);
			pb_html_text(f, p->in[0].label);
			fputs("</h3>\n", f);
		}
		fputs("<div class=\"scroll\">\n", f);
		pb_compare_html(f, &p->cmp[k]);
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

/* One row of the machine table: the field, then each file's value. */
static void machine_row(FILE *f, const char *field, char *const *values, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any |= values[i] != NULL;
	if (!any)
		return;
	fputs("<tr><th scope=\"row\">", f);
	pb_html_text(f, field);
	fputs("</th>", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<td>", f);
		pb_html_text(f, values[i] ? values[i] : "-");
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

static char *dup_or_null(const char *s)
{
	return s ? pb_xstrdup(s) : NULL;
}

static char *bytes_or_null(long long b)
{
	if (b < 0)
		return NULL;
	char buf[48];
	pb_format_bytes(buf, sizeof buf, (double)b, PB_BYTES_IEC);
	return pb_xasprintf("%s (%lld bytes)", buf, b);
}

enum mfield {
	MF_CPU,
	MF_ID,
	MF_TSC,
	MF_L1,
	MF_L2,
	MF_LLC,
	MF_KERNEL,
	MF_GLIBC,
	MF_MOVSB,
	MF_STOSB,
	MF_NT,
	MF_NOISE,
	MF_FP,
	MF_VERSION,
	MF_COUNT
};

static char *machine_value(const struct pb_results_file *r, enum mfield k)
{
	const struct pb_results_machine *m = &r->mach;
	switch (k) {
	case MF_CPU:
		return dup_or_null(m->brand);
	case MF_ID:
		if (m->family < 0)
			return NULL;
		return pb_xasprintf("%s family %lld model %lld stepping %lld",
		                    m->vendor ? m->vendor : "?", m->family, m->model, m->stepping);
	case MF_TSC: {
		/* a kernel file's cases are ticks at the module's tsc_khz
		 * (reader.h: the file's tsc_hz), not primbench's timer's */
		double khz = pb_facts_num(&r->facts, "kernel.tsc_khz");
		if (khz > 0 && m->tsc_hz > 0)
			return pb_xasprintf(
			    "%.6g GHz (the module's tsc_khz %.0f: the rate of the kernel "
			    "cases' ticks); primbench's timer %.6g GHz (%s); figures in "
			    "ticks are TSC ticks (reference cycles), not core cycles",
			    khz / 1e6, khz, m->tsc_hz / 1e9,
			    m->timer_clock ? m->timer_clock : "TSC");
		if (khz > 0)
			return pb_xasprintf(
			    "%.6g GHz (the module's tsc_khz %.0f: the rate of the kernel "
			    "cases' ticks); figures in ticks are TSC ticks (reference "
			    "cycles), not core cycles",
			    khz / 1e6, khz);
		if (!(m->tsc_hz > 0))
			return NULL;
		return pb_xasprintf("%.6g GHz (%s): figures in ticks are TSC ticks (reference "
		                    "cycles), not core cycles",
		                    m->tsc_hz / 1e9, m->timer_clock ? m->timer_clock : "TSC");
	}
	case MF_L1:
	case MF_L2:
	case MF_LLC: {
		if (!m->has_caches)
			return NULL;
		const struct pb_cache_level_info *l = &m->caches.level[k - MF_L1];
		char sz[48];
		pb_format_bytes(sz, sizeof sz, (double)l->size_bytes, PB_BYTES_IEC);
		return pb_xasprintf("%s (from %s)%s%s", sz, pb_cache_source_name(l->source),
		                    l->note[0] ? "; " : "", l->note);
	}
	case MF_KERNEL:
		return m->kernel ? pb_xasprintf("%s%s%s", m->kernel, m->kernel_version ? " " : "",
		                                m->kernel_version ? m->kernel_version : "")
		                 : NULL;
	case MF_GLIBC:
		return dup_or_null(m->glibc_version);
	case MF_MOVSB:
		return bytes_or_null(m->glibc_rep_movsb);
	case MF_STOSB:
		return bytes_or_null(m->glibc_rep_stosb);
	case MF_NT:
		return bytes_or_null(m->glibc_non_temporal);
	case MF_NOISE: {
		if (!r->has_noise)
			return NULL;
		/* the run's judgement, or for an older file the summary's
		 * rule (pb_summary_noise_high); each figure only when recorded */
		double steal = r->noise_steal_pct, busy = r->noise_other_cpus_busy_pct;
		bool high = pb_summary_noise_high(r);
		char *t =
		    pb_xasprintf("%s%s%s%s", high ? "high" : "low",
		                 r->noise_judged ? ""
		                                 : " (judged by report: the file predates "
		                                   "the run's own judgement)",
		                 r->noise_cause ? ": " : "", r->noise_cause ? r->noise_cause : "");
		char *x;
		if (!isnan(steal)) {
			x = pb_xasprintf("%s; steal %.2g%% of CPU time", t, steal);
			free(t);
			t = x;
		}
		if (!isnan(busy)) {
			x = pb_xasprintf("%s; the other CPUs %.3g%% busy", t, busy);
			free(t);
			t = x;
		}
		if (r->noise_involuntary_switches > 0) {
			x = pb_xasprintf("%s; %lld involuntary context switches of the measuring "
			                 "thread",
			                 t, r->noise_involuntary_switches);
			free(t);
			t = x;
		}
		return t;
	}
	case MF_FP:
		return dup_or_null(m->fingerprint_hash);
	case MF_VERSION:
		return r->primbench_version
		           ? pb_xasprintf("%s%s%s", r->primbench_version,
		                          r->primbench_arch ? " " : "",
		                          r->primbench_arch ? r->primbench_arch : "")
		           : NULL;
	default:
		return NULL;
	}
}

static void machine(FILE *f, const struct pb_html_page *p)
{
	static const char *const names[MF_COUNT] = {
	    "CPU",
	    "vendor and model",
	    "TSC",
	    "L1d",
	    "L2",
	    "LLC",
	    "kernel",
	    "glibc",
	    "glibc rep_movsb_threshold",
	    "glibc rep_stosb_threshold",
	    "glibc non_temporal_threshold",
	    "noise during the run",
	    "fingerprint",
	    "primbench",
	};
	fputs("<section id=\"machine\">\n<h2>Machine</h2>\n", f);
	fputs("<p>What each file says about the machine it ran on. A cache size is the figure "
	      "primbench used, with its source; a guest's reported sizes need not be the "
	      "real ones (docs/methodology.md, \"Cache states\").</p>\n",
	      f);
	fputs("<div class=\"scroll\">\n<table class=\"pb-table\" id=\"machine-table\">\n"
	      "<caption>machine, per file</caption>\n<thead><tr><th scope=\"col\">field</th>",
	      f);
	for (size_t i = 0; i < p->n; i++) {
		fputs("<th scope=\"col\">", f);
		pb_html_text(f, p->in[i].label);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	char **values = pb_xcalloc(p->n + 1, sizeof *values);
	for (int k = 0; k < MF_COUNT; k++) {
		for (size_t i = 0; i < p->n; i++)
			values[i] = machine_value(p->in[i].file, (enum mfield)k);
		machine_row(f, names[k], values, p->n);
		for (size_t i = 0; i < p->n; i++)
			free(values[i]);
	}
	free(values);
	fputs("</tbody>\n</table>\n</div>\n</section>\n", f);
}

/* One <th scope="col"> per name. */
static void head_cells(FILE *f, const char *const *names, size_t n)
{
	fputs("<thead><tr>", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<th scope=\"col\">", f);
		pb_html_text(f, names[i]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
}

/* A cell of text (th: the row's header), "-" for NULL; num: class="num". */
static void text_cell(FILE *f, const char *s, bool th, bool num)
{
	fputs(th ? "<th scope=\"row\">" : num ? "<td class=\"num\">" : "<td>", f);
	pb_html_text(f, s ? s : "-");
	fputs(th ? "</th>" : "</td>", f);
}

static void field_cell(FILE *f, const struct pb_key *k, const char *name, bool num)
{
	const struct pb_field *v = pb_field_get(k, name);
	char *t = v && v->kind != PB_FIELD_NULL ? pb_field_text(v) : NULL;
	text_cell(f, t, false, num);
	free(t);
}

static void number_cell(FILE *f, double v, const char *fmt)
{
	char buf[48];
	if (isfinite(v))
		snprintf(buf, sizeof buf, fmt, v);
	text_cell(f, isfinite(v) ? buf : NULL, false, true);
}

/* A kernel file's module (docs/results-schema.md "A `kernel` case"): its
 * INFO, the correctness checks, the break-even entries. */
static void kernel_file(FILE *f, const struct pb_results_file *r, size_t fi)
{
	const struct pb_facts *d = &r->facts;
	fprintf(f,
	        "<div class=\"scroll\">\n<table class=\"pb-table\" id=\"kernel-f%zu-module\">\n"
	        "<caption>the module</caption>\n",
	        fi + 1);
	static const char *const mh[] = {"field", "value"};
	head_cells(f, mh, 2);
	static const char *const fields[][2] = {
	    {"device", "kernel.device"},
	    {"module version", "kernel.module_version"},
	    {"ABI version", "kernel.abi_version"},
	    {"kernel release", "kernel.release"},
	    {"tsc_khz (the rate of the kernel cases' ticks)", "kernel.tsc_khz"},
	    {"overhead (ticks, the least empty batch)", "kernel.overhead_ticks"},
	};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const struct pb_field *v = pb_facts_get(d, fields[i][1]);
		char *t = v ? pb_field_text(v) : NULL;
		fputs("<tr>", f);
		text_cell(f, fields[i][0], true, false);
		text_cell(f, t, false, false);
		fputs("</tr>\n", f);
		free(t);
	}
	size_t nv;
	struct pb_key *vars = pb_facts_objects(d, "kernel.variants", &nv);
	size_t avail = 0;
	for (size_t i = 0; i < nv; i++)
		avail += pb_field_true(&vars[i], "available");
	char *t = pb_xasprintf("%zu, %zu of them available here", nv, avail);
	fputs("<tr>", f);
	text_cell(f, "variants", true, false);
	text_cell(f, t, false, false);
	fputs("</tr>\n</tbody>\n</table>\n", f);
	free(t);
	pb_keys_free(vars, nv);

	size_t nc;
	struct pb_key *checks = pb_facts_objects(d, "kernel.checks", &nc);
	if (nc) {
		fprintf(
		    f,
		    "<table class=\"pb-table\" id=\"kernel-f%zu-checks\">\n<caption>correctness "
		    "checks (before any timing)</caption>\n",
		    fi + 1);
		static const char *const ch[] = {"variant",    "op",     "page_bytes",
		                                 "size_bytes", "result", "bad_offset_bytes"};
		head_cells(f, ch, 6);
		for (size_t i = 0; i < nc; i++) {
			fputs("<tr>", f);
			text_cell(f, pb_field_str(&checks[i], "variant"), true, false);
			field_cell(f, &checks[i], "op", false);
			field_cell(f, &checks[i], "page_bytes", true);
			field_cell(f, &checks[i], "size_bytes", true);
			field_cell(f, &checks[i], "result", false);
			field_cell(f, &checks[i], "bad_offset_bytes", true);
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
	}
	pb_keys_free(checks, nc);

	size_t nb;
	struct pb_key *be = pb_facts_objects(d, "kernel.breakeven", &nb);
	if (nb) {
		double ns = r->tsc_hz > 0 ? 1e9 / r->tsc_hz : NAN;
		fprintf(
		    f,
		    "<table class=\"pb-table\" id=\"kernel-f%zu-breakeven\">\n<caption>break-even "
		    "of SIMD inside kernel_fpu_begin/end (4 KiB pages, hot)</caption>\n",
		    fi + 1);
		static const char *const bh[] = {"op",
		                                 "upper state",
		                                 "SIMD variant",
		                                 "rep variant",
		                                 "round trip ticks",
		                                 "round trip ns",
		                                 "SIMD ticks per page",
		                                 "rep ticks per page",
		                                 "pages",
		                                 "bytes"};
		head_cells(f, bh, 10);
		for (size_t i = 0; i < nb; i++) {
			const struct pb_key *e = &be[i];
			double rt = pb_field_num(e, "roundtrip_ticks");
			fputs("<tr>", f);
			text_cell(f, pb_field_str(e, "op"), true, false);
			field_cell(f, e, "upper_state", false);
			field_cell(f, e, "simd_variant", false);
			field_cell(f, e, "rep_variant", false);
			number_cell(f, rt, "%.4g");
			number_cell(f, rt * ns, "%.4g");
			number_cell(f, pb_field_num(e, "simd_ticks_per_page"), "%.4g");
			number_cell(f, pb_field_num(e, "rep_ticks_per_page"), "%.4g");
			long long pages;
			if (pb_field_int(e, "pages", &pages)) {
				field_cell(f, e, "pages", true);
				field_cell(f, e, "bytes", true);
			} else {
				text_cell(f, "never", false, true);
				text_cell(f, "never", false, true);
			}
			fputs("</tr>\n", f);
		}
		fputs("</tbody>\n</table>\n", f);
		fputs("<p>A system call that clears (copies) n pages with SIMD pays one save and "
		      "restore of its task's state (the round trip: ioctl_fpu - ioctl_null, timed "
		      "from user space) plus n times the SIMD per-page figure; pages is the "
		      "smallest n for which that beats the fastest variant without the FPU "
		      "(never: SIMD is not faster per page).</p>\n",
		      f);
	}
	pb_keys_free(be, nb);
	fputs("</div>\n", f);
}

/* The kernel section, when some file is a `primbench kernel` file (its
 * "kernel" object). */
static void kernel_section(FILE *f, const struct pb_html_page *p)
{
	bool any = false;
	for (size_t i = 0; i < p->n; i++)
		any |= pb_facts_is_object(&p->in[i].file->facts, "kernel");
	if (!any)
		return;
	fputs("<section id=\"kernel\">\n<h2>Kernel module</h2>\n", f);
	fputs("<p>The figures of primbench's kernel module (docs/kernel.md): TSC ticks read in "
	      "the kernel, at the module's tsc_khz (the kernel's own calibration), which is "
	      "the rate their ns and GB/s use.</p>\n",
	      f);
	for (size_t i = 0; i < p->n; i++) {
		const struct pb_results_file *r = p->in[i].file;
		if (!pb_facts_is_object(&r->facts, "kernel"))
			continue;
		if (p->n > 1) {
			fputs("<h3>", f);
			pb_html_text(f, p->in[i].label);
			fputs("</h3>\n", f);
		}
		kernel_file(f, r, i);
	}
	fputs("</section>\n", f);
}

static void figures(FILE *f, const struct pb_html_page *p)
{
	fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", f);
	if (p->figures_note) {
		fputs("<p class=\"note\">", f);
		pb_html_text(f, p->figures_note);
		fputs("</p>\n", f);
	}
	if (p->nfigs == 0)
		fputs("<p>No figure: these results have no case that a figure draws (mem, "
		      "latency, map and cmd cases are drawn).</p>\n",
		      f);
	for (size_t i = 0; i < p->nfigs; i++) {
		const struct pb_html_figure *g = &p->figs[i];
		fprintf(f, "<figure class=\"pb-figure\" id=\"fig-%zu\">\n<h3>Figure %zu: ", i + 1,
		        i + 1);
		pb_html_text(f, g->title);
		fputs("</h3>\n", f);
		if (g->svg) {
			/* the picture's own size (gnuplot's viewBox), so that
			 * the page lays out before it is drawn and scales it
			 * down, never up */
			double w = 0, h = 0;
			const char *vb = strstr(g->svg, "viewBox=\"");
			if (vb && sscanf(vb, "viewBox=\"%*f %*f %lf %lf", &w, &h) == 2 && w >= 1 &&
			    h >= 1 && w < 1e5 && h < 1e5)
				fprintf(f, "<img width=\"%.0f\" height=\"%.0f\" alt=\"", w, h);
			else
				fputs("<img alt=\"", f);
			pb_html_text(f, g->alt);
			fputs("\" src=\"data:image/svg+xml;base64,", f);
			base64(f, (const unsigned char *)g->svg, g->svg_len);
			fputs("\" />\n", f);
		}
		fputs("<figcaption>", f);
		if (!g->svg)
			fputs("Not drawn. ", f);
		pb_html_text(f, g->alt);
		if (g->note) {
			size_t l = strlen(g->note);
			fputc(' ', f);
			pb_html_text(f, g->note);
			if (l && g->note[l - 1] != '.')
				fputc('.', f);
		}
		fputs(" The figures are in the tables below.</figcaption>\n</figure>\n", f);
	}
	fputs("</section>\n", f);
}

static int tables(FILE *f, const struct pb_html_page *p)
{
	fputs("<section id=\"tables\">\n<h2>Tables</h2>\n", f);
	fputs("<p>Every case with samples: n, the median per call (or run, op, page) in the "
	      "case's unit and its 95% CI; for mem cases the median's ns/call and GB/s. Ticks "
	      "are TSC ticks (reference cycles).</p>\n",
	      f);
	for (size_t i = 0; i < p->n; i++) {
		const struct pb_results_file *r = p->in[i].file;
		if (p->n > 1) {
			fputs("<h3>", f);
			pb_html_text(f, p->in[i].label);
			fputs("</h3>\n", f);
		}
		char prefix[32];
		snprintf(prefix, sizeof prefix, "f%zu-", i + 1);
		fputs("<div class=\"scroll\">\n", f);
		if (pb_format_html_tables(f, r, prefix) != 0)
			return -1;
		fputs("</div>\n", f);
		if (r->nnotes) {
			fputs("<p>Notes of the run:</p>\n<ul class=\"pb-notes\">\n", f);
			for (size_t j = 0; j < r->nnotes; j++) {
				fputs("<li>", f);
				pb_html_text(f, r->notes[j]);
				fputs("</li>\n", f);
			}
			fputs("</ul>\n", f);
		}
	}
	fputs("</section>\n", f);
	return 0;
}

static void footer(FILE *f, const struct pb_html_page *p)
{
	fputs("<footer>\n<p class=\"note\">Written by ", f);
	pb_html_text(f, p->generator ? p->generator : "primbench");
	fputs(" (docs/formats.md, \"HTML\")", f);
	if (p->command_line) {
		fputs(": <code>", f);
		pb_html_text(f, p->command_line);
		fputs("</code>", f);
	}
	fputs(".</p>\n</footer>\n</body>\n</html>\n", f);
}

int pb_html_write(FILE *f, const struct pb_html_page *p)
{
	if (p->n == 0)
		return pb_fail("no result file");
	head(f, p);
	header(f, p);
	fputs("<main>\n", f);
	if (summary(f, p) != 0)
		return -1;
	comparison(f, p);
	machine(f, p);
	kernel_section(f, p);
	figures(f, p);
	if (tables(f, p) != 0)
		return -1;
	fputs("</main>\n", f);
	footer(f, p);
	return 0;
}
