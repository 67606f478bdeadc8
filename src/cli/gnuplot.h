/* cli/gnuplot.h - finding gnuplot and drawing a plot script with it, for
 * `primbench plot` and the HTML page of `primbench report --html`. */
#ifndef PRIMBENCH_CLI_GNUPLOT_H
#define PRIMBENCH_CLI_GNUPLOT_H

#include <stddef.h>

#include "primbench/plot.h"

/* The gnuplot program: PRIMBENCH_GNUPLOT (a path, or a name looked up on
 * PATH), else "gnuplot" on PATH. Its path into buf (len bytes); 0, or -1
 * when there is none. */
int cli_gnuplot_find(char *buf, size_t len);

/* Draws in[0..n) with po (pb_plot_write; po->output is set for the call
 * and given back) by running gnuplot in a fresh temporary directory
 * ($TMPDIR or /tmp; removed after), the picture's type by suffix (".svg"
 * or ".png"). The picture's bytes into *data (malloc'd, a NUL after
 * them) and *len. Returns
 * 0, or -1 with why (one line: pb_plot_write's error, "gnuplot failed
 * (exit 1: line 12: ...)", "gnuplot wrote no picture") and *data NULL. */
int cli_gnuplot_draw(const char *gnuplot, const struct pb_plot_input *in, size_t n,
                     struct pb_plot_opts *po, const char *suffix, char **data, size_t *len,
                     char *why, size_t whylen);

#endif
