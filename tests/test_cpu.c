/* test_cpu.c - feature names and hiding, cache sanity rules on synthetic
 * figures, override checks, detection invariants on this machine (whatever
 * it is), and the width of the machine text (summary and `info`).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpu/caches_internal.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/latency.h"
#include "primbench/machine.h"
#include "primbench/text.h"

#define GIB (PB_MIB * 1024)

/* Two feature names of this build's ISA (the feature enum is per ISA:
 * include/primbench/cpu.h). */
#if defined(__aarch64__)
#define FEAT_A      "mops"
#define FEAT_B      "dczva"
#define FEAT_A_BITS PB_F(MOPS)
#define FEAT_B_BITS PB_F(DCZVA)
#else
#define FEAT_A      "clzero"
#define FEAT_B      "movdir64b"
#define FEAT_A_BITS PB_F(CLZERO)
#define FEAT_B_BITS PB_F(MOVDIR64B)
#endif

static void test_feature_name_round_trip(void **state)
{
	(void)state;
	for (int i = 0; i < PB_FEAT_COUNT; i++) {
		const char *name = pb_feature_name((enum pb_feature)i);
		assert_non_null(name);
		assert_true(strlen(name) > 0);
		enum pb_feature f = PB_FEAT_COUNT;
		assert_int_equal(pb_feature_parse(name, &f), 0);
		assert_int_equal(f, i);
	}
#if defined(__aarch64__)
	assert_string_equal(pb_feature_name(PB_FEAT_ASIMD), "asimd");
	assert_string_equal(pb_feature_name(PB_FEAT_SVE), "sve");
#else
	assert_string_equal(pb_feature_name(PB_FEAT_INVARIANT_TSC), "invariant_tsc");
	assert_string_equal(pb_feature_name(PB_FEAT_AVX512F), "avx512f");
#endif
}

static void test_feature_parse_error_quotes_name(void **state)
{
	(void)state;
	enum pb_feature f;
	assert_int_equal(pb_feature_parse("avx3", &f), -1);
	assert_non_null(strstr(pb_error(), "unknown feature 'avx3'"));
	assert_int_equal(pb_feature_parse("", &f), -1);
	assert_int_equal(pb_feature_parse("AVX2x", &f), -1);
	assert_non_null(strstr(pb_error(), "'AVX2x'"));
}

static void test_hide_unknown_hides_nothing(void **state)
{
	(void)state;
	pb_features before = pb_cpu_features_hidden();
	assert_int_equal(pb_cpu_hide_features(FEAT_A ",avx3"), -1);
	assert_non_null(strstr(pb_error(), "unknown feature 'avx3'"));
	assert_int_equal(pb_cpu_features_hidden(), before); /* FEAT_A not hidden either */
}

static void test_hide_removes_feature(void **state)
{
	(void)state;
	pb_features det = pb_cpu_features_detected();
	assert_int_equal(pb_cpu_features() & ~det, 0); /* usable is a subset of detected */
	/* The set hidden before this test: PRIMBENCH_HIDE_FEATURES when a
	 * profile runs the tests (tests/CMakeLists.txt). */
	pb_features env_hid = pb_cpu_features_hidden();
	assert_int_equal(pb_cpu_hide_features(" " FEAT_A " , " FEAT_B ","), 0);
	pb_features hid = pb_cpu_features_hidden();
	assert_int_equal(hid, env_hid | FEAT_A_BITS | FEAT_B_BITS);
	assert_false(pb_cpu_features() & FEAT_A_BITS);
	assert_false(pb_cpu_features() & FEAT_B_BITS);
	/* Hiding changes the usable set, never the detected one. */
	assert_int_equal(pb_cpu_features_detected(), det);
	pb_features want = det & ~hid;
#if !defined(__aarch64__)
	if (!(want & PB_F(AVX512F)))
		want &= ~PB_F(AVX512BW);
#endif
	assert_int_equal(pb_cpu_features(), want);
#if !defined(__aarch64__)
	/* avx512bw goes with avx512f, unusable but not hidden. */
	assert_int_equal(pb_cpu_hide_features("avx512f"), 0);
	assert_false(pb_cpu_features() & PB_F(AVX512F));
	assert_false(pb_cpu_features() & PB_F(AVX512BW));
	assert_int_equal(pb_cpu_features_hidden(), hid | PB_F(AVX512F));
#endif
	hid = pb_cpu_features_hidden();
	assert_int_equal(pb_cpu_hide_features(""), 0);
	assert_int_equal(pb_cpu_features_hidden(), hid);
}

