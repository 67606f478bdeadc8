/* plot.c - gnuplot scripts and data files for result files
 * (include/primbench/plot.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/plot.h"
#include "primbench/policy.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/twosample.h"
#include "primbench/xalloc.h"

/* Tableau 20: Tableau 10, distinguishable also for the common colour
 * blindnesses, then its ten light companions. One per kernel (a list has
 * 15 memset kernels), cycling after 20. */
static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                                      "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
                                      "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"};
#define NCOLOURS (sizeof colours / sizeof colours[0])
/* Per file: dash type (before/after); the cmd plot's point type. */
static const int file_dash[] = {1, 2, 4, 5, 3};
static const int file_point[] = {7, 5, 9, 13, 11};
#define NFILESTYLES (sizeof file_dash / sizeof file_dash[0])
/* Per kernel, with its colour: a point shape for each ten kernels (a
 * light colour never shares a dark one's shape), filled in the first
 * file, open in the others (gnuplot: the open shape is the filled one's
 * number minus 1). Colour and shape together differ for 100 kernels. */
static const int kernel_shape[] = {7, 5, 9, 13, 11};
#define NSHAPES (sizeof kernel_shape / sizeof kernel_shape[0])

static int kernel_point(size_t kernel, size_t file)
{
	return kernel_shape[kernel / 10 % NSHAPES] - (file > 0);
}

#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			(cap) = (cap) ? 2 * (cap) : 8;                                             \
			(arr) = pb_xrealloc((arr), (cap) * sizeof *(arr));                         \
		}                                                                                  \
	} while (0)

/* Appends x to arr[0..n) unless it is there already (a list of the
 * distinct values, in order of first appearance). */
#define ADD_UNIQUE(arr, n, cap, x)                                                                 \
	do {                                                                                       \
		size_t j_ = 0;                                                                     \
		while (j_ < (n) && (arr)[j_] != (x))                                               \
			j_++;                                                                      \
		if (j_ == (n)) {                                                                   \
			GROW(arr, n, cap);                                                         \
			(arr)[(n)++] = (x);                                                        \
		}                                                                                  \
	} while (0)

/* ---- text output ---------------------------------------------------- */

/* A gnuplot double-quoted string: backslash and quote escaped, control
 * characters as spaces, "\n" kept as gnuplot's newline. gnuplot's svg
 * terminal writes the text into XML, escaping '&' and '<' only: so no
 * "]]>" (which XML text may not hold: "]] >") and every byte that does
 * not start a valid UTF-8 sequence as '?' (the file is UTF-8). */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	int brackets = 0; /* ']' just written, in a row */
	while (*s) {
		unsigned char c = (unsigned char)*s;
		size_t n = pb_utf8_len(s);
		if (n > 1) {
			fwrite(s, 1, n, f);
			s += n;
			brackets = 0;
			continue;
		}
		if (n == 0)
			fputc('?', f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fputc(' ', f);
		else {
			if (c == '>' && brackets >= 2)
				fputc(' ', f);
			fputc(c, f);
		}
		brackets = n == 1 && c == ']' ? brackets + 1 : 0;
		s++;
	}
	fputc('"', f);
}

/* A path as a gnuplot double-quoted string: its bytes as they are (a
 * path need not be UTF-8), backslash and quote escaped. */
static void gp_path(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

struct outfile {
	char *text;
	size_t len;
	FILE *f;
	char name[32]; /* a data file's: data_open */
};

static FILE *out_open(struct outfile *o)
{
	o->text = NULL;
	o->len = 0;
	o->f = open_memstream(&o->text, &o->len);
	if (!o->f) {
		fputs("primbench: out of memory\n", stderr);
		abort();
	}
	return o->f;
}

/* Opens the next numbered data file of a plot, "000.dat", "001.dat", ...
 * (counted by *ndata), its name in o->name. */
static FILE *data_open(struct outfile *o, size_t *ndata)
{
	snprintf(o->name, sizeof o->name, "%03zu.dat", (*ndata)++);
	return out_open(o);
}

static int out_close(struct outfile *o, const char *dir, const char *name)
{
	fclose(o->f);
	char *path = NULL;
	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		free(o->text);
		return pb_fail("out of memory");
	}
	int rc = pb_write_file_whole(path, o->text, o->len);
	free(path);
	free(o->text);
	return rc;
}

/* ---- reading cases -------------------------------------------------- */

/* A cmd A/B's verdict, as cmd printed it: ab.verdict (pb_verdict with
 * ab.equivalence) when the file has it; an older file's from its ratio
 * and interval by the same rule (pb_verdict_of, the default margin). */
static void ab_verdict(const struct pb_results_file *f, double est, double lo, double hi, char *out,
                       size_t len)
{
	const char *v = pb_facts_str(&f->facts, "ab.verdict");
	double m = pb_facts_num(&f->facts, "ab.equivalence");
	double margin = !isnan(m) ? m : pb_equivalence();
	enum pb_verdict vv = PB_VERDICT_NONE;
	if (v && !strcmp(v, "different"))
		vv = PB_VERDICT_DIFFERENT;
	else if (v && !strcmp(v, "equivalent"))
		vv = PB_VERDICT_EQUIVALENT;
	else if (!v) {
		struct pb_shift r = {
		    .estimate = est, .lo = lo, .hi = hi, .ci_valid = isfinite(lo) && isfinite(hi)};
		vv = pb_verdict_of(&r, margin);
	}
	if (vv == PB_VERDICT_DIFFERENT)
		snprintf(out, len, "%s", est > 1 ? "B is slower" : "B is faster");
	else if (vv == PB_VERDICT_EQUIVALENT)
		snprintf(out, len, "equivalent within +-%g%%", 100 * margin);
	else
		snprintf(out, len, "cannot tell");
}

/* A per-call value t (ns_per nanoseconds each; NaN: unknown) in unit u at
 * size bytes: the one conversion (pb_unit_convert); what cannot be drawn
 * (an infinite rate of a time <= 0) is NaN, a gap in the curve. */
static double convert(enum pb_unit u, double t, double ns_per, double size)
{
	double v = pb_unit_convert(u, t, ns_per, (uint64_t)size);
	return isfinite(v) ? v : NAN;
}

/* The cache states in a few words (docs/methodology.md, "Cache states"). */
static const char *state_text(const char *state)
{
	static const char *const t[][2] = {
	    {"hot", "the same buffers every call"},
	    {"l2", "a working set of half the L2"},
	    {"llc", "a working set of half the LLC"},
	    {"dram", "random buffers, out of cache"},
	    {"fault", "fresh 4 KiB pages every call"},
	    {"fault-thp", "fresh huge pages every call"},
	    {"repeat", "the same buffer, never refilled"},
	    {"flushed", "pages flushed from every cache level"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(state, t[i][0]))
			return t[i][1];
	return "?";
}

static bool higher_is_better(enum pb_unit u)
{
	return u == PB_UNIT_BYTES_PER_TICK || u == PB_UNIT_GB_S;
}

static const char *unit_axis(enum pb_unit u)
{
	switch (u) {
	case PB_UNIT_TICKS_PER_CALL:
		return "TSC ticks per call (median, 95% CI)";
	case PB_UNIT_TICKS_PER_PAGE:
		return "TSC ticks per 4 KiB (median, 95% CI)";
	case PB_UNIT_NS_PER_CALL:
		return "ns per call (median, 95% CI)";
	case PB_UNIT_BYTES_PER_TICK:
		return "bytes per TSC tick (median, 95% CI)";
	default:
		return "GB/s, 10^9 bytes/s (median, 95% CI)";
	}
}

/* ---- mem ------------------------------------------------------------ */

struct point {
	double x, y, lo, hi;
};

struct series {
	size_t file, kernel, panel;
	char *variant;
	struct point *p;
	size_t n, cap;
	double one; /* scaling: the 1-thread figure of the file (x = 1), else NAN */
};

struct panel {
	char *op, *state;
	double xmin, xmax;
	bool variants; /* series differ by more than kernel and file */
	char *title;   /* the names its cases are titled by (title_add) */
};

struct cell {
	size_t kernel;
	long long dst;
	double y;
};

struct grid {
	size_t file;
	char *op, *state;
	long long size;
	struct cell *c;
	size_t n, cap;
};

struct names {
	char **v;
	size_t n, cap;
};

static size_t name_index(struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return i;
	GROW(s->v, s->n, s->cap);
	s->v[s->n] = pb_xstrdup(name);
	return s->n++;
}

/* A replay (mem --distribution): one bar per kernel and file. */
struct bar {
	size_t file, kernel;
	double y, lo, hi;
};

struct replay_panel {
	char *op, *dist, *state;
	struct bar *b;
	size_t n, cap;
	/* a kernel suite's panel (`primbench kernel`): bars per variant of one
	 * page size and state, in unit (kernel_unit), not a replay */
	bool kernel;
	enum pb_unit unit;
};

/* A scaling panel (mem --threads): the N-thread cases of one op,
 * state, size, memory node and placement, x = threads, y = aggregate
 * throughput; its series (mem_plot.sseries) add the 1-thread case of the
 * same file and key (x = 1), also the reference of the ideal N x 1. */
struct scaling {
	char *op, *state, *node, *placement;
	long long size;
	bool variants; /* series differ by more than kernel and file */
	char *title;   /* the names its cases are titled by (title_add) */
};

struct mem_plot {
	struct names kernels;
	struct scaling *scalings;
	size_t nscalings, capscalings;
	struct series *sseries;
	size_t nsseries, capsseries;
	bool threads; /* some case ran on N > 1 threads: the size panels say
	                 "1 thread" */
	struct replay_panel *replays;
	size_t nreplays, capreplays;
	struct panel *panels;
	size_t npanels, cappanels;
	struct series *series;
	size_t nseries, capseries;
	struct grid *grids;
	size_t ngrids, capgrids;
	size_t zero_sizes; /* cases of size 0, not drawn (pb_plot_note says so) */
};

/* Threads of a mem case: absent means 1 (docs/results-schema.md). */
static long long key_threads(const struct pb_key *key)
{
	long long t;
	return pb_field_int(key, "threads", &t) && t > 1 ? t : 1;
}

/* Where a mem case's buffers were: absent means "local". */
static const char *key_node(const struct pb_key *key)
{
	const char *s = pb_field_str(key, "mem_node");
	return s ? s : "local";
}

/* What tells apart cases of one op, state, kernel and size besides the
 * destination offset and threads: the source's place, extent, fill value,
 * read-back, page size, memory node. "" when all are the defaults of a
 * plain sweep. */
static char *variant_text(const struct pb_key *key)
{
	char buf[160] = "";
	size_t pos = 0;
	long long v;
	if (pb_field_int(key, "distance_bytes", &v))
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " distance %lld", v);
	if (pb_field_int(key, "src_offset_bytes", &v) && v != 2048)
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " src+%lld", v);
	if (pb_field_int(key, "extent_bytes", &v) && v > 0)
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " extent %lld", v);
	if (pb_field_int(key, "fill_value", &v) && v != 0)
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " value 0x%02llx", v);
	if (pb_field_true(key, "then_read"))
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " then-read");
	if (pb_field_int(key, "page_bytes", &v) && v != 4096)
		pos += (size_t)snprintf(buf + pos, sizeof buf - pos, " pages %lld", v);
	if (strcmp(key_node(key), "local") && pos < sizeof buf)
		snprintf(buf + pos, sizeof buf - pos, " memory %s", key_node(key));
	return pb_xstrdup(buf[0] == ' ' ? buf + 1 : buf);
}

/* Whether the case sits in an alignment grid: another case of the same
 * file, op, state, kernel, size and threads at another destination
 * offset. */
static bool in_grid(const struct pb_results_file *f, size_t i)
{
	const struct pb_key *a = &f->cases[i].fields;
	long long sa, da;
	if (!pb_field_int(a, "size_bytes", &sa) || !pb_field_int(a, "dst_offset_bytes", &da))
		return false;
	for (size_t j = 0; j < f->ncases; j++) {
		const struct pb_key *b = &f->cases[j].fields;
		long long sb, db;
		if (j == i || !pb_field_int(b, "size_bytes", &sb) || sb != sa ||
		    !pb_field_int(b, "dst_offset_bytes", &db) || db == da ||
		    key_threads(a) != key_threads(b))
			continue;
		const char *fa[] = {"suite", "op", "cache_state", "kernel"};
		bool same = true;
		for (size_t k = 0; k < 4 && same; k++) {
			const char *x = pb_field_str(a, fa[k]), *y = pb_field_str(b, fa[k]);
			same = x && y && !strcmp(x, y);
		}
		if (same)
			return true;
	}
	return false;
}

/* What a case is to plot: a point of a size sweep (or grid), a replay
 * of a size distribution, a cmd run, or something not drawn. */
enum case_kind {
	CASE_SWEEP,
	CASE_REPLAY,
	CASE_KERNEL, /* `primbench kernel`'s: bars beside the mem plot's panels */
	CASE_CMD,
	CASE_LATENCY,
	CASE_MAP,
	CASE_OTHER
};

static enum case_kind case_kind(const struct pb_key *key)
{
	const char *suite = pb_field_str(key, "suite");
	if (suite && !strcmp(suite, "cmd"))
		return CASE_CMD;
	if (suite && !strcmp(suite, "latency"))
		return CASE_LATENCY;
	if (suite && !strcmp(suite, "map"))
		return CASE_MAP;
	if (suite && !strcmp(suite, "kernel"))
		return CASE_KERNEL;
	if (!suite || strcmp(suite, "mem"))
		return CASE_OTHER;
	return pb_field_str(key, "distribution") ? CASE_REPLAY : CASE_SWEEP;
}

static struct replay_panel *replay_for(struct mem_plot *m, const char *op, const char *dist,
                                       const char *state)
{
	for (size_t i = 0; i < m->nreplays; i++) {
		struct replay_panel *r = &m->replays[i];
		if (!strcmp(r->op, op) && !strcmp(r->dist, dist) && !strcmp(r->state, state))
			return r;
	}
	GROW(m->replays, m->nreplays, m->capreplays);
	struct replay_panel *r = &m->replays[m->nreplays++];
	*r = (struct replay_panel){
	    pb_xstrdup(op), pb_xstrdup(dist), pb_xstrdup(state), NULL, 0, 0, false, 0};
	return r;
}

/* Adds name to a panel's title, the names its cases are titled by joined
 * by " / " in first-seen order: "memset" for a memset sweep, "clear_page"
 * for a `mem clear_page` run's cases (pb_key_page_op_of: keyed as
 * memset 4 KiB cases), "memset / clear_page" for both in one panel. */
static void title_add(char **title, const char *name)
{
	if (!*title) {
		*title = pb_xstrdup(name);
		return;
	}
	size_t len = strlen(name);
	for (const char *p = *title; p; p = strstr(p, " / ")) {
		if (p != *title)
			p += 3;
		if (!strncmp(p, name, len) && (!p[len] || !strncmp(p + len, " / ", 3)))
			return;
	}
	char *t = pb_xasprintf("%s / %s", *title, name);
	free(*title);
	*title = t;
}

