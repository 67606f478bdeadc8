/* profile.c - perf report text into primitive families
 * (include/primbench/profile.h, docs/profile.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/profile.h"
#include "primbench/results.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"
#include "results/results_json.h"

/* The families, first match wins. Kernel: the x86_64 page and user-copy
 * routines (arch/x86/lib/clear_page_64.S, copy_page_64.S, copy_user_64.S);
 * rep_stos_alternative is clear_user's body since Linux 6.4, as
 * rep_movs_alternative is copy_user's; on a CPU with FSRM the kernel
 * inlines `rep movsb` into its callers, so the copies of read(2) and
 * write(2) run inside _copy_to_iter / _copy_from_iter (lib/iov_iter.c),
 * counted here (copy_page_to_iter and the like only iterate). libc: glibc's ifunc variants
 * (__memset_avx512_unaligned_erms, __memmove_avx2_unaligned_erms: memcpy
 * is an alias of memmove's variants on x86_64) and the plain names other
 * libcs use. primbench: every memset/bzero or memcpy/memmove/mempcpy
 * symbol of libprimswitch.so, its exported entries and its kernels
 * (pb_memset_avx512, pb_auto_memset_dispatch, ...). */
const struct pb_prof_family pb_prof_families[PB_PROF_NFAMILIES] = {
    [PB_PROF_KERNEL_CLEAR] = {"kernel_clear", "kernel page clearing", true, NULL,
                              "clear_page* clear_user* __clear_user* rep_stos_alternative", false},
    [PB_PROF_KERNEL_COPY] = {"kernel_copy", "kernel copying", true, NULL,
                             "copy_page* copy_user* rep_movs_alternative __copy_to_user* "
                             "__copy_from_user* _copy_to_user _copy_from_user _copy_to_iter "
                             "_copy_from_iter* copy_mc_*",
                             false},
    [PB_PROF_LIBC_MEMSET] = {"libc_memset", "libc memset", false, "libc.so* libc-*.so libc.musl*",
                             "memset __memset_* __memset_chk* bzero __bzero* explicit_bzero "
                             "__explicit_bzero*",
                             false},
    [PB_PROF_LIBC_MEMCPY] = {"libc_memcpy", "libc memcpy/memmove", false,
                             "libc.so* libc-*.so libc.musl*",
                             "memcpy __memcpy_* __memcpy_chk* memmove __memmove_* "
                             "__memmove_chk* mempcpy __mempcpy_* __mempcpy_chk*",
                             false},
    [PB_PROF_PB_MEMSET] = {"primbench_memset", "primbench memset", false, "libprimswitch.so*",
                           "*memset* *bzero*", true},
    [PB_PROF_PB_MEMCPY] = {"primbench_memcpy", "primbench memcpy/memmove", false,
                           "libprimswitch.so*", "*memcpy* *memmove* *mempcpy*", true},
};

static const char *const prof_kind_names[] = {
    [PB_PROF_KERNEL] = "kernel", [PB_PROF_LIBRARY] = "library", [PB_PROF_PROGRAM] = "program"};

const char *pb_prof_kind_name(enum pb_prof_kind k)
{
	return pb_enum_name(prof_kind_names, sizeof prof_kind_names / sizeof *prof_kind_names, k,
	                    "unknown");
}

/* Whether s matches one of the space-separated globs. */
static bool match_any(const char *globs, const char *s)
{
	char glob[128];
	for (const char *p = globs; *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n == 0)
			break;
		if (n < sizeof glob) {
			memcpy(glob, p, n);
			glob[n] = 0;
			if (fnmatch(glob, s, 0) == 0)
				return true;
		}
		p += n;
	}
	return false;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

int pb_prof_family_of(enum pb_prof_kind kind, const char *dso, const char *symbol)
{
	for (int f = 0; f < PB_PROF_NFAMILIES; f++) {
		const struct pb_prof_family *fam = &pb_prof_families[f];
		if (fam->kernel != (kind == PB_PROF_KERNEL))
			continue;
		if (!fam->kernel && !match_any(fam->dso_globs, base_name(dso)))
			continue;
		if (match_any(fam->sym_globs, symbol))
			return f;
	}
	return -1;
}

static enum pb_prof_kind kind_of(char marker, const char *dso)
{
	if (marker == 'k' || marker == 'g')
		return PB_PROF_KERNEL;
	if (dso[0] == '[' || strncmp(dso, "//anon", 6) == 0 || strncmp(dso, "/tmp/perf-", 10) == 0)
		return PB_PROF_UNKNOWN;
	const char *b = base_name(dso);
	return strstr(b, ".so") ? PB_PROF_LIBRARY : PB_PROF_PROGRAM;
}

