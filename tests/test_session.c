/* test_session.c - the run session's invariants (never speed): a raised
 * SIGINT sets the stop flag and the exit status, the seed given is the
 * seed recorded, the write leaves the old file or the whole new one,
 * pinning reports the CPU it bound to, a bad CPU is an error, and the
 * signal actions are put back at the end. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/session.h"

static char *argv0[] = {"test_session", NULL};

/* A temporary directory per test, removed with its files. */
static int make_dir(void **state)
{
	char *dir = strdup("/tmp/pb-session-XXXXXX");
	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int remove_dir(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", (char *)*state);
	free(*state);
	return system(cmd) == 0 ? 0 : -1;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_sigint_sets_stop(void **state)
{
	(void)state;
	struct sigaction int_before, pipe_before, now;
	sigaction(SIGINT, NULL, &int_before);
	sigaction(SIGPIPE, NULL, &pipe_before);
	struct pb_session s;
	struct pb_session_params p = {.pin = PB_SESSION_PIN_NONE};
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_false(pb_session_stopped(&s));
	assert_int_equal(*pb_session_stop_flag(&s), 0);
	raise(SIGINT);
	assert_true(pb_session_stopped(&s));
	assert_int_equal(*pb_session_stop_flag(&s), 1);
	assert_int_equal(pb_session_exit_status(&s), 130);
	raise(SIGTERM); /* a second signal counts (cmd kills at it) */
	assert_int_equal(s.stop, 2);
	assert_int_equal(pb_session_exit_status(&s), 128 + SIGTERM);
	/* SIGPIPE is ignored during the session */
	sigaction(SIGPIPE, NULL, &now);
	assert_true(now.sa_handler == SIG_IGN);
	pb_session_end(&s);
	/* the actions before the session are back */
	sigaction(SIGINT, NULL, &now);
	assert_true(now.sa_handler == int_before.sa_handler);
	sigaction(SIGPIPE, NULL, &now);
	assert_true(now.sa_handler == pipe_before.sa_handler);
}

static void test_seed_given_is_recorded(void **state)
{
	(void)state;
	struct pb_session s;
	struct pb_session_params p = {.argc = 1,
	                              .argv = argv0,
	                              .seed = 12345,
	                              .pin = PB_SESSION_PIN_NONE,
	                              .doc = true,
	                              .record_seed = true};
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_int_equal(s.seed, 12345);
	json_t *seed = json_object_get(pb_results_doc_json(s.doc), "seed");
	assert_non_null(seed);
	assert_int_equal(json_integer_value(seed), 12345);
	pb_session_end(&s);
	assert_null(s.doc);
	/* made seeds: 63 bits, never 0; given ones are masked to 63 bits */
	for (int i = 0; i < 100; i++) {
		uint64_t made = pb_session_make_seed(0);
		assert_true(made != 0 && made <= INT64_MAX);
	}
	assert_int_equal(pb_session_make_seed(UINT64_MAX), INT64_MAX);
	assert_int_equal(pb_session_make_seed(7), 7);
}

static void test_write_old_or_whole_new(void **state)
{
	char path[256];
	snprintf(path, sizeof path, "%s/out.json", (char *)*state);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("old\n", f);
	fclose(f);

	struct pb_session s;
	struct pb_session_params p = {.argc = 1,
	                              .argv = argv0,
	                              .seed = 9,
	                              .pin = PB_SESSION_PIN_NONE,
	                              .noise = true,
	                              .doc = true,
	                              .record_seed = true,
	                              .out_path = path};
	assert_int_equal(pb_session_begin(&p, &s), 0);
	/* reserved, not yet written: the old file is untouched */
	char *text = read_all(path);
	assert_string_equal(text, "old\n");
	free(text);
	raise(SIGINT);
	pb_session_finish(&s, pb_session_stopped(&s));
	assert_int_equal(pb_session_write(&s, s.doc), 0);
	pb_session_end(&s);

	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	assert_non_null(doc); /* whole: it parses */
	assert_int_equal(json_integer_value(json_object_get(doc, "seed")), 9);
	assert_true(json_is_true(json_object_get(doc, "interrupted")));
	assert_non_null(json_object_get(doc, "machine"));
	json_decref(doc);
	/* only out.json is left: the temporary file was renamed over it */
	char cmd[400];
	snprintf(cmd, sizeof cmd, "test \"$(ls -A '%s')\" = out.json", (char *)*state);
	assert_int_equal(system(cmd), 0);
}

static void test_write_without_path(void **state)
{
	(void)state;
	struct pb_session s;
	struct pb_session_params p = {
	    .argc = 1, .argv = argv0, .pin = PB_SESSION_PIN_NONE, .doc = true};
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_null(json_object_get(pb_results_doc_json(s.doc), "seed")); /* not asked for */
	assert_int_equal(pb_session_write(&s, s.doc), 0);
	pb_session_end(&s);
}

static void test_reserve_fails_early(void **state)
{
	char path[256];
	snprintf(path, sizeof path, "%s/missing/out.json", (char *)*state);
	struct pb_session s;
	struct pb_session_params p = {.pin = PB_SESSION_PIN_NONE, .out_path = path};
	assert_int_equal(pb_session_begin(&p, &s), -1);
	assert_non_null(strstr(pb_error(), "cannot write"));
	pb_session_end(&s);
}

static void test_pin_allowed_cpu(void **state)
{
	(void)state;
	cpu_set_t before;
	assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
	int want = -1;
	for (int c = 0; c < CPU_SETSIZE && want < 0; c++)
		if (CPU_ISSET(c, &before))
			want = c;
	struct pb_session s;
	struct pb_session_params p = {.pin = PB_SESSION_PIN_CPU, .cpu = want};
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_int_equal(s.cpu, want);
	assert_true(CPU_EQUAL(&s.allowed, &before)); /* noted before pinning */
	cpu_set_t now;
	sched_getaffinity(0, sizeof now, &now);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(want, &now));
	pb_session_end(&s);

	/* here: the CPU it runs on */
	p.pin = PB_SESSION_PIN_HERE;
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_int_equal(s.cpu, want);
	pb_session_end(&s);
	sched_setaffinity(0, sizeof before, &before);
}

static void test_bad_cpu(void **state)
{
	(void)state;
	cpu_set_t before;
	sched_getaffinity(0, sizeof before, &before);
	struct pb_session s;
	struct pb_session_params p = {.pin = PB_SESSION_PIN_CPU, .cpu = CPU_SETSIZE + 5};
	assert_int_equal(pb_session_begin(&p, &s), -1);
	assert_non_null(strstr(pb_error(), "cannot bind to it"));
	pb_session_end(&s);
	cpu_set_t now;
	sched_getaffinity(0, sizeof now, &now);
	assert_true(CPU_EQUAL(&now, &before)); /* left where it was */

	/* a --cpu LIST (placement's grammar, test_placement.c): checked, the
	 * thread not bound */
	p = (struct pb_session_params){.pin = PB_SESSION_PIN_NONE, .cpu_list = "65000"};
	assert_int_equal(pb_session_begin(&p, &s), -1);
	assert_non_null(strstr(pb_error(), "CPU 65000 not available to this process"));
	pb_session_end(&s);
	p.cpu_list = "2-1";
	assert_int_equal(pb_session_begin(&p, &s), -1);
	assert_non_null(strstr(pb_error(), "bad CPU list '2-1': a range runs backwards"));
	pb_session_end(&s);
	int first = -1;
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &before))
			first = c;
	char list[16];
	snprintf(list, sizeof list, "%d", first);
	p.cpu_list = list;
	assert_int_equal(pb_session_begin(&p, &s), 0);
	assert_true(s.has_cpus);
	assert_int_equal(CPU_COUNT(&s.cpus), 1);
	assert_true(CPU_ISSET(first, &s.cpus));
	assert_int_equal(s.cpu, -1);
	sched_getaffinity(0, sizeof now, &now);
	assert_true(CPU_EQUAL(&now, &before));
	pb_session_end(&s);
}

