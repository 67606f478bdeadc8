/* record.c - distributions recorded from the preload library's exact sizes
 * files (include/primbench/record.h). */
#define _GNU_SOURCE
#include "primbench/record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/distribution.h"
#include "primbench/error.h"
#include "primbench/report.h"
#include "primbench/results.h"
#include "primbench/text.h"

static const char *const family_names[PB_ACCT_NFAM] = {"memset", "memcpy", "memmove"};

const char *pb_acct_family_name(int fam)
{
	return fam >= 0 && fam < PB_ACCT_NFAM ? family_names[fam] : NULL;
}

int pb_record_read_file(const char *path, struct pb_acct_sizes_file *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return pb_fail("%s: cannot open: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pb_fail("%s: not a primswitch sizes file (not a regular file)", path);
	}
	if ((size_t)st.st_size != sizeof *out) {
		close(fd);
		return pb_fail("%s: sizes file of %lld bytes, expected %zu", path,
		               (long long)st.st_size, sizeof *out);
	}
	size_t done = 0;
	while (done < sizeof *out) {
		ssize_t n = read(fd, (char *)out + done, sizeof *out - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	if (done != sizeof *out)
		return pb_fail("%s: cannot read the whole sizes file", path);
	if (memcmp(out->magic, PB_ACCT_SIZES_MAGIC, 8) != 0)
		return pb_fail("%s: not a primswitch sizes file (bad magic)", path);
	if (out->version != PB_ACCT_SIZES_VERSION)
		return pb_fail("%s: sizes file version %u; this primbench reads version %u", path,
		               out->version, PB_ACCT_SIZES_VERSION);
	if (out->size_bytes != sizeof *out)
		return pb_fail("%s: sizes file says it has %u bytes, expected %zu", path,
		               out->size_bytes, sizeof *out);
	return 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int pb_record_read_dir(const char *dir, struct pb_size_record *r)
{
	DIR *d = opendir(dir);
	if (!d)
		return pb_fail("%s: cannot read accounting directory: %s", dir, strerror(errno));
	struct pb_acct_sizes_file *f = malloc(sizeof *f);
	if (!f) {
		closedir(d);
		return pb_fail("out of memory");
	}
	int added = 0;
	struct dirent *e;
	size_t pl = strlen(PB_ACCT_FILE_PREFIX), sl = strlen(PB_ACCT_SIZES_SUFFIX);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l <= pl + sl || strncmp(e->d_name, PB_ACCT_FILE_PREFIX, pl) != 0 ||
		    strcmp(e->d_name + l - sl, PB_ACCT_SIZES_SUFFIX) != 0)
			continue;
		char path[4400];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (pb_record_read_file(path, f) != 0) {
			if (!r->skipped++)
				snprintf(r->skip_note, sizeof r->skip_note, "%s", pb_error());
			continue;
		}
		for (int fam = 0; fam < PB_ACCT_NFAM; fam++)
			for (unsigned n = 0; n <= PB_ACCT_SIZES_MAX; n++)
				r->calls[fam][n] = sat_add(r->calls[fam][n], f->calls[fam][n]);
		r->files++;
		added++;
	}
	closedir(d);
	free(f);
	return added;
}

void pb_record_family(const struct pb_size_record *r, const struct pb_acct_total *t, int fam,
                      struct pb_record_family *o)
{
	memset(o, 0, sizeof *o);
	for (unsigned n = 0; n <= PB_ACCT_SIZES_MAX; n++) {
		o->csv_calls += r->calls[fam][n];
		o->csv_bytes += r->calls[fam][n] * n;
		if (n <= 128)
			o->le_128_calls += r->calls[fam][n];
	}
	unsigned first = pb_acct_bucket_of(PB_ACCT_SIZES_MAX + 1);
	for (int p = 0; p < PB_ACCT_NPRIM; p++) {
		if ((int)pb_acct_family_of((enum pb_acct_prim)p) != fam)
			continue;
		for (unsigned b = first; b < PB_ACCT_BUCKETS; b++) {
			o->large_calls += t->prim[p].bucket[b].calls;
			o->large_bytes += t->prim[p].bucket[b].bytes;
		}
	}
	/* bucket 13 (4096..8191) holds the calls of 4096 bytes too */
	uint64_t at_max = r->calls[fam][PB_ACCT_SIZES_MAX];
	o->large_calls -= o->large_calls >= at_max ? at_max : o->large_calls;
	uint64_t at_max_bytes = at_max * PB_ACCT_SIZES_MAX;
	o->large_bytes -= o->large_bytes >= at_max_bytes ? at_max_bytes : o->large_bytes;
}

/* DIR/FAMILY.large.csv's text: per log2 bucket above 4096 bytes. */
static char *large_text(const struct pb_size_record *r, const struct pb_acct_total *t, int fam)
{
	size_t cap = 80 * (PB_ACCT_BUCKETS + 1), pos = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	pos += (size_t)snprintf(s, cap, "min_bytes,max_bytes,calls,bytes\n");
	unsigned first = pb_acct_bucket_of(PB_ACCT_SIZES_MAX + 1);
	for (unsigned b = first; b < PB_ACCT_BUCKETS; b++) {
		uint64_t calls = 0, bytes = 0, lo, hi;
		for (int p = 0; p < PB_ACCT_NPRIM; p++)
			if ((int)pb_acct_family_of((enum pb_acct_prim)p) == fam) {
				calls += t->prim[p].bucket[b].calls;
				bytes += t->prim[p].bucket[b].bytes;
			}
		pb_acct_bucket_range(b, &lo, &hi);
		if (b == first) {
			uint64_t at = r->calls[fam][PB_ACCT_SIZES_MAX];
			calls -= calls >= at ? at : calls;
			bytes -= bytes >= at * lo ? at * lo : bytes;
			lo = PB_ACCT_SIZES_MAX + 1;
		}
		if (!calls)
			continue;
		pos += (size_t)snprintf(s + pos, cap - pos, "%llu,%llu,%llu,%llu\n",
		                        (unsigned long long)lo, (unsigned long long)hi,
		                        (unsigned long long)calls, (unsigned long long)bytes);
	}
	return s;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

int pb_record_write(const char *dir, const struct pb_size_record *r, const struct pb_acct_total *t,
                    FILE *f)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return pb_fail("cannot make directory '%s': %s", dir, strerror(errno));
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return pb_fail("'%s' is not a directory", dir);
	int written = 0;
	for (int fam = 0; fam < PB_ACCT_NFAM; fam++) {
		struct pb_record_family o;
		pb_record_family(r, t, fam, &o);
		uint64_t calls = o.csv_calls + o.large_calls, bytes = o.csv_bytes + o.large_bytes;
		if (!o.csv_calls) {
			if (calls)
				fprintf(
				    f,
				    "%s: %llu call%s, all above %u bytes: no distribution file\n",
				    family_names[fam], (unsigned long long)calls, pb_plural(calls),
				    PB_ACCT_SIZES_MAX);
			continue;
		}
		char path[4400], lpath[4400];
		snprintf(path, sizeof path, "%s/%s.csv", dir, family_names[fam]);
		snprintf(lpath, sizeof lpath, "%s/%s.large.csv", dir, family_names[fam]);
		char *csv = pb_distribution_format_counts(r->calls[fam], PB_ACCT_SIZES_MAX + 1);
		char *large = large_text(r, t, fam);
		int rc = csv && large ? 0 : pb_fail("out of memory");
		if (rc == 0)
			rc = pb_write_file_whole(path, csv, strlen(csv));
		if (rc == 0)
			rc = pb_write_file_whole(lpath, large, strlen(large));
		free(csv);
		free(large);
		if (rc != 0)
			return -1;
		char line[10000];
		snprintf(line, sizeof line,
		         "%s: %llu call%s, %llu bytes; %.1f%% of the calls are <= 128 B. %s (sizes "
		         "0..%u) "
		         "holds %.1f%% of the calls and %.1f%% of the bytes; %s the %llu calls "
		         "above.",
		         family_names[fam], (unsigned long long)calls, pb_plural(calls),
		         (unsigned long long)bytes, pct(o.le_128_calls, calls), path,
		         PB_ACCT_SIZES_MAX, pct(o.csv_calls, calls), pct(o.csv_bytes, bytes), lpath,
		         (unsigned long long)o.large_calls);
		pb_print_wrapped_at(f, 0, 2, line);
		written++;
	}
	return written;
}
