/* abi_test.c - checks primbench_kmod.ko's ioctl interface
 * (include/primbench/kmod_abi.h, ABI v2) from user space, inside the test
 * VM.
 *
 * Build (on the host, static so the initramfs needs no C library):
 *   gcc -std=gnu11 -static -O2 -Wall -Iinclude -o abi_test tests/kmod/abi_test.c
 * Run as root with the module loaded:
 *   insmod primbench_kmod.ko [max_request_ms=N]
 *   abi_test            every check; prints one line per check starting
 *                       with PASS, FAIL or SKIP, then a summary line
 *                       "abi_test: N passed, N failed, N skipped"
 *   abi_test --list     INFO only: the limits and one line per variant
 *                       ("variant NN OP NAME available|unavailable
 *                       [flags][: why]"; tests/kmod/check.py reads them)
 *   abi_test --etime    also require the ETIME checks (else they are
 *                       SKIPped when INFO.max_request_ms > 2000): load the
 *                       module with max_request_ms=1000 for them (not less:
 *                       under TCG a shorter deadline ends the small
 *                       multi-batch requests too, with ETIME, which then
 *                       FAIL)
 *   abi_test --corrupt N
 *                       with the module loaded with corrupt_variant=N (a
 *                       test-only parameter: variant N's check finds a
 *                       wrong byte at offset 4032, or at the last byte of
 *                       a shorter user_copy region): CHECK of variant N
 *                       gives EIO with that bad_offset_bytes (clear_page
 *                       and copy_page at 4 KiB and 2 MiB, user_copy at
 *                       every size), TIME of a clear_page or copy_page N
 *                       EIO in every mode, and every other variant still
 *                       passes CHECK and TIME; the other checks are not
 *                       run. N must be an available clear_page, copy_page
 *                       or user_copy variant (fpu's CHECK compares
 *                       nothing). Without --corrupt, a module whose
 *                       corrupt_variant (in /sys/module) is not -1 is a
 *                       FAIL.
 *   abi_test --dev PATH another device node than /dev/primbench
 * Exit: 0 every check passed (SKIPs allowed), 1 a check failed or the
 * device could not be opened, 2 a usage error.
 * One run takes about 5 s under TCG (-cpu max, 1 GiB). For the harness:
 * check the kernel log written after insmod only (dmesg -c before it):
 * booting a named CPU model under TCG (-cpu EPYC, Skylake-Server) prints
 * mitigation lines such as "RETBleed: WARNING:" that have nothing to do
 * with the module. TCG emulates neither AVX-512 nor CLZERO, so those
 * variants are unavailable (EOPNOTSUPP) in the VM.
 *
 * What it checks: INFO (abi_version, sizes, the 33 variants' numbers, ops
 * and names, unique within an op, max_user_bytes); CHECK of every
 * available clear_page and copy_page variant at 4 KiB and 2 MiB (a 2 MiB
 * page the kernel cannot allocate, ENOMEM, is a SKIP: a small guest's
 * memory may be fragmented), of every fpu variant, and of every user_copy
 * variant at 1, 63, 64, 4095, 4096, 4097, 65536 and 1 MiB bytes on a
 * page-aligned and a misaligned user_ptr; EOPNOTSUPP for every
 * unavailable variant; EINVAL for each bad field, the op's own rules
 * included (TIME of a CALL variant, CALL of another); EFAULT for a bad
 * ticks_ptr, a bad struct pointer, a user_copy to a read-only mapping and
 * from an unmapped one; ENOTTY for unknown ioctl numbers; TIME of each
 * available variant (clear_page, copy_page: hot, flushed, with interrupts
 * off and at 2 MiB; fpu: hot, with interrupts off; user_copy: hot and
 * flushed at a few sizes, aligned and not, with interrupts off) returns
 * ticks > 0; CALL of ioctl_null and ioctl_fpu many times; the task's
 * vector registers (xmm0-15, and ymm0-15 whole where the CPU has AVX) the
 * same after every request that runs kernel_fpu_begin(); a long clear_page,
 * copy_page and user_copy request ends with EINTR when SIGALRM (no
 * SA_RESTART) arrives, with batches_done < batches, in bounded wall time,
 * and SIGKILL ends another process's; EFAULT halfway through a request
 * leaves the module usable; with a short max_request_ms, a long clear_page
 * and copy_page request ends with ETIME. Timings are never judged (they
 * mean nothing under emulation).
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

static const char *op_name(unsigned op)
{
	static const char *const names[] = {"clear_page", "copy_page", "fpu", "user_copy"};
	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

static unsigned op_of(unsigned v)
{
	return info.variants[v].op;
}

/* "copy_page/sse2": a variant's op and name (names repeat across ops). */
static const char *label(unsigned v)
{
	static char buf[4][64];
	static int next;
	char *b = buf[next++ & 3];
	snprintf(b, sizeof(buf[0]), "%s/%s", op_name(op_of(v)), info.variants[v].name);
	return b;
}

static int is_pages(unsigned v)
{
	return op_of(v) == PB_KOP_CLEAR_PAGE || op_of(v) == PB_KOP_COPY_PAGE;
}