/* The name a mem case of file f is titled by: its op, or the page op of
 * a clear_page/copy_page run. */
static const char *case_title(const struct pb_results_file *f, const struct pb_key *key)
{
	const char *name = pb_key_page_op_of(f->page_op, key);
	return name ? name : pb_field_str(key, "op");
}

static size_t panel_index(struct mem_plot *m, const char *op, const char *state)
{
	for (size_t i = 0; i < m->npanels; i++)
		if (!strcmp(m->panels[i].op, op) && !strcmp(m->panels[i].state, state))
			return i;
	GROW(m->panels, m->npanels, m->cappanels);
	m->panels[m->npanels] =
	    (struct panel){pb_xstrdup(op), pb_xstrdup(state), INFINITY, -INFINITY, false, NULL};
	return m->npanels++;
}

/* The series of file, kernel, panel and variant in the list v[0..*n)
 * (m->series or m->sseries), added when new. */
static struct series *series_in(struct series **v, size_t *n, size_t *cap, size_t file,
                                size_t kernel, size_t panel, const char *variant)
{
	for (size_t i = 0; i < *n; i++) {
		struct series *s = &(*v)[i];
		if (s->file == file && s->kernel == kernel && s->panel == panel &&
		    !strcmp(s->variant, variant))
			return s;
	}
	GROW(*v, *n, *cap);
	struct series *s = &(*v)[(*n)++];
	*s = (struct series){file, kernel, panel, pb_xstrdup(variant), NULL, 0, 0, NAN};
	return s;
}

static struct series *series_for(struct mem_plot *m, size_t file, size_t kernel, size_t panel,
                                 const char *variant)
{
	return series_in(&m->series, &m->nseries, &m->capseries, file, kernel, panel, variant);
}

static struct grid *grid_for(struct mem_plot *m, size_t file, const char *op, const char *state,
                             long long size)
{
	for (size_t i = 0; i < m->ngrids; i++) {
		struct grid *g = &m->grids[i];
		if (g->file == file && g->size == size && !strcmp(g->op, op) &&
		    !strcmp(g->state, state))
			return g;
	}
	GROW(m->grids, m->ngrids, m->capgrids);
	struct grid *g = &m->grids[m->ngrids++];
	*g = (struct grid){file, pb_xstrdup(op), pb_xstrdup(state), size, NULL, 0, 0};
	return g;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_point(const void *a, const void *b)
{
	const struct point *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

static void case_value(enum pb_unit u, const struct pb_summary *sum, double ns_per, double size,
                       struct point *p);

/* Replays are drawn per call: ticks/call when asked for, else ns/call
 * (a batch of mixed sizes has no one size for GB/s or ticks/page). */
static enum pb_unit replay_unit(enum pb_unit asked)
{
	return asked == PB_UNIT_TICKS_PER_CALL ? PB_UNIT_TICKS_PER_CALL : PB_UNIT_NS_PER_CALL;
}

/* A kernel case's bars: per 4 KiB page or in throughput, as its tables
 * (ticks per call: ticks per 4 KiB page; ns per call: per page). */
static enum pb_unit kernel_unit(enum pb_unit asked)
{
	return asked == PB_UNIT_TICKS_PER_CALL ? PB_UNIT_TICKS_PER_PAGE : asked;
}

/* A kernel fpu case's bars: per call (one begin/end pair or one ioctl),
 * in ticks when asked for ticks, else ns (there are no bytes). */
static enum pb_unit fpu_unit(enum pb_unit asked)
{
	return asked == PB_UNIT_TICKS_PER_CALL || asked == PB_UNIT_TICKS_PER_PAGE
	           ? PB_UNIT_TICKS_PER_CALL
	           : PB_UNIT_NS_PER_CALL;
}

/* A kernel user_copy case as a point of the size panel "kernel user_copy"
 * of its cache state, a line per variant over size_bytes, in the unit
 * asked (as a mem sweep's). */
static int user_copy_point(struct mem_plot *m, size_t fi, const struct pb_results_file *f,
                           const struct pb_results_case *c, enum pb_unit unit)
{
	const char *state = pb_field_str(&c->fields, "cache_state"),
	           *variant = pb_field_str(&c->fields, "variant");
	long long size;
	if (!state || !variant || !pb_field_int(&c->fields, "size_bytes", &size) || size <= 0)
		return pb_fail("%s: cases[%zu]: a kernel user_copy key needs variant, size_bytes "
		               "and cache_state",
		               f->path, c->index);
	double ns_per = pb_file_ns_per_value(f, c->unit);
	if (!(ns_per > 0) && unit != PB_UNIT_TICKS_PER_CALL && unit != PB_UNIT_TICKS_PER_PAGE &&
	    unit != PB_UNIT_BYTES_PER_TICK)
		return pb_fail("%s: no timer.hz: cannot give %s", f->path, pb_unit_name(unit));
	struct pb_summary sum;
	if (pb_results_case_summary(c, 0.95, &sum) != 0)
		return -1;
	struct point pt;
	case_value(unit, &sum, ns_per, (double)size, &pt);
	if (!isfinite(pt.y))
		return 0;
	size_t p = panel_index(m, "kernel user_copy", state);
	title_add(&m->panels[p].title, "kernel user_copy");
	struct series *s = series_for(m, fi, name_index(&m->kernels, variant), p,
	                              pb_field_true(&c->fields, "irqs_off") ? "irqs off" : "");
	GROW(s->p, s->n, s->cap);
	s->p[s->n++] = (struct point){(double)size, pt.y, pt.lo, pt.hi};
	struct panel *pa = &m->panels[p];
	pa->xmin = fmin(pa->xmin, (double)size);
	pa->xmax = fmax(pa->xmax, (double)size);
	return 0;
}

/* A kernel case (`primbench kernel`) as a bar: clear_page and copy_page
 * in the panel of their op, page size and state (kernel_unit); fpu in
 * the panel of its upper state (fpu_unit), the variants side by side;
 * user_copy as a point of a size panel (user_copy_point). The variant's
 * median and 95% CI. */
static int kernel_bar(struct mem_plot *m, size_t fi, const struct pb_results_file *f,
                      const struct pb_results_case *c, enum pb_unit unit)
{
	const char *op = pb_field_str(&c->fields, "op"),
	           *state = pb_field_str(&c->fields, "cache_state"),
	           *variant = pb_field_str(&c->fields, "variant"),
	           *upper = pb_field_str(&c->fields, "upper_state");
	bool fpu = op && !strcmp(op, "fpu");
	if (op && !strcmp(op, "user_copy"))
		return user_copy_point(m, fi, f, c, unit);
	if (fpu && (!variant || !upper))
		return pb_fail("%s: cases[%zu]: a kernel fpu key needs variant and upper_state",
		               f->path, c->index);
	long long page = 4096;
	if (!fpu && (!op || !state || !variant || !pb_field_int(&c->fields, "page_bytes", &page) ||
	             page <= 0))
		return pb_fail("%s: cases[%zu]: a kernel key needs op, variant, page_bytes and "
		               "cache_state",
		               f->path, c->index);
	enum pb_unit u = fpu ? fpu_unit(unit) : kernel_unit(unit);
	double ns_per = pb_file_ns_per_value(f, c->unit);
	if (!(ns_per > 0) && (u == PB_UNIT_NS_PER_CALL || u == PB_UNIT_GB_S))
		return pb_fail("%s: no timer.hz: cannot give %s", f->path, pb_unit_name(u));
	struct pb_summary sum;
	if (pb_results_case_summary(c, 0.95, &sum) != 0)
		return -1;
	char *kop = pb_xasprintf("kernel %s", op);
	char *dist = fpu ? pb_xasprintf("upper state %s", upper)
	                 : pb_xasprintf(page == 4096      ? "4K pages"
	                                : page == 2 << 20 ? "a 2M page"
	                                                  : "%lld-byte pages",
	                                page);
	/* fpu has no cache state: "" (the panel's title leaves it out) */
	struct replay_panel *r = replay_for(m, kop, dist, fpu ? "" : state);
	free(kop);
	free(dist);
	r->kernel = true;
	r->unit = u;
	double y = convert(u, sum.median, ns_per, (double)page);
	double a = sum.ci_valid ? convert(u, sum.ci_lo, ns_per, (double)page) : y;
	double b = sum.ci_valid ? convert(u, sum.ci_hi, ns_per, (double)page) : y;
	GROW(r->b, r->n, r->cap);
	r->b[r->n++] =
	    (struct bar){fi, name_index(&m->kernels, variant), y, a < b ? a : b, a < b ? b : a};
	return 0;
}

/* A case's median (y) and 95% CI (lo, hi; the median alone without one)
 * in unit u at size bytes; lo is the lower figure on the axis. */
static void case_value(enum pb_unit u, const struct pb_summary *sum, double ns_per, double size,
                       struct point *p)
{
	p->y = convert(u, sum->median, ns_per, size);
	p->lo = p->hi = p->y;
	if (sum->ci_valid) {
		double a = convert(u, sum->ci_lo, ns_per, size);
		double b = convert(u, sum->ci_hi, ns_per, size);
		p->lo = higher_is_better(u) ? b : a;
		p->hi = higher_is_better(u) ? a : b;
	}
}

/* Scaling panels draw a throughput: the N-thread "per call" is the span
 * over every thread's calls, not the time of a call. bytes/tick when
 * asked for, else GB/s. */
static enum pb_unit scaling_unit(enum pb_unit asked)
{
	return asked == PB_UNIT_BYTES_PER_TICK ? PB_UNIT_BYTES_PER_TICK : PB_UNIT_GB_S;
}

static size_t scaling_index(struct mem_plot *m, const char *op, const char *state, long long size,
                            const char *node, const char *placement)
{
	for (size_t i = 0; i < m->nscalings; i++) {
		const struct scaling *sc = &m->scalings[i];
		if (sc->size == size && !strcmp(sc->op, op) && !strcmp(sc->state, state) &&
		    !strcmp(sc->node, node) && !strcmp(sc->placement, placement))
			return i;
	}
	GROW(m->scalings, m->nscalings, m->capscalings);
	m->scalings[m->nscalings] = (struct scaling){pb_xstrdup(op),
	                                             pb_xstrdup(state),
	                                             pb_xstrdup(node),
	                                             pb_xstrdup(placement),
	                                             size,
	                                             false,
	                                             NULL};
	return m->nscalings++;
}

/* Sorts s's points by x. True when a series of v[0..n) in s's panel has
 * another variant (the panel's legend then names the variants). */
static bool series_sort(struct series *s, const struct series *v, size_t n)
{
	qsort(s->p, s->n, sizeof *s->p, cmp_point);
	for (size_t j = 0; j < n; j++)
		if (v[j].panel == s->panel && strcmp(v[j].variant, s->variant))
			return true;
	return false;
}

static struct series *scaling_series_for(struct mem_plot *m, size_t file, size_t kernel,
                                         size_t panel, const char *variant)
{
	return series_in(&m->sseries, &m->nsseries, &m->capsseries, file, kernel, panel, variant);
}

/* A scaling series' variant: variant_text and the destination offset (an
 * alignment grid run on N threads has a series per offset). */
static char *scaling_variant(const struct pb_key *key)
{
	char *v = variant_text(key), *out = NULL;
	long long dst = 0;
	if (!pb_field_int(key, "dst_offset_bytes", &dst) || dst == 0)
		return v;
	if (asprintf(&out, "%s%sdst+%lld", v, v[0] ? " " : "", dst) < 0) {
		fputs("primbench: out of memory\n", stderr);
		abort();
	}
	free(v);
	return out;
}

/* An N-thread sweep case (N > 1) into its scaling panel. */
static int scaling_add(struct mem_plot *m, size_t fi, const struct pb_results_file *f,
                       const struct pb_key *key, const struct pb_summary *sum, double ns_per,
                       enum pb_unit unit)
{
	long long size = 0;
	pb_field_int(key, "size_bytes", &size);
	enum pb_unit u = scaling_unit(unit);
	if (!(ns_per > 0) && u == PB_UNIT_GB_S)
		return pb_fail("%s: no timer.hz: cannot give %s", f->path, pb_unit_name(u));
	struct point p;
	case_value(u, sum, ns_per, (double)size, &p);
	if (size <= 0 || !isfinite(p.y)) {
		m->zero_sizes++;
		return 0;
	}
	const char *placement = pb_field_str(key, "placement");
	size_t pi = scaling_index(m, pb_field_str(key, "op"), pb_field_str(key, "cache_state"),
	                          size, key_node(key), placement ? placement : "compact");
	title_add(&m->scalings[pi].title, case_title(f, key));
	char *variant = scaling_variant(key);
	struct series *s = scaling_series_for(
	    m, fi, name_index(&m->kernels, pb_field_str(key, "kernel")), pi, variant);
	free(variant);
	p.x = (double)key_threads(key);
	GROW(s->p, s->n, s->cap);
	s->p[s->n++] = p;
	return 0;
}

/* The 1-thread cases into the scaling panels of their op, state, size and
 * memory node (every placement's): the point at x = 1 and the reference
 * of the ideal line. After every N-thread case is in. */
static int scaling_attach(struct mem_plot *m, const struct pb_plot_input *in, size_t n,
                          enum pb_unit unit)
{
	enum pb_unit u = scaling_unit(unit);
	for (size_t fi = 0; fi < n && m->nscalings; fi++) {
		const struct pb_results_file *f = in[fi].file;
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			if (case_kind(&c->fields) != CASE_SWEEP || key_threads(&c->fields) > 1)
				continue;
			const char *op = pb_field_str(&c->fields, "op"),
			           *state = pb_field_str(&c->fields, "cache_state");
			long long size = 0;
			pb_field_int(&c->fields, "size_bytes", &size);
			double ns_per = pb_file_ns_per_value(f, c->unit);
			struct pb_summary sum;
			bool have = false;
			struct point p = {1, NAN, NAN, NAN};
			for (size_t pi = 0; pi < m->nscalings; pi++) {
				const struct scaling *sc = &m->scalings[pi];
				if (sc->size != size || strcmp(sc->op, op) ||
				    strcmp(sc->state, state) ||
				    strcmp(sc->node, key_node(&c->fields)))
					continue;
				if (!have) {
					if (!(ns_per > 0) && u == PB_UNIT_GB_S)
						return pb_fail("%s: no timer.hz: cannot give %s",
						               f->path, pb_unit_name(u));
					if (pb_results_case_summary(c, 0.95, &sum) != 0)
						return -1;
					case_value(u, &sum, ns_per, (double)size, &p);
					have = true;
				}
				if (!isfinite(p.y))
					break;
				char *variant = scaling_variant(&c->fields);
				struct series *s = scaling_series_for(
				    m, fi,
				    name_index(&m->kernels, pb_field_str(&c->fields, "kernel")), pi,
				    variant);
				free(variant);
				GROW(s->p, s->n, s->cap);
				s->p[s->n++] = p;
				s->one = p.y;
			}
		}
	}
	for (size_t i = 0; i < m->nsseries; i++)
		if (series_sort(&m->sseries[i], m->sseries, m->nsseries))
			m->scalings[m->sseries[i].panel].variants = true;
	return 0;
}

static int mem_collect(struct mem_plot *m, const struct pb_plot_input *in, size_t n,
                       enum pb_unit unit)
{
	for (size_t fi = 0; fi < n; fi++) {
		const struct pb_results_file *f = in[fi].file;
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			enum case_kind kind = case_kind(&c->fields);
			if (kind == CASE_KERNEL) {
				if (kernel_bar(m, fi, f, c, unit) != 0)
					return -1;
				continue;
			}
			if (kind != CASE_SWEEP && kind != CASE_REPLAY)
				continue; /* said by pb_plot_note() */
			const char *op = pb_field_str(&c->fields, "op"),
			           *state = pb_field_str(&c->fields, "cache_state"),
			           *kernel = pb_field_str(&c->fields, "kernel");
			long long size = 0, dst = 0;
			if (kind == CASE_SWEEP && (!op || !state || !kernel ||
			                           !pb_field_int(&c->fields, "size_bytes", &size)))
				return pb_fail("%s: cases[%zu]: a mem key needs op, cache_state, "
				               "kernel and size_bytes",
				               f->path, c->index);
			if (kind == CASE_REPLAY && (!op || !state || !kernel))
				return pb_fail("%s: cases[%zu]: a replay key needs op, cache_state "
				               "and kernel",
				               f->path, c->index);
			pb_field_int(&c->fields, "dst_offset_bytes", &dst);
			double ns_per = pb_file_ns_per_value(f, c->unit);
			enum pb_unit u = kind == CASE_REPLAY ? replay_unit(unit) : unit;
			if (!(ns_per > 0) && u != PB_UNIT_TICKS_PER_CALL &&
			    u != PB_UNIT_TICKS_PER_PAGE && u != PB_UNIT_BYTES_PER_TICK)
				return pb_fail("%s: no timer.hz: cannot give %s", f->path,
				               pb_unit_name(u));
			struct pb_summary sum;
			if (pb_results_case_summary(c, 0.95, &sum) != 0)
				return -1;
			if (kind == CASE_REPLAY) {
				/* Per call over the batch: ns/call (or ticks). */
				const char *dist = pb_field_str(&c->fields, "distribution");
				struct replay_panel *r = replay_for(m, op, dist, state);
				GROW(r->b, r->n, r->cap);
				double y = convert(u, sum.median, ns_per, 0);
				double lo = sum.ci_valid ? convert(u, sum.ci_lo, ns_per, 0) : y;
				double hi = sum.ci_valid ? convert(u, sum.ci_hi, ns_per, 0) : y;
				r->b[r->n++] =
				    (struct bar){fi, name_index(&m->kernels, kernel), y, lo, hi};
				continue;
			}
			if (key_threads(&c->fields) > 1) {
				/* Aggregates: the scaling panels, not the size panels. */
				m->threads = true;
				if (scaling_add(m, fi, f, &c->fields, &sum, ns_per, unit) != 0)
					return -1;
				continue;
			}
			struct point pt;
			case_value(unit, &sum, ns_per, (double)size, &pt);
			double y = pt.y, lo = pt.lo, hi = pt.hi;
			size_t k = name_index(&m->kernels, kernel);
			if (in_grid(f, i)) {
				struct grid *g = grid_for(m, fi, op, state, size);
				GROW(g->c, g->n, g->cap);
				g->c[g->n++] = (struct cell){k, dst, y};
				continue;
			}
			if (size <= 0 || !isfinite(y)) {
				m->zero_sizes++;
				continue;
			}
			size_t p = panel_index(m, op, state);
			title_add(&m->panels[p].title, case_title(f, &c->fields));
			char *variant = variant_text(&c->fields);
			struct series *s = series_for(m, fi, k, p, variant);
			free(variant);
			GROW(s->p, s->n, s->cap);
			s->p[s->n++] = (struct point){(double)size, y, lo, hi};
			struct panel *pa = &m->panels[p];
			pa->xmin = fmin(pa->xmin, (double)size);
			pa->xmax = fmax(pa->xmax, (double)size);
		}
	}
	for (size_t i = 0; i < m->nseries; i++)
		if (series_sort(&m->series[i], m->series, m->nseries))
			m->panels[m->series[i].panel].variants = true;
	return scaling_attach(m, in, n, unit);
}