static void test_env_check_ok_without_variable(void **state)
{
	(void)state;
	/* The test runs without PRIMBENCH_HIDE_FEATURES (or with a valid one). */
	const char *env = getenv("PRIMBENCH_HIDE_FEATURES");
	if (!env)
		assert_int_equal(pb_cpu_hide_env_check(), 0);
}

static void test_ident(void **state)
{
	(void)state;
	struct pb_cpu_ident id;
	pb_cpu_ident(&id);
	assert_true(strlen(id.vendor) > 0);
	assert_true(strlen(id.brand) > 0);
	assert_true(id.online_cpus >= 1);
	/* Identity must be stable. */
	struct pb_cpu_ident again;
	pb_cpu_ident(&again);
	assert_memory_equal(&id, &again, sizeof id);
}

/* ---- cache rules on synthetic figures ---- */

static void set_all(uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT], enum pb_cache_level l, uint64_t v)
{
	b[l][PB_SRC_CPUID] = b[l][PB_SRC_SYSFS] = b[l][PB_SRC_SYSCONF] = b[l][PB_SRC_HWLOC] = v;
}

static void test_rules_accept_real_machines(void **state)
{
	(void)state;
	char why[160];
	/* 96-core EPYC: 384 MiB L3 = 4 MiB per CPU. */
	assert_true(pb_cache_plausible(PB_CACHE_LLC, 384 * PB_MIB, 1 * PB_MIB, 768 * GIB, 96, why,
	                               sizeof why));
	/* A 2-vCPU guest on an X3D part: 96 MiB per CCD (under the 128 MiB floor). */
	assert_true(
	    pb_cache_plausible(PB_CACHE_LLC, 96 * PB_MIB, 1 * PB_MIB, 8 * GIB, 2, why, sizeof why));
	/* Laptop: 12 MiB L3, 8 CPUs. */
	assert_true(pb_cache_plausible(PB_CACHE_LLC, 12 * PB_MIB, 1280 * PB_KIB, 16 * GIB, 8, why,
	                               sizeof why));
	/* No L3: LLC is the L2 itself. */
	assert_true(
	    pb_cache_plausible(PB_CACHE_LLC, 1 * PB_MIB, 1 * PB_MIB, 4 * GIB, 4, why, sizeof why));
	assert_true(pb_cache_plausible(PB_CACHE_L1D, 48 * PB_KIB, 0, 0, 1, why, sizeof why));
	assert_true(
	    pb_cache_plausible(PB_CACHE_L2, 2 * PB_MIB, 48 * PB_KIB, 0, 1, why, sizeof why));
}

static void test_rules_reject(void **state)
{
	(void)state;
	char why[160];
	assert_false(pb_cache_plausible(PB_CACHE_L1D, 0, 0, 0, 1, why, sizeof why));
	assert_false(pb_cache_plausible(PB_CACHE_L1D, 4 * PB_KIB, 0, 0, 1, why, sizeof why));
	assert_false(pb_cache_plausible(PB_CACHE_L1D, 2 * PB_MIB, 0, 0, 1, why, sizeof why));
	assert_false(
	    pb_cache_plausible(PB_CACHE_L2, 16 * PB_KIB, 32 * PB_KIB, 0, 1, why, sizeof why));
	assert_non_null(strstr(why, "smaller than L1d"));
	assert_false(
	    pb_cache_plausible(PB_CACHE_L2, 128 * PB_MIB, 32 * PB_KIB, 0, 1, why, sizeof why));
	assert_false(pb_cache_plausible(PB_CACHE_LLC, 512 * PB_KIB, PB_MIB, 0, 1, why, sizeof why));
	assert_non_null(strstr(why, "smaller than L2"));
	/* More than RAM/8 (the glibc bug 29953 kind: 1 TiB L3). */
	assert_false(
	    pb_cache_plausible(PB_CACHE_LLC, 1024 * GIB, PB_MIB, 64 * GIB, 64, why, sizeof why));
	assert_non_null(strstr(why, "RAM/8"));
	/* This machine's case: 480 MiB L3 on 2 vCPUs. */
	assert_false(pb_cache_plausible(PB_CACHE_LLC, 480 * PB_MIB, 2 * PB_MIB, 24 * GIB, 2, why,
	                                sizeof why));
	assert_non_null(strstr(why, "per online CPU (2 CPUs"));
}

