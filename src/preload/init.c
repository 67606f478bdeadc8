/* init.c - libprimswitch.so's initialisation: the environment, the
 * policies, libc's own functions, the accounting file; the constructor,
 * the fork child handler, and the messages (docs/preload.md).
 *
 * Initialisation runs once, in state INITIALISING, from the constructor or
 * from the first call if that comes first (another library's constructor,
 * or a thread it started). It may therefore run inside malloc, or with
 * the loader's lock held: it allocates nothing, takes no lock of its own,
 * and uses no stdio (messages are built in a stack buffer and written with
 * one write(2)). Every memset/memcpy it makes, including those the
 * compiler emits for struct copies and those inside dlsym, lands on this
 * library's exported functions, which serve them with the bootstrap kernel
 * until the state is READY.
 *
 * A problem with the environment is one line on stderr (or in the file
 * PRIMBENCH_PRELOAD_LOG names), once per command tree (a line an ancestor
 * wrote is in PRIMBENCH_PRELOAD_WARNED), and the program runs on: a bad
 * policy gives that op libc's function, a bad accounting setting turns
 * accounting off. Nothing here exits or aborts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload.h"
#include "primbench/auto.h"
#include "primbench/error.h"
#include "primbench/text.h"

struct pb_sw_libc pb_sw_libc;

static const char *const policy_env[PB_OP_COUNT] = {
    [PB_OP_MEMSET] = "PRIMBENCH_MEMSET",
    [PB_OP_MEMCPY] = "PRIMBENCH_MEMCPY",
    [PB_OP_MEMMOVE] = "PRIMBENCH_MEMMOVE",
};

static const char *const prim_names[PB_ACCT_NPRIM] = {
    [PB_ACCT_MEMSET] = "memset",
    [PB_ACCT_BZERO] = "bzero",
    [PB_ACCT_EXPLICIT_BZERO] = "explicit_bzero",
    [PB_ACCT_MEMCPY] = "memcpy",
    [PB_ACCT_MEMPCPY] = "mempcpy",
    [PB_ACCT_MEMMOVE] = "memmove",
};

#define SAMPLE_DEFAULT 64
#define SAMPLE_MAX     (1u << 30)

/* PRIMBENCH_PRELOAD_DEBUG: a line when ready, and one at exit. */
static bool debug;

/* What each op's policy came to, for the debug line. */
enum policy_outcome { POLICY_UNSET, POLICY_BAD, POLICY_SET };
static enum policy_outcome outcome[PB_OP_COUNT];

/* ---- messages ---------------------------------------------------------- */

void pb_sw_line_add(struct pb_sw_line *l, const char *text)
{
	while (*text && l->len + 1 < sizeof l->buf)
		l->buf[l->len++] = *text++;
}

void pb_sw_line_add_u64(struct pb_sw_line *l, uint64_t v)
{
	char digits[24], text[24];
	unsigned n = 0;
	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (unsigned i = 0; i < n; i++)
		text[i] = digits[n - 1 - i];
	text[n] = '\0';
	pb_sw_line_add(l, text);
}

/* strerror() may translate (locale, locks): strerrordesc_np is a constant
 * string (glibc 2.32+). */
void pb_sw_line_add_errno(struct pb_sw_line *l, int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *desc = strerrordesc_np(err);
	if (desc) {
		pb_sw_line_add(l, desc);
		return;
	}
#endif
	pb_sw_line_add(l, "errno ");
	pb_sw_line_add_u64(l, (uint64_t)err);
}

/* PRIMBENCH_PRELOAD_LOG: the file the lines go to ("" = stderr), opened
 * for each line (O_APPEND, one write(2) per line, so that many processes
 * can share it; no descriptor kept that a program could close or reuse). */
static char log_path[4096];

/* Once per command tree: the FNV-1a hashes of the warnings this process
 * wrote, and of those an ancestor wrote (PRIMBENCH_PRELOAD_WARNED, a comma
 * list of 16 hex digits each, read at start-up, set by the constructor). */
#define WARNED_MAX 8
#define WARNED_ENV "PRIMBENCH_PRELOAD_WARNED"
static uint64_t warned_inherited[WARNED_MAX], warned_here[WARNED_MAX];
static unsigned n_inherited, n_here;

