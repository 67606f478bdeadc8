/* primbench/kernel_vs_user.h - `primbench kernel --vs-user FILE...`: the
 * kernel suite's figures beside user space's in one table
 * (docs/kernel.md). Part of the report module.
 *
 * The files are any mix of result files: a `primbench kernel` file (its
 * clear_page, copy_page and fpu cases and its kernel.breakeven array,
 * docs/results-schema.md "A `kernel` case"), `mem` files with clear_page
 * or copy_page cases (`mem clear_page`, `mem copy_page`, or any memset of
 * 0 / memcpy of one page-aligned 4096-byte block: docs/results-schema.md
 * `page_op`), and an `xsave` file. Each file's ticks are converted to ns
 * at that file's own rate (a kernel file: its module's kernel.tsc_khz;
 * others: machine.timer.hz; include/primbench/file_units.h), never this
 * machine's. Where two files hold the same figure, the first given wins
 * and a note says so.
 *
 * One table in sections:
 *  - clear_page and copy_page at 4 KiB (ns per 4 KiB page): a row per
 *    variant the kernel file measured for the op (4 KiB pages, interrupts
 *    not off), columns kernel hot, user hot (the mem case of the same
 *    kernel name, cache state hot), kernel/user, kernel flushed, user dram
 *    (mem's "dram": out of cache), kernel/user; "-" where absent.
 *  - fpu vs xsave (ns per call): rows kernel begin_end, kernel
 *    save_restore, the round trip (ioctl_fpu - ioctl_null, both timed from
 *    user space), then each of the xsave file's instruction pairs (a save
 *    and a restore, in user space); columns the upper states present
 *    (clean, dirty, dirty512).
 *  - the kernel file's break-even entries, if any (kernel.breakeven).
 *  - notes: each file and what was used of it, figures given twice, and
 *    that figures from different files come from different processes, so
 *    run-to-run differences of a few percent (up to ~27% seen on these
 *    machines) are noise: `primbench compare` is the tool for before and
 *    after.
 * A section with no figure is left out.
 */
#ifndef PRIMBENCH_KERNEL_VS_USER_H
#define PRIMBENCH_KERNEL_VS_USER_H

#include <stddef.h>
#include <stdio.h>

/* Reads the n_paths result files paths[0..n_paths) and writes the table
 * to out in `format`: "text" (aligned, at most 80 columns a line),
 * "markdown" (or "md": a heading and a GitHub table per section, the
 * break-even and notes as lists), "csv" (RFC 4180, header
 * "section,row,column,value,unit": one row per cell, an empty value where
 * a figure is absent; the break-even entries as section "break-even"; no
 * notes) or "json" (an object: "files" [{path, used}], "sections"
 * [{name, unit, columns, rows [{name, values (null: absent)}]}],
 * "breakeven" [the kernel file's entries with their figures in ns too],
 * "notes"). Returns 0, or -1 with pb_error() one line: a file that does
 * not read (the reader's message: "PATH: cannot read: ...", "PATH: invalid
 * JSON at ..."), no kernel case among the files, an unknown format, no
 * file. Errors of the stream out are the caller's to check (ferror). */
int pb_kernel_vs_user(const char *const *paths, size_t n_paths, const char *format, FILE *out);

#endif
