/* test_arm64_id.c - the arm64 identification decoders and the emulation
 * judge (src/cpu/arm64_id.h): pure functions over given register values
 * and text, so they run on every architecture. The values are the
 * architecture's encodings and QEMU's published ones, not this machine's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/arm64_id.h"
#include "primbench/cpu.h"

static void test_hwcaps(void **state)
{
	(void)state;
	struct pb_arm_hwcaps c = pb_arm_hwcaps_decode(0, 0);
	assert_false(c.asimd || c.sve || c.sve2 || c.mops || c.cpuid);
	c = pb_arm_hwcaps_decode(PB_ARM_HWCAP_ASIMD | PB_ARM_HWCAP_CPUID, 0);
	assert_true(c.asimd && c.cpuid);
	assert_false(c.sve || c.sve2 || c.mops);
	/* SVE2 and MOPS are in the second word; bit 43 is past 32 bits */
	c = pb_arm_hwcaps_decode(PB_ARM_HWCAP_SVE, PB_ARM_HWCAP2_SVE2 | PB_ARM_HWCAP2_MOPS);
	assert_true(c.sve && c.sve2 && c.mops);
	assert_false(c.asimd);
	assert_true(PB_ARM_HWCAP2_MOPS == (UINT64_C(1) << 43));
	/* the same bits in the other word mean something else */
	c = pb_arm_hwcaps_decode(PB_ARM_HWCAP2_SVE2, PB_ARM_HWCAP_SVE);
	assert_false(c.sve || c.sve2);
}

static void test_dczid(void **state)
{
	(void)state;
	/* BS = log2(words): 4 -> 16 words = 64 B; 6 -> 256 B; 7 -> 512 B */
	assert_int_equal(pb_arm_dczva_block_bytes(0x4), 64);
	assert_int_equal(pb_arm_dczva_block_bytes(0x6), 256);
	assert_int_equal(pb_arm_dczva_block_bytes(0x7), 512);
	assert_int_equal(pb_arm_dczva_block_bytes(0x0), 4);
	/* DZP (bit 4) prohibits DC ZVA whatever BS says */
	assert_int_equal(pb_arm_dczva_block_bytes(0x14), 0);
	assert_int_equal(pb_arm_dczva_block_bytes(0x10), 0);
	/* bits above 4 are RES0: ignored */
	assert_int_equal(pb_arm_dczva_block_bytes(0x100 | 0x4), 64);
}

static void test_ctr(void **state)
{
	(void)state;
	/* DminLine bits 19:16: 4 -> 64 B, 6 -> 256 B */
	assert_int_equal(pb_arm_ctr_dline_bytes(0x8444c004), 64);
	assert_int_equal(pb_arm_ctr_dline_bytes(0x86668006), 256);
	assert_int_equal(pb_arm_ctr_dline_bytes(0), 4);
}

static void test_midr(void **state)
{
	(void)state;
	struct pb_arm_midr m;
	/* Neoverse N1 r4p1 */
	pb_arm_midr_decode(0x414fd0c1, &m);
	assert_int_equal(m.implementer, 0x41);
	assert_int_equal(m.variant, 4);
	assert_int_equal(m.architecture, 0xf);
	assert_int_equal(m.part, 0xd0c);
	assert_int_equal(m.revision, 1);
	assert_string_equal(m.implementer_name, "ARM");
	assert_string_equal(m.part_name, "Neoverse N1");
	assert_non_null(strstr(m.known_as, "Graviton2"));
	/* Neoverse V2, Fujitsu A64FX, Apple M1 Firestorm, AmpereOne */
	pb_arm_midr_decode(0x410fd4f0, &m);
	assert_string_equal(m.part_name, "Neoverse V2");
	assert_non_null(strstr(m.known_as, "Grace"));
	pb_arm_midr_decode(0x461f0010, &m);
	assert_string_equal(m.implementer_name, "Fujitsu");
	assert_string_equal(m.part_name, "A64FX");
	pb_arm_midr_decode(0x611f0230, &m);
	assert_string_equal(m.implementer_name, "Apple");
	assert_string_equal(m.part_name, "M1 Firestorm");
	pb_arm_midr_decode(0xc00fac30, &m);
	assert_string_equal(m.implementer_name, "Ampere");
	assert_string_equal(m.part_name, "AmpereOne");
	/* a part number is only meaningful with its implementer: 0xd0c of
	 * Fujitsu is not a Neoverse N1 */
	pb_arm_midr_decode(0x460fd0c0, &m);
	assert_null(m.part_name);
	/* unknown implementer and part */
	pb_arm_midr_decode(0x000f0510, &m);
	assert_null(m.implementer_name);
	assert_null(m.part_name);
	assert_int_equal(m.part, 0x051);
}

