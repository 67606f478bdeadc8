/* cmd_selftest.c - `primbench selftest`: every usable kernel (or the ones
 * named) checked against the reference by the selftest module, the same
 * checks `make test` runs (selftest.h describes the grids).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/kernels.h"
#include "primbench/report.h"
#include "primbench/selftest.h"
#include "primbench/text.h"

static void usage(FILE *f)
{
	fputs("usage: primbench selftest [--standard | --full] [--kernels LIST]\n"
	      "                          [--hide-features LIST]\n\n"
	      "Checks kernels against a byte-by-byte reference: sizes 0..1024 and powers of two\n"
	      "up to 1 MiB (quick) or 4 MiB, destination and source at many page offsets, at\n"
	      "guard pages and between canaries; memmove kernels also with overlapping\n"
	      "buffers (case M6: dst - src in -128..128 up to 512 bytes, +-1, +-63, +-64,\n"
	      "+-4096 up to 64 KiB). One line per kernel: PASS, FAIL (with the first\n"
	      "difference) or SKIP (with why it cannot run here).\n\n"
	      "  (default)             the quick grid: about 3 s for every kernel here\n"
	      "  --standard            the `make test` grid: about 20 s for every kernel here\n"
	      "  --full                every size 0..1024 at every dst x src offset 0..63:\n"
	      "                        about 55 s for every kernel here\n"
	      "  --kernels LIST        these kernels only (comma-separated; 'op/name', or a\n"
	      "                        name meaning that kernel of every op that has it);\n"
	      "                        each must be usable here; 'all' (alone): every\n"
	      "                        kernel, those that cannot run here as SKIP\n"
	      "  --hide-features LIST  treat these features as absent (comma-separated)\n\n"
	      "exit status: 0 all checked kernels passed, 1 a kernel failed, 2 usage error,\n"
	      "128 + signal when interrupted (130 for Ctrl-C: the kernel being checked\n"
	      "finishes, then the summary of what ran).\n",
	      f);
}

static volatile sig_atomic_t interrupted_by;

/* The first Ctrl-C (or SIGTERM, SIGHUP) lets the kernel being checked
 * finish, then the summary of what ran is printed and the exit status is
 * 128 + the signal (130 for Ctrl-C), as `mem` does; a second one ends the
 * process at once (SA_RESETHAND). */
static void on_signal(int sig)
{
	interrupted_by = sig;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

/* Marks k in `chosen`; exits 2 when it cannot run here. */
static void choose_kernel(const struct pb_kernel *k, const struct pb_kernel *t, pb_features have,
                          bool *chosen)
{
	char why[128];
	if (!pb_kernel_usable(k, have, why, sizeof why))
		die_usage("kernel '%s/%s' is not usable here: %s", pb_op_name(k->op), k->name, why);
	chosen[k - t] = true;
}

/* Marks the kernel(s) `name` stands for in `chosen` ('op/name', or a bare
 * name: that kernel of every op that has it); exits 2 on an unknown name
 * or a kernel that cannot run here. */
static void choose_one(const char *name, const struct pb_kernel *t, size_t count, pb_features have,
                       bool *chosen)
{
	if (strchr(name, '/')) {
		const struct pb_kernel *k = pb_kernel_find(PB_OP_COUNT, name);
		if (!k)
			die_usage("%s", pb_error()); /* keep pb_kernel_find's wording */
		choose_kernel(k, t, have, chosen);
		return;
	}
	bool found = false;
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(t[i].name, name)) {
			choose_kernel(&t[i], t, have, chosen);
			found = true;
		}
	}
	if (!found)
		die_usage("unknown kernel '%s'", name);
}

/* Marks the kernels LIST names in `chosen`: "all" (alone) is every kernel,
 * those that cannot run here shown as SKIP; a name is a kernel that must
 * run here. Exits 2 on an empty item, 'all' with names, an unknown kernel
 * or one not usable here, before anything is checked. */
static void choose(const char *list, const struct pb_kernel *t, size_t count, bool *chosen)
{
	pb_features have = pb_cpu_features();
	size_t items = 1;
	bool all = false;
	if (!list[0])
		die_usage("--kernels needs at least one kernel name (or 'all')");
	for (const char *p = list;; p++) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			die_usage("empty kernel name in '--kernels %s'", list);
		if (n == 3 && !strncmp(p, "all", 3))
			all = true;
		if (!end)
			break;
		items++;
		p = end;
	}
	if (all && items > 1)
		die_usage("--kernels: 'all' cannot be combined with kernel names");
	if (all) {
		for (size_t i = 0; i < count; i++)
			chosen[i] = true;
		return;
	}
	char *copy = strdup(list);
	if (!copy)
		die_usage("out of memory");
	char *save = NULL;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		choose_one(name, t, count, have, chosen);
	free(copy);
}

enum { OPT_KERNELS = 256, OPT_STANDARD, OPT_FULL };

/* What selftest's options asked for. */
struct selftest_opts {
	enum pb_selftest_level level;
	const char *kernels;
	const char *level_opt; /* --standard and --full exclude each other */
	char **argv;           /* getopt's, for the option word as typed */
};

