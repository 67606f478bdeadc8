/* primbench/session_result.h - the run-level objects a measuring session
 * (include/primbench/session.h) writes into its result document: the seed
 * and how the measuring thread's CPU was chosen (docs/results-schema.md,
 * "Top level"). Part of the results module. */
#ifndef PRIMBENCH_SESSION_RESULT_H
#define PRIMBENCH_SESSION_RESULT_H

#include <stdint.h>

#include "primbench/cpu_noise.h"

struct pb_results_doc; /* primbench/results.h */

/* Sets the document's "seed" (an integer: the session's seed, at most
 * INT64_MAX). Returns 0, or -1 with pb_error() when out of memory. */
int pb_results_add_seed(struct pb_results_doc *doc, uint64_t seed);

/* Sets the document's "placement" object: how ("probe", "--cpu", "only",
 * "here" or "none"), cpu (the chosen one or null), cpus (the CPUs
 * considered, or --cpu's list), note, and probe (null without one):
 * budget_ms, slice_ms, wall_ms, quantum_iters, not_probed, rule, and
 * per_cpu (one object per CPU: cpu, ok, error (null or strerror), chunks,
 * min_ns, median_ns, p99_ns, max_ns, lost_share, probe_ns). Returns 0, or
 * -1 with pb_error() when out of memory. */
int pb_results_add_placement(struct pb_results_doc *doc, const struct pb_cpu_place *pl);

#endif
