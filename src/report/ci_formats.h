/* ci_formats.h - private to the report module: the writers of the formats
 * CI trackers read (bmf, gbench, action; include/primbench/format.h,
 * docs/formats.md), called by pb_format_write; and their JSON text. */
#ifndef PRIMBENCH_REPORT_CI_FORMATS_H
#define PRIMBENCH_REPORT_CI_FORMATS_H

#include <stdio.h>

#include "primbench/format.h"
#include "primbench/reader.h"

/* r in fmt (PB_FORMAT_BMF, PB_FORMAT_GBENCH or PB_FORMAT_ACTION) to f, as
 * pb_format_write documents them. 0, or -1 with pb_error() (out of
 * memory, another format). */
int pb_ci_format_write(FILE *f, const struct pb_results_file *r, enum pb_format fmt);

/* The JSON text these writers use, for the report module's other JSON
 * (kernel_vs_user.c): s as a JSON string (RFC 8259: '"' and '\\'
 * escaped, control characters as \n, \t, ... or \u00XX, other bytes as
 * they are); v in the shortest text that reads back as the same double,
 * "null" when not finite. */
void pb_ci_json_string(FILE *f, const char *s);
void pb_ci_json_number(FILE *f, double v);

#endif
