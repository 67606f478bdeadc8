/* test_profile.c - perf report text into primitive families
 * (include/primbench/profile.h), over fixtures recorded on the project's
 * VM (tests/data/perf/README.md). No test runs perf. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "primbench/error.h"
#include "primbench/profile_text.h"
#include "results/results_json.h"

static char *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(name, "r");
	assert_non_null(f);
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (;;) {
		if (*len + 4096 > cap) {
			cap = cap ? 2 * cap : 8192;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t got = fread(buf + *len, 1, 4096, f);
		*len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	return buf;
}

static int parse_file(const char *name, struct pb_profile *p)
{
	size_t len;
	char *text = slurp(name, &len);
	int rc = pb_profile_parse(text, len, p);
	free(text);
	return rc;
}

static void test_families_root(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("zero-root.txt", &p), 0);
	assert_string_equal(p.event, "cpu-clock");
	assert_false(p.user_only);
	assert_false(p.kernel_hidden);
	assert_int_equal(p.samples, 2253);
	assert_int_equal(p.kernel_samples, 2060);
	assert_int_equal(p.lost, 0);
	assert_true(p.event_count == 563250000.0); /* ns of cpu-clock: 250 us a sample */
	assert_int_equal(p.family[PB_PROF_KERNEL_CLEAR], 76);
	assert_int_equal(p.family[PB_PROF_LIBC_MEMSET], 189);
	assert_int_equal(p.family[PB_PROF_LIBC_MEMCPY], 0);
	assert_int_equal(p.family[PB_PROF_PB_MEMSET], 0);
	/* sorted by samples; kinds and families per row */
	assert_string_equal(p.syms[0].symbol, "exc_page_fault");
	assert_int_equal(p.syms[0].kind, PB_PROF_KERNEL);
	assert_int_equal(p.syms[0].family, -1);
	for (size_t i = 1; i < p.nsyms; i++)
		assert_true(p.syms[i - 1].samples >= p.syms[i].samples);
	bool found_memset = false;
	for (size_t i = 0; i < p.nsyms; i++) {
		if (strcmp(p.syms[i].symbol, "__memset_avx512_unaligned_erms") == 0) {
			found_memset = true;
			assert_string_equal(p.syms[i].dso, "libc.so.6");
			assert_int_equal(p.syms[i].kind, PB_PROF_LIBRARY);
			assert_int_equal(p.syms[i].family, PB_PROF_LIBC_MEMSET);
		}
	}
	assert_true(found_memset);
	assert_true(pb_profile_family_counted(&p, PB_PROF_KERNEL_CLEAR));

	/* the JSON object: shares of all samples */
	json_t *j = pb_profile_json(&p, 5);
	double share;
	assert_int_equal(pb_profile_json_share(j, "libc_memset", &share), 0);
	assert_true(share > 189.0 / 2253 - 1e-12 && share < 189.0 / 2253 + 1e-12);
	assert_int_equal(pb_profile_json_share(j, "kernel_clear", &share), 0);
	assert_true(share > 76.0 / 2253 - 1e-12 && share < 76.0 / 2253 + 1e-12);
	assert_int_equal(pb_profile_json_share(j, "no_such_family", &share), -1);
	assert_int_equal(json_array_size(json_object_get(j, "top")), 5);
	assert_int_equal(json_array_size(json_object_get(j, "families")), PB_PROF_NFAMILIES);
	json_decref(j);
	pb_profile_free(&p);
}

static void test_kernel_copy(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("dd-pipe.txt", &p), 0);
	assert_int_equal(p.samples, 1071);
	/* _copy_from_iter 157 + _copy_to_iter 114 + copy_page_to_iter 6 */
	assert_int_equal(p.family[PB_PROF_KERNEL_COPY], 277);
	assert_int_equal(p.family[PB_PROF_KERNEL_CLEAR], 0);
	pb_profile_free(&p);
}

static void test_preload(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("zero-preload-avx512nt.txt", &p), 0);
	assert_int_equal(p.samples, 3463);
	assert_int_equal(p.family[PB_PROF_PB_MEMSET], 184);
	assert_int_equal(p.family[PB_PROF_LIBC_MEMSET], 0);
	assert_int_equal(p.family[PB_PROF_KERNEL_CLEAR], 52);
	pb_profile_free(&p);
}

