/* cli_harness.c - cli_harness.h: the command line in-process.
 *
 * main.c is compiled here, its main() renamed pb_cli_main (libFuzzer and
 * replay_main.c have the process's main), so that the harness can reset
 * its one piece of state, cli_command, between runs. Every other static of
 * src/cli is either set before it is read on every path a run can take
 * before cli_parse_done (cli_quiet, cli_argc and cli_argv: reset here all
 * the same) or used only by the work after it (cmd's session, tune's check
 * file, the progress lines, selftest's and processes' signal state).
 *
 * The targets link with these -Wl,--wrap= options (tests/fuzz/CMakeLists.txt,
 * PB_FUZZ_CLI_WRAP):
 *   exit: back to pb_cli_run by longjmp (the status kept);
 *   atexit: the handlers a run registers run when it ends;
 *   pb_cpu_hide_features, pb_cpu_features, pb_cpu_features_hidden: what
 *     --hide-features hides lasts for one run (the library adds to one set
 *     for the process's life: a run would see the features of every
 *     earlier input's --hide-features);
 *   fork, vfork, execve, execv, execvp, posix_spawn, posix_spawnp, system,
 *     popen, pb_session_begin: under PRIMBENCH_PARSE_ONLY, work that must
 *     not begin before cli_parse_done (a finding: pb_fuzz_fail). */
#define _GNU_SOURCE
#include "cli_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "primbench/cpu.h"
#include "primbench/session.h"

int pb_cli_main(int argc, char **argv);
#define main pb_cli_main
#include "cli/main.c"
#undef main

/* ---- exit ---- */

_Noreturn void __real_exit(int status);
_Noreturn void __wrap_exit(int status);

static jmp_buf *exit_to;
static int exit_status;

void __wrap_exit(int status)
{
	if (!exit_to)
		__real_exit(status);
	exit_status = status;
	longjmp(*exit_to, 1);
}

/* pb_fuzz_fail with the real standard error back (a run has it in a file) */
static FILE *real_stderr, *err_file;
#define harness_fail(...)                                                                          \
	do {                                                                                       \
		stderr = real_stderr;                                                              \
		pb_fuzz_fail(__VA_ARGS__);                                                         \
	} while (0)

/* ---- atexit: a run's handlers run when it ends ----
 * The CLI registers some (pb_output_reserve's removal of the temporary
 * file it reserved, tune's check file): the real process runs them at its
 * exit, so the harness runs every handler registered during any run at the
 * end of each run, as a fresh process would (they test whether there is
 * anything to do: pb_output_reserve registers its one once per process). */

int __real_atexit(void (*fn)(void));
int __wrap_atexit(void (*fn)(void));

static void (*run_handlers[16])(void);
static size_t n_run_handlers;

int __wrap_atexit(void (*fn)(void))
{
	if (!exit_to)
		return __real_atexit(fn);
	for (size_t i = 0; i < n_run_handlers; i++)
		if (run_handlers[i] == fn)
			return 0;
	if (n_run_handlers == sizeof run_handlers / sizeof run_handlers[0])
		harness_fail("more than %zu atexit handlers", n_run_handlers);
	run_handlers[n_run_handlers++] = fn;
	return 0;
}

static void run_exit_handlers(void)
{
	for (size_t i = n_run_handlers; i-- > 0;)
		run_handlers[i]();
}

/* ---- hidden features, one run's ---- */

int __real_pb_cpu_hide_features(const char *list);
int __wrap_pb_cpu_hide_features(const char *list);
pb_features __wrap_pb_cpu_features(void);
pb_features __wrap_pb_cpu_features_hidden(void);

static pb_features run_hidden;
static int requires_of[PB_FEAT_COUNT]; /* the feature each one extends, or -1 */

