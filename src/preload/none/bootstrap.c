/* bootstrap.c (no arch support) - the kernels that serve calls before the
 * library is ready, in plain C: the catalogue's `bytes` kernels (byte
 * loops; forward, or backward for a memmove whose destination lies inside
 * its source; src/kernels/generic/bytes.c). No state, nothing to
 * initialise, async-signal-safe; the kernels' objects are compiled so the
 * loops stay loops (a loop that became a call of memcpy would call back
 * into this library).
 */
#include "kernels/generic/protos.h"

/* After protos.h: the rows become prototypes. */
#include "kernels/generic/generic_rows.h"
#include "preload.h"

/* pb_boot_memset, pb_boot_memcpy, pb_boot_memmove */
PB_FORWARD_OPS(pb_boot_, , pb_, _bytes)
