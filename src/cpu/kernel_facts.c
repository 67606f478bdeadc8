/* kernel_facts.c - the kernel's preemption model and the huge pages
 * reserved on this system, for the machine object (docs/results-schema.md,
 * `preemption`, `hugepages`). The parsers take text (tests feed them fixed
 * strings); the readers take their paths. Never mounts anything: the
 * runtime preemption switch of a PREEMPT_DYNAMIC kernel is in debugfs
 * (sched/preempt), which is not read.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef PB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "primbench/fingerprint.h"

static void set_model(struct pb_preempt_info *p, const char *model)
{
	snprintf(p->model, sizeof p->model, "%.20s", model);
}

/* "CONFIG_NAME=y" as a whole line of `text`. */
static bool config_set(const char *text, const char *name)
{
	size_t n = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, name, n) && !strncmp(l + n, "=y", 2) &&
		    (l[n + 2] == '\n' || l[n + 2] == '\0'))
			return true;
	return false;
}

int pb_preempt_from_config(const char *text, struct pb_preempt_info *out)
{
	/* Kconfig's "Preemption Model" choice (kernel/Kconfig.preempt); RT
	 * first: it is a choice of its own since 6.12 but implied PREEMPT
	 * before. */
	static const char *const choice[][2] = {
	    {"CONFIG_PREEMPT_RT", "rt"},     {"CONFIG_PREEMPT", "full"},
	    {"CONFIG_PREEMPT_LAZY", "lazy"}, {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
	    {"CONFIG_PREEMPT_NONE", "none"},
	};
	for (size_t i = 0; i < sizeof choice / sizeof choice[0]; i++)
		if (config_set(text, choice[i][0])) {
			set_model(out, choice[i][1]);
			out->dynamic = config_set(text, "CONFIG_PREEMPT_DYNAMIC") ? 1 : 0;
			return 0;
		}
	return -1;
}

int pb_preempt_from_uname(const char *version, struct pb_preempt_info *out)
{
	/* The kernel's UTS_VERSION (init/Makefile, scripts/mkcompile_h):
	 * "#N [SMP] [PREEMPT|PREEMPT_DYNAMIC|PREEMPT_RT] date". */
	if (!version || version[0] != '#')
		return -1;
	const char *p = version;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		size_t n = strcspn(p, " \t\n");
		if (n == 10 && !strncmp(p, "PREEMPT_RT", n)) {
			set_model(out, "rt");
			out->dynamic = 0;
			return 0;
		}
		if (n == 15 && !strncmp(p, "PREEMPT_DYNAMIC", n)) {
			set_model(out, "unknown"); /* the boot default is not in uname */
			out->dynamic = 1;
			return 0;
		}
		if (n == 7 && !strncmp(p, "PREEMPT", n)) {
			set_model(out, "full");
			out->dynamic = 0;
			return 0;
		}
		p += n;
	}
	/* No flag: a build without preemption (CONFIG_PREEMPT_NONE or
	 * _VOLUNTARY, which uname -v does not tell apart). */
	set_model(out, "none_or_voluntary");
	out->dynamic = 0;
	return 0;
}

void pb_preempt_resolve(const char *config_text, const char *uname_version, const char *cmdline,
                        struct pb_preempt_info *out)
{
	memset(out, 0, sizeof *out);
	set_model(out, "unknown");
	out->dynamic = -1;
	snprintf(out->source, sizeof out->source, "none");
	if (config_text && pb_preempt_from_config(config_text, out) == 0)
		snprintf(out->source, sizeof out->source, "config");
	else if (pb_preempt_from_uname(uname_version, out) == 0)
		snprintf(out->source, sizeof out->source, "uname");
	char v[32];
	if (cmdline && pb_cmdline_param(cmdline, "preempt", v, sizeof v)) {
		snprintf(out->cmdline, sizeof out->cmdline, "%s", v);
		static const char *const known[] = {"none", "voluntary", "full", "lazy"};
		bool ok = false;
		for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
			ok |= !strcmp(v, known[i]);
		/* Only a PREEMPT_DYNAMIC kernel obeys preempt= (sched_dynamic_mode). */
		if (out->dynamic == 1 && ok) {
			set_model(out, v);
			snprintf(out->source + strlen(out->source),
			         sizeof out->source - strlen(out->source), "+cmdline");
		}
	}
}

/* The lines of a gzip'd kernel config that start with one of prefixes
 * (NULL-terminated), or NULL when it cannot be read. */
