/* cmd_compare.c - `primbench compare OLD.json NEW.json [MORE.json...]`:
 * benchstat-style tables of every case in both files
 * (include/primbench/compare.h), or with -f the same as Markdown, CSV or
 * the JSON document; with --fail-if-slower, the regression gate
 * (pb_compare_gate): exit 1 naming what is slower. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/format.h"
#include "primbench/results.h"

static void usage(FILE *f)
{
	fputs("usage: primbench compare OLD.json NEW.json [MORE.json...] [OPTIONS]\n"
	      "       primbench compare [OPTIONS] OLD1.json OLD2.json... -- NEW1.json...\n"
	      "\n"
	      "For every case in both result files (matched on its key): old and new\n"
	      "median per call +- its CI, the change new/old with its CI ('~' when no\n"
	      "difference is shown) and its p; geometric means per unit; cases in only\n"
	      "one file. The change is judged between runs: the replicates of each file\n"
	      "(Welch's t on their log medians); a file with one run (schema v1,\n"
	      "--replicates 1) gets the samples' Hodges-Lehmann figure and no verdict.\n"
	      "With '--', the files on each side are that side's runs (one figure per\n"
	      "file), as benchstat takes them. More files without '--': each is\n"
	      "compared with the first. Files from different hardware (CPU vendor,\n"
	      "family, model, stepping, CPU count) are refused; software differences\n"
	      "(kernel, mitigations, primbench build, ...) are listed. cmd results\n"
	      "compare on the real (wall-clock) time of each run.\n"
	      "\n"
	      "  -c, --confidence P  confidence level in % (default 95)\n"
	      "  --alpha A           the level as 1 - A: --alpha 0.01 is -c 99\n"
	      "  --equivalence P%    a change inside +-P% is no change (default 1%; 0: any\n"
	      "                      change the interval shows)\n"
	      "  --force             compare files from different hardware\n"
	      "  -f, --format F      on standard output: text (default), markdown (GitHub\n"
	      "                      tables), csv (a row per case, numbers in full) or\n"
	      "                      json (the document -o writes)\n"
	      "  -o, --output FILE   also write the comparison as JSON (not over an input;\n"
	      "                      with -f json the same document, to both)\n"
	      "  --fail-if-slower[=P%]\n"
	      "                      exit 1 when a case, or the geomean of a group of\n"
	      "                      cases, is slower: its verdict different and the lower\n"
	      "                      end of its interval more than P% slower (default P:\n"
	      "                      the --equivalence margin, 1%); names them on stderr.\n"
	      "                      A case with one run a side cannot be judged\n",
	      f);
}

static double parse_confidence(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end != arg && *end == '%')
		end++;
	if (end == arg || *end || !(v > 0 && v < 100))
		die_usage("compare: bad confidence level '%s' (between 0 and 100, e.g. 95)", arg);
	return v / 100;
}

static double parse_alpha(const char *arg)
{
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0 && v < 1))
		die_usage("compare: bad --alpha '%s' (between 0 and 1, e.g. 0.05)", arg);
	return 1 - v;
}

/* -c and --alpha set one level: given again with another value (-c 99
 * --alpha 0.1, or -c 95 -c 99), which one was meant is unknown. */
static void set_level(double *level, char *given, size_t len, const char *opt, const char *arg,
                      double v)
{
	if (*given && fabs(*level - v) > 1e-12)
		die_usage("compare: %s and %s %s ask for different levels; give one", given, opt,
		          arg);
	*level = v;
	snprintf(given, len, "%s %s", opt, arg);
}

/* -f: the formats of a comparison. benchfmt is a format of result files
 * (a line per sample for benchstat), which a comparison has no form in;
 * so are bmf, gbench and action (a figure per case, for CI trackers). */
static enum pb_format parse_format(const char *arg)
{
	enum pb_format fmt;
	if (pb_format_parse(arg, &fmt) != 0)
		die_usage("compare: unknown format '%s' (text, markdown, csv, json)", arg);
	if (fmt == PB_FORMAT_BENCHFMT)
		die_usage("compare: -f benchfmt is a result file's format, not a comparison's "
		          "(text, markdown, csv, json); for benchstat: primbench report FILE -f "
		          "benchfmt");
	if (fmt == PB_FORMAT_BMF || fmt == PB_FORMAT_GBENCH || fmt == PB_FORMAT_ACTION)
		die_usage("compare: -f %s is a result file's format, not a comparison's "
		          "(text, markdown, csv, json); for a CI tracker: primbench report FILE -f "
		          "%s",
		          arg, arg);
	return fmt;
}

