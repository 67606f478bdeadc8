/* memrun.h - one measuring session of the mem suite, shared by `mem` and the
 * default run: pin, time, print tables, write the JSON result. */
#ifndef PRIMBENCH_CLI_MEMRUN_H
#define PRIMBENCH_CLI_MEMRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"
#include "primbench/report.h"

struct mem_cli {
	enum pb_op ops[PB_OP_COUNT];
	size_t nops;
	const char *kernels_arg; /* NULL or "all": every usable kernel */
	const char *sizes_arg;
	const char *cache_arg;
	uint64_t dst_offset_bytes, src_offset_bytes;
	int value;
	enum pb_unit unit;
	bool unit_set;       /* else ticks/call for hot, GB/s for dram */
	bool fastest_tables; /* also print the fastest-per-size tables */
	bool machine_summary;
	double budget_s;
	size_t min_samples, max_samples;
	uint64_t cache_override_bytes[PB_CACHE_LEVELS];
	uint64_t seed;
	const char *out_path;  /* NULL: none (mem) */
	bool default_out_path; /* primbench-HOST-DATE.json */
	int argc;
	char **argv;
};

void mem_cli_defaults(struct mem_cli *m, int argc, char **argv);

/* Parses the options both `mem` and the default run take. Returns true
 * when opt was one of them (optarg consumed); exits 2 on a bad value. */
bool mem_cli_common_option(struct mem_cli *m, int opt, const char *arg);

/* getopt_long table entries for the common options (terminated by the
 * caller's own {0}); codes are >= 256. */
#define MEM_CLI_OPT_BASE 256
#define MEM_CLI_LONG_OPTIONS                                                                       \
	{"kernels", required_argument, 0, MEM_CLI_OPT_BASE + 0},                                   \
	    {"sizes", required_argument, 0, MEM_CLI_OPT_BASE + 1},                                 \
	    {"cache", required_argument, 0, MEM_CLI_OPT_BASE + 2},                                 \
	    {"budget", required_argument, 0, MEM_CLI_OPT_BASE + 3},                                \
	    {"min-samples", required_argument, 0, MEM_CLI_OPT_BASE + 4},                           \
	    {"max-samples", required_argument, 0, MEM_CLI_OPT_BASE + 5},                           \
	    {"l1-size", required_argument, 0, MEM_CLI_OPT_BASE + 6},                               \
	    {"l2-size", required_argument, 0, MEM_CLI_OPT_BASE + 7},                               \
	    {"llc-size", required_argument, 0, MEM_CLI_OPT_BASE + 8},                              \
	    {"hide-features", required_argument, 0, MEM_CLI_OPT_BASE + 9},                         \
	    {"seed", required_argument, 0, MEM_CLI_OPT_BASE + 10},                                 \
	    {"unit", required_argument, 0, MEM_CLI_OPT_BASE + 11},                                 \
	{                                                                                          \
		"output", required_argument, 0, 'o'                                                \
	}

/* Runs the session. Returns the exit status (0, 2, or 130). */
int mem_cli_run(struct mem_cli *m);

#endif
