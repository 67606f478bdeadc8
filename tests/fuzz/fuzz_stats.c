/* fuzz_stats.c - ministat's number files (include/primbench/numbers.h,
 * pb_numbers_read) and `primbench stats` on the sets they give
 * (src/cli/cmd_stats.c: the table, the ASCII plot, Student's t verdict,
 * the Hodges-Lehmann and Mann-Whitney line), in-process (cli_harness.c).
 *
 * Input: one number file, or two separated by the first NUL byte (a
 * fixture of tests/data/stats is an input as it is). The options: a first
 * line "#!WORDS" (a comment to the reader: it stays in the file) with
 * words A, n, q, s, X (-A, -n, -q, -s, --no-extra), Ck (-C k, k 1..9),
 * cL (-c, L a level index 0..5: 80 .. 99.5), w<number> (-w, 10..1000) and
 * d<bytes> (-d, up to the next blank; "dt" is a tab).
 *
 * Each file is read with pb_numbers_read: an error, with nothing left
 * allocated (LeakSanitizer), or values that are all finite. When every set
 * has at least 3 values (stats's minimum), `primbench stats OPTIONS numbers
 * [numbers2]` runs on the same bytes in the harness's scratch directory
 * and must end as the reader said: status 0 by returning, output on
 * standard output, nothing on standard error; the sorted values' min <=
 * median <= max. Outcome: "error: MESSAGE" or "ok N[, M] values", then
 * "stats: STATUS". At most MAX_INPUT bytes: the shift's pairs grow as the
 * product of the sets' sizes (cmd_stats caps them at 2000 values a set,
 * 4 million pairs: seconds an input). */
#define _GNU_SOURCE /* fmemopen */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "fuzz.h"
#include "primbench/error.h"
#include "primbench/ministat.h"
#include "primbench/numbers.h"

#define MAX_INPUT 4096

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pb_cli_init(false);
	return 0;
}

struct opts {
	char *argv[24];
	int argc;
	size_t column;
	char delim[32], d_word[40];
	char words[16][40]; /* the option values argv points into */
	size_t nwords;
};

static char *word(struct opts *o, const char *fmt, size_t v)
{
	char *w = o->words[o->nwords++];
	snprintf(w, sizeof o->words[0], fmt, v);
	return w;
}

/* The "#!" line's options into o (argv from "stats" on). */
static void parse_opts(const char *text, size_t len, struct opts *o)
{
	static char stats[] = "stats", flag[4][3] = {"-A", "-n", "-q", "-s"};
	static char no_extra[] = "--no-extra";
	memset(o, 0, sizeof *o);
	o->argv[o->argc++] = "primbench";
	o->argv[o->argc++] = stats;
	o->column = 1;
	snprintf(o->delim, sizeof o->delim, " \t");
	if (len < 2 || text[0] != '#' || text[1] != '!')
		return;
	const char *end = memchr(text, '\n', len);
	size_t n = end ? (size_t)(end - text) : len;
	bool custom_delim = false;
	for (size_t i = 2; i < n && o->argc < 16;) {
		char c = text[i++];
		size_t start = i;
		while (i < n && text[i] != ' ')
			i++;
		const char *arg = text + start;
		size_t alen = i - start;
		switch (c) {
		case 'A':
		case 'n':
		case 'q':
		case 's':
			o->argv[o->argc++] = flag[c == 'A' ? 0 : c == 'n' ? 1 : c == 'q' ? 2 : 3];
			break;
		case 'X':
			o->argv[o->argc++] = no_extra;
			break;
		case 'C':
			if (alen && arg[0] >= '1' && arg[0] <= '9') {
				o->column = (size_t)(arg[0] - '0');
				o->argv[o->argc++] = word(o, "-C%zu", o->column);
			}
			break;
		case 'c':
			if (alen && arg[0] >= '0' && arg[0] <= '5') {
				char *w = o->words[o->nwords++];
				snprintf(w, sizeof o->words[0], "-c%g",
				         pb_ministat_level_pct((size_t)(arg[0] - '0')));
				o->argv[o->argc++] = w;
			}
			break;
		case 'w': {
			size_t w = (size_t)strtoul(arg, NULL, 10);
			o->argv[o->argc++] = word(o, "-w%zu", w < 10 ? 10 : w > 1000 ? 1000 : w);
			break;
		}
		case 'd': {
			size_t k = 0;
			for (size_t j = 0; j < alen && k + 1 < sizeof o->delim; j++)
				if (arg[j] != '\0' && arg[j] != '\n')
					o->delim[k++] = arg[j] == 't' ? '\t' : arg[j];
			if (k) {
				o->delim[k] = '\0';
				custom_delim = true;
			}
			break;
		}
		default:
			break;
		}
		while (i < n && text[i] == ' ')
			i++;
	}
	/* joined (-d-n): as a word of its own, a delimiter such as "-n" would be
	 * stats's option -n (cli_getopt_long) */
	if (custom_delim) {
		snprintf(o->d_word, sizeof o->d_word, "-d%s", o->delim);
		o->argv[o->argc++] = o->d_word;
	}
}

