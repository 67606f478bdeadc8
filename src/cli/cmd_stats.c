/* cmd_stats.c - `primbench stats [OPTIONS] [FILE...]`: ministat(1) for
 * number files, then a distribution-free line per comparison
 * (include/primbench/twosample.h).
 *
 * The ministat block matches ministat (FreeBSD's, Debian's 20150715) byte
 * for byte on ordinary data: the same options, legend, ASCII plot, table
 * and verdict, with ministat's quirks kept on purpose (the arithmetic is
 * src/stats/ministat.c, include/primbench/ministat.h; the plot is here):
 *
 *   - the median is the upper middle value for an even count (ministat's
 *     points[n / 2]; `primbench run` and docs/statistics.md average the
 *     two middle values);
 *   - the t quantiles come from a table rounded to 3 decimals with rows
 *     for 1..100 degrees of freedom and the normal quantile beyond (the
 *     table is the exact quantile rounded, except six entries where
 *     ministat's table, observed by running it, differs in the last
 *     digit), and "-c 99.5" uses the 0.999 quantile (a 99.8% two-sided
 *     interval: ministat's column, conservative);
 *   - the mean is the sum in file order over n, and the % line divides
 *     both figures by the first file's mean.
 *
 * Differences: the plot's height fits the tallest stack of every file
 * (ministat sizes it by the last file's, hiding points of earlier files);
 * the standard deviation is GSL's two-pass one (ministat's running sums of
 * x and x^2 lose digits when the spread is tiny next to the mean); a
 * line without the column -C asks for, or a number that is not finite, is
 * an error (ministat skips the first and takes the second); the plot is 74
 * columns wide also on a terminal (ministat uses the terminal's width
 * there); -q and --no-extra are primbench's. docs/statistics.md, "primbench
 * stats and ministat", says the same for users.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/error.h"
#include "primbench/ministat.h"
#include "primbench/numbers.h"
#include "primbench/twosample.h"

#define MAX_SETS   7 /* ministat's symbols */
#define MIN_VALUES 3
#define PLOT_WIDTH 74
/* The Hodges-Lehmann shift needs every pairwise difference in memory (8
 * bytes each): at most this many values of a set enter it (print_extra). */
#define MAX_SHIFT_VALUES 2000

static const char symbol[MAX_SETS + 1] = {' ', 'x', '+', '*', '%', '#', '@', 'O'};

struct dataset {
	const char *name;
	double *v; /* sorted */
	size_t n, cap;
	struct pb_ministat_vitals vit;
	double mean, sd, median; /* vit's, for the plot */
};

static void usage(FILE *f)
{
	fputs("usage: primbench stats [-Anqs] [-C COLUMN] [-c LEVEL] [-d DELIMITERS]\n"
	      "                       [-w WIDTH] [--no-extra] [FILE...]\n"
	      "\n"
	      "ministat(1) on files of numbers, one per line (up to 7 files; none or '-':\n"
	      "standard input): legend, ASCII plot, N/min/max/median/mean/stddev, and for\n"
	      "every file after the first Student's t verdict against the first. Then a\n"
	      "line per comparison ministat does not print: the Hodges-Lehmann shift with\n"
	      "its distribution-free interval and the Mann-Whitney U test's p-value.\n"
	      "Blank lines and lines starting with '#' are skipped.\n"
	      "\n"
	      "  -A                  no plot\n"
	      "  -n                  no plot and no comparisons: the table only\n"
	      "  -q                  no plot and no legend\n"
	      "  -s                  the mean/median/stddev bars on separate lines\n"
	      "  -C COLUMN           use this column (from 1; default 1)\n"
	      "  -c LEVEL            confidence: 80, 90, 95 (default), 98, 99 or 99.5\n"
	      "  -d DELIMITERS       column separators (default space and tab)\n"
	      "  -w WIDTH            plot width (default 74)\n"
	      "  --no-extra          ministat's output only\n"
	      "\n"
	      "The median is ministat's: the upper middle value for an even count.\n",
	      f);
}

