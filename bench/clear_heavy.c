/* clear_heavy.c - a program that does little but get fresh memory and
 * clear it: the workload of the profile example (README, `cmd --profile`;
 * docs/profile.md).
 *
 * usage: clear-heavy [MIB [ROUNDS]]   (defaults 64, 20)
 *
 * Each round mallocs MIB MiB (above glibc's mmap threshold, so fresh pages
 * from the kernel each time), memsets it to the round's number, reads one
 * byte per page back and frees it. Two clearings per page: the kernel's
 * (clear_page, at the first-touch page fault inside memset) and the
 * program's (memset itself). Built with -fno-builtin so the memset is a
 * real call into libc, or into libprimswitch.so when preloaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 64;
	long rounds = argc > 2 ? atol(argv[2]) : 20;
	if (mib <= 0 || mib > 65536 || rounds <= 0) {
		fprintf(stderr, "usage: %s [MIB [ROUNDS]]\n", argv[0]);
		return 2;
	}
	size_t bytes = (size_t)mib << 20;
	unsigned long sum = 0;
	for (long r = 0; r < rounds; r++) {
		unsigned char *p = malloc(bytes);
		if (!p) {
			perror("malloc");
			return 1;
		}
		memset(p, (int)(r & 0xff), bytes);
		for (size_t i = 0; i < bytes; i += 4096)
			sum += p[i];
		free(p);
	}
	printf("%lu\n", sum);
	return 0;
}