/* The noise window: CPUs counted as the run's own (worker threads) are not
 * "other CPUs"; when every CPU is the run's, no_other_cpus says so. */
static void test_noise_exclude(void **state)
{
	(void)state;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	static struct pb_noise_mark m; /* 16 KiB */
	struct pb_noise out;
	pb_noise_begin(&m, 0);
	usleep(50000); /* a few jiffies */
	pb_noise_end(&m, &out);
	if (!out.valid)
		skip(); /* no /proc/stat */
	assert_int_equal(out.no_other_cpus, n <= 1);
	pb_noise_begin(&m, 0);
	for (long c = 0; c < n; c++)
		pb_noise_exclude(&m, (int)c);
	pb_noise_exclude(&m, -1);     /* ignored */
	pb_noise_exclude(&m, 100000); /* ignored */
	usleep(50000);
	pb_noise_end(&m, &out);
	assert_true(out.no_other_cpus);
}

/* The busy-CPU rule (pb_noise_judge) on fixture /proc text: two
 * snapshots 10 s apart at USER_HZ 100, the measuring thread on CPU 0. */
static const char stat_a[] = "cpu  1000 0 500 8000 0 0 0 0 0 0\n"
                             "cpu0 500 0 250 4000 0 0 0 0 0 0\n"
                             "cpu1 500 0 250 4000 0 0 0 0 0 0\n"
                             "intr 12345\n";
#define SEC 1000000000ull

static struct pb_noise noise_of(const char *stat_b, const char *sched_a, const char *sched_b,
                                long nivcsw_b, unsigned long long self_b_ns,
                                unsigned long long x_wait_ns, unsigned long long x_mono_ns,
                                long x_nivcsw)
{
	static struct pb_noise_mark a, b; /* 16 KiB each: not on the stack */
	pb_noise_mark_from_text(&a, 0, stat_a, sched_a, 0, 0, 0, 100 * SEC, 100);
	pb_noise_mark_from_text(&b, 0, stat_b, sched_b, 0, nivcsw_b, self_b_ns, 110 * SEC, 100);
	a.x_wait_ns = x_wait_ns;
	a.x_mono_ns = x_mono_ns;
	a.x_nivcsw = x_nivcsw;
	struct pb_noise n;
	pb_noise_between(&a, &b, &n);
	return n;
}

