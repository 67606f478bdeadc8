/* cmd_selftest.c - `primbench selftest`: every usable kernel (or the ones
 * named) checked against the reference by the selftest module, the same
 * checks `make test` runs (selftest.h describes the grids).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/selftest.h"

static void usage(FILE *f)
{
	fputs("usage: primbench selftest [--standard | --full] [--kernels LIST]\n"
	      "                          [--hide-features LIST]\n\n"
	      "Checks kernels against a byte-by-byte reference: sizes 0..1024 and powers of two\n"
	      "up to 1 MiB (quick) or 4 MiB, destination and source at many page offsets, at\n"
	      "guard pages and between canaries. One line per kernel: PASS, FAIL (with the\n"
	      "first difference) or SKIP (with why it cannot run here).\n\n"
	      "  (default)             the quick grid: about 2 s for every kernel here\n"
	      "  --standard            the `make test` grid: about 15 s for every kernel here\n"
	      "  --full                every size 0..1024 at every dst x src offset 0..63:\n"
	      "                        about 40 s for every kernel here\n"
	      "  --kernels LIST        these kernels only (comma-separated; 'op/name', or a\n"
	      "                        name meaning that kernel of every op that has it)\n"
	      "  --hide-features LIST  treat these features as absent (comma-separated)\n\n"
	      "exit status: 0 all checked kernels passed, 1 a kernel failed, 2 usage error.\n",
	      f);
}

/* Marks the kernels LIST names in `chosen`; exits 2 on an unknown name. */
static void choose(const char *list, const struct pb_kernel *t, size_t count, bool *chosen)
{
	char *copy = strdup(list);
	if (!copy)
		die_usage("out of memory");
	char *save = NULL;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (!strcmp(name, "all")) {
			for (size_t i = 0; i < count; i++)
				chosen[i] = true;
			continue;
		}
		bool found = false;
		if (!strchr(name, '/')) {
			/* A bare name: that kernel of every op. */
			for (size_t i = 0; i < count; i++)
				if (!strcmp(t[i].name, name))
					chosen[i] = found = true;
		} else {
			const struct pb_kernel *k = pb_kernel_find(PB_OP_COUNT, name);
			if (k) {
				chosen[k - t] = found = true;
			} else {
				/* Keep pb_kernel_find's wording. */
				char msg[256];
				snprintf(msg, sizeof msg, "%s", pb_error());
				free(copy);
				die_usage("%s", msg);
			}
		}
		if (!found) {
			char quoted[128];
			snprintf(quoted, sizeof quoted, "%s", name);
			free(copy);
			die_usage("unknown kernel '%s'", quoted);
		}
	}
	free(copy);
}

int cmd_selftest(int argc, char **argv)
{
	enum { OPT_HIDE = 256, OPT_KERNELS, OPT_STANDARD, OPT_FULL };
	static const struct option longopts[] = {
	    {"hide-features", required_argument, NULL, OPT_HIDE},
	    {"kernels", required_argument, NULL, OPT_KERNELS},
	    {"standard", no_argument, NULL, OPT_STANDARD},
	    {"full", no_argument, NULL, OPT_FULL},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	enum pb_selftest_level level = PB_SELFTEST_QUICK;
	const char *kernels = NULL;

	if (pb_cpu_hide_env_check() != 0)
		die_usage("%s", pb_error());
	opterr = 0;
	optind = 1;
	int opt;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_HIDE:
			cli_hide_features(optarg);
			break;
		case OPT_KERNELS:
			kernels = optarg;
			break;
		case OPT_STANDARD:
			level = PB_SELFTEST_STANDARD;
			break;
		case OPT_FULL:
			level = PB_SELFTEST_FULL;
			break;
		case 'h':
			usage(stdout);
			return PB_EXIT_OK;
		default:
			die_bad_option("selftest", argv, opt);
		}
	}
	if (optind < argc)
		die_usage("selftest: unexpected argument '%s'", argv[optind]);

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

	pb_features have = pb_cpu_features();
	size_t passed = 0, failed = 0, skipped = 0, errors = 0;
	uint64_t cases = 0;
	double seconds = 0;
	for (size_t i = 0; i < count; i++) {
		if (!chosen[i])
			continue;
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
			printf("PASS %s/%s (%llu cases, %.2f s)\n", pb_op_name(k->op), k->name,
			       (unsigned long long)r.cases, r.seconds);
			passed++;
		} else if (rc > 0) {
			printf("FAIL %s\n", r.detail);
			failed++;
		} else {
			printf("ERROR %s/%s: %s\n", pb_op_name(k->op), k->name, pb_error());
			errors++;
		}
		fflush(stdout);
	}
	free(chosen);
	printf("\nselftest (%s): %zu passed, %zu failed, %zu skipped",
	       pb_selftest_level_name(level), passed, failed, skipped);
	if (errors)
		printf(", %zu could not run", errors);
	printf("; %llu cases in %.1f s\n", (unsigned long long)cases, seconds);
	if (failed)
		return PB_EXIT_CHECK_FAILED;
	return errors ? PB_EXIT_USAGE : PB_EXIT_OK;
}
