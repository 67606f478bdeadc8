/* kernel_write.c - the kernel suite's cases in a result document
 * (include/primbench/kernel_suite.h; docs/results-schema.md, "A `kernel`
 * case": the samples/per_call layout of the mem cases in json.c, and the
 * module's INFO and checks in the document's "kernel" object). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/kernel_result.h"
#include "primbench/results.h"
#include "results/results_json.h"

const char *pb_kmod_variant_name(const struct pb_kmod_info *info, uint32_t v)
{
	return v < info->n_variants ? info->variants[v].name : NULL;
}

const char *pb_kmod_state_name(uint32_t state)
{
	return state == PB_KS_HOT ? "hot" : state == PB_KS_FLUSHED ? "flushed" : "?";
}

double pb_kernel_ticks_per_4k(double ticks_per_page, uint32_t page_bytes)
{
	return page_bytes ? ticks_per_page * 4096.0 / (double)page_bytes : NAN;
}

double pb_kernel_ns(double ticks, uint64_t tsc_khz)
{
	return tsc_khz ? ticks * 1e6 / (double)tsc_khz : NAN;
}

double pb_kernel_gb_per_s(double ticks_per_page, uint32_t page_bytes, uint64_t tsc_khz)
{
	double ns = pb_kernel_ns(ticks_per_page, tsc_khz);
	return ns > 0 ? (double)page_bytes / ns : NAN;
}

static json_t *flags_json(uint32_t f)
{
	json_t *a = json_array();
	if (f & PB_KVF_KERNEL)
		json_array_append_new(a, json_string("kernel"));
	if (f & PB_KVF_FPU)
		json_array_append_new(a, json_string("fpu"));
	if (f & PB_KVF_NT)
		json_array_append_new(a, json_string("nt"));
	return a;
}

/* The document's "kernel" object: the module's INFO and the checks. */
static json_t *kernel_object(const struct pb_kernel_result *r)
{
	const struct pb_kmod_info *in = &r->info;
	json_t *vs = json_array();
	for (uint32_t i = 0; i < in->n_variants && i < PB_KMOD_MAX_VARIANTS; i++) {
		const struct pb_kmod_variant_info *v = &in->variants[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(v->name));
		json_object_set_new(o, "number", json_integer(i));
		json_object_set_new(o, "available", json_boolean(v->flags & PB_KVF_AVAILABLE));
		if (!(v->flags & PB_KVF_AVAILABLE))
			json_object_set_new(o, "why", json_string(v->why));
		json_object_set_new(o, "flags", flags_json(v->flags));
		json_array_append_new(vs, o);
	}
	json_t *checks = json_array();
	for (size_t i = 0; i < r->n_checks; i++) {
		const struct pb_kernel_check *k = &r->checks[i];
		json_t *o = json_object();
		json_object_set_new(o, "variant",
		                    json_string(pb_kmod_variant_name(in, k->variant)
		                                    ? pb_kmod_variant_name(in, k->variant)
		                                    : "?"));
		json_object_set_new(o, "page_bytes", json_integer(4096 << k->page_order));
		json_object_set_new(o, "result",
		                    json_string(k->ok          ? "ok"
		                                : k->no_memory ? "no_memory"
		                                               : "failed"));
		if (!k->ok && !k->no_memory)
			json_object_set_new(o, "bad_offset_bytes",
			                    json_integer(k->bad_offset_bytes));
		json_array_append_new(checks, o);
	}
	json_t *limits = json_object();
	const struct pb_json_member lim[] = {{"max_calls_bytes", json_integer(in->max_calls_bytes)},
	                                     {"max_batches", json_integer(in->max_batches)},
	                                     {"max_request_ms", json_integer(in->max_request_ms)}};
	pb_json_set_members(limits, lim, sizeof lim / sizeof *lim);
	json_t *k = json_object();
	const struct pb_json_member m[] = {
	    {"device", json_string(r->device ? r->device : PB_KMOD_DEVICE)},
	    {"abi_version", json_integer(in->abi_version)},
	    {"module_version", json_string(in->module_version)},
	    {"release", json_string(in->release)},
	    {"tsc_khz", json_integer((json_int_t)in->tsc_khz)},
	    {"page_bytes", json_integer(in->page_bytes)},
	    {"huge_page_bytes", json_integer(in->huge_page_bytes)},
	    {"limits", limits},
	    {"overhead_ticks", pb_json_number(r->overhead_ticks)},
	    {"variants", vs},
	    {"checks", checks}};
	pb_json_set_members(k, m, sizeof m / sizeof *m);
	return k;
}

int pb_results_add_kernel(struct pb_results_doc *rdoc, const struct pb_kernel_result *r)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	json_object_set_new(doc, "kernel", kernel_object(r));
	uint64_t khz = r->info.tsc_khz;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->skipped)
			continue;
		json_t *o = json_object();
		json_t *key = pb_results_key("kernel");
		json_object_set_new(key, "op", json_string("clear_page"));
		json_object_set_new(key, "variant", json_string(c->name));
		json_object_set_new(key, "page_bytes", json_integer(c->page_bytes));
		json_object_set_new(key, "cache_state", json_string(pb_kmod_state_name(c->state)));
		if (c->irqs_off)
			json_object_set_new(key, "irqs_off", json_true());
		json_object_set_new(o, "key", key);
		/* one call = one page of page_bytes */
		json_t *reps = pb_json_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates);
		if (reps)
			json_object_set_new(o, "replicates", reps);
		pb_json_add_samples(o, c->batch_ticks, c->batch_calls, c->n_samples,
		                    &c->ticks_per_call);
		/* the module's rdtsc_ordered(), whatever the user-side timer is */
		json_object_set_new(o, "unit", json_string("tsc_ticks"));
		if (c->n_samples) {
			double med = c->ticks_per_call.median;
			json_t *dv = json_object();
			json_object_set_new(dv, "ns_per_call",
			                    pb_json_number(pb_kernel_ns(med, khz)));
			json_object_set_new(
			    dv, "ticks_per_page",
			    pb_json_number(pb_kernel_ticks_per_4k(med, c->page_bytes)));
			json_object_set_new(
			    dv, "gb_per_s",
			    pb_json_number(pb_kernel_gb_per_s(med, c->page_bytes, khz)));
			json_object_set_new(o, "median_derived", dv);
		}
		pb_results_append_case(cases, o, NULL, c->migrations, c->outliers);
	}
	if (pb_results_add_notes(notes, "kernel: ",
	                         "figures are TSC ticks (reference cycles at the TSC's constant "
	                         "rate, read in the kernel by rdtsc_ordered), not core cycles\n") !=
	    0)
		return -1;
	return pb_results_add_notes(notes, "kernel: ", r->notes);
}

void pb_kernel_result_free(struct pb_kernel_result *r)
{
	for (size_t i = 0; r->cases && i < r->n_cases; i++) {
		free(r->cases[i].batch_ticks);
		free(r->cases[i].batch_calls);
		free(r->cases[i].replicate_samples);
	}
	free(r->cases);
	r->cases = NULL;
	r->n_cases = 0;
}