static void test_noise_busy_cpu(void **state)
{
	(void)state;
	/* quiet: CPU 0 busy exactly the process's 6 s, the thread waited 1 ms,
	 * 80 preemptions in 10 s; CPU 1 idle */
	struct pb_noise n = noise_of("cpu  1600 0 500 9400 0 0 0 0 0 0\n"
	                             "cpu0 1100 0 250 4400 0 0 0 0 0 0\n"
	                             "cpu1 500 0 250 5000 0 0 0 0 0 0\n",
	                             "1000 2000 5", "6000001000 1002000 50", 80, 6 * SEC, 0, 0, 0);
	assert_true(n.valid && n.sched_valid && n.cpu_valid);
	assert_true(fabs(n.run_delay_pct - 0.01) < 1e-9);
	assert_true(fabs(n.involuntary_per_s - 8) < 1e-9);
	assert_true(n.measuring_cpu_others_pct < 1e-9);
	assert_false(n.high);
	assert_string_equal(n.high_cause, "");

	/* another task on CPU 0: it ran 10 s, the process 5 s of them; the
	 * thread waited 5 s, preempted 1300 times */
	n = noise_of("cpu  2000 0 500 9000 0 0 0 0 0 0\n"
	             "cpu0 1500 0 250 4000 0 0 0 0 0 0\n"
	             "cpu1 500 0 250 5000 0 0 0 0 0 0\n",
	             "1000 2000 5", "5000001000 5000002000 50", 1300, 5 * SEC, 0, 0, 0);
	assert_true(n.high);
	assert_true(fabs(n.run_delay_pct - 50) < 1e-9);
	assert_true(fabs(n.measuring_cpu_others_pct - 50) < 1e-9);
	assert_true(fabs(n.involuntary_per_s - 130) < 1e-9);
	assert_non_null(strstr(n.high_cause, "waited 50.0% of the run for its CPU"));
	assert_non_null(strstr(n.high_cause, "gave 50% of its time to other tasks"));
	assert_non_null(strstr(n.high_cause, "preempted 130 times a second"));
	/* the other CPUs were idle: no word of them */
	assert_null(strstr(n.high_cause, "other CPUs"));

	/* the same wait inside a span left out (the syscall suite's own
	 * children): over the 5 s left, no wait, no preemption rule */
	n = noise_of("cpu  2000 0 500 9000 0 0 0 0 0 0\n"
	             "cpu0 1500 0 250 4000 0 0 0 0 0 0\n"
	             "cpu1 500 0 250 5000 0 0 0 0 0 0\n",
	             "1000 2000 5", "5000001000 5000002000 50", 1300, 10 * SEC, 5 * SEC, 5 * SEC,
	             1300);
	assert_true(n.sched_valid);
	assert_true(n.run_delay_pct < 1e-9);
	assert_false(n.high);

	/* steal: 10% of all CPU time (the 8th field) */
	n = noise_of("cpu  1100 0 500 9700 0 0 0 200 0 0\n"
	             "cpu0 550 0 250 4850 0 0 0 100 0 0\n"
	             "cpu1 550 0 250 4850 0 0 0 100 0 0\n",
	             "1000 2000 5", "500001000 2000 5", 0, (unsigned long long)(0.5 * SEC), 0, 0,
	             0);
	assert_true(n.high);
	assert_true(fabs(n.steal_pct - 10) < 1e-9);
	assert_non_null(strstr(n.high_cause, "steal 10.0% of CPU time"));

	/* no schedstat (a kernel without CONFIG_SCHED_INFO): that rule is not
	 * judged, the others are */
	n = noise_of("cpu  1600 0 500 9400 0 0 0 0 0 0\n"
	             "cpu0 1100 0 250 4400 0 0 0 0 0 0\n"
	             "cpu1 500 0 250 5000 0 0 0 0 0 0\n",
	             NULL, NULL, 80, 6 * SEC, 0, 0, 0);
	assert_false(n.sched_valid);
	assert_false(n.high);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sigint_sets_stop),
	    cmocka_unit_test(test_seed_given_is_recorded),
	    cmocka_unit_test_setup_teardown(test_write_old_or_whole_new, make_dir, remove_dir),
	    cmocka_unit_test(test_write_without_path),
	    cmocka_unit_test_setup_teardown(test_reserve_fails_early, make_dir, remove_dir),
	    cmocka_unit_test(test_pin_allowed_cpu),
	    cmocka_unit_test(test_bad_cpu),
	    cmocka_unit_test(test_noise_exclude),
	    cmocka_unit_test(test_noise_busy_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
