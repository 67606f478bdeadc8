/* tune.c - the tune suite (include/primbench/tune.h): an op's runs,
 * hot and dram, measured and analysed (the rules: src/analysis/
 * tune_rules.c), the mid sizes over both states, the merged policy;
 * --distribution's candidates timed on a batch of call sizes; and the
 * policy file's text. */
#include "primbench/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/curve.h"
#include "primbench/error.h"
#include "primbench/latency.h"
#include "primbench/mem.h"
#include "primbench/replicates.h"
#include "primbench/sizes.h"
#include "primbench/tune_rules.h"

size_t pb_tune_candidates(enum pb_op op, const struct pb_kernel **out, size_t cap)
{
	size_t nt, n = 0;
	const struct pb_kernel *t = pb_kernels(&nt);
	for (size_t i = 0; i < nt && n < cap; i++)
		if (t[i].op == op && t[i].tune_candidate &&
		    pb_kernel_usable(&t[i], pb_cpu_features(), NULL, 0))
			out[n++] = &t[i];
	return n;
}

/* Sizes lo..hi at n per octave (the size grammar's a..b/n) into *out.
 * Returns 0 or -1 with pb_error(). */
static int make_sizes(uint64_t lo, uint64_t hi, unsigned per_octave, struct pb_size_list *out)
{
	char text[96];
	snprintf(text, sizeof text, "%llu..%llu/%u", (unsigned long long)lo, (unsigned long long)hi,
	         per_octave);
	return pb_parse_size_list(text, 0, 4096, out);
}

/* The sizes of p's two runs: hot 16..split; dram the hot sizes from
 * large_from on (they may live in either state: their policy is the best
 * over both), then above the split the same grid on (16 B times 2^(k /
 * per_octave)), so that no octave above the split has fewer sizes than
 * one below it. *both: whether the two overlap. Returns 0 or -1 with
 * pb_error(). */
static int make_runs(const struct pb_tune_params *p, struct pb_tune_run *hot,
                     struct pb_tune_run *dram, bool *both)
{
	struct pb_size_list h, all;
	if (make_sizes(16, p->split_bytes, p->per_octave, &h) != 0)
		return -1;
	if (make_sizes(16, p->max_bytes, p->per_octave, &all) != 0) {
		pb_size_list_free(&h);
		return -1;
	}
	hot->sizes_bytes = calloc(h.count ? h.count : 1, sizeof *hot->sizes_bytes);
	dram->sizes_bytes = calloc(h.count + all.count + 1, sizeof *dram->sizes_bytes);
	if (hot->sizes_bytes && dram->sizes_bytes) {
		for (size_t i = 0; i < h.count; i++) {
			uint64_t n = (uint64_t)h.values[i];
			hot->sizes_bytes[hot->n_sizes++] = n;
			if (n >= p->rule.large_from_bytes)
				dram->sizes_bytes[dram->n_sizes++] = n;
		}
		for (size_t i = 0; i < all.count; i++)
			if ((uint64_t)all.values[i] > p->split_bytes)
				dram->sizes_bytes[dram->n_sizes++] = (uint64_t)all.values[i];
	}
	pb_size_list_free(&h);
	pb_size_list_free(&all);
	if (!hot->sizes_bytes || !dram->sizes_bytes)
		return pb_fail("tune: out of memory");
	*both = p->rule.large_from_bytes < p->split_bytes && dram->n_sizes > 0 &&
	        dram->sizes_bytes[0] <= p->split_bytes;
	return 0;
}

/* The replicates of run (pb_mem_run_replicates): its sizes `replicates`
 * times in a row, another seed each, the budget and the most samples
 * shared out, joined (as mem runs them), so that the one rule judges the
 * kernels on run-level intervals (two tunes' policies on sample-level
 * ones did not repeat: docs/breakeven.md, "Policies that repeat"); the
 * hooks' start and end around each replicate. Returns 0 or -1 with
 * pb_error(). */
static void replicate_start(void *ctx, const char *label, const struct pb_mem_params *p)
{
	(void)p;
	const struct pb_tune_hooks *h = ctx;
	if (h->start)
		h->start(h->ctx, label);
}

static void replicate_end(void *ctx)
{
	const struct pb_tune_hooks *h = ctx;
	if (h->end)
		h->end(h->ctx);
}

static int measure(const struct pb_tune_params *tp, struct pb_tune_run *run, uint64_t seed)
{
	struct pb_mem_params p =
	    pb_mem_params_make(run->op, tp->caches, tp->budget_s, seed, tp->stop);
	p.kernels = tp->kernels;
	p.n_kernels = tp->n_kernels;
	p.sizes_bytes = run->sizes_bytes;
	p.n_sizes = run->n_sizes;
	p.states = &run->state;
	p.n_states = 1;
	p.progress = tp->hooks.progress;
	p.progress_ctx = tp->hooks.ctx;
	char label[64];
	snprintf(label, sizeof label, "tune: %s %s", pb_op_name(run->op),
	         pb_cache_state_name(run->state));
	const struct pb_mem_replicates rs = {.n = tp->replicates,
	                                     .label = label,
	                                     .start = replicate_start,
	                                     .end = replicate_end,
	                                     .ctx = (void *)&tp->hooks};
	if (pb_mem_run_replicates(&p, &rs, &run->result) != 0)
		return -1;
	run->have_result = true;
	return 0;
}

