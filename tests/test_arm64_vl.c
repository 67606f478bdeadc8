/* test_arm64_vl.c - arm64 only (tests/CMakeLists.txt registers it where
 * PB_ARCH is aarch64): the vector length and DC ZVA block size the test
 * runs with are the ones its caller asked for, and every arm64 kernel row
 * usable here is correct at the sizes and alignments where those two
 * matter.
 *
 * make test-arm64 runs it under qemu-aarch64 at several -cpu settings
 * (max with sve128=on, sve256=on, sve-default-vector-length=256 (bytes),
 * a64fx, neoverse-n1), setting:
 *   PB_EXPECT_SVE_VL_BYTES  the SVE vector length in bytes the run must
 *                           have: prctl(PR_SVE_GET_VL) & PR_SVE_VL_LEN_MASK
 *                           (Linux Documentation/arch/arm64/sve.rst) and
 *                           RDVL agree with it; skipped when unset or
 *                           without SVE (HWCAP_SVE).
 *   PB_EXPECT_ZVA_BYTES     the DC ZVA block size: 4 << DCZID_EL0.BS (Arm
 *                           ARM D23.2 DCZID_EL0), with DZP clear; skipped
 *                           when unset.
 * The sweep: sizes 0..4 VL + 67 (VL: the SVE vector length, 16 without
 * SVE) at every dst and src offset 0..15 (memset: values 0, the DC ZVA
 * case, and 0xA5); memmove also within one buffer at distances around 1,
 * 16, VL and 4 VL in both directions, the lower pointer at offsets 0..3
 * and 15; then a few large sizes (pages, 1 MiB, where
 * kernel revision 1's NT rows began to stream, and beyond), memmove's overlapping
 * there too (the selftest's overlaps stop at 64 KiB). Every byte outside
 * the destination must keep its value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"

#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51 /* linux/prctl.h */
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK 0xffff
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1ul << 22) /* asm/hwcap.h */
#endif

static bool have_sve(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
}

/* The SVE vector length in bytes (the kernel's view), 0 without SVE. */
static size_t sve_vl_bytes(void)
{
	if (!have_sve())
		return 0;
	int r = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
	return r < 0 ? 0 : (size_t)(r & PR_SVE_VL_LEN_MASK);
}

/* An expected size from the environment, 0 when unset. */
static size_t expected(const char *name)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long x = strtoul(v, &end, 10);
	if (*end || x == 0)
		fail_msg("%s='%s': not a positive number of bytes", name, v);
	return (size_t)x;
}

static void test_sve_vl(void **state)
{
	(void)state;
	size_t want = expected("PB_EXPECT_SVE_VL_BYTES");
	if (!want) {
		print_message("PB_EXPECT_SVE_VL_BYTES unset\n");
		skip();
	}
	if (!have_sve()) {
		print_message("no SVE (HWCAP_SVE clear)\n");
		skip();
	}
	size_t vl = sve_vl_bytes();
	/* RDVL: the vector length the instructions use, in this thread. */
	uint64_t rdvl;
	__asm__ volatile(".arch_extension sve\n\trdvl %0, #1" : "=r"(rdvl));
	print_message("SVE vector length: prctl %zu bytes, rdvl %llu bytes, expected %zu\n", vl,
	              (unsigned long long)rdvl, want);
	assert_int_equal(vl, want);
	assert_int_equal(rdvl, want);
}

static void test_zva_block(void **state)
{
	(void)state;
	size_t want = expected("PB_EXPECT_ZVA_BYTES");
	if (!want) {
		print_message("PB_EXPECT_ZVA_BYTES unset\n");
		skip();
	}
	uint64_t id;
	__asm__ volatile("mrs %0, dczid_el0" : "=r"(id));
	size_t bytes = (size_t)4 << (id & 0xf);
	print_message("DCZID_EL0 = %#llx: block %zu bytes, DC ZVA %s; expected %zu\n",
	              (unsigned long long)id, bytes, id & 0x10 ? "prohibited" : "permitted", want);
	assert_int_equal(id & 0x10, 0);
	assert_int_equal(bytes, want);
}

/* ---- the sweep ---- */

