/* test_placement.c - thread placement plans on synthetic hwloc topologies
 * (exact CPUs for compact and scatter), CPU lists, and pinning on this
 * machine; --mem-node parsing and memory binding.
 *
 * The main topology, T64 = "package:2 numa:2 core:8 pu:2": 2 packages of
 * 2 NUMA nodes of 8 cores of 2 PUs; 32 cores, 64 PUs. hwloc numbers a
 * synthetic topology's objects in order: core c holds PUs 2c and 2c+1,
 * lies on NUMA node c/8 and on package c/16.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <hwloc.h>

#include "primbench/error.h"
#include "primbench/placement.h"

#define T64 "package:2 numa:2 core:8 pu:2"

static hwloc_topology_t load_synthetic(const char *desc, unsigned long flags)
{
	hwloc_topology_t t;
	assert_int_equal(hwloc_topology_init(&t), 0);
	assert_int_equal(hwloc_topology_set_synthetic(t, desc), 0);
	assert_int_equal(hwloc_topology_set_flags(t, flags), 0);
	assert_int_equal(hwloc_topology_load(t), 0);
	return t;
}

static void plan_ok(hwloc_topology_t t, const char *list, enum pb_placement p, unsigned n,
                    struct pb_placement_plan *plan)
{
	int rc = pb_placement_plan(t, list, p, n, plan);
	if (rc != 0)
		fail_msg("plan of %u threads on '%s': %s", n, list ? list : "(all)", pb_error());
	assert_int_equal(plan->n_threads, n);
	assert_non_null(plan->threads);
}

static void assert_cpus(const struct pb_placement_plan *plan, const unsigned *want, unsigned n)
{
	assert_int_equal(plan->n_threads, n);
	for (unsigned i = 0; i < n; i++)
		if (plan->threads[i].os_cpu != want[i])
			fail_msg("thread %u on cpu %u, want %u", i, plan->threads[i].os_cpu,
			         want[i]);
}

#define ASSERT_CPUS(plan, ...)                                                                     \
	do {                                                                                       \
		static const unsigned want_[] = {__VA_ARGS__};                                     \
		assert_cpus(plan, want_, sizeof want_ / sizeof want_[0]);                          \
	} while (0)

static const unsigned thread_counts[] = {1, 2, 4, 16, 32, 64, 65};
#define N_COUNTS (sizeof thread_counts / sizeof thread_counts[0])

/* ---- compact ------------------------------------------------------------- */

