/* cmd_cmd.c - `primbench cmd`: time a whole command N times, or two
 * commands (or environments) A/B in ABBA order with a verdict, optionally
 * until a verdict is reached (include/primbench/cmd.h,
 * include/primbench/twosample.h, docs/methodology.md "The cmd suite").
 * The run, between the options (cmd_cmd_options.c) and the report
 * (cmd_cmd_report.c); the runs, statistics, preload environment and
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
#include "cli/cmd_cmd.h"
#include "primbench/cmd.h"
#include "primbench/cmd_ab.h"
#include "primbench/cmd_layout_result.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/policy.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/timer.h"

/* The run's session (include/primbench/session.h): the stop signals (a
 * second one kills the command: pb_cmd_run_once), the result document. */
static struct pb_session sess;

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

/* --layout-audit: its runs after the session's (A alone at each
 * environment size), while *end is PB_CMD_AB_DONE; true when *a holds its
 * figures. *end becomes the audit's when it did not finish. */
static bool layout_audit(struct options *o, enum pb_cmd_ab_end *end, struct pb_layout_audit *a)
{
	if (!o->audit_runs || *end != PB_CMD_AB_DONE)
		return false;
	struct pb_cmd_ab_result ar;
	if (pb_cmd_ab_layout_audit(&o->p, o->audit_runs, o->layout.seed, &ar, a) != 0) {
		cli_error("cmd: --layout-audit: %s", pb_error());
		pb_cmd_ab_result_free(&ar);
		*end = PB_CMD_AB_FAILED;
		return false;
	}
	*end = ar.end;
	pb_cmd_ab_result_free(&ar);
	return *end == PB_CMD_AB_DONE;
}

/* The result document: to -o and/or standard output (-f). */
static int write_results(struct options *o, const struct pb_cmd_ab_result *r,
                         const struct pb_cmd_ab_stats *ab, const struct cmd_extras *x,
                         const struct pb_layout_audit *audit, int status)
{
	struct pb_results_doc *doc = sess.doc;
	if (!doc) {
		cli_error("%s", pb_error());
		return status;
	}
	cmd_doc_add(doc, &o->p, r, ab, x);
	/* Whether instructions and cycles could be counted here, and were. */
	bool hw = pb_cmd_counters_check() == 0;
	const struct pb_counters_status cs = {
	    .available = hw,
	    .reason = hw ? NULL : pb_error(),
	    .has_measured = true,
	    .measured = o->p.side[0].counters,
	};
	pb_results_set_counters(doc, &cs);
	if (o->randomize_env || o->audit_runs)
		(void)pb_results_add_layout(doc, &o->layout, audit, o->audit_runs,
		                            pb_cmd_figure_name((enum pb_cmd_figure)o->p.metric));
	pb_session_finish(&sess, status >= 128); /* no noise window: cmd times whole runs */
	int wrc = o->out ? cli_write_doc(doc, o->out) : PB_EXIT_OK;
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
	struct pb_layout_audit audit;
	bool audited = layout_audit(o, &end, &audit);
	if (o->audit_runs && !audited && end == PB_CMD_AB_FAILED && status == PB_EXIT_OK)
		status = PB_EXIT_CHECK_FAILED;
	if (o->audit_runs && end == PB_CMD_AB_CANNOT_START && status == PB_EXIT_OK)
		status = PB_EXIT_USAGE;
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
	cmd_time_unit(r, &tu, &div);
	cmd_print_report(stdout, &o->p, r, tu, div);
	struct cmd_extras x = {0};
	if (cmd_print_extras(stdout, &o->p, r, &o->prof, o->record_dir, &x) != 0 &&
	    status == PB_EXIT_OK)
		status = PB_EXIT_USAGE;
	struct pb_cmd_ab_stats ab = {0};
	if (o->p.nsides == 2) {
		pb_cmd_ab_stats(r->recs, r->nrecs, o->p.metric, 0.95, false, &ab);
		cmd_print_ab(stdout, &o->p, &ab, tu, div);
		if (o->p.until_verdict && r->ended_by &&
		    !cmd_print_until_verdict(stdout, &o->p, r) && status == PB_EXIT_OK)
			status = PB_EXIT_CHECK_FAILED;
	}
	if (o->randomize_env || audited)
		cmd_print_layout(stdout, &o->p, &o->layout, audited ? &audit : NULL, o->audit_runs,
		                 o->p.nsides == 2 ? &ab : NULL, tu, div);
	if (o->out || o->fmt.fmt != PB_FORMAT_TEXT)
		status = write_results(o, r, &ab, &x, audited ? &audit : NULL, status);
	cmd_extras_free(&x);
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
	struct options o = {.p = {.runs = 10, .max_runs = 60, .equivalence = pb_equivalence()},
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
	if (cmd_parse_options(argc, argv, &o)) {
		free_options(&o);
		return PB_EXIT_OK;
	}
	cmd_check_options(argc, argv, &o);
	cmd_build_sides(argv, &o);
	cli_parse_done();
	cmd_check_programs(&o);
	session_setup(&o);
	cmd_place(&o);
	o.p.stop = pb_session_stop_flag(&sess);
	cmd_print_commands(stdout, &o.p);

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
