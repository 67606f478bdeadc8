/* latency_write.c - the latency curve's cases in a result document
 * (include/primbench/latency_result.h; docs/results-schema.md "A latency
 * case"; the layout of the syscall cases, src/results/syscall_write.c,
 * replicates and all). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/latency_result.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/stats.h"
#include "primbench/timer.h"

/* One point's case: key (suite, size_bytes, then `extra`'s members),
 * samples (every replicate's rounds, in replicate order), "replicates"
 * when `with_reps`, the run-level summary, ns_per_load (and `derived`'s
 * members). */
static int add_point(json_t *cases, const struct pb_latency_rpoint *pt, bool with_reps,
                     json_t *extra, json_t *derived, const uint64_t *thp_bytes)
{
	json_t *o = json_object(), *key = json_object();
	json_object_set_new(key, "suite", json_string("latency"));
	json_object_set_new(key, "size_bytes", json_integer((json_int_t)pt->size_bytes));
	if (extra)
		json_object_update(key, extra);
	json_object_set_new(o, "key", key);
	json_object_set_new(o, "op", json_string("dependent load, random cycle of lines"));
	enum { CAP = PB_LATENCY_MAX_REPLICATES * PB_LATENCY_ROUNDS };
	uint64_t loads[CAP];
	double ticks[CAP], per[CAP];
	size_t rep_n[PB_LATENCY_MAX_REPLICATES], n = 0;
	for (size_t r = 0; r < pt->n_rep; r++) {
		for (int k = 0; k < PB_LATENCY_ROUNDS; k++, n++) {
			loads[n] = pt->round_loads;
			ticks[n] = pt->round_ticks[r][k];
			per[n] = ticks[n] / (double)pt->round_loads;
		}
		rep_n[r] = PB_LATENCY_ROUNDS;
	}
	if (with_reps) {
		json_t *reps = pb_json_replicates(ticks, loads, n, rep_n, pt->n_rep);
		if (reps)
			json_object_set_new(o, "replicates", reps);
	}
	pb_json_add_samples(o, ticks, loads, n, &pt->per_load);
	json_t *dv = json_object();
	json_object_set_new(dv, "ns_per_load", pb_json_number(pb_ticks_to_ns(pt->per_load.median)));
	if (derived)
		json_object_update(dv, derived);
	json_object_set_new(o, "median_derived", dv);
	size_t outliers = 0;
	pb_count_outliers_mz(per, n, 3.5, &outliers);
	pb_results_append_case(cases, o, thp_bytes, 0, outliers);
	return 0;
}

/* A one-replicate rpoint of pt (the cases of a sweep without replicates). */
static int one_replicate(const struct pb_latency_point *pt, struct pb_latency_rpoint *rp)
{
	memset(rp, 0, sizeof *rp);
	if (pb_latency_rpoint_add(rp, pt) != 0)
		return -1;
	return pb_latency_rpoint_end(rp);
}

/* The page keys of a --pages sweep, or NULL. */
static json_t *page_keys(const struct pb_latency_info *info)
{
	if (!info || !info->page_bytes)
		return NULL;
	json_t *extra = json_object();
	json_object_set_new(extra, "page_bytes", json_integer((json_int_t)info->page_bytes));
	json_object_set_new(extra, "page_source",
	                    json_string(info->page_source ? info->page_source : "none"));
	return extra;
}

int pb_results_add_latency(struct pb_results_doc *rdoc, const struct pb_latency_point *pts, int n,
                           const struct pb_latency_info *info)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	struct pb_latency_rpoint *rp = malloc(sizeof *rp);
	if (!rp)
		return pb_fail("out of memory");
	json_t *extra = page_keys(info);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = one_replicate(&pts[i], rp);
		if (rc == 0)
			rc = add_point(cases, rp, false, extra, NULL,
			               info ? &info->thp_bytes : NULL);
	}
	json_decref(extra);
	free(rp);
	return rc;
}

int pb_results_add_latency_run(struct pb_results_doc *rdoc, const struct pb_latency_rpoint *pts,
                               int n, const struct pb_latency_info *info)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	json_t *extra = page_keys(info);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = add_point(cases, &pts[i], true, extra, NULL, info ? &info->thp_bytes : NULL);
	json_decref(extra);
	return rc;
}

/* One loaded level's case: the key adds load_threads and load_kernel,
 * median_derived load_gb_per_s. */
static int add_level(json_t *cases, const char *kname, int threads, double load_bytes_per_s,
                     const struct pb_latency_rpoint *chase, bool with_reps)
{
	json_t *extra = json_object(), *derived = json_object();
	json_object_set_new(extra, "load_threads", json_integer(threads));
	json_object_set_new(extra, "load_kernel", json_string(kname));
	json_object_set_new(derived, "load_gb_per_s", pb_json_number(load_bytes_per_s / 1e9));
	int rc = add_point(cases, chase, with_reps, extra, derived, NULL);
	json_decref(extra);
	json_decref(derived);
	return rc;
}

int pb_results_add_loaded(struct pb_results_doc *rdoc, const struct pb_kernel *load_kernel,
                          const struct pb_loaded_point *pts, int n)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	char kname[96];
	snprintf(kname, sizeof kname, "%s/%s", pb_op_name(load_kernel->op), load_kernel->name);
	struct pb_latency_rpoint *rp = malloc(sizeof *rp);
	if (!rp)
		return pb_fail("out of memory");
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		rc = one_replicate(&pts[i].chase, rp);
		if (rc == 0)
			rc = add_level(cases, kname, pts[i].threads, pts[i].load_bytes_per_s, rp,
			               false);
	}
	free(rp);
	return rc;
}

int pb_results_add_loaded_run(struct pb_results_doc *rdoc, const struct pb_kernel *load_kernel,
                              const struct pb_loaded_rpoint *pts, int n)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	char kname[96];
	snprintf(kname, sizeof kname, "%s/%s", pb_op_name(load_kernel->op), load_kernel->name);
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++)
		rc = add_level(cases, kname, pts[i].threads, pts[i].load_bytes_per_s, &pts[i].chase,
		               true);
	return rc;
}
