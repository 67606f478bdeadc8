/* cli/html_report.h - the HTML page of result files (`primbench report
 * --html`, the default run's --html): loads, draws with gnuplot, compares
 * and writes include/primbench/html.h's page. */
#ifndef PRIMBENCH_CLI_HTML_REPORT_H
#define PRIMBENCH_CLI_HTML_REPORT_H

#include <stddef.h>

/* Writes the page of the result files paths[0..n) to out, whole (temporary
 * file, then rename). labels[i] names file i in the page (NULL, or fewer
 * than n of them: the file name without .json). Several files: each
 * compared with the first (different hardware is compared anyway, and the
 * page says so). Figures: every panel of `primbench plot` for the files
 * together (or each file alone when they cannot share a plot), drawn by
 * gnuplot as SVG; where gnuplot is missing or fails, the page says so and
 * keeps its text. Returns 0, or -1 with the one error line in pb_error()
 * (an unreadable or malformed file, a unit mismatch between files, a
 * write error). */
int cli_html_report(const char *out, char *const *paths, size_t n, const char *const *labels,
                    size_t nlabels);

/* "dir/name.json" -> "dir/name.html" (any other name: + ".html").
 * Malloc'd (aborts when out of memory). */
char *cli_html_path_of(const char *json_path);

#endif