/* One set: read, checked, sorted values' order checked. Returns its count,
 * or -1 after an error (the outcome says it). */
static long read_one(const char *text, size_t len, const char *name, const struct opts *o)
{
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f)
		pb_fuzz_fail("fmemopen: %s", strerror(errno));
	struct pb_numbers nums = {(double *)1, 7, 7};
	int rc = pb_numbers_read(f, name, o->column, o->delim, &nums);
	fclose(f);
	if (rc != 0) {
		if (nums.v || nums.n)
			pb_fuzz_fail("an error ('%s') left %zu values", pb_error(), nums.n);
		pb_fuzz_outcome("error: %s", pb_error());
		return -1;
	}
	for (size_t i = 0; i < nums.n; i++)
		if (!isfinite(nums.v[i]))
			pb_fuzz_fail("%s: value %zu is %g", name, i + 1, nums.v[i]);
	if (nums.n >= 1) {
		struct pb_ministat_vitals vit;
		pb_ministat_vitals(nums.v, nums.n, &vit);
		for (size_t i = 1; i < nums.n; i++)
			if (nums.v[i - 1] > nums.v[i])
				pb_fuzz_fail("%s: not sorted at %zu", name, i);
		if (!(nums.v[0] <= vit.median && vit.median <= nums.v[nums.n - 1]))
			pb_fuzz_fail("%s: median %g outside [%g, %g]", name, vit.median, nums.v[0],
			             nums.v[nums.n - 1]);
	}
	long n = (long)nums.n;
	pb_numbers_free(&nums);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	const char *text = (const char *)data;
	const char *nul = memchr(text, '\0', size);
	size_t len1 = nul ? (size_t)(nul - text) : size;
	const char *text2 = nul ? nul + 1 : NULL;
	size_t len2 = nul ? size - len1 - 1 : 0;
	struct opts o;
	parse_opts(text, len1, &o);

	long n1 = read_one(text, len1, "numbers", &o);
	if (n1 < 0)
		return 0;
	long n2 = text2 ? read_one(text2, len2, "numbers2", &o) : 0;
	if (n2 < 0)
		return 0;
	if (text2)
		pb_fuzz_outcome("ok %ld, %ld values", n1, n2);
	else
		pb_fuzz_outcome("ok %ld values", n1);
	if (n1 < 3 || (text2 && n2 < 3))
		return 0;

	if (pb_cli_write_file("numbers", text, len1) != 0 ||
	    (text2 && pb_cli_write_file("numbers2", text2, len2) != 0))
		pb_fuzz_fail("cannot write the sets: %s", strerror(errno));
	o.argv[o.argc++] = "numbers";
	if (text2)
		o.argv[o.argc++] = "numbers2";
	o.argv[o.argc] = NULL;
	struct pb_cli_result r;
	pb_cli_run(o.argc, o.argv, &r);
	if (r.status != 0 || r.exited || r.messages || !r.out_bytes)
		pb_fuzz_fail("stats on sets that read: status %d%s, %zu bytes out, stderr '%s'",
		             r.status, r.exited ? " (exit)" : "", r.out_bytes, r.err);
	pb_fuzz_outcome("stats: %d", r.status);
	return 0;
}
