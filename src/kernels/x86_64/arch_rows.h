/* arch_rows.h (x86_64) - kernels that need x86-64 instructions: one row
 * each, read by the registry (table) and the kernel files (prototypes, via
 * protos.h). No include guard. The rep kernels need nothing beyond the
 * base ISA; their speed depends on ERMS/FSRM, which `primbench info` shows.
 *
 * PB_MEMSET/PB_MEMCPY/PB_MEMMOVE(name, function, required features,
 * same_code_as, differs_from_bytes, store kind, vector bytes, glibc path,
 * glibc note, flags, description, source): a kernel whose sizes below
 * differs_from_bytes run another row's code (its small sizes fall through
 * to it) names that row in same_code_as (NULL, 0 otherwise); the
 * properties describe the kernel's own code (struct pb_kernel,
 * include/primbench/kernels.h; flags PB_KF_*, protos.h).
 */

PB_MEMSET("rep_stosb", pb_memset_rep_stosb, 0, NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_REP, NULL, 0,
          "rep stosb for every size (fast strings with ERMS, fast short ones with FSRS)",
          "Intel Optimization Reference Manual 3.7.6 (Enhanced REP MOVSB and STOSB); Linux "
          "arch/x86/lib/memset_64.S")
PB_MEMSET("rep_stosq", pb_memset_rep_stosq, 0, NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_REP,
          "glibc has rep stosb, not rep stosq: mapped to it", 0,
          "rep stosq for n/8 words, then rep stosb for the n%8 byte tail; no alignment step",
          "Linux arch/x86/lib/memset_64.S (pre-ERMS memset: rep stosq + rep stosb)")
PB_MEMSET("sse2", pb_memset_sse2, PB_F(SSE2), NULL, 0, PB_STORE_VECTOR, 16, PB_GLIBC_PATH_VECTOR,
          NULL, 0,
          "16-byte stores: overlapping head/tail up to 64 B, else line-aligned loop of 4 x 16 B",
          "glibc sysdeps/x86_64/multiarch/memset-vec-unaligned-erms.S (VEC_SIZE 16)")
PB_MEMSET("sse2_nt", pb_memset_sse2_nt, PB_F(SSE2), "sse2", PB_LINE_BYTES, PB_STORE_NT, 16,
          PB_GLIBC_PATH_NONE, "glibc 2.36 memset has no non-temporal path", 0,
          "movntdq on every whole line inside the buffer, memset/sse2 around them (alone below "
          "64 B, where no line fits); one sfence per call",
          "Intel Optimization Reference Manual (non-temporal stores); glibc 2.40 "
          "memset-vec-unaligned-erms.S (nt_memset)")
PB_MEMSET("avx2", pb_memset_avx2, PB_F(AVX2), NULL, 0, PB_STORE_VECTOR, 32, PB_GLIBC_PATH_VECTOR,
          NULL, 0,
          "32-byte stores: overlapping head/tail up to 128 B, else line-aligned loop of 4 x 32 B",
          "glibc sysdeps/x86_64/multiarch/memset-avx2-unaligned-erms.S")
PB_MEMSET("avx2_nt", pb_memset_avx2_nt, PB_F(AVX2), "avx2", PB_LINE_BYTES, PB_STORE_NT, 32,
          PB_GLIBC_PATH_NONE, "glibc 2.36 memset has no non-temporal path", 0,
          "vmovntdq on every whole line inside the buffer, memset/avx2 around them (alone below "
          "64 B, where no line fits); one sfence per call",
          "Intel Optimization Reference Manual (non-temporal stores); glibc 2.40 "
          "memset-vec-unaligned-erms.S (nt_memset)")
PB_MEMSET(
    "avx512", pb_memset_avx512, PB_F(AVX512F) | PB_F(AVX512BW), NULL, 0, PB_STORE_VECTOR, 64,
    PB_GLIBC_PATH_VECTOR, NULL, PB_KF_AUTO_INLINE,
    "64-byte stores: one masked store up to 64 B, head/tail up to 256 B, else 4 x 64 B loop",
    "glibc sysdeps/x86_64/multiarch/memset-evex-unaligned-erms.S / memset-avx512-unaligned-erms.S")
