/* emulated.c - a cross build's stand-in for a target program in the test
 * scripts (tests/CMakeLists.txt, pb_test_program): built for the HOST,
 * statically, and copied to <build>/emulated/<target>. Run, it reads
 * <its own path>.argv (one word a line: the emulator's command line, then
 * the target program's path) and execs
 *   EMULATOR... [-E LD_PRELOAD=<value>] TARGET ARGS...
 * LD_PRELOAD, which a script or primbench sets for the program, goes to the
 * emulated program (qemu-user's -E) and is removed from the emulator's own
 * environment: an arm64 library preloaded into a host process (the
 * emulator, or a shell script in its place) makes the host's ld.so print
 * an error on stderr. Static, so that it is no such host process itself.
 * Exit 127 when it cannot run the emulator (as a shell would).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORDS 64

int main(int argc, char **argv)
{
	char path[PATH_MAX + 8];
	ssize_t n = readlink("/proc/self/exe", path, PATH_MAX);
	if (n <= 0) {
		perror("emulated: /proc/self/exe");
		return 127;
	}
	memcpy(path + n, ".argv", 6);
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 127;
	}
	char *words[MAX_WORDS];
	size_t nw = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0 && nw < MAX_WORDS) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		words[nw++] = strdup(line);
	}
	free(line);
	fclose(f);
	if (nw < 2) {
		fprintf(stderr, "emulated: %s: needs the emulator and the program\n", path);
		return 127;
	}
	const char *pre = getenv("LD_PRELOAD");
	char **args = calloc(nw + 2 + (size_t)argc, sizeof *args);
	char *pre_arg = NULL;
	if (!args || (pre && asprintf(&pre_arg, "LD_PRELOAD=%s", pre) < 0)) {
		perror("emulated");
		return 127;
	}
	size_t k = 0;
	for (size_t i = 0; i + 1 < nw; i++)
		args[k++] = words[i];
	if (pre_arg) {
		args[k++] = "-E";
		args[k++] = pre_arg;
	}
	args[k++] = words[nw - 1];
	for (int i = 1; i < argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	unsetenv("LD_PRELOAD");
	execv(args[0], args);
	perror(args[0]);
	return 127;
}
