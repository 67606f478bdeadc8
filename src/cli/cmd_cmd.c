/* cmd_cmd.c - `primbench cmd`: time a whole command N times, or two
 * commands (or environments) A/B in ABBA order with a verdict, optionally
 * until a verdict is reached (include/primbench/cmd.h,
 * include/primbench/twosample.h, docs/methodology.md "The cmd suite"). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/accounting.h"
#include "primbench/cmd.h"
#include "primbench/counters.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/policy.h"
#include "primbench/preload.h"
#include "primbench/profile.h"
#include "primbench/record.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"

static volatile int interrupted;
static volatile sig_atomic_t interrupted_by;

static void on_signal(int sig)
{
	interrupted++; /* a second signal: SIGKILL (pb_cmd_run_once) */
	interrupted_by = sig;
}

static void usage(FILE *f)
{
	fputs("usage: primbench cmd [OPTIONS] [--] COMMAND [ARGS...]\n"
	      "\n"
	      "Runs COMMAND N times directly (posix_spawn, no shell) and reports, per run,\n"
	      "what wait4() saw: real (wall), user and sys time, max RSS, page faults and\n"
	      "context switches; then min/median/mean/sd of each. The command's output goes\n"
	      "to /dev/null, its input comes from /dev/null.\n"
	      "\n"
	      "  -n, --runs N           counted runs (per side with --vs/--vs-env) [10]\n"
	      "  -w, --warmup W         runs before them, shown but not counted [0]\n"
	      "  -p, --prepare CMD      run CMD before every run, untimed (split into words\n"
	      "                         like --vs)\n"
	      "      --cwd DIR          run in DIR\n"
	      "  -e, --env NAME=VALUE   set in the command's environment (repeatable)\n"
	      "      --shell            run COMMAND, --vs and --prepare through /bin/sh -c\n"
	      "      --show-output      let the command write to this terminal\n"
	      "      --wait-children    a run lasts until every process it started has\n"
	      "                         exited, their CPU time included (else: those\n"
	      "                         left running are waited for untimed, with a\n"
	      "                         warning)\n"
	      "      --cpu LIST         pin the command and every process it starts to\n"
	      "                         these CPUs (e.g. 1 or 0,2-3; sched_setaffinity)\n"
	      "  -i, --ignore-failure   keep going when a run exits non-zero\n"
	      "  -o, --output FILE      write the results as JSON (schema v1)\n"
	      "  -f, --format F         print the result as text (default), json, csv,\n"
	      "                         markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet            no progress line on stderr\n"
	      "\n"
	      "Swapping memset/memcpy/memmove inside the command (libprimswitch.so):\n"
	      "      --memset POLICY    e.g. avx2, or 'rep_stosb<=2K,avx512' (quote it);\n"
	      "      --memcpy POLICY    also --memmove; for both sides, and --vs-memset,\n"
	      "                         --vs-memcpy, --vs-memmove for B (docs/preload.md)\n"
	      "      --account[=ticks]  count calls, bytes and sizes per primitive over\n"
	      "                         every process; ticks: sampled time too\n"
	      "      --record-distribution DIR  with --account: write each primitive's\n"
	      "                         exact call sizes 0..4096 as DIR/memcpy.csv etc.\n"
	      "                         (replay: mem memcpy --distribution DIR/memcpy.csv)\n"
	      "                         and larger calls per log2 bucket in\n"
	      "                         DIR/memcpy.large.csv; not with --vs\n"
	      "\n"
	      "Where the command spends its time (perf, package linux-perf; docs/profile.md):\n"
	      "      --profile          after the timed runs, one more run per side under\n"
	      "                         perf record: its top symbols and the share of the\n"
	      "                         primitive families (kernel page clearing and\n"
	      "                         copying, libc's and primbench's memset/memcpy)\n"
	      "      --profile-runs N   profiled runs per side, summed [1]\n"
	      "      --profile-top N    symbols shown per side [15]\n"
	      "\n"
	      "A/B (alternating A and B in ABBA blocks, so drift hits both alike):\n"
	      "      --vs 'COMMAND B'   B: split into words like a shell would (quotes,\n"
	      "                         $VAR), never run through one\n"
	      "      --vs-env NAME=VALUE  B: A's command with this in its environment\n"
	      "                         (repeatable; combines with --vs)\n"
	      "  -m, --metric FIG       the figure the verdict is on: real, user, sys or\n"
	      "                         user+sys [real]\n"
	      "      --until-verdict    alternate until the 95% CI of B/A excludes 1, or\n"
	      "                         lies within --equivalence, or a limit is reached\n"
	      "                         (Bonferroni over a fixed schedule of looks)\n"
	      "      --equivalence P%   margin for 'no difference' [1%; 0 disables]\n"
	      "      --max-runs N       runs per side for --until-verdict [60]\n"
	      "      --budget SECONDS   stop --until-verdict after this long\n"
	      "\n"
	      "examples:\n"
	      "  primbench cmd -n 10 -- gzip -9 -k -c big.bin\n"
	      "  primbench cmd --vs 'gzip -6 -c big.bin' -- gzip -9 -c big.bin\n"
	      "  primbench cmd --until-verdict --prepare 'make clean' --vs 'make CC=clang' \\\n"
	      "      -- make CC=gcc\n"
	      "  primbench cmd --vs-env GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1 \\\n"
	      "      -- ./my-program\n"
	      "  primbench cmd -n 5 --profile --memset libc --vs-memset avx512_nt -- ./prog\n"
	      "exit status: 0 ok; 1 a run failed, or --until-verdict ended without a\n"
	      "verdict; 2 bad usage or a command that cannot start; 128 + signal when\n"
	      "interrupted (130 Ctrl-C, 143 SIGTERM; a second signal kills the command).\n",
	      f);
}

/* The session: sides, runs, options. */
struct side {
	struct pb_cmd_spec spec;
	char **argv_owned; /* words to free */
	char *shell_argv[4];
	size_t counted, warm;
	/* --account: PRIMBENCH_ACCOUNT_DIR=acct_dir[1], where each run writes;
	 * acct_dir[0] collects the files of the counted runs. */
	char *acct_env;
	char acct_dir[2][4200];
};

