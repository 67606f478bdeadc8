/* cmd_plot.c - `primbench plot`: result files drawn by gnuplot
 * (include/primbench/plot.h writes the script; this file runs it). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/gnuplot.h"
#include "primbench/error.h"
#include "primbench/plot.h"
#include "primbench/reader.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/text.h"

extern char **environ;

static void usage(FILE *f)
{
	fputs("usage: primbench plot RESULT.json [MORE.json...] -o FILE.svg|FILE.png\n"
	      "                      [OPTIONS]\n\n"
	      "Draws result files with gnuplot (Debian package gnuplot-nox).\n"
	      "mem: the median per kernel against bytes per call (log axis), one panel\n"
	      "per op and cache state, with its 95% CI; the L1d, L2 and LLC sizes as\n"
	      "dotted lines labelled with their source; break-even points as arrows;\n"
	      "an alignment grid (--dst-offset LIST) as a heat map. Cases run on N\n"
	      "threads (key threads > 1): those panels keep to 1 thread, and a scaling\n"
	      "panel per op, state and size draws the aggregate GB/s against threads\n"
	      "per kernel, with the ideal N x 1 thread dashed. cmd: every run of\n"
	      "each side as a dot, the median as a bar, in the figure the A/B verdict\n"
	      "is on (cmd --metric: real, user, sys or user+sys time); the title names\n"
	      "each side by what sets it apart (the command's differing part, or its\n"
	      "own environment: 'B: make (GLIBC_TUNABLES=...)') and gives the B/A\n"
	      "ratio and verdict on that figure.\n"
	      "mem --distribution replays: a bar per kernel, ns/call, x libc above.\n"
	      "kernel clear_page: a bar per variant, a panel per page size and state\n"
	      "(ticks/call draws ticks per 4 KiB page), beside mem's panels.\n"
	      "latency: ns/load against the working set (log axes), a line per file\n"
	      "and page size, the cache sizes marked; loaded latency: ns/load against\n"
	      "the load's GB/s. mem map: GB/s per page size against threads (bars\n"
	      "when all ran on one thread count).\n"
	      "Other suites (syscall, xsave) are left out, with a note.\n"
	      "Several files share one plot (one dash style per file): before/after.\n\n"
	      "  -o, --output FILE   the picture; .svg or .png (written whole)\n"
	      "  --unit U            mem: GB/s (default), ns/call, ticks/call,\n"
	      "                      ticks/page, bytes/tick (scaling panels: bytes/tick\n"
	      "                      or else GB/s)\n"
	      "  --title TEXT        the title (default: the file names and the CPU)\n"
	      "  --label NAME        legend name of each file, in order (repeatable;\n"
	      "                      default: the file name without .json)\n"
	      "  --script-only DIR   write the gnuplot script and its data into DIR\n"
	      "                      (created); run nothing, gnuplot not needed\n\n"
	      "environment: PRIMBENCH_GNUPLOT names the gnuplot program (default:\n"
	      "gnuplot on PATH).\n"
	      "example:\n"
	      "  primbench mem memset --sizes 64..64M/2 --cache hot,dram -o a.json\n"
	      "  primbench plot a.json -o a.png\n"
	      "exit status: 0 ok; 2 bad usage, an unreadable or unsuitable result\n"
	      "file, gnuplot missing or failing.\n",
	      f);
}

/* "dir/name.json" -> "name". */
static char *default_label(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		die_usage("out of memory");
	char *b = strdup(basename(copy));
	free(copy);
	if (!b)
		die_usage("out of memory");
	size_t l = strlen(b);
	if (l > 5 && !strcmp(b + l - 5, ".json"))
		b[l - 5] = '\0';
	return b;
}

/* --script-only DIR: the gnuplot script and its data in DIR, naming the
 * picture by an absolute path so that running it in DIR writes where -o
 * said. Exits 2 on failure. */
static void write_script(const struct pb_plot_input *in, size_t n, struct pb_plot_opts *po,
                         const char *output, const char *script_dir)
{
	if (mkdir(script_dir, 0777) != 0 && errno != EEXIST)
		die_usage("plot: cannot make '%s': %s", script_dir, strerror(errno));
	char abs[PATH_MAX * 2];
	char cwd[PATH_MAX];
	if (output[0] != '/' && getcwd(cwd, sizeof cwd))
		snprintf(abs, sizeof abs, "%s/%s", cwd, output);
	else
		snprintf(abs, sizeof abs, "%s", output);
	po->output = abs;
	if (pb_plot_write(in, n, po, script_dir) != 0)
		die_usage("plot: %s", pb_error());
	printf("script: %s/%s (run: cd %s && gnuplot %s)\n", script_dir, PB_PLOT_SCRIPT, script_dir,
	       PB_PLOT_SCRIPT);
}

/* Draws the picture with gnuplot in a temporary directory and puts it,
 * whole, at output. Returns the exit status (the error printed). */
static int render(const char *gnuplot, const struct pb_plot_input *in, size_t n,
                  struct pb_plot_opts *po, const char *output)
{
	char why[400] = "";
	char *data = NULL;
	size_t len = 0;
	int status = PB_EXIT_OK;
	if (cli_gnuplot_draw(gnuplot, in, n, po, output + strlen(output) - 4, &data, &len, why,
	                     sizeof why) != 0)
		status = PB_EXIT_USAGE;
	else if (pb_write_file_whole(output, data, len) != 0) {
		snprintf(why, sizeof why, "%s", pb_error());
		status = PB_EXIT_USAGE;
	}
	free(data);
	if (status != PB_EXIT_OK)
		cli_error("%s", why);
	else
		printf("plot: %s\n", output);
	return status;
}

