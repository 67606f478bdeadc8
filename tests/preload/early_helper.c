/* early_helper.c - libpreload_early_helper.so, a library the program
 * preload_early depends on (DT_NEEDED). The dynamic loader runs its
 * constructor before the constructor of an LD_PRELOAD library (which it
 * orders last among the libraries it loaded first), so every call made
 * here reaches libprimswitch.so before its constructor ran.
 *
 * The constructor starts 8 threads making checked calls, so the first
 * call of the process comes from one of them and initialises the library
 * while the others keep calling (the bootstrap kernel serves them), and a
 * timer signal whose handler makes checked calls too. It returns after
 * the threads ran for 30 ms more; preload_early reads the tallies.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include "checked.h"

int early_errors(void);
long early_calls(void);
long early_signals(void);

static volatile int stop;
static int started, errors;
static long calls, signals;

static void *worker(void *arg)
{
	uint64_t seed = (uint64_t)(uintptr_t)arg + 11;
	struct checked_bufs b;
	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!stop) {
		if (checked_round(&b, &seed) != 0)
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&calls, 5, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	/* Per thread: SIGALRM lands in any of them; one at a time in each. */
	static __thread struct checked_bufs b __attribute__((tls_model("initial-exec")));
	static __thread uint64_t seed __attribute__((tls_model("initial-exec"))) = 3;
	if (checked_round(&b, &seed) != 0)
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&signals, 1, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void early_constructor(void)
{
	struct sigaction sa;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);

	pthread_t t[8];
	for (uintptr_t i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < 8)
		sched_yield();
	struct checked_bufs b;
	uint64_t seed = 29;
	for (int i = 0; i < 200; i++)
		if (checked_round(&b, &seed) != 0)
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	usleep(30000);
	stop = 1;
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
}

int early_errors(void)
{
	return errors;
}

long early_calls(void)
{
	return calls;
}

long early_signals(void)
{
	return signals;
}
