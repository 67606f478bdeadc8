/* primbench/kernel_suite.h - the kernel suite: clear_page variants timed
 * in kernel context by primbench's module (kmod/primbench_kmod.c) through
 * its character device /dev/primbench (include/primbench/kmod_abi.h), and
 * driven from here as the other suites drive their contenders: the one
 * harness (harness.h) interleaves variant x page size x cache state,
 * calibrates calls per request, keeps samples, replicates them.
 *
 * Pieces:
 * - struct pb_kmod_ops: the device behind four function pointers (open,
 *   info, check, time), so that tests drive the whole suite with a fake
 *   device in the process; pb_kmod_device_ops() is the real one (open(2),
 *   ioctl(2)).
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
};

/* open(2) with O_RDWR | O_CLOEXEC after stat(2) says a character device
 * that /sys/dev/char/MAJOR:MINOR does not name as another driver's (a
 * device whose open acts, such as a watchdog, is never opened) and fstat(2)
 * agrees; ioctl(2) for the three requests. */
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
 *  - an INFO out of range (n_variants, page sizes): "... bad INFO".
 * dev is closed after a failure. */
int pb_kmod_open(const struct pb_kmod_ops *ops, void *ctx, const char *path,
                 struct pb_kmod_dev *dev, struct pb_kmod_info *info);
void pb_kmod_close(struct pb_kmod_dev *dev);

/* The variant named `name` in info, or -1. */
int pb_kmod_variant_find(const struct pb_kmod_info *info, const char *name);

/* Parses a comma-separated list of variant names ("rep_stosb,movnti")
 * into out (at most PB_KMOD_MAX_VARIANTS, in the list's order, no
 * repeats). Returns the count, or -1 with pb_error(): "unknown variant
 * 'X' (the module has: a, b, ...)", "variant 'X' is not available: WHY"
 * (the module's why), "variant 'X' twice", "empty variant list". */
int pb_kmod_parse_variants(const struct pb_kmod_info *info, const char *list, uint32_t *out);

/* Every available variant of info into out, in the module's order;
 * returns the count. */
size_t pb_kmod_available_variants(const struct pb_kmod_info *info, uint32_t *out);

struct pb_kernel_params {
	const uint32_t *variants; /* [n_variants] PB_KV_* */
	size_t n_variants;
	const uint32_t *orders; /* [n_orders] PB_KMOD_ORDER_* */
	size_t n_orders;
	const uint32_t *states; /* [n_states] PB_KS_* */
	size_t n_states;
	bool irqs_off;
	double budget_s; /* once every case has min_samples (all replicates) */
	size_t min_samples, max_samples, warmup_samples;
	uint64_t seed;
	volatile sig_atomic_t *stop; /* NULL, or set by a signal: stop after the sample */
	double target_ticks;         /* ticks a batch should last; 0: 50 us by tsc_khz */
	int (*cpu_now)(void);        /* NULL: sched_getcpu (tests inject their own) */
};

/* The cases p selects, variant-major (variant, then page size, then
 * state) into r->cases, and PB_KMOD_IOC_CHECK of every variant x page
 * size into r->checks. r->info must hold the module's INFO. ENOMEM on a
 * 2 MiB page: that variant's 2 MiB cases skipped with a note. Returns 0
 * (r->interrupted when a signal ended it), or -1 with pb_error():
 * "variant 'X' failed its correctness check: byte at offset N of a 4 KiB
 * page", "variant 'X' is not available: WHY" (EOPNOTSUPP), or the
 * request's errno. */
int pb_kernel_check(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                    struct pb_kernel_result *r);

/* Times r's cases (after pb_kernel_check) `replicates` times in a row (0
 * counts as 1), each with a fresh calibration and seed
 * (pb_replicate_seed), p's budget and max_samples shared out. One harness
 * sample is one PB_KMOD_IOC_TIME with batches 1 and calls the harness's k
 * (max_k: info.max_calls_bytes >> (12 + page_order)); before the rounds,
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

#endif
