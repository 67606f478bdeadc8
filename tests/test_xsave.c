/* test_xsave.c - the xsave suite's plumbing, never its speed: leaf 0xD and
 * XCR0 parsing (synthetic values), area sizes, variant reasons, a save and
 * restore round trip of a register, the replicates of the pairs, the
 * break-even rule (breakeven.h), the pair it adds and the sweep. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/breakeven.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/timer.h"
#include "primbench/xsave.h"

#define NVAR (PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT)

/* A Skylake-SP-like CPU: x87, SSE, AVX, AVX-512 (opmask, ZMM_Hi256,
 * Hi16_ZMM) and PKRU enabled; xsaveopt, xsavec, xsaves. Standard offsets
 * as the SDM lists them; AMX offered by the CPU as on Sapphire Rapids. */
static void skx_raw(struct pb_xsave_raw *r, uint64_t xcr0)
{
	memset(r, 0, sizeof *r);
	r->max_leaf = 0x1f;
	r->leaf1_ecx = 1u << 26 | 1u << 27 | 1u << 28; /* XSAVE, OSXSAVE, AVX */
	r->leaf1_edx = 1u << 24;                       /* FXSR */
	r->xcr0 = xcr0;
	r->d0_eax = 0x602e7; /* supported: + AMX XTILECFG/XTILEDATA */
	r->d0_ebx = 2696;
	r->d0_ecx = 11008;
	r->d1_eax = 0xf; /* xsaveopt, xsavec, xgetbv1, xsaves */
	r->d1_ebx = 2440;
	struct {
		unsigned bit;
		uint32_t size, offset, flags;
	} c[] = {{2, 256, 576, 0}, {5, 64, 1088, 0},  {6, 512, 1152, 0},  {7, 1024, 1664, 0},
	         {9, 8, 2688, 0},  {17, 64, 2752, 0}, {18, 8192, 2816, 2}};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		r->sub_eax[c[i].bit] = c[i].size;
		r->sub_ebx[c[i].bit] = c[i].offset;
		r->sub_ecx[c[i].bit] = c[i].flags;
	}
}

static void test_parse_avx512(void **state)
{
	(void)state;
	struct pb_xsave_raw raw;
	struct pb_xsave_info in;
	skx_raw(&raw, 0x2e7);
	pb_xsave_parse(&raw, &in);
	assert_true(in.fxsr && in.xsave && in.osxsave && in.xsaveopt && in.xsavec && in.xsaves);
	assert_true(in.avx && in.avx512);
	assert_int_equal(in.xcr0, 0x2e7);
	assert_int_equal(in.rfbm, 0x2e7);
	assert_false(in.amx_data_excluded);
	assert_int_equal(in.size_xcr0, 2696);
	assert_int_equal(in.size_standard, 2696); /* PKRU ends at 2688 + 8 */
	assert_int_equal(in.size_compacted, 576 + 256 + 64 + 512 + 1024 + 8);
	char list[256];
	pb_xsave_format_mask(in.xcr0, list, sizeof list);
	assert_string_equal(list, "x87, SSE, AVX, AVX-512 opmask, ZMM_Hi256, Hi16_ZMM, PKRU");
}

static void test_parse_amx_permission(void **state)
{
	(void)state;
	struct pb_xsave_raw raw;
	struct pb_xsave_info in;
	uint64_t xcr0 = 0x602e7;
	skx_raw(&raw, xcr0);
	pb_xsave_parse(&raw, &in);
	/* No permission: XTILEDATA is dropped from the rfbm, XTILECFG kept. */
	assert_true(in.amx_data_excluded);
	assert_int_equal(in.rfbm, xcr0 & ~(1ull << PB_XS_XTILEDATA));
	assert_int_equal(in.size_standard, 2752 + 64);
	/* Permitted: everything in XCR0; the compacted XTILEDATA is 64-aligned. */
	raw.xcomp_perm = xcr0;
	pb_xsave_parse(&raw, &in);
	assert_false(in.amx_data_excluded);
	assert_int_equal(in.rfbm, xcr0);
	assert_int_equal(in.size_standard, 2816 + 8192);
	uint32_t c = 576 + 256 + 64 + 512 + 1024 + 8 + 64;
	c = (c + 63) & ~63u;
	assert_int_equal(in.size_compacted, c + 8192);
	char list[256];
	pb_xsave_format_mask(1ull << 17 | 1ull << 18 | 1ull << 40, list, sizeof list);
	assert_string_equal(list, "AMX XTILECFG, AMX XTILEDATA, component 40");
}

