/* distribution.c - call-size distributions (include/primbench/distribution.h). */
#define _GNU_SOURCE
#include "primbench/distribution.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "primbench/error.h"

#ifndef PB_SOURCE_DATA_DIR
#define PB_SOURCE_DATA_DIR ""
#endif
#ifndef PB_INSTALL_DATA_DIR
#define PB_INSTALL_DATA_DIR ""
#endif

/* Largest file accepted: 4097 values of a few dozen characters. */
#define MAX_FILE_BYTES (1u << 20)

/* The printable form of the byte at p for a message. */
static const char *found_text(const char *p, const char *end, char *buf, size_t len)
{
	if (p >= end)
		return "the end of the file";
	if (*p == '\n')
		return "a newline";
	if (isprint((unsigned char)*p))
		snprintf(buf, len, "'%c'", *p);
	else
		snprintf(buf, len, "byte 0x%02x", (unsigned char)*p);
	return buf;
}

int pb_distribution_parse(const char *path, const char *text, size_t len, struct pb_distribution *d)
{
	const char *p = text, *end = text + len;
	double *w = calloc(PB_DIST_SIZES, sizeof *w);
	if (!w)
		return pb_fail("out of memory");
	size_t n = 0;
	unsigned line = 1;
	const char *line_start = text;
	char fb[16];
#define FAIL(at, ...)                                                                              \
	do {                                                                                       \
		char msg_[256];                                                                    \
		snprintf(msg_, sizeof msg_, __VA_ARGS__);                                          \
		free(w);                                                                           \
		return pb_fail("%s:%u:%zu: %s", path, line, (size_t)((at)-line_start) + 1, msg_);  \
	} while (0)
	if (len == 0)
		FAIL(p, "empty file (expected comma-separated weights of sizes 0, 1, 2, ...)");
	for (;;) {
		/* one value: digits [. digits] [e [+-] digits] */
		const char *start = p;
		if (p >= end || !(isdigit((unsigned char)*p) || *p == '.'))
			FAIL(p, "expected a number, found %s", found_text(p, end, fb, sizeof fb));
		while (p < end && isdigit((unsigned char)*p))
			p++;
		bool digits = p > start;
		if (p < end && *p == '.') {
			const char *f = ++p;
			while (p < end && isdigit((unsigned char)*p))
				p++;
			digits |= p > f;
		}
		if (!digits)
			FAIL(start, "expected a number, found %s",
			     found_text(start, end, fb, sizeof fb));
		if (p < end && (*p == 'e' || *p == 'E')) {
			const char *e = p++;
			if (p < end && (*p == '+' || *p == '-'))
				p++;
			const char *ed = p;
			while (p < end && isdigit((unsigned char)*p))
				p++;
			if (p == ed)
				FAIL(e, "bad exponent in a number");
		}
		if (n == PB_DIST_SIZES)
			FAIL(start, "more than %u values (sizes 0..%u)", PB_DIST_SIZES,
			     PB_DIST_SIZES - 1);
		char num[64];
		size_t nl = (size_t)(p - start);
		if (nl >= sizeof num)
			FAIL(start, "number of more than %zu characters", sizeof num - 1);
		memcpy(num, start, nl);
		num[nl] = '\0';
		double v = strtod(num, NULL);
		if (!isfinite(v))
			FAIL(start, "number '%s' is out of range", num);
		w[n++] = v;
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '\r' && p + 1 < end && p[1] == '\n')
			p++;
		if (p < end && *p == '\n') {
			p++;
			if (p < end) {
				line++;
				line_start = p;
				FAIL(p,
				     "expected the end of the file after the line of weights, "
				     "found %s",
				     found_text(p, end, fb, sizeof fb));
			}
			break;
		}
		if (p < end)
			FAIL(p, "expected ',' or the end of the line, found %s",
			     found_text(p, end, fb, sizeof fb));
		break;
	}
#undef FAIL
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += w[i];
	if (!isfinite(sum)) { /* each value is finite (checked above) */
		free(w);
		return pb_fail("%s:1:1: the weights sum to more than %g (the largest double): "
		               "scale them down",
		               path, DBL_MAX);
	}
	if (!(sum > 0)) {
		free(w);
		return pb_fail("%s:1:1: no positive weight (every value is 0)", path);
	}
	while (n > 1 && w[n - 1] == 0)
		n--;
	memset(d, 0, sizeof *d);
	d->prob = w;
	d->n_values = n;
	d->weight_sum = sum;
	d->min_bytes = n;
	for (size_t i = 0; i < n; i++) {
		w[i] /= sum;
		if (i <= 128)
			d->share_le_128 += w[i];
		d->mean_bytes += w[i] * (double)i;
		if (w[i] > 0 && d->min_bytes == n)
			d->min_bytes = i;
		if (w[i] > 0)
			d->max_bytes = i;
	}
	snprintf(d->path, sizeof d->path, "%s", path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(d->name, sizeof d->name, "%s", base);
	size_t bl = strlen(d->name);
	if (bl > 4 && !strcmp(d->name + bl - 4, ".csv"))
		d->name[bl - 4] = '\0';
	return 0;
}

