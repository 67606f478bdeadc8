/* machine.c - the machine as text: the summary that opens a default run
 * and the full `primbench info` listing, every figure printed with where
 * it came from; and the machine as data: the facts of the `machine`
 * object of a result (docs/results-schema.md), which results writes
 * (src/results/machine_json.c). Above cpu and timer: it reports both
 * (moved from src/cpu/fingerprint.c so that cpu does not include the
 * timer).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/machine.h"
#include "primbench/text.h"
#include "primbench/timer.h"

#define INFO_INDENT    16
#define SUMMARY_INDENT 10

/* "  label       text" (INFO_INDENT) or "label     text" (SUMMARY_INDENT),
 * the text word-wrapped under itself. */
static void wrapped(FILE *f, int indent, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void wrapped(FILE *f, int indent, const char *label, const char *fmt, ...)
{
	char text[1024], lab[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (indent == INFO_INDENT)
		snprintf(lab, sizeof lab, "  %s", label);
	else
		snprintf(lab, sizeof lab, "%s", label);
	pb_print_labelled(f, indent, lab, text);
}

/* A field of the full listing, a line of the summary. */
#define field(f, ...)        wrapped(f, INFO_INDENT, __VA_ARGS__)
#define summary_line(f, ...) wrapped(f, SUMMARY_INDENT, __VA_ARGS__)

/* The hypervisor's product for a cpuid 0x40000000 signature. */
static const char *hypervisor_name(const char *sig)
{
	static const char *const names[][2] = {
	    {"KVMKVMKVM", "KVM"},           {"Microsoft Hv", "Hyper-V"},
	    {"VMwareVMware", "VMware"},     {"XenVMMXenVMM", "Xen"},
	    {"TCGTCGTCGTCG", "QEMU (TCG)"}, {"VBoxVBoxVBox", "VirtualBox"},
	    {"bhyve bhyve ", "bhyve"},      {"ACRNACRNACRN", "ACRN"},
	    {" lrpepyh  vr", "Parallels"},  {"QNXQVMBSQG", "QNX"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(sig, names[i][0]))
			return names[i][1];
	return sig[0] ? sig : "unknown";
}

/* What the user can rely on for one feature. */
static const char *feature_state(enum pb_feature feat)
{
	pb_features b = (pb_features)1u << feat;
	if (!(pb_cpu_features_detected() & b))
		return "no";
	if (pb_cpu_features_hidden() & b)
		return "hidden";
	if (!(pb_cpu_features() & b)) {
		static char why[64];
		const char *req = pb_feature_requires(feat);
		if (!req)
			return "no";
		snprintf(why, sizeof why, "no (%s is hidden)", req);
		return why;
	}
	return "yes";
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

static void print_timer_summary(FILE *f)
{
	const struct pb_timer_info *t = pb_timer_info();
	char clock[200], core[64] = "";
	if (t->clock == PB_CLOCK_TSC) {
		const char *src = t->freq_source == PB_FREQ_CPUID_15H   ? "cpuid 0x15"
		                  : t->freq_source == PB_FREQ_CPUID_16H ? "cpuid 0x16"
		                  : t->freq_source == PB_FREQ_REGISTER  ? "CNTFRQ_EL0"
		                                                        : "calibrated";
		snprintf(clock, sizeof clock, "%s %.3f MHz (%s, spread %.1f ppm)", t->clock_name,
		         t->hz / 1e6, src, t->calibration_error_ppm);
	} else {
		snprintf(clock, sizeof clock,
		         "clock_gettime(CLOCK_MONOTONIC_RAW), ticks are ns: %s",
		         t->fallback_reason);
	}
	if (t->core_hz_estimate > 0)
		snprintf(core, sizeof core, ", core ~%.2f GHz (estimate)",
		         t->core_hz_estimate / 1e9);
	summary_line(f, "timer", "%s, overhead %.0f ticks (%.1f ns), step %.0f ticks (%.1f ns)%s",
	             clock, t->overhead_ticks, pb_ticks_to_ns(t->overhead_ticks), t->step_ticks,
	             pb_ticks_to_ns(t->step_ticks), core);
}

/* One line: "glibc     2.36: rep_movsb 2.06 KiB, rep_stosb 2 KiB,
 * non_temporal 181.5 MiB" (the sizes from which glibc's memcpy/memset
 * switch to rep movsb, rep stosb and non-temporal stores on this CPU). */
static void print_glibc_summary(FILE *f)
{
	static const enum pb_glibc_figure shown[] = {PB_GLIBC_REP_MOVSB_THRESHOLD,
	                                             PB_GLIBC_REP_STOSB_THRESHOLD,
	                                             PB_GLIBC_NON_TEMPORAL_THRESHOLD};
	struct pb_glibc_info g;
	char buf[256], sz[32];
	size_t used = 0;
	pb_glibc_read(&g);
	for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
		if (!g.diag.known[shown[i]])
			continue;
		pb_format_bytes(sz, sizeof sz, g.diag.value[shown[i]], PB_BYTES_IEC);
		/* "x86_rep_movsb_threshold" -> "rep_movsb" */
		const char *name = pb_glibc_figure_name(shown[i]) + 4;
		int n = (int)(strlen(name) - strlen("_threshold"));
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%.*s %s",
		                         used ? ", " : "", n, name, sz);
	}
	if (used)
		summary_line(f, "glibc", "%s: %s", g.version, buf);
	else
		summary_line(f, "glibc", "%s: thresholds unknown: %s", g.version, g.note);
}

void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c)
{
	struct pb_cpu_ident id;
	struct utsname u;
	char buf[512], sz[32];
	size_t used;

	pb_cpu_ident(&id);
	pb_timer_init();

	char emu[600];
	pb_cpu_emulation_line(emu, sizeof emu);
	if (emu[0])
		summary_line(f, "EMULATED", "%s", emu);
	summary_line(f, "cpu", "%s %s, family %u model %u (%#x) stepping %u, %d CPU%s%s%s",
	             id.vendor, id.brand, id.family, id.model, id.model, id.stepping,
	             id.online_cpus, id.online_cpus == 1 ? "" : "s",
	             id.hypervisor ? ", guest of " : "",
	             id.hypervisor ? hypervisor_name(id.hypervisor_vendor) : "");
	if (uname(&u) == 0)
		summary_line(f, "kernel", "%s %s %s", u.sysname, u.release, u.machine);

	char hidden[256] = "";
	size_t hused = 0;
	buf[0] = '\0';
	used = 0;
	for (int i = 0; i < PB_FEAT_COUNT; i++) {
		const char *state = feature_state((enum pb_feature)i);
		const char *name = pb_feature_name((enum pb_feature)i);
		if (!strcmp(state, "yes"))
			used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
			                         used ? " " : "", name);
		else if (!strcmp(state, "hidden"))
			hused +=
			    (size_t)snprintf(hidden + hused, sizeof hidden - hused, " %s", name);
	}
	summary_line(f, "features", "%s%s%s", buf[0] ? buf : "none", hidden[0] ? "; hidden:" : "",
	             hidden);

	used = 0;
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		pb_format_bytes(sz, sizeof sz, c->level[l].size_bytes, PB_BYTES_IEC);
		used += (size_t)snprintf(buf + used, sizeof buf - used, "%s %s (%s), ",
		                         pb_cache_level_name((enum pb_cache_level)l), sz,
		                         pb_cache_source_name(c->level[l].source));
	}
	summary_line(f, "caches", "%sline %u B", buf, c->line_bytes);
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		if (c->level[l].source == PB_SRC_FALLBACK)
			summary_line(f, "", "%s: %s", pb_cache_level_name((enum pb_cache_level)l),
			             c->level[l].note);

	print_timer_summary(f);
	print_glibc_summary(f);
}

