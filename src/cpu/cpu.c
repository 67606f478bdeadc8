/* cpu.c - feature names, hiding, and identity; the detection itself is in
 * src/cpu/<arch>/cpuid.c.
 *
 * Detected and hidden sets are global and set once; both are read with
 * atomics so that a late first call from another thread (the preload
 * library) sees a complete value. Hiding only ever adds bits.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/arm64_id.h"
#include "cpu/cpu_arch.h"
#include "primbench/cpu.h"
#include "primbench/error.h"

static const char *const feature_names[PB_FEAT_COUNT] = {
#if defined(__aarch64__)
    [PB_FEAT_ASIMD] = "asimd", [PB_FEAT_SVE] = "sve",     [PB_FEAT_SVE2] = "sve2",
    [PB_FEAT_MOPS] = "mops",   [PB_FEAT_DCZVA] = "dczva", [PB_FEAT_CPUID] = "cpuid",
#else
    [PB_FEAT_SSE2] = "sse2",
    [PB_FEAT_AVX2] = "avx2",
    [PB_FEAT_AVX512F] = "avx512f",
    [PB_FEAT_AVX512BW] = "avx512bw",
    [PB_FEAT_ERMS] = "erms",
    [PB_FEAT_FSRM] = "fsrm",
    [PB_FEAT_CLZERO] = "clzero",
    [PB_FEAT_RDTSCP] = "rdtscp",
    [PB_FEAT_INVARIANT_TSC] = "invariant_tsc",
    [PB_FEAT_CLFLUSHOPT] = "clflushopt",
    [PB_FEAT_MOVDIR64B] = "movdir64b",
#endif
};

/* The feature each one extends (unusable without it), PB_FEAT_COUNT when
 * none: AVX-512BW extends AVX-512F (SDM Vol. 1 15.2), SVE2 extends SVE
 * (Arm ARM A2.2, FEAT_SVE2 requires FEAT_SVE). */
static enum pb_feature requires(enum pb_feature f) {
#if defined(__aarch64__)
	return f == PB_FEAT_SVE2 ? PB_FEAT_SVE : PB_FEAT_COUNT;
#else
	return f == PB_FEAT_AVX512BW ? PB_FEAT_AVX512F : PB_FEAT_COUNT;
#endif
}

const char *pb_feature_requires(enum pb_feature f)
{
	enum pb_feature r = requires(f);
	return r == PB_FEAT_COUNT ? NULL : feature_names[r];
}

#define HIDE_ENV "PRIMBENCH_HIDE_FEATURES"

const char *pb_feature_name(enum pb_feature f)
{
	if ((unsigned)f >= PB_FEAT_COUNT)
		return "unknown";
	return feature_names[f];
}

static void known_names(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int f = 0; f < PB_FEAT_COUNT && used < len; f++) {
		int n = snprintf(buf + used, len - used, "%s%s", f ? ", " : "", feature_names[f]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int pb_feature_parse(const char *name, enum pb_feature *out)
{
	for (int f = 0; f < PB_FEAT_COUNT; f++) {
		if (!strcmp(name, feature_names[f])) {
			*out = (enum pb_feature)f;
			return 0;
		}
	}
	char known[200];
	known_names(known, sizeof known);
	return pb_fail("unknown feature '%s' (known: %s)", name, known);
}

/* Parses "a,b, c" into a bit set; empty items are skipped (so "" and a
 * trailing comma hide nothing). Returns 0 or -1 with pb_error() set. */
static int parse_list(const char *list, pb_features *out)
{
	pb_features bits = 0;
	const char *p = list;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *end = p;
		while (*end && *end != ',')
			end++;
		size_t n = (size_t)(end - p);
		while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n > 0) {
			char name[64];
			if (n >= sizeof name)
				return pb_fail("unknown feature '%.*s'", (int)n, p);
			memcpy(name, p, n);
			name[n] = '\0';
			enum pb_feature f;
			if (pb_feature_parse(name, &f) != 0)
				return -1;
			bits |= (pb_features)1u << f;
		}
		p = *end ? end + 1 : end;
	}
	*out = bits;
	return 0;
}

