/* primbench/compare.h - comparing result files (`primbench compare`,
 * README "compare", docs/results-schema.md "compare output").
 *
 * A file is loaded and checked whole (schema "primbench-result" v1, every
 * case a key object, a unit and [value, calls] samples); cases match on the
 * canonical JSON of their key (json_dumps with JSON_SORT_KEYS |
 * JSON_COMPACT). For each case in both files: the median per call of each
 * side with its confidence interval, the Hodges-Lehmann estimate of the
 * ratio new / old with its interval, and the Mann-Whitney U test's p
 * (include/primbench/twosample.h). A difference counts as shown when the
 * ratio's interval excludes 1 and p < 1 - level (the interval is the
 * inversion of the same rank-sum test, so the two agree except at the edge,
 * where requiring both is the conservative choice; pb_verdict, the rule
 * `cmd` uses too); otherwise the table prints "~".
 *
 * A cmd case's samples are the real (wall-clock) times of its runs: those
 * are what is compared (not user, sys or the other figures of a run).
 *
 * Units: a pair of cases is compared in their common unit. When one side is
 * in "tsc_ticks" and the other in "ns", or both in ticks from TSCs whose
 * frequencies differ by more than 0.1%, ticks are converted to ns with each
 * file's machine.timer.hz (no hz: refused). Other pairs of different units
 * are refused.
 */
#ifndef PRIMBENCH_COMPARE_H
#define PRIMBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "primbench/stats.h"
#include "primbench/twosample.h"

/* Per side, at most this many samples enter the two-sample figures (their
 * cost is nx * ny): a larger sample is reduced to this many evenly spaced
 * order statistics, with a note. */
#define PB_COMPARE_MAX_SAMPLES 2000

struct pb_compare_case {
	json_t *key;      /* borrowed from the document */
	char *canon;      /* canonical JSON of key */
	char *group;      /* "memset hot", "syscall", "xsave", "cmd A", ... */
	char *label;      /* "avx2 4K", "null cpu 1", ...; unique with group */
	const char *unit; /* borrowed: "tsc_ticks", "ns", ... */
	double *v;        /* per-call values (value / calls), in unit */
	size_t n;
	size_t index; /* position in the file's cases array */
};

struct pb_compare_file {
	char *path;
	json_t *doc;
	const json_t *machine;
	double tsc_hz; /* machine.timer.hz, 0 when missing */
	bool interrupted;
	struct pb_compare_case *cases; /* those with samples, in file order */
	size_t ncases;
	size_t *order;  /* indices of cases sorted by canon (for matching) */
	char **skipped; /* names of cases without samples */
	size_t nskipped;
};

/* Reads and checks a result file. Errors (-1, pb_error()) start with the
 * path: "PATH: cannot read: No such file or directory", "PATH: invalid JSON
 * at line 3, column 14: ... (truncated?)", "PATH: not a primbench result
 * (schema 'x')", "PATH: case 4 (memset hot: libc 64): samples[2] is not a
 * [value, calls] pair", "PATH: case 1 (memset hot: bytes 64): samples[3] is
 * -5: a time cannot be negative" (0 is accepted: suites clamp at 0), ...
 * Free with pb_compare_file_free (also after a
 * failure). */
int pb_compare_load(const char *path, struct pb_compare_file *f);
/* The same from text in memory; `name` stands for the path in messages. */
int pb_compare_load_text(const char *text, size_t len, const char *name, struct pb_compare_file *f);
void pb_compare_file_free(struct pb_compare_file *f);

/* Gives every case of the files its group and label (from its key and
 * the other keys of the files, so a key has the same name in every file),
 * making labels of distinct keys distinct: where two would clash, each
 * shows what tells it apart (cmd: the env entries not common to all, as
 * "X=1 ./prog", the argv words that differ, " (in DIR)" for the working
 * directory; keys of no known suite: the field=value that differ), and
 * labels that still clash get " #1", " #2", ... in order of first
 * appearance (the first file's cases first). 0 or -1. */
int pb_compare_name(struct pb_compare_file *files, size_t nfiles);

