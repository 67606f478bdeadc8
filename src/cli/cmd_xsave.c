/* cmd_xsave.c - `primbench xsave [OPTIONS]`: the cost of saving and
 * restoring the SIMD register state, and the size from which a SIMD
 * memset/memcpy still beats rep stosb/movsb after paying for it
 * (docs/methodology.md "SIMD state saving"). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/error.h"
#include "primbench/machine.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/syscall.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xsave.h"

/* Also declared in cli.h; repeated so this file builds before that line. */
int cmd_xsave(int argc, char **argv);

#define SWEEP_SIZES "256..64K/4"
#define SWEEP_DESC  "256 B..64 KiB"

static void usage(FILE *f)
{
	fputs("usage: primbench xsave [OPTIONS]\n"
	      "\n"
	      "Times save+restore pairs of the SIMD register state "
	      "(fxsave64/fxrstor64,\n"
	      "xsave64, xsaveopt64 and xsavec64 with xrstor64), each with the "
	      "AVX/AVX-512\n"
	      "upper state clean (vzeroupper before each pair) and dirty (ymm/zmm "
	      "written\n"
	      "before each pair), interleaved. One op = one save + one restore. Prints "
	      "the\n"
	      "state components in XCR0 and the save-area sizes first.\n"
	      "\n"
	      "Then a small hot memset/memcpy sweep (" SWEEP_DESC ", 4 sizes per\n"
	      "octave) in the same process gives the break-even line: the smallest "
	      "size\n"
	      "from which the best SIMD kernel plus one save+restore stays faster "
	      "than\n"
	      "rep stosb/rep movsb.\n"
	      "\n"
	      "  --budget SECONDS    time for the save+restore pairs once every "
	      "variant\n"
	      "                      has --min-samples (default 1)\n"
	      "  --mem-budget S      time per size of the memset/memcpy sweep (0.05)\n"
	      "  --no-breakeven      skip the sweep and the break-even line\n"
	      "  --min-samples N     per case (default 11); --max-samples N (default "
	      "201)\n"
	      "  --seed N            seed for the interleaving order\n"
	      "  --replicates R      runs of every pair (and of the sweep), one after\n"
	      "                      another, the budgets and --max-samples shared out;\n"
	      "                      figures and CIs are the runs' (default 5)\n"
	      "  --cpu N             measure on CPU N (default: the quietest by a noise probe)\n"
	      "  -o, --output FILE   write the results as JSON (schema v2); without "
	      "it,\n"
	      "                      nothing is written\n"
	      "  -f, --format F      print the result as text (default), json, csv,\n"
	      "                      markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet         accepted as by every suite (xsave draws no progress\n"
	      "                      line)\n",
	      f);
}

enum { OPT_MEM_BUDGET = 256, OPT_NO_BE, OPT_CPU, OPT_REPLICATES };

/* --replicates' default: the mem and syscall suites' (docs/statistics.md,
 * "What varies between runs") */
#define XSAVE_DEFAULT_REPLICATES 5

static const struct option options[] = {
    CLI_SAMPLING_OPTIONS,
    {"mem-budget", required_argument, 0, OPT_MEM_BUDGET},
    {"no-breakeven", no_argument, 0, OPT_NO_BE},
    {"cpu", required_argument, 0, OPT_CPU},
    {"replicates", required_argument, 0, OPT_REPLICATES},
    CLI_OUTPUT_OPTION,
    CLI_FORMAT_OPTION,
    CLI_QUIET_OPTION,
    CLI_HELP_OPTION,
    {0, 0, 0, 0},
};

