/* x86_64/xsave.c - save+restore pairs of the SIMD register state
 * (include/primbench/xsave.h, docs/methodology.md "SIMD state saving").
 *
 * Every pair is one inline-asm statement: the save and the restore of the
 * same 64-byte aligned area (fxsave: 16-byte, 512 bytes), with the
 * requested-feature bitmap in EDX:EAX. The 64-bit forms (REX.W) are used,
 * as Linux does. The restore brings back exactly what the save stored, so
 * the pair leaves the registers as they were; only the dirtying write
 * before it changes a register, and that statement says so in its
 * clobbers (and runs in a function with the matching target attribute).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/replicates.h"
#include "primbench/timer.h"
#include "primbench/xsave.h"

#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM 0x1022
#endif

/* A batch aims to last this long at least (as the mem suite). */
#define MAX_BATCH_PAIRS (1u << 20)

/* The cpuid leaves and XCR0, read once per process: they do not change
 * while it lives (Linux programs XCR0 at boot), and in a virtual machine
 * every cpuid is a VM exit of a microsecond or more (Intel SDM Vol. 3C
 * "Instructions That Cause VM Exits Unconditionally"; KVM intercepts it
 * under AMD SVM too). */
static struct pb_xsave_raw cpuid_raw;
static pthread_once_t cpuid_once = PTHREAD_ONCE_INIT;

static void cpuid_read(void)
{
	struct pb_xsave_raw *raw = &cpuid_raw;
	unsigned a, b, c, d;
	raw->max_leaf = __get_cpuid_max(0, NULL);
	if (raw->max_leaf < 1)
		return;
	__cpuid_count(1, 0, a, b, c, d);
	raw->leaf1_ecx = c;
	raw->leaf1_edx = d;
	if (!(c >> 27 & 1)) /* no OSXSAVE: xgetbv would raise #UD */
		return;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	raw->xcr0 = (uint64_t)hi << 32 | lo;
	if (raw->max_leaf < 0xD)
		return;
	__cpuid_count(0xD, 0, a, b, c, d);
	raw->d0_eax = a, raw->d0_ebx = b, raw->d0_ecx = c, raw->d0_edx = d;
	__cpuid_count(0xD, 1, a, b, c, d);
	raw->d1_eax = a, raw->d1_ebx = b;
	uint64_t supported = (uint64_t)raw->d0_edx << 32 | raw->d0_eax;
	for (unsigned i = 2; i < PB_XS_MAX_COMPONENTS; i++)
		if (supported >> i & 1) {
			__cpuid_count(0xD, i, a, b, c, d);
			raw->sub_eax[i] = a, raw->sub_ebx[i] = b, raw->sub_ecx[i] = c;
		}
}

void pb_xsave_raw_read(struct pb_xsave_raw *raw)
{
	pthread_once(&cpuid_once, cpuid_read);
	*raw = cpuid_raw;
	raw->xcomp_perm = 0;
	if (raw->max_leaf < 0xD || !(raw->leaf1_ecx >> 27 & 1))
		return;
	/* Linux 5.16+: which dynamically enabled components (AMX XTILEDATA)
	 * this process may use (it can change: ARCH_REQ_XCOMP_PERM). Older
	 * kernels: EINVAL, nothing permitted. */
	unsigned long perm = 0;
	if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &perm) == 0)
		raw->xcomp_perm = perm;
}

bool pb_xsave_arch_supported(const char **why)
{
	if (why)
		*why = NULL;
	return true;
}

/* ---- the pairs ------------------------------------------------------ */

typedef void (*pair_loop_fn)(void *area, uint64_t rfbm, size_t k);

#define PAIR_FX  "fxsave64 (%[a])\n\tfxrstor64 (%[a])\n\t"
#define PAIR_XS  "xsave64 (%[a])\n\txrstor64 (%[a])\n\t"
#define PAIR_XSO "xsaveopt64 (%[a])\n\txrstor64 (%[a])\n\t"
#define PAIR_XSC "xsavec64 (%[a])\n\txrstor64 (%[a])\n\t"

/* Upper state before each pair. vzeroupper puts the upper halves of
 * ymm0-15 and zmm0-15 (AVX, ZMM_Hi256) in their init state. vcmpps with
 * predicate 15 (TRUE_UQ) sets all 256 bits of ymm0; vpternlogd 0xff sets
 * all 512 bits of zmm0 and zmm16 (AVX, ZMM_Hi256, Hi16_ZMM in use). */
#define PRE_NONE  ""
#define PRE_CLEAN "vzeroupper\n\t"
#define PRE_AVX   "vcmpps $15, %%ymm0, %%ymm0, %%ymm0\n\t"
#define PRE_AVX512                                                                                 \
	"vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n\tvpternlogd $0xff, %%zmm16, %%zmm16, "         \
	"%%zmm16\n\t"

