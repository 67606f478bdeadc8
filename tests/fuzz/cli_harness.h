/* cli_harness.h - the primbench command line (src/cli) run in-process by
 * the cli and stats fuzz targets (cli_harness.c).
 *
 * The CLI ends most runs in exit() (die_usage's exit 2, cli_parse_done's
 * exit 0 under PRIMBENCH_PARSE_ONLY): these targets link with
 * -Wl,--wrap=exit and the harness's __wrap_exit jumps back to
 * pb_cli_run, which reports the status. Each run starts from the CLI's
 * state as a fresh process has it (getopt, the running subcommand's name,
 * -q, the features --hide-features hid), in a scratch directory of its own
 * (its working directory, set up once), with standard input from
 * /dev/null and standard output and error into files the harness reads
 * back. */
#ifndef PB_FUZZ_CLI_HARNESS_H
#define PB_FUZZ_CLI_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

/* Sets up the scratch directory (each run's working directory; the
 * caller's stays its own between runs) and
 * the environment: PRIMBENCH_PARSE_ONLY=1 when parse_only, else unset; no
 * policy file, no configuration directory, no hidden features. Call once,
 * from LLVMFuzzerInitialize. */
void pb_cli_init(bool parse_only);

/* Writes size bytes to the file `name` in the scratch directory (the
 * working directory of pb_cli_run). Returns 0, or -1 with errno. */
int pb_cli_write_file(const char *name, const void *data, size_t size);

struct pb_cli_result {
	int status;         /* exit()'s status or main's return value */
	bool exited;        /* through exit(), not main's return */
	char err[512];      /* standard error's first line ("" when none) */
	size_t messages;    /* stderr lines not starting with a blank: messages */
	size_t widest;      /* the longest stderr line, in bytes */
	size_t out_bytes;   /* what standard output received */
	char new_file[256]; /* a file the run left in the scratch directory, or "" */
	int fds_left;       /* descriptors the run left open (closed by now) */
};

/* Runs `primbench argv[1] ... argv[argc - 1]` (argv[0] is the program's
 * name) and fills r. Sentinels (fork, exec, a measuring session) fail the
 * input as a finding when parse_only was set. */
void pb_cli_run(int argc, char **argv, struct pb_cli_result *r);

#endif
