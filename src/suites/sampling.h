/* sampling.h - small pieces every suite's sampling loop shares (internal). */
#ifndef PRIMBENCH_SUITES_SAMPLING_H
#define PRIMBENCH_SUITES_SAMPLING_H

#include <stddef.h>
#include <stdint.h>

/* xorshift64*: cheap, seeded, reproducible (Vigna 2016, "An experimental
 * exploration of Marsaglia's xorshift generators"). *state must not be 0. */
uint64_t pb_rng_next(uint64_t *state);

/* Fisher-Yates shuffle of a[0..n) with pb_rng_next. */
void pb_shuffle_u32(uint32_t *a, size_t n, uint64_t *rng);

/* CLOCK_MONOTONIC in seconds: for budgets, never for measurements. */
double pb_monotonic_s(void);

/* Appends one printf-style line to a notes buffer of `cap` bytes (dropped
 * when it does not fit). */
void pb_note_append(char *notes, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
