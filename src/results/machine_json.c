/* machine_json.c - the `machine` object of a result document
 * (docs/results-schema.md, `machine`) from the machine's facts
 * (struct pb_machine_facts, include/primbench/machine.h), with its build
 * (this program's own: version, compiler, flags) and its fingerprint_hash:
 * FNV-1a 64 (pb_fnv1a64, cpu) of the canonical JSON of the result-relevant
 * fields. The one writer of that object; the hash of an object read back
 * (compare's "same hardware") is computed here too.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/machine.h"
#include "results/results_json.h"
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

/* ---- the machine object ------------------------------------------------- */

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

static json_t *json_timer(const struct pb_timer_info *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "clock", json_string(t->clock_name));
	json_object_set_new(o, "clock_desc", json_string(t->clock_desc));
	if (t->fallback_reason)
		json_object_set_new(o, "fallback_reason", json_string(t->fallback_reason));
	json_object_set_new(o, "hz", pb_json_number(t->hz));
	json_object_set_new(o, "freq_source", json_string(t->freq_source_desc));
	json_object_set_new(o, "calibrated_hz",
	                    t->calibrated_hz > 0 ? pb_json_number(t->calibrated_hz) : json_null());
	json_object_set_new(o, "calibration_error_ppm", pb_json_number(t->calibration_error_ppm));
	json_object_set_new(o, "overhead_ticks", pb_json_number(t->overhead_ticks));
	json_object_set_new(o, "step_ticks", pb_json_number(t->step_ticks));
	json_object_set_new(o, "core_hz_estimate", pb_json_number(t->core_hz_estimate));
	return o;
}

static json_t *json_cpu(const struct pb_machine_facts *f)
{
	const struct pb_cpu_ident *id = &f->cpu;
	json_t *cpu = json_object();
	json_object_set_new(cpu, "vendor", json_string(id->vendor));
	json_object_set_new(cpu, "brand", json_string(id->brand));
	json_object_set_new(cpu, "family", json_integer(id->family));
	json_object_set_new(cpu, "model", json_integer(id->model));
	json_object_set_new(cpu, "stepping", json_integer(id->stepping));
	json_object_set_new(cpu, "microcode", json_string(f->microcode));
	json_object_set_new(cpu, "hypervisor", json_boolean(id->hypervisor));
	json_object_set_new(cpu, "hypervisor_vendor", json_string(f->hypervisor_product));
	json_object_set_new(cpu, "hypervisor_signature", json_string(id->hypervisor_vendor));
	json_object_set_new(cpu, "online_cpus", json_integer(id->online_cpus));
	json_object_set_new(cpu, "midr", json_string(f->midr));
	json_object_set_new(cpu, "dczva_block_bytes", json_integer(f->dczva_block_bytes));
	return cpu;
}

/* {"emulated": bool, "signs": [...]}: not in fingerprint_hash (a fact
 * about the run's trustworthiness, not the machine measured). */
static json_t *json_emulation(const struct pb_cpu_emulation *e)
{
	json_t *o = json_object(), *signs = json_array();
	for (const char *p = e->signs; *p;) {
		const char *end = strstr(p, "; ");
		size_t n = end ? (size_t)(end - p) : strlen(p);
		json_array_append_new(signs, json_stringn(p, n));
		p = end ? end + 2 : p + n;
	}
	json_object_set_new(o, "emulated", json_boolean(e->emulated));
	json_object_set_new(o, "signs", signs);
	return o;
}

/* A string, or "unknown" when empty. */
static json_t *json_text(const char *s)
{
	return json_string(s && s[0] ? s : "unknown");
}

/* An object name -> text, in the list's order. */
static json_t *json_named_texts(const struct pb_named_texts *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->item[i].name, json_string(l->item[i].text));
	return o;
}

static json_t *json_mitigations(const struct pb_machine_facts *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "vulnerabilities",
	                    f->vulnerabilities_read ? json_named_texts(&f->vulnerabilities)
	                                            : json_null());
	json_object_set_new(o, "cmdline",
	                    f->mitigations_set ? json_string(f->mitigations) : json_null());
	return o;
}

static json_t *json_thp(const struct pb_machine_facts *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "enabled", json_string(f->thp_enabled));
	json_object_set_new(o, "defrag", json_string(f->thp_defrag));
	return o;
}

static json_t *json_preemption(const struct pb_preempt_info *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "model", json_string(p->model));
	json_object_set_new(o, "dynamic", p->dynamic < 0 ? json_null() : json_boolean(p->dynamic));
	json_object_set_new(o, "source", json_string(p->source));
	json_object_set_new(o, "cmdline", p->cmdline[0] ? json_string(p->cmdline) : json_null());
	return o;
}

