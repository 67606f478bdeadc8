/* cmd_cmd.c - `primbench cmd`: time a whole command N times, or two
 * commands (or environments) A/B in ABBA order with a verdict, optionally
 * until a verdict is reached (include/primbench/cmd.h,
 * include/primbench/twosample.h, docs/methodology.md "The cmd suite").
 * Options and printing; the runs, statistics, preload environment and
 * accounting are the engine's (include/primbench/cmd_ab.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli.h"
#include "primbench/cmd.h"
#include "primbench/cmd_ab.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/policy.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/session.h"
#include "primbench/timer.h"

/* The run's session (include/primbench/session.h): the stop signals (a
 * second one kills the command: pb_cmd_run_once), the result document. */
static struct pb_session sess;

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

/* The options, then the session built from them. */
struct options {
	struct pb_cmd_ab_params p;
	struct pb_cmd_ab_env env;
	struct pb_cmd_ab_profile prof;
	bool profile, profile_opts;
	const char *record_dir; /* --record-distribution */
	const char *out, *vs, *prepare, *cwd;
	struct cli_format fmt;
	char **env_a, **env_b, **vs_env;
	size_t nenv_a, nvs_env;
	bool runs_given, show_output, budget_given, max_given, equiv_given;
	cpu_set_t cpus;                /* --cpu */
	struct pb_cmd_ab_argv argv[3]; /* what A, B and --prepare run */
	struct pb_cmd_spec prepare_spec;
};

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
	case 1007:
		o->profile = true;
		break;
	case 1008:
		o->prof.runs = cli_parse_count("--profile-runs", optarg, 1, 1000);
		o->profile_opts = true;
		break;
	case 1009:
		o->prof.top = cli_parse_count("--profile-top", optarg, 1, 1000);
		o->profile_opts = true;
		break;
	case 1010:
		if (!optarg[0])
			die_usage("cmd: empty directory in '--record-distribution'");
		o->record_dir = optarg;
		break;
	case 1011:
		o->p.wait_children = true;
		break;
	case 1012:
		if (pb_session_parse_cpus(optarg, &o->cpus) != 0)
			die_usage("cmd: --cpu %s: %s", optarg, pb_error());
		o->p.cpus_text = optarg;
		break;
	}
}

/* The options into *o; true for --help (printed). */
static bool parse_options(int argc, char **argv, struct options *o)
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
	opterr = 0;
	int opt;
	while ((opt = cli_getopt_long(argc, argv, "+:hn:w:p:e:io:m:f:q", opts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return true;
		case 'n':
			o->p.runs = cli_parse_count("run count", optarg, 1, 1000000);
			o->runs_given = true;
			break;
		case 'w':
			o->p.warmup = cli_parse_count("warm-up count", optarg, 0, 1000000);
			break;
		case 'p':
			o->prepare = optarg;
			break;
		case 'C':
			o->cwd = optarg;
			break;
		case 'e':
			check_env_arg("--env", optarg);
			o->env_a[o->nenv_a++] = optarg;
			break;
		case 'S':
			o->p.shell = true;
			break;
		case 'O':
			o->show_output = true;
			break;
		case 'i':
			o->p.ignore_failure = true;
			break;
		case 'o':
			o->out = cli_output_path(optarg);
			break;
		case 'f':
			o->fmt.fmt = cli_parse_format(optarg);
			break;
		case 'q':
			cli_quiet = true;
			break;
		case 'v':
			o->vs = optarg;
			break;
		case 'V':
			check_env_arg("--vs-env", optarg);
			o->vs_env[o->nvs_env++] = optarg;
			break;
		case 'm':
			o->p.metric = pb_cmd_parse_figure(optarg);
			if (o->p.metric < 0)
				die_usage("cmd: --metric: %s", pb_error());
			break;
		case 'u':
			o->p.until_verdict = true;
			break;
		case 'E':
			o->p.equivalence = parse_percent(optarg);
			o->equiv_given = true;
			break;
		case 'M':
			o->p.max_runs = cli_parse_count("--max-runs", optarg, 2, 100000);
			o->max_given = true;
			break;
		case 'b':
			o->p.budget_s = parse_budget(optarg);
			o->budget_given = true;
			break;
		case 1000 ... 1012:
			parse_long_option(o, opt);
			break;
		default:
			die_bad_option("cmd", argv, opt);
		}
	}
	return false;
}

