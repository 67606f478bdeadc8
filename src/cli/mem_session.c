/* mem_session.c - a measuring session of the mem suite (see mem_session.h). */
#define _GNU_SOURCE
#include "cli/mem_session.h"
#include "cli/processes.h"

#include <errno.h>
#include <getopt.h>
#include <hwloc.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/glibc_check.h"
#include "cli/html_report.h"
#include "primbench/breakeven.h"
#include "primbench/breakeven_text.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/machine.h"
#include "primbench/mem.h"
#include "primbench/memory.h"
#include "primbench/pages.h"
#include "primbench/placement.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/summary.h"
#include "primbench/syscall.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/tsc_sync.h"
#include "primbench/twosample.h"

/* Largest size per call: the dram state needs 8 of them per buffer set. */
#define MAX_SIZE_BYTES (4ull << 30)
#define MAX_SIZES      4096
/* Calls one replay batch draws (--batch): enough that a pass of small
 * calls lasts far above the timer's 10 ns step, few enough that the
 * sizes, offsets and pointers (20 bytes a call) stay in L1 and L2. */
#define REPLAY_BATCH_CALLS 4096

const struct option mem_cli_options[] = {
    {"kernels", required_argument, 0, MEM_CLI_OPT_BASE + 0},
    {"sizes", required_argument, 0, MEM_CLI_OPT_BASE + 1},
    {"cache", required_argument, 0, MEM_CLI_OPT_BASE + 2},
    CLI_SAMPLING_OPTIONS,
    {"l1-size", required_argument, 0, MEM_CLI_OPT_BASE + 6},
    {"l2-size", required_argument, 0, MEM_CLI_OPT_BASE + 7},
    {"llc-size", required_argument, 0, MEM_CLI_OPT_BASE + 8},
    CLI_HIDE_FEATURES_OPTION,
    {"unit", required_argument, 0, MEM_CLI_OPT_BASE + 11},
    {"dst-offset", required_argument, 0, MEM_CLI_OPT_BASE + 12},
    {"src-offset", required_argument, 0, MEM_CLI_OPT_BASE + 13},
    {"value", required_argument, 0, MEM_CLI_OPT_BASE + 14},
    {"fastest", no_argument, 0, MEM_CLI_OPT_BASE + 15},
    {"distance", required_argument, 0, MEM_CLI_OPT_BASE + 16},
    {"extent", required_argument, 0, MEM_CLI_OPT_BASE + 17},
    {"then-read", no_argument, 0, MEM_CLI_OPT_BASE + 18},
    {"precision", required_argument, 0, MEM_CLI_OPT_BASE + 19},
    {"warmup", required_argument, 0, MEM_CLI_OPT_BASE + 20},
    {"breakeven", no_argument, 0, MEM_CLI_OPT_BASE + 21},
    {"counters", no_argument, 0, MEM_CLI_OPT_BASE + 22},
    {"cpu", required_argument, 0, MEM_CLI_OPT_BASE + 23},
    {"distribution", required_argument, 0, MEM_CLI_OPT_BASE + 24},
    {"offsets", required_argument, 0, MEM_CLI_OPT_BASE + 25},
    {"batch", required_argument, 0, MEM_CLI_OPT_BASE + 26},
    {"threads", required_argument, 0, MEM_CLI_OPT_BASE + 27},
    {"placement", required_argument, 0, MEM_CLI_OPT_BASE + 28},
    {"mem-node", required_argument, 0, MEM_CLI_OPT_BASE + 29},
    {"pages", required_argument, 0, MEM_CLI_OPT_BASE + 30},
    {"replicates", required_argument, 0, MEM_CLI_OPT_BASE + 31},
    {"processes", required_argument, 0, MEM_CLI_OPT_BASE + 32},
    {"vs-env", required_argument, 0, MEM_CLI_OPT_BASE + 33},
    {"equivalence", required_argument, 0, MEM_CLI_OPT_BASE + 34},
    {"html", no_argument, 0, MEM_CLI_OPT_BASE + 35},
    CLI_OUTPUT_OPTION,
    CLI_FORMAT_OPTION,
    CLI_QUIET_OPTION,
    CLI_HELP_OPTION,
    {0, 0, 0, 0},
};

void mem_cli_defaults(struct mem_cli *m)
{
	memset(m, 0, sizeof *m);
	m->sizes_arg = "64,256,1K,4K,64K,1M,32M";
	m->cache_arg = "hot";
	m->dst_offsets_arg = "0";
	m->src_offsets_arg = "2048"; /* dst - src = 2048 mod 4096: no 4K aliasing */
	m->warmup_samples = PB_MEM_WARMUP_SAMPLES_DEFAULT;
	m->cpu = -1;
	m->samp = (struct cli_sampling){.budget_s = 0.5,
	                                .min_samples = PB_MEM_MIN_SAMPLES_DEFAULT,
	                                .max_samples = PB_MEM_MAX_SAMPLES_DEFAULT};
	m->replicates = MEM_CLI_DEFAULT_REPLICATES;
	m->processes = 1;
}

static uint64_t parse_size_or_die(const char *what, const char *arg)
{
	uint64_t v;
	if (pb_parse_size(arg, &v) != 0)
		die_usage("%s: %s", what, pb_error());
	return v;
}

/* The options of mem_cli_options that do more than store a value. */
static bool mem_option(int opt, const char *arg, void *ctx)
{
	struct mem_cli *m = ctx;
	if (cli_sampling_option(opt, arg, &m->samp)) {
		m->seed_set |= opt == CLI_OPT_SEED;
		return true;
	}
	switch (opt) {
	case MEM_CLI_OPT_BASE + 6:
	case MEM_CLI_OPT_BASE + 7:
	case MEM_CLI_OPT_BASE + 8: {
		int lvl = opt - (MEM_CLI_OPT_BASE + 6);
		uint64_t v = parse_size_or_die("cache size", arg);
		if (pb_cache_override_check((enum pb_cache_level)lvl, v) != 0)
			die_usage("%s", pb_error());
		m->cache_override_bytes[lvl] = v;
		return true;
	}
	case MEM_CLI_OPT_BASE + 11:
		if (pb_unit_parse(arg, &m->unit) != 0)
			die_usage("%s", pb_error());
		m->unit_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 17:
		m->extent_bytes = parse_size_or_die("--extent", arg);
		if (m->extent_bytes == 0)
			die_usage("bad --extent '%s': must be more than 0", arg);
		return true;
	case MEM_CLI_OPT_BASE + 19: {
		/* A plain decimal percentage: "1%", "0.5%". */
		size_t len = strlen(arg);
		double v = 0;
		bool ok = len >= 2 && arg[len - 1] == '%' &&
		          strspn(arg, "0123456789.") == len - 1 && arg[0] != '.';
		if (ok) {
			char *end;
			v = strtod(arg, &end);
			ok = end == arg + len - 1 && v > 0 && v < 100;
		}
		if (!ok)
			die_usage("bad --precision '%s' (a CI half-width in percent of the median, "
			          "above 0%% and below 100%%, e.g. 1%%)",
			          arg);
		m->precision = v / 100;
		return true;
	}
	case MEM_CLI_OPT_BASE + 33:
		cli_vs_env_add(m->vs_env, &m->n_vs_env, MEM_CLI_MAX_VS_ENV, arg);
		return true;
	case MEM_CLI_OPT_BASE + 34:
		/* the one margin of every verdict of the run (twosample.h) */
		pb_equivalence_set(cli_parse_equivalence(
		    cli_argc > 1 && cli_argv[1][0] != '-' ? cli_argv[1] : "run", arg));
		return true;
	case MEM_CLI_OPT_BASE + 23:
		/* a list (0,2-3, all) is for --threads: checked by the plan */
		m->cpu_list = arg;
		m->cpu = -1;
		if (arg[strspn(arg, "0123456789")] == '\0') {
			m->cpu = pb_syscall_parse_cpu(arg, NULL);
			if (m->cpu < 0)
				die_usage("%s", pb_error());
		}
		return true;
	case MEM_CLI_OPT_BASE + 14: {
		uint64_t v;
		if (pb_parse_size(arg, &v) != 0 || v > 255)
			die_usage("bad memset value '%s' (a byte: 0 to 255, or 0x00 to 0xff)", arg);
		m->value = (int)v;
		m->value_set = true;
		return true;
	}
	case 'o':
		m->out_path = arg;
		m->default_out_path = false;
		return true;
	case 'f':
		m->format = cli_parse_format(arg);
		return true;
	case 'q':
		cli_quiet = true;
		return true;
	default:
		return false;
	}
}