static void mem_free(struct mem_plot *m)
{
	for (size_t i = 0; i < m->kernels.n; i++)
		free(m->kernels.v[i]);
	free(m->kernels.v);
	/* the members each struct owns */
	static const size_t panel[] = {offsetof(struct panel, op), offsetof(struct panel, state),
	                               offsetof(struct panel, title)};
	static const size_t series[] = {offsetof(struct series, variant),
	                                offsetof(struct series, p)};
	static const size_t grid[] = {offsetof(struct grid, op), offsetof(struct grid, state),
	                              offsetof(struct grid, c)};
	static const size_t replay[] = {
	    offsetof(struct replay_panel, op), offsetof(struct replay_panel, dist),
	    offsetof(struct replay_panel, state), offsetof(struct replay_panel, b)};
	static const size_t scaling[] = {
	    offsetof(struct scaling, op), offsetof(struct scaling, state),
	    offsetof(struct scaling, node), offsetof(struct scaling, placement),
	    offsetof(struct scaling, title)};
	PB_FREE_STRUCTS(m->panels, m->npanels, panel);
	PB_FREE_STRUCTS(m->series, m->nseries, series);
	PB_FREE_STRUCTS(m->grids, m->ngrids, grid);
	PB_FREE_STRUCTS(m->replays, m->nreplays, replay);
	PB_FREE_STRUCTS(m->scalings, m->nscalings, scaling);
	PB_FREE_STRUCTS(m->sseries, m->nsseries, series);
}

/* The x tics of a log2 size axis: every power of 4 (64, 256, 1K, ...)
 * between lo and hi, labelled as sizes. */
static void size_tics(FILE *g, double lo, double hi)
{
	fputs("set xtics (", g);
	bool first = true;
	for (double x = 1; x <= hi * 1.0001; x *= 4) {
		if (x < lo / 1.0001)
			continue;
		char l[32];
		pb_format_bytes(l, sizeof l, x, PB_BYTES_SHORT);
		fprintf(g, "%s\"%s\" %.0f", first ? "" : ", ", l, x);
		first = false;
	}
	if (first) {
		char l[32];
		pb_format_bytes(l, sizeof l, lo, PB_BYTES_SHORT);
		fprintf(g, "\"%s\" %.0f", l, lo);
	}
	fputs(")\n", g);
}

/* The first file's L1d, L2 and LLC as dotted vertical lines inside the
 * panel's sizes, named above the plot (top axis tics: never over the
 * data); those outside it go into `off`, to be said in words. */
static void cache_marks(FILE *g, const struct pb_results_file *f, double lo, double hi, char *off,
                        size_t offlen)
{
	static const char *const levels[] = {"L1d", "L2", "LLC"};
	off[0] = '\0';
	size_t pos = 0, tics = 0;
	for (size_t i = 0; i < 3; i++) {
		char path[64];
		snprintf(path, sizeof path, "caches.%s.size_bytes", levels[i]);
		long long sz;
		if (!pb_facts_int(&f->mach.facts, path, &sz) || sz <= 0)
			continue;
		snprintf(path, sizeof path, "caches.%s.source", levels[i]);
		const char *src = pb_facts_str(&f->mach.facts, path);
		double x = (double)sz;
		char l[32];
		pb_format_bytes(l, sizeof l, x, PB_BYTES_SHORT);
		char text[96];
		snprintf(text, sizeof text, "%s %s\n(%s)", levels[i], l, src ? src : "?");
		if (x < lo || x > hi) {
			pos += (size_t)snprintf(off + pos, offlen - pos, "%s%s %s (%s)",
			                        pos ? ", " : "", levels[i], l, src ? src : "?");
			if (pos >= offlen)
				pos = offlen - 1;
			continue;
		}
		fprintf(g,
		        "set arrow from %.0f, graph 0 to %.0f, graph 1 nohead dt 3 lw 1.2 "
		        "lc rgb \"#555555\" back\n",
		        x, x);
		fputs(tics++ ? "set x2tics add (" : "set x2tics scale 0 font \",9\" (", g);
		gp_str(g, text);
		fprintf(g, " %.0f)\n", x);
	}
	if (tics)
		fprintf(g, "set logscale x2 2\nset x2range [%g:%g]\n", lo, hi);
}

/* The first file's break-even points for (op, state): where its
 * recommended policy switches kernel ("a<=N,b<=M,c": at N from a to b).
 * The policy is read by the one policy parser (include/primbench/policy.h),
 * so bounds with suffixes ("avx512<=24M", as tune writes them) are sizes;
 * kernels of any machine are accepted. A policy that does not parse
 * (a kernel this build lacks) gives no marks. */
static size_t breakeven_marks(FILE *g, const struct pb_results_file *f, const char *op,
                              const char *state, double lo, double hi)
{
	enum pb_op pop;
	size_t marks = 0, nbe;
	if (pb_op_parse(op, &pop) != 0)
		return 0;
	struct pb_key *be = pb_facts_objects(&f->facts, "breakeven", &nbe);
	for (size_t i = 0; i < nbe; i++) {
		const struct pb_key *e = &be[i];
		const char *eop = pb_field_str(e, "op"), *est = pb_field_str(e, "cache_state");
		const char *text = pb_field_str(e, "policy");
		struct pb_policy pol;
		if (!eop || !est || !text || strcmp(eop, op) || strcmp(est, state) ||
		    pb_policy_parse(pop, text, (pb_features)-1, &pol) != 0)
			continue;
		for (size_t b = 0; b + 1 < pol.n_bands && marks < 16; b++) {
			double x = (double)pol.bands[b].max_bytes;
			if (x < lo || x > hi)
				continue;
			char name[96];
			snprintf(name, sizeof name, "%s\xe2\x86\x92%s", pol.bands[b].kernel->name,
			         pol.bands[b + 1].kernel->name);
			fprintf(g,
			        "set arrow from %g, graph 0 to %g, graph 0.07 head filled size "
			        "screen 0.008,25 lw 1.5 lc rgb \"black\" front\n",
			        x, x);
			fputs("set label ", g);
			gp_str(g, name);
			fprintf(g, " at %g, graph 0.08 rotate by 90 left font \",8\" front\n", x);
			marks++;
		}
	}
	pb_keys_free(be, nbe);
	return marks;
}

/* One replay panel: per kernel (x, in order of first appearance) a bar
 * per file, the median per call over the batch with its 95% CI, and
 * above it the ratio to the same file's libc ("x1.39": libc's time over
 * the kernel's, > 1 faster), as the replay table prints it. */
static int replay_script(FILE *g, const struct mem_plot *m, const struct replay_panel *r,
                         const struct pb_plot_input *in, size_t n, const struct pb_plot_opts *o,
                         const char *dir, size_t *ndata)
{
	size_t *ks = NULL, nks = 0, capks = 0;
	for (size_t i = 0; i < r->n; i++)
		ADD_UNIQUE(ks, nks, capks, r->b[i].kernel);
	enum pb_unit u = r->kernel ? r->unit : replay_unit(o->unit);
	fprintf(g, "\n# %s: %s, %s%s%s\n", r->kernel ? "kernel" : "replay", r->op, r->dist,
	        *r->state ? ", " : "", r->state);
	fputs("unset arrow; unset label; unset logscale; unset x2tics;"
	      "set autoscale\n",
	      g);
	if (r->kernel) {
		if (*r->state)
			fprintf(g, "set tmargin\nset title \"%s, %s, %s (%s)\" offset 0,0\n", r->op,
			        r->dist, r->state, state_text(r->state));
		else /* fpu: no cache state */
			fprintf(g, "set tmargin\nset title \"%s, %s\" offset 0,0\n", r->op,
			        r->dist);
		fputs(*r->state
		          ? "set xlabel \"variant (in kernel context, primbench's module)\"\n"
		          : "set xlabel \"variant (begin_end, save_restore timed in the kernel; "
		            "ioctl_null, ioctl_fpu from user space)\"\n",
		      g);
		fputs("set ylabel ", g);
		char yl[96];
		snprintf(yl, sizeof yl, "%s (median, 95%% CI)",
		         u == PB_UNIT_TICKS_PER_PAGE   ? "TSC ticks per 4 KiB page"
		         : u == PB_UNIT_TICKS_PER_CALL ? "TSC ticks per call"
		                                       : pb_unit_name(u));
		gp_str(g, yl);
	} else {
		fprintf(g, "set tmargin\nset title \"%s: replay of %s, %s (%s)\" offset 0,0\n",
		        r->op, r->dist, r->state, state_text(r->state));
		fputs("set xlabel \"kernel; above each bar: libc's time over the kernel's "
		      "(> 1: faster than libc)\"\n",
		      g);
		fputs("set ylabel ", g);
		gp_str(g, u == PB_UNIT_NS_PER_CALL
		              ? "ns per call over the batch (median, 95% CI)"
		              : "TSC ticks per call over the batch (median, 95% CI)");
	}
	/* Kernel names side by side overlap beyond a few ("bytesgpr_unrolled"
	 * in a half-width panel): slanted then. */
	size_t label_chars = 0;
	for (size_t ki = 0; ki < nks; ki++)
		label_chars += strlen(m->kernels.v[ks[ki]]) + 2;
	fputs(nks > 6 || label_chars > 40 ? "\nset xtics rotate by 45 right"
	                                  : "\nset xtics norotate",
	      g);
	fputs("\nset yrange [0:*]\nset xrange [-0.6:", g);
	fprintf(g, "%g]\nset xtics (", (double)nks - 0.4);
	for (size_t ki = 0; ki < nks; ki++) {
		fputs(ki ? ", " : "", g);
		gp_str(g, m->kernels.v[ks[ki]]);
		fprintf(g, " %zu", ki);
	}
	double w = 0.8 / (double)n;
	fprintf(g, ")\nset boxwidth %g\n", w * 0.9);
	fputs(n > 1 ? "set key top left font \",9\"\n" : "set key off\n", g);
	struct outfile plot;
	FILE *pf = out_open(&plot);
	bool first = true;
	for (size_t fi = 0; fi < n; fi++) {
		double libc = NAN;
		for (size_t i = 0; i < r->n; i++)
			if (r->b[i].file == fi && !strcmp(m->kernels.v[r->b[i].kernel], "libc"))
				libc = r->b[i].y;
		struct outfile d;
		FILE *df = data_open(&d, ndata);
		fputs("# x value lo hi colour\n", df);
		size_t rows = 0;
		for (size_t ki = 0; ki < nks; ki++)
			for (size_t i = 0; i < r->n; i++) {
				const struct bar *b = &r->b[i];
				if (b->file != fi || b->kernel != ks[ki])
					continue;
				double x = (double)ki + ((double)fi - (double)(n - 1) / 2) * w;
				fprintf(df, "%g %.6g %.6g %.6g %ld\n", x, b->y, b->lo, b->hi,
				        strtol(colours[b->kernel % NCOLOURS] + 1, NULL, 16));
				rows++;
				if (isfinite(libc) && b->y > 0) {
					char l[32];
					snprintf(l, sizeof l, "x%.2f", libc / b->y);
					fputs("set label ", g);
					gp_str(g, l);
					fprintf(
					    g,
					    " at %g, %.6g offset 0,0.7 center font \",8\" front\n",
					    x, b->hi);
				}
			}
		if (out_close(&d, dir, d.name) != 0) {
			fclose(pf);
			free(plot.text);
			free(ks);
			return -1;
		}
		if (rows == 0)
			continue;
		fprintf(pf, "%s  \"%s\" using 1:2:5 with boxes lc rgb variable fs %s ",
		        first ? "" : ",\\\n", d.name, fi == 0 ? "solid 0.7" : "pattern 4");
		if (n > 1) {
			fputs("title ", pf);
			gp_str(pf, in[fi].label);
		} else {
			fputs("notitle", pf);
		}
		fprintf(pf,
		        ",\\\n  \"%s\" using 1:2:3:4 with yerrorbars lc rgb \"black\" pt 0 "
		        "notitle",
		        d.name);
		first = false;
	}
	fclose(pf);
	fprintf(g, "plot \\\n%s\n", plot.text);
	free(plot.text);
	free(ks);
	return 0;
}

