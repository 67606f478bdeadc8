/* abi_test.c - checks primbench_kmod.ko's ioctl interface
 * (include/primbench/kmod_abi.h) from user space, inside the test VM.
 *
 * Build (on the host, static so the initramfs needs no C library):
 *   gcc -std=gnu11 -static -O2 -Wall -Iinclude -o abi_test tests/kmod/abi_test.c
 * Run as root with the module loaded:
 *   insmod primbench_kmod.ko [max_request_ms=N]
 *   abi_test            every check; prints one line per check starting
 *                       with PASS, FAIL or SKIP, then a summary line
 *                       "abi_test: N passed, N failed, N skipped"
 *   abi_test --list     INFO only: the limits and one line per variant
 *                       (name, flags, why it is unavailable)
 *   abi_test --etime    also require the ETIME check (else it is SKIPped
 *                       when INFO.max_request_ms > 2000): load the module
 *                       with max_request_ms=1000 for it (not less: under
 *                       TCG a shorter deadline ends the small multi-batch
 *                       requests too, with ETIME, which then FAIL)
 *   abi_test --corrupt N
 *                       with the module loaded with corrupt_variant=N (a
 *                       test-only parameter: variant N's check finds a
 *                       nonzero byte at offset 4032): CHECK of variant N
 *                       gives EIO with bad_offset_bytes 4032 at 4 KiB and
 *                       2 MiB, TIME of it EIO in every mode, and every
 *                       other variant still passes CHECK and TIME; the
 *                       other checks are not run. Without --corrupt, a
 *                       module whose corrupt_variant (in /sys/module) is
 *                       not -1 is a FAIL.
 *   abi_test --dev PATH another device node than /dev/primbench
 * Exit: 0 every check passed (SKIPs allowed), 1 a check failed or the
 * device could not be opened, 2 a usage error.
 * One run takes about 2 s under TCG (-cpu max, 512 MiB; 128 MiB worked
 * too). For the harness: check the kernel log written after insmod only
 * (dmesg -c before it): booting a named CPU model under TCG (-cpu EPYC,
 * Skylake-Server) prints mitigation lines such as "RETBleed: WARNING:" that
 * have nothing to do with the module. TCG emulates neither AVX-512 nor
 * CLZERO, so those variants are unavailable (EOPNOTSUPP) in the VM.
 *
 * What it checks: INFO (abi_version, sizes, names); CHECK of every
 * available variant at 4 KiB and 2 MiB (a 2 MiB page the kernel cannot
 * allocate, ENOMEM, is a SKIP: a small guest's memory may be fragmented);
 * EOPNOTSUPP for every unavailable variant; EINVAL for each bad field;
 * EFAULT for a bad ticks_ptr and a bad struct pointer; ENOTTY for unknown
 * ioctl numbers; TIME of each available variant hot, flushed, with
 * interrupts off and at 2 MiB returns ticks > 0; a long request ends with
 * EINTR when SIGALRM (no SA_RESTART) arrives, with batches_done < batches,
 * in bounded wall time, and SIGKILL ends another process's; EFAULT halfway
 * through a request leaves the module usable; with a short max_request_ms,
 * a long request ends with ETIME. Timings are never judged (they mean nothing under emulation).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <primbench/kmod_abi.h>

static int n_pass, n_fail, n_skip;

/* --corrupt N: the variant the module was told to fail (-1: none). */
static int corrupt = -1;
#define CORRUPT_OFFSET_BYTES 4032
#define CORRUPT_PARAM        "/sys/module/" PB_KMOD_NAME "/parameters/corrupt_variant"

static void report(const char *verdict, int *counter, const char *fmt, va_list ap)
{
	printf("%s ", verdict);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	(*counter)++;
}

static void pass(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("PASS", &n_pass, fmt, ap);
	va_end(ap);
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("FAIL", &n_fail, fmt, ap);
	va_end(ap);
}

static void skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("SKIP", &n_skip, fmt, ap);
	va_end(ap);
}

/* The ioctl's errno, 0 on success. */
static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) == 0 ? 0 : errno;
}

