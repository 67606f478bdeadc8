/* perf_targets.c - `perf-targets`: how close the catalogue's best memset and
 * memcpy kernels come to what the machine can do, as ratios within one
 * interleaved run per row. A hand-run benchmark (bench/perf-targets builds
 * and runs it); not a test: no timing threshold is asserted anywhere.
 *
 * Rows (docs/performance.md, "perf-targets"):
 *   memset 4 KiB hot, value 0: store-loop probe vs every memset kernel;
 *     target: best kernel >= 0.95 x the probe's speed.
 *   memcpy 4 KiB hot: copy probe vs every memcpy kernel; >= 0.95 x probe.
 *   memset 64 MiB dram, value 0x5a: non-temporal store probe vs every
 *     memset kernel; >= 0.90 x probe.
 *   memcpy 64 MiB dram: every memcpy kernel vs libc; >= 1.3 x libc.
 * "Best kernel" is the catalogue kernel (not libc, not a probe) with the
 * lowest median; the ratio is reference median / best median in TSC ticks
 * per call, i.e. the best kernel's speed as a multiple of the reference's.
 *
 * The probes are not kernels: aligned vector store (or load+store) loops
 * with no head or tail handling, an upper bound for a loop of that store
 * width. They need a 64-byte aligned destination (and source) and a size
 * that is a multiple of 256 bytes, which every row's placement and size
 * give them. They are timed by the mem suite (pb_mem_run) like any kernel:
 * one group per row, contenders round-robin in a shuffled order each round.
 *
 * Built with PB_NO_LIBCALL_FLAGS (cmake/compiler.cmake), so no loop here
 * becomes a call of memset or memcpy.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <gnu/libc-version.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/kernels.h"
#include "primbench/mem.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/text.h"
#include "primbench/timer.h"

#if !defined(__x86_64__)
/* Elsewhere: the probes are x86 vector loops; nothing to measure. */
int main(void)
{
	fprintf(stderr, "perf-targets: x86-64 only (its probes are x86 vector loops); "
	                "nothing measured\n");
	return 2;
}
#else
#include <immintrin.h>

#define EXIT_SHORT       1 /* --strict: a target was not met */
#define EXIT_USAGE       2
#define PROBE_ALIGN      64u  /* bytes: the probes' alignment assumption */
#define PROBE_BLOCK      256u /* bytes: the probes' size granule */
#define MAX_CONTENDERS   64
#define DEFAULT_BUDGET_S 12.0

/* ---- the probes ---------------------------------------------------------
 * Each: 4 (AVX-512), 8 (AVX2) or 16 (SSE2) aligned vector stores per
 * 256-byte iteration, written out (unrolled), n / 256 iterations; no head,
 * no tail, no alignment step. dst (and src) must be 64-byte aligned and n a
 * multiple of 256. The value is broadcast as a 32-bit pattern
 * (vpbroadcastd: AVX-512F is enough, no AVX-512BW). They return dst, as
 * memset and memcpy do. */

/* Four stores of v, w bytes apart from p: store(p), store(p + w), ... */
#define STORE4(store, type, p, w, v)                                                               \
	do {                                                                                       \
		store((type *)(p), v);                                                             \
		store((type *)((p) + (w)), v);                                                     \
		store((type *)((p) + 2 * (w)), v);                                                 \
		store((type *)((p) + 3 * (w)), v);                                                 \
	} while (0)

/* Four w-byte loads from q, then four stores of them to p. */
#define COPY4(load, store, type, p, q, w)                                                          \
	do {                                                                                       \
		type a_ = load((const type *)(q));                                                 \
		type b_ = load((const type *)((q) + (w)));                                         \
		type c_ = load((const type *)((q) + 2 * (w)));                                     \
		type d_ = load((const type *)((q) + 3 * (w)));                                     \
		store((type *)(p), a_);                                                            \
		store((type *)((p) + (w)), b_);                                                    \
		store((type *)((p) + 2 * (w)), c_);                                                \
		store((type *)((p) + 3 * (w)), d_);                                                \
	} while (0)

/* Fills n bytes at dst with c: 64-byte vmovdqa64 stores. */
__attribute__((target("avx512f"))) static void *probe_store_avx512(void *dst, int c, size_t n)
{
	__m512i v = _mm512_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK)
		STORE4(_mm512_store_si512, __m512i, p, 64, v);
	return dst;
}

/* Copies n bytes from src to dst: 64-byte vmovdqa64 loads and stores. */
__attribute__((target("avx512f"))) static void *
probe_copy_avx512(void *restrict dst, const void *restrict src, size_t n)
{
	char *p = dst;
	const char *q = src;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK, q += PROBE_BLOCK)
		COPY4(_mm512_load_si512, _mm512_store_si512, __m512i, p, q, 64);
	return dst;
}

/* Fills n bytes at dst with c: 64-byte vmovntdq stores, one sfence. */
__attribute__((target("avx512f"))) static void *probe_nt_avx512(void *dst, int c, size_t n)
{
	__m512i v = _mm512_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK)
		STORE4(_mm512_stream_si512, __m512i, p, 64, v);
	_mm_sfence();
	return dst;
}

/* As probe_store_avx512 with 32-byte vmovdqa stores. */
__attribute__((target("avx2"))) static void *probe_store_avx2(void *dst, int c, size_t n)
{
	__m256i v = _mm256_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK) {
		STORE4(_mm256_store_si256, __m256i, p, 32, v);
		STORE4(_mm256_store_si256, __m256i, p + 128, 32, v);
	}
	return dst;
}