/* "2048kB" -> {"reserved": N, "free": N} (null for a count not read),
 * in the facts' order (smaller sizes first; jansson keeps the insertion
 * order). */
static json_t *json_hugepages(const struct pb_hugepages *hp)
{
	json_t *o = json_object();
	for (size_t i = 0; i < hp->n; i++) {
		const struct pb_hugepage_count *c = &hp->size[i];
		json_t *s = json_object();
		json_object_set_new(s, "reserved",
		                    c->reserved >= 0 ? json_integer(c->reserved) : json_null());
		json_object_set_new(s, "free", c->free >= 0 ? json_integer(c->free) : json_null());
		json_object_set_new(o, c->size, s);
	}
	return o;
}

static json_t *json_cpufreq(const struct pb_machine_facts *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "governor", json_string(f->cpufreq_governor));
	json_object_set_new(o, "driver", json_string(f->cpufreq_driver));
	json_object_set_new(o, "note", json_string(f->cpufreq_note));
	return o;
}

static json_t *json_glibc(const struct pb_machine_facts *f)
{
	const struct pb_glibc_info *g = &f->glibc;
	char note[sizeof g->note + sizeof f->tunables_why + 4];
	json_t *o = json_object();
	json_object_set_new(o, "version", json_text(g->version));
	json_object_set_new(o, "release", json_text(g->release));
	json_object_set_new(o, "loader", json_text(g->loader));
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		json_object_set_new(o, pb_glibc_figure_name((enum pb_glibc_figure)i),
		                    g->diag.known[i] ? json_integer((json_int_t)g->diag.value[i])
		                                     : json_string("unknown"));
	json_object_set_new(o, "tunables",
	                    f->tunables_read ? json_named_texts(&f->tunables)
	                                     : json_string("unknown"));
	json_object_set_new(o, "tunables_env",
	                    f->tunables_env ? json_string(f->tunables_env) : json_null());
	snprintf(note, sizeof note, "%s%s%s", g->note, g->note[0] && !f->tunables_read ? "; " : "",
	         f->tunables_read ? "" : f->tunables_why);
	json_object_set_new(o, "note", json_string(note));
	return o;
}

/* This program's build: not a fact of the machine, but of the result's
 * figures (and so in fingerprint_hash). */
static json_t *json_build(void)
{
	json_t *o = json_object();
	json_object_set_new(o, "primbench_version", json_string(PB_GIT_DESCRIBE));
	json_object_set_new(o, "compiler", json_string(__VERSION__));
	json_object_set_new(o, "build_flags", json_string(PB_BUILD_FLAGS));
	return o;
}

json_t *pb_results_machine_json(const struct pb_machine_facts *f)
{
	json_t *m = json_object();
	json_object_set_new(m, "cpu", json_cpu(f));
	json_object_set_new(m, "emulation", json_emulation(&f->emulation));
	json_t *feat = json_object();
	json_object_set_new(feat, "detected", json_features(f->detected));
	json_object_set_new(feat, "hidden", json_features(f->hidden));
	json_object_set_new(feat, "usable", json_features(f->usable));
	json_object_set_new(m, "features", feat);
	json_object_set_new(m, "caches", json_caches(&f->caches));
	json_object_set_new(m, "timer", json_timer(&f->timer));
	json_object_set_new(m, "hostname", json_text(f->hostname));
	json_object_set_new(m, "kernel", json_text(f->kernel));
	json_object_set_new(m, "kernel_version", json_text(f->kernel_version));
	json_object_set_new(m, "kernel_cmdline", json_text(f->kernel_cmdline));
	json_object_set_new(m, "mitigations", json_mitigations(f));
	json_object_set_new(m, "thp", json_thp(f));
	json_object_set_new(m, "preemption", json_preemption(&f->preemption));
	json_object_set_new(m, "hugepages",
	                    f->hugepages_read ? json_hugepages(&f->hugepages) : json_null());
	json_object_set_new(m, "cpufreq", json_cpufreq(f));
	json_object_set_new(m, "glibc", json_glibc(f));
	json_object_set_new(m, "build", json_build());
	json_object_set_new(m, "pinned_cpu", json_integer(f->pinned_cpu));
	char hash[PB_FINGERPRINT_HASH_LEN + 1];
	json_object_set_new(m, "fingerprint_hash",
	                    pb_fingerprint_hash(m, hash) == 0 ? json_string(hash) : json_null());
	return m;
}

json_t *pb_results_machine_json_now(const struct pb_cache_info *caches, int pinned_cpu)
{
	struct pb_machine_facts f;
	pb_machine_facts_read(&f, caches, pinned_cpu);
	json_t *m = pb_results_machine_json(&f);
	pb_machine_facts_free(&f);
	return m;
}

/* ---- fingerprint_hash --------------------------------------------------- */

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
