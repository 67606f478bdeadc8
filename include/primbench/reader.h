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
 *
 * Everything a file holds is handed out typed, with no json_t: a case's key
 * as struct pb_key (its fields in key order), the machine as struct
 * pb_results_machine (the facts consumers read, plus every leaf as a
 * dotted-path fact), the document's fields as members of struct
 * pb_results_file, and every other section as facts (struct pb_facts)
 * read with pb_facts_*. pb_results_write_file writes a file back from
 * what the reader returned (tests/test_roundtrip.c: the same document).
 */
#ifndef PRIMBENCH_READER_H
#define PRIMBENCH_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "primbench/cpu.h"

/* ---- typed values ------------------------------------------------------ */

/* The kind of a JSON value as the reader types it. */
enum pb_field_kind {
	PB_FIELD_NULL,
	PB_FIELD_BOOL,
	PB_FIELD_INT,  /* a JSON integer (as written: no fraction, no exponent) */
	PB_FIELD_REAL, /* a JSON number with a fraction or an exponent */
	PB_FIELD_STRING,
	PB_FIELD_STRINGS, /* an array whose elements are all strings (also []) */
	PB_FIELD_OTHER,   /* anything else (objects, other arrays): its compact
	                     JSON text, members in file order */
};

/* One named value (a key's field, an object's member). Owned by the file
 * it was read from. */
struct pb_field {
	const char *name;
	enum pb_field_kind kind;
	bool b;        /* BOOL */
	long long i;   /* INT */
	double r;      /* REAL; INT too (as a double) */
	const char *s; /* STRING; OTHER: the compact JSON text */
	char **strv;   /* STRINGS: nstr strings */
	size_t nstr;
};

/* An object of fields in file order: a case's key. */
struct pb_key {
	struct pb_field *fields;
	size_t n;
};

/* The field `name` of key, or NULL (missing). */
const struct pb_field *pb_field_get(const struct pb_key *key, const char *name);
/* The string field `name`, or NULL (missing, not a string). */
const char *pb_field_str(const struct pb_key *key, const char *name);
/* The integer field `name` into *out: true, or false (missing, not an
 * integer; *out untouched). */
bool pb_field_int(const struct pb_key *key, const char *name, long long *out);
/* The number (INT or REAL) field `name`, or NAN (missing, not a number). */
double pb_field_num(const struct pb_key *key, const char *name);
/* Whether the field `name` is true (BOOL true). */
bool pb_field_true(const struct pb_key *key, const char *name);
/* A field's value as text for a person, as pb_json_text prints it:
 * strings bare (control characters escaped as pb_printable does),
 * integers as written, reals "%.10g", true/false/null, others compact
 * JSON with sorted keys, "(missing)" for NULL. Malloc'd (aborts when out
 * of memory). */
char *pb_field_text(const struct pb_field *f);
/* Whether two fields hold equal values (json_equal; names not compared;
 * two NULL pointers are equal, one is not). */
bool pb_field_equal(const struct pb_field *a, const struct pb_field *b);
/* A field's value as compact JSON, members in file order (json_dumps
 * with JSON_COMPACT | JSON_ENCODE_ANY): "null" for NULL. Malloc'd. */
char *pb_field_raw_text(const struct pb_field *f);

/* A leaf of a nested object, by its path: "cpu.model", "caches.L2.source".
 * Objects are followed to their leaves (an empty object is a leaf: OTHER
 * "{}"); arrays are leaves (STRINGS or OTHER). */
struct pb_fact {
	const char *name; /* the dotted path (for display: a member's name may
	                     itself hold a dot) */
	char **seg;       /* the path's members, nseg of them */
	size_t nseg;
	struct pb_field v; /* v.name: the last member */
};

/* The leaves of an object, depth first in file order. */
struct pb_facts {
	struct pb_fact *v;
	size_t n;
	size_t cap; /* the reader's: room in v */
};

/* Paths: a leaf's name (struct pb_fact's, members that hold a dot too)
 * names that leaf; any other path is split at its dots into members (at
 * most 16). */
