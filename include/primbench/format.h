/* primbench/format.h - a result file in the formats other tools read:
 * aligned text for email, JSON (the schema, docs/results-schema.md), CSV
 * (one row per case and statistic, RFC 4180), Markdown tables, and Go's
 * benchmark data format (golang.org/design/14313-benchmark-format), which
 * benchstat reads. docs/formats.md documents each and the unit mapping.
 *
 * Every writer works on a loaded result file (pb_results_load), so each
 * format covers every kind of case (mem, syscall, xsave, cmd, and kinds
 * added later): the key's fields, the unit, the samples and the per-call
 * summary that every case carries.
 */
#ifndef PRIMBENCH_FORMAT_H
#define PRIMBENCH_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "primbench/reader.h"

enum pb_format {
	PB_FORMAT_TEXT,
	PB_FORMAT_JSON,
	PB_FORMAT_CSV,
	PB_FORMAT_MARKDOWN,
	PB_FORMAT_BENCHFMT,
	PB_FORMAT_BMF,    /* Bencher Metric Format */
	PB_FORMAT_GBENCH, /* Google Benchmark's --benchmark_format=json */
	PB_FORMAT_ACTION, /* github-action-benchmark's customSmallerIsBetter */
};

/* "text", "json", "csv", "markdown" (or "md"), "benchfmt", "bmf", "gbench",
 * "action". Returns 0, or -1 with pb_error() naming the formats. */
int pb_format_parse(const char *name, enum pb_format *out);
const char *pb_format_name(enum pb_format fmt);

/* Writes the result r in fmt to f (the formats CI trackers read, bmf,
 * gbench and action, in docs/formats.md with their JSON Schemas in
 * tests/schemas/):
 *  - text: per group (docs: "memset hot", "syscall", "cmd A", ...) a table
 *    of its cases: n, median and its 95% CI in the case's unit, and for
 *    mem the median's ns/call and GB/s; at most 80 columns (a table too
 *    wide is split in two, the case names repeated).
 *  - json: the document, indented, numbers at 10 significant digits (as
 *    result files are written).
 *  - csv: header "group,case,<key fields>,statistic,value,unit"; one row per
 *    case and statistic (per_call's n, min, p10, median, p90, max, mean,
 *    stddev, ci_lo, ci_hi, then median_derived's figures; each number in
 *    the shortest text that reads back as the same double); key fields are
 *    the union over the file's cases in first-seen order, empty where a
 *    case lacks one or it is null.
 *  - markdown: per group a GitHub table like the text one.
 *  - benchfmt: configuration lines (goos, goarch, cpu, primbench's version,
 *    TSC frequency, kernel, glibc, started-at), then one line per sample:
 *    "Benchmark<Suite>/<field>=<value>... <calls> <value> <unit>/op ...",
 *    ticks also as ns/op (machine.timer.hz), mem also MB/s.
 *  - bmf, gbench, action: one entry per case, named by pb_format_ci_name;
 *    its figure is per_call's median (the replicates' geometric mean when
 *    there are two or more) and its bounds per_call's ci_lo..ci_hi, in ns
 *    per call where the file's unit converts (pb_file_ns_per_value), else
 *    in the case's unit; no bounds where the case has no interval.
 *    bmf: {"NAME": {"latency": {"value", "lower_value", "upper_value"}}}
 *    (a unit that is not ns: the measure is the unit's slug, "tsc-ticks"),
 *    mem cases also "throughput" in calls per second (1e9 / ns, its bounds
 *    from the other ends). gbench: {"context": {date, host_name,
 *    executable, num_cpus, mhz_per_cpu (the timer's rate), caches[],
 *    library_build_type, primbench_version}, "benchmarks": [one
 *    "iteration" run per case: name, run_name, run_type, repetitions,
 *    repetition_index, threads, iterations (the samples' calls), real_time
 *    and cpu_time (both the median: primbench measures wall time), time_unit
 *    "ns", bytes_per_second (mem), ci_lo, ci_hi, samples, runs]}; cases
 *    that have no time in ns are left out. action: [{"name", "unit",
 *    "value", "range" ("± X": the interval's larger side), "extra"
 *    ("95% CI: LO .. HI UNIT\nn: N samples in R runs")}].
 * Cases without samples are skipped (as in compare). Returns 0, or -1 with
 * pb_error() on allocation failure; errors of the stream f are the
 * caller's to check (ferror). */
int pb_format_write(FILE *f, const struct pb_results_file *r, enum pb_format fmt);

/* A case's name in the CI formats (bmf, gbench, action), from its key
 * alone (docs/formats.md, "Names"): per suite the values of its leading
 * fields joined by '/' (mem: op, kernel, size_bytes, distribution,
 * cache_state: "memset/libc/4096/hot"; others start with the suite:
 * syscall benchmark, xsave instruction and upper_state, cmd side and argv,
 * latency size_bytes, map fault and page_source), null ones skipped; then
 * "/field=value" for every other field, by field name in strcmp order,
 * except null ones, empty strings and arrays, and the suite's defaults
 * (mem: dst_offset_bytes 0, src_offset_bytes 2048, extent_bytes 0,
 * fill_value 0, page_bytes 4096, then_read false, threads 1, mem_node
 * local, offsets random, seed 1; cmd: shell false). In every value '/',
 * '%' and control characters are written %XX. Another suite: the suite,
 * then every field as field=value. Malloc'd (aborts when out of memory).
 * pb_format_write gives a case whose name an earlier case of the file
 * has "/#I" appended (I its position in the file's cases, from 1). */
char *pb_format_ci_name(const struct pb_key *key);

/* The text format's tables as HTML, for the HTML page (html.h): per group
 * (as text: "memset hot", "syscall", "cmd A", ...) a <table
 * class="pb-table" id="ID_PREFIX + the group's slug"> whose <caption> is
 * the group with its unit, as the markdown's heading ("memset hot
 * (tsc_ticks per call)"), header cells <th scope="col"> case, n, median,
 * 95% CI, and ns/call and GB/s where the group has them (in a <thead>;
 * the number columns' with class="num"), one <tr> per case (in a
 * <tbody>) with its label in <th scope="row">; the cells as the markdown
 * format writes them, number cells with class="num"; every text through
 * pb_html_text. Latency and map groups are tables like any other (not
 * the text's curve and map tables). The slug: the group's ASCII letters
 * lower-cased and its digits, every other run of bytes between them as
 * one '-' ("group" when nothing is left); a group whose id is taken
 * already in this call (one name in two units) gets "-2", "-3", ...
 * appended. id_prefix (NULL: none) should hold no blank. No heading: the
 * tables only. Cases without samples are skipped; a file with none gets
 * a <p>. Returns 0, or -1 with pb_error() when out of memory. */
int pb_format_html_tables(FILE *f, const struct pb_results_file *r, const char *id_prefix);

/* The pieces of the csv writer, for the other CSV tables (compare -f csv):
 *  - pb_csv_field: one field, quoted where RFC 4180 needs it (a comma, a
 *    quote, a line break, blanks at an end), then ',' or, when last, CRLF;
 *  - pb_csv_double: v in the shortest text that reads back as the same
 *    double ("" for NaN; buf of 32 bytes holds any);
 *  - pb_csv_value_text: a key's field (reader.h; strings as they are,
 *    numbers as JSON, null or NULL as "", arrays and objects as compact
 *    JSON), malloc'd; NULL when out of memory. */
void pb_csv_field(FILE *f, const char *s, bool last);
void pb_csv_double(char *buf, size_t len, double v);
char *pb_csv_value_text(const struct pb_field *v);

#endif
