/* glibc_effect.c - the judgement of a GLIBC_TUNABLES line measured in
 * fresh processes (include/primbench/glibc_effect.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/glibc_effect.h"
#include "primbench/reader.h"
#include "primbench/summary_result.h"
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
			long long size = 0;
			const char *kernel = pb_field_str(&row->a->fields, "kernel");
			if (!pb_field_int(&row->a->fields, "size_bytes", &size) ||
			    (uint64_t)size != pts[i].size_bytes ||
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

void pb_glibc_effect_check_make(const char *op, const char *state, const char *env,
                                size_t processes_a, size_t processes_b, const char *order,
                                double margin, const struct pb_glibc_effect_row *rows, size_t n,
                                struct pb_glibc_check *out)
{
	memset(out, 0, sizeof *out);
	snprintf(out->op, sizeof out->op, "%s", op);
	snprintf(out->cache_state, sizeof out->cache_state, "%s", state);
	snprintf(out->env, sizeof out->env, "%s", env);
	snprintf(out->order, sizeof out->order, "%s", order);
	out->processes_a = processes_a;
	out->processes_b = processes_b;
	out->margin = margin;
	out->n_rows = n < PB_GLIBC_CHECK_MAX_ROWS ? n : PB_GLIBC_CHECK_MAX_ROWS;
	for (size_t i = 0; i < out->n_rows; i++) {
		const struct pb_glibc_effect_row *e = &rows[i];
		struct pb_glibc_check_row *r = &out->rows[i];
		r->size_bytes = e->pt.size_bytes;
		snprintf(r->unit, sizeof r->unit, "%s", e->unit ? e->unit : "");
		r->without = e->without;
		r->with = e->with;
		r->pct = e->pct;
		r->pct_lo = e->pct_lo;
		r->pct_hi = e->pct_hi;
		r->run_level = e->run_level;
		r->verdict = e->verdict;
		snprintf(r->word, sizeof r->word, "%s", e->word ? e->word : "missing");
		r->predicted_pct = 100 * e->pt.predicted;
		snprintf(r->predicted_kernel, sizeof r->predicted_kernel, "%s",
		         e->pt.predicted_kernel ? e->pt.predicted_kernel : "");
	}
}

void pb_glibc_effect_print_stored(FILE *f, const struct pb_glibc_check *check)
{
	struct pb_glibc_effect_row e[PB_GLIBC_CHECK_MAX_ROWS];
	size_t n =
	    check->n_rows < PB_GLIBC_CHECK_MAX_ROWS ? check->n_rows : PB_GLIBC_CHECK_MAX_ROWS;
	for (size_t i = 0; i < n; i++) {
		const struct pb_glibc_check_row *r = &check->rows[i];
		e[i] = (struct pb_glibc_effect_row){
		    .pt = {.size_bytes = r->size_bytes,
		           .predicted = r->predicted_pct / 100,
		           .predicted_kernel = r->predicted_kernel[0] ? r->predicted_kernel : NULL},
		    .measured = strcmp(r->word, "missing") != 0,
		    .unit = r->unit[0] ? r->unit : NULL,
		    .without = r->without,
		    .with = r->with,
		    .pct = r->pct,
		    .pct_lo = r->pct_lo,
		    .pct_hi = r->pct_hi,
		    .run_level = r->run_level,
		    .verdict = r->verdict,
		    .word = r->word,
		};
	}
	pb_glibc_effect_print_check(f, check->op, check->cache_state, check->processes_a,
	                            check->order, e, n, check->margin);
}