struct session {
	struct side side[2];
	int nsides;
	bool shell;
	struct pb_cmd_spec prepare;
	char **prepare_owned;
	char *prepare_shell[4];
	size_t runs, warmup, max_runs;
	double budget_s, equivalence;
	int metric;
	bool until_verdict, ignore_failure, wait_children;
	/* runs that left processes running, and the most one left */
	size_t leftover_runs;
	long leftover_max;
	struct pb_cmd_record *recs;
	size_t nrecs, caprecs;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "a b 'c d'": the argv as one would type it, for the report. */
static void format_argv(char *const *argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; argv && argv[i] && used + 1 < len; i++) {
		const char *a = argv[i];
		bool quote = !a[0] || strpbrk(a, " \t\n'\"\\$`|&;<>(){}*?[]#~") != NULL;
		int w;
		if (!quote)
			w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", a);
		else if (!strchr(a, '\''))
			w = snprintf(buf + used, len - used, "%s'%s'", i ? " " : "", a);
		else
			w = snprintf(buf + used, len - used, "%s\"%s\"", i ? " " : "", a);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

static const char *side_label(const struct session *s, int side)
{
	return s->nsides == 1 ? "" : (side ? "B" : "A");
}

/* Values of metric (a figure, or user+sys) of the counted runs of side. */
static size_t side_values(const struct session *s, int side, int metric, double *out)
{
	size_t k = 0;
	for (size_t i = 0; i < s->nrecs; i++)
		if (s->recs[i].side == side && !s->recs[i].warmup)
			out[k++] = pb_cmd_metric_value(&s->recs[i].run, metric);
	return k;
}

/* The time unit for a table: s, ms or us, from a typical real time. */
static void time_unit(double typical_ns, const char **name, double *div)
{
	if (typical_ns >= 1e9) {
		*name = "s";
		*div = 1e9;
	} else if (typical_ns >= 1e6) {
		*name = "ms";
		*div = 1e6;
	} else {
		*name = "us";
		*div = 1e3;
	}
}

static double typical_real(const struct session *s)
{
	double *v = malloc((s->nrecs + 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; v && i < s->nrecs; i++)
		v[k++] = s->recs[i].run.wall_ns;
	struct pb_summary sum;
	double t = (v && k && pb_summarize(v, k, 0.95, &sum) == 0) ? sum.median : 1e9;
	free(v);
	return t;
}

/* A count in at most `width` columns: plain while it fits, then M or G
 * (10^6, 10^9) with as many decimals as fit. */
static void fmt_count(char *buf, size_t len, double v, int width)
{
	snprintf(buf, len, "%.0f", v);
	for (int scale = 0; scale < 2 && (int)strlen(buf) > width; scale++)
		for (int dec = 2; dec >= 0; dec--) {
			snprintf(buf, len, "%.*f%c", dec, v / (scale ? 1e9 : 1e6),
			         scale ? 'G' : 'M');
			if ((int)strlen(buf) <= width)
				break;
		}
}

/* The resolution of a time figure's clock, ns (fmt_time). */
static double figure_resolution_ns(int figure)
{
	return figure == PB_CMD_REAL ? 1 : 1000;
}

static void print_runs(const struct session *s, const char *tu, double div)
{
	bool any_failed = false;
	for (size_t i = 0; i < s->nrecs; i++)
		any_failed |= s->recs[i].run.exit_code != 0;
	/* 5 + 3 x 10 + 9 + 2 x 8 + 2 x 7 = 74 columns, + 5 for exit = 79. */
	printf("%5s %9s %9s %9s %8s %7s %7s %6s %6s%s\n", "run", "real", "user", "sys", "maxrss",
	       "minflt", "majflt", "vcsw", "ivcsw", any_failed ? " exit" : "");
	printf("%5s %9s %9s %9s %8s\n", "", tu, tu, tu, "KiB");
	/* A long session: the first 20 and the last 10 runs (all are in -o). */
	const size_t head = 20, tail = 10;
	bool cut = s->nrecs > head + tail + 10;
	for (size_t i = 0; i < s->nrecs; i++) {
		if (cut && i == head) {
			printf("  ... %zu run%s not shown; -o FILE keeps them all\n",
			       s->nrecs - head - tail, pb_plural(s->nrecs - head - tail));
			i = s->nrecs - tail;
		}
		const struct pb_cmd_record *r = &s->recs[i];
		char label[16], t[3][24], c[5][16];
		snprintf(label, sizeof label, "%s%s%zu", r->warmup ? "w" : "",
		         side_label(s, r->side), r->index);
		pb_format_time(t[0], sizeof t[0], r->run.wall_ns / div, div,
		               figure_resolution_ns(PB_CMD_REAL));
		pb_format_time(t[1], sizeof t[1], r->run.user_ns / div, div,
		               figure_resolution_ns(PB_CMD_USER));
		pb_format_time(t[2], sizeof t[2], r->run.sys_ns / div, div,
		               figure_resolution_ns(PB_CMD_SYS));
		fmt_count(c[0], sizeof c[0], (double)r->run.max_rss_kib, 8);
		fmt_count(c[1], sizeof c[1], (double)r->run.minflt, 7);
		fmt_count(c[2], sizeof c[2], (double)r->run.majflt, 7);
		fmt_count(c[3], sizeof c[3], (double)r->run.nvcsw, 6);
		fmt_count(c[4], sizeof c[4], (double)r->run.nivcsw, 6);
		printf("%5s %9s %9s %9s %8s %7s %7s %6s %6s", label, t[0], t[1], t[2], c[0], c[1],
		       c[2], c[3], c[4]);
		if (any_failed) {
			if (r->run.term_signal)
				printf(" sig%d", r->run.term_signal);
			else
				printf(" %4d", r->run.exit_code);
		}
		putchar('\n');
	}
}

/* min/median/mean/sd and the median's 95% CI per figure for one side;
 * the time figures in tu. */
static void print_summary(const struct session *s, int side, const char *tu, double div,
                          double *buf)
{
	printf("\n%-11s %8s %8s %8s %8s  %s\n",
	       s->nsides == 1 ? "figure"
	       : side         ? "B figure"
	                      : "A figure",
	       "min", "median", "mean", "sd", "median 95% CI");
	for (int f = 0; f < PB_CMD_NFIGURES; f++) {
		size_t k = side_values(s, side, f, buf);
		struct pb_summary sum;
		if (k == 0 || pb_summarize(buf, k, 0.95, &sum) != 0)
			continue;
		bool is_time = f <= PB_CMD_SYS;
		double d = is_time ? div : 1;
		char name[24], v[4][24], ci[48];
		snprintf(name, sizeof name, "%s%s%s", pb_cmd_figure_name((enum pb_cmd_figure)f),
		         is_time || f == PB_CMD_MAXRSS ? " " : "",
		         is_time              ? tu
		         : f == PB_CMD_MAXRSS ? "KiB"
		                              : "");
		const double vals[4] = {sum.min, sum.median, sum.mean, sum.stddev};
		for (int i = 0; i < 4; i++) {
			if (isnan(vals[i]))
				snprintf(v[i], sizeof v[i], "n/a");
			else if (is_time)
				/* mean and sd: one decimal more than the clock */
				pb_format_time(v[i], sizeof v[i], vals[i] / d, d,
				               figure_resolution_ns(f) / (i < 2 ? 1 : 10));
			else if (i < 2)
				fmt_count(v[i], sizeof v[i], vals[i], 8);
			else
				snprintf(v[i], sizeof v[i], vals[i] < 1e6 ? "%.1f" : "%.3g",
				         vals[i]);
		}
		if (!sum.ci_valid)
			snprintf(ci, sizeof ci, "n<6");
		else if (is_time)
			snprintf(ci, sizeof ci, "%.4g..%.4g", sum.ci_lo / d, sum.ci_hi / d);
		else
			snprintf(ci, sizeof ci, "%.6g..%.6g", sum.ci_lo, sum.ci_hi);
		printf("%-11s %8s %8s %8s %8s  %s\n", name, v[0], v[1], v[2], v[3], ci);
	}
}

/* Run 1 of each side against the rest (case T1). */
static void print_first_run(const struct session *s, int side, double *buf)
{
	size_t k = side_values(s, side, PB_CMD_REAL, buf);
	double ratio;
	bool out = pb_cmd_first_run_outlier(buf, k, &ratio);
	if (k < 2 || isnan(ratio))
		return;
	char line[320], later[64];
	if (k == 2)
		snprintf(later, sizeof later, "run 2");
	else
		snprintf(later, sizeof later, "the median of runs 2-%zu", k);
	snprintf(line, sizeof line, "%s%srun 1 took %.2fx %s%s", s->nsides == 1 ? "" : "side ",
	         s->nsides == 1 ? ""
	         : side         ? "B: "
	                        : "A: ",
	         ratio, later,
	         out ? ": an outlier (beyond 3 IQR of the later runs; a cold cache or first "
	               "load?). It is counted; --warmup 1 would exclude it."
	             : (k < 4 ? " (too few runs to call it an outlier)" : ", not an outlier"));
	pb_print_wrapped(stdout, line, 2);
}

/* ministat's block for y against x (FreeBSD ministat(1) layout). */
static void print_ministat(const struct pb_ttest *t)
{
	if (!t->significant) {
		printf("No difference proven at %.1f%% confidence\n", 100 * t->level);
		return;
	}
	printf("Difference at %.1f%% confidence\n", 100 * t->level);
	printf("\t%g +/- %g\n", t->diff, t->half_width);
	printf("\t%g%% +/- %g%%\n", t->pct, t->pct_half_width);
	printf("\t(Student's t, pooled s = %g)\n", t->pooled_sd);
}

struct ab_result {
	bool valid;
	bool nonpositive; /* a run's figure was 0: no ratio */
	size_t na, nb;
	double med_a, med_b;
	struct pb_shift ratio;
	struct pb_utest u;
	struct pb_ttest t;
	bool t_valid;
};

/* --cpu LIST: CPU numbers and ranges separated by commas ("1", "0,2-3"),
 * each an online CPU that a process can be pinned to here (tried on this
 * thread, whose own CPUs are then put back: `taskset -c 0 primbench cmd
 * --cpu 1` is fine). */
static int parse_cpus(const char *list, cpu_set_t *set)
{
	cpu_set_t saved;
	if (sched_getaffinity(0, sizeof saved, &saved) != 0)
		return pb_fail("cannot read this process's CPUs: %s", strerror(errno));
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	CPU_ZERO(set);
	const char *p = list;
	for (;;) {
		char *end;
		if (*p < '0' || *p > '9')
			return pb_fail("expected a CPU number or a range such as 0-3");
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return pb_fail("expected a CPU number after '-'");
			hi = strtoul(p, &end, 10);
		}
		if (hi < lo)
			return pb_fail("range %lu-%lu runs backwards", lo, hi);
		for (unsigned long c = lo; c <= hi; c++) {
			cpu_set_t one;
			CPU_ZERO(&one);
			if (c < CPU_SETSIZE)
				CPU_SET(c, &one);
			if (c >= CPU_SETSIZE || sched_setaffinity(0, sizeof one, &one) != 0) {
				sched_setaffinity(0, sizeof saved, &saved);
				return pb_fail("no CPU %lu to pin to (%ld online)", c, ncpus);
			}
			CPU_SET(c, set);
		}
		sched_setaffinity(0, sizeof saved, &saved);
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return pb_fail("unexpected '%c'", *end);
		p = end + 1;
	}
}

/* B against A on the session's metric, in its own unit (ns or counts).
 * look: the ratio of an --until-verdict look (pb_seq_ratio), else the
 * Hodges-Lehmann ratio of every run. */
static void compute_ab(const struct session *s, double level, bool look, struct ab_result *ab)
{
	memset(ab, 0, sizeof *ab);
	double *a = malloc((s->nrecs + 1) * sizeof *a), *b = malloc((s->nrecs + 1) * sizeof *b);
	if (!a || !b)
		goto out;
	ab->na = side_values(s, 0, s->metric, a);
	ab->nb = side_values(s, 1, s->metric, b);
	struct pb_summary sa, sb;
	if (ab->na < 1 || ab->nb < 1 || pb_summarize(a, ab->na, 0.95, &sa) != 0 ||
	    pb_summarize(b, ab->nb, 0.95, &sb) != 0)
		goto out;
	ab->med_a = sa.median;
	ab->med_b = sb.median;
	bool positive = true;
	for (size_t i = 0; i < ab->na; i++)
		positive &= a[i] > 0;
	for (size_t i = 0; i < ab->nb; i++)
		positive &= b[i] > 0;
	ab->nonpositive = !positive;
	if (!positive ||
	    (look ? pb_seq_ratio(a, ab->na, b, ab->nb, level, &ab->ratio)
	          : pb_hodges_lehmann_ratio(a, ab->na, b, ab->nb, level, &ab->ratio)) != 0 ||
	    pb_mann_whitney(a, ab->na, b, ab->nb, &ab->u) != 0)
		goto out;
	ab->t_valid =
	    ab->na >= 2 && ab->nb >= 2 && pb_ttest_pooled(a, ab->na, b, ab->nb, 0.95, &ab->t) == 0;
	ab->valid = true;
out:
	free(a);
	free(b);
}

static void print_ab(const struct session *s, const struct ab_result *ab, const char *tu,
                     double div)
{
	const char *mname = pb_cmd_figure_name((enum pb_cmd_figure)s->metric);
	bool is_time = s->metric <= PB_CMD_SYS || s->metric == PB_CMD_NFIGURES;
	double d = is_time ? div : 1;
	printf("\nB vs A on %s (%zu and %zu runs, ABBA order)%s:\n", mname, ab->na, ab->nb,
	       s->until_verdict ? "; 95% figures, for reference only" : "");
	if (!ab->valid) {
		pb_print_wrapped(stdout,
		                 ab->nonpositive
		                     ? "  no comparison: some runs have 0 for this figure (below "
		                       "the kernel's accounting resolution?): use --metric real or "
		                       "user+sys"
		                     : "  no comparison: too few runs",
		                 4);
		return;
	}
	printf("  median A %.4g %s, B %.4g %s: difference %+.4g %s (%+.2f%%)\n", ab->med_a / d,
	       is_time ? tu : "", ab->med_b / d, is_time ? tu : "", (ab->med_b - ab->med_a) / d,
	       is_time ? tu : "", 100 * (ab->med_b / ab->med_a - 1));
	if (ab->ratio.ci_valid)
		printf("  ratio B/A %.4f, %.2f%% CI [%.4f, %.4f] (Hodges-Lehmann, log %s)\n",
		       ab->ratio.estimate, 100 * ab->ratio.level, ab->ratio.lo, ab->ratio.hi,
		       mname);
	else
		printf("  ratio B/A %.4f (Hodges-Lehmann; too few runs for a %.2f%% CI)\n",
		       ab->ratio.estimate, 100 * ab->ratio.level);
	const struct pb_verdict_rule rule = {.null = 1, .u = &ab->u};
	bool different = pb_verdict(&ab->ratio, &rule) == PB_VERDICT_DIFFERENT;
	if (ab->ratio.ci_valid && !s->until_verdict)
		printf("  verdict: %s\n",
		       different && ab->ratio.lo > 1
		           ? "B is slower (the ratio's interval lies above 1)"
		       : different ? "B is faster (the ratio's interval lies below 1)"
		       : ab->ratio.lo > 1 || ab->ratio.hi < 1
		           ? "no difference proven (the interval excludes 1, the Mann-Whitney "
		             "test does not: p >= 0.05)"
		           : "no difference proven (the interval contains 1)");
	printf("  Mann-Whitney U = %.1f, p = %.3g (%s)\n", ab->u.u_x, ab->u.p,
	       ab->u.exact ? "exact" : "normal approximation");
	if (ab->t_valid) {
		/* In the table's unit: the t block scales with its data (the
		 * percentages and the verdict do not change). */
		struct pb_ttest t = ab->t;
		t.diff /= d;
		t.half_width /= d;
		t.pooled_sd /= d;
		t.mean_x /= d;
		t.mean_y /= d;
		printf("  ministat's test (Student's t on the means, in %s):\n",
		       is_time ? tu : "counts");
		fflush(stdout);
		print_ministat(&t);
	}
}

static void add_rec(struct session *s, const struct pb_cmd_record *r)
{
	if (s->nrecs == s->caprecs) {
		size_t cap = s->caprecs ? 2 * s->caprecs : 64;
		struct pb_cmd_record *n = realloc(s->recs, cap * sizeof *n);
		if (!n)
			die_usage("out of memory");
		s->recs = n;
		s->caprecs = cap;
	}
	s->recs[s->nrecs++] = *r;
}

static struct cli_progress run_line;

static void progress(const struct session *s, size_t done, size_t total, double t0)
{
	(void)s;
	(void)t0;
	cli_progress_update(&run_line, done, total, total ? "run" : "(until a verdict) run");
}

/* --account: the files of the run just finished (in acct_dir[1]) join the
 * counted runs' (acct_dir[0]) when `keep`, else are removed (a warm-up, an
 * interrupted run), so the table and the CPU time cover the same runs. */
static void acct_settle(struct side *sd, bool keep)
{
	if (!sd->acct_env)
		return;
	DIR *d = opendir(sd->acct_dir[1]);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char from[4500], to[4500];
		snprintf(from, sizeof from, "%s/%s", sd->acct_dir[1], e->d_name);
		snprintf(to, sizeof to, "%s/%s", sd->acct_dir[0], e->d_name);
		if (!keep || rename(from, to) != 0)
			unlink(from);
	}
	if (d)
		closedir(d);
}

/* Runs the tiny dynamic test program (tools/primbench-exit0-dynamic) with
 * the side's environment and PRIMBENCH_PRELOAD_DEBUG=1: the library must
 * say it is ready, with no warning (a bad policy, a kernel hidden by
 * --env PRIMBENCH_HIDE_FEATURES, a PRIMBENCH_PRELOAD that is not the
 * library). Returns 0, or -1 with pb_error() quoting the first line that
 * went wrong. Without the test program, returns 0 (nothing to check with). */
static int preflight(const struct pb_cmd_spec *side, int sd, int nsides)
{
	char tool[4096], errpath[4200];
	if (pb_syscall_tool_path(false, tool, sizeof tool) != 0)
		return 0;
	size_t n = 0;
	while (side->env_set && side->env_set[n])
		n++;
	char **env = calloc(n + 5, sizeof *env);
	if (!env)
		return pb_fail("out of memory");
	memcpy(env, side->env_set, n * sizeof *env);
	env[n] = "PRIMBENCH_PRELOAD_DEBUG=1";
	env[n + 1] = "PRIMBENCH_ACCOUNT";        /* no accounting file for this run */
	env[n + 2] = "PRIMBENCH_PRELOAD_LOG";    /* its lines on its stderr, */
	env[n + 3] = "PRIMBENCH_PRELOAD_WARNED"; /* every one of them */
	const char *tmp = getenv("TMPDIR");
	snprintf(errpath, sizeof errpath, "%s/primbench-preflight-XXXXXX",
	         tmp && tmp[0] ? tmp : "/tmp");
	int fd = mkstemp(errpath);
	if (fd < 0) {
		free(env);
		return 0;
	}
	close(fd);
	char *argv[] = {tool, NULL};
	struct pb_cmd_spec spec = {.argv = argv, .env_set = env, .stderr_path = errpath};
	struct pb_cmd_run r;
	int rc = pb_cmd_run_once(&spec, &r, NULL);
	free(env);
	char text[2048] = "";
	FILE *f = fopen(errpath, "r");
	size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[got] = 0;
	if (f)
		fclose(f);
	unlink(errpath);
	if (rc != 0)
		return 0;
	const char *who = nsides == 1 ? "" : sd ? "B: " : "A: ";
	char *save = NULL;
	bool ready = false;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "primswitch: pid ", 16) == 0) {
			ready |= strstr(l, " ready ") != NULL;
			continue;
		}
		return pb_fail("%sthe library refused a setting: %s", who, l);
	}
	if (!ready)
		return pb_fail("%s%s did not load in a test run (PRIMBENCH_PRELOAD?)", who,
		               PB_PRELOAD_NAME);
	return 0;
}

