/* fuzz_cpulist.c - CPU lists, placement words, thread plans and --mem-node
 * (include/primbench/placement.h).
 *
 * Topologies: synthetic hwloc topologies loaded once (LLVMFuzzerInitialize),
 * never this machine's, so every outcome is the same on every machine:
 *   0: "package:2 numa:2 core:8 pu:2" (64 PUs, NUMA nodes 0-3; core c
 *      holds PUs 2c, 2c+1), everything allowed;
 *   1: the same with an allowed set as a cgroup's cpuset would make it:
 *      CPUs 0-9,12,20-31, NUMA nodes 0,1 (HWLOC_ALLOW_FLAG_CUSTOM);
 *   2: "core:3 pu:1" (3 PUs, one node, no SMT).
 * Input: byte 0 chooses the topology (mod 3), the placement (bit 2) and the
 * CPU set size of pb_cpu_list_parse_set (bits 3-4: 8, 16, 128 or 1024
 * bytes); byte 1 the number of threads of the plan (0..255); byte 2 the
 * length of the buffer given to pb_placement_describe (0..255); the rest is
 * the text, given to every parser.
 *
 * Checked: a parsed list is not empty, is in the allowed set, and written
 * as a list (hwloc_bitmap_list_asprintf) parses back to itself;
 * pb_cpu_list_parse_set holds exactly the list's CPUs; a memory node is one
 * of the allowed nodes and describes as "node N"; a plan puts every thread
 * on a CPU of the list, its counts agree with the list, and
 * pb_placement_describe returns the length it needs whatever the buffer
 * (terminated, truncated to it). */
#define _GNU_SOURCE
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/error.h"
#include "primbench/placement.h"

/* The parsers are linear; a CPU list longer than this is no command
 * line's. */
#define MAX_TEXT 4096

#define N_TOPOS 3
static hwloc_topology_t topos[N_TOPOS];

static hwloc_topology_t load(const char *desc, unsigned long flags)
{
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) != 0 || hwloc_topology_set_synthetic(t, desc) != 0 ||
	    hwloc_topology_set_flags(t, flags) != 0 || hwloc_topology_load(t) != 0)
		pb_fuzz_fail("cannot load the synthetic topology '%s'", desc);
	return t;
}

