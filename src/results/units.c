/* units.c - units, their names and the derived figures of a per-call tick
 * count (include/primbench/units.h). */
#include "primbench/units.h"

#include <math.h>

#include "primbench/text.h"
#include "primbench/timer.h"
#include "results/names.h"

/* "ticks/page" is per 4096 bytes (README "units"), whatever the page size
 * of the machine. */
#define UNIT_PAGE_BYTES 4096.0

static const char *const unit_names[PB_UNIT_COUNT] = {"ticks/call", "ticks/page", "ns/call",
                                                      "bytes/tick", "GB/s"};

PB_NAME_FUNCTIONS(enum pb_unit, pb_unit_name, pb_unit_parse, unit_names, PB_UNIT_COUNT, "unit")

double pb_unit_value(enum pb_unit u, double t, uint64_t n)
{
	switch (u) {
	case PB_UNIT_TICKS_PER_CALL:
		return t;
	case PB_UNIT_TICKS_PER_PAGE:
		return pb_ticks_per_page(t, n);
	case PB_UNIT_NS_PER_CALL:
		return pb_ticks_to_ns(t);
	case PB_UNIT_BYTES_PER_TICK:
		return pb_bytes_per_tick(t, n);
	case PB_UNIT_GB_S:
		return pb_gb_per_s(t, n);
	default:
		return NAN;
	}
}

double pb_ticks_per_page(double t, uint64_t n)
{
	return n ? t * UNIT_PAGE_BYTES / (double)n : NAN;
}

double pb_bytes_per_tick(double t, uint64_t n)
{
	if (n == 0)
		return 0;
	return t > 0 ? (double)n / t : INFINITY;
}

double pb_gb_per_s(double t, uint64_t n)
{
	double ns = pb_ticks_to_ns(t);
	if (n == 0)
		return 0;
	return ns > 0 ? (double)n / ns : INFINITY;
}
