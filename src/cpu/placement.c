/* placement.c - thread placement plans over a hwloc topology
 * (docs/methodology.md, "Threads").
 *
 * The plan is a list of slots, one per PU of the CPU set, in the order
 * threads take them: pass 0 holds the first PU of every core (in the
 * placement's core order), pass 1 the second PU of every core that has
 * one, and so on; thread i takes slot i mod n. So no thread shares a core
 * while a core is free, and a run with more threads than PUs wraps around.
 *
 * Core order: hwloc numbers the cores of a topology depth-first (package,
 * die/group, L3, L2, core; NUMA nodes in hwloc 2 hang off that tree as
 * memory children covering a subtree), so logical order is compact order.
 * Scatter groups the cores into (package, NUMA node) domains and deals
 * them out round-robin, the first domain of every package before any
 * package's second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/placement.h"

/* ---- this machine's topology ---------------------------------------------- */

static pthread_once_t real_once = PTHREAD_ONCE_INIT;
static hwloc_topology_t real_topo;
static hwloc_bitmap_t real_affinity; /* the loading thread's affinity */
static char real_error[200];

static void load_real(void)
{
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) != 0) {
		snprintf(real_error, sizeof real_error, "hwloc cannot start: %s", strerror(errno));
		return;
	}
	if (hwloc_topology_load(t) != 0) {
		snprintf(real_error, sizeof real_error, "hwloc cannot read the topology: %s",
		         strerror(errno));
		hwloc_topology_destroy(t);
		return;
	}
	/* sched_getaffinity of this thread: taskset and numactl set it, the
	 * topology's allowed set (the cgroup's cpuset) does not show it. */
	real_affinity = hwloc_bitmap_alloc();
	if (real_affinity && hwloc_get_cpubind(t, real_affinity, HWLOC_CPUBIND_THREAD) != 0) {
		hwloc_bitmap_free(real_affinity);
		real_affinity = NULL;
	}
	real_topo = t;
}

struct hwloc_topology *pb_placement_topology(void)
{
	pthread_once(&real_once, load_real);
	if (!real_topo)
		pb_fail("%s", real_error);
	return real_topo;
}

static hwloc_topology_t topo_or_real(hwloc_topology_t topo)
{
	return topo ? topo : pb_placement_topology();
}

/* The CPUs threads may use on `topo` (see placement.h); NULL with
 * pb_error() when out of memory. */
static hwloc_bitmap_t allowed_cpus(hwloc_topology_t topo)
{
	hwloc_bitmap_t a = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
	if (!a) {
		pb_fail("out of memory");
		return NULL;
	}
	if (hwloc_topology_is_thissystem(topo)) {
		pthread_once(&real_once, load_real);
		if (real_affinity)
			hwloc_bitmap_and(a, a, real_affinity);
	}
	return a;
}

/* ---- sets as text ---------------------------------------------------------- */

/* Appends to a buffer, keeping count of the length needed. */
struct text {
	char *buf;
	size_t len, used;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t room = t->used < t->len ? t->len - t->used : 0;
	int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->used += (size_t)n;
}

/* "0,1", "0-3,8": runs of three or more as ranges (the grammar of --cpu). */
static void put_set(struct text *t, hwloc_const_bitmap_t set)
{
	int lo = -1, prev = -1;
	bool first = true;
	for (int i = hwloc_bitmap_first(set);; i = hwloc_bitmap_next(set, i)) {
		if (i >= 0 && prev >= 0 && i == prev + 1) {
			prev = i;
			continue;
		}
		if (lo >= 0) {
			const char *sep = first ? "" : ",";
			if (prev - lo >= 2)
				put(t, "%s%d-%d", sep, lo, prev);
			else if (prev > lo)
				put(t, "%s%d,%d", sep, lo, prev);
			else
				put(t, "%s%d", sep, lo);
			first = false;
		}
		if (i < 0)
			break;
		lo = prev = i;
	}
}

/* ---- CPU lists ----------------------------------------------------------- */

/* CPU numbers above this are refused before hwloc sees them: a bitmap holds
 * every bit up to its highest, and Linux allows at most 8192 CPUs
 * (CONFIG_NR_CPUS). */
#define PB_CPU_NUMBER_MAX 65535ul