/* The comparisons res[0..n) on standard output in fmt; doc (-o's
 * document) for json. */
static void print_results(enum pb_format fmt, const struct pb_compare_result *res, size_t n,
                          const struct pb_results_doc *doc)
{
	if (fmt == PB_FORMAT_JSON) {
		/* a write error is reported once, by main's finish() */
		if (pb_results_compare_print(stdout, doc) != 0)
			die_usage("compare: out of memory");
		return;
	}
	if (fmt == PB_FORMAT_CSV) {
		pb_compare_csv(stdout, res, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			fputc('\n', stdout);
		if (fmt == PB_FORMAT_MARKDOWN)
			pb_compare_markdown(stdout, &res[i]);
		else
			pb_compare_print(stdout, &res[i]);
	}
}

/* -o: doc to out. "results: PATH" follows the text only: with another
 * format, standard output holds that format alone. */
static int write_doc(const struct pb_results_doc *doc, const char *out, enum pb_format fmt)
{
	if (pb_results_write(doc, out) != 0) {
		cli_error("%s", pb_error());
		return PB_EXIT_USAGE;
	}
	if (fmt == PB_FORMAT_TEXT)
		printf("\nresults: %s\n", out);
	return PB_EXIT_OK;
}

/* Exits 2 when `out` is (a link to) one of the inputs: writing the
 * comparison would replace a result file it was made from. */
static void free_all(struct pb_results_file *files, struct pb_compare_result *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pb_compare_result_free(&res[i]);
		pb_results_file_free(&files[i]);
	}
	free(res);
	free(files);
}

/* Frees everything, then exits 2 with the library's message. */
static _Noreturn void die_input(struct pb_results_file *files, struct pb_compare_result *res,
                                size_t n)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s", pb_error());
	free_all(files, res, n);
	die_usage("compare: %s", msg);
}

/* What compare's options asked for. */
struct compare_opts {
	double level;
	double margin;         /* --equivalence */
	bool gate;             /* --fail-if-slower */
	double gate_pct;       /* its threshold in %; NAN: the margin's */
	char level_given[256]; /* "-c 99": the option that set it */
	bool force;
	enum pb_format fmt; /* -f */
	char **argv;        /* getopt's, for the option word as typed */
	int argc;           /* getopt's (up to a '--') */
};

/* --fail-if-slower on res[0..n): gates[i] of res[i] (n of them, malloc'd).
 * The threshold: P, or the margin in %. */
static struct pb_gate *gates_new(const struct compare_opts *o, const struct pb_compare_result *res,
                                 size_t n)
{
	if (!o->gate)
		return NULL;
	struct pb_gate *g = calloc(n, sizeof *g);
	if (!g)
		die_usage("compare: out of memory");
	double pct = isnan(o->gate_pct) ? 100 * o->margin : o->gate_pct;
	for (size_t i = 0; i < n; i++)
		if (pb_compare_gate(&res[i], pct, &g[i]) != 0)
			die_usage("compare: %s", pb_error());
	return g;
}

static void gates_free(struct pb_gate *g, size_t n)
{
	for (size_t i = 0; g && i < n; i++)
		pb_gate_free(&g[i]);
	free(g);
}

/* A change in % as the table prints it: "+35.2%", "+354%". */
static void gate_pct(char *buf, size_t len, double v)
{
	snprintf(buf, len, fabs(v) < 100 ? "%+.1f" : "%+.0f", v);
}

/* The gate's lines on stderr, after the table: one per failure (with the
 * new file when there are several comparisons), then its outcome, or a
 * warning when it judged nothing. Returns PB_EXIT_CHECK_FAILED when a
 * change failed, else PB_EXIT_OK. */
