/* cmd_mem_map.c - `primbench mem map [OPTIONS]`: map a region of 4K, 2M or
 * 1G pages and fault it, on N threads (include/primbench/map.h). */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/processes.h"
#include "primbench/curve_text.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/map.h"
#include "primbench/pages.h"
#include "primbench/placement.h"
#include "primbench/results.h"
#include "primbench/results_run.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"

static void usage(FILE *f)
{
	fputs("usage: primbench mem map [OPTIONS]\n"
	      "\n"
	      "Maps a region and faults every page of it, each round a fresh region\n"
	      "(munmap not timed): the kernel's page clearing seen from user space.\n"
	      "Reports GB/s, ns per 4 KiB and ns per page for each page size and\n"
	      "thread count (docs/methodology.md \"mem map\").\n"
	      "\n"
	      "  --size BYTES        region per round, all threads together (default\n"
	      "                      1G, cut to half of MemAvailable; a larger --size\n"
	      "                      is an error)\n"
	      "  --pages LIST        4K, 2M, 1G (default 4K,2M,1G); 2M and 1G from\n"
	      "                      hugetlbfs when pages are reserved, 2M else from THP;\n"
	      "                      a size not available is skipped with one line\n"
	      "  --fault MODE        demand (default: one write per page) or populate\n"
	      "                      (the kernel faults the pages at map time)\n"
	      "  --populate          the same as --fault populate\n"
	      "  --threads LIST      thread counts, each faulting its own slice at once:\n"
	      "                      4, 1,2,4 or 1..8 (default 1)\n"
	      "  --placement P       compact (default) or scatter\n"
	      "  --cpu LIST          the CPUs to use (one thread: --cpu N pins it)\n"
	      "  --rounds N          kept rounds per case, shared out between the\n"
	      "                      replicates (default 5)\n"
	      "  --warmup N          rounds per case and replicate run and discarded\n"
	      "                      first (1)\n"
	      "  --replicates R      runs of every case, one after another, each with\n"
	      "                      its own warm-up and regions; figures and CIs are\n"
	      "                      the runs' (default 5, at most --rounds; each\n"
	      "                      keeps --rounds / R)\n"
	      "  --processes N       the replicates in N fresh processes of primbench,\n"
	      "                      one after another (default 1: this one)\n"
	      "  --seed N            seed for the interleaving order\n"
	      "  -o, --output FILE   write the results as JSON (schema v2)\n"
	      "  -f, --format F      text (default), json, csv, markdown or benchfmt\n"
	      "  -q, --quiet         no progress line on stderr\n",
	      f);
}

enum {
	OPT_SIZE = 0x5000,
	OPT_PAGES,
	OPT_FAULT,
	OPT_POPULATE,
	OPT_THREADS,
	OPT_PLACEMENT,
	OPT_CPU,
	OPT_ROUNDS,
	OPT_WARMUP,
	OPT_REPLICATES,
	OPT_PROCESSES,
};

/* --replicates' default: the mem and syscall suites' (docs/statistics.md,
 * "What varies between runs") */
#define MAP_DEFAULT_REPLICATES 5

struct map_opts {
	const char *size_arg, *pages_arg, *fault_arg, *threads_arg, *placement_arg, *cpu_arg;
	const char *out;
	size_t rounds, warmup;
	size_t replicates;   /* --replicates R */
	bool replicates_set; /* given (else lowered to --rounds) */
	size_t processes;    /* --processes N */
	bool populate;
	struct cli_sampling samp;
	struct cli_format fmt;
};

static int pin_worker(void *ctx, unsigned thread)
{
	return pb_placement_pin_thread(NULL, ctx, thread);
}

