/* cmd_tune.c - `primbench tune`: measures where this machine's kernels
 * cross (the break-even finder, include/primbench/breakeven.h), writes the
 * auto kernels' policy file (include/primbench/auto.h), and prints the
 * GLIBC_TUNABLES line that gets glibc closest to it.
 *
 * Method (docs/performance.md "auto and tune"): per op, every usable
 * kernel except auto and the demonstration kernels (bytes, strided, rbw,
 * clzero) is timed, interleaved, at small sizes in the hot state (the
 * common case of real programs: LLVM libc's memory benchmarks time L1 for
 * the same reason), at large sizes in the dram state (a large buffer is
 * rarely cached), and at mid sizes (--large-from to --split) in both, where
 * the policy is the one best over both states together (pb_tune_combine).
 * Each recommended policy (the lower envelope of the medians, bands kept
 * only where they win by pb_verdict with the gain as margin) serves its
 * sizes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/glibc_check.h"
#include "cli/tune_check.h"
#include "primbench/auto.h"
#include "primbench/breakeven.h"
#include "primbench/breakeven_text.h"
#include "primbench/cpu.h"
#include "primbench/curve_text.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/latency.h"
#include "primbench/mem.h"
#include "primbench/mem_result.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/tune.h"
#include "primbench/tune_rules.h"
#include "primbench/twosample.h"

static void usage(FILE *f)
{
	fputs("usage: primbench tune [OPTIONS]\n"
	      "\n"
	      "Times every usable kernel at small sizes (hot), mid sizes (hot and dram,\n"
	      "from --large-from to --split: the policy best over both) and large\n"
	      "sizes (dram), finds where they cross, and writes the policy the auto\n"
	      "kernels use (memset/auto, memcpy/auto, memmove/auto; also\n"
	      "PRIMBENCH_MEMSET=auto in libprimswitch.so). Prints each op's policy and\n"
	      "the GLIBC_TUNABLES line that gets glibc closest to it.\n"
	      "\n"
	      "  --ops LIST          memset, memcpy, memmove (default: all three)\n"
	      "  --split SIZE        largest size timed hot; larger ones are timed in\n"
	      "                      dram only (default: 3/4 of the LLC, as glibc's\n"
	      "                      non-temporal threshold)\n"
	      "  --min-gain PCT      a band is kept only where its kernel beats its\n"
	      "                      neighbour's by more than PCT% (pb_verdict, PCT% its\n"
	      "                      margin)\n"
	      "                      (default 10), from --large-from on by more than\n"
	      "                      --min-gain-large PCT% (default 3): there a\n"
	      "                      dispatch's few ticks cost nothing\n"
	      "  --large-from SIZE   where the large sizes' rule and the timing in both\n"
	      "                      states start (default 16K)\n"
	      "  --max-size SIZE     largest size timed (default 64M)\n"
	      "  --per-octave N      sizes per octave (default 2)\n"
	      "  --budget SECONDS    per size and cache state once every kernel has 11\n"
	      "                      samples (default 0.1)\n"
	      "  --replicates R      time the sizes R times in a row, fresh buffers and\n"
	      "                      seed each, the budget shared out (default 5, at\n"
	      "                      most 18); the rule judges the replicates' medians\n"
	      "  -o, --output FILE   the policy file (default: $PRIMBENCH_POLICY_FILE,\n"
	      "                      else $XDG_CONFIG_HOME/primbench/policy, else\n"
	      "                      ~/.config/primbench/policy)\n"
	      "  -n, --dry-run       print the policies, write no file\n"
	      "  -v, --verbose       also print each run's table and crossings\n"
	      "  --distribution D    then time, on a batch of call sizes drawn from D\n"
	      "                      (a name of 'primbench list --distributions' or a\n"
	      "                      FILE.csv; hot, random offsets), the policy found\n"
	      "                      and each single kernel serving D's sizes (the\n"
	      "                      policy above them); keep the fastest when it is\n"
	      "                      faster beyond --equivalence (pb_verdict on the\n"
	      "                      ratio)\n"
	      "  --equivalence P%    the one margin of its verdicts: a difference inside\n"
	      "                      +-P% is none (default 1%; the keep rule's gain is\n"
	      "                      never below it)\n"
	      "  --llc-from-curve    take the LLC's size from the latency curve (where\n"
	      "                      its largest step past L2 starts) even when the\n"
	      "                      reported one is plausible (by default only when\n"
	      "                      it is not)\n"
	      "  --no-check          do not check the policy before writing it (by\n"
	      "                      default auto with it is timed against libc at the\n"
	      "                      sizes halfway between the tuned ones, hot and dram,\n"
	      "                      in 2 fresh processes; where a loss above 512 B\n"
	      "                      repeats in 2 more, libc takes the sizes around it)\n"
	      "  --no-verify         do not measure the GLIBC_TUNABLES line (by default\n"
	      "                      libc is timed without and with it at the sizes it\n"
	      "                      changes, in 2 x R fresh processes A B B A ...)\n"
	      "  -q, --quiet         no progress line on stderr\n"
	      "  --hide-features L   hide CPU features (e.g. " CLI_EG_FEATURE ")\n"
	      "  --cpu N             measure on CPU N (default: the quietest by a noise probe)\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Example: primbench tune --ops memset,memcpy && primbench mem memset\n"
	      "  --kernels auto,libc --sizes 16..64M/2\n",
	      f);
}

static struct cli_progress progress_line;

/* The tune suite's hooks (struct pb_tune_hooks): the progress line of each
 * replicate of a run; with -v each run's table and break-even. */
static void run_start(void *ctx, const char *label)
{
	(void)ctx;
	cli_progress_start(&progress_line, label);
}

static void run_progress(void *ctx, size_t done, size_t total)
{
	(void)ctx;
	cli_progress_update(&progress_line, done, total, "size");
	if (done == total)
		cli_progress_done(&progress_line);
}

static void run_end(void *ctx)
{
	(void)ctx;
	cli_progress_done(&progress_line);
}

/* -v: a measured run's table and break-even; the combined one's
 * break-even (ctx: bool *verbose). */
static void run_done(void *ctx, const struct pb_tune_run *run)
{
	if (!*(const bool *)ctx)
		return;
	if (run->combined) {
		printf("\n%s, hot and dram together (geometric mean of the medians; a kernel "
		       "slower than libc in one state by over %g%% takes that state's ratio: %zu "
		       "case%s):\n",
		       pb_op_name(run->op), 100 * pb_equivalence(), run->held,
		       pb_plural(run->held));
		pb_breakeven_print(stdout, &run->be);
		return;
	}
	printf("\n");
	pb_print_mem_table(stdout, &run->result, run->op, run->state,
	                   run->state == PB_STATE_HOT ? PB_UNIT_TICKS_PER_CALL : PB_UNIT_GB_S);
	if (run->have_be)
		pb_breakeven_print(stdout, &run->be);
}

/* "  LABEL: POLICY", the policy on the next lines when long, broken after
 * its commas (a policy has no blanks, so it is never cut in a word). */
static void print_policy(const char *label, const char *label2, const char *policy)
{
	int col = printf("  %s%s:", label, label2);
	if (col + 1 + (int)strlen(policy) <= PB_TEXT_WIDTH) {
		printf(" %s\n", policy);
		return;
	}
	printf("\n    ");
	col = 4;
	for (const char *p = policy; *p;) {
		size_t n = strcspn(p, ",");
		size_t item = n + (p[n] == ',');
		if (col > 4 && col + (int)item > PB_TEXT_WIDTH) {
			printf("\n    ");
			col = 4;
		}
		col += printf("%.*s", (int)item, p);
		p += item;
	}
	printf("\n");
}

