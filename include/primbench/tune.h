/* primbench/tune.h - what `primbench tune` computes from its measurements
 * (docs/performance.md "auto and tune"): one policy per op from a
 * break-even run of small sizes in the hot state and one of large sizes in
 * the dram state, and the policy file's text.
 */
#ifndef PRIMBENCH_TUNE_H
#define PRIMBENCH_TUNE_H

#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/policy.h"

/* The hot policy up to split_bytes (inclusive), the dram policy above it.
 * Adjacent bands with the same kernel are joined; when more than
 * PB_POLICY_MAX_BANDS remain, the smallest ones are joined into their
 * upper neighbour. hot and dram must be policies of the same op (dram may
 * be NULL: the hot policy serves every size). Returns 0, or -1 with
 * pb_error() when the ops differ or split_bytes is 0. */
int pb_tune_merge(const struct pb_policy *hot, const struct pb_policy *dram, uint64_t split_bytes,
                  struct pb_policy *out);

/* Joins neighbouring bands of p that name the same kernel (the upper one's
 * bound stays). */
void pb_policy_join_equal(struct pb_policy *p);

/* The text of a policy file (include/primbench/auto.h's format): the
 * comment lines (each prefixed with "# "; may be NULL), then one line per
 * op set in f, then the cpu line when f->cpu is not empty. Returns a
 * malloc'd string, or NULL with pb_error() when a policy cannot be
 * formatted. */
char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment);

#endif
