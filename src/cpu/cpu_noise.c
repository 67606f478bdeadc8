/* cpu_noise.c - placement by measured noise: the interleaved probe of each
 * CPU's time lost to interruptions and the choice of the quietest (see
 * include/primbench/cpu_noise.h). Generic C. */
#define _GNU_SOURCE
#include "primbench/cpu_noise.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "primbench/error.h"

#define TARGET_CHUNK_NS 8000.0 /* one quantum */
#define SLICE_NS        10e6   /* one turn on one CPU */
#define MIN_PER_CPU_MS  5.0
#define TIE_POINTS      0.01 /* lost_share near-tie: 1 percentage point */
#define TIE_TAIL        0.01 /* tail near-tie: 1% of the median */

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The fixed work quantum: a chain of dependent multiply-adds in a
 * register, whose time is iters times the multiplier's latency, the same
 * every time on an undisturbed CPU. (A loop on a volatile counter, the first version, goes through
 * a stack slot, and on AMD Zen the store-to-load forwarding of such a slot ran at two speeds, 4.2
 * and 7.2 us a quantum on one CPU: speed changes of the probe itself counted as lost time.) The
 * empty asm keeps the compiler from folding the chain (GNU C, any target). */
static void quantum(unsigned long iters)
{
	uint64_t x = 1;
	for (unsigned long i = 0; i < iters; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
}

double pb_cpu_probe_budget_ms(size_t n)
{
	const char *env = getenv("PRIMBENCH_PROBE_MS");
	if (env && env[0]) {
		char *end;
		errno = 0;
		double v = strtod(env, &end);
		if (errno || end == env || *end || !(v >= 0) || v > 2000)
			return pb_fail("bad PRIMBENCH_PROBE_MS '%s' (milliseconds, 0 to 2000)",
			               env);
		return v;
	}
	double ms = 100.0 * (double)n;
	return ms > 500 ? 500 : ms;
}

char *pb_cpu_set_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int hi = c;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		int w = hi == c
		            ? snprintf(buf + at, at < len ? len - at : 0, "%s%d", at ? "," : "", c)
		            : snprintf(buf + at, at < len ? len - at : 0, "%s%d-%d", at ? "," : "",
		                       c, hi);
		if (w < 0 || at + (size_t)w >= len) {
			if (at < len)
				buf[at] = '\0'; /* whole entries only */
			break;
		}
		at += (size_t)w;
		c = hi;
	}
	return buf;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One CPU's chunks. */
struct series {
	double *t;
	size_t n, cap;
};

static int push(struct series *s, double v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		double *t = realloc(s->t, cap * sizeof *t);
		if (!t)
			return -1;
		s->t = t;
		s->cap = cap;
	}
	s->t[s->n++] = v;
	return 0;
}

/* The iteration count of a quantum of about TARGET_CHUNK_NS, on the CPU
 * the thread is on: the fastest of five tries per size. */
static unsigned long calibrate(void)
{
	unsigned long iters = 256;
	for (;;) {
		double best = INFINITY;
		for (int k = 0; k < 5; k++) {
			double t0 = now_ns();
			quantum(iters);
			double dt = now_ns() - t0;
			if (dt < best)
				best = dt;
		}
		if (best >= TARGET_CHUNK_NS / 4 || iters >= (1ul << 28)) {
			double scaled = (double)iters * TARGET_CHUNK_NS / (best > 1 ? best : 1);
			return scaled < 1 ? 1 : (unsigned long)scaled;
		}
		iters *= 4;
	}
}

/* Times chunks on the CPU the thread is on for slice_ns (the first chunk
 * left out) into s. -1 when out of memory. */
static int run_slice(unsigned long iters, double slice_ns, struct series *s)
{
	double start = now_ns(), prev = start;
	bool first = true;
	while (prev - start < slice_ns) {
		quantum(iters);
		double t = now_ns();
		if (!first && push(s, t - prev) != 0)
			return -1;
		first = false;
		prev = t;
	}
	return 0;
}

