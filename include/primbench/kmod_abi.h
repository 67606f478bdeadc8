/* kmod_abi.h - the interface between primbench's kernel module
 * (kmod/primbench_kmod.c) and `primbench kernel` (src/cli/cmd_kernel.c):
 * a misc character device, /dev/primbench, answering four ioctls (INFO,
 * CHECK, TIME, CALL). Its variants belong to four ops (PB_KOP_*):
 * clear_page, copy_page, fpu (kernel_fpu_begin/end itself) and user_copy
 * (copy_to_user, copy_from_user, clear_user on a caller's buffer).
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
 *               calls, batches, flags, bytes, a reserved field not zero),
 *               or a variant the request does not serve (TIME of a
 *               PB_KVF_CALL variant, CALL of any other)
 *   EOPNOTSUPP  the variant is not available on this CPU or kernel (its
 *               pb_kmod_variant_info.why says why)
 *   ENOMEM      the pages a request needs could not be allocated (a 2 MiB
 *               page needs 512 contiguous free pages)
 *   EFAULT      ticks_ptr does not point to batches writable __u64s, or
 *               user_ptr (user_copy) not to the buffer the request needs
 *   EIO         the variant failed its correctness check. From CHECK:
 *               bad_offset_bytes says where. From TIME (which runs the
 *               check first): the check failed; TIME's struct has no
 *               bad_offset_bytes and is not copied back: run CHECK of the
 *               same variant and page_order for the offset
 *   EINTR       from TIME, a signal arrived between two batches:
 *               batches_done batches were timed and their ticks written;
 *               the struct is copied back. From CHECK or TIME, a signal
 *               arrived while the request waited for another one to end
 *               (the module serves one CHECK or TIME at a time), or
 *               during a user_copy CHECK's byte loops (the check is not
 *               finished: no verdict): nothing is copied back, so the
 *               struct keeps what the caller passed (batches_done is 0
 *               when the caller zeroed it, as it should)
 *   ETIME       the request ran longer than max_request_ms: the same as
 *               TIME's EINTR between batches otherwise
 *   ENOTTY      an unknown ioctl number
 */
#ifndef PRIMBENCH_KMOD_ABI_H
#define PRIMBENCH_KMOD_ABI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PB_KMOD_ABI_VERSION 2
#define PB_KMOD_DEVICE      "/dev/primbench" /* misc device, mode 0600 */
#define PB_KMOD_NAME        "primbench_kmod" /* the module's name (modprobe, lsmod) */
#define PB_KMOD_IOC_MAGIC   0xB9

/* Ops: what a variant does (pb_kmod_variant_info.op). */
enum pb_kmod_op {
	PB_KOP_CLEAR_PAGE = 0, /* zero one page of page_order */
	PB_KOP_COPY_PAGE,      /* copy one page of page_order to another */
	PB_KOP_FPU,            /* kernel_fpu_begin()/kernel_fpu_end() itself */
	PB_KOP_USER_COPY,      /* copy_to_user/copy_from_user/clear_user of `bytes` */
	PB_KOP_COUNT
};

/* Variant numbers. A module may offer fewer (n_variants) but never renumbers
 * one; each one's name, op and availability come from PB_KMOD_IOC_INFO. */
