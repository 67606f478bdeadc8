/* estimators.c - which estimator should `cmd --until-verdict` use? Resamples
 * pools of recorded runs (bench/record-pools.sh; bench/data/) and runs the
 * sequential looks of `--until-verdict` (pb_seq_plan_make, pb_verdict_of,
 * the cmd defaults: 60 runs per side at most, 5%, --equivalence 1%) with
 * each of the library's ratio estimators, the functions cmd calls
 * (docs/statistics.md, "Choosing the estimator"). Hand-run, not a test.
 *
 * usage: estimators [-t TRIALS] [-s SEED] [-m MAX_RUNS] -a AA.csv... AB.csv...
 *
 * AA.csv (-a, up to 16): an A/A pool. Both of its sides are pooled and
 * each trial draws both sides from that one pool (with replacement), so
 * A and B have the same distribution exactly: every "different" verdict
 * is false. Printed: the false-verdict rate with its 95% Wilson interval.
 * AB.csv: a real A/B pool. Each trial draws A from side A, B from side B:
 * printed are the share of trials with each verdict and the runs per side
 * at the verdict (median and 90th percentile over all trials, a trial
 * without one counting as more than the maximum); and, as a second A/A
 * check at that pool's noise, the false-verdict rate when both sides are
 * drawn from its side A ("A/A of A").
 * The CSV is bench/record-pools.sh's: side,position,real_ns,user_ns,sys_ns.
 * Runs are drawn independently, so drift and correlation between
 * neighbouring runs (which ABBA order is for) are not in the resamples.
 */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/twosample.h"

#define MAX_N_LIMIT 1000
static size_t max_n = 60; /* -m: cmd --max-runs */
#define MARGIN 0.01
#define ALPHA  0.05

struct pool {
	const char *name;
	size_t n[2];
	double *real[2], *cpu[2]; /* cpu: user + sys */
	double *pos[2];           /* each run's position in the session */
	size_t npairs;            /* A's k-th and B's k-th run by position */
	double *pair_real[2];
};

struct est {
	const char *name;
	enum pb_estimator kind;
	double param;
	int cpu;    /* on user+sys instead of real */
	int paired; /* on pairs (A's k-th and B's k-th run, drawn together) */
};

static const struct est ests[] = {
    {"HL, log real (was)", PB_EST_HL, 0, 0, 0},
    {"HL, log user+sys", PB_EST_HL, 0, 1, 0},
    {"20% trimmed, log real", PB_EST_TRIMMED, 0.2, 0, 0},
    {"10% trimmed, log real", PB_EST_TRIMMED, 0.1, 0, 0},
    {"min of 3, HL, real", PB_EST_BLOCK_MIN, 3, 0, 0},
    {"min of 5, HL, real", PB_EST_BLOCK_MIN, 5, 0, 0},
    {"min of 10, HL, real", PB_EST_BLOCK_MIN, 10, 0, 0},
    {"min of 3 or all, real", PB_EST_BLOCK_MIN_OR_ALL, 3, 0, 0},
    {"min of 5 or all, real", PB_EST_BLOCK_MIN_OR_ALL, 5, 0, 0},
    {"low mode, HL, real", PB_EST_LOW_MODE, 0, 0, 0},
    {"ABBA pairs, Walsh HL", PB_EST_HL, 0, 0, 1},
};
#define NESTS (sizeof ests / sizeof ests[0])

static void die(const char *msg, const char *arg)
{
	fprintf(stderr, "estimators: %s%s\n", msg, arg ? arg : "");
	exit(2);
}

static void push(double **v, size_t *n, size_t *cap, double x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = realloc(*v, *cap * sizeof **v);
		if (!*v)
			die("out of memory", NULL);
	}
	(*v)[(*n)++] = x;
}

static void read_pool(const char *path, struct pool *p)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open ", path);
	memset(p, 0, sizeof *p);
	p->name = path;
	char line[256];
	size_t cap[2][2] = {{0}}, ncpu[2] = {0}, npos[2] = {0}, cappos[2] = {0};
	while (fgets(line, sizeof line, f)) {
		char side;
		double pos, real, user, sys;
		if (sscanf(line, "%c,%lf,%lf,%lf,%lf", &side, &pos, &real, &user, &sys) != 5)
			continue; /* the header */
		if (side != 'A' && side != 'B')
			die("a side that is not A or B in ", path);
		int s = side == 'B';
		push(&p->real[s], &p->n[s], &cap[s][0], real);
		push(&p->cpu[s], &ncpu[s], &cap[s][1], user + sys);
		push(&p->pos[s], &npos[s], &cappos[s], pos);
	}
	fclose(f);
	if (p->n[0] < 2 || p->n[1] < 2)
		die("fewer than 2 runs on a side in ", path);
	/* the pairs: each side's runs in session order, the k-th with the k-th */
	p->npairs = p->n[0] < p->n[1] ? p->n[0] : p->n[1];
	for (int s = 0; s < 2; s++) {
		size_t *ord = malloc(p->n[s] * sizeof *ord);
		p->pair_real[s] = malloc(p->npairs * sizeof **p->pair_real);
		if (!ord || !p->pair_real[s])
			die("out of memory", NULL);
		for (size_t i = 0; i < p->n[s]; i++)
			ord[i] = i;
		for (size_t i = 1; i < p->n[s]; i++) /* insertion sort by position */
			for (size_t j = i; j > 0 && p->pos[s][ord[j - 1]] > p->pos[s][ord[j]];
			     j--) {
				size_t t = ord[j];
				ord[j] = ord[j - 1];
				ord[j - 1] = t;
			}
		for (size_t k = 0; k < p->npairs; k++)
			p->pair_real[s][k] = p->real[s][ord[k]];
		free(ord);
	}
}

