/* noise.c - what the machine did besides the measurement: steal time and
 * the other CPUs' load from /proc/stat (proc(5)), and this thread's context
 * switches from getrusage(RUSAGE_THREAD). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "primbench/session.h"

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

static bool bit(const uint64_t *set, int cpu)
{
	return cpu >= 0 && cpu < PB_NOISE_MAX_CPUS && (set[cpu / 64] >> (cpu % 64) & 1);
}

/* Totals of all CPUs, and of each CPU (the run's own are left out when the
 * window ends: pb_noise_exclude may come after pb_noise_begin). */
static void read_stat(struct pb_noise_mark *m)
{
	FILE *f = fopen("/proc/stat", "r");
	m->ok = false;
	if (!f)
		return;
	char line[512];
	m->idle_beyond = m->total_beyond = 0;
	memset(m->present, 0, sizeof m->present);
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
			continue;
		}
		int cpu = -1;
		sscanf(line + 3, "%d", &cpu);
		if (cpu >= 0 && cpu < PB_NOISE_MAX_CPUS) {
			m->cpu_total[cpu] = t;
			m->cpu_idle[cpu] = i;
			m->present[cpu / 64] |= UINT64_C(1) << (cpu % 64);
		} else if (cpu != m->pinned_cpu) {
			m->total_beyond += t;
			m->idle_beyond += i;
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

void pb_noise_exclude(struct pb_noise_mark *m, int cpu)
{
	if (cpu >= 0 && cpu < PB_NOISE_MAX_CPUS)
		m->mine[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

void pb_noise_end(const struct pb_noise_mark *m, struct pb_noise *out)
{
	memset(out, 0, sizeof *out);
	struct pb_noise_mark *e = calloc(1, sizeof *e); /* 16 KiB: not on the stack */
	if (e) {
		e->pinned_cpu = m->pinned_cpu;
		read_stat(e);
	}
	if (e && m->ok && e->ok && e->total > m->total) {
		out->valid = true;
		out->steal_pct =
		    100.0 * (double)(e->steal - m->steal) / (double)(e->total - m->total);
		unsigned long long t = e->total_beyond - m->total_beyond;
		unsigned long long i = e->idle_beyond - m->idle_beyond;
		bool any = e->total_beyond > 0;
		for (int c = 0; c < PB_NOISE_MAX_CPUS; c++) {
			if (c == m->pinned_cpu || bit(m->mine, c) || !bit(m->present, c) ||
			    !bit(e->present, c))
				continue;
			any = true;
			t += e->cpu_total[c] - m->cpu_total[c];
			i += e->cpu_idle[c] - m->cpu_idle[c];
		}
		out->other_busy_pct = t ? 100.0 * (double)(t - i) / (double)t : 0;
		out->no_other_cpus = !any;
	}
	free(e);
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		out->voluntary_switches = ru.ru_nvcsw - m->nvcsw;
		out->involuntary_switches = ru.ru_nivcsw - m->nivcsw;
	}
}
