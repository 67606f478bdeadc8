/* primbench/cpu.h - what the CPU offers: features, identity, caches.
 *
 * Features come from cpuid and, for AVX state, XCR0 (Intel SDM Vol. 1
 * 13.3 "Enabling the XSAVE feature set"; AMD APM Vol. 3 appendix E).
 * A feature is "usable" when the CPU reports it, the OS enabled its
 * register state, and the user did not hide it (PRIMBENCH_HIDE_FEATURES or
 * --hide-features: a comma-separated list of pb_feature_name() values),
 * so fallback paths can be tested on a machine that has the feature.
 */
#ifndef PRIMBENCH_CPU_H
#define PRIMBENCH_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The features of the ISA this build is for (the enum is per ISA: names
 * and bits are only compared within one). */
#if defined(__aarch64__)
/* arm64: getauxval(AT_HWCAP/AT_HWCAP2) (Linux
 * Documentation/arch/arm64/elf_hwcaps.rst) and DCZID_EL0 (Arm ARM D23.2,
 * "DCZID_EL0, Data Cache Zero ID register"). */
enum pb_feature {
	PB_FEAT_ASIMD, /* HWCAP_ASIMD: Advanced SIMD (NEON) */
	PB_FEAT_SVE,   /* HWCAP_SVE: Scalable Vector Extension */
	PB_FEAT_SVE2,  /* HWCAP2_SVE2 */
	PB_FEAT_MOPS,  /* HWCAP2_MOPS (bit 43): FEAT_MOPS CPY and SET */
	PB_FEAT_DCZVA, /* DCZID_EL0.DZP == 0: DC ZVA permitted */
	PB_FEAT_CPUID, /* HWCAP_CPUID: EL0 reads of ID registers (MIDR_EL1) */
	PB_FEAT_COUNT
};
#else
enum pb_feature {
	PB_FEAT_SSE2,          /* cpuid 1:EDX[26] */
	PB_FEAT_AVX2,          /* cpuid 7.0:EBX[5] + XCR0 SSE|AVX */
	PB_FEAT_AVX512F,       /* cpuid 7.0:EBX[16] + XCR0 opmask|ZMM */
	PB_FEAT_AVX512BW,      /* cpuid 7.0:EBX[30] + XCR0 opmask|ZMM */
	PB_FEAT_ERMS,          /* cpuid 7.0:EBX[9] enhanced rep movsb/stosb */
	PB_FEAT_FSRM,          /* cpuid 7.0:EDX[4] fast short rep mov */
	PB_FEAT_CLZERO,        /* cpuid 0x80000008:EBX[0] (AMD) */
	PB_FEAT_RDTSCP,        /* cpuid 0x80000001:EDX[27] */
	PB_FEAT_INVARIANT_TSC, /* cpuid 0x80000007:EDX[8] */
	PB_FEAT_CLFLUSHOPT,    /* cpuid 7.0:EBX[23] */
	PB_FEAT_MOVDIR64B,     /* cpuid 7.0:ECX[28] */
	PB_FEAT_COUNT
};
#endif

/* Bit set of features: bit (1u << enum pb_feature). */
typedef uint32_t pb_features;
#define PB_F(feat) ((pb_features)1u << (PB_FEAT_##feat))

/* Short lower-case name ("avx512f", "erms", "invariant_tsc"). */
const char *pb_feature_name(enum pb_feature f);

/* The name of the feature f extends and cannot be used without ("avx512f"
 * for avx512bw, "sve" for sve2), NULL when none. */
const char *pb_feature_requires(enum pb_feature f);

/* Parses one feature name. Returns 0, or -1 with pb_error() set. */
int pb_feature_parse(const char *name, enum pb_feature *out);

/* Features the CPU and OS provide (cpuid + XCR0), ignoring any hiding.
 * On a non-x86 build: 0. Detected once, cached; thread-safe after the
 * first call. */
pb_features pb_cpu_features_detected(void);

/* Features hidden by the user. The first call reads PRIMBENCH_HIDE_FEATURES;
 * pb_cpu_hide_features() adds to the set. */
pb_features pb_cpu_features_hidden(void);

/* Hides a comma-separated list of feature names (e.g. "avx512f,erms").
 * Returns 0, or -1 with pb_error() set on an unknown name (nothing hidden). */
int pb_cpu_hide_features(const char *list);

/* Usable features: detected minus hidden (and a feature goes with the one
 * it requires: avx512bw with avx512f, sve2 with sve). */
pb_features pb_cpu_features(void);

/* Checks PRIMBENCH_HIDE_FEATURES. Returns 0, or -1 with pb_error() set
 * ("unknown feature 'avx3' in PRIMBENCH_HIDE_FEATURES"); a variable with an
 * unknown name hides nothing. The CLI calls this once and exits 2 on -1. */
int pb_cpu_hide_env_check(void);

/* CPU identity, as cpuid reports it (display family/model per Intel SDM
 * Vol. 2A CPUID leaf 1, extended family/model folded in). */
struct pb_cpu_ident {
	char vendor[13]; /* "GenuineIntel", "AuthenticAMD", or "unknown" */
	char brand[49];  /* cpuid 0x80000002-4 brand string, trimmed */
	unsigned family; /* display family */
	unsigned model;  /* display model */
	unsigned stepping;
	bool hypervisor;            /* cpuid 1:ECX[31] */
	int online_cpus;            /* sysconf(_SC_NPROCESSORS_ONLN) */
	char hypervisor_vendor[13]; /* cpuid 0x40000000 signature ("KVMKVMKVM"), or "" */
};
/* On arm64 with a readable MIDR_EL1: vendor = implementer ("ARM",
 * "Apple"), brand = part ("Neoverse N1"), family = variant, model = part
 * number, stepping = revision (Arm's rVpR). */
