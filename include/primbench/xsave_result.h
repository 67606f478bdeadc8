/* primbench/xsave_result.h - the xsave suite's cases and results as data:
 * the save/restore pairs and upper states with their names, the state
 * components, what cpuid and XCR0 said (struct pb_xsave_info), a variant,
 * a measured case and the result of a run. Filled by the xsave suite
 * (include/primbench/xsave.h), written into a result document by
 * pb_results_add_xsave. Part of the results module. */
#ifndef PRIMBENCH_XSAVE_RESULT_H
#define PRIMBENCH_XSAVE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/stats.h"

/* The save/restore pairs, in display order. */
enum pb_xsave_insn {
	PB_XS_FXSAVE,   /* fxsave64/fxrstor64: x87 + SSE, 512 bytes, 16-aligned */
	PB_XS_XSAVE,    /* xsave64/xrstor64, standard format */
	PB_XS_XSAVEOPT, /* xsaveopt64/xrstor64: skips unmodified components */
	PB_XS_XSAVEC,   /* xsavec64/xrstor64: compacted format, init skipped */
	PB_XS_XSAVES,   /* xsaves64/xrstors64: CPL 0 only, always skipped */
	PB_XS_INSN_COUNT
};

/* The upper SIMD state before each pair. */
enum pb_xsave_upper {
	PB_XS_CLEAN, /* vzeroupper before each pair (AVX upper halves and ZMM_Hi256 in init) */
	PB_XS_DIRTY, /* ymm0 (or zmm0 and zmm16 with AVX-512) written before each pair */
	PB_XS_UPPER_COUNT
};

/* "fxsave64/fxrstor64", ... */
const char *pb_xsave_insn_name(enum pb_xsave_insn i);
/* "clean", "dirty" */
const char *pb_xsave_upper_name(enum pb_xsave_upper u);

/* XSAVE state components (Intel SDM Vol. 1 13.1). */
#define PB_XS_X87            0
#define PB_XS_SSE            1
#define PB_XS_AVX            2
#define PB_XS_OPMASK         5
#define PB_XS_ZMM_HI256      6
#define PB_XS_HI16_ZMM       7
#define PB_XS_XTILECFG       17
#define PB_XS_XTILEDATA      18
#define PB_XS_MAX_COMPONENTS 64

/* Short name of component `bit` ("x87", "SSE", "AVX", "MPX BNDREGS",
 * "AVX-512 opmask", "ZMM_Hi256", "Hi16_ZMM", "PKRU", "AMX XTILECFG",
 * "AMX XTILEDATA", ...), "component N" for an unknown one. */
const char *pb_xsave_component_name(unsigned bit);

struct pb_xsave_info {
	bool fxsr, xsave, osxsave, xsaveopt, xsavec, xsaves;
	bool avx;      /* cpuid 1:ECX[28] and XCR0 SSE|AVX: ymm upper halves usable */
	bool avx512;   /* XCR0 opmask|ZMM_Hi256|Hi16_ZMM: zmm0-31 usable */
	uint64_t xcr0; /* 0 without OSXSAVE */
	/* The requested-feature bitmap every pair uses: XCR0, minus
	 * XTILEDATA unless arch_prctl reports the permission (without it the
	 * kernel arms XFD and xrstor of that component faults). */
	uint64_t rfbm;
	bool amx_data_excluded;  /* XTILEDATA in XCR0 but not in rfbm */
	uint32_t size_xcr0;      /* 0xD.0:EBX, standard size for the XCR0 components */
	uint32_t size_all;       /* 0xD.0:ECX, standard size for every supported one */
	uint32_t size_xss;       /* 0xD.1:EBX, compacted size for XCR0 | IA32_XSS */
	uint32_t size_standard;  /* standard-format size for rfbm (computed) */
	uint32_t size_compacted; /* compacted-format size for rfbm (computed) */
	uint32_t comp_size[PB_XS_MAX_COMPONENTS];   /* bytes of each component */
	uint32_t comp_offset[PB_XS_MAX_COMPONENTS]; /* standard-format offset */
};

/* One variant: instruction x upper state. */
struct pb_xsave_variant {
	enum pb_xsave_insn insn;
	enum pb_xsave_upper upper;
	bool available;
	char reason[128]; /* why not, when !available */
};

/* One measured (or skipped) variant. */
struct pb_xsave_case {
	struct pb_xsave_variant v;
	uint64_t rfbm;       /* requested-feature bitmap (EDX:EAX) */
	uint32_t area_bytes; /* bytes of the save area */
	/* samples: batch ticks with the timer overhead subtracted, pairs per batch */
	size_t n_samples;
	double *batch_ticks;
	uint64_t *batch_calls;
	struct pb_summary ticks_per_op; /* one op = one save + one restore */
	size_t outliers;                /* modified z-score > 3.5 (kept) */
	unsigned migrations;            /* samples taken on another CPU (dropped) */
	/* replicates (include/primbench/replicates.h): the samples are
	 * n_replicates runs of every variant in a row, run r's
	 * replicate_samples[r] of them (0 and NULL: one run); with two or
	 * more, ticks_per_op's median and CI are the runs' */
	size_t n_replicates;
	size_t *replicate_samples;
};

struct pb_xsave_result {
	struct pb_xsave_info info;
	struct pb_xsave_case cases[PB_XS_INSN_COUNT * PB_XS_UPPER_COUNT];
	size_t n_cases;
	bool interrupted;
	char notes[1024];
};

struct pb_results_doc; /* primbench/results.h */

/* Appends the measured cases to the document's "cases" (docs/results-
 * schema.md, "An xsave case": key {suite "xsave", instruction,
 * upper_state}, rfbm (hex text), area_bytes, replicates, unit "tsc_ticks",
 * samples [ticks, pairs], per_call (ticks per save + restore),
 * median_derived {ns_per_call}, migrations, outliers; unavailable variants
 * are not cases), the lines of r->notes, each after "xsave: ", to its
 * "notes", and the state description to its "xsave" object (xcr0,
 * xcr0_components, rfbm, amx_tiledata_excluded, the sizes in bytes and the
 * cpu flags). Returns 0, or -1 with pb_error() "not a result document" or
 * when out of memory. */
int pb_results_add_xsave(struct pb_results_doc *doc, const struct pb_xsave_result *r);

#endif
