/* map.c - `primbench mem map`: mapping and faulting regions of 4K, 2M and
 * 1G pages on N threads (primbench/map.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/map.h"
#include "primbench/map_result.h"
#include "primbench/pages.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "primbench/stats.h"
#include "primbench/text.h"
#include "primbench/timer.h"
#include "primbench/xalloc.h"

const char *pb_map_fault_name(enum pb_map_fault f)
{
	return f == PB_MAP_POPULATE ? "populate" : "demand";
}

int pb_map_fault_parse(const char *text, enum pb_map_fault *out)
{
	if (!strcmp(text, "demand"))
		*out = PB_MAP_DEMAND;
	else if (!strcmp(text, "populate"))
		*out = PB_MAP_POPULATE;
	else
		return pb_fail("unknown fault mode '%s' (demand or populate)", text);
	return 0;
}

bool pb_map_split(size_t bytes, size_t page_bytes, unsigned threads, uint64_t *pages,
                  size_t *mapped)
{
	uint64_t per_thread = threads ? bytes / page_bytes / threads : 0;
	*pages = per_thread * threads;
	*mapped = (size_t)*pages * page_bytes;
	return *pages > 0;
}

void pb_map_figures_of(size_t page_bytes, double ns_per_page, struct pb_map_figures *out)
{
	out->ns_per_page = ns_per_page;
	out->ns_per_4k = ns_per_page * 4096.0 / (double)page_bytes;
	out->gb_per_s = ns_per_page > 0 ? (double)page_bytes / ns_per_page : NAN;
}

size_t pb_map_size_cap(size_t want, uint64_t mem_available, bool *capped)
{
	*capped = mem_available > 0 && want > mem_available / 2;
	return *capped ? (size_t)(mem_available / 2) : want;
}

uint64_t pb_map_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long long kb = 0;
	bool found = false;
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
	fclose(f);
	return found ? (uint64_t)kb << 10 : 0;
}

/* One contender of a harness run: a case and its regions. */
struct slot {
	struct pb_map_case *c;
	struct pb_pages_region region;  /* demand: the whole region, mapped untimed */
	struct pb_pages_region *slices; /* populate: [threads], mapped in the batch */
	bool thp_checked;
};

struct run_ctx {
	struct slot *slots;
	unsigned threads;
	int failed; /* after_batch could not map the next region: pb_error() */
};

static int time_batch(void *vctx, size_t contender, unsigned thread, size_t k,
                      enum pb_harness_phase phase, struct pb_harness_batch *out)
{
	(void)k;
	(void)phase;
	struct run_ctx *x = vctx;
	if (x->failed)
		return -1;
	struct slot *s = &x->slots[contender];
	const struct pb_map_case *c = s->c;
	size_t slice = c->bytes / x->threads;
	pb_stamp t;
	if (c->fault == PB_MAP_DEMAND) {
		uint8_t *p = s->region.p + (size_t)thread * slice;
		t = pb_timer_begin();
		pb_pages_touch(p, slice, c->page_bytes);
		out->ticks = (double)pb_timer_end(t);
	} else {
		t = pb_timer_begin();
		int rc = pb_pages_map(slice, c->page_bytes, c->source, true, &s->slices[thread]);
		out->ticks = (double)pb_timer_end(t);
		if (rc != 0)
			return -1;
	}
	out->begin_stamp = t;
	return 0;
}

/* Untimed: the THP check after the first sample, munmap, and (demand) the
 * next sample's fresh region. */
static void after_batch(void *vctx, size_t contender, size_t k)
{
	(void)k;
	struct run_ctx *x = vctx;
	struct slot *s = &x->slots[contender];
	struct pb_map_case *c = s->c;
	if (c->source == PB_PAGES_THP) {
		/* the least AnonHugePages of any sample: a round whose faults
		 * fell back to 4K pages (no free 2 MiB block) shows here */
		uint64_t seen = 0;
		if (c->fault == PB_MAP_DEMAND)
			seen = pb_thp_bytes_at(s->region.p);
		else
			for (unsigned t = 0; t < x->threads; t++)
				if (s->slices[t].p)
					seen += pb_thp_bytes_at(s->slices[t].p);
		if (!s->thp_checked || seen < c->thp_bytes)
			c->thp_bytes = seen;
		s->thp_checked = true;
	}
	if (c->fault == PB_MAP_DEMAND) {
		pb_pages_unmap(&s->region);
		if (!x->failed &&
		    pb_pages_map(c->bytes, c->page_bytes, c->source, false, &s->region))
			x->failed = 1;
	} else {
		for (unsigned t = 0; t < x->threads; t++)
			pb_pages_unmap(&s->slices[t]);
	}
}