static uint64_t line_hash(const struct pb_sw_line *l)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < l->len; i++)
		h = (h ^ (unsigned char)l->buf[i]) * 0x100000001b3u;
	return h;
}

static void read_warned(void)
{
	const char *v = getenv(WARNED_ENV);
	n_inherited = 0;
	while (v && *v && n_inherited < WARNED_MAX) {
		uint64_t h = 0;
		int digits = 0;
		for (; digits < 16; digits++, v++) {
			char c = *v;
			unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			             : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			                                    : 16u;
			if (d == 16)
				break;
			h = h << 4 | d;
		}
		if (digits != 16 || (*v && *v != ','))
			return; /* not ours: ignored */
		warned_inherited[n_inherited++] = h;
		if (*v)
			v++;
	}
}

/* Wraps the line in place at PB_TEXT_WIDTH columns, at spaces, as the CLI
 * does: a space becomes a newline and an indent of LINE_INDENT. A word too
 * long for a line (a path) stays whole, so that joining "\n    " back into
 * " " gives the line as built (primbench cmd joins the log's lines so). No
 * room left in the buffer: the rest stays unwrapped. */
#define LINE_INDENT 4
static void line_wrap(struct pb_sw_line *l)
{
	size_t brk[64]; /* the spaces that become line breaks */
	unsigned nbrk = 0;
	size_t start = 0, cand = 0; /* the line's first byte; a space on it */
	bool have_cand = false;
	for (size_t i = 0; i <= l->len; i++) {
		if (i < l->len && l->buf[i] != ' ')
			continue;
		/* a word ends at i */
		size_t width = (nbrk ? LINE_INDENT : 0) + i - start;
		if (width > PB_TEXT_WIDTH && have_cand) {
			if (nbrk == sizeof brk / sizeof brk[0] ||
			    l->len + (nbrk + 1) * LINE_INDENT + 1 >= sizeof l->buf)
				break;
			brk[nbrk++] = cand;
			start = cand + 1;
		}
		cand = i;
		have_cand = i < l->len && i > start;
	}
	if (nbrk == 0)
		return;
	/* expand from the end: each break adds LINE_INDENT bytes */
	size_t src = l->len, dst = l->len + nbrk * LINE_INDENT;
	l->len = dst;
	for (unsigned b = nbrk; b-- > 0;) {
		while (src > brk[b] + 1)
			l->buf[--dst] = l->buf[--src];
		for (int k = 0; k < LINE_INDENT; k++)
			l->buf[--dst] = ' ';
		l->buf[--dst] = '\n';
		src--; /* the space */
	}
}

/* Writes the line and a newline in one write(2) to the log file, else
 * stderr. */
