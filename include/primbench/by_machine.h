/* primbench/by_machine.h - many machines in one table: `primbench report
 * --by-machine FILE...` (docs/formats.md, "Many machines in one table").
 * Part of the report module.
 *
 * Rows are machines, one per machine.fingerprint_hash (the configuration a
 * file was measured in: CPU, microcode, kernel, mitigations, glibc,
 * primbench's build; docs/results-schema.md), named by CPU brand, kernel
 * and glibc; every file of one fingerprint is a run of that machine.
 * Columns are figures, each chosen by a case key (a "figure spec", below).
 *
 * A figure of one run (file) is its case's median per call
 * (pb_results_case_summary: the geometric mean of its replicates' medians,
 * or the median of its samples with one replicate) in ns, from the file's
 * own timer (pb_file_ns_per_value), or in GB/s (size_bytes / ns). With
 * two or more runs of a machine that have the figure, the machine's figure
 * is the geometric mean of the runs' figures and its interval Student's t
 * on their logarithms (df runs - 1), the run-level method of
 * docs/statistics.md ("Replicates and the run level",
 * pb_summarize_replicates with one value a run); with one run, that run's
 * 95% CI (none when it has none).
 *
 * Figure specs (a list: entries separated by ','):
 *   mem/OP/STATE/SIZE[/KERNEL]  a mem case: suite=mem+op=OP+
 *                               cache_state=STATE+size_bytes=SIZE+
 *                               kernel=KERNEL; KERNEL defaults to
 *                               "fastest"; GB/s by default
 *   syscall/BENCH[/PAGE]        suite=syscall+benchmark=BENCH
 *                               [+page_bytes=PAGE]; ns by default
 *   FIELD=VALUE[+FIELD=VALUE]   any key fields (docs/results-schema.md)
 * and after any of them "@ns" or "@gbs": the unit (GB/s needs size_bytes).
 * A value matches a key's field when it is the field's text (pb_field_text:
 * "hot", "4096", "true") or, for an integer field, a size of the same
 * bytes ("4K"); "null" also matches a missing field. One field may have
 * the value "fastest": the figure is then that of the value of this field
 * measured in the most runs of the machine (ties: the least geometric
 * mean), shown beside the figure. Otherwise, when several cases of one
 * file match, the first in file order is taken and a note says so.
 */
#ifndef PRIMBENCH_BY_MACHINE_H
#define PRIMBENCH_BY_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/format.h"
#include "primbench/reader.h"

/* The default figures: the fastest memset at 4 KiB hot (GB/s) and its
 * kernel, the fastest memset in dram at 32 MiB (GB/s), the null syscall,
 * fork and a 4 KiB page fault (ns each). */
#define PB_BM_DEFAULT_FIGURES                                                                      \
	"mem/memset/hot/4K,mem/memset/dram/32M,syscall/null,syscall/fork,syscall/fault/4K"

enum pb_bm_unit {
	PB_BM_NS,  /* ns per call (lower is better) */
	PB_BM_GBS, /* GB/s, 10^9 bytes a second: size_bytes / ns (higher is better) */
};

/* One field = value condition of a figure spec. */
struct pb_bm_cond {
	char *field, *value;
	bool is_size;   /* value parsed as a size (pb_parse_size) */
	uint64_t bytes; /* is_size: its bytes */
};

/* One figure (a column). */
struct pb_bm_figure {
	char *spec;  /* as given: "mem/memset/hot/4K" */
	char *title; /* the column's heading: "memset hot 4K", "fault 4K" */
	struct pb_bm_cond *cond;
	size_t ncond;
	char *fastest; /* the field whose value is "fastest" ("kernel"), or NULL */
	enum pb_bm_unit unit;
};

struct pb_bm_figures {
	struct pb_bm_figure *v;
	size_t n;
};

/* Parses a list of figure specs (above) into out (free with
 * pb_bm_figures_free, also after a failure). Returns 0, or -1 with
 * pb_error() naming the entry: "figure 'mem/memset': mem/OP/STATE/SIZE
 * [/KERNEL] has 4 or 5 parts", "figure 'foo/x': unknown form (mem/...,
 * syscall/..., or FIELD=VALUE+...)", "figure 'op': FIELD=VALUE expected",
 * "figure 'x@kb': unknown unit 'kb' (ns, gbs)", "figure '': empty", a bad
 * size, two "fastest" fields, a field twice. */
int pb_bm_figures_parse(const char *list, struct pb_bm_figures *out);
void pb_bm_figures_free(struct pb_bm_figures *f);

/* One cell: a machine's figure. */
struct pb_bm_cell {
	bool present;      /* false: no run of the machine has the figure ("-") */
	double value;      /* in the figure's unit */
	bool has_interval; /* lo, hi valid */
	double lo, hi;     /* 95%: across runs (runs >= 2) or the run's CI */
	size_t runs;       /* runs (files) the figure came from */
	char *chosen;      /* the "fastest" field's value ("avx512"), or NULL */
};

/* One machine (a row). Strings borrowed from the first of its files. */
struct pb_bm_machine {
	const char *hash; /* fingerprint_hash, NULL when the files have none */
	const char *brand, *kernel, *glibc;
	long long family, model; /* -1 when missing */
	char *name;              /* "AMD EPYC, 6.18.44-fc-v669, glibc 2.36"; the hash's
	                            first 8 digits appended when two rows' names
	                            would be equal */
	size_t runs;             /* its files */
	struct pb_bm_cell *cell; /* one per figure */
};

struct pb_bm_table {
	const struct pb_bm_figures *figs; /* borrowed */
	struct pb_bm_machine *m;          /* in order of their first file */
	size_t nm;
	char **notes; /* lines for a person: several cases matched, a figure
	                 in fewer runs than the machine has, a unit that does
	                 not convert */
	size_t nnotes;
};

/* Builds the table of files[0..n) (loaded with pb_results_load) and figs.
 * Files without a fingerprint_hash are grouped by their name (brand,
 * kernel, glibc). Returns 0, or -1 with pb_error() (n 0, out of memory).
 * Free with pb_bm_table_free (also after a failure). */
int pb_bm_build(const struct pb_results_file *files, size_t n, const struct pb_bm_figures *figs,
                struct pb_bm_table *out);
void pb_bm_table_free(struct pb_bm_table *t);

/* Writes the table in fmt:
 *  - text: the machines listed ("m1  NAME" and a line with family, model,
 *    fingerprint and runs), then the figures with the machines as m1, m2,
 *    ...: per figure its value, "lo..hi" and, for a "fastest" figure, the
 *    kernel; columns split into several tables so no line passes 80
 *    columns (the machine column repeated); then the notes.
 *  - markdown: one GitHub table, a row per machine (m1..., its name and runs),
 *    the same columns, then the notes as a list.
 *  - csv: header "machine,cpu_brand,cpu_family,cpu_model,kernel,glibc,
 *    fingerprint_hash,runs" then per figure "SPEC UNIT", "SPEC ci_lo",
 *    "SPEC ci_hi", "SPEC runs" (and "SPEC KERNEL" for a fastest figure: the
 *    field's name); a row per machine, "" where a figure is missing; no
 *    notes (RFC 4180, numbers in the shortest text that reads back).
 * Other formats: -1 with pb_error() ("--by-machine writes text, markdown
 * or csv, not 'json'"). Returns 0, or -1; errors of f are the caller's. */
int pb_bm_write(FILE *f, const struct pb_bm_table *t, enum pb_format fmt);

#endif
