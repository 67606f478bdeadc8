/* cacheops.c (x86-64) - evicting buffers between timed batches. */
#include <immintrin.h>
#include <stdint.h>

#include "primbench/cpu.h"
#include "primbench/memory.h"

__attribute__((target("clflushopt"))) static void flush_lines_opt(uintptr_t a, uintptr_t end)
{
	for (; a < end; a += 64)
		_mm_clflushopt((void *)a);
}

static void flush_lines(uintptr_t a, uintptr_t end)
{
	for (; a < end; a += 64)
		_mm_clflush((void *)a);
}

bool pb_flush_range(const void *p, size_t bytes)
{
	if (bytes == 0)
		return true;
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)63;
	uintptr_t end = (uintptr_t)p + bytes;
	/* CLFLUSHOPT is ordered only by fencing instructions (SDM Vol. 2A):
	 * the mfence makes the flushes complete before timing resumes. */
	if (pb_cpu_features() & PB_F(CLFLUSHOPT))
		flush_lines_opt(a, end);
	else
		flush_lines(a, end);
	_mm_mfence();
	return true;
}

void pb_fill_uncached(void *p, int value, size_t bytes)
{
	uint8_t *d = p;
	uint8_t v = (uint8_t)value;
	long long q = (long long)(0x0101010101010101ull * v);
	/* Byte stores up to 8-byte alignment, movnti for the body, bytes for
	 * the tail; lines touched by the byte stores are flushed after. */
	size_t head = (size_t)(-(uintptr_t)d & 7);
	if (head > bytes)
		head = bytes;
	for (size_t i = 0; i < head; i++)
		((volatile uint8_t *)d)[i] = v;
	size_t body = (bytes - head) & ~(size_t)7;
	for (size_t i = 0; i < body; i += 8)
		_mm_stream_si64((long long *)(d + head + i), q);
	for (size_t i = head + body; i < bytes; i++)
		((volatile uint8_t *)d)[i] = v;
	_mm_sfence();
	if (head)
		pb_flush_range(d, head);
	if (head + body < bytes)
		pb_flush_range(d + head + body, bytes - head - body);
}