static void test_compact_literal(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 1, &plan);
	ASSERT_CPUS(&plan, 0);
	pb_placement_plan_free(&plan);
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 2, &plan);
	ASSERT_CPUS(&plan, 0, 2);
	pb_placement_plan_free(&plan);
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 4, &plan);
	ASSERT_CPUS(&plan, 0, 2, 4, 6);
	pb_placement_plan_free(&plan);
	/* 16 threads: package 0 full (nodes 0 and 1), no SMT sibling. */
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 16, &plan);
	ASSERT_CPUS(&plan, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	assert_int_equal(plan.threads[7].numa_node, 0);
	assert_int_equal(plan.threads[8].numa_node, 1);
	assert_int_equal(plan.threads[15].package, 0);
	assert_false(plan.smt_shared);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

/* Every thread count: thread i < 32 on core i's first PU, 32..63 on the
 * second PUs in the same order, 64 wraps to thread 0's. */
static void test_compact_all_counts(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	for (unsigned k = 0; k < N_COUNTS; k++) {
		unsigned n = thread_counts[k];
		struct pb_placement_plan plan;
		plan_ok(t, NULL, PB_PLACEMENT_COMPACT, n, &plan);
		assert_int_equal(plan.n_cpus, 64);
		assert_int_equal(plan.n_cores, 32);
		assert_int_equal(plan.smt_shared, n > 32);
		assert_int_equal(plan.oversubscribed, n > 64);
		for (unsigned i = 0; i < n; i++) {
			const struct pb_placement_thread *th = &plan.threads[i];
			unsigned slot = i % 64, core = slot % 32, smt = slot / 32;
			assert_int_equal(th->os_cpu, 2 * core + smt);
			assert_int_equal(th->core, core);
			assert_int_equal(th->smt, smt);
			assert_int_equal(th->package, core / 16);
			assert_int_equal(th->numa_node, (int)(core / 8));
		}
		pb_placement_plan_free(&plan);
	}
	hwloc_topology_destroy(t);
}

/* ---- scatter ------------------------------------------------------------- */

static void test_scatter_literal(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 1, &plan);
	ASSERT_CPUS(&plan, 0);
	pb_placement_plan_free(&plan);
	/* Thread 1 on package 1 (its first node, 2). */
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 2, &plan);
	ASSERT_CPUS(&plan, 0, 32);
	assert_int_equal(plan.threads[1].package, 1);
	assert_int_equal(plan.threads[1].numa_node, 2);
	pb_placement_plan_free(&plan);
	/* Then each package's second node: 0, 2, 1, 3. */
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 4, &plan);
	ASSERT_CPUS(&plan, 0, 32, 16, 48);
	assert_int_equal(plan.threads[0].numa_node, 0);
	assert_int_equal(plan.threads[1].numa_node, 2);
	assert_int_equal(plan.threads[2].numa_node, 1);
	assert_int_equal(plan.threads[3].numa_node, 3);
	pb_placement_plan_free(&plan);
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 16, &plan);
	ASSERT_CPUS(&plan, 0, 32, 16, 48, 2, 34, 18, 50, 4, 36, 20, 52, 6, 38, 22, 54);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

static void test_scatter_all_counts(void **state)
{
	(void)state;
	static const unsigned node_order[] = {0, 2, 1, 3};
	hwloc_topology_t t = load_synthetic(T64, 0);
	for (unsigned k = 0; k < N_COUNTS; k++) {
		unsigned n = thread_counts[k];
		struct pb_placement_plan plan;
		plan_ok(t, NULL, PB_PLACEMENT_SCATTER, n, &plan);
		assert_int_equal(plan.smt_shared, n > 32);
		assert_int_equal(plan.oversubscribed, n > 64);
		for (unsigned i = 0; i < n; i++) {
			const struct pb_placement_thread *th = &plan.threads[i];
			unsigned slot = i % 64, smt = slot / 32, j = slot % 32;
			unsigned node = node_order[j % 4], core = 8 * node + j / 4;
			assert_int_equal(th->os_cpu, 2 * core + smt);
			assert_int_equal(th->core, core);
			assert_int_equal(th->smt, smt);
			assert_int_equal(th->numa_node, (int)node);
			assert_int_equal(th->package, node / 2);
			/* Packages alternate while cores are left. */
			if (i + 1 < n && (i + 1) % 32 != 0)
				assert_int_not_equal(th->package, plan.threads[i + 1].package);
		}
		pb_placement_plan_free(&plan);
	}
	hwloc_topology_destroy(t);
}

/* One package: scatter alternates NUMA nodes. Two packages without NUMA
 * levels (one node for all): it alternates packages. */
static void test_scatter_one_package_and_no_numa_level(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic("package:1 numa:2 core:4 pu:1", 0);
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 4, &plan);
	ASSERT_CPUS(&plan, 0, 4, 1, 5);
	assert_int_equal(plan.threads[1].numa_node, 1);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);

	t = load_synthetic("package:2 core:4 pu:2", 0);
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 4, &plan);
	ASSERT_CPUS(&plan, 0, 8, 2, 10);
	assert_int_equal(plan.threads[1].package, 1);
	assert_int_equal(plan.threads[1].numa_node, 0);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

/* ---- SMT siblings and OS numbering ------------------------------------------ */