#define SLACK     64                         /* checked bytes after the destination */
#define LARGE_MAX (((size_t)4 << 20) + 4096) /* the largest size swept */
#define BUF_BYTES (LARGE_MAX + 8192)

static uint8_t *buf_dst, *buf_src, *buf_ref;

static uint8_t fill_byte(size_t i)
{
	return (uint8_t)(i * 7 + 3 + (i >> 8));
}
static uint8_t src_byte(size_t i)
{
	return (uint8_t)((i * 13 + 5) ^ (i >> 9));
}

static void fill(uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		b[i] = fill_byte(i);
}

/* [0, len) of got against want: the first difference fails the test. */
static void compare(const struct pb_kernel *k, const uint8_t *got, const uint8_t *want, size_t len,
                    const char *what)
{
	if (!memcmp(got, want, len))
		return;
	size_t i = 0;
	while (got[i] == want[i])
		i++;
	fail_msg("%s/%s: %s: byte %zu is %02x, want %02x", pb_op_name(k->op), k->name, what, i,
	         got[i], want[i]);
}

static void check_set(const struct pb_kernel *k, size_t off, size_t n, int c)
{
	size_t len = off + n + SLACK;
	fill(buf_dst, len);
	fill(buf_ref, len);
	for (size_t i = off; i < off + n; i++)
		buf_ref[i] = (uint8_t)c;
	char what[80];
	snprintf(what, sizeof what, "n=%zu dst+%zu c=%#x", n, off, (unsigned)(uint8_t)c);
	if (k->memset_fn(buf_dst + off, c, n) != buf_dst + off)
		fail_msg("%s/%s: %s: wrong return value", pb_op_name(k->op), k->name, what);
	compare(k, buf_dst, buf_ref, len, what);
}

/* Separate buffers (memcpy, and memmove without overlap). */
static void check_copy(const struct pb_kernel *k, size_t doff, size_t soff, size_t n)
{
	size_t len = doff + n + SLACK;
	fill(buf_dst, len);
	fill(buf_ref, len);
	for (size_t i = 0; i < n; i++)
		buf_ref[doff + i] = buf_src[soff + i];
	char what[80];
	snprintf(what, sizeof what, "n=%zu dst+%zu src+%zu", n, doff, soff);
	void *d = buf_dst + doff;
	void *r = k->op == PB_OP_MEMCPY ? k->memcpy_fn(d, buf_src + soff, n)
	                                : k->memmove_fn(d, buf_src + soff, n);
	if (r != d)
		fail_msg("%s/%s: %s: wrong return value", pb_op_name(k->op), k->name, what);
	compare(k, buf_dst, buf_ref, len, what);
	/* The source is never written. */
	for (size_t i = soff; i < soff + n; i++)
		if (buf_src[i] != src_byte(i))
			fail_msg("%s/%s: %s: wrote the source", pb_op_name(k->op), k->name, what);
}

/* One buffer: dst - src = dist, the lower of the two at offset lo. */
static void check_overlap(const struct pb_kernel *k, size_t lo, ptrdiff_t dist, size_t n)
{
	size_t mag = dist < 0 ? (size_t)-dist : (size_t)dist;
	size_t doff = lo + (dist > 0 ? mag : 0), soff = lo + (dist < 0 ? mag : 0);
	size_t len = lo + mag + n + SLACK;
	fill(buf_dst, len);
	fill(buf_ref, len);
	/* The reference: the source bytes as they were, in place. */
	for (size_t i = 0; i < n; i++)
		buf_ref[doff + i] = fill_byte(soff + i);
	char what[96];
	snprintf(what, sizeof what, "n=%zu overlapping, dst - src = %td, lower at +%zu", n, dist,
	         lo);
	if (k->memmove_fn(buf_dst + doff, buf_dst + soff, n) != buf_dst + doff)
		fail_msg("%s/%s: %s: wrong return value", pb_op_name(k->op), k->name, what);
	compare(k, buf_dst, buf_ref, len, what);
}

