/* machine.c - the machine as text: the summary that opens a default run
 * and the full `primbench info` listing, every figure printed with where
 * it came from; and the machine as data: the `machine` object of a result
 * (docs/results-schema.md). Above cpu and timer: it reports both (moved
 * from src/cpu/fingerprint.c so that cpu does not include the timer).
 */
#define _GNU_SOURCE
#include <math.h>
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

/* Set by CMake (CMakeLists.txt); these fallbacks keep a build without them
 * working. */
#ifndef PB_VERSION_STRING
#define PB_VERSION_STRING "unknown"
#endif
#ifndef PB_GIT_DESCRIBE /* `git describe --always --dirty` at configure time */
#define PB_GIT_DESCRIBE PB_VERSION_STRING
#endif
#ifndef PB_BUILD_FLAGS
#define PB_BUILD_FLAGS ""
#endif

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
	json_t *hp = pb_hugepages_read(HUGEPAGES_DIR);
	char text[512] = "";
	size_t used = 0;
	const char *size;
	json_t *v;
	json_object_foreach(hp, size, v)
	{
		json_t *nr = json_object_get(v, "reserved"), *fr = json_object_get(v, "free");
		used += (size_t)snprintf(
		    text + used, sizeof text - used, "%s%s: %lld reserved, %lld free",
		    used ? "; " : "", size,
		    json_is_integer(nr) ? (long long)json_integer_value(nr) : -1LL,
		    json_is_integer(fr) ? (long long)json_integer_value(fr) : -1LL);
		if (used >= sizeof text)
			break;
	}
	field(f, "huge pages", "%s", hp ? (used ? text : "no sizes") : "no " HUGEPAGES_DIR);
	json_decref(hp);
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

/* ---- the machine object of a result ------------------------------------- */

/* jansson cannot encode NaN or infinity (json_real returns NULL): null. */
static json_t *json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_features(pb_features f)
{
	json_t *a = json_array();
	for (int i = 0; i < PB_FEAT_COUNT; i++)
		if (f & ((pb_features)1u << i))
			json_array_append_new(a, json_string(pb_feature_name((enum pb_feature)i)));
	return a;
}

static json_t *json_caches(const struct pb_cache_info *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "line_bytes", json_integer(c->line_bytes));
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const struct pb_cache_level_info *li = &c->level[l];
		json_t *lv = json_object();
		json_object_set_new(lv, "size_bytes", json_integer((json_int_t)li->size_bytes));
		json_object_set_new(lv, "source", json_string(pb_cache_source_name(li->source)));
		json_t *srcs = json_object();
		for (int s = 0; s < PB_SRC_COUNT; s++) {
			if (!li->by_source_bytes[s])
				continue;
			json_t *e = json_object();
			json_object_set_new(e, "size_bytes",
			                    json_integer((json_int_t)li->by_source_bytes[s]));
			json_object_set_new(e, "plausible", json_boolean(li->plausible[s]));
			json_object_set_new(srcs, pb_cache_source_name((enum pb_cache_source)s), e);
		}
		json_object_set_new(lv, "by_source", srcs);
		json_object_set_new(lv, "note", json_string(li->note));
		json_object_set_new(o, pb_cache_level_name((enum pb_cache_level)l), lv);
	}
	return o;
}

static json_t *json_timer(void)
{
	const struct pb_timer_info *t = pb_timer_info();
	json_t *o = json_object();
	json_object_set_new(o, "clock", json_string(t->clock_name));
	json_object_set_new(o, "clock_desc", json_string(t->clock_desc));
	if (t->fallback_reason)
		json_object_set_new(o, "fallback_reason", json_string(t->fallback_reason));
	json_object_set_new(o, "hz", json_num(t->hz));
	json_object_set_new(o, "freq_source", json_string(t->freq_source_desc));
	json_object_set_new(o, "calibrated_hz",
	                    t->calibrated_hz > 0 ? json_num(t->calibrated_hz) : json_null());
	json_object_set_new(o, "calibration_error_ppm", json_num(t->calibration_error_ppm));
	json_object_set_new(o, "overhead_ticks", json_num(t->overhead_ticks));
	json_object_set_new(o, "step_ticks", json_num(t->step_ticks));
	json_object_set_new(o, "core_hz_estimate", json_num(t->core_hz_estimate));
	return o;
}

