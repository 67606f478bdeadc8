/* primbench/kernel_result.h - the kernel suite's cases and results as
 * data (the suite: include/primbench/kernel_suite.h): the module's INFO,
 * the correctness checks, a measured case (clear_page, copy_page: variant
 * x page size x cache state; fpu: variant x upper state; user_copy:
 * variant x size x cache state) and the result of a run; their names,
 * derived figures and the SIMD break-even; and pb_results_add_kernel,
 * which writes them into a result document
 * (src/results/kernel_write.c; docs/results-schema.md "A `kernel` case").
 * Part of the results module. */
#ifndef PRIMBENCH_KERNEL_RESULT_H
#define PRIMBENCH_KERNEL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kmod_abi.h"
#include "primbench/stats.h"

/* "rep_stosb", ... from info (NULL when v >= n_variants). A name is
 * unique within its op only: an op and a name make a variant. */
const char *pb_kmod_variant_name(const struct pb_kmod_info *info, uint32_t v);

/* "clear_page", "copy_page", "fpu", "user_copy" (PB_KOP_*), NULL
 * otherwise. */
const char *pb_kmod_op_name(uint32_t op);

/* The task's vector registers before an fpu ioctl (the words of the
 * xsave suite's upper_state): upper halves in their init state (xrstor
 * of AVX, opmask, ZMM_Hi256 and Hi16_ZMM from an init header); ymm0
 * written (AVX in use); zmm0 and zmm16 written (AVX, ZMM_Hi256 and
 * Hi16_ZMM in use). */
enum pb_kernel_upper { PB_KU_CLEAN, PB_KU_DIRTY, PB_KU_DIRTY512, PB_KU_COUNT };

/* "clean", "dirty", "dirty512"; "?" otherwise. */
const char *pb_kernel_upper_name(uint32_t upper);

/* "hot", "flushed" (PB_KS_*), "?" otherwise. */
const char *pb_kmod_state_name(uint32_t state);

/* One PB_KMOD_IOC_CHECK: clear_page, copy_page: variant x page size;
 * fpu: variant; user_copy: variant x size. */
struct pb_kernel_check {
	uint32_t variant, op, page_order;
	uint64_t size_bytes;      /* user_copy: the region's bytes; else 0 */
	bool ok;                  /* the module found every byte as it should be */
	bool no_memory;           /* ENOMEM: not checked (a 2 MiB page: its cases skipped) */
	int64_t bad_offset_bytes; /* !ok: the module's (negative: the guard before) */
};

/* At most this many checks in a run: (variant x page size) of clear_page
 * and copy_page, fpu variants, user_copy variants x PB_KERNEL_MAX_SIZES. */
#define PB_KERNEL_MAX_SIZES  32
#define PB_KERNEL_MAX_CHECKS (2 * PB_KMOD_MAX_VARIANTS + 3 * PB_KERNEL_MAX_SIZES)

/* One measured case. clear_page, copy_page: variant x page size x cache
 * state; fpu: variant x upper state (page_order 0, hot); user_copy:
 * variant x size_bytes x cache state (page_order 0). */
struct pb_kernel_case {
	uint32_t variant;
	uint32_t op;         /* PB_KOP_* */
	char name[32];       /* the module's name of it (within op) */
	uint32_t page_order; /* PB_KMOD_ORDER_4K or _2M */
	uint32_t page_bytes; /* 4096 or 2097152 */
	uint32_t state;      /* PB_KS_HOT or PB_KS_FLUSHED */
	uint64_t size_bytes; /* user_copy: bytes per call; else 0 */
	uint32_t upper;      /* fpu: enum pb_kernel_upper; else 0 */
	bool user_timed;     /* fpu PB_KVF_CALL variants: a loop of CALL ioctls timed
	                        with rdtsc from user space, nothing subtracted */
	bool irqs_off;       /* PB_KT_IRQS_OFF (TIME requests only) */
	bool skipped;        /* not timed: skip_reason says why (no 2 MiB page) */
	char skip_reason[96];
	/* samples: batch ticks (TSC) with the module's overhead subtracted
	 * (user_timed: as read), and calls per batch (a page of page_bytes, a
	 * begin/end pair or an ioctl, a copy of size_bytes) */
	size_t n_samples;
	double *batch_ticks;
	uint64_t *batch_calls;
	struct pb_summary ticks_per_call; /* ticks per call */
	size_t outliers;                  /* modified z-score > 3.5 (kept) */
	unsigned migrations;              /* samples whose batch changed CPU (dropped) */
	size_t n_replicates;              /* as in the other suites (replicates.h) */
	size_t *replicate_samples;
};

