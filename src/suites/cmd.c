/* cmd.c - whole-command timing (include/primbench/cmd.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "primbench/cmd.h"
#include "primbench/error.h"

extern char **environ;

int pb_cmd_parse_figure(const char *name)
{
	if (strcmp(name, "user+sys") == 0)
		return PB_CMD_USER_SYS;
	if (strcmp(name, "instructions") == 0)
		return PB_CMD_INSTRUCTIONS;
	if (strcmp(name, "cycles") == 0)
		return PB_CMD_CYCLES;
	for (int f = 0; f < PB_CMD_NFIGURES; f++)
		if (strcmp(name, pb_cmd_figure_name((enum pb_cmd_figure)f)) == 0)
			return f;
	return pb_fail("unknown figure '%s' (known: real, user, sys, user+sys, maxrss, minflt, "
	               "majflt, vcsw, ivcsw, instructions, cycles)",
	               name);
}

static double tv_ns(struct timeval tv)
{
	return (double)tv.tv_sec * 1e9 + (double)tv.tv_usec * 1e3;
}

/* The environment for the child: environ with env_set, then extra (when
 * not NULL), applied. Returns a NULL-terminated array of pointers into
 * environ, env_set and extra (not copies), or NULL when out of memory. */
static char **build_env(char *const *env_set_in, const char *extra)
{
	size_t n = 0, k = 0;
	while (environ && environ[n])
		n++;
	while (env_set_in && env_set_in[k])
		k++;
	/* env_set_in and extra as one list */
	char **env_set = calloc(k + 2, sizeof *env_set);
	if (!env_set)
		return NULL;
	if (k)
		memcpy(env_set, env_set_in, k * sizeof *env_set);
	if (extra)
		env_set[k++] = (char *)extra;
	char **e = calloc(n + k + 1, sizeof *e);
	if (!e) {
		free(env_set);
		return NULL;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		bool overridden = false;
		for (size_t j = 0; j < k && !overridden; j++)
			overridden = strncmp(env_set[j], environ[i], len) == 0 &&
			             (env_set[j][len] == '=' || env_set[j][len] == 0);
		if (!overridden)
			e[m++] = environ[i];
	}
	for (size_t j = 0; j < k; j++) {
		/* A NAME given twice: keep the last one only; "NAME" unsets. */
		const char *eq = strchr(env_set[j], '=');
		size_t len = eq ? (size_t)(eq - env_set[j]) : strlen(env_set[j]);
		bool later = false;
		for (size_t l = j + 1; l < k && !later; l++)
			later = strncmp(env_set[l], env_set[j], len) == 0 &&
			        (env_set[l][len] == '=' || env_set[l][len] == 0);
		if (!later && eq)
			e[m++] = env_set[j];
	}
	e[m] = NULL;
	free(env_set);
	return e;
}

/* The orphans of a run are reparented to this process rather than to init
 * (prctl(2) PR_SET_CHILD_SUBREAPER), so that what a command leaves behind
 * can be counted, waited for and its rusage collected (wait4(2)). */
