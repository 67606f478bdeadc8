/* cli_transitional.c - TRANSITIONAL (issue 37): the JSON the command line
 * still exchanges with modules that hand JSON (the report module's
 * accounting object, the cmd suite's cases), read and written here
 * so that src/cli/ builds and walks none of it (results_json.h). */
#include <jansson.h>
#include <limits.h>
#include <math.h>

#include "primbench/profile.h"
#include "primbench/results_json.h"

json_t *pb_results_cmd_profile_json(const struct pb_profile *prof,
                                    const struct pb_cmd_profile_env *e)
{
	json_t *o = pb_profile_json(prof, 30);
	json_object_set_new(o, "event_requested", json_string(e->event_requested));
	json_object_set_new(o, "event_kind", json_string(e->software ? "software" : "hardware"));
	json_object_set_new(o, "no_hardware_reason",
	                    e->software ? json_string(e->no_hardware_reason) : json_null());
	json_object_set_new(
	    o, "perf_event_paranoid",
	    e->perf_event_paranoid == INT_MIN ? json_null() : json_integer(e->perf_event_paranoid));
	json_object_set_new(o, "kptr_restrict",
	                    e->kptr_restrict == INT_MIN ? json_null()
	                                                : json_integer(e->kptr_restrict));
	json_object_set_new(o, "root", json_boolean(e->root));
	json_object_set_new(o, "preload", json_boolean(e->preload));
	return o;
}

void pb_results_acct_set_ran_other_code(json_t *acct, const struct pb_ran_other_code *rows,
                                        size_t n)
{
	if (!acct || !n)
		return;
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "op", json_string(rows[i].op));
		json_object_set_new(o, "kernel", json_string(rows[i].kernel));
		json_object_set_new(o, "ran_code_of", json_string(rows[i].ran_code_of));
		json_object_set_new(o, "calls", json_integer((json_int_t)rows[i].calls));
		json_array_append_new(arr, o);
	}
	json_object_set_new(acct, "ran_other_code", arr);
}

void pb_results_acct_prim(const json_t *acct, const char *prim, long long *calls, double *cpu_pct,
                          double *cpu_pct_min)
{
	const json_t *o = json_object_get(json_object_get(acct, "primitives"), prim);
	const json_t *sh = json_object_get(o, "cpu_pct");
	const json_t *mn = json_object_get(o, "cpu_pct_min");
	*calls = json_integer_value(json_object_get(o, "calls"));
	*cpu_pct = json_is_number(sh) ? json_number_value(sh) : NAN;
	*cpu_pct_min = json_is_number(mn) ? json_number_value(mn) : NAN;
}

double pb_results_acct_overhead_ticks(const json_t *acct)
{
	return json_number_value(json_object_get(acct, "timer_overhead_ticks"));
}
