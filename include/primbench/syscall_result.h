/* primbench/syscall_result.h - the syscall suite's cases and results as
 * data: the benchmarks' names, a case (benchmark, placement, page size,
 * its samples and summary) and the result of a run. Filled by the syscall
 * suite (include/primbench/syscall.h), written into a result document by
 * pb_results_add_syscall. Part of the results module. */
#ifndef PRIMBENCH_SYSCALL_RESULT_H
#define PRIMBENCH_SYSCALL_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

enum pb_sc_bench {
	PB_SC_NULL,         /* syscall(SYS_getppid) */
	PB_SC_UMASK,        /* umask(set) + umask(restore): one op = both */
	PB_SC_GETPID,       /* syscall(SYS_getpid) */
	PB_SC_READ,         /* read 1 byte from /dev/zero */
	PB_SC_WRITE,        /* write 1 byte to /dev/null */
	PB_SC_PIPE,         /* write then read 1 byte through a pipe, one process */
	PB_SC_PIPE_RTT,     /* 1-byte round trip between two processes */
	PB_SC_FORK,         /* fork + child _exit(0) + waitpid */
	PB_SC_FORK_HELPER,  /* the same, forked by tools/forker.c's small process */
	PB_SC_EXEC_STATIC,  /* fork + execve of the static tiny program + waitpid */
	PB_SC_EXEC_DYNAMIC, /* the same, dynamically linked */
	PB_SC_SPAWN,        /* posix_spawn of the dynamic one + waitpid */
	PB_SC_FAULT,        /* first touch of fresh anonymous memory, per page */
	PB_SC_MMAP,         /* mmap + munmap of 1 page (not touched) */
	PB_SC_POPULATE,     /* mmap(MAP_POPULATE), per 4 KiB page */
	PB_SC_COUNT
};

/* "null", "umask", ..., "pipe-rtt", "exec-static", "populate". */
const char *pb_syscall_bench_name(enum pb_sc_bench b);

struct pb_syscall_case {
	enum pb_sc_bench bench;
	char placement[32];  /* "cpu 0", "same cpu 0", "cpus 0,1", "unpinned" */
	int cpu, peer_cpu;   /* peer_cpu: pipe-rtt's echo process, else -1 */
	uint32_t page_bytes; /* fault/populate/mmap: page size, else 0 */
	const char *op_desc; /* what one op is */
	double *batch_ticks; /* per sample: ticks, timer overhead subtracted */
	uint64_t *batch_ops; /* per sample: ops */
	size_t n_samples;
	size_t cap;
	struct pb_summary ticks_per_op;
	double cv;          /* stddev / mean of the per-op samples */
	int migrations;     /* samples dropped: the CPU changed */
	size_t outliers;    /* modified z-score > 3.5 */
	uint64_t thp_bytes; /* fault with THP: AnonHugePages seen */
	/* replicates (include/primbench/replicates.h): the samples are
	 * n_replicates runs in a row, run r's replicate_samples[r] of them;
	 * with two or more, ticks_per_op's median and CI are the runs' */
	size_t n_replicates;
	size_t *replicate_samples;
};

struct pb_syscall_result {
	struct pb_syscall_case *cases;
	size_t n_cases;
	bool interrupted;
	char notes[2048]; /* one note a line */
};

struct pb_results_doc; /* primbench/results.h */

/* Appends r's cases to the document's "cases" (docs/results-schema.md, "A
 * syscall case": key {suite "syscall", benchmark, placement, page_bytes
 * (null when 0)}, op, cpus, replicates, unit "tsc_ticks", samples [ticks,
 * ops], per_call (ticks per op), median_derived {ns_per_call, and with
 * pages above 4 KiB ticks_per_4k_page, ns_per_4k_page}, cv, then
 * thp_bytes_seen (fault with huge pages), migrations, outliers) and the
 * lines of r->notes to its "notes". Returns 0, or -1 with pb_error() "not
 * a result document" or when out of memory. */
int pb_results_add_syscall(struct pb_results_doc *doc, const struct pb_syscall_result *r);

#endif
