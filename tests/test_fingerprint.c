/* test_fingerprint.c - the `machine` object of a result
 * (docs/results-schema.md): every documented field with its type on this
 * machine, fingerprint_hash (format, stability, what changes it and what
 * does not, on synthetic objects), and the readers behind it on fixtures:
 * ld.so --list-diagnostics and --list-tunables text, a vulnerabilities
 * directory, /proc/cpuinfo, the kernel command line, cpufreq, THP.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/fingerprint.h"
#include "primbench/machine.h"
#include "results/results_json.h"

#define NVALUES(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fixtures ------------------------------------------------------------ */

/* `ld.so --list-diagnostics` of glibc 2.36 (Debian 12) on this repository's
 * 2-core Xeon VM, an excerpt: the env[], auxv[] and uname lines and most of
 * the cpuid words are left out. rep_movsb_stop_threshold and the levelN
 * sizes are kept: names that start or end like the ones parsed. */
static const char diag_fixture[] = "dl_dst_lib=\"lib/x86_64-linux-gnu\"\n"
                                   "dl_hwcap=0x6\n"
                                   "dl_pagesize=0x1000\n"
                                   "dl_platform=\"haswell\"\n"
                                   "dso.ld=\"ld-linux-x86-64.so.2\"\n"
                                   "dso.libc=\"libc.so.6\"\n"
                                   "path.rtld=\"/lib64/ld-linux-x86-64.so.2\"\n"
                                   "version.release=\"stable\"\n"
                                   "version.version=\"2.36\"\n"
                                   "x86.cpu_features.basic.kind=0x1\n"
                                   "x86.cpu_features.basic.max_cpuid=0x24\n"
                                   "x86.cpu_features.basic.family=0x6\n"
                                   "x86.cpu_features.basic.model=0xa7\n"
                                   "x86.cpu_features.basic.stepping=0x1\n"
                                   "x86.cpu_features.features[0x0].cpuid[0x0]=0xa0671\n"
                                   "x86.cpu_features.preferred.Fast_Rep_String=0x1\n"
                                   "x86.cpu_features.preferred.Avoid_Short_Distance_REP_MOVSB=0x1\n"
                                   "x86.cpu_features.isa_1=0xf\n"
                                   "x86.cpu_features.xsave_state_size=0x9c0\n"
                                   "x86.cpu_features.xsave_state_full_size=0x2b40\n"
                                   "x86.cpu_features.data_cache_size=0xc000\n"
                                   "x86.cpu_features.shared_cache_size=0x1e200000\n"
                                   "x86.cpu_features.non_temporal_threshold=0xb580000\n"
                                   "x86.cpu_features.rep_movsb_threshold=0x840\n"
                                   "x86.cpu_features.rep_movsb_stop_threshold=0xb580000\n"
                                   "x86.cpu_features.rep_stosb_threshold=0x800\n"
                                   "x86.cpu_features.level1_icache_size=0x10000\n"
                                   "x86.cpu_features.level1_dcache_size=0xc000\n"
                                   "x86.cpu_features.level2_cache_size=0x200000\n"
                                   "x86.cpu_features.level3_cache_size=0x1e000000\n"
                                   "x86.cpu_features.level4_cache_size=0xffffffffffffffff\n";

/* `ld.so --list-tunables` of the same glibc, an excerpt (its order). */
static const char tunables_fixture[] =
    "glibc.rtld.nns: 0x4 (min: 0x1, max: 0x10)\n"
    "glibc.malloc.perturb: 0 (min: 0, max: 255)\n"
    "glibc.cpu.x86_shared_cache_size: 0x1e200000 (min: 0x0, max: 0xffffffffffffffff)\n"
    "glibc.cpu.x86_rep_movsb_threshold: 0x840 (min: 0x200, max: 0xffffffffffffffff)\n"
    "glibc.cpu.x86_rep_stosb_threshold: 0x800 (min: 0x1, max: 0xffffffffffffffff)\n"
    "glibc.cpu.x86_non_temporal_threshold: 0xb580000 (min: 0x4040, max: 0xfffffffffffffff)\n"
    "glibc.cpu.x86_shstk:\n"
    "glibc.cpu.x86_data_cache_size: 0xc000 (min: 0x0, max: 0xffffffffffffffff)\n"
    "glibc.malloc.check: 0 (min: 0, max: 3)\n";

/* This VM's /proc/cmdline, up to and past init's "--". */
static const char cmdline_fixture[] =
    "mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet reboot=k panic=1 "
    "nomodule random.trust_cpu=1 swiotlb=noforce psi=1 rdinit=/process_api -- "
    "--firecracker-init --addr 0.0.0.0:2024 mitigations=off";

static char *make_temp_dir(void)
{
	char *dir = strdup("/tmp/pb-fingerprint-XXXXXX");
	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[8400];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void remove_tree(const char *dir)
{
	char cmd[4200];
	assert_true(!strncmp(dir, "/tmp/pb-fingerprint-", 20));
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- the readers ----------------------------------------------------------- */

static void test_glibc_diag_parse_fixture(void **state)
{
	(void)state;
	struct pb_glibc_diag d;
	assert_int_equal(pb_glibc_diag_parse(diag_fixture, &d), PB_GLIBC_FIGURES);
	assert_string_equal(d.version, "2.36");
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		assert_true(d.known[i]);
	assert_int_equal(d.value[PB_GLIBC_DATA_CACHE_SIZE], 0xc000);
	assert_int_equal(d.value[PB_GLIBC_SHARED_CACHE_SIZE], 0x1e200000);
	assert_int_equal(d.value[PB_GLIBC_NON_TEMPORAL_THRESHOLD], 0xb580000); /* 181.5 MiB */
	assert_int_equal(d.value[PB_GLIBC_REP_MOVSB_THRESHOLD], 2112);
	assert_int_equal(d.value[PB_GLIBC_REP_STOSB_THRESHOLD], 2048);
	assert_string_equal(pb_glibc_figure_name(PB_GLIBC_REP_MOVSB_THRESHOLD),
	                    "x86_rep_movsb_threshold");
	assert_string_equal(pb_glibc_figure_name(PB_GLIBC_FIGURES), "unknown");
	/* not a figure of the result, kept for the model of glibc's paths */
	assert_int_equal(d.rep_movsb_stop, 0xb580000);
	assert_int_equal(d.rep_movsb_min, 0); /* --list-tunables gives it */
}

/* A loader's figures count only for the glibc this program runs: a static
 * primbench on a machine whose ld.so is another glibc reads none. */
static void test_glibc_diag_same_glibc(void **state)
{
	(void)state;
	struct pb_glibc_diag d;
	char note[400] = "";
	pb_glibc_diag_parse("version.version=\"2.36\"\n"
	                    "x86.cpu_features.rep_stosb_threshold=0x800\n",
	                    &d);
	assert_string_equal(d.version, "2.36");
	assert_int_equal(pb_glibc_diag_same_glibc(&d, "2.36", note, sizeof note), 0);
	assert_string_equal(note, "");
	assert_int_equal(pb_glibc_diag_same_glibc(&d, "2.41", note, sizeof note), -1);
	assert_non_null(strstr(note, "glibc 2.36"));
	assert_non_null(strstr(note, "glibc 2.41"));
	/* A loader that prints no version: nothing to hold against it. */
	note[0] = '\0';
	pb_glibc_diag_parse("x86.cpu_features.rep_stosb_threshold=0x800\n", &d);
	assert_int_equal(pb_glibc_diag_same_glibc(&d, "2.41", note, sizeof note), 0);
	assert_string_equal(note, "");
}

static void test_glibc_diag_parse_partial(void **state)
{
	(void)state;
	struct pb_glibc_diag d;
	/* No x86 lines (another architecture), no version: nothing known. */
	assert_int_equal(
	    pb_glibc_diag_parse("dl_pagesize=0x1000\nversion.release=\"stable\"\n", &d), 0);
	assert_string_equal(d.version, "");
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		assert_false(d.known[i]);
	assert_int_equal(pb_glibc_diag_parse("", &d), 0);
	/* One figure, no final newline; a bad number and an empty one are
	 * skipped, not read as 0. */
	assert_int_equal(pb_glibc_diag_parse("x86.cpu_features.rep_stosb_threshold=0x800\n"
	                                     "x86.cpu_features.rep_movsb_threshold=zz\n"
	                                     "x86.cpu_features.data_cache_size=\n"
	                                     "x86.cpu_features.non_temporal_threshold=4096",
	                                     &d),
	                 2);
	assert_true(d.known[PB_GLIBC_REP_STOSB_THRESHOLD]);
	assert_true(d.known[PB_GLIBC_NON_TEMPORAL_THRESHOLD]);
	assert_int_equal(d.value[PB_GLIBC_NON_TEMPORAL_THRESHOLD], 4096);
	assert_false(d.known[PB_GLIBC_REP_MOVSB_THRESHOLD]);
	assert_false(d.known[PB_GLIBC_DATA_CACHE_SIZE]);
}

/* The text of `name` in a list, or NULL. */
static const char *named_text(const struct pb_named_texts *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->item[i].name, name))
			return l->item[i].text;
	return NULL;
}

