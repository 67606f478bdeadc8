/* mem.c - the memory-kernel suite (include/primbench/mem.h). */
#define _GNU_SOURCE
#include "primbench/mem.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/memory.h"
#include "primbench/replicates.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"
#include "suites/cache_states.h"
#include "suites/readback.h"
#include "suites/sampling.h"

/* Most calls one batch may hold (bounds the pointer arrays). */
#define MAX_BATCH_CALLS 16384u
/* N-thread batches aim at this many times the 1-thread batch target. */
#define PB_MEM_THREAD_BATCH_FACTOR 50.0
/* A batch aims to last this long at least, and far above step and overhead. */

int pb_mem_prefill_value(enum pb_op op, int value)
{
	return op != PB_OP_MEMSET ? 0xA5 : (value ^ 0xA5) & 0xff;
}

/* pb_mem_params_make's placement: dst page-aligned, src 2048 bytes past. */
static const struct pb_mem_placement default_placement = {.dst_offset_bytes = 0,
                                                          .src_offset_bytes = 2048};

struct pb_mem_params pb_mem_params_make(enum pb_op op, const struct pb_cache_info *caches,
                                        double budget_s, uint64_t seed, volatile sig_atomic_t *stop)
{
	return (struct pb_mem_params){
	    .op = op,
	    .placements = &default_placement,
	    .n_placements = 1,
	    .value = 0,
	    .budget_s = budget_s,
	    .min_samples = PB_MEM_MIN_SAMPLES_DEFAULT,
	    .max_samples = PB_MEM_MAX_SAMPLES_DEFAULT,
	    .warmup_samples = PB_MEM_WARMUP_SAMPLES_DEFAULT,
	    .l1_bytes = caches->level[PB_CACHE_L1D].size_bytes,
	    .l2_bytes = caches->level[PB_CACHE_L2].size_bytes,
	    .llc_bytes = caches->level[PB_CACHE_LLC].size_bytes,
	    .seed = seed,
	    .stop = stop,
	};
}

static uint64_t round_up(uint64_t x, uint64_t to)
{
	return (x + to - 1) / to * to;
}

/* AnonHugePages of the mapping that holds p, from /proc/self/smaps
 * (proc(5)); 0 when none or unreadable. */
static uint64_t thp_bytes_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 0;
	char line[512];
	bool inside = false;
	uint64_t kb = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %lu kB", &lo) == 1) {
			kb = lo;
			break;
		}
	}
	fclose(f);
	return kb << 10;
}

/* The consumer of what a kernel just wrote: the widest loads usable here
 * (suites/readback.h), picked when a run starts. */
static pb_read_back_fn read_back;

static volatile uint64_t read_sink;

/* One timed batch; *read_ticks gets the read-back time when asked. */
static uint64_t time_batch(const struct pb_kernel *kr, void **d, const void **s, int value,
                           size_t n, size_t k, double *read_ticks, uint64_t *begin)
{
	pb_stamp t;
	uint64_t ticks;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], value, n);
		ticks = pb_timer_end(t);
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], s[i], n);
		ticks = pb_timer_end(t);
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			fn(d[i], s[i], n);
		ticks = pb_timer_end(t);
	}
	*begin = t;
	if (read_ticks) {
		uint64_t sum = 0;
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			sum += read_back(d[i], n);
		*read_ticks = (double)pb_timer_end(t);
		read_sink = sum;
	}
	return ticks;
}

/* One timed pass over an extent: consecutive n-byte calls from base. */
static uint64_t time_extent(const struct pb_kernel *kr, uint8_t *dst, const uint8_t *src, int value,
                            size_t n, uint64_t extent, double *read_ticks, uint64_t *begin)
{
	pb_stamp t;
	uint64_t ticks;
	size_t step = n ? n : 1;
	if (kr->op == PB_OP_MEMSET) {
		pb_memset_fn fn = kr->memset_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, value, n);
		ticks = pb_timer_end(t);
	} else if (kr->op == PB_OP_MEMCPY) {
		pb_memcpy_fn fn = kr->memcpy_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, src + o, n);
		ticks = pb_timer_end(t);
	} else {
		pb_memmove_fn fn = kr->memmove_fn;
		t = pb_timer_begin();
		for (uint64_t o = 0; o < extent; o += step)
			fn(dst + o, src + o, n);
		ticks = pb_timer_end(t);
	}
	*begin = t;
	if (read_ticks) {
		t = pb_timer_begin();
		read_sink = read_back(dst, extent);
		*read_ticks = (double)pb_timer_end(t);
	}
	return ticks;
}

void pb_mem_harness_sampling(struct pb_harness_params *hp, const struct pb_mem_params *p,
                             uint64_t *rng)
{
	hp->warmup_samples = p->warmup_samples;
	hp->min_samples = p->min_samples;
	hp->max_samples = p->max_samples;
	hp->budget_s = p->budget_s;
	hp->precision = p->precision;
	hp->stop = p->stop;
	hp->rng = rng;
	hp->overhead_ticks = pb_timer_info()->overhead_ticks;
}

