/* cmd_cmd.h - `primbench cmd`'s options (internal to src/cli/). Like every
 * subcommand NAME's entry, `primbench cmd`'s is cmd_NAME.c (cmd_cmd.c: the
 * run); its two other parts are cmd_cmd_options.c (the help text, the
 * options parsed and checked, the sides A and B and the CPU they run on)
 * and cmd_cmd_report.c (the tables and the result document). Their
 * functions are the CLI's own, named cmd_*; pb_* names are the library's
 * (include/primbench/cmd_ab.h is the engine they drive). */
#ifndef PRIMBENCH_CLI_CMD_CMD_H
#define PRIMBENCH_CLI_CMD_CMD_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"
#include "primbench/accounting_result.h"
#include "primbench/cmd.h"
#include "primbench/cmd_ab.h"
#include "primbench/cpu_noise.h"
#include "primbench/kernels.h" /* PB_OP_COUNT */
#include "primbench/policy.h"  /* PB_POLICY_MAX_BANDS */
#include "primbench/profile.h"

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

/* ---- the report (cmd_cmd_report.c): the session's text and result document ---- */

struct pb_results_doc;

/* What --account and --profile add to each side's case of the result
 * document (cmd_print_extras fills it, cmd_doc_add hands it to
 * pb_results_add_cmd_case, cmd_extras_free frees it). Zeroed: none. */
struct cmd_extras {
	/* --account: a side's sums (malloc'd; NULL: nothing read), their
	 * tables (acct[sd].total is total[sd]; acct[sd].ran_other_code is
	 * ran[sd]) */
	struct pb_acct_total *total[2];
	struct pb_acct_tables acct[2];
	struct pb_acct_ran_other_code ran[2][PB_OP_COUNT * PB_POLICY_MAX_BANDS];
	/* --profile: a side's profile and how it was sampled (prof[sd].prof
	 * borrows the session's struct pb_cmd_ab_profile) */
	bool have_prof[2];
	struct pb_cmd_profile_record prof[2];
};
/* Frees what x holds (x itself is the caller's). */
void cmd_extras_free(struct cmd_extras *x);

/* What runs: each side's command and the environment entries of its key. */
void cmd_print_commands(FILE *fp, const struct pb_cmd_ab_params *p);
/* How the runs were made, the table of runs, the summaries per side, run 1
 * against the rest, runs that left processes, failures kept. */
void cmd_print_report(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                      const char *tu, double div);
/* --account tables, --record-distribution, --profile tables (the sides
 * of prof that have a profile), their records per side in *x (zeroed by
 * the caller; prof must outlive it). Returns -1 when the distributions
 * could not be written, else 0. */
int cmd_print_extras(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                     const struct pb_cmd_ab_profile *prof, const char *record_dir,
                     struct cmd_extras *x);
/* Adds the session to a result document: a case per side (with its
 * accounting and profile from x, where it has them), "ab" for two sides,
 * the placement, notes (CPU time below the tick, --duet, failed runs
 * kept). */
void cmd_doc_add(struct pb_results_doc *doc, const struct pb_cmd_ab_params *p,
                 const struct pb_cmd_ab_result *r, const struct pb_cmd_ab_stats *ab,
                 const struct cmd_extras *x);
/* The verdict line's text with its reason (pb_cmd_ab_session_verdict,
 * cmd_ab.h), into why[len]. */
void cmd_verdict_text(const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_stats *ab, char *why,
                      size_t len);
/* The time unit of the tables: s, ms or us, from the median real time. */
void cmd_time_unit(const struct pb_cmd_ab_result *r, const char **name, double *div);
/* Every run (a long session: the first 20 and the last 10), one line each. */
void cmd_print_runs(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                    const char *tu, double div);
/* min/median/mean/sd and the median's 95% CI per figure for one side; buf
 * has room for r->nrecs values. */
void cmd_print_summary(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                       int side, const char *tu, double div, double *buf);
/* Run 1 of a side against the rest (is it an outlier?). */
void cmd_print_first_run(FILE *fp, const struct pb_cmd_ab_params *p,
                         const struct pb_cmd_ab_result *r, int side, double *buf);
/* B against A: medians, ratio, the verdict (pb_cmd_ab_verdict), Mann-Whitney
 * and ministat's t block. */
void cmd_print_ab(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_stats *ab,
                  const char *tu, double div);
/* How --until-verdict ended (r->ended_by set); true when by a verdict. */
bool cmd_print_until_verdict(FILE *fp, const struct pb_cmd_ab_params *p,
                             const struct pb_cmd_ab_result *r);
/* --profile: one side's profile (how it was sampled, then the table). */
void cmd_print_profile(FILE *fp, const struct pb_cmd_ab_params *p,
                       const struct pb_cmd_ab_profile *pr, int side, bool preload);
/* The record of one side's profile for its case: pr->prof[side] and how
 * it was sampled (the event, /proc/sys/kernel/perf_event_paranoid and
 * kptr_restrict read now, whether root; preload: the side ran under
 * libprimswitch.so). */
void cmd_profile_record(const struct pb_cmd_ab_profile *pr, int side, bool preload,
                        struct pb_cmd_profile_record *out);
/* --account: one side's accounting files (counted runs) as a table, and
 * as records in x (x->total[side] NULL when nothing could be read: then an
 * error line on stderr). tsc_hz 0: no ticks. */
void cmd_print_account(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                       int side, double tsc_hz, struct cmd_extras *x);
/* --record-distribution DIR: side A's exact sizes files as distribution
 * files in DIR (include/primbench/record.h). 0, or -1 after an error line
 * on stderr. */
int cmd_record(FILE *fp, const struct pb_cmd_ab_params *p, const char *dir);
/* --randomize-env and --layout-audit: the audit (a, NULL without one:
 * how A's figure moves with the environment's size alone) beside the A/B
 * ratio (ab, NULL or not valid: not shown). */
void cmd_print_layout(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_layout_plan *pl,
                      const struct pb_layout_audit *a, size_t runs_per_size,
                      const struct pb_cmd_ab_stats *ab, const char *tu, double div);

#endif
