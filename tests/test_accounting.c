/* test_accounting.c - reading and reporting the accounting files of
 * libprimswitch.so (include/primbench/accounting.h) on synthetic files
 * written by hand: several processes, forked children, a policy failure,
 * ticks and count modes, and every kind of bad file. */
#define _GNU_SOURCE /* open_memstream, mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/accounting.h"
#include "primbench/error.h"
#include "results/results_json.h"

/* The `accounting` object of t as a cmd case holds it: its tables
 * (pb_acct_tables) as the results module writes them. */
static json_t *acct_json(const struct pb_acct_total *t, double tsc_hz, double cpu_time_s)
{
	struct pb_acct_tables tab;
	pb_acct_tables(t, tsc_hz, cpu_time_s, &tab);
	return pb_results_acct_json(&tab);
}

static void header(struct pb_acct_file *f, int pid, const char *exe, int ticks,
                   uint32_t sample_every, int forked, int policy_ok)
{
	memset(f, 0, sizeof *f);
	memcpy(f->magic, PB_ACCT_MAGIC, 8);
	f->version = PB_ACCT_VERSION;
	f->size_bytes = sizeof *f;
	f->pid = pid;
	f->ppid = 1;
	f->ticks = (uint32_t)ticks;
	f->sample_every = sample_every;
	f->forked = (uint32_t)forked;
	f->policy_ok = (uint32_t)policy_ok;
	snprintf(f->exe, sizeof f->exe, "%s", exe);
	snprintf(f->policy[0], sizeof f->policy[0], "rep_stosb<=2048,avx2");
}

/* `calls` calls of `size` bytes, `sampled` of them timed for `ticks` in all. */
static void calls(struct pb_acct_file *f, enum pb_acct_prim p, uint64_t size, uint64_t n,
                  uint64_t sampled, uint64_t ticks)
{
	struct pb_acct_bucket *b = &f->prim[p].bucket[pb_acct_bucket_of(size)];
	b->calls += n;
	b->bytes += n * size;
	b->sampled_calls += sampled;
	b->sampled_ticks += ticks;
	f->prim[p].calls += n;
	f->prim[p].bytes += n * size;
}

static void write_bytes(const char *dir, const char *name, const void *data, size_t len)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	if (len)
		assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* The four processes of the main scenario (the expected sums are in
 * check_totals). */
