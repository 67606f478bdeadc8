/* counters.c - a perf_event_open(2) group of cycles, instructions and cache
 * misses around a region (include/primbench/counters.h says what and why).
 *
 * References: perf_event_open(2) ("Arguments", "read_format", "Reading
 * results", "perf_event ioctl calls", "ERRORS"); the read layout with
 * PERF_FORMAT_GROUP is in include/uapi/linux/perf_event.h (struct
 * read_format) and is produced by perf_read_group() in kernel/events/core.c.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "primbench/counters.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/io.h"
#include "timer/counters_internal.h"

#define READ_FORMAT                                                                                \
	(PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                     \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)

#define NOT_AVAILABLE "hardware performance counters not available here: "
#define CHECK_LOOP    100000 /* adds counted by the open-time check (~0.1 ms) */

struct event {
	uint32_t type;
	uint64_t config;
	const char *name;
};

static const struct event hw_events[PB_COUNTERS_EVENTS] = {
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "cache-misses"},
};

/* Tests only (pb_counters_use_software_events_for_tests): the same group
 * mechanics with events every Linux has, PMU or not. */
static const struct event sw_events[PB_COUNTERS_EVENTS] = {
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu-clock"},
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "page-faults"},
};

static const struct event *events = hw_events;

/* ---- pure parts (counters_internal.h) ---------------------------------- */

int pb_counters_decode(const uint64_t *buf, ssize_t bytes, const uint64_t ids[PB_COUNTERS_EVENTS],
                       struct pb_counters_reading *r, char *why, size_t why_len)
{
	if (bytes != (ssize_t)(PB_COUNTERS_READ_WORDS * sizeof(uint64_t))) {
		snprintf(why, why_len, "group read returned %zd bytes, expected %zu", bytes,
		         PB_COUNTERS_READ_WORDS * sizeof(uint64_t));
		return -1;
	}
	if (buf[0] != PB_COUNTERS_EVENTS) {
		snprintf(why, why_len, "group read reports %llu events, expected %d",
		         (unsigned long long)buf[0], PB_COUNTERS_EVENTS);
		return -1;
	}
	r->time_enabled = buf[1];
	r->time_running = buf[2];
	bool seen[PB_COUNTERS_EVENTS] = {false};
	for (int i = 0; i < PB_COUNTERS_EVENTS; i++) {
		uint64_t value = buf[3 + 2 * i], id = buf[4 + 2 * i];
		int j = 0;
		while (j < PB_COUNTERS_EVENTS && (ids[j] != id || seen[j]))
			j++;
		if (j == PB_COUNTERS_EVENTS) {
			snprintf(why, why_len,
			         "group read has an unknown or repeated event id %llu",
			         (unsigned long long)id);
			return -1;
		}
		seen[j] = true;
		r->value[j] = value;
	}
	return 0;
}

int pb_counters_diff(const struct pb_counters_reading *a, const struct pb_counters_reading *b,
                     struct pb_counter_values *out, char *why, size_t why_len)
{
	memset(out, 0, sizeof *out);
	if (b->time_enabled < a->time_enabled || b->time_running < a->time_running) {
		snprintf(why, why_len, "counter times went backwards");
		return -1;
	}
	uint64_t enabled = b->time_enabled - a->time_enabled;
	uint64_t running = b->time_running - a->time_running;
	if (running == 0) {
		snprintf(why, why_len,
		         "the counter group never got onto the PMU (running 0 of %llu ns enabled): "
		         "every counter busy",
		         (unsigned long long)enabled);
		return -1;
	}
	uint64_t d[PB_COUNTERS_EVENTS];
	for (int i = 0; i < PB_COUNTERS_EVENTS; i++) {
		if (b->value[i] < a->value[i]) {
			snprintf(why, why_len, "%s count went backwards", events[i].name);
			return -1;
		}
		d[i] = b->value[i] - a->value[i];
	}
	out->multiplexed = running < enabled;
	out->running_fraction = out->multiplexed ? (double)running / (double)enabled : 1.0;
	if (out->multiplexed) {
		for (int i = 0; i < PB_COUNTERS_EVENTS; i++) {
			long double s = (long double)d[i] * enabled / running + 0.5L;
			d[i] = s >= (long double)UINT64_MAX ? UINT64_MAX : (uint64_t)s;
		}
	}
	out->cycles = d[0];
	out->instructions = d[1];
	out->cache_misses = d[2];
	return 0;
}

