/* test_twosample.c - two-sample comparisons against ministat(1), an
 * independent brute-force implementation (tests/reference/twosample_ref.py)
 * and a textbook example; the sequential plan's false-verdict rate on
 * simulated A/A experiments and its power on a real 10% shift. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "primbench/error.h"
#include "primbench/twosample.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* |a - b| <= rel * |b| (or <= rel when b == 0). */
#define assert_rel(a, b, rel)                                                                      \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		double tol_ = (rel) * (b_ == 0 ? 1 : fabs(b_));                                    \
		if (!(fabs(a_ - b_) <= tol_))                                                      \
			fail_msg("%s = %.17g, expected %.17g (rel %g)", #a, a_, b_,                \
			         (double)(rel));                                                   \
	} while (0)

/* ---- the data sets (also tests/data/stats/, for the CLI cases) ---- */

/* ministat(1)'s own example (iguana, chameleon): ties within and across. */
static const double iguana[] = {50, 200, 150, 400, 750, 400, 150};
static const double chameleon[] = {150, 400, 720, 500, 930};
/* Hollander & Wolfe, Nonparametric Statistical Methods (1973), p. 69, the
 * example of R's ?wilcox.test: permeability constants, no ties, 10 vs 5. */
static const double hw_x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
static const double hw_y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
/* Timings in whole ticks: many ties, 12 vs 15. */
static const double ticks_a[] = {102, 100, 101, 100, 103, 100, 102, 101, 100, 104, 101, 100};
static const double ticks_b[] = {104, 103, 105, 103, 104, 110, 103, 104,
                                 106, 105, 103, 104, 107, 104, 105};
/* No ties, 8 vs 9 and 11 vs 12. */
static const double nt8[] = {12.1, 13.4, 11.8, 14.2, 12.9, 13.1, 12.4, 15.0};
static const double nt9[] = {13.9, 14.8, 13.3, 15.6, 14.1, 16.2, 12.7, 14.5, 15.3};
static const double nt11[] = {5.11, 5.32, 4.98, 5.05, 5.41, 5.27, 5.19, 5.02, 5.36, 5.14, 5.23};
static const double nt12[] = {5.29, 5.48, 5.57, 5.39, 5.62, 5.44,
                              5.51, 5.33, 5.70, 5.46, 5.53, 5.25};

/* ---- Student's t against ministat ---- */

/* ministat's figures, from `ministat -A -c LEVEL X Y` with the files in
 * tests/data/stats/ (ministat 20150715-1+b1, Debian 12); its t quantiles
 * are a table rounded to 3 decimals, hence the 1e-3 tolerance on the
 * interval. */
struct ministat_ref {
	const char *what;
	const double *x, *y;
	size_t nx, ny;
	double level;
	int significant; /* "Difference at ..." (1) or "No difference proven" (0) */
	double diff, half_width, pct, pct_half_width, pooled_sd;
};

static const struct ministat_ref ministat_refs[] = {
    /* ministat -A -c 80 iguana chameleon */
    {"iguana/chameleon 80%", iguana, chameleon, 7, 5, 0.80, 1, 240, 212.215, 80, 70.7384, 264.159},
    /* ministat -A -c 95 iguana chameleon: No difference proven */
    {"iguana/chameleon 95%", iguana, chameleon, 7, 5, 0.95, 0, 240, NAN, 80, NAN, 264.159},
    /* ministat -A -c 80 hw-x hw-y */
    {"hw 80%", hw_x, hw_y, 10, 5, 0.80, 1, -0.337, 0.283257, -25.6664, 21.5733, 0.383078},
    /* ministat -A -c 95 hw-x hw-y: No difference proven */
    {"hw 95%", hw_x, hw_y, 10, 5, 0.95, 0, -0.337, NAN, -25.6664, NAN, 0.383078},
    /* ministat -A -c 80 ticks-a ticks-b */
    {"ticks 80%", ticks_a, ticks_b, 12, 15, 0.80, 1, 3.5, 0.846752, 3.45964, 0.836987, 1.66132},
    /* ministat -A -c 95 ticks-a ticks-b */
    {"ticks 95%", ticks_a, ticks_b, 12, 15, 0.95, 1, 3.5, 1.32546, 3.45964, 1.31018, 1.66132},
    /* ministat -A -c 99 ticks-a ticks-b */
    {"ticks 99%", ticks_a, ticks_b, 12, 15, 0.99, 1, 3.5, 1.79323, 3.45964, 1.77255, 1.66132},
};

static void test_ttest_ministat(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(ministat_refs); i++) {
		const struct ministat_ref *r = &ministat_refs[i];
		struct pb_ttest t;
		assert_int_equal(pb_ttest_pooled(r->x, r->nx, r->y, r->ny, r->level, &t), 0);
		print_message("%s: %g +/- %g, %g%% +/- %g%%, pooled s %g, t %g\n", r->what, t.diff,
		              t.half_width, t.pct, t.pct_half_width, t.pooled_sd, t.t_quantile);
		assert_int_equal(t.significant, r->significant);
		assert_rel(t.diff, r->diff, 1e-5); /* ministat prints %g: 6 digits */
		assert_rel(t.pct, r->pct, 1e-5);
		assert_rel(t.pooled_sd, r->pooled_sd, 1e-5);
		if (!isnan(r->half_width)) {
			assert_rel(t.half_width, r->half_width, 1e-3);
			assert_rel(t.pct_half_width, r->pct_half_width, 1e-3);
		}
		assert_rel(t.df, (double)(r->nx + r->ny - 2), 0);
		assert_rel(t.level, r->level, 0);
	}
}

static void test_ttest_quantile(void **state)
{
	(void)state;
	/* t(0.975, 10) = 2.228138852 and t(0.995, 25) = 2.787435814 (any
	 * t table to 3 decimals: 2.228, 2.787). */
	const double x[] = {1, 2, 3, 4, 5, 6}, y[] = {2, 3, 4, 5, 6, 7};
	struct pb_ttest t;
	assert_int_equal(pb_ttest_pooled(x, 6, y, 6, 0.95, &t), 0);
	assert_rel(t.t_quantile, 2.228138852, 1e-8);
	assert_rel(t.mean_x, 3.5, 1e-15);
	assert_rel(t.mean_y, 4.5, 1e-15);
	assert_rel(t.pooled_sd, sqrt(3.5), 1e-15);
	assert_rel(t.half_width, 2.228138852 * sqrt(3.5) * sqrt(1.0 / 3), 1e-8);
	assert_false(t.significant);
	double y2[27];
	for (size_t i = 0; i < N_OF(y2); i++)
		y2[i] = (double)i;
	assert_int_equal(pb_ttest_pooled(y2, 2, y2, 25, 0.99, &t), 0);
	assert_rel(t.t_quantile, 2.787435814, 1e-8);
}

