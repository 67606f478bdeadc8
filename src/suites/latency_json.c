/* latency_json.c - the latency curve's cases in a result document (schema
 * v1, docs/results-schema.md "A latency case"; the layout of the syscall
 * cases, src/suites/syscall_json.c). */
#include <stdlib.h>

#include "primbench/error.h"
#include "primbench/latency.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/timer.h"

int pb_results_add_latency(json_t *doc, const struct pb_latency_point *pts, int n,
                           const struct pb_latency_info *info)
{
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct pb_latency_point *pt = &pts[i];
		json_t *o = json_object(), *key = json_object();
		json_object_set_new(key, "suite", json_string("latency"));
		json_object_set_new(key, "size_bytes", json_integer((json_int_t)pt->size_bytes));
		json_object_set_new(o, "key", key);
		json_object_set_new(o, "op", json_string("dependent load, random cycle of lines"));
		uint64_t loads[PB_LATENCY_ROUNDS];
		double per[PB_LATENCY_ROUNDS];
		for (int r = 0; r < PB_LATENCY_ROUNDS; r++) {
			loads[r] = pt->round_loads;
			per[r] = pt->round_ticks[r] / (double)pt->round_loads;
		}
		struct pb_summary s;
		if (pb_summarize(per, PB_LATENCY_ROUNDS, 0.95, &s) != 0) {
			json_decref(o);
			return -1;
		}
		pb_json_add_samples(o, pt->round_ticks, loads, PB_LATENCY_ROUNDS, &s);
		json_t *dv = json_object();
		json_object_set_new(dv, "ns_per_load", pb_json_number(pb_ticks_to_ns(s.median)));
		json_object_set_new(o, "median_derived", dv);
		size_t outliers = 0;
		pb_count_outliers_mz(per, PB_LATENCY_ROUNDS, 3.5, &outliers);
		pb_results_append_case(cases, o, info ? &info->thp_bytes : NULL, 0, outliers);
	}
	return 0;
}