/* kmod_abi.h's numbering: each variant's op and name. */
static const struct {
	unsigned op;
	const char *name;
} expected[PB_KV_COUNT] = {
    [PB_KV_KERNEL] = {PB_KOP_CLEAR_PAGE, "kernel"},
    [PB_KV_KERNEL_ORIG] = {PB_KOP_CLEAR_PAGE, "kernel_orig"},
    [PB_KV_KERNEL_REP] = {PB_KOP_CLEAR_PAGE, "kernel_rep"},
    [PB_KV_KERNEL_ERMS] = {PB_KOP_CLEAR_PAGE, "kernel_erms"},
    [PB_KV_REP_STOSB] = {PB_KOP_CLEAR_PAGE, "rep_stosb"},
    [PB_KV_REP_STOSQ] = {PB_KOP_CLEAR_PAGE, "rep_stosq"},
    [PB_KV_GPR_UNROLLED] = {PB_KOP_CLEAR_PAGE, "gpr_unrolled"},
    [PB_KV_MOVNTI] = {PB_KOP_CLEAR_PAGE, "movnti"},
    [PB_KV_SSE2] = {PB_KOP_CLEAR_PAGE, "sse2"},
    [PB_KV_SSE2_NT] = {PB_KOP_CLEAR_PAGE, "sse2_nt"},
    [PB_KV_AVX2] = {PB_KOP_CLEAR_PAGE, "avx2"},
    [PB_KV_AVX2_NT] = {PB_KOP_CLEAR_PAGE, "avx2_nt"},
    [PB_KV_AVX512] = {PB_KOP_CLEAR_PAGE, "avx512"},
    [PB_KV_AVX512_NT] = {PB_KOP_CLEAR_PAGE, "avx512_nt"},
    [PB_KV_CLZERO] = {PB_KOP_CLEAR_PAGE, "clzero"},
    [PB_KV_COPY_KERNEL] = {PB_KOP_COPY_PAGE, "kernel"},
    [PB_KV_COPY_REP_MOVSB] = {PB_KOP_COPY_PAGE, "rep_movsb"},
    [PB_KV_COPY_REP_MOVSQ] = {PB_KOP_COPY_PAGE, "rep_movsq"},
    [PB_KV_COPY_GPR_UNROLLED] = {PB_KOP_COPY_PAGE, "gpr_unrolled"},
    [PB_KV_COPY_MOVNTI] = {PB_KOP_COPY_PAGE, "movnti"},
    [PB_KV_COPY_SSE2] = {PB_KOP_COPY_PAGE, "sse2"},
    [PB_KV_COPY_SSE2_NT] = {PB_KOP_COPY_PAGE, "sse2_nt"},
    [PB_KV_COPY_AVX2] = {PB_KOP_COPY_PAGE, "avx2"},
    [PB_KV_COPY_AVX2_NT] = {PB_KOP_COPY_PAGE, "avx2_nt"},
    [PB_KV_COPY_AVX512] = {PB_KOP_COPY_PAGE, "avx512"},
    [PB_KV_COPY_AVX512_NT] = {PB_KOP_COPY_PAGE, "avx512_nt"},
    [PB_KV_FPU_BEGIN_END] = {PB_KOP_FPU, "begin_end"},
    [PB_KV_FPU_SAVE_RESTORE] = {PB_KOP_FPU, "save_restore"},
    [PB_KV_IOCTL_NULL] = {PB_KOP_FPU, "ioctl_null"},
    [PB_KV_IOCTL_FPU] = {PB_KOP_FPU, "ioctl_fpu"},
    [PB_KV_COPY_TO_USER] = {PB_KOP_USER_COPY, "copy_to_user"},
    [PB_KV_COPY_FROM_USER] = {PB_KOP_USER_COPY, "copy_from_user"},
    [PB_KV_CLEAR_USER] = {PB_KOP_USER_COPY, "clear_user"},
};

static void list_info(void)
{
	printf("abi_version %u, module %s, kernel %s, tsc_khz %llu\n", info.abi_version,
	       info.module_version, info.release, (unsigned long long)info.tsc_khz);
	printf("page_bytes %u, huge_page_bytes %u, max_calls_bytes %u, max_batches %u, "
	       "max_request_ms %u, n_ops %u, max_user_bytes %llu\n",
	       info.page_bytes, info.huge_page_bytes, info.max_calls_bytes, info.max_batches,
	       info.max_request_ms, info.n_ops, (unsigned long long)info.max_user_bytes);
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const struct pb_kmod_variant_info *vi = &info.variants[v];
		printf("variant %2u %-10s %-14s %-11s%s%s%s%s%s%s\n", v, op_name(vi->op), vi->name,
		       (vi->flags & PB_KVF_AVAILABLE) ? "available" : "unavailable",
		       (vi->flags & PB_KVF_KERNEL) ? " kernel" : "",
		       (vi->flags & PB_KVF_FPU) ? " fpu" : "", (vi->flags & PB_KVF_NT) ? " nt" : "",
		       (vi->flags & PB_KVF_CALL) ? " call" : "", vi->why[0] ? ": " : "", vi->why);
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
	if (info.n_variants != PB_KV_COUNT || info.page_bytes != 4096 ||
	    info.huge_page_bytes != 2097152 || info.max_calls_bytes < info.huge_page_bytes ||
	    info.max_batches < 1 || info.max_request_ms < 1 || info.n_ops != PB_KOP_COUNT ||
	    info.max_user_bytes != 64ull << 20)
		fail("info: n_variants %u page_bytes %u huge_page_bytes %u max_calls_bytes %u "
		     "max_batches %u max_request_ms %u n_ops %u max_user_bytes %llu out of range "
		     "(want %u variants, %u ops, 64 MiB)",
		     info.n_variants, info.page_bytes, info.huge_page_bytes, info.max_calls_bytes,
		     info.max_batches, info.max_request_ms, info.n_ops,
		     (unsigned long long)info.max_user_bytes, PB_KV_COUNT, PB_KOP_COUNT);
	else
		pass("info: %u variants, %u ops, max_user_bytes %llu, limits in range",
		     info.n_variants, info.n_ops, (unsigned long long)info.max_user_bytes);
	int names_ok = 1;
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		const struct pb_kmod_variant_info *vi = &info.variants[v];
		int avail = vi->flags & PB_KVF_AVAILABLE;
		if (!memchr(vi->name, 0, sizeof(vi->name)) || !vi->name[0] ||
		    !memchr(vi->why, 0, sizeof(vi->why)) || (avail && vi->why[0]) ||
		    (!avail && !vi->why[0])) {
			fail("info: variant %u: name or why malformed", v);
			names_ok = 0;
			continue;
		}
		if (v < PB_KV_COUNT &&
		    (vi->op != expected[v].op || strcmp(vi->name, expected[v].name))) {
			fail("info: variant %u is %s '%s', kmod_abi.h says %s '%s'", v,
			     op_name(vi->op), vi->name, op_name(expected[v].op), expected[v].name);
			names_ok = 0;
		}
		int call = v == PB_KV_IOCTL_NULL || v == PB_KV_IOCTL_FPU;
		if (!!(vi->flags & PB_KVF_CALL) != call) {
			fail("info: variant %u (%s): PB_KVF_CALL %s", v, vi->name,
			     call ? "missing" : "set");
			names_ok = 0;
		}
		for (unsigned w = 0; w < v; w++)
			if (info.variants[w].op == vi->op &&
			    !strcmp(info.variants[w].name, vi->name)) {
				fail("info: variants %u and %u: both %s '%s'", w, v,
				     op_name(vi->op), vi->name);
				names_ok = 0;
			}
	}
	if (names_ok)
		pass("info: every variant has kmod_abi.h's op and name (unique within its op), "
		     "PB_KVF_CALL on ioctl_null and ioctl_fpu only, and a why exactly when "
		     "unavailable");
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

