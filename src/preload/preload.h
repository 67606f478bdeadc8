/* preload.h - the pieces of libprimswitch.so (docs/preload.md), shared by
 * its files; nothing outside src/preload and tests/preload includes it.
 *
 * One entry pointer per primitive (enum pb_acct_prim) is all the exported
 * functions read: before the library is ready it is that primitive's cold
 * function (initialise, or serve the call with the bootstrap kernel); once
 * ready, the op's implementation itself (accounting off) or a counting
 * wrapper around it. So a call with accounting off costs one load and one
 * indirect call, and a single-kernel policy's entry is the kernel.
 *
 * Files: switch.c (the exported functions, the entries, the state word),
 * init.c (environment, policies, libc's functions, the constructor and
 * the atfork handler), account.c (the accounting file and the counting
 * wrappers), libc_rows.c (the catalogue's `libc` rows), <arch>/bootstrap.c
 * (the kernels that serve calls before initialisation).
 */
#ifndef PRIMBENCH_PRELOAD_H
#define PRIMBENCH_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/account.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

/* Every definition here is internal: only the replaced symbols are exported
 * (exports.map), and they carry PB_EXPORT. */
#define PB_HIDDEN __attribute__((visibility("hidden")))
#define PB_EXPORT __attribute__((visibility("default")))

/* ---- the bootstrap kernels (src/preload/<arch>/bootstrap.c) ------------
 * Correct for any size, alignment and (memmove) overlap; need no
 * initialisation, no relocation and no other function; async-signal-safe.
 * Compiled with PB_NO_LIBCALL_FLAGS (cmake/compiler.cmake: no call back
 * into memset/memcpy). */
PB_HIDDEN void *pb_boot_memset(void *dst, int c, size_t n);
PB_HIDDEN void *pb_boot_memcpy(void *restrict dst, const void *restrict src, size_t n);
PB_HIDDEN void *pb_boot_memmove(void *dst, const void *src, size_t n);

/* ---- libc's functions (init.c), NULL until dlsym(RTLD_NEXT) found them -- */
struct pb_sw_libc {
	pb_memset_fn memset;
	pb_memcpy_fn memcpy;
	pb_memmove_fn memmove;
};
PB_HIDDEN extern struct pb_sw_libc pb_sw_libc;

/* ---- state and entries (switch.c) --------------------------------------- */

/* The one-way state word: UNINIT -> INITIALISING (one caller wins the CAS)
 * -> READY. */
enum pb_sw_state { PB_SW_UNINIT, PB_SW_INITIALISING, PB_SW_READY };

/* The implementation of each op after init (a kernel, libc's function, or
 * a banded dispatcher): what the entries point at with accounting off and
 * what the counting wrappers call. */
struct pb_sw_impl {
	pb_memset_fn set;
	pb_memcpy_fn cpy;
	pb_memmove_fn move;
};
PB_HIDDEN extern struct pb_sw_impl pb_sw_impl;

/* The parsed policies the banded dispatchers read (init.c fills them
 * before publishing). */
PB_HIDDEN extern struct pb_policy pb_sw_policy[PB_OP_COUNT];

/* The banded dispatchers: pb_policy_pick, then the band's kernel. */
PB_HIDDEN void *pb_sw_set_banded(void *dst, int c, size_t n);
PB_HIDDEN void *pb_sw_cpy_banded(void *restrict dst, const void *restrict src, size_t n);
PB_HIDDEN void *pb_sw_move_banded(void *dst, const void *src, size_t n);

/* The functions the exported symbols call, one per primitive (enum
 * pb_acct_prim): bzero and explicit_bzero take memset's type (value 0),
 * mempcpy memcpy's (the exported function adds n to the result). */
struct pb_sw_entries {
	pb_memset_fn memset, bzero, explicit_bzero;
	pb_memcpy_fn memcpy, mempcpy;
	pb_memmove_fn memmove;
};

/* The entries named <primitive>_<suffix> (memset_cold, ..., memmove_cold):
 * an initializer of struct pb_sw_entries. */
#define PB_SW_ENTRIES(suffix)                                                                      \
	{                                                                                          \
		.memset = memset_##suffix, .bzero = bzero_##suffix,                                \
		.explicit_bzero = explicit_bzero_##suffix, .memcpy = memcpy_##suffix,              \
		.mempcpy = mempcpy_##suffix, .memmove = memmove_##suffix,                          \
	}

/* Publishes the entries of every primitive (release stores): `e`, or
 * pb_sw_impl's functions when e is NULL. */
PB_HIDDEN void pb_sw_publish(const struct pb_sw_entries *e);

