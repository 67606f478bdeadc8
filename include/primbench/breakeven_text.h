/* primbench/breakeven_text.h - a break-even computation
 * (primbench/breakeven.h) as text and as the result file's "breakeven"
 * object (docs/breakeven.md, docs/results-schema.md). */
#ifndef PRIMBENCH_BREAKEVEN_TEXT_H
#define PRIMBENCH_BREAKEVEN_TEXT_H

#include <jansson.h>
#include <stdio.h>

#include "primbench/breakeven.h"

/* One switch of a policy in words, as pb_breakeven_print gives it:
 * "BELOW -> ABOVE above BOUND (HOW)", HOW saying how the bound was placed
 * and where neither kernel is faster by the one rule (pb_verdict with
 * PB_EQUIVALENCE), or that one is faster at every measured size, and how
 * often the medians crossed. Never fails; truncated to out_len. */
void pb_breakeven_switch_text(const struct pb_crossing *x, char *out, size_t out_len);

/* The bands with peers in words, "KERNEL<=BOUND: PEER, PEER; ...", the
 * bound as the policy writes it; "" when no band has one. Never fails;
 * truncated to out_len. */
void pb_breakeven_peers_text(const struct pb_breakeven *b, char *out, size_t out_len);

/* Prints, in at most 80 columns: the crossings, the recommended policy,
 * and with g the GLIBC_TUNABLES line beside glibc's current values and
 * what glibc cannot express. Nothing when r has no case of (op, st). */
void pb_print_breakeven(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, const struct pb_glibc_thresholds *g);
void pb_breakeven_print(FILE *f, const struct pb_breakeven *b);

/* The same as a JSON object for the result file (docs/breakeven.md);
 * NULL when r has no case of (op, st) or on allocation failure. */
json_t *pb_breakeven_json(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                          const struct pb_glibc_thresholds *g);
json_t *pb_breakeven_to_json(const struct pb_breakeven *b);

#endif
