/* selftest.c - correctness sweep of one kernel (selftest.h). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/memory.h"
#include "primbench/selftest.h"
#include "primbench/text.h"

#define CANARY_BYTES 64
#define MAX_OFFSET   63
/* The noise pattern starts at a different one of this many positions per
 * case, so neighbouring cases see different bytes. */
#define NOISE_SHIFTS 4096

enum place {
	MIDDLE,   /* page boundary + offset, canaries on both sides */
	AT_END,   /* ends exactly at the upper guard page */
	AT_START, /* starts exactly after the lower guard page */
};

/* The case under way, for the report when the kernel faults. overlap:
 * a memmove within one buffer, dst - src = shift, the lower of the two at
 * dplace/doff (check_overlap). */
struct current {
	size_t n, doff, soff;
	enum place dplace, splace;
	int c;
	bool overlap;
	long shift;
};

struct run {
	const struct pb_kernel *k;
	struct current now;
	struct pb_guarded dst, src; /* src: memcpy and memmove */
	uint8_t *want;              /* expected bytes of the checked window */
	uint8_t *noise;             /* random bytes, none zero */
	uint64_t cases;
	char *detail;
	size_t detail_len;
};

static const int fill_values[] = {0x00, (signed char)0xA5, (signed char)0xFF};
static const size_t all_offsets[] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63,
};
static const size_t some_offsets[] = {0, 1, 15, 32, 63};
static const size_t few_offsets[] = {0, 1, 63};
static const size_t edge_offsets[] = {0, 63};
static const size_t zero_offset[] = {0};
static const long pow2_deltas[] = {-65, -64, -63, -1, 0, 1, 63, 64, 65};
/* memmove, case M6: dst - src for the sizes above the small grid. */
static const long far_shifts[] = {-4096, -64, -63, -1, 1, 63, 64, 4096};
#define NEAR_SHIFT_MAX 128   /* the small grid: dst - src in -128..128 */
#define NEAR_SIZE_MAX  512   /* ... for n in 0..512 */
#define FAR_SIZE_MAX   65601 /* 64 KiB + 65: the largest size of far_shifts */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct offsets {
	const size_t *v;
	size_t count;
};
#define OFFSETS(a) ((struct offsets){a, COUNT(a)})

static const char *const level_names[] = {[PB_SELFTEST_QUICK] = "quick",
                                          [PB_SELFTEST_STANDARD] = "standard",
                                          [PB_SELFTEST_FULL] = "full"};

const char *pb_selftest_level_name(enum pb_selftest_level lvl)
{
	return pb_enum_name(level_names, sizeof level_names / sizeof *level_names, lvl, "unknown");
}

static uint8_t *place(const struct pb_guarded *g, enum place where, size_t offset, size_t n)
{
	switch (where) {
	case AT_END:
		return g->base + g->bytes - n;
	case AT_START:
		return g->base;
	case MIDDLE:
		break;
	}
	return g->base + PB_PAGE_BYTES + offset;
}

static void describe_place(char *buf, size_t len, const char *what, enum place where, size_t offset)
{
	if (where == AT_END)
		snprintf(buf, len, "%s ending at a guard page", what);
	else if (where == AT_START)
		snprintf(buf, len, "%s starting after a guard page", what);
	else
		snprintf(buf, len, "%s at page offset %zu", what, offset);
}

/* r->detail = "memcpy/avx2: n=37, dst at page offset 5, src ...: " + what. */
static void describe_case(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void describe_case(struct run *r, const char *fmt, ...)
{
	char dwhere[64], swhere[64] = "", value[24] = "", what[160];
	const struct current *now = &r->now;
	describe_place(dwhere, sizeof dwhere, now->overlap ? "lower of dst, src" : "dst",
	               now->dplace, now->doff);
	if (now->overlap)
		snprintf(value, sizeof value, ", dst - src = %+ld", now->shift);
	else if (r->k->op == PB_OP_MEMSET)
		snprintf(value, sizeof value, ", c=0x%02x", (unsigned)(uint8_t)now->c);
	else
		describe_place(swhere, sizeof swhere, ", src", now->splace, now->soff);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(r->detail, r->detail_len, "%s/%s: n=%zu, %s%s%s: %s", pb_op_name(r->k->op),
	         r->k->name, now->n, dwhere, swhere, value, what);
}

/* out[i] = a[i] ^ b[i], a word at a time (out may be a): the checker's
 * own cost, which dominates under the sanitizers. */
static void xor_bytes(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		x ^= y;
		memcpy(out + i, &x, 8);
	}
	for (; i < n; i++)
		out[i] = a[i] ^ b[i];
}

