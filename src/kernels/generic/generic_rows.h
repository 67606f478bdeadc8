/* generic_rows.h - the portable kernels: one row each, read by the registry
 * (table) and by the kernel files (prototypes, via protos.h). No include
 * guard: included once per meaning of PB_MEMSET/PB_MEMCPY/PB_MEMMOVE.
 *
 * PB_MEMSET/PB_MEMCPY/PB_MEMMOVE(name, function, required features,
 * same_code_as, differs_from_bytes, store kind, vector bytes, glibc path,
 * glibc note, flags, description, source): a kernel whose sizes below
 * differs_from_bytes run another row's code (its small sizes fall through
 * to it) names that row in same_code_as (NULL, 0 otherwise); the
 * properties describe the kernel's own code (struct pb_kernel,
 * include/primbench/kernels.h; flags PB_KF_*, protos.h).
 */

PB_MEMSET("libc", pb_memset_libc, 0, NULL, 0, PB_STORE_CALL, 0, PB_GLIBC_PATH_ANY, NULL, 0,
          "the C library's memset, called through a pointer (glibc: chosen by ifunc)",
          "the C library (glibc sysdeps/x86_64/multiarch/ifunc-memset.h)")
PB_MEMSET("bytes", pb_memset_bytes, 0, NULL, 0, PB_STORE_SCALAR, 0, PB_GLIBC_PATH_NONE, NULL,
          PB_KF_NOT_TUNED,
          "one byte per iteration, plain C loop, kept scalar (no vectorization, no libc call)",
          "ISO C 7.24.6.1, written the naive way")
PB_MEMSET(
    "gpr_unrolled", pb_memset_gpr_unrolled, 0, NULL, 0, PB_STORE_SCALAR, 0, PB_GLIBC_PATH_VECTOR,
    "glibc has no 64-bit-register loop: mapped to its vector loop", 0,
    "64-bit general-purpose stores, 8 per loop iteration (one line), destination line-aligned",
    "Linux arch/x86/lib/memset_64.S (memset_orig)")
PB_MEMSET("rbw", pb_memset_rbw, 0, NULL, 0, PB_STORE_SCALAR, 0, PB_GLIBC_PATH_NONE, NULL,
          PB_KF_NOT_TUNED,
          "read before write: loads a byte of each destination line, then stores the line (64-bit "
          "stores)",
          "Drepper, What Every Programmer Should Know About Memory, 3.3.4 / 6.1 (RFO)")

PB_MEMCPY("libc", pb_memcpy_libc, 0, NULL, 0, PB_STORE_CALL, 0, PB_GLIBC_PATH_ANY, NULL, 0,
          "the C library's memcpy, called through a pointer (glibc: chosen by ifunc)",
          "the C library (glibc sysdeps/x86_64/multiarch/ifunc-memmove.h)")
PB_MEMCPY("bytes", pb_memcpy_bytes, 0, NULL, 0, PB_STORE_SCALAR, 0, PB_GLIBC_PATH_NONE, NULL,
          PB_KF_NOT_TUNED,
          "one byte per iteration, plain C loop, kept scalar (no vectorization, no libc call)",
          "ISO C 7.24.2.1, written the naive way")
PB_MEMCPY("gpr_unrolled", pb_memcpy_gpr_unrolled, 0, NULL, 0, PB_STORE_SCALAR, 0,
          PB_GLIBC_PATH_VECTOR, "glibc has no 64-bit-register loop: mapped to its vector loop", 0,
          "64-bit general-purpose loads and stores, 8 per loop iteration (one line), destination "
          "line-aligned",
          "Linux arch/x86/lib/memcpy_64.S (memcpy_orig)")
PB_MEMCPY("strided", pb_memcpy_strided, 0, "gpr_unrolled", 65, PB_STORE_SCALAR, 0,
          PB_GLIBC_PATH_NONE, NULL, PB_KF_NOT_TUNED,
          "comb pattern: word i of 8 successive lines, then word i+1: successive stores go to "
          "different lines",
          "Drepper, What Every Programmer Should Know About Memory, 6.2 (access patterns)")

PB_MEMMOVE("libc", pb_memmove_libc, 0, NULL, 0, PB_STORE_CALL, 0, PB_GLIBC_PATH_NONE, NULL, 0,
           "the C library's memmove, called through a pointer (glibc: chosen by ifunc)",
           "the C library (glibc sysdeps/x86_64/multiarch/ifunc-memmove.h)")
PB_MEMMOVE("bytes", pb_memmove_bytes, 0, NULL, 0, PB_STORE_SCALAR, 0, PB_GLIBC_PATH_NONE, NULL,
           PB_KF_NOT_TUNED,
           "one byte per iteration, forward, or backward when dst is inside the source; plain "
           "C loop, kept scalar",
           "ISO C 7.24.2.2, written the naive way")
PB_MEMMOVE("gpr_unrolled", pb_memmove_gpr_unrolled, 0, NULL, 0, PB_STORE_SCALAR, 0,
           PB_GLIBC_PATH_NONE, NULL, 0,
           "64-bit loads then stores, 8 per iteration (one 64-byte block), forward or backward "
           "by overlap; no alignment step",
           "Linux arch/x86/lib/memmove_64.S (its forward and backward register loops)")

/* The auto rows: the same fields for every op after the function. */
#define PB_AUTO_ROW_FIELDS                                                                         \
	0, NULL, 0, PB_STORE_CALL, 0, PB_GLIBC_PATH_NONE, NULL, PB_KF_NOT_TUNED,                   \
	    "dispatches each call by size to the kernel of the auto policy (primbench tune's "     \
	    "file, else the built-in default for this CPU)",                                       \
	    "include/primbench/auto.h; policy from primbench tune (break-even finder)"
PB_MEMSET("auto", pb_memset_auto, PB_AUTO_ROW_FIELDS)
PB_MEMCPY("auto", pb_memcpy_auto, PB_AUTO_ROW_FIELDS)
PB_MEMMOVE("auto", pb_memmove_auto, PB_AUTO_ROW_FIELDS)