/* Times op's candidates at run's sizes in run's state and computes its
 * break-even policy; the hot run's policy then prefers auto's inline
 * kernel at small sizes. Returns 0 (run->result.interrupted: stopped, no
 * break-even), or -1 with pb_error(). */
static int tune_run(const struct pb_tune_params *p, struct pb_tune_run *run, uint64_t seed)
{
	if (measure(p, run, seed) != 0)
		return -1;
	if (run->result.interrupted)
		return 0;
	int got = pb_breakeven_compute_rule(&run->result, run->op, run->state, p->glibc, &p->rule,
	                                    &run->be);
	run->have_be = got > 0;
	if (p->hooks.run_done)
		p->hooks.run_done(p->hooks.ctx, run);
	if (got < 0)
		return -1;
	if (got == 0)
		return pb_fail("no %s case of %s could be timed", pb_cache_state_name(run->state),
		               pb_op_name(run->op));
	run->policy = run->be.policy;
	if (run->state == PB_STATE_HOT)
		pb_tune_prefer_inline(&run->policy, &run->result, pb_tune_inline_kernel(run->op),
		                      p->per_octave);
	return 0;
}

/* A failure of a step of the combined run or the merge, "tune: " and
 * pb_error() (as the command line said it before these moved here). */
static int fail_tune(void)
{
	char why[512];
	snprintf(why, sizeof why, "%s", pb_error());
	return pb_fail("tune: %s", why);
}

/* The policy for the sizes [large_from, split] both runs timed: the
 * break-even policy of the two states together (pb_tune_combine), never
 * slower than glibc in either state beyond the one margin
 * (pb_tune_guard_combined: a kernel that is ranks behind libc). Returns 1,
 * 0 when there is nothing to combine (the hot policy then serves those
 * sizes), or -1 with pb_error(). */
static int both_run(const struct pb_tune_params *p, const struct pb_tune_run *hot,
                    const struct pb_tune_run *dram, struct pb_tune_run *out)
{
	struct pb_mem_result both;
	if (pb_tune_combine(&hot->result, &dram->result, p->rule.large_from_bytes, p->split_bytes,
	                    PB_STATE_HOT, &both) != 0)
		return fail_tune();
	*out = (struct pb_tune_run){.op = hot->op, .state = PB_STATE_HOT, .combined = true};
	out->held = pb_tune_guard_combined(&both, &hot->result, &dram->result,
	                                   pb_kernel_find(hot->op, "libc"), pb_equivalence());
	int got = pb_breakeven_compute_rule(&both, hot->op, PB_STATE_HOT, NULL, &p->rule, &out->be);
	pb_mem_result_free(&both);
	if (got < 0)
		return fail_tune();
	if (got == 0)
		return 0;
	out->have_be = true;
	out->policy = out->be.policy;
	if (p->hooks.run_done)
		p->hooks.run_done(p->hooks.ctx, out);
	return 1;
}

static void run_free(struct pb_tune_run *r)
{
	if (r->have_be)
		pb_breakeven_free(&r->be);
	if (r->have_result)
		pb_mem_result_free(&r->result);
	free(r->sizes_bytes);
	*r = (struct pb_tune_run){0};
}

void pb_tune_op_free(struct pb_tune_op_result *r)
{
	run_free(&r->hot);
	run_free(&r->dram);
	run_free(&r->both);
	r->have_both = false;
}

int pb_tune_op_run(const struct pb_tune_params *p, struct pb_tune_op_result *out)
{
	*out = (struct pb_tune_op_result){
	    .hot = {.op = p->op, .state = PB_STATE_HOT},
	    .dram = {.op = p->op, .state = PB_STATE_DRAM},
	};
	bool have_both = false;
	if (make_runs(p, &out->hot, &out->dram, &have_both) != 0 ||
	    tune_run(p, &out->hot, p->seed + (uint64_t)p->op) != 0)
		return -1;
	if (out->hot.result.interrupted) {
		out->interrupted = true;
		return 0;
	}
	if (tune_run(p, &out->dram, p->seed + 3 + (uint64_t)p->op) != 0)
		return -1;
	if (out->dram.result.interrupted) {
		out->interrupted = true;
		return 0;
	}
	int got = have_both ? both_run(p, &out->hot, &out->dram, &out->both) : 0;
	if (got < 0)
		return -1;
	out->have_both = got > 0;
	struct pb_policy low = out->hot.policy;
	if (out->have_both && pb_tune_merge(&out->hot.policy, &out->both.policy,
	                                    p->rule.large_from_bytes - 1, &low) != 0)
		return fail_tune();
	if (pb_tune_merge(&low, &out->dram.policy, p->split_bytes, &out->merged) != 0)
		return fail_tune();
	return 0;
}

