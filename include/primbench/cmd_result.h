/* primbench/cmd_result.h - the cmd suite's runs as data: what was run
 * (struct pb_cmd_spec), the figures of one run, their names and values,
 * a run as a session records it, a side's runs as a case of a result
 * document, and a look of a sequential A/B session. Filled by the cmd
 * suite (include/primbench/cmd.h, cmd_ab.h) and the command line, written
 * into a result document by the results module alone
 * (pb_results_add_cmd_case below; the looks: pb_results_set_ab,
 * primbench/ab_result.h). Part of the results module. */
#ifndef PRIMBENCH_CMD_RESULT_H
#define PRIMBENCH_CMD_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/twosample.h"

/* File name of the preload library (libprimswitch.so, include/primbench/
 * preload.h): a case key's env records an LD_PRELOAD entry of it by this
 * name alone, without its directory. */
#define PB_PRELOAD_NAME "libprimswitch.so"

/* What to run. argv and env_set are NULL-terminated; env_set holds
 * "NAME=VALUE" strings applied over the current environment (a NAME given
 * twice: the last wins; an entry "NAME" without '=' removes NAME from the
 * environment). cwd NULL: the current directory. */
struct pb_cmd_spec {
	char *const *argv;
	char *const *env_set;
	const char *cwd;
	bool show_output;        /* inherit stdout/stderr instead of /dev/null */
	const char *stderr_path; /* when set: stderr goes to this file (created) */
	/* when set (and not show_output): stdout goes to this file (created),
	 * stderr to /dev/null unless stderr_path */
	const char *stdout_path;
	/* the run lasts until every descendant has exited, their rusage
	 * included (include/primbench/cmd.h, its top) */
	bool wait_children;
	/* when set: a cpu_set_t (sched.h; a void pointer so that this header
	 * needs no _GNU_SOURCE) the command and every process it starts are
	 * pinned to (sched_setaffinity(2), inherited across fork and exec) */
	const void *cpus;
	/* when set: one more "NAME=VALUE" applied after env_set, for this run
	 * only (--randomize-env's pad, include/primbench/cmd_layout.h); never
	 * part of the case key */
	const char *env_extra;
	/* count instructions and cycles (pb_cmd_counters_open); a run whose
	 * counters cannot open fails to start */
	bool counters;
};

/* The figures of one run (units in the names; include/primbench/cmd.h, its top). */
struct pb_cmd_run {
	double wall_ns, user_ns, sys_ns;
	long max_rss_kib, minflt, majflt, nvcsw, nivcsw;
	int exit_code;   /* exit status when it exited, else -1 */
	int term_signal; /* the signal that killed it, else 0 */
	long leftovers;  /* descendants still running when the command exited */
	/* with pb_cmd_spec.counters: instructions retired and core cycles of
	 * the command and every descendant, user space only (counters true);
	 * scaled by enabled/running time when the PMU was shared */
	bool counters;
	double instructions, cycles;
};

/* Number of figures in pb_cmd_figure order, their names ("real", "user",
 * "sys", "maxrss", "minflt", "majflt", "vcsw", "ivcsw") and units ("s" for
 * the times when printed, stored in ns; "KiB"; "" for counts). */
enum pb_cmd_figure {
	PB_CMD_REAL,
	PB_CMD_USER,
	PB_CMD_SYS,
	PB_CMD_MAXRSS,
	PB_CMD_MINFLT,
	PB_CMD_MAJFLT,
	PB_CMD_VCSW,
	PB_CMD_IVCSW,
	PB_CMD_NFIGURES
};
/* Metrics beyond the figures (pb_cmd_parse_figure, pb_cmd_metric_value):
 * user + sys (ns), and the hardware counters' counts. */
