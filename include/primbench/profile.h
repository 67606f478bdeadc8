/* primbench/profile.h - where a command spends its time in the primitives:
 * a perf profile's samples per (binary, symbol), summed into the primitive
 * families the kernel lists quote (kernel page clearing, kernel copying,
 * libc memset, libc memcpy/memmove, primbench's own kernels).
 *
 * Source of the text: `perf report --stdio --no-children --sort dso,sym -n
 * -g none` over a `perf record -e EVENT` file (perf-record(1),
 * perf-report(1)); `primbench cmd --profile` runs both. The text is:
 *   # Samples: 2K of event 'cpu-clock'      (the event; ':u' = user only)
 *   # Total Lost Samples: 0
 *   # Overhead       Samples  Shared Object  Symbol
 *       30.89%           675  [kernel.kallsyms]  [k] exc_page_fault
 *        8.01%           175  libc.so.6      [.] __memset_avx512_unaligned_erms
 * Comment lines start with '#', blank lines are skipped; a data line is a
 * percentage, a sample count, the shared object (dso), a privilege marker
 * ([k] kernel, [.] user; [g], [u] guest, [H] hypervisor) and the symbol. A
 * symbol perf could not resolve is its address ("0xffffffff8225f7a7"):
 * kernel samples show so when kernel symbols are hidden from the reader
 * (kernel.kptr_restrict, docs/profile.md).
 *
 * Shares are samples / all samples of the profile (the sample count is
 * perf's, not its Overhead column: with the cpu-clock event they agree; with
 * a frequency-sampled hardware event the periods differ, and a share of
 * samples is what a profile table quotes as "%").
 *
 * The families are one table (profile.c, pb_prof_families; documented in
 * docs/profile.md): each has fnmatch(3) globs for the symbol and for the
 * dso's base name (kernel families: any [k] sample). A sample belongs to the
 * first family that matches, or to none.
 *
 * Part of the results module (a profile is part of a cmd case). Running
 * perf: include/primbench/cmd_ab.h (src/suites/profile_run.c); the text:
 * include/primbench/profile_text.h.
 */
#ifndef PRIMBENCH_PROFILE_H
#define PRIMBENCH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_cmd_spec;

/* What kind of binary a sample fell in: "[kernel]" ([k] samples), a
 * library (a dso whose base name has ".so"), the program (any other file),
 * or unknown (perf's "[unknown]", "[vdso]", JIT maps, ...). */
enum pb_prof_kind { PB_PROF_KERNEL, PB_PROF_LIBRARY, PB_PROF_PROGRAM, PB_PROF_UNKNOWN };
const char *pb_prof_kind_name(enum pb_prof_kind k); /* "kernel", "library", ... */

/* One row of the family table. */
struct pb_prof_family {
	const char *name;      /* JSON name: "kernel_clear" */
	const char *label;     /* "kernel page clearing" */
	bool kernel;           /* [k] samples; else user samples of dso_globs */
	const char *dso_globs; /* space-separated globs of the dso's base name */
	const char *sym_globs; /* space-separated globs of the symbol */
	bool preload;          /* primbench's library: shown when it was loaded */
};

enum {
	PB_PROF_KERNEL_CLEAR,
	PB_PROF_KERNEL_COPY,
	PB_PROF_LIBC_MEMSET,
	PB_PROF_LIBC_MEMCPY,
	PB_PROF_PB_MEMSET,
	PB_PROF_PB_MEMCPY,
	PB_PROF_NFAMILIES
};
extern const struct pb_prof_family pb_prof_families[PB_PROF_NFAMILIES];

/* Which family (an index) a sample of dso / symbol belongs to, or -1. */
int pb_prof_family_of(enum pb_prof_kind kind, const char *dso, const char *symbol);

struct pb_prof_symbol {
	uint64_t samples;
	char *dso;    /* as perf prints it: "[kernel.kallsyms]", "libc.so.6" */
	char *symbol; /* without the privilege marker */
	enum pb_prof_kind kind;
	int family;      /* index into pb_prof_families, or -1 */
	bool unresolved; /* the symbol is an address (or PB_PROF_NO_SYMBOL) */
	/* PB_PROF_NO_SYMBOL rows: the addresses perf printed for this binary
	 * in place of symbols (merged runs: the most one run had); else 0 */
	size_t addresses;
};

/* The symbol of the one row that holds a user-space binary's samples at
 * addresses perf could not name (a stripped program: "gzip [.]
 * 0x0000000000004883" rows); the kernel's bare addresses stay rows of
 * their own (kernel_hidden). */
