/* xsave.c - the portable half of the xsave suite: names, parsing of cpuid
 * leaf 0xD and XCR0, the variant list, the replicates of the pairs and the
 * break-even sweep, its line decided by the analysis module
 * (src/analysis/xsave_breakeven.c) (include/primbench/xsave.h). The instructions themselves are in
 * src/suites/x86_64/xsave.c (src/suites/none/xsave.c elsewhere). */
#include "primbench/xsave.h"

#include "primbench/breakeven.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/mem.h"
#include "primbench/replicates.h"
#include "primbench/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pb_xsave_format_mask(uint64_t mask, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < 64 && len; i++) {
		if (!(mask >> i & 1))
			continue;
		int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
		                 pb_xsave_component_name(i));
		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
}

#define LEGACY_AND_HEADER 576u /* 512-byte legacy region + 64-byte header */

void pb_xsave_parse(const struct pb_xsave_raw *raw, struct pb_xsave_info *out)
{
	memset(out, 0, sizeof *out);
	if (raw->max_leaf < 1)
		return;
	out->fxsr = raw->leaf1_edx >> 24 & 1;
	out->xsave = raw->leaf1_ecx >> 26 & 1;
	out->osxsave = out->xsave && (raw->leaf1_ecx >> 27 & 1);
	if (!out->osxsave || raw->max_leaf < 0xD)
		return;
	out->xcr0 = raw->xcr0;
	out->xsaveopt = raw->d1_eax & 1;
	out->xsavec = raw->d1_eax >> 1 & 1;
	out->xsaves = raw->d1_eax >> 3 & 1;
	out->avx = (raw->leaf1_ecx >> 28 & 1) && (out->xcr0 & 6) == 6;
	out->avx512 = out->avx && (out->xcr0 & 0xe0) == 0xe0;
	out->size_xcr0 = raw->d0_ebx;
	out->size_all = raw->d0_ecx;
	out->size_xss = raw->d1_ebx;

	uint64_t rfbm = out->xcr0;
	uint64_t amx_data = 1ull << PB_XS_XTILEDATA;
	if ((rfbm & amx_data) && !(raw->xcomp_perm & amx_data)) {
		rfbm &= ~amx_data;
		out->amx_data_excluded = true;
	}
	out->rfbm = rfbm;

	out->comp_size[PB_XS_X87] = 160; /* legacy region: FCW..ST7 */
	out->comp_offset[PB_XS_X87] = 0;
	out->comp_size[PB_XS_SSE] = 256; /* XMM0-15 at 160 (MXCSR at 24) */
	out->comp_offset[PB_XS_SSE] = 160;
	uint32_t standard = LEGACY_AND_HEADER, compacted = LEGACY_AND_HEADER;
	for (unsigned i = 2; i < PB_XS_MAX_COMPONENTS; i++) {
		out->comp_size[i] = raw->sub_eax[i];
		out->comp_offset[i] = raw->sub_ebx[i];
		if (!(rfbm >> i & 1))
			continue;
		uint32_t end = raw->sub_ebx[i] + raw->sub_eax[i];
		if (end > standard)
			standard = end;
		if (raw->sub_ecx[i] & 2)
			compacted = (compacted + 63) & ~63u;
		compacted += raw->sub_eax[i];
	}
	out->size_standard = standard;
	out->size_compacted = compacted;
}

void pb_xsave_detect(struct pb_xsave_info *out)
{
	struct pb_xsave_raw raw;
	pb_xsave_raw_read(&raw);
	pb_xsave_parse(&raw, out);
}

uint32_t pb_xsave_area_bytes(const struct pb_xsave_info *info, enum pb_xsave_insn insn)
{
	uint32_t n = 0;
	switch (insn) {
	case PB_XS_FXSAVE:
		n = info->fxsr ? 512 : 0;
		break;
	case PB_XS_XSAVE:
	case PB_XS_XSAVEOPT:
		n = info->osxsave ? info->size_standard : 0;
		break;
	case PB_XS_XSAVEC:
	case PB_XS_XSAVES:
		n = info->osxsave ? info->size_compacted : 0;
		break;
	default:
		return 0;
	}
	return (n + 63) & ~63u;
}