static void *call(const struct pb_kernel *k, uint8_t *d, const uint8_t *s, int c, size_t n)
{
	switch (k->op) {
	case PB_OP_MEMSET:
		return k->memset_fn(d, c, n);
	case PB_OP_MEMCPY:
		return k->memcpy_fn(d, s, n);
	case PB_OP_MEMMOVE:
		return k->memmove_fn(d, s, n);
	case PB_OP_COUNT:
		break;
	}
	return NULL;
}

/* After the call: 0 when ret is d and [lo, lo + window) equals want, else
 * 1 with r->detail naming the first wrong byte (d at lo + at). */
static int verdict(struct run *r, void *ret, uint8_t *d, const uint8_t *lo, size_t at,
                   size_t window, size_t n)
{
	if (ret != d) {
		describe_case(r, "returned %p, not dst %p", ret, (void *)d);
		return 1;
	}
	if (memcmp(lo, r->want, window) == 0)
		return 0;
	size_t i = 0;
	while (lo[i] == r->want[i])
		i++;
	/* Outside dst: a canary, or with overlap maybe a source byte. */
	const char *outside = r->now.overlap ? "unchanged" : "canary";
	if (i < at)
		describe_case(r, "wrote before dst: dst[-%zu] is 0x%02x, want 0x%02x (%s)", at - i,
		              lo[i], r->want[i], outside);
	else if (i >= at + n)
		describe_case(r, "wrote past the end: dst[%zu] is 0x%02x, want 0x%02x (%s)", i - at,
		              lo[i], r->want[i], outside);
	else
		describe_case(r, "first difference at dst[%zu]: 0x%02x, want 0x%02x", i - at, lo[i],
		              r->want[i]);
	return 1;
}

/* One call of the kernel, checked (memmove: between separate buffers).
 * Returns 0 or 1 (r->detail set). */
static int check(struct run *r, size_t n, enum place dplace, size_t doff, enum place splace,
                 size_t soff, int c)
{
	bool is_memset = r->k->op == PB_OP_MEMSET;
	uint8_t *d = place(&r->dst, dplace, doff, n);
	uint8_t *dst_end = r->dst.base + r->dst.bytes;
	size_t below = (size_t)(d - r->dst.base), above = (size_t)(dst_end - (d + n));
	uint8_t *lo = d - (below < CANARY_BYTES ? below : CANARY_BYTES);
	uint8_t *hi = d + n + (above < CANARY_BYTES ? above : CANARY_BYTES);
	size_t at = (size_t)(d - lo), window = (size_t)(hi - lo);
	const uint8_t *s = NULL;

	/* want[i]: inside [d, d + n) the reference result; in the canaries the
	 * byte an out-of-bounds store would most likely write (c, or the
	 * source byte at the same distance), to be flipped below. */
	if (is_memset) {
		memset(r->want, c, window);
	} else {
		/* The source bytes at the window's distances from s, 0 where
		 * that is outside the source mapping (s at a guard page). */
		s = place(&r->src, splace, soff, n);
		size_t src_below = (size_t)(s - r->src.base);
		size_t src_above = (size_t)(r->src.base + r->src.bytes - s);
		size_t first = at > src_below ? at - src_below : 0;
		size_t last = at + src_above < window ? at + src_above : window;
		memset(r->want, 0, first);
		memcpy(r->want + first, s - at + first, last - first);
		memset(r->want + last, 0, window - last);
	}
	/* Pre-fill: every byte differs from want[i], so a store the kernel
	 * skips is seen; canaries keep their pre-filled value. */
	const uint8_t *nz = r->noise + r->cases % NOISE_SHIFTS;
	xor_bytes(lo, r->want, nz, window);
	xor_bytes(r->want, r->want, nz, at);
	xor_bytes(r->want + at + n, r->want + at + n, nz + at + n, window - at - n);

	r->now = (struct current){n, doff, soff, dplace, splace, c, false, 0};
	void *ret = call(r->k, d, s, c, n);
	r->cases++;
	return verdict(r, ret, d, lo, at, window, n);
}

