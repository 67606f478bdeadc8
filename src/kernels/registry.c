/* registry.c - the one table of kernels, built from the row lists.
 *
 * The rows are read four times: prototypes (protos.h), then the memset
 * rows, the memcpy rows and the memmove rows, so the table lists the
 * kernels op by op (every memset kernel before every memcpy kernel, ...),
 * portable rows first. Nothing registers itself at run time.
 */
#include <stdio.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/kernels.h"

#include "kernels/generic/blocks.h" /* thresholds the rows name */

/* The order of these includes is their meaning: keep clang-format away. */
// clang-format off
#include "kernels/generic/protos.h"
#include "kernels/generic/generic_rows.h"
#include "arch_rows.h"
#undef PB_MEMSET
#undef PB_MEMCPY
#undef PB_MEMMOVE

#define ROW(op_, set_fn, cpy_fn, move_fn, name_, fn_, requires_, same_, differs_, store_,          \
            vector_, glibc_, note_, flags_, description_, source_)                                 \
	{.op = op_,                                                                                \
	 .name = name_,                                                                            \
	 .requires = requires_,                                                                    \
	 .memset_fn = set_fn,                                                                      \
	 .memcpy_fn = cpy_fn,                                                                      \
	 .memmove_fn = move_fn,                                                                    \
	 .same_code_as = same_,                                                                    \
	 .differs_from_bytes = differs_,                                                           \
	 .store = store_,                                                                          \
	 .vector_bytes = vector_,                                                                  \
	 .glibc = glibc_,                                                                          \
	 .glibc_note = note_,                                                                      \
	 .auto_inline = ((flags_) & PB_KF_AUTO_INLINE) != 0,                                       \
	 .tune_candidate = ((flags_) & PB_KF_NOT_TUNED) == 0,                                      \
	 .description = description_,                                                              \
	 .source = source_},

/* A row's function is its second argument. */
#define FN_OF(name_, fn_, ...) fn_

static const struct pb_kernel table[] = {
#define PB_MEMSET(...) ROW(PB_OP_MEMSET, FN_OF(__VA_ARGS__), NULL, NULL, __VA_ARGS__)
#define PB_MEMCPY(...)
#define PB_MEMMOVE(...)
#include "kernels/generic/generic_rows.h"
#include "arch_rows.h"
#undef PB_MEMSET
#undef PB_MEMCPY
#undef PB_MEMMOVE

#define PB_MEMSET(...)
#define PB_MEMCPY(...) ROW(PB_OP_MEMCPY, NULL, FN_OF(__VA_ARGS__), NULL, __VA_ARGS__)
#define PB_MEMMOVE(...)
#include "kernels/generic/generic_rows.h"
#include "arch_rows.h"
#undef PB_MEMSET
#undef PB_MEMCPY
#undef PB_MEMMOVE

#define PB_MEMSET(...)
#define PB_MEMCPY(...)
#define PB_MEMMOVE(...) ROW(PB_OP_MEMMOVE, NULL, NULL, FN_OF(__VA_ARGS__), __VA_ARGS__)
#include "kernels/generic/generic_rows.h"
#include "arch_rows.h"
#undef PB_MEMSET
#undef PB_MEMCPY
#undef PB_MEMMOVE
};
// clang-format on

#define TABLE_COUNT (sizeof table / sizeof table[0])

static const char *const op_names[PB_OP_COUNT] = {
    [PB_OP_MEMSET] = "memset",
    [PB_OP_MEMCPY] = "memcpy",
    [PB_OP_MEMMOVE] = "memmove",
};

const char *pb_op_name(enum pb_op op)
{
	return (unsigned)op < PB_OP_COUNT ? op_names[op] : "unknown";
}

int pb_op_parse(const char *name, enum pb_op *out)
{
	for (unsigned op = 0; op < PB_OP_COUNT; op++) {
		if (!strcmp(name, op_names[op])) {
			*out = (enum pb_op)op;
			return 0;
		}
	}
	return pb_fail("unknown op '%s'", name);
}

