/* kernel_vs_user.c - `primbench kernel --vs-user FILE...`
 * (include/primbench/kernel_vs_user.h): the kernel suite's clear_page,
 * copy_page and fpu figures beside `mem`'s and `xsave`'s, one table in
 * sections, in text, Markdown, CSV or JSON.
 *
 * The table is built first (struct table: sections of rows of cells, ns
 * per 4 KiB page or per call, NaN where absent; the break-even entries;
 * the notes), then written by one writer per format. */
#define _GNU_SOURCE
#include "primbench/kernel_vs_user.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ci_formats.h"
#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/format.h"
#include "primbench/reader.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"

#define LEVEL 0.95

/* ---- the table ------------------------------------------------------------ */

struct row {
	char *name;
	double *v; /* ncols cells: ns, or a ratio; NaN: absent */
};

struct section {
	const char *name; /* "clear_page", "copy_page", "fpu vs xsave" */
	const char *unit; /* "ns per 4 KiB page", "ns per call" */
	const char *const *cols;
	size_t ncols;
	bool *ratio; /* ncols: a ratio column (not ns) */
	struct row *rows;
	size_t nrows;
};

/* One entry of a kernel file's kernel.breakeven (docs/results-schema.md). */
struct be {
	char *op, *upper, *simd, *rep;
	double roundtrip_ticks, simd_ticks, rep_ticks, ns_per_tick;
	long long pages; /* -1: never (null) */
};

struct table {
	struct section sec[3];
	size_t nsec;
	struct be *be;
	size_t nbe;
	const char *be_path; /* the kernel file the entries are from */
	struct pb_strv notes;
	const char *fpu_cols[3]; /* the fpu section's columns */
	bool no_ratio[3];
	struct pb_results_file *files;
	bool *used; /* per file: some figure of it is in the table */
	size_t nfiles;
};

static void add_note(struct table *t, char *line)
{
	for (size_t i = 0; i < t->notes.n; i++)
		if (!strcmp(t->notes.v[i], line)) {
			free(line);
			return;
		}
	pb_strv_push(&t->notes, line);
}

static struct row *add_row(struct section *s, const char *name)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (!strcmp(s->rows[i].name, name))
			return &s->rows[i];
	s->rows = pb_xrealloc(s->rows, (s->nrows + 1) * sizeof *s->rows);
	struct row *r = &s->rows[s->nrows++];
	r->name = pb_xstrdup(name);
	r->v = pb_xcalloc(s->ncols, sizeof *r->v);
	for (size_t j = 0; j < s->ncols; j++)
		r->v[j] = NAN;
	return r;
}

static bool is_suite(const struct pb_results_case *c, const char *suite)
{
	const char *s = pb_field_str(&c->fields, "suite");
	return s && !strcmp(s, suite);
}

static bool str_is(const struct pb_key *k, const char *field, const char *value)
{
	const char *s = pb_field_str(k, field);
	return s && !strcmp(s, value);
}

/* An integer field equal to want; absent or null counts as dflt. */
static bool int_is(const struct pb_key *k, const char *field, long long want, long long dflt)
{
	const struct pb_field *f = pb_field_get(k, field);
	long long v;
	if (!f || f->kind == PB_FIELD_NULL)
		return want == dflt;
	return pb_field_int(k, field, &v) && v == want;
}

static bool null_or_absent(const struct pb_key *k, const char *field)
{
	const struct pb_field *f = pb_field_get(k, field);
	return !f || f->kind == PB_FIELD_NULL;
}

/* A case's median per call in ns at its file's own rate; NaN when its
 * unit does not convert or it has no summary. */
static double case_ns(const struct pb_results_file *f, const struct pb_results_case *c)
{
	double per = pb_file_ns_per_value(f, c->unit);
	struct pb_summary s;
	if (!(per > 0) || c->n == 0 || pb_results_case_summary(c, LEVEL, &s) != 0)
		return NAN;
	return s.median * per;
}

/* A kernel clear_page/copy_page case of 4 KiB pages, interrupts on. */
static bool kernel_page_case(const struct pb_results_case *c, const char *op, const char *state)
{
	return is_suite(c, "kernel") && str_is(&c->fields, "op", op) &&
	       str_is(&c->fields, "cache_state", state) &&
	       int_is(&c->fields, "page_bytes", 4096, -1) && !pb_field_true(&c->fields, "irqs_off");
}

