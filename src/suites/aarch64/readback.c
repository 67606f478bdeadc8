/* aarch64/readback.c - the --then-read loop with the widest loads usable
 * here (suites/readback.h): with SVE vectors wider than 16 bytes, whole
 * vectors of the CPU's length (read_back_sve below); else, with Advanced
 * SIMD (asimd), two LDP of q-register pairs per iteration, 64 bytes in 4 x
 * 16-byte vectors; with asimd hidden too, LDP of x-register pairs. Each
 * load goes into its own XOR accumulator: four independent chains, so the
 * loop issues loads as fast as the core takes them (Arm's Neoverse
 * software optimization guides list two or three load pipes) and its time
 * is the memory's, not a dependency chain's. LDP (Arm ARM C6.2 "LDP",
 * C7.2 "LDP (SIMD&FP)") and LD1B take any address: unaligned accesses to
 * Normal memory are allowed (SCTLR_EL1.A is 0 under Linux), so a buffer at
 * any page offset. Tails below one step are read bytewise (SVE: by
 * predicated vectors).
 *
 * The loads are written in asm so that they are the instructions named
 * here whatever the compiler would choose; each asm has the bytes as a
 * memory input (or a "memory" clobber) and its results feed the returned
 * value, so it is neither dropped nor merged away (the caller keeps the
 * value in a volatile sink).
 */
#include <arm_neon.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "suites/readback.h"

static uint64_t tail_bytes(const unsigned char *b, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += (uint64_t)b[i] << (8 * (i % 8));
	return s;
}

/* The 32 bytes at b into two q registers, one instruction. */
#define LDP_Q(b, x, y)                                                                             \
	__asm__("ldp %q0, %q1, [%2]"                                                               \
	        : "=w"(x), "=w"(y)                                                                 \
	        : "r"(b), "m"(*(const unsigned char(*)[32])(b)))

/* The 64 bytes at b into four q registers, two instructions off one base. */
#define LDP_Q2(b, w, x, y, z)                                                                      \
	__asm__("ldp %q0, %q1, [%4]\n\tldp %q2, %q3, [%4, #32]"                                    \
	        : "=w"(w), "=w"(x), "=w"(y), "=w"(z)                                               \
	        : "r"(b), "m"(*(const unsigned char(*)[64])(b)))

static uint64_t read_back_ldp_q(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint8x16_t a0 = vdupq_n_u8(0), a1 = a0, a2 = a0, a3 = a0, v0, v1, v2, v3;
	size_t i = 0;
	for (; i + 64 <= n; i += 64) {
		LDP_Q2(b + i, v0, v1, v2, v3);
		a0 = veorq_u8(a0, v0);
		a1 = veorq_u8(a1, v1);
		a2 = veorq_u8(a2, v2);
		a3 = veorq_u8(a3, v3);
	}
	for (; i + 32 <= n; i += 32) {
		LDP_Q(b + i, v0, v1);
		a0 = veorq_u8(a0, v0);
		a1 = veorq_u8(a1, v1);
	}
	uint64x2_t x = vreinterpretq_u64_u8(veorq_u8(veorq_u8(a0, a1), veorq_u8(a2, a3)));
	return tail_bytes(b + i, n - i) ^ vgetq_lane_u64(x, 0) ^ vgetq_lane_u64(x, 1);
}

/* The 16 bytes at b into two x registers, one instruction. */
#define LDP_X(b, x, y)                                                                             \
	__asm__("ldp %0, %1, [%2]"                                                                 \
	        : "=r"(x), "=r"(y)                                                                 \
	        : "r"(b), "m"(*(const unsigned char(*)[16])(b)))

static uint64_t read_back_ldp_x(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, w0, w1, w2, w3;
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		LDP_X(b + i, w0, w1);
		LDP_X(b + i + 16, w2, w3);
		a0 ^= w0;
		a1 ^= w1;
		a2 ^= w2;
		a3 ^= w3;
	}
	return tail_bytes(b + i, n - i) ^ a0 ^ a1 ^ a2 ^ a3;
}