/* One scaling panel: per kernel and file, the aggregate throughput (median,
 * 95% CI) against threads, points and lines, and the ideal N x the
 * 1-thread figure of the same file, dashed in the same colour. The key
 * gives each series' efficiency at its most threads (aggregate over N x
 * 1 thread, as median_derived.efficiency). Data: threads value lo hi
 * ideal. */
static int scaling_script(FILE *g, const struct mem_plot *m, size_t si,
                          const struct pb_plot_input *in, size_t n, const struct pb_plot_opts *o,
                          const char *dir, size_t *ndata)
{
	const struct scaling *sc = &m->scalings[si];
	enum pb_unit u = scaling_unit(o->unit);
	/* The thread counts drawn, ascending. */
	double *ts = NULL;
	size_t nts = 0, capts = 0;
	for (size_t i = 0; i < m->nsseries; i++) {
		const struct series *s = &m->sseries[i];
		for (size_t j = 0; s->panel == si && j < s->n; j++) {
			size_t k = 0;
			while (k < nts && ts[k] != s->p[j].x)
				k++;
			if (k < nts)
				continue;
			GROW(ts, nts, capts);
			ts[nts++] = s->p[j].x;
		}
	}
	qsort(ts, nts, sizeof *ts, cmp_double);
	double tmax = nts ? ts[nts - 1] : 1;
	char sz[32];
	pb_format_bytes(sz, sizeof sz, (double)sc->size, PB_BYTES_SHORT);
	fprintf(g, "\n# scaling %zu: %s, %s, %s\n", si + 1, sc->title, sc->state, sz);
	fputs("unset arrow; unset label; unset logscale; unset x2tics;"
	      "set autoscale\n",
	      g);
	char title[512];
	int len = snprintf(title, sizeof title, "%s %s, %s (%s): aggregate %s by threads",
	                   sc->title, sz, sc->state, state_text(sc->state), pb_unit_name(u));
	bool placed = strcmp(sc->placement, "compact") != 0, node = strcmp(sc->node, "local") != 0;
	if ((placed || node) && len > 0 && (size_t)len < sizeof title)
		snprintf(title + len, sizeof title - (size_t)len, "\n%s%s%s%s%s",
		         placed ? "placement " : "", placed ? sc->placement : "",
		         placed && node ? ", " : "", node ? "memory " : "", node ? sc->node : "");
	fputs("set tmargin\nset title ", g);
	gp_str(g, title);
	fputs(" offset 0,0\n", g);
	/* Counts doubling to many threads: a log axis keeps 1, 2, 4 apart. */
	bool log = tmax > 16;
	if (log)
		fprintf(g, "set logscale x 2\nset xrange [%g:%g]\n", 1 / 1.15, tmax * 1.15);
	else {
		double pad = fmax(0.25, 0.05 * (tmax - 1));
		fprintf(g, "set xrange [%g:%g]\n", 1 - pad, tmax + pad);
	}
	size_t step = nts > 16 ? (nts + 15) / 16 : 1;
	fputs("set xtics norotate (", g);
	for (size_t i = 0; i < nts; i += step)
		fprintf(g, "%s\"%.0f\" %.0f", i ? ", " : "", ts[i], ts[i]);
	fputs(")\nset yrange [0:*]\nset ylabel ", g);
	gp_str(g, u == PB_UNIT_GB_S ? "aggregate GB/s, 10^9 bytes/s (median, 95% CI)"
	                            : "aggregate bytes per TSC tick (median, 95% CI)");
	fputs("\nset xlabel \"threads at once, each on its own buffers; dashed: ideal, N x the "
	      "1-thread figure\"\n",
	      g);
	fputs("set key below Left reverse samplen 3 width 2 height 1.5 font \",9\"\n", g);
	free(ts);
	fputs("plot \\\n", g);
	bool first = true;
	for (size_t i = 0; i < m->nsseries; i++) {
		const struct series *s = &m->sseries[i];
		if (s->panel != si || s->n == 0)
			continue;
		struct outfile d;
		FILE *df = data_open(&d, ndata);
		bool ideal = isfinite(s->one);
		fputs(ideal ? "# threads value lo hi ideal\n" : "# threads value lo hi\n", df);
		for (size_t j = 0; j < s->n; j++) {
			const struct point *p = &s->p[j];
			fprintf(df, "%.0f %.6g %.6g %.6g", p->x, p->y, p->lo, p->hi);
			if (ideal)
				fprintf(df, " %.6g", p->x * s->one);
			fputc('\n', df);
		}
		if (out_close(&d, dir, d.name) != 0)
			return -1;
		const struct point *top = &s->p[s->n - 1];
		char eff[64] = "";
		if (ideal && top->x > 1 && s->one > 0)
			snprintf(eff, sizeof eff, " (%.0f threads: %.0f%% of ideal)", top->x,
			         100 * top->y / (top->x * s->one));
		char stitle[320];
		snprintf(stitle, sizeof stitle, "%s%s%s%s%s%s", m->kernels.v[s->kernel],
		         sc->variants && s->variant[0] ? " " : "", sc->variants ? s->variant : "",
		         n > 1 ? "  " : "", n > 1 ? in[s->file].label : "", eff);
		const char *col = colours[s->kernel % NCOLOURS];
		fprintf(g, "%s  \"%s\" using 1:2:3:4 with yerrorlines lw 1.5 ",
		        first ? "" : ",\\\n", d.name);
		fprintf(g, "lc rgb \"%s\" dt %d pt %d ps 0.6 title ", col,
		        file_dash[s->file % NFILESTYLES], kernel_point(s->kernel, s->file));
		gp_str(g, stitle);
		if (ideal)
			fprintf(
			    g, ",\\\n  \"%s\" using 1:5 with lines lw 1 lc rgb \"%s\" dt 2 notitle",
			    d.name, col);
		first = false;
	}
	fputs("\n", g);
	return 0;
}

/* One size panel: per kernel and file the median (95% CI) against bytes
 * per call, log x, the cache sizes and break-even points marked. */
static int panel_script(FILE *g, const struct mem_plot *m, size_t pi,
                        const struct pb_plot_input *in, size_t n, const struct pb_plot_opts *o,
                        const char *dir, size_t *ndata)
{
	const struct panel *pa = &m->panels[pi];
	fprintf(g, "\n# panel %zu: %s, %s\n", pi + 1, pa->title, pa->state);
	fputs("unset arrow; unset label; unset logscale; unset x2tics;"
	      "set autoscale\n",
	      g);
	/* Raised above the top axis's cache names. */
	/* The cache names (top axis, two lines each) sit in a wider top
	 * margin, the panel title above them: gnuplot does not make
	 * room for two-line tic labels itself. */
	fprintf(g, "set tmargin 6\nset title \"%s, %s (%s)%s\" offset 0,1.8\n", pa->title,
	        pa->state, state_text(pa->state), m->threads ? ", 1 thread" : "");
	double lo = pa->xmin, hi = pa->xmax;
	if (hi <= lo)
		hi = lo * 2;
	fprintf(g, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.15, hi * 1.15);
	size_tics(g, lo, hi);
	if (higher_is_better(o->unit))
		fputs("set yrange [0:*]\n", g);
	else
		fputs("set logscale y 10\n", g);
	fputs("set ylabel ", g);
	gp_str(g, unit_axis(o->unit));
	fputc('\n', g);
	char off[256];
	cache_marks(g, in[0].file, lo / 1.15, hi * 1.15, off, sizeof off);
	size_t marks = breakeven_marks(g, in[0].file, pa->op, pa->state, lo, hi);
	char xl[512];
	snprintf(xl, sizeof xl, "bytes per call (log scale)%s%s%s%s%s",
	         marks ? ";  \xe2\x96\xb2 break-even: where the policy of " : "",
	         marks ? in[0].label : "", marks ? " switches kernel" : "",
	         off[0] ? "\nbeyond the sizes measured: " : "", off);
	fputs("set xlabel ", g);
	gp_str(g, xl);
	fputc('\n', g);
	/* Below the plot, never over a curve; "height" keeps it clear of
	 * the x label (gnuplot counts one line of it). */
	fprintf(g, "set key below Left reverse samplen 3 width 2 height %.1f font \",9\"\n",
	        off[0] ? 2.5 : 1.5);
	fputs("plot \\\n", g);
	bool first = true;
	for (size_t si = 0; si < m->nseries; si++) {
		const struct series *s = &m->series[si];
		if (s->panel != pi || s->n == 0)
			continue;
		struct outfile d;
		FILE *df = data_open(&d, ndata);
		fputs("# bytes value lo hi\n", df);
		for (size_t j = 0; j < s->n; j++)
			fprintf(df, "%.0f %.6g %.6g %.6g\n", s->p[j].x, s->p[j].y, s->p[j].lo,
			        s->p[j].hi);
		if (out_close(&d, dir, d.name) != 0)
			return -1;
		char title[256];
		snprintf(title, sizeof title, "%s%s%s%s%s", m->kernels.v[s->kernel],
		         pa->variants && s->variant[0] ? " " : "", pa->variants ? s->variant : "",
		         n > 1 ? "  " : "", n > 1 ? in[s->file].label : "");
		const char *colour = colours[s->kernel % NCOLOURS];
		if (o->bands) {
			/* the interval as a band under the line, drawn first */
			fprintf(g,
			        "%s  \"%s\" using 1:3:4 with filledcurves fc rgb \"%s\" "
			        "fs transparent solid 0.2 noborder notitle,\\\n",
			        first ? "" : ",\\\n", d.name, colour);
			fprintf(g, "  \"%s\" using 1:2 with linespoints lw 1.5 ", d.name);
		} else
			fprintf(g, "%s  \"%s\" using 1:2:3:4 with yerrorlines lw 1.5 ",
			        first ? "" : ",\\\n", d.name);
		fprintf(g, "lc rgb \"%s\" dt %d pt %d ps 0.5 title ", colour,
		        file_dash[s->file % NFILESTYLES], kernel_point(s->kernel, s->file));
		gp_str(g, title);
		first = false;
	}
	fputs("\n", g);
	return 0;
}

/* One alignment heat map: a grid's medians by destination offset (x) and
 * kernel (y). */
static int grid_script(FILE *g, const struct mem_plot *m, size_t gi, const struct pb_plot_input *in,
                       size_t n, const struct pb_plot_opts *o, const char *dir, size_t *ndata)
{
	const struct grid *gr = &m->grids[gi];
	/* Offsets (x) and kernels (y) of this grid, in order. */
	long long *offs = NULL;
	size_t noffs = 0, capoffs = 0;
	size_t *ks = NULL, nks = 0, capks = 0;
	for (size_t i = 0; i < gr->n; i++) {
		ADD_UNIQUE(offs, noffs, capoffs, gr->c[i].dst);
		ADD_UNIQUE(ks, nks, capks, gr->c[i].kernel);
	}
	for (size_t i = 1; i < noffs; i++)
		for (size_t j = i; j > 0 && offs[j - 1] > offs[j]; j--) {
			long long t = offs[j];
			offs[j] = offs[j - 1];
			offs[j - 1] = t;
		}
	struct outfile d;
	FILE *df = data_open(&d, ndata);
	fputs("# offset_index kernel_index value\n", df);
	for (size_t ki = 0; ki < nks; ki++) {
		for (size_t oi = 0; oi < noffs; oi++) {
			double y = NAN;
			for (size_t i = 0; i < gr->n; i++)
				if (gr->c[i].kernel == ks[ki] && gr->c[i].dst == offs[oi]) {
					y = gr->c[i].y;
					break;
				}
			if (isfinite(y))
				fprintf(df, "%zu %zu %.6g\n", oi, ki, y);
			else
				fprintf(df, "%zu %zu NaN\n", oi, ki);
		}
		fputc('\n', df);
	}
	if (out_close(&d, dir, d.name) != 0) {
		free(offs);
		free(ks);
		return -1;
	}
	char sz[32], title[256];
	pb_format_bytes(sz, sizeof sz, (double)gr->size, PB_BYTES_SHORT);
	snprintf(title, sizeof title, "%s %s, %s: median %s by destination offset%s%s", gr->op, sz,
	         gr->state, pb_unit_name(o->unit), n > 1 ? " - " : "",
	         n > 1 ? in[gr->file].label : "");
	fprintf(g, "\n# heat map %zu\n", gi + 1);
	fputs("unset arrow; unset label; unset logscale; unset x2tics;"
	      "set autoscale\n",
	      g);
	fputs("set tmargin\nset title ", g);
	gp_str(g, title);
	fputs(" offset 0,0\nset xlabel \"destination bytes from a page boundary\"\n", g);
	fputs("set ylabel \"\"\nset xrange [-0.5:*]\nset yrange [-0.5:*]\n", g);
	size_t step = noffs > 16 ? (noffs + 15) / 16 : 1;
	fputs("set xtics (", g);
	for (size_t oi = 0; oi < noffs; oi += step)
		fprintf(g, "%s\"%lld\" %zu", oi ? ", " : "", offs[oi], oi);
	fputs(")\nset ytics (", g);
	for (size_t ki = 0; ki < nks; ki++) {
		fputs(ki ? ", " : "", g);
		gp_str(g, m->kernels.v[ks[ki]]);
		fprintf(g, " %zu", ki);
	}
	fputs(")\n", g);
	fputs("set cblabel ", g);
	gp_str(g, pb_unit_name(o->unit));
	fputs("\nset palette defined (0 \"#440154\", 1 \"#3b528b\", 2 \"#21918c\", "
	      "3 \"#5ec962\", 4 \"#fde725\")\n",
	      g);
	fprintf(g, "plot \"%s\" using 1:2:3 with image notitle\n", d.name);
	fputs("unset cblabel\n", g);
	free(offs);
	free(ks);
	return 0;
}

/* A mem plot's panels in order: sizes, thread scaling, heat maps, replays. */
/* Whether the next panel (counted in *k, from 0) is to be drawn: every one
 * when o->panel is 0, else only the o->panel-th. */
