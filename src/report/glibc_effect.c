/* glibc_effect.c - the judgement of a GLIBC_TUNABLES line measured in
 * fresh processes (include/primbench/glibc_effect.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "primbench/glibc_effect.h"
#include "primbench/reader.h"
#include "primbench/text.h"

const char *pb_glibc_effect_word(enum pb_verdict v, double pct)
{
	if (v == PB_VERDICT_DIFFERENT)
		return pct < 0 ? "faster" : "slower";
	if (v == PB_VERDICT_EQUIVALENT)
		return "same";
	return "unclear";
}

size_t pb_glibc_effect(const struct pb_compare_result *r, const struct pb_glibc_point *pts,
                       size_t n, struct pb_glibc_effect_row *out)
{
	for (size_t i = 0; i < n; i++) {
		struct pb_glibc_effect_row *e = &out[i];
		memset(e, 0, sizeof *e);
		e->pt = pts[i];
		e->without = e->with = e->pct = e->pct_lo = e->pct_hi = NAN;
		e->verdict = PB_VERDICT_NONE;
		for (size_t j = 0; r && j < r->nrows; j++) {
			const struct pb_compare_row *row = &r->rows[j];
			const json_t *size = json_object_get(row->a->key, "size_bytes");
			const char *kernel =
			    json_string_value(json_object_get(row->a->key, "kernel"));
			if (!json_is_integer(size) ||
			    (uint64_t)json_integer_value(size) != pts[i].size_bytes ||
			    (kernel && strcmp(kernel, "libc")))
				continue;
			e->measured = true;
			e->unit = row->unit;
			e->without = row->sa.median;
			e->with = row->sb.median;
			e->pct = row->pct;
			e->pct_lo = row->pct_lo;
			e->pct_hi = row->pct_hi;
			e->run_level = row->run_level;
			e->verdict = row->run_level ? row->verdict : PB_VERDICT_NONE;
			break;
		}
		e->word = e->measured ? pb_glibc_effect_word(e->verdict, e->pct) : "missing";
	}
	return n;
}

/* "23.0", "1404", "2.81e+06": 4 characters or so of a median */
static void fmt_value(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (v < 100)
		snprintf(buf, len, "%.1f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void pb_glibc_effect_print(FILE *f, const char *heading, const struct pb_glibc_effect_row *rows,
                           size_t n, double margin)
{
	pb_print_wrapped_at(f, 0, 2, heading);
	const char *unit = NULL;
	for (size_t i = 0; i < n && !unit; i++)
		unit = rows[i].measured ? rows[i].unit : NULL;
	bool ticks = unit && !strcmp(unit, "tsc_ticks");
	fprintf(f, "  %-9s %8s %8s  %-23s %-7s %s\n", "size", "without", "with",
	        "with/without (95% CI)", "verdict", "predicted");
	size_t faster = 0, slower = 0, same = 0, unclear = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pb_glibc_effect_row *e = &rows[i];
		char size[32], a[32], b[32], delta[64], pred[64];
		pb_format_bytes(size, sizeof size, (double)e->pt.size_bytes, PB_BYTES_EXACT);
		fmt_value(e->without, a, sizeof a);
		fmt_value(e->with, b, sizeof b);
		if (!e->measured || !isfinite(e->pct))
			snprintf(delta, sizeof delta, "-");
		else if (isfinite(e->pct_lo) && isfinite(e->pct_hi))
			snprintf(delta, sizeof delta, "%+.1f%% [%+.1f, %+.1f]", e->pct, e->pct_lo,
			         e->pct_hi);
		else
			snprintf(delta, sizeof delta, "%+.1f%%", e->pct);
		if (isfinite(e->pt.predicted))
			snprintf(pred, sizeof pred, "%+.0f%% %s", 100 * e->pt.predicted,
			         e->pt.predicted_kernel ? e->pt.predicted_kernel : "");
		else
			snprintf(pred, sizeof pred, "-");
		fprintf(f, "  %-9s %8s %8s  %-23s %-7s %s\n", size, a, b, delta, e->word, pred);
		if (!e->measured)
			continue;
		if (!strcmp(e->word, "faster"))
			faster++;
		else if (!strcmp(e->word, "slower"))
			slower++;
		else if (!strcmp(e->word, "same"))
			same++;
		else
			unclear++;
	}
	char line[400];
	snprintf(line, sizeof line,
	         "with the line: faster at %zu size%s, slower at %zu, the same (within +-%g%%) at "
	         "%zu, unclear at %zu. without, with: libc's median a call (%s); with/without: "
	         "the ratio of the processes' geometric means - 1, Welch's t interval on their "
	         "logs; predicted: the proposing run's figure, the policy's kernel there "
	         "against libc.",
	         faster, faster == 1 ? "" : "s", slower, 100 * margin, same, unclear,
	         ticks  ? "TSC ticks"
	         : unit ? unit
	                : "-");
	pb_print_wrapped_at(f, 2, 2, line);
}
