/* test_breakeven.c - crossings, their regions (neither faster by the one rule), the recommended
 * policy and the glibc mapping, on synthetic results with known answers:
 * kernel A costs 10 + n/64 ticks, B 40 + n/128, so they cross at
 * n = 3840 exactly. */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/breakeven.h"
#include "primbench/breakeven_text.h"
#include "primbench/error.h"
#include "primbench/replicates.h"
#include "results/results_json.h"
#include "primbench/text.h"
#include "primbench/twosample.h"

#include "hide_profile.h"

#define KIB (UINT64_C(1) << 10)
#define MIB (UINT64_C(1) << 20)

/* Kernels that exist on every architecture stand for A, B, C. */
#define KA "gpr_unrolled"
#define KB "bytes"
#define KC "strided"

struct synth {
	struct pb_mem_case cases[2048];
	size_t n;
	uint32_t seed;
};

static const struct pb_kernel *kern(enum pb_op op, const char *name)
{
	const struct pb_kernel *k = pb_kernel_find(op, name);
	if (!k)
		fail_msg("no kernel %s: %s", name, pb_error());
	return k;
}

/* Samples for the synthetic cases (a ring: a test's synths use fewer
 * cases than it holds). */
#define POOL_CASES    8192
#define SYNTH_SAMPLES 31
static double pool_ticks[POOL_CASES][SYNTH_SAMPLES];
static uint64_t pool_calls[POOL_CASES][SYNTH_SAMPLES];
static size_t pool_next;

/* A case with median `med` and a 95% CI of +-rel (relative; 0: no CI):
 * its summary set so, and 31 samples of one call each spread evenly over
 * med x (1 +- 1.35 rel), whose median's interval is about +-rel: the
 * samples pb_contender_ratio sets kernels against each other with (two
 * such cases with a gap of 2 rel or more between their medians are told
 * apart). rel 0: two equal samples, no interval. */
static void add(struct synth *s, enum pb_op op, const char *name, uint64_t n, double med,
                double rel)
{
	size_t slot = pool_next++ % POOL_CASES;
	assert_true(s->n < sizeof s->cases / sizeof s->cases[0]);
	struct pb_mem_case *c = &s->cases[s->n++];
	memset(c, 0, sizeof *c);
	c->op = op;
	c->kernel = kern(op, name);
	c->size_bytes = n;
	c->state = PB_STATE_HOT;
	c->n_samples = rel > 0 ? SYNTH_SAMPLES : 2;
	for (size_t i = 0; i < c->n_samples; i++) {
		double u = rel > 0 ? 1.35 * (2.0 * (double)i / (SYNTH_SAMPLES - 1) - 1) : 0;
		pool_ticks[slot][i] = med * (1 + rel * u);
		pool_calls[slot][i] = 1;
	}
	c->batch_ticks = pool_ticks[slot];
	c->batch_calls = pool_calls[slot];
	c->ticks_per_call.n = c->n_samples;
	c->ticks_per_call.median = med;
	c->ticks_per_call.ci_valid = rel > 0;
	c->ticks_per_call.ci_lo = rel > 0 ? med * (1 - rel) : NAN;
	c->ticks_per_call.ci_hi = rel > 0 ? med * (1 + rel) : NAN;
	c->ticks_per_call.ci_level = 0.95;
}

/* A case of R replicates of 6 samples each, replicate r's at level[r] x
 * (1 +- 0.0001): what a run of R replicates gives (the break-even's pairs
 * are then by replicate). */
static size_t pool_reps[POOL_CASES][8];
static void add_replicated(struct synth *s, const char *name, uint64_t n, const double *level,
                           size_t R)
{
	size_t slot = pool_next % POOL_CASES;
	add(s, PB_OP_MEMCPY, name, n, level[0], 0.01);
	struct pb_mem_case *c = &s->cases[s->n - 1];
	assert_true(R <= 5 && R * 6 <= SYNTH_SAMPLES);
	double all[SYNTH_SAMPLES];
	c->n_samples = R * 6;
	for (size_t r = 0; r < R; r++) {
		pool_reps[slot][r] = 6;
		for (size_t i = 0; i < 6; i++) {
			pool_ticks[slot][r * 6 + i] = level[r] * (1 + 0.0001 * ((double)i - 2.5));
			all[r * 6 + i] = pool_ticks[slot][r * 6 + i];
		}
	}
	c->n_replicates = R;
	c->replicate_samples = pool_reps[slot];
	struct pb_summary sum;
	assert_int_equal(pb_summarize_replicates(all, c->n_samples, pool_reps[slot], R, 0.95, &sum),
	                 0);
	c->ticks_per_call = sum;
}

/* Deterministic noise in [1 - amp, 1 + amp]. */
static double noise(struct synth *s, double amp)
{
	s->seed = s->seed * 1103515245u + 12345u;
	return 1 + amp * (((s->seed >> 8) % 2001) / 1000.0 - 1);
}

static double cost_a(double n)
{
	return 10 + n / 64;
}

static double cost_b(double n)
{
	return 40 + n / 128;
}

static struct pb_mem_result result_of(struct synth *s)
{
	return (struct pb_mem_result){.cases = s->cases, .n_cases = s->n};
}

static struct pb_breakeven compute(struct synth *s, enum pb_op op,
                                   const struct pb_glibc_thresholds *g)
{
	struct pb_mem_result r = result_of(s);
	struct pb_breakeven b;
	int rc = pb_breakeven_compute(&r, op, PB_STATE_HOT, g, &b);
	if (rc != 1)
		fail_msg("pb_breakeven_compute: %d (%s)", rc, pb_error());
	return b;
}

/* The result file's "breakeven" object of (op, st) of r, as the results
 * module writes its record; NULL when r has no case of (op, st). */
static json_t *breakeven_json(const struct pb_mem_result *r, enum pb_op op, enum pb_cache_state st,
                              const struct pb_glibc_thresholds *g)
{
	struct pb_breakeven b;
	if (pb_breakeven_compute(r, op, st, g, &b) <= 0)
		return NULL;
	struct pb_breakeven_record rec;
	assert_int_equal(pb_breakeven_record_make(&b, &rec), 0);
	pb_breakeven_free(&b);
	json_t *o = pb_results_breakeven_json(&rec);
	pb_breakeven_record_free(&rec);
	return o;
}

static void assert_policy(const struct pb_breakeven *b, const char *text)
{
	char buf[PB_POLICY_TEXT_MAX];
	assert_true(pb_policy_format(&b->policy, buf, sizeof buf) > 0);
	assert_string_equal(buf, text);
}

static void assert_between(double v, double lo, double hi)
{
	if (!(v >= lo && v <= hi))
		fail_msg("%g is not in [%g, %g]", v, lo, hi);
}

/* ---- crossings ----------------------------------------------------------- */

static void test_linear_crossing(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0.02);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_sizes, 11);
	assert_int_equal(b.n_leading, 2);
	assert_int_equal(b.n_crossings, 1);
	const struct pb_crossing *c = &b.crossings[0];
	assert_ptr_equal(c->below, kern(PB_OP_MEMCPY, KA));
	assert_ptr_equal(c->above, kern(PB_OP_MEMCPY, KB));
	/* ln(A/B) linear in log2(n) between 2048 (42 vs 56) and 4096 (74 vs
	 * 72): 2^(11 + ln(56/42) / ln(56/42 * 74/72)) = 3856.4; the costs are
	 * not power laws, hence 0.4% from 3840. */
	assert_true(fabs(c->size_bytes - 3856.4) < 0.1);
	assert_true(fabs(c->size_bytes / 3840 - 1) < 0.01);
	assert_true(c->bracket_lo == 2048 && c->bracket_hi == 4096);
	assert_int_equal(c->flips, 1);
	/* CIs of +-2%: by the one rule (the ratio of the two, its interval from
	 * the samples, pb_verdict with the 1% margin) A is faster at 2048 and B
	 * at 4096 (74 vs 72, 2.7%). lo and hi: where win() of A over B, and of B
	 * over A, interpolated in log2(size), crosses 0 between them. (The
	 * two CIs' overlap gave 3531..4238 B: wider, as an overlap test is.) */
	assert_false(c->lo_open);
	assert_false(c->hi_open);
	assert_true(fabs(c->lo_bytes - 3772.9) < 0.1);
	assert_true(fabs(c->hi_bytes - 3941.8) < 0.1);
	assert_between(3840, c->lo_bytes, c->hi_bytes);
	assert_between(c->size_bytes, c->lo_bytes, c->hi_bytes);
	/* the policy switches at the same interpolation, rounded down */
	assert_policy(&b, KA "<=3856," KB);
	pb_breakeven_free(&b);
}

