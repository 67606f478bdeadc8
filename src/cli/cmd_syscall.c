/* cmd_syscall.c - `primbench syscall [BENCH...] [OPTIONS]`: the cost of
 * entering the kernel (include/primbench/syscall.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/processes.h"
#include "primbench/error.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/session.h"
#include "primbench/syscall.h"
#include "primbench/text.h"
#include "primbench/timer.h"

/* A benchmark whose per-op samples vary more than this (stddev / mean) is
 * named in the noise warning. */
#define NOISY_CV 0.20

/* Declared in cli.h once the command is in main.c's table. */
int cmd_syscall(int argc, char **argv);

/* The coefficient of variation a normal distribution with this p10..p90
 * range would have: (p90 - p10) / (2 x 1.2816 x median). Unlike stddev /
 * mean (in the JSON as "cv"), one interrupt-length sample among a thousand
 * does not move it. */
static double robust_cv(const struct pb_syscall_case *c)
{
	const struct pb_summary *s = &c->ticks_per_op;
	if (c->n_samples < 6 || !(s->median > 0))
		return 0;
	return (s->p90 - s->p10) / (2 * 1.2816 * s->median);
}

static void usage(FILE *f)
{
	fputs("usage: primbench syscall [BENCH...] [OPTIONS]\n"
	      "\n"
	      "Times system calls, pipes, process creation and page faults: ns and TSC\n"
	      "ticks per op (medians, 95% CI), interleaved within each group. With no\n"
	      "BENCH, all of them.\n"
	      "\n"
	      "  --list              the benchmarks and what one op is\n"
	      "  --cpu N             pin to CPU N (default: the quietest by a noise probe);\n"
	      "                      pipe-rtt's cross-CPU partner is the next allowed CPU\n"
	      "  --budget SECONDS    per benchmark once it has --min-samples (default 1)\n"
	      "  --min-samples N     per benchmark (default 11); --max-samples N (1001)\n"
	      "  --seed N            seed for the interleaving order\n"
	      "  --replicates R      runs of every benchmark, one after another, the budget\n"
	      "                      shared out; medians and CIs are the runs' (default 5)\n"
	      "  --vs-env NAME=VALUE A/B across processes (repeatable): 2 x R processes of\n"
	      "                      one replicate each (R >= 2), A B B A ..., B with\n"
	      "                      NAME=VALUE;\n"
	      "                      B against A per case as compare does (mem --help)\n"
	      "  --processes N       the replicates in N fresh processes of primbench, one\n"
	      "                      after another (default 1: this one)\n"
	      "  -o, --output FILE   write the results as JSON (schema v2); without it,\n"
	      "                      nothing is written\n"
	      "  -f, --format F      print the result as text (default), json, csv,\n"
	      "                      markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet         no progress line on stderr\n",
	      f);
}

static void list(void)
{
	for (int b = 0; b < PB_SC_COUNT; b++)
		printf("%-13s %s\n", pb_syscall_bench_name((enum pb_sc_bench)b),
		       pb_syscall_bench_desc((enum pb_sc_bench)b));
	printf("\nfault runs with 4 KiB pages and with transparent huge pages (per 2 MiB\n"
	       "and per 4 KiB-equivalent); pipe-rtt on one CPU and across two.\n");
}

struct progress_state {
	struct cli_progress line;
	size_t done, total;
	const char *last;
};

/* Called as each benchmark starts (pb_syscall_params.progress). */
static void progress(void *ctx, const char *bench)
{
	struct progress_state *ps = ctx;
	if (ps->last && strcmp(ps->last, bench))
		ps->done++;
	ps->last = bench;
	char what[48];
	snprintf(what, sizeof what, "%s, benchmark", bench);
	cli_progress_update(&ps->line, ps->done, ps->total, what);
}

static void print_row(const char *name, const char *placement, double ticks, double ci_pct,
                      size_t n)
{
	char ci[16] = "-";
	if (ci_pct >= 0)
		snprintf(ci, sizeof ci, "%.1f%%", ci_pct);
	printf("%-16s %-11s %12.1f %12.1f %8s %6zu\n", name, placement, pb_ticks_to_ns(ticks),
	       ticks, ci, n);
}

