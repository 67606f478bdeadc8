/* cli.h - the primbench command line: a git-style table of subcommands
 * (main.c) and the one error path every subcommand uses.
 *
 * Adding a subcommand: write src/cli/cmd_NAME.c with
 * `int cmd_NAME(int argc, char **argv)` (argv[0] is "NAME"; parse with
 * cli_parse_options, the options that only store a value as rows of struct
 * cli_store; call cli_parse_done where its checks end and its work
 * begins; return an exit status), declare it below, add a row to
 * commands[] in main.c, a section to README.md, and golden cases to
 * tests/cli/cases.
 *
 * Exit statuses (README "Exit statuses"): 0 success; 1 a check the user
 * asked for failed; 2 usage, input or environment error; 128 + signal when
 * interrupted (130 for Ctrl-C).
 */
#ifndef PRIMBENCH_CLI_H
#define PRIMBENCH_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench/auto.h"
#include "primbench/format.h"
#include "primbench/syscall.h"

#define PB_EXIT_OK           0
#define PB_EXIT_CHECK_FAILED 1
#define PB_EXIT_USAGE        2
#define PB_EXIT_INTERRUPTED  130

/* Example values in the help texts, in this ISA's names (features are per
 * ISA, primbench/cpu.h; so are the kernel rows and glibc's tunables). */
#if defined(__aarch64__)
#define CLI_EG_FEATURES      "sve,mops"
#define CLI_EG_FEATURE       "sve"
#define CLI_EG_MEMSET_POLICY "neon, or 'neon<=256,dc_zva'"
#define CLI_EG_NT_MEMSET     "neon_nt"
#define CLI_EG_GLIBC_TUNABLE "glibc.cpu.name=generic"
#else
#define CLI_EG_FEATURES      "avx512f,erms"
#define CLI_EG_FEATURE       "avx512f"
#define CLI_EG_MEMSET_POLICY "avx2, or 'rep_stosb<=2K,avx512'"
#define CLI_EG_NT_MEMSET     "avx512_nt"
#define CLI_EG_GLIBC_TUNABLE "glibc.cpu.x86_rep_stosb_threshold=1"
#endif

/* The command line as typed (argv before getopt permuted it). */
extern int cli_argc;
extern char **cli_argv;

/* The one error line: "primbench: SUBCOMMAND: MESSAGE" on stderr
 * ("primbench: MESSAGE" before a subcommand is chosen; a MESSAGE that
 * starts with "SUBCOMMAND: " does not repeat it), wrapped at 80 columns with
 * continuation lines indented by 4. stdout is flushed first. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The directory for temporary files: $TMPDIR when it is an absolute path,
 * else /tmp (a relative TMPDIR would depend on where the command runs). */
const char *cli_tmp_dir(void);

/* "noise: HIGH (CAUSES): compare kernels within this run, not across
 * runs" when pb_noise_judge found it high (include/primbench/session.h);
 * nothing otherwise. */
struct pb_noise;
void cli_print_noise_high(const struct pb_noise *noise);

/* cli_error, then exit 2. */
_Noreturn void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "primbench: SUBCOMMAND: warning: MESSAGE" on stderr, wrapped. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For getopt_long's ':' (missing value) and '?' (unknown option) on
 * argv[optind - 1]: "CMD: unknown option '--x' (try 'primbench CMD --help')",
 * exit 2. Call with opterr = 0 and an optstring starting with ':'. */
_Noreturn void die_bad_option(const char *cmd, char **argv, int opt);

/* For an operand a subcommand takes none of: "CMD: unexpected argument
 * 'ARG'", exit 2; when ARG followed an option with an optional value
 * (--latency 64M), the hint to join them (--latency=64M). */
_Noreturn void cli_die_unexpected(const char *cmd, const struct option *longopts, const char *arg);

/* getopt_long(3), and then: an option whose value is a word of its own
 * that is another long option of the table ("--sizes --budget 0.01") is
 * "CMD: --sizes needs a value ('--budget' is an option)", exit 2 (CMD is argv[0], the subcommand).
 * Use it in place of getopt_long. */
