/* fuzz_kernels.c - every memset, memcpy and memmove kernel against the
 * reference, with guard pages (tests/fuzz/README.md, "The kernels").
 *
 * The input chooses, in order (fuzz.h's little-endian fields; zero past
 * the end of the input):
 *   op            memset, memcpy or memmove
 *   contender     a row of the kernel table (every kernel of the op,
 *                 libc and auto included; one not usable here ends the
 *                 input), the preload library's bootstrap kernel, or the
 *                 preload library's banded dispatch of the policy below
 *                 (pb_policy_pick, then the band's kernel: src/preload/
 *                 switch.c); auto runs the policy below when it parses,
 *                 else its built-in default for this CPU
 *   size          0..64 KiB (5 inputs in 8), else within 64 bytes of a
 *                 bound of the policy or of a size where kernels change
 *                 code (the vector widths and lines, the rows'
 *                 differs_from_bytes, the auto defaults' bounds) up to
 *                 64 KiB. kernels_large (fuzz_kernels_large.c: this file
 *                 with PB_FUZZ_LARGE): half log-uniform from 64 KiB to
 *                 three times the largest threshold of any kernel, half
 *                 within 64 bytes of a bound above 64 KiB. Apart, because
 *                 a call of megabytes costs a thousand small ones: one
 *                 target mixing both ran 1,900 inputs a second, the small
 *                 one alone 36,000
 *   placement     the destination at a chosen gap from the start or the
 *                 end of its window; memmove: the source's distance from
 *                 the destination, overlapping either way or not
 *   fill value    an int (values beyond a byte included: memset converts)
 *   pattern       where in a random pattern the windows' bytes come from
 *   policy        1 to 4 bands: kernel rows and bounds, written in the
 *                 policy grammar (include/primbench/policy.h) and parsed
 *                 as the preload library does
 *
 * Memory: one mapping for destinations and one for memcpy's sources, each
 * PROT_NONE except the call's window (whole pages around the bytes the
 * call may touch), which is made readable and writable (a memcpy source:
 * read-only) for the call and PROT_NONE again after. Any access outside
 * the window faults. Every byte of the window is then checked: the range
 * holds what the reference gives (the fill value; the source's bytes as
 * they were before the call), every other byte its pattern. The kernel
 * returns dst. The SIMD state around the call: kernel_check.h.
 *
 * The kernels fuzzed are compiled as in every build plus coverage
 * counters, no sanitizer (CMakeLists.txt); replay_kernels runs the same
 * inputs on the uninstrumented objects the benchmarks run. The profiles
 * of make test (PRIMBENCH_HIDE_FEATURES) change what is usable and what
 * auto and libc choose: run.sh runs this target under each. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "kernel_check.h"
#include "preload.h"
#include "primbench/auto.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

#ifndef PB_FUZZ_LARGE
#define PB_FUZZ_LARGE 0
#endif
#define SMALL_MAX_BYTES (64u * 1024)
#define MAX_GAP_BYTES   4160u /* a page and a line */

static size_t page_bytes;
static size_t tail_max_bytes; /* three times the largest threshold */
static size_t size_max_bytes; /* the largest call: tail_max_bytes in kernels_large, else
                               * SMALL_MAX_BYTES and the 64 bytes past a bound */
static size_t map_bytes;      /* each mapping */
static uint8_t *dst_map, *src_map;
static uint8_t *pattern; /* map_bytes + 2 pages of random bytes */
/* Where in pattern memcpy's sources start: past any destination window's
 * bytes (at most size_max_bytes + MAX_GAP_BYTES + a page from `shift`), so
 * no destination byte holds its source's byte before the call (a source
 * cut a page after its destination did: a memcpy that wrote nothing
 * passed where the destination sat a page further into its window). */
static size_t src_pattern_at;
static const struct pb_kernel *table;
static size_t table_count;
static pb_features usable;
static uint64_t thresholds[64];
static size_t n_thresholds, n_small_thresholds; /* the first n_small are <= 64 KiB */

static void add_threshold(uint64_t b)
{
	if (b && b != UINT64_MAX && n_thresholds < sizeof thresholds / sizeof thresholds[0])
		thresholds[n_thresholds++] = b;
}

