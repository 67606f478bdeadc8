/* kernel_write.c - the kernel suite's cases in a result document
 * (include/primbench/kernel_suite.h; docs/results-schema.md, "A `kernel`
 * case": the samples/per_call layout of the mem cases in json.c, and the
 * module's INFO, the checks and the SIMD break-evens in the document's
 * "kernel" object), and the names and derived figures of kernel_result.h. */
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

const char *pb_kmod_op_name(uint32_t op)
{
	static const char *const names[PB_KOP_COUNT] = {"clear_page", "copy_page", "fpu",
	                                                "user_copy"};
	return op < PB_KOP_COUNT ? names[op] : NULL;
}

const char *pb_kernel_upper_name(uint32_t upper)
{
	static const char *const names[PB_KU_COUNT] = {"clean", "dirty", "dirty512"};
	return upper < PB_KU_COUNT ? names[upper] : "?";
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

double pb_kernel_copy_gb_per_s(double ticks_per_copy, uint64_t size_bytes, uint64_t tsc_khz)
{
	double ns = pb_kernel_ns(ticks_per_copy, tsc_khz);
	return ns > 0 ? (double)size_bytes / ns : NAN;
}

/* The median ticks per call of the measured case (variant v, 4K hot for
 * the page ops; upper u for fpu), or NaN. */
static double median_of(const struct pb_kernel_result *r, uint32_t v, uint32_t upper)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->variant != v || c->skipped || !c->n_samples)
			continue;
		if (c->op == PB_KOP_FPU
		        ? c->upper == upper
		        : c->page_order == PB_KMOD_ORDER_4K && c->state == PB_KS_HOT)
			return c->ticks_per_call.median;
	}
	return NAN;
}

size_t pb_kernel_breakevens(const struct pb_kernel_result *r, struct pb_kernel_breakeven *out,
                            size_t max)
{
	const struct pb_kmod_info *in = &r->info;
	int null_v = -1, fpu_v = -1;
	for (uint32_t i = 0; i < in->n_variants && i < PB_KMOD_MAX_VARIANTS; i++) {
		if (in->variants[i].op != PB_KOP_FPU)
			continue;
		if (!strcmp(in->variants[i].name, "ioctl_null"))
			null_v = (int)i;
		if (!strcmp(in->variants[i].name, "ioctl_fpu"))
			fpu_v = (int)i;
	}
	if (null_v < 0 || fpu_v < 0)
		return 0;
	size_t n = 0;
	const uint32_t ops[2] = {PB_KOP_CLEAR_PAGE, PB_KOP_COPY_PAGE};
	for (size_t o = 0; o < 2; o++) {
		/* the fastest non-FPU variant of the op at 4K hot */
		int rep = -1;
		double rep_t = NAN;
		for (uint32_t v = 0; v < in->n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
			if (in->variants[v].op != ops[o] || (in->variants[v].flags & PB_KVF_FPU))
				continue;
			double t = median_of(r, v, 0);
			if (isfinite(t) && (rep < 0 || t < rep_t)) {
				rep = (int)v;
				rep_t = t;
			}
		}
		if (rep < 0)
			continue;
		for (uint32_t u = 0; u < PB_KU_COUNT; u++) {
			double trip =
			    median_of(r, (uint32_t)fpu_v, u) - median_of(r, (uint32_t)null_v, u);
			if (!isfinite(trip))
				continue;
			for (size_t i = 0; i < r->n_cases; i++) {
				const struct pb_kernel_case *c = &r->cases[i];
				if (c->op != ops[o] || c->variant >= in->n_variants ||
				    !(in->variants[c->variant].flags & PB_KVF_FPU) ||
				    c->page_order != PB_KMOD_ORDER_4K || c->state != PB_KS_HOT ||
				    c->skipped || !c->n_samples || n >= max)
					continue;
				double simd = c->ticks_per_call.median;
				struct pb_kernel_breakeven *b = &out[n++];
				*b = (struct pb_kernel_breakeven){.op = ops[o],
				                                  .upper = u,
				                                  .simd = c->variant,
				                                  .rep = (uint32_t)rep,
				                                  .roundtrip_ticks = trip,
				                                  .simd_ticks_per_page = simd,
				                                  .rep_ticks_per_page = rep_t};
				snprintf(b->simd_name, sizeof b->simd_name, "%s", c->name);
				snprintf(b->rep_name, sizeof b->rep_name, "%s",
				         in->variants[rep].name);
				if (!(rep_t > simd)) {
					b->never = true;
					continue;
				}
				/* the smallest whole n >= 1 with trip + n simd < n rep:
				 * n > trip / (rep - simd) */
				double x = trip / (rep_t - simd);
				double k = x < 0 ? 1 : floor(x) + 1;
				if (k > 1e15) {
					b->never = true;
					continue;
				}
				b->pages = (uint64_t)(k < 1 ? 1 : k);
			}
		}
	}
	return n;
}