/* ---- Mann-Whitney U against the brute-force reference ---- */

/* From tests/reference/twosample_ref.py (python3, exact rational counts of
 * every rank split; with ties, of every split of the observed values: see
 * the script). p_exact < 0: the normal approximation (z_normal, p_normal). */
struct u_ref {
	const char *what;
	const double *x, *y;
	size_t nx, ny;
	double u_x, p_exact, z_normal, p_normal;
};

/* Ties: 3 vs 3 and 4 vs 4 tied within each side, ties across the sides,
 * 10 vs 10 and 30 vs 31 in whole ticks (x: 100 + (7i mod 5), y: 101 +
 * (3j mod 6); filled in by fill_tied_30_31). */
static const double t33x[] = {5, 5, 5}, t33y[] = {6, 6, 6};
static const double t44x[] = {5, 5, 5, 5}, t44y[] = {6, 6, 6, 6};
static const double t54x[] = {10, 11, 11, 12, 12}, t54y[] = {11, 12, 13, 13};
static const double t10x[] = {100, 101, 100, 102, 100, 101, 103, 100, 101, 102};
static const double t10y[] = {101, 102, 103, 101, 104, 102, 103, 102, 101, 105};
static double t30x[30], t31y[31];

static void fill_tied_30_31(void)
{
	for (size_t i = 0; i < 30; i++)
		t30x[i] = 100 + (double)((7 * i) % 5);
	for (size_t j = 0; j < 31; j++)
		t31y[j] = 101 + (double)((3 * j) % 6);
}

static const struct u_ref u_refs[] = {
    {"iguana/chameleon", iguana, chameleon, 7, 5, 9.0, 0.19191919191919191, NAN, NAN},
    {"hollander-wolfe", hw_x, hw_y, 10, 5, 35.0, 0.2544122544122544, 1.1635076278220096,
     0.24462360512698333},
    {"ticks", ticks_a, ticks_b, 12, 15, 8.5, 6.9029548098063378e-06, NAN, NAN},
    {"no ties 8/9", nt8, nt9, 8, 9, 14.0, 0.035952283011106541, -2.0688384645961588,
     0.038561247597424637},
    {"no ties 11/12", nt11, nt12, 11, 12, 10.0, 0.00020560943969208877, -3.4157888746764833,
     0.0006359753413841628},
    {"tied 3/3", t33x, t33y, 3, 3, 0.0, 0.10000000000000001, NAN, NAN},
    {"tied 4/4", t44x, t44y, 4, 4, 0.0, 0.028571428571428571, NAN, NAN},
    {"tied 5/4", t54x, t54y, 5, 4, 4.0, 0.22222222222222221, NAN, NAN},
    {"tied 10/10", t10x, t10y, 10, 10, 20.5, 0.02241875771287536, NAN, NAN},
    {"tied 30/31", t30x, t31y, 30, 31, 381.0, -1, -1.2629788336321, 0.20659678658033112},
};

static void test_mann_whitney_reference(void **state)
{
	(void)state;
	fill_tied_30_31();
	for (size_t i = 0; i < N_OF(u_refs); i++) {
		const struct u_ref *r = &u_refs[i];
		struct pb_utest u;
		assert_int_equal(pb_mann_whitney(r->x, r->nx, r->y, r->ny, &u), 0);
		print_message("%s: U %g, p %g (%s)\n", r->what, u.u_x, u.p,
		              u.exact ? "exact" : "normal");
		assert_rel(u.u_x, r->u_x, 0);
		if (r->p_exact >= 0) {
			assert_true(u.exact);
			assert_rel(u.p, r->p_exact, 1e-12);
		} else {
			assert_false(u.exact);
			assert_rel(u.z, r->z_normal, 1e-12);
			assert_rel(u.p, r->p_normal, 1e-9);
		}
		/* Swapping the samples mirrors U and keeps p. */
		struct pb_utest v;
		assert_int_equal(pb_mann_whitney(r->y, r->ny, r->x, r->nx, &v), 0);
		assert_rel(v.u_x, (double)(r->nx * r->ny) - r->u_x, 0);
		assert_rel(v.p, u.p, 1e-12);
	}
}

/* With ties the p-value is exact while nx + ny <= 60: never below the
 * smallest p any split can have, 2 / C(nx + ny, nx) (the normal
 * approximation went below it: 0.047 for 3 vs 3 tied, where the exact
 * floor is 0.1). Random samples in whole ticks, every size up to 30 vs
 * 30; the ranks are exchangeable, so p does not depend on the order. */
