/* cacheops.c (generic) - no user-mode cache flush: rely on rotation. */
#include <stdint.h>

#include "primbench/memory.h"

bool pb_flush_range(const void *p, size_t bytes)
{
	(void)p;
	(void)bytes;
	return false;
}

void pb_fill_uncached(void *p, int value, size_t bytes)
{
	volatile uint8_t *d = p;
	for (size_t i = 0; i < bytes; i++)
		d[i] = (uint8_t)value;
}
