/* cmd_latency.c - `primbench latency`: the pointer-chase curve of
 * load-to-use latency over working-set sizes (src/suites/latency.c), as a
 * table with the cache sizes the machine reports marked where they fall,
 * and a check of those sizes against the curve's steps. `info --latency`
 * (its old form) runs the same table through cli_latency_table.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/processes.h"
#include "primbench/cpu.h"
#include "primbench/curve_text.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/latency.h"
#include "primbench/pages.h"
#include "primbench/results.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/syscall.h"
#include "primbench/text.h"
#include "primbench/timer.h"

#define SWEEP_MIN_BYTES     (4ull << 10)
#define SWEEP_DEFAULT_BYTES (64ull << 20)

static void usage(FILE *f)
{
	fputs("usage: primbench latency [--min SIZE] [--max SIZE] [--pages LIST] [--cpu N]\n"
	      "                         [--replicates R] [--processes N] [--seed N]\n"
	      "                         [-o FILE] [-q]\n"
	      "       primbench latency --load N [--load-kernel K] [--max SIZE] [--cpu N] ...\n\n"
	      "Measures load-to-use latency with a pointer chase: one dependent load per\n"
	      "cache line of a buffer, the lines in a random order within and across pages\n"
	      "(THP requested), at two sizes per octave. Prints the curve with the cache\n"
	      "sizes this machine reports marked where they fall, the steps of the curve,\n"
	      "and which reported sizes the steps agree with.\n\n"
	      "The whole sweep runs R times in a row (replicates), each with a fresh\n"
	      "buffer and chain: a point's figure is the geometric mean of the\n"
	      "replicates' medians of 5 rounds, with a 95% CI (Student t on their logs).\n\n"
	      "  --min SIZE    the smallest working set (default 4K; K/M/G suffixes)\n"
	      "  --max SIZE    the largest (default 64M, or twice the LLC figure if larger;\n"
	      "                at most 16G and a quarter of RAM)\n"
	      "  --pages LIST  one curve per page size of LIST (4K,2M,1G): 4K base pages,\n"
	      "                2M from hugetlbfs or THP, 1G from hugetlbfs; a size not\n"
	      "                available is skipped with one line (default: THP requested)\n"
	      "  --cpu N       pin to CPU N (default: the quietest by a noise probe)\n"
	      "  --replicates R\n"
	      "                runs of the whole sweep, one after another (default 5; 1..100)\n"
	      "  --processes N the replicates in N fresh processes of primbench, one after\n"
	      "                another (default 1: this one)\n"
	      "  --seed N      seed of the first replicate's chains (default: a new one each\n"
	      "                run, recorded in the result file)\n"
	      "  -o, --output FILE\n"
	      "                also write the curve as a result file (suite \"latency\")\n"
	      "  --load N      loaded latency instead: the chase over --max (default 256M)\n"
	      "                while 0, 1, ..., N threads on other CPUs run the load kernel\n"
	      "                in a loop; latency against the load's aggregate GB/s; the\n"
	      "                replicates run every level again, load GB/s their mean\n"
	      "  --load-kernel K\n"
	      "                the load: a memcpy or memset kernel (default memcpy/libc;\n"
	      "                'primbench list'), 1 MiB a call over 64 MiB per thread\n"
	      "  -q, --quiet   no progress line\n"
	      "  -h, --help    this text\n\n"
	      "'primbench info --latency[=MAX]' is the old form; it still works.\n",
	      f);
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

uint64_t cli_latency_max(const char *opt, uint64_t asked, const struct pb_cache_info *c)
{
	uint64_t ram = ram_bytes(), max = asked;
	char sz[32];
	if (asked) {
		pb_format_bytes(sz, sizeof sz, asked, PB_BYTES_IEC);
		if (asked < SWEEP_MIN_BYTES)
			die_usage("%s: the sweep needs at least 4K (got %s)", opt, sz);
		if (asked > PB_LATENCY_MAX_BYTES)
			die_usage("%s: %s is more than the sweep's limit of 16G", opt, sz);
		if (ram && asked > ram / 4)
			die_usage("%s: %s is more than a quarter of RAM", opt, sz);
		return asked;
	}
	if (!c)
		return 0;
	/* Twice the LLC figure, at least 64M, within the limits above. */
	max = 2 * c->level[PB_CACHE_LLC].size_bytes;
	if (max < SWEEP_DEFAULT_BYTES)
		max = SWEEP_DEFAULT_BYTES;
	if (max > PB_LATENCY_MAX_BYTES)
		max = PB_LATENCY_MAX_BYTES;
	if (ram && max > ram / 4)
		max = ram / 4;
	if (max < SWEEP_MIN_BYTES)
		max = SWEEP_MIN_BYTES;
	return max;
}

