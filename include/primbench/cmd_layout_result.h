/* primbench/cmd_layout_result.h - the layout of `primbench cmd`'s runs as
 * data (include/primbench/cmd_layout.h): the pad variable, the plan, the
 * audit's sizes and figures, and the address space randomization the
 * document records. Written into a result document by the results module
 * alone (pb_results_add_layout below). Part of the results module. */
#ifndef PRIMBENCH_CMD_LAYOUT_RESULT_H
#define PRIMBENCH_CMD_LAYOUT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The pad variable's name, and the longest value (bytes). */
#define PB_LAYOUT_PAD_NAME      "PRIMBENCH_PAD"
#define PB_LAYOUT_PAD_MAX_BYTES 4095
/* --layout-audit: environment sizes, and runs per size by default. */
#define PB_LAYOUT_AUDIT_SIZES 8
#define PB_LAYOUT_AUDIT_RUNS  5

enum pb_layout_mode {
	PB_LAYOUT_NONE,   /* no pad */
	PB_LAYOUT_RANDOM, /* --randomize-env: a uniform draw per run */
	PB_LAYOUT_AUDIT,  /* --layout-audit: the audit's sizes, interleaved */
};

/* How a session pads its runs. warmup: PB_LAYOUT_AUDIT only, the warm-ups
 * (per side, 1 side) before its counted runs, which get sizes in the
 * order of the counted ones. */
struct pb_layout_plan {
	enum pb_layout_mode mode;
	uint64_t seed;
	size_t warmup;
};

/* The pad of size index k (0..PB_LAYOUT_AUDIT_SIZES-1), bytes: k * 528
 * (0, 528, ..., 3696). 528 = 512 + 16: spread over the page, and each
 * 16-byte slot of a 64-byte line taken twice (k * 512 alone would keep
 * every size at the same offset within a cache line). */
long pb_layout_audit_size(unsigned k);

/* The audit's figures (pb_layout_audit_stats, include/primbench/
 * cmd_layout.h, says how they are made): per size index n and median,
 * spread, Kruskal-Wallis H and p, the ANOVA on the logs' F, p and
 * between_share; valid false when they could not be had. */
struct pb_layout_audit {
	bool valid;
	unsigned k;
	size_t n[PB_LAYOUT_AUDIT_SIZES];
	double median[PB_LAYOUT_AUDIT_SIZES];
	double spread;
	double kw_h, kw_p;
	double anova_f, anova_p, between_share;
};

/* /proc/sys/kernel/randomize_va_space (0, 1, 2), 0 when this process
 * runs with ADDR_NO_RANDOMIZE (setarch -R; personality(2), inherited by
 * the commands), or -1 when unreadable. */
int pb_layout_aslr(void);

struct pb_results_doc; /* primbench/results.h */

/* Sets the document's "layout" object (docs/results-schema.md): mode
 * ("randomize-env" for PB_LAYOUT_RANDOM, else "audit-only"), variable
 * (PB_LAYOUT_PAD_NAME), pad_bytes_max, seed, randomize_va_space
 * (pb_layout_aslr, read now; null when unreadable); with an audit (a not
 * NULL) "audit": sizes_bytes, runs_per_size, metric (the figure's name),
 * valid, medians (null each when not valid) and, when valid, spread,
 * kruskal_wallis {h, df, p} and anova_log {f, df1, df2, p,
 * between_share}. Numbers that are not finite are written as null.
 * Returns 0, or -1 with pb_error() when out of memory. */
int pb_results_add_layout(struct pb_results_doc *doc, const struct pb_layout_plan *pl,
                          const struct pb_layout_audit *a, size_t runs_per_size,
                          const char *metric);

#endif
