/* primbench/fingerprint.h - the machine as text: the short summary that
 * opens a default run, and the full `primbench info` listing.
 */
#ifndef PRIMBENCH_FINGERPRINT_H
#define PRIMBENCH_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/cpu.h"

/* Five lines: cpu, kernel, features, caches with sources, timer. Calls
 * pb_timer_init() (once per process, ~0.2 s). `c` comes from
 * pb_cache_detect(). */
void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c);

/* The full listing of `primbench info`: identity, every feature (yes / no /
 * hidden), each cache level with every source's figure and the notes of
 * rejected ones, the timer's figures, and whether hardware counters work. */
void pb_print_machine_info(FILE *f, const struct pb_cache_info *c);

/* Bytes in IEC units for prose: "48 KiB", "480 MiB", "1.5 MiB", "100 B". */
void pb_format_bytes_iec(uint64_t bytes, char *buf, size_t len);

#endif
