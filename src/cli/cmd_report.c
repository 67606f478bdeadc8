/* cmd_report.c - `primbench report RESULT.json [-f FORMAT] [-o FILE]`: a
 * result file in another format (include/primbench/format.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/html_report.h"
#include "primbench/by_machine.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/summary.h"
#include "primbench/twosample.h"

static void usage(FILE *f)
{
	fputs("usage: primbench report RESULT.json [OPTIONS]\n"
	      "       primbench report --html PAGE.html RESULT.json [MORE.json...]\n"
	      "       primbench report --by-machine RESULT.json... [--figures LIST]\n"
	      "\n"
	      "Prints a result file (from -o of mem, syscall, xsave, cmd or the default\n"
	      "run) in another format: every case with samples, its key, its median\n"
	      "per call and the median's 95% CI, in the case's unit; for a default\n"
	      "run's file, as text, then the run's summary (what it found).\n"
	      "\n"
	      "  -f, --format F      text (default: aligned tables, 80 columns), json,\n"
	      "                      csv (one row per case and statistic), markdown,\n"
	      "                      benchfmt (Go's benchmark format: benchstat reads\n"
	      "                      it; ticks also as ns/op, mem also as MB/s);\n"
	      "                      for CI trackers, one figure per case (the median,\n"
	      "                      ns per call, with its 95% CI as bounds): bmf\n"
	      "                      (Bencher: bencher run --adapter json), gbench\n"
	      "                      (Google Benchmark's JSON: github-action-benchmark\n"
	      "                      tool googlecpp, Bencher cpp_google), action\n"
	      "                      (github-action-benchmark customSmallerIsBetter)\n"
	      "  -o, --output FILE   write to FILE (whole: temporary file, then\n"
	      "                      rename) instead of standard output\n"
	      "  --html PAGE.html    one self-contained HTML page instead (no network\n"
	      "                      needed to open it): the summary, each file against\n"
	      "                      the first (change, interval, verdict), the\n"
	      "                      machine, a figure per panel of 'primbench plot'\n"
	      "                      (gnuplot's SVG, inline; CI bands) and the tables\n"
	      "  --label NAME        --html: the name of each file, in order\n"
	      "                      (repeatable; default: the file name without .json)\n"
	      "  --by-machine        one table across machines instead: a row per\n"
	      "                      machine (its fingerprint: CPU, kernel, glibc; its\n"
	      "                      files are its runs), a column per figure; -f text,\n"
	      "                      markdown or csv\n"
	      "  --figures LIST      --by-machine: the figures, by case key, ','\n"
	      "                      between them: mem/OP/STATE/SIZE[/KERNEL] (KERNEL\n"
	      "                      default: the fastest), syscall/BENCH[/PAGE] or\n"
	      "                      FIELD=VALUE[+FIELD=VALUE...]; '@ns' or '@gbs' after\n"
	      "                      one sets its unit (default: mem GB/s, else ns;\n"
	      "                      docs/formats.md). Default:\n"
	      "                      mem/memset/hot/4K,mem/memset/dram/32M,\n"
	      "                      syscall/null,syscall/fork,syscall/fault/4K\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Example: primbench report old.json -f benchfmt > old.txt &&\n"
	      "  primbench report new.json -f benchfmt > new.txt && benchstat old.txt\n"
	      "  new.txt\n"
	      "  primbench report run.json -f action -o bench.json\n"
	      "  primbench report --html page.html before.json after.json\n"
	      "  primbench report --by-machine results/*/*.json -f markdown\n",
	      f);
}

struct report_args {
	enum pb_format fmt;
	bool fmt_set;
	const char *html;
	const char **labels;
	size_t nlabels;
	bool by_machine;
	const char *figures;
};

/* --html, --label, --by-machine, --figures: long options only */
enum { OPT_HTML = 256, OPT_LABEL, OPT_BY_MACHINE, OPT_FIGURES };

