/* primbench/text.h - the one text module (util, a leaf: usable from every
 * module): the line width every text output keeps to, the one byte-count
 * formatter and the one word wrapper.
 *
 * README: tables and messages paste into an email, so no line passes
 * PB_TEXT_WIDTH columns (tests/CMakeLists.txt, cli_width, checks it).
 */
#ifndef PRIMBENCH_TEXT_H
#define PRIMBENCH_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Text lines are at most this many columns. */
#define PB_TEXT_WIDTH 80

/* The forms of a byte count. Binary units throughout (1K = 1 KiB = 1024).
 * Short forms put a one-letter suffix against the number ("4K"), long
 * forms an IEC unit after a space ("4 KiB", and "100 B" below 1 KiB). A
 * fraction is rounded so that a figure never reads 1024 of a unit: it
 * moves to the next unit ("1.00 MiB", not "1024 KiB"). */
enum pb_bytes_style {
	/* "0", "64", "1023", "4K", "1536", "1536K", "32M", "15E": the suffix
	 * only on an exact multiple, so that the text parses back to the same
	 * number (pb_parse_size); table headers, policies, the CLI's sizes. */
	PB_BYTES_EXACT,
	/* "64", "1.5K", "1.25K", "32M": three significant figures, trailing
	 * zeros dropped, T the largest unit (plot axes and titles). */
	PB_BYTES_SHORT,
	/* "100 B", "48 KiB", "1.5 MiB", "181.38 MiB", "1024 TiB": two
	 * decimals at most, trailing zeros dropped, TiB the largest unit (the
	 * machine's caches and memory; cli tests name "1024 TiB"). */
	PB_BYTES_IEC,
	/* "390 B", "1.9 KiB", "24.1 MiB", "128 KiB", "4.0 KiB": three
	 * significant figures but one decimal at most, zeros kept (prose: the
	 * break-even sentences). */
	PB_BYTES_PROSE,
	/* "390 B", "1.94 KiB", "24.1 MiB", "128 KiB": three significant
	 * figures, zeros kept ("1.50 MiB": the accounting columns line up). */
	PB_BYTES_FIG3,
};

/* Writes `bytes` in `style` into buf[len] (cut to fit, always
 * NUL-terminated; nothing written when len is 0). A double, so that a
 * count that is not whole (a mean, an interpolated crossing) keeps its
 * fraction for the rounding of the figure; below 1 KiB the long and
 * fractional forms show whole bytes. PB_BYTES_EXACT is exact for every
 * count a double holds exactly (all up to 2^53, 8 PiB; every multiple of
 * 1K up to 2^63); 2^64 and up (UINT64_MAX converted) read as UINT64_MAX.
 * Negative and NaN counts read as 0. */
void pb_format_bytes(char *buf, size_t len, double bytes, enum pb_bytes_style style);

/* PB_BYTES_EXACT of a whole count, exact for every uint64_t (a double
 * rounds counts above 2^53: a policy's bound of 2^53 + 1 bytes would
 * write as 2^53). */
void pb_format_bytes_exact(char *buf, size_t len, uint64_t bytes);

/* The one word wrapper. Prints text's words (separated by runs of spaces;
 * tabs and newlines are not special) so that no line passes PB_TEXT_WIDTH
 * columns: the first line after `first` spaces, continuation lines after
 * `indent` spaces (clamped to PB_TEXT_WIDTH - 20), then a newline. A word
 * that does not fit the rest of a line starts the next one; a word longer
 * than a whole line (a long path) is cut: its first part fills the line it
 * starts on, the rest continues on the next lines (never past the width). */
void pb_print_wrapped_at(FILE *f, int first, int indent, const char *text);

/* Prints `label` padded with spaces to `indent` columns (a label that
 * fills the column or more gets one space after it), then `text` wrapped as
 * by pb_print_wrapped_at with continuation lines indented by `indent`; a
 * unit after a number ("16 B", "0.1 ppm", "3.5 GHz") stays on the number's
 * line. No text: the label alone, without trailing blanks. */
void pb_print_labelled(FILE *f, int indent, const char *label, const char *text);

/* Appends to the notes dst (cap bytes, '\0'-terminated, one note a line)
 * each line of src that dst does not hold yet: the notes of two runs of
 * one plan (replicates) without repeats. Lines past cap are cut. */
void pb_notes_merge(char *dst, size_t cap, const char *src);

/* The name of value v of an enum from a table indexed by the enum
 * (designated initializers: names[v]): names[v] when v < n and names[v] is
 * set, else `unknown` (a value out of range, or a hole in the table). */
const char *pb_enum_name(const char *const *names, size_t n, unsigned v, const char *unknown);

/* Writes s to f as HTML text, fit for an element's content and a quoted
 * attribute value alike: '&', '<', '>', '"' and '\'' as the five XML
 * predefined entities (&amp; &lt; &gt; &quot; &apos;: HTML5 knows them
 * too, so the page also reads as XML), other control characters but tab
 * and newline as spaces (not allowed in HTML text), UTF-8 as it is, and
 * each byte that does not start a valid UTF-8 sequence (RFC 3629) as
 * U+FFFD, the replacement character. */
void pb_html_text(FILE *f, const char *s);

/* The length in bytes (1 to 4) of the valid UTF-8 sequence (RFC 3629,
 * section 4: no overlong form, no surrogate, at most U+10FFFF) that s
 * starts with; 0 when s does not start one (or at its NUL). */
size_t pb_utf8_len(const char *s);

#endif
