/* memset_share.c - a program whose share of CPU time in memset is known by
 * construction: the test object of docs/profile.md, "The memset share: two
 * methods against a known answer" (issue 33, item 2).
 *
 * usage: memset-share [-l LOGFILE] [SCALE]   (SCALE 1 to 1000, default 10)
 *
 * Four phases, each a loop of N iterations of `memset(dst, c, S)` (a real
 * call: built with -fno-builtin, S read at run time) followed by a fixed
 * amount of other work (a dependent xorshift chain of K steps in a
 * noinline function), for S = 32 B (many calls: where a per-call cost of
 * the accounting weighs most), 256 B, 64 KiB and 1 MiB (few calls). Each
 * phase is run ROUNDS times "with" the memset and "without" it (the same
 * loop, the call skipped), alternating, each loop timed as a whole with
 * CLOCK_THREAD_CPUTIME_ID (two clock reads per loop of thousands of
 * iterations, nothing per call). The time in memset is
 *
 *     sum over phases and rounds of (time with - time without)
 *
 * the marginal CPU time the calls add, in flow (call, PLT, the library's
 * function and, when preloaded, libprimswitch.so's wrapper), and the known
 * share is that over the process's CPU time at the end of main
 * (CLOCK_PROCESS_CPUTIME_ID; what the loader did before main, well under
 * a millisecond, is left out). Its uncertainty: twice the standard
 * deviation of the per-round differences, scaled to their sum (the rounds
 * vary with the machine's noise), over the same CPU time.
 *
 * The destinations rotate over buffers touched at start (no page fault
 * in a timed loop; the small sizes stay in L1, 64 KiB in L2, 1 MiB in L2
 * or L3). The result is one line on stdout (and appended to LOGFILE with
 * -l, since `primbench cmd` sends the command's output to /dev/null):
 *
 *   memset-share: known memset share 24.1% +- 0.4 pt of 1.02 s CPU time
 *     (32 B: 6.1%, 256 B: 5.0%, 64 KiB: 6.5%, 1 MiB: 6.5%; 1.2e7 calls)
 *
 * Bad arguments: one line on stderr, exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 5

struct phase {
	const char *label;
	size_t size_bytes;   /* of each memset */
	size_t span_bytes;   /* the destinations rotate over this much */
	long iters;          /* per loop, at SCALE 1 */
	unsigned work_steps; /* xorshift steps after each call */
};

/* Chosen so that each phase's memset share is a few percent on a 2-3 GHz
 * x86-64 core: the shares are measured, not assumed. */
static const struct phase phases[] = {
    {"32 B", 32, 16384, 1500000, 4},
    {"256 B", 256, 16384, 500000, 8},
    {"64 KiB", 65536, 4 * 65536, 10000, 1500},
    {"1 MiB", 1 << 20, 4u << 20, 400, 20000},
};
#define NPHASES (sizeof phases / sizeof phases[0])

static unsigned char *buf;
static volatile uint64_t sink;

static double cpu_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Keeps the next work from overlapping the memset before it (the same
 * instruction in both loops): a memset's cost is then its own, not hidden
 * under independent work, and nothing of it waits in the caller (a load of
 * the bytes just stored would stall there, outside memset). */
