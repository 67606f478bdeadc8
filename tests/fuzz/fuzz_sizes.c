/* fuzz_sizes.c - the size and range grammar (include/primbench/sizes.h,
 * docs/cli-grammar.md) and the page-size lists of mem map
 * (include/primbench/pages.h).
 *
 * Input: the first byte chooses signed values (--distance) or not; the
 * rest is the text. Each parser ends in a value or one error; a value
 * written back exactly (pb_format_bytes, PB_BYTES_EXACT) parses to itself;
 * a list keeps no duplicate and never exceeds its bound. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/error.h"
#include "primbench/pages.h"
#include "primbench/sizes.h"
#include "primbench/text.h"

#define MAX_COUNT 4096

static void exact_round_trip(uint64_t v)
{
	char buf[64];
	uint64_t back;
	pb_format_bytes(buf, sizeof buf, (double)v, PB_BYTES_EXACT);
	/* a double holds integers exactly up to 2^53 */
	if (v <= (1ull << 53) && (pb_parse_size(buf, &back) != 0 || back != v))
		pb_fuzz_fail("%" PRIu64 " written as '%s' reads back as %s", v, buf,
		             pb_parse_size(buf, &back) ? pb_error() : "another value");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	int allow_negative = data[0] & 1;
	char *text = pb_fuzz_text(data + 1, size - 1);

	uint64_t v;
	if (pb_parse_size(text, &v) == 0) {
		pb_fuzz_outcome("size %" PRIu64, v);
		exact_round_trip(v);
	} else {
		pb_fuzz_outcome("size error: %s", pb_error());
	}

	struct pb_size_list l = {0};
	if (pb_parse_size_list(text, allow_negative, MAX_COUNT, &l) == 0) {
		if (l.count > MAX_COUNT)
			pb_fuzz_fail("a list of %zu values past its bound %d", l.count, MAX_COUNT);
		for (size_t i = 0; i < l.count; i++) {
			if (!allow_negative && l.values[i] < 0)
				pb_fuzz_fail("negative value %" PRId64 " in an unsigned list",
				             l.values[i]);
			for (size_t j = 0; j < i && l.count <= 256; j++)
				if (l.values[j] == l.values[i])
					pb_fuzz_fail("value %" PRId64 " twice in a list",
					             l.values[i]);
		}
		pb_fuzz_outcome("list of %zu, first %" PRId64 ", last %" PRId64, l.count,
		                l.count ? l.values[0] : 0, l.count ? l.values[l.count - 1] : 0);
		pb_size_list_free(&l);
	} else {
		pb_fuzz_outcome("list error: %s", pb_error());
	}

	size_t pages[PB_PAGE_SIZES_MAX], n = 0;
	if (pb_pages_parse(text, pages, &n) == 0) {
		if (n > PB_PAGE_SIZES_MAX)
			pb_fuzz_fail("%zu page sizes past PB_PAGE_SIZES_MAX", n);
		pb_fuzz_outcome("pages %zu", n);
	} else {
		pb_fuzz_outcome("pages error: %s", pb_error());
	}
	free(text);
	return 0;
}
