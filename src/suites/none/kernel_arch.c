/* none/kernel_arch.c - the kernel suite on a build for no particular
 * architecture (or another one): primbench's module is written for
 * x86-64 (kmod/), so `primbench kernel` says so and stops (KMOD_NOT_HERE;
 * an architecture's own file may define it first and include this one).
 * No upper state is possible and there is no TSC to read. */
#include "primbench/kernel_suite.h"

#ifndef KMOD_NOT_HERE
#define KMOD_NOT_HERE "the module (kmod/) exists for x86-64 only; this build is not an x86-64 one"
#endif

bool pb_kernel_arch_supported(const char **why)
{
	if (why)
		*why = KMOD_NOT_HERE;
	return false;
}

bool pb_kernel_upper_possible(uint32_t u, const char **why)
{
	(void)u;
	if (why)
		*why = KMOD_NOT_HERE;
	return false;
}

void pb_kernel_set_upper(uint32_t u)
{
	(void)u;
}

uint64_t pb_kernel_tsc_now(void)
{
	return 0;
}