/* ---- the full listing -------------------------------------------------- */

/* glibc's own cache figures and the thresholds it derives from them
 * (ld.so --list-diagnostics, glibc 2.33+): when it believes a wrong L3,
 * its non-temporal threshold is wrong with it (case M2/M4). */
static void print_glibc_view(FILE *f)
{
	struct pb_glibc_info g;
	pb_glibc_read(&g);
	fputs("glibc's view (ld.so --list-diagnostics)\n", f);
	fprintf(f, "  %-24s %s\n", "version", g.version);
	int shown = 0;
	for (int i = 0; i < PB_GLIBC_FIGURES; i++) {
		if (!g.diag.known[i])
			continue;
		char sz[32];
		uint64_t v = g.diag.value[i];
		const char *name = pb_glibc_figure_name((enum pb_glibc_figure)i) + 4;
		pb_format_bytes(sz, sizeof sz, v, PB_BYTES_IEC);
		if (v % 1024 == 0 || v < 1024)
			fprintf(f, "  %-24s %s\n", name, sz);
		else
			fprintf(f, "  %-24s %llu B (%s)\n", name, (unsigned long long)v, sz);
		shown++;
	}
	if (g.note[0]) {
		char text[sizeof g.note + 32];
		snprintf(text, sizeof text, "%s%s", shown ? "" : "not available: ", g.note);
		pb_print_labelled(f, 2, "", text);
	}
}

