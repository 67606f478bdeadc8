/* sysinfo.c - the facts about this system that change results besides the
 * CPU itself: microcode, kernel command line and mitigations, transparent
 * huge pages, the cpufreq governor, and glibc with the thresholds its
 * string functions use on this CPU. Readers take their paths as parameters
 * (tests point them at fixtures); pb_machine_facts_read()
 * (src/machine/machine.c) puts the results together, and results writes
 * them (src/results/machine_json.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "primbench/fingerprint.h"
#include "primbench/io.h"
#include "primbench/xalloc.h"

/* ---- small files --------------------------------------------------------- */

int pb_read_line(const char *path, char *out, size_t len)
{
	if (len)
		out[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f)) {
		int e = ferror(f) ? errno : 0;
		fclose(f);
		if (len)
			out[0] = '\0';
		if (!e)
			return 0; /* an empty file */
		errno = e;
		return -1;
	}
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

void pb_microcode_read(const char *cpuinfo_path, char *out, size_t len)
{
	snprintf(out, len, "unknown");
	FILE *f = fopen(cpuinfo_path, "re");
	if (!f)
		return;
	char line[1024];
	bool in_block = false;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '\n') {
			if (in_block)
				break; /* end of the first processor's block */
			continue;
		}
		in_block = true;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		char *key_end = colon;
		while (key_end > line && isspace((unsigned char)key_end[-1]))
			key_end--;
		if ((size_t)(key_end - line) != strlen("microcode") ||
		    strncmp(line, "microcode", (size_t)(key_end - line)))
			continue;
		char *val = colon + 1;
		while (isspace((unsigned char)*val))
			val++;
		val[strcspn(val, " \t\n")] = '\0';
		if (*val)
			snprintf(out, len, "%s", val);
		break;
	}
	fclose(f);
}

/* ---- kernel command line ------------------------------------------------- */

/* Parameter names compare with '-' and '_' alike, as the kernel's parameq(). */
static bool param_name_eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return false;
	}
	return true;
}

bool pb_cmdline_param(const char *cmdline, const char *name, char *out, size_t len)
{
	size_t nlen = strlen(name);
	bool found = false;
	if (len)
		out[0] = '\0';
	const char *p = cmdline;
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* One word, as the kernel's next_arg(): quotes group spaces. */
		const char *start = p;
		bool quoted = false;
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		size_t wlen = (size_t)(p - start);
		if (wlen == 2 && !strncmp(start, "--", 2))
			break; /* the rest is init's */
		if (wlen > nlen && start[nlen] == '=' && param_name_eq(start, name, nlen)) {
			size_t o = 0;
			for (const char *v = start + nlen + 1; v < p; v++)
				if (*v != '"' && o + 1 < len)
					out[o++] = *v;
			if (len)
				out[o] = '\0';
			found = true; /* keep going: the last one wins */
		}
	}
	return found;
}

/* ---- vulnerabilities ----------------------------------------------------- */

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int byte_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

void pb_named_texts_free(struct pb_named_texts *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->item[i].name);
		free(l->item[i].text);
	}
	free(l->item);
	l->item = NULL;
	l->n = 0;
}

