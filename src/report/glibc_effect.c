/* glibc_effect.c - the judgement of a GLIBC_TUNABLES line measured in
 * fresh processes (include/primbench/glibc_effect.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "primbench/error.h"
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

void pb_glibc_effect_print_check(FILE *f, const char *op, const char *state, size_t processes,
                                 const char *order, const struct pb_glibc_effect_row *rows,
                                 size_t n, double margin)
{
	char sizes[400] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%llu",
		         i ? "," : "", (unsigned long long)rows[i].pt.size_bytes);
	char heading[700];
	snprintf(heading, sizeof heading,
	         "%s %s, libc without and with the line, measured: %zu fresh processes each "
	         "way in the order %s (primbench mem %s --kernels libc --sizes %s --cache %s "
	         "--vs-env with the line)",
	         op, state, processes, order, op, sizes, state);
	pb_glibc_effect_print(f, heading, rows, n, margin);
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *pb_glibc_effect_json(const char *op, const char *state, const char *env, size_t processes_a,
                             size_t processes_b, const char *order, double margin,
                             const struct pb_glibc_effect_row *rows, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct pb_glibc_effect_row *e = &rows[i];
		json_t *r = json_object();
		json_object_set_new(r, "size_bytes", json_integer((json_int_t)e->pt.size_bytes));
		json_object_set_new(r, "unit", e->unit ? json_string(e->unit) : json_null());
		json_object_set_new(r, "without", num_or_null(e->without));
		json_object_set_new(r, "with", num_or_null(e->with));
		json_object_set_new(r, "pct", num_or_null(e->pct));
		json_object_set_new(r, "pct_lo", num_or_null(e->pct_lo));
		json_object_set_new(r, "pct_hi", num_or_null(e->pct_hi));
		json_object_set_new(r, "run_level", json_boolean(e->run_level));
		json_object_set_new(r, "verdict", json_string(pb_verdict_name(e->verdict)));
		json_object_set_new(r, "word", json_string(e->word ? e->word : "missing"));
		json_object_set_new(r, "predicted", num_or_null(e->pt.predicted));
		json_object_set_new(r, "predicted_kernel",
		                    e->pt.predicted_kernel ? json_string(e->pt.predicted_kernel)
		                                           : json_null());
		json_array_append_new(a, r);
	}
	json_t *o = json_object();
	json_object_set_new(o, "op", json_string(op));
	json_object_set_new(o, "cache_state", json_string(state));
	json_object_set_new(o, "env", json_string(env));
	json_object_set_new(o, "processes_a", json_integer((json_int_t)processes_a));
	json_object_set_new(o, "processes_b", json_integer((json_int_t)processes_b));
	json_object_set_new(o, "order", json_string(order));
	json_object_set_new(o, "margin", json_real(margin));
	json_object_set_new(o, "rows", a);
	return o;
}

static double num_of(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int pb_glibc_effect_print_json(FILE *f, const json_t *check)
{
	const char *op = json_string_value(json_object_get(check, "op"));
	const char *state = json_string_value(json_object_get(check, "cache_state"));
	const char *order = json_string_value(json_object_get(check, "order"));
	const json_t *pa = json_object_get(check, "processes_a");
	const json_t *rows = json_object_get(check, "rows");
	double margin = num_of(check, "margin");
	if (!op || !state || !order || !json_is_integer(pa) || json_integer_value(pa) < 0 ||
	    !json_is_array(rows) || !isfinite(margin) || margin < 0)
		return pb_fail("summary: glibc.measured: a check without op, cache_state, order, "
		               "processes_a, margin or rows");
	size_t n = json_array_size(rows);
	if (n > 64)
		return pb_fail("summary: glibc.measured: %zu rows (at most 64)", n);
	struct pb_glibc_effect_row e[64];
	for (size_t i = 0; i < n; i++) {
		const json_t *r = json_array_get(rows, i);
		const json_t *size = json_object_get(r, "size_bytes");
		const char *word = json_string_value(json_object_get(r, "word"));
		if (!json_is_integer(size) || json_integer_value(size) < 0 || !word)
			return pb_fail(
			    "summary: glibc.measured: row %zu without size_bytes or word", i);
		e[i] = (struct pb_glibc_effect_row){
		    .pt = {.size_bytes = (uint64_t)json_integer_value(size),
		           .predicted = num_of(r, "predicted"),
		           .predicted_kernel =
		               json_string_value(json_object_get(r, "predicted_kernel"))},
		    .measured = strcmp(word, "missing") != 0,
		    .unit = json_string_value(json_object_get(r, "unit")),
		    .without = num_of(r, "without"),
		    .with = num_of(r, "with"),
		    .pct = num_of(r, "pct"),
		    .pct_lo = num_of(r, "pct_lo"),
		    .pct_hi = num_of(r, "pct_hi"),
		    .run_level = json_is_true(json_object_get(r, "run_level")),
		    .word = word,
		};
	}
	pb_glibc_effect_print_check(f, op, state, (size_t)json_integer_value(pa), order, e, n,
	                            margin);
	return 0;
}
