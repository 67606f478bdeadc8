/* kernel_text.c - the kernel suite's text tables
 * (include/primbench/kernel_text.h): for clear_page and copy_page the
 * cells, marks and widths of `mem clear_page`'s tables (table.c), for
 * variants of the module; fpu's and user_copy's own tables; the SIMD
 * break-even lines. */
#include "primbench/kernel_text.h"

#include <math.h>
#include <string.h>

#include "primbench/mem_result.h"
#include "primbench/report.h"
#include "primbench/text.h"
#include "primbench/twosample.h"

#define NAME_WIDTH 18
#define CELL_WIDTH 9 /* value (7) + marker (1) + space, as table.c's */

/* The state's description, as table.c's state_desc says mem's. */
static const char *state_desc(uint32_t op, uint32_t st)
{
	if (op == PB_KOP_COPY_PAGE)
		return st == PB_KS_HOT
		           ? "hot (the same 2 pairs of pages every call, alternating)"
		           : "flushed (distinct pairs of pages, each flushed from every "
		             "cache level with clflush before the batch)";
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

static const struct pb_kernel_case *fastest(const struct pb_kernel_result *r, uint32_t op,
                                            uint32_t order, uint32_t st)
{
	const struct pb_kernel_case *best = NULL;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->op == op && c->page_order == order && c->state == st && c->n_samples &&
		    (!best || c->ticks_per_call.median < best->ticks_per_call.median))
			best = c;
	}
	return best;
}

/* One table of op and state st: ticks per 4 KiB page (gb false) or GB/s. */
static void one_table(FILE *f, const struct pb_kernel_result *r, uint32_t op, uint32_t st, bool gb,
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
				const struct pb_kernel_case *best = fastest(r, op, orders[j], st);
				struct pb_mem_case a = view_of(c), b = view_of(best);
				mark = c == best ? '*' : pb_mem_mark(&a, &b);
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

/* clear_page's or copy_page's tables: per state, ticks per 4 KiB page,
 * then GB/s. */
static void page_tables(FILE *f, const struct pb_kernel_result *r, uint32_t op)
{
	for (uint32_t st = PB_KS_HOT; st <= PB_KS_FLUSHED; st++) {
		uint32_t orders[2], vars[PB_KMOD_MAX_VARIANTS];
		size_t no = 0, nv = 0;
		bool irqs_off = false;
		for (uint32_t o = 0; o <= PB_KMOD_ORDER_2M; o += PB_KMOD_ORDER_2M)
			for (size_t i = 0; i < r->n_cases; i++)
				if (r->cases[i].op == op && r->cases[i].state == st &&
				    r->cases[i].page_order == o) {
					orders[no++] = o;
					break;
				}
		for (size_t i = 0; i < r->n_cases; i++) {
			const struct pb_kernel_case *c = &r->cases[i];
			bool seen = c->state != st || c->op != op;
			irqs_off |= !seen && c->irqs_off;
			for (size_t j = 0; j < nv && !seen; j++)
				seen = vars[j] == c->variant;
			if (!seen && nv < PB_KMOD_MAX_VARIANTS)
				vars[nv++] = c->variant;
		}
		if (!no || !nv)
			continue;
		fprintf(f, "\nkernel %s, %s%s\n", pb_kmod_op_name(op), state_desc(op, st),
		        irqs_off ? ", interrupts off" : "");
		fprintf(f, "median ticks/page (TSC ticks, per 4 KiB: a 2M page's / 512), lower is "
		           "better\n");
		fprintf(f,
		        "* fastest; = not shown slower than it beyond +-%g%% (ratio's 95%% CI)\n",
		        100 * pb_equivalence());
		one_table(f, r, op, st, false, orders, no, vars, nv);
		one_table(f, r, op, st, true, orders, no, vars, nv);
	}
}

/* A cell's text right-aligned in w columns, then a blank unless last. */
static void cell(FILE *f, int w, double v, bool last)
{
	char b[24];
	if (isfinite(v))
		pb_format_sig3(b, sizeof b, v);
	else
		snprintf(b, sizeof b, "-");
	fprintf(f, "%*s%s", w, b, last ? "" : " ");
}

static const struct pb_kernel_case *find_fpu(const struct pb_kernel_result *r, const char *name,
                                             uint32_t u)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->op == PB_KOP_FPU && c->upper == u && !strcmp(c->name, name) && !c->skipped &&
		    c->n_samples)
			return c;
	}
	return NULL;
}

#define FPU_NAME_WIDTH 36

/* fpu: rows the variants and the round trip, columns the upper states;
 * ticks, then ns. */
