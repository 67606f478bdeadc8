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

double pb_unit_convert(enum pb_unit u, double t, double ns_per_tick, uint64_t n)
{
	switch (u) {
	case PB_UNIT_TICKS_PER_CALL:
		return t;
	case PB_UNIT_TICKS_PER_PAGE:
		return n ? t * UNIT_PAGE_BYTES / (double)n : NAN;
	case PB_UNIT_NS_PER_CALL:
		return t * ns_per_tick;
	case PB_UNIT_BYTES_PER_TICK:
		if (n == 0)
			return 0;
		return t > 0 ? (double)n / t : INFINITY;
	case PB_UNIT_GB_S: {
		double ns = t * ns_per_tick;
		if (n == 0)
			return 0;
		if (isnan(ns))
			return NAN;
		return ns > 0 ? (double)n / ns : INFINITY;
	}
	default:
		return NAN;
	}
}

/* this process's ns per tick (pb_ticks_to_ns is linear in its ticks) */
static double own_ns_per_tick(void)
{
	return pb_ticks_to_ns(1);
}

double pb_unit_value(enum pb_unit u, double t, uint64_t n)
{
	return pb_unit_convert(u, t, own_ns_per_tick(), n);
}

double pb_ticks_per_page(double t, uint64_t n)
{
	return pb_unit_convert(PB_UNIT_TICKS_PER_PAGE, t, NAN, n);
}

double pb_bytes_per_tick(double t, uint64_t n)
{
	return pb_unit_convert(PB_UNIT_BYTES_PER_TICK, t, NAN, n);
}

double pb_gb_per_s(double t, uint64_t n)
{
	return pb_unit_convert(PB_UNIT_GB_S, t, own_ns_per_tick(), n);
}
