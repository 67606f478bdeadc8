/* test_sizes.c - the size/range grammar (docs/cli-grammar.md): every rule and
 * every error message, with the boundaries of uint64 and int64. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/sizes.h"
#include "primbench/text.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)
#define GIB (UINT64_C(1) << 30)
#define TIB (UINT64_C(1) << 40)
#define PIB (UINT64_C(1) << 50)
#define EIB (UINT64_C(1) << 60)

#define NVALUES(a) (sizeof(a) / sizeof((a)[0]))

static void ok_size(const char *text, uint64_t expected)
{
	uint64_t v = 12345;
	if (pb_parse_size(text, &v) != 0)
		fail_msg("'%s': unexpected error: %s", text, pb_error());
	if (v != expected)
		fail_msg("'%s': got %llu, expected %llu", text, (unsigned long long)v,
		         (unsigned long long)expected);
}

static void bad_size(const char *text, const char *message)
{
	uint64_t v = 12345;
	pb_fail("(not set)");
	assert_int_equal(pb_parse_size(text, &v), -1);
	assert_string_equal(pb_error(), message);
	assert_true(v == 12345); /* untouched on error */
}

static void ok_list(const char *text, int allow_negative, size_t max_count, const int64_t *expected,
                    size_t count)
{
	struct pb_size_list l;
	if (pb_parse_size_list(text, allow_negative, max_count, &l) != 0)
		fail_msg("'%s': unexpected error: %s", text, pb_error());
	if (l.count != count)
		fail_msg("'%s': got %zu values, expected %zu", text, l.count, count);
	for (size_t i = 0; i < count; i++)
		if (l.values[i] != expected[i])
			fail_msg("'%s': value %zu is %lld, expected %lld", text, i,
			         (long long)l.values[i], (long long)expected[i]);
	pb_size_list_free(&l);
	assert_null(l.values);
	assert_int_equal(l.count, 0);
}

#define OK_LIST(text, neg, max, ...)                                                               \
	do {                                                                                       \
		static const int64_t expected_[] = {__VA_ARGS__};                                  \
		ok_list(text, neg, max, expected_, NVALUES(expected_));                            \
	} while (0)

static void bad_list(const char *text, int allow_negative, size_t max_count, const char *message)
{
	struct pb_size_list l = {(int64_t *)&l, 99};
	pb_fail("(not set)");
	assert_int_equal(pb_parse_size_list(text, allow_negative, max_count, &l), -1);
	assert_string_equal(pb_error(), message);
	assert_null(l.values);
	assert_int_equal(l.count, 0);
}

/* ---- single sizes ---- */

static void test_decimal(void **state)
{
	(void)state;
	ok_size("0", 0);
	ok_size("1", 1);
	ok_size("64", 64);
	ok_size("4096", 4096);
	ok_size("010", 10); /* leading zeros: still decimal, never octal */
	ok_size("18446744073709551615", UINT64_MAX);
}

static void test_hex(void **state)
{
	(void)state;
	ok_size("0x40", 64);
	ok_size("0X40", 64);
	ok_size("0xfF", 255);
	ok_size("0x0", 0);
	ok_size("0xffffffffffffffff", UINT64_MAX);
	ok_size("0x1K", 1024);
	ok_size("0x2MiB", 2 * MIB);
	/* Hex digits are read greedily: B and E after 0x are digits. */
	ok_size("0x10B", 0x10b);
	ok_size("0x1E", 0x1e);
}

static void test_suffixes(void **state)
{
	(void)state;
	static const char *const k[] = {"1K", "1k", "1KB", "1kb", "1Kb", "1KiB", "1kib", "1KIB"};
	for (size_t i = 0; i < NVALUES(k); i++)
		ok_size(k[i], KIB);
	static const char *const m[] = {"1M", "1m", "1MB", "1mb", "1MiB", "1mib", "1MIB"};
	for (size_t i = 0; i < NVALUES(m); i++)
		ok_size(m[i], MIB);
	static const char *const g[] = {"1G", "1g", "1GB", "1gb", "1GiB", "1gib", "1GIB"};
	for (size_t i = 0; i < NVALUES(g); i++)
		ok_size(g[i], GIB);
	ok_size("1T", TIB);
	ok_size("1TB", TIB);
	ok_size("1tib", TIB);
	ok_size("1P", PIB);
	ok_size("1PiB", PIB);
	ok_size("1E", EIB);
	ok_size("1EiB", EIB);
	ok_size("64B", 64);
	ok_size("64b", 64);
	ok_size("3M", 3 * MIB);
	ok_size("1536K", 1536 * KIB);
	ok_size("0K", 0);
	ok_size("15E", 15 * EIB);
}

