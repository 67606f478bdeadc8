/* account.c - PRIMBENCH_ACCOUNT: the accounting file of this process image
 * and the counting wrappers (include/primbench/account.h is the format;
 * docs/preload.md, "Accounting").
 *
 * The counters live in a MAP_SHARED mapping of the file, updated in place
 * (<arch>/counter.h: relaxed atomic adds once the process has threads,
 * plain one-instruction adds before): no lock, no system call, nothing to
 * flush, so a process that _exits, execs or dies by a signal leaves its
 * counts (the page cache holds them). Every thread adds to the same
 * counters: a busy multi-threaded program pays for the cache lines moving
 * between CPUs (docs/preload.md gives the measured costs).
 *
 * Ticks mode times, per thread, primitive and log2 size bucket, the first
 * call and then one call in sample_every (thread-local counts, so no
 * shared state decides). Per bucket, not per thread alone: one in N over
 * all sizes would leave rare sizes (often the large, costly calls) with no
 * timed call at all, and a call pattern whose period divides N could
 * alias. A serialised lfence; rdtsc pair
 * costs about as much as a hot 4 KiB copy (48 ticks on the project's VM),
 * so timing every call would measure the timer.
 * The clock is the one of include/primbench/timer.h (src/timer/<arch>/
 * tsc.c is linked in): the TSC when it is invariant and not hidden, else
 * CLOCK_MONOTONIC_RAW nanoseconds (then the header says tsc_hz = 1e9).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "counter.h"
#include "preload.h"
#include "primbench/timer.h"

struct pb_acct_file *pb_sw_acct;
struct pb_acct_sizes_file *pb_sw_sizes;
struct pb_sw_acct_config pb_sw_acct_config;

/* ---- counting ------------------------------------------------------------- */

/* glibc clears __libc_single_threaded (2.32+) in pthread_create, before
 * the new thread exists, and never sets it again. Elsewhere: assume
 * threads. */
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define THREADS() (!__libc_single_threaded)
#endif
#endif
#ifndef THREADS
#define THREADS() true
#endif

#define ADD(field, v) pb_sw_counter_add(&(field), (uint64_t)(v), threads)

static inline __attribute__((always_inline)) struct pb_acct_bucket *
count(struct pb_acct_file *f, enum pb_acct_prim p, size_t n, unsigned bucket)
{
	bool threads = THREADS();
	struct pb_acct_prim_counts *c = &f->prim[p];
	struct pb_acct_bucket *b = &c->bucket[bucket];
	ADD(c->calls, 1);
	ADD(c->bytes, n);
	ADD(b->calls, 1);
	ADD(b->bytes, n);
	if (n <= PB_ACCT_SIZES_MAX) {
		struct pb_acct_sizes_file *z = __atomic_load_n(&pb_sw_sizes, __ATOMIC_ACQUIRE);
		if (z)
			ADD(z->calls[pb_acct_family_of(p)][n], 1);
	}
	return b;
}

/* Calls to come before this thread's next timed call of a primitive and
 * size bucket: 0 at first, so the first call of each bucket is timed. A
 * signal handler that interrupts the update may make one sample come a
 * call early or late. 6 x 65 x 4 bytes of static TLS per thread. */
static __thread uint32_t calls_to_sample[PB_ACCT_NPRIM][PB_ACCT_BUCKETS]
    __attribute__((tls_model("initial-exec")));

static inline __attribute__((always_inline)) bool sample_due(enum pb_acct_prim p, unsigned bucket)
{
	uint32_t *k = &calls_to_sample[p][bucket];
	if (*k == 0) {
		*k = pb_sw_acct_config.sample_every - 1;
		return true;
	}
	--*k;
	return false;
}

static inline __attribute__((always_inline)) void add_sample(struct pb_acct_bucket *b,
                                                             uint64_t ticks)
{
	/* Not clamped at 0: a call quicker than the pair's mean cost adds a
	 * negative difference (modulo 2^64), so the sum stays unbiased; the
	 * reader clamps a negative sum (account.h). */
	uint64_t over = pb_sw_acct_config.overhead_ticks;
	bool threads = THREADS();
	ADD(b->sampled_calls, 1);
	ADD(b->sampled_ticks, ticks - over);
}

static inline __attribute__((always_inline)) struct pb_acct_file *current(void)
{
	return __atomic_load_n(&pb_sw_acct, __ATOMIC_ACQUIRE);
}

/* One wrapper per primitive and mode; the primitive is a constant in each.
 * PARAMS is the parameter list, CALL the call of the kernel in force. The
 * call is counted before it runs; in ticks mode a due call is timed alone
 * (the counting stays outside the timed region). */
