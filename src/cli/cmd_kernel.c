/* cmd_kernel.c - `primbench kernel OPS [OPTIONS]`: clear_page,
 * copy_page, kernel_fpu_begin/end (fpu) and user-copy (user_copy)
 * variants timed in kernel context by primbench's module through
 * /dev/primbench (include/primbench/kernel_suite.h, docs/kernel.md), the
 * cases of every listed op interleaved in one run. The module is never
 * loaded from here: its absence is one line saying how. */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernel_suite.h"
#include "primbench/kernel_text.h"
#include "primbench/kernel_vs_user.h"
#include "primbench/machine.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/session.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/timer.h"

/* Also declared in cli.h; repeated so this file builds before that line. */
int cmd_kernel(int argc, char **argv);

static void usage(FILE *f)
{
	fputs("usage: primbench kernel OPS [OPTIONS]\n"
	      "       primbench kernel --list [--device PATH]\n"
	      "       primbench kernel --vs-user FILE... [-f text|markdown|csv|json]\n"
	      "\n"
	      "Times kernel routines in kernel context through primbench's module. OPS\n"
	      "is a comma list of:\n"
	      "  clear_page   the kernel's clear_page (and _orig, _rep, _erms) and the\n"
	      "               module's (rep stosb/stosq, unrolled, movnti, SSE2/AVX2/\n"
	      "               AVX-512 stores inside kernel_fpu_begin/end, clzero)\n"
	      "  copy_page    the kernel's copy_page and the module's (rep movsb/movsq,\n"
	      "               unrolled, movnti, SSE2/AVX2/AVX-512, temporal and NT)\n"
	      "  fpu          kernel_fpu_begin/end itself (begin_end, save_restore, timed\n"
	      "               in the kernel) and an ioctl with and without it (ioctl_null,\n"
	      "               ioctl_fpu, timed from user space), by upper state\n"
	      "  user_copy    copy_to_user, copy_from_user, clear_user of SIZE bytes\n"
	      "or all (every op the module has). The cases of every listed op run\n"
	      "interleaved in one run, with preemption off around each timed batch, each\n"
	      "variant past the module's correctness check first; with fpu and clear_page\n"
	      "or copy_page the SIMD break-even is computed. Needs primbench's module\n"
	      "loaded (primbench never loads it): `make kmod`, then `sudo insmod\n"
	      "kmod/primbench_kmod.ko` (docs/kernel.md). Figures are TSC ticks.\n"
	      "\n"
	      "  --device PATH       the module's device (default " PB_KMOD_DEVICE ")\n"
	      "  --list              the module's variants by op (available or why not)\n"
	      "                      and limits\n"
	      "  --vs-user FILE...   kernel figures beside user space's, from result files\n"
	      "                      (a `primbench kernel` file; mem files with clear_page\n"
	      "                      or copy_page cases; an xsave file): clear_page and\n"
	      "                      copy_page at 4 KiB (kernel hot/flushed against mem\n"
	      "                      hot/dram, ns per page and kernel/user),\n"
	      "                      kernel_fpu_begin/end and the ioctl round trip against\n"
	      "                      xsave's pairs, the break-even; needs no module\n"
	      "  --variants LIST     comma-separated names, looked up in every listed op\n"
	      "                      (default: every available one)\n"
	      "  --pages LIST        clear_page, copy_page: 4K and/or 2M (default 4K,2M)\n"
	      "  --cache LIST        clear_page, copy_page, user_copy: hot and/or flushed\n"
	      "                      (default hot,flushed)\n"
	      "  --sizes LIST        user_copy: bytes per call, 1 to the module's\n"
	      "                      max_user_bytes (default 64,256,1K,4K,64K,1M,32M)\n"
	      "  --upper LIST        fpu: clean, dirty, dirty512 (default clean,dirty and\n"
	      "                      dirty512 where the CPU and the OS have the state)\n"
	      "  --irqs-off          interrupts off around each batch too (TIME requests;\n"
	      "                      not ioctl_null, ioctl_fpu)\n"
	      "  --budget SECONDS    time once every case has --min-samples (default 2)\n"
	      "  --min-samples N     per case (default 11); --max-samples N (default "
	      "201)\n"
	      "  --seed N            seed for the interleaving order\n"
	      "  --replicates R      runs of every case, one after another, the budget "
	      "and\n"
	      "                      --max-samples shared out; figures and CIs are the\n"
	      "                      runs' (default 5)\n"
	      "  --cpu N             measure on CPU N (default: the quietest by a noise probe)\n"
	      "  -o, --output FILE   write the results as JSON (schema v2)\n"
	      "  -f, --format F      print the result as text (default), json, csv,\n"
	      "                      markdown or benchfmt (docs/formats.md)\n"
	      "  -q, --quiet         accepted as by every suite (no progress line)\n"
	      "\n"
	      "Exit status: 0 measured (or --list, --vs-user); 2 a bad option, an\n"
	      "unreadable or malformed file (--vs-user), no module (device absent, not\n"
	      "primbench's, another ABI version, no permission), a variant not available\n"
	      "or failing its correctness check, a module error, or not an x86-64 build;\n"
	      "130 (143 for SIGTERM) interrupted: what was measured is kept and written.\n",
	      f);
}