enum pb_kmod_variant {
	/* PB_KOP_CLEAR_PAGE */
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
	/* PB_KOP_COPY_PAGE: names "kernel", "rep_movsb", "rep_movsq",
	 * "gpr_unrolled", "movnti", "sse2", "sse2_nt", "avx2", "avx2_nt",
	 * "avx512", "avx512_nt" (a name is unique within its op, not across
	 * ops: an op and a name make a variant) */
	PB_KV_COPY_KERNEL,       /* the kernel's copy_page() (its alternatives:
	                            copy_page_regs or rep movsq) */
	PB_KV_COPY_REP_MOVSB,    /* rep movsb */
	PB_KV_COPY_REP_MOVSQ,    /* rep movsq */
	PB_KV_COPY_GPR_UNROLLED, /* 8 x movq load + 8 x movq store per line */
	PB_KV_COPY_MOVNTI,       /* movq loads, movnti stores, then sfence */
	PB_KV_COPY_SSE2,         /* movaps, inside kernel_fpu_begin/end */
	PB_KV_COPY_SSE2_NT,      /* movaps loads, movntdq stores + sfence, inside */
	PB_KV_COPY_AVX2,         /* vmovdqa ymm, inside kernel_fpu_begin/end */
	PB_KV_COPY_AVX2_NT,      /* vmovdqa loads, vmovntdq ymm stores + sfence, inside */
	PB_KV_COPY_AVX512,       /* vmovdqa64 zmm, inside kernel_fpu_begin/end */
	PB_KV_COPY_AVX512_NT,    /* vmovdqa64 loads, vmovntdq zmm + sfence, inside */
	/* PB_KOP_FPU: names "begin_end", "save_restore", "ioctl_null",
	 * "ioctl_fpu" (page_order 0, state PB_KS_HOT only; a "call" is one
	 * begin/end). The upper state the task's registers hold (clean, ymm
	 * or zmm dirty) is whatever the caller left in them before the ioctl:
	 * it is the state kernel_fpu_begin saves. */
	PB_KV_FPU_BEGIN_END,    /* TIME: kernel_fpu_begin(); kernel_fpu_end(); after one
	                           untimed pair, so the task's state is already saved
	                           (TIF_NEED_FPU_LOAD set): the pair's own cost */
	PB_KV_FPU_SAVE_RESTORE, /* TIME: kernel_fpu_begin(); kernel_fpu_end();
	                           switch_fpu_return(); per call: the task's state saved
	                           (xsaves) and restored (xrstors) every call. A lower
	                           bound of what one system call costs its task: each
	                           save follows the restore of the same area with no
	                           register changed, which the modified optimization
	                           (Intel SDM Vol. 1 13.6) may let it skip; the round
	                           trip (ioctl_fpu - ioctl_null) is the real figure */
	PB_KV_IOCTL_NULL,       /* CALL only (PB_KVF_CALL): the ioctl does nothing */
	PB_KV_IOCTL_FPU,        /* CALL only: one kernel_fpu_begin(); kernel_fpu_end();
	                           its save, and the restore on the return to user
	                           space, are paid by the ioctl the caller times */
	/* PB_KOP_USER_COPY: names "copy_to_user", "copy_from_user",
	 * "clear_user" (page_order 0; `bytes` per call; user_ptr) */
	PB_KV_COPY_TO_USER,   /* copy_to_user(user, kernel buffer, bytes) */
	PB_KV_COPY_FROM_USER, /* copy_from_user(kernel buffer, user, bytes) */
	PB_KV_CLEAR_USER,     /* clear_user(user, bytes) */
	PB_KV_COUNT
};

#define PB_KMOD_MAX_VARIANTS 64

/* pb_kmod_variant_info.flags */
#define PB_KVF_AVAILABLE 0x1u  /* this CPU and kernel can run it */
#define PB_KVF_KERNEL    0x2u  /* the kernel's own routine, not the module's */
#define PB_KVF_FPU       0x4u  /* each call inside kernel_fpu_begin/end */
#define PB_KVF_NT        0x8u  /* non-temporal stores (cache bypassing) */
#define PB_KVF_CALL      0x10u /* timed from user space (PB_KMOD_IOC_CALL), not TIME */

struct pb_kmod_variant_info {
	char name[32]; /* "kernel", "kernel_orig", ..., "rep_stosb", NUL-terminated,
	                  unique within its op */
	__u32 flags;   /* PB_KVF_* */
	__u32 op;      /* PB_KOP_* */
	char why[64];  /* with PB_KVF_AVAILABLE clear: why ("CPU lacks AVX-512F",
	                  "clear_page_erms not exported by this kernel"); else "" */
};

