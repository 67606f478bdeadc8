// SPDX-License-Identifier: GPL-2.0
/* primbench_kmod.c - times kernel primitives in kernel context for
 * `primbench kernel`: clear_page, copy_page, kernel_fpu_begin/end itself,
 * and copy_to_user/copy_from_user/clear_user on a caller's buffer.
 *
 * A misc character device, /dev/primbench (mode 0600), answers the four
 * ioctls of include/primbench/kmod_abi.h (ABI v2): INFO (the variants,
 * their ops and the limits), CHECK (one variant's correctness on guarded
 * memory), TIME (batches of calls, each batch between two rdtsc_ordered()
 * with preemption off) and CALL (one run of a variant that user space
 * times itself: the ioctl's own cost, with or without a
 * kernel_fpu_begin/end). docs/kernel.md says what is measured and why.
 *
 * The variants, by op (a variant's name is unique within its op):
 *  - clear_page: the kernel's clear_page() as its alternatives dispatch it
 *    (arch/x86/include/asm/page_64.h) and its three routines
 *    clear_page_orig/_rep/_erms (arch/x86/lib/clear_page_64.S) where the
 *    kernel exports them; the module's own rep stosb/stosq, unrolled
 *    movq, movnti, SSE2/AVX2/AVX-512 (temporal and NT) and AMD's clzero.
 *  - copy_page: the kernel's copy_page() (arch/x86/lib/copy_page_64.S:
 *    copy_page_regs, or rep movsq with X86_FEATURE_REP_GOOD) where it is
 *    exported; the module's own rep movsb/movsq, unrolled movq, movnti and
 *    SSE2/AVX2/AVX-512 with temporal loads and temporal or NT stores.
 *  - fpu: kernel_fpu_begin()/kernel_fpu_end() (arch/x86/kernel/fpu/core.c)
 *    with the task's state already saved (begin_end), with a save and a
 *    restore every call (save_restore: switch_fpu_return(), what the
 *    return to user space runs), and the CALL variants ioctl_null and
 *    ioctl_fpu.
 *  - user_copy: copy_to_user(), copy_from_user() (include/linux/uaccess.h:
 *    the exported _copy_to_user/_copy_from_user, lib/usercopy.c, then
 *    copy_user_generic's alternatives, arch/x86/include/asm/uaccess_64.h)
 *    and clear_user() (6.1: clear_user_original/_rep_good/_erms,
 *    arch/x86/lib/clear_page_64.S).
 * The module's own routines are written in inline asm because the kernel
 * is compiled with -mno-sse -mno-avx (arch/x86/Makefile), so the compiler
 * never emits a vector register: the SIMD ones run inside
 * kernel_fpu_begin()/kernel_fpu_end() once per 4 KiB page, as
 * lib/raid6/avx2.c brackets its asm (the comment atop
 * arch/x86/include/asm/fpu/api.h; newer kernels'
 * Documentation/core-api/floating-point.rst).
 *
 * Nothing a caller passes reaches a WARN or BUG: every field is checked
 * before use, allocations fail with ENOMEM rather than OOM-kill
 * (PB_GFP_PAGES) and are __GFP_NOWARN, and user memory is touched through
 * copy_to_user/put_user/get_user outside the timed region, and inside it
 * (user_copy) only on pinned pages with page faults disabled.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>
#include <linux/vmalloc.h>

#include <asm/cacheflush.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/tsc.h>

#include <primbench/kmod_abi.h>

#define PB_KMOD_VERSION "0.2.0"

/* Limits INFO reports. 16 MiB of pages per batch keeps one batch (with
 * interrupts possibly off) in the milliseconds even under emulation;
 * max_request_ms bounds a whole TIME request between batches. A user_copy
 * batch is bounded the same way: calls * bytes <= PB_MAX_USER_BYTES (64
 * MiB: mem's largest default size, 32 MiB, twice) and, like fpu's, calls
 * <= PB_MAX_CALLS_BYTES >> 12 (4096: a batch of one-byte copies stays
 * short too). */
#define PB_MAX_CALLS_BYTES    (16u << 20)
#define PB_MAX_SMALL_CALLS    (PB_MAX_CALLS_BYTES >> 12)
#define PB_MAX_USER_BYTES     (64ull << 20)
#define PB_MAX_BATCHES        1024u
#define PB_MAX_REQUEST_MS_CAP 60000u
#define PB_OVERHEAD_PAIRS     16
#define PB_GUARD_BYTE         0xA5

/* The pages of CHECK and TIME. Plain GFP_KERNEL in practice never fails an
 * order <= 3 allocation (PAGE_ALLOC_COSTLY_ORDER, "too essential to fail"):
 * under memory pressure it retries and calls the OOM killer, so a large
 * flushed request could kill a process.
 * __GFP_RETRY_MAYFAIL retries reclaim but fails instead of invoking the OOM
 * killer, and the request gets ENOMEM; __GFP_NOWARN keeps that failure out
 * of the kernel log (include/linux/gfp_types.h, "Reclaim modifiers"). */
#define PB_GFP_PAGES (GFP_KERNEL | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

static unsigned int max_request_ms = 5000;
module_param(max_request_ms, uint, 0444);
MODULE_PARM_DESC(max_request_ms, "a TIME request stops with ETIME after this many ms "
                                 "(1..60000, default 5000)");

/* For tests only: the variant number whose check is made to fail, so that
 * a test can see CHECK and TIME report EIO. The check changes one byte of
 * the result after the variant ran and before it is verified, as a routine
 * that missed its last 64-byte line would leave it:
 *  - clear_page: a nonzero byte at PB_CORRUPT_OFFSET (4032) of the page;
 *  - copy_page: the destination's byte at 4032 inverted;
 *  - user_copy: the result's byte at min(4032, bytes - 1) inverted (the
 *    user region for copy_to_user and clear_user, the kernel buffer for
 *    copy_from_user), so CHECK's bad_offset_bytes is that offset;
 *  - fpu: no effect (its CHECK compares nothing).
 * Only the check is affected: TIME's untimed pre-write and its batches are
 * not. -1 (the default): off. */
#define PB_CORRUPT_OFFSET 4032
static int corrupt_variant = -1;
module_param(corrupt_variant, int, 0444);
MODULE_PARM_DESC(corrupt_variant, "for tests only: this variant number's correctness check "
                                  "finds a wrong byte at offset 4032 (or the last byte of a "
                                  "shorter user_copy region; CHECK and TIME give EIO); "
                                  "default -1, off");

/* ---- the module's own clear routines: each clears PAGE_SIZE bytes at a
 * page-aligned p. Stores per 64-byte line; the NT ones end with sfence so
 * their weakly-ordered stores are globally visible before the caller reads
 * the time (Intel SDM Vol. 1 10.4.6.2 "Caching of Temporal vs.
 * Non-Temporal Data"; Vol. 2B SFENCE). */

static __always_inline void pb_rep_stosb(void *p)
{
	unsigned long n = PAGE_SIZE;

	asm volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0UL) : "memory");
}

static __always_inline void pb_rep_stosq(void *p)
{
	unsigned long n = PAGE_SIZE / 8;

	asm volatile("rep stosq" : "+D"(p), "+c"(n) : "a"(0UL) : "memory");
}

/* 8 x movq per 64-byte line, as clear_page_orig does, written anew. */
static __always_inline void pb_gpr_unrolled(void *p)
{
	unsigned long n = PAGE_SIZE / 64;

	asm volatile("xorl %%eax, %%eax\n\t"
	             "1:\n\t"
	             "movq %%rax, 0(%0)\n\t"
	             "movq %%rax, 8(%0)\n\t"
	             "movq %%rax, 16(%0)\n\t"
	             "movq %%rax, 24(%0)\n\t"
	             "movq %%rax, 32(%0)\n\t"
	             "movq %%rax, 40(%0)\n\t"
	             "movq %%rax, 48(%0)\n\t"
	             "movq %%rax, 56(%0)\n\t"
	             "addq $64, %0\n\t"
	             "decq %1\n\t"
	             "jnz 1b"
	             : "+r"(p), "+r"(n)
	             :
	             : "rax", "cc", "memory");
}

static __always_inline void pb_movnti(void *p)
{
	unsigned long n = PAGE_SIZE / 64;

	asm volatile("xorl %%eax, %%eax\n\t"
	             "1:\n\t"
	             "movnti %%rax, 0(%0)\n\t"
	             "movnti %%rax, 8(%0)\n\t"
	             "movnti %%rax, 16(%0)\n\t"
	             "movnti %%rax, 24(%0)\n\t"
	             "movnti %%rax, 32(%0)\n\t"
	             "movnti %%rax, 40(%0)\n\t"
	             "movnti %%rax, 48(%0)\n\t"
	             "movnti %%rax, 56(%0)\n\t"
	             "addq $64, %0\n\t"
	             "decq %1\n\t"
	             "jnz 1b\n\t"
	             "sfence"
	             : "+r"(p), "+r"(n)
	             :
	             : "rax", "cc", "memory");
}

/* The vector routines name their registers in the asm text only: the
 * compiler never allocates vector registers in kernel code (-mno-sse), and
 * kernel_fpu_begin() has saved the task's state (lib/raid6/avx2.c does the
 * same). The caller brackets each call with kernel_fpu_begin/end. */
#define PB_VEC_LOOP(zero, store, tail)                                                             \
	do {                                                                                       \
		unsigned long n_ = PAGE_SIZE / 64;                                                 \
		asm volatile(zero "\n\t"                                                           \
		                  "1:\n\t" store "\n\t"                                            \
		                  "addq $64, %0\n\t"                                               \
		                  "decq %1\n\t"                                                    \
		                  "jnz 1b\n\t" tail                                                \
		             : "+r"(p), "+r"(n_)                                                   \
		             :                                                                     \
		             : "cc", "memory");                                                    \
	} while (0)

