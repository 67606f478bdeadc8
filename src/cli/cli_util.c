/* cli_util.c - option values and CPU binding shared by the subcommands. */
#define _GNU_SOURCE /* asprintf */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/syscall.h"
#include "primbench/text.h"

#include "cli/cli.h"
#include "cli/processes.h"

_Noreturn void cli_die_unexpected(const char *cmd, const struct option *longopts, const char *arg)
{
	/* getopt_long permuted argv: find the word before arg as typed */
	for (int i = 1; i < cli_argc; i++) {
		const char *prev = cli_argv[i - 1];
		if (cli_argv[i] != arg || strncmp(prev, "--", 2) != 0 || strchr(prev, '='))
			continue;
		for (const struct option *o = longopts; o->name; o++)
			/* getopt_long takes a unique prefix too (--lat) */
			if (o->has_arg == optional_argument && prev[2] &&
			    !strncmp(o->name, prev + 2, strlen(prev + 2)))
				die_usage(
				    "%s: unexpected argument '%s' (%s takes its value joined: "
				    "%s=%s)",
				    cmd, arg, prev, prev, arg);
	}
	die_usage("%s: unexpected argument '%s'", cmd, arg);
}

/* opt stored into ctx as its row of stores says: true, or false when no
 * row has it. */
static bool store_option(const struct cli_store *s, int opt, const char *arg, void *ctx)
{
	for (; s && s->opt; s++) {
		if (s->opt != opt)
			continue;
		char *at = (char *)ctx + s->at;
		switch (s->kind) {
		case CLI_STORE_TRUE:
		case CLI_STORE_FALSE:
			*(bool *)at = s->kind == CLI_STORE_TRUE;
			break;
		case CLI_STORE_STRING:
			*(const char **)at = arg;
			break;
		case CLI_STORE_COUNT:
			*(size_t *)at = cli_parse_count(s->what, arg, s->lo, s->hi);
			break;
		case CLI_STORE_SECONDS:
			*(double *)at = cli_parse_seconds(s->what, arg);
			break;
		}
		if (s->given)
			*(bool *)((char *)ctx + s->given - 1) = true;
		return true;
	}
	return false;
}

