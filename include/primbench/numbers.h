/* primbench/numbers.h - number files as ministat(1) reads them (what
 * `primbench stats` takes, src/cli/cmd_stats.c): one number a line in a
 * column of its own, columns separated by any of a set of bytes.
 *
 * A line is split at every run of the delimiter bytes; a token starting
 * with '#' ends the line (a comment); a line without a token before one is
 * blank and skipped. Each other line must have the column asked for, and
 * there a number strtod(3) takes whole (trailing blanks allowed) that is
 * finite. ministat skips a line without the column and takes inf and nan:
 * here both are errors (docs/statistics.md, "primbench stats and
 * ministat"). */
#ifndef PRIMBENCH_NUMBERS_H
#define PRIMBENCH_NUMBERS_H

#include <stddef.h>
#include <stdio.h>

/* The values of one file, in file order. */
struct pb_numbers {
	double *v;
	size_t n, cap;
};

/* Reads column `column` (from 1) of every line of f into out (empty
 * first), columns separated by any byte of delim (not empty). name is the
 * file's name in the messages. Returns 0, or -1 with pb_error() and out
 * empty again: "NAME:LINE: no column C", "NAME:LINE: 'TOKEN' is not a
 * number", "... is not a finite number" (with " column C:" after LINE: when
 * column > 1; TOKEN at most 24 characters, bytes outside printable ASCII
 * as \xNN), "cannot read 'NAME': REASON", "out of memory reading 'NAME'". */
int pb_numbers_read(FILE *f, const char *name, size_t column, const char *delim,
                    struct pb_numbers *out);
void pb_numbers_free(struct pb_numbers *nums);

#endif