void pb_mem_case_take(struct pb_mem_case *c, struct pb_harness_samples *h)
{
	c->batch_ticks = h->ticks;
	c->batch_calls = h->calls;
	c->read_ticks = h->read_ticks;
	h->ticks = h->read_ticks = NULL;
	h->calls = NULL;
	c->n_samples = h->n_samples;
	c->migrations = (unsigned)h->migrations;
	c->ticks_per_call = h->per_call;
	c->outliers = h->outliers;
	if (c->then_read)
		c->read_ticks_per_call = h->read_per_call;
	c->thread_batch_ticks = h->thread_ticks;
	c->thread_ticks_per_call = h->thread_per_call;
	h->thread_ticks = NULL;
	h->thread_per_call = NULL;
}

#define note(r, ...) pb_note_append((r)->notes, sizeof(r)->notes, __VA_ARGS__)

/* The harness's context for one group (include/primbench/harness.h). */
struct group {
	const struct pb_mem_params *p;
	unsigned threads;
	const int *cpus;            /* [threads] when threads > 1 */
	struct pb_arena *a;         /* [threads]: each thread's own */
	struct pb_mem_case **cases; /* [n_kernels] */
	void **d;                   /* [threads x MAX_BATCH_CALLS] */
	const void **s;
	size_t *k_last; /* [threads]: the calls to restore (threads > 1) */
};

/* The batch callback: picks the slots, times k calls (or one pass over the
 * extent) and puts back what they changed, all untimed but the calls and
 * the read-back. Returns 0, or -1 on a mapping failure. */
static int group_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                       struct pb_harness_batch *out)
{
	struct group *g = ctx;
	const struct pb_mem_params *p = g->p;
	struct pb_arena *a = &g->a[thread];
	struct pb_mem_case *c = g->cases[i];
	void **d = g->d + (size_t)thread * MAX_BATCH_CALLS;
	const void **s = g->s + (size_t)thread * MAX_BATCH_CALLS;
	bool keep = phase == PB_HARNESS_KEEP;
	double *read = p->then_read && phase != PB_HARNESS_CALIBRATE ? &out->read_ticks : NULL;
	if (p->extent_bytes) {
		const uint8_t *src = a->copy ? (a->pl.has_distance ? a->dst + a->src_in_slot
		                                                   : a->src + a->src_in_slot)
		                             : NULL;
		out->ticks = (double)time_extent(c->kernel, a->dst + a->dst_in_slot, src, p->value,
		                                 a->n, p->extent_bytes, read, &out->begin_stamp);
		if (g->threads > 1)
			g->k_last[thread] = k; /* restored by group_after, after every thread */
		else
			pb_arena_restore_extent(a, src, p->extent_bytes);
		return 0;
	}
	if (pb_arena_pick(a, k, d, s) != 0)
		return -1;
	/* the counters are the calling thread's: 1-thread cases only */
	bool count = keep && p->counters && g->threads == 1 && pb_counters_start(p->counters) == 0;
	out->ticks =
	    (double)time_batch(c->kernel, d, s, p->value, a->n, k, read, &out->begin_stamp);
	struct pb_counter_values cv;
	if (count && pb_counters_stop(p->counters, &cv) == 0) {
		c->counted_calls += k;
		c->cycles += cv.cycles;
		c->instructions += cv.instructions;
		c->cache_misses += cv.cache_misses;
		c->counters_multiplexed |= cv.multiplexed;
	}
	if (pb_cache_state_is_fault(a->state) && a->page_source == PB_PAGES_THP &&
	    c->thp_bytes == 0 && keep && thread == 0)
		c->thp_bytes = thp_bytes_at(d[0]);
	if (g->threads > 1)
		g->k_last[thread] = k; /* restored by group_after, after every thread */
	else
		pb_arena_restore(a, k, d, s);
	return 0;
}

/* N threads: each thread puts back what its batch changed once every
 * thread's timed calls are over (harness.h thread_after), so a refill's
 * stores never share the memory bus with another thread's timed calls. */
static int group_after(void *ctx, size_t i, unsigned thread)
{
	(void)i;
	struct group *g = ctx;
	const struct pb_mem_params *p = g->p;
	struct pb_arena *a = &g->a[thread];
	if (p->extent_bytes) {
		const uint8_t *src = a->copy ? (a->pl.has_distance ? a->dst + a->src_in_slot
		                                                   : a->src + a->src_in_slot)
		                             : NULL;
		pb_arena_restore_extent(a, src, p->extent_bytes);
		return 0;
	}
	pb_arena_restore(a, g->k_last[thread], g->d + (size_t)thread * MAX_BATCH_CALLS,
	                 g->s + (size_t)thread * MAX_BATCH_CALLS);
	return 0;
}

/* One group on the harness: k calibrated per kernel (dram: no slot twice
 * in a batch, it would be cached the second time; fault: at most
 * FAULT_MAX_BATCH_BYTES of fresh mappings per batch; an extent: one pass),
 * then its samples and summaries moved into the cases. */

/* Whether the run has a thread count above 1 (mem.h "Threads"). */
static bool threaded_run(const struct pb_mem_params *p)
{
	if (p->threads > 1)
		return true;
	for (size_t i = 0; i < p->n_thread_counts; i++)
		if (p->thread_counts[i] > 1)
			return true;
	return false;
}