/* SVE, vector-length agnostic: four LD1B of one vector each per iteration
 * (whole vectors, [base, #k, mul vl]), XORed into z0..z3; the tail in
 * vectors predicated by WHILELO (Arm ARM C8.2 "LD1B (scalar plus
 * immediate)", "WHILELO"); the four folded and reduced by EORV over 64-bit
 * lanes. In asm with .arch_extension sve, so neither the build's -march
 * nor the compiler's SVE support matters: it runs only when the CPU has
 * SVE. Clobbers v0..v7 (GCC's names for z0..z7: caller-saved whole under
 * the AAPCS64) and p0, p1; "memory": it reads [b, b + n). */
static uint64_t read_back_sve(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t out, i = 0, step, end;
	__asm__(".arch_extension sve\n\t"
	        "mov z0.d, #0\n\t"
	        "mov z1.d, #0\n\t"
	        "mov z2.d, #0\n\t"
	        "mov z3.d, #0\n\t"
	        "ptrue p0.b\n\t"
	        "cntb %[step], all, mul #4\n\t"
	        "1:\n\t"
	        "add %[end], %[i], %[step]\n\t"
	        "cmp %[end], %[n]\n\t"
	        "b.hi 2f\n\t"
	        "add %[end], %[b], %[i]\n\t"
	        "ld1b {z4.b}, p0/z, [%[end]]\n\t"
	        "ld1b {z5.b}, p0/z, [%[end], #1, mul vl]\n\t"
	        "ld1b {z6.b}, p0/z, [%[end], #2, mul vl]\n\t"
	        "ld1b {z7.b}, p0/z, [%[end], #3, mul vl]\n\t"
	        "eor z0.d, z0.d, z4.d\n\t"
	        "eor z1.d, z1.d, z5.d\n\t"
	        "eor z2.d, z2.d, z6.d\n\t"
	        "eor z3.d, z3.d, z7.d\n\t"
	        "add %[i], %[i], %[step]\n\t"
	        "b 1b\n\t"
	        "2:\n\t"
	        "whilelo p1.b, %[i], %[n]\n\t"
	        "b.none 3f\n\t"
	        "ld1b {z4.b}, p1/z, [%[b], %[i]]\n\t"
	        "eor z0.d, z0.d, z4.d\n\t"
	        "incb %[i]\n\t"
	        "b 2b\n\t"
	        "3:\n\t"
	        "eor z0.d, z0.d, z1.d\n\t"
	        "eor z2.d, z2.d, z3.d\n\t"
	        "eor z0.d, z0.d, z2.d\n\t"
	        "ptrue p0.d\n\t"
	        "eorv d0, p0, z0.d\n\t"
	        "fmov %[out], d0"
	        : [out] "=r"(out), [i] "+r"(i), [step] "=&r"(step), [end] "=&r"(end)
	        : [b] "r"(b), [n] "r"((uint64_t)n)
	        : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "p0", "p1", "cc", "memory");
	return out;
}

/* The SVE vector in bytes (CNTB), for the description. */
static unsigned sve_vector_bytes(void)
{
	uint64_t vl;
	__asm__(".arch_extension sve\n\tcntb %0" : "=r"(vl));
	return (unsigned)vl;
}

pb_read_back_fn pb_read_back_pick(const char **what)
{
	pb_features have = pb_cpu_features();
	/* SVE when its vector is wider than a q register: at 16 bytes an LDP
	 * of two q registers loads as much per instruction. */
	unsigned vl = have & PB_F(SVE) ? sve_vector_bytes() : 0;
	if (vl > 16) {
		static char desc[48];
		snprintf(desc, sizeof desc, "%u-byte loads (ld1b, sve)", vl);
		*what = desc;
		return read_back_sve;
	}
	if (have & PB_F(ASIMD)) {
		*what = "16-byte loads (ldp q, asimd)";
		return read_back_ldp_q;
	}
	*what = "8-byte loads (ldp x)";
	return read_back_ldp_x;
}
