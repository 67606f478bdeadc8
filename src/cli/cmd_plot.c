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

/* The gnuplot program: PRIMBENCH_GNUPLOT (a path, or a name looked up on
 * PATH), else "gnuplot" on PATH. Its path into buf, or -1. */
static int find_gnuplot(char *buf, size_t len)
{
	const char *want = getenv("PRIMBENCH_GNUPLOT");
	if (!want || !*want)
		want = "gnuplot";
	if (strchr(want, '/')) {
		snprintf(buf, len, "%s", want);
		return access(buf, X_OK) == 0 ? 0 : -1;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	char *copy = strdup(path), *save = NULL;
	if (!copy)
		return -1;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		snprintf(buf, len, "%s/%s", *d ? d : ".", want);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return -1;
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

/* Removes the temporary directory this command made and the files in it
 * (script, data, picture, gnuplot's messages: one level, no
 * subdirectories). */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* Runs gnuplot on dir/plot.gp with dir as its working directory, its
 * stderr into dir/gnuplot.err. Returns 0 when it exited 0; otherwise -1
 * with why it failed (and gnuplot's first error line) in why. */
static int run_gnuplot(const char *gnuplot, const char *dir, char *why, size_t whylen)
{
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		/* gnuplot's own diagnostics go to a file: our error is one line. */
		FILE *e = freopen("gnuplot.err", "w", stderr);
		(void)e;
		execl(gnuplot, gnuplot, PB_PLOT_SCRIPT, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	/* The first line gnuplot complained with. */
	char path[PATH_MAX + 32], line[200] = "";
	snprintf(path, sizeof path, "%s/gnuplot.err", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "line") || strstr(line, "rror"))
			break;
	}
	if (f)
		fclose(f);
	if (WIFEXITED(st))
		snprintf(why, whylen, "exit %d%s%s", WEXITSTATUS(st), line[0] ? ": " : "", line);
	else
		snprintf(why, whylen, "killed by signal %d", WTERMSIG(st));
	return -1;
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

/* The file at path, whole, in *data (malloc'd) and *len; *len 0 when it
 * cannot be read. */
static void read_whole(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0;
	*data = NULL;
	*len = 0;
	while (f) {
		if (*len == cap) {
			char *nd = realloc(*data, cap = cap ? 2 * cap : 1 << 16);
			if (!nd)
				break;
			*data = nd;
		}
		size_t got = fread(*data + *len, 1, cap - *len, f);
		*len += got;
		if (got == 0)
			break;
	}
	if (f)
		fclose(f);
}

/* Draws the picture with gnuplot in a temporary directory and puts it,
 * whole, at output. Returns the exit status (the error printed). */
static int render(const char *gnuplot, const struct pb_plot_input *in, size_t n,
                  struct pb_plot_opts *po, const char *output)
{
	const char *tmpdir = getenv("TMPDIR");
	char dir[PATH_MAX];
	if (tmpdir && *tmpdir)
		snprintf(dir, sizeof dir, "%s/primbench-plot-XXXXXX", tmpdir);
	else
		snprintf(dir, sizeof dir, "%s", "/tmp/primbench-plot-XXXXXX");
	if (!mkdtemp(dir))
		die_usage("plot: cannot make a temporary directory '%s': %s", dir, strerror(errno));
	char picture[PATH_MAX + 48];
	char picname[32];
	snprintf(picname, sizeof picname, "picture%s", output + strlen(output) - 4);
	snprintf(picture, sizeof picture, "%s/%s", dir, picname);
	po->output = picname;
	char why[300] = "";
	int status = PB_EXIT_OK;
	if (pb_plot_write(in, n, po, dir) != 0) {
		snprintf(why, sizeof why, "%s", pb_error());
		status = PB_EXIT_USAGE;
	} else if (run_gnuplot(gnuplot, dir, why, sizeof why) != 0) {
		char msg[400];
		snprintf(msg, sizeof msg, "gnuplot failed (%s)", why);
		snprintf(why, sizeof why, "%.299s", msg);
		status = PB_EXIT_USAGE;
	}
	if (status == PB_EXIT_OK) {
		/* The picture, whole, at its place. */
		char *data;
		size_t len;
		read_whole(picture, &data, &len);
		if (len == 0) {
			snprintf(why, sizeof why, "gnuplot wrote no picture");
			status = PB_EXIT_USAGE;
		} else if (pb_write_file_whole(output, data, len) != 0) {
			snprintf(why, sizeof why, "%s", pb_error());
			status = PB_EXIT_USAGE;
		}
		free(data);
	}
	remove_tree(dir);
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
	*a = (struct plot_args){.po = {NULL, PB_UNIT_GB_S, NULL}};
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
	if (find_gnuplot(path, len) == 0)
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