bool mem_cli_parse(struct mem_cli *m, const char *cmd, int argc, char **argv,
                   void (*usage)(FILE *f))
{
	/* the options of mem_cli_options that only store a value */
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 0, struct mem_cli, kernels_arg),
	    CLI_STORE_ARG_SET(MEM_CLI_OPT_BASE + 1, struct mem_cli, sizes_arg, sizes_set),
	    CLI_STORE_ARG_SET(MEM_CLI_OPT_BASE + 2, struct mem_cli, cache_arg, cache_set),
	    CLI_STORE_ARG_SET(MEM_CLI_OPT_BASE + 12, struct mem_cli, dst_offsets_arg,
	                      dst_offset_set),
	    CLI_STORE_ARG_SET(MEM_CLI_OPT_BASE + 13, struct mem_cli, src_offsets_arg,
	                      src_offset_set),
	    CLI_STORE_FLAG(MEM_CLI_OPT_BASE + 15, struct mem_cli, fastest_tables, true),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 16, struct mem_cli, distances_arg),
	    CLI_STORE_FLAG(MEM_CLI_OPT_BASE + 18, struct mem_cli, then_read, true),
	    CLI_STORE_NUMBER(MEM_CLI_OPT_BASE + 20, struct mem_cli, warmup_samples, "warm-up count",
	                     0, 1000),
	    CLI_STORE_FLAG(MEM_CLI_OPT_BASE + 21, struct mem_cli, breakeven, true),
	    CLI_STORE_FLAG(MEM_CLI_OPT_BASE + 22, struct mem_cli, counters, true),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 24, struct mem_cli, distribution_arg),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 25, struct mem_cli, offsets_arg),
	    CLI_STORE_NUMBER(MEM_CLI_OPT_BASE + 26, struct mem_cli, batch_calls, "--batch", 1,
	                     1 << 20),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 27, struct mem_cli, threads_arg),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 28, struct mem_cli, placement_arg),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 29, struct mem_cli, mem_node_arg),
	    CLI_STORE_ARG(MEM_CLI_OPT_BASE + 30, struct mem_cli, pages_arg),
	    CLI_STORE_FLAG(MEM_CLI_OPT_BASE + 35, struct mem_cli, html, true),
	    CLI_STORE_NUMBER_SET(MEM_CLI_OPT_BASE + 31, struct mem_cli, replicates, replicates_set,
	                         "--replicates", 1, MEM_CLI_MAX_REPLICATES),
	    CLI_STORE_NUMBER(MEM_CLI_OPT_BASE + 32, struct mem_cli, processes, "--processes", 1,
	                     MEM_CLI_MAX_REPLICATES),
	    {0},
	};
	const struct cli_common common = {.stores = stores};
	return cli_parse_options(cmd, argc, argv, ":ho:f:q", mem_cli_options, mem_option, m,
	                         &common, usage);
}

/* Adds k to out[] unless there; exits 2 when it cannot run here. */
static void add_kernel(const struct pb_kernel *k, const struct pb_kernel **out, size_t *n,
                       size_t cap)
{
	char why[160];
	if (!pb_kernel_usable(k, pb_cpu_features(), why, sizeof why))
		die_usage("kernel '%s/%s' is not usable here: %s", pb_op_name(k->op), k->name, why);
	for (size_t i = 0; i < *n; i++)
		if (out[i] == k)
			return;
	if (*n < cap)
		out[(*n)++] = k;
}

/* Resolves --kernels for every op of the run: `all` (alone) or names; a
 * bare name applies to each op of the run that has it, "op/name" to its op
 * only. Every name must match; unusable kernels are errors when named and
 * notes under `all`. Exits 2 on bad input. */
static void resolve_kernels(const struct mem_cli *m, const struct pb_kernel **out[], size_t n[],
                            size_t cap, char skipped[][2048])
{
	size_t count;
	const struct pb_kernel *all = pb_kernels(&count);
	for (size_t o = 0; o < m->nops; o++) {
		n[o] = 0;
		skipped[o][0] = '\0';
	}
	if (!m->kernels_arg || !strcmp(m->kernels_arg, "all")) {
		for (size_t o = 0; o < m->nops; o++)
			for (size_t i = 0; i < count; i++) {
				char why[160];
				if (all[i].op != m->ops[o])
					continue;
				if (pb_kernel_usable(&all[i], pb_cpu_features(), why, sizeof why)) {
					out[o][n[o]++] = &all[i];
				} else {
					size_t used = strlen(skipped[o]);
					snprintf(skipped[o] + used, sizeof skipped[o] - used,
					         "%s/%s not run: %s\n", pb_op_name(m->ops[o]),
					         all[i].name, why);
				}
			}
		return;
	}
	const char *arg = m->kernels_arg;
	for (const char *p = arg;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[128];
		if (len == 0)
			die_usage("empty kernel name in '--kernels %s'", arg);
		if (len >= sizeof name)
			die_usage("unknown kernel '%.*s'", (int)len, p);
		memcpy(name, p, len);
		name[len] = '\0';
		if (!strcmp(name, "all"))
			die_usage("'all' cannot be combined with kernel names in '--kernels %s'",
			          arg);
		bool matched = false;
		if (strchr(name, '/')) {
			const struct pb_kernel *k = pb_kernel_find(PB_OP_COUNT, name);
			if (!k)
				die_usage("%s", pb_error());
			for (size_t o = 0; o < m->nops; o++)
				if (m->ops[o] == k->op) {
					add_kernel(k, out[o], &n[o], cap);
					matched = true;
				}
			if (!matched)
				die_usage("kernel '%s' is not a %s kernel", name,
				          pb_op_name(m->ops[0]));
		} else {
			char err[256] = "";
			for (size_t o = 0; o < m->nops; o++) {
				const struct pb_kernel *k = pb_kernel_find(m->ops[o], name);
				if (k) {
					add_kernel(k, out[o], &n[o], cap);
					matched = true;
				} else {
					snprintf(err, sizeof err, "%s", pb_error());
				}
			}
			if (!matched)
				die_usage("%s", err);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
}

/* Test hook: PRIMBENCH_TEST_SIGINT_AFTER=N raises SIGINT after the N-th
 * group, so the interrupt path is tested deterministically. */
static long sigint_after = -1;
static long groups_seen;

static void progress(void *ctx, size_t done, size_t total)
{
	struct cli_progress *line = ctx;
	cli_progress_update(line, done, total, "group");
	if (done == total)
		cli_progress_done(line);
	if (sigint_after >= 0 && ++groups_seen == sigint_after)
		raise(SIGINT);
}

/* primbench-HOST-YYYYMMDD-HHMMSS.json in local time; -2, -3, ... when a
 * run in the same second already wrote that name. */
static void default_path(char *buf, size_t len, time_t now)
{
	char host[64] = "host";
	gethostname(host, sizeof host - 1);
	host[sizeof host - 1] = '\0';
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
	struct tm tm;
	localtime_r(&now, &tm);
	char when[32];
	strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "primbench-%s-%s.json", host, when);
	for (int i = 2; access(buf, F_OK) == 0 && i < 1000; i++)
		snprintf(buf, len, "primbench-%s-%s-%d.json", host, when, i);
}

/* The default run's short table of kernel crossings: null, umask,
 * pipe, pipe-rtt, fork (of this process, which holds the mem suite's
 * buffers by then) and fork-helper (of a small helper), exec-static,
 * exec-dynamic, fault per 4 KiB page, with a small budget each; cases go
 * into the same result document. The notes say what each fork forked. */
static void run_syscall_table(struct pb_results_doc *doc, int cpu, const cpu_set_t *allowed,
                              uint64_t seed, volatile sig_atomic_t *stop)
{
	static const enum pb_sc_bench benches[] = {
	    PB_SC_NULL,        PB_SC_UMASK,       PB_SC_PIPE,         PB_SC_PIPE_RTT, PB_SC_FORK,
	    PB_SC_FORK_HELPER, PB_SC_EXEC_STATIC, PB_SC_EXEC_DYNAMIC, PB_SC_FAULT,
	};
	struct pb_syscall_params sp = {
	    .cpu = cpu,
	    .peer_cpu = -1,
	    .budget_s = 0.3,
	    .min_samples = 11,
	    .max_samples = 201,
	    .seed = seed ^ 0x5bd1e995,
	    .stop = stop,
	};
	for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
		sp.selected[benches[i]] = true;
	/* The measuring thread is bound to one CPU already; pipe-rtt's partner
	 * goes to the next CPU the process was allowed before that (`taskset
	 * -c 0 primbench` keeps it off the other CPUs: then it is skipped,
	 * with a note). */
	for (int i = 1; cpu >= 0 && i < CPU_SETSIZE && sp.peer_cpu < 0; i++) {
		int c = (cpu + i) % CPU_SETSIZE;
		if (c != cpu && CPU_ISSET(c, allowed))
			sp.peer_cpu = c;
	}
	struct pb_syscall_result r;
	if (pb_syscall_run(&sp, &r) != 0) {
		printf("\nsyscall table not run: %s\n", pb_error());
		return;
	}
	printf("\nkernel crossings (primbench syscall for the full set)");
	cli_syscall_print_table(&r);
	for (const char *l = r.notes; *l;) {
		const char *e = strchr(l, '\n');
		int n = e ? (int)(e - l) : (int)strlen(l);
		char line[512];
		snprintf(line, sizeof line, "note: %.*s", n, l);
		pb_print_wrapped_at(stdout, 0, 6, line);
		l += n + (e != NULL);
	}
	pb_results_add_syscall(doc, &r);
	pb_syscall_result_free(&r);
}

/* A distribution whose name says the op it was recorded for
 * (data/size-distributions: MemsetGoogleW, MemcpyGoogleA; cmd
 * --record-distribution: memset.csv, memcpy.csv, memmove.csv) replayed by
 * another op: a warning, not an error (the sizes are still sizes). */
static void note_distribution_op(const struct mem_cli *m, const struct pb_distribution *d)
{
	static const enum pb_op ops[] = {PB_OP_MEMSET, PB_OP_MEMCPY, PB_OP_MEMMOVE};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		const char *name = pb_op_name(ops[i]);
		if (strncasecmp(d->name, name, strlen(name)) != 0)
			continue;
		for (size_t o = 0; o < m->nops; o++) {
			if (m->ops[o] == ops[i])
				continue;
			warn("--distribution %s was recorded for %s calls; this replays it with %s "
			     "(data/size-distributions/README.md says which op each file is of)",
			     d->name, name, pb_op_name(m->ops[o]));
		}
		return;
	}
}

