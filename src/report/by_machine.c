/* by_machine.c - many machines in one table (include/primbench/by_machine.h). */
#define _GNU_SOURCE
#include "primbench/by_machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/replicates.h"
#include "primbench/report.h"
#include "primbench/sizes.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"

#define LEVEL 0.95

/* ---- figure specs ---------------------------------------------------------- */

static void fig_free(struct pb_bm_figure *g)
{
	for (size_t i = 0; i < g->ncond; i++) {
		free(g->cond[i].field);
		free(g->cond[i].value);
	}
	free(g->cond);
	free(g->spec);
	free(g->title);
	free(g->fastest);
}

void pb_bm_figures_free(struct pb_bm_figures *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		fig_free(&f->v[i]);
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

static int add_cond(struct pb_bm_figure *g, const char *spec, const char *field, const char *value)
{
	if (!*field || !*value)
		return pb_fail("figure '%s': FIELD=VALUE with an empty %s", spec,
		               *field ? "value" : "field");
	for (size_t i = 0; i < g->ncond; i++)
		if (!strcmp(g->cond[i].field, field))
			return pb_fail("figure '%s': field '%s' twice", spec, field);
	if (!strcmp(value, "fastest")) {
		if (g->fastest)
			return pb_fail("figure '%s': two fields are 'fastest' ('%s', '%s')", spec,
			               g->fastest, field);
		g->fastest = pb_xstrdup(field);
		return 0;
	}
	g->cond = pb_xrealloc(g->cond, (g->ncond + 1) * sizeof *g->cond);
	struct pb_bm_cond *c = &g->cond[g->ncond++];
	*c = (struct pb_bm_cond){.field = pb_xstrdup(field), .value = pb_xstrdup(value)};
	/* a size where the field holds bytes ("4K"); plain numbers elsewhere
	 * too, so "4096" matches an integer field */
	uint64_t b;
	bool bytes_field = strlen(field) > 6 && !strcmp(field + strlen(field) - 6, "_bytes");
	if ((bytes_field || strspn(value, "0123456789") == strlen(value)) &&
	    pb_parse_size(value, &b) == 0) {
		c->is_size = true;
		c->bytes = b;
	} else if (bytes_field && strcmp(value, "null")) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s", pb_error());
		return pb_fail("figure '%s': %s", spec, msg);
	}
	return 0;
}

/* "4K" for a size condition, else the value. */
static void cond_text(const struct pb_bm_cond *c, char *buf, size_t len)
{
	if (c->is_size)
		pb_format_bytes_exact(buf, len, c->bytes);
	else
		snprintf(buf, len, "%s", c->value);
}

static int parse_path(struct pb_bm_figure *g, const char *spec, char *body)
{
	char *part[8];
	size_t np = 0;
	for (char *s = body;; s++) {
		char *e = strchr(s, '/');
		if (np == 8)
			return pb_fail("figure '%s': too many '/' parts", spec);
		part[np++] = s;
		if (!e)
			break;
		*e = '\0';
		s = e;
	}
	for (size_t i = 0; i < np; i++)
		if (!*part[i])
			return pb_fail("figure '%s': an empty part between '/'", spec);
	if (!strcmp(part[0], "mem")) {
		if (np != 4 && np != 5)
			return pb_fail(
			    "figure '%s': mem/OP/STATE/SIZE[/KERNEL] has 4 or 5 parts, not %zu",
			    spec, np);
		if (add_cond(g, spec, "suite", "mem") || add_cond(g, spec, "op", part[1]) ||
		    add_cond(g, spec, "cache_state", part[2]) ||
		    add_cond(g, spec, "size_bytes", part[3]) ||
		    add_cond(g, spec, "kernel", np == 5 ? part[4] : "fastest"))
			return -1;
		g->unit = PB_BM_GBS;
		return 0;
	}
	if (!strcmp(part[0], "syscall")) {
		if (np != 2 && np != 3)
			return pb_fail(
			    "figure '%s': syscall/BENCH[/PAGE] has 2 or 3 parts, not %zu", spec,
			    np);
		if (add_cond(g, spec, "suite", "syscall") ||
		    add_cond(g, spec, "benchmark", part[1]) ||
		    (np == 3 && add_cond(g, spec, "page_bytes", part[2])))
			return -1;
		g->unit = PB_BM_NS;
		return 0;
	}
	return pb_fail(
	    "figure '%s': unknown form (mem/OP/STATE/SIZE[/KERNEL], syscall/BENCH[/PAGE] "
	    "or FIELD=VALUE[+FIELD=VALUE...])",
	    spec);
}