void pb_counters_explain(int err, const char *event, int paranoid, bool guest, char *buf,
                         size_t len)
{
	bool leader = strcmp(event, hw_events[0].name) == 0;
	char hint[200] = "";
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (!leader)
			snprintf(hint, sizeof hint, "the PMU has no generic %s event", event);
		else if (guest)
			snprintf(hint, sizeof hint, "no PMU exposed to this guest");
		else
			snprintf(hint, sizeof hint,
			         "this kernel has no hardware PMU driver for this CPU");
		break;
	case EACCES:
	case EPERM:
		if (paranoid == PB_PARANOID_UNKNOWN)
			snprintf(
			    hint, sizeof hint,
			    "/proc/sys/kernel/perf_event_paranoid unreadable; a seccomp filter or "
			    "security module may forbid the call");
		else if (paranoid > 2)
			snprintf(hint, sizeof hint,
			         "kernel.perf_event_paranoid is %d; user-space counting needs 2 or "
			         "less: sysctl -w kernel.perf_event_paranoid=2, or CAP_PERFMON",
			         paranoid);
		else
			snprintf(
			    hint, sizeof hint,
			    "kernel.perf_event_paranoid is %d, which allows it: a seccomp filter "
			    "(e.g. a container's default profile) or a security module forbids "
			    "the call",
			    paranoid);
		break;
	case ENOSYS:
		snprintf(hint, sizeof hint, "%s",
		         paranoid == PB_PARANOID_UNKNOWN
		             ? "kernel built without perf events: no "
		               "/proc/sys/kernel/perf_event_paranoid"
		             : "the system call is blocked, e.g. by seccomp");
		break;
	case EBUSY:
		snprintf(hint, sizeof hint, "another user has exclusive use of the PMU");
		break;
	case EINVAL:
		snprintf(hint, sizeof hint,
		         "the PMU rejects the event or has too few counters for the group");
		break;
	case EMFILE:
	case ENFILE:
		snprintf(hint, sizeof hint, "too many open files");
		break;
	default:
		break;
	}
	snprintf(buf, len, NOT_AVAILABLE "perf_event_open(%s): %s%s%s%s", event, strerror(err),
	         hint[0] ? " (" : "", hint, hint[0] ? ")" : "");
}

/* ---- the group --------------------------------------------------------- */

static int read_paranoid(void)
{
	return pb_read_int_file("/proc/sys/kernel/perf_event_paranoid", PB_PARANOID_UNKNOWN);
}

static bool disabled_by_env(void)
{
	const char *e = getenv("PRIMBENCH_NO_COUNTERS");
	return e && e[0] && strcmp(e, "0") != 0;
}

static void close_fds(struct pb_counters *c)
{
	for (int i = PB_COUNTERS_EVENTS - 1; i >= 0; i--) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
	}
	c->is_open = false;
	c->started = false;
}

/* ioctl on the leader. RESET takes PERF_IOC_FLAG_GROUP (without it only
 * the leader's count is zeroed); ENABLE and DISABLE do not: switching the
 * leader switches the whole group (perf_event_open(2), PERF_EVENT_IOC_DISABLE),
 * while DISABLE with the flag turns every member off one by one, and on
 * Linux 6.18 a later ENABLE with the flag left the members off (seen with a
 * group of software events: members counted in the first interval only). */
static int leader_ioctl(struct pb_counters *c, unsigned long request, unsigned long arg,
                        const char *name, char *why, size_t why_len)
{
	if (ioctl(c->fd[0], request, arg) != 0) {
		snprintf(why, why_len, "ioctl(%s) on the counter group fails: %s", name,
		         strerror(errno));
		return -1;
	}
	return 0;
}

static int read_group(struct pb_counters *c, struct pb_counters_reading *r, char *why,
                      size_t why_len)
{
	uint64_t buf[PB_COUNTERS_READ_WORDS + 1]; /* one spare: a longer answer is an error */
	ssize_t n = read(c->fd[0], buf, sizeof buf);
	if (n < 0) {
		snprintf(why, why_len, "reading the counter group fails: %s", strerror(errno));
		return -1;
	}
	return pb_counters_decode(buf, n, c->id, r, why, why_len);
}

static int do_start(struct pb_counters *c, char *why, size_t why_len)
{
	if (!c->is_open) {
		snprintf(why, why_len, "hardware counters not open");
		return -1;
	}
	c->started = false;
	if (leader_ioctl(c, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP, "PERF_EVENT_IOC_RESET", why,
	                 why_len) != 0 ||
	    read_group(c, &c->at_start, why, why_len) != 0 ||
	    leader_ioctl(c, PERF_EVENT_IOC_ENABLE, 0, "PERF_EVENT_IOC_ENABLE", why, why_len) != 0)
		return -1;
	c->started = true;
	return 0;
}

static int do_stop(struct pb_counters *c, struct pb_counter_values *out, char *why, size_t why_len)
{
	memset(out, 0, sizeof *out);
	if (!c->is_open) {
		snprintf(why, why_len, "hardware counters not open");
		return -1;
	}
	if (!c->started) {
		snprintf(why, why_len, "hardware counters stopped without being started");
		return -1;
	}
	c->started = false;
	struct pb_counters_reading now;
	if (leader_ioctl(c, PERF_EVENT_IOC_DISABLE, 0, "PERF_EVENT_IOC_DISABLE", why, why_len) !=
	        0 ||
	    read_group(c, &now, why, why_len) != 0)
		return -1;
	return pb_counters_diff(&c->at_start, &now, out, why, why_len);
}