/* OS numbering as on most Intel servers: core k's siblings are CPUs k and
 * k+8. The plan gives OS numbers: compact fills CPUs 0-7 before 8-15. */
static void test_smt_siblings_os_numbering(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic("package:2 core:4 pu:2(indexes=2*8:1*2)", 0);
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 16, &plan);
	ASSERT_CPUS(&plan, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	for (unsigned i = 0; i < 16; i++) {
		assert_int_equal(plan.threads[i].core, i % 8);
		assert_int_equal(plan.threads[i].smt, i / 8);
	}
	pb_placement_plan_free(&plan);
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 9, &plan);
	ASSERT_CPUS(&plan, 0, 4, 1, 5, 2, 6, 3, 7, 8);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

/* ---- --cpu restriction and the allowed set ---------------------------------- */

static void test_cpu_list_restricts(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_placement_plan plan;
	/* Cores 0-3 (node 0) and 16-19 (node 2). */
	plan_ok(t, "0-7,32-39", PB_PLACEMENT_COMPACT, 16, &plan);
	ASSERT_CPUS(&plan, 0, 2, 4, 6, 32, 34, 36, 38, 1, 3, 5, 7, 33, 35, 37, 39);
	assert_int_equal(plan.n_cores, 8);
	assert_int_equal(plan.n_cpus, 16);
	assert_false(plan.oversubscribed);
	pb_placement_plan_free(&plan);
	plan_ok(t, "0-7,32-39", PB_PLACEMENT_SCATTER, 4, &plan);
	ASSERT_CPUS(&plan, 0, 32, 2, 34);
	pb_placement_plan_free(&plan);
	/* A core with one PU of the list: its sibling is not used. */
	plan_ok(t, "0,1,2", PB_PLACEMENT_COMPACT, 4, &plan);
	ASSERT_CPUS(&plan, 0, 2, 1, 0);
	assert_int_equal(plan.n_cores, 2);
	assert_int_equal(plan.n_cpus, 3);
	assert_true(plan.oversubscribed);
	pb_placement_plan_free(&plan);
	/* Uneven domains: node 2 runs out after two cores, the others go on
	 * in turn (nodes 0, 2, 1, then 0, 2, 1, then 0, 1, ...). */
	plan_ok(t, "0-31,32-35", PB_PLACEMENT_SCATTER, 9, &plan);
	ASSERT_CPUS(&plan, 0, 32, 16, 2, 34, 18, 4, 20, 6);
	pb_placement_plan_free(&plan);
	/* "all" and NULL: the same plan. */
	struct pb_placement_plan all;
	plan_ok(t, "all", PB_PLACEMENT_SCATTER, 65, &plan);
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 65, &all);
	assert_memory_equal(plan.threads, all.threads, 65 * sizeof *plan.threads);
	pb_placement_plan_free(&plan);
	pb_placement_plan_free(&all);
	hwloc_topology_destroy(t);
}

static void expect_list_error(hwloc_topology_t t, const char *list, const char *want)
{
	hwloc_bitmap_t set = pb_cpu_list_parse(t, list);
	if (set)
		fail_msg("'%s' accepted", list);
	if (!strstr(pb_error(), want))
		fail_msg("'%s': error '%s', want '%s'", list, pb_error(), want);
	struct pb_placement_plan plan;
	assert_int_equal(pb_placement_plan(t, list, PB_PLACEMENT_COMPACT, 1, &plan), -1);
	assert_null(plan.threads);
}

