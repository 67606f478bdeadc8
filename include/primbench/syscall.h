/* primbench/syscall.h - the syscall suite: the cost of entering the kernel
 * and of the work the kernel does for a process (docs/methodology.md, "The
 * syscall suite").
 *
 * Every benchmark is timed like the mem suite: samples of k operations
 * between two timer stamps, k calibrated so a sample lasts well above the
 * timer's step and overhead, the timer overhead subtracted, samples that
 * changed CPU dropped, the members of a group interleaved in shuffled
 * rounds. One case per (benchmark, placement, page size).
 */
#ifndef PRIMBENCH_SYSCALL_H
#define PRIMBENCH_SYSCALL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "primbench/pages.h"
#include "primbench/stats.h"
#include "primbench/syscall_result.h"

/* One line describing what one op is. */
const char *pb_syscall_bench_desc(enum pb_sc_bench b);

/* Selects benchmarks by name: sel[b] is set for each of names[0..n); n == 0
 * selects all. Returns 0, or -1 with pb_error() "unknown benchmark 'x'
 * (known: null, umask, ...)". */
int pb_syscall_select(const char *const *names, size_t n, bool sel[PB_SC_COUNT]);

/* Checks `arg` as a CPU to pin to: a number that names an online CPU
 * this process may run on. Returns the CPU, or -1 with pb_error(), e.g.
 * "--cpu 99: no such CPU (online: 0-1)". `online_text` is the content of
 * /sys/devices/system/cpu/online, or NULL to read it (a test passes a
 * sample). */
int pb_syscall_parse_cpu(const char *arg, const char *online_text);

/* The CPUs this process may run on (sched_getaffinity), lowest first, at
 * most cap of them. Returns the count (0 when unknown). */
size_t pb_syscall_allowed_cpus(int *cpus, size_t cap);

/* Pins the calling thread to `cpu` (sched_setaffinity). 0 or -1 with
 * pb_error(). */
int pb_syscall_pin(int cpu);

/* pb_smaps_anon_huge_bytes and pb_thp_bytes_at (AnonHugePages of a
 * mapping) are the memory module's: primbench/pages.h. */

/* Where the tiny exec targets are ("primbench-exit0-static" and
 * "-dynamic"): $PRIMBENCH_TOOLS_DIR, then tools/ next to the running
 * executable, then where an install puts them relative to it
 * (PB_TOOLS_INSTALL_REL: "../libexec/primbench"), then ../tools, then the
 * build's tools directory (PB_TOOLS_DIR, compiled in). Copies the path into buf and returns 0, or
 * -1 with pb_error() naming every place looked at. */
int pb_syscall_tool_path(bool static_link, char *buf, size_t len);

/* The same for any helper program of tools/ by its name, e.g.
 * "primbench-forker" (the fork-helper's parent). */
int pb_syscall_tool_path_named(const char *base, char *buf, size_t len);

/* How large process `pid` (0: this one) is, for fork's price: VmRSS and
 * VmSize from /proc/PID/status and the number of lines (mappings) of
 * /proc/PID/maps. Returns 0, or -1 when they cannot be read. */
int pb_proc_size(pid_t pid, uint64_t *rss_bytes, uint64_t *vm_bytes, uint64_t *mappings);

struct pb_syscall_params {
	bool selected[PB_SC_COUNT];
	int cpu;      /* the CPU the caller pinned to, or -1 */
	int peer_cpu; /* pipe-rtt cross-CPU partner, -1: skip with a note */
	double budget_s;
	size_t min_samples, max_samples;
	uint64_t seed;
	volatile sig_atomic_t *stop; /* polled between samples */
	void (*progress)(void *ctx, const char *bench);
	void *progress_ctx;
};

/* Runs the selected benchmarks. Returns 0 (also when interrupted: what was
 * measured is kept), or -1 with pb_error() on a set-up failure. */
int pb_syscall_run(const struct pb_syscall_params *p, struct pb_syscall_result *r);
void pb_syscall_result_free(struct pb_syscall_result *r);

/* Replicates: adds the run `more` of the same benchmarks to acc (zeroed
 * before the first), each case's samples as one more replicate of acc's
 * case of the same benchmark and placement (or a case of its own); more
 * is emptied. Then pb_syscall_result_end_replicates summarizes every case
 * (pb_summarize_replicates, 95%). Both return 0, or -1 with pb_error(). */
int pb_syscall_result_add_replicate(struct pb_syscall_result *acc, struct pb_syscall_result *more);
int pb_syscall_result_end_replicates(struct pb_syscall_result *r);

/* Replicate `rep` (0-based) of `replicates` runs of p (0 counts as 1):
 * *out is p with the budget and max_samples shared out (budget_s /
 * replicates; max_samples / replicates, their sum within max_samples, at
 * least min_samples) and the seed pb_replicate_seed(p->seed, rep)
 * (replicates.h). */
void pb_syscall_replicate_params(const struct pb_syscall_params *p, size_t rep, size_t replicates,
                                 struct pb_syscall_params *out);

/* The selected benchmarks `replicates` times in a row (0 counts as 1),
 * replicate r with pb_syscall_replicate_params(p, r, replicates), joined
 * by pb_syscall_result_add_replicate and summarized by
 * pb_syscall_result_end_replicates. p->progress is called as each
 * benchmark of each replicate starts. A stop (p->stop) ends the run after
 * the replicate it interrupted: out->interrupted, what was measured kept.
 * pb_timer_init() must have run. Returns 0 with *out filled (free with
 * pb_syscall_result_free), or -1 with pb_error() as pb_syscall_run and
 * *out freed. */
int pb_syscall_run_replicates(const struct pb_syscall_params *p, size_t replicates,
                              struct pb_syscall_result *out);

/* Plumbing checks for the tests: each does one op or a few of a benchmark
 * and reports what happened, never how fast. */
/* pipe-rtt: n round trips with an echo process on peer_cpu (-1: not
 * pinned); *echoed gets the bytes the child counted. */
int pb_syscall_check_pipe_pair(int cpu, int peer_cpu, size_t n, uint64_t *echoed);
/* fork + child _exit(code) + waitpid: returns the status waitpid gave. */
int pb_syscall_check_fork(int code);
/* fork-helper: starts the helper (tools/forker.c), asks it for n forks,
 * stops it; *failed gets the forks it reported failed. 0, or -1 with
 * pb_error() when it could not be started or did not answer. */
int pb_syscall_check_fork_helper(size_t n, uint64_t *failed);
/* fork+execve (spawn: posix_spawn) of path: the status waitpid gave. */
int pb_syscall_check_exec(const char *path, bool spawn);
/* Maps `pages` fresh pages (huge: 2 MiB ones with MADV_HUGEPAGE), touches
 * each once, returns how many bytes read back as touched; *thp gets
 * AnonHugePages of the mapping. */
int pb_syscall_check_fault(size_t pages, bool huge, uint64_t *touched, uint64_t *thp);

#endif
