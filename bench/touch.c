/* touch.c - the page-fault peer of bench/validate: a plain loop that maps
 * MIB MiB of anonymous memory (MADV_NOHUGEPAGE: 4 KiB pages) and writes one
 * byte per 4 KiB page, ROUNDS times, each round on a fresh mapping. Timed
 * from outside by `perf stat -e task-clock,page-faults`; run once with MIB
 * and once with 0 (the process's own start and exit), the difference over
 * the pages touched is the price of one page, to set beside `primbench
 * syscall fault`. That price holds the mmap, the fault and the munmap
 * (which frees the page); the loop also splits it on stderr with its own
 * clock_gettime: ns per page in the touch loop and in munmap.
 *
 * usage: touch MIB[K] [ROUNDS]   (ROUNDS default 10; a K suffix: KiB)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	char *end = "";
	long mib = argc > 1 ? strtol(argv[1], &end, 10) : -1;
	long rounds = argc > 2 ? atol(argv[2]) : 10;
	if (mib < 0 || rounds < 1 || (*end && strcmp(end, "K") != 0)) {
		fprintf(stderr, "usage: touch MIB[K] [ROUNDS]\n");
		return 2;
	}
	size_t n = (size_t)mib << (*end ? 10 : 20);
	double touch_ns = 0, unmap_ns = 0;
	for (long r = 0; r < rounds && n; r++) {
		volatile char *p =
		    mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("touch: mmap");
			return 1;
		}
		madvise((void *)p, n, MADV_NOHUGEPAGE);
		double t0 = now_ns();
		for (size_t i = 0; i < n; i += 4096)
			p[i] = 1;
		double t1 = now_ns();
		munmap((void *)p, n);
		touch_ns += t1 - t0;
		unmap_ns += now_ns() - t1;
	}
	if (n) {
		double pages = (double)rounds * (double)(n / 4096);
		fprintf(stderr,
		        "touch: %.0f pages: %.1f ns/page touching, %.1f ns/page in munmap\n", pages,
		        touch_ns / pages, unmap_ns / pages);
	}
	return 0;
}
