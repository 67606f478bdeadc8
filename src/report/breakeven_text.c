/* breakeven_text.c - a break-even computation in words, in at most 80
 * columns, and as the record of the result file's "breakeven" array
 * (include/primbench/breakeven_text.h, docs/breakeven.md; the results
 * module writes it: src/results/breakeven_write.c). */
#include "primbench/breakeven_text.h"
#include "primbench/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/sizes.h"
#include "primbench/text.h"
#include "primbench/twosample.h"

/* ---- text ----------------------------------------------------------------- */

/* "between 1.7 and 2.2 KiB", "from below 64 B to 2.2 KiB", ... */
static void fmt_interval(const struct pb_crossing *c, char *buf, size_t len)
{
	char lo[32], hi[32];
	pb_format_bytes(lo, sizeof lo, c->lo_bytes, PB_BYTES_PROSE);
	pb_format_bytes(hi, sizeof hi, c->hi_bytes, PB_BYTES_PROSE);
	const char *ul = strchr(lo, ' '), *uh = strchr(hi, ' ');
	if (c->lo_open || c->hi_open)
		snprintf(buf, len, "from %s%s to %s%s", c->lo_open ? "below " : "", lo,
		         c->hi_open ? "beyond " : "", hi);
	else if (!strcmp(lo, hi))
		snprintf(buf, len, "around %s", lo); /* narrower than the rounding */
	else if (ul && uh && !strcmp(ul, uh))
		snprintf(buf, len, "between %.*s and %s", (int)(ul - lo), lo, hi);
	else
		snprintf(buf, len, "between %s and %s", lo, hi);
}

static void fmt_value(uint64_t v, char *buf, size_t len)
{
	pb_glibc_threshold_text(v, buf, len);
	if (v < PB_GLIBC_NT_MAX) {
		char h[32];
		pb_format_bytes(h, sizeof h, v, PB_BYTES_PROSE);
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, " (%s)", h);
	}
}

void pb_breakeven_switch_text(const struct pb_crossing *x, char *out, size_t out_len)
{
	char at[32], from[32], iv[256];
	pb_format_bytes(at, sizeof at, x->bound_bytes, PB_BYTES_PROSE);
	pb_format_bytes(from, sizeof from, x->moved_from_bytes, PB_BYTES_PROSE);
	size_t n = 0;
	iv[0] = '\0';
	if (x->bound_how == PB_BOUND_BANDS)
		n += (size_t)snprintf(iv, sizeof iv,
		                      "no crossing of their own: where their "
		                      "bands meet; ");
	else if (x->bound_how == PB_BOUND_CODE)
		n += (size_t)snprintf(
		    iv, sizeof iv,
		    "moved up from %s, the crossing: %s runs %s's "
		    "code up to %s; ",
		    from, x->above->name,
		    pb_kernel_code_at(x->above, (size_t)x->moved_from_bytes)->name, at);
	else if (x->bound_how == PB_BOUND_ASCENDING)
		n += (size_t)snprintf(iv, sizeof iv,
		                      "moved up from %s, below the switch before it; ", from);
	if (x->lo_open && !x->hi_open && x->lo_bytes == x->hi_bytes) {
		/* never compared below the switch: nothing undecided */
		char first[32];
		pb_format_bytes(first, sizeof first, x->hi_bytes, PB_BYTES_PROSE);
		snprintf(iv + n, sizeof iv - n, "first compared at %s", first);
	} else if (x->undecided_measured) {
		/* Where the bound is the crossing, it lies in the undecided region
		 * (a median crossing lies where neither is faster); only
		 * interpolation and rounding may put it a byte outside. */
		struct pb_crossing shown = *x;
		if (x->bound_how == PB_BOUND_CROSSING) {
			if (!shown.lo_open && shown.lo_bytes > (double)x->bound_bytes)
				shown.lo_bytes = (double)x->bound_bytes;
			if (!shown.hi_open && shown.hi_bytes < (double)x->bound_bytes + 1)
				shown.hi_bytes = (double)x->bound_bytes + 1;
		}
		snprintf(iv + n, sizeof iv - n, "neither faster ");
		n = strlen(iv);
		fmt_interval(&shown, iv + n, sizeof iv - n);
	} else if (x->bound_how == PB_BOUND_CROSSING) {
		struct pb_crossing around = {.lo_bytes = (double)x->bracket_lo,
		                             .hi_bytes = (double)x->bracket_hi};
		snprintf(iv + n, sizeof iv - n, "one faster at every measured size; crossing ");
		n = strlen(iv);
		fmt_interval(&around, iv + n, sizeof iv - n);
	} else {
		snprintf(iv + n, sizeof iv - n, "one faster at every measured size");
	}
	const struct pb_kernel *code = pb_kernel_code_at(
	    x->above, (size_t)(x->bound_bytes < SIZE_MAX ? x->bound_bytes : SIZE_MAX));
	if (code != x->above && x->bound_how != PB_BOUND_CODE) {
		n = strlen(iv);
		snprintf(iv + n, sizeof iv - n, "; up to %s %s runs %s's code", at, x->above->name,
		         code->name);
	}
	int len = snprintf(out, out_len, "%s -> %s above %s (%s)", x->below->name, x->above->name,
	                   at, iv);
	if (x->flips > 1 && len >= 0 && (size_t)len < out_len)
		snprintf(out + len, out_len - (size_t)len, "; the medians crossed %u times in it",
		         x->flips);
}