/* What a run measures, checked and resolved before anything is measured:
 * every usage error exits 2 while it is built (mem_plan_make). */
struct mem_plan {
	struct pb_size_list sizes;
	uint64_t *size_bytes;
	enum pb_cache_state states[PB_STATE_COUNT];
	size_t nstates;
	/* --distribution: a replay draws its sizes and offsets from it */
	bool replaying;
	struct pb_distribution dist;
	struct pb_mem_replay replay;
	/* the placement grid: dst offsets x (src offsets or distances) */
	struct pb_size_list dsts, srcs, dists;
	bool use_distance;
	bool move; /* memmove alone: any distance (|distance| < size overlaps) */
	struct pb_mem_placement *placements;
	size_t nplacements;
	const struct pb_kernel **kernels[PB_OP_COUNT];
	size_t nkernels[PB_OP_COUNT];
	char skipped[PB_OP_COUNT][2048]; /* "op/name not run: why" lines */
	bool breakeven;                  /* asked for, or implied by a fine size sweep */
	/* --threads: the counts (1 first), where each thread runs (the
	 * placement module's plan for the largest count), the memory node */
	bool threaded;
	unsigned *thread_counts;
	size_t n_thread_counts;
	struct pb_placement_plan tplan;
	int *cpus;
	struct pb_mem_node node;
	char plan_text[256];
	/* --pages: the sizes available here and where from (none: 4K) */
	size_t page_sizes[PB_PAGE_SIZES_MAX];
	enum pb_page_source page_sources[PB_PAGE_SIZES_MAX];
	size_t n_page_sizes;
};

/* Options that contradict each other, whatever the sizes. */
static void check_options(const struct mem_cli *m)
{
	cli_sampling_check(&m->samp);
	if (pb_cache_overrides_check(m->cache_override_bytes) != 0)
		die_usage("%s", pb_error());
	for (size_t o = 0; o < m->nops; o++) {
		if (m->ops[o] != PB_OP_MEMSET && m->value_set && m->nops == 1)
			die_usage("--value applies to memset only");
		if (m->ops[o] == PB_OP_MEMSET && m->src_offset_set && m->nops == 1)
			die_usage("--src-offset applies to memcpy and memmove only");
	}
	if (m->n_vs_env && !cli_processes_child()) {
		/* A/B: 2 x R processes of one replicate each, A B B A ... */
		if (m->processes > 1)
			die_usage(
			    "--vs-env runs its own processes (2 x --replicates, A B B A ...): "
			    "not with --processes");
		if (m->format != PB_FORMAT_TEXT && m->format != PB_FORMAT_JSON)
			die_usage("--vs-env prints text or json (-f), not %s",
			          pb_format_name(m->format));
	}
}

/* --sizes and --cache. */
static void plan_sizes_and_states(const struct mem_cli *m, struct mem_plan *pl)
{
	if (pb_parse_size_list(m->sizes_arg, 0, MAX_SIZES, &pl->sizes) != 0)
		die_usage("%s", pb_error());
	pl->size_bytes = calloc(pl->sizes.count, sizeof *pl->size_bytes);
	for (size_t i = 0; i < pl->sizes.count; i++) {
		if ((uint64_t)pl->sizes.values[i] > MAX_SIZE_BYTES)
			die_usage(
			    "size %lld in '--sizes %s' is larger than the limit of 4 GiB per call",
			    (long long)pl->sizes.values[i], m->sizes_arg);
		pl->size_bytes[i] = (uint64_t)pl->sizes.values[i];
	}
	for (const char *p = m->cache_arg;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)len, p);
		enum pb_cache_state st;
		if (pb_cache_state_parse(name, &st) != 0)
			die_usage("%s", pb_error());
		bool dup = false;
		for (size_t i = 0; i < pl->nstates; i++)
			dup |= pl->states[i] == st;
		if (!dup)
			pl->states[pl->nstates++] = st;
		if (!comma)
			break;
		p = comma + 1;
	}
}

/* --pages: the page sizes this machine has; one note line for each it
 * has not (added to the first op's notes, so printed once). Exits 2 on a
 * bad list, and when none of the sizes is available. */
static void plan_pages(const struct mem_cli *m, struct mem_plan *pl)
{
	if (!m->pages_arg)
		return;
	size_t sizes[PB_PAGE_SIZES_MAX], n;
	if (pb_pages_parse(m->pages_arg, sizes, &n) != 0)
		die_usage("--pages: %s", pb_error());
	if (pl->replaying && (n > 1 || sizes[0] != PB_PAGE_4K))
		die_usage("--distribution replays in 4K pages: not with --pages %s", m->pages_arg);
	char notes[1024] = "";
	if (pb_mem_pages_avail(NULL, sizes, n, pl->page_sizes, pl->page_sources, &pl->n_page_sizes,
	                       notes, sizeof notes) != 0)
		die_usage("--pages: %s", pb_error());
	if (pl->n_page_sizes == 0)
		die_usage("--pages %s: none of these page sizes is available here: %.*s",
		          m->pages_arg, (int)strcspn(notes, "\n"), notes);
	size_t used = strlen(pl->skipped[0]);
	snprintf(pl->skipped[0] + used, sizeof pl->skipped[0] - used, "%s", notes);
}