static int run_group(const struct pb_mem_params *p, struct group *g, uint64_t *rng)
{
	struct pb_arena *a = g->a;
	size_t max_k = MAX_BATCH_CALLS;
	if (a->state == PB_STATE_DRAM && a->nslots / 2 < max_k)
		max_k = a->nslots / 2 ? a->nslots / 2 : 1;
	if (pb_cache_state_is_fault(a->state) && a->nslots < max_k)
		max_k = a->nslots;
	struct pb_harness_contender *hc = calloc(p->n_kernels, sizeof *hc);
	if (!hc)
		return pb_fail("out of memory");
	for (size_t i = 0; i < p->n_kernels; i++) {
		hc[i].max_k = max_k;
		hc[i].fixed_k = p->extent_bytes ? p->extent_bytes / (a->n ? a->n : 1) : 0;
	}
	struct pb_harness_params hp = {
	    .n_contenders = p->n_kernels,
	    .contenders = hc,
	    .time_batch = group_batch,
	    .thread_after = g->threads > 1 ? group_after : NULL,
	    .ctx = g,
	    .read_back = p->then_read,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .threads = g->threads,
	    .pinning = {.pin = p->pin, .pin_ctx = p->pin_ctx, .cpus = g->cpus},
	    /* N threads: the span of a sample holds the threads' start skew
	     * after the barrier (tens of us when a vCPU must wake), so in a
	     * run with threads every batch, the 1-thread reference's too (so
	     * that efficiency compares like with like), aims at
	     * PB_MEM_THREAD_BATCH_FACTOR x the usual target (1 ms at the 20 us
	     * floor), within max_k */
	    .target_ticks =
	        threaded_run(p) ? PB_MEM_THREAD_BATCH_FACTOR * pb_batch_target_ticks() : 0,
	};
	pb_mem_harness_sampling(&hp, p, rng);
	struct pb_harness_result hr;
	int rc = pb_harness_run(&hp, &hr);
	free(hc);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < p->n_kernels && rc == 0; i++) {
		pb_mem_case_take(g->cases[i], &hr.c[i]);
		if (hr.thread_cpus) {
			int *cpus = malloc(g->threads * sizeof *cpus);
			if (!cpus)
				rc = pb_fail("out of memory");
			else
				memcpy(cpus, hr.thread_cpus, g->threads * sizeof *cpus);
			g->cases[i]->thread_cpus = cpus;
		}
	}
	pb_harness_result_free(&hr);
	return rc;
}

static bool same_op(const struct pb_mem_params *p, char *bad, size_t len)
{
	for (size_t i = 0; i < p->n_kernels; i++)
		if (p->kernels[i]->op != p->op) {
			snprintf(bad, len, "%s/%s", pb_op_name(p->kernels[i]->op),
			         p->kernels[i]->name);
			return false;
		}
	return true;
}

