/* kmod_abi.h - the interface between primbench's kernel module
 * (kmod/primbench_kmod.c) and `primbench kernel` (src/cli/cmd_kernel.c):
 * a misc character device, /dev/primbench, answering three ioctls.
 * docs/kernel.md describes what is measured and why a character device
 * rather than debugfs.
 *
 * This header is included by the module (kernel types from <linux/types.h>)
 * and by user space (the same names from <linux/types.h> of the kernel's
 * user API headers, Debian's linux-libc-dev). It holds fixed-size types
 * only, no pointers (a user buffer travels as a __u64), so that the layout
 * is the same for every compiler on x86-64; every struct's size is a
 * multiple of 8 bytes. PB_KMOD_ABI_VERSION counts up whenever a struct or
 * a number here changes: `primbench kernel` refuses a module of another
 * version with one line naming both.
 *
 * Ticks are TSC ticks (reference cycles at the TSC's constant rate, Intel
 * SDM Vol. 3B 18.17 "Time-Stamp Counter"), read by the kernel's
 * rdtsc_ordered() (arch/x86/include/asm/msr.h: LFENCE or RDTSCP before
 * RDTSC as the CPU needs), not core cycles.
 *
 * Errors are the ioctl's -1 with errno:
 *   EINVAL      a field out of its range (variant, page_order, state,
 *               calls, batches, flags, a reserved field not zero)
 *   EOPNOTSUPP  the variant is not available on this CPU or kernel (its
 *               pb_kmod_variant_info.why says why)
 *   ENOMEM      the pages a request needs could not be allocated (a 2 MiB
 *               page needs 512 contiguous free pages)
 *   EFAULT      ticks_ptr does not point to batches writable __u64s
 *   EIO         the variant failed its correctness check. From CHECK:
 *               bad_offset_bytes says where. From TIME (which runs the
 *               check first): the check failed; TIME's struct has no
 *               bad_offset_bytes and is not copied back: run CHECK of the
 *               same variant and page_order for the offset
 *   EINTR       from TIME, a signal arrived between two batches:
 *               batches_done batches were timed and their ticks written;
 *               the struct is copied back. From CHECK or TIME, a signal
 *               arrived while the request waited for another one to end
 *               (the module serves one CHECK or TIME at a time): nothing
 *               ran and nothing is copied back, so the struct keeps what
 *               the caller passed (batches_done is 0 when the caller
 *               zeroed it, as it should)
 *   ETIME       the request ran longer than max_request_ms: the same as
 *               TIME's EINTR between batches otherwise
 *   ENOTTY      an unknown ioctl number
 */
#ifndef PRIMBENCH_KMOD_ABI_H
#define PRIMBENCH_KMOD_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PB_KMOD_ABI_VERSION 1
#define PB_KMOD_DEVICE      "/dev/primbench" /* misc device, mode 0600 */
#define PB_KMOD_NAME        "primbench_kmod" /* the module's name (modprobe, lsmod) */
#define PB_KMOD_IOC_MAGIC   0xB9

/* Variant numbers. A module may offer fewer (n_variants) but never renumbers
 * one; each one's name and availability come from PB_KMOD_IOC_INFO. */
enum pb_kmod_variant {
	PB_KV_KERNEL = 0,  /* clear_page() as this kernel dispatches it (its
	                      alternatives: clear_page_orig, _rep or _erms) */
	PB_KV_KERNEL_ORIG, /* the kernel's clear_page_orig (unrolled movq) */
	PB_KV_KERNEL_REP,  /* the kernel's clear_page_rep (rep stosq) */
	PB_KV_KERNEL_ERMS, /* the kernel's clear_page_erms (rep stosb) */
	PB_KV_REP_STOSB,   /* the module's own from here on */
	PB_KV_REP_STOSQ,
	PB_KV_GPR_UNROLLED, /* 8 x movq per 64-byte line */
	PB_KV_MOVNTI,       /* movnti, then sfence */
	PB_KV_SSE2,         /* movaps, inside kernel_fpu_begin/end */
	PB_KV_SSE2_NT,      /* movntdq + sfence, inside kernel_fpu_begin/end */
	PB_KV_AVX2,         /* vmovdqa ymm, inside kernel_fpu_begin/end */
	PB_KV_AVX2_NT,      /* vmovntdq ymm + sfence, inside kernel_fpu_begin/end */
	PB_KV_AVX512,       /* vmovdqa64 zmm, inside kernel_fpu_begin/end */
	PB_KV_AVX512_NT,    /* vmovntdq zmm + sfence, inside kernel_fpu_begin/end */
	PB_KV_CLZERO,       /* AMD clzero per 64-byte line + sfence (AMD APM Vol. 3) */
	PB_KV_COUNT
};

#define PB_KMOD_MAX_VARIANTS 32

/* pb_kmod_variant_info.flags */
#define PB_KVF_AVAILABLE 0x1u /* this CPU and kernel can run it */
#define PB_KVF_KERNEL    0x2u /* the kernel's own routine, not the module's */
#define PB_KVF_FPU       0x4u /* each call inside kernel_fpu_begin/end */
#define PB_KVF_NT        0x8u /* non-temporal stores (cache bypassing) */

struct pb_kmod_variant_info {
	char name[32]; /* "kernel", "kernel_orig", ..., "rep_stosb", NUL-terminated */
	__u32 flags;   /* PB_KVF_* */
	__u32 reserved;
	char why[64]; /* with PB_KVF_AVAILABLE clear: why ("CPU lacks AVX-512F",
	                 "clear_page_erms not exported by this kernel"); else "" */
};

