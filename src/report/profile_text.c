/* profile_text.c - a perf profile as text: its top symbols and families,
 * and two profiles' families side by side (include/primbench/profile_text.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h> /* GNU basename: the part after the last '/' */

#include "primbench/profile_text.h"
#include "primbench/report.h"
#include "primbench/text.h"

/* ---- text ---------------------------------------------------------------- */

static void fmt_share(char *buf, size_t len, uint64_t part, uint64_t all)
{
	if (!all)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * (double)part / (double)all);
}

/* s cut to `width` columns, a cut marked by a final '+'. */
static void fit(char *buf, size_t len, const char *s, int width)
{
	if ((int)strlen(s) <= width)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%.*s+", width - 1, s);
}

static bool family_shown(const struct pb_profile *p, int f, bool preload)
{
	return !pb_prof_families[f].preload || preload || p->family[f] > 0;
}

/* A line per binary that had samples at addresses perf could not name:
 * "gzip has no symbols (stripped?) ..." when none of its samples had
 * one, else how many of them were at such addresses. */
static void print_no_symbols(FILE *f, const struct pb_profile *p, int indent)
{
	for (size_t i = 0; i < p->nsyms; i++) {
		const struct pb_prof_symbol *s = &p->syms[i];
		if (!s->addresses)
			continue;
		uint64_t named = 0;
		for (size_t j = 0; j < p->nsyms; j++)
			if (j != i && strcmp(p->syms[j].dso, s->dso) == 0)
				named += p->syms[j].samples;
		char line[1800], where[1100] = "";
		if (strcmp(basename(s->dso), s->dso) != 0)
			snprintf(where, sizeof where, " (%.1000s)", s->dso);
		if (named == 0)
			snprintf(line, sizeof line,
			         "%.300s has no symbols (stripped?): its %" PRIu64
			         " samples at %zu addresses are one row; a build with symbols, "
			         "or its debug symbols package, names its functions%s",
			         basename(s->dso), s->samples, s->addresses, where);
		else
			snprintf(line, sizeof line,
			         "%.300s: %" PRIu64 " of its %" PRIu64
			         " samples are at %zu address%s "
			         "without a symbol, shown as one row%s",
			         basename(s->dso), s->samples, s->samples + named, s->addresses,
			         s->addresses == 1 ? "" : "es", where);
		pb_print_wrapped_at(f, indent, indent + 3, line);
	}
}

void pb_profile_print(FILE *f, const struct pb_profile *p, size_t top, bool preload, int indent)
{
	char line[256];
	if (!p->samples) {
		fprintf(f, "%*sno samples (the command ran too briefly to be sampled?)\n", indent,
		        "");
		return;
	}
	/* indent + 9 + 1 + 6 + 2 + 18 + 1 + symbol <= PB_TEXT_WIDTH */
	int symw = PB_TEXT_WIDTH - indent - 37;
	if (symw < 20)
		symw = 20;
	fprintf(f, "%*s%9s %6s  %-18s %s\n", indent, "", "samples", "%", "binary", "symbol");
	for (size_t i = 0; i < p->nsyms && i < top; i++) {
		const struct pb_prof_symbol *s = &p->syms[i];
		char share[16], bin[32], sym[128];
		fmt_share(share, sizeof share, s->samples, p->samples);
		fit(bin, sizeof bin, s->kind == PB_PROF_KERNEL ? "[kernel]" : basename(s->dso), 18);
		char grouped[64];
		snprintf(grouped, sizeof grouped, "(no symbol: %zu address%s)", s->addresses,
		         s->addresses == 1 ? "" : "es");
		fit(sym, sizeof sym, s->addresses ? grouped : s->symbol, symw);
		fprintf(f, "%*s%9" PRIu64 " %6s  %-18s %s\n", indent, "", s->samples, share, bin,
		        sym);
	}
	if (p->nsyms > top)
		fprintf(f, "%*s%9s (%zu more symbol%s)\n", indent, "", "...", p->nsyms - top,
		        p->nsyms - top == 1 ? "" : "s");
	fprintf(f, "\n%*s%-27s %9s %6s\n", indent, "", "family", "samples", "%");
	for (int k = 0; k < PB_PROF_NFAMILIES; k++) {
		if (!family_shown(p, k, preload))
			continue;
		char n[32], share[16];
		if (pb_profile_family_counted(p, k)) {
			snprintf(n, sizeof n, "%" PRIu64, p->family[k]);
			fmt_share(share, sizeof share, p->family[k], p->samples);
		} else {
			snprintf(n, sizeof n, "-");
			snprintf(share, sizeof share, "-");
		}
		fprintf(f, "%*s%-27s %9s %6s\n", indent, "", pb_prof_families[k].label, n, share);
	}
	fprintf(f, "%*s%-27s %9" PRIu64 " %6s\n", indent, "", "all samples", p->samples, "100%");
	if (p->user_only) {
		snprintf(line, sizeof line,
		         "-: not counted: the event '%s' sampled user space only (perf falls back "
		         "to it when kernel.perf_event_paranoid > 1 and perf runs without root "
		         "or CAP_PERFMON; docs/profile.md)",
		         p->event);
		pb_print_wrapped_at(f, indent, indent + 3, line);
	} else if (p->kernel_hidden) {
		snprintf(line, sizeof line,
		         "-: not counted: %.0f%% of the kernel's %" PRIu64
		         " samples are bare addresses: kernel symbols are hidden from perf "
		         "(kernel.kptr_restrict; docs/profile.md)",
		         100.0 * (double)p->kernel_unresolved / (double)p->kernel_samples,
		         p->kernel_samples);
		pb_print_wrapped_at(f, indent, indent + 3, line);
	}
	print_no_symbols(f, p, indent);
}

