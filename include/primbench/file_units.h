/* primbench/file_units.h - a result file's times in nanoseconds and in the
 * printed units, from that file's own timer figures (machine.timer.hz),
 * never from this process's timer (the analysis module). compare, the
 * summary and plot convert through these, so a file read on another
 * machine gives the figures it gave where it was written.
 */
#ifndef PRIMBENCH_FILE_UNITS_H
#define PRIMBENCH_FILE_UNITS_H

#include <stdbool.h>
#include <stdint.h>

#include "primbench/reader.h"
#include "primbench/units.h"

/* Nanoseconds per value of a case whose unit is `unit` in file f: 1 for
 * "ns" (the clock_gettime fallback), 1e9 / machine.timer.hz for a counter
 * unit ("tsc_ticks", an arm64 counter; pb_tick_unit_is_counter), 0 when
 * it cannot be converted (a counter unit in a file without timer.hz, or
 * another unit). docs/results-schema.md, "machine.timer". */
double pb_file_ns_per_value(const struct pb_results_file *f, const char *unit);

/* Whether values in `unit` of file f can be given in ns
 * (pb_file_ns_per_value(f, unit) > 0). */
static inline bool pb_file_has_ns(const struct pb_results_file *f, const char *unit)
{
	return pb_file_ns_per_value(f, unit) > 0;
}

/* A per-call value t of a case of f (in its unit) in printed unit u at
 * size_bytes: pb_unit_convert with f's own ns per value. NaN where the
 * unit needs ns and f cannot give them. */
double pb_file_unit_value(const struct pb_results_file *f, const char *unit, enum pb_unit u,
                          double t, uint64_t size_bytes);

#endif
