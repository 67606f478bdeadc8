/* processes.c - `--processes N` of mem, syscall and latency: the replicates measured
 * in N fresh processes of primbench itself, one after another, as pyperf
 * runs its worker processes (docs/statistics.md, "What varies between
 * runs": a process's replicates do not see what differs between
 * processes). The parent measures nothing: it re-executes its own command
 * line N times with --processes 1, a share of the replicates, budget and
 * samples, another seed and a temporary -o, then joins the N result files
 * into one (every case's samples and replicates, in process order) and
 * prints it as `primbench report` does. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/processes.h"
#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/format.h"
#include "primbench/reader.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/results_join.h"
#include "primbench/summary.h"
#include "primbench/text.h"
#include "primbench/twosample.h"

#define CHILD_ENV "PRIMBENCH_PROCESSES_CHILD"

bool cli_processes_child(void)
{
	const char *v = getenv(CHILD_ENV);
	return v && *v;
}

static volatile pid_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Runs child i: the command line again with the overrides after it (the
 * last of an option given twice wins). Returns its exit status, 128 +
 * signal when killed, or -1 when it could not start. */
bool cli_vs_env_side_b(size_t i)
{
	return i % 4 == 1 || i % 4 == 2;
}

void cli_vs_env_check(const char *arg)
{
	const char *eq = strchr(arg, '=');
	bool ok = eq && eq > arg && !(arg[0] >= '0' && arg[0] <= '9');
	for (const char *c = arg; ok && c < eq; c++)
		ok = *c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		     (*c >= '0' && *c <= '9');
	if (!ok)
		die_usage("--vs-env '%s': not NAME=VALUE (a variable name, '=', its value)", arg);
	if (eq - arg > 255)
		die_usage("--vs-env: a variable name of %d characters (at most 255)",
		          (int)(eq - arg));
	if ((size_t)(eq - arg) == strlen(CHILD_ENV) && !strncmp(arg, CHILD_ENV, strlen(CHILD_ENV)))
		die_usage("--vs-env: %s is primbench's own (it marks its child processes)",
		          CHILD_ENV);
	/* ld.so only warns about a preloaded library it cannot open, and runs
	 * without it: side B would be A again (ld.so(8): entries separated by
	 * spaces or colons; a name without '/' is searched for, not checked) */
	if (eq - arg == 10 && !strncmp(arg, "LD_PRELOAD", 10)) {
		for (const char *q = eq + 1; *q;) {
			size_t n = strcspn(q, ": ");
			char lib[4096];
			if (n && n < sizeof lib && memchr(q, '/', n)) {
				memcpy(lib, q, n);
				lib[n] = '\0';
				struct stat st;
				char magic[4] = {0};
				errno = 0;
				FILE *fp = stat(lib, &st) == 0 && S_ISREG(st.st_mode)
				               ? fopen(lib, "rb")
				               : NULL;
				const char *why = NULL;
				if (!fp)
					why = errno ? strerror(errno) : "not a regular file";
				else if (fread(magic, 1, 4, fp) != 4 || memcmp(magic, "\177ELF", 4))
					why = "not an ELF shared object";
				if (fp)
					fclose(fp);
				if (why)
					die_usage(
					    "--vs-env LD_PRELOAD: %s: %s (ld.so would run side B "
					    "without it)",
					    lib, why);
			}
			q += n + (q[n] != '\0');
		}
	}
}

void cli_vs_env_add(char **list, size_t *n, size_t max, const char *arg)
{
	cli_vs_env_check(arg);
	size_t k = strcspn(arg, "=");
	for (size_t i = 0; i < *n; i++)
		if (!strncmp(list[i], arg, k) && list[i][k] == '=')
			die_usage(
			    "--vs-env: %.*s given twice ('%s' and '%s'): one value a variable",
			    (int)k, arg, list[i], arg);
	if (*n == max)
		die_usage("--vs-env: at most %zu", max);
	list[(*n)++] = (char *)arg;
}