/* A run left processes running: counted; the first time a warning with
 * their number; without --wait-children they are waited for here, untimed
 * (pb_cmd_wait_leftovers). Returns 0, or 1 when interrupted meanwhile. */
static int leftovers_wait(struct session *s, const struct pb_cmd_record *r)
{
	s->leftover_runs++;
	if (r->run.leftovers > s->leftover_max)
		s->leftover_max = r->run.leftovers;
	if (s->leftover_runs == 1) {
		if (run_line.on)
			fputs("\r\033[K", stderr);
		warn("%srun %s%zu left %ld process%s running when it exited; %s",
		     r->warmup ? "warm-up " : "", side_label(s, r->side), r->index,
		     r->run.leftovers, r->run.leftovers == 1 ? "" : "es",
		     s->wait_children ? "the run lasted until the last one exited (--wait-children)"
		                      : "each run's are waited for, untimed, before the next "
		                        "(--wait-children times them)");
	}
	if (s->wait_children)
		return 0;
	return pb_cmd_wait_leftovers(&interrupted) < 0 ? 1 : 0;
}

/* The library's variables in primbench's own environment (or in --env
 * and --vs-env) never apply by themselves (docs/preload.md, "primbench
 * cmd"): without the library loaded by an option they do nothing, unless
 * LD_PRELOAD loads it anyway; with it, cmd sets them from its options
 * and drops the inherited ones. Either is said once, naming them. */
static void inherited_library_vars(bool lib, char *const *env_a, char *const *env_b, bool record)
{
	static const char *const vars[] = {
	    "PRIMBENCH_MEMSET",  "PRIMBENCH_MEMCPY",      "PRIMBENCH_MEMMOVE",
	    "PRIMBENCH_ACCOUNT", "PRIMBENCH_ACCOUNT_DIR", "PRIMBENCH_ACCOUNT_SIZES",
	};
	char list[1024] = "";
	size_t pos = 0;
	int count = 0;
	const char *preload = getenv("LD_PRELOAD");
	for (int sd = 0; sd < 2; sd++)
		for (size_t i = 0; (sd ? env_b : env_a) && (sd ? env_b : env_a)[i]; i++)
			if (strncmp((sd ? env_b : env_a)[i], "LD_PRELOAD=", 11) == 0)
				preload = (sd ? env_b : env_a)[i] + 11;
	if (!lib && preload && strstr(preload, PB_PRELOAD_NAME))
		return; /* loaded by hand: they apply */
	for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
		if (record && v == 5)
			continue; /* --record-distribution sets it as asked */
		const char *val = getenv(vars[v]);
		/* --env counts only without the library (with it, cmd refuses it) */
		for (int sd = 0; !lib && sd < 2; sd++)
			for (size_t i = 0; (sd ? env_b : env_a) && (sd ? env_b : env_a)[i]; i++) {
				const char *e = (sd ? env_b : env_a)[i];
				size_t len = strlen(vars[v]);
				if (strncmp(e, vars[v], len) == 0 && e[len] == '=')
					val = e + len + 1;
			}
		if (!val || !val[0] || pos + 1 >= sizeof list)
			continue;
		pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%s='%s'",
		                        count ? ", " : "", vars[v], val);
		if (pos >= sizeof list)
			pos = sizeof list - 1;
		count++;
	}
	if (!count)
		return;
	if (lib)
		warn("cmd: not passed on to the command: %s (cmd sets %s's variables from "
		     "--memset, --memcpy, --memmove, --vs-... and --account only)",
		     list, PB_PRELOAD_NAME);
	else
		warn("cmd: %s do%s nothing: %s is not loaded (--memset, --memcpy, --memmove "
		     "or --account load it)",
		     list, count == 1 ? "es" : "", PB_PRELOAD_NAME);
}

