/* latency_order.c - the chase's visiting order as the one condition that
 * changes: chains in several orders over the same buffer, timed the same
 * way, interleaved (A B C A B C ...), for docs/validation.md's
 * `primbench latency` against lmbench's `lat_mem_rd -t`.
 *
 * Orders (all single cycles through their slots):
 *   random   primbench's chain: one uniformly random cycle over all 64-byte
 *            lines of the working set (pb_chase_order / pb_chase_build).
 *   thrash   lat_mem_rd -t's order, re-implemented here from its
 *            description (lmbench 3, lib_mem.c thrash_initialize; no code
 *            copied): the 4 KiB pages in a random order, one line per page
 *            per pass, so every load lands on another page; pass r reads in
 *            the i-th page of the order the line bitrev[(i + r) % L], where
 *            bitrev is the bit-reversal sequence of the L = 64 line indexes
 *            (0, 32, 16, 48, 8, ...). The pages are drawn from a pool
 *            (--pool, default the working set): lat_mem_rd draws every
 *            size's pages from a permutation of its largest size's pages.
 *   random128 primbench's chain over 128-byte slots: one line of each
 *            adjacent-line pair, to see what the L2's pair prefetcher
 *            gives the 64-byte random order.
 *
 * Timing per order and round: the chain is rebuilt, warmed with one pass
 * (min(n, 16384) loads), then timed as `primbench latency` times a point:
 * PB_LATENCY_ROUNDS windows of --loads dependent loads (default
 * PB_LATENCY_ROUND_LOADS; 0: one whole cycle per window, as lat_mem_rd),
 * the timer's overhead subtracted, the median window in ns per load; the
 * minimum window is printed too (lat_mem_rd reports its minimum).
 *
 * usage: latency-order [--size BYTES] [--pool BYTES] [--pages 4K|2M]
 *                      [--rounds N] [--loads N] [--orders a,b,...]
 * Run it pinned: flock /tmp/cpu1.lock taskset -c 1 build/bench/latency-order
 * Output: one line per order and round, then per order the median of the
 * rounds' medians and their min-max.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/latency.h"
#include "primbench/pages.h"
#include "primbench/sizes.h"
#include "primbench/stats.h"
#include "primbench/timer.h"

#define LINE       64
#define PAGE       4096
#define WARM_MAX   16384
#define MAX_ORDERS 8
#define MAX_ROUNDS 64

enum order { ORDER_RANDOM, ORDER_THRASH, ORDER_RANDOM128 };
static const char *const order_names[] = {"random", "thrash", "random128"};

static uint64_t rng(uint64_t *s)
{
	/* splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
	 * generators", OOPSLA 2014): independent of the library's generator. */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Links the slots at byte offsets off[0..n) of buf into one cycle in that
 * order; returns the first. */
static void **link_cycle(char *buf, const size_t *off, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + off[i]) = buf + off[(i + 1) % n];
	return (void **)(buf + off[0]);
}

/* lat_mem_rd -t's order over `bytes` (a multiple of PAGE) whose pages are
 * the first bytes / PAGE of a random permutation of the pool's pages. */
static void **build_thrash(char *buf, size_t bytes, size_t pool, size_t *off, uint64_t *seed)
{
	size_t npool = pool / PAGE, npages = bytes / PAGE, nl = PAGE / LINE, bits = 0;
	size_t *pages = malloc(npool * sizeof *pages), bitrev[PAGE / LINE];
	if (!pages)
		return NULL;
	for (size_t i = 0; i < npool; i++)
		pages[i] = i;
	for (size_t i = npool; i > 1; i--) {
		size_t j = (size_t)(rng(seed) % i), t = pages[i - 1];
		pages[i - 1] = pages[j];
		pages[j] = t;
	}
	while (((size_t)1 << bits) < nl)
		bits++;
	for (size_t i = 0; i < nl; i++) {
		size_t r = 0;
		for (size_t b = 0; b < bits; b++)
			if (i & ((size_t)1 << b))
				r |= (size_t)1 << (bits - 1 - b);
		bitrev[i] = r;
	}
	size_t k = 0;
	for (size_t pass = 0; pass < nl; pass++)
		for (size_t i = 0; i < npages; i++)
			off[k++] = pages[i] * PAGE + bitrev[(i + pass) % nl] * LINE;
	free(pages);
	return link_cycle(buf, off, k);
}

static void **chase(void **p, size_t loads)
{
	for (size_t i = 0; i < loads; i++)
		p = (void **)*p;
	return p;
}

/* The median of v[0..n) (pb_summarize, type 7), with min and max. */
static struct pb_summary summary(const double *v, int n)
{
	struct pb_summary sm = {0};
	if (pb_summarize(v, (size_t)n, 0.95, &sm) != 0)
		sm.median = sm.min = sm.max = -1;
	return sm;
}