/* The leaf at the dotted path, or NULL (missing, or an object). */
const struct pb_field *pb_facts_get(const struct pb_facts *f, const char *path);
/* The string at path, or NULL. */
const char *pb_facts_str(const struct pb_facts *f, const char *path);
/* The number at path (INT or REAL), or NAN. */
double pb_facts_num(const struct pb_facts *f, const char *path);
/* The integer at path into *out: true, or false (*out untouched). */
bool pb_facts_int(const struct pb_facts *f, const char *path, long long *out);
/* Whether path names something (a leaf or an object with leaves). */
bool pb_facts_has(const struct pb_facts *f, const char *path);
/* Whether path names an object (not a leaf); an empty object {} too. */
bool pb_facts_is_object(const struct pb_facts *f, const char *path);
/* The value at path (a leaf, or an object with its members) as compact
 * JSON, members in file order, as pb_field_raw_text writes a field;
 * NULL when path names nothing. Malloc'd (aborts when out of memory). */
char *pb_facts_raw_text(const struct pb_facts *f, const char *path);
/* The array at path as objects: one struct pb_key per element (an
 * element that is not an object: no fields), *n of them, malloc'd; free
 * with pb_keys_free. NULL, *n = 0 when path is not an array. */
struct pb_key *pb_facts_objects(const struct pb_facts *f, const char *path, size_t *n);
void pb_keys_free(struct pb_key *k, size_t n);

/* ---- keys -------------------------------------------------------------- */

/* A short readable name of a key, group and label: mem "memset hot" /
 * "avx2 4K" (non-default offsets, distance, extent, value, read-back
 * appended), syscall "syscall" / "fault 2M cpu 1", xsave "xsave" /
 * "xsaveopt dirty", cmd "cmd A" / the argv (abbreviated past 40
 * characters), kernel "kernel clear_page hot" / "rep_stosb 4K" (copy_page
 * alike), "kernel user_copy hot" / "copy_to_user 4K", "kernel fpu" /
 * "ioctl_fpu dirty512" (" irqs off" appended), others the suite /
 * "field=value ...". Malloc'd. */
void pb_key_name(const struct pb_key *key, char **group, char **label);

/* The name a case's group is titled by in a file whose page_op (struct
 * pb_results_file) is page_op (NULL: none): page_op for the 4 KiB cases
 * of its op (memset for clear_page, memcpy for copy_page), else key's own
 * op. NULL when key is not a mem case. */
const char *pb_key_page_op_of(const char *page_op, const struct pb_key *key);

/* The argv of a cmd key as one line, not abbreviated: words joined by
 * spaces (each as pb_field_text gives it); --shell's ["/bin/sh", "-c",
 * "TEXT"] as "sh: TEXT". "" without an argv array. Malloc'd (aborts when
 * out of memory). */
char *pb_key_cmd_text(const struct pb_key *key);

/* Whether key is a cmd case's (suite "cmd" with an argv array). */
bool pb_key_is_cmd(const struct pb_key *key);

/* The elements of the array field `name` of a that that of b lacks (an
 * absent b field: all of them), each as pb_field_text gives it,
 * space-separated; "" when none (or a's is not an array). Malloc'd. */
char *pb_key_array_minus_text(const struct pb_key *a, const struct pb_key *b, const char *name);

/* The field names of a and of b (NULL: none) not in a, in strcmp order:
 * n of them in a malloc'd array (free it; the names are borrowed).
 * Aborts when out of memory. */
const char **pb_key_field_names(const struct pb_key *a, const struct pb_key *b, size_t *n);

/* ---- files ------------------------------------------------------------- */

