/* noise.c - what the machine did besides the measurement: steal time, the
 * other CPUs' load and the measuring CPU's from /proc/stat (proc(5)), the
 * measuring thread's run-queue wait from /proc/thread-self/schedstat
 * (Documentation/scheduler/sched-stats.rst: run time, wait time in ns,
 * timeslices), its context switches from getrusage(RUSAGE_THREAD). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

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

/* One /proc/stat line into m. */
static void stat_line(struct pb_noise_mark *m, const char *line)
{
	unsigned long long t, s, i;
	if (parse_cpu_line(line, &t, &s, &i) != 0)
		return;
	if (line[3] == ' ') {
		m->total = t;
		m->steal = s;
		m->ok = true;
		return;
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

static void stat_reset(struct pb_noise_mark *m)
{
	m->ok = false;
	m->idle_beyond = m->total_beyond = 0;
	memset(m->present, 0, sizeof m->present);
}

/* Totals of all CPUs, and of each CPU (the run's own are left out when the
 * window ends: pb_noise_exclude may come after pb_noise_begin). */
static void read_stat(struct pb_noise_mark *m)
{
	stat_reset(m);
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return;
	char line[512];
	while (fgets(line, sizeof line, f) && strncmp(line, "cpu", 3) == 0)
		stat_line(m, line);
	fclose(f);
}

static bool parse_schedstat(const char *text, struct pb_noise_mark *m)
{
	m->sched_ok = text && sscanf(text, "%llu %llu", &m->run_ns, &m->wait_ns) == 2;
	return m->sched_ok;
}

static unsigned long long tv_ns(struct timeval tv)
{
	return (unsigned long long)tv.tv_sec * 1000000000ull +
	       (unsigned long long)tv.tv_usec * 1000;
}

/* The snapshot's own figures: schedstat, rusage, the clock. */
static void read_self(struct pb_noise_mark *m)
{
	char text[128] = "";
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	if (f) {
		if (!fgets(text, sizeof text, f))
			text[0] = '\0';
		fclose(f);
	}
	parse_schedstat(text[0] ? text : NULL, m);
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		m->nvcsw = ru.ru_nvcsw;
		m->nivcsw = ru.ru_nivcsw;
	}
	m->self_ns = m->children_ns = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		m->self_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		m->children_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->mono_ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
	m->clk_tck = sysconf(_SC_CLK_TCK);
}

void pb_noise_begin(struct pb_noise_mark *m, int pinned_cpu)
{
	memset(m, 0, sizeof *m);
	m->pinned_cpu = pinned_cpu;
	read_stat(m);
	read_self(m);
}

void pb_noise_mark_from_text(struct pb_noise_mark *m, int pinned_cpu, const char *proc_stat,
                             const char *schedstat, long nvcsw, long nivcsw,
                             unsigned long long self_ns, unsigned long long mono_ns, long clk_tck)
{
	memset(m, 0, sizeof *m);
	m->pinned_cpu = pinned_cpu;
	stat_reset(m);
	for (const char *l = proc_stat; l && *l;) {
		const char *e = strchr(l, '\n');
		char line[512];
		size_t n = e ? (size_t)(e - l) : strlen(l);
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1),
		         l);
		if (strncmp(line, "cpu", 3) != 0)
			break;
		stat_line(m, line);
		l += n + (e != NULL);
	}
	parse_schedstat(schedstat, m);
	m->nvcsw = nvcsw;
	m->nivcsw = nivcsw;
	m->self_ns = self_ns;
	m->mono_ns = mono_ns;
	m->clk_tck = clk_tck;
}

void pb_noise_exclude_begin(struct pb_noise_mark *m)
{
	struct pb_noise_mark *now = calloc(1, sizeof *now); /* 16 KiB: not on the stack */
	m->x_on = false;
	if (!now)
		return;
	read_self(now);
	m->x0_wait_ns = now->wait_ns;
	m->x0_mono_ns = now->mono_ns;
	m->x0_nivcsw = now->nivcsw;
	m->x_on = now->sched_ok;
	free(now);
}

void pb_noise_exclude_end(struct pb_noise_mark *m)
{
	struct pb_noise_mark *now = m->x_on ? calloc(1, sizeof *now) : NULL;
	m->x_on = false;
	if (!now)
		return;
	read_self(now);
	if (now->sched_ok && now->wait_ns >= m->x0_wait_ns && now->mono_ns >= m->x0_mono_ns) {
		m->x_wait_ns += now->wait_ns - m->x0_wait_ns;
		m->x_mono_ns += now->mono_ns - m->x0_mono_ns;
		m->x_nivcsw += now->nivcsw - m->x0_nivcsw;
	}
	free(now);
}

