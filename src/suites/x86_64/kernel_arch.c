/* x86_64/kernel_arch.c - the kernel suite on x86-64, the module's home:
 * the upper states of the fpu op (set from user space before an ioctl,
 * since what kernel_fpu_begin saves is the calling task's state) and the
 * TSC read that times the CALL loops. */
#include "primbench/kernel_suite.h"

#include <cpuid.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

bool pb_kernel_arch_supported(const char **why)
{
	if (why)
		*why = NULL;
	return true;
}

/* XCR0 (XFEATURE_ENABLED_MASK) bits, Intel SDM Vol. 1 13.3 */
#define XCR0_SSE      (1ull << 1)
#define XCR0_AVX      (1ull << 2)
#define XCR0_OPMASK   (1ull << 5)
#define XCR0_ZMM_HI   (1ull << 6)
#define XCR0_HI16_ZMM (1ull << 7)
#define XCR0_UPPER    (XCR0_AVX | XCR0_OPMASK | XCR0_ZMM_HI | XCR0_HI16_ZMM)

/* XCR0, or 0 without OSXSAVE (xgetbv would raise #UD). */
static uint64_t xcr0(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1))
		return 0;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static bool cpu_avx(void)
{
	unsigned a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (c >> 28 & 1);
}

static bool cpu_avx512f(void)
{
	unsigned a, b, c, d;
	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 16 & 1);
}

bool pb_kernel_upper_possible(uint32_t u, const char **why)
{
	const char *no = NULL;
	uint64_t x = xcr0();
	if (u == PB_KU_CLEAN)
		no = NULL;
	else if (u != PB_KU_DIRTY && u != PB_KU_DIRTY512)
		no = "no such upper state";
	else if (!cpu_avx())
		no = "the CPU lacks AVX";
	else if ((x & (XCR0_SSE | XCR0_AVX)) != (XCR0_SSE | XCR0_AVX))
		no = "the OS does not enable AVX state (XCR0 bits 1-2)";
	else if (u == PB_KU_DIRTY512 && !cpu_avx512f())
		no = "the CPU lacks AVX-512F";
	else if (u == PB_KU_DIRTY512 && (x & XCR0_UPPER) != XCR0_UPPER)
		no = "the OS does not enable AVX-512 state (XCR0 bits 5-7)";
	if (why)
		*why = no;
	return !no;
}

/* An XSAVE area in standard form whose header (bytes 512-575) is all
 * zero: XSTATE_BV 0 puts every requested component in its init state,
 * XCOMP_BV 0 is the standard form xrstor needs. Only the legacy region
 * and the header are read for components whose XSTATE_BV bit is 0. */
static alignas(64) uint8_t init_area[4096];

static void set_clean(void)
{
	/* XCR0 read once: cpuid in the CALL loop would add its own cost (a
	 * VM exit in a guest) to every ioctl timed */
	static uint64_t rfbm;
	static bool known;
	if (!known) {
		rfbm = xcr0() & XCR0_UPPER;
		known = true;
	}
	if (!rfbm)
		return;
	/* xrstor loads MXCSR (legacy region, byte 24) whenever AVX is
	 * requested, even from an init header: the current one goes there,
	 * or 0 would unmask every SSE exception */
	uint32_t mxcsr;
	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	memcpy(init_area + 24, &mxcsr, sizeof mxcsr);
	__asm__ volatile("xrstor64 (%[a])"
	                 :
	                 : [a] "r"(init_area), "a"((uint32_t)rfbm), "d"((uint32_t)(rfbm >> 32))
	                 : "memory");
}

/* vcmpps with predicate 15 (TRUE_UQ) sets all 256 bits of ymm0. No
 * target("avx") on these two: with it gcc ends the function with a
 * vzeroupper (its AVX-SSE transition guard), which puts the upper halves
 * back in their init state; the assembler takes the instructions as they
 * are, and the caller has checked that the CPU has them. */
static void set_dirty(void)
{
	__asm__ volatile("vcmpps $15, %%ymm0, %%ymm0, %%ymm0" ::: "xmm0");
}

/* vpternlogd 0xff sets all 512 bits of zmm0 and zmm16 */
static void set_dirty512(void)
{
	/* xmm16 cannot be named a clobber without AVX-512 enabled for the
	 * function; without it the compiler never allocates xmm16 either */
	__asm__ volatile("vpternlogd $0xff, %%zmm0, %%zmm0, %%zmm0\n\t"
	                 "vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16" ::
	                     : "xmm0");
}

void pb_kernel_set_upper(uint32_t u)
{
	if (u == PB_KU_DIRTY)
		set_dirty();
	else if (u == PB_KU_DIRTY512)
		set_dirty512();
	else
		set_clean();
}

uint64_t pb_kernel_tsc_now(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}
