/* test_kernel_read.c - what reads `primbench kernel` result files: the
 * reader's names and key checks of the ABI v2 ops (copy_page, fpu,
 * user_copy; src/results/reader.c), their names in the CI formats
 * (src/report/ci_formats.c), and `kernel --vs-user`
 * (include/primbench/kernel_vs_user.h) on the fixtures of
 * tests/data/format: kernel.json (synthetic, with a breakeven array),
 * mem-pages.json (clear_page and copy_page cases as mem keys them) and
 * xsave.json, in every format, and its errors (a missing file, a
 * malformed one, no kernel case, an unknown format, no file). Nothing here
 * is a measurement: the figures are the fixtures', converted exactly. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/html.h"
#include "primbench/kernel_vs_user.h"
#include "primbench/reader.h"
#include "primbench/text.h"
#include "results/results_json.h"
#include "results/typed.h"

static void load(const char *name, struct pb_results_file *f)
{
	if (pb_results_load(name, f) != 0)
		fail_msg("%s: %s", name, pb_error());
}

/* The case of f whose group and label are these, or NULL. */
static const struct pb_results_case *named(const struct pb_results_file *f, const char *group,
                                           const char *label)
{
	for (size_t i = 0; i < f->ncases; i++)
		if (!strcmp(f->cases[i].group, group) && !strcmp(f->cases[i].label, label))
			return &f->cases[i];
	return NULL;
}

/* Names: copy_page as clear_page, fpu in one group with the upper state
 * in the label, user_copy per cache state with the size in the label. */
static void test_names(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("kernel.json", &f);
	assert_int_equal(pb_results_name(&f, 1), 0);
	assert_non_null(named(&f, "kernel clear_page hot", "rep_stosb 4K"));
	assert_non_null(named(&f, "kernel clear_page hot", "kernel 2M"));
	assert_non_null(named(&f, "kernel copy_page hot", "rep_movsb 4K"));
	assert_non_null(named(&f, "kernel copy_page flushed", "avx2 4K"));
	assert_non_null(named(&f, "kernel fpu", "ioctl_fpu dirty"));
	assert_non_null(named(&f, "kernel fpu", "begin_end clean"));
	assert_non_null(named(&f, "kernel user_copy hot", "copy_to_user 4K"));
	assert_non_null(named(&f, "kernel user_copy hot", "clear_user 64"));
	assert_non_null(named(&f, "kernel user_copy flushed", "copy_from_user 4K"));
	/* the kernel's rate, not the user timer's */
	assert_true(fabs(f.tsc_hz - 2e9) < 1e-3);
	/* no case fell back to the generic name */
	for (size_t i = 0; i < f.ncases; i++)
		assert_null(strchr(f.cases[i].label, '='));
	pb_results_file_free(&f);

	struct pb_key k;
	json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:b}", "suite", "kernel", "op", "fpu",
	                      "variant", "ioctl_fpu", "upper_state", "dirty512", "irqs_off", 1);
	pb_key_from_json(&k, j);
	char *g, *l;
	pb_key_name(&k, &g, &l);
	assert_string_equal(g, "kernel fpu");
	assert_string_equal(l, "ioctl_fpu dirty512 irqs off");
	free(g);
	free(l);
	char *ci = pb_format_ci_name(&k);
	assert_string_equal(ci, "kernel/fpu/ioctl_fpu/dirty512/irqs_off=true");
	free(ci);
	pb_key_clear(&k);
	json_decref(j);
	j = json_pack("{s:s, s:s, s:s, s:i, s:s}", "suite", "kernel", "op", "user_copy", "variant",
	              "copy_to_user", "size_bytes", 4096, "cache_state", "hot");
	pb_key_from_json(&k, j);
	ci = pb_format_ci_name(&k);
	assert_string_equal(ci, "kernel/user_copy/copy_to_user/4096/hot");
	free(ci);
	pb_key_name(&k, &g, &l);
	assert_string_equal(g, "kernel user_copy hot");
	assert_string_equal(l, "copy_to_user 4K");
	free(g);
	free(l);
	pb_key_clear(&k);
	json_decref(j);
	j = json_pack("{s:s, s:s, s:s, s:i, s:s}", "suite", "kernel", "op", "copy_page", "variant",
	              "rep_movsb", "page_bytes", 4096, "cache_state", "flushed");
	pb_key_from_json(&k, j);
	ci = pb_format_ci_name(&k);
	assert_string_equal(ci, "kernel/copy_page/rep_movsb/4096/flushed");
	free(ci);
	pb_key_clear(&k);
	json_decref(j);
}