/* When the kernel's clocksource is the TSC, CLOCK_MONOTONIC_RAW is the TSC
 * scaled by the kernel's own frequency figure: calibrating against it then
 * measures read jitter and inherits the kernel's figure, nothing more. */
static void print_clocksource(FILE *f)
{
	char cs[64];
	pb_read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
	             sizeof cs);
	if (!cs[0])
		return;
	field(f, "clocksource", "%s (the kernel's)%s", cs,
	      !strcmp(cs, "tsc") ? ": CLOCK_MONOTONIC_RAW is the TSC scaled by the kernel's own "
	                           "frequency figure, so the calibration agrees with that figure "
	                           "by construction; its spread measures read jitter only"
	                         : "");
}

/* ---- kernel facts: preemption, THP, huge pages ------------------------- */

#define PROC_CONFIG_GZ "/proc/config.gz"
#define HUGEPAGES_DIR  "/sys/kernel/mm/hugepages"

/* The bracketed choice of /sys/kernel/mm/transparent_hugepage/<file>, or
 * "unknown". */
static void thp_choice(const char *file, char *choice, size_t len)
{
	char path[128], text[256];
	snprintf(path, sizeof path, "/sys/kernel/mm/transparent_hugepage/%s", file);
	if (pb_read_line(path, text, sizeof text) == 0)
		pb_bracketed_choice(text, choice, len);
	else
		snprintf(choice, len, "unknown");
}

/* The preemption, thp and huge pages lines of `primbench info`. */
static void print_kernel_facts(FILE *f)
{
	struct pb_preempt_info p;
	pb_preempt_read(PROC_CONFIG_GZ, "/proc/cmdline", &p);
	const char *from = !strncmp(p.source, "config", 6)  ? PROC_CONFIG_GZ
	                   : !strncmp(p.source, "uname", 5) ? "uname -v"
	                                                    : "nothing readable";
	field(f, "preemption", "%s%s (from %s%s%s%s)", p.model,
	      p.dynamic == 1 ? ", PREEMPT_DYNAMIC" : "", from, p.cmdline[0] ? "; preempt=" : "",
	      p.cmdline,
	      strstr(p.source, "+cmdline") ? " chose it"
	      : p.cmdline[0]               ? " ignored"
	                                   : "");
	char en[64], df[64];
	thp_choice("enabled", en, sizeof en);
	thp_choice("defrag", df, sizeof df);
	field(f, "thp", "enabled %s, defrag %s", en, df);
	struct pb_hugepages hp;
	bool have_hp = pb_hugepages_read(HUGEPAGES_DIR, &hp) == 0;
	char text[512] = "";
	size_t used = 0;
	for (size_t i = 0; i < hp.n; i++) {
		const struct pb_hugepage_count *c = &hp.size[i];
		used += (size_t)snprintf(text + used, sizeof text - used,
		                         "%s%s: %lld reserved, %lld free", used ? "; " : "",
		                         c->size, (long long)c->reserved, (long long)c->free);
		if (used >= sizeof text)
			break;
	}
	field(f, "huge pages", "%s", have_hp ? (used ? text : "no sizes") : "no " HUGEPAGES_DIR);
}

