/* primbench/kernel_text.h - the kernel suite's text tables
 * (src/report/kernel_text.c): the shape of `mem clear_page`'s, so the two
 * sit side by side. Part of the report module. */
#ifndef PRIMBENCH_KERNEL_TEXT_H
#define PRIMBENCH_KERNEL_TEXT_H

#include <stdio.h>

#include "primbench/kernel_result.h"

/* Per cache state of r (hot, then flushed): a table whose rows are the
 * variants (the module's order) and columns the page sizes measured (4K,
 * 2M), each cell the median TSC ticks per 4 KiB page (a 2 MiB page's
 * median / 512), '*' on the fastest of its column and '=' on every
 * variant not shown slower than it (pb_mem_mark's one rule: pb_verdict
 * on their ratio, PB_EQUIVALENCE), '-' where nothing was measured; then
 * the same cells in GB/s at the module's tsc_khz. Nothing for a state
 * without cases. */
void pb_print_kernel_tables(FILE *f, const struct pb_kernel_result *r);

/* The variants of info, one a line: name, available or why not, flags;
 * then INFO's release, module version, tsc_khz and limits (`primbench
 * kernel --list`). */
void pb_print_kernel_info(FILE *f, const struct pb_kmod_info *info, const char *device);

#endif
