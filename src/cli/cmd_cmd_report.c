/* cmd_cmd_report.c - `primbench cmd`'s report: the tables of runs and
 * figures, B against A, the end of --until-verdict, and the "ab" object of
 * the result document (src/cli/cmd_cmd.h, docs/results-schema.md). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd_cmd.h"
#include "primbench/ab_result.h"
#include "primbench/accounting.h"
#include "primbench/cmd_ab.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/io.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"
#include "primbench/profile_text.h"
#include "primbench/record.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/session_result.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/timer.h"

static const char *side_label(const struct pb_cmd_ab_params *p, int side)
{
	return p->nsides == 1 ? "" : (side ? "B" : "A");
}

/* The time unit for a table: s, ms or us, from a typical real time. */
static void time_unit(double typical_ns, const char **name, double *div)
{
	if (typical_ns >= 1e9) {
		*name = "s";
		*div = 1e9;
	} else if (typical_ns >= 1e6) {
		*name = "ms";
		*div = 1e6;
	} else {
		*name = "us";
		*div = 1e3;
	}
}

void cmd_time_unit(const struct pb_cmd_ab_result *r, const char **name, double *div)
{
	double *v = malloc((r->nrecs + 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; v && i < r->nrecs; i++)
		v[k++] = r->recs[i].run.wall_ns;
	struct pb_summary sum;
	double t = (v && k && pb_summarize(v, k, 0.95, &sum) == 0) ? sum.median : 1e9;
	free(v);
	time_unit(t, name, div);
}

/* A count in at most `width` columns: plain while it fits, then M or G
 * (10^6, 10^9) with as many decimals as fit. */
static void fmt_count(char *buf, size_t len, double v, int width)
{
	snprintf(buf, len, "%.0f", v);
	for (int scale = 0; scale < 2 && (int)strlen(buf) > width; scale++)
		for (int dec = 2; dec >= 0; dec--) {
			snprintf(buf, len, "%.*f%c", dec, v / (scale ? 1e9 : 1e6),
			         scale ? 'G' : 'M');
			if ((int)strlen(buf) <= width)
				break;
		}
}

/* The resolution of a time figure's clock, ns (fmt_time). */
static double figure_resolution_ns(int figure)
{
	return figure == PB_CMD_REAL ? 1 : 1000;
}

void cmd_print_runs(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                    const char *tu, double div)
{
	bool any_failed = false;
	for (size_t i = 0; i < r->nrecs; i++)
		any_failed |= r->recs[i].run.exit_code != 0;
	/* 5 + 3 x 10 + 9 + 2 x 8 + 2 x 7 = 74 columns, + 5 for exit = 79. */
	fprintf(fp, "%5s %9s %9s %9s %8s %7s %7s %6s %6s%s\n", "run", "real", "user", "sys",
	        "maxrss", "minflt", "majflt", "vcsw", "ivcsw", any_failed ? " exit" : "");
	fprintf(fp, "%5s %9s %9s %9s %8s\n", "", tu, tu, tu, "KiB");
	/* A long session: the first 20 and the last 10 runs (all are in -o). */
	const size_t head = 20, tail = 10;
	bool cut = r->nrecs > head + tail + 10;
	for (size_t i = 0; i < r->nrecs; i++) {
		if (cut && i == head) {
			fprintf(fp, "  ... %zu run%s not shown; -o FILE keeps them all\n",
			        r->nrecs - head - tail, pb_plural(r->nrecs - head - tail));
			i = r->nrecs - tail;
		}
		const struct pb_cmd_record *rec = &r->recs[i];
		char label[16], t[3][24], c[5][16];
		snprintf(label, sizeof label, "%s%s%zu", rec->warmup ? "w" : "",
		         side_label(p, rec->side), rec->index);
		pb_format_time(t[0], sizeof t[0], rec->run.wall_ns / div, div,
		               figure_resolution_ns(PB_CMD_REAL));
		pb_format_time(t[1], sizeof t[1], rec->run.user_ns / div, div,
		               figure_resolution_ns(PB_CMD_USER));
		pb_format_time(t[2], sizeof t[2], rec->run.sys_ns / div, div,
		               figure_resolution_ns(PB_CMD_SYS));
		fmt_count(c[0], sizeof c[0], (double)rec->run.max_rss_kib, 8);
		fmt_count(c[1], sizeof c[1], (double)rec->run.minflt, 7);
		fmt_count(c[2], sizeof c[2], (double)rec->run.majflt, 7);
		fmt_count(c[3], sizeof c[3], (double)rec->run.nvcsw, 6);
		fmt_count(c[4], sizeof c[4], (double)rec->run.nivcsw, 6);
		fprintf(fp, "%5s %9s %9s %9s %8s %7s %7s %6s %6s", label, t[0], t[1], t[2], c[0],
		        c[1], c[2], c[3], c[4]);
		if (any_failed) {
			if (rec->run.term_signal)
				fprintf(fp, " sig%d", rec->run.term_signal);
			else
				fprintf(fp, " %4d", rec->run.exit_code);
		}
		fputc('\n', fp);
	}
}

/* min/median/mean/sd and the median's 95% CI per figure for one side;
 * the time figures in tu. */
void cmd_print_summary(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                       int side, const char *tu, double div, double *buf)
{
	fprintf(fp, "\n%-11s %8s %8s %8s %8s  %s\n",
	        p->nsides == 1 ? "figure"
	        : side         ? "B figure"
	                       : "A figure",
	        "min", "median", "mean", "sd", "median 95% CI");
	bool counted = false; /* instructions and cycles, when measured */
	for (size_t i = 0; i < r->nrecs; i++)
		counted |= r->recs[i].side == side && r->recs[i].run.counters;
	for (int f = 0; f <= PB_CMD_CYCLES; f++) {
		if (f == PB_CMD_USER_SYS || (pb_cmd_metric_is_counter(f) && !counted))
			continue;
		size_t k = pb_cmd_ab_values(r->recs, r->nrecs, side, f, buf);
		struct pb_summary sum;
		if (k == 0 || pb_summarize(buf, k, 0.95, &sum) != 0)
			continue;
		bool is_time = f <= PB_CMD_SYS;
		double d = is_time ? div : 1;
		char name[24], v[4][24], ci[48];
		snprintf(name, sizeof name, "%s%s%s", pb_cmd_figure_name((enum pb_cmd_figure)f),
		         is_time || f == PB_CMD_MAXRSS ? " " : "",
		         is_time              ? tu
		         : f == PB_CMD_MAXRSS ? "KiB"
		                              : "");
		const double vals[4] = {sum.min, sum.median, sum.mean, sum.stddev};
		for (int i = 0; i < 4; i++) {
			if (isnan(vals[i]))
				snprintf(v[i], sizeof v[i], "n/a");
			else if (is_time)
				/* mean and sd: one decimal more than the clock */
				pb_format_time(v[i], sizeof v[i], vals[i] / d, d,
				               figure_resolution_ns(f) / (i < 2 ? 1 : 10));
			else if (i < 2)
				fmt_count(v[i], sizeof v[i], vals[i], 8);
			else
				snprintf(v[i], sizeof v[i], vals[i] < 1e6 ? "%.1f" : "%.3g",
				         vals[i]);
		}
		if (!sum.ci_valid)
			snprintf(ci, sizeof ci, "n<6");
		else if (is_time)
			snprintf(ci, sizeof ci, "%.4g..%.4g", sum.ci_lo / d, sum.ci_hi / d);
		else
			snprintf(ci, sizeof ci, "%.6g..%.6g", sum.ci_lo, sum.ci_hi);
		fprintf(fp, "%-11s %8s %8s %8s %8s  %s\n", name, v[0], v[1], v[2], v[3], ci);
	}
}

/* Run 1 of each side against the rest (case T1). */
void cmd_print_first_run(FILE *fp, const struct pb_cmd_ab_params *p,
                         const struct pb_cmd_ab_result *r, int side, double *buf)
{
	size_t k = pb_cmd_ab_values(r->recs, r->nrecs, side, PB_CMD_REAL, buf);
	char text[400], line[420];
	if (!pb_format_first_run(text, sizeof text, buf, k))
		return;
	snprintf(line, sizeof line, "%s%s",
	         p->nsides == 1 ? ""
	         : side         ? "side B: "
	                        : "side A: ",
	         text);
	pb_print_wrapped_at(fp, 0, 2, line);
}

/* ministat's block for y against x (FreeBSD ministat(1) layout). */
static void print_ministat(FILE *fp, const struct pb_ttest *t)
{
	if (!t->significant) {
		fprintf(fp, "No difference proven at %.1f%% confidence\n", 100 * t->level);
		return;
	}
	fprintf(fp, "Difference at %.1f%% confidence\n", 100 * t->level);
	fprintf(fp, "\t%g +/- %g\n", t->diff, t->half_width);
	fprintf(fp, "\t%g%% +/- %g%%\n", t->pct, t->pct_half_width);
	fprintf(fp, "\t(Student's t, pooled s = %g)\n", t->pooled_sd);
}

void cmd_verdict_text(const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_stats *ab, char *why,
                      size_t len)
{
	const struct pb_shift *r = p->paired ? &ab->paired : &ab->ratio;
	const char *which = p->paired ? "the paired ratio" : "the ratio";
	enum pb_verdict v = pb_cmd_ab_session_verdict(p, ab);
	bool excludes = r->lo > 1 || r->hi < 1;
	double m = 100 * p->equivalence;
	if (!(p->paired ? ab->paired_valid && r->ci_valid : ab->valid && r->ci_valid))
		snprintf(why, len, "cannot tell: too few %s for an interval",
		         p->paired ? "pairs" : "runs");
	else if (v == PB_VERDICT_DIFFERENT)
		snprintf(why, len, "B is %s (%s's interval lies %s 1, the ratio beyond +-%g%%)",
		         r->lo > 1 ? "slower" : "faster", which, r->lo > 1 ? "above" : "below", m);
	else if (v == PB_VERDICT_EQUIVALENT)
		snprintf(why, len, "equivalent within +-%g%% (%s's interval lies inside it)", m,
		         which);
	else if (excludes && fabs(r->estimate - 1) <= p->equivalence &&
	         (p->paired || ab->u.p < 1 - r->level))
		snprintf(why, len,
		         "cannot tell: B differs, but %s lies inside +-%g%% and its interval "
		         "reaches beyond it",
		         which, m);
	else if (excludes)
		snprintf(
		    why, len,
		    "cannot tell: the interval excludes 1, the Mann-Whitney test does not (p = "
		    "%.3g, not below %.2g)",
		    ab->u.p, 1 - r->level);
	else
		snprintf(why, len,
		         "cannot tell: %s's interval contains 1 and reaches beyond +-%g%%", which,
		         m);
}

void cmd_print_ab(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_stats *ab,
                  const char *tu, double div)
{
	const char *mname = pb_cmd_figure_name((enum pb_cmd_figure)p->metric);
	bool is_time = pb_cmd_metric_is_time(p->metric);
	double d = is_time ? div : 1;
	fprintf(fp, "\nB vs A on %s (%zu and %zu runs, %s)%s:\n", mname, ab->na, ab->nb,
	        p->duet ? "duet pairs" : "ABBA order",
	        p->until_verdict ? "; 95% figures, for reference only" : "");
	if (!ab->valid) {
		pb_print_wrapped_at(
		    fp, 0, 4,
		    ab->nonpositive ? "  no comparison: some runs have 0 for this figure (below "
		                      "the kernel's accounting resolution?): use --metric real or "
		                      "user+sys"
		                    : "  no comparison: too few runs");
		return;
	}
	fprintf(fp, "  median A %.4g %s, B %.4g %s: difference %+.4g %s (%+.2f%%)\n", ab->med_a / d,
	        is_time ? tu : "", ab->med_b / d, is_time ? tu : "", (ab->med_b - ab->med_a) / d,
	        is_time ? tu : "", 100 * (ab->med_b / ab->med_a - 1));
	if (ab->ratio.ci_valid)
		fprintf(fp, "  ratio B/A %.4f, %.2f%% CI [%.4f, %.4f] (Hodges-Lehmann, log %s)\n",
		        ab->ratio.estimate, 100 * ab->ratio.level, ab->ratio.lo, ab->ratio.hi,
		        mname);
	else
		fprintf(fp, "  ratio B/A %.4f (Hodges-Lehmann; too few runs for a %.2f%% CI)\n",
		        ab->ratio.estimate, 100 * ab->ratio.level);
	char pline[400];
	if (ab->paired_valid && ab->paired.ci_valid)
		snprintf(pline, sizeof pline,
		         "paired B/A %.4f, %.2f%% CI [%.4f, %.4f] (%zu %s; Walsh averages of log "
		         "%s)",
		         ab->paired.estimate, 100 * ab->paired.level, ab->paired.lo, ab->paired.hi,
		         ab->npairs, p->duet ? "duet pairs" : "ABBA pairs of adjacent runs", mname);
	else if (ab->paired_valid)
		snprintf(
		    pline, sizeof pline, "  paired B/A %.4f (%zu pair%s: too few for a %.2f%% CI)",
		    ab->paired.estimate, ab->npairs, pb_plural(ab->npairs), 100 * ab->paired.level);
	if (ab->paired_valid)
		pb_print_wrapped_at(fp, 2, 4, pline);
	if (!p->until_verdict &&
	    (p->paired ? ab->paired_valid && ab->paired.ci_valid : ab->ratio.ci_valid)) {
		char why[200], vline[220];
		cmd_verdict_text(p, ab, why, sizeof why);
		snprintf(vline, sizeof vline, "verdict: %s", why);
		pb_print_wrapped_at(fp, 2, 4, vline);
	}
	fprintf(fp, "  Mann-Whitney U = %.1f, p = %.3g (%s)\n", ab->u.u_x, ab->u.p,
	        ab->u.exact ? "exact" : "normal approximation");
	if (ab->t_valid) {
		/* In the table's unit: the t block scales with its data (the
		 * percentages and the verdict do not change). */
		struct pb_ttest t = ab->t;
		t.diff /= d;
		t.half_width /= d;
		t.pooled_sd /= d;
		t.mean_x /= d;
		t.mean_y /= d;
		fprintf(fp, "  ministat's test (Student's t on the means, in %s):\n",
		        is_time ? tu : "counts");
		fflush(fp);
		print_ministat(fp, &t);
	}
}

/* How --until-verdict ended, a paragraph; returns whether by a verdict. */
bool cmd_print_until_verdict(FILE *fp, const struct pb_cmd_ab_params *p,
                             const struct pb_cmd_ab_result *r)
{
	char line[1024];
	const struct pb_seq_plan *plan = &r->plan;
	const struct pb_shift *ratio = p->paired ? &r->look_ab.paired : &r->look_ab.ratio;
	bool by_verdict = strcmp(r->ended_by, "verdict") == 0;
	char how[160];
	if (p->paired)
		snprintf(how, sizeof how,
		         "Hodges-Lehmann on the Walsh averages of the %s' log ratios",
		         p->duet ? "duet pairs" : "adjacent ABBA pairs");
	else
		snprintf(
		    how, sizeof how,
		    "Hodges-Lehmann on the minima of every %d runs of a side once they give an "
		    "interval at this level, before that on every run",
		    PB_SEQ_BLOCK);
	fputc('\n', fp);
	if (by_verdict)
		snprintf(line, sizeof line,
		         "until-verdict: ended by a verdict at look %zu of %zu (%zu runs per "
		         "side): %s. B/A %.4f, %.2f%% CI [%.4f, %.4f] (%s). Each look tests at "
		         "%.2f%% (Bonferroni over %zu look%s), so the chance of a false verdict is "
		         "at most 5%%. Margin: +-%.1f%%.",
		         r->looks, plan->nlooks, r->counted[0],
		         r->verdict == PB_VERDICT_DIFFERENT
		             ? (ratio->lo > 1 ? "B is slower" : "B is faster")
		         : (ratio->lo > 1 || ratio->hi < 1)
		             ? "equivalent: B differs, but by less than the margin"
		             : "equivalent: no difference beyond the margin",
		         ratio->estimate, 100 * plan->level_per_look, ratio->lo, ratio->hi, how,
		         100 * plan->level_per_look, plan->nlooks, pb_plural(plan->nlooks),
		         100 * p->equivalence);
	else
		snprintf(line, sizeof line,
		         "until-verdict: no verdict: stopped by %s after %zu runs per side (%zu of "
		         "%zu looks done; each at %.2f%%, Bonferroni)",
		         strcmp(r->ended_by, "budget") == 0        ? "--budget"
		         : strcmp(r->ended_by, "zero-metric") == 0 ? "runs whose figure is 0"
		                                                   : "--max-runs",
		         r->counted[0], r->looks, plan->nlooks, 100 * plan->level_per_look);
	pb_print_wrapped_at(fp, 0, 2, line);
	return by_verdict;
}

void cmd_print_layout(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_layout_plan *pl,
                      const struct pb_layout_audit *a, size_t runs_per_size,
                      const struct pb_cmd_ab_stats *ab, const char *tu, double div)
{
	char line[1024];
	int aslr = pb_layout_aslr();
	char aslr_text[80] = "randomize_va_space unknown";
	if (aslr >= 0)
		snprintf(aslr_text, sizeof aslr_text, "randomize_va_space %d%s", aslr,
		         aslr ? ": the kernel moves the stack too" : "");
	if (!a) {
		snprintf(line, sizeof line,
		         "layout: each run's environment padded with %s of 0..%d bytes "
		         "(--randomize-env, seed %llu; %s)",
		         PB_LAYOUT_PAD_NAME, PB_LAYOUT_PAD_MAX_BYTES, (unsigned long long)pl->seed,
		         aslr_text);
		fputc('\n', fp);
		pb_print_wrapped_at(fp, 0, 2, line);
		return;
	}
	const char *mname = pb_cmd_figure_name((enum pb_cmd_figure)p->metric);
	bool is_time = pb_cmd_metric_is_time(p->metric);
	snprintf(line, sizeof line,
	         "layout audit: %s alone at %u environment sizes (%s of 0..%ld bytes), %zu runs "
	         "each, interleaved (seed %llu; %s%s); median %s%s%s per size:",
	         p->nsides == 2 ? "A" : "the command", a->k, PB_LAYOUT_PAD_NAME,
	         pb_layout_audit_size(a->k - 1), runs_per_size, (unsigned long long)pl->seed,
	         aslr_text,
	         pl->mode == PB_LAYOUT_RANDOM ? "; the timed runs were padded at random" : "",
	         mname, is_time ? " " : "", is_time ? tu : "");
	fputc('\n', fp);
	pb_print_wrapped_at(fp, 0, 2, line);
	if (!a->valid) {
		fprintf(fp, "  no figures: a size without runs, or a run whose %s is 0\n", mname);
		return;
	}
	size_t used = 0;
	line[0] = 0;
	for (unsigned g = 0; g < a->k && used < sizeof line; g++)
		used +=
		    (size_t)snprintf(line + used, sizeof line - used, "%s%ld B %.5g", g ? ", " : "",
		                     pb_layout_audit_size(g), a->median[g] / (is_time ? div : 1));
	pb_print_wrapped_at(fp, 2, 2, line);
	char beside[160] = "";
	if (ab && ab->valid)
		snprintf(beside, sizeof beside, "; B/A = x%.3f", ab->ratio.estimate);
	snprintf(line, sizeof line,
	         "layout alone moves %s by up to x%.3f (Kruskal-Wallis H = %.2f, p = %.3g; "
	         "between-size share of the variance of log %s %.0f%%, ANOVA p = %.3g)%s",
	         p->nsides == 2 ? "A" : "it", 1 + a->spread, a->kw_h, a->kw_p, mname,
	         100 * a->between_share, a->anova_p, beside);
	pb_print_wrapped_at(fp, 2, 4, line);
}

/* The result document's "ab" object (docs/results-schema.md): B against
 * A as the text reports it (pb_results_set_ab). */
static void set_ab(struct pb_results_doc *doc, const struct pb_cmd_ab_params *p,
                   const struct pb_cmd_ab_result *r, const struct pb_cmd_ab_stats *ab)
{
	struct pb_ab_record a = {
	    .metric = pb_cmd_figure_name((enum pb_cmd_figure)p->metric),
	    .duet = p->duet,
	    .paired = p->paired,
	    .duet_cpus = {p->duet_cpus_text[0], p->duet_cpus_text[1]},
	    .valid = ab->valid,
	    .med_a = ab->med_a,
	    .med_b = ab->med_b,
	    .ratio = ab->ratio,
	    .paired_valid = ab->paired_valid,
	    .npairs = ab->npairs,
	    .paired_ratio = ab->paired,
	    .u = ab->u,
	    .equivalence = p->equivalence,
	    .t_valid = ab->t_valid,
	    .t = ab->t,
	    .until_verdict = p->until_verdict,
	    .plan = r->plan,
	    .look = r->look,
	    .nlooks = r->looks,
	    .ended_by = r->ended_by,
	    .seq_verdict = pb_verdict_name(r->verdict),
	};
	/* the verdict the text prints (--until-verdict: its own) */
	if (ab->valid && !p->until_verdict)
		a.verdict = pb_verdict_name(pb_cmd_ab_session_verdict(p, ab));
	char *order = malloc(r->nrecs + 1);
	for (size_t i = 0; order && i < r->nrecs; i++)
		order[i] = r->recs[i].side ? 'B' : 'A';
	if (order)
		order[r->nrecs] = 0;
	a.order = order;
	pb_results_set_ab(doc, &a);
	free(order);
}

/* ---- --account, --record-distribution ---- */

/* Under a side's accounting: for each op whose policy (--memset etc.)
 * has a kernel that runs another row's code at some sizes (an NT row below
 * a line, 64 B: same_code_as), how many counted calls ran that code, so
 * that an A/B is not read as a test of the named kernel where it never
 * ran. Exact: the rows' bounds (64 B) are bucket bounds (account.h); a
 * bucket that straddles one is counted by its lowest size. Each is a
 * row of ran[] (room for PB_OP_COUNT * PB_POLICY_MAX_BANDS): returns how
 * many. */
static size_t print_other_code(FILE *fp, const struct pb_cmd_ab_params *p, int sd,
                               const struct pb_acct_total *t, struct pb_acct_ran_other_code *ran)
{
	static const int prim_of[PB_OP_COUNT] = {PB_ACCT_MEMSET, PB_ACCT_MEMCPY, PB_ACCT_MEMMOVE};
	size_t nran = 0;
	for (int op = 0; op < PB_OP_COUNT; op++) {
		const char *text = p->env->policy[sd][op];
		if (!text && sd == 1)
			text = p->env->policy[0][op];
		struct pb_policy pol;
		if (!text || pb_policy_parse((enum pb_op)op, text, (pb_features)-1, &pol) != 0)
			continue;
		const struct pb_acct_prim_counts *pc = &t->prim[prim_of[op]];
		/* per (kernel, base) pair: the calls that ran base's code */
		for (size_t bi = 0; bi < pol.n_bands; bi++) {
			const struct pb_kernel *k = pol.bands[bi].kernel, *base = NULL;
			uint64_t calls = 0;
			for (unsigned b = 0; b < PB_ACCT_BUCKETS; b++) {
				uint64_t lo, hi;
				pb_acct_bucket_range(b, &lo, &hi);
				if (!pc->bucket[b].calls || pb_policy_pick(&pol, (size_t)lo) != k)
					continue;
				const struct pb_kernel *code = pb_kernel_code_at(k, (size_t)lo);
				if (code == k)
					continue;
				base = code;
				calls += pc->bucket[b].calls;
			}
			if (!calls)
				continue;
			uint64_t all = pc->calls ? pc->calls : 1;
			fprintf(fp,
			        "%s%s %s: %" PRIu64 " of %" PRIu64 " calls (%.1f%%) ran %s's code, "
			        "not %s's own (its small sizes: 'primbench list')\n",
			        p->nsides == 1 ? ""
			        : sd           ? "B "
			                       : "A ",
			        pb_op_name((enum pb_op)op), k->name, calls, pc->calls,
			        100.0 * (double)calls / (double)all, base->name, k->name);
			ran[nran++] = (struct pb_acct_ran_other_code){
			    .op = pb_op_name((enum pb_op)op),
			    .kernel = k->name,
			    .ran_code_of = base->name,
			    .calls = calls,
			};
		}
	}
	return nran;
}

/* The accounting files of one side (counted runs only) as a table, and
 * as records in x (x->total[sd] NULL when nothing could be read). */
void cmd_print_account(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                       int sd, double tsc_hz, struct cmd_extras *x)
{
	struct pb_acct_total *t = calloc(1, sizeof *t);
	if (!t)
		return;
	double cpu_s = 0;
	for (size_t i = 0; i < r->nrecs; i++)
		if (r->recs[i].side == sd && !r->recs[i].warmup)
			cpu_s += (r->recs[i].run.user_ns + r->recs[i].run.sys_ns) * 1e-9;
	if (pb_acct_read_dir(p->env->acct_dir[sd][0], t) < 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--account: %s", pb_error());
		free(t);
		return;
	}
	fprintf(fp, "\n%s", p->nsides == 1 ? "" : sd ? "B " : "A ");
	fflush(fp);
	pb_acct_print(fp, t, tsc_hz, cpu_s,
	              (p->nsides == 2 && sd == 0) ? PB_ACCT_PRINT_NO_CAVEATS : 0);
	struct pb_acct_tables *tab = &x->acct[sd];
	pb_acct_tables(t, tsc_hz, cpu_s, tab);
	tab->ran_other_code = x->ran[sd];
	tab->n_ran_other_code = print_other_code(fp, p, sd, t, x->ran[sd]);
	free(x->total[sd]);
	x->total[sd] = t;
}

/* --record-distribution DIR: side A's exact sizes files (counted runs
 * only) as distribution files in DIR (include/primbench/record.h).
 * Returns 0, or -1 after one error line. */
int cmd_record(FILE *fp, const struct pb_cmd_ab_params *p, const char *dir)
{
	struct pb_acct_total *t = calloc(1, sizeof *t);
	struct pb_size_record *r = calloc(1, sizeof *r);
	int rc = -1;
	if (!t || !r) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--record-distribution: out of memory");
	} else if (pb_acct_read_dir(p->env->acct_dir[0][0], t) < 0 ||
	           pb_record_read_dir(p->env->acct_dir[0][0], r) < 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--record-distribution: %s", pb_error());
	} else {
		fprintf(fp, "\nrecorded distributions (from %llu sizes files%s):\n",
		        (unsigned long long)r->files, r->skipped ? ", some skipped" : "");
		if (r->skipped)
			pb_print_wrapped_at(fp, 0, 2, r->skip_note);
		int n = pb_record_write(dir, r, t, fp);
		if (n < 0)
			pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--record-distribution: %s",
			              pb_error());
		else if (n == 0)
			fprintf(
			    fp,
			    "no memset, memcpy or memmove call of at most 4096 bytes was seen: no "
			    "file written\n");
		rc = n < 0 ? -1 : 0;
	}
	free(t);
	free(r);
	return rc;
}

