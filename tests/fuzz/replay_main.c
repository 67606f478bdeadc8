/* replay_main.c - replay_NAME: runs a fuzz target's LLVMFuzzerTestOneInput
 * on given inputs, outside libFuzzer (every build but the fuzz build).
 *
 *   replay_NAME [PATH...] [--expect PATH...]
 *
 * A PATH is a file or a directory (its files, in name order; names ending
 * in .expect, README files and dot files are not inputs). Every input must
 * end cleanly (a crash or a sanitizer report ends the process). After
 * --expect, each input INPUT must have INPUT.expect, whose text (without
 * its final newline) must equal the outcome the target recorded
 * (pb_fuzz_outcome). Prints one line per input with --verbose, else a
 * summary; exits 0 when every outcome is as expected, 1 otherwise, 2 when
 * a path cannot be read. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#pragma weak LLVMFuzzerInitialize

static bool verbose;
static size_t n_inputs, n_expected, n_wrong;

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			abort();
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static void run_one(const char *path, bool expect)
{
	size_t len;
	char *data = read_file(path, &len);
	if (!data) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		exit(2);
	}
	pb_fuzz_outcome_clear();
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	n_inputs++;
	const char *got = pb_fuzz_outcome_text();
	if (!expect) {
		if (verbose)
			printf("%s: %s\n", path, got);
		return;
	}
	char want_path[4096];
	snprintf(want_path, sizeof want_path, "%s.expect", path);
	size_t wlen;
	char *want = read_file(want_path, &wlen);
	if (!want) {
		printf("%s: no %s (every regression input states its outcome)\n", path, want_path);
		n_wrong++;
		return;
	}
	char *grown = realloc(want, wlen + 1);
	if (!grown)
		abort();
	want = grown;
	while (wlen && want[wlen - 1] == '\n')
		wlen--;
	want[wlen] = '\0';
	n_expected++;
	if (strcmp(want, got) != 0) {
		printf("%s: outcome\n  %s\nexpected\n  %s\n", path, got, want);
		n_wrong++;
	} else if (verbose) {
		printf("%s: %s (as expected)\n", path, got);
	}
	free(want);
}

static bool is_input_name(const char *name)
{
	return name[0] != '.' && !ends_with(name, ".expect") && strncmp(name, "README", 6) != 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_path(const char *path, bool expect)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		if (errno == ENOENT) { /* git keeps no empty directory */
			if (verbose)
				printf("%s: none\n", path);
			return;
		}
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_one(path, expect);
		return;
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		exit(2);
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
		struct stat s2;
		if (is_input_name(names[i]->d_name) && stat(sub, &s2) == 0 && S_ISREG(s2.st_mode))
			run_one(sub, expect);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	pb_fuzz_replaying = true;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	bool expect = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--expect"))
			expect = true;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = true;
		else
			run_path(argv[i], expect);
	}
	printf("%zu inputs ended cleanly; %zu with a stated outcome, %zu not as stated\n", n_inputs,
	       n_expected, n_wrong);
	return n_wrong ? 1 : 0;
}
