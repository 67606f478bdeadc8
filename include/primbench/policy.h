/* primbench/policy.h - policies: which kernel serves which call size
 * (docs/cli-grammar.md, "Policies"; docs/preload.md; docs/breakeven.md).
 *
 * Grammar: kernel<=bound,kernel<=bound,...,kernel
 * - a kernel is a name ("avx2") or an id ("memset/avx2") of the policy's op;
 * - a bound is a size in the size grammar (include/primbench/sizes.h:
 *   bytes, K/M/G binary, 0x hex), inclusive: 'rep_stosb<=2K' serves sizes
 *   0..2048;
 * - bounds ascend strictly; the last kernel has no bound and serves every
 *   larger size. A single kernel ('avx2') is a policy for every size.
 * Shells read '<' as a redirection: quote policies ('rep_stosb<=2K,avx512').
 *
 * A parsed policy is a fixed-size value (no allocation), so the preload
 * library can parse and consult it before malloc is usable.
 */
#ifndef PRIMBENCH_POLICY_H
#define PRIMBENCH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench/cpu.h"
#include "primbench/kernels.h"

#define PB_POLICY_MAX_BANDS 16
/* Enough for any policy pb_policy_format() writes from the current table. */
#define PB_POLICY_TEXT_MAX 1024

struct pb_policy_band {
	uint64_t max_bytes; /* inclusive; UINT64_MAX for the last (default) band */
	const struct pb_kernel *kernel;
};

/* Invariants (pb_policy_parse establishes them): 1 <= n_bands <=
 * PB_POLICY_MAX_BANDS; max_bytes strictly ascending, but for the last
 * band's: it is UINT64_MAX, and the band before it may have that bound
 * too ('bytes<=18446744073709551615,libc': the last kernel then serves no
 * size; a reader of the bands that computes a band's first size as the
 * previous bound + 1 must stop at a bound of UINT64_MAX); every kernel is
 * of op. */
struct pb_policy {
	enum pb_op op;
	size_t n_bands;
	struct pb_policy_band bands[PB_POLICY_MAX_BANDS];
};

/* Parses text for op. Every kernel must be usable with the features
 * `have` (pass pb_cpu_features(); (pb_features)-1 accepts every kernel of
 * the table, e.g. to check a policy meant for another machine).
 * Returns 0, or -1 with pb_error() set and *out untouched, e.g.
 * "bad policy 'avx3<=64,avx2': unknown kernel 'avx3'",
 * "bad policy 'avx2<=4K,sse2<=2K,libc': bound '2K' is not above the previous
 * bound '4K'", "bad policy 'avx2<=64': no default kernel after 'avx2<=64'
 * (end with a kernel without a bound)". */
int pb_policy_parse(enum pb_op op, const char *text, pb_features have, struct pb_policy *out);

/* Writes p in the grammar with compact sizes ("rep_stosb<=2K,avx512<=24M,
 * avx512_nt", bare kernel names; sizes by pb_format_bytes, exact), so that
 * parsing the text gives p back. Returns the length written (without the
 * NUL), or -1 with pb_error() when len is too small (buf then holds a
 * truncated, terminated text, when len > 0). */
int pb_policy_format(const struct pb_policy *p, char *buf, size_t len);

/* Same op, same bands (bounds and kernels). */
bool pb_policy_equal(const struct pb_policy *a, const struct pb_policy *b);

/* The kernel serving a call of n bytes: a linear scan of at most
 * PB_POLICY_MAX_BANDS - 1 bounds (policies have a few). p must satisfy the
 * invariants above. */
static inline const struct pb_kernel *pb_policy_pick(const struct pb_policy *p, size_t n)
{
	size_t i = 0;
	while (i + 1 < p->n_bands && (uint64_t)n > p->bands[i].max_bytes)
		i++;
	return p->bands[i].kernel;
}

#endif
