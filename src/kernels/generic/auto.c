/* auto.c - the auto kernels: one size-class dispatch in front of the
 * catalogue's kernels (include/primbench/auto.h).
 *
 * A dispatch table per op holds the policy's inclusive upper bounds and the
 * kernels' function pointers side by side, so a call costs the bound
 * compares of the bands below its size, one load and one indirect call
 * (the policy's kernel struct is not touched on the hot path).
 *
 * The entry points (pb_memset_auto, ...) are the architecture's:
 * src/kernels/none/auto_none.c calls the dispatch; src/kernels/x86_64/
 * auto_x86.c is an ifunc whose AVX-512 version runs sizes <= 512 bytes
 * that a band of avx512 serves itself, saving the dispatch
 * (docs/performance.md).
 *
 * Lives with the kernels (compiled -fno-builtin): the copies below are
 * loops of fields, never struct assignments, which the compiler could turn
 * into memcpy calls (the kernel-symbols test forbids those here, and the
 * preload library would call itself).
 */
#include <stdint.h>

#include <string.h>

#include "primbench/auto.h"
#include "primbench/error.h"

#include "auto_internal.h"

#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "generic_rows.h"

struct pb_auto_table pb_auto_tables[PB_OP_COUNT] = {
    [PB_OP_MEMSET] = {.n = 1, .band = {{UINT64_MAX, {.set = pb_memset_gpr_unrolled}}}},
    [PB_OP_MEMCPY] = {.n = 1, .band = {{UINT64_MAX, {.cpy = pb_memcpy_gpr_unrolled}}}},
    [PB_OP_MEMMOVE] = {.n = 1, .band = {{UINT64_MAX, {.mov = pb_memmove_gpr_unrolled}}}},
};

/* The installed policies as policies, for reports; kernel pointers are
 * filled by pb_auto_install (NULL until then: see pb_auto_installed). */
static struct pb_policy installed[PB_OP_COUNT];
static bool have_installed[PB_OP_COUNT];

void *pb_auto_memset_dispatch(void *dst, int c, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMSET];
	return t->band[pb_auto_band(t, n)].fn.set(dst, c, n);
}

void *pb_auto_memcpy_dispatch(void *restrict dst, const void *restrict src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMCPY];
	return t->band[pb_auto_band(t, n)].fn.cpy(dst, src, n);
}

void *pb_auto_memmove_dispatch(void *dst, const void *src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMMOVE];
	return t->band[pb_auto_band(t, n)].fn.mov(dst, src, n);
}

int pb_auto_install(const struct pb_policy *p)
{
	if ((unsigned)p->op >= PB_OP_COUNT || p->n_bands < 1 || p->n_bands > PB_POLICY_MAX_BANDS) {
		pb_fail("auto: not a valid policy");
		return -1;
	}
	for (size_t i = 0; i < p->n_bands; i++) {
		const struct pb_kernel *k = p->bands[i].kernel;
		if (k->op != p->op) {
			pb_fail("auto: %s policy names %s kernel '%s'", pb_op_name(p->op),
			        pb_op_name(k->op), k->name);
			return -1;
		}
		if (!strcmp(k->name, "auto")) {
			pb_fail("auto: a policy for auto may not name auto itself");
			return -1;
		}
	}
	struct pb_auto_table *t = &pb_auto_tables[p->op];
	struct pb_policy *ip = &installed[p->op];
	/* Field by field (see the file comment); the count last, so that a
	 * table is never read with more bands than are filled. No inline
	 * sizes while the bands change. */
	t->inline_count = 0;
	t->n = 1;
	for (size_t i = 0; i < p->n_bands; i++) {
		const struct pb_kernel *k = p->bands[i].kernel;
		t->band[i].max = p->bands[i].max_bytes;
		if (p->op == PB_OP_MEMSET)
			t->band[i].fn.set = k->memset_fn;
		else if (p->op == PB_OP_MEMCPY)
			t->band[i].fn.cpy = k->memcpy_fn;
		else
			t->band[i].fn.mov = k->memmove_fn;
		ip->bands[i].max_bytes = p->bands[i].max_bytes;
		ip->bands[i].kernel = k;
	}
	t->band[p->n_bands - 1].max = UINT64_MAX;
	t->n = p->n_bands;
	/* The small sizes the entry point may run itself: the longest run of
	 * sizes up to PB_AUTO_SMALL_MAX where the band's code is a row with
	 * auto_inline (avx512; avx512_nt below a line, 64 B, runs the same
	 * code). auto_internal.h. */
	uint32_t best_lo = 0, best_count = 0, lo = 0, count = 0;
	for (size_t n = 0, b = 0; n <= PB_AUTO_SMALL_MAX; n++) {
		while ((uint64_t)n > p->bands[b].max_bytes)
			b++;
		if (!pb_kernel_code_at(p->bands[b].kernel, n)->auto_inline) {
			count = 0;
			continue;
		}
		if (!count)
			lo = (uint32_t)n;
		if (++count > best_count)
			best_lo = lo, best_count = count;
	}
	t->inline_lo = best_lo;
	t->inline_count = best_count;
	ip->op = p->op;
	ip->n_bands = p->n_bands;
	have_installed[p->op] = true;
	return 0;
}

const struct pb_policy *pb_auto_installed(enum pb_op op)
{
	if ((unsigned)op >= PB_OP_COUNT || !have_installed[op])
		return NULL;
	return &installed[op];
}
