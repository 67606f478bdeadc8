/* x86_64/kernel_arch.c - the kernel suite on x86-64: the module's home. */
#include "primbench/kernel_suite.h"

bool pb_kernel_arch_supported(const char **why)
{
	if (why)
		*why = NULL;
	return true;
}
