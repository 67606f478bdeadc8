/* test_roundtrip.c - the reader's typed results write back the document
 * they were read from (include/primbench/reader.h, pb_results_file_text
 * and pb_results_write_file): every result file under tests/ (the
 * fixtures of tests/data and any JSON output kept as a result file) is
 * loaded, written back from what the reader returned, and must be the
 * same document: json_equal, and every object's members in the same
 * order. Also the typed members against the JSON they came from.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/reader.h"
#include "results/results_json.h"

static char tests_dir[PATH_MAX];

/* Whether a and b list the members of every object in the same order
 * (after json_equal said they are equal). */
static bool same_order(const json_t *a, const json_t *b)
{
	if (json_is_object(a)) {
		void *ia = json_object_iter((json_t *)a), *ib = json_object_iter((json_t *)b);
		for (; ia && ib; ia = json_object_iter_next((json_t *)a, ia),
		                 ib = json_object_iter_next((json_t *)b, ib))
			if (strcmp(json_object_iter_key(ia), json_object_iter_key(ib)) ||
			    !same_order(json_object_iter_value(ia), json_object_iter_value(ib)))
				return false;
		return !ia && !ib;
	}
	if (json_is_array(a)) {
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!same_order(json_array_get(a, i), json_array_get(b, i)))
				return false;
	}
	return true;
}

static bool is_result(const json_t *doc)
{
	const char *s = json_string_value(json_object_get(doc, "schema"));
	return s && !strcmp(s, "primbench-result");
}

struct tally {
	size_t files, loaded, cases;
};

/* The typed members of f against its JSON document doc. */
static void check_typed(const struct pb_results_file *f, const json_t *doc)
{
	const json_t *m = json_object_get(doc, "machine");
	const json_t *hz = json_object_get(json_object_get(m, "timer"), "hz");
	assert_true(f->mach.tsc_hz ==
	            (json_is_number(hz) && json_number_value(hz) > 0 ? json_number_value(hz) : 0));
	const char *brand = json_string_value(json_object_get(json_object_get(m, "cpu"), "brand"));
	assert_true((brand == NULL) == (f->mach.brand == NULL));
	if (brand)
		assert_string_equal(brand, f->mach.brand);
	const char *started = json_string_value(json_object_get(doc, "started_at"));
	assert_true((started == NULL) == (f->started_at == NULL));
	if (started)
		assert_string_equal(started, f->started_at);
	const json_t *cl = json_object_get(doc, "command_line");
	if (cl) {
		assert_int_equal(f->ncommand_line, json_array_size(cl));
		for (size_t i = 0; i < f->ncommand_line; i++)
			assert_string_equal(f->command_line[i],
			                    json_string_value(json_array_get(cl, i)));
	}
	assert_true(f->interrupted == json_is_true(json_object_get(doc, "interrupted")));
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_results_case *c = &f->cases[i];
		const json_t *key =
		    json_object_get(json_array_get(json_object_get(doc, "cases"), c->index), "key");
		assert_int_equal(c->fields.n, json_object_size(key));
		size_t k = 0;
		const char *name;
		json_t *v;
		json_object_foreach((json_t *)key, name, v)
		{
			const struct pb_field *fl = &c->fields.fields[k++];
			assert_string_equal(fl->name, name);
			assert_ptr_equal(pb_field_get(&c->fields, name), fl);
			if (json_is_string(v))
				assert_string_equal(pb_field_str(&c->fields, name),
				                    json_string_value(v));
			long long x;
			assert_true(pb_field_int(&c->fields, name, &x) == json_is_integer(v));
			if (json_is_integer(v))
				assert_true(x == json_integer_value(v));
			char *a = pb_field_text(fl), *b = pb_json_text(v);
			assert_string_equal(a, b);
			free(a);
			free(b);
		}
		/* the typed names are the json ones */
		char *g1, *l1, *g2, *l2;
		pb_key_name(&c->fields, &g1, &l1);
		pb_results_key_name(key, &g2, &l2);
		assert_string_equal(g1, g2);
		assert_string_equal(l1, l2);
		free(g1);
		free(l1);
		free(g2);
		free(l2);
		assert_true(pb_key_is_cmd(&c->fields) == pb_results_key_is_cmd(key));
		char *t1 = pb_key_cmd_text(&c->fields), *t2 = pb_results_cmd_text(key);
		assert_string_equal(t1, t2);
		free(t1);
		free(t2);
	}
}