/* kernel.json with the key of its first case of op `op` edited: field set
 * to v (NULL: removed), then read. Returns the reader's status; the
 * message is pb_error(). */
static int load_edited(const char *op, const char *field, json_t *v)
{
	json_error_t err;
	json_t *doc = json_load_file("kernel.json", 0, &err);
	assert_non_null(doc);
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(doc, "cases"), i, c)
	{
		json_t *key = json_object_get(c, "key");
		if (strcmp(json_string_value(json_object_get(key, "op")), op))
			continue;
		if (v)
			json_object_set_new(key, field, v);
		else
			json_object_del(key, field);
		break;
	}
	char *text = json_dumps(doc, 0);
	json_decref(doc);
	struct pb_results_file f;
	int rc = pb_results_load_text(text, strlen(text), "k.json", &f);
	pb_results_file_free(&f);
	free(text);
	return rc;
}

/* Each op's own key check: one line naming the case. */
static void test_key_checks(void **state)
{
	(void)state;
	assert_int_equal(load_edited("fpu", "upper_state", json_string("warm")), -1);
	if (getenv("PB_SHOW"))
		fprintf(stderr, "%s\n", pb_error());
	assert_non_null(strstr(pb_error(), "k.json: cases[18] (kernel fpu: begin_end warm): "));
	assert_non_null(strstr(pb_error(), "upper_state must be \"clean\", \"dirty\" or "
	                                   "\"dirty512\""));
	assert_null(strchr(pb_error(), '\n'));
	assert_int_equal(load_edited("fpu", "upper_state", NULL), -1);
	assert_int_equal(load_edited("fpu", "upper_state", json_string("dirty512")), 0);
	/* fpu and user_copy need no page_bytes */
	assert_int_equal(load_edited("fpu", "page_bytes", NULL), 0);
	assert_int_equal(load_edited("user_copy", "size_bytes", json_integer(0)), -1);
	assert_non_null(strstr(pb_error(), "size_bytes must be a positive integer"));
	assert_int_equal(load_edited("user_copy", "size_bytes", json_string("4K")), -1);
	assert_int_equal(load_edited("user_copy", "size_bytes", NULL), -1);
	assert_int_equal(load_edited("user_copy", "size_bytes", json_integer(1)), 0);
	assert_int_equal(load_edited("user_copy", "size_bytes", json_integer(33554432)), 0);
	/* the page rule: clear_page and copy_page */
	assert_int_equal(load_edited("copy_page", "page_bytes", json_integer(100)), -1);
	assert_non_null(strstr(pb_error(), "page_bytes must be a positive multiple of 4096"));
	assert_int_equal(load_edited("copy_page", "page_bytes", NULL), -1);
	assert_int_equal(load_edited("clear_page", "page_bytes", json_integer(8192)), 0);
	assert_int_equal(load_edited("clear_page", "page_bytes", json_integer(0)), -1);
}

/* compare: a kernel file pair per key (every case a row), and a
 * "differs:" line per field of the kernel object that differs
 * (module_version, release, tsc_khz); none for the same file. */
