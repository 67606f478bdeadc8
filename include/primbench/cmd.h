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

#include "primbench/cmd_result.h"

/* Parses "real", "user", "sys", "user+sys" (returned as PB_CMD_USER_SYS),
 * "instructions", "cycles" (PB_CMD_INSTRUCTIONS, PB_CMD_CYCLES), ...
 * Returns -1 with pb_error() for an unknown name. */
int pb_cmd_parse_figure(const char *name);

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

#endif
