/* cmd_cmd_options.c - `primbench cmd`'s options: the help text, parsing
 * (getopt_long), the checks across options, and the sides A and B they
 * describe (cli/cmd_cmd.h). Exits 2 with one error line on bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd_cmd.h"
#include "primbench/cpu.h"
#include "primbench/cpu_noise.h"
#include "primbench/error.h"
#include "primbench/placement.h"
#include "primbench/policy.h"
#include "primbench/session.h"
#include "primbench/text.h"

void cmd_usage(FILE *f)
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
	      "                         these CPUs (e.g. 1, 0,2-3 or all;\n"
	      "                         sched_setaffinity)\n"
	      "                         [the quietest allowed CPU by a 0.2-0.5 s noise\n"
	      "                         probe before the runs]; any: not pinned\n"
	      "  -i, --ignore-failure   keep going when a run exits non-zero\n"
	      "  -o, --output FILE      write the results as JSON (schema v2)\n"
	      "  -f, --format F         print the result as text (default), json, csv,\n"
	      "                         markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet            no progress line on stderr\n"
	      "\n"
	      "Swapping memset/memcpy/memmove inside the command (libprimswitch.so):\n"
	      "      --memset POLICY    e.g. " CLI_EG_MEMSET_POLICY " (quote it);\n"
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
	      "  -m, --metric FIG       the figure the verdict is on: real, user, sys,\n"
	      "                         user+sys, or instructions or cycles (hardware\n"
	      "                         counters, user space, the command's whole tree) [real]\n"
	      "      --until-verdict    alternate until the 95% CI of B/A excludes 1, or\n"
	      "                         lies within --equivalence, or a limit is reached\n"
	      "                         (Bonferroni over a fixed schedule of looks)\n"
	      "      --equivalence P%   margin of the verdict: a change inside it is no\n"
	      "                         change [1%; 0 disables]\n"
	      "      --max-runs N       runs per side for --until-verdict [60]\n"
	      "      --budget SECONDS   stop --until-verdict after this long\n"
	      "      --paired           the verdict on the ratios B/A of the adjacent A and\n"
	      "                         B runs of each ABBA block (drift between blocks\n"
	      "                         cancels), not on all runs\n"
	      "      --duet             run A and B at the same time, each pinned to its\n"
	      "                         own half of the CPUs (--cpu, else all allowed),\n"
	      "                         swapped every pair; the verdict on each pair's\n"
	      "                         B/A, so noise that hits both cancels. Needs 2\n"
	      "                         CPUs and commands that use one each\n"
	      "\n"
	      "Memory layout (the environment's size moves the stack; docs/statistics.md):\n"
	      "      --randomize-env    pad each run's environment with PRIMBENCH_PAD of\n"
	      "                         0..4095 bytes, drawn anew per run, both sides alike\n"
	      "      --seed N           the draws' seed (0..4294967295) [random, printed]\n"
	      "      --layout-audit[=R] after the runs, A against itself at 8 environment\n"
	      "                         sizes, R runs each [5], interleaved: how much\n"
	      "                         layout alone moves the figure (Kruskal-Wallis)\n"
	      "\n"
	      "examples:\n"
	      "  primbench cmd -n 10 -- gzip -9 -k -c big.bin\n"
	      "  primbench cmd --vs 'gzip -6 -c big.bin' -- gzip -9 -c big.bin\n"
	      "  primbench cmd --until-verdict --prepare 'make clean' --vs 'make CC=clang' \\\n"
	      "      -- make CC=gcc\n"
	      "  primbench cmd --vs-env GLIBC_TUNABLES=" CLI_EG_GLIBC_TUNABLE " \\\n"
	      "      -- ./my-program\n"
	      "  primbench cmd -n 5 --profile --memset libc --vs-memset " CLI_EG_NT_MEMSET
	      " -- ./prog\n"
	      "  primbench cmd --randomize-env --layout-audit --vs './prog-new' -- ./prog\n"
	      "exit status: 0 ok; 1 a run failed, or --until-verdict ended without a\n"
	      "verdict; 2 bad usage or a command that cannot start; 128 + signal when\n"
	      "interrupted (130 Ctrl-C, 143 SIGTERM; a second signal kills the command).\n",
	      f);
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

/* The options without a letter (--memset ... --cpu). */
static void parse_long_option(struct options *o, int opt)
{
	switch (opt) {
	case 1000:
	case 1001:
	case 1002:
	case 1003:
	case 1004:
	case 1005: {
		int side = opt >= 1003, op = (opt - 1000) % 3;
		static const enum pb_op ops[3] = {PB_OP_MEMSET, PB_OP_MEMCPY, PB_OP_MEMMOVE};
		struct pb_policy pol;
		if (pb_policy_parse(ops[op], optarg, pb_cpu_features(), &pol) != 0)
			die_usage("cmd: --%s%s: %s", side ? "vs-" : "", pb_op_name(ops[op]),
			          pb_error());
		o->env.policy[side][op] = optarg;
		break;
	}
	case 1006:
		if (!optarg || strcmp(optarg, "counts") == 0 || strcmp(optarg, "1") == 0)
			o->env.account = 1;
		else if (strcmp(optarg, "ticks") == 0)
			o->env.account = 2;
		else
			die_usage("cmd: bad --account '%s' (counts or ticks)", optarg);
		break;
	case 1010:
		if (!optarg[0])
			die_usage("cmd: empty directory in '--record-distribution'");
		o->record_dir = optarg;
		break;
	case 1012:
		if (strcmp(optarg, "any") == 0) {
			o->cpu_any = true; /* no pinning, no probe */
			o->p.cpus_text = NULL;
			break;
		}
		o->cpu_any = false;
		if (pb_cpu_list_parse_set(NULL, optarg, &o->cpus, sizeof o->cpus) != 0)
			die_usage("cmd: --cpu: %s", pb_error());
		o->p.cpus_text = optarg;
		break;
	/* memory layout: --randomize-env, --seed, --layout-audit */
	case 1013:
		o->randomize_env = true;
		break;
	case 1014: {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(optarg, &end, 10);
		if (errno || end == optarg || *end || optarg[0] == '-' || v > 4294967295ull)
			die_usage("cmd: bad --seed '%s' (an integer, 0 to 4294967295)", optarg);
		o->layout.seed = v;
		o->seed_given = true;
		break;
	}
	case 1015: {
		o->audit_runs = PB_LAYOUT_AUDIT_RUNS;
		if (!optarg)
			break;
		char *end;
		errno = 0;
		unsigned long v = strtoul(optarg, &end, 10);
		if (errno || end == optarg || *end || optarg[0] == '-' || v < 2 || v > 1000)
			die_usage("cmd: bad --layout-audit '%s' (runs per size, 2 to 1000)",
			          optarg);
		o->audit_runs = v;
		break;
	}
	}
}

