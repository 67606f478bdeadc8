/* syscall_util.c - the syscall suite's helpers: names and selection, CPU
 * checks and pinning, the smaps parser, where the tiny exec targets are,
 * and the plumbing checks the tests run (include/primbench/syscall.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/io.h"
#include "primbench/memory.h"
#include "primbench/pages.h"
#include "primbench/syscall.h"

static const char *const descs[PB_SC_COUNT] = {
    "syscall(SYS_getppid)",
    "umask(set) + umask(restore)",
    "syscall(SYS_getpid)",
    "read of 1 byte from /dev/zero",
    "write of 1 byte to /dev/null",
    "write + read of 1 byte through a pipe, one process",
    "1-byte round trip between two processes",
    "fork + child _exit(0) + waitpid",
    "fork + child _exit(0) + waitpid, by a small static helper process",
    "fork + execve(static tiny program) + waitpid",
    "fork + execve(dynamic tiny program) + waitpid",
    "posix_spawn(dynamic tiny program) + waitpid",
    "first write to a fresh anonymous page",
    "mmap + munmap of 1 page (not touched)",
    "mmap(MAP_POPULATE), per 4 KiB page",
};

const char *pb_syscall_bench_desc(enum pb_sc_bench b)
{
	return b < PB_SC_COUNT ? descs[b] : "?";
}

int pb_syscall_select(const char *const *want, size_t n, bool sel[PB_SC_COUNT])
{
	for (int b = 0; b < PB_SC_COUNT; b++)
		sel[b] = n == 0;
	for (size_t i = 0; i < n; i++) {
		int found = -1;
		for (int b = 0; b < PB_SC_COUNT && found < 0; b++)
			if (!strcmp(want[i], pb_syscall_bench_name((enum pb_sc_bench)b)))
				found = b;
		if (found < 0) {
			char known[256] = "";
			for (int b = 0; b < PB_SC_COUNT; b++) {
				size_t used = strlen(known);
				snprintf(known + used, sizeof known - used, "%s%s", b ? ", " : "",
				         pb_syscall_bench_name((enum pb_sc_bench)b));
			}
			return pb_fail("unknown benchmark '%s' (known: %s)", want[i], known);
		}
		sel[found] = true;
	}
	return 0;
}

/* Whether cpu is in a Linux CPU list ("0-3,5,7-8"). */
static bool in_cpu_list(const char *text, long cpu)
{
	const char *p = text;
	while (*p) {
		char *end;
		long lo = strtol(p, &end, 10), hi;
		if (end == p)
			return false;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1)
				return false;
			p = end;
		}
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*p != ',')
			break;
		p++;
	}
	return false;
}

/* cpus[0..n) (ascending) as "0-2,5". */
static void format_cpu_list(const int *cpus, size_t n, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		size_t used = strlen(buf);
		if (j > i)
			snprintf(buf + used, len - used, "%s%d-%d", i ? "," : "", cpus[i], cpus[j]);
		else
			snprintf(buf + used, len - used, "%s%d", i ? "," : "", cpus[i]);
		i = j + 1;
	}
}

