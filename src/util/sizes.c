/* sizes.c - the size, offset and range grammar of docs/cli-grammar.md.
 *
 * A number is parsed in two passes: first its syntax (digits, then a suffix
 * from the table), then its value with checked arithmetic, so that
 * "99999999999999999999Q" is reported as a bad suffix, not an overflow.
 * Lists are int64 (offsets may be negative); a single size is uint64.
 */
#include "primbench/sizes.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "primbench/error.h"

struct suffix {
	const char *name;
	unsigned shift;
};

/* Binary units, as perf bench. Matched case-insensitively. "B" is accepted
 * for plain bytes (but after 0x hex digits, B and E are digits). */
static const struct suffix suffixes[] = {
    {"", 0},     {"b", 0},   {"k", 10},   {"kb", 10},  {"kib", 10}, {"m", 20},   {"mb", 20},
    {"mib", 20}, {"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},   {"tb", 40},  {"tib", 40},
    {"p", 50},   {"pb", 50}, {"pib", 50}, {"e", 60},   {"eb", 60},  {"eib", 60},
};

static int suffix_shift(const char *s, size_t len, unsigned *shift)
{
	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		if (strlen(suffixes[i].name) == len && strncasecmp(s, suffixes[i].name, len) == 0) {
			*shift = suffixes[i].shift;
			return 0;
		}
	}
	return -1;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return tolower(c) - 'a' + 10;
}

/* Parses the unsigned number s[0..len) (no sign). Errors quote the whole
 * token q[0..qlen), which may include a sign the caller has stripped. */
static int parse_magnitude(const char *s, size_t len, const char *q, int qlen, uint64_t *out)
{
	if (qlen == 0)
		return pb_fail("bad size '': empty");
	const char *p = s, *end = s + len;
	unsigned base = 10;
	if (len >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	const char *digits = p;
	while (p < end && (base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
		p++;
	if (p == digits)
		return pb_fail("bad size '%.*s': no digits", qlen, q);
	unsigned shift;
	if (suffix_shift(p, (size_t)(end - p), &shift) != 0)
		return pb_fail("bad size '%.*s': unknown suffix '%.*s'", qlen, q, (int)(end - p),
		               p);

	uint64_t v = 0;
	for (const char *d = digits; d < p; d++) {
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)hex_digit((unsigned char)*d), &v))
			return pb_fail("size '%.*s' overflows", qlen, q);
	}
	if (shift > 0 && v > (UINT64_MAX >> shift))
		return pb_fail("size '%.*s' overflows", qlen, q);
	*out = v << shift;
	return 0;
}

/* Parses a possibly signed value s[0..len) into an int64. */
static int parse_value(const char *s, size_t len, bool allow_negative, int64_t *out)
{
	bool negative = len > 0 && s[0] == '-';
	uint64_t mag;
	if (negative && !allow_negative)
		return pb_fail("bad size '%.*s': must not be negative", (int)len, s);
	if (parse_magnitude(s + negative, len - negative, s, (int)len, &mag) != 0)
		return -1;
	if (negative) {
		if (mag > (uint64_t)INT64_MAX + 1)
			return pb_fail("size '%.*s' overflows", (int)len, s);
		*out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	} else {
		if (mag > (uint64_t)INT64_MAX)
			return pb_fail("size '%.*s' overflows", (int)len, s);
		*out = (int64_t)mag;
	}
	return 0;
}

int pb_parse_size(const char *text, uint64_t *out_bytes)
{
	size_t len = strlen(text);
	if (len > 0 && text[0] == '-')
		return pb_fail("bad size '%s': must not be negative", text);
	return parse_magnitude(text, len, text, (int)len, out_bytes);
}

/* The list under construction: values in first-seen order, plus an
 * open-addressing hash set of them for deduplication in O(1) per value, so
 * that memory and time stay bounded by max_count, not by the expansion. */
struct builder {
	struct pb_size_list list;
	size_t cap;
	int64_t *slots;
	bool *used;
	size_t nslots; /* a power of two, kept above twice the count */
	size_t max_count;
	const char *text;
};

