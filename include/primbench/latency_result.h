/* primbench/latency_result.h - the latency suite's points as data: a
 * point of a pointer-chase curve, what a sweep saw besides its points, a
 * point of a run in replicates and the levels of a loaded run. Filled by
 * the latency suite (include/primbench/latency.h), written into a result
 * document by pb_results_add_latency and its kin. Part of the results
 * module. */
#ifndef PRIMBENCH_LATENCY_RESULT_H
#define PRIMBENCH_LATENCY_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

struct pb_kernel; /* primbench/kernels.h */

#define PB_LATENCY_ROUNDS 5 /* timed rounds per size */

/* One point of a pointer-chase curve: a random cyclic chain through one
 * pointer per cache line of a size_bytes buffer (transparent huge pages
 * requested, so TLB misses stay small next to cache misses). */
struct pb_latency_point {
	uint64_t size_bytes;
	double ticks_per_load; /* timer ticks per dependent load (median of rounds) */
	double ns_per_load;
	/* each round's ticks for round_loads loads, the timer's overhead
	 * subtracted (the samples of the point's result case) */
	double round_ticks[PB_LATENCY_ROUNDS];
	uint64_t round_loads;
};

/* What a sweep saw besides its points. */
struct pb_latency_info {
	uint64_t buffer_bytes;   /* the mapping the chains were built in */
	uint64_t thp_bytes;      /* its AnonHugePages after the largest chain */
	bool interrupted;        /* *stop ended the sweep early */
	size_t page_bytes;       /* the params' page_bytes (0: the default buffer) */
	const char *page_source; /* the params' page_source by its name
	                            (pb_pages_source_name: "4K", "hugetlbfs",
	                            "THP"), a static string */
};

/* ---- replicates (include/primbench/replicates.h) ----------------------- */

#define PB_LATENCY_MAX_REPLICATES 100

/* One point of a sweep run in replicates: every replicate's rounds, in
 * replicate order, and the run-level figure. */
struct pb_latency_rpoint {
	uint64_t size_bytes;
	uint64_t round_loads;
	size_t n_rep; /* replicates that measured the point */
	/* replicate r's rounds (ticks for round_loads loads, overhead
	 * subtracted), r < n_rep */
	double round_ticks[PB_LATENCY_MAX_REPLICATES][PB_LATENCY_ROUNDS];
	/* ticks per load: pb_summarize_replicates over the rounds grouped by
	 * replicate at PB_LATENCY_LEVEL (the geometric mean of the replicates'
	 * medians, Student's t interval on their logs; with one replicate
	 * pb_summarize of its rounds) */
	struct pb_summary per_load;
	double ns_per_load; /* per_load.median in ns */
};

#define PB_LATENCY_LEVEL 0.95

/* Adds replicate pt (one sweep's point) to rp: the first sets size and
 * loads, the next must have the same size. Returns 0, or -1 with
 * pb_error() (another size, more than PB_LATENCY_MAX_REPLICATES). */
int pb_latency_rpoint_add(struct pb_latency_rpoint *rp, const struct pb_latency_point *pt);

/* rp->per_load and ns_per_load from its replicates. Returns 0, or -1 with
 * pb_error() (no replicate). */
int pb_latency_rpoint_end(struct pb_latency_rpoint *rp);

/* ---- loaded latency ------------------------------------------------------ */

/* One load level: the chase's point and what the load threads did while
 * it ran. */
struct pb_loaded_point {
	int threads; /* load threads running */
	struct pb_latency_point chase;
	double load_bytes_per_s; /* all load threads' bytes (per call: call_bytes,
	                            memcpy's copied bytes, not read + write) over
	                            the chase's wall time */
};

/* One load level of a loaded run in replicates: the chase's rounds of
 * every replicate and the load's GB/s, the mean over them. */
struct pb_loaded_rpoint {
	int threads;
	struct pb_latency_rpoint chase;
	double load_bytes_per_s; /* the mean of the replicates' */
};

/* ---- the result document ------------------------------------------------ */

struct pb_results_doc; /* primbench/results.h */

/* Appends one case per point to the document's "cases" (docs/results-
 * schema.md, "A latency case"): key {suite "latency", size_bytes}, op, the
 * rounds as samples ([ticks, loads], unit "tsc_ticks") with their per_call
 * summary (the spread), and median_derived.ns_per_load; info's THP seen as
 * thp_bytes_seen (info NULL: none). With info->page_bytes non-zero
 * (--pages) the key adds page_bytes and page_source (info->page_source).
 * Returns 0, or -1 with pb_error() ("not a result document", out of
 * memory). */
int pb_results_add_latency(struct pb_results_doc *doc, const struct pb_latency_point *pts, int n,
                           const struct pb_latency_info *info);

/* One case per point as pb_results_add_latency, with every replicate's
 * rounds as its samples, "replicates" (each replicate's sample count and
 * median) and per_call the run-level summary (rp->per_load). */
int pb_results_add_latency_run(struct pb_results_doc *doc, const struct pb_latency_rpoint *pts,
                               int n, const struct pb_latency_info *info);

/* One case per level, as pb_results_add_latency (no THP, no page keys),
 * the key adding load_threads and load_kernel ("OP/KERNEL" of
 * load_kernel, e.g. "memcpy/avx2": the kernel the load threads ran) and
 * median_derived adding load_gb_per_s (10^9 bytes/s). */
int pb_results_add_loaded(struct pb_results_doc *doc, const struct pb_kernel *load_kernel,
                          const struct pb_loaded_point *pts, int n);

/* pb_results_add_loaded for a run in replicates (samples, "replicates",
 * per_call as pb_results_add_latency_run). */
int pb_results_add_loaded_run(struct pb_results_doc *doc, const struct pb_kernel *load_kernel,
                              const struct pb_loaded_rpoint *pts, int n);

#endif