static int check_params(const struct pb_mem_params *p)
{
	char bad[64];
	if (p->n_kernels == 0 || p->n_sizes == 0 || p->n_states == 0 || p->n_placements == 0)
		return pb_fail("nothing to measure");
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	if (!same_op(p, bad, sizeof bad))
		return pb_fail("kernel '%s' is not a %s kernel", bad, pb_op_name(p->op));
	for (size_t i = 0; i < p->n_placements; i++) {
		const struct pb_mem_placement *pl = &p->placements[i];
		if (pl->dst_offset_bytes >= PB_PAGE_BYTES || pl->src_offset_bytes >= PB_PAGE_BYTES)
			return pb_fail("offsets must be below 4096 bytes");
		/* memmove may overlap: that is what it is for. */
		for (size_t z = 0; pl->has_distance && p->op == PB_OP_MEMCPY && z < p->n_sizes;
		     z++) {
			int64_t dd = pl->distance_bytes;
			uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
			if (ad < p->sizes_bytes[z])
				return pb_fail(
				    "distance %lld overlaps a copy of %llu bytes (memcpy "
				    "needs |distance| >= size)",
				    (long long)dd, (unsigned long long)p->sizes_bytes[z]);
		}
	}
	/* Beyond PB_MEM_DENSE_DISTANCE_MAX_BYTES only the hot state's far
	 * layout places the source (mem.h). */
	for (size_t q = 0; q < p->n_placements; q++) {
		const struct pb_mem_placement *pl = &p->placements[q];
		if (!pl->has_distance || p->op == PB_OP_MEMSET)
			continue;
		uint64_t ad = pb_arena_abs_distance(pl);
		unsigned bits = pb_user_address_bits();
		if (ad >= (UINT64_C(1) << bits) - PB_PAGE_BYTES)
			return pb_fail("distance %lld does not fit the %u-bit user address space",
			               (long long)pl->distance_bytes, bits);
		if (ad <= (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES)
			continue;
		if (p->extent_bytes)
			return pb_fail("a distance beyond 4 GiB works without an extent only");
		for (size_t i = 0; i < p->n_states; i++)
			if (p->states[i] != PB_STATE_HOT)
				return pb_fail(
				    "a distance beyond 4 GiB works in the hot state only, not "
				    "'%s'",
				    pb_cache_state_name(p->states[i]));
	}
	/* The fault states' source is a separate prefaulted buffer. */
	for (size_t i = 0; p->op == PB_OP_MEMMOVE && i < p->n_states; i++) {
		if (!pb_cache_state_is_fault(p->states[i]))
			continue;
		for (size_t q = 0; q < p->n_placements; q++) {
			const struct pb_mem_placement *pl = &p->placements[q];
			int64_t dd = pl->distance_bytes;
			uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
			for (size_t z = 0; pl->has_distance && z < p->n_sizes; z++)
				if (ad < p->sizes_bytes[z])
					return pb_fail("the %s state cannot place an overlapping "
					               "memmove (distance %lld, %llu bytes)",
					               pb_cache_state_name(p->states[i]),
					               (long long)dd,
					               (unsigned long long)p->sizes_bytes[z]);
		}
	}
	/* Other nodes are bound by a hook on the regions a thread maps; the
	 * fault states' and the far layout's mappings are not bound. */
	if (p->mem_node != PB_MEM_NODE_LOCAL) {
		char node[32];
		pb_mem_node_text(p->mem_node, p->mem_node_index, node, sizeof node);
		if (!p->bind_memory)
			return pb_fail("memory node '%s' needs a binding hook (none given)", node);
		for (size_t i = 0; i < p->n_states; i++)
			if (pb_cache_state_is_fault(p->states[i]))
				return pb_fail("memory node '%s': not in the %s state (its pages "
				               "are fresh every call)",
				               node, pb_cache_state_name(p->states[i]));
		for (size_t q = 0; q < p->n_placements; q++)
			if (pb_arena_far_group(p, PB_STATE_HOT, &p->placements[q]))
				return pb_fail("memory node '%s': not with a distance beyond "
				               "64 MiB",
				               node);
	}
	for (size_t i = 0; p->extent_bytes && i < p->n_sizes; i++) {
		uint64_t n = p->sizes_bytes[i];
		if (n == 0 || p->extent_bytes % n != 0)
			return pb_fail("extent %llu is not a multiple of size %llu",
			               (unsigned long long)p->extent_bytes, (unsigned long long)n);
	}
	for (size_t i = 0; p->extent_bytes && i < p->n_states; i++)
		if (p->states[i] != PB_STATE_HOT && p->states[i] != PB_STATE_DRAM &&
		    p->states[i] != PB_STATE_REPEAT)
			return pb_fail("--extent works with the hot, dram and repeat states only, "
			               "not '%s'",
			               pb_cache_state_name(p->states[i]));
	return 0;
}

/* The read-back loop's own speed at size n: one hot buffer (at the
 * group's destination offset) read over and over, in batches sized like
 * the kernels' (pb_batch_calls), 21 samples; *out in ticks per read.
 * Returns 0, or -1 with pb_error() when the buffer cannot be mapped. */
#define READ_LOOP_SAMPLES 21
static int measure_read_loop(uint64_t n, uint64_t offset, struct pb_summary *out,
                             double v[READ_LOOP_SAMPLES])
{
	uint8_t *buf = pb_map(offset + n, false, false);
	if (!buf)
		return -1;
	const uint8_t *b = buf + offset;
	double overhead = pb_timer_info()->overhead_ticks, best = INFINITY;
	read_sink = read_back(b, n); /* warm: lines, TLB, code */
	for (int i = 0; i < 3; i++) {
		pb_stamp t = pb_timer_begin();
		read_sink = read_back(b, n);
		double once = (double)pb_timer_end(t);
		if (once < best)
			best = once;
	}
	size_t k = pb_batch_calls(best, pb_batch_target_ticks(), MAX_BATCH_CALLS);
	for (int j = 0; j < READ_LOOP_SAMPLES; j++) {
		uint64_t sum = 0;
		pb_stamp t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			sum += read_back(b, n);
		double ticks = (double)pb_timer_end(t) - overhead;
		read_sink = sum;
		v[j] = (ticks > 0 ? ticks : 0) / (double)k;
	}
	pb_unmap(buf, offset + n);
	return pb_summarize(v, READ_LOOP_SAMPLES, 0.95, out);
}

/* Whether case c's read-back is within noise of the loop's own speed
 * (its samples loop[]): not slower than it by the one rule (pb_verdict on
 * read-back / loop, pb_contender_ratio of the samples, PB_EQUIVALENCE);
 * without an interval, within 5% by the medians. */
static bool within_loop_noise(const struct pb_mem_case *c, const struct pb_summary *loop,
                              const double loop_v[READ_LOOP_SAMPLES])
{
	double *rd = c->read_ticks && c->batch_calls ? malloc(c->n_samples * sizeof *rd) : NULL;
	for (size_t i = 0; rd && i < c->n_samples; i++)
		rd[i] = c->batch_calls[i] ? c->read_ticks[i] / (double)c->batch_calls[i] : 0;
	struct pb_shift r = {.ci_valid = false};
	if (rd && pb_contender_ratio(loop_v, READ_LOOP_SAMPLES, NULL, 0, rd, c->n_samples, NULL, 0,
	                             0.95, &r) != 0)
		r.ci_valid = false;
	free(rd);
	if (!r.ci_valid)
		return c->read_ticks_per_call.median <= 1.05 * loop->median;
	const struct pb_verdict_rule rule = {.null = 1, .margin = pb_equivalence()};
	return !(pb_verdict(&r, &rule) == PB_VERDICT_DIFFERENT && r.estimate > 1);
}

/* The thread counts to run (mem.h): 1, then the others ascending, each
 * once, in a malloc'd *out. Returns 0, or -1 with pb_error(). */
static int thread_counts(const struct pb_mem_params *p, unsigned **out, size_t *n)
{
	size_t given = p->thread_counts ? p->n_thread_counts : 1;
	unsigned *c = malloc((given + 1) * sizeof *c);
	if (!c)
		return pb_fail("out of memory");
	size_t k = 0;
	c[k++] = 1;
	for (size_t i = 0; i < given; i++) {
		unsigned t = p->thread_counts ? p->thread_counts[i] : (p->threads ? p->threads : 1);
		if (t == 0) {
			free(c);
			return pb_fail("a thread count of 0");
		}
		size_t j = 0;
		while (j < k && c[j] < t)
			j++;
		if (j < k && c[j] == t)
			continue;
		memmove(c + j + 1, c + j, (k - j) * sizeof *c);
		c[j] = t;
		k++;
	}
	*out = c;
	*n = k;
	return 0;
}

/* Worker t's CPU when the caller gave none: the t-th CPU the process may
 * use, wrapping past the last. Malloc'd [n], or NULL with pb_error(). */
static int *default_cpus(unsigned n)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return pb_fail("cannot read the CPUs this process may use: %s", strerror(errno)),
		       NULL;
	int allowed[CPU_SETSIZE], count = 0;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			allowed[count++] = cpu;
	int *cpus = malloc(n * sizeof *cpus);
	if (!cpus || count == 0) {
		free(cpus);
		return pb_fail("out of memory"), NULL;
	}
	for (unsigned t = 0; t < n; t++)
		cpus[t] = allowed[t % (unsigned)count];
	return cpus;
}

