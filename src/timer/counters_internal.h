/* counters_internal.h - the pure parts of src/timer/counters.c, apart so
 * tests can feed them what a machine with counters would give, and the
 * test-only reset. Nothing outside src/timer and its tests includes it.
 */
#ifndef PRIMBENCH_COUNTERS_INTERNAL_H
#define PRIMBENCH_COUNTERS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "primbench/counters.h"

/* u64 words of one group read with PERF_FORMAT_GROUP | PERF_FORMAT_ID |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (perf_event_open(2), "Reading
 * results"): nr, time_enabled, time_running, then {value, id} per event. */
#define PB_COUNTERS_READ_WORDS (3 + 2 * PB_COUNTERS_EVENTS)

/* Decodes a group read of `bytes` bytes (what read(2) returned) into *r,
 * placing each value by its id (ids[i] is the id of event i). Returns 0, or
 * -1 with a reason in why (short read, nr not PB_COUNTERS_EVENTS, an id
 * not in ids). Pure. */
int pb_counters_decode(const uint64_t *buf, ssize_t bytes, const uint64_t ids[PB_COUNTERS_EVENTS],
                       struct pb_counters_reading *r, char *why, size_t why_len);

/* What was counted between readings a and b: differences of the counts,
 * scaled by enabled/running when the group ran less than it was enabled.
 * Returns 0, or -1 with a reason in why (time running did not advance:
 * nothing was counted; a count or time went backwards). Pure. */
int pb_counters_diff(const struct pb_counters_reading *a, const struct pb_counters_reading *b,
                     struct pb_counter_values *out, char *why, size_t why_len);

/* The one-line reason pb_counters_open() gives when perf_event_open(2)
 * fails with errno `err` for `event` ("cycles", "instructions",
 * "cache-misses"): "hardware performance counters not available here:
 * perf_event_open(EVENT): STRERROR (HINT)". paranoid is
 * /proc/sys/kernel/perf_event_paranoid (PB_PARANOID_UNKNOWN when it could
 * not be read), guest whether cpuid says a hypervisor runs us. Pure. */
#define PB_PARANOID_UNKNOWN (-1000)
void pb_counters_explain(int err, const char *event, int paranoid, bool guest, char *buf,
                         size_t len);

/* ---- test support ---- */

/* on: pb_counters_open() opens task-clock, cpu-clock and page-faults
 * (PERF_TYPE_SOFTWARE, no PMU needed) in place of cycles, instructions and
 * cache misses, which then hold those counts (ns, ns, faults): the open,
 * ioctl and read path can be tested where no PMU is exposed. off: back to
 * the hardware events. Does not reset the cached probe. */
void pb_counters_use_software_events_for_tests(bool on);

/* Forgets the cached answer of pb_counters_available(), so the next call
 * probes again (e.g. after setting or clearing PRIMBENCH_NO_COUNTERS). */
void pb_counters_reset_for_tests(void);

#endif