bool cli_parse_options(const char *cmd, int argc, char **argv, const char *optstring,
                       const struct option *longopts, cli_option_fn own, void *ctx,
                       const struct cli_common *common, void (*usage)(FILE *f))
{
	if (cli_options_hook)
		cli_options_hook(optstring, longopts);
	opterr = 0;
	int opt;
	while ((opt = cli_getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (common && store_option(common->stores, opt, optarg, ctx))
			continue;
		if (own && own(opt, optarg, ctx))
			continue;
		if (common && common->sampling &&
		    cli_sampling_option(opt, optarg, common->sampling))
			continue;
		if (opt == 'h') {
			usage(stdout);
			return false;
		} else if (opt == 'q') {
			cli_quiet = true;
		} else if (opt == CLI_OPT_HIDE_FEATURES) {
			cli_hide_features(optarg);
		} else if (opt == 'o' && common && common->out_path) {
			*common->out_path = cli_output_path(optarg);
		} else if (opt == 'f' && common && common->fmt) {
			common->fmt->fmt = cli_parse_format(optarg);
		} else {
			die_bad_option(cmd, argv, opt);
		}
	}
	return true;
}

bool cli_sampling_option(int opt, const char *arg, struct cli_sampling *s)
{
	switch (opt) {
	case CLI_OPT_BUDGET:
		s->budget_s = cli_parse_seconds("--budget", arg);
		return true;
	case CLI_OPT_MIN_SAMPLES:
		s->min_samples = cli_parse_count("sample count", arg, 1, 100000);
		return true;
	case CLI_OPT_MAX_SAMPLES:
		s->max_samples = cli_parse_count("sample count", arg, 1, 100000);
		return true;
	case CLI_OPT_SEED:
		s->seed = cli_parse_count("seed", arg, 0, SIZE_MAX);
		return true;
	default:
		return false;
	}
}

void cli_sampling_check(const struct cli_sampling *s)
{
	if (s->min_samples > s->max_samples)
		die_usage("--min-samples %zu is more than --max-samples %zu", s->min_samples,
		          s->max_samples);
}

double cli_parse_equivalence(const char *cmd, const char *arg)
{
	char *end;
	errno = 0;
	/* decimal digits and a point only: strtod alone would take " 1",
	 * "0x1p0", "inf" */
	size_t digits = strspn(arg, "0123456789.");
	double v = digits ? strtod(arg, &end) : 0;
	if (!digits)
		end = (char *)arg;
	if (end != arg + digits)
		end = (char *)arg;
	else if (*end == '%')
		end++;
	if (errno || end == arg || *end || !(v >= 0) || v >= 50)
		die_usage("%s: bad --equivalence '%s' (a percentage in [0, 50), e.g. 1%%)", cmd,
		          arg);
	return v / 100;
}

/* The samples `r` replicates in `p` processes take at least. */
static size_t replicate_samples(const struct cli_sampling *s, size_t r, size_t p)
{
	return (p > 1 ? p * ((r + p - 1) / p) : r) * s->min_samples;
}

void cli_replicates_check(const struct cli_sampling *s, size_t *replicates, bool given,
                          size_t processes)
{
	if (cli_processes_child())
		return;
	size_t p = processes ? processes : 1, r = *replicates ? *replicates : 1;
	if (given && replicate_samples(s, r, p) > s->max_samples) {
		char in[96] = "";
		if (p > 1)
			snprintf(in, sizeof in, " in --processes %zu (%zu each, %zu in all)", p,
			         (r + p - 1) / p, p * ((r + p - 1) / p));
		die_usage(
		    "--replicates %zu%s of at least --min-samples %zu take %zu samples a case, "
		    "more than --max-samples %zu they share: lower --replicates or raise "
		    "--max-samples",
		    r, in, s->min_samples, replicate_samples(s, r, p), s->max_samples);
	}
	while (r > 1 && replicate_samples(s, r, p) > s->max_samples)
		r--;
	if (replicate_samples(s, r, p) > s->max_samples)
		die_usage("--processes %zu of at least --min-samples %zu take %zu samples a case, "
		          "more than --max-samples %zu they share: lower --processes or raise "
		          "--max-samples",
		          p, s->min_samples, replicate_samples(s, r, p), s->max_samples);
	if (r < (*replicates ? *replicates : 1))
		warn("--max-samples %zu leaves room for %zu replicate%s of at least --min-samples "
		     "%zu, not the default %zu",
		     s->max_samples, r, r == 1 ? "" : "s", s->min_samples, *replicates);
	*replicates = r;
}

void cli_parse_done(void)
{
	const char *v = getenv("PRIMBENCH_PARSE_ONLY");
	if (v && *v && strcmp(v, "0") != 0) {
		fflush(stdout);
		exit(PB_EXIT_OK);
	}
}

void cli_no_operands(const char *cmd, const struct option *longopts, int argc, char **argv)
{
	if (optind < argc)
		cli_die_unexpected(cmd, longopts, argv[optind]);
}

size_t cli_parse_count(const char *what, const char *arg, size_t lo, size_t hi)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || v < lo || v > hi)
		die_usage("bad %s '%s' (a whole number from %zu to %zu)", what, arg, lo, hi);
	return (size_t)v;
}

double cli_parse_seconds(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 3600)
		die_usage("bad %s '%s' (seconds, above 0 and at most 3600, e.g. 0.5)", opt, arg);
	return v;
}