/* side_b: the child gets p->vs_env in its environment. */
static int run_child(const struct cli_processes *p, size_t i, const char *path, bool side_b)
{
	char reps[32], budget[64], maxs[32], seed[32];
	snprintf(reps, sizeof reps, "%zu", p->replicates_each);
	snprintf(budget, sizeof budget, "%.9g", p->budget_s / (double)p->n);
	size_t m = p->max_samples / p->n; /* their sum stays within --max-samples */
	snprintf(maxs, sizeof maxs, "%zu", m > p->min_samples ? m : p->min_samples);
	snprintf(seed, sizeof seed, "%llu",
	         (unsigned long long)(p->seed + (p->same_seed ? 0 : i * 0xD1B54A32D192ED03ull)));
	const char *extra[] = {
	    "--processes", "1",      "--replicates", reps, "--budget", budget, "--max-samples",
	    maxs,          "--seed", seed,           "-q", "-o",       path,   NULL};
	size_t ne = sizeof extra / sizeof *extra;
	if (p->fixed_samples) { /* drop --budget and --max-samples */
		memmove(&extra[4], &extra[8], (ne - 8) * sizeof *extra);
		ne -= 4;
	}
	if (p->rounds_option) { /* mem map: no budget, its rounds shared */
		extra[4] = p->rounds_option;
		extra[5] = maxs;
		for (size_t j = 6; j + 2 < ne; j++)
			extra[j] = extra[j + 2];
	}
	char *const *av = p->argv ? p->argv : cli_argv;
	int ac = p->argv ? p->argc : cli_argc;
	char **argv = calloc((size_t)ac + ne + 1, sizeof *argv);
	if (!argv)
		return -1;
	int k = 0;
	for (int j = 0; j < ac; j++)
		argv[k++] = av[j];
	for (size_t j = 0; extra[j]; j++)
		argv[k++] = (char *)extra[j];
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		setenv(CHILD_ENV, "1", 1);
		for (size_t e = 0; side_b && e < p->n_vs_env; e++) {
			const char *eq = strchr(p->vs_env[e], '=');
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)(eq - p->vs_env[e]), p->vs_env[e]);
			if (setenv(name, eq + 1, 1) != 0)
				_exit(127);
		}
		/* the child's tables are not the run's: the parent prints the whole */
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0)
		return -1;
	child_pid = pid;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	child_pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One warning for the joined run, as a single process gives one (each
 * child keeps its own to itself): the worst process's noise. */
static void warn_noise(const struct pb_results_doc *doc, size_t n, const char *side)
{
	struct pb_results_noise_seen noise;
	pb_results_doc_noise(doc, &noise);
	double steal = noise.steal_pct;
	double busy = noise.other_cpus_busy_pct;
	const char *cause = noise.high_cause;
	if (noise.high && cause)
		warn("noisy machine: %s (the worst of %zu process%s%s%s)", cause, n,
		     n == 1 ? "" : "es", side ? " of side " : "", side ? side : "");
	else if (steal > 2 || busy > 50)
		warn("noisy machine: steal %.1f%%, other CPUs %.0f%% busy (the worst of %zu "
		     "process%s%s%s)",
		     steal, busy, n, n == 1 ? "" : "es", side ? " of side " : "", side ? side : "");
}

/* The result file a child wrote at path, read and removed (NULL when it
 * wrote none or it does not read). */
static struct pb_results_doc *take_child_doc(const char *path)
{
	struct pb_results_doc *d = access(path, R_OK) == 0 ? pb_results_doc_load(path) : NULL;
	unlink(path);
	return d;
}

static int run_vs_env(const struct cli_processes *p);