int pb_vulnerabilities_read(const char *dir, struct pb_named_texts *out)
{
	out->item = NULL;
	out->n = 0;
	struct dirent **names;
	int n = scandir(dir, &names, not_dot, byte_order);
	if (n < 0)
		return -1;
	size_t cap = 0;
	for (int i = 0; i < n; i++) {
		char path[4096], text[512];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (pb_read_line(path, text, sizeof text) != 0)
				snprintf(text, sizeof text, "unknown (%s)", strerror(errno));
			char *name = strdup(names[i]->d_name), *value = strdup(text);
			if (name && value &&
			    pb_grow(&out->item, &cap, out->n, sizeof *out->item, 32) == 0) {
				out->item[out->n].name = name;
				out->item[out->n].text = value;
				out->n++;
			} else {
				free(name);
				free(value);
			}
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* ---- sysfs choices and cpufreq ------------------------------------------- */

void pb_bracketed_choice(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '[');
	const char *close = open ? strchr(open, ']') : NULL;
	if (!close || close == open + 1) {
		snprintf(out, len, "unknown");
		return;
	}
	snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
}

void pb_cpufreq_read(const char *cpu_dir, char *governor, size_t gov_len, char *driver,
                     size_t drv_len, char *why, size_t why_len)
{
	char dir[4096], path[4200];
	struct stat st;
	snprintf(dir, sizeof dir, "%s/cpufreq", cpu_dir);
	snprintf(governor, gov_len, "unknown");
	snprintf(driver, drv_len, "unknown");
	snprintf(why, why_len, "%s", "");
	if (stat(dir, &st) != 0) {
		snprintf(why, why_len,
		         "no %s: the kernel runs no cpufreq driver for this CPU (usual in a "
		         "virtual machine, where the host sets the clock)",
		         dir);
		return;
	}
	snprintf(path, sizeof path, "%s/scaling_driver", dir);
	if (pb_read_line(path, driver, drv_len) != 0 || !driver[0])
		snprintf(driver, drv_len, "unknown");
	snprintf(path, sizeof path, "%s/scaling_governor", dir);
	if (pb_read_line(path, governor, gov_len) != 0 || !governor[0]) {
		int e = errno;
		snprintf(governor, gov_len, "unknown");
		snprintf(why, why_len, "%s: %s (cpufreq driver %s)", path, strerror(e), driver);
	}
}

/* ---- glibc ----------------------------------------------------------------- */

static const char *const glibc_figure_names[PB_GLIBC_FIGURES] = {
    [PB_GLIBC_DATA_CACHE_SIZE] = "x86_data_cache_size",
    [PB_GLIBC_SHARED_CACHE_SIZE] = "x86_shared_cache_size",
    [PB_GLIBC_NON_TEMPORAL_THRESHOLD] = "x86_non_temporal_threshold",
    [PB_GLIBC_REP_MOVSB_THRESHOLD] = "x86_rep_movsb_threshold",
    [PB_GLIBC_REP_STOSB_THRESHOLD] = "x86_rep_stosb_threshold",
};

const char *pb_glibc_figure_name(enum pb_glibc_figure f)
{
	if ((unsigned)f >= PB_GLIBC_FIGURES)
		return "unknown";
	return glibc_figure_names[f];
}

/* Calls fn(line, length, arg) for every line of text (without its '\n'). */
static void each_line(const char *text, void (*fn)(const char *, size_t, void *), void *arg)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		fn(p, n, arg);
		p += n;
		if (*p == '\n')
			p++;
	}
}

/* The number in [v, end) ("0x840", "2048"), whole: false for an empty,
 * overlong or bad one. */
static bool diag_value(const char *v, const char *end, uint64_t *out)
{
	char num[32];
	size_t vn = (size_t)(end - v);
	if (vn == 0 || vn >= sizeof num)
		return false;
	memcpy(num, v, vn);
	num[vn] = '\0';
	char *e;
	errno = 0;
	unsigned long long x = strtoull(num, &e, 0);
	if (errno || *e || e == num)
		return false;
	*out = x;
	return true;
}

static void diag_line(const char *line, size_t n, void *arg)
{
	struct pb_glibc_diag *d = arg;
	static const char prefix[] = "x86.cpu_features.";
	static const char version[] = "version.version=";
	const char *eq = memchr(line, '=', n);
	if (!eq)
		return;
	if ((size_t)(eq - line) + 1 == strlen(version) &&
	    !strncmp(line, version, strlen(version))) {
		const char *v = eq + 1, *end = line + n;
		if (v < end && *v == '"')
			v++;
		if (end > v && end[-1] == '"')
			end--;
		snprintf(d->version, sizeof d->version, "%.*s", (int)(end - v), v);
		return;
	}
	if (n < strlen(prefix) || strncmp(line, prefix, strlen(prefix)))
		return;
	const char *key = line + strlen(prefix);
	static const char stop[] = "rep_movsb_stop_threshold";
	uint64_t v;
	if ((size_t)(eq - key) == strlen(stop) && !strncmp(key, stop, strlen(stop))) {
		if (diag_value(eq + 1, line + n, &v))
			d->rep_movsb_stop = v;
		return;
	}
	for (int i = 0; i < PB_GLIBC_FIGURES; i++) {
		const char *name = glibc_figure_names[i] + 4; /* without "x86_" */
		size_t k = strlen(name);
		if ((size_t)(eq - key) == k && !strncmp(key, name, k)) {
			if (!diag_value(eq + 1, line + n, &v))
				return;
			d->value[i] = v;
			d->known[i] = true;
		}
	}
}

