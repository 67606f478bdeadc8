/* glibc_check.c - a GLIBC_TUNABLES line measured in fresh processes
 * (glibc_check.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/glibc_check.h"
#include "cli/processes.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"
#include "primbench/twosample.h"

int cli_glibc_check_run(const struct cli_glibc_check *c)
{
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
	char *env[] = {(char *)c->line};
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
	struct pb_glibc_effect_row rows[CLI_GLIBC_CHECK_MAX_SIZES];
	pb_glibc_effect(&r.res, c->pts, c->n, rows);
	char heading[512];
	snprintf(heading, sizeof heading,
	         "%s %s, libc without and with the line, measured: %zu fresh processes each "
	         "way in the order %s (primbench mem %s --kernels libc --sizes %s --cache %s "
	         "--vs-env with the line)",
	         pb_op_name(c->op), pb_cache_state_name(c->state), r.done[0], r.order,
	         pb_op_name(c->op), sizes, pb_cache_state_name(c->state));
	pb_glibc_effect_print(stdout, heading, rows, c->n, r.res.margin);
	cli_vs_env_result_free(&r);
	return status;
}