static void line_out(struct pb_sw_line *l)
{
	l->buf[l->len++] = '\n'; /* pb_sw_line_add and line_wrap keep a byte free */
	int fd = -1;
	if (log_path[0]) {
		do
			fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		while (fd < 0 && errno == EINTR);
	}
	if (fd >= 0) {
		ssize_t w;
		do
			w = write(fd, l->buf, l->len);
		while (w < 0 && errno == EINTR);
		close(fd);
		if (w == (ssize_t)l->len) {
			l->len = 0;
			return;
		}
	}
	size_t done = 0;
	while (done < l->len) {
		ssize_t w = write(STDERR_FILENO, l->buf + done, l->len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	l->len = 0;
}

void pb_sw_line_write(struct pb_sw_line *l)
{
	uint64_t h = line_hash(l);
	for (unsigned i = 0; i < n_inherited; i++)
		if (warned_inherited[i] == h) {
			l->len = 0;
			return;
		}
	if (n_here < WARNED_MAX)
		warned_here[n_here++] = h;
	line_wrap(l);
	line_out(l);
}

/* The debug lines: every process says them (they carry its pid). Not
 * wrapped: a record per process that primbench cmd and the tests read. */
static void line_write_always(struct pb_sw_line *l)
{
	line_out(l);
}

/* PRIMBENCH_PRELOAD_LOG: set, not empty, not too long: lines go there. */
static void setup_log(void)
{
	const char *v = getenv("PRIMBENCH_PRELOAD_LOG");
	log_path[0] = '\0';
	if (v && *v && pb_sw_copy_text(log_path, v, sizeof log_path) != strlen(v))
		log_path[0] = '\0'; /* too long: stderr */
}

/* The constructor: the warnings written here join the inherited ones in
 * PRIMBENCH_PRELOAD_WARNED, so that the programs this one starts do not
 * repeat them. setenv(3) allocates: never from pb_sw_init (which may run
 * inside malloc). */
static void export_warned(void)
{
	if (n_here == 0)
		return;
	char text[WARNED_MAX * 17 + 1];
	size_t pos = 0;
	unsigned kept = 0; /* the newest are dropped beyond WARNED_MAX */
	for (unsigned src = 0; src < 2; src++) {
		const uint64_t *hs = src ? warned_here : warned_inherited;
		unsigned n = src ? n_here : n_inherited;
		for (unsigned i = 0; i < n && kept < WARNED_MAX; i++, kept++) {
			if (pos)
				text[pos++] = ',';
			for (int d = 15; d >= 0; d--)
				text[pos++] = "0123456789abcdef"[(hs[i] >> (4 * d)) & 15];
		}
	}
	text[pos] = '\0';
	setenv(WARNED_ENV, text, 1);
}

/* A line is declared without an initialiser: zeroing its buffer would be a
 * call of this library's memset. */
#define LINE_START(l) ((l).len = 0, pb_sw_line_add(&(l), "primswitch: "))

size_t pb_sw_copy_text(char *dst, const char *src, size_t cap)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return i;
}

static bool env_on(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* ---- libc's functions ---------------------------------------------------- */

/* The next definition after this library (libc's; for memcpy the default
 * version, memcpy@@GLIBC_2.14 on x86-64). Never our own: that would
 * recurse. */
static void *next_definition(const char *name, void *own)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f && f != own)
		return f;
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, "dlsym(RTLD_NEXT, \"");
	pb_sw_line_add(&l, name);
	pb_sw_line_add(&l, "\") found no other ");
	pb_sw_line_add(&l, name);
	pb_sw_line_add(&l, ": 'libc' is served by the bootstrap kernel");
	pb_sw_line_write(&l);
	return NULL;
}

static void find_libc(void)
{
	__atomic_store_n(&pb_sw_libc.memset,
	                 (pb_memset_fn)next_definition("memset", (void *)memset), __ATOMIC_RELEASE);
	__atomic_store_n(&pb_sw_libc.memcpy,
	                 (pb_memcpy_fn)next_definition("memcpy", (void *)memcpy), __ATOMIC_RELEASE);
	__atomic_store_n(&pb_sw_libc.memmove,
	                 (pb_memmove_fn)next_definition("memmove", (void *)memmove),
	                 __ATOMIC_RELEASE);
}

/* ---- policies -------------------------------------------------------------- */

static void use_libc(enum pb_op op)
{
	switch (op) {
	case PB_OP_MEMSET:
		pb_sw_impl.set = pb_sw_libc.memset ? pb_sw_libc.memset : pb_boot_memset;
		break;
	case PB_OP_MEMCPY:
		pb_sw_impl.cpy = pb_sw_libc.memcpy ? pb_sw_libc.memcpy : pb_boot_memcpy;
		break;
	default:
		pb_sw_impl.move = pb_sw_libc.memmove ? pb_sw_libc.memmove : pb_boot_memmove;
		break;
	}
}

/* One kernel for every size: the entry is the kernel itself (libc's
 * function for `libc`); more bands: the banded dispatcher. */
static void use_policy(enum pb_op op, const struct pb_policy *p)
{
	const struct pb_kernel *k = p->bands[0].kernel;
	if (p->n_bands == 1 && !strcmp(k->name, "libc")) {
		use_libc(op);
		return;
	}
	switch (op) {
	case PB_OP_MEMSET:
		pb_sw_impl.set = p->n_bands == 1 ? k->memset_fn : pb_sw_set_banded;
		break;
	case PB_OP_MEMCPY:
		pb_sw_impl.cpy = p->n_bands == 1 ? k->memcpy_fn : pb_sw_cpy_banded;
		break;
	default:
		pb_sw_impl.move = p->n_bands == 1 ? k->memmove_fn : pb_sw_move_banded;
		break;
	}
}

/* The auto kernels' set-up: 0 not tried, 1 done, -1 failed (the policy
 * file is bad: every op naming auto gets libc's function). */
static int auto_state;
static struct pb_auto_origin auto_origin;

