/* tsc.c (no arch support) - no TSC: the hot path reads CLOCK_MONOTONIC_RAW
 * and the TSC hooks report absence.
 */
#include <stdio.h>

#include "primbench/timer.h"
#include "timer/timer_internal.h"

bool pb_tsc_arch_present(void)
{
	return false;
}

const char *pb_tsc_arch_unusable(void)
{
	return "no TSC on this architecture build";
}

const struct pb_tsc_arch_names *pb_tsc_arch_names(void)
{
	static const struct pb_tsc_arch_names n = {"none", "no counter", "ns"};
	return &n;
}

double pb_tsc_arch_stated_hz(char *desc, size_t desc_len)
{
	snprintf(desc, desc_len, "none");
	return 0;
}

uint64_t pb_tsc_read(void)
{
	return 0;
}

pb_stamp pb_timer_begin(void)
{
	return pb_clock_raw_ns();
}

uint64_t pb_timer_end(pb_stamp start)
{
	uint64_t now = pb_clock_raw_ns();
	return now > start ? now - start : 0;
}

void pb_tsc_cpuid_freq(double *hz15, double *hz16, char *desc, size_t desc_len)
{
	*hz15 = 0;
	*hz16 = 0;
	snprintf(desc, desc_len, "no cpuid on this architecture build");
}

uint64_t pb_arch_add_chain(uint64_t n)
{
	(void)n;
	return 0;
}
