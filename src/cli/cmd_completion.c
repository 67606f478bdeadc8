/* cmd_completion.c - `primbench completion bash|zsh`: the shell's tab
 * completion, made from the option tables the subcommands parse with, so
 * that it cannot drift from them.
 *
 * Each subcommand (and `mem map`) runs in a child process of its own up
 * to its cli_parse_options call, which hands its optstring and getopt_long
 * table to cli_options_hook (set here) in place of parsing: the hook
 * prints that subcommand's arm of the script and the child exits. The
 * values offered for some options come from the tables their parsers
 * read: -f/--format's from pb_format_name, --kernels' from pb_kernels(),
 * --cache's from pb_cache_state_name, --op's from pb_op_name,
 * --hide-features' from pb_feature_name.
 *
 * The zsh script is the bash one run through zsh's bashcompinit (its
 * emulation of bash's `complete` and `compgen`), not a native _arguments
 * one: one function to get right and test. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "primbench/cpu.h"
#include "primbench/format.h"
#include "primbench/kernels.h"
#include "primbench/mem_result.h"

void (*cli_options_hook)(const char *optstring, const struct option *longopts);

enum values {
	V_NONE,
	V_FORMAT,
	V_COMPARE_FORMAT,
	V_KERNELS,
	V_CACHE,
	V_OP,
	V_FEATURES,
	V_KMOD_CACHE, /* kernel's --cache: the module's states (kmod_abi.h PB_KS_*) */
	V_KMOD_PAGES, /* kernel's --pages */
	V_KMOD_UPPER, /* kernel's --upper: enum pb_kernel_upper's names */
};

/* The options whose values are offered, by long name. */
static const struct {
	const char *name;
	enum values v;
} value_options[] = {
    {"format", V_FORMAT}, {"kernels", V_KERNELS},        {"cache", V_CACHE},
    {"op", V_OP},         {"hide-features", V_FEATURES},
};

/* The subcommand whose arm the child prints ("mem map" for mem's map). */
static const char *arm;

static void usage(FILE *f)
{
	fputs("usage: primbench completion bash|zsh\n\n"
	      "Prints a tab-completion script for the shell, made from the option tables\n"
	      "of this primbench (subcommands, their options, and the values of -f, --op,\n"
	      "--kernels, --cache and --hide-features):\n"
	      "  source <(primbench completion bash)   in ~/.bashrc, or this shell\n"
	      "  primbench completion zsh > ~/.zfunc/_primbench   (a directory in $fpath)\n"
	      "`make install` installs both (share/bash-completion/completions/primbench,\n"
	      "share/zsh/vendor-completions/_primbench).\n\n"
	      "options:\n"
	      "  -h, --help  this text\n",
	      f);
}

static void print_values(enum values v)
{
	const char *sep = "";
	switch (v) {
	case V_NONE:
		break;
	case V_FORMAT:
	case V_COMPARE_FORMAT:
		for (int i = 0; strcmp(pb_format_name((enum pb_format)i), "?"); i++) {
			/* compare writes a comparison, not a result file: its
			 * parse_format refuses the result files' formats */
			if (v == V_COMPARE_FORMAT && i != PB_FORMAT_TEXT && i != PB_FORMAT_JSON &&
			    i != PB_FORMAT_CSV && i != PB_FORMAT_MARKDOWN)
				continue;
			printf("%s%s", sep, pb_format_name((enum pb_format)i));
			sep = " ";
		}
		break;
	case V_KERNELS: {
		size_t n;
		const struct pb_kernel *k = pb_kernels(&n);
		printf("all");
		for (size_t i = 0; i < n; i++) {
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(k[j].name, k[i].name);
			if (!seen)
				printf(" %s", k[i].name);
		}
		break;
	}
	case V_KMOD_CACHE:
		printf("hot flushed");
		break;
	case V_KMOD_PAGES:
		printf("4K 2M");
		break;
	case V_KMOD_UPPER:
		printf("clean dirty dirty512");
		break;
	case V_CACHE:
		for (int s = 0; s < PB_STATE_COUNT; s++, sep = " ")
			printf("%s%s", sep, pb_cache_state_name((enum pb_cache_state)s));
		break;
	case V_OP:
		for (int op = 0; op < PB_OP_COUNT; op++, sep = " ")
			printf("%s%s", sep, pb_op_name((enum pb_op)op));
		break;
	case V_FEATURES:
		for (int f = 0; f < PB_FEAT_COUNT; f++, sep = " ")
			printf("%s%s", sep, pb_feature_name((enum pb_feature)f));
		break;
	}
}

