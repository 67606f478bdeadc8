/* primbench/kernels.h - the catalogue of memset, memcpy and memmove
 * implementations.
 *
 * Every kernel is a full, correct implementation for any size and any
 * alignment (head and tail handled); kernels differ in their bulk loop.
 * One table (src/kernels/registry.c, rows in src/kernels/generic/
 * generic_rows.h and src/kernels/<arch>/arch_rows.h) describes them all.
 * A kernel's id is "op/name" ("memset/avx512").
 *
 * Adding a kernel: write it in src/kernels/generic/ or src/kernels/<arch>/
 * from the blocks in generic/blocks.h, add one row to that directory's
 * *_rows.h (when its small sizes call another row's function, name that
 * row and the first size where it differs: same_code_as,
 * differs_from_bytes; tests/test_kernels.c lists them), give its
 * properties (store kind, vector width, glibc path, flags: struct
 * pb_kernel), and run `make test` (the correctness sweep, src/suites/
 * selftest.c, picks up every row by itself; tests/test_kernels.c checks
 * the properties agree).
 */
#ifndef PRIMBENCH_KERNELS_H
#define PRIMBENCH_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "primbench/cpu.h"

enum pb_op { PB_OP_MEMSET, PB_OP_MEMCPY, PB_OP_MEMMOVE, PB_OP_COUNT };

/* Same contracts as the C standard's memset/memcpy/memmove: return dst.
 * A memmove kernel is correct for any overlap of [src, src + n) and
 * [dst, dst + n): it copies forward when dst <= src or the ranges do not
 * overlap, backward when dst > src and they do (its row's name says when
 * the backward path uses another technique, e.g. rep_movsb_fwd_movsq_bwd). */
typedef void *(*pb_memset_fn)(void *dst, int c, size_t n);
typedef void *(*pb_memcpy_fn)(void *restrict dst, const void *restrict src, size_t n);
typedef void *(*pb_memmove_fn)(void *dst, const void *src, size_t n);

/* How a kernel's own code (at sizes from its differs_from_bytes up) writes
 * the bulk of the destination. Names after the instruction classes of the
 * Intel SDM and glibc's string functions (vector, non-temporal, rep). */
enum pb_store_kind {
	PB_STORE_SCALAR, /* general-purpose registers, 8 bytes or less a store */
	PB_STORE_VECTOR, /* SIMD registers, temporal (cached) stores */
	PB_STORE_NT,     /* non-temporal (streaming) stores: movntdq, vmovntdq, movnti;
	                  * arm64 STNP, FEAT_MOPS's N forms */
	PB_STORE_REP,    /* string instructions: x86 rep stos, rep movs; arm64 FEAT_MOPS
	                  * SET*, CPY* (the CPU chooses how to run them) */
	PB_STORE_LINE,   /* a whole-line/block zeroing instruction (AMD clzero, arm64
	                  * DC ZVA) */
	PB_STORE_CALL,   /* another implementation, chosen at run time (libc, auto) */
};

/* The path of glibc 2.36's x86-64 string functions a kernel's own code
 * corresponds to (the classes of the glibc model, src/analysis/glibc_model.c):
 * its vector loop, rep movsb/stosb, its non-temporal loop, any path (the C
 * library itself), or none. The model covers memset and memcpy: memmove
 * rows say NONE. */
enum pb_glibc_path {
	PB_GLIBC_PATH_NONE,
	PB_GLIBC_PATH_VECTOR,
	PB_GLIBC_PATH_REP,
	PB_GLIBC_PATH_NT,
	PB_GLIBC_PATH_ANY,
};

