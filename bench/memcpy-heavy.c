/* memcpy-heavy.c - a program that does little but call memcpy: the
 * subject of bench/preload-overhead.sh, which times it without and with
 * libprimswitch.so.
 *
 * usage: memcpy-heavy [CALLS [THREADS]]   (defaults 20000000, 1)
 *
 * Each thread copies between the halves of a hot 8 KiB buffer of its own, at sizes
 * cycling through 16, 64, 256, 1024 and 4096 bytes (about 1 KiB per call
 * on average; most of the calls are small, as in real programs). Built
 * with -fno-builtin so every memcpy is a real call through the PLT.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long calls_per_thread;

static void *copy_loop(void *arg)
{
	static const size_t sizes[] = {16, 64, 256, 1024, 4096};
	char *buf = arg;
	unsigned long sum = 0;
	for (long i = 0; i < calls_per_thread; i++) {
		size_t n = sizes[i % 5];
		memcpy(buf + (i & 1) * 4096, buf + 4096 - (i & 1) * 4096, n);
		sum += (unsigned char)buf[i & 4095];
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 20000000;
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	if (calls <= 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: %s [CALLS [THREADS]]\n", argv[0]);
		return 2;
	}
	calls_per_thread = calls / threads;
	char *bufs[64];
	for (int i = 0; i < threads; i++) {
		if (!(bufs[i] = malloc(8192)))
			return 1;
		for (int j = 0; j < 8192; j++)
			bufs[i][j] = (char)j;
	}
	/* One thread: the main thread, so the process stays single-threaded
	 * (the accounting's cheaper path); more: that many new threads. */
	unsigned long sum = 0;
	pthread_t t[64];
	if (threads == 1)
		sum = (unsigned long)copy_loop(bufs[0]);
	for (int i = 0; threads > 1 && i < threads; i++)
		if (pthread_create(&t[i], NULL, copy_loop, bufs[i]) != 0)
			return 1;
	for (int i = 0; threads > 1 && i < threads; i++) {
		void *r;
		pthread_join(t[i], &r);
		sum += (unsigned long)r;
	}
	printf("%ld calls in %d threads (checksum %lu)\n", calls_per_thread * threads, threads,
	       sum);
	return 0;
}