/* As probe_copy_avx512 with 32-byte vmovdqa loads and stores. */
__attribute__((target("avx2"))) static void *probe_copy_avx2(void *restrict dst,
                                                             const void *restrict src, size_t n)
{
	char *p = dst;
	const char *q = src;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK, q += PROBE_BLOCK) {
		COPY4(_mm256_load_si256, _mm256_store_si256, __m256i, p, q, 32);
		COPY4(_mm256_load_si256, _mm256_store_si256, __m256i, p + 128, q + 128, 32);
	}
	return dst;
}

/* As probe_nt_avx512 with 32-byte vmovntdq stores. */
__attribute__((target("avx2"))) static void *probe_nt_avx2(void *dst, int c, size_t n)
{
	__m256i v = _mm256_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK) {
		STORE4(_mm256_stream_si256, __m256i, p, 32, v);
		STORE4(_mm256_stream_si256, __m256i, p + 128, 32, v);
	}
	_mm_sfence();
	return dst;
}

/* As probe_store_avx512 with 16-byte movdqa stores (SSE2: every x86-64). */
static void *probe_store_sse2(void *dst, int c, size_t n)
{
	__m128i v = _mm_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK) {
		STORE4(_mm_store_si128, __m128i, p, 16, v);
		STORE4(_mm_store_si128, __m128i, p + 64, 16, v);
		STORE4(_mm_store_si128, __m128i, p + 128, 16, v);
		STORE4(_mm_store_si128, __m128i, p + 192, 16, v);
	}
	return dst;
}

/* As probe_copy_avx512 with 16-byte movdqa loads and stores. */
static void *probe_copy_sse2(void *restrict dst, const void *restrict src, size_t n)
{
	char *p = dst;
	const char *q = src;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK, q += PROBE_BLOCK) {
		COPY4(_mm_load_si128, _mm_store_si128, __m128i, p, q, 16);
		COPY4(_mm_load_si128, _mm_store_si128, __m128i, p + 64, q + 64, 16);
		COPY4(_mm_load_si128, _mm_store_si128, __m128i, p + 128, q + 128, 16);
		COPY4(_mm_load_si128, _mm_store_si128, __m128i, p + 192, q + 192, 16);
	}
	return dst;
}

/* As probe_nt_avx512 with 16-byte movntdq stores. */
static void *probe_nt_sse2(void *dst, int c, size_t n)
{
	__m128i v = _mm_set1_epi32((int)((unsigned char)c * 0x01010101u));
	char *p = dst;
	for (size_t i = n / PROBE_BLOCK; i; i--, p += PROBE_BLOCK) {
		STORE4(_mm_stream_si128, __m128i, p, 16, v);
		STORE4(_mm_stream_si128, __m128i, p + 64, 16, v);
		STORE4(_mm_stream_si128, __m128i, p + 128, 16, v);
		STORE4(_mm_stream_si128, __m128i, p + 192, 16, v);
	}
	_mm_sfence();
	return dst;
}

/* One set of probes of one vector width, as kernel rows the suite can time. */
struct probe_set {
	const char *isa;  /* "AVX-512" */
	const char *what; /* the instructions, for the output */
	struct pb_kernel store, copy, nt;
};

#define PROBE_SRC "bench/perf_targets.c (probe: no head/tail, aligned, n % 256 == 0)"
#define PROBE_MEMSET(name_, fn_, desc_)                                                            \
	{                                                                                          \
		.op = PB_OP_MEMSET, .name = name_, .memset_fn = fn_, .description = desc_,         \
		.source = PROBE_SRC                                                                \
	}
#define PROBE_MEMCPY(name_, fn_, desc_)                                                            \
	{                                                                                          \
		.op = PB_OP_MEMCPY, .name = name_, .memcpy_fn = fn_, .description = desc_,         \
		.source = PROBE_SRC                                                                \
	}

static const struct probe_set probe_sets[] = {
    {"AVX-512",
     "64-byte vmovdqa64 stores (load+store for memcpy) and vmovntdq zmm stores, 4 per 256-byte "
     "iteration",
     PROBE_MEMSET("probe_store_avx512", probe_store_avx512, "aligned vmovdqa64 store loop"),
     PROBE_MEMCPY("probe_copy_avx512", probe_copy_avx512, "aligned vmovdqa64 load+store loop"),
     PROBE_MEMSET("probe_nt_avx512", probe_nt_avx512,
                  "aligned vmovntdq zmm store loop, one sfence")},
    {"AVX2",
     "32-byte vmovdqa stores (load+store for memcpy) and vmovntdq ymm stores, 8 per 256-byte "
     "iteration",
     PROBE_MEMSET("probe_store_avx2", probe_store_avx2, "aligned vmovdqa ymm store loop"),
     PROBE_MEMCPY("probe_copy_avx2", probe_copy_avx2, "aligned vmovdqa ymm load+store loop"),
     PROBE_MEMSET("probe_nt_avx2", probe_nt_avx2, "aligned vmovntdq ymm store loop, one sfence")},
    {"SSE2",
     "16-byte aligned movaps/movdqa stores (load+store for memcpy) and movntdq stores, 16 per "
     "256-byte iteration",
     PROBE_MEMSET("probe_store_sse2", probe_store_sse2, "aligned 16-byte store loop"),
     PROBE_MEMCPY("probe_copy_sse2", probe_copy_sse2, "aligned 16-byte load+store loop"),
     PROBE_MEMSET("probe_nt_sse2", probe_nt_sse2, "aligned movntdq store loop, one sfence")},
};