static void print_table(const struct pb_map_params *p, const struct pb_map_result *r)
{
	char sz[128], head[640];
	/* what the cases map: whole pages of --size per thread, or less */
	pb_map_round_size(r, p->bytes, sz, sizeof sz);
	/* what the timed region holds (docs/methodology.md "Two page-fault
	 * figures"): mmap and munmap are outside it either way */
	const char *fault = p->fault == PB_MAP_POPULATE
	                        ? "populated at map time (mmap timed, munmap not)"
	                        : "demand faults (the first write to every page of a fresh "
	                          "mapping; mmap and munmap not timed)";
	size_t reps = 0; /* the replicates run (fewer than asked when interrupted) */
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].n_replicates > reps)
			reps = r->cases[i].n_replicates;
	if (reps > 1)
		snprintf(head, sizeof head,
		         "mem map: %s, %s, %zu replicates of %zu round%s each (figures: "
		         "the geometric mean of the replicates' medians; 95%% CI: +- the "
		         "half-width of its Student t interval on the replicates' logs, in %% of "
		         "it; spread: (p90 - p10) / median of all rounds)",
		         sz, fault, reps, p->rounds, p->rounds == 1 ? "" : "s");
	else
		snprintf(head, sizeof head,
		         "mem map: %s, %s, %zu rounds (median; spread: p10..p90)", sz, fault,
		         p->rounds);
	bool any = false; /* nothing measured: no table, the skip lines */
	for (size_t i = 0; i < r->n_cases; i++)
		any |= !r->cases[i].skip[0] && r->cases[i].n_samples > 0;
	if (any) {
		pb_print_wrapped_at(stdout, 0, 0, head);
		putchar('\n');
	}
	struct pb_map_row *rows = pb_xcalloc(r->n_cases + 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_map_case *c = &r->cases[i];
		if (c->skip[0] || c->n_samples == 0)
			continue;
		struct pb_map_figures f;
		pb_map_figures_of(c->page_bytes, pb_ticks_to_ns(c->per_page.median), &f);
		const struct pb_summary *s = &c->per_page;
		rows[n++] = (struct pb_map_row){
		    .pages = pb_pages_name(c->page_bytes),
		    .source = pb_pages_source_name(c->source),
		    .threads = c->threads,
		    .gb_per_s = f.gb_per_s,
		    .ns_per_4k = f.ns_per_4k,
		    .ns_per_page = f.ns_per_page,
		    .spread = s->median > 0 ? (s->p90 - s->p10) / s->median : NAN,
		    /* the replicates' interval; one run's few rounds give none */
		    .has_ci = s->replicates > 1 && s->ci_valid && s->median > 0,
		    .ci = s->median > 0 ? (s->ci_hi - s->ci_lo) / 2 / s->median : NAN};
	}
	if (any)
		pb_map_print(stdout, rows, n);
	free(rows);
	bool started = any, first = true; /* started: a blank line before what follows */
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].skip[0] && strstr(r->cases[i].skip, "threads")) {
			if (first && started)
				putchar('\n');
			first = false;
			started = true;
			pb_print_wrapped_at(stdout, 0, 2, r->cases[i].skip);
		}
	if (any && p->fault == PB_MAP_DEMAND) {
		/* the other figure of a fault, and how to measure its case here */
		putchar('\n');
		pb_print_wrapped_at(
		    stdout, 0, 2,
		    "`syscall fault` times the same first write on a few pages of a "
		    "small mapping, pages recycled from the last munmap: `mem map "
		    "--size 8K --pages 4K` (or --size 2M --pages 2M) measures that "
		    "case (docs/methodology.md, \"Two page-fault figures\")");
	}
	if (r->notes[0]) {
		if (started)
			putchar('\n');
		char *copy = strdup(r->notes), *save = NULL;
		for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			pb_print_wrapped_at(stdout, 0, 2, l);
		free(copy);
	}
	fflush(stdout);
}

/* The progress line's "replicate R/N" (pb_map_run_replicates' progress;
 * ctx: the struct cli_progress), when there are two or more. */
static void replicate_progress(void *ctx, size_t rep, size_t replicates)
{
	if (replicates > 1)
		cli_progress_update(ctx, rep, replicates, "replicate");
}

/* --replicates of at least one round each share --rounds (in --processes
 * N processes, each ceil(R / N) of them): exits 2 when they cannot and
 * --replicates was given, else lowers it to fit. */