struct pb_results_case {
	struct pb_key fields; /* the key, typed, in key order */
	char *canon;          /* canonical JSON of key */
	char *group;          /* "memset hot", "syscall", "xsave", "cmd A", ... */
	char *label;          /* "avx2 4K", "null cpu 1", ...; unique with group */
	const char *unit;     /* borrowed: "tsc_ticks", "ns", ... */
	double *v;            /* per-call values (value / calls), in unit */
	size_t n;
	size_t index; /* position in the file's cases array */
	/* replicates (schema v2, include/primbench/replicates.h): v[] is
	 * n_rep runs of the case in a row, run r's rep_n[r] values; NULL, 0
	 * for a file without them (v1: one run) */
	size_t *rep_n;
	size_t n_rep;
	long long kernel_revision; /* mem: the row's revision (1 when absent: v1) */
	/* the samples as written: [value, calls] n times (value in unit,
	 * before the division) */
	double *sample_value, *sample_calls;
	/* every member of the case but key, unit and samples, as facts:
	 * "per_call.median", "median_derived.ns_per_call", "runs" (OTHER:
	 * read with pb_facts_objects), "profile.families", ... */
	struct pb_facts facts;
};

/* A case's summary at `level`: pb_summarize_replicates over its runs, so
 * median and CI are the replicates' when it has two or more (replicates
 * >= 2), else the one run's samples' (replicates 1). 0 or -1. */
struct pb_summary;
int pb_results_case_summary(const struct pb_results_case *k, double level, struct pb_summary *out);

/* The figure of each run of k (its replicates' medians; one run: the
 * median of all its values) into med[0..max): returns how many. */
size_t pb_results_case_runs(const struct pb_results_case *k, double *med, size_t max);

/* A family's share (0..1) of the case's "profile" (docs/results-schema.md,
 * "profile"; include/primbench/profile.h): 0, or -1 when the case has no profile or
 * the family is not in it. */
int pb_results_case_profile_share(const struct pb_results_case *c, const char *family,
                                  double *share);

/* The machine a file was measured on (its "machine" object,
 * docs/results-schema.md): what consumers read, typed; every leaf in
 * facts (names relative to the machine: "cpu.model", "kernel"). Strings
 * are borrowed from the file (NULL when missing or not a string). */
struct pb_results_machine {
	double tsc_hz;                     /* timer.hz, 0 when missing */
	const char *timer_clock;           /* timer.clock */
	const char *brand, *vendor;        /* cpu.brand, cpu.vendor */
	long long family, model, stepping; /* cpu.*; -1 when missing */
	const char *fingerprint_hash;
	const char *kernel, *kernel_version;
	const char *glibc_version; /* glibc.version */
	/* glibc's string thresholds in bytes (glibc.x86_rep_movsb_threshold,
	 * glibc.x86_rep_stosb_threshold, glibc.x86_non_temporal_threshold);
	 * -1 when missing, not an integer or negative */
	long long glibc_rep_movsb, glibc_rep_stosb, glibc_non_temporal;
	struct pb_cache_info caches; /* caches (line_bytes 64 when missing) */
	bool has_caches;             /* there is a caches object */
	struct pb_facts facts;
};

