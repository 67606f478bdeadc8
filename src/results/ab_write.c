/* ab_write.c - the "ab" object of a `primbench cmd` result document
 * (include/primbench/ab_result.h). */
#include <jansson.h>

#include "primbench/ab_result.h"
#include "primbench/results.h"
#include "primbench/twosample.h"
#include "results/results_json.h"

static json_t *until_verdict_json(const struct pb_ab_record *a)
{
	json_t *seq = json_object();
	json_object_set_new(seq, "method", json_string("bonferroni-fixed-looks"));
	json_object_set_new(seq, "estimator",
	                    json_string(a->paired ? PB_SEQ_PAIRED_METHOD : PB_SEQ_METHOD));
	json_object_set_new(seq, "alpha", pb_json_number(a->plan.alpha));
	json_object_set_new(seq, "level_per_look", pb_json_number(a->plan.level_per_look));
	json_t *ln = json_array();
	for (size_t i = 0; i < a->plan.nlooks; i++)
		json_array_append_new(ln, json_integer((json_int_t)a->plan.look_n[i]));
	json_object_set_new(seq, "schedule", ln);
	json_object_set_new(seq, "equivalence", pb_json_number(a->equivalence));
	json_object_set_new(seq, "looks", pb_cmd_ab_looks_json(a->look, a->nlooks));
	json_object_set_new(seq, "ended_by", a->ended_by ? json_string(a->ended_by) : json_null());
	json_object_set_new(seq, "verdict", json_string(a->seq_verdict));
	return seq;
}

/* A ratio's interval: {"method", ("pairs"), "estimate", "level", "ci_lo",
 * "ci_hi"}; pairs < 0: no "pairs". */
static json_t *shift_json(const char *method, long long pairs, const struct pb_shift *s)
{
	json_t *rj = json_object();
	json_object_set_new(rj, "method", json_string(method));
	if (pairs >= 0)
		json_object_set_new(rj, "pairs", json_integer((json_int_t)pairs));
	json_object_set_new(rj, "estimate", pb_json_number(s->estimate));
	json_object_set_new(rj, "level", pb_json_number(s->level));
	json_object_set_new(rj, "ci_lo", pb_json_number(s->lo));
	json_object_set_new(rj, "ci_hi", pb_json_number(s->hi));
	return rj;
}

void pb_results_set_ab(struct pb_results_doc *doc, const struct pb_ab_record *a)
{
	json_t *abj = json_object();
	json_object_set_new(abj, "metric", json_string(a->metric));
	json_object_set_new(abj, "mode", json_string(a->duet ? "duet" : "abba"));
	json_object_set_new(abj, "verdict_on", json_string(a->paired ? "pairs" : "runs"));
	if (a->duet)
		json_object_set_new(abj, "duet_cpus",
		                    json_pack("[s,s]", a->duet_cpus[0], a->duet_cpus[1]));
	if (a->order)
		json_object_set_new(abj, "order", json_string(a->order));
	if (a->valid) {
		json_object_set_new(abj, "median_a", pb_json_number(a->med_a));
		json_object_set_new(abj, "median_b", pb_json_number(a->med_b));
		json_object_set_new(abj, "difference_of_medians",
		                    pb_json_number(a->med_b - a->med_a));
		json_object_set_new(abj, "ratio", shift_json("hodges-lehmann-log", -1, &a->ratio));
		if (a->paired_valid)
			json_object_set_new(abj, "paired_ratio",
			                    shift_json(PB_SEQ_PAIRED_METHOD, (long long)a->npairs,
			                               &a->paired_ratio));
		json_object_set_new(abj, "mann_whitney",
		                    json_pack("{s:o,s:o,s:b}", "u", pb_json_number(a->u.u_x), "p",
		                              pb_json_number(a->u.p), "exact", a->u.exact));
		json_object_set_new(abj, "equivalence", pb_json_number(a->equivalence));
		if (a->verdict)
			json_object_set_new(abj, "verdict", json_string(a->verdict));
		if (a->t_valid)
			json_object_set_new(abj, "student_t",
			                    json_pack("{s:o,s:o,s:o,s:o,s:o,s:b}", "level",
			                              pb_json_number(a->t.level), "difference",
			                              pb_json_number(a->t.diff), "half_width",
			                              pb_json_number(a->t.half_width), "percent",
			                              pb_json_number(a->t.pct), "pooled_sd",
			                              pb_json_number(a->t.pooled_sd), "significant",
			                              a->t.significant));
	}
	if (a->until_verdict)
		json_object_set_new(abj, "until_verdict", until_verdict_json(a));
	json_object_set_new(pb_results_doc_json(doc), "ab", abj);
}
