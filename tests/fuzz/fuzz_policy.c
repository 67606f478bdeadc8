/* fuzz_policy.c - the policy grammar (include/primbench/policy.h,
 * docs/cli-grammar.md "Policies") and the policy file grammar of auto
 * (pb_auto_file_parse, include/primbench/auto.h).
 *
 * Input: the text, whole (no selector byte, so that policy files such as
 * the files of tests/data/policy are seeds as they are). It is parsed as a policy of
 * every op and as a policy file, with every kernel of the table accepted
 * (have = all features: the outcome does not depend on this CPU; it does
 * on the architecture's kernel table, so regression inputs name generic
 * kernels).
 *
 * Checked: a parsed policy keeps policy.h's invariants (1..
 * PB_POLICY_MAX_BANDS bands, bounds strictly ascending but for the last,
 * UINT64_MAX, which may repeat the one before it; every kernel of the op); pb_policy_format writes
 * it in at most PB_POLICY_TEXT_MAX bytes and that text parses back equal (pb_policy_equal), and
 * formats to itself. A parsed policy file keeps the same per set op, names no auto kernel, has a
 * terminated cpu field, and written back as a file ("memset = ...", "cpu = ...") parses to the same
 * file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "primbench/auto.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/policy.h"

/* Every kernel of the table: the outcome does not depend on this CPU. */
#define ALL_FEATURES ((pb_features)-1)

/* A policy file is read whole, at most 64 KiB (pb_auto_file_read); the
 * parsers are linear, this only keeps inputs to what a file can be. */
#define MAX_INPUT (64 * 1024)

static const char *const op_names[PB_OP_COUNT] = {"memset", "memcpy", "memmove"};

/* policy.h's invariants, then format and re-parse; returns the text. */
static void check_policy(const struct pb_policy *p, enum pb_op op, const char *what, char *text,
                         size_t text_len)
{
	if (p->op != op)
		pb_fuzz_fail("%s: policy of op %d, asked %d", what, (int)p->op, (int)op);
	if (p->n_bands < 1 || p->n_bands > PB_POLICY_MAX_BANDS)
		pb_fuzz_fail("%s: %zu bands", what, p->n_bands);
	for (size_t i = 0; i < p->n_bands; i++) {
		const struct pb_kernel *k = p->bands[i].kernel;
		if (!k || k->op != op)
			pb_fuzz_fail("%s: band %zu's kernel is not of op %s", what, i,
			             op_names[op]);
		if (pb_kernel_find(op, k->name) != k)
			pb_fuzz_fail("%s: band %zu's kernel '%s' is not the table's", what, i,
			             k->name);
		/* the last bound, UINT64_MAX, may repeat the one before it */
		bool last_max = i + 1 == p->n_bands && p->bands[i].max_bytes == UINT64_MAX;
		if (i > 0 && p->bands[i].max_bytes <= p->bands[i - 1].max_bytes &&
		    !(last_max && p->bands[i - 1].max_bytes == UINT64_MAX))
			pb_fuzz_fail("%s: bound %zu (%" PRIu64 ") not above the previous (%" PRIu64
			             ")",
			             what, i, p->bands[i].max_bytes, p->bands[i - 1].max_bytes);
	}
	if (p->bands[p->n_bands - 1].max_bytes != UINT64_MAX)
		pb_fuzz_fail("%s: last bound %" PRIu64 ", not UINT64_MAX", what,
		             p->bands[p->n_bands - 1].max_bytes);

	int n = pb_policy_format(p, text, text_len);
	if (n < 0)
		pb_fuzz_fail("%s: does not format in %zu bytes: %s", what, text_len, pb_error());
	if ((size_t)n != strlen(text))
		pb_fuzz_fail("%s: format says %d bytes, wrote %zu", what, n, strlen(text));
	struct pb_policy back;
	if (pb_policy_parse(op, text, ALL_FEATURES, &back) != 0)
		pb_fuzz_fail("%s: written as '%s', does not parse: %s", what, text, pb_error());
	if (!pb_policy_equal(p, &back))
		pb_fuzz_fail("%s: written as '%s', parses to another policy", what, text);
	char again[PB_POLICY_TEXT_MAX];
	if (pb_policy_format(&back, again, sizeof again) < 0 || strcmp(again, text) != 0)
		pb_fuzz_fail("%s: '%s' formats back as '%s'", what, text, again);
}

