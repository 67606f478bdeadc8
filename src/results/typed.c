/* typed.c - the reader's typed values (include/primbench/reader.h: struct
 * pb_field, pb_key, pb_facts): reading them, and turning jansson values
 * into them and back (src/results/typed.h). */
#define _GNU_SOURCE
#include "results/typed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/xalloc.h"

/* ---- fields ------------------------------------------------------------ */

static bool all_strings(const json_t *a)
{
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!json_is_string(json_array_get(a, i)))
			return false;
	return true;
}

void pb_field_from_json(struct pb_field *f, const char *name, const json_t *v)
{
	memset(f, 0, sizeof *f);
	f->name = pb_xstrdup(name);
	if (!v || json_is_null(v)) {
		f->kind = PB_FIELD_NULL;
	} else if (json_is_boolean(v)) {
		f->kind = PB_FIELD_BOOL;
		f->b = json_is_true(v);
	} else if (json_is_integer(v)) {
		f->kind = PB_FIELD_INT;
		f->i = (long long)json_integer_value(v);
		f->r = (double)f->i;
	} else if (json_is_real(v)) {
		f->kind = PB_FIELD_REAL;
		f->r = json_real_value(v);
	} else if (json_is_string(v)) {
		f->kind = PB_FIELD_STRING;
		f->s = pb_xstrdup(json_string_value(v));
	} else if (json_is_array(v) && all_strings(v)) {
		f->kind = PB_FIELD_STRINGS;
		f->nstr = json_array_size(v);
		f->strv = pb_xcalloc(f->nstr + 1, sizeof *f->strv);
		for (size_t i = 0; i < f->nstr; i++)
			f->strv[i] = pb_xstrdup(json_string_value(json_array_get(v, i)));
	} else {
		f->kind = PB_FIELD_OTHER;
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		f->s = pb_xstrdup(t ? t : "null");
		free(t);
	}
}

json_t *pb_field_to_json(const struct pb_field *f)
{
	switch (f->kind) {
	case PB_FIELD_NULL:
		return json_null();
	case PB_FIELD_BOOL:
		return json_boolean(f->b);
	case PB_FIELD_INT:
		return json_integer((json_int_t)f->i);
	case PB_FIELD_REAL:
		return json_real(f->r);
	case PB_FIELD_STRING:
		return json_string(f->s);
	case PB_FIELD_STRINGS: {
		json_t *a = json_array();
		for (size_t i = 0; i < f->nstr; i++)
			json_array_append_new(a, json_string(f->strv[i]));
		return a;
	}
	case PB_FIELD_OTHER:
		return json_loads(f->s, JSON_DECODE_ANY, NULL);
	}
	return NULL;
}

void pb_field_clear(struct pb_field *f)
{
	free((char *)f->name);
	free((char *)f->s);
	for (size_t i = 0; i < f->nstr; i++)
		free(f->strv[i]);
	free(f->strv);
	memset(f, 0, sizeof *f);
}

const struct pb_field *pb_field_get(const struct pb_key *key, const char *name)
{
	for (size_t i = 0; key && i < key->n; i++)
		if (!strcmp(key->fields[i].name, name))
			return &key->fields[i];
	return NULL;
}

const char *pb_field_str(const struct pb_key *key, const char *name)
{
	const struct pb_field *f = pb_field_get(key, name);
	return f && f->kind == PB_FIELD_STRING ? f->s : NULL;
}

bool pb_field_int(const struct pb_key *key, const char *name, long long *out)
{
	const struct pb_field *f = pb_field_get(key, name);
	if (!f || f->kind != PB_FIELD_INT)
		return false;
	*out = f->i;
	return true;
}

double pb_field_num(const struct pb_key *key, const char *name)
{
	const struct pb_field *f = pb_field_get(key, name);
	return f && (f->kind == PB_FIELD_INT || f->kind == PB_FIELD_REAL) ? f->r : NAN;
}

bool pb_field_true(const struct pb_key *key, const char *name)
{
	const struct pb_field *f = pb_field_get(key, name);
	return f && f->kind == PB_FIELD_BOOL && f->b;
}

static char *dump_sorted(const json_t *v)
{
	char *s = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
	char *r = pb_xstrdup(s ? s : "?");
	free(s);
	return r;
}

char *pb_field_text(const struct pb_field *f)
{
	if (!f)
		return pb_xstrdup("(missing)");
	switch (f->kind) {
	case PB_FIELD_STRING:
		return pb_printable(f->s, false);
	case PB_FIELD_INT:
		return pb_xasprintf("%lld", f->i);
	case PB_FIELD_REAL:
		return pb_xasprintf("%.10g", f->r);
	default: {
		json_t *v = pb_field_to_json(f);
		char *r = dump_sorted(v);
		json_decref(v);
		return r;
	}
	}
}

