/* caches.c - cache sizes from every source, checked, one chosen per level.
 *
 * The four sources are not independent witnesses: Linux fills sysfs from
 * cpuid (x86) or firmware tables, hwloc reads sysfs (and cpuid), and
 * glibc's sysconf reads cpuid. Under a hypervisor all of them repeat what
 * the hypervisor's cpuid says, so agreement between them proves nothing;
 * a figure is judged by the rules below, not by a vote.
 *
 * Sanity rules (docs/methodology.md, "Cache sizes"; case M2):
 *   - zero (or no figure) is never a size;
 *   - L1d must lie in 8 KiB .. 1 MiB;
 *   - L2 must be at least the chosen L1d and at most 64 MiB;
 *   - LLC must be at least the chosen L2, at most RAM/8, and at most
 *     max(128 MiB, 32 MiB per online CPU). Per CPU, because a guest with
 *     2 vCPUs is shown the host's whole L3 (480 MiB on one KVM guest), of
 *     which it owns a sliver shared with other tenants; the 128 MiB floor
 *     keeps small guests on real large-cache parts (96 MiB per CCD on AMD
 *     X3D, 112.5 MB on a Sapphire Rapids socket), and 32 MiB per CPU
 *     accepts big hosts (384 MiB on a 96-core EPYC: 4 MiB per CPU).
 * Choice: an override; else the first plausible figure in the order sysfs,
 * cpuid, hwloc, sysconf; else a fallback (32 KiB, 1 MiB, 32 MiB capped at
 * RAM/8 and at least the chosen L2) with a note saying the size is unknown.
 * "The chosen L1d/L2" in the rules is what the sources gave for that level
 * (or its fallback), never an override: an override is the user's word
 * about one level and does not get the real figures of the others
 * rejected (an override that breaks the order gets a note). Overrides
 * themselves are checked by pb_cache_override_check() (at least 1 KiB, at
 * most RAM), which the CLI calls before measuring anything.
 */
#include <hwloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/caches_internal.h"
#include "cpu/cpu_arch.h"
#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/fingerprint.h"
#include "primbench/text.h"

static const char *const source_names[PB_SRC_COUNT] = {
    [PB_SRC_CPUID] = "cpuid", [PB_SRC_SYSFS] = "sysfs",       [PB_SRC_SYSCONF] = "sysconf",
    [PB_SRC_HWLOC] = "hwloc", [PB_SRC_OVERRIDE] = "override", [PB_SRC_FALLBACK] = "fallback",
};

static const char *const level_names[PB_CACHE_LEVELS] = {
    [PB_CACHE_L1D] = "L1d",
    [PB_CACHE_L2] = "L2",
    [PB_CACHE_LLC] = "LLC",
};

/* Sources tried, best first. */
static const enum pb_cache_source priority[] = {PB_SRC_SYSFS, PB_SRC_CPUID, PB_SRC_HWLOC,
                                                PB_SRC_SYSCONF};
#define N_PRIORITY (sizeof priority / sizeof priority[0])

static const char *const override_options[PB_CACHE_LEVELS] = {"--l1-size", "--l2-size",
                                                              "--llc-size"};

const char *pb_cache_source_name(enum pb_cache_source s)
{
	return (unsigned)s < PB_SRC_COUNT ? source_names[s] : "unknown";
}

const char *pb_cache_level_name(enum pb_cache_level l)
{
	return (unsigned)l < PB_CACHE_LEVELS ? level_names[l] : "unknown";
}

static uint64_t ram_bytes(void);

/* ---- the rules --------------------------------------------------------- */

