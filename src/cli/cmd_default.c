/* cmd_default.c - the default suite: `primbench` with no subcommand, and
 * `make run`: the machine summary, then memset (value 0) and memcpy at
 * 64 B..32 MiB, hot and dram, every usable kernel, the kernel crossings and
 * the run's summary (include/primbench/summary.h), written to
 * primbench-HOST-DATE.json. */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/mem_session.h"

static void usage(FILE *f)
{
	fputs("usage: primbench [run] [OPTIONS]\n"
	      "\n"
	      "The default suite: machine summary, then memset (value 0) and memcpy at\n"
	      "64 B, 256 B, 1 KiB, 4 KiB, 64 KiB, 1 MiB and 32 MiB, hot and dram, every\n"
	      "usable kernel, the fastest marked per size; kernel crossings (syscall,\n"
	      "fork, exec, page faults); then a summary of what the run found, each\n"
	      "claim from its medians and 95% CIs (also in the JSON; 'primbench report\n"
	      "FILE' prints it again); a GLIBC_TUNABLES line it proposes is measured:\n"
	      "libc without and with it in 2 x R fresh processes. Writes\n"
	      "primbench-HOST-DATE.json in the current directory (or -o FILE).\n"
	      "\n"
	      "  -o, --output FILE   where to write the JSON result\n"
	      "  --html              also write the run's HTML page beside the JSON\n"
	      "                      (primbench-HOST-DATE.html; 'primbench report --html')\n"
	      "  -f, --format F      print the result as text (default), json, csv,\n"
	      "                      markdown or benchfmt; -q, --quiet: no progress\n"
	      "  --budget SECONDS    per size and cache state (default 2)\n"
	      "  --replicates R      the whole plan R times in a row (default 8)\n"
	      "  --equivalence P%    the one margin of the tables' =, the summary and its\n"
	      "                      policies: a difference inside +-P% is none (default\n"
	      "                      1%)\n"
	      "  also: --kernels, --sizes, --cache, --unit, --min-samples, --max-samples,\n"
	      "        --l1-size, --l2-size, --llc-size, --hide-features, --seed (see\n"
	      "        'primbench mem --help')\n",
	      f);
}

/* The default run's replicates (above). */
#define DEFAULT_RUN_REPLICATES 8

int cmd_default(int argc, char **argv)
{
	struct mem_cli m;
	mem_cli_defaults(&m);
	m.ops[0] = PB_OP_MEMSET;
	m.ops[1] = PB_OP_MEMCPY;
	m.nops = 2;
	m.cache_arg = "hot,dram";
	m.machine_summary = true;
	m.verify_glibc_lines = true;
	m.fastest_tables = true;
	m.default_out_path = true;
	m.syscall_table = true;
	/* More time per group than `mem`: the whole suite still ends in ~30 s here. */
	m.samp.budget_s = 2.0;
	m.samp.max_samples = 401;
	/* 8 replicates, not mem's 5: three default runs here gave a "behind"
	 * or "ahead" of libc that did not repeat at 6 of 28 points with 5, at 2
	 * with 8 (t's 7 degrees of freedom and sqrt 8: intervals about 0.6 as
	 * wide); docs/statistics.md "Three default runs under the one rule". */
	m.replicates = DEFAULT_RUN_REPLICATES;
	if (!mem_cli_parse(&m, "run", argc, argv, usage))
		return PB_EXIT_OK;
	if (optind < argc)
		die_usage("unexpected argument '%s' (subcommands come first: 'primbench mem ...')",
		          argv[optind]);
	return mem_cli_run(&m);
}