static void test_choose_priority(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 32 * PB_KIB);
	set_all(b, PB_CACHE_L2, 1 * PB_MIB);
	set_all(b, PB_CACHE_LLC, 32 * PB_MIB);
	b[PB_CACHE_L2][PB_SRC_SYSFS] = 2 * PB_MIB;
	b[PB_CACHE_LLC][PB_SRC_SYSFS] = 0; /* sysfs silent: cpuid next */
	b[PB_CACHE_LLC][PB_SRC_CPUID] = 0; /* and cpuid too: hwloc next */
	b[PB_CACHE_LLC][PB_SRC_HWLOC] = 16 * PB_MIB;
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 64 * GIB, 16);
	assert_int_equal(c.level[PB_CACHE_L1D].source, PB_SRC_SYSFS);
	assert_int_equal(c.level[PB_CACHE_L2].size_bytes, 2 * PB_MIB);
	assert_int_equal(c.level[PB_CACHE_L2].source, PB_SRC_SYSFS);
	assert_non_null(
	    strstr(c.level[PB_CACHE_L2].note, "cpuid says 1 MiB")); /* disagreement shown */
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_HWLOC);
	assert_int_equal(c.level[PB_CACHE_LLC].size_bytes, 16 * PB_MIB);
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		assert_true(c.level[l].plausible[c.level[l].source]);
}

static void test_choose_skips_implausible_source(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 48 * PB_KIB);
	set_all(b, PB_CACHE_L2, 2 * PB_MIB);
	set_all(b, PB_CACHE_LLC, 0);
	b[PB_CACHE_LLC][PB_SRC_SYSFS] = 0; /* glibc bug 29953: a hypervisor reports 0 */
	b[PB_CACHE_LLC][PB_SRC_SYSCONF] = 30 * PB_MIB;
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 64 * GIB, 16);
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_SYSCONF);
	assert_int_equal(c.level[PB_CACHE_LLC].size_bytes, 30 * PB_MIB);
}

static void test_choose_fallback_this_machine(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 48 * PB_KIB);
	set_all(b, PB_CACHE_L2, 2 * PB_MIB);
	set_all(b, PB_CACHE_LLC, 480 * PB_MIB);
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 24 * GIB, 2);
	const struct pb_cache_level_info *llc = &c.level[PB_CACHE_LLC];
	assert_int_equal(llc->source, PB_SRC_FALLBACK);
	assert_int_equal(llc->size_bytes, PB_LLC_FALLBACK_BYTES);
	assert_int_equal(llc->by_source_bytes[PB_SRC_FALLBACK], PB_LLC_FALLBACK_BYTES);
	assert_int_equal(llc->by_source_bytes[PB_SRC_SYSFS], 480 * PB_MIB);
	assert_false(llc->plausible[PB_SRC_SYSFS]);
	assert_false(llc->plausible[PB_SRC_CPUID]);
	/* One note names the figure, every source, the reason and the way out. */
	assert_non_null(strstr(llc->note, "480 MiB (sysfs, cpuid, hwloc, sysconf) implausible"));
	assert_non_null(strstr(llc->note, "per online CPU (2 CPUs"));
	assert_non_null(strstr(llc->note, "--llc-size"));
	assert_true(strlen(llc->note) < sizeof llc->note - 1); /* not truncated */
	assert_int_equal(c.level[PB_CACHE_L2].source, PB_SRC_SYSFS);
}