void cli_syscall_print_table(const struct pb_syscall_result *r)
{
	printf("\n%-16s %-11s %12s %12s %8s %6s\n", "benchmark", "placement", "ns/op", "ticks/op",
	       "95% CI", "n");
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_syscall_case *c = &r->cases[i];
		const struct pb_summary *s = &c->ticks_per_op;
		char name[32];
		snprintf(name, sizeof name, "%s", pb_syscall_bench_name(c->bench));
		if (c->bench == PB_SC_FAULT)
			snprintf(name, sizeof name, "fault %s",
			         c->page_bytes > 4096 ? "THP/2M" : "4K");
		if (c->n_samples == 0) {
			printf("%-16s %-11s %12s %12s %8s %6d\n", name, c->placement, "-", "-", "-",
			       0);
			continue;
		}
		double ci =
		    s->ci_valid && s->median > 0 ? 100 * (s->ci_hi - s->ci_lo) / 2 / s->median : -1;
		print_row(name, c->placement, s->median, ci, s->n);
		if (c->bench == PB_SC_FAULT && c->page_bytes > 4096)
			print_row("fault THP/4K", c->placement,
			          s->median * 4096.0 / (double)c->page_bytes, ci, s->n);
	}
	size_t reps = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].ticks_per_op.replicates > reps)
			reps = r->cases[i].ticks_per_op.replicates;
	char unit[64];
	pb_tick_unit_label(pb_timer_info()->tick_unit, pb_timer_info()->hz, unit, sizeof unit);
	if (reps >= 2)
		printf("per op: the geometric mean of the %zu replicates' medians; 95%% CI: the\n"
		       "half-width of its interval (Student t over the replicates), in %% of it;\n"
		       "n: samples of all replicates. ticks: %s.\n",
		       reps,
		       pb_timer_info()->clock == PB_CLOCK_TSC ? unit
		                                              : "nanoseconds (no invariant TSC)");
	else
		printf("medians per op; 95%% CI: half-width of the median's interval, in %% of "
		       "it;\nn: samples. ticks: %s.\n",
		       pb_timer_info()->clock == PB_CLOCK_TSC ? unit
		                                              : "nanoseconds (no invariant TSC)");
}

/* What the command line asked for. */
struct syscall_opts {
	struct pb_syscall_params p;
	struct cli_sampling samp;
	struct cli_format fmt;
	const char *cpu_arg, *out;
	bool want_list;
	size_t replicates;   /* --replicates R */
	bool replicates_set; /* --replicates given (else lowered to fit --max-samples) */
	size_t processes;    /* --processes N: the replicates in N fresh processes */
	/* --vs-env NAME=VALUE (repeatable): A/B in alternating processes
	 * (cli/processes.h); argv's strings */
	char *vs_env[16];
	size_t n_vs_env;
};

/* --vs-env into o (struct syscall_opts). */
static bool syscall_option(int c, const char *arg, void *ctx)
{
	struct syscall_opts *o = ctx;
	if (c != 'V')
		return false;
	cli_vs_env_add(o->vs_env, &o->n_vs_env, sizeof o->vs_env / sizeof *o->vs_env, arg);
	return true;
}

/* --replicates' default (docs/statistics.md, "What varies between runs") */
#define SYSCALL_DEFAULT_REPLICATES 5

