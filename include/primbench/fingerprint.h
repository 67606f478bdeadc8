/* primbench/fingerprint.h - the text width and helpers of the machine
 * listings (include/primbench/machine.h prints them; every line at most
 * PB_TEXT_WIDTH columns, README: the output pastes into an email), the
 * hash behind the fingerprint_hash of a machine object
 * (docs/results-schema.md; the results module computes it), and the
 * system facts behind that object (src/cpu/sysinfo.c,
 * src/cpu/kernel_facts.c), as typed values: results alone writes them as
 * JSON. Module cpu: nothing here needs the timer.
 */
#ifndef PRIMBENCH_FINGERPRINT_H
#define PRIMBENCH_FINGERPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/cpu.h"
#include "primbench/text.h" /* PB_TEXT_WIDTH, pb_print_labelled */

/* ---- the fingerprint_hash of a machine object -------------------------- */

/* Hex digits in a fingerprint_hash (FNV-1a 64 below, computed by the
 * results module over the machine object's fields that change results). */
#define PB_FINGERPRINT_HASH_LEN 16

/* FNV-1a, 64 bits (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3: http://www.isthe.com/chongo/tech/comp/fnv/ and
 * draft-eastlake-fnv). Not cryptographic: it names configurations, it does
 * not authenticate them. */
uint64_t pb_fnv1a64(const void *data, size_t len);

/* ---- named texts: vulnerabilities, glibc tunables ---------------------- */

/* One name and its text, both NUL-terminated and owned by the list. */
struct pb_named_text {
	char *name;
	char *text;
};

/* A list of named texts, names in byte order (strcmp), no name twice
 * for the readers below. {NULL, 0} is the empty list. */
struct pb_named_texts {
	struct pb_named_text *item;
	size_t n;
};

/* Frees every name and text and the array; leaves the empty list. NULL or
 * an empty list: nothing. */
void pb_named_texts_free(struct pb_named_texts *l);

/* ---- system facts behind the machine object (src/cpu/sysinfo.c) ---------
 * Each reader takes its file or directory as a parameter so that tests can
 * point it at a fixture. */

/* The "microcode" field of the first processor in a /proc/cpuinfo-format
 * file ("0x1"), or "unknown" (not x86, or the file is unreadable). */
void pb_microcode_read(const char *cpuinfo_path, char *out, size_t len);

/* The value of the last `name=value` parameter in a kernel command line
 * (the kernel applies them in order; double quotes group words), up to a
 * lone "--" (what follows is for init). Returns true and copies the value,
 * or false and leaves "" in out. */
bool pb_cmdline_param(const char *cmdline, const char *name, char *out, size_t len);

/* Every regular file of a vulnerabilities directory
 * (/sys/devices/system/cpu/vulnerabilities): name -> text (the file's
 * first line; "unknown (REASON)" when it cannot be read) in `out`, names
 * in byte order. Returns 0, or -1 with the empty list when the directory
 * cannot be read (kernel older than 4.15, or not mounted). A file that
 * cannot be listed for want of memory is left out. Free with
 * pb_named_texts_free. */
int pb_vulnerabilities_read(const char *dir, struct pb_named_texts *out);

/* The bracketed choice of a sysfs multiple-choice file's text ("always
 * [madvise] never" -> "madvise"), or "unknown" without brackets. */
void pb_bracketed_choice(const char *text, char *out, size_t len);

/* The first line of a small text file, newline removed ("" for an empty
 * file). Returns 0, or -1 (errno set) with "" in out. */
int pb_read_line(const char *path, char *out, size_t len);

/* cpufreq of one CPU directory (/sys/devices/system/cpu/cpu0): governor
 * and driver ("unknown" when absent) and, when the governor is unknown, a
 * one-line account of why in `why` ("" otherwise). */
void pb_cpufreq_read(const char *cpu_dir, char *governor, size_t gov_len, char *driver,
                     size_t drv_len, char *why, size_t why_len);

