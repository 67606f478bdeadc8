/* primbench/kernel_suite.h - the kernel suite: clear_page, copy_page,
 * kernel_fpu_begin/end (fpu) and user-copy (user_copy) variants timed in
 * kernel context by primbench's module (kmod/primbench_kmod.c) through
 * its character device /dev/primbench (include/primbench/kmod_abi.h), and
 * driven from here as the other suites drive their contenders: the one
 * harness (harness.h) interleaves every case of every selected op,
 * calibrates calls per request, keeps samples, replicates them. The fpu
 * op's PB_KVF_CALL variants are timed here, from user space: a loop of
 * PB_KMOD_IOC_CALL ioctls between two reads of the TSC.
 *
 * Pieces:
 * - struct pb_kmod_ops: the device behind function pointers (open,
 *   info, check, time, call), so that tests drive the whole suite with a
 *   fake device in the process; pb_kmod_device_ops() is the real one
 *   (open(2), ioctl(2)).
 * - pb_kmod_open(): opens the device, reads INFO, checks the ABI version;
 *   its errors are the one-line messages `primbench kernel` prints.
 * - pb_kernel_check(): PB_KMOD_IOC_CHECK of every selected variant and
 *   page size, before anything is timed.
 * - pb_kernel_run_replicates(): the timing (src/suites/kernel.c).
 * The result goes into a result document by pb_results_add_kernel
 * (src/results/kernel_write.c; docs/results-schema.md "A `kernel` case").
 * The module exists for x86-64 only: pb_kernel_arch_supported() says so
 * elsewhere (src/suites/ARCH/kernel_arch.c); the suite itself builds
 * everywhere. */
#ifndef PRIMBENCH_KERNEL_SUITE_H
#define PRIMBENCH_KERNEL_SUITE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kernel_result.h"
#include "primbench/kmod_abi.h"

/* The device. Each returns 0, or -1 with errno set (as open(2) and
 * ioctl(2) do): open returns a handle >= 0 instead of 0. */
struct pb_kmod_ops {
	/* path's device opened read-write; ENOTTY when path is not a
	 * character device, EMEDIUMTYPE when sysfs names it another
	 * driver's (then it is not opened) */
	int (*open)(void *ctx, const char *path);
	void (*close)(void *ctx, int fd);
	int (*info)(void *ctx, int fd, struct pb_kmod_info *out);  /* PB_KMOD_IOC_INFO */
	int (*check)(void *ctx, int fd, struct pb_kmod_check *io); /* PB_KMOD_IOC_CHECK */
	int (*time)(void *ctx, int fd, struct pb_kmod_time *io);   /* PB_KMOD_IOC_TIME */
	int (*call)(void *ctx, int fd, uint32_t variant);          /* PB_KMOD_IOC_CALL */
};

/* open(2) with O_RDWR | O_CLOEXEC after stat(2) says a character device
 * that /sys/dev/char/MAJOR:MINOR does not name as another driver's (a
 * device whose open acts, such as a watchdog, is never opened) and fstat(2)
 * agrees; ioctl(2) for the four requests. */
const struct pb_kmod_ops *pb_kmod_device_ops(void);

/* An open device. */
struct pb_kmod_dev {
	const struct pb_kmod_ops *ops;
	void *ctx; /* the ops' */
	int fd;    /* -1: closed */
	const char *path;
};

/* Opens path through ops, reads INFO into *info and checks it. Returns 0,
 * or -1 with pb_error() one line:
 *  - ENOENT, ENODEV, ENXIO: "PATH is absent: the module primbench_kmod is
 *    not loaded (primbench never loads it): build it with `make kmod`,
 *    load it with `sudo insmod kmod/primbench_kmod.ko` (docs/kernel.md)"
 *  - EACCES, EPERM: "cannot open PATH: ... (mode 0600: run as root)"
 *  - ENOTTY (open or INFO), EMEDIUMTYPE (open: another driver's device):
 *    "PATH is not primbench's device ..."
 *  - another ABI version: "the module at PATH has ABI version N, this
 *    primbench speaks M: rebuild and reload it (make kmod)"
 *  - an INFO out of range (n_variants, n_ops, a variant's op, page
 *    sizes, max_calls_bytes below one 2 MiB page, max_user_bytes not
 *    between 4 KiB and 1 GiB): "... bad INFO".
 * dev is closed after a failure. */
