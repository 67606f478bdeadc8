/* cmd_info.c - `primbench info`: the machine fingerprint, every figure with
 * its source; optionally a latency sweep that shows the real cache levels.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/latency.h"
#include "primbench/machine.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/timer.h"

static void usage(FILE *f)
{
	fputs("usage: primbench info [--hide-features LIST] [--l1-size S] [--l2-size S]\n"
	      "                      [--llc-size S] [--latency[=MAX]]\n\n"
	      "Prints the machine fingerprint: CPU identity, features (yes/no/hidden), cache\n"
	      "sizes with every source's figure and why implausible ones were rejected, the\n"
	      "timer (clock, frequency and its source, overhead, step, estimated core clock),\n"
	      "hardware counters, and glibc's own cache figures.\n\n"
	      "  --hide-features LIST  treat these features as absent (comma-separated)\n"
	      "  --l1-size S, --l2-size S, --llc-size S\n"
	      "                        use S as that cache's size (K/M/G suffixes)\n"
	      "                        (at least 1K, at most this machine's RAM)\n"
	      "  --latency[=MAX]       also run a pointer-chase latency sweep from 4K to MAX\n"
	      "                        (default 64M, or twice the LLC figure if larger;\n"
	      "                        at most 16G and a quarter of RAM); the old form of\n"
	      "                        'primbench latency --max MAX', kept as an alias\n",
	      f);
}

/* The old form of `primbench latency`: the machine listing, one line
 * naming the new form, then the same curve. */
static int print_latency(const struct pb_cache_info *c, uint64_t max_bytes)
{
	printf("\nnote: 'primbench info --latency' is now 'primbench latency' (this form stays)\n");
	struct pb_latency_params p = {
	    .min_bytes = 4096, .max_bytes = max_bytes, .max_points = PB_LATENCY_SWEEP_POINTS};
	/* one replicate: the old form's table ('primbench latency' has them) */
	struct pb_latency_rpoint *pts = calloc(PB_LATENCY_SWEEP_POINTS, sizeof *pts);
	struct pb_latency_info info;
	if (!pts) {
		cli_error("out of memory");
		return PB_EXIT_USAGE;
	}
	int n = cli_latency_table(c, &p, 1, pts, &info);
	free(pts);
	return n < 0 ? PB_EXIT_USAGE : PB_EXIT_OK;
}

enum { OPT_L1 = 256, OPT_L2, OPT_LLC, OPT_LATENCY };

/* What info's options asked for. */
struct info_opts {
	uint64_t override[PB_CACHE_LEVELS];
	bool latency;
	uint64_t latency_max;
};

static bool info_option(int opt, const char *arg, void *ctx)
{
	struct info_opts *o = ctx;
	switch (opt) {
	case OPT_L1:
		o->override[PB_CACHE_L1D] = cli_parse_size_opt("--l1-size", arg);
		return true;
	case OPT_L2:
		o->override[PB_CACHE_L2] = cli_parse_size_opt("--l2-size", arg);
		return true;
	case OPT_LLC:
		o->override[PB_CACHE_LLC] = cli_parse_size_opt("--llc-size", arg);
		return true;
	case OPT_LATENCY:
		o->latency = true;
		if (arg)
			o->latency_max = cli_parse_size_opt("--latency", arg);
		return true;
	default:
		return false;
	}
}

int cmd_info(int argc, char **argv)
{
	static const struct option longopts[] = {
	    CLI_HIDE_FEATURES_OPTION,
	    {"l1-size", required_argument, NULL, OPT_L1},
	    {"l2-size", required_argument, NULL, OPT_L2},
	    {"llc-size", required_argument, NULL, OPT_LLC},
	    {"latency", optional_argument, NULL, OPT_LATENCY},
	    CLI_HELP_OPTION,
	    {NULL, 0, NULL, 0},
	};
	struct info_opts o = {0};
	optind = 1;
	if (!cli_parse_options("info", argc, argv, ":h", longopts, info_option, &o, NULL, usage))
		return PB_EXIT_OK;
	cli_no_operands("info", longopts, argc, argv);
	uint64_t *override = o.override;
	bool latency = o.latency;
	uint64_t latency_max = o.latency_max;

	/* Every option is checked before anything is printed. */
	if (pb_cache_overrides_check(override) != 0)
		die_usage("%s", pb_error());
	if (latency_max)
		cli_latency_max("--latency", latency_max, NULL);
	cli_parse_done();
	if (pb_timer_init() != 0)
		die_usage("%s", pb_error());
	struct pb_cache_info caches;
	pb_cache_detect(&caches, override);
	if (latency && !latency_max)
		latency_max = cli_latency_max("--latency", 0, &caches);

	pb_print_machine_info(stdout, &caches);
	if (!latency)
		return PB_EXIT_OK;
	fflush(stdout);
	return print_latency(&caches, latency_max);
}
