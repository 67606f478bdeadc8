/* arm64_id.c - pure decoders of arm64 identification values and the judge
 * of emulation signs (src/cpu/arm64_id.h). Built on every architecture.
 *
 * The implementer and part codes are facts published in Arm's Technical
 * Reference Manuals (each TRM's "MIDR_EL1, Main ID Register" table) and
 * collected in Linux arch/arm64/include/asm/cputype.h, from which this
 * table was checked; products built on a part (Graviton, Altra, Grace)
 * are as their vendors describe them.
 */
#include <stdio.h>
#include <string.h>

#include "cpu/arm64_id.h"

struct pb_arm_hwcaps pb_arm_hwcaps_decode(uint64_t hwcap, uint64_t hwcap2)
{
	struct pb_arm_hwcaps c;
	c.asimd = (hwcap & PB_ARM_HWCAP_ASIMD) != 0;
	c.cpuid = (hwcap & PB_ARM_HWCAP_CPUID) != 0;
	c.sve = (hwcap & PB_ARM_HWCAP_SVE) != 0;
	c.sve2 = (hwcap2 & PB_ARM_HWCAP2_SVE2) != 0;
	c.mops = (hwcap2 & PB_ARM_HWCAP2_MOPS) != 0;
	return c;
}

unsigned pb_arm_dczva_block_bytes(uint64_t dczid)
{
	if (dczid & (1u << 4)) /* DZP: DC ZVA prohibited */
		return 0;
	return 4u << (dczid & 0xf);
}

unsigned pb_arm_ctr_dline_bytes(uint64_t ctr)
{
	return 4u << ((ctr >> 16) & 0xf);
}

struct implementer {
	unsigned code;
	const char *name;
};

/* Arm ARM D23.2, MIDR_EL1.Implementer. */
static const struct implementer implementers[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"},  {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},    {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x61, "Apple"},     {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

struct part {
	unsigned implementer, part;
	const char *name, *known_as;
};

static const struct part parts[] = {
    /* ARM (0x41): the Cortex-A and Neoverse TRMs */
    {0x41, 0xd03, "Cortex-A53", NULL},
    {0x41, 0xd04, "Cortex-A35", NULL},
    {0x41, 0xd05, "Cortex-A55", NULL},
    {0x41, 0xd07, "Cortex-A57", NULL},
    {0x41, 0xd08, "Cortex-A72", "AWS Graviton (first generation)"},
    {0x41, 0xd09, "Cortex-A73", NULL},
    {0x41, 0xd0a, "Cortex-A75", NULL},
    {0x41, 0xd0b, "Cortex-A76", NULL},
    {0x41, 0xd0c, "Neoverse N1", "AWS Graviton2, Ampere Altra"},
    {0x41, 0xd0d, "Cortex-A77", NULL},
    {0x41, 0xd40, "Neoverse V1", "AWS Graviton3"},
    {0x41, 0xd41, "Cortex-A78", NULL},
    {0x41, 0xd44, "Cortex-X1", NULL},
    {0x41, 0xd46, "Cortex-A510", NULL},
    {0x41, 0xd47, "Cortex-A710", NULL},
    {0x41, 0xd48, "Cortex-X2", NULL},
    {0x41, 0xd49, "Neoverse N2", NULL},
    {0x41, 0xd4a, "Neoverse E1", NULL},
    {0x41, 0xd4b, "Cortex-A78C", NULL},
    {0x41, 0xd4d, "Cortex-A715", NULL},
    {0x41, 0xd4e, "Cortex-X3", NULL},
    {0x41, 0xd4f, "Neoverse V2", "NVIDIA Grace, AWS Graviton4"},
    {0x41, 0xd80, "Cortex-A520", NULL},
    {0x41, 0xd81, "Cortex-A720", NULL},
    {0x41, 0xd82, "Cortex-X4", NULL},
    {0x41, 0xd84, "Neoverse V3", NULL},
    {0x41, 0xd85, "Cortex-X925", NULL},
    {0x41, 0xd87, "Cortex-A725", NULL},
    {0x41, 0xd8e, "Neoverse N3", NULL},
    /* Cavium, HiSilicon, NVIDIA */
    {0x43, 0x0af, "ThunderX2", NULL},
    {0x48, 0xd01, "TSV110", "Kunpeng 920"},
    {0x4e, 0x003, "Denver 2", NULL},
    {0x4e, 0x004, "Carmel", NULL},
    /* Fujitsu */
    {0x46, 0x001, "A64FX", NULL},
    /* Apple: efficiency / performance cores */
    {0x61, 0x022, "M1 Icestorm", NULL},
    {0x61, 0x023, "M1 Firestorm", NULL},
    {0x61, 0x024, "M1 Pro Icestorm", NULL},
    {0x61, 0x025, "M1 Pro Firestorm", NULL},
    {0x61, 0x028, "M1 Max Icestorm", NULL},
    {0x61, 0x029, "M1 Max Firestorm", NULL},
    {0x61, 0x032, "M2 Blizzard", NULL},
    {0x61, 0x033, "M2 Avalanche", NULL},
    {0x61, 0x034, "M2 Pro Blizzard", NULL},
    {0x61, 0x035, "M2 Pro Avalanche", NULL},
    {0x61, 0x038, "M2 Max Blizzard", NULL},
    {0x61, 0x039, "M2 Max Avalanche", NULL},
    /* Ampere's own cores (Altra is Neoverse N1 under ARM's code) */
    {0xc0, 0xac3, "AmpereOne", NULL},
    {0xc0, 0xac4, "AmpereOne AC04", NULL},
};

const char *pb_arm_implementer_name(unsigned implementer)
{
	for (size_t i = 0; i < sizeof implementers / sizeof implementers[0]; i++)
		if (implementers[i].code == implementer)
			return implementers[i].name;
	return NULL;
}

void pb_arm_midr_decode(uint64_t midr, struct pb_arm_midr *out)
{
	out->implementer = (unsigned)(midr >> 24) & 0xffu;
	out->variant = (unsigned)(midr >> 20) & 0xfu;
	out->architecture = (unsigned)(midr >> 16) & 0xfu;
	out->part = (unsigned)(midr >> 4) & 0xfffu;
	out->revision = (unsigned)midr & 0xfu;
	out->implementer_name = pb_arm_implementer_name(out->implementer);
	out->part_name = NULL;
	out->known_as = NULL;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (parts[i].implementer == out->implementer && parts[i].part == out->part) {
			out->part_name = parts[i].name;
			out->known_as = parts[i].known_as;
			break;
		}
	}
}