/* glibc's string-function figures, as ld.so --list-diagnostics prints them
 * (x86.cpu_features.<name>, glibc 2.33+), in that output's order. JSON and
 * tunable names add "x86_" (pb_glibc_figure_name). */
enum pb_glibc_figure {
	PB_GLIBC_DATA_CACHE_SIZE,
	PB_GLIBC_SHARED_CACHE_SIZE,
	PB_GLIBC_NON_TEMPORAL_THRESHOLD,
	PB_GLIBC_REP_MOVSB_THRESHOLD,
	PB_GLIBC_REP_STOSB_THRESHOLD,
	PB_GLIBC_FIGURES
};

/* "x86_data_cache_size", ..., "x86_rep_stosb_threshold": the names of the
 * glibc.cpu.* tunables that set them. */
const char *pb_glibc_figure_name(enum pb_glibc_figure f);

struct pb_glibc_diag {
	uint64_t value[PB_GLIBC_FIGURES];
	bool known[PB_GLIBC_FIGURES];
	char version[32]; /* version.version ("2.36"), "" when absent */
	/* x86.cpu_features.rep_movsb_stop_threshold: where memcpy stops using
	 * rep movsb (not a tunable; not in the result's figures); 0 absent */
	uint64_t rep_movsb_stop;
	/* the "min:" ld.so --list-tunables gives glibc.cpu.x86_rep_movsb_threshold
	 * (8 x glibc's vector size; pb_glibc_read fills it, not the parser); 0
	 * unknown */
	uint64_t rep_movsb_min;
};

/* Parses the text of ld.so --list-diagnostics. Returns the number of
 * figures found (0 for a loader without them, e.g. not x86). */
int pb_glibc_diag_parse(const char *text, struct pb_glibc_diag *out);

/* Parses the text of ld.so --list-tunables ("glibc.cpu.x86_shstk:" and
 * "glibc.malloc.check: 0 (min: 0, max: 3)" lines): name -> value as
 * printed ("0x840", "" when none) in `out`, names in byte order. Lines of
 * another shape (and any that cannot be stored for want of memory) are
 * skipped. Returns the number of tunables, out->n (0: the empty list).
 * Free with pb_named_texts_free. */
size_t pb_glibc_tunables_parse(const char *text, struct pb_named_texts *out);

/* The "min:" of tunable `name` in that text ("glibc.cpu.x86_rep_movsb_
 * threshold: 0x840 (min: 0x200, max: ...)" gives 0x200), or 0 when the
 * line or its min is absent. */
uint64_t pb_glibc_tunable_min(const char *text, const char *name);

/* Whether a loader's diagnostics `d` describe the glibc this process runs
 * (version `own`, gnu_get_libc_version()): 0 when they do or the loader
 * printed no version; -1 with a reason in note when it is another glibc,
 * as for a static primbench, whose glibc is the one it was linked with,
 * on a machine whose ld.so is another. */
int pb_glibc_diag_same_glibc(const struct pb_glibc_diag *d, const char *own, char *note,
                             size_t note_len);

/* What glibc this process runs on, and the thresholds its loader derives
 * for this CPU (in this environment: GLIBC_TUNABLES is passed on). */
struct pb_glibc_info {
	char version[32]; /* gnu_get_libc_version(), "unknown" without glibc */
	char release[32]; /* gnu_get_libc_release() ("stable") */
	char loader[256]; /* the dynamic loader run, "" when none was found */
	struct pb_glibc_diag diag;
	char note[400]; /* why figures are unknown, "" when all were read */
};

/* Finds the loader (the PT_INTERP of this executable, else the loaded
 * ld-*.so, else /lib64/ld-linux-x86-64.so.2), runs --list-diagnostics and
 * parses it. Never fails: unknown figures have known[] false and a note;
 * a loader of another glibc (pb_glibc_diag_same_glibc) gives none, and
 * loader is then "". */