/* "primswitch: PRIMBENCH_MEMSET<what>ERROR; using libc's memset" on
 * stderr for a policy that cannot serve (its op keeps libc's function);
 * returns false. */
static bool bad_policy(enum pb_op op, const char *what)
{
	outcome[op] = POLICY_BAD;
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, policy_env[op]);
	pb_sw_line_add(&l, what);
	pb_sw_line_add(&l, pb_error());
	pb_sw_line_add(&l, "; using libc's ");
	pb_sw_line_add(&l, pb_op_name(op));
	pb_sw_line_write(&l);
	return false;
}

/* Empty or unset: libc's function, silently. Returns false for a bad
 * policy (one line on stderr; libc's function). */
static bool setup_op(enum pb_op op, pb_features have)
{
	const char *text = getenv(policy_env[op]);
	pb_sw_copy_text(pb_sw_acct_config.policy_text[op], text ? text : "", PB_ACCT_TEXT);
	use_libc(op);
	outcome[op] = POLICY_UNSET;
	if (!text || !*text)
		return true;
	if (pb_policy_parse(op, text, have, &pb_sw_policy[op]) != 0)
		return bad_policy(op, ": ");
	const struct pb_policy *pp = &pb_sw_policy[op];
	for (size_t b = 0; b < pp->n_bands; b++) {
		if (strcmp(pp->bands[b].kernel->name, "auto") != 0)
			continue;
		/* The auto kernels dispatch by the policy file tune wrote, or
		 * the built-in default (include/primbench/auto.h); set up once. */
		if (auto_state == 0)
			auto_state = pb_auto_setup(have, &auto_origin) == 0 ? 1 : -1;
		if (auto_state < 0)
			return bad_policy(op, ": auto: ");
		break;
	}
	outcome[op] = POLICY_SET;
	use_policy(op, pp);
	return true;
}

/* ---- accounting ------------------------------------------------------------ */

/* "primswitch: NAME: 'VALUE' WHY": a setting refused. */
static void setting_refused(const char *name, const char *value, const char *why)
{
	const char *const parts[] = {name, ": '", value, "' ", why};
	struct pb_sw_line l;
	LINE_START(l);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		pb_sw_line_add(&l, parts[i]);
	pb_sw_line_write(&l);
}

static void acct_warning(const char *what, const char *detail, int err)
{
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, what);
	pb_sw_line_add(&l, detail);
	if (err) {
		pb_sw_line_add(&l, ": ");
		pb_sw_line_add_errno(&l, err);
	}
	pb_sw_line_add(&l, "; accounting off");
	pb_sw_line_write(&l);
}

static void create_warning_off(const char *when, int err, const char *what, const char *off)
{
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, "PRIMBENCH_ACCOUNT: ");
	pb_sw_line_add(&l, when);
	pb_sw_line_add(&l, "cannot create a file in ");
	pb_sw_line_add(&l, pb_sw_acct_config.dir);
	pb_sw_line_add(&l, " (");
	pb_sw_line_add(&l, what);
	pb_sw_line_add(&l, ": ");
	pb_sw_line_add_errno(&l, err);
	pb_sw_line_add(&l, "); ");
	pb_sw_line_add(&l, off);
	pb_sw_line_write(&l);
}

static void create_warning(const char *when, int err, const char *what)
{
	create_warning_off(when, err, what, "accounting off");
}