/* One memmove within one buffer, dst - src = shift (case M6), checked.
 * The lower of dst and src sits at `where` (MIDDLE: page offset off), so
 * the pair spans n + |shift| bytes. The window covers the pair and up to
 * CANARY_BYTES either side: every byte outside [dst, dst + n), the source
 * bytes the destination does not cover included, must keep its value.
 * The pre-fill makes window[i] != window[i - |shift|] for every i, so a
 * skipped store, a store of the wrong source byte (a copy in the wrong
 * direction reads bytes it already overwrote) and a store past either end
 * of src's value at the same distance all show. Returns 0 or 1. */
static int check_overlap(struct run *r, size_t n, enum place where, size_t off, long shift)
{
	size_t dist = shift < 0 ? (size_t)-shift : (size_t)shift;
	uint8_t *low = place(&r->dst, where, off, n + dist);
	uint8_t *d = shift >= 0 ? low + dist : low;
	const uint8_t *s = shift >= 0 ? low : low + dist;
	uint8_t *map_end = r->dst.base + r->dst.bytes;
	size_t below = (size_t)(low - r->dst.base), above = (size_t)(map_end - (low + n + dist));
	uint8_t *lo = low - (below < CANARY_BYTES ? below : CANARY_BYTES);
	uint8_t *hi = low + n + dist + (above < CANARY_BYTES ? above : CANARY_BYTES);
	size_t at = (size_t)(d - lo), from = (size_t)(s - lo), window = (size_t)(hi - lo);

	memcpy(lo, r->noise + r->cases % NOISE_SHIFTS, window);
	for (size_t i = dist; dist && i < window; i++)
		if (lo[i] == lo[i - dist])
			lo[i] ^= 0x80;
	/* The reference: the window as it is, with the n source bytes, read
	 * one by one before the kernel runs, at dst. */
	memcpy(r->want, lo, window);
	for (size_t i = 0; i < n; i++)
		r->want[at + i] = lo[from + i];

	r->now = (struct current){n, off, 0, where, where, 0, true, shift};
	void *ret = call(r->k, d, s, 0, n);
	r->cases++;
	return verdict(r, ret, d, lo, at, window, n);
}

/* Size n at dst - src = shift: in the middle of the buffer at each offset
 * (of the lower pointer), then, with guards, ending at the upper guard page
 * and starting right after the lower one. */
static int sweep_overlap(struct run *r, size_t n, long shift, struct offsets offs, bool guards)
{
	for (size_t i = 0; i < offs.count; i++)
		if (check_overlap(r, n, MIDDLE, offs.v[i], shift))
			return 1;
	return guards &&
	       (check_overlap(r, n, AT_END, 0, shift) || check_overlap(r, n, AT_START, 0, shift));
}

/* The quick grid puts only these shifts of the small grid at the guard
 * pages (far_shifts always go there): in place, the smallest overlaps
 * either way, and the shifts around a word, half a line and a line, where
 * the kernels' blocks start or stop overlapping their source. */
static bool edge_shift(long shift)
{
	long a = shift < 0 ? -shift : shift;
	return a <= 1 || a == 7 || a == 8 || a == 31 || a == 32 || a == 63 || a == 64 ||
	       a == NEAR_SHIFT_MAX;
}

/* The literal example of case M6: 11 22 33 44 00, four bytes moved to
 * dst = src + 1, gives 11 11 22 33 44. */
static int check_example(struct run *r)
{
	static const uint8_t before[5] = {0x11, 0x22, 0x33, 0x44, 0x00};
	static const uint8_t after[5] = {0x11, 0x11, 0x22, 0x33, 0x44};
	uint8_t *p = r->dst.base + PB_PAGE_BYTES;
	memcpy(p, before, sizeof before);
	r->now = (struct current){4, 0, 0, MIDDLE, MIDDLE, 0, true, 1};
	void *ret = call(r->k, p + 1, p, 0, 4);
	r->cases++;
	if (ret != p + 1) {
		describe_case(r, "returned %p, not dst %p", ret, (void *)(p + 1));
		return 1;
	}
	if (memcmp(p, after, sizeof after) != 0) {
		describe_case(r,
		              "11 22 33 44 00 became %02x %02x %02x %02x %02x, want 11 11 22 33 "
		              "44",
		              p[0], p[1], p[2], p[3], p[4]);
		return 1;
	}
	return 0;
}