static void test_cpu_list_syntax(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	hwloc_bitmap_t set = pb_cpu_list_parse(t, "0,2-3,63");
	assert_non_null(set);
	char buf[64];
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "0,2-3,63");
	hwloc_bitmap_free(set);
	set = pb_cpu_list_parse(t, "all");
	assert_non_null(set);
	assert_int_equal(hwloc_bitmap_weight(set), 64);
	hwloc_bitmap_free(set);
	/* decimal, leading zeros too: hwloc alone read "010" as CPU 8 and
	 * "018" as no CPU (found by fuzz_cpulist: tests/fuzz/regress/cpulist/
	 * octal, octal-bad-digit) */
	set = pb_cpu_list_parse(t, "010,018-019");
	assert_non_null(set);
	hwloc_bitmap_list_snprintf(buf, sizeof buf, set);
	assert_string_equal(buf, "10,18-19");
	hwloc_bitmap_free(set);

	/* hwloc alone would take "0-" as 0 to infinity, "3-1" as nothing,
	 * "1,,2" and "1-2-3" as ranges. */
	expect_list_error(t, "0-",
	                  "bad CPU list '0-': expected a CPU number after '-' (numbers and "
	                  "ranges such as 0,2-3, or all)");
	expect_list_error(t, "3-1", "bad CPU list '3-1': a range runs backwards");
	expect_list_error(t, "1,,2", "bad CPU list '1,,2': expected a CPU number");
	expect_list_error(t, "1-2-3", "bad CPU list '1-2-3': expected ','");
	expect_list_error(t, "", "bad CPU list '': empty");
	expect_list_error(t, "1,", "bad CPU list '1,'");
	expect_list_error(t, ",1", "bad CPU list ',1'");
	expect_list_error(t, " 1", "bad CPU list ' 1'");
	expect_list_error(t, "+1", "bad CPU list '+1'");
	expect_list_error(t, "-1", "bad CPU list '-1'");
	expect_list_error(t, "x", "bad CPU list 'x'");
	expect_list_error(t, "ALL", "bad CPU list 'ALL'");
	expect_list_error(t, "99999999999999999999", "CPU number too large");
	expect_list_error(t, "0-99999999", "CPU number too large");
	/* Well formed, but no such CPU. */
	expect_list_error(t, "60-65",
	                  "CPU list '60-65': CPUs 64,65 not available to this process "
	                  "(allowed: 0-63)");
	expect_list_error(t, "64", "CPU list '64': CPU 64 not available");
	hwloc_topology_destroy(t);

	/* Into a glibc CPU set: a CPU beyond its size is refused, not
	 * dropped. 80 PUs, a set of 64 bits. */
	t = load_synthetic("core:80 pu:1", 0);
	unsigned long bits[1] = {~0ul};
	assert_int_equal(pb_cpu_list_parse_set(t, "0-2,63", bits, sizeof bits), 0);
	assert_int_equal(bits[0], 0x8000000000000007ul);
	assert_int_equal(pb_cpu_list_parse_set(t, "60-70", bits, sizeof bits), -1);
	assert_string_equal(pb_error(), "CPU list '60-70': CPU 64 is beyond a CPU set of 64");
	assert_int_equal(bits[0], 0);
	assert_int_equal(pb_cpu_list_parse_set(t, "1-", bits, sizeof bits), -1);
	assert_non_null(strstr(pb_error(), "bad CPU list '1-'"));
	hwloc_topology_destroy(t);
}

/* A topology whose allowed set is half its PUs (as a cgroup cpuset would
 * make it): the plan and the lists keep to the allowed half. */
static void test_allowed_set(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(cpus, 0, 31);
	assert_int_equal(hwloc_topology_allow(t, cpus, hwloc_topology_get_topology_nodeset(t),
	                                      HWLOC_ALLOW_FLAG_CUSTOM),
	                 0);
	hwloc_bitmap_free(cpus);
	expect_list_error(t, "30-33",
	                  "CPU list '30-33': CPUs 32,33 not available to this process "
	                  "(allowed: 0-31)");
	expect_list_error(t, "40", "CPU 40 not available");
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_SCATTER, 33, &plan);
	assert_int_equal(plan.n_cpus, 32);
	assert_int_equal(plan.n_cores, 16);
	assert_true(plan.oversubscribed);
	/* Package 0 only: nodes 0 and 1 in turn, then siblings, then wrap. */
	assert_int_equal(plan.threads[0].os_cpu, 0);
	assert_int_equal(plan.threads[1].os_cpu, 16);
	assert_int_equal(plan.threads[2].os_cpu, 2);
	assert_int_equal(plan.threads[16].os_cpu, 1);
	assert_int_equal(plan.threads[32].os_cpu, 0);
	for (unsigned i = 0; i < plan.n_threads; i++)
		assert_true(plan.threads[i].os_cpu < 32);
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