static char *config_gz_lines(const char *path, const char *const *prefixes)
{
#ifdef PB_HAVE_ZLIB
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 4096, used = 0;
	char *text = calloc(1, cap), line[512];
	bool seen_any = false;
	while (text && gzgets(g, line, sizeof line)) {
		seen_any = true;
		bool want = false;
		for (const char *const *p = prefixes; *p && !want; p++)
			want = !strncmp(line, *p, strlen(*p));
		if (!want)
			continue;
		size_t n = strlen(line);
		if (used + n + 1 > cap)
			continue; /* far more than the few dozen such lines there are */
		memcpy(text + used, line, n + 1);
		used += n;
	}
	int err = 0;
	gzerror(g, &err);
	gzclose(g);
	if (!seen_any || (err != Z_OK && err != Z_STREAM_END)) {
		free(text);
		return NULL;
	}
	return text;
#else
	(void)path;
	(void)prefixes;
	return NULL;
#endif
}

static char *config_gz_preempt_lines(const char *path)
{
	static const char *const prefixes[] = {"CONFIG_PREEMPT", NULL};
	return config_gz_lines(path, prefixes);
}

void pb_preempt_read(const char *config_gz, const char *cmdline_path, struct pb_preempt_info *out)
{
	char *config = config_gz_preempt_lines(config_gz);
	char cmdline[8192];
	if (pb_read_line(cmdline_path, cmdline, sizeof cmdline) != 0)
		cmdline[0] = '\0';
	struct utsname u;
	pb_preempt_resolve(config, uname(&u) == 0 ? u.version : NULL, cmdline, out);
	free(config);
}

/* ---- CPU-time accounting ---------------------------------------------------- */

int pb_cputime_from_config(const char *text, struct pb_cputime_accounting *out)
{
	out->hz = 0;
	out->tick_split = -1;
	if (!text)
		return -1;
	if (config_set(text, "CONFIG_VIRT_CPU_ACCOUNTING_NATIVE"))
		out->tick_split = 0;
	else if (config_set(text, "CONFIG_TICK_CPU_ACCOUNTING") ||
	         config_set(text, "CONFIG_VIRT_CPU_ACCOUNTING_GEN"))
		out->tick_split = 1;
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "CONFIG_HZ=", 10)) {
			char *end;
			long hz = strtol(l + 10, &end, 10);
			if (end != l + 10 && (*end == '\n' || *end == '\0') && hz > 0 &&
			    hz <= 100000) {
				out->hz = (int)hz;
				return 0;
			}
		}
	return -1;
}

void pb_cputime_read(const char *config_gz, const char *boot_dir, struct pb_cputime_accounting *out)
{
	static const char *const prefixes[] = {"CONFIG_HZ", "CONFIG_TICK_CPU_ACCOUNTING",
	                                       "CONFIG_VIRT_CPU_ACCOUNTING", NULL};
	char *text = config_gz_lines(config_gz, prefixes);
	if (text && pb_cputime_from_config(text, out) == 0) {
		snprintf(out->source, sizeof out->source, "%s", config_gz);
		free(text);
		return;
	}
	free(text);
	struct utsname u;
	char path[512];
	FILE *f = NULL;
	if (uname(&u) == 0) {
		snprintf(path, sizeof path, "%s/config-%s", boot_dir, u.release);
		f = fopen(path, "r");
	}
	text = NULL;
	size_t len = 0;
	if (f) {
		FILE *m = open_memstream(&text, &len);
		char line[512];
		while (m && fgets(line, sizeof line, f))
			for (const char *const *p = prefixes; *p; p++)
				if (!strncmp(line, *p, strlen(*p))) {
					fputs(line, m);
					break;
				}
		if (m)
			fclose(m);
		fclose(f);
	}
	if (text && pb_cputime_from_config(text, out) == 0)
		snprintf(out->source, sizeof out->source, "%.39s", path);
	else {
		out->hz = 0;
		out->tick_split = -1;
		snprintf(out->source, sizeof out->source, "none");
	}
	free(text);
}

/* ---- huge pages ------------------------------------------------------------ */

static long read_count(const char *dir, const char *sub, const char *file)
{
	char path[512], text[64];
	snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
	if (pb_read_line(path, text, sizeof text) != 0)
		return -1;
	char *end;
	long v = strtol(text, &end, 10);
	return end != text && v >= 0 ? v : -1;
}