/* Four sizes per octave: the interpolation error shrinks. */
static void test_linear_crossing_dense(void **state)
{
	(void)state;
	struct synth s = {0};
	for (int i = 0; i <= 40; i++) {
		uint64_t n = (uint64_t)llround(64 * exp2(i / 4.0));
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0.01);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0.01);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 1);
	assert_true(fabs(b.crossings[0].size_bytes / 3840 - 1) < 0.001);
	assert_between(3840, b.crossings[0].lo_bytes, b.crossings[0].hi_bytes);
	pb_breakeven_free(&b);
}

/* Noise flips the medians' order back and forth near the crossing: still
 * one crossing, its interval holding the true one. */
static void test_noisy_crossing(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 20; seed++) {
		struct synth s = {.seed = seed};
		for (int i = 0; i <= 80; i++) {
			uint64_t n = (uint64_t)llround(64 * exp2(i / 8.0));
			add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n) * noise(&s, 0.03), 0.05);
			add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n) * noise(&s, 0.03), 0.05);
		}
		struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
		if (b.n_crossings != 1)
			fail_msg("seed %u: %zu crossings", seed, b.n_crossings);
		const struct pb_crossing *c = &b.crossings[0];
		assert_ptr_equal(c->below, kern(PB_OP_MEMCPY, KA));
		assert_int_equal(c->flips % 2, 1);
		assert_false(c->lo_open || c->hi_open);
		/* the region where neither is faster by the rule holds the
		 * estimate; it is not a confidence interval of the truth */
		assert_between(c->size_bytes, c->lo_bytes, c->hi_bytes);
		assert_true(fabs(c->size_bytes / 3840 - 1) < 0.15);
		/* the policy keeps the two bands, switching inside the interval */
		assert_int_equal(b.policy.n_bands, 2);
		assert_between((double)b.policy.bands[0].max_bytes, c->lo_bytes, c->hi_bytes);
		pb_breakeven_free(&b);
	}
}

/* A hand-made triple flip: the medians cross three times between two
 * clear sizes; the crossing is the middle one. */
static void test_triple_flip(void **state)
{
	(void)state;
	struct synth s = {0};
	static const double ratio[] = {0.7, 0.8, 0.99, 1.01, 0.99, 1.01, 1.2, 1.4}; /* A / B */
	for (int i = 0; i < 8; i++) {
		uint64_t n = UINT64_C(1024) << i;
		add(&s, PB_OP_MEMCPY, KA, n, 100 * ratio[i], 0.04);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.04);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 1);
	const struct pb_crossing *c = &b.crossings[0];
	assert_int_equal(c->flips, 3);
	/* flips between 4K-8K, 8K-16K, 16K-32K: the middle one, at 8K * 2^0.5 */
	assert_true(c->bracket_lo == 8 * KIB && c->bracket_hi == 16 * KIB);
	assert_true(fabs(c->size_bytes / (8192 * M_SQRT2) - 1) < 0.01);
	/* clear at 2K (0.8 +-4%) and at 64K (1.2): the interval lies inside */
	assert_between(c->lo_bytes, 2048, 4096);
	assert_between(c->hi_bytes, 32768, 65536);
	pb_breakeven_free(&b);
}

/* An even number of flips between clear sizes of the same kernel is noise:
 * no crossing. */
static void test_even_flips(void **state)
{
	(void)state;
	struct synth s = {0};
	static const double ratio[] = {0.7, 0.8, 1.01, 0.99, 0.8, 0.7};
	for (int i = 0; i < 6; i++) {
		uint64_t n = UINT64_C(1024) << i;
		add(&s, PB_OP_MEMCPY, KA, n, 100 * ratio[i], 0.04);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.04);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 0);
	/* B wins one size by its median, not beyond the CIs: merged away */
	assert_policy(&b, KA);
	pb_breakeven_free(&b);
}

static void test_no_crossing(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, 10 + n / 128.0, 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, 40 + n / 64.0, 0.02);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 0);
	assert_int_equal(b.n_leading, 1); /* B is never fastest, and not libc */
	assert_policy(&b, KA);
	pb_breakeven_free(&b);
}

/* Two kernels the run could never tell apart: their medians may cross,
 * but nothing is reported. */
static void test_indistinguishable(void **state)
{
	(void)state;
	struct synth s = {.seed = 7};
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		double t = 10 + n / 64.0;
		add(&s, PB_OP_MEMCPY, KA, n, t * noise(&s, 0.02), 0.05);
		add(&s, PB_OP_MEMCPY, KB, n, t * noise(&s, 0.02), 0.05);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 0);
	assert_int_equal(b.policy.n_bands, 1);
	pb_breakeven_free(&b);
}

/* Two kernels the data cannot tell apart (the later in the catalogue
 * 0.6% lower by the medians everywhere, intervals of +-5%): the policy
 * names the first in catalogue order, whichever was lucky, and lists the
 * other as its peer; libc first by default, last by tune's rule. */
/* With replicates a peer is judged over its band as a whole: a kernel
 * 1.5% slower at one of four sizes in every replicate (told apart there,
 * size by size) and 0.5% faster at the other three is, over the band, no
 * slower: a peer. Without the replicates, size by size: not one. */
static void test_peers_band_whole(void **state)
{
	(void)state;
	const double base[] = {100, 103, 97, 101, 99};
	/* the kernel earlier in catalogue order wins at the one size: the
	 * band's kernel whenever the other is its peer */
	bool a_first = kern(PB_OP_MEMCPY, KA) < kern(PB_OP_MEMCPY, KB);
	const char *one = a_first ? KA : KB, *three = a_first ? KB : KA;
	for (int whole = 0; whole < 2; whole++) {
		struct synth s = {.seed = 5};
		for (uint64_t n = 1024, i = 0; n <= 8 * KIB; n *= 2, i++) {
			double f = i == 0 ? 1.015 : 0.995, a[5], b[5]; /* three over one */
			for (size_t r = 0; r < 5; r++) {
				a[r] = base[r] * (10 + n / 64.0) / 100;
				b[r] = a[r] * f;
			}
			if (whole) {
				add_replicated(&s, one, n, a, 5);
				add_replicated(&s, three, n, b, 5);
			} else {
				add(&s, PB_OP_MEMCPY, one, n, a[0], 0.002);
				add(&s, PB_OP_MEMCPY, three, n, b[0], 0.002);
			}
		}
		struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
		assert_int_equal(b.policy.n_bands, 1);
		assert_string_equal(b.policy.bands[0].kernel->name, one);
		if (whole) { /* over the band, `one` is not faster: a peer */
			assert_int_equal(b.peers[0].n, 1);
			assert_string_equal(b.peers[0].kernels[0]->name, three);
		} else { /* size by size, `one` is faster at 1 KiB: no peer */
			assert_int_equal(b.peers[0].n, 0);
		}
		pb_breakeven_free(&b);
	}
}

