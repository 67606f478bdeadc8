/* patterns.c - the peers' call pattern against primbench's, in one process,
 * for the large hot memset and memcpy rows of docs/validation.md.
 *
 * A peer (lmbench bw_mem bzero, perf bench mem memcpy) times back-to-back
 * calls on one buffer (pair); primbench's hot state rotates two
 * destinations (and sources) and, untimed after each call, refills the
 * destination with another byte (0xA5). This program runs each pattern for
 * CALLS calls, one timed call at a time, in BLOCKS alternated blocks, and
 * prints the median GB/s (10^9 B/s) per pattern and block and each block's
 * ratio to the peer's pattern. Pin it: taskset -c 1.
 *
 * usage: patterns memset MIB BLOCKS CALLS VALUE   (glibc memset)
 *        patterns memcpy MIB BLOCKS CALLS         (inline rep movsb)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if !defined(__x86_64__)
/* Elsewhere: its copy is inline rep movsb and its flush clflush. */
int main(void)
{
	fprintf(stderr, "patterns: x86-64 only (rep movsb, clflush); nothing measured\n");
	return 2;
}
#else

#define MAX_CALLS  256
#define MAX_BLOCKS 64
#define NPAT       4

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
	static double t[MAX_CALLS * MAX_BLOCKS];
	memcpy(t, v, (size_t)n * sizeof *v);
	qsort(t, (size_t)n, sizeof *t, cmp);
	return t[n / 2];
}

static void movsb(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void *map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

struct pattern {
	int nbuf;    /* destinations (memcpy: source/destination pairs) rotating */
	int restore; /* 0: none; 1: refill the destination, 2: and clflush it */
	int fill;    /* memset: the refill byte (-1: the stored value) */
	const char *name;
};

static const struct pattern memset_pat[NPAT] = {
    {1, 0, 0, "1 buffer, no refill (lmbench)"},
    {2, 1, 0xa5, "2 buffers, refill 0xa5 (primbench)"},
    {2, 1, -1, "2 buffers, refill with the value"},
    {1, 1, 0xa5, "1 buffer, refill 0xa5"},
};

static const struct pattern memcpy_pat[NPAT] = {
    {1, 0, 0xa5, "1 pair, no refill (perf)"},
    {2, 1, 0xa5, "2 pairs, refill dst (primbench)"},
    {2, 0, 0xa5, "2 pairs, no refill"},
    {2, 2, 0xa5, "2 pairs, refill dst + clflush it"},
};

int main(int argc, char **argv)
{
	int is_copy = argc > 1 && !strcmp(argv[1], "memcpy");
	if (argc < (is_copy ? 5 : 6) || (!is_copy && strcmp(argv[1], "memset"))) {
		fprintf(stderr, "usage: patterns memset MIB BLOCKS CALLS VALUE\n"
		                "       patterns memcpy MIB BLOCKS CALLS\n");
		return 2;
	}
	size_t n = (size_t)atol(argv[2]) << 20;
	int blocks = atoi(argv[3]), calls = atoi(argv[4]);
	int value = is_copy ? 0 : (int)strtol(argv[5], NULL, 0);
	if (n == 0 || blocks < 1 || blocks > MAX_BLOCKS || calls < 1 || calls > MAX_CALLS) {
		fprintf(stderr, "patterns: MIB > 0, BLOCKS 1-%d, CALLS 1-%d\n", MAX_BLOCKS,
		        MAX_CALLS);
		return 2;
	}
	const struct pattern *pat = is_copy ? memcpy_pat : memset_pat;
	char *dst[2], *src[2] = {NULL, NULL};
	for (int i = 0; i < 2; i++) {
		dst[i] = map(n);
		memset(dst[i], 0xa5, n);
		if (is_copy) {
			src[i] = (char *)map(n + 4096) + 2048; /* primbench's default src offset */
			memset(src[i], 0x3c, n);
		}
	}
	static double all[NPAT][MAX_CALLS * MAX_BLOCKS], bmed[NPAT][MAX_BLOCKS];
	double v[MAX_CALLS];
	for (int k = 0; k < blocks; k++)
		for (int p = 0; p < NPAT; p++) {
			for (int i = 0; i < calls; i++) {
				int j = i % pat[p].nbuf;
				double t = now();
				if (is_copy)
					movsb(dst[j], src[j], n);
				else
					memset(dst[j], value, n);
				t = now() - t;
				v[i] = (double)n / t / 1e9;
				all[p][k * calls + i] = v[i];
				if (pat[p].restore)
					memset(dst[j], pat[p].fill < 0 ? value : pat[p].fill, n);
				if (pat[p].restore == 2) {
					for (size_t o = 0; o < n; o += 64)
						__builtin_ia32_clflush(dst[j] + o);
					__asm__ volatile("mfence" : : : "memory");
				}
			}
			bmed[p][k] = median(v, calls);
		}
	printf("%s %zu MiB, %d blocks x %d calls, GB/s\n", argv[1], n >> 20, blocks, calls);
	for (int p = 0; p < NPAT; p++) {
		printf("  %-36s median %5.1f; block medians", pat[p].name,
		       median(all[p], blocks * calls));
		for (int k = 0; k < blocks; k++)
			printf(" %.1f", bmed[p][k]);
		printf("\n");
	}
	for (int p = 1; p < NPAT; p++) {
		printf("  ratio to the peer's, per block: %-36s", pat[p].name);
		for (int k = 0; k < blocks; k++)
			printf(" %.2f", bmed[p][k] / bmed[0][k]);
		printf("\n");
	}
	return 0;
}
#endif /* __x86_64__ */
