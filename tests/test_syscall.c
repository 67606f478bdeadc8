/* test_syscall.c - plumbing of the syscall suite (never speed): the tiny
 * programs exist and exit 0, the pipe pair exchanges the bytes, fork/wait
 * returns the child's status, fault touches its pages, the smaps parser,
 * the input errors, the JSON layout, and a run in replicates. */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/syscall.h"
#include "primbench/timer.h"

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

static void test_tiny_programs(void **state)
{
	(void)state;
	char path[4096];
	for (int s = 0; s < 2; s++) {
		if (pb_syscall_tool_path(s == 0, path, sizeof path) != 0)
			fail_msg("%s", pb_error());
		int st = pb_syscall_check_exec(path, false);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	assert_int_equal(pb_syscall_tool_path(false, path, sizeof path), 0);
	int st = pb_syscall_check_exec(path, true);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void test_fork_status(void **state)
{
	(void)state;
	int st = pb_syscall_check_fork(0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	st = pb_syscall_check_fork(7);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
}

/* The fork-helper's parent forks on request and reports no failure; the
 * size reader sees this process and refuses a process that is not there. */
static void test_fork_helper(void **state)
{
	(void)state;
	uint64_t failed = 99;
	if (pb_syscall_check_fork_helper(3, &failed) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(failed, 0);
	uint64_t rss = 0, vm = 0, maps = 0;
	assert_int_equal(pb_proc_size(0, &rss, &vm, &maps), 0);
	assert_true(rss > 0 && vm >= rss && maps > 0);
	assert_int_equal(pb_proc_size((pid_t)0x7ffffff0, &rss, &vm, &maps), -1);
}

static void test_pipe_pair(void **state)
{
	(void)state;
	int cpus[CPU_SETSIZE];
	size_t n = pb_syscall_allowed_cpus(cpus, CPU_SETSIZE);
	cpu_set_t saved;
	assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
	uint64_t echoed = 0;
	/* Unpinned, then both on one CPU, then on two when there are two. */
	assert_int_equal(pb_syscall_check_pipe_pair(-1, -1, 100, &echoed), 0);
	assert_int_equal(echoed, 100);
	assert_true(n >= 1);
	assert_int_equal(pb_syscall_check_pipe_pair(cpus[0], cpus[0], 57, &echoed), 0);
	assert_int_equal(echoed, 57);
	if (n >= 2) {
		assert_int_equal(pb_syscall_check_pipe_pair(cpus[0], cpus[1], 33, &echoed), 0);
		assert_int_equal(echoed, 33);
	}
	sched_setaffinity(0, sizeof saved, &saved);
}

static void test_fault_touches(void **state)
{
	(void)state;
	uint64_t touched = 0, thp = 0;
	assert_int_equal(pb_syscall_check_fault(16, false, &touched, &thp), 0);
	assert_int_equal(touched, 16);
	assert_int_equal(thp, 0); /* MADV_NOHUGEPAGE */
	assert_int_equal(pb_syscall_check_fault(2, true, &touched, &thp), 0);
	assert_int_equal(touched, 2);
	/* Huge pages may be off or exhausted here: only the bound is certain. */
	assert_true(thp <= 2 * (2u << 20));
}

static const char smaps_sample[] =
    "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234     /usr/bin/primbench\n"
    "Size:                132 kB\n"
    "AnonHugePages:         0 kB\n"
    "VmFlags: rd mr mw me dw sd\n"
    "7f3a00000000-7f3a00600000 rw-p 00000000 00:00 0 \n"
    "Size:               6144 kB\n"
    "Anonymous:          6144 kB\n"
    "AnonHugePages:      4096 kB\n"
    "FilePmdMapped:         0 kB\n"
    "VmFlags: rd wr mr mw me ac sd hg\n"
    "7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0          [stack]\n"
    "Size:                132 kB\n"
    "AnonHugePages:         0 kB\n";

static void test_smaps_parser(void **state)
{
	(void)state;
	assert_int_equal(pb_smaps_anon_huge_bytes(smaps_sample, 0x7f3a00000000ul), 4096u << 10);
	assert_int_equal(pb_smaps_anon_huge_bytes(smaps_sample, 0x7f3a005fffffu), 4096u << 10);
	assert_int_equal(pb_smaps_anon_huge_bytes(smaps_sample, 0x7f3a00600000ul), 0);
	assert_int_equal(pb_smaps_anon_huge_bytes(smaps_sample, 0x55d0c0a00010ul), 0);
	assert_int_equal(pb_smaps_anon_huge_bytes(smaps_sample, 0x1000), 0);
	assert_int_equal(pb_smaps_anon_huge_bytes("", 0x1000), 0);
}

static void test_select(void **state)
{
	(void)state;
	bool sel[PB_SC_COUNT];
	assert_int_equal(pb_syscall_select(NULL, 0, sel), 0);
	for (int b = 0; b < PB_SC_COUNT; b++)
		assert_true(sel[b]);
	const char *two[] = {"pipe-rtt", "exec-static"};
	assert_int_equal(pb_syscall_select(two, 2, sel), 0);
	for (int b = 0; b < PB_SC_COUNT; b++)
		assert_int_equal(sel[b], b == PB_SC_PIPE_RTT || b == PB_SC_EXEC_STATIC);
	const char *bad[] = {"null", "nosuch"};
	assert_int_equal(pb_syscall_select(bad, 2, sel), -1);
	assert_string_equal(pb_error(), "unknown benchmark 'nosuch' (known: null, umask, getpid, "
	                                "read, write, pipe, pipe-rtt, fork, fork-helper, "
	                                "exec-static, exec-dynamic, spawn, fault, mmap, "
	                                "populate)");
}

static void test_bad_cpu(void **state)
{
	(void)state;
	assert_int_equal(pb_syscall_parse_cpu("99", "0-1\n"), -1);
	assert_string_equal(pb_error(), "--cpu 99: no such CPU (online: 0-1)");
	assert_int_equal(pb_syscall_parse_cpu("3", "0,2,4-7"), -1);
	assert_string_equal(pb_error(), "--cpu 3: no such CPU (online: 0,2,4-7)");
	assert_int_equal(pb_syscall_parse_cpu("x", "0-1"), -1);
	assert_string_equal(pb_error(), "bad --cpu 'x' (a CPU number, e.g. 0)");
	assert_int_equal(pb_syscall_parse_cpu("-1", "0-1"), -1);
	int cpus[CPU_SETSIZE];
	size_t n = pb_syscall_allowed_cpus(cpus, CPU_SETSIZE);
	assert_true(n >= 1);
	char arg[16], online[32];
	snprintf(arg, sizeof arg, "%d", cpus[0]);
	snprintf(online, sizeof online, "0-%d", cpus[n - 1]);
	assert_int_equal(pb_syscall_parse_cpu(arg, online), cpus[0]);
	assert_int_equal(pb_syscall_parse_cpu(arg, NULL), cpus[0]);
}

/* Every benchmark once, with tiny sample counts: it runs, and its samples
 * are whole; then the JSON of the result. */
static void test_run_all_and_json(void **state)
{
	(void)state;
	int cpus[CPU_SETSIZE];
	size_t ncpus = pb_syscall_allowed_cpus(cpus, CPU_SETSIZE);
	cpu_set_t saved;
	assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
	assert_int_equal(pb_syscall_pin(cpus[0]), 0);
	struct pb_syscall_params p = {
	    .cpu = cpus[0],
	    .peer_cpu = ncpus > 1 ? cpus[1] : -1,
	    .budget_s = 0.001,
	    .min_samples = 6,
	    .max_samples = 6,
	    .seed = 42,
	};
	assert_int_equal(pb_syscall_select(NULL, 0, p.selected), 0);
	struct pb_syscall_result r;
	if (pb_syscall_run(&p, &r) != 0)
		fail_msg("%s", pb_error());
	sched_setaffinity(0, sizeof saved, &saved);
	bool seen[PB_SC_COUNT] = {0};
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_syscall_case *c = &r.cases[i];
		seen[c->bench] = true;
		assert_int_equal(c->n_samples + (size_t)c->migrations, 6);
		for (size_t j = 0; j < c->n_samples; j++)
			assert_true(c->batch_ops[j] >= 1);
		if (c->n_samples)
			assert_int_equal(c->ticks_per_op.n, c->n_samples);
	}
	for (int b = 0; b < PB_SC_COUNT; b++)
		assert_true(seen[b]);
	/* every fork figure says which process it forked, and its size */
	assert_non_null(strstr(r.notes, "fork: forks primbench itself: VmRSS "));
	assert_non_null(strstr(r.notes, "fork-helper: forks the helper primbench-forker: VmRSS "));
	/* the fault figure says what its sample times and where mem map's
	 * other figure is reconciled with it */
	assert_non_null(strstr(r.notes, "fault: a sample is the first write to each page of a "
	                                "fresh mapping"));
	assert_non_null(strstr(r.notes, "\"Two page-fault figures\""));

	json_t *doc = json_object();
	struct pb_results_doc *rdoc = pb_results_doc_adopt(json_incref(doc));
	json_object_set_new(doc, "cases", json_array());
	json_object_set_new(doc, "notes", json_array());
	assert_int_equal(pb_results_add_syscall(rdoc, &r), 0);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), r.n_cases);
	for (size_t i = 0; i < r.n_cases; i++) {
		json_t *o = json_array_get(cases, i), *key = json_object_get(o, "key");
		assert_string_equal(json_string_value(json_object_get(key, "suite")), "syscall");
		assert_string_equal(json_string_value(json_object_get(key, "benchmark")),
		                    pb_syscall_bench_name(r.cases[i].bench));
		assert_non_null(json_string_value(json_object_get(key, "placement")));
		assert_non_null(json_object_get(key, "page_bytes"));
		assert_true(json_is_array(json_object_get(o, "samples")));
		assert_non_null(json_object_get(o, "unit"));
		assert_true(json_is_true(json_object_get(o, "overhead_subtracted")));
		if (r.cases[i].n_samples) {
			json_t *pc = json_object_get(o, "per_call");
			const char *fields[] = {"n", "min", "p10", "median", "p90", "max"};
			for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
				assert_non_null(json_object_get(pc, fields[f]));
			assert_non_null(json_object_get(pc, "ci_lo"));
			assert_non_null(
			    json_object_get(json_object_get(o, "median_derived"), "ns_per_call"));
			json_t *s0 = json_array_get(json_object_get(o, "samples"), 0);
			assert_int_equal(json_array_size(s0), 2);
		}
		if (r.cases[i].bench == PB_SC_PIPE_RTT)
			assert_true(json_array_size(json_object_get(o, "cpus")) == 2);
	}
	pb_results_doc_free(rdoc);
	json_decref(doc);
	pb_syscall_result_free(&r);
}

/* A stop already raised: nothing measured, no error, marked interrupted. */
static void test_stop(void **state)
{
	(void)state;
	volatile sig_atomic_t stop = 1;
	struct pb_syscall_params p = {
	    .cpu = -1, .peer_cpu = -1, .budget_s = 0.001, .min_samples = 1, .max_samples = 2};
	p.stop = &stop;
	assert_int_equal(pb_syscall_select(NULL, 0, p.selected), 0);
	struct pb_syscall_result r;
	assert_int_equal(pb_syscall_run(&p, &r), 0);
	assert_true(r.interrupted);
	pb_syscall_result_free(&r);
}

/* What the progress of a run in replicates saw; raises *stop at call
 * stop_at (when stop is set). */
struct bench_calls {
	size_t n;
	volatile sig_atomic_t *stop;
	size_t stop_at;
};

static void count_bench(void *ctx, const char *bench)
{
	struct bench_calls *c = ctx;
	assert_string_equal(bench, "null");
	if (c->stop && c->n == c->stop_at)
		*c->stop = 1;
	c->n++;
}

/* pb_syscall_run_replicates of `null`, one sample a replicate: each
 * replicate's share and seed, one group of samples a replicate, the
 * progress in each; a stop ends the run after the replicate it came in. */
static void test_run_replicates(void **state)
{
	(void)state;
	struct bench_calls calls = {0};
	struct pb_syscall_params p = {.cpu = -1,
	                              .peer_cpu = -1,
	                              .budget_s = 0.003,
	                              .min_samples = 1,
	                              .max_samples = 7,
	                              .seed = 9,
	                              .progress = count_bench,
	                              .progress_ctx = &calls};
	const char *names[] = {"null"};
	assert_int_equal(pb_syscall_select(names, 1, p.selected), 0);
	/* replicate r's share: budget / R, max_samples / R (at least
	 * min_samples), the seed moved */
	struct pb_syscall_params rp;
	pb_syscall_replicate_params(&p, 0, 3, &rp);
	assert_true(rp.budget_s > 0.00099 && rp.budget_s < 0.00101);
	assert_int_equal(rp.max_samples, 2);
	assert_true(rp.seed == 9);
	assert_true(rp.selected[PB_SC_NULL] && rp.progress == count_bench);
	pb_syscall_replicate_params(&p, 2, 10, &rp);
	assert_int_equal(rp.max_samples, 1);
	assert_true(rp.seed == 9 + 2 * 0x9E3779B97F4A7C15ull);

	p.max_samples = 3;
	struct pb_syscall_result r;
	if (pb_syscall_run_replicates(&p, 3, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(calls.n, 3);
	assert_false(r.interrupted);
	assert_int_equal(r.n_cases, 1);
	const struct pb_syscall_case *c = &r.cases[0];
	assert_int_equal(c->n_replicates, 3);
	size_t sum = 0;
	for (size_t k = 0; k < 3; k++) {
		assert_true(c->replicate_samples[k] <= 1);
		sum += c->replicate_samples[k];
	}
	assert_int_equal(sum, c->n_samples);
	assert_int_equal(sum + (size_t)c->migrations, 3);
	pb_syscall_result_free(&r);

	/* a stop as the second replicate starts: it is the last one */
	volatile sig_atomic_t stop = 0;
	p.stop = &stop;
	calls = (struct bench_calls){.stop = &stop, .stop_at = 1};
	if (pb_syscall_run_replicates(&p, 3, &r) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(calls.n, 2);
	assert_true(r.interrupted);
	pb_syscall_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tiny_programs),    cmocka_unit_test(test_fork_status),
	    cmocka_unit_test(test_fork_helper),      cmocka_unit_test(test_pipe_pair),
	    cmocka_unit_test(test_fault_touches),    cmocka_unit_test(test_smaps_parser),
	    cmocka_unit_test(test_select),           cmocka_unit_test(test_bad_cpu),
	    cmocka_unit_test(test_run_all_and_json), cmocka_unit_test(test_stop),
	    cmocka_unit_test(test_run_replicates),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