static void test_choose_fallback_when_nothing(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 0, 1);
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		assert_int_equal(c.level[l].source, PB_SRC_FALLBACK);
		assert_true(c.level[l].size_bytes > 0);
		assert_non_null(strstr(c.level[l].note, "real size unknown"));
	}
	assert_true(c.level[PB_CACHE_L2].size_bytes >= c.level[PB_CACHE_L1D].size_bytes);
	assert_true(c.level[PB_CACHE_LLC].size_bytes >= c.level[PB_CACHE_L2].size_bytes);
	/* A small machine: the LLC fallback stays under RAM/8. */
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 128 * PB_MIB, 1);
	assert_true(c.level[PB_CACHE_LLC].size_bytes <= 16 * PB_MIB);
}

static void test_note_keeps_advice_when_long(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 48 * PB_KIB);
	set_all(b, PB_CACHE_L2, 2 * PB_MIB);
	/* Four different implausible figures: four clauses, too long to fit. */
	b[PB_CACHE_LLC][PB_SRC_SYSFS] = 480 * PB_MIB;
	b[PB_CACHE_LLC][PB_SRC_CPUID] = 1024 * GIB;
	b[PB_CACHE_LLC][PB_SRC_HWLOC] = 1 * PB_MIB + 512 * PB_KIB - 1;
	b[PB_CACHE_LLC][PB_SRC_SYSCONF] = 1 * PB_KIB;
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 24 * GIB, 2);
	const char *note = c.level[PB_CACHE_LLC].note;
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_FALLBACK);
	assert_true(strlen(note) < sizeof c.level[PB_CACHE_LLC].note);
	assert_non_null(strstr(note, "480 MiB (sysfs) implausible"));
	assert_non_null(strstr(note, "fallback 32 MiB (--llc-size)")); /* the advice survives */
}

static void test_override_wins(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	uint64_t ov[PB_CACHE_LEVELS] = {0, 0, 8 * PB_MIB};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 48 * PB_KIB);
	set_all(b, PB_CACHE_L2, 2 * PB_MIB);
	set_all(b, PB_CACHE_LLC, 480 * PB_MIB);
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov, 24 * GIB, 2);
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_OVERRIDE);
	assert_int_equal(c.level[PB_CACHE_LLC].size_bytes, 8 * PB_MIB);
	assert_int_equal(c.level[PB_CACHE_LLC].by_source_bytes[PB_SRC_OVERRIDE], 8 * PB_MIB);
	/* The rejected figures are still reported. */
	assert_int_equal(c.level[PB_CACHE_LLC].by_source_bytes[PB_SRC_CPUID], 480 * PB_MIB);
	assert_non_null(strstr(c.level[PB_CACHE_LLC].note, "480 MiB"));
	/* An override beats a plausible figure too. */
	uint64_t ov2[PB_CACHE_LEVELS] = {64 * PB_KIB, 0, 0};
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov2, 24 * GIB, 2);
	assert_int_equal(c.level[PB_CACHE_L1D].source, PB_SRC_OVERRIDE);
	assert_int_equal(c.level[PB_CACHE_L1D].size_bytes, 64 * PB_KIB);
}