/* A band whose kernel wins clearly at one of its sizes but, over the band
 * as a whole, cannot be told from its neighbours' kernel (which is also
 * close by the medians): the neighbours' kernel serves it, and the two
 * switches around it go, even though the band's own kernel comes first
 * in catalogue order. Replicates shift the later kernel by a few per cent
 * together at every size, so the band's interval is wide while the one
 * size's is not. */
static void test_peers_neighbour(void **state)
{
	(void)state;
	bool a_first = kern(PB_OP_MEMCPY, KA) < kern(PB_OP_MEMCPY, KB);
	const char *early = a_first ? KA : KB, *late = a_first ? KB : KA;
	static const double f[5] = {1.00, 1.06, 0.95, 1.03, 0.97};
	struct synth s = {.seed = 9};
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		double base = 10 + n / 64.0, e[5], l[5];
		bool mid = n >= 512 && n <= 8 * KIB;
		for (size_t r = 0; r < 5; r++) {
			l[r] = base * f[r];
			e[r] = !mid ? base * 1.25 : n == KIB ? base * 0.90 : base;
		}
		add_replicated(&s, early, n, e, 5);
		add_replicated(&s, late, n, l, 5);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.policy.n_bands, 1);
	assert_string_equal(b.policy.bands[0].kernel->name, late);
	assert_int_equal(b.n_switches, 0);
	pb_breakeven_free(&b);
}

/* The keep rule as applied and printed: no gain below the one margin
 * (--equivalence). */
static void test_rule_floor(void **state)
{
	(void)state;
	struct synth s = {.seed = 3};
	for (uint64_t n = 1024; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, 10 + n / 64.0, 0.01);
		add(&s, PB_OP_MEMCPY, KB, n, 12 + n / 60.0, 0.01);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_true(b.rule.small == 0.03 && b.rule.large == 0.03);
	pb_breakeven_free(&b);
	assert_int_equal(pb_equivalence_set(0.05), 0);
	b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_true(b.rule.small == 0.05 && b.rule.large == 0.05);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	pb_breakeven_print(f, &b);
	fclose(f);
	assert_non_null(strstr(text, "by over 5%"));
	/* the count of sizes reads as one, not as the first size */
	assert_non_null(strstr(text, "\n7 sizes measured, "));
	assert_non_null(strstr(text, "beyond +-5%"));
	free(text);
	pb_breakeven_free(&b);
	assert_int_equal(pb_equivalence_set(PB_EQUIVALENCE), 0);
}

static void test_peers_canonical(void **state)
{
	(void)state;
	const char *names[][2] = {{KA, KB}, {"libc", KA}};
	for (int t = 0; t < 2; t++) {
		const struct pb_kernel *k0 = kern(PB_OP_MEMCPY, names[t][0]),
		                       *k1 = kern(PB_OP_MEMCPY, names[t][1]);
		const char *first = k0 < k1 ? names[t][0] : names[t][1];
		const char *later = k0 < k1 ? names[t][1] : names[t][0];
		/* libc: first whatever its place (tune: last, below) */
		if (!strcmp(later, "libc")) {
			const char *x = first;
			first = later;
			later = x;
		}
		for (int lucky = 0; lucky < 2; lucky++) {
			struct synth s = {.seed = 3};
			for (uint64_t n = 1024; n <= 64 * KIB; n *= 2) {
				double tk = 10 + n / 64.0;
				add(&s, PB_OP_MEMCPY, first, n, tk * (lucky ? 1.003 : 0.997), 0.05);
				add(&s, PB_OP_MEMCPY, later, n, tk * (lucky ? 0.997 : 1.003), 0.05);
			}
			struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
			assert_int_equal(b.policy.n_bands, 1);
			assert_string_equal(b.policy.bands[0].kernel->name, first);
			assert_int_equal(b.peers[0].n, 1);
			assert_string_equal(b.peers[0].kernels[0]->name, later);
			char text[256];
			pb_breakeven_peers_text(&b, text, sizeof text);
			char want[128];
			snprintf(want, sizeof want, "%s (the last band): %s", first, later);
			assert_string_equal(text, want);
			pb_breakeven_free(&b);
		}
	}
	/* tune's rule: libc last */
	struct synth t = {.seed = 3};
	for (uint64_t n = 1024; n <= 64 * KIB; n *= 2) {
		add(&t, PB_OP_MEMCPY, "libc", n, (10 + n / 64.0) * 0.997, 0.05);
		add(&t, PB_OP_MEMCPY, KA, n, (10 + n / 64.0) * 1.003, 0.05);
	}
	struct pb_mem_result tr = result_of(&t);
	const struct pb_gain_rule tune_rule = {
	    .small = 0.10, .large = 0.03, .large_from_bytes = 16384, .libc_last = true};
	struct pb_breakeven tb;
	assert_int_equal(
	    pb_breakeven_compute_rule(&tr, PB_OP_MEMCPY, PB_STATE_HOT, NULL, &tune_rule, &tb), 1);
	assert_string_equal(tb.policy.bands[0].kernel->name, KA);
	assert_string_equal(tb.peers[0].kernels[0]->name, "libc");
	pb_breakeven_free(&tb);

	/* 3% apart with +-0.5% intervals: told apart, no peer, the faster */
	struct synth s = {.seed = 3};
	for (uint64_t n = 1024; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, 100 * 1.03, 0.005);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.005);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_string_equal(b.policy.bands[0].kernel->name, KB);
	assert_int_equal(b.peers[0].n, 0);
	pb_breakeven_free(&b);
}

/* Three kernels: A-B at 3840, A-C at 33280, B-C at 92160. */
static void test_three_kernels(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 64; n <= MIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KC, n, 400 + n / 256.0, 0.02);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_leading, 3);
	assert_int_equal(b.n_crossings, 3);
	static const double truth[] = {3840, 33280, 92160};
	static const char *const below[] = {KA, KA, KB}, *const above[] = {KB, KC, KC};
	for (int i = 0; i < 3; i++) {
		const struct pb_crossing *c = &b.crossings[i];
		assert_ptr_equal(c->below, kern(PB_OP_MEMCPY, below[i]));
		assert_ptr_equal(c->above, kern(PB_OP_MEMCPY, above[i]));
		assert_true(fabs(c->size_bytes / truth[i] - 1) < 0.03);
		assert_between(c->size_bytes, c->lo_bytes, c->hi_bytes);
	}
	/* the envelope: A, then B, then C, switching at the crossings */
	assert_int_equal(b.policy.n_bands, 3);
	assert_ptr_equal(b.policy.bands[0].kernel, kern(PB_OP_MEMCPY, KA));
	assert_ptr_equal(b.policy.bands[1].kernel, kern(PB_OP_MEMCPY, KB));
	assert_ptr_equal(b.policy.bands[2].kernel, kern(PB_OP_MEMCPY, KC));
	assert_true(b.policy.bands[0].max_bytes == (uint64_t)floor(b.crossings[0].size_bytes));
	assert_true(b.policy.bands[1].max_bytes == (uint64_t)floor(b.crossings[2].size_bytes));
	pb_breakeven_free(&b);
}

/* libc is always among the leading kernels, fastest or not. */
static void test_libc_leading(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KC, n, 1000 + (double)n, 0.02); /* never leads */
		add(&s, PB_OP_MEMCPY, "libc", n, 2 * cost_a((double)n), 0.02);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_leading, 3);
	bool libc = false;
	for (size_t i = 0; i < b.n_leading; i++) {
		assert_ptr_not_equal(b.leading[i], kern(PB_OP_MEMCPY, KC));
		libc |= b.leading[i] == kern(PB_OP_MEMCPY, "libc");
	}
	assert_true(libc);
	/* libc (2A) crosses B at 40 + n/128 = 20 + n/32: n = 853.3 */
	bool found = false;
	for (size_t i = 0; i < b.n_crossings; i++)
		if (b.crossings[i].below == kern(PB_OP_MEMCPY, "libc")) {
			found = true;
			assert_ptr_equal(b.crossings[i].above, kern(PB_OP_MEMCPY, KB));
			assert_true(fabs(b.crossings[i].size_bytes / 853.3 - 1) < 0.05);
		}
	assert_true(found);
	pb_breakeven_free(&b);
}

