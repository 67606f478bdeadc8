/* auto_x86.c - the auto kernels' entry points on x86-64: GNU indirect
 * functions (ifunc) that pick, once at load time, an AVX-512 entry where
 * the CPU and OS support it (cpuid and XCR0, through GCC's
 * __builtin_cpu_supports), else the generic dispatch.
 *
 * Both call the kernels policies name most (avx512, avx2, rep_stosb,
 * rep_movsb) with direct jumps. The AVX-512 entry runs calls of
 * n <= pb_auto_inline_max bytes itself,
 * with the same byte-masked load/store the avx512 kernel uses for them
 * (avx512.c), so the smallest calls pay one compare instead of a second
 * jump; everything else goes to the policy's dispatch. The
 * inline path is only enabled when the first band's kernel is avx512 or
 * avx512_nt (generic/auto.c), so auto does exactly what its policy says,
 * and never with AVX-512 hidden (such a policy would not parse).
 */
#include <immintrin.h>
#include <stdint.h>

#include "auto_internal.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"
#include "generic_rows.h"

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* The dispatch with the common kernels called directly: the band's
 * function is compared with them and a match is a direct jump, which
 * costs less here than the indirect one (~2 core cycles per call,
 * docs/performance.md); any other kernel gets the indirect jump. */
static void *memset_dispatch(void *dst, int c, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMSET];
	pb_memset_fn f = t->fn[pb_auto_band(t, n)].set;
	if (f == pb_memset_avx512)
		return pb_memset_avx512(dst, c, n);
	if (f == pb_memset_rep_stosb)
		return pb_memset_rep_stosb(dst, c, n);
	if (f == pb_memset_avx2)
		return pb_memset_avx2(dst, c, n);
	return f(dst, c, n);
}

static void *memcpy_dispatch(void *restrict dst, const void *restrict src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMCPY];
	pb_memcpy_fn f = t->fn[pb_auto_band(t, n)].cpy;
	if (f == pb_memcpy_avx512)
		return pb_memcpy_avx512(dst, src, n);
	if (f == pb_memcpy_rep_movsb)
		return pb_memcpy_rep_movsb(dst, src, n);
	if (f == pb_memcpy_avx2)
		return pb_memcpy_avx2(dst, src, n);
	return f(dst, src, n);
}

static void *memmove_dispatch(void *dst, const void *src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMMOVE];
	pb_memmove_fn f = t->fn[pb_auto_band(t, n)].mov;
	if (f == pb_memmove_avx512)
		return pb_memmove_avx512(dst, src, n);
	if (f == pb_memmove_rep_movsb)
		return pb_memmove_rep_movsb(dst, src, n);
	if (f == pb_memmove_avx2)
		return pb_memmove_avx2(dst, src, n);
	return f(dst, src, n);
}

static inline __mmask64 low_bytes(size_t n)
{
	return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1;
}

static AVX512 void *memset_avx512(void *dst, int c, size_t n)
{
	if (n <= pb_auto_inline_max[PB_OP_MEMSET]) {
		_mm512_mask_storeu_epi8(dst, low_bytes(n), _mm512_set1_epi8((char)c));
		return dst;
	}
	return memset_dispatch(dst, c, n);
}

static AVX512 void *memcpy_avx512(void *restrict dst, const void *restrict src, size_t n)
{
	if (n <= pb_auto_inline_max[PB_OP_MEMCPY]) {
		__mmask64 m = low_bytes(n);
		_mm512_mask_storeu_epi8(dst, m, _mm512_maskz_loadu_epi8(m, src));
		return dst;
	}
	return memcpy_dispatch(dst, src, n);
}

/* One load before one store: correct for any overlap. */
static AVX512 void *memmove_avx512(void *dst, const void *src, size_t n)
{
	if (n <= pb_auto_inline_max[PB_OP_MEMMOVE]) {
		__mmask64 m = low_bytes(n);
		_mm512_mask_storeu_epi8(dst, m, _mm512_maskz_loadu_epi8(m, src));
		return dst;
	}
	return memmove_dispatch(dst, src, n);
}

/* GCC manual, "Common Function Attributes", ifunc: a resolver calls
 * __builtin_cpu_init before __builtin_cpu_supports. Resolvers run while
 * the loader relocates, before a sanitizer runtime has set up its shadow
 * memory: they must not be instrumented. */
#define RESOLVER __attribute__((no_sanitize("address", "undefined")))

static RESOLVER int have_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

static RESOLVER pb_memset_fn resolve_memset(void)
{
	return have_avx512() ? memset_avx512 : memset_dispatch;
}
static RESOLVER pb_memcpy_fn resolve_memcpy(void)
{
	return have_avx512() ? memcpy_avx512 : memcpy_dispatch;
}
static RESOLVER pb_memmove_fn resolve_memmove(void)
{
	return have_avx512() ? memmove_avx512 : memmove_dispatch;
}

void *pb_memset_auto(void *dst, int c, size_t n) __attribute__((ifunc("resolve_memset")));
void *pb_memcpy_auto(void *restrict dst, const void *restrict src, size_t n)
    __attribute__((ifunc("resolve_memcpy")));
void *pb_memmove_auto(void *dst, const void *src, size_t n)
    __attribute__((ifunc("resolve_memmove")));