static enum values values_of(const char *name)
{
	if (!strcmp(arm, "kernel") && !strcmp(name, "cache"))
		return V_KMOD_CACHE;
	if (!strcmp(arm, "kernel") && !strcmp(name, "pages"))
		return V_KMOD_PAGES;
	if (!strcmp(arm, "kernel") && !strcmp(name, "upper"))
		return V_KMOD_UPPER;
	for (size_t i = 0; i < sizeof value_options / sizeof value_options[0]; i++)
		if (!strcmp(name, value_options[i].name)) {
			if (value_options[i].v == V_FORMAT && !strcmp(arm, "compare"))
				return V_COMPARE_FORMAT;
			return value_options[i].v;
		}
	return V_NONE;
}

/* In the child: the arm of the script's `case $sub in` for this
 * subcommand, from the table its parser was given; then the child ends. */
static void print_arm(const char *optstring, const struct option *longopts)
{
	printf("\t'%s')\n\t\topts='", arm);
	const char *sep = "";
	for (const struct option *o = longopts; o->name; o++, sep = " ")
		printf("%s--%s", sep, o->name);
	/* the options whose value may be the next word: long ones with a
	 * required argument, short ones with one ':' in the optstring */
	printf("'\n\t\ttakes=' ");
	for (const struct option *o = longopts; o->name; o++)
		if (o->has_arg == required_argument)
			printf("--%s ", o->name);
	for (const char *c = optstring; *c; c++)
		if (*c != ':' && *c != '+' && c[1] == ':' && c[2] != ':')
			printf("-%c ", *c);
	printf("'\n\t\tcase $prev in\n");
	for (const struct option *o = longopts; o->name; o++) {
		enum values v = o->has_arg == required_argument ? values_of(o->name) : V_NONE;
		if (v == V_NONE)
			continue;
		printf("\t\t");
		/* its short option, when the optstring has one of the same code */
		const char *s = o->val > 0 && o->val < 256 ? strchr(optstring, o->val) : NULL;
		if (s && o->val != ':' && o->val != '+')
			printf("-%c | ", o->val);
		printf("--%s) vals='", o->name);
		print_values(v);
		printf("'%s ;;\n", v == V_KERNELS || v == V_CACHE || v == V_FEATURES ||
		                           v == V_KMOD_CACHE || v == V_KMOD_PAGES
		                       ? " list=,"
		                       : "");
	}
	printf("\t\tesac\n\t\t;;\n");
	fflush(stdout);
	_exit(ferror(stdout) ? PB_EXIT_USAGE : PB_EXIT_OK);
}

/* Runs the subcommand fn with argv in a child, up to its parser, which
 * prints its arm. False when the child failed. */
static bool run_arm(const char *key, int (*fn)(int, char **), int argc, char **argv)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		arm = key;
		cli_options_hook = print_arm;
		optind = 0; /* a fresh getopt for the subcommand */
		fn(argc, argv);
		/* its parser was not reached: say so in the status */
		_exit(PB_EXIT_USAGE);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The bash function; zsh's bashcompinit runs it too. Its words:
 * COMP_WORDS and COMP_CWORD (bash splits "--opt=value" at '=', zsh does
 * not). An empty reply leaves the word to the shell's default (file
 * names: complete -o default). */
static const char script_head[] =
    "_primbench() {\n"
    "\tlocal cur prev pre= head= sub opts= takes= vals= list= i\n"
    "\tcur=${COMP_WORDS[COMP_CWORD]}\n"
    "\tprev=\n"
    "\t[ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "\tCOMPREPLY=()\n"
    "\tif [ \"$cur\" = = ]; then\n"
    "\t\tcur=\n"
    "\telif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -gt 1 ]; then\n"
    "\t\tprev=${COMP_WORDS[COMP_CWORD-2]}\n"
    "\telse\n"
    "\t\tcase $cur in --*=*) prev=${cur%%%%=*} pre=${cur%%%%=*}= cur=${cur#*=} ;; esac\n"
    "\tfi\n"
    "\tif [ \"$COMP_CWORD\" -eq 1 ] && [ -z \"$pre\" ]; then\n"
    "\t\tcase $cur in\n"
    "\t\t-*) ;;\n"
    "\t\t*) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return 0 ;;\n"
    "\t\tesac\n"
    "\tfi\n"
    "\tsub=${COMP_WORDS[1]}\n"
    "\tcase $sub in -*) sub=run ;; esac\n"
    "\tif [ \"$sub\" = mem ] && [ \"$COMP_CWORD\" -gt 2 ] && [ \"${COMP_WORDS[2]}\" = map ]; then\n"
    "\t\tsub='mem map'\n"
    "\tfi\n"
    "\t# cmd and compare: the words after \"--\" are a command or files\n"
    "\ti=2\n"
    "\twhile [ \"$i\" -lt \"$COMP_CWORD\" ]; do\n"
    "\t\t[ \"${COMP_WORDS[i]}\" = -- ] && return 0\n"
    "\t\ti=$((i + 1))\n"
    "\tdone\n"
    "\tcase $sub in\n";