struct option;
int cli_getopt_long(int argc, char **argv, const char *optstring, const struct option *longopts,
                    int *longindex);

/* An option of a subcommand's own: handles opt (getopt_long's value; arg
 * its value, NULL when it has none) into ctx and returns true, or returns
 * false when opt is not one it takes. */
typedef bool (*cli_option_fn)(int opt, const char *arg, void *ctx);

/* The sampling options of the measuring subcommands (syscall, xsave,
 * mem): --budget SECONDS (cli_parse_seconds), --min-samples N and
 * --max-samples N (1..100000), --seed N. Put CLI_SAMPLING_OPTIONS in the
 * subcommand's option table and the defaults in the struct. */
struct cli_sampling {
	double budget_s;
	size_t min_samples, max_samples;
	uint64_t seed;
};
enum {
	CLI_OPT_BUDGET = 0x4000,
	CLI_OPT_MIN_SAMPLES,
	CLI_OPT_MAX_SAMPLES,
	CLI_OPT_SEED,
	CLI_OPT_HIDE_FEATURES
};
/* clang-format off */
#define CLI_SAMPLING_OPTIONS                                             \
	{"budget", required_argument, 0, CLI_OPT_BUDGET},                \
	{"min-samples", required_argument, 0, CLI_OPT_MIN_SAMPLES},      \
	{"max-samples", required_argument, 0, CLI_OPT_MAX_SAMPLES},      \
	{"seed", required_argument, 0, CLI_OPT_SEED}
/* --hide-features LIST (cli_hide_features), taken by cli_parse_options. */
#define CLI_HIDE_FEATURES_OPTION {"hide-features", required_argument, 0, CLI_OPT_HIDE_FEATURES}
/* clang-format on */
/* One sampling option into s: true, or false when opt is none of them. */
bool cli_sampling_option(int opt, const char *arg, struct cli_sampling *s);
/* After the options: exits 2 when --min-samples is more than --max-samples. */
void cli_sampling_check(const struct cli_sampling *s);
/* --equivalence P: a percentage in [0, 50) ("1%", "0.5"), returned as a
 * fraction (the margin of pb_verdict, twosample.h); exits 2 naming `cmd`
 * otherwise. */
double cli_parse_equivalence(const char *cmd, const char *arg);
/* After the options of a suite with replicates: *replicates of at least
 * --min-samples each (in `processes` fresh processes, each running
 * ceil(replicates / processes)) share --max-samples. When they cannot fit:
 * exits 2 if --replicates was `given`, else lowers *replicates to the most
 * that fit (exits 2 when not even one a process does). Not checked in a
 * --processes child: its parent did. */
void cli_replicates_check(const struct cli_sampling *s, size_t *replicates, bool given,
                          size_t processes);

/* The rows of the options cli_parse_options takes by their codes, for a
 * subcommand's getopt_long table: spelled once here. */
/* clang-format off */
#define CLI_OUTPUT_OPTION {"output", required_argument, 0, 'o'}
#define CLI_FORMAT_OPTION {"format", required_argument, 0, 'f'}
#define CLI_QUIET_OPTION  {"quiet", no_argument, 0, 'q'}
#define CLI_HELP_OPTION   {"help", no_argument, 0, 'h'}
/* clang-format on */

/* An option of a subcommand's own that only stores its value, for a
 * table in place of a callback's cases: the member at byte offset `at` of
 * the subcommand's option struct (cli_parse_options's ctx) is set as kind
 * says, and with it the bool at offset given - 1 (given 0: none) to true. */
