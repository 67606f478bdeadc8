/* xsave_write.c - the xsave suite's names, and its cases in a result
 * document (include/primbench/xsave_result.h; docs/results-schema.md, "An
 * xsave case": the same samples/per_call layout as the mem cases in
 * src/results/json.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/timer.h"
#include "primbench/xsave_result.h"

static const char *const insn_names[PB_XS_INSN_COUNT] = {
    "fxsave64/fxrstor64", "xsave64/xrstor64",   "xsaveopt64/xrstor64",
    "xsavec64/xrstor64",  "xsaves64/xrstors64",
};

const char *pb_xsave_insn_name(enum pb_xsave_insn i)
{
	return (unsigned)i < PB_XS_INSN_COUNT ? insn_names[i] : "?";
}

const char *pb_xsave_upper_name(enum pb_xsave_upper u)
{
	return u == PB_XS_CLEAN ? "clean" : u == PB_XS_DIRTY ? "dirty" : "?";
}

/* Intel SDM Vol. 1 13.1 (and 13.5 for the supervisor ones). */
static const char *const comp_names[] = {
    "x87",           "SSE",      "AVX",   "MPX BNDREGS", "MPX BNDCSR", "AVX-512 opmask",
    "ZMM_Hi256",     "Hi16_ZMM", "PT",    "PKRU",        "PASID",      "CET_U",
    "CET_S",         "HDC",      "UINTR", "LBR",         "HWP",        "AMX XTILECFG",
    "AMX XTILEDATA", "APX",
};

const char *pb_xsave_component_name(unsigned bit)
{
	static _Thread_local char buf[24];
	if (bit < sizeof comp_names / sizeof comp_names[0])
		return comp_names[bit];
	snprintf(buf, sizeof buf, "component %u", bit);
	return buf;
}

static json_t *mask_json(uint64_t mask)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < 64; i++)
		if (mask >> i & 1)
			json_array_append_new(a, json_string(pb_xsave_component_name(i)));
	return a;
}

static json_t *hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

int pb_results_add_xsave(struct pb_results_doc *rdoc, const struct pb_xsave_result *r)
{
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	const struct pb_xsave_info *in = &r->info;
	json_t *has = json_object();
	const struct pb_json_member flags[] = {
	    {"fxsr", json_boolean(in->fxsr)},       {"xsave", json_boolean(in->xsave)},
	    {"osxsave", json_boolean(in->osxsave)}, {"xsaveopt", json_boolean(in->xsaveopt)},
	    {"xsavec", json_boolean(in->xsavec)},   {"xsaves", json_boolean(in->xsaves)}};
	pb_json_set_members(has, flags, sizeof flags / sizeof *flags);
	json_t *x = json_object();
	const struct pb_json_member info[] = {
	    {"xcr0", hex(in->xcr0)},
	    {"xcr0_components", mask_json(in->xcr0)},
	    {"rfbm", hex(in->rfbm)},
	    {"amx_tiledata_excluded", json_boolean(in->amx_data_excluded)},
	    {"size_xcr0_bytes", json_integer(in->size_xcr0)},
	    {"size_standard_bytes", json_integer(in->size_standard)},
	    {"size_compacted_bytes", json_integer(in->size_compacted)},
	    {"size_xss_compacted_bytes", json_integer(in->size_xss)},
	    {"cpu", has}};
	pb_json_set_members(x, info, sizeof info / sizeof *info);
	json_object_set_new(doc, "xsave", x);

	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_xsave_case *c = &r->cases[i];
		if (!c->v.available)
			continue;
		json_t *o = json_object();
		json_t *key = pb_results_key("xsave");
		json_object_set_new(key, "instruction", json_string(pb_xsave_insn_name(c->v.insn)));
		json_object_set_new(key, "upper_state",
		                    json_string(pb_xsave_upper_name(c->v.upper)));
		json_object_set_new(o, "key", key);
		json_object_set_new(o, "rfbm", hex(c->rfbm));
		json_object_set_new(o, "area_bytes", json_integer(c->area_bytes));
		/* one call = one op = one save + one restore */
		json_t *reps = pb_json_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates);
		if (reps)
			json_object_set_new(o, "replicates", reps);
		pb_json_add_samples(o, c->batch_ticks, c->batch_calls, c->n_samples,
		                    &c->ticks_per_op);
		if (c->n_samples) {
			json_t *dv = json_object();
			json_object_set_new(dv, "ns_per_call",
			                    pb_json_number(pb_ticks_to_ns(c->ticks_per_op.median)));
			json_object_set_new(o, "median_derived", dv);
		}
		pb_results_append_case(cases, o, NULL, c->migrations, c->outliers);
	}
	return pb_results_add_notes(notes, "xsave: ", r->notes);
}