static void replicates_check(struct map_opts *o)
{
	if (cli_processes_child())
		return;
	size_t p = o->processes ? o->processes : 1, r = o->replicates ? o->replicates : 1;
	if (p > o->rounds)
		die_usage("map: --processes %zu of at least one round each take %zu rounds a case, "
		          "more than --rounds %zu they share: lower --processes or raise --rounds",
		          p, p, o->rounds);
	size_t need = p * ((r + p - 1) / p);
	if (o->replicates_set && need > o->rounds) {
		char in[96] = "";
		if (p > 1)
			snprintf(in, sizeof in, " in --processes %zu (%zu each, %zu in all)", p,
			         (r + p - 1) / p, need);
		die_usage("map: --replicates %zu%s of at least one round each take %zu rounds a "
		          "case, more than --rounds %zu they share: lower --replicates or raise "
		          "--rounds",
		          r, in, need, o->rounds);
	}
	while (r > 1 && p * ((r + p - 1) / p) > o->rounds)
		r--;
	if (r < o->replicates)
		warn("map: --rounds %zu leaves room for %zu replicate%s of at least one round, not "
		     "the default %zu",
		     o->rounds, r, r == 1 ? "" : "s", o->replicates);
	o->replicates = r;
}

/* Parses argv into o (the defaults first). Returns false after --help;
 * exits 2 on bad input. */
static bool parse_options(int argc, char **argv, struct map_opts *o)
{
	static const struct option opts[] = {
	    {"size", required_argument, 0, OPT_SIZE},
	    {"pages", required_argument, 0, OPT_PAGES},
	    {"fault", required_argument, 0, OPT_FAULT},
	    {"populate", no_argument, 0, OPT_POPULATE},
	    {"threads", required_argument, 0, OPT_THREADS},
	    {"placement", required_argument, 0, OPT_PLACEMENT},
	    {"cpu", required_argument, 0, OPT_CPU},
	    {"rounds", required_argument, 0, OPT_ROUNDS},
	    {"warmup", required_argument, 0, OPT_WARMUP},
	    {"replicates", required_argument, 0, OPT_REPLICATES},
	    {"processes", required_argument, 0, OPT_PROCESSES},
	    {"seed", required_argument, 0, CLI_OPT_SEED},
	    CLI_OUTPUT_OPTION,
	    CLI_FORMAT_OPTION,
	    CLI_QUIET_OPTION,
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG(OPT_SIZE, struct map_opts, size_arg),
	    CLI_STORE_ARG(OPT_PAGES, struct map_opts, pages_arg),
	    CLI_STORE_ARG(OPT_FAULT, struct map_opts, fault_arg),
	    CLI_STORE_FLAG(OPT_POPULATE, struct map_opts, populate, true),
	    CLI_STORE_ARG(OPT_THREADS, struct map_opts, threads_arg),
	    CLI_STORE_ARG(OPT_PLACEMENT, struct map_opts, placement_arg),
	    CLI_STORE_ARG(OPT_CPU, struct map_opts, cpu_arg),
	    CLI_STORE_NUMBER(OPT_ROUNDS, struct map_opts, rounds, "--rounds", 1, 100000),
	    CLI_STORE_NUMBER(OPT_WARMUP, struct map_opts, warmup, "--warmup", 0, 1000),
	    CLI_STORE_NUMBER_SET(OPT_REPLICATES, struct map_opts, replicates, replicates_set,
	                         "--replicates", 1, 100),
	    CLI_STORE_NUMBER(OPT_PROCESSES, struct map_opts, processes, "--processes", 1, 100),
	    {0},
	};
	*o = (struct map_opts){.rounds = 5,
	                       .warmup = 1,
	                       .replicates = MAP_DEFAULT_REPLICATES,
	                       .processes = 1,
	                       .fmt = {.fmt = PB_FORMAT_TEXT}};
	const struct cli_common common = {
	    .out_path = &o->out, .fmt = &o->fmt, .sampling = &o->samp, .stores = stores};
	if (!cli_parse_options("map", argc, argv, ":ho:f:q", opts, NULL, o, &common, usage))
		return false;
	cli_no_operands("map", opts, argc, argv);
	return true;
}

