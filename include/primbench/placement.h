/* primbench/placement.h - where the threads of a many-core run go
 * (docs/methodology.md, "Threads").
 *
 * A plan maps thread i (0..n-1) to one OS CPU (a hwloc PU) and records the
 * core, package and NUMA node that CPU belongs to. The rules:
 *   - each thread gets a core of its own; the second (third, ...) PU of a
 *     core (its SMT siblings) is used only once every core of the allowed
 *     set has a thread;
 *   - compact: cores in topology order (package, NUMA node, L3, core: hwloc's
 *     logical order of cores, a depth-first walk of the tree), so one cache
 *     and memory domain fills before the next;
 *   - scatter: round-robin over the (package, NUMA node) domains, packages
 *     first: thread 0 on package 0's first node, thread 1 on package 1's
 *     first node (on one package: node 1), ...; cores within a domain in
 *     order;
 *   - more threads than PUs: the assignment wraps around from thread 0's
 *     CPU and the plan says `oversubscribed` (the caller warns).
 * The set of CPUs is the allowed set (below), optionally restricted by a
 * CPU list ("0,2-3", "all": the one grammar of every --cpu LIST, mem
 * --threads' and cmd's).
 *
 * Allowed set: the topology's allowed cpuset (hwloc_topology_get_allowed_
 * cpuset: the cgroup's cpuset on Linux); for the topology of this machine
 * also the CPUs the process may run on, as sched_getaffinity reported them
 * the first time one of these functions looked (before any thread of the
 * run is pinned). A synthetic or XML topology (tests) uses its own allowed
 * set only.
 *
 * Topologies: every function takes a loaded hwloc topology, or NULL for
 * this machine's (pb_placement_topology()). Sources: hwloc 2.x API,
 * https://www.open-mpi.org/projects/hwloc/doc/v2.9.0/ (Topology
 * Creation, Object Types, CPU and memory binding, Bitmap API).
 *
 * Errors: -1 (or NULL) with one line in pb_error() (include/primbench/
 * error.h), e.g. "bad CPU list '0-'". Nothing prints or exits.
 */
#ifndef PRIMBENCH_PLACEMENT_H
#define PRIMBENCH_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

/* hwloc's handles (hwloc_topology_t, hwloc_bitmap_t), declared here so
 * that users of this header need not include <hwloc.h>. */
struct hwloc_topology;
struct hwloc_bitmap_s;

/* This machine's topology, loaded once (thread-safe) and kept for the
 * process's life; the first call also records the process's CPU affinity
 * (the allowed set above). Returns NULL with pb_error() when hwloc cannot
 * load it. */
struct hwloc_topology *pb_placement_topology(void);

/* ---- CPU lists ---------------------------------------------------------- */

/* Parses a CPU list into a new hwloc bitmap of OS CPU numbers. Grammar: "all"
 * (the whole allowed set), or comma-separated numbers and ascending ranges
 * ("1", "0,2-3"): the one grammar of every --cpu LIST (cmd's, mem
 * --threads'). Every CPU must be in the allowed set of `topo` (NULL: this
 * machine). Returns the bitmap (free it with hwloc_bitmap_free), or NULL
 * with pb_error(): "bad CPU list '0-': expected a CPU number after '-'
 * (numbers and ranges such as 0,2-3, or all)", "CPU list '2-5': CPUs 4,5
 * not available to this process (allowed: 0-3)". */
struct hwloc_bitmap_s *pb_cpu_list_parse(struct hwloc_topology *topo, const char *text);

/* pb_cpu_list_parse of text on `topo` (NULL: this machine), its CPUs put
 * in a glibc CPU set for sched_setaffinity: cpu_set points to a cpu_set_t
 * of set_bytes bytes (&set and sizeof set; void here, so that this header
 * needs no _GNU_SOURCE), which is cleared first. Returns 0, or -1 with
 * pb_error(): pb_cpu_list_parse's errors, or "CPU list '2000': CPU 2000 is
 * beyond a CPU set of 1024" (the set then holds nothing). */
int pb_cpu_list_parse_set(struct hwloc_topology *topo, const char *text, void *cpu_set,
                          size_t set_bytes);

/* ---- plans --------------------------------------------------------------- */

enum pb_placement { PB_PLACEMENT_COMPACT, PB_PLACEMENT_SCATTER };

/* "compact" or "scatter". */
const char *pb_placement_name(enum pb_placement p);

/* Parses "compact" or "scatter". Returns 0, or -1 with pb_error()
 * ("unknown placement 'x' (compact or scatter)"). */
int pb_placement_parse(const char *text, enum pb_placement *out);

/* Where one thread runs. Indexes: os_cpu and numa_node are OS numbers (what
 * taskset and numactl use); core and package are hwloc logical indexes (0..
 * n-1 in topology order; OS core ids repeat across packages). */
struct pb_placement_thread {
	unsigned os_cpu;  /* OS index of the PU */
	unsigned core;    /* logical index of its core (of the PU itself when
	                     the topology has no core objects) */
	unsigned package; /* logical index of its package, 0 when none */
	int numa_node;    /* OS index of its local NUMA node (the first whose
	                     cpuset holds the core), -1 when none */
	unsigned smt;     /* 0: the core's first allowed PU; 1: its second ... */
};