/* What the figures are, for a heading: the median of the rounds, or the
 * replicates' geometric mean with its interval. */
static void method_text(char *out, size_t len, size_t reps)
{
	if (reps > 1)
		snprintf(out, len,
		         "the geometric mean of %zu replicates' medians of %d rounds of %d loads "
		         "each, every replicate a fresh buffer and chain; 95%% CI: +- the "
		         "half-width of its Student t interval on the replicates' logs, in %% of "
		         "it; spread: (max - min) of all %zu rounds over that figure",
		         reps, PB_LATENCY_ROUNDS, PB_LATENCY_ROUND_LOADS, reps * PB_LATENCY_ROUNDS);
	else
		snprintf(out, len,
		         "median of %d rounds of %d loads; spread: (max - min) / median of the "
		         "rounds",
		         PB_LATENCY_ROUNDS, PB_LATENCY_ROUND_LOADS);
}

int cli_latency_table(const struct pb_cache_info *c, const struct pb_latency_params *p,
                      size_t replicates, struct pb_latency_rpoint *pts,
                      struct pb_latency_info *info)
{
	int n = pb_latency_sweep_replicates(p, replicates, pts, info);
	if (n < 0) {
		fflush(stdout);
		cli_error("%s", pb_error());
		return -1;
	}
	char thp[96] = "";
	if (info) {
		char a[32], b[32];
		pb_format_bytes(a, sizeof a, info->thp_bytes, PB_BYTES_IEC);
		pb_format_bytes(b, sizeof b, info->buffer_bytes, PB_BYTES_IEC);
		snprintf(thp, sizeof thp, ", %s of %s seen", a, b);
	}
	char head[720], pages[64] = "THP requested", method[400];
	if (p->page_bytes)
		snprintf(pages, sizeof pages, "%s pages from %s", pb_pages_name(p->page_bytes),
		         p->page_source == PB_PAGES_BASE ? "base pages (THP off)"
		                                         : pb_pages_source_name(p->page_source));
	/* the replicates the points have: all of them, unless a stop came */
	size_t reps = n > 0 ? pts[0].n_rep : replicates;
	method_text(method, sizeof method, reps);
	snprintf(head, sizeof head,
	         "latency (pointer chase: one dependent load per line, the lines in a random "
	         "order within and across pages; %s%s; %s)",
	         pages, thp, method);
	putchar('\n');
	pb_print_wrapped_at(stdout, 0, 0, head);
	struct pb_curve_point cp[PB_LATENCY_SWEEP_POINTS];
	for (int i = 0; i < n && i < PB_LATENCY_SWEEP_POINTS; i++) {
		pb_latency_curve_point(&pts[i], &cp[i]);
	}
	pb_curve_print(stdout, c, cp, n < PB_LATENCY_SWEEP_POINTS ? n : PB_LATENCY_SWEEP_POINTS,
	               false);
	return n;
}

/* What the command line asked for. */
struct latency_opts {
	uint64_t min, max;
	const char *cpu_arg, *out, *load_kernel, *pages_arg;
	size_t load;
	bool load_set;
	size_t replicates; /* --replicates R: runs of the whole sweep */
	size_t processes;  /* --processes N: the replicates in N fresh processes */
	size_t seed;       /* --seed N (0: the session makes one) */
};

/* --replicates' default, as mem's and syscall's (docs/statistics.md,
 * "What varies between runs") */
#define LATENCY_DEFAULT_REPLICATES 5

enum {
	OPT_MIN = 256,
	OPT_MAX,
	OPT_CPU,
	OPT_LOAD,
	OPT_LOAD_KERNEL,
	OPT_PAGES,
	OPT_REPLICATES,
	OPT_PROCESSES,
	OPT_SEED
};

