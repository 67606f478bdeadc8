/* latency.c - a pointer-chase sweep that shows where the real cache levels
 * end, to check (or replace, with --llc-size) the figures the machine
 * reports.
 *
 * Traps handled here:
 *   - prefetchers: the chain visits the buffer's lines in a uniformly
 *     random order (pb_chase_order), within and across pages, so no
 *     stride or stream is there to learn;
 *   - TLB misses: the buffer asks for transparent huge pages, so up to a
 *     few hundred MiB the jumps are the caches', not the page walker's
 *     (without THP a jump near the STLB reach, a few MiB, is the TLB's);
 *   - out-of-order overlap: each load's address is the previous load's
 *     value, so loads cannot overlap and ticks/load is the latency;
 *   - a cold chain: building the chain writes every line in chain order,
 *     which leaves the buffer as cached as it can be; a short chase then
 *     warms it before the timed rounds.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "primbench/curve.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/latency.h"
#include "primbench/pages.h"
#include "primbench/replicates.h"
#include "primbench/syscall.h" /* pb_thp_bytes_at */
#include "primbench/timer.h"

#define LINE_BYTES 64
#define WARM_LOADS 16384

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's
	 * xorshift generators, scrambled", 2016): enough randomness to hide a
	 * pattern from prefetchers. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

