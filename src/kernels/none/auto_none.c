/* auto_none.c - the auto kernels' entry points where no architecture code
 * exists: the policy's dispatch itself (generic/auto.c). */
#include "auto_internal.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

/* pb_memset_auto, pb_memcpy_auto, pb_memmove_auto */
PB_FORWARD_OPS(pb_, _auto, pb_auto_, _dispatch)