bool pb_cache_plausible(enum pb_cache_level level, uint64_t bytes, uint64_t lower_bytes,
                        uint64_t ram_bytes, int online_cpus, char *why, size_t why_len)
{
	char a[32], b[32];
	if (bytes == 0) {
		snprintf(why, why_len, "zero");
		return false;
	}
	switch (level) {
	case PB_CACHE_L1D:
		if (bytes < PB_L1D_MIN_BYTES || bytes > PB_L1D_MAX_BYTES) {
			snprintf(why, why_len, "outside 8 KiB..1 MiB");
			return false;
		}
		return true;
	case PB_CACHE_L2:
		if (bytes < lower_bytes) {
			pb_format_bytes(a, sizeof a, lower_bytes, PB_BYTES_IEC);
			snprintf(why, why_len, "smaller than L1d (%s)", a);
			return false;
		}
		if (bytes > PB_L2_MAX_BYTES) {
			snprintf(why, why_len, "more than 64 MiB");
			return false;
		}
		return true;
	case PB_CACHE_LLC: {
		if (bytes < lower_bytes) {
			pb_format_bytes(a, sizeof a, lower_bytes, PB_BYTES_IEC);
			snprintf(why, why_len, "smaller than L2 (%s)", a);
			return false;
		}
		if (ram_bytes && bytes > ram_bytes / PB_LLC_RAM_DIVISOR) {
			pb_format_bytes(a, sizeof a, ram_bytes, PB_BYTES_IEC);
			snprintf(why, why_len, "more than RAM/8 (RAM %s)", a);
			return false;
		}
		int cpus = online_cpus > 0 ? online_cpus : 1;
		uint64_t limit = (uint64_t)cpus * PB_LLC_PER_CPU_BYTES;
		if (limit < PB_LLC_FLOOR_BYTES)
			limit = PB_LLC_FLOOR_BYTES;
		if (bytes > limit) {
			pb_format_bytes(b, sizeof b, limit, PB_BYTES_IEC);
			snprintf(why, why_len,
			         "more than 32 MiB per online CPU (%d CPU%s; limit %s)", cpus,
			         cpus == 1 ? "" : "s", b);
			return false;
		}
		return true;
	}
	default:
		snprintf(why, why_len, "unknown level");
		return false;
	}
}

/* Appends printf-style text to a note, truncating safely. */
static void note_add(char *note, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note_add(char *note, size_t len, const char *fmt, ...)
{
	size_t used = strlen(note);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note + used, len - used, fmt, ap);
	va_end(ap);
}

/* note = rejected + "; " + tail, cutting `rejected` (never the tail, which
 * says what to do) when both do not fit. */
static void compose_note(char *note, size_t len, const char *rejected, const char *tail)
{
	const char *sep = rejected[0] && tail[0] ? "; " : "";
	size_t nr = strlen(rejected), ns = strlen(sep), nt = strlen(tail);
	const char *cut = "";
	if (nr + ns + nt >= len) {
		cut = "...";
		nr = len - 1 - ns - nt - 3; /* tail + sep + cut fit: the tail is < 120 */
	}
	size_t nc = strlen(cut), at = 0;
	memcpy(note + at, rejected, nr);
	at += nr;
	memcpy(note + at, cut, nc);
	at += nc;
	memcpy(note + at, sep, ns);
	at += ns;
	memcpy(note + at, tail, nt);
	at += nt;
	note[at] = '\0';
}

/* Chooses one level's figure (see the top of the file) and returns the
 * figure the sources gave, before any override: the next level's figures
 * are checked against that, not against an override. */
