/* curve.c - the latency curve's steps and the LLC they show
 * (include/primbench/curve.h). */
#include "primbench/curve.h"

double pb_curve_step_ratio(const struct pb_curve_point *pts, int n, int i)
{
	for (int j = 0; j < n; j++)
		if (pts[j].size_bytes * 2 == pts[i].size_bytes && pts[j].ns_per_load > 0)
			return pts[i].ns_per_load / pts[j].ns_per_load;
	return 0;
}

int pb_curve_steps(const struct pb_curve_point *pts, int n, struct pb_curve_step *st, int cap)
{
	int k = 0;
	for (int i = 0; i < n && k < cap; i++) {
		if (pb_curve_step_ratio(pts, n, i) < PB_CURVE_STEP_RATIO)
			continue;
		int j = i;
		while (j + 1 < n && pb_curve_step_ratio(pts, n, j + 1) >= PB_CURVE_STEP_RATIO)
			j++;
		double before = i > 0 ? pts[i - 1].ns_per_load : 0;
		st[k++] = (struct pb_curve_step){pts[i].size_bytes, pts[j].size_bytes,
		                                 before > 0 ? pts[j].ns_per_load / before : 0};
		i = j;
	}
	return k;
}

int pb_curve_llc_step(const struct pb_curve_point *pts, int n, uint64_t above_bytes,
                      double min_rise, uint64_t *from_bytes, double *rise)
{
	struct pb_curve_step st[PB_CURVE_MAX_POINTS];
	int nst = pb_curve_steps(pts, n, st, PB_CURVE_MAX_POINTS), best = -1;
	for (int i = 0; i < nst; i++)
		if (st[i].from > above_bytes && st[i].rise >= min_rise &&
		    (best < 0 || st[i].rise > st[best].rise))
			best = i;
	if (best < 0)
		return 0;
	*from_bytes = st[best].from;
	*rise = st[best].rise;
	return 1;
}

bool pb_curve_llc_agree(uint64_t *found, int nfound, int sweeps, uint64_t *llc_bytes)
{
	for (int a = 0; a < nfound; a++)
		for (int b = a + 1; b < nfound; b++)
			if (found[b] < found[a]) {
				uint64_t x = found[a];
				found[a] = found[b], found[b] = x;
			}
	if (!(nfound * 2 > sweeps && found[nfound - 1] <= 2 * found[0]))
		return false;
	*llc_bytes = found[nfound / 2];
	return true;
}