static bool read_number(const char **p, unsigned long *v)
{
	const char *s = *p;
	unsigned long n = 0;
	while (*s >= '0' && *s <= '9' && n <= PB_CPU_NUMBER_MAX)
		n = n * 10 + (unsigned long)(*s++ - '0');
	if (s == *p)
		return false;
	*p = s;
	*v = n;
	return true;
}

/* hwloc_bitmap_list_sscanf is lenient: "0-" is every CPU from 0 up, "3-1"
 * the empty set, "1,,2" and "1-2-3" pass; and it reads numbers as C does
 * (strtoul base 0): "010" is CPU 8, "018" no CPU at all. So the syntax is
 * checked here, and the set built here, in decimal. Returns NULL or what
 * is wrong. */
static const char *list_syntax_error(const char *s)
{
	if (!*s)
		return "empty";
	for (;;) {
		unsigned long lo, hi;
		if (!read_number(&s, &lo))
			return "expected a CPU number";
		hi = lo;
		if (*s == '-') {
			s++;
			if (!read_number(&s, &hi))
				return "expected a CPU number after '-'";
		}
		if (lo > PB_CPU_NUMBER_MAX || hi > PB_CPU_NUMBER_MAX)
			return "CPU number too large";
		if (hi < lo)
			return "a range runs backwards";
		if (!*s)
			return NULL;
		if (*s != ',')
			return "expected ',' between CPUs";
		s++;
	}
}

/* Sets the CPUs of s (list_syntax_error(s) == NULL) in set; -1 when out of
 * memory. */
static int list_set(const char *s, hwloc_bitmap_t set)
{
	for (;;) {
		unsigned long lo = 0, hi;
		read_number(&s, &lo);
		hi = lo;
		if (*s == '-') {
			s++;
			read_number(&s, &hi);
		}
		if (hwloc_bitmap_set_range(set, (unsigned)lo, (int)hi) != 0)
			return -1;
		if (!*s)
			return 0;
		s++;
	}
}

struct hwloc_bitmap_s *pb_cpu_list_parse(struct hwloc_topology *topo, const char *text)
{
	topo = topo_or_real(topo);
	if (!topo)
		return NULL;
	const char *why = list_syntax_error(text);
	if (strcmp(text, "all") != 0 && why) {
		pb_fail("bad CPU list '%s': %s (numbers and ranges such as 0,2-3, or all)", text,
		        why);
		return NULL;
	}
	hwloc_bitmap_t allowed = allowed_cpus(topo);
	if (!allowed)
		return NULL;
	if (strcmp(text, "all") == 0) {
		if (hwloc_bitmap_iszero(allowed)) {
			hwloc_bitmap_free(allowed);
			pb_fail("no CPU is available to this process");
			return NULL;
		}
		return allowed;
	}
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	if (!set || list_set(text, set) != 0) {
		hwloc_bitmap_free(set);
		hwloc_bitmap_free(allowed);
		pb_fail("out of memory");
		return NULL;
	}
	if (!hwloc_bitmap_isincluded(set, allowed)) {
		hwloc_bitmap_t out = hwloc_bitmap_alloc();
		char bad[160], ok[160];
		struct text tb = {bad, sizeof bad, 0}, to = {ok, sizeof ok, 0};
		bad[0] = ok[0] = '\0';
		if (out) {
			hwloc_bitmap_andnot(out, set, allowed);
			put_set(&tb, out);
		}
		put_set(&to, allowed);
		pb_fail("CPU list '%s': CPU%s %s not available to this process (allowed: %s)", text,
		        out && hwloc_bitmap_weight(out) == 1 ? "" : "s", bad, ok[0] ? ok : "none");
		hwloc_bitmap_free(out);
		hwloc_bitmap_free(set);
		hwloc_bitmap_free(allowed);
		return NULL;
	}
	hwloc_bitmap_free(allowed);
	return set;
}