/* PRIMBENCH_ACCOUNT_SAMPLE: a decimal count, 1..2^30. */
static uint32_t sample_setting(void)
{
	const char *v = getenv("PRIMBENCH_ACCOUNT_SAMPLE");
	if (!v || !*v)
		return SAMPLE_DEFAULT;
	uint64_t n = 0;
	const char *p = v;
	for (; *p >= '0' && *p <= '9' && n <= SAMPLE_MAX; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (*p || n < 1 || n > SAMPLE_MAX) {
		setting_refused("PRIMBENCH_ACCOUNT_SAMPLE", v,
		                "is not a count from 1 to 1073741824; sampling 1 call in 64");
		return SAMPLE_DEFAULT;
	}
	return (uint32_t)n;
}

/* PRIMBENCH_ACCOUNT_DIR (default ".") as an absolute path, so a fork child
 * that changed directory still writes next to its parent. */
static bool account_dir(void)
{
	const char *dir = getenv("PRIMBENCH_ACCOUNT_DIR");
	if (!dir || !*dir)
		dir = ".";
	char *out = pb_sw_acct_config.dir;
	size_t cap = sizeof pb_sw_acct_config.dir, len = 0;
	if (dir[0] != '/') {
		if (!getcwd(out, cap)) {
			acct_warning("PRIMBENCH_ACCOUNT_DIR: ", "cannot read the current directory",
			             errno);
			return false;
		}
		len = strlen(out);
		if (dir[0] == '.' && dir[1] == '\0')
			dir = ""; /* the directory itself, no trailing '/' */
		else if (len + 1 < cap && (len == 0 || out[len - 1] != '/'))
			out[len++] = '/';
	}
	size_t n = pb_sw_copy_text(out + len, dir, cap - len);
	if (dir[n] != '\0') {
		acct_warning("PRIMBENCH_ACCOUNT_DIR: ", "path too long", 0);
		return false;
	}
	return true;
}

static const struct pb_sw_entries *setup_accounting(void)
{
	const char *mode = getenv("PRIMBENCH_ACCOUNT");
	if (!mode || !*mode || !strcmp(mode, "0"))
		return NULL;
	struct pb_sw_acct_config *c = &pb_sw_acct_config;
	if (!strcmp(mode, "1")) {
		c->ticks = false;
	} else if (!strcmp(mode, "ticks")) {
		c->ticks = true;
	} else {
		setting_refused("PRIMBENCH_ACCOUNT", mode, "is not 0, 1 or ticks; accounting off");
		return NULL;
	}
	c->sample_every = c->ticks ? sample_setting() : 0;
	if (c->ticks)
		pb_sw_acct_measure_timer();
	if (!account_dir())
		return NULL;
	int err = 0;
	const char *what = "";
	struct pb_acct_file *f = pb_sw_acct_create(false, &err, &what);
	if (!f) {
		create_warning("", err, what);
		return NULL;
	}
	const char *sizes = getenv("PRIMBENCH_ACCOUNT_SIZES");
	c->sizes = sizes && !strcmp(sizes, "1");
	if (c->sizes) {
		struct pb_acct_sizes_file *z = pb_sw_sizes_create(&err, &what);
		if (z)
			__atomic_store_n(&pb_sw_sizes, z, __ATOMIC_RELEASE);
		else
			create_warning_off("sizes file: ", err, what, "exact sizes off");
	}
	__atomic_store_n(&pb_sw_acct, f, __ATOMIC_RELEASE);
	return c->ticks ? &pb_sw_entries_ticks : &pb_sw_entries_counts;
}

/* ---- initialisation ------------------------------------------------------ */

static void add_policy(struct pb_sw_line *l, enum pb_op op)
{
	pb_sw_line_add(l, pb_op_name(op));
	if (outcome[op] == POLICY_SET) {
		pb_sw_line_add(l, " '");
		pb_sw_line_add(l, pb_sw_acct_config.policy_text[op]);
		pb_sw_line_add(l, "'");
		const struct pb_policy *ap = pb_auto_installed(op);
		if (auto_state > 0 && ap && strstr(pb_sw_acct_config.policy_text[op], "auto")) {
			char text[PB_POLICY_TEXT_MAX];
			if (pb_policy_format(ap, text, sizeof text) > 0) {
				pb_sw_line_add(l, " (auto = '");
				pb_sw_line_add(l, text);
				pb_sw_line_add(l, auto_origin.from_file[op] ? "' from "
				                                            : "', built-in ");
				pb_sw_line_add(l, auto_origin.from_file[op]
				                      ? auto_origin.path
				                      : auto_origin.default_row[op]);
				pb_sw_line_add(l, ")");
			}
		}
	} else {
		pb_sw_line_add(l, outcome[op] == POLICY_BAD ? " libc (bad policy)" : " libc");
	}
}

static void debug_ready(enum pb_acct_prim who)
{
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, "pid ");
	pb_sw_line_add_u64(&l, (uint64_t)getpid());
	if (who == PB_ACCT_NPRIM) {
		pb_sw_line_add(&l, " ready (initialised by the constructor): ");
	} else {
		pb_sw_line_add(&l, " ready (initialised by the first call, ");
		pb_sw_line_add(&l, prim_names[who]);
		pb_sw_line_add(&l, ", before the constructor): ");
	}
	for (int op = 0; op < PB_OP_COUNT; op++) {
		add_policy(&l, (enum pb_op)op);
		pb_sw_line_add(&l, ", ");
	}
	if (pb_sw_acct) {
		pb_sw_line_add(&l, pb_sw_acct_config.ticks ? "accounting ticks to "
		                                           : "accounting counts to ");
		pb_sw_line_add(&l, pb_sw_acct_config.path);
	} else {
		pb_sw_line_add(&l, "accounting off");
	}
	line_write_always(&l);
}

