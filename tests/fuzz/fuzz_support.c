/* fuzz_support.c - fuzz.h's helpers. */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool pb_fuzz_replaying;

static char outcome[8192];
static size_t outcome_len;

void pb_fuzz_outcome(const char *fmt, ...)
{
	if (!pb_fuzz_replaying)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (outcome_len && outcome_len < sizeof outcome - 1)
		outcome[outcome_len++] = '\n';
	int n = vsnprintf(outcome + outcome_len, sizeof outcome - outcome_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		outcome_len += (size_t)n < sizeof outcome - outcome_len
		                   ? (size_t)n
		                   : sizeof outcome - 1 - outcome_len;
	outcome[outcome_len] = '\0';
}

const char *pb_fuzz_outcome_text(void)
{
	return outcome;
}

void pb_fuzz_outcome_clear(void)
{
	outcome_len = 0;
	outcome[0] = '\0';
}

void pb_fuzz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

char *pb_fuzz_text(const uint8_t *data, size_t size)
{
	char *t = malloc(size + 1);
	if (!t)
		abort();
	if (size)
		memcpy(t, data, size);
	t[size] = '\0';
	return t;
}

static uint64_t take(struct pb_fuzz_in *in, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)in->p[0] << (8 * i);
	return v;
}

uint8_t pb_fuzz_u8(struct pb_fuzz_in *in)
{
	return (uint8_t)take(in, 1);
}

uint16_t pb_fuzz_u16(struct pb_fuzz_in *in)
{
	return (uint16_t)take(in, 2);
}

uint32_t pb_fuzz_u32(struct pb_fuzz_in *in)
{
	return (uint32_t)take(in, 4);
}

uint64_t pb_fuzz_u64(struct pb_fuzz_in *in)
{
	return take(in, 8);
}

FILE *pb_fuzz_devnull(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

int pb_fuzz_write_all(int fd, const void *data, size_t size)
{
	const char *p = data;
	while (size) {
		ssize_t w = write(fd, p, size);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		p += w;
		size -= (size_t)w;
	}
	return 0;
}

static char tmp_dir[64];
static char tmp_path[128];

static void remove_tmp(void)
{
	if (tmp_path[0])
		unlink(tmp_path);
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

const char *pb_fuzz_file(const void *data, size_t size)
{
	if (!tmp_dir[0]) {
		const char *base = getenv("TMPDIR");
		snprintf(tmp_dir, sizeof tmp_dir, "%s/pbfuzz.XXXXXX",
		         base && *base && strlen(base) < 40 ? base : "/tmp");
		if (!mkdtemp(tmp_dir)) {
			tmp_dir[0] = '\0';
			return NULL;
		}
		atexit(remove_tmp);
		snprintf(tmp_path, sizeof tmp_path, "%s/input", tmp_dir);
	}
	int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (pb_fuzz_write_all(fd, data, size) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (close(fd) != 0)
		return NULL;
	return tmp_path;
}