/* ---- the task's vector registers across a request --------------------- */

static int cpu_has_avx(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx");
}

/* One ioctl(fd, req, arg) as a raw system call, with xmm0-15 (ymm0-15
 * whole when avx) holding a pattern before it; 0 when they hold the same
 * after it, else 1 (*e: the ioctl's errno, 0 on success). The system call
 * is made inside the asm so that no library code runs between writing the
 * registers and reading them back. */
static int regs_survive(int fd, unsigned long req, unsigned long arg, int avx, int *e)
{
	unsigned char in[16 * 32] __attribute__((aligned(32)));
	unsigned char out[16 * 32] __attribute__((aligned(32)));
	long ret;
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 1);
	memset(out, 0, sizeof(out));
#define L(n)  "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n\t"
#define S(n)  "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n\t"
#define LX(n) "movdqu " #n "*32(%[in]), %%xmm" #n "\n\t"
#define SX(n) "movdqu %%xmm" #n ", " #n "*32(%[out])\n\t"
	if (avx)
		__asm__ volatile(L(0) L(1) L(2) L(3) L(4) L(5) L(6) L(7) L(8) L(9) L(10) L(11) L(12)
		                     L(13) L(14) L(15) "syscall\n\t" S(0) S(1) S(2) S(3) S(4) S(5)
		                         S(6) S(7) S(8) S(9) S(10) S(11) S(12) S(13) S(14) S(15)
		                 : "=a"(ret)
		                 : "a"(16L /* SYS_ioctl */), "D"((long)fd), "S"(req),
		                   "d"(arg), [in] "r"(in), [out] "r"(out)
		                 : "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
		                   "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		                   "xmm12", "xmm13", "xmm14", "xmm15");
	else
		__asm__ volatile(LX(0) LX(1) LX(2) LX(3) LX(4) LX(5) LX(6) LX(7) LX(8) LX(9) LX(10)
		                     LX(11) LX(12) LX(13) LX(14) LX(15) "syscall\n\t" SX(0) SX(1)
		                         SX(2) SX(3) SX(4) SX(5) SX(6) SX(7) SX(8) SX(9) SX(10)
		                             SX(11) SX(12) SX(13) SX(14) SX(15)
		                 : "=a"(ret)
		                 : "a"(16L /* SYS_ioctl */), "D"((long)fd), "S"(req),
		                   "d"(arg), [in] "r"(in), [out] "r"(out)
		                 : "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
		                   "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		                   "xmm12", "xmm13", "xmm14", "xmm15");
#undef L
#undef S
#undef LX
#undef SX
	*e = ret < 0 ? (int)-ret : 0;
	for (int r = 0; r < 16; r++)
		if (memcmp(in + 32 * r, out + 32 * r, avx ? 32 : 16))
			return 1;
	return 0;
}

/* ---- CHECK -------------------------------------------------------------- */

static void check_pages_variant(int fd, unsigned v)
{
	const char *name = label(v);
	for (unsigned order = 0; order <= 9; order += 9) {
		struct pb_kmod_check c = {.variant = v, .page_order = order};
		int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
		const char *sz = order ? "2 MiB" : "4 KiB";
		if ((int)v == corrupt) {
			if (e == EIO && c.bad_offset_bytes == CORRUPT_OFFSET_BYTES)
				pass("check %s %s: corrupt_variant: EIO, bad_offset_bytes %d", name,
				     sz, CORRUPT_OFFSET_BYTES);
			else if (e == ENOMEM && order)
				skip("check %s %s: corrupt_variant: ENOMEM for a 2 MiB page (not a "
				     "failure)",
				     name, sz);
			else
				fail(
				    "check %s %s: corrupt_variant: %s, bad_offset_bytes %lld, want "
				    "EIO and %d",
				    name, sz, errname(e), (long long)c.bad_offset_bytes,
				    CORRUPT_OFFSET_BYTES);
		} else if (!available(v)) {
			if (e == EOPNOTSUPP)
				pass("check %s %s: unavailable (%s), EOPNOTSUPP", name, sz,
				     info.variants[v].why);
			else
				fail("check %s %s: unavailable but CHECK gives %s", name, sz,
				     errname(e));
		} else if (e == 0 && c.bad_offset_bytes == -1) {
			pass("check %s %s: correct", name, sz);
		} else if (e == ENOMEM && order) {
			skip("check %s %s: the kernel could not allocate a 2 MiB page (ENOMEM; "
			     "not a failure)",
			     name, sz);
		} else {
			fail("check %s %s: %s, bad_offset_bytes %lld", name, sz, errname(e),
			     (long long)c.bad_offset_bytes);
		}
	}
}

/* A user buffer for user_copy requests: `bytes` at a page-aligned or a
 * misaligned (page + 13) address, with at least a page before and after
 * it mapped (CHECK's guards). */
struct ubuf {
	unsigned char *map;
	size_t map_bytes;
	unsigned char *ptr;
};

static int ubuf_get(struct ubuf *b, size_t bytes, int misaligned)
{
	b->map_bytes = (bytes + 3 * 4096 + 4095) & ~(size_t)4095;
	b->map =
	    mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->map == MAP_FAILED)
		return -1;
	b->ptr = b->map + 4096 + (misaligned ? 13 : 0);
	return 0;
}

static void ubuf_put(struct ubuf *b)
{
	munmap(b->map, b->map_bytes);
}

