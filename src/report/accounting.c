/* accounting.c - reading, summing and reporting the accounting files of
 * libprimswitch.so (include/primbench/accounting.h; the format is
 * include/primbench/account.h). Depends on nothing of src/preload/. */
#define _GNU_SOURCE
#include "primbench/accounting.h"
#include "primbench/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/results.h"
#include "primbench/sizes.h"
#include "primbench/text.h"

/* The fields a reader checks before trusting the rest. */
#define HEAD_BYTES (offsetof(struct pb_acct_file, size_bytes) + sizeof(uint32_t))

static const char *const prim_names[PB_ACCT_NPRIM + 1] = {
    "memset", "bzero", "explicit_bzero", "memcpy", "mempcpy", "memmove", "all",
};

static const struct {
	const char *label;
	unsigned lo, hi;
} classes[PB_ACCT_NCLASSES] = {
    {"0", 0, 0},           {"1..15", 1, 4},       {"16..63", 5, 6},
    {"64..255", 7, 8},     {"256..1023", 9, 10},  {"1K..4K-1", 11, 12},
    {"4K..64K-1", 13, 16}, {"64K..1M-1", 17, 20}, {">=1M", 21, PB_ACCT_BUCKETS - 1},
};

const char *pb_acct_prim_name(int prim)
{
	return prim >= 0 && prim <= PB_ACCT_NPRIM ? prim_names[prim] : NULL;
}

const char *pb_acct_class(int c, unsigned *lo_bucket, unsigned *hi_bucket)
{
	if (c < 0 || c >= PB_ACCT_NCLASSES)
		return NULL;
	if (lo_bucket)
		*lo_bucket = classes[c].lo;
	if (hi_bucket)
		*hi_bucket = classes[c].hi;
	return classes[c].label;
}

void pb_acct_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	if (b == 0) {
		*lo = *hi = 0;
		return;
	}
	*lo = UINT64_C(1) << (b - 1);
	*hi = b >= 64 ? UINT64_MAX : (UINT64_C(1) << b) - 1;
}

