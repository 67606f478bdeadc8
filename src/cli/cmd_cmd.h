/* cmd_cmd.h - `primbench cmd`'s options (internal to src/cli/): parsed and
 * checked by cmd_cmd_options.c, run and printed by cmd_cmd.c. */
#ifndef PRIMBENCH_CLI_CMD_CMD_H
#define PRIMBENCH_CLI_CMD_CMD_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "primbench/cmd.h"
#include "primbench/cmd_ab.h"

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

/* The help text. */
void cmd_usage(FILE *f);
/* Parses argv into *o (exits 2 with one error line on bad input); true
 * when --help was asked for and printed. */
bool cmd_parse_options(int argc, char **argv, struct options *o);
/* Cross-option checks, --cwd, and the reservation of -o (exits 2). */
void cmd_check_options(int argc, char **argv, struct options *o);
/* What sides A and B and --prepare run, from argv and the options. */
void cmd_build_sides(char **argv, struct options *o);
/* Every program found and executable before the first run (exits 2). */
void cmd_check_programs(struct options *o);

#endif
