/* noise.c - what the machine did besides the measurement: steal time and
 * the other CPUs' load from /proc/stat (proc(5)), and this thread's context
 * switches from getrusage(RUSAGE_THREAD). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "primbench/results.h"

/* Sums one /proc/stat "cpu" line: total jiffies, steal, idle+iowait. */
static int parse_cpu_line(const char *line, unsigned long long *total, unsigned long long *steal,
                          unsigned long long *idle)
{
	unsigned long long v[10] = {0};
	int n = sscanf(line, "%*s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
	               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	if (n < 4)
		return -1;
	/* guest and guest_nice (v[8], v[9]) are already in user and nice. */
	*total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	*steal = v[7];
	*idle = v[3] + v[4];
	return 0;
}

static void read_stat(struct pb_noise_mark *m)
{
	FILE *f = fopen("/proc/stat", "r");
	m->ok = false;
	if (!f)
		return;
	char line[512];
	m->total_other = m->idle_other = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "cpu", 3) != 0)
			break;
		unsigned long long t, s, i;
		if (parse_cpu_line(line, &t, &s, &i) != 0)
			continue;
		if (line[3] == ' ') {
			m->total = t;
			m->steal = s;
			m->ok = true;
		} else {
			int cpu = -1;
			sscanf(line + 3, "%d", &cpu);
			if (cpu != m->pinned_cpu) {
				m->total_other += t;
				m->idle_other += i;
			}
		}
	}
	fclose(f);
}

void pb_noise_begin(struct pb_noise_mark *m, int pinned_cpu)
{
	memset(m, 0, sizeof *m);
	m->pinned_cpu = pinned_cpu;
	read_stat(m);
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		m->nvcsw = ru.ru_nvcsw;
		m->nivcsw = ru.ru_nivcsw;
	}
}

void pb_noise_end(const struct pb_noise_mark *m, struct pb_noise *out)
{
	struct pb_noise_mark e;
	memset(out, 0, sizeof *out);
	e.pinned_cpu = m->pinned_cpu;
	read_stat(&e);
	if (m->ok && e.ok && e.total > m->total) {
		out->valid = true;
		out->steal_pct =
		    100.0 * (double)(e.steal - m->steal) / (double)(e.total - m->total);
		unsigned long long t = e.total_other - m->total_other;
		unsigned long long i = e.idle_other - m->idle_other;
		out->other_busy_pct = t ? 100.0 * (double)(t - i) / (double)t : 0;
	}
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		out->voluntary_switches = ru.ru_nvcsw - m->nvcsw;
		out->involuntary_switches = ru.ru_nivcsw - m->nivcsw;
	}
}
