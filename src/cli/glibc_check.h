/* glibc_check.h - what a GLIBC_TUNABLES line does, measured:
 * libc at the sizes the line changes, without it and with it, in fresh
 * processes A B B A ... (src/cli/processes.c, the --vs-env run), judged
 * beside the prediction (include/primbench/glibc_effect.h). tune runs it
 * on the line it prints. */
#ifndef PRIMBENCH_CLI_GLIBC_CHECK_H
#define PRIMBENCH_CLI_GLIBC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/breakeven.h"
#include "primbench/glibc_effect.h"
#include "primbench/mem.h"
#include "primbench/policy.h"
#include "primbench/summary_result.h"

#define CLI_GLIBC_CHECK_MAX_SIZES 8

/* A check of one op in one cache state. */
struct cli_glibc_check {
	enum pb_op op;             /* memset or memcpy */
	enum pb_cache_state state; /* hot or dram */
	const char *line;          /* "GLIBC_TUNABLES=glibc.cpu...." */
	struct pb_glibc_point pts[CLI_GLIBC_CHECK_MAX_SIZES];
	size_t n;
	size_t replicates; /* processes a side, >= 2 */
	double budget_s;   /* per size, shared by all the processes */
	int cpu;           /* --cpu of the children, -1: none */
};

/* The proposing run's median ticks a call of kernel k at n bytes, or NAN
 * (ctx: the caller's run). */
typedef double (*cli_glibc_median_fn)(const void *ctx, const struct pb_kernel *k, uint64_t n);

/* Fills c->pts from the proposing run's sizes[0..n) (ascending): those
 * where glibc's path with tun differs from its path now under g
 * (pb_glibc_path_at), at most CLI_GLIBC_CHECK_MAX_SIZES of them spread
 * evenly (the first and the last kept), each with its prediction: the
 * median of policy's kernel there over libc's, minus 1. Returns c->n. */
size_t cli_glibc_check_plan(struct cli_glibc_check *c, const struct pb_glibc_thresholds *g,
                            const struct pb_glibc_tunables *tun, const uint64_t *sizes, size_t n,
                            const struct pb_policy *policy, cli_glibc_median_fn median,
                            const void *ctx);

/* What a check measured. */
struct cli_glibc_result {
	struct pb_glibc_effect_row rows[CLI_GLIBC_CHECK_MAX_SIZES];
	size_t n;        /* 0: nothing measured */
	size_t done[2];  /* processes of A and B that finished */
	char order[256]; /* their order, "ABBA..." */
	char unit[32];   /* the rows' unit (they point here) */
	double margin;   /* of the verdicts */
};

/* Runs `primbench mem OP --kernels libc --sizes (c's) --cache STATE` in
 * 2 x c->replicates fresh processes, A B B A ..., B's with c->line in
 * their environment (after the GLIBC_TUNABLES this process has, if any:
 * glibc takes the last of a tunable set twice; cli_vs_env_measure), and
 * judges each size
 * (pb_glibc_effect) into *out. Returns the exit status (0; 2 when a
 * process failed, its line on stderr; 130/143 when interrupted: out holds
 * the processes that finished, if both sides have one). */
int cli_glibc_check_measure(const struct cli_glibc_check *c, struct cli_glibc_result *out);

/* cli_glibc_check_measure, then its table on stdout
 * (pb_glibc_effect_print_check). */
int cli_glibc_check_run(const struct cli_glibc_check *c);

struct pb_results_doc;
/* The default run's summary (include/primbench/summary.h) measures its
 * GLIBC_TUNABLES lines: each policy of summary->glibc.policies that
 * names a line (env, not current_is_closest, libc behind at some size)
 * is checked at the sizes of doc's libc cases of its op and state where
 * the line changes glibc's path, the prediction from doc's medians (the
 * policy's kernel against libc), with `replicates` processes a side; the
 * checks go into summary->glibc.measured (pb_summary_add_measured), for
 * pb_summary_print. Returns the exit status of the first check that
 * failed, else 0. */
int cli_glibc_check_summary(const struct pb_results_doc *doc, struct pb_summary_report *summary,
                            size_t replicates, double budget_s);

#endif