size_t pb_syscall_allowed_cpus(int *cpus, size_t cap)
{
	cpu_set_t set;
	size_t n = 0;
	if (sched_getaffinity(0, sizeof set, &set) != 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < cap; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int pb_syscall_parse_cpu(const char *arg, const char *online_text)
{
	char *end;
	errno = 0;
	long cpu = strtol(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' || cpu >= CPU_SETSIZE)
		return pb_fail("bad --cpu '%s' (a CPU number, e.g. 0)", arg);
	char online[256] = "";
	if (online_text) {
		snprintf(online, sizeof online, "%s", online_text);
		online[strcspn(online, "\n")] = '\0';
	} else {
		pb_read_line("/sys/devices/system/cpu/online", online, sizeof online);
	}
	if (online[0] && !in_cpu_list(online, cpu))
		return pb_fail("--cpu %ld: no such CPU (online: %s)", cpu, online);
	int cpus[CPU_SETSIZE];
	size_t n = pb_syscall_allowed_cpus(cpus, CPU_SETSIZE);
	bool allowed = n == 0; /* unknown: let pinning decide */
	for (size_t i = 0; i < n; i++)
		allowed |= cpus[i] == cpu;
	if (!allowed) {
		char list[256];
		format_cpu_list(cpus, n, list, sizeof list);
		if (!online[0])
			return pb_fail("--cpu %ld: no such CPU (allowed: %s)", cpu, list);
		return pb_fail("--cpu %ld: not allowed for this process (allowed: %s)", cpu, list);
	}
	return (int)cpu;
}

int pb_syscall_pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0)
		return pb_fail("cannot pin to CPU %d: %s", cpu, strerror(errno));
	return 0;
}

#ifndef PB_TOOLS_DIR
#define PB_TOOLS_DIR ""
#endif
/* Where `make install` puts the tiny programs, relative to the installed
 * executable's directory (cmake/install.cmake: bindir to
 * libexecdir/primbench). */
#ifndef PB_TOOLS_INSTALL_REL
#define PB_TOOLS_INSTALL_REL "../libexec/primbench"
#endif

int pb_syscall_tool_path(bool static_link, char *buf, size_t len)
{
	return pb_syscall_tool_path_named(
	    static_link ? "primbench-exit0-static" : "primbench-exit0-dynamic", buf, len);
}

int pb_syscall_tool_path_named(const char *base, char *buf, size_t len)
{
	char dirs[5][4096];
	size_t nd = 0;
	const char *env = getenv("PRIMBENCH_TOOLS_DIR");
	if (env && *env)
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s", env);
	/* Next to the executable first (build/tools, or an install's
	 * libexec), the build directory compiled in last: an installed
	 * primbench uses its installed programs even while its build tree
	 * exists. */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *d = dirname(exe);
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s/tools", d);
		snprintf(dirs[nd++], sizeof dirs[0], "%.3000s/%.1000s", d, PB_TOOLS_INSTALL_REL);
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s/../tools", d);
	}
	if (PB_TOOLS_DIR[0])
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s", PB_TOOLS_DIR);
	/* The directories tried, for the message (pb_fail keeps its first
	 * 511 bytes): a list cut here ends in "...". */
	char tried[1024] = "";
	bool cut = false;
	for (size_t i = 0; i < nd; i++) {
		int w = snprintf(buf, len, "%s/%s", dirs[i], base);
		/* A path cut to fit buf is not the program's. */
		if (w >= 0 && (size_t)w < len && access(buf, X_OK) == 0)
			return 0;
		size_t used = strlen(tried);
		if (cut)
			continue;
		w = snprintf(tried + used, sizeof tried - used, "%s%s", i ? ", " : "", dirs[i]);
		if (w < 0 || (size_t)w >= sizeof tried - used) {
			cut = true;
			memcpy(tried + sizeof tried - 4, "...", 4);
		}
	}
	buf[0] = '\0';
	return pb_fail("helper program '%s' not found (looked in %s; set PRIMBENCH_TOOLS_DIR)",
	               base, tried);
}

int pb_proc_size(pid_t pid, uint64_t *rss_bytes, uint64_t *vm_bytes, uint64_t *mappings)
{
	char path[64], line[256];
	snprintf(path, sizeof path, pid ? "/proc/%d/status" : "/proc/self/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long rss = 0, vm = 0, maps = 0;
	while (fgets(line, sizeof line, f)) {
		sscanf(line, "VmRSS: %llu kB", &rss);
		sscanf(line, "VmSize: %llu kB", &vm);
	}
	fclose(f);
	snprintf(path, sizeof path, pid ? "/proc/%d/maps" : "/proc/self/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	int ch;
	while ((ch = getc(f)) != EOF)
		maps += ch == '\n';
	fclose(f);
	*rss_bytes = rss << 10;
	*vm_bytes = vm << 10;
	*mappings = maps;
	return rss && vm && maps ? 0 : -1;
}

/* ---- plumbing checks (tests) ---------------------------------------- */

static int wait_child(pid_t pid)
{
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return pb_fail("waitpid: %s", strerror(errno));
	return st;
}

int pb_syscall_check_fork(int code)
{
	pid_t pid = fork();
	if (pid < 0)
		return pb_fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(code);
	return wait_child(pid);
}

int pb_syscall_check_exec(const char *path, bool spawn)
{
	char *argv[] = {(char *)path, NULL};
	char *envp[] = {NULL};
	pid_t pid;
	if (spawn) {
		int e = posix_spawn(&pid, path, NULL, NULL, argv, envp);
		if (e)
			return pb_fail("posix_spawn '%s': %s", path, strerror(e));
		return wait_child(pid);
	}
	pid = fork();
	if (pid < 0)
		return pb_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		execve(path, argv, envp);
		_exit(127);
	}
	return wait_child(pid);
}

int pb_syscall_check_fault(size_t pages, bool huge, uint64_t *touched, uint64_t *thp)
{
	size_t page = huge ? PB_PAGE_2M : PB_PAGE_BYTES, bytes = pages * page;
	uint8_t *p = pb_map(bytes, huge, true);
	if (!p)
		return -1;
	if (!huge)
		madvise(p, bytes, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < pages; i++)
		((volatile uint8_t *)p)[i * page] = 1;
	*thp = pb_thp_bytes_at(p);
	uint64_t sum = 0;
	for (size_t i = 0; i < pages; i++)
		sum += p[i * page];
	*touched = sum;
	pb_unmap(p, bytes);
	return 0;
}
