/* test_kernels_hidden.c - hiding features (pb_cpu_hide_features, as
 * PRIMBENCH_HIDE_FEATURES or --hide-features do) makes the kernels that
 * need them unusable, with "hidden" in the reason, and leaves the others
 * working. Its own process: hiding cannot be undone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/selftest.h"

/* The features hidden here (the feature enum is per ISA, primbench/cpu.h),
 * their names and the reason the kernels that need them give. */
#if defined(__aarch64__)
static const pb_features hide = PB_F(SVE);
#define HIDE_LIST "sve"
#define HIDE_WHY  "needs sve (hidden)"
#else
static const pb_features hide = PB_F(AVX512F) | PB_F(AVX512BW);
#define HIDE_LIST "avx512f,avx512bw"
#define HIDE_WHY  "needs avx512f, avx512bw (hidden)"
#endif

static void test_hidden(void **state)
{
	(void)state;
	if ((pb_cpu_features_detected() & hide) != hide)
		skip();
	assert_int_equal(pb_cpu_hide_features(HIDE_LIST), 0);
	assert_int_equal(pb_cpu_features() & hide, 0);

	size_t count, hidden = 0, checked = 0;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		const struct pb_kernel *k = &t[i];
		char why[128] = "";
		bool usable = pb_kernel_usable(k, pb_cpu_features(), why, sizeof why);
		if (k->requires & hide) {
			assert_false(usable);
			assert_non_null(strstr(why, "hidden"));
			assert_string_equal(why, HIDE_WHY);
			hidden++;
			/* The selftest refuses to run it. */
			struct pb_selftest_result r;
			assert_int_equal(pb_selftest_kernel(k, PB_SELFTEST_QUICK, &r), -1);
			assert_non_null(strstr(pb_error(), "hidden"));
			continue;
		}
		if (!usable)
			continue;
		struct pb_selftest_result r;
		int rc = pb_selftest_kernel(k, PB_SELFTEST_QUICK, &r);
		if (rc < 0)
			fail_msg("%s", pb_error());
		if (rc > 0)
			fail_msg("%s", r.detail);
		checked++;
	}
#if defined(__x86_64__)
	/* avx512 and avx512_nt of memset and memcpy, memmove/avx512 */
	assert_int_equal(hidden, 5);
#elif defined(__aarch64__)
	/* memset/sve, memcpy/sve, memmove/sve */
	assert_int_equal(hidden, 3);
#endif
	assert_true(checked > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hidden),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