static void policies(const char *text)
{
	for (int op = 0; op < PB_OP_COUNT; op++) {
		struct pb_policy p;
		memset(&p, 0xa5, sizeof p);
		struct pb_policy untouched = p;
		if (pb_policy_parse((enum pb_op)op, text, ALL_FEATURES, &p) != 0) {
			if (memcmp(&p, &untouched, sizeof p) != 0)
				pb_fuzz_fail("%s: failed parse wrote *out", op_names[op]);
			pb_fuzz_outcome("%s error: %s", op_names[op], pb_error());
			continue;
		}
		char out[PB_POLICY_TEXT_MAX];
		check_policy(&p, (enum pb_op)op, op_names[op], out, sizeof out);
		pb_fuzz_outcome("%s ok: %s", op_names[op], out);
	}
}

/* The file written back in its grammar (what tune writes). */
static size_t write_file(const struct pb_auto_file *f, char *buf, size_t len)
{
	size_t used = 0;
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f->set[op])
			continue;
		char p[PB_POLICY_TEXT_MAX];
		if (pb_policy_format(&f->policy[op], p, sizeof p) < 0)
			pb_fuzz_fail("file: %s's policy does not format", op_names[op]);
		used += (size_t)snprintf(buf + used, len - used, "%s = %s\n", op_names[op], p);
	}
	if (f->cpu[0])
		used += (size_t)snprintf(buf + used, len - used, "cpu = %s\n", f->cpu);
	if (used >= len)
		pb_fuzz_fail("file: written back needs %zu bytes", used);
	return used;
}

static void policy_file(const char *text, size_t len)
{
	struct pb_auto_file f;
	if (pb_auto_file_parse(text, len, "policy", ALL_FEATURES, &f) != 0) {
		pb_fuzz_outcome("file error: %s", pb_error());
		return;
	}
	if (strnlen(f.cpu, sizeof f.cpu) == sizeof f.cpu)
		pb_fuzz_fail("file: cpu not terminated");
	char summary[4 * PB_POLICY_TEXT_MAX] = "";
	size_t used = 0;
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f.set[op])
			continue;
		char out[PB_POLICY_TEXT_MAX];
		check_policy(&f.policy[op], (enum pb_op)op, "file", out, sizeof out);
		for (size_t b = 0; b < f.policy[op].n_bands; b++)
			if (!strcmp(f.policy[op].bands[b].kernel->name, "auto"))
				pb_fuzz_fail("file: %s names auto", op_names[op]);
		used += (size_t)snprintf(summary + used, sizeof summary - used, "; %s = %s",
		                         op_names[op], out);
	}
	pb_fuzz_outcome("file ok%s; cpu '%s'", summary, f.cpu);

	char again[4 * PB_POLICY_TEXT_MAX];
	size_t n = write_file(&f, again, sizeof again);
	struct pb_auto_file back;
	if (pb_auto_file_parse(again, n, "again", ALL_FEATURES, &back) != 0)
		pb_fuzz_fail("file: written back as '%s', does not parse: %s", again, pb_error());
	for (int op = 0; op < PB_OP_COUNT; op++)
		if (back.set[op] != f.set[op] ||
		    (f.set[op] && !pb_policy_equal(&back.policy[op], &f.policy[op])))
			pb_fuzz_fail("file: written back as '%s', %s reads back otherwise", again,
			             op_names[op]);
	if (strcmp(back.cpu, f.cpu) != 0)
		pb_fuzz_fail("file: cpu '%s' written back reads as '%s'", f.cpu, back.cpu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > MAX_INPUT)
		return 0;
	char *text = pb_fuzz_text(data, size);
	policies(text);
	policy_file(text, size);
	free(text);
	return 0;
}
