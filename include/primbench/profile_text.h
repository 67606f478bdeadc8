/* primbench/profile_text.h - a perf profile (include/primbench/profile.h)
 * as text. Part of the report module (src/report/profile_text.c).
 */
#ifndef PRIMBENCH_PROFILE_TEXT_H
#define PRIMBENCH_PROFILE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/profile.h"

/* The profile as text, every line within 80 columns: the first `top`
 * symbols (samples, % of all samples, binary: "[kernel]" or the dso's base
 * name, symbol), then one line per family (samples, %; "-" when not
 * counted; the primbench families only when `preload` or when they have
 * samples), then why kernel families are not counted, if so, and which
 * binaries had no symbols. Each line starts with `indent` spaces. */
void pb_profile_print(FILE *f, const struct pb_profile *p, size_t top, bool preload, int indent);

/* The families of two profiles side by side: A's and B's samples and
 * share, and the change of the share in percentage points (B - A); then,
 * for a clock event (cpu-clock, task-clock), the CPU time one sample
 * stands for. */
void pb_profile_print_vs(FILE *f, const struct pb_profile *a, const struct pb_profile *b,
                         bool preload);

/* The share of a primitive (memset, memcpy/memmove) in a command's CPU
 * time by the two methods of `cmd --account=ticks --profile`, each with its
 * uncertainty (docs/profile.md, "The memset share"), as three lines of at
 * most 80 columns (wrapped), the first starting with `side` ("A ", "B ", ""):
 *
 *   memset share of CPU time, two ways:
 *     accounting 16.3%, at least 4.2% (timed alone; up to one 50-tick
 *       timer pair a call of serialisation)
 *     profile 9.9% [9.0%, 10.9%] (95%, binomial; 397 of 3939 samples)
 *
 * acct_pct, acct_min_pct: pb_acct_share_bounds()'s share and bound
 * (percent; NaN: "unknown"); overhead_ticks: the timer pair's ticks
 * (shown). prof_samples of prof_all samples in the primitive's families
 * (libc's and primbench's), the interval from pb_profile_share_ci95();
 * prof_all == 0: "no samples". */
void pb_share_two_ways_print(FILE *f, const char *side, const char *prim, double acct_pct,
                             double acct_min_pct, double overhead_ticks, uint64_t prof_samples,
                             uint64_t prof_all);

#endif
