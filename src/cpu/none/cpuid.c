/* cpuid.c (no arch support) - nothing is detected from the CPU itself:
 * no features (only generic kernels are usable), identity from
 * /proc/cpuinfo, cache sizes from the OS sources only.
 */
#include <sys/utsname.h>

#include "cpu/cpu_arch.h"

pb_features pb_arch_features_detect(void)
{
	return 0;
}

void pb_arch_ident(struct pb_cpu_ident *out)
{
	(void)out; /* pb_cpu_ident() fills the blanks from /proc/cpuinfo */
}

const char *pb_arch_cache_sizes(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
	(void)line_bytes;
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		bytes[l] = 0;
	return NULL;
}

const char *pb_arch_isa(void)
{
	static struct utsname u;
	if (!u.machine[0] && uname(&u) != 0)
		return "unknown";
	return u.machine;
}

uint64_t pb_arch_midr(void)
{
	return 0;
}

double pb_arch_counter_hz(void)
{
	return 0;
}

unsigned pb_arch_dczva_block_bytes(void)
{
	return 0;
}
