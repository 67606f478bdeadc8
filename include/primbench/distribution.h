/* primbench/distribution.h - call-size distributions: parse, find, draw.
 *
 * The format is LLVM libc's benchmark distributions (libc/benchmarks/
 * distributions/, the .csv files of the distributions of the automemcpy paper: Chatelet
 * et al., "automemcpy: a framework for automatic generation of fundamental
 * memory operations", ISMM 2021):
 * - one line of comma-separated numbers, optionally ended by one newline
 *   ("\n" or "\r\n"); nothing else (no header, no comments, no spaces);
 * - value i is the weight of a call of i bytes; at most PB_DIST_SIZES values
 *   (sizes 0..4096); trailing zeros may be dropped, so a file of N values
 *   covers sizes 0..N-1;
 * - each value is a decimal number: digits, an optional fraction, an
 *   optional exponent (1, 0.25, 3e-05); finite and >= 0; at least one > 0;
 * - weights need not sum to 1 (Uniform384To4096.csv sums to 3713): they are
 *   divided by their sum.
 *
 * Errors name the place: "FILE:LINE:COL: MESSAGE" (LINE and COL from 1,
 * COL in bytes), e.g. "a.csv:1:7: expected a number, found 'x'".
 *
 * Built-in distributions (data/size-distributions/ of the source tree,
 * installed under DATADIR/primbench/size-distributions) are found by name:
 * the file stem ("MemcpyGoogleA") or, when only one stem contains it, a
 * short form ("GoogleA", "uniform"), case-insensitively. The directory searched
 * is $PRIMBENCH_DATA_DIR (holding the .csv files), else the source tree's
 * copy (compiled in), else the installed one.
 */
#ifndef PRIMBENCH_DISTRIBUTION_H
#define PRIMBENCH_DISTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

/* Sizes 0..4096 bytes: the most values a file may hold. */
#define PB_DIST_SIZES 4097u

struct pb_distribution {
	char name[256];      /* the file stem ("MemcpyGoogleA", "memcpy") */
	char path[4096];     /* the file read */
	size_t n_values;     /* sizes 0..n_values-1, trailing zeros dropped (>= 1) */
	double *prob;        /* n_values probabilities, normalised to sum 1 */
	double weight_sum;   /* the sum of the values as written */
	double share_le_128; /* probability of a call of at most 128 bytes */
	double mean_bytes;   /* expected bytes per call */
	size_t min_bytes;    /* smallest size with a non-zero weight (leading
	                        zeros are sizes never drawn) */
	size_t max_bytes;    /* largest size with a non-zero weight */
};

/* Parses `len` bytes of `text` (the file's contents) named `path` (for the
 * messages and d->path/name). Returns 0, or -1 with pb_error() in the form
 * "PATH:LINE:COL: ..."; *d is written only on success (free with
 * pb_distribution_free). */
int pb_distribution_parse(const char *path, const char *text, size_t len,
                          struct pb_distribution *d);

/* Reads and parses the file at `path` ("PATH: cannot read: REASON"). */
int pb_distribution_load(const char *path, struct pb_distribution *d);

/* The directory of the built-in distributions (see the top of this file),
 * or NULL with pb_error() when none of the candidates exists. */
const char *pb_distribution_dir(void);

/* NAME or FILE: a string containing '/' or ending in ".csv" is a path;
 * anything else a built-in name (the stem, then a part of exactly one stem,
 * case-insensitively). Errors: "unknown distribution 'X' (known: ...)", "distribution
 * 'Google' is ambiguous: MemcpyGoogleA, ...", or the parser's. */
int pb_distribution_find(const char *name_or_path, struct pb_distribution *d);

/* The built-in distributions' file stems, sorted, in a malloc'd array of
 * malloc'd strings (free with pb_distribution_names_free). Returns the count
 * (>= 0), or -1 with pb_error(). */
int pb_distribution_names(char ***names);
void pb_distribution_names_free(char **names, int n);

void pb_distribution_free(struct pb_distribution *d);

/* Draws n sizes from d into sizes[] with GSL's Walker alias sampler
 * (gsl_ran_discrete) on a gsl_rng_mt19937 seeded with `seed` (the same seed
 * gives the same sizes everywhere GSL's MT19937 is the same), and, when
 * offsets is not NULL, 2 n offsets uniform in 0..offset_window-1 (dst, src
 * of call i at offsets[2i], offsets[2i+1]; offset_window 0 or 1: all 0).
 * Returns 0, or -1 with pb_error() when out of memory. */
int pb_distribution_draw(const struct pb_distribution *d, uint64_t seed, uint32_t *sizes, size_t n,
                         uint32_t *offsets, uint32_t offset_window);

/* Writes a histogram as a distribution file: counts[0..n) as integers
 * (the weights; a reader normalises them), trailing zeros dropped (at least
 * one value written), comma-separated, one newline at the end. Returns a
 * malloc'd string, or NULL with pb_error(). */
char *pb_distribution_format_counts(const uint64_t *counts, size_t n);

#endif