void pb_glibc_read(struct pb_glibc_info *out);

/* Runs `loader --list-tunables` (glibc 2.33+) and parses it into `out`
 * (as pb_glibc_tunables_parse). Returns 0 ("" in why), or -1 with the
 * empty list and a reason in why when the loader is missing, fails or
 * prints nothing of that shape. Free with pb_named_texts_free. */
int pb_glibc_tunables_read(const char *loader, struct pb_named_texts *out, char *why,
                           size_t why_len);

/* ---- the kernel's preemption model and huge pages (src/cpu/kernel_facts.c) */

/* The preemption model the kernel booted with. */
struct pb_preempt_info {
	/* "none", "voluntary", "full", "lazy", "rt", "none_or_voluntary"
	 * (uname -v without a PREEMPT flag), or "unknown" */
	char model[24];
	int dynamic;      /* PREEMPT_DYNAMIC: 1 yes, 0 no, -1 unknown */
	char source[24];  /* "config" (/proc/config.gz), "uname" (uname -v),
	                   * either + "+cmdline" when preempt= chose the model,
	                   * or "none" */
	char cmdline[32]; /* the value of preempt= on the command line, "" */
};

/* From kernel config text (CONFIG_PREEMPT*=y lines; others ignored):
 * the model of Kconfig's "Preemption Model" choice and PREEMPT_DYNAMIC.
 * Returns 0, or -1 (out untouched) when no choice is set. */
int pb_preempt_from_config(const char *text, struct pb_preempt_info *out);

/* From `uname -v` ("#1 SMP PREEMPT_DYNAMIC Debian ..."): PREEMPT_RT ->
 * rt, PREEMPT -> full, PREEMPT_DYNAMIC -> dynamic with model "unknown"
 * (the boot default is not shown), no flag -> "none_or_voluntary". Returns
 * 0, or -1 (out untouched) when the text does not start with '#'. */
int pb_preempt_from_uname(const char *version, struct pb_preempt_info *out);

/* The config text (NULL: not readable) first, else uname -v; then a
 * preempt=none|voluntary|full|lazy on the command line sets the model when
 * the kernel is PREEMPT_DYNAMIC (the only kind that obeys it). */
void pb_preempt_resolve(const char *config_text, const char *uname_version, const char *cmdline,
                        struct pb_preempt_info *out);

/* pb_preempt_resolve on this system: the gzip'd config at config_gz
 * (/proc/config.gz; read with zlib, skipped in a build without zlib),
 * uname(2)'s version and the command line at cmdline_path (/proc/cmdline).
 * Never mounts debugfs: a runtime switch of a dynamic kernel is not seen. */
void pb_preempt_read(const char *config_gz, const char *cmdline_path, struct pb_preempt_info *out);

/* At most this many huge page sizes are read (x86-64 has two, arm64 four). */
#define PB_HUGEPAGE_SIZES 16

/* The huge pages of one size. */
struct pb_hugepage_count {
	char size[256]; /* "2048kB": the directory's name less "hugepages-" */
	long reserved;  /* nr_hugepages, -1 when it cannot be read */
	long free;      /* free_hugepages, -1 when it cannot be read */
};

/* The huge pages of every size, smaller sizes first. */
struct pb_hugepages {
	size_t n;
	struct pb_hugepage_count size[PB_HUGEPAGE_SIZES];
};

/* Huge pages of each size under a hugepages directory
 * (/sys/kernel/mm/hugepages: its hugepages-<N>kB subdirectories, the first
 * PB_HUGEPAGE_SIZES read) in `out`, smaller sizes first. Returns 0 (n 0:
 * no sizes), or -1 with n 0 when the directory cannot be opened. */
int pb_hugepages_read(const char *dir, struct pb_hugepages *out);

/* ---- free page reporting to the hypervisor (src/cpu/kernel_facts.c) -------- */

