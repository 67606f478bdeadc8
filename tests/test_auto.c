/* test_auto.c - the auto kernels and their policies (include/primbench/
 * auto.h, tune.h, tune_rules.h): the policy file's format and every error
 * with its line, the round trip through pb_auto_file_text, where the file
 * is looked for, set-up from a file, a missing file and a bad one, the
 * built-in defaults, pb_tune_merge, and auto's correctness through the
 * same sweep as every kernel (include/primbench/selftest.h) under policies
 * that mix kernels, with bounds around the one-vector inline path. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/auto.h"
#include "primbench/error.h"
#include "primbench/selftest.h"
#include "primbench/tune.h"
#include "primbench/tune_rules.h"

#include "hide_profile.h"

#define ALL ((pb_features)-1)

#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		const char *h_ = (hay), *n_ = (needle);                                            \
		if (!strstr(h_, n_))                                                               \
			fail_msg("'%s' does not contain '%s'", h_, n_);                            \
	} while (0)

static struct pb_policy policy(enum pb_op op, const char *text)
{
	struct pb_policy p;
	if (pb_policy_parse(op, text, pb_cpu_features(), &p) != 0)
		fail_msg("%s", pb_error());
	return p;
}

static void parse_fails(const char *text, const char *want)
{
	struct pb_auto_file f;
	assert_int_equal(pb_auto_file_parse(text, strlen(text), "p", ALL, &f), -1);
	assert_contains(pb_error(), want);
	assert_null(strchr(pb_error(), '\n'));
}

static void test_file_parse(void **state)
{
	(void)state;
	const char *text = "# comment\n"
	                   "\n"
	                   "  memset = bytes<=15 , gpr_unrolled<=4K,libc  \r\n"
	                   "\t# indented comment\n"
	                   "memmove=gpr_unrolled\n"
	                   "cpu = Some CPU(R) 3.0GHz\n";
	struct pb_auto_file f;
	/* a policy may not contain blanks around its items: the value is
	 * the policy text as the grammar reads it */
	assert_int_equal(pb_auto_file_parse(text, strlen(text), "p", ALL, &f), -1);
	assert_contains(pb_error(), "p:3: bad policy 'bytes<=15 , gpr_unrolled<=4K,libc'");

	text = "# comment\n"
	       "\n"
	       "  memset = bytes<=15,gpr_unrolled<=4K,libc  \r\n"
	       "\t# indented comment\n"
	       "memmove=gpr_unrolled\n"
	       "cpu = Some CPU(R) 3.0GHz"; /* no final newline */
	assert_int_equal(pb_auto_file_parse(text, strlen(text), "p", ALL, &f), 0);
	assert_true(f.set[PB_OP_MEMSET]);
	assert_false(f.set[PB_OP_MEMCPY]);
	assert_true(f.set[PB_OP_MEMMOVE]);
	assert_string_equal(f.cpu, "Some CPU(R) 3.0GHz");
	assert_int_equal(f.policy[PB_OP_MEMSET].n_bands, 3);
	assert_int_equal(f.policy[PB_OP_MEMSET].bands[1].max_bytes, 4096);
	assert_string_equal(f.policy[PB_OP_MEMSET].bands[2].kernel->name, "libc");

	/* a cpu line longer than the field is cut to PB_AUTO_CPU_MAX - 1
	 * bytes, and the cut trimmed as the whole value is (found by
	 * fuzz_policy: tests/fuzz/regress/policy/cpu-cut-blank) */
	char cut[128];
	snprintf(cut, sizeof cut, "cpu = %.62s y\n",
	         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(pb_auto_file_parse(cut, strlen(cut), "p", ALL, &f), 0);
	assert_int_equal(strlen(f.cpu), 62);
	assert_true(f.cpu[61] == 'x');
	snprintf(cut, sizeof cut, "cpu = %.63s\n",
	         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(pb_auto_file_parse(cut, strlen(cut), "p", ALL, &f), 0);
	assert_int_equal(strlen(f.cpu), PB_AUTO_CPU_MAX - 1);

	/* an empty file sets nothing */
	assert_int_equal(pb_auto_file_parse("", 0, "p", ALL, &f), 0);
	assert_false(f.set[0] || f.set[1] || f.set[2]);
	assert_string_equal(f.cpu, "");

	parse_fails("memset = libc\nfoo = 1\n", "p:2: unknown key 'foo' (known: memset, memcpy, "
	                                        "memmove, cpu)");
	parse_fails("memset libc\n", "p:1: expected 'KEY = VALUE'");
	parse_fails("memcpy = libc\nmemcpy = bytes\n", "p:2: memcpy is set twice");
	parse_fails("cpu = a\ncpu = b\n", "p:2: cpu is set twice");
	parse_fails("\n\nmemset = avx3\n", "p:3: bad policy 'avx3': unknown kernel 'avx3'");
	parse_fails("memset = bytes<=64\n", "p:1: bad policy 'bytes<=64': no default kernel");
	parse_fails("memset = rep_movsb\n", "p:1: bad policy 'rep_movsb'");
	parse_fails("memset = auto\n", "p:1: memset: a policy for auto may not name auto itself");
	parse_fails("memmove = bytes<=8,auto\n", "may not name auto itself");
	char nul[] = "memset = libc\nmem\0set = libc\n";
	struct pb_auto_file g;
	assert_int_equal(pb_auto_file_parse(nul, sizeof nul - 1, "p", ALL, &g), -1);
	assert_contains(pb_error(), "p:2: a NUL byte");
}

static void test_file_round_trip(void **state)
{
	(void)state;
	struct pb_auto_file f = {0};
	f.set[PB_OP_MEMSET] = true;
	f.policy[PB_OP_MEMSET] = policy(PB_OP_MEMSET, "bytes<=15,gpr_unrolled<=4K,libc");
	f.set[PB_OP_MEMCPY] = true;
	f.policy[PB_OP_MEMCPY] = policy(PB_OP_MEMCPY, "gpr_unrolled<=1536,libc");
	snprintf(f.cpu, sizeof f.cpu, "Test CPU");
	char *text = pb_auto_file_text(&f, "line one\n\nline three");
	assert_non_null(text);
	assert_string_equal(text, "# line one\n#\n# line three\n"
	                          "memset = bytes<=15,gpr_unrolled<=4K,libc\n"
	                          "memcpy = gpr_unrolled<=1536,libc\n"
	                          "cpu = Test CPU\n");
	struct pb_auto_file back;
	assert_int_equal(pb_auto_file_parse(text, strlen(text), "t", ALL, &back), 0);
	for (int op = 0; op < PB_OP_COUNT; op++) {
		assert_int_equal(back.set[op], f.set[op]);
		if (f.set[op])
			assert_true(pb_policy_equal(&back.policy[op], &f.policy[op]));
	}
	assert_string_equal(back.cpu, "Test CPU");
	free(text);
}

static void test_path(void **state)
{
	(void)state;
	char buf[PB_AUTO_PATH_MAX];
	setenv("HOME", "/home/u", 1);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("PRIMBENCH_POLICY_FILE");
	assert_int_equal(pb_auto_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/home/u/.config/primbench/policy");
	setenv("XDG_CONFIG_HOME", "relative/ignored", 1);
	assert_int_equal(pb_auto_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/home/u/.config/primbench/policy");
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	assert_int_equal(pb_auto_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/xdg/primbench/policy");
	setenv("PRIMBENCH_POLICY_FILE", "", 1); /* empty: not set */
	assert_int_equal(pb_auto_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/xdg/primbench/policy");
	setenv("PRIMBENCH_POLICY_FILE", "/etc/p", 1);
	assert_int_equal(pb_auto_path(buf, sizeof buf), 0);
	assert_string_equal(buf, "/etc/p");
	char small[4];
	assert_int_equal(pb_auto_path(small, sizeof small), -1);
	assert_contains(pb_error(), "longer than 3 bytes");
	unsetenv("PRIMBENCH_POLICY_FILE");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_int_equal(pb_auto_path(buf, sizeof buf), -1);
	assert_contains(pb_error(), "neither PRIMBENCH_POLICY_FILE, XDG_CONFIG_HOME nor HOME");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_setup(void **state)
{
	(void)state;
	char dir[] = "/tmp/pb-auto-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof path, "%s/policy", dir);
	setenv("PRIMBENCH_POLICY_FILE", path, 1);

	/* No file: every op gets its built-in default, which is what
	 * pb_auto_default says. */
	struct pb_auto_origin o;
	assert_int_equal(pb_auto_setup(pb_cpu_features(), &o), 0);
	assert_string_equal(o.path, path);
	for (int op = 0; op < PB_OP_COUNT; op++) {
		assert_false(o.from_file[op]);
		assert_non_null(o.default_row[op]);
		struct pb_policy d;
		const char *row;
		pb_auto_default((enum pb_op)op, pb_cpu_features(), &d, &row);
		assert_string_equal(row, o.default_row[op]);
		assert_true(pb_policy_equal(pb_auto_installed((enum pb_op)op), &d));
	}

	/* A file for memcpy only: memcpy from it, the others defaults. */
	write_file(path, "memcpy = bytes<=8,gpr_unrolled\ncpu = X\n");
	assert_int_equal(pb_auto_setup(pb_cpu_features(), &o), 0);
	assert_true(o.from_file[PB_OP_MEMCPY]);
	assert_false(o.from_file[PB_OP_MEMSET]);
	assert_string_equal(o.file_cpu, "X");
	struct pb_policy want = policy(PB_OP_MEMCPY, "bytes<=8,gpr_unrolled");
	assert_true(pb_policy_equal(pb_auto_installed(PB_OP_MEMCPY), &want));

	/* A bad file: -1 naming the file and line, nothing installed. */
	write_file(path, "memset = libc\nmemcpy = nosuch\n");
	assert_int_equal(pb_auto_setup(pb_cpu_features(), &o), -1);
	assert_contains(pb_error(), "/policy:2: bad policy 'nosuch'");
	assert_true(pb_policy_equal(pb_auto_installed(PB_OP_MEMCPY), &want));

	/* A directory: an error, not "no file". */
	setenv("PRIMBENCH_POLICY_FILE", dir, 1);
	assert_int_equal(pb_auto_setup(pb_cpu_features(), &o), -1);
	assert_contains(pb_error(), "not a regular file");

	/* A FIFO (or anything not a regular file): refused, never waited on. */
	char fifo[160];
	snprintf(fifo, sizeof fifo, "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	setenv("PRIMBENCH_POLICY_FILE", fifo, 1);
	assert_int_equal(pb_auto_setup(pb_cpu_features(), &o), -1);
	assert_contains(pb_error(), "/fifo: not a regular file");
	unlink(fifo);

	unlink(path);
	rmdir(dir);
	unsetenv("PRIMBENCH_POLICY_FILE");
}

static void test_defaults(void **state)
{
	(void)state;
	size_t n;
	const struct pb_auto_default_row *rows = pb_auto_defaults(&n);
	assert_true(n >= 2);
	/* the last row is usable everywhere; every row parses for some CPU */
	assert_string_equal(rows[n - 1].name, "generic");
	for (size_t i = 0; i < n; i++)
		for (int op = 0; op < PB_OP_COUNT; op++) {
			struct pb_policy p;
			int rc = pb_policy_parse((enum pb_op)op, rows[i].policy[op], ALL, &p);
			if (rc != 0 && strstr(pb_error(), "unknown kernel") == NULL)
				fail_msg("row %s: %s", rows[i].name, pb_error());
			assert_non_null(rows[i].source);
		}
	/* with every feature hidden, the generic row serves */
	struct pb_policy p;
	const char *row;
	pb_auto_default(PB_OP_MEMSET, 0, &p, &row);
	assert_string_equal(row, "generic");
	assert_string_equal(p.bands[0].kernel->name, "gpr_unrolled");
}

/* The built-in default follows the usable features, not the CPU's: it
 * names only kernels usable now, and where the features hidden (by a
 * profile, tests/CMakeLists.txt) take a kernel of the CPU's own default
 * away, another row serves. */
static void test_default_follows_features(void **state)
{
	(void)state;
	for (int op = 0; op < PB_OP_COUNT; op++) {
		struct pb_policy now, cpu;
		const char *row_now, *row_cpu;
		pb_auto_default((enum pb_op)op, pb_cpu_features(), &now, &row_now);
		pb_auto_default((enum pb_op)op, pb_cpu_features_detected(), &cpu, &row_cpu);
		bool cpu_row_usable = true;
		for (size_t b = 0; b < now.n_bands; b++) {
			char why[160];
			if (!pb_kernel_usable(now.bands[b].kernel, pb_cpu_features(), why,
			                      sizeof why))
				fail_msg("%s default (%s) names %s: %s", pb_op_name((enum pb_op)op),
				         row_now, now.bands[b].kernel->name, why);
		}
		for (size_t b = 0; b < cpu.n_bands; b++)
			if (!pb_kernel_usable(cpu.bands[b].kernel, pb_cpu_features(), NULL, 0))
				cpu_row_usable = false;
		print_message("%s: default row %s (the CPU's own: %s)\n",
		              pb_op_name((enum pb_op)op), row_now, row_cpu);
		if (cpu_row_usable)
			assert_string_equal(row_now, row_cpu);
		else
			assert_string_not_equal(row_now, row_cpu);
	}
}

static void test_install_refuses(void **state)
{
	(void)state;
	struct pb_policy p = policy(PB_OP_MEMSET, "auto<=64,libc");
	assert_int_equal(pb_auto_install(&p), -1);
	assert_contains(pb_error(), "may not name auto itself");
	p = policy(PB_OP_MEMSET, "libc");
	p.bands[0].kernel = pb_kernel_find(PB_OP_MEMCPY, "libc");
	assert_int_equal(pb_auto_install(&p), -1);
	assert_contains(pb_error(), "memset policy names memcpy kernel 'libc'");
}

static void merge(const char *hot, const char *dram, uint64_t split, const char *want)
{
	struct pb_policy h = policy(PB_OP_MEMSET, hot), d, out;
	if (dram)
		d = policy(PB_OP_MEMSET, dram);
	assert_int_equal(pb_tune_merge(&h, dram ? &d : NULL, split, &out), 0);
	char text[PB_POLICY_TEXT_MAX];
	assert_true(pb_policy_format(&out, text, sizeof text) > 0);
	assert_string_equal(text, want);
}

static void test_merge(void **state)
{
	(void)state;
	merge("bytes<=64,gpr_unrolled", "libc", 1024, "bytes<=64,gpr_unrolled<=1K,libc");
	/* the hot policy's bands above the split are cut off */
	merge("bytes<=64,gpr_unrolled<=4K,libc", "rbw", 1024, "bytes<=64,gpr_unrolled<=1K,rbw");
	/* the dram policy's bands at or below the split are dropped; equal
	 * neighbours joined */
	merge("bytes<=64,libc", "bytes<=1K,libc<=1M,rbw", 2048, "bytes<=64,libc<=1M,rbw");
	merge("gpr_unrolled", "gpr_unrolled", 4096, "gpr_unrolled");
	merge("bytes<=64,libc", NULL, 4096, "bytes<=64,libc");
	struct pb_policy h = policy(PB_OP_MEMSET, "libc"), d = policy(PB_OP_MEMCPY, "libc"), out;
	assert_int_equal(pb_tune_merge(&h, &d, 64, &out), -1);
	assert_int_equal(pb_tune_merge(&h, NULL, 0, &out), -1);
	/* more than 16 bands after the merge: the narrowest are joined */
	char hot[PB_POLICY_TEXT_MAX] = "", dram[PB_POLICY_TEXT_MAX] = "";
	for (int i = 0; i < 15; i++)
		snprintf(hot + strlen(hot), sizeof hot - strlen(hot), "%s<=%d,",
		         i % 2 ? "bytes" : "gpr_unrolled", 16 << i);
	strcat(hot, "libc");
	for (int i = 0; i < 15; i++)
		snprintf(dram + strlen(dram), sizeof dram - strlen(dram), "%s<=%lld,",
		         i % 2 ? "rbw" : "libc", (1LL << 22) << i);
	strcat(dram, "bytes");
	h = policy(PB_OP_MEMSET, hot);
	d = policy(PB_OP_MEMSET, dram);
	assert_int_equal(pb_tune_merge(&h, &d, 1 << 21, &out), 0);
	assert_true(out.n_bands <= PB_POLICY_MAX_BANDS && out.n_bands >= PB_POLICY_MAX_BANDS - 1);
	for (size_t i = 1; i < out.n_bands; i++) {
		assert_true(out.bands[i].max_bytes > out.bands[i - 1].max_bytes);
		assert_true(out.bands[i].kernel != out.bands[i - 1].kernel);
	}
	assert_true(out.bands[out.n_bands - 1].max_bytes == UINT64_MAX);
}

/* auto over the selftest sweep (STANDARD when full, else QUICK) with
 * policy text installed. */
static void sweep_at(enum pb_op op, const char *text, bool full)
{
	struct pb_policy p;
	if (pb_policy_parse(op, text, pb_cpu_features(), &p) != 0) {
		print_message("skipped '%s': %s\n", text, pb_error());
		return;
	}
	assert_int_equal(pb_auto_install(&p), 0);
	const struct pb_kernel *k = pb_kernel_find(op, "auto");
	assert_non_null(k);
#ifdef __SANITIZE_ADDRESS__
	full = false;
#endif
	enum pb_selftest_level lvl = full ? PB_SELFTEST_STANDARD : PB_SELFTEST_QUICK;
	struct pb_selftest_result r;
	int rc = pb_selftest_kernel(k, lvl, &r);
	if (rc != 0)
		fail_msg("%s/auto = '%s': %s", pb_op_name(op), text,
		         rc < 0 ? pb_error() : r.detail);
}

static void sweep(enum pb_op op, const char *text)
{
	sweep_at(op, text, false);
}

static void test_auto_correct(void **state)
{
	(void)state;
	for (int op = 0; op < PB_OP_COUNT; op++) {
		/* the default of this machine */
		struct pb_policy d;
		pb_auto_default((enum pb_op)op, pb_cpu_features(), &d, NULL);
		char text[PB_POLICY_TEXT_MAX];
		assert_true(pb_policy_format(&d, text, sizeof text) > 0);
		sweep_at((enum pb_op)op, text, true);
		sweep((enum pb_op)op, "bytes<=1,gpr_unrolled<=63,libc<=64,bytes<=65,gpr_unrolled");
		/* the AVX-512 entry's inline path: bounds around 64 */
		sweep((enum pb_op)op, "avx512<=31,gpr_unrolled<=4K,avx2");
		if (op != PB_OP_MEMMOVE) {
			sweep((enum pb_op)op, "avx512<=64,bytes<=100,avx512_nt");
			sweep((enum pb_op)op, "avx512_nt<=200,avx512");
		}
		sweep((enum pb_op)op, "avx512");
		sweep((enum pb_op)op, "avx2<=64,avx512<=1K,libc");
		/* arm64's kernels (skipped elsewhere: unknown there), each called
		 * directly by auto_aarch64.c, and an NT row above 2 MiB */
		sweep((enum pb_op)op, "neon<=31,gpr_unrolled<=4K,sve<=64K,mops");
		sweep((enum pb_op)op, "sve<=100,neon<=2M,neon_nt");
		/* every band a different kernel, 16 bands */
		sweep_at((enum pb_op)op,
		         "bytes<=1,gpr_unrolled<=2,libc<=3,bytes<=7,gpr_unrolled<=8,"
		         "libc<=15,bytes<=16,gpr_unrolled<=31,libc<=32,bytes<=63,"
		         "gpr_unrolled<=64,libc<=65,bytes<=127,gpr_unrolled<=128,"
		         "libc<=4K,gpr_unrolled",
		         true);
	}
	/* memset-only and memcpy-only kernels */
	sweep(PB_OP_MEMSET, "rep_stosb<=64,rep_stosq<=4K,sse2_nt");
	sweep(PB_OP_MEMSET, "dc_zva<=64,neon<=4K,dc_zva");
	sweep(PB_OP_MEMCPY, "rep_movsb<=64,rep_movsq<=4K,sse2_nt");
	sweep(PB_OP_MEMMOVE, "rep_movsb<=64,rep_movsb_fwd_movsq_bwd");
}

/* pb_tune_combine: the geometric mean of two states' medians and CI bounds,
 * for the cases both measured within the size range. */
static struct pb_mem_case combine_case(const char *kernel, uint64_t n, enum pb_cache_state st,
                                       double med, double rel)
{
	struct pb_mem_case c = {0};
	c.op = PB_OP_MEMSET;
	c.kernel = pb_kernel_find(PB_OP_MEMSET, kernel);
	assert_non_null(c.kernel);
	c.size_bytes = n;
	c.state = st;
	c.n_samples = 21;
	c.ticks_per_call.n = 21;
	c.ticks_per_call.median = med;
	c.ticks_per_call.min = med * 0.9;
	c.ticks_per_call.max = med * 1.5;
	c.ticks_per_call.ci_valid = rel > 0;
	c.ticks_per_call.ci_lo = rel > 0 ? med * (1 - rel) : NAN;
	c.ticks_per_call.ci_hi = rel > 0 ? med * (1 + rel) : NAN;
	return c;
}

static void test_combine(void **state)
{
	(void)state;
	struct pb_mem_case hot[] = {
	    combine_case("gpr_unrolled", 1024, PB_STATE_HOT, 100, 0.02),
	    combine_case("gpr_unrolled", 4096, PB_STATE_HOT, 400, 0.02),
	    combine_case("bytes", 4096, PB_STATE_HOT, 900, 0),
	    combine_case("gpr_unrolled", 1 << 20, PB_STATE_HOT, 1e5, 0.02),
	};
	struct pb_mem_case dram[] = {
	    combine_case("gpr_unrolled", 4096, PB_STATE_DRAM, 1600, 0.08),
	    combine_case("bytes", 4096, PB_STATE_DRAM, 1600, 0.05),
	    combine_case("gpr_unrolled", 1 << 20, PB_STATE_DRAM, 4e5, 0.02),
	};
	struct pb_mem_result h = {.cases = hot, .n_cases = 4}, d = {.cases = dram, .n_cases = 3};
	struct pb_mem_result out;
	/* 1024 is only hot; 1 MiB is outside [1024, 64K] */
	assert_int_equal(pb_tune_combine(&h, &d, 1024, 65536, PB_STATE_HOT, &out), 0);
	assert_int_equal(out.n_cases, 2);
	const struct pb_mem_case *g = &out.cases[0], *b = &out.cases[1];
	assert_string_equal(g->kernel->name, "gpr_unrolled");
	assert_int_equal(g->size_bytes, 4096);
	assert_int_equal(g->state, PB_STATE_HOT);
	assert_true(fabs(g->ticks_per_call.median - 800) < 1e-9); /* sqrt(400 x 1600) */
	assert_true(g->ticks_per_call.ci_valid);
	assert_true(fabs(g->ticks_per_call.ci_lo - sqrt(392.0 * 1472.0)) < 1e-9);
	assert_true(fabs(g->ticks_per_call.ci_hi - sqrt(408.0 * 1728.0)) < 1e-9);
	assert_null(g->batch_ticks);
	assert_string_equal(b->kernel->name, "bytes");
	assert_true(fabs(b->ticks_per_call.median - 1200) < 1e-9);
	assert_false(b->ticks_per_call.ci_valid); /* hot had none */
	pb_mem_result_free(&out);

	/* with samples on both sides: their geometric means, pair by pair, as
	 * many as the smaller side has (the one rule's input) */
	double ht[] = {400, 410, 390}, dt[] = {1600, 1700};
	uint64_t hc[] = {1, 2, 1}, dc[] = {1, 1};
	hot[1].batch_ticks = ht, hot[1].batch_calls = hc, hot[1].n_samples = 3;
	dram[0].batch_ticks = dt, dram[0].batch_calls = dc, dram[0].n_samples = 2;
	assert_int_equal(pb_tune_combine(&h, &d, 1024, 65536, PB_STATE_HOT, &out), 0);
	g = &out.cases[0];
	assert_int_equal(g->n_samples, 2);
	assert_non_null(g->batch_ticks);
	assert_true(fabs(g->batch_ticks[0] - 800) < 1e-9);
	assert_true(fabs(g->batch_ticks[1] - sqrt(205.0 * 1700)) < 1e-9);
	assert_int_equal(g->batch_calls[1], 1);
	pb_mem_result_free(&out);
	hot[1].batch_ticks = NULL, hot[1].batch_calls = NULL;
	dram[0].batch_ticks = NULL, dram[0].batch_calls = NULL;

	/* replicates on both sides (2 and 2): paired within each replicate,
	 * as many as the smaller side of that replicate has, and the
	 * combined case keeps the replicates (3 + 1 pairs) */
	double hr[] = {400, 410, 390, 420, 430}, dr[] = {1600, 1700, 1800, 1900, 2000, 2100};
	uint64_t hrc[] = {1, 1, 1, 1, 1}, drc[] = {1, 1, 1, 1, 1, 1};
	size_t hrs[] = {4, 1}, drs[] = {3, 3};
	hot[1].batch_ticks = hr, hot[1].batch_calls = hrc, hot[1].n_samples = 5;
	hot[1].replicate_samples = hrs, hot[1].n_replicates = 2;
	dram[0].batch_ticks = dr, dram[0].batch_calls = drc, dram[0].n_samples = 6;
	dram[0].replicate_samples = drs, dram[0].n_replicates = 2;
	assert_int_equal(pb_tune_combine(&h, &d, 1024, 65536, PB_STATE_HOT, &out), 0);
	g = &out.cases[0];
	assert_int_equal(g->n_samples, 4);
	assert_int_equal(g->n_replicates, 2);
	assert_non_null(g->replicate_samples);
	assert_int_equal(g->replicate_samples[0], 3);
	assert_int_equal(g->replicate_samples[1], 1);
	assert_true(fabs(g->batch_ticks[2] - sqrt(390.0 * 1800)) < 1e-9);
	assert_true(fabs(g->batch_ticks[3] - sqrt(430.0 * 1900)) < 1e-9); /* 2nd replicates' 1st */
	pb_mem_result_free(&out);
	/* replicates on one side only: one run, paired as before */
	dram[0].replicate_samples = NULL, dram[0].n_replicates = 0;
	assert_int_equal(pb_tune_combine(&h, &d, 1024, 65536, PB_STATE_HOT, &out), 0);
	g = &out.cases[0];
	assert_int_equal(g->n_samples, 5);
	assert_int_equal(g->n_replicates, 0);
	assert_null(g->replicate_samples);
	pb_mem_result_free(&out);
	hot[1].batch_ticks = NULL, hot[1].batch_calls = NULL, hot[1].n_samples = 21;
	hot[1].replicate_samples = NULL, hot[1].n_replicates = 0;
	dram[0].batch_ticks = NULL, dram[0].batch_calls = NULL, dram[0].n_samples = 21;

	/* nothing in common: no case */
	assert_int_equal(pb_tune_combine(&h, &d, 1, 2048, PB_STATE_HOT, &out), 0);
	assert_int_equal(out.n_cases, 0);
	pb_mem_result_free(&out);
}

/* pb_tune_guard_combined: a kernel slower than libc in one state beyond
 * the margin takes that state's ratio, whatever it gains in the other; one
 * within the margin in both keeps the geometric mean. */
static void test_guard_combined(void **state)
{
	(void)state;
	struct pb_mem_case hot[] = {
	    combine_case("gpr_unrolled", 4096, PB_STATE_HOT, 400, 0.02), /* 2x slower */
	    combine_case("bytes", 4096, PB_STATE_HOT, 201, 0.02),        /* 0.5% slower */
	    combine_case("libc", 4096, PB_STATE_HOT, 200, 0.02),
	    combine_case("gpr_unrolled", 8192, PB_STATE_HOT, 400, 0.02), /* no libc here */
	};
	struct pb_mem_case dram[] = {
	    combine_case("gpr_unrolled", 4096, PB_STATE_DRAM, 800, 0.02), /* 2x faster */
	    combine_case("bytes", 4096, PB_STATE_DRAM, 1000, 0.02),
	    combine_case("libc", 4096, PB_STATE_DRAM, 1600, 0.02),
	    combine_case("gpr_unrolled", 8192, PB_STATE_DRAM, 800, 0.02),
	};
	double gt[] = {400, 420}, dt[] = {800, 820};
	uint64_t one[] = {1, 1};
	hot[0].batch_ticks = gt, hot[0].batch_calls = one, hot[0].n_samples = 2;
	dram[0].batch_ticks = dt, dram[0].batch_calls = one, dram[0].n_samples = 2;
	struct pb_mem_result h = {.cases = hot, .n_cases = 4}, d = {.cases = dram, .n_cases = 4};
	struct pb_mem_result out;
	assert_int_equal(pb_tune_combine(&h, &d, 1024, 65536, PB_STATE_HOT, &out), 0);
	assert_int_equal(out.n_cases, 4);
	const struct pb_kernel *libc = pb_kernel_find(PB_OP_MEMSET, "libc");
	assert_int_equal(pb_tune_guard_combined(&out, &h, &d, libc, 0.01), 1);
	double g = sqrt(200.0 * 1600.0); /* libc's combined median */
	for (size_t i = 0; i < out.n_cases; i++) {
		const struct pb_mem_case *c = &out.cases[i];
		const char *k = c->kernel->name;
		if (!strcmp(k, "gpr_unrolled") && c->size_bytes == 4096) {
			/* its worse state's ratio, 2, against libc's combined median */
			assert_true(fabs(c->ticks_per_call.median / g - 2.0) < 1e-9);
			assert_true(fabs(c->ticks_per_call.ci_lo - 2 * g * 0.98) < 1e-6);
			/* the samples scaled alike: 2 / sqrt(0.5 x 2) = 2 */
			assert_true(fabs(c->batch_ticks[0] - 2 * sqrt(400.0 * 800.0)) < 1e-9);
		} else if (!strcmp(k, "bytes")) {
			assert_true(fabs(c->ticks_per_call.median - sqrt(201.0 * 1000.0)) < 1e-9);
		} else if (!strcmp(k, "gpr_unrolled")) {
			/* 8 KiB: no libc there, left as it was */
			assert_true(fabs(c->ticks_per_call.median - sqrt(400.0 * 800.0)) < 1e-9);
		}
	}
	/* no guard kernel: nothing scaled */
	assert_int_equal(pb_tune_guard_combined(&out, &h, &d, NULL, 0.01), 0);
	pb_mem_result_free(&out);
}

/* pb_tune_set_range: kernel k over lo..hi, the rest as it was. */
static void set_range_is(const char *policy, uint64_t lo, uint64_t hi, const char *kernel,
                         const char *want)
{
	struct pb_policy p;
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, policy, (pb_features)-1, &p), 0);
	assert_int_equal(pb_tune_set_range(&p, lo, hi, pb_kernel_find(PB_OP_MEMSET, kernel)), 0);
	char text[PB_POLICY_TEXT_MAX];
	assert_true(pb_policy_format(&p, text, sizeof text) > 0);
	assert_string_equal(text, want);
}

static void test_set_range(void **state)
{
	(void)state;
	const char *row = "gpr_unrolled<=32K,bytes<=16M,rbw";
	/* inside one band: it is cut in two around the range */
	set_range_is(row, 600, 2100, "libc",
	             "gpr_unrolled<=599,libc<=2100,gpr_unrolled<=32K,bytes<=16M,rbw");
	/* across bands: the middle ones go, the outer ones keep the rest */
	set_range_is(row, 20000, 20000000, "libc", "gpr_unrolled<=19999,libc<=20000000,rbw");
	/* from the first size, and to the last */
	set_range_is(row, 0, 100, "libc", "libc<=100,gpr_unrolled<=32K,bytes<=16M,rbw");
	set_range_is(row, 32 << 20, UINT64_MAX, "libc",
	             "gpr_unrolled<=32K,bytes<=16M,rbw<=33554431,libc");
	/* the band's own kernel: nothing changes; a neighbour's: joined */
	set_range_is(row, 100, 200, "gpr_unrolled", row);
	set_range_is(row, 30000, 32768, "bytes", "gpr_unrolled<=29999,bytes<=16M,rbw");
	/* refused, p unchanged: an empty range, another op's kernel, too many bands */
	struct pb_policy p;
	assert_int_equal(pb_policy_parse(PB_OP_MEMSET, row, (pb_features)-1, &p), 0);
	assert_int_equal(pb_tune_set_range(&p, 10, 9, pb_kernel_find(PB_OP_MEMSET, "libc")), -1);
	assert_int_equal(pb_tune_set_range(&p, 10, 20, pb_kernel_find(PB_OP_MEMCPY, "libc")), -1);
	for (uint64_t lo = 100; p.n_bands + 2 <= PB_POLICY_MAX_BANDS; lo += 100)
		assert_int_equal(
		    pb_tune_set_range(&p, lo, lo + 10, pb_kernel_find(PB_OP_MEMSET, "libc")), 0);
	size_t n = p.n_bands;
	assert_int_equal(pb_tune_set_range(&p, 50000, 50010, pb_kernel_find(PB_OP_MEMSET, "libc")),
	                 -1);
	assert_int_equal(p.n_bands, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hide_profile), /* first: hiding cannot be undone */
	    cmocka_unit_test(test_default_follows_features),
	    cmocka_unit_test(test_file_parse),
	    cmocka_unit_test(test_file_round_trip),
	    cmocka_unit_test(test_path),
	    cmocka_unit_test(test_setup),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_install_refuses),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_combine),
	    cmocka_unit_test(test_guard_combined),
	    cmocka_unit_test(test_set_range),
	    cmocka_unit_test(test_auto_correct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