double pb_acct_bucket_est_ticks(const struct pb_acct_bucket *b)
{
	if (b->calls == 0)
		return 0;
	if (b->sampled_calls == 0)
		return NAN;
	return (double)b->sampled_ticks * ((double)b->calls / (double)b->sampled_calls);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void bucket_add(struct pb_acct_bucket *to, const struct pb_acct_bucket *b)
{
	to->calls = sat_add(to->calls, b->calls);
	to->bytes = sat_add(to->bytes, b->bytes);
	to->sampled_calls = sat_add(to->sampled_calls, b->sampled_calls);
	/* Above INT64_MAX: the timed calls' differences summed below 0
	 * (modulo 2^64; account.h): they took less than the pair's mean. */
	if (b->sampled_ticks <= (uint64_t)INT64_MAX)
		to->sampled_ticks = sat_add(to->sampled_ticks, b->sampled_ticks);
}

void pb_acct_share_bounds(const struct pb_acct_est *e, double overhead_ticks, double tsc_hz,
                          double cpu_time_s, double *share_pct, double *min_pct)
{
	*share_pct = *min_pct = NAN;
	if (isnan(e->ticks) || !(tsc_hz > 0) || !(cpu_time_s > 0))
		return;
	double scale = 100.0 / tsc_hz / cpu_time_s;
	double over = overhead_ticks > 0 ? overhead_ticks : 0;
	double lo = e->ticks - over * (double)e->calls_estimated;
	*share_pct = e->ticks * scale;
	*min_pct = (lo > 0 ? lo : 0) * scale;
}

void pb_acct_estimate(const struct pb_acct_total *t, int prim, unsigned lo, unsigned hi,
                      struct pb_acct_est *out)
{
	memset(out, 0, sizeof *out);
	if (prim < 0 || prim > PB_ACCT_NPRIM)
		return;
	if (hi >= PB_ACCT_BUCKETS)
		hi = PB_ACCT_BUCKETS - 1;
	int p0 = prim == PB_ACCT_NPRIM ? 0 : prim,
	    p1 = prim == PB_ACCT_NPRIM ? PB_ACCT_NPRIM - 1 : prim;
	for (unsigned k = lo; k <= hi; k++) {
		/* Pooled over the files, and over the primitives for "all"
		 * (each primitive's bucket estimated on its own). */
		for (int p = p0; p <= p1; p++) {
			const struct pb_acct_bucket *b = &t->prim[p].bucket[k];
			out->calls = sat_add(out->calls, b->calls);
			out->bytes = sat_add(out->bytes, b->bytes);
			out->sampled_calls = sat_add(out->sampled_calls, b->sampled_calls);
			if (b->calls == 0)
				continue;
			double e = pb_acct_bucket_est_ticks(b);
			if (isnan(e)) {
				out->calls_unestimated = sat_add(out->calls_unestimated, b->calls);
			} else {
				out->ticks += e;
				out->calls_estimated = sat_add(out->calls_estimated, b->calls);
			}
		}
	}
	if (out->calls > 0 && out->calls_estimated == 0)
		out->ticks = NAN;
}

/* Reads up to len bytes at offset 0; the count read, or -1 with errno. */
static ssize_t read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static int check_file(const char *path, const unsigned char *buf, size_t got)
{
	const size_t want = sizeof(struct pb_acct_file);
	static const unsigned char zero[8];
	if (got == 0)
		return pb_fail(
		    "%s: incomplete: empty (its process may have died while creating it)", path);
	size_t m = got < 8 ? got : 8;
	if (memcmp(buf, zero, m) == 0)
		return pb_fail(
		    "%s: incomplete: no magic yet (its process may have died while creating it)",
		    path);
	if (memcmp(buf, PB_ACCT_MAGIC, m) != 0)
		return pb_fail("%s: not a primswitch accounting file (bad magic)", path);
	if (got < HEAD_BYTES)
		return pb_fail("%s: truncated accounting file (%zu bytes, expected %zu)", path, got,
		               want);
	uint32_t version, size_bytes;
	memcpy(&version, buf + offsetof(struct pb_acct_file, version), sizeof version);
	memcpy(&size_bytes, buf + offsetof(struct pb_acct_file, size_bytes), sizeof size_bytes);
	if (version == 0) /* magic and version are written last, maybe in that order */
		return pb_fail(
		    "%s: incomplete: no version yet (its process may have died while creating it)",
		    path);
	if (version != PB_ACCT_VERSION)
		return pb_fail("%s: accounting file version %" PRIu32
		               "; this primbench reads version %u",
		               path, version, PB_ACCT_VERSION);
	if (got < want)
		return pb_fail("%s: truncated accounting file (%zu bytes, expected %zu)", path, got,
		               want);
	if (got > want)
		return pb_fail("%s: accounting file of more than %zu bytes, expected %zu", path,
		               want, want);
	if (size_bytes != want)
		return pb_fail("%s: accounting file says it has %" PRIu32 " bytes, expected %zu",
		               path, size_bytes, want);
	return 0;
}

int pb_acct_read_file(const char *path, struct pb_acct_file *out)
{
	/* O_NONBLOCK: a FIFO of that name must not block the reader. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return pb_fail("%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return pb_fail("%s: cannot stat: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return pb_fail("%s: not a primswitch accounting file (not a regular file)", path);
	}
	/* One byte more than a file has, to see a larger one. */
	const size_t want = sizeof(struct pb_acct_file);
	unsigned char *buf = malloc(want + 1);
	if (!buf) {
		close(fd);
		return pb_fail("%s: out of memory", path);
	}
	ssize_t got = read_all(fd, buf, want + 1);
	int e = errno;
	close(fd);
	int rc;
	if (got < 0)
		rc = pb_fail("%s: cannot read: %s", path, strerror(e));
	else
		rc = check_file(path, buf, (size_t)got);
	if (rc == 0) {
		memcpy(out, buf, want);
		out->exe[PB_ACCT_TEXT - 1] = '\0';
		for (int i = 0; i < 3; i++)
			out->policy[i][PB_ACCT_TEXT - 1] = '\0';
	}
	free(buf);
	return rc;
}

void pb_acct_add(struct pb_acct_total *t, const struct pb_acct_file *f)
{
	t->processes++;
	if (f->forked)
		t->forked++;
	if (!f->policy_ok)
		t->policy_failed++;
	if (f->ticks) {
		t->ticks_processes++;
		if (f->timer_overhead_ticks > t->timer_overhead_ticks_max)
			t->timer_overhead_ticks_max = f->timer_overhead_ticks;
		unsigned i = 0;
		while (i < t->n_rate && t->rate[i].sample_every != f->sample_every)
			i++;
		if (i < t->n_rate) {
			t->rate[i].processes++;
		} else if (t->n_rate < PB_ACCT_MAX_RATES) {
			t->rate[t->n_rate].sample_every = f->sample_every;
			t->rate[t->n_rate++].processes = 1;
		} else {
			t->rate_other++;
		}
	}

	size_t len = strnlen(f->exe, PB_ACCT_TEXT - 1);
	unsigned i = 0;
	while (i < t->n_exe &&
	       !(strlen(t->exe[i].path) == len && memcmp(t->exe[i].path, f->exe, len) == 0))
		i++;
	if (i < t->n_exe) {
		t->exe[i].processes++;
	} else if (t->n_exe < PB_ACCT_MAX_EXES) {
		memcpy(t->exe[t->n_exe].path, f->exe, len);
		t->exe[t->n_exe].path[len] = '\0';
		t->exe[t->n_exe++].processes = 1;
	} else {
		t->exe_other++;
	}

	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		struct pb_acct_prim_counts *to = &t->prim[p];
		const struct pb_acct_prim_counts *c = &f->prim[p];
		to->calls = sat_add(to->calls, c->calls);
		to->bytes = sat_add(to->bytes, c->bytes);
		for (int k = 0; k < PB_ACCT_BUCKETS; k++)
			bucket_add(&to->bucket[k], &c->bucket[k]);
	}
}

