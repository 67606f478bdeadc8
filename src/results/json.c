/* json.c - result documents, schema v1 (docs/results-schema.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/machine.h"
#include "primbench/replicates.h"
#include "primbench/results.h"
#include "results/results_json.h"
#include "primbench/timer.h"
#include "primbench/units.h"

#ifndef PB_BUILD_FLAGS
#define PB_BUILD_FLAGS ""
#endif

json_t *pb_json_number(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The document is the JSON object itself, behind an opaque type. */
struct pb_results_doc {
	json_t *root;
};

json_t *pb_results_doc_json(struct pb_results_doc *doc)
{
	return doc ? doc->root : NULL;
}

const json_t *pb_results_doc_cjson(const struct pb_results_doc *doc)
{
	return doc ? doc->root : NULL;
}

struct pb_results_doc *pb_results_doc_adopt(json_t *root)
{
	struct pb_results_doc *d = malloc(sizeof *d);
	if (!d) {
		json_decref(root);
		return NULL;
	}
	d->root = root;
	return d;
}

void pb_results_doc_free(struct pb_results_doc *doc)
{
	if (!doc)
		return;
	json_decref(doc->root);
	free(doc);
}

static json_t *new_doc(int argc, char **argv, time_t started, const struct pb_cache_info *caches,
                       int pinned_cpu)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "schema", json_string(PB_RESULTS_SCHEMA));
	json_object_set_new(doc, "schema_version", json_integer(PB_RESULTS_SCHEMA_VERSION));

	json_t *pb = json_object();
#ifdef PB_GIT_DESCRIBE
	json_object_set_new(pb, "version", json_string(PB_GIT_DESCRIBE));
#else
	json_object_set_new(pb, "version", json_string(PB_VERSION_STRING));
#endif
	json_object_set_new(pb, "arch", json_string(PB_ARCH_NAME));
	json_object_set_new(pb, "compiler", json_string(__VERSION__));
	json_object_set_new(pb, "build_flags", json_string(PB_BUILD_FLAGS));
	json_object_set_new(doc, "primbench", pb);

	json_t *cl = json_array();
	for (int i = 0; i < argc; i++)
		json_array_append_new(cl, json_string(argv[i]));
	json_object_set_new(doc, "command_line", cl);

	char when[64];
	struct tm tm;
	gmtime_r(&started, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(doc, "started_at", json_string(when));

	json_object_set_new(doc, "machine", pb_results_machine_json_now(caches, pinned_cpu));
	json_object_set_new(doc, "cases", json_array());
	json_object_set_new(doc, "notes", json_array());
	json_object_set_new(doc, "interrupted", json_false());
	return doc;
}

struct pb_results_doc *pb_results_new(int argc, char **argv, time_t started,
                                      const struct pb_cache_info *caches, int pinned_cpu)
{
	json_t *root = new_doc(argc, argv, started, caches, pinned_cpu);
	if (!root)
		return NULL;
	return pb_results_doc_adopt(root);
}

void pb_json_add_samples(json_t *o, const double *ticks, const uint64_t *calls, size_t n,
                         const struct pb_summary *per_call)
{
	json_object_set_new(o, "unit", json_string(pb_timer_info()->tick_unit));
	json_object_set_new(o, "overhead_subtracted", json_true());
	json_t *samples = json_array();
	for (size_t j = 0; j < n; j++)
		json_array_append_new(samples, json_pack("[f,I]", ticks[j], (json_int_t)calls[j]));
	json_object_set_new(o, "samples", samples);
	if (n)
		json_object_set_new(o, "per_call", pb_json_summary(per_call));
}

void pb_json_set_members(json_t *o, const struct pb_json_member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, m[i].name, m[i].value);
}

