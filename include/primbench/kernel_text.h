/* primbench/kernel_text.h - the kernel suite's text tables
 * (src/report/kernel_text.c): the shape of `mem clear_page`'s, so the two
 * sit side by side. Part of the report module. */
#ifndef PRIMBENCH_KERNEL_TEXT_H
#define PRIMBENCH_KERNEL_TEXT_H

#include <stdio.h>

#include "primbench/kernel_result.h"

/* The tables of every op r measured, in the order clear_page,
 * copy_page, fpu, user_copy, then the break-even lines:
 * - clear_page, copy_page: per cache state (hot, then flushed) a table
 *   whose rows are the variants (the module's order) and columns the page
 *   sizes measured (4K, 2M), each cell the median TSC ticks per 4 KiB page
 *   (a 2 MiB page's median / 512), '*' on the fastest of its column and
 *   '=' on every variant not shown slower than it (pb_mem_mark's one rule:
 *   pb_verdict on their ratio, PB_EQUIVALENCE), '-' where nothing was
 *   measured; then the same cells in GB/s at the module's tsc_khz. Nothing
 *   for a state without cases.
 * - fpu: rows the variants, then "round trip (ioctl_fpu - ioctl_null)";
 *   columns the upper states; median ticks per call, then ns.
 * - user_copy: rows variant x cache state, columns the sizes; median
 *   ticks per call, then GB/s.
 * - pb_print_kernel_breakevens. */
void pb_print_kernel_tables(FILE *f, const struct pb_kernel_result *r);

/* One line per break-even of r (pb_kernel_breakevens), after a heading:
 * "clear_page: avx2 inside kernel_fpu_begin/end beats rep_stosb from 3
 * pages (12 KiB) per system call, dirty upper state", or "... never beats
 * rep_stosb (not faster per page), ..."; nothing when there is none. */
void pb_print_kernel_breakevens(FILE *f, const struct pb_kernel_result *r);

/* INFO's release, module version, tsc_khz and limits, then per op a
 * heading and its variants, one a line: name, available or why not,
 * flags (`primbench kernel --list`). */
void pb_print_kernel_info(FILE *f, const struct pb_kmod_info *info, const char *device);

#endif