/* The runs per side at the verdict of one sequential trial (0: none) and
 * the verdict. a and b hold max_n draws each. */
static struct pb_seq_plan paired_plan;

static size_t sequential(const struct pb_seq_plan *plan, const struct est *e, const double *a,
                         const double *b, enum pb_verdict *v, double *ratio)
{
	if (e->paired)
		plan = &paired_plan;
	for (size_t k = 0; k < plan->nlooks; k++) {
		size_t n = plan->look_n[k];
		struct pb_shift r;
		*v = PB_VERDICT_NONE;
		if ((e->paired ? pb_paired_hl_ratio(a, b, n, plan->level_per_look, &r)
		               : pb_ratio_estimate(e->kind, e->param, a, n, b, n,
		                                   plan->level_per_look, &r)) != 0)
			continue; /* too few runs for this estimator yet */
		*v = pb_verdict_of(&r, MARGIN);
		*ratio = r.estimate;
		if (*v != PB_VERDICT_NONE)
			return n;
	}
	*v = PB_VERDICT_NONE;
	return 0;
}

static void draw(gsl_rng *rng, const double *v, size_t n, const double *v2, size_t n2, double *out)
{
	for (size_t i = 0; i < max_n; i++) {
		size_t k = gsl_rng_uniform_int(rng, n + n2);
		out[i] = k < n ? v[k] : v2[k - n];
	}
}

/* max_n pairs drawn with replacement from pairs (x[k * step], y[k * step]),
 * k < n; swap: each drawn pair's sides exchanged with probability 1/2, so
 * that an A/A's null holds exactly (the sides of a pair of one command are
 * exchangeable), as pooling both sides does for the two-sample rows. */
