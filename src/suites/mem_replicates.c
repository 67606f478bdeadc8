/* mem_replicates.c - a mem run in replicates (include/primbench/mem.h,
 * pb_mem_run_replicates): the loop mem, tune and xsave's break-even sweep
 * share. */
#include <stdio.h>
#include <string.h>

#include "primbench/mem.h"
#include "primbench/replicates.h"

/* The seed step between replicates: 2^64 over the golden ratio, so the
 * replicates' seeds are far apart whatever the first. */

struct pb_mem_params pb_mem_replicate_params(const struct pb_mem_params *p, size_t rep, size_t n)
{
	struct pb_mem_params q = *p;
	if (n == 0)
		n = 1;
	q.seed = pb_replicate_seed(p->seed, rep);
	q.budget_s = p->budget_s / (double)n;
	size_t per = p->max_samples / n; /* their sum stays within max_samples */
	q.max_samples = per > p->min_samples ? per : p->min_samples;
	return q;
}

int pb_mem_run_replicates(const struct pb_mem_params *p, const struct pb_mem_replicates *rs,
                          struct pb_mem_result *r)
{
	size_t n = rs->n ? rs->n : 1;
	const char *label = rs->label ? rs->label : "";
	memset(r, 0, sizeof *r);
	for (size_t rep = 0; rep < n; rep++) {
		struct pb_mem_params q = pb_mem_replicate_params(p, rep, n);
		/* the label outlives the run: start's callback may keep it (the
		 * progress line reads it on every update) */
		char line[256];
		if (rs->start) {
			if (n > 1)
				snprintf(line, sizeof line, "%s, replicate %zu of %zu", label,
				         rep + 1, n);
			else
				snprintf(line, sizeof line, "%s", label);
			rs->start(rs->ctx, line, &q);
		}
		struct pb_mem_result one;
		int rc =
		    rs->replay ? pb_mem_replay_run(&q, rs->replay, &one) : pb_mem_run(&q, &one);
		if (rs->end)
			rs->end(rs->ctx);
		if (rc != 0) {
			pb_mem_result_free(r);
			return -1;
		}
		if (pb_mem_result_add_replicate(r, &one) != 0) {
			pb_mem_result_free(&one);
			pb_mem_result_free(r);
			return -1;
		}
		if (r->interrupted)
			break;
	}
	if (pb_mem_result_end_replicates(r) != 0) {
		pb_mem_result_free(r);
		return -1;
	}
	return 0;
}