static uint8_t *map_none(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		pb_fuzz_fail("cannot map %zu bytes", bytes);
	return p;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	page_bytes = (size_t)sysconf(_SC_PAGESIZE);
	usable = pb_cpu_features();
	table = pb_kernels(&table_count);
	pb_fz_env_detect();
	/* the checker's own test (kernel_check.h): replay only */
	const char *broken = getenv("PB_FUZZ_KERNELS_BROKEN");
	if (broken && *broken && pb_fuzz_replaying) {
		static const char *const kinds[] = {
		    "", "overrun", "underrun", "value", "forward", "ret", "mxcsr", "avx", "none"};
		for (size_t i = 1; i < sizeof kinds / sizeof kinds[0]; i++)
			if (!strcmp(broken, kinds[i]))
				pb_fz_broken = (enum pb_fz_broken)i;
		if (pb_fz_broken == PB_FZ_OK)
			pb_fuzz_fail("PB_FUZZ_KERNELS_BROKEN=%s: no such kind", broken);
	}
	/* The sizes where kernels change their head and tail code (the vector
	 * widths and lines, up to the small range's end), first. */
	for (uint64_t b = 8; b <= SMALL_MAX_BYTES; b *= 2)
		add_threshold(b);
	n_small_thresholds = n_thresholds;
	/* The largest threshold: the auto defaults' bounds (every row, parsed
	 * for any CPU) and the rows' own differs_from_bytes. */
	uint64_t largest = SMALL_MAX_BYTES;
	size_t nrows;
	const struct pb_auto_default_row *rows = pb_auto_defaults(&nrows);
	for (size_t r = 0; r < nrows; r++)
		for (int op = 0; op < PB_OP_COUNT; op++) {
			struct pb_policy p;
			if (!rows[r].policy[op] ||
			    pb_policy_parse((enum pb_op)op, rows[r].policy[op], (pb_features)-1,
			                    &p) != 0)
				continue;
			for (size_t b = 0; b + 1 < p.n_bands; b++) {
				add_threshold(p.bands[b].max_bytes);
				if (p.bands[b].max_bytes > largest)
					largest = p.bands[b].max_bytes;
			}
		}
	for (size_t i = 0; i < table_count; i++) {
		add_threshold(table[i].differs_from_bytes);
		if (table[i].differs_from_bytes > largest)
			largest = table[i].differs_from_bytes;
	}
	tail_max_bytes = 3 * largest;
	size_max_bytes = PB_FUZZ_LARGE ? tail_max_bytes : SMALL_MAX_BYTES + 64;
	/* memmove's window holds both ranges: twice the size and the gaps;
	 * sized for this target's calls (a replay of the small target starts
	 * in milliseconds, not after filling 100 MB) */
	map_bytes = 2 * size_max_bytes + 4 * MAX_GAP_BYTES + 4 * page_bytes;
	map_bytes = (map_bytes + page_bytes - 1) / page_bytes * page_bytes;
	dst_map = map_none(map_bytes);
	src_map = map_none(map_bytes);
	src_pattern_at = map_bytes / 2 / page_bytes * page_bytes;
	pattern = malloc(map_bytes + 2 * page_bytes);
	if (!pattern)
		pb_fuzz_fail("cannot allocate the pattern");
	uint64_t x = 0x9E3779B97F4A7C15ull; /* xorshift64 (Marsaglia 2003) */
	for (size_t i = 0; i < map_bytes + 2 * page_bytes; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		pattern[i] = (uint8_t)(x >> 32);
	}
	return 0;
}

/* The kernels of op, in table order. */
static const struct pb_kernel *nth_of_op(enum pb_op op, unsigned i, size_t *n_of_op)
{
	const struct pb_kernel *found = NULL;
	size_t n = 0;
	for (size_t k = 0; k < table_count; k++)
		if (table[k].op == op) {
			if (n == i)
				found = &table[k];
			n++;
		}
	*n_of_op = n;
	return found;
}

/* A policy from the input, in the grammar, with sizes written in its
 * forms (decimal, K/M suffixes, hex). Returns 0 and *p, or -1. */
static int input_policy(struct pb_fuzz_in *in, enum pb_op op, struct pb_policy *p, char *text,
                        size_t len)
{
	unsigned bands = 1 + pb_fuzz_u8(in) % 4;
	uint64_t bound = 0;
	size_t at = 0;
	for (unsigned b = 0; b < bands; b++) {
		size_t n_of_op;
		unsigned pick = pb_fuzz_u8(in);
		const struct pb_kernel *k = nth_of_op(op, pick, &n_of_op);
		if (!k)
			k = nth_of_op(op, pick % n_of_op, &n_of_op);
		/* a policy naming auto is auto's own business: the first row instead */
		if (k->memset_fn == pb_memset_auto || k->memcpy_fn == pb_memcpy_auto ||
		    k->memmove_fn == pb_memmove_auto)
			k = nth_of_op(op, 0, &n_of_op);
		at += (size_t)snprintf(text + at, len - at, "%s%s", b ? "," : "", k->name);
		if (b + 1 == bands)
			break;
		uint16_t step = pb_fuzz_u16(in);
		/* log-spread steps: 1 byte to 64 MiB */
		bound += 1 + ((uint64_t)(step & 0x3FF) << ((step >> 10) % 17));
		int form = (step >> 14) & 3;
		if (form == 1 && bound % 1024 == 0)
			at += (size_t)snprintf(text + at, len - at, "<=%" PRIu64 "K", bound / 1024);
		else if (form == 2)
			at += (size_t)snprintf(text + at, len - at, "<=0x%" PRIx64, bound);
		else
			at += (size_t)snprintf(text + at, len - at, "<=%" PRIu64, bound);
	}
	return pb_policy_parse(op, text, usable, p);
}