int cli_processes_run(const struct cli_processes *p)
{
	if (p->n_vs_env)
		return run_vs_env(p);
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/primbench-processes-XXXXXX", cli_tmp_dir());
	if (!mkdtemp(dir))
		die_usage("--processes: cannot make a temporary directory in %s: %s", cli_tmp_dir(),
		          strerror(errno));
	struct pb_results_doc *doc = NULL;
	int status = PB_EXIT_OK;
	size_t done = 0;
	/* Ctrl-C or a SIGTERM: passed on to the child, which stops and writes
	 * what it measured; the parent keeps that and stops too */
	struct sigaction sa = {.sa_handler = forward};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (size_t i = 0; i < p->n; i++) {
		char path[sizeof dir + 32];
		snprintf(path, sizeof path, "%s/%zu.json", dir, i);
		if (!cli_quiet && isatty(STDERR_FILENO))
			fprintf(stderr, "\rprocess %zu of %zu ...", i + 1, p->n);
		int rc = run_child(p, i, path, false);
		struct pb_results_doc *d = take_child_doc(path);
		if (d) {
			if (!doc)
				doc = d;
			else {
				pb_results_doc_join(doc, d);
				pb_results_doc_free(d);
			}
			done++;
		}
		if (rc != 0) {
			/* interrupted (130, 143) keeps what was measured; anything else
			 * is the child's error, already on stderr */
			status = rc == -1 ? PB_EXIT_USAGE : rc;
			if (rc == -1)
				cli_error("--processes: cannot start %s again: %s",
				          "/proc/self/exe", strerror(errno));
			break;
		}
	}
	if (!cli_quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\r%*s\r", 40, "");
	rmdir(dir);
	if (!doc)
		return status ? status : PB_EXIT_USAGE;
	pb_results_set_command_line(doc, cli_argc, cli_argv);
	pb_results_set_processes(doc, done, p->replicates_each);
	warn_noise(doc, done, NULL);
	if (pb_results_doc_resummarize(doc) != 0) {
		pb_results_doc_free(doc);
		die_usage("--processes: %s", pb_error());
	}
	/* print it as `report` does, then write it whole */
	struct pb_results_file f;
	char name[64];
	snprintf(name, sizeof name, "%zu process%s joined", done, done == 1 ? "" : "es");
	if (pb_results_doc_read(doc, p->out_path ? p->out_path : name, &f) == 0) {
		if (p->format == PB_FORMAT_TEXT) {
			pb_format_write(stdout, &f, PB_FORMAT_TEXT);
			if (pb_summary_is_default_run(&f)) {
				struct pb_summary_report *sum = pb_summary_build(&f);
				if (sum) {
					pb_summary_print(stdout, sum);
					/* none kept when it fails (out of memory) */
					(void)pb_results_add_summary(doc, sum);
				}
				pb_summary_report_free(sum);
			}
			if (status > 128)
				printf(
				    "\n%zu process%s of up to %zu replicate%s each, the last one "
				    "interrupted; medians and CIs are those of the replicates "
				    "measured\n",
				    done, done == 1 ? "" : "es", p->replicates_each,
				    p->replicates_each == 1 ? "" : "s");
			else /* the heading said how many processes */
				printf("\nmedians and CIs are those of the replicates of every "
				       "process\n");
		} else {
			pb_format_write(stdout, &f, p->format);
		}
	} else {
		cli_error("--processes: the joined result does not read back: %s", pb_error());
		status = PB_EXIT_USAGE;
	}
	pb_results_file_free(&f);
	if (p->out_path && pb_results_write(doc, p->out_path) != 0) {
		cli_error("%s", pb_error());
		status = PB_EXIT_USAGE;
	} else if (p->out_path && p->format == PB_FORMAT_TEXT) {
		printf("\nresults: %s\n", p->out_path);
	}
	pb_results_doc_free(doc);
	if (status > 128) {
		fflush(stdout);
		if (p->out_path)
			cli_error("interrupted; what was measured is in %s", p->out_path);
		else
			cli_error("interrupted; the result above shows what was measured");
	}
	return status;
}

/* ---- --vs-env: A B B A ... ------------------------------------------ */

void cli_vs_env_side_path(const char *path, char side, char *out, size_t len)
{
	size_t n = strlen(path);
	if (n > 5 && !strcmp(path + n - 5, ".json"))
		n -= 5;
	snprintf(out, len, "%.*s-%c.json", (int)n, path, side);
}

/* One side's joined document as a result file named `name`, its cases'
 * per_call from all its processes. NULL (with the error printed) when it
 * does not read back. */
static int side_file(struct pb_results_doc *doc, const char *name, struct pb_results_file *f)
{
	if (pb_results_doc_resummarize(doc) != 0)
		return -1;
	return pb_results_doc_read(doc, name, f);
}

void cli_vs_env_result_free(struct cli_vs_env_result *r)
{
	pb_compare_result_free(&r->res);
	pb_results_file_free(&r->f[0]);
	pb_results_file_free(&r->f[1]);
	pb_results_doc_free(r->doc[0]);
	pb_results_doc_free(r->doc[1]);
	free(r->envs);
	memset(r, 0, sizeof *r);
}

/* The exit status of a run whose child i of n (side B when b) returned rc
 * != 0, with its error line: interrupted (130, 143) keeps what was
 * measured; a child that failed otherwise (its own error line, if any, is
 * above) ends the run with 2: a comparison of what is left would hide
 * it. */
static int child_failed(int rc, size_t i, size_t n, bool b)
{
	int status = rc == 130 || rc == 143 ? rc : PB_EXIT_USAGE;
	if (!cli_quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\r%*s\r", 40, "");
	if (rc == -1)
		cli_error("--vs-env: cannot start %s again: %s", "/proc/self/exe", strerror(errno));
	else if (rc > 128 && status == PB_EXIT_USAGE)
		cli_error("--vs-env: process %zu of %zu (side %c) was killed by "
		          "signal %d",
		          i + 1, n, b ? 'B' : 'A', rc - 128);
	else if (status == PB_EXIT_USAGE)
		cli_error("--vs-env: process %zu of %zu (side %c) failed (exit "
		          "status %d)",
		          i + 1, n, b ? 'B' : 'A', rc);
	return status;
}

/* The p->n processes, A B B A ..., one after another, each side's
 * documents joined into r->doc[side] (r->done, r->order), SIGINT and
 * SIGTERM forwarded to the child meanwhile. Returns 0, the status of an
 * interrupted child (what was measured kept), or 2 (said) when one
 * failed. */
static int run_sides(const struct cli_processes *p, struct cli_vs_env_result *r)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/primbench-processes-XXXXXX", cli_tmp_dir());
	if (!mkdtemp(dir))
		die_usage("--vs-env: cannot make a temporary directory in %s: %s", cli_tmp_dir(),
		          strerror(errno));
	struct pb_results_doc **doc = r->doc;
	size_t *done = r->done;
	int status = PB_EXIT_OK;
	struct sigaction sa = {.sa_handler = forward}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	char *order = r->order;
	for (size_t i = 0; i < p->n; i++) {
		bool b = cli_vs_env_side_b(i);
		char path[sizeof dir + 32];
		snprintf(path, sizeof path, "%s/%zu.json", dir, i);
		if (!cli_quiet && isatty(STDERR_FILENO))
			fprintf(stderr, "\rprocess %zu of %zu (%c) ...", i + 1, p->n,
			        b ? 'B' : 'A');
		int rc = run_child(p, i, path, b);
		struct pb_results_doc *d = take_child_doc(path);
		if (d) {
			if (!doc[b])
				doc[b] = d;
			else {
				pb_results_doc_join(doc[b], d);
				pb_results_doc_free(d);
			}
			done[b]++;
			size_t len = strlen(order);
			if (len + 1 < sizeof r->order) {
				order[len] = b ? 'B' : 'A';
				order[len + 1] = '\0';
			}
		}
		if (rc != 0) {
			status = child_failed(rc, i, p->n, b);
			break;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!cli_quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\r%*s\r", 40, "");
	rmdir(dir);
	return status;
}

/* B set against A: r->envs (B's environment, one string: "X=1 Y=2"), each
 * side's document told its command line and processes (and, for a
 * command's own run, its noise warned of), read back as r->f[0..1] and
 * compared into r->res with the one margin. Returns 0, or 2 (said). */
static int compare_sides(const struct cli_processes *p, struct cli_vs_env_result *r)
{
	struct pb_results_doc **doc = r->doc;
	size_t elen = 1;
	for (size_t e = 0; e < p->n_vs_env; e++)
		elen += strlen(p->vs_env[e]) + 1;
	char *name_b = calloc(elen + 8, 1);
	r->envs = calloc(elen, 1);
	if (!r->envs || !name_b)
		die_usage("out of memory");
	for (size_t e = 0; e < p->n_vs_env; e++) {
		if (e)
			strcat(r->envs, " ");
		strcat(r->envs, p->vs_env[e]);
	}
	char *const *av = p->argv ? p->argv : cli_argv;
	int ac = p->argv ? p->argc : cli_argc;
	for (int s = 0; s < 2; s++) {
		pb_results_set_command_line(doc[s], ac, av);
		pb_results_set_processes(doc[s], r->done[s], p->replicates_each);
		if (!p->argv)
			warn_noise(doc[s], r->done[s], s ? "B" : "A");
	}
	snprintf(name_b, elen + 8, "B (%s)", r->envs);
	if (side_file(doc[0], "A (this environment)", &r->f[0]) != 0 ||
	    side_file(doc[1], name_b, &r->f[1]) != 0 || pb_results_name(r->f, 2) != 0 ||
	    pb_compare_run(&r->f[0], &r->f[1], 0.95, false, &r->res) != 0) {
		cli_error("--vs-env: %s", pb_error());
		free(name_b);
		return PB_EXIT_USAGE;
	}
	free(name_b);
	pb_compare_set_margin(&r->res, pb_equivalence());
	return PB_EXIT_OK;
}

int cli_vs_env_measure(const struct cli_processes *p, struct cli_vs_env_result *r)
{
	memset(r, 0, sizeof *r);
	int status = run_sides(p, r);
	if (status == PB_EXIT_USAGE) {
		cli_vs_env_result_free(r);
		return status;
	}
	if (!r->doc[0] || !r->doc[1]) {
		/* interrupted: the caller says so (what it keeps is its own) */
		if (status == PB_EXIT_OK)
			cli_error("--vs-env: no process of side %c finished: nothing to compare",
			          r->doc[0] ? 'B' : 'A');
		char side = r->doc[0] ? 'B' : 'A';
		cli_vs_env_result_free(r);
		r->empty_side = side;
		return status ? status : PB_EXIT_USAGE;
	}
	if (compare_sides(p, r) != PB_EXIT_OK) {
		cli_vs_env_result_free(r);
		return PB_EXIT_USAGE;
	}
	return status;
}

static int run_vs_env(const struct cli_processes *p)
{
	char pa[4200], pbp[4200];
	if (p->out_path) {
		/* every file it will write, checked before anything runs */
		cli_vs_env_side_path(p->out_path, 'A', pa, sizeof pa);
		cli_vs_env_side_path(p->out_path, 'B', pbp, sizeof pbp);
		if (pb_output_reserve(pa) != 0 || pb_output_reserve(pbp) != 0)
			die_usage("%s", pb_error());
	}
	struct cli_vs_env_result r;
	int status = cli_vs_env_measure(p, &r);
	if (!r.doc[0]) {
		if (status > 128)
			cli_error(
			    "interrupted; nothing to compare (no process of side %c finished)",
			    r.empty_side ? r.empty_side : 'A');
		return status;
	}
	/* a GLIBC_TUNABLES glibc ignores (a bad name or value) makes B an A/A:
	 * said, from the thresholds each side's glibc reported */
	for (size_t e = 0; e < p->n_vs_env; e++) {
		if (strncmp(p->vs_env[e], "GLIBC_TUNABLES=", 15))
			continue;
		bool moved = false;
		for (size_t d = 0; d < r.res.nsw && !moved; d++)
			moved = !strncmp(r.res.sw[d].field, "glibc.", 6) &&
			        strcmp(r.res.sw[d].field, "glibc.tunables_env") != 0;
		if (!moved)
			warn("--vs-env %s: glibc reports the same thresholds on both sides (a "
			     "tunable "
			     "it does not know or a value it ignores is dropped silently: ld.so "
			     "--list-tunables)",
			     p->vs_env[e]);
	}
	if (p->format == PB_FORMAT_TEXT) {
		char *head = NULL;
		if (asprintf(&head,
		             "A/B across processes: %zu of A (this environment) and %zu of B "
		             "(with %s), in the order %s; each process a replicate; B against A "
		             "as 'primbench compare A.json B.json' sets them (Welch's t on the "
		             "logs of the processes' medians, +-%g%% equivalence)",
		             r.done[0], r.done[1], r.envs, r.order, 100 * pb_equivalence()) >= 0)
			pb_print_wrapped_at(stdout, 0, 2, head);
		free(head);
		putchar('\n');
		pb_compare_print(stdout, &r.res);
	}
	struct pb_results_doc *cj =
	    cli_compare_doc(r.f, 2, 1, &r.res, 0.95, pb_equivalence(), false);
	if (cj) {
		const struct pb_vs_env_record vr = {
		    .env = p->vs_env,
		    .n_env = p->n_vs_env,
		    .order = r.order,
		    .processes_a = r.done[0],
		    .processes_b = r.done[1],
		    .interrupted = status > 128,
		};
		pb_results_set_vs_env(cj, &vr);
		if (p->format == PB_FORMAT_JSON)
			pb_results_doc_print(stdout, cj, 2);
		if (p->out_path) {
			if (pb_results_write(r.doc[0], pa) != 0 ||
			    pb_results_write(r.doc[1], pbp) != 0 ||
			    pb_results_write(cj, p->out_path) != 0) {
				cli_error("%s", pb_error());
				status = PB_EXIT_USAGE;
			} else if (p->format == PB_FORMAT_TEXT) {
				char *line = NULL;
				if (asprintf(&line, "results: %s (the comparison), %s (A), %s (B)",
				             p->out_path, pa, pbp) >= 0) {
					putchar('\n');
					pb_print_wrapped_at(stdout, 0, 2, line);
				}
				free(line);
			}
		}
	}
	pb_results_doc_free(cj);
	cli_vs_env_result_free(&r);
	if (status > 128) {
		fflush(stdout);
		cli_error("interrupted; the comparison above is of the processes that finished");
	}
	return status;
}