enum cli_store_kind {
	CLI_STORE_TRUE,    /* no value; the member: bool */
	CLI_STORE_FALSE,   /* no value; the member: bool */
	CLI_STORE_STRING,  /* the value (argv's string); the member: const char * */
	CLI_STORE_COUNT,   /* cli_parse_count(what, value, lo, hi); the member: size_t */
	CLI_STORE_SECONDS, /* cli_parse_seconds(what, value); the member: double */
};
struct cli_store {
	int opt; /* getopt_long's value; 0 ends the table */
	enum cli_store_kind kind;
	size_t at, given;
	const char *what; /* COUNT and SECONDS: the option's name in the error */
	size_t lo, hi;    /* COUNT: the range */
};
/* offsetof(type, member), which fails to compile unless the member is a
 * ctype (the type the store kind writes). */
#define CLI_AT(type, member, ctype) _Generic(((type *)0)->member, ctype : offsetof(type, member))
/* The rows of a table of struct cli_store, by kind; the _SET ones also make
 * the bool member `set` true. */
/* clang-format off */
#define CLI_STORE_FLAG(opt, type, member, value) \
	{(opt), (value) ? CLI_STORE_TRUE : CLI_STORE_FALSE, CLI_AT(type, member, bool), 0, NULL, 0, 0}
#define CLI_STORE_ARG(opt, type, member) \
	{(opt), CLI_STORE_STRING, CLI_AT(type, member, const char *), 0, NULL, 0, 0}
#define CLI_STORE_NUMBER(opt, type, member, what, lo, hi) \
	{(opt), CLI_STORE_COUNT, CLI_AT(type, member, size_t), 0, (what), (lo), (hi)}
#define CLI_STORE_TIME(opt, type, member, what) \
	{(opt), CLI_STORE_SECONDS, CLI_AT(type, member, double), 0, (what), 0, 0}
#define CLI_STORE_ARG_SET(opt, type, member, set) \
	{(opt), CLI_STORE_STRING, CLI_AT(type, member, const char *), CLI_AT(type, set, bool) + 1, \
	 NULL, 0, 0}
#define CLI_STORE_NUMBER_SET(opt, type, member, set, what, lo, hi) \
	{(opt), CLI_STORE_COUNT, CLI_AT(type, member, size_t), CLI_AT(type, set, bool) + 1, \
	 (what), (lo), (hi)}
/* clang-format on */

/* The options the subcommands spell alike, for cli_parse_options: -o FILE
 * (cli_output_path) into *out_path, -f F (cli_parse_format) into fmt->fmt,
 * the sampling options into *sampling; a NULL member: the subcommand does
 * not take it here. stores: the subcommand's own options that only store
 * a value (ending with a row whose opt is 0; NULL: none), into ctx. */
struct cli_common {
	const char **out_path;
	struct cli_format *fmt;
	struct cli_sampling *sampling;
	const struct cli_store *stores;
};

/* The one option loop of a subcommand (opterr off, cli_getopt_long over
 * optstring, which starts with ':', and longopts). An option that is a row
 * of common->stores is stored into ctx; any other goes to own(opt, optarg,
 * ctx) (own may be NULL) first; one it does not take: -h/--help prints
 * usage(stdout) and returns false; -q/--quiet sets cli_quiet;
 * --hide-features (CLI_HIDE_FEATURES_OPTION) hides them; -o and -f as
 * `common` says (may be NULL); anything else (an unknown option, a missing
 * value) exits 2 with die_bad_option(cmd). Returns true, optind at the
 * first operand. */
bool cli_parse_options(const char *cmd, int argc, char **argv, const char *optstring,
                       const struct option *longopts, cli_option_fn own, void *ctx,
                       const struct cli_common *common, void (*usage)(FILE *f));

/* Set by `primbench completion` (cmd_completion.c) in a child process:
 * cli_parse_options hands it its optstring and table first (it prints
 * them into the completion script and ends the process). NULL otherwise. */
extern void (*cli_options_hook)(const char *optstring, const struct option *longopts);

/* The i-th subcommand of main.c's table, NULL past the end; *fn its
 * function. */
const char *cli_subcommand(size_t i, int (**fn)(int argc, char **argv));

