/* tsc.c (arm64) - the generic timer's virtual counter as the clock: the
 * ordered CNTVCT_EL0 read, the hot path, CNTFRQ_EL0 as the stated
 * frequency, and the dependent-add chain.
 *
 * Both ends use the same sequence, isb; mrs CNTVCT_EL0; isb. The Arm ARM
 * (DDI 0487, "The Generic Timer in AArch64 state", sections "The physical
 * counter" / "The virtual counter": D11.2.1-2 in issue F, D12.2 in later
 * issues) says reads of the counter "can occur speculatively and out of
 * order relative to other instructions executed on the same PE", and that
 * an ISB orders them: the ISB before keeps the read from running ahead of
 * the timed code (or, at the start, of anything before it); the ISB after
 * keeps later instructions, loads included, from starting before the
 * read. (FEAT_ECV's self-synchronized CNTVCTSS_EL0 would spare the first
 * ISB; it is not used, so that every arm64 machine runs the same code.)
 *
 * The counter runs at a fixed frequency, CNTFRQ_EL0 (1 GHz from Armv8.6,
 * commonly 24-100 MHz before): ticks are counter ticks at that frequency,
 * not core cycles. Its rate is fixed by architecture (Arm ARM "About the
 * Generic Timer"), so no invariance check as on x86.
 *
 * Measurement trap, as with the TSC: stores still draining at the end
 * read are not in the interval; kernels with non-temporal stores end with
 * a barrier.
 */
#include <stdio.h>

#include "primbench/timer.h"
#include "timer/timer_internal.h"

static inline __attribute__((always_inline)) uint64_t cntvct_ordered(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
	return v;
}

bool pb_tsc_arch_present(void)
{
	return true;
}

const char *pb_tsc_arch_unusable(void)
{
	return NULL;
}

const struct pb_tsc_arch_names *pb_tsc_arch_names(void)
{
	static const struct pb_tsc_arch_names n = {
	    "cntvct_el0", "cntvct_el0 (isb; mrs cntvct_el0; isb at both ends)", "cntvct_ticks"};
	return &n;
}

double pb_tsc_arch_stated_hz(char *desc, size_t desc_len)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	snprintf(desc, desc_len, "CNTFRQ_EL0");
	return (double)(v & 0xffffffffu); /* bits 31:0; 0 if firmware left it unset */
}

uint64_t pb_tsc_read(void)
{
	return cntvct_ordered();
}

pb_stamp pb_timer_begin(void)
{
	if (__builtin_expect(pb_timer_use_tsc, 1))
		return cntvct_ordered();
	return pb_clock_raw_ns();
}

uint64_t pb_timer_end(pb_stamp start)
{
	uint64_t now = __builtin_expect(pb_timer_use_tsc, 1) ? cntvct_ordered() : pb_clock_raw_ns();
	/* the counter is common to all CPUs, but a 0 beats 2^64 - a few */
	return now > start ? now - start : 0;
}

void pb_tsc_cpuid_freq(double *hz15, double *hz16, char *desc, size_t desc_len)
{
	*hz15 = 0;
	*hz16 = 0;
	snprintf(desc, desc_len, "no cpuid on arm64 (CNTFRQ_EL0 instead)");
}

/* Register-register adds, one per core cycle on a dependent chain (as
 * the x86 chain; the estimate is only an estimate). */
uint64_t pb_arch_add_chain(uint64_t n)
{
	uint64_t acc = 0, one = 1;
	uint64_t iters = n / 100 + 1;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile(".rept 100\n\tadd %[acc], %[acc], %[one]\n\t.endr"
		                 : [acc] "+r"(acc)
		                 : [one] "r"(one));
	return iters * 100;
}