char *pb_field_raw_text(const struct pb_field *f)
{
	if (!f)
		return pb_xstrdup("null");
	if (f->kind == PB_FIELD_OTHER)
		return pb_xstrdup(f->s);
	json_t *v = pb_field_to_json(f);
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(v);
	char *r = pb_xstrdup(s ? s : "?");
	free(s);
	return r;
}

bool pb_field_equal(const struct pb_field *a, const struct pb_field *b)
{
	if (!a || !b)
		return !a && !b;
	json_t *x = pb_field_to_json(a), *y = pb_field_to_json(b);
	bool eq = x && y && json_equal(x, y);
	json_decref(x);
	json_decref(y);
	return eq;
}

/* ---- keys -------------------------------------------------------------- */

void pb_key_from_json(struct pb_key *k, const json_t *o)
{
	k->n = 0;
	k->fields = pb_xcalloc(json_object_size(o) + 1, sizeof *k->fields);
	const char *name;
	json_t *v;
	json_object_foreach((json_t *)o, name, v) pb_field_from_json(&k->fields[k->n++], name, v);
}

json_t *pb_key_to_json(const struct pb_key *k)
{
	json_t *o = json_object();
	for (size_t i = 0; i < k->n; i++)
		json_object_set_new(o, k->fields[i].name, pb_field_to_json(&k->fields[i]));
	return o;
}

void pb_key_clear(struct pb_key *k)
{
	for (size_t i = 0; i < k->n; i++)
		pb_field_clear(&k->fields[i]);
	free(k->fields);
	k->fields = NULL;
	k->n = 0;
}

void pb_keys_free(struct pb_key *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pb_key_clear(&k[i]);
	free(k);
}

/* ---- facts ------------------------------------------------------------- */

static void facts_push(struct pb_facts *f, char **seg, size_t nseg, const json_t *v)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 16;
		f->v = pb_xrealloc(f->v, f->cap * sizeof *f->v);
	}
	struct pb_fact *x = &f->v[f->n++];
	x->nseg = nseg;
	x->seg = pb_xcalloc(nseg, sizeof *x->seg);
	char *name = pb_xstrdup("");
	for (size_t i = 0; i < nseg; i++) {
		x->seg[i] = pb_xstrdup(seg[i]);
		if (i)
			pb_xappend(&name, ".");
		pb_xappend(&name, seg[i]);
	}
	x->name = name;
	pb_field_from_json(&x->v, seg[nseg - 1], v);
}

static void facts_walk(struct pb_facts *f, const json_t *o, char ***seg, size_t *cap, size_t depth,
                       const char *const *skip, size_t nskip)
{
	const char *name;
	json_t *v;
	json_object_foreach((json_t *)o, name, v)
	{
		bool skipped = false;
		for (size_t i = 0; i < nskip && !skipped; i++)
			skipped = !strcmp(skip[i], name);
		if (skipped)
			continue;
		if (depth + 1 > *cap) {
			*cap = 2 * (depth + 1);
			*seg = pb_xrealloc(*seg, *cap * sizeof **seg);
		}
		(*seg)[depth] = (char *)name;
		if (json_is_object(v) && json_object_size(v) > 0)
			facts_walk(f, v, seg, cap, depth + 1, NULL, 0);
		else
			facts_push(f, *seg, depth + 1, v);
	}
}

void pb_facts_add_json(struct pb_facts *f, const json_t *o, char *const *prefix, size_t nprefix,
                       const char *const *skip, size_t nskip)
{
	size_t cap = nprefix + 8;
	char **seg = pb_xcalloc(cap, sizeof *seg);
	for (size_t i = 0; i < nprefix; i++)
		seg[i] = prefix[i];
	facts_walk(f, o, &seg, &cap, nprefix, skip, nskip);
	free(seg);
}

static bool under(const struct pb_fact *x, const char *const *seg, size_t nseg)
{
	if (x->nseg < nseg)
		return false;
	for (size_t i = 0; i < nseg; i++)
		if (strcmp(x->seg[i], seg[i]))
			return false;
	return true;
}

json_t *pb_facts_to_json(const struct pb_facts *f, const char *const *seg, size_t nseg)
{
	json_t *root = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct pb_fact *x = &f->v[i];
		if (!under(x, seg, nseg))
			continue;
		if (x->nseg == nseg) /* the leaf itself */
			return root ? root : pb_field_to_json(&x->v);
		if (!root)
			root = json_object();
		json_t *o = root;
		for (size_t d = nseg; d + 1 < x->nseg; d++) {
			json_t *c = json_object_get(o, x->seg[d]);
			if (!c) {
				c = json_object();
				json_object_set_new(o, x->seg[d], c);
			}
			o = c;
		}
		json_object_set_new(o, x->seg[x->nseg - 1], pb_field_to_json(&x->v));
	}
	return root;
}