/* One state's arenas for `threads` threads, each allocated and first
 * touched by its own pinned worker, all at once. */
struct arena_setup {
	const struct pb_mem_params *p;
	struct pb_arena *as;
	enum pb_cache_state st;
	size_t page_bytes;
	enum pb_page_source page_source;
	int prefill;
	uint64_t max_slot, bytes;
	const uint64_t *seeds;
	/* pb_arena_set_group on every thread */
	uint64_t n;
	const struct pb_mem_placement *pl;
	bool far;
	int *g;
	char (*why)[256];
};

static int arena_setup_one(void *ctx, unsigned t)
{
	struct arena_setup *x = ctx;
	return pb_arena_init_paged(&x->as[t], x->p, x->st, x->prefill, x->max_slot, x->bytes,
	                           x->seeds[t], t, x->page_bytes, x->page_source);
}

static int arenas_init(struct arena_setup *x, unsigned threads,
                       const struct pb_harness_pinning *pinning, uint64_t *rng)
{
	if (threads == 1) {
		uint64_t seed = pb_rng_next(rng);
		if (pb_arena_region_bytes(x->p, x->st, x->max_slot, 1, &x->bytes) != 0)
			return -1;
		return pb_arena_init_paged(&x->as[0], x->p, x->st, x->prefill, x->max_slot,
		                           x->bytes, seed, 0, x->page_bytes, x->page_source);
	}
	uint64_t *seeds = malloc(threads * sizeof *seeds);
	if (!seeds)
		return pb_fail("out of memory");
	for (unsigned t = 0; t < threads; t++)
		seeds[t] = pb_rng_next(rng);
	x->seeds = seeds;
	int rc = pb_arena_region_bytes(x->p, x->st, x->max_slot, threads, &x->bytes);
	if (rc == 0)
		rc = pb_harness_on_threads(threads, pinning, arena_setup_one, x);
	free(seeds);
	x->seeds = NULL;
	return rc;
}

static int set_group_one(void *ctx, unsigned t)
{
	struct arena_setup *x = ctx;
	x->g[t] = pb_arena_set_group(&x->as[t], x->n, x->pl, x->far);
	if (x->g[t] == 1)
		snprintf(x->why[t], sizeof x->why[t], "%s", pb_error());
	return x->g[t] < 0 ? -1 : 0;
}

/* pb_arena_set_group on every thread's arena (each on its thread: a far
 * layout's mappings are first touched there): -1, 1 when any thread
 * cannot hold the slots (pb_error() says why), or 0. */
static int arenas_set_group(struct arena_setup *x, unsigned threads,
                            const struct pb_harness_pinning *pinning)
{
	if (threads == 1)
		return pb_arena_set_group(&x->as[0], x->n, x->pl, x->far);
	int *g = calloc(threads, sizeof *g);
	char(*why)[256] = calloc(threads, sizeof *why);
	int rc = -1;
	if (!g || !why) {
		pb_fail("out of memory");
	} else {
		x->g = g;
		x->why = why;
		rc = pb_harness_on_threads(threads, pinning, set_group_one, x);
		for (unsigned t = 0; t < threads && rc == 0; t++)
			if (g[t] == 1) {
				pb_fail("%s", why[t]);
				rc = 1;
			}
	}
	free(g);
	free(why);
	return rc;
}

static void arenas_free(struct pb_arena *as, unsigned threads)
{
	for (unsigned t = 0; as && t < threads; t++)
		pb_arena_free(&as[t]);
	free(as);
}

