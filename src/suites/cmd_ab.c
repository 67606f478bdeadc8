/* cmd_ab.c - the engine of `primbench cmd` (include/primbench/cmd_ab.h). */
#define _GNU_SOURCE
#include "primbench/cmd_ab.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "primbench/counters.h"
#include "primbench/error.h"
#include "primbench/preload.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/syscall.h"
#include "primbench/text.h"
#include "primbench/xalloc.h"

void pb_cmd_ab_say(const struct pb_cmd_ab_hooks *h, enum pb_cmd_ab_msg kind, const char *fmt, ...)
{
	if (!h || !h->message)
		return;
	char *text;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	h->message(h->ctx, kind, text);
	free(text);
}

static const char *tmp_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	return tmp && tmp[0] ? tmp : "/tmp";
}

/* ---- what a side runs ---- */

char *const *pb_cmd_ab_argv(struct pb_cmd_ab_argv *a, char *const *words, const char *line,
                            bool shell)
{
	memset(a, 0, sizeof *a);
	if (!shell && line) {
		a->split = pb_cmd_split(line);
		return a->split;
	}
	if (!shell)
		return words;
	if (!line) {
		size_t len = 1;
		for (size_t i = 0; words[i]; i++)
			len += strlen(words[i]) + 1;
		a->joined = malloc(len);
		if (!a->joined) {
			pb_fail("out of memory");
			return NULL;
		}
		a->joined[0] = 0;
		for (size_t i = 0; words[i]; i++) {
			if (i)
				strcat(a->joined, " ");
			strcat(a->joined, words[i]);
		}
	}
	a->sh_c[0] = "/bin/sh";
	a->sh_c[1] = "-c";
	a->sh_c[2] = line ? (char *)line : a->joined;
	a->sh_c[3] = NULL;
	return a->sh_c;
}

void pb_cmd_ab_argv_free(struct pb_cmd_ab_argv *a)
{
	pb_cmd_free_words(a->split);
	free(a->joined);
	memset(a, 0, sizeof *a);
}

/* ---- the preload library's environment ---- */

static const char *const lib_vars[5] = {"PRIMBENCH_MEMSET", "PRIMBENCH_MEMCPY", "PRIMBENCH_MEMMOVE",
                                        "PRIMBENCH_ACCOUNT", "PRIMBENCH_ACCOUNT_DIR"};

/* Runs the tiny dynamic test program (tools/primbench-exit0-dynamic) with
 * the side's environment and PRIMBENCH_PRELOAD_DEBUG=1: the library must
 * say it is ready, with no warning (a bad policy, a kernel hidden by
 * --env PRIMBENCH_HIDE_FEATURES, a PRIMBENCH_PRELOAD that is not the
 * library). Returns 0, or -1 with pb_error() quoting the first line that
 * went wrong. Without the test program, returns 0 (nothing to check with). */
static int preflight(const struct pb_cmd_spec *side, int sd, int nsides)
{
	char tool[4096], errpath[4200];
	if (pb_syscall_tool_path(false, tool, sizeof tool) != 0)
		return 0;
	size_t n = 0;
	while (side->env_set && side->env_set[n])
		n++;
	char **env = calloc(n + 5, sizeof *env);
	if (!env)
		return pb_fail("out of memory");
	memcpy(env, side->env_set, n * sizeof *env);
	env[n] = "PRIMBENCH_PRELOAD_DEBUG=1";
	env[n + 1] = "PRIMBENCH_ACCOUNT";        /* no accounting file for this run */
	env[n + 2] = "PRIMBENCH_PRELOAD_LOG";    /* its lines on its stderr, */
	env[n + 3] = "PRIMBENCH_PRELOAD_WARNED"; /* every one of them */
	snprintf(errpath, sizeof errpath, "%s/primbench-preflight-XXXXXX", tmp_dir());
	int fd = mkstemp(errpath);
	if (fd < 0) {
		free(env);
		return 0;
	}
	close(fd);
	char *argv[] = {tool, NULL};
	struct pb_cmd_spec spec = {.argv = argv, .env_set = env, .stderr_path = errpath};
	struct pb_cmd_run r;
	int rc = pb_cmd_run_once(&spec, &r, NULL);
	free(env);
	char text[2048] = "";
	FILE *f = fopen(errpath, "r");
	size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
	text[got] = 0;
	if (f)
		fclose(f);
	unlink(errpath);
	if (rc != 0)
		return 0;
	const char *who = nsides == 1 ? "" : sd ? "B: " : "A: ";
	char *save = NULL;
	bool ready = false;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "primswitch: pid ", 16) == 0) {
			ready |= strstr(l, " ready ") != NULL;
			continue;
		}
		return pb_fail("%sthe library refused a setting: %s", who, l);
	}
	if (!ready)
		return pb_fail("%s%s did not load in a test run (PRIMBENCH_PRELOAD?)", who,
		               PB_PRELOAD_NAME);
	return 0;
}

