/* primbench/cmd_ab.h - the engine of `primbench cmd`: one command timed N
 * times, or two (or two environments) A/B in ABBA order, optionally until
 * a verdict (docs/methodology.md, "The cmd suite"). The CLI
 * (src/cli/cmd_cmd.c) parses options; src/cli/cmd_cmd_report.c prints
 * (declared in src/cli/cmd_cmd.h); everything between is here:
 *
 *   pb_cmd_ab_env_setup   the preload library's environment of each side
 *                         (LD_PRELOAD, policies, --account directories), a
 *                         test run of the library under it
 *   pb_cmd_ab_run         warm-ups, counted runs in ABBA order, the looks
 *                         of --until-verdict and when to stop
 *   pb_cmd_ab_stats       B against A: medians, Hodges-Lehmann ratio,
 *                         Mann-Whitney, Student's t
 *
 * Warm-ups are W per side, in the same ABBA order, never counted: their
 * accounting files are removed, not kept. A run that fails (non-zero exit
 * or a signal) stops the session unless ignore_failure; a run interrupted
 * (*stop raised) is not recorded.
 */
#ifndef PRIMBENCH_CMD_AB_H
#define PRIMBENCH_CMD_AB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "primbench/cmd.h"
#include "primbench/cmd_layout.h"
#include "primbench/profile.h"
#include "primbench/twosample.h"

/* Lines for the user during the run, and progress. Each may be NULL. */
enum pb_cmd_ab_msg { PB_CMD_AB_ERROR, PB_CMD_AB_WARNING };
struct pb_cmd_ab_hooks {
	void *ctx;
	/* before each run: runs done so far and their total (0: until a
	 * verdict) */
	void (*progress)(void *ctx, size_t done, size_t total);
	/* an error line ("run A1 exited with status 1 ...") or a warning
	 * (processes left running; the library's variables), unprefixed */
	void (*message)(void *ctx, enum pb_cmd_ab_msg kind, const char *text);
	/* --profile: before the profiled runs of a side */
	void (*profiling)(void *ctx, int side);
};

/* Formats a message (printf-style) and passes it to h->message with its
 * kind; nothing when h or h->message is NULL or memory runs out. */