static int acct_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name), np = strlen(PB_ACCT_FILE_PREFIX),
	       ns = strlen(PB_ACCT_FILE_SUFFIX);
	return n > np + ns && strncmp(d->d_name, PB_ACCT_FILE_PREFIX, np) == 0 &&
	       strcmp(d->d_name + n - ns, PB_ACCT_FILE_SUFFIX) == 0;
}

static void skip(struct pb_acct_total *t, const char *why)
{
	if (t->skipped < PB_ACCT_MAX_NOTES)
		snprintf(t->skip_note[t->skipped], PB_ACCT_NOTE_LEN, "%s", why);
	t->skipped++;
}

int pb_acct_read_dir(const char *dir, struct pb_acct_total *t)
{
	struct dirent **names;
	int n = scandir(dir, &names, acct_name, alphasort);
	if (n < 0)
		return pb_fail("%s: cannot read accounting directory: %s", dir, strerror(errno));
	struct pb_acct_file *f = malloc(sizeof *f);
	if (!f) {
		for (int i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return pb_fail("%s: out of memory", dir);
	}
	int added = 0;
	for (int i = 0; i < n; i++) {
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0) {
			path = NULL;
			pb_fail("%s/%s: out of memory", dir, names[i]->d_name);
			skip(t, pb_error());
		} else if (pb_acct_read_file(path, f) != 0) {
			skip(t, pb_error());
		} else {
			pb_acct_add(t, f);
			added++;
		}
		free(path);
		free(names[i]);
	}
	free(names);
	free(f);
	return added;
}

/* --- text ---------------------------------------------------------------- */

/* A count: exact below 1e8, else e-notation. */
static void fmt_count(char *buf, size_t len, uint64_t v)
{
	if (v < 100000000u)
		snprintf(buf, len, "%" PRIu64, v);
	else
		pb_format_sig3(buf, len, (double)v);
}

/* Three significant figures of v in its own unit. */
static void fmt_3(char *buf, size_t len, double v, const char *unit)
{
	if (v >= 99.95)
		snprintf(buf, len, "%.0f %s", v, unit);
	else if (v >= 9.995)
		snprintf(buf, len, "%.1f %s", v, unit);
	else
		snprintf(buf, len, "%.2f %s", v, unit);
}

static void fmt_time(char *buf, size_t len, double s)
{
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (s == 0)
		snprintf(buf, len, "0 s");
	else if (s >= 1e7) { /* "1.00e7 s": the column holds 10 (a corrupt file's figures) */
		pb_format_sig3(buf, len - 2, s);
		strcat(buf, " s");
	} else if (s >= 0.9995)
		fmt_3(buf, len, s, "s");
	else if (s >= 0.9995e-3)
		fmt_3(buf, len, s * 1e3, "ms");
	else if (s >= 0.9995e-6)
		fmt_3(buf, len, s * 1e6, "us");
	else
		fmt_3(buf, len, s * 1e9, "ns");
}