static void become_subreaper(void)
{
	static bool done;
	if (!done)
		done = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

/* The children of this process, from /proc/self/task/TID/children
 * (proc(5)); sends each one `sig` unless sig is 0. Returns their number,
 * or -1 when no such file could be read. */
static long children_in(int sig, pid_t pgid)
{
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return -1;
	long n = 0;
	bool read_one = false;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[300];
		snprintf(path, sizeof path, "/proc/self/task/%s/children", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		read_one = true;
		long pid;
		while (fscanf(f, "%ld", &pid) == 1) {
			if (pgid > 0 && getpgid((pid_t)pid) != pgid)
				continue;
			n++;
			if (sig && pid > 0)
				kill((pid_t)pid, sig);
		}
		fclose(f);
	}
	closedir(d);
	return read_one ? n : -1;
}

static long children_signal(int sig)
{
	return children_in(sig, 0);
}

/* The children left running: from /proc, else 1 when waitid(2) sees a
 * child that has not exited (at least one), else 0. */
static long count_children(void)
{
	long n = children_signal(0);
	if (n >= 0)
		return n;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
		return 0;
	return 1;
}

/* A descendant's rusage joins the run's: times and counts add up,
 * max_rss_kib is the largest. */
static void add_rusage(struct pb_cmd_run *out, const struct rusage *ru)
{
	out->user_ns += tv_ns(ru->ru_utime);
	out->sys_ns += tv_ns(ru->ru_stime);
	if (ru->ru_maxrss > out->max_rss_kib)
		out->max_rss_kib = ru->ru_maxrss;
	out->minflt += ru->ru_minflt;
	out->majflt += ru->ru_majflt;
	out->nvcsw += ru->ru_nvcsw;
	out->nivcsw += ru->ru_nivcsw;
}

/* Reaps this process's children (a run's orphans, reparented here): until
 * none is left (block), or those that have exited (!block). With `into`,
 * adds each one's rusage to it. When *stop becomes non-zero: SIGTERM to
 * every child, again every 10 ms, SIGKILL after 2 s or at a second
 * signal. Returns the number reaped, or -1 when stopped. */
static long reap_children(bool block, struct pb_cmd_run *into, volatile int *stop)
{
	long n = 0;
	bool stopping = false;
	int polls = 0;
	for (;;) {
		int st;
		struct rusage ru;
		pid_t w = wait4(-1, &st, block && !stopping ? 0 : WNOHANG, &ru);
		if (w > 0) {
			n++;
			if (into)
				add_rusage(into, &ru);
			continue;
		}
		if (w < 0 && errno != EINTR)
			break; /* ECHILD: none left */
		if (w == 0 && !block)
			break;
		if (stop && *stop)
			stopping = true;
		if (stopping) {
			children_signal(++polls > 200 || *stop > 1 ? SIGKILL : SIGTERM);
			struct timespec ten_ms = {0, 10000000};
			nanosleep(&ten_ms, NULL);
		}
	}
	return stopping ? -1 : n;
}

long pb_cmd_wait_leftovers(volatile int *stop)
{
	become_subreaper();
	return reap_children(true, NULL, stop);
}

/* Starts s in a process group of its own (pinned to s->cpus when set):
 * *pid, and *t0 the CLOCK_MONOTONIC time just before the spawn. With
 * s->counters, cfd gets the inherited events (pb_cmd_counters_open), to be
 * read into out once the command's tree has exited; when the spawn fails
 * they are read (closed) here. Returns 0, or -1 with pb_error() ("cannot
 * run 'ARGV0': REASON"). */
static int spawn(const struct pb_cmd_spec *s, pid_t *pid_out, struct timespec *t0_out, int cfd[2],
                 struct pb_cmd_run *out)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!s->show_output && s->stdout_path) {
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, s->stdout_path,
		                                 O_WRONLY | O_CREAT | O_TRUNC, 0600);
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	} else if (!s->show_output) {
		posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
	}
	if (s->stderr_path)
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, s->stderr_path,
		                                 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (s->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, s->cwd);
	/* primbench ignores SIGPIPE and catches SIGINT/TERM/HUP; the child gets
	 * the defaults and an empty mask, as from a shell. */
	sigset_t def, empty;
	sigemptyset(&def);
	sigemptyset(&empty);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGHUP);
	sigaddset(&def, SIGQUIT);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setsigmask(&attr, &empty);
	/* Its own process group, so that an interruption can stop the command
	 * and everything it started (kill(-pgid)). */
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
	                                    POSIX_SPAWN_SETPGROUP);

	char **envp = build_env(s->env_set, s->env_extra);
	if (!envp) {
		posix_spawn_file_actions_destroy(&fa);
		posix_spawnattr_destroy(&attr);
		return pb_fail("out of memory");
	}

	/* Pinning: the calling thread takes the CPU set for the spawn, which
	 * the child inherits (posix_spawn has no attribute for it), and gets
	 * its own back at once. */
	cpu_set_t saved;
	bool pinned = false;
	if (s->cpus) {
		if (sched_getaffinity(0, sizeof saved, &saved) != 0 ||
		    sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)s->cpus) != 0) {
			int e = errno;
			posix_spawn_file_actions_destroy(&fa);
			posix_spawnattr_destroy(&attr);
			free(envp);
			return pb_fail("cannot pin '%s' to the CPUs asked for: %s", s->argv[0],
			               strerror(e));
		}
		pinned = true;
	}
	/* Counters: opened on this process, inherited by the child, counting
	 * from its exec (pb_cmd_counters_open). */
	if (s->counters && pb_cmd_counters_open(cfd) != 0) {
		if (pinned)
			sched_setaffinity(0, sizeof saved, &saved);
		posix_spawn_file_actions_destroy(&fa);
		posix_spawnattr_destroy(&attr);
		free(envp);
		return -1;
	}
	pid_t pid;
	clock_gettime(CLOCK_MONOTONIC, t0_out);
	int err = posix_spawnp(&pid, s->argv[0], &fa, &attr, s->argv, envp);
	if (s->counters && err != 0)
		pb_cmd_counters_read(cfd, out); /* closed: nothing ran */
	if (pinned)
		sched_setaffinity(0, sizeof saved, &saved);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(envp);
	if (err == ENOENT && strchr(s->argv[0], '/') && access(s->argv[0], F_OK) == 0)
		return pb_fail("cannot run '%s': the interpreter its #! line names was not found",
		               s->argv[0]);
	if (err != 0)
		return pb_fail("cannot run '%s': %s", s->argv[0], strerror(err));
	*pid_out = pid;
	return 0;
}