/* The library's lines of the whole session go to one file
 * (PRIMBENCH_PRELOAD_LOG, docs/preload.md), not to the command's stderr
 * (where a test suite that wants it empty would see them): `entry` is
 * "PRIMBENCH_PRELOAD_LOG=" in the sides' environments; this makes the
 * file and completes it. Without a file (mkstemp failed) the value stays
 * empty: the lines go to the command's stderr. */
static void preload_log_make(char *entry, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	size_t pre = strlen(entry);
	snprintf(entry + pre, cap - pre, "%s/primbench-preload-log-XXXXXX",
	         tmp && tmp[0] ? tmp : "/tmp");
	int fd = mkstemp(entry + pre);
	if (fd < 0)
		entry[pre] = 0;
	else
		close(fd);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints the library's messages once each, in the order they first came, a
 * repeated one with its count ("35x "), after a line that says how many
 * there were; removes the file. Nothing when it is empty. */
static void preload_log_report(const char *path)
{
	FILE *f = path[0] ? fopen(path, "r") : NULL;
	char *text = NULL;
	size_t size = 0;
	if (f) {
		FILE *m = open_memstream(&text, &size);
		char chunk[4096];
		size_t got;
		while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
			fwrite(chunk, 1, got, m);
		if (m)
			fclose(m);
		fclose(f);
	}
	if (path[0])
		unlink(path);
	/* The library wraps its lines (a newline and 4 spaces for a space):
	 * joined back, each message is one line again. */
	size_t kept = 0;
	for (size_t i = 0; text && i < size; i++) {
		if (text[i] == '\n' && i + 4 < size && strncmp(text + i + 1, "    ", 4) == 0) {
			text[kept++] = ' ';
			i += 4;
		} else {
			text[kept++] = text[i];
		}
	}
	size = kept;
	if (text)
		text[size] = '\0';
	size_t n = 0;
	for (size_t i = 0; text && i < size; i++)
		n += text[i] == '\n';
	char **line = n ? calloc(n + 1, sizeof *line) : NULL;
	char **sorted = n ? calloc(n + 1, sizeof *sorted) : NULL;
	size_t k = 0;
	char *save = NULL;
	for (char *l = line ? strtok_r(text, "\n", &save) : NULL; l && k < n;
	     l = strtok_r(NULL, "\n", &save))
		line[k++] = l;
	if (k && sorted) {
		memcpy(sorted, line, k * sizeof *sorted);
		qsort(sorted, k, sizeof *sorted, cmp_str);
		size_t distinct = 1;
		for (size_t i = 1; i < k; i++)
			distinct += strcmp(sorted[i], sorted[i - 1]) != 0;
		char head[200];
		snprintf(head, sizeof head,
		         "primbench: cmd: what %s said in the runs (%zu line%s, %zu "
		         "distinct):",
		         PB_PRELOAD_NAME, k, k == 1 ? "" : "s", distinct);
		pb_print_wrapped(stderr, head, 2);
		for (size_t i = 0; i < k; i++) {
			/* first occurrence: not seen before i */
			bool first = true;
			size_t count = 0;
			for (size_t j = 0; j < k; j++)
				if (strcmp(line[j], line[i]) == 0) {
					first &= j >= i;
					count++;
				}
			if (!first)
				continue;
			char *out;
			char times[32] = "";
			if (count > 1)
				snprintf(times, sizeof times, "%zux ", count);
			if (asprintf(&out, "%s%s", times, line[i]) >= 0) {
				pb_print_wrapped_at(stderr, 2, 4, out);
				free(out);
			}
		}
	}
	free(sorted);
	free(line);
	free(text);
}

/* Runs one; returns 0, 1 (the run failed and is not ignored), 2 (could not
 * start) or 3 (interrupted). */
static int do_run(struct session *s, int side, bool warmup, size_t position)
{
	struct pb_cmd_run pr;
	fflush(stdout); /* with --show-output, our lines before the command's */
	if (s->prepare.argv) {
		int rc = pb_cmd_run_once(&s->prepare, &pr, &interrupted);
		if (rc < 0) {
			cli_error("--prepare: %s", pb_error());
			return 2;
		}
		if (rc == 1)
			return 3;
		if (pr.exit_code != 0) {
			cli_error("--prepare command failed (%s %d)",
			          pr.term_signal ? "signal" : "exit status",
			          pr.term_signal ? pr.term_signal : pr.exit_code);
			return 1;
		}
	}
	struct pb_cmd_record r = {.side = side, .warmup = warmup, .position = position};
	struct side *sd = &s->side[side];
	int rc = pb_cmd_run_once(&sd->spec, &r.run, &interrupted);
	acct_settle(sd, rc == 0 && !warmup);
	if (rc < 0) {
		cli_error("%s", pb_error());
		return 2;
	}
	if (rc == 1)
		return 3;
	r.index = warmup ? ++sd->warm : ++sd->counted;
	add_rec(s, &r);
	if (r.run.leftovers > 0 && leftovers_wait(s, &r) != 0)
		return 3;
	if ((r.run.exit_code != 0) && !s->ignore_failure) {
		char what[96];
		if (r.run.term_signal)
			snprintf(what, sizeof what, "was killed by signal %d (%s)",
			         r.run.term_signal, strsignal(r.run.term_signal));
		else
			snprintf(what, sizeof what, "exited with status %d%s", r.run.exit_code,
			         r.run.exit_code == 127 && s->shell ? " (the shell's 'not found')"
			         : r.run.exit_code == 126 && s->shell
			             ? " (the shell's 'cannot execute')"
			             : "");
		cli_error("%srun %s%zu %s (see --show-output; or -i)", warmup ? "warm-up " : "",
		          s->nsides == 1 ? ""
		          : side         ? "B"
		                         : "A",
		          r.index, what);
		return 1;
	}
	return 0;
}

static char **dup_words(char *const *v, size_t n)
{
	char **w = calloc(n + 1, sizeof *w);
	for (size_t i = 0; w && i < n; i++)
		w[i] = v[i];
	return w;
}

/* v = {"/bin/sh", "-c", script, NULL}: what --shell runs. */
static char *const *sh_c(char *v[4], char *script)
{
	v[0] = "/bin/sh";
	v[1] = "-c";
	v[2] = script;
	v[3] = NULL;
	return v;
}

/* Joins words for `sh -c`. */
static char *join_words(char *const *v)
{
	size_t len = 1;
	for (size_t i = 0; v[i]; i++)
		len += strlen(v[i]) + 1;
	char *j = malloc(len);
	if (!j)
		die_usage("out of memory");
	j[0] = 0;
	for (size_t i = 0; v[i]; i++) {
		if (i)
			strcat(j, " ");
		strcat(j, v[i]);
	}
	return j;
}

static void check_env_arg(const char *opt, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		die_usage("cmd: bad %s '%s' (expected NAME=VALUE)", opt, arg);
	for (const char *p = arg; p < eq; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (p > arg && *p >= '0' && *p <= '9')))
			die_usage("cmd: bad %s '%s' (not a variable name before '=')", opt, arg);
}

static double parse_budget(const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 7 * 86400.0)
		die_usage("cmd: bad --budget '%s' (seconds, more than 0, at most 604800)", arg);
	return v;
}

static double parse_percent(const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (*end == '%')
		end++;
	if (errno || end == arg || *end || !(v >= 0) || v >= 50)
		die_usage("cmd: bad --equivalence '%s' (a percentage in [0, 50), e.g. 1%%)", arg);
	return v / 100;
}

/* The accounting files of one side (counted runs only) as a table, and
 * as JSON in *out (NULL when nothing could be read). */
static void acct_report(const struct session *s, int sd, double tsc_hz, json_t **out)
{
	*out = NULL;
	struct pb_acct_total *t = calloc(1, sizeof *t);
	if (!t)
		return;
	double cpu_s = 0;
	for (size_t i = 0; i < s->nrecs; i++)
		if (s->recs[i].side == sd && !s->recs[i].warmup)
			cpu_s += (s->recs[i].run.user_ns + s->recs[i].run.sys_ns) * 1e-9;
	if (pb_acct_read_dir(s->side[sd].acct_dir[0], t) < 0) {
		cli_error("--account: %s", pb_error());
		free(t);
		return;
	}
	printf("\n%s", s->nsides == 1 ? "" : sd ? "B " : "A ");
	fflush(stdout);
	pb_acct_print(stdout, t, tsc_hz, cpu_s,
	              (s->nsides == 2 && sd == 0) ? PB_ACCT_PRINT_NO_CAVEATS : 0);
	*out = pb_acct_json(t, tsc_hz, cpu_s);
	free(t);
}

/* --record-distribution DIR: side A's exact sizes files (counted runs
 * only) as distribution files in DIR (include/primbench/record.h).
 * Returns 0, or -1 after one error line. */
static int acct_record(const struct session *s, const char *dir)
{
	struct pb_acct_total *t = calloc(1, sizeof *t);
	struct pb_size_record *r = calloc(1, sizeof *r);
	int rc = -1;
	if (!t || !r) {
		cli_error("--record-distribution: out of memory");
	} else if (pb_acct_read_dir(s->side[0].acct_dir[0], t) < 0 ||
	           pb_record_read_dir(s->side[0].acct_dir[0], r) < 0) {
		cli_error("--record-distribution: %s", pb_error());
	} else {
		printf("\nrecorded distributions (from %llu sizes files%s):\n",
		       (unsigned long long)r->files, r->skipped ? ", some skipped" : "");
		if (r->skipped)
			pb_print_wrapped(stdout, r->skip_note, 2);
		int n = pb_record_write(dir, r, t, stdout);
		if (n < 0)
			cli_error("--record-distribution: %s", pb_error());
		else if (n == 0)
			printf(
			    "no memset, memcpy or memmove call of at most 4096 bytes was seen: no "
			    "file written\n");
		rc = n < 0 ? -1 : 0;
	}
	free(t);
	free(r);
	return rc;
}

