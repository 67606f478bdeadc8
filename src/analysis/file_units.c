/* file_units.c - a result file's values in ns and in the printed units,
 * from the file's own timer figures (include/primbench/file_units.h). */
#include "primbench/file_units.h"

#include <string.h>

#include "primbench/timer.h"

double pb_file_ns_per_value(const struct pb_results_file *f, const char *unit)
{
	if (!unit)
		return 0;
	if (!strcmp(unit, "ns"))
		return 1;
	if (pb_tick_unit_is_counter(unit) && f && f->tsc_hz > 0)
		return 1e9 / f->tsc_hz;
	return 0;
}