struct pb_placement_plan {
	enum pb_placement placement;
	unsigned n_threads;
	struct pb_placement_thread *threads; /* n_threads entries, malloc'd */
	unsigned n_cpus;                     /* PUs in the CPU set */
	unsigned n_cores;                    /* cores with at least one of them */
	bool smt_shared;                     /* some core runs two or more threads */
	bool oversubscribed;                 /* n_threads > n_cpus: some PU runs two or more */
};

/* Plans n_threads (>= 1) threads on `topo` (NULL: this machine) over the
 * CPUs of cpu_list (NULL or "all": the allowed set; grammar and errors of
 * pb_cpu_list_parse). Fills *out (free with pb_placement_plan_free).
 * Returns 0, or -1 with pb_error() (bad list, n_threads 0, no memory). */
int pb_placement_plan(struct hwloc_topology *topo, const char *cpu_list,
                      enum pb_placement placement, unsigned n_threads,
                      struct pb_placement_plan *out);

void pb_placement_plan_free(struct pb_placement_plan *plan);

/* One line for output and notes, e.g. "2 threads, compact: cpus 0,1
 * (cores 0,1; node 0)", "65 threads, scatter: cpus 0-63 (cores 0-31, SMT
 * siblings shared; nodes 0-3), oversubscribed: 65 threads on 64 cpus".
 * Lists are sets (ascending, ranges), not the thread order. Truncated to
 * len (always terminated). Returns the length it needed, as snprintf. */
int pb_placement_describe(const struct pb_placement_plan *plan, char *buf, size_t len);

/* Pins the calling thread to plan->threads[thread].os_cpu
 * (hwloc_set_cpubind with HWLOC_CPUBIND_THREAD: sched_setaffinity(2) of
 * this thread on Linux). topo
 * must be the topology the plan was made on (NULL: this machine); pinning
 * needs this machine's topology (hwloc_topology_is_thissystem). Returns 0,
 * or -1 with pb_error() ("cannot pin thread 3 to CPU 5: Invalid
 * argument"). */
int pb_placement_pin_thread(struct hwloc_topology *topo, const struct pb_placement_plan *plan,
                            unsigned thread);

/* ---- memory placement (--mem-node) ---------------------------------------- */

enum pb_mem_node_kind {
	PB_MEM_NODE_LOCAL,      /* the node of the thread's CPU (first touch) */
	PB_MEM_NODE_FIXED,      /* one node, by OS index */
	PB_MEM_NODE_INTERLEAVE, /* pages round-robin over every node */
};

struct pb_mem_node {
	enum pb_mem_node_kind kind;
	unsigned node; /* OS index of the node, for PB_MEM_NODE_FIXED */
};

/* Parses --mem-node: "local", "interleave", or the OS index of a NUMA node
 * of `topo` (NULL: this machine) in its allowed nodeset (the cgroup's
 * cpuset.mems on Linux). Returns 0, or -1 with pb_error(): "no NUMA node 3
 * (nodes: 0,1)", "NUMA node 1 not available to this process (allowed:
 * 0)", "bad memory node 'x' (local, interleave or a node number)". */
int pb_mem_node_parse(struct hwloc_topology *topo, const char *text, struct pb_mem_node *out);

/* "local", "interleave", "node 2" into buf. Returns buf. */
const char *pb_mem_node_describe(const struct pb_mem_node *m, char *buf, size_t len);

/* What a binding call did. Never an abort: a machine or kernel without
 * NUMA support (or a topology that is not this machine's) falls back to
 * the kernel's default policy, and the note says so for the caller to
 * report. */
enum pb_membind_status {
	PB_MEMBIND_BOUND,       /* the policy is set (the system call succeeded) */
	PB_MEMBIND_FIRST_TOUCH, /* local: nothing to set; pages go where the
	                           pinned thread first writes them */
	PB_MEMBIND_FALLBACK,    /* not supported here: default policy, see note */
};

/* Binds the pages of [addr, addr + bytes) (hwloc_set_area_membind with
 * HWLOC_MEMBIND_BYNODESET: mbind(2) on Linux): fixed = HWLOC_MEMBIND_BIND
 * to that node, interleave = HWLOC_MEMBIND_INTERLEAVE over every allowed
 * node (hwloc_topology_get_allowed_nodeset),
 * local = nothing (first touch by the pinned thread puts the pages on its
 * node). Call before the pages are first touched: a binding moves no page
 * that exists already (no HWLOC_MEMBIND_MIGRATE). note (may be NULL) gets
 * one line on fallback ("memory binding to node 1 failed (Function not
 * implemented): the kernel's default policy"), "" otherwise. */
enum pb_membind_status pb_membind_area(struct hwloc_topology *topo, const struct pb_mem_node *m,
                                       void *addr, size_t bytes, char *note, size_t note_len);

/* The same for the calling thread's future allocations (hwloc_set_membind
 * with HWLOC_MEMBIND_THREAD: set_mempolicy(2) on Linux). */
enum pb_membind_status pb_membind_thread(struct hwloc_topology *topo, const struct pb_mem_node *m,
                                         char *note, size_t note_len);

#endif