static void figures(struct series *s, struct pb_cpu_noise *f)
{
	f->chunks = s->n;
	if (!s->n)
		return;
	double sum = 0;
	for (size_t i = 0; i < s->n; i++)
		sum += s->t[i];
	qsort(s->t, s->n, sizeof *s->t, cmp_double);
	f->min_ns = s->t[0];
	f->max_ns = s->t[s->n - 1];
	f->median_ns = s->n % 2 ? s->t[s->n / 2] : (s->t[s->n / 2 - 1] + s->t[s->n / 2]) / 2;
	size_t rank = (size_t)ceil(0.99 * (double)s->n);
	f->p99_ns = s->t[rank ? rank - 1 : 0];
	f->probe_ns = sum;
	double lost = sum > 0 ? (sum - (double)s->n * f->min_ns) / sum : 0;
	f->lost_share = lost < 0 ? 0 : lost >= 1 ? nextafter(1.0, 0.0) : lost;
}

static bool pin_to(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof one, &one) == 0;
}

int pb_cpu_probe_run(const cpu_set_t *cpus, double budget_ms, struct pb_cpu_probe *out)
{
	memset(out, 0, sizeof *out);
	if (!(budget_ms > 0))
		return pb_fail("noise probe: no time to probe (%g ms)", budget_ms);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, cpus))
			continue;
		if (out->n == PB_CPU_NOISE_MAX) {
			out->not_probed++;
			continue;
		}
		out->cpu[out->n++].cpu = c;
	}
	if (!out->n)
		return pb_fail("noise probe: no CPU to probe");
	cpu_set_t saved;
	if (sched_getaffinity(0, sizeof saved, &saved) != 0)
		return pb_fail("noise probe: cannot read this thread's CPUs: %s", strerror(errno));
	size_t n = out->n;
	struct series *s = calloc(n, sizeof *s);
	if (!s)
		return pb_fail("noise probe: out of memory");
	double per_cpu_ns = budget_ms * 1e6 / (double)n;
	if (per_cpu_ns < MIN_PER_CPU_MS * 1e6)
		per_cpu_ns = MIN_PER_CPU_MS * 1e6;
	size_t slices = (size_t)ceil(per_cpu_ns / SLICE_NS);
	double slice_ns = per_cpu_ns / (double)slices;
	out->budget_ms = budget_ms;
	out->slice_ms = slice_ns / 1e6;
	double t0 = now_ns();
	int rc = 0;
	for (size_t round = 0; round < slices && rc == 0; round++) {
		for (size_t i = 0; i < n; i++) {
			struct pb_cpu_noise *f = &out->cpu[i];
			if (f->error)
				continue;
			if (!pin_to(f->cpu)) {
				f->error = errno ? errno : EINVAL;
				continue;
			}
			if (!out->iters)
				out->iters = calibrate();
			if (run_slice(out->iters, slice_ns, &s[i]) != 0) {
				rc = pb_fail("noise probe: out of memory");
				break;
			}
		}
	}
	sched_setaffinity(0, sizeof saved, &saved);
	out->wall_ms = (now_ns() - t0) / 1e6;
	for (size_t i = 0; i < n; i++) {
		struct pb_cpu_noise *f = &out->cpu[i];
		f->ok = !f->error && s[i].n > 0;
		figures(&s[i], f);
		free(s[i].t);
	}
	free(s);
	return rc;
}

static bool usable(const struct pb_cpu_noise *f)
{
	return f->ok && f->chunks > 0;
}

static double tail(const struct pb_cpu_noise *f)
{
	return f->median_ns > 0 ? (f->p99_ns - f->median_ns) / f->median_ns : INFINITY;
}

int pb_cpu_noise_choose(const struct pb_cpu_noise *f, size_t n, enum pb_cpu_choice *why)
{
	double least = INFINITY;
	size_t usable_n = 0;
	for (size_t i = 0; i < n; i++)
		if (usable(&f[i])) {
			usable_n++;
			if (f[i].lost_share < least)
				least = f[i].lost_share;
		}
	if (!usable_n)
		return -1;
	double band = TIE_POINTS;
	/* the near-ties on lost share, and the shortest tail among them */
	size_t ties = 0;
	double best_tail = INFINITY;
	for (size_t i = 0; i < n; i++)
		if (usable(&f[i]) && f[i].lost_share <= least + band) {
			ties++;
			if (tail(&f[i]) < best_tail)
				best_tail = tail(&f[i]);
		}
	int pick = -1;
	size_t tail_ties = 0;
	for (size_t i = 0; i < n; i++) {
		if (!usable(&f[i]) || f[i].lost_share > least + band)
			continue;
		if (ties > 1 && tail(&f[i]) > best_tail + TIE_TAIL)
			continue;
		tail_ties++;
		if (pick < 0 || f[i].cpu < f[pick].cpu)
			pick = (int)i;
	}
	if (why)
		*why = ties == 1        ? PB_CHOICE_LEAST_LOST
		       : tail_ties == 1 ? PB_CHOICE_TAIL
		                        : PB_CHOICE_NUMBER;
	return pick;
}

