/* fuzz_distribution.c - call-size distributions (include/primbench/
 * distribution.h): pb_distribution_parse, then pb_distribution_draw.
 *
 * Input: the file's text, whole (so the files of tests/data/distributions
 * and data/size-distributions are seeds as they are). Named "fuzz.csv"
 * in messages.
 *
 * Checked on success: 1 <= n_values <= PB_DIST_SIZES; the probabilities
 * are finite, >= 0 and sum to 1; min_bytes and max_bytes are the first and
 * last size of non-zero probability; share_le_128 and mean_bytes agree
 * with them; DRAWS sizes drawn with a fixed seed are each a size of
 * non-zero probability, and drawing again with that seed gives the same
 * sizes; offsets lie in their window. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/distribution.h"
#include "primbench/error.h"

/* What a file may hold (distribution.c reads at most 1 MiB); the parser is
 * linear, the draw's table is O(n_values). */
#define MAX_INPUT (1u << 20)
#define DRAWS     256
#define WINDOW    7
#define SEED      0x5eedu

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	/* the parser takes a length: no terminator, no copy (ASan sees a read
	 * past the end) */
	struct pb_distribution d;
	if (pb_distribution_parse("fuzz.csv", (const char *)data, size, &d) != 0) {
		pb_fuzz_outcome("error: %s", pb_error());
		return 0;
	}
	if (d.n_values < 1 || d.n_values > PB_DIST_SIZES)
		pb_fuzz_fail("%zu values", d.n_values);
	if (strcmp(d.name, "fuzz") != 0 || strcmp(d.path, "fuzz.csv") != 0)
		pb_fuzz_fail("name '%s', path '%s'", d.name, d.path);
	if (!(d.weight_sum > 0) || !isfinite(d.weight_sum))
		pb_fuzz_fail("weight sum %g", d.weight_sum);
	double sum = 0, le128 = 0, mean = 0;
	size_t lo = d.n_values, hi = 0;
	for (size_t i = 0; i < d.n_values; i++) {
		double p = d.prob[i];
		if (!(p >= 0) || !isfinite(p))
			pb_fuzz_fail("probability %g of size %zu", p, i);
		sum += p;
		le128 += i <= 128 ? p : 0;
		mean += p * (double)i;
		if (p > 0) {
			lo = lo < i ? lo : i;
			hi = i;
		}
	}
	if (lo == d.n_values || lo != d.min_bytes || hi != d.max_bytes)
		pb_fuzz_fail("sizes %zu..%zu have weight, min_bytes %zu, max_bytes %zu", lo, hi,
		             d.min_bytes, d.max_bytes);
	if (fabs(sum - 1) > 1e-9)
		pb_fuzz_fail("probabilities sum to %.17g", sum);
	if (fabs(le128 - d.share_le_128) > 1e-9 || fabs(mean - d.mean_bytes) > 1e-6 * (1 + mean))
		pb_fuzz_fail("share_le_128 %g (want %g), mean_bytes %g (want %g)", d.share_le_128,
		             le128, d.mean_bytes, mean);

	uint32_t sizes[DRAWS], again[DRAWS], offsets[2 * DRAWS];
	if (pb_distribution_draw(&d, SEED, sizes, DRAWS, offsets, WINDOW) != 0)
		pb_fuzz_fail("draw: %s", pb_error());
	for (size_t i = 0; i < DRAWS; i++)
		if (sizes[i] >= d.n_values || !(d.prob[sizes[i]] > 0))
			pb_fuzz_fail("drew size %u, of probability %g (%zu values)", sizes[i],
			             sizes[i] < d.n_values ? d.prob[sizes[i]] : 0.0, d.n_values);
	for (size_t i = 0; i < 2 * DRAWS; i++)
		if (offsets[i] >= WINDOW)
			pb_fuzz_fail("offset %u outside a window of %d", offsets[i], WINDOW);
	if (pb_distribution_draw(&d, SEED, again, DRAWS, NULL, 0) != 0)
		pb_fuzz_fail("draw: %s", pb_error());
	if (memcmp(sizes, again, sizeof sizes) != 0)
		pb_fuzz_fail("the same seed drew other sizes");
	/* The sizes themselves depend on GSL's sampler (distribution.h): the
	 * outcome names what the file says. */
	pb_fuzz_outcome("ok %zu values, sizes %zu..%zu, sum %.6g", d.n_values, d.min_bytes,
	                d.max_bytes, d.weight_sum);
	pb_distribution_free(&d);
	return 0;
}