static __always_inline void pb_sse2(void *p)
{
	PB_VEC_LOOP("pxor %%xmm0, %%xmm0",
	            "movaps %%xmm0, 0(%0)\n\tmovaps %%xmm0, 16(%0)\n\t"
	            "movaps %%xmm0, 32(%0)\n\tmovaps %%xmm0, 48(%0)",
	            "");
}

static __always_inline void pb_sse2_nt(void *p)
{
	PB_VEC_LOOP("pxor %%xmm0, %%xmm0",
	            "movntdq %%xmm0, 0(%0)\n\tmovntdq %%xmm0, 16(%0)\n\t"
	            "movntdq %%xmm0, 32(%0)\n\tmovntdq %%xmm0, 48(%0)",
	            "sfence");
}

/* vzeroupper at the end: dirty upper halves of the ymm/zmm registers make
 * later SSE code pay a state transition (Intel 64 and IA-32 Architectures
 * Optimization Reference Manual, "Mixing AVX code with SSE code"). */
static __always_inline void pb_avx2(void *p)
{
	PB_VEC_LOOP("vpxor %%ymm0, %%ymm0, %%ymm0",
	            "vmovdqa %%ymm0, 0(%0)\n\tvmovdqa %%ymm0, 32(%0)", "vzeroupper");
}

static __always_inline void pb_avx2_nt(void *p)
{
	PB_VEC_LOOP("vpxor %%ymm0, %%ymm0, %%ymm0",
	            "vmovntdq %%ymm0, 0(%0)\n\tvmovntdq %%ymm0, 32(%0)", "sfence\n\tvzeroupper");
}

static __always_inline void pb_avx512(void *p)
{
	PB_VEC_LOOP("vpxord %%zmm0, %%zmm0, %%zmm0", "vmovdqa64 %%zmm0, 0(%0)", "vzeroupper");
}

static __always_inline void pb_avx512_nt(void *p)
{
	PB_VEC_LOOP("vpxord %%zmm0, %%zmm0, %%zmm0", "vmovntdq %%zmm0, 0(%0)",
	            "sfence\n\tvzeroupper");
}

/* CLZERO zeroes the 64-byte line holding the address in rAX (AMD APM
 * Vol. 3, "CLZERO"); its stores are weakly ordered like non-temporal ones,
 * hence the sfence. Emitted as bytes (0F 01 FC) so an older assembler
 * builds it too. */
static __always_inline void pb_clzero(void *p)
{
	unsigned long n = PAGE_SIZE / 64;

	asm volatile("1:\n\t"
	             ".byte 0x0f, 0x01, 0xfc\n\t"
	             "addq $64, %%rax\n\t"
	             "decq %1\n\t"
	             "jnz 1b\n\t"
	             "sfence"
	             : "+a"(p), "+r"(n)
	             :
	             : "cc", "memory");
}

/* ---- the kernel's own routines (arch/x86/lib/clear_page_64.S). 6.1's
 * clear_page() is an inline alternative_call_2 (arch/x86/include/asm/
 * page_64.h) naming clear_page_orig, clear_page_rep and clear_page_erms, so
 * a module calling it links only where the kernel exports all three: the
 * `kernel` variant needs all three, and its `why` says so when one is
 * missing (the whole sentence, "clear_page() names clear_page_orig/_rep/
 * _erms, which this kernel does not all export", is over why[]'s 63
 * characters). A routine the kernel does not export gets an empty
 * stand-in that is never called: its variant is unavailable. */
#if defined(PB_HAVE_CLEAR_PAGE_ORIG) && defined(PB_HAVE_CLEAR_PAGE_REP) &&                         \
    defined(PB_HAVE_CLEAR_PAGE_ERMS)
#define PB_HAVE_CLEAR_PAGE
static __always_inline void pb_kernel(void *p)
{
	clear_page(p);
}
#define PB_WHY_KERNEL NULL
#else
static __always_inline void pb_kernel(void *p)
{
}
#define PB_WHY_KERNEL "clear_page() names clear_page_orig/_rep/_erms; not all exported"
#endif

#ifdef PB_HAVE_CLEAR_PAGE_ORIG
static __always_inline void pb_kernel_orig(void *p)
{
	clear_page_orig(p);
}
#define PB_WHY_ORIG NULL
#else
static __always_inline void pb_kernel_orig(void *p)
{
}
#define PB_WHY_ORIG "clear_page_orig not exported by this kernel"
#endif

#ifdef PB_HAVE_CLEAR_PAGE_REP
static __always_inline void pb_kernel_rep(void *p)
{
	clear_page_rep(p);
}
#define PB_WHY_REP NULL
#else
static __always_inline void pb_kernel_rep(void *p)
{
}
#define PB_WHY_REP "clear_page_rep not exported by this kernel"
#endif

#ifdef PB_HAVE_CLEAR_PAGE_ERMS
static __always_inline void pb_kernel_erms(void *p)
{
	clear_page_erms(p);
}
#define PB_WHY_ERMS NULL
#else
static __always_inline void pb_kernel_erms(void *p)
{
}
#define PB_WHY_ERMS "clear_page_erms not exported by this kernel"
#endif

/* ---- the module's own copy routines: each copies PAGE_SIZE bytes from a
 * page-aligned src to a page-aligned dst, per 64-byte line: loads first,
 * then stores. Loads are temporal in every variant; the NT ones store
 * with non-temporal hints and end with sfence, as the clear routines do
 * (Intel SDM Vol. 1 10.4.6.2; Vol. 2B MOVNTI, MOVNTDQ, SFENCE). */

