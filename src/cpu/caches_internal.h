/* caches_internal.h - the cache-size sanity rules, apart from the sources,
 * so tests can feed them synthetic figures.
 */
#ifndef PRIMBENCH_CACHES_INTERNAL_H
#define PRIMBENCH_CACHES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/cpu.h"

#define PB_KIB ((uint64_t)1024)
#define PB_MIB (PB_KIB * 1024)

/* The rules' limits (docs/methodology.md, "Cache sizes"). */
#define PB_L1D_MIN_BYTES      (8 * PB_KIB)
#define PB_L1D_MAX_BYTES      (1 * PB_MIB)
#define PB_L2_MAX_BYTES       (64 * PB_MIB)
#define PB_LLC_PER_CPU_BYTES  (32 * PB_MIB)
#define PB_LLC_FLOOR_BYTES    (128 * PB_MIB)
#define PB_LLC_RAM_DIVISOR    8
#define PB_L1D_FALLBACK_BYTES (32 * PB_KIB)
#define PB_L2_FALLBACK_BYTES  (1 * PB_MIB)
#define PB_LLC_FALLBACK_BYTES (32 * PB_MIB)
/* The smallest override pb_cache_override_check() accepts. */
#define PB_OVERRIDE_MIN_BYTES PB_KIB

/* Checks one figure. lower_bytes is the size the sources gave for the level
 * below (its plausible figure or its fallback, never an override; 0 for
 * L1d); ram_bytes 0 = unknown (that rule is skipped). Returns true,
 * or false with a reason ("more than 32 MiB per online CPU ...") in why. */
bool pb_cache_plausible(enum pb_cache_level level, uint64_t bytes, uint64_t lower_bytes,
                        uint64_t ram_bytes, int online_cpus, char *why, size_t why_len);

/* Applies the rules to every source's figures (bytes[level][source]; only
 * the cpuid, sysfs, sysconf and hwloc columns are read, 0 = no figure) and
 * chooses one figure per level: override, else the first plausible of
 * sysfs > cpuid > hwloc > sysconf, else the fallback. Each level is checked
 * against what the sources gave for the level below, not against an
 * override of it; an override out of order with its neighbours gets a note.
 * Fills out->level[] (line_bytes is left alone). Pure. */
void pb_cache_choose(struct pb_cache_info *out, const uint64_t bytes[PB_CACHE_LEVELS][PB_SRC_COUNT],
                     const uint64_t override_bytes[PB_CACHE_LEVELS], uint64_t ram_bytes,
                     int online_cpus);

#endif
