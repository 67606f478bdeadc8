/* hide_profile.h - for the tests that tests/CMakeLists.txt also runs under
 * an older CPU's feature set (PRIMBENCH_HIDE_FEATURES): a cmocka test that
 * the profile took effect, so that a profile the library never read (a
 * misspelt variable, a test that hides nothing) cannot pass silently.
 *
 * PB_TEST_HIDE_PROFILE holds the same list as PRIMBENCH_HIDE_FEATURES, set
 * by CMake beside it; without it (the plain run) the test checks that
 * nothing is hidden. Include once, in a test file, and list
 * cmocka_unit_test(test_hide_profile) first: hiding is process-wide and
 * cannot be undone, so it must run before any test that hides more.
 */
#ifndef PB_TESTS_HIDE_PROFILE_H
#define PB_TESTS_HIDE_PROFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"

/* The features a comma-separated list names; fails the test on a bad name. */
static pb_features hide_profile_parse(const char *list)
{
	pb_features bits = 0;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		enum pb_feature f;
		if (pb_feature_parse(tok, &f) != 0)
			fail_msg("PB_TEST_HIDE_PROFILE: %s", pb_error());
		bits |= (pb_features)1u << f;
	}
	return bits;
}

static void test_hide_profile(void **state)
{
	(void)state;
	const char *profile = getenv("PB_TEST_HIDE_PROFILE");
	const char *env = getenv("PRIMBENCH_HIDE_FEATURES");
	if (!profile) {
		/* The plain run: nothing hidden unless the caller asked. */
		if (!env || !env[0])
			assert_int_equal(pb_cpu_features_hidden(), 0);
		return;
	}
	pb_features want = hide_profile_parse(profile);
	assert_true(want != 0);
	print_message("profile: hidden %s (detected %#x, usable %#x)\n", profile,
	              (unsigned)pb_cpu_features_detected(), (unsigned)pb_cpu_features());
	/* The library read the variable: exactly the profile is hidden, and
	 * none of it is usable. */
	assert_int_equal(pb_cpu_hide_env_check(), 0);
	assert_int_equal(pb_cpu_features_hidden(), want);
	assert_int_equal(pb_cpu_features() & want, 0);
	pb_features detected = pb_cpu_features_detected();
	assert_int_equal(pb_cpu_features() & ~detected, 0);

	/* The kernel table follows: a kernel needing a hidden feature is not
	 * usable, and says "hidden" when this CPU has that feature; one that
	 * needs nothing hidden is as usable as the CPU allows. */
	size_t count, lost = 0;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		char why[160] = "";
		bool usable = pb_kernel_usable(&t[i], pb_cpu_features(), why, sizeof why);
		bool on_cpu = pb_kernel_usable(&t[i], detected, NULL, 0);
		pb_features needs_hidden = t[i].requires & want;
		/* a feature goes with the one it extends (pb_feature_requires:
		 * avx512bw with avx512f, sve2 with sve) */
		for (int f = 0; f < PB_FEAT_COUNT; f++) {
			const char *base = pb_feature_requires((enum pb_feature)f);
			enum pb_feature b;
			if (t[i].requires & ((pb_features)1u << f) && base &&
			    pb_feature_parse(base, &b) == 0 && want & ((pb_features)1u << b))
				needs_hidden |= (pb_features)1u << f;
		}
		if (!needs_hidden) {
			if (usable != on_cpu)
				fail_msg("%s/%s: usable %d under the profile, %d on the CPU",
				         pb_op_name(t[i].op), t[i].name, usable, on_cpu);
			continue;
		}
		if (usable)
			fail_msg("%s/%s is usable with %s hidden", pb_op_name(t[i].op), t[i].name,
			         profile);
		if (on_cpu) {
			if (!strstr(why, "(hidden)"))
				fail_msg("%s/%s: '%s' does not say hidden", pb_op_name(t[i].op),
				         t[i].name, why);
			lost++;
		}
	}
	/* Where the CPU has a hidden feature that some kernel needs, the
	 * profile took kernels away from this run. */
	bool kernel_feature_detected = false;
	for (size_t i = 0; i < count; i++)
		if (t[i].requires & want & detected)
			kernel_feature_detected = true;
	if (kernel_feature_detected)
		assert_true(lost > 0);
	print_message("profile: %zu kernels hidden\n", lost);
}

#endif