int pb_kmod_open(const struct pb_kmod_ops *ops, void *ctx, const char *path,
                 struct pb_kmod_dev *dev, struct pb_kmod_info *info);
void pb_kmod_close(struct pb_kmod_dev *dev);

/* Whether a comma-separated list has an empty item ("a,", ",a", "a,,b");
 * a list of no item at all ("", ",") is not this (its callers say "empty
 * list"). The lists of `primbench kernel` refuse empty items, as mem's
 * do (src/util/sizes.c). */
bool pb_kmod_list_has_empty_item(const char *list);

/* The variant of op (PB_KOP_*) named `name` in info, or -1. */
int pb_kmod_variant_find(const struct pb_kmod_info *info, uint32_t op, const char *name);

/* Ops as a bit set: bit PB_KOP_x set when op x is selected. */
#define PB_KOP_BIT(op) (1u << (op))

/* Parses `primbench kernel`'s OPS argument: a comma list of clear_page,
 * copy_page, fpu, user_copy, or "all" (every op info has a variant of).
 * Returns the bit set (PB_KOP_BIT), or 0 with pb_error(): "unknown op 'X'
 * (clear_page, copy_page, fpu, user_copy or all)", "op 'X' twice", "empty
 * op list", "the module at ... has no OP variants" (an op the module
 * lacks). info NULL: only the names are checked ("all": every op). */
uint32_t pb_kmod_parse_ops(const struct pb_kmod_info *info, const char *list);

/* Parses a comma-separated list of variant names ("rep_stosb,movnti"),
 * each looked up in every op of `ops` (a name may be in several: each
 * match is taken), into out (at most PB_KMOD_MAX_VARIANTS, variant
 * numbers in the list's order, no repeats). Returns the count, or -1 with
 * pb_error(): "unknown variant 'X' (clear_page has: a, b; fpu has: c)",
 * "OP variant 'X' is not available: WHY" (the module's why), "variant 'X'
 * twice", "empty variant list". */
int pb_kmod_parse_variants(const struct pb_kmod_info *info, uint32_t ops, const char *list,
                           uint32_t *out);

/* Every available variant of the ops in `ops` (PB_KOP_BIT set) into out,
 * in the module's order; returns the count. */
size_t pb_kmod_available_variants(const struct pb_kmod_info *info, uint32_t ops, uint32_t *out);

struct pb_kernel_params {
	const uint32_t *variants; /* [n_variants] PB_KV_*, of any op */
	size_t n_variants;
	const uint32_t *orders; /* [n_orders] PB_KMOD_ORDER_* (clear_page, copy_page) */
	size_t n_orders;
	const uint32_t *states; /* [n_states] PB_KS_* (clear_page, copy_page, user_copy) */
	size_t n_states;
	const uint64_t *sizes; /* [n_sizes] user_copy bytes per call, 1..max_user_bytes */
	size_t n_sizes;
	const uint32_t *uppers; /* [n_uppers] enum pb_kernel_upper (fpu) */
	size_t n_uppers;
	bool irqs_off;   /* PB_KT_IRQS_OFF on TIME requests (not the CALL variants) */
	double budget_s; /* once every case has min_samples (all replicates) */
	size_t min_samples, max_samples, warmup_samples;
	uint64_t seed;
	volatile sig_atomic_t *stop; /* NULL, or set by a signal: stop after the sample */
	double target_ticks;         /* ticks a batch should last; 0: 50 us by tsc_khz */
	int (*cpu_now)(void);        /* NULL: sched_getcpu (tests inject their own) */
	/* NULL: pb_kernel_set_upper; tests without AVX inject their own */
	void (*set_upper)(uint32_t upper);
	/* NULL: pb_kernel_tsc_now */
	uint64_t (*tsc_now)(void);
};

