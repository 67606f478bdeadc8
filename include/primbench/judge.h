/* primbench/judge.h - the judgements of one run's contenders (the
 * analysis module): two cases of a run set against each other, and a
 * kernel against the fastest of the others, each decided by the one rule:
 * pb_verdict (twosample.h) with null 1 and the one margin, PB_EQUIVALENCE
 * (pb_equivalence()), on the interval of their ratio from
 * pb_contender_ratio or pb_vs_fastest_ratio (replicates.h). The summary,
 * the tables' marks and tune's check judge through these
 * (docs/statistics.md, "One rule").
 */
#ifndef PRIMBENCH_JUDGE_H
#define PRIMBENCH_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "primbench/mem_result.h"
#include "primbench/reader.h"
#include "primbench/twosample.h"

/* y / x for two cases of one result file, per-call values in one unit, as
 * a 95% interval (pb_contender_ratio: replicate by replicate, or with one
 * replicate by the samples) into *ratio, and the one rule's verdict on it:
 * PB_VERDICT_DIFFERENT with ratio->estimate > 1 means y is slower.
 * PB_VERDICT_NONE with ratio->ci_valid false when no interval can be
 * had (too few values), and with ratio->estimate NaN too when no ratio
 * can be had (pb_contender_ratio failed: values <= 0, no values, out of
 * memory; pb_error() says which). */
enum pb_verdict pb_judge_cases(const struct pb_results_case *x, const struct pb_results_case *y,
                               struct pb_shift *ratio);

/* The same for two cases of a pb_mem_result (their per-call samples,
 * pb_mem_case_per_call). PB_VERDICT_NONE also when out of memory. */
enum pb_verdict pb_judge_mem_cases(const struct pb_mem_case *x, const struct pb_mem_case *y,
                                   struct pb_shift *ratio);

/* Where a kernel stands against the fastest other kernel at one size. */
enum pb_standing {
	PB_STANDING_AHEAD,  /* faster beyond the margin */
	PB_STANDING_WITHIN, /* equivalent: the interval inside 1 +- margin */
	PB_STANDING_BEHIND, /* slower beyond the margin */
	PB_STANDING_UNSURE, /* the interval reaches past the margin and 1 */
	PB_STANDING_COUNT
};

/* "ahead", "within_noise", "behind", "cannot_tell" (the summary's JSON). */
const char *pb_standing_name(enum pb_standing s);

struct pb_standing_judgement {
	enum pb_standing standing;
	/* y / the fastest: the interval's estimate (the medians' ratio when
	 * there is no interval), its 95% bounds (NaN: none), and for
	 * PB_STANDING_BEHIND the low bound (how much slower at least; else
	 * NaN) */
	double ratio, lo, hi, least;
	bool replicate_by_replicate; /* pb_vs_fastest_ratio (else best alone) */
};

/* y against the fastest of others[0..k) at one size, y_median and
 * best_median (others' fastest by the medians, `best`) in one unit:
 * replicate by replicate against the fastest chosen on the other
 * replicates (pb_vs_fastest_ratio) when y and every one of others have
 * the same three or more replicates, else against `best` alone
 * (pb_judge_cases); the one rule decides. Never fails: an interval that
 * cannot be had gives PB_STANDING_UNSURE with the medians' ratio. */
void pb_judge_vs_fastest(const struct pb_results_case *y, double y_median,
                         const struct pb_results_case *const *others, size_t k,
                         const struct pb_results_case *best, double best_median,
                         struct pb_standing_judgement *out);

#endif