static void free_slots(struct slot *slots, size_t n, unsigned threads)
{
	for (size_t i = 0; i < n; i++) {
		pb_pages_unmap(&slots[i].region);
		if (slots[i].slices)
			for (unsigned t = 0; t < threads; t++)
				pb_pages_unmap(&slots[i].slices[t]);
		free(slots[i].slices);
	}
	free(slots);
}

/* The cases of one thread count that are not skipped, on the harness. */
static int run_count(const struct pb_map_params *p, struct pb_map_case *cases, size_t n,
                     unsigned threads, uint64_t *rng, bool *interrupted)
{
	struct slot *slots = pb_xcalloc(n, sizeof *slots);
	struct pb_harness_contender *con = pb_xcalloc(n, sizeof *con);
	size_t m = 0;
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		if (cases[i].skip[0])
			continue;
		struct slot *s = &slots[m];
		s->c = &cases[i];
		con[m].max_k = con[m].fixed_k = 1;
		if (cases[i].fault == PB_MAP_DEMAND) {
			if (pb_pages_map(cases[i].bytes, cases[i].page_bytes, cases[i].source,
			                 false, &s->region) != 0)
				goto out;
		} else {
			s->slices = pb_xcalloc(threads, sizeof *s->slices);
		}
		m++;
	}
	if (m == 0) {
		rc = 0;
		goto out;
	}
	struct run_ctx x = {.slots = slots, .threads = threads};
	struct pb_harness_params hp = {
	    .n_contenders = m,
	    .contenders = con,
	    .time_batch = time_batch,
	    .after_batch = after_batch,
	    .ctx = &x,
	    .warmup_samples = p->warmup,
	    .min_samples = p->rounds,
	    .max_samples = p->rounds,
	    .budget_s = 1e9, /* the rounds decide, not time */
	    .stop = p->stop,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .rng = rng,
	    .overhead_ticks = pb_timer_info()->overhead_ticks,
	    .threads = threads,
	    .pinning = p->pinning,
	};
	struct pb_harness_result hr;
	if (pb_harness_run(&hp, &hr) != 0)
		goto out;
	*interrupted = *interrupted || hr.interrupted;
	for (size_t j = 0; j < m; j++) {
		struct pb_harness_samples *hs = &hr.c[j];
		struct pb_map_case *c = slots[j].c;
		c->n_samples = hs->n_samples;
		c->migrations = hs->migrations;
		c->ticks = hs->ticks; /* taken over */
		hs->ticks = NULL;
		c->calls = pb_xcalloc(c->n_samples ? c->n_samples : 1, sizeof *c->calls);
		double *per = pb_xcalloc(c->n_samples ? c->n_samples : 1, sizeof *per);
		for (size_t i = 0; i < c->n_samples; i++) {
			c->calls[i] = c->pages;
			per[i] = c->ticks[i] / (double)c->pages;
		}
		if (c->n_samples) {
			pb_summarize(per, c->n_samples, 0.95, &c->per_page);
			pb_count_outliers_mz(per, c->n_samples, 3.5, &c->outliers);
		}
		free(per);
	}
	pb_harness_result_free(&hr);
	rc = 0;
out:
	free_slots(slots, n, threads);
	free(con);
	return rc;
}

static void note(struct pb_map_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct pb_map_result *r, const char *fmt, ...)
{
	size_t used = strlen(r->notes);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->notes + used, sizeof r->notes - used, fmt, ap);
	va_end(ap);
}

#define THP_NOTE_MARK ": in some round THP gave only "

/* The line of each THP case of cs[0..n) whose least AnonHugePages fell
 * short of its region. */
static void thp_notes(struct pb_map_result *r, const struct pb_map_case *cs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i].source == PB_PAGES_THP && cs[i].n_samples &&
		    cs[i].thp_bytes < cs[i].bytes)
			note(r,
			     "2M pages, %u threads" THP_NOTE_MARK "%llu MiB of "
			     "huge pages for %llu MiB (AnonHugePages in /proc/self/smaps): "
			     "the rest were 4K faults\n",
			     cs[i].threads, (unsigned long long)(cs[i].thp_bytes >> 20),
			     (unsigned long long)(cs[i].bytes >> 20));
}

