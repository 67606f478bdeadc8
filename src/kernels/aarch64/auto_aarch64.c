/* auto_aarch64.c - the auto kernels' entry points on arm64: the policy's
 * dispatch (generic/auto.c's bands) with the kernels the arm64 policies
 * name (neon, mops, sve; autopolicy.c's defaults) called directly.
 *
 * As on x86-64 (auto_x86.c), the band's function is compared with the
 * common kernels and a match is a direct jump: two taken branches per call
 * (the size test and the jump) instead of the indirect call's extra one.
 * Any other kernel gets the indirect jump. There is no inline entry here
 * (no row has auto_inline on arm64): which kernel runs is the policy's
 * choice alone, and the policy only names kernels usable on this CPU
 * (pb_auto_setup), so no ifunc is needed.
 */
#include "auto_internal.h"
#include "protos.h"

/* After protos.h: the rows become prototypes. */
#include "arch_rows.h"
#include "generic_rows.h"

void *pb_memset_auto(void *dst, int c, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMSET];
	pb_memset_fn f = t->band[pb_auto_band(t, n)].fn.set;
	if (f == pb_memset_neon)
		return pb_memset_neon(dst, c, n);
	if (f == pb_memset_mops)
		return pb_memset_mops(dst, c, n);
	if (f == pb_memset_sve)
		return pb_memset_sve(dst, c, n);
	return f(dst, c, n);
}

void *pb_memcpy_auto(void *restrict dst, const void *restrict src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMCPY];
	pb_memcpy_fn f = t->band[pb_auto_band(t, n)].fn.cpy;
	if (f == pb_memcpy_neon)
		return pb_memcpy_neon(dst, src, n);
	if (f == pb_memcpy_mops)
		return pb_memcpy_mops(dst, src, n);
	if (f == pb_memcpy_sve)
		return pb_memcpy_sve(dst, src, n);
	return f(dst, src, n);
}

void *pb_memmove_auto(void *dst, const void *src, size_t n)
{
	const struct pb_auto_table *t = &pb_auto_tables[PB_OP_MEMMOVE];
	pb_memmove_fn f = t->band[pb_auto_band(t, n)].fn.mov;
	if (f == pb_memmove_neon)
		return pb_memmove_neon(dst, src, n);
	if (f == pb_memmove_mops)
		return pb_memmove_mops(dst, src, n);
	if (f == pb_memmove_sve)
		return pb_memmove_sve(dst, src, n);
	return f(dst, src, n);
}
