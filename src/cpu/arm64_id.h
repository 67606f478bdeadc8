/* arm64_id.h - pure decoders of arm64 identification values: hwcap words,
 * MIDR_EL1, DCZID_EL0, CTR_EL0, and the judge of emulation signs. Generic
 * code (built on every architecture, so the unit tests run on x86 too);
 * src/cpu/aarch64/cpuid.c feeds them the registers it reads. Private to
 * the cpu module and its tests.
 */
#ifndef PRIMBENCH_CPU_ARM64_ID_H
#define PRIMBENCH_CPU_ARM64_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/cpu.h"

/* Bits of getauxval(AT_HWCAP) / AT_HWCAP2 on arm64 (Linux
 * arch/arm64/include/uapi/asm/hwcap.h, Documentation/arch/arm64/
 * elf_hwcaps.rst). Spelled here because Debian 12's headers lack
 * HWCAP2_MOPS (bit 43, Linux 6.5) and x86 has none of them. */
#define PB_ARM_HWCAP_ASIMD (UINT64_C(1) << 1)
#define PB_ARM_HWCAP_CPUID (UINT64_C(1) << 11)
#define PB_ARM_HWCAP_SVE   (UINT64_C(1) << 22)
#define PB_ARM_HWCAP2_SVE2 (UINT64_C(1) << 1)
#define PB_ARM_HWCAP2_MOPS (UINT64_C(1) << 43)

/* What the hwcap words say, as plain flags (arch-neutral, so that the
 * mapping is testable off arm64). */
struct pb_arm_hwcaps {
	bool asimd, sve, sve2, mops, cpuid;
};
struct pb_arm_hwcaps pb_arm_hwcaps_decode(uint64_t hwcap, uint64_t hwcap2);

/* DC ZVA block size in bytes from a DCZID_EL0 value, 0 when DC ZVA is
 * prohibited (Arm ARM D23.2 "DCZID_EL0, Data Cache Zero ID register":
 * DZP bit 4 set = prohibited; BS bits 3:0 = log2 of the block size in
 * 4-byte words). */
unsigned pb_arm_dczva_block_bytes(uint64_t dczid);

/* Smallest data cache line in bytes from a CTR_EL0 value (Arm ARM D23.2
 * "CTR_EL0, Cache Type Register": DminLine bits 19:16 = log2 of the line
 * in 4-byte words). */
unsigned pb_arm_ctr_dline_bytes(uint64_t ctr);

/* MIDR_EL1 fields (Arm ARM D23.2 "MIDR_EL1, Main ID Register":
 * Implementer 31:24, Variant 23:20, Architecture 19:16, PartNum 15:4,
 * Revision 3:0) and the names primbench knows for them. */
struct pb_arm_midr {
	unsigned implementer, variant, architecture, part, revision;
	const char *implementer_name; /* "ARM", "Apple", ...; NULL when unknown */
	const char *part_name;        /* "Neoverse N1", "A64FX", ...; NULL when unknown */
	const char *known_as;         /* products built on the part ("AWS Graviton2, Ampere
	                                 Altra"), or NULL */
};
void pb_arm_midr_decode(uint64_t midr, struct pb_arm_midr *out);

/* The implementer's name for an implementer code (the MIDR table; also
 * /proc/cpuinfo's "CPU implementer"), NULL when unknown. */
const char *pb_arm_implementer_name(unsigned implementer);

/* Fills identity fields from a MIDR value: vendor = implementer name
 * (else "arm-0xNN"), brand = part name (else "part 0xNNN"), family =
 * variant, model = part, stepping = revision (Arm's "rVpR"). */
void pb_arm_ident_from_midr(uint64_t midr, struct pb_cpu_ident *out);

/* QEMU's generic timer frequency (target/arm: 1 GHz / GTIMER_SCALE 16). */
#define PB_QEMU_CNTFRQ_HZ 62500000.0

/* Judges the signs of an emulated run, whose timings mean nothing
 * (docs/results-schema.md, `emulation.emulated`).
 * isa: the ISA this code runs ("aarch64", "x86_64", ...); cpuinfo: the
 * text of /proc/cpuinfo (NULL or "" when unreadable); midr: MIDR_EL1 (0
 * when unknown or not arm64); counter_hz: CNTFRQ_EL0 (0 when unknown).
 * Signs: /proc/cpuinfo describing another ISA's CPU (qemu-user passes
 * the host's file through), MIDR implementer 0x00 ("reserved for software
 * use": QEMU's -cpu max is 0x000f0510), CNTFRQ of exactly 62.5 MHz. Any
 * sign makes out->emulated true; out->signs lists them ("; "-separated). */
void pb_emulation_judge(const char *isa, const char *cpuinfo, uint64_t midr, double counter_hz,
                        struct pb_cpu_emulation *out);

#endif
