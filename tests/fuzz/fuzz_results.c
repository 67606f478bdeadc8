/* fuzz_results.c - the result-file reader (include/primbench/reader.h,
 * docs/results-schema.md) and what every subcommand does with a loaded
 * file, without writing files.
 *
 * Input: the text of a result file, loaded with pb_results_load_text. On
 * success:
 *  - written back (pb_results_file_text, exact reals) it is the same JSON
 *    document as the input (json_equal), loads again, and writing that
 *    gives the same text (idempotence);
 *  - the readers of its cases, keys and facts (names, cmd text, summaries,
 *    runs, profile shares, fields as text, every fact by its path);
 *  - report: every format of pb_format_write, with the file's own
 *    equivalence margin as cmd_report sets it, and a default run's summary
 *    (pb_summary_build, pb_summary_print);
 *  - compare (files whose cases have at most MAX_COMPARE_SAMPLES samples):
 *    the file against its written-back copy (pb_compare_run and
 *    pb_compare_sides, named together as cmd_compare names them): every
 *    case matches, none is only on one side; text, Markdown, CSV and the
 *    JSON document;
 *  - plot's checks and note (pb_plot_check, pb_plot_note), cmd labels;
 *  - the summary's stored glibc checks (pb_results_read_glibc_checks).
 * Output goes to /dev/null. Outcome: "ok N cases, M without samples" or the
 * reader's one error line. */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/format.h"
#include "primbench/plot.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/summary.h"
#include "primbench/summary_result.h"
#include "primbench/twosample.h"

/* The largest input read (bytes). Every fixture of tests/data but the
 * default run's summaries (84 and 90 KiB) fits; the statistics of compare
 * and the formats grow with the samples, so a cap keeps every input fast. */
#define MAX_INPUT (16 * 1024)

/* Each accessor costs a pass over the facts: reading every fact of a
 * machine (hundreds) by its path would be most of an input's time, so at
 * most this many, evenly spaced, are read. */
#define MAX_FACTS_READ 24
/* The same for cases: at most this many, evenly spaced, through every
 * reader of a case. */
#define MAX_CASES_READ 16

/* Facts of fs, by their paths, through each accessor. */
static void read_facts(const struct pb_facts *fs)
{
	size_t step = fs->n / MAX_FACTS_READ + 1;
	for (size_t i = 0; i < fs->n; i += step) {
		const struct pb_fact *f = &fs->v[i];
		const struct pb_field *v = pb_facts_get(fs, f->name);
		if (!v)
			pb_fuzz_fail("fact '%s' not found by its own path", f->name);
		(void)pb_facts_str(fs, f->name);
		(void)pb_facts_num(fs, f->name);
		long long ll;
		(void)pb_facts_int(fs, f->name, &ll);
		if (!pb_facts_has(fs, f->name))
			pb_fuzz_fail("fact '%s': pb_facts_has says no", f->name);
		(void)pb_facts_is_object(fs, f->name);
		free(pb_facts_raw_text(fs, f->name));
		free(pb_field_text(&f->v));
		free(pb_field_raw_text(&f->v));
		if (!pb_field_equal(&f->v, v))
			pb_fuzz_fail("fact '%s' differs from itself", f->name);
		/* an array's elements: as many as the leaf the path names holds */
		size_t n;
		struct pb_key *k = pb_facts_objects(fs, f->name, &n);
		size_t want = 0;
		if (v->kind == PB_FIELD_STRINGS)
			want = v->nstr;
		else if (v->kind == PB_FIELD_OTHER && v->s[0] == '[') {
			json_t *a = json_loads(v->s, 0, NULL);
			want = json_array_size(a);
			json_decref(a);
		}
		if (n != want)
			pb_fuzz_fail("fact '%s': %zu objects of an array of %zu", f->name, n, want);
		pb_keys_free(k, n);
		/* the first member of the path: an object (or a leaf) */
		if (f->nseg > 1) {
			(void)pb_facts_has(fs, f->seg[0]);
			(void)pb_facts_is_object(fs, f->seg[0]);
			free(pb_facts_raw_text(fs, f->seg[0]));
		}
	}
}