static __always_inline void pb_copy_rep_movsb(void *dst, const void *src)
{
	unsigned long n = PAGE_SIZE;

	asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static __always_inline void pb_copy_rep_movsq(void *dst, const void *src)
{
	unsigned long n = PAGE_SIZE / 8;

	asm volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

/* 8 x movq loads, then 8 x movq stores, per 64-byte line (the shape of the
 * kernel's copy_page_regs, written anew); STORE is the store mnemonic. */
#define PB_COPY_GPR_LOOP(store, tail)                                                              \
	do {                                                                                       \
		unsigned long n_ = PAGE_SIZE / 64;                                                 \
		asm volatile(                                                                      \
		    "1:\n\t"                                                                       \
		    "movq 0(%1), %%rax\n\t"                                                        \
		    "movq 8(%1), %%rcx\n\t"                                                        \
		    "movq 16(%1), %%rdx\n\t"                                                       \
		    "movq 24(%1), %%r8\n\t"                                                        \
		    "movq 32(%1), %%r9\n\t"                                                        \
		    "movq 40(%1), %%r10\n\t"                                                       \
		    "movq 48(%1), %%r11\n\t"                                                       \
		    "movq 56(%1), %%r12\n\t" store " %%rax, 0(%0)\n\t" store                       \
		    " %%rcx, 8(%0)\n\t" store " %%rdx, 16(%0)\n\t" store " %%r8, 24(%0)\n\t" store \
		    " %%r9, 32(%0)\n\t" store " %%r10, 40(%0)\n\t" store                           \
		    " %%r11, 48(%0)\n\t" store " %%r12, 56(%0)\n\t"                                \
		    "addq $64, %1\n\t"                                                             \
		    "addq $64, %0\n\t"                                                             \
		    "decq %2\n\t"                                                                  \
		    "jnz 1b\n\t" tail                                                              \
		    : "+r"(dst), "+r"(src), "+r"(n_)                                               \
		    :                                                                              \
		    : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "cc", "memory");       \
	} while (0)

static __always_inline void pb_copy_gpr_unrolled(void *dst, const void *src)
{
	PB_COPY_GPR_LOOP("movq", "");
}

static __always_inline void pb_copy_movnti(void *dst, const void *src)
{
	PB_COPY_GPR_LOOP("movnti", "sfence");
}

/* The vector copies, as PB_VEC_LOOP: registers named in the asm text only,
 * the caller brackets each call with kernel_fpu_begin/end. */
#define PB_VEC_COPY_LOOP(body, tail)                                                               \
	do {                                                                                       \
		unsigned long n_ = PAGE_SIZE / 64;                                                 \
		asm volatile("1:\n\t" body "\n\t"                                                  \
		             "addq $64, %1\n\t"                                                    \
		             "addq $64, %0\n\t"                                                    \
		             "decq %2\n\t"                                                         \
		             "jnz 1b\n\t" tail                                                     \
		             : "+r"(dst), "+r"(src), "+r"(n_)                                      \
		             :                                                                     \
		             : "cc", "memory");                                                    \
	} while (0)

#define PB_SSE2_LOADS                                                                              \
	"movaps 0(%1), %%xmm0\n\tmovaps 16(%1), %%xmm1\n\t"                                        \
	"movaps 32(%1), %%xmm2\n\tmovaps 48(%1), %%xmm3\n\t"

static __always_inline void pb_copy_sse2(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP(PB_SSE2_LOADS "movaps %%xmm0, 0(%0)\n\tmovaps %%xmm1, 16(%0)\n\t"
	                               "movaps %%xmm2, 32(%0)\n\tmovaps %%xmm3, 48(%0)",
	                 "");
}

static __always_inline void pb_copy_sse2_nt(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP(PB_SSE2_LOADS "movntdq %%xmm0, 0(%0)\n\tmovntdq %%xmm1, 16(%0)\n\t"
	                               "movntdq %%xmm2, 32(%0)\n\tmovntdq %%xmm3, 48(%0)",
	                 "sfence");
}

#define PB_AVX2_LOADS "vmovdqa 0(%1), %%ymm0\n\tvmovdqa 32(%1), %%ymm1\n\t"

static __always_inline void pb_copy_avx2(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP(PB_AVX2_LOADS "vmovdqa %%ymm0, 0(%0)\n\tvmovdqa %%ymm1, 32(%0)",
	                 "vzeroupper");
}

static __always_inline void pb_copy_avx2_nt(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP(PB_AVX2_LOADS "vmovntdq %%ymm0, 0(%0)\n\tvmovntdq %%ymm1, 32(%0)",
	                 "sfence\n\tvzeroupper");
}

static __always_inline void pb_copy_avx512(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP("vmovdqa64 0(%1), %%zmm0\n\tvmovdqa64 %%zmm0, 0(%0)", "vzeroupper");
}

static __always_inline void pb_copy_avx512_nt(void *dst, const void *src)
{
	PB_VEC_COPY_LOOP("vmovdqa64 0(%1), %%zmm0\n\tvmovntdq %%zmm0, 0(%0)",
	                 "sfence\n\tvzeroupper");
}

/* The kernel's copy_page(to, from) (arch/x86/lib/copy_page_64.S, an
 * ALTERNATIVE between copy_page_regs and rep movsq), exported on 6.1
 * (EXPORT_SYMBOL); Kbuild defines PB_HAVE_COPY_PAGE when Module.symvers
 * lists it. */
#ifdef PB_HAVE_COPY_PAGE
static __always_inline void pb_copy_kernel(void *dst, const void *src)
{
	copy_page(dst, (void *)src);
}
#define PB_WHY_COPY_KERNEL NULL
#else
static __always_inline void pb_copy_kernel(void *dst, const void *src)
{
}
#define PB_WHY_COPY_KERNEL "copy_page not exported by this kernel"
#endif

/* switch_fpu_return() (arch/x86/kernel/fpu/core.c: fpregs_restore_userregs,
 * arch/x86/kernel/fpu/context.h) is EXPORT_SYMBOL_GPL on 6.1; Kbuild
 * defines PB_HAVE_SWITCH_FPU_RETURN when Module.symvers lists it. */
#ifdef PB_HAVE_SWITCH_FPU_RETURN
#define PB_WHY_SAVE_RESTORE NULL
#else
#define PB_WHY_SAVE_RESTORE "switch_fpu_return not exported by this kernel"
#endif

/* ---- the table: one row per variant, in kmod_abi.h's numbering:
 * X(number, kind, name, routine, PB_KVF_* flags, CPU requirement, why not
 * built). The kind says the op and how a batch runs: CLEAR (clear_page),
 * COPY (copy_page), FPU (fpu, TIME), CALL (fpu, PB_KMOD_IOC_CALL only),
 * USER (user_copy). The requirement is one of the PB_NEEDS_* below or
 * PB_NEEDS_NONE: rep stos/movs and movq run on every x86-64 (ERMS only
 * makes rep stosb/movsb fast), the kernel's routines are what the kernel
 * itself runs, kernel_fpu_begin() and the user copies are there on every
 * x86-64 kernel. The fpu variants that call kernel_fpu_begin() carry
 * PB_KVF_FPU. */
#define PB_VARIANTS(X)                                                                             \
	X(PB_KV_KERNEL, CLEAR, "kernel", pb_kernel, PB_KVF_KERNEL, NONE, PB_WHY_KERNEL)            \
	X(PB_KV_KERNEL_ORIG, CLEAR, "kernel_orig", pb_kernel_orig, PB_KVF_KERNEL, NONE,            \
	  PB_WHY_ORIG)                                                                             \
	X(PB_KV_KERNEL_REP, CLEAR, "kernel_rep", pb_kernel_rep, PB_KVF_KERNEL, NONE, PB_WHY_REP)   \
	X(PB_KV_KERNEL_ERMS, CLEAR, "kernel_erms", pb_kernel_erms, PB_KVF_KERNEL, NONE,            \
	  PB_WHY_ERMS)                                                                             \
	X(PB_KV_REP_STOSB, CLEAR, "rep_stosb", pb_rep_stosb, 0, NONE, NULL)                        \
	X(PB_KV_REP_STOSQ, CLEAR, "rep_stosq", pb_rep_stosq, 0, NONE, NULL)                        \
	X(PB_KV_GPR_UNROLLED, CLEAR, "gpr_unrolled", pb_gpr_unrolled, 0, NONE, NULL)               \
	X(PB_KV_MOVNTI, CLEAR, "movnti", pb_movnti, PB_KVF_NT, SSE2, NULL)                         \
	X(PB_KV_SSE2, CLEAR, "sse2", pb_sse2, PB_KVF_FPU, SSE2, NULL)                              \
	X(PB_KV_SSE2_NT, CLEAR, "sse2_nt", pb_sse2_nt, PB_KVF_FPU | PB_KVF_NT, SSE2, NULL)         \
	X(PB_KV_AVX2, CLEAR, "avx2", pb_avx2, PB_KVF_FPU, AVX2, NULL)                              \
	X(PB_KV_AVX2_NT, CLEAR, "avx2_nt", pb_avx2_nt, PB_KVF_FPU | PB_KVF_NT, AVX2, NULL)         \
	X(PB_KV_AVX512, CLEAR, "avx512", pb_avx512, PB_KVF_FPU, AVX512F, NULL)                     \
	X(PB_KV_AVX512_NT, CLEAR, "avx512_nt", pb_avx512_nt, PB_KVF_FPU | PB_KVF_NT, AVX512F,      \
	  NULL)                                                                                    \
	X(PB_KV_CLZERO, CLEAR, "clzero", pb_clzero, PB_KVF_NT, CLZERO, NULL)                       \
	X(PB_KV_COPY_KERNEL, COPY, "kernel", pb_copy_kernel, PB_KVF_KERNEL, NONE,                  \
	  PB_WHY_COPY_KERNEL)                                                                      \
	X(PB_KV_COPY_REP_MOVSB, COPY, "rep_movsb", pb_copy_rep_movsb, 0, NONE, NULL)               \
	X(PB_KV_COPY_REP_MOVSQ, COPY, "rep_movsq", pb_copy_rep_movsq, 0, NONE, NULL)               \
	X(PB_KV_COPY_GPR_UNROLLED, COPY, "gpr_unrolled", pb_copy_gpr_unrolled, 0, NONE, NULL)      \
	X(PB_KV_COPY_MOVNTI, COPY, "movnti", pb_copy_movnti, PB_KVF_NT, SSE2, NULL)                \
	X(PB_KV_COPY_SSE2, COPY, "sse2", pb_copy_sse2, PB_KVF_FPU, SSE2, NULL)                     \
	X(PB_KV_COPY_SSE2_NT, COPY, "sse2_nt", pb_copy_sse2_nt, PB_KVF_FPU | PB_KVF_NT, SSE2,      \
	  NULL)                                                                                    \
	X(PB_KV_COPY_AVX2, COPY, "avx2", pb_copy_avx2, PB_KVF_FPU, AVX2, NULL)                     \
	X(PB_KV_COPY_AVX2_NT, COPY, "avx2_nt", pb_copy_avx2_nt, PB_KVF_FPU | PB_KVF_NT, AVX2,      \
	  NULL)                                                                                    \
	X(PB_KV_COPY_AVX512, COPY, "avx512", pb_copy_avx512, PB_KVF_FPU, AVX512F, NULL)            \
	X(PB_KV_COPY_AVX512_NT, COPY, "avx512_nt", pb_copy_avx512_nt, PB_KVF_FPU | PB_KVF_NT,      \
	  AVX512F, NULL)                                                                           \
	X(PB_KV_FPU_BEGIN_END, FPU, "begin_end", fpu_begin_end, PB_KVF_FPU, NONE, NULL)            \
	X(PB_KV_FPU_SAVE_RESTORE, FPU, "save_restore", fpu_save_restore, PB_KVF_FPU, NONE,         \
	  PB_WHY_SAVE_RESTORE)                                                                     \
	X(PB_KV_IOCTL_NULL, CALL, "ioctl_null", none, PB_KVF_CALL, NONE, NULL)                     \
	X(PB_KV_IOCTL_FPU, CALL, "ioctl_fpu", none, PB_KVF_CALL | PB_KVF_FPU, NONE, NULL)          \
	X(PB_KV_COPY_TO_USER, USER, "copy_to_user", user_copy_to, 0, NONE, NULL)                   \
	X(PB_KV_COPY_FROM_USER, USER, "copy_from_user", user_copy_from, 0, NONE, NULL)             \
	X(PB_KV_CLEAR_USER, USER, "clear_user", user_clear, 0, NONE, NULL)

#define PB_OP_CLEAR PB_KOP_CLEAR_PAGE
#define PB_OP_COPY  PB_KOP_COPY_PAGE
#define PB_OP_FPU   PB_KOP_FPU
#define PB_OP_CALL  PB_KOP_FPU
#define PB_OP_USER  PB_KOP_USER_COPY

/* The CPU requirements, read at module init with boot_cpu_has()
 * (arch/x86/include/asm/cpufeatures.h): two feature bits (-1: none) and
 * the `why` when one is missing. The kernel clears AVX, AVX2 and AVX-512F
 * itself when XSAVE does not enable their register state
 * (arch/x86/kernel/cpu/cpuid-deps.c), so these bits also say the kernel
 * saves those registers. */
struct pb_needs {
	int feature_a, feature_b;
	const char *lacks;
};
#define PB_NEEDS_NONE                                                                              \
	{                                                                                          \
		-1, -1, NULL                                                                       \
	}
#define PB_NEEDS_SSE2                                                                              \
	{                                                                                          \
		X86_FEATURE_XMM2, -1, "CPU lacks SSE2"                                             \
	}
#define PB_NEEDS_AVX2                                                                              \
	{                                                                                          \
		X86_FEATURE_AVX, X86_FEATURE_AVX2, "CPU lacks AVX2"                                \
	}
#define PB_NEEDS_AVX512F                                                                           \
	{                                                                                          \
		X86_FEATURE_AVX512F, -1, "CPU lacks AVX-512F"                                      \
	}
#define PB_NEEDS_CLZERO                                                                            \
	{                                                                                          \
		X86_FEATURE_CLZERO, -1, "CPU lacks CLZERO (an AMD instruction)"                    \
	}

/* What one timed batch works on (pb_run_* below).
 * clear_page: pages[i & mask] is call i's page; copy_page: pages[2k] and
 * pages[2k + 1], k = i & mask, are call i's source and destination (mask
 * 1: two pages or pairs alternating, hot; mask ~0: calls distinct ones,
 * flushed); each call works on `subpages` 4 KiB subpages in address order
 * (512 for a 2 MiB page, as clear_huge_page() and copy_user_huge_page() in
 * mm/memory.c go one subpage at a time).
 * user_copy: call i copies `bytes` between ubuf + i * stride and kbuf + i
 * * stride (stride 0 hot, bytes flushed) with `variant`'s op; short_bytes
 * (out) is nonzero when a call left bytes uncopied. */
struct pb_batch {
	void *const *pages;
	u32 mask;
	u32 calls;
	u32 subpages;
	u8 *kbuf;
	u8 __user *ubuf;
	size_t bytes;
	size_t stride;
	unsigned long short_bytes;
	unsigned int variant;
};

/* pb_run_<routine>(batch): the batch's calls, returning the TSC ticks they
 * took between two rdtsc_ordered() (arch/x86/include/asm/msr.h: LFENCE or
 * RDTSCP orders RDTSC against the instructions around it; Intel SDM Vol.
 * 3B 18.17 "Time-Stamp Counter"). One such function per variant keeps the
 * routine a direct, inlined call inside the timed loop, and the one
 * indirect call (through pb_variant.run) outside it: with
 * CONFIG_RETPOLINE an indirect call costs a retpoline. With PB_KVF_FPU
 * each 4 KiB subpage is bracketed by kernel_fpu_begin/end, as a kernel
 * user of the FPU would.
 * Only the first kernel_fpu_begin() after a return to user space saves
 * the task's user FPU registers (XSAVES); the later ones find them saved
 * (TIF_NEED_FPU_LOAD, arch/x86/kernel/fpu/core.c) and cost little. The
 * untimed pre-write before the first batch (pb_time_prepare_pages) is
 * that first one, and nothing in the request loads the registers again
 * (a reschedule between batches leaves TIF_NEED_FPU_LOAD set), so no timed
 * call holds the save: a SIMD figure is the routine and its begin/end
 * pair (the fpu op's round trip times the save and the restore). */
#define PB_FPU_BEGIN(flags)                                                                        \
	do {                                                                                       \
		if ((flags)&PB_KVF_FPU)                                                            \
			kernel_fpu_begin();                                                        \
	} while (0)
#define PB_FPU_END(flags)                                                                          \
	do {                                                                                       \
		if ((flags)&PB_KVF_FPU)                                                            \
			kernel_fpu_end();                                                          \
	} while (0)

#define PB_GEN_CLEAR(fn, flags)                                                                    \
	static noinline u64 pb_run_##fn(struct pb_batch *b)                                        \
	{                                                                                          \
		void *const *pages = b->pages;                                                     \
		const u32 mask = b->mask, calls = b->calls, subpages = b->subpages;                \
		u64 t0, t1;                                                                        \
		u32 i, j;                                                                          \
		t0 = rdtsc_ordered();                                                              \
		for (i = 0; i < calls; i++) {                                                      \
			u8 *page = pages[i & mask];                                                \
			for (j = 0; j < subpages; j++) {                                           \
				PB_FPU_BEGIN(flags);                                               \
				fn(page + (size_t)j * PAGE_SIZE);                                  \
				PB_FPU_END(flags);                                                 \
			}                                                                          \
		}                                                                                  \
		t1 = rdtsc_ordered();                                                              \
		return t1 - t0;                                                                    \
	}

#define PB_GEN_COPY(fn, flags)                                                                     \
	static noinline u64 pb_run_##fn(struct pb_batch *b)                                        \
	{                                                                                          \
		void *const *pages = b->pages;                                                     \
		const u32 mask = b->mask, calls = b->calls, subpages = b->subpages;                \
		u64 t0, t1;                                                                        \
		u32 i, j;                                                                          \
		t0 = rdtsc_ordered();                                                              \
		for (i = 0; i < calls; i++) {                                                      \
			size_t k = i & mask;                                                       \
			const u8 *src = pages[2 * k];                                              \
			u8 *dst = pages[2 * k + 1];                                                \
			for (j = 0; j < subpages; j++) {                                           \
				PB_FPU_BEGIN(flags);                                               \
				fn(dst + (size_t)j * PAGE_SIZE, src + (size_t)j * PAGE_SIZE);      \
				PB_FPU_END(flags);                                                 \
			}                                                                          \
		}                                                                                  \
		t1 = rdtsc_ordered();                                                              \
		return t1 - t0;                                                                    \
	}

/* FPU, CALL and USER rows have their run functions written out below. */
#define PB_GEN_FPU(fn, flags)
#define PB_GEN_CALL(fn, flags)
#define PB_GEN_USER(fn, flags)
#define PB_GEN(num, kind, name, fn, flags, needs, why) PB_GEN_##kind(fn, flags)
PB_VARIANTS(PB_GEN)

/* fpu begin_end: kernel_fpu_begin(); kernel_fpu_end(); per call, after one
 * untimed pair: that first kernel_fpu_begin() saves the task's registers
 * (XSAVE: os_xsave() in save_fpregs_to_fpstate(), arch/x86/kernel/fpu/
 * core.c) and sets TIF_NEED_FPU_LOAD, so the timed pairs find the state
 * saved and cost the pair itself: preempt_disable, the in_kernel_fpu flag,
 * the MXCSR load (ldmxcsr), preempt_enable. The registers stay the kernel's
 * until the return to user space restores them. */
static noinline u64 pb_run_fpu_begin_end(struct pb_batch *b)
{
	const u32 calls = b->calls;
	u64 t0, t1;
	u32 i;

	kernel_fpu_begin();
	kernel_fpu_end();
	t0 = rdtsc_ordered();
	for (i = 0; i < calls; i++) {
		kernel_fpu_begin();
		kernel_fpu_end();
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
}

#ifdef PB_HAVE_SWITCH_FPU_RETURN
/* The task's registers back in place: switch_fpu_return() restores them
 * from its fpstate (XRSTOR(S), restore_fpregs_from_fpstate()) unless they
 * are still valid on this CPU, marks them this CPU's again and clears
 * TIF_NEED_FPU_LOAD (fpregs_restore_userregs(), arch/x86/kernel/fpu/
 * context.h on 6.1). Its callers run it with interrupts off (the return to
 * user space, exit_to_user_mode_prepare() in kernel/entry/common.c; KVM)
 * or inside fpregs_lock(): a softirq's kernel_fpu_begin() between the
 * restore and the flag's clearing would not save the registers it then
 * clobbers. So interrupts go off around it here too, as at the return to
 * user space; preemption is off already (every batch runs so). */
static __always_inline void pb_fpu_restore_user(void)
{
	unsigned long irqflags;

	local_irq_save(irqflags);
	switch_fpu_return();
	local_irq_restore(irqflags);
}
#endif

/* fpu save_restore: per call kernel_fpu_begin(); kernel_fpu_end(); and the
 * restore: the task's state saved and restored every call, as one system
 * call that uses the FPU costs its task (the save in the call, the restore
 * on its way back to user space). Before the timed calls the task's state
 * is put back in its registers, untimed (a cond_resched() between batches
 * may have switched away and left TIF_NEED_FPU_LOAD set), so the first
 * call saves too. After the batch the registers hold the task's state and
 * TIF_NEED_FPU_LOAD is clear, as after any return to user space: the
 * ioctl leaves the FPU as consistent as it found it. Unavailable (never
 * run) without switch_fpu_return. */
static noinline u64 pb_run_fpu_save_restore(struct pb_batch *b)
{
#ifdef PB_HAVE_SWITCH_FPU_RETURN
	const u32 calls = b->calls;
	u64 t0, t1;
	u32 i;

	if (test_thread_flag(TIF_NEED_FPU_LOAD))
		pb_fpu_restore_user();
	t0 = rdtsc_ordered();
	for (i = 0; i < calls; i++) {
		kernel_fpu_begin();
		kernel_fpu_end();
		pb_fpu_restore_user();
	}
	t1 = rdtsc_ordered();
	return t1 - t0;
#else
	return 0;
#endif
}

/* user_copy: the three exported entry points as a driver calls them
 * (include/linux/uaccess.h, arch/x86/include/asm/uaccess_64.h): each
 * returns the bytes it could not copy or clear (0: all). */
static __always_inline unsigned long pb_user_op(unsigned int v, u8 *k, u8 __user *u, size_t n)
{
	switch (v) {
	case PB_KV_COPY_TO_USER:
		return copy_to_user(u, k, n);
	case PB_KV_COPY_FROM_USER:
		return copy_from_user(k, u, n);
	default:
		return clear_user(u, n);
	}
}

/* The timed user copies: page faults disabled (pagefault_disable(),
 * include/linux/uaccess.h: the documented way to touch user memory in
 * atomic context; the batch runs with preemption off, where a fault could
 * not sleep to be served). The user pages are pinned and touched first, so
 * none faults; a call that still comes short sets short_bytes and the
 * request ends with EFAULT. */
#define PB_GEN_USER_RUN(fn, v)                                                                     \
	static noinline u64 pb_run_##fn(struct pb_batch *b)                                        \
	{                                                                                          \
		u8 *k = b->kbuf;                                                                   \
		u8 __user *u = b->ubuf;                                                            \
		const size_t n = b->bytes, stride = b->stride;                                     \
		const u32 calls = b->calls;                                                        \
		unsigned long left = 0;                                                            \
		u64 t0, t1;                                                                        \
		u32 i;                                                                             \
		pagefault_disable();                                                               \
		t0 = rdtsc_ordered();                                                              \
		for (i = 0; i < calls; i++) {                                                      \
			left |= pb_user_op(v, k, u, n);                                            \
			k += stride;                                                               \
			u += stride;                                                               \
		}                                                                                  \
		t1 = rdtsc_ordered();                                                              \
		pagefault_enable();                                                                \
		b->short_bytes = left;                                                             \
		return t1 - t0;                                                                    \
	}
PB_GEN_USER_RUN(user_copy_to, PB_KV_COPY_TO_USER)
PB_GEN_USER_RUN(user_copy_from, PB_KV_COPY_FROM_USER)
PB_GEN_USER_RUN(user_clear, PB_KV_CLEAR_USER)

typedef u64 (*pb_run_fn)(struct pb_batch *b);

struct pb_variant {
	const char *name;
	u32 op;        /* PB_KOP_* */
	pb_run_fn run; /* NULL: a CALL variant */
	u32 flags;     /* PB_KVF_*, PB_KVF_AVAILABLE set at module init */
	struct pb_needs needs;
	const char *why; /* with PB_KVF_AVAILABLE clear: why; else NULL */
	bool checked[2]; /* clear_page, copy_page: passed its check at 4 KiB [0]
	                    / 2 MiB [1] since the module loaded, by CHECK or by a
	                    TIME's own check (pb_check_cached): under pb_lock */
};

#define PB_RUNPTR_CLEAR(fn) pb_run_##fn
#define PB_RUNPTR_COPY(fn)  pb_run_##fn
#define PB_RUNPTR_FPU(fn)   pb_run_##fn
#define PB_RUNPTR_USER(fn)  pb_run_##fn
#define PB_RUNPTR_CALL(fn)  NULL
#define PB_ROW(num, kind, nm, fn, fl, nd, wh)                                                      \
	[num] = {.name = nm,                                                                       \
	         .op = PB_OP_##kind,                                                               \
	         .run = PB_RUNPTR_##kind(fn),                                                      \
	         .flags = fl,                                                                      \
	         .needs = PB_NEEDS_##nd,                                                           \
	         .why = wh},
static struct pb_variant pb_variants[PB_KV_COUNT] = {PB_VARIANTS(PB_ROW)};

#define PB_COUNT_ROW(...) +1
static_assert(0 PB_VARIANTS(PB_COUNT_ROW) == PB_KV_COUNT, "one row per enum pb_kmod_variant");
static_assert(PB_KV_COUNT <= PB_KMOD_MAX_VARIANTS, "INFO holds every variant");

static DEFINE_MUTEX(pb_lock);

static bool pb_cpu_has(int feature)
{
	return feature < 0 || boot_cpu_has(feature);
}

/* PB_KVF_AVAILABLE for each variant built in whose CPU requirement holds. */
static void pb_decide_availability(void)
{
	unsigned int v;

	for (v = 0; v < PB_KV_COUNT; v++) {
		struct pb_variant *pv = &pb_variants[v];

		if (!pv->why &&
		    !(pb_cpu_has(pv->needs.feature_a) && pb_cpu_has(pv->needs.feature_b)))
			pv->why = pv->needs.lacks;
		if (!pv->why)
			pv->flags |= PB_KVF_AVAILABLE;
	}
}

static unsigned int pb_request_ms(void)
{
	return clamp(max_request_ms, 1u, PB_MAX_REQUEST_MS_CAP);
}

static bool pb_is_pages(u32 op)
{
	return op == PB_KOP_CLEAR_PAGE || op == PB_KOP_COPY_PAGE;
}

/* ---- INFO */

static long pb_ioctl_info(void __user *arg)
{
	struct pb_kmod_info *info;
	unsigned int v;
	long ret = 0;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	info->abi_version = PB_KMOD_ABI_VERSION;
	info->n_variants = PB_KV_COUNT;
	info->page_bytes = PAGE_SIZE;
	info->huge_page_bytes = PAGE_SIZE << PB_KMOD_ORDER_2M;
	info->tsc_khz = tsc_khz;
	info->max_calls_bytes = PB_MAX_CALLS_BYTES;
	info->max_batches = PB_MAX_BATCHES;
	info->max_request_ms = pb_request_ms();
	info->n_ops = PB_KOP_COUNT;
	info->max_user_bytes = PB_MAX_USER_BYTES;
	strscpy(info->release, utsname()->release, sizeof(info->release));
	strscpy(info->module_version, PB_KMOD_VERSION, sizeof(info->module_version));
	for (v = 0; v < PB_KV_COUNT; v++) {
		struct pb_kmod_variant_info *vi = &info->variants[v];

		strscpy(vi->name, pb_variants[v].name, sizeof(vi->name));
		vi->flags = pb_variants[v].flags;
		vi->op = pb_variants[v].op;
		if (pb_variants[v].why)
			strscpy(vi->why, pb_variants[v].why, sizeof(vi->why));
	}
	if (copy_to_user(arg, info, sizeof(*info)))
		ret = -EFAULT;
	kfree(info);
	return ret;
}

/* ---- CHECK */

/* The copy checks' pattern: byte `off` of a region is a hash of the whole
 * offset (MurmurHash3's 32-bit finalizer), so that a byte copied from the
 * wrong place, within a 4 KiB page or from another page, is caught (but
 * for a 1-in-256 coincidence); never PB_GUARD_BYTE, the destination's
 * byte before the copy, so a byte left unwritten is always caught. */
static u8 pb_pattern(u64 off)
{
	u32 x = (u32)off + 0x9e3779b9u + (u32)(off >> 32);

	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	x ^= x >> 16;
	return (u8)x == PB_GUARD_BYTE ? 0x5A : (u8)x;
}

/* The offset of the first byte of p[0..n) that differs from the pattern
 * of (base + its offset), or -1. */
static s64 pb_pattern_mismatch(const u8 *p, size_t n, u64 base)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != pb_pattern(base + i))
			return (s64)i;
	return -1;
}

/* clear_page: runs variant v once on a page of the given order and checks
 * it (the method kmod_abi.h gives for PB_KMOD_IOC_CHECK). Returns 0 with
 * *bad_offset_bytes = -1, -EIO with the first wrong byte's offset from the
 * page's start (negative: in the guard before it), or -ENOMEM. Caller
 * holds pb_lock. A 4 KiB page sits in the middle of an order-2 block, the
 * 4 KiB on each side being its guards; a 2 MiB page has no guards. */
static int pb_check_clear(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	const struct pb_variant *pv = &pb_variants[v];
	unsigned int alloc_order = order == 0 ? 2 : order;
	size_t page_bytes = PAGE_SIZE << order;
	size_t guard_bytes = order == 0 ? PAGE_SIZE : 0;
	struct pb_batch b = {.mask = 0, .calls = 1, .subpages = 1u << order};
	struct page *block;
	u8 *base, *page;
	void *bad;
	int ret = 0;

	block = alloc_pages(PB_GFP_PAGES, alloc_order);
	if (!block)
		return -ENOMEM;
	base = page_address(block);
	page = base + guard_bytes;
	memset(base, PB_GUARD_BYTE, page_bytes + 2 * guard_bytes);
	b.pages = (void *const *)&page;
	pv->run(&b);
	if ((int)v == corrupt_variant)
		page[PB_CORRUPT_OFFSET] = 0x01; /* the test-only failure, above */

	bad = memchr_inv(base, PB_GUARD_BYTE, guard_bytes);
	if (!bad)
		bad = memchr_inv(page, 0, page_bytes);
	if (!bad)
		bad = memchr_inv(page + page_bytes, PB_GUARD_BYTE, guard_bytes);
	if (bad) {
		*bad_offset_bytes = (s64)((u8 *)bad - page);
		ret = -EIO;
	}
	__free_pages(block, alloc_order);
	return ret;
}

/* copy_page: the source page (its own allocation) holds pb_pattern of each
 * byte's offset in it, the destination sits between two 4 KiB guards as
 * clear_page's does (2 MiB: none), all 0xA5; after one call, the guards,
 * the destination (equal to the pattern) and then the source (unchanged)
 * are checked in that order. bad_offset_bytes: the first wrong byte's
 * offset from the destination's start (negative: in the guard before it;
 * page_bytes and more: in the guard after it), or, when only the source
 * changed, that byte's offset from the source's start. */
static int pb_check_copy(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	const struct pb_variant *pv = &pb_variants[v];
	unsigned int alloc_order = order == 0 ? 2 : order;
	size_t page_bytes = PAGE_SIZE << order;
	size_t guard_bytes = order == 0 ? PAGE_SIZE : 0;
	struct pb_batch b = {.mask = 0, .calls = 1, .subpages = 1u << order};
	struct page *sblock, *dblock;
	u8 *src, *base, *dst;
	void *pair[2];
	void *bad;
	s64 off;
	size_t i;
	int ret = 0;

	sblock = alloc_pages(PB_GFP_PAGES, order);
	if (!sblock)
		return -ENOMEM;
	dblock = alloc_pages(PB_GFP_PAGES, alloc_order);
	if (!dblock) {
		__free_pages(sblock, order);
		return -ENOMEM;
	}
	src = page_address(sblock);
	base = page_address(dblock);
	dst = base + guard_bytes;
	for (i = 0; i < page_bytes; i++)
		src[i] = pb_pattern(i);
	memset(base, PB_GUARD_BYTE, page_bytes + 2 * guard_bytes);
	pair[0] = src;
	pair[1] = dst;
	b.pages = pair;
	pv->run(&b);
	if ((int)v == corrupt_variant)
		dst[PB_CORRUPT_OFFSET] ^= 0xFF; /* the test-only failure, above */

	bad = memchr_inv(base, PB_GUARD_BYTE, guard_bytes);
	if (bad) {
		off = (s64)((u8 *)bad - dst);
	} else {
		off = pb_pattern_mismatch(dst, page_bytes, 0);
		if (off < 0) {
			bad = memchr_inv(dst + page_bytes, PB_GUARD_BYTE, guard_bytes);
			if (bad)
				off = (s64)((u8 *)bad - dst);
		}
		if (off < 0 && !bad)
			off = pb_pattern_mismatch(src, page_bytes, 0);
	}
	if (bad || off >= 0) {
		*bad_offset_bytes = off;
		ret = -EIO;
	}
	__free_pages(dblock, alloc_order);
	__free_pages(sblock, order);
	return ret;
}

/* The check of a clear_page or copy_page variant; *bad_offset_bytes -1
 * unless EIO. */
static int pb_check_pages(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	*bad_offset_bytes = -1;
	if (pb_variants[v].op == PB_KOP_COPY_PAGE)
		return pb_check_copy(v, order, bad_offset_bytes);
	return pb_check_clear(v, order, bad_offset_bytes);
}

/* TIME's check: pb_check_pages, unless this variant already passed at
 * this order since the module was loaded (by a CHECK request or an
 * earlier TIME). A pass is remembered in checked[], a failure is not. So
 * TIME runs the check of a variant and size at most once per module load
 * (the first TIME, when no CHECK passed it before); a CHECK request always
 * runs it; a failing one is checked again, and fails with EIO, on every
 * request. */
static int pb_check_cached(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	bool *done = &pb_variants[v].checked[order != 0];
	int ret;

	*bad_offset_bytes = -1;
	if (*done)
		return 0;
	ret = pb_check_pages(v, order, bad_offset_bytes);
	if (ret == 0)
		*done = true;
	return ret;
}

/* Between two steps of a long byte loop over user memory (a CHECK of up
 * to 64 MiB): a signal ends it (EINTR, nothing copied back), and the
 * scheduler gets its turn. */
static int pb_user_loop_step(size_t i)
{
	if ((i & 0xffff) != 0xffff)
		return 0;
	if (signal_pending(current))
		return -EINTR;
	cond_resched();
	return 0;
}

/* user_copy CHECK (kmod_abi.h, PB_KMOD_IOC_CHECK): the caller's region u
 * of n bytes with PB_KMOD_GUARD_BYTES before and after it, written and
 * read back byte by byte with put_user/get_user; the kernel buffer holds
 * the pattern (copy_to_user) or receives the copy between its own guards
 * (copy_from_user). Returns 0, -EIO (bad_offset_bytes: from the region's
 * start, negative in the guard before it, n and more in the guard after
 * it), -EFAULT (the user memory is not all there and writable, or a call
 * came short), -ENOMEM, or -EINTR (a fatal signal). Caller holds pb_lock;
 * user_ptr was range-checked (pb_user_ok). */
static int pb_check_user(unsigned int v, u64 user_ptr, u64 bytes, s64 *bad_offset_bytes)
{
	const size_t g = PB_KMOD_GUARD_BYTES, n = bytes, total = n + 2 * g;
	u8 __user *lo = u64_to_user_ptr(user_ptr - g);
	u8 __user *u = lo + g;
	bool from = v == PB_KV_COPY_FROM_USER;
	size_t i, off;
	u8 *kbuf;
	int ret = 0;

	*bad_offset_bytes = -1;
	kbuf = kvmalloc(total, PB_GFP_PAGES);
	if (!kbuf)
		return -ENOMEM;
	for (i = 0; i < total && !ret; i++) {
		u8 val = from && i >= g && i < g + n ? pb_pattern(i - g) : PB_GUARD_BYTE;

		if (put_user(val, lo + i))
			ret = -EFAULT;
		else
			ret = pb_user_loop_step(i);
	}
	if (ret)
		goto out;
	if (from) {
		memset(kbuf, PB_GUARD_BYTE, total);
	} else {
		for (i = 0; i < n; i++)
			kbuf[i] = pb_pattern(i);
	}
	if (pb_user_op(v, from ? kbuf + g : kbuf, u, n)) {
		ret = -EFAULT;
		goto out;
	}
	off = min_t(size_t, PB_CORRUPT_OFFSET, n - 1);
	if ((int)v == corrupt_variant) { /* the test-only failure, above */
		u8 c;

		if (from)
			kbuf[g + off] ^= 0xFF;
		else if (get_user(c, u + off) || put_user((u8)(c ^ 0xFF), u + off))
			ret = -EFAULT;
	}
	for (i = 0; i < total && !ret; i++) {
		bool in = i >= g && i < g + n;
		u8 want = !in ? PB_GUARD_BYTE : v == PB_KV_CLEAR_USER ? 0 : pb_pattern(i - g);
		u8 got;

		if (from)
			got = kbuf[i];
		else if (get_user(got, lo + i)) {
			ret = -EFAULT;
			break;
		}
		if (got != want) {
			*bad_offset_bytes = (s64)i - (s64)g;
			ret = -EIO;
			break;
		}
		ret = pb_user_loop_step(i);
	}
out:
	kvfree(kbuf);
	return ret;
}

static bool pb_order_ok(u32 order)
{
	return order == PB_KMOD_ORDER_4K || order == PB_KMOD_ORDER_2M;
}

/* A user_copy request's user range: n bytes at user_ptr, with `pad` bytes
 * before and after (CHECK's guards), below the top of user space
 * (access_ok, arch/x86/include/asm/uaccess.h). */
static bool pb_user_ok(u64 user_ptr, u64 n, u64 pad)
{
	u64 end;

	if (user_ptr < pad || check_add_overflow(user_ptr, n + pad, &end))
		return false;
	return access_ok(u64_to_user_ptr(user_ptr - pad), n + 2 * pad);
}

/* CHECK's fields against the variant's op: -EINVAL when one is out of its
 * range (kmod_abi.h), else 0. */
static long pb_check_validate(const struct pb_kmod_check *c)
{
	u32 op = pb_variants[c->variant].op;

	if (op == PB_KOP_USER_COPY)
		return c->page_order == 0 && c->user_ptr != 0 && c->bytes >= 1 &&
		               c->bytes <= PB_MAX_USER_BYTES
		           ? 0
		           : -EINVAL;
	if (c->user_ptr != 0 || c->bytes != 0)
		return -EINVAL;
	if (op == PB_KOP_FPU)
		return c->page_order == 0 ? 0 : -EINVAL;
	return pb_order_ok(c->page_order) ? 0 : -EINVAL;
}

static long pb_ioctl_check(void __user *arg)
{
	struct pb_kmod_check c;
	const struct pb_variant *pv;
	int ret;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.variant >= PB_KV_COUNT)
		return -EINVAL;
	/* The bounds check above may be speculated past (Spectre v1): clamp
	 * the index under speculation too before it indexes pb_variants[]
	 * (include/linux/nospec.h; Documentation/staging/speculation.rst). */
	c.variant = array_index_nospec(c.variant, PB_KV_COUNT);
	pv = &pb_variants[c.variant];
	ret = pb_check_validate(&c);
	if (ret)
		return ret;
	if (!(pv->flags & PB_KVF_AVAILABLE))
		return -EOPNOTSUPP;
	if (pv->op == PB_KOP_USER_COPY && !pb_user_ok(c.user_ptr, c.bytes, PB_KMOD_GUARD_BYTES))
		return -EFAULT;
	if (mutex_lock_interruptible(&pb_lock))
		return -EINTR;
	c.bad_offset_bytes = -1;
	switch (pv->op) {
	case PB_KOP_USER_COPY:
		ret = pb_check_user(c.variant, c.user_ptr, c.bytes, &c.bad_offset_bytes);
		break;
	case PB_KOP_FPU:
		/* Nothing to compare: one begin/end for a TIME variant, so
		 * that CHECK runs what TIME will; a CALL variant runs in its
		 * own ioctl. */
		if (!(pv->flags & PB_KVF_CALL)) {
			kernel_fpu_begin();
			kernel_fpu_end();
		}
		ret = 0;
		break;
	default:
		/* CHECK always runs the check (it never answers from
		 * checked[]); a pass is remembered so that TIME of this
		 * variant and size does not repeat it (pb_check_cached). */
		ret = pb_check_pages(c.variant, c.page_order, &c.bad_offset_bytes);
		if (ret == 0)
			pb_variants[c.variant].checked[c.page_order != 0] = true;
		break;
	}
	mutex_unlock(&pb_lock);
	if (ret == 0 || ret == -EIO) {
		if (copy_to_user(arg, &c, sizeof(c)))
			return -EFAULT;
	}
	return ret;
}