int __wrap_pb_cpu_hide_features(const char *list)
{
	/* the library's check and error; what it hid is forgotten below (the
	 * wrapped readers answer from run_hidden) */
	if (__real_pb_cpu_hide_features(list) != 0)
		return -1;
	/* the list is known good: its names, as cpu.c's parse_list splits it */
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		size_t n = (size_t)(end - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		char name[64];
		enum pb_feature f;
		if (n > 0 && n < sizeof name) {
			memcpy(name, p, n);
			name[n] = '\0';
			if (pb_feature_parse(name, &f) == 0)
				run_hidden |= (pb_features)1u << f;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

pb_features __wrap_pb_cpu_features_hidden(void)
{
	return run_hidden;
}

/* pb_cpu_features() of cpu.c with run_hidden for the hidden set. */
pb_features __wrap_pb_cpu_features(void)
{
	pb_features f = pb_cpu_features_detected() & ~run_hidden;
	for (int i = 0; i < PB_FEAT_COUNT; i++)
		if (requires_of[i] >= 0 && !(f & ((pb_features)1u << requires_of[i])))
			f &= ~((pb_features)1u << i);
	return f;
}

/* ---- sentinels: no work before cli_parse_done ---- */

static bool parse_only;
static const char *running; /* the input's first words, for the message */

static void work_begun(const char *what)
{
	if (parse_only && exit_to)
		harness_fail("%s before cli_parse_done under PRIMBENCH_PARSE_ONLY (%s)", what,
		             running);
}

pid_t __real_fork(void);
pid_t __wrap_fork(void);
pid_t __wrap_fork(void)
{
	work_begun("fork()");
	return __real_fork();
}
pid_t __real_vfork(void);
pid_t __wrap_vfork(void);
pid_t __wrap_vfork(void)
{
	work_begun("vfork()");
	return __real_fork(); /* vfork's child may not return from this frame */
}
int __real_execve(const char *path, char *const argv[], char *const envp[]);
int __wrap_execve(const char *path, char *const argv[], char *const envp[]);
int __wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	work_begun("execve()");
	return __real_execve(path, argv, envp);
}
int __real_execv(const char *path, char *const argv[]);
int __wrap_execv(const char *path, char *const argv[]);
int __wrap_execv(const char *path, char *const argv[])
{
	work_begun("execv()");
	return __real_execv(path, argv);
}
int __real_execvp(const char *file, char *const argv[]);
int __wrap_execvp(const char *file, char *const argv[]);
int __wrap_execvp(const char *file, char *const argv[])
{
	work_begun("execvp()");
	return __real_execvp(file, argv);
}
int __real_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	work_begun("posix_spawn()");
	return __real_posix_spawn(pid, path, fa, attr, argv, envp);
}
int __real_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
int __wrap_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                        const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	work_begun("posix_spawnp()");
	return __real_posix_spawnp(pid, file, fa, attr, argv, envp);
}
int __real_system(const char *cmd);
int __wrap_system(const char *cmd);
int __wrap_system(const char *cmd)
{
	work_begun("system()");
	return __real_system(cmd);
}
FILE *__real_popen(const char *cmd, const char *mode);
FILE *__wrap_popen(const char *cmd, const char *mode);
FILE *__wrap_popen(const char *cmd, const char *mode)
{
	work_begun("popen()");
	return __real_popen(cmd, mode);
}
int __real_pb_session_begin(const struct pb_session_params *p, struct pb_session *s);
int __wrap_pb_session_begin(const struct pb_session_params *p, struct pb_session *s);
int __wrap_pb_session_begin(const struct pb_session_params *p, struct pb_session *s)
{
	work_begun("a measuring session (pb_session_begin)");
	return __real_pb_session_begin(p, s);
}

/* ---- the scratch directory and the standard streams ---- */

static char root[96];      /* private: out, err and work/ */
static char work_dir[128]; /* the runs' working directory */
static char out_path[128], err_path[128];
static int out_fd = -1, err_fd = -1, null_fd = -1;
static int saved_fd[2] = {-1, -1};
static int work_fd = -1, caller_cwd_fd = -1; /* the caller's directory between runs */
static size_t work_entries;                  /* entries of work/ between runs */
static unsigned char fd_open_before[1024];

