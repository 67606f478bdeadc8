/* primbench/tune.h - what `primbench tune` computes from its measurements
 * (docs/performance.md "auto and tune"): one policy per op from a
 * break-even run of small sizes in the hot state and one of large sizes in
 * the dram state, and the policy file's text.
 */
#ifndef PRIMBENCH_TUNE_H
#define PRIMBENCH_TUNE_H

#include <stdint.h>

#include "primbench/auto.h"
#include "primbench/mem.h"
#include "primbench/policy.h"

/* The hot policy up to split_bytes (inclusive), the dram policy above it.
 * Adjacent bands with the same kernel are joined; when more than
 * PB_POLICY_MAX_BANDS remain, the smallest ones are joined into their
 * upper neighbour. hot and dram must be policies of the same op (dram may
 * be NULL: the hot policy serves every size). Returns 0, or -1 with
 * pb_error() when the ops differ or split_bytes is 0. */
int pb_tune_merge(const struct pb_policy *hot, const struct pb_policy *dram, uint64_t split_bytes,
                  struct pb_policy *out);

/* The cases both a and b measured (same op, kernel and size; sizes in
 * [lo_bytes, hi_bytes]) as one result in state `as`, each case's median
 * and CI bounds the geometric means of the two cases' (ticks per call):
 * the break-even finder on it chooses the kernel that is best over both
 * states together (the mean of the two log times; a kernel 10% faster in
 * one state and 10% slower in the other ties). tune uses it with a = hot
 * and b = dram for sizes that may live in either. The CI of a combined case
 * is valid only when both are (and conservative: the mean of the bounds'
 * logs). Each case's samples, as many as the smaller side has, are the
 * geometric means of the two cases' i-th per-call values (one call each;
 * none when a side has no sample arrays: n_samples then the summaries'
 * smaller count), replicate by replicate when both have the same number
 * of replicates (n_replicates and replicate_samples then the pairs of
 * each, so that pb_contender_ratio still pairs by replicate). Returns 0 (out may
 * have no case), or -1 with pb_error() on allocation failure; free out with
 * pb_mem_result_free(). */
int pb_tune_combine(const struct pb_mem_result *a, const struct pb_mem_result *b, uint64_t lo_bytes,
                    uint64_t hi_bytes, enum pb_cache_state as, struct pb_mem_result *out);

/* The no-loss rule for sizes that may live in either state (issue 35:
 * auto must never be slower than glibc there in either): in out, a result
 * of pb_tune_combine(a, b, ...), every case of a kernel other than guard
 * (libc) whose median in a or in b is slower than guard's there by more
 * than margin (a fraction, 0.01 for 1%) has its figures (samples, median,
 * CI, min, max) scaled so that its ratio to guard's combined median is its
 * worse state's ratio, max(t_a / g_a, t_b / g_b), instead of the geometric
 * mean of the two. Such a kernel then ranks behind guard (ratio 1) at that
 * size whatever it gains in the other state, while a kernel slower in
 * neither keeps the geometric mean. Cases without a usable guard case in
 * both states at their size are left as they are. Returns how many cases
 * were scaled. */
size_t pb_tune_guard_combined(struct pb_mem_result *out, const struct pb_mem_result *a,
                              const struct pb_mem_result *b, const struct pb_kernel *guard,
                              double margin);

/* p with kernel k serving the sizes lo_bytes..hi_bytes (inclusive, lo <=
 * hi): the bands below and above keep their kernels over the rest of
 * their sizes; equal neighbours are joined. How tune hands a size range
 * where its policy lost to glibc over to libc. Returns 0, or -1 with
 * pb_error() (p unchanged) when lo > hi, k is of another op, or the result
 * would have more than PB_POLICY_MAX_BANDS bands. */
int pb_tune_set_range(struct pb_policy *p, uint64_t lo_bytes, uint64_t hi_bytes,
                      const struct pb_kernel *k);

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
