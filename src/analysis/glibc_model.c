/* glibc_model.c - glibc 2.36 x86-64's memset and memcpy paths, its
 * thresholds as this process's ld.so reports them, and the GLIBC_TUNABLES
 * line closest to a policy (include/primbench/glibc_model.h,
 * docs/breakeven.md). */
#include "primbench/glibc_model.h"
#include "primbench/fingerprint.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/sizes.h"
#include "primbench/text.h"

/* ---- glibc 2.36 x86-64 ---------------------------------------------------
 *
 * The bands glibc 2.36's x86-64 string functions use (the *_unaligned_erms
 * variants, chosen when the CPU has ERMS; memmove-vec-unaligned-erms.S and
 * memset-vec-unaligned-erms.S; checked against the disassembly of Debian
 * 12's libc.so.6, 2.36-9+deb12u14):
 *   memcpy: n > x86_rep_movsb_threshold and n < rep_movsb_stop: rep movsb;
 *           otherwise n >= x86_non_temporal_threshold: non-temporal stores
 *           (4-page interleaved vmovntdq loop; source and destination must
 *           not overlap), else the vector loop. rep_movsb_stop is
 *           x86_non_temporal_threshold on Intel (it follows the tunable), the
 *           L2 size on AMD (not tunable).
 *   memset: n > 2 x VEC_SIZE and n > x86_rep_stosb_threshold: rep stosb;
 *           else vector stores. No non-temporal path (added in 2.40).
 * Accepted values (dl-cacheinfo.h, checked with ld.so --list-diagnostics):
 * x86_rep_movsb_threshold > 8 x VEC_SIZE; x86_rep_stosb_threshold >= 1;
 * x86_non_temporal_threshold in (0x4040, 0x0fffffffffffffff]. Values out
 * of range are ignored silently. */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

enum gclass { G_VEC, G_REP, G_NT, G_NONE, G_ANY };

static const char *const gclass_words[] = {"its vector loop", "rep movsb", "non-temporal stores",
                                           "nothing", "anything"};

/* The class of the glibc model k's own code has (its row's glibc path,
 * primbench/kernels.h); G_NONE for kernels glibc has no path for. */
static enum gclass kernel_class(const struct pb_kernel *k)
{
	switch (k->glibc) {
	case PB_GLIBC_PATH_VECTOR:
		return G_VEC;
	case PB_GLIBC_PATH_REP:
		return G_REP;
	case PB_GLIBC_PATH_NT:
		return G_NT;
	case PB_GLIBC_PATH_ANY:
		return G_ANY;
	default:
		return G_NONE;
	}
}

enum pb_glibc_path pb_glibc_path_of(const struct pb_kernel *k)
{
	return !k || k->glibc == PB_GLIBC_PATH_ANY ? PB_GLIBC_PATH_NONE : k->glibc;
}

/* One setting of glibc's thresholds and how its bands follow from it. */
struct gmodel {
	enum pb_op op;
	uint64_t rep;  /* rep movsb or rep stosb threshold */
	uint64_t nt;   /* memcpy */
	uint64_t stop; /* memcpy, when !stop_follows_nt */
	bool stop_follows_nt;
	uint64_t two_vec; /* memset: no rep stosb up to this; 0 = unknown */
};

static enum gclass gmodel_class(const struct gmodel *m, uint64_t n)
{
	if (m->op == PB_OP_MEMSET)
		return n > m->rep && n > m->two_vec ? G_REP : G_VEC;
	if (n > m->rep && n < (m->stop_follows_nt ? m->nt : m->stop))
		return G_REP;
	return n >= m->nt ? G_NT : G_VEC;
}