static void test_family_table(void **state)
{
	(void)state;
	assert_int_equal(pb_prof_family_of(PB_PROF_KERNEL, "[kernel.kallsyms]", "clear_page_erms"),
	                 PB_PROF_KERNEL_CLEAR);
	assert_int_equal(
	    pb_prof_family_of(PB_PROF_KERNEL, "[kernel.kallsyms]", "rep_stos_alternative"),
	    PB_PROF_KERNEL_CLEAR);
	assert_int_equal(
	    pb_prof_family_of(PB_PROF_KERNEL, "[kernel.kallsyms]", "rep_movs_alternative"),
	    PB_PROF_KERNEL_COPY);
	assert_int_equal(pb_prof_family_of(PB_PROF_KERNEL, "[kernel.kallsyms]", "__clear_user"),
	                 PB_PROF_KERNEL_CLEAR);
	/* a user-space symbol named like a kernel one is not the kernel's */
	assert_int_equal(pb_prof_family_of(PB_PROF_PROGRAM, "prog", "clear_page"), -1);
	assert_int_equal(pb_prof_family_of(PB_PROF_LIBRARY, "/usr/lib/x86_64-linux-gnu/libc.so.6",
	                                   "__memmove_avx_unaligned_erms"),
	                 PB_PROF_LIBC_MEMCPY);
	/* memset in another library is not libc's */
	assert_int_equal(pb_prof_family_of(PB_PROF_LIBRARY, "libfoo.so", "memset"), -1);
	assert_int_equal(pb_prof_family_of(PB_PROF_LIBRARY, "libc.so.6", "__wmemset_avx2"), -1);
	assert_int_equal(
	    pb_prof_family_of(PB_PROF_LIBRARY, "libprimswitch.so", "pb_auto_memset_dispatch"),
	    PB_PROF_PB_MEMSET);
	assert_int_equal(pb_prof_family_of(PB_PROF_LIBRARY, "libprimswitch.so", "memcpy_ticks"),
	                 PB_PROF_PB_MEMCPY);
	assert_string_equal(pb_prof_kind_name(PB_PROF_KERNEL), "kernel");
	/* every row has a name, a label and globs */
	for (int f = 0; f < PB_PROF_NFAMILIES; f++) {
		assert_non_null(pb_prof_families[f].name);
		assert_non_null(pb_prof_families[f].label);
		assert_non_null(pb_prof_families[f].sym_globs);
		assert_true(pb_prof_families[f].kernel || pb_prof_families[f].dso_globs);
	}
}

static void test_hidden_kernel_symbols(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("zero-kptr-hidden.txt", &p), 0);
	assert_true(p.kernel_hidden);
	assert_int_equal(p.kernel_samples, 1676);
	assert_int_equal(p.kernel_unresolved, 1676);
	assert_int_equal(p.family[PB_PROF_KERNEL_CLEAR], 0);
	assert_false(pb_profile_family_counted(&p, PB_PROF_KERNEL_CLEAR));
	assert_true(pb_profile_family_counted(&p, PB_PROF_LIBC_MEMSET));
	assert_int_equal(p.family[PB_PROF_LIBC_MEMSET], 189);
	json_t *j = pb_profile_json(&p, 3);
	double share;
	assert_int_equal(pb_profile_json_share(j, "kernel_clear", &share), -1);
	assert_true(json_is_true(json_object_get(j, "kernel_hidden")));
	json_decref(j);
	pb_profile_free(&p);
}

static void test_user_only(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("zero-nobody.txt", &p), 0);
	assert_string_equal(p.event, "cpu-clock:u");
	assert_true(p.user_only);
	assert_false(p.kernel_hidden);
	assert_int_equal(p.samples, 188);
	assert_int_equal(p.kernel_samples, 0);
	assert_int_equal(p.family[PB_PROF_LIBC_MEMSET], 185);
	bool found_program = false;
	for (size_t i = 0; i < p.nsyms; i++)
		if (strcmp(p.syms[i].dso, "zero") == 0) {
			found_program = true;
			assert_int_equal(p.syms[i].kind, PB_PROF_PROGRAM);
		}
	assert_true(found_program);
	assert_false(pb_profile_family_counted(&p, PB_PROF_KERNEL_COPY));
	pb_profile_free(&p);
}