int pb_glibc_diag_parse(const char *text, struct pb_glibc_diag *out)
{
	memset(out, 0, sizeof *out);
	each_line(text, diag_line, out);
	int n = 0;
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		n += out->known[i];
	return n;
}

struct tunables {
	struct pb_named_text *t;
	size_t n, cap;
};

static char *dup_trimmed(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* "glibc.cpu.x86_rep_movsb_threshold: 0x840 (min: 0x200, max: 0x...)" */
static void tunable_line(const char *line, size_t n, void *arg)
{
	struct tunables *ts = arg;
	const char *colon = memchr(line, ':', n);
	if (!colon || strncmp(line, "glibc.", 6))
		return;
	for (const char *p = line; p < colon; p++)
		if (isspace((unsigned char)*p))
			return;
	const char *v = colon + 1, *end = line + n;
	const char *range = NULL;
	for (const char *p = v; p + 6 <= end; p++)
		if (!strncmp(p, " (min:", 6)) {
			range = p;
			break;
		}
	if (range)
		end = range;
	if (pb_grow(&ts->t, &ts->cap, ts->n, sizeof *ts->t, 64) != 0)
		return;
	char *name = strndup(line, (size_t)(colon - line));
	char *value = dup_trimmed(v, (size_t)(end - v));
	if (!name || !value) {
		free(name);
		free(value);
		return;
	}
	ts->t[ts->n].name = name;
	ts->t[ts->n].text = value;
	ts->n++;
}

static int tunable_order(const void *a, const void *b)
{
	return strcmp(((const struct pb_named_text *)a)->name,
	              ((const struct pb_named_text *)b)->name);
}

size_t pb_glibc_tunables_parse(const char *text, struct pb_named_texts *out)
{
	struct tunables ts = {0};
	each_line(text, tunable_line, &ts);
	if (ts.n)
		qsort(ts.t, ts.n, sizeof *ts.t, tunable_order);
	out->item = ts.t;
	out->n = ts.n;
	return out->n;
}

uint64_t pb_glibc_tunable_min(const char *text, const char *name)
{
	size_t k = strlen(name);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > k && !strncmp(l, name, k) && l[k] == ':') {
			const char *m = memmem(l, n, "(min: ", 6);
			if (!m)
				return 0;
			char *end;
			errno = 0;
			unsigned long long v = strtoull(m + 6, &end, 0);
			return errno || end == m + 6 || (*end != ',' && *end != ')') ? 0 : v;
		}
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* The PT_INTERP of the main program: the first object dl_iterate_phdr
 * reports (dlpi_name ""). Reading our own mapped headers is the same as
 * reading /proc/self/exe's, without opening it. */
static int find_interp(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP) {
			const char *interp =
			    (const char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
			snprintf(data, 256, "%s", interp);
			break;
		}
	return 1; /* the main program only */
}

/* A loaded object named ld-*: the loader, also when the program was started
 * as `ld.so ./program`. */
static int find_loaded_loader(struct dl_phdr_info *info, size_t size, void *data)
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

static bool find_glibc_loader(char out[256])
{
	out[0] = '\0';
	dl_iterate_phdr(find_interp, out);
	if (out[0] && access(out, X_OK) == 0)
		return true;
	out[0] = '\0';
	dl_iterate_phdr(find_loaded_loader, out);
	if (out[0] && access(out, X_OK) == 0)
		return true;
	snprintf(out, 256, "/lib64/ld-linux-x86-64.so.2");
	if (access(out, X_OK) == 0)
		return true;
	out[0] = '\0';
	return false;
}

#define CAPTURE_MAX ((size_t)4 << 20)

/* Runs `path arg` with stdin and stderr on /dev/null, this environment, no
 * shell. Returns its standard output (NUL-terminated, malloc'd) when it
 * exited with status 0, else NULL and a reason in why. */
static char *run_capture(const char *path, const char *arg, char *why, size_t why_len)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(why, why_len, "cannot run '%s %s': %s", path, arg, strerror(errno));
		return NULL;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	char *argv[] = {(char *)path, (char *)arg, NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		snprintf(why, why_len, "cannot run '%s %s': %s", path, arg, strerror(rc));
		return NULL;
	}
	/* at most CAPTURE_MAX - 1 bytes: the figures come long before */
	char *buf = pb_read_fd_all(fds[0], CAPTURE_MAX - 1, NULL);
	close(fds[0]); /* a child still writing gets SIGPIPE */
	int status = -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (!buf) {
		snprintf(why, why_len, "out of memory reading '%s %s'", path, arg);
		return NULL;
	}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (status != -1 && WIFEXITED(status))
			snprintf(why, why_len, "'%s %s' exited with status %d", path, arg,
			         WEXITSTATUS(status));
		else if (status != -1 && WIFSIGNALED(status))
			snprintf(why, why_len, "'%s %s' was killed by signal %d", path, arg,
			         WTERMSIG(status));
		else
			snprintf(why, why_len, "'%s %s': no exit status", path, arg);
		free(buf);
		return NULL;
	}
	return buf;
}