/* ---- --profile ---- */

/* One side's profile: what was sampled, how, then the table. */
void cmd_print_profile(FILE *fp, const struct pb_cmd_ab_params *p,
                       const struct pb_cmd_ab_profile *pr, int sd, bool preload)
{
	const struct pb_profile *prof = &pr->prof[sd];
	const char *event = pr->event, *hw_why = pr->hw_why;
	size_t runs = pr->runs;
	int exit_code = pr->exit_code[sd];
	char line[1024], para[64] = "unknown", kptr[64] = "unknown";
	int pv = pb_read_int_file("/proc/sys/kernel/perf_event_paranoid", INT_MIN);
	int kv = pb_read_int_file("/proc/sys/kernel/kptr_restrict", INT_MIN);
	if (pv != INT_MIN)
		snprintf(para, sizeof para, "%d", pv);
	if (kv != INT_MIN)
		snprintf(kptr, sizeof kptr, "%d", kv);
	bool sw = strcmp(event, "cycles") != 0;
	static const char prefix[] = "hardware performance counters not available here: ";
	if (strncmp(hw_why, prefix, sizeof prefix - 1) == 0)
		hw_why += sizeof prefix - 1;
	snprintf(line, sizeof line,
	         "%sprofile: %zu run%s under perf record -e %s (%s%s%s), %" PRIu64
	         " samples%s; perf_event_paranoid %s, kptr_restrict %s, %s",
	         p->nsides == 1 ? ""
	         : sd           ? "B "
	                        : "A ",
	         runs, runs == 1 ? "" : "s", prof->event[0] ? prof->event : event,
	         sw ? "the software clock; no hardware cycles" : "hardware core cycles",
	         sw && hw_why[0] ? ", " : "", sw ? hw_why : "", prof->samples,
	         prof->lost ? " (some lost)" : "", para, kptr,
	         geteuid() == 0 ? "as root" : "not root");
	fputc('\n', fp);
	pb_print_wrapped_at(fp, 0, 2, line);
	if (exit_code != 0) {
		snprintf(line, sizeof line, "the profiled run exited with status %d", exit_code);
		pb_print_wrapped_at(fp, 0, 2, line);
	}
	pb_profile_print(fp, &pr->prof[sd], pr->top, preload, 2);
}

