/* primbench/results.h - result documents (schema v1, docs/results-schema.md).
 *
 * One JSON document per run: schema name and version, primbench version and
 * build, the command line, start time, the machine fingerprint, the noise
 * seen during the run, and one record per case with its key, raw samples as
 * [value, calls] pairs (TSC ticks, timer overhead subtracted) and summaries.
 */
#ifndef PRIMBENCH_RESULTS_H
#define PRIMBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "primbench/cpu.h"
#include "primbench/mem_result.h"

#define PB_RESULTS_SCHEMA         "primbench-result"
#define PB_RESULTS_SCHEMA_VERSION 2

/* What the machine did besides the measurement (docs/results-schema.md,
 * `noise`). */
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

/* A result document being written (schema "primbench-result",
 * docs/results-schema.md): opaque, owned by the results module, which
 * alone turns it into JSON. Made by pb_results_new, filled by the suites'
 * pb_results_add_* writers, written by pb_results_write, freed by
 * pb_results_doc_free. */
struct pb_results_doc;

/* A new document with schema, version, build, command line, start time and
 * machine fingerprint (CPU identity, features detected/hidden/usable,
 * caches with every source, timer). Returns NULL with pb_error(). */
struct pb_results_doc *pb_results_new(int argc, char **argv, time_t started,
                                      const struct pb_cache_info *caches, int pinned_cpu);

/* Frees a document (NULL: nothing). */
void pb_results_doc_free(struct pb_results_doc *doc);

/* Appends the cases of a mem run to doc["cases"] and its notes to
 * doc["notes"]. Returns 0 or -1 with pb_error(). */
int pb_results_add_mem(struct pb_results_doc *doc, const struct pb_mem_result *r);

/* Records noise and the interrupted flag. */
void pb_results_finish(struct pb_results_doc *doc, const struct pb_noise *noise, bool interrupted);

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
int pb_results_write(const struct pb_results_doc *doc, const char *path);

#endif
