/* results/results_json.h - private to the results module (and the tests,
 * which check what the writers wrote): the JSON building blocks of result
 * documents and the JSON behind them. Only the results module includes
 * jansson (docs/architecture.md, "external jansson.h -> results", checked by
 * tests/check_layers.py); every other module hands typed records to
 * results' writers (the *_result.h headers) and reads files through the
 * typed reader (reader.h). */
#ifndef PRIMBENCH_RESULTS_JSON_H
#define PRIMBENCH_RESULTS_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/cpu.h"
#include "primbench/fingerprint.h" /* PB_FINGERPRINT_HASH_LEN */
#include "primbench/results.h"
#include "primbench/stats.h"

struct pb_machine_facts; /* primbench/machine.h */

/* The JSON object behind a document (borrowed; the document keeps it). */
json_t *pb_results_doc_json(struct pb_results_doc *doc);
const json_t *pb_results_doc_cjson(const struct pb_results_doc *doc);

/* A document around the object `root` (the document takes the reference):
 * for a document joined from several files. NULL when out of memory. */
struct pb_results_doc *pb_results_doc_adopt(json_t *root);

/* pb_results_write for a JSON object not (yet) in a document. */
int pb_results_write_json(const json_t *root, const char *path);

/* A document's "cases" and "notes" arrays, for a suite's writer to append
 * to. 0, or -1 with pb_error() "not a result document" when either is
 * missing or not an array. */
int pb_results_arrays(json_t *doc, json_t **cases, json_t **notes);

/* A new case key, {"suite": SUITE} ("mem", "syscall", "xsave", "cmd"):
 * every key names its suite first (docs/results-schema.md); the suite's
 * writer adds the rest. New reference. */
json_t *pb_results_key(const char *suite);

/* Adds the quality fields of a timed case to o: thp_bytes_seen (only when
 * thp_bytes_seen is not NULL: the fault cases with huge pages), migrations
 * (samples dropped: the thread changed CPU) and outliers (modified z-score
 * > 3.5, kept); then appends o to the array `cases` (o's reference moves
 * there). */
void pb_results_append_case(json_t *cases, json_t *o, const uint64_t *thp_bytes_seen,
                            json_int_t migrations, size_t outliers);

/* Appends each non-empty line of text (lines end at '\n') to the array
 * `notes` (a document's "notes"), `prefix` before each ("xsave: ", or "").
 * Returns 0, or -1 with pb_error() when out of memory. */
int pb_results_add_notes(json_t *notes, const char *prefix, const char *text);

/* A number for a result document: null for NaN and infinity (which jansson
 * cannot encode). New reference. */
json_t *pb_json_number(double v);

/* One member of an object for pb_json_set_members: its name and its value
 * (a new reference, or NULL: then nothing is set, as json_object_set_new
 * does). */
struct pb_json_member {
	const char *name;
	json_t *value;
};

/* Sets the members m[0..n) in o, in that order (o takes their values):
 * the table-driven form of a run of json_object_set_new calls. */
void pb_json_set_members(json_t *o, const struct pb_json_member *m, size_t n);

/* A summary as the cases' `per_call` object: n, min, p10, median, p90,
 * max, mean, stddev, ci_level/ci_lo/ci_hi when the CI is valid, and (v2)
 * `replicates` (the runs median and CI stand for) and `method`
 * ("replicates-geomean-student-t-log" or "samples-median-order-statistics",
 * include/primbench/replicates.h). */
json_t *pb_json_summary(const struct pb_summary *s);

/* A case's `replicates` array (v2): per replicate r, {"samples": rep_n[r],
 * "median": the median of its per-call values ticks / calls}, the samples
 * being ticks[0..n) in replicate order. NULL when rep_n is NULL. */
json_t *pb_json_replicates(const double *ticks, const uint64_t *calls, size_t n,
                           const size_t *rep_n, size_t n_rep);

/* Adds a case's measurement fields to o: unit ("tsc_ticks" or "ns"),
 * overhead_subtracted, samples ([ticks, calls] per sample) and, when n > 0,
 * per_call (the summary). */
void pb_json_add_samples(json_t *o, const double *ticks, const uint64_t *calls, size_t n,
                         const struct pb_summary *per_call);

/* ---- the cmd suite's parts as JSON (the writers: pb_results_add_cmd_case,
 * cmd_result.h; pb_results_add_layout, cmd_layout_result.h;
 * pb_results_add_placement, session_result.h; pb_results_set_ab,
 * ab_result.h) ---- */