static const char *errname(int e)
{
	switch (e) {
	case 0:
		return "success";
	case EINVAL:
		return "EINVAL";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOMEM:
		return "ENOMEM";
	case EFAULT:
		return "EFAULT";
	case EIO:
		return "EIO";
	case EINTR:
		return "EINTR";
	case ETIME:
		return "ETIME";
	case ENOTTY:
		return "ENOTTY";
	default:
		return strerror(e);
	}
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct pb_kmod_info info;
static uint64_t *ticks; /* info.max_batches of them */

static int available(unsigned v)
{
	return info.variants[v].flags & PB_KVF_AVAILABLE;
}

static void list_info(void)
{
	printf("abi_version %u, module %s, kernel %s, tsc_khz %llu\n", info.abi_version,
	       info.module_version, info.release, (unsigned long long)info.tsc_khz);
	printf("page_bytes %u, huge_page_bytes %u, max_calls_bytes %u, max_batches %u, "
	       "max_request_ms %u\n",
	       info.page_bytes, info.huge_page_bytes, info.max_calls_bytes, info.max_batches,
	       info.max_request_ms);
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const struct pb_kmod_variant_info *vi = &info.variants[v];
		printf("variant %2u %-14s %-11s%s%s%s%s%s\n", v, vi->name,
		       (vi->flags & PB_KVF_AVAILABLE) ? "available" : "unavailable",
		       (vi->flags & PB_KVF_KERNEL) ? " kernel" : "",
		       (vi->flags & PB_KVF_FPU) ? " fpu" : "", (vi->flags & PB_KVF_NT) ? " nt" : "",
		       vi->why[0] ? ": " : "", vi->why);
	}
}

static void check_info(int fd)
{
	int e = xioctl(fd, PB_KMOD_IOC_INFO, &info);
	if (e) {
		fail("info: PB_KMOD_IOC_INFO: %s", errname(e));
		return;
	}
	if (info.abi_version != PB_KMOD_ABI_VERSION)
		fail("info: abi_version %u, this test knows %u", info.abi_version,
		     PB_KMOD_ABI_VERSION);
	else
		pass("info: abi_version %u", info.abi_version);
	if (info.n_variants < 1 || info.n_variants > PB_KMOD_MAX_VARIANTS ||
	    info.page_bytes != 4096 || info.huge_page_bytes != 2097152 ||
	    info.max_calls_bytes < info.huge_page_bytes || info.max_batches < 1 ||
	    info.max_request_ms < 1)
		fail("info: n_variants %u page_bytes %u huge_page_bytes %u max_calls_bytes %u "
		     "max_batches %u max_request_ms %u out of range",
		     info.n_variants, info.page_bytes, info.huge_page_bytes, info.max_calls_bytes,
		     info.max_batches, info.max_request_ms);
	else
		pass("info: n_variants %u, limits in range", info.n_variants);
	int names_ok = 1;
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const struct pb_kmod_variant_info *vi = &info.variants[v];
		int avail = vi->flags & PB_KVF_AVAILABLE;
		if (!memchr(vi->name, 0, sizeof(vi->name)) || !vi->name[0] ||
		    !memchr(vi->why, 0, sizeof(vi->why)) || (avail && vi->why[0]) ||
		    (!avail && !vi->why[0])) {
			fail("info: variant %u: name or why malformed", v);
			names_ok = 0;
		}
	}
	if (names_ok)
		pass("info: every variant has a name, and a why exactly when unavailable");
	if (!memchr(info.release, 0, sizeof(info.release)) ||
	    !memchr(info.module_version, 0, sizeof(info.module_version)) || !info.module_version[0])
		fail("info: release or module_version not NUL-terminated");
	else
		pass("info: release '%s', module_version '%s'", info.release, info.module_version);
	e = xioctl(fd, PB_KMOD_IOC_INFO, NULL);
	if (e == EFAULT)
		pass("info: NULL struct pointer gives EFAULT");
	else
		fail("info: NULL struct pointer gives %s, not EFAULT", errname(e));
}