/* Under a run's policy: each of its switches in words
 * (pb_breakeven_switch_text), so that a bound the run cannot place says
 * where its kernels cannot be told apart; then the bands' peers. */
static void print_switches(const struct pb_tune_run *r)
{
	if (!r->have_be)
		return;
	const struct pb_policy *p = &r->policy;
	for (size_t i = 0; i < r->be.n_switches; i++) {
		const struct pb_crossing *x = &r->be.switches[i];
		/* only bounds the policy still has (pb_tune_prefer_inline may
		 * have joined the bands around one) */
		bool kept = false;
		for (size_t b = 0; b + 1 < p->n_bands && !kept; b++)
			kept = p->bands[b].max_bytes == x->bound_bytes &&
			       p->bands[b].kernel == x->below && p->bands[b + 1].kernel == x->above;
		if (!kept)
			continue;
		char line[512];
		pb_breakeven_switch_text(x, line, sizeof line);
		pb_print_wrapped_at(stdout, 4, 6, line);
	}
	/* the break-even's bands, before pb_tune_prefer_inline */
	char peers[512];
	pb_breakeven_peers_text(&r->be, peers, sizeof peers);
	if (peers[0]) {
		char line[768];
		snprintf(line, sizeof line,
		         "cannot be told apart from the band's kernel (not slower by the one "
		         "rule over its sizes; of those within --min-gain by the medians, "
		         "the first in catalogue order, libc last, serves): %s",
		         peers);
		pb_print_wrapped_at(stdout, 4, 6, line);
	}
}

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path)
{
	char dir[PB_AUTO_PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	for (char *p = dir + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(dir, 0777) != 0 && errno != EEXIST)
				return pb_fail("cannot create '%s': %s", dir, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/* --distribution (docs/distributions.md): the policy tune found against each
 * candidate kernel serving every size of the distribution, timed on one
 * replay batch (pb_tune_distribution_run), the figures printed; *policy
 * becomes the candidate chosen (pb_tune_distribution_pick: faster than the
 * found policy beyond the one margin by pb_verdict), else it stays. Returns
 * 0, or an exit status. */
static int tune_on_distribution(struct pb_policy *policy, const struct pb_kernel **ks, size_t nk,
                                const struct pb_distribution *dist, double budget,
                                struct pb_session *s)
{
	struct pb_tune_distribution d;
	if (pb_tune_distribution_run(policy, ks, nk, dist, budget, &s->caches, s->seed,
	                             pb_session_stop_flag(s), &d) != 0) {
		cli_error("%s", pb_error());
		pb_tune_distribution_free(&d);
		return PB_EXIT_USAGE;
	}
	if (d.interrupted) {
		pb_tune_distribution_free(&d);
		return pb_session_exit_status(s);
	}
	char line[600];
	snprintf(line, sizeof line,
	         "on %s (%zu calls, seed 1, random offsets, hot; %.1f%% of them <= 128 B): median "
	         "ns/call, and the policy's over each (> 1: faster than the policy)",
	         dist->name, d.batch_calls, 100.0 * (double)d.batch_le_128 / 4096.0);
	pb_print_wrapped_at(stdout, 2, 4, line);
	for (size_t j = 0; j < d.n; j++) {
		char ns[24];
		pb_format_sig3(ns, sizeof ns, pb_ticks_to_ns(d.sum[j].median));
		printf("    %-24s %8s %8.3f\n", j ? ks[j - 1]->name : "the policy above", ns,
		       d.sum[j].median > 0 ? d.sum[0].median / d.sum[j].median : NAN);
	}
	char text[PB_POLICY_TEXT_MAX];
	if (d.pick != 0) {
		*policy = d.cands[d.pick];
		pb_policy_format(policy, text, sizeof text);
		print_policy("policy for ", dist->name, text);
	} else {
		char kept[400];
		snprintf(
		    kept, sizeof kept,
		    "policy kept: no kernel beats it on %s beyond +-%g%% (the ratio's 95%% CI)",
		    dist->name, 100 * pb_equivalence());
		pb_print_wrapped_at(stdout, 2, 4, kept);
	}
	pb_tune_distribution_free(&d);
	return 0;
}

enum {
	OPT_OPS = 256,
	OPT_GAIN,
	OPT_GAIN_LARGE,
	OPT_LARGE_FROM,
	OPT_SPLIT,
	OPT_MAX,
	OPT_PER_OCTAVE,
	OPT_BUDGET,
	OPT_CPU,
	OPT_DIST,
	OPT_REPLICATES,
	OPT_NO_VERIFY,
	OPT_NO_CHECK,
	OPT_LLC_CURVE,
	OPT_EQUIVALENCE
};

/* --replicates: the default (mem's) and the most; 11 samples each must fit
 * in the 201 a case may take. */
#define TUNE_DEFAULT_REPLICATES 5
#define TUNE_MAX_REPLICATES     18

/* What the command line asked for. */
struct tune_opts {
	bool want[PB_OP_COUNT];
	uint64_t split, max_size; /* split 0: from the LLC (choose_split) */
	struct pb_gain_rule rule;
	unsigned per_octave;
	double budget;
	size_t replicates;
	const char *out_path;
	bool dry_run, verbose;
	bool no_verify;   /* --no-verify: the GLIBC_TUNABLES line is not measured */
	bool no_check;    /* --no-check: the policy is not checked before it is written */
	bool llc_curve;   /* --llc-from-curve: the LLC from the latency curve, whatever
	                     the reported figure */
	bool split_given; /* --split was on the command line */
	int want_cpu;
	const char *dist_arg;
};

/* --ops LIST into want[]; exits 2 on a bad name or an empty list. */
static void parse_ops(const char *arg, bool want[PB_OP_COUNT])
{
	for (int op = 0; op < PB_OP_COUNT; op++)
		want[op] = false;
	char *list = strdup(arg), *save = NULL;
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		enum pb_op op;
		if (pb_op_parse(t, &op) != 0)
			die_usage("tune: bad --ops '%s': %s", arg, pb_error());
		want[op] = true;
	}
	free(list);
	if (!want[0] && !want[1] && !want[2])
		die_usage("tune: bad --ops '%s': no op", arg);
}

/* --split, --max-size, --large-from, --min-gain, --min-gain-large: the
 * options with a size or a percentage. Returns false for another opt. */
static bool parse_bound_option(int c, const char *arg, struct tune_opts *o)
{
	switch (c) {
	case OPT_SPLIT:
	case OPT_MAX: {
		uint64_t v;
		if (pb_parse_size(arg, &v) != 0)
			die_usage("tune: %s", pb_error());
		if (v < 64 || v > (1ull << 30))
			die_usage("tune: bad --%s '%s' (64 to 1G)",
			          c == OPT_SPLIT ? "split" : "max-size", arg);
		*(c == OPT_SPLIT ? &o->split : &o->max_size) = v;
		if (c == OPT_SPLIT)
			o->split_given = true;
		return true;
	}
	case OPT_LARGE_FROM:
		if (pb_parse_size(arg, &o->rule.large_from_bytes) != 0)
			die_usage("tune: bad --large-from: %s", pb_error());
		/* the hot run starts at 16 B: something must lie below */
		if (o->rule.large_from_bytes < 32 || o->rule.large_from_bytes > (1ull << 30))
			die_usage("tune: bad --large-from '%s' (32 to 1G)", arg);
		return true;
	case OPT_GAIN:
	case OPT_GAIN_LARGE: {
		char *end;
		errno = 0;
		double v = strtod(arg, &end);
		if (end != arg && *end == '%')
			end++;
		if (errno || end == arg || *end || !(v >= 0 && v <= 100))
			die_usage("tune: bad --%s '%s' (a percentage, 0 to 100)",
			          c == OPT_GAIN ? "min-gain" : "min-gain-large", arg);
		*(c == OPT_GAIN ? &o->rule.small : &o->rule.large) = v / 100;
		return true;
	}
	default:
		return false;
	}
}

/* tune's own options into o (struct tune_opts). */
static bool tune_option(int c, const char *arg, void *ctx)
{
	struct tune_opts *o = ctx;
	if (parse_bound_option(c, arg, o))
		return true;
	switch (c) {
	case OPT_OPS:
		parse_ops(arg, o->want);
		return true;
	case OPT_EQUIVALENCE:
		/* the one margin: the peers, the crossings, the keep rule's
		 * floor, the inline rule, the distribution's and the glibc
		 * line's verdicts (twosample.h) */
		pb_equivalence_set(cli_parse_equivalence("tune", arg));
		return true;
	case OPT_PER_OCTAVE:
		o->per_octave = (unsigned)cli_parse_count("--per-octave", arg, 1, 8);
		return true;
	case OPT_CPU:
		o->want_cpu = (int)cli_parse_count("--cpu", arg, 0, 4095);
		return true;
	case OPT_REPLICATES:
		o->replicates =
		    (size_t)cli_parse_count("--replicates", arg, 1, TUNE_MAX_REPLICATES);
		return true;
	default:
		return false;
	}
}

/* Parses argv into o. Returns false after --help; exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct tune_opts *o)
{
	static const struct option opts[] = {
	    {"ops", required_argument, 0, OPT_OPS},
	    {"split", required_argument, 0, OPT_SPLIT},
	    {"min-gain", required_argument, 0, OPT_GAIN},
	    {"min-gain-large", required_argument, 0, OPT_GAIN_LARGE},
	    {"large-from", required_argument, 0, OPT_LARGE_FROM},
	    {"max-size", required_argument, 0, OPT_MAX},
	    {"per-octave", required_argument, 0, OPT_PER_OCTAVE},
	    {"budget", required_argument, 0, OPT_BUDGET},
	    CLI_OUTPUT_OPTION,
	    {"dry-run", no_argument, 0, 'n'},
	    {"verbose", no_argument, 0, 'v'},
	    CLI_HIDE_FEATURES_OPTION,
	    {"cpu", required_argument, 0, OPT_CPU},
	    {"replicates", required_argument, 0, OPT_REPLICATES},
	    {"distribution", required_argument, 0, OPT_DIST},
	    {"no-verify", no_argument, 0, OPT_NO_VERIFY},
	    {"no-check", no_argument, 0, OPT_NO_CHECK},
	    {"llc-from-curve", no_argument, 0, OPT_LLC_CURVE},
	    {"equivalence", required_argument, 0, OPT_EQUIVALENCE},
	    CLI_QUIET_OPTION,
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	*o = (struct tune_opts){
	    .want = {true, true, true},
	    .max_size = 64ull << 20,
	    .rule = {.small = 0.10, .large = 0.03, .large_from_bytes = 16384, .libc_last = true},
	    .per_octave = 2,
	    .budget = 0.1,
	    .replicates = TUNE_DEFAULT_REPLICATES,
	    .want_cpu = -1,
	};
	static const struct cli_store stores[] = {
	    CLI_STORE_TIME(OPT_BUDGET, struct tune_opts, budget, "--budget"),
	    CLI_STORE_FLAG('n', struct tune_opts, dry_run, true),
	    CLI_STORE_FLAG('v', struct tune_opts, verbose, true),
	    CLI_STORE_FLAG(OPT_NO_VERIFY, struct tune_opts, no_verify, true),
	    CLI_STORE_FLAG(OPT_NO_CHECK, struct tune_opts, no_check, true),
	    CLI_STORE_FLAG(OPT_LLC_CURVE, struct tune_opts, llc_curve, true),
	    CLI_STORE_ARG(OPT_DIST, struct tune_opts, dist_arg),
	    {0},
	};
	const struct cli_common common = {.out_path = &o->out_path, .stores = stores};
	if (!cli_parse_options("tune", argc, argv, ":o:nvqh", opts, tune_option, o, &common, usage))
		return false;
	if (optind < argc)
		die_usage("tune: unexpected argument '%s' (try 'primbench tune --help')",
		          argv[optind]);
	/* no gain below the one margin: the rule as applied, and as printed */
	o->rule.small = fmax(o->rule.small, pb_equivalence());
	o->rule.large = fmax(o->rule.large, pb_equivalence());
	return true;
}

/* The policy file's path (empty for a dry run without -o); with a file to
 * write, its directory made or checked and the old file read (the ops not
 * tuned now keep its policies). Exits 2 on failure. */
static void prepare_policy_file(const struct tune_opts *o, char path[PB_AUTO_PATH_MAX],
                                struct pb_auto_file *old, bool *have_old)
{
	*have_old = false;
	if (o->out_path)
		snprintf(path, PB_AUTO_PATH_MAX, "%s", o->out_path);
	else if (!o->dry_run && pb_auto_path(path, PB_AUTO_PATH_MAX) != 0)
		die_usage("tune: %s; say -o FILE", pb_error());
	else if (o->dry_run && !o->out_path)
		path[0] = '\0';
	if (!path[0] || o->dry_run)
		return;
	/* The default place's directories are made (~/.config/primbench); a
	 * -o FILE's directory must exist, as for every -o. */
	if ((!o->out_path && make_parent_dirs(path) != 0) || pb_output_reserve(path) != 0)
		die_usage("tune: %s", pb_error());
	/* An existing file must read and parse before anything is measured:
	 * the ops not tuned now keep its policies. Every kernel of the table
	 * is accepted, as auto accepts it (pb_auto_setup): a line naming a
	 * kernel hidden now or of another CPU is kept as it was, not an
	 * error. */
	int got = pb_auto_file_read(path, (pb_features)-1, old);
	if (got < 0)
		die_usage("tune: %s (fix or remove it)", pb_error());
	*have_old = got > 0;
}

/* --split when not given: glibc's reasoning for its non-temporal threshold
 * (dl-cacheinfo.h: 3/4 of the shared cache): below it a buffer may well be
 * cached; above it, it rarely is. Exits 2 when it is not below --max-size. */
static void choose_split(struct tune_opts *o, const struct pb_cache_info *caches)
{
	if (!o->split) {
		uint64_t llc = caches->level[PB_CACHE_LLC].size_bytes;
		o->split = llc ? llc / 4 * 3 : 8ull << 20;
		if (o->split < 64)
			o->split = 64;
		if (o->split >= o->max_size)
			o->split = o->max_size / 2;
	}
	if (o->split >= o->max_size)
		die_usage("tune: --split must be below --max-size");
	if (o->rule.large_from_bytes > o->max_size)
		die_usage("tune: --large-from must not be above --max-size (no size would be "
		          "timed from there on)");
}

/* The LLC's size when the reported one is implausible (its source is the
 * fallback) or --llc-from-curve: where the latency curve's largest step
 * past L2 (starting above 2 x L2, rising 2x or more) starts
 * (pb_curve_llc_step), the first size past the last level: the
 * median of three sweeps when two or more find such a step and they agree
 * within 2x, else the reported figure stays (docs/breakeven.md, "The LLC
 * from the latency curve"). It replaces
 * caches' LLC (the dram state's working set, 4x it) and, without --split,
 * sets the split to 3/4 of it. line gets the line saying which figure
 * tune uses and why. */
static void llc_from_curve(struct tune_opts *o, struct pb_cache_info *caches,
                           volatile sig_atomic_t *stop, char *line, size_t len)
{
	struct pb_cache_level_info *llc = &caches->level[PB_CACHE_LLC];
	char sz[32];
	pb_format_bytes(sz, sizeof sz, llc->size_bytes, PB_BYTES_IEC);
	bool implausible = llc->source == PB_SRC_FALLBACK;
	if (!implausible && !o->llc_curve) {
		snprintf(line, len, "LLC %s (%s)", sz, pb_cache_source_name(llc->source));
		return;
	}
	struct pb_tune_llc_sweeps sw;
	pb_tune_llc_from_curve(caches->level[PB_CACHE_L2].size_bytes, stop, &sw);
	char why[300] = "", seen[200] = "";
	if (implausible)
		snprintf(why, sizeof why, " (%s)", llc->note[0] ? llc->note : "none plausible");
	for (int k = 0; k < sw.nfound; k++) {
		char f[32];
		pb_format_bytes(f, sizeof f, sw.found[k], PB_BYTES_IEC);
		size_t used = strlen(seen);
		snprintf(seen + used, sizeof seen - used, "%s%s", k ? ", " : "", f);
	}
	char m[32];
	pb_format_bytes(m, sizeof m, sw.max_bytes, PB_BYTES_IEC);
	if (sw.agree) {
		char f[32];
		pb_format_bytes(f, sizeof f, sw.llc_bytes, PB_BYTES_IEC);
		snprintf(
		    line, len,
		    "LLC %s, where the latency curve's largest step past L2 starts (the median "
		    "of %d sweeps to %s: %s); the reported figure: %s, %s%s",
		    f, sw.swept, m, seen, sz, pb_cache_source_name(llc->source), why);
		llc->size_bytes = sw.llc_bytes;
		if (!o->split_given) {
			o->split = sw.llc_bytes / 4 * 3;
			if (o->split >= o->max_size)
				o->split = o->max_size / 2;
		}
	} else {
		snprintf(line, len,
		         "LLC %s (%s)%s, kept: %d sweeps of the latency curve to %s %s%s%s", sz,
		         pb_cache_source_name(llc->source), why, sw.swept, m,
		         !sw.swept    ? "could not be made"
		         : !sw.nfound ? "show no step past L2 of 2x or more"
		                      : "do not agree on its step past L2 (",
		         sw.nfound ? seen : "", sw.nfound ? ")" : "");
	}
}

/* The first lines: the CPU, the ranges, the budget and the rule. */
static void print_plan(const struct tune_opts *o, const struct pb_cpu_ident *id)
{
	char ssplit[32], smax[32], slarge[32];
	pb_format_bytes(ssplit, sizeof ssplit, o->split, PB_BYTES_EXACT);
	pb_format_bytes(smax, sizeof smax, o->max_size, PB_BYTES_EXACT);
	pb_format_bytes(slarge, sizeof slarge, o->rule.large_from_bytes, PB_BYTES_EXACT);
	char from[160];
	if (o->rule.large_from_bytes < o->split)
		snprintf(from, sizeof from, "hot 16..%s, hot and dram together %s..%s", slarge,
		         slarge, ssplit);
	else
		snprintf(from, sizeof from, "hot 16..%s", ssplit);
	printf("tune: %s\n  policy from %s,\n  dram above %s to %s; %u size%s per octave; "
	       "budget %g s per size\n  in %zu replicate%s; "
	       "bands kept where they win by over %g%% (from %s on: %g%%)\n",
	       id->brand[0] ? id->brand : id->vendor, from, ssplit, smax, o->per_octave,
	       o->per_octave == 1 ? "" : "s", o->budget, o->replicates,
	       o->replicates == 1 ? "" : "s", o->rule.small * 100, slarge, o->rule.large * 100);
}

/* A tuning in progress: the options, the session, the candidates, and what
 * the ops found (the file's policies, glibc's closest settings). */
struct tune_ctx {
	const struct tune_opts *o;
	struct pb_session *s;
	struct pb_glibc_thresholds glibc;
	const struct pb_kernel **ks;
	size_t nk, nk_cap;
	struct pb_distribution dist;
	struct pb_auto_file file;
	char settings[8][96];
	size_t nsettings;
	/* the line's checks: an op and cache state each (plan_checks) */
	struct cli_glibc_check checks[2 * PB_OP_COUNT];
	size_t nchecks;
	char line[800];                    /* "GLIBC_TUNABLES=..." of every setting */
	char checked[PB_OP_COUNT][600];    /* each op's check, for the file's comment */
	uint64_t suspect[PB_OP_COUNT][64]; /* sizes tune's runs saw lose (guard_tuned) */
	bool check_changed;                /* the check handed sizes to libc */
	size_t nsuspect[PB_OP_COUNT];
};

/* Prints op's policies: hot, both states together (when timed), dram and
 * the merged one. */
static void print_op_policies(const struct tune_ctx *t, enum pb_op op,
                              const struct pb_tune_op_result *r)
{
	const struct pb_tune_run *hot = &r->hot, *dram = &r->dram;
	const struct pb_tune_run *both_run = r->have_both ? &r->both : NULL;
	const struct tune_opts *o = t->o;
	char a[PB_POLICY_TEXT_MAX], b[PB_POLICY_TEXT_MAX], m[PB_POLICY_TEXT_MAX];
	pb_policy_format(&hot->policy, a, sizeof a);
	pb_policy_format(&dram->policy, b, sizeof b);
	pb_policy_format(&r->merged, m, sizeof m);
	char ssplit[32], smax[32];
	pb_format_bytes(ssplit, sizeof ssplit, o->split, PB_BYTES_EXACT);
	pb_format_bytes(smax, sizeof smax, o->max_size, PB_BYTES_EXACT);
	printf("\n%s (%zu kernel%s)\n", pb_op_name(op), t->nk, pb_plural(t->nk));
	print_policy("hot, 16..", ssplit, a);
	print_switches(hot);
	char label[96];
	if (both_run) {
		char sfrom[32], both[PB_POLICY_TEXT_MAX];
		pb_format_bytes(sfrom, sizeof sfrom, o->rule.large_from_bytes, PB_BYTES_EXACT);
		pb_policy_format(&both_run->policy, both, sizeof both);
		snprintf(label, sizeof label, "hot and dram together, %s..%s", sfrom, ssplit);
		print_policy(label, "", both);
		print_switches(both_run);
	}
	snprintf(label, sizeof label, "dram (serves above %s to %s)", ssplit, smax);
	print_policy(label, "", b);
	print_switches(dram);
	print_policy("policy", "", m);
}

/* The settings of tun->line ("name=value" each) appended to t->settings;
 * words gets them joined by ", ". */
static void add_settings(struct tune_ctx *t, const struct pb_glibc_tunables *tun, char *words,
                         size_t len)
{
	const char *eq = strchr(tun->line, '=');
	words[0] = '\0';
	for (const char *q = eq ? eq + 1 : ""; *q;) {
		size_t n = strcspn(q, ":");
		if (t->nsettings < sizeof t->settings / sizeof t->settings[0])
			snprintf(t->settings[t->nsettings++], sizeof t->settings[0], "%.*s", (int)n,
			         q);
		size_t used = strlen(words);
		snprintf(words + used, len - used, "%s%.*s", used ? ", " : "", (int)n, q);
		q += n + (q[n] == ':');
	}
}

/* After the check handed sizes to libc: glibc's closest settings to the
 * policies as they are now (the line printed next is for them), with a
 * line saying so. */
static void glibc_after_check(struct tune_ctx *t)
{
	if (!t->check_changed || !t->glibc.known)
		return;
	t->nsettings = 0;
	char all[600] = "";
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!t->o->want[op] || op == PB_OP_MEMMOVE)
			continue;
		struct pb_glibc_tunables tun;
		pb_glibc_map_policy(&t->file.policy[op], &t->glibc, 16, t->o->max_size, &tun);
		char words[512];
		add_settings(t, &tun, words, sizeof words);
		if (words[0]) {
			size_t used = strlen(all);
			snprintf(all + used, sizeof all - used, "%s%s", used ? ", " : "", words);
		}
	}
	char line[800];
	snprintf(line, sizeof line,
	         "\nglibc's closest to the policies after the check: %s (the line below; the "
	         "ones printed above each op were for the policies before it)",
	         all[0] ? all : "(none)");
	pb_print_wrapped_at(stdout, 0, 2, line);
}

