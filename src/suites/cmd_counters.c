/* cmd_counters.c - instructions and cycles over a whole command, inherited
 * perf events enabled at exec (include/primbench/cmd.h, "Hardware counters
 * over a whole command"). References: perf_event_open(2) ("inherit",
 * "enable_on_exec", "read_format"). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "primbench/cmd.h"
#include "primbench/error.h"

static bool disabled_by_env(void)
{
	const char *e = getenv("PRIMBENCH_NO_COUNTERS");
	return e && e[0] && strcmp(e, "0") != 0;
}

double pb_cmd_counter_scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	if (running == 0)
		return NAN;
	if (running >= enabled)
		return (double)value;
	return (double)value * ((double)enabled / (double)running);
}

/* Why the open failed, a hint per errno (as src/timer/counters.c says). */
static const char *hint(int err)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return " (no PMU for this CPU: usual in a virtual machine)";
	case EACCES:
	case EPERM:
		return " (kernel.perf_event_paranoid above 2, or a seccomp filter or security "
		       "module forbids the call)";
	case ENOSYS:
		return " (kernel without perf events, or the call blocked)";
	default:
		return "";
	}
}

int pb_cmd_counters_open(int fd[2])
{
	static const struct {
		uint64_t config;
		const char *name;
	} ev[2] = {{PERF_COUNT_HW_INSTRUCTIONS, "instructions"},
	           {PERF_COUNT_HW_CPU_CYCLES, "cycles"}};
	fd[0] = fd[1] = -1;
	if (disabled_by_env())
		return pb_fail("no hardware counters here: disabled by PRIMBENCH_NO_COUNTERS");
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_HARDWARE;
		a.config = ev[i].config;
		a.disabled = 1;
		a.inherit = 1;
		a.enable_on_exec = 1;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = (int)syscall(SYS_perf_event_open, &a, 0 /* this process */,
		                     -1 /* any CPU */, -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0) {
			int e = errno;
			if (i)
				close(fd[0]);
			fd[0] = fd[1] = -1;
			return pb_fail("no hardware counters here: perf_event_open(%s): %s%s",
			               ev[i].name, strerror(e), hint(e));
		}
	}
	return 0;
}

void pb_cmd_counters_read(int fd[2], struct pb_cmd_run *out)
{
	double v[2] = {NAN, NAN};
	for (int i = 0; i < 2; i++) {
		uint64_t buf[3];
		if (fd[i] >= 0 && read(fd[i], buf, sizeof buf) == (ssize_t)sizeof buf)
			v[i] = pb_cmd_counter_scale(buf[0], buf[1], buf[2]);
		if (fd[i] >= 0)
			close(fd[i]);
		fd[i] = -1;
	}
	out->counters = !isnan(v[0]) && !isnan(v[1]);
	out->instructions = v[0];
	out->cycles = v[1];
}

int pb_cmd_counters_check(void)
{
	int fd[2];
	if (pb_cmd_counters_open(fd) != 0)
		return -1;
	close(fd[0]);
	close(fd[1]);
	return 0;
}