static void test_size_boundaries(void **state)
{
	(void)state;
	ok_size("0xffffffffffffffff", UINT64_MAX);
	ok_size("18446744073709551615", UINT64_MAX);
	ok_size("17179869183G", UINT64_MAX - GIB + 1); /* (2^34 - 1) * 2^30 */
	ok_size("16383P", UINT64_C(16383) * PIB);
	bad_size("18446744073709551616", "size '18446744073709551616' overflows");
	bad_size("99999999999999999999", "size '99999999999999999999' overflows");
	bad_size("0x10000000000000000", "size '0x10000000000000000' overflows");
	bad_size("16E", "size '16E' overflows");
	bad_size("16EiB", "size '16EiB' overflows");
	bad_size("17179869184G", "size '17179869184G' overflows");
	bad_size("16384P", "size '16384P' overflows");
	bad_size("0x8000000000000000K", "size '0x8000000000000000K' overflows");
}

static void test_size_errors(void **state)
{
	(void)state;
	bad_size("", "bad size '': empty");
	bad_size("0x", "bad size '0x': no digits");
	bad_size("0xK", "bad size '0xK': no digits");
	bad_size("K", "bad size 'K': no digits");
	bad_size(" 64", "bad size ' 64': no digits");
	bad_size("+64", "bad size '+64': no digits");
	bad_size("10Q", "bad size '10Q': unknown suffix 'Q'");
	bad_size("64 ", "bad size '64 ': unknown suffix ' '");
	bad_size("1.5K", "bad size '1.5K': unknown suffix '.5K'");
	bad_size("1e3", "bad size '1e3': unknown suffix 'e3'");
	bad_size("10KiBs", "bad size '10KiBs': unknown suffix 'KiBs'");
	bad_size("10KK", "bad size '10KK': unknown suffix 'KK'");
	bad_size("0x10Q", "bad size '0x10Q': unknown suffix 'Q'");
	bad_size("-5", "bad size '-5': must not be negative");
	/* Syntax is checked before value: a bad suffix wins over overflow. */
	bad_size("99999999999999999999Q", "bad size '99999999999999999999Q': unknown suffix 'Q'");
}

/* ---- formatting ---- */

static void check_format(uint64_t bytes, const char *expected)
{
	char buf[32];
	pb_format_bytes(buf, sizeof buf, bytes, PB_BYTES_EXACT);
	assert_string_equal(buf, expected);
	/* Every label parses back to the same number. */
	ok_size(buf, bytes);
}

static void test_format(void **state)
{
	(void)state;
	check_format(0, "0");
	check_format(1, "1");
	check_format(64, "64");
	check_format(1023, "1023");
	check_format(1024, "1K");
	check_format(1536, "1536");
	check_format(4096, "4K");
	check_format(4097, "4097");
	check_format(MIB, "1M");
	check_format(1536 * KIB, "1536K");
	check_format(32 * MIB, "32M");
	check_format(GIB, "1G");
	check_format(TIB, "1T");
	check_format(PIB, "1P");
	check_format(EIB, "1E");
	check_format(15 * EIB, "15E");
	check_format(UINT64_MAX - GIB + 1, "17179869183G");
	check_format(UINT64_MAX, "18446744073709551615");
}

static void test_format_truncates(void **state)
{
	(void)state;
	char buf[3] = {'x', 'x', 'x'};
	pb_format_bytes(buf, sizeof buf, 1536, PB_BYTES_EXACT);
	assert_string_equal(buf, "15");
	pb_format_bytes(buf, 0, 4096, PB_BYTES_EXACT); /* writes nothing */
	assert_string_equal(buf, "15");
}

/* ---- lists ---- */

static void test_list_single(void **state)
{
	(void)state;
	OK_LIST("64", 0, 100, 64);
	OK_LIST("4K", 0, 100, 4096);
	OK_LIST("0", 0, 100, 0);
	OK_LIST("9223372036854775807", 0, 100, INT64_MAX);
	OK_LIST("0x7fffffffffffffff", 0, 100, INT64_MAX);
}

