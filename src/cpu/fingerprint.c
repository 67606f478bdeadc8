/* fingerprint.c - the fingerprint_hash
 * of a machine object (docs/results-schema.md). The machine object and
 * listings themselves are in src/machine/machine.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/text.h"

/* ---- fingerprint_hash --------------------------------------------------- */

uint64_t pb_fnv1a64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */
	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3u; /* FNV 64-bit prime */
	}
	return h;
}

/* machine[a][b]... (NULL-terminated path), borrowed, or NULL. */
static json_t *get_in(const json_t *machine, ...) __attribute__((sentinel));
static json_t *get_in(const json_t *machine, ...)
{
	va_list ap;
	va_start(ap, machine);
	json_t *v = (json_t *)machine;
	for (const char *k = va_arg(ap, const char *); k && v; k = va_arg(ap, const char *))
		v = json_is_object(v) ? json_object_get(v, k) : NULL;
	va_end(ap);
	return v;
}

/* Sets o[key] to a deep copy of v, or null when v is missing. */
static void put_copy(json_t *o, const char *key, const json_t *v)
{
	json_t *c = v ? json_deep_copy(v) : NULL;
	json_object_set_new(o, key, c ? c : json_null());
}

json_t *pb_fingerprint_hash_input(const json_t *machine)
{
	json_t *in = json_object();

	json_t *cpu = json_object();
	static const char *const cpu_keys[] = {"vendor", "family", "model", "stepping",
	                                       "microcode"};
	for (size_t i = 0; i < sizeof cpu_keys / sizeof cpu_keys[0]; i++)
		put_copy(cpu, cpu_keys[i], get_in(machine, "cpu", cpu_keys[i], NULL));
	json_object_set_new(in, "cpu", cpu);

	put_copy(in, "features_usable", get_in(machine, "features", "usable", NULL));

	json_t *caches = json_object();
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		const char *name = pb_cache_level_name((enum pb_cache_level)l);
		put_copy(caches, name, get_in(machine, "caches", name, "size_bytes", NULL));
	}
	put_copy(caches, "line_bytes", get_in(machine, "caches", "line_bytes", NULL));
	json_object_set_new(in, "caches", caches);

	/* The TSC frequency in whole MHz: the calibration moves in the last
	 * digits from run to run (0.1 ppm here), the MHz do not. The arm64
	 * counter's (clock "cntvct_el0") goes under the same key. */
	const json_t *clock = get_in(machine, "timer", "clock", NULL);
	const json_t *hz = get_in(machine, "timer", "hz", NULL);
	put_copy(in, "clock", clock);
	json_object_set_new(in, "tsc_mhz",
	                    json_is_string(clock) &&
	                            (!strcmp(json_string_value(clock), "tsc") ||
	                             !strcmp(json_string_value(clock), "cntvct_el0")) &&
	                            json_is_number(hz)
	                        ? json_integer((json_int_t)llround(json_number_value(hz) / 1e6))
	                        : json_null());

	put_copy(in, "kernel_release", get_in(machine, "kernel", NULL));

	json_t *mit = json_object();
	put_copy(mit, "vulnerabilities", get_in(machine, "mitigations", "vulnerabilities", NULL));
	put_copy(mit, "cmdline", get_in(machine, "mitigations", "cmdline", NULL));
	json_object_set_new(in, "mitigations", mit);

	json_t *thp = json_object();
	put_copy(thp, "enabled", get_in(machine, "thp", "enabled", NULL));
	put_copy(thp, "defrag", get_in(machine, "thp", "defrag", NULL));
	json_object_set_new(in, "thp", thp);

	/* the kernel's preemption model moves the syscall and fault suites'
	 * kernel paths (schema v2 on) */
	json_t *pre = json_object();
	put_copy(pre, "model", get_in(machine, "preemption", "model", NULL));
	put_copy(pre, "dynamic", get_in(machine, "preemption", "dynamic", NULL));
	json_object_set_new(in, "preemption", pre);

	put_copy(in, "cpufreq_governor", get_in(machine, "cpufreq", "governor", NULL));

	json_t *glibc = json_object();
	put_copy(glibc, "version", get_in(machine, "glibc", "version", NULL));
	for (int i = 0; i < PB_GLIBC_FIGURES; i++) {
		const char *name = pb_glibc_figure_name((enum pb_glibc_figure)i);
		put_copy(glibc, name, get_in(machine, "glibc", name, NULL));
	}
	json_object_set_new(in, "glibc", glibc);

	json_t *build = json_object();
	static const char *const build_keys[] = {"compiler", "build_flags", "primbench_version"};
	for (size_t i = 0; i < sizeof build_keys / sizeof build_keys[0]; i++)
		put_copy(build, build_keys[i], get_in(machine, "build", build_keys[i], NULL));
	json_object_set_new(in, "build", build);
	return in;
}

int pb_fingerprint_hash(const json_t *machine, char out[PB_FINGERPRINT_HASH_LEN + 1])
{
	out[0] = '\0';
	json_t *in = pb_fingerprint_hash_input(machine);
	char *text = in ? json_dumps(in, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	json_decref(in);
	if (!text)
		return pb_fail("cannot encode the fingerprint (out of memory)");
	snprintf(out, PB_FINGERPRINT_HASH_LEN + 1, "%016llx",
	         (unsigned long long)pb_fnv1a64(text, strlen(text)));
	free(text);
	return 0;
}