static void check_variants(int fd)
{
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const char *name = info.variants[v].name;
		for (unsigned order = 0; order <= 9; order += 9) {
			struct pb_kmod_check c = {.variant = v, .page_order = order};
			int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
			const char *sz = order ? "2 MiB" : "4 KiB";
			if ((int)v == corrupt) {
				if (e == EIO && c.bad_offset_bytes == CORRUPT_OFFSET_BYTES)
					pass("check %s %s: corrupt_variant: EIO, bad_offset_bytes "
					     "%d",
					     name, sz, CORRUPT_OFFSET_BYTES);
				else if (e == ENOMEM && order)
					skip("check %s %s: corrupt_variant: ENOMEM for a 2 MiB "
					     "page (not a failure)",
					     name, sz);
				else
					fail("check %s %s: corrupt_variant: %s, bad_offset_bytes "
					     "%lld, want EIO and %d",
					     name, sz, errname(e), (long long)c.bad_offset_bytes,
					     CORRUPT_OFFSET_BYTES);
			} else if (!available(v)) {
				if (e == EOPNOTSUPP)
					pass("check %s %s: unavailable (%s), EOPNOTSUPP", name, sz,
					     info.variants[v].why);
				else
					fail("check %s %s: unavailable but CHECK gives %s", name,
					     sz, errname(e));
			} else if (e == 0 && c.bad_offset_bytes == -1) {
				pass("check %s %s: correct", name, sz);
			} else if (e == ENOMEM && order) {
				skip("check %s %s: the kernel could not allocate a 2 MiB page "
				     "(ENOMEM; "
				     "not a failure)",
				     name, sz);
			} else {
				fail("check %s %s: %s, bad_offset_bytes %lld", name, sz, errname(e),
				     (long long)c.bad_offset_bytes);
			}
		}
	}
}

static struct pb_kmod_time time_req(unsigned v, unsigned order, unsigned state, unsigned calls,
                                    unsigned batches, unsigned flags)
{
	struct pb_kmod_time t = {.variant = v,
	                         .page_order = order,
	                         .state = state,
	                         .calls = calls,
	                         .batches = batches,
	                         .flags = flags,
	                         .ticks_ptr = (uintptr_t)ticks};
	return t;
}

/* One small TIME per available variant and mode: it must succeed with
 * every batch written and ticks > 0; an unavailable one gives EOPNOTSUPP. */
static void check_time_variants(int fd)
{
	static const struct {
		unsigned order, state, calls, batches, flags;
		const char *what;
	} modes[] = {
	    {0, PB_KS_HOT, 1, 1, 0, "4 KiB hot 1x1"},
	    {0, PB_KS_HOT, 8, 3, 0, "4 KiB hot 3x8"},
	    {0, PB_KS_HOT, 8, 3, PB_KT_IRQS_OFF, "4 KiB hot irqs-off 3x8"},
	    {0, PB_KS_FLUSHED, 16, 2, 0, "4 KiB flushed 2x16"},
	    {0, PB_KS_FLUSHED, 16, 2, PB_KT_IRQS_OFF, "4 KiB flushed irqs-off 2x16"},
	    {9, PB_KS_HOT, 1, 2, 0, "2 MiB hot 2x1"},
	    {9, PB_KS_FLUSHED, 2, 1, PB_KT_IRQS_OFF, "2 MiB flushed irqs-off 1x2"},
	};
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const char *name = info.variants[v].name;
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			struct pb_kmod_time t =
			    time_req(v, modes[m].order, modes[m].state, modes[m].calls,
			             modes[m].batches, modes[m].flags);
			memset(ticks, 0, info.max_batches * sizeof(*ticks));
			int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
			if ((int)v == corrupt) {
				if (e == EIO)
					pass("time %s %s: corrupt_variant: EIO", name,
					     modes[m].what);
				else if (e == ENOMEM && modes[m].order)
					skip("time %s %s: corrupt_variant: ENOMEM for 2 MiB pages "
					     "(not a failure)",
					     name, modes[m].what);
				else
					fail("time %s %s: corrupt_variant: %s, want EIO", name,
					     modes[m].what, errname(e));
				continue;
			}
			if (!available(v)) {
				if (e == EOPNOTSUPP)
					pass("time %s %s: unavailable, EOPNOTSUPP", name,
					     modes[m].what);
				else
					fail("time %s %s: unavailable but TIME gives %s", name,
					     modes[m].what, errname(e));
				continue;
			}
			if (e == ENOMEM && modes[m].order) {
				skip("time %s %s: ENOMEM for 2 MiB pages (not a failure)", name,
				     modes[m].what);
				continue;
			}
			if (e) {
				fail("time %s %s: %s", name, modes[m].what, errname(e));
				continue;
			}
			int ok = t.batches_done == t.batches && t.cpu_changed <= 1;
			for (unsigned b = 0; b < t.batches; b++)
				ok = ok && ticks[b] > 0;
			if (ok)
				pass("time %s %s: %u batches, ticks[0] %llu, overhead_ticks %llu, "
				     "cpu %u "
				     "(emulated timings mean nothing)",
				     name, modes[m].what, t.batches_done,
				     (unsigned long long)ticks[0],
				     (unsigned long long)t.overhead_ticks, t.cpu);
			else
				fail("time %s %s: batches_done %u of %u, ticks[0] %llu", name,
				     modes[m].what, t.batches_done, t.batches,
				     (unsigned long long)ticks[0]);
		}
	}
}