void pb_breakeven_peers_text(const struct pb_breakeven *b, char *out, size_t out_len)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < b->policy.n_bands && len < out_len; i++) {
		if (!b->peers[i].n)
			continue;
		const struct pb_policy_band *band = &b->policy.bands[i];
		int w =
		    i + 1 < b->policy.n_bands
		        ? snprintf(out + len, out_len - len, "%s%s<=%llu:", len ? "; " : "",
		                   band->kernel->name, (unsigned long long)band->max_bytes)
		        : snprintf(out + len, out_len - len,
		                   "%s%s (the last band):", len ? "; " : "", band->kernel->name);
		len += w > 0 ? (size_t)w : 0;
		for (size_t k = 0; k < b->peers[i].n && len < out_len; k++) {
			w = snprintf(out + len, out_len - len, "%s %s", k ? "," : "",
			             b->peers[i].kernels[k]->name);
			len += w > 0 ? (size_t)w : 0;
		}
	}
	if (len >= out_len && out_len > 0)
		out[out_len - 1] = '\0';
}

/* The recommended policy, its keep rule, and the bands' peers. */
static void print_policy(FILE *f, const struct pb_breakeven *b)
{
	char policy[PB_POLICY_TEXT_MAX];
	pb_policy_format(&b->policy, policy, sizeof policy);
	char gain[96];
	if (b->rule.small == b->rule.large || b->rule.large_from_bytes == 0)
		snprintf(gain, sizeof gain, "%g%%", 100 * b->rule.small);
	else {
		char from[32];
		pb_format_bytes(from, sizeof from, (double)b->rule.large_from_bytes,
		                PB_BYTES_EXACT);
		snprintf(gain, sizeof gain, "%g%% (from %s on %g%%)", 100 * b->rule.small, from,
		         100 * b->rule.large);
	}
	char head[256];
	snprintf(head, sizeof head,
	         "recommended policy (lower envelope of the medians; a band is kept only "
	         "where its kernel beats a neighbour's by over %s by the one rule):",
	         gain);
	pb_print_wrapped_at(f, 0, 0, head);
	/* Long policies break after commas; a short one stays one line. */
	const char *p = policy;
	const char *quote = "'";
	while (strlen(p) > PB_TEXT_WIDTH - 4) {
		const char *cut = p + PB_TEXT_WIDTH - 5;
		while (cut > p && *cut != ',')
			cut--;
		if (cut == p)
			break;
		fprintf(f, "  %s%.*s\n", quote, (int)(cut - p + 1), p);
		quote = "";
		p = cut + 1;
	}
	fprintf(f, "  %s%s'\n", quote, p);
	if (b->policy_simplified)
		fprintf(f, "  (merged down to %d bands: some distinguishable bands were dropped)\n",
		        PB_POLICY_MAX_BANDS);
	char peers[512];
	pb_breakeven_peers_text(b, peers, sizeof peers);
	if (peers[0]) {
		char text[768];
		snprintf(text, sizeof text,
		         "cannot be told apart from the band's kernel (not slower by the one "
		         "rule over its sizes; of those within the keep rule's gain by the "
		         "medians, the first in catalogue order serves it): %s",
		         peers);
		pb_print_wrapped_at(f, 2, 4, text);
	}
}

/* The glibc tunables closest to the policy beside glibc's values now, the
 * line to paste, and what glibc cannot express. */
