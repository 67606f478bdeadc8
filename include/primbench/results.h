/* primbench/results.h - result documents (schema v1, docs/results-schema.md).
 *
 * One JSON document per run: schema name and version, primbench version and
 * build, the command line, start time, the machine fingerprint, the noise
 * seen during the run, and one record per case with its key, raw samples as
 * [value, calls] pairs (TSC ticks, timer overhead subtracted) and summaries.
 */
#ifndef PRIMBENCH_RESULTS_H
#define PRIMBENCH_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "primbench/cpu.h"
#include "primbench/mem_result.h"

#define PB_RESULTS_SCHEMA         "primbench-result"
#define PB_RESULTS_SCHEMA_VERSION 2

/* What the machine did besides the measurement (DESIGN.md "Measuring"). */
struct pb_noise {
	double steal_pct;      /* steal time, % of all CPU time (/proc/stat) */
	double other_busy_pct; /* non-idle time on the other CPUs, % of their time
	                          (0 when the run's threads use every CPU) */
	long voluntary_switches, involuntary_switches; /* of this thread (getrusage) */
	bool valid;                                    /* /proc/stat was readable */
	bool no_other_cpus; /* every CPU was the run's own: other_busy_pct says nothing */
	/* The measuring CPU itself (src/suites/noise.c): */
	double wall_s;                   /* the window, CLOCK_MONOTONIC */
	double involuntary_per_s;        /* involuntary_switches / wall_s */
	bool sched_valid;                /* /proc/thread-self/schedstat was readable */
	double run_delay_pct;            /* time the measuring thread waited on a run
	                                    queue, % of wall_s (schedstat's second field,
	                                    ns: Documentation/scheduler/sched-stats.rst) */
	bool cpu_valid;                  /* the pinned CPU's /proc/stat line was read */
	double measuring_cpu_others_pct; /* the pinned CPU's busy time less the
	                                    measuring thread's own run time, % of
	                                    that CPU's time: what it gave others */
	/* pb_noise_judge: */
	bool high;
	char high_cause[256]; /* "" or the causes, "; "-joined */
};

/* A new document with schema, version, build, command line, start time and
 * machine fingerprint (CPU identity, features detected/hidden/usable,
 * caches with every source, timer). Returns NULL with pb_error(). */
json_t *pb_results_new(int argc, char **argv, time_t started, const struct pb_cache_info *caches,
                       int pinned_cpu);

/* Appends the cases of a mem run to doc["cases"] and its notes to
 * doc["notes"]. Returns 0 or -1 with pb_error(). */
int pb_results_add_mem(json_t *doc, const struct pb_mem_result *r);

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

/* Records noise and the interrupted flag. */
void pb_results_finish(json_t *doc, const struct pb_noise *noise, bool interrupted);

/* Writes len bytes of text to path whole: a temporary file in the same
 * directory (the one pb_output_reserve made, else a new one), fsync, then
 * rename over path (a reader sees the old file or the new one, never a
 * part). Returns 0, or -1 with pb_error() "cannot write 'PATH': REASON".
 * When that fails at this point (a disk that filled during the run), the
 * text is written to $TMPDIR (or /tmp) as NAME-XXXXXX.EXT instead and the
 * error says "...; saved it as 'FILE' instead": nothing measured is lost.
 * pb_results_write() uses it. */
int pb_write_file_whole(const char *path, const char *text, size_t len);

/* Fails early (-1 with pb_error()) when `path` could not be written: its
 * directory is missing or not writable. Creates nothing. */
int pb_results_check_path(const char *path);

/* Before a run: pb_results_check_path, then creates the temporary file that
 * pb_write_file_whole(path) will fill and rename at the end, in path's
 * directory (so the rename is atomic). A place where no file can be made
 * (/proc, a read-only mount) fails here, before anything is measured: -1
 * with pb_error() "cannot write 'PATH': REASON". The temporary file is
 * removed at exit if never filled. */
int pb_output_reserve(const char *path);

/* Writes doc whole to `path`: a temporary file in the same directory,
 * fsync, then rename (never a partial file at `path`). 0 or -1 with
 * pb_error(). */
int pb_results_write(const json_t *doc, const char *path);

#endif