static const size_t user_sizes[] = {1, 63, 64, 4095, 4096, 4097, 65536, 1 << 20};
#define N_USER_SIZES (sizeof(user_sizes) / sizeof(user_sizes[0]))

static void check_user_variant(int fd, unsigned v)
{
	const char *name = label(v);
	if (!available(v)) {
		struct ubuf b;
		if (ubuf_get(&b, 64, 0) != 0) {
			fail("check %s: mmap: %s", name, strerror(errno));
			return;
		}
		struct pb_kmod_check c = {.variant = v, .user_ptr = (uintptr_t)b.ptr, .bytes = 64};
		int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
		(e == EOPNOTSUPP ? pass : fail)("check %s: unavailable (%s): %s", name,
		                                info.variants[v].why, errname(e));
		ubuf_put(&b);
		return;
	}
	int n_ok = 0, n_all = 0;
	for (size_t k = 0; k < N_USER_SIZES; k++) {
		for (int mis = 0; mis <= 1; mis++) {
			size_t bytes = user_sizes[k];
			struct ubuf b;
			n_all++;
			if (ubuf_get(&b, bytes, mis) != 0) {
				fail("check %s %zu bytes: mmap: %s", name, bytes, strerror(errno));
				continue;
			}
			struct pb_kmod_check c = {
			    .variant = v, .user_ptr = (uintptr_t)b.ptr, .bytes = bytes};
			int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
			long long want_off = bytes - 1 < CORRUPT_OFFSET_BYTES
			                         ? (long long)bytes - 1
			                         : CORRUPT_OFFSET_BYTES;
			/* the kernel wrote the user region: copy_to_user's pattern
			 * or clear_user's zeros; the guards are 0xA5 */
			int user_ok = 1;
			if (e == 0 && v != PB_KV_COPY_FROM_USER)
				for (size_t i = 0; i < bytes + 2 * PB_KMOD_GUARD_BYTES; i++) {
					unsigned char got = b.ptr[(long)i - PB_KMOD_GUARD_BYTES];
					int in = i >= PB_KMOD_GUARD_BYTES &&
					         i < PB_KMOD_GUARD_BYTES + bytes;
					if (!in && got != 0xA5)
						user_ok = 0;
					if (in && v == PB_KV_CLEAR_USER && got != 0)
						user_ok = 0;
				}
			if ((int)v == corrupt) {
				if (e == EIO && c.bad_offset_bytes == want_off)
					n_ok++;
				else
					fail("check %s %zu bytes%s: corrupt_variant: %s, "
					     "bad_offset_bytes %lld, want EIO and %lld",
					     name, bytes, mis ? " misaligned" : "", errname(e),
					     (long long)c.bad_offset_bytes, want_off);
			} else if (e == 0 && c.bad_offset_bytes == -1 && user_ok) {
				n_ok++;
			} else {
				fail("check %s %zu bytes%s: %s, bad_offset_bytes %lld%s", name,
				     bytes, mis ? " misaligned (page + 13)" : " page-aligned",
				     errname(e), (long long)c.bad_offset_bytes,
				     user_ok ? ""
				             : ", the user region or its guards not as "
				               "the module left them");
			}
			ubuf_put(&b);
		}
	}
	if (n_ok == n_all)
		pass("check %s: %s at 1, 63, 64, 4095, 4096, 4097, 65536 and 1 MiB bytes, "
		     "page-aligned and misaligned (%d requests)",
		     name,
		     (int)v == corrupt ? "corrupt_variant: EIO at the corrupted byte" : "correct",
		     n_all);
}

static void check_variants(int fd)
{
	for (unsigned v = 0; v < info.n_variants && v < PB_KMOD_MAX_VARIANTS; v++) {
		if (is_pages(v)) {
			check_pages_variant(fd, v);
		} else if (op_of(v) == PB_KOP_USER_COPY) {
			check_user_variant(fd, v);
		} else {
			struct pb_kmod_check c = {.variant = v};
			int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
			int want = available(v) ? 0 : EOPNOTSUPP;
			(e == want ? pass : fail)("check %s: %s (want %s)", label(v), errname(e),
			                          errname(want));
		}
	}
}

/* ---- TIME --------------------------------------------------------------- */

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

/* One TIME that must succeed with every batch written and ticks > 0 (an
 * unavailable variant: EOPNOTSUPP; the corrupted one: EIO). */
static void time_one(int fd, struct pb_kmod_time t, const char *what)
{
	unsigned v = t.variant;
	const char *name = label(v);
	memset(ticks, 0, info.max_batches * sizeof(*ticks));
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	if ((int)v == corrupt && is_pages(v)) {
		if (e == EIO)
			pass("time %s %s: corrupt_variant: EIO", name, what);
		else if (e == ENOMEM && t.page_order)
			skip("time %s %s: corrupt_variant: ENOMEM for 2 MiB pages (not a failure)",
			     name, what);
		else
			fail("time %s %s: corrupt_variant: %s, want EIO", name, what, errname(e));
		return;
	}
	if (!available(v)) {
		(e == EOPNOTSUPP ? pass : fail)("time %s %s: unavailable: %s", name, what,
		                                errname(e));
		return;
	}
	if (e == ENOMEM && t.page_order) {
		skip("time %s %s: ENOMEM for 2 MiB pages (not a failure)", name, what);
		return;
	}
	if (e) {
		fail("time %s %s: %s", name, what, errname(e));
		return;
	}
	int ok = t.batches_done == t.batches && t.cpu_changed <= 1;
	for (unsigned b = 0; b < t.batches; b++)
		ok = ok && ticks[b] > 0;
	if (ok)
		pass("time %s %s: %u batches, ticks[0] %llu, overhead_ticks %llu, cpu %u "
		     "(emulated timings mean nothing)",
		     name, what, t.batches_done, (unsigned long long)ticks[0],
		     (unsigned long long)t.overhead_ticks, t.cpu);
	else
		fail("time %s %s: batches_done %u of %u, ticks[0] %llu", name, what, t.batches_done,
		     t.batches, (unsigned long long)ticks[0]);
}

/* clear_page and copy_page: a small TIME per variant and mode. */
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
		if (!is_pages(v))
			continue;
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			time_one(fd,
			         time_req(v, modes[m].order, modes[m].state, modes[m].calls,
			                  modes[m].batches, modes[m].flags),
			         modes[m].what);
	}
}