/* The CIs still overlap at the largest size: the interval is open above. */
static void test_open_interval(void **state)
{
	(void)state;
	struct synth s = {0};
	static const double ratio[] = {0.5, 0.6, 0.8, 0.97, 1.02};
	for (int i = 0; i < 5; i++) {
		uint64_t n = UINT64_C(256) << i;
		add(&s, PB_OP_MEMCPY, KA, n, 100 * ratio[i], 0.05);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.05);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_crossings, 1);
	const struct pb_crossing *c = &b.crossings[0];
	assert_false(c->lo_open);
	assert_true(c->hi_open);
	assert_true(c->hi_bytes == 4096);
	/* A is still faster by the rule at 2048 (0.97: 3%, beyond the margin) */
	assert_between(c->lo_bytes, 2048, 4096);
	assert_between(c->size_bytes, 2048, 4096);
	/* B beats A nowhere beyond the CIs: one band */
	assert_policy(&b, KA);
	pb_breakeven_free(&b);
}

/* Cases without a CI cannot separate kernels; sizes 0 and non-positive
 * medians are left out; other ops and states are ignored. */
static void test_inputs(void **state)
{
	(void)state;
	struct synth s = {0};
	struct pb_mem_result r = result_of(&s);
	struct pb_breakeven b;
	assert_int_equal(pb_breakeven_compute(&r, PB_OP_MEMCPY, PB_STATE_HOT, NULL, &b), 0);
	assert_null(breakeven_json(&r, PB_OP_MEMCPY, PB_STATE_HOT, NULL));

	add(&s, PB_OP_MEMCPY, KA, 0, 5, 0.02);
	add(&s, PB_OP_MEMCPY, KB, 0, 1, 0.02);
	add(&s, PB_OP_MEMCPY, KB, 32, -3, 0.02);
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0);
		add(&s, PB_OP_MEMSET, KA, n, 1, 0.01);
	}
	s.cases[s.n - 1].state = PB_STATE_DRAM;
	b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_sizes, 11);
	assert_true(b.min_size == 64);
	assert_int_equal(b.n_crossings, 0); /* no CI anywhere: never separated */
	assert_policy(&b, KA);              /* nothing beats A beyond a CI: one band */
	pb_breakeven_free(&b);
}

/* ---- policy merging ------------------------------------------------------- */

static void test_policy_merging(void **state)
{
	(void)state;
	/* B wins 4K by 1% with +-5% CIs: not kept */
	struct synth s = {0};
	for (uint64_t n = 256; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, (double)n, 0.05);
		add(&s, PB_OP_MEMCPY, KB, n, (double)n * (n == 4096 ? 0.99 : 1.2), 0.05);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_policy(&b, KA);
	pb_breakeven_free(&b);

	/* by 20%: kept, switching at the interpolated crossings */
	s.n = 0;
	for (uint64_t n = 256; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, (double)n, 0.05);
		add(&s, PB_OP_MEMCPY, KB, n, (double)n * (n == 4096 ? 0.8 : 1.2), 0.05);
	}
	b = compute(&s, PB_OP_MEMCPY, NULL);
	/* ln(1/1.2) at 2K, ln(1/0.8) at 4K: 2^(11 + 0.1823/0.4055) = 2796.9;
	 * ln(0.8) at 4K, ln(1.2) at 8K: 2^(12 + 0.2231/0.4055) = 5998.6 */
	assert_policy(&b, KA "<=2796," KB "<=5998," KA);
	pb_breakeven_free(&b);

	/* A narrow, indistinct win of C between A and B joins a neighbour */
	s.n = 0;
	for (uint64_t n = 64; n <= 64 * KIB; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, cost_a((double)n), 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, cost_b((double)n), 0.02);
		double best = fmin(cost_a((double)n), cost_b((double)n));
		add(&s, PB_OP_MEMCPY, KC, n, n == 4096 ? best * 0.995 : best * 1.5, 0.02);
	}
	b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.policy.n_bands, 2);
	assert_ptr_equal(b.policy.bands[0].kernel, kern(PB_OP_MEMCPY, KA));
	assert_ptr_equal(b.policy.bands[1].kernel, kern(PB_OP_MEMCPY, KB));
	pb_breakeven_free(&b);
}

/* The keep rule by size (pb_breakeven_compute_rule): B is 13% faster at
 * 512 B and at 64 KiB (its ratio's interval clear of 1). The gain is the
 * margin of pb_verdict: with 10% everywhere both bands are kept; with 15%
 * below 16 KiB and 3% from there, only the large one; with 15% everywhere,
 * neither. */
static void test_gain_rule_by_size(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 128; n <= 256 * KIB; n *= 2) {
		add(&s, PB_OP_MEMSET, KA, n, (double)n, 0.01);
		bool win = n == 512 || n == 64 * KIB;
		add(&s, PB_OP_MEMSET, KB, n, (double)n * (win ? 1 / 1.13 : 1.5), 0.01);
	}
	struct pb_mem_result r = result_of(&s);
	const struct {
		struct pb_gain_rule rule;
		unsigned bands;
		const char *kernel_at_64k;
		const char *kernel_at_512;
	} want[] = {
	    {{0.10, 0.10, 0, false}, 5, KB, KB},
	    {{0.15, 0.03, 16 * KIB, false}, 3, KB, KA},
	    {{0.15, 0.15, 16 * KIB, false}, 1, KA, KA},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		struct pb_breakeven b;
		assert_int_equal(pb_breakeven_compute_rule(&r, PB_OP_MEMSET, PB_STATE_HOT, NULL,
		                                           &want[i].rule, &b),
		                 1);
		assert_int_equal(b.policy.n_bands, want[i].bands);
		assert_ptr_equal(pb_policy_pick(&b.policy, 64 * KIB),
		                 kern(PB_OP_MEMSET, want[i].kernel_at_64k));
		assert_ptr_equal(pb_policy_pick(&b.policy, 512),
		                 kern(PB_OP_MEMSET, want[i].kernel_at_512));
		pb_breakeven_free(&b);
	}
}

/* More than PB_POLICY_MAX_BANDS distinct bands: merged anyway, flagged. */
static void test_policy_too_many_bands(void **state)
{
	(void)state;
	struct synth s = {0};
	for (int i = 0; i < 40; i++) {
		uint64_t n = UINT64_C(64) * (uint64_t)(i + 1);
		add(&s, PB_OP_MEMCPY, KA, n, i % 2 ? 100 : 50, 0.02);
		add(&s, PB_OP_MEMCPY, KB, n, i % 2 ? 50 : 100, 0.02);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_true(b.policy_simplified);
	assert_int_equal(b.policy.n_bands, PB_POLICY_MAX_BANDS);
	for (size_t i = 0; i + 1 < b.policy.n_bands; i++)
		assert_true(b.policy.bands[i].max_bytes < b.policy.bands[i + 1].max_bytes);
	pb_breakeven_free(&b);
}

/* ---- the policy's switches -------------------------------------------------- */

/* The printout of b, checked for 80 columns; caller frees. */
static char *print_of(const struct pb_breakeven *b)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	pb_breakeven_print(f, b);
	fclose(f);
	for (char *line = text; *line;) {
		char *e = strchr(line, '\n');
		size_t n = e ? (size_t)(e - line) : strlen(line);
		if (n > 80)
			fail_msg("%zu columns: %.*s", n, (int)n, line);
		line += n + (e != NULL);
	}
	return text;
}

