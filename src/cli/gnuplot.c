/* gnuplot.c - finding and running gnuplot on the scripts of
 * include/primbench/plot.h (cli/gnuplot.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/gnuplot.h"
#include "primbench/error.h"
#include "primbench/plot.h"

/* The gnuplot program: PRIMBENCH_GNUPLOT (a path, or a name looked up on
 * PATH), else "gnuplot" on PATH. Its path into buf, or -1. */
int cli_gnuplot_find(char *buf, size_t len)
{
	const char *want = getenv("PRIMBENCH_GNUPLOT");
	if (!want || !*want)
		want = "gnuplot";
	if (strchr(want, '/')) {
		snprintf(buf, len, "%s", want);
		return access(buf, X_OK) == 0 ? 0 : -1;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	char *copy = strdup(path), *save = NULL;
	if (!copy)
		return -1;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		struct stat st;
		snprintf(buf, len, "%s/%s", *d ? d : ".", want);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) {
			free(copy);
			return 0;
		}
	}
	free(copy);
	return -1;
}

/* Removes the temporary directory this command made and the files in it
 * (script, data, picture, gnuplot's messages: one level, no
 * subdirectories). */
static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(dir);
}

/* Runs gnuplot on dir/plot.gp with dir as its working directory, its
 * stderr into dir/gnuplot.err. Returns 0 when it exited 0; otherwise -1
 * with why it failed (and gnuplot's first error line) in why. */
static int run_gnuplot(const char *gnuplot, const char *dir, char *why, size_t whylen)
{
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (chdir(dir) != 0)
			_exit(126);
		/* gnuplot's own diagnostics go to a file: our error is one line. */
		FILE *e = freopen("gnuplot.err", "w", stderr);
		(void)e;
		execl(gnuplot, gnuplot, PB_PLOT_SCRIPT, (char *)NULL);
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid: %s", strerror(errno));
			return -1;
		}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	/* The first line gnuplot complained with. */
	char path[PATH_MAX + 32], line[200] = "";
	snprintf(path, sizeof path, "%s/gnuplot.err", dir);
	FILE *f = fopen(path, "r");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strstr(line, "line") || strstr(line, "rror"))
			break;
	}
	if (f)
		fclose(f);
	if (WIFEXITED(st))
		snprintf(why, whylen, "exit %d%s%s", WEXITSTATUS(st), line[0] ? ": " : "", line);
	else
		snprintf(why, whylen, "killed by signal %d", WTERMSIG(st));
	return -1;
}

/* The file at path, whole, in *data (malloc'd, a NUL after its *len
 * bytes) and *len; *len 0 when it cannot be read. */
static void read_whole(const char *path, char **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0;
	*data = NULL;
	*len = 0;
	while (f) {
		if (*len == cap) {
			size_t ncap = cap ? 2 * cap : 1 << 16;
			char *nd = realloc(*data, ncap + 1); /* + 1: the NUL after the text */
			if (!nd) {
				*len = 0; /* unread: the caller says so */
				break;
			}
			*data = nd;
			cap = ncap;
		}
		size_t got = fread(*data + *len, 1, cap - *len, f);
		*len += got;
		if (got == 0)
			break;
	}
	if (*data)
		(*data)[*len] = '\0';
	if (f)
		fclose(f);
}

int cli_gnuplot_draw(const char *gnuplot, const struct pb_plot_input *in, size_t n,
                     struct pb_plot_opts *po, const char *suffix, char **data, size_t *len,
                     char *why, size_t whylen)
{
	*data = NULL;
	*len = 0;
	const char *tmpdir = getenv("TMPDIR");
	char dir[PATH_MAX];
	if (tmpdir && *tmpdir)
		snprintf(dir, sizeof dir, "%s/primbench-plot-XXXXXX", tmpdir);
	else
		snprintf(dir, sizeof dir, "%s", "/tmp/primbench-plot-XXXXXX");
	if (!mkdtemp(dir)) {
		snprintf(why, whylen, "cannot make a temporary directory '%s': %s", dir,
		         strerror(errno));
		return -1;
	}
	char picture[PATH_MAX + 48];
	char picname[32];
	snprintf(picname, sizeof picname, "picture%s", suffix);
	snprintf(picture, sizeof picture, "%s/%s", dir, picname);
	const char *given = po->output;
	po->output = picname;
	int rc = 0;
	char gp[300] = "";
	if (pb_plot_write(in, n, po, dir) != 0) {
		snprintf(why, whylen, "%s", pb_error());
		rc = -1;
	} else if (run_gnuplot(gnuplot, dir, gp, sizeof gp) != 0) {
		snprintf(why, whylen, "gnuplot failed (%s)", gp);
		rc = -1;
	}
	po->output = given;
	if (rc == 0) {
		read_whole(picture, data, len);
		if (*len == 0) {
			free(*data);
			*data = NULL;
			snprintf(why, whylen, "gnuplot wrote no picture");
			rc = -1;
		}
	}
	remove_tree(dir);
	return rc;
}