static json_t *breakeven_json(const struct pb_kernel_result *r)
{
	struct pb_kernel_breakeven b[2 * PB_KU_COUNT * PB_KMOD_MAX_VARIANTS];
	size_t n = pb_kernel_breakevens(r, b, sizeof b / sizeof *b);
	if (!n)
		return NULL;
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		const struct pb_json_member m[] = {
		    {"op", json_string(pb_kmod_op_name(b[i].op))},
		    {"upper_state", json_string(pb_kernel_upper_name(b[i].upper))},
		    {"simd_variant", json_string(b[i].simd_name)},
		    {"rep_variant", json_string(b[i].rep_name)},
		    {"roundtrip_ticks", pb_json_number(b[i].roundtrip_ticks)},
		    {"simd_ticks_per_page", pb_json_number(b[i].simd_ticks_per_page)},
		    {"rep_ticks_per_page", pb_json_number(b[i].rep_ticks_per_page)},
		    {"pages", b[i].never ? json_null() : json_integer((json_int_t)b[i].pages)},
		    {"bytes",
		     b[i].never ? json_null() : json_integer((json_int_t)(b[i].pages * 4096))}};
		pb_json_set_members(o, m, sizeof m / sizeof *m);
		json_array_append_new(a, o);
	}
	return a;
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
	if (f & PB_KVF_CALL)
		json_array_append_new(a, json_string("call"));
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
		json_object_set_new(
		    o, "op", json_string(pb_kmod_op_name(v->op) ? pb_kmod_op_name(v->op) : "?"));
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
		json_object_set_new(
		    o, "op", json_string(pb_kmod_op_name(k->op) ? pb_kmod_op_name(k->op) : "?"));
		if (k->op == PB_KOP_USER_COPY)
			json_object_set_new(o, "size_bytes",
			                    json_integer((json_int_t)k->size_bytes));
		else
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
	const struct pb_json_member lim[] = {
	    {"max_calls_bytes", json_integer(in->max_calls_bytes)},
	    {"max_batches", json_integer(in->max_batches)},
	    {"max_request_ms", json_integer(in->max_request_ms)},
	    {"max_user_bytes", json_integer((json_int_t)in->max_user_bytes)}};
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
	json_t *be = breakeven_json(r);
	if (be)
		json_object_set_new(k, "breakeven", be);
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
		json_object_set_new(key, "op", json_string(pb_kmod_op_name(c->op)));
		json_object_set_new(key, "variant", json_string(c->name));
		if (c->op == PB_KOP_CLEAR_PAGE || c->op == PB_KOP_COPY_PAGE)
			json_object_set_new(key, "page_bytes", json_integer(c->page_bytes));
		if (c->op == PB_KOP_USER_COPY)
			json_object_set_new(key, "size_bytes",
			                    json_integer((json_int_t)c->size_bytes));
		if (c->op == PB_KOP_FPU)
			json_object_set_new(key, "upper_state",
			                    json_string(pb_kernel_upper_name(c->upper)));
		else
			json_object_set_new(key, "cache_state",
			                    json_string(pb_kmod_state_name(c->state)));
		if (c->irqs_off)
			json_object_set_new(key, "irqs_off", json_true());
		json_object_set_new(o, "key", key);
		/* one call: a page of page_bytes, a begin/end pair (kernel) or an
		 * ioctl (user), a copy of size_bytes */
		json_t *reps = pb_json_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates);
		if (reps)
			json_object_set_new(o, "replicates", reps);
		pb_json_add_samples(o, c->batch_ticks, c->batch_calls, c->n_samples,
		                    &c->ticks_per_call);
		if (c->op == PB_KOP_FPU) {
			json_object_set_new(o, "timed_from",
			                    json_string(c->user_timed ? "user" : "kernel"));
			if (c->user_timed) /* a CALL loop's ticks as read */
				json_object_set_new(o, "overhead_subtracted", json_false());
		}
		/* the module's rdtsc_ordered() or primbench's rdtsc, whatever the
		 * user-side timer is */
		json_object_set_new(o, "unit", json_string("tsc_ticks"));
		if (c->n_samples) {
			double med = c->ticks_per_call.median;
			json_t *dv = json_object();
			json_object_set_new(dv, "ns_per_call",
			                    pb_json_number(pb_kernel_ns(med, khz)));
			if (c->op == PB_KOP_CLEAR_PAGE || c->op == PB_KOP_COPY_PAGE) {
				json_object_set_new(
				    dv, "ticks_per_page",
				    pb_json_number(pb_kernel_ticks_per_4k(med, c->page_bytes)));
				json_object_set_new(
				    dv, "gb_per_s",
				    pb_json_number(pb_kernel_gb_per_s(med, c->page_bytes, khz)));
			}
			if (c->op == PB_KOP_USER_COPY)
				json_object_set_new(dv, "gb_per_s",
				                    pb_json_number(pb_kernel_copy_gb_per_s(
				                        med, c->size_bytes, khz)));
			json_object_set_new(o, "median_derived", dv);
		}
		pb_results_append_case(cases, o, NULL, c->migrations, c->outliers);
	}
	if (pb_results_add_notes(notes, "kernel: ",
	                         "figures are TSC ticks (reference cycles at the TSC's constant "
	                         "rate, read in the kernel by rdtsc_ordered; fpu's ioctl_null and "
	                         "ioctl_fpu by primbench, lfence; rdtsc; lfence), not core "
	                         "cycles\n") != 0)
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