static size_t input_size(struct pb_fuzz_in *in, const struct pb_policy *p, bool have_policy)
{
	uint8_t mode = pb_fuzz_u8(in);
	uint32_t v = pb_fuzz_u32(in);
	uint64_t t;
	if (have_policy && p->n_bands > 1 && (mode & 1))
		t = p->bands[v % (p->n_bands - 1)].max_bytes;
	else
		t = thresholds[v % n_thresholds];
	int64_t d = (int64_t)((v >> 16) % 129) - 64;
#if PB_FUZZ_LARGE
	if (mode < 128 || t <= SMALL_MAX_BYTES) { /* log-uniform over the tail */
		double lo = (double)SMALL_MAX_BYTES, hi = (double)tail_max_bytes;
		size_t n = (size_t)(lo * pow(hi / lo, (double)v / 4294967296.0));
		return n > tail_max_bytes ? tail_max_bytes : n;
	}
#else
	if (mode < 160)
		return v % (SMALL_MAX_BYTES + 1);
	if (t > SMALL_MAX_BYTES) /* the large bounds are kernels_large's */
		t = thresholds[v % n_small_thresholds];
#endif
	/* near a bound: the policy's, or a kernel's threshold */
	int64_t n = (int64_t)t + d;
	if (n < 0)
		n = 0;
	return (size_t)n > tail_max_bytes ? tail_max_bytes : (size_t)n;
}

/* Makes [at, at + bytes) (whole pages) accessible with prot. */
static void protect(uint8_t *at, size_t bytes, int prot)
{
	if (bytes && mprotect(at, bytes, prot) != 0)
		pb_fuzz_fail("mprotect: %m");
}

/* got[0..n) must equal want[0..n); `where` names the bytes ("the range",
 * "below the range"), first_offset the offset of got[0] from dst. */