/* PB_KMOD_IOC_INFO: everything out. */
struct pb_kmod_info {
	__u32 abi_version;       /* PB_KMOD_ABI_VERSION of the module */
	__u32 n_variants;        /* entries of variants[] filled, <= PB_KMOD_MAX_VARIANTS */
	__u32 page_bytes;        /* PAGE_SIZE: 4096 */
	__u32 huge_page_bytes;   /* the page of page_order 9: 2097152 */
	__u64 tsc_khz;           /* the kernel's tsc_khz (its own calibration) */
	__u32 max_calls_bytes;   /* calls << (12 + page_order) is at most this */
	__u32 max_batches;       /* batches per TIME request, at most */
	__u32 max_request_ms;    /* a TIME request stops (ETIME) after this */
	__u32 n_ops;             /* PB_KOP_COUNT of the module */
	__u64 max_user_bytes;    /* user_copy: calls * bytes is at most this, hot
	                            or flushed: 64 MiB */
	char release[72];        /* the running kernel's utsname release */
	char module_version[32]; /* the module's MODULE_VERSION */
	struct pb_kmod_variant_info variants[PB_KMOD_MAX_VARIANTS];
};

/* page_order: 0 (one 4 KiB page) or 9 (one 2 MiB page: the variant is
 * called on its 512 subpages in address order, as the kernel's
 * clear_huge_page() clears a huge page one subpage at a time) */
#define PB_KMOD_ORDER_4K 0u
#define PB_KMOD_ORDER_2M 9u

/* PB_KMOD_IOC_CHECK: in variant, page_order (user_copy: bytes, user_ptr);
 * out bad_offset_bytes.
 * clear_page: the module fills the page and the 4 KiB before and after it
 * with 0xA5, runs the variant once (inside kernel_fpu_begin/end when
 * PB_KVF_FPU), and checks every byte of the page is 0 and every guard
 * byte still 0xA5 (a 2 MiB page: its own bytes, no guards).
 * copy_page: the source page is filled with a pattern that differs in
 * every byte of a 4 KiB page and from page to page, the destination and
 * its guards with 0xA5; after one call the destination must equal the
 * source, the guards and the source be untouched.
 * fpu: CHECK runs one begin/end (PB_KVF_CALL variants: nothing) and
 * returns 0: there is nothing to compare.
 * user_copy: user_ptr points to `bytes` bytes with PB_KMOD_GUARD_BYTES
 * writable bytes before and after them (the caller's, any alignment). The
 * module writes the guards and the region through put_user (a pattern
 * for copy_from_user, 0xA5 for clear_user and copy_to_user), runs the
 * variant once (copy_to_user from a kernel buffer holding the pattern,
 * copy_from_user into a kernel buffer with guards), and reads back byte
 * by byte with get_user: the user region (copy_to_user: the pattern;
 * clear_user: 0) and its guards (0xA5), or the kernel buffer
 * (copy_from_user) and its guards. bytes: 1..max_user_bytes.
 * Returns 0 (bad_offset_bytes -1) or EIO (bad_offset_bytes: the first
 * wrong byte's offset from the page's start; negative: in the guard
 * before it). CHECK always runs the check; a pass is remembered until the
 * module is unloaded, and a TIME of the same variant and page_order then
 * skips its own. */
#define PB_KMOD_GUARD_BYTES 64u

/* user_copy's kernel buffer: direct-mapped pages (alloc_pages_exact) when
 * a request's span (bytes hot, calls * bytes flushed) is at most this,
 * vmalloc'd above (4 KiB mappings and, with CONFIG_HARDENED_USERCOPY, a
 * lookup per copy); ENOMEM when direct pages are not to be had. A caller
 * that wants one kind per case keeps its span on one side. */
