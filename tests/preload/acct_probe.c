/* acct_probe.c - known calls under PRIMBENCH_ACCOUNT, then the files
 * checked counter by counter (include/primbench/account.h).
 *
 *   preload_acct_probe run
 *       Under LD_PRELOAD: two threads each make 1000 memsets of 100 bytes
 *       and 10 memcpys of 1 MiB; the main thread then 2 explicit_bzero of
 *       5 bytes and 4 __memcpy_chk of 8 bytes. Then three fork children:
 *       A makes 7 memmoves of 33 bytes and _exits; B 5 bzeros of 4096
 *       bytes and dies by SIGKILL; C 3 mempcpys of 10 bytes and execs
 *       `true`. Prints "PARENT A B C" (their pids).
 *   preload_acct_probe check DIR counts|ticks N PARENT A B C
 *       Without LD_PRELOAD: DIR must hold exactly five files (the parent,
 *       A, B, C before its exec, and `true`), each with the counts above
 *       (every other counter 0), the header fields, and in ticks mode about
 *       one timed call in N per thread.
 *
 * Plain C with -fno-builtin, not linked with libprimbench: every call is
 * a real call, and no other call of a replaced function is made by this
 * program in `run` (checked: the counts must be exact).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "primbench/account.h"

void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);

#define MIB (1u << 20)

struct thread_bufs {
	char *small, *big_src, *big_dst;
};

static void *thread_calls(void *arg)
{
	struct thread_bufs *b = arg;
	for (int i = 0; i < 1000; i++)
		memset(b->small, i, 100);
	for (int i = 0; i < 10; i++)
		memcpy(b->big_dst, b->big_src, MIB);
	return NULL;
}

static int run(void)
{
	static struct thread_bufs bufs[2];
	for (int i = 0; i < 2; i++) {
		bufs[i].small = malloc(128);
		bufs[i].big_src = malloc(MIB);
		bufs[i].big_dst = malloc(MIB);
		if (!bufs[i].small || !bufs[i].big_src || !bufs[i].big_dst)
			return 1;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, thread_calls, &bufs[1]) != 0)
		return 1;
	thread_calls(&bufs[0]);
	pthread_join(t, NULL);
	char x[16], y[16];
	for (int i = 0; i < 2; i++)
		explicit_bzero(x, 5);
	for (int i = 0; i < 4; i++)
		__memcpy_chk(y, x, 8, sizeof y);

	pid_t a = fork();
	if (a == 0) {
		for (int i = 0; i < 7; i++)
			memmove(bufs[0].small + 1, bufs[0].small, 33);
		_exit(0);
	}
	pid_t b = fork();
	if (b == 0) {
		for (int i = 0; i < 5; i++)
			bzero(bufs[0].big_dst, 4096);
		kill(getpid(), SIGKILL);
		_exit(3);
	}
	pid_t c = fork();
	if (c == 0) {
		for (int i = 0; i < 3; i++)
			mempcpy(y, x, 10);
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	int st_a, st_b, st_c;
	waitpid(a, &st_a, 0);
	waitpid(b, &st_b, 0);
	waitpid(c, &st_c, 0);
	if (!WIFEXITED(st_a) || WEXITSTATUS(st_a) != 0 || !WIFSIGNALED(st_b) ||
	    WTERMSIG(st_b) != SIGKILL || !WIFEXITED(st_c) || WEXITSTATUS(st_c) != 0) {
		fprintf(stderr, "acct_probe: a child did not end as planned (%#x %#x %#x)\n", st_a,
		        st_b, st_c);
		return 1;
	}
	printf("%d %d %d %d\n", (int)getpid(), (int)a, (int)b, (int)c);
	return 0;
}

/* ---- check -------------------------------------------------------------- */

static int failures;

#define EXPECT(cond, ...)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL %s: ", name);                                                 \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

struct expect_prim {
	enum pb_acct_prim prim;
	uint64_t calls, size; /* calls of `size` bytes each */
};

static const char *const prim_names[PB_ACCT_NPRIM] = {"memset", "bzero",   "explicit_bzero",
                                                      "memcpy", "mempcpy", "memmove"};

/* Every primitive's counts: those listed exactly, the others 0; `extra`
 * adds calls of another size to one primitive. */