int pb_distribution_load(const char *path, struct pb_distribution *d)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return pb_fail("%s: cannot read: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return pb_fail("%s: cannot read: not a regular file", path);
	}
	char *buf = malloc(MAX_FILE_BYTES + 1);
	if (!buf) {
		fclose(f);
		return pb_fail("out of memory");
	}
	size_t len = fread(buf, 1, MAX_FILE_BYTES + 1, f);
	bool err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return pb_fail("%s: cannot read: I/O error", path);
	}
	if (len > MAX_FILE_BYTES) {
		free(buf);
		return pb_fail("%s: larger than %u bytes: not a distribution file", path,
		               MAX_FILE_BYTES);
	}
	int rc = pb_distribution_parse(path, buf, len, d);
	free(buf);
	return rc;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return p && p[0] && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *pb_distribution_dir(void)
{
	const char *env = getenv("PRIMBENCH_DATA_DIR");
	if (env && env[0]) {
		if (is_dir(env))
			return env;
		pb_fail("PRIMBENCH_DATA_DIR '%s' is not a directory", env);
		return NULL;
	}
	if (is_dir(PB_SOURCE_DATA_DIR))
		return PB_SOURCE_DATA_DIR;
	if (is_dir(PB_INSTALL_DATA_DIR))
		return PB_INSTALL_DATA_DIR;
	pb_fail("no built-in distributions: neither '%s' nor '%s' exists (set "
	        "PRIMBENCH_DATA_DIR)",
	        PB_SOURCE_DATA_DIR, PB_INSTALL_DATA_DIR);
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pb_distribution_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int pb_distribution_names(char ***out)
{
	const char *dir = pb_distribution_dir();
	if (!dir)
		return -1;
	DIR *dh = opendir(dir);
	if (!dh)
		return pb_fail("%s: cannot read: %s", dir, strerror(errno));
	char **names = NULL;
	int n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		size_t l = strlen(e->d_name);
		if (l <= 4 || strcmp(e->d_name + l - 4, ".csv") != 0 || e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **nn = realloc(names, (size_t)cap * sizeof *nn);
			if (!nn) {
				closedir(dh);
				pb_distribution_names_free(names, n);
				return pb_fail("out of memory");
			}
			names = nn;
		}
		names[n] = strndup(e->d_name, l - 4);
		if (!names[n]) {
			closedir(dh);
			pb_distribution_names_free(names, n);
			return pb_fail("out of memory");
		}
		n++;
	}
	closedir(dh);
	if (n)
		qsort(names, (size_t)n, sizeof *names, cmp_name);
	*out = names;
	return n;
}

/* Whether `name` contains `part`, ignoring case. */
static bool contains_ci(const char *name, const char *part)
{
	return strcasestr(name, part) != NULL;
}

int pb_distribution_find(const char *arg, struct pb_distribution *d)
{
	size_t al = strlen(arg);
	if (!al)
		return pb_fail("empty distribution name");
	if (strchr(arg, '/') || (al > 4 && !strcmp(arg + al - 4, ".csv")))
		return pb_distribution_load(arg, d);
	char **names;
	int n = pb_distribution_names(&names);
	if (n < 0)
		return -1;
	int hit = -1, hits = 0;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(names[i], arg)) {
			hit = i;
			hits = 1;
			break;
		}
	if (hit < 0)
		for (int i = 0; i < n; i++)
			if (contains_ci(names[i], arg)) {
				hits++;
				hit = i;
			}
	char list[1024] = "";
	for (int i = 0; i < n; i++)
		if (hit < 0 || hits < 2 || contains_ci(names[i], arg)) {
			size_t u = strlen(list);
			snprintf(list + u, sizeof list - u, "%s%s", u ? ", " : "", names[i]);
		}
	int rc;
	if (hits == 1) {
		const char *dir = pb_distribution_dir();
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.csv", dir, names[hit]);
		rc = pb_distribution_load(path, d);
	} else if (hits > 1) {
		rc = pb_fail("distribution '%s' is ambiguous: %s", arg, list);
	} else {
		rc = pb_fail("unknown distribution '%s' (known: %s; or a FILE.csv)", arg,
		             n ? list : "none");
	}
	pb_distribution_names_free(names, n);
	return rc;
}

void pb_distribution_free(struct pb_distribution *d)
{
	free(d->prob);
	d->prob = NULL;
	d->n_values = 0;
}

int pb_distribution_draw(const struct pb_distribution *d, uint64_t seed, uint32_t *sizes, size_t n,
                         uint32_t *offsets, uint32_t offset_window)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_ran_discrete_t *t = r ? gsl_ran_discrete_preproc(d->n_values, d->prob) : NULL;
	if (!t) {
		if (r)
			gsl_rng_free(r);
		return pb_fail("out of memory drawing sizes");
	}
	/* gsl_rng_set takes an unsigned long; fold the high half in. */
	gsl_rng_set(r, (unsigned long)(seed ^ (seed >> 32)));
	for (size_t i = 0; i < n; i++)
		sizes[i] = (uint32_t)gsl_ran_discrete(r, t);
	if (offsets)
		for (size_t i = 0; i < 2 * n; i++)
			offsets[i] =
			    offset_window > 1 ? (uint32_t)gsl_rng_uniform_int(r, offset_window) : 0;
	gsl_ran_discrete_free(t);
	gsl_rng_free(r);
	return 0;
}

char *pb_distribution_format_counts(const uint64_t *counts, size_t n)
{
	while (n > 1 && counts[n - 1] == 0)
		n--;
	if (n == 0)
		n = 1;
	size_t cap = n * 21 + 2, pos = 0;
	char *s = malloc(cap);
	if (!s) {
		pb_fail("out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		pos += (size_t)snprintf(s + pos, cap - pos, "%s%llu", i ? "," : "",
		                        (unsigned long long)(counts ? counts[i] : 0));
	s[pos++] = '\n';
	s[pos] = '\0';
	return s;
}
