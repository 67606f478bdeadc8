/* timer.c - chooses the clock and measures what a caller must know about
 * it: overhead, step (resolution), frequency and its provenance, and an
 * estimate of the core clock. The reads themselves are in
 * src/timer/<arch>/tsc.c.
 *
 * Budget: about 0.11 s, nearly all of it the 5 x 20 ms calibration.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/timer.h"
#include "timer/timer_internal.h"

static struct pb_timer_info info;
static bool initialized;
static double ns_per_tick = 1.0;
static char freq_desc[320];
static char fallback_desc[160];

#define CAL_ROUNDS      5
#define CAL_ROUND_NS    20000000u /* 20 ms */
#define CAL_MAX_SPREAD  0.01      /* beyond 1%, the TSC does not tick steadily */
#define CPUID_AGREEMENT 0.01      /* a cpuid figure within 1% of calibration is used */
#define HZ16_MAX_SPREAD 1000.0    /* ppm: calibration noisier than this prefers 0x16 */
#define OVERHEAD_PAIRS  10001
#define STEP_TRIALS     101
#define STEP_READS      256
#define CHAIN_ADDS      1000000u
#define CHAIN_ROUNDS    7

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* A TSC read paired with the clock time at that moment: the clock is read
 * on both sides and the tightest of a few brackets kept, so an interrupt
 * inside one bracket does not move the pairing. */
static uint64_t tsc_at(uint64_t *ns)
{
	uint64_t best_width = UINT64_MAX, tsc = 0;
	for (int i = 0; i < 5; i++) {
		uint64_t a = pb_clock_raw_ns();
		uint64_t t = pb_tsc_read();
		uint64_t b = pb_clock_raw_ns();
		if (b - a < best_width) {
			best_width = b - a;
			*ns = a + (b - a) / 2;
			tsc = t;
		}
	}
	return tsc;
}

/* Median TSC rate over the rounds; *spread_ppm = (max - min) / median. */
static double calibrate(double *spread_ppm)
{
	double hz[CAL_ROUNDS];
	for (int r = 0; r < CAL_ROUNDS; r++) {
		uint64_t ns0 = 0, ns1 = 0;
		uint64_t t0 = tsc_at(&ns0);
		while (pb_clock_raw_ns() - ns0 < CAL_ROUND_NS)
			;
		uint64_t t1 = tsc_at(&ns1);
		hz[r] = (double)(t1 - t0) * 1e9 / (double)(ns1 - ns0);
	}
	qsort(hz, CAL_ROUNDS, sizeof hz[0], cmp_double);
	double med = hz[CAL_ROUNDS / 2];
	*spread_ppm = med > 0 ? (hz[CAL_ROUNDS - 1] - hz[0]) / med * 1e6 : 1e6;
	return med;
}

/* Chooses the TSC frequency: cpuid 0x15 when it agrees with calibration
 * within 1%; cpuid 0x16 (an integer-MHz base frequency, which may differ
 * from the TSC rate by a few tenths of a percent) only when calibration
 * itself was noisier than 1000 ppm and 0x16 agrees within 1%; otherwise
 * the calibration. desc says which, and what was set aside. */
double pb_timer_choose_hz(double hz15, double hz16, const char *leaves, double cal_hz,
                          double spread_ppm, enum pb_freq_source *source, char *desc,
                          size_t desc_len)
{
	char cal_desc[120];
	snprintf(cal_desc, sizeof cal_desc,
	         "calibrated against CLOCK_MONOTONIC_RAW (%d x %u ms, spread %.1f ppm)", CAL_ROUNDS,
	         CAL_ROUND_NS / 1000000u, spread_ppm);

	*source = PB_FREQ_CALIBRATED;
	if (hz15 > 0) {
		double off = (hz15 - cal_hz) / cal_hz;
		if (fabs(off) <= CPUID_AGREEMENT) {
			*source = PB_FREQ_CPUID_15H;
			snprintf(desc, desc_len,
			         "cpuid leaf 0x15 (%s); calibration agrees within %.3f%%", leaves,
			         fabs(off) * 100);
			return hz15;
		}
		snprintf(desc, desc_len, "%s; cpuid leaf 0x15 says %.3f MHz, %+.2f%% off: not used",
		         cal_desc, hz15 / 1e6, off * 100);
		return cal_hz;
	}
	if (hz16 > 0) {
		double off = (hz16 - cal_hz) / cal_hz;
		if (fabs(off) <= CPUID_AGREEMENT && spread_ppm > HZ16_MAX_SPREAD) {
			*source = PB_FREQ_CPUID_16H;
			snprintf(
			    desc, desc_len,
			    "cpuid leaf 0x16 base frequency (approximate); %s, too noisy to prefer",
			    cal_desc);
			return hz16;
		}
		snprintf(desc, desc_len, "%s; cpuid leaf 0x16 base %.0f MHz is %+.2f%% off%s",
		         cal_desc, hz16 / 1e6, off * 100,
		         fabs(off) <= CPUID_AGREEMENT ? " (a cross-check only)" : ": not used");
		return cal_hz;
	}
	snprintf(desc, desc_len, "%s (%s)", cal_desc, leaves);
	return cal_hz;
}