static void test_compare(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	load("kernel.json", &f[0]);
	json_error_t err;
	json_t *doc = json_load_file("kernel.json", 0, &err);
	assert_non_null(doc);
	json_t *k = json_object_get(doc, "kernel");
	json_object_set_new(k, "module_version", json_string("fake2"));
	json_object_set_new(k, "release", json_string("6.1.0-other"));
	char *text = json_dumps(doc, 0);
	json_decref(doc);
	assert_int_equal(pb_results_load_text(text, strlen(text), "k2.json", &f[1]), 0);
	free(text);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_compare_result r;
	assert_int_equal(pb_compare_run(&f[0], &f[0], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, f[0].ncases);
	for (size_t i = 0; i < r.nsw; i++)
		assert_null(strstr(r.sw[i].field, "kernel."));
	pb_compare_result_free(&r);
	assert_int_equal(pb_compare_run(&f[0], &f[1], 0.95, false, &r), 0);
	assert_int_equal(r.nrows, f[0].ncases);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	pb_compare_print(m, &r);
	fclose(m);
	assert_non_null(strstr(out, "differs: kernel.module_version fake -> fake2\n"));
	assert_non_null(strstr(out, "differs: kernel.release 6.1.0-fake -> 6.1.0-other\n"));
	assert_null(strstr(out, "kernel.tsc_khz"));
	assert_non_null(strstr(out, "\nkernel fpu "));
	free(out);
	pb_compare_result_free(&r);
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* The HTML page of a kernel file: the module's tsc_khz as the rate in the
 * machine table, and a kernel section with the module, the checks and
 * the break-even entries; none for a file that is not a kernel file. */
static void test_html(void **state)
{
	(void)state;
	struct pb_results_file f[2];
	load("kernel.json", &f[0]);
	load("xsave.json", &f[1]);
	assert_int_equal(pb_results_name(f, 2), 0);
	struct pb_plot_input in[2] = {{"k", &f[0]}, {"x", &f[1]}};
	for (size_t n = 1; n <= 2; n++) {
		struct pb_html_page p = {.in = n == 1 ? in : in + 1, .n = 1};
		char *out = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&out, &len);
		assert_int_equal(pb_html_write(m, &p), 0);
		fclose(m);
		if (n == 2) { /* xsave.json alone: no kernel section */
			assert_null(strstr(out, "<section id=\"kernel\">"));
			free(out);
			continue;
		}
		assert_non_null(strstr(out,
		                       "<td>2 GHz (the module&apos;s tsc_khz 2000000: the rate "
		                       "of the kernel cases&apos; ticks); primbench&apos;s timer "
		                       "2.6 GHz (tsc)"));
		const char *k = strstr(out, "<section id=\"kernel\">");
		assert_non_null(k);
		assert_true(k > strstr(out, "<section id=\"machine\">"));
		assert_true(k < strstr(out, "<section id=\"figures\">"));
		assert_non_null(strstr(k, "id=\"kernel-f1-module\""));
		assert_non_null(strstr(k, "id=\"kernel-f1-checks\""));
		assert_non_null(strstr(k,
		                       "<th scope=\"row\">copy_to_user</th><td>user_copy</td><td "
		                       "class=\"num\">-</td><td class=\"num\">64</td>"));
		assert_non_null(strstr(k, "id=\"kernel-f1-breakeven\""));
		assert_non_null(
		    strstr(k, "<td class=\"num\">34</td><td class=\"num\">139264</td>"));
		assert_non_null(strstr(k, "<td class=\"num\">never</td>"));
		free(out);
	}
	pb_results_file_free(&f[0]);
	pb_results_file_free(&f[1]);
}

/* pb_kernel_vs_user's output for paths in fmt (0 or the error's -1). */
static int vs_user(const char *const *paths, size_t n, const char *fmt, char **text)
{
	size_t len = 0;
	*text = NULL;
	FILE *m = open_memstream(text, &len);
	assert_non_null(m);
	int rc = pb_kernel_vs_user(paths, n, fmt, m);
	assert_int_equal(fclose(m), 0);
	if (getenv("PB_SHOW"))
		fputs(*text, stderr);
	return rc;
}

static const char *const all3[] = {"kernel.json", "mem-pages.json", "xsave.json"};

/* The text table: every section, the cells converted at each file's own
 * rate (the kernel's 2 GHz; the mem file's 2.596 GHz), ratios, '-' where
 * absent, the break-even lines and the notes; 80 columns at most. */
static void test_vs_user_text(void **state)
{
	(void)state;
	char *t;
	assert_int_equal(vs_user(all3, 3, "text", &t), 0);
	assert_non_null(strstr(t, "\nclear_page, ns per 4 KiB page"));
	assert_non_null(strstr(t, "\ncopy_page, ns per 4 KiB page"));
	assert_non_null(strstr(t, "\nfpu vs xsave, ns per call\n"));
	/* kernel rep_stosb hot: 96.29 ticks at 2 GHz = 48.1 ns; user 92.885
	 * ticks at 2.596 GHz = 35.8 ns; 1.35; flushed 96.3, dram 391, 0.25 */
	assert_non_null(strstr(t, "\nrep_stosb        48.1      35.8     1.35            96.3"
	                          "        391      0.25\n"));
	/* the kernel's own routine has no user figure */
	assert_non_null(strstr(t, "\nkernel           53.5         -        -             101"
	                          "          -         -\n"));
	assert_non_null(strstr(t, "\nrep_movsb        96.3      71.6     1.35"));
	/* fpu: begin_end 53.49 ticks = 26.7 ns; the round trip (641.9 - 428) /
	 * 2 = 107 clean, (962.9 - 428) / 2 = 267 dirty; xsave's pairs */
	assert_non_null(
	    strstr(t, "\nkernel begin_end                               26.7     26.7\n"));
	assert_non_null(
	    strstr(t, "\nkernel round trip (ioctl_fpu - ioctl_null)      107      267\n"));
	assert_non_null(
	    strstr(t, "\nuser xsave64/xrstor64                          96.5      107\n"));
	assert_null(strstr(t, "dirty512")); /* no such state in the files */
	/* break-even: 14 and 34 pages; copy_page never */
	assert_non_null(strstr(t, "clear_page, clean upper state: avx2 inside "
	                          "kernel_fpu_begin/end beats\n    rep_stosb from 14 pages"));
	assert_non_null(strstr(t, "from 34 pages (136 KiB)"));
	assert_non_null(strstr(t, "copy_page, dirty upper state: avx2 inside kernel_fpu_begin/end "
	                          "never beats"));
	assert_non_null(strstr(t, "note: kernel.json: kernel figures (module fake, kernel "
	                          "6.1.0-fake), ticks at the\n      module's tsc_khz 2000000\n"));
	assert_non_null(strstr(t, "up to ~27% seen"));
	assert_non_null(strstr(t, "`primbench compare` is the tool for before/after"));
	for (char *l = t; *l;) {
		char *e = strchr(l, '\n');
		assert_non_null(e);
		if (e - l > PB_TEXT_WIDTH)
			fail_msg("line over %d columns: %.*s", PB_TEXT_WIDTH, (int)(e - l), l);
		assert_false(e > l && e[-1] == ' ');
		l = e + 1;
	}
	free(t);

	/* the kernel file alone: its own sections, user columns all '-' */
	const char *one[] = {"kernel.json"};
	assert_int_equal(vs_user(one, 1, "text", &t), 0);
	assert_non_null(strstr(t, "\nrep_stosb        48.1         -        -            96.3"));
	assert_null(strstr(t, "user xsave"));
	free(t);

	/* the same file twice: refused (a second copy would only shadow the
	 * first), as are two kernel files (one run's figures at a time) */
	const char *twice[] = {"kernel.json", "mem-pages.json", "mem-pages.json"};
	assert_int_equal(vs_user(twice, 3, "text", &t), -1);
	assert_non_null(strstr(pb_error(), "mem-pages.json is given twice"));
	free(t);

	/* a file with nothing to use says so */
	const char *other[] = {"kernel.json", "syscall.json"};
	assert_int_equal(vs_user(other, 2, "text", &t), 0);
	assert_non_null(strstr(t, "note: syscall.json: nothing used"));
	free(t);
}

/* JSON: the same table, readable, values exact; CSV one row a cell;
 * Markdown a table per section. */
static void test_vs_user_formats(void **state)
{
	(void)state;
	char *t;
	assert_int_equal(vs_user(all3, 3, "json", &t), 0);
	json_error_t err;
	json_t *doc = json_loads(t, JSON_REJECT_DUPLICATES, &err);
	if (!doc)
		fail_msg("not JSON: %s at %d:%d", err.text, err.line, err.column);
	json_t *secs = json_object_get(doc, "sections");
	assert_int_equal(json_array_size(secs), 3);
	json_t *clear = json_array_get(secs, 0);
	assert_string_equal(json_string_value(json_object_get(clear, "name")), "clear_page");
	assert_int_equal(json_array_size(json_object_get(clear, "columns")), 6);
	bool seen = false;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(clear, "rows"), i, r)
	{
		if (strcmp(json_string_value(json_object_get(r, "name")), "rep_stosb"))
			continue;
		json_t *v = json_object_get(r, "values");
		/* 0.9 x 106.9875375 ticks at 2 GHz */
		assert_true(fabs(json_number_value(json_array_get(v, 0)) - 0.9 * 106.9875375 / 2) <
		            1e-6);
		assert_true(json_is_number(json_array_get(v, 1)));
		seen = true;
	}
	assert_true(seen);
	json_array_foreach(json_object_get(json_array_get(secs, 1), "rows"), i, r)
	    /* copy_page avx2: no user figure: null */
	    if (!strcmp(json_string_value(json_object_get(r, "name")), "avx2"))
	        assert_true(json_is_null(json_array_get(json_object_get(r, "values"), 1)));
	json_t *be = json_object_get(doc, "breakeven");
	assert_int_equal(json_array_size(be), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(be, 0), "pages")), 14);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(be, 1), "bytes")),
	                 34 * 4096);
	assert_true(json_is_null(json_object_get(json_array_get(be, 3), "pages")));
	assert_true(
	    fabs(json_number_value(json_object_get(json_array_get(be, 0), "roundtrip_ns")) -
	         json_number_value(json_object_get(json_array_get(be, 0), "roundtrip_ticks")) / 2) <
	    1e-9);
	json_t *files = json_object_get(doc, "files");
	assert_int_equal(json_array_size(files), 3);
	assert_true(json_is_true(json_object_get(json_array_get(files, 2), "used")));
	assert_true(json_array_size(json_object_get(doc, "notes")) >= 3);
	json_decref(doc);
	free(t);

	assert_int_equal(vs_user(all3, 3, "csv", &t), 0);
	assert_true(!strncmp(t, "section,row,column,value,unit\r\n", 31));
	assert_non_null(strstr(t, "\r\nclear_page,kernel,user hot,,ns per 4 KiB page\r\n"));
	assert_non_null(strstr(t, "\r\nfpu vs xsave,kernel begin_end,clean,"));
	assert_non_null(strstr(t, "\r\nbreak-even,clear_page clean avx2 vs rep_stosb,pages,14,"
	                          "pages\r\n"));
	assert_non_null(strstr(t, "\r\nbreak-even,copy_page dirty avx2 vs rep_movsb,pages,,"
	                          "pages\r\n"));
	free(t);

	assert_int_equal(vs_user(all3, 3, "markdown", &t), 0);
	assert_non_null(strstr(t, "### clear_page, ns per 4 KiB page"));
	assert_non_null(strstr(t, "| rep_stosb | 48.1 | 35.8 | 1.35 | 96.3 | 391 | 0.25 |\n"));
	assert_non_null(strstr(t, "\n### break-even\n"));
	assert_non_null(strstr(t, "\n- note: "));
	free(t);
	assert_int_equal(vs_user(all3, 3, "md", &t), 0);
	free(t);
}