static int parse_fields(struct pb_bm_figure *g, const char *spec, char *body)
{
	for (char *s = body;;) {
		char *e = strchr(s, '+');
		if (e)
			*e = '\0';
		char *eq = strchr(s, '=');
		if (!eq)
			return pb_fail("figure '%s': '%s' is not FIELD=VALUE", spec, s);
		*eq = '\0';
		if (add_cond(g, spec, s, eq + 1))
			return -1;
		if (!e)
			break;
		s = e + 1;
	}
	for (size_t i = 0; i < g->ncond; i++)
		if (!strcmp(g->cond[i].field, "suite") && !strcmp(g->cond[i].value, "mem"))
			g->unit = PB_BM_GBS;
	return 0;
}

static int parse_one(const char *spec, struct pb_bm_figure *g)
{
	*g = (struct pb_bm_figure){.spec = pb_xstrdup(spec), .unit = PB_BM_NS};
	if (!*spec)
		return pb_fail("figure '': empty (a list is FIGURE,FIGURE,...)");
	char *body = pb_xstrdup(spec);
	char *at = strrchr(body, '@');
	int explicit_unit = -1;
	if (at) {
		*at = '\0';
		if (!strcmp(at + 1, "ns"))
			explicit_unit = PB_BM_NS;
		else if (!strcmp(at + 1, "gbs"))
			explicit_unit = PB_BM_GBS;
		else {
			pb_fail("figure '%s': unknown unit '%s' (ns, gbs)", spec, at + 1);
			free(body);
			return -1;
		}
	}
	if (strchr(body, '@')) {
		free(body);
		return pb_fail("figure '%s': one '@UNIT' at most, at the end", spec);
	}
	int rc = strchr(body, '=') ? parse_fields(g, spec, body) : parse_path(g, spec, body);
	free(body);
	if (rc)
		return -1;
	if (explicit_unit >= 0)
		g->unit = (enum pb_bm_unit)explicit_unit;
	if (g->ncond == 0)
		return pb_fail("figure '%s': no field to match", spec);
	bool sized = false;
	for (size_t i = 0; i < g->ncond; i++)
		sized |= g->cond[i].is_size;
	if (g->unit == PB_BM_GBS && !sized)
		return pb_fail("figure '%s': GB/s needs a size to divide by (a mem figure, or "
		               "size_bytes=N)",
		               spec);
	/* the title: the values but the suite's, in order */
	char *t = pb_xstrdup("");
	for (size_t i = 0; i < g->ncond; i++) {
		if (!strcmp(g->cond[i].field, "suite") && g->ncond > 1)
			continue;
		char v[64];
		cond_text(&g->cond[i], v, sizeof v);
		char *n = pb_xasprintf("%s%s%s", t, *t ? " " : "", v);
		free(t);
		t = n;
	}
	g->title = t;
	return 0;
}

int pb_bm_figures_parse(const char *list, struct pb_bm_figures *out)
{
	*out = (struct pb_bm_figures){0};
	char *copy = pb_xstrdup(list);
	int rc = 0;
	for (char *s = copy;;) {
		char *e = strchr(s, ',');
		if (e)
			*e = '\0';
		out->v = pb_xrealloc(out->v, (out->n + 1) * sizeof *out->v);
		rc = parse_one(s, &out->v[out->n]);
		out->n++;
		if (rc || !e)
			break;
		s = e + 1;
	}
	free(copy);
	return rc;
}

/* ---- matching --------------------------------------------------------------- */

static bool cond_match(const struct pb_bm_cond *c, const struct pb_key *k)
{
	const struct pb_field *f = pb_field_get(k, c->field);
	if (!f || f->kind == PB_FIELD_NULL)
		return !strcmp(c->value, "null");
	if (c->is_size && f->kind == PB_FIELD_INT)
		return f->i >= 0 && (uint64_t)f->i == c->bytes;
	char *t = pb_field_text(f);
	bool m = !strcmp(t, c->value);
	free(t);
	return m;
}