double pb_timer_choose_stated_hz(double stated_hz, const char *reg, double cal_hz,
                                 double spread_ppm, enum pb_freq_source *source, char *desc,
                                 size_t desc_len)
{
	double off = cal_hz > 0 ? (stated_hz - cal_hz) / cal_hz : INFINITY;
	if (fabs(off) <= CPUID_AGREEMENT) {
		*source = PB_FREQ_REGISTER;
		snprintf(desc, desc_len, "%s (%.3f MHz); calibration agrees within %.3f%%", reg,
		         stated_hz / 1e6, fabs(off) * 100);
		return stated_hz;
	}
	*source = PB_FREQ_CALIBRATED;
	snprintf(desc, desc_len,
	         "calibrated against CLOCK_MONOTONIC_RAW (%d x %u ms, spread %.1f ppm); %s says "
	         "%.3f MHz, %+.2f%% off: not used",
	         CAL_ROUNDS, CAL_ROUND_NS / 1000000u, spread_ppm, reg, stated_hz / 1e6, off * 100);
	return cal_hz;
}

static double measure_overhead(void)
{
	static uint64_t d[OVERHEAD_PAIRS];
	return pb_timer_overhead_measure(d, OVERHEAD_PAIRS);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Resolution: in each trial, the smallest non-zero difference between
 * back-to-back reads; the median over trials. A TSC that a hypervisor
 * advances in coarse steps (~21 ticks seen on one VM) shows here; on a
 * fine-grained TSC the figure is the cost of one read. *granularity gets
 * the gcd of every difference: the increment the clock moves by. */
static double measure_step(double *granularity)
{
	uint64_t mins[STEP_TRIALS];
	uint64_t g = 0;
	for (int t = 0; t < STEP_TRIALS; t++) {
		uint64_t best = UINT64_MAX;
		pb_stamp prev = pb_timer_begin();
		for (int i = 0; i < STEP_READS; i++) {
			pb_stamp now = pb_timer_begin();
			if (now > prev) {
				if (now - prev < best)
					best = now - prev;
				g = gcd_u64(g, now - prev);
			}
			prev = now;
		}
		mins[t] = best == UINT64_MAX ? 1 : best;
	}
	*granularity = g ? (double)g : 1;
	return median_u64(mins, STEP_TRIALS);
}

/* Core clock from a dependent-add chain, one add per core cycle: the
 * fastest of a few rounds (an interrupt only ever slows a round), after a
 * warm-up round that lets the core leave a low-power state. */
static double estimate_core_hz(void)
{
	if (pb_arch_add_chain(CHAIN_ADDS) == 0)
		return 0;
	uint64_t best = UINT64_MAX, adds = 0;
	for (int r = 0; r < CHAIN_ROUNDS; r++) {
		pb_stamp s = pb_timer_begin();
		adds = pb_arch_add_chain(CHAIN_ADDS);
		uint64_t t = pb_timer_end(s);
		if (t > 0 && t < best)
			best = t;
	}
	if (best == UINT64_MAX)
		return 0;
	return (double)adds / ((double)best / info.hz);
}

static void use_clock(const char *reason)
{
	pb_timer_use_tsc = 0;
	info.clock = PB_CLOCK_MONOTONIC_RAW;
	info.clock_name = "clock_monotonic_raw";
	info.tick_unit = "ns";
	info.clock_desc = "clock_gettime(CLOCK_MONOTONIC_RAW), ticks are ns";
	snprintf(fallback_desc, sizeof fallback_desc, "%s", reason);
	info.fallback_reason = fallback_desc;
	info.hz = 1e9;
	info.freq_source = PB_FREQ_NOMINAL_NS;
	info.freq_source_desc = "nanoseconds by definition";
}

int pb_timer_init(void)
{
	if (initialized)
		return 0;
	memset(&info, 0, sizeof info);
	freq_desc[0] = '\0';

	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
		return pb_fail("clock_gettime(CLOCK_MONOTONIC_RAW) fails: %s", strerror(errno));

	bool tsc_ok = false;
	const char *why_not = NULL;
	if (!pb_tsc_arch_present())
		use_clock("no TSC on this architecture build");
	else if ((why_not = pb_tsc_arch_unusable()) != NULL)
		use_clock(why_not);
	else
		tsc_ok = true;

	if (tsc_ok) {
		double spread;
		info.calibrated_hz = calibrate(&spread);
		if (spread / 1e6 >
		    CAL_MAX_SPREAD) /* once more: one preempted round is not a verdict */
			info.calibrated_hz = calibrate(&spread);
		info.calibration_error_ppm = spread;
		if (spread / 1e6 > CAL_MAX_SPREAD || !(info.calibrated_hz > 0)) {
			char why[120];
			snprintf(
			    why, sizeof why,
			    "%s rate against CLOCK_MONOTONIC_RAW varies by %.0f ppm (over 1%%)",
			    strcmp(pb_tsc_arch_names()->clock, "tsc") ? "counter" : "TSC", spread);
			use_clock(why);
		} else {
			const struct pb_tsc_arch_names *names = pb_tsc_arch_names();
			pb_timer_use_tsc = 1;
			info.clock = PB_CLOCK_TSC;
			info.clock_name = names->clock;
			info.tick_unit = names->tick_unit;
			info.clock_desc = names->desc;
			info.fallback_reason = NULL;
			double hz15, hz16;
			char leaves[120], reg[64];
			double stated = pb_tsc_arch_stated_hz(reg, sizeof reg);
			if (stated > 0) {
				info.hz = pb_timer_choose_stated_hz(stated, reg, info.calibrated_hz,
				                                    spread, &info.freq_source,
				                                    freq_desc, sizeof freq_desc);
			} else {
				pb_tsc_cpuid_freq(&hz15, &hz16, leaves, sizeof leaves);
				info.hz = pb_timer_choose_hz(hz15, hz16, leaves, info.calibrated_hz,
				                             spread, &info.freq_source, freq_desc,
				                             sizeof freq_desc);
			}
			info.freq_source_desc = freq_desc;
		}
	}

	ns_per_tick = 1e9 / info.hz;
	info.overhead_ticks = measure_overhead();
	info.step_ticks = measure_step(&info.granularity_ticks);
	info.core_hz_estimate = estimate_core_hz();
	initialized = true;
	return 0;
}

const struct pb_timer_info *pb_timer_info(void)
{
	return &info;
}

bool pb_tick_unit_is_counter(const char *unit)
{
	return unit && (!strcmp(unit, "tsc_ticks") || !strcmp(unit, "cntvct_ticks"));
}

void pb_tick_unit_label(const char *unit, double hz, char *buf, size_t len)
{
	if (unit && !strcmp(unit, "tsc_ticks"))
		snprintf(buf, len, "TSC ticks (reference cycles)");
	else if (unit && !strcmp(unit, "cntvct_ticks") && hz > 0)
		snprintf(buf, len, "counter ticks at %.3f MHz", hz / 1e6);
	else if (unit && !strcmp(unit, "cntvct_ticks"))
		snprintf(buf, len, "counter ticks");
	else
		snprintf(buf, len, "%s", unit ? unit : "ticks");
}

double pb_ticks_to_ns(double ticks)
{
	return ticks * ns_per_tick;
}

void pb_timer_reset_for_tests(void)
{
	initialized = false;
	pb_timer_use_tsc = 0;
	memset(&info, 0, sizeof info);
	ns_per_tick = 1.0;
}

/* ---- hardware counters ------------------------------------------------- */

bool pb_timer_hw_counters_probe(char *why, size_t why_len)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = 1; /* allowed up to perf_event_paranoid 2 */
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		int e = errno;
		const char *hint = "";
		if (e == ENOENT || e == EOPNOTSUPP)
			hint = ": no hardware PMU exposed (usual in VMs)";
		else if (e == EACCES || e == EPERM)
			hint = ": forbidden (see /proc/sys/kernel/perf_event_paranoid)";
		else if (e == ENOSYS)
			hint = ": system call unavailable (kernel or seccomp)";
		snprintf(why, why_len, "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) fails (%s)%s",
		         strerror(e), hint);
		return false;
	}
	uint64_t count = 0;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	volatile uint64_t sink = 0;
	for (int i = 0; i < 100000; i++)
		sink = sink + (uint64_t)i;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ssize_t n = read(fd, &count, sizeof count);
	close(fd);
	if (n != (ssize_t)sizeof count || count == 0) {
		snprintf(why, why_len,
		         "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) opens but counts nothing");
		return false;
	}
	snprintf(why, why_len,
	         "perf_event_open(PERF_COUNT_HW_CPU_CYCLES) counts (%llu cycles over a test loop)",
	         (unsigned long long)count);
	return true;
}