int pb_cpu_place_decide(const cpu_set_t *allowed, struct pb_cpu_place *out)
{
	memset(out, 0, sizeof *out);
	out->cpu = -1;
	pb_cpu_set_format(allowed, out->cpus, sizeof out->cpus);
	int count = CPU_COUNT(allowed);
	double ms = pb_cpu_probe_budget_ms(count > 0 ? (size_t)count : 1);
	if (ms < 0)
		return -1; /* a bad PRIMBENCH_PROBE_MS, also where it does nothing */
	if (count == 0) {
		snprintf(out->note, sizeof out->note, "this process's CPUs are unknown");
		return 0;
	}
	if (ms == 0) {
		out->probe_off = true;
		snprintf(out->note, sizeof out->note, "no probe (PRIMBENCH_PROBE_MS=0)");
		return 0;
	}
	if (count == 1) {
		out->how = PB_PLACE_ONLY;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, allowed))
				out->cpu = c;
		return 0;
	}
	if (pb_cpu_probe_run(allowed, ms, &out->probe) != 0)
		return -1;
	out->probed = true;
	int pick = pb_cpu_noise_choose(out->probe.cpu, out->probe.n, &out->why);
	if (pick >= 0) {
		out->how = PB_PLACE_PROBE;
		out->cpu = out->probe.cpu[pick].cpu;
		return 0;
	}
	const struct pb_cpu_noise *f = &out->probe.cpu[0];
	snprintf(out->note, sizeof out->note, "the noise probe could not pin to CPU %d: %s", f->cpu,
	         strerror(f->error ? f->error : EINVAL));
	return 0;
}

/* "7.9% on CPU 1", "2.2-7.9% on the 3 others": the shares of the CPUs
 * other than the chosen one. */
static void others(const struct pb_cpu_place *pl, char *buf, size_t len)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t k = 0;
	int cpu = -1;
	for (size_t i = 0; i < pl->probe.n; i++) {
		const struct pb_cpu_noise *f = &pl->probe.cpu[i];
		if (!usable(f) || f->cpu == pl->cpu)
			continue;
		k++;
		cpu = f->cpu;
		lo = fmin(lo, f->lost_share);
		hi = fmax(hi, f->lost_share);
	}
	if (k == 0)
		snprintf(buf, len, "no other CPU could be probed");
	else if (k == 1)
		snprintf(buf, len, "%.1f%% on CPU %d", 100 * lo, cpu);
	else
		snprintf(buf, len, "%.1f-%.1f%% on the %zu others", 100 * lo, 100 * hi, k);
}

char *pb_cpu_place_describe(const struct pb_cpu_place *pl, const char *fallback, char *buf,
                            size_t len)
{
	char rest[160];
	switch (pl->how) {
	case PB_PLACE_PROBE: {
		const struct pb_cpu_noise *me = NULL;
		for (size_t i = 0; i < pl->probe.n; i++)
			if (pl->probe.cpu[i].cpu == pl->cpu)
				me = &pl->probe.cpu[i];
		others(pl, rest, sizeof rest);
		static const char *const whys[] = {
		    [PB_CHOICE_LEAST_LOST] = "the quietest",
		    [PB_CHOICE_TAIL] = "a near-tie, the shorter tail,",
		    [PB_CHOICE_NUMBER] = "a near-tie, the lower number,",
		};
		snprintf(buf, len,
		         "CPU %d, %s of %s: a %.2f s probe lost %.1f%% of its time to "
		         "interruptions there, %s (--cpu overrides)",
		         pl->cpu, whys[pl->why], pl->cpus, pl->probe.wall_ms / 1e3,
		         me ? 100 * me->lost_share : 0.0, rest);
		break;
	}
	case PB_PLACE_ONLY:
		snprintf(buf, len, "CPU %d, the only CPU this process may use (no probe)", pl->cpu);
		break;
	case PB_PLACE_OPTION:
		snprintf(buf, len, "CPU%s %s (--cpu)", strpbrk(pl->cpus, ",-") ? "s" : "",
		         pl->cpus);
		break;
	case PB_PLACE_NONE:
	case PB_PLACE_HERE:
		snprintf(buf, len, "%s: %s", pl->note[0] ? pl->note : "no probe", fallback);
		break;
	}
	return buf;
}
