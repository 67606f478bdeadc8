/* primbench/file_units.h - a result file's times in nanoseconds, from that
 * file's own timer figures (machine.timer.hz), never from this process's
 * timer (the analysis module). compare, the summary and plot take their ns
 * per value from here and convert with pb_unit_convert (units.h), so a file
 * read on another machine gives the figures it gave where it was written.
 */
#ifndef PRIMBENCH_FILE_UNITS_H
#define PRIMBENCH_FILE_UNITS_H

#include "primbench/reader.h"
#include "primbench/units.h"

/* Nanoseconds per value of a case whose unit is `unit` in file f: 1 for
 * "ns" (the clock_gettime fallback), 1e9 / f->tsc_hz (machine.timer.hz;
 * in a kernel file the module's kernel.tsc_khz: reader.h) for a counter
 * unit ("tsc_ticks", an arm64 counter; pb_tick_unit_is_counter), 0 when
 * it cannot be converted (a counter unit in a file without timer.hz, or
 * another unit). docs/results-schema.md, "machine.timer". */
double pb_file_ns_per_value(const struct pb_results_file *f, const char *unit);

#endif
