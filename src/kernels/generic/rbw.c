/* rbw.c - memset that reads each destination line before storing it.
 *
 * The load brings the line in before the stores need it (shared state, then
 * an upgrade on the first store), instead of letting the stores' own
 * read-for-ownership do it: the price of that difference is what this
 * kernel measures. Loads stay inside [d, end): a touch of the byte before
 * d could be in another object, or a guard page.
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

/* A load the compiler must keep. */
static inline void touch(const uint8_t *p)
{
	(void)*(const volatile uint8_t *)p;
}

PB_NO_VECTORIZE void *pb_memset_rbw(void *dst, int c, size_t n)
{
	uint8_t *d = dst, *end = d + n;
	uint64_t v = pb_splat64(c);

	if (n == 0)
		return dst;
	if (n <= 64) {
		touch(d);
		touch(end - 1);
		pb_set_upto64(d, n, v);
		return dst;
	}
	touch(d);
	touch(d + 63);
	pb_set_block64(d, v);
	uint8_t *p = pb_next_line(d);
	for (; end - p > 64; p += 64) {
		touch(p);
		pb_set_block64(p, v);
	}
	touch(end - 64);
	touch(end - 1);
	pb_set_block64(end - 64, v);
	return dst;
}
