/* arch_rows.h (aarch64) - kernels that need arm64 instructions: one row
 * each, read by the registry (table) and the kernel files (prototypes, via
 * protos.h). No include guard. Same format as x86_64/arch_rows.h:
 *
 * PB_MEMSET/PB_MEMCPY/PB_MEMMOVE(name, function, required features,
 * same_code_as, differs_from_bytes, store kind, vector bytes, glibc path,
 * glibc note, flags, description, source); struct pb_kernel,
 * include/primbench/kernels.h; flags PB_KF_*, protos.h.
 *
 * The glibc model (src/analysis/glibc_model.c) is x86-64's (its tunables are
 * x86_rep_*_threshold and x86_non_temporal_threshold): the arm64 rows map
 * to no path of it. The sve rows' vector bytes are 0: their code is
 * vector-length agnostic (the CPU's VL, 16 to 256 bytes). The MOPS rows
 * are string instructions like x86's rep movs/stos (PB_STORE_REP): the
 * CPU chooses how to run them.
 */

#define PB_ARM_GLIBC_NOTE "the glibc model is x86-64's"

PB_MEMSET("neon", pb_memset_neon, PB_F(ASIMD), NULL, 0, PB_STORE_VECTOR, 16, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0,
          "16-byte q-register stores: overlapping head/tail up to 64 B, else a 64-byte head, "
          "line-aligned STP q loop, 64-byte tail",
          "Arm ARM C7.2 STP (SIMD&FP); glibc sysdeps/aarch64/memset.S")
PB_MEMSET("neon_nt", pb_memset_neon_nt, PB_F(ASIMD), "neon", PB_LINE_BYTES, PB_STORE_NT, 16,
          PB_GLIBC_PATH_NONE, PB_ARM_GLIBC_NOTE, 0,
          "STNP q (non-temporal pair) on every whole line inside the buffer, memset/neon around "
          "them (and alone below 64 B, where no line fits)",
          "Arm ARM C7.2 STNP (SIMD&FP)")
PB_MEMSET("dc_zva", pb_memset_dc_zva, PB_F(ASIMD) | PB_F(DCZVA), "neon", PB_NT_MIN_BYTES + 1,
          PB_STORE_LINE, 0, PB_GLIBC_PATH_NONE, PB_ARM_GLIBC_NOTE, PB_KF_NOT_TUNED,
          "DC ZVA on whole aligned blocks (DCZID_EL0 size) when the value is 0 (above 256 B), "
          "else memset/neon",
          "Arm ARM C5.3 DC ZVA, D23.2 DCZID_EL0; Linux arch/arm64/lib/clear_page.S")
PB_MEMSET("sve", pb_memset_sve, PB_F(SVE), NULL, 0, PB_STORE_VECTOR, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0,
          "SVE stores, vector-length agnostic: 4 whole vectors per step, the rest by a "
          "whilelo-predicated loop (no scalar tail)",
          "Arm SVE supplement: WHILELO, ST1B; Arm ACLE for SVE (svwhilelt_b8)")
PB_MEMSET("mops", pb_memset_mops, PB_F(MOPS), NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0, "FEAT_MOPS SETP/SETM/SETE for every size (the CPU's own memset)",
          "Arm ARM C6.2 SETP, SETM, SETE; glibc sysdeps/aarch64/multiarch/memset_mops.S")
PB_MEMSET("mops_nt", pb_memset_mops_nt, PB_F(MOPS), NULL, 0, PB_STORE_NT, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0, "the non-temporal SETPN/SETMN/SETEN for every size",
          "Arm ARM C6.2 SETPN, SETMN, SETEN")

PB_MEMCPY("neon", pb_memcpy_neon, PB_F(ASIMD), NULL, 0, PB_STORE_VECTOR, 16, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0,
          "16-byte q-register loads/stores: overlapping head/tail up to 64 B, else a 64-byte "
          "head, LDP/STP q loop to line-aligned destination, 64-byte tail",
          "Arm ARM C7.2 LDP, STP (SIMD&FP); glibc sysdeps/aarch64/memcpy.S")