#define WRAPPERS(prim, counts_fn, ticks_fn, PARAMS, CALL)                                          \
	static void *counts_fn PARAMS                                                              \
	{                                                                                          \
		struct pb_acct_file *f = current();                                                \
		if (f)                                                                             \
			count(f, prim, n, pb_acct_bucket_of(n));                                   \
		return CALL;                                                                       \
	}                                                                                          \
	static void *ticks_fn PARAMS                                                               \
	{                                                                                          \
		struct pb_acct_file *f = current();                                                \
		if (!f)                                                                            \
			return CALL;                                                               \
		unsigned k = pb_acct_bucket_of(n);                                                 \
		struct pb_acct_bucket *b = count(f, prim, n, k);                                   \
		if (!sample_due(prim, k))                                                          \
			return CALL;                                                               \
		pb_stamp t0 = pb_timer_begin();                                                    \
		void *r = CALL;                                                                    \
		add_sample(b, pb_timer_end(t0));                                                   \
		return r;                                                                          \
	}

#define SET_PARAMS (void *dst, int c, size_t n)
#define SET_CALL   (pb_sw_impl.set(dst, c, n))
#define CPY_PARAMS (void *restrict dst, const void *restrict src, size_t n)
#define CPY_CALL   (pb_sw_impl.cpy(dst, src, n))
WRAPPERS(PB_ACCT_MEMSET, memset_counts, memset_ticks, SET_PARAMS, SET_CALL)
WRAPPERS(PB_ACCT_BZERO, bzero_counts, bzero_ticks, SET_PARAMS, SET_CALL)
WRAPPERS(PB_ACCT_EXPLICIT_BZERO, explicit_bzero_counts, explicit_bzero_ticks, SET_PARAMS, SET_CALL)
WRAPPERS(PB_ACCT_MEMCPY, memcpy_counts, memcpy_ticks, CPY_PARAMS, CPY_CALL)
WRAPPERS(PB_ACCT_MEMPCPY, mempcpy_counts, mempcpy_ticks, CPY_PARAMS, CPY_CALL)
WRAPPERS(PB_ACCT_MEMMOVE, memmove_counts, memmove_ticks, (void *dst, const void *src, size_t n),
         (pb_sw_impl.move(dst, src, n)))

const struct pb_sw_entries pb_sw_entries_counts = PB_SW_ENTRIES(counts);

const struct pb_sw_entries pb_sw_entries_ticks = PB_SW_ENTRIES(ticks);

/* ---- the timer ------------------------------------------------------------ */

void pb_sw_acct_measure_timer(void)
{
	struct pb_timer_quick q;
	pb_timer_init_quick(&q);
	/* The mean, not the median: docs/preload.md, "Ticks". */
	pb_sw_acct_config.overhead_ticks = (uint64_t)(q.overhead_mean_ticks + 0.5);
	pb_sw_acct_config.tsc_hz = q.hz;
}

/* ---- the file ------------------------------------------------------------- */

/* splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", 2014). */
static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Appends text at buf[*pos], keeping room for the NUL; false when full. */
static bool append(char *buf, size_t cap, size_t *pos, const char *text)
{
	while (*text) {
		if (*pos + 1 >= cap)
			return false;
		buf[(*pos)++] = *text++;
	}
	buf[*pos] = '\0';
	return true;
}

static bool append_u64(char *buf, size_t cap, size_t *pos, uint64_t v, unsigned base,
                       unsigned min_digits)
{
	char digits[24];
	unsigned n = 0;
	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v || n < min_digits);
	char text[24];
	for (unsigned i = 0; i < n; i++)
		text[i] = digits[n - 1 - i];
	text[n] = '\0';
	return append(buf, cap, pos, text);
}

/* dir/primswitch-PID-SUFFIX.acct into pb_sw_acct_config.path. */
static bool make_path(pid_t pid, uint64_t suffix)
{
	char *path = pb_sw_acct_config.path;
	size_t cap = sizeof pb_sw_acct_config.path, pos = 0;
	path[0] = '\0';
	const char *dir = pb_sw_acct_config.dir;
	bool slash = dir[0] && dir[strlen(dir) - 1] == '/';
	return append(path, cap, &pos, dir) && append(path, cap, &pos, slash ? "" : "/") &&
	       append(path, cap, &pos, PB_ACCT_FILE_PREFIX) &&
	       append_u64(path, cap, &pos, (uint64_t)pid, 10, 1) && append(path, cap, &pos, "-") &&
	       append_u64(path, cap, &pos, suffix, 16, 16) &&
	       append(path, cap, &pos, PB_ACCT_FILE_SUFFIX);
}

/* Zeros written, not a sparse ftruncate: the blocks exist from now on, so
 * a full file system fails here (a warning) and not later as SIGBUS on a
 * store into the mapping (which would kill the user's program). */