/* glibc's closest settings to policy: printed, and kept for the
 * GLIBC_TUNABLES line at the end. */
static void note_glibc(struct tune_ctx *t, const struct pb_policy *policy,
                       const struct pb_glibc_thresholds *g, struct pb_glibc_tunables *out)
{
	pb_glibc_map_policy(policy, g, 16, t->o->max_size, out);
	const struct pb_glibc_tunables *tun = out;
	char words[512];
	add_settings(t, tun, words, sizeof words);
	char line[800], nopath[128] = "";
	if (tun->no_path_octaves > 0.05)
		snprintf(nopath, sizeof nopath,
		         "; %.1f more are served by kernels glibc has no path for",
		         tun->no_path_octaves);
	snprintf(line, sizeof line,
	         "glibc's closest: %s (its bands still differ from the policy "
	         "over %.1f of the %.1f octaves timed%s)",
	         words[0] ? words : "(none)", tun->mismatch_octaves,
	         __builtin_log2((double)t->o->max_size / 16.0), nopath);
	pb_print_wrapped_at(stdout, 2, 4, line);
}

/* The median ticks a call of kernel k at n in run result ctx, or NAN (a
 * cli_glibc_median_fn). */
static double run_median(const void *ctx, const struct pb_kernel *k, uint64_t n)
{
	const struct pb_mem_case *c = pb_tune_case_at(ctx, k, n);
	return c && c->ticks_per_call.n > 0 ? c->ticks_per_call.median : NAN;
}