static void read_key(const struct pb_key *key, const char *page_op)
{
	char *group, *label;
	pb_key_name(key, &group, &label);
	free(group);
	free(label);
	free(pb_key_cmd_text(key));
	(void)pb_key_is_cmd(key);
	(void)pb_key_page_op_of(page_op, key);
	for (size_t i = 0; i < key->n; i++) {
		const struct pb_field *f = &key->fields[i];
		if (pb_field_get(key, f->name) == NULL)
			pb_fuzz_fail("key field '%s' not found by its name", f->name);
		(void)pb_field_str(key, f->name);
		(void)pb_field_num(key, f->name);
		(void)pb_field_true(key, f->name);
		long long ll;
		(void)pb_field_int(key, f->name, &ll);
		free(pb_field_text(f));
		free(pb_field_raw_text(f));
		free(pb_csv_value_text(f));
	}
	char *minus = pb_key_array_minus_text(key, key, "argv");
	if (*minus)
		pb_fuzz_fail("argv minus itself is '%s'", minus);
	free(minus);
	free(pb_key_array_minus_text(key, NULL, "env"));
	size_t n;
	free(pb_key_field_names(key, NULL, &n));
}

static void read_cases(const struct pb_results_file *f)
{
	size_t step = f->ncases / MAX_CASES_READ + 1;
	for (size_t i = 0; i < f->ncases; i += step) {
		const struct pb_results_case *c = &f->cases[i];
		read_key(&c->fields, f->page_op);
		struct pb_summary s;
		(void)pb_results_case_summary(c, 0.95, &s);
		double med[64];
		if (pb_results_case_runs(c, med, 64) > 64)
			pb_fuzz_fail("case %zu: more runs than room", i);
		for (int fam = 0; fam < 2; fam++) {
			double share;
			(void)pb_results_case_profile_share(c, fam ? "libc_memcpy" : "libc_memset",
			                                    &share);
		}
		(void)pb_file_ns_per_value(f, c->unit);
		read_facts(&c->facts);
		if (i + 1 < f->ncases) {
			size_t n;
			free(pb_key_field_names(&c->fields, &f->cases[i + 1].fields, &n));
			free(pb_key_array_minus_text(&c->fields, &f->cases[i + 1].fields, "env"));
		}
	}
}

/* report: every format, as cmd_report writes them. */
static void report(const struct pb_results_file *f)
{
	double margin = pb_equivalence();
	if (f->has_equivalence &&
	    (isnan(f->equivalence) || pb_equivalence_set(f->equivalence) != 0))
		return; /* report refuses the file */
	static const enum pb_format fmts[] = {PB_FORMAT_TEXT, PB_FORMAT_JSON, PB_FORMAT_CSV,
	                                      PB_FORMAT_MARKDOWN, PB_FORMAT_BENCHFMT};
	for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++)
		(void)pb_format_write(pb_fuzz_devnull(), f, fmts[i]);
	if (pb_summary_is_default_run(f)) {
		struct pb_summary_report *sum = pb_summary_build(f);
		if (sum)
			pb_summary_print(pb_fuzz_devnull(), sum);
		pb_summary_report_free(sum);
	}
	pb_equivalence_set(margin);
}

/* compare's two-sample figures cost nx * ny a case (Hodges-Lehmann, up
 * to PB_COMPARE_MAX_SAMPLES a side): a file with a case of more samples
 * than this is not compared. 16 KiB of input holds ~2,700 samples: one
 * such case took 3.4 s under the fuzz build's instrumentation (146 ms in
 * the gcc -O2 build), the time of ~1,000 other inputs. */
#define MAX_COMPARE_SAMPLES 256

