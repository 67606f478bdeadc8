/* html_report.c - the HTML page of result files (cli/html_report.h). */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "cli/html_report.h"
#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/html.h"
#include "primbench/plot.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/twosample.h"
#include "primbench/xalloc.h"

/* The build's version as result files record it (CMakeLists.txt sets it:
 * git describe; the release's number outside a checkout). */
#ifndef PB_GIT_DESCRIBE
#define PB_GIT_DESCRIBE PB_VERSION_STRING
#endif

char *cli_html_path_of(const char *json_path)
{
	size_t l = strlen(json_path);
	if (l > 5 && !strcmp(json_path + l - 5, ".json"))
		return pb_xasprintf("%.*s.html", (int)(l - 5), json_path);
	return pb_xasprintf("%s.html", json_path);
}

/* "dir/name.json" -> "name". */
static char *label_of(const char *path)
{
	char *copy = pb_xstrdup(path);
	char *b = pb_xstrdup(basename(copy));
	free(copy);
	size_t l = strlen(b);
	if (l > 5 && !strcmp(b + l - 5, ".json"))
		b[l - 5] = '\0';
	return b;
}

/* The figures being collected. */
struct figs {
	struct pb_html_figure *v;
	size_t n, cap;
	char *note; /* what the page says about them; malloc'd */
};

static void note_add(struct figs *g, const char *text)
{
	char *t = pb_xasprintf("%s%s%s", g->note ? g->note : "", g->note ? " " : "", text);
	free(g->note);
	g->note = t;
}

/* Every panel of in[0..n) as a figure; gnuplot NULL: listed, not drawn.
 * prefix: the label that titles start with, or NULL. */
static void draw_group(struct figs *g, const char *gnuplot, const struct pb_plot_input *in,
                       size_t n, const char *prefix)
{
	struct pb_plot_panel *panels;
	size_t np;
	if (pb_plot_panels(in, n, PB_UNIT_GB_S, &panels, &np) != 0) {
		note_add(g, pb_error());
		return;
	}
	for (size_t k = 0; k < np; k++) {
		struct pb_plot_opts po = {.unit = PB_UNIT_GB_S, .panel = k + 1, .bands = true};
		char *svg = NULL, why[400] = "";
		size_t len = 0;
		if (gnuplot &&
		    cli_gnuplot_draw(gnuplot, in, n, &po, ".svg", &svg, &len, why, sizeof why) != 0)
			svg = NULL;
		if (g->n == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 8;
			g->v = pb_xrealloc(g->v, g->cap * sizeof *g->v);
		}
		/* a file drawn alone among several: named in the title */
		char *title = prefix ? pb_xasprintf("%s: %s", prefix, panels[k].title)
		                     : pb_xstrdup(panels[k].title);
		char *alt = panels[k].alt;
		g->v[g->n++] = (struct pb_html_figure){
		    .title = title,
		    .alt = alt,
		    .svg = svg,
		    .svg_len = len,
		    .note = why[0] ? pb_xstrdup(why) : NULL,
		};
		panels[k].alt = NULL;
	}
	pb_plot_panels_free(panels, np);
}

/* The figures of every file: the files that one plot can hold together
 * (before/after of one kind) drawn together, in groups. */
static void draw_all(struct figs *g, const struct pb_plot_input *in, size_t n)
{
	char path[PATH_MAX];
	const char *gnuplot = cli_gnuplot_find(path, sizeof path) == 0 ? path : NULL;
	if (!gnuplot) {
		const char *env = getenv("PRIMBENCH_GNUPLOT");
		char *t = env && *env
		              ? pb_xasprintf("PRIMBENCH_GNUPLOT '%s' is not an executable "
		                             "program: the figures are listed but not drawn.",
		                             env)
		              : pb_xstrdup("gnuplot was not found (install the Debian package "
		                           "gnuplot-nox, or set PRIMBENCH_GNUPLOT): the "
		                           "figures are listed but not drawn.");
		note_add(g, t);
		free(t);
	}
	/* groups of files one plot can hold (of one kind; cmd files on one
	 * metric), each file in the first group it fits, in file order */
	struct pb_plot_input *grp = pb_xcalloc(n, sizeof *grp);
	bool *done = pb_xcalloc(n, sizeof *done);
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		done[i] = true;
		if (pb_plot_check(&in[i], 1) != 0) {
			/* nothing to draw: said by its note below, or here */
			char *why = pb_plot_note(in[i].file);
			if (!why) {
				char *t =
				    pb_xasprintf("%s: not drawn: %s.", in[i].label, pb_error());
				note_add(g, t);
				free(t);
			}
			free(why);
			continue;
		}
		size_t k = 0;
		grp[k++] = in[i];
		for (size_t j = i + 1; j < n; j++) {
			if (done[j])
				continue;
			grp[k] = in[j];
			if (pb_plot_check(grp, k + 1) == 0) {
				done[j] = true;
				k++;
			}
		}
		/* a group that is not every file: its titles name its files */
		char *prefix = NULL;
		if (k < n) {
			prefix = pb_xstrdup("");
			for (size_t j = 0; j < k; j++) {
				char *t =
				    pb_xasprintf("%s%s%s", prefix, j ? ", " : "", grp[j].label);
				free(prefix);
				prefix = t;
			}
		}
		draw_group(g, gnuplot, grp, k, prefix);
		free(prefix);
	}
	free(grp);
	free(done);
	for (size_t i = 0; i < n; i++) {
		char *why = pb_plot_note(in[i].file);
		if (why) {
			char *t = pb_xasprintf("%s.", why);
			note_add(g, t);
			free(t);
		}
		free(why);
	}
}