json_t *pb_json_summary(const struct pb_summary *s)
{
	json_t *o = json_object();
	const struct pb_json_member figures[] = {
	    {"n", json_integer((json_int_t)s->n)}, {"min", pb_json_number(s->min)},
	    {"p10", pb_json_number(s->p10)},       {"median", pb_json_number(s->median)},
	    {"p90", pb_json_number(s->p90)},       {"max", pb_json_number(s->max)},
	    {"mean", pb_json_number(s->mean)},     {"stddev", pb_json_number(s->stddev)}};
	pb_json_set_members(o, figures, sizeof figures / sizeof *figures);
	if (s->ci_valid) {
		const struct pb_json_member ci[] = {{"ci_level", pb_json_number(s->ci_level)},
		                                    {"ci_lo", pb_json_number(s->ci_lo)},
		                                    {"ci_hi", pb_json_number(s->ci_hi)}};
		pb_json_set_members(o, ci, sizeof ci / sizeof *ci);
	}
	/* v2: what the median and CI stand for (include/primbench/replicates.h) */
	json_object_set_new(o, "replicates",
	                    json_integer((json_int_t)(s->replicates > 1 ? s->replicates : 1)));
	json_object_set_new(o, "method",
	                    json_string(s->replicates > 1 ? "replicates-geomean-student-t-log"
	                                                  : "samples-median-order-statistics"));
	return o;
}

json_t *pb_json_replicates(const double *ticks, const uint64_t *calls, size_t n,
                           const size_t *rep_n, size_t n_rep)
{
	if (!rep_n || n_rep == 0)
		return NULL;
	json_t *arr = json_array();
	double *v = malloc((n ? n : 1) * sizeof *v);
	for (size_t j = 0; v && j < n; j++)
		v[j] = ticks[j] / (double)calls[j];
	size_t at = 0;
	for (size_t r = 0; r < n_rep; r++) {
		json_t *o = json_object();
		json_object_set_new(o, "samples", json_integer((json_int_t)rep_n[r]));
		double med = NAN;
		if (v && rep_n[r] > 0 && at + rep_n[r] <= n)
			pb_replicate_medians(v + at, rep_n[r], &rep_n[r], 1, &med);
		json_object_set_new(o, "median", pb_json_number(med));
		at += rep_n[r];
		json_array_append_new(arr, o);
	}
	free(v);
	return arr;
}

/* Each thread of an N-thread case: its CPU, its own batch ticks (one
 * value per sample of `samples`, for calls / N calls), their per-call
 * summary and its median's ns per call and GB/s. */
