/* fuzz_kernels_large.c - fuzz_kernels.c at sizes above 64 KiB: up to three
 * times the largest threshold of any kernel (fuzz_kernels.c says why the
 * two are apart). */
#define PB_FUZZ_LARGE 1
#include "fuzz_kernels.c"
