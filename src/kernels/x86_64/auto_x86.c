/* auto_x86.c - the auto kernels' entry points on x86-64: GNU indirect
 * functions (ifunc) that pick, once at load time, an AVX-512 entry where
 * the CPU and OS support it (cpuid and XCR0, through GCC's
 * __builtin_cpu_supports), else the generic dispatch.
 *
 * Both call the kernels policies name most (avx512, avx2, rep_stosb,
 * rep_movsb) with direct jumps. The AVX-512 entry runs calls of
 * n <= 512 bytes that a band of avx512 serves with one compare, one
 * table load and a direct jump to that kernel (memset up to 128 B: its
 * code inline); everything else goes to the policy's dispatch. That jump is only taken where the
 * policy's kernel is avx512 or avx512_nt (generic/auto.c), so auto does what its policy says, and
 * never with AVX-512 hidden (such a policy would not parse).
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
 * function is compared with them and a match is a direct jump. Inlined
 * into the entries, so that a call takes two taken branches (the entry's
 * size test and the jump to the kernel) instead of four: each taken branch
 * cost about a core cycle here (docs/performance.md). Any other kernel
 * gets the indirect jump. */
static inline __attribute__((always_inline)) void *memset_dispatch(void *dst, int c, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMSET];
	pb_memset_fn f = t->band[pb_auto_band(t, n)].fn.set;
	if (f == pb_memset_avx512)
		return pb_memset_avx512(dst, c, n);
	if (f == pb_memset_rep_stosb)
		return pb_memset_rep_stosb(dst, c, n);
	if (f == pb_memset_avx2)
		return pb_memset_avx2(dst, c, n);
	return f(dst, c, n);
}

static inline __attribute__((always_inline)) void *
memcpy_dispatch(void *restrict dst, const void *restrict src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMCPY];
	pb_memcpy_fn f = t->band[pb_auto_band(t, n)].fn.cpy;
	if (f == pb_memcpy_avx512)
		return pb_memcpy_avx512(dst, src, n);
	if (f == pb_memcpy_rep_movsb)
		return pb_memcpy_rep_movsb(dst, src, n);
	if (f == pb_memcpy_avx2)
		return pb_memcpy_avx2(dst, src, n);
	return f(dst, src, n);
}

static inline __attribute__((always_inline)) void *memmove_dispatch(void *dst, const void *src,
                                                                    size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMMOVE];
	pb_memmove_fn f = t->band[pb_auto_band(t, n)].fn.mov;
	if (f == pb_memmove_avx512)
		return pb_memmove_avx512(dst, src, n);
	if (f == pb_memmove_rep_movsb)
		return pb_memmove_rep_movsb(dst, src, n);
	if (f == pb_memmove_avx2)
		return pb_memmove_avx2(dst, src, n);
	return f(dst, src, n);
}

/* The entries without AVX-512. */
static void *memset_entry(void *dst, int c, size_t n)
{
	return memset_dispatch(dst, c, n);
}
static void *memcpy_entry(void *restrict dst, const void *restrict src, size_t n)
{
	return memcpy_dispatch(dst, src, n);
}
static void *memmove_entry(void *dst, const void *src, size_t n)
{
	return memmove_dispatch(dst, src, n);
}

/* The AVX-512 entries, for sizes up to 512 B that avx512 serves: memset
 * runs avx512.c's path for n <= 128 inline (a masked store below 64, four
 * 32-byte stores up to 128: 3.2-3.5 TSC ticks, against 3.8-3.9 for the
 * kernel through a jump), and jumps straight to the avx512 kernel above;
 * memcpy and memmove always jump (an inlined copy took 1-1.5 ticks more
 * at 256-512 B, where GCC interleaved its loads and stores;
 * docs/performance.md). */
static AVX512 void *memset_avx512(void *dst, int c, size_t n)
{
	if (__builtin_expect(pb_auto_inline(&pb_auto_tables[PB_OP_MEMSET], n), 1)) {
		if (n > 2 * 64)
			return pb_memset_avx512(dst, c, n);
		/* avx512.c's path up to 128 B, inline */
		uint8_t *d = dst;
		if (n < 64) {
			__mmask64 m = ((__mmask64)1 << n) - 1;
			_mm512_mask_storeu_epi8(d, m, _mm512_set1_epi8((char)c));
		} else {
			__m256i v = _mm256_set1_epi8((char)c);
			_mm256_storeu_si256((__m256i *)d, v);
			_mm256_storeu_si256((__m256i *)(d + 32), v);
			_mm256_storeu_si256((__m256i *)(d + n - 64), v);
			_mm256_storeu_si256((__m256i *)(d + n - 32), v);
		}
		return dst;
	}
	return memset_dispatch(dst, c, n);
}

static AVX512 void *memcpy_avx512(void *restrict dst, const void *restrict src, size_t n)
{
	if (__builtin_expect(pb_auto_inline(&pb_auto_tables[PB_OP_MEMCPY], n), 1))
		return pb_memcpy_avx512(dst, src, n);
	return memcpy_dispatch(dst, src, n);
}

static AVX512 void *memmove_avx512(void *dst, const void *src, size_t n)
{
	if (__builtin_expect(pb_auto_inline(&pb_auto_tables[PB_OP_MEMMOVE], n), 1))
		return pb_memmove_avx512(dst, src, n);
	return memmove_dispatch(dst, src, n);
}

/* GCC manual, "Common Function Attributes", ifunc: a resolver calls
 * __builtin_cpu_init before __builtin_cpu_supports. Resolvers run while
 * the loader relocates, before a sanitizer runtime has set up its shadow
 * memory: they must not be instrumented. `used`: clang does not count the
 * ifunc attribute's reference as a use and calls a static resolver unused
 * (https://github.com/llvm/llvm-project/issues/63957). */
#define RESOLVER __attribute__((used, no_sanitize("address", "undefined")))

static RESOLVER int have_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

static RESOLVER pb_memset_fn resolve_memset(void)
{
	return have_avx512() ? memset_avx512 : memset_entry;
}
static RESOLVER pb_memcpy_fn resolve_memcpy(void)
{
	return have_avx512() ? memcpy_avx512 : memcpy_entry;
}
static RESOLVER pb_memmove_fn resolve_memmove(void)
{
	return have_avx512() ? memmove_avx512 : memmove_entry;
}

void *pb_memset_auto(void *dst, int c, size_t n) __attribute__((ifunc("resolve_memset")));
void *pb_memcpy_auto(void *restrict dst, const void *restrict src, size_t n)
    __attribute__((ifunc("resolve_memcpy")));
void *pb_memmove_auto(void *dst, const void *src, size_t n)
    __attribute__((ifunc("resolve_memmove")));