static void print_glibc(FILE *f, const struct pb_breakeven *b)
{
	char line[512];
	int len;
	const struct pb_glibc_tunables *t = &b->glibc;
	const struct pb_glibc_thresholds *now = &b->glibc_now;
	struct row {
		const char *name;
		uint64_t v, now;
	} rows[2];
	size_t nrows = 0;
	if (b->op == PB_OP_MEMCPY) {
		rows[nrows++] =
		    (struct row){"x86_rep_movsb_threshold", t->rep_movsb, now->rep_movsb};
		rows[nrows++] =
		    (struct row){"x86_non_temporal_threshold", t->non_temporal, now->non_temporal};
	} else {
		rows[nrows++] =
		    (struct row){"x86_rep_stosb_threshold", t->rep_stosb, now->rep_stosb};
	}
	fprintf(f, "glibc 2.36 x86-64 tunables closest to it:\n");
	fprintf(f, "  %-26s  %-24s %s\n", "tunable", "for this policy", "glibc now");
	for (size_t i = 0; i < nrows; i++) {
		char v[64], n[64];
		fmt_value(rows[i].v, v, sizeof v);
		if (now->known)
			fmt_value(rows[i].now, n, sizeof n);
		else
			snprintf(n, sizeof n, "unknown");
		fprintf(f, "  %-26s  %-24s %s\n", rows[i].name, v, n);
	}
	/* The line splits with a backslash-newline: pasted into a shell it is
	 * one word again. */
	const char *colon = strchr(t->line, ':');
	if (colon)
		fprintf(f, "  %.*s\\\n%s\n", (int)(colon - t->line + 1), t->line, colon + 1);
	else
		fprintf(f, "  %s\n", t->line);
	len = snprintf(line, sizeof line,
	               "with these, glibc runs another kind of path (vector loop, rep, "
	               "non-temporal) than the policy's kernel over %.1f of the %.1f octaves "
	               "measured",
	               t->mismatch_octaves,
	               log2((double)b->max_size + 1) - log2((double)b->min_size));
	if (t->no_path_octaves > 0.05 && len < (int)sizeof line)
		snprintf(line + len, sizeof line - (size_t)len,
		         "; not counted: %.1f octaves served by kernels glibc has no path for "
		         "(below)",
		         t->no_path_octaves);
	pb_print_wrapped_at(f, 2, 2, line);
	if (t->n_notes)
		fprintf(f, "  what glibc cannot express, or not exactly:\n");
	for (size_t i = 0; i < t->n_notes; i++) {
		snprintf(line, sizeof line, "- %s", t->notes[i]);
		pb_print_wrapped_at(f, 2, 4, line);
	}
}

void pb_breakeven_print(FILE *f, const struct pb_breakeven *b)
{
	char line[512], a[64], c[64];
	fprintf(f, "\nbreak-even, %s, %s (medians of ticks/call and their 95%% CIs)\n",
	        pb_op_name(b->op), pb_cache_state_name(b->state));
	int len = snprintf(line, sizeof line, "leading kernels:");
	for (size_t i = 0; i < b->n_leading && len < (int)sizeof line; i++)
		len += snprintf(line + len, sizeof line - (size_t)len, " %s", b->leading[i]->name);
	pb_print_wrapped_at(f, 0, 17, line);
	pb_format_bytes(a, sizeof a, b->min_size, PB_BYTES_PROSE);
	pb_format_bytes(c, sizeof c, b->max_size, PB_BYTES_PROSE);
	fprintf(f, "%zu size%s measured, %s to %s\n", b->n_sizes, b->n_sizes == 1 ? "" : "s", a, c);

	fprintf(f,
	        "where the recommended policy switches kernels (faster below -> faster\n"
	        "above; in brackets the sizes where neither is faster beyond +-%g%%, not\n"
	        "a confidence interval of the switch):\n",
	        100 * pb_equivalence());
	for (size_t i = 0; i < b->n_switches; i++) {
		pb_breakeven_switch_text(&b->switches[i], line, sizeof line);
		pb_print_wrapped_at(f, 2, 4, line);
	}
	if (b->n_switches == 0)
		fprintf(f, "  none: one kernel serves every size\n");
	if (b->n_crossings > 0)
		fprintf(f,
		        "  (every crossing of two leading kernels, %zu, is in the result file)\n",
		        b->n_crossings);
	print_policy(f, b);
	if (b->have_glibc)
		print_glibc(f, b);
}

void pb_print_breakeven(FILE *f, const struct pb_mem_result *r, enum pb_op op,
                        enum pb_cache_state st, const struct pb_glibc_thresholds *g)
{
	struct pb_breakeven b;
	int rc = pb_breakeven_compute(r, op, st, g, &b);
	if (rc < 0) {
		fprintf(f, "\nbreak-even, %s, %s: %s\n", pb_op_name(op), pb_cache_state_name(st),
		        pb_error());
		return;
	}
	if (rc == 0)
		return;
	pb_breakeven_print(f, &b);
	pb_breakeven_free(&b);
}

/* ---- the result file's record ------------------------------------------- */