/* Removes thp_notes' lines from notes: after replicates they are made
 * again from the least AnonHugePages of all the runs. */
static void drop_thp_notes(char *notes)
{
	char *line = notes;
	while (*line) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
		const char *mark = strstr(line, THP_NOTE_MARK);
		if (mark && (!end || mark < end))
			memmove(line, line + len, strlen(line + len) + 1);
		else
			line += len;
	}
}

int pb_map_run(const struct pb_map_params *p, struct pb_map_result *r)
{
	memset(r, 0, sizeof *r);
	if (p->bytes == 0 || p->n_page_sizes == 0 || p->n_page_sizes > PB_PAGE_SIZES_MAX ||
	    p->n_threads == 0 || p->rounds == 0)
		return pb_fail("map: bad parameters (size, page sizes, threads and rounds needed)");
	for (size_t t = 0; t < p->n_threads; t++)
		if (p->threads[t] < 1 || p->threads[t] > PB_MAP_MAX_THREADS)
			return pb_fail("map: --threads %u: a count from 1 to %d", p->threads[t],
			               PB_MAP_MAX_THREADS);
	const char *mm = p->sysfs_mm ? p->sysfs_mm : "/sys/kernel/mm";
	struct pb_pages_avail avail[PB_PAGE_SIZES_MAX];
	for (size_t i = 0; i < p->n_page_sizes; i++) {
		if (pb_pages_probe_at(mm, p->page_sizes[i], &avail[i]) != 0)
			return -1;
		if (avail[i].source == PB_PAGES_NONE) {
			char line[320];
			pb_pages_skip_line(p->page_sizes[i], line, sizeof line);
			note(r, "%s\n", line);
		}
	}
	r->n_cases = p->n_threads * p->n_page_sizes;
	r->cases = pb_xcalloc(r->n_cases, sizeof *r->cases);
	uint64_t rng = pb_seed_or_default(p->seed);
	for (size_t t = 0; t < p->n_threads; t++) {
		struct pb_map_case *cs = &r->cases[t * p->n_page_sizes];
		for (size_t i = 0; i < p->n_page_sizes; i++) {
			struct pb_map_case *c = &cs[i];
			const struct pb_pages_avail *a = &avail[i];
			c->page_bytes = p->page_sizes[i];
			c->source = a->source;
			c->threads = p->threads[t];
			c->fault = p->fault;
			const char *name = pb_pages_name(c->page_bytes);
			if (a->source == PB_PAGES_NONE) {
				pb_pages_skip_line(c->page_bytes, c->skip, sizeof c->skip);
				continue;
			}
			if (p->bytes < c->page_bytes) {
				/* not one page: whatever the thread count, said once */
				char sz[32];
				pb_format_bytes(sz, sizeof sz, (double)p->bytes, PB_BYTES_EXACT);
				snprintf(c->skip, sizeof c->skip,
				         "%s pages: skipped: --size %s is smaller than one %s page",
				         name, sz, name);
				if (t == 0)
					note(r, "%s\n", c->skip);
				continue;
			}
			size_t want = p->bytes;
			if (a->source == PB_PAGES_HUGETLB && want / c->page_bytes > a->free_pages) {
				want = (size_t)a->free_pages * c->page_bytes;
				if (t == 0)
					note(r,
					     "%s pages: %llu free in the hugetlbfs pool: the "
					     "region is "
					     "%llu MiB\n",
					     name, (unsigned long long)a->free_pages,
					     (unsigned long long)(want >> 20));
			}
			if (!pb_map_split(want, c->page_bytes, c->threads, &c->pages, &c->bytes)) {
				unsigned long long held = want / c->page_bytes;
				snprintf(c->skip, sizeof c->skip,
				         "%s pages, %u thread%s: skipped: the region holds %llu "
				         "%s page%s, fewer than threads",
				         name, c->threads, c->threads == 1 ? "" : "s", held, name,
				         held == 1 ? "" : "s");
			}
		}
		if (run_count(p, cs, p->n_page_sizes, p->threads[t], &rng, &r->interrupted) != 0) {
			pb_map_result_free(r);
			return -1;
		}
		thp_notes(r, cs, p->n_page_sizes);
		if (r->interrupted)
			break;
	}
	return 0;
}

void pb_map_result_free(struct pb_map_result *r)
{
	for (size_t i = 0; i < r->n_cases; i++) {
		free(r->cases[i].ticks);
		free(r->cases[i].calls);
		free(r->cases[i].replicate_samples);
	}
	free(r->cases);
	memset(r, 0, sizeof *r);
}