/* The value of NAME in env[0..n) ("NAME=VALUE"), else NULL. */
static const char *env_value(char *const *env, size_t n, const char *name)
{
	size_t len = strlen(name);
	const char *val = NULL;
	for (size_t i = 0; env && i < n && env[i]; i++)
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			val = env[i] + len + 1;
	return val;
}

/* The library's variables in primbench's own environment (or in --env
 * and --vs-env) never apply by themselves (docs/preload.md, "primbench
 * cmd"): without the library loaded by an option they do nothing, unless
 * LD_PRELOAD loads it anyway; with it, cmd sets them from its options
 * and drops the inherited ones. Either is said once, naming them. */
static void inherited_library_vars(bool lib, char **env[2], const size_t nenv[2], bool record,
                                   const struct pb_cmd_ab_hooks *hooks)
{
	static const char *const vars[] = {
	    "PRIMBENCH_MEMSET",  "PRIMBENCH_MEMCPY",      "PRIMBENCH_MEMMOVE",
	    "PRIMBENCH_ACCOUNT", "PRIMBENCH_ACCOUNT_DIR", "PRIMBENCH_ACCOUNT_SIZES",
	};
	char list[1024] = "";
	size_t pos = 0;
	int count = 0;
	const char *preload = getenv("LD_PRELOAD");
	for (int sd = 0; sd < 2; sd++) {
		const char *v = env_value(env[sd], nenv[sd], "LD_PRELOAD");
		if (v)
			preload = v;
	}
	if (!lib && preload && strstr(preload, PB_PRELOAD_NAME))
		return; /* loaded by hand: they apply */
	for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++) {
		if (record && v == 5)
			continue; /* --record-distribution sets it as asked */
		const char *val = getenv(vars[v]);
		/* --env counts only without the library (with it, cmd refuses it) */
		for (int sd = 0; !lib && sd < 2; sd++) {
			const char *e = env_value(env[sd], nenv[sd], vars[v]);
			if (e)
				val = e;
		}
		if (!val || !val[0] || pos + 1 >= sizeof list)
			continue;
		pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%s='%s'",
		                        count ? ", " : "", vars[v], val);
		if (pos >= sizeof list)
			pos = sizeof list - 1;
		count++;
	}
	if (!count)
		return;
	if (lib)
		pb_cmd_ab_say(hooks, PB_CMD_AB_WARNING,
		              "cmd: not passed on to the command: %s (cmd sets %s's variables from "
		              "--memset, --memcpy, --memmove, --vs-... and --account only)",
		              list, PB_PRELOAD_NAME);
	else
		pb_cmd_ab_say(
		    hooks, PB_CMD_AB_WARNING,
		    "cmd: %s do%s nothing: %s is not loaded (--memset, --memcpy, --memmove "
		    "or --account load it)",
		    list, count == 1 ? "es" : "", PB_PRELOAD_NAME);
}

/* An allocated environment entry, kept for pb_cmd_ab_env_free. */
static char *owned(struct pb_cmd_ab_env *e, int sd, char *entry)
{
	for (size_t i = 0; i < sizeof e->owned[sd] / sizeof e->owned[sd][0]; i++)
		if (!e->owned[sd][i]) {
			e->owned[sd][i] = entry;
			break;
		}
	return entry;
}

/* The library's variables of one side, appended to env[0..*n). */
static int side_env(struct pb_cmd_ab_env *e, int sd, const char *so, char **env, size_t *n)
{
	char *entry;
	/* LD_PRELOAD: the library first, then what the side's --env or
	 * --vs-env, else the environment, gave. */
	const char *old = env_value(env, *n, "LD_PRELOAD");
	if (!old)
		old = getenv("LD_PRELOAD");
	if (asprintf(&entry, "LD_PRELOAD=%s%s%s", so, old && old[0] ? " " : "", old ? old : "") < 0)
		return pb_fail("out of memory");
	env[(*n)++] = owned(e, sd, entry);
	/* Exported PRIMBENCH_* variables must not leak in: unset the ones
	 * these options do not set ("NAME" without '=' unsets). */
	for (int op = 0; op < 3; op++) {
		if (!e->policy[sd][op]) {
			env[(*n)++] = (char *)lib_vars[op];
			continue;
		}
		if (asprintf(&entry, "%s=%s", lib_vars[op], e->policy[sd][op]) < 0)
			return pb_fail("out of memory");
		env[(*n)++] = owned(e, sd, entry);
	}
	/* --record-distribution: the exact sizes files too (account.h). */
	env[(*n)++] = e->record ? "PRIMBENCH_ACCOUNT_SIZES=1" : "PRIMBENCH_ACCOUNT_SIZES";
	/* The library's lines: to the session's file unless --env names
	 * one; each run's tree says a problem again (no marker). */
	if (!env_value(env, *n, "PRIMBENCH_PRELOAD_LOG")) {
		env[(*n)++] = e->log_env;
		e->use_log = true;
	}
	env[(*n)++] = "PRIMBENCH_PRELOAD_WARNED";
	if (!e->account) {
		env[(*n)++] = (char *)lib_vars[3];
		env[(*n)++] = (char *)lib_vars[4];
		env[*n] = NULL;
		return 0;
	}
	if (asprintf(&entry, "PRIMBENCH_ACCOUNT=%s", e->account == 2 ? "ticks" : "1") < 0)
		return pb_fail("out of memory");
	env[(*n)++] = owned(e, sd, entry);
	/* The counted runs' files end in acct_dir[0]; each run writes in
	 * acct_dir[1], moved there when the run counts (settle). */
	for (int w = 0; w < 2; w++) {
		snprintf(e->acct_dir[sd][w], sizeof e->acct_dir[sd][w], "%s/%s%s", e->acct_root,
		         sd ? "B" : "A", w ? "-run" : "");
		if (mkdir(e->acct_dir[sd][w], 0700) != 0)
			return pb_fail("--account: cannot make %s: %s", e->acct_dir[sd][w],
			               strerror(errno));
	}
	if (asprintf(&entry, "PRIMBENCH_ACCOUNT_DIR=%s", e->acct_dir[sd][1]) < 0)
		return pb_fail("out of memory");
	env[(*n)++] = owned(e, sd, entry);
	env[*n] = NULL;
	return 0;
}