/* --env or --vs-env VAR=VALUE (getopt's optarg, not a copy: the list
 * keeps argv's strings) appended to list[*n]. */
static void add_env(const char *opt, char **list, size_t *n)
{
	check_env_arg(opt, optarg);
	list[(*n)++] = optarg;
}

/* One of cmd's own options into o (struct options). */
static bool cmd_option(int opt, const char *arg, void *ctx)
{
	struct options *o = ctx;
	switch (opt) {
	case 'e':
		add_env("--env", o->env_a, &o->nenv_a);
		return true;
	case 'V':
		add_env("--vs-env", o->vs_env, &o->nvs_env);
		return true;
	case 'm':
		o->p.metric = pb_cmd_parse_figure(arg);
		if (o->p.metric < 0)
			die_usage("cmd: --metric: %s", pb_error());
		return true;
	case 'E':
		o->p.equivalence = cli_parse_equivalence("cmd", arg);
		o->equiv_given = true;
		return true;
	case 'b':
		o->p.budget_s = parse_budget(arg);
		o->budget_given = true;
		return true;
	case 1000 ... 1015:
		parse_long_option(o, opt);
		return true;
	default:
		return false;
	}
}

/* The options into *o; true for --help (printed). */
bool cmd_parse_options(int argc, char **argv, struct options *o)
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
	    CLI_OUTPUT_OPTION,
	    CLI_FORMAT_OPTION,
	    CLI_QUIET_OPTION,
	    {"vs", required_argument, 0, 'v'},
	    {"vs-env", required_argument, 0, 'V'},
	    {"metric", required_argument, 0, 'm'},
	    {"until-verdict", no_argument, 0, 'u'},
	    {"equivalence", required_argument, 0, 'E'},
	    {"max-runs", required_argument, 0, 'M'},
	    {"budget", required_argument, 0, 'b'},
	    CLI_HELP_OPTION,
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
	    {"paired", no_argument, 0, 1030},
	    {"duet", no_argument, 0, 1031},
	    {"randomize-env", no_argument, 0, 1013},
	    {"seed", required_argument, 0, 1014},
	    {"layout-audit", optional_argument, 0, 1015},
	    {0, 0, 0, 0},
	};
	/* the options that only store their value; cmd_option takes the rest */
	static const struct cli_store stores[] = {
	    CLI_STORE_NUMBER_SET('n', struct options, p.runs, runs_given, "run count", 1, 1000000),
	    CLI_STORE_NUMBER('w', struct options, p.warmup, "warm-up count", 0, 1000000),
	    CLI_STORE_ARG('p', struct options, prepare),
	    CLI_STORE_ARG('C', struct options, cwd),
	    CLI_STORE_FLAG('S', struct options, p.shell, true),
	    CLI_STORE_FLAG('O', struct options, show_output, true),
	    CLI_STORE_FLAG('i', struct options, p.ignore_failure, true),
	    CLI_STORE_ARG('v', struct options, vs),
	    CLI_STORE_FLAG('u', struct options, p.until_verdict, true),
	    CLI_STORE_NUMBER_SET('M', struct options, p.max_runs, max_given, "--max-runs", 2,
	                         100000),
	    CLI_STORE_FLAG(1007, struct options, profile, true),
	    CLI_STORE_NUMBER_SET(1008, struct options, prof.runs, profile_opts, "--profile-runs", 1,
	                         1000),
	    CLI_STORE_NUMBER_SET(1009, struct options, prof.top, profile_opts, "--profile-top", 1,
	                         1000),
	    CLI_STORE_FLAG(1011, struct options, p.wait_children, true),
	    CLI_STORE_FLAG(1030, struct options, p.paired, true),
	    CLI_STORE_FLAG(1031, struct options, p.duet, true),
	    {0},
	};
	const struct cli_common common = {.out_path = &o->out, .fmt = &o->fmt, .stores = stores};
	return !cli_parse_options("cmd", argc, argv, "+:hn:w:p:e:io:m:f:q", opts, cmd_option, o,
	                          &common, cmd_usage);
}