/* The switches are the policy: one per bound, same kernels, same bound,
 * and the printed list has exactly those lines. */
static void assert_switches_are_policy(const struct pb_breakeven *b)
{
	assert_int_equal(b->n_switches + 1, b->policy.n_bands);
	for (size_t i = 0; i < b->n_switches; i++) {
		const struct pb_crossing *x = &b->switches[i];
		assert_ptr_equal(x->below, b->policy.bands[i].kernel);
		assert_ptr_equal(x->above, b->policy.bands[i + 1].kernel);
		assert_true(x->bound_bytes == b->policy.bands[i].max_bytes);
	}
	char *text = print_of(b);
	size_t lines = 0;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)n, p);
		lines += strstr(line, " -> ") && strstr(line, " above ");
		p += n + (e != NULL);
	}
	assert_int_equal(lines, b->n_switches);
	/* No zero-width interval ("between 433 and 433 B"), and a bound that
	 * is not the crossing says where it came from. */
	for (const char *p = strstr(text, "between "); p; p = strstr(p + 1, "between ")) {
		char lo[32], hi[32];
		if (sscanf(p, "between %31s and %31s", lo, hi) == 2 && !strcmp(lo, hi))
			fail_msg("a zero-width interval in:\n%s", text);
	}
	for (char *p = text; (p = strstr(p, "\n    ")) != NULL;) /* join wrapped lines */
		memmove(p, p + 4, strlen(p + 4) + 1), *p = ' ';
	for (size_t i = 0; i < b->n_switches; i++) {
		const struct pb_crossing *x = &b->switches[i];
		if (x->bound_how == PB_BOUND_CODE || x->bound_how == PB_BOUND_ASCENDING)
			assert_non_null(strstr(text, "moved up from"));
		if (x->bound_how == PB_BOUND_BANDS)
			assert_non_null(
			    strstr(text, "no crossing of their own: where their bands meet"));
	}
	for (size_t i = 0; i < b->n_switches; i++) {
		char at[32], want[128];
		pb_format_bytes(at, sizeof at, b->switches[i].bound_bytes, PB_BYTES_PROSE);
		snprintf(want, sizeof want, "%s -> %s above %s (", b->switches[i].below->name,
		         b->switches[i].above->name, at);
		if (!strstr(text, want))
			fail_msg("missing '%s' in:\n%s", want, text);
	}
	free(text);
}

/* Issue 16, defect 2: the medians of A and B flip three times between
 * A's last clear size (256) and B's first (2048), A leading again at 1024
 * by its median. The policy used to switch between 1024 and 2048 while
 * the list said 888 B; now both are the middle flip (between 512 and
 * 1024). */
static void test_switch_is_the_crossing(void **state)
{
	(void)state;
	struct synth s = {0};
	static const double ratio[] = {0.5,  0.6,  0.7, 0.8, 0.9,
	                               1.01, 0.99, 1.2, 1.4, 1.6}; /* A/B */
	for (int i = 0; i < 10; i++) {
		uint64_t n = UINT64_C(1) << (i + 2);
		n *= 16; /* 64 B .. 32 KiB */
		add(&s, PB_OP_MEMCPY, KA, n, 100 * ratio[i], 0.03);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.03);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.policy.n_bands, 2);
	assert_int_equal(b.switches[0].flips, 3);
	assert_true(b.switches[0].bound_bytes > 2048 && b.switches[0].bound_bytes < 4096);
	assert_switches_are_policy(&b);
	pb_breakeven_free(&b);
}

/* Fresh-eyes review: CIs apart at every measured size (A clearly faster
 * up to 256 B, B from 512 B): the overlap "interval" is an interpolation
 * between 256 and 512 B, a sliver the switch could fall outside of
 * ("above 431 B (between 432 and 433 B)"). The line says one is faster by
 * the rule at every measured size and gives the measured sizes around the
 * crossing. */
static void test_switch_no_measured_overlap(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 64; n <= 4096; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, n <= 256 ? 50 : 150, 0.03);
		add(&s, PB_OP_MEMCPY, KB, n, 100, 0.03);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_switches, 1);
	const struct pb_crossing *x = &b.switches[0];
	assert_false(x->undecided_measured);
	assert_int_equal(x->bound_how, PB_BOUND_CROSSING);
	assert_true(x->bound_bytes >= 256 && x->bound_bytes < 512);
	char *text = print_of(&b);
	char want[160];
	snprintf(want, sizeof want,
	         "%s -> %s above %" PRIu64 " B (one faster at every measured size; crossing", KA,
	         KB, x->bound_bytes);
	if (!strstr(text, want) || !strstr(text, "between 256 and 512 B)"))
		fail_msg("no '%s ... between 256 and 512 B)' in:\n%s", want, text);
	free(text);
	assert_switches_are_policy(&b);
	pb_breakeven_free(&b);
}

/* A switch that is not a crossing of its own says so ("avx512 -> libc
 * above 511 B (between 362 and 469 B)": a bound at the bands' boundary,
 * outside the overlap). strided runs gpr_unrolled's code up to 64 B, so
 * it is a candidate from 128 B only: the bound is where the bands meet. */
static void test_switch_at_band_boundary_says_so(void **state)
{
	(void)state;
	struct synth s = {0};
	for (uint64_t n = 16; n <= 4096; n *= 2) {
		add(&s, PB_OP_MEMCPY, KA, n, n <= 32 ? 50 : 150, 0.03);
		add(&s, PB_OP_MEMCPY, KC, n, 100, 0.03);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMCPY, NULL);
	assert_int_equal(b.n_switches, 1);
	const struct pb_crossing *x = &b.switches[0];
	assert_int_equal(x->bound_how, PB_BOUND_BANDS);
	assert_true(x->bound_bytes == 64);
	char *text = print_of(&b);
	if (!strstr(text, "gpr_unrolled -> strided above 64 B (no crossing of their own: where "
	                  "their\n    bands meet; first compared at 128 B;"))
		fail_msg("the bound's origin is not said in:\n%s", text);
	free(text);
	assert_switches_are_policy(&b);
	pb_breakeven_free(&b);
}

/* Four kernels with noisy crossings: whatever the noise, the printed
 * switches and the policy agree. */
static void test_switches_noisy(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 30; seed++) {
		struct synth s = {.seed = seed};
		for (int i = 0; i <= 60; i++) {
			double n = 64 * exp2(i / 4.0);
			uint64_t u = (uint64_t)llround(n);
			add(&s, PB_OP_MEMSET, "libc", u, (12 + n / 100) * noise(&s, 0.04), 0.03);
			add(&s, PB_OP_MEMSET, "bytes", u, (4 + n / 40) * noise(&s, 0.04), 0.03);
			add(&s, PB_OP_MEMSET, "gpr_unrolled", u, (30 + n / 128) * noise(&s, 0.04),
			    0.03);
			add(&s, PB_OP_MEMSET, "rbw", u, (200 + n / 160) * noise(&s, 0.04), 0.03);
		}
		struct pb_breakeven b = compute(&s, PB_OP_MEMSET, NULL);
		assert_true(b.policy.n_bands >= 2);
		assert_switches_are_policy(&b);
		pb_breakeven_free(&b);
	}
}

/* ---- glibc ------------------------------------------------------------------ */

#if defined(__x86_64__)
/* This machine kind's glibc 2.36 (Intel, AVX-512: min 0x200, stop = NT). */
static const struct pb_glibc_thresholds intel = {.rep_movsb = 2112,
                                                 .rep_stosb = 2048,
                                                 .non_temporal = 0xb580000,
                                                 .rep_movsb_stop = 0xb580000,
                                                 .rep_movsb_min = 512,
                                                 .known = true};