/* --pages and --fault (or --populate) into p. Exits 2 on bad input. */
static void plan_pages(const struct map_opts *o, struct pb_map_params *p)
{
	if (pb_pages_parse(o->pages_arg ? o->pages_arg : "4K,2M,1G", p->page_sizes,
	                   &p->n_page_sizes) != 0)
		die_usage("map: --pages: %s", pb_error());
	p->fault = o->populate ? PB_MAP_POPULATE : PB_MAP_DEMAND;
	if (o->fault_arg) {
		if (pb_map_fault_parse(o->fault_arg, &p->fault) != 0)
			die_usage("map: --fault: %s", pb_error());
		if (o->populate && p->fault != PB_MAP_POPULATE)
			die_usage("map: --populate and --fault %s disagree", o->fault_arg);
	}
}

/* --threads into counts[0..64) (p->threads points to it), then --placement
 * and --cpu into *plan for the most of them, whose workers p pins. Exits 2
 * on bad input. */
static void plan_threads(const struct map_opts *o, struct pb_map_params *p, unsigned *counts,
                         struct pb_placement_plan *plan)
{
	struct pb_size_list tl = {0};
	if (pb_parse_size_list(o->threads_arg ? o->threads_arg : "1", 0, 64, &tl) != 0)
		die_usage("map: --threads: %s", pb_error());
	unsigned max_threads = 1;
	for (size_t i = 0; i < tl.count; i++) {
		if (tl.values[i] < 1 || tl.values[i] > PB_MAP_MAX_THREADS)
			die_usage("map: --threads %s: a count from 1 to %d", o->threads_arg,
			          PB_MAP_MAX_THREADS);
		counts[i] = (unsigned)tl.values[i];
		for (size_t j = 0; j < i; j++)
			if (counts[j] == counts[i])
				die_usage("map: --threads %s: %u is listed twice", o->threads_arg,
				          counts[i]);
		if (counts[i] > max_threads)
			max_threads = counts[i];
	}
	p->threads = counts;
	p->n_threads = tl.count;
	pb_size_list_free(&tl);
	enum pb_placement placement = PB_PLACEMENT_COMPACT;
	if (o->placement_arg && pb_placement_parse(o->placement_arg, &placement) != 0)
		die_usage("map: --placement: %s", pb_error());
	if (pb_placement_plan(NULL, o->cpu_arg, placement, max_threads, plan) != 0)
		die_usage("map: %s", pb_error());
	p->pinning = (struct pb_harness_pinning){.pin = pin_worker, .pin_ctx = plan};
}

/* --size (or the default) into *size. Exits 2 on bad input. */
static void parse_size(const struct map_opts *o, uint64_t *size)
{
	*size = PB_MAP_DEFAULT_BYTES;
	if (o->size_arg && pb_parse_size(o->size_arg, size) != 0)
		die_usage("map: --size: %s", pb_error());
	if (*size < 4096 || *size > SIZE_MAX / 2)
		die_usage("map: bad --size '%s' (4K to half the memory)", o->size_arg);
}

/* The region of a round into p->bytes: `size`, cut to half of
 * MemAvailable (*capped) when --size was not given; a --size given that
 * is more exits 2. */
static void plan_size(const struct map_opts *o, uint64_t size, struct pb_map_params *p,
                      bool *capped)
{
	uint64_t avail = pb_map_mem_available();
	p->bytes = pb_map_size_cap((size_t)size, avail, capped);
	if (*capped && o->size_arg) {
		/* a size asked for that cannot be mapped: not measured smaller */
		char a[32], b[32];
		/* the most, as a --size that parses: whole 1G (else 2M, 4K)
		 * pages */
		size_t unit = p->bytes >= PB_PAGE_1G   ? PB_PAGE_1G
		              : p->bytes >= PB_PAGE_2M ? PB_PAGE_2M
		                                       : PB_PAGE_4K;
		pb_format_bytes(a, sizeof a, (double)avail, PB_BYTES_IEC);
		pb_format_bytes(b, sizeof b, (double)(p->bytes / unit * unit), PB_BYTES_EXACT);
		die_usage("map: --size %s is more than half of MemAvailable (%s): at most %s",
		          o->size_arg, a, b);
	}
	if (*capped) /* whole 4K pages: what the 4K cases map */
		p->bytes -= p->bytes % PB_PAGE_4K;
}