void pb_profile_free(struct pb_profile *p)
{
	for (size_t i = 0; p && i < p->nsyms; i++) {
		free(p->syms[i].dso);
		free(p->syms[i].symbol);
	}
	if (p) {
		free(p->syms);
		p->syms = NULL;
		p->nsyms = 0;
	}
}

static bool is_address(const char *sym)
{
	size_t hex = strncmp(sym, "0x", 2) == 0 ? strspn(sym + 2, "0123456789abcdef") : 0;
	return hex > 0 && sym[2 + hex] == 0;
}

/* A row; `addresses` > 0: a PB_PROF_NO_SYMBOL row standing for that many
 * (merging); else a row of perf's, a user-space address joining its
 * binary's PB_PROF_NO_SYMBOL row. */
static int add_row(struct pb_profile *p, size_t *cap, const char *dso, const char *sym,
                   enum pb_prof_kind kind, uint64_t samples, size_t addresses)
{
	bool merged = addresses > 0;
	if (addresses == 0 && kind != PB_PROF_KERNEL && is_address(sym)) {
		sym = PB_PROF_NO_SYMBOL;
		addresses = 1;
	}
	for (size_t i = 0; i < p->nsyms; i++)
		if (strcmp(p->syms[i].symbol, sym) == 0 && strcmp(p->syms[i].dso, dso) == 0) {
			p->syms[i].samples += samples;
			/* perf's rows add up; a merged run's count is of the same
			 * binary's addresses, mostly the same ones: the larger */
			if (merged)
				p->syms[i].addresses = p->syms[i].addresses > addresses
				                           ? p->syms[i].addresses
				                           : addresses;
			else
				p->syms[i].addresses += addresses;
			return 0;
		}
	if (pb_grow(&p->syms, cap, p->nsyms, sizeof *p->syms, 64) != 0)
		return pb_fail("out of memory");
	struct pb_prof_symbol *s = &p->syms[p->nsyms];
	s->dso = strdup(dso);
	s->symbol = strdup(sym);
	if (!s->dso || !s->symbol) {
		free(s->dso);
		free(s->symbol);
		return pb_fail("out of memory");
	}
	s->samples = samples;
	s->kind = kind;
	s->family = pb_prof_family_of(kind, dso, sym);
	s->addresses = addresses;
	s->unresolved = addresses > 0 || is_address(sym);
	p->nsyms++;
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct pb_prof_symbol *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	int c = strcmp(x->dso, y->dso);
	return c ? c : strcmp(x->symbol, y->symbol);
}

/* Sorts the rows and recomputes every sum from them. */
static void finish(struct pb_profile *p)
{
	if (p->nsyms)
		qsort(p->syms, p->nsyms, sizeof *p->syms, cmp_rows);
	p->samples = p->kernel_samples = p->kernel_unresolved = 0;
	memset(p->family, 0, sizeof p->family);
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct pb_prof_symbol *s = &p->syms[i];
		p->samples += s->samples;
		if (s->kind == PB_PROF_KERNEL) {
			p->kernel_samples += s->samples;
			if (s->unresolved)
				p->kernel_unresolved += s->samples;
		}
		if (s->family >= 0)
			p->family[s->family] += s->samples;
	}
	p->kernel_hidden = p->kernel_samples > 0 && 2 * p->kernel_unresolved > p->kernel_samples;
	const char *colon = strchr(p->event, ':');
	p->user_only = colon && strchr(colon, 'u') && !strchr(colon, 'k');
}

/* Whether a + b fits in a uint64_t: a profile's counts add up (its
 * samples, a family's, a row's over merged runs), each within the total,
 * so a total that fits keeps every count exact. */