void cmd_profile_record(const struct pb_cmd_ab_profile *pr, int sd, bool preload,
                        struct pb_cmd_profile_record *out)
{
	*out = (struct pb_cmd_profile_record){
	    .prof = &pr->prof[sd],
	    .event_requested = pr->event,
	    .software = strcmp(pr->event, "cycles") != 0,
	    .no_hardware_reason = pr->hw_why,
	    .perf_event_paranoid =
	        pb_read_int_file("/proc/sys/kernel/perf_event_paranoid", INT_MIN),
	    .kptr_restrict = pb_read_int_file("/proc/sys/kernel/kptr_restrict", INT_MIN),
	    .root = geteuid() == 0,
	    .preload = preload,
	};
}

/* ---- the session ---- */

/* "a b 'c d'": the argv as one would type it, for the report. */
static void format_argv(char *const *argv, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; argv && argv[i] && used + 1 < len; i++) {
		const char *a = argv[i];
		bool quote = !a[0] || strpbrk(a, " \t\n'\"\\$`|&;<>(){}*?[]#~") != NULL;
		int w;
		if (!quote)
			w = snprintf(buf + used, len - used, "%s%s", i ? " " : "", a);
		else if (!strchr(a, '\''))
			w = snprintf(buf + used, len - used, "%s'%s'", i ? " " : "", a);
		else
			w = snprintf(buf + used, len - used, "%s\"%s\"", i ? " " : "", a);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* What runs, first: with --show-output its output follows. */
void cmd_print_commands(FILE *fp, const struct pb_cmd_ab_params *p)
{
	char line[1024];
	for (int sd = 0; sd < p->nsides; sd++) {
		const struct pb_cmd_spec *spec = &p->side[sd];
		format_argv(spec->argv, line, sizeof line);
		char head[1200];
		snprintf(head, sizeof head, "%s%s",
		         p->nsides == 1 ? "command: "
		         : sd           ? "B: "
		                        : "A: ",
		         line);
		pb_print_wrapped_at(fp, 0, p->nsides == 1 ? 9 : 3, head);
		for (size_t i = 0; spec->env_set && spec->env_set[i]; i++)
			if (pb_cmd_env_in_key(spec->env_set[i])) {
				/* a long value (a path) is cut at 80 columns */
				char env_line[4200];
				snprintf(env_line, sizeof env_line, "env %s", spec->env_set[i]);
				pb_print_wrapped_at(fp, 3, 7, env_line);
			}
	}
	fflush(fp);
}

/* The note on user and sys below the kernel's tick (pb_format_cputime_note)
 * for the side with the least CPU time a run (each side's median of
 * user+sys), into line; false when there is none. buf holds nrecs values. */
static bool cputime_note(const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                         double *buf, char *line, size_t len)
{
	double least = INFINITY;
	for (int sd = 0; sd < p->nsides; sd++) {
		size_t k = pb_cmd_ab_values(r->recs, r->nrecs, sd, PB_CMD_USER_SYS, buf);
		struct pb_summary sum;
		if (k && pb_summarize(buf, k, 0.95, &sum) == 0 && sum.median < least)
			least = sum.median;
	}
	static struct pb_cputime_accounting acc;
	static bool acc_read;
	if (!acc_read) {
		pb_cputime_read("/proc/config.gz", "/boot", &acc);
		acc_read = true;
	}
	return pb_format_cputime_note(line, len, least, &acc);
}

/* --duet: the first side whose runs used more than one CPU (the median of
 * (user + sys) / real above 1.15: threads or children running at once),
 * as a note into line; false when none did. Then the sides compete for
 * the CPUs the duet gives each alone, and the pair's ratio is not the one
 * they have apart. */
static bool duet_note(const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                      double *buf, char *line, size_t len)
{
	for (int sd = 0; p->duet && sd < 2; sd++) {
		size_t k = 0;
		for (size_t i = 0; i < r->nrecs; i++)
			if (r->recs[i].side == sd && !r->recs[i].warmup &&
			    r->recs[i].run.wall_ns > 0)
				buf[k++] = (r->recs[i].run.user_ns + r->recs[i].run.sys_ns) /
				           r->recs[i].run.wall_ns;
		struct pb_summary sum;
		if (k && pb_summarize(buf, k, 0.95, &sum) == 0 && sum.median > 1.15) {
			snprintf(
			    line, len,
			    "--duet: side %s used %.2f CPUs while it ran (median of (user + sys) / "
			    "real): in a duet each side has its own CPUs only, so A and B slowed "
			    "each other; compare them without --duet",
			    sd ? "B" : "A", sum.median);
			return true;
		}
	}
	return false;
}

/* The runs and their figures: tables, run 1, left-over processes, failures. */
void cmd_print_report(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                      const char *tu, double div)
{
	char line[1024], order_text[600] = "";
	const size_t *n = r->counted, *w = r->warm;
	if (p->duet)
		snprintf(order_text, sizeof order_text,
		         " in duet pairs (A and B at the same time, on CPUs %s and %s, swapped "
		         "every pair)",
		         p->duet_cpus_text[0], p->duet_cpus_text[1]);
	else if (p->nsides == 2)
		snprintf(order_text, sizeof order_text, " in ABBA order");
	bool probed = p->placement && p->placement->how == PB_PLACE_PROBE;
	snprintf(line, sizeof line,
	         "%zu counted run%s%s, %zu warm-up%s; output %s; times from CLOCK_MONOTONIC "
	         "(real) and wait4() (the rest)%s%s%s%s%s%s",
	         n[0] + n[1], n[0] + n[1] == 1 ? "" : "s", order_text, w[0] + w[1],
	         w[0] + w[1] == 1 ? "" : "s", p->side[0].show_output ? "shown" : "to /dev/null",
	         p->shell ? "; through /bin/sh -c" : "",
	         p->wait_children ? "; each run until its last descendant exited "
	                            "(--wait-children)"
	                          : "",
	         !p->cpus_text || p->duet ? ""
	         : probed                 ? "; pinned to CPU "
	                                  : "; pinned to CPUs ",
	         p->cpus_text && !p->duet ? p->cpus_text : "",
	         probed ? " (chosen by the noise probe; --cpu overrides)" : "",
	         p->layout ? "; environment padded at random (--randomize-env)" : "");
	pb_print_wrapped_at(fp, 0, 0, line);
	fputc('\n', fp);
	double *buf = malloc((r->nrecs + 1) * sizeof *buf);
	if (!buf)
		return;
	if (r->nrecs)
		cmd_print_runs(fp, p, r, tu, div);
	for (int sd = 0; sd < p->nsides; sd++)
		if (r->counted[sd])
			cmd_print_summary(fp, p, r, sd, tu, div, buf);
	if (r->nrecs)
		fputc('\n', fp);
	for (int sd = 0; sd < p->nsides; sd++)
		cmd_print_first_run(fp, p, r, sd, buf);
	if (cputime_note(p, r, buf, line, sizeof line))
		pb_print_wrapped_at(fp, 0, 2, line);
	if (duet_note(p, r, buf, line, sizeof line))
		pb_print_wrapped_at(fp, 0, 2, line);
	free(buf);
	if (r->leftover_runs) {
		snprintf(line, sizeof line,
		         "%zu of %zu runs left processes running when the command exited (at "
		         "most %ld): %s",
		         r->leftover_runs, r->nrecs, r->leftover_max,
		         p->wait_children ? "each run lasted until they exited, their CPU time "
		                            "included (--wait-children)"
		                          : "waited for untimed before the next run; their time "
		                            "is in no figure (--wait-children times them)");
		pb_print_wrapped_at(fp, 0, 2, line);
	}
	size_t counted, failed = pb_cmd_ab_failed_runs(r, &counted);
	if (failed && p->ignore_failure) {
		snprintf(line, sizeof line,
		         "%zu of %zu counted runs failed (non-zero exit or a signal: the exit "
		         "column); --ignore-failure kept them in the statistics.",
		         failed, counted);
		pb_print_wrapped_at(fp, 0, 2, line);
	}
}

/* A figure as the result document holds it: NaN for one it writes as
 * null (not finite). */
static double as_written(double v)
{
	return isfinite(v) ? v : NAN;
}

/* memset's and memcpy/memmove's share by the accounting (the figures its
 * tables record) and by the profile, for primitives with calls or
 * samples. */
static void print_two_ways(FILE *fp, const struct pb_cmd_ab_params *p,
                           const struct pb_cmd_ab_profile *pr, int sd,
                           const struct pb_acct_tables *acct)
{
	static const struct {
		const char *label;
		int acct[2]; /* the accounting's primitives summed */
		int fam[2];  /* the profile's families summed */
	} rows[] = {
	    {"memset", {PB_ACCT_MEMSET, PB_ACCT_BZERO}, {PB_PROF_LIBC_MEMSET, PB_PROF_PB_MEMSET}},
	    {"memcpy/memmove",
	     {PB_ACCT_MEMCPY, PB_ACCT_MEMMOVE},
	     {PB_PROF_LIBC_MEMCPY, PB_PROF_PB_MEMCPY}},
	};
	const struct pb_profile *prof = &pr->prof[sd];
	/* the cost of a timer pair: 0 when unknown (no ticks-mode files) */
	double over = isfinite(acct->timer_overhead_ticks) ? acct->timer_overhead_ticks : 0;
	bool first = true;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		double share = 0, min = 0;
		long long calls = 0;
		for (int k = 0; k < 2; k++) {
			int pi = rows[i].acct[k];
			uint64_t c = acct->total->prim[pi].calls;
			/* a count past INT64_MAX is written as a real: not counted */
			if (c == 0 || c > (uint64_t)INT64_MAX)
				continue;
			const struct pb_acct_est_record *e = &acct->prim[pi].est;
			calls += (long long)c;
			share += e->share ? as_written(e->cpu_pct) : NAN;
			min += e->share ? as_written(e->cpu_pct_min) : NAN;
		}
		uint64_t samples = prof->family[rows[i].fam[0]] + prof->family[rows[i].fam[1]];
		if (calls == 0 && samples == 0)
			continue;
		if (first)
			fputc('\n', fp);
		first = false;
		pb_share_two_ways_print(fp,
		                        p->nsides == 1 ? ""
		                        : sd           ? "B "
		                                       : "A ",
		                        rows[i].label, calls ? share : NAN, calls ? min : NAN, over,
		                        samples, prof->samples);
	}
}