static void test_plan_errors(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_placement_plan plan;
	assert_int_equal(pb_placement_plan(t, NULL, PB_PLACEMENT_COMPACT, 0, &plan), -1);
	assert_string_equal(pb_error(), "at least one thread");
	assert_null(plan.threads);
	hwloc_topology_destroy(t);

	enum pb_placement p;
	assert_int_equal(pb_placement_parse("scatter", &p), 0);
	assert_int_equal(p, PB_PLACEMENT_SCATTER);
	assert_string_equal(pb_placement_name(p), "scatter");
	assert_int_equal(pb_placement_parse("compact", &p), 0);
	assert_int_equal(p, PB_PLACEMENT_COMPACT);
	assert_string_equal(pb_placement_name(p), "compact");
	assert_int_equal(pb_placement_parse("spread", &p), -1);
	assert_string_equal(pb_error(), "unknown placement 'spread' (compact or scatter)");
}

/* ---- the text line -------------------------------------------------------- */

static void expect_describe(hwloc_topology_t t, const char *list, enum pb_placement p, unsigned n,
                            const char *want)
{
	struct pb_placement_plan plan;
	plan_ok(t, list, p, n, &plan);
	char buf[200];
	int len = pb_placement_describe(&plan, buf, sizeof buf);
	assert_string_equal(buf, want);
	assert_int_equal(len, (int)strlen(want));
	pb_placement_plan_free(&plan);
}

static void test_describe(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	expect_describe(t, NULL, PB_PLACEMENT_COMPACT, 1,
	                "1 thread, compact: cpu 0 (core 0; node 0)");
	expect_describe(t, NULL, PB_PLACEMENT_COMPACT, 2,
	                "2 threads, compact: cpus 0,2 (cores 0,1; node 0)");
	expect_describe(t, NULL, PB_PLACEMENT_SCATTER, 4,
	                "4 threads, scatter: cpus 0,16,32,48 (cores 0,8,16,24; nodes 0-3)");
	expect_describe(t, NULL, PB_PLACEMENT_COMPACT, 16,
	                "16 threads, compact: cpus 0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30 "
	                "(cores 0-15; nodes 0,1)");
	expect_describe(t, NULL, PB_PLACEMENT_COMPACT, 65,
	                "65 threads, compact: cpus 0-63 (cores 0-31, SMT siblings shared; "
	                "nodes 0-3), oversubscribed: 65 threads on 64 cpus");

	/* Truncated: terminated, and the length it needed. */
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 2, &plan);
	char small[8];
	assert_int_equal(pb_placement_describe(&plan, small, sizeof small),
	                 (int)strlen("2 threads, compact: cpus 0,2 (cores 0,1; node 0)"));
	assert_string_equal(small, "2 threa");
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

/* ---- this machine ------------------------------------------------------------ */

/* "all" on this machine is the process's affinity (within the
 * topology's allowed set), and a plan pins. */