enum {
	OPT_DEVICE = 256,
	OPT_LIST,
	OPT_VARIANTS,
	OPT_PAGES,
	OPT_CACHE,
	OPT_IRQS_OFF,
	OPT_CPU,
	OPT_REPLICATES,
	OPT_SIZES,
	OPT_UPPER,
	OPT_VS_USER
};

#define KERNEL_DEFAULT_REPLICATES 5

static const struct option options[] = {
    CLI_SAMPLING_OPTIONS,
    {"device", required_argument, 0, OPT_DEVICE},
    {"list", no_argument, 0, OPT_LIST},
    {"variants", required_argument, 0, OPT_VARIANTS},
    {"pages", required_argument, 0, OPT_PAGES},
    {"cache", required_argument, 0, OPT_CACHE},
    {"irqs-off", no_argument, 0, OPT_IRQS_OFF},
    {"cpu", required_argument, 0, OPT_CPU},
    {"replicates", required_argument, 0, OPT_REPLICATES},
    {"sizes", required_argument, 0, OPT_SIZES},
    {"upper", required_argument, 0, OPT_UPPER},
    {"vs-user", no_argument, 0, OPT_VS_USER},
    CLI_OUTPUT_OPTION,
    CLI_FORMAT_OPTION,
    CLI_QUIET_OPTION,
    CLI_HELP_OPTION,
    {0, 0, 0, 0},
};

struct kernel_opts {
	struct cli_sampling samp;
	const char *device, *variants, *pages, *cache, *cpu, *sizes_arg, *upper_arg;
	const char *ops_arg;
	uint32_t ops; /* PB_KOP_BIT, by name (all: every op) */
	bool list, irqs_off, vs_user;
	size_t replicates;
	bool replicates_set;
	const char *out;
	struct cli_format fmt;
	uint32_t orders[2], states[2];
	size_t n_orders, n_states;
	uint64_t sizes[PB_KERNEL_MAX_SIZES];
	size_t n_sizes;
	uint32_t uppers[PB_KU_COUNT];
	size_t n_uppers;
};

#define KERNEL_DEFAULT_SIZES "64,256,1K,4K,64K,1M,32M"

/* --sizes: mem's parser, each size 1 or more (the module's max_user_bytes
 * is checked once INFO is read). */
static void parse_sizes(struct kernel_opts *o)
{
	const char *arg = o->sizes_arg ? o->sizes_arg : KERNEL_DEFAULT_SIZES;
	struct pb_size_list l;
	if (pb_parse_size_list(arg, 0, PB_KERNEL_MAX_SIZES, &l) != 0)
		die_usage("%s", pb_error());
	if (!l.count)
		die_usage("empty --sizes list");
	for (size_t i = 0; i < l.count; i++) {
		if (l.values[i] < 1)
			die_usage("size %lld in '--sizes %s': user_copy copies 1 byte or more",
			          (long long)l.values[i], arg);
		o->sizes[i] = (uint64_t)l.values[i];
	}
	o->n_sizes = l.count;
	pb_size_list_free(&l);
}