/* --distribution, --offsets, --batch. */
static void plan_replay(const struct mem_cli *m, struct mem_plan *pl)
{
	pl->replay = (struct pb_mem_replay){.batch_calls = REPLAY_BATCH_CALLS, .seed = 1};
	pl->replaying = m->distribution_arg != NULL;
	if (!pl->replaying && (m->offsets_arg || m->batch_calls))
		die_usage("--offsets and --batch apply to --distribution only");
	if (!pl->replaying)
		return;
	if (m->sizes_set || m->dst_offset_set || m->src_offset_set || m->distances_arg ||
	    m->extent_bytes || m->then_read || m->breakeven || m->scenario || m->counters ||
	    m->unit_set || m->fastest_tables)
		die_usage("--distribution draws sizes and offsets itself: --sizes, "
		          "--dst-offset, --src-offset, --distance, --extent, --then-read, "
		          "--breakeven, --counters, --unit and --fastest do not apply");
	for (size_t i = 0; i < pl->nstates; i++)
		if (pl->states[i] == PB_STATE_FAULT || pl->states[i] == PB_STATE_FAULT_THP ||
		    pl->states[i] == PB_STATE_REPEAT)
			die_usage("--distribution replays in the hot, l2, llc and dram states, "
			          "not '%s'",
			          pb_cache_state_name(pl->states[i]));
	if (m->offsets_arg && pb_replay_offsets_parse(m->offsets_arg, &pl->replay.offsets) != 0)
		die_usage("%s", pb_error());
	if (m->batch_calls)
		pl->replay.batch_calls = m->batch_calls;
	if (m->seed_set)
		pl->replay.seed = m->samp.seed;
}

/* --distribution's sizes: a built-in or a file, read after the command
 * line is checked (cli_parse_done). */
static void load_distribution(const struct mem_cli *m, struct mem_plan *pl)
{
	if (!pl->replaying)
		return;
	if (pb_distribution_find(m->distribution_arg, &pl->dist) != 0)
		die_usage("%s", pb_error());
	note_distribution_op(m, &pl->dist);
	pl->replay.dist = &pl->dist;
}

