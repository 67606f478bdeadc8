/* memrun.c - a measuring session of the mem suite (see memrun.h). */
#define _GNU_SOURCE
#include "cli/memrun.h"

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
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/breakeven.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/mem.h"
#include "primbench/memory.h"
#include "primbench/results.h"
#include "primbench/sizes.h"
#include "primbench/summary.h"
#include "primbench/syscall.h"
#include "primbench/timer.h"

/* Largest size per call: the dram state needs 8 of them per buffer set. */
#define MAX_SIZE_BYTES (4ull << 30)
#define MAX_SIZES      4096
/* Calls one replay batch draws (--batch): enough that a pass of small
 * calls lasts far above the timer's 10 ns step, few enough that the
 * sizes, offsets and pointers (20 bytes a call) stay in L1 and L2. */
#define REPLAY_BATCH_CALLS 4096

static volatile sig_atomic_t interrupted, interrupted_by;

/* Sets the flag the suite polls between samples; exit status 128 + sig. */
static void on_signal(int sig)
{
	interrupted = 1;
	interrupted_by = sig;
}

const struct option mem_cli_options[] = {
    {"kernels", required_argument, 0, MEM_CLI_OPT_BASE + 0},
    {"sizes", required_argument, 0, MEM_CLI_OPT_BASE + 1},
    {"cache", required_argument, 0, MEM_CLI_OPT_BASE + 2},
    {"budget", required_argument, 0, MEM_CLI_OPT_BASE + 3},
    {"min-samples", required_argument, 0, MEM_CLI_OPT_BASE + 4},
    {"max-samples", required_argument, 0, MEM_CLI_OPT_BASE + 5},
    {"l1-size", required_argument, 0, MEM_CLI_OPT_BASE + 6},
    {"l2-size", required_argument, 0, MEM_CLI_OPT_BASE + 7},
    {"llc-size", required_argument, 0, MEM_CLI_OPT_BASE + 8},
    {"hide-features", required_argument, 0, MEM_CLI_OPT_BASE + 9},
    {"seed", required_argument, 0, MEM_CLI_OPT_BASE + 10},
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
    {"output", required_argument, 0, 'o'},
    {"format", required_argument, 0, 'f'},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {0, 0, 0, 0},
};

void mem_cli_defaults(struct mem_cli *m)
{
	memset(m, 0, sizeof *m);
	m->sizes_arg = "64,256,1K,4K,64K,1M,32M";
	m->cache_arg = "hot";
	m->dst_offsets_arg = "0";
	m->src_offsets_arg = "2048"; /* dst - src = 2048 mod 4096: no 4K aliasing */
	m->warmup_samples = 1;
	m->cpu = -1;
	m->budget_s = 0.5;
	m->min_samples = 11;
	m->max_samples = 201;
}

static uint64_t parse_size_or_die(const char *what, const char *arg)
{
	uint64_t v;
	if (pb_parse_size(arg, &v) != 0)
		die_usage("%s: %s", what, pb_error());
	return v;
}

