// SPDX-License-Identifier: GPL-2.0
/* primbench_kmod.c - times clear_page variants in kernel context for
 * `primbench kernel clear_page`.
 *
 * A misc character device, /dev/primbench (mode 0600), answers the three
 * ioctls of include/primbench/kmod_abi.h: INFO (the variants and limits),
 * CHECK (one variant's correctness on a guarded page) and TIME (batches of
 * calls, each batch between two rdtsc_ordered() with preemption off).
 * docs/kernel.md says what is measured and why.
 *
 * The variants: the kernel's own clear_page() as its alternatives dispatch
 * it (arch/x86/include/asm/page_64.h) and its three routines
 * clear_page_orig/_rep/_erms (arch/x86/lib/clear_page_64.S) where the
 * kernel exports them (Kbuild detects that from Module.symvers); then the
 * module's own, each written in inline asm because the kernel is compiled
 * with -mno-sse -mno-avx (arch/x86/Makefile), so the compiler never emits a
 * vector register: the SIMD ones run inside kernel_fpu_begin()/
 * kernel_fpu_end() once per 4 KiB page, as lib/raid6/avx2.c brackets its
 * asm (the comment atop arch/x86/include/asm/fpu/api.h; newer kernels'
 * Documentation/core-api/floating-point.rst).
 *
 * Nothing a caller passes reaches a WARN or BUG: every field is checked
 * before use, page allocations fail with ENOMEM rather than OOM-kill
 * (PB_GFP_PAGES) and are __GFP_NOWARN, and user memory
 * is only touched through copy_to_user/put_user outside the timed region.
 */
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/gfp.h>
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

#include <asm/cacheflush.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>
#include <asm/msr.h>
#include <asm/page.h>
#include <asm/tsc.h>

#include <primbench/kmod_abi.h>

#define PB_KMOD_VERSION "0.1.0"

/* Limits INFO reports. 16 MiB of pages per batch keeps one batch (with
 * interrupts possibly off) in the milliseconds even under emulation;
 * max_request_ms bounds a whole TIME request between batches. */
#define PB_MAX_CALLS_BYTES    (16u << 20)
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
 * a test can see CHECK and TIME report EIO. pb_check writes one nonzero
 * byte at PB_CORRUPT_OFFSET of the page after this variant ran and before
 * the page is verified, as a routine that missed the page's last 64-byte
 * line would leave it. Only the check is affected: TIME's untimed
 * pre-write and its batches are not. -1 (the default): off. */
#define PB_CORRUPT_OFFSET 4032
static int corrupt_variant = -1;
module_param(corrupt_variant, int, 0444);
MODULE_PARM_DESC(corrupt_variant, "for tests only: this variant number's correctness check "
                                  "finds a nonzero byte at offset 4032 (CHECK and TIME give "
                                  "EIO); default -1, off");

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

/* ---- the table: one row per variant, in kmod_abi.h's numbering:
 * X(number, name, routine, PB_KVF_* flags, CPU requirement, why not built).
 * The requirement is one of the PB_NEEDS_* below or PB_NEEDS_NONE: rep
 * stosb/stosq and movq run on every x86-64 (ERMS only makes rep stosb
 * fast), and the kernel's routines are what the kernel itself runs. */
#define PB_VARIANTS(X)                                                                             \
	X(PB_KV_KERNEL, "kernel", pb_kernel, PB_KVF_KERNEL, NONE, PB_WHY_KERNEL)                   \
	X(PB_KV_KERNEL_ORIG, "kernel_orig", pb_kernel_orig, PB_KVF_KERNEL, NONE, PB_WHY_ORIG)      \
	X(PB_KV_KERNEL_REP, "kernel_rep", pb_kernel_rep, PB_KVF_KERNEL, NONE, PB_WHY_REP)          \
	X(PB_KV_KERNEL_ERMS, "kernel_erms", pb_kernel_erms, PB_KVF_KERNEL, NONE, PB_WHY_ERMS)      \
	X(PB_KV_REP_STOSB, "rep_stosb", pb_rep_stosb, 0, NONE, NULL)                               \
	X(PB_KV_REP_STOSQ, "rep_stosq", pb_rep_stosq, 0, NONE, NULL)                               \
	X(PB_KV_GPR_UNROLLED, "gpr_unrolled", pb_gpr_unrolled, 0, NONE, NULL)                      \
	X(PB_KV_MOVNTI, "movnti", pb_movnti, PB_KVF_NT, SSE2, NULL)                                \
	X(PB_KV_SSE2, "sse2", pb_sse2, PB_KVF_FPU, SSE2, NULL)                                     \
	X(PB_KV_SSE2_NT, "sse2_nt", pb_sse2_nt, PB_KVF_FPU | PB_KVF_NT, SSE2, NULL)                \
	X(PB_KV_AVX2, "avx2", pb_avx2, PB_KVF_FPU, AVX2, NULL)                                     \
	X(PB_KV_AVX2_NT, "avx2_nt", pb_avx2_nt, PB_KVF_FPU | PB_KVF_NT, AVX2, NULL)                \
	X(PB_KV_AVX512, "avx512", pb_avx512, PB_KVF_FPU, AVX512F, NULL)                            \
	X(PB_KV_AVX512_NT, "avx512_nt", pb_avx512_nt, PB_KVF_FPU | PB_KVF_NT, AVX512F, NULL)       \
	X(PB_KV_CLZERO, "clzero", pb_clzero, PB_KVF_NT, CLZERO, NULL)

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