static bool sum_fits(uint64_t a, uint64_t b)
{
	return a <= UINT64_MAX - b;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

/* One data line: "  30.89%   675  DSO  [k] SYMBOL". */
static int parse_row(struct pb_profile *p, size_t *cap, char *line, size_t lineno, uint64_t *total)
{
	char *s = line;
	while (*s == ' ' || *s == '\t')
		s++;
	char *end;
	errno = 0;
	strtod(s, &end);
	if (end == s || *end != '%')
		goto bad;
	s = end + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	uint64_t samples;
	if (*s < '0' || *s > '9' || parse_u64(s, &samples) != 0)
		goto bad;
	s += strspn(s, "0123456789");
	if (*s != ' ' && *s != '\t')
		goto bad;
	while (*s == ' ' || *s == '\t')
		s++;
	/* The dso runs to the privilege marker "[k] ", "[.] ", ... preceded by
	 * blanks. */
	char *m = NULL;
	for (char *q = s; (q = strchr(q, '[')) != NULL; q++)
		if (q > s && (q[-1] == ' ' || q[-1] == '\t') && q[1] && strchr("k.guH", q[1]) &&
		    q[2] == ']' && (q[3] == ' ' || q[3] == 0)) {
			m = q;
			break;
		}
	if (!m)
		goto bad;
	char marker = m[1];
	char *dso_end = m;
	while (dso_end > s && (dso_end[-1] == ' ' || dso_end[-1] == '\t'))
		dso_end--;
	*dso_end = 0;
	char *sym = m + 3;
	while (*sym == ' ')
		sym++;
	size_t n = strlen(sym);
	while (n && (sym[n - 1] == ' ' || sym[n - 1] == '\t' || sym[n - 1] == '\r'))
		sym[--n] = 0;
	if (!*s || !*sym)
		goto bad;
	if (!sum_fits(*total, samples))
		return pb_fail("line %zu: the sample counts add up to more than %" PRIu64, lineno,
		               UINT64_MAX);
	*total += samples;
	return add_row(p, cap, s, sym, kind_of(marker, s), samples, 0);
bad:
	return pb_fail("line %zu: not a perf report line: '%.60s'", lineno, line);
}

/* An event without its PMU: "cpu_core/cycles/" and "cpu_atom/cycles/"
 * are "cycles", "cpu_core/cycles/u" is "cycles:u"; a name without '/' is
 * itself. */
static const char *event_base(const char *ev, char *out, size_t len)
{
	const char *slash = strchr(ev, '/');
	if (!slash) {
		snprintf(out, len, "%s", ev);
		return out;
	}
	const char *name = slash + 1, *end = strchr(name, '/');
	size_t n = end ? (size_t)(end - name) : strlen(name);
	const char *mods = end ? end + 1 : "";
	snprintf(out, len, "%.*s%s%s", (int)n, name, mods[0] && mods[0] != ':' ? ":" : "", mods);
	return out;
}

int pb_profile_parse(const char *text, size_t len, struct pb_profile *p)
{
	memset(p, 0, sizeof *p);
	p->runs = 1;
	size_t cap = 0, lineno = 0;
	uint64_t total = 0; /* the rows' samples so far */
	bool have_event = false;
	const char *t = text, *e = text + len;
	while (t < e) {
		const char *nl = memchr(t, '\n', (size_t)(e - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(e - t);
		lineno++;
		char *line = strndup(t, n);
		if (!line)
			return pb_fail("out of memory");
		t += n + (nl ? 1 : 0);
		const char *s = line + strspn(line, " \t\r");
		int rc = 0;
		if (*s == '#') {
			const char *ev = strstr(s, " of event '");
			uint64_t lost;
			if (strncmp(s, "# Samples:", 10) == 0 && ev) {
				ev += 11;
				char name[sizeof p->event], a[sizeof p->event], b[sizeof p->event];
				snprintf(name, sizeof name, "%.*s", (int)strcspn(ev, "'"), ev);
				if (!have_event) {
					snprintf(p->event, sizeof p->event, "%s", name);
				} else if (strcmp(event_base(p->event, a, sizeof a),
				                  event_base(name, b, sizeof b)) == 0) {
					/* one event on several PMUs (a hybrid CPU's
					 * cpu_core/cycles/ and cpu_atom/cycles/): summed */
					snprintf(p->event, sizeof p->event, "%s", a);
				} else {
					rc =
					    pb_fail("line %zu: more than one event ('%s' and '%s')",
					            lineno, p->event, name);
				}
				have_event = true;
			} else if (strncmp(s, "# Event count (approx.):", 24) == 0) {
				p->event_count += strtod(s + 24, NULL);
			} else if (strncmp(s, "# Total Lost Samples:", 21) == 0 &&
			           parse_u64(s + 21 + strspn(s + 21, " "), &lost) == 0) {
				if (sum_fits(p->lost, lost))
					p->lost += lost;
				else
					rc = pb_fail(
					    "line %zu: the lost samples add up to more than "
					    "%" PRIu64,
					    lineno, UINT64_MAX);
			}
		} else if (*s) {
			rc = parse_row(p, &cap, line, lineno, &total);
		}
		free(line);
		if (rc != 0)
			return -1;
	}
	finish(p);
	return 0;
}

int pb_profile_merge(struct pb_profile *dst, const struct pb_profile *src)
{
	if (strcmp(dst->event, src->event) != 0)
		return pb_fail("profiles of different events ('%s' and '%s')", dst->event,
		               src->event);
	if (!sum_fits(dst->samples, src->samples) || !sum_fits(dst->lost, src->lost))
		return pb_fail("merged profiles: the sample counts add up to more than %" PRIu64,
		               UINT64_MAX);
	size_t cap = dst->nsyms;
	for (size_t i = 0; i < src->nsyms; i++) {
		const struct pb_prof_symbol *s = &src->syms[i];
		if (add_row(dst, &cap, s->dso, s->symbol, s->kind, s->samples, s->addresses) != 0)
			return -1;
	}
	dst->lost += src->lost;
	dst->event_count += src->event_count;
	dst->runs += src->runs;
	finish(dst);
	return 0;
}

bool pb_profile_family_counted(const struct pb_profile *p, int family)
{
	if (family < 0 || family >= PB_PROF_NFAMILIES)
		return false;
	if (!pb_prof_families[family].kernel)
		return true;
	return !p->user_only && !p->kernel_hidden;
}

void pb_profile_share_ci95(uint64_t k, uint64_t n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n == 0 || k > n)
		return;
	const double z = 1.959963984540054;
	double nn = (double)n, p = (double)k / nn, z2n = z * z / nn;
	double mid = (p + z2n / 2) / (1 + z2n);
	double half = z / (1 + z2n) * sqrt(p * (1 - p) / nn + z2n / (4 * nn));
	*lo = k == 0 ? 0 : mid - half;
	*hi = k == n ? 1 : mid + half;
}

json_t *pb_profile_json(const struct pb_profile *p, size_t top)
{
	json_t *o = json_object();
	json_object_set_new(o, "event", json_string(p->event));
	json_object_set_new(o, "user_only", json_boolean(p->user_only));
	json_object_set_new(o, "runs", json_integer((json_int_t)p->runs));
	json_object_set_new(o, "samples", json_integer((json_int_t)p->samples));
	json_object_set_new(o, "lost", json_integer((json_int_t)p->lost));
	json_object_set_new(o, "event_count", pb_json_number(p->event_count));
	json_object_set_new(o, "kernel_samples", json_integer((json_int_t)p->kernel_samples));
	json_object_set_new(o, "kernel_unresolved", json_integer((json_int_t)p->kernel_unresolved));
	json_object_set_new(o, "kernel_hidden", json_boolean(p->kernel_hidden));
	json_t *fams = json_array();
	for (int f = 0; f < PB_PROF_NFAMILIES; f++) {
		bool counted = pb_profile_family_counted(p, f);
		json_t *fo = json_object();
		json_object_set_new(fo, "name", json_string(pb_prof_families[f].name));
		json_object_set_new(fo, "label", json_string(pb_prof_families[f].label));
		json_object_set_new(fo, "samples",
		                    counted ? json_integer((json_int_t)p->family[f]) : json_null());
		json_object_set_new(fo, "share",
		                    counted && p->samples
		                        ? pb_json_number((double)p->family[f] / (double)p->samples)
		                        : json_null());
		double lo, hi;
		pb_profile_share_ci95(p->family[f], p->samples, &lo, &hi);
		json_object_set_new(fo, "share_ci95",
		                    counted && p->samples ? json_pack("[ff]", lo, hi)
		                                          : json_null());
		json_array_append_new(fams, fo);
	}
	json_object_set_new(o, "families", fams);
	json_t *syms = json_array();
	for (size_t i = 0; i < p->nsyms && i < top; i++) {
		const struct pb_prof_symbol *s = &p->syms[i];
		json_t *so = json_object();
		json_object_set_new(so, "samples", json_integer((json_int_t)s->samples));
		json_object_set_new(so, "share",
		                    pb_json_number((double)s->samples / (double)p->samples));
		json_object_set_new(so, "binary", json_string(pb_prof_kind_name(s->kind)));
		json_object_set_new(so, "dso", json_string(s->dso));
		json_object_set_new(so, "symbol", json_string(s->symbol));
		if (s->addresses)
			json_object_set_new(so, "addresses",
			                    json_integer((json_int_t)s->addresses));
		json_object_set_new(so, "family",
		                    s->family >= 0 ? json_string(pb_prof_families[s->family].name)
		                                   : json_null());
		json_array_append_new(syms, so);
	}
	json_object_set_new(o, "top", syms);
	return o;
}

int pb_profile_json_share(const json_t *profile, const char *family, double *share)
{
	*share = 0;
	const json_t *fams = json_object_get(profile, "families");
	size_t i;
	const json_t *f;
	json_array_foreach(fams, i, f)
	{
		const char *name = json_string_value(json_object_get(f, "name"));
		if (!name || strcmp(name, family) != 0)
			continue;
		const json_t *s = json_object_get(f, "share");
		if (!json_is_number(s))
			return -1;
		*share = json_number_value(s);
		return 0;
	}
	return -1;
}