/* PB_KMOD_IOC_INFO: everything out. */
struct pb_kmod_info {
	__u32 abi_version;     /* PB_KMOD_ABI_VERSION of the module */
	__u32 n_variants;      /* entries of variants[] filled, <= PB_KMOD_MAX_VARIANTS */
	__u32 page_bytes;      /* PAGE_SIZE: 4096 */
	__u32 huge_page_bytes; /* the page of page_order 9: 2097152 */
	__u64 tsc_khz;         /* the kernel's tsc_khz (its own calibration) */
	__u32 max_calls_bytes; /* calls << (12 + page_order) is at most this */
	__u32 max_batches;     /* batches per TIME request, at most */
	__u32 max_request_ms;  /* a TIME request stops (ETIME) after this */
	__u32 reserved;
	char release[72];        /* the running kernel's utsname release */
	char module_version[32]; /* the module's MODULE_VERSION */
	struct pb_kmod_variant_info variants[PB_KMOD_MAX_VARIANTS];
};

/* page_order: 0 (one 4 KiB page) or 9 (one 2 MiB page: the variant is
 * called on its 512 subpages in address order, as the kernel's
 * clear_huge_page() clears a huge page one subpage at a time) */
#define PB_KMOD_ORDER_4K 0u
#define PB_KMOD_ORDER_2M 9u

/* PB_KMOD_IOC_CHECK: in variant, page_order; out bad_offset_bytes. The
 * module fills the page and the 4 KiB before and after it with 0xA5, runs
 * the variant once (inside kernel_fpu_begin/end when PB_KVF_FPU), and
 * checks every byte of the page is 0 and every guard byte still 0xA5
 * (a 2 MiB page: its own bytes, no guards).
 * Returns 0 (bad_offset_bytes -1) or EIO (bad_offset_bytes: the first
 * wrong byte's offset from the page's start; negative: in the guard
 * before it). CHECK always runs the check; a pass is remembered until the
 * module is unloaded, and a TIME of the same variant and page_order then
 * skips its own. */
struct pb_kmod_check {
	__u32 variant;
	__u32 page_order;
	__s64 bad_offset_bytes;
};

/* pb_kmod_time.state
 * PB_KS_HOT: the same 2 pages of page_order every call, alternating, each
 * written once by the variant itself, untimed, before the first batch:
 * mem's "hot". "Hot" means the same two pages every time (their TLB
 * entries warm), which a temporal variant keeps in cache and a
 * non-temporal one (PB_KVF_NT) does not: its untimed pre-write leaves
 * the lines out of the cache and its stores do not bring them in (Intel
 * SDM Vol. 1 10.4.6.2), so an NT variant's "hot" time is the same two
 * pages written to memory again. At 2 MiB the two pages are 4 MiB
 * written in turn, which may exceed L2 (then held by the last level
 * only, or not at all).
 * PB_KS_FLUSHED: `calls` distinct pages, each flushed from every cache
 * level with clflush (clflush_cache_range) before the batch, untimed:
 * mem's "dram". */
#define PB_KS_HOT     0u
#define PB_KS_FLUSHED 1u

/* pb_kmod_time.flags */
#define PB_KT_IRQS_OFF                                                                             \
	0x1u /* interrupts off around each batch too                                               \
	        (local_irq_save); preemption is always off */

/* PB_KMOD_IOC_TIME: times `batches` batches of `calls` calls of one
 * variant. Each batch: preempt_disable() (and local_irq_save with
 * PB_KT_IRQS_OFF), rdtsc_ordered(), the calls, rdtsc_ordered(),
 * preempt_enable(); its ticks go to ticks_ptr[i] (raw: overhead_ticks is
 * not subtracted). Between batches the module checks for a pending signal
 * (EINTR) and the deadline (ETIME), and calls cond_resched(). The variant's
 * correctness check runs first, untimed, unless a CHECK or an earlier TIME
 * of the same variant and page_order passed it since the module was
 * loaded (so at most once per variant and size per module load); when it
 * fails, EIO, nothing timed and nothing copied back (no offset: CHECK
 * gives it). */
struct pb_kmod_time {
	__u32 variant;        /* in */
	__u32 page_order;     /* in: PB_KMOD_ORDER_4K or _2M */
	__u32 state;          /* in: PB_KS_* */
	__u32 calls;          /* in: calls per batch, >= 1, calls << (12 + page_order)
	                         <= max_calls_bytes */
	__u32 batches;        /* in: 1..max_batches */
	__u32 flags;          /* in: PB_KT_* */
	__u64 ticks_ptr;      /* in: user address of batches __u64 */
	__u32 batches_done;   /* out: batches timed and written */
	__u32 cpu;            /* out: the CPU of the last batch */
	__u32 cpu_changed;    /* out: 1 when batches of this request ran on
	                         different CPUs */
	__u32 reserved;       /* in: 0 */
	__u64 overhead_ticks; /* out: the least of 16 empty batches
	                         (rdtsc_ordered twice) in this request */
};

#define PB_KMOD_IOC_INFO  _IOR(PB_KMOD_IOC_MAGIC, 1, struct pb_kmod_info)
#define PB_KMOD_IOC_CHECK _IOWR(PB_KMOD_IOC_MAGIC, 2, struct pb_kmod_check)
#define PB_KMOD_IOC_TIME  _IOWR(PB_KMOD_IOC_MAGIC, 3, struct pb_kmod_time)

#endif