static void test_parse_sse_only(void **state)
{
	(void)state;
	struct pb_xsave_raw raw;
	struct pb_xsave_info in;
	skx_raw(&raw, 0x3);
	raw.leaf1_ecx &= ~(1u << 28); /* no AVX */
	pb_xsave_parse(&raw, &in);
	assert_false(in.avx);
	assert_false(in.avx512);
	assert_int_equal(in.size_standard, 576);
	assert_int_equal(pb_xsave_area_bytes(&in, PB_XS_XSAVE), 576);
	assert_int_equal(pb_xsave_area_bytes(&in, PB_XS_FXSAVE), 512);
	/* Without OSXSAVE nothing of leaf 0xD or XCR0 is taken. */
	raw.leaf1_ecx &= ~(1u << 27);
	pb_xsave_parse(&raw, &in);
	assert_true(in.xsave);
	assert_false(in.osxsave);
	assert_int_equal(in.xcr0, 0);
	assert_int_equal(pb_xsave_area_bytes(&in, PB_XS_XSAVE), 0);
}

static void test_variant_reasons(void **state)
{
	(void)state;
	struct pb_xsave_raw raw;
	struct pb_xsave_info in;
	struct pb_xsave_variant v[NVAR];
	skx_raw(&raw, 0x2e7);
	pb_xsave_parse(&raw, &in);
	pb_xsave_variants(&in, true, NULL, v);
	for (int i = 0; i < NVAR; i++) {
		assert_int_equal(v[i].insn, i / PB_XS_UPPER_COUNT);
		assert_int_equal(v[i].upper, i % PB_XS_UPPER_COUNT);
		if (v[i].insn == PB_XS_XSAVES) {
			assert_false(v[i].available);
			assert_string_equal(v[i].reason, "kernel-only (CPL 0)");
		} else {
			assert_true(v[i].available);
			assert_string_equal(v[i].reason, "");
		}
	}
	/* No xsavec, no AVX: those variants say why. */
	raw.d1_eax = 1;
	raw.leaf1_ecx &= ~(1u << 28);
	pb_xsave_parse(&raw, &in);
	pb_xsave_variants(&in, true, NULL, v);
	const struct pb_xsave_variant *c = &v[PB_XS_XSAVEC * PB_XS_UPPER_COUNT + PB_XS_CLEAN];
	assert_false(c->available);
	assert_non_null(strstr(c->reason, "xsavec"));
	const struct pb_xsave_variant *d = &v[PB_XS_XSAVE * PB_XS_UPPER_COUNT + PB_XS_DIRTY];
	assert_false(d->available);
	assert_non_null(strstr(d->reason, "AVX"));
	assert_true(v[PB_XS_XSAVE * PB_XS_UPPER_COUNT + PB_XS_CLEAN].available);
	assert_non_null(strstr(v[PB_XS_XSAVES * 2].reason, "not on this CPU"));
	/* Another architecture: every variant, with the given reason. */
	pb_xsave_variants(&in, false, "x86-64 only", v);
	for (int i = 0; i < NVAR; i++) {
		assert_false(v[i].available);
		assert_string_equal(v[i].reason, "x86-64 only");
	}
	/* Notes: one line for both xsaves variants. */
	struct pb_xsave_result r;
	memset(&r, 0, sizeof r);
	pb_xsave_parse(&raw, &r.info);
	skx_raw(&raw, 0x2e7);
	pb_xsave_parse(&raw, &in);
	pb_xsave_variants(&in, true, NULL, v);
	for (int i = 0; i < NVAR; i++)
		r.cases[r.n_cases++].v = v[i];
	pb_xsave_notes(&r);
	assert_string_equal(r.notes, "xsaves64/xrstors64 not run: kernel-only (CPL 0)\n");
}