/* pb_run_<routine>(pages, mask, calls, subpages): calls calls, the i-th on
 * pages[i & mask] (mask 1: two pages alternating; mask ~0: calls distinct
 * pages), each call clearing `subpages` 4 KiB subpages in address order
 * (512 for a 2 MiB page, as clear_huge_page() in mm/memory.c does).
 * Returns the TSC ticks the calls took, between two rdtsc_ordered()
 * (arch/x86/include/asm/msr.h: LFENCE or RDTSCP orders RDTSC against the
 * instructions around it; Intel SDM Vol. 3B 18.17 "Time-Stamp Counter").
 * One such function per variant keeps the routine a direct, inlined call
 * inside the timed loop, and the one indirect call (through
 * pb_variant.run) outside it: with CONFIG_RETPOLINE an indirect call costs
 * a retpoline. With PB_KVF_FPU each 4 KiB subpage is bracketed by
 * kernel_fpu_begin/end, as a kernel user of the FPU would.
 * Measurement trap: only the first kernel_fpu_begin() of a batch saves the
 * task's user FPU registers (XSAVE); the later ones find them saved
 * (TIF_NEED_FPU_LOAD, arch/x86/kernel/fpu/core.c) and cost little, so a
 * one-call batch carries that save and a long batch spreads it. */
#define PB_RUN_FN(num, name, fn, flags, needs, why)                                                \
	static noinline u64 pb_run_##fn(void *const *pages, u32 mask, u32 calls, u32 subpages)     \
	{                                                                                          \
		u64 t0, t1;                                                                        \
		u32 i, j;                                                                          \
		t0 = rdtsc_ordered();                                                              \
		for (i = 0; i < calls; i++) {                                                      \
			u8 *page = pages[i & mask];                                                \
			for (j = 0; j < subpages; j++) {                                           \
				if ((flags)&PB_KVF_FPU)                                            \
					kernel_fpu_begin();                                        \
				fn(page + (size_t)j * PAGE_SIZE);                                  \
				if ((flags)&PB_KVF_FPU)                                            \
					kernel_fpu_end();                                          \
			}                                                                          \
		}                                                                                  \
		t1 = rdtsc_ordered();                                                              \
		return t1 - t0;                                                                    \
	}
PB_VARIANTS(PB_RUN_FN)

typedef u64 (*pb_run_fn)(void *const *pages, u32 mask, u32 calls, u32 subpages);

struct pb_variant {
	const char *name;
	pb_run_fn run;
	u32 flags; /* PB_KVF_*, PB_KVF_AVAILABLE set at module init */
	struct pb_needs needs;
	const char *why; /* with PB_KVF_AVAILABLE clear: why; else NULL */
	bool checked[2]; /* passed its check at 4 KiB [0] / 2 MiB [1] since the
	                    module loaded, by CHECK or by a TIME's own check
	                    (pb_check_cached): under pb_lock */
};

#define PB_ROW(num, nm, fn, fl, nd, wh)                                                            \
	[num] = {.name = nm, .run = pb_run_##fn, .flags = fl, .needs = PB_NEEDS_##nd, .why = wh},
static struct pb_variant pb_variants[PB_KV_COUNT] = {PB_VARIANTS(PB_ROW)};

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
	strscpy(info->release, utsname()->release, sizeof(info->release));
	strscpy(info->module_version, PB_KMOD_VERSION, sizeof(info->module_version));
	for (v = 0; v < PB_KV_COUNT; v++) {
		struct pb_kmod_variant_info *vi = &info->variants[v];

		strscpy(vi->name, pb_variants[v].name, sizeof(vi->name));
		vi->flags = pb_variants[v].flags;
		if (pb_variants[v].why)
			strscpy(vi->why, pb_variants[v].why, sizeof(vi->why));
	}
	if (copy_to_user(arg, info, sizeof(*info)))
		ret = -EFAULT;
	kfree(info);
	return ret;
}