static void figs_free(struct figs *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free((char *)g->v[i].title);
		free((char *)g->v[i].alt);
		free((char *)g->v[i].svg);
		free((char *)g->v[i].note);
	}
	free(g->v);
	free(g->note);
}

/* The command line as one string (the footer's). */
static char *command_text(void)
{
	char *t = pb_xstrdup("primbench");
	for (int i = 1; i < cli_argc; i++) {
		char *x = pb_xasprintf("%s %s", t, cli_argv[i]);
		free(t);
		t = x;
	}
	return t;
}

int cli_html_report(const char *out, char *const *paths, size_t n, const char *const *labels,
                    size_t nlabels)
{
	struct pb_results_file *files = pb_xcalloc(n, sizeof *files);
	struct pb_plot_input *in = pb_xcalloc(n, sizeof *in);
	char **own = pb_xcalloc(n, sizeof *own);
	struct pb_compare_result *cmp = pb_xcalloc(n, sizeof *cmp);
	struct figs g = {0};
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = pb_results_load(paths[i], &files[i]);
	if (rc == 0 && pb_results_name(files, n) != 0)
		rc = -1;
	/* a file's own margin (the default run's --equivalence) */
	if (rc == 0 && files[0].has_equivalence &&
	    (isnan(files[0].equivalence) || pb_equivalence_set(files[0].equivalence) != 0))
		rc = pb_fail("%s: equivalence: not a fraction in [0, 0.5)", files[0].path);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		own[i] = i < nlabels && labels[i] ? NULL : label_of(paths[i]);
		in[i] = (struct pb_plot_input){i < nlabels && labels[i] ? labels[i] : own[i],
		                               &files[i]};
	}
	for (size_t i = 1; rc == 0 && i < n; i++) {
		if (pb_compare_run(&files[0], &files[i], 0.95, true, &cmp[i - 1]) != 0)
			rc = -1;
		else
			pb_compare_set_margin(&cmp[i - 1], pb_equivalence());
	}
	char *text = NULL, *cmdline = NULL;
	size_t len = 0;
	if (rc == 0) {
		draw_all(&g, in, n);
		/* figures not drawn: the page says why, and so does a warning */
		size_t undrawn = 0;
		const char *why = NULL;
		for (size_t i = 0; i < g.n; i++)
			if (!g.v[i].svg) {
				undrawn++;
				why = why ? why : g.v[i].note;
			}
		if (undrawn)
			warn("report: %zu of %zu figure%s not drawn: %s", undrawn, g.n,
			     g.n == 1 ? "" : "s",
			     why      ? why
			     : g.note ? g.note
			              : "see the page");
		cmdline = command_text();
		struct pb_html_page page = {
		    .in = in,
		    .n = n,
		    .figs = g.v,
		    .nfigs = g.n,
		    .figures_note = g.note,
		    .cmp = cmp,
		    .ncmp = n - 1,
		    .command_line = cmdline,
		    .generator = "primbench " PB_GIT_DESCRIBE,
		};
		FILE *m = open_memstream(&text, &len);
		if (!m)
			rc = pb_fail("out of memory");
		else {
			rc = pb_html_write(m, &page);
			if (fclose(m) != 0 && rc == 0)
				rc = pb_fail("out of memory");
		}
	}
	if (rc == 0)
		rc = pb_write_file_whole(out, text, len);
	free(text);
	free(cmdline);
	figs_free(&g);
	for (size_t i = 0; i + 1 < n; i++)
		pb_compare_result_free(&cmp[i]);
	for (size_t i = 0; i < n; i++) {
		pb_results_file_free(&files[i]);
		free(own[i]);
	}
	free(cmp);
	free(own);
	free(in);
	free(files);
	return rc;
}
