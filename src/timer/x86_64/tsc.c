/* tsc.c (x86-64) - the serialized TSC read, the hot path, cpuid's TSC
 * frequency leaves, and the dependent-add chain.
 *
 * Both ends use the same sequence, lfence; rdtsc; lfence (Intel SDM Vol. 2B
 * RDTSC; AMD APM Vol. 3 RDTSC, LFENCE dispatch-serializing when
 * DE_CFG[1] is set, as Linux sets it). rdtscp is not used even where cpuid
 * reports it: lfence; rdtsc already waits for earlier instructions as
 * rdtscp does, neither waits for stores to drain, the same code on every
 * machine keeps results comparable, and the begin/end pair is symmetric so
 * pb_timer_init()'s overhead figure is the cost the callers pay.
 *
 * Measurement trap: stores still in the store buffer at the end read are
 * not in the interval; kernels with non-temporal stores end with sfence.
 */
#include <cpuid.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "primbench/timer.h"
#include "timer/timer_internal.h"

static inline __attribute__((always_inline)) uint64_t rdtsc_serialized(void)
{
	unsigned lo, hi;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

bool pb_tsc_arch_present(void)
{
	return true;
}

/* The TSC is the clock only where cpuid says its rate is constant
 * (invariant TSC, SDM Vol. 3B 18.17.1) and the user did not hide that. */
const char *pb_tsc_arch_unusable(void)
{
	if (pb_cpu_features_hidden() & PB_F(INVARIANT_TSC))
		return "invariant_tsc hidden (PRIMBENCH_HIDE_FEATURES or --hide-features)";
	if (!(pb_cpu_features_detected() & PB_F(INVARIANT_TSC)))
		return "cpuid 0x80000007:EDX[8] (invariant TSC) is clear: the TSC rate may change";
	return NULL;
}

const struct pb_tsc_arch_names *pb_tsc_arch_names(void)
{
	static const struct pb_tsc_arch_names n = {
	    "tsc", "tsc (lfence; rdtsc; lfence at both ends)", "tsc_ticks"};
	return &n;
}

double pb_tsc_arch_stated_hz(char *desc, size_t desc_len)
{
	snprintf(desc, desc_len, "none (cpuid leaves 0x15/0x16 instead)");
	return 0;
}

uint64_t pb_tsc_read(void)
{
	return rdtsc_serialized();
}

pb_stamp pb_timer_begin(void)
{
	if (__builtin_expect(pb_timer_use_tsc, 1))
		return rdtsc_serialized();
	return pb_clock_raw_ns();
}

uint64_t pb_timer_end(pb_stamp start)
{
	uint64_t now =
	    __builtin_expect(pb_timer_use_tsc, 1) ? rdtsc_serialized() : pb_clock_raw_ns();
	/* A migration between CPUs whose TSCs differ by a few ticks can make
	 * `now` precede `start`: report 0, not 2^64 - a few. */
	return now > start ? now - start : 0;
}

void pb_tsc_cpuid_freq(double *hz15, double *hz16, char *desc, size_t desc_len)
{
	unsigned a, b, c, d;
	unsigned max = __get_cpuid_max(0, NULL);
	*hz15 = 0;
	*hz16 = 0;
	if (max < 0x15) {
		snprintf(desc, desc_len, "cpuid has no leaf 0x15/0x16 (highest basic leaf %#x)",
		         max);
		return;
	}
	/* Leaf 0x15: TSC = crystal (ECX Hz) * EBX / EAX; ECX 0 means the
	 * crystal is not enumerated (SDM Vol. 2A, CPUID leaf 15H). */
	unsigned a15, b15, c15, base16 = 0;
	__cpuid_count(0x15, 0, a15, b15, c15, d);
	if (a15 && b15 && c15)
		*hz15 = (double)c15 * b15 / a15;
	if (max >= 0x16) {
		/* Leaf 0x16 EAX[15:0]: processor base frequency in MHz. */
		__cpuid_count(0x16, 0, a, b, c, d);
		base16 = a & 0xffff;
		*hz16 = (double)base16 * 1e6;
	}
	if (!a15 && !b15 && !c15 && !base16)
		snprintf(desc, desc_len, "cpuid leaves 0x15/0x16 exist but are zero");
	else if (max >= 0x16)
		snprintf(desc, desc_len, "cpuid 0x15: EAX=%u EBX=%u ECX=%u; 0x16: base %u MHz", a15,
		         b15, c15, base16);
	else
		snprintf(desc, desc_len, "cpuid 0x15: EAX=%u EBX=%u ECX=%u", a15, b15, c15);
}

/* Register-register adds: Golden Cove and later rename-fold dependent adds
 * of small immediates (add $1 chains run faster than one per cycle), so
 * the addend is a register. The loop counter is off the chain and
 * overlaps with it. */
uint64_t pb_arch_add_chain(uint64_t n)
{
	uint64_t acc = 0, one = 1;
	uint64_t iters = n / 100 + 1;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile(".rept 100\n\tadd %[one], %[acc]\n\t.endr"
		                 : [acc] "+r"(acc)
		                 : [one] "r"(one));
	return iters * 100;
}