/* --upper names (whether the CPU has them: upper_check). */
static void parse_upper(struct kernel_opts *o)
{
	if (!o->upper_arg)
		return;
	if (pb_kmod_list_has_empty_item(o->upper_arg))
		die_usage("bad --upper '%s': empty item", o->upper_arg);
	char *copy = strdup(o->upper_arg);
	if (!copy)
		die_usage("out of memory");
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		uint32_t u = 0;
		while (u < PB_KU_COUNT && strcmp(w, pb_kernel_upper_name(u)))
			u++;
		if (u == PB_KU_COUNT)
			die_usage("bad --upper '%s' (clean, dirty and/or dirty512)", w);
		for (size_t j = 0; j < o->n_uppers; j++)
			if (o->uppers[j] == u)
				die_usage("--upper: '%s' twice", w);
		o->uppers[o->n_uppers++] = u;
	}
	free(copy);
	if (!o->n_uppers)
		die_usage("empty --upper list (clean, dirty and/or dirty512)");
}

/* The upper states against the CPU (after the architecture's check): an
 * asked one it lacks is an error, the default takes what it has. */
static void upper_check(struct kernel_opts *o)
{
	const char *why = NULL;
	if (o->upper_arg) {
		for (size_t j = 0; j < o->n_uppers; j++)
			if (!pb_kernel_upper_possible(o->uppers[j], &why))
				die_usage("--upper %s: %s", pb_kernel_upper_name(o->uppers[j]),
				          why);
		return;
	}
	o->n_uppers = 0;
	for (uint32_t u = 0; u < PB_KU_COUNT; u++)
		if (pb_kernel_upper_possible(u, NULL))
			o->uppers[o->n_uppers++] = u;
}

/* A comma-separated list of `what` among names[0..2) into out (no
 * repeats); exits 2 naming opt otherwise. Returns the count. */
static size_t parse_pair(const char *opt, const char *list, const char *const names[2],
                         const uint32_t values[2], uint32_t *out)
{
	if (pb_kmod_list_has_empty_item(list))
		die_usage("bad %s '%s': empty item", opt, list);
	char *copy = strdup(list);
	if (!copy)
		die_usage("out of memory");
	size_t n = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int k = !strcasecmp(w, names[0]) ? 0 : !strcasecmp(w, names[1]) ? 1 : -1;
		if (k < 0)
			die_usage("bad %s '%s' (%s and/or %s)", opt, w, names[0], names[1]);
		for (size_t j = 0; j < n; j++)
			if (out[j] == values[k])
				die_usage("%s: '%s' twice", opt, w);
		out[n++] = values[k];
	}
	free(copy);
	if (!n)
		die_usage("empty %s list (%s and/or %s)", opt, names[0], names[1]);
	return n;
}

