/* test_text.c - the text module (include/primbench/text.h): every form of
 * the byte formatter, and the wrapper's lines, above all a word longer
 * than a line (a long path), which four commits once fixed in four files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/text.h"

#define KIB 1024.0
#define MIB (1024.0 * KIB)
#define GIB (1024.0 * MIB)

static void check(double bytes, enum pb_bytes_style style, const char *want)
{
	char buf[48];
	pb_format_bytes(buf, sizeof buf, bytes, style);
	if (strcmp(buf, want) != 0)
		fail_msg("%.17g in style %d: '%s', want '%s'", bytes, (int)style, buf, want);
}

static void test_exact(void **state)
{
	(void)state;
	check(0, PB_BYTES_EXACT, "0");
	check(1023, PB_BYTES_EXACT, "1023");
	check(1024, PB_BYTES_EXACT, "1K");
	check(1536, PB_BYTES_EXACT, "1536");
	check(1536 * KIB, PB_BYTES_EXACT, "1536K");
	check(32 * MIB, PB_BYTES_EXACT, "32M");
	check((double)UINT64_MAX, PB_BYTES_EXACT, "18446744073709551615");
	check(-5, PB_BYTES_EXACT, "0");
	/* whole counts, exact above 2^53 too */
	char buf[48];
	pb_format_bytes_exact(buf, sizeof buf, (UINT64_C(1) << 53) + 1);
	assert_string_equal(buf, "9007199254740993");
	pb_format_bytes_exact(buf, sizeof buf, UINT64_MAX);
	assert_string_equal(buf, "18446744073709551615");
	pb_format_bytes_exact(buf, sizeof buf, UINT64_C(15) << 60);
	assert_string_equal(buf, "15E");
	pb_format_bytes_exact(buf, sizeof buf, 0);
	assert_string_equal(buf, "0");
}

static void test_short(void **state)
{
	(void)state;
	check(64, PB_BYTES_SHORT, "64");
	check(1024, PB_BYTES_SHORT, "1K");
	check(1536, PB_BYTES_SHORT, "1.5K");
	check(1280, PB_BYTES_SHORT, "1.25K");
	check(100 * KIB + 600, PB_BYTES_SHORT, "101K"); /* three figures */
	check(32 * MIB, PB_BYTES_SHORT, "32M");
}

static void test_iec(void **state)
{
	(void)state;
	check(100, PB_BYTES_IEC, "100 B");
	check(48 * KIB, PB_BYTES_IEC, "48 KiB");
	check(1536 * KIB, PB_BYTES_IEC, "1.5 MiB");
	check(181.38 * MIB, PB_BYTES_IEC, "181.38 MiB");
	check(24 * GIB, PB_BYTES_IEC, "24 GiB");
	check(1024 * 1024 * GIB, PB_BYTES_IEC, "1024 TiB");
}

static void test_prose_and_fig3(void **state)
{
	(void)state;
	check(390, PB_BYTES_PROSE, "390 B");
	check(390.4, PB_BYTES_PROSE, "390 B");
	check(1.9 * KIB, PB_BYTES_PROSE, "1.9 KiB");
	check(4 * KIB, PB_BYTES_PROSE, "4.0 KiB");
	check(24.1 * MIB, PB_BYTES_PROSE, "24.1 MiB");
	check(128 * KIB, PB_BYTES_PROSE, "128 KiB");
	check(390, PB_BYTES_FIG3, "390 B");
	check(1.94 * KIB, PB_BYTES_FIG3, "1.94 KiB");
	check(24.1 * MIB, PB_BYTES_FIG3, "24.1 MiB");
	check(1.5 * MIB, PB_BYTES_FIG3, "1.50 MiB");
	check(128 * KIB, PB_BYTES_FIG3, "128 KiB");
}

/* A figure that would round to 1024 of a unit reads as the next unit. */
static void test_no_1024_of_a_unit(void **state)
{
	(void)state;
	check(1023.96 * KIB, PB_BYTES_FIG3, "1.00 MiB");
	check(1023.6 * KIB, PB_BYTES_FIG3, "1.00 MiB");
	check(1023.7 * KIB, PB_BYTES_PROSE, "1.0 MiB");
	check(1023.999 * KIB, PB_BYTES_IEC, "1 MiB");
	check(1023.4 * KIB, PB_BYTES_FIG3, "1023 KiB");
}

static void test_format_truncates(void **state)
{
	(void)state;
	char buf[4] = {'x', 'x', 'x', 'x'};
	pb_format_bytes(buf, sizeof buf, 1536 * KIB, PB_BYTES_IEC);
	assert_string_equal(buf, "1.5");
	pb_format_bytes(buf, 0, 4096, PB_BYTES_EXACT); /* writes nothing */
	assert_string_equal(buf, "1.5");
}

/* ---- the wrapper ---------------------------------------------------------- */