/* The checks of op's line (src/cli/glibc_check.h), one a run
 * (cli_glibc_check_plan): hot up to the split, dram all of its own sizes
 * (above the split and the mid ones: their policy is the best over both
 * states), the predictions from that run. */
static void plan_checks(struct tune_ctx *t, enum pb_op op, const struct pb_glibc_tunables *tun,
                        const struct pb_tune_op_result *res, const struct pb_policy *policy)
{
	const struct tune_opts *o = t->o;
	const struct pb_tune_run *runs[2] = {&res->hot, &res->dram};
	for (int r = 0; r < 2; r++) {
		const struct pb_tune_run *run = runs[r];
		if (!run->have_result || t->nchecks == sizeof t->checks / sizeof t->checks[0])
			continue;
		uint64_t sizes[256];
		size_t ns = 0;
		for (size_t i = 0; i < run->n_sizes && ns < 256; i++)
			if (r == 1 || run->sizes_bytes[i] <= o->split)
				sizes[ns++] = run->sizes_bytes[i];
		struct cli_glibc_check *c = &t->checks[t->nchecks];
		*c = (struct cli_glibc_check){
		    .op = op,
		    .state = run->state,
		    .replicates = o->replicates,
		    /* mem --vs-env's: its --budget (0.5 s) x 2 at tune's default */
		    .budget_s = o->budget * 10 < 1.0 ? o->budget * 10 : 1.0,
		    .cpu = o->want_cpu,
		};
		if (cli_glibc_check_plan(c, &t->glibc, tun, sizes, ns, policy, run_median,
		                         &run->result))
			t->nchecks++;
	}
}