static bool fig_match(const struct pb_bm_figure *g, const struct pb_key *k)
{
	for (size_t i = 0; i < g->ncond; i++)
		if (!cond_match(&g->cond[i], k))
			return false;
	/* a fastest field must be there to be shown */
	return !g->fastest || pb_field_get(k, g->fastest);
}

/* ---- the table -------------------------------------------------------------- */

static void add_note(struct pb_bm_table *t, char *line)
{
	for (size_t i = 0; i < t->nnotes; i++)
		if (!strcmp(t->notes[i], line)) {
			free(line);
			return;
		}
	t->notes = pb_xrealloc(t->notes, (t->nnotes + 1) * sizeof *t->notes);
	t->notes[t->nnotes++] = line;
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static char *machine_name(const struct pb_results_machine *m)
{
	return pb_xasprintf("%s, %s, glibc %s", or_unknown(m->brand), or_unknown(m->kernel),
	                    or_unknown(m->glibc_version));
}

/* One run's figure: the case's median and CI per call in ns. */
struct run_fig {
	double ns, lo, hi;
	bool ci;
	double bytes; /* size_bytes, NAN without */
	char *chosen; /* the fastest field's value (malloc'd) or NULL */
};

static bool case_fig(const struct pb_results_file *f, const struct pb_results_case *c,
                     struct run_fig *out, struct pb_bm_table *t, const char *mname)
{
	double per = pb_file_ns_per_value(f, c->unit);
	struct pb_summary s;
	if (per <= 0) {
		add_note(t, pb_xasprintf("%s: %s: unit '%s' does not convert to ns: left out",
		                         mname, f->path, c->unit));
		return false;
	}
	if (pb_results_case_summary(c, LEVEL, &s) != 0)
		return false;
	long long b;
	*out =
	    (struct run_fig){.ns = s.median * per,
	                     .lo = s.ci_lo * per,
	                     .hi = s.ci_hi * per,
	                     .ci = s.ci_valid,
	                     .bytes = pb_field_int(&c->fields, "size_bytes", &b) ? (double)b : NAN};
	return isfinite(out->ns);
}

static void cell_from(const struct pb_bm_figure *g, struct run_fig *r, size_t k,
                      struct pb_bm_cell *cell)
{
	double v, lo = NAN, hi = NAN;
	bool iv = false;
	if (k == 1) {
		v = r[0].ns;
		if (r[0].ci) {
			lo = r[0].lo;
			hi = r[0].hi;
			iv = true;
		}
	} else {
		double *x = pb_xcalloc(k, sizeof *x);
		size_t *one = pb_xcalloc(k, sizeof *one);
		for (size_t i = 0; i < k; i++) {
			x[i] = r[i].ns;
			one[i] = 1;
		}
		struct pb_summary s;
		if (pb_summarize_replicates(x, k, one, k, LEVEL, &s) != 0) {
			free(x);
			free(one);
			return;
		}
		free(x);
		free(one);
		v = s.median;
		lo = s.ci_lo;
		hi = s.ci_hi;
		iv = s.ci_valid;
	}
	if (g->unit == PB_BM_GBS) {
		double bytes = r[0].bytes;
		for (size_t i = 1; i < k; i++)
			if (r[i].bytes != bytes)
				bytes = NAN;
		if (!isfinite(bytes) || !(v > 0))
			return; /* no size (or sizes that differ): no GB/s */
		v = bytes / v;
		double nlo = hi > 0 ? bytes / hi : NAN, nhi = lo > 0 ? bytes / lo : NAN;
		lo = nlo;
		hi = nhi;
		iv = iv && isfinite(lo) && isfinite(hi);
	}
	cell->present = true;
	cell->value = v;
	cell->has_interval = iv;
	cell->lo = iv ? lo : NAN;
	cell->hi = iv ? hi : NAN;
	cell->runs = k;
}

/* The cell of figure g for the runs files[idx[0..nr)] of machine m. */
static void fill_cell(const struct pb_results_file *files, const size_t *idx, size_t nr,
                      const struct pb_bm_figure *g, struct pb_bm_machine *m,
                      struct pb_bm_cell *cell, struct pb_bm_table *t, const char *mlabel)
{
	/* every matching case of every run, its run's index in the row */
	struct cand {
		size_t run;
		struct run_fig f;
	} *cand = NULL;
	size_t nc = 0;
	for (size_t r = 0; r < nr; r++) {
		const struct pb_results_file *f = &files[idx[r]];
		size_t matched = 0, dups = 0;
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			if (!fig_match(g, &c->fields))
				continue;
			matched++;
			if (!g->fastest && matched > 1)
				continue;
			struct run_fig rf;
			if (!case_fig(f, c, &rf, t, mlabel))
				continue;
			if (g->fastest) {
				rf.chosen = pb_field_text(pb_field_get(&c->fields, g->fastest));
				/* one case per run and kernel: another of the same
				 * kernel in this run (a thread count, an offset, a
				 * page size the spec does not name) is not a run */
				bool again = false;
				for (size_t j = 0; j < nc && !again; j++)
					again = cand[j].run == r &&
					        !strcmp(cand[j].f.chosen, rf.chosen);
				if (again) {
					dups++;
					free(rf.chosen);
					continue;
				}
			}
			cand = pb_xrealloc(cand, (nc + 1) * sizeof *cand);
			cand[nc++] = (struct cand){.run = r, .f = rf};
		}
		if (g->fastest && dups)
			add_note(
			    t, pb_xasprintf("%s: %s: %zu more cases match %s for a kernel already "
			                    "matched: the first of each is taken (name more "
			                    "fields to choose)",
			                    mlabel, f->path, dups, g->spec));
		if (!g->fastest && matched > 1)
			add_note(
			    t, pb_xasprintf("%s: %s: %zu cases match %s: the first is taken (name "
			                    "more fields to choose)",
			                    mlabel, f->path, matched, g->spec));
	}
	if (nc == 0) {
		free(cand);
		return;
	}
	struct run_fig *use = pb_xcalloc(nc, sizeof *use);
	size_t k = 0;
	const char *chosen = NULL;
	if (!g->fastest) {
		for (size_t i = 0; i < nc; i++)
			use[k++] = cand[i].f;
	} else {
		/* the value in the most runs, then the least geometric mean */
		size_t best_runs = 0;
		double best_log = INFINITY;
		for (size_t i = 0; i < nc; i++) {
			bool seen = false;
			for (size_t j = 0; j < i; j++)
				seen |= !strcmp(cand[j].f.chosen, cand[i].f.chosen);
			if (seen)
				continue;
			size_t runs = 0;
			double sum = 0;
			for (size_t j = i; j < nc; j++)
				if (!strcmp(cand[j].f.chosen, cand[i].f.chosen)) {
					runs++;
					sum += log(cand[j].f.ns);
				}
			double mean = sum / (double)runs;
			if (runs > best_runs || (runs == best_runs && mean < best_log)) {
				best_runs = runs;
				best_log = mean;
				chosen = cand[i].f.chosen;
			}
		}
		for (size_t i = 0; i < nc; i++)
			if (!strcmp(cand[i].f.chosen, chosen))
				use[k++] = cand[i].f;
	}
	cell_from(g, use, k, cell);
	if (cell->present && chosen)
		cell->chosen = pb_xstrdup(chosen);
	if (cell->present && k < m->runs)
		add_note(t, pb_xasprintf("%s: %s from %zu of its %zu runs", mlabel, g->title, k,
		                         m->runs));
	free(use);
	for (size_t i = 0; i < nc; i++)
		free(cand[i].f.chosen);
	free(cand);
}

