/* cpu_arch.h - what each architecture's src/cpu/<arch>/cpuid.c provides to
 * the generic cpu code (arch code replaces the whole file: no #ifdef of
 * an architecture in the generic code).
 */
#ifndef PRIMBENCH_CPU_ARCH_H
#define PRIMBENCH_CPU_ARCH_H

#include "primbench/cpu.h"

/* Features the CPU reports and the OS enabled (x86: cpuid + XCR0); 0 on
 * an architecture without detection. Pure: may be called more than once. */
pb_features pb_arch_features_detect(void);

/* Fills vendor, brand, family, model, stepping, hypervisor and
 * hypervisor_vendor where the architecture can tell; leaves "" / 0 where
 * not (the generic code then tries /proc/cpuinfo). */
void pb_arch_ident(struct pb_cpu_ident *out);

/* Cache sizes from the CPU itself (x86: cpuid leaf 4, or AMD 0x8000001D /
 * 0x80000005-6), 0 where unknown. LLC is the highest level reported (L2
 * when no L3 exists). *line_bytes is set when known. Returns a short
 * description of the leaves used ("cpuid leaf 4"), or NULL when none. */
const char *pb_arch_cache_sizes(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes);

/* The ISA this build runs ("x86_64", "aarch64"; the none build: the
 * machine uname reports). For the emulation judge (src/cpu/arm64_id.h). */
const char *pb_arch_isa(void);

/* arm64: MIDR_EL1 (sysfs midr_el1 of cpu0, else MRS MIDR_EL1 when
 * HWCAP_CPUID); 0 elsewhere or when unreadable. */
uint64_t pb_arch_midr(void);

/* arm64: CNTFRQ_EL0 in Hz (the generic timer's stated frequency); 0
 * elsewhere. */
double pb_arch_counter_hz(void);

/* arm64: DC ZVA block size in bytes from DCZID_EL0, 0 when prohibited; 0
 * elsewhere. */
unsigned pb_arch_dczva_block_bytes(void);

/* Generic helper (cpu.c): identity fields from /proc/cpuinfo for those
 * still empty. */
void pb_cpu_ident_from_proc(struct pb_cpu_ident *out);

#endif
