/* primbench/account.h - the accounting files of libprimswitch.so
 * (PRIMBENCH_ACCOUNT; docs/preload.md, "Accounting").
 *
 * Each process image that loads the preload library with accounting on
 * creates one file in PRIMBENCH_ACCOUNT_DIR (default: the current
 * directory): "primswitch-PID-SUFFIX.acct", created with O_EXCL (SUFFIX:
 * 16 hex digits from the TSC/clock and the address of the mapping, retried
 * on EEXIST), sized with ftruncate to sizeof(struct pb_acct_file) and
 * mapped MAP_SHARED. The counters are updated in the mapping with relaxed
 * atomic adds, so a process that _exits, execs or dies by a signal leaves
 * its counts in the file (the kernel writes the shared pages back). A child
 * made by fork() creates its own file (pthread_atfork child handler) and
 * counts from zero; a new image after exec creates a new file.
 *
 * Layout: one struct pb_acct_file, native byte order (the files are read
 * on the machine that wrote them), fixed size; `magic` and `version` are
 * written last at creation (after the header fields), so a reader that
 * sees them sees a complete header. A reader rejects a file whose magic,
 * version or size differ.
 *
 * Primitives: every replaced symbol counts under one primitive: memset
 * (memset, __memset_chk), bzero, explicit_bzero (and
 * __explicit_bzero_chk), memcpy (memcpy, __memcpy_chk), mempcpy (mempcpy,
 * __mempcpy_chk), memmove (memmove, __memmove_chk).
 *
 * Size buckets (log2): bucket 0 holds size 0; bucket k (1..64) holds
 * sizes in [2^(k-1), 2^k - 1]: 1, 2-3, 4-7, ..., so bucket 13 is
 * 4096-8191.
 *
 * Ticks (PRIMBENCH_ACCOUNT=ticks): per thread, primitive and bucket the first call, then one in
 * `sample_every`, is timed with the TSC read pair of include/primbench/timer.h (lfence; rdtsc ...
 * lfence; rdtsc; lfence), its ticks minus `timer_overhead_ticks` (the mean cost of an empty
 * pair, version 2; version 1 subtracted the median and clamped each call at 0) added to its
 * bucket's sampled_ticks (modulo 2^64: a sum below 0, calls quicker than the pair's mean, reads
 * as a value above INT64_MAX, which a reader takes as 0) and 1 to sampled_calls. The estimated
 * ticks of a bucket are sampled_ticks * calls / sampled_calls (an estimate: say so when printing
 * it).
 */
#ifndef PRIMBENCH_ACCOUNT_H
#define PRIMBENCH_ACCOUNT_H

#include <stdint.h>

#define PB_ACCT_MAGIC       "PBACCT\0\1" /* 8 bytes */
#define PB_ACCT_VERSION     2u
#define PB_ACCT_BUCKETS     65
#define PB_ACCT_TEXT        256 /* bytes of each text field, NUL-terminated */
#define PB_ACCT_FILE_PREFIX "primswitch-"
#define PB_ACCT_FILE_SUFFIX ".acct"

enum pb_acct_prim {
	PB_ACCT_MEMSET,
	PB_ACCT_BZERO,
	PB_ACCT_EXPLICIT_BZERO,
	PB_ACCT_MEMCPY,
	PB_ACCT_MEMPCPY,
	PB_ACCT_MEMMOVE,
	PB_ACCT_NPRIM
};

struct pb_acct_bucket {
	uint64_t calls;
	uint64_t bytes;
	uint64_t sampled_calls; /* calls timed (ticks mode) */
	uint64_t sampled_ticks; /* their TSC ticks, overhead subtracted (mod 2^64: above
	                           INT64_MAX is a negative sum, 0) */
};

struct pb_acct_prim_counts {
	uint64_t calls;
	uint64_t bytes;
	struct pb_acct_bucket bucket[PB_ACCT_BUCKETS];
};

struct pb_acct_file {
	char magic[8];                /* PB_ACCT_MAGIC, written last */
	uint32_t version;             /* PB_ACCT_VERSION */
	uint32_t size_bytes;          /* sizeof(struct pb_acct_file) */
	int32_t pid, ppid;            /* getpid(), getppid() when the file was made */
	uint32_t ticks;               /* 1: PRIMBENCH_ACCOUNT=ticks, 0: counts only */
	uint32_t sample_every;        /* N of "one call in N" (ticks mode), else 0 */
	uint64_t started_realtime_ns; /* CLOCK_REALTIME at creation */
	double timer_overhead_ticks;  /* subtracted from each timed call: the mean empty pair */
	double tsc_hz;                /* cpuid 0x15/0x16 where given, else 0 (unknown) */
	uint32_t forked;              /* 1: made in a fork child's atfork handler */
	uint32_t policy_ok;           /* 1: the policies parsed; 0: libc's functions were used */
	char exe[PB_ACCT_TEXT];       /* readlink(/proc/self/exe), may be truncated */
	char policy[3][PB_ACCT_TEXT]; /* PRIMBENCH_MEMSET, _MEMCPY, _MEMMOVE as given ("" unset) */
	struct pb_acct_prim_counts prim[PB_ACCT_NPRIM];
};

/* Exact sizes (PRIMBENCH_ACCOUNT_SIZES=1 beside PRIMBENCH_ACCOUNT; what
 * `primbench cmd --account --record-distribution DIR` sets): each process
 * image also creates "primswitch-PID-SUFFIX.sizes" next to its accounting
 * file (same PID and SUFFIX; O_EXCL, zeros written, MAP_SHARED, magic
 * written last, as the accounting file), holding one struct
 * pb_acct_sizes_file: per family of primitives, the calls of each size
 * 0..PB_ACCT_SIZES_MAX bytes. Calls above PB_ACCT_SIZES_MAX are in the
 * accounting file's log2 buckets only (bucket 13 holds 4096 too: subtract
 * calls[fam][4096] to get 4097..8191). A family sums primitives:
 * memset = memset, bzero, explicit_bzero; memcpy = memcpy, mempcpy;
 * memmove = memmove. */
#define PB_ACCT_SIZES_MAGIC   "PBSIZES\1" /* 8 bytes */
#define PB_ACCT_SIZES_VERSION 1u
#define PB_ACCT_SIZES_MAX     4096
#define PB_ACCT_SIZES_SUFFIX  ".sizes"

enum pb_acct_family { PB_ACCT_FAM_MEMSET, PB_ACCT_FAM_MEMCPY, PB_ACCT_FAM_MEMMOVE, PB_ACCT_NFAM };

struct pb_acct_sizes_file {
	char magic[8];       /* PB_ACCT_SIZES_MAGIC, written last */
	uint32_t version;    /* PB_ACCT_SIZES_VERSION */
	uint32_t size_bytes; /* sizeof(struct pb_acct_sizes_file) */
	int32_t pid;
	uint32_t reserved;
	uint64_t calls[PB_ACCT_NFAM][PB_ACCT_SIZES_MAX + 1];
};

/* The family a primitive counts under in the sizes file. */
static inline enum pb_acct_family pb_acct_family_of(enum pb_acct_prim p)
{
	return p == PB_ACCT_MEMMOVE                          ? PB_ACCT_FAM_MEMMOVE
	       : p == PB_ACCT_MEMCPY || p == PB_ACCT_MEMPCPY ? PB_ACCT_FAM_MEMCPY
	                                                     : PB_ACCT_FAM_MEMSET;
}

/* Bucket of a call of n bytes (see above). */
static inline unsigned pb_acct_bucket_of(uint64_t n)
{
	return n ? 64u - (unsigned)__builtin_clzll(n) : 0u;
}

#endif