#define PB_PROF_NO_SYMBOL "[no symbol]"

struct pb_profile {
	char event[64];   /* "cpu-clock", "cpu-clock:u", "cycles"; "" unknown */
	bool user_only;   /* the event has the ':u' modifier: no kernel samples */
	uint64_t samples; /* all samples: the sum of the rows */
	uint64_t lost;    /* "Total Lost Samples" */
	/* "Event count (approx.)": the sum of the samples' periods, in the
	 * event's unit (ns for cpu-clock and task-clock, cycles for cycles);
	 * 0 when not given */
	double event_count;
	uint64_t kernel_samples, kernel_unresolved;
	/* More than half of the kernel samples are bare addresses: kernel
	 * symbols were hidden (kptr_restrict), the kernel families are not
	 * counted. */
	bool kernel_hidden;
	uint64_t family[PB_PROF_NFAMILIES];
	struct pb_prof_symbol *syms; /* by samples, most first */
	size_t nsyms;
	size_t runs; /* profiled runs summed into it (pb_profile_merge) */
};

/* Parses perf report text (above) into *p (zeroed first; free with
 * pb_profile_free, also after a failure). Text without any data line is an
 * empty profile (0 samples), not an error. Errors (-1, pb_error()): "line
 * N: not a perf report line: '...'" (no percentage, count, dso or marker),
 * "line N: more than one event ('cpu-clock' and 'page-faults')", a count
 * that does not fit, "line N: the sample counts add up to more than
 * 18446744073709551615" (also the lost samples). One event on several PMUs (a hybrid CPU's
 * "cpu_core/cycles/" and "cpu_atom/cycles/") is summed as "cycles". The
 * rows of a user-space binary whose symbol is an address are one row per
 * binary (PB_PROF_NO_SYMBOL). */
int pb_profile_parse(const char *text, size_t len, struct pb_profile *p);
void pb_profile_free(struct pb_profile *p);

/* Adds src's samples into dst (rows matched on dso and symbol; the events
 * must be the same, and the sums must fit in 64 bits, else -1 with
 * pb_error(), dst untouched); dst->runs += src->runs. */
int pb_profile_merge(struct pb_profile *dst, const struct pb_profile *src);

/* Whether a family's count is meaningful: a kernel family needs kernel
 * samples that were sampled (not user_only) and resolved (not hidden). */
bool pb_profile_family_counted(const struct pb_profile *p, int family);

/* The 95% interval of a share of samples: k of n samples (k <= n, n > 0)
 * in a family, *lo and *hi in 0..1. Wilson's score interval (E. B.
 * Wilson, "Probable inference, the law of succession, and statistical
 * inference", JASA 22, 1927), z = 1.959964: the sampling error of a
 * binomial proportion, near p +- z sqrt(p(1-p)/n) for large k and n - k,
 * and not empty at k = 0. It assumes each sample falls independently where
 * the CPU's time is; a periodic clock sampling a periodic program can do
 * worse. n == 0: both NaN. */
void pb_profile_share_ci95(uint64_t k, uint64_t n, double *lo, double *hi);

/* ---- a side's profile in its cmd case ---- */

/* One side's profile as the "profile" object of its cmd case
 * (docs/results-schema.md, "A cmd case"; written with the case by
 * pb_results_add_cmd_case, primbench/cmd_result.h): prof's event,
 * user_only, runs, samples, lost, event_count, kernel_samples,
 * kernel_unresolved, kernel_hidden, families (name, label, samples, share,
 * share_ci95 [lo, hi] (pb_profile_share_ci95); null when not counted) and
 * its first 30 symbols as "top"; then how it was sampled: event_requested,
 * event_kind ("software" or "hardware"), no_hardware_reason (null unless
 * software), perf_event_paranoid and kptr_restrict (null when unknown),
 * root, preload. A share is read back with pb_results_case_profile_share
 * (primbench/reader.h). */
struct pb_cmd_profile_record {
	const struct pb_profile *prof;  /* borrowed */
	const char *event_requested;    /* the event asked of perf ("cycles", ...) */
	bool software;                  /* the event is not "cycles" */
	const char *no_hardware_reason; /* software: why there are no hardware counters */
	int perf_event_paranoid;        /* INT_MIN: unknown (null) */
	int kptr_restrict;              /* INT_MIN: unknown (null) */
	bool root;                      /* profiled as root */
	bool preload;                   /* the side ran under libprimswitch.so */
};

#endif