void pb_cmd_ab_say(const struct pb_cmd_ab_hooks *h, enum pb_cmd_ab_msg kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- what a side runs ---- */

/* The argv of a command given as words (line NULL: the words after the
 * options, NULL-terminated) or as one line (--vs, --prepare): with shell,
 * {"/bin/sh", "-c", the words joined by spaces or the line}; else the
 * words, or the line split as a shell would (pb_cmd_split, no shell run).
 * Returns the argv (valid until pb_cmd_ab_argv_free(a)), or NULL with
 * pb_error(). */
struct pb_cmd_ab_argv {
	char **split;  /* pb_cmd_split's words, or NULL */
	char *joined;  /* the words joined for sh -c, or NULL */
	char *sh_c[4]; /* /bin/sh -c SCRIPT */
};
char *const *pb_cmd_ab_argv(struct pb_cmd_ab_argv *a, char *const *words, const char *line,
                            bool shell);
void pb_cmd_ab_argv_free(struct pb_cmd_ab_argv *a);

/* ---- the preload library's environment (docs/preload.md) ---- */

#define PB_CMD_AB_ENV_EXTRA 12 /* entries pb_cmd_ab_env_setup may append */
struct pb_cmd_ab_env {
	/* in: --memset, --memcpy, --memmove per side (B's NULL: A's); the
	 * account mode (0 off, 1 counts, 2 ticks); --record-distribution */
	const char *policy[2][3];
	int account;
	bool record;
	/* out */
	bool lib[2];               /* the side loads libprimswitch.so */
	char acct_root[4096];      /* --account: the session's directory, else "" */
	char acct_dir[2][2][4200]; /* per side: [0] counted runs' files, [1] each run's */
	char log_env[4200];        /* "PRIMBENCH_PRELOAD_LOG=PATH" */
	bool use_log;              /* a side has log_env */
	char *owned[2][8];         /* allocated entries of the sides' environments */
};

/* Appends the library's variables to env[sd][0..nenv[sd]) (each array with
 * room for PB_CMD_AB_ENV_EXTRA more and a NULL) for each side that loads
 * it: LD_PRELOAD first (then what --env or the environment gave), the
 * policies ("NAME" unsets the others), the accounting variables, the log
 * file; then runs the tiny dynamic test program under side[sd] (whose
 * env_set is env[sd]): the library must load and accept every setting.
 * Warns (hooks) about PRIMBENCH_* variables inherited or set by --env that
 * will not apply. Returns 0, or -1 with pb_error(); either way
 * pb_cmd_ab_env_free removes what it made. */
int pb_cmd_ab_env_setup(struct pb_cmd_ab_env *e, int nsides, char **env[2], size_t nenv[2],
                        const struct pb_cmd_spec side[2], const struct pb_cmd_ab_hooks *hooks);
/* Creates the session's log file (when a side uses it), once the session
 * will run. */
void pb_cmd_ab_env_start_log(struct pb_cmd_ab_env *e);
/* --account: the files of the run just finished join the counted runs'
 * when keep, else are removed (a warm-up, an interrupted or profiled run),
 * so the table and the CPU time cover the same runs. */
void pb_cmd_ab_env_settle(const struct pb_cmd_ab_env *e, int side, bool keep);
/* Prints the library's messages of the session once each, in the order they
 * first came, a repeated one with its count ("35x "), after a line that
 * says how many there were; removes the file. Nothing when it is empty. */
void pb_cmd_ab_env_report_log(struct pb_cmd_ab_env *e, FILE *f);
/* Removes the --account directories and frees what setup allocated. */
void pb_cmd_ab_env_free(struct pb_cmd_ab_env *e);

/* ---- the runs ---- */

struct pb_cpu_place; /* include/primbench/cpu_noise.h */

struct pb_cmd_ab_params {
	int nsides;                        /* 1, or 2 for A/B */
	struct pb_cmd_spec side[2];        /* what runs, A and B */
	const struct pb_cmd_spec *prepare; /* run untimed before every run, or NULL */
	const struct pb_cmd_ab_env *env;   /* for the accounting files, or NULL */
	size_t warmup;                     /* per side, before the counted runs */
	size_t runs;                       /* counted, per side (not with until_verdict) */
	bool until_verdict;                /* nsides 2: looks up to max_runs per side */
	size_t max_runs;
	/* The verdict (and every look) on the ratios B/A of the pairs of
	 * runs made together (pb_paired_hl_ratio): the adjacent A and B runs of
	 * each ABBA block, or the two sides of a duet pair. Else on every run
	 * (fixed size: Hodges-Lehmann; looks: pb_seq_ratio). */
	bool paired;
	/* A and B at the same time (pb_cmd_run_pair), A on duet_cpus[i % 2]
	 * and B on the other in pair i (so each CPU set's noise hits both
	 * sides alike), A spawned first in pairs 0, 1, 4, 5, ... and B first
	 * in 2, 3, 6, 7, ...; implies paired. duet_cpus: two cpu_set_t, for
	 * the two slots; duet_cpus_text their lists, for the report. */
	bool duet;
	const void *duet_cpus[2];
	const char *duet_cpus_text[2];
	double budget_s;    /* until_verdict: stop after this long; 0 never */
	double equivalence; /* the looks' margin; 0 none */
	int metric;         /* the verdict's figure (pb_cmd_metric_value) */
	bool ignore_failure;
	bool wait_children;    /* for the leftovers warning's wording */
	bool shell;            /* for the failure message's wording */
	const char *cpus_text; /* --cpu as given, for the report; or NULL */
	/* how the command's CPU was chosen (cmd's placement by measured
	 * noise, include/primbench/cpu_noise.h), for the report and the
	 * document's "placement"; or NULL */
	const struct pb_cpu_place *placement;
	volatile int *stop; /* raised by a signal handler */
	struct pb_cmd_ab_hooks hooks;
	/* --randomize-env, --layout-audit: each run's pad
	 * (pb_layout_pad_of, recorded in its pb_cmd_record); NULL none */
	const struct pb_layout_plan *layout;
};

/* B against A on one metric, in its unit (ns or counts). */
struct pb_cmd_ab_stats {
	bool valid;
	bool nonpositive; /* a run's figure was 0: no ratio */
	size_t na, nb;
	double med_a, med_b;
	struct pb_shift ratio; /* Hodges-Lehmann on every run, or a look's */
	/* pb_paired_hl_ratio of the pairs (A's k-th counted run with B's k-th:
	 * the same ABBA block or duet pair) at the same level; npairs of them */
	struct pb_shift paired;
	size_t npairs;
	bool paired_valid;
	struct pb_utest u;
	struct pb_ttest t;
	bool t_valid;
};

enum pb_cmd_ab_end {
	PB_CMD_AB_DONE,         /* every run made (or a look ended the session) */
	PB_CMD_AB_FAILED,       /* a run (or --prepare) failed, not ignored */
	PB_CMD_AB_CANNOT_START, /* a program could not be executed */
	PB_CMD_AB_INTERRUPTED,  /* *stop was raised */
};

struct pb_cmd_ab_result {
	struct pb_cmd_record *recs; /* every run in order, warm-ups included */
	size_t nrecs, caprecs;
	size_t counted[2], warm[2];
	size_t leftover_runs; /* runs that left processes running */
	long leftover_max;    /* the most one left */
	enum pb_cmd_ab_end end;
	/* until_verdict */
	struct pb_seq_plan plan;
	size_t looks;                   /* looks done */
	enum pb_verdict verdict;        /* of the last look */
	struct pb_cmd_ab_stats look_ab; /* the last look's */
	const char *ended_by;           /* "verdict", "budget", "zero-metric", "max-runs"; NULL */
	/* the looks done, look[0..looks): runs per side, ratio, interval,
	 * verdict (the document's "looks", written by pb_results_set_ab, ab_result.h) */
	struct pb_cmd_ab_look look[PB_SEQ_MAX_LOOKS];
};

/* Runs the session. Returns 0 (the end in r->end), or -1 with pb_error()
 * when until_verdict has no plan for max_runs. Free r with
 * pb_cmd_ab_result_free. */
int pb_cmd_ab_run(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r);
void pb_cmd_ab_result_free(struct pb_cmd_ab_result *r);

/* --layout-audit: A alone (p->side[0]), PB_LAYOUT_AUDIT_SIZES environment
 * sizes times runs_per_size counted runs after p->warmup warm-ups, the
 * sizes interleaved (pb_layout_pad_of with PB_LAYOUT_AUDIT and seed), no
 * --until-verdict; then pb_layout_audit_stats on p->metric into *a.
 * Returns 0 (the end in r->end, the runs in r), or -1 with pb_error().
 * Free r with pb_cmd_ab_result_free. */
int pb_cmd_ab_layout_audit(const struct pb_cmd_ab_params *p, size_t runs_per_size, uint64_t seed,
                           struct pb_cmd_ab_result *r, struct pb_layout_audit *a);

/* The values of metric of the counted runs of side among recs[0..n), in
 * order, into out (room for n). Returns their number. */
size_t pb_cmd_ab_values(const struct pb_cmd_record *recs, size_t n, int side, int metric,
                        double *out);
/* B against A at level: look, the ratio of an --until-verdict look
 * (pb_seq_ratio), else the Hodges-Lehmann ratio of every run. */
void pb_cmd_ab_stats(const struct pb_cmd_record *recs, size_t n, int metric, double level,
                     bool look, struct pb_cmd_ab_stats *out);
/* The verdict of the fixed-size session: pb_verdict on the ratio, with the
 * Mann-Whitney test (as `compare`) and `margin` (--equivalence; default
 * PB_EQUIVALENCE). */
enum pb_verdict pb_cmd_ab_verdict(const struct pb_cmd_ab_stats *ab, double margin);
/* The verdict on the paired ratio: pb_verdict_of(ab->paired, margin) (the
 * interval alone: no rank-sum test belongs to it), NONE without one. */
enum pb_verdict pb_cmd_ab_verdict_paired(const struct pb_cmd_ab_stats *ab, double margin);

/* The session's verdict: on the paired ratio with --paired (and --duet),
 * else on every run (pb_cmd_ab_verdict), with p->equivalence as the
 * margin. */
enum pb_verdict pb_cmd_ab_session_verdict(const struct pb_cmd_ab_params *p,
                                          const struct pb_cmd_ab_stats *ab);
/* The values of metric of the pairs among recs[0..n): a[k] side A's k-th
 * counted run, b[k] side B's, k < the smaller count (room for n each).
 * Returns their number. */
size_t pb_cmd_ab_pairs(const struct pb_cmd_record *recs, size_t n, int metric, double *a,
                       double *b);
/* The counted runs that failed, and in *counted how many were counted. */
size_t pb_cmd_ab_failed_runs(const struct pb_cmd_ab_result *r, size_t *counted);

/* ---- --profile: after the timed runs, runs under perf record ---- */

/* One side's profile: `runs` times, `prepare` (may be NULL) then `perf
 * record -e EVENT -o DIR/N.data -- ARGV` with the spec's environment and
 * directory (its output to /dev/null; children followed by inheritance),
 * each file read with `perf report` (include/primbench/profile.h) and the
 * profiles merged into
 * *out. `perf` is the program to run (a name looked up in PATH, or a
 * path). Returns 0; 1 when *stop became non-zero (no profile); -1 with
 * pb_error() ("perf record failed (exit status 255): Error: ...", quoting
 * perf's first error line) when perf failed or its text did not parse.
 * *exit_code gets the last profiled run's exit status (perf record exits
 * with its command's). */
int pb_profile_run(const char *perf, const char *event, const char *dir,
                   const struct pb_cmd_spec *side, const struct pb_cmd_spec *prepare, size_t runs,
                   volatile int *stop, struct pb_profile *out, int *exit_code);

/* Whether `perf record -e EVENT` works here: records /bin/true into a
 * file of dir. 0, or -1 with pb_error() quoting perf's error line. */
int pb_profile_check(const char *perf, const char *event, const char *dir);

struct pb_cmd_ab_profile {
	const char *perf; /* the program (PRIMBENCH_PERF, else "perf") */
	size_t runs, top; /* profiled runs per side; symbols shown */
	/* set up by pb_cmd_ab_profile_setup */
	const char *event; /* "cycles", or "cpu-clock" without counters */
	char hw_why[256];  /* why no hardware counters */
	char dir[4096];
	/* per side, after pb_cmd_ab_profile_run */
	struct pb_profile prof[2];
	bool have[2];
	int exit_code[2];
};
/* The event and a directory, and a test record. 0, or -1 with pb_error(). */
int pb_cmd_ab_profile_setup(struct pb_cmd_ab_profile *pr);
/* The profiled runs, A then B (perf's sampling perturbs timing: after the
 * timed ones), while *end is PB_CMD_AB_DONE; hooks->profiling before each
 * side. *end becomes PB_CMD_AB_INTERRUPTED when stopped; a side perf
 * failed on is said (hooks->message) and left without a profile. Then
 * removes the directory. */
void pb_cmd_ab_profile_run(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_profile *pr,
                           enum pb_cmd_ab_end *end);
void pb_cmd_ab_profile_free(struct pb_cmd_ab_profile *pr);

#endif
