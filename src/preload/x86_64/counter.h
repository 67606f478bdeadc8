/* counter.h (x86-64) - one addition to a counter of the accounting file.
 *
 * Threads: lock add, atomic between CPUs (Intel SDM Vol. 3A 9.1.2.2). A
 * process with one thread: a plain add to memory, about 20 times cheaper
 * than a locked one, and still right against this thread's signal
 * handlers (one instruction: an interrupt comes before or after it, never
 * inside). account.c only.
 */
#ifndef PRIMBENCH_PRELOAD_COUNTER_H
#define PRIMBENCH_PRELOAD_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void pb_sw_counter_add(uint64_t *c, uint64_t v,
                                                                    bool threads)
{
	if (threads)
		__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
	else
		__asm__ volatile("addq %1, %0" : "+m"(*c) : "er"(v));
}

#endif