/* "hugepages-2048kB" before "hugepages-1048576kB": by the size. */
static int by_size(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long sx = x ? strtoul(x + 10, NULL, 10) : 0,
	              sy = y ? strtoul(y + 10, NULL, 10) : 0;
	return (sx > sy) - (sx < sy);
}

int pb_hugepages_read(const char *dir, struct pb_hugepages *out)
{
	out->n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char *names[PB_HUGEPAGE_SIZES];
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < sizeof names / sizeof names[0])
		if (!strncmp(e->d_name, "hugepages-", 10) && strstr(e->d_name, "kB"))
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, n, sizeof names[0], by_size);
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		struct pb_hugepage_count *c = &out->size[out->n++];
		snprintf(c->size, sizeof c->size, "%s", names[i] + 10); /* "2048kB" */
		c->reserved = read_count(dir, names[i], "nr_hugepages");
		c->free = read_count(dir, names[i], "free_hugepages");
		free(names[i]);
	}
	return 0;
}

/* ---- free page reporting ---------------------------------------------------- */

bool pb_virtio_feature_bit(const char *features, unsigned bit)
{
	size_t n = features ? strlen(features) : 0;
	return bit < n && features[bit] == '1';
}

static long long read_ll(const char *path)
{
	char text[64], *end;
	if (pb_read_line(path, text, sizeof text) != 0)
		return -1;
	long long v = strtoll(text, &end, 0);
	return end != text && v >= 0 ? v : -1;
}

/* VIRTIO_BALLOON_F_REPORTING (virtio 1.1, 5.5.3) and the balloon's
 * device ID (virtio 1.1, 5: 5). */
#define BALLOON_DEVICE_ID   5
#define BALLOON_F_REPORTING 5u

void pb_page_reporting_read(const char *sys_root, struct pb_page_reporting *out)
{
	char path[512];
	out->active = -1;
	snprintf(path, sizeof path, "%s/bus/virtio/devices", sys_root);
	DIR *d = opendir(path);
	if (d) {
		out->active = 0;
		struct dirent *e;
		while (!out->active && (e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			char dev[800], text[512];
			if (snprintf(dev, sizeof dev, "%s/%s/device", path, e->d_name) >=
			        (int)sizeof dev ||
			    read_ll(dev) != BALLOON_DEVICE_ID)
				continue;
			if (snprintf(dev, sizeof dev, "%s/%s/features", path, e->d_name) >=
			    (int)sizeof dev)
				continue;
			if (pb_read_line(dev, text, sizeof text) == 0 &&
			    pb_virtio_feature_bit(text, BALLOON_F_REPORTING))
				out->active = 1;
		}
		closedir(d);
	}
	snprintf(path, sizeof path, "%s/module/page_reporting/parameters/page_reporting_order",
	         sys_root);
	long long order = read_ll(path);
	out->order = order >= 0 && order < 32 ? (int)order : -1;
	long page = sysconf(_SC_PAGESIZE);
	out->block_bytes = out->order >= 0 && page > 0 ? (uint64_t)page << out->order : 0;
	snprintf(path, sizeof path, "%s/module/page_reporting/parameters/reported_kib", sys_root);
	out->reported_kib = read_ll(path);
}

size_t pb_page_reporting_note(const struct pb_page_reporting *before,
                              const struct pb_page_reporting *after, char *out, size_t len)
{
	if (len)
		out[0] = '\0';
	if (!after || after->active != 1 || !len)
		return 0;
	char block[64] = "";
	if (after->block_bytes >= 1024) {
		unsigned long long kib = (unsigned long long)(after->block_bytes >> 10);
		if (kib >= 1024)
			snprintf(block, sizeof block, " (blocks of %llu MiB)", kib >> 10);
		else
			snprintf(block, sizeof block, " (blocks of %llu KiB)", kib);
	}
	char during[96];
	if (before && before->reported_kib >= 0 && after->reported_kib >= before->reported_kib)
		snprintf(during, sizeof during, "; %.0f MiB were reported during this run",
		         (double)(after->reported_kib - before->reported_kib) / 1024.0);
	else
		snprintf(during, sizeof during, "; this kernel does not count what it reports");
	int n = snprintf(out, len,
	                 "free page reporting to the hypervisor is on%s: the host drops the "
	                 "backing of free blocks, and a fresh page from one faults in the host "
	                 "too, so a large region's figure includes host faults a few recycled "
	                 "pages' do not%s",
	                 block, during);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}
