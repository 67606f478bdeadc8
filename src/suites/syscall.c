/* syscall.c - the syscall suite (include/primbench/syscall.h; method in
 * docs/methodology.md, "The syscall suite"). */
#define _GNU_SOURCE
#include "primbench/syscall.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/memory.h"
#include "primbench/pages.h"
#include "primbench/replicates.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"
#include "suites/sampling.h"

/* A sample aims to last this long at least, and far above the timer's step
 * and overhead (the mem suite's rule). */
/* Most ops one sample may hold: syscalls, and pages for the memory ones
 * (64 MiB of 4 KiB pages). */
#define MAX_OPS       16384u
#define MAX_THP_PAGES 32u

/* The groups whose members are interleaved with each other. */
enum group { G_SIMPLE, G_RTT, G_PROCESS, G_MEMORY, G_COUNT };

static enum group group_of(enum pb_sc_bench b)
{
	switch (b) {
	case PB_SC_PIPE_RTT:
		return G_RTT;
	case PB_SC_FORK:
	case PB_SC_FORK_HELPER:
	case PB_SC_EXEC_STATIC:
	case PB_SC_EXEC_DYNAMIC:
	case PB_SC_SPAWN:
		return G_PROCESS;
	case PB_SC_FAULT:
	case PB_SC_POPULATE:
		return G_MEMORY;
	default:
		return G_SIMPLE;
	}
}

struct echo {
	pid_t pid;
	int to, from; /* our ends: write to the child, read from it */
};

/* fork-helper's small parent (tools/forker.c): k on `to` asks for k forks,
 * the count of failed ones comes back on `from`. */
struct forker {
	pid_t pid;
	int to, from;
};

struct ctx {
	int zero_fd, null_fd;
	int pfd[2];
	char exe_static[4096], exe_dynamic[4096], exe_forker[4096];
	struct echo echo[2]; /* pipe-rtt: same CPU, other CPU */
	struct forker forker;
	volatile sig_atomic_t *stop;
};

struct contender {
	enum pb_sc_bench bench;
	int variant; /* pipe-rtt: echo index; fault: 1 = THP */
	struct pb_syscall_case *c;
	size_t k, max_k;
	uint64_t expect_thp;
};

static bool stopped(const struct ctx *x)
{
	return x->stop && *x->stop;
}

/* Two close-on-exec pipes, a and b, for a child's fd 0 and fd 1. Returns
 * 0, or -1 with pb_error() (nothing left open). */
static int pipe_pair(int a[2], int b[2])
{
	if (pipe2(a, O_CLOEXEC) != 0)
		return pb_fail("pipe: %s", strerror(errno));
	if (pipe2(b, O_CLOEXEC) != 0) {
		close(a[0]);
		close(a[1]);
		return pb_fail("pipe: %s", strerror(errno));
	}
	return 0;
}

/* ---- pipe-rtt's echo process ---------------------------------------- */