static json_t *json_cpu(void)
{
	struct pb_cpu_ident id;
	char microcode[64];
	pb_cpu_ident(&id);
	pb_microcode_read("/proc/cpuinfo", microcode, sizeof microcode);
	json_t *cpu = json_object();
	json_object_set_new(cpu, "vendor", json_string(id.vendor));
	json_object_set_new(cpu, "brand", json_string(id.brand));
	json_object_set_new(cpu, "family", json_integer(id.family));
	json_object_set_new(cpu, "model", json_integer(id.model));
	json_object_set_new(cpu, "stepping", json_integer(id.stepping));
	json_object_set_new(cpu, "microcode", json_string(microcode));
	json_object_set_new(cpu, "hypervisor", json_boolean(id.hypervisor));
	json_object_set_new(
	    cpu, "hypervisor_vendor",
	    json_string(id.hypervisor ? hypervisor_name(id.hypervisor_vendor) : "none"));
	json_object_set_new(cpu, "hypervisor_signature", json_string(id.hypervisor_vendor));
	json_object_set_new(cpu, "online_cpus", json_integer(id.online_cpus));
	char midr[160];
	json_object_set_new(cpu, "midr",
	                    json_string(pb_cpu_midr_describe(midr, sizeof midr) ? midr : ""));
	json_object_set_new(cpu, "dczva_block_bytes", json_integer(pb_cpu_dczva_block_bytes()));
	return cpu;
}

/* {"emulated": bool, "signs": [...]}: not in fingerprint_hash (a fact
 * about the run's trustworthiness, not the machine measured). */
static json_t *json_emulation(void)
{
	struct pb_cpu_emulation e;
	pb_cpu_emulation(&e);
	json_t *o = json_object(), *signs = json_array();
	for (const char *p = e.signs; *p;) {
		const char *end = strstr(p, "; ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		json_array_append_new(signs, json_stringn(p, n));
		p = end ? end + 2 : p + n;
	}
	json_object_set_new(o, "emulated", json_boolean(e.emulated));
	json_object_set_new(o, "signs", signs);
	return o;
}

/* A string, or "unknown" when empty. */
static json_t *json_text(const char *s)
{
	return json_string(s && s[0] ? s : "unknown");
}

static json_t *json_mitigations(const char *cmdline)
{
	char token[256];
	json_t *o = json_object();
	json_t *v = pb_vulnerabilities_read("/sys/devices/system/cpu/vulnerabilities");
	json_object_set_new(o, "vulnerabilities", v ? v : json_null());
	json_object_set_new(o, "cmdline",
	                    pb_cmdline_param(cmdline, "mitigations", token, sizeof token)
	                        ? json_string(token)
	                        : json_null());
	return o;
}

static json_t *json_thp(void)
{
	static const char *const files[] = {"enabled", "defrag"};
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char choice[64];
		thp_choice(files[i], choice, sizeof choice);
		json_object_set_new(o, files[i], json_string(choice));
	}
	return o;
}

static json_t *json_preemption(void)
{
	struct pb_preempt_info p;
	pb_preempt_read(PROC_CONFIG_GZ, "/proc/cmdline", &p);
	json_t *o = json_object();
	json_object_set_new(o, "model", json_string(p.model));
	json_object_set_new(o, "dynamic", p.dynamic < 0 ? json_null() : json_boolean(p.dynamic));
	json_object_set_new(o, "source", json_string(p.source));
	json_object_set_new(o, "cmdline", p.cmdline[0] ? json_string(p.cmdline) : json_null());
	return o;
}