int pb_cmd_ab_env_setup(struct pb_cmd_ab_env *e, int nsides, char **env[2], size_t nenv[2],
                        const struct pb_cmd_spec side[2], const struct pb_cmd_ab_hooks *hooks)
{
	snprintf(e->log_env, sizeof e->log_env, "PRIMBENCH_PRELOAD_LOG=");
	for (int sd = 0; sd < nsides; sd++) {
		e->lib[sd] = e->account != 0;
		for (int op = 0; op < 3; op++) {
			if (sd == 1 && !e->policy[1][op])
				e->policy[1][op] = e->policy[0][op];
			e->lib[sd] |= e->policy[sd][op] != NULL;
		}
	}
	bool lib = e->lib[0] || e->lib[1];
	char so[4096] = "";
	if (lib) {
		/* The library's variables belong to these options: set by hand too,
		 * one setting would silently win over the other. */
		for (int sd = 0; sd < nsides; sd++)
			for (size_t i = 0; i < nenv[sd]; i++)
				for (int v = 0; v < 5; v++) {
					size_t len = strlen(lib_vars[v]);
					if (strncmp(env[sd][i], lib_vars[v], len) == 0 &&
					    env[sd][i][len] == '=')
						return pb_fail("%s set with --env/--vs-env: use "
						               "--memset, --memcpy, --memmove, "
						               "--vs-... or --account",
						               lib_vars[v]);
				}
		if (pb_preload_path(so, sizeof so) != 0)
			return -1;
	}
	inherited_library_vars(lib, env, nenv, e->record, hooks);
	if (e->account) {
		snprintf(e->acct_root, sizeof e->acct_root, "%s/primbench-acct-XXXXXX", tmp_dir());
		if (!mkdtemp(e->acct_root)) {
			e->acct_root[0] = 0;
			return pb_fail("--account: cannot make a directory in %s: %s", tmp_dir(),
			               strerror(errno));
		}
	}
	for (int sd = 0; sd < nsides; sd++) {
		if (!e->lib[sd])
			continue;
		if (side_env(e, sd, so, env[sd], &nenv[sd]) != 0)
			return -1;
		/* A run of a tiny program under the side's environment: the library
		 * must load and accept every policy (the command's own warnings go
		 * to /dev/null, and --env may hide features). */
		if (preflight(&side[sd], sd, nsides) != 0)
			return -1;
	}
	return 0;
}

/* The library's lines of the whole session go to one file
 * (PRIMBENCH_PRELOAD_LOG, docs/preload.md), not to the command's stderr
 * (where a test suite that wants it empty would see them). Without a file
 * (mkstemp failed) the value stays empty: the lines go to the command's
 * stderr. */
void pb_cmd_ab_env_start_log(struct pb_cmd_ab_env *e)
{
	if (!e->use_log)
		return;
	size_t pre = strlen(e->log_env);
	snprintf(e->log_env + pre, sizeof e->log_env - pre, "%s/primbench-preload-log-XXXXXX",
	         tmp_dir());
	int fd = mkstemp(e->log_env + pre);
	if (fd < 0)
		e->log_env[pre] = 0;
	else
		close(fd);
}

