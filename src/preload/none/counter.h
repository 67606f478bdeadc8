/* counter.h (no arch support) - one addition to a counter of the
 * accounting file: always an atomic add (C cannot promise a one-instruction
 * add that a signal handler cannot split, so no cheaper path for one
 * thread). account.c only.
 */
#ifndef PRIMBENCH_PRELOAD_COUNTER_H
#define PRIMBENCH_PRELOAD_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

static inline __attribute__((always_inline)) void pb_sw_counter_add(uint64_t *c, uint64_t v,
                                                                    bool threads)
{
	(void)threads;
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

#endif
