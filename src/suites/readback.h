/* readback.h - the consumer loop of --then-read (internal): reads what a
 * kernel just wrote with the widest loads the CPU has, so the read-back's
 * time says where the bytes sit, as far as a load loop can (an 8-byte
 * loop, tried first, read a hot 4 KiB page in ~720 ticks, its own speed,
 * in every cache state). One file per architecture: x86_64/readback.c (AVX-512,
 * AVX2 or SSE2 loads, chosen at run time from the usable features),
 * aarch64/readback.c (LDP of q-register pairs with asimd, else LDP of x
 * registers), none/readback.c (8-byte loads, portable C).
 */
#ifndef PRIMBENCH_SUITES_READBACK_H
#define PRIMBENCH_SUITES_READBACK_H

#include <stddef.h>
#include <stdint.h>

/* Reads every byte of [p, p + n) (any alignment, any n) and returns a
 * value that depends on all of them, so no load can be left out. */
typedef uint64_t (*pb_read_back_fn)(const void *p, size_t n);

/* The widest read-back loop usable with pb_cpu_features() (hidden features
 * respected); *what gets its description, e.g. "64-byte loads (avx512f)".
 * Never fails: the last resort is 8-byte loads. */
pb_read_back_fn pb_read_back_pick(const char **what);

#endif