static void test_mann_whitney_ties(void **state)
{
	(void)state;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 12345);
	double x[60], y[60];
	for (size_t nx = 1; nx <= 30; nx += 1 + nx / 4) {
		for (size_t ny = 1; ny <= 30; ny += 1 + ny / 3) {
			for (size_t rep = 0; rep < 5; rep++) {
				unsigned spread = 1 + (unsigned)rep * 2;
				for (size_t i = 0; i < nx; i++)
					x[i] = 100 + (double)gsl_rng_uniform_int(rng, spread);
				for (size_t j = 0; j < ny; j++)
					y[j] = 100 + (double)(rep % 2) +
					       (double)gsl_rng_uniform_int(rng, spread);
				struct pb_utest u, v;
				assert_int_equal(pb_mann_whitney(x, nx, y, ny, &u), 0);
				double floor_p =
				    2 / gsl_sf_choose((unsigned)(nx + ny), (unsigned)nx);
				assert_true(u.p >= fmin(1, floor_p) * (1 - 1e-12));
				assert_true(u.p > 0 && u.p <= 1);
				/* some ties are certain with nx + ny > spread */
				if (nx + ny > spread)
					assert_true(u.exact);
				assert_int_equal(pb_mann_whitney(y, ny, x, nx, &v), 0);
				assert_rel(v.p, u.p, 1e-12);
			}
		}
	}
	gsl_rng_free(rng);

	/* The boundary: 30 + 30 exact, 30 + 31 the normal approximation; the
	 * two agree roughly in the middle. Time of the largest case. */
	for (size_t i = 0; i < 31; i++) {
		x[i] = (double)(i % 4);
		y[i] = (double)(i % 5);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct pb_utest u;
	assert_int_equal(pb_mann_whitney(x, 30, y, 30, &u), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message(
	    "30 vs 30 with ties, exact: p %g in %.1f ms\n", u.p,
	    1e3 * ((double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)));
	assert_true(u.exact);
	double p60 = u.p;
	assert_int_equal(pb_mann_whitney(x, 30, y, 31, &u), 0);
	assert_false(u.exact);
	assert_true(fabs(u.p - p60) < 0.1);

	/* 59 against 1 with ties: one row of counts is enough. */
	for (size_t i = 0; i < 59; i++)
		x[i] = (double)(i % 3);
	y[0] = 2;
	assert_int_equal(pb_mann_whitney(x, 59, y, 1, &u), 0);
	assert_true(u.exact);
	/* y's rank is 50 of 60 (midrank of the 20 twos); P(rank >= 50) =
	 * 20/60: p = 2/3. */
	assert_rel(u.p, 2.0 / 3.0, 1e-12);
}

/* Hollander & Wolfe (1973), p. 69: W = 35, one-sided exact p = 0.1272 (as
 * printed by R's wilcox.test(x, y, alternative = "greater")); two-sided
 * twice that. */
static void test_textbook_hollander_wolfe(void **state)
{
	(void)state;
	struct pb_utest u;
	assert_int_equal(pb_mann_whitney(hw_x, 10, hw_y, 5, &u), 0);
	assert_rel(u.u_x, 35, 0);
	assert_true(u.exact);
	assert_true(fabs(u.p / 2 - 0.1272) < 0.00005);
}

/* The exact distribution at the extremes: x entirely below y gives
 * P(U <= 0) = 1 / C(m+n, m); 50 vs 50 needs C(100, 50) ~ 1.0089e29,
 * beyond 64-bit integers. */
static void test_mann_whitney_extremes(void **state)
{
	(void)state;
	double x[50], y[50];
	for (size_t i = 0; i < 50; i++) {
		x[i] = (double)i;
		y[i] = 100.0 + (double)i;
	}
	struct pb_utest u;
	assert_int_equal(pb_mann_whitney(x, 10, y, 10, &u), 0);
	assert_true(u.exact);
	assert_rel(u.u_x, 0, 0);
	assert_rel(u.p, 2.0 / 184756.0, 1e-13);
	assert_int_equal(pb_mann_whitney(x, 50, y, 50, &u), 0);
	assert_true(u.exact);
	assert_rel(u.p, 2.0 / 100891344545564193334812497256.0, 1e-13);
	assert_int_equal(pb_mann_whitney(y, 50, x, 50, &u), 0);
	assert_rel(u.u_x, 2500, 0);
	assert_rel(u.p, 2.0 / 100891344545564193334812497256.0, 1e-13);

	/* Interleaved 50 vs 50: exact, close to the normal approximation. */
	for (size_t i = 0; i < 50; i++) {
		x[i] = (double)(2 * i);
		y[i] = (double)(2 * i + 1) + (i % 7 == 0 ? 20.5 : 0);
	}
	assert_int_equal(pb_mann_whitney(x, 50, y, 50, &u), 0);
	assert_true(u.exact);
	double mn = 2500, sigma = sqrt(mn * 101 / 12);
	double z = (fabs(u.u_x - mn / 2) - 0.5) / sigma;
	assert_true(fabs(u.p - 2 * gsl_cdf_ugaussian_Q(z)) < 0.005);

	/* One more than 50: the normal approximation. */
	double big[51];
	for (size_t i = 0; i < 51; i++)
		big[i] = 1000.0 + (double)i;
	assert_int_equal(pb_mann_whitney(x, 50, big, 51, &u), 0);
	assert_false(u.exact);

	/* Every value equal: p = 1 (exact: every split has the same U). */
	const double same[] = {3, 3, 3};
	assert_int_equal(pb_mann_whitney(same, 3, same, 3, &u), 0);
	assert_true(u.exact);
	assert_rel(u.p, 1, 0);
	assert_rel(u.u_x, 4.5, 0);
	double many[61];
	for (size_t i = 0; i < 61; i++)
		many[i] = 3;
	assert_int_equal(pb_mann_whitney(many, 30, many, 31, &u), 0);
	assert_false(u.exact);
	assert_rel(u.p, 1, 0);
	/* One sample each, different: U = 0 or 1, exact p = 1. */
	assert_int_equal(pb_mann_whitney(x, 1, y, 1, &u), 0);
	assert_true(u.exact);
	assert_rel(u.p, 1, 0);
}

/* ---- Hodges-Lehmann against the brute-force reference ---- */

struct hl_ref {
	const char *what;
	const double *x, *y;
	size_t nx, ny;
	double level;
	double estimate, lo, hi, coverage; /* shift y - x */
	double r_estimate, r_lo, r_hi;     /* ratio y / x */
};

/* tests/reference/twosample_ref.py: HL as the median of all pairwise
 * differences, fully sorted; k from the enumerated distribution of U. */
static const struct hl_ref hl_refs[] = {
    {"iguana/chameleon 95%", iguana, chameleon, 7, 5, 0.95, 250, -50, 570, 0.952020202020202,
     2.3249999999999997, 0.7500000000000001, 6.199999999999999},
    {"iguana/chameleon 99%", iguana, chameleon, 7, 5, 0.99, 250, -350, 780, 0.9949494949494949,
     2.3249999999999997, 0.375, 14.400000000000004},
    {"hollander-wolfe 95%", hw_x, hw_y, 10, 5, 0.95, -0.30500000000000005, -0.7599999999999999,
     0.15000000000000002, 0.9600399600399601, 0.76233042567848186, 0.5103448275862069,
     1.1634615384615383},
    {"hollander-wolfe 99%", hw_x, hw_y, 10, 5, 0.99, -0.30500000000000005, -1.0099999999999998,
     0.34999999999999987, 0.9920079920079921, 0.76233042567848186, 0.4656084656084656,
     1.4374999999999998},
    {"ticks 95%", ticks_a, ticks_b, 12, 15, 0.95, 3, 2, 4, 0.9531336538605351, 1.0299999999999996,
     1.0198019801980196, 1.0399999999999994},
    {"ticks 99%", ticks_a, ticks_b, 12, 15, 0.99, 3, 2, 5, 0.9912903118179737, 1.0299999999999996,
     1.019607843137255, 1.0499999999999992},
    {"no ties 8/9 95%", nt8, nt9, 8, 9, 0.95, 1.4000000000000004, 0.29999999999999893,
     2.6999999999999993, 0.9535993418346359, 1.1056732732874401, 1.02, 1.2089552238805967},
    {"no ties 8/9 99%", nt8, nt9, 8, 9, 0.99, 1.4000000000000004, -0.29999999999999893,
     3.0999999999999996, 0.9921020156314274, 1.1056732732874401, 0.9788732394366197,
     1.254237288135593},
    {"no ties 11/12 95%", nt11, nt12, 11, 12, 0.95, 0.27499999999999991, 0.13999999999999968,
     0.41000000000000014, 0.9561208746832653, 1.0536946445317257, 1.0273972602739727,
     1.0815939278937383},
    {"no ties 11/12 99%", nt11, nt12, 11, 12, 0.99, 0.27499999999999991, 0.09999999999999964,
     0.45999999999999996, 0.991374757965147, 1.0536946445317257, 1.0191204588910132,
     1.0900195694716244},
};

static void test_hodges_lehmann_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_OF(hl_refs); i++) {
		const struct hl_ref *r = &hl_refs[i];
		struct pb_shift s;
		assert_int_equal(pb_hodges_lehmann(r->x, r->nx, r->y, r->ny, r->level, &s), 0);
		print_message("%s: shift %g [%g, %g] (%.4f)\n", r->what, s.estimate, s.lo, s.hi,
		              s.coverage);
		assert_true(s.ci_valid);
		assert_rel(s.estimate, r->estimate, 1e-12);
		assert_rel(s.lo, r->lo, 1e-12);
		assert_rel(s.hi, r->hi, 1e-12);
		assert_rel(s.coverage, r->coverage, 1e-12);
		assert_rel(s.level, r->level, 0);
		assert_int_equal(pb_hodges_lehmann_ratio(r->x, r->nx, r->y, r->ny, r->level, &s),
		                 0);
		assert_true(s.ci_valid);
		assert_rel(s.estimate, r->r_estimate, 1e-12);
		assert_rel(s.lo, r->r_lo, 1e-12);
		assert_rel(s.hi, r->r_hi, 1e-12);
		assert_rel(s.coverage, r->coverage, 1e-12);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Above 50 per side, k = floor(mn/2 + 1/2 - z sqrt(mn(m+n+1)/12)):
 * checked against a full sort of the differences, with ties. */
static void test_hodges_lehmann_normal_ranks(void **state)
{
	(void)state;
	enum { M = 300, N = 240 };
	double *x = malloc(M * sizeof *x), *y = malloc(N * sizeof *y);
	double *d = malloc((size_t)M * N * sizeof *d);
	assert_non_null(x);
	assert_non_null(y);
	assert_non_null(d);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 7);
	for (size_t i = 0; i < M; i++)
		x[i] = floor(gsl_ran_lognormal(rng, log(1000), 0.05));
	for (size_t j = 0; j < N; j++)
		y[j] = floor(gsl_ran_lognormal(rng, log(1030), 0.05));
	gsl_rng_free(rng);
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++)
			d[i * N + j] = y[j] - x[i];
	size_t mn = (size_t)M * N;
	qsort(d, mn, sizeof *d, cmp_double);
	double sigma = sqrt((double)mn * (M + N + 1) / 12.0);
	size_t k = (size_t)floor((double)mn / 2 + 0.5 - gsl_cdf_ugaussian_Pinv(0.975) * sigma);
	struct pb_shift s;
	assert_int_equal(pb_hodges_lehmann(x, M, y, N, 0.95, &s), 0);
	assert_rel(s.estimate, (d[mn / 2 - 1] + d[mn / 2]) / 2, 0);
	assert_rel(s.lo, d[k - 1], 0);
	assert_rel(s.hi, d[mn - k], 0);
	assert_true(s.coverage >= 0.95 && s.coverage < 0.951);
	/* An odd number of pairs: the middle one. */
	assert_int_equal(pb_hodges_lehmann(x, 61, y, 61, 0.95, &s), 0);
	for (size_t i = 0; i < 61; i++)
		for (size_t j = 0; j < 61; j++)
			d[i * 61 + j] = y[j] - x[i];
	qsort(d, 61 * 61, sizeof *d, cmp_double);
	assert_rel(s.estimate, d[61 * 61 / 2], 0);
	free(x);
	free(y);
	free(d);
}