void pb_bm_table_free(struct pb_bm_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nm; i++) {
		struct pb_bm_machine *m = &t->m[i];
		if (m->cell && t->figs)
			for (size_t j = 0; j < t->figs->n; j++)
				free(m->cell[j].chosen);
		free(m->cell);
		free(m->name);
	}
	free(t->m);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	*t = (struct pb_bm_table){0};
}

/* The group of a file: its fingerprint_hash, or its name without one. */
static char *group_of(const struct pb_results_file *f)
{
	if (f->mach.fingerprint_hash && *f->mach.fingerprint_hash)
		return pb_xstrdup(f->mach.fingerprint_hash);
	char *n = machine_name(&f->mach);
	char *g = pb_xasprintf("name:%s", n);
	free(n);
	return g;
}

int pb_bm_build(const struct pb_results_file *files, size_t n, const struct pb_bm_figures *figs,
                struct pb_bm_table *out)
{
	*out = (struct pb_bm_table){.figs = figs};
	if (n == 0)
		return pb_fail("no result files");
	char **grp = pb_xcalloc(n, sizeof *grp);
	size_t *row = pb_xcalloc(n, sizeof *row);
	for (size_t i = 0; i < n; i++) {
		grp[i] = group_of(&files[i]);
		size_t r = out->nm;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(grp[j], grp[i]))
				r = row[j];
		row[i] = r;
		if (r == out->nm) {
			out->m = pb_xrealloc(out->m, (out->nm + 1) * sizeof *out->m);
			const struct pb_results_machine *mm = &files[i].mach;
			out->m[out->nm++] = (struct pb_bm_machine){
			    .hash = mm->fingerprint_hash,
			    .brand = mm->brand,
			    .kernel = mm->kernel,
			    .glibc = mm->glibc_version,
			    .family = mm->family,
			    .model = mm->model,
			    .name = machine_name(mm),
			};
		}
		out->m[r].runs++;
	}
	/* names that would be equal get the hash's first 8 digits */
	bool *clash = pb_xcalloc(out->nm, sizeof *clash);
	for (size_t a = 0; a < out->nm; a++)
		for (size_t b = 0; b < out->nm; b++)
			clash[a] |= a != b && !strcmp(out->m[a].name, out->m[b].name);
	for (size_t a = 0; a < out->nm; a++) {
		if (clash[a] && out->m[a].hash) {
			char *nn = pb_xasprintf("%s [%.8s]", out->m[a].name, out->m[a].hash);
			free(out->m[a].name);
			out->m[a].name = nn;
		}
	}
	free(clash);
	size_t *idx = pb_xcalloc(n, sizeof *idx);
	for (size_t r = 0; r < out->nm; r++) {
		struct pb_bm_machine *m = &out->m[r];
		size_t nr = 0;
		for (size_t i = 0; i < n; i++)
			if (row[i] == r)
				idx[nr++] = i;
		m->cell = pb_xcalloc(figs->n ? figs->n : 1, sizeof *m->cell);
		char label[32];
		snprintf(label, sizeof label, "m%zu", r + 1);
		for (size_t j = 0; j < figs->n; j++)
			fill_cell(files, idx, nr, &figs->v[j], m, &m->cell[j], out, label);
	}
	free(idx);
	for (size_t i = 0; i < n; i++)
		free(grp[i]);
	free(grp);
	free(row);
	return 0;
}

