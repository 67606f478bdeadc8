/* primbench/auto.h - the `auto` kernels: a memset, a memcpy and a memmove
 * that dispatch each call by its size to the kernel a policy names
 * (include/primbench/policy.h), and where that policy comes from.
 *
 * Where it comes from (pb_auto_setup), per op:
 *   1. the policy file (pb_auto_path: $PRIMBENCH_POLICY_FILE, else
 *      $XDG_CONFIG_HOME/primbench/policy, else ~/.config/primbench/policy),
 *      written by `primbench tune` from the break-even finder's measurements
 *      on this machine;
 *   2. else the built-in default: the first row of the table in
 *      src/kernels/autopolicy.c (one row per CPU vendor and vector width) whose
 *      kernels are all usable here.
 *
 * Policy file format (text; docs/performance.md "auto and tune"):
 *   # comment lines and blank lines are ignored
 *   memset = avx2<=93,avx512<=27K,rep_stosb<=16M,avx512_nt
 *   memcpy = ...
 *   memmove = ...
 *   cpu = <cpuid brand string of the machine it was tuned on>
 * Each op at most once; an op the file does not set takes the built-in
 * default. A policy in the file may not name `auto` (it would call itself).
 *
 * Everything here is allocation-free and uses no stdio, so the preload
 * library can run it from its first call (PRIMBENCH_MEMSET=auto).
 */
#ifndef PRIMBENCH_AUTO_H
#define PRIMBENCH_AUTO_H

#include <stdbool.h>
#include <stddef.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

/* Auto's dispatch, as its readers (tune, xsave) must know it:
 * - PB_AUTO_SMALL_MAX: the largest size, bytes, whose calls auto's entry
 *   may run itself, without the dispatch, when the policy's kernel for
 *   that size is a row with auto_inline (avx512: the AVX-512 entry of
 *   src/kernels/x86_64/auto_x86.c).
 * - PB_AUTO_DISPATCH_TICKS: what the dispatch costs a call of any other
 *   kernel, TSC ticks (measured: ~4 ticks a call, docs/performance.md). */
#define PB_AUTO_SMALL_MAX      512
#define PB_AUTO_DISPATCH_TICKS 4.0

/* The auto kernels (rows "memset/auto", "memcpy/auto", "memmove/auto").
 * Until a policy is installed they dispatch every size to gpr_unrolled
 * (portable and correct). */
void *pb_memset_auto(void *dst, int c, size_t n);
void *pb_memcpy_auto(void *restrict dst, const void *restrict src, size_t n);
void *pb_memmove_auto(void *dst, const void *src, size_t n);

/* Installs p as the policy auto of p->op dispatches by. p must satisfy
 * policy.h's invariants and name only usable kernels. Call it before the
 * auto kernel of that op runs in other threads: the table is not swapped
 * atomically (a call racing with it still gets a correct kernel, since
 * every kernel is correct at every size, but maybe not the policy's).
 * Returns 0, or -1 with pb_error() when a band names an auto kernel or a
 * kernel of another op. */
int pb_auto_install(const struct pb_policy *p);

/* The policy installed for op, or NULL before the first install (auto then
 * runs gpr_unrolled at every size). */
const struct pb_policy *pb_auto_installed(enum pb_op op);

#define PB_AUTO_PATH_MAX 4096
#define PB_AUTO_CPU_MAX  64

/* Writes the policy file's path to buf: $PRIMBENCH_POLICY_FILE when set
 * and not empty, else $XDG_CONFIG_HOME/primbench/policy (when absolute),
 * else $HOME/.config/primbench/policy. Returns 0, or -1 with pb_error() when none
 * can be formed (no HOME) or the path is longer than len - 1. */
int pb_auto_path(char *buf, size_t len);

/* The built-in default for op: the first row of the defaults table whose
 * policy parses with the usable features `have`. *row_name (may be NULL)
 * gets the row's name ("intel-avx512"). Never fails: the last row
 * ("generic", gpr_unrolled) is usable everywhere. */
void pb_auto_default(enum pb_op op, pb_features have, struct pb_policy *out, const char **row_name);

/* One row of the defaults table, for `primbench list` and the docs. */
struct pb_auto_default_row {
	const char *name;   /* "intel-avx512" */
	const char *vendor; /* cpuid vendor the row is for, or NULL for any */
	const char *policy[PB_OP_COUNT];
	const char *source; /* how the bounds were chosen */
};
const struct pb_auto_default_row *pb_auto_defaults(size_t *count);

/* A parsed policy file. */
struct pb_auto_file {
	bool set[PB_OP_COUNT];
	struct pb_policy policy[PB_OP_COUNT];
	char cpu[PB_AUTO_CPU_MAX]; /* "" when the file has no cpu line */
};

/* Parses the text of a policy file (len bytes, need not be terminated);
 * kernels must be usable with `have`. name is used in messages. Returns 0,
 * or -1 with pb_error() "NAME:LINE: ..." (unknown key, op set twice, bad
 * policy, an auto kernel, a line without '='). */
int pb_auto_file_parse(const char *text, size_t len, const char *name, pb_features have,
                       struct pb_auto_file *out);

/* Reads and parses the file at path (at most 64 KiB). Returns 1 when read,
 * 0 when it does not exist (out cleared), -1 with pb_error() "PATH: ..."
 * when it cannot be read or does not parse. */
int pb_auto_file_read(const char *path, pb_features have, struct pb_auto_file *out);

/* Where the installed auto policies came from. */
struct pb_auto_origin {
	bool from_file[PB_OP_COUNT];
	const char *default_row[PB_OP_COUNT]; /* when !from_file: the table row */
	char path[PB_AUTO_PATH_MAX];          /* the file looked for ("" if none) */
	bool file_found;                      /* it exists (and parsed) */
	/* per op: why the file's policy could not serve ("avx512: needs
	 * avx512f (hidden)"), so the default did; "" otherwise */
	char unusable[PB_OP_COUNT][160];
	char file_cpu[PB_AUTO_CPU_MAX]; /* its cpu line, "" if none */
};

/* Installs, for every op, the policy file's policy when the file exists,
 * sets that op and names only kernels usable with `have`, else the
 * built-in default (origin->unusable says why the file's was not used). Returns 0, or -1 with
 * pb_error() when the file exists but cannot be read or parsed (nothing installed); a missing file
 * or HOME is not an error. */
int pb_auto_setup(pb_features have, struct pb_auto_origin *origin);

#endif