/* ---- CHECK */

/* Runs variant v once on a page of the given order and checks it (the
 * method kmod_abi.h gives for PB_KMOD_IOC_CHECK). Returns 0 with
 * *bad_offset_bytes = -1, -EIO with the first wrong byte's offset from the
 * page's start (negative: in the guard before it), or -ENOMEM. Caller
 * holds pb_lock. A 4 KiB page sits in the middle of an order-2 block, the
 * 4 KiB on each side being its guards; a 2 MiB page has no guards. */
static int pb_check(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	const struct pb_variant *pv = &pb_variants[v];
	unsigned int alloc_order = order == 0 ? 2 : order;
	size_t page_bytes = PAGE_SIZE << order;
	size_t guard_bytes = order == 0 ? PAGE_SIZE : 0;
	struct page *block;
	u8 *base, *page;
	void *bad;
	int ret = 0;

	*bad_offset_bytes = -1;
	block = alloc_pages(PB_GFP_PAGES, alloc_order);
	if (!block)
		return -ENOMEM;
	base = page_address(block);
	page = base + guard_bytes;
	memset(base, PB_GUARD_BYTE, page_bytes + 2 * guard_bytes);
	pv->run((void *const *)&page, 0, 1, 1u << order);
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

/* TIME's check: pb_check, unless this variant already passed at this order
 * since the module was loaded (by a CHECK request or an earlier TIME). A
 * pass is remembered in checked[], a failure is not. So TIME runs the
 * check of a variant and size at most once per module load (the first
 * TIME, when no CHECK passed it before); a CHECK request always runs it;
 * a failing one is checked again, and fails with EIO, on every request. */
static int pb_check_cached(unsigned int v, unsigned int order, s64 *bad_offset_bytes)
{
	bool *done = &pb_variants[v].checked[order != 0];
	int ret;

	*bad_offset_bytes = -1;
	if (*done)
		return 0;
	ret = pb_check(v, order, bad_offset_bytes);
	if (ret == 0)
		*done = true;
	return ret;
}

static bool pb_order_ok(u32 order)
{
	return order == PB_KMOD_ORDER_4K || order == PB_KMOD_ORDER_2M;
}

static long pb_ioctl_check(void __user *arg)
{
	struct pb_kmod_check c;
	int ret;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.variant >= PB_KV_COUNT || !pb_order_ok(c.page_order))
		return -EINVAL;
	/* The bounds check above may be speculated past (Spectre v1): clamp
	 * the index under speculation too before it indexes pb_variants[]
	 * (include/linux/nospec.h; Documentation/staging/speculation.rst). */
	c.variant = array_index_nospec(c.variant, PB_KV_COUNT);
	if (!(pb_variants[c.variant].flags & PB_KVF_AVAILABLE))
		return -EOPNOTSUPP;
	if (mutex_lock_interruptible(&pb_lock))
		return -EINTR;
	/* CHECK always runs the check (it never answers from checked[]); a
	 * pass is remembered so that TIME of this variant and size does not
	 * repeat it (pb_check_cached). */
	ret = pb_check(c.variant, c.page_order, &c.bad_offset_bytes);
	if (ret == 0)
		pb_variants[c.variant].checked[c.page_order != 0] = true;
	mutex_unlock(&pb_lock);
	if (ret == 0 || ret == -EIO) {
		if (copy_to_user(arg, &c, sizeof(c)))
			return -EFAULT;
	}
	return ret;
}

/* ---- TIME */

/* The pages of one TIME request: 2 (hot) or `calls` (flushed) blocks of
 * the request's order. Hot at 2 MiB is thus 4 MiB written in turn: "hot"
 * means in the cache levels that hold it, which for 4 MiB may be the last
 * level only; for an NT variant, the same two pages, not cached ones. */
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

/* Evicts every page from every cache level: clflush_cache_range()
 * (arch/x86/mm/pat/set_memory.c) issues CLFLUSHOPT or CLFLUSH per line,
 * fenced by mb() on both sides (Intel SDM Vol. 2A CLFLUSH). */