static void test_empty(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("empty.txt", &p), 0);
	assert_int_equal(p.samples, 0);
	assert_int_equal(p.nsyms, 0);
	assert_string_equal(p.event, "");
	json_t *j = pb_profile_json(&p, 10);
	double share;
	assert_int_equal(pb_profile_json_share(j, "libc_memset", &share), -1);
	json_decref(j);
	pb_profile_free(&p);
	assert_int_equal(pb_profile_parse("", 0, &p), 0);
	assert_int_equal(p.samples, 0);
	pb_profile_free(&p);
}

static void test_malformed(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("malformed.txt", &p), -1);
	assert_non_null(strstr(pb_error(), "line 4: not a perf report line"));
	pb_profile_free(&p);
	assert_int_equal(parse_file("two-events.txt", &p), -1);
	assert_non_null(strstr(pb_error(), "line 3: more than one event ('cpu-clock' and "
	                                   "'page-faults')"));
	pb_profile_free(&p);
	static const char *const bad[] = {
	    "hello\n",
	    "  12.5%\n",
	    "  12.5%  7  libc.so.6  memset\n",      /* no marker */
	    "  12.5%  7  [k] clear_page\n",         /* no dso */
	    "  12.5%  -7  libc.so.6  [.] memset\n", /* negative count */
	    "  12.5%  99999999999999999999999  libc.so.6  [.] memset\n",
	    "  12.5%  7  libc.so.6  [.]\n", /* no symbol */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(pb_profile_parse(bad[i], strlen(bad[i]), &p), -1);
		assert_non_null(strstr(pb_error(), "line 1"));
		pb_profile_free(&p);
	}
	/* a dso with blanks in its path still parses */
	const char *ok = "  50.00%  1  /opt/my app/bin/x  [.] main\n"
	                 "  50.00%  1  [kernel.kallsyms]  [k] clear_page_rep\r\n";
	assert_int_equal(pb_profile_parse(ok, strlen(ok), &p), 0);
	assert_int_equal(p.samples, 2);
	assert_string_equal(p.syms[0].dso, "/opt/my app/bin/x");
	assert_int_equal(p.syms[0].kind, PB_PROF_PROGRAM);
	assert_int_equal(p.family[PB_PROF_KERNEL_CLEAR], 1);
	pb_profile_free(&p);
}

/* Counts that add up past 2^64 - 1 are refused, parsed or merged: a sum
 * that wrapped would hold a family above all samples (a share over 1).
 * Found by the perf_report fuzz target (tests/fuzz/regress/perf_report). */
static void test_count_sum_overflow(void **state)
{
	(void)state;
	struct pb_profile p, q;
	const char *wraps = "  50.00%  1000  [kernel.kallsyms]  [k] clear_page_erms\n"
	                    "  50.00%  18446744073709551615  libc.so.6  [.] memset\n";
	assert_int_equal(pb_profile_parse(wraps, strlen(wraps), &p), -1);
	assert_non_null(strstr(pb_error(), "line 2: the sample counts add up to more than "
	                                   "18446744073709551615"));
	pb_profile_free(&p);
	const char *lost = "# Total Lost Samples: 18446744073709551615\n"
	                   "# Total Lost Samples: 1\n";
	assert_int_equal(pb_profile_parse(lost, strlen(lost), &p), -1);
	assert_non_null(strstr(pb_error(), "line 2: the lost samples add up"));
	pb_profile_free(&p);
	const char *big = "  50.00%  10000000000000000000  libc.so.6  [.] memset\n";
	assert_int_equal(pb_profile_parse(big, strlen(big), &p), 0);
	assert_int_equal(pb_profile_parse(big, strlen(big), &q), 0);
	assert_int_equal(pb_profile_merge(&q, &p), -1);
	assert_non_null(strstr(pb_error(), "add up to more than"));
	assert_int_equal(q.runs, 1);
	assert_true(q.samples == 10000000000000000000u);
	pb_profile_free(&p);
	pb_profile_free(&q);
}