/* p + pow2_deltas[i], or SIZE_MAX when the delta would take it below 0. */
static size_t pow2_plus(size_t p, size_t i)
{
	long delta = pow2_deltas[i];
	if (delta < 0 && (size_t)-delta > p)
		return SIZE_MAX;
	return delta < 0 ? p - (size_t)-delta : p + (size_t)delta;
}

/* Case M6's correctness input, at the level's offsets: n = 0..512 at every
 * dst - src in -128..128 (at the guard pages too: every shift, or with
 * all_guards false the edge_shift ones), then sizes 2^k + pow2_deltas up
 * to 64 KiB + 65 at each of far_shifts. */
static int run_overlap(struct run *r, struct offsets near_offs, struct offsets far_offs,
                       bool all_guards)
{
	if (check_example(r))
		return 1;
	for (size_t n = 0; n <= NEAR_SIZE_MAX; n++)
		for (long shift = -NEAR_SHIFT_MAX; shift <= NEAR_SHIFT_MAX; shift++)
			if (sweep_overlap(r, n, shift, near_offs, all_guards || edge_shift(shift)))
				return 1;
	for (size_t p = 1; p <= FAR_SIZE_MAX; p *= 2) {
		for (size_t i = 0; i < COUNT(pow2_deltas); i++) {
			size_t n = pow2_plus(p, i);
			if (n > FAR_SIZE_MAX)
				continue;
			for (size_t j = 0; j < COUNT(far_shifts); j++)
				if (sweep_overlap(r, n, far_shifts[j], far_offs, true))
					return 1;
		}
	}
	return 0;
}

/* Size n at every dst offset x every src offset in the middle of the
 * mappings; then at the guard pages (the other buffer at each offset). */
static int sweep(struct run *r, size_t n, struct offsets dst_offs, struct offsets src_offs)
{
	if (r->k->op == PB_OP_MEMSET) {
		for (size_t v = 0; v < COUNT(fill_values); v++) {
			int c = fill_values[v];
			for (size_t i = 0; i < dst_offs.count; i++)
				if (check(r, n, MIDDLE, dst_offs.v[i], MIDDLE, 0, c))
					return 1;
			if (check(r, n, AT_END, 0, MIDDLE, 0, c) ||
			    check(r, n, AT_START, 0, MIDDLE, 0, c))
				return 1;
		}
		return 0;
	}
	for (size_t i = 0; i < dst_offs.count; i++)
		for (size_t j = 0; j < src_offs.count; j++)
			if (check(r, n, MIDDLE, dst_offs.v[i], MIDDLE, src_offs.v[j], 0))
				return 1;
	for (size_t j = 0; j < src_offs.count; j++) {
		size_t o = src_offs.v[j];
		if (check(r, n, AT_END, 0, MIDDLE, o, 0) || check(r, n, AT_START, 0, MIDDLE, o, 0))
			return 1;
	}
	for (size_t i = 0; i < dst_offs.count; i++) {
		size_t o = dst_offs.v[i];
		if (check(r, n, MIDDLE, o, AT_END, 0, 0) || check(r, n, MIDDLE, o, AT_START, 0, 0))
			return 1;
	}
	if (check(r, n, AT_END, 0, AT_END, 0, 0) || check(r, n, AT_START, 0, AT_START, 0, 0))
		return 1;
	return 0;
}

static int sweep_range(struct run *r, size_t lo, size_t hi, struct offsets dst_offs,
                       struct offsets src_offs)
{
	for (size_t n = lo; n <= hi; n++)
		if (sweep(r, n, dst_offs, src_offs))
			return 1;
	return 0;
}

/* 2^k + each delta, for the sizes in (above, max]. */
static int sweep_pow2(struct run *r, size_t above, size_t max, struct offsets offs)
{
	for (size_t p = 1; p <= max; p *= 2) {
		for (size_t i = 0; i < COUNT(pow2_deltas); i++) {
			size_t n = pow2_plus(p, i);
			if (n > above && n <= max && sweep(r, n, offs, offs))
				return 1;
		}
	}
	return 0;
}

static size_t max_size(enum pb_selftest_level lvl)
{
	size_t top = lvl == PB_SELFTEST_QUICK ? (size_t)1 << 20 : (size_t)4 << 20;
	return top + 65;
}