PB_MEMCPY("neon_nt", pb_memcpy_neon_nt, PB_F(ASIMD), "neon", PB_LINE_BYTES, PB_STORE_NT, 16,
          PB_GLIBC_PATH_NONE, PB_ARM_GLIBC_NOTE, 0,
          "LDNP q loads and STNP q stores on every whole line inside the destination, "
          "memcpy/neon around them (and alone below 64 B)",
          "Arm ARM C7.2 LDNP, STNP (SIMD&FP)")
PB_MEMCPY("sve", pb_memcpy_sve, PB_F(SVE), NULL, 0, PB_STORE_VECTOR, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0,
          "SVE loads/stores, vector-length agnostic: 4 whole vectors per step, the rest by a "
          "whilelo-predicated loop",
          "Arm SVE supplement: WHILELO, LD1B, ST1B; glibc sysdeps/aarch64/multiarch/memcpy_sve.S")
PB_MEMCPY("mops", pb_memcpy_mops, PB_F(MOPS), NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0, "FEAT_MOPS CPYFP/CPYFM/CPYFE (forward-only copy) for every size",
          "Arm ARM C6.2 CPYFP, CPYFM, CPYFE; glibc sysdeps/aarch64/multiarch/memcpy_mops.S")
PB_MEMCPY("mops_nt", pb_memcpy_mops_nt, PB_F(MOPS), NULL, 0, PB_STORE_NT, 0, PB_GLIBC_PATH_NONE,
          PB_ARM_GLIBC_NOTE, 0,
          "CPYFPN/CPYFMN/CPYFEN (reads and writes non-temporal) for every size",
          "Arm ARM C6.2 CPYFPN, CPYFMN, CPYFEN")

PB_MEMMOVE("neon", pb_memmove_neon, PB_F(ASIMD), NULL, 0, PB_STORE_VECTOR, 16, PB_GLIBC_PATH_NONE,
           NULL, 0,
           "up to 64 B all loads before the stores; above, 64-byte blocks (4 q loads, then "
           "stores) forward, or backward from the end when dst is inside the source",
           "glibc sysdeps/aarch64/memcpy.S (memmove: copy backwards on overlap)")
PB_MEMMOVE("neon_nt", pb_memmove_neon_nt, PB_F(ASIMD), "neon", PB_LINE_BYTES, PB_STORE_NT, 16,
           PB_GLIBC_PATH_NONE, NULL, 0,
           "from 64 B, memmove/neon's 64-byte blocks with LDNP q loads and STNP q stores; "
           "below, memmove/neon",
           "Arm ARM C7.2 LDNP, STNP (SIMD&FP)")
PB_MEMMOVE("sve", pb_memmove_sve, PB_F(SVE), NULL, 0, PB_STORE_VECTOR, 0, PB_GLIBC_PATH_NONE, NULL,
           0,
           "SVE, vector-length agnostic: whole vectors forward, or backward from the end when "
           "dst is inside the source; the rest by one whilelo-predicated vector",
           "Arm SVE supplement: WHILELO, LD1B, ST1B; glibc sysdeps/aarch64/multiarch/memcpy_sve.S")
PB_MEMMOVE("mops", pb_memmove_mops, PB_F(MOPS), NULL, 0, PB_STORE_REP, 0, PB_GLIBC_PATH_NONE, NULL,
           0, "FEAT_MOPS CPYP/CPYM/CPYE (the CPU picks the direction) for every size",
           "Arm ARM C6.2 CPYP, CPYM, CPYE; glibc sysdeps/aarch64/multiarch/memmove_mops.S")
PB_MEMMOVE("mops_nt", pb_memmove_mops_nt, PB_F(MOPS), NULL, 0, PB_STORE_NT, 0, PB_GLIBC_PATH_NONE,
           NULL, 0, "CPYPN/CPYMN/CPYEN (reads and writes non-temporal) for every size",
           "Arm ARM C6.2 CPYPN, CPYMN, CPYEN")

#undef PB_ARM_GLIBC_NOTE