/* 2000 x 2000 = 4 million differences by selection, not sorting. y = x +
 * 0.5 with x = 0..1999: the differences j - i + 0.5 are symmetric about
 * 0.5, and so is the interval. */
static void test_hodges_lehmann_large(void **state)
{
	(void)state;
	enum { N = 2000 };
	double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
	assert_non_null(x);
	assert_non_null(y);
	for (size_t i = 0; i < N; i++) {
		x[(i * 7919) % N] = (double)i; /* shuffled */
		y[(i * 104729) % N] = (double)i + 0.5;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct pb_shift s;
	assert_int_equal(pb_hodges_lehmann(x, N, y, N, 0.95, &s), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	print_message("4M differences: %.3f s; shift %g [%g, %g]\n", secs, s.estimate, s.lo, s.hi);
	assert_rel(s.estimate, 0.5, 0);
	assert_true(s.ci_valid);
	assert_rel(s.lo - 0.5, -(s.hi - 0.5), 0);
	assert_true(s.lo < 0.5 && s.lo > -60);
	free(x);
	free(y);
}

static void test_hodges_lehmann_small_and_constant(void **state)
{
	(void)state;
	const double x[] = {1, 2, 3}, y[] = {4, 5, 6};
	struct pb_shift s;
	/* 3 vs 3: the widest interval covers 1 - 2/20 = 90%: none at 95%. */
	assert_int_equal(pb_hodges_lehmann(x, 3, y, 3, 0.95, &s), 0);
	assert_false(s.ci_valid);
	assert_true(isnan(s.lo) && isnan(s.hi) && isnan(s.coverage));
	assert_rel(s.estimate, 3, 0);
	assert_int_equal(pb_hodges_lehmann(x, 3, y, 3, 0.90, &s), 0);
	assert_true(s.ci_valid);
	assert_rel(s.lo, 1, 0);
	assert_rel(s.hi, 5, 0);
	assert_rel(s.coverage, 0.9, 1e-15);
	assert_int_equal(pb_hodges_lehmann_ratio(x, 3, y, 3, 0.95, &s), 0);
	assert_false(s.ci_valid);
	assert_true(isnan(s.lo) && isnan(s.hi));
	/* One sample each. */
	assert_int_equal(pb_hodges_lehmann(x, 1, y, 1, 0.5, &s), 0);
	assert_rel(s.estimate, 3, 0);
	assert_false(s.ci_valid);
	/* Constant samples: a point interval. */
	const double c[] = {7, 7, 7, 7, 7, 7};
	assert_int_equal(pb_hodges_lehmann(c, 6, c, 6, 0.95, &s), 0);
	assert_true(s.ci_valid);
	assert_rel(s.estimate, 0, 0);
	assert_rel(s.lo, 0, 0);
	assert_rel(s.hi, 0, 0);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
	(void)state;
	const double x[] = {1, 2, 3}, bad[] = {1, NAN, 3}, inf[] = {1, 2, INFINITY};
	const double zero[] = {1, 0, 3};
	struct pb_ttest t;
	struct pb_utest u;
	struct pb_shift s;
	struct pb_seq_plan p;

	assert_int_equal(pb_ttest_pooled(x, 1, x, 3, 0.95, &t), -1);
	assert_non_null(strstr(pb_error(), "needs at least 2"));
	assert_int_equal(pb_ttest_pooled(x, 3, bad, 3, 0.95, &t), -1);
	assert_non_null(strstr(pb_error(), "y[1] is not finite"));
	assert_int_equal(pb_ttest_pooled(x, 3, x, 3, 1.0, &t), -1);
	assert_non_null(strstr(pb_error(), "confidence level 1 is not between 0 and 1"));
	assert_int_equal(pb_ttest_pooled(x, 3, x, 3, NAN, &t), -1);

	assert_int_equal(pb_mann_whitney(x, 0, x, 3, &u), -1);
	assert_non_null(strstr(pb_error(), "x has 0 samples; needs at least 1"));
	assert_int_equal(pb_mann_whitney(inf, 3, x, 3, &u), -1);
	assert_non_null(strstr(pb_error(), "x[2] is not finite"));

	assert_int_equal(pb_hodges_lehmann(x, 3, x, 0, 0.95, &s), -1);
	assert_non_null(strstr(pb_error(), "y has 0 samples"));
	assert_int_equal(pb_hodges_lehmann(x, 3, bad, 3, 0.95, &s), -1);
	assert_int_equal(pb_hodges_lehmann(x, 3, x, 3, 0, &s), -1);
	assert_non_null(strstr(pb_error(), "confidence level 0 is not"));
	assert_int_equal(pb_hodges_lehmann(x, 3, x, 3, -0.5, &s), -1);
	assert_int_equal(pb_hodges_lehmann_ratio(zero, 3, x, 3, 0.95, &s), -1);
	assert_non_null(strstr(pb_error(), "x[1] = 0 is not above 0"));
	assert_int_equal(pb_hodges_lehmann_ratio(x, 3, inf, 3, 0.95, &s), -1);
	assert_int_equal(pb_hodges_lehmann_ratio(x, 3, x, 3, 1.5, &s), -1);

	assert_int_equal(pb_seq_plan_make(1, 0.05, &p), -1);
	assert_non_null(strstr(pb_error(), "--max-runs 1 is too few"));
	assert_int_equal(pb_seq_plan_make(3, 0.05, &p), -1); /* 1 - 2/20 < 95% */
	assert_non_null(strstr(pb_error(), "--max-runs 3 is too few"));
	assert_int_equal(pb_seq_plan_make(60, 0, &p), -1);
	assert_int_equal(pb_seq_plan_make(60, 1, &p), -1);
}

/* ---- the sequential plan ---- */

/* Whether an interval at `level` exists with n per side. */
static bool interval_exists(size_t n, double level)
{
	double *v = malloc(2 * n * sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < 2 * n; i++)
		v[i] = 1.0 + (double)i;
	struct pb_shift s;
	assert_int_equal(pb_hodges_lehmann_ratio(v, n, v + n, n, level, &s), 0);
	free(v);
	return s.ci_valid;
}

static void check_plan(size_t max_n, double alpha)
{
	struct pb_seq_plan p;
	assert_int_equal(pb_seq_plan_make(max_n, alpha, &p), 0);
	char line[512];
	int len = snprintf(line, sizeof line, "max_n %zu alpha %g: %zu looks at 1 - %g:", max_n,
	                   alpha, p.nlooks, 1 - p.level_per_look);
	for (size_t i = 0; i < p.nlooks && len < 400; i++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %zu", p.look_n[i]);
	print_message("%s\n", line);
	assert_true(p.nlooks >= 1 && p.nlooks <= PB_SEQ_MAX_LOOKS);
	assert_rel(p.alpha, alpha, 0);
	assert_rel(p.level_per_look, 1 - alpha / (double)p.nlooks, 1e-15);
	assert_int_equal(p.look_n[p.nlooks - 1], max_n);
	for (size_t i = 1; i < p.nlooks; i++) {
		assert_true(p.look_n[i] > p.look_n[i - 1]);
		/* about 1.5x apart; the last step may be up to 1.5 x 1.25 */
		assert_true((double)p.look_n[i] <= ceil(1.875 * (double)p.look_n[i - 1]) ||
		            max_n > 100000);
	}
	for (size_t i = 0; i < p.nlooks && p.look_n[i] <= 200; i++)
		assert_true(interval_exists(p.look_n[i], p.level_per_look));
}

static void test_seq_plan(void **state)
{
	(void)state;
	struct pb_seq_plan p;
	/* 60 per side at 5%: 7 looks at 1 - 0.05/7 = 99.29%, which first
	 * needs 6 per side (1 - 2/C(12, 6) = 99.78%; C(10, 5) gives 99.21%;
	 * tests/reference/twosample_ref.py prints these first n). */
	assert_int_equal(pb_seq_plan_make(60, 0.05, &p), 0);
	const size_t want[] = {6, 9, 14, 21, 32, 48, 60};
	assert_int_equal(p.nlooks, N_OF(want));
	for (size_t i = 0; i < N_OF(want); i++)
		assert_int_equal(p.look_n[i], want[i]);
	assert_false(interval_exists(5, p.level_per_look));
	/* 4 per side is the least for a 95% interval: one look. */
	assert_int_equal(pb_seq_plan_make(4, 0.05, &p), 0);
	assert_int_equal(p.nlooks, 1);
	assert_int_equal(p.look_n[0], 4);
	const size_t maxes[] = {4, 5, 6, 7, 8, 10, 12, 20, 30, 100, 1000, 100000, 10000000};
	for (size_t i = 0; i < N_OF(maxes); i++) {
		check_plan(maxes[i], 0.05);
		if (maxes[i] >= 5) /* 99% first needs 5 per side: 1 - 2/252 */
			check_plan(maxes[i], 0.01);
	}
	check_plan(60, 0.2);
	assert_int_equal(pb_seq_plan_make(4, 0.01, &p), -1);
}

static void test_verdicts(void **state)
{
	(void)state;
	struct pb_shift r = {.estimate = 1.05, .lo = 1.02, .hi = 1.08, .ci_valid = true};
	assert_int_equal(pb_verdict_of(&r, 0), PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_verdict_of(&r, 0.01), PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_verdict_of(&r, 0.1), PB_VERDICT_EQUIVALENT);
	r.lo = 0.98;
	assert_int_equal(pb_verdict_of(&r, 0), PB_VERDICT_NONE);
	assert_int_equal(pb_verdict_of(&r, 0.05), PB_VERDICT_NONE);
	r.hi = 1.01;
	assert_int_equal(pb_verdict_of(&r, 0.02), PB_VERDICT_EQUIVALENT);
	r.lo = 0.90;
	r.hi = 0.95;
	assert_int_equal(pb_verdict_of(&r, 0), PB_VERDICT_DIFFERENT);
	/* a difference whose estimate lies inside the margin and whose
	 * interval reaches beyond it: cannot tell whether it matters */
	r = (struct pb_shift){.estimate = 1.005, .lo = 1.002, .hi = 1.03, .ci_valid = true};
	assert_int_equal(pb_verdict_of(&r, 0), PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_verdict_of(&r, PB_EQUIVALENCE), PB_VERDICT_NONE);
	r.hi = 1.008; /* inside it whole: equivalent, though it excludes 1 */
	assert_int_equal(pb_verdict_of(&r, PB_EQUIVALENCE), PB_VERDICT_EQUIVALENT);
	/* a shift (null 0) against the margin in the same units */
	r = (struct pb_shift){.estimate = -3, .lo = -5, .hi = -1, .ci_valid = true};
	assert_int_equal(pb_verdict(&r, &(struct pb_verdict_rule){.null = 0, .margin = 2}),
	                 PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_verdict(&r, &(struct pb_verdict_rule){.null = 0, .margin = 4}),
	                 PB_VERDICT_NONE);
	r.ci_valid = false;
	assert_int_equal(pb_verdict_of(&r, 0.5), PB_VERDICT_NONE);
	assert_string_equal(pb_verdict_name(PB_VERDICT_NONE), "none");
	assert_string_equal(pb_verdict_name(PB_VERDICT_DIFFERENT), "different");
	assert_string_equal(pb_verdict_name(PB_VERDICT_EQUIVALENT), "equivalent");
}

/* Runs the plan's looks on a[0..max_n) and b[0..max_n); returns the
 * verdict that stopped it (or NONE after the last look) and the look. */
static enum pb_verdict run_looks(const struct pb_seq_plan *p, const double *a, const double *b,
                                 size_t *at)
{
	for (size_t l = 0; l < p->nlooks; l++) {
		struct pb_shift r;
		size_t n = p->look_n[l];
		assert_int_equal(pb_hodges_lehmann_ratio(a, n, b, n, p->level_per_look, &r), 0);
		enum pb_verdict v = pb_verdict_of(&r, 0);
		if (v != PB_VERDICT_NONE) {
			*at = n;
			return v;
		}
	}
	*at = p->look_n[p->nlooks - 1];
	return PB_VERDICT_NONE;
}

/* A/A: both sides from one lognormal distribution (skewed like timings).
 * Every look of the plan may stop with "different"; the union bound says
 * that happens in at most alpha of the experiments. 2000 experiments: the
 * Monte Carlo standard error at 5% is 0.5%, so 6.5% is 3 of them. */
static void test_sequential_aa(void **state)
{
	(void)state;
	enum { EXPERIMENTS = 2000, MAX_N = 60 };
	struct pb_seq_plan p;
	assert_int_equal(pb_seq_plan_make(MAX_N, 0.05, &p), 0);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20240501);
	double a[MAX_N], b[MAX_N];
	size_t false_verdicts = 0;
	for (size_t e = 0; e < EXPERIMENTS; e++) {
		double sigma = e % 2 ? 0.3 : 0.03; /* heavy and light noise */
		for (size_t i = 0; i < MAX_N; i++) {
			a[i] = gsl_ran_lognormal(rng, log(1000), sigma);
			b[i] = gsl_ran_lognormal(rng, log(1000), sigma);
		}
		size_t at;
		if (run_looks(&p, a, b, &at) == PB_VERDICT_DIFFERENT)
			false_verdicts++;
	}
	gsl_rng_free(rng);
	double rate = (double)false_verdicts / EXPERIMENTS;
	print_message("A/A: %zu of %d experiments ended 'different' (%.2f%%; bound 5%%)\n",
	              false_verdicts, EXPERIMENTS, 100 * rate);
	assert_true(rate <= 0.065);
}

/* A true 10% slowdown with 2% noise: found, and early. */
static void test_sequential_power(void **state)
{
	(void)state;
	enum { EXPERIMENTS = 50, MAX_N = 60 };
	struct pb_seq_plan p;
	assert_int_equal(pb_seq_plan_make(MAX_N, 0.05, &p), 0);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 99);
	double a[MAX_N], b[MAX_N];
	size_t found = 0, total_n = 0;
	for (size_t e = 0; e < EXPERIMENTS; e++) {
		for (size_t i = 0; i < MAX_N; i++) {
			a[i] = gsl_ran_lognormal(rng, log(1000), 0.02);
			b[i] = gsl_ran_lognormal(rng, log(1100), 0.02);
		}
		size_t at;
		if (run_looks(&p, a, b, &at) == PB_VERDICT_DIFFERENT)
			found++;
		total_n += at;
	}
	gsl_rng_free(rng);
	print_message("10%% shift: 'different' in %zu of %d, after %.1f runs per side on "
	              "average\n",
	              found, EXPERIMENTS, (double)total_n / EXPERIMENTS);
	assert_int_equal(found, EXPERIMENTS);
	assert_true(total_n == EXPERIMENTS * p.look_n[0]); /* at the first look */
}

/* ---- the other ratio estimators ---- */

/* Yuen's statistic computed the plain way: sort, trim g off each end,
 * winsorize by copying the ends in, variance with n - 1. */
static void yuen_ref(const double *v, size_t n, double gamma, double *tmean, double *d)
{
	double *l = malloc(n * sizeof *l), *w = malloc(n * sizeof *w);
	assert_non_null(l);
	assert_non_null(w);
	for (size_t i = 0; i < n; i++)
		l[i] = log(v[i]);
	for (size_t i = 0; i < n; i++) /* insertion sort: a different route */
		for (size_t j = i; j > 0 && l[j - 1] > l[j]; j--) {
			double t = l[j];
			l[j] = l[j - 1];
			l[j - 1] = t;
		}
	size_t g = (size_t)(gamma * (double)n), h = n - 2 * g;
	*tmean = 0;
	for (size_t i = g; i < n - g; i++)
		*tmean += l[i] / (double)h;
	for (size_t i = 0; i < n; i++)
		w[i] = i < g ? l[g] : i >= n - g ? l[n - g - 1] : l[i];
	*d = gsl_stats_variance(w, 1, n) * (double)(n - 1) / ((double)h * (double)(h - 1));
	free(l);
	free(w);
}

static void test_trimmed_ratio(void **state)
{
	(void)state;
	const double x[] = {101, 97, 250, 99, 102, 98, 100, 103, 96, 140};
	const double y[] = {104, 99, 101, 300, 105, 103, 102, 98, 107, 100, 106, 160};
	struct pb_shift r;
	assert_int_equal(pb_trimmed_ratio(x, N_OF(x), y, N_OF(y), 0.2, 0.95, &r), 0);
	double tx, dx, ty, dy;
	yuen_ref(x, N_OF(x), 0.2, &tx, &dx);
	yuen_ref(y, N_OF(y), 0.2, &ty, &dy);
	double hx = (double)(N_OF(x) - 4), hy = (double)(N_OF(y) - 4);
	double df = (dx + dy) * (dx + dy) / (dx * dx / (hx - 1) + dy * dy / (hy - 1));
	double hw = gsl_cdf_tdist_Pinv(0.975, df) * sqrt(dx + dy);
	assert_rel(r.estimate, exp(ty - tx), 1e-12);
	assert_rel(r.lo, exp(ty - tx - hw), 1e-12);
	assert_rel(r.hi, exp(ty - tx + hw), 1e-12);
	assert_true(r.ci_valid);
	/* The outliers (250, 300, 160, 140) are trimmed: a scale factor on y
	 * is the estimate exactly. */
	double z[N_OF(x)];
	for (size_t i = 0; i < N_OF(x); i++)
		z[i] = 1.02 * x[i];
	assert_int_equal(pb_trimmed_ratio(x, N_OF(x), z, N_OF(x), 0.2, 0.95, &r), 0);
	assert_rel(r.estimate, 1.02, 1e-12);
	assert_true(r.lo < 1.02 && r.hi > 1.02);
	/* All equal: a point interval. */
	const double c[] = {5, 5, 5, 5};
	assert_int_equal(pb_trimmed_ratio(c, 4, c, 4, 0.1, 0.95, &r), 0);
	assert_rel(r.estimate, 1, 0);
	assert_rel(r.lo, 1, 0);
	assert_rel(r.hi, 1, 0);
	/* Errors: trimming out of range, too few left, non-positive values. */
	assert_int_equal(pb_trimmed_ratio(x, N_OF(x), y, N_OF(y), 0.5, 0.95, &r), -1);
	assert_int_equal(pb_trimmed_ratio(x, 3, y, 3, 0.34, 0.95, &r), -1);
	const double zero[] = {0, 1, 2};
	assert_int_equal(pb_trimmed_ratio(zero, 3, x, 3, 0.1, 0.95, &r), -1);
}

static void test_block_min_ratio(void **state)
{
	(void)state;
	/* Blocks of 3: minima 3, 7 (and 1 left over) against 4, 6, 2. */
	const double x[] = {5, 3, 4, 9, 8, 7, 1};
	const double y[] = {4, 6, 5, 6, 7, 8, 2, 9, 9};
	const double mx[] = {3, 7}, my[] = {4, 6, 2};
	struct pb_shift r, ref;
	assert_int_equal(pb_block_min_ratio(x, N_OF(x), y, N_OF(y), 3, 0.8, &r), 0);
	assert_int_equal(pb_hodges_lehmann_ratio(mx, 2, my, 3, 0.8, &ref), 0);
	assert_rel(r.estimate, ref.estimate, 0);
	assert_int_equal(r.ci_valid, ref.ci_valid);
	/* Blocks of 1 are every value. */
	assert_int_equal(pb_block_min_ratio(x, N_OF(x), y, N_OF(y), 1, 0.95, &r), 0);
	assert_int_equal(pb_hodges_lehmann_ratio(x, N_OF(x), y, N_OF(y), 0.95, &ref), 0);
	assert_rel(r.estimate, ref.estimate, 0);
	assert_rel(r.lo, ref.lo, 0);
	assert_rel(r.hi, ref.hi, 0);
	assert_int_equal(pb_block_min_ratio(x, N_OF(x), y, N_OF(y), 0, 0.95, &r), -1);
	const double nan_in[] = {1, NAN, 2};
	assert_int_equal(pb_block_min_ratio(nan_in, 3, y, 3, 3, 0.95, &r), -1);
	assert_int_equal(pb_block_min_ratio(x, 2, y, N_OF(y), 3, 0.95, &r), -1);
}

/* Fast runs near 100 and slow ones near 125 (as the Intel runs,
 * 95 and 122 ms), B 2% slower in both modes; the share of slow runs
 * differs between the sides. */
static void bimodal(gsl_rng *rng, double *v, size_t n, double scale, double slow_share)
{
	for (size_t i = 0; i < n; i++)
		v[i] = scale * (gsl_rng_uniform(rng) < slow_share ? 125 : 100) *
		       gsl_ran_lognormal(rng, 0, 0.005);
}

static void test_low_mode_ratio(void **state)
{
	(void)state;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 18);
	double x[40], y[40];
	bimodal(rng, x, 40, 1.0, 0.5);
	bimodal(rng, y, 40, 1.02, 0.2);
	struct pb_shift r, all;
	bool split = false;
	assert_int_equal(pb_low_mode_ratio(x, 40, y, 40, 0.95, &r, &split), 0);
	assert_true(split);
	assert_true(r.ci_valid && r.lo > 1.01 && r.hi < 1.03);
	/* All runs: the mix of modes pulls the estimate off 1.02 and widens
	 * the interval. */
	assert_int_equal(pb_hodges_lehmann_ratio(x, 40, y, 40, 0.95, &all), 0);
	assert_true(all.hi - all.lo > 2 * (r.hi - r.lo));
	/* One mode: the same as pb_hodges_lehmann_ratio. */
	bimodal(rng, x, 40, 1.0, 0);
	bimodal(rng, y, 40, 1.02, 0);
	assert_int_equal(pb_low_mode_ratio(x, 40, y, 40, 0.95, &r, &split), 0);
	assert_false(split);
	assert_int_equal(pb_hodges_lehmann_ratio(x, 40, y, 40, 0.95, &all), 0);
	assert_rel(r.estimate, all.estimate, 0);
	assert_rel(r.lo, all.lo, 0);
	/* A few slow runs (under 10%) are not a mode. */
	y[0] *= 1.25;
	y[1] *= 1.25;
	assert_int_equal(pb_low_mode_ratio(x, 40, y, 40, 0.95, &r, &split), 0);
	assert_false(split);
	gsl_rng_free(rng);
	const double zero[] = {0, 1, 2};
	assert_int_equal(pb_low_mode_ratio(zero, 3, x, 3, 0.95, &r, NULL), -1);
}