static bool want_panel(const struct pb_plot_opts *o, size_t *k)
{
	return ++*k == o->panel || o->panel == 0;
}

static int mem_script(FILE *g, struct mem_plot *m, const struct pb_plot_input *in, size_t n,
                      const struct pb_plot_opts *o, const char *dir, size_t *ndata)
{
	/* o->panel: the k-th of every panel in this order, alone */
	size_t k = 0;
	for (size_t pi = 0; pi < m->npanels; pi++)
		if (want_panel(o, &k) && panel_script(g, m, pi, in, n, o, dir, ndata) != 0)
			return -1;
	for (size_t si = 0; si < m->nscalings; si++)
		if (want_panel(o, &k) && scaling_script(g, m, si, in, n, o, dir, ndata) != 0)
			return -1;
	for (size_t gi = 0; gi < m->ngrids; gi++)
		if (want_panel(o, &k) && grid_script(g, m, gi, in, n, o, dir, ndata) != 0)
			return -1;
	for (size_t ri = 0; ri < m->nreplays; ri++)
		if (want_panel(o, &k) &&
		    replay_script(g, m, &m->replays[ri], in, n, o, dir, ndata) != 0)
			return -1;
	return 0;
}

/* ---- cmd ------------------------------------------------------------ */

/* s cut to at most max bytes, "..." at the end when cut (max >= 4). */
static void cut_end(char *s, size_t max)
{
	if (strlen(s) > max)
		strcpy(s + max - 3, "...");
}

/* t[0] and t[1] cut to at most max bytes each, keeping the part where
 * they differ (pb_results_distinct_labels) when both have one. */
static void fit_pair(char *t[2], size_t max)
{
	if (strlen(t[0]) <= max && strlen(t[1]) <= max)
		return;
	if (!*t[0] || !*t[1] || !strcmp(t[0], t[1])) {
		cut_end(t[0], max);
		cut_end(t[1], max);
		return;
	}
	char *out[2];
	pb_results_distinct_labels(t, 2, max, out);
	for (int s = 0; s < 2; s++) {
		free(t[s]);
		t[s] = out[s];
	}
}

/* What key a records that key b does not: its env entries not in b's,
 * space-separated, then "in DIR" when the working directories differ
 * (null: primbench's own, "."). "" when nothing. */
static char *cmd_own_text(const struct pb_key *a, const struct pb_key *b)
{
	char *s = pb_key_array_minus_text(a, b, "env");
	const char *ca = pb_field_str(a, "cwd"), *cb = pb_field_str(b, "cwd");
	if (strcmp(ca ? ca : ".", cb ? cb : ".")) {
		char *t = pb_xasprintf("%sin %s", *s ? ", " : "", ca ? ca : ".");
		pb_xappend(&s, t);
		free(t);
	}
	return s;
}

/* The fields of key a other than "side" that differ from key b's, as
 * "field=value ..." (a field b lacks included). "" when none. */
static char *cmd_field_text(const struct pb_key *a, const struct pb_key *b)
{
	size_t nf;
	const char **names = pb_key_field_names(a, b, &nf);
	char *s = pb_xstrdup("");
	for (size_t i = 0; i < nf; i++) {
		const struct pb_field *va = pb_field_get(a, names[i]),
		                      *vb = pb_field_get(b, names[i]);
		if (!strcmp(names[i], "side") || (va && vb && pb_field_equal(va, vb)))
			continue;
		char *t = pb_field_text(va);
		char *item = pb_xasprintf("%s%s=%s", *s ? " " : "", names[i], t);
		pb_xappend(&s, item);
		free(item);
		free(t);
	}
	free(names);
	return s;
}

/* "CMD" or "CMD (EXTRA)". */
static char *cmd_label_of(const char *cmd, const char *extra)
{
	return *extra ? pb_xasprintf("%s (%s)", cmd, extra) : pb_xstrdup(cmd);
}

#define CMD_LABEL_MIN_CMD 24 /* bytes of the command kept beside a long EXTRA */

/* The bytes a label of at most max leaves the command beside an EXTRA
 * of extra bytes (0: none, no parentheses). */
static size_t cmd_room(size_t extra, size_t max)
{
	return extra == 0                            ? max
	       : extra + 3 + CMD_LABEL_MIN_CMD > max ? CMD_LABEL_MIN_CMD
	                                             : max - 3 - extra;
}

int pb_plot_cmd_labels(const struct pb_key *key_a, const struct pb_key *key_b, size_t max,
                       char *labels[2])
{
	const struct pb_key *key[2] = {key_a, key_b};
	labels[0] = labels[1] = NULL;
	if (max < 40)
		return pb_fail("cmd side labels: %zu bytes is too short (at least 40)", max);
	for (int s = 0; s < 2; s++)
		if (!pb_key_is_cmd(key[s]))
			return pb_fail("side %c: not a cmd case's key (suite \"cmd\" with an argv)",
			               "AB"[s]);
	char *cmd[2], *own[2];
	for (int s = 0; s < 2; s++) {
		cmd[s] = pb_key_cmd_text(key[s]);
		own[s] = cmd_own_text(key[s], key[!s]);
	}
	/* The command first, cut to what EXTRA leaves it (at least
	 * CMD_LABEL_MIN_CMD): one command, per side; two, to what the
	 * longer EXTRA leaves, keeping where they differ. Then EXTRA, to
	 * what the commands left. */
	size_t olen = strlen(own[0]) > strlen(own[1]) ? strlen(own[0]) : strlen(own[1]);
	if (!strcmp(cmd[0], cmd[1])) {
		for (int s = 0; s < 2; s++)
			cut_end(cmd[s], cmd_room(strlen(own[s]), max));
	} else {
		fit_pair(cmd, cmd_room(olen, max));
	}
	size_t clen = 0;
	for (int s = 0; s < 2; s++)
		if (*own[s] && strlen(cmd[s]) > clen)
			clen = strlen(cmd[s]);
	fit_pair(own, max - 3 - clen);
	for (int s = 0; s < 2; s++)
		labels[s] = cmd_label_of(cmd[s], own[s]);
	if (!strcmp(labels[0], labels[1])) {
		/* Nothing above tells them apart: the same key but for the side
		 * (an A/A run), or keys that differ elsewhere (env entries in
		 * another order, another field): those fields, whole. */
		char *field[2] = {cmd_field_text(key[0], key[1]), cmd_field_text(key[1], key[0])};
		free(labels[1]);
		if (!*field[0] && !*field[1]) {
			labels[1] = pb_xasprintf("%s (the same as A)", labels[0]);
		} else {
			free(labels[0]);
			for (int s = 0; s < 2; s++) {
				char *whole = pb_key_cmd_text(key[s]);
				labels[s] = cmd_label_of(whole, field[s]);
				free(whole);
			}
		}
		free(field[0]);
		free(field[1]);
	}
	for (int s = 0; s < 2; s++) {
		free(cmd[s]);
		free(own[s]);
	}
	return 0;
}

/* The figures a cmd plot can draw: the name cmd's --metric gives (ab.metric),
 * the fields of a run (docs/results-schema.md, "A cmd case": runs[])
 * summed, and the y axis's words. */
struct cmd_metric {
	const char *name;
	const char *field[2];
	const char *axis;
};
static const struct cmd_metric cmd_metrics[] = {
    {"real", {"real_ns", NULL}, "real (wall-clock) time"},
    {"user", {"user_ns", NULL}, "user (CPU) time"},
    {"sys", {"sys_ns", NULL}, "sys (kernel CPU) time"},
    {"user+sys", {"user_ns", "sys_ns"}, "user+sys (CPU) time"},
};

/* The metric of f's A/B verdict (ab.metric; "real" for a file without ab
 * or without ab.metric: cmd's default, and all there was before --metric)
 * into *m, with *named set when f has ab (a verdict on that metric). 0, or -1 with
 * pb_error() for a metric plot cannot draw. */
static int cmd_metric_of(const struct pb_results_file *f, const struct cmd_metric **m, bool *named)
{
	const char *name = pb_facts_str(&f->facts, "ab.metric");
	*named = pb_facts_has(&f->facts, "ab");
	if (!name)
		name = "real";
	for (size_t i = 0; i < sizeof cmd_metrics / sizeof cmd_metrics[0]; i++)
		if (!strcmp(cmd_metrics[i].name, name)) {
			*m = &cmd_metrics[i];
			return 0;
		}
	return pb_fail("%s: ab.metric '%s': plot draws real, user, sys or user+sys", f->path, name);
}

/* The one metric of the cmd files in[0..n): the A/B files' (which must
 * agree: they share the y axis), else real. 0 or -1 with pb_error(). */
static int cmd_metric_all(const struct pb_plot_input *in, size_t n, const struct cmd_metric **m)
{
	*m = &cmd_metrics[0];
	const char *from = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct cmd_metric *fm = NULL;
		bool named;
		if (cmd_metric_of(in[i].file, &fm, &named) != 0)
			return -1;
		if (!named)
			continue;
		if (from && fm != *m)
			return pb_fail("cmd results on different metrics cannot share a plot (%s: "
			               "%s, %s: %s)",
			               from, (*m)->name, in[i].label, fm->name);
		if (!from) {
			*m = fm;
			from = in[i].label;
		}
	}
	return 0;
}

/* The metric m of each counted run of case c of f, in the order they ran,
 * in ns, into a malloc'd *v (*nv of them). real: the samples; the others:
 * the case's runs[] without the warm-ups. 0, or -1 with pb_error() when
 * the file does not have them. */
static int cmd_values(const struct pb_results_file *f, const struct pb_results_case *c,
                      const struct cmd_metric *m, double **v, size_t *nv)
{
	*v = pb_xcalloc(c->n + 1, sizeof **v);
	*nv = 0;
	if (!strcmp(m->name, "real")) {
		memcpy(*v, c->v, c->n * sizeof **v);
		*nv = c->n;
		return 0;
	}
	size_t nruns;
	struct pb_key *runs = pb_facts_objects(&c->facts, "runs", &nruns);
	for (size_t j = 0; j < nruns; j++) {
		const struct pb_key *r = &runs[j];
		if (pb_field_true(r, "warmup"))
			continue;
		double x = 0;
		for (int k = 0; k < 2 && m->field[k]; k++) {
			double fv = pb_field_num(r, m->field[k]);
			if (isnan(fv) || fv < 0) {
				free(*v);
				*v = NULL;
				pb_keys_free(runs, nruns);
				return pb_fail("%s: case %zu (%s): runs[%zu] has no %s to draw the "
				               "metric '%s' with",
				               f->path, c->index + 1, c->group, j, m->field[k],
				               m->name);
			}
			x += fv;
		}
		if (*nv == c->n) { /* more counted runs than samples */
			free(*v);
			*v = NULL;
			pb_keys_free(runs, nruns);
			return pb_fail("%s: case %zu (%s): %zu samples but more counted runs",
			               f->path, c->index + 1, c->group, c->n);
		}
		(*v)[(*nv)++] = x;
	}
	pb_keys_free(runs, nruns);
	if (*nv != c->n) {
		free(*v);
		*v = NULL;
		return pb_fail("%s: case %zu (%s): %zu samples but %zu counted runs", f->path,
		               c->index + 1, c->group, c->n, *nv);
	}
	return 0;
}

/* A file's sides, one title line each: "\nPREFIXA: LABEL\nPREFIXB: LABEL"
 * (pb_plot_cmd_labels for an A/B file), appended to *s. */
static void cmd_side_lines(const struct pb_results_file *f, const char *prefix, char **s)
{
	const struct pb_key *key[2] = {NULL, NULL};
	for (size_t i = 0; i < f->ncases; i++) {
		const char *side = pb_field_str(&f->cases[i].fields, "side");
		int sd = side && !strcmp(side, "B");
		if (pb_key_is_cmd(&f->cases[i].fields) && !key[sd])
			key[sd] = &f->cases[i].fields;
	}
	char *label[2] = {NULL, NULL};
	if (!key[0] || !key[1] || pb_plot_cmd_labels(key[0], key[1], 80, label) != 0)
		for (int sd = 0; sd < 2; sd++)
			if (key[sd]) {
				label[sd] = pb_key_cmd_text(key[sd]);
				cut_end(label[sd], 80);
			}
	for (int sd = 0; sd < 2; sd++) {
		if (!label[sd])
			continue;
		char *line = pb_xasprintf("\n%s%c: %s", prefix, "AB"[sd], label[sd]);
		pb_xappend(s, line);
		free(line);
		free(label[sd]);
	}
}

/* The verdict of an A/B file f, one title line ("\nB/A (METRIC): ...")
 * appended to *s; nothing for a file without ab. */
static void cmd_verdict_line(const struct pb_results_file *f, const char *prefix, char **s)
{
	const struct pb_facts *d = &f->facts;
	double est = pb_facts_num(d, "ab.ratio.estimate");
	const char *metric = pb_facts_str(d, "ab.metric");
	char line[256];
	if (!pb_facts_has(d, "ab"))
		return;
	if (isnan(est)) {
		snprintf(line, sizeof line,
		         "\n%sB/A: no comparison (too few runs, or a figure of 0)", prefix);
	} else {
		double lo = pb_facts_num(d, "ab.ratio.ci_lo"),
		       hi = pb_facts_num(d, "ab.ratio.ci_hi");
		/* a missing bound: 0, as before (the verdict's rule sees none) */
		double l = isnan(lo) ? 0 : lo, h = isnan(hi) ? 0 : hi;
		/* --until-verdict decided by its own procedure; the 95%
		 * interval is for reference there (cmd says so). */
		const char *seq = pb_facts_str(d, "ab.until_verdict.verdict");
		char verdict[64];
		if (seq)
			snprintf(verdict, sizeof verdict, "until-verdict: %s", seq);
		else
			ab_verdict(f, est, l, h, verdict, sizeof verdict);
		if (!isnan(lo) && !isnan(hi)) {
			snprintf(line, sizeof line, "\n%sB/A (%s): %.3f, 95%% CI [%.3f, %.3f]: %s",
			         prefix, metric ? metric : "real", est, l, h, verdict);
		} else {
			/* The interval needs more runs (cmd says so too). */
			const char *order = pb_facts_str(d, "ab.order");
			size_t na = 0, nb = 0;
			for (const char *c = order ? order : ""; *c; c++)
				na += *c == 'A', nb += *c == 'B';
			snprintf(
			    line, sizeof line,
			    "\n%sB/A (%s): %.3f; no 95%% CI, no verdict: too few runs (%zu and "
			    "%zu)",
			    prefix, metric ? metric : "real", est, na, nb);
		}
	}
	pb_xappend(s, line);
}

/* What cmd_script's steps share: every case's values of the metric, their
 * scale, and the script's parts being written. */
struct cmd_fig {
	const struct pb_plot_input *in;
	size_t n;
	const struct cmd_metric *metric;
	double **val; /* [total]: each case's values, the files' cases in order */
	size_t *nval; /* [total] */
	size_t total; /* cases in all files */
	double scale; /* ns per unit: 1e9 (s) or 1e6 (ms) */
	const char *unit;
	FILE *g;       /* the script */
	FILE *tf, *pf; /* its x tics and its plot clauses, assembled after */
	const char *dir;
	size_t *ndata;
	size_t npos; /* cases placed so far (x = 1, 2, ...) */
};