/* Free page reporting (Linux mm/page_reporting.c, driven by a virtio
 * balloon that offers VIRTIO_BALLOON_F_REPORTING, feature bit 5 of the
 * virtio 1.1+ spec, section 5.5.3): the guest hands free blocks of
 * 2^order pages to the host, which drops their backing; the next first
 * touch of such a page faults in the host as well as in the guest. A
 * page-fault figure over a large fresh region includes those host faults,
 * one over a few recycled pages does not (docs/methodology.md, "Two
 * page-fault figures"). */
struct pb_page_reporting {
	int active;             /* 1: a balloon device offers reporting; 0: none found;
	                         * -1: /sys/bus/virtio not readable */
	int order;              /* page_reporting_order, -1 when not readable */
	uint64_t block_bytes;   /* the base page (sysconf) << order; 0 when unknown */
	long long reported_kib; /* KiB reported so far, where the kernel counts it
	                         * (a reported_kib parameter: not upstream), else -1 */
};

/* Whether a virtio device's `features` text (one '0'/'1' a bit, bit 0
 * first: /sys/bus/virtio/devices/DEV/features) has bit `bit` set. */
bool pb_virtio_feature_bit(const char *features, unsigned bit);

/* Reads free page reporting under sys_root ("/sys" on this system; a
 * fixture directory in tests): bus/virtio/devices/DEV whose `device` is
 * 0x0005 (balloon) with feature bit 5, and
 * module/page_reporting/parameters/{page_reporting_order,reported_kib}.
 * Never fails: what cannot be read is -1. */
void pb_page_reporting_read(const char *sys_root, struct pb_page_reporting *out);

/* The line a page-fault figure gets when reporting is active in `after`
 * (nothing, 0, otherwise): what it means for the figure and, when both
 * reads counted, the MiB reported between `before` and `after`. Writes at
 * most len bytes (terminated); returns the length of the line. */
size_t pb_page_reporting_note(const struct pb_page_reporting *before,
                              const struct pb_page_reporting *after, char *out, size_t len);

/* How the kernel splits a process's CPU time into user and sys, the
 * figures getrusage(2) and wait4(2) give. The total is the scheduler's
 * nanosecond runtime; the split is scaled from the ticks that fell in
 * user or kernel mode (kernel/sched/cputime.c, cputime_adjust(), under
 * CONFIG_TICK_CPU_ACCOUNTING, and under VIRT_CPU_ACCOUNTING_GEN on every
 * CPU not in nohz_full): a process that ran for under a tick may show all
 * of its time as user and none as sys, or the reverse. */
struct pb_cputime_accounting {
	int hz;          /* CONFIG_HZ: ticks per second; 0 when not known */
	int tick_split;  /* 1: split by ticks; 0: measured at each kernel entry
	                  * (VIRT_CPU_ACCOUNTING_NATIVE); -1 unknown */
	char source[40]; /* "/proc/config.gz", "/boot/config-RELEASE", "none" */
};

/* From kernel config text: CONFIG_HZ=N and the cputime accounting choice
 * (CONFIG_TICK_CPU_ACCOUNTING, _VIRT_CPU_ACCOUNTING_GEN: tick_split 1;
 * _VIRT_CPU_ACCOUNTING_NATIVE: 0). Returns 0 when CONFIG_HZ was found,
 * else -1 (out->hz 0); out->source is left to the caller. */
int pb_cputime_from_config(const char *text, struct pb_cputime_accounting *out);

/* pb_cputime_from_config on this system: the gzip'd config at config_gz
 * (/proc/config.gz, zlib builds only), else the text file
 * boot_dir/config-RELEASE (uname -r; Debian's /boot). Never fails: what
 * cannot be read leaves hz 0, tick_split -1 and source "none". */
void pb_cputime_read(const char *config_gz, const char *boot_dir,
                     struct pb_cputime_accounting *out);

#endif
