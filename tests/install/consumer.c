/* consumer.c - a program built against an installed libprimbench with
 * `cc consumer.c $(pkg-config --cflags --libs primbench)`
 * (tests/install/install.sh): looks up the fastest-named usable memset
 * kernel the CPU allows (avx2, else sse2, else the plain C one), clears a
 * buffer with it and checks every byte, and times the call with the
 * library's timer. Then reads the kernel's preemption model (a zlib
 * caller in the archive: the .pc file must name every library the static
 * archive needs, zlib included). Prints two lines; exit 0 when the bytes
 * are right. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <primbench/error.h>
#include <primbench/fingerprint.h>
#include <primbench/kernels.h>
#include <primbench/timer.h>

int main(void)
{
	static const char *const names[] = {"avx2", "sse2", "bytes"};
	const struct pb_kernel *k = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !k; i++) {
		const struct pb_kernel *c = pb_kernel_find(PB_OP_MEMSET, names[i]);
		if (c && pb_kernel_usable(c, pb_cpu_features(), NULL, 0))
			k = c;
	}
	if (!k) {
		fprintf(stderr, "consumer: no usable memset kernel\n");
		return 1;
	}
	if (pb_timer_init() != 0) {
		fprintf(stderr, "consumer: %s\n", pb_error());
		return 1;
	}
	enum { N = 4099 };
	unsigned char *buf = malloc(N + 2);
	if (!buf)
		return 1;
	for (size_t i = 0; i < N + 2; i++)
		buf[i] = 0xee;
	pb_stamp t = pb_timer_begin();
	k->memset_fn(buf + 1, 0x5a, N);
	uint64_t ticks = pb_timer_end(t);
	int bad = buf[0] != 0xee || buf[N + 1] != 0xee;
	for (size_t i = 1; i <= N; i++)
		bad |= buf[i] != 0x5a;
	printf("memset/%s: %d bytes %s, %llu ticks (%s)\n", k->name, N, bad ? "WRONG" : "ok",
	       (unsigned long long)ticks, pb_timer_info()->clock_desc);
	free(buf);
	struct pb_preempt_info p;
	pb_preempt_read("/proc/config.gz", "/proc/cmdline", &p);
	printf("preemption: %s (from %s)\n", p.model, p.source);
	return bad;
}