/* Every case's values of the metric into fig->val, fig->nval, and their largest into *vmax; -1
 * (said). */
static int cmd_fig_values(struct cmd_fig *fig, double *vmax_out)
{
	const struct pb_plot_input *in = fig->in;
	size_t n = fig->n;
	size_t total = 0;
	for (size_t fi = 0; fi < n; fi++)
		total += in[fi].file->ncases;
	double **val = pb_xcalloc(total + 1, sizeof *val);
	size_t *nval = pb_xcalloc(total + 1, sizeof *nval);
	fig->total = total;
	fig->val = val;
	fig->nval = nval;
	int rc = 0;
	double vmax = 0;
	for (size_t fi = 0, k = 0; fi < n && rc == 0; fi++)
		for (size_t i = 0; i < in[fi].file->ncases && rc == 0; i++, k++) {
			rc = cmd_values(in[fi].file, &in[fi].file->cases[i], fig->metric, &val[k],
			                &nval[k]);
			for (size_t j = 0; rc == 0 && j < nval[k]; j++)
				vmax = fmax(vmax, val[k][j]);
		}
	*vmax_out = vmax;
	return rc;
}

/* Frees fig's values. */
static void cmd_fig_free(struct cmd_fig *fig)
{
	for (size_t k = 0; k < fig->total; k++)
		free(fig->val[k]);
	free(fig->val);
	free(fig->nval);
}

/* The subtitle: each file's sides and verdict, at most 4 files' (the rest counted). */
static char *cmd_subtitle(const struct pb_plot_input *in, size_t n)
{
	char *sub = pb_xstrdup("");
	/* Each file's sides and verdict, named by its label when there are
	 * several (the x tics say "A label", "B label"); at most 4 files. */
	for (size_t fi = 0; fi < n && fi < 4; fi++) {
		char *prefix = n > 1 ? pb_xasprintf("%s: ", in[fi].label) : pb_xstrdup("");
		cmd_side_lines(in[fi].file, prefix, &sub);
		cmd_verdict_line(in[fi].file, prefix, &sub);
		free(prefix);
	}
	if (n > 4) {
		char *more =
		    pb_xasprintf("\n(and %zu more files: their sides in the x tics)", n - 4);
		pb_xappend(&sub, more);
		free(more);
	}
	return sub;
}

/* Case k (c, of file fi): its x tic, its runs as dots and median as a bar (two data files), its
 * median's label; -1 (said). */
static int cmd_case(struct cmd_fig *fig, size_t fi, size_t k, const struct pb_results_case *c)
{
	const struct pb_plot_input *in = fig->in;
	size_t n = fig->n;
	double **val = fig->val;
	size_t *nval = fig->nval;
	double scale = fig->scale;
	const char *unit = fig->unit;
	FILE *g = fig->g, *tf = fig->tf, *pf = fig->pf;
	int rc;
	const char *side = pb_field_str(&c->fields, "side");
	double x = (double)++fig->npos;
	size_t npos = fig->npos;
	char tic[160];
	snprintf(tic, sizeof tic, "%s%s%s", side ? side : "?", n > 1 ? " " : "",
	         n > 1 ? in[fi].label : "");
	fputs(npos > 1 ? ", " : "", tf);
	gp_str(tf, tic);
	fprintf(tf, " %g", x);
	struct pb_summary sum;
	if (pb_summarize(val[k], nval[k], 0.95, &sum) != 0)
		return -1;
	char runs[32], med[32];
	snprintf(runs, sizeof runs, "%03zu.dat", (*fig->ndata)++);
	snprintf(med, sizeof med, "%03zu.dat", (*fig->ndata)++);
	struct outfile d;
	FILE *df = out_open(&d);
	fprintf(df, "# x %s_%s (metric %s)\n", fig->metric->name, unit, fig->metric->name);
	for (size_t j = 0; j < nval[k]; j++) {
		/* Runs in the order they ran, left to right: a
		 * drift or a slow first run shows as such. */
		double dx = nval[k] > 1 ? -0.3 + 0.6 * (double)j / (double)(nval[k] - 1) : 0;
		fprintf(df, "%.4f %.6g\n", x + dx, val[k][j] / scale);
	}
	if ((rc = out_close(&d, fig->dir, runs)) != 0)
		return rc;
	df = out_open(&d);
	fprintf(df, "# median\n%.4f %.6g\n%.4f %.6g\n", x - 0.35, sum.median / scale, x + 0.35,
	        sum.median / scale);
	if ((rc = out_close(&d, fig->dir, med)) != 0)
		return rc;
	const char *col = colours[(npos - 1) % NCOLOURS];
	fprintf(pf,
	        "%s  \"%s\" using 1:2 with points pt %d ps 0.8 lc rgb \"%s\", \\\n"
	        "  \"%s\" using 1:2 with lines lw 3 lc rgb \"black\"",
	        npos > 1 ? ",\\\n" : "", runs, file_point[fi % NFILESTYLES], col, med);
	char ml[64];
	snprintf(ml, sizeof ml, "%.4g %s", sum.median / scale, unit);
	fputs("\nset label ", g);
	gp_str(g, ml);
	fprintf(g, " at %g, %.6g offset 0,0.8 center font \",9\" front", x, sum.median / scale);
	return 0;
}

/* A cmd plot: every run of every side as a dot, its median as a bar, in the metric the verdict is
 * on. */
static int cmd_script(FILE *g, const struct pb_plot_input *in, size_t n, const char *dir,
                      size_t *ndata, char *subtitle, size_t sublen)
{
	/* The figure the verdict is on, drawn for every run. */
	struct cmd_fig fig = {.in = in, .n = n, .g = g, .dir = dir, .ndata = ndata};
	if (cmd_metric_all(in, n, &fig.metric) != 0)
		return -1;
	double vmax;
	if (cmd_fig_values(&fig, &vmax) != 0) {
		cmd_fig_free(&fig);
		return -1;
	}
	/* Scale: s when the longest run is over 10 s, else ms. */
	fig.scale = vmax > 10e9 ? 1e9 : 1e6;
	fig.unit = vmax > 10e9 ? "s" : "ms";

	fputs("\nunset arrow; unset label; unset logscale; set autoscale\n", g);
	fprintf(g, "set ylabel \"%s per run, %s\"\n", fig.metric->axis, fig.unit);
	fputs("set xlabel \"dots: the counted runs of each side in the order they ran, "
	      "left to right; bar: their median\"\n",
	      g);
	fputs("set yrange [0:*]\nset key off\nset grid ytics\n", g);
	char *sub = cmd_subtitle(in, n);
	struct outfile tics;
	fig.tf = out_open(&tics);
	struct outfile plot;
	fig.pf = out_open(&plot);
	int rc = 0;
	for (size_t fi = 0, k = 0; fi < n && rc == 0; fi++) {
		const struct pb_results_file *f = in[fi].file;
		for (size_t i = 0; i < f->ncases && rc == 0; i++, k++)
			rc = cmd_case(&fig, fi, k, &f->cases[i]);
	}
	fclose(fig.tf);
	fclose(fig.pf);
	if (rc == 0)
		fprintf(g, "\nset xrange [0.4:%g]\nset xtics (%s)\nplot \\\n%s\n",
		        (double)fig.npos + 0.6, tics.text, plot.text);
	snprintf(subtitle, sublen, "%s", sub);
	free(sub);
	free(tics.text);
	free(plot.text);
	cmd_fig_free(&fig);
	return rc;
}

/* ---- latency and map ------------------------------------------------ */

/* One line of a latency or map plot: a file's cases of one group (the
 * reader's: "latency 2M THP", "latency loaded memcpy/libc", "map
 * demand"), or for map one page size of it. */
struct lm_series {
	size_t file;
	char *name; /* the group, or for map "demand 2M THP" */
	bool loaded;
	struct point *p;
	size_t n, cap;
	double *extra; /* loaded: the load threads of each point */
};

struct lm_plot {
	struct lm_series *s;
	size_t n, cap;
	struct names names; /* distinct series names, their colour */
};

static void lm_free(struct lm_plot *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->s[i].name);
		free(m->s[i].p);
		free(m->s[i].extra);
	}
	free(m->s);
	for (size_t i = 0; i < m->names.n; i++)
		free(m->names.v[i]);
	free(m->names.v);
}

static struct lm_series *lm_series_for(struct lm_plot *m, size_t file, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->s[i].file == file && !strcmp(m->s[i].name, name))
			return &m->s[i];
	GROW(m->s, m->n, m->cap);
	struct lm_series *s = &m->s[m->n++];
	*s = (struct lm_series){.file = file, .name = pb_xstrdup(name)};
	name_index(&m->names, name);
	return s;
}

/* A case's median_derived member, NAN when missing. */
static double derived(const struct pb_results_case *c, const char *name)
{
	char path[128];
	snprintf(path, sizeof path, "median_derived.%s", name);
	return pb_facts_num(&c->facts, path);
}

/* The series of the latency (kind "latency") or map cases of every file.
 * latency: x the working set, y ns per load, bars min..max of the rounds
 * (the latency command's spread); loaded: x the load's GB/s. map: x the
 * threads, y GB/s, bars p10..p90 of the samples (mem map's spread). */
static int lm_collect(struct lm_plot *m, const struct pb_plot_input *in, size_t n, bool map)
{
	for (size_t fi = 0; fi < n; fi++) {
		const struct pb_results_file *f = in[fi].file;
		for (size_t i = 0; i < f->ncases; i++) {
			const struct pb_results_case *c = &f->cases[i];
			const char *suite = pb_field_str(&c->fields, "suite");
			if (!suite || strcmp(suite, map ? "map" : "latency"))
				continue;
			double ns_per = pb_file_ns_per_value(f, c->unit);
			if (!(ns_per > 0))
				return pb_fail("%s: a %s case is in %s, and the file has no "
				               "machine.timer.hz to convert it",
				               f->path, suite, c->unit);
			struct pb_summary s;
			if (pb_results_case_summary(c, 0.95, &s) != 0)
				return -1;
			char *group, *label;
			pb_key_name(&c->fields, &group, &label);
			free(label);
			long long size = 0, threads = 0, page = 0;
			struct point p;
			struct lm_series *ls;
			if (map) {
				const char *src = pb_field_str(&c->fields, "page_source");
				if (!pb_field_int(&c->fields, "threads", &threads) ||
				    !pb_field_int(&c->fields, "page_bytes", &page) || page <= 0) {
					free(group);
					continue;
				}
				char pg[32], name[160];
				pb_format_bytes(pg, sizeof pg, (double)page, PB_BYTES_EXACT);
				bool base = !src || !strcmp(src, "4K");
				snprintf(name, sizeof name, "%s %s%s%s", group + 4, pg,
				         base ? "" : " ", base ? "" : src);
				ls = lm_series_for(m, fi, name);
				double b = (double)page / ns_per; /* GB/s = b / ticks */
				p = (struct point){(double)threads, b / s.median, b / s.p90,
				                   b / s.p10};
			} else {
				if (!pb_field_int(&c->fields, "size_bytes", &size) || size <= 0) {
					free(group);
					continue;
				}
				double k = ns_per;
				long long load;
				bool loaded = pb_field_int(&c->fields, "load_threads", &load);
				ls = lm_series_for(m, fi, group);
				ls->loaded = loaded;
				p = (struct point){loaded ? derived(c, "load_gb_per_s")
				                          : (double)size,
				                   s.median * k, s.min * k, s.max * k};
				if (loaded) {
					ls->extra =
					    pb_xrealloc(ls->extra, (ls->n + 1) * sizeof *ls->extra);
					ls->extra[ls->n] = (double)load;
				}
			}
			free(group);
			if (!isfinite(p.x) || !isfinite(p.y))
				continue;
			GROW(ls->p, ls->n, ls->cap);
			ls->p[ls->n++] = p;
		}
	}
	if (m->n == 0)
		return pb_fail("%s: no %s case to plot", in[0].file->path, map ? "map" : "latency");
	for (size_t i = 0; i < m->n; i++)
		if (!m->s[i].loaded) /* loaded points keep their order: threads */
			qsort(m->s[i].p, m->s[i].n, sizeof *m->s[i].p, cmp_point);
	return 0;
}

/* A series' legend title: the file's label when there is one group, the
 * group when there is one file, else both. */
static void lm_title(FILE *g, const struct lm_series *s, const struct pb_plot_input *in, size_t n,
                     size_t ngroups)
{
	char t[320];
	if (n > 1 && ngroups > 1)
		snprintf(t, sizeof t, "%s: %s", in[s->file].label, s->name);
	else
		snprintf(t, sizeof t, "%s", n > 1 ? in[s->file].label : s->name);
	gp_str(g, t);
}

/* The series' data file: x y lo hi (and for loaded, threads). */
static int lm_data(const struct lm_series *s, const char *dir, size_t *ndata, char *name,
                   size_t len)
{
	struct outfile d;
	FILE *df = data_open(&d, ndata);
	snprintf(name, len, "%s", d.name);
	fprintf(df, "# %s\n# x y lo hi%s\n", s->name, s->loaded ? " load_threads" : "");
	for (size_t j = 0; j < s->n; j++) {
		fprintf(df, "%.6g %.6g %.6g %.6g", s->p[j].x, s->p[j].y, s->p[j].lo, s->p[j].hi);
		if (s->loaded)
			fprintf(df, " %.0f", s->extra[j]);
		fputc('\n', df);
	}
	return out_close(&d, dir, d.name);
}

/* The plot command of the series of one panel (loaded or not). */
static int lm_plot_lines(FILE *g, struct lm_plot *m, const struct pb_plot_input *in, size_t n,
                         bool loaded, const char *dir, size_t *ndata, bool labels)
{
	size_t ngroups = 0;
	for (size_t i = 0; i < m->names.n; i++)
		for (size_t j = 0; j < m->n; j++)
			if (!strcmp(m->s[j].name, m->names.v[i]) && m->s[j].loaded == loaded) {
				ngroups++;
				break;
			}
	fputs("plot \\\n", g);
	bool first = true;
	for (size_t i = 0; i < m->n; i++) {
		const struct lm_series *s = &m->s[i];
		if (s->loaded != loaded)
			continue;
		char data[32];
		if (lm_data(s, dir, ndata, data, sizeof data) != 0)
			return -1;
		const char *col = colours[name_index(&m->names, s->name) % NCOLOURS];
		fprintf(g,
		        "%s  \"%s\" using 1:2:3:4 with yerrorlines lw 1.5 pt %d ps 0.7 dt %d "
		        "lc rgb \"%s\" title ",
		        first ? "" : ", \\\n", data, kernel_point(0, s->file),
		        file_dash[s->file % NFILESTYLES], col);
		lm_title(g, s, in, n, ngroups);
		if (labels)
			fprintf(g,
			        ", \\\n  \"%s\" using 1:2:(sprintf(\"%%d\", $5)) with labels "
			        "offset 1,0.7 left font \",10\" tc rgb \"%s\" notitle",
			        data, col);
		first = false;
	}
	fputc('\n', g);
	return 0;
}