int pb_cmd_run_once(const struct pb_cmd_spec *s, struct pb_cmd_run *out, volatile int *stop)
{
	memset(out, 0, sizeof *out);
	out->exit_code = -1;
	if (!s->argv || !s->argv[0] || !s->argv[0][0])
		return pb_fail("no command to run");
	/* What an earlier run left running must not overlap this one. */
	if (pb_cmd_wait_leftovers(stop) < 0)
		return 1;
	struct timespec t0, t1;
	pid_t pid;
	int cfd[2] = {-1, -1};
	if (spawn(s, &pid, &t0, cfd, out) != 0)
		return -1;

	int status = 0;
	struct rusage ru;
	bool stopped = false;
	int polls = 0;
	for (;;) {
		/* Once stopping, poll so that SIGKILL follows SIGTERM after 2 s. */
		pid_t w = wait4(pid, &status, stopped ? WNOHANG : 0, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			int e = errno;
			if (s->counters)
				pb_cmd_counters_read(cfd, out);
			return pb_fail("wait4: %s", strerror(e));
		}
		if (stop && *stop && !stopped) {
			/* The command runs in its own process group: stop all of it. */
			kill(-pid, SIGTERM);
			stopped = true;
		}
		if (stopped && (++polls > 200 || (stop && *stop > 1)))
			kill(-pid, SIGKILL);
		if (stopped && w == 0) {
			struct timespec ten_ms = {0, 10000000};
			nanosleep(&ten_ms, NULL);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	add_rusage(out, &ru);
	if (stopped) {
		kill(-pid, SIGTERM); /* what it started and left behind */
		reap_children(true, NULL, stop);
	} else {
		/* Orphans that already exited are reaped; those still running
		 * are the leftovers, waited for here with wait_children (the run
		 * lasts until the last one exits and includes their rusage),
		 * else by the caller or the next run, untimed. */
		reap_children(false, s->wait_children ? out : NULL, NULL);
		out->leftovers = count_children();
		if (s->wait_children && out->leftovers > 0) {
			if (reap_children(true, out, stop) < 0)
				stopped = true;
			clock_gettime(CLOCK_MONOTONIC, &t1);
		}
	}
	/* The command's tree has exited (with wait_children, every
	 * descendant; else those left running add nothing): its counts are in
	 * the events. Closed before the next run's children could inherit. */
	if (s->counters)
		pb_cmd_counters_read(cfd, out);
	out->wall_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	if (WIFEXITED(status))
		out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		out->term_signal = WTERMSIG(status);
	return (stopped || (stop && *stop)) ? 1 : 0;
}

int pb_cmd_run_pair(const struct pb_cmd_spec *const s[2], struct pb_cmd_run out[2],
                    volatile int *stop)
{
	for (int k = 0; k < 2; k++) {
		memset(&out[k], 0, sizeof out[k]);
		out[k].exit_code = -1;
		if (!s[k]->argv || !s[k]->argv[0] || !s[k]->argv[0][0])
			return pb_fail("no command to run");
	}
	if (pb_cmd_wait_leftovers(stop) < 0)
		return 1;
	struct timespec t0[2], t1[2];
	pid_t pid[2];
	int cfd[2][2] = {{-1, -1}, {-1, -1}}; /* unused: a duet has no counters */
	if (s[0]->counters || s[1]->counters)
		return pb_fail("counters cannot tell the two sides of a duet apart");
	if (spawn(s[0], &pid[0], &t0[0], cfd[0], &out[0]) != 0)
		return -1;
	if (spawn(s[1], &pid[1], &t0[1], cfd[1], &out[1]) != 0) {
		char msg[512];
		snprintf(msg, sizeof msg, "%s", pb_error());
		kill(-pid[0], SIGKILL);
		reap_children(true, NULL, NULL);
		return pb_fail("%s", msg);
	}
	int status[2] = {0, 0};
	bool done[2] = {false, false}, stopped = false;
	int polls = 0;
	while (!done[0] || !done[1]) {
		/* Blocked in wait4 until one of them (or an orphan of either,
		 * whose rusage cannot be told apart and is dropped) exits. */
		int st;
		struct rusage ru;
		pid_t w = wait4(-1, &st, stopped ? WNOHANG : 0, &ru);
		if (w > 0) {
			int k = w == pid[0] ? 0 : w == pid[1] ? 1 : -1;
			if (k >= 0) {
				clock_gettime(CLOCK_MONOTONIC, &t1[k]);
				status[k] = st;
				add_rusage(&out[k], &ru);
				done[k] = true;
			}
			continue;
		}
		if (w < 0 && errno != EINTR)
			return pb_fail("wait4: %s", strerror(errno));
		if (stop && *stop && !stopped) {
			for (int k = 0; k < 2; k++)
				if (!done[k])
					kill(-pid[k], SIGTERM);
			stopped = true;
		}
		if (stopped && (++polls > 200 || (stop && *stop > 1)))
			for (int k = 0; k < 2; k++)
				if (!done[k])
					kill(-pid[k], SIGKILL);
		if (stopped && w == 0) {
			struct timespec ten_ms = {0, 10000000};
			nanosleep(&ten_ms, NULL);
		}
	}
	if (stopped) {
		kill(-pid[0], SIGTERM);
		kill(-pid[1], SIGTERM);
		reap_children(true, NULL, stop);
	} else {
		/* each side's: those in its process group (one that left the
		 * group, by setsid or setpgid, is counted for neither) */
		reap_children(false, NULL, NULL);
		for (int k = 0; k < 2; k++) {
			long n = children_in(0, pid[k]);
			out[k].leftovers = n > 0 ? n : 0;
		}
	}
	for (int k = 0; k < 2; k++) {
		out[k].wall_ns = (double)(t1[k].tv_sec - t0[k].tv_sec) * 1e9 +
		                 (double)(t1[k].tv_nsec - t0[k].tv_nsec);
		if (WIFEXITED(status[k]))
			out[k].exit_code = WEXITSTATUS(status[k]);
		else if (WIFSIGNALED(status[k]))
			out[k].term_signal = WTERMSIG(status[k]);
	}
	return (stopped || (stop && *stop)) ? 1 : 0;
}

static int check_file(const char *shown, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return pb_fail("cannot run '%s': %s", shown, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return pb_fail("cannot run '%s': it is a directory", shown);
	if (!S_ISREG(st.st_mode))
		return pb_fail("cannot run '%s': not a regular file", shown);
	if (access(path, X_OK) != 0)
		return pb_fail("cannot run '%s': not executable (%s)", shown, strerror(errno));
	return 0;
}

/* The builtins of sh(1) and bash(1) that are no program of their own
 * (POSIX "Special Built-In Utilities" and the usual regular ones). */
static bool is_shell_builtin(const char *name)
{
	static const char *const builtins[] = {
	    ".",        ":",       "alias", "bg",      "break",  "builtin", "cd",     "command",
	    "continue", "declare", "dirs",  "eval",    "exec",   "exit",    "export", "fg",
	    "getopts",  "hash",    "jobs",  "let",     "local",  "popd",    "pushd",  "read",
	    "readonly", "return",  "set",   "shift",   "source", "times",   "trap",   "type",
	    "typeset",  "ulimit",  "umask", "unalias", "unset",  "wait",
	};
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strcmp(name, builtins[i]) == 0)
			return true;
	return false;
}

/* The program at path (found for s) starts with a #! line whose
 * interpreter does not exist: execve would fail with ENOENT, after the
 * session had begun. Returns -1 with the error pb_cmd_run_once gives for
 * it, else 0. Only what the line names is looked at (binfmt_script: the
 * word after "#!" within its first 256 bytes; a relative one from the
 * command's directory). */
static int check_interpreter(const struct pb_cmd_spec *s, const char *path)
{
	char head[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* executable but not readable: execve may still run it */
	ssize_t n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n < 2 || head[0] != '#' || head[1] != '!')
		return 0;
	head[n] = '\0';
	char *interp = head + 2;
	interp += strspn(interp, " \t");
	interp[strcspn(interp, " \t\n")] = '\0';
	if (!interp[0])
		return 0;
	char ipath[4096 + 256];
	if (interp[0] != '/' && s->cwd)
		snprintf(ipath, sizeof ipath, "%s/%s", s->cwd, interp);
	else
		snprintf(ipath, sizeof ipath, "%s", interp);
	struct stat st;
	if (stat(ipath, &st) == 0 || errno != ENOENT)
		return 0;
	if (strchr(s->argv[0], '/'))
		return pb_fail("cannot run '%s': the interpreter its #! line names was not found",
		               s->argv[0]);
	return pb_fail("cannot run '%s': %s", s->argv[0], strerror(ENOENT));
}

int pb_cmd_check(const struct pb_cmd_spec *s)
{
	if (!s->argv || !s->argv[0] || !s->argv[0][0])
		return pb_fail("no command to run");
	const char *prog = s->argv[0];
	char path[4096];
	if (strchr(prog, '/')) {
		if (prog[0] != '/' && s->cwd)
			snprintf(path, sizeof path, "%s/%s", s->cwd, prog);
		else
			snprintf(path, sizeof path, "%s", prog);
		if (check_file(prog, path) != 0)
			return -1;
		return check_interpreter(s, path);
	}
	const char *env_path = getenv("PATH");
	if (!env_path)
		env_path = "/bin:/usr/bin";
	const char *p = env_path;
	bool found_other = false;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		const char *dir = len ? p : ".";
		int dlen = len ? (int)len : 1;
		if (dir[0] != '/' && s->cwd)
			snprintf(path, sizeof path, "%s/%.*s/%s", s->cwd, dlen, dir, prog);
		else
			snprintf(path, sizeof path, "%.*s/%s", dlen, dir, prog);
		struct stat st;
		if (stat(path, &st) == 0) {
			if (S_ISREG(st.st_mode) && access(path, X_OK) == 0)
				return check_interpreter(s, path);
			found_other = true;
		}
		if (!colon)
			break;
		p = colon + 1;
	}
	if (!found_other && is_shell_builtin(prog))
		return pb_fail("cannot run '%s': a shell builtin, not a program (use --shell)",
		               prog);
	return pb_fail("cannot run '%s': %s", prog,
	               found_other ? "found in PATH, but not an executable file"
	                           : "not found in PATH");
}

char **pb_cmd_split(const char *line)
{
	wordexp_t we;
	int rc = wordexp(line, &we, WRDE_NOCMD);
	switch (rc) {
	case 0:
		break;
	case WRDE_BADCHAR:
		pb_fail("'%s': one of | & ; < > ( ) { } or a newline needs a shell; quote it, "
		        "or use --shell",
		        line);
		return NULL;
	case WRDE_CMDSUB:
		pb_fail("'%s': command substitution is never run (no shell; use --shell)", line);
		return NULL;
	case WRDE_SYNTAX:
		pb_fail("'%s': unbalanced quotes or a syntax error", line);
		return NULL;
	case WRDE_NOSPACE:
		wordfree(&we);
		pb_fail("out of memory");
		return NULL;
	default:
		pb_fail("'%s': cannot split into words", line);
		return NULL;
	}
	if (we.we_wordc == 0) {
		wordfree(&we);
		pb_fail("'%s': no command in it", line);
		return NULL;
	}
	char **w = calloc(we.we_wordc + 1, sizeof *w);
	for (size_t i = 0; w && i < we.we_wordc; i++)
		if (!(w[i] = strdup(we.we_wordv[i]))) {
			pb_cmd_free_words(w);
			w = NULL;
		}
	wordfree(&we);
	if (!w)
		pb_fail("out of memory");
	return w;
}

void pb_cmd_free_words(char **words)
{
	for (size_t i = 0; words && words[i]; i++)
		free(words[i]);
	free(words);
}

int pb_cmd_abba_side(size_t i)
{
	size_t block = i / 2, pos = i % 2;
	return (int)((block % 2 == 0) ? pos : 1 - pos);
}
