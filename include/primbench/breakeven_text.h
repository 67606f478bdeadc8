/* primbench/breakeven_text.h - a break-even computation
 * (primbench/breakeven.h) as text and as the record of the result file's
 * "breakeven" array (docs/breakeven.md, docs/results-schema.md), which the
 * results module writes. */
#ifndef PRIMBENCH_BREAKEVEN_TEXT_H
#define PRIMBENCH_BREAKEVEN_TEXT_H

#include <stdio.h>

#include "primbench/breakeven.h"
#include "primbench/breakeven_result.h"
#include "primbench/results.h"

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

/* b as the result file's record (docs/breakeven.md; written by the
 * results module, include/primbench/breakeven_result.h): the kernel names
 * are the table's, the rest copied. Returns 0, or -1 with pb_error() when
 * out of memory (nothing to free then); else free with
 * pb_breakeven_record_free. */
int pb_breakeven_record_make(const struct pb_breakeven *b, struct pb_breakeven_record *out);

/* Computes the break-even of (op, st) of r (pb_breakeven_compute, g as
 * there) and appends its record to doc["breakeven"]. Returns 1 when
 * appended, 0 when r has no case of (op, st) (nothing appended), or -1
 * with pb_error() (out of memory). */
int pb_breakeven_write(struct pb_results_doc *doc, const struct pb_mem_result *r, enum pb_op op,
                       enum pb_cache_state st, const struct pb_glibc_thresholds *g);

#endif