/* Hands the sizes around s to libc in policy (pb_tune_hand_to_libc), with a
 * line saying so. Returns whether the policy changed. */
static bool hand_to_libc(struct pb_policy *policy, uint64_t s, unsigned per_octave, const char *why)
{
	struct pb_tune_handover h;
	int got = pb_tune_hand_to_libc(policy, s, per_octave, &h);
	if (got == 0)
		return false;
	char a[32], b[32], line[400];
	pb_format_bytes(a, sizeof a, h.lo_bytes, PB_BYTES_EXACT);
	pb_format_bytes(b, sizeof b, h.hi_bytes, PB_BYTES_EXACT);
	if (got < 0) {
		snprintf(line, sizeof line, "%s; not handed to libc: %s", why, pb_error());
		pb_print_wrapped_at(stdout, 4, 6, line);
		return false;
	}
	snprintf(line, sizeof line, "%s: %s..%s handed from %s to libc", why, a, b, h.from->name);
	pb_print_wrapped_at(stdout, 4, 6, line);
	return h.changed;
}

/* The no-loss rule at the sizes tune timed above PB_AUTO_SMALL_MAX
 * (pb_tune_libc_losses): the sizes of the hot run (up to the split) or of
 * the dram run where the merged policy's kernel is slower than libc by the
 * one rule on the run's replicates, beyond the dispatch, into
 * t->suspect[op] with a line each. One process's figure is a suspicion:
 * the check (check_op) measures those sizes again in fresh processes and
 * libc takes them where the loss repeats; with --no-check libc takes them
 * now. */
static void guard_tuned(struct tune_ctx *t, struct pb_policy *policy,
                        const struct pb_tune_op_result *res)
{
	const struct tune_opts *o = t->o;
	const struct pb_tune_run *runs[2] = {&res->hot, &res->dram};
	bool said = false;
	for (int r = 0; r < 2; r++) {
		const struct pb_tune_run *run = runs[r];
		if (!run->have_result)
			continue;
		struct pb_tune_loss loss[256];
		size_t nl =
		    pb_tune_libc_losses(policy, &run->result, run->sizes_bytes, run->n_sizes,
		                        r == 0 ? o->split : UINT64_MAX, loss, 256);
		for (size_t i = 0; i < nl; i++) {
			if (!said)
				printf(
				    "  slower than libc where it was timed (the one rule, beyond "
				    "the dispatch)%s:\n",
				    o->no_check ? "" : "; measured again by the check");
			said = true;
			uint64_t n = loss[i].size_bytes;
			char why[160], sz[32];
			pb_format_bytes(sz, sizeof sz, n, PB_BYTES_EXACT);
			snprintf(why, sizeof why, "%s at %s: %.3g against libc's %.3g ticks",
			         pb_cache_state_name(run->state), sz,
			         loss[i].kernel_case->ticks_per_call.median,
			         loss[i].libc_case->ticks_per_call.median);
			if (o->no_check)
				hand_to_libc(policy, n, o->per_octave, why);
			else {
				pb_print_wrapped_at(stdout, 4, 6, why);
				size_t *nsus = &t->nsuspect[policy->op];
				if (*nsus < sizeof t->suspect[0] / sizeof t->suspect[0][0])
					t->suspect[policy->op][(*nsus)++] = n;
			}
		}
	}
}

/* Tunes op: its hot and dram runs, the policy of both together and the
 * merged policy (pb_tune_op_run), printed; the merged policy, never slower
 * than libc where timed, into t->file, then --distribution and glibc's
 * line. Returns the exit status. */
