/* primbench/selftest.h - correctness checks of one kernel, shared by
 * `primbench selftest` and tests/test_kernels.c.
 *
 * Each case calls the kernel once and compares the destination, and the
 * canary bytes around it, with the reference (dst[i] = (unsigned char)c,
 * or dst[i] = src[i] as src was before the call); the destination is
 * pre-filled with random bytes that differ from the expected ones, so a
 * byte the kernel skips is always seen; the return value must be dst.
 * Every size is tried with the buffers in the middle of a mapping (canaries
 * on both sides), ending exactly at a PROT_NONE page and starting right
 * after one (case M7); memset with the values 0x00, 0xA5 and 0xFF, passed
 * as the negative ints memset(p, -1, n) style callers use.
 *
 * Grids (sizes in bytes; "offsets" are dst and src offsets from a page
 * boundary; memset has no src):
 *   QUICK     0..256 at every dst offset 0..63 x src offsets {0,1,15,32,63};
 *             257..1024 at {0,63}; 2^k + {-65,-64,-63,-1,0,1,63,64,65} up
 *             to 1 MiB at {0,63}. About 0.1 s per kernel: the CLI default.
 *   STANDARD  0..256 at every dst x every src offset 0..63; 257..1024 at
 *             {0,1,15,32,63}; 2^k + the same deltas up to 4 MiB at {0,1,63}.
 *             The `make test` grid.
 *   FULL      0..1024 at every dst x every src offset 0..63; 2^k + deltas up
 *             to 4 MiB at {0,1,15,32,63}.
 *
 * memmove kernels get the memcpy grid (separate buffers), then case M6's
 * overlaps within one buffer: its example (11 22 33 44 00, 4 bytes moved to
 * src + 1, gives 11 11 22 33 44); n = 0..512 at every dst - src in
 * -128..128; 2^k + the deltas up to 64 KiB + 65 at dst - src in {+-1, +-63,
 * +-64, +-4096}. The lower of the two pointers sits at the page offsets
 * {0} (QUICK), {0,63} (STANDARD), {0,1,15,32,63} (FULL) for n <= 512, and
 * {0,63}, {0,1,63}, {0,1,15,32,63} above; every case also ends at the upper
 * guard page and starts after the lower one (QUICK: for n <= 512 only at
 * |dst - src| in {0,1,7,8,31,32,63,64,128}). Every byte of the window
 * around both, outside [dst, dst + n), must keep its value, and the
 * pre-fill differs from itself at distance |dst - src|, so a copy in the
 * wrong direction is seen.
 */
#ifndef PRIMBENCH_SELFTEST_H
#define PRIMBENCH_SELFTEST_H

#include <stdint.h>

#include "primbench/kernels.h"

enum pb_selftest_level { PB_SELFTEST_QUICK, PB_SELFTEST_STANDARD, PB_SELFTEST_FULL };

/* "quick", "standard", "full". */
const char *pb_selftest_level_name(enum pb_selftest_level lvl);

struct pb_selftest_result {
	uint64_t cases;   /* kernel calls checked */
	double seconds;   /* wall time of the whole check */
	char detail[320]; /* on failure: the case and its first difference; else "" */
};

/* Checks k over the level's grid. The kernel must be usable here
 * (pb_kernel_usable with pb_cpu_features()); an unusable one is an error,
 * never run. Returns 0 when every case passed, 1 on the first failing case
 * (out->detail describes it), -1 on an error with pb_error() set. */
int pb_selftest_kernel(const struct pb_kernel *k, enum pb_selftest_level lvl,
                       struct pb_selftest_result *out);

#endif
