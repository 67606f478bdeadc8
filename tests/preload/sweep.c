/* sweep.c - calls every symbol libprimswitch.so replaces over sizes
 * 0..4096 and offsets 0..63 and checks each result byte by byte.
 *
 * usage: preload_sweep [memset|memcpy|memmove|all]...   (default: all)
 *
 * A plain C program: not linked with libprimbench, compiled with
 * PB_NO_LIBCALL_FLAGS (cmake/compiler.cmake): every call is a real call
 * through the PLT (under LD_PRELOAD, the library's), and its own fill,
 * copy and compare loops never become calls of the functions under test. The _chk forms are called
 * directly, with dstlen the size itself (the boundary must pass) or larger.
 *
 * Grids (each size 0..4096):
 *   memset family  dst offset 0..63, the value varying (and given as a
 *                  negative or > 255 int now and then: memset converts it
 *                  to unsigned char); bzero forms write 0
 *   memcpy family  dst offset k in 0..63 with src offset (37k + n) mod 64:
 *                  every dst offset and every src offset at every size
 *   memmove        the memcpy grid, then overlapping copies: dst - src in
 *                  +-1..17, +-31..33, +-63..65, +-n/2, +-(n-1), +-n, +-(n+1)
 * Around each destination, 64 guard bytes each side; every byte of the
 * region is compared with the expected one (untouched bytes: the random
 * content they had), as is the source. Return values are checked too.
 *
 * Built a second time with -DSWEEP_BOOTSTRAP (preload_sweep_bootstrap):
 * the same grids over the library's bootstrap kernels, linked in directly.
 * Exit: 0 all passed, 1 a mismatch (the first one printed), 2 usage.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_N  4096
#define GUARD  64
#define OFFS   64
#define REGION (GUARD + OFFS + MAX_N + GUARD)
/* memmove: one buffer holding source and destination, dst - src up to
 * +-(MAX_N + 1) apart. */
#define MOVE_BASE (GUARD + MAX_N + 8)
#define MOVE_SPAN (MOVE_BASE + OFFS + 2 * MAX_N + 8 + GUARD)

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);
void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);

enum ret { RET_DST, RET_END, RET_NONE };

struct set_target {
	const char *name;
	void *(*call)(void *dst, int c, size_t n);
	enum ret ret;
	int zero; /* bzero forms: the value is always 0 */
};

struct cpy_target {
	const char *name;
	void *(*call)(void *dst, const void *src, size_t n);
	enum ret ret;
	int overlap; /* memmove forms */
};

#ifdef SWEEP_BOOTSTRAP
void *pb_boot_memset(void *dst, int c, size_t n);
void *pb_boot_memcpy(void *restrict dst, const void *restrict src, size_t n);
void *pb_boot_memmove(void *dst, const void *src, size_t n);

static void *call_memcpy(void *d, const void *s, size_t n)
{
	return pb_boot_memcpy(d, s, n);
}

static const struct set_target set_targets[] = {
    {"bootstrap memset", pb_boot_memset, RET_DST, 0},
};
static const struct cpy_target cpy_targets[] = {
    {"bootstrap memcpy", call_memcpy, RET_DST, 0},
};
static const struct cpy_target move_targets[] = {
    {"bootstrap memmove", pb_boot_memmove, RET_DST, 1},
};
#else
/* dstlen for a _chk call: the size itself every other call. */
static inline size_t dstlen_for(size_t n)
{
	return (n & 1) ? n : n + 1 + (n & 64);
}

static void *call_memset(void *d, int c, size_t n)
{
	return memset(d, c, n);
}
static void *call_memset_chk(void *d, int c, size_t n)
{
	return __memset_chk(d, c, n, dstlen_for(n));
}
static void *call_bzero(void *d, int c, size_t n)
{
	(void)c;
	bzero(d, n);
	return NULL;
}
static void *call_explicit_bzero(void *d, int c, size_t n)
{
	(void)c;
	explicit_bzero(d, n);
	return NULL;
}
static void *call_explicit_bzero_chk(void *d, int c, size_t n)
{
	(void)c;
	__explicit_bzero_chk(d, n, dstlen_for(n));
	return NULL;
}
static void *call_memcpy(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n);
}
static void *call_memcpy_chk(void *d, const void *s, size_t n)
{
	return __memcpy_chk(d, s, n, dstlen_for(n));
}
static void *call_mempcpy(void *d, const void *s, size_t n)
{
	return mempcpy(d, s, n);
}
static void *call_mempcpy_chk(void *d, const void *s, size_t n)
{
	return __mempcpy_chk(d, s, n, dstlen_for(n));
}
static void *call_memmove(void *d, const void *s, size_t n)
{
	return memmove(d, s, n);
}
static void *call_memmove_chk(void *d, const void *s, size_t n)
{
	return __memmove_chk(d, s, n, dstlen_for(n));
}

