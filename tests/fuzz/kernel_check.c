/* kernel_check.c - kernel_check.h. Compiled with the kernels' flags
 * (-O2, no calls of libc's mem*) and no sanitizer, so the checks cost
 * about what the kernels do and nothing instrumented runs between the
 * readings of the SIMD state and the call. */
#include "kernel_check.h"

#include <stdbool.h>

#include "fpenv.h"

void pb_fz_env_detect(void)
{
#if defined(__x86_64__)
	detect();
#endif
}

void *pb_fz_call(enum pb_op op, pb_memset_fn set, pb_memcpy_fn cpy, pb_memmove_fn move, void *dst,
                 const void *src, int c, size_t n, const char **env_why)
{
	void *ret;
#if defined(__x86_64__)
	struct fpenv before, after;
	prepare(&before);
#endif
	if (op == PB_OP_MEMSET)
		ret = set(dst, c, n);
	else if (op == PB_OP_MEMCPY)
		ret = cpy(dst, src, n);
	else
		ret = move(dst, src, n);
#if defined(__x86_64__)
	read_env(&after);
	reset_env();
	*env_why = env_change(&before, &after);
#else
	*env_why = NULL;
#endif
	return ret;
}

size_t pb_fz_first_not(const uint8_t *p, size_t n, uint8_t c)
{
	size_t i = 0;
	/* words first: 8 bytes a step */
	uint64_t cw = c * 0x0101010101010101ull;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		__builtin_memcpy(&w, p + i, 8);
		if (w != cw)
			break;
	}
	for (; i < n; i++)
		if (p[i] != c)
			return i;
	return n;
}

size_t pb_fz_first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		__builtin_memcpy(&x, a + i, 8);
		__builtin_memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	for (; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

enum pb_fz_broken pb_fz_broken;

#if defined(__x86_64__)
/* vpcmpeqd ymm1, ymm1, ymm1 as bytes: written as an instruction in an AVX
 * function, gcc adds a vzeroupper after it (its vzeroupper pass), which
 * is what a correct kernel does and this one must not. */
static void dirty_avx(void)
{
	__asm__ volatile(".byte 0xc5, 0xf5, 0x76, 0xc9" ::: "xmm1");
}
#endif

static void *broken_tail(uint8_t *d, size_t n)
{
	switch (pb_fz_broken) {
	case PB_FZ_OVERRUN:
		d[n] = (uint8_t)~d[n];
		break;
	case PB_FZ_UNDERRUN:
		d[-1] = (uint8_t)~d[-1];
		break;
	case PB_FZ_VALUE:
		if (n)
			d[n / 2] = (uint8_t)~d[n / 2];
		break;
	case PB_FZ_RET:
		return d + 1;
	case PB_FZ_MXCSR:
	mxcsr : {
#if defined(__x86_64__)
		uint32_t m;
		__asm__ volatile("stmxcsr %0" : "=m"(m));
		m ^= 3u << 13; /* rounding control */
		__asm__ volatile("ldmxcsr %0" : : "m"(m));
#endif
		break;
	}
	case PB_FZ_AVX:
#if defined(__x86_64__)
		if (have_avx && have_xinuse) {
			dirty_avx();
			break;
		}
#endif
		goto mxcsr;
	default:
		break;
	}
	return d;
}

void *pb_fz_broken_memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	for (size_t i = 0; i < n && pb_fz_broken != PB_FZ_NONE; i++)
		d[i] = (uint8_t)c;
	return broken_tail(d, n);
}

void *pb_fz_broken_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	for (size_t i = 0; i < n && pb_fz_broken != PB_FZ_NONE; i++)
		d[i] = s[i];
	return broken_tail(d, n);
}

void *pb_fz_broken_memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	if (pb_fz_broken == PB_FZ_NONE) {
	} else if (pb_fz_broken == PB_FZ_FORWARD || d <= s) {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	} else {
		for (size_t i = n; i-- > 0;)
			d[i] = s[i];
	}
	return broken_tail(d, n);
}
