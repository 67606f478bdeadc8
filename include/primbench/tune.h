/* primbench/tune.h - the tune suite (docs/performance.md "auto and
 * tune"): the policy file's text. The rules tune decides by are the
 * analysis module's (include/primbench/tune_rules.h).
 */
#ifndef PRIMBENCH_TUNE_H
#define PRIMBENCH_TUNE_H

#include <stdint.h>

#include "primbench/auto.h"

/* The text of a policy file (include/primbench/auto.h's format): the
 * comment lines (each prefixed with "# "; may be NULL), then one line per
 * op set in f, then the cpu line when f->cpu is not empty. Returns a
 * malloc'd string, or NULL with pb_error() when a policy cannot be
 * formatted. */
char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment);

#endif