static void test_glibc_tunables_parse_fixture(void **state)
{
	(void)state;
	struct pb_named_texts t;
	assert_int_equal(pb_glibc_tunables_parse(tunables_fixture, &t), 9);
	assert_int_equal(t.n, 9);
	assert_string_equal(named_text(&t, "glibc.cpu.x86_rep_movsb_threshold"), "0x840");
	assert_string_equal(named_text(&t, "glibc.malloc.check"), "0");
	assert_string_equal(named_text(&t, "glibc.cpu.x86_shstk"), "");
	/* the lowest value a tunable accepts */
	assert_int_equal(
	    pb_glibc_tunable_min(tunables_fixture, "glibc.cpu.x86_rep_movsb_threshold"), 0x200);
	assert_int_equal(pb_glibc_tunable_min(tunables_fixture, "glibc.cpu.x86_shstk"), 0);
	assert_int_equal(pb_glibc_tunable_min(tunables_fixture, "glibc.cpu.x86_rep_movsb"), 0);
	assert_int_equal(pb_glibc_tunable_min("glibc.cpu.x: 1 (min: zz, max: 2)\n", "glibc.cpu.x"),
	                 0);
	/* Names in byte order, whatever glibc's order. */
	const char *prev = "";
	for (size_t i = 0; i < t.n; i++) {
		assert_true(strcmp(prev, t.item[i].name) < 0);
		prev = t.item[i].name;
	}
	pb_named_texts_free(&t);
	assert_int_equal(t.n, 0);
	/* Lines of another shape are skipped. */
	assert_int_equal(pb_glibc_tunables_parse("ld.so: unrecognized option '--list-tunables'\n"
	                                         "Try 'ld.so --help' for more information.\n"
	                                         "glibc.bad name: 1\n",
	                                         &t),
	                 0);
	assert_int_equal(t.n, 0);
	pb_named_texts_free(&t);
}