static const char script_tail[] =
    "\t*) return 0 ;;\n"
    "\tesac\n"
    "\tif [ -n \"$vals\" ]; then\n"
    "\t\t# a list (a,b,c): its last item\n"
    "\t\tif [ -n \"$list\" ]; then\n"
    "\t\t\tcase $cur in *,*) head=${cur%%,*}, ;; esac\n"
    "\t\t\t# --kernels' all stands alone\n"
    "\t\t\t[ -n \"$head\" ] && vals=\" $vals \" && vals=${vals# all }\n"
    "\t\tfi\n"
    "\t\tCOMPREPLY=($(compgen -P \"$pre$head\" -W \"$vals\" -- \"${cur#\"$head\"}\"))\n"
    "\t\treturn 0\n"
    "\tfi\n"
    "\t[ -n \"$pre\" ] && return 0\n"
    "\tcase $takes in *\" $prev \"*) return 0 ;; esac\n"
    "\tcase $cur in\n"
    "\t-*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
    "\t*)\n"
    "\t\tif [ \"$sub\" = mem ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
    "\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n"
    "\t\telif [ \"$sub\" = kernel ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
    "\t\t\tCOMPREPLY=($(compgen -W 'clear_page copy_page fpu user_copy all' -- \"$cur\"))\n"
    "\t\tfi\n"
    "\t\t;;\n"
    "\tesac\n"
    "\treturn 0\n"
    "}\n";

static int print_script(bool zsh)
{
	if (zsh)
		printf(
		    "#compdef primbench\n"
		    "# zsh completion for primbench, made by `primbench completion zsh` from its\n"
		    "# option tables: the bash function below, run by zsh's bashcompinit.\n"
		    "autoload -U +X bashcompinit && bashcompinit\n");
	else
		printf("# bash completion for primbench, made by `primbench completion bash` from\n"
		       "# its option tables.\n");
	/* the subcommands, from main.c's table */
	char subs[1024] = "";
	int (*fn)(int, char **);
	int (*mem_fn)(int, char **) = NULL;
	const char *name;
	for (size_t i = 0; (name = cli_subcommand(i, &fn)); i++) {
		strncat(subs, *subs ? " " : "", sizeof subs - strlen(subs) - 1);
		strncat(subs, name, sizeof subs - strlen(subs) - 1);
	}
	printf(script_head, subs);
	bool ok = true;
	for (size_t i = 0; (name = cli_subcommand(i, &fn)); i++) {
		char *argv[] = {(char *)name, NULL};
		ok = run_arm(name, fn, 1, argv) && ok;
		if (!strcmp(name, "mem"))
			mem_fn = fn;
	}
	if (mem_fn) {
		char *argv[] = {"mem", "map", NULL};
		ok = run_arm("mem map", mem_fn, 2, argv) && ok;
	}
	/* mem's operand: its ops, and the page primitives and map
	 * (cmd_mem.c) */
	char ops[256] = "";
	for (int op = 0; op < PB_OP_COUNT; op++) {
		strncat(ops, pb_op_name((enum pb_op)op), sizeof ops - strlen(ops) - 1);
		strncat(ops, " ", sizeof ops - strlen(ops) - 1);
	}
	strncat(ops, "clear_page copy_page map", sizeof ops - strlen(ops) - 1);
	printf(script_tail, ops);
	if (zsh)
		printf("complete -o default -F _primbench primbench\n"
		       "# loaded from $fpath (compinit): complete the word asked for now\n"
		       "if [ \"${funcstack[1]}\" = _primbench ]; then\n"
		       "\t_bash_complete -o default -F _primbench\n"
		       "fi\n");
	else
		printf("complete -o default -F _primbench primbench\n");
	if (!ok) {
		cli_error("a subcommand's option table could not be read");
		return PB_EXIT_USAGE;
	}
	return PB_EXIT_OK;
}

int cmd_completion(int argc, char **argv)
{
	static const struct option opts[] = {
	    CLI_HELP_OPTION,
	    {0, 0, 0, 0},
	};
	if (!cli_parse_options("completion", argc, argv, ":h", opts, NULL, NULL, NULL, usage))
		return PB_EXIT_OK;
	if (optind >= argc)
		die_usage("a shell is needed: bash or zsh (try 'primbench completion --help')");
	if (optind + 1 < argc)
		die_usage("unexpected argument '%s'", argv[optind + 1]);
	const char *shell = argv[optind];
	if (strcmp(shell, "bash") && strcmp(shell, "zsh"))
		die_usage("unknown shell '%s' (bash or zsh)", shell);
	cli_parse_done();
	return print_script(!strcmp(shell, "zsh"));
}