/* The cases p selects, variant-major (variant, then page size, size or
 * upper state, then cache state) into r->cases, and PB_KMOD_IOC_CHECK of
 * every clear_page and copy_page variant x page size, every fpu variant
 * and every user_copy variant x size (on a buffer of its own with
 * PB_KMOD_GUARD_BYTES writable bytes either side) into r->checks.
 * r->info must hold the module's INFO. ENOMEM on a 2 MiB page: that
 * variant's 2 MiB cases skipped with a note. Returns 0 (r->interrupted
 * when a signal ended it), or -1 with pb_error(): "clear_page variant 'X'
 * failed its correctness check: byte at offset N of a 4 KiB page not
 * zero" (and the like per op), "OP variant 'X' is not available: WHY"
 * (EOPNOTSUPP), or the request's errno. */
int pb_kernel_check(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                    struct pb_kernel_result *r);

/* Times r's cases (after pb_kernel_check) `replicates` times in a row (0
 * counts as 1), each with a fresh calibration and seed
 * (pb_replicate_seed), p's budget and max_samples shared out. One harness
 * sample is one PB_KMOD_IOC_TIME with batches 1 and calls the harness's k
 * (max_k: info.max_calls_bytes >> (12 + page_order); user_copy flushed:
 * max_user_bytes / size_bytes), the upper state set right before it for
 * fpu; or, for a PB_KVF_CALL variant, k PB_KMOD_IOC_CALL ioctls, the
 * upper state set before each, between two reads of the TSC (nothing
 * subtracted). user_copy requests use one page-aligned buffer of
 * primbench's (mmap), as large as the largest request needs; before the rounds,
 * an untimed request of one call per case gives the module's overhead
 * (the least seen is subtracted from every batch) and finds the 2 MiB
 * cases that cannot get their page (ENOMEM: skipped, with a note). EINTR,
 * ETIME or the stop flag end the run keeping what was measured. Returns 0,
 * or -1 with pb_error(): EIO "variant 'X' failed its correctness check
 * (TIME, 2 MiB, flushed)", or another errno. */
int pb_kernel_run_replicates(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                             size_t replicates, struct pb_kernel_result *r);

/* Appends one line (printf's fmt, no newline) to r->notes, cut where the
 * buffer ends: the notes the text output prints and the file keeps. */
void pb_kernel_note(struct pb_kernel_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whether this build's architecture has the module (x86-64), and why
 * not. */
bool pb_kernel_arch_supported(const char **why);

/* Whether this CPU and OS can hold upper state u (enum pb_kernel_upper):
 * clean always (nothing to put in init state without XSAVE: then nothing
 * is done); dirty with CPUID.1:ECX AVX and OSXSAVE and XCR0 bits 1-2
 * (SSE, AVX); dirty512 with CPUID.7.0:EBX AVX512F and XCR0 bits 5-7
 * (opmask, ZMM_Hi256, Hi16_ZMM) too (Intel SDM Vol. 1 13.3 "Enabling
 * the XSAVE Feature Set"). *why: why not. False everywhere off x86-64. */
bool pb_kernel_upper_possible(uint32_t u, const char **why);

/* Puts the calling thread's vector registers in upper state u (which
 * pb_kernel_upper_possible allows): clean, xrstor of the AVX, opmask,
 * ZMM_Hi256 and Hi16_ZMM components XCR0 enables from an area whose
 * header's XSTATE_BV is 0 (their init state, Intel SDM Vol. 1 13.8.1
 * "Standard Form of XRSTOR"), as the xsave suite's clean state; dirty,
 * all ones in ymm0; dirty512, all ones in zmm0 and zmm16. */
void pb_kernel_set_upper(uint32_t u);

/* The TSC, read with lfence before and after rdtsc (Intel SDM Vol. 2B
 * RDTSC), the same counter as the module's rdtsc_ordered(): the CALL
 * loops' ticks share the file's rate (kernel.tsc_khz). 0 off x86-64. */
uint64_t pb_kernel_tsc_now(void);

#endif