void pb_xsave_variants(const struct pb_xsave_info *info, bool arch_ok, const char *arch_reason,
                       struct pb_xsave_variant *out)
{
	for (int i = 0; i < PB_XS_INSN_COUNT; i++)
		for (int u = 0; u < PB_XS_UPPER_COUNT; u++) {
			struct pb_xsave_variant *v = &out[i * PB_XS_UPPER_COUNT + u];
			v->insn = (enum pb_xsave_insn)i;
			v->upper = (enum pb_xsave_upper)u;
			v->available = false;
			const char *why = NULL;
			if (!arch_ok)
				why = arch_reason ? arch_reason : "not an x86-64 build";
			else if (i == PB_XS_XSAVES)
				why = info->xsaves ? "kernel-only (CPL 0)"
				                   : "kernel-only (CPL 0); not on this CPU either";
			else if (i == PB_XS_FXSAVE && !info->fxsr)
				why = "no fxsave on this CPU (cpuid 1:EDX.FXSR)";
			else if (i != PB_XS_FXSAVE && !info->xsave)
				why = "no xsave on this CPU (cpuid 1:ECX.XSAVE)";
			else if (i != PB_XS_FXSAVE && !info->osxsave)
				why = "xsave not enabled by the OS (cpuid 1:ECX.OSXSAVE)";
			else if (i == PB_XS_XSAVEOPT && !info->xsaveopt)
				why = "no xsaveopt on this CPU (cpuid 0xD.1:EAX[0])";
			else if (i == PB_XS_XSAVEC && !info->xsavec)
				why = "no xsavec on this CPU (cpuid 0xD.1:EAX[1])";
			else if (u == PB_XS_DIRTY && !info->avx)
				why = "no AVX state to dirty (cpuid 1:ECX.AVX, XCR0 bit 2)";
			if (why)
				snprintf(v->reason, sizeof v->reason, "%s", why);
			else
				v->available = true, v->reason[0] = '\0';
		}
}

void pb_xsave_result_free(struct pb_xsave_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		free(r->cases[i].batch_ticks);
		free(r->cases[i].batch_calls);
		free(r->cases[i].replicate_samples);
		r->cases[i].batch_ticks = NULL;
		r->cases[i].batch_calls = NULL;
		r->cases[i].replicate_samples = NULL;
		r->cases[i].n_replicates = 0;
	}
}

static int first_replicate(struct pb_xsave_case *c)
{
	c->replicate_samples = malloc(sizeof *c->replicate_samples);
	if (!c->replicate_samples)
		return pb_fail("out of memory");
	c->replicate_samples[0] = c->n_samples;
	c->n_replicates = 1;
	return 0;
}

/* o's samples as one more replicate of c (o keeps its arrays). */
static int join_replicate(struct pb_xsave_case *c, const struct pb_xsave_case *o)
{
	if (pb_replicate_join(&c->batch_ticks, &c->batch_calls, c->n_samples, &c->replicate_samples,
	                      &c->n_replicates, o->batch_ticks, o->batch_calls, o->n_samples) != 0)
		return -1;
	c->n_samples += o->n_samples;
	c->outliers += o->outliers;
	c->migrations += o->migrations;
	return 0;
}