/* ---- TIME */

/* The pages of one clear_page or copy_page TIME request: clear_page, 2
 * (hot) or `calls` (flushed) blocks of the request's order; copy_page,
 * twice that many, a (source, destination) pair a slot. Hot at 2 MiB is
 * thus 4 MiB (copy_page: 8 MiB) in turn: "hot" means in the cache levels
 * that hold it, which for 4 MiB may be the last level only; for an NT
 * variant, the same pages, not cached ones. */
struct pb_pages {
	void **addr;
	u32 n;
	u32 order;
};

static void pb_pages_free(struct pb_pages *pp)
{
	u32 i;

	if (!pp->addr)
		return;
	for (i = 0; i < pp->n; i++)
		if (pp->addr[i])
			free_pages((unsigned long)pp->addr[i], pp->order);
	kvfree(pp->addr);
	pp->addr = NULL;
}

static int pb_pages_alloc(struct pb_pages *pp, u32 n, u32 order)
{
	u32 i;

	pp->n = n;
	pp->order = order;
	pp->addr = kvcalloc(n, sizeof(*pp->addr), GFP_KERNEL);
	if (!pp->addr)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		pp->addr[i] = (void *)__get_free_pages(PB_GFP_PAGES, order);
		if (!pp->addr[i]) {
			pb_pages_free(pp);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Evicts a range from every cache level: clflush_cache_range()
 * (arch/x86/mm/pat/set_memory.c) issues CLFLUSHOPT or CLFLUSH per line,
 * fenced by mb() on both sides (Intel SDM Vol. 2A CLFLUSH; caches are
 * physically tagged, so flushing through any mapping of a page evicts its
 * lines for every mapping). Long ranges in 1 MiB steps with
 * cond_resched() between them. */
static void pb_flush_range(void *p, size_t n)
{
	while (n) {
		size_t step = min_t(size_t, n, 1u << 20);

		clflush_cache_range(p, step);
		p = (u8 *)p + step;
		n -= step;
		cond_resched();
	}
}

static void pb_pages_flush(const struct pb_pages *pp)
{
	u32 i;

	for (i = 0; i < pp->n; i++)
		pb_flush_range(pp->addr[i], PAGE_SIZE << pp->order);
}

/* The user_copy buffers of one TIME request: the kernel buffer and the
 * caller's pages, pinned. */
struct pb_user {
	u8 *kbuf;
	size_t kbuf_bytes;
	struct page **pages;
	unsigned long n_pages; /* pinned */
};

/* The kernel buffer: page-aligned and zeroed (copy_to_user must never hand
 * out what the pages held before). Up to 4 MiB (an order-10 block, the
 * largest the page allocator gives: MAX_ORDER) from the page allocator,
 * direct-mapped like the page-cache pages a read() copies from
 * (alloc_pages_exact, mm/page_alloc.c); larger, or when no such block is
 * free, vmalloc'd (4 KiB mappings; where CONFIG_HARDENED_USERCOPY checks
 * the object, mm/usercopy.c, a vmalloc address costs a lookup of its
 * area per call). */
/* The kernel buffer of a user_copy request: direct-mapped pages
 * (alloc_pages_exact, as the page cache's and slab's memory is) up to
 * PB_KMOD_USER_DIRECT_BYTES, vmalloc'd above, and never the one for the
 * other: the kind is the span's, so a case whose requests keep their span
 * on one side (primbench's do) gets one kind in every sample (a vmalloc'd
 * buffer maps 4 KiB pages and, with CONFIG_HARDENED_USERCOPY, costs a
 * vmap_area lookup per copy: mm/usercopy.c). NULL: ENOMEM. */
static void *pb_kbuf_alloc(size_t bytes)
{
	BUILD_BUG_ON(PB_KMOD_USER_DIRECT_BYTES > (PAGE_SIZE << (MAX_ORDER - 1)));
	bytes = PAGE_ALIGN(bytes);
	if (bytes <= PB_KMOD_USER_DIRECT_BYTES)
		return alloc_pages_exact(bytes, PB_GFP_PAGES | __GFP_ZERO);
	return __vmalloc(bytes, PB_GFP_PAGES | __GFP_ZERO);
}

static void pb_user_free(struct pb_user *pu)
{
	if (pu->pages) {
		unpin_user_pages(pu->pages, pu->n_pages);
		kvfree(pu->pages);
		pu->pages = NULL;
	}
	if (pu->kbuf) {
		if (is_vmalloc_addr(pu->kbuf))
			vfree(pu->kbuf);
		else
			free_pages_exact(pu->kbuf, PAGE_ALIGN(pu->kbuf_bytes));
		pu->kbuf = NULL;
	}
}

/* Pins the caller's pages covering [user_ptr, user_ptr + n), whatever
 * user_ptr's alignment, for writing (pin_user_pages_fast(FOLL_WRITE),
 * mm/gup.c; Documentation/core-api/pin_user_pages.rst): the pages are
 * present and the task's own (a private page not yet written is copied
 * first, not the shared zero page), and stay put (no migration, reclaim or
 * collapse) while a batch runs with page faults disabled. So every
 * user_copy TIME needs a writable buffer, copy_from_user's too. -EFAULT
 * when a page is not there or not writable. */
static int pb_user_pin(struct pb_user *pu, u64 user_ptr, u64 n)
{
	unsigned long first = user_ptr & PAGE_MASK;
	unsigned long want = ((user_ptr + n - 1) >> PAGE_SHIFT) - (user_ptr >> PAGE_SHIFT) + 1;

	pu->pages = kvcalloc(want, sizeof(*pu->pages), GFP_KERNEL);
	if (!pu->pages)
		return -ENOMEM;
	while (pu->n_pages < want) {
		int got = pin_user_pages_fast(first + pu->n_pages * PAGE_SIZE,
		                              min_t(unsigned long, want - pu->n_pages, INT_MAX),
		                              FOLL_WRITE, pu->pages + pu->n_pages);

		if (got <= 0)
			return got == -ENOMEM ? -ENOMEM : -EFAULT;
		pu->n_pages += got;
	}
	return 0;
}

/* Flushes the pinned user pages, through the kernel's mapping of each
 * (kmap_local_page, include/linux/highmem.h), and the kernel buffer. */
static void pb_user_flush(const struct pb_user *pu, size_t kbuf_bytes)
{
	unsigned long i;

	for (i = 0; i < pu->n_pages; i++) {
		void *p = kmap_local_page(pu->pages[i]);

		clflush_cache_range(p, PAGE_SIZE);
		kunmap_local(p);
		if ((i & 255) == 255)
			cond_resched();
	}
	pb_flush_range(pu->kbuf, kbuf_bytes);
}

/* The least of PB_OVERHEAD_PAIRS empty batches: two rdtsc_ordered()
 * back to back, with preemption (and interrupts, irqs_off) off as in a
 * real batch. */
static u64 pb_overhead_ticks(bool irqs_off)
{
	u64 best = U64_MAX;
	unsigned long irqflags = 0;
	int k;

	for (k = 0; k < PB_OVERHEAD_PAIRS; k++) {
		u64 t0, t1;

		preempt_disable();
		if (irqs_off)
			local_irq_save(irqflags);
		t0 = rdtsc_ordered();
		t1 = rdtsc_ordered();
		if (irqs_off)
			local_irq_restore(irqflags);
		preempt_enable();
		best = min(best, t1 - t0);
	}
	return best;
}

/* TIME's fields (kmod_abi.h, struct pb_kmod_time), the variant's op's
 * rules included: -EINVAL when one is out of its range, else 0. The
 * variant number is checked and clamped (array_index_nospec) by the
 * caller. */
static long pb_time_validate(const struct pb_kmod_time *t)
{
	const struct pb_variant *pv = &pb_variants[t->variant];

	if (t->state != PB_KS_HOT && t->state != PB_KS_FLUSHED)
		return -EINVAL;
	if (t->calls == 0 || t->batches == 0 || t->batches > PB_MAX_BATCHES)
		return -EINVAL;
	if (t->flags & ~PB_KT_IRQS_OFF)
		return -EINVAL;
	if (t->reserved != 0)
		return -EINVAL;
	if (pv->flags & PB_KVF_CALL)
		return -EINVAL;
	if (pv->op == PB_KOP_USER_COPY) {
		/* bytes <= 64 MiB first, so calls * bytes cannot overflow. */
		if (t->page_order != 0 || t->user_ptr == 0 || t->bytes == 0 ||
		    t->bytes > PB_MAX_USER_BYTES || t->calls > PB_MAX_SMALL_CALLS ||
		    (u64)t->calls * t->bytes > PB_MAX_USER_BYTES)
			return -EINVAL;
		return 0;
	}
	if (t->user_ptr != 0 || t->bytes != 0)
		return -EINVAL;
	if (pv->op == PB_KOP_FPU)
		return t->page_order == 0 && t->state == PB_KS_HOT && t->calls <= PB_MAX_SMALL_CALLS
		           ? 0
		           : -EINVAL;
	if (!pb_order_ok(t->page_order))
		return -EINVAL;
	return ((u64)t->calls << (12 + t->page_order)) <= PB_MAX_CALLS_BYTES ? 0 : -EINVAL;
}

/* Everything a TIME request prepared for its batches. */
struct pb_req {
	struct pb_batch batch;
	struct pb_pages pages;
	struct pb_user user;
	size_t user_span; /* user_copy: the user buffer's (and kernel buffer's) bytes */
};

/* user_copy: how many times in a row a batch that came short is run
 * again. Pinning keeps the user pages in place but not their page table
 * entries present at every moment: khugepaged's attempt to collapse a
 * range into a huge page clears its PMD until it finds a page pinned and
 * puts it back (collapse_huge_page(), mm/khugepaged.c), and a migration
 * attempt installs migration entries before it finds the extra references
 * (mm/migrate.c). A copy in the batch, with page faults disabled, then
 * stops short: seen once in a few thousand requests under TCG. */
#define PB_USER_RETRIES 3

/* Calls the batch's op once on each of its regions with page faults
 * allowed, untimed: the entries are there again afterwards. -EFAULT when
 * a region cannot be copied even so. */
static long pb_user_touch(const struct pb_batch *b)
{
	u32 i, regions = b->stride ? b->calls : 1;

	for (i = 0; i < regions; i++)
		if (pb_user_op(b->variant, b->kbuf + (size_t)i * b->stride,
		               b->ubuf + (size_t)i * b->stride, b->bytes))
			return -EFAULT;
	return 0;
}

/* The batches of one request (kmod_abi.h, PB_KMOD_IOC_TIME), each timed
 * by its variant's pb_run_* with preemption (and with PB_KT_IRQS_OFF,
 * interrupts) off around it; flushed: the memory flushed before each,
 * untimed. Between batches: a pending signal ends the request with
 * -EINTR, the deadline with -ETIME; cond_resched() lets the scheduler
 * run. A user copy that came short: the batch again (PB_USER_RETRIES), then
 * -EFAULT. Caller holds pb_lock. */
static long pb_time_batches(struct pb_kmod_time *t, struct pb_req *rq, unsigned long deadline)
{
	const struct pb_variant *pv = &pb_variants[t->variant];
	u64 __user *ticks = u64_to_user_ptr(t->ticks_ptr);
	bool irqs_off = t->flags & PB_KT_IRQS_OFF;
	bool flushed = t->state == PB_KS_FLUSHED;
	int first_cpu = -1;
	unsigned int retries = 0;
	u32 b;

	for (b = 0; b < t->batches; b++) {
		unsigned long irqflags = 0;
		u64 ticks_b;
		int cpu;

		if (flushed && pb_is_pages(pv->op))
			pb_pages_flush(&rq->pages);
		else if (flushed)
			pb_user_flush(&rq->user, rq->user_span);
		preempt_disable();
		if (irqs_off)
			local_irq_save(irqflags);
		ticks_b = pv->run(&rq->batch);
		cpu = smp_processor_id();
		if (irqs_off)
			local_irq_restore(irqflags);
		preempt_enable();

		if (rq->batch.short_bytes) {
			/* A pinned page's entry can still be absent for a
			 * moment (PB_USER_RETRIES): touch the regions with
			 * faults allowed and run the batch again, its ticks
			 * dropped; a region that cannot be touched, or a
			 * batch short PB_USER_RETRIES times in a row, is an
			 * EFAULT. */
			long err = pb_user_touch(&rq->batch);

			if (err || ++retries > PB_USER_RETRIES)
				return err ? err : -EFAULT;
			rq->batch.short_bytes = 0;
			b--;
			continue;
		}
		retries = 0;
		if (put_user(ticks_b, &ticks[b]))
			return -EFAULT;
		t->batches_done = b + 1;
		t->cpu = cpu;
		if (first_cpu < 0)
			first_cpu = cpu;
		else if (cpu != first_cpu)
			t->cpu_changed = 1;

		if (b + 1 == t->batches)
			break;
		if (signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, deadline))
			return -ETIME;
		cond_resched();
	}
	return 0;
}

/* clear_page, copy_page: the check (at most once per variant and size),
 * the pages, each written once by the variant itself, untimed: hot pages
 * are then in the TLB, and in cache for a temporal variant (an NT one
 * leaves them out of it: kmod_abi.h, PB_KS_HOT); flushed ones have been
 * touched, so every batch starts from the same state. */
static long pb_time_prepare_pages(const struct pb_kmod_time *t, struct pb_req *rq)
{
	const struct pb_variant *pv = &pb_variants[t->variant];
	u32 per_slot = pv->op == PB_KOP_COPY_PAGE ? 2 : 1;
	u32 slots = t->state == PB_KS_FLUSHED ? t->calls : 2;
	s64 bad_offset_bytes;
	long ret;
	u32 i;

	ret = pb_check_cached(t->variant, t->page_order, &bad_offset_bytes);
	if (ret)
		return ret;
	ret = pb_pages_alloc(&rq->pages, slots * per_slot, t->page_order);
	if (ret)
		return ret;
	for (i = 0; i < slots; i++) {
		struct pb_batch one = {.pages = rq->pages.addr + (size_t)i * per_slot,
		                       .mask = 0,
		                       .calls = 1,
		                       .subpages = 1u << t->page_order};

		if (per_slot == 2) /* a defined source: 0x5A in every byte */
			memset(one.pages[0], 0x5A, PAGE_SIZE << t->page_order);
		pv->run(&one);
		cond_resched();
	}
	rq->batch = (struct pb_batch){.pages = rq->pages.addr,
	                              .mask = t->state == PB_KS_FLUSHED ? ~0u : 1u,
	                              .calls = t->calls,
	                              .subpages = 1u << t->page_order};
	return 0;
}

/* user_copy: the kernel buffer (bytes hot, calls * bytes flushed), the
 * user pages pinned (both states: pb_user_pin), and hot's one untimed call
 * with page faults allowed. */
static long pb_time_prepare_user(const struct pb_kmod_time *t, struct pb_req *rq)
{
	bool flushed = t->state == PB_KS_FLUSHED;
	size_t span = flushed ? (size_t)t->calls * t->bytes : t->bytes;
	long ret;

	rq->user_span = span;
	rq->user.kbuf = pb_kbuf_alloc(span);
	if (!rq->user.kbuf)
		return -ENOMEM;
	rq->user.kbuf_bytes = span;
	ret = pb_user_pin(&rq->user, t->user_ptr, span);
	if (ret)
		return ret;
	rq->batch = (struct pb_batch){.kbuf = rq->user.kbuf,
	                              .ubuf = u64_to_user_ptr(t->user_ptr),
	                              .bytes = t->bytes,
	                              .stride = flushed ? t->bytes : 0,
	                              .calls = t->calls,
	                              .variant = t->variant};
	if (!flushed && pb_user_op(t->variant, rq->batch.kbuf, rq->batch.ubuf, t->bytes))
		return -EFAULT;
	return 0;
}

static long pb_ioctl_time(void __user *arg)
{
	struct pb_kmod_time t;
	struct pb_req *rq;
	const struct pb_variant *pv;
	unsigned long deadline;
	long ret;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	if (t.variant >= PB_KV_COUNT)
		return -EINVAL;
	t.variant = array_index_nospec(t.variant, PB_KV_COUNT); /* as in pb_ioctl_check */
	pv = &pb_variants[t.variant];
	ret = pb_time_validate(&t);
	if (ret)
		return ret;
	if (!(pv->flags & PB_KVF_AVAILABLE))
		return -EOPNOTSUPP;
	/* switch_fpu_return() WARNs for a kernel thread or an io_uring worker
	 * (fpregs_restore_userregs()): the fpu op times a user task's state. */
	if (pv->op == PB_KOP_FPU && (current->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return -EOPNOTSUPP;
	if (!access_ok(u64_to_user_ptr(t.ticks_ptr), (size_t)t.batches * sizeof(u64)))
		return -EFAULT;
	if (pv->op == PB_KOP_USER_COPY &&
	    !pb_user_ok(t.user_ptr, t.state == PB_KS_FLUSHED ? (u64)t.calls * t.bytes : t.bytes, 0))
		return -EFAULT;
	t.batches_done = 0;
	t.cpu = 0;
	t.cpu_changed = 0;
	t.overhead_ticks = 0;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return -ENOMEM;
	if (mutex_lock_interruptible(&pb_lock)) {
		kfree(rq);
		return -EINTR;
	}
	deadline = jiffies + msecs_to_jiffies(pb_request_ms());
	if (pb_is_pages(pv->op))
		ret = pb_time_prepare_pages(&t, rq);
	else if (pv->op == PB_KOP_USER_COPY)
		ret = pb_time_prepare_user(&t, rq);
	else
		rq->batch.calls = t.calls; /* fpu: no memory */
	if (ret == 0) {
		t.overhead_ticks = pb_overhead_ticks(t.flags & PB_KT_IRQS_OFF);
		ret = pb_time_batches(&t, rq, deadline);
	}
	pb_pages_free(&rq->pages);
	pb_user_free(&rq->user);
	if (ret == 0 || ret == -EINTR || ret == -ETIME) {
		if (copy_to_user(arg, &t, sizeof(t)))
			ret = -EFAULT;
	}
	mutex_unlock(&pb_lock);
	kfree(rq);
	return ret;
}

/* ---- CALL: the variant number is the ioctl's argument itself. No lock,
 * no copy in or out: ioctl_null is the ioctl path's own cost (syscall
 * entry and exit, the file's ioctl dispatch, this switch); ioctl_fpu adds
 * one kernel_fpu_begin(); kernel_fpu_end();, whose save of the task's
 * registers and their restore on the return to user space
 * (switch_fpu_return() from exit_to_user_mode_prepare(),
 * arch/x86/include/asm/entry-common.h) the caller's timing includes. */
static long pb_ioctl_call(unsigned long arg)
{
	unsigned int v;

	if (arg >= PB_KV_COUNT)
		return -EINVAL;
	v = array_index_nospec((unsigned int)arg, PB_KV_COUNT);
	if (!(pb_variants[v].flags & PB_KVF_CALL))
		return -EINVAL;
	if (!(pb_variants[v].flags & PB_KVF_AVAILABLE))
		return -EOPNOTSUPP;
	if (v == PB_KV_IOCTL_FPU) {
		kernel_fpu_begin();
		kernel_fpu_end();
	}
	return 0;
}

static long pb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case PB_KMOD_IOC_CALL:
		return pb_ioctl_call(arg);
	case PB_KMOD_IOC_INFO:
		return pb_ioctl_info(uarg);
	case PB_KMOD_IOC_CHECK:
		return pb_ioctl_check(uarg);
	case PB_KMOD_IOC_TIME:
		return pb_ioctl_time(uarg);
	default:
		return -ENOTTY;
	}
}

/* CALL's argument is a number, not a pointer: compat_ptr_ioctl would
 * mangle nothing here (a small number is the same either way), but it is
 * passed through as is. */
static long pb_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (cmd == PB_KMOD_IOC_CALL)
		return pb_ioctl(file, cmd, arg);
	return compat_ptr_ioctl(file, cmd, arg);
}