static void expect_counts(const char *name, const struct pb_acct_file *f,
                          const struct expect_prim *e, int ne)
{
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		uint64_t want_calls = 0, want_bytes = 0;
		uint64_t want_bucket[PB_ACCT_BUCKETS] = {0};
		for (int i = 0; i < ne; i++) {
			if ((int)e[i].prim != p)
				continue;
			want_calls += e[i].calls;
			want_bytes += e[i].calls * e[i].size;
			want_bucket[pb_acct_bucket_of(e[i].size)] += e[i].calls;
		}
		const struct pb_acct_prim_counts *c = &f->prim[p];
		EXPECT(c->calls == want_calls, "%s calls %llu, expected %llu", prim_names[p],
		       (unsigned long long)c->calls, (unsigned long long)want_calls);
		EXPECT(c->bytes == want_bytes, "%s bytes %llu, expected %llu", prim_names[p],
		       (unsigned long long)c->bytes, (unsigned long long)want_bytes);
		for (int k = 0; k < PB_ACCT_BUCKETS; k++)
			EXPECT(c->bucket[k].calls == want_bucket[k],
			       "%s bucket %d: %llu calls, expected %llu", prim_names[p], k,
			       (unsigned long long)c->bucket[k].calls,
			       (unsigned long long)want_bucket[k]);
	}
}