int pb_glibc_diag_same_glibc(const struct pb_glibc_diag *d, const char *own, char *note,
                             size_t note_len)
{
	if (!d->version[0] || !strcmp(d->version, own))
		return 0;
	snprintf(note, note_len,
	         "the loader found runs glibc %s, this program glibc %s (a static build): its "
	         "thresholds are not this program's",
	         d->version, own);
	return -1;
}

void pb_glibc_read(struct pb_glibc_info *out)
{
	memset(out, 0, sizeof *out);
#ifdef __GLIBC__
	snprintf(out->version, sizeof out->version, "%s", gnu_get_libc_version());
	snprintf(out->release, sizeof out->release, "%s", gnu_get_libc_release());
#else
	snprintf(out->version, sizeof out->version, "unknown");
	snprintf(out->release, sizeof out->release, "unknown");
#endif
	if (!find_glibc_loader(out->loader)) {
		snprintf(out->note, sizeof out->note,
		         "no dynamic loader found (a static build, or not glibc)");
		return;
	}
	char why[300] = "";
	char *text = run_capture(out->loader, "--list-diagnostics", why, sizeof why);
	if (!text) {
		snprintf(out->note, sizeof out->note,
		         "%.300s (--list-diagnostics exists since glibc 2.33)", why);
		return;
	}
	int n = pb_glibc_diag_parse(text, &out->diag);
	free(text);
	if (pb_glibc_diag_same_glibc(&out->diag, out->version, out->note, sizeof out->note) != 0) {
		memset(&out->diag, 0, sizeof out->diag);
		out->loader[0] = '\0';
		return;
	}
	if (n == 0) {
		snprintf(out->note, sizeof out->note,
		         "ld.so --list-diagnostics gave no x86.cpu_features thresholds (not x86)");
		return;
	}
	for (int i = 0; i < PB_GLIBC_FIGURES; i++)
		if (!out->diag.known[i]) {
			snprintf(out->note, sizeof out->note,
			         "ld.so --list-diagnostics gave no x86.cpu_features.%s",
			         glibc_figure_names[i] + 4);
			break;
		}
	/* the lowest x86_rep_movsb_threshold glibc accepts (8 x its vector size) */
	char why2[300];
	text = run_capture(out->loader, "--list-tunables", why2, sizeof why2);
	if (text) {
		out->diag.rep_movsb_min =
		    pb_glibc_tunable_min(text, "glibc.cpu.x86_rep_movsb_threshold");
		free(text);
	}
}

int pb_glibc_tunables_read(const char *loader, struct pb_named_texts *out, char *why,
                           size_t why_len)
{
	out->item = NULL;
	out->n = 0;
	snprintf(why, why_len, "%s", "");
	if (!loader || !loader[0]) {
		snprintf(why, why_len, "no dynamic loader found (a static build, or not glibc)");
		return -1;
	}
	char *text = run_capture(loader, "--list-tunables", why, why_len);
	if (!text) {
		size_t n = strlen(why);
		snprintf(why + n, why_len - n, " (--list-tunables exists since glibc 2.33)");
		return -1;
	}
	pb_glibc_tunables_parse(text, out);
	free(text);
	if (out->n == 0) {
		pb_named_texts_free(out);
		snprintf(why, why_len, "'%s --list-tunables' printed no tunables", loader);
		return -1;
	}
	return 0;
}