struct pb_results_file {
	char *path;
	double tsc_hz; /* the rate of the cases' counter ticks: machine.timer.hz,
	                  0 when missing; in a kernel file, kernel.tsc_khz x 1000
	                  (its cases are TSC ticks read in the kernel) */
	bool interrupted;
	struct pb_results_case *cases; /* those with samples, in file order */
	size_t ncases;
	size_t *order;  /* indices of cases sorted by canon (for matching) */
	char **skipped; /* names of cases without samples */
	size_t nskipped;
	/* ---- typed (strings borrowed from the file; NULL when missing) ---- */
	struct pb_results_machine mach;
	long long schema_version;
	const char *started_at;    /* "2026-01-02T03:04:05Z" */
	char *const *command_line; /* argv as run */
	size_t ncommand_line;
	bool has_equivalence;      /* "equivalence" (cmd, tune): */
	double equivalence;        /*   the margin, a fraction */
	long long processes_count; /* processes.count, 0 when missing */
	long long replicates_each; /* processes.replicates_each, 0 when missing */
	/* "clear_page" or "copy_page" when the file is a `mem clear_page` or
	 * `mem copy_page` run (its "page_op"; a file written before that
	 * field: its command_line's words after "mem"), else NULL (static).
	 * Its cases are memset (value 0) or memcpy cases of one page-aligned
	 * 4 KiB page (docs/results-schema.md, `page_op`). */
	const char *page_op;
	const char *primbench_version, *primbench_arch; /* primbench.* */
	char *const *notes;
	size_t nnotes;
	bool has_noise;          /* a "noise" object; its figures: facts "noise.*" */
	bool noise_high;         /* noise.high */
	const char *noise_cause; /* noise.high_cause */
	bool noise_judged;       /* noise.high is a boolean (a file written before
	                            the run judged its noise: false) */
	/* noise.steal_pct, noise.other_cpus_busy_pct, noise.run_delay_pct:
	 * percent, NAN when missing or not a number */
	double noise_steal_pct, noise_other_cpus_busy_pct, noise_run_delay_pct;
	/* noise.involuntary_switches (of the measuring thread), 0 when
	 * missing or not an integer */
	long long noise_involuntary_switches;
	/* every top-level member but machine and cases, as facts ("ab.metric",
	 * "processes.count", "breakeven" (OTHER: pb_facts_objects), ...) */
	struct pb_facts facts;
	/* private to the reader: the members' order, the cases without
	 * samples, what pb_results_write_file needs besides the above */
	struct pb_results_layout *layout;
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

/* The document of a loaded file, rebuilt from what the reader typed (keys
 * from their fields, samples from their pairs, the machine and every
 * other member from their facts; an OTHER value from its text), members
 * in the file's order: the same document as the file's (json_equal, same
 * key order). As text: `indent` spaces per level (0: compact) and reals
 * to `precision` significant digits (0: 17, exact), as jansson writes
 * them. Malloc'd text, or NULL with pb_error() when out of memory. */
char *pb_results_file_text(const struct pb_results_file *f, int indent, int precision);
/* pb_results_file_text(f, 1, 0) and a newline written to path whole
 * (pb_write_file_whole): indented as pb_results_write writes a document,
 * reals exact (17 digits: a fixture's hand-written digits survive). 0 or
 * -1 with pb_error(). */
int pb_results_write_file(const struct pb_results_file *f, const char *path);
/* pb_results_file_text(f, indent, precision) to the stream fp (no
 * newline after it). 0 or -1 with pb_error(). */
int pb_results_file_print(FILE *fp, const struct pb_results_file *f, int indent, int precision);

/* Gives every case of the files its group and label (from its key and
 * the other keys of the files, so a key has the same name in every file),
 * making labels of distinct keys distinct: where two would clash, each
 * shows what tells it apart (cmd: the env entries not common to all, as
 * "X=1 ./prog", the argv words that differ, " (in DIR)" for the working
 * directory; keys of no known suite: the field=value that differ), and
 * labels that still clash get " #1", " #2", ... in order of first
 * appearance (the first file's cases first). 0 or -1. */
int pb_results_name(struct pb_results_file *files, size_t nfiles);

/* Labels of at most `max` bytes (max >= 10) for the n >= 1 distinct texts
 * full[0..n) into out[0..n) (each malloc'd; aborts when out of memory):
 * a text that fits is kept whole; a longer one keeps the part that
 * differs from the others (from the first difference to the last, as
 * whole words if they fit, else the parts between separators such as '='
 * and '/'), with its first word and "..." before it and "..." after it
 * as room allows. Labels may still coincide (the caller tells those
 * apart). */
void pb_results_distinct_labels(char *const *full, size_t n, size_t max, char **out);

/* s with control bytes (and, with `ascii`, every byte outside printable
 * ASCII) written as \n, \t, \r or \xNN, so that a name or a message
 * stays on one line and sends nothing to the terminal. Malloc'd (aborts
 * when out of memory). */
char *pb_printable(const char *s, bool ascii);

#endif