/* The first available module variant (not the kernel's), for the error
 * checks; rep_stosb runs on every x86-64. */
static unsigned any_variant(void)
{
	if (available(PB_KV_REP_STOSB))
		return PB_KV_REP_STOSB;
	for (unsigned v = 0; v < info.n_variants; v++)
		if (available(v))
			return v;
	return 0;
}

static void expect(int fd, const char *what, struct pb_kmod_time t, int want)
{
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	if (e == want)
		pass("bad request %s: %s", what, errname(e));
	else
		fail("bad request %s: %s, want %s", what, errname(e), errname(want));
}

static void check_bad_requests(int fd)
{
	unsigned v = any_variant();
	unsigned max_calls_4k = info.max_calls_bytes >> 12;
	unsigned max_calls_2m = info.max_calls_bytes >> 21;
	struct pb_kmod_time t;

	t = time_req(info.n_variants, 0, PB_KS_HOT, 1, 1, 0);
	expect(fd, "variant n_variants", t, EINVAL);
	t = time_req(0xffffffffu, 0, PB_KS_HOT, 1, 1, 0);
	expect(fd, "variant 0xffffffff", t, EINVAL);
	t = time_req(v, 1, PB_KS_HOT, 1, 1, 0);
	expect(fd, "page_order 1", t, EINVAL);
	t = time_req(v, 12, PB_KS_HOT, 1, 1, 0);
	expect(fd, "page_order 12", t, EINVAL);
	t = time_req(v, 0, 7, 1, 1, 0);
	expect(fd, "state 7", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 0, 1, 0);
	expect(fd, "calls 0", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, max_calls_4k + 1, 1, 0);
	expect(fd, "calls max_calls_bytes/4096+1", t, EINVAL);
	t = time_req(v, 9, PB_KS_HOT, max_calls_2m + 1, 1, 0);
	expect(fd, "calls max_calls_bytes/2MiB+1 at 2 MiB", t, EINVAL);
	t = time_req(v, 9, PB_KS_HOT, 0x80000000u, 1, 0);
	expect(fd, "calls 2^31 at 2 MiB (shift overflow)", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, 0, 0);
	expect(fd, "batches 0", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, info.max_batches + 1, 0);
	expect(fd, "batches max_batches+1", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0x2);
	expect(fd, "flags 0x2", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0x80000000u);
	expect(fd, "flags 0x80000000", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
	t.reserved = 1;
	expect(fd, "reserved 1", t, EINVAL);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
	t.ticks_ptr = 16;
	expect(fd, "ticks_ptr 16 (unmapped)", t, EFAULT);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
	t.ticks_ptr = 0xffff800000000000ull;
	expect(fd, "ticks_ptr in kernel space", t, EFAULT);
	t = time_req(v, 0, PB_KS_HOT, 1, 4, 0);
	t.ticks_ptr = (uintptr_t)-16;
	expect(fd, "ticks_ptr wrapping", t, EFAULT);

	struct pb_kmod_check c = {.variant = info.n_variants, .page_order = 0};
	int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
	(e == EINVAL ? pass : fail)("bad check variant n_variants: %s", errname(e));
	c = (struct pb_kmod_check){.variant = v, .page_order = 3};
	e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
	(e == EINVAL ? pass : fail)("bad check page_order 3: %s", errname(e));
	e = xioctl(fd, PB_KMOD_IOC_CHECK, (void *)16);
	(e == EFAULT ? pass : fail)("bad check struct pointer 16: %s", errname(e));
	e = xioctl(fd, PB_KMOD_IOC_TIME, (void *)16);
	(e == EFAULT ? pass : fail)("bad time struct pointer 16: %s", errname(e));

	e = xioctl(fd, _IOR(PB_KMOD_IOC_MAGIC, 4, struct pb_kmod_info), &info);
	(e == ENOTTY ? pass : fail)("unknown ioctl nr 4: %s", errname(e));
	e = xioctl(fd, _IOWR(PB_KMOD_IOC_MAGIC, 3, uint64_t), ticks);
	(e == ENOTTY ? pass : fail)("TIME's nr with a wrong size: %s", errname(e));
	e = xioctl(fd, _IO('T', 1), NULL);
	(e == ENOTTY ? pass : fail)("foreign ioctl _IO('T', 1): %s", errname(e));
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A request that runs for seconds: every batch, 16 MiB of distinct pages
 * flushed then cleared. */
static struct pb_kmod_time long_req(void)
{
	unsigned v = any_variant();
	return time_req(v, 0, PB_KS_FLUSHED, info.max_calls_bytes >> 12, info.max_batches, 0);
}

static void check_long(int fd, const char *what, int want, double budget_ms)
{
	struct pb_kmod_time t = long_req();
	double t0 = now_ms();
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	double wall_ms = now_ms() - t0;
	int ok = e == want && t.batches_done < t.batches && wall_ms < budget_ms;
	for (unsigned b = 0; ok && b < t.batches_done; b++)
		ok = ticks[b] > 0;
	(ok ? pass : fail)("%s: %s after %u of %u batches in %.0f ms (bound %.0f ms)", what,
	                   errname(e), t.batches_done, t.batches, wall_ms, budget_ms);
}

static void check_eintr(int fd)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: the ioctl must return EINTR */
	sigaction(SIGALRM, &sa, NULL);
	/* The deadline must not come first: EINTR is only distinguishable when
	 * the signal arrives well before max_request_ms. */
	if (info.max_request_ms <= 400) {
		skip("eintr: max_request_ms %u too short to tell EINTR from ETIME",
		     info.max_request_ms);
		return;
	}
	struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 200000}};
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	check_long(fd, "eintr: SIGALRM at 200 ms ends a long request", EINTR,
	           200.0 + info.max_request_ms);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
}