static json_t *per_thread_json(const struct pb_mem_case *c, unsigned nt)
{
	json_t *arr = json_array();
	for (unsigned t = 0; t < nt; t++) {
		json_t *o = json_object();
		json_object_set_new(o, "thread", json_integer(t));
		json_object_set_new(o, "cpu", json_integer(c->thread_cpus[t]));
		json_t *v = json_array();
		for (size_t j = 0; c->thread_batch_ticks && j < c->n_samples; j++)
			json_array_append_new(v, pb_json_number(c->thread_batch_ticks[j * nt + t]));
		json_object_set_new(o, "samples", v);
		if (c->n_samples && c->thread_ticks_per_call) {
			const struct pb_summary *s = &c->thread_ticks_per_call[t];
			json_object_set_new(o, "per_call", pb_json_summary(s));
			json_t *dv = json_object();
			json_object_set_new(dv, "ns_per_call",
			                    pb_json_number(pb_ticks_to_ns(s->median)));
			json_object_set_new(dv, "gb_per_s",
			                    pb_json_number(pb_gb_per_s(s->median, c->size_bytes)));
			json_object_set_new(o, "median_derived", dv);
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

int pb_results_arrays(json_t *doc, json_t **cases, json_t **notes)
{
	*cases = json_object_get(doc, "cases");
	*notes = json_object_get(doc, "notes");
	if (!json_is_array(*cases) || !json_is_array(*notes))
		return pb_fail("not a result document");
	return 0;
}

json_t *pb_results_key(const char *suite)
{
	json_t *key = json_object();
	json_object_set_new(key, "suite", json_string(suite));
	return key;
}

/* A mem case's key (schema: the fields that name it), nt its threads (1 when one). */
static json_t *mem_key(const struct pb_mem_case *c, unsigned nt)
{
	json_t *key = pb_results_key("mem");
	json_object_set_new(key, "op", json_string(pb_op_name(c->op)));
	json_object_set_new(key, "kernel", json_string(c->kernel->name));
	json_object_set_new(key, "size_bytes",
	                    c->replay ? json_null() : json_integer((json_int_t)c->size_bytes));
	const struct pb_mem_placement *pl = &c->placement;
	json_object_set_new(key, "dst_offset_bytes",
	                    json_integer((json_int_t)pl->dst_offset_bytes));
	json_object_set_new(key, "src_offset_bytes",
	                    c->op != PB_OP_MEMSET && !pl->has_distance
	                        ? json_integer((json_int_t)pl->src_offset_bytes)
	                        : json_null());
	json_object_set_new(key, "distance_bytes",
	                    pl->has_distance ? json_integer(pl->distance_bytes) : json_null());
	json_object_set_new(key, "extent_bytes", json_integer((json_int_t)c->extent_bytes));
	json_object_set_new(key, "cache_state", json_string(pb_cache_state_name(c->state)));
	json_object_set_new(key, "page_bytes", json_integer(c->page_bytes));
	json_object_set_new(key, "fill_value",
	                    c->fill_value < 0 ? json_null() : json_integer(c->fill_value));
	json_object_set_new(key, "then_read", json_boolean(c->then_read));
	/* Threads: 1, placement null and mem_node "local" are what a file
	 * without these fields means (compare reads them alike). */
	char node[32];
	json_object_set_new(key, "threads", json_integer(nt));
	json_object_set_new(key, "placement",
	                    nt > 1
	                        ? json_string(c->thread_placement ? c->thread_placement : "compact")
	                        : json_null());
	json_object_set_new(
	    key, "mem_node",
	    json_string(pb_mem_node_text(c->mem_node, c->mem_node_index, node, sizeof node)));
	if (c->replay) {
		/* A replay: the distribution, the seed and offsets mode that
		 * drew the batch, and its length are part of the key. */
		const struct pb_mem_replay *rp = c->replay;
		json_object_set_new(key, "distribution", json_string(rp->dist->name));
		json_object_set_new(key, "offsets",
		                    json_string(pb_replay_offsets_name(rp->offsets)));
		json_object_set_new(key, "seed", json_integer((json_int_t)(rp->seed & INT64_MAX)));
		json_object_set_new(key, "batch_calls", json_integer((json_int_t)rp->batch_calls));
	}
	return key;
}

/* A replay's "distribution" object: the distribution, the seed, offsets and batch it drew. */
static json_t *replay_json(const struct pb_mem_replay *rp)
{
	json_t *dj = json_object();
	json_object_set_new(dj, "name", json_string(rp->dist->name));
	json_object_set_new(dj, "path", json_string(rp->dist->path));
	json_object_set_new(dj, "values", json_integer((json_int_t)rp->dist->n_values));
	json_object_set_new(dj, "weight_sum", pb_json_number(rp->dist->weight_sum));
	json_object_set_new(dj, "share_le_128", pb_json_number(rp->dist->share_le_128));
	json_object_set_new(dj, "mean_bytes", pb_json_number(rp->dist->mean_bytes));
	json_object_set_new(dj, "seed", json_integer((json_int_t)(rp->seed & INT64_MAX)));
	json_object_set_new(dj, "offsets", json_string(pb_replay_offsets_name(rp->offsets)));
	json_object_set_new(dj, "offset_window_bytes",
	                    json_integer(rp->offsets == PB_OFFSETS_RANDOM ? PB_REPLAY_WINDOW : 1));
	json_object_set_new(dj, "batch_calls", json_integer((json_int_t)rp->batch_calls));
	json_object_set_new(dj, "batch_bytes", json_integer((json_int_t)rp->batch_bytes));
	json_object_set_new(dj, "batch_share_le_128",
	                    pb_json_number((double)rp->batch_le_128 / (double)rp->batch_calls));
	return dj;
}

/* A case's "median_derived": its median per call in ns and per byte (NULL: no samples). */
static json_t *mem_derived(const struct pb_mem_result *r, const struct pb_mem_case *c, unsigned nt)
{
	if (c->n_samples && c->replay) {
		double med = c->ticks_per_call.median;
		double per = (double)c->replay->batch_bytes / (double)c->replay->batch_calls;
		json_t *dv = json_object();
		json_object_set_new(dv, "ns_per_call", pb_json_number(pb_ticks_to_ns(med)));
		json_object_set_new(dv, "bytes_per_tick",
		                    pb_json_number(med > 0 ? per / med : INFINITY));
		json_object_set_new(dv, "gb_per_s",
		                    pb_json_number(med > 0 ? per / pb_ticks_to_ns(med) : INFINITY));
		return dv;
	} else if (c->n_samples) {
		double med = c->ticks_per_call.median;
		json_t *dv = json_object();
		json_object_set_new(dv, "ns_per_call", pb_json_number(pb_ticks_to_ns(med)));
		json_object_set_new(dv, "ticks_per_page",
		                    pb_json_number(pb_ticks_per_page(med, c->size_bytes)));
		json_object_set_new(dv, "bytes_per_tick",
		                    pb_json_number(pb_bytes_per_tick(med, c->size_bytes)));
		json_object_set_new(dv, "gb_per_s",
		                    pb_json_number(pb_gb_per_s(med, c->size_bytes)));
		if (nt > 1)
			json_object_set_new(dv, "efficiency",
			                    pb_json_number(pb_mem_efficiency(r, c)));
		return dv;
	}
	return NULL;
}

/* A case's read-back (--then-read) into o: its samples and per-call summaries. */
static void mem_read_back(json_t *o, const struct pb_mem_case *c)
{
	json_t *rs = json_array();
	for (size_t j = 0; j < c->n_samples; j++)
		json_array_append_new(rs, pb_json_number(c->read_ticks[j]));
	json_object_set_new(o, "read_samples", rs);
	json_object_set_new(o, "read_per_call", pb_json_summary(&c->read_ticks_per_call));
	if (c->read_loop_ticks_per_call.n > 0) {
		json_object_set_new(o, "read_loop_per_call",
		                    pb_json_summary(&c->read_loop_ticks_per_call));
		json_object_set_new(o, "read_loop_bound", json_boolean(c->read_loop_bound));
	}
}

/* A case's hardware counters per call: "counters". */
static json_t *mem_counters(const struct pb_mem_case *c)
{
	/* Counted around whole batches (read-back included with
	 * --then-read), user space only. */
	double calls = (double)c->counted_calls;
	json_t *hc = json_object();
	json_object_set_new(hc, "calls", json_integer((json_int_t)c->counted_calls));
	json_object_set_new(hc, "cycles_per_call", pb_json_number((double)c->cycles / calls));
	json_object_set_new(hc, "instructions_per_call",
	                    pb_json_number((double)c->instructions / calls));
	json_object_set_new(hc, "cache_misses_per_call",
	                    pb_json_number((double)c->cache_misses / calls));
	json_object_set_new(hc, "multiplexed", json_boolean(c->counters_multiplexed));
	return hc;
}

/* One mem case's object (without the fields pb_results_append_case adds). */
static json_t *mem_case_json(const struct pb_mem_result *r, const struct pb_mem_case *c)
{
	json_t *o = json_object();
	unsigned nt = c->threads > 1 ? c->threads : 1;
	json_t *key = mem_key(c, nt);
	if (c->replay)
		json_object_set_new(o, "distribution", replay_json(c->replay));
	json_object_set_new(o, "key", key);
	/* which code the row ran: compare says when two files differ */
	json_object_set_new(o, "kernel_revision",
	                    json_integer(pb_kernel_revision(c->kernel, NULL)));
	/* a fixed size where the row runs another row's code (an NT
	 * row below a line): that row's name */
	const struct pb_kernel *code =
	    c->replay ? c->kernel : pb_kernel_code_at(c->kernel, (size_t)c->size_bytes);
	if (code != c->kernel)
		json_object_set_new(o, "ran_code_of", json_string(code->name));
	json_object_set_new(o, "prefill_value", json_integer(c->prefill_value));
	json_object_set_new(o, "working_set_bytes", json_integer((json_int_t)c->working_set_bytes));
	pb_json_add_samples(o, c->batch_ticks, c->batch_calls, c->n_samples, &c->ticks_per_call);
	json_t *reps = pb_json_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
	                                  c->replicate_samples, c->n_replicates);
	if (reps)
		json_object_set_new(o, "replicates", reps);
	json_t *dv = mem_derived(r, c, nt);
	if (dv)
		json_object_set_new(o, "median_derived", dv);
	if (nt > 1 && c->thread_cpus)
		json_object_set_new(o, "per_thread", per_thread_json(c, nt));
	if (c->then_read && c->n_samples)
		mem_read_back(o, c);
	if (c->counted_calls)
		json_object_set_new(o, "counters", mem_counters(c));
	return o;
}

int pb_results_add_mem(struct pb_results_doc *d, const struct pb_mem_result *r)
{
	json_t *doc = d->root;
	json_t *cases, *notes;
	if (pb_results_arrays(doc, &cases, &notes) != 0)
		return -1;
	if (r->read_loop)
		json_object_set_new(doc, "read_loop", json_string(r->read_loop));
	if (r->page_op)
		json_object_set_new(doc, "page_op", json_string(r->page_op));
	for (size_t i = 0; i < r->n_cases; i++) {
		const struct pb_mem_case *c = &r->cases[i];
		json_t *o = mem_case_json(r, c);
		pb_results_append_case(cases, o,
		                       c->state == PB_STATE_FAULT_THP ||
		                               (c->state == PB_STATE_FAULT && c->thp_bytes > 0)
		                           ? &c->thp_bytes
		                           : NULL,
		                       c->migrations, c->outliers);
	}
	return pb_results_add_notes(notes, "", r->notes);
}

void pb_results_append_case(json_t *cases, json_t *o, const uint64_t *thp_bytes_seen,
                            json_int_t migrations, size_t outliers)
{
	if (thp_bytes_seen)
		json_object_set_new(o, "thp_bytes_seen", json_integer((json_int_t)*thp_bytes_seen));
	json_object_set_new(o, "migrations", json_integer(migrations));
	json_object_set_new(o, "outliers", json_integer((json_int_t)outliers));
	json_array_append_new(cases, o);
}

int pb_results_add_notes(json_t *notes, const char *prefix, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	if (!copy)
		return pb_fail("out of memory");
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *item;
		if (asprintf(&item, "%s%s", prefix, line) < 0) {
			free(copy);
			return pb_fail("out of memory");
		}
		json_array_append_new(notes, json_string(item));
		free(item);
	}
	free(copy);
	return 0;
}

void pb_results_finish(struct pb_results_doc *d, const struct pb_noise *n, bool interrupted)
{
	json_t *doc = d->root;
	json_t *o = json_object();
	if (n->valid) {
		json_object_set_new(o, "steal_pct", pb_json_number(n->steal_pct));
		if (n->no_other_cpus)
			json_object_set_new(o, "no_other_cpus", json_true());
		else
			json_object_set_new(o, "other_cpus_busy_pct",
			                    pb_json_number(n->other_busy_pct));
	}
	json_object_set_new(o, "voluntary_switches", json_integer(n->voluntary_switches));
	json_object_set_new(o, "involuntary_switches", json_integer(n->involuntary_switches));
	if (n->wall_s > 0)
		json_object_set_new(o, "involuntary_per_s", pb_json_number(n->involuntary_per_s));
	if (n->sched_valid)
		json_object_set_new(o, "run_delay_pct", pb_json_number(n->run_delay_pct));
	if (n->cpu_valid)
		json_object_set_new(o, "measuring_cpu_others_pct",
		                    pb_json_number(n->measuring_cpu_others_pct));
	json_object_set_new(o, "high", json_boolean(n->high));
	if (n->high)
		json_object_set_new(o, "high_cause", json_string(n->high_cause));
	json_object_set_new(doc, "noise", o);
	json_object_set_new(doc, "interrupted", json_boolean(interrupted));
}

static int dir_of(const char *path, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s", path) >= (int)len)
		return pb_fail("path too long: '%s'", path);
	char *d = dirname(buf);
	if (d != buf)
		memmove(buf, d, strlen(d) + 1);
	return 0;
}

/* The file a result for `path` lands in: symbolic links are followed, also
 * to a target that does not exist yet (its target is written, the link
 * stays). Refuses an existing target that is not a regular file: renaming
 * over /dev/null or a FIFO would replace it. */
static int resolve_target(const char *path, char *out, size_t len)
{
	struct stat st;
	if (!*path)
		return pb_fail("empty output path");
	if (snprintf(out, len, "%s", path) >= (int)len)
		return pb_fail("path too long: '%s'", path);
	for (int hops = 0; lstat(out, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		char link[4096];
		ssize_t n = readlink(out, link, sizeof link - 1);
		if (n < 0 || hops == 40)
			return pb_fail("cannot write '%s': cannot follow its symbolic link", path);
		link[n] = '\0';
		if (link[0] == '/') {
			snprintf(out, len, "%s", link);
		} else {
			char dir[4096];
			if (dir_of(out, dir, sizeof dir) != 0 ||
			    snprintf(out, len, "%s/%s", dir, link) >= (int)len)
				return pb_fail("path too long: '%s'", path);
		}
	}
	if (stat(out, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return pb_fail("cannot write '%s': it is a directory", path);
		if (!S_ISREG(st.st_mode))
			return pb_fail("cannot write '%s': not a regular file", path);
	}
	return 0;
}

int pb_results_check_path(const char *path)
{
	char target[4096], dir[4096];
	struct stat st, dst;
	if (resolve_target(path, target, sizeof target) != 0 ||
	    dir_of(target, dir, sizeof dir) != 0)
		return -1;
	if (access(dir, W_OK | X_OK) != 0)
		return pb_fail("cannot write '%s': directory '%s': %s", path, dir, strerror(errno));
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	long name_max = pathconf(dir, _PC_NAME_MAX);
	if (name_max > 0 && (long)strlen(base) > name_max)
		return pb_fail("cannot write '%s': file name longer than %ld bytes", path,
		               name_max);
	/* In a sticky directory (/tmp) only the owner may replace a file. */
	if (stat(target, &st) == 0 && stat(dir, &dst) == 0 && (dst.st_mode & S_ISVTX) &&
	    st.st_uid != geteuid() && dst.st_uid != geteuid() && geteuid() != 0)
		return pb_fail("cannot write '%s': owned by another user in a sticky directory",
		               path);
	return 0;
}

int pb_results_write(const struct pb_results_doc *doc, const char *path)
{
	return pb_results_write_json(doc->root, path);
}

int pb_results_write_json(const json_t *root, const char *path)
{
	char *text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!text)
		return pb_fail("cannot write '%s': %s", path, strerror(ENOMEM));
	size_t len = strlen(text);
	text[len] = '\0';
	char *whole = realloc(text, len + 2);
	if (!whole) {
		free(text);
		return pb_fail("cannot write '%s': %s", path, strerror(ENOMEM));
	}
	whole[len] = '\n';
	whole[len + 1] = '\0';
	int rc = pb_write_file_whole(path, whole, len + 1);
	free(whole);
	return rc;
}

/* Outputs reserved at the start of a run (pb_output_reserve): the
 * temporary file already made in the target's directory, filled and renamed
 * by pb_write_file_whole at the end. */
struct reservation {
	char target[4096], tmp[4200];
	int fd; /* -1: free */
	pid_t owner;
};
static struct reservation reservations[8];

/* At exit, a reservation never filled (an error after the start) goes; only
 * in the process that made it (a forked child must not remove it). */
static void drop_unfilled(void)
{
	for (size_t i = 0; i < sizeof reservations / sizeof reservations[0]; i++) {
		struct reservation *r = &reservations[i];
		if (r->fd >= 0 && r->owner == getpid()) {
			close(r->fd);
			unlink(r->tmp);
			r->fd = -1;
		}
	}
}

int pb_output_reserve(const char *path)
{
	static bool init;
	char target[4096], dir[4096];
	if (!init) {
		for (size_t i = 0; i < sizeof reservations / sizeof reservations[0]; i++)
			reservations[i].fd = -1;
		atexit(drop_unfilled);
		init = true;
	}
	if (pb_results_check_path(path) != 0 || resolve_target(path, target, sizeof target) != 0 ||
	    dir_of(target, dir, sizeof dir) != 0)
		return -1;
	struct reservation *r = NULL;
	for (size_t i = 0; i < sizeof reservations / sizeof reservations[0]; i++)
		if (reservations[i].fd >= 0 && !strcmp(reservations[i].target, target))
			return 0; /* already held */
		else if (reservations[i].fd < 0 && !r)
			r = &reservations[i];
	if (!r)
		return pb_fail("cannot write '%s': too many outputs", path);
	/* The check above passes where creating fails: /proc, a read-only
	 * mount, a full disk's last inode. Creating is the real test. */
	snprintf(r->tmp, sizeof r->tmp, "%s/.primbench-XXXXXX", dir);
	int fd = mkstemp(r->tmp);
	if (fd < 0)
		return pb_fail("cannot write '%s': cannot create a file in directory '%s': %s",
		               path, dir, strerror(errno));
	snprintf(r->target, sizeof r->target, "%s", target);
	r->fd = fd;
	r->owner = getpid();
	return 0;
}

/* The reserved temporary file for target (its fd, its name in tmp), or -1. */
static int take_reservation(const char *target, char *tmp, size_t len)
{
	for (size_t i = 0; i < sizeof reservations / sizeof reservations[0]; i++) {
		struct reservation *r = &reservations[i];
		if (r->fd >= 0 && r->owner == getpid() && !strcmp(r->target, target)) {
			int fd = r->fd;
			r->fd = -1;
			snprintf(tmp, len, "%s", r->tmp);
			if (ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0)
				return fd;
			close(fd);
			unlink(tmp);
			return -1;
		}
	}
	return -1;
}

static int write_all(int fd, const char *text, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : ENOSPC;
		done += (size_t)w;
	}
	return fsync(fd) != 0 ? (errno ? errno : ENOSPC) : 0;
}

/* When the destination failed at the end (a full disk), the text goes to
 * $TMPDIR (or /tmp) as NAME-XXXXXX.EXT so that no run loses what it
 * measured. Returns 0 with the file's name in out. */
static int write_rescue(const char *target, const char *text, size_t len, char *out, size_t out_len)
{
	const char *tmpdir = getenv("TMPDIR");
	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	const char *base = strrchr(target, '/');
	base = base ? base + 1 : target;
	const char *dot = strrchr(base, '.');
	int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
	const char *ext = dot && dot != base ? dot : "";
	if (snprintf(out, out_len, "%s/%.*s-XXXXXX%s", tmpdir, stem, base, ext) >= (int)out_len)
		return -1;
	int fd = mkstemps(out, (int)strlen(ext));
	if (fd < 0)
		return -1;
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	int e = write_all(fd, text, len);
	if (close(fd) != 0 && !e)
		e = EIO;
	if (e)
		unlink(out);
	return e ? -1 : 0;
}

/* pb_fail for a failed write to path: "cannot write 'PATH': REASON", and
 * where the text was saved instead. */
static int fail_rescued(const char *path, const char *target, int e, const char *text, size_t len)
{
	char rescue[4400];
	if (write_rescue(target, text, len, rescue, sizeof rescue) == 0)
		return pb_fail("cannot write '%s': %s; saved it as '%s' instead", path, strerror(e),
		               rescue);
	return pb_fail("cannot write '%s': %s", path, strerror(e));
}

int pb_write_file_whole(const char *path, const char *text, size_t len)
{
	char target[4096], dir[4096], tmp[4200];
	if (resolve_target(path, target, sizeof target) != 0 ||
	    dir_of(target, dir, sizeof dir) != 0)
		return -1;
	int fd = take_reservation(target, tmp, sizeof tmp);
	if (fd < 0) {
		snprintf(tmp, sizeof tmp, "%s/.primbench-XXXXXX", dir);
		fd = mkstemp(tmp);
	}
	if (fd < 0)
		return fail_rescued(path, target, errno, text, len);
	/* mkstemp makes 0600: a new file gets the umask's mode, a replaced
	 * one keeps its own (a hard link to it is not kept: rename). */
	struct stat st;
	if (stat(target, &st) == 0) {
		fchmod(fd, st.st_mode & 07777);
	} else {
		mode_t um = umask(0);
		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	int e = write_all(fd, text, len);
	if (close(fd) != 0 && !e)
		e = errno ? errno : EIO;
	if (!e && rename(tmp, target) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		return fail_rescued(path, target, e, text, len);
	}
	return 0;
}