static void test_override_does_not_reject_other_levels(void **state)
{
	(void)state;
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	struct pb_cache_info c;
	set_all(b, PB_CACHE_L1D, 48 * PB_KIB);
	set_all(b, PB_CACHE_L2, 2 * PB_MIB);
	set_all(b, PB_CACHE_LLC, 32 * PB_MIB);
	/* An L1d override larger than the real L2 and LLC: they stay. */
	uint64_t ov[PB_CACHE_LEVELS] = {64 * PB_MIB, 0, 0};
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov, 24 * GIB, 2);
	assert_int_equal(c.level[PB_CACHE_L1D].size_bytes, 64 * PB_MIB);
	assert_int_equal(c.level[PB_CACHE_L2].source, PB_SRC_SYSFS);
	assert_int_equal(c.level[PB_CACHE_L2].size_bytes, 2 * PB_MIB);
	assert_true(c.level[PB_CACHE_L2].plausible[PB_SRC_CPUID]);
	assert_string_equal(c.level[PB_CACHE_L2].note, "");
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_SYSFS);
	assert_int_equal(c.level[PB_CACHE_LLC].size_bytes, 32 * PB_MIB);
	/* The override out of order is noted on its own level. */
	assert_non_null(strstr(c.level[PB_CACHE_L1D].note, "--l1-size is larger than L2 (2 MiB)"));

	/* An LLC override below the real L2: L2 is not rejected either. */
	uint64_t ov2[PB_CACHE_LEVELS] = {0, 0, 1 * PB_MIB};
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov2, 24 * GIB, 2);
	assert_int_equal(c.level[PB_CACHE_L2].source, PB_SRC_SYSFS);
	assert_non_null(
	    strstr(c.level[PB_CACHE_LLC].note, "--llc-size is smaller than L2 (2 MiB)"));

	/* Real figures are still checked against each other: an L2 below the
	 * real L1d is rejected even when L1d is overridden. */
	b[PB_CACHE_L2][PB_SRC_SYSFS] = 16 * PB_KIB;
	uint64_t ov3[PB_CACHE_LEVELS] = {8 * PB_KIB, 0, 0};
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov3, 24 * GIB, 2);
	assert_false(c.level[PB_CACHE_L2].plausible[PB_SRC_SYSFS]);
	assert_non_null(strstr(c.level[PB_CACHE_L2].note, "smaller than L1d (48 KiB)"));
	assert_int_equal(c.level[PB_CACHE_L2].source, PB_SRC_CPUID);
	/* In order: no note. */
	uint64_t ov4[PB_CACHE_LEVELS] = {0, 0, 8 * PB_MIB};
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, ov4, 24 * GIB, 2);
	assert_string_equal(c.level[PB_CACHE_LLC].note, "");
}

static void test_override_check(void **state)
{
	(void)state;
	assert_int_equal(pb_cache_override_check(PB_CACHE_LLC, 1), -1);
	assert_string_equal(pb_error(), "--llc-size 1 B is too small for a cache (at least 1 KiB)");
	assert_int_equal(pb_cache_override_check(PB_CACHE_L1D, 1023), -1);
	assert_non_null(strstr(pb_error(), "--l1-size 1023 B"));
	assert_int_equal(pb_cache_override_check(PB_CACHE_L1D, PB_KIB), 0);
	assert_int_equal(pb_cache_override_check(PB_CACHE_L2, 2 * PB_MIB), 0);
	assert_int_equal(pb_cache_override_check(PB_CACHE_LLC, 8 * PB_MIB), 0);
	/* 1 EiB: more than any machine's RAM (when RAM is known). */
	long pages = sysconf(_SC_PHYS_PAGES);
	if (pages > 0) {
		assert_int_equal(pb_cache_override_check(PB_CACHE_L1D, GIB * GIB), -1);
		assert_non_null(strstr(pb_error(), "--l1-size"));
		assert_non_null(strstr(pb_error(), "more than this machine's RAM"));
	}
	assert_int_equal(pb_cache_override_check(PB_CACHE_LEVELS, PB_MIB), -1);

	/* A set: each one, and their order. */
	assert_int_equal(pb_cache_overrides_check(NULL), 0);
	uint64_t none[PB_CACHE_LEVELS] = {0};
	assert_int_equal(pb_cache_overrides_check(none), 0);
	uint64_t ok[PB_CACHE_LEVELS] = {32 * PB_KIB, 0, 32 * PB_KIB};
	assert_int_equal(pb_cache_overrides_check(ok), 0);
	uint64_t tiny[PB_CACHE_LEVELS] = {0, 0, 1};
	assert_int_equal(pb_cache_overrides_check(tiny), -1);
	assert_non_null(strstr(pb_error(), "--llc-size 1 B"));
	uint64_t order[PB_CACHE_LEVELS] = {64 * PB_KIB, 32 * PB_KIB, 0};
	assert_int_equal(pb_cache_overrides_check(order), -1);
	assert_string_equal(pb_error(), "--l2-size 32 KiB is smaller than --l1-size 64 KiB");
	uint64_t order2[PB_CACHE_LEVELS] = {64 * PB_KIB, 0, 48 * PB_KIB};
	assert_int_equal(pb_cache_overrides_check(order2), -1);
	assert_non_null(strstr(pb_error(), "--llc-size 48 KiB is smaller than --l1-size"));
}

/* ---- detection on this machine: invariants only ---- */