static void check_bytes(enum pb_op op, const char *name, size_t call_n, const char *where,
                        const uint8_t *got, const uint8_t *want, size_t n, ptrdiff_t first_offset)
{
	size_t i = pb_fz_first_diff(got, want, n);
	if (i < n)
		pb_fuzz_fail("%s/%s n=%zu: %s: the byte at dst%+td is 0x%02x, expected 0x%02x",
		             pb_op_name(op), name, call_n, where, first_offset + (ptrdiff_t)i,
		             got[i], want[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_fuzz_in in = {data, size};
	enum pb_op op = (enum pb_op)(pb_fuzz_u8(&in) % PB_OP_COUNT);
	size_t n_of_op;
	nth_of_op(op, 0, &n_of_op);
	/* contenders: the table's rows of op, then bootstrap, then the dispatch */
	unsigned which = pb_fuzz_u8(&in) % (unsigned)(n_of_op + 2);
	const struct pb_kernel *k = nth_of_op(op, which, &n_of_op);
	bool boot = which == n_of_op, banded = which == n_of_op + 1;
	if (k && !pb_kernel_usable(k, usable, NULL, 0)) {
		pb_fuzz_outcome("done");
		return 0;
	}

	char policy_text[PB_POLICY_TEXT_MAX];
	struct pb_policy policy;
	bool have_policy = input_policy(&in, op, &policy, policy_text, sizeof policy_text) == 0;
	if (banded && !have_policy) {
		pb_fuzz_outcome("done");
		return 0;
	}
	bool is_auto = k && (k->memset_fn == pb_memset_auto || k->memcpy_fn == pb_memcpy_auto ||
	                     k->memmove_fn == pb_memmove_auto);
	if (is_auto) {
		struct pb_policy def;
		if (!have_policy)
			pb_auto_default(op, usable, &def, NULL);
		if (pb_auto_install(have_policy ? &policy : &def) != 0)
			pb_fuzz_fail("auto refused policy '%s': %s", policy_text, pb_error());
	}

	size_t n = input_size(&in, &policy, have_policy);
	uint16_t place = pb_fuzz_u16(&in);
	size_t gap = place & 0x8000 ? (place & 0x1FFF) % MAX_GAP_BYTES : place & 0x7F;
	bool from_end = place & 0x4000;
	uint32_t cv = pb_fuzz_u32(&in);
	int c = (cv & 0x300) == 0x300 ? (int)cv : (cv & 0x300) == 0x200 ? 0 : (int)(cv & 0xFF);
	size_t shift = pb_fuzz_u16(&in) % page_bytes;
	/* memmove: the source's place relative to the destination */
	int64_t delta = 0;
	if (op == PB_OP_MEMMOVE) {
		uint32_t dv = pb_fuzz_u32(&in);
		int64_t mag = (dv & 0x80000000u) ? (int64_t)(dv % (n + 257))  /* any */
		                                 : (int64_t)(n ? dv % n : 0); /* overlapping */
		delta = (dv & 0x40000000u) ? -mag : mag;
	}

	/* The window: [win, top), top the end of the mapping's last usable page */
	size_t span = n + (size_t)(delta < 0 ? -delta : delta);
	size_t need = span + gap;
	size_t win_bytes = (need + page_bytes - 1) / page_bytes * page_bytes;
	if (win_bytes == 0)
		win_bytes = page_bytes;
	uint8_t *top = dst_map + map_bytes - page_bytes;
	uint8_t *win = top - win_bytes;
	uint8_t *lo = from_end ? top - gap - span : win + gap; /* the lower range's start */
	uint8_t *dst = delta < 0 ? lo - delta : lo;
	uint8_t *src_m = delta < 0 ? lo : lo + delta; /* memmove's source */
	const uint8_t *want_win = pattern + shift;

	protect(win, win_bytes, PROT_READ | PROT_WRITE);
	memcpy(win, want_win, win_bytes);

	/* memcpy's source: its own window in src_map, read-only */
	uint8_t *src_win = NULL, *src = src_m;
	size_t src_win_bytes = 0;
	if (op == PB_OP_MEMCPY) {
		size_t sgap = (place >> 7) & 0x7F;
		src_win_bytes = (n + sgap + page_bytes - 1) / page_bytes * page_bytes;
		if (src_win_bytes == 0)
			src_win_bytes = page_bytes;
		uint8_t *stop = src_map + map_bytes - page_bytes;
		src_win = stop - src_win_bytes;
		src = (place & 0x2000) ? stop - sgap - n : src_win + sgap;
		protect(src_win, src_win_bytes, PROT_READ | PROT_WRITE);
		memcpy(src_win, pattern + src_pattern_at + shift, src_win_bytes);
		protect(src_win, src_win_bytes, PROT_READ);
	}

	pb_memset_fn set = NULL;
	pb_memcpy_fn cpy = NULL;
	pb_memmove_fn move = NULL;
	const char *name;
	if (boot) {
		set = pb_boot_memset, cpy = pb_boot_memcpy, move = pb_boot_memmove;
		name = "bootstrap";
	} else {
		const struct pb_kernel *use = banded ? pb_policy_pick(&policy, n) : k;
		set = use->memset_fn, cpy = use->memcpy_fn, move = use->memmove_fn;
		name = banded ? policy_text : use->name;
	}
	if (pb_fz_broken != PB_FZ_OK) {
		set = pb_fz_broken_memset, cpy = pb_fz_broken_memcpy, move = pb_fz_broken_memmove;
		name = "broken";
	}
	const char *env_why;
	void *ret =
	    pb_fz_call(op, set, cpy, move, dst, op == PB_OP_MEMCPY ? src : src_m, c, n, &env_why);
	if (ret != dst)
		pb_fuzz_fail("%s/%s n=%zu returned %p, not dst %p", pb_op_name(op), name, n, ret,
		             (void *)dst);
	if (env_why)
		pb_fuzz_fail("%s/%s n=%zu: %s", pb_op_name(op), name, n, env_why);

	/* The range */
	if (op == PB_OP_MEMSET) {
		size_t i = pb_fz_first_not(dst, n, (uint8_t)c);
		if (i < n)
			pb_fuzz_fail("memset/%s n=%zu c=%d: byte %zu is 0x%02x", name, n, c, i,
			             dst[i]);
	} else if (op == PB_OP_MEMCPY) {
		check_bytes(op, name, n, "the range (a copy of the source)", dst,
		            pattern + src_pattern_at + shift + (src - src_win), n, 0);
	} else {
		check_bytes(op, name, n, "the range (the source as it was)", dst,
		            want_win + (src_m - win), n, 0);
	}
	/* Every other byte of the window */
	check_bytes(op, name, n, "below the range", win, want_win, (size_t)(dst - win), win - dst);
	check_bytes(op, name, n, "above the range", dst + n, want_win + (dst + n - win),
	            (size_t)(top - (dst + n)), (ptrdiff_t)n);

	protect(win, win_bytes, PROT_NONE);
	if (src_win)
		protect(src_win, src_win_bytes, PROT_NONE);
	pb_fuzz_outcome("done");
	return 0;
}
