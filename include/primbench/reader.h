/* primbench/reader.h - the one reader of result files (schema
 * "primbench-result" v1 and v2, docs/results-schema.md): what `compare`, `report`,
 * `plot` and `format` read results with. Part of the results module.
 *
 * A file is loaded and checked whole (schema name and version, a machine
 * object, every case a key object, a unit and [value, calls] samples);
 * each case gets its per-call values (value / calls) and the canonical
 * JSON of its key (json_dumps with JSON_SORT_KEYS | JSON_COMPACT, without
 * the mem fields that only say the default), on which cases of different
 * files match. pb_results_name gives every case a readable group and
 * label.
 */
#ifndef PRIMBENCH_READER_H
#define PRIMBENCH_READER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct pb_results_case {
	json_t *key;      /* borrowed from the document */
	char *canon;      /* canonical JSON of key */
	char *group;      /* "memset hot", "syscall", "xsave", "cmd A", ... */
	char *label;      /* "avx2 4K", "null cpu 1", ...; unique with group */
	const char *unit; /* borrowed: "tsc_ticks", "ns", ... */
	double *v;        /* per-call values (value / calls), in unit */
	size_t n;
	size_t index; /* position in the file's cases array */
	/* replicates (schema v2, include/primbench/replicates.h): v[] is
	 * n_rep runs of the case in a row, run r's rep_n[r] values; NULL, 0
	 * for a file without them (v1: one run) */
	size_t *rep_n;
	size_t n_rep;
	long long kernel_revision; /* mem: the row's revision (1 when absent: v1) */
};

/* A case's summary at `level`: pb_summarize_replicates over its runs, so
 * median and CI are the replicates' when it has two or more (replicates
 * >= 2), else the one run's samples' (replicates 1). 0 or -1. */
struct pb_summary;
int pb_results_case_summary(const struct pb_results_case *k, double level, struct pb_summary *out);

/* The figure of each run of k (its replicates' medians; one run: the
 * median of all its values) into med[0..max): returns how many. */
size_t pb_results_case_runs(const struct pb_results_case *k, double *med, size_t max);

struct pb_results_file {
	char *path;
	json_t *doc;
	const json_t *machine;
	double tsc_hz; /* machine.timer.hz, 0 when missing */
	bool interrupted;
	struct pb_results_case *cases; /* those with samples, in file order */
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
 * Free with pb_results_file_free (also after a
 * failure). */
int pb_results_load(const char *path, struct pb_results_file *f);
/* The same from text in memory; `name` stands for the path in messages. */
int pb_results_load_text(const char *text, size_t len, const char *name, struct pb_results_file *f);
void pb_results_file_free(struct pb_results_file *f);

/* Gives every case of the files its group and label (from its key and
 * the other keys of the files, so a key has the same name in every file),
 * making labels of distinct keys distinct: where two would clash, each
 * shows what tells it apart (cmd: the env entries not common to all, as
 * "X=1 ./prog", the argv words that differ, " (in DIR)" for the working
 * directory; keys of no known suite: the field=value that differ), and
 * labels that still clash get " #1", " #2", ... in order of first
 * appearance (the first file's cases first). 0 or -1. */
int pb_results_name(struct pb_results_file *files, size_t nfiles);

/* A short readable name of a key, group and label: mem "memset hot" /
 * "avx2 4K" (non-default offsets, distance, extent, value, read-back
 * appended), syscall "syscall" / "fault 2M cpu 1", xsave "xsave" /
 * "xsaveopt dirty", cmd "cmd A" / the argv (abbreviated past 40
 * characters), others the suite / "field=value ...". Malloc'd. */
void pb_results_key_name(const json_t *key, char **group, char **label);

/* "clear_page" or "copy_page" when the file `doc` is a `mem clear_page`
 * or `mem copy_page` run (its "page_op"; a file written before that field:
 * its command_line's words after "mem"), else NULL. The string is static.
 * Its cases are memset (value 0) or memcpy cases of one page-aligned 4 KiB
 * page (docs/results-schema.md, `page_op`). */
const char *pb_results_page_op(const json_t *doc);

/* The name a case's group is titled by in a file whose pb_results_page_op
 * is page_op (NULL: none): page_op for the 4 KiB cases of its op (memset
 * for clear_page, memcpy for copy_page), else key's own op. NULL when key
 * is not a mem case. */
const char *pb_results_page_op_of(const char *page_op, const json_t *key);

/* The argv of a cmd key as one line, not abbreviated: words joined by
 * spaces (each as pb_json_text gives it); --shell's ["/bin/sh", "-c",
 * "TEXT"] as "sh: TEXT". "" without an argv array. Malloc'd (aborts when
 * out of memory). */
char *pb_results_cmd_text(const json_t *key);

/* Labels of at most `max` bytes (max >= 10) for the n >= 1 distinct texts
 * full[0..n) into out[0..n) (each malloc'd; aborts when out of memory):
 * a text that fits is kept whole; a longer one keeps the part that
 * differs from the others (from the first difference to the last, as
 * whole words if they fit, else the parts between separators such as '='
 * and '/'), with its first word and "..." before it and "..." after it
 * as room allows. Labels may still coincide (the caller tells those
 * apart). */
void pb_results_distinct_labels(char *const *full, size_t n, size_t max, char **out);

/* Whether key is a cmd case's (suite "cmd" with an argv array). */
bool pb_results_key_is_cmd(const json_t *key);

/* ---- reading keys and machine objects (for every consumer) ---- */

/* The string field `field` of an object, or NULL (missing, not a string). */
const char *pb_key_str(const json_t *key, const char *field);
/* The integer field `field` into *out: true, or false (missing, not an
 * integer; *out untouched). */
bool pb_key_int(const json_t *key, const char *field, long long *out);
/* Whether the array arr holds a value equal to v (json_equal). */
bool pb_json_array_has(const json_t *arr, const json_t *v);
/* The elements of array a that array b lacks (pb_json_array_has), each as
 * pb_json_text gives it, space-separated; "" when none. Malloc'd (aborts
 * when out of memory). */
char *pb_json_array_minus_text(const json_t *a, const json_t *b);
/* The value at a dotted path of objects ("cpu.model", at most 127
 * characters), or NULL. */
const json_t *pb_json_path(const json_t *o, const char *path);
/* The field names of object a and of object b (NULL: none) not in a, in
 * strcmp order: n of them in a malloc'd array (free it; the names are
 * borrowed from the objects). Aborts when out of memory. */
const char **pb_json_field_names(const json_t *a, const json_t *b, size_t *n);
/* A JSON value as text for a person: strings bare (control characters
 * escaped as pb_printable does: they come from a file), integers as
 * written, reals "%.10g", others compact JSON, "(missing)" for NULL.
 * Malloc'd (aborts when out of memory). */
char *pb_json_text(const json_t *v);
/* s with control bytes (and, with `ascii`, every byte outside printable
 * ASCII) written as \n, \t, \r or \xNN, so that a name or a message
 * stays on one line and sends nothing to the terminal. Malloc'd (aborts
 * when out of memory). */
char *pb_printable(const char *s, bool ascii);

#endif