static void crossing_record(const struct pb_crossing *c, bool with_bound,
                            struct pb_breakeven_crossing_record *x)
{
	static const char *const how[] = {
	    [PB_BOUND_CROSSING] = "crossing",
	    [PB_BOUND_BANDS] = "bands_meet",
	    [PB_BOUND_CODE] = "same_code",
	    [PB_BOUND_ASCENDING] = "ascending",
	};
	*x = (struct pb_breakeven_crossing_record){
	    .below = c->below->name,
	    .above = c->above->name,
	    .size_bytes = c->size_bytes,
	    .bracket_lo = c->bracket_lo,
	    .bracket_hi = c->bracket_hi,
	    .lo_bytes = c->lo_bytes,
	    .hi_bytes = c->hi_bytes,
	    .lo_open = c->lo_open,
	    .hi_open = c->hi_open,
	    .flips = c->flips,
	};
	if (with_bound) {
		x->bound_bytes = c->bound_bytes;
		x->bound_from = how[c->bound_how];
		x->has_moved_from =
		    c->bound_how == PB_BOUND_CODE || c->bound_how == PB_BOUND_ASCENDING;
		x->moved_from_bytes = c->moved_from_bytes;
		x->ci_overlap_measured = c->undecided_measured;
	}
}

_Static_assert(PB_BREAKEVEN_RECORD_MAX_PEERS == PB_BREAKEVEN_MAX_PEERS, "peers fit the record");
_Static_assert(PB_BREAKEVEN_RECORD_MAX_NOTES == PB_GLIBC_MAX_NOTES, "notes fit the record");

int pb_breakeven_record_make(const struct pb_breakeven *b, struct pb_breakeven_record *o)
{
	memset(o, 0, sizeof *o);
	o->op = pb_op_name(b->op);
	o->cache_state = pb_cache_state_name(b->state);
	o->min_size_bytes = b->min_size;
	o->max_size_bytes = b->max_size;
	o->leading = calloc(b->n_leading ? b->n_leading : 1, sizeof *o->leading);
	o->crossings = calloc(b->n_crossings ? b->n_crossings : 1, sizeof *o->crossings);
	o->switches = calloc(b->n_switches ? b->n_switches : 1, sizeof *o->switches);
	if (!o->leading || !o->crossings || !o->switches) {
		pb_breakeven_record_free(o);
		return pb_fail("out of memory");
	}
	for (size_t i = 0; i < b->n_leading; i++)
		o->leading[i] = b->leading[i]->name;
	o->n_leading = b->n_leading;
	for (size_t i = 0; i < b->n_crossings; i++)
		crossing_record(&b->crossings[i], false, &o->crossings[i]);
	o->n_crossings = b->n_crossings;
	for (size_t i = 0; i < b->n_switches; i++)
		crossing_record(&b->switches[i], true, &o->switches[i]);
	o->n_switches = b->n_switches;
	pb_policy_format(&b->policy, o->policy, sizeof o->policy);
	o->policy_simplified = b->policy_simplified;
	o->n_bands = b->policy.n_bands;
	for (size_t i = 0; i < b->policy.n_bands; i++) {
		o->n_peers[i] = b->peers[i].n;
		for (size_t k = 0; k < b->peers[i].n; k++)
			o->peers[i][k] = b->peers[i].kernels[k]->name;
	}
	o->have_glibc = b->have_glibc;
	if (b->have_glibc) {
		const struct pb_glibc_tunables *t = &b->glibc;
		const struct pb_glibc_thresholds *now = &b->glibc_now;
		o->is_memcpy = b->op == PB_OP_MEMCPY;
		o->rep_movsb = t->rep_movsb;
		o->non_temporal = t->non_temporal;
		o->rep_stosb = t->rep_stosb;
		o->current_known = now->known;
		o->cur_rep_movsb = now->rep_movsb;
		o->cur_non_temporal = now->non_temporal;
		o->cur_rep_stosb = now->rep_stosb;
		o->cur_rep_movsb_stop = now->rep_movsb_stop;
		snprintf(o->env, sizeof o->env, "%s", t->line);
		o->mismatch_octaves = t->mismatch_octaves;
		o->no_path_octaves = t->no_path_octaves;
		o->n_notes = t->n_notes;
		for (size_t i = 0; i < t->n_notes; i++)
			snprintf(o->notes[i], sizeof o->notes[i], "%s", t->notes[i]);
	}
	return 0;
}

int pb_breakeven_write(struct pb_results_doc *doc, const struct pb_mem_result *r, enum pb_op op,
                       enum pb_cache_state st, const struct pb_glibc_thresholds *g)
{
	struct pb_breakeven b;
	int rc = pb_breakeven_compute(r, op, st, g, &b);
	if (rc <= 0)
		return rc;
	struct pb_breakeven_record rec;
	rc = pb_breakeven_record_make(&b, &rec);
	pb_breakeven_free(&b);
	if (rc != 0)
		return -1;
	rc = pb_results_add_breakeven(doc, &rec);
	pb_breakeven_record_free(&rec);
	return rc == 0 ? 1 : -1;
}