static struct pb_policy pol(enum pb_op op, const char *text)
{
	struct pb_policy p;
	if (pb_policy_parse(op, text, (pb_features)-1, &p) != 0)
		fail_msg("%s", pb_error());
	return p;
}

static bool has_note(const struct pb_glibc_tunables *t, const char *needle)
{
	for (size_t i = 0; i < t->n_notes; i++)
		if (strstr(t->notes[i], needle))
			return true;
	return false;
}

static void print_notes(const struct pb_glibc_tunables *t)
{
	for (size_t i = 0; i < t->n_notes; i++)
		print_message("  note: %s\n", t->notes[i]);
}

static void test_glibc_memcpy_exact(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMCPY, "avx512<=2K,rep_movsb<=24M,avx512_nt");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == 2048);
	assert_true(t.non_temporal == 24 * MIB + 1); /* glibc: NT from n >= the threshold */
	assert_string_equal(t.line, "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=2048:"
	                            "glibc.cpu.x86_non_temporal_threshold=25165825");
	assert_true(t.mismatch_octaves == 0);
	if (t.n_notes)
		print_notes(&t);
	assert_int_equal(t.n_notes, 0);

	/* no rep movsb, no non-temporal stores: both "never" */
	p = pol(PB_OP_MEMCPY, "avx512");
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == PB_GLIBC_NT_MAX && t.non_temporal == PB_GLIBC_NT_MAX);
	assert_string_equal(t.line, "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold="
	                            "0xfffffffffffffff:glibc.cpu.x86_non_temporal_threshold="
	                            "0xfffffffffffffff");
	assert_true(t.mismatch_octaves == 0);
}

static void test_glibc_memset(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMSET, "avx512<=2K,rep_stosb");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.rep_stosb == 2048);
	assert_string_equal(t.line, "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=2048");
	assert_true(t.mismatch_octaves == 0);
	assert_int_equal(t.n_notes, 0);

	/* a non-temporal memset above 24M cannot be had; rep stosb first, then
	 * vector stores, cannot either: glibc's order is the other way */
	p = pol(PB_OP_MEMSET, "rep_stosb<=2K,avx512<=24M,avx512_nt");
	pb_glibc_map_policy(&p, &intel, 64, 32 * MIB, &t);
	assert_true(has_note(&t, "avx512_nt (24.0 MiB and up): glibc 2.36 memset has no "
	                         "non-temporal path"));
	assert_true(has_note(&t, "rep_stosb (64 B to 128 B): glibc would use its vector loop "
	                         "there: glibc memset uses vector stores up to 2 x its vector "
	                         "size"));
	assert_true(has_note(&t, "rep_stosb (129 B to 2.0 KiB): glibc would use its vector loop"));
	/* vector stores up to 24M miss 5 octaves (64 B..2 KiB); rep stosb
	 * everywhere would miss the 13.6 of the avx512 band. Above 24M any
	 * choice is as good: the one nearest glibc's 2048 now. */
	assert_true(t.rep_stosb == 24 * MIB);
	assert_true(fabs(t.mismatch_octaves - 5) < 0.01);
}

/* Intel: rep movsb stops where non-temporal stores start, so a vector band
 * between them cannot be had. */
static void test_glibc_vector_above_rep(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMCPY, "avx512<=2K,rep_movsb<=1M,avx2<=24M,avx512_nt");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == 2048);
	assert_true(t.mismatch_octaves > 4.5 && t.mismatch_octaves < 4.6); /* 1M..24M */
	assert_true(has_note(&t, "avx2 (1.0 MiB to 24.0 MiB): glibc would use"));
	assert_true(has_note(&t, "bands of different vector widths"));
}

/* AMD: rep movsb stops at the L2 size (2 MiB here), whatever the tunables. */
static void test_glibc_amd_stop(void **state)
{
	(void)state;
	struct pb_glibc_thresholds amd = intel;
	amd.rep_movsb_stop = 2 * MIB;
	struct pb_policy p = pol(PB_OP_MEMCPY, "avx512<=2K,rep_movsb<=8M,avx512_nt");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &amd, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == 2048);
	assert_true(t.non_temporal == 8 * MIB + 1);
	assert_true(fabs(t.mismatch_octaves - 2) < 0.01); /* 2M..8M: vector, not rep movsb */
	assert_true(has_note(&t, "rep movsb above its stop threshold"));
	/* with the stop at the NT threshold (Intel) the same policy is exact */
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.mismatch_octaves == 0);
}

/* glibc's lower bounds: rep movsb above 8 x VEC_SIZE only, non-temporal
 * above 0x4040 only. */
static void test_glibc_minimums(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMCPY, "rep_movsb<=1M,avx512_nt");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == 513);
	assert_true(t.non_temporal == MIB + 1);
	assert_true(has_note(&t,
	                     "rep_movsb (64 B to 513 B): glibc would use its vector loop there: "
	                     "glibc ignores x86_rep_movsb_threshold at or below 8 x its vector "
	                     "size"));

	/* avx512_nt streams from a line on: glibc's non-temporal threshold
	 * follows the policy's bound */
	p = pol(PB_OP_MEMCPY, "avx512<=32K,avx512_nt");
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(t.non_temporal == 32 * KIB + 1);
	assert_true(t.mismatch_octaves < 1e-9);
	/* below glibc's lowest non-temporal threshold: clamped and said so */
	p = pol(PB_OP_MEMCPY, "avx512<=8K,avx512_nt");
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	print_notes(&t);
	assert_true(t.non_temporal >= 0x4040);
	assert_true(t.mismatch_octaves > 0);

	/* unknown minimum: 513 is safe for every vector size; said so */
	struct pb_glibc_thresholds nomin = intel;
	nomin.rep_movsb_min = 0;
	p = pol(PB_OP_MEMCPY, "avx2<=300,rep_movsb");
	pb_glibc_map_policy(&p, &nomin, 64, 64 * MIB, &t);
	assert_true(t.rep_movsb == 300);
	assert_true(has_note(&t, "(128, 256 or 512)"));
}

/* 'libc' bands mean glibc's bands as they are now. */
/* pb_glibc_path_at: glibc's path at a size with its thresholds now and
 * with a line's; the sizes where they differ are those tune measures. */
static void test_glibc_path_at(void **state)
{
	(void)state;
	/* memset: rep stosb above 2048 now; above 4096 with the line */
	struct pb_glibc_tunables t = {.op = PB_OP_MEMSET, .rep_stosb = 4096};
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, NULL, 2048), PB_GLIBC_PATH_VECTOR);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, NULL, 2049), PB_GLIBC_PATH_REP);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, &t, 2049), PB_GLIBC_PATH_VECTOR);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, &t, 4097), PB_GLIBC_PATH_REP);
	/* threshold 1: rep stosb from above 2 x VEC_SIZE (128 with 64-byte vectors) */
	t.rep_stosb = 1;
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, &t, 128), PB_GLIBC_PATH_VECTOR);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMSET, &t, 129), PB_GLIBC_PATH_REP);
	/* memcpy: rep movsb from 2112 now, non-temporal from 0xb580000 */
	struct pb_glibc_tunables c = {
	    .op = PB_OP_MEMCPY, .rep_movsb = 8192, .non_temporal = 16 * MIB};
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, NULL, 4096), PB_GLIBC_PATH_REP);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, &c, 4096), PB_GLIBC_PATH_VECTOR);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, &c, 8193), PB_GLIBC_PATH_REP);
	/* Intel: rep movsb stops where non-temporal stores start, and moves with it */
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, NULL, 32 * MIB), PB_GLIBC_PATH_REP);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, &c, 32 * MIB), PB_GLIBC_PATH_NT);
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, NULL, 0xb580000), PB_GLIBC_PATH_NT);
	/* values glibc ignores leave the current ones */
	c.rep_movsb = 512;       /* <= 8 x VEC_SIZE */
	c.non_temporal = 0x4040; /* <= 0x4040 */
	for (uint64_t n = 64; n <= 256 * MIB; n *= 2)
		assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMCPY, &c, n),
		                 pb_glibc_path_at(&intel, PB_OP_MEMCPY, NULL, n));
	/* AMD: rep movsb stops at the L2 size whatever the non-temporal threshold */
	struct pb_glibc_thresholds amd = intel;
	amd.rep_movsb_stop = 1 * MIB;
	c.rep_movsb = 8192;
	c.non_temporal = 16 * MIB;
	assert_int_equal(pb_glibc_path_at(&amd, PB_OP_MEMCPY, &c, 2 * MIB), PB_GLIBC_PATH_VECTOR);
	assert_int_equal(pb_glibc_path_at(&amd, PB_OP_MEMCPY, &c, 16 * MIB), PB_GLIBC_PATH_NT);
	/* memmove, or thresholds not known: no path */
	assert_int_equal(pb_glibc_path_at(&intel, PB_OP_MEMMOVE, NULL, 4096), PB_GLIBC_PATH_NONE);
	struct pb_glibc_thresholds unknown = {0};
	assert_int_equal(pb_glibc_path_at(&unknown, PB_OP_MEMSET, NULL, 4096), PB_GLIBC_PATH_NONE);
}