bool cli_stdout_gone(void)
{
	/* A pipe's write end polls POLLERR once its last reader closed. */
	struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int cli_write_doc(const struct pb_results_doc *doc, const char *path)
{
	if (pb_results_write(doc, path) != 0) {
		cli_error("%s", pb_error());
		return PB_EXIT_USAGE;
	}
	printf("\nresults: %s\n", path);
	return PB_EXIT_OK;
}

int cli_session_output(struct pb_session *s, struct cli_format *fmt, int status)
{
	if (s->out_path) {
		if (pb_session_write(s, s->doc) != 0) {
			cli_error("%s", pb_error());
			status = PB_EXIT_USAGE;
		} else {
			printf("\nresults: %s\n", s->out_path);
			status = PB_EXIT_OK;
		}
	}
	if (cli_format_end(fmt, s->doc) != 0) {
		cli_error("%s", pb_error());
		status = PB_EXIT_USAGE;
	}
	return status;
}

const char *cli_output_path(const char *arg)
{
	if (!arg[0])
		die_usage("empty output path in '-o'");
	return arg;
}

static struct pb_auto_origin auto_origin;
static bool auto_done;

const struct pb_auto_origin *cli_auto_setup(void)
{
	if (!auto_done) {
		if (pb_auto_setup(pb_cpu_features(), &auto_origin) != 0)
			die_usage("%s", pb_error());
		auto_done = true;
	}
	return &auto_origin;
}

/* "from FILE" or "built-in default 'ROW' (no FILE: run primbench tune)",
 * allocated: the path may be as long as PB_AUTO_PATH_MAX, and a fixed
 * buffer would cut it (or, sized by hand, miss a field added later). */
static char *auto_source_text(enum pb_op op)
{
	const struct pb_auto_origin *o = cli_auto_setup();
	char *s;
	int n;
	if (o->from_file[op])
		n = asprintf(&s, "from %s", o->path);
	else if (o->unusable[op][0])
		n = asprintf(&s, "built-in default '%s' (%s's %s policy cannot run here: %s)",
		             o->default_row[op], o->path, pb_op_name(op), o->unusable[op]);
	else if (o->file_found)
		n = asprintf(&s, "built-in default '%s' (%s has no %s policy)", o->default_row[op],
		             o->path, pb_op_name(op));
	else if (o->path[0])
		n = asprintf(&s, "built-in default '%s' (no %s: run primbench tune)",
		             o->default_row[op], o->path);
	else
		n = asprintf(&s, "built-in default '%s'", o->default_row[op]);
	if (n < 0)
		die_usage("out of memory");
	return s;
}

void cli_auto_print(FILE *f, enum pb_op op)
{
	const struct pb_auto_origin *o = cli_auto_setup();
	char pol[PB_POLICY_TEXT_MAX], *src = auto_source_text(op), *text;
	if (pb_policy_format(pb_auto_installed(op), pol, sizeof pol) < 0)
		snprintf(pol, sizeof pol, "?");
	if (asprintf(&text, "%s/auto is '%s', %s", pb_op_name(op), pol, src) < 0)
		die_usage("out of memory");
	pb_print_wrapped_at(f, 0, 4, text);
	free(text);
	free(src);
	struct pb_cpu_ident id;
	pb_cpu_ident(&id);
	if (o->from_file[op] && o->file_cpu[0] && strcmp(o->file_cpu, id.brand) != 0) {
		if (asprintf(&text,
		             "note: the policy file was tuned on '%s', this is '%s': run primbench "
		             "tune here",
		             o->file_cpu, id.brand) < 0)
			die_usage("out of memory");
		pb_print_wrapped_at(f, 0, 4, text);
		free(text);
	}
}

void cli_auto_record(struct pb_results_doc *doc, enum pb_op op)
{
	const struct pb_auto_origin *o = cli_auto_setup();
	char pol[PB_POLICY_TEXT_MAX];
	if (pb_policy_format(pb_auto_installed(op), pol, sizeof pol) < 0)
		pol[0] = '\0';
	pb_results_set_auto_policy(doc, op, pol, o);
}

void cli_check_output_dir(const char *what, const char *dir)
{
	/* the directory, or the parent it will be made in */
	char probe[4200], parent[4096];
	struct stat st;
	const char *where = dir;
	if (stat(dir, &st) != 0) {
		snprintf(parent, sizeof parent, "%s", dir);
		size_t n = strlen(parent);
		while (n > 1 && parent[n - 1] == '/')
			parent[--n] = '\0';
		char *slash = strrchr(parent, '/');
		if (!slash)
			snprintf(parent, sizeof parent, ".");
		else
			slash[slash == parent] = '\0';
		where = parent;
	}
	snprintf(probe, sizeof probe, "%s/.primbench-XXXXXX", where);
	int fd = mkstemp(probe);
	if (fd < 0)
		die_usage("%s: cannot write in '%s': %s", what, where, strerror(errno));
	close(fd);
	unlink(probe);
}

void cli_check_output_not_input(const char *cmd, const char *opt, const char *out, char **inputs,
                                size_t n)
{
	struct stat so, si;
	if (stat(out, &so) != 0)
		return; /* a new file: no input is there */
	for (size_t i = 0; i < n; i++)
		if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			die_usage("%s: %s %s would overwrite the input %s", cmd, opt, out,
			          inputs[i]);
}

int cli_parse_cpu_opt(const char *text)
{
	if (!text)
		return -1;
	int cpu = pb_syscall_parse_cpu(text, NULL);
	if (cpu < 0)
		die_usage("%s", pb_error());
	return cpu;
}

void cli_session_params(struct pb_session_params *sp, int cpu, uint64_t seed, bool doc,
                        const char *out_path)
{
	*sp = (struct pb_session_params){
	    .argc = cli_argc,
	    .argv = cli_argv,
	    .seed = seed,
	    .pin = cpu >= 0 ? PB_SESSION_PIN_CPU : PB_SESSION_PIN_HERE,
	    .cpu = cpu,
	    .timer = true,
	    .noise = true,
	    .doc = doc,
	    .record_seed = true,
	    .out_path = out_path,
	};
}

void cli_print_noise_high(const struct pb_noise *noise)
{
	if (!noise->high)
		return;
	char line[512];
	snprintf(line, sizeof line,
	         "noise: HIGH (%s): compare kernels within this run, not across runs",
	         noise->high_cause);
	pb_print_wrapped_at(stdout, 0, 7, line);
}

const char *cli_tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");
	return dir && dir[0] == '/' ? dir : "/tmp";
}
