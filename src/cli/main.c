/* main.c - parses nothing but the subcommand name and dispatches. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/report.h"
#include "primbench/text.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"list", cmd_list, "every kernel: id, required CPU features, usable here (or why not)"},
    {"info", cmd_info, "machine fingerprint: CPU, features, caches (with sources), TSC"},
    {"selftest", cmd_selftest, "correctness of every usable kernel on this CPU"},
    {"mem", cmd_mem, "time memset/memcpy kernels across sizes and cache states"},
    {"latency", cmd_latency, "load-to-use latency over working-set sizes (pointer chase)"},
    {"xsave", cmd_xsave, "cost of saving+restoring SIMD state; SIMD vs rep break-even"},
    {"kernel", cmd_kernel, "time clear_page variants in kernel context (primbench's module)"},
    {"syscall", cmd_syscall, "time system calls, pipes, fork/exec/spawn, page faults"},
    {"tune", cmd_tune, "write the auto kernels' policy from this machine's break-even sizes"},
    {"cmd", cmd_cmd, "time a whole command N times; A/B of two commands, verdict"},
    {"compare", cmd_compare, "compare result files: deltas, CIs, p-values (benchstat)"},
    {"report", cmd_report, "a result file in another format (csv, benchfmt, bmf, gbench, ...)"},
    {"account", cmd_account, "table of libprimswitch.so's accounting files in a directory"},
    {"stats", cmd_stats, "ministat-style statistics and t-test verdicts on number files"},
    {"plot", cmd_plot, "draw result files with gnuplot: throughput curves, A/B runs"},
    {"run", cmd_default, "the default suite (same as no subcommand)"},
    {"completion", cmd_completion, "a bash or zsh tab-completion script from the option tables"},
};

const char *cli_subcommand(size_t i, int (**fn)(int argc, char **argv))
{
	if (i >= sizeof commands / sizeof commands[0])
		return NULL;
	*fn = commands[i].fn;
	return commands[i].name;
}

/* The subcommand running ("mem", "run"; NULL before dispatch): every error
 * line names it. */
static const char *cli_command;

/* "primbench: SUBCOMMAND: KINDMESSAGE", wrapped at 80 columns (continuation
 * lines indented by 4) like the tables' notes. A message that already starts
 * with "SUBCOMMAND: " does not repeat it. */
static void vmessage(const char *kind, const char *fmt, va_list ap)
{
	char msg[8192], line[8400];
	vsnprintf(msg, sizeof msg, fmt, ap);
	const char *m = msg;
	size_t n = cli_command ? strlen(cli_command) : 0;
	if (n && !strncmp(m, cli_command, n) && m[n] == ':' && m[n + 1] == ' ')
		m += n + 2;
	snprintf(line, sizeof line, "primbench: %s%s%s%s", n ? cli_command : "", n ? ": " : "",
	         kind, m);
	/* what was printed so far comes first when both go to a terminal */
	fflush(stdout);
	pb_print_wrapped_at(stderr, 0, 4, line);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

_Noreturn void die_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
	exit(PB_EXIT_USAGE);
}

void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

/* The words after "primbench" that give cmd's help: cmd itself, or, for
 * options parsed under a name of their own inside the running subcommand
 * (mem's "map"), "SUBCOMMAND cmd". Returns a static buffer. */
static const char *help_name(const char *cmd)
{
	static char buf[64];
	if (!cli_command || !strcmp(cli_command, cmd))
		return cmd;
	snprintf(buf, sizeof buf, "%s %s", cli_command, cmd);
	return buf;
}

_Noreturn void die_bad_option(const char *cmd, char **argv, int opt)
{
	const char *arg = argv[optind - 1];
	if (opt == ':')
		die_usage("%s: option '%s' needs a value", cmd, arg);
	/* getopt_long sets optopt to a long option's val when it was given a
	 * value it takes none of (--fastest=1), to 0 when the name is unknown */
	if (optopt > 0 && arg[0] == '-' && arg[1] == '-' && strchr(arg, '='))
		die_usage("%s: option '%.*s' takes no value", cmd, (int)(strchr(arg, '=') - arg),
		          arg);
	if (optopt > 0 && optopt < 256 && arg[0] == '-' && arg[1] != '-')
		die_usage("%s: unknown option '-%c' (try 'primbench %s --help')", cmd, optopt,
		          help_name(cmd));
	die_usage("%s: unknown option '%s' (try 'primbench %s --help')", cmd, arg, help_name(cmd));
}