/* The widest probe set the usable features allow (--hide-features and
 * PRIMBENCH_HIDE_FEATURES count: hiding avx512f tests the fallback). */
static const struct probe_set *choose_probes(void)
{
	pb_features f = pb_cpu_features();
	if (f & PB_F(AVX512F))
		return &probe_sets[0];
	if (f & PB_F(AVX2))
		return &probe_sets[1];
	return &probe_sets[2];
}

/* Checks the probes write what memset/memcpy would on 4 KiB (untimed).
 * Returns 0, or -1 with pb_error(). */
static int check_probes(const struct probe_set *ps)
{
	enum { N = 4096 };
	unsigned char *a = aligned_alloc(PROBE_ALIGN, N), *b = aligned_alloc(PROBE_ALIGN, N);
	int rc = 0;
	if (!a || !b) {
		free(a);
		free(b);
		return pb_fail("out of memory");
	}
	for (int pass = 0; pass < 3 && rc == 0; pass++) {
		for (size_t i = 0; i < N; i++) {
			a[i] = (unsigned char)(i * 7 + 1);
			b[i] = (unsigned char)(i * 13 + 5);
		}
		const struct pb_kernel *k = pass == 0   ? &ps->store
		                            : pass == 1 ? &ps->nt
		                                        : &ps->copy;
		if (k->op == PB_OP_MEMSET)
			k->memset_fn(a, 0x5a, N);
		else
			k->memcpy_fn(a, b, N);
		for (size_t i = 0; i < N; i++)
			if (a[i] != (k->op == PB_OP_MEMSET ? 0x5a : b[i])) {
				rc = pb_fail("probe %s is wrong at byte %zu of %d", k->name, i, N);
				break;
			}
	}
	free(a);
	free(b);
	return rc;
}

/* ---- rows ------------------------------------------------------------- */

enum probe_kind { PROBE_NONE, PROBE_STORE, PROBE_COPY, PROBE_NT };

struct row {
	const char *label; /* summary table: "memset 4K hot" */
	const char *title; /* the row's own section */
	enum pb_op op;
	uint64_t size_bytes;
	enum pb_cache_state state;
	int value;              /* memset byte */
	enum probe_kind probe;  /* PROBE_NONE: the reference is libc */
	double target;          /* least ratio: best speed / reference speed */
	const char *peak_name;  /* orientation line for the probe, or NULL */
	struct pb_mem_result r; /* the run */
	bool ran;               /* r holds a (maybe interrupted) run */
	const struct pb_mem_case *ref, *libc, *best;
	double ratio, ratio_lo, ratio_hi; /* ref median / best median; range from the CIs */
};

static struct row rows[] = {
    {.label = "memset 4K hot",
     .title = "memset 4 KiB, hot, value 0x00",
     .op = PB_OP_MEMSET,
     .size_bytes = 4096,
     .state = PB_STATE_HOT,
     .value = 0,
     .probe = PROBE_STORE,
     .target = 0.95,
     .peak_name = "L1 store peak"},
    {.label = "memcpy 4K hot",
     .title = "memcpy 4 KiB, hot",
     .op = PB_OP_MEMCPY,
     .size_bytes = 4096,
     .state = PB_STATE_HOT,
     .probe = PROBE_COPY,
     .target = 0.95,
     .peak_name = "L1 copy peak"},
    {.label = "memset 64M dram",
     .title = "memset 64 MiB, dram, value 0x5a",
     .op = PB_OP_MEMSET,
     .size_bytes = 64ull << 20,
     .state = PB_STATE_DRAM,
     .value = 0x5a,
     .probe = PROBE_NT,
     .target = 0.90,
     .peak_name = "NT write peak"},
    {.label = "memcpy 64M dram",
     .title = "memcpy 64 MiB, dram",
     .op = PB_OP_MEMCPY,
     .size_bytes = 64ull << 20,
     .state = PB_STATE_DRAM,
     .probe = PROBE_NONE,
     .target = 1.30},
};
#define NROWS (sizeof rows / sizeof rows[0])

struct options {
	double budget_s;
	size_t min_samples, max_samples;
	uint64_t seed;
	int cpu;
	uint64_t src_offset;
	const char *out_path;
	bool strict;
};