void pb_cmd_ab_env_settle(const struct pb_cmd_ab_env *e, int side, bool keep)
{
	if (!e || !e->account || !e->lib[side])
		return;
	DIR *d = opendir(e->acct_dir[side][1]);
	struct dirent *ent;
	while (d && (ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		char from[4500], to[4500];
		snprintf(from, sizeof from, "%s/%s", e->acct_dir[side][1], ent->d_name);
		snprintf(to, sizeof to, "%s/%s", e->acct_dir[side][0], ent->d_name);
		if (!keep || rename(from, to) != 0)
			unlink(from);
	}
	if (d)
		closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file's text, the library's wrapped lines (a newline and 4 spaces
 * for a space) joined back so that each message is one line again; *size
 * its length. NULL when there is none. */
static char *log_text(const char *path, size_t *size)
{
	FILE *f = path[0] ? fopen(path, "r") : NULL;
	char *text = NULL;
	*size = 0;
	if (f) {
		FILE *m = open_memstream(&text, size);
		char chunk[4096];
		size_t got;
		while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
			fwrite(chunk, 1, got, m);
		if (m)
			fclose(m);
		fclose(f);
	}
	size_t kept = 0;
	for (size_t i = 0; text && i < *size; i++) {
		if (text[i] == '\n' && i + 4 < *size && strncmp(text + i + 1, "    ", 4) == 0) {
			text[kept++] = ' ';
			i += 4;
		} else {
			text[kept++] = text[i];
		}
	}
	*size = kept;
	if (text)
		text[kept] = '\0';
	return text;
}

/* line[0..k) once each in order of first occurrence, with their count. */
static void print_distinct(FILE *f, char **line, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		bool first = true; /* not seen before i */
		size_t count = 0;
		for (size_t j = 0; j < k; j++)
			if (strcmp(line[j], line[i]) == 0) {
				first &= j >= i;
				count++;
			}
		if (!first)
			continue;
		char *out;
		char times[32] = "";
		if (count > 1)
			snprintf(times, sizeof times, "%zux ", count);
		if (asprintf(&out, "%s%s", times, line[i]) >= 0) {
			pb_print_wrapped_at(f, 2, 4, out);
			free(out);
		}
	}
}

void pb_cmd_ab_env_report_log(struct pb_cmd_ab_env *e, FILE *f)
{
	const char *path = e->log_env + strlen("PRIMBENCH_PRELOAD_LOG=");
	size_t size;
	char *text = log_text(path, &size);
	if (path[0])
		unlink(path);
	size_t n = 0;
	for (size_t i = 0; text && i < size; i++)
		n += text[i] == '\n';
	char **line = n ? calloc(n + 1, sizeof *line) : NULL;
	char **sorted = n ? calloc(n + 1, sizeof *sorted) : NULL;
	size_t k = 0;
	char *save = NULL;
	for (char *l = line ? strtok_r(text, "\n", &save) : NULL; l && k < n;
	     l = strtok_r(NULL, "\n", &save))
		line[k++] = l;
	if (k && sorted) {
		memcpy(sorted, line, k * sizeof *sorted);
		qsort(sorted, k, sizeof *sorted, cmp_str);
		size_t distinct = 1;
		for (size_t i = 1; i < k; i++)
			distinct += strcmp(sorted[i], sorted[i - 1]) != 0;
		char head[200];
		snprintf(head, sizeof head,
		         "primbench: cmd: what %s said in the runs (%zu line%s, %zu "
		         "distinct):",
		         PB_PRELOAD_NAME, k, k == 1 ? "" : "s", distinct);
		pb_print_wrapped_at(f, 0, 2, head);
		print_distinct(f, line, k);
	}
	free(sorted);
	free(line);
	free(text);
}

/* nftw(3) callback: removes each entry, the directories after their
 * contents (FTW_DEPTH). */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	remove(path);
	return 0;
}

/* Removes a temporary directory and everything in it (the --account tree
 * root/SIDE/files, the --profile directory); symbolic links are not
 * followed. */