static void test_this_machine(void **state)
{
	(void)state;
	hwloc_topology_t t = pb_placement_topology();
	if (!t)
		fail_msg("%s", pb_error());
	assert_ptr_equal(pb_placement_topology(), t);
	cpu_set_t saved;
	assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);

	hwloc_bitmap_t all = pb_cpu_list_parse(NULL, "all");
	assert_non_null(all);
	unsigned n = 0;
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (hwloc_bitmap_isset(all, (unsigned)c)) {
			assert_true(CPU_ISSET(c, &saved));
			n++;
		}
	}
	assert_true(n >= 1);
	unsigned first = (unsigned)hwloc_bitmap_first(all);
	hwloc_bitmap_free(all);

	/* A CPU beyond this machine's. */
	assert_null(pb_cpu_list_parse(NULL, "65000"));
	assert_non_null(strstr(pb_error(), "CPU 65000 not available to this process"));

	/* As a glibc CPU set (cmd --cpu, pb_session's cpu_list): the same
	 * CPUs, the same errors; the set cleared first. */
	cpu_set_t set;
	char list[16];
	snprintf(list, sizeof list, "%u", first);
	CPU_ZERO(&set);
	CPU_SET(first + 1 < CPU_SETSIZE ? first + 1 : 0, &set);
	assert_int_equal(pb_cpu_list_parse_set(NULL, list, &set, sizeof set), 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(first, &set));
	assert_int_equal(pb_cpu_list_parse_set(NULL, "all", &set, sizeof set), 0);
	assert_int_equal((unsigned)CPU_COUNT(&set), n);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			assert_true(CPU_ISSET(c, &saved));
	assert_int_equal(pb_cpu_list_parse_set(NULL, "2-1", &set, sizeof set), -1);
	assert_string_equal(pb_error(), "bad CPU list '2-1': a range runs backwards (numbers and "
	                                "ranges such as 0,2-3, or all)");
	assert_int_equal(CPU_COUNT(&set), 0);
	assert_int_equal(pb_cpu_list_parse_set(NULL, "0,", &set, sizeof set), -1);
	assert_non_null(strstr(pb_error(), "bad CPU list '0,': expected a CPU number"));
	assert_int_equal(pb_cpu_list_parse_set(NULL, "x", &set, sizeof set), -1);
	assert_non_null(strstr(pb_error(), "bad CPU list 'x': expected a CPU number"));
	assert_int_equal(pb_cpu_list_parse_set(NULL, "65000", &set, sizeof set), -1);
	assert_non_null(strstr(pb_error(), "CPU 65000 not available to this process"));
	/* nothing was pinned */
	cpu_set_t after;
	assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
	assert_true(CPU_EQUAL(&after, &saved));

	struct pb_placement_plan plan;
	plan_ok(NULL, NULL, PB_PLACEMENT_COMPACT, 1, &plan);
	assert_int_equal(plan.threads[0].os_cpu, first);
	assert_int_equal(pb_placement_pin_thread(NULL, &plan, 0), 0);
	cpu_set_t now;
	assert_int_equal(sched_getaffinity(0, sizeof now, &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(first, &now));
	assert_int_equal(sched_getcpu(), (int)first);
	assert_int_equal(pb_placement_pin_thread(NULL, &plan, 1), -1);
	assert_string_equal(pb_error(), "no thread 1 in a plan of 1");
	pb_placement_plan_free(&plan);
	assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);

	/* Planned after the pin: still the affinity recorded at load. */
	plan_ok(NULL, NULL, PB_PLACEMENT_COMPACT, n, &plan);
	assert_false(plan.oversubscribed);
	pb_placement_plan_free(&plan);
}

/* Pinning on another machine's topology is refused (hwloc would do
 * nothing and report success). */
static void test_pin_synthetic_refused(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_placement_plan plan;
	plan_ok(t, NULL, PB_PLACEMENT_COMPACT, 1, &plan);
	assert_int_equal(pb_placement_pin_thread(t, &plan, 0), -1);
	assert_string_equal(pb_error(),
	                    "cannot pin thread 0 to CPU 0: the topology is not this machine's");
	pb_placement_plan_free(&plan);
	hwloc_topology_destroy(t);
}

/* ---- --mem-node ---------------------------------------------------------------- */

