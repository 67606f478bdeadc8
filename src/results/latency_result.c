/* latency_result.c - the points of a latency run in replicates
 * (include/primbench/latency_result.h). */
#include <string.h>

#include "primbench/error.h"
#include "primbench/latency_result.h"
#include "primbench/replicates.h"
#include "primbench/timer.h"

int pb_latency_rpoint_add(struct pb_latency_rpoint *rp, const struct pb_latency_point *pt)
{
	if (rp->n_rep == 0) {
		rp->size_bytes = pt->size_bytes;
		rp->round_loads = pt->round_loads;
	} else if (rp->size_bytes != pt->size_bytes || rp->round_loads != pt->round_loads) {
		return pb_fail("a replicate of the %llu-byte point measured %llu bytes",
		               (unsigned long long)rp->size_bytes,
		               (unsigned long long)pt->size_bytes);
	}
	if (rp->n_rep >= PB_LATENCY_MAX_REPLICATES)
		return pb_fail("more than %d replicates of a latency point",
		               PB_LATENCY_MAX_REPLICATES);
	memcpy(rp->round_ticks[rp->n_rep], pt->round_ticks, sizeof pt->round_ticks);
	rp->n_rep++;
	return 0;
}

int pb_latency_rpoint_end(struct pb_latency_rpoint *rp)
{
	if (rp->n_rep == 0 || rp->round_loads == 0)
		return pb_fail("a latency point without a replicate");
	double per[PB_LATENCY_MAX_REPLICATES * PB_LATENCY_ROUNDS];
	size_t rep_n[PB_LATENCY_MAX_REPLICATES], n = 0;
	for (size_t r = 0; r < rp->n_rep; r++) {
		for (int k = 0; k < PB_LATENCY_ROUNDS; k++)
			per[n++] = rp->round_ticks[r][k] / (double)rp->round_loads;
		rep_n[r] = PB_LATENCY_ROUNDS;
	}
	if (pb_summarize_replicates(per, n, rep_n, rp->n_rep, PB_LATENCY_LEVEL, &rp->per_load) != 0)
		return -1;
	rp->ns_per_load = pb_ticks_to_ns(rp->per_load.median);
	return 0;
}