static void pb_pages_flush(const struct pb_pages *pp)
{
	u32 i;

	for (i = 0; i < pp->n; i++) {
		clflush_cache_range(pp->addr[i], PAGE_SIZE << pp->order);
		cond_resched();
	}
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

static long pb_time_validate(const struct pb_kmod_time *t)
{
	u64 bytes;

	if (t->variant >= PB_KV_COUNT || !pb_order_ok(t->page_order))
		return -EINVAL;
	if (t->state != PB_KS_HOT && t->state != PB_KS_FLUSHED)
		return -EINVAL;
	bytes = (u64)t->calls << (12 + t->page_order);
	if (t->calls == 0 || bytes > PB_MAX_CALLS_BYTES)
		return -EINVAL;
	if (t->batches == 0 || t->batches > PB_MAX_BATCHES)
		return -EINVAL;
	if (t->flags & ~PB_KT_IRQS_OFF)
		return -EINVAL;
	if (t->reserved != 0)
		return -EINVAL;
	return 0;
}

/* The batches of one request (kmod_abi.h, PB_KMOD_IOC_TIME), each timed
 * by its variant's pb_run_* with preemption (and with PB_KT_IRQS_OFF,
 * interrupts) off around it. Between batches: a pending signal
 * ends the request with -EINTR, the deadline with -ETIME; cond_resched()
 * lets the scheduler run. Caller holds pb_lock. */
static long pb_time_batches(struct pb_kmod_time *t, const struct pb_pages *pp,
                            unsigned long deadline)
{
	const struct pb_variant *pv = &pb_variants[t->variant];
	u64 __user *ticks = u64_to_user_ptr(t->ticks_ptr);
	bool irqs_off = t->flags & PB_KT_IRQS_OFF;
	bool flushed = t->state == PB_KS_FLUSHED;
	u32 mask = flushed ? ~0u : 1u;
	u32 subpages = 1u << t->page_order;
	int first_cpu = -1;
	u32 b;

	for (b = 0; b < t->batches; b++) {
		unsigned long irqflags = 0;
		u64 ticks_b;
		int cpu;

		if (flushed)
			pb_pages_flush(pp);
		preempt_disable();
		if (irqs_off)
			local_irq_save(irqflags);
		ticks_b = pv->run(pp->addr, mask, t->calls, subpages);
		cpu = smp_processor_id();
		if (irqs_off)
			local_irq_restore(irqflags);
		preempt_enable();

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

static long pb_ioctl_time(void __user *arg)
{
	struct pb_kmod_time t;
	struct pb_pages pp = {0};
	unsigned long deadline;
	s64 bad_offset_bytes;
	u32 i;
	long ret;

	if (copy_from_user(&t, arg, sizeof(t)))
		return -EFAULT;
	ret = pb_time_validate(&t);
	if (ret)
		return ret;
	t.variant = array_index_nospec(t.variant, PB_KV_COUNT); /* as in pb_ioctl_check */
	if (!(pb_variants[t.variant].flags & PB_KVF_AVAILABLE))
		return -EOPNOTSUPP;
	if (!access_ok(u64_to_user_ptr(t.ticks_ptr), (size_t)t.batches * sizeof(u64)))
		return -EFAULT;
	t.batches_done = 0;
	t.cpu = 0;
	t.cpu_changed = 0;
	t.overhead_ticks = 0;

	if (mutex_lock_interruptible(&pb_lock))
		return -EINTR;
	deadline = jiffies + msecs_to_jiffies(pb_request_ms());
	ret = pb_check_cached(t.variant, t.page_order, &bad_offset_bytes);
	if (ret)
		goto out_unlock;
	ret = pb_pages_alloc(&pp, t.state == PB_KS_FLUSHED ? t.calls : 2, t.page_order);
	if (ret)
		goto out_unlock;
	/* Written once untimed by the variant: hot pages are then in the TLB,
	 * and in cache for a temporal variant (an NT one leaves them out of
	 * it: kmod_abi.h, PB_KS_HOT); flushed ones have been touched, so
	 * every batch starts from the same state. */
	for (i = 0; i < pp.n; i++)
		pb_variants[t.variant].run(&pp.addr[i], 0, 1, 1u << t.page_order);
	t.overhead_ticks = pb_overhead_ticks(t.flags & PB_KT_IRQS_OFF);
	ret = pb_time_batches(&t, &pp, deadline);
	pb_pages_free(&pp);
	if (ret == 0 || ret == -EINTR || ret == -ETIME) {
		if (copy_to_user(arg, &t, sizeof(t)))
			ret = -EFAULT;
	}
out_unlock:
	mutex_unlock(&pb_lock);
	return ret;
}

static long pb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
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

static const struct file_operations pb_fops = {
    .owner = THIS_MODULE,
    .unlocked_ioctl = pb_ioctl,
    .compat_ioctl = compat_ptr_ioctl,
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
MODULE_DESCRIPTION("primbench: clear_page variants timed in kernel context");
