/* cmd_list.c - `primbench list`: the kernel table, and what runs here. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/kernels.h"

static void usage(FILE *f)
{
	fputs("usage: primbench list [--op memset|memcpy] [--hide-features LIST]\n\n"
	      "Prints every kernel: its id (op/name), the CPU features it requires, whether\n"
	      "it can run here (or why not) and what it does; then a count per op.\n\n"
	      "  --op OP               only the kernels of OP\n"
	      "  --hide-features LIST  treat these features as absent (comma-separated)\n",
	      f);
}

/* "avx512f,avx512bw", or "-" for none. */
static void format_features(pb_features set, char *buf, size_t len)
{
	size_t pos = 0;
	buf[0] = '\0';
	for (unsigned f = 0; f < PB_FEAT_COUNT; f++) {
		if (!(set & ((pb_features)1u << f)))
			continue;
		int w = snprintf(buf + pos, len - pos, "%s%s", pos ? "," : "",
		                 pb_feature_name((enum pb_feature)f));
		if (w < 0 || (size_t)w >= len - pos)
			break;
		pos += (size_t)w;
	}
	if (pos == 0)
		snprintf(buf, len, "-");
}

struct line {
	char id[48];
	char requires[64];
	char usable[160];
};

int cmd_list(int argc, char **argv)
{
	enum { OPT_HIDE = 256, OPT_OP };
	static const struct option longopts[] = {
	    {"hide-features", required_argument, NULL, OPT_HIDE},
	    {"op", required_argument, NULL, OPT_OP},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool only[PB_OP_COUNT];
	for (unsigned op = 0; op < PB_OP_COUNT; op++)
		only[op] = true;

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
		case OPT_OP: {
			enum pb_op op;
			if (pb_op_parse(optarg, &op) != 0)
				die_usage("%s", pb_error());
			for (unsigned o = 0; o < PB_OP_COUNT; o++)
				only[o] = o == (unsigned)op;
			break;
		}
		case 'h':
			usage(stdout);
			return PB_EXIT_OK;
		default:
			die_bad_option("list", argv, opt);
		}
	}
	if (optind < argc)
		die_usage("list: unexpected argument '%s'", argv[optind]);

	size_t count;
	const struct pb_kernel *t = pb_kernels(&count);
	pb_features have = pb_cpu_features();
	static struct line lines[256];
	if (count > sizeof lines / sizeof lines[0])
		count = sizeof lines / sizeof lines[0];
	int w_id = (int)strlen("id"), w_req = (int)strlen("requires"),
	    w_use = (int)strlen("usable");
	size_t total[PB_OP_COUNT] = {0}, usable[PB_OP_COUNT] = {0};

	for (size_t i = 0; i < count; i++) {
		struct line *l = &lines[i];
		char why[128];
		snprintf(l->id, sizeof l->id, "%s/%s", pb_op_name(t[i].op), t[i].name);
		format_features(t[i].requires, l->requires, sizeof l->requires);
		if (pb_kernel_usable(&t[i], have, why, sizeof why)) {
			snprintf(l->usable, sizeof l->usable, "yes");
			usable[t[i].op]++;
		} else {
			snprintf(l->usable, sizeof l->usable, "no: %s", why);
		}
		total[t[i].op]++;
		if (!only[t[i].op])
			continue;
		if ((int)strlen(l->id) > w_id)
			w_id = (int)strlen(l->id);
		if ((int)strlen(l->requires) > w_req)
			w_req = (int)strlen(l->requires);
		if ((int)strlen(l->usable) > w_use)
			w_use = (int)strlen(l->usable);
	}

	printf("%-*s  %-*s  %-*s  %s\n", w_id, "id", w_req, "requires", w_use, "usable",
	       "description");
	for (size_t i = 0; i < count; i++)
		if (only[t[i].op])
			printf("%-*s  %-*s  %-*s  %s\n", w_id, lines[i].id, w_req,
			       lines[i].requires, w_use, lines[i].usable, t[i].description);
	printf("\n");
	for (unsigned op = 0; op < PB_OP_COUNT; op++)
		if (only[op])
			printf("%s: %zu kernels, %zu usable here\n", pb_op_name((enum pb_op)op),
			       total[op], usable[op]);
	return PB_EXIT_OK;
}