static void test_detect_invariants(void **state)
{
	(void)state;
	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	assert_true(c.line_bytes >= 16 && (c.line_bytes & (c.line_bytes - 1)) == 0);
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const struct pb_cache_level_info *li = &c.level[l];
		assert_true(li->size_bytes > 0);
		assert_true(li->source < PB_SRC_COUNT);
		assert_int_equal(li->by_source_bytes[li->source], li->size_bytes);
		assert_true(li->plausible[li->source]);
		assert_string_not_equal(pb_cache_source_name(li->source), "unknown");
		assert_string_not_equal(pb_cache_level_name((enum pb_cache_level)l), "unknown");
	}
	assert_true(c.level[PB_CACHE_L2].size_bytes >= c.level[PB_CACHE_L1D].size_bytes);
	assert_true(c.level[PB_CACHE_LLC].size_bytes >= c.level[PB_CACHE_L2].size_bytes);
	uint64_t ov[PB_CACHE_LEVELS] = {0, 0, 12345 * PB_KIB};
	assert_int_equal(pb_cache_detect(&c, ov), 0);
	assert_int_equal(c.level[PB_CACHE_LLC].source, PB_SRC_OVERRIDE);
	assert_int_equal(c.level[PB_CACHE_LLC].size_bytes, 12345 * PB_KIB);
}

static void test_format_bytes(void **state)
{
	(void)state;
	char b[32];
	pb_format_bytes(b, sizeof b, 48 * PB_KIB, PB_BYTES_IEC);
	assert_string_equal(b, "48 KiB");
	pb_format_bytes(b, sizeof b, 480 * PB_MIB, PB_BYTES_IEC);
	assert_string_equal(b, "480 MiB");
	pb_format_bytes(b, sizeof b, 1536 * PB_KIB, PB_BYTES_IEC);
	assert_string_equal(b, "1.5 MiB");
	pb_format_bytes(b, sizeof b, 100, PB_BYTES_IEC);
	assert_string_equal(b, "100 B");
	pb_format_bytes(b, sizeof b, 24 * GIB, PB_BYTES_IEC);
	assert_string_equal(b, "24 GiB");
}

/* ---- text width: every line at most 80 columns ---- */

/* The README's promise, not PB_TEXT_WIDTH: the test must fail if that grows. */
#define MAX_COLUMNS 80

/* Fails (naming the line) when a line of `text` is wider than the limit or
 * ends in a blank. Returns the number of lines. */
static int check_lines(const char *what, const char *text)
{
	int n = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		if (len > MAX_COLUMNS || (len > 0 && p[len - 1] == ' ')) {
			print_error("%s: line %d has %zu columns%s: '%.*s'\n", what, n + 1, len,
			            len > 0 && p[len - 1] == ' ' ? " and a trailing blank" : "",
			            (int)len, p);
			fail();
		}
		n++;
		p += len;
		if (*p == '\n')
			p++;
	}
	return n;
}

typedef void (*print_fn)(FILE *f, const struct pb_cache_info *c);

