/* test_replicates.c - run-level figures (include/primbench/replicates.h):
 * hand-computed answers, and coverage on simulated two-level data, the
 * model of docs/statistics.md "What varies between runs": a between-run
 * effect on each replicate's level, samples around it. No timing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/replicates.h"
#include "primbench/stats.h"

#define assert_close(a, b, eps)                                                                    \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (!(fabs(a_ - b_) <= (eps)))                                                     \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);                        \
	} while (0)

static void test_medians_and_summary(void **state)
{
	(void)state;
	/* three replicates: {1,2,3}, {10,20}, {} and {100} */
	const double x[] = {3, 1, 2, 20, 10, 100};
	const size_t rep[] = {3, 2, 0, 1};
	double med[4];
	assert_int_equal(pb_replicate_medians(x, 6, rep, 4, med), 3);
	assert_close(med[0], 2, 1e-12);
	assert_close(med[1], 15, 1e-12);
	assert_close(med[2], 100, 1e-12);

	struct pb_summary s;
	assert_int_equal(pb_summarize_replicates(x, 6, rep, 4, 0.95, &s), 0);
	assert_int_equal(s.replicates, 3);
	assert_int_equal(s.n, 6);
	assert_close(s.min, 1, 0);
	assert_close(s.max, 100, 0);
	/* geometric mean of 2, 15, 100; t(2, 0.975) = 4.302653 */
	double l[] = {log(2), log(15), log(100)};
	double m = (l[0] + l[1] + l[2]) / 3, v = 0;
	for (int i = 0; i < 3; i++)
		v += (l[i] - m) * (l[i] - m) / 2;
	double hw = 4.302652729911275 * sqrt(v / 3);
	assert_close(s.median, exp(m), 1e-9);
	assert_close(s.ci_lo / exp(m - hw), 1, 1e-9); /* t quantile to 1e-10 */
	assert_close(s.ci_hi / exp(m + hw), 1, 1e-9);
	assert_true(s.ci_valid);

	/* one replicate, or none given: exactly pb_summarize */
	struct pb_summary one, plain;
	const size_t all[] = {6};
	assert_int_equal(pb_summarize_replicates(x, 6, all, 1, 0.95, &one), 0);
	assert_int_equal(pb_summarize(x, 6, 0.95, &plain), 0);
	assert_int_equal(one.replicates, 1);
	assert_close(one.median, plain.median, 0);
	assert_int_equal(one.ci_valid, plain.ci_valid);
	assert_int_equal(pb_summarize_replicates(x, 6, NULL, 0, 0.95, &one), 0);
	assert_close(one.median, plain.median, 0);

	/* a median of 0: the arithmetic mean and t on the values */
	const double z[] = {0, 0, 0, 2, 2, 2};
	const size_t zr[] = {3, 3};
	assert_int_equal(pb_summarize_replicates(z, 6, zr, 2, 0.95, &s), 0);
	assert_close(s.median, 1, 1e-12);
	assert_true(s.ci_lo < 0 && s.ci_hi > 2);
}

static void test_runs_ratio(void **state)
{
	(void)state;
	struct pb_runs_ratio r;
	const double a[] = {100, 102, 98, 101, 99}, b[] = {110, 112.2, 107.8, 111.1, 108.9};
	assert_int_equal(pb_runs_ratio(a, 5, b, 5, 0.95, &r), 0);
	assert_true(r.valid);
	assert_close(r.estimate, 1.1, 1e-9); /* b is a x 1.1 exactly */
	assert_true(r.lo > 1.07 && r.hi < 1.13 && r.lo < 1.1 && r.hi > 1.1);
	assert_true(r.p < 0.001);
	assert_close(r.df, 8, 1e-9); /* equal spreads: Welch's df is na + nb - 2 */
	/* the same values: ratio 1, p 1 */
	assert_int_equal(pb_runs_ratio(a, 5, a, 5, 0.95, &r), 0);
	assert_close(r.estimate, 1, 1e-12);
	assert_close(r.p, 1, 1e-12);
	/* constant sides: no spread, the interval is the point */
	const double c1[] = {5, 5, 5}, c2[] = {6, 6, 6};
	assert_int_equal(pb_runs_ratio(c1, 3, c2, 3, 0.95, &r), 0);
	assert_close(r.lo, 1.2, 1e-12);
	assert_close(r.hi, 1.2, 1e-12);
	assert_close(r.p, 0, 0);
	/* one run a side, or a value that is not > 0: not valid */
	assert_int_equal(pb_runs_ratio(a, 1, b, 5, 0.95, &r), 0);
	assert_false(r.valid);
	const double zero[] = {0, 1, 2};
	assert_int_equal(pb_runs_ratio(zero, 3, b, 5, 0.95, &r), 0);
	assert_false(r.valid);
	assert_int_equal(pb_runs_ratio(a, 5, b, 5, 1.5, &r), -1);
}

