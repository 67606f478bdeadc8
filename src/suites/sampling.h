/* sampling.h - small helpers the suites share beside the harness
 * (include/primbench/harness.h, implemented in harness.c; internal). */
#ifndef PRIMBENCH_SUITES_SAMPLING_H
#define PRIMBENCH_SUITES_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/harness.h"

struct pb_mem_case;
/* Moves a harness contender's samples and summaries into a mem case (mem.c;
 * h's arrays become the case's, h's pointers NULL). */
void pb_mem_case_take(struct pb_mem_case *c, struct pb_harness_samples *h);

/* The sampling settings of mem's and replay's harness runs, from the mem
 * parameters (mem.c): warm-up, min and max samples, budget, precision, the
 * stop flag, the caller's rng, and the timer's pair overhead. The rest of
 * *hp is the caller's. */
struct pb_mem_params;
void pb_mem_harness_sampling(struct pb_harness_params *hp, const struct pb_mem_params *p,
                             uint64_t *rng);

/* Appends one printf-style line to a notes buffer of `cap` bytes (dropped
 * when it does not fit). */
void pb_note_append(char *notes, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