/* N threads: the share of each sample's span (first begin .. last end) in
 * which not every thread was running its calls, span - the longest
 * thread's own ticks, as a median over the samples; above 10% the
 * aggregate understates what the threads did together, and the run's
 * notes say so. */
static void note_skew(struct pb_mem_result *r, const struct pb_mem_case *c)
{
	if (c->threads < 2 || !c->thread_batch_ticks || c->n_samples == 0)
		return;
	double *f = malloc(c->n_samples * sizeof *f);
	if (!f)
		return;
	for (size_t j = 0; j < c->n_samples; j++) {
		double longest = 0;
		for (unsigned t = 0; t < c->threads; t++)
			if (c->thread_batch_ticks[j * c->threads + t] > longest)
				longest = c->thread_batch_ticks[j * c->threads + t];
		f[j] =
		    c->batch_ticks[j] > 0 ? (c->batch_ticks[j] - longest) / c->batch_ticks[j] : 0;
	}
	double med = gsl_stats_median(f, 1, c->n_samples);
	free(f);
	if (med > 0.10)
		note(r,
		     "%s %s %s %llu, %u threads: the threads' start skew is %.0f%% of a "
		     "sample's span (median): the aggregate understates them; larger sizes "
		     "or --extent make samples longer",
		     pb_op_name(c->op), c->kernel->name, pb_cache_state_name(c->state),
		     (unsigned long long)c->size_bytes, c->threads, 100 * med);
}

int pb_mem_pages_avail(const char *sysfs_mm, const size_t *sizes, size_t n, size_t *out,
                       enum pb_page_source *sources, size_t *n_out, char *notes, size_t notes_len)
{
	*n_out = 0;
	for (size_t i = 0; i < n && i < PB_PAGE_SIZES_MAX; i++) {
		struct pb_pages_avail av;
		if (pb_pages_probe_at(sysfs_mm ? sysfs_mm : "/sys/kernel/mm", sizes[i], &av) != 0)
			return -1;
		if (av.source != PB_PAGES_NONE) {
			out[*n_out] = sizes[i];
			sources[(*n_out)++] = av.source;
			continue;
		}
		char line[320];
		pb_pages_skip_line(sizes[i], line, sizeof line);
		pb_note_append(notes, notes_len, "%s", line);
	}
	return 0;
}

/* The slots the regions must hold: *max_slot for every group,
 * *max_dense_slot for the groups the hot state does not lay out far. */
static void slot_sizes(const struct pb_mem_params *p, bool copy, uint64_t *max_slot,
                       uint64_t *max_dense_slot)
{
	*max_slot = 0;
	*max_dense_slot = PB_PAGE_BYTES;
	for (size_t z = 0; z < p->n_sizes; z++)
		for (size_t q = 0; q < p->n_placements; q++) {
			uint64_t di, si;
			/* With an extent, the one slot holds the extent (and the
			 * distance, when the source is in the same region). */
			uint64_t need = pb_arena_slot_layout(p->extent_bytes ? p->extent_bytes
			                                                     : p->sizes_bytes[z],
			                                     &p->placements[q], copy, &di, &si);
			need = round_up(need, PB_PAGE_BYTES);
			if (need > *max_slot)
				*max_slot = need;
			if (!pb_arena_far_group(p, PB_STATE_HOT, &p->placements[q]) &&
			    need > *max_dense_slot)
				*max_dense_slot = need;
		}
}

/* What pb_mem_run shares between its groups: the parameters, the result,
 * the thread counts, pinning, the batch arrays and the count of groups
 * done of all. */
struct mem_session {
	const struct pb_mem_params *p;
	struct pb_mem_result *r;
	const unsigned *counts;
	size_t n_counts;
	struct pb_harness_pinning pinning;
	bool copy;
	int prefill;
	uint64_t max_slot, max_dense_slot;
	const size_t *pages;
	const enum pb_page_source *sources;
	size_t n_pages;
	size_t groups_total, groups_done;
	struct pb_mem_case **cts;
	void **d;
	const void **s;
	size_t *k_last;
	uint64_t rng;
};

/* The cases of one group (size n, placement q, state st, page size, nt
 * threads), one per kernel, appended to r; their pointers into m->cts. */
static void group_cases(struct mem_session *m, const struct arena_setup *x, size_t q, unsigned nt,
                        const struct pb_arena *a)
{
	const struct pb_mem_params *p = m->p;
	struct pb_mem_result *r = m->r;
	bool copy = m->copy;
	enum pb_cache_state st = x->st;
	for (size_t ki = 0; ki < p->n_kernels; ki++) {
		struct pb_mem_case *c = &r->cases[r->n_cases++];
		c->op = p->op;
		c->kernel = p->kernels[ki];
		c->size_bytes = x->n;
		c->placement = p->placements[q];
		if (!copy) {
			c->placement.src_offset_bytes = 0;
			c->placement.has_distance = false;
			c->placement.distance_bytes = 0;
		}
		c->extent_bytes = p->extent_bytes;
		c->state = st;
		c->page_bytes = (unsigned)x->page_bytes;
		c->fill_value = copy ? -1 : (p->value & 0xff);
		/* Fresh pages read as zero; repeat's destination holds the
		 * previous call's bytes. */
		c->prefill_value = pb_cache_state_is_fault(st) ? 0
		                   : st == PB_STATE_REPEAT     ? (copy ? -1 : (p->value & 0xff))
		                                               : m->prefill;
		c->then_read = p->then_read;
		c->working_set_bytes =
		    p->extent_bytes ? p->extent_bytes * (copy ? 2 : 1) : a->ws_bytes;
		c->threads = nt;
		c->thread_placement = nt == 1               ? NULL
		                      : p->thread_placement ? p->thread_placement
		                                            : "compact";
		c->mem_node = p->mem_node;
		c->mem_node_index = p->mem_node_index;
		m->cts[ki] = c;
	}
}