static inline void serialize(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("isb" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* Other work: a dependent chain the compiler cannot shorten. */
__attribute__((noinline)) static uint64_t work(uint64_t x, unsigned steps)
{
	for (unsigned i = 0; i < steps; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* One timed loop: CPU seconds of the thread. */
__attribute__((noinline)) static double run(const struct phase *ph, long iters, int with_memset)
{
	size_t mask = ph->span_bytes / ph->size_bytes - 1; /* powers of two */
	uint64_t x = 0x9e3779b97f4a7c15ull + (uint64_t)iters;
	double t0 = cpu_s(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < iters; i++) {
		unsigned char *dst = buf + ((size_t)i & mask) * ph->size_bytes;
		if (with_memset)
			memset(dst, (int)(x & 0xff), ph->size_bytes);
		serialize(); /* the work waits for the memset, in both loops */
		x = work(x, ph->work_steps);
	}
	double t = cpu_s(CLOCK_THREAD_CPUTIME_ID) - t0;
	sink += x + buf[(size_t)x & (ph->span_bytes - 1)];
	return t;
}

int main(int argc, char **argv)
{
	const char *log = NULL;
	int a = 1;
	if (a < argc && strcmp(argv[a], "-l") == 0) {
		if (a + 1 >= argc) {
			fprintf(stderr, "memset-share: -l needs a file name\n");
			return 2;
		}
		log = argv[a + 1];
		a += 2;
	}
	long scale = 10;
	if (a < argc) {
		char *end;
		errno = 0;
		scale = strtol(argv[a], &end, 10);
		if (errno || end == argv[a] || *end || scale < 1 || scale > 1000 || a + 1 < argc) {
			fprintf(stderr,
			        "usage: memset-share [-l LOGFILE] [SCALE] (SCALE: 1 to 1000, "
			        "got '%s')\n",
			        argv[a]);
			return 2;
		}
	}
	size_t span = 0;
	for (size_t p = 0; p < NPHASES; p++)
		if (phases[p].span_bytes > span)
			span = phases[p].span_bytes;
	buf = malloc(span);
	if (!buf) {
		fprintf(stderr, "memset-share: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < span; i += 64)
		buf[i] = (unsigned char)i; /* touch every page before timing */

	double memset_s[NPHASES] = {0}, var_s2 = 0;
	uint64_t calls = 0;
	for (size_t p = 0; p < NPHASES; p++) {
		long iters = phases[p].iters * scale / 10;
		if (iters < 1)
			iters = 1;
		double d[ROUNDS], mean = 0;
		for (int r = 0; r < ROUNDS; r++) {
			/* Alternate which goes first, so drift hits both. */
			double w, wo;
			if (r & 1) {
				wo = run(&phases[p], iters, 0);
				w = run(&phases[p], iters, 1);
			} else {
				w = run(&phases[p], iters, 1);
				wo = run(&phases[p], iters, 0);
			}
			d[r] = w - wo;
			mean += d[r] / ROUNDS;
			calls += (uint64_t)iters;
		}
		double ss = 0;
		for (int r = 0; r < ROUNDS; r++)
			ss += (d[r] - mean) * (d[r] - mean);
		/* The variance of the sum of ROUNDS differences. */
		var_s2 += ss / (ROUNDS - 1) * ROUNDS;
		memset_s[p] = mean * ROUNDS;
	}
	double total_s = cpu_s(CLOCK_PROCESS_CPUTIME_ID), in_memset_s = 0;
	for (size_t p = 0; p < NPHASES; p++)
		in_memset_s += memset_s[p];
	double share = 100 * in_memset_s / total_s, err = 100 * 2 * sqrt(var_s2) / total_s;

	char line[512];
	int n = snprintf(line, sizeof line,
	                 "memset-share: known memset share %.2f%% +- %.2f pt of %.3f s CPU time (",
	                 share, err, total_s);
	for (size_t p = 0; p < NPHASES && n > 0 && (size_t)n < sizeof line; p++)
		n += snprintf(line + n, sizeof line - (size_t)n, "%s%s: %.2f%%", p ? ", " : "",
		              phases[p].label, 100 * memset_s[p] / total_s);
	if (n > 0 && (size_t)n < sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, "; %llu calls)",
		         (unsigned long long)calls);
	printf("%s\n", line);
	if (log) {
		FILE *f = fopen(log, "a");
		if (!f) {
			fprintf(stderr, "memset-share: %s: %s\n", log, strerror(errno));
			return 2;
		}
		fprintf(f, "%s\n", line);
		fclose(f);
	}
	return 0;
}