int pb_cpu_list_parse_set(struct hwloc_topology *topo, const char *text, void *cpu_set,
                          size_t set_bytes)
{
	cpu_set_t *out = cpu_set;
	CPU_ZERO_S(set_bytes, out);
	hwloc_bitmap_t set = pb_cpu_list_parse(topo, text);
	if (!set)
		return -1;
	int beyond = hwloc_bitmap_next(set, (int)(set_bytes * 8) - 1);
	if (beyond >= 0) {
		hwloc_bitmap_free(set);
		return pb_fail("CPU list '%s': CPU %d is beyond a CPU set of %zu", text, beyond,
		               set_bytes * 8);
	}
	for (int c = hwloc_bitmap_first(set); c >= 0; c = hwloc_bitmap_next(set, c))
		CPU_SET_S((size_t)c, set_bytes, out);
	hwloc_bitmap_free(set);
	return 0;
}

/* ---- plans ------------------------------------------------------------------ */

const char *pb_placement_name(enum pb_placement p)
{
	return p == PB_PLACEMENT_SCATTER ? "scatter" : "compact";
}

int pb_placement_parse(const char *text, enum pb_placement *out)
{
	if (strcmp(text, "compact") == 0)
		*out = PB_PLACEMENT_COMPACT;
	else if (strcmp(text, "scatter") == 0)
		*out = PB_PLACEMENT_SCATTER;
	else
		return pb_fail("unknown placement '%s' (compact or scatter)", text);
	return 0;
}

/* A core with at least one PU in the set: its PUs are pus[first ..
 * first + n_pus), in logical order. */
struct core {
	hwloc_obj_t obj; /* the core, or the PU when there are no cores */
	unsigned first, n_pus;
	unsigned package;
	int node;
	unsigned domain; /* index into the (package, node) domains */
};

/* OS index of the first NUMA node (logical order) whose cpuset holds the
 * core's; failing that, the first that shares a PU with it; -1 if none. */
static int local_node(hwloc_topology_t topo, hwloc_obj_t core)
{
	hwloc_obj_t n = NULL, sharing = NULL;
	while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n))) {
		if (!n->cpuset)
			continue;
		if (hwloc_bitmap_isincluded(core->cpuset, n->cpuset))
			return (int)n->os_index;
		if (!sharing && hwloc_bitmap_intersects(core->cpuset, n->cpuset))
			sharing = n;
	}
	return sharing ? (int)sharing->os_index : -1;
}

/* The cores of `set` in logical order. Returns their count; *pus gets
 * the PUs' OS indexes. */
static unsigned collect_cores(hwloc_topology_t topo, hwloc_const_bitmap_t set, struct core *cores,
                              unsigned *pus)
{
	unsigned n_cores = 0, n_pus = 0;
	hwloc_obj_t pu = NULL;
	while ((pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, pu))) {
		if (!hwloc_bitmap_isset(set, pu->os_index))
			continue;
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
		if (!core)
			core = pu;
		if (n_cores == 0 || cores[n_cores - 1].obj != core) {
			hwloc_obj_t pkg =
			    hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);
			cores[n_cores++] = (struct core){
			    .obj = core,
			    .first = n_pus,
			    .package = pkg ? pkg->logical_index : 0,
			    .node = local_node(topo, core),
			};
		}
		cores[n_cores - 1].n_pus++;
		pus[n_pus++] = pu->os_index;
	}
	return n_cores;
}

struct domain {
	unsigned package;
	int node;
	unsigned rank; /* its place among its package's domains */
	unsigned next; /* scatter: index into its core list */
};

/* Scatter's core order into order[]: domains (package, node) in order of
 * appearance, sorted by (rank within package, package), then one core of
 * each in turn. Returns -1 when out of memory. */