static void fmt_pct(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p > 0 && p < 0.05)
		snprintf(buf, len, "<0.1%%");
	else if (p < 99999.95)
		snprintf(buf, len, "%.1f%%", p);
	else if (p < 1e7) /* the %cpu column holds 8 */
		snprintf(buf, len, "%.0f%%", p);
	else {
		pb_format_sig3(buf, len - 1, p);
		strcat(buf, "%");
	}
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

static bool known(double v)
{
	return !isnan(v) && v > 0;
}

/* Appends a '+' (a lower bound) to a figure that is not "-". */
static void mark(char *buf, size_t len, bool lower_bound)
{
	size_t n = strlen(buf);
	if (lower_bound && strcmp(buf, "-") != 0 && n + 1 < len) {
		buf[n] = '+';
		buf[n + 1] = '\0';
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return path[0] == '\0' ? "?" : s && s[1] ? s + 1 : path;
}

/* A growing string for pb_print_wrapped_at(). */
struct text {
	char buf[4096];
	size_t n;
};

static void add(struct text *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *x, const char *fmt, ...)
{
	if (x->n >= sizeof x->buf - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(x->buf + x->n, sizeof x->buf - x->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		x->n += (size_t)k < sizeof x->buf - x->n ? (size_t)k : sizeof x->buf - x->n - 1;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void reset(struct text *x)
{
	x->n = 0;
	x->buf[0] = '\0';
}

static void print_header(FILE *f, const struct pb_acct_total *t, double tsc_hz)
{
	struct text x = {.n = 0};
	add(&x, "accounting: %" PRIu64 " %s", t->processes, plural(t->processes, "file", "files"));
	if (t->processes > 0)
		add(&x, ", one per process image (%" PRIu64 " exec'd, %" PRIu64 " forked %s)",
		    t->processes - t->forked, t->forked, plural(t->forked, "child", "children"));
	pb_print_wrapped_at(f, 0, 2, x.buf);

	if (t->n_exe > 0) {
		/* By processes, most first (stable: first seen first). */
		unsigned order[PB_ACCT_MAX_EXES];
		for (unsigned i = 0; i < t->n_exe; i++) {
			unsigned j = i;
			while (j > 0 && t->exe[order[j - 1]].processes < t->exe[i].processes) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = i;
		}
		reset(&x);
		add(&x, "programs:");
		for (unsigned i = 0; i < t->n_exe; i++)
			add(&x, " %s %" PRIu64 "%s", base_name(t->exe[order[i]].path),
			    t->exe[order[i]].processes,
			    i + 1 < t->n_exe || t->exe_other ? "," : "");
		if (t->exe_other)
			add(&x, " others %" PRIu64, t->exe_other);
		pb_print_wrapped_at(f, 2, 4, x.buf);
	}

	reset(&x);
	if (t->ticks_processes == 0) {
		add(&x, "timed: no (PRIMBENCH_ACCOUNT=1 counts calls and bytes; =ticks also "
		        "times sampled calls)");
	} else {
		add(&x, "timed: the 1st call, then 1 in ");
		for (unsigned i = 0; i < t->n_rate; i++) {
			if (t->n_rate == 1 && !t->rate_other)
				add(&x, "%" PRIu32, t->rate[i].sample_every);
			else
				add(&x, "%s%" PRIu32 " (%" PRIu64 " %s)", i ? ", " : "",
				    t->rate[i].sample_every, t->rate[i].processes,
				    plural(t->rate[i].processes, "process", "processes"));
		}
		if (t->rate_other)
			add(&x, ", other (%" PRIu64 ")", t->rate_other);
		add(&x, " per thread and size bucket");
		if (t->ticks_processes < t->processes)
			add(&x,
			    ", in %" PRIu64 " of the %" PRIu64
			    " processes (the others counted only)",
			    t->ticks_processes, t->processes);
		if (known(tsc_hz))
			add(&x, "; TSC %.1f MHz", tsc_hz / 1e6);
		else
			add(&x, "; TSC frequency unknown: no times");
	}
	pb_print_wrapped_at(f, 2, 4, x.buf);

	if (t->policy_failed) {
		reset(&x);
		add(&x,
		    "warning: %" PRIu64 " %s could not use %s policies (PRIMBENCH_MEMSET, "
		    "_MEMCPY, _MEMMOVE): libc's functions served %s calls, counted here too",
		    t->policy_failed, plural(t->policy_failed, "process", "processes"),
		    plural(t->policy_failed, "its", "their"),
		    plural(t->policy_failed, "its", "their"));
		pb_print_wrapped_at(f, 2, 4, x.buf);
	}
	if (t->skipped) {
		fprintf(f, "  skipped %" PRIu64 " %s named like accounting files:\n", t->skipped,
		        plural(t->skipped, "file", "files"));
		for (uint64_t i = 0; i < t->skipped && i < PB_ACCT_MAX_NOTES; i++)
			pb_print_wrapped_at(f, 4, 6, t->skip_note[i]);
		if (t->skipped > PB_ACCT_MAX_NOTES)
			fprintf(f, "    and %" PRIu64 " more\n", t->skipped - PB_ACCT_MAX_NOTES);
	}
}

/* One row of the primitive table. */
static void print_prim_row(FILE *f, const char *name, uint64_t calls, uint64_t bytes,
                           const struct pb_acct_est *e, double tsc_hz, double cpu_time_s)
{
	char c[32], b[32], m[32], tk[32], tm[32], sh[32];
	fmt_count(c, sizeof c, calls);
	pb_format_bytes(b, sizeof b, (double)bytes, PB_BYTES_FIG3);
	double mean = calls ? (double)bytes / (double)calls : NAN;
	if (isnan(mean)) {
		snprintf(m, sizeof m, "-");
	} else if (mean < 1024) {
		pb_format_sig3(m, sizeof m - 2, mean);
		strcat(m, " B");
	} else {
		pb_format_bytes(m, sizeof m, mean, PB_BYTES_FIG3);
	}
	bool lower = e->calls_unestimated > 0;
	pb_format_sig3(tk, sizeof tk, e->ticks);
	double s = known(tsc_hz) ? e->ticks / tsc_hz : NAN;
	fmt_time(tm, sizeof tm, s);
	fmt_pct(sh, sizeof sh, known(cpu_time_s) ? pct(s, cpu_time_s) : NAN);
	mark(tk, sizeof tk, lower);
	mark(tm, sizeof tm, lower);
	mark(sh, sizeof sh, lower);
	fprintf(f, "%-14s %10s %10s %10s %11s %10s %8s\n", name, c, b, m, tk, tm, sh);
}

static void print_sizes(FILE *f, const struct pb_acct_total *t, int p, int flags)
{
	struct pb_acct_est all;
	pb_acct_estimate(t, p, 0, PB_ACCT_BUCKETS - 1, &all);
	fprintf(f, "%-14s %10s %7s %7s %7s %11s %9s\n", pb_acct_prim_name(p), "calls", "calls%",
	        "bytes%", "time%", "ticks/call", "timed");
	bool buckets = flags & PB_ACCT_PRINT_BUCKETS;
	int rows = buckets ? PB_ACCT_BUCKETS : PB_ACCT_NCLASSES;
	for (int r = 0; r < rows; r++) {
		unsigned lo = (unsigned)r, hi = (unsigned)r;
		char label[64];
		if (buckets) {
			uint64_t a, z;
			pb_acct_bucket_range((unsigned)r, &a, &z);
			char sa[24], sz[24];
			pb_format_bytes(sa, sizeof sa, a, PB_BYTES_EXACT);
			if (r == 0)
				snprintf(label, sizeof label, "0");
			else if (r == 1)
				snprintf(label, sizeof label, "1");
			else if (r == 64)
				snprintf(label, sizeof label, ">=%s", sa);
			else if (r > 11) {
				pb_format_bytes(sz, sizeof sz, z + 1, PB_BYTES_EXACT);
				snprintf(label, sizeof label, "%s..%s-1", sa, sz);
			} else {
				snprintf(label, sizeof label, "%s..%" PRIu64, sa, z);
			}
		} else {
			const char *cl = pb_acct_class(r, &lo, &hi);
			snprintf(label, sizeof label, "%s", cl ? cl : "?");
		}
		struct pb_acct_est e;
		pb_acct_estimate(t, p, lo, hi, &e);
		if (e.calls == 0)
			continue;
		char c[32], cp[16], bp[16], tp[16], tpc[32], sc[32];
		fmt_count(c, sizeof c, e.calls);
		fmt_pct(cp, sizeof cp, pct((double)e.calls, (double)all.calls));
		fmt_pct(bp, sizeof bp, pct((double)e.bytes, (double)all.bytes));
		fmt_pct(tp, sizeof tp,
		        known(all.ticks) && !isnan(e.ticks) ? pct(e.ticks, all.ticks) : NAN);
		pb_format_sig3(tpc, sizeof tpc,
		               e.calls_estimated ? e.ticks / (double)e.calls_estimated : NAN);
		fmt_count(sc, sizeof sc, e.sampled_calls);
		mark(tp, sizeof tp, e.calls_unestimated > 0);
		fprintf(f, "  %-12s %10s %7s %7s %7s %11s %9s\n", label, c, cp, bp, tp, tpc, sc);
	}
}

void pb_acct_print(FILE *f, const struct pb_acct_total *t, double tsc_hz, double cpu_time_s,
                   int flags)
{
	print_header(f, t, tsc_hz);
	uint64_t calls = 0;
	for (int p = 0; p < PB_ACCT_NPRIM; p++)
		calls = sat_add(calls, t->prim[p].calls);
	if (calls == 0) {
		pb_print_wrapped_at(
		    f, 2, 4,
		    "no call was counted (were the programs statically linked, did they drop "
		    "LD_PRELOAD, or was accounting off?)");
	} else {
		fputc('\n', f);
		fprintf(f, "%-14s %10s %10s %10s %11s %10s %8s\n", "primitive", "calls", "bytes",
		        "bytes/call", "est. ticks", "est. time", "%cpu");
		uint64_t bytes = 0;
		int shown = 0;
		for (int p = 0; p < PB_ACCT_NPRIM; p++) {
			if (t->prim[p].calls == 0)
				continue;
			struct pb_acct_est e;
			pb_acct_estimate(t, p, 0, PB_ACCT_BUCKETS - 1, &e);
			print_prim_row(f, pb_acct_prim_name(p), t->prim[p].calls, t->prim[p].bytes,
			               &e, tsc_hz, cpu_time_s);
			bytes = sat_add(bytes, t->prim[p].bytes);
			shown++;
		}
		if (shown > 1) {
			struct pb_acct_est e;
			pb_acct_estimate(t, PB_ACCT_NPRIM, 0, PB_ACCT_BUCKETS - 1, &e);
			print_prim_row(f, "all", calls, bytes, &e, tsc_hz, cpu_time_s);
		}
		fputc('\n', f);
		fprintf(f, "by size (bytes; %% of the primitive's calls, bytes and est. time)\n");
		for (int p = 0; p < PB_ACCT_NPRIM; p++) {
			bool any = false;
			for (int k = 0; k < PB_ACCT_BUCKETS && !any; k++)
				any = t->prim[p].bucket[k].calls > 0;
			if (any)
				print_sizes(f, t, p, flags);
		}
	}

	/* Notes that depend on the data. */
	struct text x = {.n = 0};
	bool lower = false;
	int blank = 0;
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		struct pb_acct_est e;
		pb_acct_estimate(t, p, 0, PB_ACCT_BUCKETS - 1, &e);
		if (t->ticks_processes && e.calls_unestimated && !isnan(e.ticks))
			lower = true;
		if (e.calls != t->prim[p].calls || e.bytes != t->prim[p].bytes) {
			reset(&x);
			add(&x,
			    "note: %s: %" PRIu64 " calls (%" PRIu64 " bytes) counted but %" PRIu64
			    " (%" PRIu64 ") in the size buckets (a snapshot of a process still "
			    "running?)",
			    pb_acct_prim_name(p), t->prim[p].calls, t->prim[p].bytes, e.calls,
			    e.bytes);
			if (!blank++)
				fputc('\n', f);
			pb_print_wrapped_at(f, 0, 2, x.buf);
		}
	}
	if (calls > 0 && t->ticks_processes && lower) {
		if (!blank++)
			fputc('\n', f);
		pb_print_wrapped_at(f, 0, 2,
		                    "+ a lower bound: some calls are in size buckets where no call "
		                    "was timed (their time is unknown, not 0); - unknown: no call "
		                    "timed");
	}
	if (calls > 0 && t->ticks_processes && known(tsc_hz) && known(cpu_time_s)) {
		char ct[32];
		fmt_time(ct, sizeof ct, cpu_time_s);
		reset(&x);
		add(&x, "%%cpu: est. time over the command's user+sys time (%s, every run)", ct);
		pb_print_wrapped_at(f, 0, 2, x.buf);
	}
	if (flags & PB_ACCT_PRINT_NO_CAVEATS)
		return;
	fputc('\n', f);
	pb_print_wrapped_at(
	    f, 0, 0,
	    "How to read it: calls and bytes are exact counts of the calls that reached "
	    "libprimswitch.so, over every process image the command started (each fork child "
	    "and each exec counts as one process). With PRIMBENCH_ACCOUNT=ticks the first call and "
	    "then one in N per thread and size bucket are timed with the TSC (the read pair's "
	    "overhead subtracted): est. ticks, "
	    "est. time and %cpu are sampled estimates (a size bucket's timed calls' mean times "
	    "its calls), coarse for calls that take about as long as the timer's step. TSC "
	    "ticks are reference cycles at the TSC frequency, not core cycles.");
	pb_print_wrapped_at(
	    f, 0, 0,
	    "Not seen: calls made inside libc itself (printf, qsort, libc's own use of memcpy), "
	    "statically linked programs, and programs that ignore LD_PRELOAD (set-user-ID "
	    "ones).");
}

/* --- the result file's record ------------------------------------------ */

/* share: also cpu_pct and cpu_pct_min (pb_acct_share_bounds with
 * overhead_ticks). */
static void est_record(struct pb_acct_est_record *o, const struct pb_acct_est *e, double tsc_hz,
                       double cpu_time_s, bool share, double overhead_ticks)
{
	double s = known(tsc_hz) ? e->ticks / tsc_hz : NAN;
	*o = (struct pb_acct_est_record){
	    .calls = e->calls,
	    .bytes = e->bytes,
	    .sampled_calls = e->sampled_calls,
	    .est_ticks = e->ticks,
	    .est_s = s,
	    .share = share,
	    .cpu_pct = NAN,
	    .cpu_pct_min = NAN,
	    .calls_unestimated = e->calls_unestimated,
	};
	if (share) {
		o->cpu_pct = known(cpu_time_s) ? pct(s, cpu_time_s) : NAN;
		double sh;
		pb_acct_share_bounds(e, overhead_ticks, tsc_hz, cpu_time_s, &sh, &o->cpu_pct_min);
	}
}

void pb_acct_tables(const struct pb_acct_total *t, double tsc_hz, double cpu_time_s,
                    struct pb_acct_tables *out)
{
	memset(out, 0, sizeof *out);
	out->total = t;
	out->tsc_hz = known(tsc_hz) ? tsc_hz : NAN;
	out->cpu_time_s = known(cpu_time_s) ? cpu_time_s : NAN;
	out->timer_overhead_ticks = t->ticks_processes ? t->timer_overhead_ticks_max : NAN;
	for (unsigned k = 0; k < PB_ACCT_BUCKETS; k++)
		pb_acct_bucket_range(k, &out->bucket_min[k], &out->bucket_max[k]);
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		struct pb_acct_est e;
		out->prim_name[p] = pb_acct_prim_name(p);
		pb_acct_estimate(t, p, 0, PB_ACCT_BUCKETS - 1, &e);
		est_record(&out->prim[p].est, &e, tsc_hz, cpu_time_s, true,
		           t->timer_overhead_ticks_max);
		for (int k = 0; k < PB_ACCT_NCLASSES; k++) {
			struct pb_acct_class_record *co = &out->prim[p].cls[k];
			unsigned lo, hi;
			uint64_t dummy;
			co->label = pb_acct_class(k, &lo, &hi);
			pb_acct_bucket_range(lo, &co->min_bytes, &dummy);
			pb_acct_bucket_range(hi, &dummy, &co->max_bytes);
			struct pb_acct_est ce;
			pb_acct_estimate(t, p, lo, hi, &ce);
			est_record(&co->est, &ce, tsc_hz, cpu_time_s, false, 0);
		}
	}
	struct pb_acct_est e;
	pb_acct_estimate(t, PB_ACCT_NPRIM, 0, PB_ACCT_BUCKETS - 1, &e);
	est_record(&out->all, &e, tsc_hz, cpu_time_s, true, t->timer_overhead_ticks_max);
}