/* This machine's figures: sane whatever the CPU. */
static void test_detect_sizes(void **state)
{
	(void)state;
	struct pb_xsave_info in;
	pb_xsave_detect(&in);
	const char *why;
	if (!pb_xsave_arch_supported(&why) || !in.osxsave) {
		assert_int_equal(in.rfbm, 0);
		return;
	}
	assert_true((in.xcr0 & 3) == 3); /* x87 and SSE are always enabled */
	assert_int_equal(in.rfbm & ~in.xcr0, 0);
	for (int i = PB_XS_FXSAVE; i <= PB_XS_XSAVES; i++) {
		uint32_t b = pb_xsave_area_bytes(&in, (enum pb_xsave_insn)i);
		assert_int_equal(b % 64, 0);
		assert_true(b >= 512);
	}
	assert_true(in.size_standard >= 576);
	assert_true(in.size_xcr0 >= in.size_standard);
	assert_true(in.size_compacted <= in.size_standard);
	if (in.avx) {
		assert_true(in.size_standard >= 576 + 256);
		assert_true(pb_xsave_area_bytes(&in, PB_XS_XSAVE) >= 576);
	}
}

static void test_roundtrip(void **state)
{
	(void)state;
	const char *why;
	if (!pb_xsave_arch_supported(&why)) {
		assert_int_equal(pb_xsave_roundtrip_check(PB_XS_XSAVE), -1);
		skip();
	}
	struct pb_xsave_info in;
	struct pb_xsave_variant v[NVAR];
	pb_xsave_detect(&in);
	pb_xsave_variants(&in, true, NULL, v);
	for (int i = PB_XS_FXSAVE; i < PB_XS_XSAVES; i++) {
		int rc = pb_xsave_roundtrip_check((enum pb_xsave_insn)i);
		if (v[i * PB_XS_UPPER_COUNT].available) {
			if (rc != 0)
				fail_msg("%s", pb_error());
		} else {
			assert_int_equal(rc, -1);
		}
	}
	assert_int_equal(pb_xsave_roundtrip_check(PB_XS_XSAVES), -1);
}

/* A tiny run: every available variant gets its samples, skipped ones none. */
static void test_run_plumbing(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	struct pb_xsave_params p = {
	    .budget_s = 0.001, .min_samples = 3, .max_samples = 3, .warmup_samples = 0, .seed = 7};
	struct pb_xsave_result r;
	assert_int_equal(pb_xsave_run(&p, &r), 0);
	assert_int_equal(r.n_cases, NVAR);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_xsave_case *c = &r.cases[i];
		if (c->v.available) {
			assert_int_equal(c->n_samples, 3);
			assert_true(c->batch_calls[0] >= 1);
			assert_true(c->ticks_per_op.median >= 0);
		} else {
			assert_int_equal(c->n_samples, 0);
			assert_true(c->v.reason[0] != '\0');
		}
	}
	pb_xsave_result_free(&r);
}

static void test_breakeven(void **state)
{
	(void)state;
	/*            256  512  1K   2K   4K   8K */
	double simd[] = {5, 8, 12, 20, 40, 80};
	double rep[] = {20, 24, 30, 34, 60, 130};
	/* pair 10: holds at 256 (15 < 20), 512 (18 < 24), 1K, 2K (30 < 34), 4K, 8K */
	assert_int_equal(pb_xsave_breakeven(simd, rep, 6, 10), 0);
	/* pair 15: fails at 2K (35 >= 34): from 4K up */
	assert_int_equal(pb_xsave_breakeven(simd, rep, 6, 15), 4);
	/* pair 60: only 8K (140 >= 130 fails): never */
	assert_int_equal(pb_xsave_breakeven(simd, rep, 6, 60), -1);
	/* pair 45: 8K holds (125 < 130), 4K not: from 8K */
	assert_int_equal(pb_xsave_breakeven(simd, rep, 6, 45), 5);
	/* equal is not faster */
	double s2[] = {10}, r2[] = {20};
	assert_int_equal(pb_xsave_breakeven(s2, r2, 1, 10), -1);
	/* a missing median breaks the run of sizes */
	double s3[] = {1, NAN, 1}, r3[] = {100, 100, 100};
	assert_int_equal(pb_xsave_breakeven(s3, r3, 3, 1), 2);
	assert_int_equal(pb_xsave_breakeven(s3, r3, 0, 1), -1);
	assert_int_equal(pb_xsave_breakeven(s2, r2, 1, NAN), -1);
}

