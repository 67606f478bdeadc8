/* primbench/profile_text.h - a perf profile (include/primbench/profile.h)
 * as text. Part of the report module (src/report/profile_text.c).
 */
#ifndef PRIMBENCH_PROFILE_TEXT_H
#define PRIMBENCH_PROFILE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
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

#endif