/* One simulated case: R replicates of n samples; replicate r's level is
 * exp(mu + u_r), u_r ~ N(0, between); a sample is that level times
 * exp(N(0, within)), and a share of them are slowed by an interrupt
 * (x (1 + Exp(0.5)): timings only gain). */
static void simulate(gsl_rng *g, double mu, double between, double within, size_t R, size_t n,
                     double *x, size_t *rep)
{
	for (size_t r = 0; r < R; r++) {
		double level = mu + gsl_ran_gaussian(g, between);
		for (size_t j = 0; j < n; j++) {
			double v = exp(level + gsl_ran_gaussian(g, within));
			if (gsl_rng_uniform(g) < 0.05)
				v *= 1 + gsl_ran_exponential(g, 0.5);
			x[r * n + j] = v;
		}
		rep[r] = n;
	}
}

/* The true median of a case: the median, over runs, of a run's median.
 * A run's median is its level times the median of the within-run noise,
 * a constant; the levels' median is exp(mu). That constant is found once,
 * by a run of many samples at u = 0. */
static double within_median(gsl_rng *g, double within)
{
	enum { N = 200001 };
	double *v = malloc(N * sizeof *v);
	assert_non_null(v);
	size_t rep = N;
	for (size_t j = 0; j < N; j++) {
		v[j] = exp(gsl_ran_gaussian(g, within));
		if (gsl_rng_uniform(g) < 0.05)
			v[j] *= 1 + gsl_ran_exponential(g, 0.5);
	}
	double m;
	assert_int_equal(pb_replicate_medians(v, N, &rep, 1, &m), 1);
	free(v);
	return m;
}

/* Coverage of the replicate-level 95% interval of the median on 2000
 * fixed-seed data sets with a between-run component as measured here
 * (docs/statistics.md: replicate medians spread 2-10% inside a process;
 * between 5% sd of the log level, within 3% and 10%), against the pooled
 * samples' interval, which describes one process and so misses. */
static void test_coverage_two_level(void **state)
{
	(void)state;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 29);
	const size_t R = 5, n = 41, sets = 2000;
	const double within_sd[] = {0.03, 0.10};
	double *x = malloc(R * n * sizeof *x);
	size_t rep[5];
	assert_non_null(x);
	for (size_t w = 0; w < 2; w++) {
		double mu = log(1000), truth = 1000 * within_median(g, within_sd[w]);
		size_t covered = 0, pooled_covered = 0;
		for (size_t s = 0; s < sets; s++) {
			simulate(g, mu, 0.05, within_sd[w], R, n, x, rep);
			struct pb_summary sum, pooled;
			assert_int_equal(pb_summarize_replicates(x, R * n, rep, R, 0.95, &sum), 0);
			assert_int_equal(pb_summarize(x, R * n, 0.95, &pooled), 0);
			covered += sum.ci_lo <= truth && truth <= sum.ci_hi;
			pooled_covered += pooled.ci_lo <= truth && truth <= pooled.ci_hi;
		}
		print_message("within sd %.2f: replicate-level interval covers %.1f%%, the pooled "
		              "samples' %.1f%%\n",
		              within_sd[w], 100.0 * (double)covered / (double)sets,
		              100.0 * (double)pooled_covered / (double)sets);
		assert_true(covered >= (size_t)(0.94 * (double)sets));
		assert_true(pooled_covered < (size_t)(0.80 * (double)sets));
	}
	free(x);
	gsl_rng_free(g);
}

/* Two sides from one two-level distribution: Welch on the replicates'
 * log medians calls "different" at about the 5% it promises; a 15%
 * shift at this noise is found nearly always. */
