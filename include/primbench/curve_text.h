/* primbench/curve_text.h - the latency curve, loaded latency and mem map's
 * figures as text: the one printer of each table, used by the commands
 * that measure them (latency, mem map) and by `primbench report` on their
 * result files (docs/results-schema.md "A latency case", "map cases").
 * Everything here takes plain figures (no suite's structures), so report
 * needs no suite.
 */
#ifndef PRIMBENCH_CURVE_TEXT_H
#define PRIMBENCH_CURVE_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "primbench/curve.h"
#include "primbench/reader.h"

/* The curve's table (after its heading, which the caller prints): a
 * column line, then per point "size ns/load ticks/load spread" (and "95%
 * CI", +-ci in %, between ticks/load and spread when a point has_ci), marked
 * "xR vs half the size" where the point is 1.3x or more slower than the
 * point of half its size, and "(past L1d 32 KiB)" at the first point past
 * each of c's levels. Then, unless no_check, the reported sizes against
 * the curve's steps: one line per level of c and per figure of a source
 * that was rejected as implausible (src/cpu/caches.c). pts ascending by
 * size; n >= 0. */
void pb_curve_print(FILE *f, const struct pb_cache_info *c, const struct pb_curve_point *pts, int n,
                    bool no_check);

/* c from a result file's machine (struct pb_results_machine's caches, read
 * from its "caches": L1d, L2, LLC with size_bytes, source,
 * by_source{name: {size_bytes, plausible}}, note; line_bytes): a level or
 * source missing from it is 0 / PB_SRC_FALLBACK. Returns 0, or -1 when
 * the machine has no "caches" (c zeroed). */
int pb_curve_caches_of(const struct pb_results_machine *m, struct pb_cache_info *c);

/* One load level of loaded latency: the chase with `threads` load threads
 * running, their aggregate GB/s (decimal) and the chase's spread and
 * interval as above. */
struct pb_loaded_row {
	int threads;
	double ns_per_load, ticks_per_load, load_gb_per_s, spread;
	bool has_ci;
	double ci;
};

/* The loaded-latency table (after its heading): a column line, one line
 * per level ("95% CI" as in pb_curve_print when a row has_ci). */
void pb_loaded_print(FILE *f, const struct pb_loaded_row *rows, int n);

/* One case of mem map: page size ("4K", "2M", "1G"), its source ("4K",
 * "THP", "hugetlbfs"), threads, the case's figures (GB/s decimal, ns per
 * 4 KiB, ns per page: of the median, or with replicates of the geometric
 * mean of the replicates' medians) and spread = (p90 - p10) / median of
 * the samples, a fraction (NaN: "-"). has_ci: the figure has an interval
 * (replicates), ci its half-width, a fraction of the figure. */
struct pb_map_row {
	const char *pages, *source;
	unsigned threads;
	double gb_per_s, ns_per_4k, ns_per_page, spread;
	bool has_ci;
	double ci;
};

/* mem map's table: the column line, then one line per row, with a "95%
 * CI" column (+-ci in %) before the spread when a row has_ci. */
void pb_map_print(FILE *f, const struct pb_map_row *rows, size_t n);

#endif