static void usage(FILE *f)
{
	fputs("usage: perf-targets [OPTIONS]   (bench/perf-targets builds and runs it)\n"
	      "\n"
	      "Times, per row, probes (aligned vector loops with no head or tail), libc\n"
	      "and every usable catalogue kernel in one interleaved run, and checks the\n"
	      "best kernel against its target as a ratio of medians:\n"
	      "  memset 4K hot     best >= 0.95 x the store-loop probe\n"
	      "  memcpy 4K hot     best >= 0.95 x the copy probe\n"
	      "  memset 64M dram   best >= 0.90 x the non-temporal store probe (value 0x5a)\n"
	      "  memcpy 64M dram   best >= 1.3 x libc\n"
	      "\n"
	      "  --budget SECONDS  per row, once every contender has --min-samples\n"
	      "                    (default 12; the hot rows usually stop at --max-samples)\n"
	      "  --min-samples N   per contender (default 11); --max-samples N (401)\n"
	      "  --src-offset N    memcpy source bytes from a page boundary, a multiple of\n"
	      "                    64 (default 2048; the destination is at 0)\n"
	      "  --hide-features L hide CPU features (e.g. avx512f: AVX2 probes)\n"
	      "  --cpu N           measure on CPU N (default: the quietest by a noise probe)\n"
	      "  --seed N          seed of the interleaving and slot order\n"
	      "  --strict          exit status 1 when a target is SHORT\n"
	      "  -o FILE           write the cases and the rows as JSON (primbench-result\n"
	      "                    v1, plus a perf_targets array)\n",
	      f);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Prints "perf-targets: MESSAGE" on stderr and exits 2. */
static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("perf-targets: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(EXIT_USAGE);
}

/* A whole non-negative number (decimal or 0x hex) no larger than max. */
static uint64_t parse_u64(const char *opt, const char *arg, uint64_t max)
{
	char *end;
	if (!arg[0] || arg[0] == '-')
		die("bad %s '%s'", opt, arg);
	unsigned long long v = strtoull(arg, &end, 0);
	if (*end || v > max)
		die("bad %s '%s'", opt, arg);
	return v;
}

static void parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"budget", required_argument, 0, 'b'},
	    {"min-samples", required_argument, 0, 'm'},
	    {"max-samples", required_argument, 0, 'M'},
	    {"seed", required_argument, 0, 's'},
	    {"cpu", required_argument, 0, 'c'},
	    {"src-offset", required_argument, 0, 'S'},
	    {"hide-features", required_argument, 0, 'H'},
	    {"strict", no_argument, 0, 'x'},
	    {"output", required_argument, 0, 'o'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	*o = (struct options){.budget_s = DEFAULT_BUDGET_S,
	                      .min_samples = 11,
	                      .max_samples = 401,
	                      .cpu = -1,
	                      .src_offset = 2048};
	opterr = 0;
	int opt;
	while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'b': {
			char *end;
			o->budget_s = strtod(optarg, &end);
			if (!optarg[0] || *end || !(o->budget_s >= 0 && o->budget_s <= 3600))
				die("bad --budget '%s' (seconds, 0 to 3600)", optarg);
			break;
		}
		case 'm':
			o->min_samples = (size_t)parse_u64("--min-samples", optarg, 100000);
			if (o->min_samples < 6)
				die("--min-samples %zu: at least 6 (a 95%% CI of the median needs "
				    "6)",
				    o->min_samples);
			break;
		case 'M':
			o->max_samples = (size_t)parse_u64("--max-samples", optarg, 100000);
			break;
		case 's':
			o->seed = parse_u64("--seed", optarg, INT64_MAX);
			break;
		case 'c':
			o->cpu = (int)parse_u64("--cpu", optarg, 4095);
			break;
		case 'S':
			o->src_offset = parse_u64("--src-offset", optarg, 4095);
			if (o->src_offset % PROBE_ALIGN)
				die("--src-offset %llu: the probes need a multiple of 64",
				    (unsigned long long)o->src_offset);
			break;
		case 'H':
			if (pb_cpu_hide_features(optarg) != 0)
				die("%s", pb_error());
			break;
		case 'x':
			o->strict = true;
			break;
		case 'o':
			if (!optarg[0])
				die("empty output path in '-o'");
			o->out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			die("option '%s' needs a value (try --help)", argv[optind - 1]);
		default:
			die("unknown option '%s' (try --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (try --help)", argv[optind]);
	if (o->min_samples > o->max_samples)
		die("--min-samples %zu is more than --max-samples %zu", o->min_samples,
		    o->max_samples);
}

/* The command as typed: PERF_TARGETS_ARGV0 (the wrapper's $0) or argv[0],
 * then the arguments, single-quoted where a shell would need it. */
static void print_command(int argc, char **argv)
{
	const char *argv0 = getenv("PERF_TARGETS_ARGV0");
	printf("command  %s", argv0 && argv0[0] ? argv0 : argv[0]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] != '\0';
		for (const char *p = a; *p; p++)
			plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			                "0123456789-_./=,:+%@",
			                *p) != NULL;
		if (plain) {
			printf(" %s", a);
			continue;
		}
		fputs(" '", stdout);
		for (const char *p = a; *p; p++)
			fputs(*p == '\'' ? "'\\''" : (char[]){*p, '\0'}, stdout);
		fputc('\'', stdout);
	}
	putchar('\n');
}

/* "machine  CPU brand (vendor family/model/stepping), N CPUs, guest; TSC
 * MHz (source), core clock estimate; glibc version", wrapped at 80. */
static void print_machine(void)
{
	struct pb_cpu_ident id;
	pb_cpu_ident(&id);
	const struct pb_timer_info *ti = pb_timer_info();
	static const char *const src[] = {"cpuid 0x15", "cpuid 0x16 base", "calibrated",
	                                  "clock_gettime"};
	char clock[160];
	if (ti->clock == PB_CLOCK_TSC)
		snprintf(clock, sizeof clock, "TSC %.3f MHz (%s)", ti->hz / 1e6,
		         (unsigned)ti->freq_source < 4 ? src[ti->freq_source] : "?");
	else
		snprintf(clock, sizeof clock, "no invariant TSC: ticks are ns (%s)",
		         ti->fallback_reason ? ti->fallback_reason : "clock_gettime");
	char core[64] = "";
	if (ti->core_hz_estimate > 0)
		snprintf(core, sizeof core, ", core ~%.2f GHz (estimate)",
		         ti->core_hz_estimate / 1e9);
	char guest[48] = "";
	if (id.hypervisor)
		snprintf(guest, sizeof guest, ", guest (%s)",
		         id.hypervisor_vendor[0] ? id.hypervisor_vendor : "hypervisor");
	char line[512];
	snprintf(line, sizeof line,
	         "%s (%s family %u model %u stepping %u), %d CPU%s%s; %s%s; glibc %s",
	         id.brand[0] ? id.brand : "unknown CPU", id.vendor, id.family, id.model,
	         id.stepping, id.online_cpus, id.online_cpus == 1 ? "" : "s", guest, clock, core,
	         gnu_get_libc_version());
	pb_print_labelled(stdout, 9, "machine", line);
}