/* After a group ran: the read-back loop's own speed beside each case's
 * read-back (within its noise, the read-back shows the loop, not where
 * the bytes sit), and a note when fault-thp saw no huge pages. */
static void group_done(struct mem_session *m, const struct arena_setup *x, size_t q,
                       const char *what)
{
	const struct pb_mem_params *p = m->p;
	struct pb_mem_result *r = m->r;
	struct pb_mem_case **cts = m->cts;
	uint64_t n = x->n;
	struct pb_summary loop;
	double loop_v[READ_LOOP_SAMPLES];
	if (p->then_read && n > 0 && !r->interrupted && cts[0]->n_samples > 0 &&
	    measure_read_loop(n, p->placements[q].dst_offset_bytes, &loop, loop_v) == 0) {
		for (size_t ki = 0; ki < p->n_kernels; ki++) {
			struct pb_mem_case *c = cts[ki];
			c->read_loop_ticks_per_call = loop;
			c->read_loop_bound =
			    c->n_samples > 0 && within_loop_noise(c, &loop, loop_v);
		}
	}
	if (x->page_source == PB_PAGES_THP && pb_cache_state_is_fault(x->st) && n > 0 &&
	    cts[0]->thp_bytes == 0)
		note(r,
		     "%s: size %llu: no huge pages seen in /proc/self/smaps (THP off, or not "
		     "available)",
		     what, (unsigned long long)n);
}

enum group_outcome {
	GROUP_RAN,     /* run_group ran: *rc is its status */
	GROUP_SKIPPED, /* with a note: nothing measured, no progress to tell */
	GROUP_FAILED,  /* its arenas could not be set: -1 with pb_error() */
};

/* One group: size n at placement q in the arenas x set up. */
static enum group_outcome run_one_group(struct mem_session *m, struct arena_setup *x,
                                        struct pb_arena *as, unsigned nt, uint64_t n, size_t q,
                                        const char *what, int *rc)
{
	const struct pb_mem_params *p = m->p;
	struct pb_mem_result *r = m->r;
	/* the far layout's mappings are 4K ones */
	bool far = x->page_bytes == PB_PAGE_4K && pb_arena_far_group(p, x->st, &p->placements[q]);
	x->n = n;
	x->pl = &p->placements[q];
	x->far = far;
	int g = arenas_set_group(x, nt, &m->pinning);
	if (g < 0)
		return GROUP_FAILED;
	m->groups_done++;
	if (g == 1 && far) {
		note(r, "%s: size %llu at distance %lld skipped: %s", what, (unsigned long long)n,
		     (long long)p->placements[q].distance_bytes, pb_error());
		return GROUP_SKIPPED;
	}
	if (g == 1 && pb_cache_state_is_fault(x->st)) {
		if (q == 0)
			note(r, "%s: size %llu skipped: %s", what, (unsigned long long)n,
			     pb_error());
		return GROUP_SKIPPED;
	}
	if (g == 1) {
		if (q == 0)
			note(r,
			     "%s: size %llu skipped: the %llu KiB working set does not hold two "
			     "of them",
			     what, (unsigned long long)n,
			     (unsigned long long)(as[0].region_bytes >> 10));
		return GROUP_SKIPPED;
	}
	group_cases(m, x, q, nt, &as[0]);
	struct group grp = {.p = p,
	                    .threads = nt,
	                    .cpus = m->pinning.cpus,
	                    .a = as,
	                    .cases = m->cts,
	                    .d = m->d,
	                    .s = m->s,
	                    .k_last = m->k_last};
	*rc = run_group(p, &grp, &m->rng);
	for (size_t ki = 0; *rc == 0 && nt > 1 && ki < p->n_kernels; ki++)
		note_skew(r, m->cts[ki]);
	if (*rc == 0)
		group_done(m, x, q, what);
	return GROUP_RAN;
}

/* "llc", "llc, 2 threads", "llc, 2M pages" */
static void state_words(enum pb_cache_state st, unsigned nt, size_t page, char *what, size_t len)
{
	if (nt > 1)
		snprintf(what, len, "%s, %u threads", pb_cache_state_name(st), nt);
	else
		snprintf(what, len, "%s", pb_cache_state_name(st));
	if (page != PB_PAGE_4K && st != PB_STATE_FAULT_THP)
		snprintf(what + strlen(what), len - strlen(what), ", %s pages",
		         pb_pages_name(page));
}

/* Every size and placement in state st with page size index pi and nt
 * threads. Returns 0 or -1 with pb_error(). */
