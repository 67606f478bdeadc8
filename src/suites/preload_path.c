/* preload_path.c - where libprimswitch.so is (include/primbench/preload.h).
 * PB_PRELOAD_DIR comes from CMakeLists.txt: the build directory, or "" in
 * a sanitizer build, which does not make the library;
 * PB_PRELOAD_INSTALL_REL from cmake/install.cmake. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/preload.h"

/* Where `make install` puts the library, relative to the directory of the
 * installed executable (cmake/install.cmake: from bindir to
 * libdir/primbench). */
#ifndef PB_PRELOAD_INSTALL_REL
#define PB_PRELOAD_INSTALL_REL "../lib/primbench"
#endif

/* A readable regular file (or a link to one): its canonical path into
 * real[PATH_MAX]. */
static int usable(const char *path, char *real, int *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		*err = errno;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = EISDIR;
		return -1;
	}
	if (access(path, R_OK) != 0 || !realpath(path, real)) {
		*err = errno;
		return -1;
	}
	return 0;
}

static int deliver(const char *real, char *buf, size_t len)
{
	if (strpbrk(real, " :\t\n"))
		return pb_fail("'%s': LD_PRELOAD cannot carry a path with a space or a colon "
		               "(copy the library elsewhere and set PRIMBENCH_PRELOAD)",
		               real);
	if (strlen(real) + 1 > len)
		return pb_fail("'%s': path longer than the %zu bytes given", real, len);
	snprintf(buf, len, "%s", real);
	return 0;
}

int pb_preload_path(char *buf, size_t len)
{
	char real[PATH_MAX];
	int err = 0;
	const char *env = getenv("PRIMBENCH_PRELOAD");
	if (env && *env) {
		if (usable(env, real, &err) != 0)
			return pb_fail("PRIMBENCH_PRELOAD: '%s': %s", env,
			               err == EISDIR ? "not a regular file (give the .so itself)"
			                             : strerror(err));
		return deliver(real, buf, len);
	}

	/* The executable's own directory first (build/primbench next to
	 * build/libprimswitch.so), then where an install puts the library
	 * relative to bindir, then the build directory compiled in (for the
	 * test programs, which live elsewhere). An installed binary thus uses
	 * its installed library even while its build tree still exists. */
	char dirs[4][PATH_MAX];
	size_t nd = 0;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		const char *d = dirname(exe);
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s", d);
		snprintf(dirs[nd++], sizeof dirs[0], "%.3000s/%.1000s", d, PB_PRELOAD_INSTALL_REL);
		if (strcmp(PB_PRELOAD_INSTALL_REL, "../lib") != 0)
			snprintf(dirs[nd++], sizeof dirs[0], "%.4000s/../lib", d);
	}
	if (PB_PRELOAD_DIR[0])
		snprintf(dirs[nd++], sizeof dirs[0], "%.4000s", PB_PRELOAD_DIR);
	char tried[1024] = "";
	for (size_t i = 0; i < nd; i++) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%.4000s/%s", dirs[i], PB_PRELOAD_NAME);
		if (usable(path, real, &err) == 0)
			return deliver(real, buf, len);
		size_t used = strlen(tried);
		snprintf(tried + used, sizeof tried - used, "%s%.300s", i ? ", " : "", dirs[i]);
	}
	return pb_fail("%s not found (looked in %s%s; set PRIMBENCH_PRELOAD)", PB_PRELOAD_NAME,
	               tried[0] ? tried : "no directory",
	               PB_PRELOAD_DIR[0] ? "" : "; a sanitizer build does not make it");
}