/* A mem case of one page-aligned 4 KiB page, as `mem clear_page` (memset
 * of 0) or `mem copy_page` (memcpy, the source page-aligned too) keys it
 * (docs/results-schema.md `page_op`): kernel name, cache state, one
 * thread, no read-back, no extent, 4 KiB buffer pages, not a replay. */
static bool user_page_case(const struct pb_results_case *c, const char *op, const char *state)
{
	const struct pb_key *k = &c->fields;
	bool clear = !strcmp(op, "clear_page");
	if (!is_suite(c, "mem") || !str_is(k, "op", clear ? "memset" : "memcpy") ||
	    !str_is(k, "cache_state", state) || !int_is(k, "size_bytes", 4096, -1) ||
	    !int_is(k, "dst_offset_bytes", 0, 0) || !int_is(k, "extent_bytes", 0, 0) ||
	    !int_is(k, "threads", 1, 1) || !int_is(k, "page_bytes", 4096, 4096) ||
	    pb_field_true(k, "then_read") || !null_or_absent(k, "distribution"))
		return false;
	if (clear)
		return int_is(k, "fill_value", 0, -1);
	return int_is(k, "src_offset_bytes", 0, -1) && null_or_absent(k, "distance_bytes");
}

/* Cell (row name, col) of s from case c of file fi: the first file
 * given wins; a later one is a note. */
static void put(struct table *t, struct section *s, const char *row, size_t col, size_t fi,
                double ns, const char *what)
{
	if (!isfinite(ns))
		return;
	struct row *r = add_row(s, row);
	if (!isnan(r->v[col])) {
		add_note(t, pb_xasprintf("%s: %s also in %s: the first file's figure is shown",
		                         s->name, what, t->files[fi].path));
		return;
	}
	r->v[col] = ns;
	t->used[fi] = true;
}

static const char *const page_cols[] = {"kernel hot",     "user hot",  "k/u hot",
                                        "kernel flushed", "user dram", "k/u cold"};
static bool page_ratio[] = {false, false, true, false, false, true};

/* The clear_page or copy_page section: its rows are the variants the
 * kernel files measured (in their order), user figures by the same name. */
static void page_section(struct table *t, struct section *s, const char *op)
{
	*s = (struct section){op, "ns per 4 KiB page", page_cols, 6, page_ratio, NULL, 0};
	static const char *const kstate[] = {"hot", "flushed"}, *const ustate[] = {"hot", "dram"};
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		for (size_t i = 0; i < f->ncases; i++)
			for (int k = 0; k < 2; k++) {
				const struct pb_results_case *c = &f->cases[i];
				if (!kernel_page_case(c, op, kstate[k]))
					continue;
				const char *v = pb_field_str(&c->fields, "variant");
				if (!v)
					continue;
				char *what = pb_xasprintf("kernel %s %s", v, kstate[k]);
				put(t, s, v, k ? 3 : 0, fi, case_ns(f, c), what);
				free(what);
			}
	}
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		for (size_t i = 0; i < f->ncases; i++)
			for (int k = 0; k < 2; k++) {
				const struct pb_results_case *c = &f->cases[i];
				const char *name = pb_field_str(&c->fields, "kernel");
				if (!name || !user_page_case(c, op, ustate[k]))
					continue;
				bool row = false; /* only the kernel file's variants */
				for (size_t r = 0; r < s->nrows; r++)
					row |= !strcmp(s->rows[r].name, name);
				if (!row)
					continue;
				char *what = pb_xasprintf("user %s %s", name, ustate[k]);
				put(t, s, name, k ? 4 : 1, fi, case_ns(f, c), what);
				free(what);
			}
	}
	for (size_t r = 0; r < s->nrows; r++) {
		double *v = s->rows[r].v;
		v[2] = v[0] / v[1];
		v[5] = v[3] / v[4];
	}
}

static const char *const upper_names[] = {"clean", "dirty", "dirty512"};
#define NUPPER 3