/* Each --distance against the address space, the states and the sizes. */
static void check_distances(const struct mem_cli *m, const struct mem_plan *pl)
{
	for (size_t i = 0; i < pl->dists.count; i++) {
		int64_t dd = pl->dists.values[i];
		/* Beyond 4 GiB the hot state maps just the two slots' pages, at
		 * any distance the user address space holds (mem.h). */
		uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
		unsigned bits = pb_user_address_bits();
		if (ad >= (UINT64_C(1) << bits) - PB_PAGE_BYTES)
			die_usage("bad --distance %lld: beyond the %u-bit user address space",
			          (long long)dd, bits);
		for (size_t si = 0;
		     ad > (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES && si < pl->nstates; si++)
			if (pl->states[si] != PB_STATE_HOT)
				die_usage(
				    "--distance %lld: beyond 4 GiB the hot state only, not '%s'",
				    (long long)dd, pb_cache_state_name(pl->states[si]));
		if (ad > (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES && m->extent_bytes)
			die_usage("--distance %lld: beyond 4 GiB --extent does not apply",
			          (long long)dd);
		for (size_t z = 0; z < pl->sizes.count && !pl->move; z++)
			if ((dd < 0 ? -dd : dd) < pl->sizes.values[z])
				die_usage(
				    "--distance %lld overlaps a copy of %lld bytes (memcpy needs "
				    "|distance| >= size; overlapping moves are memmove's)",
				    (long long)dd, (long long)pl->sizes.values[z]);
	}
}

/* --extent against the sizes and states; the fault states against an
 * overlapping memmove. */
static void check_extent_and_fault_moves(const struct mem_cli *m, const struct mem_plan *pl)
{
	if (m->extent_bytes) {
		for (size_t z = 0; z < pl->sizes.count; z++)
			if (pl->sizes.values[z] == 0 ||
			    m->extent_bytes % (uint64_t)pl->sizes.values[z])
				die_usage("--extent %llu is not a multiple of size %lld",
				          (unsigned long long)m->extent_bytes,
				          (long long)pl->sizes.values[z]);
		for (size_t i = 0; i < pl->nstates; i++)
			if (pl->states[i] != PB_STATE_HOT && pl->states[i] != PB_STATE_DRAM &&
			    pl->states[i] != PB_STATE_REPEAT)
				die_usage(
				    "--extent works with the hot, dram and repeat states, not "
				    "'%s'",
				    pb_cache_state_name(pl->states[i]));
	}
	/* The fault states take the source from a separate prefaulted buffer:
	 * an overlapping memmove cannot be placed there. */
	for (size_t i = 0; pl->move && i < pl->nstates; i++) {
		if (pl->states[i] != PB_STATE_FAULT && pl->states[i] != PB_STATE_FAULT_THP)
			continue;
		for (size_t j = 0; j < pl->dists.count; j++)
			for (size_t z = 0; z < pl->sizes.count; z++) {
				int64_t dd = pl->dists.values[j];
				if ((dd < 0 ? -dd : dd) < pl->sizes.values[z])
					die_usage(
					    "--distance %lld overlaps a move of %lld bytes, "
					    "which the '%s' state cannot place (its source is "
					    "a separate buffer)",
					    (long long)dd, (long long)pl->sizes.values[z],
					    pb_cache_state_name(pl->states[i]));
			}
	}
}

/* --dst-offset, --src-offset, --distance: the placement grid. */
static void plan_placements(const struct mem_cli *m, struct mem_plan *pl)
{
	if (pb_parse_size_list(m->dst_offsets_arg, 0, 4096, &pl->dsts) != 0)
		die_usage("--dst-offset: %s", pb_error());
	pl->use_distance = m->distances_arg != NULL;
	if (pl->use_distance && m->src_offset_set)
		die_usage("--distance cannot be combined with --src-offset");
	/* memmove takes any distance (|distance| < size overlaps: the point);
	 * memcpy's buffers must not overlap. */
	pl->move = m->nops == 1 && m->ops[0] == PB_OP_MEMMOVE;
	if (pl->use_distance) {
		if (m->nops != 1 || m->ops[0] == PB_OP_MEMSET)
			die_usage("--distance applies to memcpy and memmove only");
		if (pb_parse_size_list(m->distances_arg, 1, 4096, &pl->dists) != 0)
			die_usage("--distance: %s", pb_error());
	} else if (pb_parse_size_list(m->src_offsets_arg, 0, 4096, &pl->srcs) != 0) {
		die_usage("--src-offset: %s", pb_error());
	}
	for (size_t i = 0; i < pl->dsts.count; i++)
		if (pl->dsts.values[i] >= 4096)
			die_usage("bad --dst-offset %lld: bytes from a page boundary, 0 to 4095",
			          (long long)pl->dsts.values[i]);
	for (size_t i = 0; i < pl->srcs.count; i++)
		if (pl->srcs.values[i] >= 4096)
			die_usage("bad --src-offset %lld: bytes from a page boundary, 0 to 4095",
			          (long long)pl->srcs.values[i]);
	check_distances(m, pl);
	size_t nsecond = pl->use_distance ? pl->dists.count : pl->srcs.count;
	if (pl->dsts.count * nsecond > 4096)
		die_usage("the offset grid has %zu placements; at most 4096",
		          pl->dsts.count * nsecond);
	pl->nplacements = pl->dsts.count * nsecond;
	pl->placements = calloc(pl->nplacements, sizeof *pl->placements);
	for (size_t i = 0, k = 0; i < pl->dsts.count; i++)
		for (size_t j = 0; j < nsecond; j++, k++) {
			struct pb_mem_placement *p = &pl->placements[k];
			p->dst_offset_bytes = (uint64_t)pl->dsts.values[i];
			if (pl->use_distance) {
				p->has_distance = true;
				p->distance_bytes = pl->dists.values[j];
			} else {
				p->src_offset_bytes = (uint64_t)pl->srcs.values[j];
			}
		}
	check_extent_and_fault_moves(m, pl);
}

/* --kernels, per op. */
static void plan_kernels(const struct mem_cli *m, struct mem_plan *pl)
{
	size_t nk_cap;
	pb_kernels(&nk_cap);
	for (size_t o = 0; o < m->nops; o++)
		pl->kernels[o] = calloc(nk_cap, sizeof *pl->kernels[o]);
	resolve_kernels(m, pl->kernels, pl->nkernels, nk_cap, pl->skipped);
	for (size_t o = 0; o < m->nops; o++)
		if (pl->nkernels[o] == 0 && !m->kernels_arg)
			die_usage("no usable %s kernel on this machine", pb_op_name(m->ops[o]));
}

#define MAX_THREADS 4096

/* --threads, --placement, --cpu LIST, --mem-node (docs/methodology.md,
 * "Threads"). */
static void plan_threads(const struct mem_cli *m, struct mem_plan *pl)
{
	enum pb_placement placement = PB_PLACEMENT_COMPACT;
	if (m->placement_arg && pb_placement_parse(m->placement_arg, &placement) != 0)
		die_usage("%s", pb_error());
	pl->node.kind = PB_MEM_NODE_LOCAL;
	if (m->mem_node_arg && pb_mem_node_parse(NULL, m->mem_node_arg, &pl->node) != 0)
		die_usage("%s", pb_error());
	if (!m->threads_arg) {
		if (m->placement_arg || (m->mem_node_arg && pl->node.kind != PB_MEM_NODE_LOCAL))
			die_usage("--placement and --mem-node apply to --threads");
		if (m->cpu_list && m->cpu < 0)
			die_usage("--cpu %s: a list of CPUs is for --threads (one thread: --cpu N)",
			          m->cpu_list);
		return;
	}
	if (pl->replaying)
		die_usage("--distribution replays on one thread: not with --threads");
	if (m->then_read)
		die_usage("--then-read times one thread's read-back: not with --threads");
	struct pb_placement_plan probe;
	if (pb_placement_plan(NULL, m->cpu_list, placement, 1, &probe) != 0)
		die_usage("--cpu: %s", pb_error());
	unsigned ncpus = probe.n_cpus;
	pb_placement_plan_free(&probe);
	/* counts: 4, 1,2,3 or 1..8 (doubling): decimal digits only */
	const char *ta = m->threads_arg;
	bool ok = strcmp(ta, "all") == 0 || (ta[0] >= '0' && ta[0] <= '9');
	for (const char *c = ta; ok && strcmp(ta, "all") && *c; c++)
		ok = (*c >= '0' && *c <= '9') || *c == ',' || (c[0] == '.' && c[1] == '.') ||
		     (c[0] == '.' && c > ta && c[-1] == '.');
	if (!ok)
		die_usage("bad --threads '%s' (counts such as 4, 1,2,3 or 1..8, or all)", ta);
	if (pl->nplacements > 1)
		die_usage("--threads times one placement: not with a grid of --dst-offset, "
		          "--src-offset or --distance values");
	for (size_t z = 0; z < pl->sizes.count; z++)
		if (pl->size_bytes[z] == 0)
			die_usage("--threads: size 0 moves no bytes, so it has no aggregate "
			          "bandwidth");
	struct pb_size_list l = {0};
	if (!strcmp(m->threads_arg, "all")) {
		l.values = calloc(1, sizeof *l.values);
		l.values[0] = ncpus;
		l.count = 1;
	} else if (pb_parse_size_list(m->threads_arg, 1, MAX_THREADS, &l) != 0) {
		die_usage("--threads: %s", pb_error());
	}
	pl->thread_counts = calloc(l.count + 1, sizeof *pl->thread_counts);
	unsigned most = 1;
	for (size_t i = 0; i < l.count; i++) {
		if (l.values[i] < 1 || l.values[i] > MAX_THREADS)
			die_usage("--threads %s: a count from 1 to %d, or all", m->threads_arg,
			          MAX_THREADS);
		pl->thread_counts[pl->n_thread_counts++] = (unsigned)l.values[i];
		if ((unsigned)l.values[i] > most)
			most = (unsigned)l.values[i];
	}
	pb_size_list_free(&l);
	if (pb_placement_plan(NULL, m->cpu_list, placement, most, &pl->tplan) != 0)
		die_usage("--cpu: %s", pb_error());
	pl->cpus = calloc(most, sizeof *pl->cpus);
	for (unsigned t = 0; t < most; t++)
		pl->cpus[t] = (int)pl->tplan.threads[t].os_cpu;
	pb_placement_describe(&pl->tplan, pl->plan_text, sizeof pl->plan_text);
	pl->threaded = true;
}

/* bind_memory: the placement module binds each thread's regions to
 * --mem-node's node(s); a machine that cannot is noted once. */
static int bind_memory(void *ctx, unsigned thread, void *addr, size_t bytes)
{
	(void)thread;
	const struct mem_plan *pl = ctx;
	char note[256] = "";
	static bool noted;
	if (pb_membind_area(NULL, &pl->node, addr, bytes, note, sizeof note) ==
	        PB_MEMBIND_FALLBACK &&
	    !noted) {
		noted = true;
		warn("--mem-node: %s", note);
	}
	return 0;
}

/* Checks the options and builds the plan; exits 2 on a usage error. */
static void mem_plan_make(const struct mem_cli *m, struct mem_plan *pl)
{
	memset(pl, 0, sizeof *pl);
	check_options(m);
	/* Sizes and states are checked before anything is measured. */
	plan_sizes_and_states(m, pl);
	plan_replay(m, pl);
	plan_placements(m, pl);
	plan_kernels(m, pl);
	plan_threads(m, pl);
	plan_pages(m, pl);
	if (m->breakeven && pl->sizes.count < 2)
		die_usage("--breakeven needs at least two sizes");
	pl->breakeven =
	    !pl->replaying && (m->breakeven || (pl->sizes.count >= 8 && pl->nplacements == 1));
}

static void mem_plan_free(const struct mem_cli *m, struct mem_plan *pl)
{
	for (size_t o = 0; o < m->nops; o++)
		free(pl->kernels[o]);
	free(pl->size_bytes);
	free(pl->placements);
	free(pl->thread_counts);
	free(pl->cpus);
	if (pl->threaded)
		pb_placement_plan_free(&pl->tplan);
	pb_size_list_free(&pl->sizes);
	pb_size_list_free(&pl->dsts);
	pb_size_list_free(&pl->srcs);
	pb_size_list_free(&pl->dists);
	pb_distribution_free(&pl->dist);
}

/* A run in progress: the plan, the session (signals, seed, CPU, document)
 * and what the ops have found so far. */
struct mem_run {
	struct mem_cli *m;
	struct mem_plan *pl;
	struct pb_session s;
	struct pb_counters counters;
	bool counting;
	struct pb_glibc_thresholds glibc;
	struct cli_progress progress_line;
	size_t measured;      /* cases with samples */
	bool was_interrupted; /* a suite stopped early */
	int status;
};

/* --counters: opens them, or says (and records) why the machine has none. */
static void open_counters(struct mem_run *run)
{
	if (!run->m->counters)
		return;
	run->counting = pb_counters_open(&run->counters) == 0;
	const struct pb_counters_status cs = {
	    .available = run->counting,
	    .reason = run->counting ? NULL : run->counters.reason,
	};
	if (!run->counting) {
		printf("\n");
		pb_print_wrapped_at(stdout, 0, 6, run->counters.reason);
	}
	pb_results_set_counters(run->s.doc, &cs);
}

/* The suite's parameters for the o-th op. */
static struct pb_mem_params op_params(struct mem_run *run, size_t o)
{
	const struct mem_cli *m = run->m;
	const struct mem_plan *pl = run->pl;
	struct pb_mem_params p = pb_mem_params_make(m->ops[o], &run->s.caches, m->samp.budget_s,
	                                            run->s.seed + o, pb_session_stop_flag(&run->s));
	p.kernels = pl->kernels[o];
	p.n_kernels = pl->nkernels[o];
	p.sizes_bytes = pl->size_bytes;
	p.n_sizes = pl->sizes.count;
	p.states = pl->states;
	p.n_states = pl->nstates;
	p.placements = pl->placements;
	p.n_placements = pl->nplacements;
	p.extent_bytes = m->extent_bytes;
	p.then_read = m->then_read;
	p.precision = m->precision;
	p.min_samples = m->samp.min_samples;
	p.max_samples = m->samp.max_samples;
	p.warmup_samples = m->warmup_samples;
	p.value = m->value;
	p.counters = run->counting ? &run->counters : NULL;
	p.progress = progress;
	p.progress_ctx = &run->progress_line;
	p.thread_counts = pl->thread_counts;
	p.n_thread_counts = pl->n_thread_counts;
	p.cpus = pl->cpus;
	p.thread_placement = pl->threaded ? pb_placement_name(pl->tplan.placement) : NULL;
	p.mem_node = pl->node.kind;
	p.mem_node_index = pl->node.node;
	p.bind_memory = pl->node.kind != PB_MEM_NODE_LOCAL ? bind_memory : NULL;
	p.bind_ctx = (void *)pl;
	p.page_sizes = pl->page_sizes;
	p.page_sources = pl->page_sources;
	p.n_page_sizes = pl->n_page_sizes;
	return p;
}

/* auto among the kernels of op: its policy is installed before the run and
 * recorded in doc["auto_policy"]. Returns whether it is there. */
static bool note_auto(struct mem_run *run, size_t o)
{
	bool has_auto = false;
	for (size_t i = 0; i < run->pl->nkernels[o]; i++)
		has_auto |= !strcmp(run->pl->kernels[o][i]->name, "auto");
	if (!has_auto)
		return false;
	enum pb_op op = run->m->ops[o];
	cli_auto_record(run->s.doc, op);
	return true;
}

/* The lines above an op's tables: the value, the placement, the extent. */
/* The unit a clear_page/copy_page run's tables are in, in words: a call
 * is one 4 KiB page, so ticks/call and ticks/page are the same figure. */
static const char *page_unit_words(const struct mem_cli *m)
{
	switch (m->unit_set ? m->unit : PB_UNIT_TICKS_PER_PAGE) {
	case PB_UNIT_NS_PER_CALL:
		return "ns per page";
	case PB_UNIT_BYTES_PER_TICK:
		return "bytes per tick";
	case PB_UNIT_GB_S:
		return "GB/s";
	default:
		return "ticks per page";
	}
}

static void print_op_header(const struct mem_run *run, enum pb_op op)
{
	const struct mem_cli *m = run->m;
	const struct mem_plan *pl = run->pl;
	const struct pb_mem_placement *pl0 = &pl->placements[0];
	if (m->scenario)
		printf("\n%s: %s of 4096 page-aligned bytes, in %s\n", m->scenario,
		       op == PB_OP_MEMSET ? "memset 0" : "memcpy", page_unit_words(m));
	if (op == PB_OP_MEMSET) {
		bool faulting = false, repeating = false; /* not pre-filled */
		for (size_t si = 0; si < pl->nstates; si++) {
			faulting |= pl->states[si] == PB_STATE_FAULT ||
			            pl->states[si] == PB_STATE_FAULT_THP;
			repeating |= pl->states[si] == PB_STATE_REPEAT;
		}
		printf("\nmemset value 0x%02x; destinations held 0x%02x before each "
		       "sample\n%s%s",
		       m->value & 0xff, pb_mem_prefill_value(op, m->value),
		       faulting ? "(fault states: fresh pages, which read as zero)\n" : "",
		       repeating ? "(repeat: what the previous call wrote)\n" : "");
		if (pl->nplacements == 1 && pl0->dst_offset_bytes)
			printf("dst offset %llu bytes from a page boundary\n",
			       (unsigned long long)pl0->dst_offset_bytes);
	} else if (pl->nplacements == 1 && !pl->use_distance) {
		printf("\n%s: dst offset %llu, src offset %llu bytes from a page "
		       "boundary\n",
		       pb_op_name(op), (unsigned long long)pl0->dst_offset_bytes,
		       (unsigned long long)pl0->src_offset_bytes);
	} else if (pl->nplacements == 1) {
		long long dd = (long long)pl0->distance_bytes;
		printf("\n%s: dst offset %llu bytes from a page boundary, src = dst %s "
		       "%lld\n",
		       pb_op_name(op), (unsigned long long)pl0->dst_offset_bytes,
		       dd < 0 ? "-" : "+", dd < 0 ? -dd : dd);
		if (op == PB_OP_MEMMOVE)
			printf("sizes above %lld overlap: %s\n", dd < 0 ? -dd : dd,
			       dd < 0   ? "dst above src, a backward copy"
			       : dd > 0 ? "dst below src, a forward copy"
			                : "dst = src");
	}
	if (m->extent_bytes)
		printf("each sample: consecutive calls covering an extent of %llu bytes\n",
		       (unsigned long long)m->extent_bytes);
}

/* --breakeven for one state: the crossings printed and doc["breakeven"]. */
static void print_breakeven(struct mem_run *run, const struct pb_mem_result *r, enum pb_op op,
                            enum pb_cache_state st)
{
	/* glibc's tunables are mapped for memset and memcpy (breakeven.c's
	 * kernel classes); its memmove is its memcpy, but the memmove rows
	 * are not classified. */
	const struct pb_glibc_thresholds *g =
	    run->glibc.known && op != PB_OP_MEMMOVE ? &run->glibc : NULL;
	pb_print_breakeven(stdout, r, op, st, g);
	(void)pb_breakeven_write(run->s.doc, r, op, st, g); /* none written when it fails */
}

/* The tables of one state: one grid per size when there are several
 * placements, else the table and what was asked for beside it. */
static void print_state_tables(struct mem_run *run, const struct pb_mem_result *r, enum pb_op op,
                               enum pb_cache_state st)
{
	const struct mem_cli *m = run->m;
	const struct mem_plan *pl = run->pl;
	enum pb_unit u = m->unit_set   ? m->unit
	                 : m->scenario ? PB_UNIT_TICKS_PER_PAGE
	                 : st == PB_STATE_HOT || st == PB_STATE_L2 || st == PB_STATE_REPEAT
	                     ? PB_UNIT_TICKS_PER_CALL
	                     : PB_UNIT_GB_S;
	if (pl->nplacements > 1) {
		for (size_t z = 0; z < pl->sizes.count; z++) {
			pb_print_mem_grid(stdout, r, op, st, pl->size_bytes[z], u);
			if (m->then_read)
				pb_print_mem_readback_grid(stdout, r, op, st, pl->size_bytes[z], u);
		}
		return;
	}
	pb_print_mem_table(stdout, r, op, st, u);
	if (pl->threaded && m->unit_set && u != PB_UNIT_GB_S)
		printf("\n(the threads tables are in GB/s whatever --unit says: an aggregate "
		       "is bytes\nover a span, not a time per call)\n");
	for (size_t z = 0; pl->threaded && z < pl->sizes.count; z++)
		pb_print_mem_threads(stdout, r, op, st, pl->size_bytes[z]);
	if (m->then_read)
		pb_print_mem_readback(stdout, r, op, st, u);
	if (m->fastest_tables)
		pb_print_mem_fastest(stdout, r, op, st);
	if (run->counting)
		pb_print_mem_counters(stdout, r, op, st);
	if (pl->breakeven)
		print_breakeven(run, r, op, st);
}

/* Every state's tables; with --pages, once per page size, each over the
 * cases of that size (fault-thp's, 2M whatever the list, with the first). */
static void print_page_tables(struct mem_run *run, const struct pb_mem_result *r, enum pb_op op)
{
	const struct mem_plan *pl = run->pl;
	if (pl->n_page_sizes == 0) {
		for (size_t si = 0; si < pl->nstates; si++)
			print_state_tables(run, r, op, pl->states[si]);
		return;
	}
	struct pb_mem_case *cases = malloc((r->n_cases + 1) * sizeof *cases);
	if (!cases) {
		cli_error("out of memory");
		return;
	}
	for (size_t pi = 0; pi < pl->n_page_sizes; pi++) {
		struct pb_mem_result v = *r;
		v.cases = cases;
		v.n_cases = 0;
		for (size_t i = 0; i < r->n_cases; i++) {
			const struct pb_mem_case *c = &r->cases[i];
			if (c->state == PB_STATE_FAULT_THP ? pi == 0
			                                   : c->page_bytes == pl->page_sizes[pi])
				cases[v.n_cases++] = *c;
		}
		printf("\n%s pages (%s)\n", pb_pages_name(pl->page_sizes[pi]),
		       pb_pages_source_name(pl->page_sources[pi]));
		for (size_t si = 0; si < pl->nstates; si++)
			print_state_tables(run, &v, op, pl->states[si]);
	}
	free(cases);
}

/* Before each replicate: its progress line. */
static void replicate_start(void *ctx, const char *label, const struct pb_mem_params *p)
{
	(void)p;
	struct mem_run *run = ctx;
	cli_progress_start(&run->progress_line, label);
}

/* The o-th op's cases in m->replicates replicates (include/primbench/
 * replicates.h): the whole plan runs again for each, in a row, with fresh
 * buffers, calibration and seed, and the budget and --max-samples shared
 * out between them (pb_mem_run_replicates). Returns 0 with *r filled, or
 * -1 with pb_error(). */
static int run_replicates(struct mem_run *run, size_t o, struct pb_mem_result *r)
{
	struct pb_mem_params p = op_params(run, o);
	struct pb_mem_replicates rs = {
	    .n = run->m->replicates,
	    .replay = run->pl->replaying ? &run->pl->replay : NULL,
	    .label = pb_op_name(run->m->ops[o]),
	    .start = replicate_start,
	    .ctx = run,
	};
	return pb_mem_run_replicates(&p, &rs, r);
}

/* Runs the o-th op, prints its tables and adds its cases to the document.
 * Returns false when the run must stop (an error, or interrupted). */
static bool run_op(struct mem_run *run, size_t o)
{
	struct mem_plan *pl = run->pl;
	enum pb_op op = run->m->ops[o];
	bool has_auto = note_auto(run, o);
	struct pb_mem_result r;
	if (run_replicates(run, o, &r) != 0) {
		cli_error("%s", pb_error());
		run->status = PB_EXIT_USAGE;
		return false;
	}
	r.page_op = run->m->scenario;
	if (pl->skipped[o][0]) {
		size_t used = strlen(r.notes);
		snprintf(r.notes + used, sizeof r.notes - used, "%s", pl->skipped[o]);
	}
	if (has_auto) {
		printf("\n");
		cli_auto_print(stdout, op);
	}
	if (pl->replaying) {
		if (op == PB_OP_MEMSET)
			printf("\nmemset value 0x%02x; destinations held 0x%02x before each "
			       "sample\n",
			       run->m->value & 0xff, pb_mem_prefill_value(op, run->m->value));
		for (size_t si = 0; si < pl->nstates; si++)
			pb_print_mem_replay(stdout, &r, pl->states[si]);
	} else {
		print_op_header(run, op);
		print_page_tables(run, &r, op);
	}
	pb_print_mem_quality(stdout, &r);
	fflush(stdout);
	pb_results_add_mem(run->s.doc, &r);
	for (size_t i = 0; i < r.n_cases; i++)
		run->measured += r.cases[i].n_samples > 0;
	run->was_interrupted = r.interrupted;
	pb_mem_result_free(&r);
	return !run->was_interrupted;
}

/* The noise line (and the warning when it was high). */
static void print_noise(const struct pb_noise *noise, int cpu)
{
	if (!noise->valid)
		return;
	char line[256], others[64];
	if (noise->no_other_cpus)
		snprintf(others, sizeof others, "no other CPUs (the run's threads used them all)");
	else
		snprintf(others, sizeof others, "other CPUs %.0f%% busy", noise->other_busy_pct);
	char delay[64] = "";
	if (noise->sched_valid)
		snprintf(delay, sizeof delay, ", waiting for its CPU %.1f%% of the run",
		         noise->run_delay_pct);
	snprintf(line, sizeof line,
	         "noise: steal %.1f%% of CPU time, %s, %ld involuntary context switches of the "
	         "measuring thread (pinned to CPU %d)%s",
	         noise->steal_pct, others, noise->involuntary_switches, cpu, delay);
	putchar('\n');
	pb_print_wrapped_at(stdout, 0, 7, line);
	cli_print_noise_high(noise);
}

/* The default run ends with what it found, from the document as it will be
 * written (include/primbench/summary.h): `report` prints the same for the
 * saved file. */
static void add_summary(struct mem_run *run)
{
	struct pb_summary_report *sum = pb_summary_build_doc(run->s.doc);
	if (!sum) {
		warn("no summary: %s", pb_error());
		return;
	}
	/* its GLIBC_TUNABLES lines measured (src/cli/glibc_check.h), unless
	 * the run was cut short: a failed or interrupted check is said and
	 * leaves the run's figures as they are */
	if (run->m->verify_glibc_lines && !run->was_interrupted && run->status == PB_EXIT_OK) {
		int rc = cli_glibc_check_summary(run->s.doc, sum, run->m->replicates,
		                                 fmin(1.0, run->m->samp.budget_s / 2));
		if (rc != PB_EXIT_OK)
			warn("the summary's GLIBC_TUNABLES lines were not all measured%s",
			     rc > 128 ? " (interrupted)" : "");
		if (rc > 128) /* the run's own figures are whole: written, exit 130 */
			run->was_interrupted = true;
	}
	if (run->m->format == PB_FORMAT_TEXT)
		pb_summary_print(stdout, sum);
	if (pb_results_add_summary(run->s.doc, sum) != 0)
		warn("no summary: %s", pb_error());
	pb_summary_report_free(sum);
}

/* Writes the result file (when there is a path) and the -f output. */
static void write_results(struct mem_run *run, struct cli_format *fmt)
{
	if (run->measured == 0 && !run->was_interrupted && run->status == PB_EXIT_OK) {
		cli_error("nothing was measured (see the notes above)");
		run->status = PB_EXIT_USAGE;
		return;
	}
	run->status = cli_session_output(&run->s, fmt, run->status);
}

/* Measures every op of the plan (and the default run's syscall table),
 * prints, and writes the results. */
/* With --threads: where the threads run, whether one clock serves them
 * (the TSC check: an aggregate spans stamps of several CPUs), and the
 * same in doc["threads"]. */
static void print_threads_plan(struct mem_run *run)
{
	const struct mem_plan *pl = run->pl;
	/* the workers' CPUs are the run's, not noise */
	for (unsigned t = 0; t < pl->tplan.n_threads; t++)
		pb_session_noise_exclude(&run->s, (int)pl->tplan.threads[t].os_cpu);
	char node[64];
	pb_mem_node_describe(&pl->node, node, sizeof node);
	char line[512];
	snprintf(line, sizeof line, "%s; memory %s", pl->plan_text, node);
	putchar('\n');
	pb_print_labelled(stdout, 10, "threads", line);
	unsigned cpus[MAX_THREADS], n = 0;
	for (unsigned t = 0; t < pl->tplan.n_threads && n < MAX_THREADS; t++) {
		bool seen = false;
		for (unsigned i = 0; i < n; i++)
			seen |= cpus[i] == pl->tplan.threads[t].os_cpu;
		if (!seen)
			cpus[n++] = pl->tplan.threads[t].os_cpu;
	}
	struct pb_tsc_sync ts;
	unsigned *tcpus = calloc(pl->tplan.n_threads ? pl->tplan.n_threads : 1, sizeof *tcpus);
	if (!tcpus)
		die_usage("out of memory");
	for (unsigned t = 0; t < pl->tplan.n_threads; t++)
		tcpus[t] = pl->tplan.threads[t].os_cpu;
	struct pb_threads_record tr = {
	    .placement = pb_placement_name(pl->tplan.placement),
	    .cpus = tcpus,
	    .n_cpus = pl->tplan.n_threads,
	    .mem_node = node,
	    .oversubscribed = pl->tplan.oversubscribed,
	};
	if (pb_tsc_sync_check(cpus, n, 2000, &ts) == 0) {
		if (n < 2)
			printf("tsc       one CPU: one clock\n");
		else if (ts.measured)
			printf("tsc       %s: largest offset between CPUs %.0f ticks, bound "
			       "+-%.0f\n",
			       ts.synchronized ? "synchronized" : "NOT synchronized",
			       ts.max_abs_offset_ticks, ts.bound_ticks);
		if (ts.note[0] && n >= 2)
			pb_print_labelled(stdout, 10, "", ts.note);
		tr.tsc_sync = &ts;
	} else {
		printf("tsc       not checked: %s\n", pb_error());
	}
	pb_results_set_threads(run->s.doc, &tr);
	free(tcpus);
	fflush(stdout);
}

static void mem_measure(struct mem_run *run)
{
	const struct mem_cli *m = run->m;
	struct cli_format fmt = {.fmt = m->format};
	cli_format_begin(&fmt);
	if (m->machine_summary)
		pb_print_machine_summary(stdout, &run->s.caches);
	fflush(stdout);
	if (run->pl->breakeven)
		pb_glibc_thresholds_read(&run->glibc);
	open_counters(run);
	if (run->pl->threaded)
		print_threads_plan(run);
	for (size_t o = 0; o < m->nops; o++)
		if (run->pl->nkernels[o] != 0 && !run_op(run, o))
			break;
	if (run->counting)
		pb_counters_close(&run->counters);
	bool stopped = run->was_interrupted || pb_session_stopped(&run->s);
	if (m->syscall_table && !stopped && run->status == PB_EXIT_OK) {
		/* its fork, exec and pipe partners share the measuring CPU: their
		 * waits are the benchmarks', not noise */
		pb_noise_exclude_begin(&run->s.mark);
		run_syscall_table(run->s.doc, run->s.cpu, &run->s.allowed, run->s.seed,
		                  pb_session_stop_flag(&run->s));
		pb_noise_exclude_end(&run->s.mark);
	}
	pb_session_finish(&run->s, run->was_interrupted);
	print_noise(pb_session_noise(&run->s), run->s.cpu);
	if (m->syscall_table && run->measured > 0 && run->status == PB_EXIT_OK)
		add_summary(run);
	write_results(run, &fmt);
}

/* A result file's identity before the run: whether it existed, and its
 * device and inode (a file written whole is a new inode: a rename). */
struct file_id {
	bool exists;
	dev_t dev;
	ino_t ino;
};

static struct file_id file_id_of(const char *path)
{
	struct stat st;
	struct file_id id = {0};
	if (path[0] && stat(path, &st) == 0)
		id = (struct file_id){true, st.st_dev, st.st_ino};
	return id;
}

/* Whether this run wrote path: it exists and is not the file that was
 * there before the run. */
static bool written_since(const char *path, struct file_id before)
{
	struct file_id now = file_id_of(path);
	return now.exists && !(before.exists && before.dev == now.dev && before.ino == now.ino);
}

/* --html: the page of the result file at path, beside it
 * (cli/html_report.h), once this run has written it (status 0, or an
 * interrupted run's file); with --vs-env, the page of its two sides'
 * files (PATH-A.json and PATH-B.json), B against A. No file written by
 * this run: no page, and a line says so. A page that cannot be written
 * is an error line; the run's status stands, or becomes 2 when it was 0. */
static int html_after(const struct mem_cli *m, const char *path, struct file_id before, int status)
{
	if (!m->html || !path[0] || cli_processes_child())
		return status;
	char a[4096 + 8], b[4096 + 8];
	char *paths[2] = {(char *)path, NULL};
	const char *labels[2] = {NULL, NULL};
	size_t n = 1;
	const char *written = path;
	if (m->n_vs_env) {
		cli_vs_env_side_path(path, 'A', a, sizeof a);
		cli_vs_env_side_path(path, 'B', b, sizeof b);
		paths[0] = a;
		paths[1] = b;
		labels[0] = "A";
		labels[1] = "B";
		n = 2;
	}
	if (!written_since(written, before)) {
		cli_error("--html: this run wrote no result file: no page");
		return status == PB_EXIT_OK ? PB_EXIT_USAGE : status;
	}
	char *page = cli_html_path_of(path);
	if (cli_html_report(page, paths, n, labels, n) != 0) {
		cli_error("--html: %s", pb_error());
		status = status == PB_EXIT_OK ? PB_EXIT_USAGE : status;
	} else if (!cli_quiet)
		fprintf(stderr, "page: %s\n", page);
	free(page);
	return status;
}

int mem_cli_run(struct mem_cli *m)
{
	const char *hook = getenv("PRIMBENCH_TEST_SIGINT_AFTER");
	if (hook && *hook)
		sigint_after = atol(hook);
	struct mem_plan pl;
	mem_plan_make(m, &pl);
	if (m->out_path && !m->default_out_path && !m->out_path[0])
		die_usage("empty output path in '-o'");
	if (m->html && !m->out_path && !m->default_out_path)
		die_usage("--html needs -o FILE.json: the page is written beside it");
	/* last: its warning comes after every error of the command line */
	cli_replicates_check(&m->samp, &m->replicates, m->replicates_set, m->processes);
	cli_parse_done();
	load_distribution(m, &pl);
	/* auto's policy file read and checked now: a bad one is one error line,
	 * before the session's placement line (and before any child) */
	for (size_t o = 0; o < m->nops; o++)
		for (size_t i = 0; i < pl.nkernels[o]; i++)
			if (!strcmp(pl.kernels[o][i]->name, "auto"))
				cli_auto_setup();

	char path[4096] = "";
	time_t started = time(NULL);
	if (m->default_out_path)
		default_path(path, sizeof path, started);
	else if (m->out_path)
		snprintf(path, sizeof path, "%s", m->out_path);
	/* --html: the page only of a file this run writes (the comparison's
	 * with --vs-env: written last, after both sides' files) */
	const struct file_id before = file_id_of(path);
	if (m->n_vs_env && !cli_processes_child()) {
		mem_plan_free(m, &pl);
		if (path[0] && pb_output_reserve(path) != 0)
			die_usage("%s", pb_error());
		size_t reps = m->replicates > 1 ? m->replicates : 2;
		struct cli_processes cp = {
		    .n = 2 * reps,
		    .replicates_each = 1,
		    .budget_s = m->samp.budget_s * 2,
		    .min_samples = m->samp.min_samples,
		    .max_samples = m->samp.max_samples * 2,
		    .seed = m->seed_set ? m->samp.seed : (uint64_t)time(NULL) * 2654435761u,
		    .same_seed = m->distribution_arg != NULL,
		    .out_path = path[0] ? path : NULL,
		    .format = m->format,
		    .vs_env = m->vs_env,
		    .n_vs_env = m->n_vs_env,
		};
		return html_after(m, path, before, cli_processes_run(&cp));
	}
	if (m->processes > 1) {
		/* the plan was checked above: bad input fails before any child */
		mem_plan_free(m, &pl);
		if (path[0] && pb_output_reserve(path) != 0)
			die_usage("%s", pb_error());
		size_t reps = m->replicates ? m->replicates : 1;
		struct cli_processes cp = {
		    .n = m->processes,
		    .replicates_each = (reps + m->processes - 1) / m->processes,
		    .budget_s = m->samp.budget_s,
		    .min_samples = m->samp.min_samples,
		    .max_samples = m->samp.max_samples,
		    .seed = m->seed_set ? m->samp.seed : (uint64_t)time(NULL) * 2654435761u,
		    .same_seed = m->distribution_arg != NULL,
		    .out_path = path[0] ? path : NULL,
		    .format = m->format,
		};
		return html_after(m, path, before, cli_processes_run(&cp));
	}

	struct mem_run run = {.m = m, .pl = &pl, .status = PB_EXIT_OK};
	/* the seed always recorded, so any run's order can be replayed; with
	 * --threads the calling thread runs the 1-thread cases on the plan's
	 * first CPU */
	struct pb_session_params sp;
	cli_session_params(&sp, pl.threaded ? pl.cpus[0] : m->cpu, m->samp.seed, true,
	                   path[0] ? path : NULL);
	sp.cache_override_bytes = m->cache_override_bytes;
	sp.started = started;
	if (pb_session_begin(&sp, &run.s) != 0)
		die_usage("%s", pb_error());
	/* the margin its verdicts used: report judges the file with it */
	pb_results_set_equivalence(run.s.doc, pb_equivalence());
	mem_measure(&run);
	bool stopped = run.was_interrupted || pb_session_stopped(&run.s);
	int status = stopped ? pb_session_exit_status(&run.s) : run.status;
	pb_session_end(&run.s);
	mem_plan_free(m, &pl);
	if (stopped && !cli_processes_child()) {
		fflush(stdout);
		if (path[0] && run.status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", path);
		else
			cli_error("interrupted; the %s above show%s what was measured",
			          m->format == PB_FORMAT_TEXT ? "tables" : "result",
			          m->format == PB_FORMAT_TEXT ? "" : "s");
	}
	return html_after(m, path, before, status);
}
