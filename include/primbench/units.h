/* primbench/units.h - the units results are printed in, and the derived
 * figures of a per-call tick count (README "units"). Part of the results
 * module. Conversions to time use the timer's TSC rate (pb_ticks_to_ns).
 */
#ifndef PRIMBENCH_UNITS_H
#define PRIMBENCH_UNITS_H

#include <stdint.h>

enum pb_unit {
	PB_UNIT_TICKS_PER_CALL, /* median TSC ticks per call (lower is better) */
	PB_UNIT_TICKS_PER_PAGE, /* ... per 4096 bytes */
	PB_UNIT_NS_PER_CALL,    /* nanoseconds per call */
	PB_UNIT_BYTES_PER_TICK, /* bytes per TSC tick (higher is better) */
	PB_UNIT_GB_S,           /* 1e9 bytes per second (higher is better) */
	PB_UNIT_COUNT
};

/* "ticks/call", "ticks/page", "ns/call", "bytes/tick", "GB/s". */
const char *pb_unit_name(enum pb_unit u);
/* Returns 0, or -1 with pb_error(): "unknown unit 'x' (known: ...)". */
int pb_unit_parse(const char *name, enum pb_unit *out);
/* A median in ticks/call converted to unit u at size n, with this
 * process's timer (pb_ticks_to_ns): pb_unit_convert at its ns per tick. */
double pb_unit_value(enum pb_unit u, double ticks_per_call, uint64_t size_bytes);

/* The one conversion of a per-call tick count t to unit u at size n, with
 * ns_per_tick nanoseconds per tick (NaN when unknown: then ns/call and
 * GB/s are NaN). ticks/page is NaN at size 0; bytes/tick and GB/s are 0
 * at size 0 and infinite for t <= 0. A result file's values convert with
 * that file's own rate (file_units.h), never this process's. */
double pb_unit_convert(enum pb_unit u, double ticks_per_call, double ns_per_tick,
                       uint64_t size_bytes);

/* Derived figures of a per-call tick count t at size n (see README units).
 * At size 0: ticks/page is NaN (undefined), bytes/tick and GB/s are 0. */
double pb_ticks_per_page(double ticks_per_call, uint64_t size_bytes); /* per 4096 bytes */
double pb_bytes_per_tick(double ticks_per_call, uint64_t size_bytes);
double pb_gb_per_s(double ticks_per_call, uint64_t size_bytes); /* 1e9 bytes/s */

#endif
