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

#define SWEEP_MIN_BYTES     (4ull << 10)
#define SWEEP_DEFAULT_BYTES (64ull << 20)
#define SWEEP_MAX_BYTES     (16ull << 30) /* pb_cache_latency_sweep's own limit */
#define SWEEP_MAX_POINTS    80
#define ROW_WIDTH           36 /* "  %10s %10.1f %12.1f" */

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
	      "                        at most 16G and a quarter of RAM)\n",
	      f);
}

static uint64_t parse_size_opt(const char *opt, const char *text)
{
	uint64_t v;
	if (pb_parse_size(text, &v) != 0)
		die_usage("%s: %s", opt, pb_error());
	if (v == 0)
		die_usage("bad %s '%s': must be more than 0", opt, text);
	return v;
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* Prints a sweep row and its marks, marks that do not fit in the width on
 * lines of their own under the first mark. */
static void print_row(const char *row, char marks[][48], int nmarks)
{
	int col = printf("%s", row);
	for (int i = 0; i < nmarks; i++) {
		int w = (int)strlen(marks[i]);
		if (i > 0 && col + 2 + w > PB_TEXT_WIDTH)
			col = printf("\n%*s", ROW_WIDTH, "") - 1;
		col += printf("  %s", marks[i]);
	}
	putchar('\n');
}

/* The sweep as a table; a row is marked where latency rose by 1.3x or more
 * over the size half as large, and where the chosen cache figures fall. */
static int print_latency(const struct pb_cache_info *c, uint64_t max_bytes)
{
	struct pb_latency_point pts[SWEEP_MAX_POINTS];
	int n = pb_cache_latency_sweep(SWEEP_MIN_BYTES, max_bytes, pts, SWEEP_MAX_POINTS);
	if (n < 0) {
		fflush(stdout);
		cli_error("%s", pb_error());
		return PB_EXIT_USAGE;
	}
	printf("\nlatency sweep (pointer chase: one random cycle through the buffer's lines,\n"
	       "THP requested; median of 5 rounds)\n");
	printf("  %10s %10s %12s\n", "size", "ns/load", "ticks/load");
	int next_level = 0;
	for (int i = 0; i < n; i++) {
		char sz[32], row[64], marks[1 + PB_CACHE_LEVELS][48];
		int nmarks = 0;
		pb_format_bytes(sz, sizeof sz, pts[i].size_bytes, PB_BYTES_IEC);
		snprintf(row, sizeof row, "  %10s %10.1f %12.1f", sz, pts[i].ns_per_load,
		         pts[i].ticks_per_load);
		for (int j = 0; j < i; j++) {
			if (pts[j].size_bytes * 2 == pts[i].size_bytes &&
			    pts[i].ns_per_load >= 1.3 * pts[j].ns_per_load) {
				snprintf(marks[0], sizeof marks[0], "x%.1f vs half the size",
				         pts[i].ns_per_load / pts[j].ns_per_load);
				nmarks = 1;
			}
		}
		while (next_level < PB_CACHE_LEVELS &&
		       pts[i].size_bytes > c->level[next_level].size_bytes) {
			char lv[32];
			pb_format_bytes(lv, sizeof lv, c->level[next_level].size_bytes,
			                PB_BYTES_IEC);
			snprintf(marks[nmarks++], sizeof marks[0], "(past %s %s)",
			         pb_cache_level_name((enum pb_cache_level)next_level), lv);
			next_level++;
		}
		print_row(row, marks, nmarks);
	}
	return PB_EXIT_OK;
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
		o->override[PB_CACHE_L1D] = parse_size_opt("--l1-size", arg);
		return true;
	case OPT_L2:
		o->override[PB_CACHE_L2] = parse_size_opt("--l2-size", arg);
		return true;
	case OPT_LLC:
		o->override[PB_CACHE_LLC] = parse_size_opt("--llc-size", arg);
		return true;
	case OPT_LATENCY:
		o->latency = true;
		if (arg)
			o->latency_max = parse_size_opt("--latency", arg);
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
	uint64_t ram = ram_bytes();
	if (latency_max) {
		char sz[32];
		pb_format_bytes(sz, sizeof sz, latency_max, PB_BYTES_IEC);
		if (latency_max < SWEEP_MIN_BYTES)
			die_usage("--latency: the sweep needs at least 4K (got %s)", sz);
		if (latency_max > SWEEP_MAX_BYTES)
			die_usage("--latency: %s is more than the sweep's limit of 16G", sz);
		if (ram && latency_max > ram / 4)
			die_usage("--latency: %s is more than a quarter of RAM", sz);
	}
	if (pb_timer_init() != 0)
		die_usage("%s", pb_error());
	struct pb_cache_info caches;
	pb_cache_detect(&caches, override);
	if (latency && !latency_max) {
		/* Twice the LLC figure, at least 64M, within the limits above. */
		latency_max = 2 * caches.level[PB_CACHE_LLC].size_bytes;
		if (latency_max < SWEEP_DEFAULT_BYTES)
			latency_max = SWEEP_DEFAULT_BYTES;
		if (latency_max > SWEEP_MAX_BYTES)
			latency_max = SWEEP_MAX_BYTES;
		if (ram && latency_max > ram / 4)
			latency_max = ram / 4;
		if (latency_max < SWEEP_MIN_BYTES)
			latency_max = SWEEP_MIN_BYTES;
	}

	pb_print_machine_info(stdout, &caches);
	if (!latency)
		return PB_EXIT_OK;
	fflush(stdout);
	return print_latency(&caches, latency_max);
}