static pb_features detected_bits;
static int detected_done;

pb_features pb_cpu_features_detected(void)
{
	if (!__atomic_load_n(&detected_done, __ATOMIC_ACQUIRE)) {
		/* Detection is pure: two racing first calls store the same value. */
		__atomic_store_n(&detected_bits, pb_arch_features_detect(), __ATOMIC_RELAXED);
		__atomic_store_n(&detected_done, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&detected_bits, __ATOMIC_RELAXED);
}

static pb_features hidden_bits;
static int hidden_env_read;
static char hidden_env_error[300];

static void read_hide_env(void)
{
	if (__atomic_load_n(&hidden_env_read, __ATOMIC_ACQUIRE))
		return;
	const char *env = getenv(HIDE_ENV);
	pb_features bits = 0;
	if (env && parse_list(env, &bits) != 0) {
		snprintf(hidden_env_error, sizeof hidden_env_error, "%s in %s", pb_error(),
		         HIDE_ENV);
		bits = 0;
	}
	__atomic_fetch_or(&hidden_bits, bits, __ATOMIC_RELAXED);
	__atomic_store_n(&hidden_env_read, 1, __ATOMIC_RELEASE);
}

pb_features pb_cpu_features_hidden(void)
{
	read_hide_env();
	return __atomic_load_n(&hidden_bits, __ATOMIC_RELAXED);
}

int pb_cpu_hide_env_check(void)
{
	read_hide_env();
	if (hidden_env_error[0])
		return pb_fail("%s", hidden_env_error);
	return 0;
}

int pb_cpu_hide_features(const char *list)
{
	pb_features bits;
	read_hide_env();
	if (parse_list(list, &bits) != 0)
		return -1;
	__atomic_fetch_or(&hidden_bits, bits, __ATOMIC_RELAXED);
	return 0;
}

/* A feature that extends another goes with it (requires()): hiding
 * avx512f leaves no AVX-512 kernel usable, hiding sve no SVE2 one. */
pb_features pb_cpu_features(void)
{
	pb_features f = pb_cpu_features_detected() & ~pb_cpu_features_hidden();
	for (int i = 0; i < PB_FEAT_COUNT; i++) {
		enum pb_feature r = requires((enum pb_feature)i);
		if (r != PB_FEAT_COUNT && !(f & ((pb_features)1u << r)))
			f &= ~((pb_features)1u << i);
	}
	return f;
}

/* ---- identity ---------------------------------------------------------- */

static void copy_field(char *dst, size_t len, const char *value)
{
	snprintf(dst, len, "%s", value);
}

/* Fills what the architecture code left blank from the first processor's
 * block of /proc/cpuinfo (x86 keys, then arm64, POWER, RISC-V, MIPS). */
void pb_cpu_ident_from_proc(struct pb_cpu_ident *out)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	char line[1024];
	bool have_family = out->family != 0, have_model = out->model != 0;
	bool have_stepping = out->stepping != 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '\n' && (out->vendor[0] || out->brand[0]))
			break; /* end of the first processor's block */
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		char *key_end = colon;
		while (key_end > line && isspace((unsigned char)key_end[-1]))
			key_end--;
		*key_end = '\0';
		char *val = colon + 1;
		while (isspace((unsigned char)*val))
			val++;
		val[strcspn(val, "\n")] = '\0';
		const char *key = line;

		if (!out->vendor[0] && !strcmp(key, "vendor_id")) {
			copy_field(out->vendor, sizeof out->vendor, val);
		} else if (!out->vendor[0] && !strcmp(key, "CPU implementer")) {
			unsigned id = (unsigned)strtoul(val, NULL, 0);
			const char *name = pb_arm_implementer_name(id);
			if (name)
				copy_field(out->vendor, sizeof out->vendor, name);
			else
				snprintf(out->vendor, sizeof out->vendor, "arm-0x%02x", id & 0xffu);
		} else if (!out->brand[0] &&
		           (!strcmp(key, "model name") || !strcmp(key, "Processor") ||
		            !strcmp(key, "cpu model") || !strcmp(key, "cpu") ||
		            !strcmp(key, "uarch"))) {
			copy_field(out->brand, sizeof out->brand, val);
		} else if (!have_family &&
		           (!strcmp(key, "cpu family") || !strcmp(key, "CPU architecture"))) {
			out->family = (unsigned)strtoul(val, NULL, 0);
			have_family = true;
		} else if (!have_model && (!strcmp(key, "model") || !strcmp(key, "CPU part"))) {
			out->model = (unsigned)strtoul(val, NULL, 0);
			have_model = true;
		} else if (!have_stepping &&
		           (!strcmp(key, "stepping") || !strcmp(key, "CPU revision"))) {
			out->stepping = (unsigned)strtoul(val, NULL, 0);
			have_stepping = true;
		} else if (!out->hypervisor && !strcmp(key, "flags")) {
			out->hypervisor = strstr(val, " hypervisor") != NULL;
		}
	}
	fclose(f);
}

