/* aarch64/xsave.c - the xsave suite on arm64: there is nothing to run.
 * XSAVE and its relatives are x86 instructions, and arm64 has no user-mode
 * instruction that saves or restores the FP/SIMD or SVE register state as
 * a block: the kernel saves it on a context switch or signal (Linux
 * Documentation/arch/arm64/sve.rst), so its cost is the kernel's, outside
 * what a user-mode loop can time. The generic file with this reason (one
 * line after "primbench: xsave: "). */
#define NOT_X86 "x86-64 only: on arm64 the kernel saves FP/SIMD and SVE state"

#include "../none/xsave.c"