static uint64_t sampled(const struct pb_acct_file *f, uint64_t *ticks)
{
	uint64_t n = 0;
	*ticks = 0;
	for (int p = 0; p < PB_ACCT_NPRIM; p++)
		for (int k = 0; k < PB_ACCT_BUCKETS; k++) {
			n += f->prim[p].bucket[k].sampled_calls;
			*ticks += f->prim[p].bucket[k].sampled_ticks;
		}
	return n;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int check(const char *dir, int ticks, unsigned every, pid_t parent, pid_t a, pid_t b,
                 pid_t c)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	static struct pb_acct_file files[8];
	int nf = 0;
	struct dirent *de;
	const char *name = "directory";
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		size_t len = strlen(de->d_name);
		size_t pre = strlen(PB_ACCT_FILE_PREFIX), suf = strlen(PB_ACCT_FILE_SUFFIX);
		EXPECT(len > pre + suf && !strncmp(de->d_name, PB_ACCT_FILE_PREFIX, pre) &&
		           !strcmp(de->d_name + len - suf, PB_ACCT_FILE_SUFFIX),
		       "unexpected file '%s'", de->d_name);
		if (nf == 8) {
			EXPECT(0, "more than 8 files");
			break;
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		int fd = open(path, O_RDONLY);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) != 0) {
			perror(path);
			return 1;
		}
		EXPECT(st.st_size == (off_t)sizeof(struct pb_acct_file), "%s: %lld bytes", path,
		       (long long)st.st_size);
		ssize_t got = read(fd, &files[nf], sizeof files[nf]);
		close(fd);
		EXPECT(got == (ssize_t)sizeof files[nf], "%s: short read", path);
		int pid = 0;
		sscanf(de->d_name, "primswitch-%d-", &pid);
		EXPECT(pid == files[nf].pid, "%s: pid %d in the header", path, files[nf].pid);
		nf++;
	}
	closedir(d);
	EXPECT(nf == 5, "%d files, expected 5", nf);

	int seen = 0;
	for (int i = 0; i < nf; i++) {
		const struct pb_acct_file *f = &files[i];
		const char *exe = base_name(f->exe);
		char label[64];
		snprintf(label, sizeof label, "file of pid %d (%s)", f->pid, exe);
		name = label;
		EXPECT(!memcmp(f->magic, PB_ACCT_MAGIC, 8), "bad magic");
		EXPECT(f->version == PB_ACCT_VERSION, "version %u", f->version);
		EXPECT(f->size_bytes == sizeof *f, "size_bytes %u", f->size_bytes);
		EXPECT(f->ticks == (uint32_t)ticks, "ticks %u", f->ticks);
		EXPECT(f->sample_every == (ticks ? every : 0), "sample_every %u", f->sample_every);
		EXPECT(f->policy_ok == 1, "policy_ok %u", f->policy_ok);
		EXPECT(!strcmp(f->policy[0], "") && !strcmp(f->policy[1], "bytes<=64,libc") &&
		           !strcmp(f->policy[2], ""),
		       "policies '%s' '%s' '%s'", f->policy[0], f->policy[1], f->policy[2]);
		EXPECT(f->started_realtime_ns > 0, "no start time");
		if (ticks)
			EXPECT(f->timer_overhead_ticks > 0, "timer overhead %g",
			       f->timer_overhead_ticks);
		uint64_t sticks, scalls = sampled(f, &sticks);
		uint64_t total = 0;
		for (int p = 0; p < PB_ACCT_NPRIM; p++)
			total += f->prim[p].calls;
		if (!ticks)
			EXPECT(scalls == 0 && sticks == 0, "%llu sampled calls in counts mode",
			       (unsigned long long)scalls);

		if (!strcmp(exe, "true")) {
			EXPECT(f->pid == c && !f->forked, "pid %d forked %u: expected %d, 0",
			       f->pid, f->forked, (int)c);
			seen |= 16;
			continue;
		}
		EXPECT(!strcmp(exe, "preload_acct_probe"), "exe '%s'", f->exe);
		if (f->pid == parent) {
			struct expect_prim e[] = {{PB_ACCT_MEMSET, 2000, 100},
			                          {PB_ACCT_MEMCPY, 20, MIB},
			                          {PB_ACCT_MEMCPY, 4, 8},
			                          {PB_ACCT_EXPLICIT_BZERO, 2, 5}};
			expect_counts(name, f, e, 4);
			EXPECT(!f->forked, "forked %u", f->forked);
			if (ticks) {
				/* Per thread, primitive and size bucket: calls 1, N+1, 2N+1, ...
				 * (1010 in the thread, 1016 in main, few buckets). */
				uint64_t want = 1010 / every + 1016 / every;
				EXPECT(scalls + 2 >= want && scalls <= want + 2,
				       "%llu sampled calls, expected %llu",
				       (unsigned long long)scalls, (unsigned long long)want);
				const struct pb_acct_bucket *big =
				    &f->prim[PB_ACCT_MEMCPY].bucket[pb_acct_bucket_of(MIB)];
				if (big->sampled_calls)
					EXPECT(big->sampled_ticks > 1000 * big->sampled_calls,
					       "1 MiB memcpy: %llu ticks in %llu timed calls",
					       (unsigned long long)big->sampled_ticks,
					       (unsigned long long)big->sampled_calls);
				printf("parent: %llu calls, %llu timed (one in %u per thread)\n",
				       (unsigned long long)total, (unsigned long long)scalls,
				       every);
			}
			seen |= 1;
			continue;
		}
		EXPECT(f->forked == 1 && f->ppid == parent, "forked %u ppid %d (parent %d)",
		       f->forked, f->ppid, (int)parent);
		/* A child's thread goes on from its parent's count: at most one
		 * timed call more than calls / N. */
		if (ticks)
			EXPECT(scalls <= total / every + 1, "%llu sampled of %llu calls",
			       (unsigned long long)scalls, (unsigned long long)total);
		if (f->pid == a) {
			struct expect_prim e[] = {{PB_ACCT_MEMMOVE, 7, 33}};
			expect_counts(name, f, e, 1);
			seen |= 2;
		} else if (f->pid == b) {
			struct expect_prim e[] = {{PB_ACCT_BZERO, 5, 4096}};
			expect_counts(name, f, e, 1);
			seen |= 4;
		} else if (f->pid == c) {
			struct expect_prim e[] = {{PB_ACCT_MEMPCPY, 3, 10}};
			expect_counts(name, f, e, 1);
			seen |= 8;
		} else {
			EXPECT(0, "unexpected pid");
		}
	}
	name = "files";
	EXPECT(seen == 31, "missing: %s%s%s%s%s", seen & 1 ? "" : "parent ",
	       seen & 2 ? "" : "A (_exit) ", seen & 4 ? "" : "B (SIGKILL) ",
	       seen & 8 ? "" : "C (before exec) ", seen & 16 ? "" : "true (after exec)");
	printf("%s: %d files checked, %d failures\n", ticks ? "ticks" : "counts", nf, failures);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "run"))
		return run();
	if (argc == 9 && !strcmp(argv[1], "check"))
		return check(argv[2], !strcmp(argv[3], "ticks"), (unsigned)atoi(argv[4]),
		             atoi(argv[5]), atoi(argv[6]), atoi(argv[7]), atoi(argv[8]));
	fprintf(stderr, "usage: %s run | check DIR counts|ticks N PARENT A B C\n", argv[0]);
	return 2;
}