/* Where a subcommand's checks of its command line end and its work
 * begins (before it measures, reads an input file, writes an output or
 * runs a command): with PRIMBENCH_PARSE_ONLY set to anything but "" or
 * "0", exits 0 there. Every subcommand calls it once, so a command line
 * parses (tests/readme.py runs the README's) with the errors of a run,
 * this machine's included (a kernel it cannot run, a CPU it has not). */
void cli_parse_done(void);

/* For a subcommand that takes no operand, after its options: the first
 * operand exits 2 (cli_die_unexpected). */
void cli_no_operands(const char *cmd, const struct option *longopts, int argc, char **argv);

/* A whole number in [lo, hi]; exits 2 with "bad WHAT 'ARG' (...)". */
size_t cli_parse_count(const char *what, const char *arg, size_t lo, size_t hi);

struct pb_results_file;
struct pb_compare_result;
struct pb_results_doc;
/* compare's -o document (docs/results-schema.md, "compare output") for
 * one comparison of files[0..na) (old) with files[na..n) (new): schema,
 * command line, level, margin, forced, files, sides, comparisons. NULL
 * when out of memory. */
struct pb_results_doc *cli_compare_doc(const struct pb_results_file *files, size_t n, size_t na,
                                       const struct pb_compare_result *res, double level,
                                       double margin, bool force);

/* Seconds in (0, 3600]; exits 2 with "bad OPT 'ARG' (...)". */
double cli_parse_seconds(const char *opt, const char *arg);

/* The FILE of -o FILE: exits 2 with "empty output path in '-o'" when it
 * is empty; returns it. */
const char *cli_output_path(const char *arg);
/* Before a run that writes files into directory dir (made at the end when
 * missing): exits 2 with "WHAT: cannot write in 'DIR': REASON" when no
 * file can be created in it, or in its parent when it does not exist yet
 * (a probe file, removed at once). */
void cli_check_output_dir(const char *what, const char *dir);
/* Exits 2 ("CMD: OPT OUT would overwrite the input IN"; opt: the option
 * that named out, "-o" or "--html") when out is the same file as one of
 * inputs[0..n) (same device and inode); a new out passes. */
void cli_check_output_not_input(const char *cmd, const char *opt, const char *out, char **inputs,
                                size_t n);

/* Writes doc whole to path and prints "results: PATH"; on failure one
 * error line. Returns PB_EXIT_OK or PB_EXIT_USAGE. */
int cli_write_doc(const struct pb_results_doc *doc, const char *path);

/* The end of a measuring session's output: writes s's document to its -o
 * path (pb_session_write, then "results: PATH") and prints it in -f's
 * format (cli_format_end), one error line for each failure. status is the
 * exit status so far: returns PB_EXIT_USAGE after a failure, else
 * PB_EXIT_OK once the file is written (what was measured is kept), else
 * status. */
struct pb_session;
int cli_session_output(struct pb_session *s, struct cli_format *fmt, int status);

/* True when standard output is a pipe or socket that nobody reads any more
 * (the reader closed it, `| head` quit): printing stopped, not the work. */
bool cli_stdout_gone(void);

/* Applies --hide-features LIST (exits 2 on an unknown feature name). */
void cli_hide_features(const char *list);

/* Installs the auto kernels' policies once (pb_auto_setup, with the usable
 * features after --hide-features): exits 2 with "primbench: FILE:LINE:
 * ..." when the policy file is bad. Returns where they came from. */
const struct pb_auto_origin *cli_auto_setup(void);

/* "auto: memset 'POLICY'" and where it came from (the policy file, or the
 * built-in default row and a hint to run tune), wrapped at 80 columns. */
void cli_auto_print(FILE *f, enum pb_op op);

/* Records op's auto policy and where it came from in doc["auto_policy"]
 * (pb_results_set_auto_policy). */
void cli_auto_record(struct pb_results_doc *doc, enum pb_op op);

