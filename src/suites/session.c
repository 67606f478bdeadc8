/* session.c - one measuring run's set-up and tear-down (see
 * include/primbench/session.h). */
#define _GNU_SOURCE
#include "primbench/session.h"
#include "primbench/session_result.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/placement.h"
#include "primbench/text.h"
#include "primbench/timer.h"

/* The session the stop signals are counted in: one at a time. */
static struct pb_session *volatile active;

/* Counts the stop signal for the suites to poll; the exit status is 128 +
 * the last one. The three signals are blocked while it runs, so the count
 * cannot be torn by another of them. */
static void on_stop_signal(int sig)
{
	struct pb_session *s = active;
	if (!s)
		return;
	if (s->stop < INT_MAX)
		s->stop++;
	s->stop_signal = sig;
}

static void install_signals(struct pb_session *s)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: a blocking call returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	active = s;
	sigaction(SIGINT, &sa, &s->old_int);
	sigaction(SIGTERM, &sa, &s->old_term);
	sigaction(SIGHUP, &sa, &s->old_hup);
	struct sigaction ign = {0};
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &s->old_pipe);
	s->signals_installed = true;
}

uint64_t pb_session_make_seed(uint64_t given)
{
	if (given)
		return given & INT64_MAX;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^
	                ((uint64_t)getpid() << 32);
	seed &= INT64_MAX;
	return seed ? seed : 1;
}

int pb_session_pin(int want)
{
	int cpu = want >= 0 ? want : sched_getcpu();
	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		if (want >= 0)
			return pb_fail("--cpu %d: cannot bind to it", want);
		return pb_fail("cannot find the CPU this thread runs on: %s", strerror(errno));
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return pb_fail("--cpu %d: cannot bind to it", cpu);
	return cpu;
}

/* The CPU set-up of begin: the allowed CPUs before pinning, the pinning.
 * 0 or -1 with pb_error(). */
static int place(const struct pb_session_params *p, struct pb_session *s)
{
	CPU_ZERO(&s->allowed);
	if (sched_getaffinity(0, sizeof s->allowed, &s->allowed) != 0)
		CPU_ZERO(&s->allowed);
	s->cpu = -1;
	s->place = (struct pb_cpu_place){.how = PB_PLACE_NONE, .cpu = -1};
	if (p->pin == PB_SESSION_PIN_CPU) {
		if (p->cpu < 0)
			return pb_fail("--cpu %d: cannot bind to it", p->cpu);
		s->cpu = pb_session_pin(p->cpu);
		if (s->cpu < 0)
			return -1;
		s->place.how = PB_PLACE_OPTION;
		s->place.cpu = s->cpu;
		snprintf(s->place.cpus, sizeof s->place.cpus, "%d", s->cpu);
	} else if (p->pin == PB_SESSION_PIN_HERE) {
		/* the quietest allowed CPU, else where the thread is */
		if (pb_cpu_place_decide(&s->allowed, &s->place) != 0)
			return -1;
		if (s->place.cpu >= 0)
			s->cpu = pb_session_pin(s->place.cpu);
		if (s->cpu < 0) {
			s->cpu = pb_session_pin(-1); /* -1: unbound, no error */
			s->place.how = PB_PLACE_HERE;
			s->place.cpu = s->cpu;
		}
		/* PRIMBENCH_PROBE_MS=0 (the CLI tests): as before, silently */
		if (s->place.probe_off)
			return 0;
		char fallback[64], line[400];
		snprintf(fallback, sizeof fallback, "staying on CPU %d, where the run started",
		         s->cpu);
		pb_print_labelled(stderr, 11, "placement:",
		                  pb_cpu_place_describe(&s->place, fallback, line, sizeof line));
	}
	return 0;
}

/* The cpu_list: checked (placement's grammar, pb_cpu_list_parse), the
 * thread not bound. Before place() pins: the first look at the topology
 * records the CPUs the process may use. */
static int check_cpu_list(const struct pb_session_params *p, struct pb_session *s)
{
	if (p->cpu_list) {
		if (pb_cpu_list_parse_set(NULL, p->cpu_list, &s->cpus, sizeof s->cpus) != 0)
			return -1;
		s->has_cpus = true;
	}
	return 0;
}

int pb_session_begin(const struct pb_session_params *p, struct pb_session *s)
{
	memset(s, 0, sizeof *s);
	s->cpu = -1;
	/* Signals first: a Ctrl-C during set-up still ends in an orderly way. */
	install_signals(s);
	s->seed = pb_session_make_seed(p->seed);
	s->started = p->started ? p->started : time(NULL);
	s->out_path = p->out_path;
	if (p->out_path && pb_output_reserve(p->out_path) != 0)
		return -1;
	pb_cache_detect(&s->caches, p->cache_override_bytes);
	/* Pinned before the timer starts, so its calibration runs where the
	 * samples will be taken. */
	if (check_cpu_list(p, s) != 0 || place(p, s) != 0)
		return -1;
	if (p->timer && pb_timer_init() != 0) {
		char why[256];
		snprintf(why, sizeof why, "%s", pb_error());
		return pb_fail("no usable clock: %s", why);
	}
	if (p->timer) {
		/* the top of every measuring command's output; stderr, so that
		 * -f json/csv on stdout stay parseable */
		char emu[600];
		pb_cpu_emulation_line(emu, sizeof emu);
		if (emu[0]) /* wrapped: every line fits in 80 columns */
			pb_print_labelled(stderr, 11, "primbench:", emu);
	}
	if (p->doc) {
		s->doc = pb_results_new(p->argc, p->argv, s->started, &s->caches, s->cpu);
		if (!s->doc)
			return -1;
		if (p->record_seed && pb_results_add_seed(s->doc, s->seed) != 0)
			return -1;
		if (p->pin != PB_SESSION_PIN_NONE &&
		    pb_results_add_placement(s->doc, &s->place) != 0)
			return -1;
	}
	if (p->noise) {
		pb_noise_begin(&s->mark, s->cpu);
		s->noise_running = true;
	}
	return 0;
}

volatile sig_atomic_t *pb_session_stop_flag(struct pb_session *s)
{
	return &s->stop;
}

bool pb_session_stopped(const struct pb_session *s)
{
	return s->stop != 0;
}

int pb_session_exit_status(const struct pb_session *s)
{
	return 128 + (s->stop_signal ? s->stop_signal : SIGINT);
}

const struct pb_noise *pb_session_noise(struct pb_session *s)
{
	if (s->noise_running) {
		pb_noise_end(&s->mark, &s->noise);
		s->noise_running = false;
	}
	return &s->noise;
}

void pb_session_finish(struct pb_session *s, bool interrupted)
{
	const struct pb_noise *noise = pb_session_noise(s);
	if (s->doc)
		pb_results_finish(s->doc, noise, interrupted);
}

int pb_session_write(struct pb_session *s, const struct pb_results_doc *doc)
{
	if (!s->out_path)
		return 0;
	return pb_results_write(doc, s->out_path);
}

void pb_session_end(struct pb_session *s)
{
	pb_results_doc_free(s->doc);
	s->doc = NULL;
	if (s->signals_installed) {
		sigaction(SIGINT, &s->old_int, NULL);
		sigaction(SIGTERM, &s->old_term, NULL);
		sigaction(SIGHUP, &s->old_hup, NULL);
		sigaction(SIGPIPE, &s->old_pipe, NULL);
		s->signals_installed = false;
		if (active == s)
			active = NULL;
	}
}

void pb_session_noise_exclude(struct pb_session *s, int cpu)
{
	pb_noise_exclude(&s->mark, cpu);
}