const struct pb_sw_entries *pb_sw_init(enum pb_acct_prim who)
{
	debug = env_on("PRIMBENCH_PRELOAD_DEBUG");
	setup_log();
	read_warned();
	find_libc();
	pb_features have = pb_cpu_features(); /* PRIMBENCH_HIDE_FEATURES honoured */
	if (pb_cpu_hide_env_check() != 0) {
		struct pb_sw_line l;
		LINE_START(l);
		pb_sw_line_add(&l, pb_error());
		pb_sw_line_add(&l, "; hiding nothing");
		pb_sw_line_write(&l);
	}
	pb_sw_acct_config.policy_ok = true;
	for (int op = 0; op < PB_OP_COUNT; op++)
		if (!setup_op((enum pb_op)op, have))
			pb_sw_acct_config.policy_ok = false;
	const struct pb_sw_entries *e = setup_accounting();
	if (debug)
		debug_ready(who);
	return e;
}

/* ---- the constructor, fork, exit ----------------------------------------- */

/* A fork child counts in a file of its own, from zero. Runs in the child
 * right after fork() (glibc runs atfork child handlers there; _Fork(),
 * vfork() and clone() run none: docs/preload.md). Only system calls. */
static void atfork_child(void)
{
	struct pb_acct_file *old = __atomic_load_n(&pb_sw_acct, __ATOMIC_ACQUIRE);
	if (!old)
		return;
	int saved_errno = errno;
	/* Off first: a signal handler in the child counts nowhere until the
	 * new file is there, never into the parent's. */
	__atomic_store_n(&pb_sw_acct, NULL, __ATOMIC_RELEASE);
	struct pb_acct_sizes_file *old_sizes = __atomic_load_n(&pb_sw_sizes, __ATOMIC_ACQUIRE);
	__atomic_store_n(&pb_sw_sizes, NULL, __ATOMIC_RELEASE);
	munmap(old, sizeof *old);
	if (old_sizes)
		munmap(old_sizes, sizeof *old_sizes);
	int err = 0;
	const char *what = "";
	struct pb_acct_file *f = pb_sw_acct_create(true, &err, &what);
	if (f && pb_sw_acct_config.sizes) {
		struct pb_acct_sizes_file *z = pb_sw_sizes_create(&err, &what);
		if (z)
			__atomic_store_n(&pb_sw_sizes, z, __ATOMIC_RELEASE);
		else
			create_warning_off("fork child: sizes file: ", err, what,
			                   "exact sizes off");
	}
	if (f)
		__atomic_store_n(&pb_sw_acct, f, __ATOMIC_RELEASE);
	else
		create_warning("fork child: ", err, what);
	errno = saved_errno;
}

__attribute__((constructor)) static void primswitch_constructor(void)
{
	bool ready = pb_sw_ready(PB_ACCT_NPRIM);
	/* Here and not in pb_sw_init: pthread_atfork and setenv may
	 * allocate, and the first call may come from inside malloc. */
	static bool registered;
	if (!registered) {
		registered = true;
		pthread_atfork(NULL, NULL, atfork_child);
		if (ready)
			export_warned();
	}
}

__attribute__((destructor)) static void primswitch_destructor(void)
{
	if (!debug)
		return;
	struct pb_sw_line l;
	LINE_START(l);
	pb_sw_line_add(&l, "pid ");
	pb_sw_line_add_u64(&l, (uint64_t)getpid());
	pb_sw_line_add(&l, " exits: ");
	pb_sw_line_add_u64(&l, __atomic_load_n(&pb_sw_boot_calls, __ATOMIC_RELAXED));
	pb_sw_line_add(&l, " calls served by the bootstrap kernel");
	line_write_always(&l);
}