/* fpu's TIME variants hot, with and without interrupts; the task's
 * registers survive each (regs_survive). */
static void check_time_fpu(int fd)
{
	int avx = cpu_has_avx();
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (op_of(v) != PB_KOP_FPU || (info.variants[v].flags & PB_KVF_CALL))
			continue;
		time_one(fd, time_req(v, 0, PB_KS_HOT, 1, 2, 0), "hot 2x1");
		time_one(fd, time_req(v, 0, PB_KS_HOT, 100, 3, 0), "hot 3x100");
		time_one(fd, time_req(v, 0, PB_KS_HOT, 100, 3, PB_KT_IRQS_OFF),
		         "hot irqs-off 3x100");
		if (!available(v))
			continue;
		struct pb_kmod_time t = time_req(v, 0, PB_KS_HOT, 50, 4, 0);
		int e, bad = regs_survive(fd, PB_KMOD_IOC_TIME, (uintptr_t)&t, avx, &e);
		(!bad && e == 0 ? pass : fail)("time %s: the task's %s registers the same after "
		                               "the request (%s)",
		                               label(v), avx ? "ymm0-15" : "xmm0-15", errname(e));
	}
}

/* user_copy: hot and flushed at a few sizes, aligned and not, and with
 * interrupts off. */
static void check_time_user(int fd)
{
	static const struct {
		size_t bytes;
		unsigned state, calls, batches, flags, misaligned;
		const char *what;
	} modes[] = {
	    {64, PB_KS_HOT, 16, 3, 0, 0, "64 B hot 3x16"},
	    {64, PB_KS_FLUSHED, 16, 2, 0, 1, "64 B flushed misaligned 2x16"},
	    {4096, PB_KS_HOT, 8, 3, PB_KT_IRQS_OFF, 0, "4 KiB hot irqs-off 3x8"},
	    {4096, PB_KS_FLUSHED, 8, 2, 0, 0, "4 KiB flushed 2x8"},
	    {65536 + 5, PB_KS_FLUSHED, 4, 2, PB_KT_IRQS_OFF, 1,
	     "64 KiB+5 flushed misaligned irqs-off 2x4"},
	    {1 << 20, PB_KS_HOT, 2, 2, 0, 1, "1 MiB hot misaligned 2x2"},
	    {1 << 20, PB_KS_FLUSHED, 2, 1, 0, 0, "1 MiB flushed 1x2"},
	};
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (op_of(v) != PB_KOP_USER_COPY)
			continue;
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			size_t span = modes[m].state == PB_KS_FLUSHED
			                  ? modes[m].bytes * modes[m].calls
			                  : modes[m].bytes;
			struct ubuf b;
			if (ubuf_get(&b, span, modes[m].misaligned) != 0) {
				fail("time %s %s: mmap: %s", label(v), modes[m].what,
				     strerror(errno));
				continue;
			}
			struct pb_kmod_time t = time_req(v, 0, modes[m].state, modes[m].calls,
			                                 modes[m].batches, modes[m].flags);
			t.user_ptr = (uintptr_t)b.ptr;
			t.bytes = modes[m].bytes;
			time_one(fd, t, modes[m].what);
			ubuf_put(&b);
		}
	}
}

/* CALL: ioctl_null and ioctl_fpu many times (and the registers survive
 * ioctl_fpu: its save and the restore on the way out). */
static void check_call(int fd)
{
	int avx = cpu_has_avx();
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (!(info.variants[v].flags & PB_KVF_CALL))
			continue;
		int n_ok = 0, e = 0;
		const int n = 20000;
		for (int i = 0; i < n; i++) {
			e = ioctl(fd, PB_KMOD_IOC_CALL, (unsigned long)v) == 0 ? 0 : errno;
			n_ok += e == 0;
		}
		if (!available(v)) {
			(e == EOPNOTSUPP ? pass : fail)("call %s: unavailable: %s", label(v),
			                                errname(e));
			continue;
		}
		(n_ok == n ? pass : fail)("call %s: %d of %d CALLs returned 0 (last: %s)", label(v),
		                          n_ok, n, errname(e));
		int bad = 0;
		for (int i = 0; i < 200 && !bad; i++)
			bad = regs_survive(fd, PB_KMOD_IOC_CALL, v, avx, &e) || e != 0;
		(!bad ? pass : fail)("call %s: the task's %s registers the same after 200 CALLs "
		                     "(%s)",
		                     label(v), avx ? "ymm0-15" : "xmm0-15", errname(e));
	}
	/* and after the SIMD page variants, which run kernel_fpu_begin too */
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (!is_pages(v) || !(info.variants[v].flags & PB_KVF_FPU) || !available(v) ||
		    (int)v == corrupt)
			continue;
		struct pb_kmod_time t = time_req(v, 0, PB_KS_HOT, 4, 2, 0);
		int e, bad = regs_survive(fd, PB_KMOD_IOC_TIME, (uintptr_t)&t, avx, &e);
		(!bad && e == 0 ? pass : fail)("time %s: the task's %s registers the same after "
		                               "the request (%s)",
		                               label(v), avx ? "ymm0-15" : "xmm0-15", errname(e));
	}
}

/* ---- bad requests --------------------------------------------------------- */

/* The first available module variant (not the kernel's) of an op, for the
 * error checks; rep_stosb and rep_movsb run on every x86-64. */
static unsigned any_variant_of(unsigned op)
{
	static const unsigned pref[] = {PB_KV_REP_STOSB, PB_KV_COPY_REP_MOVSB, PB_KV_FPU_BEGIN_END,
	                                PB_KV_COPY_TO_USER};
	if (op < 4 && available(pref[op]))
		return pref[op];
	for (unsigned v = 0; v < info.n_variants; v++)
		if (op_of(v) == op && available(v) && !(info.variants[v].flags & PB_KVF_CALL))
			return v;
	return pref[op < 4 ? op : 0];
}

static unsigned any_variant(void)
{
	return any_variant_of(PB_KOP_CLEAR_PAGE);
}

