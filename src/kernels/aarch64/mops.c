/* mops.c - FEAT_MOPS kernels: the CPU's own memset, memcpy and memmove
 * instructions (Armv8.8-A, optional from Armv8.7-A): SETP/SETM/SETE,
 * CPYFP/CPYFM/CPYFE (forward-only copy), CPYP/CPYM/CPYE (copy that
 * allows overlap), and their non-temporal forms SETPN/SETMN/SETEN,
 * CPYFPN/CPYFMN/CPYFEN, CPYPN/CPYMN/CPYEN ("reads and writes
 * non-temporal"; the mnemonics as GNU as 2.40's opcode table and the Arm
 * ARM's C6.2 entries spell them).
 *
 * Checked against the Arm ARM (DDI 0487), C6.2 "CPYFP, CPYFM, CPYFE",
 * "CPYP, CPYM, CPYE", "SETP, SETM, SETE" and their N forms:
 *   - Each operation is a prologue (P), a main (M) and an epilogue (E)
 *     instruction. The implementation chooses one of two algorithms,
 *     option A or option B, which differ in the values the prologue
 *     leaves in the registers and in NZCV (the sign and meaning of the
 *     remaining size, where the addresses point, the copy direction). The
 *     main and epilogue instructions check that the registers and flags
 *     are in the form their option expects; when not (the thread moved to
 *     a CPU that chose the other option), they raise a Memory Copy and
 *     Memory Set exception (ESR_ELx.EC 0x27), and the OS rewinds to the
 *     prologue (Linux since 6.5: arm64_mops_reset_regs, arch/arm64/kernel/
 *     traps.c).
 *   - So software works with both options when it issues the three
 *     instructions back to back, in the order P, M, E, with the same
 *     registers, changes neither those registers nor NZCV in between,
 *     and assumes nothing about their values afterwards. That is what
 *     each asm statement below does: one statement, three consecutive
 *     instructions, the same operands, the registers declared read and
 *     written ("+r"), NZCV declared clobbered ("cc").
 *   - The registers must be distinct (Xd, Xs, Xn for CPY*; Xd, Xn, Xs
 *     for SET*) and none may be register 31, except that SET*'s Xs may be
 *     XZR: else the behaviour is CONSTRAINED UNPREDICTABLE. The operands
 *     are pinned to x3, x4 and x5 (explicit register variables), so the
 *     compiler cannot give two of them one register.
 *   - CPYF* is memcpy: correct when the buffers do not overlap or the
 *     destination is below the source. CPY* is memmove: the CPU picks
 *     the direction (forward or backward) from the addresses and size.
 *   - The size is any 64-bit value (sizes above 2^63 - 1 saturate); 0
 *     writes nothing.
 *
 * Not run here: Debian 12's QEMU 7.2 has no FEAT_MOPS (the instructions
 * raise SIGILL), so these rows say "not usable here (no mops)" under
 * emulation; the code is checked against the description above, and
 * GNU as 2.40 assembles it (it warns when a P/M/E sequence is broken).
 *
 * The mops_nt kernels use the non-temporal forms at every size (SETPN,
 * SETMN, SETEN; CPYFPN...; CPYPN...: Arm ARM C6.2), no size test of their
 * own.
 */
#include <stdint.h>

#include "blocks.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"

/* The assembler's permission for the FEAT_MOPS mnemonics in this one
 * statement's text (the compiler's own code stays armv8-a). */
#define MOPS_ARCH ".arch_extension mops\n\t"

/* SET<p>, SET<m>, SET<e> [dst]!, size!, value. */
#define SET3(p, m, e)                                                                              \
	MOPS_ARCH #p " [%0]!, %1!, %2\n\t" #m " [%0]!, %1!, %2\n\t" #e " [%0]!, %1!, %2"

/* CPY<p>, CPY<m>, CPY<e> [dst]!, [src]!, size!. */
#define CPY3(p, m, e)                                                                              \
	MOPS_ARCH #p " [%0]!, [%1]!, %2!\n\t" #m " [%0]!, [%1]!, %2!\n\t" #e " [%0]!, [%1]!, %2!"

#define MOPS_SET(text, dst, c, n)                                                                  \
	do {                                                                                       \
		register uint8_t *x3 __asm__("x3") = (dst);                                        \
		register size_t x4 __asm__("x4") = (n);                                            \
		register uint64_t x5 __asm__("x5") = (uint8_t)(c);                                 \
		__asm__ volatile(text : "+r"(x3), "+r"(x4) : "r"(x5) : "cc", "memory");            \
	} while (0)

#define MOPS_CPY(text, dst, src, n)                                                                \
	do {                                                                                       \
		register uint8_t *x3 __asm__("x3") = (dst);                                        \
		register const uint8_t *x4 __asm__("x4") = (src);                                  \
		register size_t x5 __asm__("x5") = (n);                                            \
		__asm__ volatile(text : "+r"(x3), "+r"(x4), "+r"(x5) : : "cc", "memory");          \
	} while (0)

void *pb_memset_mops(void *dst, int c, size_t n)
{
	MOPS_SET(SET3(setp, setm, sete), (uint8_t *)dst, c, n);
	return dst;
}

void *pb_memset_mops_nt(void *dst, int c, size_t n)
{
	MOPS_SET(SET3(setpn, setmn, seten), (uint8_t *)dst, c, n);
	return dst;
}

void *pb_memcpy_mops(void *restrict dst, const void *restrict src, size_t n)
{
	MOPS_CPY(CPY3(cpyfp, cpyfm, cpyfe), (uint8_t *)dst, (const uint8_t *)src, n);
	return dst;
}

void *pb_memcpy_mops_nt(void *restrict dst, const void *restrict src, size_t n)
{
	MOPS_CPY(CPY3(cpyfpn, cpyfmn, cpyfen), (uint8_t *)dst, (const uint8_t *)src, n);
	return dst;
}

void *pb_memmove_mops(void *dst, const void *src, size_t n)
{
	MOPS_CPY(CPY3(cpyp, cpym, cpye), (uint8_t *)dst, (const uint8_t *)src, n);
	return dst;
}

void *pb_memmove_mops_nt(void *dst, const void *src, size_t n)
{
	MOPS_CPY(CPY3(cpypn, cpymn, cpyen), (uint8_t *)dst, (const uint8_t *)src, n);
	return dst;
}