/* compare: files[0] against files[1], the same document. */
static void compare(struct pb_results_file files[2])
{
	for (size_t i = 0; i < files[0].ncases; i++)
		if (files[0].cases[i].n > MAX_COMPARE_SAMPLES)
			return;
	if (pb_results_name(files, 2) != 0)
		pb_fuzz_fail("naming a file and its copy: %s", pb_error());
	struct pb_compare_result r = {0};
	if (pb_compare_run(&files[0], &files[1], 0.95, false, &r) == 0) {
		pb_compare_set_margin(&r, pb_equivalence());
		if (r.nonly_a || r.nonly_b || r.nhw || r.nrows != files[0].ncases)
			pb_fuzz_fail(
			    "a file against itself: %zu rows of %zu cases, %zu and %zu only "
			    "on one side, %zu hardware differences",
			    r.nrows, files[0].ncases, r.nonly_a, r.nonly_b, r.nhw);
		pb_compare_print(pb_fuzz_devnull(), &r);
		pb_compare_markdown(pb_fuzz_devnull(), &r);
		pb_compare_csv(pb_fuzz_devnull(), &r, 1);
		struct pb_results_doc *doc =
		    pb_results_compare_new(0, NULL, 0.95, pb_equivalence(), false, files, 2);
		if (doc && pb_results_add_comparison(doc, &r) == 0)
			(void)pb_results_compare_print(pb_fuzz_devnull(), doc);
		pb_results_doc_free(doc);
	}
	pb_compare_result_free(&r);

	const struct pb_results_file *sa[1] = {&files[0]}, *sb[1] = {&files[1]};
	struct pb_compare_result rs = {0};
	if (pb_compare_sides(sa, 1, sb, 1, 0.95, false, &rs) == 0) {
		/* its document is the one above but for "sides" (not written
		 * again: JSON with exact reals is most of an input's time) */
		pb_compare_set_margin(&rs, pb_equivalence());
		pb_compare_print(pb_fuzz_devnull(), &rs);
	}
	pb_compare_result_free(&rs);
}

static void plot(const struct pb_results_file *f)
{
	struct pb_plot_input in = {"fuzz", f};
	(void)pb_plot_check(&in, 1);
	free(pb_plot_note(f));
	/* the first two cmd cases as an A/B */
	const struct pb_key *ab[2] = {NULL, NULL};
	for (size_t i = 0, k = 0; i < f->ncases && k < 2; i++)
		if (pb_key_is_cmd(&f->cases[i].fields))
			ab[k++] = &f->cases[i].fields;
	if (ab[0] && ab[1]) {
		char *labels[2];
		if (pb_plot_cmd_labels(ab[0], ab[1], 60, labels) == 0) {
			free(labels[0]);
			free(labels[1]);
		}
	}
}

/* The written-back document must be the one read. */
static void same_document(const char *input, size_t len, const char *text)
{
	json_t *a = json_loadb(input, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *b = json_loads(text, 0, NULL);
	if (!a || !b)
		pb_fuzz_fail("the input or its written-back text does not parse as JSON");
	if (!json_equal(a, b))
		pb_fuzz_fail("the written-back document differs from the input:\n%s", text);
	json_decref(a);
	json_decref(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	struct pb_results_file files[2];
	if (pb_results_load_text((const char *)data, size, "fuzz.json", &files[0]) != 0) {
		pb_fuzz_outcome("error: %s", pb_error());
		pb_results_file_free(&files[0]);
		return 0;
	}
	struct pb_results_file *f = &files[0];
	pb_fuzz_outcome("ok %zu cases, %zu without samples", f->ncases, f->nskipped);

	char *text = pb_results_file_text(f, 1, 0);
	if (!text)
		pb_fuzz_fail("writing back: %s", pb_error());
	same_document((const char *)data, size, text);
	if (pb_results_load_text(text, strlen(text), "fuzz.json", &files[1]) != 0)
		pb_fuzz_fail("the written-back text does not load: %s\n%s", pb_error(), text);
	char *again = pb_results_file_text(&files[1], 1, 0);
	if (!again)
		pb_fuzz_fail("writing back again: %s", pb_error());
	if (strcmp(text, again) != 0)
		pb_fuzz_fail("written back twice, the texts differ:\n%s\n---\n%s", text, again);
	free(text);
	free(again);
	if (files[1].ncases != f->ncases || files[1].nskipped != f->nskipped)
		pb_fuzz_fail("the copy has %zu cases (%zu without samples), the file %zu (%zu)",
		             files[1].ncases, files[1].nskipped, f->ncases, f->nskipped);

	read_cases(f);
	read_facts(&f->facts);
	read_facts(&f->mach.facts);
	report(f);
	plot(f);
	struct pb_glibc_check *checks;
	size_t nchecks;
	bool present;
	if (pb_results_read_glibc_checks(f, &checks, &nchecks, &present) == 0)
		free(checks);
	compare(files);

	pb_results_file_free(&files[0]);
	pb_results_file_free(&files[1]);
	return 0;
}