/* A hybrid CPU reports cycles per PMU (hand-made: this VM has none). */
static void test_hybrid(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("hybrid.txt", &p), 0);
	assert_string_equal(p.event, "cycles:u");
	assert_true(p.user_only);
	assert_int_equal(p.samples, 10);
	assert_int_equal(p.family[PB_PROF_LIBC_MEMSET], 7);
	assert_true(p.event_count == 3000000.0);
	pb_profile_free(&p);
}

static void test_merge(void **state)
{
	(void)state;
	struct pb_profile a, b, c;
	assert_int_equal(parse_file("zero-root.txt", &a), 0);
	assert_int_equal(parse_file("zero-root.txt", &b), 0);
	size_t nsyms = a.nsyms;
	assert_int_equal(pb_profile_merge(&a, &b), 0);
	assert_int_equal(a.runs, 2);
	assert_int_equal(a.samples, 2 * 2253);
	assert_int_equal(a.nsyms, nsyms);
	assert_int_equal(a.family[PB_PROF_KERNEL_CLEAR], 2 * 76);
	assert_int_equal(parse_file("zero-nobody.txt", &c), 0);
	assert_int_equal(pb_profile_merge(&a, &c), -1);
	assert_non_null(strstr(pb_error(), "different events"));
	pb_profile_free(&a);
	pb_profile_free(&b);
	pb_profile_free(&c);
}

/* The text tables: every line within 80 columns, the families and the
 * reasons a family is not counted. */
static char *print_to_text(const struct pb_profile *a, const struct pb_profile *b, size_t top,
                           bool preload)
{
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	assert_non_null(m);
	if (b)
		pb_profile_print_vs(m, a, b, preload);
	else
		pb_profile_print(m, a, top, preload, 2);
	fclose(m);
	for (char *line = s; *line;) {
		size_t n = strcspn(line, "\n");
		if (n > 80)
			fail_msg("line of %zu columns: %.*s", n, (int)n, line);
		line += n + (line[n] ? 1 : 0);
	}
	return s;
}

/* Issue 16, defect 15: a stripped program's addresses are one row per
 * binary, and the text says it has no symbols. */
static void test_stripped(void **state)
{
	(void)state;
	struct pb_profile p;
	assert_int_equal(parse_file("stripped-gzip.txt", &p), 0);
	assert_int_equal(p.samples, 412);
	/* gzip's 14 addresses, libz's symbol and address, libc's 2, the
	 * kernel's 2 symbols and its address (kernel rows stay apart). */
	assert_int_equal(p.nsyms, 8);
	const struct pb_prof_symbol *g = &p.syms[0];
	assert_string_equal(g->dso, "gzip");
	assert_string_equal(g->symbol, PB_PROF_NO_SYMBOL);
	assert_int_equal(g->samples, 324);
	assert_int_equal(g->addresses, 14);
	assert_true(g->unresolved);
	assert_int_equal(g->kind, PB_PROF_PROGRAM);
	size_t kernel_addr = 0;
	for (size_t i = 0; i < p.nsyms; i++)
		kernel_addr += p.syms[i].kind == PB_PROF_KERNEL && p.syms[i].unresolved;
	assert_int_equal(kernel_addr, 1);
	assert_int_equal(p.kernel_unresolved, 2);
	assert_false(p.kernel_hidden);

	char *t = print_to_text(&p, NULL, 15, false);
	assert_non_null(
	    strstr(t, "        324  78.6%  gzip               (no symbol: 14 addresses)\n"));
	assert_null(strstr(t, "0x0000000000004883"));
	assert_non_null(strstr(t,
	                       "gzip has no symbols (stripped?): its 324 samples at 14 addresses "
	                       "are one row"));
	assert_non_null(strstr(t, "libz.so.1: 5 of its 10 samples are at 1 address without"));
	free(t);

	json_t *j = pb_profile_json(&p, 30);
	json_t *top0 = json_array_get(json_object_get(j, "top"), 0);
	assert_string_equal(json_string_value(json_object_get(top0, "symbol")), PB_PROF_NO_SYMBOL);
	assert_int_equal(json_integer_value(json_object_get(top0, "addresses")), 14);
	json_decref(j);

	/* Two runs merged: one row still, the samples summed. */
	struct pb_profile q;
	assert_int_equal(parse_file("stripped-gzip.txt", &q), 0);
	assert_int_equal(pb_profile_merge(&p, &q), 0);
	assert_int_equal(p.nsyms, 8);
	assert_int_equal(p.syms[0].samples, 648);
	assert_int_equal(p.syms[0].addresses, 14);
	pb_profile_free(&p);
	pb_profile_free(&q);
}