static void remove_tree(const char *dir)
{
	if (dir[0])
		nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes the --account directory tree. */
static void acct_cleanup(const char *root)
{
	remove_tree(root);
}

void pb_cmd_ab_env_free(struct pb_cmd_ab_env *e)
{
	acct_cleanup(e->acct_root);
	e->acct_root[0] = 0;
	for (int sd = 0; sd < 2; sd++)
		for (size_t i = 0; i < sizeof e->owned[sd] / sizeof e->owned[sd][0]; i++) {
			free(e->owned[sd][i]);
			e->owned[sd][i] = NULL;
		}
}

/* ---- the runs ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int add_rec(struct pb_cmd_ab_result *r, const struct pb_cmd_record *rec)
{
	if (pb_grow(&r->recs, &r->caprecs, r->nrecs, sizeof *r->recs, 64) != 0)
		return pb_fail("out of memory");
	r->recs[r->nrecs++] = *rec;
	return 0;
}

static const char *side_name(const struct pb_cmd_ab_params *p, int side)
{
	return p->nsides == 1 ? "" : (side ? "B" : "A");
}

/* A run left processes running: counted; the first time a warning with
 * their number; without wait_children they are waited for here, untimed
 * (pb_cmd_wait_leftovers). Returns 0, or 1 when interrupted meanwhile. */
static int leftovers_wait(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r,
                          const struct pb_cmd_record *rec)
{
	r->leftover_runs++;
	if (rec->run.leftovers > r->leftover_max)
		r->leftover_max = rec->run.leftovers;
	if (r->leftover_runs == 1)
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_WARNING,
		              "%srun %s%zu left %ld process%s running when it exited; %s",
		              rec->warmup ? "warm-up " : "", side_name(p, rec->side), rec->index,
		              rec->run.leftovers, rec->run.leftovers == 1 ? "" : "es",
		              p->wait_children
		                  ? "the run lasted until the last one exited (--wait-children)"
		                  : "each run's are waited for, untimed, before the next "
		                    "(--wait-children times them)");
	if (p->wait_children)
		return 0;
	return pb_cmd_wait_leftovers(p->stop) < 0 ? 1 : 0;
}

/* --prepare, untimed; returns as one_run. */
static enum pb_cmd_ab_end prepare_run(const struct pb_cmd_ab_params *p)
{
	struct pb_cmd_run pr;
	int rc = pb_cmd_run_once(p->prepare, &pr, p->stop);
	if (rc < 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--prepare: %s", pb_error());
		return PB_CMD_AB_CANNOT_START;
	}
	if (rc == 1)
		return PB_CMD_AB_INTERRUPTED;
	if (pr.exit_code != 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--prepare command failed (%s %d)",
		              pr.term_signal ? "signal" : "exit status",
		              pr.term_signal ? pr.term_signal : pr.exit_code);
		return PB_CMD_AB_FAILED;
	}
	return PB_CMD_AB_DONE;
}

/* The message of a run that failed. */
static void say_failed(const struct pb_cmd_ab_params *p, const struct pb_cmd_record *rec)
{
	char what[96];
	if (rec->run.term_signal)
		snprintf(what, sizeof what, "was killed by signal %d (%s)", rec->run.term_signal,
		         strsignal(rec->run.term_signal));
	else
		snprintf(what, sizeof what, "exited with status %d%s", rec->run.exit_code,
		         rec->run.exit_code == 127 && p->shell   ? " (the shell's 'not found')"
		         : rec->run.exit_code == 126 && p->shell ? " (the shell's 'cannot execute')"
		                                                 : "");
	pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "%srun %s%zu %s (see --show-output; or -i)",
	              rec->warmup ? "warm-up " : "", side_name(p, rec->side), rec->index, what);
}

/* --randomize-env, --layout-audit: the pad of the run rec will be
 * (cmd_layout.h, by rec->position) into rec and spec->env_extra, its
 * entry in *entry for the caller to free (NULL without a pad). Returns 0,
 * or -1 after an error line (out of memory). */
static int run_pad(const struct pb_cmd_ab_params *p, struct pb_cmd_record *rec,
                   struct pb_cmd_spec *spec, char **entry)
{
	long pad = pb_layout_pad_of(p->layout, rec->position);
	*entry = pad >= 0 ? pb_layout_pad_entry((size_t)pad) : NULL;
	if (pad >= 0 && !*entry) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "out of memory");
		return -1;
	}
	spec->env_extra = *entry;
	rec->padded = pad >= 0;
	rec->pad_bytes = pad >= 0 ? (size_t)pad : 0;
	return 0;
}

/* Runs one (after --prepare); PB_CMD_AB_DONE when the session goes on. */
static enum pb_cmd_ab_end one_run(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r,
                                  int side, bool warmup)
{
	fflush(stdout); /* with --show-output, the caller's lines before the command's */
	if (p->prepare) {
		enum pb_cmd_ab_end end = prepare_run(p);
		if (end != PB_CMD_AB_DONE)
			return end;
	}
	struct pb_cmd_record rec = {.side = side, .warmup = warmup, .position = r->nrecs};
	struct pb_cmd_spec spec = p->side[side];
	char *pad_entry;
	if (run_pad(p, &rec, &spec, &pad_entry) != 0)
		return PB_CMD_AB_CANNOT_START;
	int rc = pb_cmd_run_once(&spec, &rec.run, p->stop);
	free(pad_entry);
	pb_cmd_ab_env_settle(p->env, side, rc == 0 && !warmup);
	if (rc < 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "%s", pb_error());
		return PB_CMD_AB_CANNOT_START;
	}
	if (rc == 1)
		return PB_CMD_AB_INTERRUPTED;
	rec.index = warmup ? ++r->warm[side] : ++r->counted[side];
	if (add_rec(r, &rec) != 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "%s", pb_error());
		return PB_CMD_AB_CANNOT_START;
	}
	if (rec.run.leftovers > 0 && leftovers_wait(p, r, &rec) != 0)
		return PB_CMD_AB_INTERRUPTED;
	if (rec.run.exit_code != 0 && !p->ignore_failure) {
		say_failed(p, &rec);
		return PB_CMD_AB_FAILED;
	}
	return PB_CMD_AB_DONE;
}

