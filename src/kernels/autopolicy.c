/* autopolicy.c - where the auto kernels' policies come from: the policy
 * file `primbench tune` writes, else a built-in default per CPU
 * (include/primbench/auto.h).
 *
 * Allocation-free and without stdio streams: the preload library runs it
 * from its first call, before malloc may be usable. */
#include "primbench/auto.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/cpu.h"
#include "primbench/error.h"

/* The built-in defaults, tried in order; the first whose vendor matches
 * and whose policy parses with this machine's usable kernels serves.
 * Each row's note says where it came from: the command and machine of a
 * measured row, the analogy of one that was not. Their bounds are bytes,
 * not fractions of a cache size: the only cache figure a program's first
 * memset can read (cpuid, sysfs) is the one these guests get wrong (a
 * 2-vCPU guest shown its host's 480 MiB L3, from which glibc derives its
 * 181.5 MiB non-temporal threshold); `primbench tune` measures the machine
 * and writes bytes (docs/cli-grammar.md, "Why bounds are bytes").
 * docs/performance.md "auto and tune" has the measurements. Each
 * architecture's rows name its own kernels (arch_rows.h); generic is
 * everyone's last row. */
static const struct pb_auto_default_row defaults[] = {
#if defined(__x86_64__)
    {"intel-avx512",
     "GenuineIntel",
     {"avx512<=32K,rep_stosb<=8M,avx512_nt", "avx512<=32K,rep_movsb<=8M,avx512_nt", "avx512"},
     "measured on an Intel Xeon KVM guest (AVX-512, ERMS, FSRM), 2026-11-30: the policy of "
     "`primbench tune` (its defaults then: hot 16 B-24 MiB, dram above, budget 0.1 s), bounds "
     "rounded to powers of two (commit 1d48a50; the tune output itself was not kept)"},
    {"amd-avx512",
     "AuthenticAMD",
     {"avx512<=512,avx2<=16K,rep_stosb<=16M,avx512_nt",
      "avx512<=512,avx2<=4K,rep_movsb<=8M,avx512_nt", "avx512"},
     "measured on an AMD EPYC Zen 4 KVM guest (family 25 model 17, glibc 2.36), 2026-12-07: "
     "`primbench tune --ops memset,memcpy` (defaults; its policy: avx512 to 512 B, avx2 to "
     "16 KiB, rep to 5.9-6.6 MiB, non-temporal above), bounds rounded to powers of two, the "
     "rep bands to the 16 MiB (memset) and 8 MiB (memcpy) where non-temporal stores stopped "
     "losing to a cached buffer, memcpy's avx2 to 4 KiB where rep movsb stopped losing; "
     "each checked with `primbench mem OP --kernels auto,libc --sizes 16..64M/4 --cache "
     "hot,dram` in two processes (docs/performance.md); memmove by analogy, not measured"},
    {"x86-avx2",
     NULL,
     {"avx2<=32K,rep_stosb<=8M,avx2_nt", "avx2<=32K,rep_movsb<=8M,avx2_nt", "avx2"},
     "by analogy with intel-avx512 (32-byte vectors); not measured: run primbench tune"},
    {"x86-sse2",
     NULL,
     {"sse2<=2K,rep_stosb", "sse2<=2K,rep_movsb", "rep_movsb"},
     "glibc's own default shape before AVX2 (vectors below its 2 KiB rep threshold)"},
#elif defined(__aarch64__)
    {"arm64-mops",
     NULL,
     {"mops", "mops", "mops"},
     "glibc's choice where the CPU has FEAT_MOPS (sysdeps/aarch64/multiarch/*_mops.S: the "
     "CPU's own memset, memcpy and memmove at every size); not measured: run primbench tune"},
    {"arm64-neon",
     NULL,
     {"neon<=8M,neon_nt", "neon<=8M,neon_nt", "neon"},
     "by analogy with x86-avx2 (q-register stores, non-temporal above 8 MiB); not "
     "measured on arm64 hardware: run primbench tune"},
#endif
    {"generic",
     NULL,
     {"gpr_unrolled", "gpr_unrolled", "gpr_unrolled"},
     "the portable kernels: no architecture-specific kernel is usable"},
};

const struct pb_auto_default_row *pb_auto_defaults(size_t *count)
{
	*count = sizeof defaults / sizeof defaults[0];
	return defaults;
}

