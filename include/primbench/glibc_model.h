/* primbench/glibc_model.h - a model of glibc 2.36 x86-64's memset and
 * memcpy paths and their thresholds (the analysis module): which path glibc
 * takes at a size, the thresholds this process's ld.so uses, and the
 * GLIBC_TUNABLES line closest to a policy (docs/breakeven.md, "glibc").
 * The model is written out in src/analysis/glibc_model.c, from glibc's
 * memset-/memmove-vec-unaligned-erms.S and dl-cacheinfo.h. */
#ifndef PRIMBENCH_GLIBC_MODEL_H
#define PRIMBENCH_GLIBC_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/kernels.h"
#include "primbench/policy.h"

/* glibc's thresholds as it runs here (from `ld.so --list-diagnostics`:
 * x86.cpu_features.rep_movsb_threshold, .rep_stosb_threshold,
 * .non_temporal_threshold, .rep_movsb_stop_threshold; the minimum from
 * `ld.so --list-tunables`: "glibc.cpu.x86_rep_movsb_threshold: 0x840
 * (min: 0x200, ...)"). Bytes. */
struct pb_glibc_thresholds {
	uint64_t rep_movsb, rep_stosb, non_temporal;
	/* Where memcpy stops using rep movsb. 0 = unknown, taken as
	 * non_temporal. Intel: equal to non_temporal and moving with it; AMD:
	 * the L2 size, fixed (glibc computes it; no tunable). */
	uint64_t rep_movsb_stop;
	/* glibc ignores x86_rep_movsb_threshold values <= this (8 x its vector
	 * size: 128, 256 or 512). 0 = unknown. */
	uint64_t rep_movsb_min;
	bool known; /* false: the fields above are not filled */
};

/* glibc's thresholds as this process's ld.so reports them
 * (pb_glibc_read, include/primbench/fingerprint.h); out->known is false
 * when any of the three is unknown. Never fails. */
void pb_glibc_thresholds_read(struct pb_glibc_thresholds *out);

/* glibc 2.36 accepts x86_non_temporal_threshold only in (0x4040, this];
 * the value the mapping uses for "never". */
#define PB_GLIBC_NT_MAX UINT64_C(0x0fffffffffffffff)
#define PB_GLIBC_NT_MIN UINT64_C(0x4040) /* values <= this are ignored */

#define PB_GLIBC_MAX_NOTES 12

/* The policy as glibc tunables (only the op's are set). */
struct pb_glibc_tunables {
	enum pb_op op;
	uint64_t rep_movsb, non_temporal; /* memcpy */
	uint64_t rep_stosb;               /* memset */
	/* "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=N:glibc.cpu.
	 * x86_non_temporal_threshold=M" (memcpy) or "...x86_rep_stosb_threshold=N". */
	char line[256];
	/* Octaves of the measured range where glibc's kind of path (vector
	 * loop, rep, non-temporal) differs from the one the policy's kernel
	 * runs; sizes whose kernel glibc has no path for are not counted: */
	double mismatch_octaves;
	double no_path_octaves; /* those: bands of kernels glibc has no path for */
	size_t n_notes;         /* what glibc cannot express, in words */
	char notes[PB_GLIBC_MAX_NOTES][200];
};

/* Maps policy p onto glibc 2.36 x86-64 tunables: tries every candidate
 * value (each policy bound, glibc's current and lowest accepted values,
 * "never" = PB_GLIBC_NT_MAX) and keeps the one whose bands differ from the
 * policy over the fewest octaves of [range_lo, range_hi] (0, 0: 64 B up to
 * twice the largest bound, at least 64 MiB); ties go to the fewest octaves
 * up to 2^60, then to the values nearest glibc's current ones, then to
 * lower values. `cur` (may be NULL or !known) gives glibc's current values:
 * what a 'libc' band means, the rep movsb stop and minimum. Fills *out
 * (line, octaves still differing, notes in words); never fails. */
void pb_glibc_map_policy(const struct pb_policy *p, const struct pb_glibc_thresholds *cur,
                         uint64_t range_lo, uint64_t range_hi, struct pb_glibc_tunables *out);

/* The path glibc 2.36 x86-64 takes for op (memset or memcpy) at n bytes
 * with its thresholds `cur` (known), or with those of a GLIBC_TUNABLES
 * line `set` (pb_glibc_map_policy's; NULL: cur's own), the model the
 * mapping uses (the comment above gmodel in src/analysis/glibc_model.c,
 * from glibc's memset-/memmove-vec-unaligned-erms.S and dl-cacheinfo.h).
 * A value of set that glibc ignores (x86_rep_movsb_threshold at or below
 * 8 x its vector size, x86_non_temporal_threshold <= 0x4040, 0) leaves
 * cur's. PB_GLIBC_PATH_NONE for another op or thresholds not known. The
 * sizes where the two differ are those a line changes: tune measures
 * libc there with and without it (src/cli/glibc_check.c). */
enum pb_glibc_path pb_glibc_path_at(const struct pb_glibc_thresholds *cur, enum pb_op op,
                                    const struct pb_glibc_tunables *set, uint64_t n);

/* The thresholds of a line pb_glibc_map_policy wrote ("GLIBC_TUNABLES=
 * glibc.cpu.x86_rep_stosb_threshold=2048", settings joined by ':', values
 * decimal or 0x hex; the "GLIBC_TUNABLES=" may be left out) into *out:
 * op's settings (memset: x86_rep_stosb_threshold; memcpy:
 * x86_rep_movsb_threshold and x86_non_temporal_threshold), 0 where the
 * line has none; other glibc.* settings are skipped. Returns 0, or -1
 * with pb_error() for a setting without a value or a bad number. */
int pb_glibc_tunables_from_line(const char *line, enum pb_op op, struct pb_glibc_tunables *out);

/* The kind of path of glibc 2.36 x86-64 a kernel's code corresponds to
 * (the classes the mapping above uses; the row's glibc field,
 * primbench/kernels.h): its vector loop, rep movsb/stosb, non-temporal
 * stores, or none (libc itself, kernels glibc has no path for: bytes, rbw,
 * clzero, a memset non-temporal loop, ...). Never PB_GLIBC_PATH_ANY. */
enum pb_glibc_path pb_glibc_path_of(const struct pb_kernel *k);

/* A threshold as a GLIBC_TUNABLES value: decimal, or hex from
 * PB_GLIBC_NT_MAX ("never") on. Truncated to len; never fails. */
void pb_glibc_threshold_text(uint64_t v, char *buf, size_t len);

#endif