static int report_gates(const struct pb_gate *g, const struct pb_compare_result *res, size_t n)
{
	if (!g)
		return PB_EXIT_OK;
	fflush(stdout);
	size_t nfail = 0, cases = 0, unjudged = 0, gms = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < g[i].nfail; j++) {
			const struct pb_gate_failure *f = &g[i].fail[j];
			char what[512], e[32], lo[32], hi[32];
			if (f->row)
				snprintf(what, sizeof what, "%s: %s", f->group, f->row->a->label);
			else if (f->group)
				snprintf(what, sizeof what, "%s: geomean of %zu cases", f->group,
				         f->n);
			else
				snprintf(what, sizeof what, "geomean of %zu cases in %s", f->n,
				         f->unit);
			gate_pct(e, sizeof e, f->pct);
			gate_pct(lo, sizeof lo, f->pct_lo);
			gate_pct(hi, sizeof hi, f->pct_hi);
			cli_error("compare: slower beyond %g%%: %s: %s%% [%s, %s]%s%s", g[i].pct,
			          what, e, lo, hi, n > 1 ? " in " : "",
			          n > 1 ? res[i].fb->path : "");
		}
		nfail += g[i].nfail;
		cases += g[i].cases_judged;
		unjudged += g[i].cases_unjudged;
		gms += g[i].geomeans_judged;
	}
	double pct = g[0].pct;
	char judged[160] = "", left[160] = "";
	snprintf(judged, sizeof judged, "%zu case%s and %zu geomean%s judged", cases,
	         cases == 1 ? "" : "s", gms, gms == 1 ? "" : "s");
	if (unjudged)
		snprintf(left, sizeof left, "; %zu with fewer than two runs on a side not judged",
		         unjudged);
	if (!cases) {
		warn("compare: the gate could not judge: %s (a case needs two or more runs a "
		     "side: --replicates, or files as runs with '--')",
		     unjudged ? "every case has fewer than two runs on a side"
		              : "no case is in both files");
		return PB_EXIT_OK;
	}
	if (nfail) {
		cli_error("compare: gate failed: %zu slower beyond %g%% (%s%s)", nfail, pct, judged,
		          left);
		return PB_EXIT_CHECK_FAILED;
	}
	cli_error("compare: gate passed: nothing slower beyond %g%% (%s%s)", pct, judged, left);
	return PB_EXIT_OK;
}

/* --force's value: a long option only (-f is --format). */
enum { OPT_FORCE = 0x4100, OPT_GATE };

/* --fail-if-slower's P: a percentage >= 0 ("2%", "2", "0.5%"); decimal
 * digits and a point only, as --equivalence. */
static double parse_gate(const char *arg)
{
	size_t digits = strspn(arg, "0123456789.");
	char *end = (char *)arg;
	double v = digits ? strtod(arg, &end) : 0;
	if (end != arg + digits)
		end = (char *)arg;
	else if (*end == '%')
		end++;
	if (end == arg || *end || !(v >= 0) || !isfinite(v))
		die_usage("compare: bad --fail-if-slower '%s' (a percentage >= 0, e.g. 2%%)", arg);
	return v;
}

/* Whether s reads as --fail-if-slower's value ("2%", "2"): given apart
 * (--fail-if-slower 2%), it would be taken for a file. */
static bool looks_like_pct(const char *s)
{
	size_t d = strspn(s, "0123456789.");
	return d > 0 && (!s[d] || (s[d] == '%' && !s[d + 1]));
}

static bool compare_option(int opt, const char *arg, void *ctx)
{
	struct compare_opts *o = ctx;
	switch (opt) {
	case 'c': {
		/* the option's word: before a separate value, or with it */
		const char *word =
		    o->argv[optind - 1] == arg ? o->argv[optind - 2] : o->argv[optind - 1];
		set_level(&o->level, o->level_given, sizeof o->level_given,
		          strncmp(word, "--", 2) == 0 ? "--confidence" : "-c", arg,
		          parse_confidence(arg));
		return true;
	}
	case 'a':
		set_level(&o->level, o->level_given, sizeof o->level_given, "--alpha", arg,
		          parse_alpha(arg));
		return true;
	case 'e':
		o->margin = cli_parse_equivalence("compare", arg);
		return true;
	case 'f':
		o->fmt = parse_format(arg);
		return true;
	case OPT_GATE:
		o->gate = true;
		/* an optional value goes after '=': "--fail-if-slower 2%" would
		 * make 2% a file */
		if (!arg && optind < o->argc && looks_like_pct(o->argv[optind]) &&
		    access(o->argv[optind], F_OK) != 0)
			die_usage("compare: --fail-if-slower takes its value after '=': "
			          "--fail-if-slower=%s",
			          o->argv[optind]);
		o->gate_pct = arg ? parse_gate(arg) : NAN;
		return true;
	default:
		return false;
	}
}

