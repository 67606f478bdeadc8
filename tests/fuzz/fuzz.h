/* fuzz.h - what every fuzz target of tests/fuzz shares (tests/fuzz/README.md).
 *
 * A target is one file, fuzz_NAME.c, defining
 *   int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
 * (libFuzzer's entry point: https://llvm.org/docs/LibFuzzer.html), and
 * optionally LLVMFuzzerInitialize. It returns 0 for every input; a defect
 * is a crash, a sanitizer report, a leak, a hang, or pb_fuzz_fail().
 * The same file is built into a libFuzzer executable (fuzz_NAME, the fuzz
 * build) and into replay_NAME (replay_main.c: every other build), which runs
 * given inputs and compares each one's outcome with its .expect file. */
#ifndef PB_FUZZ_H
#define PB_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional: runs once before the first input. */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* True in replay_NAME, false under libFuzzer. */
extern bool pb_fuzz_replaying;

/* Records one line of the input's outcome ("ok 3 cases", "error: bad size
 * '1Q': unknown suffix 'Q'"), printf-style; replay_NAME compares the lines
 * with the input's .expect file. A no-op under libFuzzer (no cost). Keep
 * outcomes free of addresses and timings: they must be the same on every
 * machine and build. */
void pb_fuzz_outcome(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The outcome recorded for the current input (replay only): lines joined
 * by '\n', "" when none. Cleared before each input. */
const char *pb_fuzz_outcome_text(void);
void pb_fuzz_outcome_clear(void);

/* A defect the target found itself (a kernel wrote a wrong byte, a text did
 * not read back as written): prints "fuzz: " and the message on stderr and
 * aborts, so libFuzzer saves the input as a crash. */
_Noreturn void pb_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The input as a NUL-terminated string (malloc'd; the caller frees). NUL
 * bytes inside stay, so strlen() may be shorter than size. */
char *pb_fuzz_text(const uint8_t *data, size_t size);

/* Consumes an input front to back: fixed-width numbers (little-endian,
 * zero past the end) and the rest. */
struct pb_fuzz_in {
	const uint8_t *p;
	size_t n;
};
uint8_t pb_fuzz_u8(struct pb_fuzz_in *in);
uint16_t pb_fuzz_u16(struct pb_fuzz_in *in);
uint32_t pb_fuzz_u32(struct pb_fuzz_in *in);
uint64_t pb_fuzz_u64(struct pb_fuzz_in *in);

/* /dev/null opened for writing (once; aborts when it cannot be): where a
 * target sends the text its readers print. */
FILE *pb_fuzz_devnull(void);

/* Writes all size bytes to fd (retrying short writes and EINTR). Returns
 * 0, or -1 with errno. */
int pb_fuzz_write_all(int fd, const void *data, size_t size);

/* Writes size bytes to a new file in a private temporary directory (made
 * once per process, removed at exit) and returns its path (static buffer,
 * valid until the next call), or NULL with errno. For readers that take a
 * path. */
const char *pb_fuzz_file(const void *data, size_t size);

#endif
