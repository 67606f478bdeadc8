/* cmd_list.c - `primbench list`: the kernel table, and what runs here. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "primbench/auto.h"
#include "primbench/cpu.h"
#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/kernels.h"
#include "primbench/report.h"
#include "primbench/text.h"

/* Descriptions are indented under the id. */
#define DESC_INDENT 4

static void usage(FILE *f)
{
	fputs("usage: primbench list [--op memset|memcpy|memmove] [--hide-features LIST]\n"
	      "       primbench list --distributions\n\n"
	      "Prints every kernel: its id (op/name), the CPU features it requires and\n"
	      "whether it can run here (or why not) on one line, what it does on the next;\n"
	      "then a count per op.\n\n"
	      "  --op OP               only the kernels of OP\n"
	      "  --hide-features LIST  treat these features as absent (comma-separated)\n"
	      "  --distributions       the built-in call-size distributions (for mem\n"
	      "                        --distribution NAME) and their share of calls of\n"
	      "                        at most 128 bytes\n",
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

/* Hiding features changes what primbench's kernels may use, not what
 * glibc chose for its memset/memcpy when the process started: the note
 * says so and names glibc's own switches, which are per ISA as the
 * features are (one definition of print_libc_note per ISA, as cpu.h
 * defines the feature enum). */
static const char LIBC_NOTE_HEAD[] = "hidden features do not reach the libc kernels: glibc "
                                     "chooses its own memset, memcpy and memmove (ifunc) "
                                     "from the CPU";

#if defined(__aarch64__)
/* arm64: glibc has no tunable that hides a feature (glibc.cpu.hwcaps is
 * for x86, s390x, powerpc and loongarch only: glibc manual, "Hardware
 * Capability Tunables"). What it has is glibc.cpu.name: a CPU name in
 * place of the MIDR it reads (sysdeps/unix/sysv/linux/aarch64/
 * cpu-features.c), "generic" for MIDR 0, as if cpuid were hidden. glibc
 * 2.36 (Debian 12) chooses memcpy and memmove by MIDR alone (its only SVE
 * kernel is A64FX's), so that keeps it on its generic ASIMD kernels; its
 * memset still zeroes with DC ZVA where DCZID_EL0 permits it, and later
 * versions also choose SVE and MOPS kernels from HWCAP, which no tunable
 * hides. */
static void print_libc_note(pb_features hidden)
{
	(void)hidden;
	char text[600];
	snprintf(text, sizeof text,
	         "%s, and on arm64 it has no switch that hides a feature. "
	         "GLIBC_TUNABLES=glibc.cpu.name=generic makes it ignore the CPU's MIDR: "
	         "glibc 2.36 then takes its generic ASIMD kernels (no SVE), though its "
	         "memset still uses DC ZVA, and newer glibc picks SVE and MOPS kernels from "
	         "HWCAP regardless (glibc manual, \"Hardware Capability Tunables\").",
	         LIBC_NOTE_HEAD);
	pb_print_labelled(stdout, 6, "note:", text);
}
#else
/* x86-64: GLIBC_TUNABLES=glibc.cpu.hwcaps, names from glibc's
 * sysdeps/x86/include/cpu-features.h, for the hidden features glibc's
 * choice looks at (glibc 2.33..2.36 ifunc-memset.h and ifunc-memmove.h):
 *   avx512f, avx512bw  AVX512F, and AVX512VL and AVX512BW too: glibc's
 *                      256-bit EVEX versions need only those (memmove only
 *                      AVX512VL), and every primbench AVX-512 kernel needs
 *                      both avx512f and avx512bw;
 *   avx2               AVX2 (memset); glibc's AVX memmove goes by
 *                      AVX_Fast_Unaligned_Load, named in the text (kept
 *                      out of the value so it fits on one line);
 *   erms               ERMS.
 * The others (fsrm, clzero, ...) have no such switch or no part there. */
static void print_libc_note(pb_features hidden)
{
	char caps[96] = "";
	if (hidden & PB_F(AVX2))
		strcat(caps, ",-AVX2");
	if (hidden & (PB_F(AVX512F) | PB_F(AVX512BW)))
		strcat(caps, ",-AVX512F,-AVX512VL,-AVX512BW");
	if (hidden & PB_F(ERMS))
		strcat(caps, ",-ERMS");
	char text[600];
	if (caps[0])
		snprintf(text, sizeof text,
		         "%s. To hide them from glibc too, run with "
		         "GLIBC_TUNABLES=glibc.cpu.hwcaps=%s%s (glibc manual, "
		         "\"Hardware Capability Tunables\"; the names are glibc's).",
		         LIBC_NOTE_HEAD, caps + 1,
		         hidden & PB_F(AVX2) ? " (and -AVX_Fast_Unaligned_Load for its AVX memcpy)"
		                             : "");
	else
		snprintf(text, sizeof text,
		         "%s; GLIBC_TUNABLES=glibc.cpu.hwcaps hides features from glibc (glibc "
		         "manual, \"Hardware Capability Tunables\").",
		         LIBC_NOTE_HEAD);
	pb_print_labelled(stdout, 6, "note:", text);
}
#endif

/* `list --distributions`: one row per built-in distribution. */
static int list_distributions(void)
{
	char **names;
	int n = pb_distribution_names(&names);
	if (n < 0)
		die_usage("%s", pb_error());
	char line[4200];
	snprintf(line, sizeof line, "built-in call-size distributions in %s",
	         pb_distribution_dir());
	pb_print_wrapped_at(stdout, 0, 4, line);
	printf("(LLVM libc's benchmark distributions: docs/distributions.md)\n\n");
	printf("%-20s %9s %9s %10s %7s\n", "name", "sizes", "<=128 B", "mean B", "max B");
	for (int i = 0; i < n; i++) {
		struct pb_distribution d;
		char path[4200];
		snprintf(path, sizeof path, "%s/%s.csv", pb_distribution_dir(), names[i]);
		if (pb_distribution_load(path, &d) != 0) {
			printf("%-20s unreadable: see below\n", names[i]);
			pb_print_wrapped_at(stdout, 0, 4, pb_error());
			continue;
		}
		char sizes[32];
		snprintf(sizes, sizeof sizes, "%zu..%zu", d.min_bytes, d.max_bytes);
		printf("%-20s %9s %8.1f%% %10.1f %7zu\n", names[i], sizes, 100 * d.share_le_128,
		       d.mean_bytes, d.max_bytes);
		pb_distribution_free(&d);
	}
	pb_distribution_names_free(names, n);
	printf("\nsizes: smallest..largest size with a nonzero weight; <=128 B: share of\n"
	       "calls of at most 128 bytes; mean B: bytes per call; max B: largest size drawn\n"
	       "NAME: the stem, or a part of only one stem (GoogleA, uniform); or a FILE.csv\n");
	return PB_EXIT_OK;
}

enum { OPT_OP = 256, OPT_DIST };

/* What list's options asked for: the ops shown, or the distributions. */
struct list_opts {
	bool only[PB_OP_COUNT];
	bool distributions;
};

static bool list_option(int opt, const char *arg, void *ctx)
{
	struct list_opts *o = ctx;
	switch (opt) {
	case OPT_OP: {
		enum pb_op op;
		if (pb_op_parse(arg, &op) != 0)
			die_usage("%s", pb_error());
		for (unsigned i = 0; i < PB_OP_COUNT; i++)
			o->only[i] = i == (unsigned)op;
		return true;
	}
	default:
		return false;
	}
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
	    CLI_HIDE_FEATURES_OPTION,
	    {"op", required_argument, NULL, OPT_OP},
	    {"distributions", no_argument, NULL, OPT_DIST},
	    CLI_HELP_OPTION,
	    {NULL, 0, NULL, 0},
	};
	struct list_opts o = {.distributions = false};
	for (unsigned op = 0; op < PB_OP_COUNT; op++)
		o.only[op] = true;
	static const struct cli_store stores[] = {
	    CLI_STORE_FLAG(OPT_DIST, struct list_opts, distributions, true),
	    {0},
	};
	const struct cli_common common = {.stores = stores};
	optind = 1;
	if (!cli_parse_options("list", argc, argv, ":h", longopts, list_option, &o, &common, usage))
		return PB_EXIT_OK;
	cli_no_operands("list", longopts, argc, argv);
	cli_parse_done();
	const bool *only = o.only;
	bool distributions = o.distributions;
	if (distributions)
		return list_distributions();

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

	/* id  requires  usable (wrapped under itself when long); then the
	 * description, indented, on the next line(s). A blank line between ops. */
	char label[160];
	int w_label = w_id + 2 + w_req + 2;
	(void)w_use;
	printf("%-*s  %-*s  %s\n", w_id, "id", w_req, "requires", "usable");
	printf("%*s%s\n", DESC_INDENT, "", "description");
	int last_op = -1;
	for (size_t i = 0; i < count; i++) {
		if (!only[t[i].op])
			continue;
		if (last_op >= 0 && last_op != (int)t[i].op)
			putchar('\n');
		last_op = (int)t[i].op;
		if (snprintf(label, sizeof label, "%-*s  %-*s  ", w_id, lines[i].id, w_req,
		             lines[i].requires) >= (int)sizeof label)
			w_label = 0; /* cannot happen: id and requires are short */
		pb_print_labelled(stdout, w_label, label, lines[i].usable);
		if (!strcmp(t[i].name, "libc")) {
			char desc[512];
			snprintf(desc, sizeof desc,
			         "%s; hiding features does not change what it runs",
			         t[i].description);
			pb_print_labelled(stdout, DESC_INDENT, "", desc);
		} else {
			pb_print_labelled(stdout, DESC_INDENT, "", t[i].description);
		}
	}
	printf("\n");
	for (unsigned op = 0; op < PB_OP_COUNT; op++)
		if (only[op])
			printf("%s: %zu kernel%s, %zu usable here\n", pb_op_name((enum pb_op)op),
			       total[op], pb_plural(total[op]), usable[op]);
	/* What auto would run (a bad policy file is a note here: the
	 * catalogue is still worth seeing; `mem --kernels auto` refuses it). */
	if (pb_auto_setup(pb_cpu_features(), NULL) == 0) {
		printf("\n");
		for (unsigned op = 0; op < PB_OP_COUNT; op++)
			if (only[op])
				cli_auto_print(stdout, (enum pb_op)op);
	} else {
		char text[600];
		snprintf(text, sizeof text, "note: auto cannot run: %s", pb_error());
		printf("\n");
		pb_print_wrapped_at(stdout, 0, 6, text);
	}
	if (pb_cpu_features_hidden()) {
		printf("\n");
		print_libc_note(pb_cpu_features_hidden());
	}
	return PB_EXIT_OK;
}
