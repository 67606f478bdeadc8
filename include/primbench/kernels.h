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
 * differs_from_bytes; tests/test_kernels.c lists them), and run `make test` (the correctness sweep,
 * src/suites/ selftest.c, picks up every row by itself).
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

struct pb_kernel {
	enum pb_op op;
	const char *name;         /* "avx512_nt" */
	pb_features requires;     /* all must be usable */
	pb_memset_fn memset_fn;   /* set when op == PB_OP_MEMSET */
	pb_memcpy_fn memcpy_fn;   /* set when op == PB_OP_MEMCPY */
	pb_memmove_fn memmove_fn; /* set when op == PB_OP_MEMMOVE */
	/* Sizes below differs_from_bytes run the code of the row of the same
	 * op named same_code_as (the kernel's small sizes fall through to
	 * it: avx512_nt is avx512 up to PB_NT_THRESHOLD_BYTES); at those sizes
	 * the two are one candidate, and break-even and tune count the base
	 * row only. NULL, 0: the kernel's own code at every size. Read from
	 * each kernel's source (src/kernels/), not measured. clzero's rows
	 * give the bound for fill value 0: other values run sse2 at every
	 * size. */
	const char *same_code_as;
	size_t differs_from_bytes;
	const char *description; /* one line */
	const char *source;      /* where the idea comes from */
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

/* Whether k can run with the usable features `have`. When not, and why is
 * non-NULL, writes e.g. "needs avx512f, avx512bw (hidden)" or
 * "needs clzero (not on this CPU)". */
bool pb_kernel_usable(const struct pb_kernel *k, pb_features have, char *why, size_t why_len);

#endif
