/* primbench/breakeven_result.h - a break-even computation as data: one
 * object of a result document's "breakeven" array (docs/breakeven.md,
 * docs/results-schema.md). Report fills it from the analysis'
 * struct pb_breakeven (include/primbench/breakeven_text.h:
 * pb_breakeven_record_make); the results module alone writes it
 * (pb_results_add_breakeven). Part of the results module.
 *
 * Sizes are bytes; a size above INT64_MAX is written as null, a figure
 * that is NaN or infinite too. Kernel names point to the kernel table's
 * (static) names; the arrays are malloc'd and freed by
 * pb_breakeven_record_free.
 */
#ifndef PRIMBENCH_BREAKEVEN_RESULT_H
#define PRIMBENCH_BREAKEVEN_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/policy.h"

struct pb_results_doc;

/* One crossing of two kernels, or (is_switch) one switch of the policy:
 * {"below", "above", ["bound_bytes", "bound_from", ["moved_from_bytes"],
 * "ci_overlap_measured"], "size_bytes", "bracket_bytes",
 * "ci_overlap_bytes", "ci_overlap_open", "flips"}. */
struct pb_breakeven_crossing_record {
	const char *below, *above;       /* kernel names */
	double size_bytes;               /* where the medians cross */
	uint64_t bracket_lo, bracket_hi; /* the measured sizes around it */
	double lo_bytes, hi_bytes;       /* where neither kernel is faster */
	bool lo_open, hi_open;
	unsigned flips;
	/* switches only: */
	uint64_t bound_bytes;
	const char *bound_from; /* "crossing", "bands_meet", "same_code", "ascending" */
	bool has_moved_from;    /* moved_from_bytes written (same_code, ascending) */
	uint64_t moved_from_bytes;
	bool ci_overlap_measured;
};

#define PB_BREAKEVEN_RECORD_MAX_PEERS 8
#define PB_BREAKEVEN_RECORD_MAX_NOTES 12

/* The whole object, in the order written. */
struct pb_breakeven_record {
	const char *op, *cache_state; /* static names */
	uint64_t min_size_bytes, max_size_bytes;
	const char **leading; /* leading_kernels */
	size_t n_leading;
	struct pb_breakeven_crossing_record *crossings;
	size_t n_crossings;
	struct pb_breakeven_crossing_record *switches;
	size_t n_switches;
	char policy[PB_POLICY_TEXT_MAX];
	bool policy_simplified;
	/* policy_peers: per band, the kernels it cannot tell from its own */
	size_t n_bands;
	const char *peers[PB_POLICY_MAX_BANDS][PB_BREAKEVEN_RECORD_MAX_PEERS];
	size_t n_peers[PB_POLICY_MAX_BANDS];
	/* "glibc" (have_glibc): the GLIBC_TUNABLES line closest to the
	 * policy, glibc's current values and what glibc cannot express */
	bool have_glibc;
	bool is_memcpy; /* tunables rep_movsb and non_temporal; else rep_stosb */
	uint64_t rep_movsb, non_temporal, rep_stosb;
	bool current_known; /* "current": an object, else null */
	uint64_t cur_rep_movsb, cur_non_temporal, cur_rep_stosb;
	uint64_t cur_rep_movsb_stop; /* 0: null */
	char env[256];
	double mismatch_octaves, no_path_octaves;
	size_t n_notes; /* not_expressible */
	char notes[PB_BREAKEVEN_RECORD_MAX_NOTES][200];
};

/* Frees the arrays of r (not r itself); r is then empty. */
void pb_breakeven_record_free(struct pb_breakeven_record *r);

/* Appends r to doc["breakeven"] (made when missing). Returns 0, or -1 with
 * pb_error() when out of memory. */
int pb_results_add_breakeven(struct pb_results_doc *doc, const struct pb_breakeven_record *r);

#endif
