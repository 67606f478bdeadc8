/* probe.c - small scenarios for libprimswitch.so's tests (run_preload.sh).
 *
 *   preload_probe exit N      checked calls of every op, "ok" on stdout, exit N
 *   preload_probe chk SYM     SYM's _chk form with dstlen < n: must abort
 *                             (memset, memcpy, memmove, mempcpy, explicit_bzero)
 *   preload_probe threads     8 threads of checked calls at once, 0.3 s
 *   preload_probe signals     a timer signal whose handler makes checked calls,
 *                             many times, while the main thread makes them too
 *   preload_probe fork        4 children each making checked calls; with
 *                             accounting, each has its own file
 *
 * Plain C with -fno-builtin (every call goes through the PLT), not linked
 * with libprimbench. Exit 0 when every result was right, 1 otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checked.h"

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_exit(int status)
{
	struct checked_bufs b;
	uint64_t seed = 1;
	for (int i = 0; i < 2000; i++)
		if (checked_round(&b, &seed) != 0)
			return 1;
	printf("ok\n");
	return status;
}

static int run_chk(const char *sym)
{
	char small[8], big[64];
	for (int i = 0; i < 64; i++)
		big[i] = (char)i;
	/* n = 16 bytes into an 8-byte object: glibc's __chk_fail. */
	if (!strcmp(sym, "memset"))
		__memset_chk(small, 1, 16, sizeof small);
	else if (!strcmp(sym, "memcpy"))
		__memcpy_chk(small, big, 16, sizeof small);
	else if (!strcmp(sym, "memmove"))
		__memmove_chk(small, big, 16, sizeof small);
	else if (!strcmp(sym, "mempcpy"))
		__mempcpy_chk(small, big, 16, sizeof small);
	else if (!strcmp(sym, "explicit_bzero"))
		__explicit_bzero_chk(small, 16, sizeof small);
	else {
		fprintf(stderr, "unknown symbol '%s'\n", sym);
		return 2;
	}
	printf("__%s_chk returned\n", sym);
	return 0;
}

/* ---- threads ------------------------------------------------------------- */

static volatile int stop;
static int errors;

static void *thread_main(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg + 1;
	struct checked_bufs b;
	while (!stop)
		if (checked_round(&b, &seed) != 0)
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

static int run_threads(void)
{
	pthread_t t[8];
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)i);
	double end = now_s() + 0.3;
	while (now_s() < end)
		usleep(10000);
	stop = 1;
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("threads: %d errors\n", errors);
	return errors != 0;
}

/* ---- signals -------------------------------------------------------------- */

static volatile sig_atomic_t handled, handler_errors;

static void handler(int sig)
{
	(void)sig;
	/* Buffers of its own (the interrupted code may be using the others),
	 * per thread (a process-directed SIGALRM may land in any thread). */
	static __thread struct checked_bufs b __attribute__((tls_model("initial-exec")));
	static __thread uint64_t seed __attribute__((tls_model("initial-exec"))) = 77;
	for (int i = 0; i < 4; i++)
		if (checked_round(&b, &seed) != 0)
			handler_errors = handler_errors + 1;
	handled = handled + 1;
}

static void *signaller(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	while (!stop) {
		pthread_kill(target, SIGUSR1);
		usleep(50);
	}
	return NULL;
}

static int run_signals(void)
{
	/* One handler at a time per thread. */
	struct sigaction sa;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = handler;
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t self = pthread_self(), t;
	pthread_create(&t, NULL, signaller, &self);

	struct checked_bufs b;
	uint64_t seed = 5;
	long rounds = 0;
	int main_errors = 0;
	double end = now_s() + 0.5;
	while (now_s() < end || handled < 1000) {
		main_errors += checked_round(&b, &seed) != 0;
		rounds++;
		if (now_s() > end + 5)
			break;
	}
	stop = 1;
	pthread_join(t, NULL);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("signals: %ld rounds, %d handler runs, %d errors in main, %d in handlers\n", rounds,
	       (int)handled, main_errors, (int)handler_errors);
	return main_errors != 0 || handler_errors != 0 || handled < 1000;
}

/* ---- fork ------------------------------------------------------------------ */

static int run_fork(void)
{
	pid_t pids[4];
	for (int i = 0; i < 4; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct checked_bufs b;
			uint64_t seed = (uint64_t)i + 100;
			for (int r = 0; r < 200; r++)
				if (checked_round(&b, &seed) != 0)
					_exit(1);
			_exit(0);
		}
	}
	int bad = 0;
	for (int i = 0; i < 4; i++) {
		int st = 0;
		waitpid(pids[i], &st, 0);
		bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	}
	struct checked_bufs b;
	uint64_t seed = 9;
	bad += checked_round(&b, &seed) != 0;
	printf("fork: %d children failed\n", bad);
	return bad != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "exit"))
		return run_exit(atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "chk"))
		return run_chk(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "threads"))
		return run_threads();
	if (argc == 2 && !strcmp(argv[1], "signals"))
		return run_signals();
	if (argc == 2 && !strcmp(argv[1], "fork"))
		return run_fork();
	fprintf(stderr, "usage: %s exit N | chk SYM | threads | signals | fork\n", argv[0]);
	return 2;
}