/* A request whose ticks buffer ends after its first entry (the next page
 * unmapped) fails with EFAULT after one batch; the module must then have
 * freed its pages and released its lock: a small request still works. */
static void check_efault_midway(int fd)
{
	long page_bytes = sysconf(_SC_PAGESIZE);
	uint8_t *map =
	    mmap(NULL, 2 * page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fail("efault midway: mmap: %s", strerror(errno));
		return;
	}
	munmap(map + page_bytes, page_bytes);
	struct pb_kmod_time t = time_req(any_variant(), 0, PB_KS_HOT, 4, 3, 0);
	t.ticks_ptr = (uintptr_t)(map + page_bytes - sizeof(uint64_t));
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	uint64_t first = *(uint64_t *)(map + page_bytes - sizeof(uint64_t));
	(e == EFAULT && first > 0 ? pass : fail)(
	    "efault midway: ticks_ptr's 2nd entry unmapped: %s, 1st entry %llu", errname(e),
	    (unsigned long long)first);
	munmap(map, page_bytes);
	t = time_req(any_variant(), 0, PB_KS_HOT, 4, 3, 0);
	e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	(e == 0 ? pass : fail)("efault midway: the next request works: %s", errname(e));
}

/* SIGKILL ends a long request of another process (a fatal signal is a
 * pending signal too); the module's lock is free afterwards. */
static void check_kill(int fd)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0) {
		fail("kill: fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		struct pb_kmod_time t = long_req();
		xioctl(fd, PB_KMOD_IOC_TIME, &t);
		_exit(0);
	}
	usleep(300000);
	/* The child holds the lock now: a CHECK from here waits for it, so
	 * INFO (lock-free) is what must answer at once. */
	struct pb_kmod_info i2;
	int e = xioctl(fd, PB_KMOD_IOC_INFO, &i2);
	(e == 0 ? pass : fail)("kill: INFO during another process's request: %s", errname(e));
	kill(pid, SIGKILL);
	int status = 0;
	waitpid(pid, &status, 0);
	double wall_ms = now_ms() - t0;
	double bound_ms = 300.0 + info.max_request_ms + 2000.0; /* + a batch, emulated */
	(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && wall_ms < bound_ms ? pass : fail)(
	    "kill: SIGKILL ends another process's long request in %.0f ms (bound %.0f ms)", wall_ms,
	    bound_ms);
	struct pb_kmod_time t = time_req(any_variant(), 0, PB_KS_HOT, 1, 1, 0);
	e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	(e == 0 ? pass : fail)("kill: a request after it works: %s", errname(e));
}

