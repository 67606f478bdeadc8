/* tune.c - policies from break-even runs, and the policy file's text
 * (include/primbench/tune.h). */
#include "primbench/tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"

/* Appends band (max, k) to out, joining it with the previous band when the
 * kernel is the same. */
static void push(struct pb_policy *out, uint64_t max, const struct pb_kernel *k)
{
	if (out->n_bands && out->bands[out->n_bands - 1].kernel == k) {
		out->bands[out->n_bands - 1].max_bytes = max;
		return;
	}
	out->bands[out->n_bands].max_bytes = max;
	out->bands[out->n_bands].kernel = k;
	out->n_bands++;
}

int pb_tune_merge(const struct pb_policy *hot, const struct pb_policy *dram, uint64_t split_bytes,
                  struct pb_policy *out)
{
	if (split_bytes == 0)
		return pb_fail("tune: the split size must be positive");
	if (dram && dram->op != hot->op)
		return pb_fail("tune: a %s policy and a %s policy cannot be merged",
		               pb_op_name(hot->op), pb_op_name(dram->op));
	/* Up to 2 x 16 bands before joining. */
	struct {
		uint64_t max;
		const struct pb_kernel *k;
	} b[2 * PB_POLICY_MAX_BANDS];
	size_t n = 0;
	if (!dram) {
		for (size_t i = 0; i < hot->n_bands; i++)
			b[n].max = hot->bands[i].max_bytes, b[n++].k = hot->bands[i].kernel;
	} else {
		for (size_t i = 0; i < hot->n_bands; i++) {
			uint64_t m = hot->bands[i].max_bytes;
			b[n].k = hot->bands[i].kernel;
			b[n++].max = m < split_bytes ? m : split_bytes;
			if (m >= split_bytes)
				break;
		}
		for (size_t i = 0; i < dram->n_bands; i++) {
			if (dram->bands[i].max_bytes <= split_bytes)
				continue;
			b[n].max = dram->bands[i].max_bytes;
			b[n++].k = dram->bands[i].kernel;
		}
	}
	struct pb_policy p;
	p.op = hot->op;
	p.n_bands = 0;
	/* Join equal neighbours; then, while too many, join the band with the
	 * fewest octaves into the next one (and that one into its lower
	 * neighbour when both have the same kernel). */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && b[m - 1].k == b[i].k) {
			b[m - 1].max = b[i].max;
			continue;
		}
		b[m++] = b[i];
	}
	while (m > PB_POLICY_MAX_BANDS) {
		size_t best = 0;
		double best_w = 1e300;
		for (size_t i = 0; i + 1 < m; i++) {
			double lo = i ? (double)b[i - 1].max : 1.0, hi = (double)b[i].max;
			double w = hi / (lo > 0 ? lo : 1.0);
			if (w < best_w)
				best_w = w, best = i;
		}
		for (size_t i = best; i + 1 < m; i++)
			b[i] = b[i + 1];
		m--;
		/* the band's neighbours may now be the same kernel: join them */
		if (best > 0 && best < m && b[best - 1].k == b[best].k) {
			b[best - 1].max = b[best].max;
			for (size_t i = best; i + 1 < m; i++)
				b[i] = b[i + 1];
			m--;
		}
	}
	for (size_t i = 0; i < m; i++)
		push(&p, i + 1 == m ? UINT64_MAX : b[i].max, b[i].k);
	p.bands[p.n_bands - 1].max_bytes = UINT64_MAX;
	*out = p;
	return 0;
}

char *pb_auto_file_text(const struct pb_auto_file *f, const char *comment)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		pb_fail("out of memory");
		return NULL;
	}
	if (comment) {
		for (const char *p = comment; *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(m, "#%s%.*s\n", n ? " " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
	}
	for (int op = 0; op < PB_OP_COUNT; op++) {
		if (!f->set[op])
			continue;
		char text[PB_POLICY_TEXT_MAX];
		if (pb_policy_format(&f->policy[op], text, sizeof text) < 0) {
			fclose(m);
			free(buf);
			return NULL;
		}
		fprintf(m, "%s = %s\n", pb_op_name((enum pb_op)op), text);
	}
	if (f->cpu[0])
		fprintf(m, "cpu = %s\n", f->cpu);
	if (fclose(m) != 0) {
		free(buf);
		pb_fail("out of memory");
		return NULL;
	}
	return buf;
}