/* Removes the --account directory tree (two levels: root/SIDE/files). */
static void acct_cleanup(const char *root)
{
	if (!root[0])
		return;
	DIR *d = opendir(root);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char sub[4400];
		snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
		DIR *d2 = opendir(sub);
		struct dirent *f;
		while (d2 && (f = readdir(d2))) {
			if (f->d_name[0] == '.')
				continue;
			char file[4700];
			snprintf(file, sizeof file, "%s/%s", sub, f->d_name);
			unlink(file);
		}
		if (d2)
			closedir(d2);
		rmdir(sub);
	}
	if (d)
		closedir(d);
	rmdir(root);
}

/* Removes the --profile directory and what is left in it. */
static void prof_cleanup(const char *dir)
{
	if (!dir[0])
		return;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		char file[4400];
		snprintf(file, sizeof file, "%s/%s", dir, e->d_name);
		unlink(file);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* A number from a /proc/sys file, or INT_MIN. */
static int proc_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v;
	if (!f)
		return INT_MIN;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MIN;
	fclose(f);
	return v;
}

/* One side's profile: what was sampled, how, then the table. */
static void prof_report(const struct session *s, int sd, const struct pb_profile *p, size_t runs,
                        const char *event, const char *hw_why, bool preload, size_t top,
                        int exit_code)
{
	char line[1024], para[64] = "unknown", kptr[64] = "unknown";
	int pv = proc_int("/proc/sys/kernel/perf_event_paranoid");
	int kv = proc_int("/proc/sys/kernel/kptr_restrict");
	if (pv != INT_MIN)
		snprintf(para, sizeof para, "%d", pv);
	if (kv != INT_MIN)
		snprintf(kptr, sizeof kptr, "%d", kv);
	bool sw = strcmp(event, "cycles") != 0;
	static const char prefix[] = "hardware performance counters not available here: ";
	if (strncmp(hw_why, prefix, sizeof prefix - 1) == 0)
		hw_why += sizeof prefix - 1;
	snprintf(line, sizeof line,
	         "%sprofile: %zu run%s under perf record -e %s (%s%s%s), %" PRIu64
	         " samples%s; perf_event_paranoid %s, kptr_restrict %s, %s",
	         s->nsides == 1 ? ""
	         : sd           ? "B "
	                        : "A ",
	         runs, runs == 1 ? "" : "s", p->event[0] ? p->event : event,
	         sw ? "the software clock; no hardware cycles" : "hardware core cycles",
	         sw && hw_why[0] ? ", " : "", sw ? hw_why : "", p->samples,
	         p->lost ? " (some lost)" : "", para, kptr,
	         geteuid() == 0 ? "as root" : "not root");
	putchar('\n');
	pb_print_wrapped(stdout, line, 2);
	if (exit_code != 0) {
		snprintf(line, sizeof line, "the profiled run exited with status %d", exit_code);
		pb_print_wrapped(stdout, line, 2);
	}
	pb_profile_print(stdout, p, top, preload, 2);
}

static json_t *prof_to_json(const struct pb_profile *p, const char *event, const char *hw_why,
                            bool preload)
{
	json_t *o = pb_profile_json(p, 30);
	bool sw = strcmp(event, "cycles") != 0;
	int pv = proc_int("/proc/sys/kernel/perf_event_paranoid");
	int kv = proc_int("/proc/sys/kernel/kptr_restrict");
	json_object_set_new(o, "event_requested", json_string(event));
	json_object_set_new(o, "event_kind", json_string(sw ? "software" : "hardware"));
	json_object_set_new(o, "no_hardware_reason", sw ? json_string(hw_why) : json_null());
	json_object_set_new(o, "perf_event_paranoid",
	                    pv == INT_MIN ? json_null() : json_integer(pv));
	json_object_set_new(o, "kptr_restrict", kv == INT_MIN ? json_null() : json_integer(kv));
	json_object_set_new(o, "root", json_boolean(geteuid() == 0));
	json_object_set_new(o, "preload", json_boolean(preload));
	return o;
}