/* Errors: one line each, nothing written. */
static void test_vs_user_errors(void **state)
{
	(void)state;
	char *t;
	const char *missing[] = {"kernel.json", "no-such-file.json"};
	assert_int_equal(vs_user(missing, 2, "text", &t), -1);
	assert_non_null(strstr(pb_error(), "no-such-file.json: cannot read"));
	assert_string_equal(t, "");
	free(t);

	char path[] = "/tmp/pb_vs_user_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"schema\": ", 11), 11);
	close(fd);
	const char *bad[] = {path, "kernel.json"};
	assert_int_equal(vs_user(bad, 2, "text", &t), -1);
	assert_non_null(strstr(pb_error(), "invalid JSON"));
	assert_non_null(strstr(pb_error(), path));
	assert_null(strchr(pb_error(), '\n'));
	free(t);
	unlink(path);

	const char *nokernel[] = {"mem-pages.json", "xsave.json"};
	assert_int_equal(vs_user(nokernel, 2, "text", &t), -1);
	assert_string_equal(pb_error(),
	                    "kernel --vs-user: no kernel case in any of the 2 files (it "
	                    "needs a result file of `primbench kernel`)");
	free(t);
	assert_int_equal(vs_user(nokernel, 1, "json", &t), -1);
	assert_non_null(strstr(pb_error(), "mem-pages.json: no kernel case"));
	free(t);

	assert_int_equal(vs_user(all3, 3, "html", &t), -1);
	assert_non_null(strstr(pb_error(), "not 'html'"));
	free(t);
	assert_int_equal(vs_user(all3, 0, "text", &t), -1);
	assert_non_null(strstr(pb_error(), "no result file"));
	free(t);
}

int main(void)
{
	char src[PATH_MAX], dir[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(dir, sizeof dir, "%s/data/format", dirname(src));
	if (chdir(dir) != 0) {
		perror(dir);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),          cmocka_unit_test(test_key_checks),
	    cmocka_unit_test(test_vs_user_text),   cmocka_unit_test(test_vs_user_formats),
	    cmocka_unit_test(test_vs_user_errors), cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