static void test_list_commas_keep_order(void **state)
{
	(void)state;
	OK_LIST("64,128,4K", 0, 100, 64, 128, 4096);
	OK_LIST("4K,64,1M", 0, 100, 4096, 64, 1048576);
}

static void test_list_dedupe(void **state)
{
	(void)state;
	OK_LIST("64,64,128,64", 0, 100, 64, 128);
	OK_LIST("1K,1024,0x400,1KiB", 0, 100, 1024);
	/* The first occurrence wins, ranges included. */
	OK_LIST("64,1..128", 0, 100, 64, 1, 2, 4, 8, 16, 32, 128);
	OK_LIST("0..63:1,0..63:1", 0, 64, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37,
	        38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58,
	        59, 60, 61, 62, 63);
}

static void test_list_errors(void **state)
{
	(void)state;
	bad_list("", 0, 100, "bad size list '': empty");
	bad_list("1,,2", 0, 100, "bad size list '1,,2': empty item");
	bad_list("1,", 0, 100, "bad size list '1,': empty item");
	bad_list(",1", 0, 100, "bad size list ',1': empty item");
	bad_list("64,10Q", 0, 100, "bad size '10Q': unknown suffix 'Q'");
	bad_list("64,0x", 0, 100, "bad size '0x': no digits");
	bad_list("1,99999999999999999999", 0, 100, "size '99999999999999999999' overflows");
	/* List values are int64: past 2^63 - 1 is an overflow there. */
	bad_list("9223372036854775808", 0, 100, "size '9223372036854775808' overflows");
	bad_list("0xffffffffffffffff", 0, 100, "size '0xffffffffffffffff' overflows");
	bad_list("8E", 0, 100, "size '8E' overflows");
}

/* ---- ranges ---- */

static void test_range_doubling(void **state)
{
	(void)state;
	OK_LIST("1..64", 0, 100, 1, 2, 4, 8, 16, 32, 64);
	OK_LIST("1K..8K", 0, 100, 1024, 2048, 4096, 8192);
	OK_LIST("0..8", 0, 100, 0, 1, 2, 4, 8);
	OK_LIST("0..0", 0, 100, 0);
	OK_LIST("5..5", 0, 100, 5);
	OK_LIST("3..100", 0, 100, 3, 6, 12, 24, 48, 96); /* the end only when on the grid */
	OK_LIST("64..127", 0, 100, 64);
	/* Doubling stops at int64's top instead of overflowing. */
	OK_LIST("0x4000000000000000..0x7fffffffffffffff", 0, 100, INT64_C(0x4000000000000000));
	OK_LIST("1..9223372036854775807", 0, 100, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
	        4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304,
	        8388608, 16777216, 33554432, 67108864, 134217728, 268435456, 536870912, 1073741824,
	        2147483648, 4294967296, 8589934592, 17179869184, 34359738368, 68719476736,
	        137438953472, 274877906944, 549755813888, 1099511627776, 2199023255552,
	        4398046511104, 8796093022208, 17592186044416, 35184372088832, 70368744177664,
	        140737488355328, 281474976710656, 562949953421312, 1125899906842624,
	        2251799813685248, 4503599627370496, 9007199254740992, 18014398509481984,
	        36028797018963968, 72057594037927936, 144115188075855872, 288230376151711744,
	        576460752303423488, 1152921504606846976, 2305843009213693952, 4611686018427387904);
}

static void test_range_doubling_64_to_64M(void **state)
{
	(void)state;
	struct pb_size_list l;
	assert_int_equal(pb_parse_size_list("64..64M", 0, 1000, &l), 0);
	assert_int_equal(l.count, 21);
	for (size_t i = 0; i < l.count; i++)
		assert_true(l.values[i] == (INT64_C(64) << i));
	pb_size_list_free(&l);
}

