/* fuzz_accounting.c - libprimswitch.so's accounting files
 * (include/primbench/account.h) as primbench reads and reports them
 * (include/primbench/accounting.h).
 *
 * Input: byte 0 chooses the report: bits 0-1 pb_acct_print's flags
 * (PB_ACCT_PRINT_BUCKETS, _NO_CAVEATS), bits 2-3 the TSC frequency (unknown
 * NaN, 0, 1 GHz, 3.5 GHz), bits 4-5 the command's CPU time (NaN, 0, 1 ms,
 * 10 s); byte 1 how many times the file is added to the total (1..24, the
 * k-th copy with another exe name and sample rate, so that the total's
 * lists of programs and rates fill past their bounds); the rest is the
 * file, written to a real file (pb_fuzz_file) and read with
 * pb_acct_read_file. A valid file is exactly sizeof(struct pb_acct_file)
 * bytes (13664 on x86-64 and arm64): the seeds of
 * tests/fuzz/corpus/accounting are such files (tests/fuzz/make_acct_seeds.py
 * writes them), libFuzzer's -max_len follows the largest seed.
 *
 * Checked: a read file's text fields are terminated; a file added k times
 * gives k processes, its calls k times (saturated); pb_acct_print writes
 * lines of at most PB_TEXT_WIDTH columns (but for one word that is longer
 * by itself, an exe path), and pb_acct_tables' record agrees with the
 * total it borrows. Outcome: the error (its path replaced by FILE), or the
 * figures and the report's length. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "primbench/accounting.h"
#include "primbench/error.h"
#include "primbench/text.h"

/* A file is one struct; one byte more is enough to see any wrong size. */
#define MAX_INPUT (2 + sizeof(struct pb_acct_file) + 64)

static struct pb_acct_total total;
static struct pb_acct_file file, copy;
static struct pb_acct_tables tables;

/* pb_fuzz_file writes each input to a file: on a disk file system the
 * truncation and the write cost more than the rest (ext4: ~1 ms an input);
 * in memory (tmpfs) they do not. TMPDIR set by the caller stays. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	if ((!tmp || !*tmp) && access("/dev/shm", W_OK | X_OK) == 0)
		setenv("TMPDIR", "/dev/shm", 1);
	return 0;
}

static uint64_t sat_mul(uint64_t a, uint64_t k)
{
	return k && a > UINT64_MAX / k ? UINT64_MAX : a * k;
}

/* Every line of text (len bytes) at most PB_TEXT_WIDTH columns, unless
 * one word of it is longer than a line by itself. */
static void check_width(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			pb_fuzz_fail("report does not end in a newline");
		size_t n = (size_t)(eol - p);
		if (n > PB_TEXT_WIDTH) {
			size_t word = 0, longest = 0;
			for (const char *q = p; q < eol; q++) {
				word = *q == ' ' ? 0 : word + 1;
				longest = word > longest ? word : longest;
			}
			if (longest <= PB_TEXT_WIDTH - 8)
				pb_fuzz_fail("a report line of %zu columns: '%.*s'", n, (int)n, p);
		}
		p = eol + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > MAX_INPUT)
		return 0;
	int flags = data[0] & 3;
	static const double tsc[] = {NAN, 0, 1e9, 3.5e9}, cpu[] = {NAN, 0, 1e-3, 10};
	double tsc_hz = tsc[(data[0] >> 2) & 3], cpu_s = cpu[(data[0] >> 4) & 3];
	unsigned times = 1 + data[1] % 24; /* past 16 exes and 8 rates */

	const char *path = pb_fuzz_file(data + 2, size - 2);
	if (!path)
		pb_fuzz_fail("cannot write the input file");
	if (pb_acct_read_file(path, &file) != 0) {
		const char *e = pb_error();
		size_t pl = strlen(path);
		if (strncmp(e, path, pl) != 0)
			pb_fuzz_fail("error without the path: %s", e);
		pb_fuzz_outcome("error: FILE%s", e + pl);
		return 0;
	}
	if (strnlen(file.exe, PB_ACCT_TEXT) == PB_ACCT_TEXT)
		pb_fuzz_fail("exe not terminated");
	for (int i = 0; i < 3; i++)
		if (strnlen(file.policy[i], PB_ACCT_TEXT) == PB_ACCT_TEXT)
			pb_fuzz_fail("policy %d not terminated", i);

	memset(&total, 0, sizeof total);
	for (unsigned k = 0; k < times; k++) {
		copy = file;
		if (k) { /* another program, another rate */
			snprintf(copy.exe, sizeof copy.exe, "/bin/p%u", k);
			copy.sample_every += k;
		}
		pb_acct_add(&total, &copy);
	}
	if (total.processes != times || total.n_exe > PB_ACCT_MAX_EXES ||
	    total.n_rate > PB_ACCT_MAX_RATES)
		pb_fuzz_fail("%u files added: %llu processes, %u exes, %u rates", times,
		             (unsigned long long)total.processes, total.n_exe, total.n_rate);
	for (int p = 0; p < PB_ACCT_NPRIM; p++)
		if (total.prim[p].calls != sat_mul(file.prim[p].calls, times))
			pb_fuzz_fail("%s: %u times %llu calls summed to %llu", pb_acct_prim_name(p),
			             times, (unsigned long long)file.prim[p].calls,
			             (unsigned long long)total.prim[p].calls);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		pb_fuzz_fail("out of memory");
	pb_acct_print(f, &total, tsc_hz, cpu_s, flags);
	if (fclose(f) != 0)
		pb_fuzz_fail("out of memory");
	check_width(text, len);
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	free(text);

	pb_acct_tables(&total, tsc_hz, cpu_s, &tables);
	if (tables.total != &total)
		pb_fuzz_fail("tables do not borrow the total");
	uint64_t calls = 0;
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		struct pb_acct_est e;
		pb_acct_estimate(&total, p, 0, PB_ACCT_BUCKETS - 1, &e);
		if (tables.prim[p].est.calls != e.calls)
			pb_fuzz_fail("%s: tables say %llu calls, the estimate %llu",
			             pb_acct_prim_name(p),
			             (unsigned long long)tables.prim[p].est.calls,
			             (unsigned long long)e.calls);
		calls = calls > UINT64_MAX - e.calls ? UINT64_MAX : calls + e.calls;
	}
	if (tables.all.calls != calls)
		pb_fuzz_fail("tables: all %llu calls, the primitives %llu",
		             (unsigned long long)tables.all.calls, (unsigned long long)calls);
	pb_fuzz_outcome("ok %u files, %u exes, %u rates, %llu calls; report of %zu lines", times,
	                total.n_exe, total.n_rate, (unsigned long long)calls, lines);
	return 0;
}