/* A short readable name of a key, group and label: mem "memset hot" /
 * "avx2 4K" (non-default offsets, distance, extent, value, read-back
 * appended), syscall "syscall" / "fault 2M cpu 1", xsave "xsave" /
 * "xsaveopt dirty", cmd "cmd A" / the argv (abbreviated past 40
 * characters), others the suite / "field=value ...". Malloc'd. */
void pb_compare_key_name(const json_t *key, char **group, char **label);

/* One field that differs between two machines. */
struct pb_compare_diff {
	char *field; /* "cpu.model", "kernel", "mitigations.vulnerabilities.mds" */
	char *a, *b; /* values as text ("(missing)" when absent) */
};

/* The hardware fields (cpu.vendor, cpu.family, cpu.model, cpu.stepping,
 * cpu.online_cpus) and the software ones (microcode, kernel, kernel
 * version, mitigations, THP, cpufreq governor, glibc version, tunables and
 * thresholds, primbench build, usable features, cache sizes, clock) that
 * differ. Returns the count stored in *out (malloc'd array), or -1. */
int pb_compare_hardware_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);
int pb_compare_software_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);
void pb_compare_diffs_free(struct pb_compare_diff *d, size_t n);

/* One case in both files. */
struct pb_compare_row {
	const struct pb_compare_case *a, *b;
	const char *unit;         /* the unit compared in: a's, b's or "ns" */
	struct pb_summary sa, sb; /* per-call summaries, median CI at level */
	bool ratio;               /* all values > 0: shift is the HL ratio */
	struct pb_shift shift;    /* ratio b/a, or else the shift b - a */
	/* delta in %: 100 (ratio - 1), or 100 shift / median of a; NaN when
	 * not defined (lo, hi: also without an interval) */
	double pct, pct_lo, pct_hi;
	struct pb_utest u;
	bool significant;
	bool thinned; /* a side had more than PB_COMPARE_MAX_SAMPLES */
	/* The change of the medians in % (as pct: of the ratio of the medians,
	 * or of their difference in % of a's). It can lie outside [pct_lo,
	 * pct_hi]: the delta is the median of all pairwise ratios (or
	 * differences), not the ratio of the medians, and with bimodal samples
	 * a median can jump between modes. The table marks such a row '*'
	 * (judged on the printed figures). */
	double pct_medians;
};

/* Geometric means over the rows of one unit whose medians are > 0 (the
 * others are named in a note of the result). */
struct pb_compare_geomean {
	const char *unit;
	size_t n;
	double a, b;  /* geometric means of the medians */
	double ratio; /* b / a: the geometric mean of the median ratios */
};

struct pb_compare_result {
	const struct pb_compare_file *fa, *fb;
	double level;
	struct pb_compare_diff *hw, *sw;
	size_t nhw, nsw;
	struct pb_compare_row *rows; /* in a's order */
	size_t nrows;
	struct pb_compare_geomean *gm;
	size_t ngm;
	const struct pb_compare_case **only_a, **only_b;
	size_t nonly_a, nonly_b;
	char **notes;
	size_t nnotes;
};

/* Compares fb with fa (the baseline) at confidence `level` (e.g. 0.95).
 * Files must have been named (pb_compare_name). Different hardware fails
 * (-1, "different hardware from A: cpu.model 143 vs 167; use --force")
 * unless force; the differences are in r->hw either way. A unit mismatch
 * that cannot be converted fails. Free r with pb_compare_result_free (also
 * after a failure). */
int pb_compare_run(const struct pb_compare_file *fa, const struct pb_compare_file *fb, double level,
                   bool force, struct pb_compare_result *r);
void pb_compare_result_free(struct pb_compare_result *r);

/* The text: "differs:" lines, one table per case group (rows: cases; old,
 * new: median +- CI half-width in % of it; delta with its interval; p;
 * '*' when the medians' change is outside the interval), geometric means
 * per unit, cases in only one file (or, with no case in both, which suites
 * each file has), notes, and a legend that names only the units and marks
 * present. Every line fits in 80 columns. */
void pb_compare_print(FILE *f, const struct pb_compare_result *r);

/* The comparison as JSON (docs/results-schema.md "compare output"). */
json_t *pb_compare_json(const struct pb_compare_result *r);

#endif