/* ---- writing ---------------------------------------------------------------- */

static const char *unit_name(enum pb_bm_unit u)
{
	return u == PB_BM_GBS ? "GB/s" : "ns";
}

/* The texts of one cell: value, "lo..hi", the chosen value. */
static void cell_texts(const struct pb_bm_cell *c, char *v, char *ci, size_t len)
{
	if (!c->present) {
		snprintf(v, len, "-");
		snprintf(ci, len, "-");
		return;
	}
	pb_format_sig3(v, len, c->value);
	if (c->has_interval) {
		char lo[32], hi[32];
		pb_format_sig3(lo, sizeof lo, c->lo);
		pb_format_sig3(hi, sizeof hi, c->hi);
		if (snprintf(ci, len, "%s..%s", lo, hi) >= (int)len)
			ci[len - 1] = '\0'; /* cut: snprintf ended it already */
	} else {
		snprintf(ci, len, "-");
	}
}

static size_t max_sz(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* A figure's column widths in the text table. */
struct colw {
	size_t v, ci, k, all;
};

static void text_widths(const struct pb_bm_table *t, size_t j, struct colw *w)
{
	const struct pb_bm_figure *g = &t->figs->v[j];
	w->v = strlen(unit_name(g->unit));
	w->ci = strlen("95% CI");
	w->k = g->fastest ? strlen(g->fastest) : 0;
	for (size_t r = 0; r < t->nm; r++) {
		char v[64], ci[80];
		cell_texts(&t->m[r].cell[j], v, ci, sizeof v);
		w->v = max_sz(w->v, strlen(v));
		w->ci = max_sz(w->ci, strlen(ci));
		if (g->fastest) {
			const char *ch = t->m[r].cell[j].chosen;
			w->k = max_sz(w->k, ch ? strlen(ch) : 1);
		}
	}
	w->all = w->v + 2 + w->ci + (g->fastest ? 2 + w->k : 0);
	size_t tl = strlen(g->title);
	if (tl > w->all) { /* the title fits over its columns */
		w->ci += tl - w->all;
		w->all = tl;
	}
}

static void write_text(FILE *f, const struct pb_bm_table *t)
{
	fprintf(f, "machines (a row per fingerprint; its files are runs of it):\n");
	for (size_t r = 0; r < t->nm; r++) {
		const struct pb_bm_machine *m = &t->m[r];
		char label[32];
		snprintf(label, sizeof label, "  m%zu", r + 1);
		pb_print_labelled(f, 6, label, m->name);
		char line[256];
		snprintf(line, sizeof line, "family %lld model %lld, fingerprint %s, %zu run%s",
		         m->family, m->model, m->hash ? m->hash : "none", m->runs,
		         pb_plural(m->runs));
		pb_print_labelled(f, 6, "", line);
	}
	fprintf(f, "\n");
	pb_print_wrapped_at(f, 0, 0,
	                    "figures: per machine the geometric mean of its runs' medians, with "
	                    "the 95% interval across them (Student's t on the logs) with 2 or more "
	                    "runs, else the run's 95% CI; '-': no run has the figure.");
	size_t nf = t->figs->n;
	struct colw *w = pb_xcalloc(nf ? nf : 1, sizeof *w);
	for (size_t j = 0; j < nf; j++)
		text_widths(t, j, &w[j]);
	size_t wm = strlen("machine");
	for (size_t j0 = 0; j0 < nf;) {
		size_t j1 = j0, width = wm;
		while (j1 < nf && (j1 == j0 || width + 3 + w[j1].all <= PB_TEXT_WIDTH))
			width += 3 + w[j1++].all;
		fprintf(f, "\n%-*s", (int)wm, "");
		for (size_t j = j0; j < j1; j++)
			fprintf(f, "   %-*s", (int)w[j].all, t->figs->v[j].title);
		fprintf(f, "\n%-*s", (int)wm, "machine");
		for (size_t j = j0; j < j1; j++) {
			const struct pb_bm_figure *g = &t->figs->v[j];
			fprintf(f, "   %*s  %*s", (int)w[j].v, unit_name(g->unit), (int)w[j].ci,
			        "95% CI");
			if (g->fastest)
				fprintf(f, "  %-*s", (int)w[j].k, g->fastest);
		}
		fprintf(f, "\n");
		for (size_t r = 0; r < t->nm; r++) {
			char label[32];
			snprintf(label, sizeof label, "m%zu", r + 1);
			fprintf(f, "%-*s", (int)wm, label);
			for (size_t j = j0; j < j1; j++) {
				const struct pb_bm_cell *c = &t->m[r].cell[j];
				char v[64], ci[80];
				cell_texts(c, v, ci, sizeof v);
				fprintf(f, "   %*s  %*s", (int)w[j].v, v, (int)w[j].ci, ci);
				if (t->figs->v[j].fastest)
					fprintf(f, "  %-*s", (int)w[j].k,
					        c->chosen ? c->chosen : "-");
			}
			fprintf(f, "\n");
		}
		j0 = j1;
	}
	free(w);
	if (t->nnotes)
		fprintf(f, "\n");
	for (size_t i = 0; i < t->nnotes; i++) {
		char *s = pb_xasprintf("note: %s", t->notes[i]);
		pb_print_wrapped_at(f, 0, 6, s);
		free(s);
	}
}

static void md_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : (char[2]){*s, 0}, f);
}

