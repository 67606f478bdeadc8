/* glibc_check.h - what a GLIBC_TUNABLES line does, measured (issue 32):
 * libc at the sizes the line changes, without it and with it, in fresh
 * processes A B B A ... (src/cli/processes.c, the --vs-env run), judged
 * beside the prediction (include/primbench/glibc_effect.h). tune runs it
 * on the line it prints. */
#ifndef PRIMBENCH_CLI_GLIBC_CHECK_H
#define PRIMBENCH_CLI_GLIBC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "primbench/glibc_effect.h"
#include "primbench/mem.h"

#define CLI_GLIBC_CHECK_MAX_SIZES 8

/* A check of one op in one cache state. */
struct cli_glibc_check {
	enum pb_op op;             /* memset or memcpy */
	enum pb_cache_state state; /* hot or dram */
	const char *line;          /* "GLIBC_TUNABLES=glibc.cpu...." */
	struct pb_glibc_point pts[CLI_GLIBC_CHECK_MAX_SIZES];
	size_t n;
	size_t replicates; /* processes a side, >= 2 */
	double budget_s;   /* per size, shared by all the processes */
	int cpu;           /* --cpu of the children, -1: none */
};

/* Runs `primbench mem OP --kernels libc --sizes (c's) --cache STATE` in
 * 2 x c->replicates fresh processes, A B B A ..., B's with c->line in
 * their environment (cli_vs_env_measure), and prints the table of
 * pb_glibc_effect_print. Returns the exit status (0; 2 when a process
 * failed, its line on stderr; 130/143 when interrupted: the table of the
 * processes that finished is printed). */
int cli_glibc_check_run(const struct cli_glibc_check *c);

#endif