static int upper_index(const char *u)
{
	for (int i = 0; u && i < NUPPER; i++)
		if (!strcmp(u, upper_names[i]))
			return i;
	return -1;
}

#define ROW_BEGIN_END    "kernel begin_end"
#define ROW_SAVE_RESTORE "kernel save_restore"
#define ROW_ROUNDTRIP    "kernel round trip (ioctl_fpu - ioctl_null)"

/* The fpu vs xsave section: the kernel's begin_end and save_restore, the
 * round trip (ioctl_fpu - ioctl_null of one file), each xsave pair;
 * columns the upper states present. */
static void fpu_section(struct table *t, struct section *s)
{
	/* the columns: the states present, in upper_names order */
	bool present[NUPPER] = {false};
	for (size_t fi = 0; fi < t->nfiles; fi++)
		for (size_t i = 0; i < t->files[fi].ncases; i++) {
			const struct pb_results_case *c = &t->files[fi].cases[i];
			if ((is_suite(c, "kernel") && str_is(&c->fields, "op", "fpu")) ||
			    is_suite(c, "xsave")) {
				int u = upper_index(pb_field_str(&c->fields, "upper_state"));
				if (u >= 0)
					present[u] = true;
			}
		}
	const char **cols = t->fpu_cols;
	int col_of[NUPPER];
	size_t nc = 0;
	for (int u = 0; u < NUPPER; u++) {
		col_of[u] = present[u] ? (int)nc : -1;
		if (present[u])
			cols[nc++] = upper_names[u];
	}
	*s = (struct section){"fpu vs xsave", "ns per call", cols, nc, t->no_ratio, NULL, 0};
	if (nc == 0)
		return;
	/* the kernel rows first, in this order, when any file has them */
	double null_ns[NUPPER], fpu_ns[NUPPER];
	size_t null_file[NUPPER], fpu_file[NUPPER];
	for (int u = 0; u < NUPPER; u++)
		null_ns[u] = fpu_ns[u] = NAN;
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			if (!is_suite(c, "kernel") || !str_is(&c->fields, "op", "fpu") ||
			    pb_field_true(&c->fields, "irqs_off"))
				continue;
			const char *v = pb_field_str(&c->fields, "variant");
			int u = upper_index(pb_field_str(&c->fields, "upper_state"));
			if (!v || u < 0)
				continue;
			double ns = case_ns(f, c);
			char *what = pb_xasprintf("kernel %s %s", v, upper_names[u]);
			if (!strcmp(v, "begin_end"))
				put(t, s, ROW_BEGIN_END, (size_t)col_of[u], fi, ns, what);
			else if (!strcmp(v, "save_restore"))
				put(t, s, ROW_SAVE_RESTORE, (size_t)col_of[u], fi, ns, what);
			else if (!strcmp(v, "ioctl_null") && isnan(null_ns[u])) {
				null_ns[u] = ns;
				null_file[u] = fi;
			} else if (!strcmp(v, "ioctl_fpu") && isnan(fpu_ns[u])) {
				fpu_ns[u] = ns;
				fpu_file[u] = fi;
			}
			free(what);
		}
	}
	for (int u = 0; u < NUPPER; u++) {
		if (isnan(null_ns[u]) || isnan(fpu_ns[u]))
			continue;
		if (null_file[u] != fpu_file[u]) {
			add_note(t,
			         pb_xasprintf("fpu vs xsave: ioctl_null and ioctl_fpu %s are in "
			                      "different files (%s, %s): no round trip from them",
			                      upper_names[u], t->files[null_file[u]].path,
			                      t->files[fpu_file[u]].path));
			continue;
		}
		put(t, s, ROW_ROUNDTRIP, (size_t)col_of[u], fpu_file[u], fpu_ns[u] - null_ns[u],
		    "the round trip");
	}
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			const char *insn = pb_field_str(&c->fields, "instruction");
			int u = upper_index(pb_field_str(&c->fields, "upper_state"));
			if (!is_suite(c, "xsave") || !insn || u < 0)
				continue;
			char *row = pb_xasprintf("user %s", insn);
			char *what = pb_xasprintf("xsave %s %s", insn, upper_names[u]);
			put(t, s, row, (size_t)col_of[u], fi, case_ns(f, c), what);
			free(what);
			free(row);
		}
	}
}