/* The look due now, if any: its statistics, verdict and record; true when it
 * ends the session (r->ended_by set). */
static bool look(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r)
{
	if (r->looks >= r->plan.nlooks || r->counted[0] != r->plan.look_n[r->looks])
		return false;
	pb_cmd_ab_stats(r->recs, r->nrecs, p->metric, r->plan.level_per_look, true, &r->look_ab);
	const struct pb_shift *lr = p->paired ? &r->look_ab.paired : &r->look_ab.ratio;
	bool lvalid = p->paired ? r->look_ab.paired_valid : r->look_ab.valid;
	r->verdict = lvalid ? pb_verdict_of(lr, p->equivalence) : PB_VERDICT_NONE;
	r->look[r->looks] = (struct pb_cmd_ab_look){.runs_per_side = r->counted[0],
	                                            .ratio = lr->estimate,
	                                            .ci_lo = lr->lo,
	                                            .ci_hi = lr->hi,
	                                            .verdict = r->verdict};
	r->looks++;
	if (!r->look_ab.valid && r->look_ab.nonpositive)
		r->ended_by = "zero-metric";
	else if (r->verdict != PB_VERDICT_NONE)
		r->ended_by = "verdict";
	return r->ended_by != NULL;
}

/* One duet pair (after --prepare): A and B at once, on the slots and in
 * the spawn order of pair `pair`; PB_CMD_AB_DONE when the session goes
 * on. */
static enum pb_cmd_ab_end duet_pair(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r,
                                    size_t pair, bool warmup)
{
	fflush(stdout);
	if (p->prepare) {
		enum pb_cmd_ab_end end = prepare_run(p);
		if (end != PB_CMD_AB_DONE)
			return end;
	}
	int a_slot = (int)(pair % 2);
	bool a_first = (pair / 2) % 2 == 0;
	struct pb_cmd_spec spec[2] = {p->side[0], p->side[1]};
	spec[0].cpus = p->duet_cpus[a_slot];
	spec[1].cpus = p->duet_cpus[1 - a_slot];
	/* each side's record-to-be (A's first) and its pad, as one_run draws it */
	struct pb_cmd_record rec[2];
	char *pad_entry[2] = {NULL, NULL};
	for (int sd = 0; sd < 2; sd++) {
		rec[sd] = (struct pb_cmd_record){.side = sd,
		                                 .warmup = warmup,
		                                 .position = r->nrecs + (size_t)sd,
		                                 .duet_slot = 1 + (sd ? 1 - a_slot : a_slot),
		                                 .spawned_first = (sd == 0) == a_first};
		if (run_pad(p, &rec[sd], &spec[sd], &pad_entry[sd]) != 0) {
			free(pad_entry[0]);
			return PB_CMD_AB_CANNOT_START;
		}
	}
	const struct pb_cmd_spec *order[2] = {&spec[a_first ? 0 : 1], &spec[a_first ? 1 : 0]};
	struct pb_cmd_run run[2];
	int rc = pb_cmd_run_pair(order, run, p->stop);
	free(pad_entry[0]);
	free(pad_entry[1]);
	for (int sd = 0; sd < 2; sd++)
		pb_cmd_ab_env_settle(p->env, sd, rc == 0 && !warmup);
	if (rc < 0) {
		pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "%s", pb_error());
		return PB_CMD_AB_CANNOT_START;
	}
	if (rc == 1)
		return PB_CMD_AB_INTERRUPTED;
	enum pb_cmd_ab_end end = PB_CMD_AB_DONE;
	for (int sd = 0; sd < 2; sd++) {
		rec[sd].run = run[a_first ? sd : 1 - sd];
		rec[sd].index = warmup ? ++r->warm[sd] : ++r->counted[sd];
		if (add_rec(r, &rec[sd]) != 0) {
			pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "%s", pb_error());
			return PB_CMD_AB_CANNOT_START;
		}
		if (rec[sd].run.leftovers > 0 && leftovers_wait(p, r, &rec[sd]) != 0)
			return PB_CMD_AB_INTERRUPTED;
		if (rec[sd].run.exit_code != 0 && !p->ignore_failure && end == PB_CMD_AB_DONE) {
			say_failed(p, &rec[sd]);
			end = PB_CMD_AB_FAILED;
		}
	}
	return end;
}

/* n runs (per side: n * nsides), in ABBA order, or n duet pairs; false
 * when the session ended (r->end or r->ended_by set). */