const struct pb_kernel *pb_kernels(size_t *count)
{
	*count = TABLE_COUNT;
	return table;
}

static const struct pb_kernel *lookup(enum pb_op op, const char *name)
{
	for (size_t i = 0; i < TABLE_COUNT; i++)
		if (table[i].op == op && !strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

const struct pb_kernel *pb_kernel_find(enum pb_op op, const char *name)
{
	const char *slash = strchr(name, '/');
	const struct pb_kernel *k = NULL;

	if (slash) {
		/* "op/name": the op it names, which must match the one asked for. */
		char op_text[16];
		enum pb_op named = PB_OP_COUNT;
		size_t len = (size_t)(slash - name);
		if (len < sizeof op_text) {
			memcpy(op_text, name, len);
			op_text[len] = '\0';
			if (pb_op_parse(op_text, &named) == 0)
				k = lookup(named, slash + 1);
		}
		if (!k) {
			pb_fail("unknown kernel '%s'", name);
			return NULL;
		}
	} else if ((unsigned)op < PB_OP_COUNT) {
		k = lookup(op, name);
		if (!k) {
			/* The name of other ops' kernels says more than "unknown",
			 * with the op that was asked for first: "unknown kernel
			 * 'memmove/avx512_nt' (there are memset/avx512_nt and
			 * memcpy/avx512_nt)". */
			char there[160] = "";
			size_t pos = 0, n = 0;
			for (unsigned other = 0; other < PB_OP_COUNT; other++)
				if (lookup((enum pb_op)other, name))
					n++;
			for (unsigned other = 0, i = 0; other < PB_OP_COUNT; other++) {
				if (!lookup((enum pb_op)other, name))
					continue;
				const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " and ";
				int w = snprintf(there + pos, sizeof there - pos, "%s%s/%s", sep,
				                 pb_op_name((enum pb_op)other), name);
				pos += w > 0 && (size_t)w < sizeof there - pos ? (size_t)w : 0;
				i++;
			}
			if (n)
				pb_fail("unknown kernel '%s/%s' (there %s %s)", pb_op_name(op),
				        name, n == 1 ? "is" : "are", there);
			else
				pb_fail("unknown kernel '%s'", name);
			return NULL;
		}
	} else {
		/* No op: the name must be unique across ops. */
		const struct pb_kernel *found[PB_OP_COUNT];
		size_t n = 0;
		for (unsigned other = 0; other < PB_OP_COUNT; other++)
			if ((found[n] = lookup((enum pb_op)other, name)) != NULL)
				n++;
		if (n == 0) {
			pb_fail("unknown kernel '%s'", name);
			return NULL;
		}
		if (n > 1) {
			/* "say memset/bytes, memcpy/bytes or memmove/bytes" */
			char say[256] = "";
			size_t pos = 0;
			for (size_t i = 0; i < n && pos < sizeof say; i++) {
				const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " or ";
				int w = snprintf(say + pos, sizeof say - pos, "%s%s/%s", sep,
				                 pb_op_name(found[i]->op), name);
				pos += w > 0 ? (size_t)w : 0;
			}
			pb_fail("kernel name '%s' is ambiguous: say %s", name, say);
			return NULL;
		}
		k = found[0];
	}
	if ((unsigned)op < PB_OP_COUNT && k->op != op) {
		pb_fail("kernel '%s/%s' is not a %s kernel", pb_op_name(k->op), k->name,
		        pb_op_name(op));
		return NULL;
	}
	return k;
}

const struct pb_kernel *pb_kernel_code_at(const struct pb_kernel *k, size_t size_bytes)
{
	/* The table is fixed and acyclic (tests/test_kernels.c checks it);
	 * the bound on steps guards against a row pointing at itself. */
	for (size_t steps = 0;
	     steps < TABLE_COUNT && k->same_code_as && size_bytes < k->differs_from_bytes;
	     steps++) {
		const struct pb_kernel *base = lookup(k->op, k->same_code_as);
		if (!base)
			break;
		k = base;
	}
	return k;
}

/* The revision table (pb_kernel_revision): one line per change of a row,
 * in the order made; a row without a line is at revision 1. A row's
 * revision is 1 + its lines; a line's `to` is the revision it made, and
 * was_same_code_as / was_differs_from_bytes are what the row's
 * same_code_as / differs_from_bytes were at revision to - 1 (the sizes
 * where it ran another row's code then: pb_kernel_code_at_revision). */
struct revision {
	const char *id; /* "op/name" */
	unsigned to;    /* the revision this change made, >= 2 */
	const char *change;
	const char *was_same_code_as;
	size_t was_differs_from_bytes;
};
/* Revision 2 of the non-temporal rows: they stopped falling through to their
 * base row up to 1 MiB (the former PB_NT_THRESHOLD_BYTES inside the kernels);
 * they stream every whole line from 64 B on. REV1_NT_FROM: their
 * differs_from_bytes at revision 1. */
#define REV1_NT_FROM (((size_t)1 << 20) + 1)
#define PB_NT_REV2(op, name, base)                                                                 \
	{                                                                                          \
		op "/" name, 2,                                                                    \
		    "non-temporal at every size (each whole 64-byte line); revision 1 ran " base   \
		    "'s code up to 1 MiB",                                                         \
		    base, REV1_NT_FROM                                                             \
	}
static const struct revision revisions[] = {
    PB_NT_REV2("memset", "sse2_nt", "sse2"),
    PB_NT_REV2("memset", "avx2_nt", "avx2"),
    PB_NT_REV2("memset", "avx512_nt", "avx512"),
    PB_NT_REV2("memset", "movnti", "gpr_unrolled"),
    PB_NT_REV2("memcpy", "sse2_nt", "sse2"),
    PB_NT_REV2("memcpy", "avx2_nt", "avx2"),
    PB_NT_REV2("memcpy", "avx512_nt", "avx512"),
    PB_NT_REV2("memcpy", "movnti", "gpr_unrolled"),
    PB_NT_REV2("memset", "neon_nt", "neon"),
    PB_NT_REV2("memcpy", "neon_nt", "neon"),
    PB_NT_REV2("memmove", "neon_nt", "neon"),
    {"memset/mops_nt", 2,
     "the non-temporal SETPN/SETMN/SETEN at every size; revision 1 ran mops's code up to 1 MiB",
     "mops", REV1_NT_FROM},
    {"memcpy/mops_nt", 2,
     "the non-temporal CPYFPN/CPYFMN/CPYFEN at every size; revision 1 ran mops's code up to 1 MiB",
     "mops", REV1_NT_FROM},
    {"memmove/mops_nt", 2,
     "the non-temporal CPYPN/CPYMN/CPYEN at every size; revision 1 ran mops's code up to 1 MiB",
     "mops", REV1_NT_FROM},
    /* Revision 2 of memset/avx512: the bulk path's head is four vectors
     * (glibc's loop geometry), which moves where the loop's stores and the
     * tail's overlap: one 64-byte store fewer at most sizes, three more a
     * little above a multiple of four vectors (docs/performance.md). */
    {"memset/avx512", 2,
     "above 512 B, four vectors at the head instead of one (one store fewer at most sizes)", NULL,
     0},
    {"memcpy/avx512", 2,
     "16-63 B: a pair of 16- or 32-byte vectors instead of one masked load and store", NULL, 0},
    {"memmove/avx512", 2,
     "16-63 B: a pair of 16- or 32-byte vectors instead of one masked load and store", NULL, 0},
    {"memset/avx2", 2,
     "above 128 B, four vectors at the head instead of two (one store fewer at most sizes)", NULL,
     0},
};
#undef PB_NT_REV2
#undef REV1_NT_FROM

static bool is_row(const struct pb_kernel *k, const char *id)
{
	const char *op = pb_op_name(k->op);
	size_t n = strlen(op);
	return strncmp(id, op, n) == 0 && id[n] == '/' && strcmp(id + n + 1, k->name) == 0;
}

unsigned pb_kernel_revision(const struct pb_kernel *k, const char **change)
{
	unsigned rev = 1;
	const char *last = "";
	for (size_t i = 0; i < sizeof revisions / sizeof revisions[0]; i++)
		if (is_row(k, revisions[i].id) && revisions[i].to > rev) {
			rev = revisions[i].to;
			last = revisions[i].change;
		}
	if (change)
		*change = last;
	return rev;
}

const struct pb_kernel *pb_kernel_code_at_revision(const struct pb_kernel *k, unsigned rev,
                                                   size_t size_bytes)
{
	unsigned now = pb_kernel_revision(k, NULL);
	if (rev < 1 || rev > now)
		return NULL;
	if (rev == now)
		return pb_kernel_code_at(k, size_bytes);
	/* the first change after rev says what the row was at rev */
	const struct revision *first = NULL;
	for (size_t i = 0; i < sizeof revisions / sizeof revisions[0]; i++)
		if (is_row(k, revisions[i].id) && revisions[i].to > rev &&
		    (!first || revisions[i].to < first->to))
			first = &revisions[i];
	if (!first || !first->was_same_code_as || size_bytes >= first->was_differs_from_bytes)
		return k;
	const struct pb_kernel *base = lookup(k->op, first->was_same_code_as);
	/* the base row at the current revision: its own history is not
	 * followed (no base row has changed what it runs) */
	return base ? pb_kernel_code_at(base, size_bytes) : k;
}

const char *pb_kernel_revision_change(const struct pb_kernel *k, unsigned since)
{
	const char *line = NULL;
	if (since < 1)
		return NULL;
	for (size_t i = 0; i < sizeof revisions / sizeof revisions[0]; i++)
		if (is_row(k, revisions[i].id) && revisions[i].to > since)
			line = revisions[i].change; /* the latest one since */
	return line;
}

/* Appends "a, b" feature names of `set` to buf at *pos (snprintf-style:
 * *pos may pass len; the caller's buffer stays terminated). */
static void append(char *buf, size_t len, size_t *pos, const char *fmt, const char *arg)
{
	int w = snprintf(buf + (*pos < len ? *pos : len), *pos < len ? len - *pos : 0, fmt, arg);
	if (w > 0)
		*pos += (size_t)w;
}

static void append_features(char *buf, size_t len, size_t *pos, pb_features set, const char *label)
{
	bool first = true;
	for (unsigned f = 0; f < PB_FEAT_COUNT; f++) {
		if (!(set & ((pb_features)1u << f)))
			continue;
		append(buf, len, pos, first ? "%s" : ", %s", pb_feature_name((enum pb_feature)f));
		first = false;
	}
	append(buf, len, pos, " (%s)", label);
}

bool pb_kernel_usable(const struct pb_kernel *k, pb_features have, char *why, size_t why_len)
{
	pb_features missing = k->requires & ~have;
	if (!missing)
		return true;
	if (why && why_len) {
		/* Detected but not usable: hidden by the user, directly or through
		 * a feature it extends (hiding avx512f hides avx512bw). Usable
		 * here but missing from `have`: the caller's own restriction. */
		pb_features detected = pb_cpu_features_detected(), usable = pb_cpu_features();
		pb_features absent = missing & ~detected;
		pb_features hidden = missing & detected & ~usable;
		pb_features other = missing & usable;
		size_t pos = 0;
		why[0] = '\0';
		append(why, why_len, &pos, "%s", "needs ");
		if (hidden)
			append_features(why, why_len, &pos, hidden, "hidden");
		if (absent) {
			if (hidden)
				append(why, why_len, &pos, "%s", "; ");
			append_features(why, why_len, &pos, absent, "not on this CPU");
		}
		if (other) {
			if (hidden || absent)
				append(why, why_len, &pos, "%s", "; ");
			append_features(why, why_len, &pos, other, "not in the given set");
		}
	}
	return false;
}