/* The contenders of a row: its probe (when any), then every usable
 * catalogue kernel of its op except `auto`, which dispatches to the others
 * by a policy (it is not a kernel of its own). Unusable ones go into
 * `skipped`, one per line. Returns the count. */
static size_t row_kernels(const struct row *rw, const struct pb_kernel *probe,
                          const struct pb_kernel **out, char *skipped, size_t skipped_len)
{
	size_t count, n = 0, used = strlen(skipped);
	const struct pb_kernel *all = pb_kernels(&count);
	if (probe)
		out[n++] = probe;
	for (size_t i = 0; i < count && n < MAX_CONTENDERS; i++) {
		char why[160];
		if (all[i].op != rw->op)
			continue;
		if (!strcmp(all[i].name, "auto")) {
			used += (size_t)snprintf(skipped + used, skipped_len - used,
			                         "%s/auto not run: a dispatcher over the other "
			                         "kernels, not a kernel\n",
			                         pb_op_name(rw->op));
		} else if (pb_kernel_usable(&all[i], pb_cpu_features(), why, sizeof why)) {
			out[n++] = &all[i];
			continue;
		} else {
			used += (size_t)snprintf(skipped + used, skipped_len - used,
			                         "%s/%s not run: %s\n", pb_op_name(rw->op),
			                         all[i].name, why);
		}
		if (used >= skipped_len)
			used = skipped_len - 1;
	}
	return n;
}

static bool is_hot(const struct row *rw)
{
	return rw->state == PB_STATE_HOT;
}

/* A median (or CI bound) of ticks per call in the row's unit: ticks/call
 * for hot rows, GB/s (1e9 bytes/s) for dram rows. */
static double in_unit(const struct row *rw, double ticks)
{
	return is_hot(rw) ? ticks : pb_gb_per_s(ticks, rw->size_bytes);
}

static const char *unit_name(const struct row *rw)
{
	return is_hot(rw) ? "ticks/call" : "GB/s";
}

/* "%.1f" for ticks, "%.2f" for GB/s; "-" for NaN. */
static void fmt_value(const struct row *rw, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, is_hot(rw) ? "%.1f" : "%.2f", v);
}

static int cmp_case_median(const void *a, const void *b)
{
	const struct pb_mem_case *x = *(const struct pb_mem_case *const *)a;
	const struct pb_mem_case *y = *(const struct pb_mem_case *const *)b;
	double mx = x->n_samples ? x->ticks_per_call.median : INFINITY;
	double my = y->n_samples ? y->ticks_per_call.median : INFINITY;
	return (mx > my) - (mx < my);
}

/* Finds the reference, libc and best cases of a finished row and its
 * ratio (reference median / best median) with the range the two medians'
 * 95% CIs allow: [ref lo / best hi, ref hi / best lo]. */
static void analyse_row(struct row *rw, const struct pb_kernel *probe)
{
	const struct pb_kernel *libc = pb_kernel_find(rw->op, "libc");
	rw->ref = rw->libc = rw->best = NULL;
	rw->ratio = rw->ratio_lo = rw->ratio_hi = NAN;
	for (size_t i = 0; i < rw->r.n_cases; i++) {
		const struct pb_mem_case *c = &rw->r.cases[i];
		if (c->n_samples == 0)
			continue;
		if (c->kernel == libc)
			rw->libc = c;
		if (probe ? c->kernel == probe : c->kernel == libc)
			rw->ref = c;
		if (c->kernel != probe && c->kernel != libc &&
		    (!rw->best || c->ticks_per_call.median < rw->best->ticks_per_call.median))
			rw->best = c;
	}
	if (!rw->ref || !rw->best || rw->best->ticks_per_call.median <= 0)
		return;
	const struct pb_summary *a = &rw->ref->ticks_per_call, *b = &rw->best->ticks_per_call;
	rw->ratio = a->median / b->median;
	if (a->ci_valid && b->ci_valid && b->ci_lo > 0) {
		rw->ratio_lo = a->ci_lo / b->ci_hi;
		rw->ratio_hi = a->ci_hi / b->ci_lo;
	}
}

/* One row's contenders, fastest first: median and 95% CI in the row's
 * unit, samples, and speed relative to the reference (reference median /
 * median). '*' marks the fastest, '=' a CI overlapping the fastest's. */