static void roundtrip(const char *path, struct tally *t)
{
	json_error_t err;
	json_t *in = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!in || !is_result(in)) {
		json_decref(in);
		return;
	}
	t->files++;
	struct pb_results_file f;
	if (pb_results_load(path, &f) != 0) { /* a fixture of an error */
		pb_results_file_free(&f);
		json_decref(in);
		return;
	}
	t->loaded++;
	t->cases += f.ncases;
	check_typed(&f, in);
	char *text = pb_results_file_text(&f, 1, 0);
	assert_non_null(text);
	json_t *out = json_loads(text, 0, &err);
	if (!out || !json_equal(in, out) || !same_order(in, out))
		fail_msg("%s: written back as a different document:\n%s", path, text);
	free(text);
	json_decref(out);

	/* pb_results_write_file: the same again, through the file */
	char tmp[] = "/tmp/pb-roundtrip-XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pb_results_write_file(&f, tmp), 0);
	out = json_load_file(tmp, 0, &err);
	assert_non_null(out);
	assert_true(json_equal(in, out) && same_order(in, out));
	unlink(tmp);
	json_decref(out);
	pb_results_file_free(&f);
	json_decref(in);
}

static void walk(const char *dir, struct tally *t)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = NULL;
		assert_true(asprintf(&p, "%s/%s", dir, e->d_name) > 0);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			walk(p, t);
		else if (strlen(e->d_name) > 5 &&
		         !strcmp(e->d_name + strlen(e->d_name) - 5, ".json"))
			roundtrip(p, t);
		free(p);
	}
	closedir(d);
}

static void every_result_file(void **state)
{
	(void)state;
	struct tally t = {0};
	walk(tests_dir, &t);
	/* tests/data holds dozens of result files: they must all be found */
	assert_true(t.files >= 40);
	assert_true(t.loaded >= 35);
	assert_true(t.cases > 100);
}

/* A field of every kind, typed and written back. */
static void field_kinds(void **state)
{
	(void)state;
	static const char text[] =
	    "{\"schema\": \"primbench-result\", \"schema_version\": 2, \"machine\": "
	    "{\"cpu\": {\"brand\": \"X\", \"model\": 7}, \"caches\": {}, \"empty\": {}, "
	    "\"timer\": {\"hz\": 2.5e9}}, \"cases\": [{\"key\": {\"suite\": \"zz\", \"n\": null, "
	    "\"b\": true, \"i\": 3, \"r\": 2.0, \"s\": \"a\\tb\", \"v\": [\"x\", \"y\"], "
	    "\"o\": {\"q\": 1, \"a\": [1, \"z\"]}}, \"unit\": \"ns\", \"samples\": [[1.5, 2], "
	    "[3, 1.0]], \"per_call\": {\"median\": 1.5}}, {\"key\": {\"suite\": \"zz\"}, "
	    "\"samples\": null}], \"notes\": [], \"ab\": {\"ratio\": {\"estimate\": 1.25}}}";
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(text, strlen(text), "kinds", &f), 0);
	assert_int_equal(f.ncases, 1);
	const struct pb_key *k = &f.cases[0].fields;
	assert_int_equal(k->n, 8);
	assert_int_equal(pb_field_get(k, "n")->kind, PB_FIELD_NULL);
	assert_true(pb_field_true(k, "b"));
	assert_int_equal(pb_field_get(k, "i")->kind, PB_FIELD_INT);
	assert_int_equal(pb_field_get(k, "r")->kind, PB_FIELD_REAL);
	assert_int_equal(pb_field_get(k, "v")->kind, PB_FIELD_STRINGS);
	assert_int_equal(pb_field_get(k, "o")->kind, PB_FIELD_OTHER);
	assert_string_equal(pb_field_get(k, "o")->s, "{\"q\":1,\"a\":[1,\"z\"]}");
	char *t = pb_field_text(pb_field_get(k, "o"));
	assert_string_equal(t, "{\"a\":[1,\"z\"],\"q\":1}");
	free(t);
	t = pb_field_text(pb_field_get(k, "s"));
	assert_string_equal(t, "a\\tb");
	free(t);
	assert_true(isnan(pb_field_num(k, "s")));
	assert_true(pb_field_num(k, "r") == 2.0);
	assert_true(f.mach.tsc_hz == 2.5e9);
	assert_int_equal(f.mach.model, 7);
	assert_true(f.mach.has_caches);
	assert_true(pb_facts_is_object(&f.mach.facts, "empty"));
	assert_true(pb_facts_num(&f.facts, "ab.ratio.estimate") == 1.25);
	assert_true(pb_facts_num(&f.cases[0].facts, "per_call.median") == 1.5);
	assert_int_equal(f.nnotes, 0);
	char *out = pb_results_file_text(&f, 0, 0);
	json_t *a = json_loads(text, 0, NULL), *b = json_loads(out, 0, NULL);
	assert_true(json_equal(a, b) && same_order(a, b));
	json_decref(a);
	json_decref(b);
	free(out);
	pb_results_file_free(&f);
}

