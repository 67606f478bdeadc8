/* primbench/cmd.h - whole-command timing: run a program, wait for it, and
 * report what wait4(2) and CLOCK_MONOTONIC saw (docs/methodology.md, "The
 * cmd suite").
 *
 * A command is started directly with posix_spawnp(3) (no shell unless the
 * caller builds a `/bin/sh -c` argv), its stdin on /dev/null and its
 * stdout/stderr on /dev/null unless shown. The figures of one run:
 *   wall_ns  CLOCK_MONOTONIC from just before posix_spawnp to just after
 *            wait4 returned (includes the spawn itself)
 *   user_ns, sys_ns, max_rss_kib, minflt, majflt, nvcsw, nivcsw
 *            from the rusage wait4() fills for the child, which includes
 *            every descendant the child waited for (getrusage(2),
 *            RUSAGE_CHILDREN semantics; not daemons it left running).
 *            max_rss_kib is the largest of them, not their sum.
 *
 * Processes the command leaves running (started, not waited for) are
 * reparented to this process, which makes itself a child subreaper
 * (prctl(2) PR_SET_CHILD_SUBREAPER) at the first run: `leftovers` counts
 * them. With wait_children the run lasts until the last of them exits
 * (wall_ns) and their rusage, which reaches this process and not the
 * command's wait4(), is added to the run. Without it they are waited for
 * untimed: by pb_cmd_wait_leftovers(), at the latest before the next run
 * starts, so that they never overlap a timed run.
 */
#ifndef PRIMBENCH_CMD_H
#define PRIMBENCH_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

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
	 * included (see the top of this file) */
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

/* The figures of one run (units in the names; see the top of this file). */
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
/* Parses "real", "user", "sys", "user+sys" (returned as PB_CMD_USER_SYS),
 * "instructions", "cycles" (PB_CMD_INSTRUCTIONS, PB_CMD_CYCLES), ...
 * Returns -1 with pb_error() for an unknown name. */
int pb_cmd_parse_figure(const char *name);
/* Figure value, or user + sys (ns), or a counter's count (NAN for a run
 * without counters). */
double pb_cmd_metric_value(const struct pb_cmd_run *r, int metric);

/* Hardware counters over a whole command: two events, instructions and
 * cycles (PERF_TYPE_HARDWARE), each its own fd (no group: inherited
 * events cannot be read with PERF_FORMAT_GROUP, perf_event_open(2)
 * "inherit"), opened by this process on itself (pid 0, any CPU) before
 * posix_spawn with disabled = 1, inherit = 1 and enable_on_exec = 1: the
 * child inherits them, disabled, and they start counting when it execs
 * the command (this process never execs, so its own part stays 0); every
 * descendant inherits them in turn. exclude_kernel = 1, exclude_hv = 1:
 * user space only, which perf_event_paranoid 2 (the default) allows
 * without CAP_PERFMON; kernel work is in sys time. When the command and
 * its descendants have exited their counts are summed into these events
 * (perf_event_open(2): inherited counts reach the parent event when the
 * child exits), read with PERF_FORMAT_TOTAL_TIME_ENABLED and _RUNNING and
 * scaled by enabled/running as perf stat does. PRIMBENCH_NO_COUNTERS=1
 * (any value but "" and "0") makes the open fail, so that the path
 * without counters can be tested on any machine.
 * pb_cmd_counters_open: 0 with fd[0] (instructions), fd[1] (cycles), or
 * -1 with pb_error() "no hardware counters here: perf_event_open
 * (instructions): STRERROR[ (hint)]" (ENOENT/EOPNOTSUPP/ENODEV: no PMU
 * for this CPU, as in most virtual machines; EACCES/EPERM:
 * perf_event_paranoid or a seccomp filter).
 * pb_cmd_counters_read: the counts into out (out->counters set) and
 * closes both fds. pb_cmd_counters_check: an open and a close, for the
 * checks before any run. */
int pb_cmd_counters_open(int fd[2]);
void pb_cmd_counters_read(int fd[2], struct pb_cmd_run *out);
int pb_cmd_counters_check(void);
/* The scaled count of a read of {value, time_enabled, time_running}:
 * value * enabled / running, the value itself when running == enabled,
 * NAN when running is 0 (never on the PMU). Pure. */
double pb_cmd_counter_scale(uint64_t value, uint64_t enabled, uint64_t running);