#define PB_KMOD_USER_DIRECT_BYTES (4u << 20)

struct pb_kmod_check {
	__u32 variant;
	__u32 page_order; /* user_copy, fpu: 0 */
	__s64 bad_offset_bytes;
	__u64 user_ptr; /* user_copy: the region's first byte; else 0 */
	__u64 bytes;    /* user_copy: the region's size; else 0 */
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
 * mem's "dram".
 * copy_page: the same with a (source, destination) pair of pages in the
 * place of one page: hot, the same 2 pairs alternating, each copied once
 * untimed before the first batch; flushed, `calls` distinct pairs, both
 * pages flushed.
 * user_copy: hot, the same `bytes` of user_ptr and of the module's
 * kernel buffer every call, one untimed call before the first batch;
 * flushed, `calls` consecutive regions of `bytes` (user_ptr holds calls *
 * bytes), the user buffer's pages pinned (pin_user_pages_fast) and
 * flushed through the kernel's mapping of them, and the kernel buffer's
 * regions flushed, before each batch, untimed. The kernel buffer is the
 * module's, page-aligned; the user buffer's alignment is the caller's.
 * fpu: PB_KS_HOT only. */
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
 * gives it). fpu and user_copy TIMEs run no check of their own (a
 * user_copy check needs the guard bytes a TIME's buffer has not):
 * primbench CHECKs every variant and size before timing it.
 * user_copy: the batch runs with preemption and page faults off
 * (pagefault_disable), where a fault on the user buffer is not served
 * (the copy stops short): the module pins the buffer's pages for writing
 * in both states (so copy_from_user's buffer must be writable too) and
 * touches them before the batch (hot: one untimed call). Pinned pages
 * can still lose their page-table entries for a moment (khugepaged, a
 * migration attempt): a batch that comes short is dropped, its regions
 * touched again untimed and the batch run again, at most 3 times in a
 * row; then EFAULT.
 * fpu with PB_KT_IRQS_OFF: allowed (kernel_fpu_begin is usable with
 * interrupts off outside an interrupt handler, irq_fpu_usable()). */
struct pb_kmod_time {
	__u32 variant;        /* in */
	__u32 page_order;     /* in: PB_KMOD_ORDER_4K or _2M */
	__u32 state;          /* in: PB_KS_* */
	__u32 calls;          /* in: calls per batch, >= 1; clear_page, copy_page:
	                         calls << (12 + page_order) <= max_calls_bytes;
	                         user_copy: calls <= max_calls_bytes >> 12 and
	                         calls * bytes <= max_user_bytes, hot or flushed;
	                         fpu: <= max_calls_bytes >> 12 */
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
	__u64 user_ptr;       /* in: user_copy: the user buffer (bytes hot, calls *
	                         bytes flushed); else 0 */
	__u64 bytes;          /* in: user_copy: bytes per call, 1..max_user_bytes;
	                         else 0 */
};

#define PB_KMOD_IOC_INFO  _IOR(PB_KMOD_IOC_MAGIC, 1, struct pb_kmod_info)
#define PB_KMOD_IOC_CHECK _IOWR(PB_KMOD_IOC_MAGIC, 2, struct pb_kmod_check)
#define PB_KMOD_IOC_TIME  _IOWR(PB_KMOD_IOC_MAGIC, 3, struct pb_kmod_time)
/* PB_KMOD_IOC_CALL: the ioctl's argument is a PB_KVF_CALL variant's
 * number (not a pointer); the module runs it once and returns 0. The
 * caller times the ioctl itself, in a loop, from user space: nothing is
 * copied in or out, no lock is taken, so the null variant is the ioctl
 * path's own cost. EINVAL: not a PB_KVF_CALL variant; EOPNOTSUPP: not
 * available. */
#define PB_KMOD_IOC_CALL _IO(PB_KMOD_IOC_MAGIC, 4)

#endif