static bool runs(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r, size_t n,
                 bool warmup, size_t total, double t0)
{
	size_t steps = p->duet ? n : n * (size_t)p->nsides;
	for (size_t i = 0; i < steps; i++) {
		if (p->hooks.progress)
			p->hooks.progress(p->hooks.ctx, r->nrecs, total);
		if (p->duet)
			r->end = duet_pair(p, r, warmup ? i : r->counted[0], warmup);
		else
			r->end = one_run(p, r, p->nsides == 2 ? pb_cmd_abba_side(i) : 0, warmup);
		if (r->end != PB_CMD_AB_DONE)
			return false;
		if (warmup || !p->until_verdict || r->counted[0] != r->counted[1])
			continue;
		if (look(p, r))
			return false;
		if (p->budget_s > 0 && now_s() - t0 > p->budget_s) {
			r->ended_by = "budget";
			return false;
		}
	}
	return true;
}

int pb_cmd_ab_run(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_result *r)
{
	memset(r, 0, sizeof *r);
	if (p->until_verdict && (p->paired ? pb_seq_plan_make_paired(p->max_runs, 0.05, &r->plan)
	                                   : pb_seq_plan_make(p->max_runs, 0.05, &r->plan)) != 0)
		return -1;
	double t0 = now_s();
	size_t total = p->until_verdict ? 0 : (p->warmup + p->runs) * (size_t)p->nsides;
	if (runs(p, r, p->warmup, true, total, t0) &&
	    runs(p, r, p->until_verdict ? p->max_runs : p->runs, false, total, t0) &&
	    p->until_verdict)
		r->ended_by = "max-runs";
	return 0;
}

void pb_cmd_ab_result_free(struct pb_cmd_ab_result *r)
{
	free(r->recs);
	memset(r, 0, sizeof *r);
}

/* ---- --layout-audit ---- */

int pb_cmd_ab_layout_audit(const struct pb_cmd_ab_params *p, size_t runs_per_size, uint64_t seed,
                           struct pb_cmd_ab_result *r, struct pb_layout_audit *a)
{
	struct pb_layout_plan plan = {.mode = PB_LAYOUT_AUDIT, .seed = seed, .warmup = p->warmup};
	struct pb_cmd_ab_params q = *p;
	q.nsides = 1;
	q.until_verdict = false;
	q.duet = q.paired = false; /* A alone, one run at a time */
	q.runs = runs_per_size * PB_LAYOUT_AUDIT_SIZES;
	q.layout = &plan;
	memset(a, 0, sizeof *a);
	if (pb_cmd_ab_run(&q, r) != 0)
		return -1;
	double *v = malloc((r->nrecs + 1) * sizeof *v);
	unsigned *g = malloc((r->nrecs + 1) * sizeof *g);
	size_t n = 0;
	for (size_t i = 0; v && g && i < r->nrecs; i++) {
		int k = pb_layout_audit_index((long)r->recs[i].pad_bytes);
		if (r->recs[i].warmup || !r->recs[i].padded || k < 0)
			continue;
		v[n] = pb_cmd_metric_value(&r->recs[i].run, p->metric);
		g[n++] = (unsigned)k;
	}
	int rc = v && g ? pb_layout_audit_stats(v, g, n, PB_LAYOUT_AUDIT_SIZES, a) : -1;
	free(v);
	free(g);
	return rc == 0 ? 0 : pb_fail("out of memory");
}

/* ---- the statistics ---- */

size_t pb_cmd_ab_values(const struct pb_cmd_record *recs, size_t n, int side, int metric,
                        double *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (recs[i].side == side && !recs[i].warmup)
			out[k++] = pb_cmd_metric_value(&recs[i].run, metric);
	return k;
}

size_t pb_cmd_ab_pairs(const struct pb_cmd_record *recs, size_t n, int metric, double *a, double *b)
{
	size_t na = pb_cmd_ab_values(recs, n, 0, metric, a);
	size_t nb = pb_cmd_ab_values(recs, n, 1, metric, b);
	return na < nb ? na : nb;
}

static bool all_positive(const double *v, size_t n)
{
	bool positive = true;
	for (size_t i = 0; i < n; i++)
		positive &= v[i] > 0;
	return positive;
}