static void scenario(struct pb_acct_file f[4])
{
	/* make: ticks mode, one in 64. */
	header(&f[0], 100, "/usr/bin/make", 1, 64, 0, 1);
	calls(&f[0], PB_ACCT_MEMCPY, 8, 1000, 16, 480);
	calls(&f[0], PB_ACCT_MEMCPY, 4096, 100, 2, 1000);
	calls(&f[0], PB_ACCT_MEMSET, 0, 5, 0, 0);
	calls(&f[0], PB_ACCT_MEMSET, 100, 640, 10, 200);
	/* Its forked child (same exe). */
	header(&f[1], 101, "/usr/bin/make", 1, 64, 1, 1);
	calls(&f[1], PB_ACCT_MEMCPY, 8, 200, 4, 200);
	calls(&f[1], PB_ACCT_MEMMOVE, 2 << 20, 3, 1, 1000000);
	/* cc1 with a policy that did not parse, one in 128. */
	header(&f[2], 102, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", 1, 128, 0, 0);
	calls(&f[2], PB_ACCT_BZERO, 64, 10, 0, 0);
	calls(&f[2], PB_ACCT_MEMCPY, 8, 64, 0, 0);
	/* true: counts only. */
	header(&f[3], 103, "/bin/true", 0, 0, 0, 1);
	calls(&f[3], PB_ACCT_MEMCPY, 20, 50, 0, 0);
	calls(&f[3], PB_ACCT_MEMPCPY, 5, 7, 0, 0);
	calls(&f[3], PB_ACCT_EXPLICIT_BZERO, 32, 1, 0, 0);
}

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/pb-acct-test-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	struct pb_acct_file *f = calloc(4, sizeof *f);
	scenario(f);
	write_bytes(dir, "primswitch-100-00000000000000a0.acct", &f[0], sizeof f[0]);
	write_bytes(dir, "primswitch-101-00000000000000a1.acct", &f[1], sizeof f[1]);
	write_bytes(dir, "primswitch-102-00000000000000a2.acct", &f[2], sizeof f[2]);
	write_bytes(dir, "primswitch-103-00000000000000a3.acct", &f[3], sizeof f[3]);

	/* Bad files, in name order. */
	struct pb_acct_file bad = f[0];
	memcpy(bad.magic, "PBACCT\0\2", 8);
	write_bytes(dir, "primswitch-900-bad-magic.acct", &bad, sizeof bad);
	write_bytes(dir, "primswitch-901-truncated.acct", &f[0], 100);
	bad = f[0];
	bad.version = 3;
	write_bytes(dir, "primswitch-902-version.acct", &bad, sizeof bad);
	write_bytes(dir, "primswitch-903-empty.acct", "", 0);
	bad = f[0];
	memset(bad.magic, 0, 8);
	bad.version = 0;
	write_bytes(dir, "primswitch-904-no-magic.acct", &bad, sizeof bad);
	bad = f[0];
	bad.version = 0;
	write_bytes(dir, "primswitch-906-no-version.acct", &bad, sizeof bad);
	char *big = calloc(1, sizeof f[0] + 10);
	memcpy(big, &f[0], sizeof f[0]);
	write_bytes(dir, "primswitch-905-large.acct", big, sizeof f[0] + 10);
	free(big);

	/* Names that are not accounting files: ignored, not skipped. */
	write_bytes(dir, "primswitch-106-00000000000000a6.acct.tmp", &f[0], sizeof f[0]);
	write_bytes(dir, "other-107.acct", &f[0], sizeof f[0]);
	write_bytes(dir, "primswitch-.acct", &f[0], sizeof f[0]);
	write_bytes(dir, "notes.txt", "hello", 5);
	free(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char path[512];
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
	return 0;
}

static struct pb_acct_total *read_scenario(void)
{
	struct pb_acct_total *t = calloc(1, sizeof *t);
	assert_non_null(t);
	int n = pb_acct_read_dir(dir, t);
	if (n < 0)
		fail_msg("%s", pb_error());
	assert_int_equal(n, 4);
	return t;
}

static void test_buckets_and_classes(void **state)
{
	(void)state;
	uint64_t lo, hi;
	pb_acct_bucket_range(0, &lo, &hi);
	assert_true(lo == 0 && hi == 0);
	pb_acct_bucket_range(1, &lo, &hi);
	assert_true(lo == 1 && hi == 1);
	pb_acct_bucket_range(13, &lo, &hi);
	assert_true(lo == 4096 && hi == 8191);
	pb_acct_bucket_range(64, &lo, &hi);
	assert_true(lo == UINT64_C(1) << 63 && hi == UINT64_MAX);
	/* Every bucket's range maps back to it (account.h's rule). */
	for (unsigned b = 0; b < PB_ACCT_BUCKETS; b++) {
		pb_acct_bucket_range(b, &lo, &hi);
		assert_int_equal(pb_acct_bucket_of(lo), b);
		assert_int_equal(pb_acct_bucket_of(hi), b);
	}
	/* The classes cover buckets 0..64 once, in order, and their labels
	 * say their byte ranges. */
	static const char *const labels[] = {"0",         "1..15",     "16..63",
	                                     "64..255",   "256..1023", "1K..4K-1",
	                                     "4K..64K-1", "64K..1M-1", ">=1M"};
	static const uint64_t first[] = {0, 1, 16, 64, 256, 1024, 4096, 65536, 1048576};
	unsigned next = 0;
	for (int c = 0; c < PB_ACCT_NCLASSES; c++) {
		unsigned a, z;
		const char *l = pb_acct_class(c, &a, &z);
		assert_non_null(l);
		assert_string_equal(l, labels[c]);
		assert_int_equal(a, next);
		assert_true(z >= a);
		pb_acct_bucket_range(a, &lo, &hi);
		assert_true(lo == first[c]);
		if (c + 1 < PB_ACCT_NCLASSES) {
			pb_acct_bucket_range(z, &lo, &hi);
			assert_true(hi + 1 == first[c + 1]);
		}
		next = z + 1;
	}
	assert_int_equal(next, PB_ACCT_BUCKETS);
	assert_null(pb_acct_class(PB_ACCT_NCLASSES, NULL, NULL));
	assert_null(pb_acct_class(-1, NULL, NULL));
	assert_string_equal(pb_acct_prim_name(PB_ACCT_MEMSET), "memset");
	assert_string_equal(pb_acct_prim_name(PB_ACCT_EXPLICIT_BZERO), "explicit_bzero");
	assert_string_equal(pb_acct_prim_name(PB_ACCT_MEMMOVE), "memmove");
	assert_string_equal(pb_acct_prim_name(PB_ACCT_NPRIM), "all");
	assert_null(pb_acct_prim_name(PB_ACCT_NPRIM + 1));
	assert_null(pb_acct_prim_name(-1));
	/* An estimate of no primitive: all zero. */
	struct pb_acct_total z = {0};
	z.prim[0].bucket[1].calls = 5;
	struct pb_acct_est e;
	memset(&e, 0x5a, sizeof e);
	pb_acct_estimate(&z, PB_ACCT_NPRIM + 1, 0, 64, &e);
	assert_int_equal(e.calls, 0);
	assert_float_equal(e.ticks, 0, 0);
}

static void test_bucket_estimate(void **state)
{
	(void)state;
	struct pb_acct_bucket b = {
	    .calls = 1000, .bytes = 8000, .sampled_calls = 16, .sampled_ticks = 480};
	assert_float_equal(pb_acct_bucket_est_ticks(&b), 30000.0, 1e-9);
	b.sampled_calls = 0;
	b.sampled_ticks = 0;
	assert_true(isnan(pb_acct_bucket_est_ticks(&b))); /* unknown, not 0 */
	b.calls = 0;
	assert_float_equal(pb_acct_bucket_est_ticks(&b), 0.0, 0);
	/* No overflow on products past 2^64. */
	struct pb_acct_bucket big = {
	    .calls = UINT64_C(1) << 40, .sampled_calls = 1, .sampled_ticks = UINT64_C(1) << 40};
	assert_float_equal(pb_acct_bucket_est_ticks(&big), ldexp(1, 80), ldexp(1, 30));
}

static void test_totals(void **state)
{
	(void)state;
	struct pb_acct_total *t = read_scenario();
	assert_int_equal(t->processes, 4);
	assert_int_equal(t->forked, 1);
	assert_int_equal(t->policy_failed, 1);
	assert_int_equal(t->ticks_processes, 3);
	assert_int_equal(t->skipped, 7);

	/* Programs, first seen first (name order of the files). */
	assert_int_equal(t->n_exe, 3);
	assert_string_equal(t->exe[0].path, "/usr/bin/make");
	assert_int_equal(t->exe[0].processes, 2);
	assert_string_equal(t->exe[1].path, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1");
	assert_int_equal(t->exe[1].processes, 1);
	assert_string_equal(t->exe[2].path, "/bin/true");
	assert_int_equal(t->exe_other, 0);
	/* Sample rates of the ticks-mode files only. */
	assert_int_equal(t->n_rate, 2);
	assert_int_equal(t->rate[0].sample_every, 64);
	assert_int_equal(t->rate[0].processes, 2);
	assert_int_equal(t->rate[1].sample_every, 128);
	assert_int_equal(t->rate[1].processes, 1);

	/* Counters. */
	const struct pb_acct_prim_counts *mc = &t->prim[PB_ACCT_MEMCPY];
	assert_int_equal(mc->calls, 1000 + 100 + 200 + 64 + 50);
	assert_int_equal(mc->bytes, 8 * 1264 + 4096 * 100 + 20 * 50);
	assert_int_equal(mc->bucket[4].calls, 1264);
	assert_int_equal(mc->bucket[4].bytes, 8 * 1264);
	assert_int_equal(mc->bucket[4].sampled_calls, 20);
	assert_int_equal(mc->bucket[4].sampled_ticks, 680);
	assert_int_equal(mc->bucket[13].calls, 100);
	assert_int_equal(mc->bucket[5].calls, 50);
	assert_int_equal(t->prim[PB_ACCT_MEMSET].calls, 645);
	assert_int_equal(t->prim[PB_ACCT_MEMSET].bucket[0].calls, 5);
	assert_int_equal(t->prim[PB_ACCT_MEMSET].bucket[0].bytes, 0);
	assert_int_equal(t->prim[PB_ACCT_MEMSET].bucket[7].calls, 640);
	assert_int_equal(t->prim[PB_ACCT_MEMMOVE].bucket[22].calls, 3);
	assert_int_equal(t->prim[PB_ACCT_MEMMOVE].bytes, 3 * (2 << 20));
	assert_int_equal(t->prim[PB_ACCT_BZERO].calls, 10);
	assert_int_equal(t->prim[PB_ACCT_MEMPCPY].bucket[3].calls, 7);
	assert_int_equal(t->prim[PB_ACCT_EXPLICIT_BZERO].bucket[6].calls, 1);

	/* Notes of the first four skipped files, in name order. */
	assert_non_null(strstr(t->skip_note[0], "primswitch-900-bad-magic.acct: not a primswitch "
	                                        "accounting file (bad magic)"));
	assert_non_null(strstr(t->skip_note[1], "primswitch-901-truncated.acct: truncated "
	                                        "accounting file (100 bytes, expected"));
	assert_non_null(strstr(t->skip_note[2], "primswitch-902-version.acct: accounting file "
	                                        "version 3; this primbench reads version 2"));
	assert_non_null(strstr(t->skip_note[3], "primswitch-903-empty.acct: incomplete: empty"));

	/* Reading the directory again adds to the sums. */
	assert_int_equal(pb_acct_read_dir(dir, t), 4);
	assert_int_equal(t->processes, 8);
	assert_int_equal(t->skipped, 14);
	assert_int_equal(t->exe[0].processes, 4);
	assert_int_equal(t->prim[PB_ACCT_MEMCPY].bucket[4].calls, 2 * 1264);
	free(t);
}

static void test_estimates(void **state)
{
	(void)state;
	struct pb_acct_total *t = read_scenario();
	struct pb_acct_est e;

	/* memcpy 8..15: pooled over the files: 680 ticks for 20 timed calls,
	 * 1264 calls (the 64 of cc1 untimed but in a timed bucket). */
	pb_acct_estimate(t, PB_ACCT_MEMCPY, 4, 4, &e);
	assert_float_equal(e.ticks, 680.0 * 1264 / 20, 1e-6);
	assert_int_equal(e.calls_estimated, 1264);
	assert_int_equal(e.calls_unestimated, 0);
	assert_int_equal(e.sampled_calls, 20);

	/* memcpy 16..31: calls, no timed call: unknown. */
	pb_acct_estimate(t, PB_ACCT_MEMCPY, 5, 5, &e);
	assert_true(isnan(e.ticks));
	assert_int_equal(e.calls, 50);
	assert_int_equal(e.calls_unestimated, 50);

	/* An empty range: 0 ticks, known. */
	pb_acct_estimate(t, PB_ACCT_MEMCPY, 30, 40, &e);
	assert_float_equal(e.ticks, 0.0, 0);
	assert_int_equal(e.calls, 0);

	/* The whole of memcpy: the known buckets, plus a count of the rest. */
	pb_acct_estimate(t, PB_ACCT_MEMCPY, 0, 1000, &e);
	assert_float_equal(e.ticks, 42976.0 + 50000.0, 1e-6);
	assert_int_equal(e.calls, 1414);
	assert_int_equal(e.bytes, 8 * 1264 + 409600 + 1000);
	assert_int_equal(e.calls_estimated, 1364);
	assert_int_equal(e.calls_unestimated, 50);

	/* Class 1..15 (buckets 1-4) and 4K..64K-1 (13-16). */
	unsigned lo, hi;
	pb_acct_class(PB_ACCT_CLASS_1_15, &lo, &hi);
	pb_acct_estimate(t, PB_ACCT_MEMCPY, lo, hi, &e);
	assert_int_equal(e.calls, 1264);
	assert_float_equal(e.ticks, 42976.0, 1e-6);
	pb_acct_class(PB_ACCT_CLASS_4K_64K, &lo, &hi);
	pb_acct_estimate(t, PB_ACCT_MEMCPY, lo, hi, &e);
	assert_int_equal(e.calls, 100);
	assert_float_equal(e.ticks, 50000.0, 1e-6);

	/* memset: bucket 0 untimed, bucket 7 timed. */
	pb_acct_estimate(t, PB_ACCT_MEMSET, 0, 64, &e);
	assert_float_equal(e.ticks, 200.0 * 640 / 10, 1e-6);
	assert_int_equal(e.calls_unestimated, 5);
	/* bzero: calls, nothing timed: unknown. */
	pb_acct_estimate(t, PB_ACCT_BZERO, 0, 64, &e);
	assert_true(isnan(e.ticks));
	assert_int_equal(e.calls_unestimated, 10);

	/* All primitives. */
	pb_acct_estimate(t, PB_ACCT_NPRIM, 0, 64, &e);
	assert_float_equal(e.ticks, 92976.0 + 12800.0 + 3e6, 1e-6);
	assert_int_equal(e.calls, 1414 + 645 + 3 + 10 + 7 + 1);
	assert_int_equal(e.calls_unestimated, 50 + 5 + 10 + 7 + 1);
	assert_int_equal(e.sampled_calls, 20 + 2 + 10 + 1);
	free(t);
}

static void test_read_file_errors(void **state)
{
	(void)state;
	struct pb_acct_file f, before;
	memset(&f, 0x5a, sizeof f);
	before = f;
	char path[512];
	static const struct {
		const char *name, *msg;
	} cases[] = {
	    {"primswitch-900-bad-magic.acct", "not a primswitch accounting file (bad magic)"},
	    {"primswitch-901-truncated.acct", "truncated accounting file (100 bytes, expected "},
	    {"primswitch-902-version.acct",
	     "accounting file version 3; this primbench reads version 2"},
	    {"primswitch-903-empty.acct",
	     "incomplete: empty (its process may have died while creating it)"},
	    {"primswitch-904-no-magic.acct",
	     "incomplete: no magic yet (its process may have died while creating it)"},
	    {"primswitch-905-large.acct", "accounting file of more than "},
	    {"primswitch-906-no-version.acct",
	     "incomplete: no version yet (its process may have died while creating it)"},
	    {"notes.txt", "not a primswitch accounting file (bad magic)"},
	    {"missing.acct", "cannot open: No such file or directory"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
		pb_fail("(not set)");
		assert_int_equal(pb_acct_read_file(path, &f), -1);
		char want[1024];
		snprintf(want, sizeof want, "%s: %s", path, cases[i].msg);
		if (strncmp(pb_error(), want, strlen(want)) != 0)
			fail_msg("%s: got '%s', want '%s...'", cases[i].name, pb_error(), want);
		assert_memory_equal(&f, &before, sizeof f); /* untouched */
	}
	/* The exact sizes in the messages. */
	snprintf(path, sizeof path, "%s/primswitch-901-truncated.acct", dir);
	pb_acct_read_file(path, &f);
	char want[600];
	snprintf(want, sizeof want, "%s: truncated accounting file (100 bytes, expected %zu)", path,
	         sizeof(struct pb_acct_file));
	assert_string_equal(pb_error(), want);

	/* A directory of an accounting name. */
	assert_int_equal(pb_acct_read_file(dir, &f), -1);
	snprintf(want, sizeof want, "%s: not a primswitch accounting file (not a regular file)",
	         dir);
	assert_string_equal(pb_error(), want);

	/* A file whose size_bytes field disagrees. */
	struct pb_acct_file g;
	header(&g, 1, "/x", 0, 0, 0, 1);
	g.size_bytes = 12;
	write_bytes(dir, "sizefield.bin", &g, sizeof g);
	snprintf(path, sizeof path, "%s/sizefield.bin", dir);
	assert_int_equal(pb_acct_read_file(path, &f), -1);
	snprintf(want, sizeof want, "%s: accounting file says it has 12 bytes, expected %zu", path,
	         sizeof g);
	assert_string_equal(pb_error(), want);

	/* A short file whose first bytes are not the magic: bad magic, not
	 * truncated. */
	write_bytes(dir, "short.bin", "PBX", 3);
	snprintf(path, sizeof path, "%s/short.bin", dir);
	assert_int_equal(pb_acct_read_file(path, &f), -1);
	assert_non_null(strstr(pb_error(), "(bad magic)"));
	/* A short file that starts like one: truncated. */
	write_bytes(dir, "short2.bin", "PBACCT\0\1\1\0", 10);
	snprintf(path, sizeof path, "%s/short2.bin", dir);
	assert_int_equal(pb_acct_read_file(path, &f), -1);
	snprintf(want, sizeof want, "%s: truncated accounting file (10 bytes, expected %zu)", path,
	         sizeof g);
	assert_string_equal(pb_error(), want);

	/* A good file: copied, text fields NUL-terminated even when the file's
	 * are not. */
	header(&g, 7, "/bin/x", 1, 32, 0, 1);
	memset(g.exe, 'a', sizeof g.exe);
	memset(g.policy[2], 'b', sizeof g.policy[2]);
	calls(&g, PB_ACCT_MEMCPY, 100, 3, 1, 77);
	write_bytes(dir, "good.bin", &g, sizeof g);
	snprintf(path, sizeof path, "%s/good.bin", dir);
	assert_int_equal(pb_acct_read_file(path, &f), 0);
	assert_int_equal(f.pid, 7);
	assert_int_equal(f.sample_every, 32);
	assert_int_equal(strlen(f.exe), PB_ACCT_TEXT - 1);
	assert_int_equal(strlen(f.policy[2]), PB_ACCT_TEXT - 1);
	assert_string_equal(f.policy[0], "rep_stosb<=2048,avx2");
	assert_memory_equal(f.prim, g.prim, sizeof g.prim);

	unlink(path);
	snprintf(path, sizeof path, "%s/sizefield.bin", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/short.bin", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/short2.bin", dir);
	unlink(path);
}

/* The text pb_acct_print writes, malloc'd. buf and len are static: the
 * stream keeps their addresses until fclose, and with automatic ones gcc 12
 * (aarch64, -O2, print inlined) takes the returned text for a pointer that
 * may still point at them (-Wdangling-pointer). */
static char *print(const struct pb_acct_total *t, double hz, double cpu, int flags)
{
	static char *buf;
	static size_t len;
	buf = NULL;
	len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	pb_acct_print(m, t, hz, cpu, flags);
	fclose(m);
	return buf;
}

static void check_width(const char *text)
{
	int line = 1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (n > 80)
			fail_msg("line %d has %zu columns: %.*s", line, n, (int)n, p);
		p += n + (nl ? 1 : 0);
		line++;
	}
}

static void test_read_dir_errors(void **state)
{
	(void)state;
	struct pb_acct_total t = {0}, before;
	t.processes = 42;
	before = t;
	char path[512];
	snprintf(path, sizeof path, "%s/no-such-dir", dir);
	assert_int_equal(pb_acct_read_dir(path, &t), -1);
	char want[600];
	snprintf(want, sizeof want,
	         "%s: cannot read accounting directory: No such file or directory", path);
	assert_string_equal(pb_error(), want);
	assert_memory_equal(&t, &before, sizeof t);

	/* An empty directory: nothing, no error. */
	char empty[200]; /* long: the skip notes must still fit in 80 columns */
	snprintf(empty, sizeof empty,
	         "/tmp/pb-acct-empty-with-a-name-longer-than-a-line-of-the-table-"
	         "so-that-its-paths-must-be-cut-XXXXXX");
	assert_non_null(mkdtemp(empty));
	struct pb_acct_total z = {0};
	assert_int_equal(pb_acct_read_dir(empty, &z), 0);
	assert_int_equal(z.processes, 0);
	assert_int_equal(z.skipped, 0);

	/* A FIFO and a directory named like accounting files: skipped, the
	 * FIFO without blocking. */
	char p1[256], p2[256];
	snprintf(p1, sizeof p1, "%s/primswitch-1-fifo.acct", empty);
	snprintf(p2, sizeof p2, "%s/primswitch-2-dir.acct", empty);
	assert_int_equal(mkfifo(p1, 0600), 0);
	assert_int_equal(mkdir(p2, 0700), 0);
	assert_int_equal(pb_acct_read_dir(empty, &z), 0);
	assert_int_equal(z.skipped, 2);
	assert_non_null(strstr(z.skip_note[0], "primswitch-1-fifo.acct: not a primswitch "
	                                       "accounting file (not a regular file)"));
	assert_non_null(strstr(z.skip_note[1], "(not a regular file)"));
	char *out = print(&z, 1e9, 1, 0);
	check_width(out);
	assert_non_null(strstr(out, "  skipped 2 files named like accounting files:\n    /tmp/"));
	free(out);
	unlink(p1);
	rmdir(p2);
	rmdir(empty);
}

static void test_add_bounded_lists(void **state)
{
	(void)state;
	struct pb_acct_total *t = calloc(1, sizeof *t);
	struct pb_acct_file *f = malloc(sizeof *f);
	for (int i = 0; i < PB_ACCT_MAX_EXES + 5; i++) {
		char exe[32];
		snprintf(exe, sizeof exe, "/bin/p%d", i);
		header(f, i, exe, 1, (uint32_t)(i + 1), i % 2, 1);
		calls(f, PB_ACCT_MEMSET, 1, 1, 1, 10);
		pb_acct_add(t, f);
		pb_acct_add(t, f); /* twice: same exe, same rate */
	}
	assert_int_equal(t->processes, 2 * (PB_ACCT_MAX_EXES + 5));
	assert_int_equal(t->forked, 2 * ((PB_ACCT_MAX_EXES + 5) / 2));
	assert_int_equal(t->n_exe, PB_ACCT_MAX_EXES);
	assert_int_equal(t->exe[0].processes, 2);
	assert_string_equal(t->exe[PB_ACCT_MAX_EXES - 1].path, "/bin/p15");
	assert_int_equal(t->exe_other, 10);
	assert_int_equal(t->n_rate, PB_ACCT_MAX_RATES);
	assert_int_equal(t->rate_other, 2 * (PB_ACCT_MAX_EXES + 5 - PB_ACCT_MAX_RATES));
	assert_int_equal(t->prim[PB_ACCT_MEMSET].bucket[1].calls, 2 * (PB_ACCT_MAX_EXES + 5));

	/* Sums saturate instead of wrapping. */
	header(f, 1, "/bin/p0", 0, 0, 0, 1);
	f->prim[PB_ACCT_MEMCPY].bytes = UINT64_MAX - 1;
	f->prim[PB_ACCT_MEMCPY].bucket[64].bytes = UINT64_MAX - 1;
	pb_acct_add(t, f);
	pb_acct_add(t, f);
	assert_true(t->prim[PB_ACCT_MEMCPY].bytes == UINT64_MAX);
	assert_true(t->prim[PB_ACCT_MEMCPY].bucket[64].bytes == UINT64_MAX);

	/* An exe not NUL-terminated in a hand-made struct: bounded. */
	header(f, 2, "", 0, 0, 0, 1);
	memset(f->exe, 'z', sizeof f->exe);
	struct pb_acct_total *u = calloc(1, sizeof *u);
	pb_acct_add(u, f);
	assert_int_equal(strlen(u->exe[0].path), PB_ACCT_TEXT - 1);
	free(u);
	free(f);
	free(t);
}

static void has_line(const char *text, const char *line)
{
	char want[256];
	snprintf(want, sizeof want, "\n%s\n", line);
	if (!strstr(text, want) && strncmp(text, want + 1, strlen(want + 1)) != 0)
		fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_print(void **state)
{
	(void)state;
	struct pb_acct_total *t = read_scenario();
	char *out = print(t, 1e9, 0.01, 0);
	if (getenv("PB_SHOW"))
		fputs(out, stdout);
	check_width(out);
	has_line(out, "accounting: 4 files, one per process image (3 exec'd, 1 forked child)");
	has_line(out, "  programs: make 2, cc1 1, true 1");
	has_line(out,
	         "  timed: the 1st call, then 1 in 64 (2 processes), 128 (1 process) per thread");
	has_line(out,
	         "    and size bucket, in 3 of the 4 processes (the others counted only); TSC");
	assert_non_null(strstr(out, "  warning: 1 process could not use its policies"));
	has_line(out, "  skipped 7 files named like accounting files:");
	assert_non_null(strstr(out, "primswitch-900-bad-magic.acct: not a primswitch"));
	assert_non_null(strstr(out, "primswitch-903-empty.acct: incomplete: empty"));
	assert_null(strstr(out, "primswitch-904"));
	has_line(out, "    and 3 more");
	has_line(out, "primitive           calls      bytes bytes/call  est. ticks  est. time "
	              "    %cpu");
	/* memcpy: 1414 calls, 420712 B = 411 KiB, 298 B/call, 92976 ticks
	 * (lower bound: 50 calls untimed), 93.0 us, 0.93% of 10 ms. */
	has_line(out, "memcpy               1414    411 KiB      298 B      92976+   93.0 us+ "
	              "   0.9%+");
	has_line(out, "memmove                 3   6.00 MiB   2.00 MiB     3000000    3.00 ms "
	              "   30.0%");
	has_line(out, "bzero                  10      640 B     64.0 B           -          - "
	              "       -");
	/* 6776875 bytes, 3105776 ticks of which 12800 + 92976 + 3000000. */
	has_line(out, "all                  2080   6.46 MiB   3.18 KiB    3105776+   3.11 ms+ "
	              "  31.1%+");
	has_line(out, "memcpy              calls  calls%  bytes%   time%  ticks/call     timed");
	has_line(out, "  1..15              1264   89.4%    2.4%   46.2%        34.0        20");
	has_line(out, "  16..63               50    3.5%    0.2%       -           -         0");
	has_line(out, "  4K..64K-1           100    7.1%   97.4%   53.8%         500         2");
	has_line(out, "memset              calls  calls%  bytes%   time%  ticks/call     timed");
	has_line(out, "  0                     5    0.8%    0.0%       -           -         0");
	has_line(out, "  64..255             640   99.2%  100.0%  100.0%        20.0        10");
	assert_non_null(strstr(out, "+ a lower bound"));
	assert_non_null(strstr(out, "%cpu: est. time over the command's user+sys time (10.0 ms"));
	assert_non_null(strstr(out, "est. time and %cpu are sampled"));
	assert_non_null(strstr(out, "reference cycles"));
	assert_non_null(strstr(out, "inside libc itself"));
	assert_non_null(strstr(out, "statically linked"));
	has_line(out, "mempcpy                 7       35 B     5.00 B           -          - "
	              "       -");
	has_line(out, "  1..15                 7  100.0%  100.0%       -           -         0");
	free(out);

	/* Per log2 bucket. */
	out = print(t, 1e9, 0.01, PB_ACCT_PRINT_BUCKETS | PB_ACCT_PRINT_NO_CAVEATS);
	if (getenv("PB_SHOW"))
		fputs(out, stdout);
	check_width(out);
	has_line(out, "  8..15              1264   89.4%    2.4%   46.2%        34.0        20");
	has_line(out, "  16..31               50    3.5%    0.2%       -           -         0");
	has_line(out, "  4K..8K-1            100    7.1%   97.4%   53.8%         500         2");
	has_line(out, "  2M..4M-1              3  100.0%  100.0%  100.0%     1000000         1");
	has_line(out, "  64..127             640   99.2%  100.0%  100.0%        20.0        10");
	assert_null(strstr(out, "inside libc itself"));
	free(out);

	/* Unknown frequency and CPU time: ticks only. */
	out = print(t, 0, 0, PB_ACCT_PRINT_NO_CAVEATS);
	check_width(out);
	assert_non_null(strstr(out, "no times"));
	has_line(out, "memcpy               1414    411 KiB      298 B      92976+          - "
	              "       -");
	assert_null(strstr(out, "%cpu: est."));
	free(out);
	free(t);
}

/* A file's absurd figures (a corrupt file, a clock gone wrong) keep the
 * columns: est. time and %cpu in e-notation (found by fuzz_accounting:
 * tests/fuzz/regress/accounting/long-time). */
static void test_print_huge_figures(void **state)
{
	(void)state;
	struct pb_acct_file f;
	header(&f, 1, "/bin/x", 1, 1, 0, 1);
	calls(&f, PB_ACCT_MEMCPY, UINT64_C(1) << 63, 1, 1, (UINT64_C(1) << 63) - 1);
	f.prim[PB_ACCT_MEMCPY].calls = 1;
	f.prim[PB_ACCT_MEMCPY].bytes = UINT64_C(1) << 63;
	struct pb_acct_total t = {0};
	pb_acct_add(&t, &f);
	char *out = print(&t, 1e9, 1e-3, PB_ACCT_PRINT_NO_CAVEATS);
	check_width(out);
	has_line(out, "memcpy                  1   8.00 EiB   8.00 EiB     9.22e18   9.22e9 s "
	              "9.22e14%");
	free(out);
	/* below 1e7 s and 1e7 %: whole numbers */
	header(&f, 1, "/bin/x", 1, 1, 0, 1);
	calls(&f, PB_ACCT_MEMCPY, 64, 1, 1, UINT64_C(5000000) * 1000000000);
	f.prim[PB_ACCT_MEMCPY].calls = 1;
	f.prim[PB_ACCT_MEMCPY].bytes = 64;
	memset(&t, 0, sizeof t);
	pb_acct_add(&t, &f);
	out = print(&t, 1e9, 1000, PB_ACCT_PRINT_NO_CAVEATS);
	check_width(out);
	has_line(out, "memcpy                  1       64 B     64.0 B     5.00e15  5000000 s "
	              " 500000%");
	free(out);
}

static void test_print_counts_only_and_empty(void **state)
{
	(void)state;
	struct pb_acct_total *t = calloc(1, sizeof *t);
	struct pb_acct_file *f = malloc(sizeof *f);
	header(f, 5, "/usr/bin/sort", 0, 0, 0, 1);
	calls(f, PB_ACCT_MEMCPY, 1 << 20, 12, 0, 0);
	calls(f, PB_ACCT_MEMCPY, 3, 1000000000, 0, 0);
	pb_acct_add(t, f);
	char *out = print(t, 2.6e9, 1.5, 0);
	if (getenv("PB_SHOW"))
		fputs(out, stdout);
	check_width(out);
	has_line(out, "accounting: 1 file, one per process image (1 exec'd, 0 forked children)");
	assert_non_null(strstr(out, "  timed: no (PRIMBENCH_ACCOUNT=1 counts calls and bytes"));
	has_line(out, "memcpy             1.00e9   2.81 GiB     3.01 B           -          - "
	              "       -");
	/* Primitives without calls have no rows. */
	assert_null(strstr(out, "\nmemset "));
	assert_null(strstr(out, "\nmemmove "));
	has_line(out, "  1..15            1.00e9  100.0%   99.6%       -           -         0");
	has_line(out, "  >=1M                 12   <0.1%    0.4%       -           -         0");
	assert_null(strstr(out, "+ a lower bound")); /* nothing was timed at all */
	assert_null(strstr(out, "\nall "));          /* one primitive */
	free(out);

	/* A live writer's snapshot: the primitive's counters ahead of its buckets. */
	t->prim[PB_ACCT_MEMCPY].calls += 2;
	out = print(t, 2.6e9, 1.5, PB_ACCT_PRINT_NO_CAVEATS);
	check_width(out);
	if (getenv("PB_SHOW"))
		fputs(out, stdout);
	assert_non_null(strstr(out, "\nnote: memcpy: 1000000014 calls (3012582912 bytes) counted "
	                            "but 1000000012\n  (3012582912) in the size buckets"));
	free(out);

	struct pb_acct_total z = {0};
	out = print(&z, 2.6e9, 1.5, 0);
	check_width(out);
	has_line(out, "accounting: 0 files");
	assert_non_null(strstr(out, "no call was counted"));
	free(out);
	json_t *j = acct_json(&z, 2.6e9, 1.5);
	assert_int_equal(json_integer_value(json_object_get(j, "processes")), 0);
	assert_int_equal(json_object_size(json_object_get(j, "primitives")), PB_ACCT_NPRIM);
	json_t *all = json_object_get(j, "all");
	assert_int_equal(json_integer_value(json_object_get(all, "calls")), 0);
	assert_float_equal(json_real_value(json_object_get(all, "est_ticks")), 0, 0);
	assert_float_equal(json_real_value(json_object_get(all, "cpu_pct")), 0, 0);
	json_decref(j);
	free(f);
	free(t);
}

static void test_json(void **state)
{
	(void)state;
	struct pb_acct_total *t = read_scenario();
	json_t *j = acct_json(t, 1e9, 0.01);
	assert_non_null(j);
	char *s = json_dumps(j, JSON_INDENT(1));
	assert_non_null(s);
	if (getenv("PB_SHOW"))
		puts(s);
	free(s);
	assert_int_equal(json_integer_value(json_object_get(j, "processes")), 4);
	assert_int_equal(json_integer_value(json_object_get(j, "forked")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "policy_failed")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "ticks_processes")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "files_skipped")), 7);
	assert_int_equal(json_array_size(json_object_get(j, "skip_notes")), 4);
	json_t *progs = json_object_get(j, "programs");
	assert_int_equal(json_array_size(progs), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(progs, 0), "exe")),
	                    "/usr/bin/make");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(progs, 0), "processes")),
	                 2);
	json_t *rates = json_object_get(j, "sample_every");
	assert_int_equal(json_array_size(rates), 2);
	assert_int_equal(
	    json_integer_value(json_object_get(json_array_get(rates, 1), "sample_every")), 128);
	assert_float_equal(json_real_value(json_object_get(j, "tsc_hz")), 1e9, 0);
	assert_float_equal(json_real_value(json_object_get(j, "cpu_time_s")), 0.01, 0);

	json_t *prims = json_object_get(j, "primitives");
	assert_int_equal(json_object_size(prims), PB_ACCT_NPRIM);
	json_t *mc = json_object_get(prims, "memcpy");
	assert_non_null(mc);
	assert_int_equal(json_integer_value(json_object_get(mc, "calls")), 1414);
	assert_int_equal(json_integer_value(json_object_get(mc, "bytes")), 420712);
	assert_int_equal(json_integer_value(json_object_get(mc, "sampled_calls")), 22);
	assert_float_equal(json_real_value(json_object_get(mc, "est_ticks")), 92976, 1e-6);
	assert_float_equal(json_real_value(json_object_get(mc, "est_s")), 92976e-9, 1e-15);
	assert_float_equal(json_real_value(json_object_get(mc, "cpu_pct")), 0.92976, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(mc, "calls_unestimated")), 50);
	json_t *cls = json_object_get(mc, "classes");
	assert_int_equal(json_array_size(cls), PB_ACCT_NCLASSES);
	json_t *c1 = json_array_get(cls, PB_ACCT_CLASS_1_15);
	assert_string_equal(json_string_value(json_object_get(c1, "class")), "1..15");
	assert_int_equal(json_integer_value(json_object_get(c1, "min_bytes")), 1);
	assert_int_equal(json_integer_value(json_object_get(c1, "max_bytes")), 15);
	assert_int_equal(json_integer_value(json_object_get(c1, "calls")), 1264);
	assert_float_equal(json_real_value(json_object_get(c1, "est_ticks")), 42976, 1e-6);
	json_t *c2 = json_array_get(cls, PB_ACCT_CLASS_16_63);
	assert_true(json_is_null(json_object_get(c2, "est_ticks"))); /* unknown */
	assert_true(json_is_null(json_object_get(c2, "est_s")));
	assert_int_equal(json_integer_value(json_object_get(c2, "calls_unestimated")), 50);
	json_t *top = json_array_get(cls, PB_ACCT_CLASS_1M_UP);
	assert_int_equal(json_integer_value(json_object_get(top, "min_bytes")), 1 << 20);
	assert_true(json_is_null(json_object_get(top, "max_bytes")));
	assert_float_equal(json_real_value(json_object_get(top, "est_ticks")), 0, 0);
	json_t *bk = json_object_get(mc, "buckets");
	assert_int_equal(json_array_size(bk), 3); /* the non-empty ones */
	json_t *b0 = json_array_get(bk, 0);
	assert_int_equal(json_integer_value(json_object_get(b0, "bucket")), 4);
	assert_int_equal(json_integer_value(json_object_get(b0, "min_bytes")), 8);
	assert_int_equal(json_integer_value(json_object_get(b0, "max_bytes")), 15);
	assert_int_equal(json_integer_value(json_object_get(b0, "sampled_calls")), 20);
	assert_int_equal(json_integer_value(json_object_get(b0, "sampled_ticks")), 680);

	json_t *bz = json_object_get(prims, "bzero");
	assert_true(json_is_null(json_object_get(bz, "est_ticks")));
	assert_true(json_is_null(json_object_get(bz, "cpu_pct")));
	json_t *mp = json_object_get(prims, "memset");
	assert_int_equal(json_integer_value(json_object_get(mp, "calls")), 645);

	json_t *all = json_object_get(j, "all");
	assert_int_equal(json_integer_value(json_object_get(all, "calls")), 2080);
	assert_float_equal(json_real_value(json_object_get(all, "est_ticks")), 3105776, 1e-6);
	assert_float_equal(json_real_value(json_object_get(all, "cpu_pct")), 31.05776, 1e-9);
	json_decref(j);

	/* Unknown frequency and CPU time: nulls. */
	j = acct_json(t, 0, -1);
	assert_true(json_is_null(json_object_get(j, "tsc_hz")));
	assert_true(json_is_null(json_object_get(j, "cpu_time_s")));
	mc = json_object_get(json_object_get(j, "primitives"), "memcpy");
	assert_float_equal(json_real_value(json_object_get(mc, "est_ticks")), 92976, 1e-6);
	assert_true(json_is_null(json_object_get(mc, "est_s")));
	assert_true(json_is_null(json_object_get(mc, "cpu_pct")));
	json_decref(j);

	/* A program path that is not UTF-8 still makes valid JSON. */
	struct pb_acct_total *u = calloc(1, sizeof *u);
	struct pb_acct_file *f = malloc(sizeof *f);
	header(f, 1, "/tmp/\xff\xfe-prog", 0, 0, 0, 1);
	pb_acct_add(u, f);
	j = acct_json(u, 1e9, 1);
	s = json_dumps(j, 0);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"/tmp/?\?-prog\""));
	free(s);
	json_decref(j);
	free(f);
	free(u);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_buckets_and_classes),
	    cmocka_unit_test(test_bucket_estimate),
	    cmocka_unit_test(test_totals),
	    cmocka_unit_test(test_estimates),
	    cmocka_unit_test(test_read_file_errors),
	    cmocka_unit_test(test_read_dir_errors),
	    cmocka_unit_test(test_add_bounded_lists),
	    cmocka_unit_test(test_print),
	    cmocka_unit_test(test_print_huge_figures),
	    cmocka_unit_test(test_print_counts_only_and_empty),
	    cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