/* A member whose name holds a dot (glibc's tunables): its leaves are
 * found by their names by every accessor, as by pb_facts_get. */
static void dotted_member(void **state)
{
	(void)state;
	static const char text[] =
	    "{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": "
	    "{\"glibc\": {\"tunables\": {\"glibc.cpu.hwcap_mask\": \"0x6\", \"glibc.x.list\": "
	    "[{\"a\": 1}, 2]}}}, \"cases\": []}";
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(text, strlen(text), "dotted", &f), 0);
	const struct pb_facts *m = &f.mach.facts;
	const char *mask = "glibc.tunables.glibc.cpu.hwcap_mask",
	           *list = "glibc.tunables.glibc.x.list";
	assert_string_equal(pb_facts_str(m, mask), "0x6");
	assert_true(pb_facts_has(m, mask));
	assert_false(pb_facts_is_object(m, mask));
	assert_true(pb_facts_has(m, "glibc.tunables"));
	assert_true(pb_facts_is_object(m, "glibc.tunables"));
	size_t n;
	struct pb_key *k = pb_facts_objects(m, list, &n);
	assert_int_equal(n, 2);
	assert_int_equal(k[0].n, 1);
	assert_int_equal(k[1].n, 0);
	pb_keys_free(k, n);
	char *raw = pb_facts_raw_text(m, "glibc.tunables");
	assert_string_equal(raw,
	                    "{\"glibc.cpu.hwcap_mask\":\"0x6\",\"glibc.x.list\":[{\"a\":1},2]}");
	free(raw);
	pb_results_file_free(&f);
}

/* A sample's integer above 2^53 is an error: read into a double it was
 * written back as another integer (44444444444444409 became
 * 44444444444444408; found by the results fuzz target,
 * tests/fuzz/regress/results/sample-above-2p53). 2^53 itself reads and
 * writes back exactly. */
static void sample_above_2p53(void **state)
{
	(void)state;
	static const char *const bad[] = {"[5, 44444444444444409]", "[9007199254740993, 1]"};
	for (size_t i = 0; i < 2; i++) {
		char text[256];
		snprintf(
		    text, sizeof text,
		    "{\"schema\": \"primbench-result\", \"schema_version\": 1, \"machine\": {}, "
		    "\"cases\": [{\"key\": {}, \"unit\": \"s\", \"samples\": [%s]}]}",
		    bad[i]);
		struct pb_results_file f;
		assert_int_equal(pb_results_load_text(text, strlen(text), "big", &f), -1);
		assert_non_null(strstr(pb_error(), "above 2^53"));
		pb_results_file_free(&f);
	}
	static const char ok[] = "{\"schema\": \"primbench-result\", \"schema_version\": 1, "
	                         "\"machine\": {}, \"cases\": [{\"key\": {}, \"unit\": \"s\", "
	                         "\"samples\": [[9007199254740992, 1]]}]}";
	struct pb_results_file f;
	assert_int_equal(pb_results_load_text(ok, strlen(ok), "2p53", &f), 0);
	char *back = pb_results_file_text(&f, 0, 0);
	assert_non_null(strstr(back, "9007199254740992"));
	free(back);
	pb_results_file_free(&f);
}

int main(void)
{
	char src[PATH_MAX];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(tests_dir, sizeof tests_dir, "%s", dirname(src));
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_result_file),
	    cmocka_unit_test(field_kinds),
	    cmocka_unit_test(dotted_member),
	    cmocka_unit_test(sample_above_2p53),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
