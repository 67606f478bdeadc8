/* spin.c - a CPU-bound command of known length for the runs-to-verdict
 * study of `cmd` (docs/statistics.md, "Runs to a verdict: placement,
 * pairs, duets"): N iterations of a dependent multiply-add chain, no
 * memory traffic beyond a few registers and no system call after startup,
 * so that its time is N times the chain's latency plus the process's
 * start and exit. A pair whose true difference is 2% is `spin N` against
 * `spin 1.02N` (the start-up, a fraction of a millisecond, dilutes it
 * slightly: the study measures the ratio each pair gives alone).
 *
 * usage: spin ITERATIONS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	char *end;
	if (argc != 2 || (strtoull(argv[1], &end, 10), *end) || !argv[1][0]) {
		fprintf(stderr, "usage: spin ITERATIONS\n");
		return 2;
	}
	uint64_t n = strtoull(argv[1], NULL, 10), x = 1;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return (int)(x & 0);
}