size_t pb_map_rounds_each(size_t rounds, size_t replicates)
{
	size_t r = replicates ? replicates : 1;
	size_t each = rounds / r; /* their sum stays within --rounds */
	return each ? each : 1;
}

void pb_map_replicate_params(const struct pb_map_params *p, size_t rep, size_t replicates,
                             struct pb_map_params *out)
{
	*out = *p;
	out->rounds = pb_map_rounds_each(p->rounds, replicates);
	out->seed = pb_replicate_seed(p->seed, rep);
}

static void first_replicate(struct pb_map_case *c)
{
	c->replicate_samples = pb_xcalloc(1, sizeof *c->replicate_samples);
	c->replicate_samples[0] = c->n_samples;
	c->n_replicates = 1;
}

/* o's samples as one more replicate of c (o keeps its arrays). */
static void join_replicate(struct pb_map_case *c, const struct pb_map_case *o)
{
	size_t n = c->n_samples + o->n_samples;
	c->replicate_samples =
	    pb_xrealloc(c->replicate_samples, (c->n_replicates + 1) * sizeof *c->replicate_samples);
	c->replicate_samples[c->n_replicates++] = o->n_samples;
	if (o->n_samples) {
		c->ticks = pb_xrealloc(c->ticks, n * sizeof *c->ticks);
		c->calls = pb_xrealloc(c->calls, n * sizeof *c->calls);
		memcpy(c->ticks + c->n_samples, o->ticks, o->n_samples * sizeof *c->ticks);
		memcpy(c->calls + c->n_samples, o->calls, o->n_samples * sizeof *c->calls);
	}
	if (o->source == PB_PAGES_THP && o->n_samples &&
	    (c->n_samples == 0 || o->thp_bytes < c->thp_bytes))
		c->thp_bytes = o->thp_bytes;
	c->n_samples = n;
	c->migrations += o->migrations;
	c->outliers += o->outliers;
}

int pb_map_result_add_replicate(struct pb_map_result *acc, struct pb_map_result *more)
{
	drop_thp_notes(more->notes);
	if (!acc->cases) {
		*acc = *more;
		memset(more, 0, sizeof *more);
		for (size_t i = 0; i < acc->n_cases; i++)
			first_replicate(&acc->cases[i]);
		return 0;
	}
	for (size_t j = 0; j < more->n_cases; j++) {
		struct pb_map_case *o = &more->cases[j], *c = NULL;
		for (size_t i = 0; !c && i < acc->n_cases; i++)
			if (acc->cases[i].page_bytes == o->page_bytes &&
			    acc->cases[i].threads == o->threads && acc->cases[i].fault == o->fault)
				c = &acc->cases[i];
		if (c) {
			join_replicate(c, o);
			continue;
		}
		acc->cases = pb_xrealloc(acc->cases, (acc->n_cases + 1) * sizeof *acc->cases);
		acc->cases[acc->n_cases] = *o;
		memset(o, 0, sizeof *o);
		first_replicate(&acc->cases[acc->n_cases++]);
	}
	pb_notes_merge(acc->notes, sizeof acc->notes, more->notes);
	acc->interrupted |= more->interrupted;
	pb_map_result_free(more);
	return 0;
}

int pb_map_result_end_replicates(struct pb_map_result *r)
{
	drop_thp_notes(r->notes);
	for (size_t i = 0; i < r->n_cases; i++) {
		struct pb_map_case *c = &r->cases[i];
		if (c->n_samples == 0)
			continue;
		double *v = pb_xcalloc(c->n_samples, sizeof *v);
		for (size_t j = 0; j < c->n_samples; j++)
			v[j] = c->ticks[j] / (double)c->calls[j];
		int rc = pb_summarize_replicates(v, c->n_samples, c->replicate_samples,
		                                 c->n_replicates, 0.95, &c->per_page);
		free(v);
		if (rc != 0)
			return -1;
	}
	thp_notes(r, r->cases, r->n_cases);
	return 0;
}

