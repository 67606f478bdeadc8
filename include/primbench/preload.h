/* primbench/preload.h - where libprimswitch.so is, for the commands that
 * run programs under it (docs/preload.md; the library itself is
 * src/preload/ and has no API: it exports memset, memcpy, ... only).
 */
#ifndef PRIMBENCH_PRELOAD_H
#define PRIMBENCH_PRELOAD_H

#include <stddef.h>

/* File name of the library: PB_PRELOAD_NAME (a case key's env records it
 * without its directory, so it lives with the cmd records). */
#include "primbench/cmd_result.h"

/* Finds libprimswitch.so and writes its absolute, canonical path to buf
 * (len bytes; PATH_MAX is always enough), ready to be an LD_PRELOAD entry.
 * Looks, in order, at:
 *   1. $PRIMBENCH_PRELOAD, the path of the file itself: when set (and not
 *      empty) it must be there, nothing else is tried;
 *   2. the running executable's directory (build/primbench next to
 *      build/libprimswitch.so);
 *   3. where an install puts it, relative to the executable's directory
 *      (PB_PRELOAD_INSTALL_REL, compiled in: "../lib/primbench" for
 *      PREFIX/bin/primbench and PREFIX/lib/primbench/libprimswitch.so, or
 *      the Debian multiarch libdir), then ../lib from it;
 *   4. the build directory (PB_PRELOAD_DIR, compiled in, for programs
 *      that do not live next to the library, such as the tests; a
 *      sanitizer build does not make the library and has none).
 * So an installed primbench uses its installed library even while the
 * tree it was built in still exists.
 * A candidate counts when it is a readable file. Returns 0, or -1 with
 * pb_error() set: "libprimswitch.so not found (looked in /a, /a/../lib/primbench,
 * /a/../lib; set PRIMBENCH_PRELOAD)", "PRIMBENCH_PRELOAD: '/x.so': No such file or
 * directory", or a path LD_PRELOAD cannot carry (it splits entries at
 * spaces and colons), or one longer than len. */
int pb_preload_path(char *buf, size_t len);

#endif