static void print_state(const struct pb_xsave_info *in)
{
	char line[1280], list[768];
	if (!in->osxsave) {
		printf("\nxsave     %s\n", in->xsave
		                               ? "present but not enabled by the OS (OSXSAVE 0)"
		                               : "not on this CPU");
		return;
	}
	pb_xsave_format_mask(in->xcr0, list, sizeof list);
	snprintf(line, sizeof line, "0x%llx: %s", (unsigned long long)in->xcr0, list);
	putchar('\n');
	pb_print_labelled(stdout, 10, "xcr0", line);
	snprintf(line, sizeof line, "xsaveopt %s, xsavec %s, xsaves %s (CPL 0 only)",
	         in->xsaveopt ? "yes" : "no", in->xsavec ? "yes" : "no", in->xsaves ? "yes" : "no");
	pb_print_labelled(stdout, 10, "cpu", line);
	pb_xsave_format_mask(in->rfbm, list, sizeof list);
	snprintf(line, sizeof line, "0x%llx (EDX:EAX of every xsave pair): %s%s",
	         (unsigned long long)in->rfbm, list,
	         in->amx_data_excluded
	             ? "; not AMX XTILEDATA: this process has no ARCH_REQ_XCOMP_PERM "
	               "permission for it (the kernel arms XFD and xrstor of it "
	               "would fault), "
	               "so no pair moves the 8 KiB of tiles"
	             : "");
	pb_print_labelled(stdout, 10, "rfbm", line);
	snprintf(line, sizeof line,
	         "%u B for all of XCR0 (cpuid 0xD.0:EBX); for the rfbm: standard %u B, "
	         "compacted %u B (xsavec); with supervisor state %u B (0xD.1:EBX, "
	         "xsaves); "
	         "fxsave 512 B; buffers 64-byte aligned",
	         in->size_xcr0, in->size_standard, in->size_compacted, in->size_xss);
	pb_print_labelled(stdout, 10, "area", line);
}

/* The replicates the cases of r have (0 or 1: one run). */
static size_t replicates_of(const struct pb_xsave_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].n_replicates > n)
			n = r->cases[i].n_replicates;
	return n;
}

static void print_table(const struct pb_xsave_result *r)
{
	size_t reps = replicates_of(r);
	printf("\nsave+restore pairs: one op = one save + one restore, per op\n");
	if (reps > 1)
		printf("%-19s %-5s %5s %8s %8s %7s %19s\n", "pair", "upper", "area", "min",
		       "figure", "ns", "95% CI");
	else
		printf("%-19s %-5s %5s %8s %8s %7s %19s\n", "pair", "upper", "area", "min",
		       "median", "ns", "95% CI of median");
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_xsave_case *c = &r->cases[i];
		if (!c->v.available)
			continue;
		const struct pb_summary *s = &c->ticks_per_op;
		if (!c->n_samples) {
			printf("%-19s %-5s %5u %8s\n", pb_xsave_insn_name(c->v.insn),
			       pb_xsave_upper_name(c->v.upper), c->area_bytes, "-");
			continue;
		}
		char ci[32] = "-";
		if (s->ci_valid)
			snprintf(ci, sizeof ci, "%.1f..%.1f", s->ci_lo, s->ci_hi);
		printf("%-19s %-5s %5u %8.1f %8.1f %7.1f %19s\n", pb_xsave_insn_name(c->v.insn),
		       pb_xsave_upper_name(c->v.upper), c->area_bytes, s->min, s->median,
		       pb_ticks_to_ns(s->median), ci);
	}
	const char *unit = pb_timer_info()->clock != PB_CLOCK_TSC             ? "ns"
	                   : !strcmp(pb_timer_info()->tick_unit, "tsc_ticks") ? "TSC ticks"
	                                                                      : "counter ticks";
	if (reps > 1) {
		char line[256];
		snprintf(
		    line, sizeof line,
		    "min, figure, CI: %s per op; figure: the geometric mean of %zu replicates' "
		    "medians, CI: Student's t on their logs; min: of all samples; ns: the "
		    "figure",
		    unit, reps);
		pb_print_wrapped_at(stdout, 0, 0, line);
	} else {
		printf("min, median, CI: %s per op; ns: the median\n", unit);
	}
	if (r->notes[0]) {
		char copy[sizeof r->notes];
		snprintf(copy, sizeof copy, "%s", r->notes);
		char *save = NULL;
		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			pb_print_wrapped_at(stdout, 0, 2, l);
	}
	size_t outl = 0, n = 0;
	unsigned mig = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		outl += r->cases[i].outliers;
		n += r->cases[i].n_samples;
		mig += r->cases[i].migrations;
	}
	printf("%zu sample%s, %zu outlier%s (kept), %u migration%s (dropped)\n", n, pb_plural(n),
	       outl, pb_plural(outl), mig, pb_plural(mig));
}

/* What the command line asked for. */
struct xsave_opts {
	struct cli_sampling samp;
	double mem_budget;
	bool do_breakeven;
	size_t replicates;   /* --replicates R */
	bool replicates_set; /* given (else lowered to fit --max-samples) */
	int want_cpu;
	const char *out;
	struct cli_format fmt;
};

