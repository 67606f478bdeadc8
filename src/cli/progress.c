/* progress.c - the one-line progress display of long runs, and the -f
 * output of subcommands that make a result (src/cli/cli.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/error.h"
#include "primbench/reader.h"
#include "primbench/results_join.h"

bool cli_quiet;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(struct cli_progress *p, const char *label)
{
	p->label = label;
	p->t0 = now_s();
	p->on = !cli_quiet && isatty(STDERR_FILENO);
	p->shown = false;
}

/* "12 s", "3 min 20 s", "1 h 05 min" */
static void fmt_secs(double s, char *buf, size_t len)
{
	if (s < 0)
		s = 0;
	if (s < 60)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

void cli_progress_update(struct cli_progress *p, size_t done, size_t total, const char *what)
{
	if (!p->on)
		return;
	double el = now_s() - p->t0;
	char e[32], left[48] = "";
	fmt_secs(el, e, sizeof e);
	if (total && done > 0 && done < total) {
		char l[32];
		fmt_secs(el / (double)done * (double)(total - done), l, sizeof l);
		snprintf(left, sizeof left, ", ~%s left", l);
	}
	char line[160];
	if (total)
		snprintf(line, sizeof line, "%s: %s%s%zu of %zu, %s%s", p->label, what ? what : "",
		         what ? " " : "", done < total ? done + 1 : total, total, e, left);
	else
		snprintf(line, sizeof line, "%s: %s%s%zu, %s", p->label, what ? what : "",
		         what ? " " : "", done + 1, e);
	/* one terminal line: cut at 79 columns so it never wraps */
	fprintf(stderr, "\r\033[K%.79s", line);
	fflush(stderr);
	p->shown = true;
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->on && p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}

void cli_format_begin(struct cli_format *f)
{
	f->saved_fd = -1;
	if (f->fmt == PB_FORMAT_TEXT)
		return;
	/* the subcommand's own tables go nowhere; the result comes at the end */
	fflush(stdout);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	f->saved_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (null < 0 || f->saved_fd < 0 || dup2(null, STDOUT_FILENO) < 0)
		die_usage("cannot redirect standard output for -f %s", pb_format_name(f->fmt));
	close(null);
}

int cli_format_end(struct cli_format *f, const struct pb_results_doc *doc)
{
	if (f->fmt == PB_FORMAT_TEXT || f->saved_fd < 0)
		return 0;
	fflush(stdout);
	dup2(f->saved_fd, STDOUT_FILENO);
	close(f->saved_fd);
	f->saved_fd = -1;
	struct pb_results_file file;
	int rc = pb_results_doc_read(doc, "(this run)", &file);
	if (rc == 0)
		rc = pb_format_write(stdout, &file, f->fmt);
	pb_results_file_free(&file);
	/* a write error on stdout is reported once, by main's finish(); a
	 * reader that went away is none */
	if (rc != 0 && cli_stdout_gone())
		rc = 0;
	return rc;
}

enum pb_format cli_parse_format(const char *arg)
{
	enum pb_format f;
	if (pb_format_parse(arg, &f) != 0)
		die_usage("%s", pb_error());
	return f;
}