static void draw_pairs(gsl_rng *rng, const double *x, const double *y, size_t n, size_t step,
                       bool swap, double *a, double *b)
{
	for (size_t i = 0; i < max_n; i++) {
		size_t k = gsl_rng_uniform_int(rng, n) * step;
		bool s = swap && gsl_rng_uniform_int(rng, 2);
		a[i] = s ? y[k] : x[k];
		b[i] = s ? x[k] : y[k];
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Robust spread: (p75 - p25) / median / 1.349, as a share (a normal's sd). */
static double spread(const double *v, size_t n)
{
	double *s = malloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double q1 = s[n / 4], q3 = s[(3 * n) / 4], med = s[n / 2];
	free(s);
	return (q3 - q1) / med / 1.349;
}

static double median_of(const double *v, size_t n)
{
	double *s = malloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	double m = s[n / 2];
	free(s);
	return m;
}

static void describe(const struct pool *p)
{
	struct pb_shift r;
	bool split = false;
	pb_low_mode_ratio(p->real[0], p->n[0], p->real[1], p->n[1], 0.95, &r, &split);
	printf("\n%s: %zu + %zu runs; median real A %.1f ms, B %.1f ms;\n"
	       "  spread (IQR/1.349/median) real %.1f%% and %.1f%%, user+sys %.1f%% and %.1f%%;"
	       " two modes: %s\n",
	       p->name, p->n[0], p->n[1], median_of(p->real[0], p->n[0]) / 1e6,
	       median_of(p->real[1], p->n[1]) / 1e6, 100 * spread(p->real[0], p->n[0]),
	       100 * spread(p->real[1], p->n[1]), 100 * spread(p->cpu[0], p->n[0]),
	       100 * spread(p->cpu[1], p->n[1]), split ? "yes" : "no");
}

static void runs_text(size_t n, char *buf, size_t len)
{
	if (n > max_n)
		snprintf(buf, len, ">%zu", max_n);
	else
		snprintf(buf, len, "%zu", n);
}

int main(int argc, char **argv)
{
	long trials = 2000;
	unsigned long seed = 18;
	int c;
	const char *aa_files[16];
	int naa = 0;
	while ((c = getopt(argc, argv, "t:s:m:a:")) != -1) {
		if (c == 'a' && naa == 16)
			die("more than 16 A/A pools", NULL);
		else if (c == 'a')
			aa_files[naa++] = optarg;
		else if (c == 'm')
			max_n = (size_t)atol(optarg);
		else if (c == 't')
			trials = atol(optarg);
		else if (c == 's')
			seed = strtoul(optarg, NULL, 10);
		else
			die("usage: estimators [-t TRIALS] [-s SEED] [-m MAX_RUNS] -a AA.csv... "
			    "AB.csv...",
			    NULL);
	}
	if (naa + argc - optind < 1 || trials < 1 || max_n < 2 || max_n > MAX_N_LIMIT)
		die("usage: estimators [-t TRIALS] [-s SEED] [-m MAX_RUNS] -a AA.csv... AB.csv...",
		    NULL);
	struct pb_seq_plan plan;
	if (pb_seq_plan_make(max_n, ALPHA, &plan) != 0 ||
	    pb_seq_plan_make_paired(max_n, ALPHA, &paired_plan) != 0)
		die("no plan", NULL);
	printf("plan: looks at");
	for (size_t k = 0; k < plan.nlooks; k++)
		printf(" %zu", plan.look_n[k]);
	printf(" runs per side, each at %.2f%%; %ld trials per row, seed %lu\n",
	       100 * plan.level_per_look, trials, seed);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double a[MAX_N_LIMIT], b[MAX_N_LIMIT];
	size_t *at = malloc((size_t)trials * sizeof *at);
	for (int f = 0; f < naa + argc - optind; f++) {
		struct pool p;
		bool aa = f < naa;
		read_pool(aa ? aa_files[f] : argv[optind + f - naa], &p);
		describe(&p);
		if (aa)
			printf("  %-22s %9s %18s\n", "estimator", "false", "95% CI");
		else
			printf("  %-22s %6s %6s %6s %6s %6s %5s %9s\n", "estimator", "B>A", "B<A",
			       "equiv", "none", "median", "p90", "A/A of A");
		for (size_t e = 0; e < NESTS; e++) {
			const struct est *E = &ests[e];
			gsl_rng_set(rng, seed + f);
			long cnt[3][2] = {{0}}; /* [verdict][B slower] */
			for (long t = 0; t < trials; t++) {
				double *const *v = E->cpu ? p.cpu : p.real;
				if (E->paired) {
					/* A/A: the pool's own pairs are two runs of one command */
					draw_pairs(rng, p.pair_real[0], p.pair_real[1], p.npairs, 1,
					           aa, a, b);
				} else if (aa) {
					draw(rng, v[0], p.n[0], v[1], p.n[1], a);
					draw(rng, v[0], p.n[0], v[1], p.n[1], b);
				} else {
					draw(rng, v[0], p.n[0], NULL, 0, a);
					draw(rng, v[1], p.n[1], NULL, 0, b);
				}
				enum pb_verdict verdict;
				double ratio = 1;
				size_t n = sequential(&plan, E, a, b, &verdict, &ratio);
				cnt[verdict][ratio > 1]++;
				at[t] = n ? n : max_n + 1;
			}
			if (aa) {
				double k = (double)(cnt[PB_VERDICT_DIFFERENT][0] +
				                    cnt[PB_VERDICT_DIFFERENT][1]);
				double nn = (double)trials, ph = k / nn, z = 1.959964;
				double mid = (ph + z * z / (2 * nn)) / (1 + z * z / nn);
				double hw = z / (1 + z * z / nn) *
				            sqrt(ph * (1 - ph) / nn + z * z / (4 * nn * nn));
				printf("  %-22s %8.2f%% [%5.2f%%, %5.2f%%]\n", E->name, 100 * ph,
				       100 * fmax(0, mid - hw), 100 * (mid + hw));
			} else {
				qsort(at, (size_t)trials, sizeof *at, cmp_size);
				size_t med = at[trials / 2], p90 = at[(trials * 9) / 10];
				char ms[32], ps[32];
				runs_text(med, ms, sizeof ms);
				runs_text(p90, ps, sizeof ps);
				double nn = (double)trials / 100;
				long fa = 0;
				for (long t = 0; t < trials; t++) {
					double *const *v = E->cpu ? p.cpu : p.real;
					if (E->paired) {
						/* A/A of A: A's k-th run with its k+1-th (the
						 * next block's), k even */
						draw_pairs(rng, p.pair_real[0], p.pair_real[0] + 1,
						           p.npairs / 2, 2, true, a, b);
					} else {
						draw(rng, v[0], p.n[0], NULL, 0, a);
						draw(rng, v[0], p.n[0], NULL, 0, b);
					}
					enum pb_verdict verdict;
					double ratio = 1;
					sequential(&plan, E, a, b, &verdict, &ratio);
					fa += verdict == PB_VERDICT_DIFFERENT;
				}
				printf("  %-22s %5.1f%% %5.1f%% %5.1f%% %5.1f%% %6s %5s %8.2f%%\n",
				       E->name, cnt[PB_VERDICT_DIFFERENT][1] / nn,
				       cnt[PB_VERDICT_DIFFERENT][0] / nn,
				       (cnt[PB_VERDICT_EQUIVALENT][0] +
				        cnt[PB_VERDICT_EQUIVALENT][1]) /
				           nn,
				       (cnt[PB_VERDICT_NONE][0] + cnt[PB_VERDICT_NONE][1]) / nn, ms,
				       ps, (double)fa / nn);
			}
			fflush(stdout);
		}
	}
	free(at);
	gsl_rng_free(rng);
	return 0;
}
