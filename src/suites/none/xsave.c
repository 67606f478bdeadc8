/* none/xsave.c - the xsave suite on a non-x86 build: the instructions do
 * not exist, so every variant is listed as not run, with the reason
 * (NOT_X86; an architecture's own file may define it first and include
 * this one: aarch64/xsave.c). */
#include <string.h>

#include "primbench/error.h"
#include "primbench/xsave.h"

#ifndef NOT_X86
#define NOT_X86 "x86-64 only (this build is for another architecture)"
#endif

void pb_xsave_raw_read(struct pb_xsave_raw *raw)
{
	memset(raw, 0, sizeof *raw);
}

bool pb_xsave_arch_supported(const char **why)
{
	if (why)
		*why = NOT_X86;
	return false;
}

int pb_xsave_run(const struct pb_xsave_params *p, struct pb_xsave_result *r)
{
	(void)p;
	memset(r, 0, sizeof *r);
	struct pb_xsave_variant vs[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	pb_xsave_variants(&r->info, false, NOT_X86, vs);
	for (size_t i = 0; i < PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT; i++)
		r->cases[r->n_cases++].v = vs[i];
	pb_xsave_notes(r);
	return 0;
}

int pb_xsave_roundtrip_check(enum pb_xsave_insn insn)
{
	(void)insn;
	return pb_fail("%s", NOT_X86);
}
