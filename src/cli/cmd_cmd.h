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
#include "primbench/cpu_noise.h"

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
	cpu_set_t cpus;         /* --cpu, or the CPU the placement chose */
	cpu_set_t duet_set[2];  /* --duet: each slot's CPUs */
	char duet_text[2][256]; /* and as lists */
	/* placement by measured noise (cmd_place) */
	bool cpu_any;                  /* --cpu any: no pinning, no probe */
	struct pb_cpu_place place;     /* how the CPU was chosen */
	char place_cpu[16];            /* the chosen CPU as text (p.cpus_text) */
	struct pb_cmd_ab_argv argv[3]; /* what A, B and --prepare run */
	struct pb_cmd_spec prepare_spec;
	/* --randomize-env, --seed, --layout-audit[=R] (R in audit_runs; 0 none) */
	struct pb_layout_plan layout;
	bool randomize_env, seed_given;
	size_t audit_runs;
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
/* Without --cpu: the noise probe of the allowed CPUs and the command pinned
 * to the quietest (include/primbench/cpu_noise.h), one "placement:" line
 * on stderr; --cpu any: not pinned. Sets p.placement (exits 2 on a bad
 * PRIMBENCH_PROBE_MS). */
void cmd_place(struct options *o);

/* ---- the report (cmd_ab_text.c): the session's text and result document ---- */

/* TRANSITIONAL (issue 37): the accounting (pb_results_acct_json of report's
 * pb_acct_tables), profile (results' pb_profile_json) and case (the cmd
 * suite's pb_cmd_case_json) objects are still JSON (jansson's json_t) until their modules hand
 * typed structs; every other part of the document is written by src/results/. */
struct json_t;
struct pb_results_doc;

/* What runs: each side's command and the environment entries of its key. */
void pb_cmd_ab_print_commands(FILE *fp, const struct pb_cmd_ab_params *p);
/* How the runs were made, the table of runs, the summaries per side, run 1
 * against the rest, runs that left processes, failures kept. */
void pb_cmd_ab_print_report(FILE *fp, const struct pb_cmd_ab_params *p,
                            const struct pb_cmd_ab_result *r, const char *tu, double div);
/* --account tables, --record-distribution, --profile tables (the sides
 * of prof that have a profile), their JSON in acct_json and prof_json per side.
 * Returns -1 when the distributions could not be written, else 0. */
int pb_cmd_ab_print_extras(FILE *fp, const struct pb_cmd_ab_params *p,
                           const struct pb_cmd_ab_result *r, const struct pb_cmd_ab_profile *prof,
                           const char *record_dir, struct json_t *acct_json[2],
                           struct json_t *prof_json[2]);
/* Adds the session to a result document: a case per side (with its
 * accounting and profile objects, when not NULL), "ab" for two sides, a
 * note for failed runs kept. */
void pb_cmd_ab_doc_add(struct pb_results_doc *doc, const struct pb_cmd_ab_params *p,
                       const struct pb_cmd_ab_result *r, const struct pb_cmd_ab_stats *ab,
                       struct json_t *acct_json[2], struct json_t *prof_json[2]);
/* The verdict line's text with its reason (pb_cmd_ab_session_verdict,
 * cmd_ab.h), into why[len]. */
void pb_cmd_ab_verdict_text(const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_stats *ab,
                            char *why, size_t len);
/* The time unit of the tables: s, ms or us, from the median real time. */
void pb_cmd_ab_time_unit(const struct pb_cmd_ab_result *r, const char **name, double *div);
/* Every run (a long session: the first 20 and the last 10), one line each. */
void pb_cmd_ab_print_runs(FILE *fp, const struct pb_cmd_ab_params *p,
                          const struct pb_cmd_ab_result *r, const char *tu, double div);
/* min/median/mean/sd and the median's 95% CI per figure for one side; buf
 * has room for r->nrecs values. */
void pb_cmd_ab_print_summary(FILE *fp, const struct pb_cmd_ab_params *p,
                             const struct pb_cmd_ab_result *r, int side, const char *tu, double div,
                             double *buf);
/* Run 1 of a side against the rest (is it an outlier?). */
void pb_cmd_ab_print_first_run(FILE *fp, const struct pb_cmd_ab_params *p,
                               const struct pb_cmd_ab_result *r, int side, double *buf);
/* B against A: medians, ratio, the verdict (pb_cmd_ab_verdict), Mann-Whitney
 * and ministat's t block. */
void pb_cmd_ab_print_ab(FILE *fp, const struct pb_cmd_ab_params *p,
                        const struct pb_cmd_ab_stats *ab, const char *tu, double div);
/* How --until-verdict ended (r->ended_by set); true when by a verdict. */
bool pb_cmd_ab_print_until_verdict(FILE *fp, const struct pb_cmd_ab_params *p,
                                   const struct pb_cmd_ab_result *r);
/* --profile: one side's profile (how it was sampled, then the table), and
 * as JSON. */
void pb_cmd_ab_print_profile(FILE *fp, const struct pb_cmd_ab_params *p,
                             const struct pb_cmd_ab_profile *pr, int side, bool preload);
struct json_t *pb_cmd_ab_profile_json(const struct pb_cmd_ab_profile *pr, int side, bool preload);
/* --account: one side's accounting files (counted runs) as a table, and as
 * JSON in *out (NULL when nothing could be read: then an error line on
 * stderr). tsc_hz 0: no ticks. */
void pb_cmd_ab_print_account(FILE *fp, const struct pb_cmd_ab_params *p,
                             const struct pb_cmd_ab_result *r, int side, double tsc_hz,
                             struct json_t **out);
/* --record-distribution DIR: side A's exact sizes files as distribution
 * files in DIR (include/primbench/record.h). 0, or -1 after an error line
 * on stderr. */
int pb_cmd_ab_record(FILE *fp, const struct pb_cmd_ab_params *p, const char *dir);
/* --randomize-env and --layout-audit: the audit (a, NULL without one:
 * how A's figure moves with the environment's size alone) beside the A/B
 * ratio (ab, NULL or not valid: not shown). */
void pb_cmd_ab_print_layout(FILE *fp, const struct pb_cmd_ab_params *p,
                            const struct pb_layout_plan *pl, const struct pb_layout_audit *a,
                            size_t runs_per_size, const struct pb_cmd_ab_stats *ab, const char *tu,
                            double div);

#endif
