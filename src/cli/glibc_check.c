/* glibc_check.c - a GLIBC_TUNABLES line measured in fresh processes
 * (glibc_check.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/glibc_check.h"
#include "cli/processes.h"
#include "primbench/breakeven.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/policy.h"
#include "primbench/results_join.h"
#include "primbench/summary.h"
#include "primbench/twosample.h"

size_t cli_glibc_check_plan(struct cli_glibc_check *c, const struct pb_glibc_thresholds *g,
                            const struct pb_glibc_tunables *tun, const uint64_t *sizes, size_t n,
                            const struct pb_policy *policy, cli_glibc_median_fn median,
                            const void *ctx)
{
	uint64_t cand[256];
	size_t nc = 0;
	for (size_t i = 0; i < n && nc < 256; i++)
		if (pb_glibc_path_at(g, c->op, NULL, sizes[i]) !=
		    pb_glibc_path_at(g, c->op, tun, sizes[i]))
			cand[nc++] = sizes[i];
	const struct pb_kernel *libc = pb_kernel_find(c->op, "libc");
	size_t m = nc < CLI_GLIBC_CHECK_MAX_SIZES ? nc : CLI_GLIBC_CHECK_MAX_SIZES;
	c->n = 0;
	for (size_t j = 0; j < m; j++) {
		uint64_t s = cand[m == 1 ? 0 : j * (nc - 1) / (m - 1)];
		const struct pb_kernel *k = pb_policy_pick(policy, (size_t)s);
		double best = k ? median(ctx, k, s) : NAN;
		double lc = libc ? median(ctx, libc, s) : NAN;
		c->pts[c->n++] = (struct pb_glibc_point){
		    .size_bytes = s,
		    .predicted = best > 0 && lc > 0 ? best / lc - 1 : NAN,
		    .predicted_kernel = k ? k->name : NULL,
		};
	}
	return c->n;
}

int cli_glibc_check_measure(const struct cli_glibc_check *c, struct cli_glibc_result *out)
{
	memset(out, 0, sizeof *out);
	if (!c->n)
		return PB_EXIT_OK;
	char sizes[CLI_GLIBC_CHECK_MAX_SIZES * 24] = "";
	for (size_t i = 0; i < c->n; i++)
		snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%llu",
		         i ? "," : "", (unsigned long long)c->pts[i].size_bytes);
	char cpu[16];
	snprintf(cpu, sizeof cpu, "%d", c->cpu);
	char *argv[] = {cli_argv[0],
	                "mem",
	                (char *)pb_op_name(c->op),
	                "--kernels",
	                "libc",
	                "--sizes",
	                sizes,
	                "--cache",
	                (char *)pb_cache_state_name(c->state),
	                c->cpu >= 0 ? "--cpu" : NULL,
	                cpu,
	                NULL};
	int argc = 0;
	while (argv[argc])
		argc++;
	/* B keeps the GLIBC_TUNABLES this process has (A's), the line's
	 * settings after them: glibc takes the last of a tunable set twice */
	char line[2048];
	const char *have = getenv("GLIBC_TUNABLES");
	const char *settings = !strncmp(c->line, "GLIBC_TUNABLES=", 15) ? c->line + 15 : c->line;
	if (have && *have)
		snprintf(line, sizeof line, "GLIBC_TUNABLES=%s:%s", have, settings);
	else
		snprintf(line, sizeof line, "GLIBC_TUNABLES=%s", settings);
	char *env[] = {line};
	size_t reps = c->replicates >= 2 ? c->replicates : 2;
	struct cli_processes p = {
	    .n = 2 * reps,
	    .replicates_each = 1,
	    .budget_s = c->budget_s,
	    .min_samples = 11,
	    .max_samples = 402,
	    .seed = (uint64_t)time(NULL) * 2654435761u,
	    .format = PB_FORMAT_TEXT,
	    .vs_env = env,
	    .n_vs_env = 1,
	    .argv = argv,
	    .argc = argc,
	};
	struct cli_vs_env_result r;
	int status = cli_vs_env_measure(&p, &r);
	if (!r.doc[0])
		return status;
	out->n = pb_glibc_effect(&r.res, c->pts, c->n, out->rows);
	out->done[0] = r.done[0];
	out->done[1] = r.done[1];
	snprintf(out->order, sizeof out->order, "%s", r.order);
	out->margin = r.res.margin;
	/* the rows' unit outlives r: a copy */
	for (size_t i = 0; i < out->n; i++)
		if (out->rows[i].unit) {
			snprintf(out->unit, sizeof out->unit, "%s", out->rows[i].unit);
			break;
		}
	for (size_t i = 0; i < out->n; i++)
		out->rows[i].unit = out->rows[i].measured ? out->unit : NULL;
	cli_vs_env_result_free(&r);
	return status;
}