void pb_cpu_ident(struct pb_cpu_ident *out);

/* The identity the CPU itself reports (x86: cpuid), nothing read from
 * /proc/cpuinfo: vendor, brand, family, model, stepping and hypervisor
 * where the architecture can tell, "" / 0 elsewhere (online_cpus 0). No
 * allocation and no stdio, so it is safe inside a preloaded program's
 * first call (src/kernels/autopolicy.c). Never fails. */
void pb_cpu_ident_arch(struct pb_cpu_ident *out);

/* ---- arm64 identification and emulation ------------------------------ */

/* DC ZVA's block size in bytes (arm64: DCZID_EL0, Arm ARM D23.2; see
 * src/cpu/arm64_id.h), 0 when DC ZVA is prohibited or on another ISA.
 * Read once, cached. Never fails. */
unsigned pb_cpu_dczva_block_bytes(void);

/* The decoded MIDR_EL1 (arm64: sysfs midr_el1, else MRS MIDR_EL1 where
 * HWCAP_CPUID allows it), e.g. "0x414fd0c1: ARM Neoverse N1 r4p1 (AWS
 * Graviton2, Ampere Altra)". Returns false (buf "") when there is none
 * (another ISA, or unreadable). */
bool pb_cpu_midr_describe(char *buf, size_t len);

/* Whether this run looks emulated (qemu-user and the like), where timings
 * mean nothing: the signs are in src/cpu/arm64_id.h (pb_emulation_judge),
 * e.g. "/proc/cpuinfo names an x86 CPU (AMD EPYC) while this code runs
 * aarch64; MIDR_EL1 0x000f0510 has implementer 0x00 (reserved for software
 * use; QEMU's -cpu max)". On a native run: emulated false, signs "".
 * Judged once, cached. Never fails. */
struct pb_cpu_emulation {
	bool emulated;
	char signs[512]; /* "; "-separated, "" when none */
};
void pb_cpu_emulation(struct pb_cpu_emulation *out);

/* The one line commands print when pb_cpu_emulation() says emulated:
 * "emulated (qemu-user?): timings mean nothing here (signs: ...)"; ""
 * when not emulated. */
void pb_cpu_emulation_line(char *buf, size_t len);

/* ---- caches -------------------------------------------------------- */

enum pb_cache_level { PB_CACHE_L1D, PB_CACHE_L2, PB_CACHE_LLC, PB_CACHE_LEVELS };

/* Where a cache figure came from. */
enum pb_cache_source {
	PB_SRC_CPUID,    /* Intel leaf 4 / AMD leaf 0x8000001D (or 0x80000005/6) */
	PB_SRC_SYSFS,    /* /sys/devices/system/cpu/cpu0/cache/index* */
	PB_SRC_SYSCONF,  /* glibc sysconf(_SC_LEVEL*_CACHE_SIZE) */
	PB_SRC_HWLOC,    /* hwloc topology */
	PB_SRC_OVERRIDE, /* --l1-size/--l2-size/--llc-size */
	PB_SRC_FALLBACK, /* documented default used when no source is plausible */
	PB_SRC_COUNT
};
const char *pb_cache_source_name(enum pb_cache_source s);

/* One level's figures from every source, and the one chosen.
 * size_bytes of a source is 0 when that source gave nothing. */
struct pb_cache_level_info {
	uint64_t by_source_bytes[PB_SRC_COUNT];
	bool plausible[PB_SRC_COUNT]; /* passed the sanity checks */
	uint64_t size_bytes;          /* the figure primbench uses */
	enum pb_cache_source source;  /* where size_bytes came from */
	char note[160];               /* why a figure was rejected, or "" */
};

struct pb_cache_info {
	struct pb_cache_level_info level[PB_CACHE_LEVELS];
	unsigned line_bytes; /* cache line size, 64 when unknown */
};

/* Reads every source and chooses one figure per level (sanity rules and
 * fallbacks in docs/methodology.md; a machine that misreports them:
 * docs/cases.md, M2).
 * Overrides (0 = none) win when non-zero and are taken as given: check
 * them first with pb_cache_overrides_check(). The other levels are judged
 * without them (an override never gets a real figure of another level
 * rejected). Returns 0; never fails (a level with no plausible figure gets
 * PB_SRC_FALLBACK and a note). */
int pb_cache_detect(struct pb_cache_info *out, const uint64_t override_bytes[PB_CACHE_LEVELS]);

const char *pb_cache_level_name(enum pb_cache_level l); /* "L1d", "L2", "LLC" */

/* Checks one cache-size override (--l1-size, --l2-size, --llc-size): it
 * must be at least 1 KiB and at most this machine's RAM. Returns 0, or -1
 * with pb_error() set, e.g. "--l1-size 1 TiB is more than this machine's
 * RAM (23.54 GiB)" or "--llc-size 1 B is too small for a cache (at least
 * 1 KiB)". */
int pb_cache_override_check(enum pb_cache_level level, uint64_t bytes);

/* Checks a set of overrides (0 = none) as pb_cache_detect() takes them:
 * each with pb_cache_override_check(), and their order (a larger level's
 * override may not be smaller than a smaller level's: "--l2-size 32 KiB is
 * smaller than --l1-size 64 KiB"). NULL is fine. Returns 0, or -1 with
 * pb_error() set. */
int pb_cache_overrides_check(const uint64_t override_bytes[PB_CACHE_LEVELS]);

#endif