int pb_xsave_result_add_replicate(struct pb_xsave_result *acc, struct pb_xsave_result *more)
{
	int rc = 0;
	if (acc->n_cases == 0) {
		*acc = *more;
		memset(more, 0, sizeof *more);
		for (size_t i = 0; i < acc->n_cases && rc == 0; i++)
			rc = first_replicate(&acc->cases[i]);
		return rc;
	}
	for (size_t j = 0; j < more->n_cases && rc == 0; j++) {
		const struct pb_xsave_case *o = &more->cases[j];
		for (size_t i = 0; i < acc->n_cases; i++)
			if (acc->cases[i].v.insn == o->v.insn &&
			    acc->cases[i].v.upper == o->v.upper) {
				rc = join_replicate(&acc->cases[i], o);
				break;
			}
	}
	pb_notes_merge(acc->notes, sizeof acc->notes, more->notes);
	acc->interrupted |= more->interrupted;
	pb_xsave_result_free(more);
	memset(more, 0, sizeof *more);
	return rc;
}

int pb_xsave_result_end_replicates(struct pb_xsave_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		struct pb_xsave_case *c = &r->cases[i];
		if (c->n_samples == 0)
			continue;
		if (pb_summarize_batch_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates, 0.95,
		                                  &c->ticks_per_op) != 0)
			return -1;
	}
	return 0;
}

void pb_xsave_notes(struct pb_xsave_result *r)
{
	r->notes[0] = '\0';
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_xsave_case *c = &r->cases[i];
		if (c->v.available)
			continue;
		/* Both upper states skipped for one reason: one line. */
		const struct pb_xsave_case *twin = NULL;
		for (size_t j = 0; j < r->n_cases; j++)
			if (j != i && r->cases[j].v.insn == c->v.insn)
				twin = &r->cases[j];
		bool same = twin && !twin->v.available && !strcmp(twin->v.reason, c->v.reason);
		if (same && c->v.upper != PB_XS_CLEAN)
			continue;
		size_t used = strlen(r->notes);
		snprintf(r->notes + used, sizeof r->notes - used, "%s%s%s not run: %s\n",
		         pb_xsave_insn_name(c->v.insn), same ? "" : " ",
		         same ? "" : pb_xsave_upper_name(c->v.upper), c->v.reason);
	}
}

int pb_xsave_run_replicates(const struct pb_xsave_params *p, size_t replicates,
                            struct pb_xsave_result *out)
{
	size_t reps = replicates ? replicates : 1;
	struct pb_xsave_params xp = *p;
	xp.budget_s = p->budget_s / (double)reps;
	size_t per = p->max_samples / reps; /* their sum stays within max_samples */
	xp.max_samples = per > p->min_samples ? per : p->min_samples;
	memset(out, 0, sizeof *out);
	for (size_t rep = 0; rep < reps; rep++) {
		struct pb_xsave_result one;
		xp.seed = pb_replicate_seed(p->seed, rep);
		if (pb_xsave_run(&xp, &one) != 0 || pb_xsave_result_add_replicate(out, &one) != 0) {
			pb_xsave_result_free(out);
			return -1;
		}
		if (out->interrupted || (p->stop && *p->stop))
			break;
	}
	if (pb_xsave_result_end_replicates(out) != 0) {
		pb_xsave_result_free(out);
		return -1;
	}
	return 0;
}

const struct pb_xsave_case *pb_xsave_cheapest_dirty_pair(const struct pb_xsave_result *r)
{
	const struct pb_xsave_case *best = NULL;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_xsave_case *c = &r->cases[i];
		if (!c->v.available || c->v.upper != PB_XS_DIRTY || c->v.insn == PB_XS_FXSAVE ||
		    !c->n_samples)
			continue;
		if (!best || c->ticks_per_op.median < best->ticks_per_op.median)
			best = c;
	}
	return best;
}

size_t pb_xsave_simd_kernels(enum pb_op op, const struct pb_kernel **ks,
                             const struct pb_kernel **rep)
{
	size_t nt, nk = 0;
	const struct pb_kernel *t = pb_kernels(&nt);
	*rep = NULL;
	for (unsigned width = 64; width >= 16; width /= 2)
		for (size_t i = 0; i < nt && nk < PB_XSAVE_MAX_SIMD; i++)
			if (t[i].op == op && t[i].store == PB_STORE_VECTOR &&
			    t[i].vector_bytes == width &&
			    pb_kernel_usable(&t[i], pb_cpu_features(), NULL, 0))
				ks[nk++] = &t[i];
	for (size_t i = 0; i < nt && !*rep; i++)
		if (t[i].op == op && t[i].glibc == PB_GLIBC_PATH_REP && !t[i].glibc_note)
			*rep = &t[i];
	return nk;
}