static bool report_option(int opt, const char *arg, void *ctx)
{
	struct report_args *a = ctx;
	switch (opt) {
	case 'f':
		if (pb_format_parse(arg, &a->fmt) != 0)
			die_usage("report: %s", pb_error());
		a->fmt_set = true;
		return true;
	case OPT_HTML:
		if (!*arg)
			die_usage("report: empty file name in '--html'");
		a->html = arg;
		return true;
	case OPT_LABEL:
		a->labels[a->nlabels++] = arg;
		return true;
	case OPT_BY_MACHINE:
		a->by_machine = true;
		return true;
	case OPT_FIGURES:
		a->figures = arg;
		return true;
	default:
		return false;
	}
}

/* report --html: the page of argv[0..n). */
static int report_html(const struct report_args *a, const char *out, char **argv, size_t n)
{
	if (out || a->fmt_set)
		die_usage("report: --html writes a page of its own: -o and -f do not go with it");
	if (n == 0)
		die_usage("report: --html needs at least one result file (see --help)");
	if (a->nlabels > n)
		die_usage("report: %zu --label for %zu file%s", a->nlabels, n, n == 1 ? "" : "s");
	size_t l = strlen(a->html);
	if (!(l > 5 && !strcmp(a->html + l - 5, ".html")) &&
	    !(l > 4 && !strcmp(a->html + l - 4, ".htm")))
		die_usage("report: --html '%s': the page's name must end in .html or .htm",
		          a->html);
	cli_parse_done();
	if (pb_output_reserve(a->html) != 0)
		die_usage("report: %s", pb_error());
	cli_check_output_not_input("report", "--html", a->html, argv, n);
	if (cli_html_report(a->html, argv, n, a->labels, a->nlabels) != 0)
		die_usage("report: %s", pb_error());
	printf("report: %s\n", a->html);
	return PB_EXIT_OK;
}