static void test_range_linear(void **state)
{
	(void)state;
	OK_LIST("0..10:4", 0, 100, 0, 4, 8);
	OK_LIST("0..12:4", 0, 100, 0, 4, 8, 12);
	OK_LIST("1K..4K:1K", 0, 100, 1024, 2048, 3072, 4096);
	OK_LIST("7..7:3", 0, 100, 7);
	OK_LIST("0x10..0x20:0x8", 0, 100, 16, 24, 32);
	/* No overflow near the top. */
	OK_LIST("9223372036854775800..9223372036854775807:5", 0, 100, INT64_C(9223372036854775800),
	        INT64_C(9223372036854775805));
	OK_LIST("0..8:0xffffffffffffffff", 0, 100, 0);

	struct pb_size_list l;
	assert_int_equal(pb_parse_size_list("0..63:1", 0, 64, &l), 0);
	assert_int_equal(l.count, 64);
	for (size_t i = 0; i < l.count; i++)
		assert_true(l.values[i] == (int64_t)i);
	pb_size_list_free(&l);

	assert_int_equal(pb_parse_size_list("0..4088:8", 0, 1000, &l), 0);
	assert_int_equal(l.count, 512);
	for (size_t i = 0; i < l.count; i++)
		assert_true(l.values[i] == (int64_t)(8 * i));
	pb_size_list_free(&l);
}

static void test_range_geometric(void **state)
{
	(void)state;
	/* 16 * 2^(i/2): 16, 22.6, 32, 45.3, 64 */
	OK_LIST("16..64/2", 0, 100, 16, 23, 32, 45, 64);
	/* 2^(i/4) rounds to 1,1,1,2, 2,2,3,3, 4,5,6,7, 8: duplicates removed */
	OK_LIST("1..8/4", 0, 100, 1, 2, 3, 4, 5, 6, 7, 8);
	/* From 0: 0, then geometric from 1, as doubling does. */
	OK_LIST("0..4/2", 0, 100, 0, 1, 2, 3, 4);
	OK_LIST("0..0/3", 0, 100, 0);
	OK_LIST("1..8/1", 0, 100, 1, 2, 4, 8);
	OK_LIST("5..7/1", 0, 100, 5);
	OK_LIST("4K..8K/3", 0, 100, 4096, 5161, 6502, 8192);
	/* Huge n costs only the distinct values it yields. */
	OK_LIST("1..2/1000000000", 0, 10, 1, 2);
}

static void test_range_geometric_16_to_64M(void **state)
{
	(void)state;
	struct pb_size_list l;
	assert_int_equal(pb_parse_size_list("16..64M/4", 0, 1000, &l), 0);
	assert_int_equal(l.count, 22 * 4 + 1); /* 22 octaves from 16 to 64 MiB */
	for (size_t i = 0; i < l.count; i++) {
		if (i % 4 == 0) /* whole octaves are exact powers of two */
			assert_true(l.values[i] == (INT64_C(16) << (i / 4)));
		if (i > 0)
			assert_true(l.values[i] > l.values[i - 1]);
	}
	assert_true(l.values[1] == 19); /* 16 * 2^(1/4) = 19.03 */
	assert_true(l.values[l.count - 1] == 64 * 1048576);
	pb_size_list_free(&l);
}

static void test_range_errors(void **state)
{
	(void)state;
	bad_list("64..8", 0, 100, "bad range '64..8': start is greater than end");
	bad_list("1,64..8:1", 0, 100, "bad range '64..8:1': start is greater than end");
	bad_list("0..8:0", 0, 100, "bad range '0..8:0': step is zero");
	bad_list("0..8:0K", 0, 100, "bad range '0..8:0K': step is zero");
	bad_list("0..64:-8", 1, 100, "bad range '0..64:-8': step must be positive");
	bad_list("0..8:", 0, 100, "bad range '0..8:': missing step");
	bad_list("0..8:0x", 0, 100, "bad size '0x': no digits");
	bad_list("0..8:4Q", 0, 100, "bad size '4Q': unknown suffix 'Q'");
	bad_list("1..8/0", 0, 100, "bad range '1..8/0': zero points per octave");
	bad_list("1..8/x", 0, 100, "bad range '1..8/x': bad points per octave 'x'");
	bad_list("1..8/", 0, 100, "bad range '1..8/': bad points per octave ''");
	bad_list("1..8/4K", 0, 100, "bad range '1..8/4K': bad points per octave '4K'");
	bad_list("1..8/99999999999", 0, 100,
	         "bad range '1..8/99999999999': bad points per octave '99999999999'");
	bad_list("..8", 0, 100, "bad range '..8': missing start");
	bad_list("1..", 0, 100, "bad range '1..': missing end");
	bad_list("1..:4", 0, 100, "bad range '1..:4': missing end");
	bad_list("1..8Q", 0, 100, "bad size '8Q': unknown suffix 'Q'");
	bad_list("1..2..3", 0, 100, "bad size '2..3': unknown suffix '..3'");
	bad_list("1..99999999999999999999", 0, 100, "size '99999999999999999999' overflows");
}