static char *print_to_string(print_fn fn, const struct pb_cache_info *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fn(f, c);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

static void check_machine_text(const char *what, const struct pb_cache_info *c)
{
	char name[64];
	char *text = print_to_string(pb_print_machine_summary, c);
	snprintf(name, sizeof name, "summary (%s)", what);
	assert_true(check_lines(name, text) >= 5);
	free(text);
	text = print_to_string(pb_print_machine_info, c);
	snprintf(name, sizeof name, "info (%s)", what);
	assert_true(check_lines(name, text) >= 30);
	free(text);
}

static void test_labelled_wraps_at_80(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pb_print_labelled(f, 16, "  label", "short text");
	pb_print_labelled(f, 16, "  empty", "");
	/* A label as wide as the column gets a space. */
	pb_print_labelled(f, 4, "abcd", "x");
	/* Wrapped under itself, a unit kept with its number. */
	pb_print_labelled(f, 10, "caches",
	                  "L1d 48 KiB (sysfs), L2 2 MiB (sysfs), LLC 32 MiB (fallback), lines 64 "
	                  "B (64 fits, 64 B does not)");
	/* A word longer than a line is cut. */
	char word[200];
	memset(word, 'w', sizeof word - 1);
	word[sizeof word - 1] = '\0';
	pb_print_labelled(f, 16, "  long", word);
	/* A label wider than the column: the text starts after it. */
	pb_print_labelled(f, 4, "a label wider than the column", "then text");
	assert_int_equal(fclose(f), 0);
	check_lines("pb_print_labelled", buf);
	const char *want_start = "  label         short text\n"
	                         "  empty\n"
	                         "abcd x\n"
	                         "caches    L1d 48 KiB (sysfs), L2 2 MiB (sysfs), LLC 32 MiB "
	                         "(fallback), lines\n"
	                         "          64 B (64 fits, 64 B does not)\n"
	                         "  long          ";
	assert_memory_equal(buf, want_start, strlen(want_start));
	assert_non_null(strstr(buf, "\n                wwww"));
	assert_non_null(strstr(buf, "a label wider than the column then text\n"));
	free(buf);
}

static void test_machine_text_fits_80_columns(void **state)
{
	(void)state;
	struct pb_cache_info c;
	/* This machine as detected, and with overrides. */
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	check_machine_text("detected", &c);
	uint64_t ov[PB_CACHE_LEVELS] = {4 * PB_MIB, 0, 12345 * PB_KIB};
	assert_int_equal(pb_cache_detect(&c, ov), 0);
	check_machine_text("overrides", &c);

	/* The longest notes the rules make: four implausible figures per level,
	 * every level a fallback, odd sizes. */
	uint64_t b[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		b[l][PB_SRC_SYSFS] = 1024 * GIB + 12345;
		b[l][PB_SRC_CPUID] = 3 * PB_KIB + 1;
		b[l][PB_SRC_HWLOC] = 480 * PB_MIB + 7;
		b[l][PB_SRC_SYSCONF] = 1;
	}
	pb_cache_choose(&c, (const uint64_t(*)[PB_SRC_COUNT])b, NULL, 24 * GIB, 2);
	c.line_bytes = 64;
	check_machine_text("every level a fallback", &c);

	/* Every feature hidden: the longest features line. */
	char all[256] = "";
	for (int i = 0; i < PB_FEAT_COUNT; i++) {
		strcat(all, i ? "," : "");
		strcat(all, pb_feature_name((enum pb_feature)i));
	}
	assert_int_equal(pb_cpu_hide_features(all), 0);
	check_machine_text("every feature hidden", &c);
}

static void test_latency_sweep_shape(void **state)
{
	(void)state;
	struct pb_latency_point p[16];
	int n = pb_cache_latency_sweep(4 * PB_KIB, 64 * PB_KIB, p, 16);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		assert_true(p[i].size_bytes >= 4 * PB_KIB && p[i].size_bytes <= 64 * PB_KIB);
		assert_true(p[i].ticks_per_load > 0);
		if (i)
			assert_true(p[i].size_bytes > p[i - 1].size_bytes);
	}
	assert_int_equal(pb_cache_latency_sweep(64 * PB_KIB, 4 * PB_KIB, p, 16), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_feature_name_round_trip),
	    cmocka_unit_test(test_feature_parse_error_quotes_name),
	    cmocka_unit_test(test_hide_unknown_hides_nothing),
	    cmocka_unit_test(test_hide_removes_feature),
	    cmocka_unit_test(test_env_check_ok_without_variable),
	    cmocka_unit_test(test_ident),
	    cmocka_unit_test(test_rules_accept_real_machines),
	    cmocka_unit_test(test_rules_reject),
	    cmocka_unit_test(test_choose_priority),
	    cmocka_unit_test(test_choose_skips_implausible_source),
	    cmocka_unit_test(test_choose_fallback_this_machine),
	    cmocka_unit_test(test_choose_fallback_when_nothing),
	    cmocka_unit_test(test_note_keeps_advice_when_long),
	    cmocka_unit_test(test_override_wins),
	    cmocka_unit_test(test_override_does_not_reject_other_levels),
	    cmocka_unit_test(test_override_check),
	    cmocka_unit_test(test_detect_invariants),
	    cmocka_unit_test(test_format_bytes),
	    cmocka_unit_test(test_labelled_wraps_at_80),
	    cmocka_unit_test(test_machine_text_fits_80_columns),
	    cmocka_unit_test(test_latency_sweep_shape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