/* report --by-machine: the table of argv[0..n). */
static int report_by_machine(const struct report_args *a, const char *out, char **argv, size_t n)
{
	if (a->html)
		die_usage("report: --by-machine and --html do not go together");
	if (a->nlabels)
		die_usage("report: --label names the files of --html");
	if (a->fmt != PB_FORMAT_TEXT && a->fmt != PB_FORMAT_MARKDOWN && a->fmt != PB_FORMAT_CSV)
		die_usage("report: --by-machine writes text, markdown or csv, not '%s'",
		          pb_format_name(a->fmt));
	struct pb_bm_figures figs;
	if (pb_bm_figures_parse(a->figures ? a->figures : PB_BM_DEFAULT_FIGURES, &figs) != 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", pb_error());
		pb_bm_figures_free(&figs);
		die_usage("report: --figures: %s", msg);
	}
	if (n == 0)
		die_usage("report: --by-machine needs at least one result file (see --help)");
	/* a file is one run: given twice (overlapping globs), it would
	 * count twice and narrow the interval */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			struct stat si, sj;
			if (stat(argv[i], &si) == 0 && stat(argv[j], &sj) == 0 &&
			    si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
				die_usage("report: --by-machine: %s is given twice (as %s): a run "
				          "counts once",
				          argv[i], argv[j]);
		}
	cli_parse_done();
	if (out && pb_output_reserve(out) != 0)
		die_usage("report: %s", pb_error());
	if (out)
		cli_check_output_not_input("report", "-o", out, argv, n);
	struct pb_results_file *files = calloc(n, sizeof *files);
	if (!files)
		die_usage("report: out of memory");
	for (size_t i = 0; i < n; i++)
		if (pb_results_load(argv[i], &files[i]) != 0) {
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", pb_error());
			for (size_t j = 0; j <= i; j++)
				pb_results_file_free(&files[j]);
			free(files);
			die_usage("report: %s", msg);
		}
	struct pb_bm_table t;
	char *text = NULL;
	size_t len = 0;
	int rc = pb_bm_build(files, n, &figs, &t);
	FILE *m = rc == 0 ? open_memstream(&text, &len) : NULL;
	if (rc == 0 && !m)
		rc = pb_fail("out of memory");
	if (rc == 0)
		rc = pb_bm_write(m, &t, a->fmt);
	if (m && fclose(m) != 0 && rc == 0)
		rc = pb_fail("out of memory");
	pb_bm_table_free(&t);
	pb_bm_figures_free(&figs);
	for (size_t i = 0; i < n; i++)
		pb_results_file_free(&files[i]);
	free(files);
	if (rc == 0 && out && pb_write_file_whole(out, text, len) != 0)
		rc = -1;
	if (rc != 0) {
		free(text);
		die_usage("report: %s", pb_error());
	}
	if (!out)
		fwrite(text, 1, len, stdout); /* a write error: main's finish() */
	free(text);
	return PB_EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_FORMAT_OPTION,
	    CLI_OUTPUT_OPTION,
	    {"html", required_argument, 0, OPT_HTML},
	    {"label", required_argument, 0, OPT_LABEL},
	    {"by-machine", no_argument, 0, OPT_BY_MACHINE},
	    {"figures", required_argument, 0, OPT_FIGURES},
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	struct report_args a = {.fmt = PB_FORMAT_TEXT};
	a.labels = calloc((size_t)argc + 1, sizeof *a.labels);
	if (!a.labels)
		die_usage("report: out of memory");
	const char *out = NULL;
	const struct cli_common common = {.out_path = &out};
	if (!cli_parse_options("report", argc, argv, ":hf:o:", opts, report_option, &a, &common,
	                       usage)) {
		free(a.labels);
		return PB_EXIT_OK;
	}
	if (a.by_machine) {
		int st = report_by_machine(&a, out, argv + optind, (size_t)(argc - optind));
		free(a.labels);
		return st;
	}
	if (a.figures)
		die_usage("report: --figures chooses the columns of --by-machine");
	if (a.html) {
		int st = report_html(&a, out, argv + optind, (size_t)(argc - optind));
		free(a.labels);
		return st;
	}
	if (a.nlabels)
		die_usage("report: --label names the files of --html");
	free(a.labels);
	enum pb_format fmt = a.fmt;
	if (argc - optind != 1)
		die_usage("report: needs one result file, got %d (see --help)", argc - optind);
	const char *in = argv[optind];
	cli_parse_done();
	if (out && pb_output_reserve(out) != 0)
		die_usage("report: %s", pb_error());
	if (out)
		cli_check_output_not_input("report", "-o", out, argv + optind, 1);
	struct pb_results_file file;
	if (pb_results_load(in, &file) != 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", pb_error());
		pb_results_file_free(&file);
		die_usage("report: %s", msg);
	}
	/* judged with the margin it was run with (a file before the margin
	 * was recorded: the default) */
	if (file.has_equivalence &&
	    (isnan(file.equivalence) || pb_equivalence_set(file.equivalence) != 0)) {
		pb_results_file_free(&file);
		die_usage("report: %s: equivalence: not a fraction in [0, 0.5)", in);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		die_usage("report: out of memory");
	int rc = pb_format_write(m, &file, fmt);
	/* A default run's file ends with its summary, rebuilt from the file. */
	if (rc == 0 && fmt == PB_FORMAT_TEXT && pb_summary_is_default_run(&file)) {
		struct pb_summary_report *sum = pb_summary_build(&file);
		if (sum)
			pb_summary_print(m, sum);
		else
			rc = -1; /* a saved summary that does not read: pb_error() says where */
		pb_summary_report_free(sum);
	}
	if (fclose(m) != 0 && rc == 0)
		rc = pb_fail("out of memory");
	pb_results_file_free(&file);
	if (rc != 0) {
		free(text);
		die_usage("report: %s", pb_error());
	}
	if (out) {
		if (pb_write_file_whole(out, text, len) != 0) {
			free(text);
			die_usage("report: %s", pb_error());
		}
	} else {
		/* a write error is reported once, by main's finish() */
		fwrite(text, 1, len, stdout);
	}
	free(text);
	return PB_EXIT_OK;
}