static int tune_op(struct tune_ctx *t, enum pb_op op)
{
	const struct tune_opts *o = t->o;
	t->nk = pb_tune_candidates(op, t->ks, t->nk_cap);
	const struct pb_glibc_thresholds *g =
	    t->glibc.known && op != PB_OP_MEMMOVE ? &t->glibc : NULL;
	bool verbose = o->verbose;
	const struct pb_tune_params p = {
	    .op = op,
	    .kernels = t->ks,
	    .n_kernels = t->nk,
	    .split_bytes = o->split,
	    .max_bytes = o->max_size,
	    .per_octave = o->per_octave,
	    .rule = o->rule,
	    .budget_s = o->budget,
	    .replicates = o->replicates,
	    .caches = &t->s->caches,
	    .glibc = g,
	    .seed = t->s->seed,
	    .stop = pb_session_stop_flag(t->s),
	    .hooks = {.start = run_start,
	              .progress = run_progress,
	              .end = run_end,
	              .run_done = run_done,
	              .ctx = &verbose},
	};
	struct pb_tune_op_result r;
	int status = PB_EXIT_OK;
	if (pb_tune_op_run(&p, &r) != 0) {
		cli_error("%s", pb_error());
		status = PB_EXIT_USAGE;
	} else if (r.interrupted) {
		status = pb_session_exit_status(t->s);
	}
	if (status == PB_EXIT_OK) {
		struct pb_policy merged = r.merged;
		print_op_policies(t, op, &r);
		guard_tuned(t, &merged, &r);
		if (!pb_policy_equal(&r.merged, &merged)) {
			char text[PB_POLICY_TEXT_MAX];
			pb_policy_format(&merged, text, sizeof text);
			print_policy("policy, never slower than libc where timed", "", text);
		}
		t->file.policy[op] = merged;
		t->file.set[op] = true;
		if (o->dist_arg) {
			status =
			    tune_on_distribution(&merged, t->ks, t->nk, &t->dist, o->budget, t->s);
			t->file.policy[op] = merged;
		}
		if (g) {
			struct pb_glibc_tunables tun;
			note_glibc(t, &merged, g, &tun);
			plan_checks(t, op, &tun, &r, &merged);
		}
	}
	pb_tune_op_free(&r);
	return status;
}

/* The comment at the head of the policy file: when, where, how. */
static void policy_comment(const struct tune_ctx *t, const struct pb_cpu_ident *id, char *comment,
                           size_t len)
{
	const struct tune_opts *o = t->o;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
	char ranges[256];
	if (o->rule.large_from_bytes < o->split)
		snprintf(ranges, sizeof ranges,
		         "each op: below %llu bytes the policy of its hot run, up to %llu\n"
		         "bytes the one best over hot and dram together, above it its dram\n"
		         "run's",
		         (unsigned long long)o->rule.large_from_bytes,
		         (unsigned long long)o->split);
	else
		snprintf(ranges, sizeof ranges,
		         "each op: the policy of its hot run up to %llu bytes, of its dram\n"
		         "run above",
		         (unsigned long long)o->split);
	snprintf(comment, len,
	         "primbench auto policy (include/primbench/auto.h), written by primbench tune\n"
	         "%s on %s, primbench %s\n"
	         "%s; bands kept where they win by over %g%%\n"
	         "(from %llu bytes on: %g%%), by pb_verdict with that margin",
	         when, id->brand[0] ? id->brand : id->vendor, PB_VERSION_STRING, ranges,
	         o->rule.small * 100, (unsigned long long)o->rule.large_from_bytes,
	         o->rule.large * 100);
	if (o->dist_arg) {
		size_t used = strlen(comment);
		snprintf(comment + used, len - used,
		         "\nthen, on the distribution %s, a kernel serving its sizes where it\n"
		         "beat that policy beyond +-%g%% (pb_verdict)",
		         t->dist.name, 100 * pb_equivalence());
	}
	/* which lines this describes: the ops tuned now, not those kept */
	char tuned[64] = "", kept[64] = "";
	for (int op = 0; op < PB_OP_COUNT; op++) {
		char *list = o->want[op] ? tuned : t->file.set[op] ? kept : NULL;
		if (list)
			snprintf(list + strlen(list), sizeof tuned - strlen(list), "%s%s",
			         list[0] ? ", " : "", pb_op_name((enum pb_op)op));
	}
	for (int op = 0; op < PB_OP_COUNT; op++)
		if (o->want[op] && t->checked[op][0]) {
			/* the one word wrapper, its lines indented by 2 and the 2
			 * dropped: with the file's "# " they stay within 80 columns */
			char *w = NULL;
			size_t wlen = 0;
			FILE *m = open_memstream(&w, &wlen);
			if (!m)
				continue;
			pb_print_wrapped_at(m, 2, 2, t->checked[op]);
			if (fclose(m) != 0) {
				free(w);
				continue;
			}
			for (char *l = w; *l;) {
				size_t n = strcspn(l, "\n"), used = strlen(comment);
				snprintf(comment + used, len - used, "\n%.*s",
				         n > 2 ? (int)(n - 2) : 0, n > 2 ? l + 2 : "");
				l += n + (l[n] == '\n');
			}
			free(w);
		}
	size_t used = strlen(comment);
	snprintf(comment + used, len - used,
	         "\ntuned now: %s\n(up to %llu bytes, %u size%s per octave, budget %g s)%s%s%s",
	         tuned, (unsigned long long)o->max_size, o->per_octave,
	         o->per_octave == 1 ? "" : "s", o->budget,
	         kept[0] ? ";\nkept from the file as it was: " : "", kept,
	         kept[0] ? " (not described above)" : "");
}

/* The GLIBC_TUNABLES line of every op's closest settings: one shell word,
 * continued with backslash-newline (POSIX 2.2.1), so that every line fits
 * in 80 columns and it still pastes. */
static void print_glibc_tunables(const struct tune_ctx *t)
{
	if (!t->nsettings)
		return;
	printf("\nglibc closest to these policies (paste into a shell):\nexport "
	       "GLIBC_TUNABLES=");
	for (size_t i = 0; i < t->nsettings; i++)
		printf("%s%s\n", t->settings[i], i + 1 < t->nsettings ? ":\\" : "");
}

/* The line measured (src/cli/glibc_check.h): libc without and with it at the
 * sizes it changes, op by op and state by state, in fresh processes. Returns
 * the exit status. */
static int verify_glibc_line(struct tune_ctx *t)
{
#ifndef __x86_64__
	/* the line is glibc's x86-64 tunables (pb_glibc_map_policy): another
	 * architecture's glibc has none of them (under qemu-user, the host's
	 * loader may still report them) */
	t->nsettings = 0;
#endif
	if (!t->nsettings)
		return PB_EXIT_OK;
	snprintf(t->line, sizeof t->line, "GLIBC_TUNABLES=");
	for (size_t i = 0; i < t->nsettings; i++)
		snprintf(t->line + strlen(t->line), sizeof t->line - strlen(t->line), "%s%s",
		         i ? ":" : "", t->settings[i]);
	if (!t->nchecks) {
		printf("\nthe line changes glibc's path at none of the sizes timed: nothing to "
		       "measure\n");
		return PB_EXIT_OK;
	}
	if (t->check_changed) {
		pb_print_wrapped_at(stdout, 0, 2,
		                    "\nthe line is not measured: the check changed the policies "
		                    "after its measurement was planned (primbench mem OP --kernels "
		                    "libc --vs-env GLIBC_TUNABLES=... measures it)");
		return PB_EXIT_OK;
	}
	printf("\nthe line, measured (--no-verify skips this):\n");
	/* what "without" is: this environment, which may not be glibc's own */
	const char *have = getenv("GLIBC_TUNABLES");
	if (have && *have) {
		char note[2400];
		snprintf(note, sizeof note,
		         "without: this environment, with its GLIBC_TUNABLES=%s; with: that, "
		         "then the line's settings (glibc takes the last of a tunable set twice)",
		         have);
		pb_print_wrapped_at(stdout, 0, 2, note);
	}
	if (pb_cpu_features_hidden())
		pb_print_wrapped_at(
		    stdout, 0, 2,
		    "--hide-features hides features from primbench's kernels, not "
		    "from glibc: libc runs its own choice for this CPU on both "
		    "sides, while the predictions come from kernels of the features "
		    "left (GLIBC_TUNABLES=glibc.cpu.hwcaps=-... hides them from "
		    "glibc: 'primbench list' names it)");
	for (size_t i = 0; i < t->nchecks; i++) {
		t->checks[i].line = t->line;
		printf("\n");
		fflush(stdout);
		int status = cli_glibc_check_run(&t->checks[i]);
		if (status > 128) {
			fflush(stdout);
			cli_error(
			    "interrupted while measuring the GLIBC_TUNABLES line (a table above "
			    "is of the processes that finished; %zu of %zu not measured); %s",
			    t->nchecks - i - 1, t->nchecks,
			    t->o->dry_run ? "dry run: no policy file written"
			                  : "the policy file was written before");
		}
		if (status != PB_EXIT_OK)
			return status;
	}
	return PB_EXIT_OK;
}

