/* bootstrap.c (arm64) - the kernels that serve calls before the library is
 * ready: the catalogue's portable `gpr_unrolled` kernels (64-bit loads and
 * stores, one 64-byte block per iteration, which GCC emits as LDP/STP of x
 * registers; memmove forward, or backward when the destination lies
 * inside its source; src/kernels/generic/gpr_unrolled.c). arm64 has no
 * one-instruction copy like x86's rep movsb outside FEAT_MOPS, and using
 * MOPS, SVE or a tuned kernel would need the feature detection that has
 * not run yet. These need none: no state, nothing to initialise, no other
 * function, async-signal-safe, and compiled so the loops stay loops (a
 * loop that became a call of memcpy would call back into this library).
 */
#include "kernels/generic/protos.h"

/* After protos.h: the rows become prototypes. */
#include "kernels/generic/generic_rows.h"
#include "preload.h"

/* pb_boot_memset, pb_boot_memcpy, pb_boot_memmove */
PB_FORWARD_OPS(pb_boot_, , pb_, _gpr_unrolled)