static size_t hash64(int64_t v)
{
	uint64_t x = (uint64_t)v;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static bool set_insert(int64_t *slots, bool *used, size_t nslots, int64_t v)
{
	for (size_t i = hash64(v) & (nslots - 1);; i = (i + 1) & (nslots - 1)) {
		if (!used[i]) {
			used[i] = true;
			slots[i] = v;
			return true;
		}
		if (slots[i] == v)
			return false;
	}
}

static int builder_grow_set(struct builder *b)
{
	size_t n = b->nslots ? b->nslots * 2 : 64;
	int64_t *slots = malloc(n * sizeof *slots);
	bool *used = calloc(n, sizeof *used);
	if (!slots || !used) {
		free(slots);
		free(used);
		return pb_fail("out of memory expanding size list '%s'", b->text);
	}
	for (size_t i = 0; i < b->list.count; i++)
		set_insert(slots, used, n, b->list.values[i]);
	free(b->slots);
	free(b->used);
	b->slots = slots;
	b->used = used;
	b->nslots = n;
	return 0;
}

static int builder_add(struct builder *b, int64_t v)
{
	if (b->list.count * 2 + 2 > b->nslots && builder_grow_set(b) != 0)
		return -1;
	if (!set_insert(b->slots, b->used, b->nslots, v))
		return 0;
	if (b->list.count >= b->max_count)
		return pb_fail("size list '%s' has more than %zu values", b->text, b->max_count);
	if (b->list.count == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		int64_t *values = realloc(b->list.values, cap * sizeof *values);
		if (!values)
			return pb_fail("out of memory expanding size list '%s'", b->text);
		b->list.values = values;
		b->cap = cap;
	}
	b->list.values[b->list.count++] = v;
	return 0;
}

/* One range's values, in increasing order; counted on their own so that
 * "range ... expands to more than N values" blames the range itself. */
struct range {
	const char *item;
	int len;
	size_t count;
	bool have_last;
	int64_t last;
};

static int range_emit(struct builder *b, struct range *r, int64_t v)
{
	if (r->have_last && v == r->last)
		return 0; /* rounding in a geometric range repeats values */
	r->have_last = true;
	r->last = v;
	if (++r->count > b->max_count)
		return pb_fail("range '%.*s' expands to more than %zu values", r->len, r->item,
		               b->max_count);
	return builder_add(b, v);
}

static int expand_doubling(struct builder *b, struct range *r, int64_t lo, int64_t hi)
{
	int64_t v = lo;
	while (v <= hi) {
		if (range_emit(b, r, v) != 0)
			return -1;
		if (v == 0)
			v = 1;
		else if (__builtin_mul_overflow(v, 2, &v))
			break;
	}
	return 0;
}

static int expand_linear(struct builder *b, struct range *r, int64_t lo, int64_t hi, uint64_t step)
{
	int64_t v = lo;
	for (;;) {
		if (range_emit(b, r, v) != 0)
			return -1;
		if (step > (uint64_t)INT64_MAX || __builtin_add_overflow(v, (int64_t)step, &v) ||
		    v > hi)
			break;
	}
	return 0;
}

/* lo * 2^(i/n) for i = 0, 1, ..., rounded to the nearest byte, while <= hi.
 * Whole octaves (i a multiple of n) are exact: lo * 2^q by ldexp. Between
 * two distinct rounded values the index skips ahead (the next value needs
 * x >= v + 0.5), so a huge n costs no more than the values it yields. */
static int expand_geometric(struct builder *b, struct range *r, int64_t lo, int64_t hi, uint64_t n)
{
	if (lo == 0) {
		if (range_emit(b, r, 0) != 0)
			return -1;
		if (hi == 0)
			return 0;
		lo = 1;
	}
	const long double a = (long double)lo, top = (long double)hi;
	uint64_t i = 0;
	for (;;) {
		long double x =
		    ldexpl(a * exp2l((long double)(i % n) / (long double)n), (int)(i / n));
		long double rounded = roundl(x);
		if (rounded > top)
			break;
		int64_t v = (int64_t)rounded;
		if (range_emit(b, r, v) != 0)
			return -1;
		long double next = ceill((long double)n * log2l(((long double)v + 0.5L) / a)) - 1;
		i = next > (long double)(i + 1) ? (uint64_t)next : i + 1;
	}
	return 0;
}

/* Points per octave: a plain positive decimal count. */
static int parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]) || __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -1;
	}
	*out = v;
	return 0;
}