static void expect(int fd, const char *what, struct pb_kmod_time t, int want)
{
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	if (e == want)
		pass("bad request %s: %s", what, errname(e));
	else
		fail("bad request %s: %s, want %s", what, errname(e), errname(want));
}

static void expect_check(int fd, const char *what, struct pb_kmod_check c, int want)
{
	int e = xioctl(fd, PB_KMOD_IOC_CHECK, &c);
	if (e == want)
		pass("bad check %s: %s", what, errname(e));
	else
		fail("bad check %s: %s, want %s", what, errname(e), errname(want));
}

static void expect_call(int fd, const char *what, unsigned long arg, int want)
{
	int e = ioctl(fd, PB_KMOD_IOC_CALL, arg) == 0 ? 0 : errno;
	if (e == want)
		pass("bad call %s: %s", what, errname(e));
	else
		fail("bad call %s: %s, want %s", what, errname(e), errname(want));
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

	/* page ops: user_ptr and bytes must be 0 */
	unsigned vc = any_variant_of(PB_KOP_COPY_PAGE);
	t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
	t.user_ptr = (uintptr_t)ticks;
	expect(fd, "clear_page with user_ptr", t, EINVAL);
	t = time_req(vc, 0, PB_KS_HOT, 1, 1, 0);
	t.bytes = 64;
	expect(fd, "copy_page with bytes 64", t, EINVAL);
	t = time_req(vc, 0, PB_KS_HOT, max_calls_4k + 1, 1, 0);
	expect(fd, "copy_page calls max_calls_bytes/4096+1", t, EINVAL);
	t = time_req(vc, 3, PB_KS_HOT, 1, 1, 0);
	expect(fd, "copy_page page_order 3", t, EINVAL);

	/* fpu: page_order 0, hot, calls <= max_calls_bytes >> 12, no user_ptr */
	unsigned vf = any_variant_of(PB_KOP_FPU);
	t = time_req(vf, 9, PB_KS_HOT, 1, 1, 0);
	expect(fd, "fpu page_order 9", t, EINVAL);
	t = time_req(vf, 0, PB_KS_FLUSHED, 1, 1, 0);
	expect(fd, "fpu state flushed", t, EINVAL);
	t = time_req(vf, 0, PB_KS_HOT, max_calls_4k + 1, 1, 0);
	expect(fd, "fpu calls max_calls_bytes/4096+1", t, EINVAL);
	t = time_req(vf, 0, PB_KS_HOT, 1, 1, 0);
	t.user_ptr = (uintptr_t)ticks;
	expect(fd, "fpu with user_ptr", t, EINVAL);
	t = time_req(PB_KV_IOCTL_NULL, 0, PB_KS_HOT, 1, 1, 0);
	expect(fd, "TIME of the CALL variant ioctl_null", t, EINVAL);
	t = time_req(PB_KV_IOCTL_FPU, 0, PB_KS_HOT, 1, 1, 0);
	expect(fd, "TIME of the CALL variant ioctl_fpu", t, EINVAL);
	expect_call(fd, "CALL of a TIME variant (clear_page rep_stosb)", PB_KV_REP_STOSB, EINVAL);
	expect_call(fd, "CALL of a TIME variant (fpu begin_end)", PB_KV_FPU_BEGIN_END, EINVAL);
	expect_call(fd, "CALL of variant n_variants", info.n_variants, EINVAL);
	expect_call(fd, "CALL of variant 2^63", 1ul << 63, EINVAL);

	/* user_copy: page_order 0, 1 <= bytes <= max_user_bytes, user_ptr,
	 * calls * bytes <= max_user_bytes, calls <= max_calls_bytes >> 12 */
	unsigned vu = any_variant_of(PB_KOP_USER_COPY);
	uint64_t mub = info.max_user_bytes;
	struct {
		unsigned order, state, calls;
		uint64_t bytes;
		int has_ptr;
		const char *what;
	} ub[] = {
	    {9, PB_KS_HOT, 1, 64, 1, "user_copy page_order 9"},
	    {0, PB_KS_HOT, 1, 0, 1, "user_copy bytes 0"},
	    {0, PB_KS_HOT, 1, mub + 1, 1, "user_copy bytes max_user_bytes+1"},
	    {0, PB_KS_HOT, 1, 1ull << 63, 1, "user_copy bytes 2^63"},
	    {0, PB_KS_HOT, 1, 64, 0, "user_copy user_ptr 0"},
	    {0, PB_KS_FLUSHED, (unsigned)(mub >> 20) + 1, 1 << 20, 1,
	     "user_copy flushed calls*bytes max_user_bytes+1 MiB"},
	    {0, PB_KS_FLUSHED, 0xffffffffu, mub, 1, "user_copy flushed calls 2^32-1 x max bytes"},
	    {0, PB_KS_HOT, 2, mub, 1, "user_copy hot calls*bytes 2 x max_user_bytes"},
	    {0, PB_KS_HOT, max_calls_4k + 1, 1, 1, "user_copy calls max_calls_bytes/4096+1"},
	};
	for (size_t i = 0; i < sizeof(ub) / sizeof(ub[0]); i++) {
		t = time_req(vu, ub[i].order, ub[i].state, ub[i].calls, 1, 0);
		t.bytes = ub[i].bytes;
		t.user_ptr = ub[i].has_ptr ? (uintptr_t)ticks : 0;
		expect(fd, ub[i].what, t, EINVAL);
	}

	struct pb_kmod_check c = {.variant = info.n_variants, .page_order = 0};
	expect_check(fd, "variant n_variants", c, EINVAL);
	c = (struct pb_kmod_check){.variant = v, .page_order = 3};
	expect_check(fd, "page_order 3", c, EINVAL);
	c = (struct pb_kmod_check){.variant = v, .user_ptr = (uintptr_t)ticks};
	expect_check(fd, "clear_page with user_ptr", c, EINVAL);
	c = (struct pb_kmod_check){.variant = vc, .bytes = 1};
	expect_check(fd, "copy_page with bytes 1", c, EINVAL);
	c = (struct pb_kmod_check){.variant = vf, .page_order = 9};
	expect_check(fd, "fpu page_order 9", c, EINVAL);
	c = (struct pb_kmod_check){
	    .variant = vu, .page_order = 9, .user_ptr = (uintptr_t)ticks, .bytes = 8};
	expect_check(fd, "user_copy page_order 9", c, EINVAL);
	c = (struct pb_kmod_check){.variant = vu, .user_ptr = (uintptr_t)ticks, .bytes = 0};
	expect_check(fd, "user_copy bytes 0", c, EINVAL);
	c = (struct pb_kmod_check){.variant = vu, .user_ptr = (uintptr_t)ticks, .bytes = mub + 1};
	expect_check(fd, "user_copy bytes max_user_bytes+1", c, EINVAL);
	c = (struct pb_kmod_check){.variant = vu, .user_ptr = 0, .bytes = 8};
	expect_check(fd, "user_copy user_ptr 0", c, EINVAL);
	int e = xioctl(fd, PB_KMOD_IOC_CHECK, (void *)16);
	(e == EFAULT ? pass : fail)("bad check struct pointer 16: %s", errname(e));
	e = xioctl(fd, PB_KMOD_IOC_TIME, (void *)16);
	(e == EFAULT ? pass : fail)("bad time struct pointer 16: %s", errname(e));

	e = xioctl(fd, _IOR(PB_KMOD_IOC_MAGIC, 5, struct pb_kmod_info), &info);
	(e == ENOTTY ? pass : fail)("unknown ioctl nr 5: %s", errname(e));
	e = xioctl(fd, _IOR(PB_KMOD_IOC_MAGIC, 4, struct pb_kmod_info), &info);
	(e == ENOTTY ? pass : fail)("CALL's nr with a size and direction: %s", errname(e));
	e = xioctl(fd, _IOWR(PB_KMOD_IOC_MAGIC, 3, uint64_t), ticks);
	(e == ENOTTY ? pass : fail)("TIME's nr with a wrong size: %s", errname(e));
	e = xioctl(fd, _IO('T', 1), NULL);
	(e == ENOTTY ? pass : fail)("foreign ioctl _IO('T', 1): %s", errname(e));
}