void pb_xsave_sweep_free(struct pb_xsave_sweep *s)
{
	pb_mem_result_free(&s->result);
	free(s->simd_ticks);
	free(s->rep_ticks);
	free(s->simd_kernel);
	s->simd_ticks = s->rep_ticks = NULL;
	s->simd_kernel = NULL;
	s->n = 0;
}

/* The replicates of the sweep of ks[0..nk) at p's sizes into *out
 * (pb_mem_run_replicates, as mem runs them: fresh buffers and calibration
 * each, the figures then the replicates' geometric means). Returns 0 or
 * -1 with pb_error(). */
static int sweep_measure(const struct pb_xsave_sweep_params *sp, const struct pb_kernel **ks,
                         size_t nk, struct pb_mem_result *out)
{
	enum pb_cache_state hot = PB_STATE_HOT;
	struct pb_mem_params p =
	    pb_mem_params_make(sp->op, sp->caches, sp->budget_s, sp->seed, sp->stop);
	p.kernels = ks;
	p.n_kernels = nk;
	p.sizes_bytes = sp->sizes_bytes;
	p.n_sizes = sp->n_sizes;
	p.states = &hot;
	p.n_states = 1;
	p.min_samples = sp->min_samples;
	p.max_samples = sp->max_samples;
	const struct pb_mem_replicates rs = {.n = sp->replicates};
	return pb_mem_run_replicates(&p, &rs, out);
}

int pb_xsave_sweep_run(const struct pb_xsave_sweep_params *p, struct pb_xsave_sweep *out)
{
	*out = (struct pb_xsave_sweep){.at = -1, .lead = -1};
	const struct pb_kernel *ks[PB_XSAVE_MAX_SIMD + 1];
	out->n_simd = pb_xsave_simd_kernels(p->op, ks, &out->rep);
	if (!out->n_simd || !out->rep)
		return 0;
	ks[out->n_simd] = out->rep;
	if (sweep_measure(p, ks, out->n_simd + 1, &out->result) != 0)
		return -1;
	size_t n = p->n_sizes;
	out->simd_ticks = malloc((n ? n : 1) * sizeof *out->simd_ticks);
	out->rep_ticks = malloc((n ? n : 1) * sizeof *out->rep_ticks);
	out->simd_kernel = calloc(n ? n : 1, sizeof *out->simd_kernel);
	if (!out->simd_ticks || !out->rep_ticks || !out->simd_kernel)
		return pb_fail("out of memory");
	out->n = n;
	/* per size: the best SIMD median, and rep's */
	for (size_t z = 0; z < n; z++) {
		double *simd = &out->simd_ticks[z], *rep = &out->rep_ticks[z];
		*simd = *rep = NAN;
		for (size_t i = 0; i < out->result.n_cases; i++) {
			const struct pb_mem_case *c = &out->result.cases[i];
			if (c->size_bytes != p->sizes_bytes[z] || !c->n_samples)
				continue;
			double m = c->ticks_per_call.median;
			if (c->kernel == out->rep)
				*rep = m;
			else if (isnan(*simd) || m < *simd)
				*simd = m, out->simd_kernel[z] = c->kernel;
		}
	}
	out->interrupted = out->result.interrupted;
	/* A sweep cut short cannot say "never" nor "from": no verdict. */
	if (!out->interrupted)
		out->at = pb_xsave_breakeven(out->simd_ticks, out->rep_ticks, n, p->pair_ticks);
	if (out->at < 0 && !out->interrupted)
		out->lead = pb_xsave_largest_lead(out->simd_ticks, out->rep_ticks, n);
	return 0;
}