static void test_runs_ratio_aa_and_power(void **state)
{
	(void)state;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 31);
	const size_t R = 5, n = 41, sets = 2000;
	double *x = malloc(R * n * sizeof *x), *y = malloc(R * n * sizeof *y);
	assert_non_null(x);
	assert_non_null(y);
	size_t rx[5], ry[5];
	size_t aa = 0, found = 0;
	for (size_t s = 0; s < sets; s++) {
		for (int shift = 0; shift < 2; shift++) {
			simulate(g, log(1000), 0.05, 0.05, R, n, x, rx);
			simulate(g, log(1000) + (shift ? log(1.15) : 0), 0.05, 0.05, R, n, y, ry);
			double mx[5], my[5];
			size_t kx = pb_replicate_medians(x, R * n, rx, R, mx);
			size_t ky = pb_replicate_medians(y, R * n, ry, R, my);
			struct pb_runs_ratio r;
			assert_int_equal(pb_runs_ratio(mx, kx, my, ky, 0.95, &r), 0);
			bool diff = r.lo > 1 || r.hi < 1;
			assert_int_equal(diff, r.p < 0.05);
			if (shift)
				found += diff;
			else
				aa += diff;
		}
	}
	print_message("A/A: %zu of %zu different; 15%% shift: %zu found\n", aa, sets, found);
	assert_true(aa <= (size_t)(0.065 * (double)sets));
	assert_true(found >= (size_t)(0.90 * (double)sets));
	free(x);
	free(y);
	gsl_rng_free(g);
}

/* Paired ratios: exact on a hand case; on simulated runs where each
 * replicate moves both contenders together (a between-replicate sd of 5%)
 * and B is 2% slower, the paired interval covers 1.02 in about 95% of the
 * sets and is narrower than Welch's on the same medians. */
static void test_paired_ratio(void **state)
{
	(void)state;
	const double a[] = {100, 110, 90}, b[] = {102, 112.2, 91.8};
	struct pb_runs_ratio r;
	assert_int_equal(pb_paired_ratio(a, b, 3, 0.95, &r), 0);
	assert_true(r.valid);
	assert_true(fabs(r.estimate - 1.02) < 1e-12);
	assert_true(fabs(r.lo - 1.02) < 1e-9 && fabs(r.hi - 1.02) < 1e-9);
	assert_int_equal(pb_paired_ratio(a, b, 1, 0.95, &r), 0);
	assert_false(r.valid);
	const double z[] = {1, 0};
	assert_int_equal(pb_paired_ratio(z, z, 2, 0.95, &r), 0);
	assert_false(r.valid);
	assert_int_equal(pb_paired_ratio(a, b, 3, 1.5, &r), -1);

	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 37);
	const size_t R = 5, sets = 2000;
	size_t covered = 0, narrower = 0;
	for (size_t s = 0; s < sets; s++) {
		double x[5], y[5];
		for (size_t i = 0; i < R; i++) {
			double level = gsl_ran_gaussian(g, 0.05);
			x[i] = exp(log(1000) + level + gsl_ran_gaussian(g, 0.005));
			y[i] = exp(log(1020) + level + gsl_ran_gaussian(g, 0.005));
		}
		struct pb_runs_ratio p, w;
		assert_int_equal(pb_paired_ratio(x, y, R, 0.95, &p), 0);
		assert_int_equal(pb_runs_ratio(x, R, y, R, 0.95, &w), 0);
		covered += p.lo <= 1.02 && 1.02 <= p.hi;
		narrower += p.hi - p.lo < w.hi - w.lo;
	}
	print_message("paired: covers 1.02 in %zu of %zu; narrower than Welch in %zu\n", covered,
	              sets, narrower);
	assert_true(covered >= (size_t)(0.93 * (double)sets));
	assert_true(covered <= (size_t)(0.97 * (double)sets));
	assert_true(narrower >= (size_t)(0.95 * (double)sets));
	gsl_rng_free(g);
}

/* The fastest of k: a hand case whose choices are known; then k = 8
 * contenders and y all at one level (each replicate moving all of them
 * together by 5%, each median by 2% of its own), 2000 sets: y against the
 * fastest chosen by all medians looks slower (interval above 1) far more
 * often than 2.5% (here 9.9%), the winner's curse; chosen leave-one-out,
 * half as often (4.75%: a contender chosen for two replicates was chosen
 * because each of the two was low, so a little of the curse is left). */