/* Each estimator through the looks of the plan, A/A on bimodal and on
 * lognormal runs: at most alpha false verdicts (1000 experiments each:
 * the Monte Carlo standard error at 5% is 0.7%, so 7% is 3 of them). */
static void test_estimators_sequential_aa(void **state)
{
	(void)state;
	enum { EXPERIMENTS = 1000, MAX_N = 60 };
	const struct {
		enum pb_estimator e;
		double param;
	} ests[] = {{PB_EST_HL, 0},
	            {PB_EST_TRIMMED, 0.2},
	            {PB_EST_BLOCK_MIN, 3},
	            {PB_EST_LOW_MODE, 0},
	            {PB_EST_BLOCK_MIN_OR_ALL, PB_SEQ_BLOCK}};
	struct pb_seq_plan p;
	assert_int_equal(pb_seq_plan_make(MAX_N, 0.05, &p), 0);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[MAX_N], b[MAX_N];
	for (size_t k = 0; k < N_OF(ests); k++) {
		gsl_rng_set(rng, 1800 + k);
		size_t false_verdicts = 0;
		for (size_t e = 0; e < EXPERIMENTS; e++) {
			if (e % 2) {
				bimodal(rng, a, MAX_N, 1.0, 0.3);
				bimodal(rng, b, MAX_N, 1.0, 0.3);
			} else {
				for (size_t i = 0; i < MAX_N; i++) {
					a[i] = gsl_ran_lognormal(rng, log(1000), 0.1);
					b[i] = gsl_ran_lognormal(rng, log(1000), 0.1);
				}
			}
			for (size_t l = 0; l < p.nlooks; l++) {
				size_t n = p.look_n[l];
				struct pb_shift r;
				if (pb_ratio_estimate(ests[k].e, ests[k].param, a, n, b, n,
				                      p.level_per_look, &r) != 0)
					continue;
				if (pb_verdict_of(&r, 0) == PB_VERDICT_DIFFERENT) {
					false_verdicts++;
					break;
				}
			}
		}
		print_message("estimator %d: %zu of %d A/A experiments 'different'\n",
		              (int)ests[k].e, false_verdicts, EXPERIMENTS);
		assert_true(false_verdicts <= EXPERIMENTS * 7 / 100);
	}
	gsl_rng_free(rng);
	struct pb_shift r;
	assert_int_equal(pb_ratio_estimate((enum pb_estimator)99, 0, a, 4, b, 4, 0.95, &r), -1);
}

