/* latency_json.c - the latency curve's cases in a result document (schema
 * v1, docs/results-schema.md "A latency case"; the layout of the syscall
 * cases, src/suites/syscall_json.c). */
#include <stdio.h>
#include <stdlib.h>

#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/latency.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/timer.h"

/* One point's case: key (suite, size_bytes, then `extra`'s members),
 * samples, summary, ns_per_load (and `derived`'s members). */
static int add_point(json_t *cases, const struct pb_latency_point *pt, json_t *extra,
                     json_t *derived, const uint64_t *thp_bytes)
{
	json_t *o = json_object(), *key = json_object();
	json_object_set_new(key, "suite", json_string("latency"));
	json_object_set_new(key, "size_bytes", json_integer((json_int_t)pt->size_bytes));
	if (extra)
		json_object_update(key, extra);
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
	if (derived)
		json_object_update(dv, derived);
	json_object_set_new(o, "median_derived", dv);
	size_t outliers = 0;
	pb_count_outliers_mz(per, PB_LATENCY_ROUNDS, 3.5, &outliers);
	pb_results_append_case(cases, o, thp_bytes, 0, outliers);
	return 0;
}

int pb_results_add_latency(json_t *doc, const struct pb_latency_point *pts, int n,
                           const struct pb_latency_info *info)
{
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	json_t *extra = NULL;
	if (info && info->page_bytes) {
		extra = json_object();
		json_object_set_new(extra, "page_bytes",
		                    json_integer((json_int_t)info->page_bytes));
		json_object_set_new(extra, "page_source",
		                    json_string(pb_pages_source_name(info->page_source)));
	}
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = add_point(cases, &pts[i], extra, NULL, info ? &info->thp_bytes : NULL);
	json_decref(extra);
	return rc;
}

int pb_results_add_loaded(json_t *doc, const struct pb_loaded_params *p,
                          const struct pb_loaded_point *pts, int n)
{
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	char kname[96];
	snprintf(kname, sizeof kname, "%s/%s", pb_op_name(p->kernel->op), p->kernel->name);
	for (int i = 0; i < n; i++) {
		json_t *extra = json_object(), *derived = json_object();
		json_object_set_new(extra, "load_threads", json_integer(pts[i].threads));
		json_object_set_new(extra, "load_kernel", json_string(kname));
		json_object_set_new(derived, "load_gb_per_s",
		                    pb_json_number(pts[i].load_bytes_per_s / 1e9));
		int rc = add_point(cases, &pts[i].chase, extra, derived, NULL);
		json_decref(extra);
		json_decref(derived);
		if (rc != 0)
			return -1;
	}
	return 0;
}