static bool parse_options(int argc, char **argv, struct kernel_opts *o)
{
	*o = (struct kernel_opts){.samp = {.budget_s = 2.0, .min_samples = 11, .max_samples = 201},
	                          .device = PB_KMOD_DEVICE,
	                          .replicates = KERNEL_DEFAULT_REPLICATES,
	                          .fmt = {.fmt = PB_FORMAT_TEXT}};
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG(OPT_DEVICE, struct kernel_opts, device),
	    CLI_STORE_FLAG(OPT_LIST, struct kernel_opts, list, true),
	    CLI_STORE_FLAG(OPT_VS_USER, struct kernel_opts, vs_user, true),
	    CLI_STORE_ARG(OPT_VARIANTS, struct kernel_opts, variants),
	    CLI_STORE_ARG(OPT_PAGES, struct kernel_opts, pages),
	    CLI_STORE_ARG(OPT_CACHE, struct kernel_opts, cache),
	    CLI_STORE_FLAG(OPT_IRQS_OFF, struct kernel_opts, irqs_off, true),
	    CLI_STORE_ARG(OPT_CPU, struct kernel_opts, cpu),
	    CLI_STORE_ARG(OPT_SIZES, struct kernel_opts, sizes_arg),
	    CLI_STORE_ARG(OPT_UPPER, struct kernel_opts, upper_arg),
	    CLI_STORE_NUMBER_SET(OPT_REPLICATES, struct kernel_opts, replicates, replicates_set,
	                         "--replicates", 1, 100),
	    {0},
	};
	const struct cli_common common = {
	    .out_path = &o->out, .fmt = &o->fmt, .sampling = &o->samp, .stores = stores};
	if (!cli_parse_options("kernel", argc, argv, ":ho:f:q", options, NULL, o, &common, usage))
		return false;
	if (o->vs_user) {
		/* the arguments are result files; only -f applies */
		if (optind >= argc)
			die_usage(
			    "--vs-user needs result files (a `primbench kernel` file, mem and "
			    "xsave files)");
		if (o->list || o->out || o->variants || o->pages || o->cache || o->irqs_off ||
		    o->sizes_arg || o->upper_arg || o->cpu || o->replicates_set ||
		    strcmp(o->device, PB_KMOD_DEVICE) != 0)
			die_usage("--vs-user reads result files: it takes -f only");
		return true;
	}
	if (optind < argc) {
		o->ops_arg = argv[optind];
		o->ops = pb_kmod_parse_ops(NULL, o->ops_arg);
		if (!o->ops)
			die_usage("%s", pb_error());
	}
	if (optind + 1 < argc)
		die_usage("unexpected argument '%s'", argv[optind + 1]);
	if (optind >= argc && !o->list)
		die_usage("an op is needed: clear_page, copy_page, fpu, user_copy or all (try "
		          "'primbench kernel --help')");
	bool pages_ops = o->ops & (PB_KOP_BIT(PB_KOP_CLEAR_PAGE) | PB_KOP_BIT(PB_KOP_COPY_PAGE));
	if (o->ops && o->pages && !pages_ops)
		die_usage("--pages is clear_page's and copy_page's: '%s' has neither", o->ops_arg);
	if (o->ops && o->cache && !pages_ops && !(o->ops & PB_KOP_BIT(PB_KOP_USER_COPY)))
		die_usage("--cache is clear_page's, copy_page's and user_copy's: '%s' has none",
		          o->ops_arg);
	if (o->ops && o->sizes_arg && !(o->ops & PB_KOP_BIT(PB_KOP_USER_COPY)))
		die_usage("--sizes is user_copy's: '%s' does not list it", o->ops_arg);
	if (o->ops && o->upper_arg && !(o->ops & PB_KOP_BIT(PB_KOP_FPU)))
		die_usage("--upper is fpu's: '%s' does not list it", o->ops_arg);
	if (!*o->device)
		die_usage("empty --device path");
	static const char *const page_names[2] = {"4K", "2M"}, *const cache_names[2] = {"hot",
	                                                                                "flushed"};
	static const uint32_t page_values[2] = {PB_KMOD_ORDER_4K, PB_KMOD_ORDER_2M},
	                      cache_values[2] = {PB_KS_HOT, PB_KS_FLUSHED};
	o->n_orders = parse_pair("--pages", o->pages ? o->pages : "4K,2M", page_names, page_values,
	                         o->orders);
	o->n_states = parse_pair("--cache", o->cache ? o->cache : "hot,flushed", cache_names,
	                         cache_values, o->states);
	parse_sizes(o);
	parse_upper(o);
	cli_sampling_check(&o->samp);
	return true;
}

/* The module's tsc_khz against the user-side timer's rate: a note when
 * they differ by more than 1% (one of them is not the TSC's rate). */
static void tsc_note(struct pb_kernel_result *r)
{
	const struct pb_timer_info *t = pb_timer_info();
	if (t->clock != PB_CLOCK_TSC || !(t->hz > 0) || !r->info.tsc_khz)
		return;
	double khz = (double)r->info.tsc_khz, ours = t->hz / 1e3;
	if (fabs(khz - ours) <= 0.01 * ours)
		return;
	pb_kernel_note(r,
	               "the module's tsc_khz %.0f and primbench's timer (%.0f kHz) differ by "
	               "%.1f%%: ns and GB/s use the module's",
	               khz, ours, 100 * (khz - ours) / ours);
}

/* A hypervisor guest: its timings are of a virtual CPU. */
static void guest_note(struct pb_kernel_result *r)
{
	struct pb_cpu_ident id;
	pb_cpu_ident(&id);
	if (!id.hypervisor)
		return;
	pb_kernel_note(r,
	               "a hypervisor guest%s%s%s: the figures are the virtual CPU's as the "
	               "hypervisor ran it (under emulation they say nothing of real hardware)",
	               id.hypervisor_vendor[0] ? " (" : "", id.hypervisor_vendor,
	               id.hypervisor_vendor[0] ? ")" : "");
}