static void print_row_detail(const struct row *rw, const char *placement)
{
	printf("\n%s: %s\n", rw->title, placement);
	if (!rw->ran || rw->r.n_cases == 0) {
		printf("  not measured\n");
		return;
	}
	size_t n = rw->r.n_cases;
	const struct pb_mem_case *sorted[MAX_CONTENDERS + 1];
	for (size_t i = 0; i < n && i <= MAX_CONTENDERS; i++)
		sorted[i] = &rw->r.cases[i];
	qsort(sorted, n, sizeof sorted[0], cmp_case_median);
	printf("  %-20s %10s  %-21s %5s  %s\n", "contender", unit_name(rw), "95% CI of the median",
	       "n", "speed");
	printf("  %-20s %10s  %-21s %5s  %s\n", "", "(median)", "", "",
	       rw->probe != PROBE_NONE ? "x probe" : "x libc");
	const struct pb_summary *fast = sorted[0]->n_samples ? &sorted[0]->ticks_per_call : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct pb_mem_case *c = sorted[i];
		const struct pb_summary *s = &c->ticks_per_call;
		char med[32], lo[32], hi[32], rel[32] = "-";
		if (c->n_samples == 0) {
			printf("  %-20s  no samples\n", c->kernel->name);
			continue;
		}
		fmt_value(rw, in_unit(rw, s->median), med, sizeof med);
		/* In GB/s the CI's ends swap: the low tick count is the high rate. */
		double l = in_unit(rw, s->ci_valid ? (is_hot(rw) ? s->ci_lo : s->ci_hi) : NAN);
		double h = in_unit(rw, s->ci_valid ? (is_hot(rw) ? s->ci_hi : s->ci_lo) : NAN);
		fmt_value(rw, l, lo, sizeof lo);
		fmt_value(rw, h, hi, sizeof hi);
		if (rw->ref && s->median > 0)
			snprintf(rel, sizeof rel, "%.3f",
			         rw->ref->ticks_per_call.median / s->median);
		char mark = ' ';
		if (fast && c == sorted[0])
			mark = '*';
		else if (fast && s->ci_valid && fast->ci_valid && s->ci_lo <= fast->ci_hi)
			mark = '=';
		char ci[48];
		snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
		printf("%c %-20s %10s  %-21s %5zu  %s\n", mark, c->kernel->name, med, ci,
		       c->n_samples, rel);
	}
	size_t migrations = 0, outliers = 0, nmin = SIZE_MAX, nmax = 0;
	for (size_t i = 0; i < n; i++) {
		migrations += rw->r.cases[i].migrations;
		outliers += rw->r.cases[i].outliers;
		if (rw->r.cases[i].n_samples < nmin)
			nmin = rw->r.cases[i].n_samples;
		if (rw->r.cases[i].n_samples > nmax)
			nmax = rw->r.cases[i].n_samples;
	}
	char line[256];
	snprintf(line, sizeof line,
	         "%zu contenders interleaved, %zu..%zu samples each; %zu outliers (modified "
	         "z-score > 3.5) kept, %zu samples that migrated dropped",
	         n, nmin, nmax, outliers, migrations);
	pb_print_labelled(stdout, 2, "", line);
	for (const char *l = rw->r.notes; *l;) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);
		char note[512];
		snprintf(note, sizeof note, "%.*s", len, l);
		pb_print_labelled(stdout, 8, "  note:", note);
		l += len + (e != NULL);
	}
}

/* The summary table: one line per row, then the ratio ranges. */
static void print_summary(const char *probe_isa, size_t *nshort)
{
	int kw = 11;
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].best && (int)strlen(rows[i].best->kernel->name) > kw)
			kw = (int)strlen(rows[i].best->kernel->name);
	printf("\nperf targets (probes: %s)\n", probe_isa);
	printf("hot rows: median TSC ticks per call (reference cycles, not core cycles;\n"
	       "lower is better); dram rows: GB/s (1e9 bytes/s, higher is better).\n"
	       "ratio: reference median / best median in ticks, i.e. the best kernel's\n"
	       "speed as a multiple of the reference's (a ratio of medians).\n\n");
	printf("%-15s %6s %6s  %-*s %6s  %5s  %-13s %s\n", "row", "probe", "libc", kw,
	       "best kernel", "best", "ratio", "target", "result");
	*nshort = 0;
	for (size_t i = 0; i < NROWS; i++) {
		struct row *rw = &rows[i];
		char pv[32] = "-", lv[32] = "-", bv[32] = "-", ratio[32] = "-", target[32];
		const char *result = "n/a";
		if (rw->probe != PROBE_NONE && rw->ref)
			fmt_value(rw, in_unit(rw, rw->ref->ticks_per_call.median), pv, sizeof pv);
		if (rw->libc)
			fmt_value(rw, in_unit(rw, rw->libc->ticks_per_call.median), lv, sizeof lv);
		if (rw->best)
			fmt_value(rw, in_unit(rw, rw->best->ticks_per_call.median), bv, sizeof bv);
		if (!isnan(rw->ratio)) {
			snprintf(ratio, sizeof ratio, rw->ratio < 10 ? "%.3f" : "%.2f", rw->ratio);
			result = rw->ratio >= rw->target ? "PASS" : "SHORT";
			*nshort += rw->ratio < rw->target;
		}
		snprintf(target, sizeof target, ">=%.2fx %s", rw->target,
		         rw->probe != PROBE_NONE ? "probe" : "libc");
		printf("%-15s %6s %6s  %-*s %6s  %5s  %-13s %s\n", rw->label, pv, lv, kw,
		       rw->best ? rw->best->kernel->name : "-", bv, ratio, target, result);
	}
	printf("\nratio ranges from the two medians' 95%% CIs ([ref lo / best hi, ref hi /\n"
	       "best lo]; conservative, not a CI of the ratio):\n");
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *rw = &rows[i];
		if (isnan(rw->ratio))
			continue;
		if (isnan(rw->ratio_lo)) {
			printf("  %-15s %.3f (no CI: too few samples)\n", rw->label, rw->ratio);
			continue;
		}
		const char *where = rw->ratio_lo >= rw->target  ? "above the target"
		                    : rw->ratio_hi < rw->target ? "below the target"
		                                                : "spans the target";
		printf("  %-15s %.3f [%.3f, %.3f]  %s\n", rw->label, rw->ratio, rw->ratio_lo,
		       rw->ratio_hi, where);
	}
}

