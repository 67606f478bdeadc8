/* typed.h - private to the results module: typed values (reader.h's
 * struct pb_field, pb_key, pb_facts) from and to jansson values. */
#ifndef PB_RESULTS_TYPED_H
#define PB_RESULTS_TYPED_H

#include <jansson.h>

#include "primbench/reader.h"

/* v as a field named `name` (owned copies; aborts when out of memory). */
void pb_field_from_json(struct pb_field *f, const char *name, const json_t *v);
/* A field's value as JSON (new reference; NULL when it cannot be). */
json_t *pb_field_to_json(const struct pb_field *f);
void pb_field_clear(struct pb_field *f);

/* An object's members as a key (owned); a non-object: no fields. */
void pb_key_from_json(struct pb_key *k, const json_t *o);
/* A key as a JSON object, fields in order (new reference). */
json_t *pb_key_to_json(const struct pb_key *k);
void pb_key_clear(struct pb_key *k);

/* The leaves of object o appended to f, each path prefixed by `prefix`
 * (nprefix members; NULL, 0: none). Members of o named in skip[0..nskip)
 * are left out (at the top level only). */
void pb_facts_add_json(struct pb_facts *f, const json_t *o, char *const *prefix, size_t nprefix,
                       const char *const *skip, size_t nskip);
/* The value at path seg[0..nseg) (nseg 0: the whole) rebuilt from the
 * facts: a leaf's value, or an object of the leaves under it in order.
 * New reference, or NULL when nothing is there. */
json_t *pb_facts_to_json(const struct pb_facts *f, const char *const *seg, size_t nseg);
void pb_facts_clear(struct pb_facts *f);

#endif