/* pb_xsave_largest_lead: where rep - simd is largest, both measured. */
static void test_largest_lead(void **state)
{
	(void)state;
	double simd[] = {5, 8, NAN, 20}, rep[] = {6, 15, 100, 26};
	assert_int_equal(pb_xsave_largest_lead(simd, rep, 4), 1); /* 7; NaN skipped */
	double s2[] = {NAN}, r2[] = {1};
	assert_int_equal(pb_xsave_largest_lead(s2, r2, 1), -1);
	assert_int_equal(pb_xsave_largest_lead(simd, rep, 0), -1);
}

/* pb_xsave_cheapest_dirty_pair: the dirty xsave-family pair with the
 * lowest median; fxsave, clean ones and unmeasured ones never. */
static void test_cheapest_dirty_pair(void **state)
{
	(void)state;
	struct pb_xsave_result r = {.n_cases = 4};
	r.cases[0] = (struct pb_xsave_case){
	    .v = {.insn = PB_XS_FXSAVE, .upper = PB_XS_DIRTY, .available = true}, .n_samples = 3};
	r.cases[0].ticks_per_op.median = 10;
	r.cases[1] = (struct pb_xsave_case){
	    .v = {.insn = PB_XS_XSAVE, .upper = PB_XS_CLEAN, .available = true}, .n_samples = 3};
	r.cases[1].ticks_per_op.median = 20;
	r.cases[2] = (struct pb_xsave_case){
	    .v = {.insn = PB_XS_XSAVE, .upper = PB_XS_DIRTY, .available = true}, .n_samples = 3};
	r.cases[2].ticks_per_op.median = 90;
	r.cases[3] = (struct pb_xsave_case){
	    .v = {.insn = PB_XS_XSAVEC, .upper = PB_XS_DIRTY, .available = true}, .n_samples = 3};
	r.cases[3].ticks_per_op.median = 80;
	assert_ptr_equal(pb_xsave_cheapest_dirty_pair(&r), &r.cases[3]);
	r.cases[3].n_samples = 0;
	assert_ptr_equal(pb_xsave_cheapest_dirty_pair(&r), &r.cases[2]);
	r.cases[2].v.available = false;
	assert_null(pb_xsave_cheapest_dirty_pair(&r));
}

/* pb_xsave_run_replicates: R runs of every available variant, the
 * samples shared out; skipped variants none. */
static void test_run_replicates(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	struct pb_xsave_params p = {
	    .budget_s = 0.002, .min_samples = 3, .max_samples = 6, .warmup_samples = 0, .seed = 7};
	struct pb_xsave_result r;
	assert_int_equal(pb_xsave_run_replicates(&p, 2, &r), 0);
	assert_int_equal(r.n_cases, NVAR);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_xsave_case *c = &r.cases[i];
		if (!c->v.available) {
			assert_int_equal(c->n_samples, 0);
			continue;
		}
		assert_int_equal(c->n_replicates, 2);
		assert_int_equal(c->replicate_samples[0], 3);
		assert_int_equal(c->n_samples, 6);
	}
	pb_xsave_result_free(&r);
	/* a stop: one replicate, kept */
	volatile sig_atomic_t stop = 1;
	p.stop = &stop;
	assert_int_equal(pb_xsave_run_replicates(&p, 3, &r), 0);
	for (size_t i = 0; i < r.n_cases; i++)
		assert_true(r.cases[i].n_replicates <= 1);
	pb_xsave_result_free(&r);
}