static void test_sweep(void **state)
{
	const struct pb_kernel *k = *state;
	char why[128];
	if (!pb_kernel_usable(k, pb_cpu_features(), why, sizeof why)) {
		print_message("%s/%s: %s\n", pb_op_name(k->op), k->name, why);
		skip();
	}
	size_t vl = sve_vl_bytes();
	if (vl < 16)
		vl = 16;
	size_t top = 4 * vl + 67;
	unsigned long long calls = 0;
	for (size_t n = 0; n <= top; n++)
		for (size_t d = 0; d < 16; d++) {
			if (k->op == PB_OP_MEMSET) {
				check_set(k, d, n, 0);
				check_set(k, d, n, 0xA5);
				calls += 2;
				continue;
			}
			for (size_t s = 0; s < 16; s++, calls++)
				check_copy(k, d, s, n);
			/* Overlaps: the distance sets the relative alignment; the
			 * lower pointer at a few offsets (the run time at 2048-bit
			 * vectors under QEMU stays in minutes). */
			if (k->op != PB_OP_MEMMOVE || (d > 3 && d != 15))
				continue;
			const ptrdiff_t v = (ptrdiff_t)vl;
			const ptrdiff_t dists[] = {1, 15, 16, 17, v - 1, v, v + 1, 4 * v};
			for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++, calls += 2) {
				check_overlap(k, d, dists[i], n);
				check_overlap(k, d, -dists[i], n);
			}
		}
	/* Large: pages, around 1 MiB (kernel revision 1's NT bound), beyond. */
	const size_t large[] = {4095,
	                        4096,
	                        4097,
	                        65536 + 67,
	                        ((size_t)1 << 20) - 1,
	                        (size_t)1 << 20,
	                        ((size_t)1 << 20) + 1,
	                        ((size_t)1 << 20) + top,
	                        ((size_t)4 << 20) + 33};
	const size_t offs[][2] = {{0, 0}, {1, 15}, {15, 3}};
	for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
		for (size_t j = 0; j < sizeof offs / sizeof offs[0]; j++) {
			size_t n = large[i], d = offs[j][0], s = offs[j][1];
			calls++;
			if (k->op == PB_OP_MEMSET) {
				check_set(k, d, n, j == 2 ? 0xA5 : 0);
				continue;
			}
			check_copy(k, d, s, n);
			if (k->op != PB_OP_MEMMOVE || j > 0)
				continue;
			const ptrdiff_t dists[] = {1, 64, (ptrdiff_t)vl + 1, 4096};
			for (size_t t = 0; t < sizeof dists / sizeof dists[0]; t++, calls += 2) {
				check_overlap(k, d, dists[t], n);
				check_overlap(k, d, -dists[t], n);
			}
		}
	print_message("%s/%s: %llu calls, sizes 0..%zu and large, VL %zu bytes\n",
	              pb_op_name(k->op), k->name, calls, top, vl);
}

static int setup(void **state)
{
	(void)state;
	if (posix_memalign((void **)&buf_dst, 4096, BUF_BYTES) ||
	    posix_memalign((void **)&buf_src, 4096, BUF_BYTES) ||
	    posix_memalign((void **)&buf_ref, 4096, BUF_BYTES))
		return -1;
	for (size_t i = 0; i < BUF_BYTES; i++)
		buf_src[i] = src_byte(i);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(buf_dst);
	free(buf_src);
	free(buf_ref);
	return 0;
}

int main(void)
{
	size_t count, n = 0;
	const struct pb_kernel *t = pb_kernels(&count);
	struct CMUnitTest *tests = calloc(count + 2, sizeof *tests);
	char(*names)[48] = calloc(count, sizeof *names);
	if (!tests || !names)
		return 1;
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_sve_vl);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_zva_block);
	/* The arm64 rows: those that need an arm64 feature (the portable
	 * rows are swept by test_kernels). */
	for (size_t i = 0; i < count; i++) {
		if (!t[i].requires)
			continue;
		snprintf(names[i], sizeof names[i], "sweep %s/%s", pb_op_name(t[i].op), t[i].name);
		tests[n++] = (struct CMUnitTest){
		    .name = names[i], .test_func = test_sweep, .initial_state = (void *)&t[i]};
	}
	int failed = _cmocka_run_group_tests("arm64_vl", tests, n, setup, teardown);
	free(names);
	free(tests);
	return failed;
}