void pb_facts_clear(struct pb_facts *f)
{
	for (size_t i = 0; i < f->n; i++) {
		for (size_t s = 0; s < f->v[i].nseg; s++)
			free(f->v[i].seg[s]);
		free(f->v[i].seg);
		free((char *)f->v[i].name);
		pb_field_clear(&f->v[i].v);
	}
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}

/* A dotted path's members (at most 16); *buf to free. */
static size_t split_path(const char *path, char **buf, const char *seg[16])
{
	*buf = pb_xstrdup(path);
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(*buf, ".", &save); t && n < 16; t = strtok_r(NULL, ".", &save))
		seg[n++] = t;
	return n;
}

/* The value at path: the leaf of that name first (a member's name may
 * hold a dot: "glibc.tunables.glibc.cpu.hwcap_mask", which the split
 * below cannot follow), else the object of the path's members. */
static json_t *facts_at(const struct pb_facts *f, const char *path)
{
	const struct pb_field *leaf = pb_facts_get(f, path);
	if (leaf)
		return pb_field_to_json(leaf);
	char *buf;
	const char *seg[16];
	size_t n = split_path(path, &buf, seg);
	json_t *v = f ? pb_facts_to_json(f, seg, n) : NULL;
	free(buf);
	return v;
}

const struct pb_field *pb_facts_get(const struct pb_facts *f, const char *path)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!strcmp(f->v[i].name, path))
			return &f->v[i].v;
	return NULL;
}

const char *pb_facts_str(const struct pb_facts *f, const char *path)
{
	const struct pb_field *v = pb_facts_get(f, path);
	return v && v->kind == PB_FIELD_STRING ? v->s : NULL;
}

double pb_facts_num(const struct pb_facts *f, const char *path)
{
	const struct pb_field *v = pb_facts_get(f, path);
	return v && (v->kind == PB_FIELD_INT || v->kind == PB_FIELD_REAL) ? v->r : NAN;
}

bool pb_facts_int(const struct pb_facts *f, const char *path, long long *out)
{
	const struct pb_field *v = pb_facts_get(f, path);
	if (!v || v->kind != PB_FIELD_INT)
		return false;
	*out = v->i;
	return true;
}

/* The first fact at or under path (NULL: none), and in *depth the
 * number of the path's segments: the facts are in file order, so the
 * first says whether path is a leaf (its own depth) or an object (deeper);
 * nothing is built. A leaf named path comes first, as in facts_at. */
static const struct pb_fact *first_under(const struct pb_facts *f, const char *path, size_t *depth)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!strcmp(f->v[i].name, path)) {
			*depth = f->v[i].nseg;
			return &f->v[i];
		}
	char *buf;
	const char *seg[16];
	size_t n = split_path(path, &buf, seg);
	const struct pb_fact *x = NULL;
	for (size_t i = 0; f && i < f->n && !x; i++)
		if (under(&f->v[i], seg, n))
			x = &f->v[i];
	free(buf);
	*depth = n;
	return x;
}

bool pb_facts_has(const struct pb_facts *f, const char *path)
{
	size_t n;
	return first_under(f, path, &n) != NULL;
}

bool pb_facts_is_object(const struct pb_facts *f, const char *path)
{
	size_t n;
	const struct pb_fact *x = first_under(f, path, &n);
	/* an empty object is a leaf: OTHER "{}" */
	return x && (x->nseg > n || (x->v.kind == PB_FIELD_OTHER && x->v.s[0] == '{'));
}

char *pb_facts_raw_text(const struct pb_facts *f, const char *path)
{
	const struct pb_field *leaf = pb_facts_get(f, path);
	if (leaf)
		return pb_field_raw_text(leaf);
	json_t *v = facts_at(f, path);
	if (!v)
		return NULL;
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(v);
	char *r = pb_xstrdup(s ? s : "?");
	free(s);
	return r;
}

struct pb_key *pb_facts_objects(const struct pb_facts *f, const char *path, size_t *n)
{
	*n = 0;
	json_t *v = facts_at(f, path);
	if (!json_is_array(v)) {
		json_decref(v);
		return NULL;
	}
	struct pb_key *k = pb_xcalloc(json_array_size(v) + 1, sizeof *k);
	for (size_t i = 0; i < json_array_size(v); i++)
		pb_key_from_json(&k[i], json_is_object(json_array_get(v, i)) ? json_array_get(v, i)
		                                                             : NULL);
	*n = json_array_size(v);
	json_decref(v);
	return k;
}