struct pb_cmd_spec;     /* primbench/cmd_result.h */
struct pb_cmd_record;   /* primbench/cmd_result.h */
struct pb_cmd_ab_look;  /* primbench/cmd_result.h */
struct pb_layout_plan;  /* primbench/cmd_layout_result.h */
struct pb_layout_audit; /* primbench/cmd_layout_result.h */
struct pb_cpu_place;    /* primbench/cpu_noise.h */
struct pb_profile;      /* primbench/profile.h */

/* A result-document case (docs/results-schema.md, "A cmd case") for the
 * runs of `side` among recs[0..n): key {suite "cmd", argv, shell, cwd,
 * env, side "A"/"B"}, unit "ns", samples [[real_ns, 1], ...] of the
 * counted runs, per_call (summary of real), figures (a summary per figure),
 * runs (every run, warm-ups flagged) and first_run {ratio_to_later_median:
 * first_ratio, outlier: first_outlier}, the caller's pb_first_outlier
 * (include/primbench/stats.h) of the counted runs' real times. argv is
 * what was executed (with --shell: /bin/sh -c ...). New reference, NULL
 * with pb_error(). */
json_t *pb_cmd_case_json(const struct pb_cmd_spec *spec, bool shell, int side,
                         const struct pb_cmd_record *recs, size_t n, double first_ratio,
                         bool first_outlier);

/* The looks of a sequential A/B session, looks[0..n), as the document's
 * "looks" array: [{runs_per_side, ratio, ci_lo, ci_hi, verdict}] (ratio
 * and interval null when not finite; verdict "none", "different" or
 * "equivalent"). New reference. */
json_t *pb_cmd_ab_looks_json(const struct pb_cmd_ab_look *looks, size_t n);

/* The document's "layout" object (docs/results-schema.md): mode
 * ("randomize-env" or "audit-only"), variable, pad_bytes_max, seed,
 * randomize_va_space (pb_layout_aslr; null when unreadable); with an audit (a not NULL), "audit":
 * sizes_bytes, runs_per_size, metric, medians, spread, kruskal_wallis {h, df, p}, anova_log {f,
 * df1, df2, p, between_share}, valid. New reference. */
json_t *pb_layout_json(const struct pb_layout_plan *pl, const struct pb_layout_audit *a,
                       size_t runs_per_size, const char *metric);

/* The document's "placement" object (pb_results_add_placement,
 * primbench/session_result.h, says its members). NULL when out of
 * memory. */
json_t *pb_cpu_place_json(const struct pb_cpu_place *pl);

/* The profile as the cmd case's "profile" object (docs/results-schema.md):
 * event, user_only, samples, lost, event_count, kernel_samples, kernel_unresolved,
 * kernel_hidden, runs, families (name, label, samples, share, share_ci95 [lo, hi]
 * (pb_profile_share_ci95): null when not counted) and the first `top`
 * symbols. New reference. */
json_t *pb_profile_json(const struct pb_profile *p, size_t top);

/* A family's share (0..1) from a "profile" object as pb_profile_json
 * wrote it: 0, or -1 when the object has no such family or it was not
 * counted. */
int pb_profile_json_share(const json_t *profile, const char *family, double *share);

/* ---- the machine object (src/results/machine_json.c) ------------------ */

/* The complete `machine` object of a result document (every field in
 * docs/results-schema.md, `machine`) from the facts `f`
 * (pb_machine_facts_read, primbench/machine.h), in the schema's key order,
 * with this build (primbench_version, compiler, build_flags) and
 * fingerprint_hash (null when it cannot be computed: out of memory). A
 * figure not read is "unknown" or null, as the schema says. New
 * reference. */
json_t *pb_results_machine_json(const struct pb_machine_facts *f);

/* pb_results_machine_json of this machine's facts, read now
 * (pb_machine_facts_read: calls pb_timer_init(), runs the dynamic loader;
 * `caches` from pb_cache_detect()). Never fails. New reference. */
json_t *pb_results_machine_json_now(const struct pb_cache_info *caches, int pinned_cpu);