#define LOADED_DEFAULT_BYTES (256ull << 20)
#define LOAD_BUFFER_BYTES    (64ull << 20)
#define LOAD_CALL_BYTES      (1ull << 20)

/* 256 MiB, or a quarter of RAM when that is less. */
static uint64_t loaded_default_bytes(void)
{
	uint64_t ram = ram_bytes();
	return ram && LOADED_DEFAULT_BYTES > ram / 4 ? ram / 4 / 64 * 64 : LOADED_DEFAULT_BYTES;
}

/* The loaded-latency table: one row per load level. */
static void print_loaded(const struct pb_loaded_params *p, const struct pb_loaded_rpoint *pts,
                         int n)
{
	char sz[32], cpus[128] = "", head[1024], method[400];
	size_t used = 0;
	for (int i = 0; i < p->n_load && used < sizeof cpus; i++)
		used += (size_t)snprintf(cpus + used, sizeof cpus - used, "%s%d", i ? "," : "",
		                         p->load_cpus[i]);
	pb_format_bytes(sz, sizeof sz, p->chase_bytes, PB_BYTES_IEC);
	method_text(method, sizeof method, n > 0 ? pts[0].chase.n_rep : 1);
	snprintf(head, sizeof head,
	         "loaded latency (the chase over %s, random lines, THP requested; load: "
	         "%s/%s, 1 MiB a call, on CPU%s %s; load GB/s: the bytes its calls "
	         "copied or set, all threads, over the chase's time%s; %s)",
	         sz, pb_op_name(p->kernel->op), p->kernel->name, p->n_load == 1 ? "" : "s",
	         p->n_load ? cpus : "(none)",
	         n > 0 && pts[0].chase.n_rep > 1 ? ", the replicates' mean" : "", method);
	putchar('\n');
	pb_print_wrapped_at(stdout, 0, 0, head);
	struct pb_loaded_row rows[PB_LATENCY_MAX_LOAD + 1];
	for (int i = 0; i < n && i <= PB_LATENCY_MAX_LOAD; i++) {
		rows[i] = (struct pb_loaded_row){.threads = pts[i].threads,
		                                 .ns_per_load = pts[i].chase.ns_per_load,
		                                 .ticks_per_load = pts[i].chase.per_load.median,
		                                 .load_gb_per_s = pts[i].load_bytes_per_s / 1e9,
		                                 .spread = pb_latency_round_spread(&pts[i].chase)};
		rows[i].has_ci = pb_latency_point_ci(&pts[i].chase, &rows[i].ci);
	}
	pb_loaded_print(stdout, rows, n <= PB_LATENCY_MAX_LOAD ? n : PB_LATENCY_MAX_LOAD + 1);
}

/* --load's kernel (--load-kernel, default memcpy/libc), checked before
 * the session begins (its placement line would precede the error): exits
 * 2 when it is unknown, a memmove kernel or not usable here. */
static const struct pb_kernel *loaded_kernel(const struct latency_opts *o)
{
	const struct pb_kernel *k =
	    pb_kernel_find(PB_OP_COUNT, o->load_kernel ? o->load_kernel : "memcpy/libc");
	char why[200];
	if (!k)
		die_usage("--load-kernel: %s", pb_error());
	if (k->op == PB_OP_MEMMOVE)
		die_usage("--load-kernel: %s/%s: a memcpy or memset kernel, please",
		          pb_op_name(k->op), k->name);
	if (!pb_kernel_usable(k, pb_cpu_features(), why, sizeof why))
		die_usage("--load-kernel %s: not usable here: %s", k->name, why);
	return k;
}

/* Before the session: --load N needs N CPUs of this process's besides the
 * measuring one (--cpu N's, if it is among them; else the one the session
 * will choose among them). Exits 2 when there are fewer. */
static void check_load_cpus(const struct latency_opts *o, int want_cpu)
{
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		return; /* the session's own count says it */
	int n = CPU_COUNT(&allowed);
	if (!o->cpu_arg ||
	    (want_cpu >= 0 && want_cpu < CPU_SETSIZE && CPU_ISSET(want_cpu, &allowed)))
		n--;
	if (n < 0)
		n = 0;
	if (n < (int)o->load)
		die_usage("--load %zu: only %d other CPU%s to run the load on", o->load, n,
		          n == 1 ? "" : "s");
}