/* Opens and checks the group; the reason goes to c->reason only. */
static int open_group(struct pb_counters *c, struct pb_counter_values *check)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < PB_COUNTERS_EVENTS; i++)
		c->fd[i] = -1;
	memset(check, 0, sizeof *check);

	if (disabled_by_env()) {
		snprintf(
		    c->reason, sizeof c->reason,
		    "hardware performance counters not used: disabled by PRIMBENCH_NO_COUNTERS");
		return -1;
	}
	for (int i = 0; i < PB_COUNTERS_EVENTS; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.type = events[i].type;
		a.size = sizeof a;
		a.config = events[i].config;
		a.disabled = i == 0;  /* members follow their leader */
		a.exclude_kernel = 1; /* allowed up to perf_event_paranoid 2 */
		a.exclude_hv = 1;
		a.read_format = READ_FORMAT;
		int fd =
		    (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1 /* any CPU */,
		                 i == 0 ? -1 : c->fd[0], (unsigned long)PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			struct pb_cpu_ident id;
			pb_cpu_ident(&id);
			pb_counters_explain(e, events[i].name, read_paranoid(), id.hypervisor,
			                    c->reason, sizeof c->reason);
			close_fds(c);
			return -1;
		}
		c->fd[i] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &c->id[i]) != 0) {
			snprintf(c->reason, sizeof c->reason,
			         NOT_AVAILABLE "ioctl(PERF_EVENT_IOC_ID, %s) fails: %s",
			         events[i].name, strerror(errno));
			close_fds(c);
			return -1;
		}
	}
	c->is_open = true;

	/* Does it count? Some hypervisors expose a PMU whose counters stay 0.
	 * why leaves room for the prefix in c->reason. */
	char why[PB_COUNTERS_REASON_LEN - sizeof NOT_AVAILABLE];
	if (do_start(c, why, sizeof why) != 0) {
		snprintf(c->reason, sizeof c->reason, NOT_AVAILABLE "%s", why);
		close_fds(c);
		return -1;
	}
	volatile uint64_t sink = 0;
	for (int i = 0; i < CHECK_LOOP; i++)
		sink = sink + (uint64_t)i;
	if (do_stop(c, check, why, sizeof why) != 0) {
		snprintf(c->reason, sizeof c->reason, NOT_AVAILABLE "%s", why);
		close_fds(c);
		return -1;
	}
	if (check->instructions == 0 || check->cycles == 0) {
		snprintf(c->reason, sizeof c->reason,
		         NOT_AVAILABLE "perf_event_open succeeds but the counters do not count "
		                       "(%llu cycles, %llu instructions over a %d-add loop)",
		         (unsigned long long)check->cycles, (unsigned long long)check->instructions,
		         CHECK_LOOP);
		close_fds(c);
		return -1;
	}
	c->reason[0] = '\0';
	return 0;
}

int pb_counters_open(struct pb_counters *c)
{
	struct pb_counter_values check;
	if (open_group(c, &check) != 0)
		return pb_fail("%s", c->reason);
	return 0;
}

int pb_counters_start(struct pb_counters *c)
{
	char why[PB_COUNTERS_REASON_LEN];
	if (do_start(c, why, sizeof why) != 0)
		return pb_fail("%s", why);
	return 0;
}

int pb_counters_stop(struct pb_counters *c, struct pb_counter_values *out)
{
	char why[PB_COUNTERS_REASON_LEN];
	if (do_stop(c, out, why, sizeof why) != 0)
		return pb_fail("%s", why);
	return 0;
}

void pb_counters_close(struct pb_counters *c)
{
	if (c->is_open)
		close_fds(c);
	c->is_open = false;
	c->started = false;
}

/* ---- cached probe ------------------------------------------------------ */

static bool probed, probe_answer;
static char probe_why[PB_COUNTERS_REASON_LEN];

bool pb_counters_available(char *why, size_t why_len)
{
	if (!probed) {
		struct pb_counters c;
		struct pb_counter_values check;
		probe_answer = open_group(&c, &check) == 0;
		if (probe_answer) {
			snprintf(
			    probe_why, sizeof probe_why,
			    "cycles, instructions and cache misses count (perf_event_open group, "
			    "user space only; %llu instructions over a %d-add loop)",
			    (unsigned long long)check.instructions, CHECK_LOOP);
			pb_counters_close(&c);
		} else {
			snprintf(probe_why, sizeof probe_why, "%s", c.reason);
		}
		probed = true;
	}
	if (why && why_len)
		snprintf(why, why_len, "%s", probe_why);
	return probe_answer;
}

void pb_counters_use_software_events_for_tests(bool on)
{
	events = on ? sw_events : hw_events;
}

void pb_counters_reset_for_tests(void)
{
	probed = false;
	probe_answer = false;
	probe_why[0] = '\0';
}