/* --standard, --full (no value) into o (struct selftest_opts). */
static bool selftest_option(int opt, const char *arg, void *ctx)
{
	(void)arg;
	struct selftest_opts *o = ctx;
	switch (opt) {
	case OPT_STANDARD:
	case OPT_FULL: {
		const char *word = o->argv[optind - 1];
		if (o->level_opt && strcmp(o->level_opt, word) != 0)
			die_usage("selftest: %s and %s exclude each other (choose one)",
			          o->level_opt, word);
		o->level_opt = word;
		o->level = opt == OPT_FULL ? PB_SELFTEST_FULL : PB_SELFTEST_STANDARD;
		return true;
	}
	default:
		return false;
	}
}

int cmd_selftest(int argc, char **argv)
{
	static const struct option longopts[] = {
	    CLI_HIDE_FEATURES_OPTION,
	    {"kernels", required_argument, NULL, OPT_KERNELS},
	    {"standard", no_argument, NULL, OPT_STANDARD},
	    {"full", no_argument, NULL, OPT_FULL},
	    CLI_HELP_OPTION,
	    {NULL, 0, NULL, 0},
	};
	struct selftest_opts o = {.level = PB_SELFTEST_QUICK, .argv = argv};
	static const struct cli_store stores[] = {
	    CLI_STORE_ARG(OPT_KERNELS, struct selftest_opts, kernels),
	    {0},
	};
	const struct cli_common common = {.stores = stores};
	optind = 1;
	if (!cli_parse_options("selftest", argc, argv, ":h", longopts, selftest_option, &o, &common,
	                       usage))
		return PB_EXIT_OK;
	cli_no_operands("selftest", longopts, argc, argv);
	enum pb_selftest_level level = o.level;
	const char *kernels = o.kernels;

	size_t count;
	const struct pb_kernel *t = pb_kernels(&count);
	bool *chosen = calloc(count ? count : 1, sizeof *chosen);
	if (!chosen)
		die_usage("out of memory");
	if (kernels)
		choose(kernels, t, count, chosen);
	else
		for (size_t i = 0; i < count; i++)
			chosen[i] = true;

	size_t to_check = 0;
	for (size_t i = 0; i < count; i++)
		to_check += chosen[i];
	cli_parse_done();

	struct sigaction sa, old_sa[N_STOP_SIGNALS];
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &old_sa[i]);

	pb_features have = pb_cpu_features();
	/* auto runs its policy (the policy file, else the built-in default):
	 * a bad file is refused before anything is checked, as in `mem`. */
	for (size_t i = 0; i < count; i++)
		if (chosen[i] && !strcmp(t[i].name, "auto"))
			cli_auto_setup();
	size_t passed = 0, failed = 0, skipped = 0, errors = 0, done = 0;
	uint64_t cases = 0;
	double seconds = 0;
	for (size_t i = 0; i < count && !interrupted_by; i++) {
		if (!chosen[i])
			continue;
		done++;
		const struct pb_kernel *k = &t[i];
		char why[128];
		if (!pb_kernel_usable(k, have, why, sizeof why)) {
			printf("SKIP %s/%s: %s\n", pb_op_name(k->op), k->name, why);
			skipped++;
			continue;
		}
		struct pb_selftest_result r;
		int rc = pb_selftest_kernel(k, level, &r);
		cases += r.cases;
		seconds += r.seconds;
		if (rc == 0) {
			printf("PASS %s/%s (%llu case%s, %.2f s)\n", pb_op_name(k->op), k->name,
			       (unsigned long long)r.cases, pb_plural(r.cases), r.seconds);
			passed++;
		} else if (rc > 0) {
			pb_print_labelled(stdout, 5, "FAIL", r.detail);
			failed++;
		} else {
			char msg[400];
			snprintf(msg, sizeof msg, "%s/%s: %s", pb_op_name(k->op), k->name,
			         pb_error());
			pb_print_labelled(stdout, 6, "ERROR", msg);
			errors++;
		}
		fflush(stdout);
	}
	int sig = interrupted_by;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old_sa[i], NULL);
	free(chosen);

	char summary[256];
	int used = snprintf(summary, sizeof summary, "%zu passed, %zu failed, %zu skipped", passed,
	                    failed, skipped);
	if (errors)
		used += snprintf(summary + used, sizeof summary - (size_t)used,
		                 ", %zu could not run", errors);
	used += snprintf(summary + used, sizeof summary - (size_t)used, "; %llu case%s in %.1f s",
	                 (unsigned long long)cases, pb_plural(cases), seconds);
	if (sig)
		snprintf(summary + used, sizeof summary - (size_t)used,
		         "; interrupted after %zu of %zu kernel%s", done, to_check,
		         pb_plural(to_check));
	char label[32];
	snprintf(label, sizeof label, "selftest (%s):", pb_selftest_level_name(level));
	putchar('\n');
	pb_print_labelled(stdout, (int)strlen(label) + 1, label, summary);
	if (sig) {
		fflush(stdout);
		cli_error("interrupted; the summary above covers what was checked");
		return 128 + sig; /* PB_EXIT_INTERRUPTED for Ctrl-C */
	}
	if (failed)
		return PB_EXIT_CHECK_FAILED;
	return errors ? PB_EXIT_USAGE : PB_EXIT_OK;
}
