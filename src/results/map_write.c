/* map_write.c - the cases of `primbench mem map` in a result document
 * (include/primbench/map_result.h; docs/results-schema.md, "A map case"). */
#include "primbench/map_result.h"

#include "primbench/results.h"
#include "results/results_json.h"

int pb_results_add_map(struct pb_results_doc *rdoc, const struct pb_map_record *recs, size_t n,
                       const char *notes_text)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct pb_map_record *c = &recs[i];
		json_t *o = json_object();
		json_t *key = json_object();
		json_object_set_new(key, "suite", json_string("map"));
		json_object_set_new(key, "fault", json_string(c->fault));
		json_object_set_new(key, "page_bytes", json_integer((json_int_t)c->page_bytes));
		json_object_set_new(key, "page_source", json_string(c->page_source));
		json_object_set_new(key, "threads", json_integer(c->threads));
		json_object_set_new(key, "region_bytes", json_integer((json_int_t)c->region_bytes));
		json_object_set_new(o, "key", key);
		json_object_set_new(o, "pages", json_integer((json_int_t)c->pages));
		json_t *reps = pb_json_replicates(c->ticks, c->calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates);
		if (reps)
			json_object_set_new(o, "replicates", reps);
		pb_json_add_samples(o, c->ticks, c->calls, c->n_samples, c->per_page);
		json_t *dv = json_object();
		json_object_set_new(dv, "ns_per_page", pb_json_number(c->ns_per_page));
		json_object_set_new(dv, "ns_per_4k_page", pb_json_number(c->ns_per_4k_page));
		json_object_set_new(dv, "gb_per_s", pb_json_number(c->gb_per_s));
		json_object_set_new(o, "median_derived", dv);
		pb_results_append_case(cases, o, c->thp ? &c->thp_bytes : NULL,
		                       (json_int_t)c->migrations, c->outliers);
	}
	return notes_text ? pb_results_add_notes(notes, "map: ", notes_text) : 0;
}
