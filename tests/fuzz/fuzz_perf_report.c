/* fuzz_perf_report.c - the perf report text parser (pb_profile_parse,
 * include/primbench/profile.h, src/results/profile.c, docs/profile.md) and
 * what `cmd --profile` does with a parsed profile.
 *
 * Input: the text of `perf report --stdio --no-children --sort dso,sym -n
 * -g none`. A profile that parses:
 *  - its sums agree with its rows (samples, kernel samples, families;
 *    rows sorted by samples, most first; each row in the family
 *    pb_prof_family_of gives it);
 *  - merged into a second parse of the same text, every count doubles and
 *    runs is 2 (pb_profile_merge matches rows on dso and symbol); merged
 *    into an empty profile of its event, it is itself; a profile of
 *    another event is refused;
 *  - pb_profile_family_counted of every family, the share intervals
 *    (pb_profile_share_ci95) inside [0, 1];
 *  - its JSON (pb_profile_json, the cmd case's "profile" object) gives the
 *    families' shares back (pb_profile_json_share);
 *  - the text (pb_profile_print, pb_profile_print_vs,
 *    pb_share_two_ways_print) to /dev/null.
 * Outcome: "ok EVENT: N samples in R rows, L lost" or the parser's error. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/error.h"
#include "primbench/profile.h"
#include "primbench/profile_text.h"
#include "results/results_json.h"

/* The largest input read (bytes): a row is matched against every row
 * before it (add_row's linear search, fine for perf's few hundred rows),
 * so the cost grows with the square of the rows. The fixtures of
 * tests/data/perf are at most 6.3 KiB. */
#define MAX_INPUT (16 * 1024)

/* The sums of p against its rows. */
static void check_sums(const struct pb_profile *p, const char *what)
{
	uint64_t all = 0, kernel = 0, unresolved = 0, fam[PB_PROF_NFAMILIES] = {0};
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct pb_prof_symbol *s = &p->syms[i];
		all += s->samples;
		if (s->kind == PB_PROF_KERNEL) {
			kernel += s->samples;
			if (s->unresolved)
				unresolved += s->samples;
		}
		if (s->family != pb_prof_family_of(s->kind, s->dso, s->symbol))
			pb_fuzz_fail("%s: row %zu (%s %s) in family %d, not %d", what, i, s->dso,
			             s->symbol, s->family,
			             pb_prof_family_of(s->kind, s->dso, s->symbol));
		if (s->family >= 0)
			fam[s->family] += s->samples;
		if (i > 0 && p->syms[i - 1].samples < s->samples)
			pb_fuzz_fail("%s: row %zu has more samples than the row before it", what,
			             i);
		for (size_t j = 0; j < i && p->nsyms <= 256; j++)
			if (!strcmp(p->syms[j].dso, s->dso) &&
			    !strcmp(p->syms[j].symbol, s->symbol))
				pb_fuzz_fail("%s: rows %zu and %zu are both %s %s", what, j, i,
				             s->dso, s->symbol);
	}
	if (all != p->samples || kernel != p->kernel_samples || unresolved != p->kernel_unresolved)
		pb_fuzz_fail("%s: sums %" PRIu64 " %" PRIu64 " %" PRIu64 " of rows %" PRIu64
		             " %" PRIu64 " %" PRIu64,
		             what, p->samples, p->kernel_samples, p->kernel_unresolved, all, kernel,
		             unresolved);
	for (size_t i = 0; i < p->nsyms; i++)
		if (p->syms[i].samples > p->samples)
			pb_fuzz_fail("%s: row %zu has %" PRIu64 " of %" PRIu64 " samples", what, i,
			             p->syms[i].samples, p->samples);
	for (int f = 0; f < PB_PROF_NFAMILIES; f++)
		if (fam[f] != p->family[f] || fam[f] > p->samples)
			pb_fuzz_fail("%s: family %s has %" PRIu64 " samples, its rows %" PRIu64,
			             what, pb_prof_families[f].name, p->family[f], fam[f]);
}

/* Whether a and b hold the same rows (in the same order) and counts. */
static bool same_counts(const struct pb_profile *a, const struct pb_profile *b, uint64_t times)
{
	if (a->nsyms != b->nsyms || a->samples * times != b->samples ||
	    a->kernel_samples * times != b->kernel_samples || a->lost * times != b->lost)
		return false;
	for (int f = 0; f < PB_PROF_NFAMILIES; f++)
		if (a->family[f] * times != b->family[f])
			return false;
	for (size_t i = 0; i < a->nsyms; i++)
		if (strcmp(a->syms[i].dso, b->syms[i].dso) ||
		    strcmp(a->syms[i].symbol, b->syms[i].symbol) ||
		    a->syms[i].samples * times != b->syms[i].samples ||
		    a->syms[i].addresses != b->syms[i].addresses)
			return false;
	return true;
}