/* The break-even entries of the first kernel file that has them. */
static void breakeven_of(struct table *t)
{
	for (size_t fi = 0; fi < t->nfiles && !t->nbe; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		size_t n;
		struct pb_key *e = pb_facts_objects(&f->facts, "kernel.breakeven", &n);
		if (!e)
			continue;
		double per = pb_file_ns_per_value(f, "tsc_ticks");
		t->be = pb_xcalloc(n + 1, sizeof *t->be);
		for (size_t i = 0; i < n; i++) {
			const char *op = pb_field_str(&e[i], "op"),
			           *up = pb_field_str(&e[i], "upper_state"),
			           *simd = pb_field_str(&e[i], "simd_variant"),
			           *rep = pb_field_str(&e[i], "rep_variant");
			if (!op || !up || !simd || !rep)
				continue;
			struct be *b = &t->be[t->nbe++];
			b->op = pb_xstrdup(op);
			b->upper = pb_xstrdup(up);
			b->simd = pb_xstrdup(simd);
			b->rep = pb_xstrdup(rep);
			b->roundtrip_ticks = pb_field_num(&e[i], "roundtrip_ticks");
			b->simd_ticks = pb_field_num(&e[i], "simd_ticks_per_page");
			b->rep_ticks = pb_field_num(&e[i], "rep_ticks_per_page");
			b->ns_per_tick = per > 0 ? per : NAN;
			/* a page count whose bytes do not fit (a hand-edited
			 * file) reads as none */
			if (!pb_field_int(&e[i], "pages", &b->pages) || b->pages < 1 ||
			    b->pages > LLONG_MAX / 4096)
				b->pages = -1;
		}
		pb_keys_free(e, n);
		if (!t->nbe) {
			free(t->be); /* no usable entry: the next file's may be */
			t->be = NULL;
		}
		if (t->nbe) {
			t->be_path = f->path;
			t->used[fi] = true;
		}
	}
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nsec; i++) {
		for (size_t r = 0; r < t->sec[i].nrows; r++) {
			free(t->sec[i].rows[r].name);
			free(t->sec[i].rows[r].v);
		}
		free(t->sec[i].rows);
	}
	for (size_t i = 0; i < t->nbe; i++) {
		free(t->be[i].op);
		free(t->be[i].upper);
		free(t->be[i].simd);
		free(t->be[i].rep);
	}
	free(t->be);
	for (size_t i = 0; i < t->notes.n; i++)
		free(t->notes.v[i]);
	free(t->notes.v);
	for (size_t i = 0; i < t->nfiles; i++)
		pb_results_file_free(&t->files[i]);
	free(t->files);
	free(t->used);
}

static bool has_kernel_cases(const struct pb_results_file *f)
{
	for (size_t i = 0; i < f->ncases; i++)
		if (is_suite(&f->cases[i], "kernel"))
			return true;
	return false;
}

/* The notes: each file and what was used, then the one on processes. */
static void file_notes(struct table *t)
{
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_file *f = &t->files[fi];
		if (has_kernel_cases(f)) {
			const char *rel = pb_facts_str(&f->facts, "kernel.release"),
			           *mv = pb_facts_str(&f->facts, "kernel.module_version");
			add_note(t, pb_xasprintf(
			                "%s: kernel figures (module %s, kernel %s), ticks at "
			                "the module's tsc_khz %.0f",
			                f->path, mv ? mv : "?", rel ? rel : "?", f->tsc_hz / 1e3));
		} else if (t->used[fi]) {
			add_note(
			    t, pb_xasprintf("%s: user-space figures, ticks at its timer's %.6g GHz",
			                    f->path, f->tsc_hz / 1e9));
		} else {
			add_note(t,
			         pb_xasprintf("%s: nothing used (no kernel case, no mem clear_page "
			                      "or copy_page case of a variant the kernel file has, "
			                      "no xsave case)",
			                      f->path));
		}
	}
	add_note(t, pb_xstrdup("each file's ticks are converted to ns at that file's own rate"));
	add_note(t, pb_xstrdup("figures from different files are from different processes: "
	                       "run-to-run differences of a few percent (up to ~27% seen on "
	                       "these machines) are noise; `primbench compare` is the tool for "
	                       "before/after"));
}