static void test_max_count(void **state)
{
	(void)state;
	bad_list("0..63:1", 0, 63, "range '0..63:1' expands to more than 63 values");
	bad_list("1..64", 0, 6, "range '1..64' expands to more than 6 values");
	bad_list("1..8/4", 0, 7, "range '1..8/4' expands to more than 7 values");
	/* Bounded without expanding everything first. */
	bad_list("0..1E:1", 0, 1000, "range '0..1E:1' expands to more than 1000 values");
	bad_list("1,2,3", 0, 2, "size list '1,2,3' has more than 2 values");
	bad_list("1,2,4..8", 0, 3, "size list '1,2,4..8' has more than 3 values");
	bad_list("7", 0, 0, "size list '7' has more than 0 values");
	/* The bound counts distinct values. */
	OK_LIST("1,1,1", 0, 1, 1);
	OK_LIST("1..64", 0, 7, 1, 2, 4, 8, 16, 32, 64);
	OK_LIST("1..8/4", 0, 8, 1, 2, 3, 4, 5, 6, 7, 8);
	OK_LIST("1,2,0..8", 0, 5, 1, 2, 0, 4, 8);
}

/* ---- signed values (--distance) ---- */

static void test_negative(void **state)
{
	(void)state;
	OK_LIST("-8", 1, 100, -8);
	OK_LIST("-4K", 1, 100, -4096);
	OK_LIST("-0x40", 1, 100, -64);
	OK_LIST("-0", 1, 100, 0);
	OK_LIST("-64,64,-64", 1, 100, -64, 64);
	OK_LIST("-9223372036854775808", 1, 100, INT64_MIN);
	OK_LIST("-8E", 1, 100, INT64_MIN);
	OK_LIST("9223372036854775807", 1, 100, INT64_MAX);
	OK_LIST("-64..64:32", 1, 100, -64, -32, 0, 32, 64);
	OK_LIST("-8..-1:1", 1, 100, -8, -7, -6, -5, -4, -3, -2, -1);
	OK_LIST("-4K..4K:4K", 1, 100, -4096, 0, 4096);
	OK_LIST("0..8", 1, 100, 0, 1, 2, 4, 8);
	bad_list("-9223372036854775809", 1, 100, "size '-9223372036854775809' overflows");
	bad_list("9223372036854775808", 1, 100, "size '9223372036854775808' overflows");
	bad_list("-", 1, 100, "bad size '-': no digits");
	bad_list("--8", 1, 100, "bad size '--8': no digits");
	bad_list("-1..-8:1", 1, 100, "bad range '-1..-8:1': start is greater than end");
	bad_list("-8..8", 1, 100,
	         "bad range '-8..8': doubling needs a start >= 0 (use a step: 'a..b:s')");
	bad_list("-8..8/2", 1, 100, "bad range '-8..8/2': points per octave need a start >= 0");
}

static void test_negative_not_allowed(void **state)
{
	(void)state;
	bad_list("-8", 0, 100, "bad size '-8': must not be negative");
	bad_list("64,-8", 0, 100, "bad size '-8': must not be negative");
	bad_list("-8..8:1", 0, 100, "bad size '-8': must not be negative");
	bad_list("0..-8:1", 0, 100, "bad size '-8': must not be negative");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decimal),
	    cmocka_unit_test(test_hex),
	    cmocka_unit_test(test_suffixes),
	    cmocka_unit_test(test_size_boundaries),
	    cmocka_unit_test(test_size_errors),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_format_truncates),
	    cmocka_unit_test(test_list_single),
	    cmocka_unit_test(test_list_commas_keep_order),
	    cmocka_unit_test(test_list_dedupe),
	    cmocka_unit_test(test_list_errors),
	    cmocka_unit_test(test_range_doubling),
	    cmocka_unit_test(test_range_doubling_64_to_64M),
	    cmocka_unit_test(test_range_linear),
	    cmocka_unit_test(test_range_geometric),
	    cmocka_unit_test(test_range_geometric_16_to_64M),
	    cmocka_unit_test(test_range_errors),
	    cmocka_unit_test(test_max_count),
	    cmocka_unit_test(test_negative),
	    cmocka_unit_test(test_negative_not_allowed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
