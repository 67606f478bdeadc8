/* primbench/ab_result.h - the "ab" object of a `primbench cmd` result
 * document with two sides (docs/results-schema.md): B against A, filled
 * by the command line from the session (include/primbench/cmd_ab.h),
 * written by src/results/ab_write.c. Part of the results module. */
#ifndef PRIMBENCH_AB_RECORD_H
#define PRIMBENCH_AB_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "primbench/cmd_result.h"
#include "primbench/results.h"
#include "primbench/twosample.h"

/* B against A. Ratios are B / A of the metric's figure; medians in its
 * unit (ns of real, user or sys time, or counts). */
struct pb_ab_record {
	const char *metric;       /* the figure compared ("real", ...) */
	bool duet;                /* "mode": "duet" (else "abba") */
	bool paired;              /* "verdict_on": "pairs" (else "runs") */
	const char *duet_cpus[2]; /* duet: each slot's CPU list */
	const char *order;        /* every run's side, "ABBA..." (NULL: no member) */
	/* the session's figures (no members unless valid) */
	bool valid;
	double med_a, med_b;
	struct pb_shift ratio; /* Hodges-Lehmann on the logs */
	bool paired_valid;     /* "paired_ratio" */
	size_t npairs;
	struct pb_shift paired_ratio;
	struct pb_utest u;
	double equivalence;  /* the margin of the verdicts, a fraction */
	const char *verdict; /* pb_verdict_name (NULL: no member: --until-verdict has its own) */
	bool t_valid;        /* "student_t" */
	struct pb_ttest t;
	/* --until-verdict ("until_verdict", when until_verdict) */
	bool until_verdict;
	struct pb_seq_plan plan;
	/* the looks done, in order (primbench/cmd_result.h) */
	const struct pb_cmd_ab_look *look;
	size_t nlooks;
	const char *ended_by;    /* NULL: null */
	const char *seq_verdict; /* the last look's verdict */
};

/* Sets doc["ab"] from a: {"metric", "mode", "verdict_on", "duet_cpus"
 * (duet), "order"; when valid: "median_a", "median_b",
 * "difference_of_medians", "ratio" {method "hodges-lehmann-log",
 * estimate, level, ci_lo, ci_hi}, "paired_ratio" (paired_valid),
 * "mann_whitney" {u, p, exact}, "equivalence", "verdict", "student_t"
 * (t_valid); "until_verdict" {method "bonferroni-fixed-looks", estimator,
 * alpha, level_per_look, schedule, equivalence, looks, ended_by,
 * verdict}}. Numbers that are not finite are written as null. */
void pb_results_set_ab(struct pb_results_doc *doc, const struct pb_ab_record *a);

#endif