int main(int argc, char **argv)
{
	uint64_t size = 256ull << 20, pool = 0, loads = PB_LATENCY_ROUND_LOADS;
	size_t page_bytes = PB_PAGE_2M;
	int rounds = 3, norders = 0;
	enum order orders[MAX_ORDERS];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			goto usage;
		i++;
		if (!strcmp(a, "--size") || !strcmp(a, "--pool")) {
			if (pb_parse_size(v, !strcmp(a, "--size") ? &size : &pool) != 0)
				goto usage;
		} else if (!strcmp(a, "--pages")) {
			page_bytes = !strcmp(v, "4K") ? PB_PAGE_4K : PB_PAGE_2M;
		} else if (!strcmp(a, "--rounds")) {
			rounds = atoi(v);
		} else if (!strcmp(a, "--loads")) {
			loads = strtoull(v, NULL, 0);
		} else if (!strcmp(a, "--orders")) {
			char *list = strdup(v), *save = NULL;
			for (char *t = strtok_r(list, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				int k = 0;
				while (k < 3 && strcmp(t, order_names[k]))
					k++;
				if (k == 3 || norders == MAX_ORDERS)
					goto usage;
				orders[norders++] = (enum order)k;
			}
			free(list);
		} else {
			goto usage;
		}
	}
	if (!norders) {
		orders[0] = ORDER_RANDOM;
		orders[1] = ORDER_THRASH;
		orders[2] = ORDER_RANDOM128;
		norders = 3;
	}
	size = size / PAGE * PAGE;
	if (pool < size)
		pool = size;
	pool = pool / PAGE * PAGE;
	if (size < PAGE || rounds < 1 || rounds > MAX_ROUNDS)
		goto usage;

	struct pb_pages_avail av;
	struct pb_pages_region reg;
	if (pb_timer_init() != 0 || pb_pages_probe(page_bytes, &av) != 0 ||
	    av.source == PB_PAGES_NONE ||
	    pb_pages_map((size_t)pool, page_bytes, av.source, true, &reg) != 0) {
		fprintf(stderr, "latency-order: %s\n", pb_error());
		return 1;
	}
	char *buf = (char *)reg.p;
	size_t nlines = (size_t)(size / LINE);
	size_t *off = malloc(nlines * sizeof *off);
	uint32_t *order = malloc(nlines * sizeof *order);
	if (!off || !order) {
		fprintf(stderr, "latency-order: out of memory\n");
		return 1;
	}
	printf("# size %llu B, pool %llu B, pages %s (%s, %llu B THP seen), %llu loads per "
	       "window (0: a whole cycle), %d windows, %d rounds, timer %.0f Hz\n",
	       (unsigned long long)size, (unsigned long long)pool, pb_pages_name(page_bytes),
	       pb_pages_source_name(av.source), (unsigned long long)pb_thp_bytes_at(buf),
	       (unsigned long long)loads, PB_LATENCY_ROUNDS, rounds, pb_timer_info()->hz);

	double med[MAX_ORDERS][MAX_ROUNDS];
	uint64_t seed = 0x5EED;
	void **volatile sink;
	double ovh = pb_timer_info()->overhead_ticks;
	for (int r = 0; r < rounds; r++) {
		for (int o = 0; o < norders; o++) {
			void **p;
			size_t n;
			if (orders[o] == ORDER_THRASH) {
				n = nlines;
				p = build_thrash(buf, (size_t)size, (size_t)pool, off, &seed);
			} else {
				size_t stride = orders[o] == ORDER_RANDOM ? LINE : 2 * LINE;
				n = (size_t)(size / stride);
				p = pb_chase_build(buf, n, stride, order, &seed);
			}
			if (!p) {
				fprintf(stderr, "latency-order: out of memory\n");
				return 1;
			}
			size_t win = loads ? (size_t)loads : n;
			p = chase(p, n < WARM_MAX ? n : WARM_MAX);
			double w[PB_LATENCY_ROUNDS];
			for (int k = 0; k < PB_LATENCY_ROUNDS; k++) {
				pb_stamp s = pb_timer_begin();
				p = chase(p, win);
				double t = (double)pb_timer_end(s) - ovh;
				w[k] = pb_ticks_to_ns(t > 0 ? t : 0) / (double)win;
			}
			sink = p;
			struct pb_summary sm = summary(w, PB_LATENCY_ROUNDS);
			med[o][r] = sm.median;
			printf("round %d %-9s %8.2f ns/load (min %.2f, max %.2f)\n", r,
			       order_names[orders[o]], sm.median, sm.min, sm.max);
			fflush(stdout);
		}
	}
	(void)sink;
	for (int o = 0; o < norders; o++) {
		struct pb_summary sm = summary(med[o], rounds);
		printf("%-9s median %.2f ns/load (rounds %.2f-%.2f)\n", order_names[orders[o]],
		       sm.median, sm.min, sm.max);
	}
	free(off);
	free(order);
	pb_pages_unmap(&reg);
	return 0;
usage:
	fprintf(stderr, "usage: latency-order [--size BYTES] [--pool BYTES] [--pages 4K|2M] "
	                "[--rounds N] [--loads N] [--orders random,thrash,random128]\n");
	return 2;
}