static int echo_start(struct echo *e, int cpu, const struct echo *other)
{
	int a[2], b[2];
	if (pipe_pair(a, b) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
		return pb_fail("fork: %s", strerror(errno));
	}
	if (pid == 0) {
		/* Echoes until EOF, then reports how many bytes it echoed. A
		 * Ctrl-C reaches the whole process group: the parent ends the
		 * run, the echo ends on EOF. */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(a[1]);
		close(b[0]);
		/* The other echo's ends: held here, its EOF would never come. */
		if (other && other->pid > 0) {
			close(other->to);
			close(other->from);
		}
		if (cpu >= 0 && pb_syscall_pin(cpu) != 0)
			_exit(3);
		uint64_t n = 0;
		char ch;
		for (;;) {
			ssize_t r = read(a[0], &ch, 1);
			if (r == 1) {
				n++;
				while (write(b[1], &ch, 1) != 1)
					if (errno != EINTR)
						_exit(4);
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			break;
		}
		if (write(b[1], &n, sizeof n) != (ssize_t)sizeof n)
			_exit(5);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	e->pid = pid;
	e->to = a[1];
	e->from = b[0];
	return 0;
}

/* Closes the child's input and collects its count and status. */
static int echo_stop(struct echo *e, uint64_t *echoed)
{
	if (e->pid <= 0)
		return 0;
	close(e->to);
	uint64_t n = 0;
	size_t got = 0;
	while (got < sizeof n) {
		ssize_t r = read(e->from, (char *)&n + got, sizeof n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(e->from);
	int st = 0;
	while (waitpid(e->pid, &st, 0) < 0 && errno == EINTR)
		;
	e->pid = 0;
	if (echoed)
		*echoed = got == sizeof n ? n : 0;
	if (got != sizeof n || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return pb_fail("pipe-rtt: the echo process failed (status 0x%x)", st);
	return 0;
}

static int rtt(const struct echo *e, char *ch)
{
	while (write(e->to, ch, 1) != 1)
		if (errno != EINTR)
			return -1;
	while (read(e->from, ch, 1) != 1)
		if (errno != EINTR)
			return -1;
	return 0;
}

int pb_syscall_check_pipe_pair(int cpu, int peer_cpu, size_t n, uint64_t *echoed)
{
	struct echo e = {0};
	if (cpu >= 0 && pb_syscall_pin(cpu) != 0)
		return -1;
	if (echo_start(&e, peer_cpu, NULL) != 0)
		return -1;
	int bad = 0;
	for (size_t i = 0; i < n && !bad; i++) {
		char ch = (char)('a' + i % 26), sent = ch;
		bad = rtt(&e, &ch) != 0 || ch != sent;
	}
	int rc = echo_stop(&e, echoed);
	if (bad)
		return pb_fail("pipe-rtt: a byte did not come back");
	return rc;
}

/* ---- one timed sample ----------------------------------------------- */

static int wait_ok(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static char *const empty_env[] = {NULL};

/* ---- fork-helper's parent ------------------------------------------- */

/* Starts tools/forker.c (path) with a pipe on its fd 0 and one on its fd 1.
 * It inherits this thread's CPU. */
static int forker_start(struct forker *f, const char *path)
{
	int a[2], b[2];
	if (pipe_pair(a, b) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (dup2(a[0], 0) == 0 && dup2(b[1], 1) == 1) {
			char *argv[] = {(char *)path, NULL};
			execve(path, argv, empty_env);
		}
		_exit(127);
	}
	int e = errno;
	close(a[0]);
	close(b[1]);
	if (pid < 0) {
		close(a[1]);
		close(b[0]);
		return pb_fail("fork: %s", strerror(e));
	}
	f->pid = pid;
	f->to = a[1];
	f->from = b[0];
	return 0;
}

static int forker_ask(const struct forker *f, uint64_t k, uint64_t *failed);

/* Starts the helper and waits until it runs its own image (an answer to a
 * request for 0 forks), so that its size is the helper's, not this
 * process's copy before execve. */
static int forker_start_ready(struct forker *f, const char *path)
{
	uint64_t failed = 0;
	if (forker_start(f, path) != 0)
		return -1;
	return forker_ask(f, 0, &failed);
}

/* Asks for k forks; *failed gets the helper's count of failed ones. */
static int forker_ask(const struct forker *f, uint64_t k, uint64_t *failed)
{
	ssize_t w;
	while ((w = write(f->to, &k, sizeof k)) < 0 && errno == EINTR)
		;
	size_t got = 0;
	while (w == (ssize_t)sizeof k && got < sizeof *failed) {
		ssize_t r = read(f->from, (char *)failed + got, sizeof *failed - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got == sizeof *failed ? 0 : pb_fail("fork-helper: the helper process went away");
}

static int forker_stop(struct forker *f)
{
	if (f->pid <= 0)
		return 0;
	close(f->to);
	close(f->from);
	int st = 0;
	while (waitpid(f->pid, &st, 0) < 0 && errno == EINTR)
		;
	f->pid = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return pb_fail("fork-helper: the helper process failed (status 0x%x)", st);
	return 0;
}

int pb_syscall_check_fork_helper(size_t n, uint64_t *failed)
{
	char path[4096];
	struct forker f = {0};
	if (pb_syscall_tool_path_named("primbench-forker", path, sizeof path) != 0 ||
	    forker_start_ready(&f, path) != 0)
		return -1;
	int rc = forker_ask(&f, n, failed);
	return forker_stop(&f) != 0 || rc != 0 ? -1 : 0;
}

/* Times k ops of ct; untimed set-up and clean-up around. Returns 0, or -1
 * with pb_error() when an op failed. */
static int time_ops(struct ctx *x, struct contender *ct, size_t k, uint64_t *ticks,
                    uint64_t *thp_seen)
{
	pb_stamp t;
	int bad = 0;
	char ch = 'x';
	switch (ct->bench) {
	case PB_SC_NULL:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			syscall(SYS_getppid);
		*ticks = pb_timer_end(t);
		return 0;
	case PB_SC_GETPID:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			syscall(SYS_getpid);
		*ticks = pb_timer_end(t);
		return 0;
	case PB_SC_UMASK: {
		mode_t old = umask(022);
		umask(old);
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++) {
			umask(077);
			umask(old);
		}
		*ticks = pb_timer_end(t);
		return 0;
	}
	case PB_SC_READ:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			bad |= read(x->zero_fd, &ch, 1) != 1;
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("read of /dev/zero failed") : 0;
	case PB_SC_WRITE:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			bad |= write(x->null_fd, &ch, 1) != 1;
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("write to /dev/null failed") : 0;
	case PB_SC_PIPE:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++) {
			bad |= write(x->pfd[1], &ch, 1) != 1;
			bad |= read(x->pfd[0], &ch, 1) != 1;
		}
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("pipe: a byte was lost") : 0;
	case PB_SC_PIPE_RTT: {
		const struct echo *e = &x->echo[ct->variant];
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			bad |= rtt(e, &ch);
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("pipe-rtt: the echo process went away") : 0;
	}
	case PB_SC_FORK:
		t = pb_timer_begin();
		for (size_t i = 0; i < k && !bad; i++) {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			bad |= pid < 0 || wait_ok(pid) != 0;
		}
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("fork: the child failed: %s", strerror(errno)) : 0;
	case PB_SC_FORK_HELPER: {
		uint64_t failed = 0;
		t = pb_timer_begin();
		bad = forker_ask(&x->forker, k, &failed);
		*ticks = pb_timer_end(t);
		if (bad)
			return -1;
		return failed ? pb_fail("fork-helper: %llu of %zu forks failed",
		                        (unsigned long long)failed, k)
		              : 0;
	}
	case PB_SC_EXEC_STATIC:
	case PB_SC_EXEC_DYNAMIC: {
		const char *path = ct->bench == PB_SC_EXEC_STATIC ? x->exe_static : x->exe_dynamic;
		char *argv[] = {(char *)path, NULL};
		t = pb_timer_begin();
		for (size_t i = 0; i < k && !bad; i++) {
			pid_t pid = fork();
			if (pid == 0) {
				execve(path, argv, empty_env);
				_exit(127);
			}
			bad |= pid < 0 || wait_ok(pid) != 0;
		}
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("%s: '%s' did not exit with 0",
		                     pb_syscall_bench_name(ct->bench), path)
		           : 0;
	}
	case PB_SC_SPAWN: {
		char *argv[] = {x->exe_dynamic, NULL};
		t = pb_timer_begin();
		for (size_t i = 0; i < k && !bad; i++) {
			pid_t pid;
			bad |=
			    posix_spawn(&pid, x->exe_dynamic, NULL, NULL, argv, empty_env) != 0 ||
			    wait_ok(pid) != 0;
		}
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("spawn: '%s' did not exit with 0", x->exe_dynamic) : 0;
	}
	case PB_SC_MMAP:
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++) {
			void *p = mmap(NULL, PB_PAGE_BYTES, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			bad |= p == MAP_FAILED || munmap(p, PB_PAGE_BYTES) != 0;
		}
		*ticks = pb_timer_end(t);
		return bad ? pb_fail("mmap of 1 page failed") : 0;
	case PB_SC_POPULATE: {
		size_t bytes = k * PB_PAGE_BYTES;
		t = pb_timer_begin();
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		*ticks = pb_timer_end(t);
		if (p == MAP_FAILED)
			return pb_fail("mmap(MAP_POPULATE) of %zu bytes: %s", bytes,
			               strerror(errno));
		munmap(p, bytes);
		return 0;
	}
	case PB_SC_FAULT: {
		bool huge = ct->variant == 1;
		size_t page = huge ? PB_PAGE_2M : PB_PAGE_BYTES, bytes = k * page;
		volatile uint8_t *p = pb_map(bytes, huge, true);
		if (!p)
			return -1;
		if (!huge)
			madvise((void *)p, bytes, MADV_NOHUGEPAGE);
		t = pb_timer_begin();
		for (size_t i = 0; i < k; i++)
			p[i * page] = 1;
		*ticks = pb_timer_end(t);
		if (thp_seen)
			*thp_seen = pb_thp_bytes_at((const void *)p);
		pb_unmap((void *)p, bytes);
		return 0;
	}
	default:
		return pb_fail("no such benchmark");
	}
}

/* ---- samples, calibration, rounds ----------------------------------- */

/* The harness's context for one group (include/primbench/harness.h). */
struct sc_run {
	struct ctx *x;
	struct contender *cts;
};

/* The batch callback: k ops of contender i. A Ctrl-C from the terminal
 * reaches the children too: an exec'd program or echo process killed by
 * it is the interruption, not a failure (nothing kept: returns 1, and the
 * harness sees the stop flag). */
static int group_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                       struct pb_harness_batch *out)
{
	struct sc_run *g = ctx;
	struct contender *ct = &g->cts[i];
	uint64_t ticks = 0, thp = 0;
	bool want_thp = phase == PB_HARNESS_KEEP && ct->bench == PB_SC_FAULT && ct->variant == 1 &&
	                ct->c->thp_bytes == 0;
	(void)thread;
	if (time_ops(g->x, ct, k, &ticks, want_thp ? &thp : NULL) != 0)
		return stopped(g->x) ? 1 : -1;
	if (want_thp)
		ct->c->thp_bytes = thp;
	out->ticks = (double)ticks;
	return 0;
}

/* Interleaved rounds over cts[0..n) on the harness: one warm-up round
 * discarded, until every member has min_samples and the group spent budget
 * x n, or max_samples, or a stop; then each case's samples and summary. */
static int run_group(const struct pb_syscall_params *p, struct ctx *x, struct contender *cts,
                     size_t n, uint64_t *rng)
{
	struct pb_harness_contender hc[PB_SC_COUNT + 2];
	for (size_t i = 0; i < n; i++)
		hc[i] = (struct pb_harness_contender){.max_k = cts[i].max_k};
	struct sc_run g = {.x = x, .cts = cts};
	struct pb_harness_params hp = {
	    .n_contenders = n,
	    .contenders = hc,
	    .time_batch = group_batch,
	    .ctx = &g,
	    .warmup_samples = 1,
	    .min_samples = p->min_samples,
	    .max_samples = p->max_samples,
	    .budget_s = p->budget_s * (double)n,
	    .stop = p->stop,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .rng = rng,
	    .overhead_ticks = pb_timer_info()->overhead_ticks,
	};
	struct pb_harness_result hr;
	if (pb_harness_run(&hp, &hr) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct pb_syscall_case *c = cts[i].c;
		struct pb_harness_samples *h = &hr.c[i];
		cts[i].k = h->k;
		c->batch_ticks = h->ticks;
		c->batch_ops = h->calls;
		h->ticks = NULL;
		h->calls = NULL;
		c->n_samples = h->n_samples;
		c->cap = h->cap;
		c->migrations = (int)h->migrations;
		c->ticks_per_op = h->per_call;
		c->outliers = h->outliers;
		c->cv = c->n_samples > 1 && c->ticks_per_op.mean > 0
		            ? c->ticks_per_op.stddev / c->ticks_per_op.mean
		            : 0;
	}
	pb_harness_result_free(&hr);
	return 0;
}

#define note(r, ...) pb_note_append((r)->notes, sizeof(r)->notes, __VA_ARGS__)

static bool thp_possible(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	if (!f)
		return false;
	if (!fgets(line, sizeof line, f))
		line[0] = '\0';
	fclose(f);
	return !strstr(line, "[never]") && line[0];
}

static struct pb_syscall_case *new_case(struct pb_syscall_result *r, enum pb_sc_bench b, int cpu,
                                        int peer, uint32_t page_bytes)
{
	struct pb_syscall_case *c = &r->cases[r->n_cases++];
	memset(c, 0, sizeof *c);
	c->bench = b;
	c->cpu = cpu;
	c->peer_cpu = peer;
	c->page_bytes = page_bytes;
	c->op_desc = pb_syscall_bench_desc(b);
	if (b == PB_SC_PIPE_RTT && cpu >= 0 && peer == cpu)
		snprintf(c->placement, sizeof c->placement, "same cpu %d", cpu);
	else if (b == PB_SC_PIPE_RTT && cpu >= 0 && peer >= 0)
		snprintf(c->placement, sizeof c->placement, "cpus %d,%d", cpu, peer);
	else if (cpu >= 0)
		snprintf(c->placement, sizeof c->placement, "cpu %d", cpu);
	else
		snprintf(c->placement, sizeof c->placement, "unpinned");
	if (b == PB_SC_FAULT && page_bytes == PB_PAGE_2M)
		c->op_desc = "first write to a fresh 2 MiB transparent huge page";
	return c;
}

/* What a fault sample times (one line a run; the replicates merge equal
 * lines, so the batch size, which the calibration may choose differently
 * in each, is left to the samples' op counts in the file). mem map times
 * the same first writes over a whole fresh region (docs/methodology.md,
 * "Two page-fault figures"). */
static void fault_note(struct pb_syscall_result *r)
{
	note(r, "fault: a sample is the first write to each page of a fresh mapping of a few "
	        "pages (THP: of one or a few 2 MiB pages), mmap, madvise and munmap not timed, "
	        "its pages recycled from the last sample's munmap; `mem map` faults a whole "
	        "fresh region (docs/methodology.md, \"Two page-fault figures\")");
}

/* Which process fork and fork-helper fork, and how large it is: fork's
 * price grows with the parent's mappings and resident pages. */
static void note_forked(struct pb_syscall_result *r, enum pb_sc_bench b, pid_t pid)
{
	uint64_t rss = 0, vm = 0, maps = 0;
	const char *who = b == PB_SC_FORK ? "primbench itself" : "the helper primbench-forker";
	if (pb_proc_size(pid, &rss, &vm, &maps) != 0) {
		note(r, "%s: forks %s (its size could not be read)", pb_syscall_bench_name(b), who);
		return;
	}
	note(r, "%s: forks %s: VmRSS %.1f MiB, VmSize %.1f MiB, %llu mappings",
	     pb_syscall_bench_name(b), who, (double)rss / (1 << 20), (double)vm / (1 << 20),
	     (unsigned long long)maps);
}

static void ctx_close(struct ctx *x)
{
	if (x->zero_fd >= 0)
		close(x->zero_fd);
	if (x->null_fd >= 0)
		close(x->null_fd);
	if (x->pfd[0] >= 0)
		close(x->pfd[0]);
	if (x->pfd[1] >= 0)
		close(x->pfd[1]);
	for (int i = 0; i < 2; i++)
		echo_stop(&x->echo[i], NULL);
	forker_stop(&x->forker);
}

/* The tools, /dev/zero, /dev/null and the pipe the selected benchmarks
 * need, into x. Returns 0, or -1 with pb_error() (x closed). */
static int ctx_open(const struct pb_syscall_params *p, struct ctx *x)
{
	*x = (struct ctx){.zero_fd = -1, .null_fd = -1, .pfd = {-1, -1}, .stop = p->stop};
	const bool *sel = p->selected;
	if (sel[PB_SC_EXEC_STATIC] &&
	    pb_syscall_tool_path(true, x->exe_static, sizeof x->exe_static) != 0)
		return -1;
	if ((sel[PB_SC_EXEC_DYNAMIC] || sel[PB_SC_SPAWN]) &&
	    pb_syscall_tool_path(false, x->exe_dynamic, sizeof x->exe_dynamic) != 0)
		return -1;
	if (sel[PB_SC_FORK_HELPER] && pb_syscall_tool_path_named("primbench-forker", x->exe_forker,
	                                                         sizeof x->exe_forker) != 0)
		return -1;
	x->zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	x->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (x->zero_fd < 0 || x->null_fd < 0 || pipe2(x->pfd, O_CLOEXEC) != 0) {
		int e = errno;
		ctx_close(x);
		return pb_fail("cannot open /dev/zero, /dev/null or a pipe: %s", strerror(e));
	}
	return 0;
}

/* The contenders of group g into cts (their cases added to r): each
 * selected benchmark of the group, pipe-rtt on the same CPU and the other,
 * fault with 4 KiB pages and (THP on) 2 MiB ones. Returns how many; *rc
 * -1 when an echo partner could not start. */
static size_t group_contenders(const struct pb_syscall_params *p, struct pb_syscall_result *r,
                               struct ctx *x, enum group g, struct contender *cts, int *rc)
{
	const bool *sel = p->selected;
	size_t n = 0;
	for (int b = 0; b < PB_SC_COUNT; b++) {
		if (!sel[b] || group_of((enum pb_sc_bench)b) != g)
			continue;
		enum pb_sc_bench bench = (enum pb_sc_bench)b;
		struct contender base = {.bench = bench, .max_k = MAX_OPS};
		if (bench == PB_SC_PIPE_RTT) {
			/* same CPU, then other CPU */
			int peers[2] = {p->cpu, p->peer_cpu};
			for (int v = 0; v < 2 && *rc == 0; v++) {
				if (v == 1 && (p->peer_cpu < 0 || p->cpu < 0)) {
					note(r, "pipe-rtt: cross-CPU run skipped: %s",
					     p->cpu < 0 ? "not pinned (no --cpu)"
					                : "only one CPU available");
					continue;
				}
				*rc = echo_start(&x->echo[v], peers[v], &x->echo[1 - v]);
				cts[n] = base;
				cts[n].variant = v;
				cts[n].c = new_case(r, bench, p->cpu, peers[v], 0);
				n++;
			}
			continue;
		}
		uint32_t page = 0;
		if (bench == PB_SC_FAULT || bench == PB_SC_POPULATE || bench == PB_SC_MMAP)
			page = PB_PAGE_BYTES;
		cts[n] = base;
		cts[n].c = new_case(r, bench, p->cpu, -1, page);
		n++;
		if (bench == PB_SC_FAULT) {
			if (!thp_possible()) {
				note(r, "fault: THP case skipped: transparent huge pages "
				        "are off (/sys/kernel/mm/transparent_hugepage/"
				        "enabled)");
				continue;
			}
			cts[n] = base;
			cts[n].variant = 1;
			cts[n].max_k = MAX_THP_PAGES;
			cts[n].c = new_case(r, bench, p->cpu, -1, (uint32_t)PB_PAGE_2M);
			n++;
		}
	}
	return n;
}

/* Stops the group's fork helper and echo partners. Returns 0, or -1 when
 * one did not end as it should. */
static int group_stop(struct ctx *x)
{
	int rc = forker_stop(&x->forker) != 0 ? -1 : 0;
	for (size_t i = 0; i < 2; i++) {
		uint64_t echoed = 0;
		if (x->echo[i].pid > 0 && echo_stop(&x->echo[i], &echoed) != 0 && rc == 0)
			rc = -1;
	}
	return rc;
}

/* The notes on a group's faults: the 4 KiB fault's, and whether the THP
 * case really faulted huge pages. */
static void group_fault_notes(struct pb_syscall_result *r, const struct contender *cts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cts[i].bench == PB_SC_FAULT && cts[i].variant == 0 && cts[i].c->n_samples)
			fault_note(r);
	for (size_t i = 0; i < n; i++) {
		struct pb_syscall_case *c = cts[i].c;
		if (c->bench == PB_SC_FAULT && c->page_bytes == PB_PAGE_2M && c->n_samples) {
			uint64_t expect = (uint64_t)cts[i].k * PB_PAGE_2M;
			if (c->thp_bytes == 0)
				note(r, "fault: THP: no huge pages seen in "
				        "/proc/self/smaps: the figure is a 4 KiB fault");
			else if (c->thp_bytes < expect)
				note(r,
				     "fault: THP: only %llu of %llu KiB were huge pages "
				     "in the sample checked",
				     (unsigned long long)(c->thp_bytes >> 10),
				     (unsigned long long)(expect >> 10));
		}
	}
}

/* One group: its contenders, fork helper and partners started, interleaved
 * (run_group), stopped, noted. Returns 0 or -1 with pb_error(). */
static int run_one_group(const struct pb_syscall_params *p, struct pb_syscall_result *r,
                         struct ctx *x, enum group g, uint64_t *rng)
{
	struct contender cts[PB_SC_COUNT + 2];
	int rc = 0;
	size_t n = group_contenders(p, r, x, g, cts, &rc);
	if (n == 0 || rc != 0)
		return rc;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (cts[i].bench == PB_SC_FORK_HELPER)
			rc = forker_start_ready(&x->forker, x->exe_forker);
		if (cts[i].bench == PB_SC_FORK || cts[i].bench == PB_SC_FORK_HELPER)
			note_forked(r, cts[i].bench,
			            cts[i].bench == PB_SC_FORK ? 0 : x->forker.pid);
	}
	if (rc != 0)
		return rc;
	if (p->progress)
		p->progress(p->progress_ctx, pb_syscall_bench_name(cts[0].bench));
	rc = run_group(p, x, cts, n, rng);
	if (group_stop(x) != 0 && rc == 0)
		rc = -1;
	if (rc == 0)
		group_fault_notes(r, cts, n);
	return rc;
}

int pb_syscall_run(const struct pb_syscall_params *p, struct pb_syscall_result *r)
{
	memset(r, 0, sizeof *r);
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample bounds");
	struct ctx x;
	if (ctx_open(p, &x) != 0)
		return -1;
	r->cases = calloc(PB_SC_COUNT + 2, sizeof *r->cases);
	if (!r->cases) {
		ctx_close(&x);
		return pb_fail("out of memory");
	}
	uint64_t rng = pb_seed_or_default(p->seed);
	int rc = 0;
	for (int g = 0; g < G_COUNT && rc == 0 && !stopped(&x); g++)
		rc = run_one_group(p, r, &x, (enum group)g, &rng);
	if (stopped(&x))
		r->interrupted = true;
	ctx_close(&x);
	if (rc != 0) {
		pb_syscall_result_free(r);
		return -1;
	}
	return 0;
}

void pb_syscall_result_free(struct pb_syscall_result *r)
{
	if (!r->cases)
		return;
	static const size_t owned[] = {offsetof(struct pb_syscall_case, batch_ticks),
	                               offsetof(struct pb_syscall_case, batch_ops),
	                               offsetof(struct pb_syscall_case, replicate_samples)};
	PB_FREE_STRUCTS(r->cases, r->n_cases, owned);
	r->cases = NULL;
	r->n_cases = 0;
}

static int first_replicate(struct pb_syscall_case *c)
{
	c->replicate_samples = malloc(sizeof *c->replicate_samples);
	if (!c->replicate_samples)
		return pb_fail("out of memory");
	c->replicate_samples[0] = c->n_samples;
	c->n_replicates = 1;
	return 0;
}

static int join_replicate(struct pb_syscall_case *c, const struct pb_syscall_case *o)
{
	if (pb_replicate_join(&c->batch_ticks, &c->batch_ops, c->n_samples, &c->replicate_samples,
	                      &c->n_replicates, o->batch_ticks, o->batch_ops, o->n_samples) != 0)
		return -1;
	c->n_samples = c->cap = c->n_samples + o->n_samples;
	c->migrations += o->migrations;
	c->outliers += o->outliers;
	if (o->thp_bytes < c->thp_bytes)
		c->thp_bytes = o->thp_bytes;
	return 0;
}

/* Removes from `notes` each "BENCH: forks ..." line (note_forked) whose
 * head `have` has a line of already: every replicate forks the same
 * process, a few pages larger, and says so once. */
static void drop_repeated_fork_notes(char *notes, const char *have)
{
	char *line = notes;
	while (*line) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		const char *mark = strstr(line, ": forks ");
		bool drop = false;
		if (mark && (!end || mark < end)) {
			size_t head = (size_t)(mark - line) + strlen(": forks ");
			for (const char *at = have; *at;
			     at += strcspn(at, "\n") + (at[strcspn(at, "\n")] != 0))
				drop |= strncmp(at, line, head) == 0;
		}
		if (drop)
			memmove(line, line + len, strlen(line + len) + 1);
		else
			line += len;
	}
}

int pb_syscall_result_add_replicate(struct pb_syscall_result *acc, struct pb_syscall_result *more)
{
	if (!acc->cases) {
		*acc = *more;
		memset(more, 0, sizeof *more);
		for (size_t i = 0; i < acc->n_cases; i++)
			if (first_replicate(&acc->cases[i]) != 0)
				return -1;
		return 0;
	}
	int rc = 0;
	for (size_t j = 0; j < more->n_cases && rc == 0; j++) {
		struct pb_syscall_case *o = &more->cases[j], *c = NULL;
		for (size_t i = 0; !c && i < acc->n_cases; i++)
			if (acc->cases[i].bench == o->bench &&
			    !strcmp(acc->cases[i].placement, o->placement) &&
			    acc->cases[i].page_bytes == o->page_bytes)
				c = &acc->cases[i];
		if (c) {
			rc = join_replicate(c, o);
			continue;
		}
		struct pb_syscall_case *cs = realloc(acc->cases, (acc->n_cases + 1) * sizeof *cs);
		if (!cs) {
			rc = pb_fail("out of memory");
			break;
		}
		acc->cases = cs;
		cs[acc->n_cases] = *o;
		memset(o, 0, sizeof *o);
		rc = first_replicate(&cs[acc->n_cases++]);
	}
	drop_repeated_fork_notes(more->notes, acc->notes);
	pb_notes_merge(acc->notes, sizeof acc->notes, more->notes);
	acc->interrupted |= more->interrupted;
	pb_syscall_result_free(more);
	memset(more, 0, sizeof *more);
	return rc;
}

int pb_syscall_result_end_replicates(struct pb_syscall_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		struct pb_syscall_case *c = &r->cases[i];
		if (c->n_samples == 0)
			continue;
		if (pb_summarize_batch_replicates(c->batch_ticks, c->batch_ops, c->n_samples,
		                                  c->replicate_samples, c->n_replicates, 0.95,
		                                  &c->ticks_per_op) != 0)
			return -1;
	}
	return 0;
}

void pb_syscall_replicate_params(const struct pb_syscall_params *p, size_t rep, size_t replicates,
                                 struct pb_syscall_params *out)
{
	size_t reps = replicates ? replicates : 1;
	*out = *p;
	out->budget_s = p->budget_s / (double)reps;
	size_t per = p->max_samples / reps; /* their sum stays within max_samples */
	out->max_samples = per > p->min_samples ? per : p->min_samples;
	out->seed = pb_replicate_seed(p->seed, rep);
}

int pb_syscall_run_replicates(const struct pb_syscall_params *p, size_t replicates,
                              struct pb_syscall_result *out)
{
	size_t reps = replicates ? replicates : 1;
	memset(out, 0, sizeof *out);
	for (size_t rep = 0; rep < reps && !out->interrupted; rep++) {
		struct pb_syscall_params rp;
		struct pb_syscall_result one;
		pb_syscall_replicate_params(p, rep, reps, &rp);
		if (pb_syscall_run(&rp, &one) != 0 ||
		    pb_syscall_result_add_replicate(out, &one) != 0) {
			pb_syscall_result_free(out);
			return -1;
		}
	}
	if (pb_syscall_result_end_replicates(out) != 0) {
		pb_syscall_result_free(out);
		return -1;
	}
	return 0;
}
