/* cmd_account.c - `primbench account DIR`: the table of the accounting
 * files libprimswitch.so left in DIR (PRIMBENCH_ACCOUNT_DIR of a run made
 * by hand; `primbench cmd --account` prints the same table by itself).
 * include/primbench/accounting.h reads and sums the files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/accounting.h"
#include "primbench/error.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/timer.h"

static void usage(FILE *f)
{
	fputs("usage: primbench account [--buckets] [-o FILE] DIR\n"
	      "\n"
	      "Sums the files primswitch-*.acct that libprimswitch.so wrote in DIR\n"
	      "(PRIMBENCH_ACCOUNT_DIR) and prints calls, bytes and sizes per primitive,\n"
	      "and with PRIMBENCH_ACCOUNT=ticks the sampled time (docs/preload.md).\n"
	      "\n"
	      "  --buckets          one row per log2 size bucket instead of size classes\n"
	      "  -o, --output FILE  also write the figures as JSON\n"
	      "\n"
	      "example:\n"
	      "  LD_PRELOAD=$PWD/build/libprimswitch.so PRIMBENCH_ACCOUNT=ticks \\\n"
	      "      PRIMBENCH_ACCOUNT_DIR=/tmp/acct make -j2\n"
	      "  primbench account /tmp/acct\n",
	      f);
}

static bool account_option(int opt, const char *arg, void *flags)
{
	(void)arg;
	if (opt != 'B')
		return false;
	*(int *)flags |= PB_ACCT_PRINT_BUCKETS;
	return true;
}

int cmd_account(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"buckets", no_argument, 0, 'B'},
	    CLI_OUTPUT_OPTION,
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	int flags = 0;
	const char *out = NULL;
	const struct cli_common common = {.out_path = &out};
	if (!cli_parse_options("account", argc, argv, ":ho:", opts, account_option, &flags, &common,
	                       usage))
		return PB_EXIT_OK;
	if (optind != argc - 1)
		die_usage("account: needs one directory (usage: primbench account DIR)");
	const char *dir = argv[optind];
	cli_parse_done();
	if (out && pb_output_reserve(out) != 0)
		die_usage("%s", pb_error());
	struct pb_acct_total *t = calloc(1, sizeof *t);
	if (!t)
		die_usage("out of memory");
	int n = pb_acct_read_dir(dir, t);
	if (n < 0)
		die_usage("account: %s", pb_error());
	if (n == 0 && t->skipped == 0)
		die_usage("account: %s: no primswitch-*.acct files in it", dir);
	double hz = 0;
	if (pb_timer_init() == 0 && pb_timer_info()->clock == PB_CLOCK_TSC)
		hz = pb_timer_info()->hz;
	pb_acct_print(stdout, t, hz, 0, flags);
	int status = PB_EXIT_OK;
	if (out) {
		struct pb_results_doc *doc = pb_results_accounting_new(dir);
		if (!doc)
			die_usage("account: %s", pb_error());
		struct pb_acct_tables tab;
		pb_acct_tables(t, hz, 0, &tab);
		if (pb_results_add_accounting(doc, &tab) != 0)
			die_usage("account: %s", pb_error());
		status = cli_write_doc(doc, out);
		pb_results_doc_free(doc);
	}
	free(t);
	return status;
}