void pb_chase_order(uint32_t *order, size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(rng_next(seed) % i); /* 0..i-1 */
		uint32_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

void **pb_chase_build(char *buf, size_t n, size_t stride, uint32_t *order, uint64_t *seed)
{
	pb_chase_order(order, n, seed);
	for (size_t i = 0; i < n; i++) {
		void **p = (void **)(buf + (size_t)order[i] * stride);
		*p = buf + (size_t)order[(i + 1) % n] * stride;
	}
	return (void **)(buf + (size_t)order[0] * stride);
}

static void **chase(void **p, size_t loads)
{
	for (size_t i = 0; i < loads; i++)
		p = (void **)*p;
	return p;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One point: warm the chain, then the timed rounds. */
static void **measure(void **p, uint64_t size, struct pb_latency_point *out)
{
	double overhead = pb_timer_info()->overhead_ticks, sorted[PB_LATENCY_ROUNDS];
	p = chase(p, WARM_LOADS);
	for (int r = 0; r < PB_LATENCY_ROUNDS; r++) {
		pb_stamp s = pb_timer_begin();
		p = chase(p, PB_LATENCY_ROUND_LOADS);
		double t = (double)pb_timer_end(s) - overhead;
		out->round_ticks[r] = t > 0 ? t : 0;
		sorted[r] = out->round_ticks[r] / PB_LATENCY_ROUND_LOADS;
	}
	qsort(sorted, PB_LATENCY_ROUNDS, sizeof sorted[0], cmp_double);
	out->size_bytes = size;
	out->round_loads = PB_LATENCY_ROUND_LOADS;
	out->ticks_per_load = sorted[PB_LATENCY_ROUNDS / 2];
	out->ns_per_load = pb_ticks_to_ns(out->ticks_per_load);
	return p;
}

/* The chase's default buffer: at least `bytes`, rounded up to whole 2 MiB
 * pages, 2 MiB-aligned inside an over-allocated mapping (*map, *map_bytes:
 * what to munmap), THP requested (a request: without THP the chase still
 * runs, which is why this is not pb_map's huge mode, which fails). Returns
 * the buffer, or NULL with *map MAP_FAILED. */
static char *map_thp_aligned(size_t bytes, char **map, size_t *map_bytes)
{
	size_t len = (bytes + PB_PAGE_2M - 1) / PB_PAGE_2M * PB_PAGE_2M;
	*map_bytes = len + PB_PAGE_2M;
	*map = mmap(NULL, *map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	char *buf = (char *)(((uintptr_t)*map + PB_PAGE_2M - 1) & ~(uintptr_t)(PB_PAGE_2M - 1));
	madvise(buf, len, MADV_HUGEPAGE);
	return buf;
}

int pb_latency_sweep(const struct pb_latency_params *prm, struct pb_latency_point *out,
                     struct pb_latency_info *info)
{
	uint64_t min_bytes = prm->min_bytes, max_bytes = prm->max_bytes;
	if (min_bytes < PB_LATENCY_MIN_BYTES)
		min_bytes = PB_LATENCY_MIN_BYTES;
	if (max_bytes < min_bytes || max_bytes > PB_LATENCY_MAX_BYTES || prm->max_points <= 0)
		return pb_fail("bad latency sweep range %llu..%llu", (unsigned long long)min_bytes,
		               (unsigned long long)max_bytes);
	if (pb_timer_init() != 0)
		return -1;

	struct pb_pages_region region = {0};
	char *map = MAP_FAILED, *buf;
	size_t map_bytes, mapped_bytes = 0;
	if (prm->page_bytes) {
		if (pb_pages_map((size_t)max_bytes, prm->page_bytes, prm->page_source, false,
		                 &region) != 0)
			return -1;
		buf = (char *)region.p;
		map_bytes = region.bytes;
	} else {
		buf = map_thp_aligned((size_t)max_bytes, &map, &mapped_bytes);
		map_bytes = mapped_bytes - PB_PAGE_2M;
		if (!buf)
			return pb_fail("cannot map %zu bytes for the latency sweep", map_bytes);
	}
	uint32_t *order = malloc((size_t)(max_bytes / LINE_BYTES) * sizeof *order);
	if (!order) {
		if (map != MAP_FAILED)
			munmap(map, mapped_bytes);
		pb_pages_unmap(&region);
		return pb_fail("out of memory for the latency sweep");
	}

	uint64_t seed = pb_seed_or_default(prm->seed);
	int count = 0;
	bool stopped = false;
	void **volatile sink;
	for (uint64_t pow = 1; pow <= max_bytes && count < prm->max_points; pow *= 2) {
		/* Two points per octave: 2^k and 1.5 * 2^k. */
		uint64_t sizes[2] = {pow, pow + pow / 2};
		for (int k = 0; k < 2 && count < prm->max_points; k++) {
			uint64_t size = sizes[k] / LINE_BYTES * LINE_BYTES;
			if (size < min_bytes || size > max_bytes)
				continue;
			if (prm->stop && *prm->stop) {
				stopped = true;
				break;
			}
			void **p = pb_chase_build(buf, (size_t)(size / LINE_BYTES), LINE_BYTES,
			                          order, &seed);
			sink = measure(p, size, &out[count]);
			count++;
		}
	}
	(void)sink;
	if (info) {
		info->buffer_bytes = map_bytes;
		info->thp_bytes = pb_thp_bytes_at(buf);
		info->interrupted = stopped;
		info->page_bytes = prm->page_bytes;
		info->page_source = pb_pages_source_name(prm->page_source);
	}
	free(order);
	if (map != MAP_FAILED)
		munmap(map, mapped_bytes);
	pb_pages_unmap(&region);
	return count;
}

int pb_cache_latency_sweep(uint64_t min_bytes, uint64_t max_bytes, struct pb_latency_point *out,
                           int max_points)
{
	struct pb_latency_params p = {
	    .min_bytes = min_bytes, .max_bytes = max_bytes, .max_points = max_points};
	return pb_latency_sweep(&p, out, NULL);
}

/* ---- replicates ------------------------------------------------------------ */

/* Replicate r's chain seed: the base (or the default) moved by r times the
 * golden ratio's constant, never 0 (xorshift's fixed point). */
static uint64_t replicate_seed(uint64_t base, size_t r)
{
	uint64_t s = pb_replicate_seed(pb_seed_or_default(base), r);
	return pb_seed_or_default(s);
}

int pb_latency_sweep_replicates(const struct pb_latency_params *prm, size_t replicates,
                                struct pb_latency_rpoint *out, struct pb_latency_info *info)
{
	if (replicates < 1 || replicates > PB_LATENCY_MAX_REPLICATES)
		return pb_fail("bad number of replicates %zu (1..%d)", replicates,
		               PB_LATENCY_MAX_REPLICATES);
	if (prm->max_points <= 0)
		return pb_fail("bad latency sweep: no point allowed");
	struct pb_latency_point *pts = calloc((size_t)prm->max_points, sizeof *pts);
	if (!pts)
		return pb_fail("out of memory for the latency sweep");
	struct pb_latency_params p = *prm;
	struct pb_latency_info one = {0}, first = {0};
	int count = 0;
	bool stopped = false;
	for (size_t r = 0; r < replicates && !stopped; r++) {
		p.seed = replicate_seed(prm->seed, r);
		int n = pb_latency_sweep(&p, pts, &one);
		if (n < 0) {
			free(pts);
			return -1;
		}
		if (r == 0) {
			first = one;
			count = n;
			memset(out, 0, (size_t)count * sizeof *out);
		}
		for (int i = 0; i < n && i < count; i++)
			if (pb_latency_rpoint_add(&out[i], &pts[i]) != 0) {
				free(pts);
				return -1;
			}
		stopped = one.interrupted;
	}
	free(pts);
	for (int i = 0; i < count; i++)
		if (pb_latency_rpoint_end(&out[i]) != 0)
			return -1;
	if (info) {
		*info = first;
		info->thp_bytes = one.thp_bytes;
		info->interrupted = stopped;
	}
	return count;
}

/* ---- loaded latency ------------------------------------------------------ */

/* One load thread: runs the kernel over its buffer until told to stop. */
struct load_thread {
	pthread_t tid;
	int cpu;
	const struct pb_kernel *k;
	char *buf;
	size_t buf_bytes, call_bytes;
	_Atomic uint64_t bytes; /* done so far */
	_Atomic int stop, failed;
};

static void *load_main(void *arg)
{
	struct load_thread *t = arg;
	if (pb_syscall_pin(t->cpu) != 0) {
		atomic_store(&t->failed, 1);
		return NULL;
	}
	size_t half = t->buf_bytes / 2;
	size_t span = t->k->op == PB_OP_MEMCPY ? half : t->buf_bytes;
	size_t off = 0;
	while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
		if (off + t->call_bytes > span)
			off = 0;
		if (t->k->op == PB_OP_MEMCPY)
			t->k->memcpy_fn(t->buf + half + off, t->buf + off, t->call_bytes);
		else
			t->k->memset_fn(t->buf + off, 0x5a, t->call_bytes);
		off += t->call_bytes;
		atomic_fetch_add_explicit(&t->bytes, t->call_bytes, memory_order_relaxed);
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t load_bytes_sum(struct load_thread *t, int n)
{
	uint64_t b = 0;
	for (int i = 0; i < n; i++)
		b += atomic_load(&t[i].bytes);
	return b;
}

/* Stops and joins threads t[0..n). */
static void load_stop(struct load_thread *t, int n)
{
	for (int i = 0; i < n; i++)
		atomic_store(&t[i].stop, 1);
	for (int i = 0; i < n; i++)
		pthread_join(t[i].tid, NULL);
}

/* Starts n threads and waits until each has made a call (or failed). */
static int load_start(struct load_thread *t, int n)
{
	for (int i = 0; i < n; i++) {
		atomic_store(&t[i].stop, 0);
		atomic_store(&t[i].failed, 0);
		atomic_store(&t[i].bytes, 0);
		if (pthread_create(&t[i].tid, NULL, load_main, &t[i]) != 0) {
			load_stop(t, i);
			return pb_fail("cannot start a load thread");
		}
	}
	for (int i = 0; i < n; i++)
		while (!atomic_load(&t[i].bytes) && !atomic_load(&t[i].failed))
			sched_yield();
	for (int i = 0; i < n; i++)
		if (atomic_load(&t[i].failed)) {
			load_stop(t, n);
			return pb_fail("cannot pin a load thread to CPU %d", t[i].cpu);
		}
	return 0;
}

int pb_latency_loaded(const struct pb_loaded_params *p, struct pb_loaded_point *out)
{
	const struct pb_kernel *k = p->kernel;
	if (!k || (k->op != PB_OP_MEMCPY && k->op != PB_OP_MEMSET))
		return pb_fail("the load kernel must be a memset or memcpy kernel");
	if (p->n_load < 0 || p->n_load > PB_LATENCY_MAX_LOAD)
		return pb_fail("bad number of load threads %d (0..%d)", p->n_load,
		               PB_LATENCY_MAX_LOAD);
	if (p->chase_bytes < PB_LATENCY_MIN_BYTES || p->chase_bytes > PB_LATENCY_MAX_BYTES ||
	    p->call_bytes == 0 || p->load_bytes < 2 * p->call_bytes)
		return pb_fail("bad loaded-latency sizes");
	if (pb_timer_init() != 0)
		return -1;

	size_t chase = (size_t)(p->chase_bytes / LINE_BYTES * LINE_BYTES);
	char *map;
	size_t map_bytes;
	char *buf = map_thp_aligned(chase, &map, &map_bytes);
	uint32_t *order = malloc(chase / LINE_BYTES * sizeof *order);
	struct load_thread *t = calloc((size_t)(p->n_load ? p->n_load : 1), sizeof *t);
	int rc = -1;
	if (map == MAP_FAILED || !order || !t) {
		pb_fail("out of memory for the loaded latency run");
		goto out;
	}
	for (int i = 0; i < p->n_load; i++) {
		t[i].cpu = p->load_cpus[i];
		t[i].k = k;
		t[i].buf_bytes = (size_t)p->load_bytes;
		t[i].call_bytes = (size_t)p->call_bytes;
		t[i].buf = mmap(NULL, t[i].buf_bytes, PROT_READ | PROT_WRITE,
		                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t[i].buf == MAP_FAILED) {
			t[i].buf = NULL;
			pb_fail("out of memory for a load thread's buffer");
			goto out;
		}
		memset(t[i].buf, 1, t[i].buf_bytes); /* fault it in before timing */
	}
	uint64_t seed = pb_seed_or_default(p->seed);
	void **chain = pb_chase_build(buf, chase / LINE_BYTES, LINE_BYTES, order, &seed);
	void **volatile sink;
	for (int level = 0; level <= p->n_load; level++) {
		if (load_start(t, level) != 0)
			goto out;
		uint64_t b0 = load_bytes_sum(t, level);
		double t0 = now_s();
		sink = chain = measure(chain, chase, &out[level].chase);
		double t1 = now_s();
		uint64_t b1 = load_bytes_sum(t, level);
		load_stop(t, level);
		out[level].threads = level;
		out[level].load_bytes_per_s = t1 > t0 ? (double)(b1 - b0) / (t1 - t0) : 0;
	}
	(void)sink;
	rc = p->n_load + 1;
out:
	for (int i = 0; t && i < p->n_load; i++)
		if (t[i].buf)
			munmap(t[i].buf, t[i].buf_bytes);
	free(t);
	free(order);
	if (map != MAP_FAILED)
		munmap(map, map_bytes);
	return rc;
}

int pb_latency_loaded_replicates(const struct pb_loaded_params *p, size_t replicates,
                                 volatile sig_atomic_t *stop, struct pb_loaded_rpoint *out,
                                 bool *interrupted)
{
	if (replicates < 1 || replicates > PB_LATENCY_MAX_REPLICATES)
		return pb_fail("bad number of replicates %zu (1..%d)", replicates,
		               PB_LATENCY_MAX_REPLICATES);
	if (p->n_load < 0 || p->n_load > PB_LATENCY_MAX_LOAD)
		return pb_fail("bad number of load threads %d (0..%d)", p->n_load,
		               PB_LATENCY_MAX_LOAD);
	struct pb_loaded_point pts[PB_LATENCY_MAX_LOAD + 1];
	struct pb_loaded_params one = *p;
	int levels = p->n_load + 1;
	if (interrupted)
		*interrupted = false;
	memset(out, 0, (size_t)levels * sizeof *out);
	size_t done = 0;
	for (size_t r = 0; r < replicates; r++) {
		if (r > 0 && stop && *stop) {
			if (interrupted)
				*interrupted = true;
			break;
		}
		one.seed = replicate_seed(p->seed, r);
		if (pb_latency_loaded(&one, pts) != levels)
			return -1;
		for (int l = 0; l < levels; l++) {
			out[l].threads = pts[l].threads;
			out[l].load_bytes_per_s += pts[l].load_bytes_per_s;
			if (pb_latency_rpoint_add(&out[l].chase, &pts[l].chase) != 0)
				return -1;
		}
		done++;
	}
	for (int l = 0; l < levels; l++) {
		out[l].load_bytes_per_s /= (double)done;
		if (pb_latency_rpoint_end(&out[l].chase) != 0)
			return -1;
	}
	if (interrupted && stop && *stop)
		*interrupted = true;
	return levels;
}

double pb_latency_round_spread(const struct pb_latency_rpoint *pt)
{
	double lo = pt->round_ticks[0][0], hi = lo;
	for (size_t r = 0; r < pt->n_rep; r++)
		for (int k = 0; k < PB_LATENCY_ROUNDS; k++) {
			lo = fmin(lo, pt->round_ticks[r][k]);
			hi = fmax(hi, pt->round_ticks[r][k]);
		}
	double med = pt->per_load.median * (double)pt->round_loads;
	return med > 0 ? (hi - lo) / med : 0;
}

bool pb_latency_point_ci(const struct pb_latency_rpoint *pt, double *ci)
{
	const struct pb_summary *s = &pt->per_load;
	if (!s->ci_valid || s->replicates < 2 || !(s->median > 0))
		return false;
	*ci = (s->ci_hi - s->ci_lo) / 2 / s->median;
	return true;
}

void pb_latency_curve_point(const struct pb_latency_rpoint *pt, struct pb_curve_point *out)
{
	*out = (struct pb_curve_point){.size_bytes = pt->size_bytes,
	                               .ns_per_load = pt->ns_per_load,
	                               .ticks_per_load = pt->per_load.median,
	                               .spread = pb_latency_round_spread(pt)};
	out->has_ci = pb_latency_point_ci(pt, &out->ci);
}