/* The check's processes: 2 fresh ones of 3 replicates each (6 replicates
 * in all, for a run-level interval over both processes). */
#define TUNE_CHECK_PROCESSES  2
#define TUNE_CHECK_REPLICATES 3

/* Writes t->file to path (a policy file for the check's processes). */
static int write_check_file(const struct tune_ctx *t, const char *path)
{
	char *text = pb_auto_file_text(&t->file, "primbench tune's policy, being checked");
	int rc = text ? pb_write_file_whole(path, text, strlen(text)) : -1;
	free(text);
	return rc;
}

/* One round of op's check at sizes[0..n): prints `head`, the geometric
 * means (with `means`) and the losses. Returns 0 or an exit status (2, or
 * 128 + signal), with c filled on 0. */
static int check_round(struct tune_ctx *t, enum pb_op op, const char *path, const uint64_t *sizes,
                       size_t n, const char *head, bool means, struct pb_tune_check *c)
{
	const struct tune_check_params p = {
	    .op = op,
	    .policy_path = path,
	    .sizes = sizes,
	    .n_sizes = n,
	    .processes = TUNE_CHECK_PROCESSES,
	    .replicates = TUNE_CHECK_REPLICATES,
	    .budget_s = t->o->budget * 10,
	    .cpu = t->s->cpu,
	    .stop = pb_session_stop_flag(t->s),
	};
	printf("\n");
	pb_print_wrapped_at(stdout, 0, 2, head);
	fflush(stdout);
	int rc = tune_check_run(&p, c);
	if (pb_session_stopped(t->s))
		return pb_session_exit_status(t->s); /* cmd_tune says it */
	if (rc != 0) {
		if (rc < 0) {
			cli_error("tune: %s (--no-check skips the check)", pb_error());
			return PB_EXIT_USAGE;
		}
		cli_error("tune: the check's processes ended with signal %d; no policy file "
		          "written",
		          rc - 128);
		return rc;
	}
	char line[400];
	if (means) {
		snprintf(line, sizeof line,
		         "libc/auto (> 1: auto faster), geometric mean: hot %.3f over %zu sizes, "
		         "dram %.3f over %zu",
		         c->geomean[0], c->count[0], c->geomean[1], c->count[1]);
		pb_print_wrapped_at(stdout, 2, 4, line);
	}
	snprintf(line, sizeof line,
	         "slower than libc (pb_verdict on the run-level 95%% interval, +-%g%%): %zu%s",
	         100 * pb_equivalence(), c->losses, c->losses ? ", libc/auto [interval]:" : "");
	pb_print_wrapped_at(stdout, 2, 4, line);
	for (size_t i = 0; i < c->n; i++) {
		const struct pb_tune_check_point *pt = &c->pts[i];
		if (!pt->loss)
			continue;
		char sz[32];
		pb_format_bytes(sz, sizeof sz, pt->size_bytes, PB_BYTES_EXACT);
		printf("    %s %s: %.3f [%.3f, %.3f], auto %.3g ticks a call\n",
		       pb_cache_state_name(pt->state), sz, pt->ratio, pt->lo, pt->hi,
		       pt->auto_ticks);
	}
	return PB_EXIT_OK;
}

/* The check's third round (pb_tune_check_undo): the sizes handed to libc
 * in round 2, measured with the policy after it; a handover that did
 * worse than the kernel it replaced is undone, with a line each. Returns
 * 0 or an exit status. */
static int check_handed(struct tune_ctx *t, enum pb_op op, const char *path,
                        const struct pb_policy *before, const uint64_t *handed,
                        const struct pb_tune_check_point *was, size_t nh)
{
	char text[PB_POLICY_TEXT_MAX], head[400];
	pb_policy_format(&t->file.policy[op], text, sizeof text);
	print_policy("policy, after the check", "", text);
	if (write_check_file(t, path) != 0) {
		cli_error("tune: %s", pb_error());
		return PB_EXIT_USAGE;
	}
	snprintf(head, sizeof head,
	         "check, %s, round 3: the size%s handed to libc, with this policy:", pb_op_name(op),
	         pb_plural(nh));
	struct pb_tune_check c;
	int status = check_round(t, op, path, handed, nh, head, false, &c);
	if (status != PB_EXIT_OK) {
		pb_tune_check_free(&c);
		return status;
	}
	struct pb_tune_undo undo[256];
	size_t undone = pb_tune_check_undo(&t->file.policy[op], before, &c, was, nh,
	                                   t->o->per_octave, undo, 256);
	for (size_t i = 0; i < undone && i < 256; i++) {
		char sz[32], line[300];
		pb_format_bytes(sz, sizeof sz, undo[i].size_bytes, PB_BYTES_EXACT);
		snprintf(line, sizeof line,
		         "%s at %s: libc did worse there (%.3f, against %.3f before): "
		         "handed back to %s",
		         pb_cache_state_name(undo[i].state), sz, undo[i].ratio, undo[i].was_ratio,
		         undo[i].kernel->name);
		pb_print_wrapped_at(stdout, 4, 6, line);
	}
	if (undone) {
		pb_policy_format(&t->file.policy[op], text, sizeof text);
		print_policy("policy, after the check", "", text);
	}
	size_t used = strlen(t->checked[op]);
	snprintf(t->checked[op] + used, sizeof t->checked[op] - used,
	         "; then libc took the sizes around %zu of them (%zu handed back), after "
	         "which %zu of those were slower than libc",
	         nh - undone, undone, c.losses);
	t->check_changed = true;
	pb_tune_check_free(&c);
	return PB_EXIT_OK;
}

/* The check's second round: the sizes again[0..na), measured again; libc
 * takes the sizes around each that lost twice (hand_to_libc), and they go
 * to the third round (check_handed). Returns the exit status. */
static int check_again(struct tune_ctx *t, enum pb_op op, const char *path, const uint64_t *again,
                       size_t na)
{
	char head[400];
	snprintf(head, sizeof head,
	         "check, %s, round 2: the %zu size%s that lost above 512 B (here, or in "
	         "tune's runs), measured again (a loss counts when it repeats):",
	         pb_op_name(op), na, pb_plural(na));
	struct pb_tune_check c;
	int status = check_round(t, op, path, again, na, head, false, &c);
	if (status != PB_EXIT_OK) {
		pb_tune_check_free(&c);
		return status;
	}
	/* each size handed over, its round-2 point, and the policy before */
	uint64_t handed[256];
	struct pb_tune_check_point was[256];
	size_t nh = 0;
	const struct pb_policy before = t->file.policy[op];
	for (size_t i = 0; i < c.n; i++) {
		const struct pb_tune_check_point *pt = &c.pts[i];
		if (!pt->loss)
			continue;
		char why[160], sz[32];
		pb_format_bytes(sz, sizeof sz, pt->size_bytes, PB_BYTES_EXACT);
		snprintf(why, sizeof why, "%s at %s, twice", pb_cache_state_name(pt->state), sz);
		if (hand_to_libc(&t->file.policy[op], pt->size_bytes, t->o->per_octave, why) &&
		    nh < 256) {
			handed[nh] = pt->size_bytes;
			was[nh++] = *pt;
		}
	}
	pb_tune_check_free(&c);
	return nh ? check_handed(t, op, path, &before, handed, was, nh) : PB_EXIT_OK;
}

