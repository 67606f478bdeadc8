/* primbench/map_result.h - a case of `primbench mem map` as the result
 * document keeps it (docs/results-schema.md, "A map case"): its key, its
 * samples and summary, the figures of its median. The map suite
 * (include/primbench/map.h) makes one per measured case and hands them to
 * pb_results_add_map. Part of the results module. */
#ifndef PRIMBENCH_MAP_RESULT_H
#define PRIMBENCH_MAP_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

struct pb_map_record {
	/* key */
	const char *fault;       /* "demand" or "populate" */
	size_t page_bytes;       /* 4096, 2 MiB or 1 GiB */
	const char *page_source; /* "4K", "hugetlbfs" or "THP" */
	unsigned threads;
	size_t region_bytes; /* mapped per sample: pages x page_bytes */
	uint64_t pages;      /* pages faulted per sample, all threads */
	/* samples: the span of a sample in ticks, overhead subtracted, and the
	 * pages of the sample; their summary in ticks per page */
	size_t n_samples;
	const double *ticks;
	const uint64_t *calls;
	const struct pb_summary *per_page;
	/* replicates (include/primbench/replicates.h): run r's
	 * replicate_samples[r] samples (0 and NULL: one run) */
	size_t n_replicates;
	const size_t *replicate_samples;
	/* median_derived: ns per page, ns per 4 KiB, GB/s (10^9 bytes/s) */
	double ns_per_page, ns_per_4k_page, gb_per_s;
	bool thp;           /* THP pages: thp_bytes_seen is written */
	uint64_t thp_bytes; /* AnonHugePages seen (thp) */
	size_t migrations, outliers;
};

struct pb_results_doc; /* primbench/results.h */

/* Appends one case per record of cases[0..n) to the document's "cases"
 * (key {suite "map", fault, page_bytes, page_source, threads,
 * region_bytes}, pages, replicates, unit "tsc_ticks", samples [ticks,
 * pages], per_call (ticks per page), median_derived {ns_per_page,
 * ns_per_4k_page, gb_per_s}, then thp_bytes_seen when thp, migrations,
 * outliers), then each non-empty line of notes, after "map: ", to its
 * "notes" (notes may be NULL). Returns 0, or -1 with pb_error() ("not a
 * result document", out of memory). */
int pb_results_add_map(struct pb_results_doc *doc, const struct pb_map_record *cases, size_t n,
                       const char *notes);

#endif
