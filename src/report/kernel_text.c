/* kernel_text.c - the kernel suite's text tables
 * (include/primbench/kernel_text.h): the cells, marks and widths of
 * `mem clear_page`'s tables (table.c), for variants of the module. */
#include "primbench/kernel_text.h"

#include <math.h>
#include <string.h>

#include "primbench/mem_result.h"
#include "primbench/report.h"
#include "primbench/twosample.h"

#define NAME_WIDTH 18
#define CELL_WIDTH 9 /* value (7) + marker (1) + space, as table.c's */

/* The state's description, as table.c's state_desc says mem's. */
static const char *state_desc(uint32_t st)
{
	return st == PB_KS_HOT ? "hot (the same 2 pages every call, alternating)"
	                       : "flushed (distinct pages, each flushed from every cache level "
	                         "with clflush before the batch)";
}

/* A mem-case view of c for pb_mem_mark: its samples and replicates. */
static struct pb_mem_case view_of(const struct pb_kernel_case *c)
{
	return (struct pb_mem_case){.n_samples = c->n_samples,
	                            .batch_ticks = c->batch_ticks,
	                            .batch_calls = c->batch_calls,
	                            .ticks_per_call = c->ticks_per_call,
	                            .size_bytes = c->page_bytes,
	                            .n_replicates = c->n_replicates,
	                            .replicate_samples = c->replicate_samples};
}

static const struct pb_kernel_case *find(const struct pb_kernel_result *r, uint32_t v,
                                         uint32_t order, uint32_t st)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->variant == v && c->page_order == order && c->state == st && !c->skipped &&
		    c->n_samples)
			return c;
	}
	return NULL;
}

static const struct pb_kernel_case *fastest(const struct pb_kernel_result *r, uint32_t order,
                                            uint32_t st)
{
	const struct pb_kernel_case *best = NULL;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->page_order == order && c->state == st && c->n_samples &&
		    (!best || c->ticks_per_call.median < best->ticks_per_call.median))
			best = c;
	}
	return best;
}

/* One table of state st: ticks per 4 KiB page (gb false) or GB/s. */
static void one_table(FILE *f, const struct pb_kernel_result *r, uint32_t st, bool gb,
                      const uint32_t *orders, size_t no, const uint32_t *vars, size_t nv)
{
	if (gb)
		fprintf(f, "median GB/s (1e9 bytes/s at the module's tsc_khz), higher is better\n");
	fprintf(f, "%-*s", NAME_WIDTH, "variant");
	for (size_t j = 0; j < no; j++)
		fprintf(f, "%*s%s", CELL_WIDTH - 1, orders[j] ? "2M" : "4K", j + 1 < no ? " " : "");
	fputc('\n', f);
	for (size_t i = 0; i < nv; i++) {
		fprintf(f, "%-*s", NAME_WIDTH, pb_kmod_variant_name(&r->info, vars[i]));
		for (size_t j = 0; j < no; j++) {
			bool last = j + 1 == no;
			const struct pb_kernel_case *c = find(r, vars[i], orders[j], st);
			if (!c) {
				fprintf(f, "%*s%s", CELL_WIDTH - 1, "-", last ? "" : " ");
				continue;
			}
			double med = c->ticks_per_call.median;
			double val = gb ? pb_kernel_gb_per_s(med, c->page_bytes, r->info.tsc_khz)
			                : pb_kernel_ticks_per_4k(med, c->page_bytes);
			char mark = ' ';
			if (isfinite(val) && val != 0) {
				struct pb_mem_case a = view_of(c),
				                   b = view_of(fastest(r, orders[j], st));
				mark = c == fastest(r, orders[j], st) ? '*' : pb_mem_mark(&a, &b);
			}
			char v[24];
			pb_format_sig3(v, sizeof v, val);
			fprintf(f, "%*s", CELL_WIDTH - 2, v);
			if (mark != ' ' || !last)
				fputc(mark, f);
			if (!last)
				fputc(' ', f);
		}
		fputc('\n', f);
	}
}

void pb_print_kernel_tables(FILE *f, const struct pb_kernel_result *r)
{
	for (uint32_t st = PB_KS_HOT; st <= PB_KS_FLUSHED; st++) {
		uint32_t orders[2], vars[PB_KMOD_MAX_VARIANTS];
		size_t no = 0, nv = 0;
		for (uint32_t o = 0; o <= PB_KMOD_ORDER_2M; o += PB_KMOD_ORDER_2M)
			for (size_t i = 0; i < r->n_cases; i++)
				if (r->cases[i].state == st && r->cases[i].page_order == o) {
					orders[no++] = o;
					break;
				}
		for (size_t i = 0; i < r->n_cases; i++) {
			const struct pb_kernel_case *c = &r->cases[i];
			bool seen = c->state != st;
			for (size_t j = 0; j < nv && !seen; j++)
				seen = vars[j] == c->variant;
			if (!seen && nv < PB_KMOD_MAX_VARIANTS)
				vars[nv++] = c->variant;
		}
		if (!no || !nv)
			continue;
		fprintf(f, "\nkernel clear_page, %s%s\n", state_desc(st),
		        r->cases[0].irqs_off ? ", interrupts off" : "");
		fprintf(f, "median ticks/page (TSC ticks, per 4 KiB: a 2M page's / 512), lower is "
		           "better\n");
		fprintf(f,
		        "* fastest; = not shown slower than it beyond +-%g%% (ratio's 95%% CI)\n",
		        100 * pb_equivalence());
		one_table(f, r, st, false, orders, no, vars, nv);
		one_table(f, r, st, true, orders, no, vars, nv);
	}
}

void pb_print_kernel_info(FILE *f, const struct pb_kmod_info *in, const char *device)
{
	fprintf(f, "%s: module %s (ABI %u), kernel %s\n", device, in->module_version,
	        in->abi_version, in->release);
	fprintf(f,
	        "tsc_khz %llu; a request: at most %u bytes of pages a batch, %u batches, "
	        "%u ms\n",
	        (unsigned long long)in->tsc_khz, in->max_calls_bytes, in->max_batches,
	        in->max_request_ms);
	fprintf(f, "%-18s %-9s %s\n", "variant", "available", "flags, or why not");
	for (uint32_t i = 0; i < in->n_variants; i++) {
		const struct pb_kmod_variant_info *v = &in->variants[i];
		char flags[64] = "";
		if (v->flags & PB_KVF_KERNEL)
			strcat(flags, "kernel's");
		if (v->flags & PB_KVF_FPU)
			strcat(flags, *flags ? " fpu" : "fpu");
		if (v->flags & PB_KVF_NT)
			strcat(flags, *flags ? " non-temporal" : "non-temporal");
		bool ok = v->flags & PB_KVF_AVAILABLE;
		const char *text = ok ? flags : v->why;
		if (*text)
			fprintf(f, "%-18s %-9s %s\n", v->name, ok ? "yes" : "no", text);
		else /* no trailing blanks */
			fprintf(f, "%-18s %s\n", v->name, ok ? "yes" : "no");
	}
}