/* xsave's own options into o (struct xsave_opts). */
static bool xsave_option(int opt, const char *arg, void *ctx)
{
	struct xsave_opts *o = ctx;
	switch (opt) {
	case OPT_CPU:
		o->want_cpu = pb_syscall_parse_cpu(arg, NULL);
		if (o->want_cpu < 0)
			die_usage("%s", pb_error());
		return true;
	default:
		return false;
	}
}

/* Parses argv into o. Returns false after --help; exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct xsave_opts *o)
{
	*o = (struct xsave_opts){.samp = {.budget_s = 1.0, .min_samples = 11, .max_samples = 201},
	                         .mem_budget = 0.05,
	                         .replicates = XSAVE_DEFAULT_REPLICATES,
	                         .do_breakeven = true,
	                         .want_cpu = -1,
	                         .fmt = {.fmt = PB_FORMAT_TEXT}};
	/* -q as every suite takes it; xsave draws no progress line */
	static const struct cli_store stores[] = {
	    CLI_STORE_TIME(OPT_MEM_BUDGET, struct xsave_opts, mem_budget, "--mem-budget"),
	    CLI_STORE_FLAG(OPT_NO_BE, struct xsave_opts, do_breakeven, false),
	    CLI_STORE_NUMBER_SET(OPT_REPLICATES, struct xsave_opts, replicates, replicates_set,
	                         "--replicates", 1, 100),
	    {0},
	};
	const struct cli_common common = {
	    .out_path = &o->out, .fmt = &o->fmt, .sampling = &o->samp, .stores = stores};
	if (!cli_parse_options("xsave", argc, argv, ":ho:f:q", options, xsave_option, o, &common,
	                       usage))
		return false;
	cli_no_operands("xsave", options, argc, argv);
	cli_sampling_check(&o->samp);
	return true;
}

/* xsave_breakeven's entry of op's line (pb_results_add_xsave_breakeven):
 * the pair, rep, the break-even size and kernel (none: null), whether the
 * sweep ended. */
static void record_breakeven(struct pb_results_doc *doc, enum pb_op op,
                             const struct pb_xsave_case *pair, size_t reps, const char *rep_name,
                             const struct pb_xsave_sweep *sw, const uint64_t *size_bytes)
{
	/* the pair's figure: with replicates their geometric mean, and its CI */
	const struct pb_summary *ps = &pair->ticks_per_op;
	int at = sw->at;
	const struct pb_xsave_breakeven_record b = {
	    .op = pb_op_name(op),
	    .pair = pb_xsave_insn_name(pair->v.insn),
	    .pair_median_ticks = ps->median,
	    .pair_ci_valid = ps->ci_valid,
	    .pair_ci_lo = ps->ci_lo,
	    .pair_ci_hi = ps->ci_hi,
	    .replicates = reps > 1 ? ps->replicates : 1,
	    .rep_kernel = rep_name,
	    .found = at >= 0,
	    .size_bytes = at >= 0 ? size_bytes[at] : 0,
	    .simd_kernel = at >= 0 ? sw->simd_kernel[at]->name : NULL,
	    .complete = !sw->interrupted,
	};
	pb_results_add_xsave_breakeven(doc, &b);
}

/* The break-even line of op's sweep (pb_xsave_sweep_run): from which size
 * SIMD + the pair beats rep, never (and how close it came), or no verdict
 * when interrupted. */
static void print_breakeven(enum pb_op op, double pm, const char *rep_name,
                            const struct pb_xsave_sweep *sw, const uint64_t *size_bytes)
{
	char line[512];
	int at = sw->at;
	if (sw->interrupted) {
		snprintf(line, sizeof line, "%s: no verdict: interrupted before the sweep ended",
		         pb_op_name(op));
	} else if (at < 0) {
		/* How close it came: SIMD's largest lead over rep. */
		int best = sw->lead;
		snprintf(line, sizeof line,
		         "%s: never within " SWEEP_DESC "; SIMD's largest lead over %s is %.1f "
		         "ticks (%s, at %llu B; a difference of two cases' figures: no interval), "
		         "under the pair's %.1f",
		         pb_op_name(op), rep_name,
		         best >= 0 ? sw->rep_ticks[best] - sw->simd_ticks[best] : NAN,
		         best >= 0 ? sw->simd_kernel[best]->name : "-",
		         best >= 0 ? (unsigned long long)size_bytes[best] : 0ull, pm);
	} else {
		snprintf(line, sizeof line,
		         "%s: from %llu B up: %s %.1f + pair %.1f < %s %.1f ticks", pb_op_name(op),
		         (unsigned long long)size_bytes[at], sw->simd_kernel[at]->name,
		         sw->simd_ticks[at], pm, rep_name, sw->rep_ticks[at]);
	}
	pb_print_wrapped_at(stdout, 0, 8, line);
	if (at >= 0 && !sw->interrupted)
		printf("        (a sum and a comparison of three cases' figures: no interval of "
		       "its own)\n");
}