static void check_json(const struct pb_profile *p)
{
	json_t *o = pb_profile_json(p, 30);
	char *s = json_dumps(o, JSON_COMPACT);
	if (!s)
		pb_fuzz_fail("the profile's JSON does not write");
	free(s);
	for (int f = 0; f < PB_PROF_NFAMILIES; f++) {
		double share;
		int rc = pb_profile_json_share(o, pb_prof_families[f].name, &share);
		bool has = pb_profile_family_counted(p, f) && p->samples;
		if (has != (rc == 0))
			pb_fuzz_fail("family %s: share %s in the JSON", pb_prof_families[f].name,
			             rc == 0 ? "given" : "missing");
		if (has && share != (double)p->family[f] / (double)p->samples)
			pb_fuzz_fail("family %s: share %g in the JSON, %" PRIu64 " of %" PRIu64,
			             pb_prof_families[f].name, share, p->family[f], p->samples);
		double lo, hi;
		pb_profile_share_ci95(p->family[f], p->samples, &lo, &hi);
		if (p->samples && !(0 <= lo && lo <= hi && hi <= 1))
			pb_fuzz_fail("family %s: interval [%g, %g] of %" PRIu64 " in %" PRIu64,
			             pb_prof_families[f].name, lo, hi, p->family[f], p->samples);
	}
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	const char *text = (const char *)data;
	struct pb_profile p;
	if (pb_profile_parse(text, size, &p) != 0) {
		pb_fuzz_outcome("error: %s", pb_error());
		pb_profile_free(&p);
		return 0;
	}
	pb_fuzz_outcome("ok '%s'%s: %" PRIu64 " samples in %zu rows, %" PRIu64 " lost%s", p.event,
	                p.user_only ? " (user only)" : "", p.samples, p.nsyms, p.lost,
	                p.kernel_hidden ? ", kernel hidden" : "");
	check_sums(&p, "parsed");
	for (int f = -1; f <= PB_PROF_NFAMILIES; f++)
		(void)pb_profile_family_counted(&p, f);
	check_json(&p);
	pb_profile_print(pb_fuzz_devnull(), &p, 10, false, 2);
	pb_profile_print(pb_fuzz_devnull(), &p, 40, true, 0);
	/* cmd --account=ticks --profile's line on memset's share: the
	 * accounting figures are the caller's (unknown here: NaN) */
	pb_share_two_ways_print(pb_fuzz_devnull(), "A ", "memset", NAN, NAN, 50,
	                        p.family[PB_PROF_LIBC_MEMSET] + p.family[PB_PROF_PB_MEMSET],
	                        p.samples);

	/* the same text again, merged: every count twice */
	struct pb_profile q;
	if (pb_profile_parse(text, size, &q) != 0)
		pb_fuzz_fail("a second parse fails: %s", pb_error());
	if (pb_profile_merge(&q, &p) != 0) {
		/* counts that add up past 2^64 - 1 are refused */
		if (p.samples <= UINT64_MAX / 2 && p.lost <= UINT64_MAX / 2)
			pb_fuzz_fail("merging a profile into its copy: %s", pb_error());
		pb_fuzz_outcome("merged with itself: %s", pb_error());
		pb_profile_free(&q);
		pb_profile_free(&p);
		return 0;
	}
	check_sums(&q, "merged");
	if (q.runs != 2 || !same_counts(&p, &q, 2))
		pb_fuzz_fail("a profile merged into its copy: %zu runs, %" PRIu64
		             " samples in %zu rows (of %" PRIu64 " in %zu)",
		             q.runs, q.samples, q.nsyms, p.samples, p.nsyms);
	pb_profile_print_vs(pb_fuzz_devnull(), &p, &q, true);
	check_json(&q);

	/* into an empty profile of the same event: itself */
	struct pb_profile e = {0};
	snprintf(e.event, sizeof e.event, "%s", p.event);
	if (pb_profile_merge(&e, &p) != 0)
		pb_fuzz_fail("merging into an empty profile: %s", pb_error());
	if (e.runs != 1 || !same_counts(&p, &e, 1) || e.kernel_hidden != p.kernel_hidden ||
	    e.user_only != p.user_only)
		pb_fuzz_fail("a profile merged into an empty one is not itself");
	pb_profile_free(&e);

	/* another event is refused */
	struct pb_profile other = {0};
	snprintf(other.event, sizeof other.event, "%s", strcmp(p.event, "x") ? "x" : "y");
	if (pb_profile_merge(&other, &p) == 0)
		pb_fuzz_fail("merged profiles of events '%s' and '%s'", other.event, p.event);
	pb_profile_free(&other);

	pb_profile_free(&q);
	pb_profile_free(&p);
	return 0;
}