static void write_markdown(FILE *f, const struct pb_bm_table *t)
{
	fprintf(f, "## primbench report --by-machine\n\n");
	fprintf(f, "| | machine | runs |");
	for (size_t j = 0; j < t->figs->n; j++) {
		const struct pb_bm_figure *g = &t->figs->v[j];
		fputs(" ", f);
		md_text(f, g->title);
		fprintf(f, " (%s) | 95%% CI |", unit_name(g->unit));
		if (g->fastest)
			fprintf(f, " %s |", g->fastest);
	}
	fprintf(f, "\n|---|---|---:|");
	for (size_t j = 0; j < t->figs->n; j++)
		fprintf(f, "---:|---:|%s", t->figs->v[j].fastest ? "---|" : "");
	fprintf(f, "\n");
	for (size_t r = 0; r < t->nm; r++) {
		const struct pb_bm_machine *m = &t->m[r];
		fprintf(f, "| m%zu | ", r + 1);
		md_text(f, m->name);
		fprintf(f, " | %zu |", m->runs);
		for (size_t j = 0; j < t->figs->n; j++) {
			const struct pb_bm_cell *c = &m->cell[j];
			char v[64], ci[80];
			cell_texts(c, v, ci, sizeof v);
			fprintf(f, " %s | %s |", v, ci);
			if (t->figs->v[j].fastest) {
				fputs(" ", f);
				md_text(f, c->chosen ? c->chosen : "-");
				fputs(" |", f);
			}
		}
		fprintf(f, "\n");
	}
	fprintf(f, "\nFigures: per machine the geometric mean of its runs' medians, with the 95%% "
	           "interval across them (Student's t on the logs) with 2 or more runs, else the "
	           "run's 95%% CI; `-`: no run has the figure.\n");
	if (t->nnotes)
		fprintf(f, "\n");
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs("- ", f);
		md_text(f, t->notes[i]);
		fputs("\n", f);
	}
}