/* Runs the hot sweep for op with the usable SIMD kernels and rep
 * (pb_xsave_sweep_run), prints the break-even line, records it in doc.
 * Returns false when interrupted or failed. */
static bool breakeven_op(enum pb_op op, const struct pb_xsave_case *pair,
                         const struct pb_size_list *sizes, const uint64_t *size_bytes,
                         const struct xsave_opts *o, struct pb_session *s, uint64_t seed)
{
	size_t reps = o->replicates ? o->replicates : 1;
	const struct pb_xsave_sweep_params p = {
	    .op = op,
	    .sizes_bytes = size_bytes,
	    .n_sizes = sizes->count,
	    .pair_ticks = pair->ticks_per_op.median,
	    .caches = &s->caches,
	    .budget_s = o->mem_budget,
	    .min_samples = o->samp.min_samples,
	    .max_samples = o->samp.max_samples,
	    .replicates = reps,
	    .seed = seed,
	    .stop = pb_session_stop_flag(s),
	};
	struct pb_xsave_sweep sw;
	if (pb_xsave_sweep_run(&p, &sw) != 0) {
		cli_error("%s", pb_error());
		pb_xsave_sweep_free(&sw);
		return false;
	}
	const char *rep_name = sw.rep ? sw.rep->name : "rep kernel";
	if (!sw.n_simd || !sw.rep) {
		printf("%s: no usable SIMD kernel or no %s: no break-even\n", pb_op_name(op),
		       rep_name);
		pb_xsave_sweep_free(&sw);
		return true;
	}
	print_breakeven(op, p.pair_ticks, rep_name, &sw, size_bytes);
	record_breakeven(s->doc, op, pair, reps, rep_name, &sw, size_bytes);
	pb_results_add_mem(s->doc, &sw.result);
	bool ok = !sw.interrupted;
	pb_xsave_sweep_free(&sw);
	return ok;
}

/* The break-even lines after the pairs: the hot memset and memcpy sweeps
 * against the cheapest dirty pair of r. Returns the exit status so far. */
static int run_breakeven(const struct xsave_opts *o, struct pb_session *s,
                         const struct pb_xsave_result *r)
{
	const struct pb_xsave_case *pair = pb_xsave_cheapest_dirty_pair(r);
	printf("\nbreak-even, hot, " SWEEP_DESC " (4 sizes per octave): smallest size from "
	       "which\nbest SIMD + one save+restore < rep at that and every larger "
	       "size\n");
	if (!pair) {
		printf("no dirty xsave-family pair measured: no break-even line\n");
		return PB_EXIT_OK;
	}
	struct pb_size_list sizes;
	if (pb_parse_size_list(SWEEP_SIZES, 0, 1000, &sizes) != 0)
		die_usage("%s", pb_error());
	uint64_t *sb = calloc(sizes.count, sizeof *sb);
	for (size_t z = 0; z < sizes.count; z++)
		sb[z] = (uint64_t)sizes.values[z];
	const struct pb_summary *ps = &pair->ticks_per_op;
	char line[256];
	if (ps->replicates > 1 && ps->ci_valid)
		snprintf(line, sizeof line,
		         "pair: %s, dirty, %.1f ticks (%.1f ns), 95%% CI %.1f..%.1f: the geometric "
		         "mean of %zu replicates' medians",
		         pb_xsave_insn_name(pair->v.insn), ps->median, pb_ticks_to_ns(ps->median),
		         ps->ci_lo, ps->ci_hi, ps->replicates);
	else
		snprintf(line, sizeof line, "pair: %s, dirty, median %.1f ticks (%.1f ns)",
		         pb_xsave_insn_name(pair->v.insn), ps->median, pb_ticks_to_ns(ps->median));
	pb_print_wrapped_at(stdout, 0, 6, line);
	if (o->replicates > 1)
		printf("SIMD and rep: the geometric means of %zu replicates of the sweep\n",
		       o->replicates);
	fflush(stdout);
	int status = PB_EXIT_OK;
	enum pb_op ops[2] = {PB_OP_MEMSET, PB_OP_MEMCPY};
	for (int i = 0; i < 2 && !pb_session_stopped(s); i++) {
		if (!breakeven_op(ops[i], pair, &sizes, sb, o, s, s->seed + 1 + (uint64_t)i)) {
			if (!pb_session_stopped(s))
				status = PB_EXIT_USAGE;
			break;
		}
		fflush(stdout);
	}
	free(sb);
	pb_size_list_free(&sizes);
	return status;
}