static void print_notes(const struct pb_kernel_result *r)
{
	char copy[sizeof r->notes];
	snprintf(copy, sizeof copy, "%s", r->notes);
	char *save = NULL;
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		pb_print_wrapped_at(stdout, 0, 2, l);
	size_t outl = 0, n = 0;
	unsigned mig = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		outl += r->cases[i].outliers;
		n += r->cases[i].n_samples;
		mig += r->cases[i].migrations;
	}
	bool user = false;
	for (size_t i = 0; i < r->n_cases; i++)
		user |= r->cases[i].user_timed;
	printf("%zu sample%s, %zu outlier%s (kept), %u migration%s (dropped); the module's "
	       "overhead %.0f ticks subtracted%s\n",
	       n, pb_plural(n), outl, pb_plural(outl), mig, pb_plural(mig), r->overhead_ticks,
	       user ? " (not from ioctl_null, ioctl_fpu: timed from user space)" : "");
}

/* "correctness: N variants checked" and the skipped page sizes; flushed, so
 * that the line is seen (in a file or pipe too) before the timing starts. */
static void print_checks(const struct pb_kernel_result *r, size_t nv)
{
	size_t ok = 0;
	for (size_t i = 0; i < r->n_checks; i++)
		ok += r->checks[i].ok;
	printf("\ncorrectness: %zu variant%s checked (%zu of %zu checks passed", nv, pb_plural(nv),
	       ok, r->n_checks);
	if (ok < r->n_checks)
		printf("; the rest could not get their pages");
	printf(")\n");
	fflush(stdout);
}

/* Runs the suite on the open device. Returns the exit status. */
static int measure(struct kernel_opts *o, struct pb_kmod_dev *dev, const struct pb_kmod_info *in,
                   const uint32_t *vars, size_t nv, int want_cpu, const char *notes)
{
	struct pb_session s;
	struct pb_session_params sp;
	cli_session_params(&sp, want_cpu, o->samp.seed, true, o->out);
	if (pb_session_begin(&sp, &s) != 0) {
		cli_error("%s", pb_error());
		pb_session_end(&s);
		return PB_EXIT_USAGE;
	}
	cli_format_begin(&o->fmt);
	pb_print_machine_summary(stdout, &s.caches);
	printf("\nmodule    %s %s (ABI %u) on Linux %s, tsc_khz %llu, via %s\n", PB_KMOD_NAME,
	       in->module_version, in->abi_version, in->release, (unsigned long long)in->tsc_khz,
	       o->device);
	fflush(stdout);
	struct pb_kernel_result r = {.info = *in};
	snprintf(r.notes, sizeof r.notes, "%s", notes);
	tsc_note(&r);
	guest_note(&r);
	const struct pb_kernel_params p = {
	    .variants = vars,
	    .n_variants = nv,
	    .orders = o->orders,
	    .n_orders = o->n_orders,
	    .states = o->states,
	    .n_states = o->n_states,
	    .sizes = o->sizes,
	    .n_sizes = o->n_sizes,
	    .uppers = o->uppers,
	    .n_uppers = o->n_uppers,
	    .irqs_off = o->irqs_off,
	    .budget_s = o->samp.budget_s,
	    .min_samples = o->samp.min_samples,
	    .max_samples = o->samp.max_samples,
	    .warmup_samples = 1,
	    .seed = s.seed,
	    .stop = pb_session_stop_flag(&s),
	};
	int status = PB_EXIT_OK;
	if (pb_kernel_check(dev, &p, &r) != 0 ||
	    (print_checks(&r, nv), pb_kernel_run_replicates(dev, &p, o->replicates, &r) != 0)) {
		fflush(stdout);
		cli_error("%s", pb_error());
		pb_kernel_result_free(&r);
		pb_session_end(&s);
		return PB_EXIT_USAGE;
	}
	pb_print_kernel_tables(stdout, &r);
	putchar('\n');
	print_notes(&r);
	fflush(stdout);
	if (pb_results_add_kernel(s.doc, &r) != 0) {
		cli_error("%s", pb_error());
		pb_kernel_result_free(&r);
		pb_session_end(&s);
		return PB_EXIT_USAGE;
	}
	size_t measured = 0;
	for (size_t i = 0; i < r.n_cases; i++)
		measured += r.cases[i].n_samples > 0;
	bool interrupted = r.interrupted || pb_session_stopped(&s);
	pb_kernel_result_free(&r);
	pb_session_finish(&s, interrupted);
	if (measured == 0 && !interrupted) {
		cli_error("nothing was measured (see the notes above)");
		pb_session_end(&s);
		return PB_EXIT_USAGE;
	}
	status = cli_session_output(&s, &o->fmt, status);
	if (interrupted) {
		fflush(stdout);
		if (o->out && status == PB_EXIT_OK)
			cli_error("interrupted; what was measured is in %s", o->out);
		else
			cli_error("interrupted; the %s above show%s what was measured",
			          o->fmt.fmt == PB_FORMAT_TEXT ? "tables" : "result",
			          o->fmt.fmt == PB_FORMAT_TEXT ? "" : "s");
		status = pb_session_exit_status(&s);
	}
	pb_session_end(&s);
	return status;
}

