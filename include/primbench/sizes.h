/* primbench/sizes.h - the command-line grammar for sizes, offsets and ranges
 * (docs/cli-grammar.md).
 *
 * Size: decimal or 0x hex bytes, optional suffix K/KB/KiB = 1024,
 *   M/MB/MiB = 1024^2, G/GB/GiB = 1024^3 (binary, as perf bench),
 *   case-insensitive. Overflow of uint64 is an error.
 * List: items separated by commas; each item is a size or a range:
 *   a..b    doubling from a up to b: a, 2a, 4a, ... <= b (so powers of two
 *           when a is one; a range from 0 gives 0, then 1, 2, 4, ...)
 *   a..b:s  linear steps of s (0..63:1)
 *   a..b/n  n points per octave, geometric, rounded to whole bytes, deduped
 * Signed values (for --distance): an optional leading '-' per number.
 */
#ifndef PRIMBENCH_SIZES_H
#define PRIMBENCH_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* Parses one size. Returns 0, or -1 with pb_error() set, e.g.
 * "bad size '10Q': unknown suffix 'Q'", "size '99999999999999999999' overflows". */
int pb_parse_size(const char *text, uint64_t *out_bytes);

/* A parsed list of values (ascending order is NOT imposed: list order kept,
 * duplicates removed keeping the first). */
struct pb_size_list {
	int64_t *values;
	size_t count;
};

/* Parses a list with ranges. allow_negative: values may be negative
 * (--distance). max_count bounds the expansion (error past it).
 * Returns 0 or -1 with pb_error(). Free with pb_size_list_free(). */
int pb_parse_size_list(const char *text, int allow_negative, size_t max_count,
                       struct pb_size_list *out);
void pb_size_list_free(struct pb_size_list *l);

/* The inverse, the text of a size: pb_format_bytes(PB_BYTES_EXACT) in
 * primbench/text.h. */

#endif
