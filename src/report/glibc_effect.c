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
	/* the processes of each side, from the order (an interrupted check has
	 * fewer of one) */
	size_t na = 0, nb = 0;
	for (const char *c = order; *c; c++)
		na += *c == 'A', nb += *c == 'B';
	char each[96];
	if (na == nb || !order[0])
		snprintf(each, sizeof each, "%zu fresh processes each way", processes);
	else
		snprintf(each, sizeof each, "%zu fresh processes without and %zu with it", na, nb);
	char heading[700];
	snprintf(heading, sizeof heading,
	         "%s %s, libc without and with the line, measured: %s in the order %s "
	         "(primbench mem %s --kernels libc --sizes %s --cache %s --vs-env with the "
	         "line)",
	         op, state, each, order, op, sizes, state);
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
		json_object_set_new(r, "predicted_pct", num_or_null(100 * e->pt.predicted));
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

/* Checks of a stored check (pb_glibc_effect_check_json): bounds that any
 * figure primbench writes lies within. */
#define MAX_CHECKS 16
#define MAX_ROWS   8

static bool printable(const char *s, size_t max)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (n >= max || (unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	return n > 0;
}

/* A number of row `r` under key k in [lo, hi] (null allowed when
 * nullable: NAN). Returns false with pb_error() naming it. */
static bool row_num(const json_t *r, size_t i, size_t j, const char *k, double lo, double hi,
                    bool nullable, double *out)
{
	const json_t *v = json_object_get(r, k);
	*out = NAN;
	if (nullable && (!v || json_is_null(v)))
		return true;
	if (!json_is_number(v) || !(json_number_value(v) >= lo && json_number_value(v) <= hi)) {
		pb_fail("summary.glibc.measured[%zu].rows[%zu].%s: %s", i, j, k,
		        json_is_number(v) ? "out of range" : "not a number");
		return false;
	}
	*out = json_number_value(v);
	return true;
}

/* Row j of check i into e (strings borrowed). */
static bool read_row(const json_t *r, size_t i, size_t j, struct pb_glibc_effect_row *e)
{
	static const char *const words[] = {"faster", "slower", "same", "unclear", "missing"};
	static const char *const units[] = {"tsc_ticks", "ns"};
	memset(e, 0, sizeof *e);
	const json_t *size = json_object_get(r, "size_bytes");
	if (!json_is_object(r) || !json_is_integer(size) || json_integer_value(size) <= 0 ||
	    json_integer_value(size) > (json_int_t)1 << 50)
		return pb_fail("summary.glibc.measured[%zu].rows[%zu]: %s", i, j,
		               json_is_object(r) ? "size_bytes is not a size from 1 B to 1 PiB"
		                                 : "not an object"),
		       false;
	e->pt.size_bytes = (uint64_t)json_integer_value(size);
	const char *word = json_string_value(json_object_get(r, "word"));
	for (size_t w = 0; word && w < sizeof words / sizeof *words; w++)
		if (!strcmp(word, words[w]))
			e->word = words[w];
	if (!e->word)
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].word: not one of faster, "
		               "slower, same, unclear, missing",
		               i, j),
		       false;
	e->measured = strcmp(e->word, "missing") != 0;
	const json_t *u = json_object_get(r, "unit");
	if (e->measured || !json_is_null(u)) {
		const char *unit = json_string_value(u);
		for (size_t w = 0; unit && w < sizeof units / sizeof *units; w++)
			if (!strcmp(unit, units[w]))
				e->unit = units[w];
		if (!e->unit)
			return pb_fail("summary.glibc.measured[%zu].rows[%zu].unit: not tsc_ticks "
			               "or ns",
			               i, j),
			       false;
	}
	double pred;
	if (!row_num(r, i, j, "without", 0, 1e15, true, &e->without) ||
	    !row_num(r, i, j, "with", 0, 1e15, true, &e->with) ||
	    !row_num(r, i, j, "pct", -100, 1e6, true, &e->pct) ||
	    !row_num(r, i, j, "pct_lo", -100, 1e6, true, &e->pct_lo) ||
	    !row_num(r, i, j, "pct_hi", -100, 1e6, true, &e->pct_hi) ||
	    !row_num(r, i, j, "predicted_pct", -100, 1e6, true, &pred))
		return false;
	e->pt.predicted = pred / 100;
	const json_t *pk = json_object_get(r, "predicted_kernel");
	if (!json_is_null(pk) && pk) {
		const char *k = json_string_value(pk);
		if (!k || !printable(k, 32))
			return pb_fail(
			           "summary.glibc.measured[%zu].rows[%zu].predicted_kernel: not a "
			           "kernel name (up to 32 printable characters)",
			           i, j),
			       false;
		e->pt.predicted_kernel = k;
	}
	const json_t *rl = json_object_get(r, "run_level");
	const char *v = json_string_value(json_object_get(r, "verdict"));
	if (!json_is_boolean(rl))
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].run_level: not true or false",
		               i, j),
		       false;
	if (!v || (strcmp(v, "different") && strcmp(v, "equivalent") && strcmp(v, "none")))
		return pb_fail("summary.glibc.measured[%zu].rows[%zu].verdict: not different, "
		               "equivalent or none",
		               i, j),
		       false;
	e->run_level = json_is_true(rl);
	e->verdict = !strcmp(v, "different")    ? PB_VERDICT_DIFFERENT
	             : !strcmp(v, "equivalent") ? PB_VERDICT_EQUIVALENT
	                                        : PB_VERDICT_NONE;
	return true;
}

