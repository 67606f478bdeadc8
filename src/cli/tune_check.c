/* tune_check.c - tune's check of the policy it found (cli/tune_check.h).
 *
 * Why a check: tune chooses bands from the sizes it timed, in its own
 * process. A band can still lose to glibc between those sizes (a kernel's
 * cost steps with the size: memset/avx2 at 1 KiB against 861 B), and a
 * choice made on one process's figures need not hold in the next (two
 * identical runs differ by a median 1.75% here, docs/statistics.md). So
 * auto with the policy is run against libc at the sizes halfway between
 * the tuned ones, in fresh processes of `primbench mem` (--processes: the
 * replicates of two processes joined, so the interval is run-level), and
 * judged by the one rule (pb_contender_ratio, pb_verdict with the one
 * margin: pb_tune_check_judge, include/primbench/tune_rules.h), before the
 * file is written. This file starts the processes and reads their result;
 * the verdicts are the analysis module's.
 */
#define _GNU_SOURCE
#include "cli/tune_check.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/error.h"
#include "primbench/reader.h"

/* The error line in the file at path into buf: the last line that starts
 * with "primbench:", with the lines that continue it (they start with
 * blanks: the text is wrapped at 80 columns) joined by one blank; else the
 * last non-empty line; "" when none. */
static void error_line(const char *path, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[512];
	bool in_error = false;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		bool cont = line[0] == ' ' || line[0] == '\t';
		const char *t = line + strspn(line, " \t");
		if (!strncmp(line, "primbench:", 10)) {
			snprintf(buf, len, "%s", line + 10 + strspn(line + 10, " "));
			in_error = true;
		} else if (cont && in_error) {
			size_t used = strlen(buf);
			snprintf(buf + used, len - used, " %s", t);
		} else if (!in_error) {
			snprintf(buf, len, "%s", t);
		}
	}
	fclose(f);
}

/* Runs `primbench mem` as p says, its result into json, its stderr into
 * err. Returns its exit status (128 + signal when killed), or -1. */
static int run_mem(const struct tune_check_params *p, const char *json, const char *err)
{
	char *sizes = NULL;
	size_t slen = 0;
	FILE *m = open_memstream(&sizes, &slen);
	if (!m)
		return -1;
	for (size_t i = 0; i < p->n_sizes; i++)
		fprintf(m, "%s%llu", i ? "," : "", (unsigned long long)p->sizes[i]);
	if (fclose(m) != 0)
		return -1;
	char reps[32], procs[32], budget[64], cpu[32];
	snprintf(reps, sizeof reps, "%zu", p->replicates);
	snprintf(procs, sizeof procs, "%zu", p->processes);
	snprintf(budget, sizeof budget, "%.9g", p->budget_s);
	snprintf(cpu, sizeof cpu, "%d", p->cpu);
	char *argv[] = {cli_argv[0],
	                "mem",
	                (char *)pb_op_name(p->op),
	                "--kernels",
	                "auto,libc",
	                "--sizes",
	                sizes,
	                "--cache",
	                "hot,dram",
	                "--replicates",
	                reps,
	                "--processes",
	                procs,
	                "--budget",
	                budget,
	                "-q",
	                "-o",
	                (char *)json,
	                p->cpu >= 0 ? "--cpu" : NULL,
	                cpu,
	                NULL};
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (setenv("PRIMBENCH_POLICY_FILE", p->policy_path, 1) != 0)
			_exit(127);
		int fd = open(err, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (!freopen("/dev/null", "w", stdout) || fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	free(sizes);
	if (pid < 0)
		return -1;
	int st;
	bool told = false;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -1;
		/* tune was asked to stop: so are its processes (a SIGINT to the
		 * terminal's process group reaches them anyway; one to tune's
		 * PID does not) */
		if (p->stop && *p->stop && !told) {
			kill(pid, SIGTERM);
			told = true;
		}
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int tune_check_run(const struct tune_check_params *p, struct pb_tune_check *out)
{
	*out = (struct pb_tune_check){.geomean = {NAN, NAN}};
	const char *dir = cli_tmp_dir();
	char json[4096], err[4096];
	snprintf(json, sizeof json, "%s/primbench-tune-check-XXXXXX", dir);
	snprintf(err, sizeof err, "%s/primbench-tune-check-err-XXXXXX", dir);
	int jfd = mkstemp(json), efd = mkstemp(err);
	if (jfd < 0 || efd < 0) {
		int e = errno;
		if (jfd >= 0) {
			close(jfd);
			unlink(json);
		}
		if (efd >= 0) {
			close(efd);
			unlink(err);
		}
		return pb_fail("the check: cannot create a file in %s: %s", dir, strerror(e));
	}
	close(jfd);
	close(efd);
	int st = run_mem(p, json, err);
	int rc = 0;
	if (st != 0) {
		char line[512];
		error_line(err, line, sizeof line);
		if (st > 128 && st != 255)
			rc = st;
		else
			rc = pb_fail("the check's processes (primbench mem %s --kernels auto,libc) "
			             "%s%s%s",
			             pb_op_name(p->op), st < 0 ? "could not start" : "failed",
			             line[0] ? ": " : "", line);
	} else {
		struct pb_results_file f;
		if (pb_results_load(json, &f) != 0 ||
		    pb_tune_check_judge(p->op, p->sizes, p->n_sizes, &f, out) != 0)
			rc = -1;
		pb_results_file_free(&f);
	}
	unlink(json);
	unlink(err);
	return rc;
}
