/* profile_run.c - running perf record and perf report for `primbench cmd
 * --profile` (include/primbench/profile.h, docs/profile.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/cmd_ab.h"
#include "primbench/error.h"
#include "primbench/io.h"
#include "primbench/profile.h"

/* The whole of a file, NUL-terminated (NULL with pb_error()). */
static char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pb_fail("cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	char *buf = pb_read_fd_all(fd, 0, len);
	close(fd);
	if (!buf)
		pb_fail("out of memory");
	return buf;
}

/* perf's error line from its stderr file: the first line that starts
 * "Error" with the line after it (perf prints "Error:" alone, then the
 * reason), else the first non-empty line; "" when none. */
static void perf_error(const char *path, char *out, size_t len)
{
	size_t n;
	char *text = read_all(path, &n);
	out[0] = 0;
	if (!text)
		return;
	char *save = NULL, *first = NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!first && l[0])
			first = l;
		if (strncmp(l, "Error", 5) == 0) {
			char *next = strtok_r(NULL, "\n", &save);
			snprintf(out, len, "%s%s%s", l, next ? " " : "", next ? next : "");
			free(text);
			return;
		}
	}
	if (first)
		snprintf(out, len, "%s", first);
	free(text);
}

static int record(const char *perf, const char *event, const char *data, const char *errpath,
                  const struct pb_cmd_spec *side, volatile int *stop, struct pb_cmd_run *run)
{
	size_t n = 0, k = 0;
	while (side->argv[n])
		n++;
	while (side->env_set && side->env_set[k])
		k++;
	char **argv = calloc(n + 8, sizeof *argv);
	char **env = calloc(k + 3, sizeof *env);
	if (!argv || !env) {
		free(argv);
		free(env);
		return pb_fail("out of memory");
	}
	size_t a = 0;
	argv[a++] = (char *)perf;
	argv[a++] = "record";
	argv[a++] = "-e";
	argv[a++] = (char *)event;
	argv[a++] = "-o";
	argv[a++] = (char *)data;
	argv[a++] = "--";
	memcpy(argv + a, side->argv, (n + 1) * sizeof *argv);
	if (k)
		memcpy(env, side->env_set, k * sizeof *env);
	/* No accounting files from a profiled run: it is not a counted run. */
	env[k] = "PRIMBENCH_ACCOUNT";
	env[k + 1] = "PRIMBENCH_ACCOUNT_DIR";
	struct pb_cmd_spec spec = {
	    .argv = argv, .env_set = env, .cwd = side->cwd, .stderr_path = errpath};
	int rc = pb_cmd_run_once(&spec, run, stop);
	free(argv);
	free(env);
	return rc;
}

static int report(const char *perf, const char *data, const char *dir, struct pb_profile *p)
{
	memset(p, 0, sizeof *p);
	char txt[4200], err[4200];
	snprintf(txt, sizeof txt, "%s/report.txt", dir);
	snprintf(err, sizeof err, "%s/report.err", dir);
	char *argv[] = {(char *)perf, "report",  "-i", (char *)data, "--stdio", "--no-children",
	                "--sort",     "dso,sym", "-n", "-g",         "none",    NULL};
	struct pb_cmd_spec spec = {.argv = argv, .stdout_path = txt, .stderr_path = err};
	struct pb_cmd_run run;
	int rc = pb_cmd_run_once(&spec, &run, NULL);
	if (rc == 0 && run.exit_code != 0) {
		char why[512];
		perf_error(err, why, sizeof why);
		rc = pb_fail(
		    "perf report failed (%s %d)%s%s", run.term_signal ? "signal" : "exit status",
		    run.term_signal ? run.term_signal : run.exit_code, why[0] ? ": " : "", why);
	}
	size_t len = 0;
	char *text = rc == 0 ? read_all(txt, &len) : NULL;
	unlink(txt);
	unlink(err);
	if (!text)
		return -1;
	rc = pb_profile_parse(text, len, p);
	free(text);
	if (rc != 0) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", pb_error());
		return pb_fail("perf report's output: %s", msg);
	}
	return 0;
}

int pb_profile_run(const char *perf, const char *event, const char *dir,
                   const struct pb_cmd_spec *side, const struct pb_cmd_spec *prepare, size_t runs,
                   volatile int *stop, struct pb_profile *out, int *exit_code)
{
	memset(out, 0, sizeof *out);
	*exit_code = 0;
	for (size_t r = 0; r < runs; r++) {
		struct pb_cmd_run run;
		if (prepare && prepare->argv) {
			int rc = pb_cmd_run_once(prepare, &run, stop);
			if (rc != 0)
				return rc < 0 ? -1 : 1;
			if (run.exit_code != 0)
				return pb_fail("--prepare command failed before a profiled run");
		}
		char data[4200], err[4200];
		snprintf(data, sizeof data, "%s/%zu.data", dir, r);
		snprintf(err, sizeof err, "%s/record.err", dir);
		int rc = record(perf, event, data, err, side, stop, &run);
		if (rc != 0) {
			unlink(data);
			unlink(err);
			return rc < 0 ? -1 : 1;
		}
		*exit_code = run.term_signal ? 128 + run.term_signal : run.exit_code;
		struct stat st;
		if (stat(data, &st) != 0) {
			char why[512];
			perf_error(err, why, sizeof why);
			unlink(err);
			return pb_fail("perf record failed (%s %d)%s%s",
			               run.term_signal ? "signal" : "exit status",
			               run.term_signal ? run.term_signal : run.exit_code,
			               why[0] ? ": " : "", why);
		}
		struct pb_profile p;
		rc = report(perf, data, dir, &p);
		unlink(data);
		if (rc != 0 && run.exit_code != 0) {
			/* perf record's own error explains more than report's. */
			char why[512];
			perf_error(err, why, sizeof why);
			if (why[0])
				pb_fail("perf record failed (%s %d): %s",
				        run.term_signal ? "signal" : "exit status",
				        run.term_signal ? run.term_signal : run.exit_code, why);
		}
		unlink(err);
		if (rc == 0 && r > 0)
			rc = pb_profile_merge(out, &p);
		if (rc != 0) {
			pb_profile_free(&p);
			return -1;
		}
		if (r == 0)
			*out = p;
		else
			pb_profile_free(&p);
	}
	return 0;
}

int pb_profile_check(const char *perf, const char *event, const char *dir)
{
	char data[4200], err[4200];
	snprintf(data, sizeof data, "%s/check.data", dir);
	snprintf(err, sizeof err, "%s/check.err", dir);
	char *argv[] = {(char *)perf, "record", "-e",   (char *)event, "-o",
	                data,         "--",     "true", NULL};
	struct pb_cmd_spec spec = {.argv = argv, .stderr_path = err};
	struct pb_cmd_run run;
	int rc = pb_cmd_run_once(&spec, &run, NULL);
	if (rc == 0 && run.exit_code != 0) {
		char why[512];
		perf_error(err, why, sizeof why);
		rc = pb_fail("perf record -e %s failed (%s %d)%s%s", event,
		             run.term_signal ? "signal" : "exit status",
		             run.term_signal ? run.term_signal : run.exit_code, why[0] ? ": " : "",
		             why);
	}
	unlink(data);
	unlink(err);
	return rc == 0 ? 0 : -1;
}