/* Orientation: the probes' figures as machine peaks, in bytes per TSC tick
 * (and per core cycle at the estimated core clock) and GB/s. */
static void print_peaks(void)
{
	const struct pb_timer_info *ti = pb_timer_info();
	printf("\npeaks (the probes, for orientation):\n");
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *rw = &rows[i];
		if (!rw->peak_name || !rw->ref)
			continue;
		double t = rw->ref->ticks_per_call.median;
		double bpt = pb_bytes_per_tick(t, rw->size_bytes);
		char core[64] = "";
		if (ti->clock == PB_CLOCK_TSC && ti->core_hz_estimate > 0)
			snprintf(core, sizeof core, ", ~%.1f per core cycle",
			         bpt * ti->hz / ti->core_hz_estimate);
		if (is_hot(rw))
			printf("  %-14s %.1f bytes/tick%s (%.1f GB/s)\n", rw->peak_name, bpt, core,
			       pb_gb_per_s(t, rw->size_bytes));
		else
			printf("  %-14s %.2f GB/s (%.2f bytes/tick)\n", rw->peak_name,
			       pb_gb_per_s(t, rw->size_bytes), bpt);
		printf("  %-14s %s, %s%s\n", "", rw->ref->kernel->name, rw->label,
		       rw->op == PB_OP_MEMCPY ? " (bytes copied, counted once)" : "");
	}
	if (ti->core_hz_estimate > 0)
		printf("  (per core cycle: at the estimated core clock, %.2f GHz; an estimate)\n",
		       ti->core_hz_estimate / 1e9);
}

/* The rows for -o (pb_results_set_perf_targets): label, op, size, state,
 * value, reference and best kernel with their medians (TSC ticks per
 * call), ratio and range, target, result. */
static void record_rows(struct pb_results_doc *doc, const char *probe_isa)
{
	struct pb_perf_target_row out[NROWS];
	for (size_t i = 0; i < NROWS; i++) {
		const struct row *rw = &rows[i];
		out[i] = (struct pb_perf_target_row){
		    .row = rw->label,
		    .op = pb_op_name(rw->op),
		    .size_bytes = rw->size_bytes,
		    .cache_state = pb_cache_state_name(rw->state),
		    .has_fill_value = rw->op == PB_OP_MEMSET,
		    .fill_value = rw->value,
		    .probe_isa = probe_isa,
		    .reference = rw->ref ? rw->ref->kernel->name : "",
		    .reference_ticks_per_call = rw->ref ? rw->ref->ticks_per_call.median : NAN,
		    .libc_ticks_per_call = rw->libc ? rw->libc->ticks_per_call.median : NAN,
		    .best_kernel = rw->best ? rw->best->kernel->name : "",
		    .best_ticks_per_call = rw->best ? rw->best->ticks_per_call.median : NAN,
		    .ratio = rw->ratio,
		    .ratio_lo = rw->ratio_lo,
		    .ratio_hi = rw->ratio_hi,
		    .target = rw->target,
		    .result = isnan(rw->ratio)          ? "n/a"
		              : rw->ratio >= rw->target ? "PASS"
		                                        : "SHORT",
		};
	}
	pb_results_set_perf_targets(doc, out, NROWS);
}