int cmd_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"runs", required_argument, 0, 'n'},
	    {"warmup", required_argument, 0, 'w'},
	    {"prepare", required_argument, 0, 'p'},
	    {"cwd", required_argument, 0, 'C'},
	    {"env", required_argument, 0, 'e'},
	    {"shell", no_argument, 0, 'S'},
	    {"show-output", no_argument, 0, 'O'},
	    {"ignore-failure", no_argument, 0, 'i'},
	    {"output", required_argument, 0, 'o'},
	    {"format", required_argument, 0, 'f'},
	    {"quiet", no_argument, 0, 'q'},
	    {"vs", required_argument, 0, 'v'},
	    {"vs-env", required_argument, 0, 'V'},
	    {"metric", required_argument, 0, 'm'},
	    {"until-verdict", no_argument, 0, 'u'},
	    {"equivalence", required_argument, 0, 'E'},
	    {"max-runs", required_argument, 0, 'M'},
	    {"budget", required_argument, 0, 'b'},
	    {"help", no_argument, 0, 'h'},
	    {"memset", required_argument, 0, 1000},
	    {"memcpy", required_argument, 0, 1001},
	    {"memmove", required_argument, 0, 1002},
	    {"vs-memset", required_argument, 0, 1003},
	    {"vs-memcpy", required_argument, 0, 1004},
	    {"vs-memmove", required_argument, 0, 1005},
	    {"account", optional_argument, 0, 1006},
	    {"profile", no_argument, 0, 1007},
	    {"profile-runs", required_argument, 0, 1008},
	    {"profile-top", required_argument, 0, 1009},
	    {"record-distribution", required_argument, 0, 1010},
	    {"wait-children", no_argument, 0, 1011},
	    {"cpu", required_argument, 0, 1012},
	    {0, 0, 0, 0},
	};
	const char *policy[2][3] = {{0}};
	int account = 0; /* 1 counts, 2 ticks */
	bool profile = false, profile_opts = false;
	size_t profile_runs = 1, profile_top = 15;
	const char *record_dir = NULL; /* --record-distribution */
	struct session s = {.runs = 10, .max_runs = 60, .equivalence = 0.01, .metric = PB_CMD_REAL};
	const char *out = NULL, *vs = NULL, *prepare = NULL, *cwd = NULL;
	struct cli_format fmt = {.fmt = PB_FORMAT_TEXT};
	char **env_a = calloc((size_t)argc + 16, sizeof *env_a);
	char **env_b = calloc((size_t)argc * 2 + 16, sizeof *env_b);
	size_t nenv_a = 0, nvs_env = 0;
	char **vs_env = calloc((size_t)argc + 1, sizeof *vs_env);
	bool runs_given = false, show_output = false, budget_given = false, max_given = false;
	bool equiv_given = false;
	cpu_set_t cpus; /* --cpu */
	const char *cpus_text = NULL;
	if (!env_a || !env_b || !vs_env)
		die_usage("out of memory");
	opterr = 0;
	int opt;
	while ((opt = cli_getopt_long(argc, argv, "+:hn:w:p:e:io:m:f:q", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return PB_EXIT_OK;
		case 'n':
			s.runs = cli_parse_count("run count", optarg, 1, 1000000);
			runs_given = true;
			break;
		case 'w':
			s.warmup = cli_parse_count("warm-up count", optarg, 0, 1000000);
			break;
		case 'p':
			prepare = optarg;
			break;
		case 'C':
			cwd = optarg;
			break;
		case 'e':
			check_env_arg("--env", optarg);
			env_a[nenv_a++] = optarg;
			break;
		case 'S':
			s.shell = true;
			break;
		case 'O':
			show_output = true;
			break;
		case 'i':
			s.ignore_failure = true;
			break;
		case 'o':
			out = cli_output_path(optarg);
			break;
		case 'f':
			fmt.fmt = cli_parse_format(optarg);
			break;
		case 'q':
			cli_quiet = true;
			break;
		case 'v':
			vs = optarg;
			break;
		case 'V':
			check_env_arg("--vs-env", optarg);
			vs_env[nvs_env++] = optarg;
			break;
		case 'm':
			s.metric = pb_cmd_parse_figure(optarg);
			if (s.metric < 0)
				die_usage("cmd: --metric: %s", pb_error());
			break;
		case 'u':
			s.until_verdict = true;
			break;
		case 'E':
			s.equivalence = parse_percent(optarg);
			equiv_given = true;
			break;
		case 'M':
			s.max_runs = cli_parse_count("--max-runs", optarg, 2, 100000);
			max_given = true;
			break;
		case 'b':
			s.budget_s = parse_budget(optarg);
			budget_given = true;
			break;
		case 1000:
		case 1001:
		case 1002:
		case 1003:
		case 1004:
		case 1005: {
			int side = opt >= 1003, op = (opt - 1000) % 3;
			static const enum pb_op ops[3] = {PB_OP_MEMSET, PB_OP_MEMCPY,
			                                  PB_OP_MEMMOVE};
			struct pb_policy pol;
			if (pb_policy_parse(ops[op], optarg, pb_cpu_features(), &pol) != 0)
				die_usage("cmd: --%s%s: %s", side ? "vs-" : "", pb_op_name(ops[op]),
				          pb_error());
			policy[side][op] = optarg;
			break;
		}
		case 1006:
			if (!optarg || strcmp(optarg, "counts") == 0 || strcmp(optarg, "1") == 0)
				account = 1;
			else if (strcmp(optarg, "ticks") == 0)
				account = 2;
			else
				die_usage("cmd: bad --account '%s' (counts or ticks)", optarg);
			break;
		case 1007:
			profile = true;
			break;
		case 1008:
			profile_runs = cli_parse_count("--profile-runs", optarg, 1, 1000);
			profile_opts = true;
			break;
		case 1009:
			profile_top = cli_parse_count("--profile-top", optarg, 1, 1000);
			profile_opts = true;
			break;
		case 1010:
			if (!optarg[0])
				die_usage("cmd: empty directory in '--record-distribution'");
			record_dir = optarg;
			break;
		case 1011:
			s.wait_children = true;
			break;
		case 1012:
			if (parse_cpus(optarg, &cpus) != 0)
				die_usage("cmd: --cpu %s: %s", optarg, pb_error());
			cpus_text = optarg;
			break;
		default:
			die_bad_option("cmd", argv, opt);
		}
	}
	if (optind >= argc)
		die_usage("cmd: no command given (usage: primbench cmd [OPTIONS] -- COMMAND "
		          "[ARGS...])");
	if (!argv[optind][0])
		die_usage("cmd: the command is an empty string");
	bool vs_policy = policy[1][0] || policy[1][1] || policy[1][2];
	s.nsides = (vs || nvs_env || vs_policy) ? 2 : 1;
	if (record_dir) {
		struct stat rst;
		if (!account)
			die_usage("cmd: --record-distribution needs --account");
		if (s.nsides == 2)
			die_usage("cmd: --record-distribution records one command: not with --vs, "
			          "--vs-env or --vs-memset/--vs-memcpy/--vs-memmove");
		if (stat(record_dir, &rst) == 0 && !S_ISDIR(rst.st_mode))
			die_usage("cmd: --record-distribution: '%s' is not a directory",
			          record_dir);
		cli_check_output_dir("--record-distribution", record_dir);
	}
	if (s.until_verdict && s.nsides == 1)
		die_usage("cmd: --until-verdict needs a B side (--vs or --vs-env)");
	if (!s.until_verdict && (budget_given || max_given || equiv_given))
		die_usage("cmd: --budget, --max-runs and --equivalence go with --until-verdict");
	if (profile_opts && !profile)
		die_usage("cmd: --profile-runs and --profile-top go with --profile");
	if (s.until_verdict && runs_given)
		die_usage("cmd: -n and --until-verdict do not go together (use --max-runs)");
	if (s.metric >= PB_CMD_MAXRSS && s.metric < PB_CMD_NFIGURES && s.nsides == 2)
		die_usage("cmd: --metric %s: the verdict is on a time (real, user, sys, user+sys)",
		          pb_cmd_figure_name((enum pb_cmd_figure)s.metric));
	if (cwd) {
		struct stat st;
		if (stat(cwd, &st) != 0 || !S_ISDIR(st.st_mode))
			die_usage("cmd: --cwd '%s': not a directory", cwd);
	}
	if (out && pb_output_reserve(out) != 0)
		die_usage("%s", pb_error());

	/* Side A: the words after the options, or sh -c "those words". */
	struct side *a = &s.side[0], *b = &s.side[1];
	a->argv_owned = dup_words(argv + optind, (size_t)(argc - optind));
	if (s.shell) {
		a->spec.argv = sh_c(a->shell_argv, join_words(a->argv_owned));
	} else {
		a->spec.argv = a->argv_owned;
	}
	a->spec.env_set = env_a;
	a->spec.cwd = cwd;
	a->spec.show_output = show_output;
	a->spec.wait_children = s.wait_children;
	a->spec.cpus = cpus_text ? &cpus : NULL;
	if (s.nsides == 2) {
		if (vs && s.shell) {
			b->spec.argv = sh_c(b->shell_argv, (char *)vs);
		} else if (vs) {
			b->argv_owned = pb_cmd_split(vs);
			if (!b->argv_owned)
				die_usage("cmd: --vs %s", pb_error());
			b->spec.argv = b->argv_owned;
		} else {
			b->spec.argv = a->spec.argv;
		}
		size_t k = 0;
		for (size_t i = 0; i < nenv_a; i++)
			env_b[k++] = env_a[i];
		for (size_t i = 0; i < nvs_env; i++)
			env_b[k++] = vs_env[i];
		b->spec.env_set = env_b;
		b->spec.cwd = cwd;
		b->spec.show_output = show_output;
		b->spec.wait_children = s.wait_children;
		b->spec.cpus = cpus_text ? &cpus : NULL;
	}
	if (prepare) {
		if (s.shell) {
			s.prepare.argv = sh_c(s.prepare_shell, (char *)prepare);
		} else {
			s.prepare_owned = pb_cmd_split(prepare);
			if (!s.prepare_owned)
				die_usage("cmd: --prepare %s", pb_error());
			s.prepare.argv = s.prepare_owned;
		}
		/* The user's --env only: no library for the preparation. */
		char **env_user = calloc(nenv_a + 1, sizeof *env_user);
		if (!env_user)
			die_usage("out of memory");
		memcpy(env_user, env_a, nenv_a * sizeof *env_user);
		s.prepare.env_set = env_user;
		s.prepare.cwd = cwd;
		s.prepare.show_output = show_output;
	}

	struct pb_seq_plan plan = {0};
	if (s.until_verdict && pb_seq_plan_make(s.max_runs, 0.05, &plan) != 0)
		die_usage("cmd: %s", pb_error());
	/* Every program must be startable before anything is timed. */
	if (pb_cmd_check(&a->spec) != 0)
		die_usage("cmd: %s", pb_error());
	if (s.nsides == 2 && pb_cmd_check(&b->spec) != 0)
		die_usage("cmd: --vs: %s", pb_error());
	if (s.prepare.argv && pb_cmd_check(&s.prepare) != 0)
		die_usage("cmd: --prepare: %s", pb_error());
	/* perf: PRIMBENCH_PERF names another program (tests use a stand-in). */
	const char *perf = getenv("PRIMBENCH_PERF");
	if (!perf || !perf[0])
		perf = "perf";
	if (profile) {
		char *pargv[] = {(char *)perf, NULL};
		struct pb_cmd_spec ps = {.argv = pargv};
		if (pb_cmd_check(&ps) != 0)
			die_usage("cmd: --profile: %s (perf is in the Debian package linux-perf)",
			          pb_error());
	}

	/* libprimswitch.so: --memset/--memcpy/--memmove for both sides, the
	 * --vs- ones for B, --account for both (docs/preload.md). */
	char so[4096] = "";
	char acct_root[4096] = "";
	static char preload_log_env[4200] = "PRIMBENCH_PRELOAD_LOG=";
	const char *preload_log = preload_log_env + 22;
	bool use_log = false;
	bool want_lib[2] = {false, false};
	static const char *const names[5] = {"PRIMBENCH_MEMSET", "PRIMBENCH_MEMCPY",
	                                     "PRIMBENCH_MEMMOVE", "PRIMBENCH_ACCOUNT",
	                                     "PRIMBENCH_ACCOUNT_DIR"};
	for (int sd = 0; sd < s.nsides; sd++) {
		want_lib[sd] = account != 0;
		for (int op = 0; op < 3; op++) {
			if (sd == 1 && !policy[1][op])
				policy[1][op] = policy[0][op];
			want_lib[sd] |= policy[sd][op] != NULL;
		}
	}
	if (want_lib[0] || want_lib[1]) {
		/* The library's variables belong to these options: set by hand too,
		 * one setting would silently win over the other. */
		for (int sd = 0; sd < s.nsides; sd++)
			for (size_t i = 0; (sd ? env_b : env_a)[i]; i++)
				for (int v = 0; v < 5; v++) {
					const char *e = (sd ? env_b : env_a)[i];
					size_t len = strlen(names[v]);
					if (strncmp(e, names[v], len) == 0 && e[len] == '=')
						die_usage(
						    "cmd: %s set with --env/--vs-env: use "
						    "--memset, "
						    "--memcpy, --memmove, --vs-... or --account",
						    names[v]);
				}
		if (pb_preload_path(so, sizeof so) != 0)
			die_usage("cmd: %s", pb_error());
	}
	inherited_library_vars(want_lib[0] || want_lib[1], env_a, env_b, record_dir != NULL);
	if (account) {
		const char *tmp = getenv("TMPDIR");
		snprintf(acct_root, sizeof acct_root, "%s/primbench-acct-XXXXXX",
		         tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(acct_root))
			die_usage("cmd: --account: cannot make a directory in %s: %s",
			          tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
	}
	for (int sd = 0; sd < s.nsides; sd++) {
		if (!want_lib[sd])
			continue;
		char **env = sd ? env_b : env_a;
		size_t n = sd ? nenv_a + nvs_env : nenv_a;
		/* LD_PRELOAD: the library first, then what the side's --env or
		 * --vs-env, else the environment, gave. */
		const char *old = getenv("LD_PRELOAD");
		for (size_t i = 0; i < n; i++)
			if (strncmp(env[i], "LD_PRELOAD=", 11) == 0)
				old = env[i] + 11;
		char *e;
		if (asprintf(&e, "LD_PRELOAD=%s%s%s", so, old && old[0] ? " " : "",
		             old ? old : "") < 0)
			die_usage("out of memory");
		env[n++] = e;
		/* Exported PRIMBENCH_* variables must not leak in: unset the ones
		 * these options do not set ("NAME" without '=' unsets). */
		for (int op = 0; op < 3; op++) {
			if (policy[sd][op]) {
				if (asprintf(&e, "%s=%s", names[op], policy[sd][op]) < 0)
					die_usage("out of memory");
				env[n++] = e;
			} else {
				env[n++] = (char *)names[op];
			}
		}
		/* --record-distribution: the exact sizes files too (account.h). */
		env[n++] = record_dir ? "PRIMBENCH_ACCOUNT_SIZES=1" : "PRIMBENCH_ACCOUNT_SIZES";
		/* The library's lines: to the session's file unless --env names
		 * one; each run's tree says a problem again (no marker). */
		bool own_log = false;
		for (size_t i = 0; i < n; i++)
			own_log |= strncmp(env[i], "PRIMBENCH_PRELOAD_LOG=", 22) == 0;
		if (!own_log) {
			env[n++] = preload_log_env;
			use_log = true;
		}
		env[n++] = "PRIMBENCH_PRELOAD_WARNED";
		if (!account) {
			env[n++] = (char *)names[3];
			env[n++] = (char *)names[4];
		} else {
			struct side *side = &s.side[sd];
			if (asprintf(&e, "PRIMBENCH_ACCOUNT=%s", account == 2 ? "ticks" : "1") < 0)
				die_usage("out of memory");
			env[n++] = e;
			/* The counted runs' files end in acct_dir[0]; each run writes in
			 * acct_dir[1], moved there when the run counts (acct_settle). */
			for (int w = 0; w < 2; w++) {
				snprintf(side->acct_dir[w], sizeof side->acct_dir[w], "%s/%s%s",
				         acct_root, sd ? "B" : "A", w ? "-run" : "");
				if (mkdir(side->acct_dir[w], 0700) != 0)
					die_usage("cmd: --account: cannot make %s: %s",
					          side->acct_dir[w], strerror(errno));
			}
			if (asprintf(&side->acct_env, "PRIMBENCH_ACCOUNT_DIR=%s",
			             side->acct_dir[1]) < 0)
				die_usage("out of memory");
			env[n++] = side->acct_env;
		}
		env[n] = NULL;
		/* A run of a tiny program under the side's environment: the library
		 * must load and accept every policy (the command's own warnings go
		 * to /dev/null, and --env may hide features). */
		if (preflight(&s.side[sd].spec, sd, s.nsides) != 0) {
			acct_cleanup(acct_root);
			die_usage("cmd: %s", pb_error());
		}
	}
	/* --profile: the event, and a test record, before anything is timed. */
	char prof_dir[4096] = "", hw_why[256] = "";
	const char *event = "cpu-clock";
	if (profile) {
		if (pb_counters_available(hw_why, sizeof hw_why))
			event = "cycles";
		const char *tmp = getenv("TMPDIR");
		snprintf(prof_dir, sizeof prof_dir, "%s/primbench-profile-XXXXXX",
		         tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(prof_dir)) {
			acct_cleanup(acct_root);
			die_usage("cmd: --profile: cannot make a directory in %s: %s",
			          tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
		}
		if (pb_profile_check(perf, event, prof_dir) != 0) {
			acct_cleanup(acct_root);
			prof_cleanup(prof_dir);
			die_usage("cmd: --profile: %s", pb_error());
		}
	}
	if (s.nsides == 2 && want_lib[0] != want_lib[1])
		warn("cmd: only %s loads libprimswitch.so and pays for it; add e.g. --memcpy libc",
		     want_lib[0] ? "A" : "B");

	if (use_log)
		preload_log_make(preload_log_env, sizeof preload_log_env);

	cli_on_stop_signals(on_signal);
	cli_format_begin(&fmt);

	/* What runs, first: with --show-output its output follows. */
	char line[1024];
	for (int sd = 0; sd < s.nsides; sd++) {
		format_argv(s.side[sd].spec.argv, line, sizeof line);
		char head[1200];
		snprintf(head, sizeof head, "%s%s%s",
		         s.nsides == 1 ? "command: "
		         : sd          ? "B: "
		                       : "A: ",
		         line, "");
		pb_print_wrapped(stdout, head, s.nsides == 1 ? 9 : 3);
		for (size_t i = 0; s.side[sd].spec.env_set && s.side[sd].spec.env_set[i]; i++)
			if (pb_cmd_env_in_key(s.side[sd].spec.env_set[i])) {
				/* a long value (a path) is cut at 80 columns */
				char env_line[4200];
				snprintf(env_line, sizeof env_line, "env %s",
				         s.side[sd].spec.env_set[i]);
				pb_print_wrapped_at(stdout, 3, 7, env_line);
			}
	}
	fflush(stdout);

	time_t started = time(NULL);
	double t0 = now_s();
	cli_progress_start(&run_line, "primbench cmd");
	size_t position = 0;
	int status = PB_EXIT_OK;
	bool stopped = false;
	const char *ended_by = NULL;
	enum pb_verdict verdict = PB_VERDICT_NONE;
	size_t look = 0;
	struct ab_result look_ab = {0};
	json_t *looks_json = json_array();

	/* Warm-ups: W per side, A then B. */
	size_t total = s.until_verdict ? 0 : (s.warmup + s.runs) * (size_t)s.nsides;
	for (size_t i = 0; i < s.warmup * (size_t)s.nsides && !stopped; i++) {
		progress(&s, position, total, t0);
		int side = s.nsides == 2 ? pb_cmd_abba_side(i) : 0;
		int rc = do_run(&s, side, true, position++);
		if (rc) {
			status = rc == 3   ? 128 + (interrupted_by ? interrupted_by : SIGINT)
			         : rc == 2 ? PB_EXIT_USAGE
			                   : PB_EXIT_CHECK_FAILED;
			stopped = true;
		}
	}
	size_t limit = s.until_verdict ? s.max_runs : s.runs;
	for (size_t i = 0; i < limit * (size_t)s.nsides && !stopped; i++) {
		progress(&s, position, total, t0);
		int side = s.nsides == 2 ? pb_cmd_abba_side(i) : 0;
		int rc = do_run(&s, side, false, position++);
		if (rc) {
			status = rc == 3   ? 128 + (interrupted_by ? interrupted_by : SIGINT)
			         : rc == 2 ? PB_EXIT_USAGE
			                   : PB_EXIT_CHECK_FAILED;
			stopped = true;
			break;
		}
		if (!s.until_verdict || a->counted != b->counted)
			continue;
		if (look < plan.nlooks && a->counted == plan.look_n[look]) {
			compute_ab(&s, plan.level_per_look, true, &look_ab);
			verdict = look_ab.valid ? pb_verdict_of(&look_ab.ratio, s.equivalence)
			                        : PB_VERDICT_NONE;
			json_t *lj = json_object();
			json_object_set_new(lj, "runs_per_side",
			                    json_integer((json_int_t)a->counted));
			json_object_set_new(lj, "ratio", pb_json_number(look_ab.ratio.estimate));
			json_object_set_new(lj, "ci_lo", pb_json_number(look_ab.ratio.lo));
			json_object_set_new(lj, "ci_hi", pb_json_number(look_ab.ratio.hi));
			json_object_set_new(lj, "verdict", json_string(pb_verdict_name(verdict)));
			json_array_append_new(looks_json, lj);
			look++;
			if (!look_ab.valid && look_ab.nonpositive) {
				ended_by = "zero-metric";
				break;
			}
			if (verdict != PB_VERDICT_NONE) {
				ended_by = "verdict";
				break;
			}
		}
		if (budget_given && now_s() - t0 > s.budget_s) {
			ended_by = "budget";
			break;
		}
	}
	if (s.until_verdict && !ended_by && !stopped)
		ended_by = "max-runs";
	if (status == PB_EXIT_USAGE) {
		/* A program that passed pb_cmd_check but could not be executed
		 * (a missing #! interpreter): the error line says it; no file. */
		cli_progress_done(&run_line);
		preload_log_report(preload_log);
		acct_cleanup(acct_root);
		prof_cleanup(prof_dir);
		return status;
	}

	/* --profile: the profiled runs, after the timed ones (perf's sampling
	 * perturbs timing), A then B. */
	struct pb_profile prof[2];
	bool have_prof[2] = {false, false};
	int prof_exit[2] = {0, 0};
	memset(prof, 0, sizeof prof);
	for (int sd = 0; profile && status == PB_EXIT_OK && sd < s.nsides; sd++) {
		if (run_line.on)
			fprintf(stderr, "\r\033[Kprimbench cmd: %s%sunder perf record",
			        "profiling ",
			        s.nsides == 1 ? ""
			        : sd          ? "B "
			                      : "A ");
		fflush(stdout);
		int rc = pb_profile_run(perf, event, prof_dir, &s.side[sd].spec, &s.prepare,
		                        profile_runs, &interrupted, &prof[sd], &prof_exit[sd]);
		acct_settle(&s.side[sd], false);
		if (rc == 1) {
			status = 128 + (interrupted_by ? interrupted_by : SIGINT);
			stopped = true;
		} else if (rc < 0) {
			if (run_line.on)
				fputs("\r\033[K", stderr);
			cli_error("--profile: %s%s",
			          s.nsides == 1 ? ""
			          : sd          ? "B: "
			                        : "A: ",
			          pb_error());
		} else {
			have_prof[sd] = true;
		}
	}
	prof_cleanup(prof_dir);
	/* What the profiled runs left running, before the report. */
	if (pb_cmd_wait_leftovers(&interrupted) < 0 && status < 128)
		status = 128 + (interrupted_by ? interrupted_by : SIGINT);
	if (run_line.on)
		fputs("\r\033[K", stderr);
	preload_log_report(preload_log);

	/* Report. */
	snprintf(line, sizeof line,
	         "%zu counted run%s%s, %zu warm-up%s; output %s; times from CLOCK_MONOTONIC "
	         "(real) and wait4() (the rest)%s%s%s%s",
	         a->counted + (s.nsides == 2 ? b->counted : 0),
	         a->counted + b->counted == 1 ? "" : "s", s.nsides == 2 ? " in ABBA order" : "",
	         a->warm + b->warm, a->warm + b->warm == 1 ? "" : "s",
	         show_output ? "shown" : "to /dev/null", s.shell ? "; through /bin/sh -c" : "",
	         s.wait_children ? "; each run until its last descendant exited "
	                           "(--wait-children)"
	                         : "",
	         cpus_text ? "; pinned to CPUs " : "", cpus_text ? cpus_text : "");
	pb_print_wrapped(stdout, line, 0);
	putchar('\n');
	const char *tu;
	double div;
	time_unit(typical_real(&s), &tu, &div);
	double *buf = malloc((s.nrecs + 1) * sizeof *buf);
	if (!buf)
		die_usage("out of memory");
	if (s.nrecs)
		print_runs(&s, tu, div);
	for (int sd = 0; sd < s.nsides; sd++)
		if (s.side[sd].counted)
			print_summary(&s, sd, tu, div, buf);
	if (s.nrecs)
		putchar('\n');
	for (int sd = 0; sd < s.nsides; sd++)
		print_first_run(&s, sd, buf);
	if (s.leftover_runs) {
		snprintf(line, sizeof line,
		         "%zu of %zu runs left processes running when the command exited (at "
		         "most %ld): %s",
		         s.leftover_runs, s.nrecs, s.leftover_max,
		         s.wait_children ? "each run lasted until they exited, their CPU time "
		                           "included (--wait-children)"
		                         : "waited for untimed before the next run; their time "
		                           "is in no figure (--wait-children times them)");
		pb_print_wrapped(stdout, line, 2);
	}
	size_t failed = 0, counted_all = 0;
	for (size_t i = 0; i < s.nrecs; i++)
		if (!s.recs[i].warmup) {
			counted_all++;
			failed += s.recs[i].run.exit_code != 0;
		}
	if (failed && s.ignore_failure) {
		snprintf(line, sizeof line,
		         "%zu of %zu counted runs failed (non-zero exit or a signal: the exit "
		         "column); --ignore-failure kept them in the statistics.",
		         failed, counted_all);
		pb_print_wrapped(stdout, line, 2);
	}

	json_t *acct_json[2] = {NULL, NULL};
	if (account) {
		double hz = 0;
		if (account == 2 && pb_timer_init() == 0 && pb_timer_info()->clock == PB_CLOCK_TSC)
			hz = pb_timer_info()->hz;
		for (int sd = 0; sd < s.nsides; sd++)
			acct_report(&s, sd, hz, &acct_json[sd]);
	}
	/* A distribution that cannot be written is an environment error. */
	if (record_dir && acct_record(&s, record_dir) != 0 && status == PB_EXIT_OK)
		status = PB_EXIT_USAGE;

	json_t *prof_json[2] = {NULL, NULL};
	for (int sd = 0; sd < s.nsides; sd++)
		if (have_prof[sd]) {
			prof_report(&s, sd, &prof[sd], profile_runs, event, hw_why, want_lib[sd],
			            profile_top, prof_exit[sd]);
			prof_json[sd] = prof_to_json(&prof[sd], event, hw_why, want_lib[sd]);
		}
	if (s.nsides == 2 && have_prof[0] && have_prof[1]) {
		printf("\nprofile, B vs A: samples and share of all samples per family\n");
		pb_profile_print_vs(stdout, &prof[0], &prof[1], want_lib[0] || want_lib[1]);
	}

	struct ab_result ab = {0};
	if (s.nsides == 2) {
		compute_ab(&s, 0.95, false, &ab);
		print_ab(&s, &ab, tu, div);
		if (s.until_verdict && ended_by) {
			putchar('\n');
			if (strcmp(ended_by, "verdict") == 0)
				snprintf(
				    line, sizeof line,
				    "until-verdict: ended by a verdict at look %zu of %zu (%zu "
				    "runs per "
				    "side): %s. B/A %.4f, %.2f%% CI [%.4f, %.4f] (Hodges-Lehmann "
				    "on "
				    "the minima of every %d runs of a side once they give an "
				    "interval at this level, before that on every run). Each look "
				    "tests "
				    "at "
				    "%.2f%% (Bonferroni over %zu looks), so the chance of a false "
				    "verdict is at most 5%%. Margin: +-%.1f%%.",
				    look, plan.nlooks, a->counted,
				    verdict == PB_VERDICT_DIFFERENT
				        ? (look_ab.ratio.lo > 1 ? "B is slower" : "B is faster")
				    : (look_ab.ratio.lo > 1 || look_ab.ratio.hi < 1)
				        ? "equivalent: B differs, but by less than the margin"
				        : "equivalent: no difference beyond the margin",
				    look_ab.ratio.estimate, 100 * plan.level_per_look,
				    look_ab.ratio.lo, look_ab.ratio.hi, PB_SEQ_BLOCK,
				    100 * plan.level_per_look, plan.nlooks, 100 * s.equivalence);
			else
				snprintf(line, sizeof line,
				         "until-verdict: no verdict: stopped by %s after %zu runs "
				         "per side "
				         "(%zu of %zu looks done; each at %.2f%%, Bonferroni)",
				         strcmp(ended_by, "budget") == 0 ? "--budget"
				         : strcmp(ended_by, "zero-metric") == 0
				             ? "runs whose figure is 0"
				             : "--max-runs",
				         a->counted, look, plan.nlooks, 100 * plan.level_per_look);
			pb_print_wrapped(stdout, line, 2);
			if (strcmp(ended_by, "verdict") != 0 && status == PB_EXIT_OK)
				status = PB_EXIT_CHECK_FAILED;
		}
	}

	if (out || fmt.fmt != PB_FORMAT_TEXT) {
		struct pb_cache_info caches;
		pb_cache_detect(&caches, NULL);
		json_t *doc = pb_results_new(cli_argc, cli_argv, started, &caches, -1);
		json_t *cases = doc ? json_object_get(doc, "cases") : NULL;
		for (int sd = 0; cases && sd < s.nsides; sd++) {
			json_t *c =
			    pb_cmd_case_json(&s.side[sd].spec, s.shell, sd, s.recs, s.nrecs);
			if (c && acct_json[sd])
				json_object_set(c, "accounting", acct_json[sd]);
			if (c && prof_json[sd])
				json_object_set(c, "profile", prof_json[sd]);
			if (c)
				json_array_append_new(cases, c);
		}
		if (doc && s.nsides == 2) {
			json_t *abj = json_object();
			json_object_set_new(
			    abj, "metric",
			    json_string(pb_cmd_figure_name((enum pb_cmd_figure)s.metric)));
			char *order = malloc(s.nrecs + 1);
			for (size_t i = 0; order && i < s.nrecs; i++)
				order[i] = s.recs[i].side ? 'B' : 'A';
			if (order) {
				order[s.nrecs] = 0;
				json_object_set_new(abj, "order", json_string(order));
				free(order);
			}
			if (ab.valid) {
				json_object_set_new(abj, "median_a", pb_json_number(ab.med_a));
				json_object_set_new(abj, "median_b", pb_json_number(ab.med_b));
				json_object_set_new(abj, "difference_of_medians",
				                    pb_json_number(ab.med_b - ab.med_a));
				json_t *r = json_object();
				json_object_set_new(r, "method", json_string("hodges-lehmann-log"));
				json_object_set_new(r, "estimate",
				                    pb_json_number(ab.ratio.estimate));
				json_object_set_new(r, "level", pb_json_number(ab.ratio.level));
				json_object_set_new(r, "ci_lo", pb_json_number(ab.ratio.lo));
				json_object_set_new(r, "ci_hi", pb_json_number(ab.ratio.hi));
				json_object_set_new(abj, "ratio", r);
				json_object_set_new(
				    abj, "mann_whitney",
				    json_pack("{s:o,s:o,s:b}", "u", pb_json_number(ab.u.u_x), "p",
				              pb_json_number(ab.u.p), "exact", ab.u.exact));
				if (ab.t_valid)
					json_object_set_new(
					    abj, "student_t",
					    json_pack("{s:o,s:o,s:o,s:o,s:o,s:b}", "level",
					              pb_json_number(ab.t.level), "difference",
					              pb_json_number(ab.t.diff), "half_width",
					              pb_json_number(ab.t.half_width), "percent",
					              pb_json_number(ab.t.pct), "pooled_sd",
					              pb_json_number(ab.t.pooled_sd), "significant",
					              ab.t.significant));
			}
			if (s.until_verdict) {
				json_t *seq = json_object();
				json_object_set_new(seq, "method",
				                    json_string("bonferroni-fixed-looks"));
				json_object_set_new(seq, "estimator", json_string(PB_SEQ_METHOD));
				json_object_set_new(seq, "alpha", pb_json_number(plan.alpha));
				json_object_set_new(seq, "level_per_look",
				                    pb_json_number(plan.level_per_look));
				json_t *ln = json_array();
				for (size_t i = 0; i < plan.nlooks; i++)
					json_array_append_new(
					    ln, json_integer((json_int_t)plan.look_n[i]));
				json_object_set_new(seq, "schedule", ln);
				json_object_set_new(seq, "equivalence",
				                    pb_json_number(s.equivalence));
				json_object_set_new(seq, "looks", json_incref(looks_json));
				json_object_set_new(seq, "ended_by",
				                    ended_by ? json_string(ended_by) : json_null());
				json_object_set_new(seq, "verdict",
				                    json_string(pb_verdict_name(verdict)));
				json_object_set_new(abj, "until_verdict", seq);
			}
			json_object_set_new(doc, "ab", abj);
		}
		if (doc && failed && s.ignore_failure) {
			snprintf(line, sizeof line,
			         "%zu of %zu counted runs failed; --ignore-failure kept them",
			         failed, counted_all);
			json_array_append_new(json_object_get(doc, "notes"), json_string(line));
		}
		if (doc) {
			struct pb_noise noise = {0};
			pb_results_finish(doc, &noise, status >= 128);
			int wrc = out ? cli_write_results(doc, out) : PB_EXIT_OK;
			if (wrc != PB_EXIT_OK && status == PB_EXIT_OK)
				status = wrc;
			if (cli_format_end(&fmt, doc) != 0) {
				cli_error("%s", pb_error());
				if (status == PB_EXIT_OK)
					status = PB_EXIT_USAGE;
			}
		} else {
			cli_error("%s", pb_error());
		}
		json_decref(doc);
	}
	json_decref(looks_json);
	json_decref(acct_json[0]);
	json_decref(acct_json[1]);
	json_decref(prof_json[0]);
	json_decref(prof_json[1]);
	pb_profile_free(&prof[0]);
	pb_profile_free(&prof[1]);
	acct_cleanup(acct_root);
	if (status >= 128)
		cli_error("interrupted; the finished runs are in the tables%s",
		          out ? " and the file" : "");
	free(buf);
	free(s.recs);
	free(a->argv_owned);
	if (s.shell)
		free(a->shell_argv[2]);
	pb_cmd_free_words(b->argv_owned);
	pb_cmd_free_words(s.prepare_owned);
	free(env_a);
	free(env_b);
	free(vs_env);
	return status;
}