void pb_noise_exclude(struct pb_noise_mark *m, int cpu)
{
	if (cpu >= 0 && cpu < PB_NOISE_MAX_CPUS)
		m->mine[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static void add_cause(struct pb_noise *n, const char *fmt, double v)
{
	size_t used = strlen(n->high_cause);
	if (used)
		used += (size_t)snprintf(n->high_cause + used, sizeof n->high_cause - used, "; ");
	if (used < sizeof n->high_cause)
		snprintf(n->high_cause + used, sizeof n->high_cause - used, fmt, v);
	n->high = true;
}

void pb_noise_judge(struct pb_noise *n)
{
	n->high = false;
	n->high_cause[0] = '\0';
	if (n->valid && n->steal_pct > 2)
		add_cause(n, "steal %.1f%% of CPU time (the host ran others on these vCPUs)",
		          n->steal_pct);
	if (n->sched_valid && n->run_delay_pct > 1)
		add_cause(n,
		          "the measuring thread waited %.1f%% of the run for its CPU (another "
		          "task ran there)",
		          n->run_delay_pct);
	if (n->cpu_valid && n->measuring_cpu_others_pct > 5)
		add_cause(n, "the measuring CPU gave %.0f%% of its time to other tasks",
		          n->measuring_cpu_others_pct);
	if (n->wall_s > 0 && n->involuntary_per_s > 100)
		add_cause(n, "the measuring thread was preempted %.0f times a second",
		          n->involuntary_per_s);
	if (n->valid && !n->no_other_cpus && n->other_busy_pct > 50)
		add_cause(n, "the other CPUs were %.0f%% busy", n->other_busy_pct);
}

void pb_noise_between(const struct pb_noise_mark *m, const struct pb_noise_mark *e,
                      struct pb_noise *out)
{
	memset(out, 0, sizeof *out);
	if (m->ok && e->ok && e->total > m->total) {
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
		/* the measuring CPU: its busy time less this process's and its
		 * reaped children's CPU time (all of it, wherever it ran: the
		 * estimate errs low), over a second at least (10 ms ticks) */
		int p = m->pinned_cpu;
		if (bit(m->present, p) && bit(e->present, p) && m->clk_tck > 0) {
			unsigned long long ct = e->cpu_total[p] - m->cpu_total[p];
			unsigned long long ci = e->cpu_idle[p] - m->cpu_idle[p];
			if (ct >= (unsigned long long)m->clk_tck && ci <= ct) {
				double tick_ns = 1e9 / (double)m->clk_tck;
				double busy_ns = (double)(ct - ci) * tick_ns;
				double own_ns = (double)(e->self_ns - m->self_ns) +
				                (double)(e->children_ns - m->children_ns);
				double others = busy_ns - own_ns;
				out->cpu_valid = true;
				out->measuring_cpu_others_pct =
				    others > 0 ? 100.0 * others / ((double)ct * tick_ns) : 0;
			}
		}
	}
	out->voluntary_switches = e->nvcsw - m->nvcsw;
	out->involuntary_switches = e->nivcsw - m->nivcsw;
	/* the wait and preemption rules over the window less its excluded
	 * spans (pb_noise_exclude_begin), a tenth of a second at least */
	if (e->mono_ns >= m->mono_ns + m->x_mono_ns + 100000000ull) {
		double wall_ns = (double)(e->mono_ns - m->mono_ns - m->x_mono_ns);
		out->wall_s = wall_ns / 1e9;
		long iv = out->involuntary_switches - m->x_nivcsw;
		out->involuntary_per_s = (double)(iv > 0 ? iv : 0) / out->wall_s;
		if (m->sched_ok && e->sched_ok && e->wait_ns >= m->wait_ns + m->x_wait_ns) {
			out->sched_valid = true;
			out->run_delay_pct =
			    100.0 * (double)(e->wait_ns - m->wait_ns - m->x_wait_ns) / wall_ns;
		}
	}
	pb_noise_judge(out);
}

void pb_noise_end(const struct pb_noise_mark *m, struct pb_noise *out)
{
	struct pb_noise_mark *e = calloc(1, sizeof *e); /* 16 KiB: not on the stack */
	if (!e) {
		memset(out, 0, sizeof *out);
		return;
	}
	e->pinned_cpu = m->pinned_cpu;
	read_stat(e);
	read_self(e);
	pb_noise_between(m, e, out);
	free(e);
}