/* One file's values (primbench/numbers.h), sorted, and their vitals. */
static void read_set(FILE *f, struct dataset *ds, size_t column, const char *delim)
{
	struct pb_numbers nums;
	if (pb_numbers_read(f, ds->name, column, delim, &nums) != 0)
		die_usage("stats: %s", pb_error());
	ds->v = nums.v;
	ds->n = nums.n;
	ds->cap = nums.cap;
	if (ds->n < MIN_VALUES)
		die_usage("stats: %s: needs at least %d values, has %zu", ds->name, MIN_VALUES,
		          ds->n);
	struct pb_ministat_vitals vit;
	pb_ministat_vitals(ds->v, ds->n, &vit);
	ds->vit = vit;
	ds->mean = vit.mean;
	ds->sd = vit.sd;
	ds->median = vit.median;
}

/* ---- ministat's ASCII plot ---- */

struct plot {
	double min, max, x0, dx;
	size_t width, height; /* rows 1..height-1 hold points, row 1 lowest */
	unsigned char *data;  /* height x width: the OR of the set numbers */
	char *bar[MAX_SETS];  /* one per set with -s, else bar[0] for all */
	bool separate;
};

static size_t plot_col(const struct plot *pl, double v)
{
	double c = (v - pl->x0) / pl->dx;
	if (!(c >= 0))
		return 0;
	return c >= (double)pl->width ? pl->width - 1 : (size_t)c;
}

/* Points of one set in the same column stack up: the tallest stack. */
static size_t tallest_stack(const struct plot *pl, const struct dataset *ds)
{
	size_t tallest = 1, run = 0, prev = (size_t)-1;
	for (size_t i = 0; i < ds->n; i++) {
		size_t c = plot_col(pl, ds->v[i]);
		run = c == prev ? run + 1 : 1;
		prev = c;
		tallest = run > tallest ? run : tallest;
	}
	return tallest;
}

static void plot_set(struct plot *pl, const struct dataset *ds, unsigned val)
{
	size_t run = 0, prev = (size_t)-1;
	for (size_t i = 0; i < ds->n; i++) {
		size_t c = plot_col(pl, ds->v[i]);
		run = c == prev ? run + 1 : 1;
		prev = c;
		pl->data[run * pl->width + c] |= (unsigned char)val;
	}
	char *bar = pl->bar[pl->separate ? val - 1 : 0];
	size_t lo = plot_col(pl, ds->mean - ds->sd), hi = plot_col(pl, ds->mean + ds->sd);
	bar[hi] = '|';
	bar[lo] = '|';
	for (size_t c = lo + 1; c < hi; c++)
		if (bar[c] == ' ')
			bar[c] = '_';
	bar[plot_col(pl, ds->median)] = 'M';
	bar[plot_col(pl, ds->mean)] = 'A';
}

static void print_border(size_t width)
{
	putchar('+');
	for (size_t c = 0; c < width; c++)
		putchar('-');
	puts("+");
}

static void print_plot(const struct dataset *ds, size_t nsets, size_t width, bool separate)
{
	struct plot pl = {.min = INFINITY, .max = -INFINITY, .width = width, .separate = separate};
	for (size_t s = 0; s < nsets; s++) {
		const double ends[] = {ds[s].v[0], ds[s].v[ds[s].n - 1], ds[s].mean - ds[s].sd,
		                       ds[s].mean + ds[s].sd};
		for (size_t i = 0; i < 4; i++) {
			pl.min = fmin(pl.min, ends[i]);
			pl.max = fmax(pl.max, ends[i]);
		}
	}
	double span = pl.max - pl.min;
	if (span == 0) {
		puts("[no plot, span is zero width]");
		return;
	}
	pl.dx = span / ((double)width - 1.0);
	pl.x0 = pl.min - 0.5 * pl.dx;
	size_t tallest = 1;
	for (size_t s = 0; s < nsets; s++) {
		size_t t = tallest_stack(&pl, &ds[s]);
		tallest = t > tallest ? t : tallest;
	}
	pl.height = tallest + 1;
	pl.data = calloc(pl.height * width, 1);
	size_t nbars = separate ? nsets : 1;
	for (size_t b = 0; b < nbars; b++) {
		pl.bar[b] = malloc(width);
		if (pl.bar[b])
			memset(pl.bar[b], ' ', width);
	}
	if (!pl.data || !pl.bar[nbars - 1])
		die_usage("stats: out of memory for the plot");
	for (size_t s = 0; s < nsets; s++)
		plot_set(&pl, &ds[s], (unsigned)s + 1);

	print_border(width);
	for (size_t row = pl.height - 1; row >= 1; row--) {
		putchar('|');
		for (size_t c = 0; c < width; c++)
			putchar(symbol[pl.data[row * width + c] & 7]);
		puts("|");
	}
	for (size_t b = 0; b < nbars; b++) {
		printf("|%.*s|\n", (int)width, pl.bar[b]);
		free(pl.bar[b]);
	}
	print_border(width);
	free(pl.data);
}