static void print_caches(FILE *f, const struct pb_cache_info *c)
{
	static const enum pb_cache_source shown[] = {PB_SRC_SYSFS, PB_SRC_CPUID, PB_SRC_HWLOC,
	                                             PB_SRC_SYSCONF};
	char sz[32];
	fputs("\ncaches (the figure used, every source's figure, why any was rejected)\n", f);
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const struct pb_cache_level_info *li = &c->level[l];
		char all[256] = "";
		size_t used = 0;
		for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
			enum pb_cache_source s = shown[i];
			if (li->by_source_bytes[s])
				pb_format_bytes(sz, sizeof sz, li->by_source_bytes[s],
				                PB_BYTES_IEC);
			else
				snprintf(sz, sizeof sz, "none");
			used += (size_t)snprintf(
			    all + used, sizeof all - used, "%s%s %s%s", i ? ", " : "",
			    pb_cache_source_name(s), sz,
			    li->by_source_bytes[s] && !li->plausible[s] ? " (rejected)" : "");
		}
		pb_format_bytes(sz, sizeof sz, li->size_bytes, PB_BYTES_IEC);
		if (li->source == PB_SRC_FALLBACK)
			field(f, pb_cache_level_name((enum pb_cache_level)l),
			      "%s, a fallback: no source is plausible", sz);
		else
			field(f, pb_cache_level_name((enum pb_cache_level)l), "%s from %s", sz,
			      pb_cache_source_name(li->source));
		field(f, "", "%s", all);
		if (li->note[0])
			field(f, "", "note: %s", li->note);
	}
	field(f, "line", "%u B", c->line_bytes);
}

static void print_timer(FILE *f)
{
	const struct pb_timer_info *t = pb_timer_info();
	fputs("\ntimer\n", f);
	field(f, "clock", "%s", t->clock_desc);
	if (t->fallback_reason)
		field(f, "why not tsc", "%s", t->fallback_reason);
	if (t->clock == PB_CLOCK_TSC) {
		char unit[64];
		pb_tick_unit_label(t->tick_unit, t->hz, unit, sizeof unit);
		if (!strcmp(t->tick_unit, "tsc_ticks"))
			field(f, "frequency", "%.3f MHz", t->hz / 1e6);
		else
			field(f, "frequency", "%.3f MHz (ticks are %s)", t->hz / 1e6, unit);
		field(f, "source", "%s", t->freq_source_desc);
		field(f, "calibration", "%.3f MHz, spread %.1f ppm over the rounds",
		      t->calibrated_hz / 1e6, t->calibration_error_ppm);
		print_clocksource(f);
	} else {
		field(f, "frequency", "1 tick = 1 ns (%s)", t->freq_source_desc);
	}
	field(f, "overhead", "%.0f ticks = %.1f ns (begin+end with nothing between; median)",
	      t->overhead_ticks, pb_ticks_to_ns(t->overhead_ticks));
	field(f, "step",
	      "%.0f ticks = %.1f ns (smallest non-zero difference between back-to-back "
	      "reads; median)",
	      t->step_ticks, pb_ticks_to_ns(t->step_ticks));
	if (t->granularity_ticks > 1)
		field(f, "granularity", "%.0f ticks: every difference seen was a multiple of it",
		      t->granularity_ticks);
	if (t->core_hz_estimate > 0 && t->clock == PB_CLOCK_TSC)
		field(f, "core clock",
		      "~%.2f GHz, an estimate from a dependent-add chain (~%.2f core cycles per "
		      "tick); %s, not core cycles",
		      t->core_hz_estimate / 1e9, t->core_hz_estimate / t->hz,
		      strcmp(t->tick_unit, "tsc_ticks") ? "counter ticks are the counter's"
		                                        : "TSC ticks are reference cycles");
	else if (t->core_hz_estimate > 0)
		field(f, "core clock", "~%.2f GHz, an estimate from a dependent-add chain",
		      t->core_hz_estimate / 1e9);
	else
		field(f, "core clock", "not estimated on this architecture build");
	char why[200];
	bool hw = pb_timer_hw_counters_probe(why, sizeof why);
	field(f, "hw counters", "%s: %s", hw ? "available" : "not available", why);
}