static int scatter_order(struct core *cores, unsigned n_cores, unsigned *order)
{
	struct domain *d = calloc(n_cores, sizeof *d);
	unsigned *by = calloc(n_cores, sizeof *by);
	if (!d || !by) {
		free(d);
		free(by);
		return pb_fail("out of memory");
	}
	unsigned n_dom = 0;
	for (unsigned c = 0; c < n_cores; c++) {
		unsigned k = 0;
		while (k < n_dom &&
		       (d[k].package != cores[c].package || d[k].node != cores[c].node))
			k++;
		if (k == n_dom) {
			unsigned rank = 0;
			for (unsigned j = 0; j < n_dom; j++)
				rank += d[j].package == cores[c].package;
			d[n_dom++] = (struct domain){cores[c].package, cores[c].node, rank, 0};
		}
		cores[c].domain = k;
	}
	/* by[]: domain indexes in dealing order (insertion sort: few domains). */
	for (unsigned k = 0; k < n_dom; k++) {
		unsigned j = k;
		while (j > 0 &&
		       (d[by[j - 1]].rank > d[k].rank ||
		        (d[by[j - 1]].rank == d[k].rank && d[by[j - 1]].package > d[k].package))) {
			by[j] = by[j - 1];
			j--;
		}
		by[j] = k;
	}
	/* Deal: each pass gives every domain that has a core left its next. */
	unsigned placed = 0;
	while (placed < n_cores) {
		for (unsigned j = 0; j < n_dom; j++) {
			struct domain *dom = &d[by[j]];
			while (dom->next < n_cores && cores[dom->next].domain != by[j])
				dom->next++;
			if (dom->next < n_cores)
				order[placed++] = dom->next++;
		}
	}
	free(d);
	free(by);
	return 0;
}

int pb_placement_plan(struct hwloc_topology *topo, const char *cpu_list,
                      enum pb_placement placement, unsigned n_threads,
                      struct pb_placement_plan *out)
{
	memset(out, 0, sizeof *out);
	if (n_threads == 0)
		return pb_fail("at least one thread");
	if (placement != PB_PLACEMENT_COMPACT && placement != PB_PLACEMENT_SCATTER)
		return pb_fail("unknown placement %d", (int)placement);
	topo = topo_or_real(topo);
	if (!topo)
		return -1;
	hwloc_bitmap_t set = pb_cpu_list_parse(topo, cpu_list ? cpu_list : "all");
	if (!set)
		return -1;
	int n_topo_pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	size_t cap = n_topo_pus > 0 ? (size_t)n_topo_pus : 1;
	struct core *cores = calloc(cap, sizeof *cores);
	unsigned *pus = calloc(cap, sizeof *pus), *order = calloc(cap, sizeof *order);
	struct pb_placement_thread *slots = calloc(cap, sizeof *slots);
	struct pb_placement_thread *threads = calloc(n_threads, sizeof *threads);
	int rc = -1;
	if (!cores || !pus || !order || !slots || !threads) {
		pb_fail("out of memory");
		goto out;
	}
	unsigned n_cores = collect_cores(topo, set, cores, pus);
	if (n_cores == 0) {
		pb_fail("no CPU of the set is in the topology");
		goto out;
	}
	if (placement == PB_PLACEMENT_SCATTER) {
		if (scatter_order(cores, n_cores, order) != 0)
			goto out;
	} else {
		for (unsigned c = 0; c < n_cores; c++)
			order[c] = c;
	}
	/* Slots: pass s takes the (s+1)-th PU of each core in order. */
	unsigned n_slots = 0, max_pus = 0;
	for (unsigned c = 0; c < n_cores; c++)
		max_pus = cores[c].n_pus > max_pus ? cores[c].n_pus : max_pus;
	for (unsigned s = 0; s < max_pus; s++) {
		for (unsigned j = 0; j < n_cores; j++) {
			const struct core *c = &cores[order[j]];
			if (s >= c->n_pus)
				continue;
			slots[n_slots++] = (struct pb_placement_thread){
			    .os_cpu = pus[c->first + s],
			    .core = c->obj->logical_index,
			    .package = c->package,
			    .numa_node = c->node,
			    .smt = s,
			};
		}
	}
	for (unsigned i = 0; i < n_threads; i++)
		threads[i] = slots[i % n_slots];
	*out = (struct pb_placement_plan){
	    .placement = placement,
	    .n_threads = n_threads,
	    .threads = threads,
	    .n_cpus = n_slots,
	    .n_cores = n_cores,
	    .smt_shared = n_threads > n_cores,
	    .oversubscribed = n_threads > n_slots,
	};
	threads = NULL;
	rc = 0;
out:
	free(cores);
	free(pus);
	free(order);
	free(slots);
	free(threads);
	hwloc_bitmap_free(set);
	return rc;
}

void pb_placement_plan_free(struct pb_placement_plan *plan)
{
	free(plan->threads);
	memset(plan, 0, sizeof *plan);
}