/* What the options cannot be together, and what must exist. */
static void check_options(int argc, char **argv, struct options *o)
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
	if (!o->p.until_verdict && (o->budget_given || o->max_given || o->equiv_given))
		die_usage("cmd: --budget, --max-runs and --equivalence go with --until-verdict");
	if (o->profile_opts && !o->profile)
		die_usage("cmd: --profile-runs and --profile-top go with --profile");
	if (o->p.until_verdict && o->runs_given)
		die_usage("cmd: -n and --until-verdict do not go together (use --max-runs)");
	if (o->p.metric >= PB_CMD_MAXRSS && o->p.metric < PB_CMD_NFIGURES && o->p.nsides == 2)
		die_usage("cmd: --metric %s: the verdict is on a time (real, user, sys, user+sys)",
		          pb_cmd_figure_name((enum pb_cmd_figure)o->p.metric));
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
static void build_sides(char **argv, struct options *o)
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
static void check_programs(struct options *o)
{
	struct pb_seq_plan plan;
	if (o->p.until_verdict && pb_seq_plan_make(o->p.max_runs, 0.05, &plan) != 0)
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

static struct cli_progress run_line;

static void on_progress(void *ctx, size_t done, size_t total)
{
	(void)ctx;
	cli_progress_update(&run_line, done, total, total ? "run" : "(until a verdict) run");
}

static bool profiling; /* the progress line says so */

static void on_message(void *ctx, enum pb_cmd_ab_msg kind, const char *text)
{
	(void)ctx;
	if (run_line.on && (kind == PB_CMD_AB_WARNING || profiling))
		fputs("\r\033[K", stderr);
	if (kind == PB_CMD_AB_ERROR)
		cli_error("%s", text);
	else
		warn("%s", text);
}

static void on_profiling(void *ctx, int side)
{
	const struct options *o = ctx;
	profiling = true;
	if (run_line.on)
		fprintf(stderr, "\r\033[Kprimbench cmd: %s%sunder perf record", "profiling ",
		        o->p.nsides == 1 ? ""
		        : side           ? "B "
		                         : "A ");
}

/* The library's environment (libprimswitch.so: --memset/--memcpy/--memmove
 * for both sides, the --vs- ones for B, --account for both; docs/preload.md),
 * --profile's event, the log file, the signals and the output format: the
 * session's set-up (include/primbench/cmd_ab.h). */
static void session_setup(struct options *o)
{
	char **env[2] = {o->env_a, o->env_b};
	size_t nenv[2] = {o->nenv_a, o->p.nsides == 2 ? o->nenv_a + o->nvs_env : 0};
	o->env.record = o->record_dir != NULL;
	if (pb_cmd_ab_env_setup(&o->env, o->p.nsides, env, nenv, o->p.side, &o->p.hooks) != 0) {
		pb_cmd_ab_env_free(&o->env);
		die_usage("cmd: %s", pb_error());
	}
	o->p.env = &o->env;
	if (o->profile && pb_cmd_ab_profile_setup(&o->prof) != 0) {
		pb_cmd_ab_env_free(&o->env);
		die_usage("cmd: %s", pb_error());
	}
	if (o->p.nsides == 2 && o->env.lib[0] != o->env.lib[1])
		warn("cmd: only %s loads libprimswitch.so and pays for it; add e.g. --memcpy libc",
		     o->env.lib[0] ? "A" : "B");
	pb_cmd_ab_env_start_log(&o->env);
	/* primbench's own thread stays unpinned: --cpu pins the command. The
	 * output file was reserved by check_options. */
	struct pb_session_params sp = {
	    .argc = cli_argc, .argv = cli_argv, .pin = PB_SESSION_PIN_NONE, .doc = true};
	if (pb_session_begin(&sp, &sess) != 0) {
		pb_cmd_ab_env_free(&o->env);
		die_usage("cmd: %s", pb_error());
	}
	cli_format_begin(&o->fmt);
}

static int signal_status(void)
{
	return pb_session_exit_status(&sess);
}

/* The result document: to -o and/or standard output (-f). */
static int write_results(struct options *o, const struct pb_cmd_ab_result *r,
                         const struct pb_cmd_ab_stats *ab, json_t *acct_json[2],
                         json_t *prof_json[2], int status)
{
	json_t *doc = sess.doc;
	if (!doc) {
		cli_error("%s", pb_error());
		return status;
	}
	pb_cmd_ab_doc_add(doc, &o->p, r, ab, acct_json, prof_json);
	pb_session_finish(&sess, status >= 128); /* no noise window: cmd times whole runs */
	int wrc = o->out ? cli_write_results(doc, o->out) : PB_EXIT_OK;
	if (wrc != PB_EXIT_OK && status == PB_EXIT_OK)
		status = wrc;
	if (cli_format_end(&o->fmt, doc) != 0) {
		cli_error("%s", pb_error());
		if (status == PB_EXIT_OK)
			status = PB_EXIT_USAGE;
	}
	return status;
}

/* Everything after the runs: the profiled runs, the report, the file. */
static int report(struct options *o, const struct pb_cmd_ab_result *r, int status)
{
	enum pb_cmd_ab_end end = status == PB_EXIT_OK ? PB_CMD_AB_DONE : PB_CMD_AB_FAILED;
	if (o->profile)
		pb_cmd_ab_profile_run(&o->p, &o->prof, &end);
	if (end == PB_CMD_AB_INTERRUPTED)
		status = signal_status();
	/* What the profiled runs left running, before the report. */
	if (pb_cmd_wait_leftovers(pb_session_stop_flag(&sess)) < 0 && status < 128)
		status = signal_status();
	if (run_line.on)
		fputs("\r\033[K", stderr);
	pb_cmd_ab_env_report_log(&o->env, stderr);
	const char *tu;
	double div;
	pb_cmd_ab_time_unit(r, &tu, &div);
	pb_cmd_ab_print_report(stdout, &o->p, r, tu, div);
	json_t *acct_json[2] = {NULL, NULL}, *prof_json[2] = {NULL, NULL};
	if (pb_cmd_ab_print_extras(stdout, &o->p, r, &o->prof, o->record_dir, acct_json,
	                           prof_json) != 0 &&
	    status == PB_EXIT_OK)
		status = PB_EXIT_USAGE;
	struct pb_cmd_ab_stats ab = {0};
	if (o->p.nsides == 2) {
		pb_cmd_ab_stats(r->recs, r->nrecs, o->p.metric, 0.95, false, &ab);
		pb_cmd_ab_print_ab(stdout, &o->p, &ab, tu, div);
		if (o->p.until_verdict && r->ended_by &&
		    !pb_cmd_ab_print_until_verdict(stdout, &o->p, r) && status == PB_EXIT_OK)
			status = PB_EXIT_CHECK_FAILED;
	}
	if (o->out || o->fmt.fmt != PB_FORMAT_TEXT)
		status = write_results(o, r, &ab, acct_json, prof_json, status);
	for (int sd = 0; sd < 2; sd++) {
		json_decref(acct_json[sd]);
		json_decref(prof_json[sd]);
	}
	return status;
}

static void free_options(struct options *o)
{
	pb_cmd_ab_profile_free(&o->prof);
	pb_cmd_ab_env_free(&o->env);
	for (int i = 0; i < 3; i++)
		pb_cmd_ab_argv_free(&o->argv[i]);
	free((void *)o->prepare_spec.env_set);
	free(o->env_a);
	free(o->env_b);
	free(o->vs_env);
}

int cmd_cmd(int argc, char **argv)
{
	struct options o = {.p = {.runs = 10, .max_runs = 60, .equivalence = 0.01},
	                    .prof = {.runs = 1, .top = 15},
	                    .fmt = {.fmt = PB_FORMAT_TEXT}};
	o.p.metric = PB_CMD_REAL;
	o.p.hooks = (struct pb_cmd_ab_hooks){
	    .ctx = &o, .progress = on_progress, .message = on_message, .profiling = on_profiling};
	o.env_a = calloc((size_t)argc + PB_CMD_AB_ENV_EXTRA + 4, sizeof *o.env_a);
	o.env_b = calloc((size_t)argc * 2 + PB_CMD_AB_ENV_EXTRA + 4, sizeof *o.env_b);
	o.vs_env = calloc((size_t)argc + 1, sizeof *o.vs_env);
	if (!o.env_a || !o.env_b || !o.vs_env)
		die_usage("out of memory");
	if (parse_options(argc, argv, &o)) {
		free_options(&o);
		return PB_EXIT_OK;
	}
	check_options(argc, argv, &o);
	build_sides(argv, &o);
	check_programs(&o);
	session_setup(&o);
	o.p.stop = pb_session_stop_flag(&sess);
	pb_cmd_ab_print_commands(stdout, &o.p);

	cli_progress_start(&run_line, "primbench cmd");
	struct pb_cmd_ab_result r;
	if (pb_cmd_ab_run(&o.p, &r) != 0)
		die_usage("cmd: %s", pb_error());
	int status = r.end == PB_CMD_AB_INTERRUPTED    ? signal_status()
	             : r.end == PB_CMD_AB_CANNOT_START ? PB_EXIT_USAGE
	             : r.end == PB_CMD_AB_FAILED       ? PB_EXIT_CHECK_FAILED
	                                               : PB_EXIT_OK;
	if (status == PB_EXIT_USAGE) {
		/* A program that passed pb_cmd_check but could not be executed
		 * (a missing #! interpreter): the error line says it; no file. */
		cli_progress_done(&run_line);
		pb_cmd_ab_env_report_log(&o.env, stderr);
	} else {
		status = report(&o, &r, status);
		if (status >= 128)
			cli_error("interrupted; the finished runs are in the tables%s",
			          o.out ? " and the file" : "");
	}
	pb_cmd_ab_result_free(&r);
	free_options(&o);
	pb_session_end(&sess);
	return status;
}