/* The latency curve (cmd_latency.c), also run by `info --latency`: runs
 * pb_latency_sweep_replicates(p, replicates) into pts (p->max_points of
 * them) and info, prints the table (with replicates, each point's 95% CI)
 * with c's sizes marked and the check of c's sizes against the curve's
 * run-level figures. Returns the number of points, or -1 after an error
 * line. */
struct pb_latency_params;
struct pb_latency_rpoint;
struct pb_latency_info;
int cli_latency_table(const struct pb_cache_info *c, const struct pb_latency_params *p,
                      size_t replicates, struct pb_latency_rpoint *pts,
                      struct pb_latency_info *info);
/* The sweep's largest size: `asked` checked (exits 2 naming `opt` when
 * under 4K, over 16G or over a quarter of RAM), or with asked 0 the
 * default from c (twice the LLC figure, at least 64M, within the limits). */
uint64_t cli_latency_max(const char *opt, uint64_t asked, const struct pb_cache_info *c);
/* A size option's value (pb_parse_size: K/M/G suffixes), more than 0;
 * exits 2 with "OPT: REASON" or "bad OPT 'TEXT': must be more than 0". */
uint64_t cli_parse_size_opt(const char *opt, const char *text);
/* --cpu N's value (pb_syscall_parse_cpu: an online CPU number), or -1 when
 * text is NULL (not given); exits 2 with the parser's message. */
int cli_parse_cpu_opt(const char *text);

/* The session of a subcommand that times code in this process
 * (include/primbench/session.h) into *sp: the command line as typed
 * (cli_argc, cli_argv) and the seed (0: one made) recorded in the result
 * document, which is made when doc is true and written to out_path (NULL:
 * no file); the timer started; the noise measured; the measuring thread
 * pinned to cpu (>= 0: PB_SESSION_PIN_CPU, an error when it cannot be
 * bound there) or, with cpu < 0, to the quietest allowed CPU
 * (PB_SESSION_PIN_HERE). Every other field zero. The subcommand sets what
 * differs, then calls pb_session_begin. */
struct pb_session_params;
void cli_session_params(struct pb_session_params *sp, int cpu, uint64_t seed, bool doc,
                        const char *out_path);

/* The syscall table (cmd_syscall.c), also printed by the default run. */
void cli_syscall_print_table(const struct pb_syscall_result *r);

int cmd_default(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_selftest(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_mem_map(int argc, char **argv); /* `mem map`: cmd_mem_map.c */
int cmd_tune(int argc, char **argv);
int cmd_xsave(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_syscall(int argc, char **argv);
int cmd_cmd(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_account(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_completion(int argc, char **argv);

/* ---- progress and output formats (src/cli/progress.c) ---- */

/* --quiet: no progress line. */
extern bool cli_quiet;

/* The one-line progress display of a long run on stderr: "LABEL: WHAT n of
 * m, 12 s, ~30 s left" (the estimate from the mean time per step so far),
 * redrawn in place; only when stderr is a terminal and not --quiet. */
struct cli_progress {
	const char *label;
	double t0;
	bool on, shown;
};
void cli_progress_start(struct cli_progress *p, const char *label);
/* done steps of total finished (total 0: unknown, no estimate); what names
 * the steps ("case", "run"; may be NULL). */
void cli_progress_update(struct cli_progress *p, size_t done, size_t total, const char *what);
/* Clears the line. */
void cli_progress_done(struct cli_progress *p);

/* -f/--format of a subcommand that makes a result: with a format other
 * than text, cli_format_begin sends standard output (the subcommand's
 * tables) to /dev/null, and cli_format_end restores it and prints the
 * result document in the format (include/primbench/format.h). stderr is
 * untouched. cli_format_end returns 0, or -1 with pb_error(). */
struct cli_format {
	enum pb_format fmt;
	int saved_fd;
};
void cli_format_begin(struct cli_format *f);
/* -f's argument; exits 2 with the known formats when unknown. */
enum pb_format cli_parse_format(const char *arg);
int cli_format_end(struct cli_format *f, const struct pb_results_doc *doc);

#endif