int cmd_kernel(int argc, char **argv)
{
	struct kernel_opts o;
	if (!parse_options(argc, argv, &o))
		return PB_EXIT_OK;
	if (o.vs_user) {
		cli_parse_done();
		if (pb_kernel_vs_user((const char *const *)argv + optind, (size_t)(argc - optind),
		                      pb_format_name(o.fmt.fmt), stdout) != 0) {
			cli_error("%s", pb_error());
			return PB_EXIT_USAGE;
		}
		return PB_EXIT_OK;
	}
	const char *arch_why = NULL;
	if (!pb_kernel_arch_supported(&arch_why)) {
		cli_error("%s", arch_why);
		return PB_EXIT_USAGE;
	}
	cli_replicates_check(&o.samp, &o.replicates, o.replicates_set, 1);
	if (o.list && (o.out || o.variants || o.pages || o.cache || o.irqs_off || o.sizes_arg ||
	               o.upper_arg || o.ops_arg))
		die_usage("--list prints the module's variants: it takes --device only");
	if (o.ops & PB_KOP_BIT(PB_KOP_FPU))
		upper_check(&o);
	int want_cpu = cli_parse_cpu_opt(o.cpu);
	cli_parse_done();
	struct pb_kmod_dev dev;
	struct pb_kmod_info info;
	if (pb_kmod_open(pb_kmod_device_ops(), NULL, o.device, &dev, &info) != 0) {
		cli_error("%s", pb_error());
		return PB_EXIT_USAGE;
	}
	if (o.list) {
		pb_print_kernel_info(stdout, &info, o.device);
		pb_kmod_close(&dev);
		return PB_EXIT_OK;
	}
	int status = PB_EXIT_USAGE;
	uint32_t ops = pb_kmod_parse_ops(&info, o.ops_arg);
	if (!ops) {
		cli_error("%s", pb_error());
		goto out;
	}
	for (size_t i = 0; (ops & PB_KOP_BIT(PB_KOP_USER_COPY)) && i < o.n_sizes; i++)
		if (o.sizes[i] > info.max_user_bytes) {
			cli_error("size %llu in '--sizes %s' is larger than the module's "
			          "max_user_bytes (%llu)",
			          (unsigned long long)o.sizes[i],
			          o.sizes_arg ? o.sizes_arg : KERNEL_DEFAULT_SIZES,
			          (unsigned long long)info.max_user_bytes);
			goto out;
		}
	uint32_t vars[PB_KMOD_MAX_VARIANTS];
	int nv = o.variants ? pb_kmod_parse_variants(&info, ops, o.variants, vars)
	                    : (int)pb_kmod_available_variants(&info, ops, vars);
	if (nv <= 0) {
		if (nv < 0)
			cli_error("%s", pb_error());
		else
			cli_error("the module at %s offers no available variant of '%s' "
			          "(primbench kernel --list says why)",
			          o.device, o.ops_arg);
		goto out;
	}
	char notes[1024] = "";
	bool calls = false;
	for (uint32_t op = 0; op < PB_KOP_COUNT; op++) {
		bool any = false;
		for (int i = 0; i < nv; i++) {
			any |= info.variants[vars[i]].op == op;
			calls |= (info.variants[vars[i]].flags & PB_KVF_CALL) != 0;
		}
		size_t u = strlen(notes);
		if ((ops & PB_KOP_BIT(op)) && !any)
			snprintf(notes + u, sizeof notes - u,
			         "%s: not measured: --variants names none of its variants "
			         "(primbench kernel --list shows them)\n",
			         pb_kmod_op_name(op));
	}
	if (o.irqs_off && calls) {
		size_t u = strlen(notes);
		snprintf(notes + u, sizeof notes - u,
		         "--irqs-off: ioctl_null and ioctl_fpu are timed from user space, "
		         "interrupts on\n");
	}
	status = measure(&o, &dev, &info, vars, (size_t)nv, want_cpu, notes);
out:
	pb_kmod_close(&dev);
	return status;
}