static const struct file_operations pb_fops = {
    .owner = THIS_MODULE,
    .unlocked_ioctl = pb_ioctl,
    .compat_ioctl = pb_compat_ioctl,
    .llseek = noop_llseek,
};

static struct miscdevice pb_misc = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "primbench",
    .fops = &pb_fops,
    .mode = 0600,
};

static int __init pb_init(void)
{
	unsigned int v, n = 0;
	int ret;

	max_request_ms =
	    pb_request_ms(); /* so /sys/module/.../max_request_ms says what INFO says */
	pb_decide_availability();
	ret = misc_register(&pb_misc);
	if (ret)
		return ret;
	for (v = 0; v < PB_KV_COUNT; v++)
		n += !!(pb_variants[v].flags & PB_KVF_AVAILABLE);
	pr_info("primbench_kmod %s: /dev/primbench, %u of %u variants available, "
	        "max_request_ms %u\n",
	        PB_KMOD_VERSION, n, (unsigned int)PB_KV_COUNT, pb_request_ms());
	if (corrupt_variant >= 0)
		pr_info("primbench_kmod: corrupt_variant=%d: that variant's check fails "
		        "on purpose (a test)\n",
		        corrupt_variant);
	return 0;
}

static void __exit pb_exit(void)
{
	misc_deregister(&pb_misc);
}

module_init(pb_init);
module_exit(pb_exit);

MODULE_LICENSE("GPL");
MODULE_VERSION(PB_KMOD_VERSION);
MODULE_DESCRIPTION("primbench: clear_page, copy_page, kernel_fpu_begin/end and user copies "
                   "timed in kernel context");