/* ---- the table and the verdicts ---- */

static void print_vitals(const struct dataset *ds, size_t set)
{
	printf("%c %3zu %13.8g %13.8g %13.8g %13.8g %13.8g\n", symbol[set + 1], ds->n, ds->v[0],
	       ds->v[ds->n - 1], ds->median, ds->mean, ds->sd);
}

/* ministat's Relative(): the second set against the first. */
static void print_relative(const struct dataset *x, const struct dataset *y, size_t level)
{
	struct pb_ministat_relative r;
	if (pb_ministat_relative(x->v, x->n, &x->vit, y->v, y->n, &y->vit, level, &r) != 0)
		die_usage("stats: %s", pb_error());
	double pct = pb_ministat_level_pct(level);
	if (r.significant) {
		printf("Difference at %.1f%% confidence\n", pct);
		printf("\t%g +/- %g\n", r.diff, r.half_width);
		printf("\t%g%% +/- %g%%\n", r.pct, r.pct_half_width);
		printf("\t(Student's t, pooled s = %g)\n", r.pooled_sd);
	} else {
		printf("No difference proven at %.1f%% confidence\n", pct);
	}
}

/* The distribution-free line: "+ vs x: SHIFT [LO, HI], p = P (exact)".
 * The shift's cost is nx * ny pairs: a set over MAX_SHIFT_VALUES values
 * enters it as that many evenly spaced order statistics (as `compare`
 * does), said on the line; p uses every value. */
static void print_extra(const struct dataset *x, const struct dataset *y, size_t set, double level)
{
	struct pb_shift s;
	struct pb_utest u;
	const struct dataset *d[2] = {x, y};
	double *few[2] = {NULL, NULL};
	const double *v[2];
	size_t n[2];
	for (int i = 0; i < 2; i++) {
		v[i] = d[i]->v;
		n[i] = d[i]->n;
		if (n[i] > MAX_SHIFT_VALUES) {
			few[i] = malloc(MAX_SHIFT_VALUES * sizeof *few[i]);
			if (!few[i])
				die_usage("stats: out of memory");
			pb_order_statistics(d[i]->v, d[i]->n, few[i], MAX_SHIFT_VALUES);
			v[i] = few[i];
			n[i] = MAX_SHIFT_VALUES;
		}
	}
	if (pb_hodges_lehmann(v[0], n[0], v[1], n[1], level, &s) != 0 ||
	    pb_mann_whitney(x->v, x->n, y->v, y->n, &u) != 0)
		die_usage("stats: %s", pb_error());
	printf("%c vs %c: ", symbol[set + 1], symbol[1]);
	if (s.ci_valid)
		printf("%.4g [%.4g, %.4g]", s.estimate, s.lo, s.hi);
	else
		printf("%.4g (too few values for an interval)", s.estimate);
	printf(", p = %.4g (%s)\n", u.p, u.exact ? "exact" : "normal approximation");
	if (few[0] || few[1])
		printf("        (shift and interval from %d evenly spaced order statistics\n"
		       "        of a set of more than %d values: a wider interval; p from\n"
		       "        every value)\n",
		       MAX_SHIFT_VALUES, MAX_SHIFT_VALUES);
	free(few[0]);
	free(few[1]);
}

static size_t parse_level(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	int i = end != arg && !*end ? pb_ministat_level_index(v) : -1;
	if (i < 0)
		die_usage("stats: bad -c '%s' (80, 90, 95, 98, 99 or 99.5, as in ministat)", arg);
	return (size_t)i;
}

