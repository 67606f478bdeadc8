/* primbench/counters.h - hardware performance counters around a timed
 * region, through perf_event_open(2) (Linux only).
 *
 * One event group per struct pb_counters, opened for the calling thread on
 * any CPU (pid 0, cpu -1), user space only:
 *   leader   PERF_COUNT_HW_CPU_CYCLES    core cycles (not TSC ticks)
 *   member   PERF_COUNT_HW_INSTRUCTIONS  instructions retired
 *   member   PERF_COUNT_HW_CACHE_MISSES  the kernel's generic cache-miss event
 * The group is scheduled onto the PMU as a unit, so the three counts always
 * cover the same stretch of time. exclude_kernel = 1 and exclude_hv = 1:
 * kernel work on the thread's behalf (page faults, the ioctls themselves) is
 * not counted, and in exchange the group opens at the default
 * kernel.perf_event_paranoid of 2 without CAP_PERFMON (perf_event_open(2),
 * "/proc/sys/kernel/perf_event_paranoid": "2 allow only user-space
 * measurements").
 *
 * What PERF_COUNT_HW_CACHE_MISSES counts is the kernel's choice per CPU
 * (arch/x86/events/intel/core.c, amd/core.c): on Intel event 0x412e,
 * LONGEST_LAT_CACHE.MISS (last-level cache misses); on AMD Zen 2 and later
 * 0x0964, L2 misses. Compare cache_misses between kernels on one machine,
 * not between machines. It counts stores' read-for-ownership misses as well
 * as loads, which LLC-read-miss events (PERF_TYPE_HW_CACHE) do not: for
 * memset and memcpy the stores are the point.
 *
 * Values are read with PERF_FORMAT_GROUP | PERF_FORMAT_ID |
 * PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING, one read
 * for the whole group. When the group was on the PMU for only part of the
 * time it was enabled (multiplexing with other users of the counters, or, on
 * a hybrid CPU, the thread running on a core type whose PMU the group is not
 * on), the counts are scaled by enabled/running, as perf stat does, and
 * flagged: see struct pb_counter_values.
 *
 * Where counters are missing (most virtual machines expose no PMU; a
 * container's seccomp profile or perf_event_paranoid 3 may forbid the call)
 * pb_counters_open() fails with a one-line reason, and callers measure
 * without counters. PRIMBENCH_NO_COUNTERS=1 (any value but "" and "0")
 * makes every open fail with "disabled by PRIMBENCH_NO_COUNTERS", so the
 * path without counters can be exercised on a machine that has them.
 *
 * Usage (errors omitted):
 *   struct pb_counters c;
 *   if (pb_counters_open(&c) == 0) {
 *       pb_counters_start(&c);  ... region ...  pb_counters_stop(&c, &v);
 *       pb_counters_close(&c);
 *   } else {
 *       record c.reason
 *   }
 */
#ifndef PRIMBENCH_COUNTERS_H
#define PRIMBENCH_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Events in the group: cycles (the leader), instructions, cache misses. */
#define PB_COUNTERS_EVENTS 3

/* Longest reason kept, with its terminating NUL. */
#define PB_COUNTERS_REASON_LEN 256

/* One read of the group: the two times (ns, cumulative since open: the
 * kernel cannot reset them) and the counts in the order above. Private to
 * src/timer/counters.c; in this header only so a struct pb_counters can
 * live on the stack. */
struct pb_counters_reading {
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t value[PB_COUNTERS_EVENTS];
};

/* An event group. Zero-initialized ({0}) or closed it is "not open":
 * start and stop then return -1 and close does nothing. Only `reason` is
 * for callers to read; the rest is private. */
struct pb_counters {
	bool is_open;
	bool started;                    /* between start and stop */
	int fd[PB_COUNTERS_EVENTS];      /* leader first; -1 when not open */
	uint64_t id[PB_COUNTERS_EVENTS]; /* PERF_EVENT_IOC_ID of each event */
	struct pb_counters_reading at_start;
	/* Why pb_counters_open() failed (the same line as pb_error()), ""
	 * after a successful open. One line, no trailing newline. */
	char reason[PB_COUNTERS_REASON_LEN];
};

/* What the group counted between pb_counters_start() and
 * pb_counters_stop(), user space of the opening thread only. */
struct pb_counter_values {
	uint64_t cycles;       /* core clock cycles (unhalted), not TSC ticks */
	uint64_t instructions; /* instructions retired */
	uint64_t cache_misses; /* PERF_COUNT_HW_CACHE_MISSES (see the top of this file) */
	/* true when the group ran for less of the interval than it was
	 * enabled: the three counts above are then estimates, raw count *
	 * enabled / running (perf stat's scaling), and say nothing certain
	 * about the part of the region that was not counted. */
	bool multiplexed;
	/* time running / time enabled over the interval, in (0, 1]; 1 when
	 * not multiplexed. */
	double running_fraction;
};

/* Opens the group for the calling thread, disabled. `c` is overwritten
 * (close an open one first). Before returning 0 it counts a short loop to
 * check that the counters really count (some hypervisors expose a PMU that
 * opens but stays at zero). Returns 0 (c->reason = ""), or -1 with c left
 * not open and c->reason and pb_error() set to one line, e.g.
 *   "hardware performance counters not available here:
 *    perf_event_open(cycles): No such file or directory (no PMU exposed to
 *    this guest)"
 *   "... perf_event_open(cycles): Permission denied (kernel.perf_event_paranoid
 *    is 3; user-space counting needs 2 or less: sysctl -w
 *    kernel.perf_event_paranoid=2, or CAP_PERFMON)"
 *   "hardware performance counters not used: disabled by
 *    PRIMBENCH_NO_COUNTERS"
 * (each on one line). Costs a few syscalls and ~0.1 ms. */
int pb_counters_open(struct pb_counters *c);

/* Resets the group's counts to zero, takes the starting reading and enables
 * the group (ioctls on the leader: PERF_EVENT_IOC_RESET with
 * PERF_IOC_FLAG_GROUP, read, PERF_EVENT_IOC_ENABLE without the flag, which
 * enables the whole group; src/timer/counters.c says why not with it).
 * Counting begins as the ENABLE ioctl returns.
 * Calling it again before stop restarts the interval. Returns 0, or -1 with
 * pb_error() set (not open; an ioctl or read failed). */
int pb_counters_start(struct pb_counters *c);

/* Disables the group (PERF_EVENT_IOC_DISABLE on the leader), reads it and stores in *out
 * what was counted since pb_counters_start(). A start/stop pair with
 * nothing between still counts the few user-space instructions of the
 * ioctl wrappers; it is not subtracted. Returns 0, or -1 with pb_error()
 * set and *out zeroed: not open, not started, a read failed, or the group
 * never got onto the PMU during the interval (time running 0: every
 * counter busy, e.g. with the NMI watchdog and other perf users). */
int pb_counters_stop(struct pb_counters *c, struct pb_counter_values *out);

/* Closes the group's descriptors. `reason` is kept. Safe on a struct that
 * is not open (zero-initialized, failed open, already closed). */
void pb_counters_close(struct pb_counters *c);

/* Whether pb_counters_open() works in this process: the first call opens,
 * checks and closes a group (honouring PRIMBENCH_NO_COUNTERS), later calls
 * return the cached answer. `why` (may be NULL if why_len is 0) gets one
 * line either way: the failure reason as pb_counters_open() gives it, or
 * what is counted. Does not touch pb_error(). The first call must not race
 * with another thread's first call. */
bool pb_counters_available(char *why, size_t why_len);

#endif