struct pb_kernel_result {
	struct pb_kmod_info info; /* the module's INFO */
	const char *device;       /* the path it was opened at */
	struct pb_kernel_check checks[PB_KERNEL_MAX_CHECKS];
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

/* GB/s of a user_copy median (ticks per copy of size_bytes): NaN as
 * above. */
double pb_kernel_copy_gb_per_s(double ticks_per_copy, uint64_t size_bytes, uint64_t tsc_khz);

/* One break-even: when a system call that clears (copies) n 4 KiB pages
 * with a SIMD variant inside kernel_fpu_begin/end, paying one save and
 * restore of its task's state (the round trip: median ioctl_fpu - median
 * ioctl_null at that upper state, as its caller sees it) plus n times the
 * SIMD variant's 4K hot median per page (which holds the per-page
 * begin/end the module calls), beats n times the fastest non-FPU
 * variant's 4K hot median. */
struct pb_kernel_breakeven {
	uint32_t op;        /* PB_KOP_CLEAR_PAGE or PB_KOP_COPY_PAGE */
	uint32_t upper;     /* enum pb_kernel_upper */
	uint32_t simd, rep; /* the variants (PB_KV_*) */
	char simd_name[32]; /* the module's names */
	char rep_name[32];  /* the fastest non-FPU variant at 4K hot by median */
	double roundtrip_ticks;
	double simd_ticks_per_page, rep_ticks_per_page;
	bool never;     /* SIMD not faster per page (rep <= simd): no n */
	uint64_t pages; /* !never: the smallest whole n >= 1 with roundtrip +
	                   n x simd < n x rep (ceil of roundtrip / (rep - simd),
	                   one more when that is whole) */
};

/* The break-evens r's medians give, into out (at most max): one per op
 * in clear_page, copy_page x upper state with ioctl_fpu and ioctl_null
 * both measured x SIMD (PB_KVF_FPU) variant of the op measured at 4K hot,
 * when a non-FPU variant of the op was measured at 4K hot; in that order
 * (op, upper state, the variants' order in r->cases). Returns the count
 * (0: the run lacks what it needs). Pure: reads the medians only. */
size_t pb_kernel_breakevens(const struct pb_kernel_result *r, struct pb_kernel_breakeven *out,
                            size_t max);

struct pb_results_doc; /* primbench/results.h */

/* Appends r's measured cases to the document's "cases" (docs/results-
 * schema.md, "A `kernel` case": key {suite "kernel", op, variant, then
 * clear_page and copy_page: page_bytes, cache_state; fpu: upper_state;
 * user_copy: size_bytes, cache_state; irqs_off when true}, unit
 * "tsc_ticks", samples [ticks, calls], per_call, replicates,
 * median_derived {ns_per_call; pages: ticks_per_page, gb_per_s;
 * user_copy: gb_per_s}, fpu's timed_from ("kernel" or "user", the latter
 * with overhead_subtracted false), migrations, outliers; skipped cases
 * are notes, not cases), r->notes (each after "kernel: ") and the TSC
 * note to its "notes", and the module's INFO, the checks and the
 * break-evens (pb_kernel_breakevens) to its "kernel" object. Returns 0,
 * or -1 with pb_error(). */
int pb_results_add_kernel(struct pb_results_doc *doc, const struct pb_kernel_result *r);

#endif