static int parse_item(struct builder *b, const char *item, size_t len, bool allow_negative)
{
	const char *dots = NULL;
	for (size_t i = 0; i + 1 < len; i++) {
		if (item[i] == '.' && item[i + 1] == '.') {
			dots = item + i;
			break;
		}
	}
	if (!dots) {
		int64_t v;
		if (parse_value(item, len, allow_negative, &v) != 0)
			return -1;
		return builder_add(b, v);
	}

	struct range r = {.item = item, .len = (int)len};
	const char *hi_text = dots + 2, *end = item + len;
	const char *mod = hi_text;
	while (mod < end && *mod != ':' && *mod != '/')
		mod++;
	if (dots == item)
		return pb_fail("bad range '%.*s': missing start", r.len, item);
	if (mod == hi_text)
		return pb_fail("bad range '%.*s': missing end", r.len, item);
	int64_t lo, hi;
	if (parse_value(item, (size_t)(dots - item), allow_negative, &lo) != 0 ||
	    parse_value(hi_text, (size_t)(mod - hi_text), allow_negative, &hi) != 0)
		return -1;
	if (lo > hi)
		return pb_fail("bad range '%.*s': start is greater than end", r.len, item);

	if (mod == end) {
		if (lo < 0)
			return pb_fail("bad range '%.*s': doubling needs a start >= 0 "
			               "(use a step: 'a..b:s')",
			               r.len, item);
		return expand_doubling(b, &r, lo, hi);
	}
	const char *arg = mod + 1;
	size_t arg_len = (size_t)(end - arg);
	if (*mod == ':') {
		uint64_t step;
		if (arg_len == 0)
			return pb_fail("bad range '%.*s': missing step", r.len, item);
		if (arg[0] == '-')
			return pb_fail("bad range '%.*s': step must be positive", r.len, item);
		if (parse_magnitude(arg, arg_len, arg, (int)arg_len, &step) != 0)
			return -1;
		if (step == 0)
			return pb_fail("bad range '%.*s': step is zero", r.len, item);
		return expand_linear(b, &r, lo, hi, step);
	}
	uint64_t n;
	if (parse_count(arg, arg_len, &n) != 0 || n > UINT32_MAX)
		return pb_fail("bad range '%.*s': bad points per octave '%.*s'", r.len, item,
		               (int)arg_len, arg);
	if (n == 0)
		return pb_fail("bad range '%.*s': zero points per octave", r.len, item);
	if (lo < 0)
		return pb_fail("bad range '%.*s': points per octave need a start >= 0", r.len,
		               item);
	return expand_geometric(b, &r, lo, hi, n);
}

int pb_parse_size_list(const char *text, int allow_negative, size_t max_count,
                       struct pb_size_list *out)
{
	struct builder b = {.max_count = max_count, .text = text};
	int rc = 0;
	out->values = NULL;
	out->count = 0;
	if (text[0] == '\0')
		return pb_fail("bad size list '': empty");
	for (const char *p = text;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == 0) {
			rc = pb_fail("bad size list '%s': empty item", text);
			break;
		}
		if ((rc = parse_item(&b, p, len, allow_negative != 0)) != 0)
			break;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(b.slots);
	free(b.used);
	if (rc != 0) {
		free(b.list.values);
		return -1;
	}
	*out = b.list;
	return 0;
}

void pb_size_list_free(struct pb_size_list *l)
{
	free(l->values);
	l->values = NULL;
	l->count = 0;
}
