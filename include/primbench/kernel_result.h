/* primbench/kernel_result.h - the kernel suite's cases and results as
 * data (the suite: include/primbench/kernel_suite.h): the module's INFO,
 * the correctness checks, a measured case (variant x page size x cache
 * state) and the result of a run; their names and derived figures; and
 * pb_results_add_kernel, which writes them into a result document
 * (src/results/kernel_write.c; docs/results-schema.md "A `kernel` case").
 * Part of the results module. */
#ifndef PRIMBENCH_KERNEL_RESULT_H
#define PRIMBENCH_KERNEL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kmod_abi.h"
#include "primbench/stats.h"

/* "rep_stosb", ... from info (NULL when v >= n_variants). */
const char *pb_kmod_variant_name(const struct pb_kmod_info *info, uint32_t v);

/* "hot", "flushed" (PB_KS_*), "?" otherwise. */
const char *pb_kmod_state_name(uint32_t state);

/* One variant x page size's PB_KMOD_IOC_CHECK. */
struct pb_kernel_check {
	uint32_t variant, page_order;
	bool ok;                  /* the page all 0, the guards untouched */
	bool no_memory;           /* ENOMEM: not checked (a 2 MiB page: its cases skipped) */
	int64_t bad_offset_bytes; /* !ok: the module's (negative: the guard before) */
};

/* One measured case: variant x page size x cache state. */
struct pb_kernel_case {
	uint32_t variant;
	char name[32];       /* the module's name of it */
	uint32_t page_order; /* PB_KMOD_ORDER_4K or _2M */
	uint32_t page_bytes; /* 4096 or 2097152 */
	uint32_t state;      /* PB_KS_HOT or PB_KS_FLUSHED */
	bool irqs_off;       /* PB_KT_IRQS_OFF */
	bool skipped;        /* not timed: skip_reason says why (no 2 MiB page) */
	char skip_reason[96];
	/* samples: batch ticks (TSC) with the module's overhead subtracted,
	 * and pages of page_bytes per batch */
	size_t n_samples;
	double *batch_ticks;
	uint64_t *batch_calls;
	struct pb_summary ticks_per_call; /* ticks per page of page_bytes */
	size_t outliers;                  /* modified z-score > 3.5 (kept) */
	unsigned migrations;              /* samples whose batch changed CPU (dropped) */
	size_t n_replicates;              /* as in the other suites (replicates.h) */
	size_t *replicate_samples;
};

struct pb_kernel_result {
	struct pb_kmod_info info; /* the module's INFO */
	const char *device;       /* the path it was opened at */
	struct pb_kernel_check checks[2 * PB_KMOD_MAX_VARIANTS];
	size_t n_checks;
	struct pb_kernel_case *cases;
	size_t n_cases;
	double overhead_ticks; /* the least module overhead seen (pb_kmod_time's) */
	bool interrupted;      /* a signal (EINTR or the stop flag) or the module's
	                          deadline (ETIME) ended it: what was measured is kept */
	char notes[2048];      /* one per line */
};

/* Frees the cases' samples and the cases. */
void pb_kernel_result_free(struct pb_kernel_result *r);

/* Derived figures of a median of ticks per page of page_bytes, at the
 * module's tsc_khz: ticks per 4096 bytes, ns per page, GB/s (1e9 bytes
 * per second). NaN when tsc_khz is 0 (ns, GB/s) or the median is not
 * positive (GB/s). */
double pb_kernel_ticks_per_4k(double ticks_per_page, uint32_t page_bytes);
double pb_kernel_ns(double ticks, uint64_t tsc_khz);
double pb_kernel_gb_per_s(double ticks_per_page, uint32_t page_bytes, uint64_t tsc_khz);

struct pb_results_doc; /* primbench/results.h */

/* Appends r's measured cases to the document's "cases" (docs/results-
 * schema.md, "A `kernel` case": key {suite "kernel", op "clear_page",
 * variant, page_bytes, cache_state, irqs_off when true}, unit
 * "tsc_ticks", samples [ticks, pages], per_call, replicates,
 * median_derived {ns_per_call, ticks_per_page, gb_per_s}, migrations,
 * outliers; skipped cases are notes, not cases), r->notes (each after
 * "kernel: ") and the TSC note to its "notes", and the module's INFO and
 * the checks to its "kernel" object. Returns 0, or -1 with pb_error(). */
int pb_results_add_kernel(struct pb_results_doc *doc, const struct pb_kernel_result *r);

#endif