/* --processes N: the replicates in N fresh processes (cli/processes.h).
 * Returns the exit status. */
static int run_processes(const struct map_opts *o, struct pb_placement_plan *plan)
{
	if (o->out && pb_output_reserve(o->out) != 0)
		die_usage("map: %s", pb_error());
	pb_placement_plan_free(plan);
	struct cli_processes cp = {
	    .n = o->processes,
	    .replicates_each = (o->replicates + o->processes - 1) / o->processes,
	    .min_samples = 1,
	    .max_samples = o->rounds,
	    .seed = o->samp.seed ? o->samp.seed : (uint64_t)time(NULL) * 2654435761u,
	    .rounds_option = "--rounds",
	    .out_path = o->out,
	    .format = o->fmt.fmt,
	};
	return cli_processes_run(&cp);
}

/* The lines before the measuring: the size cut to half of MemAvailable
 * (also into capline, for the file's notes), what each case maps when
 * --size is not a whole number of its pages per thread, more threads than
 * CPUs. */
static void print_plan(const struct pb_map_params *p, const struct pb_placement_plan *plan,
                       uint64_t size, bool capped, char *capline, size_t caplen)
{
	if (capped) {
		char a[32], b[32];
		pb_format_bytes(a, sizeof a, (double)size, PB_BYTES_EXACT);
		pb_format_bytes(b, sizeof b, (double)p->bytes, PB_BYTES_EXACT);
		snprintf(capline, caplen,
		         "--size %s is more than half of MemAvailable: %s per round", a, b);
		printf("mem map: %s\n", capline);
	}
	/* What each (page size, thread count) case maps when --size is not a
	 * whole number of its pages per thread (pb_map_split: the suite's own
	 * accounting), so that the table's figures are read over that. */
	for (size_t i = 0; i < p->n_page_sizes; i++)
		for (size_t j = 0; j < p->n_threads; j++) {
			uint64_t pages;
			size_t mapped;
			size_t pg = p->page_sizes[i];
			if (!pb_map_split(p->bytes, pg, p->threads[j], &pages, &mapped) ||
			    mapped == p->bytes)
				continue;
			char a[32], b[32], c[32], t[32] = "";
			pb_format_bytes(a, sizeof a, (double)p->bytes, PB_BYTES_EXACT);
			pb_format_bytes(b, sizeof b, (double)pg, PB_BYTES_EXACT);
			pb_format_bytes(c, sizeof c, (double)mapped, PB_BYTES_EXACT);
			if (p->threads[j] > 1)
				snprintf(t, sizeof t, " on %u threads", p->threads[j]);
			printf("mem map: %s is not a multiple of %s%s: %s pages%s map %s\n", a, b,
			       *t ? " per thread" : "", b, t, c);
		}
	if (plan->oversubscribed) {
		char d[160];
		if (pb_placement_describe(plan, d, sizeof d) >= 0) {
			char *t = pb_xasprintf(
			    "mem map: more threads than CPUs, they share CPUs (%s)", d);
			pb_print_wrapped_at(stdout, 0, 2, t);
			free(t);
		}
	}
}

/* Every case in `reps` replicates (include/primbench/replicates.h: every
 * case again, in a row, each with its warm-up, fresh regions and another
 * interleaving; the rounds shared out) under the progress line, into *r;
 * the host's page reporting over the run a note of r when it measured
 * something. Exits 2 on the suite's error. */