static const struct set_target set_targets[] = {
    {"memset", call_memset, RET_DST, 0},
    {"__memset_chk", call_memset_chk, RET_DST, 0},
    {"bzero", call_bzero, RET_NONE, 1},
    {"explicit_bzero", call_explicit_bzero, RET_NONE, 1},
    {"__explicit_bzero_chk", call_explicit_bzero_chk, RET_NONE, 1},
};
static const struct cpy_target cpy_targets[] = {
    {"memcpy", call_memcpy, RET_DST, 0},
    {"__memcpy_chk", call_memcpy_chk, RET_DST, 0},
    {"mempcpy", call_mempcpy, RET_END, 0},
    {"__mempcpy_chk", call_mempcpy_chk, RET_END, 0},
};
static const struct cpy_target move_targets[] = {
    {"memmove", call_memmove, RET_DST, 1},
    {"__memmove_chk", call_memmove_chk, RET_DST, 1},
};
#endif

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Random content, made once; every call starts from a copy of it. */
static uint8_t pristine[MOVE_SPAN], pristine_src[REGION];
static uint8_t dbuf[MOVE_SPAN], sbuf[REGION];

static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed | 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (uint8_t)(x >> 24);
	}
}

/* Byte loops of the harness (never the functions under test). */
static void copy_bytes(uint8_t *restrict d, const uint8_t *restrict s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static int differ(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= a[i] ^ b[i];
	return acc != 0;
}

static int differ_value(const uint8_t *a, uint8_t v, size_t n)
{
	uint8_t acc = 0;
	for (size_t i = 0; i < n; i++)
		acc |= a[i] ^ v;
	return acc != 0;
}

static unsigned long long calls;

/* Reports the first wrong byte of buf[lo, hi) against expect(i) and exits. */
static void fail(const char *name, const char *what, size_t n, long dst_off, long src_off,
                 const uint8_t *buf, const uint8_t *want, size_t from, size_t to,
                 const uint8_t *dst)
{
	for (size_t i = from; i < to; i++) {
		if (buf[i] != want[i]) {
			printf("FAIL %s n=%zu dst+%ld src%+ld: %s: byte at dst%+ld is 0x%02x, "
			       "expected 0x%02x\n",
			       name, n, dst_off, src_off, what, (long)(buf + i - dst), buf[i],
			       want[i]);
			exit(1);
		}
	}
	printf("FAIL %s n=%zu dst+%ld src%+ld: %s\n", name, n, dst_off, src_off, what);
	exit(1);
}

static void check_ret(const char *name, enum ret ret, void *got, uint8_t *dst, size_t n)
{
	void *want = ret == RET_END ? (void *)(dst + n) : (void *)dst;
	if (ret != RET_NONE && got != want) {
		printf("FAIL %s n=%zu: returned %p, expected %p\n", name, n, got, want);
		exit(1);
	}
}

static void sweep_set(const struct set_target *t)
{
	static uint8_t want[REGION];
	for (size_t n = 0; n <= MAX_N; n++) {
		for (size_t off = 0; off < OFFS; off++) {
			uint8_t *base = dbuf, *dst = base + GUARD + off;
			int c = (int)((n * 31 + off * 7) & 0xff);
			if ((n + off) % 5 == 0)
				c -= 256; /* memset takes (unsigned char)c */
			else if ((n + off) % 5 == 1)
				c += 0x1200;
			uint8_t v = t->zero ? 0 : (uint8_t)c;
			size_t span = GUARD + off + n + GUARD;
			copy_bytes(base, pristine, span);
			void *r = t->call(dst, c, n);
			calls++;
			check_ret(t->name, t->ret, r, dst, n);
			if (differ(base, pristine, GUARD + off) || differ_value(dst, v, n) ||
			    differ(dst + n, pristine + GUARD + off + n, GUARD)) {
				copy_bytes(want, pristine, span);
				for (size_t i = 0; i < n; i++)
					want[GUARD + off + i] = v;
				fail(t->name, "wrong byte", n, (long)off, 0, base, want, 0, span,
				     dst);
			}
		}
	}
	printf("%s: %llu calls, sizes 0..%d, dst offsets 0..%d: ok\n", t->name, calls, MAX_N,
	       OFFS - 1);
}

/* One copy dst <- src (separate buffers), checked. */
static void one_copy(const struct cpy_target *t, size_t n, size_t doff, size_t soff)
{
	static uint8_t want[REGION];
	uint8_t *dst = dbuf + GUARD + doff, *src = sbuf + GUARD + soff;
	size_t dspan = GUARD + doff + n + GUARD, sspan = GUARD + soff + n + GUARD;
	copy_bytes(dbuf, pristine, dspan);
	copy_bytes(sbuf, pristine_src, sspan);
	void *r = t->call(dst, src, n);
	calls++;
	check_ret(t->name, t->ret, r, dst, n);
	if (differ(dbuf, pristine, GUARD + doff) || differ(dst, src, n) ||
	    differ(dst + n, pristine + GUARD + doff + n, GUARD)) {
		copy_bytes(want, pristine, dspan);
		copy_bytes(want + GUARD + doff, pristine_src + GUARD + soff, n);
		fail(t->name, "wrong byte", n, (long)doff, (long)soff, dbuf, want, 0, dspan, dst);
	}
	if (differ(sbuf, pristine_src, sspan))
		fail(t->name, "source changed", n, (long)doff, (long)soff, sbuf, pristine_src, 0,
		     sspan, dst);
}

static void sweep_cpy(const struct cpy_target *t)
{
	for (size_t n = 0; n <= MAX_N; n++)
		for (size_t k = 0; k < OFFS; k++)
			one_copy(t, n, k, (37 * k + n) % OFFS);
	printf("%s: %llu calls, sizes 0..%d, dst and src offsets 0..%d: ok\n", t->name, calls,
	       MAX_N, OFFS - 1);
}

/* memmove(src + d, src, n) inside one buffer, checked against the
 * buffer's content before the call. */
static void one_move(const struct cpy_target *t, size_t n, long d, size_t soff)
{
	static uint8_t want[MOVE_SPAN];
	uint8_t *src = dbuf + MOVE_BASE + soff, *dst = src + d;
	/* The bytes that matter: both ranges and the guards around them. */
	size_t at = (size_t)(dst - dbuf), from = at, to = at + n;
	if (MOVE_BASE + soff < from)
		from = MOVE_BASE + soff;
	if (MOVE_BASE + soff + n > to)
		to = MOVE_BASE + soff + n;
	from -= GUARD;
	to += GUARD;
	copy_bytes(dbuf + from, pristine + from, to - from);
	void *r = t->call(dst, src, n);
	calls++;
	check_ret(t->name, t->ret, r, dst, n);
	if (differ(dbuf + from, pristine + from, at - from) ||
	    differ(dst, pristine + MOVE_BASE + soff, n) ||
	    differ(dst + n, pristine + at + n, to - at - n)) {
		copy_bytes(want + from, pristine + from, to - from);
		copy_bytes(want + at, pristine + MOVE_BASE + soff, n);
		fail(t->name, "wrong byte (overlapping)", n, (long)(at % OFFS), -d, dbuf, want,
		     from, to, dst);
	}
}

static void sweep_move(const struct cpy_target *t)
{
	sweep_cpy(t);
	unsigned long long before = calls;
	for (size_t n = 0; n <= MAX_N; n++) {
		long dist[64];
		int nd = 0;
		for (long d = 1; d <= 17; d++)
			dist[nd++] = d;
		for (long d = 31; d <= 33; d++)
			dist[nd++] = d;
		for (long d = 63; d <= 65; d++)
			dist[nd++] = d;
		long big[] = {(long)n / 2, (long)n - 1, (long)n, (long)n + 1};
		for (int i = 0; i < 4; i++)
			if (big[i] > 0)
				dist[nd++] = big[i];
		for (int i = 0; i < nd; i++) {
			size_t soff = (n + (size_t)i * 7) % OFFS;
			one_move(t, n, dist[i], soff);
			one_move(t, n, -dist[i], soff);
		}
	}
	printf("%s: %llu overlapping calls, sizes 0..%d, dst - src in +-1..17, +-31..33, "
	       "+-63..65, +-n/2, +-(n-1), +-n, +-(n+1): ok\n",
	       t->name, calls - before, MAX_N);
}

int main(int argc, char **argv)
{
	int want_set = argc < 2, want_cpy = argc < 2, want_move = argc < 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "memset"))
			want_set = 1;
		else if (!strcmp(argv[i], "memcpy"))
			want_cpy = 1;
		else if (!strcmp(argv[i], "memmove"))
			want_move = 1;
		else if (!strcmp(argv[i], "all"))
			want_set = want_cpy = want_move = 1;
		else {
			fprintf(stderr, "usage: %s [memset|memcpy|memmove|all]...\n", argv[0]);
			return 2;
		}
	}
	fill_random(pristine, sizeof pristine, 0x9e3779b97f4a7c15ull);
	fill_random(pristine_src, sizeof pristine_src, 0xd1b54a32d192ed03ull);
	for (size_t i = 0; want_set && i < COUNT(set_targets); i++, calls = 0)
		sweep_set(&set_targets[i]);
	for (size_t i = 0; want_cpy && i < COUNT(cpy_targets); i++, calls = 0)
		sweep_cpy(&cpy_targets[i]);
	for (size_t i = 0; want_move && i < COUNT(move_targets); i++, calls = 0)
		sweep_move(&move_targets[i]);
	return 0;
}
