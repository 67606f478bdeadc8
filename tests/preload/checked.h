/* checked.h - one round of checked calls of memset, memcpy, memmove,
 * mempcpy and bzero on a caller's buffers, for the scenario programs
 * (threads, signal handlers, constructors, fork children). Pure
 * computation and the calls themselves: async-signal-safe. Compiled with
 * PB_NO_LIBCALL_FLAGS (cmake/compiler.cmake), so the reference loops stay
 * loops and the calls are real calls.
 */
#ifndef PRELOAD_CHECKED_H
#define PRELOAD_CHECKED_H

#include <stdint.h>
#include <string.h>
#include <strings.h>

#define CHECKED_MAX 1024

struct checked_bufs {
	uint8_t a[CHECKED_MAX + 128], b[CHECKED_MAX + 128];
};

static inline uint64_t checked_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Returns 0 when every result was right, else the number of the failed
 * check (1..5). */
static inline int checked_round(struct checked_bufs *bufs, uint64_t *seed)
{
	uint8_t *a = bufs->a, *b = bufs->b;
	uint64_t r = checked_next(seed);
	size_t n = (size_t)(r % (CHECKED_MAX + 1));
	size_t oa = (size_t)(r >> 16) % 64, ob = (size_t)(r >> 24) % 64;
	uint8_t v = (uint8_t)(r >> 32);

	if (memset(a + oa, v, n) != a + oa)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (a[oa + i] != v)
			return 1;
	for (size_t i = 0; i < n; i++)
		a[oa + i] = (uint8_t)(i * 7 + v);
	if (memcpy(b + ob, a + oa, n) != b + ob)
		return 2;
	for (size_t i = 0; i < n; i++)
		if (b[ob + i] != (uint8_t)(i * 7 + v))
			return 2;
	/* Overlapping, either way: b[ob .. ob + n) moved to b[ob2 ..). */
	size_t ob2 = (size_t)(r >> 40) % 64, m = n;
	if (memmove(b + ob2, b + ob, m) != b + ob2)
		return 3;
	for (size_t i = 0; i < m; i++)
		if (b[ob2 + i] != (uint8_t)(i * 7 + v))
			return 3;
	if ((uint8_t *)mempcpy(a, b + ob2, m) != a + m)
		return 4;
	bzero(b, n);
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 5;
	return 0;
}

#endif
