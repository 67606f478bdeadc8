/* primbench/record.h - recording call-size distributions from the exact
 * sizes files of libprimswitch.so (include/primbench/account.h,
 * PRIMBENCH_ACCOUNT_SIZES): what `primbench cmd --account
 * --record-distribution DIR` writes.
 *
 * Per family (memset, memcpy, memmove) with calls:
 * - DIR/FAMILY.csv: the calls of each size 0..4096 as integer weights in
 *   the distribution format (include/primbench/distribution.h: one line,
 *   trailing zeros dropped), replayable with `mem --distribution`;
 * - DIR/FAMILY.large.csv: the calls above 4096 bytes, per log2 bucket, from
 *   the accounting files: a header line "min_bytes,max_bytes,calls,bytes",
 *   then one line per bucket with calls (4097..8191, 8192..16383, ...).
 * Both written whole (temporary file + rename).
 */
#ifndef PRIMBENCH_RECORD_H
#define PRIMBENCH_RECORD_H

#include <stdint.h>
#include <stdio.h>

#include "primbench/account.h"
#include "primbench/accounting.h"

/* The sums over a directory's sizes files; all-zero is empty. */
struct pb_size_record {
	uint64_t calls[PB_ACCT_NFAM][PB_ACCT_SIZES_MAX + 1];
	uint64_t files;   /* sizes files added */
	uint64_t skipped; /* named like one but unreadable or malformed */
	char skip_note[512];
};

/* "memset", "memcpy", "memmove". */
const char *pb_acct_family_name(int fam);

/* Reads the sizes file at path (checks as pb_acct_read_file: regular file,
 * magic, version, size). Returns 0, or -1 with pb_error(). */
int pb_record_read_file(const char *path, struct pb_acct_sizes_file *out);

/* Adds every "primswitch-*.sizes" file directly in dir to *r. Returns the
 * number added, or -1 with pb_error() when dir cannot be read. */
int pb_record_read_dir(const char *dir, struct pb_size_record *r);

/* The figures of one family: calls and bytes in the CSV's range (0..4096)
 * and above it (from t's log2 buckets, bucket 13 less the calls of 4096
 * bytes), and the share of calls of at most 128 bytes among all calls. */
struct pb_record_family {
	uint64_t csv_calls, csv_bytes, large_calls, large_bytes, le_128_calls;
};
void pb_record_family(const struct pb_size_record *r, const struct pb_acct_total *t, int fam,
                      struct pb_record_family *out);

/* Writes DIR/FAMILY.csv and DIR/FAMILY.large.csv for every family with
 * calls (dir is made when missing, one level) and prints per family one
 * paragraph on f: calls, the share of calls and of bytes the CSV holds,
 * the share of calls <= 128 bytes, the files. Returns the number of
 * families written, or -1 with pb_error(). */
int pb_record_write(const char *dir, const struct pb_size_record *r, const struct pb_acct_total *t,
                    FILE *f);

#endif