static void test_vs_fastest(void **state)
{
	(void)state;
	/* contender 0 is fastest in every replicate but the first */
	const double med[] = {7, 5, 5, 5, /* c0 */ 6, 6, 6, 6 /* c1 */};
	const double y[] = {6.6, 6.6, 6.6, 6.6};
	struct pb_runs_ratio r;
	size_t chosen[4];
	assert_int_equal(pb_vs_fastest_ratio(med, 2, 4, y, 0.95, &r, chosen), 0);
	assert_true(r.valid);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(chosen[i], 0); /* c0's other three: 7,5,5 or 5,5,5 */
	/* y / c0: 6.6 / 7, then 1.32 three times: their geometric mean */
	assert_true(fabs(r.estimate - exp((log(6.6 / 7) + 3 * log(1.32)) / 4)) < 1e-12);
	const double med2[] = {4, 4, 9, 9, /* c0 */ 6, 6, 6, 6 /* c1 */};
	assert_int_equal(pb_vs_fastest_ratio(med2, 2, 4, y, 0.95, &r, chosen), 0);
	assert_int_equal(chosen[0], 1); /* c0's others 4, 9, 9: above 6 */
	assert_int_equal(chosen[2], 0); /* 4, 4, 9: below */
	assert_int_equal(pb_vs_fastest_ratio(med, 2, 2, y, 0.95, &r, NULL), 0);
	assert_false(r.valid);
	assert_int_equal(pb_vs_fastest_ratio(med, 2, 4, y, 2, &r, NULL), -1);

	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 41);
	enum { K = 8, R = 5 };
	const size_t sets = 2000;
	size_t naive = 0, loo = 0;
	for (size_t s = 0; s < sets; s++) {
		double m[K * R], yy[R];
		for (size_t i = 0; i < R; i++) {
			double level = gsl_ran_gaussian(g, 0.05);
			yy[i] = exp(log(1000) + level + gsl_ran_gaussian(g, 0.02));
			for (size_t c = 0; c < K; c++)
				m[c * R + i] = exp(log(1000) + level + gsl_ran_gaussian(g, 0.02));
		}
		size_t best = 0;
		double lbest = INFINITY;
		for (size_t c = 0; c < K; c++) {
			double l = 0;
			for (size_t i = 0; i < R; i++)
				l += log(m[c * R + i]);
			if (l < lbest) {
				lbest = l;
				best = c;
			}
		}
		struct pb_runs_ratio p;
		assert_int_equal(pb_paired_ratio(m + best * R, yy, R, 0.95, &p), 0);
		naive += p.lo > 1;
		assert_int_equal(pb_vs_fastest_ratio(m, K, R, yy, 0.95, &p, NULL), 0);
		loo += p.lo > 1;
	}
	print_message("y slower than the fastest of %d equal ones: chosen by all medians %zu, "
	              "leave-one-out %zu of %zu\n",
	              K, naive, loo, sets);
	assert_true(naive >= (size_t)(0.08 * (double)sets));
	assert_true(loo <= (size_t)(0.06 * (double)sets));
	assert_true(2 * loo < naive + (size_t)(0.01 * (double)sets));
	gsl_rng_free(g);
}

/* Replicate r's seed: the run's moved r times by the golden ratio's
 * 64-bit constant, wrapping. */
static void test_replicate_seed(void **state)
{
	(void)state;
	assert_true(pb_replicate_seed(42, 0) == 42);
	assert_true(pb_replicate_seed(42, 1) == 42 + 0x9E3779B97F4A7C15ull);
	assert_true(pb_replicate_seed(0, 2) == 2 * 0x9E3779B97F4A7C15ull);
	assert_true(pb_replicate_seed(UINT64_MAX, 1) == 0x9E3779B97F4A7C14ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_medians_and_summary),
	    cmocka_unit_test(test_runs_ratio),
	    cmocka_unit_test(test_coverage_two_level),
	    cmocka_unit_test(test_runs_ratio_aa_and_power),
	    cmocka_unit_test(test_paired_ratio),
	    cmocka_unit_test(test_vs_fastest),
	    cmocka_unit_test(test_replicate_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