static int run_grid(struct run *r, enum pb_selftest_level lvl)
{
	size_t max = max_size(lvl);
	bool move = r->k->op == PB_OP_MEMMOVE;
	switch (lvl) {
	case PB_SELFTEST_QUICK:
		return sweep_range(r, 0, 256, OFFSETS(all_offsets), OFFSETS(some_offsets)) ||
		       sweep_range(r, 257, 1024, OFFSETS(edge_offsets), OFFSETS(edge_offsets)) ||
		       sweep_pow2(r, 1024, max, OFFSETS(edge_offsets)) ||
		       (move && run_overlap(r, OFFSETS(zero_offset), OFFSETS(edge_offsets), false));
	case PB_SELFTEST_STANDARD:
		return sweep_range(r, 0, 256, OFFSETS(all_offsets), OFFSETS(all_offsets)) ||
		       sweep_range(r, 257, 1024, OFFSETS(some_offsets), OFFSETS(some_offsets)) ||
		       sweep_pow2(r, 1024, max, OFFSETS(few_offsets)) ||
		       (move && run_overlap(r, OFFSETS(edge_offsets), OFFSETS(few_offsets), true));
	case PB_SELFTEST_FULL:
		return sweep_range(r, 0, 1024, OFFSETS(all_offsets), OFFSETS(all_offsets)) ||
		       sweep_pow2(r, 1024, max, OFFSETS(some_offsets)) ||
		       (move && run_overlap(r, OFFSETS(some_offsets), OFFSETS(some_offsets), true));
	}
	return 0;
}

/* A kernel that touches a guard page faults: the handler jumps back to
 * run_catching_faults(), which reports the case under way (r->now). */
static _Thread_local sigjmp_buf *fault_jump;

static void on_fault(int sig)
{
	siglongjmp(*fault_jump, sig);
}

static int run_catching_faults(struct run *r, enum pb_selftest_level lvl)
{
	struct sigaction sa, old_segv, old_bus;
	sigjmp_buf jump;
	int rc;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fault;
	sigemptyset(&sa.sa_mask);
	fault_jump = &jump;
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	int sig = sigsetjmp(jump, 1);
	if (sig == 0) {
		rc = run_grid(r, lvl) ? 1 : 0;
	} else {
		describe_case(r, "%s: touched memory outside its buffers (a guard page)",
		              sig == SIGBUS ? "SIGBUS" : "SIGSEGV");
		rc = 1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	fault_jump = NULL;
	return rc;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int pb_selftest_kernel(const struct pb_kernel *k, enum pb_selftest_level lvl,
                       struct pb_selftest_result *out)
{
	char why[128];
	out->cases = 0;
	out->seconds = 0;
	out->detail[0] = '\0';
	if (!pb_kernel_usable(k, pb_cpu_features(), why, sizeof why))
		return pb_fail("kernel '%s/%s' cannot run here: %s", pb_op_name(k->op), k->name,
		               why);

	double start = now_seconds();
	size_t max = max_size(lvl);
	/* Room for the middle placement: a page of canary side, the offset,
	 * the size, the upper canary. */
	size_t area = PB_PAGE_BYTES + MAX_OFFSET + max + CANARY_BYTES;
	size_t window = max + 2 * CANARY_BYTES;
	struct run r = {.k = k, .detail = out->detail, .detail_len = sizeof out->detail};
	int rc = -1;

	if (pb_guarded_alloc(&r.dst, area) != 0)
		goto done;
	if (k->op != PB_OP_MEMSET && pb_guarded_alloc(&r.src, area) != 0)
		goto done;
	r.want = pb_map(window, false, false);
	r.noise = pb_map(window + NOISE_SHIFTS, false, false);
	if (!r.want || !r.noise)
		goto done;

	uint64_t seed = 0x5eed0f5e1f7e57ull;
	for (size_t i = 0; i < window + NOISE_SHIFTS; i++)
		r.noise[i] = (uint8_t)(1 + pb_splitmix64(&seed) % 255);
	for (size_t i = 0; i < r.src.bytes; i++)
		r.src.base[i] = (uint8_t)pb_splitmix64(&seed);

	rc = run_catching_faults(&r, lvl);
done:
	if (r.noise)
		pb_unmap(r.noise, window + NOISE_SHIFTS);
	if (r.want)
		pb_unmap(r.want, window);
	pb_guarded_free(&r.src);
	pb_guarded_free(&r.dst);
	out->cases = r.cases;
	out->seconds = now_seconds() - start;
	return rc;
}