static void test_text(void **state)
{
	(void)state;
	struct pb_profile root, hidden, nobody, pre, empty;
	assert_int_equal(parse_file("zero-root.txt", &root), 0);
	assert_int_equal(parse_file("zero-kptr-hidden.txt", &hidden), 0);
	assert_int_equal(parse_file("zero-nobody.txt", &nobody), 0);
	assert_int_equal(parse_file("zero-preload-avx512nt.txt", &pre), 0);
	assert_int_equal(parse_file("empty.txt", &empty), 0);

	char *t = print_to_text(&root, NULL, 3, false);
	assert_non_null(strstr(t, "    samples      %  binary             symbol\n"));
	assert_non_null(strstr(t, "        712  31.6%  [kernel]           exc_page_fault\n"));
	assert_non_null(strstr(t, "more symbols)\n"));
	assert_non_null(strstr(t, "  kernel page clearing               76   3.4%\n"));
	assert_non_null(strstr(t, "  libc memset                       189   8.4%\n"));
	assert_null(strstr(t, "primbench memset")); /* not loaded, no samples */
	assert_null(strstr(t, "not counted"));
	free(t);

	t = print_to_text(&pre, NULL, 100, true);
	assert_non_null(strstr(t, "  primbench memset                  184   5.3%\n"));
	assert_non_null(strstr(t, "libprimswitch.so   pb_memset_avx512_nt\n"));
	free(t);

	t = print_to_text(&hidden, NULL, 3, false);
	assert_non_null(strstr(t, "  kernel page clearing                -      -\n"));
	assert_non_null(strstr(t, "-: not counted: 100% of the kernel's 1676 samples are bare"));
	free(t);

	t = print_to_text(&nobody, NULL, 3, false);
	assert_non_null(strstr(t, "-: not counted: the event 'cpu-clock:u' sampled user space"));
	free(t);

	t = print_to_text(&empty, NULL, 3, false);
	assert_non_null(strstr(t, "no samples"));
	free(t);

	t = print_to_text(&root, &pre, 0, true);
	assert_non_null(strstr(t, "family                     A samples    A %  B samples    B %"
	                          "      B - A\n"));
	assert_non_null(strstr(
	    t, "libc memset                      189   8.4%          0   0.0%    -8.4 pt\n"));
	assert_non_null(strstr(
	    t, "primbench memset                   0   0.0%        184   5.3%    +5.3 pt\n"));
	assert_non_null(
	    strstr(t, "all samples                     2253   100%       3463   100%\n"));
	assert_non_null(strstr(t, "one sample: 0.25 ms of CPU time (A), "));
	/* (B's fixture is cut to 40 lines: its event count is of all samples) */
	free(t);

	t = print_to_text(&hidden, &root, 0, false);
	assert_non_null(strstr(
	    t, "kernel page clearing               -      -         76   3.4%          -\n"));
	free(t);

	pb_profile_free(&root);
	pb_profile_free(&hidden);
	pb_profile_free(&nobody);
	pb_profile_free(&pre);
	pb_profile_free(&empty);
}

int main(void)
{
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/perf", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_families_root),
	    cmocka_unit_test(test_kernel_copy),
	    cmocka_unit_test(test_preload),
	    cmocka_unit_test(test_family_table),
	    cmocka_unit_test(test_hidden_kernel_symbols),
	    cmocka_unit_test(test_user_only),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_count_sum_overflow),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_hybrid),
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_stripped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