#define PB_CMD_USER_SYS     PB_CMD_NFIGURES
#define PB_CMD_INSTRUCTIONS (PB_CMD_NFIGURES + 1)
#define PB_CMD_CYCLES       (PB_CMD_NFIGURES + 2)
/* Whether a metric is a time (ns), else a count. */
bool pb_cmd_metric_is_time(int metric);
/* Whether a metric needs the hardware counters. */
bool pb_cmd_metric_is_counter(int metric);
/* A figure's or metric's name ("user+sys", "instructions", "cycles"). */
const char *pb_cmd_figure_name(enum pb_cmd_figure f);
/* The value of figure f of a run (times in ns). */
double pb_cmd_figure_value(const struct pb_cmd_run *r, enum pb_cmd_figure f);
/* Figure value, or user + sys (ns), or a counter's count (NAN for a run
 * without counters). */
double pb_cmd_metric_value(const struct pb_cmd_run *r, int metric);

/* One run as a session records it: which side (0 = A, 1 = B), whether it
 * was a warm-up, its 1-based number among the side's runs of that kind, and
 * its position in the whole session (0-based, warm-ups included). */
struct pb_cmd_record {
	struct pb_cmd_run run;
	int side;
	bool warmup;
	size_t index;
	size_t position;
	/* --duet: the CPU set the run had, 1 or 2 (swapped every pair), and
	 * whether it was spawned before the other side; 0 and false otherwise */
	int duet_slot;
	bool spawned_first;
	/* --randomize-env, --layout-audit: the run's environment had
	 * PRIMBENCH_PAD with a value of pad_bytes bytes */
	bool padded;
	size_t pad_bytes;
};

/* Whether an env_set entry is part of a case's key (and shown): not the
 * accounting directory (a fresh temporary one each run), not the preload
 * library's log file (PRIMBENCH_PRELOAD_LOG, one per session), not the
 * layout pad (PRIMBENCH_PAD, a different length each run) and not an
 * unset ("NAME" without '='). */
bool pb_cmd_env_in_key(const char *entry);

/* One look of a sequential A/B session (cmd --until-verdict,
 * include/primbench/cmd_ab.h): the runs per side it saw, the ratio B/A
 * (or the paired estimate) with its interval, and the verdict. */
struct pb_cmd_ab_look {
	size_t runs_per_side;
	double ratio, ci_lo, ci_hi;
	enum pb_verdict verdict;
};

/* ---- a side's runs as a case of a result document ---- */

struct pb_results_doc;        /* primbench/results.h */
struct pb_acct_tables;        /* primbench/accounting_result.h */
struct pb_cmd_profile_record; /* primbench/profile.h */

/* The runs of one side of a session as a cmd case: spec (what ran; its
 * argv is what was executed, with --shell /bin/sh -c ...), shell
 * (--shell), side (0 = A, 1 = B), the session's runs recs[0..n) (the
 * side's are taken), and run 1 against the later ones: first_ratio and
 * first_outlier, the caller's pb_first_outlier (include/primbench/stats.h)
 * of the side's counted runs' real times. All borrowed. */
struct pb_cmd_case {
	const struct pb_cmd_spec *spec;
	bool shell;
	int side;
	const struct pb_cmd_record *recs;
	size_t n;
	double first_ratio;
	bool first_outlier;
};

/* Appends c to the document's "cases" (docs/results-schema.md, "A cmd
 * case"): key {suite "cmd", argv, shell, cwd, env (the entries
 * pb_cmd_env_in_key keeps; an LD_PRELOAD of libprimswitch.so by its name
 * alone), side "A"/"B", wait_children (only when set)}, unit "ns",
 * overhead_subtracted false, samples [[real_ns, 1], ...] of the counted
 * runs, and when there are any: per_call (the summary of real), figures
 * (a summary per figure; instructions and cycles when counted) and
 * first_run {ratio_to_later_median, outlier}; runs (every run, warm-ups
 * flagged); then "accounting" (acct not NULL: the accounting tables,
 * primbench/accounting_result.h) and "profile" (prof not NULL,
 * primbench/profile.h). Numbers that are not finite are written as null.
 * Returns 0, or -1 with pb_error() when out of memory (nothing appended). */
int pb_results_add_cmd_case(struct pb_results_doc *doc, const struct pb_cmd_case *c,
                            const struct pb_acct_tables *acct,
                            const struct pb_cmd_profile_record *prof);

#endif