/* --paired and --duet: a B side; --duet: two CPU sets, the first half of
 * the CPUs (--cpu, else this process's) for slot 0, the second for slot
 * 1 (an odd one left out), and no --wait-children. */
static void check_duet(struct options *o)
{
	if ((o->p.paired || o->p.duet) && o->p.nsides == 1)
		die_usage("cmd: --%s compares A and B: it needs a B side (--vs or --vs-env)",
		          o->p.duet ? "duet" : "paired");
	if (!o->p.duet)
		return;
	if (o->p.wait_children)
		die_usage("cmd: --duet and --wait-children do not go together (whose processes "
		          "are left running cannot be told)");
	if (pb_cmd_metric_is_counter(o->p.metric))
		die_usage("cmd: --duet and --metric %s do not go together (the counters follow "
		          "both sides' processes at once)",
		          pb_cmd_figure_name((enum pb_cmd_figure)o->p.metric));
	cpu_set_t all;
	if (o->p.cpus_text)
		all = o->cpus;
	else if (sched_getaffinity(0, sizeof all, &all) != 0)
		die_usage("cmd: --duet: cannot read this process's CPUs: %s", strerror(errno));
	int n = CPU_COUNT(&all), half = n / 2, seen = 0;
	if (n < 2)
		die_usage("cmd: --duet runs A and B at the same time on CPUs of their own: it "
		          "needs 2 CPUs, and %s has %d",
		          o->p.cpus_text ? "--cpu" : "this process", n);
	CPU_ZERO(&o->duet_set[0]);
	CPU_ZERO(&o->duet_set[1]);
	for (int c = 0; c < CPU_SETSIZE && seen < 2 * half; c++)
		if (CPU_ISSET(c, &all))
			CPU_SET(c, &o->duet_set[seen++ < half ? 0 : 1]);
	for (int k = 0; k < 2; k++)
		pb_cpu_set_format(&o->duet_set[k], o->duet_text[k], sizeof o->duet_text[k]);
	o->p.paired = true;
	for (int k = 0; k < 2; k++) {
		o->p.duet_cpus[k] = &o->duet_set[k];
		o->p.duet_cpus_text[k] = o->duet_text[k];
	}
}