static void expect_mem_node_error(hwloc_topology_t t, const char *text, const char *want)
{
	struct pb_mem_node m;
	if (pb_mem_node_parse(t, text, &m) == 0)
		fail_msg("--mem-node '%s' accepted", text);
	if (strcmp(pb_error(), want) != 0)
		fail_msg("--mem-node '%s': error '%s', want '%s'", text, pb_error(), want);
}

static void test_mem_node_parse(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	struct pb_mem_node m;
	char buf[32];
	assert_int_equal(pb_mem_node_parse(t, "local", &m), 0);
	assert_int_equal(m.kind, PB_MEM_NODE_LOCAL);
	assert_string_equal(pb_mem_node_describe(&m, buf, sizeof buf), "local");
	assert_int_equal(pb_mem_node_parse(t, "interleave", &m), 0);
	assert_int_equal(m.kind, PB_MEM_NODE_INTERLEAVE);
	assert_string_equal(pb_mem_node_describe(&m, buf, sizeof buf), "interleave");
	assert_int_equal(pb_mem_node_parse(t, "3", &m), 0);
	assert_int_equal(m.kind, PB_MEM_NODE_FIXED);
	assert_int_equal(m.node, 3);
	assert_string_equal(pb_mem_node_describe(&m, buf, sizeof buf), "node 3");

	expect_mem_node_error(t, "4", "no NUMA node 4 (nodes: 0-3)");
	expect_mem_node_error(t, "65535", "no NUMA node 65535 (nodes: 0-3)");
	static const char *const bad[] = {"",   "x",   "-1",  "+1",    " 1",
	                                  "1x", "1,2", "0-1", "Local", "99999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char want[100];
		snprintf(want, sizeof want,
		         "bad memory node '%s' (local, interleave or a node number)", bad[i]);
		expect_mem_node_error(t, bad[i], want);
	}
	hwloc_topology_destroy(t);

	/* Nodes 2 and 3 exist but are not allowed (a cgroup's cpuset.mems). */
	t = load_synthetic(T64, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
	hwloc_bitmap_set_range(nodes, 0, 1);
	assert_int_equal(hwloc_topology_allow(t, hwloc_topology_get_topology_cpuset(t), nodes,
	                                      HWLOC_ALLOW_FLAG_CUSTOM),
	                 0);
	hwloc_bitmap_free(nodes);
	assert_int_equal(pb_mem_node_parse(t, "1", &m), 0);
	expect_mem_node_error(t, "2", "NUMA node 2 not available to this process (allowed: 0,1)");
	hwloc_topology_destroy(t);
}

/* Binding through a synthetic topology falls back with a note (hwloc would
 * do nothing and report success); local never binds. */
static void test_membind_synthetic_falls_back(void **state)
{
	(void)state;
	hwloc_topology_t t = load_synthetic(T64, 0);
	static char area[8192];
	char note[200];
	struct pb_mem_node m = {.kind = PB_MEM_NODE_FIXED, .node = 3};
	assert_int_equal(pb_membind_area(t, &m, area, sizeof area, note, sizeof note),
	                 PB_MEMBIND_FALLBACK);
	assert_string_equal(note, "no memory binding to node 3: the topology is not this "
	                          "machine's; the kernel's default policy");
	m.kind = PB_MEM_NODE_INTERLEAVE;
	assert_int_equal(pb_membind_thread(t, &m, note, sizeof note), PB_MEMBIND_FALLBACK);
	assert_string_equal(note, "no memory interleaving: the topology is not this machine's; "
	                          "the kernel's default policy");
	assert_int_equal(pb_membind_thread(t, &m, NULL, 0), PB_MEMBIND_FALLBACK);
	m.kind = PB_MEM_NODE_LOCAL;
	assert_int_equal(pb_membind_area(t, &m, area, sizeof area, note, sizeof note),
	                 PB_MEMBIND_FIRST_TOUCH);
	assert_string_equal(note, "");
	assert_int_equal(pb_membind_thread(t, &m, note, sizeof note), PB_MEMBIND_FIRST_TOUCH);
	hwloc_topology_destroy(t);
}

/* This machine: bound (then hwloc reads the policy back) or a fallback
 * with a note; never an abort. */
static void test_membind_this_machine(void **state)
{
	(void)state;
	hwloc_topology_t t = pb_placement_topology();
	assert_non_null(t);
	unsigned node = (unsigned)hwloc_bitmap_first(hwloc_topology_get_allowed_nodeset(t));
	char text[16], note[200];
	snprintf(text, sizeof text, "%u", node);
	struct pb_mem_node m;
	assert_int_equal(pb_mem_node_parse(NULL, text, &m), 0);
	assert_int_equal(pb_mem_node_parse(NULL, "65535", &m), -1);
	assert_non_null(strstr(pb_error(), "no NUMA node 65535 (nodes: "));
	assert_int_equal(pb_mem_node_parse(NULL, text, &m), 0);

	size_t bytes = 1 << 20;
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	hwloc_nodeset_t got = hwloc_bitmap_alloc();
	hwloc_membind_policy_t policy;
	for (int k = 0; k < 2; k++) {
		m.kind = k == 0 ? PB_MEM_NODE_FIXED : PB_MEM_NODE_INTERLEAVE;
		enum pb_membind_status st = pb_membind_area(NULL, &m, p, bytes, note, sizeof note);
		if (st == PB_MEMBIND_BOUND) {
			assert_string_equal(note, "");
			assert_int_equal(hwloc_get_area_membind(t, p, bytes, got, &policy,
			                                        HWLOC_MEMBIND_BYNODESET),
			                 0);
			assert_int_equal(policy,
			                 k == 0 ? HWLOC_MEMBIND_BIND : HWLOC_MEMBIND_INTERLEAVE);
			assert_true(hwloc_bitmap_isset(got, node));
		} else {
			assert_int_equal(st, PB_MEMBIND_FALLBACK);
			assert_non_null(strstr(note, "the kernel's default policy"));
		}
	}
	memset(p, 1, bytes);
	munmap(p, bytes);

	m.kind = PB_MEM_NODE_FIXED;
	enum pb_membind_status st = pb_membind_thread(NULL, &m, note, sizeof note);
	if (st == PB_MEMBIND_BOUND) {
		assert_int_equal(hwloc_get_membind(t, got, &policy,
		                                   HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET),
		                 0);
		assert_int_equal(policy, HWLOC_MEMBIND_BIND);
		assert_true(hwloc_bitmap_isset(got, node));
		/* Back to the default policy for the tests that follow. */
		hwloc_set_membind(t, hwloc_topology_get_allowed_nodeset(t), HWLOC_MEMBIND_DEFAULT,
		                  HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
	} else {
		assert_int_equal(st, PB_MEMBIND_FALLBACK);
		assert_non_null(strstr(note, "the kernel's default policy"));
	}
	hwloc_bitmap_free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compact_literal),
	    cmocka_unit_test(test_compact_all_counts),
	    cmocka_unit_test(test_scatter_literal),
	    cmocka_unit_test(test_scatter_all_counts),
	    cmocka_unit_test(test_scatter_one_package_and_no_numa_level),
	    cmocka_unit_test(test_smt_siblings_os_numbering),
	    cmocka_unit_test(test_cpu_list_restricts),
	    cmocka_unit_test(test_cpu_list_syntax),
	    cmocka_unit_test(test_allowed_set),
	    cmocka_unit_test(test_plan_errors),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_this_machine),
	    cmocka_unit_test(test_pin_synthetic_refused),
	    cmocka_unit_test(test_mem_node_parse),
	    cmocka_unit_test(test_membind_synthetic_falls_back),
	    cmocka_unit_test(test_membind_this_machine),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
