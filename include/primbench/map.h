/* primbench/map.h - `primbench mem map`: the kernel's page clearing at
 * scale, seen from user space (docs/methodology.md "mem map").
 *
 * A case is one page size (pages.h) x one thread count x one fault mode. A
 * sample maps a fresh region of `bytes` (rounded down to whole pages per
 * thread), then faults it: demand (untimed mmap, then each thread writes one
 * byte per page of its own slice, timed) or populate (each thread maps its
 * own slice with the pages faulted in by the kernel, timed: pb_pages_map
 * with populate). munmap is untimed, after the sample. Samples run on the
 * measuring harness (harness.h): one fixed batch per sample, the page sizes
 * of one thread count interleaved round by round, N threads as the
 * harness's workers (the sample is the span first begin .. last end).
 */
#ifndef PRIMBENCH_MAP_H
#define PRIMBENCH_MAP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/harness.h"
#include "primbench/pages.h"
#include "primbench/stats.h"

#define PB_MAP_DEFAULT_BYTES ((size_t)1 << 30)
#define PB_MAP_MAX_THREADS   1024

enum pb_map_fault {
	PB_MAP_DEMAND,   /* touch one byte per page (first write faults it) */
	PB_MAP_POPULATE, /* the kernel faults every page at map time */
};

/* "demand" or "populate". */
const char *pb_map_fault_name(enum pb_map_fault f);

/* Parses "demand" or "populate". 0, or -1 with pb_error() "unknown fault
 * mode 'X' (demand or populate)". */
int pb_map_fault_parse(const char *text, enum pb_map_fault *out);

struct pb_map_params {
	size_t bytes; /* the region of a sample, all threads together (> 0) */
	size_t page_sizes[PB_PAGE_SIZES_MAX];
	size_t n_page_sizes;
	enum pb_map_fault fault;
	const unsigned *threads; /* [n_threads] counts, each 1..PB_MAP_MAX_THREADS */
	size_t n_threads;
	size_t rounds;                     /* kept samples per case (>= 1) */
	size_t warmup;                     /* samples per case discarded first */
	struct pb_harness_pinning pinning; /* where workers run (counts > 1) */
	volatile sig_atomic_t *stop;       /* NULL or a flag set by SIGINT */
	uint64_t seed;                     /* interleaving order; 0: fixed default */
	const char *sysfs_mm;              /* NULL: /sys/kernel/mm (tests: a fake) */
};

struct pb_map_case {
	size_t page_bytes;
	enum pb_page_source source; /* NONE: skipped */
	unsigned threads;
	enum pb_map_fault fault;
	size_t bytes;   /* mapped per sample: pages x page_bytes */
	uint64_t pages; /* pages faulted per sample, all threads */
	char skip[320]; /* non-empty: why the case was skipped (one line) */
	size_t n_samples;
	double *ticks;              /* [n_samples] span of a sample, overhead subtracted */
	uint64_t *calls;            /* [n_samples] pages of the sample */
	struct pb_summary per_page; /* ticks per page (valid when n_samples > 0) */
	uint64_t thp_bytes;         /* THP: the least AnonHugePages of the region
	                               after any sample (warm-up included; bytes
	                               < `bytes`: some faults fell back to 4K) */
	size_t migrations, outliers;
	/* replicates (include/primbench/replicates.h): the samples are
	 * n_replicates runs of the whole set of cases in a row, run r's
	 * replicate_samples[r] of them (0 and NULL: one run); with two or
	 * more, per_page's median and CI are the runs' */
	size_t n_replicates;
	size_t *replicate_samples;
};

struct pb_map_result {
	size_t n_cases;
	struct pb_map_case *cases; /* page sizes x thread counts, counts outer */
	bool interrupted;
	char notes[1024]; /* lines ('\n'-ended) for the output and the file */
};

/* Runs every case. pb_timer_init() must have run. Returns 0 with *r filled
 * (free with pb_map_result_free; skipped cases are in it with `skip`), or
 * -1 with pb_error() (bad parameter, a mapping that fails, out of memory)
 * and *r freed. */
int pb_map_run(const struct pb_map_params *p, struct pb_map_result *r);

void pb_map_result_free(struct pb_map_result *r);