void pb_cpu_ident_arch(struct pb_cpu_ident *out)
{
	*out = (struct pb_cpu_ident){0};
	pb_arch_ident(out);
}

void pb_cpu_ident(struct pb_cpu_ident *out)
{
	pb_cpu_ident_arch(out);
	if (!out->vendor[0] || !out->brand[0])
		pb_cpu_ident_from_proc(out);
	if (!out->vendor[0])
		copy_field(out->vendor, sizeof out->vendor, "unknown");
	if (!out->brand[0])
		copy_field(out->brand, sizeof out->brand, "unknown");
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	out->online_cpus = n > 0 ? (int)n : 1;
}

/* ---- arm64 identification and emulation ---------------------------------- */

unsigned pb_cpu_dczva_block_bytes(void)
{
	return pb_arch_dczva_block_bytes();
}

bool pb_cpu_midr_describe(char *buf, size_t len)
{
	uint64_t midr = pb_arch_midr();
	buf[0] = '\0';
	if (!midr)
		return false;
	struct pb_arm_midr m;
	struct pb_cpu_ident id = {0};
	pb_arm_midr_decode(midr, &m);
	pb_arm_ident_from_midr(midr, &id);
	snprintf(buf, len, "%#010llx: %s %s r%up%u%s%s%s", (unsigned long long)midr, id.vendor,
	         id.brand, m.variant, m.revision, m.known_as ? " (" : "",
	         m.known_as ? m.known_as : "", m.known_as ? ")" : "");
	return true;
}

static struct pb_cpu_emulation emulation;
static int emulation_done;

void pb_cpu_emulation(struct pb_cpu_emulation *out)
{
	if (!__atomic_load_n(&emulation_done, __ATOMIC_ACQUIRE)) {
		/* the first processor's block is enough */
		static char text[8192];
		size_t n = 0;
		FILE *f = fopen("/proc/cpuinfo", "r");
		if (f) {
			n = fread(text, 1, sizeof text - 1, f);
			fclose(f);
		}
		text[n] = '\0';
		struct pb_cpu_emulation e;
		pb_emulation_judge(pb_arch_isa(), text, pb_arch_midr(), pb_arch_counter_hz(), &e);
		emulation = e;
		__atomic_store_n(&emulation_done, 1, __ATOMIC_RELEASE);
	}
	*out = emulation;
}

void pb_cpu_emulation_line(char *buf, size_t len)
{
	struct pb_cpu_emulation e;
	pb_cpu_emulation(&e);
	if (e.emulated)
		snprintf(buf, len, "emulated (qemu-user?): timings mean nothing here (signs: %s)",
		         e.signs);
	else if (len)
		buf[0] = '\0';
}