/* Parses argv into o. Returns false after --help; exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct syscall_opts *o)
{
	static const struct option opts[] = {
	    {"list", no_argument, 0, 'l'},
	    {"cpu", required_argument, 0, 'c'},
	    {"replicates", required_argument, 0, 'R'},
	    {"processes", required_argument, 0, 'P'},
	    {"vs-env", required_argument, 0, 'V'},
	    CLI_SAMPLING_OPTIONS,
	    CLI_OUTPUT_OPTION,
	    CLI_FORMAT_OPTION,
	    CLI_QUIET_OPTION,
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	static const struct cli_store stores[] = {
	    CLI_STORE_FLAG('l', struct syscall_opts, want_list, true),
	    CLI_STORE_ARG('c', struct syscall_opts, cpu_arg),
	    CLI_STORE_NUMBER_SET('R', struct syscall_opts, replicates, replicates_set,
	                         "--replicates", 1, 100),
	    CLI_STORE_NUMBER('P', struct syscall_opts, processes, "--processes", 1, 100),
	    {0},
	};
	*o = (struct syscall_opts){
	    .fmt = {.fmt = PB_FORMAT_TEXT},
	    .p = {.cpu = -1, .peer_cpu = -1},
	};
	o->samp = (struct cli_sampling){.budget_s = 1.0, .min_samples = 11, .max_samples = 1001};
	o->replicates = SYSCALL_DEFAULT_REPLICATES;
	o->processes = 1;
	const struct cli_common common = {
	    .out_path = &o->out, .fmt = &o->fmt, .sampling = &o->samp, .stores = stores};
	return cli_parse_options("syscall", argc, argv, ":ho:f:q", opts, syscall_option, o, &common,
	                         usage);
}

/* pipe-rtt's partner: the first CPU allowed before pinning above cpu, else
 * the first other one; -1 when there is none. */
static int peer_cpu(const cpu_set_t *allowed, int cpu)
{
	int peer = -1;
	for (int c = 0; c < CPU_SETSIZE && cpu >= 0; c++)
		if (CPU_ISSET(c, allowed) && c != cpu && (peer < 0 || c > cpu)) {
			peer = c;
			if (c > cpu)
				break;
		}
	return peer;
}

/* The notes and the noise line under the table. */
static void print_notes_and_noise(const struct pb_syscall_result *r, const struct pb_noise *noise)
{
	if (r->notes[0]) {
		putchar('\n');
		char *copy = strdup(r->notes), *save = NULL;
		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			pb_print_wrapped_at(stdout, 0, 2, l);
		free(copy);
	}
	if (noise->valid) {
		char line[256];
		snprintf(line, sizeof line,
		         "noise: steal %.1f%% of CPU time, other CPUs %.0f%% busy, %ld involuntary "
		         "context switches of the measuring thread",
		         noise->steal_pct, noise->other_busy_pct, noise->involuntary_switches);
		putchar('\n');
		pb_print_wrapped_at(stdout, 0, 7, line);
		cli_print_noise_high(noise);
	}
	fflush(stdout);
}

/* One warning line: benchmarks whose samples spread widely, or a machine
 * busy with something else. */
static void warn_noisy(const struct pb_syscall_result *r, const struct pb_noise *noise)
{
	char noisy[160] = "";
	size_t nnoisy = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		if (robust_cv(&r->cases[i]) > NOISY_CV) {
			size_t used = strlen(noisy);
			const char *nm = pb_syscall_bench_name(r->cases[i].bench);
			if (used && strstr(noisy, nm))
				continue;
			if (nnoisy++ < 4)
				snprintf(noisy + used, sizeof noisy - used, "%s%s",
				         used ? ", " : "", nm);
		}
	bool busy = noise->high;
	if (!nnoisy && !busy)
		return;
	char why[512] = "";
	if (nnoisy)
		snprintf(why, sizeof why, "samples vary by over %.0f%% (robust CV) for %s%s",
		         100 * NOISY_CV, noisy, nnoisy > 4 ? ", ..." : "");
	if (busy) {
		size_t used = strlen(why);
		snprintf(why + used, sizeof why - used, "%s%s", used ? "; " : "",
		         noise->high_cause);
	}
	warn("noisy machine: %s", why);
}

/* Records r in the session's document (when there is one), writes it to
 * -o and prints it in -f's format. Returns the exit status. */
static int write_results(struct pb_session *s, struct cli_format *fmt,
                         const struct pb_syscall_result *r)
{
	if (!s->doc)
		return PB_EXIT_OK;
	pb_results_add_syscall(s->doc, r);
	pb_session_finish(s, r->interrupted || pb_session_stopped(s));
	return cli_session_output(s, fmt, PB_EXIT_OK);
}

/* The helper programs of the selected benchmarks (tools/), found before
 * the session begins: a missing one is the only error line, as
 * pb_syscall_run would say it, with no placement line before it. */