/* The loaded run of kernel k on session s: load CPUs from the CPUs allowed
 * before pinning, other than s's. Returns an exit status. */
static int run_loaded(struct pb_session *s, const struct latency_opts *o, const struct pb_kernel *k)
{
	int cpus[PB_LATENCY_MAX_LOAD], n = 0;
	for (int c = 0; c < CPU_SETSIZE && n < (int)o->load; c++)
		if (CPU_ISSET(c, &s->allowed) && c != s->cpu)
			cpus[n++] = c;
	if (n < (int)o->load) {
		cli_error("--load %zu: only %d other CPU%s to run the load on", o->load, n,
		          n == 1 ? "" : "s");
		return PB_EXIT_USAGE;
	}
	for (int i = 0; i < n; i++)
		pb_session_noise_exclude(s, cpus[i]);
	struct pb_loaded_params p = {
	    .chase_bytes = o->max ? o->max : loaded_default_bytes(),
	    .kernel = k,
	    .load_bytes = LOAD_BUFFER_BYTES,
	    .call_bytes = LOAD_CALL_BYTES,
	    .load_cpus = cpus,
	    .n_load = n,
	    .seed = s->seed,
	};
	struct pb_loaded_rpoint *pts = calloc(PB_LATENCY_MAX_LOAD + 1, sizeof *pts);
	bool stopped = false;
	int levels = pts ? pb_latency_loaded_replicates(&p, o->replicates, pb_session_stop_flag(s),
	                                                pts, &stopped)
	                 : pb_fail("out of memory");
	if (levels < 0) {
		free(pts);
		cli_error("%s", pb_error());
		return PB_EXIT_USAGE;
	}
	print_loaded(&p, pts, levels);
	int status = PB_EXIT_OK;
	if (o->out) {
		int added = pb_results_add_loaded_run(s->doc, p.kernel, pts, levels);
		pb_session_finish(s, stopped || pb_session_stopped(s));
		if (added != 0 || pb_session_write(s, s->doc) != 0) {
			cli_error("%s", pb_error());
			status = PB_EXIT_USAGE;
		} else if (!cli_processes_child()) {
			printf("results: %s\n", o->out);
		}
	}
	free(pts);
	if (status == PB_EXIT_OK && (stopped || pb_session_stopped(s))) {
		fflush(stdout);
		if (cli_processes_child())
			; /* the parent says where the joined result is */
		else if (o->out)
			cli_error("interrupted; what was measured is in %s", o->out);
		else
			cli_error("interrupted; the table above shows what was measured");
		status = pb_session_exit_status(s);
	}
	return status;
}

uint64_t cli_parse_size_opt(const char *opt, const char *text)
{
	uint64_t v;
	if (pb_parse_size(text, &v) != 0)
		die_usage("%s: %s", opt, pb_error());
	if (v == 0)
		die_usage("bad %s '%s': must be more than 0", opt, text);
	return v;
}

static bool latency_option(int opt, const char *arg, void *ctx)
{
	struct latency_opts *o = ctx;
	switch (opt) {
	case OPT_MIN:
		o->min = cli_parse_size_opt("--min", arg);
		return true;
	case OPT_MAX:
		o->max = cli_parse_size_opt("--max", arg);
		return true;
	default:
		return false;
	}
}

