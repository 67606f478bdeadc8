/* fuzz_cli.c - every subcommand's option parsing (src/cli), in-process,
 * under PRIMBENCH_PARSE_ONLY=1: each command line ends in exit 0 at
 * cli_parse_done (the work would begin there), in its help (main returns
 * 0), or in one error line and exit 2 (die_usage). cli_harness.c runs it.
 *
 * Input: the words of argv after "primbench", separated by '\n' or NUL
 * bytes (a separator at the very end starts no empty word; two in a row
 * give an empty word); the first is the subcommand. A word with '/' is
 * not run: the command line may name only the fixture files of the
 * scratch directory (numbers, numbers2, result.json, acct/), never a file
 * elsewhere. At most MAX_WORDS words and MAX_INPUT bytes: longer command
 * lines add nothing but time (a size list of 4096 values is already 4096
 * words' worth of text).
 *
 * Checked on every run (tests/cli/run.sh's rules for parse-only cases):
 *   - the status is 0 or 2;
 *   - exit 2 prints exactly one message (continuation lines indented),
 *     "primbench: ...";
 *   - the parse-only exit 0 prints nothing on standard output;
 *   - no file is left in the working directory;
 *   - no fork, exec or measuring session before cli_parse_done
 *     (cli_harness.c's sentinels);
 *   - with every word at most WRAP_WORD bytes, no stderr line is wider
 *     than 80 columns (a longer word cannot be wrapped).
 * Outcome: "exit 0", "exit 2: <stderr's first line>", "return 0" (help).
 *
 * Leaks: a run that ends in exit() leaves what it allocated (the real
 * process exits there: memory reachable at exit is not a defect, and the
 * allocations of a parse are held by locals of the frames longjmp left).
 * This target runs without leak detection (__asan_default_options below:
 * both under libFuzzer and in replay_cli of a sanitized build); the other
 * targets keep it, and stats checks cmd_stats's returning path with it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"
#include "fuzz.h"

#define MAX_INPUT 1024
#define MAX_WORDS 64
#define WRAP_WORD 16

const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pb_cli_init(true);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	char *text = pb_fuzz_text(data, size);
	char *argv[MAX_WORDS + 2] = {"primbench"};
	int argc = 1;
	bool short_words = true;
	size_t start = 0;
	for (size_t i = 0; i <= size; i++) {
		if (i < size && text[i] != '\n' && text[i] != '\0')
			continue;
		if (i == size && start == size && size > 0)
			break; /* a final separator */
		if (i == size && size == 0)
			break; /* no words */
		if (argc == MAX_WORDS + 1) {
			free(text);
			return 0;
		}
		text[i] = '\0';
		argv[argc++] = text + start;
		if (i - start > WRAP_WORD)
			short_words = false;
		if (strchr(text + start, '/')) {
			pb_fuzz_outcome("not run: a word with '/'");
			free(text);
			return 0;
		}
		start = i + 1;
	}
	argv[argc] = NULL;

	struct pb_cli_result r;
	pb_cli_run(argc, argv, &r);
	const char *cmd = argc > 1 ? argv[1] : "";
	if (r.status != 0 && r.status != 2)
		pb_fuzz_fail("'%s': status %d (%s)", cmd, r.status, r.err);
	if (r.status == 2 && (r.messages != 1 || strncmp(r.err, "primbench: ", 11) != 0))
		pb_fuzz_fail("'%s': exit 2 with %zu messages on stderr, the first '%s'", cmd,
		             r.messages, r.err);
	if (r.status == 0 && r.exited && r.out_bytes)
		pb_fuzz_fail("'%s': parse-only printed %zu bytes on standard output", cmd,
		             r.out_bytes);
	if (r.new_file[0])
		pb_fuzz_fail("'%s': left the file '%s'", cmd, r.new_file);
	if (short_words && r.widest > 80)
		pb_fuzz_fail("'%s': a stderr line of %zu columns ('%s')", cmd, r.widest, r.err);
	if (r.status == 0)
		pb_fuzz_outcome("%s 0", r.exited ? "exit" : "return");
	else
		pb_fuzz_outcome("exit %d: %s", r.status, r.err);
	if (r.fds_left)
		pb_fuzz_outcome("left %d descriptors open", r.fds_left);
	free(text);
	return 0;
}