static void fpu_tables(FILE *f, const struct pb_kernel_result *r)
{
	uint32_t ups[PB_KU_COUNT];
	size_t nu = 0;
	for (uint32_t u = 0; u < PB_KU_COUNT; u++)
		for (size_t i = 0; i < r->n_cases; i++)
			if (r->cases[i].op == PB_KOP_FPU && r->cases[i].upper == u) {
				ups[nu++] = u;
				break;
			}
	const char *names[PB_KMOD_MAX_VARIANTS];
	size_t nv = 0;
	bool irqs_off = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->op != PB_KOP_FPU)
			continue;
		irqs_off |= c->irqs_off;
		bool seen = false;
		for (size_t j = 0; j < nv && !seen; j++)
			seen = !strcmp(names[j], c->name);
		if (!seen && nv < PB_KMOD_MAX_VARIANTS)
			names[nv++] = c->name;
	}
	if (!nu || !nv)
		return;
	fprintf(f,
	        "\nkernel fpu: kernel_fpu_begin/end by the task's upper state before the "
	        "ioctl%s\n",
	        irqs_off ? " (begin_end, save_restore: interrupts off)" : "");
	fprintf(f, "begin_end, save_restore: per pair, timed in the kernel; ioctl_null, "
	           "ioctl_fpu: per ioctl,\ntimed from user space (the upper state set before "
	           "each)\n");
	for (int ns = 0; ns < 2; ns++) {
		fprintf(f, ns ? "median ns per call (at the module's tsc_khz)\n"
		              : "median ticks per call (TSC ticks), lower is better\n");
		fprintf(f, "%-*s", FPU_NAME_WIDTH, "variant");
		for (size_t j = 0; j < nu; j++)
			fprintf(f, "%*s%s", CELL_WIDTH - 1, pb_kernel_upper_name(ups[j]),
			        j + 1 < nu ? " " : "");
		fputc('\n', f);
		for (size_t i = 0; i <= nv; i++) {
			bool trip = i == nv;
			if (trip && (!find_fpu(r, "ioctl_fpu", ups[0]) &&
			             !find_fpu(r, "ioctl_fpu", ups[nu - 1])))
				break;
			fprintf(f, "%-*s", FPU_NAME_WIDTH,
			        trip ? "round trip (ioctl_fpu - ioctl_null)" : names[i]);
			for (size_t j = 0; j < nu; j++) {
				double v;
				if (trip) {
					const struct pb_kernel_case *a = find_fpu(r, "ioctl_fpu",
					                                          ups[j]),
					                            *b = find_fpu(r, "ioctl_null",
					                                          ups[j]);
					v = a && b ? a->ticks_per_call.median -
					                 b->ticks_per_call.median
					           : NAN;
				} else {
					const struct pb_kernel_case *c =
					    find_fpu(r, names[i], ups[j]);
					v = c ? c->ticks_per_call.median : NAN;
				}
				if (ns)
					v = pb_kernel_ns(v, r->info.tsc_khz);
				cell(f, CELL_WIDTH - 1, v, j + 1 == nu);
			}
			fputc('\n', f);
		}
	}
}

#define UC_NAME_WIDTH 24

/* user_copy: rows variant x cache state, columns the sizes; ticks per
 * call, then GB/s. */
static void user_copy_tables(FILE *f, const struct pb_kernel_result *r)
{
	uint64_t sizes[PB_KERNEL_MAX_SIZES];
	uint32_t vars[PB_KMOD_MAX_VARIANTS];
	size_t nz = 0, nv = 0;
	bool irqs_off = false;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_kernel_case *c = &r->cases[i];
		if (c->op != PB_KOP_USER_COPY)
			continue;
		irqs_off |= c->irqs_off;
		bool seen = false;
		for (size_t j = 0; j < nz && !seen; j++)
			seen = sizes[j] == c->size_bytes;
		if (!seen && nz < PB_KERNEL_MAX_SIZES)
			sizes[nz++] = c->size_bytes;
		seen = false;
		for (size_t j = 0; j < nv && !seen; j++)
			seen = vars[j] == c->variant;
		if (!seen)
			vars[nv++] = c->variant;
	}
	if (!nz || !nv)
		return;
	fprintf(f,
	        "\nkernel user_copy: one call copies (clears) SIZE bytes of primbench's buffer%s\n",
	        irqs_off ? ", interrupts off" : "");
	fprintf(f, "hot: the same bytes every call; flushed: distinct regions, flushed from every "
	           "cache level before the batch\n");
	for (int gb = 0; gb < 2; gb++) {
		fprintf(f,
		        gb ? "median GB/s (1e9 bytes/s at the module's tsc_khz), higher is better\n"
		           : "median ticks per call (TSC ticks), lower is better\n");
		fprintf(f, "%-*s", UC_NAME_WIDTH, "variant");
		for (size_t j = 0; j < nz; j++) {
			char h[24];
			pb_format_bytes_exact(h, sizeof h, sizes[j]);
			fprintf(f, "%*s%s", CELL_WIDTH - 1, h, j + 1 < nz ? " " : "");
		}
		fputc('\n', f);
		for (size_t i = 0; i < nv; i++)
			for (uint32_t st = PB_KS_HOT; st <= PB_KS_FLUSHED; st++) {
				bool any = false;
				for (size_t k = 0; k < r->n_cases && !any; k++)
					any = r->cases[k].variant == vars[i] &&
					      r->cases[k].state == st;
				if (!any)
					continue;
				char row[64];
				snprintf(row, sizeof row, "%s %s",
				         pb_kmod_variant_name(&r->info, vars[i]),
				         pb_kmod_state_name(st));
				fprintf(f, "%-*s", UC_NAME_WIDTH, row);
				for (size_t j = 0; j < nz; j++) {
					double v = NAN;
					for (size_t k = 0; k < r->n_cases; k++) {
						const struct pb_kernel_case *c = &r->cases[k];
						if (c->variant == vars[i] && c->state == st &&
						    c->size_bytes == sizes[j] && !c->skipped &&
						    c->n_samples)
							v = gb ? pb_kernel_copy_gb_per_s(
							             c->ticks_per_call.median,
							             c->size_bytes, r->info.tsc_khz)
							       : c->ticks_per_call.median;
					}
					cell(f, CELL_WIDTH - 1, v, j + 1 == nz);
				}
				fputc('\n', f);
			}
	}
}