/* A note when a file used beside the kernel file comes from another CPU
 * (vendor, family, model or brand differ: its ratios set different
 * hardware side by side), and when the kernel file's machine is a
 * hypervisor guest (its figures are the virtual CPU's; under emulation
 * they mean nothing). */
static void machine_notes(struct table *t, size_t kf)
{
	const struct pb_results_machine *k = &t->files[kf].mach;
	const char *hv = pb_facts_str(&k->facts, "cpu.hypervisor_vendor");
	if (hv && *hv)
		add_note(t, pb_xasprintf("%s: a hypervisor guest's (%s): its figures are the "
		                         "virtual CPU's as the hypervisor ran it (under "
		                         "emulation they say nothing of real hardware)",
		                         t->files[kf].path, hv));
	for (size_t fi = 0; fi < t->nfiles; fi++) {
		const struct pb_results_machine *m = &t->files[fi].mach;
		if (fi == kf || !t->used[fi])
			continue;
		bool same = k->family == m->family && k->model == m->model &&
		            (!k->vendor || !m->vendor || !strcmp(k->vendor, m->vendor)) &&
		            (!k->brand || !m->brand || !strcmp(k->brand, m->brand));
		if (!same)
			add_note(t,
			         pb_xasprintf(
			             "%s is from another CPU (%s, family %lld model %lld) than %s "
			             "(%s, family %lld model %lld): its ratios set different "
			             "hardware side by side",
			             t->files[fi].path, m->brand ? m->brand : "?", m->family,
			             m->model, t->files[kf].path, k->brand ? k->brand : "?",
			             k->family, k->model));
	}
}

/* ---- writers ---------------------------------------------------------------- */

/* A cell's text: ns to 3 significant figures (whole above 1000), a ratio
 * to 2 decimals, "-" when absent. */