/* The check (tune_check.h) of op, tuned now, in up to three rounds of
 * fresh processes:
 *   1. every held-back size, hot and dram: the figures, and the losses;
 *   2. the sizes that lost above PB_AUTO_SMALL_MAX (below it a libc band
 *      would add auto's dispatch to libc's time; the losses there are
 *      reported and left), here or in tune's own runs (guard_tuned),
 *      measured again: of ~90 points judged at 95% a few lose by chance,
 *      so only a loss that repeats counts (pb_tune_check_again);
 *   3. libc takes the sizes around each repeated loss (hand_to_libc) and
 *      they are measured once more with the new policy
 *      (pb_tune_check_undo).
 * Returns the exit status. */
static int check_op(struct tune_ctx *t, enum pb_op op, const char *path)
{
	const struct tune_opts *o = t->o;
	uint64_t sizes[256], again[256];
	size_t n = pb_tune_check_sizes(o->per_octave, o->max_size, sizes, 256);
	char head[400];
	struct pb_tune_check c;
	snprintf(head, sizeof head,
	         "check, %s: auto with the policy against libc at %zu sizes halfway between "
	         "the tuned ones, hot and dram, in %d fresh processes of %d replicates each:",
	         pb_op_name(op), n, TUNE_CHECK_PROCESSES, TUNE_CHECK_REPLICATES);
	if (write_check_file(t, path) != 0) {
		cli_error("tune: %s", pb_error());
		return PB_EXIT_USAGE;
	}
	int status = check_round(t, op, path, sizes, n, head, true, &c);
	if (status != PB_EXIT_OK) {
		pb_tune_check_free(&c);
		return status;
	}
	size_t small_losses;
	size_t na = pb_tune_check_again(&c, &t->file.policy[op], t->suspect[op], t->nsuspect[op],
	                                again, 256, &small_losses);
	snprintf(t->checked[op], sizeof t->checked[op],
	         "checked, %s: auto with the policy tune found against libc at %zu "
	         "held-back sizes, in %d fresh processes: libc/auto %.3f hot, %.3f dram "
	         "(geometric means); %zu slower than libc",
	         pb_op_name(op), n, TUNE_CHECK_PROCESSES, c.geomean[0], c.geomean[1], c.losses);
	pb_tune_check_free(&c);
	if (small_losses)
		pb_print_wrapped_at(stdout, 2, 4,
		                    "up to 512 B a libc band would add auto's dispatch to libc's "
		                    "time: losses there are left as they are");
	return na ? check_again(t, op, path, again, na) : PB_EXIT_OK;
}

/* The check's policy file, made before anything is measured (a TMPDIR
 * where no file can be made is an error at the start, not after the
 * tuning), removed at exit; "" with --no-check. */
static char check_file_path[4096];

/* The check of every op tuned now (check_op), on a policy file of what
 * tune found; the file is then written with what the check left. Returns
 * the exit status. */
static int check_policies(struct tune_ctx *t)
{
	int status = PB_EXIT_OK;
	for (int op = 0; op < PB_OP_COUNT && status == PB_EXIT_OK; op++)
		if (t->o->want[op])
			status = check_op(t, (enum pb_op)op, check_file_path);
	return status;
}

static void remove_check_file(void)
{
	if (check_file_path[0])
		unlink(check_file_path);
}

static void make_check_file(void)
{
	const char *dir = cli_tmp_dir();
	snprintf(check_file_path, sizeof check_file_path, "%s/primbench-tune-policy-XXXXXX", dir);
	int fd = mkstemp(check_file_path);
	if (fd < 0) {
		int e = errno;
		check_file_path[0] = '\0';
		die_usage(
		    "tune: cannot create a file in %s for the check: %s (--no-check skips it)", dir,
		    strerror(e));
	}
	close(fd);
	atexit(remove_check_file);
}

int cmd_tune(int argc, char **argv)
{
	struct tune_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	cli_parse_done();
	struct tune_ctx t = {.o = &o};
	if (o.dist_arg && pb_distribution_find(o.dist_arg, &t.dist) != 0)
		die_usage("tune: %s", pb_error());
	char path[PB_AUTO_PATH_MAX];
	struct pb_auto_file old;
	bool have_old;
	/* --split's default comes from the LLC: the caches the session would
	 * detect, read before it begins (its placement line would precede
	 * the error) */
	struct pb_cache_info caches;
	pb_cache_detect(&caches, NULL);
	choose_split(&o, &caches);
	prepare_policy_file(&o, path, &old, &have_old);
	if (!o.no_check)
		make_check_file();

	struct pb_session s;
	/* no result document, no noise figure */
	struct pb_session_params sp;
	cli_session_params(&sp, o.want_cpu, 0, false, NULL);
	sp.noise = false;
	if (pb_session_begin(&sp, &s) != 0)
		die_usage("%s", pb_error());
	t.s = &s;
	pb_glibc_thresholds_read(&t.glibc);
	struct pb_cpu_ident id;
	pb_cpu_ident(&id);
	/* the LLC the runs use (their dram working set, the split, which the
	 * plan prints): said under the plan */
	char llc_line[1200];
	llc_from_curve(&o, &s.caches, pb_session_stop_flag(&s), llc_line, sizeof llc_line);
	print_plan(&o, &id);
	pb_print_wrapped_at(stdout, 2, 4, llc_line);
	snprintf(t.file.cpu, sizeof t.file.cpu, "%s", id.brand);
	pb_kernels(&t.nk_cap);
	t.ks = calloc(t.nk_cap, sizeof *t.ks);
	int status = PB_EXIT_OK;
	for (int op = 0; op < PB_OP_COUNT && status == PB_EXIT_OK; op++)
		if (o.want[op])
			status = tune_op(&t, (enum pb_op)op);
	free(t.ks);
	if (status == PB_EXIT_OK && !o.no_check) {
		status = check_policies(&t);
		if (status == PB_EXIT_OK)
			glibc_after_check(&t);
	}
	if (status != PB_EXIT_OK) {
		if (pb_session_stopped(&s))
			cli_error("interrupted; no policy file written");
		pb_distribution_free(&t.dist);
		pb_session_end(&s);
		return status;
	}
	print_glibc_tunables(&t);
	printf("\n");
	if (o.dry_run) {
		printf("dry run: no policy file written\n");
		pb_distribution_free(&t.dist);
		pb_session_end(&s);
		return o.no_verify ? PB_EXIT_OK : verify_glibc_line(&t);
	}
	/* An op not tuned now keeps what the file had. */
	for (int op = 0; have_old && op < PB_OP_COUNT; op++)
		if (!t.file.set[op] && old.set[op]) {
			t.file.policy[op] = old.policy[op];
			t.file.set[op] = true;
		}
	char comment[4096];
	policy_comment(&t, &id, comment, sizeof comment);
	pb_distribution_free(&t.dist);
	pb_session_end(&s);
	char *text = pb_auto_file_text(&t.file, comment);
	if (!text || pb_write_file_whole(path, text, strlen(text)) != 0) {
		free(text);
		die_usage("tune: %s", pb_error());
	}
	free(text);
	printf("policy file: %s\n", path);
	return o.no_verify ? PB_EXIT_OK : verify_glibc_line(&t);
}