static void check_tools(const bool *sel)
{
	char path[4096];
	if (sel[PB_SC_EXEC_STATIC] && pb_syscall_tool_path(true, path, sizeof path) != 0)
		die_usage("%s", pb_error());
	if ((sel[PB_SC_EXEC_DYNAMIC] || sel[PB_SC_SPAWN]) &&
	    pb_syscall_tool_path(false, path, sizeof path) != 0)
		die_usage("%s", pb_error());
	if (sel[PB_SC_FORK_HELPER] &&
	    pb_syscall_tool_path_named("primbench-forker", path, sizeof path) != 0)
		die_usage("%s", pb_error());
}

/* The command line past the options into o->p, checked: the benchmarks
 * (operands), the sampling, --replicates against it, --cpu and the helper
 * programs. Returns --cpu's CPU (cli_parse_cpu_opt); exits 2 on bad
 * input. */
static int check_options(int argc, char **argv, struct syscall_opts *o)
{
	struct pb_syscall_params *p = &o->p;
	if (pb_syscall_select((const char *const *)argv + optind, (size_t)(argc - optind),
	                      p->selected) != 0)
		die_usage("%s", pb_error());
	cli_sampling_check(&o->samp);
	int want_cpu = cli_parse_cpu_opt(o->cpu_arg);
	check_tools(p->selected);
	/* last: its warning comes after every error, so that a bad command
	 * line prints its error alone */
	cli_replicates_check(&o->samp, &o->replicates, o->replicates_set, o->processes);
	p->budget_s = o->samp.budget_s;
	p->min_samples = o->samp.min_samples;
	p->max_samples = o->samp.max_samples;
	p->seed = o->samp.seed;
	return want_cpu;
}

/* --vs-env: A/B in 2 x R processes of one replicate each, A B B A ...
 * (cli/processes.h). Returns the exit status; exits 2 on bad input. */
static int run_vs_env(const struct syscall_opts *o)
{
	if (o->processes > 1)
		die_usage("--vs-env runs its own processes (2 x --replicates, A B B A ...): "
		          "not with --processes");
	if (o->fmt.fmt != PB_FORMAT_TEXT && o->fmt.fmt != PB_FORMAT_JSON)
		die_usage("--vs-env prints text or json (-f), not %s", pb_format_name(o->fmt.fmt));
	if (o->out && pb_output_reserve(o->out) != 0)
		die_usage("%s", pb_error());
	size_t reps = o->replicates > 1 ? o->replicates : 2;
	struct cli_processes cp = {
	    .n = 2 * reps,
	    .replicates_each = 1,
	    .budget_s = o->samp.budget_s * 2,
	    .min_samples = o->samp.min_samples,
	    .max_samples = o->samp.max_samples * 2,
	    .seed = o->samp.seed ? o->samp.seed : (uint64_t)time(NULL) * 2654435761u,
	    .out_path = o->out,
	    .format = o->fmt.fmt,
	    .vs_env = o->vs_env,
	    .n_vs_env = o->n_vs_env,
	};
	return cli_processes_run(&cp);
}

/* --processes N: the replicates in N fresh processes (cli/processes.h).
 * Returns the exit status. */
static int run_processes(const struct syscall_opts *o)
{
	if (o->out && pb_output_reserve(o->out) != 0)
		die_usage("%s", pb_error());
	struct cli_processes cp = {
	    .n = o->processes,
	    .replicates_each = (o->replicates + o->processes - 1) / o->processes,
	    .budget_s = o->samp.budget_s,
	    .min_samples = o->samp.min_samples,
	    .max_samples = o->samp.max_samples,
	    .seed = o->samp.seed ? o->samp.seed : (uint64_t)time(NULL) * 2654435761u,
	    .out_path = o->out,
	    .format = o->fmt.fmt,
	};
	return cli_processes_run(&cp);
}

/* Whether a selected benchmark has children or pipe partners that share
 * the measuring CPU: they make the thread wait by themselves, so no wait
 * or preemption rule of the noise figures then. */