void pb_tune_distribution_free(struct pb_tune_distribution *d)
{
	free(d->cands);
	free(d->sum);
	free(d->vs);
	*d = (struct pb_tune_distribution){0};
}

int pb_tune_distribution_run(const struct pb_policy *policy, const struct pb_kernel *const *kernels,
                             size_t n_kernels, const struct pb_distribution *dist, double budget_s,
                             const struct pb_cache_info *caches, uint64_t seed,
                             volatile sig_atomic_t *stop, struct pb_tune_distribution *out)
{
	size_t n = n_kernels + 1;
	*out = (struct pb_tune_distribution){
	    .cands = calloc(n, sizeof *out->cands),
	    .sum = calloc(n, sizeof *out->sum),
	    .vs = calloc(n, sizeof *out->vs),
	    .n = n,
	};
	if (!out->cands || !out->sum || !out->vs)
		return pb_fail("out of memory");
	out->cands[0] = *policy;
	for (size_t i = 0; i < n_kernels; i++) {
		struct pb_policy one = {.op = policy->op, .n_bands = 1};
		one.bands[0] =
		    (struct pb_policy_band){.max_bytes = UINT64_MAX, .kernel = kernels[i]};
		uint64_t top = dist->max_bytes ? dist->max_bytes : 1;
		if (pb_tune_merge(&one, policy, top, &out->cands[i + 1]) != 0)
			return fail_tune();
	}
	struct pb_mem_replay rp = {.dist = dist, .seed = 1, .batch_calls = 4096};
	struct pb_mem_params p = pb_mem_params_make(policy->op, caches, budget_s * 10,
	                                            seed + 6 + (uint64_t)policy->op, stop);
	if (pb_mem_replay_policies(&p, &rp, out->cands, n, out->sum, out->vs) != 0)
		return -1;
	out->batch_calls = rp.batch_calls;
	out->batch_le_128 = rp.batch_le_128;
	out->interrupted = stop && *stop;
	if (!out->interrupted)
		out->pick = pb_tune_distribution_pick(out->sum, out->vs, n);
	return 0;
}

char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		pb_fail("out of memory");
		return NULL;
	}
	if (comment) {
		for (const char *p = comment; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(m, "#%s%.*s\n", n ? " " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f->set[op])
			continue;
		char text[PB_POLICY_TEXT_MAX];
		if (pb_policy_format(&f->policy[op], text, sizeof text) < 0) {
			fclose(m);
			free(buf);
			return NULL;
		}
		fprintf(m, "%s = %s\n", pb_op_name((enum pb_op)op), text);
	}
	if (f->cpu[0])
		fprintf(m, "cpu = %s\n", f->cpu);
	if (fclose(m) != 0) {
		free(buf);
		pb_fail("out of memory");
		return NULL;
	}
	return buf;
}

void pb_tune_llc_from_curve(uint64_t l2_bytes, volatile sig_atomic_t *stop,
                            struct pb_tune_llc_sweeps *out)
{
	*out = (struct pb_tune_llc_sweeps){.max_bytes = PB_TUNE_LLC_CURVE_MAX_BYTES};
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	if (pages > 0 && psz > 0 && (uint64_t)pages * (uint64_t)psz / 8 < out->max_bytes)
		out->max_bytes = (uint64_t)pages * (uint64_t)psz / 8;
	for (int k = 0; k < PB_TUNE_LLC_SWEEPS; k++) {
		struct pb_latency_point pts[PB_LATENCY_SWEEP_POINTS];
		struct pb_latency_params lp = {
		    .min_bytes = l2_bytes / 4 > 4096 ? l2_bytes / 4 : 4096,
		    .max_bytes = out->max_bytes,
		    .max_points = PB_LATENCY_SWEEP_POINTS,
		    .seed = pb_replicate_seed(0, (size_t)k + 1),
		    .stop = stop,
		};
		int n = lp.min_bytes < lp.max_bytes ? pb_latency_sweep(&lp, pts, NULL) : 0;
		if (n <= 0)
			continue;
		out->swept++;
		struct pb_curve_point cp[PB_CURVE_MAX_POINTS];
		for (int i = 0; i < n; i++)
			cp[i] = (struct pb_curve_point){.size_bytes = pts[i].size_bytes,
			                                .ns_per_load = pts[i].ns_per_load};
		double rise; /* not reported: the sweeps' sizes are */
		if (pb_curve_llc_step(cp, n, 2 * l2_bytes, PB_TUNE_LLC_CURVE_MIN_RISE,
		                      &out->found[out->nfound], &rise))
			out->nfound++;
	}
	/* sorted by pb_curve_llc_agree: a copy keeps the sweeps' order */
	uint64_t sorted[PB_TUNE_LLC_SWEEPS];
	for (int i = 0; i < out->nfound; i++)
		sorted[i] = out->found[i];
	out->agree = pb_curve_llc_agree(sorted, out->nfound, PB_TUNE_LLC_SWEEPS, &out->llc_bytes);
}
