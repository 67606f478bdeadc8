/* fingerprint.c - the machine as text: the summary that opens a default
 * run and the full `primbench info` listing. Every figure is printed with
 * where it came from.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/fingerprint.h"
#include "primbench/timer.h"

void pb_format_bytes_iec(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
		return;
	}
	int u = 0;
	uint64_t div = 1024;
	while (u < 3 && bytes >= div * 1024) {
		div *= 1024;
		u++;
	}
	if (bytes % div == 0) {
		snprintf(buf, len, "%llu %s", (unsigned long long)(bytes / div), units[u]);
		return;
	}
	/* Two decimals at most, trailing zeros dropped: "1.5 MiB", "181.38 MiB". */
	char num[32];
	snprintf(num, sizeof num, "%.2f", (double)bytes / (double)div);
	size_t n = strlen(num);
	while (n > 0 && num[n - 1] == '0')
		num[--n] = '\0';
	if (n > 0 && num[n - 1] == '.')
		num[--n] = '\0';
	snprintf(buf, len, "%s %s", num, units[u]);
}

#define INFO_INDENT    16
#define SUMMARY_INDENT 10

/* A unit after a number ("4 x 16 B", "0.1 ppm"): kept on the number's line. */
static bool is_unit(const char *p)
{
	static const char *const units[] = {"B",  "KiB", "MiB", "GiB", "TiB",
	                                    "ns", "ms",  "ppm", "MHz", "GHz"};
	size_t n = strcspn(p, " ");
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (n == strlen(units[i]) && !strncmp(p, units[i], n))
			return true;
	return false;
}

