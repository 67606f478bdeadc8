/* session_write.c - the run-level objects a session writes into its result
 * document: seed and placement (include/primbench/session_result.h). */
#include "primbench/session_result.h"

#include <string.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"

int pb_results_add_seed(struct pb_results_doc *doc, uint64_t seed)
{
	json_t *v = json_integer((json_int_t)seed);
	if (!v || json_object_set_new(pb_results_doc_json(doc), "seed", v) != 0)
		return pb_fail("out of memory");
	return 0;
}

int pb_results_add_placement(struct pb_results_doc *doc, const struct pb_cpu_place *pl)
{
	json_t *o = pb_cpu_place_json(pl);
	if (!o || json_object_set_new(pb_results_doc_json(doc), "placement", o) != 0)
		return pb_fail("out of memory");
	return 0;
}

json_t *pb_cpu_place_json(const struct pb_cpu_place *pl)
{
	static const char *const hows[] = {[PB_PLACE_NONE] = "none",
	                                   [PB_PLACE_PROBE] = "probe",
	                                   [PB_PLACE_ONLY] = "only",
	                                   [PB_PLACE_OPTION] = "--cpu",
	                                   [PB_PLACE_HERE] = "here"};
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "how", json_string(hows[pl->how]));
	json_object_set_new(o, "cpu", pl->cpu >= 0 ? json_integer(pl->cpu) : json_null());
	json_object_set_new(o, "cpus", json_string(pl->cpus));
	json_object_set_new(o, "note", json_string(pl->note));
	if (!pl->probed) {
		json_object_set_new(o, "probe", json_null());
		return o;
	}
	const struct pb_cpu_probe *pr = &pl->probe;
	json_t *probe = json_object(), *per = json_array();
	json_object_set_new(probe, "budget_ms", json_real(pr->budget_ms));
	json_object_set_new(probe, "slice_ms", json_real(pr->slice_ms));
	json_object_set_new(probe, "wall_ms", json_real(pr->wall_ms));
	json_object_set_new(probe, "quantum_iters", json_integer((json_int_t)pr->iters));
	json_object_set_new(probe, "not_probed", json_integer((json_int_t)pr->not_probed));
	json_object_set_new(probe, "rule",
	                    json_string("least lost_share; near-ties (within 1 point) to the "
	                                "shorter p99 tail, then the lower CPU number"));
	for (size_t i = 0; i < pr->n; i++) {
		const struct pb_cpu_noise *f = &pr->cpu[i];
		json_t *c = json_object();
		json_object_set_new(c, "cpu", json_integer(f->cpu));
		json_object_set_new(c, "ok", json_boolean(f->ok));
		json_object_set_new(c, "error",
		                    f->error ? json_string(strerror(f->error)) : json_null());
		json_object_set_new(c, "chunks", json_integer((json_int_t)f->chunks));
		json_object_set_new(c, "min_ns", json_real(f->min_ns));
		json_object_set_new(c, "median_ns", json_real(f->median_ns));
		json_object_set_new(c, "p99_ns", json_real(f->p99_ns));
		json_object_set_new(c, "max_ns", json_real(f->max_ns));
		json_object_set_new(c, "lost_share", json_real(f->lost_share));
		json_object_set_new(c, "probe_ns", json_real(f->probe_ns));
		json_array_append_new(per, c);
	}
	json_object_set_new(probe, "per_cpu", per);
	json_object_set_new(o, "probe", probe);
	return o;
}