int main(int argc, char **argv)
{
	struct options o;
	parse_options(&o, argc, argv);
	if (pb_cpu_hide_env_check() != 0)
		die("%s", pb_error());
	struct pb_session s;
	struct pb_session_params sp = {
	    .argc = argc,
	    .argv = argv,
	    .seed = o.seed,
	    .pin = o.cpu >= 0 ? PB_SESSION_PIN_CPU : PB_SESSION_PIN_HERE,
	    .cpu = o.cpu,
	    .timer = true,
	    .noise = true,
	    .doc = o.out_path != NULL,
	    .out_path = o.out_path,
	};
	if (pb_session_begin(&sp, &s) != 0)
		die("%s", pb_error());
	if (s.cpu < 0)
		die("cannot bind to CPU %d", sched_getcpu());
	int cpu = s.cpu;
	uint64_t seed = s.seed;
	const struct pb_cache_info caches = s.caches;

	const struct probe_set *ps = choose_probes();
	if (check_probes(ps) != 0)
		die("%s", pb_error());

	print_command(argc, argv);
	print_machine();
	char line[512];
	snprintf(line, sizeof line,
	         "CPU %d; seed %llu (--seed replays the order); budget %g s per row once every "
	         "contender has %zu samples, at most %zu",
	         cpu, (unsigned long long)seed, o.budget_s, o.min_samples, o.max_samples);
	pb_print_labelled(stdout, 9, "pinned", line);
	if (ps != &probe_sets[0])
		snprintf(line, sizeof line, "no AVX-512 here: probes use %s: %s", ps->isa,
		         ps->what);
	else
		snprintf(line, sizeof line, "%s: %s", ps->isa, ps->what);
	pb_print_labelled(stdout, 9, "probes", line);
	pb_print_labelled(stdout, 9, "method",
	                  "per row, one run of the mem suite: every contender's samples "
	                  "round-robin, in a new shuffled order each round (1 warm-up round "
	                  "discarded); medians and 95% CIs of ticks per call, timer overhead "
	                  "subtracted. Ticks: TSC ticks, reference cycles at the TSC frequency, "
	                  "not core cycles");
	fflush(stdout);

	struct pb_results_doc *doc = s.doc;
	bool interrupted = false;
	int status = 0;
	for (size_t i = 0; i < NROWS && !interrupted; i++) {
		struct row *rw = &rows[i];
		const struct pb_kernel *probe = rw->probe == PROBE_STORE  ? &ps->store
		                                : rw->probe == PROBE_COPY ? &ps->copy
		                                : rw->probe == PROBE_NT   ? &ps->nt
		                                                          : NULL;
		const struct pb_kernel *ks[MAX_CONTENDERS];
		char skipped[2048] = "";
		size_t nk = row_kernels(rw, probe, ks, skipped, sizeof skipped);
		/* dst at page offset 0 (page aligned); memcpy's source at
		 * --src-offset of its own page (default 2048: 64-byte aligned,
		 * and dst - src = 2048 mod 4096, no 4K aliasing). One placement
		 * per group: every contender of the row gets the same one. */
		struct pb_mem_placement pl = {.dst_offset_bytes = 0,
		                              .src_offset_bytes =
		                                  rw->op == PB_OP_MEMCPY ? o.src_offset : 0};
		if (rw->size_bytes % PROBE_BLOCK || pl.dst_offset_bytes % PROBE_ALIGN)
			die("row %s does not meet the probes' assumptions", rw->label);
		enum pb_cache_state st = rw->state;
		struct pb_mem_params p = {
		    .op = rw->op,
		    .kernels = ks,
		    .n_kernels = nk,
		    .sizes_bytes = &rw->size_bytes,
		    .n_sizes = 1,
		    .states = &st,
		    .n_states = 1,
		    .placements = &pl,
		    .n_placements = 1,
		    .value = rw->value,
		    .budget_s = o.budget_s,
		    .min_samples = o.min_samples,
		    .max_samples = o.max_samples,
		    .warmup_samples = 1,
		    .l1_bytes = caches.level[PB_CACHE_L1D].size_bytes,
		    .l2_bytes = caches.level[PB_CACHE_L2].size_bytes,
		    .llc_bytes = caches.level[PB_CACHE_LLC].size_bytes,
		    .seed = (seed + i) & INT64_MAX,
		    .stop = pb_session_stop_flag(&s),
		};
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\rrow %zu/%zu: %s ...", i + 1, NROWS, rw->label);
		if (pb_mem_run(&p, &rw->r) != 0) {
			fprintf(stderr, "%sperf-targets: %s: %s\n",
			        isatty(STDERR_FILENO) ? "\n" : "", rw->label, pb_error());
			status = EXIT_USAGE;
			break;
		}
		if (isatty(STDERR_FILENO))
			fprintf(stderr, "\r\033[K");
		rw->ran = true;
		interrupted = rw->r.interrupted || pb_session_stopped(&s);
		if (skipped[0]) {
			size_t used = strlen(rw->r.notes);
			snprintf(rw->r.notes + used, sizeof rw->r.notes - used, "%s", skipped);
		}
		analyse_row(rw, probe);
		char placement[160];
		if (rw->op == PB_OP_MEMCPY)
			snprintf(placement, sizeof placement,
			         "dst at page offset 0, src at %llu\n(64-byte aligned, as the "
			         "probe needs; the same placement for every contender)",
			         (unsigned long long)pl.src_offset_bytes);
		else
			snprintf(
			    placement, sizeof placement,
			    "dst at page offset 0\n(page aligned, as the probe needs; the same "
			    "for every contender)");
		print_row_detail(rw, placement);
		fflush(stdout);
		if (doc)
			pb_results_add_mem(doc, &rw->r);
	}
	const struct pb_noise noise = *pb_session_noise(&s);

	size_t nshort = 0;
	print_summary(ps->isa, &nshort);
	print_peaks();
	if (noise.valid) {
		char nl[320];
		snprintf(
		    nl, sizeof nl,
		    "steal %.1f%% of CPU time, other CPUs %.0f%% busy, %ld involuntary context "
		    "switches (pinned to CPU %d)%s",
		    noise.steal_pct, noise.other_busy_pct, noise.involuntary_switches, cpu,
		    noise.steal_pct > 2 || noise.other_busy_pct > 50
		        ? "; HIGH: trust the ratios within this run, not the absolute figures"
		        : "");
		putchar('\n');
		pb_print_labelled(stdout, 9, "noise", nl);
	}
	if (doc) {
		record_rows(doc, ps->isa);
		pb_session_finish(&s, interrupted);
		if (pb_session_write(&s, doc) != 0) {
			fprintf(stderr, "perf-targets: %s\n", pb_error());
			status = EXIT_USAGE;
		} else {
			printf("\nresults  %s\n", o.out_path);
		}
	}
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].ran)
			pb_mem_result_free(&rows[i].r);
	if (interrupted) {
		fflush(stdout);
		fprintf(stderr,
		        "perf-targets: interrupted; the rows above show what was measured\n");
		status = pb_session_exit_status(&s);
		pb_session_end(&s);
		return status;
	}
	pb_session_end(&s);
	if (status == 0 && o.strict && nshort)
		status = EXIT_SHORT;
	return status;
}
#endif
