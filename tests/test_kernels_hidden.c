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

/* The widest vector features of this build's ISA: hidden, every kernel
 * that needs them is refused; skipped where the CPU lacks them. */
#if defined(__aarch64__)
static const pb_features widest = PB_F(SVE);
#define WIDEST_NAMES "sve"
#else
static const pb_features widest = PB_F(AVX512F) | PB_F(AVX512BW);
#define WIDEST_NAMES "avx512f,avx512bw"
#endif

static void test_hidden_widest(void **state)
{
	(void)state;
	if ((pb_cpu_features_detected() & widest) != widest)
		skip();
	assert_int_equal(pb_cpu_hide_features(WIDEST_NAMES), 0);
	assert_int_equal(pb_cpu_features() & widest, 0);

	size_t count, hidden = 0, checked = 0;
	const struct pb_kernel *t = pb_kernels(&count);
	for (size_t i = 0; i < count; i++) {
		const struct pb_kernel *k = &t[i];
		char why[128] = "";
		bool usable = pb_kernel_usable(k, pb_cpu_features(), why, sizeof why);
		if (k->requires & widest) {
			assert_false(usable);
			assert_non_null(strstr(why, "hidden"));
#if !defined(__aarch64__)
			assert_string_equal(why, "needs avx512f, avx512bw (hidden)");
#endif
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
#endif
	assert_true(checked > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hidden_widest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