static void unload(void)
{
	for (int i = 0; i < N_TOPOS; i++)
		if (topos[i])
			hwloc_topology_destroy(topos[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	topos[0] = load("package:2 numa:2 core:8 pu:2", 0);
	topos[1] = load("package:2 numa:2 core:8 pu:2", HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
	if (!cpus || !nodes || hwloc_bitmap_list_sscanf(cpus, "0-9,12,20-31") != 0 ||
	    hwloc_bitmap_list_sscanf(nodes, "0,1") != 0 ||
	    hwloc_topology_allow(topos[1], cpus, nodes, HWLOC_ALLOW_FLAG_CUSTOM) != 0)
		pb_fuzz_fail("cannot restrict the synthetic topology");
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(nodes);
	topos[2] = load("core:3 pu:1", 0);
	atexit(unload);
	return 0;
}

/* The set as a list ("0-3,8"), malloc'd. */
static char *list_text(hwloc_const_bitmap_t set)
{
	char *s = NULL;
	if (hwloc_bitmap_list_asprintf(&s, set) < 0 || !s)
		pb_fuzz_fail("out of memory");
	return s;
}

static void cpu_list(hwloc_topology_t topo, const char *text, size_t set_bytes)
{
	hwloc_bitmap_t set = pb_cpu_list_parse(topo, text);
	if (!set) {
		pb_fuzz_outcome("list error: %s", pb_error());
	} else {
		if (hwloc_bitmap_iszero(set))
			pb_fuzz_fail("list '%s' parsed to no CPU", text);
		if (!hwloc_bitmap_isincluded(set, hwloc_topology_get_allowed_cpuset(topo)))
			pb_fuzz_fail("list '%s' holds a CPU that is not allowed", text);
		char *s = list_text(set);
		hwloc_bitmap_t back = pb_cpu_list_parse(topo, s);
		if (!back)
			pb_fuzz_fail("list '%s' written as '%s' does not parse: %s", text, s,
			             pb_error());
		if (!hwloc_bitmap_isequal(back, set))
			pb_fuzz_fail("list '%s' written as '%s' parses to another set", text, s);
		hwloc_bitmap_free(back);
		pb_fuzz_outcome("list %s", s);
		free(s);
	}

	cpu_set_t *cs = CPU_ALLOC(set_bytes * 8);
	if (!cs)
		pb_fuzz_fail("out of memory");
	if (pb_cpu_list_parse_set(topo, text, cs, set_bytes) != 0) {
		pb_fuzz_outcome("set of %zu error: %s", set_bytes * 8, pb_error());
		if (CPU_COUNT_S(set_bytes, cs) != 0)
			pb_fuzz_fail("set of '%s' not empty after an error", text);
	} else {
		if (!set)
			pb_fuzz_fail("'%s' is a CPU set but not a list", text);
		int n = 0;
		for (int c = hwloc_bitmap_first(set); c >= 0; c = hwloc_bitmap_next(set, c), n++)
			if ((size_t)c >= set_bytes * 8 || !CPU_ISSET_S((size_t)c, set_bytes, cs))
				pb_fuzz_fail("CPU %d of '%s' not in its CPU set", c, text);
		if (CPU_COUNT_S(set_bytes, cs) != n)
			pb_fuzz_fail("CPU set of '%s' holds %d CPUs, the list %d", text,
			             CPU_COUNT_S(set_bytes, cs), n);
		pb_fuzz_outcome("set of %zu ok", set_bytes * 8);
	}
	CPU_FREE(cs);
	hwloc_bitmap_free(set);
}

static void plan(hwloc_topology_t topo, const char *text, enum pb_placement placement,
                 unsigned n_threads, size_t describe_len)
{
	struct pb_placement_plan p;
	if (pb_placement_plan(topo, text, placement, n_threads, &p) != 0) {
		pb_fuzz_outcome("plan error: %s", pb_error());
		return;
	}
	hwloc_bitmap_t set = pb_cpu_list_parse(topo, text);
	if (!set)
		pb_fuzz_fail("a plan on '%s', which does not parse", text);
	if (p.n_threads != n_threads || !p.threads)
		pb_fuzz_fail("a plan of %u threads for %u", p.n_threads, n_threads);
	if (p.n_cpus != (unsigned)hwloc_bitmap_weight(set))
		pb_fuzz_fail("a plan on %u CPUs of a list of %d", p.n_cpus,
		             hwloc_bitmap_weight(set));
	if (p.oversubscribed != (n_threads > p.n_cpus) || p.n_cores > p.n_cpus || !p.n_cores)
		pb_fuzz_fail("plan counts: %u threads, %u cpus, %u cores, oversubscribed %d",
		             n_threads, p.n_cpus, p.n_cores, p.oversubscribed);
	for (unsigned i = 0; i < n_threads; i++)
		if (!hwloc_bitmap_isset(set, p.threads[i].os_cpu))
			pb_fuzz_fail("thread %u on CPU %u, not in '%s'", i, p.threads[i].os_cpu,
			             text);
	hwloc_bitmap_free(set);

	char full[4096];
	int need = pb_placement_describe(&p, full, sizeof full);
	if (need < 0 || (size_t)need != strlen(full))
		pb_fuzz_fail("describe returned %d for '%s'", need, full);
	char *small = malloc(describe_len ? describe_len : 1);
	if (!small)
		pb_fuzz_fail("out of memory");
	int n = pb_placement_describe(&p, describe_len ? small : NULL, describe_len);
	if (n != need)
		pb_fuzz_fail("describe into %zu bytes returned %d, into %zu %d", describe_len, n,
		             sizeof full, need);
	if (describe_len &&
	    (strlen(small) >= describe_len || strncmp(small, full, describe_len - 1) != 0))
		pb_fuzz_fail("describe into %zu bytes wrote '%s' of '%s'", describe_len, small,
		             full);
	free(small);
	pb_fuzz_outcome("plan %s", full);
	pb_placement_plan_free(&p);
}

static void mem_node(hwloc_topology_t topo, const char *text)
{
	struct pb_mem_node m;
	if (pb_mem_node_parse(topo, text, &m) != 0) {
		pb_fuzz_outcome("mem-node error: %s", pb_error());
		return;
	}
	char d[64];
	pb_mem_node_describe(&m, d, sizeof d);
	if (m.kind == PB_MEM_NODE_FIXED) {
		if (!hwloc_bitmap_isset(hwloc_topology_get_allowed_nodeset(topo), m.node))
			pb_fuzz_fail("mem-node '%s': node %u is not allowed", text, m.node);
		char want[64];
		snprintf(want, sizeof want, "node %u", m.node);
		if (strcmp(d, want) != 0)
			pb_fuzz_fail("mem-node %u describes as '%s'", m.node, d);
	} else if (m.kind != PB_MEM_NODE_LOCAL && m.kind != PB_MEM_NODE_INTERLEAVE) {
		pb_fuzz_fail("mem-node '%s': kind %d", text, (int)m.kind);
	}
	pb_fuzz_outcome("mem-node %s", d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size - 3 > MAX_TEXT)
		return 0;
	hwloc_topology_t topo = topos[data[0] % N_TOPOS];
	enum pb_placement placement = data[0] & 4 ? PB_PLACEMENT_SCATTER : PB_PLACEMENT_COMPACT;
	static const size_t set_sizes[] = {8, 16, 128, 1024};
	size_t set_bytes = set_sizes[(data[0] >> 3) & 3];
	unsigned n_threads = data[1];
	size_t describe_len = data[2];
	char *text = pb_fuzz_text(data + 3, size - 3);

	cpu_list(topo, text, set_bytes);

	enum pb_placement pl;
	if (pb_placement_parse(text, &pl) == 0)
		pb_fuzz_outcome("placement %s", pb_placement_name(pl));
	else
		pb_fuzz_outcome("placement error: %s", pb_error());

	plan(topo, text, placement, n_threads, describe_len);
	mem_node(topo, text);
	free(text);
	return 0;
}