static char *wrapped(int first, int indent, const char *label, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (label)
		pb_print_labelled(f, indent, label, text);
	else
		pb_print_wrapped_at(f, first, indent, text);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Every line at most PB_TEXT_WIDTH columns, none ends in a blank, the
 * continuation lines start with `indent` blanks; returns the line count. */
static int check_lines(const char *out, int indent)
{
	int n = 0;
	for (const char *p = out; *p;) {
		size_t len = strcspn(p, "\n");
		if (len > PB_TEXT_WIDTH || (len > 0 && p[len - 1] == ' '))
			fail_msg("line %d: %zu columns: '%.*s'", n + 1, len, (int)len, p);
		if (n > 0 && (strspn(p, " ") != (size_t)indent))
			fail_msg("line %d: not indented by %d: '%.*s'", n + 1, indent, (int)len, p);
		assert_int_equal(p[len], '\n');
		n++;
		p += len + 1;
	}
	return n;
}

/* The output with every line break and the blanks around it taken out:
 * a cut word comes back whole. */
static char *joined(const char *out)
{
	char *s = malloc(strlen(out) + 1);
	assert_non_null(s);
	size_t k = 0;
	for (const char *p = out; *p; p++) {
		if (*p == '\n') {
			while (k > 0 && s[k - 1] == ' ')
				k--;
			while (p[1] == ' ')
				p++;
			continue;
		}
		s[k++] = *p;
	}
	s[k] = '\0';
	return s;
}

static void test_wrap_short(void **state)
{
	(void)state;
	char *out = wrapped(2, 4, NULL, "  a   few  words ");
	assert_string_equal(out, "  a few words\n");
	free(out);
	out = wrapped(0, 4, NULL, "");
	assert_string_equal(out, "\n");
	free(out);
}

static void test_wrap_at_width(void **state)
{
	(void)state;
	/* 20 words of 7 letters: 10 a line (79 columns), then at the indent */
	char text[200] = "";
	for (int i = 0; i < 20; i++)
		strcat(text, i ? " abcdefg" : "abcdefg");
	char *out = wrapped(0, 8, NULL, text);
	assert_int_equal(check_lines(out, 8), 3);
	assert_int_equal(strcspn(out, "\n"), 79);
	free(out);
}

/* A long path mid-line, at the start of a line, and after a label: cut to
 * the width, every character kept in order, nothing past the width. */
static void test_wrap_long_path(void **state)
{
	(void)state;
	char path[301];
	for (int i = 0; i < 300; i++)
		path[i] = (char)('a' + i % 26);
	path[0] = '/';
	path[300] = '\0';
	char text[400];
	snprintf(text, sizeof text, "results: cannot write %s: No such file", path);
	char *out = wrapped(0, 4, NULL, text);
	assert_true(check_lines(out, 4) >= 5);
	char *j = joined(out);
	assert_non_null(strstr(j, path));
	free(j);
	free(out);

	out = wrapped(2, 4, NULL, path);
	check_lines(out, 4);
	assert_int_equal(strcspn(out, "\n"), PB_TEXT_WIDTH); /* fills the first line */
	j = joined(out);
	assert_string_equal(j + 2, path);
	free(j);
	free(out);

	out = wrapped(0, 16, "  path", text);
	check_lines(out, 16);
	j = joined(out);
	assert_non_null(strstr(j, path));
	free(j);
	free(out);
}

/* A word as long as a continuation line's room goes there whole. */
static void test_wrap_word_fits_a_line(void **state)
{
	(void)state;
	char word[77];
	memset(word, 'w', 76);
	word[76] = '\0';
	char text[100];
	snprintf(text, sizeof text, "abcd %s", word);
	char *out = wrapped(0, 4, NULL, text);
	assert_int_equal(check_lines(out, 4), 2);
	assert_int_equal(strncmp(out, "abcd\n    w", 10), 0);
	free(out);
}

static void test_labelled_keeps_units(void **state)
{
	(void)state;
	char *out = wrapped(0, 10, "caches",
	                    "L1d 48 KiB (sysfs), L2 2 MiB (sysfs), LLC 32 MiB (fallback), lines 64 "
	                    "B (64 fits, 64 B does not)");
	assert_string_equal(out, "caches    L1d 48 KiB (sysfs), L2 2 MiB (sysfs), LLC 32 MiB "
	                         "(fallback), lines\n"
	                         "          64 B (64 fits, 64 B does not)\n");
	free(out);
	out = wrapped(0, 10, "empty     ", "");
	assert_string_equal(out, "empty\n");
	free(out);
}

/* pb_html_text: the five references, control characters as spaces, UTF-8 kept. */
static void test_html_text(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pb_html_text(f, "a<b>&\"c\" 'd'\x01\x7f\t\n\xc2\xb5s");
	/* not UTF-8: a lone continuation byte, a cut sequence, an overlong
	 * '/', a surrogate, past U+10FFFF; each bad byte one U+FFFD */
	pb_html_text(f, "|\x80|\xe2\x82|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xf0\x9f\x98\x80|");
	fclose(f);
	assert_string_equal(buf,
	                    "a&lt;b&gt;&amp;&quot;c&quot; &apos;d&apos;  \t\n\xc2\xb5s"
	                    "|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
	                    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|"
	                    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xf0\x9f\x98\x80|");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact),
	    cmocka_unit_test(test_short),
	    cmocka_unit_test(test_iec),
	    cmocka_unit_test(test_prose_and_fig3),
	    cmocka_unit_test(test_no_1024_of_a_unit),
	    cmocka_unit_test(test_format_truncates),
	    cmocka_unit_test(test_html_text),
	    cmocka_unit_test(test_wrap_short),
	    cmocka_unit_test(test_wrap_at_width),
	    cmocka_unit_test(test_wrap_long_path),
	    cmocka_unit_test(test_wrap_word_fits_a_line),
	    cmocka_unit_test(test_labelled_keeps_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