static void remove_scratch(void)
{
	DIR *d = opendir(work_dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(work_dir);
	unlink(out_path);
	unlink(err_path);
	rmdir(root);
}

/* The entries of work/ (new_file: one not among the fixtures, if any). */
static size_t count_entries(char *new_file, size_t len)
{
	size_t n = 0;
	DIR *d = opendir(".");
	if (!d)
		pb_fuzz_fail("cannot read the scratch directory: %s", strerror(errno));
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		n++;
		if (new_file && strcmp(e->d_name, "numbers") && strcmp(e->d_name, "numbers2") &&
		    strcmp(e->d_name, "result.json") && strcmp(e->d_name, "acct"))
			snprintf(new_file, len, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

static void note_open_fds(unsigned char *open_now)
{
	memset(open_now, 0, sizeof fd_open_before);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && fd >= 0 &&
		    (size_t)fd < sizeof fd_open_before)
			open_now[fd] = 1;
	}
	closedir(d);
}

static int write_at(int dir_fd, const char *name, const void *data, size_t size)
{
	int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (pb_fuzz_write_all(fd, data, size) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int pb_cli_write_file(const char *name, const void *data, size_t size)
{
	return write_at(work_fd, name, data, size);
}

void pb_cli_init(bool parse_only_mode)
{
	real_stderr = stderr;
	parse_only = parse_only_mode;
	const char *base = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/pbfuzz-cli.XXXXXX",
	         base && base[0] == '/' && strlen(base) < 60 ? base : "/tmp");
	if (!mkdtemp(root))
		pb_fuzz_fail("cannot make a scratch directory: %s", strerror(errno));
	snprintf(work_dir, sizeof work_dir, "%s/work", root);
	snprintf(out_path, sizeof out_path, "%s/out", root);
	snprintf(err_path, sizeof err_path, "%s/err", root);
	caller_cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mkdir(work_dir, 0700) != 0 || caller_cwd_fd < 0 || chdir(work_dir) != 0)
		pb_fuzz_fail("cannot use '%s': %s", work_dir, strerror(errno));
	work_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	atexit(remove_scratch);
	/* fixtures a command line may name (words with '/' are not run): a
	 * number file, a result file that is not one, an empty directory */
	static const char numbers[] = "1\n2\n3\n4\n";
	if (pb_cli_write_file("numbers", numbers, sizeof numbers - 1) != 0 ||
	    pb_cli_write_file("numbers2", numbers, sizeof numbers - 1) != 0 ||
	    pb_cli_write_file("result.json", "{}\n", 3) != 0 || mkdir("acct", 0700) != 0)
		pb_fuzz_fail("cannot write the fixtures: %s", strerror(errno));
	work_entries = count_entries(NULL, 0);

	if (parse_only)
		setenv("PRIMBENCH_PARSE_ONLY", "1", 1);
	else
		unsetenv("PRIMBENCH_PARSE_ONLY");
	/* the same answers on every machine and in every caller's environment */
	setenv("PRIMBENCH_POLICY_FILE", "", 1);
	char cfg[160];
	snprintf(cfg, sizeof cfg, "%s/no-config", root);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	unsetenv("PRIMBENCH_HIDE_FEATURES");
	unsetenv("PRIMBENCH_PROCESSES_CHILD");
	unsetenv("PRIMBENCH_TEST_SIGINT_AFTER");
	for (int i = 0; i < PB_FEAT_COUNT; i++) {
		const char *r = pb_feature_requires((enum pb_feature)i);
		enum pb_feature f;
		requires_of[i] = r && pb_feature_parse(r, &f) == 0 ? (int)f : -1;
	}

	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_file = fopen(err_path, "w+e");
	err_fd = err_file ? fileno(err_file) : -1;
	for (int i = 0; i < 2; i++)
		saved_fd[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
	if (null_fd < 0 || out_fd < 0 || err_fd < 0 || saved_fd[0] < 0 || saved_fd[1] < 0)
		pb_fuzz_fail("cannot set up the standard streams: %s", strerror(errno));
	note_open_fds(fd_open_before);
	/* the caller's paths (replay's inputs) are relative to its directory */
	if (work_fd < 0 || fchdir(caller_cwd_fd) != 0)
		pb_fuzz_fail("cannot go back from '%s': %s", work_dir, strerror(errno));
}

/* Standard error's first line and its shape. */
static void read_err(struct pb_cli_result *r)
{
	char buf[8192];
	ssize_t n = pread(err_fd, buf, sizeof buf - 1, 0);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	size_t first = strcspn(buf, "\n");
	snprintf(r->err, sizeof r->err, "%.*s", (int)first, buf);
	r->messages = 0;
	r->widest = 0;
	for (char *p = buf; *p;) {
		size_t len = strcspn(p, "\n");
		if (*p != ' ')
			r->messages++;
		if (len > r->widest)
			r->widest = len;
		p += len;
		if (*p)
			p++;
	}
	struct stat st;
	r->out_bytes = fstat(out_fd, &st) == 0 ? (size_t)st.st_size : 0;
}

void pb_cli_run(int argc, char **argv, struct pb_cli_result *r)
{
	memset(r, 0, sizeof *r);
	/* a fresh process's state */
	/* glibc's getopt keeps a pointer into the argv of the last call (the
	 * rest of a cluster such as -qfx); optind 0 resets it, but only at the
	 * next getopt call, and info, latency, list and selftest set optind to
	 * 1 before theirs: a call on an empty argv here does the reset */
	static char *no_args[] = {"primbench", NULL};
	optind = 0;
	opterr = 0;
	getopt(1, no_args, "");
	optind = 1;
	opterr = 1;
	optopt = '?';
	optarg = NULL;
	cli_command = NULL;
	cli_quiet = false;
	free(cli_argv);
	cli_argv = NULL;
	cli_argc = 0;
	run_hidden = 0;
	running = argc > 1 ? argv[1] : "(no subcommand)";

	fflush(stdout);
	fflush(stderr);
	if (fchdir(work_fd) != 0)
		pb_fuzz_fail("cannot enter '%s': %s", work_dir, strerror(errno));
	if (ftruncate(out_fd, 0) != 0 || ftruncate(err_fd, 0) != 0)
		pb_fuzz_fail("cannot truncate the output files: %s", strerror(errno));
	dup2(null_fd, 0);
	dup2(out_fd, 1);
	lseek(out_fd, 0, SEEK_SET);
	rewind(err_file);
	/* the FILE, not descriptor 2: a sanitizer's report and libFuzzer's
	 * lines still reach the real standard error */
	stderr = err_file;

	jmp_buf here;
	volatile bool exited = false;
	int status = 0;
	if (setjmp(here) == 0) {
		exit_to = &here;
		status = pb_cli_main(argc, argv);
	} else {
		exited = true;
		status = exit_status;
	}
	exit_to = NULL;
	run_exit_handlers();
	fflush(stdout);
	fflush(err_file);
	stderr = real_stderr;
	for (int i = 0; i < 2; i++)
		dup2(saved_fd[i], i);
	clearerr(stdin);
	clearerr(stdout);
	clearerr(stderr);
	r->status = status;
	r->exited = exited;
	read_err(r);

	/* what the run left: files in the scratch directory, descriptors */
	if (count_entries(r->new_file, sizeof r->new_file) == work_entries)
		r->new_file[0] = '\0';
	unsigned char open_now[sizeof fd_open_before];
	note_open_fds(open_now);
	for (size_t fd = 3; fd < sizeof open_now; fd++)
		if (open_now[fd] && !fd_open_before[fd]) {
			r->fds_left++;
			close((int)fd);
		}
	if (fchdir(caller_cwd_fd) != 0)
		pb_fuzz_fail("cannot go back from '%s': %s", work_dir, strerror(errno));
}