int pb_placement_describe(const struct pb_placement_plan *plan, char *buf, size_t len)
{
	struct text t = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), cores = hwloc_bitmap_alloc(),
	               nodes = hwloc_bitmap_alloc();
	if (!cpus || !cores || !nodes) {
		put(&t, "%u thread%s, %s", plan->n_threads, plan->n_threads == 1 ? "" : "s",
		    pb_placement_name(plan->placement));
		goto out;
	}
	for (unsigned i = 0; i < plan->n_threads; i++) {
		hwloc_bitmap_set(cpus, plan->threads[i].os_cpu);
		hwloc_bitmap_set(cores, plan->threads[i].core);
		if (plan->threads[i].numa_node >= 0)
			hwloc_bitmap_set(nodes, (unsigned)plan->threads[i].numa_node);
	}
	int n_cpus = hwloc_bitmap_weight(cpus), n_cores = hwloc_bitmap_weight(cores),
	    n_nodes = hwloc_bitmap_weight(nodes);
	put(&t, "%u thread%s, %s: cpu%s ", plan->n_threads, plan->n_threads == 1 ? "" : "s",
	    pb_placement_name(plan->placement), n_cpus == 1 ? "" : "s");
	put_set(&t, cpus);
	put(&t, " (core%s ", n_cores == 1 ? "" : "s");
	put_set(&t, cores);
	if (plan->smt_shared && n_cpus > n_cores)
		put(&t, ", SMT siblings shared");
	if (n_nodes > 0) {
		put(&t, "; node%s ", n_nodes == 1 ? "" : "s");
		put_set(&t, nodes);
	}
	put(&t, ")");
	if (plan->oversubscribed)
		put(&t, ", oversubscribed: %u threads on %u cpu%s", plan->n_threads, plan->n_cpus,
		    plan->n_cpus == 1 ? "" : "s");
out:
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(cores);
	hwloc_bitmap_free(nodes);
	return (int)t.used;
}

int pb_placement_pin_thread(struct hwloc_topology *topo, const struct pb_placement_plan *plan,
                            unsigned thread)
{
	if (thread >= plan->n_threads)
		return pb_fail("no thread %u in a plan of %u", thread, plan->n_threads);
	topo = topo_or_real(topo);
	if (!topo)
		return -1;
	unsigned cpu = plan->threads[thread].os_cpu;
	/* hwloc's binding calls on another machine's topology (synthetic,
	 * XML) do nothing and report success. */
	if (!hwloc_topology_is_thissystem(topo))
		return pb_fail("cannot pin thread %u to CPU %u: the topology is not this machine's",
		               thread, cpu);
	hwloc_bitmap_t one = hwloc_bitmap_alloc();
	if (!one)
		return pb_fail("out of memory");
	hwloc_bitmap_only(one, cpu);
	int rc = hwloc_set_cpubind(topo, one, HWLOC_CPUBIND_THREAD);
	int err = errno;
	hwloc_bitmap_free(one);
	if (rc != 0)
		return pb_fail("cannot pin thread %u to CPU %u: %s", thread, cpu, strerror(err));
	return 0;
}

/* ---- memory placement ----------------------------------------------------- */

int pb_mem_node_parse(struct hwloc_topology *topo, const char *text, struct pb_mem_node *out)
{
	if (strcmp(text, "local") == 0) {
		*out = (struct pb_mem_node){.kind = PB_MEM_NODE_LOCAL};
		return 0;
	}
	if (strcmp(text, "interleave") == 0) {
		*out = (struct pb_mem_node){.kind = PB_MEM_NODE_INTERLEAVE};
		return 0;
	}
	const char *end = text;
	unsigned long node;
	if (!read_number(&end, &node) || *end || node > PB_CPU_NUMBER_MAX)
		return pb_fail("bad memory node '%s' (local, interleave or a node number)", text);
	topo = topo_or_real(topo);
	if (!topo)
		return -1;
	char list[160] = "";
	struct text t = {list, sizeof list, 0};
	if (!hwloc_get_numanode_obj_by_os_index(topo, (unsigned)node)) {
		put_set(&t, hwloc_topology_get_topology_nodeset(topo));
		return pb_fail("no NUMA node %lu (nodes: %s)", node, list[0] ? list : "none");
	}
	hwloc_const_nodeset_t allowed = hwloc_topology_get_allowed_nodeset(topo);
	if (!hwloc_bitmap_isset(allowed, (unsigned)node)) {
		put_set(&t, allowed);
		return pb_fail("NUMA node %lu not available to this process (allowed: %s)", node,
		               list[0] ? list : "none");
	}
	*out = (struct pb_mem_node){.kind = PB_MEM_NODE_FIXED, .node = (unsigned)node};
	return 0;
}