/* Parses argv into o (the defaults first). Returns false after --help;
 * exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct latency_opts *o)
{
	static const struct option longopts[] = {
	    {"min", required_argument, NULL, OPT_MIN},
	    {"max", required_argument, NULL, OPT_MAX},
	    {"cpu", required_argument, NULL, OPT_CPU},
	    {"load", required_argument, NULL, OPT_LOAD},
	    {"load-kernel", required_argument, NULL, OPT_LOAD_KERNEL},
	    {"pages", required_argument, NULL, OPT_PAGES},
	    {"replicates", required_argument, NULL, OPT_REPLICATES},
	    {"processes", required_argument, NULL, OPT_PROCESSES},
	    {"seed", required_argument, NULL, OPT_SEED},
	    CLI_OUTPUT_OPTION,
	    CLI_QUIET_OPTION,
	    CLI_HELP_OPTION,
	    {NULL, 0, NULL, 0},
	};
	*o = (struct latency_opts){
	    .min = SWEEP_MIN_BYTES, .replicates = LATENCY_DEFAULT_REPLICATES, .processes = 1};
	optind = 1;
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG(OPT_CPU, struct latency_opts, cpu_arg),
	    CLI_STORE_ARG(OPT_LOAD_KERNEL, struct latency_opts, load_kernel),
	    CLI_STORE_ARG(OPT_PAGES, struct latency_opts, pages_arg),
	    CLI_STORE_NUMBER_SET(OPT_LOAD, struct latency_opts, load, load_set, "--load", 0,
	                         PB_LATENCY_MAX_LOAD),
	    CLI_STORE_NUMBER(OPT_REPLICATES, struct latency_opts, replicates, "--replicates", 1,
	                     PB_LATENCY_MAX_REPLICATES),
	    CLI_STORE_NUMBER(OPT_PROCESSES, struct latency_opts, processes, "--processes", 1, 100),
	    CLI_STORE_NUMBER(OPT_SEED, struct latency_opts, seed, "--seed", 0, SIZE_MAX),
	    {0},
	};
	const struct cli_common common = {.out_path = &o->out, .stores = stores};
	if (!cli_parse_options("latency", argc, argv, ":ho:q", longopts, latency_option, o, &common,
	                       usage))
		return false;
	cli_no_operands("latency", longopts, argc, argv);
	return true;
}

/* What the options come to, once checked. */
struct latency_plan {
	size_t page_sizes[PB_PAGE_SIZES_MAX], n_pages; /* --pages (n_pages 0: none) */
	const struct pb_kernel *load_k;                /* --load-kernel's, with --load */
	uint64_t max;                                  /* --max, or the default's bytes */
};

/* Every option checked before anything is measured, into *pl, the checks
 * that need the machine too (the session's placement line comes before
 * anything else it prints). Returns --cpu's CPU (cli_parse_cpu_opt); exits
 * 2 on bad input. */
static int check_options(const struct latency_opts *o, struct latency_plan *pl)
{
	if (o->max)
		cli_latency_max("--max", o->max, NULL);
	if (o->max && o->min > o->max) {
		char a[32], b[32];
		pb_format_bytes(a, sizeof a, o->min, PB_BYTES_IEC);
		pb_format_bytes(b, sizeof b, o->max, PB_BYTES_IEC);
		die_usage("--min %s is more than --max %s", a, b);
	}
	if (o->load_kernel && !o->load_set)
		die_usage("--load-kernel needs --load N");
	*pl = (struct latency_plan){0};
	if (o->pages_arg && pb_pages_parse(o->pages_arg, pl->page_sizes, &pl->n_pages) != 0)
		die_usage("--pages: %s", pb_error());
	if (o->pages_arg && o->load_set)
		die_usage("--pages is not for --load (the loaded chase requests THP)");
	int want_cpu = cli_parse_cpu_opt(o->cpu_arg);
	if (o->load_set) {
		pl->load_k = loaded_kernel(o);
		check_load_cpus(o, want_cpu);
	}
	struct pb_cache_info caches;
	pb_cache_detect(&caches, NULL);
	pl->max = o->max ? o->max : cli_latency_max("--max", 0, &caches);
	if (!o->load_set && o->min > pl->max)
		die_usage("--min is more than the default --max (give --max)");
	return want_cpu;
}

/* --processes N: the replicates in N fresh processes (cli/processes.h).
 * Returns the exit status. */
static int run_processes(const struct latency_opts *o)
{
	if (o->out && pb_output_reserve(o->out) != 0)
		die_usage("%s", pb_error());
	struct cli_processes cp = {
	    .n = o->processes,
	    .replicates_each = (o->replicates + o->processes - 1) / o->processes,
	    .seed = o->seed ? (uint64_t)o->seed : (uint64_t)time(NULL) * 2654435761u,
	    .out_path = o->out,
	    .format = PB_FORMAT_TEXT,
	    .fixed_samples = true,
	};
	return cli_processes_run(&cp);
}