enum pb_glibc_path pb_glibc_path_at(const struct pb_glibc_thresholds *cur, enum pb_op op,
                                    const struct pb_glibc_tunables *set, uint64_t n)
{
	if (!cur || !cur->known || (op != PB_OP_MEMSET && op != PB_OP_MEMCPY))
		return PB_GLIBC_PATH_NONE;
	bool cpy = op == PB_OP_MEMCPY;
	struct gmodel m = {.op = op};
	m.stop_follows_nt = cur->rep_movsb_stop == 0 || cur->rep_movsb_stop == cur->non_temporal;
	m.stop = m.stop_follows_nt ? 0 : cur->rep_movsb_stop;
	m.two_vec = cur->rep_movsb_min ? cur->rep_movsb_min / 4 : 0;
	m.rep = cpy ? cur->rep_movsb : cur->rep_stosb;
	m.nt = cpy && cur->non_temporal ? cur->non_temporal : PB_GLIBC_NT_MAX;
	if (set) {
		uint64_t r = cpy ? set->rep_movsb : set->rep_stosb;
		if (r >= 1 && r <= PB_GLIBC_NT_MAX && (!cpy || r > cur->rep_movsb_min))
			m.rep = r;
		if (cpy && set->non_temporal > PB_GLIBC_NT_MIN &&
		    set->non_temporal <= PB_GLIBC_NT_MAX)
			m.nt = set->non_temporal;
	}
	switch (gmodel_class(&m, n)) {
	case G_REP:
		return PB_GLIBC_PATH_REP;
	case G_NT:
		return PB_GLIBC_PATH_NT;
	default:
		return PB_GLIBC_PATH_VECTOR;
	}
}

int pb_glibc_tunables_from_line(const char *line, enum pb_op op, struct pb_glibc_tunables *out)
{
	memset(out, 0, sizeof *out);
	out->op = op;
	snprintf(out->line, sizeof out->line, "%s", line);
	const char *q = line;
	if (!strncmp(q, "GLIBC_TUNABLES=", 15))
		q += 15;
	while (*q) {
		size_t n = strcspn(q, ":");
		const char *eq = memchr(q, '=', n);
		if (!eq || eq + 1 == q + n)
			return pb_fail("GLIBC_TUNABLES: '%.*s' is not name=value", (int)n, q);
		char num[32];
		size_t vn = (size_t)(q + n - (eq + 1));
		char *end = NULL;
		unsigned long long v = 0;
		if (vn < sizeof num) {
			memcpy(num, eq + 1, vn);
			num[vn] = '\0';
			errno = 0;
			v = strtoull(num, &end, 0);
		}
		size_t kn = (size_t)(eq - q);
#define PB_IS(name) (kn == sizeof(name) - 1 && !strncmp(q, name, kn))
		bool ours = PB_IS("glibc.cpu.x86_rep_stosb_threshold") ||
		            PB_IS("glibc.cpu.x86_rep_movsb_threshold") ||
		            PB_IS("glibc.cpu.x86_non_temporal_threshold");
		if (ours && (vn >= sizeof num || errno || *end || end == num || num[0] == '-'))
			return pb_fail("GLIBC_TUNABLES: '%.*s': not a number", (int)n, q);
		if (op == PB_OP_MEMSET && PB_IS("glibc.cpu.x86_rep_stosb_threshold"))
			out->rep_stosb = v;
		else if (op == PB_OP_MEMCPY && PB_IS("glibc.cpu.x86_rep_movsb_threshold"))
			out->rep_movsb = v;
		else if (op == PB_OP_MEMCPY && PB_IS("glibc.cpu.x86_non_temporal_threshold"))
			out->non_temporal = v;
#undef PB_IS
		q += n + (q[n] == ':');
	}
	return 0;
}

struct mapctx {
	const struct pb_policy *p;
	bool cur_known;
	struct gmodel cur;      /* glibc now (when cur_known) */
	struct gmodel base;     /* fixed parts: op, stop, two_vec */
	uint64_t rep_movsb_min; /* glibc ignores x86_rep_movsb_threshold <= this; 0: unknown */
};

/* The class of the code the policy runs at n: a kernel that runs another
 * row's code there (avx512_nt below a line, 64 B) has that row's class. */
static enum gclass want_class(const struct mapctx *c, uint64_t n)
{
	enum gclass kc =
	    kernel_class(pb_kernel_code_at(pb_policy_pick(c->p, (size_t)n), (size_t)n));
	if (kc == G_NONE)
		return G_ANY;
	if (kc == G_ANY)
		return c->cur_known ? gmodel_class(&c->cur, n) : G_ANY;
	return kc;
}

