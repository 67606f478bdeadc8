/* judge.c - one run's contenders set against each other by the one rule
 * (include/primbench/judge.h). */
#include "primbench/judge.h"

#include <math.h>
#include <stdlib.h>

#include "primbench/replicates.h"
#include "primbench/stats.h"

static const char *const standing_names[PB_STANDING_COUNT] = {"ahead", "within_noise", "behind",
                                                              "cannot_tell"};

const char *pb_standing_name(enum pb_standing s)
{
	return (unsigned)s < PB_STANDING_COUNT ? standing_names[s] : "?";
}

static enum pb_verdict one_rule(const struct pb_shift *r)
{
	if (!r->ci_valid)
		return PB_VERDICT_NONE;
	const struct pb_verdict_rule rule = {.null = 1, .margin = pb_equivalence()};
	return pb_verdict(r, &rule);
}

enum pb_verdict pb_judge_cases(const struct pb_results_case *x, const struct pb_results_case *y,
                               struct pb_shift *ratio)
{
	if (pb_contender_ratio(x->v, x->n, x->rep_n, x->n_rep, y->v, y->n, y->rep_n, y->n_rep, 0.95,
	                       ratio) != 0)
		*ratio =
		    (struct pb_shift){.estimate = NAN, .lo = NAN, .hi = NAN, .ci_valid = false};
	return one_rule(ratio);
}

enum pb_verdict pb_judge_mem_cases(const struct pb_mem_case *x, const struct pb_mem_case *y,
                                   struct pb_shift *ratio)
{
	double *a = pb_mem_case_per_call(x), *b = pb_mem_case_per_call(y);
	if (!a || !b ||
	    pb_contender_ratio(a, x->n_samples, x->replicate_samples, x->n_replicates, b,
	                       y->n_samples, y->replicate_samples, y->n_replicates, 0.95,
	                       ratio) != 0)
		*ratio =
		    (struct pb_shift){.estimate = NAN, .lo = NAN, .hi = NAN, .ci_valid = false};
	free(a);
	free(b);
	return one_rule(ratio);
}

/* y against the fastest of others[0..k), replicate by replicate
 * (pb_vs_fastest_ratio): when y and every one of them have the same three
 * or more replicates. Returns false (nothing in *r) otherwise. */
static bool vs_fastest(const struct pb_results_case *y, const struct pb_results_case *const *others,
                       size_t k, struct pb_shift *r)
{
	size_t n = y->n_rep;
	if (n < 3 || !y->rep_n)
		return false;
	for (size_t c = 0; c < k; c++)
		if (others[c]->n_rep != n || !others[c]->rep_n)
			return false;
	double *med = malloc((k + 1) * n * sizeof *med);
	if (!med)
		return false;
	bool ok = pb_replicate_medians(y->v, y->n, y->rep_n, n, med + k * n) == n;
	for (size_t c = 0; c < k && ok; c++) {
		const struct pb_results_case *o = others[c];
		ok = pb_replicate_medians(o->v, o->n, o->rep_n, n, med + c * n) == n;
	}
	struct pb_runs_ratio pr = {0};
	ok = ok && pb_vs_fastest_ratio(med, k, n, med + k * n, 0.95, &pr, NULL) == 0 && pr.valid;
	free(med);
	if (!ok)
		return false;
	*r = (struct pb_shift){.estimate = pr.estimate,
	                       .lo = pr.lo,
	                       .hi = pr.hi,
	                       .level = 0.95,
	                       .coverage = 0.95,
	                       .ci_valid = true};
	return true;
}

void pb_judge_vs_fastest(const struct pb_results_case *y, double y_median,
                         const struct pb_results_case *const *others, size_t k,
                         const struct pb_results_case *best, double best_median,
                         struct pb_standing_judgement *out)
{
	*out = (struct pb_standing_judgement){
	    .ratio = y_median / best_median, .lo = NAN, .hi = NAN, .least = NAN};
	struct pb_shift r;
	enum pb_verdict v;
	if (vs_fastest(y, others, k, &r)) {
		out->replicate_by_replicate = true;
		v = one_rule(&r);
	} else {
		v = pb_judge_cases(best, y, &r);
	}
	if (r.ci_valid) {
		out->ratio = r.estimate;
		out->lo = r.lo;
		out->hi = r.hi;
	}
	if (v == PB_VERDICT_DIFFERENT && r.estimate > 1) {
		out->standing = PB_STANDING_BEHIND;
		out->least = r.lo;
	} else if (v == PB_VERDICT_DIFFERENT) {
		out->standing = PB_STANDING_AHEAD;
	} else if (v == PB_VERDICT_EQUIVALENT) {
		out->standing = PB_STANDING_WITHIN;
	} else {
		out->standing = PB_STANDING_UNSURE;
	}
}