/* The noise line, the result file and -f's output. */
static int finish(struct pb_session *s, struct cli_format *fmt, size_t measured, int status)
{
	pb_session_finish(s, pb_session_stopped(s));
	const struct pb_noise *noise = pb_session_noise(s);
	if (noise->valid) {
		char line[256];
		snprintf(line, sizeof line,
		         "noise: steal %.1f%% of CPU time, other CPUs %.0f%% busy, %ld "
		         "involuntary "
		         "context switches of the measuring thread (pinned to CPU %d)",
		         noise->steal_pct, noise->other_busy_pct, noise->involuntary_switches,
		         s->cpu);
		putchar('\n');
		pb_print_wrapped_at(stdout, 0, 7, line);
		cli_print_noise_high(noise);
	}
	if (measured == 0 && !pb_session_stopped(s) && status == PB_EXIT_OK) {
		cli_error("nothing was measured (see the notes above)");
		return PB_EXIT_USAGE;
	}
	return cli_session_output(s, fmt, status);
}

int cmd_xsave(int argc, char **argv)
{
	struct xsave_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	/* Another architecture has nothing to time: one line saying why, not
	 * a table of variants that did not run. */
	const char *arch_why = NULL;
	if (!pb_xsave_arch_supported(&arch_why)) {
		cli_error("%s", arch_why);
		return PB_EXIT_USAGE;
	}
	/* after the error above: its warning must not come before an error */
	cli_replicates_check(&o.samp, &o.replicates, o.replicates_set, 1);
	cli_parse_done();
	struct pb_session s;
	struct pb_session_params sp;
	cli_session_params(&sp, o.want_cpu, o.samp.seed, true, o.out);
	if (pb_session_begin(&sp, &s) != 0)
		die_usage("%s", pb_error());
	cli_format_begin(&o.fmt);
	pb_print_machine_summary(stdout, &s.caches);
	struct pb_xsave_info info;
	pb_xsave_detect(&info);
	print_state(&info);
	fflush(stdout);

	struct pb_xsave_params xp = {
	    .budget_s = o.samp.budget_s,
	    .min_samples = o.samp.min_samples,
	    .max_samples = o.samp.max_samples,
	    .warmup_samples = 1,
	    .seed = s.seed,
	    .stop = pb_session_stop_flag(&s),
	};
	/* replicates (include/primbench/replicates.h): every pair again, in a
	 * row, fresh save areas, calibration and seed each; the budget and
	 * --max-samples shared out */
	struct pb_xsave_result r;
	if (pb_xsave_run_replicates(&xp, o.replicates, &r) != 0) {
		cli_error("%s", pb_error());
		pb_session_end(&s);
		return PB_EXIT_USAGE;
	}
	print_table(&r);
	fflush(stdout);
	pb_results_add_xsave(s.doc, &r);
	size_t measured = 0;
	for (size_t i = 0; i < r.n_cases; i++)
		measured += r.cases[i].n_samples > 0;
	int status = PB_EXIT_OK;
	if (o.do_breakeven && !pb_session_stopped(&s))
		status = run_breakeven(&o, &s, &r);
	pb_xsave_result_free(&r);
	status = finish(&s, &o.fmt, measured, status);
	if (pb_session_stopped(&s)) {
		fflush(stdout);
		if (o.out && status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", o.out);
		else
			cli_error("interrupted; the %s above show%s what was measured",
			          o.fmt.fmt == PB_FORMAT_TEXT ? "tables" : "result",
			          o.fmt.fmt == PB_FORMAT_TEXT ? "" : "s");
		status = pb_session_exit_status(&s);
	}
	pb_session_end(&s);
	return status;
}