static bool spawns_tasks(const bool *selected)
{
	static const enum pb_sc_bench own_tasks[] = {PB_SC_PIPE_RTT,     PB_SC_FORK,
	                                             PB_SC_FORK_HELPER,  PB_SC_EXEC_STATIC,
	                                             PB_SC_EXEC_DYNAMIC, PB_SC_SPAWN};
	bool spawns = false;
	for (size_t i = 0; i < sizeof own_tasks / sizeof *own_tasks; i++)
		spawns |= selected[own_tasks[i]];
	return spawns;
}

/* The benchmarks of o->p in --replicates runs on session s (replicates.h:
 * every benchmark again, in a row, the budget and --max-samples shared
 * out between them) under the progress line, into *r. Exits 2 on the
 * suite's error. */
static void measure(struct pb_session *s, struct syscall_opts *o, struct pb_syscall_result *r)
{
	struct pb_syscall_params *p = &o->p;
	struct progress_state ps = {0};
	for (int b = 0; b < PB_SC_COUNT; b++)
		ps.total += p->selected[b];
	cli_progress_start(&ps.line, "syscall");
	p->progress = progress;
	p->progress_ctx = &ps;

	cli_format_begin(&o->fmt);
	size_t reps = o->replicates ? o->replicates : 1;
	ps.total *= reps;
	bool spawns = spawns_tasks(p->selected);
	if (spawns)
		pb_noise_exclude_begin(&s->mark);
	if (pb_syscall_run_replicates(p, reps, r) != 0)
		die_usage("%s", pb_error());
	if (spawns)
		pb_noise_exclude_end(&s->mark);
	pb_session_noise(s); /* the noise figures end with the measuring */
	p->progress = NULL;  /* ps ends here */
	p->progress_ctx = NULL;
	cli_progress_done(&ps.line);
}

/* The table, notes and noise of r, the warning of a noisy run, the
 * document (write_results), the line of a stop. Returns the exit status. */
static int print_and_write(struct pb_session *s, const struct syscall_opts *o,
                           struct cli_format *fmt, struct pb_syscall_result *r)
{
	const struct pb_noise *noise = pb_session_noise(s);
	cli_syscall_print_table(r);
	print_notes_and_noise(r, noise);
	/* a --processes child's warning would be one of many: its parent
	 * gives one for them all */
	if (!cli_processes_child())
		warn_noisy(r, noise);
	int status = write_results(s, fmt, r);
	bool stopped = r->interrupted || pb_session_stopped(s);
	if (stopped) {
		fflush(stdout);
		if (cli_processes_child())
			; /* the parent says where the joined result is */
		else if (o->out && status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", o->out);
		else
			cli_error("interrupted; the %s above shows what was measured",
			          fmt->fmt == PB_FORMAT_TEXT ? "table" : "result");
		status = pb_session_exit_status(s);
	}
	return status;
}

int cmd_syscall(int argc, char **argv)
{
	struct syscall_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	if (o.want_list) {
		cli_parse_done();
		list();
		return PB_EXIT_OK;
	}
	struct pb_syscall_params *p = &o.p;
	int want_cpu = check_options(argc, argv, &o);
	cli_parse_done();
	if (o.n_vs_env && !cli_processes_child())
		return run_vs_env(&o);
	if (o.processes > 1)
		return run_processes(&o);

	struct pb_session s;
	struct pb_session_params sp;
	cli_session_params(&sp, want_cpu, p->seed, o.out || o.fmt.fmt != PB_FORMAT_TEXT, o.out);
	if (pb_session_begin(&sp, &s) != 0)
		die_usage("%s", pb_error());
	/* The CPU and pipe-rtt's partner, from the CPUs allowed before pinning. */
	p->cpu = s.cpu;
	p->peer_cpu = peer_cpu(&s.allowed, s.cpu);
	p->seed = s.seed;
	p->stop = pb_session_stop_flag(&s);
	struct pb_syscall_result r;
	measure(&s, &o, &r);
	int status = print_and_write(&s, &o, &o.fmt, &r);
	pb_syscall_result_free(&r);
	pb_session_end(&s);
	return status;
}