/* user_copy EFAULT: a read-only mapping (the module writes it, for every
 * variant's CHECK, and copy_to_user/clear_user's TIME), an unmapped one, a
 * kernel address, a user_ptr whose guard would start below 0. */
static void check_user_efault(int fd)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *ro = mmap(NULL, 4 * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *gone =
	    mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED || gone == MAP_FAILED) {
		fail("user_copy efault: mmap: %s", strerror(errno));
		return;
	}
	munmap(gone, 4 * pg);
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (op_of(v) != PB_KOP_USER_COPY || !available(v))
			continue;
		struct pb_kmod_check c = {
		    .variant = v, .user_ptr = (uintptr_t)(ro + pg), .bytes = 100};
		expect_check(fd, "user_copy to a PROT_READ mapping", c, EFAULT);
		c.user_ptr = (uintptr_t)(gone + pg);
		expect_check(fd, "user_copy on an unmapped range", c, EFAULT);
		c.user_ptr = 0xffff800000001000ull;
		expect_check(fd, "user_copy on a kernel address", c, EFAULT);
		c.user_ptr = 16;
		expect_check(fd, "user_copy user_ptr 16 (its guard below 0)", c, EFAULT);
		struct pb_kmod_time t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
		t.bytes = 100;
		t.user_ptr = (uintptr_t)(gone + pg);
		expect(fd, "user_copy TIME hot on an unmapped range", t, EFAULT);
		t.state = PB_KS_FLUSHED;
		expect(fd, "user_copy TIME flushed on an unmapped range", t, EFAULT);
		t.user_ptr = 0xffff800000001000ull;
		expect(fd, "user_copy TIME on a kernel address", t, EFAULT);
		if (v != PB_KV_COPY_FROM_USER) {
			t = time_req(v, 0, PB_KS_HOT, 1, 1, 0);
			t.bytes = 100;
			t.user_ptr = (uintptr_t)(ro + pg);
			expect(fd, "user_copy TIME hot to a PROT_READ mapping", t, EFAULT);
			t.state = PB_KS_FLUSHED;
			expect(fd, "user_copy TIME flushed to a PROT_READ mapping", t, EFAULT);
		}
	}
	munmap(ro, 4 * pg);
	/* and the module still works */
	struct ubuf b;
	if (ubuf_get(&b, 4096, 0) == 0) {
		struct pb_kmod_check c = {.variant = any_variant_of(PB_KOP_USER_COPY),
		                          .user_ptr = (uintptr_t)b.ptr,
		                          .bytes = 4096};
		expect_check(fd, "user_copy after the EFAULTs (works)", c, 0);
		ubuf_put(&b);
	}
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* A request that runs for seconds, of one op: clear_page and copy_page,
 * every batch 16 MiB of distinct pages (pairs) flushed then written;
 * user_copy, 16 MiB copied to a 1 MiB user buffer per batch (lbuf). */
static unsigned char *lbuf;
#define LBUF_BYTES (1u << 20)

static struct pb_kmod_time long_req(unsigned op)
{
	unsigned v = any_variant_of(op);
	if (op == PB_KOP_USER_COPY) {
		struct pb_kmod_time t = time_req(v, 0, PB_KS_HOT, 16, info.max_batches, 0);
		t.user_ptr = (uintptr_t)lbuf;
		t.bytes = LBUF_BYTES;
		return t;
	}
	return time_req(v, 0, PB_KS_FLUSHED, info.max_calls_bytes >> 12, info.max_batches, 0);
}