void pb_cmd_ab_stats(const struct pb_cmd_record *recs, size_t n, int metric, double level,
                     bool look, struct pb_cmd_ab_stats *ab)
{
	memset(ab, 0, sizeof *ab);
	double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
	if (!a || !b)
		goto out;
	ab->na = pb_cmd_ab_values(recs, n, 0, metric, a);
	ab->nb = pb_cmd_ab_values(recs, n, 1, metric, b);
	struct pb_summary sa, sb;
	if (ab->na < 1 || ab->nb < 1 || pb_summarize(a, ab->na, 0.95, &sa) != 0 ||
	    pb_summarize(b, ab->nb, 0.95, &sb) != 0)
		goto out;
	ab->med_a = sa.median;
	ab->med_b = sb.median;
	bool positive = all_positive(a, ab->na) && all_positive(b, ab->nb);
	ab->nonpositive = !positive;
	if (!positive ||
	    (look ? pb_seq_ratio(a, ab->na, b, ab->nb, level, &ab->ratio)
	          : pb_hodges_lehmann_ratio(a, ab->na, b, ab->nb, level, &ab->ratio)) != 0 ||
	    pb_mann_whitney(a, ab->na, b, ab->nb, &ab->u) != 0)
		goto out;
	ab->t_valid =
	    ab->na >= 2 && ab->nb >= 2 && pb_ttest_pooled(a, ab->na, b, ab->nb, 0.95, &ab->t) == 0;
	ab->valid = true;
	/* the pairs: A's k-th counted run with B's k-th (a, b in run order) */
	ab->npairs = ab->na < ab->nb ? ab->na : ab->nb;
	ab->paired_valid =
	    ab->npairs >= 1 && pb_paired_hl_ratio(a, b, ab->npairs, level, &ab->paired) == 0;
out:
	free(a);
	free(b);
}

enum pb_verdict pb_cmd_ab_verdict(const struct pb_cmd_ab_stats *ab, double margin)
{
	const struct pb_verdict_rule rule = {.null = 1, .margin = margin, .u = &ab->u};
	return ab->valid ? pb_verdict(&ab->ratio, &rule) : PB_VERDICT_NONE;
}

enum pb_verdict pb_cmd_ab_verdict_paired(const struct pb_cmd_ab_stats *ab, double margin)
{
	return ab->paired_valid ? pb_verdict_of(&ab->paired, margin) : PB_VERDICT_NONE;
}

enum pb_verdict pb_cmd_ab_session_verdict(const struct pb_cmd_ab_params *p,
                                          const struct pb_cmd_ab_stats *ab)
{
	return p->paired ? pb_cmd_ab_verdict_paired(ab, p->equivalence)
	                 : pb_cmd_ab_verdict(ab, p->equivalence);
}

/* ---- --profile ---- */

/* Removes the --profile directory and what is left in it. */
static void prof_cleanup(char *dir)
{
	remove_tree(dir);
	dir[0] = 0;
}

int pb_cmd_ab_profile_setup(struct pb_cmd_ab_profile *pr)
{
	pr->event = "cpu-clock";
	if (pb_counters_available(pr->hw_why, sizeof pr->hw_why))
		pr->event = "cycles";
	snprintf(pr->dir, sizeof pr->dir, "%s/primbench-profile-XXXXXX", tmp_dir());
	if (!mkdtemp(pr->dir)) {
		pr->dir[0] = 0;
		return pb_fail("--profile: cannot make a directory in %s: %s", tmp_dir(),
		               strerror(errno));
	}
	if (pb_profile_check(pr->perf, pr->event, pr->dir) != 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s", pb_error());
		prof_cleanup(pr->dir);
		return pb_fail("--profile: %s", msg);
	}
	return 0;
}

void pb_cmd_ab_profile_run(const struct pb_cmd_ab_params *p, struct pb_cmd_ab_profile *pr,
                           enum pb_cmd_ab_end *end)
{
	static const struct pb_cmd_spec no_prepare;
	for (int sd = 0; *end == PB_CMD_AB_DONE && sd < p->nsides; sd++) {
		if (p->hooks.profiling)
			p->hooks.profiling(p->hooks.ctx, sd);
		fflush(stdout);
		int rc = pb_profile_run(pr->perf, pr->event, pr->dir, &p->side[sd],
		                        p->prepare ? p->prepare : &no_prepare, pr->runs, p->stop,
		                        &pr->prof[sd], &pr->exit_code[sd]);
		pb_cmd_ab_env_settle(p->env, sd, false);
		if (rc == 1)
			*end = PB_CMD_AB_INTERRUPTED;
		else if (rc < 0)
			pb_cmd_ab_say(&p->hooks, PB_CMD_AB_ERROR, "--profile: %s%s",
			              p->nsides == 1 ? ""
			              : sd           ? "B: "
			                             : "A: ",
			              pb_error());
		else
			pr->have[sd] = true;
	}
	prof_cleanup(pr->dir);
}

void pb_cmd_ab_profile_free(struct pb_cmd_ab_profile *pr)
{
	prof_cleanup(pr->dir);
	pb_profile_free(&pr->prof[0]);
	pb_profile_free(&pr->prof[1]);
}

/* The counted runs that failed (kept by --ignore-failure), of how many. */
size_t pb_cmd_ab_failed_runs(const struct pb_cmd_ab_result *r, size_t *counted)
{
	size_t failed = 0;
	*counted = 0;
	for (size_t i = 0; i < r->nrecs; i++)
		if (!r->recs[i].warmup) {
			(*counted)++;
			failed += r->recs[i].run.exit_code != 0;
		}
	return failed;
}