static bool read_check(const json_t *check, size_t i, const char **op, const char **state,
                       size_t *processes, const char **order, double *margin,
                       struct pb_glibc_effect_row *e, size_t *n)
{
	if (!json_is_object(check))
		return pb_fail("summary.glibc.measured[%zu]: not an object", i), false;
	*op = json_string_value(json_object_get(check, "op"));
	*state = json_string_value(json_object_get(check, "cache_state"));
	*order = json_string_value(json_object_get(check, "order"));
	const char *env = json_string_value(json_object_get(check, "env"));
	const json_t *pa = json_object_get(check, "processes_a");
	const json_t *pb = json_object_get(check, "processes_b");
	const json_t *m = json_object_get(check, "margin");
	const json_t *rows = json_object_get(check, "rows");
	const char *bad = NULL;
	if (!*op || (strcmp(*op, "memset") && strcmp(*op, "memcpy")))
		bad = "op: not memset or memcpy";
	else if (!*state || (strcmp(*state, "hot") && strcmp(*state, "dram")))
		bad = "cache_state: not hot or dram";
	else if (!env || !printable(env, 2048) || strncmp(env, "GLIBC_TUNABLES=", 15))
		bad = "env: not a GLIBC_TUNABLES= line of up to 2048 printable characters";
	else if (!*order || !printable(*order, 255) || strspn(*order, "AB") != strlen(*order))
		bad = "order: not a sequence of A and B";
	else if (!json_is_integer(pa) || json_integer_value(pa) < 1 || json_integer_value(pa) > 255)
		bad = "processes_a: not a count from 1 to 255";
	else if (!json_is_integer(pb) || json_integer_value(pb) < 1 || json_integer_value(pb) > 255)
		bad = "processes_b: not a count from 1 to 255";
	else if (!json_is_number(m) || !(json_number_value(m) >= 0 && json_number_value(m) < 1))
		bad = "margin: not a fraction from 0 to 1";
	else if (!json_is_array(rows) || json_array_size(rows) < 1 ||
	         json_array_size(rows) > MAX_ROWS)
		bad = "rows: not an array of 1 to 8 rows";
	if (bad)
		return pb_fail("summary.glibc.measured[%zu].%s", i, bad), false;
	*processes = (size_t)json_integer_value(pa);
	*margin = json_number_value(m);
	*n = json_array_size(rows);
	for (size_t j = 0; j < *n; j++)
		if (!read_row(json_array_get(rows, j), i, j, &e[j]))
			return false;
	return true;
}

int pb_glibc_effect_check_json(const json_t *measured)
{
	if (!json_is_array(measured) || json_array_size(measured) > MAX_CHECKS)
		return pb_fail("summary.glibc.measured: not an array of up to %d checks",
		               MAX_CHECKS);
	for (size_t i = 0; i < json_array_size(measured); i++) {
		const char *op, *state, *order;
		size_t processes, n;
		double margin;
		struct pb_glibc_effect_row e[MAX_ROWS];
		if (!read_check(json_array_get(measured, i), i, &op, &state, &processes, &order,
		                &margin, e, &n))
			return -1;
	}
	return 0;
}

int pb_glibc_effect_print_json(FILE *f, const json_t *check)
{
	const char *op, *state, *order;
	size_t processes, n;
	double margin;
	struct pb_glibc_effect_row e[MAX_ROWS];
	if (!read_check(check, 0, &op, &state, &processes, &order, &margin, e, &n))
		return -1;
	pb_glibc_effect_print_check(f, op, state, processes, order, e, n, margin);
	return 0;
}