/* pb_xsave_simd_kernels and pb_xsave_sweep_run: the vector kernels widest
 * first and glibc's rep kernel; a tiny sweep's reduction, its verdict
 * (none with a pair of NaN ticks, then how close it came), and a stop:
 * no verdict. Whatever this ISA has (no rep kernel: nothing measured). */
static void test_sweep(void **state)
{
	(void)state;
	assert_int_equal(pb_timer_init(), 0);
	const struct pb_kernel *ks[PB_XSAVE_MAX_SIMD], *rep;
	size_t nk = pb_xsave_simd_kernels(PB_OP_MEMSET, ks, &rep);
	for (size_t i = 0; i < nk; i++) {
		assert_int_equal(ks[i]->store, PB_STORE_VECTOR);
		assert_true(i == 0 || ks[i]->vector_bytes <= ks[i - 1]->vector_bytes);
	}
	if (rep)
		assert_int_equal(rep->glibc, PB_GLIBC_PATH_REP);
	struct pb_cache_info caches = {.line_bytes = 64};
	caches.level[PB_CACHE_L1D].size_bytes = 32 << 10;
	caches.level[PB_CACHE_L2].size_bytes = 1 << 20;
	caches.level[PB_CACHE_LLC].size_bytes = 1 << 20;
	const uint64_t sizes[] = {256, 512};
	volatile sig_atomic_t stop = 0;
	struct pb_xsave_sweep_params p = {.op = PB_OP_MEMSET,
	                                  .sizes_bytes = sizes,
	                                  .n_sizes = 2,
	                                  .pair_ticks = NAN,
	                                  .caches = &caches,
	                                  .budget_s = 0.002,
	                                  .min_samples = 3,
	                                  .max_samples = 6,
	                                  .replicates = 2,
	                                  .seed = 3,
	                                  .stop = &stop};
	struct pb_xsave_sweep sw;
	assert_int_equal(pb_xsave_sweep_run(&p, &sw), 0);
	assert_int_equal(sw.n_simd, nk);
	assert_ptr_equal(sw.rep, rep);
	if (!nk || !rep) {
		assert_int_equal(sw.result.n_cases, 0);
		pb_xsave_sweep_free(&sw);
		return;
	}
	assert_int_equal(sw.result.n_cases, 2 * (nk + 1));
	assert_int_equal(sw.n, 2);
	assert_false(sw.interrupted);
	assert_int_equal(sw.at, -1); /* a pair of NaN ticks never holds */
	assert_true(sw.lead == 0 || sw.lead == 1);
	for (size_t z = 0; z < 2; z++) {
		assert_true(sw.simd_ticks[z] > 0 && sw.rep_ticks[z] > 0);
		assert_int_equal(sw.simd_kernel[z]->store, PB_STORE_VECTOR);
	}
	pb_xsave_sweep_free(&sw);
	stop = 1;
	assert_int_equal(pb_xsave_sweep_run(&p, &sw), 0);
	assert_true(sw.interrupted);
	assert_int_equal(sw.at, -1);
	assert_int_equal(sw.lead, -1);
	pb_xsave_sweep_free(&sw);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(pb_xsave_insn_name(PB_XS_FXSAVE), "fxsave64/fxrstor64");
	assert_string_equal(pb_xsave_insn_name(PB_XS_XSAVEC), "xsavec64/xrstor64");
	assert_string_equal(pb_xsave_upper_name(PB_XS_DIRTY), "dirty");
	assert_string_equal(pb_xsave_component_name(PB_XS_HI16_ZMM), "Hi16_ZMM");
	assert_string_equal(pb_xsave_component_name(63), "component 63");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_parse_avx512),
	    cmocka_unit_test(test_parse_amx_permission),
	    cmocka_unit_test(test_parse_sse_only),
	    cmocka_unit_test(test_variant_reasons),
	    cmocka_unit_test(test_detect_sizes),
	    cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_run_plumbing),
	    cmocka_unit_test(test_breakeven),
	    cmocka_unit_test(test_largest_lead),
	    cmocka_unit_test(test_cheapest_dirty_pair),
	    cmocka_unit_test(test_run_replicates),
	    cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