/* Replicates: adds the run `more` of the same parameters to acc (zeroed
 * before the first), each case's samples as one more replicate of acc's
 * case of the same page size, thread count and fault mode (a case acc
 * lacks is added with `more` as its first); more is freed. The least
 * thp_bytes of the runs is kept, notes merged. Then
 * pb_map_result_end_replicates summarizes every case (per_page by
 * pb_summarize_replicates, 95%). Both return 0, or -1 with pb_error(). */
int pb_map_result_add_replicate(struct pb_map_result *acc, struct pb_map_result *more);
int pb_map_result_end_replicates(struct pb_map_result *r);

/* The rounds each of `replicates` runs keeps for --rounds `rounds` in
 * all: floor(rounds / replicates) (their sum within rounds), at least 1. */
size_t pb_map_rounds_each(size_t rounds, size_t replicates);

/* Replicate `rep` (0-based) of `replicates` runs of p: *out is p with
 * pb_map_rounds_each(p->rounds, replicates) rounds and the seed
 * pb_replicate_seed(p->seed, rep) (replicates.h). */
void pb_map_replicate_params(const struct pb_map_params *p, size_t rep, size_t replicates,
                             struct pb_map_params *out);

/* Called as replicate `rep` (0-based) of `replicates` starts. */
typedef void pb_map_replicate_progress(void *ctx, size_t rep, size_t replicates);

/* Every case `replicates` times in a row (0 counts as 1), replicate r with
 * pb_map_replicate_params(p, r, replicates) (each its own warm-up, fresh
 * regions and interleaving order, the rounds shared out), joined by
 * pb_map_result_add_replicate and summarized by
 * pb_map_result_end_replicates. progress (may be NULL) is called with
 * progress_ctx before each replicate. A stop (p->stop) ends the run after
 * the replicate it interrupted: out->interrupted, what was measured kept.
 * pb_timer_init() must have run. Returns 0 with *out filled (free with
 * pb_map_result_free), or -1 with pb_error() as pb_map_run and *out
 * freed. */
int pb_map_run_replicates(const struct pb_map_params *p, size_t replicates,
                          pb_map_replicate_progress *progress, void *progress_ctx,
                          struct pb_map_result *out);

/* The accounting of one case: pages and bytes of a sample for `bytes`
 * asked, page_bytes and `threads` (each thread gets floor(bytes /
 * page_bytes / threads) pages, so pages is a multiple of threads and bytes
 * = pages x page_bytes). Returns false when that is 0 pages. */
bool pb_map_split(size_t bytes, size_t page_bytes, unsigned threads, uint64_t *pages,
                  size_t *mapped);

/* The error line of a run that measured nothing (no case has samples):
 * "nothing was measured", then ": " and the distinct skip lines of its
 * cases in their order, joined by "; " (one line, for stderr in every
 * format). Returns snprintf's count. */
int pb_map_nothing_line(const struct pb_map_result *r, char *buf, size_t len);

/* The region per round for the output's heading, of the cases measured:
 * "4K per round" (what they map), "2M to 3M per round" (the least to the
 * most), with "(4097 asked)" after it when the size asked is not what
 * they map (whole pages, a smaller hugetlbfs pool); the size asked alone
 * when none was measured. Returns snprintf's count. */
int pb_map_round_size(const struct pb_map_result *r, size_t asked, char *buf, size_t len);

/* Figures of a case from its time per page (ns): GB/s (10^9 bytes/s) =
 * page_bytes / ns_per_page, ns per 4 KiB = ns_per_page x 4096 / page_bytes. */
struct pb_map_figures {
	double gb_per_s, ns_per_4k, ns_per_page;
};
void pb_map_figures_of(size_t page_bytes, double ns_per_page, struct pb_map_figures *out);

/* The region to use for a request of `want` bytes: at most half of
 * mem_available (bytes, /proc/meminfo's MemAvailable; 0: unknown, no cap).
 * *capped tells whether it was cut. */
size_t pb_map_size_cap(size_t want, uint64_t mem_available, bool *capped);

/* MemAvailable of /proc/meminfo in bytes; 0 when unreadable. */
uint64_t pb_map_mem_available(void);

struct pb_results_doc; /* primbench/results.h */

/* Hands r to a result document: its measured cases (skipped ones and
 * cases without samples are not cases) as records to pb_results_add_map
 * (include/primbench/map_result.h, docs/results-schema.md "A map case"),
 * then as notes the skip lines that name threads and r->notes. 0, or -1
 * with pb_error(). */
int pb_map_result_to_doc(struct pb_results_doc *doc, const struct pb_map_result *r);

#endif