/* On a machine object as read from a file, or one built above: the parts of a machine object
 * that change results, as a new object (docs/results-schema.md,
 * "fingerprint_hash"): CPU vendor, family, model, stepping and microcode;
 * usable features; the cache sizes used and the line size; the clock and
 * the TSC frequency rounded to MHz; kernel release; mitigations; THP mode;
 * preemption model; cpufreq governor; glibc version and thresholds;
 * compiler, build flags and primbench version. Not hostname, pinned_cpu,
 * timer noise or the command line. A field missing from `machine` is
 * null. Works on any object (tests build synthetic ones). */
json_t *pb_fingerprint_hash_input(const json_t *machine);

/* fingerprint_hash of a machine object: FNV-1a 64 (pb_fnv1a64) of the
 * canonical JSON (json_dumps with JSON_SORT_KEYS | JSON_COMPACT) of
 * pb_fingerprint_hash_input(machine), as 16 lower-case hex digits and a
 * NUL in `out`. Returns 0, or -1 with pb_error() set (out of memory). */
int pb_fingerprint_hash(const json_t *machine, char out[PB_FINGERPRINT_HASH_LEN + 1]);

/* ---- json_t readers: what the typed reader is built on, and what the
 * tests check it against (include/primbench/reader.h has the typed ones:
 * pb_key_name, pb_key_page_op_of, pb_key_cmd_text, pb_key_is_cmd,
 * pb_field_str, pb_field_int, pb_facts_*, pb_field_text,
 * pb_key_array_minus_text, pb_key_field_names; struct pb_results_file's
 * page_op and mach) ---- */

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

/* c from a result file's machine object ("caches": L1d, L2, LLC with
 * size_bytes, source, by_source{name: {size_bytes, plausible}}, note;
 * line_bytes): a level or source missing from it is 0 / PB_SRC_FALLBACK.
 * Returns 0, or -1 when the object has no "caches" (c zeroed). The typed
 * form: struct pb_results_machine's caches. */
int pb_results_machine_caches(const json_t *machine, struct pb_cache_info *c);

/* The machine differences of compare_result.h's pb_results_hardware_diffs
 * and pb_results_software_diffs, from machine objects. */
struct pb_compare_diff;
int pb_compare_hardware_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);
int pb_compare_software_diffs(const json_t *ma, const json_t *mb, struct pb_compare_diff **out);

/* One comparison as JSON (compare_result.h, pb_results_add_comparison,
 * docs/results-schema.md "compare output"). New reference. */
struct pb_compare_result;
json_t *pb_compare_json(const struct pb_compare_result *r);

/* ---- report's records as JSON (what pb_results_add_summary,
 * pb_results_add_breakeven and pb_results_add_cmd_case write) ---- */

struct pb_summary_report;
struct pb_glibc_check;
struct pb_breakeven_record;
struct pb_acct_tables;

/* A summary as the `summary` object (include/primbench/summary_result.h;
 * docs/results-schema.md "summary"). New reference, or NULL with
 * pb_error() when out of memory. */
json_t *pb_results_summary_json(const struct pb_summary_report *s);

/* The array `measured` (summary.glibc.measured) read and checked as
 * pb_results_read_glibc_checks does (summary_result.h): 0 with *out (malloc'd,
 * NULL when empty) and *n, or -1 with pb_error() naming the first bad field. */
int pb_results_glibc_checks_from_json(const json_t *measured, struct pb_glibc_check **out,
                                      size_t *n);

/* One check as an object of that array. New reference. */
json_t *pb_results_glibc_check_json(const struct pb_glibc_check *c);

/* One break-even record (include/primbench/breakeven_result.h) as an object of
 * the document's "breakeven" array (docs/breakeven.md). New reference, or NULL
 * with pb_error() when out of memory. */
json_t *pb_results_breakeven_json(const struct pb_breakeven_record *b);

/* Accounting tables (include/primbench/accounting_result.h) as the
 * `accounting` object of a cmd case (docs/results-schema.md, "A cmd case").
 * New reference, or NULL with pb_error() when out of memory. */
json_t *pb_results_acct_json(const struct pb_acct_tables *t);

/* The JSON of a file pb_results_load read (the whole document, its machine
 * object, a case's key), borrowed from f: for results' own code (joining,
 * the summary's stored parts) and the tests, which check the typed reader
 * against it. NULL when f holds no document (a failed load). */
struct pb_results_file;
struct pb_results_case;
json_t *pb_results_file_json(const struct pb_results_file *f);
const json_t *pb_results_file_machine_json(const struct pb_results_file *f);
const json_t *pb_results_case_key_json(const struct pb_results_file *f,
                                       const struct pb_results_case *c);

#endif
