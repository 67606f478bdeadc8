/* mem_session.h - one measuring session of the mem suite, shared by `mem`
 * and the default run: the options, then pin, time, print tables, write
 * the JSON result. */
#ifndef PRIMBENCH_CLI_MEM_SESSION_H
#define PRIMBENCH_CLI_MEM_SESSION_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "primbench/format.h"
#include "primbench/kernels.h"
#include "primbench/report.h"

#include "cli/cli.h"

/* --vs-env: the most */
#define MEM_CLI_MAX_VS_ENV 16

struct mem_cli {
	enum pb_op ops[PB_OP_COUNT];
	size_t nops;
	const char *kernels_arg; /* NULL or "all": every usable kernel */
	const char *sizes_arg;
	const char *cache_arg;
	const char *dst_offsets_arg; /* lists in the size grammar */
	const char *src_offsets_arg;
	const char *distances_arg; /* signed; NULL: none */
	uint64_t extent_bytes;     /* 0: none */
	bool then_read;
	bool breakeven;            /* print crossings and a recommended policy */
	bool counters;             /* hardware counters (cycles, instructions, misses) */
	bool syscall_table;        /* the default run's short syscall table */
	int cpu;                   /* --cpu N, or -1: the CPU the run starts on */
	const char *cpu_list;      /* --cpu LIST with --threads: the CPUs threads use */
	const char *threads_arg;   /* --threads LIST (1..8, 1,2,3, all); NULL: one */
	const char *placement_arg; /* --placement compact|scatter */
	const char *mem_node_arg;  /* --mem-node local|interleave|N */
	const char *pages_arg;     /* --pages 4K,2M,1G; NULL: 4K */
	double precision;          /* target CI half-width / median; 0: off */
	size_t warmup_samples;
	const char *scenario; /* "clear_page", "copy_page" or NULL */
	int value;
	/* given on the command line */
	bool value_set, src_offset_set, dst_offset_set, sizes_set, cache_set;
	enum pb_unit unit;
	bool unit_set;       /* else ticks/call for hot, GB/s for dram */
	bool fastest_tables; /* also print the fastest-per-size tables */
	bool machine_summary;
	bool verify_glibc_lines;  /* the default run: its summary's GLIBC_TUNABLES
	                             lines measured (cli_glibc_check_summary) */
	struct cli_sampling samp; /* --budget, --min-samples, --max-samples, --seed */
	uint64_t cache_override_bytes[PB_CACHE_LEVELS];
	bool seed_set;
	/* --distribution NAME|FILE: replay it (pb_mem_replay_run) instead of
	 * --sizes; --offsets, --batch */
	const char *distribution_arg;
	const char *offsets_arg;
	size_t batch_calls;
	size_t replicates;   /* --replicates R: runs of the whole plan (1: one) */
	bool replicates_set; /* --replicates given (else lowered to fit --max-samples) */
	size_t processes;    /* --processes N: the replicates in N fresh processes */
	/* --vs-env NAME=VALUE (repeatable): A/B in alternating processes
	 * (cli/processes.h); argv's strings */
	char *vs_env[MEM_CLI_MAX_VS_ENV];
	size_t n_vs_env;
	enum pb_format format; /* -f: the result printed in it (text: the tables) */
	const char *out_path;  /* NULL: none (mem) */
	bool default_out_path; /* primbench-HOST-DATE.json */
	bool html;             /* --html: the HTML page beside the JSON */
};

/* --replicates: the default, and the most (include/primbench/replicates.h;
 * the default's reasons: docs/statistics.md "What varies between runs"). */
#define MEM_CLI_DEFAULT_REPLICATES 5

#define MEM_CLI_MAX_REPLICATES 100

void mem_cli_defaults(struct mem_cli *m);

/* Parses argv with mem_cli_options (getopt_long; optind is left after the
 * options). On --help prints usage and returns false; exits 2 on a bad
 * option or value. */
bool mem_cli_parse(struct mem_cli *m, const char *cmd, int argc, char **argv,
                   void (*usage)(FILE *f));

/* The getopt_long table of `mem` and the default run: the common options
 * (codes >= MEM_CLI_OPT_BASE), -o/--output, -f/--format, -q/--quiet,
 * -h/--help; optstring ":ho:f:q". */
#define MEM_CLI_OPT_BASE 256
extern const struct option mem_cli_options[];

/* Runs the session. Returns the exit status: 0; 2 (also when nothing could
 * be measured); 128 + signal number when interrupted (130 for Ctrl-C). */
int mem_cli_run(struct mem_cli *m);

#endif
