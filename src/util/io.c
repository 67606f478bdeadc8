/* io.c - reading the whole of a file descriptor, and a number from a file
 * (include/primbench/io.h). */
#include "primbench/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *pb_read_fd_all(int fd, size_t max_bytes, size_t *len)
{
	size_t cap = 16384, used = 0;
	char *buf = malloc(cap);
	while (buf && !(max_bytes && used >= max_bytes)) {
		if (used + 1 == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t want = cap - 1 - used;
		if (max_bytes && want > max_bytes - used)
			want = max_bytes - used;
		ssize_t r = read(fd, buf + used, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += (size_t)r;
	}
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

int pb_read_int_file(const char *path, int fallback)
{
	FILE *f = fopen(path, "r");
	int v;
	if (!f)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}