struct pb_results_doc *cli_compare_doc(const struct pb_results_file *files, size_t n, size_t na,
                                       const struct pb_compare_result *res, double level,
                                       double margin, bool force)
{
	struct pb_results_doc *doc =
	    pb_results_compare_new(cli_argc, cli_argv, level, margin, force, files, n);
	if (!doc)
		return NULL;
	pb_results_compare_sides(doc, files, n, na);
	if (pb_results_add_comparison(doc, res) != 0) {
		pb_results_doc_free(doc);
		return NULL;
	}
	return doc;
}

/* compare A1 A2 ... -- B1 B2 ...: each side's files are its runs
 * (pb_compare_sides). */
static int compare_sides(char **a, size_t na, char **b, size_t nb, const struct compare_opts *o,
                         const char *out)
{
	const double level = o->level, margin = o->margin;
	const bool force = o->force;
	for (size_t i = 0; i < nb; i++)
		if (!strcmp(b[i], "--"))
			die_usage(
			    "compare: '--' given twice: it goes once, between the old runs and "
			    "the new ones");
	if (na < 1 || nb < 1)
		die_usage("compare: '--' needs result files on both sides, got %zu before and %zu "
		          "after it (see --help)",
		          na, nb);
	for (size_t i = 0; i < nb; i++)
		if (b[i][0] == '-' && b[i][1])
			die_usage(
			    "compare: '%s' after '--': options go before '--', files after it",
			    b[i]);
	cli_parse_done();
	size_t n = na + nb;
	char **paths = calloc(n, sizeof *paths);
	struct pb_results_file *files = calloc(n, sizeof *files);
	const struct pb_results_file **sa = calloc(na, sizeof *sa), **sb = calloc(nb, sizeof *sb);
	struct pb_compare_result *res = calloc(1, sizeof *res);
	if (!paths || !files || !sa || !sb || !res)
		die_usage("compare: out of memory");
	for (size_t i = 0; i < n; i++)
		paths[i] = i < na ? a[i] : b[i - na];
	/* a run counts once: the same file (by name or through a link) twice
	 * would be two identical runs, a spread of zero */
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			struct stat si, sj;
			if (stat(paths[i], &si) == 0 && stat(paths[j], &sj) == 0 &&
			    si.st_dev == sj.st_dev && si.st_ino == sj.st_ino)
				die_usage(
				    "compare: %s and %s are the same file: with '--' each file is "
				    "a run, and a run counts once",
				    paths[i], paths[j]);
		}
	if (out && pb_output_reserve(out) != 0)
		die_usage("compare: %s", pb_error());
	if (out)
		cli_check_output_not_input("compare", "-o", out, paths, n);
	for (size_t i = 0; i < n; i++)
		if (pb_results_load(paths[i], &files[i]) != 0) {
			free(paths);
			free(sa);
			free(sb);
			die_input(files, res, n > 1 ? 1 : n);
		}
	if (pb_results_name(files, n) != 0)
		die_input(files, res, 1);
	for (size_t i = 0; i < na; i++)
		sa[i] = &files[i];
	for (size_t i = 0; i < nb; i++)
		sb[i] = &files[na + i];
	if (pb_compare_sides(sa, na, sb, nb, level, force, res) != 0)
		die_input(files, res, 1);
	pb_compare_set_margin(res, margin);
	if (res->nhw)
		warn("compare: %s: different hardware from %s (compared anyway: --force)",
		     files[na].path, files[0].path);
	struct pb_gate *gates = gates_new(o, res, 1);
	struct pb_results_doc *doc = NULL;
	if (out || o->fmt == PB_FORMAT_JSON) {
		doc = cli_compare_doc(files, n, na, res, level, margin, force);
		if (!doc || (gates && pb_results_add_gate(doc, gates) != 0))
			die_usage("compare: out of memory");
	}
	print_results(o->fmt, res, 1, doc);
	int rc = PB_EXIT_OK;
	if (out)
		rc = write_doc(doc, out, o->fmt);
	pb_results_doc_free(doc);
	if (rc == PB_EXIT_OK)
		rc = report_gates(gates, res, 1);
	gates_free(gates, 1);
	for (size_t i = 1; i < n; i++)
		pb_results_file_free(&files[i]);
	free_all(files, res, 1);
	free(paths);
	free(sa);
	free(sb);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"confidence", required_argument, 0, 'c'},
	    {"alpha", required_argument, 0, 'a'},
	    {"equivalence", required_argument, 0, 'e'},
	    {"force", no_argument, 0, OPT_FORCE},
	    {"fail-if-slower", optional_argument, 0, OPT_GATE},
	    CLI_FORMAT_OPTION,
	    CLI_OUTPUT_OPTION,
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	struct compare_opts o = {
	    .level = 0.95, .margin = pb_equivalence(), .gate_pct = NAN, .argv = argv};
	const char *out = NULL;
	/* A1 A2 -- B1 B2: the files before "--" are one side's runs, those
	 * after it the other's (options go before it). */
	int sep = 0;
	for (int i = 1; i < argc && !sep; i++)
		if (!strcmp(argv[i], "--"))
			sep = i;
	int full_argc = argc;
	if (sep)
		argc = sep;
	o.argc = argc;
	static const struct cli_store stores[] = {
	    CLI_STORE_FLAG(OPT_FORCE, struct compare_opts, force, true),
	    {0},
	};
	const struct cli_common common = {.out_path = &out, .stores = stores};
	if (!cli_parse_options("compare", argc, argv, ":hc:f:o:", opts, compare_option, &o, &common,
	                       usage))
		return PB_EXIT_OK;
	const double level = o.level;
	const bool force = o.force;
	if (sep)
		return compare_sides(argv + optind, (size_t)(argc - optind), argv + sep + 1,
		                     (size_t)(full_argc - sep - 1), &o, out);
	size_t nfiles = (size_t)(argc - optind);
	if (nfiles < 2)
		die_usage("compare: needs at least two result files, got %zu (see --help)", nfiles);
	cli_parse_done();
	if (out && pb_output_reserve(out) != 0)
		die_usage("compare: %s", pb_error());
	if (out)
		cli_check_output_not_input("compare", "-o", out, argv + optind, nfiles);

	struct pb_results_file *files = calloc(nfiles, sizeof *files);
	struct pb_compare_result *res = calloc(nfiles, sizeof *res);
	if (!files || !res)
		die_usage("compare: out of memory");
	for (size_t i = 0; i < nfiles; i++)
		if (pb_results_load(argv[optind + (int)i], &files[i]) != 0)
			die_input(files, res, nfiles);
	if (pb_results_name(files, nfiles) != 0)
		die_input(files, res, nfiles);
	/* Every pair is checked before anything is printed. */
	for (size_t i = 1; i < nfiles; i++)
		if (pb_compare_run(&files[0], &files[i], level, force, &res[i]) != 0)
			die_input(files, res, nfiles);
		else
			pb_compare_set_margin(&res[i], o.margin);
	for (size_t i = 1; i < nfiles; i++) {
		if (!res[i].nhw)
			continue;
		char *s = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&s, &len);
		for (size_t j = 0; m && j < res[i].nhw; j++)
			fprintf(m, "%s%s %s vs %s", j ? ", " : "", res[i].hw[j].field,
			        res[i].hw[j].a, res[i].hw[j].b);
		if (m)
			fclose(m);
		warn("compare: %s: different hardware from %s: %s (compared anyway: --force)",
		     files[i].path, files[0].path, s ? s : "");
		free(s);
	}

	struct pb_gate *gates = gates_new(&o, res + 1, nfiles - 1);
	struct pb_results_doc *doc = NULL;
	if (out || o.fmt == PB_FORMAT_JSON) {
		doc = pb_results_compare_new(cli_argc, cli_argv, level, o.margin, force, files,
		                             nfiles);
		if (!doc)
			die_usage("compare: out of memory");
		for (size_t i = 1; i < nfiles; i++)
			if (pb_results_add_comparison(doc, &res[i]) != 0 ||
			    (gates && pb_results_add_gate(doc, &gates[i - 1]) != 0))
				die_usage("compare: out of memory");
	}
	print_results(o.fmt, res + 1, nfiles - 1, doc);
	int rc = PB_EXIT_OK;
	if (out)
		rc = write_doc(doc, out, o.fmt);
	pb_results_doc_free(doc);
	if (rc == PB_EXIT_OK)
		rc = report_gates(gates, res + 1, nfiles - 1);
	gates_free(gates, nfiles - 1);
	free_all(files, res, nfiles);
	return rc;
}
