/* none/readback.c - the --then-read loop in portable C: 8-byte loads into
 * four independent sums (suites/readback.h). */
#include <string.h>

#include "suites/readback.h"

static uint64_t read_back_u64(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, w0, w1, w2, w3;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		memcpy(&w0, b + i, 8);
		memcpy(&w1, b + i + 8, 8);
		memcpy(&w2, b + i + 16, 8);
		memcpy(&w3, b + i + 24, 8);
		s0 += w0;
		s1 += w1;
		s2 += w2;
		s3 += w3;
	}
	for (; i < n; i++)
		s0 += b[i];
	return s0 ^ s1 ^ s2 ^ s3;
}

pb_read_back_fn pb_read_back_pick(const char **what)
{
	*what = "8-byte loads";
	return read_back_u64;
}