/* What stats's options (ministat's) asked for. */
struct stats_opts {
	bool no_plot, no_tests, no_legend, separate, extra;
	size_t column, level, width;
	const char *delim;
};

static bool stats_option(int opt, const char *arg, void *ctx)
{
	struct stats_opts *o = ctx;
	switch (opt) {
	case 'c':
		o->level = parse_level(arg);
		return true;
	case 'd':
		if (!arg[0])
			die_usage("stats: -d needs at least one delimiter");
		o->delim = arg;
		return true;
	case 'n':
		o->no_plot = o->no_tests = true;
		return true;
	case 'q': /* ministat's -q: no plot, no legend (not cli_quiet) */
		o->no_plot = o->no_legend = true;
		return true;
	default:
		return false;
	}
}

int cmd_stats(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"no-extra", no_argument, 0, 'X'},
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	static const struct cli_store stores[] = {
	    CLI_STORE_FLAG('A', struct stats_opts, no_plot, true),
	    CLI_STORE_NUMBER('C', struct stats_opts, column, "-C column", 1, 1000000),
	    CLI_STORE_FLAG('s', struct stats_opts, separate, true),
	    CLI_STORE_NUMBER('w', struct stats_opts, width, "-w width", 10, 1000),
	    CLI_STORE_FLAG('X', struct stats_opts, extra, false),
	    {0},
	};
	const struct cli_common common = {.stores = stores};
	struct stats_opts o = {
	    .extra = true, .column = 1, .level = 2, .width = PLOT_WIDTH, .delim = " \t"};
	if (!cli_parse_options("stats", argc, argv, ":AC:c:d:hnqsw:", opts, stats_option, &o,
	                       &common, usage))
		return PB_EXIT_OK;
	const bool no_plot = o.no_plot, no_tests = o.no_tests, no_legend = o.no_legend;
	const bool separate = o.separate, extra = o.extra;
	const size_t column = o.column, level = o.level, width = o.width;
	const char *delim = o.delim;
	size_t nsets = argc > optind ? (size_t)(argc - optind) : 1;
	if (nsets > MAX_SETS)
		die_usage("stats: %zu files; at most %d (ministat's symbols x + * %% # @ O)", nsets,
		          MAX_SETS);
	cli_parse_done();

	/* Every file opened before any is read, as ministat does: a missing
	 * file is reported before standard input is waited for. */
	struct dataset ds[MAX_SETS] = {{0}};
	FILE *files[MAX_SETS];
	bool stdin_used = false;
	for (size_t s = 0; s < nsets; s++) {
		const char *path = argc > optind ? argv[optind + (int)s] : "-";
		if (!strcmp(path, "-")) {
			if (stdin_used)
				die_usage("stats: standard input ('-') can be read only once");
			stdin_used = true;
			files[s] = stdin;
			ds[s].name = "<stdin>";
		} else {
			files[s] = fopen(path, "r");
			if (!files[s])
				die_usage("stats: cannot open '%s': %s", path, strerror(errno));
			ds[s].name = path;
		}
	}
	for (size_t s = 0; s < nsets; s++) {
		read_set(files[s], &ds[s], column, delim);
		if (files[s] != stdin)
			fclose(files[s]);
	}

	if (!no_legend)
		for (size_t s = 0; s < nsets; s++)
			printf("%c %s\n", symbol[s + 1], ds[s].name);
	if (!no_plot)
		print_plot(ds, nsets, width, separate);
	puts("    N           Min           Max        Median           Avg        Stddev");
	print_vitals(&ds[0], 0);
	for (size_t s = 1; s < nsets; s++) {
		print_vitals(&ds[s], s);
		if (!no_tests)
			print_relative(&ds[0], &ds[s], level);
	}
	if (extra && !no_tests && nsets > 1) {
		double lv = pb_ministat_level_pct(level);
		printf("\nNot in ministat: Hodges-Lehmann shift [%.*f%% CI] and Mann-Whitney U "
		       "p-value\n",
		       lv == floor(lv) ? 0 : 1, lv);
		for (size_t s = 1; s < nsets; s++)
			print_extra(&ds[0], &ds[s], s, lv / 100);
	}
	for (size_t s = 0; s < nsets; s++)
		free(ds[s].v);
	return PB_EXIT_OK;
}