/* What the options cannot be together, and what must exist. */
void cmd_check_options(int argc, char **argv, struct options *o)
{
	if (optind >= argc)
		die_usage("cmd: no command given (usage: primbench cmd [OPTIONS] -- COMMAND "
		          "[ARGS...])");
	if (!argv[optind][0])
		die_usage("cmd: the command is an empty string");
	bool vs_policy = o->env.policy[1][0] || o->env.policy[1][1] || o->env.policy[1][2];
	o->p.nsides = (o->vs || o->nvs_env || vs_policy) ? 2 : 1;
	if (o->record_dir) {
		struct stat rst;
		if (!o->env.account)
			die_usage("cmd: --record-distribution needs --account");
		if (o->p.nsides == 2)
			die_usage("cmd: --record-distribution records one command: not with --vs, "
			          "--vs-env or --vs-memset/--vs-memcpy/--vs-memmove");
		if (stat(o->record_dir, &rst) == 0 && !S_ISDIR(rst.st_mode))
			die_usage("cmd: --record-distribution: '%s' is not a directory",
			          o->record_dir);
		cli_check_output_dir("--record-distribution", o->record_dir);
	}
	if (o->p.until_verdict && o->p.nsides == 1)
		die_usage("cmd: --until-verdict needs a B side (--vs or --vs-env)");
	if (o->equiv_given && o->p.nsides == 1)
		die_usage("cmd: --equivalence is the margin of the A/B verdict: it needs a B side "
		          "(--vs or --vs-env)");
	if (!o->p.until_verdict && (o->budget_given || o->max_given))
		die_usage("cmd: --budget and --max-runs go with --until-verdict");
	if (o->profile_opts && !o->profile)
		die_usage("cmd: --profile-runs and --profile-top go with --profile");
	if (o->p.until_verdict && o->runs_given)
		die_usage("cmd: -n and --until-verdict do not go together (use --max-runs)");
	if (o->p.metric >= PB_CMD_MAXRSS && o->p.metric < PB_CMD_NFIGURES && o->p.nsides == 2)
		die_usage("cmd: --metric %s: the verdict is on a time (real, user, sys, user+sys)",
		          pb_cmd_figure_name((enum pb_cmd_figure)o->p.metric));
	check_duet(o);
	for (size_t i = 0; (o->randomize_env || o->audit_runs) && i < o->nenv_a + o->nvs_env; i++) {
		const char *e = i < o->nenv_a ? o->env_a[i] : o->vs_env[i - o->nenv_a];
		if (strncmp(e, "PRIMBENCH_PAD=", 14) == 0)
			die_usage("cmd: %s PRIMBENCH_PAD: that is the variable --%s sets in every "
			          "run",
			          i < o->nenv_a ? "--env" : "--vs-env",
			          o->randomize_env ? "randomize-env" : "layout-audit");
	}
	if (o->seed_given && !o->randomize_env && !o->audit_runs)
		die_usage("cmd: --seed goes with --randomize-env or --layout-audit");
	if (o->audit_runs && o->env.account)
		die_usage("cmd: --layout-audit: not with --account (the audit's runs would join "
		          "A's accounting)");
	if (!o->seed_given)
		o->layout.seed = pb_layout_default_seed();
	if (o->randomize_env) {
		o->layout.mode = PB_LAYOUT_RANDOM;
		o->p.layout = &o->layout;
	}
	if (pb_cmd_metric_is_counter(o->p.metric) && pb_cmd_counters_check() != 0)
		die_usage("cmd: --metric %s: %s",
		          pb_cmd_figure_name((enum pb_cmd_figure)o->p.metric), pb_error());
	if (o->cwd) {
		struct stat st;
		if (stat(o->cwd, &st) != 0 || !S_ISDIR(st.st_mode))
			die_usage("cmd: --cwd '%s': not a directory", o->cwd);
	}
	if (o->out && pb_output_reserve(o->out) != 0)
		die_usage("%s", pb_error());
}

/* Side A: the words after the options, or sh -c "those words"; B: --vs,
 * else A's command, with --vs-env over A's --env; --prepare with the
 * user's --env only (no library for the preparation). */
void cmd_build_sides(char **argv, struct options *o)
{
	struct pb_cmd_spec *a = &o->p.side[0], *b = &o->p.side[1], *pr = &o->prepare_spec;
	a->argv = pb_cmd_ab_argv(&o->argv[0], argv + optind, NULL, o->p.shell);
	if (!a->argv)
		die_usage("%s", pb_error());
	a->env_set = o->env_a;
	a->cwd = o->cwd;
	a->show_output = o->show_output;
	a->wait_children = o->p.wait_children;
	a->cpus = o->p.cpus_text ? &o->cpus : NULL;
	a->counters = pb_cmd_metric_is_counter(o->p.metric);
	if (o->p.nsides == 2) {
		*b = *a;
		if (o->vs && !(b->argv = pb_cmd_ab_argv(&o->argv[1], NULL, o->vs, o->p.shell)))
			die_usage("cmd: --vs %s", pb_error());
		size_t k = 0;
		for (size_t i = 0; i < o->nenv_a; i++)
			o->env_b[k++] = o->env_a[i];
		for (size_t i = 0; i < o->nvs_env; i++)
			o->env_b[k++] = o->vs_env[i];
		b->env_set = o->env_b;
	}
	if (!o->prepare)
		return;
	if (!(pr->argv = pb_cmd_ab_argv(&o->argv[2], NULL, o->prepare, o->p.shell)))
		die_usage("cmd: --prepare %s", pb_error());
	/* The user's --env only: no library for the preparation. */
	char **env_user = calloc(o->nenv_a + 1, sizeof *env_user);
	if (!env_user)
		die_usage("out of memory");
	memcpy(env_user, o->env_a, o->nenv_a * sizeof *env_user);
	pr->env_set = env_user;
	pr->cwd = o->cwd;
	pr->show_output = o->show_output;
	o->p.prepare = pr;
}