static void add_point(uint64_t *pts, size_t *n, uint64_t v)
{
	pts[(*n)++] = v;
}

/* Every size where the policy's or a model's class can change. */
static size_t breakpoints(const struct mapctx *c, const struct gmodel *m, uint64_t lo, uint64_t hi,
                          uint64_t *pts)
{
	size_t n = 0;
	add_point(pts, &n, lo);
	add_point(pts, &n, hi);
	for (size_t i = 0; i < c->p->n_bands; i++) {
		if (i + 1 < c->p->n_bands && c->p->bands[i].max_bytes < UINT64_MAX)
			add_point(pts, &n, c->p->bands[i].max_bytes + 1);
		if (c->p->bands[i].kernel->same_code_as)
			add_point(pts, &n, c->p->bands[i].kernel->differs_from_bytes);
	}
	const struct gmodel *ms[2] = {m, c->cur_known ? &c->cur : NULL};
	for (int i = 0; i < 2; i++) {
		if (!ms[i])
			continue;
		if (ms[i]->rep < UINT64_MAX)
			add_point(pts, &n, ms[i]->rep + 1);
		add_point(pts, &n, ms[i]->nt);
		add_point(pts, &n, ms[i]->stop);
		if (ms[i]->op == PB_OP_MEMSET && ms[i]->two_vec)
			add_point(pts, &n, ms[i]->two_vec + 1);
	}
	qsort(pts, n, sizeof *pts, cmp_u64);
	return n;
}

/* Octaves of [lo, hi) (the segments between m's breakpoints) where
 * counts(c, m, a) holds at a segment's start a. */
static double octaves_where(const struct mapctx *c, const struct gmodel *m, uint64_t lo,
                            uint64_t hi,
                            bool (*counts)(const struct mapctx *, const struct gmodel *, uint64_t))
{
	uint64_t pts[3 * PB_POLICY_MAX_BANDS + 16];
	size_t n = breakpoints(c, m, lo, hi, pts);
	double sum = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t a = pts[i], b = pts[i + 1];
		if (a < lo || b > hi || a >= b)
			continue;
		if (counts(c, m, a))
			sum += log2((double)b) - log2((double)a);
	}
	return sum;
}

/* glibc's class under m differs from the policy's at a */
static bool differs_at(const struct mapctx *c, const struct gmodel *m, uint64_t a)
{
	enum gclass want = want_class(c, a);
	return want != G_ANY && want != gmodel_class(m, a);
}

/* the policy's kernel at a runs code glibc has no path for */
static bool no_path_at(const struct mapctx *c, const struct gmodel *m, uint64_t a)
{
	(void)m;
	return kernel_class(pb_kernel_code_at(pb_policy_pick(c->p, (size_t)a), (size_t)a)) ==
	       G_NONE;
}

/* Octaves of [lo, hi] (hi exclusive) where glibc's class under m differs
 * from the policy's. */
static double mismatch(const struct mapctx *c, const struct gmodel *m, uint64_t lo, uint64_t hi)
{
	return octaves_where(c, m, lo, hi, differs_at);
}

/* Distance of a candidate from glibc's current values, in octaves. */
static double distance(const struct gmodel *a, const struct gmodel *b)
{
	double d = fabs(log2((double)a->rep + 1) - log2((double)b->rep + 1));
	if (a->op == PB_OP_MEMCPY)
		d += fabs(log2((double)a->nt) - log2((double)b->nt));
	return d;
}

static size_t add_candidate(uint64_t *v, size_t n, uint64_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return n;
	v[n] = x;
	return n + 1;
}