int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts,
                    int *longindex)
{
	int opt = getopt_long(argc, argv, optstring, longopts, longindex);
	/* "--sizes --budget 0.01": getopt took "--budget" as the value. Only
	 * a value given as a word of its own ("--sizes=--budget" is meant). */
	if (opt == -1 || opt == '?' || opt == ':' || !optarg || optind < 2 ||
	    optarg != argv[optind - 1])
		return opt;
	/* "--placement -o x": a short option of this command, not a value
	 * (a negative number such as "--distance -8192" stays a value) */
	if (optarg[0] == '-' && optarg[1] && optarg[1] != '-' && optarg[1] != ':' && !optarg[2] &&
	    strchr(optstring, optarg[1]))
		die_usage("%s: %s needs a value ('%s' is an option)", argv[0], argv[optind - 2],
		          optarg);
	if (strncmp(optarg, "--", 2) != 0 || !optarg[2])
		return opt;
	size_t len = strcspn(optarg + 2, "=");
	for (const struct option *o = longopts; o && o->name; o++)
		if (strlen(o->name) == len && strncmp(o->name, optarg + 2, len) == 0)
			die_usage("%s: %s needs a value ('%s' is an option)", argv[0],
			          argv[optind - 2], optarg);
	return opt;
}

void cli_hide_features(const char *list)
{
	if (pb_cpu_hide_features(list) != 0)
		die_usage("%s", pb_error());
}

static void usage(FILE *f)
{
	fputs("usage: primbench [SUBCOMMAND] [OPTIONS]\n\n"
	      "With no subcommand, runs the default suite (info, then memset and memcpy\n"
	      "at 64 B..32 MiB, hot and dram, every usable kernel) and writes a JSON file.\n\n"
	      "subcommands:\n",
	      f);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'primbench SUBCOMMAND --help' describes each one.\n"
	      "exit status: 0 ok, 1 a requested check failed, 2 usage/input/environment error,\n"
	      "128 + signal when interrupted (130 for Ctrl-C; results measured so far are\n"
	      "kept).\n",
	      f);
}

int cli_argc;
char **cli_argv;

/* Output that could not be written (a full disk) is an environment error,
 * not a success; a reader that went away (`| head`, a closed pipe) is not an
 * error at all: printing stopped, the work (a result file, a check) did not,
 * and the status is the work's (README "Exit statuses"). */
static int finish(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE || cli_stdout_gone())
			return status;
		/* errno 0: the error was an earlier write's, its cause gone */
		cli_error("cannot write to standard output: %s",
		          errno ? strerror(errno) : "write error");
		return status == PB_EXIT_OK ? PB_EXIT_USAGE : status;
	}
	return status;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    !strcmp(argv[i], "help"))
			return true;
	return false;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage(stdout);
			return PB_EXIT_OK;
		}
		if (argc >= 2 && !strcmp(argv[1], "--version")) {
			printf("primbench %s\n", PB_VERSION_STRING);
			return PB_EXIT_OK;
		}
		/* Options without a subcommand belong to the default suite. */
		argv[0] = "run";
		cli_command = "run";
		return cmd_default(argc, argv);
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return PB_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name)) {
			cli_command = commands[i].name;
			return commands[i].fn(argc - 1, argv + 1);
		}
	die_usage("unknown subcommand '%s' (try 'primbench --help')", argv[1]);
}

int main(int argc, char **argv)
{
	/* A closed standard output must not kill the run (SIGPIPE's default):
	 * writes to it fail with EPIPE instead, and finish() says nothing.
	 * Measured commands get the default back (src/suites/cmd.c). */
	signal(SIGPIPE, SIG_IGN);
	/* getopt_long permutes argv: results record the command as typed. */
	cli_argc = argc;
	cli_argv = calloc((size_t)argc + 1, sizeof *cli_argv);
	for (int i = 0; cli_argv && i < argc; i++)
		cli_argv[i] = argv[i];
	/* An unknown name in PRIMBENCH_HIDE_FEATURES is a usage error, except
	 * when asking for help. */
	if (!wants_help(argc, argv) && pb_cpu_hide_env_check() != 0)
		die_usage("%s", pb_error());
	int status = dispatch(argc, argv);
	return finish(status);
}
