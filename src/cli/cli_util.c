/* cli_util.c - option values and CPU binding shared by the subcommands. */
#include <errno.h>
#include <hwloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "primbench/error.h"
#include "primbench/results.h"

#include "cli/cli.h"

size_t cli_parse_count(const char *what, const char *arg, size_t lo, size_t hi)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v < lo || v > hi)
		die_usage("bad %s '%s' (a whole number from %zu to %zu)", what, arg, lo, hi);
	return (size_t)v;
}

double cli_parse_seconds(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 3600)
		die_usage("bad %s '%s' (seconds, above 0 and at most 3600, e.g. 0.5)", opt, arg);
	return v;
}

int cli_pin_cpu(int want)
{
	hwloc_topology_t topo;
	int cpu = -1;
	if (hwloc_topology_init(&topo) != 0)
		return -1;
	if (hwloc_topology_load(topo) == 0) {
		hwloc_bitmap_t set = hwloc_bitmap_alloc();
		int rc = -1;
		if (set && want >= 0) {
			hwloc_bitmap_only(set, (unsigned)want);
			rc = 0;
		} else if (set) {
			rc = hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD);
		}
		if (rc == 0) {
			hwloc_bitmap_singlify(set);
			if (hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0)
				cpu = hwloc_bitmap_first(set);
		}
		hwloc_bitmap_free(set);
	}
	hwloc_topology_destroy(topo);
	return cpu;
}

int cli_write_results(const json_t *doc, const char *path)
{
	if (pb_results_write(doc, path) != 0) {
		fprintf(stderr, "primbench: %s\n", pb_error());
		return PB_EXIT_USAGE;
	}
	printf("\nresults: %s\n", path);
	return PB_EXIT_OK;
}

void cli_on_stop_signals(void (*handler)(int))
{
	struct sigaction sa = {0};
	sa.sa_handler = handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

const char *cli_output_path(const char *arg)
{
	if (!arg[0])
		die_usage("empty output path in '-o'");
	return arg;
}