void pb_auto_default(enum pb_op op, pb_features have, struct pb_policy *out, const char **row_name)
{
	/* The architecture's own identification (cpuid): no /proc/cpuinfo
	 * stream, which would allocate inside a preloaded program's first call. */
	struct pb_cpu_ident id;
	pb_cpu_ident_arch(&id);
	size_t n = sizeof defaults / sizeof defaults[0];
	for (size_t i = 0; i < n; i++) {
		if (defaults[i].vendor && strcmp(defaults[i].vendor, id.vendor) != 0)
			continue;
		if (pb_policy_parse(op, defaults[i].policy[op], have, out) == 0) {
			if (row_name)
				*row_name = defaults[i].name;
			return;
		}
	}
	/* The generic row parses everywhere; reaching here is a table bug. */
	pb_policy_parse(op, "gpr_unrolled", (pb_features)-1, out);
	if (row_name)
		*row_name = "generic";
}

int pb_auto_path(char *buf, size_t len)
{
	const char *file = getenv("PRIMBENCH_POLICY_FILE");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int w;
	if (file && *file)
		w = snprintf(buf, len, "%s", file);
	else if (xdg && xdg[0] == '/') /* XDG Base Directory: relative values are ignored */
		w = snprintf(buf, len, "%s/primbench/policy", xdg);
	else if (home && *home)
		w = snprintf(buf, len, "%s/.config/primbench/policy", home);
	else {
		if (len)
			buf[0] = '\0';
		return pb_fail("no place for the policy file: neither PRIMBENCH_POLICY_FILE, "
		               "XDG_CONFIG_HOME nor HOME is set");
	}
	if (w < 0 || (size_t)w >= len)
		return pb_fail("the policy file's path is longer than %zu bytes", len - 1);
	return 0;
}

/* memchr and memcmp, written out: the preload library may import no mem*
 * function (tests/preload/check_preload_symbols.sh). */
static const char *find_char(const char *s, const char *e, char c)
{
	for (; s < e; s++)
		if (*s == c)
			return s;
	return NULL;
}

/* [s, s + n) is the NUL-terminated word w. */
static bool is_word(const char *s, size_t n, const char *w)
{
	size_t i = 0;
	for (; i < n && w[i]; i++)
		if (s[i] != w[i])
			return false;
	return i == n && !w[i];
}

static const char *const op_keys[PB_OP_COUNT] = {"memset", "memcpy", "memmove"};

/* [s, e) without blanks at either end. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t' || **s == '\r'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
		(*e)--;
}

int pb_auto_file_parse(const char *text, size_t len, const char *name, pb_features have,
                       struct pb_auto_file *out)
{
	struct pb_auto_file f;
	for (int op = 0; op < PB_OP_COUNT; op++)
		f.set[op] = false;
	f.cpu[0] = '\0';
	bool have_cpu = false;
	const char *p = text, *end = text + len;
	for (unsigned line = 1; p < end; line++) {
		const char *eol = find_char(p, end, '\n');
		if (!eol)
			eol = end;
		const char *s = p, *e = eol;
		p = eol < end ? eol + 1 : end;
		trim(&s, &e);
		if (s == e || *s == '#')
			continue;
		if (find_char(s, e, '\0'))
			return pb_fail("%s:%u: a NUL byte: not a policy file", name, line);
		const char *eq = find_char(s, e, '=');
		if (!eq)
			return pb_fail(
			    "%s:%u: expected 'KEY = VALUE' (memset, memcpy, memmove or cpu), "
			    "got '%.*s'",
			    name, line, (int)(e - s > 60 ? 60 : e - s), s);
		const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
		trim(&ks, &ke);
		trim(&vs, &ve);
		char value[PB_POLICY_TEXT_MAX];
		if ((size_t)(ve - vs) >= sizeof value)
			return pb_fail("%s:%u: value longer than %zu bytes", name, line,
			               sizeof value - 1);
		memcpy(value, vs, (size_t)(ve - vs));
		value[ve - vs] = '\0';
		size_t klen = (size_t)(ke - ks);
		if (is_word(ks, klen, "cpu")) {
			if (have_cpu)
				return pb_fail("%s:%u: cpu is set twice", name, line);
			have_cpu = true;
			size_t n =
			    strlen(value) < sizeof f.cpu - 1 ? strlen(value) : sizeof f.cpu - 1;
			/* A longer brand string is cut, and the cut trimmed as the
			 * value was (it would read back shorter when written again). */
			while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' ||
			                 value[n - 1] == '\r'))
				n--;
			memcpy(f.cpu, value, n);
			f.cpu[n] = '\0';
			continue;
		}
		int op = -1;
		for (int o = 0; o < PB_OP_COUNT; o++)
			if (is_word(ks, klen, op_keys[o]))
				op = o;
		if (op < 0)
			return pb_fail(
			    "%s:%u: unknown key '%.*s' (known: memset, memcpy, memmove, cpu)", name,
			    line, (int)(klen > 40 ? 40 : klen), ks);
		if (f.set[op])
			return pb_fail("%s:%u: %s is set twice", name, line, op_keys[op]);
		if (pb_policy_parse((enum pb_op)op, value, have, &f.policy[op]) != 0) {
			char why[300];
			snprintf(why, sizeof why, "%s", pb_error());
			return pb_fail("%s:%u: %s", name, line, why);
		}
		const struct pb_policy *pp = &f.policy[op];
		for (size_t b = 0; b < pp->n_bands; b++)
			if (!strcmp(pp->bands[b].kernel->name, "auto"))
				return pb_fail(
				    "%s:%u: %s: a policy for auto may not name auto itself", name,
				    line, op_keys[op]);
		f.set[op] = true;
	}
	*out = f;
	return 0;
}