static void test_vulnerabilities_dir(void **state)
{
	(void)state;
	char *dir = make_temp_dir();
	write_file(dir, "spectre_v2",
	           "Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not "
	           "affected; BHI: Retpoline\n");
	write_file(dir, "meltdown", "Not affected\n");
	write_file(dir, "retbleed", "Vulnerable");
	write_file(dir, "empty", "");
	write_file(dir, ".hidden", "x\n");
	char sub[4200];
	snprintf(sub, sizeof sub, "%s/subdir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);

	struct pb_named_texts v;
	assert_int_equal(pb_vulnerabilities_read(dir, &v), 0);
	assert_int_equal(v.n, 4);
	assert_string_equal(named_text(&v, "meltdown"), "Not affected");
	assert_string_equal(named_text(&v, "retbleed"), "Vulnerable");
	assert_string_equal(named_text(&v, "empty"), "");
	assert_non_null(strstr(named_text(&v, "spectre_v2"), "BHI: Retpoline"));
	/* In byte order (written so: the file is not key-sorted). */
	assert_string_equal(v.item[0].name, "empty");
	assert_string_equal(v.item[1].name, "meltdown");
	assert_string_equal(v.item[2].name, "retbleed");
	assert_string_equal(v.item[3].name, "spectre_v2");
	pb_named_texts_free(&v);

	remove_tree(dir);
	/* gone: -1 and the empty list, written as null */
	assert_int_equal(pb_vulnerabilities_read(dir, &v), -1);
	assert_int_equal(v.n, 0);
	free(dir);
}

static void test_cmdline_param(void **state)
{
	(void)state;
	char v[64];
	/* init's "mitigations=off" after "--" is not the kernel's. */
	assert_true(pb_cmdline_param(cmdline_fixture, "mitigations", v, sizeof v));
	assert_string_equal(v, "auto,no_guest_host,no_guest_guest");
	assert_true(pb_cmdline_param(cmdline_fixture, "random.trust_cpu", v, sizeof v));
	assert_string_equal(v, "1");
	assert_false(pb_cmdline_param(cmdline_fixture, "spectre_v2", v, sizeof v));
	assert_string_equal(v, "");
	/* The last one wins; names match whole, '-' and '_' alike; quotes
	 * group words and are dropped; a bare name has no value. */
	assert_true(
	    pb_cmdline_param("mitigations=auto quiet mitigations=off", "mitigations", v, sizeof v));
	assert_string_equal(v, "off");
	assert_false(pb_cmdline_param("nomitigations mitigationsx=1 mitigations", "mitigations", v,
	                              sizeof v));
	assert_true(pb_cmdline_param("spectre-v2=retpoline", "spectre_v2", v, sizeof v));
	assert_string_equal(v, "retpoline");
	assert_true(pb_cmdline_param("x=\"a b\" mitigations= y", "x", v, sizeof v));
	assert_string_equal(v, "a b");
	assert_true(pb_cmdline_param("x=\"a b\" mitigations= y", "mitigations", v, sizeof v));
	assert_string_equal(v, "");
	assert_false(pb_cmdline_param("", "mitigations", v, sizeof v));
	/* A long value is cut to the buffer. */
	char small[4];
	assert_true(pb_cmdline_param("mitigations=auto,nosmt", "mitigations", small, sizeof small));
	assert_string_equal(small, "aut");
}

static void test_bracketed_choice(void **state)
{
	(void)state;
	char c[32];
	pb_bracketed_choice("always [madvise] never", c, sizeof c);
	assert_string_equal(c, "madvise");
	pb_bracketed_choice("always defer defer+madvise [madvise] never", c, sizeof c);
	assert_string_equal(c, "madvise");
	pb_bracketed_choice("[always] madvise never", c, sizeof c);
	assert_string_equal(c, "always");
	pb_bracketed_choice("always madvise never", c, sizeof c);
	assert_string_equal(c, "unknown");
	pb_bracketed_choice("[]", c, sizeof c);
	assert_string_equal(c, "unknown");
	pb_bracketed_choice("", c, sizeof c);
	assert_string_equal(c, "unknown");
}

static void test_microcode_read(void **state)
{
	(void)state;
	char *dir = make_temp_dir();
	char path[4200], m[32];
	write_file(dir, "cpuinfo",
	           "processor\t: 0\nvendor_id\t: GenuineIntel\nmicrocode\t: 0x2b000620\n"
	           "cpu MHz\t\t: 2599.998\n\nprocessor\t: 1\nmicrocode\t: 0x1\n\n");
	snprintf(path, sizeof path, "%s/cpuinfo", dir);
	pb_microcode_read(path, m, sizeof m);
	assert_string_equal(m, "0x2b000620");
	/* No microcode line in the first block (arm64): unknown, not cpu 1's. */
	write_file(dir, "cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n\nmicrocode\t: 0x1\n");
	pb_microcode_read(path, m, sizeof m);
	assert_string_equal(m, "unknown");
	snprintf(path, sizeof path, "%s/absent", dir);
	pb_microcode_read(path, m, sizeof m);
	assert_string_equal(m, "unknown");
	remove_tree(dir);
	free(dir);
}

static void test_cpufreq_read(void **state)
{
	(void)state;
	char *dir = make_temp_dir();
	char gov[32], drv[32], why[512], sub[4200];
	/* No cpufreq directory (this VM): unknown, and why. */
	pb_cpufreq_read(dir, gov, sizeof gov, drv, sizeof drv, why, sizeof why);
	assert_string_equal(gov, "unknown");
	assert_string_equal(drv, "unknown");
	assert_non_null(strstr(why, "no cpufreq driver"));
	/* A driver without a governor file. */
	snprintf(sub, sizeof sub, "%s/cpufreq", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file(sub, "scaling_driver", "intel_cpufreq\n");
	pb_cpufreq_read(dir, gov, sizeof gov, drv, sizeof drv, why, sizeof why);
	assert_string_equal(gov, "unknown");
	assert_string_equal(drv, "intel_cpufreq");
	assert_non_null(strstr(why, "scaling_governor"));
	/* Both. */
	write_file(sub, "scaling_governor", "performance\n");
	pb_cpufreq_read(dir, gov, sizeof gov, drv, sizeof drv, why, sizeof why);
	assert_string_equal(gov, "performance");
	assert_string_equal(why, "");
	remove_tree(dir);
	free(dir);
}

/* ---- preemption model and huge pages -------------------------------------- */

static void assert_preempt(const char *config, const char *uname_v, const char *cmdline,
                           const char *model, int dynamic, const char *source)
{
	struct pb_preempt_info p;
	pb_preempt_resolve(config, uname_v, cmdline, &p);
	assert_string_equal(p.model, model);
	assert_int_equal(p.dynamic, dynamic);
	assert_string_equal(p.source, source);
}

static void test_preempt_uname(void **state)
{
	(void)state;
	struct pb_preempt_info p;
	/* This machine's (6.18, Firecracker), Debian 12's, an RT and a
	 * PREEMPT build's, and one without a flag. */
	assert_int_equal(pb_preempt_from_uname("#1 SMP PREEMPT_DYNAMIC @0", &p), 0);
	assert_string_equal(p.model, "unknown");
	assert_int_equal(p.dynamic, 1);
	assert_preempt(NULL, "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", "", "unknown",
	               1, "uname");
	assert_preempt(NULL, "#1 SMP PREEMPT_RT Debian 6.1.76-1 (2024-02-01)", "", "rt", 0,
	               "uname");
	assert_preempt(NULL, "#1 SMP PREEMPT Sun, 03 Mar 2024 12:00:00 +0000", "", "full", 0,
	               "uname");
	assert_preempt(NULL, "#15-Ubuntu SMP Fri Jan 12 18:54:30 UTC 2024", "", "none_or_voluntary",
	               0, "uname");
	/* Not a Linux version string: nothing known. */
	assert_int_equal(pb_preempt_from_uname("Darwin Kernel", &p), -1);
	assert_preempt(NULL, "Darwin Kernel", "preempt=full", "unknown", -1, "none");
	assert_preempt(NULL, NULL, NULL, "unknown", -1, "none");
}

static void test_preempt_cmdline(void **state)
{
	(void)state;
	struct pb_preempt_info p;
	const char *dyn = "#1 SMP PREEMPT_DYNAMIC @0";
	/* A dynamic kernel obeys preempt=; the last one wins; an unknown value
	 * or one after "--" (init's) does not count. */
	assert_preempt(NULL, dyn, "quiet preempt=full", "full", 1, "uname+cmdline");
	assert_preempt(NULL, dyn, "preempt=none quiet preempt=voluntary", "voluntary", 1,
	               "uname+cmdline");
	assert_preempt(NULL, dyn, "preempt=lazy", "lazy", 1, "uname+cmdline");
	assert_preempt(NULL, dyn, "preempt=bogus", "unknown", 1, "uname");
	assert_preempt(NULL, dyn, "quiet -- preempt=full", "unknown", 1, "uname");
	pb_preempt_resolve(NULL, dyn, "preempt=full", &p);
	assert_string_equal(p.cmdline, "full");
	/* A kernel that is not dynamic ignores it (recorded, not applied). */
	pb_preempt_resolve(NULL, "#1 SMP PREEMPT_RT x", "preempt=none", &p);
	assert_string_equal(p.model, "rt");
	assert_string_equal(p.cmdline, "none");
	assert_string_equal(p.source, "uname");
}

static void test_preempt_config(void **state)
{
	(void)state;
	/* This machine's /proc/config.gz, its CONFIG_PREEMPT lines. */
	static const char here[] = "CONFIG_PREEMPT_BUILD=y\n"
	                           "CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n"
	                           "CONFIG_PREEMPT_NONE=y\n"
	                           "# CONFIG_PREEMPT_VOLUNTARY is not set\n"
	                           "# CONFIG_PREEMPT is not set\n"
	                           "# CONFIG_PREEMPT_LAZY is not set\n"
	                           "CONFIG_PREEMPT_COUNT=y\n"
	                           "CONFIG_PREEMPTION=y\n"
	                           "CONFIG_PREEMPT_DYNAMIC=y\n"
	                           "CONFIG_PREEMPT_RCU=y\n";
	const char *dyn = "#1 SMP PREEMPT_DYNAMIC @0";
	/* config wins over uname: it names the boot default. */
	assert_preempt(here, dyn, "", "none", 1, "config");
	assert_preempt(here, dyn, "preempt=full", "full", 1, "config+cmdline");
	assert_preempt("CONFIG_PREEMPT_VOLUNTARY=y\n", "#1 SMP", "preempt=full", "voluntary", 0,
	               "config");
	assert_preempt("CONFIG_PREEMPT=y\nCONFIG_PREEMPT_DYNAMIC=y", dyn, "", "full", 1, "config");
	assert_preempt("CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\n", "#1 SMP PREEMPT_RT", "", "rt", 0,
	               "config");
	/* "=m", a prefix of a longer name, or no choice at all: not a choice;
	 * uname decides. */
	assert_preempt("CONFIG_PREEMPT_NONE_X=y\nCONFIG_PREEMPT=m\n", dyn, "", "unknown", 1,
	               "uname");
	assert_preempt("", "#1 SMP PREEMPT x", "", "full", 0, "uname");
}

/* CPU-time accounting from config text (this machine's lines first), and
 * the reader: a /boot config file of this kernel's release when there is
 * no /proc/config.gz, nothing at all -> hz 0, source "none". */
static void test_cputime_config(void **state)
{
	(void)state;
	static const char here[] = "CONFIG_NO_HZ=y\n"
	                           "CONFIG_TICK_CPU_ACCOUNTING=y\n"
	                           "# CONFIG_VIRT_CPU_ACCOUNTING_GEN is not set\n"
	                           "CONFIG_HZ_250=y\n"
	                           "CONFIG_HZ=250\n"
	                           "CONFIG_HAVE_VIRT_CPU_ACCOUNTING_GEN=y\n";
	struct pb_cputime_accounting a;
	assert_int_equal(pb_cputime_from_config(here, &a), 0);
	assert_int_equal(a.hz, 250);
	assert_int_equal(a.tick_split, 1);
	assert_int_equal(
	    pb_cputime_from_config("CONFIG_VIRT_CPU_ACCOUNTING_NATIVE=y\nCONFIG_HZ=100", &a), 0);
	assert_int_equal(a.hz, 100);
	assert_int_equal(a.tick_split, 0);
	assert_int_equal(
	    pb_cputime_from_config("CONFIG_VIRT_CPU_ACCOUNTING_GEN=y\nCONFIG_HZ=1000\n", &a), 0);
	assert_int_equal(a.tick_split, 1);
	/* no CONFIG_HZ, a bad one, a CONFIG_HZ_ choice only: unknown */
	assert_int_equal(pb_cputime_from_config("CONFIG_TICK_CPU_ACCOUNTING=y\n", &a), -1);
	assert_int_equal(a.hz, 0);
	assert_int_equal(pb_cputime_from_config("CONFIG_HZ=abc\nCONFIG_HZ_300=y\n", &a), -1);
	assert_int_equal(pb_cputime_from_config(NULL, &a), -1);

	char dir[] = "/tmp/pb-cputime-XXXXXX", path[600];
	assert_non_null(mkdtemp(dir));
	struct utsname u;
	assert_int_equal(uname(&u), 0);
	snprintf(path, sizeof path, "%s/config-%s", dir, u.release);
	pb_cputime_read("/nonexistent/config.gz", dir, &a);
	assert_int_equal(a.hz, 0);
	assert_int_equal(a.tick_split, -1);
	assert_string_equal(a.source, "none");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("CONFIG_X=y\nCONFIG_TICK_CPU_ACCOUNTING=y\nCONFIG_HZ=300\n", f);
	fclose(f);
	pb_cputime_read("/nonexistent/config.gz", dir, &a);
	assert_int_equal(a.hz, 300);
	assert_int_equal(a.tick_split, 1);
	assert_non_null(strstr(a.source, "/config-"));
	unlink(path);
	rmdir(dir);
}

/* Free page reporting: a balloon (device 0x0005) with feature bit 5 is
 * active, another device or the bit clear is not; the module's order and
 * (non-upstream) reported_kib read where present; the note says what it
 * can and nothing when reporting is off. */
static void test_page_reporting(void **state)
{
	(void)state;
	assert_true(pb_virtio_feature_bit("0110010", 5));
	assert_false(pb_virtio_feature_bit("0110000", 5));
	assert_false(pb_virtio_feature_bit("01", 5));
	assert_false(pb_virtio_feature_bit(NULL, 0));
	struct pb_page_reporting pr;
	pb_page_reporting_read("/nonexistent", &pr);
	assert_int_equal(pr.active, -1);
	assert_int_equal(pr.order, -1);
	assert_int_equal(pr.reported_kib, -1);
	assert_int_equal(pr.block_bytes, 0);

	char root[] = "/tmp/pb-fingerprint-XXXXXX", p[512];
	assert_non_null(mkdtemp(root));
	static const char *const dirs[] = {"bus",
	                                   "bus/virtio",
	                                   "bus/virtio/devices",
	                                   "bus/virtio/devices/virtio0",
	                                   "bus/virtio/devices/virtio1",
	                                   "module",
	                                   "module/page_reporting",
	                                   "module/page_reporting/parameters"};
	for (size_t i = 0; i < NVALUES(dirs); i++) {
		snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	/* a block device with bit 5 set, a balloon without reporting */
	snprintf(p, sizeof p, "%s/bus/virtio/devices/virtio0", root);
	write_file(p, "device", "0x0002\n");
	write_file(p, "features", "0010011\n");
	snprintf(p, sizeof p, "%s/bus/virtio/devices/virtio1", root);
	write_file(p, "device", "0x0005\n");
	write_file(p, "features", "0110000\n");
	pb_page_reporting_read(root, &pr);
	assert_int_equal(pr.active, 0);
	assert_int_equal(pr.order, -1);
	char line[512];
	assert_int_equal(pb_page_reporting_note(&pr, &pr, line, sizeof line), 0);
	assert_string_equal(line, "");

	write_file(p, "features", "0110010\n");
	snprintf(p, sizeof p, "%s/module/page_reporting/parameters", root);
	write_file(p, "page_reporting_order", "9\n");
	pb_page_reporting_read(root, &pr);
	assert_int_equal(pr.active, 1);
	assert_int_equal(pr.order, 9);
	assert_int_equal(pr.block_bytes, (uint64_t)sysconf(_SC_PAGESIZE) << 9);
	assert_int_equal(pr.reported_kib, -1);
	assert_true(pb_page_reporting_note(&pr, &pr, line, sizeof line) > 0);
	assert_non_null(strstr(line, "free page reporting to the hypervisor is on"));
	assert_non_null(strstr(line, "this kernel does not count what it reports"));

	write_file(p, "reported_kib", "1024\n");
	struct pb_page_reporting before;
	pb_page_reporting_read(root, &before);
	assert_int_equal(before.reported_kib, 1024);
	write_file(p, "reported_kib", "787456\n");
	pb_page_reporting_read(root, &pr);
	pb_page_reporting_note(&before, &pr, line, sizeof line);
	assert_non_null(strstr(line, "; 768 MiB were reported during this run"));
	/* a short buffer: cut, terminated */
	assert_int_equal(pb_page_reporting_note(&before, &pr, line, 10), 9);
	assert_int_equal(strlen(line), 9);
	remove_tree(root);
}

static void test_hugepages_read(void **state)
{
	(void)state;
	char dir[] = "/tmp/pb-fingerprint-XXXXXX", p[512];
	assert_non_null(mkdtemp(dir));
	struct pb_hugepages o;
	assert_int_equal(pb_hugepages_read("/nonexistent/hugepages", &o), -1);
	assert_int_equal(o.n, 0);
	assert_int_equal(pb_hugepages_read(dir, &o), 0);
	assert_int_equal(o.n, 0);
	static const char *const sizes[] = {"hugepages-2048kB", "hugepages-1048576kB"};
	for (size_t i = 0; i < NVALUES(sizes); i++) {
		snprintf(p, sizeof p, "%s/%s", dir, sizes[i]);
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(p, sizeof p, "%s/hugepages-2048kB", dir);
	write_file(p, "nr_hugepages", "16\n");
	write_file(p, "free_hugepages", "12\n");
	snprintf(p, sizeof p, "%s/hugepages-1048576kB", dir);
	write_file(p, "nr_hugepages", "0\n"); /* free_hugepages missing */
	assert_int_equal(pb_hugepages_read(dir, &o), 0);
	assert_int_equal(o.n, 2);
	/* Smaller pages first. */
	const struct pb_hugepage_count *two = &o.size[0], *one = &o.size[1];
	assert_string_equal(two->size, "2048kB");
	assert_string_equal(one->size, "1048576kB");
	assert_int_equal(two->reserved, 16);
	assert_int_equal(two->free, 12);
	assert_int_equal(one->reserved, 0);
	assert_int_equal(one->free, -1); /* written as null */
	remove_tree(dir);
}

/* ---- fingerprint_hash on synthetic objects --------------------------------- */

static void test_fnv1a64_vectors(void **state)
{
	(void)state;
	/* FNV test vectors (http://www.isthe.com/chongo/tech/comp/fnv/). */
	assert_true(pb_fnv1a64("", 0) == UINT64_C(0xcbf29ce484222325));
	assert_true(pb_fnv1a64("a", 1) == UINT64_C(0xaf63dc4c8601ec8c));
	assert_true(pb_fnv1a64("foobar", 6) == UINT64_C(0x85944171f73967e8));
}

static const char synthetic_machine[] =
    "{\"cpu\": {\"vendor\": \"GenuineIntel\", \"brand\": \"Intel(R) Xeon(R) Processor\","
    " \"family\": 6, \"model\": 167, \"stepping\": 1, \"microcode\": \"0x1\","
    " \"hypervisor\": true, \"hypervisor_vendor\": \"KVM\","
    " \"hypervisor_signature\": \"KVMKVMKVM\", \"online_cpus\": 2},"
    " \"features\": {\"detected\": [\"sse2\", \"avx2\", \"erms\"], \"hidden\": [],"
    " \"usable\": [\"sse2\", \"avx2\", \"erms\"]},"
    " \"caches\": {\"line_bytes\": 64,"
    " \"L1d\": {\"size_bytes\": 49152, \"source\": \"sysfs\", \"by_source\": {}, \"note\": \"\"},"
    " \"L2\": {\"size_bytes\": 2097152, \"source\": \"sysfs\", \"by_source\": {}, \"note\": \"\"},"
    " \"LLC\": {\"size_bytes\": 33554432, \"source\": \"fallback\", \"by_source\": {},"
    " \"note\": \"480 MiB implausible\"}},"
    " \"timer\": {\"clock\": \"tsc\", \"clock_desc\": \"tsc\", \"hz\": 2599998150.0,"
    " \"freq_source\": \"calibrated\", \"calibrated_hz\": 2599998150.0,"
    " \"calibration_error_ppm\": 0.1, \"overhead_ticks\": 42.0, \"step_ticks\": 44.0,"
    " \"core_hz_estimate\": 3.97e9},"
    " \"hostname\": \"vm\", \"kernel\": \"6.18.44-fc-v769\","
    " \"kernel_version\": \"#1 SMP PREEMPT_DYNAMIC @0\","
    " \"kernel_cmdline\": \"mitigations=auto quiet\","
    " \"mitigations\": {\"vulnerabilities\": {\"meltdown\": \"Not affected\","
    " \"retbleed\": \"Vulnerable\"}, \"cmdline\": \"auto\"},"
    " \"thp\": {\"enabled\": \"madvise\", \"defrag\": \"madvise\"},"
    " \"cpufreq\": {\"governor\": \"unknown\", \"driver\": \"unknown\", \"note\": \"none\"},"
    " \"glibc\": {\"version\": \"2.36\", \"release\": \"stable\","
    " \"loader\": \"/lib64/ld-linux-x86-64.so.2\", \"x86_data_cache_size\": 49152,"
    " \"x86_shared_cache_size\": 505413632, \"x86_non_temporal_threshold\": 190316544,"
    " \"x86_rep_movsb_threshold\": 2112, \"x86_rep_stosb_threshold\": 2048,"
    " \"tunables\": {\"glibc.malloc.check\": \"0\"}, \"tunables_env\": null, \"note\": \"\"},"
    " \"build\": {\"primbench_version\": \"2341eca-dirty\", \"compiler\": \"12.2.0\","
    " \"build_flags\": \"RelWithDebInfo: -O2 -g\"},"
    " \"preemption\": {\"model\": \"voluntary\", \"dynamic\": false,"
    " \"source\": \"/boot/config-6.1.0-18-amd64\", \"cmdline\": null},"
    " \"pinned_cpu\": 1}";

/* The fingerprint_hash of synthetic_machine. Pins the hash's definition (its
 * input fields, the canonical JSON, FNV-1a 64): if this changes, results
 * written before no longer compare equal, so schema_version must change. */
#define SYNTHETIC_HASH "fe10bd8667c47e47"

static json_t *load(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &err);
	if (!j)
		fail_msg("bad JSON '%s': %s", text, err.text);
	return j;
}

static void hash_of(const json_t *m, char out[PB_FINGERPRINT_HASH_LEN + 1])
{
	assert_int_equal(pb_fingerprint_hash(m, out), 0);
}

static void assert_hash_format(const char *h)
{
	assert_int_equal(strlen(h), PB_FINGERPRINT_HASH_LEN);
	for (const char *p = h; *p; p++)
		assert_true(isdigit((unsigned char)*p) || (*p >= 'a' && *p <= 'f'));
}

/* One change to a machine object: the value at a path (up to three keys). */
struct change {
	const char *k1, *k2, *k3;
	const char *json; /* the new value; NULL deletes the key */
};

static json_t *changed(const json_t *base, const struct change *c)
{
	json_t *m = json_deep_copy(base);
	json_t *parent = m;
	const char *keys[] = {c->k1, c->k2, c->k3};
	int depth = c->k3 ? 3 : c->k2 ? 2 : 1;
	for (int i = 0; i < depth - 1; i++) {
		parent = json_object_get(parent, keys[i]);
		assert_non_null(parent);
	}
	if (c->json)
		assert_int_equal(json_object_set_new(parent, keys[depth - 1], load(c->json)), 0);
	else
		assert_int_equal(json_object_del(parent, keys[depth - 1]), 0);
	return m;
}

static void test_hash_synthetic(void **state)
{
	(void)state;
	json_t *base = load(synthetic_machine);
	char h0[PB_FINGERPRINT_HASH_LEN + 1], h[PB_FINGERPRINT_HASH_LEN + 1];
	hash_of(base, h0);
	assert_hash_format(h0);
	hash_of(base, h);
	assert_string_equal(h, h0);
	assert_string_equal(h0, SYNTHETIC_HASH);

	/* Result-relevant: each of these changes the hash. */
	static const struct change relevant[] = {
	    {"cpu", "vendor", NULL, "\"AuthenticAMD\""},
	    {"cpu", "family", NULL, "25"},
	    {"cpu", "model", NULL, "143"},
	    {"cpu", "stepping", NULL, "2"},
	    {"cpu", "microcode", NULL, "\"0x2b000620\""},
	    {"features", "usable", NULL, "[\"sse2\", \"avx2\"]"},
	    {"caches", "L1d", "size_bytes", "32768"},
	    {"caches", "L2", "size_bytes", "1048576"},
	    {"caches", "LLC", "size_bytes", "12641280"},
	    {"caches", "line_bytes", NULL, "128"},
	    {"timer", "hz", NULL, "2096000000.0"},
	    {"timer", "clock", NULL, "\"clock_monotonic_raw\""},
	    {"kernel", NULL, NULL, "\"6.1.0-18-amd64\""},
	    {"mitigations", "vulnerabilities", NULL,
	     "{\"meltdown\": \"Not affected\", \"retbleed\": \"Mitigation: IBRS\"}"},
	    {"mitigations", "vulnerabilities", NULL, "null"},
	    {"mitigations", "cmdline", NULL, "\"off\""},
	    {"thp", "enabled", NULL, "\"always\""},
	    {"thp", "defrag", NULL, "\"defer\""},
	    {"cpufreq", "governor", NULL, "\"performance\""},
	    {"preemption", NULL, NULL, "{\"model\": \"full\", \"dynamic\": true}"},
	    {"glibc", "version", NULL, "\"2.39\""},
	    {"glibc", "x86_rep_movsb_threshold", NULL, "4096"},
	    {"glibc", "x86_rep_stosb_threshold", NULL, "\"unknown\""},
	    {"glibc", "x86_non_temporal_threshold", NULL, "3145728"},
	    {"glibc", "x86_shared_cache_size", NULL, "33554432"},
	    {"glibc", "x86_data_cache_size", NULL, "32768"},
	    {"build", "compiler", NULL, "\"Debian Clang 14.0.6\""},
	    {"build", "build_flags", NULL, "\"Release: -O3\""},
	    {"build", "primbench_version", NULL, "\"2341eca\""},
	    {"cpu", "microcode", NULL, NULL}, /* a field gone is a change too */
	};
	for (size_t i = 0; i < NVALUES(relevant); i++) {
		json_t *m = changed(base, &relevant[i]);
		hash_of(m, h);
		if (!strcmp(h, h0))
			fail_msg("changing %s.%s%s%s to %s left the hash unchanged", relevant[i].k1,
			         relevant[i].k2 ? relevant[i].k2 : "", relevant[i].k3 ? "." : "",
			         relevant[i].k3 ? relevant[i].k3 : "",
			         relevant[i].json ? relevant[i].json : "(deleted)");
		json_decref(m);
	}

	/* Not result-relevant: the hash stays. */
	static const struct change irrelevant[] = {
	    {"hostname", NULL, NULL, "\"other-host\""},
	    {"hostname", NULL, NULL, NULL},
	    {"pinned_cpu", NULL, NULL, "0"},
	    {"timer", "hz", NULL, "2600001234.5"}, /* the same MHz */
	    {"timer", "calibrated_hz", NULL, "2600001234.5"},
	    {"timer", "calibration_error_ppm", NULL, "3.5"},
	    {"timer", "overhead_ticks", NULL, "46.0"},
	    {"timer", "step_ticks", NULL, "21.0"},
	    {"timer", "core_hz_estimate", NULL, "3.3e9"},
	    {"cpu", "brand", NULL, "\"Intel(R) Xeon(R) Platinum 8375C\""},
	    {"cpu", "online_cpus", NULL, "4"},
	    {"caches", "LLC", "note", "\"\""},
	    {"caches", "LLC", "source", "\"override\""},
	    {"features", "hidden", NULL, "[\"avx512f\"]"},
	    {"kernel_version", NULL, NULL, "\"#2 SMP\""},
	    {"kernel_cmdline", NULL, NULL, "\"mitigations=auto\""},
	    {"cpufreq", "note", NULL, "\"\""},
	    {"glibc", "tunables", NULL, "\"unknown\""},
	    {"glibc", "note", NULL, "\"x\""},
	    {"fingerprint_hash", NULL, NULL, "\"0123456789abcdef\""},
	    /* Reservations change without the machine changing (see
	     * docs/results-schema.md, fingerprint_hash); where the preemption
	     * model was read from is not the model. */
	    {"hugepages", NULL, NULL, "{\"2048kB\": {\"reserved\": 16, \"free\": 16}}"},
	    {"preemption", "source", NULL, "\"/proc/config.gz\""},
	};
	for (size_t i = 0; i < NVALUES(irrelevant); i++) {
		json_t *m = changed(base, &irrelevant[i]);
		hash_of(m, h);
		if (strcmp(h, h0))
			fail_msg("changing %s.%s to %s changed the hash", irrelevant[i].k1,
			         irrelevant[i].k2 ? irrelevant[i].k2 : "",
			         irrelevant[i].json ? irrelevant[i].json : "(deleted)");
		json_decref(m);
	}

	/* Key order in the object does not matter (the input is key-sorted). */
	json_t *input = pb_fingerprint_hash_input(base);
	assert_non_null(input);
	assert_null(json_object_get(input, "hostname"));
	assert_int_equal(json_integer_value(json_object_get(input, "tsc_mhz")), 2600);
	json_decref(input);
	json_decref(base);

	/* An empty object: every input null, still a hash. */
	json_t *empty = json_object();
	hash_of(empty, h);
	assert_hash_format(h);
	assert_string_not_equal(h, h0);
	json_decref(empty);
}

/* ---- the machine object on this machine ------------------------------------ */

enum kind {
	K_STRING,
	K_INTEGER,
	K_NUMBER_OR_NULL,
	K_BOOLEAN,
	K_OBJECT,
	K_STRING_ARRAY,
	K_STRING_OR_NULL,
	K_OBJECT_OR_NULL,
	K_INTEGER_OR_UNKNOWN,
	K_OBJECT_OR_UNKNOWN,
	K_OPTIONAL_STRING,
	K_BOOLEAN_OR_NULL,
};

/* Every field of docs/results-schema.md's `machine` section. */
static const struct {
	const char *path; /* dotted */
	enum kind kind;
} machine_fields[] = {
    {"cpu", K_OBJECT},
    {"cpu.vendor", K_STRING},
    {"cpu.brand", K_STRING},
    {"cpu.family", K_INTEGER},
    {"cpu.model", K_INTEGER},
    {"cpu.stepping", K_INTEGER},
    {"cpu.microcode", K_STRING},
    {"cpu.hypervisor", K_BOOLEAN},
    {"cpu.hypervisor_vendor", K_STRING},
    {"cpu.hypervisor_signature", K_STRING},
    {"cpu.online_cpus", K_INTEGER},
    {"cpu.midr", K_STRING},
    {"cpu.dczva_block_bytes", K_INTEGER},
    {"emulation", K_OBJECT},
    {"emulation.emulated", K_BOOLEAN},
    {"emulation.signs", K_STRING_ARRAY},
    {"features", K_OBJECT},
    {"features.detected", K_STRING_ARRAY},
    {"features.hidden", K_STRING_ARRAY},
    {"features.usable", K_STRING_ARRAY},
    {"caches", K_OBJECT},
    {"caches.line_bytes", K_INTEGER},
    {"caches.L1d.size_bytes", K_INTEGER},
    {"caches.L1d.source", K_STRING},
    {"caches.L1d.by_source", K_OBJECT},
    {"caches.L1d.note", K_STRING},
    {"caches.L2.size_bytes", K_INTEGER},
    {"caches.L2.source", K_STRING},
    {"caches.L2.by_source", K_OBJECT},
    {"caches.L2.note", K_STRING},
    {"caches.LLC.size_bytes", K_INTEGER},
    {"caches.LLC.source", K_STRING},
    {"caches.LLC.by_source", K_OBJECT},
    {"caches.LLC.note", K_STRING},
    {"timer", K_OBJECT},
    {"timer.clock", K_STRING},
    {"timer.clock_desc", K_STRING},
    {"timer.fallback_reason", K_OPTIONAL_STRING},
    {"timer.hz", K_NUMBER_OR_NULL},
    {"timer.freq_source", K_STRING},
    {"timer.calibrated_hz", K_NUMBER_OR_NULL},
    {"timer.calibration_error_ppm", K_NUMBER_OR_NULL},
    {"timer.overhead_ticks", K_NUMBER_OR_NULL},
    {"timer.step_ticks", K_NUMBER_OR_NULL},
    {"timer.core_hz_estimate", K_NUMBER_OR_NULL},
    {"hostname", K_STRING},
    {"kernel", K_STRING},
    {"kernel_version", K_STRING},
    {"kernel_cmdline", K_STRING},
    {"mitigations", K_OBJECT},
    {"mitigations.vulnerabilities", K_OBJECT_OR_NULL},
    {"mitigations.cmdline", K_STRING_OR_NULL},
    {"thp", K_OBJECT},
    {"thp.enabled", K_STRING},
    {"thp.defrag", K_STRING},
    {"preemption", K_OBJECT},
    {"preemption.model", K_STRING},
    {"preemption.dynamic", K_BOOLEAN_OR_NULL},
    {"preemption.source", K_STRING},
    {"preemption.cmdline", K_STRING_OR_NULL},
    {"hugepages", K_OBJECT_OR_NULL},
    {"cpufreq", K_OBJECT},
    {"cpufreq.governor", K_STRING},
    {"cpufreq.driver", K_STRING},
    {"cpufreq.note", K_STRING},
    {"glibc", K_OBJECT},
    {"glibc.version", K_STRING},
    {"glibc.release", K_STRING},
    {"glibc.loader", K_STRING},
    {"glibc.x86_rep_movsb_threshold", K_INTEGER_OR_UNKNOWN},
    {"glibc.x86_rep_stosb_threshold", K_INTEGER_OR_UNKNOWN},
    {"glibc.x86_non_temporal_threshold", K_INTEGER_OR_UNKNOWN},
    {"glibc.x86_shared_cache_size", K_INTEGER_OR_UNKNOWN},
    {"glibc.x86_data_cache_size", K_INTEGER_OR_UNKNOWN},
    {"glibc.tunables", K_OBJECT_OR_UNKNOWN},
    {"glibc.tunables_env", K_STRING_OR_NULL},
    {"glibc.note", K_STRING},
    {"build", K_OBJECT},
    {"build.primbench_version", K_STRING},
    {"build.compiler", K_STRING},
    {"build.build_flags", K_STRING},
    {"pinned_cpu", K_INTEGER},
    {"fingerprint_hash", K_STRING},
};

static json_t *at_path(json_t *o, const char *dotted)
{
	char buf[128];
	snprintf(buf, sizeof buf, "%s", dotted);
	char *save = NULL;
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return o;
}

static bool kind_ok(const json_t *v, enum kind k)
{
	switch (k) {
	case K_STRING:
		return json_is_string(v);
	case K_INTEGER:
		return json_is_integer(v);
	case K_NUMBER_OR_NULL:
		return json_is_number(v) || json_is_null(v);
	case K_BOOLEAN:
		return json_is_boolean(v);
	case K_OBJECT:
		return json_is_object(v);
	case K_STRING_ARRAY: {
		if (!json_is_array(v))
			return false;
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e) if (!json_is_string(e)) return false;
		return true;
	}
	case K_STRING_OR_NULL:
		return json_is_string(v) || json_is_null(v);
	case K_OBJECT_OR_NULL:
		return json_is_object(v) || json_is_null(v);
	case K_INTEGER_OR_UNKNOWN:
		return json_is_integer(v) ||
		       (json_is_string(v) && !strcmp(json_string_value(v), "unknown"));
	case K_OBJECT_OR_UNKNOWN:
		return json_is_object(v) ||
		       (json_is_string(v) && !strcmp(json_string_value(v), "unknown"));
	case K_OPTIONAL_STRING:
		return !v || json_is_string(v);
	case K_BOOLEAN_OR_NULL:
		return json_is_boolean(v) || json_is_null(v);
	}
	return false;
}

static json_t *this_machine(int pinned_cpu)
{
	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	json_t *m = pb_results_machine_json_now(&c, pinned_cpu);
	assert_non_null(m);
	return m;
}

/* The machine object written from facts: the typed readers' "cannot
 * read" becomes null or "unknown", lists keep their order. */
static void test_machine_json_from_facts(void **state)
{
	(void)state;
	static struct pb_machine_facts f; /* zero: nothing read */
	memset(&f, 0, sizeof f);
	f.pinned_cpu = 3;
	f.hugepages_read = true;
	f.hugepages.n = 2;
	snprintf(f.hugepages.size[0].size, sizeof f.hugepages.size[0].size, "2048kB");
	f.hugepages.size[0].reserved = 16;
	f.hugepages.size[0].free = -1;
	snprintf(f.hugepages.size[1].size, sizeof f.hugepages.size[1].size, "1048576kB");
	f.hugepages.size[1].reserved = 0;
	f.hugepages.size[1].free = 0;
	struct pb_named_text tun[] = {{"glibc.a", "1"}, {"glibc.b", ""}};
	snprintf(f.tunables_why, sizeof f.tunables_why, "no loader");
	json_t *m = pb_results_machine_json(&f);
	assert_non_null(m);
	assert_true(json_is_null(at_path(m, "mitigations.vulnerabilities")));
	assert_true(json_is_null(at_path(m, "mitigations.cmdline")));
	assert_string_equal(json_string_value(at_path(m, "hostname")), "unknown");
	assert_string_equal(json_string_value(at_path(m, "glibc.tunables")), "unknown");
	assert_string_equal(json_string_value(at_path(m, "glibc.note")), "no loader");
	assert_true(json_is_null(at_path(m, "glibc.tunables_env")));
	json_t *hp = at_path(m, "hugepages");
	assert_string_equal(json_object_iter_key(json_object_iter(hp)), "2048kB");
	assert_int_equal(json_integer_value(at_path(m, "hugepages.2048kB.reserved")), 16);
	assert_true(json_is_null(at_path(m, "hugepages.2048kB.free")));
	assert_int_equal(json_integer_value(at_path(m, "hugepages.1048576kB.free")), 0);
	assert_int_equal(json_integer_value(at_path(m, "pinned_cpu")), 3);
	char h[PB_FINGERPRINT_HASH_LEN + 1];
	hash_of(m, h);
	assert_string_equal(json_string_value(json_object_get(m, "fingerprint_hash")), h);
	json_decref(m);

	f.hugepages_read = false;
	f.vulnerabilities_read = true;
	struct pb_named_text vul[] = {{"meltdown", "Not affected"}, {"retbleed", "Vulnerable"}};
	f.vulnerabilities = (struct pb_named_texts){vul, 2};
	f.tunables_read = true;
	f.tunables = (struct pb_named_texts){tun, 2};
	f.tunables_why[0] = '\0';
	f.mitigations_set = true;
	snprintf(f.mitigations, sizeof f.mitigations, "auto");
	m = pb_results_machine_json(&f);
	assert_true(json_is_null(at_path(m, "hugepages")));
	assert_string_equal(json_string_value(at_path(m, "mitigations.cmdline")), "auto");
	char *text = json_dumps(at_path(m, "mitigations.vulnerabilities"), JSON_COMPACT);
	assert_string_equal(text, "{\"meltdown\":\"Not affected\",\"retbleed\":\"Vulnerable\"}");
	free(text);
	text = json_dumps(at_path(m, "glibc.tunables"), JSON_COMPACT);
	assert_string_equal(text, "{\"glibc.a\":\"1\",\"glibc.b\":\"\"}");
	free(text);
	assert_string_equal(json_string_value(at_path(m, "glibc.note")), "");
	json_decref(m);
}

static void test_machine_fields_and_types(void **state)
{
	(void)state;
	json_t *m = this_machine(1);
	for (size_t i = 0; i < NVALUES(machine_fields); i++) {
		json_t *v = at_path(m, machine_fields[i].path);
		if (!v && machine_fields[i].kind != K_OPTIONAL_STRING)
			fail_msg("machine.%s is missing", machine_fields[i].path);
		if (!kind_ok(v, machine_fields[i].kind))
			fail_msg("machine.%s has the wrong type", machine_fields[i].path);
	}
	/* Nothing undocumented at the top level or in a documented object. */
	const char *key;
	json_t *v;
	json_object_foreach(m, key, v)
	{
		bool documented = false;
		for (size_t i = 0; i < NVALUES(machine_fields) && !documented; i++)
			documented = !strcmp(machine_fields[i].path, key);
		if (!documented)
			fail_msg("machine.%s is not in docs/results-schema.md", key);
	}
	static const char *const objects[] = {"cpu",     "timer", "mitigations", "thp",
	                                      "cpufreq", "glibc", "build",       "preemption"};
	for (size_t o = 0; o < NVALUES(objects); o++) {
		json_object_foreach(json_object_get(m, objects[o]), key, v)
		{
			char path[128];
			snprintf(path, sizeof path, "%s.%s", objects[o], key);
			bool documented = false;
			for (size_t i = 0; i < NVALUES(machine_fields) && !documented; i++)
				documented = !strcmp(machine_fields[i].path, path);
			if (!documented)
				fail_msg("machine.%s is not in docs/results-schema.md", path);
		}
	}
	/* by_source entries. */
	static const char *const levels[] = {"L1d", "L2", "LLC"};
	for (size_t l = 0; l < NVALUES(levels); l++) {
		json_t *bs = json_object_get(
		    json_object_get(json_object_get(m, "caches"), levels[l]), "by_source");
		json_object_foreach(bs, key, v)
		{
			assert_true(json_is_integer(json_object_get(v, "size_bytes")));
			assert_true(json_is_boolean(json_object_get(v, "plausible")));
		}
	}
	assert_int_equal(json_integer_value(json_object_get(m, "pinned_cpu")), 1);
	json_t *vul = at_path(m, "mitigations.vulnerabilities");
	json_object_foreach(vul, key, v) assert_true(json_is_string(v));
	json_t *hp = at_path(m, "hugepages");
	json_object_foreach(hp, key, v)
	{
		assert_non_null(strstr(key, "kB"));
		assert_true(json_is_integer(json_object_get(v, "reserved")) ||
		            json_is_null(json_object_get(v, "reserved")));
		assert_true(json_is_integer(json_object_get(v, "free")) ||
		            json_is_null(json_object_get(v, "free")));
	}
	json_t *tun = at_path(m, "glibc.tunables");
	if (json_is_object(tun))
		json_object_foreach(tun, key, v) assert_true(json_is_string(v));
	json_decref(m);
}

/* What this machine gives must agree with the readers. */
static void test_machine_values(void **state)
{
	(void)state;
	json_t *m = this_machine(-1);
	struct pb_glibc_info g;
	pb_glibc_read(&g);
	assert_string_equal(json_string_value(at_path(m, "glibc.version")), g.version);
	for (int i = 0; i < PB_GLIBC_FIGURES; i++) {
		json_t *v = json_object_get(json_object_get(m, "glibc"),
		                            pb_glibc_figure_name((enum pb_glibc_figure)i));
		if (g.diag.known[i])
			assert_int_equal(json_integer_value(v), g.diag.value[i]);
		else
			assert_string_equal(json_string_value(v), "unknown");
	}
	/* The note says why whenever a threshold is unknown. */
	if (!g.diag.known[PB_GLIBC_REP_MOVSB_THRESHOLD])
		assert_true(strlen(json_string_value(at_path(m, "glibc.note"))) > 0);
	const char *gov = json_string_value(at_path(m, "cpufreq.governor"));
	if (!strcmp(gov, "unknown"))
		assert_true(strlen(json_string_value(at_path(m, "cpufreq.note"))) > 0);
	/* A stored hash is the hash of the object. */
	char h[PB_FINGERPRINT_HASH_LEN + 1];
	hash_of(m, h);
	assert_string_equal(json_string_value(json_object_get(m, "fingerprint_hash")), h);
	assert_hash_format(h);
	json_decref(m);
}

static void test_machine_hash_stable(void **state)
{
	(void)state;
	json_t *a = this_machine(-1), *b = this_machine(0);
	const char *ha = json_string_value(json_object_get(a, "fingerprint_hash"));
	const char *hb = json_string_value(json_object_get(b, "fingerprint_hash"));
	assert_non_null(ha);
	assert_non_null(hb);
	assert_hash_format(ha);
	assert_string_equal(ha, hb); /* pinned_cpu differs, the hash does not */
	/* Another hostname: the same hash. */
	json_object_set_new(a, "hostname", json_string("elsewhere"));
	char h[PB_FINGERPRINT_HASH_LEN + 1];
	hash_of(a, h);
	assert_string_equal(h, hb);
	/* Another microcode: another hash. */
	json_object_set_new(json_object_get(a, "cpu"), "microcode", json_string("0xdeadbeef"));
	hash_of(a, h);
	assert_string_not_equal(h, hb);
	json_decref(a);
	json_decref(b);
}

/* The loader sees this process's environment: GLIBC_TUNABLES moves the
 * thresholds recorded (and so the hash). */
static void test_glibc_tunables_env(void **state)
{
	(void)state;
	struct pb_glibc_info g;
	pb_glibc_read(&g);
	if (!g.diag.known[PB_GLIBC_REP_STOSB_THRESHOLD])
		skip(); /* not x86, or glibc before 2.33 */
	uint64_t was = g.diag.value[PB_GLIBC_REP_STOSB_THRESHOLD];
	uint64_t want = was == 4096 ? 8192 : 4096;
	char env[128];
	snprintf(env, sizeof env, "glibc.cpu.x86_rep_stosb_threshold=%llu",
	         (unsigned long long)want);
	const char *old = getenv("GLIBC_TUNABLES");
	char *saved = old ? strdup(old) : NULL;
	assert_int_equal(setenv("GLIBC_TUNABLES", env, 1), 0);
	pb_glibc_read(&g);
	if (saved)
		setenv("GLIBC_TUNABLES", saved, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	free(saved);
	assert_true(g.diag.known[PB_GLIBC_REP_STOSB_THRESHOLD]);
	assert_int_equal(g.diag.value[PB_GLIBC_REP_STOSB_THRESHOLD], want);
}

static void test_summary_glibc_line(void **state)
{
	(void)state;
	struct pb_cache_info c;
	assert_int_equal(pb_cache_detect(&c, NULL), 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	pb_print_machine_summary(f, &c);
	assert_int_equal(fclose(f), 0);
	const char *line = strstr(buf, "\nglibc     ");
	assert_non_null(line);
	line++;
	size_t n = strcspn(line, "\n");
	assert_true(n <= 80);
	struct pb_glibc_info g;
	pb_glibc_read(&g);
	char want[64];
	snprintf(want, sizeof want, "glibc     %s: ", g.version);
	assert_memory_equal(line, want, strlen(want));
	if (g.diag.known[PB_GLIBC_REP_MOVSB_THRESHOLD])
		assert_non_null(strstr(line, "rep_movsb "));
	else
		assert_non_null(strstr(line, "thresholds unknown"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_glibc_diag_parse_fixture),
	    cmocka_unit_test(test_glibc_diag_parse_partial),
	    cmocka_unit_test(test_glibc_diag_same_glibc),
	    cmocka_unit_test(test_glibc_tunables_parse_fixture),
	    cmocka_unit_test(test_vulnerabilities_dir),
	    cmocka_unit_test(test_cmdline_param),
	    cmocka_unit_test(test_bracketed_choice),
	    cmocka_unit_test(test_microcode_read),
	    cmocka_unit_test(test_cpufreq_read),
	    cmocka_unit_test(test_preempt_uname),
	    cmocka_unit_test(test_preempt_cmdline),
	    cmocka_unit_test(test_preempt_config),
	    cmocka_unit_test(test_hugepages_read),
	    cmocka_unit_test(test_page_reporting),
	    cmocka_unit_test(test_cputime_config),
	    cmocka_unit_test(test_fnv1a64_vectors),
	    cmocka_unit_test(test_hash_synthetic),
	    cmocka_unit_test(test_machine_json_from_facts),
	    cmocka_unit_test(test_machine_fields_and_types),
	    cmocka_unit_test(test_machine_values),
	    cmocka_unit_test(test_machine_hash_stable),
	    cmocka_unit_test(test_glibc_tunables_env),
	    cmocka_unit_test(test_summary_glibc_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