static json_t *json_cpufreq(void)
{
	char governor[64], driver[64], why[512];
	pb_cpufreq_read("/sys/devices/system/cpu/cpu0", governor, sizeof governor, driver,
	                sizeof driver, why, sizeof why);
	json_t *o = json_object();
	json_object_set_new(o, "governor", json_string(governor));
	json_object_set_new(o, "driver", json_string(driver));
	json_object_set_new(o, "note", json_string(why));
	return o;
}

static json_t *json_glibc(void)
{
	struct pb_glibc_info g;
	char why[300], note[sizeof g.note + sizeof why + 4];
	pb_glibc_read(&g);
	json_t *o = json_object();
	json_object_set_new(o, "version", json_text(g.version));
	json_object_set_new(o, "release", json_text(g.release));
	json_object_set_new(o, "loader", json_text(g.loader));
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		json_object_set_new(o, pb_glibc_figure_name((enum pb_glibc_figure)i),
		                    g.diag.known[i] ? json_integer((json_int_t)g.diag.value[i])
		                                    : json_string("unknown"));
	json_t *t = pb_glibc_tunables_read(g.loader, why, sizeof why);
	json_object_set_new(o, "tunables", t ? t : json_string("unknown"));
	const char *env = getenv("GLIBC_TUNABLES");
	json_object_set_new(o, "tunables_env", env ? json_string(env) : json_null());
	snprintf(note, sizeof note, "%s%s%s", g.note, g.note[0] && !t ? "; " : "", t ? "" : why);
	json_object_set_new(o, "note", json_string(note));
	return o;
}

static json_t *json_build(void)
{
	json_t *o = json_object();
	json_object_set_new(o, "primbench_version", json_string(PB_GIT_DESCRIBE));
	json_object_set_new(o, "compiler", json_string(__VERSION__));
	json_object_set_new(o, "build_flags", json_string(PB_BUILD_FLAGS));
	return o;
}

json_t *pb_fingerprint_json(const struct pb_cache_info *caches, int pinned_cpu)
{
	char cmdline[8192];
	struct utsname u;
	bool have_uname = uname(&u) == 0;

	pb_timer_init();
	json_t *m = json_object();
	json_object_set_new(m, "cpu", json_cpu());
	json_object_set_new(m, "emulation", json_emulation());
	json_t *feat = json_object();
	json_object_set_new(feat, "detected", json_features(pb_cpu_features_detected()));
	json_object_set_new(feat, "hidden", json_features(pb_cpu_features_hidden()));
	json_object_set_new(feat, "usable", json_features(pb_cpu_features()));
	json_object_set_new(m, "features", feat);
	json_object_set_new(m, "caches", json_caches(caches));
	json_object_set_new(m, "timer", json_timer());
	json_object_set_new(m, "hostname", json_text(have_uname ? u.nodename : NULL));
	json_object_set_new(m, "kernel", json_text(have_uname ? u.release : NULL));
	json_object_set_new(m, "kernel_version", json_text(have_uname ? u.version : NULL));
	if (pb_read_line("/proc/cmdline", cmdline, sizeof cmdline) != 0)
		cmdline[0] = '\0';
	json_object_set_new(m, "kernel_cmdline", json_text(cmdline));
	json_object_set_new(m, "mitigations", json_mitigations(cmdline));
	json_object_set_new(m, "thp", json_thp());
	json_object_set_new(m, "preemption", json_preemption());
	json_t *hp = pb_hugepages_read(HUGEPAGES_DIR);
	json_object_set_new(m, "hugepages", hp ? hp : json_null());
	json_object_set_new(m, "cpufreq", json_cpufreq());
	json_object_set_new(m, "glibc", json_glibc());
	json_object_set_new(m, "build", json_build());
	json_object_set_new(m, "pinned_cpu", json_integer(pinned_cpu));
	char hash[PB_FINGERPRINT_HASH_LEN + 1];
	json_object_set_new(m, "fingerprint_hash",
	                    pb_fingerprint_hash(m, hash) == 0 ? json_string(hash) : json_null());
	return m;
}
