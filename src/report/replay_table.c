/* replay_table.c - the text table of a distribution replay
 * (pb_print_mem_replay in include/primbench/report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "primbench/report.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/twosample.h"

void pb_print_mem_replay(FILE *f, const struct pb_mem_result *r, enum pb_cache_state st)
{
	const struct pb_mem_case *first = NULL, *best = NULL, *libc = NULL;
	int nw = (int)strlen("kernel");
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (!c->replay || c->state != st)
			continue;
		if (!first)
			first = c;
		if ((int)strlen(c->kernel->name) > nw)
			nw = (int)strlen(c->kernel->name);
		if (!c->n_samples)
			continue;
		if (!best || c->ticks_per_call.median < best->ticks_per_call.median)
			best = c;
		if (!strcmp(c->kernel->name, "libc"))
			libc = c;
	}
	if (!first)
		return;
	const struct pb_mem_replay *rp = first->replay;
	const struct pb_distribution *d = rp->dist;
	char line[8192];
	fprintf(f, "\n%s: replay of %s, %s\n", pb_op_name(first->op), d->name,
	        pb_cache_state_name(st));
	snprintf(line, sizeof line, "file: %s", d->path);
	pb_print_wrapped_at(f, 0, 6, line);
	double n = (double)rp->batch_calls;
	snprintf(line, sizeof line,
	         "batch: %zu call%s drawn with seed %llu, offsets %s%s; %.1f%% of them <= 128 B "
	         "(file: %.1f%%), mean %.1f B/call (file: %.1f)",
	         rp->batch_calls, pb_plural(rp->batch_calls), (unsigned long long)rp->seed,
	         pb_replay_offsets_name(rp->offsets),
	         rp->offsets == PB_OFFSETS_RANDOM ? " (dst, src: 0..63)" : " (dst, src: 0)",
	         100.0 * (double)rp->batch_le_128 / n, 100.0 * d->share_le_128,
	         (double)rp->batch_bytes / n, d->mean_bytes);
	pb_print_wrapped_at(f, 0, 7, line);
	fprintf(f, "medians per call; x libc = libc's ns/call over the kernel's (> 1: faster)\n");
	fprintf(f, "* fastest; = not shown slower than it beyond +-%g%% (ratio's 95%% CI)\n",
	        100 * pb_equivalence());
	fprintf(f, "%-*s %10s %11s %11s %8s %7s\n", nw, "kernel", "ns/call", "ticks/call",
	        "bytes/tick", "x libc", "CI +-%");
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		if (c->replay != rp || c->state != st)
			continue;
		if (!c->n_samples) {
			fprintf(f, "%-*s %10s\n", nw, c->kernel->name, "-");
			continue;
		}
		const struct pb_summary *s = &c->ticks_per_call;
		char ns[24], tk[24], bt[24], ratio[24] = "-", ci[24] = "-";
		pb_format_sig3(ns, sizeof ns, pb_ticks_to_ns(s->median));
		pb_format_sig3(tk, sizeof tk, s->median);
		pb_format_sig3(bt, sizeof bt,
		               s->median > 0 ? (double)rp->batch_bytes / n / s->median : INFINITY);
		if (libc && s->median > 0)
			snprintf(ratio, sizeof ratio, "%.3f",
			         libc->ticks_per_call.median / s->median);
		if (s->ci_valid && s->median > 0)
			snprintf(ci, sizeof ci, "%.1f", 50.0 * (s->ci_hi - s->ci_lo) / s->median);
		char m = pb_mem_mark(c, best);
		const char *mark = m == '*' ? " *" : m == '=' ? " =" : "";
		fprintf(f, "%-*s %10s %11s %11s %8s %7s%s\n", nw, c->kernel->name, ns, tk, bt,
		        ratio, ci, mark);
	}
}