static void cell_text(char *buf, size_t len, double v, bool ratio)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (ratio)
		snprintf(buf, len, "%.2f", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static char *be_line(const struct be *b)
{
	char rt[32], simd[32], rep[32];
	cell_text(rt, sizeof rt, b->roundtrip_ticks * b->ns_per_tick, false);
	cell_text(simd, sizeof simd, b->simd_ticks * b->ns_per_tick, false);
	cell_text(rep, sizeof rep, b->rep_ticks * b->ns_per_tick, false);
	if (b->pages < 0)
		return pb_xasprintf(
		    "%s, %s upper state: %s inside kernel_fpu_begin/end never beats "
		    "%s (%s ns per page against %s: not faster per page; round trip "
		    "%s ns)",
		    b->op, b->upper, b->simd, b->rep, simd, rep, rt);
	char bytes[32];
	pb_format_bytes(bytes, sizeof bytes, (double)b->pages * 4096, PB_BYTES_PROSE);
	return pb_xasprintf("%s, %s upper state: %s inside kernel_fpu_begin/end beats %s from %lld "
	                    "page%s (%s) per system call (round trip %s ns; %s against %s ns per "
	                    "page)",
	                    b->op, b->upper, b->simd, b->rep, b->pages, b->pages == 1 ? "" : "s",
	                    bytes, rt, simd, rep);
}

static void write_text(FILE *f, const struct table *t)
{
	fputs("primbench kernel --vs-user: kernel figures beside user space's\n", f);
	for (size_t i = 0; i < t->nsec; i++) {
		const struct section *s = &t->sec[i];
		size_t w0 = 8;
		for (size_t r = 0; r < s->nrows; r++)
			if (strlen(s->rows[r].name) > w0)
				w0 = strlen(s->rows[r].name);
		fprintf(f, "\n%s, %s%s\n", s->name, s->unit,
		        s->ncols == 6 ? " (k/u: kernel / user; cold: flushed / dram)" : "");
		fprintf(f, "%-*s", (int)w0, "");
		size_t *w = pb_xcalloc(s->ncols, sizeof *w);
		for (size_t j = 0; j < s->ncols; j++) {
			w[j] = strlen(s->cols[j]) > 7 ? strlen(s->cols[j]) : 7;
			fprintf(f, "  %*s", (int)w[j], s->cols[j]);
		}
		fputc('\n', f);
		for (size_t r = 0; r < s->nrows; r++) {
			fprintf(f, "%-*s", (int)w0, s->rows[r].name);
			for (size_t j = 0; j < s->ncols; j++) {
				char c[32];
				cell_text(c, sizeof c, s->rows[r].v[j], s->ratio[j]);
				fprintf(f, "  %*s", (int)w[j], c);
			}
			fputc('\n', f);
		}
		free(w);
	}
	if (t->nbe) {
		char *h = pb_xasprintf("break-even (%s's kernel.breakeven: a system call that "
		                       "clears or copies n pages with SIMD pays one round trip "
		                       "plus n times the SIMD per-page figure)",
		                       t->be_path);
		fputc('\n', f);
		pb_print_wrapped_at(f, 0, 0, h);
		free(h);
		for (size_t i = 0; i < t->nbe; i++) {
			char *l = be_line(&t->be[i]);
			pb_print_wrapped_at(f, 2, 4, l);
			free(l);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->notes.n; i++) {
		char *s = pb_xasprintf("note: %s", t->notes.v[i]);
		pb_print_wrapped_at(f, 0, 6, s);
		free(s);
	}
}

static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

static void write_markdown(FILE *f, const struct table *t)
{
	fputs("## primbench kernel --vs-user\n\nKernel figures beside user space's.\n", f);
	for (size_t i = 0; i < t->nsec; i++) {
		const struct section *s = &t->sec[i];
		fprintf(f, "\n### %s, %s%s\n\n|  |", s->name, s->unit,
		        s->ncols == 6 ? " (k/u: kernel / user; cold: flushed / dram)" : "");
		for (size_t j = 0; j < s->ncols; j++)
			fprintf(f, " %s |", s->cols[j]);
		fputs("\n|---|", f);
		for (size_t j = 0; j < s->ncols; j++)
			fputs("---:|", f);
		fputc('\n', f);
		for (size_t r = 0; r < s->nrows; r++) {
			fputs("| ", f);
			md_text(f, s->rows[r].name);
			fputs(" |", f);
			for (size_t j = 0; j < s->ncols; j++) {
				char c[32];
				cell_text(c, sizeof c, s->rows[r].v[j], s->ratio[j]);
				fprintf(f, " %s |", c);
			}
			fputc('\n', f);
		}
	}
	if (t->nbe) {
		fputs("\n### break-even\n\nFrom ", f);
		md_text(f, t->be_path);
		fputs("'s kernel.breakeven: a system call that clears or copies n pages with SIMD "
		      "pays one round trip plus n times the SIMD per-page figure.\n\n",
		      f);
		for (size_t i = 0; i < t->nbe; i++) {
			char *l = be_line(&t->be[i]);
			fputs("- ", f);
			md_text(f, l);
			fputc('\n', f);
			free(l);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < t->notes.n; i++) {
		fputs("- note: ", f);
		md_text(f, t->notes.v[i]);
		fputc('\n', f);
	}
}

static void csv_num(FILE *f, double v)
{
	char buf[32];
	pb_csv_double(buf, sizeof buf, v);
	pb_csv_field(f, isfinite(v) ? buf : "", false);
}

static void csv_row(FILE *f, const char *sec, const char *row, const char *col, double v,
                    const char *unit)
{
	pb_csv_field(f, sec, false);
	pb_csv_field(f, row, false);
	pb_csv_field(f, col, false);
	csv_num(f, v);
	pb_csv_field(f, unit, true);
}

static void write_csv(FILE *f, const struct table *t)
{
	static const char *const head[] = {"section", "row", "column", "value", "unit"};
	for (size_t i = 0; i < 5; i++)
		pb_csv_field(f, head[i], i == 4);
	for (size_t i = 0; i < t->nsec; i++) {
		const struct section *s = &t->sec[i];
		for (size_t r = 0; r < s->nrows; r++)
			for (size_t j = 0; j < s->ncols; j++)
				csv_row(f, s->name, s->rows[r].name, s->cols[j], s->rows[r].v[j],
				        s->ratio[j] ? "ratio" : s->unit);
	}
	for (size_t i = 0; i < t->nbe; i++) {
		const struct be *b = &t->be[i];
		char *row = pb_xasprintf("%s %s %s vs %s", b->op, b->upper, b->simd, b->rep);
		csv_row(f, "break-even", row, "roundtrip", b->roundtrip_ticks * b->ns_per_tick,
		        "ns");
		csv_row(f, "break-even", row, "simd", b->simd_ticks * b->ns_per_tick,
		        "ns per 4 KiB page");
		csv_row(f, "break-even", row, "rep", b->rep_ticks * b->ns_per_tick,
		        "ns per 4 KiB page");
		csv_row(f, "break-even", row, "pages", b->pages < 0 ? NAN : (double)b->pages,
		        "pages");
		free(row);
	}
}

static void json_key(FILE *f, const char *k)
{
	pb_ci_json_string(f, k);
	fputs(": ", f);
}

static void write_json(FILE *f, const struct table *t)
{
	fputs("{\n  \"files\": [", f);
	for (size_t i = 0; i < t->nfiles; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		json_key(f, "path");
		pb_ci_json_string(f, t->files[i].path);
		fputs(", ", f);
		json_key(f, "used");
		fputs(t->used[i] ? "true}" : "false}", f);
	}
	fputs("\n  ],\n  \"sections\": [", f);
	for (size_t i = 0; i < t->nsec; i++) {
		const struct section *s = &t->sec[i];
		fputs(i ? ",\n    {" : "\n    {", f);
		json_key(f, "name");
		pb_ci_json_string(f, s->name);
		fputs(", ", f);
		json_key(f, "unit");
		pb_ci_json_string(f, s->unit);
		fputs(",\n     \"columns\": [", f);
		for (size_t j = 0; j < s->ncols; j++) {
			fputs(j ? ", " : "", f);
			pb_ci_json_string(f, s->cols[j]);
		}
		fputs("],\n     \"rows\": [", f);
		for (size_t r = 0; r < s->nrows; r++) {
			fputs(r ? ",\n      {" : "\n      {", f);
			json_key(f, "name");
			pb_ci_json_string(f, s->rows[r].name);
			fputs(", \"values\": [", f);
			for (size_t j = 0; j < s->ncols; j++) {
				fputs(j ? ", " : "", f);
				pb_ci_json_number(f, s->rows[r].v[j]);
			}
			fputs("]}", f);
		}
		fputs(s->nrows ? "\n     ]}" : "]}", f);
	}
	fputs("\n  ],\n  \"breakeven\": [", f);
	for (size_t i = 0; i < t->nbe; i++) {
		const struct be *b = &t->be[i];
		fputs(i ? ",\n    {" : "\n    {", f);
		const char *s[][2] = {{"op", b->op},
		                      {"upper_state", b->upper},
		                      {"simd_variant", b->simd},
		                      {"rep_variant", b->rep}};
		for (size_t k = 0; k < 4; k++) {
			json_key(f, s[k][0]);
			pb_ci_json_string(f, s[k][1]);
			fputs(", ", f);
		}
		const double d[][2] = {{b->roundtrip_ticks, b->roundtrip_ticks * b->ns_per_tick},
		                       {b->simd_ticks, b->simd_ticks * b->ns_per_tick},
		                       {b->rep_ticks, b->rep_ticks * b->ns_per_tick}};
		const char *dn[][2] = {{"roundtrip_ticks", "roundtrip_ns"},
		                       {"simd_ticks_per_page", "simd_ns_per_page"},
		                       {"rep_ticks_per_page", "rep_ns_per_page"}};
		for (size_t k = 0; k < 3; k++) {
			fputs("\n     ", f);
			for (int m = 0; m < 2; m++) {
				json_key(f, dn[k][m]);
				pb_ci_json_number(f, d[k][m]);
				fputs(", ", f);
			}
		}
		fputs("\n     ", f);
		json_key(f, "pages");
		if (b->pages < 0)
			fputs("null, \"bytes\": null}", f);
		else
			fprintf(f, "%lld, \"bytes\": %lld}", b->pages, b->pages * 4096);
	}
	fputs(t->nbe ? "\n  ],\n  \"notes\": [" : "],\n  \"notes\": [", f);
	for (size_t i = 0; i < t->notes.n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		pb_ci_json_string(f, t->notes.v[i]);
	}
	fputs("\n  ]\n}\n", f);
}

/* ---- the entry point -------------------------------------------------------- */

int pb_kernel_vs_user(const char *const *paths, size_t n_paths, const char *format, FILE *out)
{
	enum { F_TEXT, F_MARKDOWN, F_CSV, F_JSON } fmt;
	if (!format || !strcmp(format, "text"))
		fmt = F_TEXT;
	else if (!strcmp(format, "markdown") || !strcmp(format, "md"))
		fmt = F_MARKDOWN;
	else if (!strcmp(format, "csv"))
		fmt = F_CSV;
	else if (!strcmp(format, "json"))
		fmt = F_JSON;
	else
		return pb_fail("kernel --vs-user writes text, markdown, csv or json, not '%s'",
		               format);
	if (n_paths == 0)
		return pb_fail("kernel --vs-user: no result file (give a `primbench kernel` file, "
		               "and mem or xsave files to set beside it)");
	struct table t = {0};
	t.files = pb_xcalloc(n_paths, sizeof *t.files);
	t.used = pb_xcalloc(n_paths, sizeof *t.used);
	for (size_t i = 0; i < n_paths; i++) {
		t.nfiles = i + 1;
		if (pb_results_load(paths[i], &t.files[i]) != 0) {
			char *msg = pb_xstrdup(pb_error());
			table_free(&t);
			pb_fail("%s", msg);
			free(msg);
			return -1;
		}
	}
	/* One file once: a second copy would only shadow the first (and
	 * say it was unused). */
	for (size_t i = 0; i < n_paths; i++) {
		struct stat a;
		if (stat(paths[i], &a) != 0)
			continue;
		for (size_t j = 0; j < i; j++) {
			struct stat b;
			if (stat(paths[j], &b) == 0 && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino) {
				table_free(&t);
				return pb_fail("kernel --vs-user: %s is given twice (also as %s)",
				               paths[i], paths[j]);
			}
		}
	}
	/* One kernel file: its tables, fpu rows and break-even are one
	 * run's, and they must not mix with another run's. */
	size_t n_kernel = 0, first_kernel = 0;
	for (size_t i = 0; i < t.nfiles; i++)
		if (has_kernel_cases(&t.files[i]) && n_kernel++ == 0)
			first_kernel = i;
	if (n_kernel > 1) {
		table_free(&t);
		return pb_fail("kernel --vs-user: %zu files have kernel cases: give one (its "
		               "figures and break-even are one run's; `primbench compare` sets "
		               "two kernel runs side by side)",
		               n_kernel);
	}
	bool kernel = n_kernel == 1;
	if (!kernel) {
		table_free(&t);
		if (n_paths == 1)
			return pb_fail(
			    "%s: no kernel case (kernel --vs-user needs a result file of "
			    "`primbench kernel`)",
			    paths[0]);
		return pb_fail("kernel --vs-user: no kernel case in any of the %zu files (it needs "
		               "a result file of `primbench kernel`)",
		               n_paths);
	}
	static const char *const ops[] = {"clear_page", "copy_page"};
	for (size_t k = 0; k < 2; k++) {
		struct section *s = &t.sec[t.nsec];
		page_section(&t, s, ops[k]);
		if (s->nrows)
			t.nsec++;
	}
	struct section *s = &t.sec[t.nsec];
	fpu_section(&t, s);
	if (s->nrows)
		t.nsec++;
	breakeven_of(&t);
	file_notes(&t);
	machine_notes(&t, first_kernel);
	switch (fmt) {
	case F_TEXT:
		write_text(out, &t);
		break;
	case F_MARKDOWN:
		write_markdown(out, &t);
		break;
	case F_CSV:
		write_csv(out, &t);
		break;
	case F_JSON:
		write_json(out, &t);
		break;
	}
	table_free(&t);
	return 0;
}
