/* primbench/fingerprint.h - the machine as text: the short summary that
 * opens a default run, and the full `primbench info` listing. Every line
 * they print is at most PB_TEXT_WIDTH columns (README: the output pastes
 * into an email).
 */
#ifndef PRIMBENCH_FINGERPRINT_H
#define PRIMBENCH_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/cpu.h"

/* Text lines are at most this many columns. */
#define PB_TEXT_WIDTH 80

/* cpu, kernel, features, caches with sources (and the note of any level
 * that fell back), timer: one field each, wrapped at PB_TEXT_WIDTH. Calls
 * pb_timer_init() (once per process, ~0.2 s). `c` comes from
 * pb_cache_detect(). */
void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c);

/* The full listing of `primbench info`: identity, every feature (yes / no /
 * hidden), each cache level with every source's figure and the notes of
 * rejected ones, the timer's figures, and whether hardware counters work. */
void pb_print_machine_info(FILE *f, const struct pb_cache_info *c);

/* Prints `label` padded with spaces to `indent` columns (a label that
 * fills the column or more gets one space after it), then `text` wrapped at
 * spaces so no line passes PB_TEXT_WIDTH columns, continuation lines
 * indented by `indent` spaces, then a newline. A word too long for a whole
 * line is cut. Tabs and newlines in text are not special: pass plain
 * words. */
void pb_print_labelled(FILE *f, int indent, const char *label, const char *text);

/* Bytes in IEC units for prose: "48 KiB", "480 MiB", "1.5 MiB", "100 B". */
void pb_format_bytes_iec(uint64_t bytes, char *buf, size_t len);

#endif