/* Runs s once, in a process group of its own, and waits for it. A run
 * that cannot start (no such program, not executable, cwd missing)
 * returns -1 with pb_error() "cannot run 'ARGV0': REASON". A run that
 * starts returns 0 and fills *out (exit_code/term_signal say how it
 * ended). When *stop becomes non-zero during the wait (a signal handler
 * raised it; the wait is interrupted because the handler is installed
 * without SA_RESTART), the command's process group gets SIGTERM, then
 * SIGKILL after 2 s or when *stop exceeds 1 (a second signal); the
 * function reaps the child, sends SIGTERM to what is left of the group,
 * and returns 1: the run must not be counted. stop may be NULL. */
int pb_cmd_run_once(const struct pb_cmd_spec *s, struct pb_cmd_run *out, volatile int *stop);

/* Runs s[0] and s[1] at the same time (`cmd --duet`), each as
 * pb_cmd_run_once runs one (its own process group, its own CPUs through
 * spec.cpus), s[0] spawned first, and waits for both, blocked in wait4(2)
 * (never polling): each one's wall_ns runs from just before its own spawn
 * to the return of the wait4 that reaped it. Leftovers: each side's
 * processes still running when both had exited, by process group (one
 * that left its group is counted for neither); spec.wait_children is not honoured (the caller
 * refuses it). Returns 0 and fills out[0..1]; 1 when *stop became
 * non-zero (both groups get SIGTERM, then SIGKILL after 2 s or a second
 * signal; the pair must not be counted); -1 with pb_error() when either
 * cannot start ("cannot run 'ARGV0': REASON"; the other is killed). */
int pb_cmd_run_pair(const struct pb_cmd_spec *const s[2], struct pb_cmd_run out[2],
                    volatile int *stop);

/* Waits, untimed, until every child of this process has exited (the
 * processes earlier runs left running, reparented here) and reaps them;
 * their rusage is dropped. pb_cmd_run_once calls it first. When *stop
 * becomes non-zero they get SIGTERM, SIGKILL after 2 s or at a second
 * signal. Returns the number reaped, or -1 when stopped. stop may be
 * NULL. Sources: prctl(2) PR_SET_CHILD_SUBREAPER, wait4(2). */
long pb_cmd_wait_leftovers(volatile int *stop);

/* Checks, before anything is timed, that s->argv[0] names a program that
 * can be started: a path with '/' must be a regular file executable by
 * this process; a bare name must be found so in $PATH (as posix_spawnp
 * searches it; an empty PATH entry is the current directory). Relative
 * paths are taken from s->cwd when set. Returns 0, or -1 with pb_error():
 * "cannot run 'x': not found in PATH" (for a shell builtin such as cd:
 * "cannot run 'cd': a shell builtin, not a program (use --shell)"), "... is
 * a directory",
 * "... is not executable", "... no such file"; a script whose #! line names
 * an interpreter that does not exist fails as pb_cmd_run_once would say it
 * ("cannot run './x': the interpreter its #! line names was not found").
 * A file that passes can still fail in execve (a binary of no format the
 * kernel runs: "Exec format error"): pb_cmd_run_once reports that. */
int pb_cmd_check(const struct pb_cmd_spec *s);

/* Splits `line` into words as a POSIX shell would (quotes and backslashes
 * honoured, $VAR expanded, globs expanded), without running a shell or any
 * command: wordexp(3) with WRDE_NOCMD (unset variables expand to nothing,
 * as in sh). Returns a NULL-terminated array
 * (free with pb_cmd_free_words), or NULL with pb_error(), e.g. "'a | b':
 * '|' needs a shell (use --shell)" or "command substitution is not run". */
char **pb_cmd_split(const char *line);
void pb_cmd_free_words(char **words);

/* The ABBA order of run i (0-based) in an A/B run: blocks "AB", "BA",
 * "AB", ...: A first in even blocks, B first in odd ones, so a linear
 * drift hits both sides alike over every 4 runs. Returns 0 for A, 1 for B. */
int pb_cmd_abba_side(size_t i);

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

/* A result-document case (docs/results-schema.md, "A cmd case") for the
 * runs of `side` among recs[0..n): key {suite "cmd", argv, shell, cwd,
 * env, side "A"/"B"}, unit "ns", samples [[real_ns, 1], ...] of the
 * counted runs, per_call (summary of real), figures (a summary per figure),
 * runs (every run, warm-ups flagged) and first_run {ratio_to_later_median:
 * first_ratio, outlier: first_outlier}, the caller's pb_first_outlier
 * (include/primbench/stats.h) of the counted runs' real times. argv is
 * what was executed (with --shell: /bin/sh -c ...). New reference, NULL
 * with pb_error(). */
json_t *pb_cmd_case_json(const struct pb_cmd_spec *spec, bool shell, int side,
                         const struct pb_cmd_record *recs, size_t n, double first_ratio,
                         bool first_outlier);

#endif