struct pb_kernel {
	enum pb_op op;
	const char *name;         /* "avx512_nt" */
	pb_features requires;     /* all must be usable */
	pb_memset_fn memset_fn;   /* set when op == PB_OP_MEMSET */
	pb_memcpy_fn memcpy_fn;   /* set when op == PB_OP_MEMCPY */
	pb_memmove_fn memmove_fn; /* set when op == PB_OP_MEMMOVE */
	/* Sizes below differs_from_bytes run the code of the row of the same
	 * op named same_code_as (the kernel's small sizes fall through to
	 * it: avx512_nt is avx512 below a line, PB_LINE_BYTES); at those sizes
	 * the two are one candidate, and break-even and tune count the base
	 * row only. NULL, 0: the kernel's own code at every size. Read from
	 * each kernel's source (src/kernels/), not measured. clzero's rows
	 * give the bound for fill value 0: other values run sse2 at every
	 * size. */
	const char *same_code_as;
	size_t differs_from_bytes;
	/* The properties the readers of the table (break-even, tune, xsave,
	 * the glibc model, auto) use instead of matching names; each is read
	 * from the kernel's source, like same_code_as, and tests/
	 * test_kernels.c checks they agree with one another and with
	 * `requires`. */
	enum pb_store_kind store; /* of the kernel's own code */
	unsigned vector_bytes;    /* bytes per store of that code: 16 (SSE2, NEON), 32
	                           * (AVX2), 64 (AVX-512); 0 for no vector stores, and
	                           * for vector-length agnostic code (SVE: the CPU's
	                           * vector length, 16 to 256 bytes) */
	enum pb_glibc_path glibc; /* glibc 2.36's path for the kernel's own code */
	const char *glibc_note;   /* NULL when glibc has this path as such; else
	                           * why it maps to it, or why not ("glibc has rep
	                           * stosb, not rep stosq: mapped to it") */
	bool auto_inline;         /* auto's entry may run this kernel's small-size
	                           * path (up to PB_AUTO_SMALL_MAX, auto.h) without
	                           * its dispatch: avx512 (the AVX-512 entry of
	                           * src/kernels/x86_64/auto_x86.c) */
	bool tune_candidate;      /* `primbench tune` may name it in a policy: not
	                           * auto itself, not the kernels that only
	                           * demonstrate a technique (bytes, strided, rbw,
	                           * clzero; src/cli/cmd_tune.c) */
	const char *description;  /* one line */
	const char *source;       /* where the idea comes from */
};

const char *pb_op_name(enum pb_op op); /* "memset", "memcpy", "memmove" */
/* Returns 0, or -1 with pb_error() set ("unknown op 'x'"). */
int pb_op_parse(const char *name, enum pb_op *out);

/* The whole table, in display order. */
const struct pb_kernel *pb_kernels(size_t *count);

/* Finds a kernel by "op/name", or by "name" within op. op may be
 * PB_OP_COUNT when name carries "op/" (or when the name belongs to one op
 * only). Returns NULL with pb_error() set: "unknown kernel 'x'", "kernel
 * 'memcpy/x' is not a memset kernel" (op/name of another op), "unknown
 * kernel 'memmove/avx512_nt' (there are memset/avx512_nt and
 * memcpy/avx512_nt)" (a bare name of other ops' kernels only), or "kernel
 * name 'bytes' is ambiguous: say memset/bytes, memcpy/bytes or
 * memmove/bytes". */
const struct pb_kernel *pb_kernel_find(enum pb_op op, const char *name);

/* The row whose code k runs at size_bytes: k's same_code_as row (followed
 * as long as the size is below each row's differs_from_bytes), else k.
 * Never NULL. */
const struct pb_kernel *pb_kernel_code_at(const struct pb_kernel *k, size_t size_bytes);

/* What a kernel row does changes now and then (a bug fix, a technique
 * used at more sizes): its revision counts those changes, so that result
 * files record which code a case measured and compare can tell two files
 * whose rows measured different code (docs/results-schema.md,
 * `kernel_revision`). Every row starts at 1; a change of what the row
 * runs at some size adds one, with a line in src/kernels/registry.c's
 * revision table saying what changed. Returns k's revision (>= 1); *change,
 * when non-NULL, gets the line of its latest change ("" at revision 1). */
unsigned pb_kernel_revision(const struct pb_kernel *k, const char **change);

/* The row whose code k ran at size_bytes when k was at revision `rev`
 * (a result file's kernel_revision): pb_kernel_code_at for the current
 * revision; for an earlier one, the same_code_as / differs_from_bytes the
 * row had then (src/kernels/registry.c's revision table). NULL when rev
 * is 0 or newer than this build's row (a file from a later primbench:
 * which code it measured is not known here). */
const struct pb_kernel *pb_kernel_code_at_revision(const struct pb_kernel *k, unsigned rev,
                                                   size_t size_bytes);

/* The line that says what changed in k's row after revision `since`
 * (1..current - 1) up to its current one, or NULL when nothing changed
 * (since >= current) or `since` is not known. */
const char *pb_kernel_revision_change(const struct pb_kernel *k, unsigned since);

/* Whether k can run with the usable features `have`. When not, and why is
 * non-NULL, writes e.g. "needs avx512f, avx512bw (hidden)" or
 * "needs clzero (not on this CPU)". */
bool pb_kernel_usable(const struct pb_kernel *k, pb_features have, char *why, size_t why_len);

#endif