bool mem_cli_common_option(struct mem_cli *m, int opt, const char *arg)
{
	switch (opt) {
	case MEM_CLI_OPT_BASE + 0:
		m->kernels_arg = arg;
		return true;
	case MEM_CLI_OPT_BASE + 1:
		m->sizes_arg = arg;
		m->sizes_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 2:
		m->cache_arg = arg;
		m->cache_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 3:
		m->budget_s = cli_parse_seconds("--budget", arg);
		return true;
	case MEM_CLI_OPT_BASE + 4:
		m->min_samples = cli_parse_count("sample count", arg, 1, 100000);
		return true;
	case MEM_CLI_OPT_BASE + 5:
		m->max_samples = cli_parse_count("sample count", arg, 1, 100000);
		return true;
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
	case MEM_CLI_OPT_BASE + 9:
		cli_hide_features(arg);
		return true;
	case MEM_CLI_OPT_BASE + 10:
		m->seed = cli_parse_count("seed", arg, 0, SIZE_MAX);
		m->seed_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 24:
		m->distribution_arg = arg;
		return true;
	case MEM_CLI_OPT_BASE + 25:
		m->offsets_arg = arg;
		return true;
	case MEM_CLI_OPT_BASE + 26:
		m->batch_calls = cli_parse_count("--batch", arg, 1, 1 << 20);
		return true;
	case MEM_CLI_OPT_BASE + 11:
		if (pb_unit_parse(arg, &m->unit) != 0)
			die_usage("%s", pb_error());
		m->unit_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 12:
		m->dst_offsets_arg = arg;
		m->dst_offset_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 13:
		m->src_offsets_arg = arg;
		m->src_offset_set = true;
		return true;
	case MEM_CLI_OPT_BASE + 16:
		m->distances_arg = arg;
		return true;
	case MEM_CLI_OPT_BASE + 17:
		m->extent_bytes = parse_size_or_die("--extent", arg);
		if (m->extent_bytes == 0)
			die_usage("bad --extent '%s': must be more than 0", arg);
		return true;
	case MEM_CLI_OPT_BASE + 18:
		m->then_read = true;
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
	case MEM_CLI_OPT_BASE + 21:
		m->breakeven = true;
		return true;
	case MEM_CLI_OPT_BASE + 22:
		m->counters = true;
		return true;
	case MEM_CLI_OPT_BASE + 23:
		m->cpu = pb_syscall_parse_cpu(arg, NULL);
		if (m->cpu < 0)
			die_usage("%s", pb_error());
		return true;
	case MEM_CLI_OPT_BASE + 20:
		m->warmup_samples = cli_parse_count("warm-up count", arg, 0, 1000);
		return true;
	case MEM_CLI_OPT_BASE + 14: {
		uint64_t v;
		if (pb_parse_size(arg, &v) != 0 || v > 255)
			die_usage("bad memset value '%s' (a byte: 0 to 255, or 0x00 to 0xff)", arg);
		m->value = (int)v;
		m->value_set = true;
		return true;
	}
	case MEM_CLI_OPT_BASE + 15:
		m->fastest_tables = true;
		return true;
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
	opterr = 0;
	int opt;
	while ((opt = cli_getopt_long(argc, argv, ":ho:f:q", mem_cli_options, NULL)) != -1) {
		if (mem_cli_common_option(m, opt, optarg))
			continue;
		if (opt == 'h') {
			usage(stdout);
			return false;
		}
		die_bad_option(cmd, argv, opt);
	}
	return true;
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

/* The default run's short table of kernel crossings (issue 4): null, umask,
 * pipe, pipe-rtt, fork (of this process, which holds the mem suite's
 * buffers by then) and fork-helper (of a small helper), exec-static,
 * exec-dynamic, fault per 4 KiB page, with a small budget each; cases go
 * into the same result document. The notes say what each fork forked. */
static void run_syscall_table(json_t *doc, int cpu, const cpu_set_t *allowed, uint64_t seed)
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
	    .stop = &interrupted,
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
		pb_print_wrapped(stdout, line, 6);
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

int mem_cli_run(struct mem_cli *m)
{
	/* Signals first: a Ctrl-C during set-up still ends in an orderly way. */
	cli_on_stop_signals(on_signal);
	const char *hook = getenv("PRIMBENCH_TEST_SIGINT_AFTER");
	if (hook && *hook)
		sigint_after = atol(hook);

	if (m->min_samples > m->max_samples)
		die_usage("--min-samples %zu is more than --max-samples %zu", m->min_samples,
		          m->max_samples);
	if (pb_cache_overrides_check(m->cache_override_bytes) != 0)
		die_usage("%s", pb_error());
	for (size_t o = 0; o < m->nops; o++) {
		if (m->ops[o] != PB_OP_MEMSET && m->value_set && m->nops == 1)
			die_usage("--value applies to memset only");
		if (m->ops[o] == PB_OP_MEMSET && m->src_offset_set && m->nops == 1)
			die_usage("--src-offset applies to memcpy and memmove only");
	}

	/* Sizes and states are checked before anything is measured. */
	struct pb_size_list sizes;
	if (pb_parse_size_list(m->sizes_arg, 0, MAX_SIZES, &sizes) != 0)
		die_usage("%s", pb_error());
	uint64_t *size_bytes = calloc(sizes.count, sizeof *size_bytes);
	for (size_t i = 0; i < sizes.count; i++) {
		if ((uint64_t)sizes.values[i] > MAX_SIZE_BYTES)
			die_usage(
			    "size %lld in '--sizes %s' is larger than the limit of 4 GiB per call",
			    (long long)sizes.values[i], m->sizes_arg);
		size_bytes[i] = (uint64_t)sizes.values[i];
	}
	enum pb_cache_state states[PB_STATE_COUNT];
	size_t nstates = 0;
	for (const char *p = m->cache_arg;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)len, p);
		enum pb_cache_state st;
		if (pb_cache_state_parse(name, &st) != 0)
			die_usage("%s", pb_error());
		bool dup = false;
		for (size_t i = 0; i < nstates; i++)
			dup |= states[i] == st;
		if (!dup)
			states[nstates++] = st;
		if (!comma)
			break;
		p = comma + 1;
	}

	/* A replay draws its sizes and offsets from a distribution. */
	struct pb_distribution dist = {0};
	struct pb_mem_replay replay = {.batch_calls = REPLAY_BATCH_CALLS, .seed = 1};
	bool replaying = m->distribution_arg != NULL;
	if (!replaying && (m->offsets_arg || m->batch_calls))
		die_usage("--offsets and --batch apply to --distribution only");
	if (replaying) {
		if (m->sizes_set || m->dst_offset_set || m->src_offset_set || m->distances_arg ||
		    m->extent_bytes || m->then_read || m->breakeven || m->scenario || m->counters ||
		    m->unit_set || m->fastest_tables)
			die_usage("--distribution draws sizes and offsets itself: --sizes, "
			          "--dst-offset, --src-offset, --distance, --extent, --then-read, "
			          "--breakeven, --counters, --unit and --fastest do not apply");
		for (size_t i = 0; i < nstates; i++)
			if (states[i] == PB_STATE_FAULT || states[i] == PB_STATE_FAULT_THP ||
			    states[i] == PB_STATE_REPEAT)
				die_usage(
				    "--distribution replays in the hot, l2, llc and dram states, "
				    "not '%s'",
				    pb_cache_state_name(states[i]));
		if (m->offsets_arg && pb_replay_offsets_parse(m->offsets_arg, &replay.offsets) != 0)
			die_usage("%s", pb_error());
		if (m->batch_calls)
			replay.batch_calls = m->batch_calls;
		if (m->seed_set)
			replay.seed = m->seed;
		if (pb_distribution_find(m->distribution_arg, &dist) != 0)
			die_usage("%s", pb_error());
		note_distribution_op(m, &dist);
		replay.dist = &dist;
	}

	/* The placement grid: dst offsets x (src offsets or distances). */
	struct pb_size_list dsts, srcs = {0}, dists = {0};
	if (pb_parse_size_list(m->dst_offsets_arg, 0, 4096, &dsts) != 0)
		die_usage("--dst-offset: %s", pb_error());
	bool use_distance = m->distances_arg != NULL;
	if (use_distance && m->src_offset_set)
		die_usage("--distance cannot be combined with --src-offset");
	/* memmove takes any distance (|distance| < size overlaps: the point);
	 * memcpy's buffers must not overlap. */
	bool move = m->nops == 1 && m->ops[0] == PB_OP_MEMMOVE;
	if (use_distance) {
		if (m->nops != 1 || m->ops[0] == PB_OP_MEMSET)
			die_usage("--distance applies to memcpy and memmove only");
		if (pb_parse_size_list(m->distances_arg, 1, 4096, &dists) != 0)
			die_usage("--distance: %s", pb_error());
	} else if (pb_parse_size_list(m->src_offsets_arg, 0, 4096, &srcs) != 0) {
		die_usage("--src-offset: %s", pb_error());
	}
	for (size_t i = 0; i < dsts.count; i++)
		if (dsts.values[i] >= 4096)
			die_usage("bad --dst-offset %lld: bytes from a page boundary, 0 to 4095",
			          (long long)dsts.values[i]);
	for (size_t i = 0; i < srcs.count; i++)
		if (srcs.values[i] >= 4096)
			die_usage("bad --src-offset %lld: bytes from a page boundary, 0 to 4095",
			          (long long)srcs.values[i]);
	for (size_t i = 0; i < dists.count; i++) {
		int64_t dd = dists.values[i];
		/* Beyond 4 GiB the hot state maps just the two slots' pages, at
		 * any distance the user address space holds (mem.h). */
		uint64_t ad = dd < 0 ? (uint64_t)-dd : (uint64_t)dd;
		unsigned bits = pb_user_address_bits();
		if (ad >= (UINT64_C(1) << bits) - PB_PAGE_BYTES)
			die_usage("bad --distance %lld: beyond the %u-bit user address space",
			          (long long)dd, bits);
		for (size_t si = 0; ad > (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES && si < nstates;
		     si++)
			if (states[si] != PB_STATE_HOT)
				die_usage(
				    "--distance %lld: beyond 4 GiB the hot state only, not '%s'",
				    (long long)dd, pb_cache_state_name(states[si]));
		if (ad > (uint64_t)PB_MEM_DENSE_DISTANCE_MAX_BYTES && m->extent_bytes)
			die_usage("--distance %lld: beyond 4 GiB --extent does not apply",
			          (long long)dd);
		for (size_t z = 0; z < sizes.count && !move; z++)
			if ((dd < 0 ? -dd : dd) < sizes.values[z])
				die_usage(
				    "--distance %lld overlaps a copy of %lld bytes (memcpy needs "
				    "|distance| >= size; overlapping moves are memmove's)",
				    (long long)dd, (long long)sizes.values[z]);
	}
	size_t nsecond = use_distance ? dists.count : srcs.count;
	if (dsts.count * nsecond > 4096)
		die_usage("the offset grid has %zu placements; at most 4096", dsts.count * nsecond);
	size_t nplacements = dsts.count * nsecond;
	struct pb_mem_placement *placements = calloc(nplacements, sizeof *placements);
	for (size_t i = 0, k = 0; i < dsts.count; i++)
		for (size_t j = 0; j < nsecond; j++, k++) {
			placements[k].dst_offset_bytes = (uint64_t)dsts.values[i];
			if (use_distance) {
				placements[k].has_distance = true;
				placements[k].distance_bytes = dists.values[j];
			} else {
				placements[k].src_offset_bytes = (uint64_t)srcs.values[j];
			}
		}
	if (m->extent_bytes) {
		for (size_t z = 0; z < sizes.count; z++)
			if (sizes.values[z] == 0 || m->extent_bytes % (uint64_t)sizes.values[z])
				die_usage("--extent %llu is not a multiple of size %lld",
				          (unsigned long long)m->extent_bytes,
				          (long long)sizes.values[z]);
		for (size_t i = 0; i < nstates; i++)
			if (states[i] != PB_STATE_HOT && states[i] != PB_STATE_DRAM &&
			    states[i] != PB_STATE_REPEAT)
				die_usage(
				    "--extent works with the hot, dram and repeat states, not "
				    "'%s'",
				    pb_cache_state_name(states[i]));
	}
	/* The fault states take the source from a separate prefaulted buffer:
	 * an overlapping memmove cannot be placed there. */
	for (size_t i = 0; move && i < nstates; i++) {
		if (states[i] != PB_STATE_FAULT && states[i] != PB_STATE_FAULT_THP)
			continue;
		for (size_t j = 0; j < dists.count; j++)
			for (size_t z = 0; z < sizes.count; z++)
				if ((dists.values[j] < 0 ? -dists.values[j] : dists.values[j]) <
				    sizes.values[z])
					die_usage(
					    "--distance %lld overlaps a move of %lld bytes, "
					    "which the '%s' state cannot place (its source is "
					    "a separate buffer)",
					    (long long)dists.values[j], (long long)sizes.values[z],
					    pb_cache_state_name(states[i]));
	}

	size_t nk_cap;
	pb_kernels(&nk_cap);
	const struct pb_kernel **kernels[PB_OP_COUNT] = {0};
	size_t nkernels[PB_OP_COUNT] = {0};
	char skipped[PB_OP_COUNT][2048];
	for (size_t o = 0; o < m->nops; o++)
		kernels[o] = calloc(nk_cap, sizeof *kernels[o]);
	resolve_kernels(m, kernels, nkernels, nk_cap, skipped);
	for (size_t o = 0; o < m->nops; o++)
		if (nkernels[o] == 0 && !m->kernels_arg)
			die_usage("no usable %s kernel on this machine", pb_op_name(m->ops[o]));

	char path[4096] = "";
	time_t started = time(NULL);
	if (m->default_out_path)
		default_path(path, sizeof path, started);
	else if (m->out_path && !m->out_path[0])
		die_usage("empty output path in '-o'");
	else if (m->out_path)
		snprintf(path, sizeof path, "%s", m->out_path);
	if (path[0] && pb_output_reserve(path) != 0)
		die_usage("%s", pb_error());

	/* The seed is always recorded, so any run's order can be replayed. */
	uint64_t seed = m->seed;
	if (!seed) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * 1000000007ull) ^ (uint64_t)ts.tv_nsec ^
		       ((uint64_t)getpid() << 32);
		seed = seed ? seed : 1;
	}

	struct pb_cache_info caches;
	pb_cache_detect(&caches, m->cache_override_bytes);
	if (pb_timer_init() != 0)
		die_usage("no usable clock: %s", pb_error());
	cpu_set_t allowed; /* before pinning: where pipe-rtt's partner may go */
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
		CPU_ZERO(&allowed);
	int cpu = cli_pin_cpu(m->cpu);
	if (m->cpu >= 0 && cpu != m->cpu)
		die_usage("--cpu %d: cannot bind to it", m->cpu);
	struct cli_format fmt = {.fmt = m->format};
	cli_format_begin(&fmt);
	if (m->machine_summary)
		pb_print_machine_summary(stdout, &caches);
	fflush(stdout);

	/* Break-even analysis: asked for, or implied by a fine size sweep. */
	if (m->breakeven && sizes.count < 2)
		die_usage("--breakeven needs at least two sizes");
	bool breakeven = !replaying && (m->breakeven || (sizes.count >= 8 && nplacements == 1));
	struct pb_glibc_thresholds glibc = {0};
	if (breakeven)
		pb_glibc_thresholds_read(&glibc);

	json_t *doc = pb_results_new(cli_argc, cli_argv, started, &caches, cpu);
	struct cli_progress progress_line;
	/* Hardware counters, on request; where the machine has none, say so. */
	struct pb_counters counters = {0};
	bool counting = false;
	if (m->counters) {
		counting = pb_counters_open(&counters) == 0;
		json_t *hc = json_object();
		json_object_set_new(hc, "available", json_boolean(counting));
		if (!counting) {
			json_object_set_new(hc, "reason", json_string(counters.reason));
			printf("\n");
			pb_print_wrapped(stdout, counters.reason, 6);
		}
		json_object_set_new(doc, "counters", hc);
	}
	json_object_set_new(doc, "seed", json_integer((json_int_t)(seed & INT64_MAX)));
	struct pb_noise_mark mark;
	pb_noise_begin(&mark, cpu);
	bool was_interrupted = false;
	size_t measured = 0;
	int status = PB_EXIT_OK;
	for (size_t o = 0; o < m->nops && !was_interrupted; o++) {
		enum pb_op op = m->ops[o];
		if (nkernels[o] == 0)
			continue;
		struct pb_mem_params p = {
		    .op = op,
		    .kernels = kernels[o],
		    .n_kernels = nkernels[o],
		    .sizes_bytes = size_bytes,
		    .n_sizes = sizes.count,
		    .states = states,
		    .n_states = nstates,
		    .placements = placements,
		    .n_placements = nplacements,
		    .extent_bytes = m->extent_bytes,
		    .then_read = m->then_read,
		    .precision = m->precision,
		    .warmup_samples = m->warmup_samples,
		    .l1_bytes = caches.level[PB_CACHE_L1D].size_bytes,
		    .l2_bytes = caches.level[PB_CACHE_L2].size_bytes,
		    .value = m->value,
		    .budget_s = m->budget_s,
		    .min_samples = m->min_samples,
		    .max_samples = m->max_samples,
		    .llc_bytes = caches.level[PB_CACHE_LLC].size_bytes,
		    .seed = (seed & INT64_MAX) + o,
		    .stop = &interrupted,
		    .counters = counting ? &counters : NULL,
		    .progress = progress,
		    .progress_ctx = &progress_line,
		};
		cli_progress_start(&progress_line, pb_op_name(op));
		bool has_auto = false;
		for (size_t i = 0; i < nkernels[o]; i++)
			has_auto |= !strcmp(kernels[o][i]->name, "auto");
		if (has_auto) {
			/* Before the run: auto dispatches by the installed policy. */
			cli_auto_setup();
			json_t *ap = json_object_get(doc, "auto_policy");
			if (!ap) {
				ap = json_object();
				json_object_set_new(doc, "auto_policy", ap);
			}
			json_object_set_new(ap, pb_op_name(op), cli_auto_json(op));
		}
		struct pb_mem_result r;
		if (replaying ? pb_mem_replay_run(&p, &replay, &r) != 0 : pb_mem_run(&p, &r) != 0) {
			cli_error("%s", pb_error());
			status = PB_EXIT_USAGE;
			break;
		}
		if (skipped[o][0]) {
			size_t used = strlen(r.notes);
			snprintf(r.notes + used, sizeof r.notes - used, "%s", skipped[o]);
		}
		if (has_auto) {
			printf("\n");
			cli_auto_print(stdout, op);
		}
		if (replaying) {
			if (op == PB_OP_MEMSET)
				printf(
				    "\nmemset value 0x%02x; destinations held 0x%02x before each "
				    "sample\n",
				    m->value & 0xff, pb_mem_prefill_value(op, m->value));
			for (size_t si = 0; si < nstates; si++)
				pb_print_mem_replay(stdout, &r, states[si]);
			goto tables_done;
		}
		if (m->scenario)
			printf("\n%s: %s of 4096 page-aligned bytes, in ticks per page\n",
			       m->scenario, op == PB_OP_MEMSET ? "memset 0" : "memcpy");
		if (op == PB_OP_MEMSET) {
			bool faulting = false, repeating = false; /* not pre-filled */
			for (size_t si = 0; si < nstates; si++) {
				faulting |= states[si] == PB_STATE_FAULT ||
				            states[si] == PB_STATE_FAULT_THP;
				repeating |= states[si] == PB_STATE_REPEAT;
			}
			printf("\nmemset value 0x%02x; destinations held 0x%02x before each "
			       "sample\n%s%s",
			       m->value & 0xff, pb_mem_prefill_value(op, m->value),
			       faulting ? "(fault states: fresh pages, which read as zero)\n" : "",
			       repeating ? "(repeat: what the previous call wrote)\n" : "");
			if (nplacements == 1 && placements[0].dst_offset_bytes)
				printf("dst offset %llu bytes from a page boundary\n",
				       (unsigned long long)placements[0].dst_offset_bytes);
		} else if (nplacements == 1 && !use_distance) {
			printf("\n%s: dst offset %llu, src offset %llu bytes from a page "
			       "boundary\n",
			       pb_op_name(op), (unsigned long long)placements[0].dst_offset_bytes,
			       (unsigned long long)placements[0].src_offset_bytes);
		} else if (nplacements == 1) {
			long long dd = (long long)placements[0].distance_bytes;
			printf("\n%s: dst offset %llu bytes from a page boundary, src = dst %s "
			       "%lld\n",
			       pb_op_name(op), (unsigned long long)placements[0].dst_offset_bytes,
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
		for (size_t si = 0; si < nstates; si++) {
			enum pb_unit u = m->unit_set   ? m->unit
			                 : m->scenario ? PB_UNIT_TICKS_PER_PAGE
			                 : states[si] == PB_STATE_HOT ||
			                         states[si] == PB_STATE_L2 ||
			                         states[si] == PB_STATE_REPEAT
			                     ? PB_UNIT_TICKS_PER_CALL
			                     : PB_UNIT_GB_S;
			if (nplacements > 1) {
				for (size_t z = 0; z < sizes.count; z++) {
					pb_print_mem_grid(stdout, &r, op, states[si], size_bytes[z],
					                  u);
					if (m->then_read)
						pb_print_mem_readback_grid(
						    stdout, &r, op, states[si], size_bytes[z], u);
				}
				continue;
			}
			pb_print_mem_table(stdout, &r, op, states[si], u);
			if (m->then_read)
				pb_print_mem_readback(stdout, &r, op, states[si], u);
			if (m->fastest_tables)
				pb_print_mem_fastest(stdout, &r, op, states[si]);
			if (counting)
				pb_print_mem_counters(stdout, &r, op, states[si]);
			if (breakeven) {
				/* glibc's tunables are mapped for memset and memcpy
				 * (breakeven.c's kernel classes); its memmove is its
				 * memcpy, but the memmove rows are not classified. */
				const struct pb_glibc_thresholds *g =
				    glibc.known && op != PB_OP_MEMMOVE ? &glibc : NULL;
				pb_print_breakeven(stdout, &r, op, states[si], g);
				json_t *be = pb_breakeven_json(&r, op, states[si], g);
				if (be) {
					json_t *arr = json_object_get(doc, "breakeven");
					if (!arr) {
						arr = json_array();
						json_object_set_new(doc, "breakeven", arr);
					}
					json_array_append_new(arr, be);
				}
			}
		}
	tables_done:
		pb_print_mem_quality(stdout, &r);
		fflush(stdout);
		pb_results_add_mem(doc, &r);
		for (size_t i = 0; i < r.n_cases; i++)
			measured += r.cases[i].n_samples > 0;
		was_interrupted = r.interrupted;
		pb_mem_result_free(&r);
	}
	if (counting)
		pb_counters_close(&counters);
	if (m->syscall_table && !was_interrupted && !interrupted && status == PB_EXIT_OK)
		run_syscall_table(doc, cpu, &allowed, seed);
	struct pb_noise noise;
	pb_noise_end(&mark, &noise);
	pb_results_finish(doc, &noise, was_interrupted);
	if (noise.valid) {
		char line[256];
		snprintf(line, sizeof line,
		         "noise: steal %.1f%% of CPU time, other CPUs %.0f%% busy, %ld involuntary "
		         "context switches of the measuring thread (pinned to CPU %d)",
		         noise.steal_pct, noise.other_busy_pct, noise.involuntary_switches, cpu);
		putchar('\n');
		pb_print_wrapped(stdout, line, 7);
		if (noise.steal_pct > 2 || noise.other_busy_pct > 50)
			pb_print_wrapped(stdout,
			                 "noise: HIGH: compare kernels within this run, not across "
			                 "runs",
			                 7);
	}
	/* The default run ends with what it found, from the document as it
	 * will be written (include/primbench/summary.h): `report` prints the
	 * same for the saved file. */
	if (m->syscall_table && measured > 0 && status == PB_EXIT_OK) {
		json_t *sum = pb_summary_build_doc(doc);
		if (sum) {
			if (m->format == PB_FORMAT_TEXT)
				pb_summary_print(stdout, sum);
			json_object_set_new(doc, "summary", sum);
		} else {
			warn("no summary: %s", pb_error());
		}
	}
	if (measured == 0 && !was_interrupted && status == PB_EXIT_OK) {
		cli_error("nothing was measured (see the notes above)");
		status = PB_EXIT_USAGE;
	} else {
		if (path[0])
			status = cli_write_results(doc, path);
		if (cli_format_end(&fmt, doc) != 0) {
			cli_error("%s", pb_error());
			status = PB_EXIT_USAGE;
		}
	}
	json_decref(doc);
	for (size_t o = 0; o < m->nops; o++)
		free(kernels[o]);
	free(size_bytes);
	free(placements);
	pb_size_list_free(&sizes);
	pb_size_list_free(&dsts);
	pb_size_list_free(&srcs);
	pb_size_list_free(&dists);
	pb_distribution_free(&dist);
	if (was_interrupted || interrupted) {
		fflush(stdout);
		if (path[0] && status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", path);
		else
			cli_error("interrupted; the %s above show%s what was measured",
			          m->format == PB_FORMAT_TEXT ? "tables" : "result",
			          m->format == PB_FORMAT_TEXT ? "" : "s");
		return 128 + (interrupted_by ? interrupted_by : SIGINT);
	}
	return status;
}