/* The latency plot: the curve panel (x working set, log2; y ns per load,
 * log; the first file's L1d, L2 and LLC as dotted lines labelled with
 * size and source), and a loaded-latency panel (ns per load against the
 * load's GB/s, each point labelled with its load threads) when there are
 * loaded cases. */
static int latency_script(FILE *g, struct lm_plot *m, const struct pb_plot_input *in, size_t n,
                          const char *dir, size_t *ndata, size_t panel)
{
	double lo = INFINITY, hi = 0;
	bool curve = false, loaded = false;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->s[i].n; j++) {
			loaded |= m->s[i].loaded;
			if (m->s[i].loaded)
				continue;
			curve = true;
			lo = fmin(lo, m->s[i].p[j].x);
			hi = fmax(hi, m->s[i].p[j].x);
		}
	/* panel: 0 both; else the curve (1, when there is one) or the loaded one */
	bool draw_curve = curve && panel <= 1;
	bool draw_loaded = loaded && (panel == 0 || panel == (curve ? 2u : 1u));
	if (draw_curve) {
		char off[256];
		if (hi <= lo)
			hi = lo * 2;
		fputs("\n# panel: the latency curve\n"
		      "unset arrow; unset label; unset logscale; unset x2tics; set autoscale\n",
		      g);
		fputs("set tmargin 6\nset title \"load-to-use latency: the pointer chase over "
		      "the working set\" offset 0,1.8\n",
		      g);
		fprintf(g, "set logscale x 2\nset xrange [%g:%g]\n", lo / 1.15, hi * 1.15);
		size_tics(g, lo, hi);
		fputs("set logscale y 10\nset key top left\nset bmargin 5\n", g);
		cache_marks(g, in[0].file, lo / 1.15, hi * 1.15, off, sizeof off);
		char xl[400];
		snprintf(xl, sizeof xl, "working set, bytes (log2)%s%s",
		         off[0] ? "; outside the curve: " : "", off);
		fputs("set xlabel ", g);
		gp_str(g, xl);
		fputs("\nset ylabel \"ns per load (median; bars: min..max of the rounds; log)\"\n",
		      g);
		if (lm_plot_lines(g, m, in, n, false, dir, ndata, false) != 0)
			return -1;
	}
	if (draw_loaded) {
		fputs("\n# panel: loaded latency\n"
		      "unset arrow; unset label; unset logscale; unset x2tics; unset xtics; "
		      "set xtics; set autoscale\n",
		      g);
		fputs("set tmargin 4\nset bmargin 4\nset offsets graph 0.04, graph 0.04, 0, 0\n"
		      "set title \"loaded latency: the chase against the load's "
		      "bandwidth (labels: load threads)\"\n",
		      g);
		fputs("set xlabel \"load GB/s, 10^9 bytes/s (all load threads)\"\n"
		      "set ylabel \"ns per load (median; bars: min..max of the rounds)\"\n"
		      "set xrange [0:*]\nset yrange [0:*]\nset key top left\n",
		      g);
		if (lm_plot_lines(g, m, in, n, true, dir, ndata, true) != 0)
			return -1;
	}
	return 0;
}

/* The map plot: GB/s per page size (and fault mode) against threads, or
 * when every case ran on one thread count, a bar per page size and file. */
static int map_script(FILE *g, struct lm_plot *m, const struct pb_plot_input *in, size_t n,
                      const char *dir, size_t *ndata)
{
	double tmin = INFINITY, tmax = 0;
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < m->s[i].n; j++) {
			tmin = fmin(tmin, m->s[i].p[j].x);
			tmax = fmax(tmax, m->s[i].p[j].x);
		}
	fputs("\n# panel: mem map\n"
	      "unset arrow; unset label; unset logscale; set autoscale\n",
	      g);
	fputs("set ylabel \"GB/s, 10^9 bytes/s mapped and faulted (median; bars: p10..p90)\"\n"
	      "set yrange [0:*]\nset key top left\n",
	      g);
	if (tmax > tmin) {
		fputs("set title \"the kernel's page clearing seen from user space: GB/s "
		      "against threads\"\n",
		      g);
		fprintf(g,
		        "set xlabel \"threads, each faulting its own slice\"\n"
		        "set xrange [%g:%g]\nset xtics 1\n",
		        tmin - 0.5, tmax + 0.5);
		return lm_plot_lines(g, m, in, n, false, dir, ndata, false);
	}
	/* One thread count: a bar per (series name, file). */
	size_t nn = m->names.n;
	double w = 0.8 / (double)n;
	fprintf(g,
	        "set title \"the kernel's page clearing seen from user space: GB/s on "
	        "%g thread%s\"\n",
	        tmin, tmin == 1 ? "" : "s");
	fputs("set xlabel \"page size (source) and how the region was faulted\"\n"
	      "set style fill solid 0.6 border -1\n",
	      g);
	fprintf(g, "set xrange [0.4:%g]\nset xtics (", (double)nn + 0.6);
	for (size_t i = 0; i < nn; i++) {
		fputs(i ? ", " : "", g);
		gp_str(g, m->names.v[i]);
		fprintf(g, " %zu", i + 1);
	}
	fputs(")\nplot \\\n", g);
	for (size_t fi = 0; fi < n; fi++) {
		struct outfile d;
		FILE *df = data_open(&d, ndata);
		char name[32];
		snprintf(name, sizeof name, "%s", d.name);
		fputs("# x y lo hi\n", df);
		for (size_t i = 0; i < m->n; i++) {
			const struct lm_series *s = &m->s[i];
			if (s->file != fi || !s->n)
				continue;
			double x = (double)(name_index(&m->names, s->name) + 1) - 0.4 +
			           w * ((double)fi + 0.5);
			fprintf(df, "%.4f %.6g %.6g %.6g\n", x, s->p[0].y, s->p[0].lo, s->p[0].hi);
		}
		if (out_close(&d, dir, name) != 0)
			return -1;
		fprintf(g, "%s  \"%s\" using 1:2:(%g) with boxes lc rgb \"%s\" title ",
		        fi ? ", \\\n" : "", name, w, colours[fi % NCOLOURS]);
		gp_str(g, in[fi].label);
		fprintf(g,
		        ", \\\n  \"%s\" using 1:2:3:4 with yerrorbars pt 7 ps 0 lc rgb \"black\" "
		        "notitle",
		        name);
	}
	fputc('\n', g);
	return 0;
}

/* ---- the script ------------------------------------------------------ */

/* The plot a kind of case is drawn in: "mem", "cmd", "latency", "map";
 * NULL for CASE_OTHER. */
static const char *kind_plot(enum case_kind k)
{
	return k == CASE_CMD       ? "cmd"
	       : k == CASE_LATENCY ? "latency"
	       : k == CASE_MAP     ? "map"
	       : k == CASE_OTHER   ? NULL
	                           : "mem";
}

/* "mem" when f has mem cases to draw (sweeps, grids, replays), "cmd"
 * when it has cmd cases, "latency" or "map" for those suites' (the first
 * kind found), else NULL with the first other suite in *other. */
static const char *suite_of(const struct pb_results_file *f, const char **other)
{
	const char *suite = NULL;
	*other = NULL;
	for (size_t i = 0; i < f->ncases; i++) {
		enum case_kind k = case_kind(&f->cases[i].fields);
		if (k != CASE_OTHER)
			suite = suite ? suite : kind_plot(k);
		else if (!*other) {
			const char *s = pb_field_str(&f->cases[i].fields, "suite");
			*other = s ? s : "?";
		}
	}
	return suite;
}

char *pb_plot_note(const struct pb_results_file *f)
{
	const char *other, *kind = suite_of(f, &other);
	struct names suites = {0};
	size_t *count = NULL, zero = 0;
	for (size_t i = 0; i < f->ncases; i++) {
		const struct pb_key *key = &f->cases[i].fields;
		enum case_kind k = case_kind(key);
		long long size;
		if (kind && k != CASE_OTHER && !strcmp(kind_plot(k), kind)) {
			if (k == CASE_SWEEP && pb_field_int(key, "size_bytes", &size) &&
			    size <= 0 && !in_grid(f, i))
				zero++;
			continue;
		}
		const char *s = pb_field_str(key, "suite");
		size_t had = suites.n, j = name_index(&suites, s ? s : "?");
		count = pb_xrealloc(count, suites.cap * sizeof *count);
		if (suites.n > had)
			count[j] = 0;
		count[j]++;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *t = open_memstream(&text, &len);
	if (!t)
		abort();
	for (size_t j = 0; j < suites.n; j++)
		fprintf(t, "%s%zu %s case%s", j ? ", " : "", count[j], suites.v[j],
		        count[j] == 1 ? "" : "s");
	if (suites.n)
		fputs(" (plot draws mem, kernel, cmd, latency and map results)", t);
	if (zero)
		fprintf(t, "%s%zu mem case%s of size 0 (a log axis has no 0)", suites.n ? "; " : "",
		        zero, zero == 1 ? "" : "s");
	fclose(t);
	char *note = NULL;
	if (len && asprintf(&note, "%s: not drawn: %s", f->path, text) < 0)
		note = NULL;
	free(text);
	for (size_t j = 0; j < suites.n; j++)
		free(suites.v[j]);
	free(suites.v);
	free(count);
	return note;
}

int pb_plot_check(const struct pb_plot_input *in, size_t n)
{
	if (n == 0)
		return pb_fail("no result file to plot");
	const char *kind = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *other;
		const char *s = suite_of(in[i].file, &other);
		if (!s)
			return pb_fail("%s: no mem or cmd cases to plot%s%s%s", in[i].label,
			               other ? " (suite '" : "", other ? other : "",
			               other ? "')" : "");
		if (kind && strcmp(kind, s))
			return pb_fail("%s and %s results cannot share a plot (%s, %s)", kind, s,
			               in[0].label, in[i].label);
		kind = s;
	}
	const struct cmd_metric *m;
	if (!strcmp(kind, "cmd") && cmd_metric_all(in, n, &m) != 0)
		return -1;
	return 0;
}

/* What pb_plot_write's steps share: the input, the kind of plot, its
 * collected series and its layout. */
struct plot_job {
	const struct pb_plot_input *in;
	size_t n;
	const struct pb_plot_opts *o;
	const char *dir;
	const char *kind; /* the first file's suite: mem, latency, map or cmd */
	bool mem, lat, map;
	struct mem_plot m;
	struct lm_plot lm;
	size_t panels, cols, rows;
};

/* A mem, latency or map plot's series collected, with its panels and columns; -1 (said, freed). */
static int plot_collect(struct plot_job *j)
{
	const struct pb_plot_input *in = j->in;
	size_t n = j->n;
	size_t panels = 1, cols = 1;
	if (j->lat || j->map) {
		if (lm_collect(&j->lm, in, n, j->map) != 0) {
			lm_free(&j->lm);
			return -1;
		}
		bool curve = false, loaded = false;
		for (size_t i = 0; i < j->lm.n; i++) {
			curve |= !j->lm.s[i].loaded;
			loaded |= j->lm.s[i].loaded;
		}
		panels = (size_t)curve + (size_t)loaded;
	}
	if (j->mem) {
		struct mem_plot *m = &j->m;
		if (mem_collect(m, in, n, j->o->unit) != 0) {
			mem_free(m);
			return -1;
		}
		panels = m->npanels + m->nscalings + m->ngrids + m->nreplays;
		if (panels == 0) {
			mem_free(m);
			return pb_fail("%s: no mem case with a size above 0 to plot",
			               in[0].file->path);
		}
		cols = panels > 1 ? 2 : 1;
	}
	if (j->o->panel > panels) {
		mem_free(&j->m);
		lm_free(&j->lm);
		return pb_fail("panel %zu of %zu", j->o->panel, panels);
	}
	if (j->o->panel > 0)
		panels = cols = 1;
	j->panels = panels;
	j->cols = cols;
	j->rows = (panels + cols - 1) / cols;
	return 0;
}

/* The script's head: the terminal (svg or png, sized by the layout), its output and grid. */
static void plot_head(FILE *g, const struct plot_job *j, bool svg)
{
	const char *out = j->o->output;
	size_t cols = j->cols, rows = j->rows;
	fputs("# primbench plot: gnuplot script (run it in this directory:\n"
	      "# gnuplot " PB_PLOT_SCRIPT ")\n",
	      g);
	unsigned width = cols == 1 ? 900 : 1400, height = (unsigned)(rows * 580 + 60);
	if (svg)
		fprintf(g,
		        "set terminal svg size %u,%u dynamic noenhanced font \"sans,11\" "
		        "background \"#ffffff\"\n",
		        width, height);
	else
		fprintf(g,
		        "set terminal pngcairo size %u,%u noenhanced font \"sans,10\" "
		        "background \"#ffffff\"\n",
		        width, height);
	fputs("set encoding utf8\nset output ", g);
	gp_path(g, out);
	fputs("\nset grid xtics ytics lc rgb \"#dddddd\"\nset border lc rgb \"#444444\"\n", g);
}

/* The kind a figure's title names: j->kind, but for a mem plot whose
 * files hold kernel cases (`primbench kernel`) "kernel" when they hold
 * nothing else drawn, "mem and kernel" with mem cases too. */
static const char *title_kind(const struct plot_job *j)
{
	if (!j->mem)
		return j->kind;
	bool kernel = false, mem = false;
	for (size_t i = 0; i < j->n; i++)
		for (size_t c = 0; c < j->in[i].file->ncases; c++) {
			enum case_kind k = case_kind(&j->in[i].file->cases[c].fields);
			kernel |= k == CASE_KERNEL;
			mem |= k == CASE_SWEEP || k == CASE_REPLAY;
		}
	return !kernel ? j->kind : mem ? "mem and kernel" : "kernel";
}

/* The figure's title: --title, else the kind, the files' labels, the first file's CPU and start. */
static void plot_title(const struct plot_job *j, char *title, size_t len)
{
	const struct pb_plot_input *in = j->in;
	size_t n = j->n;
	size_t pos = 0;
	if (j->o->title) {
		snprintf(title, len, "%s", j->o->title);
	} else {
		pos += (size_t)snprintf(title, len, "primbench %s results:", title_kind(j));
		for (size_t i = 0; i < n && pos < len; i++)
			pos +=
			    (size_t)snprintf(title + pos, len - pos, "%s%s",
			                     i ? (i + 1 == n ? " vs " : ", ") : " ", in[i].label);
		const char *brand = in[0].file->mach.brand;
		const char *when = in[0].file->started_at;
		if (brand && pos < len)
			snprintf(title + pos, len - pos, "\n%s%s%s", brand, when ? ", " : "",
			         when ? when : "");
	}
}

/* The script's body under title: the mem, latency or map panels in a multiplot, or the cmd figure.
 */