/* What the picture leaves out, per file. */
static void print_notes(const struct pb_results_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *note = pb_plot_note(&files[i]);
		if (note) {
			char *line = NULL;
			if (asprintf(&line, "note: %s", note) > 0)
				pb_print_wrapped_at(stdout, 0, 6, line);
			free(line);
		}
		free(note);
	}
}

/* The command line of plot. */
struct plot_args {
	const char *output, *script_dir;
	struct pb_plot_opts po;
	const char **labels;
	size_t nlabels;
};

/* One of plot's own options into a (struct plot_args). */
static bool plot_option(int c, const char *arg, void *ctx)
{
	struct plot_args *a = ctx;
	switch (c) {
	case 'u':
		if (pb_unit_parse(arg, &a->po.unit) != 0)
			die_usage("plot: %s", pb_error());
		return true;
	case 'l':
		a->labels[a->nlabels++] = arg;
		return true;
	case 's':
		if (!*arg)
			die_usage("plot: empty directory in '--script-only'");
		a->script_dir = arg;
		return true;
	default:
		return false;
	}
}

/* Parses argv into a (optind left at the first file). Returns false after
 * --help; exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct plot_args *a)
{
	static const struct option opts[] = {
	    CLI_OUTPUT_OPTION,
	    {"unit", required_argument, NULL, 'u'},
	    {"title", required_argument, NULL, 't'},
	    {"label", required_argument, NULL, 'l'},
	    {"script-only", required_argument, NULL, 's'},
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	*a = (struct plot_args){.po = {.unit = PB_UNIT_GB_S}};
	a->labels = calloc((size_t)argc + 1, sizeof *a->labels);
	if (!a->labels)
		die_usage("out of memory");
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG('t', struct plot_args, po.title),
	    {0},
	};
	const struct cli_common common = {.out_path = &a->output, .stores = stores};
	if (!cli_parse_options("plot", argc, argv, ":o:h", opts, plot_option, a, &common, usage)) {
		free(a->labels);
		return false;
	}
	return true;
}

/* The operands and -o against each other; reserves -o. */
static void check_args(struct plot_args *a, size_t n)
{
	if (n == 0)
		die_usage("plot: no result file (try 'primbench plot --help')");
	if (!a->output && !a->script_dir)
		die_usage("plot: no output: give -o FILE.svg or -o FILE.png");
	if (a->nlabels > n)
		die_usage("plot: %zu --label for %zu file%s", a->nlabels, n, pb_plural(n));
	if (!a->output)
		a->output = "primbench.svg";
	size_t olen = strlen(a->output);
	if (olen < 5 ||
	    (strcmp(a->output + olen - 4, ".svg") && strcmp(a->output + olen - 4, ".png")))
		die_usage("plot: output '%s' must end in .svg or .png", a->output);
	cli_parse_done();
	if (!a->script_dir && pb_output_reserve(a->output) != 0)
		die_usage("plot: %s", pb_error());
}

/* The gnuplot to run, into path; exits 2 when there is none. */
static void need_gnuplot(char *path, size_t len)
{
	if (cli_gnuplot_find(path, len) == 0)
		return;
	const char *env = getenv("PRIMBENCH_GNUPLOT");
	if (env && *env)
		die_usage("plot: PRIMBENCH_GNUPLOT '%s' is not an executable program", env);
	die_usage("plot: gnuplot not found on PATH (install the Debian package "
	          "gnuplot-nox, or set PRIMBENCH_GNUPLOT)");
}

int cmd_plot(int argc, char **argv)
{
	struct plot_args a;
	if (!parse_options(argc, argv, &a))
		return PB_EXIT_OK;
	size_t n = (size_t)(argc - optind);
	check_args(&a, n);

	struct pb_results_file *files = calloc(n, sizeof *files);
	struct pb_plot_input *in = calloc(n, sizeof *in);
	char **own = calloc(n, sizeof *own);
	if (!files || !in || !own)
		die_usage("out of memory");
	for (size_t i = 0; i < n; i++) {
		if (pb_results_load(argv[optind + (int)i], &files[i]) != 0)
			die_usage("plot: %s", pb_error());
		own[i] = i < a.nlabels ? NULL : default_label(argv[optind + (int)i]);
		in[i] = (struct pb_plot_input){i < a.nlabels ? a.labels[i] : own[i], &files[i]};
	}

	/* Bad input before a missing gnuplot; named by path. */
	struct pb_plot_input *byname = calloc(n, sizeof *byname);
	if (!byname)
		die_usage("out of memory");
	for (size_t i = 0; i < n; i++)
		byname[i] = (struct pb_plot_input){argv[optind + (int)i], &files[i]};
	int checked = pb_plot_check(byname, n);
	free(byname);
	if (checked != 0)
		die_usage("plot: %s", pb_error());
	char gnuplot[PATH_MAX];
	if (!a.script_dir)
		need_gnuplot(gnuplot, sizeof gnuplot);

	int status = PB_EXIT_OK;
	if (a.script_dir)
		write_script(in, n, &a.po, a.output, a.script_dir);
	else
		status = render(gnuplot, in, n, &a.po, a.output);
	if (status == PB_EXIT_OK)
		print_notes(files, n);
	for (size_t i = 0; i < n; i++) {
		pb_results_file_free(&files[i]);
		free(own[i]);
	}
	free(files);
	free(in);
	free(own);
	free(a.labels);
	return status;
}