void pb_print_labelled(FILE *f, int indent, const char *label, const char *text)
{
	if (indent < 0)
		indent = 0;
	if (indent > PB_TEXT_WIDTH - 20)
		indent = PB_TEXT_WIDTH - 20; /* leave room for the text */
	const char *p = text;
	while (*p == ' ')
		p++;
	if (!*p) { /* no text: the label alone, without trailing blanks */
		size_t n = strlen(label);
		while (n > 0 && label[n - 1] == ' ')
			n--;
		fprintf(f, "%.*s\n", (int)n, label);
		return;
	}
	int col = fprintf(f, "%-*s", indent, label);
	if (col < 0)
		return;
	/* Text on this line already (past the indent, or a label filling it up
	 * to its last column): the next word needs a space before it. */
	size_t lab = strlen(label);
	bool used = col > indent || (lab > 0 && lab == (size_t)indent && label[lab - 1] != ' ');
	while (*p) {
		int w = (int)strcspn(p, " ");
		while (p[w] == ' ' && p[w + 1] && is_unit(p + w + 1))
			w += 1 + (int)strcspn(p + w + 1, " ");
		int room = PB_TEXT_WIDTH - col - (used ? 1 : 0);
		if (w > room && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			used = false;
			continue;
		}
		if (w > room)
			w = room; /* longer than a whole line: cut, the rest goes below */
		col += fprintf(f, "%s%.*s", used ? " " : "", w, p);
		used = true;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* "  label       text" (or "label     text" at indent 10), the text
 * word-wrapped under itself. */
static void vwrapped(FILE *f, int indent, const char *label, const char *fmt, va_list ap)
{
	char text[1024], lab[64];
	vsnprintf(text, sizeof text, fmt, ap);
	if (indent == INFO_INDENT)
		snprintf(lab, sizeof lab, "  %s", label);
	else
		snprintf(lab, sizeof lab, "%s", label);
	pb_print_labelled(f, indent, lab, text);
}

static void field(FILE *f, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void field(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwrapped(f, INFO_INDENT, label, fmt, ap);
	va_end(ap);
}

static void summary_line(FILE *f, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void summary_line(FILE *f, const char *label, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwrapped(f, SUMMARY_INDENT, label, fmt, ap);
	va_end(ap);
}

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
	if (!(pb_cpu_features() & b))
		return feat == PB_FEAT_AVX512BW ? "no (avx512f is hidden)" : "no";
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
		                                                        : "calibrated";
		snprintf(clock, sizeof clock, "tsc %.3f MHz (%s, spread %.1f ppm)", t->hz / 1e6,
		         src, t->calibration_error_ppm);
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

void pb_print_machine_summary(FILE *f, const struct pb_cache_info *c)
{
	struct pb_cpu_ident id;
	struct utsname u;
	char buf[512], sz[32];
	size_t used;

	pb_cpu_ident(&id);
	pb_timer_init();

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
		pb_format_bytes_iec(c->level[l].size_bytes, sz, sizeof sz);
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
}

/* ---- the full listing -------------------------------------------------- */

/* The path of the dynamic loader this process runs under. */
static int find_loader(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	const char *name = info->dlpi_name;
	const char *base = name ? strrchr(name, '/') : NULL;
	if (base && !strncmp(base, "/ld-", 4)) {
		snprintf(data, 256, "%s", name);
		return 1;
	}
	return 0;
}

/* glibc's own cache figures and the thresholds it derives from them
 * (ld.so --list-diagnostics, glibc 2.33+): when it believes a wrong L3,
 * its non-temporal threshold is wrong with it (case M2/M4). */
static void print_glibc_view(FILE *f)
{
	static const char *const keys[] = {
	    "data_cache_size",     "shared_cache_size",   "non_temporal_threshold",
	    "rep_movsb_threshold", "rep_stosb_threshold",
	};
	char loader[256] = "";
	dl_iterate_phdr(find_loader, loader);
	fputs("glibc's view (ld.so --list-diagnostics)\n", f);
	if (!loader[0] || strchr(loader, '\'')) {
		fputs("  not available (no glibc dynamic loader found)\n", f);
		return;
	}
	char cmd[300];
	snprintf(cmd, sizeof cmd, "'%s' --list-diagnostics 2>/dev/null", loader);
	fflush(f);
	FILE *p = popen(cmd, "r");
	if (!p) {
		fputs("  not available (cannot run the loader)\n", f);
		return;
	}
	char line[256];
	int shown = 0;
	while (fgets(line, sizeof line, p)) {
		const char *eq = strchr(line, '=');
		if (!eq || strncmp(line, "x86.cpu_features.", 17))
			continue;
		const char *key = line + 17;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			size_t n = strlen(keys[i]);
			if ((size_t)(eq - key) == n && !strncmp(key, keys[i], n)) {
				char sz[32];
				unsigned long long v = strtoull(eq + 1, NULL, 0);
				pb_format_bytes_iec(v, sz, sizeof sz);
				if (v % 1024 == 0 || v < 1024)
					fprintf(f, "  %-24s %s\n", keys[i], sz);
				else
					fprintf(f, "  %-24s %llu B (%s)\n", keys[i], v, sz);
				shown++;
			}
		}
	}
	pclose(p);
	if (!shown)
		fputs("  not available (loader too old, or not x86)\n", f);
}

/* When the kernel's clocksource is the TSC, CLOCK_MONOTONIC_RAW is the TSC
 * scaled by the kernel's own frequency figure: calibrating against it then
 * measures read jitter and inherits the kernel's figure, nothing more. */
static void print_clocksource(FILE *f)
{
	char cs[64] = "";
	FILE *p = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (p) {
		if (!fgets(cs, sizeof cs, p))
			cs[0] = '\0';
		fclose(p);
	}
	cs[strcspn(cs, "\n")] = '\0';
	if (!cs[0])
		return;
	field(f, "clocksource", "%s (the kernel's)%s", cs,
	      !strcmp(cs, "tsc") ? ": CLOCK_MONOTONIC_RAW is the TSC scaled by the kernel's own "
	                           "frequency figure, so the calibration agrees with that figure "
	                           "by construction; its spread measures read jitter only"
	                         : "");
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
				pb_format_bytes_iec(li->by_source_bytes[s], sz, sizeof sz);
			else
				snprintf(sz, sizeof sz, "none");
			used += (size_t)snprintf(
			    all + used, sizeof all - used, "%s%s %s%s", i ? ", " : "",
			    pb_cache_source_name(s), sz,
			    li->by_source_bytes[s] && !li->plausible[s] ? " (rejected)" : "");
		}
		pb_format_bytes_iec(li->size_bytes, sz, sizeof sz);
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
		field(f, "frequency", "%.3f MHz", t->hz / 1e6);
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
		      "tick); TSC ticks are reference cycles, not core cycles",
		      t->core_hz_estimate / 1e9, t->core_hz_estimate / t->hz);
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

	fputs("cpu\n", f);
	field(f, "vendor", "%s", id.vendor);
	field(f, "brand", "%s", id.brand);
	field(f, "family", "%u", id.family);
	field(f, "model", "%u (%#x)", id.model, id.model);
	field(f, "stepping", "%u", id.stepping);
	if (id.hypervisor && id.hypervisor_vendor[0])
		field(f, "hypervisor", "yes: %s (cpuid 0x40000000 \"%s\")",
		      hypervisor_name(id.hypervisor_vendor), id.hypervisor_vendor);
	else if (id.hypervisor)
		field(f, "hypervisor", "yes");
	else
		field(f, "hypervisor", "no");
	field(f, "online cpus", "%d", id.online_cpus);
	pb_format_bytes_iec(ram_bytes(), sz, sizeof sz);
	field(f, "memory", "%s", sz);
	if (uname(&u) == 0)
		field(f, "kernel", "%s %s %s", u.sysname, u.release, u.machine);

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