void pb_print_machine_info(FILE *f, const struct pb_cache_info *c)
{
	struct pb_cpu_ident id;
	struct utsname u;
	char sz[32];

	pb_cpu_ident(&id);
	pb_timer_init();

	char emu[600], midr[160];
	pb_cpu_emulation_line(emu, sizeof emu);
	if (emu[0])
		pb_print_labelled(f, 10, "EMULATED", emu);
	fputs("cpu\n", f);
	field(f, "vendor", "%s", id.vendor);
	field(f, "brand", "%s", id.brand);
	field(f, "family", "%u", id.family);
	field(f, "model", "%u (%#x)", id.model, id.model);
	field(f, "stepping", "%u", id.stepping);
	if (pb_cpu_midr_describe(midr, sizeof midr)) {
		unsigned zva = pb_cpu_dczva_block_bytes();
		field(f, "midr", "%s", midr);
		if (zva)
			field(f, "dc zva", "%u B block (DCZID_EL0)", zva);
		else
			field(f, "dc zva", "prohibited (DCZID_EL0.DZP)");
	}
	if (id.hypervisor && id.hypervisor_vendor[0])
		field(f, "hypervisor", "yes: %s (cpuid 0x40000000 \"%s\")",
		      hypervisor_name(id.hypervisor_vendor), id.hypervisor_vendor);
	else if (id.hypervisor)
		field(f, "hypervisor", "yes");
	else
		field(f, "hypervisor", "no");
	field(f, "online cpus", "%d", id.online_cpus);
	pb_format_bytes(sz, sizeof sz, ram_bytes(), PB_BYTES_IEC);
	field(f, "memory", "%s", sz);
	if (uname(&u) == 0)
		field(f, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
	print_kernel_facts(f);

	fputs("\nfeatures (yes: usable; no: absent or disabled by the OS; hidden: hidden by you)\n",
	      f);
	for (int i = 0; i < PB_FEAT_COUNT; i++)
		field(f, pb_feature_name((enum pb_feature)i), "%s",
		      feature_state((enum pb_feature)i));

	print_caches(f, c);
	print_timer(f);
	fputc('\n', f);
	print_glibc_view(f);
}

/* ---- the facts of the machine object of a result ----------------------- */

void pb_machine_facts_read(struct pb_machine_facts *out, const struct pb_cache_info *caches,
                           int pinned_cpu)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;

	memset(out, 0, sizeof *out);
	pb_timer_init();

	pb_cpu_ident(&out->cpu);
	snprintf(out->hypervisor_product, sizeof out->hypervisor_product, "%s",
	         out->cpu.hypervisor ? hypervisor_name(out->cpu.hypervisor_vendor) : "none");
	pb_microcode_read("/proc/cpuinfo", out->microcode, sizeof out->microcode);
	if (!pb_cpu_midr_describe(out->midr, sizeof out->midr))
		out->midr[0] = '\0';
	out->dczva_block_bytes = pb_cpu_dczva_block_bytes();
	pb_cpu_emulation(&out->emulation);

	out->detected = pb_cpu_features_detected();
	out->hidden = pb_cpu_features_hidden();
	out->usable = pb_cpu_features();
	out->caches = *caches;
	out->timer = *pb_timer_info();

	if (have_uname) {
		snprintf(out->hostname, sizeof out->hostname, "%s", u.nodename);
		snprintf(out->kernel, sizeof out->kernel, "%s", u.release);
		snprintf(out->kernel_version, sizeof out->kernel_version, "%s", u.version);
	}
	if (pb_read_line("/proc/cmdline", out->kernel_cmdline, sizeof out->kernel_cmdline) != 0)
		out->kernel_cmdline[0] = '\0';

	out->vulnerabilities_read =
	    pb_vulnerabilities_read("/sys/devices/system/cpu/vulnerabilities",
	                            &out->vulnerabilities) == 0;
	out->mitigations_set = pb_cmdline_param(out->kernel_cmdline, "mitigations",
	                                        out->mitigations, sizeof out->mitigations);

	thp_choice("enabled", out->thp_enabled, sizeof out->thp_enabled);
	thp_choice("defrag", out->thp_defrag, sizeof out->thp_defrag);
	pb_preempt_read(PROC_CONFIG_GZ, "/proc/cmdline", &out->preemption);
	out->hugepages_read = pb_hugepages_read(HUGEPAGES_DIR, &out->hugepages) == 0;

	pb_cpufreq_read("/sys/devices/system/cpu/cpu0", out->cpufreq_governor,
	                sizeof out->cpufreq_governor, out->cpufreq_driver,
	                sizeof out->cpufreq_driver, out->cpufreq_note, sizeof out->cpufreq_note);

	pb_glibc_read(&out->glibc);
	out->tunables_read =
	    pb_glibc_tunables_read(out->glibc.loader, &out->tunables, out->tunables_why,
	                           sizeof out->tunables_why) == 0;
	const char *env = getenv("GLIBC_TUNABLES");
	out->tunables_env = env ? strdup(env) : NULL;
	out->pinned_cpu = pinned_cpu;
}

void pb_machine_facts_free(struct pb_machine_facts *f)
{
	if (!f)
		return;
	pb_named_texts_free(&f->vulnerabilities);
	pb_named_texts_free(&f->tunables);
	free(f->tunables_env);
	f->tunables_env = NULL;
}