void pb_glibc_threshold_text(uint64_t v, char *buf, size_t len)
{
	if (v >= PB_GLIBC_NT_MAX)
		snprintf(buf, len, "0x%" PRIx64, v);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

static void add_note(struct pb_glibc_tunables *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_note(struct pb_glibc_tunables *t, const char *fmt, ...)
{
	if (t->n_notes >= PB_GLIBC_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->n_notes], sizeof t->notes[0], fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < t->n_notes; i++)
		if (!strcmp(t->notes[i], t->notes[t->n_notes]))
			return; /* said already */
	t->n_notes++;
}

/* "up to 2 KiB", "2 KiB to 24 MiB", "24 MiB and up" for sizes [a, b]. */
static void fmt_band(uint64_t a, uint64_t b, char *buf, size_t len)
{
	char x[32], y[32];
	pb_format_bytes(x, sizeof x, a, PB_BYTES_PROSE);
	pb_format_bytes(y, sizeof y, b, PB_BYTES_PROSE);
	if (a == 0)
		snprintf(buf, len, "up to %s", y);
	else if (b == UINT64_MAX)
		snprintf(buf, len, "%s and up", x);
	else
		snprintf(buf, len, "%s to %s", x, y);
}

static const char *mismatch_reason(const struct mapctx *c, const struct gmodel *m, enum gclass want,
                                   enum gclass got, uint64_t a)
{
	bool cpy = m->op == PB_OP_MEMCPY;
	if (cpy && got == G_REP && !m->stop_follows_nt)
		return "above its threshold rep movsb runs up to its stop threshold, the L2 size "
		       "on "
		       "AMD, which is not tunable";
	if (cpy && want == G_VEC && got == G_REP)
		return "a vector band above rep movsb needs the rep movsb stop threshold, which is "
		       "not tunable (Intel: = x86_non_temporal_threshold; AMD: the L2 size)";
	if (cpy && want == G_REP && got != G_REP && !m->stop_follows_nt && a >= m->stop)
		return "rep movsb above its stop threshold (the L2 size on AMD) is not tunable";
	if (cpy && want == G_REP && got == G_VEC && c->rep_movsb_min && a <= c->rep_movsb_min)
		return "glibc ignores x86_rep_movsb_threshold at or below 8 x its vector size";
	if (!cpy && want == G_REP && m->two_vec && a <= m->two_vec)
		return "glibc memset uses vector stores up to 2 x its vector size";
	if (want == G_NT && a <= PB_GLIBC_NT_MIN)
		return "glibc ignores x86_non_temporal_threshold <= 16448 (0x4040)";
	if (cpy && got == G_NT)
		return "glibc uses non-temporal stores for every size above its threshold";
	if (cpy && want == G_NT)
		return "glibc uses non-temporal stores only above every other band";
	if (want == G_REP)
		return cpy ? "glibc uses rep movsb in one band only, above its threshold"
		           : "glibc uses rep stosb for every size above one threshold";
	return cpy ? "glibc's bands are vector, rep movsb, non-temporal, in that order"
	           : "glibc uses rep stosb for every size above one threshold";
}

/* The mapping's context: the policy, glibc's model with its current
 * values (cur known) or free ones. */
static void map_context(struct mapctx *c, const struct pb_policy *p,
                        const struct pb_glibc_thresholds *cur)
{
	bool cpy = p->op == PB_OP_MEMCPY;
	bool known = cur && cur->known;
	*c = (struct mapctx){.p = p, .cur_known = known};
	c->base.op = p->op;
	c->base.stop_follows_nt =
	    !known || cur->rep_movsb_stop == 0 || cur->rep_movsb_stop == cur->non_temporal;
	c->base.stop = c->base.stop_follows_nt ? 0 : cur->rep_movsb_stop;
	c->rep_movsb_min = known ? cur->rep_movsb_min : 0;
	c->base.two_vec = known && cur->rep_movsb_min ? cur->rep_movsb_min / 4 : 0;
	c->base.nt = PB_GLIBC_NT_MAX;
	if (known) {
		c->cur = c->base;
		c->cur.rep = cpy ? cur->rep_movsb : cur->rep_stosb;
		c->cur.nt = cpy ? cur->non_temporal : PB_GLIBC_NT_MAX;
		if (c->cur.nt == 0)
			c->cur.nt = PB_GLIBC_NT_MAX;
	}
}

/* The sizes the mapping is judged over: [*lo, *top) (0, 0: 64 B up to
 * twice the largest bound, at least 64 MiB), and *far (2^60 or beyond top)
 * for the tie-break. */
static void map_range(const struct pb_policy *p, uint64_t *lo, uint64_t *hi, uint64_t *top,
                      uint64_t *far)
{
	uint64_t max_bound = 0;
	for (size_t i = 0; i + 1 < p->n_bands; i++)
		if (p->bands[i].max_bytes > max_bound)
			max_bound = p->bands[i].max_bytes;
	if (*lo == 0 && *hi == 0) {
		*lo = 64;
		*hi = max_bound < (UINT64_C(1) << 58) ? 2 * max_bound : max_bound;
		if (*hi < (UINT64_C(64) << 20))
			*hi = UINT64_C(64) << 20;
	}
	if (*lo == 0)
		*lo = 1;
	if (*hi < *lo)
		*hi = *lo;
	*top = *hi + 1;
	*far = UINT64_C(1) << 60;
	if (*far < *top)
		*far = *top;
}

#define MAX_CANDIDATES (2 * PB_POLICY_MAX_BANDS + 4)

/* The candidate values of the rep and non-temporal thresholds: each
 * policy bound, glibc's current and lowest accepted values, "never", and
 * where a band's kernel starts running its own code. */
static void map_candidates(const struct mapctx *c, uint64_t *reps, size_t *nrep, uint64_t *nts,
                           size_t *nnt)
{
	const struct pb_policy *p = c->p;
	bool cpy = p->op == PB_OP_MEMCPY;
	/* The lowest threshold glibc accepts: for rep movsb 8 x VEC_SIZE + 1;
	 * with VEC_SIZE unknown, 513 works for all of them (the "rep movsb
	 * from the start" candidate) and 129 is the least any accepts. */
	uint64_t rep_min = cpy ? (c->rep_movsb_min ? c->rep_movsb_min + 1 : 513) : 1;
	uint64_t rep_floor = cpy ? (c->rep_movsb_min ? c->rep_movsb_min + 1 : 129) : 1;
	*nrep = *nnt = 0;
	*nrep = add_candidate(reps, *nrep, rep_min);
	*nrep = add_candidate(reps, *nrep, PB_GLIBC_NT_MAX);
	*nnt = add_candidate(nts, *nnt, PB_GLIBC_NT_MAX);
	if (c->cur_known) {
		*nrep = add_candidate(reps, *nrep, c->cur.rep);
		if (cpy)
			*nnt = add_candidate(nts, *nnt, c->cur.nt);
	}
	for (size_t i = 0; i + 1 < p->n_bands; i++) {
		uint64_t b = p->bands[i].max_bytes;
		uint64_t r = b < rep_floor ? rep_floor : b > PB_GLIBC_NT_MAX ? PB_GLIBC_NT_MAX : b;
		*nrep = add_candidate(reps, *nrep, r);
		uint64_t n = b >= PB_GLIBC_NT_MAX ? PB_GLIBC_NT_MAX : b + 1;
		if (n <= PB_GLIBC_NT_MIN)
			n = PB_GLIBC_NT_MIN + 1;
		if (cpy)
			*nnt = add_candidate(nts, *nnt, n);
	}
	/* Where a band's kernel starts running its own code (avx512_nt:
	 * streams from a line, 64 B, on) is a switch of classes too. */
	for (size_t i = 0; i < p->n_bands; i++) {
		size_t from = p->bands[i].kernel->differs_from_bytes;
		if (!p->bands[i].kernel->same_code_as || from < 2)
			continue;
		*nrep = add_candidate(reps, *nrep, from - 1 < rep_floor ? rep_floor : from - 1);
		if (cpy && from > PB_GLIBC_NT_MIN)
			*nnt = add_candidate(nts, *nnt, from);
	}
}

/* The candidate pair whose bands differ from the policy over the fewest
 * octaves of [lo, top); ties: the fewest up to far, then the nearest
 * glibc's current values, then lower values. *in: its octaves. */
static struct gmodel map_choose(const struct mapctx *c, uint64_t lo, uint64_t top, uint64_t far,
                                double *in_out)
{
	uint64_t reps[MAX_CANDIDATES], nts[MAX_CANDIDATES];
	size_t nrep, nnt;
	map_candidates(c, reps, &nrep, nts, &nnt);
	struct gmodel best = c->base;
	double best_in = INFINITY, best_far = INFINITY, best_dist = INFINITY;
	for (size_t i = 0; i < nrep; i++) {
		for (size_t j = 0; j < nnt; j++) {
			struct gmodel m = c->base;
			m.rep = reps[i];
			m.nt = nts[j];
			double in = mismatch(c, &m, lo, top);
			double fa = mismatch(c, &m, lo, far);
			double di = c->cur_known ? distance(&m, &c->cur) : 0;
			const double eps = 1e-9;
			bool better =
			    in < best_in - eps ||
			    (in < best_in + eps &&
			     (fa < best_far - eps ||
			      (fa < best_far + eps &&
			       (di < best_dist - eps ||
			        (di < best_dist + eps &&
			         (m.rep < best.rep || (m.rep == best.rep && m.nt < best.nt)))))));
			if (better) {
				best = m;
				best_in = in;
				best_far = fa;
				best_dist = di;
			}
		}
	}
	*in_out = best_in;
	return best;
}

/* Octaves of [lo, top) whose policy kernel glibc has no path for. */
static double no_path_octaves(const struct mapctx *c, const struct gmodel *best, uint64_t lo,
                              uint64_t top)
{
	return octaves_where(c, best, lo, top, no_path_at);
}

/* out's thresholds and its GLIBC_TUNABLES line from best. */
static void map_line(const struct gmodel *best, struct pb_glibc_tunables *out)
{
	char a[32], b[32];
	pb_glibc_threshold_text(best->rep, a, sizeof a);
	if (out->op == PB_OP_MEMCPY) {
		out->rep_movsb = best->rep;
		out->non_temporal = best->nt;
		pb_glibc_threshold_text(best->nt, b, sizeof b);
		snprintf(out->line, sizeof out->line,
		         "GLIBC_TUNABLES=glibc.cpu.x86_rep_movsb_threshold=%s:glibc.cpu.x86_non_"
		         "temporal_threshold=%s",
		         a, b);
	} else {
		out->rep_stosb = best->rep;
		snprintf(out->line, sizeof out->line,
		         "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=%s", a);
	}
}

/* Notes on the bands' kernels glibc has no path for, bands of several
 * vector widths, and 'libc' bands with glibc's values unknown. */
static void notes_kernels(const struct mapctx *c, struct pb_glibc_tunables *out)
{
	const struct pb_policy *p = c->p;
	char band[96];
	const char *vec_kernel = NULL;
	bool mixed_vec = false, has_libc = false;
	for (size_t i = 0; i < p->n_bands; i++) {
		uint64_t lo = i == 0 ? 0 : p->bands[i - 1].max_bytes + 1;
		/* A band wholly below where its kernel's own code starts runs
		 * another row's code: that row's path is what glibc must match. */
		const struct pb_kernel *k = p->bands[i].kernel;
		const struct pb_kernel *code =
		    p->bands[i].max_bytes < SIZE_MAX
		        ? pb_kernel_code_at(k, (size_t)p->bands[i].max_bytes)
		        : k;
		enum gclass kc = kernel_class(code);
		fmt_band(lo, p->bands[i].max_bytes, band, sizeof band);
		if (code->glibc_note)
			add_note(out, "%s (%s): %s", k->name, band, code->glibc_note);
		else if (kc == G_NONE)
			add_note(out, "%s (%s): glibc has no such path", k->name, band);
		if (kc == G_VEC && !code->glibc_note) {
			if (vec_kernel && strcmp(vec_kernel, k->name))
				mixed_vec = true;
			vec_kernel = k->name;
		}
		has_libc |= kc == G_ANY;
	}
	if (mixed_vec)
		add_note(out,
		         "bands of different vector widths: glibc uses one width for every size "
		         "(chosen at start-up; glibc.cpu.hwcaps can change it)");
	if (has_libc && !c->cur_known)
		add_note(out,
		         "glibc's current thresholds are unknown: 'libc' bands were left free");
}

/* Notes on the sizes of [lo, top) where best's bands still differ from
 * the policy, runs of one disagreement joined. */
static void notes_mismatch(const struct mapctx *c, const struct gmodel *best, uint64_t lo,
                           uint64_t top, struct pb_glibc_tunables *out)
{
	const struct pb_policy *p = c->p;
	char band[96];
	uint64_t pts[3 * PB_POLICY_MAX_BANDS + 16];
	size_t n = breakpoints(c, best, lo, top, pts);
	for (size_t i = 0; i + 1 < n; i++) {
		uint64_t s = pts[i];
		if (s < lo || pts[i + 1] > top || s >= pts[i + 1])
			continue;
		enum gclass want = want_class(c, s), got = gmodel_class(best, s);
		if (want == G_ANY || want == got)
			continue;
		/* Extend over following segments with the same disagreement. */
		uint64_t e = pts[i + 1];
		const struct pb_kernel *k = pb_policy_pick(p, (size_t)s);
		const char *why = mismatch_reason(c, best, want, got, s);
		while (i + 2 < n && pts[i + 2] <= top && pts[i + 1] < pts[i + 2] &&
		       want_class(c, pts[i + 1]) == want && gmodel_class(best, pts[i + 1]) == got &&
		       pb_policy_pick(p, (size_t)pts[i + 1]) == k &&
		       mismatch_reason(c, best, want, got, pts[i + 1]) == why) {
			i++;
			e = pts[i + 1];
		}
		fmt_band(s, e - 1, band, sizeof band);
		const char *what = gclass_words[got];
		if (p->op != PB_OP_MEMCPY && got == G_REP)
			what = "rep stosb";
		add_note(out, "%s (%s): glibc would use %s there: %s", k->name, band, what, why);
	}
}

void pb_glibc_map_policy(const struct pb_policy *p, const struct pb_glibc_thresholds *cur,
                         uint64_t range_lo, uint64_t range_hi, struct pb_glibc_tunables *out)
{
	memset(out, 0, sizeof *out);
	out->op = p->op;
	bool cpy = p->op == PB_OP_MEMCPY;
	bool known = cur && cur->known;
	struct mapctx c;
	map_context(&c, p, cur);
	uint64_t top, far;
	map_range(p, &range_lo, &range_hi, &top, &far);
	struct gmodel best = map_choose(&c, range_lo, top, far, &out->mismatch_octaves);
	out->no_path_octaves = no_path_octaves(&c, &best, range_lo, top);
	map_line(&best, out);
	/* What glibc cannot express: kernels it has no path for, then sizes
	 * where its bands still differ from the policy. */
	notes_kernels(&c, out);
	notes_mismatch(&c, &best, range_lo, top, out);
	if (cpy && (!known || cur->rep_movsb_stop == 0))
		add_note(out,
		         "rep movsb stop threshold unknown: taken as x86_non_temporal_threshold "
		         "(Intel); on AMD it is the L2 size");
	if (cpy && best.rep < PB_GLIBC_NT_MAX && best.rep <= 512 && !(known && cur->rep_movsb_min))
		add_note(out,
		         "glibc ignores x86_rep_movsb_threshold at or below 8 x its vector size "
		         "(128, 256 or 512): see ld.so --list-tunables");
}

void pb_glibc_thresholds_read(struct pb_glibc_thresholds *out)
{
	struct pb_glibc_info gi;
	pb_glibc_read(&gi);
	const struct pb_glibc_diag *gd = &gi.diag;
	memset(out, 0, sizeof *out);
	out->known = gd->known[PB_GLIBC_REP_MOVSB_THRESHOLD] &&
	             gd->known[PB_GLIBC_REP_STOSB_THRESHOLD] &&
	             gd->known[PB_GLIBC_NON_TEMPORAL_THRESHOLD];
	out->rep_movsb = gd->value[PB_GLIBC_REP_MOVSB_THRESHOLD];
	out->rep_stosb = gd->value[PB_GLIBC_REP_STOSB_THRESHOLD];
	out->non_temporal = gd->value[PB_GLIBC_NON_TEMPORAL_THRESHOLD];
	out->rep_movsb_stop = gd->rep_movsb_stop;
	out->rep_movsb_min = gd->rep_movsb_min;
}