/* The line tune and the summary print, read back. */
static void test_glibc_from_line(void **state)
{
	(void)state;
	struct pb_glibc_tunables t;
	assert_int_equal(pb_glibc_tunables_from_line(
	                     "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=16383:glibc.cpu."
	                     "x86_rep_movsb_threshold=8522:glibc.cpu.x86_non_temporal_threshold="
	                     "0xfffffffffffffff",
	                     PB_OP_MEMCPY, &t),
	                 0);
	assert_true(t.rep_movsb == 8522 && t.non_temporal == PB_GLIBC_NT_MAX && t.rep_stosb == 0);
	assert_int_equal(
	    pb_glibc_tunables_from_line(
	        "glibc.cpu.x86_rep_stosb_threshold=16383:glibc.malloc.check=3", PB_OP_MEMSET, &t),
	    0);
	assert_true(t.rep_stosb == 16383 && t.rep_movsb == 0);
	/* the mapping's own line reads back as what it set */
	struct pb_policy p = pol(PB_OP_MEMCPY, "avx512<=2K,rep_movsb<=24M,avx512_nt");
	struct pb_glibc_tunables m;
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &m);
	assert_int_equal(pb_glibc_tunables_from_line(m.line, PB_OP_MEMCPY, &t), 0);
	assert_true(t.rep_movsb == m.rep_movsb && t.non_temporal == m.non_temporal);
	assert_int_equal(
	    pb_glibc_tunables_from_line("glibc.cpu.x86_rep_stosb_threshold=zz", PB_OP_MEMSET, &t),
	    -1);
	assert_non_null(strstr(pb_error(), "not a number"));
	assert_int_equal(pb_glibc_tunables_from_line(
	                     "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold", PB_OP_MEMSET, &t),
	                 -1);
	assert_non_null(strstr(pb_error(), "not name=value"));
}

static void test_glibc_libc(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMCPY, "libc");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 64, 256 * MIB, &t);
	assert_true(t.rep_movsb == intel.rep_movsb);
	assert_true(t.non_temporal == intel.non_temporal);
	assert_true(t.mismatch_octaves == 0);

	pb_glibc_map_policy(&p, NULL, 64, 256 * MIB, &t);
	assert_true(has_note(&t, "current thresholds are unknown"));
	assert_true(has_note(&t, "rep movsb stop threshold unknown"));

	p = pol(PB_OP_MEMSET, "clzero<=1M,bytes");
	pb_glibc_map_policy(&p, &intel, 64, 256 * MIB, &t);
	assert_true(has_note(&t, "clzero (up to 1.0 MiB): glibc never uses clzero"));
	assert_true(has_note(&t, "bytes (1.0 MiB and up): glibc has no such path"));
}

/* Issue 16, defect 3: avx512_nt runs avx512's code below a line (64 B,
 * same_code_as). Noise makes it 5% faster at 16-48 B beyond both CIs; it
 * must not become a band there (one code path, one candidate). From 64 B
 * on it streams: dearer than avx512 up to 1 MiB, cheaper above, so its
 * band starts above 1 MiB. */
static void test_same_code_one_candidate(void **state)
{
	(void)state;
	struct synth s = {0};
	for (int i = 0; i <= 88; i++) {
		double n = 16 * exp2(i / 4.0);
		uint64_t u = (uint64_t)llround(n);
		double avx = 8 + n / 64, rep = 40 + n / 50;
		if (n > 64 * KIB)
			avx = 8 + n / 20;
		double nt = u < 64 ? 0.95 * avx : n > MIB ? 2000 + n / 60 : 1.5 * avx + 100;
		add(&s, PB_OP_MEMSET, "avx512", u, avx, 0.01);
		add(&s, PB_OP_MEMSET, "avx512_nt", u, nt, 0.01);
		add(&s, PB_OP_MEMSET, "rep_stosb", u, rep, 0.01);
		add(&s, PB_OP_MEMSET, "libc", u, 1.3 * rep, 0.01);
	}
	struct pb_breakeven b = compute(&s, PB_OP_MEMSET, &intel);
	const struct pb_kernel *nt = kern(PB_OP_MEMSET, "avx512_nt");
	for (size_t i = 0; i < b.policy.n_bands; i++) {
		uint64_t lo = i ? b.policy.bands[i - 1].max_bytes + 1 : 0;
		if (b.policy.bands[i].kernel == nt)
			assert_true(lo > MIB);
	}
	assert_ptr_equal(b.policy.bands[b.policy.n_bands - 1].kernel, nt);
	assert_switches_are_policy(&b);
	/* the text says what the octave figure counts */
	char *text = print_of(&b);
	/* one paragraph: wrapped lines joined */
	for (char *p = text; (p = strstr(p, "\n  ")) != NULL;)
		memmove(p, p + 2, strlen(p + 2) + 1), *p = ' ';
	if (!strstr(text, "not counted: 5.8 octaves served by kernels glibc has no path for"))
		fail_msg("no 'not counted' in:\n%s", strstr(text, "with these"));
	free(text);
	pb_breakeven_free(&b);
}

/* A policy band of an NT kernel wholly below a line (64 B) runs the base
 * row's code: glibc's vector loop matches it, no "no non-temporal path"
 * note. A band that reaches a line streams: glibc has no such memset
 * path, said so, and counted apart from the mismatches. */
static void test_glibc_same_code(void **state)
{
	(void)state;
	struct pb_policy p = pol(PB_OP_MEMSET, "avx512_nt<=48,rep_stosb");
	struct pb_glibc_tunables t;
	pb_glibc_map_policy(&p, &intel, 16, 64 * MIB, &t);
	print_notes(&t);
	assert_false(has_note(&t, "non-temporal"));
	assert_true(t.no_path_octaves == 0);

	p = pol(PB_OP_MEMSET, "avx512_nt<=14K,rep_stosb");
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(has_note(&t, "avx512_nt (up to 14.0 KiB): glibc 2.36 memset has no "
	                         "non-temporal path"));
	assert_true(t.no_path_octaves > 7.8);

	p = pol(PB_OP_MEMSET, "avx512<=1M,avx512_nt");
	pb_glibc_map_policy(&p, &intel, 64, 64 * MIB, &t);
	assert_true(has_note(&t, "avx512_nt (1.0 MiB and up): glibc 2.36 memset has no "
	                         "non-temporal path"));
	assert_true(t.mismatch_octaves < 1e-9);
	assert_true(fabs(t.no_path_octaves - 6) < 0.01);
}