const char *pb_mem_node_describe(const struct pb_mem_node *m, char *buf, size_t len)
{
	if (m->kind == PB_MEM_NODE_FIXED)
		snprintf(buf, len, "node %u", m->node);
	else
		snprintf(buf, len, "%s",
		         m->kind == PB_MEM_NODE_INTERLEAVE ? "interleave" : "local");
	return buf;
}

__attribute__((format(printf, 3, 4))) static enum pb_membind_status
fallback(char *note, size_t note_len, const char *fmt, ...)
{
	if (note && note_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(note, note_len, fmt, ap);
		va_end(ap);
	}
	return PB_MEMBIND_FALLBACK;
}

/* addr NULL: the calling thread's policy; else the area's (bytes 0: hwloc
 * binds nothing and succeeds). */
static enum pb_membind_status membind(hwloc_topology_t topo, const struct pb_mem_node *m,
                                      void *addr, size_t bytes, char *note, size_t note_len)
{
	if (note && note_len)
		note[0] = '\0';
	if (m->kind == PB_MEM_NODE_LOCAL)
		return PB_MEMBIND_FIRST_TOUCH;
	char to[48];
	if (m->kind == PB_MEM_NODE_INTERLEAVE)
		snprintf(to, sizeof to, "memory interleaving");
	else
		snprintf(to, sizeof to, "memory binding to node %u", m->node);
	topo = topo_or_real(topo);
	if (!topo)
		return fallback(note, note_len, "no %s (%s): the kernel's default policy", to,
		                pb_error());
	/* hwloc's binding calls on another machine's topology do nothing and
	 * report success: say so rather than "bound". */
	if (!hwloc_topology_is_thissystem(topo))
		return fallback(note, note_len,
		                "no %s: the topology is not this machine's; the kernel's default "
		                "policy",
		                to);
	const struct hwloc_topology_membind_support *sup =
	    hwloc_topology_get_support(topo)->membind;
	bool can_call = addr ? sup->set_area_membind : sup->set_thisthread_membind;
	bool can_policy =
	    m->kind == PB_MEM_NODE_INTERLEAVE ? sup->interleave_membind : sup->bind_membind;
	if (!can_call || !can_policy)
		return fallback(note, note_len,
		                "no %s: not supported here (no NUMA support in this kernel or "
		                "hwloc); the kernel's default policy",
		                to);
	hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
	if (!nodes)
		return fallback(note, note_len, "no %s: out of memory", to);
	hwloc_membind_policy_t policy;
	if (m->kind == PB_MEM_NODE_INTERLEAVE) {
		hwloc_bitmap_copy(nodes, hwloc_topology_get_allowed_nodeset(topo));
		policy = HWLOC_MEMBIND_INTERLEAVE;
	} else {
		hwloc_bitmap_only(nodes, m->node);
		policy = HWLOC_MEMBIND_BIND;
	}
	int rc =
	    addr ? hwloc_set_area_membind(topo, addr, bytes, nodes, policy, HWLOC_MEMBIND_BYNODESET)
	         : hwloc_set_membind(topo, nodes, policy,
	                             HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
	int err = errno;
	hwloc_bitmap_free(nodes);
	if (rc != 0)
		return fallback(note, note_len, "%s failed (%s): the kernel's default policy", to,
		                strerror(err));
	return PB_MEMBIND_BOUND;
}

enum pb_membind_status pb_membind_area(struct hwloc_topology *topo, const struct pb_mem_node *m,
                                       void *addr, size_t bytes, char *note, size_t note_len)
{
	return membind(topo, m, addr, bytes, note, note_len);
}

enum pb_membind_status pb_membind_thread(struct hwloc_topology *topo, const struct pb_mem_node *m,
                                         char *note, size_t note_len)
{
	return membind(topo, m, NULL, 0, note, note_len);
}