void pb_arm_ident_from_midr(uint64_t midr, struct pb_cpu_ident *out)
{
	struct pb_arm_midr m;
	pb_arm_midr_decode(midr, &m);
	if (m.implementer_name)
		snprintf(out->vendor, sizeof out->vendor, "%s", m.implementer_name);
	else
		snprintf(out->vendor, sizeof out->vendor, "arm-0x%02x", m.implementer);
	if (m.part_name)
		snprintf(out->brand, sizeof out->brand, "%s", m.part_name);
	else
		snprintf(out->brand, sizeof out->brand, "part 0x%03x", m.part);
	out->family = m.variant;
	out->model = m.part;
	out->stepping = m.revision;
}

/* ---- emulation ---------------------------------------------------------- */

/* The value of the first "key : value" line of text whose key is `key`,
 * copied into val (trimmed); false when there is none. */
static bool cpuinfo_value(const char *text, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		if (n > klen && !strncmp(p, key, klen) &&
		    (p[klen] == ' ' || p[klen] == '\t' || p[klen] == ':')) {
			const char *c = memchr(p, ':', n);
			if (c) {
				const char *v = c + 1;
				while (v < p + n && (*v == ' ' || *v == '\t'))
					v++;
				size_t vn = (size_t)(p + n - v);
				if (vn >= len)
					vn = len - 1;
				memcpy(val, v, vn);
				val[vn] = '\0';
				return true;
			}
		}
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

static void add_sign(struct pb_cpu_emulation *out, const char *sign)
{
	size_t used = strlen(out->signs);
	snprintf(out->signs + used, sizeof out->signs - used, "%s%s", used ? "; " : "", sign);
	out->emulated = true;
}

void pb_emulation_judge(const char *isa, const char *cpuinfo, uint64_t midr, double counter_hz,
                        struct pb_cpu_emulation *out)
{
	char val[128], sign[256];
	out->emulated = false;
	out->signs[0] = '\0';
	bool arm64 = isa && !strcmp(isa, "aarch64");
	bool x86 = isa && !strcmp(isa, "x86_64");
	if (!cpuinfo)
		cpuinfo = "";

	/* qemu-user (7.2) passes the host's /proc/cpuinfo through. */
	if (arm64 && cpuinfo_value(cpuinfo, "vendor_id", val, sizeof val)) {
		char model[96] = "";
		cpuinfo_value(cpuinfo, "model name", model, sizeof model);
		snprintf(sign, sizeof sign,
		         "/proc/cpuinfo names an x86 CPU (%s) while this code runs aarch64",
		         model[0] ? model : val);
		add_sign(out, sign);
	} else if (x86 && cpuinfo_value(cpuinfo, "CPU implementer", val, sizeof val)) {
		snprintf(sign, sizeof sign,
		         "/proc/cpuinfo names an arm64 CPU (implementer %s) while this code runs "
		         "x86_64",
		         val);
		add_sign(out, sign);
	}
	if (arm64 && midr != 0 && ((midr >> 24) & 0xff) == 0) {
		snprintf(sign, sizeof sign,
		         "MIDR_EL1 %#010llx has implementer 0x00 (reserved for software use; "
		         "QEMU's -cpu max is 0x000f0510)",
		         (unsigned long long)midr);
		add_sign(out, sign);
	}
	if (arm64 && counter_hz == PB_QEMU_CNTFRQ_HZ)
		add_sign(out, "CNTFRQ_EL0 is 62.5 MHz (QEMU's generic timer frequency)");
}