PB_MEMSET("avx512_nt", pb_memset_avx512_nt, PB_F(AVX512F) | PB_F(AVX512BW), "avx512", PB_LINE_BYTES,
          PB_STORE_NT, 64, PB_GLIBC_PATH_NONE, "glibc 2.36 memset has no non-temporal path", 0,
          "vmovntdq zmm on every whole line inside the buffer, memset/avx512 around them (alone "
          "below 64 B); one sfence per call",
          "Intel Optimization Reference Manual (non-temporal stores); glibc 2.40 "
          "memset-vec-unaligned-erms.S (nt_memset)")
PB_MEMSET("movnti", pb_memset_movnti, PB_F(SSE2), "gpr_unrolled", PB_LINE_BYTES, PB_STORE_NT, 0,
          PB_GLIBC_PATH_NONE, "glibc 2.36 memset has no non-temporal path", 0,
          "8-byte movnti stores, 8 per whole line inside the buffer, memset/gpr_unrolled around "
          "them (alone below 64 B); one sfence per call",
          "Intel SDM Vol. 2B MOVNTI; Linux arch/x86/lib/usercopy_64.c (__memcpy_flushcache)")
PB_MEMSET("clzero", pb_memset_clzero, PB_F(CLZERO) | PB_F(SSE2), "sse2", PB_NT_MIN_BYTES + 1,
          PB_STORE_LINE, 0, PB_GLIBC_PATH_NONE, "glibc never uses clzero", PB_KF_NOT_TUNED,
          "AMD clzero on whole lines when the value is 0 (above 256 B), else memset/sse2",
          "AMD64 Architecture Programmer's Manual Vol. 3, CLZERO")

PB_MEMCPY("rep_movsb", pb_memcpy_rep_movsb, 0, NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_REP, NULL, 0,
          "rep movsb for every size (microcoded; fast strings with ERMS, short sizes with FSRM)",
          "Intel Optimization Reference Manual 3.7.6 (Enhanced REP MOVSB and STOSB); Linux "
          "arch/x86/lib/memcpy_64.S (FSRM)")
PB_MEMCPY("rep_movsq", pb_memcpy_rep_movsq, 0, NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_REP,
          "glibc has rep movsb, not rep movsq: mapped to it", 0,
          "rep movsq for n/8 words, then rep movsb for the n%8 byte tail; no alignment step",
          "Linux arch/x86/lib/memcpy_64.S (REP_GOOD: rep movsq + rep movsb); "
          "https://github.com/golang/go/issues/14630")
PB_MEMCPY("sse2", pb_memcpy_sse2, PB_F(SSE2), NULL, 0, PB_STORE_VECTOR, 16, PB_GLIBC_PATH_VECTOR,
          NULL, 0,
          "16-byte loads/stores: overlapping head/tail up to 64 B, else loop of 8 x 16 B to "
          "line-aligned destination, stores line by line",
          "glibc sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S (VEC_SIZE 16)")
PB_MEMCPY("sse2_nt", pb_memcpy_sse2_nt, PB_F(SSE2), "sse2", PB_LINE_BYTES, PB_STORE_NT, 16,
          PB_GLIBC_PATH_NT, NULL, 0,
          "movntdq stores on every whole line inside the destination, prefetcht1 3 KiB ahead, "
          "memcpy/sse2 around them (alone below 64 B); one sfence",
          "Intel Optimization Reference Manual (non-temporal stores; prefetch scheduling distance, "
          "chosen by measurement); glibc memmove-vec-unaligned-erms.S (large_memcpy)")
PB_MEMCPY("avx2", pb_memcpy_avx2, PB_F(AVX2), NULL, 0, PB_STORE_VECTOR, 32, PB_GLIBC_PATH_VECTOR,
          NULL, 0,
          "32-byte loads/stores: overlapping head/tail up to 128 B, else loop of 8 x 32 B to "
          "line-aligned destination, stores line by line",
          "glibc sysdeps/x86_64/multiarch/memmove-avx-unaligned-erms.S")