/* What the options added: accounting, distributions, profiles. */
int cmd_print_extras(FILE *fp, const struct pb_cmd_ab_params *p, const struct pb_cmd_ab_result *r,
                     const struct pb_cmd_ab_profile *prof, const char *record_dir,
                     struct cmd_extras *x)
{
	if (p->env->account) {
		double hz = 0;
		if (p->env->account == 2 && pb_timer_init() == 0 &&
		    pb_timer_info()->clock == PB_CLOCK_TSC)
			hz = pb_timer_info()->hz;
		for (int sd = 0; sd < p->nsides; sd++)
			cmd_print_account(fp, p, r, sd, hz, x);
	}
	/* A distribution that cannot be written is an environment error. */
	int rc = record_dir ? cmd_record(fp, p, record_dir) : 0;
	for (int sd = 0; sd < p->nsides; sd++)
		if (prof->have[sd]) {
			cmd_print_profile(fp, p, prof, sd, p->env->lib[sd]);
			cmd_profile_record(prof, sd, p->env->lib[sd], &x->prof[sd]);
			x->have_prof[sd] = true;
		}
	/* Both shares of each primitive, with their uncertainties, where
	 * both were measured (docs/profile.md, "The memset share"). */
	for (int sd = 0; sd < p->nsides && p->env->account == 2; sd++)
		if (prof->have[sd] && x->total[sd])
			print_two_ways(fp, p, prof, sd, &x->acct[sd]);
	if (p->nsides == 2 && prof->have[0] && prof->have[1]) {
		fprintf(fp, "\nprofile, B vs A: samples and share of all samples per family\n");
		pb_profile_print_vs(fp, &prof->prof[0], &prof->prof[1],
		                    p->env->lib[0] || p->env->lib[1]);
	}
	return rc;
}