static void csv_num(FILE *f, double v, bool last)
{
	char buf[32];
	pb_csv_double(buf, sizeof buf, v);
	pb_csv_field(f, buf, last);
}

static void write_csv(FILE *f, const struct pb_bm_table *t)
{
	static const char *const head[] = {"machine", "cpu_brand", "cpu_family",       "cpu_model",
	                                   "kernel",  "glibc",     "fingerprint_hash", "runs"};
	size_t nf = t->figs->n;
	for (size_t i = 0; i < 8; i++)
		pb_csv_field(f, head[i], i == 7 && nf == 0);
	for (size_t j = 0; j < nf; j++) {
		const struct pb_bm_figure *g = &t->figs->v[j];
		static const char *const sub[] = {"ci_lo", "ci_hi", "runs"};
		char *h = pb_xasprintf("%s %s", g->spec, unit_name(g->unit));
		pb_csv_field(f, h, false);
		free(h);
		for (size_t s = 0; s < 3; s++) {
			h = pb_xasprintf("%s %s", g->spec, sub[s]);
			pb_csv_field(f, h, s == 2 && !g->fastest && j + 1 == nf);
			free(h);
		}
		if (g->fastest) {
			h = pb_xasprintf("%s %s", g->spec, g->fastest);
			pb_csv_field(f, h, j + 1 == nf);
			free(h);
		}
	}
	for (size_t r = 0; r < t->nm; r++) {
		const struct pb_bm_machine *m = &t->m[r];
		char fam[32] = "", mod[32] = "", runs[32];
		if (m->family >= 0)
			snprintf(fam, sizeof fam, "%lld", m->family);
		if (m->model >= 0)
			snprintf(mod, sizeof mod, "%lld", m->model);
		snprintf(runs, sizeof runs, "%zu", m->runs);
		pb_csv_field(f, m->name, false);
		pb_csv_field(f, m->brand ? m->brand : "", false);
		pb_csv_field(f, fam, false);
		pb_csv_field(f, mod, false);
		pb_csv_field(f, m->kernel ? m->kernel : "", false);
		pb_csv_field(f, m->glibc ? m->glibc : "", false);
		pb_csv_field(f, m->hash ? m->hash : "", false);
		pb_csv_field(f, runs, nf == 0);
		for (size_t j = 0; j < nf; j++) {
			const struct pb_bm_cell *c = &m->cell[j];
			bool fast = t->figs->v[j].fastest != NULL, last = j + 1 == nf;
			csv_num(f, c->present ? c->value : NAN, false);
			csv_num(f, c->has_interval ? c->lo : NAN, false);
			csv_num(f, c->has_interval ? c->hi : NAN, false);
			snprintf(runs, sizeof runs, "%zu", c->present ? c->runs : (size_t)0);
			pb_csv_field(f, runs, !fast && last);
			if (fast)
				pb_csv_field(f, c->chosen ? c->chosen : "", last);
		}
	}
}

int pb_bm_write(FILE *f, const struct pb_bm_table *t, enum pb_format fmt)
{
	switch (fmt) {
	case PB_FORMAT_TEXT:
		write_text(f, t);
		return 0;
	case PB_FORMAT_MARKDOWN:
		write_markdown(f, t);
		return 0;
	case PB_FORMAT_CSV:
		write_csv(f, t);
		return 0;
	default:
		return pb_fail("--by-machine writes text, markdown or csv, not '%s'",
		               pb_format_name(fmt));
	}
}
