/* processes.h - `--processes N` (src/cli/processes.c): the run's
 * replicates in N fresh processes of primbench, joined into one result. */
#ifndef PRIMBENCH_CLI_PROCESSES_H
#define PRIMBENCH_CLI_PROCESSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/compare.h"
#include "primbench/format.h"
#include "primbench/reader.h"
#include "primbench/results.h"

struct cli_processes {
	size_t n;                        /* processes, >= 2 */
	size_t replicates_each;          /* --replicates of each, >= 1 */
	double budget_s;                 /* the whole run's per group: each gets budget_s / n */
	size_t min_samples, max_samples; /* each gets max_samples / n (at least min) */
	uint64_t seed;                   /* child i: seed + i x a constant */
	bool same_seed;                  /* every child the same seed (a replay: the
	                                    seed draws the batch, part of the key) */
	bool fixed_samples;              /* no --budget, --max-samples for the children
	                                    (latency: a fixed number of rounds) */
	const char *rounds_option;       /* NULL: --budget and --max-samples get the
	                                    shares; else (mem map: "--rounds") this
	                                    option gets max_samples' share, and no
	                                    --budget is passed */
	const char *out_path;            /* NULL: none */
	enum pb_format format;
	/* --vs-env NAME=VALUE ... (n_vs_env > 0): an A/B run. The n processes
	 * alternate A B B A A B B A ... (cli_vs_env_side_b); B's have these in
	 * their environment, A's the parent's. Each side's processes are
	 * joined as above, and B is set against A as `compare A.json B.json`
	 * does (a process a replicate: replicates_each 1), with the one margin
	 * (PB_EQUIVALENCE). -o FILE writes FILE-A.json and FILE-B.json, the
	 * two sides, and FILE, the comparison (docs/results-schema.md,
	 * "compare output", with a "vs_env" object). */
	char *const *vs_env;
	size_t n_vs_env;
	/* the command line the children run before the shares above (NULL:
	 * this process's own, cli_argv; tune's check of its GLIBC_TUNABLES
	 * line gives a `primbench mem` one) */
	char *const *argv;
	int argc;
};

/* Whether process i (from 0) of an A/B run is on side B: the order
 * A B B A, repeated (i = 1, 2 mod 4), so that a drift of the machine over
 * the run falls on both sides alike (the ABBA design of W. J. Youden's
 * drift-balanced sequences; pyperf and hyperfine interleave likewise). */
bool cli_vs_env_side_b(size_t i);

/* Checks a --vs-env argument: NAME=VALUE with NAME non-empty and of
 * letters, digits and '_' not starting with a digit (exits 2 otherwise:
 * "--vs-env 'X': not NAME=VALUE"). */
void cli_vs_env_check(const char *arg);

/* cli_vs_env_check, then arg appended to list[0..*n) (at most max): exits
 * 2 when the list is full or already names arg's variable. */
void cli_vs_env_add(char **list, size_t *n, size_t max, const char *arg);

/* Where --vs-env -o PATH writes side `side` ('A' or 'B'): PATH with
 * "-A.json" or "-B.json" in place of a ".json" ending (else appended),
 * into out (len bytes). */
void cli_vs_env_side_path(const char *path, char side, char *out, size_t len);

/* Runs cli_argv again n times (with --processes 1 and the shares above
 * after it), joins their result files case by case (samples and
 * replicates in process order; per_call by pb_summarize_replicates),
 * prints the whole as `report` does and writes it to out_path. An
 * interrupted child ends the series: what was measured is kept. Returns
 * the exit status: 0, 2 when a child failed or none measured, or a
 * child's 128 + signal. */
int cli_processes_run(const struct cli_processes *p);

/* An A/B run's two sides and B set against A (cli_vs_env_measure). */
struct cli_vs_env_result {
	struct pb_results_doc *doc[2]; /* A's and B's processes joined */
	size_t done[2];                /* processes of each that finished */
	char order[256];               /* "ABBAAB...", those that finished */
	char *envs;                    /* B's variables, "X=1 Y=2" */
	struct pb_results_file f[2];   /* the two sides as result files */
	struct pb_compare_result res;  /* B against A, margin PB_EQUIVALENCE */
	char empty_side;               /* with no result: 'A' or 'B', the side none of whose
	                                  processes finished (0: another failure) */
};

/* The A/B run of p (n_vs_env > 0) without printing it: its processes, the
 * two sides joined and B compared with A as `compare` does. Returns the
 * exit status (0; 2 when a child failed, none of a side finished or the
 * comparison failed, the error line printed; 130/143 when interrupted);
 * r->doc[0] is NULL when there is nothing to show, else free r with
 * cli_vs_env_result_free. */
int cli_vs_env_measure(const struct cli_processes *p, struct cli_vs_env_result *r);
void cli_vs_env_result_free(struct cli_vs_env_result *r);

/* Whether this process is one of cli_processes_run's children (it then
 * leaves the "interrupted" line to the parent, which knows the path). */
bool cli_processes_child(void);

#endif