static void measure(const struct pb_map_params *p, size_t reps, struct pb_map_result *r)
{
	struct cli_progress line;
	cli_progress_start(&line, "mem map");
	struct pb_page_reporting rep_before, rep_after;
	pb_page_reporting_read("/sys", &rep_before);
	if (pb_map_run_replicates(p, reps, replicate_progress, &line, r) != 0)
		die_usage("map: %s", pb_error());
	pb_page_reporting_read("/sys", &rep_after);
	bool measured = false;
	for (size_t i = 0; i < r->n_cases; i++)
		measured |= r->cases[i].n_samples > 0;
	char rline[512];
	/* the host's page reporting: a note on what was measured, if any */
	if (measured && pb_page_reporting_note(&rep_before, &rep_after, rline, sizeof rline) > 0) {
		size_t used = strlen(r->notes);
		snprintf(r->notes + used, sizeof r->notes - used, "%s\n", rline);
	}
	cli_progress_done(&line);
}

/* The table of r (a replicate's rounds in its heading), or, nothing
 * measured and no stop, the one error line; then the result document
 * (capline among its notes) to -o and in -f's format. Returns the exit
 * status. */
static int print_and_write(struct pb_session *s, struct cli_format *fmt,
                           const struct pb_map_params *p, size_t reps, struct pb_map_result *r,
                           const char *capline, bool stopped)
{
	bool measured = false;
	for (size_t i = 0; i < r->n_cases; i++)
		measured |= r->cases[i].n_samples > 0;
	if (!measured && !stopped) {
		/* every case skipped: why, on the one error line (stdout may be
		 * a file's format, or nowhere) */
		char why[2048];
		pb_map_nothing_line(r, why, sizeof why);
		cli_error("map: %s", why);
		return PB_EXIT_USAGE;
	}
	struct pb_map_params rp; /* a replicate's: its rounds for the heading */
	pb_map_replicate_params(p, 0, reps, &rp);
	print_table(&rp, r);
	if (!s->doc)
		return PB_EXIT_OK;
	pb_map_result_to_doc(s->doc, r);
	if (capline[0])
		pb_results_add_doc_notes(s->doc, "map: ", capline);
	pb_session_finish(s, r->interrupted || pb_session_stopped(s));
	return cli_session_output(s, fmt, PB_EXIT_OK);
}

int cmd_mem_map(int argc, char **argv)
{
	struct map_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	struct pb_map_params p = {.rounds = o.rounds, .warmup = o.warmup};
	unsigned counts[64];
	struct pb_placement_plan plan = {0};
	uint64_t size;
	bool capped;
	parse_size(&o, &size);
	plan_pages(&o, &p);
	plan_threads(&o, &p, counts, &plan);
	plan_size(&o, size, &p, &capped);
	/* last: its warning (fewer replicates than the default) is for a
	 * command line that runs, never before another check's error */
	replicates_check(&o);
	cli_parse_done();
	if (o.processes > 1)
		return run_processes(&o, &plan);

	struct pb_session s;
	struct pb_session_params sp; /* the one-thread case runs on the plan's first CPU */
	cli_session_params(&sp, (int)plan.threads[0].os_cpu, o.samp.seed,
	                   o.out || o.fmt.fmt != PB_FORMAT_TEXT, o.out);
	if (pb_session_begin(&sp, &s) != 0)
		die_usage("map: %s", pb_error());
	p.seed = s.seed;
	p.stop = pb_session_stop_flag(&s);
	cli_format_begin(&o.fmt);
	char capline[160] = "";
	print_plan(&p, &plan, size, capped, capline, sizeof capline);
	struct pb_map_result r;
	size_t reps = o.replicates ? o.replicates : 1;
	measure(&p, reps, &r);
	bool stopped = r.interrupted || pb_session_stopped(&s);
	int status = print_and_write(&s, &o.fmt, &p, reps, &r, capline, stopped);
	stopped = stopped || pb_session_stopped(&s);
	pb_map_result_free(&r);
	pb_placement_plan_free(&plan);
	if (stopped) {
		if (!cli_processes_child()) /* else the parent says it */
			cli_error("interrupted; what was measured is above");
		status = pb_session_exit_status(&s);
	}
	pb_session_end(&s);
	return status;
}
