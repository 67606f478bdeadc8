/* x86_64/readback.c - the --then-read loop with the widest vector loads
 * usable here (suites/readback.h): 4 x 64-byte zmm loads per iteration
 * with AVX-512F, 4 x 32-byte ymm with AVX2, else 4 x 16-byte xmm (SSE2 is
 * part of x86-64). Each load is XORed into its own accumulator: four
 * independent chains, so the loop issues loads as fast as the core takes
 * them (Intel Optimization Reference Manual, "Load and Store Operation
 * Overview": 2-3 loads per cycle) and its time is the memory's, not a
 * dependency chain's, as long as the data is not already in L1. Unaligned
 * loads (vmovdqu*): a buffer at any page offset. Tails below one vector
 * are read bytewise.
 */
#include <immintrin.h>

#include "primbench/cpu.h"
#include "suites/readback.h"

static uint64_t tail_bytes(const unsigned char *b, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += (uint64_t)b[i] << (8 * (i % 8));
	return s;
}

__attribute__((target("avx512f"))) static uint64_t read_back_avx512(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	size_t i = 0;
	for (; i + 256 <= n; i += 256) {
		a0 = _mm512_xor_si512(a0, _mm512_loadu_si512((const void *)(b + i)));
		a1 = _mm512_xor_si512(a1, _mm512_loadu_si512((const void *)(b + i + 64)));
		a2 = _mm512_xor_si512(a2, _mm512_loadu_si512((const void *)(b + i + 128)));
		a3 = _mm512_xor_si512(a3, _mm512_loadu_si512((const void *)(b + i + 192)));
	}
	for (; i + 64 <= n; i += 64)
		a0 = _mm512_xor_si512(a0, _mm512_loadu_si512((const void *)(b + i)));
	__m512i x = _mm512_xor_si512(_mm512_xor_si512(a0, a1), _mm512_xor_si512(a2, a3));
	uint64_t lanes[8];
	_mm512_storeu_si512((void *)lanes, x);
	uint64_t s = tail_bytes(b + i, n - i);
	for (int l = 0; l < 8; l++)
		s ^= lanes[l];
	return s;
}

__attribute__((target("avx2"))) static uint64_t read_back_avx2(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	size_t i = 0;
	for (; i + 128 <= n; i += 128) {
		a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i *)(b + i)));
		a1 = _mm256_xor_si256(a1, _mm256_loadu_si256((const __m256i *)(b + i + 32)));
		a2 = _mm256_xor_si256(a2, _mm256_loadu_si256((const __m256i *)(b + i + 64)));
		a3 = _mm256_xor_si256(a3, _mm256_loadu_si256((const __m256i *)(b + i + 96)));
	}
	for (; i + 32 <= n; i += 32)
		a0 = _mm256_xor_si256(a0, _mm256_loadu_si256((const __m256i *)(b + i)));
	__m256i x = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
	uint64_t lanes[4];
	_mm256_storeu_si256((__m256i *)lanes, x);
	return tail_bytes(b + i, n - i) ^ lanes[0] ^ lanes[1] ^ lanes[2] ^ lanes[3];
}

static uint64_t read_back_sse2(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
	size_t i = 0;
	for (; i + 64 <= n; i += 64) {
		a0 = _mm_xor_si128(a0, _mm_loadu_si128((const __m128i *)(b + i)));
		a1 = _mm_xor_si128(a1, _mm_loadu_si128((const __m128i *)(b + i + 16)));
		a2 = _mm_xor_si128(a2, _mm_loadu_si128((const __m128i *)(b + i + 32)));
		a3 = _mm_xor_si128(a3, _mm_loadu_si128((const __m128i *)(b + i + 48)));
	}
	for (; i + 16 <= n; i += 16)
		a0 = _mm_xor_si128(a0, _mm_loadu_si128((const __m128i *)(b + i)));
	__m128i x = _mm_xor_si128(_mm_xor_si128(a0, a1), _mm_xor_si128(a2, a3));
	uint64_t lanes[2];
	_mm_storeu_si128((__m128i *)lanes, x);
	return tail_bytes(b + i, n - i) ^ lanes[0] ^ lanes[1];
}

pb_read_back_fn pb_read_back_pick(const char **what)
{
	pb_features have = pb_cpu_features();
	if (have & PB_F(AVX512F)) {
		*what = "64-byte loads (avx512f)";
		return read_back_avx512;
	}
	if (have & PB_F(AVX2)) {
		*what = "32-byte loads (avx2)";
		return read_back_avx2;
	}
	*what = "16-byte loads (sse2)";
	return read_back_sse2;
}
