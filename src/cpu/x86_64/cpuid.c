/* cpuid.c (x86-64) - features, identity and cache sizes straight from cpuid.
 *
 * A leaf is read only when the highest basic (leaf 0) or extended
 * (0x80000000) leaf covers it: past the maximum, Intel CPUs return the
 * data of the highest basic leaf instead of zeros (SDM Vol. 2A, CPUID).
 */
#include <cpuid.h>
#include <string.h>

#include "cpu/cpu_arch.h"

struct regs {
	unsigned a, b, c, d;
};

static struct regs cpuid(unsigned leaf, unsigned subleaf)
{
	struct regs r;
	__cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
	return r;
}

static unsigned max_basic(void)
{
	return cpuid(0, 0).a;
}

static unsigned max_extended(void)
{
	return cpuid(0x80000000u, 0).a;
}

static bool bit(unsigned reg, unsigned n)
{
	return (reg >> n) & 1u;
}

/* XCR0 through xgetbv; only valid when CPUID.1:ECX.OSXSAVE[27] is set
 * (otherwise xgetbv raises #UD). */
static uint64_t xcr0(void)
{
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

#define XCR0_SSE       (1u << 1)
#define XCR0_AVX       (1u << 2)
#define XCR0_OPMASK    (1u << 5)
#define XCR0_ZMM_HI256 (1u << 6)
#define XCR0_HI16_ZMM  (1u << 7)

pb_features pb_arch_features_detect(void)
{
	pb_features f = 0;
	unsigned basic = max_basic();
	unsigned ext = max_extended();
	struct regs l1 = basic >= 1 ? cpuid(1, 0) : (struct regs){0, 0, 0, 0};
	struct regs l7 = basic >= 7 ? cpuid(7, 0) : (struct regs){0, 0, 0, 0};

	/* The OS enabled a register state only if it set its XCR0 bits
	 * (SDM Vol. 1 13.3; AVX2 detection 14.7.1; AVX-512 15.2:
	 * OSXSAVE, then XCR0[2:1] = 11b and XCR0[7:5] = 111b). A CPU that
	 * reports AVX-512 under an OS that does not save ZMM state must not
	 * run AVX-512 code. */
	uint64_t x = bit(l1.c, 27) ? xcr0() : 0;
	bool os_avx = (x & (XCR0_SSE | XCR0_AVX)) == (XCR0_SSE | XCR0_AVX);
	bool os_avx512 = os_avx && (x & (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM)) ==
	                               (XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM);

	if (bit(l1.d, 26))
		f |= PB_F(SSE2);
	if (os_avx && bit(l1.c, 28) && bit(l7.b, 5))
		f |= PB_F(AVX2);
	if (os_avx512 && bit(l7.b, 16))
		f |= PB_F(AVX512F);
	if (os_avx512 && bit(l7.b, 16) && bit(l7.b, 30))
		f |= PB_F(AVX512BW);
	if (bit(l7.b, 9))
		f |= PB_F(ERMS);
	if (bit(l7.d, 4))
		f |= PB_F(FSRM);
	if (bit(l7.b, 23))
		f |= PB_F(CLFLUSHOPT);
	if (bit(l7.c, 28))
		f |= PB_F(MOVDIR64B);
	if (ext >= 0x80000001u && bit(cpuid(0x80000001u, 0).d, 27))
		f |= PB_F(RDTSCP);
	if (ext >= 0x80000007u && bit(cpuid(0x80000007u, 0).d, 8))
		f |= PB_F(INVARIANT_TSC);
	if (ext >= 0x80000008u && bit(cpuid(0x80000008u, 0).b, 0))
		f |= PB_F(CLZERO);
	return f;
}

static void copy_regs(char *dst, const unsigned *regs, int n)
{
	memcpy(dst, regs, (size_t)n * 4);
	dst[n * 4] = '\0';
}

void pb_arch_ident(struct pb_cpu_ident *out)
{
	struct regs r = cpuid(0, 0);
	unsigned vendor[3] = {r.b, r.d, r.c};
	copy_regs(out->vendor, vendor, 3);

	if (r.a >= 1) {
		struct regs l1 = cpuid(1, 0);
		unsigned base_family = (l1.a >> 8) & 0xf;
		unsigned base_model = (l1.a >> 4) & 0xf;
		/* Display family/model: SDM Vol. 2A, CPUID leaf 1, "Feature
		 * Information"; AMD applies the same rule (APM Vol. 3, E.3.2). */
		out->family =
		    base_family == 0xf ? base_family + ((l1.a >> 20) & 0xff) : base_family;
		out->model = (base_family == 0x6 || base_family == 0xf)
		                 ? base_model + (((l1.a >> 16) & 0xf) << 4)
		                 : base_model;
		out->stepping = l1.a & 0xf;
		out->hypervisor = bit(l1.c, 31);
	}
	if (out->hypervisor) {
		/* Hypervisor vendor leaf (by convention of KVM, Hyper-V, Xen,
		 * VMware); only meaningful when the hypervisor bit is set. */
		struct regs h = cpuid(0x40000000u, 0);
		unsigned sig[3] = {h.b, h.c, h.d};
		copy_regs(out->hypervisor_vendor, sig, 3);
	}

	if (max_extended() >= 0x80000004u) {
		unsigned brand[12];
		for (unsigned i = 0; i < 3; i++) {
			struct regs b = cpuid(0x80000002u + i, 0);
			brand[i * 4 + 0] = b.a;
			brand[i * 4 + 1] = b.b;
			brand[i * 4 + 2] = b.c;
			brand[i * 4 + 3] = b.d;
		}
		char raw[49];
		copy_regs(raw, brand, 12);
		/* Brand strings are padded with leading and trailing blanks. */
		const char *s = raw;
		while (*s == ' ')
			s++;
		size_t n = strlen(s);
		while (n > 0 && s[n - 1] == ' ')
			n--;
		memcpy(out->brand, s, n);
		out->brand[n] = '\0';
	}
}

/* Deterministic cache parameters: Intel leaf 4 and AMD leaf 0x8000001D
 * share the layout (EAX type/level, EBX ways/partitions/line, ECX sets). */
static void deterministic_leaf(unsigned leaf, uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
	unsigned top_level = 0;
	for (unsigned i = 0; i < 16; i++) {
		struct regs r = cpuid(leaf, i);
		unsigned type = r.a & 0x1f; /* 0 none, 1 data, 2 instruction, 3 unified */
		unsigned level = (r.a >> 5) & 0x7;
		if (type == 0)
			break;
		if (type == 2)
			continue;
		uint64_t ways = ((r.b >> 22) & 0x3ff) + 1;
		uint64_t parts = ((r.b >> 12) & 0x3ff) + 1;
		uint64_t line = (r.b & 0xfff) + 1;
		uint64_t sets = (uint64_t)r.c + 1;
		uint64_t size = ways * parts * line * sets;
		if (level == 1) {
			bytes[PB_CACHE_L1D] = size;
			*line_bytes = (unsigned)line;
		} else if (level == 2) {
			bytes[PB_CACHE_L2] = size;
		}
		if (level >= 2 && level >= top_level) {
			top_level = level;
			bytes[PB_CACHE_LLC] = size;
		}
	}
}

const char *pb_arch_cache_sizes(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
	char vendor[13];
	struct regs r = cpuid(0, 0);
	unsigned v[3] = {r.b, r.d, r.c};
	copy_regs(vendor, v, 3);
	unsigned basic = r.a;
	unsigned ext = max_extended();
	bool amd_like = !strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine");

	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		bytes[l] = 0;

	if (amd_like) {
		/* TopologyExtensions (0x80000001:ECX[22]) announces 0x8000001D. */
		if (ext >= 0x8000001Du && bit(cpuid(0x80000001u, 0).c, 22)) {
			deterministic_leaf(0x8000001Du, bytes, line_bytes);
			return "cpuid leaf 0x8000001D";
		}
		if (ext >= 0x80000006u) {
			struct regs l5 = cpuid(0x80000005u, 0);
			struct regs l6 = cpuid(0x80000006u, 0);
			bytes[PB_CACHE_L1D] = (uint64_t)(l5.c >> 24) * 1024; /* KiB */
			bytes[PB_CACHE_L2] = (uint64_t)(l6.c >> 16) * 1024;  /* KiB */
			uint64_t l3 = (uint64_t)(l6.d >> 18) * 512 * 1024;   /* 512 KiB units */
			bytes[PB_CACHE_LLC] = l3 ? l3 : bytes[PB_CACHE_L2];
			if (l5.c & 0xff)
				*line_bytes = l5.c & 0xff;
			return "cpuid leaves 0x80000005/0x80000006";
		}
		return NULL;
	}
	if (basic >= 4) {
		deterministic_leaf(4, bytes, line_bytes);
		return "cpuid leaf 4";
	}
	if (ext >= 0x80000006u) {
		/* Intel defines only L2 here (ECX[31:16] KiB). */
		struct regs l6 = cpuid(0x80000006u, 0);
		bytes[PB_CACHE_L2] = (uint64_t)(l6.c >> 16) * 1024;
		bytes[PB_CACHE_LLC] = bytes[PB_CACHE_L2];
		return "cpuid leaf 0x80000006";
	}
	return NULL;
}

const char *pb_arch_isa(void)
{
	return "x86_64";
}

uint64_t pb_arch_midr(void)
{
	return 0;
}

double pb_arch_counter_hz(void)
{
	return 0;
}

unsigned pb_arch_dczva_block_bytes(void)
{
	return 0;
}
