/* cpuid.c (arm64) - features from the kernel's hwcaps, identity from
 * MIDR_EL1, DC ZVA from DCZID_EL0, the line size from CTR_EL0.
 *
 * EL0 may read DCZID_EL0, CTR_EL0 (Linux sets SCTLR_EL1.UCT, or traps and
 * emulates) and CNTFRQ_EL0 directly. MIDR_EL1 is an EL1 register: Linux
 * traps and emulates EL0 reads of the ID registers when it reports
 * HWCAP_CPUID (Documentation/arch/arm64/cpu-feature-registers.rst), and
 * exports every CPU's value in sysfs (regs/identification/midr_el1),
 * which this file prefers. Cache sizes (CCSIDR_EL1) are EL1 only: the
 * generic code's sysfs path supplies them.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cpu/arm64_id.h"
#include "cpu/cpu_arch.h"

#define SYSFS_MIDR "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

static uint64_t read_dczid(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
	return v;
}

static uint64_t read_ctr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(v));
	return v;
}

static struct pb_arm_hwcaps hwcaps(void)
{
	return pb_arm_hwcaps_decode(getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
}

pb_features pb_arch_features_detect(void)
{
	struct pb_arm_hwcaps c = hwcaps();
	pb_features f = 0;
	if (c.asimd)
		f |= PB_F(ASIMD);
	if (c.sve)
		f |= PB_F(SVE);
	if (c.sve2)
		f |= PB_F(SVE2);
	if (c.mops)
		f |= PB_F(MOPS);
	if (c.cpuid)
		f |= PB_F(CPUID);
	if (pb_arm_dczva_block_bytes(read_dczid()) != 0)
		f |= PB_F(DCZVA);
	return f;
}

/* sysfs first (what the kernel itself read, no trap), else MRS where the
 * kernel emulates it; 0 when neither. open/read, not stdio: this is under
 * pb_cpu_ident_arch(), which must not allocate (the preload library's
 * first call). */
uint64_t pb_arch_midr(void)
{
	static uint64_t cached;
	static int done;
	if (__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&cached, __ATOMIC_RELAXED);
	uint64_t midr = 0;
	int fd = open(SYSFS_MIDR, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char buf[64];
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			midr = strtoull(buf, NULL, 0);
		}
	}
	if (!midr && hwcaps().cpuid)
		__asm__ volatile("mrs %0, midr_el1" : "=r"(midr));
	__atomic_store_n(&cached, midr, __ATOMIC_RELAXED);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return midr;
}

const char *pb_arch_isa(void)
{
	return "aarch64";
}

double pb_arch_counter_hz(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return (double)(v & 0xffffffffu); /* CNTFRQ_EL0 bits 31:0 */
}

unsigned pb_arch_dczva_block_bytes(void)
{
	return pb_arm_dczva_block_bytes(read_dczid());
}

void pb_arch_ident(struct pb_cpu_ident *out)
{
	uint64_t midr = pb_arch_midr();
	if (midr)
		pb_arm_ident_from_midr(midr, out);
}

const char *pb_arch_cache_sizes(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		bytes[l] = 0;
	*line_bytes = pb_arm_ctr_dline_bytes(read_ctr());
	return NULL; /* sizes: CCSIDR_EL1 is not readable at EL0 */
}