static void test_ident_unknown_zero(void **state)
{
	(void)state;
	struct pb_cpu_ident id = {0};
	pb_arm_ident_from_midr(0x000f0510, &id); /* QEMU -cpu max */
	assert_string_equal(id.vendor, "arm-0x00");
	assert_string_equal(id.brand, "part 0x051");
}

static void test_ident_from_midr(void **state)
{
	(void)state;
	struct pb_cpu_ident id = {0};
	pb_arm_ident_from_midr(0x414fd0c1, &id);
	assert_string_equal(id.vendor, "ARM");
	assert_string_equal(id.brand, "Neoverse N1");
	assert_int_equal(id.family, 4);
	assert_int_equal(id.model, 0xd0c);
	assert_int_equal(id.stepping, 1);
	pb_arm_ident_from_midr(0x7a1ffff2, &id);
	assert_string_equal(id.vendor, "arm-0x7a");
	assert_string_equal(id.brand, "part 0xfff");
	assert_int_equal(id.stepping, 2);
	/* the /proc/cpuinfo path shares the implementer table */
	assert_string_equal(pb_arm_implementer_name(0x61), "Apple");
	assert_null(pb_arm_implementer_name(0x00));
}

static const char x86_cpuinfo[] = "processor\t: 0\n"
                                  "vendor_id\t: AuthenticAMD\n"
                                  "cpu family\t: 25\n"
                                  "model name\t: AMD EPYC 7B13\n"
                                  "flags\t\t: fpu sse2\n\n";
static const char arm_cpuinfo[] = "processor\t: 0\n"
                                  "BogoMIPS\t: 50.00\n"
                                  "Features\t: fp asimd evtstrm cpuid\n"
                                  "CPU implementer\t: 0x41\n"
                                  "CPU architecture: 8\n"
                                  "CPU part\t: 0xd0c\n\n";

static void test_emulation_judge(void **state)
{
	(void)state;
	struct pb_cpu_emulation e;
	/* a native arm64 machine: no signs */
	pb_emulation_judge("aarch64", arm_cpuinfo, 0x414fd0c1, 25e6, &e);
	assert_false(e.emulated);
	assert_string_equal(e.signs, "");
	/* qemu-user -cpu neoverse-n1: the host's cpuinfo and QEMU's counter */
	pb_emulation_judge("aarch64", x86_cpuinfo, 0x414fd0c1, 62.5e6, &e);
	assert_true(e.emulated);
	assert_non_null(strstr(e.signs, "names an x86 CPU (AMD EPYC 7B13)"));
	assert_non_null(strstr(e.signs, "; CNTFRQ_EL0 is 62.5 MHz"));
	assert_null(strstr(e.signs, "MIDR"));
	/* qemu-user -cpu max: all three */
	pb_emulation_judge("aarch64", x86_cpuinfo, 0x000f0510, 62.5e6, &e);
	assert_true(e.emulated);
	assert_non_null(strstr(e.signs, "MIDR_EL1 0x000f0510 has implementer 0x00"));
	/* each sign alone is enough */
	pb_emulation_judge("aarch64", arm_cpuinfo, 0x000f0510, 25e6, &e);
	assert_true(e.emulated);
	pb_emulation_judge("aarch64", NULL, 0, 62.5e6, &e);
	assert_true(e.emulated);
	/* unknown MIDR (0) and unreadable cpuinfo: nothing to go on */
	pb_emulation_judge("aarch64", "", 0, 0, &e);
	assert_false(e.emulated);
	/* x86: its own cpuinfo is no sign, and MIDR/CNTFRQ are not looked at */
	pb_emulation_judge("x86_64", x86_cpuinfo, 0, 62.5e6, &e);
	assert_false(e.emulated);
	/* x86 code under an arm64 host's emulator */
	pb_emulation_judge("x86_64", arm_cpuinfo, 0, 0, &e);
	assert_true(e.emulated);
	assert_non_null(strstr(e.signs, "names an arm64 CPU (implementer 0x41)"));
}

/* This machine: whatever it is, the judgement is consistent. */
static void test_emulation_here(void **state)
{
	(void)state;
	struct pb_cpu_emulation e;
	char line[600];
	pb_cpu_emulation(&e);
	pb_cpu_emulation_line(line, sizeof line);
	assert_int_equal(e.emulated, e.signs[0] != '\0');
	if (e.emulated)
		assert_non_null(strstr(line, "emulated (qemu-user?): timings mean nothing here"));
	else
		assert_string_equal(line, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hwcaps),
	    cmocka_unit_test(test_dczid),
	    cmocka_unit_test(test_ctr),
	    cmocka_unit_test(test_midr),
	    cmocka_unit_test(test_ident_unknown_zero),
	    cmocka_unit_test(test_ident_from_midr),
	    cmocka_unit_test(test_emulation_judge),
	    cmocka_unit_test(test_emulation_here),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