void cmd_doc_add(struct pb_results_doc *doc, const struct pb_cmd_ab_params *p,
                 const struct pb_cmd_ab_result *r, const struct pb_cmd_ab_stats *ab,
                 const struct cmd_extras *x)
{
	double *real = malloc((r->nrecs ? r->nrecs : 1) * sizeof *real);
	for (int sd = 0; real && sd < p->nsides; sd++) {
		size_t k = pb_cmd_ab_values(r->recs, r->nrecs, sd, PB_CMD_REAL, real);
		struct pb_cmd_case c = {
		    .spec = &p->side[sd],
		    .shell = p->shell,
		    .side = sd,
		    .recs = r->recs,
		    .n = r->nrecs,
		};
		c.first_outlier = pb_first_outlier(real, k, &c.first_ratio);
		/* out of memory: the case is left out, as the rest would be */
		(void)pb_results_add_cmd_case(doc, &c, x->total[sd] ? &x->acct[sd] : NULL,
		                              x->have_prof[sd] ? &x->prof[sd] : NULL);
	}
	free(real);
	if (p->nsides == 2)
		set_ab(doc, p, r, ab);
	if (p->placement)
		(void)pb_results_add_placement(doc, p->placement);
	double *vals = malloc((r->nrecs + 1) * sizeof *vals);
	char note[1024];
	if (vals && cputime_note(p, r, vals, note, sizeof note))
		pb_results_append_note(doc, note);
	if (vals && duet_note(p, r, vals, note, sizeof note))
		pb_results_append_note(doc, note);
	free(vals);
	size_t counted, failed = pb_cmd_ab_failed_runs(r, &counted);
	if (failed && p->ignore_failure) {
		char line[200];
		snprintf(line, sizeof line,
		         "%zu of %zu counted runs failed; --ignore-failure kept them", failed,
		         counted);
		pb_results_append_note(doc, line);
	}
}

void cmd_extras_free(struct cmd_extras *x)
{
	for (int sd = 0; sd < 2; sd++) {
		free(x->total[sd]);
		x->total[sd] = NULL;
	}
}
