/* primbench/machine.h - the machine as text: the short summary that opens
 * a default run, and the full `primbench info` listing (every line at most
 * PB_TEXT_WIDTH columns, primbench/fingerprint.h). And the machine as data:
 * the facts of the `machine` object of every result
 * (docs/results-schema.md), as typed values; the results module alone
 * writes them, with their fingerprint_hash, into every new result document
 * (pb_results_new, primbench/results.h).
 * Module machine (src/machine/): above cpu and timer, whose figures it
 * reports.
 */
#ifndef PRIMBENCH_MACHINE_H
#define PRIMBENCH_MACHINE_H

#include <stdbool.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "primbench/fingerprint.h"
#include "primbench/timer.h"

/* cpu, kernel, features, caches with sources (and the note of any level
 * that fell back), timer, glibc's string thresholds: one field each,
 * wrapped at PB_TEXT_WIDTH. Calls pb_timer_init() (once per process,
 * ~0.2 s). `c` comes from pb_cache_detect(). */
void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c);

/* The full listing of `primbench info`: identity, every feature (yes / no /
 * hidden), each cache level with every source's figure and the notes of
 * rejected ones, the timer's figures, and whether hardware counters work. */
void pb_print_machine_info(FILE *f, const struct pb_cache_info *c);

/* Everything the `machine` object of a result records but the build (which
 * results knows of itself: primbench version, compiler, build flags), one
 * field a figure, in the object's terms (docs/results-schema.md,
 * `machine`). Strings are NUL-terminated; "" where a figure could not be
 * read unless said otherwise. Filled by pb_machine_facts_read, freed by
 * pb_machine_facts_free (the lists own memory). */
struct pb_machine_facts {
	/* cpu */
	struct pb_cpu_ident cpu;
	char hypervisor_product[16]; /* "KVM", "Hyper-V", ... (the signature
	                              * when not known, "unknown" without one);
	                              * "none" when not a guest */
	char microcode[64];          /* "0x1", "unknown" (pb_microcode_read) */
	char midr[160];              /* arm64 MIDR_EL1 described, "" elsewhere */
	unsigned dczva_block_bytes;  /* DC ZVA block, bytes; 0 prohibited or not arm64 */
	struct pb_cpu_emulation emulation;
	/* features, as pb_cpu_features_detected / _hidden / pb_cpu_features */
	pb_features detected, hidden, usable;
	struct pb_cache_info caches; /* as given to pb_machine_facts_read */
	struct pb_timer_info timer;  /* pb_timer_info() (its strings are static) */
	/* uname(2) nodename, release, version; "" when uname failed */
	char hostname[65], kernel[65], kernel_version[65];
	char kernel_cmdline[8192]; /* /proc/cmdline, "" when unreadable */
	/* mitigations */
	bool vulnerabilities_read;             /* false: the directory was not readable (null) */
	struct pb_named_texts vulnerabilities; /* file -> first line, byte order */
	bool mitigations_set;                  /* mitigations= on the command line */
	char mitigations[256];                 /* its (last) value */
	/* transparent huge pages: the bracketed choices, "unknown" */
	char thp_enabled[64], thp_defrag[64];
	struct pb_preempt_info preemption;
	bool hugepages_read; /* false: /sys/kernel/mm/hugepages not readable (null) */
	struct pb_hugepages hugepages;
	/* cpufreq of cpu0: governor and driver ("unknown"), why unknown ("") */
	char cpufreq_governor[64], cpufreq_driver[64], cpufreq_note[512];
	/* glibc, its thresholds and why any is unknown (g.note) */
	struct pb_glibc_info glibc;
	bool tunables_read;             /* false: `ld.so --list-tunables` gave none */
	struct pb_named_texts tunables; /* name -> value, byte order */
	char tunables_why[300];         /* why not, "" when read */
	char *tunables_env;             /* GLIBC_TUNABLES (a copy), NULL when unset */
	int pinned_cpu;                 /* as given; -1 not pinned */
};

/* The facts of this machine: CPU identity and microcode, emulation,
 * features, the caches given (`caches` comes from pb_cache_detect()), the
 * timer's figures, kernel (release, version, command line), mitigations,
 * transparent huge pages, preemption, huge pages, cpufreq, glibc with its
 * thresholds and tunables, and pinned_cpu as given. Calls pb_timer_init();
 * runs the dynamic loader three times (ld.so --list-diagnostics and twice
 * --list-tunables; a few ms). A figure that cannot be read is left as the
 * struct says: never fails (the lists are empty when out of memory). */
void pb_machine_facts_read(struct pb_machine_facts *out, const struct pb_cache_info *caches,
                           int pinned_cpu);

/* Frees the lists and strings of `f` (not f itself). NULL: nothing. */
void pb_machine_facts_free(struct pb_machine_facts *f);

#endif