static void check_etime(int fd, int required)
{
	if (info.max_request_ms > 2000) {
		(required ? fail : skip)("etime: max_request_ms %u; load the module with "
		                         "max_request_ms=1000 to check ETIME",
		                         info.max_request_ms);
		return;
	}
	/* A batch is at most 16 MiB: well under 2 s even emulated. */
	check_long(fd, "etime: max_request_ms ends a long request", ETIME,
	           info.max_request_ms + 5000.0);
}

/* The module's corrupt_variant parameter, -1 when it is off or the module
 * has none (an older one). */
static int module_corrupt_variant(void)
{
	FILE *f = fopen(CORRUPT_PARAM, "r");
	int value = -1;
	if (!f)
		return -1;
	if (fscanf(f, "%d", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* --corrupt N: the parameter matches, variant N is available, and then
 * CHECK and TIME of every variant (N's expectations in check_variants and
 * check_time_variants). */
static void check_corrupt(int fd)
{
	int param = module_corrupt_variant();
	if (param != corrupt) {
		fail("corrupt: %s is %d, not %d: load the module with corrupt_variant=%d",
		     CORRUPT_PARAM, param, corrupt, corrupt);
		return;
	}
	if ((unsigned)corrupt >= info.n_variants || !available((unsigned)corrupt)) {
		fail("corrupt: variant %d is not an available variant here: choose one that "
		     "is (abi_test --list)",
		     corrupt);
		return;
	}
	pass("corrupt: the module's corrupt_variant is %d (%s)", corrupt,
	     info.variants[corrupt].name);
	check_variants(fd);
	check_time_variants(fd);
}

int main(int argc, char **argv)
{
	const char *dev = PB_KMOD_DEVICE;
	int list = 0, etime = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (!strcmp(argv[i], "--etime"))
			etime = 1;
		else if (!strcmp(argv[i], "--dev") && i + 1 < argc)
			dev = argv[++i];
		else if (!strcmp(argv[i], "--corrupt") && i + 1 < argc) {
			char *end;
			long n = strtol(argv[++i], &end, 10);
			if (*argv[i] == '\0' || *end != '\0' || n < 0 ||
			    n >= PB_KMOD_MAX_VARIANTS) {
				fprintf(stderr,
				        "abi_test: --corrupt wants a variant number 0..%d, not "
				        "'%s'\n",
				        PB_KMOD_MAX_VARIANTS - 1, argv[i]);
				return 2;
			}
			corrupt = (int)n;
		} else {
			fprintf(stderr,
			        "abi_test: unknown argument '%s' (usage: abi_test [--list] "
			        "[--etime] [--corrupt N] [--dev PATH])\n",
			        argv[i]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("FAIL open %s: %s (is primbench_kmod loaded? run as root)\n", dev,
		       strerror(errno));
		return 1;
	}
	if (list) {
		int e = xioctl(fd, PB_KMOD_IOC_INFO, &info);
		if (e) {
			printf("FAIL info: %s\n", errname(e));
			return 1;
		}
		list_info();
		return 0;
	}
	check_info(fd);
	if (n_fail) {
		printf("abi_test: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
		return 1;
	}
	ticks = calloc(info.max_batches, sizeof(*ticks));
	if (!ticks) {
		printf("FAIL calloc of %u ticks\n", info.max_batches);
		return 1;
	}
	list_info();
	if (corrupt >= 0) {
		check_corrupt(fd);
		close(fd);
		printf("abi_test: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
		return n_fail ? 1 : 0;
	}
	if (module_corrupt_variant() >= 0) {
		fail("the module was loaded with corrupt_variant=%d (a test): run abi_test "
		     "--corrupt %d, or load it without",
		     module_corrupt_variant(), module_corrupt_variant());
		close(fd);
		printf("abi_test: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
		return 1;
	}
	check_variants(fd);
	check_bad_requests(fd);
	check_time_variants(fd);
	check_efault_midway(fd);
	check_eintr(fd);
	check_kill(fd);
	check_etime(fd, etime);
	close(fd);
	printf("abi_test: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}