static uint64_t choose_level(struct pb_cache_level_info *li, enum pb_cache_level level,
                             const uint64_t *by_source, uint64_t override, uint64_t lower_bytes,
                             uint64_t ram_bytes, int online_cpus)
{
	char why[N_PRIORITY][100];
	char rejected[400] = "", tail[120] = "";
	char sz[32];

	memset(li, 0, sizeof *li);
	li->source = PB_SRC_FALLBACK;
	for (size_t i = 0; i < N_PRIORITY; i++) {
		enum pb_cache_source s = priority[i];
		li->by_source_bytes[s] = by_source[s];
		why[i][0] = '\0';
		if (by_source[s] == 0)
			continue; /* no figure: nothing to reject, nothing to say */
		li->plausible[s] = pb_cache_plausible(level, by_source[s], lower_bytes, ram_bytes,
		                                      online_cpus, why[i], sizeof why[i]);
		if (li->plausible[s] && li->source == PB_SRC_FALLBACK) {
			li->source = s;
			li->size_bytes = by_source[s];
		}
	}

	/* Rejected figures, grouped: "480 MiB (sysfs, cpuid) implausible: ...". */
	bool done[N_PRIORITY] = {false};
	for (size_t i = 0; i < N_PRIORITY; i++) {
		enum pb_cache_source s = priority[i];
		if (done[i] || by_source[s] == 0 || li->plausible[s])
			continue;
		pb_format_bytes(sz, sizeof sz, by_source[s], PB_BYTES_IEC);
		note_add(rejected, sizeof rejected, "%s%s (%s", rejected[0] ? "; " : "", sz,
		         source_names[s]);
		for (size_t j = i + 1; j < N_PRIORITY; j++) {
			enum pb_cache_source t = priority[j];
			if (!done[j] && by_source[t] == by_source[s] && !li->plausible[t] &&
			    !strcmp(why[j], why[i])) {
				note_add(rejected, sizeof rejected, ", %s", source_names[t]);
				done[j] = true;
			}
		}
		note_add(rejected, sizeof rejected, ") implausible: %s", why[i]);
	}

	uint64_t detected = li->size_bytes;
	if (li->source == PB_SRC_FALLBACK) {
		uint64_t fb = level == PB_CACHE_L1D  ? PB_L1D_FALLBACK_BYTES
		              : level == PB_CACHE_L2 ? PB_L2_FALLBACK_BYTES
		                                     : PB_LLC_FALLBACK_BYTES;
		if (level == PB_CACHE_LLC && ram_bytes && fb > ram_bytes / PB_LLC_RAM_DIVISOR)
			fb = ram_bytes / PB_LLC_RAM_DIVISOR;
		if (fb < lower_bytes)
			fb = lower_bytes;
		detected = fb;
	}

	if (override) {
		li->by_source_bytes[PB_SRC_OVERRIDE] = override;
		li->plausible[PB_SRC_OVERRIDE] = true;
		li->source = PB_SRC_OVERRIDE;
		li->size_bytes = override;
	} else if (li->source != PB_SRC_FALLBACK) {
		/* Plausible figures that disagree with the chosen one. */
		for (size_t i = 0; i < N_PRIORITY; i++) {
			enum pb_cache_source s = priority[i];
			if (li->plausible[s] && by_source[s] != li->size_bytes) {
				pb_format_bytes(sz, sizeof sz, by_source[s], PB_BYTES_IEC);
				note_add(tail, sizeof tail, "%s%s says %s", tail[0] ? "; " : "",
				         source_names[s], sz);
			}
		}
	} else {
		li->by_source_bytes[PB_SRC_FALLBACK] = detected;
		li->plausible[PB_SRC_FALLBACK] = true;
		li->size_bytes = detected;
		pb_format_bytes(sz, sizeof sz, detected, PB_BYTES_IEC);
		snprintf(tail, sizeof tail, "real size unknown, fallback %s (%s)", sz,
		         override_options[level]);
	}
	compose_note(li->note, sizeof li->note, rejected, tail);
	return detected;
}

void pb_cache_choose(struct pb_cache_info *out, const uint64_t bytes[PB_CACHE_LEVELS][PB_SRC_COUNT],
                     const uint64_t override_bytes[PB_CACHE_LEVELS], uint64_t ram_bytes,
                     int online_cpus)
{
	uint64_t lower = 0;
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		lower = choose_level(&out->level[l], (enum pb_cache_level)l, bytes[l],
		                     override_bytes ? override_bytes[l] : 0, lower, ram_bytes,
		                     online_cpus);

	/* An override is the user's word: the other levels' figures were not
	 * judged by it, and it is not judged by them; it is only noted when the
	 * order L1d <= L2 <= LLC does not hold. */
	for (int l = 0; l < PB_CACHE_LEVELS; l++) {
		struct pb_cache_level_info *li = &out->level[l];
		if (li->source != PB_SRC_OVERRIDE)
			continue;
		char sz[32];
		const char *sep = li->note[0] ? "; " : "";
		if (l > 0 && li->size_bytes < out->level[l - 1].size_bytes) {
			pb_format_bytes(sz, sizeof sz, out->level[l - 1].size_bytes, PB_BYTES_IEC);
			note_add(li->note, sizeof li->note, "%s%s is smaller than %s (%s)", sep,
			         override_options[l], level_names[l - 1], sz);
			sep = "; ";
		}
		if (l + 1 < PB_CACHE_LEVELS && li->size_bytes > out->level[l + 1].size_bytes) {
			pb_format_bytes(sz, sizeof sz, out->level[l + 1].size_bytes, PB_BYTES_IEC);
			note_add(li->note, sizeof li->note, "%s%s is larger than %s (%s)", sep,
			         override_options[l], level_names[l + 1], sz);
		}
	}
}