/* Calls served by the bootstrap kernels because the library was not
 * ready (relaxed counter; PRIMBENCH_PRELOAD_DEBUG prints it at exit). */
PB_HIDDEN extern uint64_t pb_sw_boot_calls;

/* Makes the library ready: the first caller (CAS UNINIT -> INITIALISING)
 * runs pb_sw_init() and publishes; `who` names the primitive whose call
 * triggered it (PB_ACCT_NPRIM: the constructor). Returns true when the
 * library is ready, false while another caller (or this thread, further
 * up its stack) is initialising: serve the call with the bootstrap kernel.
 * errno is preserved. */
PB_HIDDEN bool pb_sw_ready(enum pb_acct_prim who);

/* ---- init.c --------------------------------------------------------------- */

/* Reads the environment, parses the policies, finds libc's functions,
 * sets pb_sw_impl and, with accounting on, creates the file; prints one
 * line per problem on stderr. Runs once, in state INITIALISING; never
 * allocates memory (the first call may come from inside malloc).
 * `who` as for pb_sw_ready(). Returns the entries to publish: those of
 * account.c with accounting on, NULL (pb_sw_impl's) with it off. */
PB_HIDDEN const struct pb_sw_entries *pb_sw_init(enum pb_acct_prim who);

/* ---- account.c ------------------------------------------------------------ */

/* The mapping counters go to, NULL when accounting is off (or between
 * files in a fork child). */
PB_HIDDEN extern struct pb_acct_file *pb_sw_acct;

/* The entries with accounting on: count every call (counts), or count
 * every call and time one in sample_every per thread (ticks). */
PB_HIDDEN extern const struct pb_sw_entries pb_sw_entries_counts, pb_sw_entries_ticks;

/* What the accounting file records about this process image (init.c sets
 * it once; the fork child handler reuses it: no getenv there). */
struct pb_sw_acct_config {
	bool ticks;
	uint32_t sample_every;   /* ticks mode: one call in this many per thread */
	uint64_t overhead_ticks; /* ticks mode: mean empty timer pair (rounded), subtracted */
	double tsc_hz;           /* ticks mode: the header's tsc_hz */
	bool policy_ok;
	bool sizes; /* PRIMBENCH_ACCOUNT_SIZES=1: the exact sizes file too */
	char policy_text[PB_OP_COUNT][PB_ACCT_TEXT]; /* the environment's, "" unset */
	char dir[4096];                              /* absolute */
	char path[4096 + 64];                        /* the file made last, "" none */
};
PB_HIDDEN extern struct pb_sw_acct_config pb_sw_acct_config;

/* Measures the timer pair's overhead and the TSC frequency for ticks mode
 * (into pb_sw_acct_config). */
PB_HIDDEN void pb_sw_acct_measure_timer(void);

/* Creates, sizes, maps and fills a new accounting file in
 * pb_sw_acct_config.dir (forked: the header's `forked` flag). Returns the
 * mapping, or NULL with *err an errno value and *what the failed step
 * ("open", "ftruncate", "mmap"). Only system calls: safe in a fork child. */
PB_HIDDEN struct pb_acct_file *pb_sw_acct_create(bool forked, int *err, const char **what);

/* The exact-sizes mapping (account.h), NULL when off or not made. */
PB_HIDDEN extern struct pb_acct_sizes_file *pb_sw_sizes;

/* Creates the sizes file beside the accounting file made last
 * (pb_sw_acct_config.path with .sizes for .acct); as pb_sw_acct_create. */
PB_HIDDEN struct pb_acct_sizes_file *pb_sw_sizes_create(int *err, const char **what);

/* ---- messages (init.c) ------------------------------------------------------
 * A line is built in a fixed buffer (no stdio, no allocation) and written
 * with one write(2): to the file PRIMBENCH_PRELOAD_LOG names (opened with
 * O_APPEND for each line), else to stderr. pb_sw_line_write drops a line
 * an ancestor process already wrote (PRIMBENCH_PRELOAD_WARNED). */
struct pb_sw_line {
	char buf[1024];
	size_t len;
};
PB_HIDDEN void pb_sw_line_add(struct pb_sw_line *l, const char *text);
PB_HIDDEN void pb_sw_line_add_u64(struct pb_sw_line *l, uint64_t v);
PB_HIDDEN void pb_sw_line_add_errno(struct pb_sw_line *l, int err);
PB_HIDDEN void pb_sw_line_write(struct pb_sw_line *l);

/* Copies at most cap - 1 bytes of src and a NUL into dst (cap > 0); a
 * byte loop, never a call of memcpy. Returns the length copied. */
PB_HIDDEN size_t pb_sw_copy_text(char *dst, const char *src, size_t cap);

#endif