/* The CPU time of one sample of a clock event, in ms; 0 when not known. */
static double ms_per_sample(const struct pb_profile *p)
{
	bool clock =
	    strncmp(p->event, "cpu-clock", 9) == 0 || strncmp(p->event, "task-clock", 10) == 0;
	return clock && p->samples && p->event_count > 0 ? p->event_count / (double)p->samples / 1e6
	                                                 : 0;
}

void pb_profile_print_vs(FILE *f, const struct pb_profile *a, const struct pb_profile *b,
                         bool preload)
{
	/* two blanks between the A, B and B - A groups: "A %" and "B samples"
	 * ran together with one */
	fprintf(f, "%-26s %9s %6s  %9s %6s  %9s\n", "family", "A samples", "A %", "B samples",
	        "B %", "B - A");
	for (int k = 0; k < PB_PROF_NFAMILIES; k++) {
		if (!family_shown(a, k, preload) && !family_shown(b, k, preload))
			continue;
		bool ca = pb_profile_family_counted(a, k) && a->samples,
		     cb = pb_profile_family_counted(b, k) && b->samples;
		char na[24] = "-", nb[24] = "-", sa[16] = "-", sb[16] = "-", d[24] = "-";
		if (ca) {
			snprintf(na, sizeof na, "%" PRIu64, a->family[k]);
			fmt_share(sa, sizeof sa, a->family[k], a->samples);
		}
		if (cb) {
			snprintf(nb, sizeof nb, "%" PRIu64, b->family[k]);
			fmt_share(sb, sizeof sb, b->family[k], b->samples);
		}
		if (ca && cb)
			snprintf(d, sizeof d, "%+.1f pt",
			         100.0 * ((double)b->family[k] / (double)b->samples -
			                  (double)a->family[k] / (double)a->samples));
		fprintf(f, "%-26s %9s %6s  %9s %6s  %9s\n", pb_prof_families[k].label, na, sa, nb,
		        sb, d);
	}
	fprintf(f, "%-26s %9" PRIu64 " %6s  %9" PRIu64 " %6s\n", "all samples", a->samples, "100%",
	        b->samples, "100%");
	double ma = ms_per_sample(a), mb = ms_per_sample(b);
	if (ma > 0 && mb > 0)
		fprintf(f, "one sample: %.3g ms of CPU time (A), %.3g ms (B)\n", ma, mb);
}

/* "16.3%", or "-" for NaN. */
static void share_text(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", pct);
}

void pb_share_two_ways_print(FILE *f, const char *side, const char *prim, double acct_pct,
                             double acct_min_pct, double overhead_ticks, uint64_t prof_samples,
                             uint64_t prof_all)
{
	char line[512], a[32], amin[32], lo_s[32], hi_s[32], p_s[32];
	fprintf(f, "%s%s share of CPU time, two ways:\n", side, prim);
	share_text(a, sizeof a, acct_pct);
	share_text(amin, sizeof amin, acct_min_pct);
	if (isnan(acct_pct))
		snprintf(line, sizeof line, "accounting - (no timed calls, or no TSC frequency)");
	else
		snprintf(line, sizeof line,
		         "accounting %s, at least %s (timed alone; up to one %.0f-tick timer "
		         "pair a call of serialisation)",
		         a, amin, overhead_ticks);
	pb_print_wrapped_at(f, 2, 4, line);
	if (prof_all == 0) {
		snprintf(line, sizeof line, "profile - (no samples)");
	} else {
		double lo, hi;
		pb_profile_share_ci95(prof_samples, prof_all, &lo, &hi);
		share_text(p_s, sizeof p_s, 100.0 * (double)prof_samples / (double)prof_all);
		share_text(lo_s, sizeof lo_s, 100 * lo);
		share_text(hi_s, sizeof hi_s, 100 * hi);
		snprintf(line, sizeof line,
		         "profile %s [%s, %s] (95%%, binomial; %" PRIu64 " of %" PRIu64 " samples)",
		         p_s, lo_s, hi_s, prof_samples, prof_all);
	}
	pb_print_wrapped_at(f, 2, 4, line);
}
