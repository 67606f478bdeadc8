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

/* The ticks one timed batch should last: at least 20 us, 1000 timer steps
 * and 200 timer overheads, so the timer's resolution and cost vanish in it
 * (docs/methodology.md "Calibration"). pb_timer_init() must have run. */
double pb_batch_target_ticks(void);

/* Calls per batch for an op whose least single timing (overhead included)
 * was best_ticks: target / (best - overhead), at least 1, at most max_calls
 * (Google Benchmark's iteration growth, in one step). */
size_t pb_batch_calls(double best_ticks, double target_ticks, size_t max_calls);

struct pb_mem_case;
/* Appends one sample to a mem case (ticks of the batch, calls in it, and
 * with then_read the read-back ticks), growing its arrays; *cap is their
 * capacity. Returns 0, or -1 with pb_error() when memory runs out. */
int pb_mem_case_add_sample(struct pb_mem_case *c, size_t *cap, double ticks, double read,
                           uint64_t calls);

/* CLOCK_MONOTONIC in seconds: for budgets, never for measurements. */
double pb_monotonic_s(void);

/* Appends one printf-style line to a notes buffer of `cap` bytes (dropped
 * when it does not fit). */
void pb_note_append(char *notes, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
