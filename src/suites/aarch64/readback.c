/* aarch64/readback.c - the --then-read loop with the widest loads usable
 * here (suites/readback.h): with Advanced SIMD (asimd), two LDP of
 * q-register pairs per iteration, 64 bytes in 4 x 16-byte vectors, each
 * XORed into its own accumulator: four independent chains, so the loop
 * issues loads as fast as the core takes them (Arm Neoverse software
 * optimization guides: two or three 128-bit load pipes) and its time is
 * the memory's, not a dependency chain's. LDP Qt1, Qt2 (Arm ARM C6.2 "LDP
 * (SIMD&FP)") takes any address: unaligned accesses to Normal memory are
 * allowed (SCTLR_EL1.A is 0 under Linux), so a buffer at any page offset.
 * With asimd hidden: pairs of 8-byte general-purpose loads. Tails below
 * one step are read bytewise.
 *
 * The loads are written in asm so that they are LDP of q registers
 * whatever the compiler would choose; the asm has the bytes as a memory
 * input and its results feed the returned value, so it is neither dropped
 * nor merged away (the caller keeps the value in a volatile sink).
 */
#include <arm_neon.h>

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

pb_read_back_fn pb_read_back_pick(const char **what)
{
	if (pb_cpu_features() & PB_F(ASIMD)) {
		*what = "16-byte loads (ldp q, asimd)";
		return read_back_ldp_q;
	}
	*what = "8-byte loads (ldp x)";
	return read_back_ldp_x;
}
