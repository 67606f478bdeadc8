/* primbench/machine.h - the machine as text: the short summary that opens
 * a default run, and the full `primbench info` listing (every line at most
 * PB_TEXT_WIDTH columns, primbench/fingerprint.h). And the machine as data:
 * the `machine` object of every result (docs/results-schema.md) with its
 * fingerprint_hash. Module machine (src/machine/): above cpu and timer,
 * whose figures it reports.
 */
#ifndef PRIMBENCH_MACHINE_H
#define PRIMBENCH_MACHINE_H

#include <jansson.h>
#include <stdio.h>

#include "primbench/cpu.h"

/* cpu, kernel, features, caches with sources (and the note of any level
 * that fell back), timer, glibc's string thresholds: one field each,
 * wrapped at PB_TEXT_WIDTH. Calls pb_timer_init() (once per process,
 * ~0.2 s). `c` comes from pb_cache_detect(). */
void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c);

/* The full listing of `primbench info`: identity, every feature (yes / no /
 * hidden), each cache level with every source's figure and the notes of
 * rejected ones, the timer's figures, and whether hardware counters work. */
void pb_print_machine_info(FILE *f, const struct pb_cache_info *c);

/* The complete `machine` object of a result document (every field in
 * docs/results-schema.md, `machine`): CPU identity and microcode, features,
 * caches with every source, timer, kernel (release, version, command line),
 * mitigations, transparent huge pages, cpufreq governor, glibc and its
 * thresholds, compiler, build flags and primbench version, hostname,
 * pinned_cpu, and fingerprint_hash. Calls pb_timer_init(); runs the
 * dynamic loader twice (ld.so --list-diagnostics, --list-tunables; a few
 * ms). `caches` comes from pb_cache_detect(). A figure that cannot be read
 * is "unknown" (or null where the schema says so): never fails. Returns a
 * new reference. */
json_t *pb_fingerprint_json(const struct pb_cache_info *caches, int pinned_cpu);

#endif