void pb_print_kernel_breakevens(FILE *f, const struct pb_kernel_result *r)
{
	struct pb_kernel_breakeven b[2 * PB_KU_COUNT * PB_KMOD_MAX_VARIANTS];
	size_t n = pb_kernel_breakevens(r, b, sizeof b / sizeof *b);
	if (!n)
		return;
	fprintf(f, "\nbreak-even (4 KiB hot medians; round trip: ioctl_fpu - ioctl_null at that "
	           "upper state)\n");
	for (size_t i = 0; i < n; i++) {
		if (b[i].never) {
			fprintf(f,
			        "%s: %s inside kernel_fpu_begin/end never beats %s (not faster per "
			        "page), %s upper state\n",
			        pb_kmod_op_name(b[i].op), b[i].simd_name, b[i].rep_name,
			        pb_kernel_upper_name(b[i].upper));
			continue;
		}
		char bytes[32];
		pb_format_bytes(bytes, sizeof bytes, (double)b[i].pages * 4096, PB_BYTES_IEC);
		fprintf(f,
		        "%s: %s inside kernel_fpu_begin/end beats %s from %llu page%s (%s) per "
		        "system call, %s upper state\n",
		        pb_kmod_op_name(b[i].op), b[i].simd_name, b[i].rep_name,
		        (unsigned long long)b[i].pages, b[i].pages == 1 ? "" : "s", bytes,
		        pb_kernel_upper_name(b[i].upper));
	}
}

void pb_print_kernel_tables(FILE *f, const struct pb_kernel_result *r)
{
	page_tables(f, r, PB_KOP_CLEAR_PAGE);
	page_tables(f, r, PB_KOP_COPY_PAGE);
	fpu_tables(f, r);
	user_copy_tables(f, r);
	pb_print_kernel_breakevens(f, r);
}

void pb_print_kernel_info(FILE *f, const struct pb_kmod_info *in, const char *device)
{
	fprintf(f, "%s: module %s (ABI %u), kernel %s\n", device, in->module_version,
	        in->abi_version, in->release);
	fprintf(f,
	        "tsc_khz %llu; a request: at most %u bytes of pages a batch, %llu user bytes, "
	        "%u batches, %u ms\n",
	        (unsigned long long)in->tsc_khz, in->max_calls_bytes,
	        (unsigned long long)in->max_user_bytes, in->max_batches, in->max_request_ms);
	for (uint32_t op = 0; op < PB_KOP_COUNT; op++) {
		bool any = false;
		for (uint32_t i = 0; i < in->n_variants && !any; i++)
			any = in->variants[i].op == op;
		if (!any)
			continue;
		fprintf(f, "\n%s\n", pb_kmod_op_name(op));
		fprintf(f, "%-18s %-9s %s\n", "variant", "available", "flags, or why not");
		for (uint32_t i = 0; i < in->n_variants; i++) {
			const struct pb_kmod_variant_info *v = &in->variants[i];
			if (v->op != op)
				continue;
			char flags[64] = "";
			if (v->flags & PB_KVF_KERNEL)
				strcat(flags, "kernel's");
			if (v->flags & PB_KVF_FPU)
				strcat(flags, *flags ? " fpu" : "fpu");
			if (v->flags & PB_KVF_NT)
				strcat(flags, *flags ? " non-temporal" : "non-temporal");
			if (v->flags & PB_KVF_CALL)
				strcat(flags, *flags ? " timed-from-user" : "timed-from-user");
			bool ok = v->flags & PB_KVF_AVAILABLE;
			const char *text = ok ? flags : v->why;
			if (*text)
				fprintf(f, "%-18s %-9s %s\n", v->name, ok ? "yes" : "no", text);
			else /* no trailing blanks */
				fprintf(f, "%-18s %s\n", v->name, ok ? "yes" : "no");
		}
	}
}