static void check_long(int fd, unsigned op, const char *what, int want, double budget_ms)
{
	struct pb_kmod_time t = long_req(op);
	double t0 = now_ms();
	int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
	double wall_ms = now_ms() - t0;
	int ok = e == want && t.batches_done < t.batches && wall_ms < budget_ms;
	for (unsigned b = 0; ok && b < t.batches_done; b++)
		ok = ticks[b] > 0;
	(ok ? pass : fail)("%s (%s): %s after %u of %u batches in %.0f ms (bound %.0f ms)", what,
	                   label(t.variant), errname(e), t.batches_done, t.batches, wall_ms,
	                   budget_ms);
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
	static const unsigned ops[] = {PB_KOP_CLEAR_PAGE, PB_KOP_COPY_PAGE, PB_KOP_USER_COPY};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct itimerval it = {.it_value = {.tv_sec = 0, .tv_usec = 200000}};
		alarms = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		check_long(fd, ops[i], "eintr: SIGALRM at 200 ms ends a long request", EINTR,
		           200.0 + info.max_request_ms);
		struct itimerval off = {{0, 0}, {0, 0}};
		setitimer(ITIMER_REAL, &off, NULL);
	}
	signal(SIGALRM, SIG_DFL);
}

/* A request whose ticks buffer ends after its first entry (the next page
 * unmapped) fails with EFAULT after one batch; the module must then have
 * freed its pages and released its lock: a small request still works. */
static void check_efault_midway(int fd)
{
	long page_bytes = sysconf(_SC_PAGESIZE);
	static const unsigned ops[] = {PB_KOP_CLEAR_PAGE, PB_KOP_COPY_PAGE, PB_KOP_USER_COPY};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint8_t *map = mmap(NULL, 2 * page_bytes, PROT_READ | PROT_WRITE,
		                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED) {
			fail("efault midway: mmap: %s", strerror(errno));
			return;
		}
		munmap(map + page_bytes, page_bytes);
		struct pb_kmod_time t = time_req(any_variant_of(ops[i]), 0, PB_KS_HOT, 4, 3, 0);
		if (ops[i] == PB_KOP_USER_COPY) {
			t.user_ptr = (uintptr_t)lbuf;
			t.bytes = 4096;
		}
		struct pb_kmod_time again = t;
		t.ticks_ptr = (uintptr_t)(map + page_bytes - sizeof(uint64_t));
		int e = xioctl(fd, PB_KMOD_IOC_TIME, &t);
		uint64_t first = *(uint64_t *)(map + page_bytes - sizeof(uint64_t));
		(e == EFAULT && first > 0 ? pass : fail)(
		    "efault midway (%s): ticks_ptr's 2nd entry unmapped: %s, 1st entry %llu",
		    label(t.variant), errname(e), (unsigned long long)first);
		munmap(map, page_bytes);
		e = xioctl(fd, PB_KMOD_IOC_TIME, &again);
		(e == 0 ? pass : fail)("efault midway (%s): the next request works: %s",
		                       label(t.variant), errname(e));
	}
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
		struct pb_kmod_time t = long_req(PB_KOP_CLEAR_PAGE);
		xioctl(fd, PB_KMOD_IOC_TIME, &t);
		_exit(0);
	}
	usleep(300000);
	/* The child holds the lock now: a CHECK from here waits for it, so
	 * INFO and CALL (lock-free) are what must answer at once. */
	struct pb_kmod_info i2;
	int e = xioctl(fd, PB_KMOD_IOC_INFO, &i2);
	(e == 0 ? pass : fail)("kill: INFO during another process's request: %s", errname(e));
	e = ioctl(fd, PB_KMOD_IOC_CALL, (unsigned long)PB_KV_IOCTL_NULL) == 0 ? 0 : errno;
	(e == 0 ? pass : fail)("kill: CALL ioctl_null during another process's request: %s",
	                       errname(e));
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
	/* A batch is at most 16 MiB (copy_page: 16 MiB copied): well under 2 s
	 * even emulated. */
	check_long(fd, PB_KOP_CLEAR_PAGE, "etime: max_request_ms ends a long request", ETIME,
	           info.max_request_ms + 5000.0);
	check_long(fd, PB_KOP_COPY_PAGE, "etime: max_request_ms ends a long request", ETIME,
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

/* --corrupt N: the parameter matches, variant N is available and has a
 * check, and then CHECK and TIME of every clear_page, copy_page and
 * user_copy variant (N's expectations in check_pages_variant,
 * check_user_variant and time_one). */
static void check_corrupt(int fd)
{
	int param = module_corrupt_variant();
	if (param != corrupt) {
		fail("corrupt: %s is %d, not %d: load the module with corrupt_variant=%d",
		     CORRUPT_PARAM, param, corrupt, corrupt);
		return;
	}
	if ((unsigned)corrupt >= info.n_variants || !available((unsigned)corrupt) ||
	    op_of((unsigned)corrupt) == PB_KOP_FPU) {
		fail("corrupt: variant %d is not an available clear_page, copy_page or "
		     "user_copy variant here: choose one that is (abi_test --list)",
		     corrupt);
		return;
	}
	pass("corrupt: the module's corrupt_variant is %d (%s)", corrupt, label(corrupt));
	for (unsigned v = 0; v < info.n_variants; v++) {
		if (is_pages(v))
			check_pages_variant(fd, v);
		else if (op_of(v) == PB_KOP_USER_COPY)
			check_user_variant(fd, v);
	}
	check_time_variants(fd);
	check_time_user(fd);
}

static int finish(int fd)
{
	close(fd);
	printf("abi_test: %d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
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
	if (n_fail)
		return finish(fd);
	ticks = calloc(info.max_batches, sizeof(*ticks));
	lbuf = mmap(NULL, LBUF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ticks || lbuf == MAP_FAILED) {
		printf("FAIL calloc of %u ticks or mmap of %u bytes\n", info.max_batches,
		       LBUF_BYTES);
		return 1;
	}
	memset(lbuf, 1, LBUF_BYTES);
	list_info();
	if (corrupt >= 0) {
		check_corrupt(fd);
		return finish(fd);
	}
	if (module_corrupt_variant() >= 0) {
		fail("the module was loaded with corrupt_variant=%d (a test): run abi_test "
		     "--corrupt %d, or load it without",
		     module_corrupt_variant(), module_corrupt_variant());
		return finish(fd);
	}
	check_variants(fd);
	check_bad_requests(fd);
	check_user_efault(fd);
	check_time_variants(fd);
	check_time_fpu(fd);
	check_time_user(fd);
	check_call(fd);
	check_efault_midway(fd);
	check_eintr(fd);
	check_kill(fd);
	check_etime(fd, etime);
	return finish(fd);
}