static int plot_body(FILE *g, struct plot_job *j, const char *title)
{
	const struct pb_plot_input *in = j->in;
	size_t n = j->n;
	size_t ndata = 0;
	int rc;
	/* one panel alone: its own title only, unless --title */
	bool alone = j->o->panel > 0 && !j->o->title;
	if (j->mem) {
		fprintf(g, "set multiplot layout %zu,%zu", j->rows, j->cols);
		if (!alone) {
			fputs(" title ", g);
			gp_str(g, title);
			fputs(" font \",13\"", g);
		}
		fputc('\n', g);
		rc = mem_script(g, &j->m, in, n, j->o, j->dir, &ndata);
		fputs("unset multiplot\n", g);
	} else if (j->lat || j->map) {
		fprintf(g, "set multiplot layout %zu,1", j->rows);
		if (!alone) {
			fputs(" title ", g);
			gp_str(g, title);
			fputs(" font \",13\"", g);
		}
		fputc('\n', g);
		rc = j->lat ? latency_script(g, &j->lm, in, n, j->dir, &ndata, j->o->panel)
		            : map_script(g, &j->lm, in, n, j->dir, &ndata);
		fputs("unset multiplot\n", g);
	} else {
		char sub[768];
		struct outfile body;
		FILE *bf = out_open(&body);
		rc = cmd_script(bf, in, n, j->dir, &ndata, sub, sizeof sub);
		fclose(bf);
		if (rc == 0) {
			char full[1800];
			snprintf(full, sizeof full, "%s%s", title, sub);
			fputs("set title ", g);
			gp_str(g, full);
			fputs(" font \",12\"\n", g);
			fwrite(body.text, 1, body.len, g);
		}
		free(body.text);
	}
	return rc;
}

int pb_plot_write(const struct pb_plot_input *in, size_t n, const struct pb_plot_opts *o,
                  const char *dir)
{
	const char *out = o->output;
	size_t olen = strlen(out);
	bool svg = olen > 4 && !strcmp(out + olen - 4, ".svg");
	bool png = olen > 4 && !strcmp(out + olen - 4, ".png");
	if (!svg && !png)
		return pb_fail("output '%s' must end in .svg or .png", out);
	if (pb_plot_check(in, n) != 0)
		return -1;
	const char *other, *kind = suite_of(in[0].file, &other);
	struct plot_job j = {.in = in, .n = n, .o = o, .dir = dir, .kind = kind};
	j.mem = !strcmp(kind, "mem");
	j.lat = !strcmp(kind, "latency");
	j.map = !strcmp(kind, "map");
	if (plot_collect(&j) != 0)
		return -1;

	struct outfile s;
	FILE *g = out_open(&s);
	plot_head(g, &j, svg);
	char title[1024];
	plot_title(&j, title, sizeof title);
	int rc = plot_body(g, &j, title);
	mem_free(&j.m);
	lm_free(&j.lm);
	if (rc != 0) {
		fclose(g);
		free(s.text);
		return -1;
	}
	fputs("unset output\n", g);
	return out_close(&s, dir, PB_PLOT_SCRIPT);
}

/* ---- the panels, listed ------------------------------------------------ */

/* Appends ", " or " and " joined names to *t (pb_xasprintf'd). */
static void names_join(char **t, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *x = pb_xasprintf("%s%s%s", *t,
		                       i == 0       ? ""
		                       : i + 1 == n ? " and "
		                                    : ", ",
		                       v[i]);
		free(*t);
		*t = x;
	}
}

/* The kernels (with their variants) of the series v[0..n) in panel pi, as
 * words, and the files when there are several. */
static char *series_words(const struct mem_plot *m, const struct series *v, size_t nv, size_t pi,
                          const struct pb_plot_input *in, size_t n)
{
	const char **names = pb_xcalloc(nv + 1, sizeof *names);
	char **own = pb_xcalloc(nv + 1, sizeof *own);
	size_t k = 0;
	for (size_t i = 0; i < nv; i++) {
		if (v[i].panel != pi || v[i].n == 0)
			continue;
		char *name = pb_xasprintf("%s%s%s", m->kernels.v[v[i].kernel],
		                          v[i].variant[0] ? " " : "", v[i].variant);
		size_t j = 0;
		while (j < k && strcmp(names[j], name))
			j++;
		if (j < k) {
			free(name);
			continue;
		}
		own[k] = name;
		names[k++] = name;
	}
	char *t = pb_xasprintf("one line per kernel (%zu): ", k);
	names_join(&t, names, k);
	for (size_t i = 0; i < k; i++)
		free(own[i]);
	free(own);
	free(names);
	if (n > 1) {
		const char **labels = pb_xcalloc(n, sizeof *labels);
		for (size_t i = 0; i < n; i++)
			labels[i] = in[i].label;
		char *x = pb_xasprintf("%s; a dash style per file: ", t);
		free(t);
		names_join(&x, labels, n);
		free(labels);
		t = x;
	}
	return t;
}

static void panel_add(struct pb_plot_panel **out, size_t *count, size_t *cap, char *title,
                      char *alt)
{
	GROW(*out, *count, *cap);
	(*out)[(*count)++] = (struct pb_plot_panel){title, alt};
}

/* What panel_script marks on a size panel of f, in words: the cache sizes
 * drawn as dotted lines and the break-even points drawn as triangles
 * ("; dotted vertical lines mark the cache sizes (L1d 32K, L2 1M);
 * triangles at the bottom mark the break-even points"), or "" (malloc'd). */
static char *drawn_marks(const struct pb_results_file *f, const struct panel *pa)
{
	double lo = pa->xmin, hi = pa->xmax;
	if (hi <= lo)
		hi = lo * 2;
	struct outfile sink;
	FILE *g = out_open(&sink);
	char off[256];
	cache_marks(g, f, lo / 1.15, hi * 1.15, off, sizeof off);
	fflush(g);
	/* the cache lines drawn: their x2tics labels, "L1d 32K\n(sysfs)" */
	char *caches = pb_xstrdup("");
	size_t ncache = 0;
	for (const char *p = sink.text; p && (p = strstr(p, "x2tics")) != NULL; p++) {
		const char *q = strstr(p, "(\"");
		const char *e = q ? strstr(q + 2, "\\n") : NULL;
		if (!q || !e)
			break;
		char *t =
		    pb_xasprintf("%s%s%.*s", caches, ncache ? ", " : "", (int)(e - q - 2), q + 2);
		free(caches);
		caches = t;
		ncache++;
	}
	size_t nbe = breakeven_marks(g, f, pa->op, pa->state, lo, hi);
	fclose(g);
	free(sink.text);
	char *t = pb_xasprintf(
	    "%s%s%s%s", ncache ? "; dotted vertical lines mark the cache sizes (" : "", caches,
	    ncache ? ")" : "", nbe ? "; triangles at the bottom mark the break-even points" : "");
	free(caches);
	return t;
}

static void mem_panels(const struct plot_job *j, struct pb_plot_panel **out, size_t *count,
                       size_t *cap)
{
	const struct mem_plot *m = &j->m;
	const struct pb_plot_input *in = j->in;
	size_t n = j->n;
	enum pb_unit unit = j->o->unit;
	for (size_t pi = 0; pi < m->npanels; pi++) {
		const struct panel *pa = &m->panels[pi];
		char lo[32], hi[32];
		pb_format_bytes(lo, sizeof lo, pa->xmin, PB_BYTES_SHORT);
		pb_format_bytes(hi, sizeof hi, pa->xmax, PB_BYTES_SHORT);
		char *words = series_words(m, m->series, m->nseries, pi, in, n);
		char *marks = drawn_marks(in[0].file, pa);
		panel_add(
		    out, count, cap,
		    pb_xasprintf("%s, %s (%s)%s", pa->title, pa->state, state_text(pa->state),
		                 m->threads ? ", 1 thread" : ""),
		    pb_xasprintf("Line chart: %s against bytes per call (log scale) from %s to "
		                 "%s; %s; the shaded band around a line is its 95%% CI%s.",
		                 unit_axis(unit), lo, hi, words, marks));
		free(marks);
		free(words);
	}
	for (size_t si = 0; si < m->nscalings; si++) {
		const struct scaling *sc = &m->scalings[si];
		char sz[32];
		pb_format_bytes(sz, sizeof sz, (double)sc->size, PB_BYTES_SHORT);
		enum pb_unit u = scaling_unit(unit);
		char *words = series_words(m, m->sseries, m->nsseries, si, in, n);
		panel_add(
		    out, count, cap,
		    pb_xasprintf("%s %s, %s (%s): aggregate %s by threads%s%s%s%s", sc->title, sz,
		                 sc->state, state_text(sc->state), pb_unit_name(u),
		                 strcmp(sc->placement, "compact") ? ", placement " : "",
		                 strcmp(sc->placement, "compact") ? sc->placement : "",
		                 strcmp(sc->node, "local") ? ", memory " : "",
		                 strcmp(sc->node, "local") ? sc->node : ""),
		    pb_xasprintf("Line chart: aggregate %s (median, 95%% CI) against threads at "
		                 "once; %s; dashed: each kernel's ideal, N times its 1-thread "
		                 "figure.",
		                 pb_unit_name(u), words));
		free(words);
	}
	for (size_t gi = 0; gi < m->ngrids; gi++) {
		const struct grid *gr = &m->grids[gi];
		char sz[32];
		pb_format_bytes(sz, sizeof sz, (double)gr->size, PB_BYTES_SHORT);
		panel_add(
		    out, count, cap,
		    pb_xasprintf("%s %s, %s: median %s by destination offset%s%s", gr->op, sz,
		                 gr->state, pb_unit_name(unit), n > 1 ? " - " : "",
		                 n > 1 ? in[gr->file].label : ""),
		    pb_xasprintf("Heat map: one row per kernel, one column per destination "
		                 "offset from a page boundary; the colour is the median in %s.",
		                 pb_unit_name(unit)));
	}
	for (size_t ri = 0; ri < m->nreplays; ri++) {
		const struct replay_panel *r = &m->replays[ri];
		if (r->kernel) {
			bool fpu = !*r->state; /* kernel fpu: no cache state */
			panel_add(
			    out, count, cap,
			    fpu ? pb_xasprintf("%s, %s", r->op, r->dist)
			        : pb_xasprintf("%s, %s, %s (%s)", r->op, r->dist, r->state,
			                       state_text(r->state)),
			    pb_xasprintf(
			        "Bar chart: one bar per variant%s %s, its median %s with its "
			        "95%% CI.",
			        n > 1 ? " and file" : "",
			        fpu ? "(begin_end and save_restore timed in kernel context by "
			              "primbench's module, ioctl_null and ioctl_fpu from user "
			              "space around the ioctl)"
			            : "timed in kernel context by primbench's module",
			        r->unit == PB_UNIT_TICKS_PER_PAGE   ? "TSC ticks per 4 KiB page"
			        : r->unit == PB_UNIT_TICKS_PER_CALL ? "TSC ticks per call"
			                                            : pb_unit_name(r->unit)));
			continue;
		}
		panel_add(
		    out, count, cap,
		    pb_xasprintf("%s: replay of %s, %s (%s)", r->op, r->dist, r->state,
		                 state_text(r->state)),
		    pb_xasprintf("Bar chart: one bar per kernel%s, its median %s per call over "
		                 "the batch with its 95%% CI; above each bar libc's time over "
		                 "the kernel's (above 1: faster than libc).",
		                 n > 1 ? " and file" : "",
		                 replay_unit(unit) == PB_UNIT_NS_PER_CALL ? "ns" : "TSC ticks"));
	}
}

/* The series of a latency or map plot drawn in one panel (loaded or
 * not), as words: "one line per group and file (2): latency 4K and
 * latency 2M THP" (distinct names, in order). Malloc'd. */
static char *lm_words(const struct lm_plot *m, size_t nfiles, bool loaded, const char *mark)
{
	const char **names = pb_xcalloc(m->n + 1, sizeof *names);
	size_t k = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->s[i].loaded != loaded || m->s[i].n == 0)
			continue;
		size_t j = 0;
		while (j < k && strcmp(names[j], m->s[i].name))
			j++;
		if (j == k)
			names[k++] = m->s[i].name;
	}
	char *t =
	    pb_xasprintf("one %s per group%s (%zu): ", mark, nfiles > 1 ? " and file" : "", k);
	names_join(&t, names, k);
	free(names);
	return t;
}

static void lm_panels(const struct plot_job *j, struct pb_plot_panel **out, size_t *count,
                      size_t *cap)
{
	const struct lm_plot *m = &j->lm;
	bool curve = false, loaded = false;
	for (size_t i = 0; i < m->n; i++) {
		curve |= !m->s[i].loaded;
		loaded |= m->s[i].loaded;
	}
	char *words = lm_words(m, j->n, false, j->map ? "bar or line" : "line");
	char *lwords = lm_words(m, j->n, true, "line");
	if (j->map) {
		panel_add(
		    out, count, cap,
		    pb_xstrdup("the kernel's page clearing seen from user space: GB/s"),
		    pb_xasprintf("Chart: GB/s mapped and faulted (median; bars p10 to p90) per "
		                 "page size and fault mode, against threads, or as bars when "
		                 "every case ran on one thread count; %s.",
		                 words));
	}
	if (j->lat && curve)
		panel_add(out, count, cap,
		          pb_xstrdup("load-to-use latency: the pointer chase over the working set"),
		          pb_xasprintf("Line chart: ns per load (median; bars: min to max of the "
		                       "rounds; log scale) against the working set in bytes (log "
		                       "scale); %s; dotted vertical lines mark the cache sizes.",
		                       words));
	if (j->lat && loaded)
		panel_add(
		    out, count, cap,
		    pb_xstrdup("loaded latency: the chase against the load's bandwidth"),
		    pb_xasprintf("Line chart: ns per load (median; bars: min to max of the "
		                 "rounds) against the load's aggregate GB/s, each point labelled "
		                 "with its load threads; %s.",
		                 lwords));
	free(words);
	free(lwords);
}

int pb_plot_panels(const struct pb_plot_input *in, size_t n, enum pb_unit unit,
                   struct pb_plot_panel **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	if (pb_plot_check(in, n) != 0)
		return -1;
	const struct pb_plot_opts o = {.unit = unit};
	const char *other, *kind = suite_of(in[0].file, &other);
	struct plot_job j = {.in = in, .n = n, .o = &o, .kind = kind};
	j.mem = !strcmp(kind, "mem");
	j.lat = !strcmp(kind, "latency");
	j.map = !strcmp(kind, "map");
	if (plot_collect(&j) != 0)
		return -1;
	size_t cap = 0;
	if (j.mem)
		mem_panels(&j, out, count, &cap);
	else if (j.lat || j.map)
		lm_panels(&j, out, count, &cap);
	else
		panel_add(
		    out, count, &cap, pb_xstrdup("cmd: every run of each side"),
		    pb_xasprintf("Dot plot: every counted run of side A and side B%s, left to "
		                 "right in the order they ran, the median of each side as a "
		                 "bar; the y axis is the figure the A/B verdict is on, and the "
		                 "title gives the B/A ratio and the verdict.",
		                 n > 1 ? " of each file" : ""));
	mem_free(&j.m);
	lm_free(&j.lm);
	return 0;
}

void pb_plot_panels_free(struct pb_plot_panel *p, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		free(p[i].title);
		free(p[i].alt);
	}
	free(p);
}
