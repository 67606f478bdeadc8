/* fpenv.h - the floating-point and SIMD state a kernel or a suite must
 * leave as it found it, read and compared (x86-64 only): the x87 control
 * word and MXCSR's control bits exactly, and no AVX (XINUSE bit 2) or
 * ZMM_Hi256 (bit 6) state in use that was not in use before (the
 * vzeroupper discipline; Intel SDM Vol. 1 14.8 "Accessing YMM registers").
 * XINUSE is read with XGETBV(ECX=1) where CPUID.(EAX=0DH,ECX=1):EAX[2]
 * says it exists (Intel SDM Vol. 1 13.6 "Processor Tracking of
 * XSAVE-Managed State"). Shared by tests/test_fpenv.c and the kernels'
 * fuzz target (tests/fuzz/fuzz_kernels.c): call detect() once, then
 * prepare() before the call, read_env() after it, env_change() to judge
 * and reset_env() to restore the defaults. */
#ifndef PB_TESTS_FPENV_H
#define PB_TESTS_FPENV_H

#if defined(__x86_64__)
#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Not the defaults (0x037F, 0x1F80): precision control 53 bits, every
 * exception masked; MXCSR with FTZ (bit 15) and DAZ (bit 6), every
 * exception masked, round to nearest. */
#define TEST_FCW   0x027Fu
#define TEST_MXCSR 0x9FC0u

/* DAZ, the exception masks, rounding control, FTZ. */
#define MXCSR_CONTROL 0xFFC0u

#define XINUSE_AVX       (1ull << 2)
#define XINUSE_ZMM_HI256 (1ull << 6)

struct fpenv {
	uint16_t fcw;
	uint32_t mxcsr;
	uint64_t xinuse; /* valid when have_xinuse */
};

static bool have_avx, have_xinuse;

static inline void detect(void)
{
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) < 0xD)
		return;
	__cpuid_count(1, 0, a, b, c, d);
	if (!(c >> 27 & 1)) /* OSXSAVE */
		return;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	have_avx = (c >> 28 & 1) && (lo & 6) == 6;
	__cpuid_count(0xD, 1, a, b, c, d);
	have_xinuse = a >> 2 & 1;
}

static inline uint64_t xinuse(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return (uint64_t)hi << 32 | lo;
}

/* Sets the test's control words, puts the x87 state in use, and cleans
 * the upper halves (vzeroupper), then reads what the call must keep. */
__attribute__((target("avx"))) static inline void prepare_avx(void)
{
	__asm__ volatile("vzeroupper");
}

static inline void prepare(struct fpenv *e)
{
	uint16_t fcw = TEST_FCW;
	uint32_t mxcsr = TEST_MXCSR;
	__asm__ volatile("fldcw %0" : : "m"(fcw));
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
	volatile long double x = 1.0L;
	x = x / 3.0L; /* the x87 state in use: FIP/FDP/FOP set */
	if (have_avx)
		prepare_avx();
	__asm__ volatile("fnstcw %0" : "=m"(e->fcw));
	__asm__ volatile("stmxcsr %0" : "=m"(e->mxcsr));
	e->xinuse = have_xinuse ? xinuse() : 0;
}

static inline void read_env(struct fpenv *e)
{
	e->xinuse = have_xinuse ? xinuse() : 0;
	__asm__ volatile("fnstcw %0" : "=m"(e->fcw));
	__asm__ volatile("stmxcsr %0" : "=m"(e->mxcsr));
}

/* Restores the defaults so a failed check does not leak into the next. */
static inline void reset_env(void)
{
	uint16_t fcw = 0x037F;
	uint32_t mxcsr = 0x1F80;
	__asm__ volatile("fldcw %0" : : "m"(fcw));
	__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
}

/* What is wrong, or NULL: "x87 control word 0x027f before, 0x0040 after". */
static inline const char *env_change(const struct fpenv *before, const struct fpenv *after)
{
	static char why[160];
	uint64_t new_bits = after->xinuse & ~before->xinuse & (XINUSE_AVX | XINUSE_ZMM_HI256);
	if (after->fcw != before->fcw)
		snprintf(why, sizeof why, "x87 control word 0x%04x before, 0x%04x after",
		         before->fcw, after->fcw);
	/* MXCSR's control bits; its flags (bits 0-5) are sticky results of
	 * arithmetic, set by any inexact operation (Intel SDM Vol. 1 10.2.3). */
	else if ((after->mxcsr & MXCSR_CONTROL) != (before->mxcsr & MXCSR_CONTROL))
		snprintf(why, sizeof why, "MXCSR control bits 0x%04x before, 0x%04x after",
		         before->mxcsr & MXCSR_CONTROL, after->mxcsr & MXCSR_CONTROL);
	else if (new_bits)
		snprintf(why, sizeof why,
		         "XINUSE 0x%llx before, 0x%llx after: %s left in use (no vzeroupper)",
		         (unsigned long long)before->xinuse, (unsigned long long)after->xinuse,
		         new_bits == (XINUSE_AVX | XINUSE_ZMM_HI256) ? "AVX and ZMM_Hi256"
		         : new_bits & XINUSE_AVX                     ? "AVX (ymm upper halves)"
		                                                     : "ZMM_Hi256");
	else
		return NULL;
	return why;
}

#endif /* __x86_64__ */

#endif