static int run_state(struct mem_session *m, enum pb_cache_state st, size_t pi, unsigned nt)
{
	const struct pb_mem_params *p = m->p;
	struct pb_mem_result *r = m->r;
	size_t page = st == PB_STATE_FAULT_THP ? PB_PAGE_2M : m->pages[pi];
	char what[80];
	state_words(st, nt, page, what, sizeof what);
	if (p->stop && *p->stop) {
		r->interrupted = true;
		return 0;
	}
	struct pb_arena *as = calloc(nt, sizeof *as);
	if (!as)
		return pb_fail("out of memory");
	struct arena_setup x = {
	    .p = p,
	    .as = as,
	    .st = st,
	    .page_bytes = page,
	    .page_source = st == PB_STATE_FAULT_THP ? PB_PAGES_THP : m->sources[pi],
	    .prefill = m->prefill,
	    .max_slot = st == PB_STATE_HOT ? m->max_dense_slot : m->max_slot,
	};
	if (arenas_init(&x, nt, &m->pinning, &m->rng) != 0) {
		note(r, "%s: skipped: %s", what, pb_error());
		m->groups_done += p->n_sizes * p->n_placements;
		arenas_free(as, nt);
		return 0;
	}
	int rc = 0;
	for (size_t zi = 0; zi < p->n_sizes && rc == 0 && !r->interrupted; zi++) {
		for (size_t q = 0; q < p->n_placements && rc == 0; q++) {
			if (p->stop && *p->stop) {
				r->interrupted = true;
				break;
			}
			enum group_outcome o =
			    run_one_group(m, &x, as, nt, p->sizes_bytes[zi], q, what, &rc);
			if (o == GROUP_FAILED) {
				rc = -1;
				break;
			}
			if (o == GROUP_SKIPPED)
				continue;
			if (p->stop && *p->stop)
				r->interrupted = true;
			if (p->progress)
				p->progress(p->progress_ctx, m->groups_done, m->groups_total);
			if (r->interrupted)
				break;
		}
	}
	arenas_free(as, nt);
	return rc;
}

int pb_mem_run(const struct pb_mem_params *p, struct pb_mem_result *r)
{
	memset(r, 0, sizeof *r);
	if (check_params(p) != 0)
		return -1;
	unsigned *counts = NULL;
	size_t n_counts = 0;
	if (thread_counts(p, &counts, &n_counts) != 0)
		return -1;
	unsigned most = counts[n_counts - 1];
	if (most > 1 && p->then_read) {
		free(counts);
		return pb_fail("then_read works with one thread only");
	}
	int *cpus = NULL;
	if (most > 1) {
		cpus = p->cpus ? NULL : default_cpus(most);
		if (!p->cpus && !cpus) {
			free(counts);
			return -1;
		}
	}
	read_back = pb_read_back_pick(&r->read_loop);
	if (!p->then_read)
		r->read_loop = NULL;

	/* The page sizes: fault-thp has 2M only, every other state the list. */
	static const size_t four_k = PB_PAGE_4K;
	static const enum pb_page_source base = PB_PAGES_BASE;
	struct mem_session m = {
	    .p = p,
	    .r = r,
	    .counts = counts,
	    .n_counts = n_counts,
	    .pinning = {.pin = p->pin, .pin_ctx = p->pin_ctx, .cpus = p->cpus ? p->cpus : cpus},
	    .copy = p->op != PB_OP_MEMSET,
	    .prefill = pb_mem_prefill_value(p->op, p->value),
	    .pages = p->n_page_sizes ? p->page_sizes : &four_k,
	    .sources = p->n_page_sizes ? p->page_sources : &base,
	    .n_pages = p->n_page_sizes ? p->n_page_sizes : 1,
	    .rng = pb_seed_or_default(p->seed),
	};
	slot_sizes(p, m.copy, &m.max_slot, &m.max_dense_slot);
	size_t state_pages = 0;
	for (size_t si = 0; si < p->n_states; si++)
		state_pages += p->states[si] == PB_STATE_FAULT_THP ? 1 : m.n_pages;
	m.groups_total = state_pages * n_counts * p->n_sizes * p->n_placements;
	r->cases = calloc(m.groups_total * p->n_kernels + 1, sizeof *r->cases);
	m.cts = calloc(p->n_kernels, sizeof *m.cts);
	m.d = malloc(most * MAX_BATCH_CALLS * sizeof *m.d);
	m.s = malloc(most * MAX_BATCH_CALLS * sizeof *m.s);
	m.k_last = calloc(most, sizeof *m.k_last);
	int rc = 0;
	if (!r->cases || !m.cts || !m.d || !m.s || !m.k_last)
		rc = pb_fail("out of memory"); /* the loop below does not start */

	size_t n_pages = m.n_pages;
	for (size_t sp = 0; sp < p->n_states * n_pages * n_counts && rc == 0 && !r->interrupted;
	     sp++) {
		size_t si = sp / (n_pages * n_counts), pi = sp / n_counts % n_pages,
		       ti = sp % n_counts;
		enum pb_cache_state st = p->states[si];
		if (st == PB_STATE_FAULT_THP && pi > 0)
			continue; /* fault-thp: fault with 2M pages, once */
		rc = run_state(&m, st, pi, counts[ti]);
	}
	free(m.cts);
	free(m.d);
	free(m.s);
	free(m.k_last);
	free(counts);
	free(cpus);
	return pb_mem_result_end(r, rc);
}