#define LOOP(name, attr, pre, pair, ...)                                                           \
	static attr void name(void *area, uint64_t rfbm, size_t k)                                 \
	{                                                                                          \
		uint32_t lo = (uint32_t)rfbm, hi = (uint32_t)(rfbm >> 32);                         \
		for (size_t i = 0; i < k; i++)                                                     \
			__asm__ volatile(pre pair                                                  \
			                 :                                                         \
			                 : [a] "r"(area), "a"(lo), "d"(hi)                         \
			                 : "memory" __VA_ARGS__);                                  \
	}

#define NOATTR
#define T_AVX    __attribute__((target("avx")))
#define T_AVX512 __attribute__((target("avx512f")))

/* The four loops of one instruction pair: clean without AVX (nothing
 * above xmm exists), clean, dirty ymm, dirty zmm. */
#define LOOPS(insn, pair)                                                                          \
	LOOP(insn##_plain, NOATTR, PRE_NONE, pair)                                                 \
	LOOP(insn##_clean, T_AVX, PRE_CLEAN, pair)                                                 \
	LOOP(insn##_dirty, T_AVX, PRE_AVX, pair, , "xmm0")                                         \
	LOOP(insn##_dirty512, T_AVX512, PRE_AVX512, pair, , "xmm0", "xmm16")

LOOPS(fx, PAIR_FX)
LOOPS(xs, PAIR_XS)
LOOPS(xso, PAIR_XSO)
LOOPS(xsc, PAIR_XSC)

/* [insn][0 plain, 1 clean, 2 dirty ymm, 3 dirty zmm] */
static const pair_loop_fn loops[4][4] = {
    {fx_plain, fx_clean, fx_dirty, fx_dirty512},
    {xs_plain, xs_clean, xs_dirty, xs_dirty512},
    {xso_plain, xso_clean, xso_dirty, xso_dirty512},
    {xsc_plain, xsc_clean, xsc_dirty, xsc_dirty512},
};

static pair_loop_fn loop_for(const struct pb_xsave_info *info, const struct pb_xsave_variant *v)
{
	int kind = v->upper == PB_XS_CLEAN ? (info->avx ? 1 : 0) : (info->avx512 ? 3 : 2);
	return loops[v->insn][kind];
}

/* Puts the AVX upper halves, opmask, ZMM_Hi256 and Hi16_ZMM in their
 * init state: xrstor of those components from a header whose XSTATE_BV
 * is 0. vzeroupper alone leaves zmm16-31 (Hi16_ZMM) and k0-7 as they
 * were, e.g. dirty from the previous dirty batch or from libc's evex
 * string functions. x87 and SSE are not requested: untouched. */
static void init_upper(const struct pb_xsave_info *info, void *init_area)
{
	uint64_t rfbm = info->rfbm & ((1ull << PB_XS_AVX) | (1ull << PB_XS_OPMASK) |
	                              (1ull << PB_XS_ZMM_HI256) | (1ull << PB_XS_HI16_ZMM));
	if (!rfbm)
		return;
	__asm__ volatile("xrstor64 (%[a])"
	                 :
	                 : [a] "r"(init_area), "a"((uint32_t)rfbm), "d"((uint32_t)(rfbm >> 32))
	                 : "memory");
}

/* Makes an area that software has written (memset, a freed block handed
 * back by the allocator) safe for xsaveopt64: a plain xsave64 writes every
 * requested component into it. xsaveopt64's modified optimization skips a
 * component the processor saw unmodified since the last xrstor64 from the
 * same linear address, trusting that the area still holds it (Intel SDM
 * Vol. 1 13.6 "Processor Tracking of XSAVE-Managed State", 13.9 "Operation
 * of XSAVEOPT"; AMD APM Vol. 4 XSAVEOPT). Without this, a zeroed area at
 * the address of an earlier xrstor64 gets XSTATE_BV[0] = 1 over an x87
 * region of zeros, and the pair's xrstor64 loads control word 0 (0x0040
 * as read back: every x87 exception unmasked, 24-bit precision); measured
 * in docs/methodology.md "SIMD state saving". */
static void area_sync(void *area, uint64_t rfbm)
{
	__asm__ volatile("xsave64 (%[a])"
	                 :
	                 : [a] "r"(area), "a"((uint32_t)rfbm), "d"((uint32_t)(rfbm >> 32))
	                 : "memory");
}

/* ---- the plumbing check --------------------------------------------- */

T_AVX static void roundtrip_ymm(enum pb_xsave_insn insn, void *area, uint64_t rfbm,
                                const uint8_t *want, uint8_t *got)
{
	uint32_t lo = (uint32_t)rfbm, hi = (uint32_t)(rfbm >> 32);
#define RT(pair)                                                                                   \
	__asm__ volatile("vmovdqu (%[w]), %%ymm0\n\t" pair "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"     \
	                 "xrstor64 (%[a])\n\t"                                                     \
	                 "vmovdqu %%ymm0, (%[g])\n\t"                                              \
	                 "vzeroupper"                                                              \
	                 :                                                                         \
	                 : [a] "r"(area), [w] "r"(want), [g] "r"(got), "a"(lo), "d"(hi)            \
	                 : "memory", "xmm0")
	switch (insn) {
	case PB_XS_XSAVE:
		RT("xsave64 (%[a])\n\t");
		break;
	case PB_XS_XSAVEOPT:
		RT("xsaveopt64 (%[a])\n\t");
		break;
	case PB_XS_XSAVEC:
		RT("xsavec64 (%[a])\n\t");
		break;
	default:
		break;
	}
#undef RT
}

int pb_xsave_roundtrip_check(enum pb_xsave_insn insn)
{
	struct pb_xsave_info info;
	pb_xsave_detect(&info);
	struct pb_xsave_variant vs[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	pb_xsave_variants(&info, true, NULL, vs);
	if ((unsigned)insn >= PB_XS_INSN_COUNT || !vs[insn * PB_XS_UPPER_COUNT].available)
		return pb_fail("%s cannot run here",
		               (unsigned)insn < PB_XS_INSN_COUNT ? pb_xsave_insn_name(insn) : "?");
	uint32_t bytes = pb_xsave_area_bytes(&info, insn);
	uint8_t *area = aligned_alloc(64, bytes);
	if (!area)
		return pb_fail("out of memory");
	memset(area, 0, bytes);
	if (insn == PB_XS_XSAVEOPT)
		area_sync(area, info.rfbm);
	uint8_t want[32], got[32];
	for (int i = 0; i < 32; i++)
		want[i] = (uint8_t)(0x11 * (i % 15 + 1) ^ i);
	memset(got, 0, sizeof got);
	size_t check = 16;
	if (insn == PB_XS_FXSAVE || !info.avx) {
		/* Legacy SSE only: xmm0's low 128 bits. */
		uint32_t lo = (uint32_t)info.rfbm, hi = (uint32_t)(info.rfbm >> 32);
		if (insn == PB_XS_FXSAVE)
			__asm__ volatile("movdqu (%[w]), %%xmm0\n\tfxsave64 (%[a])\n\t"
			                 "xorps %%xmm0, %%xmm0\n\tfxrstor64 (%[a])\n\t"
			                 "movdqu %%xmm0, (%[g])"
			                 :
			                 : [a] "r"(area), [w] "r"(want), [g] "r"(got)
			                 : "memory", "xmm0");
		else {
			/* xrstor64 restores what SAVE wrote; xmm0 cleared between */
#define RT_XMM(save)                                                                               \
	__asm__ volatile("movdqu (%[w]), %%xmm0\n\t" save " (%[a])\n\t"                            \
	                 "xorps %%xmm0, %%xmm0\n\txrstor64 (%[a])\n\t"                             \
	                 "movdqu %%xmm0, (%[g])"                                                   \
	                 :                                                                         \
	                 : [a] "r"(area), [w] "r"(want), [g] "r"(got), "a"(lo), "d"(hi)            \
	                 : "memory", "xmm0")
			if (insn == PB_XS_XSAVE)
				RT_XMM("xsave64");
			else if (insn == PB_XS_XSAVEOPT)
				RT_XMM("xsaveopt64");
			else
				RT_XMM("xsavec64");
#undef RT_XMM
		}
	} else {
		roundtrip_ymm(insn, area, info.rfbm, want, got);
		check = 32;
	}
	free(area);
	if (memcmp(want, got, check) != 0)
		return pb_fail("%s did not bring back the %zu bytes of %s",
		               pb_xsave_insn_name(insn), check, check == 32 ? "ymm0" : "xmm0");
	return 0;
}

/* ---- the timing ------------------------------------------------------ */

struct slot {
	struct pb_xsave_case *c;
	pair_loop_fn fn;
	void *area;
};

static uint64_t time_batch(const struct pb_xsave_info *info, struct slot *s, void *init_area,
                           size_t k)
{
	if (s->c->v.upper == PB_XS_CLEAN)
		init_upper(info, init_area);
	pb_stamp t0 = pb_timer_begin();
	s->fn(s->area, s->c->rfbm, k);
	return pb_timer_end(t0);
}

/* The harness's context (include/primbench/harness.h). */
struct run {
	const struct pb_xsave_info *info;
	struct slot *slots;
	void *init_area;
};

/* The batch callback: k pairs of slot i (its upper state set up first,
 * untimed). */
static int run_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                     struct pb_harness_batch *out)
{
	const struct run *x = ctx;
	(void)thread;
	(void)phase;
	out->ticks = (double)time_batch(x->info, &x->slots[i], x->init_area, k);
	return 0;
}

/* Calibration (the least of three single pairs after a discarded one
 * gives k), warm-up and interleaved rounds on the harness; the samples and
 * summaries go into the slots' cases. */
static int run_slots(const struct pb_xsave_params *p, struct run *x, size_t nslots)
{
	struct pb_harness_contender hc[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	for (size_t i = 0; i < nslots; i++)
		hc[i] = (struct pb_harness_contender){.max_k = MAX_BATCH_PAIRS};
	uint64_t rng = pb_seed_or_default(p->seed);
	struct pb_harness_params hp = {
	    .n_contenders = nslots,
	    .contenders = hc,
	    .time_batch = run_batch,
	    .ctx = x,
	    .warmup_samples = p->warmup_samples,
	    .min_samples = p->min_samples,
	    .max_samples = p->max_samples,
	    .budget_s = p->budget_s,
	    .stop = p->stop,
	    .stop_check = PB_HARNESS_STOP_AFTER_KEPT,
	    .rng = &rng,
	    .overhead_ticks = pb_timer_info()->overhead_ticks,
	};
	struct pb_harness_result hr;
	if (pb_harness_run(&hp, &hr) != 0)
		return -1;
	for (size_t i = 0; i < nslots; i++) {
		struct pb_xsave_case *c = x->slots[i].c;
		struct pb_harness_samples *h = &hr.c[i];
		c->batch_ticks = h->ticks;
		c->batch_calls = h->calls;
		h->ticks = NULL;
		h->calls = NULL;
		c->n_samples = h->n_samples;
		c->migrations = (unsigned)h->migrations;
		c->ticks_per_op = h->per_call;
		c->outliers = h->outliers;
	}
	pb_harness_result_free(&hr);
	return 0;
}

int pb_xsave_run(const struct pb_xsave_params *p, struct pb_xsave_result *r)
{
	memset(r, 0, sizeof *r);
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample counts: min %zu, max %zu", p->min_samples,
		               p->max_samples);
	pb_xsave_detect(&r->info);
	const struct pb_xsave_info *info = &r->info;
	struct pb_xsave_variant vs[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	pb_xsave_variants(info, true, NULL, vs);
	struct slot slots[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	size_t nslots = 0;
	int rc = 0;
	void *init_area = NULL;
	if (info->osxsave) {
		/* A zeroed header: XSTATE_BV = 0, XCOMP_BV = 0 (standard form). */
		uint32_t bytes = pb_xsave_area_bytes(info, PB_XS_XSAVE);
		init_area = aligned_alloc(64, bytes);
		if (!init_area)
			return pb_fail("out of memory");
		memset(init_area, 0, bytes);
		/* xrstor loads MXCSR whenever SSE or AVX is requested, even
		 * for a component it initializes: keep the current one (a 0
		 * would unmask every floating-point exception). */
		uint32_t mxcsr;
		__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
		memcpy((uint8_t *)init_area + 24, &mxcsr, sizeof mxcsr);
	}
	for (size_t i = 0; i < PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT; i++) {
		struct pb_xsave_case *c = &r->cases[r->n_cases++];
		c->v = vs[i];
		c->rfbm = c->v.insn == PB_XS_FXSAVE ? 3 : info->rfbm;
		c->area_bytes = pb_xsave_area_bytes(info, c->v.insn);
		if (!c->v.available)
			continue;
		struct slot *s = &slots[nslots++];
		s->c = c;
		s->fn = loop_for(info, &c->v);
		s->area = aligned_alloc(64, c->area_bytes);
		if (!s->area) {
			rc = pb_fail("out of memory");
			goto out;
		}
		memset(s->area, 0, c->area_bytes);
		if (c->v.insn == PB_XS_XSAVEOPT)
			area_sync(s->area, c->rfbm);
	}

	struct run x = {.info = info, .slots = slots, .init_area = init_area};
	rc = run_slots(p, &x, nslots);
	r->interrupted = p->stop && *p->stop;
	if (rc != 0)
		goto out;
	pb_xsave_notes(r);
out:
	for (size_t i = 0; i < nslots; i++)
		free(slots[i].area);
	free(init_area);
	if (rc != 0)
		pb_xsave_result_free(r);
	return rc;
}