/* The curves of the sweep p on session s: one on the default buffer
 * (page_bytes 0), or one per --pages size available (one not available
 * skipped with its line), each printed by cli_latency_table into pts and
 * info, and added to the document with -o. Returns the last curve's
 * points, or -1 (said) when a probe or a sweep failed; *status
 * PB_EXIT_USAGE when a curve could not be added. */
static int sweep_curves(struct pb_session *s, const struct latency_opts *o,
                        const struct latency_plan *pl, struct pb_latency_params *p,
                        struct pb_latency_rpoint *pts, struct pb_latency_info *info, int *status)
{
	int n = 0;
	for (size_t i = 0; i < (o->pages_arg ? pl->n_pages : 1) && !info->interrupted; i++) {
		if (o->pages_arg) {
			struct pb_pages_avail av;
			if (pb_pages_probe(pl->page_sizes[i], &av) != 0) {
				cli_error("%s", pb_error());
				return -1;
			}
			if (av.source == PB_PAGES_NONE) {
				char line[320];
				pb_pages_skip_line(pl->page_sizes[i], line, sizeof line);
				putchar('\n');
				pb_print_wrapped_at(stdout, 0, 0, line);
				continue;
			}
			p->page_bytes = pl->page_sizes[i];
			p->page_source = av.source;
		}
		n = cli_latency_table(&s->caches, p, o->replicates, pts, info);
		if (n < 0)
			return -1;
		if (o->out && pb_results_add_latency_run(s->doc, pts, n, info) != 0) {
			cli_error("%s", pb_error());
			*status = PB_EXIT_USAGE;
			break;
		}
	}
	return n;
}

/* The unloaded sweep on session s (sweep_curves), the document written
 * with -o, and the line of a stop. Returns the exit status. */
static int run_sweep(struct pb_session *s, const struct latency_opts *o,
                     const struct latency_plan *pl)
{
	if (!cli_quiet) {
		if (s->cpu >= 0)
			printf("latency on CPU %d, %zu replicate%s\n", s->cpu, o->replicates,
			       o->replicates == 1 ? "" : "s");
		fflush(stdout);
	}
	struct pb_latency_params p = {.min_bytes = o->min,
	                              .max_bytes = pl->max,
	                              .max_points = PB_LATENCY_SWEEP_POINTS,
	                              .seed = s->seed,
	                              .stop = pb_session_stop_flag(s)};
	struct pb_latency_rpoint *pts = calloc(PB_LATENCY_SWEEP_POINTS, sizeof *pts);
	if (!pts) {
		pb_session_end(s);
		die_usage("out of memory");
	}
	struct pb_latency_info info = {0};
	int status = PB_EXIT_OK;
	int n = sweep_curves(s, o, pl, &p, pts, &info, &status);
	if (n < 0)
		status = PB_EXIT_USAGE;
	else if (o->out && status == PB_EXIT_OK) {
		pb_session_finish(s, pb_session_stopped(s));
		if (pb_session_write(s, s->doc) != 0) {
			cli_error("%s", pb_error());
			status = PB_EXIT_USAGE;
		} else if (!cli_processes_child()) {
			printf("results: %s\n", o->out);
		}
	}
	free(pts);
	if (n >= 0 && info.interrupted) {
		fflush(stdout);
		if (cli_processes_child())
			; /* the parent says where the joined result is */
		else if (o->out && status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", o->out);
		else
			cli_error("interrupted; the table above shows what was measured");
		status = pb_session_exit_status(s);
	}
	return status;
}

int cmd_latency(int argc, char **argv)
{
	struct latency_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	struct latency_plan pl;
	int want_cpu = check_options(&o, &pl);
	cli_parse_done();
	if (o.processes > 1)
		return run_processes(&o);

	struct pb_session s;
	struct pb_session_params sp;
	cli_session_params(&sp, want_cpu, (uint64_t)o.seed, o.out != NULL, o.out);
	if (pb_session_begin(&sp, &s) != 0) {
		pb_session_end(&s);
		die_usage("%s", pb_error());
	}
	int status = o.load_set ? run_loaded(&s, &o, pl.load_k) : run_sweep(&s, &o, &pl);
	pb_session_end(&s);
	return status;
}