int pb_auto_file_read(const char *path, pb_features have, struct pb_auto_file *out)
{
	static char text[64 * 1024 + 1]; /* not on the stack of a preloaded program's first call */
	/* O_NONBLOCK: a FIFO must not hang the program (the preload library
	 * reads this in every process); anything not a regular file is
	 * refused below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT) {
			for (int op = 0; op < PB_OP_COUNT; op++)
				out->set[op] = false;
			out->cpu[0] = '\0';
			return 0;
		}
		return pb_fail("%s: cannot read: %s", path, strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pb_fail("%s: not a regular file", path);
	}
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, text + len, sizeof text - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = errno;
			close(fd);
			return pb_fail("%s: cannot read: %s", path, strerror(err));
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len == sizeof text) {
			close(fd);
			return pb_fail("%s: longer than %zu bytes: not a policy file", path,
			               sizeof text - 1);
		}
	}
	close(fd);
	return pb_auto_file_parse(text, len, path, have, out) == 0 ? 1 : -1;
}

int pb_auto_setup(pb_features have, struct pb_auto_origin *origin)
{
	static struct pb_auto_file file; /* static: ~1 KiB per policy */
	struct pb_auto_origin o;
	o.path[0] = '\0';
	o.file_cpu[0] = '\0';
	int got = 0;
	if (pb_auto_path(o.path, sizeof o.path) == 0) {
		/* Every kernel of the table is accepted here; one this machine
		 * cannot run (hidden, or another CPU's) makes that op fall back
		 * to the default below, with the reason kept. */
		got = pb_auto_file_read(o.path, (pb_features)-1, &file);
		if (got < 0)
			return -1;
	}
	o.file_found = got > 0;
	if (got)
		memcpy(o.file_cpu, file.cpu, sizeof o.file_cpu);
	for (int op = 0; op < PB_OP_COUNT; op++) {
		static struct pb_policy def;
		const struct pb_policy *p;
		o.from_file[op] = got && file.set[op];
		o.unusable[op][0] = '\0';
		for (size_t b = 0; o.from_file[op] && b < file.policy[op].n_bands; b++) {
			const struct pb_kernel *k = file.policy[op].bands[b].kernel;
			char why[120];
			if (!pb_kernel_usable(k, have, why, sizeof why)) {
				snprintf(o.unusable[op], sizeof o.unusable[op], "%s: %s", k->name,
				         why);
				o.from_file[op] = false;
			}
		}
		o.default_row[op] = NULL;
		if (o.from_file[op]) {
			p = &file.policy[op];
		} else {
			pb_auto_default((enum pb_op)op, have, &def, &o.default_row[op]);
			p = &def;
		}
		if (pb_auto_install(p) != 0)
			return -1;
	}
	if (origin)
		*origin = o;
	return 0;
}
