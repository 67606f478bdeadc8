/* primbench/io.h - reading the whole of a file descriptor, and a number
 * from a file (module util: usable from everywhere). */
#ifndef PRIMBENCH_IO_H
#define PRIMBENCH_IO_H

#include <stddef.h>

/* Reads fd to its end (a read interrupted by a signal is retried; a read
 * error ends the text as the end of the file does), or until max_bytes
 * bytes when max_bytes is not 0 (the rest is left unread). Returns the
 * bytes read, NUL-terminated, in a malloc'd buffer the caller frees, and
 * their count in *len (len may be NULL); NULL with errno ENOMEM when out of
 * memory. Does not close fd. */
char *pb_read_fd_all(int fd, size_t max_bytes, size_t *len);

/* The decimal whole number (fscanf's %d) that the text file at path starts
 * with, as the one-number files of /proc/sys hold; fallback when the file
 * cannot be opened or does not start with one. */
int pb_read_int_file(const char *path, int fallback);

#endif