static int write_zeros(int fd, size_t size)
{
	static const char zeros[4096];
	size_t done = 0;
	while (done < size) {
		size_t chunk = size - done < sizeof zeros ? size - done : sizeof zeros;
		ssize_t w = pwrite(fd, zeros, chunk, (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		done += (size_t)w;
	}
	return 0;
}

/* Fills the open file fd with size zero bytes and maps it shared; closes
 * fd. On failure unlinks path, sets *err and *what ("write", "mmap") and
 * returns NULL. */
static void *map_new_file(int fd, size_t size, const char *path, int *err, const char **what)
{
	int e = write_zeros(fd, size);
	void *m = MAP_FAILED;
	if (e == 0) {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			e = errno;
			*what = "mmap";
		}
	} else {
		*what = "write";
	}
	close(fd);
	if (m == MAP_FAILED) {
		unlink(path);
		*err = e;
		return NULL;
	}
	return m;
}

/* The 8-byte magic, stored last with release order: a reader that sees it
 * sees the header before it (account.h). */
static void store_magic(char *dst, const char *magic)
{
	union {
		char c[8];
		uint64_t u;
	} m;
	for (int i = 0; i < 8; i++)
		m.c[i] = magic[i];
	__atomic_store_n((uint64_t *)(void *)dst, m.u, __ATOMIC_RELEASE);
}

static void fill_header(struct pb_acct_file *f, bool forked)
{
	const struct pb_sw_acct_config *c = &pb_sw_acct_config;
	f->version = PB_ACCT_VERSION;
	f->size_bytes = (uint32_t)sizeof *f;
	f->pid = (int32_t)getpid();
	f->ppid = (int32_t)getppid();
	f->ticks = c->ticks;
	f->sample_every = c->ticks ? c->sample_every : 0;
	f->started_realtime_ns = clock_ns(CLOCK_REALTIME);
	f->timer_overhead_ticks = c->ticks ? (double)c->overhead_ticks : 0;
	f->tsc_hz = c->ticks ? c->tsc_hz : 0;
	f->forked = forked;
	f->policy_ok = c->policy_ok;
	ssize_t n = readlink("/proc/self/exe", f->exe, sizeof f->exe - 1);
	f->exe[n > 0 ? n : 0] = '\0';
	for (int op = 0; op < PB_OP_COUNT; op++)
		pb_sw_copy_text(f->policy[op], c->policy_text[op], sizeof f->policy[op]);

	/* The magic last, after a release fence: a reader that sees it sees
	 * the header (account.h). */
	store_magic(f->magic, PB_ACCT_MAGIC);
}

struct pb_acct_file *pb_sw_acct_create(bool forked, int *err, const char **what)
{
	pid_t pid = getpid();
	uint64_t seed = clock_ns(CLOCK_MONOTONIC) ^ mix64(clock_ns(CLOCK_REALTIME)) ^
	                mix64((uint64_t)(uintptr_t)&seed) ^ ((uint64_t)pid << 32);
	int fd = -1;
	for (int attempt = 0; attempt < 64; attempt++) {
		if (!make_path(pid, mix64(seed + (uint64_t)attempt * 0x9e3779b97f4a7c15ull))) {
			*err = ENAMETOOLONG;
			*what = "open";
			pb_sw_acct_config.path[0] = '\0';
			return NULL;
		}
		fd = open(pb_sw_acct_config.path,
		          O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		*err = errno;
		*what = "open";
		pb_sw_acct_config.path[0] = '\0';
		return NULL;
	}
	struct pb_acct_file *m =
	    map_new_file(fd, sizeof(struct pb_acct_file), pb_sw_acct_config.path, err, what);
	if (!m) {
		pb_sw_acct_config.path[0] = '\0';
		return NULL;
	}
	fill_header(m, forked);
	return m;
}

/* ---- the exact sizes file --------------------------------------------------- */

struct pb_acct_sizes_file *pb_sw_sizes_create(int *err, const char **what)
{
	/* The accounting file's path with .sizes for .acct. */
	char path[sizeof pb_sw_acct_config.path + 8];
	size_t pos = 0, len = strlen(pb_sw_acct_config.path);
	size_t suffix = sizeof PB_ACCT_FILE_SUFFIX - 1;
	path[0] = '\0';
	if (len <= suffix || !append(path, sizeof path, &pos, pb_sw_acct_config.path)) {
		*err = ENAMETOOLONG;
		*what = "open";
		return NULL;
	}
	pos = len - suffix;
	path[pos] = '\0';
	append(path, sizeof path, &pos, PB_ACCT_SIZES_SUFFIX);
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
	if (fd < 0) {
		*err = errno;
		*what = "open";
		return NULL;
	}
	size_t size = sizeof(struct pb_acct_sizes_file);
	struct pb_acct_sizes_file *z = map_new_file(fd, size, path, err, what);
	if (!z)
		return NULL;
	z->version = PB_ACCT_SIZES_VERSION;
	z->size_bytes = (uint32_t)size;
	z->pid = (int32_t)getpid();
	store_magic(z->magic, PB_ACCT_SIZES_MAGIC);
	return z;
}
