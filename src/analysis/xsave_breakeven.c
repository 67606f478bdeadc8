/* xsave_breakeven.c - where the best SIMD kernel plus one save+restore of
 * the SIMD state beats rep stosb/movsb, and how close it came where it
 * never does (include/primbench/breakeven.h; xsave's break-even line,
 * docs/methodology.md "SIMD state saving"). */
#include "primbench/breakeven.h"

#include <math.h>

int pb_xsave_breakeven(const double *simd, const double *rep, size_t n, double pair)
{
	int from = -1;
	for (size_t j = n; j-- > 0;) {
		bool holds = isfinite(simd[j]) && isfinite(rep[j]) && isfinite(pair) &&
		             simd[j] + pair < rep[j];
		if (!holds)
			break;
		from = (int)j;
	}
	return from;
}

int pb_xsave_largest_lead(const double *simd, const double *rep, size_t n)
{
	int best = -1;
	for (size_t z = 0; z < n; z++)
		if (!isnan(simd[z]) && !isnan(rep[z]) &&
		    (best < 0 || rep[z] - simd[z] > rep[best] - simd[best]))
			best = (int)z;
	return best;
}