int cli_glibc_check_run(const struct cli_glibc_check *c)
{
	struct cli_glibc_result res;
	int status = cli_glibc_check_measure(c, &res);
	if (res.n)
		pb_glibc_effect_print_check(stdout, pb_op_name(c->op),
		                            pb_cache_state_name(c->state), res.done[0], res.order,
		                            res.rows, res.n, res.margin);
	return status;
}

/* The run a summary's check predicts from: its document, op and state. */
struct doc_run {
	const struct pb_results_doc *doc;
	const char *op, *state;
};

/* The median a call of the run's plain case of (kernel, size), or NAN
 * (a cli_glibc_median_fn). */
static double doc_median(const void *ctx, const struct pb_kernel *kernel, uint64_t size)
{
	const struct doc_run *d = ctx;
	return pb_results_mem_median(d->doc, d->op, d->state, kernel->name, size);
}

int cli_glibc_check_summary(const struct pb_results_doc *doc, struct pb_summary_report *summary,
                            size_t replicates, double budget_s)
{
	const struct pb_summary_glibc *gl = &summary->glibc;
	struct pb_glibc_thresholds g;
	pb_glibc_thresholds_read(&g);
#ifndef __x86_64__
	g.known = false; /* x86-64's tunables only (see verify_glibc_line in cmd_tune.c) */
#endif
	if (!g.known)
		return PB_EXIT_OK;
	int status = PB_EXIT_OK;
	for (size_t i = 0; i < gl->n_policies; i++) {
		const struct pb_summary_policy *pol = &gl->policies[i];
		const char *env = pol->has_env ? pol->env : NULL;
		const char *opn = pol->op, *stn = pol->cache_state, *ptext = pol->policy;
		enum pb_op op;
		enum pb_cache_state st;
		struct pb_policy policy;
		struct pb_glibc_tunables tun;
		if (!env || !opn || !stn || pol->current_is_closest ||
		    pol->libc_behind_sizes == 0 || pb_op_parse(opn, &op) != 0 ||
		    pb_cache_state_parse(stn, &st) != 0 ||
		    pb_policy_parse(op, ptext, (pb_features)-1, &policy) != 0 ||
		    pb_glibc_tunables_from_line(env, op, &tun) != 0)
			continue;
		/* the run's libc sizes of (op, state) */
		uint64_t sizes[256];
		size_t ns = pb_results_mem_sizes(doc, opn, stn, "libc", sizes, 256);
		struct cli_glibc_check chk = {
		    .op = op,
		    .state = st,
		    .line = env,
		    .replicates = replicates,
		    .budget_s = budget_s,
		    .cpu = -1,
		};
		const struct doc_run run = {.doc = doc, .op = opn, .state = stn};
		if (!cli_glibc_check_plan(&chk, &g, &tun, sizes, ns, &policy, doc_median, &run))
			continue;
		struct cli_glibc_result res;
		int rc = cli_glibc_check_measure(&chk, &res);
		struct pb_glibc_check check;
		if (res.n) {
			pb_glibc_effect_check_make(opn, stn, env, res.done[0], res.done[1],
			                           res.order, res.margin, res.rows, res.n, &check);
			(void)pb_summary_add_measured(summary, &check); /* full: not kept */
		}
		if (rc != PB_EXIT_OK) {
			status = rc;
			break;
		}
	}
	return status;
}
