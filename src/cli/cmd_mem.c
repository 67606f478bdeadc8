/* cmd_mem.c - `primbench mem memset|memcpy|memmove|clear_page|copy_page [OPTIONS]`. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/mem_session.h"
#include "primbench/error.h"

static void usage(FILE *f)
{
	fputs("usage: primbench mem memset|memcpy|memmove|clear_page|copy_page [OPTIONS]\n"
	      "       primbench mem map [OPTIONS]   (page faults at scale: mem map --help)\n"
	      "\n"
	      "Times kernels at each size and cache state, interleaved, and prints one\n"
	      "table per cache state (rows: kernels, columns: sizes, cells: medians).\n"
	      "\n"
	      "memmove: like memcpy; --distance D with |D| < size overlaps, and D < 0\n"
	      "(dst above src: memmove(p + d, p, n) is D = -d) makes backward copies.\n"
	      "\n"
	      "clear_page and copy_page: memset 0 / memcpy of one page-aligned 4 KiB page\n"
	      "per call, in every cache state, in ticks per page.\n"
	      "\n"
	      "  --kernels LIST      kernel names, or 'all' (default: every usable kernel)\n"
	      "  --sizes LIST        bytes per call, 0 to 4G (default 64,256,1K,4K,64K,1M,\n"
	      "                      32M); ranges: 64..32M (doubling), 0..256:32 (steps),\n"
	      "                      16..64M/4 (4 per octave)\n"
	      "  --cache LIST        hot, l2, llc, dram, fault, fault-thp, repeat (default\n"
	      "                      hot); fault-thp is fault with 2M pages (--cache fault\n"
	      "                      --pages 2M), kept under its old name\n"
	      "  --pages LIST        page sizes of every state's buffers: 4K, 2M, 1G\n"
	      "                      (default 4K); each case runs once per size; 2M and\n"
	      "                      1G from reserved hugetlbfs pages, 2M else from THP;\n"
	      "                      a size not available is skipped with a note\n"
	      "  --dst-offset LIST   destination bytes from a page boundary (default 0);\n"
	      "                      a list or range (0..63:1) makes a grid table\n"
	      "  --src-offset LIST   source bytes from a page boundary (default 2048)\n"
	      "  --distance LIST     memcpy, memmove: source at dst + distance (signed\n"
	      "                      bytes; memcpy needs |distance| >= size), instead of\n"
	      "                      --src-offset; beyond 4 GiB (up to the address\n"
	      "                      space) the hot state only\n"
	      "  --extent BYTES      one sample = consecutive calls covering BYTES (a\n"
	      "                      multiple of every size; hot, dram, repeat)\n"
	      "  --then-read         also time reading back what each batch wrote\n"
	      "  --precision P%      stop early once every 95% CI half-width <= P% of\n"
	      "                      its median (after --min-samples)\n"
	      "  --warmup N          samples per case taken and discarded first (1)\n"
	      "  --counters          hardware counters per call (cycles, instructions,\n"
	      "                      cache misses) where the machine has them\n"
	      "  --breakeven         print where the leading kernels' medians cross, a\n"
	      "                      recommended policy and the GLIBC_TUNABLES closest to\n"
	      "                      it (on by itself for 8 or more sizes)\n"
	      "  --value V           memset byte (default 0; destination pre-filled with\n"
	      "                      V^0xA5 so a clear really clears)\n"
	      "  --unit U            ticks/call, ticks/page, ns/call, bytes/tick, GB/s\n"
	      "                      (default: ticks/call for hot and l2, GB/s for the\n"
	      "                      other states, ticks/page for clear_page/copy_page)\n"
	      "  --fastest           also print the fastest kernel per size in every unit\n"
	      "  --distribution D    replay call sizes drawn from D, a built-in\n"
	      "                      distribution (list --distributions) or FILE.csv,\n"
	      "                      instead of --sizes; hot, l2, llc and dram\n"
	      "  --offsets MODE      with --distribution: random (default) or aligned\n"
	      "  --batch N           with --distribution: calls per timed batch (4096)\n"
	      "  --budget SECONDS    at most this long per size and cache state once every\n"
	      "                      kernel has --min-samples (default 0.5)\n"
	      "  --min-samples N     per case (default 11); --max-samples N (default 201)\n"
	      "  --l1-size S, --l2-size S, --llc-size S   override the cache sizes\n"
	      "  --hide-features L   hide CPU features (e.g. " CLI_EG_FEATURES ")\n"
	      "  --cpu N             measure on CPU N (default: the quietest by a noise probe)\n"
	      "  --threads LIST      also run N threads at once, each on its own core with\n"
	      "                      its own buffers: 1..8 (doubling), 1,2,3 or all; the\n"
	      "                      1-thread case is always run; aggregate GB/s, per\n"
	      "                      thread, efficiency (docs/methodology.md)\n"
	      "  --placement P       compact (fill one cache/NUMA domain first, default) or\n"
	      "                      scatter (spread over packages and NUMA nodes)\n"
	      "  --cpu LIST          with --threads: the CPUs to use (0,2-3; default all)\n"
	      "  --mem-node N        with --threads: local (default), interleave, or NUMA\n"
	      "                      node N for every thread's buffers\n"
	      "  --seed N            seed for interleaving order and slot order\n"
	      "  --replicates R      run the whole plan R times in a row (default 5), with\n"
	      "                      fresh buffers, calibration and seed, the budget shared\n"
	      "                      out; medians and CIs are then the replicates' (their\n"
	      "                      geometric mean, Student's t on the logs)\n"
	      "  --equivalence P%    the one margin of every verdict (the tables' =, the\n"
	      "                      break-even, --vs-env): a difference inside +-P% is\n"
	      "                      none (default 1%)\n"
	      "  --processes N       the replicates in N fresh processes of primbench, one\n"
	      "                      after another, joined into one result (default 1)\n"
	      "  --vs-env NAME=VALUE A/B across processes (repeatable: B has them all):\n"
	      "                      2 x R processes of one replicate each (R >= 2),\n"
	      "                      A B B A ...,\n"
	      "                      A in this environment, B with NAME=VALUE (e.g.\n"
	      "                      GLIBC_TUNABLES=...); prints B against A per case\n"
	      "                      as compare does, with its interval and verdict;\n"
	      "                      -o FILE: the comparison, and FILE-A.json and\n"
	      "                      FILE-B.json, the two sides\n"
	      "  -o, --output FILE   write the results as JSON (schema v2); without it,\n"
	      "                      nothing is written\n"
	      "  --html              with -o FILE.json: also its HTML page, FILE.html\n"
	      "  -f, --format F      print the result as text (default: the tables),\n"
	      "                      json, csv, markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet         no progress line on stderr\n",
	      f);
}

int cmd_mem(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "map"))
		return cmd_mem_map(argc - 1, argv + 1); /* its own options (cmd_mem_map.c) */
	struct mem_cli m;
	mem_cli_defaults(&m);
	if (!mem_cli_parse(&m, "mem", argc, argv, usage))
		return PB_EXIT_OK;
	if (optind >= argc)
		die_usage(
		    "an operation is needed: memset, memcpy, memmove, clear_page, copy_page or "
		    "map (try 'primbench mem --help')");
	if (optind + 1 < argc)
		die_usage("unexpected argument '%s'", argv[optind + 1]);
	enum pb_op op;
	const char *what = argv[optind];
	if (!strcmp(what, "clear_page") || !strcmp(what, "copy_page")) {
		/* The kernel's page primitives as the field tabulates them: one
		 * page-aligned 4 KiB page per call, in every cache state. */
		op = what[1] == 'l' ? PB_OP_MEMSET : PB_OP_MEMCPY;
		m.scenario = what;
		if (m.sizes_set || m.dst_offset_set || m.src_offset_set || m.distances_arg ||
		    m.extent_bytes)
			die_usage("%s is one page-aligned 4 KiB page per call: --sizes, offsets, "
			          "--distance and --extent do not apply",
			          what);
		if (m.value_set && m.value != 0)
			die_usage("clear_page writes zeros: --value does not apply");
		m.value_set = false;
		m.sizes_arg = "4096";
		if (!m.cache_set)
			m.cache_arg = "hot,l2,llc,dram,fault,fault-thp";
		if (op == PB_OP_MEMCPY)
			m.src_offsets_arg = "0";
	} else if (pb_op_parse(what, &op) != 0) {
		die_usage("%s: the ops are memset, memcpy, memmove, clear_page, copy_page and map",
		          pb_error());
	}
	m.ops[0] = op;
	m.nops = 1;
	return mem_cli_run(&m);
}