int pb_map_run_replicates(const struct pb_map_params *p, size_t replicates,
                          pb_map_replicate_progress *progress, void *progress_ctx,
                          struct pb_map_result *out)
{
	size_t reps = replicates ? replicates : 1;
	memset(out, 0, sizeof *out);
	for (size_t rep = 0; rep < reps && !out->interrupted; rep++) {
		struct pb_map_params rp;
		struct pb_map_result one;
		if (progress)
			progress(progress_ctx, rep, reps);
		pb_map_replicate_params(p, rep, reps, &rp);
		if (pb_map_run(&rp, &one) != 0 || pb_map_result_add_replicate(out, &one) != 0) {
			pb_map_result_free(out);
			return -1;
		}
	}
	if (pb_map_result_end_replicates(out) != 0) {
		pb_map_result_free(out);
		return -1;
	}
	return 0;
}

int pb_map_nothing_line(const struct pb_map_result *r, char *buf, size_t len)
{
	size_t used = 0;
	bool first = true;
	int n = snprintf(buf, len, "nothing was measured");
	for (size_t i = 0; n >= 0 && i < r->n_cases; i++) {
		const char *why = r->cases[i].skip;
		bool seen = !why[0];
		for (size_t j = 0; !seen && j < i; j++)
			seen = !strcmp(r->cases[j].skip, why);
		if (seen)
			continue;
		used = (size_t)n < len ? (size_t)n : len;
		int m = snprintf(buf + used, len - used, "%s%s", first ? ": " : "; ", why);
		first = false;
		n = m < 0 ? m : n + m;
	}
	return n;
}

int pb_map_round_size(const struct pb_map_result *r, size_t asked, char *buf, size_t len)
{
	size_t lo = 0, hi = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_map_case *c = &r->cases[i];
		if (c->skip[0] || c->n_samples == 0)
			continue;
		if (!hi || c->bytes < lo)
			lo = c->bytes;
		if (c->bytes > hi)
			hi = c->bytes;
	}
	char a[32], l[32], h[32];
	pb_format_bytes(a, sizeof a, (double)asked, PB_BYTES_EXACT);
	if (!hi || (lo == asked && hi == asked))
		return snprintf(buf, len, "%s per round", a);
	pb_format_bytes(l, sizeof l, (double)lo, PB_BYTES_EXACT);
	pb_format_bytes(h, sizeof h, (double)hi, PB_BYTES_EXACT);
	if (lo == hi)
		return snprintf(buf, len, "%s per round (%s asked)", l, a);
	return snprintf(buf, len, "%s to %s per round (%s asked)", l, h, a);
}

int pb_map_result_to_doc(struct pb_results_doc *doc, const struct pb_map_result *r)
{
	struct pb_map_record *recs = calloc(r->n_cases ? r->n_cases : 1, sizeof *recs);
	/* the skip lines that name threads, then the run's notes */
	size_t room = sizeof r->notes + 1;
	for (size_t i = 0; i < r->n_cases; i++)
		room += sizeof r->cases[i].skip + 1;
	char *notes = malloc(room);
	if (!recs || !notes) {
		free(recs);
		free(notes);
		return pb_fail("out of memory");
	}
	size_t n = 0, used = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_map_case *c = &r->cases[i];
		if (c->skip[0] || c->n_samples == 0)
			continue; /* the skip line is among the notes */
		struct pb_map_figures f;
		pb_map_figures_of(c->page_bytes, pb_ticks_to_ns(c->per_page.median), &f);
		recs[n++] = (struct pb_map_record){
		    .fault = pb_map_fault_name(c->fault),
		    .page_bytes = c->page_bytes,
		    .page_source = pb_pages_source_name(c->source),
		    .threads = c->threads,
		    .region_bytes = c->bytes,
		    .pages = c->pages,
		    .n_samples = c->n_samples,
		    .ticks = c->ticks,
		    .calls = c->calls,
		    .per_page = &c->per_page,
		    .n_replicates = c->n_replicates,
		    .replicate_samples = c->replicate_samples,
		    .ns_per_page = f.ns_per_page,
		    .ns_per_4k_page = f.ns_per_4k,
		    .gb_per_s = f.gb_per_s,
		    .thp = c->source == PB_PAGES_THP,
		    .thp_bytes = c->thp_bytes,
		    .migrations = c->migrations,
		    .outliers = c->outliers,
		};
	}
	for (size_t i = 0; i < r->n_cases; i++)
		if (r->cases[i].skip[0] && strstr(r->cases[i].skip, "threads"))
			used +=
			    (size_t)snprintf(notes + used, room - used, "%s\n", r->cases[i].skip);
	snprintf(notes + used, room - used, "%s", r->notes);
	int rc = pb_results_add_map(doc, recs, n, notes);
	free(recs);
	free(notes);
	return rc;
}