/* ---- overrides ---------------------------------------------------------- */

int pb_cache_override_check(enum pb_cache_level level, uint64_t bytes)
{
	char a[32], b[32];
	if ((unsigned)level >= PB_CACHE_LEVELS)
		return pb_fail("unknown cache level %d", (int)level);
	pb_format_bytes(a, sizeof a, bytes, PB_BYTES_IEC);
	if (bytes < PB_OVERRIDE_MIN_BYTES)
		return pb_fail("%s %s is too small for a cache (at least 1 KiB)",
		               override_options[level], a);
	uint64_t ram = ram_bytes();
	if (ram && bytes > ram) {
		pb_format_bytes(b, sizeof b, ram, PB_BYTES_IEC);
		return pb_fail("%s %s is more than this machine's RAM (%s)",
		               override_options[level], a, b);
	}
	return 0;
}

int pb_cache_overrides_check(const uint64_t override_bytes[PB_CACHE_LEVELS])
{
	if (!override_bytes)
		return 0;
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		if (override_bytes[l] &&
		    pb_cache_override_check((enum pb_cache_level)l, override_bytes[l]) != 0)
			return -1;
	for (int hi = 1; hi < PB_CACHE_LEVELS; hi++)
		for (int lo = 0; lo < hi; lo++)
			if (override_bytes[hi] && override_bytes[lo] &&
			    override_bytes[hi] < override_bytes[lo]) {
				char a[32], b[32];
				pb_format_bytes(a, sizeof a, override_bytes[hi], PB_BYTES_IEC);
				pb_format_bytes(b, sizeof b, override_bytes[lo], PB_BYTES_IEC);
				return pb_fail("%s %s is smaller than %s %s", override_options[hi],
				               a, override_options[lo], b);
			}
	return 0;
}

/* ---- the sources ------------------------------------------------------- */

/* "48K", "491520K", "2M", "1024" (sysfs writes KiB with a K suffix). */
static uint64_t parse_sysfs_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s)
		return 0;
	switch (*end) {
	case 'K':
	case 'k':
		return v * PB_KIB;
	case 'M':
	case 'm':
		return v * PB_MIB;
	case 'G':
	case 'g':
		return v * PB_MIB * 1024;
	default:
		return v;
	}
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

static void from_sysfs(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
	unsigned top_level = 0;
	for (int i = 0; i < 32; i++) {
		char path[128], buf[64];
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (!read_line(path, buf, sizeof buf))
			break;
		unsigned level = (unsigned)strtoul(buf, NULL, 10);
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
		if (!read_line(path, buf, sizeof buf) || !strcmp(buf, "Instruction"))
			continue;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (!read_line(path, buf, sizeof buf))
			continue;
		uint64_t size = parse_sysfs_size(buf);
		if (level == 1) {
			bytes[PB_CACHE_L1D] = size;
			snprintf(path, sizeof path,
			         "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size",
			         i);
			if (read_line(path, buf, sizeof buf) && !*line_bytes)
				*line_bytes = (unsigned)strtoul(buf, NULL, 10);
		} else if (level == 2) {
			bytes[PB_CACHE_L2] = size;
		}
		if (level >= 2 && level >= top_level) {
			top_level = level;
			bytes[PB_CACHE_LLC] = size;
		}
	}
}