/* The looks' estimator: every run while the minima give no interval (a
 * large difference still ends at the first look), the minima after. */
static void test_seq_ratio(void **state)
{
	(void)state;
	enum { N = 60 };
	struct pb_seq_plan p;
	assert_int_equal(pb_seq_plan_make(N, 0.05, &p), 0);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 3);
	double a[N], b[N];
	for (size_t i = 0; i < N; i++) {
		a[i] = gsl_ran_lognormal(rng, log(1000), 0.02);
		b[i] = gsl_ran_lognormal(rng, log(1100), 0.02);
	}
	gsl_rng_free(rng);
	struct pb_shift r, ref;
	size_t first = p.look_n[0];
	assert_int_equal(pb_seq_ratio(a, first, b, first, p.level_per_look, &r), 0);
	assert_int_equal(pb_hodges_lehmann_ratio(a, first, b, first, p.level_per_look, &ref), 0);
	assert_rel(r.estimate, ref.estimate, 0);
	assert_int_equal(pb_verdict_of(&r, 0.01), PB_VERDICT_DIFFERENT);
	assert_int_equal(pb_seq_ratio(a, N, b, N, p.level_per_look, &r), 0);
	assert_int_equal(pb_block_min_ratio(a, N, b, N, PB_SEQ_BLOCK, p.level_per_look, &ref), 0);
	assert_true(ref.ci_valid);
	assert_rel(r.estimate, ref.estimate, 0);
	assert_rel(r.lo, ref.lo, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ttest_ministat),
	    cmocka_unit_test(test_ttest_quantile),
	    cmocka_unit_test(test_mann_whitney_reference),
	    cmocka_unit_test(test_mann_whitney_ties),
	    cmocka_unit_test(test_textbook_hollander_wolfe),
	    cmocka_unit_test(test_mann_whitney_extremes),
	    cmocka_unit_test(test_hodges_lehmann_reference),
	    cmocka_unit_test(test_hodges_lehmann_normal_ranks),
	    cmocka_unit_test(test_hodges_lehmann_large),
	    cmocka_unit_test(test_hodges_lehmann_small_and_constant),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_seq_plan),
	    cmocka_unit_test(test_verdicts),
	    cmocka_unit_test(test_sequential_aa),
	    cmocka_unit_test(test_sequential_power),
	    cmocka_unit_test(test_trimmed_ratio),
	    cmocka_unit_test(test_block_min_ratio),
	    cmocka_unit_test(test_low_mode_ratio),
	    cmocka_unit_test(test_estimators_sequential_aa),
	    cmocka_unit_test(test_seq_ratio),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
