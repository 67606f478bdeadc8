/* primbench/results_join.h - result documents read back and joined: the
 * files of the processes of `--processes N` (and of each side of
 * `--vs-env`) joined case by case into one document, what the command
 * line reads from a document it holds, and the "vs_env" object of an A/B
 * comparison (docs/results-schema.md). src/results/join.c. Part of the
 * results module. */
#ifndef PRIMBENCH_RESULTS_JOIN_H
#define PRIMBENCH_RESULTS_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/results.h"

struct pb_results_file; /* primbench/reader.h */

/* The result document in the file at path (as written, any schema). NULL
 * with pb_error() when it cannot be read or is not JSON. */
struct pb_results_doc *pb_results_doc_load(const char *path);

/* Adds the document `more` (a later process of the same run) to `base`:
 * for each case of more, its "samples" and "replicates" appended to the
 * case of base with the same key (and "migrations", "outliers" summed), or
 * the case appended when base has none; more's notes that base lacks
 * appended; the noise joined (the worst steal, other CPUs' and measuring
 * CPU's business, run delay and involuntary rate; context switches summed;
 * "high" and its cause when more's was); "interrupted" when more's was.
 * 0, or -1 with pb_error(). */
int pb_results_doc_join(struct pb_results_doc *base, const struct pb_results_doc *more);

/* Every case's "per_call" summarized again from all its samples and
 * replicates (pb_summarize_replicates, level 0.95), and the times and
 * rates of its "median_derived" scaled to the new median. 0, or -1 with
 * pb_error(). */
int pb_results_doc_resummarize(struct pb_results_doc *doc);

/* Sets doc["command_line"] to argv[0..argc). */
void pb_results_set_command_line(struct pb_results_doc *doc, int argc, char *const *argv);

/* Sets doc["processes"] to {"count": count, "replicates_each":
 * replicates_each}. */
void pb_results_set_processes(struct pb_results_doc *doc, size_t count, size_t replicates_each);

/* The noise a document records (its "noise" object); strings borrowed
 * from doc. */
struct pb_results_noise_seen {
	double steal_pct;           /* 0 when missing */
	double other_cpus_busy_pct; /* 0 when missing */
	bool high;                  /* pb_noise_judge found it high */
	const char *high_cause;     /* NULL when none */
};
void pb_results_doc_noise(const struct pb_results_doc *doc, struct pb_results_noise_seen *out);

/* The document as a result file named `name` (the reader's checks and
 * types, include/primbench/reader.h). 0, or -1 with pb_error(); free f
 * with pb_results_file_free either way. */
int pb_results_doc_read(const struct pb_results_doc *doc, const char *name,
                        struct pb_results_file *f);

/* Prints doc on fp as JSON indented by `indent` spaces, then a newline.
 * 0, or -1 with pb_error() when out of memory. */
int pb_results_doc_print(FILE *fp, const struct pb_results_doc *doc, int indent);

/* The sizes (key "size_bytes", > 0) of doc's one-thread mem cases of (op,
 * cache_state, kernel) (names as in the key: "memset", "hot", "libc"), in
 * the cases' order, into sizes[0..max). Returns how many. */
size_t pb_results_mem_sizes(const struct pb_results_doc *doc, const char *op, const char *state,
                            const char *kernel, uint64_t *sizes, size_t max);

/* The median per call ("per_call"."median", the case's unit) of doc's
 * one-thread mem case of (op, cache_state, kernel, size_bytes), or NAN
 * when there is none. */
double pb_results_mem_median(const struct pb_results_doc *doc, const char *op, const char *state,
                             const char *kernel, uint64_t size_bytes);

/* A --vs-env A/B run across processes. */
struct pb_vs_env_record {
	char *const *env; /* B's NAME=VALUE entries */
	size_t n_env;
	const char *order; /* "ABBA...": the processes that finished */
	size_t processes_a, processes_b;
	bool interrupted; /* the run was cut short */
};

/* Sets doc["vs_env"] to {"env": [...], "order", "processes_a",
 * "processes_b"}, then doc["interrupted"] = true when it was (doc: a
 * compare document, docs/results-schema.md "compare output"). */
void pb_results_set_vs_env(struct pb_results_doc *doc, const struct pb_vs_env_record *v);

#endif