static uint64_t sysconf_bytes(int name)
{
	long v = sysconf(name);
	return v > 0 ? (uint64_t)v : 0;
}

/* glibc's own view (it derives these from cpuid); other C libraries may
 * not define the names. */
static void from_sysconf(uint64_t bytes[PB_CACHE_LEVELS], unsigned *line_bytes)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE
	bytes[PB_CACHE_L1D] = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
	bytes[PB_CACHE_L2] = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
	uint64_t l3 = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
	uint64_t l4 = sysconf_bytes(_SC_LEVEL4_CACHE_SIZE);
	bytes[PB_CACHE_LLC] = l4 ? l4 : l3 ? l3 : bytes[PB_CACHE_L2];
	if (!*line_bytes)
		*line_bytes = (unsigned)sysconf_bytes(_SC_LEVEL1_DCACHE_LINESIZE);
#else
	(void)bytes;
	(void)line_bytes;
#endif
}

static uint64_t hwloc_cache_size(hwloc_topology_t t, hwloc_obj_type_t type)
{
	hwloc_obj_t o = hwloc_get_obj_by_type(t, type, 0);
	return o && o->attr ? o->attr->cache.size : 0;
}

static void from_hwloc(uint64_t bytes[PB_CACHE_LEVELS])
{
	hwloc_topology_t t;
	if (hwloc_topology_init(&t) != 0)
		return;
	if (hwloc_topology_load(t) == 0) {
		bytes[PB_CACHE_L1D] = hwloc_cache_size(t, HWLOC_OBJ_L1CACHE);
		bytes[PB_CACHE_L2] = hwloc_cache_size(t, HWLOC_OBJ_L2CACHE);
		static const hwloc_obj_type_t top_down[] = {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE,
		                                            HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE};
		for (size_t i = 0; i < sizeof top_down / sizeof top_down[0]; i++) {
			uint64_t v = hwloc_cache_size(t, top_down[i]);
			if (v) {
				bytes[PB_CACHE_LLC] = v;
				break;
			}
		}
	}
	hwloc_topology_destroy(t);
}

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

static void take(uint64_t bytes[PB_CACHE_LEVELS][PB_SRC_COUNT], enum pb_cache_source s,
                 const uint64_t col[PB_CACHE_LEVELS])
{
	for (int l = 0; l < PB_CACHE_LEVELS; l++)
		bytes[l][s] = col[l];
}

int pb_cache_detect(struct pb_cache_info *out, const uint64_t override_bytes[PB_CACHE_LEVELS])
{
	uint64_t bytes[PB_CACHE_LEVELS][PB_SRC_COUNT] = {{0}};
	uint64_t sysfs[PB_CACHE_LEVELS] = {0}, cpuid[PB_CACHE_LEVELS] = {0};
	uint64_t hwloc[PB_CACHE_LEVELS] = {0}, sysconf_[PB_CACHE_LEVELS] = {0};
	unsigned line_sysfs = 0, line_cpuid = 0, line_sysconf = 0;

	from_sysfs(sysfs, &line_sysfs);
	pb_arch_cache_sizes(cpuid, &line_cpuid);
	from_hwloc(hwloc);
	from_sysconf(sysconf_, &line_sysconf);
	take(bytes, PB_SRC_SYSFS, sysfs);
	take(bytes, PB_SRC_CPUID, cpuid);
	take(bytes, PB_SRC_HWLOC, hwloc);
	take(bytes, PB_SRC_SYSCONF, sysconf_);

	memset(out, 0, sizeof *out);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	pb_cache_choose(out, (const uint64_t(*)[PB_SRC_COUNT])bytes, override_bytes, ram_bytes(),
	                cpus > 0 ? (int)cpus : 1);

	unsigned line = line_sysfs ? line_sysfs : line_cpuid ? line_cpuid : line_sysconf;
	/* A power of two in 16..512, or the usual 64. */
	out->line_bytes = (line >= 16 && line <= 512 && !(line & (line - 1))) ? line : 64;
	return 0;
}