/* Every program must be startable before anything is timed. */
void cmd_check_programs(struct options *o)
{
	struct pb_seq_plan plan;
	if (o->p.until_verdict && (o->p.paired ? pb_seq_plan_make_paired(o->p.max_runs, 0.05, &plan)
	                                       : pb_seq_plan_make(o->p.max_runs, 0.05, &plan)) != 0)
		die_usage("cmd: %s", pb_error());
	if (pb_cmd_check(&o->p.side[0]) != 0)
		die_usage("cmd: %s", pb_error());
	if (o->p.nsides == 2 && pb_cmd_check(&o->p.side[1]) != 0)
		die_usage("cmd: --vs: %s", pb_error());
	if (o->p.prepare && pb_cmd_check(o->p.prepare) != 0)
		die_usage("cmd: --prepare: %s", pb_error());
	/* perf: PRIMBENCH_PERF names another program (tests use a stand-in). */
	const char *perf = getenv("PRIMBENCH_PERF");
	o->prof.perf = perf && perf[0] ? perf : "perf";
	if (o->profile) {
		char *pargv[] = {(char *)o->prof.perf, NULL};
		struct pb_cmd_spec ps = {.argv = pargv};
		if (pb_cmd_check(&ps) != 0)
			die_usage("cmd: --profile: %s (perf is in the Debian package linux-perf)",
			          pb_error());
	}
}

/* ---- placement by measured noise (docs/statistics.md) ---- */

void cmd_place(struct options *o)
{
	struct pb_cpu_place *pl = &o->place;
	o->p.placement = pl;
	if (o->p.cpus_text) { /* --cpu LIST */
		*pl = (struct pb_cpu_place){.how = PB_PLACE_OPTION, .cpu = -1};
		snprintf(pl->cpus, sizeof pl->cpus, "%s", o->p.cpus_text);
		if (CPU_COUNT(&o->cpus) == 1)
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &o->cpus))
					pl->cpu = c;
		return;
	}
	cpu_set_t allowed;
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		CPU_ZERO(&allowed);
	if (o->p.duet) { /* both halves are in use: nothing to choose */
		*pl = (struct pb_cpu_place){.how = PB_PLACE_NONE, .cpu = -1};
		pb_cpu_set_format(&allowed, pl->cpus, sizeof pl->cpus);
		snprintf(pl->note, sizeof pl->note,
		         "--duet: A and B on CPUs %s and %s at once, swapped every pair",
		         o->p.duet_cpus_text[0], o->p.duet_cpus_text[1]);
	} else if (o->cpu_any) {
		*pl = (struct pb_cpu_place){.how = PB_PLACE_NONE, .cpu = -1};
		pb_cpu_set_format(&allowed, pl->cpus, sizeof pl->cpus);
		snprintf(pl->note, sizeof pl->note, "--cpu any");
	} else if (pb_cpu_place_decide(&allowed, pl) != 0) {
		die_usage("cmd: %s", pb_error());
	}
	char line[400];
	pb_print_labelled(stderr, 11, "placement:",
	                  pb_cpu_place_describe(
	                      pl, o->p.duet ? "each side pinned to its CPUs" : "running unpinned",
	                      line, sizeof line));
	if (pl->how != PB_PLACE_PROBE)
		return; /* one CPU allowed: pinned by itself; else unpinned */
	CPU_ZERO(&o->cpus);
	CPU_SET(pl->cpu, &o->cpus);
	snprintf(o->place_cpu, sizeof o->place_cpu, "%d", pl->cpu);
	o->p.cpus_text = o->place_cpu;
	for (int sd = 0; sd < o->p.nsides; sd++)
		o->p.side[sd].cpus = &o->cpus;
}