PB_MEMCPY("avx2_nt", pb_memcpy_avx2_nt, PB_F(AVX2), "avx2", PB_LINE_BYTES, PB_STORE_NT, 32,
          PB_GLIBC_PATH_NT, NULL, 0,
          "vmovntdq stores on every whole line inside the destination, prefetcht1 3 KiB ahead, "
          "memcpy/avx2 around them (alone below 64 B); one sfence",
          "Intel Optimization Reference Manual (non-temporal stores; prefetch scheduling distance, "
          "chosen by measurement); glibc memmove-vec-unaligned-erms.S (large_memcpy)")
PB_MEMCPY("avx512", pb_memcpy_avx512, PB_F(AVX512F) | PB_F(AVX512BW), NULL, 0, PB_STORE_VECTOR, 64,
          PB_GLIBC_PATH_VECTOR, NULL, PB_KF_AUTO_INLINE,
          "64-byte loads/stores: one masked load/store up to 64 B, head/tail up to 256 B, else "
          "loop of 4 x 64 B",
          "glibc sysdeps/x86_64/multiarch/memmove-evex-unaligned-erms.S / "
          "memmove-avx512-unaligned-erms.S")
PB_MEMCPY("avx512_nt", pb_memcpy_avx512_nt, PB_F(AVX512F) | PB_F(AVX512BW), "avx512", PB_LINE_BYTES,
          PB_STORE_NT, 64, PB_GLIBC_PATH_NT, NULL, 0,
          "vmovntdq zmm stores on every whole line inside the destination, prefetcht1 3 KiB "
          "ahead, memcpy/avx512 around them (alone below 64 B); one sfence",
          "Intel Optimization Reference Manual (non-temporal stores; prefetch scheduling distance, "
          "chosen by measurement); glibc memmove-vec-unaligned-erms.S (large_memcpy)")
PB_MEMCPY("movnti", pb_memcpy_movnti, PB_F(SSE2), "gpr_unrolled", PB_LINE_BYTES, PB_STORE_NT, 0,
          PB_GLIBC_PATH_NT,
          "glibc's non-temporal loop stores vectors (vmovntdq), not movnti: mapped to it", 0,
          "64-bit loads, movnti stores on every whole line inside the destination, "
          "memcpy/gpr_unrolled around them (alone below 64 B); one sfence per call",
          "Intel SDM Vol. 2B MOVNTI; Linux arch/x86/lib/usercopy_64.c (__memcpy_flushcache)")

PB_MEMMOVE("rep_movsb", pb_memmove_rep_movsb, 0, NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_NONE, NULL,
           0,
           "rep movsb both ways: forward, or backward with DF=1 (std; rep movsb; cld) when dst "
           "is inside the source",
           "FreeBSD commit f22068d91bf5 and glibc commit 88b57b8ed41d (backward rep movsb "
           "is slow: case M6)")
PB_MEMMOVE("rep_movsb_fwd_movsq_bwd", pb_memmove_rep_movsb_fwd_movsq_bwd, 0, NULL, 0, PB_STORE_REP,
           0, PB_GLIBC_PATH_NONE, NULL, 0,
           "forward rep movsb; backward std; rep movsq; cld over the words from the end, the "
           "first 8 bytes saved before and stored after",
           "Linux arch/x86/lib/memmove_64.S (std; rep movsq; cld and the saved head word)")
PB_MEMMOVE("avx2", pb_memmove_avx2, PB_F(AVX2), NULL, 0, PB_STORE_VECTOR, 32, PB_GLIBC_PATH_NONE,
           NULL, 0,
           "as memcpy/avx2 up to 128 B; above, head and tail loaded first, loop of 8 x 32 B "
           "forward, or backward from the end when dst is inside the source",
           "glibc sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S (more_8x_vec "
           "forward/backward)")
PB_MEMMOVE("avx512", pb_memmove_avx512, PB_F(AVX512F) | PB_F(AVX512BW), NULL, 0, PB_STORE_VECTOR,
           64, PB_GLIBC_PATH_NONE, NULL, PB_KF_AUTO_INLINE,
           "as memcpy/avx512 up to 256 B; above, head and tail loaded first, loop of 4 x 64 B "
           "forward, or backward from the end when dst is inside the source",
           "glibc sysdeps/x86_64/multiarch/memmove-evex-unaligned-erms.S (more_8x_vec "
           "forward/backward)")