/* The whole chain on a synthetic memcpy sweep, printed and as JSON. */
static void sweep(struct synth *s)
{
	for (uint64_t n = 64; n <= 32 * MIB; n *= 2) {
		add(s, PB_OP_MEMCPY, "avx512", n, cost_a((double)n), 0.02);
		add(s, PB_OP_MEMCPY, "rep_movsb", n, cost_b((double)n), 0.02);
		/* streaming at every size measured (whole lines from 64 B) */
		add(s, PB_OP_MEMCPY, "avx512_nt", n, 2000 + n / 200.0, 0.03);
		add(s, PB_OP_MEMCPY, "libc", n, 12 + n / 100.0, 0.02);
	}
}

static void test_print(void **state)
{
	(void)state;
	struct synth s = {0};
	sweep(&s);
	struct pb_mem_result r = result_of(&s);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	pb_print_breakeven(f, &r, PB_OP_MEMCPY, PB_STATE_HOT, &intel);
	pb_print_breakeven(f, &r, PB_OP_MEMSET, PB_STATE_HOT, &intel); /* nothing */
	fclose(f);
	for (char *line = text; *line;) {
		char *e = strchr(line, '\n');
		size_t n = e ? (size_t)(e - line) : strlen(line);
		if (n > 80)
			fail_msg("%zu columns: %.*s", n, (int)n, line);
		line += n + (e != NULL);
	}
	static const char *const expected[] = {
	    "break-even, memcpy, hot (medians of ticks/call and their 95% CIs)\n",
	    "leading kernels: libc rep_movsb avx512 avx512_nt\n",
	    "  avx512 -> libc above 347 B (one faster at every measured size; crossing\n"
	    "    between 256 and 512 B)\n",
	    "  libc -> rep_movsb above 12.9 KiB (one faster at every measured size; crossing\n"
	    "    between 8.0 and 16.0 KiB)\n",
	    "  rep_movsb -> avx512_nt above 706 KiB (one faster at every measured size;\n"
	    "    crossing between 512 KiB and 1.0 MiB)\n",
	    "  'avx512<=347,libc<=13224,rep_movsb<=723365,avx512_nt'\n",
	    ("  GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=2112:\\\n"
	     "glibc.cpu.x86_non_temporal_threshold=723366\n"),
	    "  x86_non_temporal_threshold  723366 (706 KiB)         190316544 (182 MiB)\n",
	};
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
		if (!strstr(text, expected[i]))
			fail_msg("missing '%s' in:\n%s", expected[i], text);
	free(text);

	/* pb_breakeven_switch_text (what tune prints under a policy) is the
	 * printout's switch line, unwrapped */
	struct pb_breakeven be;
	assert_int_equal(pb_breakeven_compute(&r, PB_OP_MEMCPY, PB_STATE_HOT, &intel, &be), 1);
	assert_int_equal(be.n_switches, 3);
	char line[512];
	pb_breakeven_switch_text(&be.switches[1], line, sizeof line);
	assert_string_equal(line, "libc -> rep_movsb above 12.9 KiB (one faster at every measured "
	                          "size; crossing between 8.0 and 16.0 KiB)");
	pb_breakeven_switch_text(&be.switches[1], line, 12); /* truncated, terminated */
	assert_int_equal(strlen(line), 11);
	pb_breakeven_free(&be);
}

static void test_json(void **state)
{
	(void)state;
	struct synth s = {0};
	sweep(&s);
	struct pb_mem_result r = result_of(&s);
	json_t *o = breakeven_json(&r, PB_OP_MEMCPY, PB_STATE_HOT, &intel);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "op")), "memcpy");
	assert_string_equal(json_string_value(json_object_get(o, "cache_state")), "hot");
	assert_string_equal(json_string_value(json_object_get(o, "policy")),
	                    "avx512<=347,libc<=13224,rep_movsb<=723365,avx512_nt");
	json_t *sw = json_object_get(o, "switches");
	assert_int_equal(json_array_size(sw), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sw, 2), "bound_bytes")),
	                 723365);
	/* where each bound came from, as the text says it */
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 0), "bound_from")),
	                    "crossing");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sw, 2), "bound_from")),
	                    "crossing");
	assert_true(json_is_false(json_object_get(json_array_get(sw, 1), "ci_overlap_measured")));
	json_t *xs = json_object_get(o, "crossings");
	assert_int_equal(json_array_size(xs), 6);
	json_t *x = json_array_get(xs, 1);
	assert_string_equal(json_string_value(json_object_get(x, "below")), "avx512");
	assert_string_equal(json_string_value(json_object_get(x, "above")), "rep_movsb");
	assert_true(fabs(json_real_value(json_object_get(x, "size_bytes")) - 3856.4) < 0.1);
	json_t *ov = json_object_get(x, "ci_overlap_bytes");
	assert_int_equal(json_array_size(ov), 2);
	assert_true(json_is_false(json_array_get(json_object_get(x, "ci_overlap_open"), 0)));
	json_t *gl = json_object_get(o, "glibc");
	assert_string_equal(json_string_value(json_object_get(gl, "env")),
	                    "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=2112:"
	                    "glibc.cpu.x86_non_temporal_threshold=723366");
	json_t *cur = json_object_get(gl, "current");
	assert_int_equal(json_integer_value(json_object_get(cur, "x86_rep_movsb_threshold")), 2112);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(gl, "tunables"),
	                                                    "x86_non_temporal_threshold")),
	                 723366);
	assert_true(json_is_array(json_object_get(gl, "not_expressible")));
	char *dump = json_dumps(o, JSON_COMPACT);
	assert_non_null(dump); /* every value encodable */
	free(dump);
	json_decref(o);

	/* without glibc figures: no "glibc" member */
	o = breakeven_json(&r, PB_OP_MEMCPY, PB_STATE_HOT, NULL);
	assert_null(json_object_get(o, "glibc"));
	json_decref(o);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hide_profile),
		cmocka_unit_test(test_linear_crossing),
		cmocka_unit_test(test_linear_crossing_dense),
		cmocka_unit_test(test_noisy_crossing),
		cmocka_unit_test(test_triple_flip),
		cmocka_unit_test(test_even_flips),
		cmocka_unit_test(test_no_crossing),
		cmocka_unit_test(test_indistinguishable),
		cmocka_unit_test(test_peers_canonical),
		cmocka_unit_test(test_peers_neighbour),
		cmocka_unit_test(test_rule_floor),
		cmocka_unit_test(test_peers_band_whole),
		cmocka_unit_test(test_three_kernels),
		cmocka_unit_test(test_libc_leading),
		cmocka_unit_test(test_open_interval),
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_policy_merging),
		cmocka_unit_test(test_policy_too_many_bands),
		cmocka_unit_test(test_switch_is_the_crossing),
		cmocka_unit_test(test_switches_noisy),
		cmocka_unit_test(test_switch_no_measured_overlap),
		cmocka_unit_test(test_switch_at_band_boundary_says_so),
		cmocka_unit_test(test_gain_rule_by_size),
#if defined(__x86_64__)
		cmocka_unit_test(test_same_code_one_candidate),
		cmocka_unit_test(test_glibc_same_code),
		cmocka_unit_test(test_glibc_memcpy_exact),
		cmocka_unit_test(test_glibc_memset),
		cmocka_unit_test(test_glibc_vector_above_rep),
		cmocka_unit_test(test_glibc_amd_stop),
		cmocka_unit_test(test_glibc_minimums),
		cmocka_unit_test(test_glibc_libc),
		cmocka_unit_test(test_glibc_path_at),
		cmocka_unit_test(test_glibc_from_line),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_json),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
