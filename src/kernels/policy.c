/* policy.c - the policy grammar (include/primbench/policy.h).
 *
 * Parsing never allocates and never touches *out before the whole text is
 * known to be good: the preload library parses its environment with it
 * and falls back to libc on -1.
 */
#include "primbench/policy.h"

#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/sizes.h"
#include "primbench/text.h"

/* An item is "kernel<=bound" or, last, "kernel"; at most this long. */
#define ITEM_MAX 128

/* "bad policy 'TEXT': " before the last error (a copy: pb_fail writes
 * the buffer pb_error reads). */
static int wrap_error(const char *text)
{
	char why[256];
	snprintf(why, sizeof why, "%s", pb_error());
	return pb_fail("bad policy '%s': %s", text, why);
}

/* Parses one "kernel<=bound" or "kernel" item, item[0..len). */
static int parse_item(enum pb_op op, const char *text, const char *item, size_t len,
                      pb_features have, const struct pb_kernel **kernel, bool *has_bound,
                      uint64_t *bound)
{
	char buf[ITEM_MAX];
	if (len >= sizeof buf)
		return pb_fail("bad policy '%s': item '%.*s...' is too long", text, 32, item);
	memcpy(buf, item, len);
	buf[len] = '\0';

	char *le = strstr(buf, "<=");
	if (!le && strpbrk(buf, "<>="))
		return pb_fail(
		    "bad policy '%s': '%s' is not 'kernel<=bytes' (bounds are inclusive)", text,
		    buf);
	*has_bound = le != NULL;
	if (le) {
		const char *b = le + 2;
		*le = '\0';
		if (buf[0] == '\0')
			return pb_fail("bad policy '%s': no kernel before '<=%s'", text, b);
		if (*b == '\0')
			return pb_fail("bad policy '%s': '%s<=' has no bound", text, buf);
		if (strpbrk(b, "<>="))
			return pb_fail("bad policy '%s': '%s<=%s' is not 'kernel<=bytes'", text,
			               buf, b);
		if (pb_parse_size(b, bound) != 0)
			return wrap_error(text);
	}

	const struct pb_kernel *k = pb_kernel_find(op, buf);
	if (!k)
		return wrap_error(text);
	char why[160];
	if (!pb_kernel_usable(k, have, why, sizeof why))
		return pb_fail("bad policy '%s': kernel '%s' is not usable here: %s", text, buf,
		               why);
	*kernel = k;
	return 0;
}

int pb_policy_parse(enum pb_op op, const char *text, pb_features have, struct pb_policy *out)
{
	struct pb_policy p = {.op = op};
	const char *prev_bound = NULL;
	size_t prev_bound_len = 0;

	if ((unsigned)op >= PB_OP_COUNT)
		return pb_fail("bad policy '%s': no op (memset, memcpy or memmove)", text);
	if (text[0] == '\0')
		return pb_fail("bad policy '': empty");
	for (const char *item = text;;) {
		const char *comma = strchr(item, ',');
		size_t len = comma ? (size_t)(comma - item) : strlen(item);
		if (len == 0)
			return pb_fail("bad policy '%s': empty item", text);
		if (p.n_bands == PB_POLICY_MAX_BANDS)
			return pb_fail("bad policy '%s': more than %d kernels", text,
			               PB_POLICY_MAX_BANDS);

		struct pb_policy_band *band = &p.bands[p.n_bands];
		bool has_bound = false;
		uint64_t bound = 0;
		if (parse_item(op, text, item, len, have, &band->kernel, &has_bound, &bound) != 0)
			return -1;
		if (!has_bound && comma)
			return pb_fail("bad policy '%s': only the last kernel may go without a "
			               "bound ('%.*s')",
			               text, (int)len, item);
		if (has_bound && !comma)
			return pb_fail(
			    "bad policy '%s': no default kernel after '%.*s' (end with a "
			    "kernel without a bound)",
			    text, (int)len, item);
		const char *bound_text = strstr(item, "<=");
		if (has_bound) {
			bound_text += 2;
			size_t bound_len = len - (size_t)(bound_text - item);
			if (p.n_bands > 0 && bound <= p.bands[p.n_bands - 1].max_bytes)
				return pb_fail("bad policy '%s': bound '%.*s' is not above the "
				               "previous bound '%.*s'",
				               text, (int)bound_len, bound_text,
				               (int)prev_bound_len, prev_bound);
			prev_bound = bound_text;
			prev_bound_len = bound_len;
			band->max_bytes = bound;
		} else {
			band->max_bytes = UINT64_MAX;
		}
		p.n_bands++;
		if (!comma)
			break;
		item = comma + 1;
	}
	*out = p;
	return 0;
}

int pb_policy_format(const struct pb_policy *p, char *buf, size_t len)
{
	size_t used = 0;
	bool fits = true;
	for (size_t i = 0; i < p->n_bands; i++) {
		char part[ITEM_MAX];
		if (i + 1 < p->n_bands) {
			char size[32];
			pb_format_bytes_exact(size, sizeof size, p->bands[i].max_bytes);
			snprintf(part, sizeof part, "%s<=%s,", p->bands[i].kernel->name, size);
		} else {
			snprintf(part, sizeof part, "%s", p->bands[i].kernel->name);
		}
		size_t n = strlen(part);
		if (fits && used + n < len) {
			memcpy(buf + used, part, n);
		} else if (fits) {
			fits = false;
			if (len > 0) {
				size_t room = len - 1 - used;
				memcpy(buf + used, part, room);
				buf[len - 1] = '\0';
			}
		}
		used += n;
	}
	if (!fits)
		return pb_fail("policy text needs %zu bytes, the buffer has %zu", used + 1, len);
	buf[used] = '\0';
	return (int)used;
}

bool pb_policy_equal(const struct pb_policy *a, const struct pb_policy *b)
{
	if (a->op != b->op || a->n_bands != b->n_bands)
		return false;
	for (size_t i = 0; i < a->n_bands; i++)
		if (a->bands[i].kernel != b->bands[i].kernel ||
		    a->bands[i].max_bytes != b->bands[i].max_bytes)
			return false;
	return true;
}
