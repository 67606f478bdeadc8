/* test_plot.c - pb_plot_write() without gnuplot: the script and data it
 * writes for the fixtures in tests/data/plot (README there says how they
 * were measured): the values against the suite's own median_derived
 * figures, the cache marks with their sources, the break-even arrows,
 * the heat map of a grid, the A/B scatter and its verdict, replays as
 * bars, files with other suites beside mem, the scaling panels of a
 * threaded run, and the input it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "primbench/compare.h"
#include "primbench/error.h"
#include "primbench/kernels.h"
#include "primbench/plot.h"
#include "results/results_json.h"
#include "results/typed.h"

static char dir[] = "/tmp/pb-plot-test-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static void clean(void)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static int teardown(void **state)
{
	(void)state;
	clean();
	rmdir(dir);
	return 0;
}

static char *slurp(const char *name)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t count_dat(void)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".dat") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* The data file of the first plot clause titled `title`. */
static void dat_of(const char *script, const char *title, char *name)
{
	char want[128];
	snprintf(want, sizeof want, "title \"%s\"", title);
	const char *t = strstr(script, want);
	assert_non_null(t);
	const char *q = t;
	while (q > script && strncmp(q, ".dat\"", 5))
		q--;
	assert_true(q - 3 >= script);
	memcpy(name, q - 3, 7);
	name[7] = '\0';
}

static void load(const char *path, struct pb_results_file *f)
{
	if (pb_results_load(path, f) != 0)
		fail_msg("%s", pb_error());
}

/* f loaded again from its document as a test edited it: the reader types
 * a file when it loads it (include/primbench/reader.h). */
static void reload(struct pb_results_file *f)
{
	char *text = json_dumps(pb_results_file_json(f), 0), *path = strdup(f->path);
	assert_non_null(text);
	pb_results_file_free(f);
	if (pb_results_load_text(text, strlen(text), path, f) != 0)
		fail_msg("%s", pb_error());
	free(text);
	free(path);
}

/* mem_sweep.json's policies name x86-64 kernels (avx2, rep_stosb): in a
 * build without them (another ISA, or -DPRIMBENCH_ARCH=none) no policy
 * parses, so there are no switch arrows to check. */
static void need_x86_kernels(void)
{
	if (!pb_kernel_find(PB_OP_MEMSET, "avx2") || !pb_kernel_find(PB_OP_MEMSET, "rep_stosb")) {
		print_message("the fixture's policies name x86-64 kernels, not in this build\n");
		skip();
	}
}

static void test_mem_sweep(void **state)
{
	(void)state;
	need_x86_kernels();
	clean();
	struct pb_results_file f;
	load("plot/mem_sweep.json", &f);
	struct pb_plot_input in = {"sweep", &f};
	struct pb_plot_opts o = {.output = "/tmp/out.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(s);
	assert_non_null(strstr(s, "set terminal svg"));
	assert_non_null(strstr(s, "set output \"/tmp/out.svg\""));
	assert_non_null(strstr(s, "set multiplot layout 1,2"));
	assert_non_null(strstr(s, "set title \"memset, hot (the same buffers every call)\""));
	assert_non_null(strstr(s, "set title \"memset, dram (random buffers, out of cache)\""));
	assert_non_null(strstr(s, "set logscale x 2"));
	/* L1d (48K, sysfs) inside 64..64K: a line and its name on top; L2
	 * and LLC beyond the sizes measured, said in words. */
	assert_non_null(strstr(s, "set arrow from 49152, graph 0 to 49152, graph 1 nohead"));
	assert_non_null(strstr(s, "(\"L1d 48K\\n(sysfs)\" 49152)"));
	assert_non_null(strstr(s, "beyond the sizes measured: L2 2M (sysfs), LLC 32M (fallback)"));
	/* The hot policy "avx2<=318,libc": one arrow at 318. */
	assert_non_null(strstr(s, "set arrow from 318, graph 0 to 318, graph 0.07"));
	assert_non_null(strstr(s, "set label \"avx2\xe2\x86\x92libc\" at 318"));
	assert_null(strstr(s, "NaN"));
	/* 3 kernels x 2 states, one data file each. */
	assert_int_equal(count_dat(), 6);

	/* libc, hot: every size, and each value the suite's own GB/s. */
	char name[8];
	dat_of(s, "libc", name);
	char *d = slurp(name);
	assert_non_null(d);
	size_t rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		double x, y, lo, hi;
		assert_int_equal(sscanf(line, "%lf %lf %lf %lf", &x, &y, &lo, &hi), 4);
		assert_true(lo <= y && y <= hi);
		const json_t *cases = json_object_get(pb_results_file_json(&f), "cases");
		bool found = false;
		for (size_t i = 0; i < json_array_size(cases); i++) {
			const json_t *c = json_array_get(cases, i), *k = json_object_get(c, "key");
			if (strcmp(json_string_value(json_object_get(k, "kernel")), "libc") ||
			    strcmp(json_string_value(json_object_get(k, "cache_state")), "hot") ||
			    json_integer_value(json_object_get(k, "size_bytes")) != (json_int_t)x)
				continue;
			double want = json_number_value(
			    json_object_get(json_object_get(c, "median_derived"), "gb_per_s"));
			/* The data keep 6 significant digits. */
			assert_true(fabs(y - want) <= 1e-5 * want);
			found = true;
		}
		assert_true(found);
		rows++;
	}
	assert_int_equal(rows, 11); /* 64..64K */
	free(d);
	free(s);

	/* Another unit: ns/call on a log y axis, named on the axis. */
	clean();
	o.unit = PB_UNIT_NS_PER_CALL;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set logscale y 10"));
	assert_non_null(strstr(s, "set ylabel \"ns per call (median, 95% CI)\""));
	free(s);
	pb_results_file_free(&f);
}

/* Every file pb_plot_write() wrote, sorted by name, each after a line
 * "==> NAME <==" (what `for f in *; do ...; cat "$f"; done` prints). */
static char *dump_dir(void)
{
	struct dirent **names;
	int nn = scandir(dir, &names, NULL, alphasort);
	assert_true(nn >= 0);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	for (int i = 0; i < nn; i++) {
		if (names[i]->d_name[0] != '.') {
			char *text = slurp(names[i]->d_name);
			assert_non_null(text);
			fprintf(f, "==> %s <==\n%s", names[i]->d_name, text);
			free(text);
		}
		free(names[i]);
	}
	free(names);
	fclose(f);
	return out;
}

/* A 1-thread file draws exactly as before threads were plotted:
 * plot/mem_sweep.golden is the script and data the code before them wrote
 * (its README); a new file whose keys say threads 1, placement null,
 * mem_node "local" draws no scaling panel and no "1 thread" either. */
static void test_one_thread_unchanged(void **state)
{
	(void)state;
	need_x86_kernels();
	clean();
	struct pb_results_file f;
	load("plot/mem_sweep.json", &f);
	struct pb_plot_input in = {"sweep", &f};
	struct pb_plot_opts o = {.output = "/tmp/out.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *got = dump_dir();
	FILE *g = fopen("plot/mem_sweep.golden", "r");
	assert_non_null(g);
	char *want = calloc(1, 1 << 20);
	want[fread(want, 1, (1 << 20) - 1, g)] = '\0';
	fclose(g);
	assert_string_equal(got, want);
	free(got);
	free(want);
	pb_results_file_free(&f);

	/* mem_threads.json without its 2-thread cases */
	json_error_t err;
	json_t *doc = json_load_file("plot/mem_threads.json", 0, &err);
	assert_non_null(doc);
	json_t *cases = json_object_get(doc, "cases");
	for (size_t i = json_array_size(cases); i-- > 0;)
		if (json_integer_value(json_object_get(
		        json_object_get(json_array_get(cases, i), "key"), "threads")) != 1)
			json_array_remove(cases, i);
	assert_int_equal(json_array_size(cases), 8);
	char *text = json_dumps(doc, 0);
	json_decref(doc);
	assert_int_equal(pb_results_load_text(text, strlen(text), "one.json", &f), 0);
	free(text);
	clean();
	in.file = &f;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set multiplot layout 1,2"));
	assert_non_null(strstr(s, "set title \"memset, hot (the same buffers every call)\""));
	assert_null(strstr(s, "1 thread"));
	assert_null(strstr(s, "# scaling"));
	assert_int_equal(count_dat(), 4);
	free(s);
	pb_results_file_free(&f);
}

/* The case of mem_threads.json with this kernel, state, size, threads. */
static const json_t *threads_case(const struct pb_results_file *f, const char *kernel,
                                  const char *st, long long size, long long threads)
{
	const json_t *cases = json_object_get(pb_results_file_json(f), "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		const json_t *c = json_array_get(cases, i), *k = json_object_get(c, "key");
		if (!strcmp(json_string_value(json_object_get(k, "kernel")), kernel) &&
		    !strcmp(json_string_value(json_object_get(k, "cache_state")), st) &&
		    json_integer_value(json_object_get(k, "size_bytes")) == size &&
		    json_integer_value(json_object_get(k, "threads")) == threads)
			return c;
	}
	fail_msg("no case %s %s %lld x%lld", kernel, st, size, threads);
	return NULL;
}

static double derived(const json_t *c, const char *field)
{
	return json_number_value(json_object_get(json_object_get(c, "median_derived"), field));
}

/* A threaded run (mem_threads.json: libc and rep_stosb, 4K and 1M, hot and
 * dram, 1 and 2 threads): the size panels keep to the 1-thread cases and
 * say so; a scaling panel per state and size, threads on x, one series
 * per kernel of the aggregate GB/s (the suite's own figure) with its ideal
 * line N x the 1-thread GB/s, dashed in the kernel's colour. */
static void test_scaling(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/mem_threads.json", &f);
	struct pb_plot_input in = {"threads", &f};
	struct pb_plot_opts o = {.output = "/tmp/t.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	if (pb_plot_write(&in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	assert_null(pb_plot_note(&f));
	char *s = slurp(PB_PLOT_SCRIPT);
	/* 2 size panels, 4 scaling panels; a data file per kernel in each */
	assert_non_null(strstr(s, "set multiplot layout 3,2"));
	assert_int_equal(count_dat(), 2 * 2 + 4 * 2);
	assert_non_null(
	    strstr(s, "set title \"memset, hot (the same buffers every call), 1 thread\""));
	assert_non_null(
	    strstr(s, "set title \"memset, dram (random buffers, out of cache), 1 thread\""));
	const char *states[] = {"hot", "dram"}, *kernels[] = {"libc", "rep_stosb"},
	           *colour[] = {"#1f77b4", "#ff7f0e"};
	const long long sizes[] = {4096, 1 << 20};
	/* The size panels: the 1-thread GB/s at 4K and 1M, nothing else. */
	for (size_t k = 0; k < 2; k++) {
		char name[8];
		dat_of(s, kernels[k], name); /* hot, the first panel */
		char *d = slurp(name);
		double x[2], y[2], lo, hi;
		assert_int_equal(sscanf(strchr(d, '\n') + 1, "%lf %lf %lf %lf\n%lf %lf", &x[0],
		                        &y[0], &lo, &hi, &x[1], &y[1]),
		                 6);
		for (size_t i = 0; i < 2; i++) {
			assert_true(x[i] == (double)sizes[i]);
			double want =
			    derived(threads_case(&f, kernels[k], "hot", sizes[i], 1), "gb_per_s");
			assert_true(fabs(y[i] - want) <= 1e-5 * want);
		}
		free(d);
	}
	size_t panel = 0;
	for (size_t st = 0; st < 2; st++)
		for (size_t z = 0; z < 2; z++) {
			char want[256];
			snprintf(want, sizeof want, "\n# scaling %zu: memset, %s, %s\n", ++panel,
			         states[st], z ? "1M" : "4K");
			const char *p = strstr(s, want);
			if (!p) {
				fail_msg("no '%s' in\n%s", want, s);
				return; /* fail_msg is not marked noreturn */
			}
			const char *end = strstr(p + 1, "\n# ");
			end = end ? end : p + strlen(p);
			snprintf(want, sizeof want,
			         "set title \"memset %s, %s (%s): aggregate GB/s by threads\"",
			         z ? "1M" : "4K", states[st],
			         st ? "random buffers, out of cache"
			            : "the same buffers every call");
			const char *t = strstr(p, want);
			assert_true(t && t < end);
			t = strstr(p, "set xtics norotate (\"1\" 1, \"2\" 2)\n");
			assert_true(t && t < end);
			t = strstr(p, "set xrange [0.75:2.25]\n");
			assert_true(t && t < end);
			t = strstr(p,
			           "set ylabel \"aggregate GB/s, 10^9 bytes/s (median, 95% CI)\"");
			assert_true(t && t < end);
			for (size_t k = 0; k < 2; k++) {
				const json_t *one =
				    threads_case(&f, kernels[k], states[st], sizes[z], 1);
				const json_t *two =
				    threads_case(&f, kernels[k], states[st], sizes[z], 2);
				/* the series and its ideal line: one data file, same colour */
				char title[128];
				snprintf(title, sizeof title,
				         "title \"%s (2 threads: %.0f%% of ideal)\"", kernels[k],
				         100 * derived(two, "efficiency"));
				const char *q = strstr(p, title);
				if (!q || q > end)
					fail_msg("no '%s' in panel %zu", title, panel);
				while (strncmp(q, ".dat\"", 5))
					q--;
				char name[8];
				memcpy(name, q - 3, 7);
				name[7] = '\0';
				char clause[160];
				snprintf(clause, sizeof clause,
				         "\"%s\" using 1:2:3:4 with yerrorlines lw 1.5 lc rgb "
				         "\"%s\" dt 1 "
				         "pt 7",
				         name, colour[k]);
				assert_non_null(strstr(p, clause));
				snprintf(
				    clause, sizeof clause,
				    "\"%s\" using 1:5 with lines lw 1 lc rgb \"%s\" dt 2 notitle",
				    name, colour[k]);
				t = strstr(p, clause);
				assert_true(t && t < end);
				/* rows: threads, value, lo, hi, ideal = N x the 1-thread GB/s */
				char *d = slurp(name);
				assert_string_equal(strtok(d, "\n"), "# threads value lo hi ideal");
				double g1 = derived(one, "gb_per_s"), g2 = derived(two, "gb_per_s");
				for (int n = 1; n <= 2; n++) {
					double x, y, lo, hi, ideal;
					assert_int_equal(sscanf(strtok(NULL, "\n"),
					                        "%lf %lf %lf %lf %lf", &x, &y, &lo,
					                        &hi, &ideal),
					                 5);
					assert_true(x == n);
					assert_true(lo <= y && y <= hi);
					double want_y = n == 1 ? g1 : g2;
					assert_true(fabs(y - want_y) <= 1e-5 * want_y);
					assert_true(fabs(ideal - n * g1) <= 1e-5 * n * g1);
				}
				assert_null(strtok(NULL, "\n"));
				free(d);
			}
		}
	free(s);

	/* Other units: a scaling panel stays a throughput (bytes/tick when
	 * asked for, else GB/s) while the size panels take the unit. */
	clean();
	o.unit = PB_UNIT_NS_PER_CALL;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set ylabel \"ns per call (median, 95% CI)\""));
	assert_non_null(strstr(s, "aggregate GB/s by threads"));
	free(s);
	clean();
	o.unit = PB_UNIT_BYTES_PER_TICK;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "aggregate bytes/tick by threads"));
	assert_non_null(strstr(s, "set ylabel \"aggregate bytes per TSC tick (median, 95% CI)\""));
	free(s);

	/* Placement and memory node not the defaults: said under the title;
	 * the 1-thread cases of that node still join the panel. */
	const json_t *cases = json_object_get(pb_results_file_json(&f), "cases");
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *k = json_object_get(json_array_get(cases, i), "key");
		json_object_set_new(k, "mem_node", json_string("node 1"));
		if (json_integer_value(json_object_get(k, "threads")) == 2)
			json_object_set_new(k, "placement", json_string("scatter"));
	}
	reload(&f);
	clean();
	o.unit = PB_UNIT_GB_S;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(
	    strstr(s, "aggregate GB/s by threads\\nplacement scatter, memory node 1\""));
	assert_int_equal(count_dat(), 12);
	char name[8];
	dat_of(s, "libc (2 threads: 48% of ideal)", name);
	free(s);
	pb_results_file_free(&f);
}

/* A `mem clear_page` run (plot/clear_page.json: its cases are memset 4 KiB
 * cases, the file's page_op says clear_page) titles its panels by that
 * name, and l2 and llc by their working set, half the cache; beside a
 * memset file its panels name both; in a threaded file whose page_op is
 * edited in, the 4 KiB scaling panels say clear_page and the others
 * memset. */
static void test_page_op_titles(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f, g;
	load("plot/clear_page.json", &f);
	struct pb_plot_input in[2] = {{"clear_page", &f}, {"memset", &g}};
	struct pb_plot_opts o = {.output = "cpp.png", .unit = PB_UNIT_GB_S, .title = NULL};
	if (pb_plot_write(in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set title \"clear_page, hot (the same buffers every call)\""));
	assert_non_null(strstr(s, "set title \"clear_page, l2 (a working set of half the L2)\""));
	assert_non_null(strstr(s, "set title \"clear_page, llc (a working set of half the LLC)\""));
	assert_non_null(strstr(s, "set title \"clear_page, fault-thp"));
	assert_null(strstr(s, "memset"));
	assert_null(strstr(s, "the size of"));
	free(s);

	clean();
	load("plot/mem_many.json", &g);
	if (pb_plot_write(in, 2, &o, dir) != 0)
		fail_msg("%s", pb_error());
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(
	    strstr(s, "set title \"clear_page / memset, hot (the same buffers every call)\""));
	assert_non_null(strstr(s, "set title \"clear_page, dram"));
	free(s);
	pb_results_file_free(&f);
	pb_results_file_free(&g);

	clean();
	load("plot/mem_threads.json", &f);
	json_object_set_new(pb_results_file_json(&f), "page_op", json_string("clear_page"));
	reload(&f);
	in[0].file = &f;
	if (pb_plot_write(in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set title \"clear_page / memset, hot ("));
	assert_non_null(strstr(s, "title \"clear_page 4K, hot ("));
	assert_non_null(strstr(s, "title \"memset 1M, hot ("));
	free(s);
	pb_results_file_free(&f);
}

static void test_before_after(void **state)
{
	(void)state;
	clean();
	struct pb_results_file a, b;
	load("plot/mem_sweep.json", &a);
	load("plot/mem_sweep.json", &b);
	struct pb_plot_input in[2] = {{"before", &a}, {"after \"x\"", &b}};
	struct pb_plot_opts o = {.output = "out.png", .unit = PB_UNIT_GB_S, .title = "my \\ title"};
	assert_int_equal(pb_plot_write(in, 2, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set terminal pngcairo"));
	/* Strings are escaped for gnuplot's double quotes. */
	assert_non_null(strstr(s, "title \"my \\\\ title\""));
	assert_non_null(strstr(s, "title \"libc  after \\\"x\\\"\""));
	/* A file's series share its dash type: 1 for the first, 2 for the
	 * second, and filled points for the first, open ones after; a kernel
	 * its colour and point shape. */
	assert_non_null(strstr(s, "lc rgb \"#1f77b4\" dt 1 pt 7 ps 0.5 title \"libc  before\""));
	assert_non_null(strstr(s, "lc rgb \"#1f77b4\" dt 2 pt 6 ps 0.5 title \"libc  after"));
	assert_int_equal(count_dat(), 12);
	free(s);
	pb_results_file_free(&a);
	pb_results_file_free(&b);
}

static void test_grid(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/mem_grid.json", &f);
	struct pb_plot_input in = {"grid", &f};
	struct pb_plot_opts o = {.output = "g.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(
	    strstr(s, "set title \"memcpy 4K, hot: median GB/s by destination offset\""));
	assert_non_null(strstr(s, "with image"));
	assert_non_null(strstr(s, "set ytics (\"libc\" 0, \"avx2\" 1)"));
	assert_int_equal(count_dat(), 1);
	char *d = slurp("000.dat");
	size_t rows = 0;
	for (char *p = d; (p = strchr(p, '\n')); p++)
		rows += p[1] >= '0' && p[1] <= '9';
	assert_int_equal(rows, 2 * 8); /* 2 kernels x offsets 0..7 */
	free(d);
	free(s);
	pb_results_file_free(&f);
}

/* Fresh-eyes review: 15 memset kernels used to share colours and point
 * types after the tenth (bytes and avx512 both orange circles). Each
 * kernel's series has its own colour and shape pair, in each file. */
static void test_many_kernels_distinct(void **state)
{
	(void)state;
	clean();
	struct pb_results_file a, b;
	load("plot/mem_many.json", &a);
	load("plot/mem_many.json", &b);
	struct pb_plot_input in[2] = {{"x", &a}, {"y", &b}};
	struct pb_plot_opts o = {.output = "m.png", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(in, 2, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	char seen[64][64];
	size_t nseen = 0;
	for (const char *p = s; (p = strstr(p, "with yerrorlines lw 1.5 lc rgb \"")) != NULL; p++) {
		char colour[16], title[64];
		int dt, pt;
		if (sscanf(p,
		           "with yerrorlines lw 1.5 lc rgb \"%15[^\"]\" dt %d pt %d ps 0.5 "
		           "title \"%63[^\"]\"",
		           colour, &dt, &pt, title) != 4)
			fail_msg("unexpected series: %.120s", p);
		assert_true(nseen < 64);
		snprintf(seen[nseen], sizeof seen[nseen], "%s %d %d", colour, dt, pt);
		for (size_t i = 0; i < nseen; i++)
			if (!strcmp(seen[i], seen[nseen]))
				fail_msg("'%s' shares colour, dash and point (%s)", title, seen[i]);
		nseen++;
	}
	assert_int_equal(nseen, 30); /* 15 kernels x 2 files, one state */
	/* within one file, colour and point alone tell the kernels apart */
	for (size_t i = 0; i < nseen; i++)
		for (size_t j = 0; j < i; j++) {
			char ci[16], cj[16];
			int di, dj, pi, pj;
			sscanf(seen[i], "%15s %d %d", ci, &di, &pi);
			sscanf(seen[j], "%15s %d %d", cj, &dj, &pj);
			assert_false(di == dj && pi == pj && !strcmp(ci, cj));
			if (di == dj && !strcmp(ci, cj))
				fail_msg("two kernels of one file share colour %s", ci);
		}
	free(s);
	pb_results_file_free(&a);
	pb_results_file_free(&b);
}

/* Fresh-eyes review: 14 kernel names under a replay's bars overlapped
 * ("bytesgpr_unrolled"); they are slanted, and every bar has its own
 * colour. */
static void test_replay_many_kernels(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/replay_many.json", &f);
	struct pb_plot_input in = {"r", &f};
	struct pb_plot_opts o = {.output = "r.png", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set xtics rotate by 45 right"));
	assert_non_null(strstr(s, "\"bytes\" 1, \"gpr_unrolled\" 2"));
	free(s);
	char *d = slurp("000.dat");
	long colours[32];
	size_t rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		double x, y, lo, hi;
		assert_true(rows < 32);
		assert_int_equal(
		    sscanf(line, "%lf %lf %lf %lf %ld", &x, &y, &lo, &hi, &colours[rows]), 5);
		for (size_t i = 0; i < rows; i++)
			if (colours[i] == colours[rows])
				fail_msg("bars %zu and %zu share colour %06lx", i, rows,
				         colours[i]);
		rows++;
	}
	assert_int_equal(rows, 14);
	free(d);
	pb_results_file_free(&f);
}

/* Fresh-eyes review: with -n 3 there is no interval and so no verdict;
 * the title says why instead of saying nothing. */
static void test_cmd_too_few_runs(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/cmd_ab.json", &f);
	json_t *ratio = json_object_get(json_object_get(pb_results_file_json(&f), "ab"), "ratio");
	assert_non_null(ratio);
	json_object_set_new(ratio, "ci_lo", json_null());
	json_object_set_new(ratio, "ci_hi", json_null());
	json_object_set_new(json_object_get(pb_results_file_json(&f), "ab"), "order",
	                    json_string("ABBAAB"));
	reload(&f);
	struct pb_plot_input in = {"ab", &f};
	struct pb_plot_opts o = {.output = "c.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	if (!strstr(s, "; no 95% CI, no verdict: too few runs (3 and 3)"))
		fail_msg("no 'too few runs' in the title:\n%s", s);
	free(s);
	pb_results_file_free(&f);
}

static void test_cmd(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/cmd_ab.json", &f);
	struct pb_plot_input in = {"ab", &f};
	struct pb_plot_opts o = {.output = "c.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "A: sleep 0.01\\nB: sleep 0.02\\nB/A (real): "));
	/* the verdict in words beside its interval (README) */
	assert_non_null(strstr(s, "95% CI ["));
	/* the fixture (an older file) has no ab.verdict: pb_verdict on its
	 * ratio, 1.904 [1.895, 1.927] */
	assert_non_null(strstr(s, "]: B is slower"));
	assert_non_null(strstr(s, "set xtics (\"A\" 1, \"B\" 2)"));
	assert_non_null(strstr(s, "real (wall-clock) time per run, ms"));
	/* Per side: its runs and its median bar. */
	assert_int_equal(count_dat(), 4);
	char *d = slurp("000.dat");
	size_t rows = 0;
	double first_x = 0, x, y;
	char *save = NULL;
	for (char *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%lf %lf", &x, &y), 2);
		/* In run order, left to right; a 10 ms sleep takes >= 10 ms. */
		if (rows == 0)
			first_x = x;
		else
			assert_true(x > first_x);
		assert_true(y >= 10.0);
		rows++;
	}
	assert_int_equal(rows, 6);
	free(d);
	free(s);
	pb_results_file_free(&f);
}

/* A cmd key for the label tests: argv words (space-separated), env
 * entries ('|'-separated, NULL: none), cwd (NULL: null), side. */
static json_t *cmd_key(const char *argv, const char *env, const char *cwd, const char *side)
{
	json_t *k = json_pack("{s:s, s:[], s:b, s:o, s:[], s:s}", "suite", "cmd", "argv", "shell",
	                      0, "cwd", cwd ? json_string(cwd) : json_null(), "env", "side", side);
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", argv);
	char *save = NULL;
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
		json_array_append_new(json_object_get(k, "argv"), json_string(w));
	if (env) {
		snprintf(buf, sizeof buf, "%s", env);
		for (char *e = strtok_r(buf, "|", &save); e; e = strtok_r(NULL, "|", &save))
			json_array_append_new(json_object_get(k, "env"), json_string(e));
	}
	return k;
}

/* pb_plot_cmd_labels of two JSON keys, typed as the reader types them. */
static int cmd_labels(const json_t *a, const json_t *b, size_t max, char *l[2])
{
	struct pb_key ka, kb;
	pb_key_from_json(&ka, a);
	pb_key_from_json(&kb, b);
	int rc = pb_plot_cmd_labels(&ka, &kb, max, l);
	pb_key_clear(&ka);
	pb_key_clear(&kb);
	return rc;
}

/* pb_plot_cmd_labels of two keys into l; both at most max bytes unless
 * fits is false, and never the same. */
static void labels_of(json_t *a, json_t *b, size_t max, bool fits, char *l[2])
{
	assert_int_equal(cmd_labels(a, b, max, l), 0);
	if (fits) {
		assert_true(strlen(l[0]) <= max);
		assert_true(strlen(l[1]) <= max);
	}
	if (!strcmp(l[0], l[1]))
		fail_msg("one label for two sides: '%s'", l[0]);
	json_decref(a);
	json_decref(b);
}

static void free_labels(char *l[2])
{
	free(l[0]);
	free(l[1]);
}

/* Issue 33, item 5: a cmd A/B whose sides run the same command was
 * titled "A: make / B: make"; each side now says what sets it apart. */
static void test_cmd_labels(void **state)
{
	(void)state;
	char *l[2];
	/* --vs-env: B's entry (A has none of its own). */
	labels_of(
	    cmd_key("make -j2", NULL, NULL, "A"),
	    cmd_key("make -j2", "GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1", NULL, "B"),
	    80, true, l);
	assert_string_equal(l[0], "make -j2");
	assert_string_equal(l[1], "make -j2 (GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1)");
	free_labels(l);
	/* Each side with an env of its own; the shared entries left out. */
	labels_of(cmd_key("make", "CC=gcc|GLIBC_TUNABLES=glibc.malloc.perturb=1", NULL, "A"),
	          cmd_key("make", "CC=gcc|GLIBC_TUNABLES=glibc.malloc.perturb=2", NULL, "B"), 80,
	          true, l);
	assert_string_equal(l[0], "make (GLIBC_TUNABLES=glibc.malloc.perturb=1)");
	assert_string_equal(l[1], "make (GLIBC_TUNABLES=glibc.malloc.perturb=2)");
	free_labels(l);
	/* The preload library's policies (--memset libc --vs-memset avx2_nt). */
	labels_of(cmd_key("gzip -9 -c big", "LD_PRELOAD=libprimswitch.so|PRIMBENCH_MEMSET=libc",
	                  NULL, "A"),
	          cmd_key("gzip -9 -c big", "LD_PRELOAD=libprimswitch.so|PRIMBENCH_MEMSET=avx2_nt",
	                  NULL, "B"),
	          80, true, l);
	assert_string_equal(l[0], "gzip -9 -c big (PRIMBENCH_MEMSET=libc)");
	assert_string_equal(l[1], "gzip -9 -c big (PRIMBENCH_MEMSET=avx2_nt)");
	free_labels(l);
	/* Only B loads the library (--vs-memset alone). */
	labels_of(cmd_key("true", NULL, NULL, "A"),
	          cmd_key("true", "LD_PRELOAD=libprimswitch.so|PRIMBENCH_MEMSET=avx2", NULL, "B"),
	          80, true, l);
	assert_string_equal(l[1], "true (LD_PRELOAD=libprimswitch.so PRIMBENCH_MEMSET=avx2)");
	free_labels(l);
	/* Working directories. */
	labels_of(cmd_key("make", NULL, "/src/a", "A"), cmd_key("make", NULL, "/src/b", "B"), 80,
	          true, l);
	assert_string_equal(l[0], "make (in /src/a)");
	assert_string_equal(l[1], "make (in /src/b)");
	free_labels(l);
	/* Short commands that differ: whole. */
	labels_of(cmd_key("sleep 0.01", NULL, NULL, "A"), cmd_key("sleep 0.02", NULL, NULL, "B"),
	          80, true, l);
	assert_string_equal(l[0], "sleep 0.01");
	assert_string_equal(l[1], "sleep 0.02");
	free_labels(l);
	/* Long commands that differ in one word: that word kept, the common
	 * prefix and suffix cut. */
	const char *pre = "cc -std=c11 -Wall -Wextra -I/usr/local/include/somewhere/long -DNDEBUG",
	           *post = "-c /home/user/projects/primbench/src/report/plot.c -o plot.o";
	char ca[400], cb[400];
	snprintf(ca, sizeof ca, "%s -O2 %s", pre, post);
	snprintf(cb, sizeof cb, "%s -O3 %s", pre, post);
	labels_of(cmd_key(ca, NULL, NULL, "A"), cmd_key(cb, NULL, NULL, "B"), 80, true, l);
	assert_non_null(strstr(l[0], "-O2"));
	assert_non_null(strstr(l[1], "-O3"));
	assert_non_null(strstr(l[0], "..."));
	assert_int_equal(strncmp(l[0], "cc ", 3), 0);
	free_labels(l);
	/* A long env value that differs at its end: the end kept. */
	char ea[300], eb[300];
	snprintf(ea, sizeof ea,
	         "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512BW:glibc.malloc.arena_max=1:"
	         "glibc.cpu.x86_rep_stosb_threshold=%s",
	         "1");
	snprintf(eb, sizeof eb, "%.*s%s", (int)strlen(ea) - 1, ea, "2048");
	labels_of(cmd_key("make -j2 all", ea, NULL, "A"), cmd_key("make -j2 all", eb, NULL, "B"),
	          80, true, l);
	assert_non_null(strstr(l[0], "threshold=1)"));
	assert_non_null(strstr(l[1], "threshold=2048)"));
	assert_int_equal(strncmp(l[0], "make -j2 all (", 14), 0);
	free_labels(l);
	/* An A/A run (the same command and environment). */
	labels_of(cmd_key("make", "X=1", NULL, "A"), cmd_key("make", "X=1", NULL, "B"), 80, true,
	          l);
	assert_string_equal(l[0], "make");
	assert_string_equal(l[1], "make (the same as A)");
	free_labels(l);
	/* The same entries in another order (the last of a name wins): the
	 * env whole. */
	labels_of(cmd_key("make", "X=1|X=2", NULL, "A"), cmd_key("make", "X=2|X=1", NULL, "B"), 80,
	          true, l);
	assert_string_equal(l[0], "make (env=[\"X=1\",\"X=2\"])");
	assert_string_equal(l[1], "make (env=[\"X=2\",\"X=1\"])");
	free_labels(l);
	/* Not a cmd key; too little room. */
	json_t *a = cmd_key("make", NULL, NULL, "A"), *m = json_pack("{s:s}", "suite", "mem");
	assert_int_equal(cmd_labels(a, m, 80, l), -1);
	assert_null(l[0]);
	assert_string_equal(pb_error(),
	                    "side B: not a cmd case's key (suite \"cmd\" with an argv)");
	assert_int_equal(cmd_labels(a, a, 39, l), -1);
	json_decref(a);
	json_decref(m);
}

/* Issue 33, item 5: both sides of the fixture run "make -s"; the title
 * said "A: make -s\nB: make -s". */
static void test_cmd_env_title(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/cmd_env_user.json", &f);
	struct pb_plot_input in = {"ab", &f};
	struct pb_plot_opts o = {.output = "c.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	const char *want =
	    "\\nA: make -s\\nB: make -s (GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1)\\n";
	if (!strstr(s, want))
		fail_msg("no '%s' in:\n%s", want, s);
	free(s);
	pb_results_file_free(&f);
}

/* Two A/B files in one plot: each file's sides and verdict in the title,
 * named by its label (not only the first file's). */
static void test_cmd_two_files_title(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/cmd_env_user.json", &f);
	struct pb_plot_input in[2] = {{"one", &f}, {"two", &f}};
	struct pb_plot_opts o = {.output = "c.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(in, 2, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	static const char *const want[] = {
	    "\\none: A: make -s\\none: B: make -s (GLIBC_TUNABLES=",
	    "\\ntwo: A: make -s\\ntwo: B: make -s (GLIBC_TUNABLES=",
	    "\\none: B/A (user): ",
	    "\\ntwo: B/A (user): ",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(s, want[i]))
			fail_msg("no '%s' in:\n%s", want[i], s);
	free(s);
	pb_results_file_free(&f);
}

/* The counted runs' `field` (ns) of case i of f, in ms, in run order. */
static size_t runs_ms(const struct pb_results_file *f, size_t i, const char *field, double *out)
{
	const json_t *runs = json_object_get(
	    json_array_get(json_object_get(pb_results_file_json(f), "cases"), i), "runs");
	size_t n = 0;
	for (size_t j = 0; j < json_array_size(runs); j++) {
		const json_t *r = json_array_get(runs, j);
		if (json_is_true(json_object_get(r, "warmup")))
			continue;
		out[n] = 0;
		for (const char *f1 = field; *f1; f1 += strlen(f1) + 1)
			out[n] += json_number_value(json_object_get(r, f1)) / 1e6;
		n++;
	}
	return n;
}

/* The y values of a data file. */
static size_t dat_y(const char *name, double *y, size_t max)
{
	char *d = slurp(name);
	assert_non_null(d);
	size_t n = 0;
	char *save = NULL;
	for (char *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double x;
		if (line[0] == '#')
			continue;
		assert_true(n < max);
		assert_int_equal(sscanf(line, "%lf %lf", &x, &y[n]), 2);
		n++;
	}
	free(d);
	return n;
}

/* Issue 33, item 5: the y axis was real time while the title's ratio was
 * on cmd's --metric. The fixture (tests/data/plot/README): both sides run
 * make, B with GLIBC_TUNABLES, the verdict on user time. */
static void test_cmd_metric_user(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/cmd_env_user.json", &f);
	struct pb_plot_input in = {"ab", &f};
	struct pb_plot_opts o = {.output = "c.png", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	/* The sides by what differs, the ratio on user time... */
	const char *want = "\\nA: make -s\\nB: make -s "
	                   "(GLIBC_TUNABLES=glibc.cpu.x86_rep_stosb_threshold=1)\\n"
	                   "B/A (user): 1.001, 95% CI [0.963, 1.048]: cannot tell\"";
	if (!strstr(s, want))
		fail_msg("no '%s' in:\n%s", want, s);
	/* ...and so is the axis. */
	assert_non_null(strstr(s, "set ylabel \"user (CPU) time per run, ms\""));
	assert_null(strstr(s, "real (wall-clock)"));
	double y[16], want_ms[16];
	for (size_t side = 0; side < 2; side++) {
		char runs[8], med[8];
		snprintf(runs, sizeof runs, "%03zu.dat", 2 * side);
		snprintf(med, sizeof med, "%03zu.dat", 2 * side + 1);
		size_t n = dat_y(runs, y, 16);
		assert_int_equal(n, 6);
		assert_int_equal(runs_ms(&f, side, "user_ns\0", want_ms), 6);
		for (size_t j = 0; j < n; j++)
			assert_true(fabs(y[j] - want_ms[j]) <= 1e-5 * want_ms[j]);
		/* The bar is the median cmd compared: ab.median_a, median_b. */
		assert_int_equal(dat_y(med, y, 16), 2);
		double m = json_number_value(
		    json_object_get(json_object_get(pb_results_file_json(&f), "ab"),
		                    side ? "median_b" : "median_a"));
		assert_true(fabs(y[0] - m / 1e6) <= 1e-5 * y[0]);
	}
	free(s);

	/* user+sys: the two summed, and said so. */
	clean();
	json_object_set_new(json_object_get(pb_results_file_json(&f), "ab"), "metric",
	                    json_string("user+sys"));
	reload(&f);
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set ylabel \"user+sys (CPU) time per run, ms\""));
	assert_non_null(strstr(s, "B/A (user+sys): "));
	assert_int_equal(dat_y("002.dat", y, 16), 6);
	assert_int_equal(runs_ms(&f, 1, "user_ns\0sys_ns\0", want_ms), 6);
	for (size_t j = 0; j < 6; j++)
		assert_true(fabs(y[j] - want_ms[j]) <= 1e-5 * want_ms[j]);
	free(s);

	/* A metric plot cannot draw. */
	clean();
	json_object_set_new(json_object_get(pb_results_file_json(&f), "ab"), "metric",
	                    json_string("maxrss"));
	reload(&f);
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), -1);
	assert_string_equal(pb_error(), "plot/cmd_env_user.json: ab.metric 'maxrss': plot draws "
	                                "real, user, sys or user+sys");
	pb_results_file_free(&f);
}

/* A/B files on different metrics would share one y axis: refused. */
static void test_cmd_metric_mismatch(void **state)
{
	(void)state;
	clean();
	struct pb_results_file r, u;
	load("plot/cmd_ab.json", &r);
	load("plot/cmd_env_user.json", &u);
	struct pb_plot_input in[2] = {{"real", &r}, {"user", &u}};
	assert_int_equal(pb_plot_check(in, 2), -1);
	assert_string_equal(pb_error(),
	                    "cmd results on different metrics cannot share a plot (real: real, "
	                    "user: user)");
	/* A file without ab (one side) takes the other's metric. */
	json_object_del(pb_results_file_json(&r), "ab");
	reload(&r);
	assert_int_equal(pb_plot_check(in, 2), 0);
	struct pb_plot_opts o = {.output = "c.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(in, 2, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set ylabel \"user (CPU) time per run, ms\""));
	free(s);
	pb_results_file_free(&r);
	pb_results_file_free(&u);
}

/* A break-even policy with suffixed bounds, as tune writes them: the
 * bounds are sizes (1K = 1024), read by the policy parser, not strtod. */
static void test_breakeven_suffix(void **state)
{
	(void)state;
	need_x86_kernels();
	clean();
	struct pb_results_file f;
	load("plot/mem_sweep.json", &f);
	json_t *be = json_array_get(json_object_get(pb_results_file_json(&f), "breakeven"), 0);
	json_object_set_new(be, "policy", json_string("avx2<=1K,rep_stosb<=16K,libc"));
	reload(&f);
	struct pb_plot_input in = {"sweep", &f};
	struct pb_plot_opts o = {.output = "s.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set arrow from 1024, graph 0 to 1024, graph 0.07"));
	assert_non_null(strstr(s, "set label \"avx2\xe2\x86\x92rep_stosb\" at 1024"));
	assert_non_null(strstr(s, "set arrow from 16384, graph 0 to 16384, graph 0.07"));
	assert_non_null(strstr(s, "set label \"rep_stosb\xe2\x86\x92libc\" at 16384"));
	assert_null(strstr(s, "from 1, graph 0"));
	assert_null(strstr(s, "from 16, graph 0"));
	free(s);
	/* Ids and hex work too; a kernel unknown here gives no arrow. */
	clean();
	be = json_array_get(json_object_get(pb_results_file_json(&f), "breakeven"), 0);
	json_object_set_new(be, "policy", json_string("memset/avx2<=0x200,libc"));
	reload(&f);
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set arrow from 512, graph 0 to 512, graph 0.07"));
	free(s);
	clean();
	be = json_array_get(json_object_get(pb_results_file_json(&f), "breakeven"), 0);
	json_object_set_new(be, "policy", json_string("avx3<=1K,libc"));
	reload(&f);
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_null(strstr(s, "graph 0.07"));
	free(s);
	pb_results_file_free(&f);
}

/* Files with mem cases beside other suites (the default run's syscall
 * cases, xsave's pairs) draw their mem cases; the note names the file and
 * what was left out. */
static void test_mixed_suites(void **state)
{
	(void)state;
	const char *paths[] = {"plot/run_default.json", "plot/xsave_sweep.json"};
	const char *notes[] = {"plot/run_default.json: not drawn: 2 syscall cases (plot draws "
	                       "mem, kernel, cmd, latency and map results)",
	                       "plot/xsave_sweep.json: not drawn: 2 xsave cases (plot draws mem, "
	                       "kernel, cmd, latency and map results)"};
	const char *titles[] = {"set title \"memset, dram (random buffers, out of cache)\"",
	                        "set title \"memset, hot (the same buffers every call)\""};
	for (size_t i = 0; i < 2; i++) {
		clean();
		struct pb_results_file f;
		load(paths[i], &f);
		struct pb_plot_input in = {"label", &f};
		assert_int_equal(pb_plot_check(&in, 1), 0);
		struct pb_plot_opts o = {.output = "m.svg", .unit = PB_UNIT_GB_S, .title = NULL};
		if (pb_plot_write(&in, 1, &o, dir) != 0)
			fail_msg("%s: %s", paths[i], pb_error());
		char *s = slurp(PB_PLOT_SCRIPT);
		assert_non_null(strstr(s, titles[i]));
		/* two kernels per panel */
		assert_int_equal(count_dat(), i == 0 ? 4 : 2);
		free(s);
		char *note = pb_plot_note(&f);
		assert_non_null(note);
		assert_string_equal(note, notes[i]);
		free(note);
		pb_results_file_free(&f);
	}
	/* Nothing left out: no note. */
	struct pb_results_file f;
	load("plot/mem_sweep.json", &f);
	assert_null(pb_plot_note(&f));
	pb_results_file_free(&f);
	/* A mem case without its key fields is refused, by path. */
	const char *bad = "{\"schema\": \"primbench-result\", \"schema_version\": 1, "
	                  "\"machine\": {}, \"cases\": [{\"key\": {\"suite\": \"mem\", "
	                  "\"op\": \"memset\"}, \"unit\": \"tsc_ticks\", \"samples\": "
	                  "[[10, 1], [11, 1], [12, 1]]}]}";
	if (pb_results_load_text(bad, strlen(bad), "dir/bad.json", &f) != 0)
		fail_msg("%s", pb_error());
	struct pb_plot_input in = {"bad", &f};
	struct pb_plot_opts o = {.output = "m.svg", .unit = PB_UNIT_GB_S, .title = NULL};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), -1);
	assert_string_equal(pb_error(), "dir/bad.json: cases[0]: a mem key needs op, cache_state, "
	                                "kernel and size_bytes");
	pb_results_file_free(&f);
}

/* A replay (mem --distribution): per state a panel of bars, one per
 * kernel, in ns/call over the batch, with the ratio to libc above. */
static void test_replay(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/replay.json", &f);
	struct pb_plot_input in = {"replay", &f};
	struct pb_plot_opts o = {.output = "r.png", .unit = PB_UNIT_GB_S, .title = NULL};
	if (pb_plot_write(&in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	assert_null(pb_plot_note(&f));
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "set multiplot layout 1,2"));
	assert_non_null(strstr(s, "set title \"memcpy: replay of MemcpyGoogleA, hot (the same "
	                          "buffers every call)\""));
	assert_non_null(strstr(s, "set title \"memcpy: replay of MemcpyGoogleA, dram"));
	assert_non_null(strstr(s, "set ylabel \"ns per call over the batch (median, 95% CI)\""));
	assert_non_null(strstr(s, "set xtics (\"auto\" 0, \"libc\" 1)"));
	assert_non_null(strstr(s, "set xtics norotate")); /* two names fit */
	assert_non_null(strstr(s, "with boxes"));
	assert_non_null(strstr(s, "set label \"x1.00\" at 1,"));
	assert_int_equal(count_dat(), 2);
	/* The hot bars: each the median of the case's samples in ns. */
	char *d = slurp("000.dat");
	assert_non_null(d);
	size_t rows = 0;
	char *save = NULL;
	for (char *line = strtok_r(d, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		double x, y, lo, hi;
		long colour;
		assert_int_equal(sscanf(line, "%lf %lf %lf %lf %ld", &x, &y, &lo, &hi, &colour), 5);
		assert_true(lo <= y && y <= hi);
		const struct pb_results_case *c = &f.cases[rows]; /* auto, then libc */
		struct pb_summary sum;
		assert_int_equal(pb_summarize(c->v, c->n, 0.95, &sum), 0);
		double want = sum.median / f.tsc_hz * 1e9;
		assert_true(fabs(y - want) <= 1e-5 * want);
		assert_true(fabs(x - (double)rows) < 1e-9);
		rows++;
	}
	assert_int_equal(rows, 2);
	free(d);
	free(s);
	/* Two files: bars side by side, the legend names them. */
	clean();
	struct pb_plot_input two[2] = {{"before", &f}, {"after", &f}};
	assert_int_equal(pb_plot_write(two, 2, &o, dir), 0);
	s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "title \"before\""));
	assert_non_null(strstr(s, "title \"after\""));
	assert_int_equal(count_dat(), 4);
	free(s);
	pb_results_file_free(&f);
}

static void test_refused(void **state)
{
	(void)state;
	clean();
	struct pb_results_file m, c, sys;
	load("plot/mem_sweep.json", &m);
	load("plot/cmd_ab.json", &c);
	load("compare/sys_a.json", &sys);
	struct pb_plot_opts o = {.output = "x.pdf", .unit = PB_UNIT_GB_S, .title = NULL};
	struct pb_plot_input in[2] = {{"m", &m}, {"c", &c}};
	assert_int_equal(pb_plot_write(in, 1, &o, dir), -1);
	assert_string_equal(pb_error(), "output 'x.pdf' must end in .svg or .png");
	o.output = "x.svg";
	assert_int_equal(pb_plot_write(in, 2, &o, dir), -1);
	assert_string_equal(pb_error(), "mem and cmd results cannot share a plot (m, c)");
	struct pb_plot_input s = {"s", &sys};
	assert_int_equal(pb_plot_check(&s, 1), -1);
	assert_string_equal(pb_error(), "s: no mem or cmd cases to plot (suite 'syscall')");
	assert_int_equal(pb_plot_check(in, 0), -1);
	assert_int_equal(count_dat(), 0);
	pb_results_file_free(&m);
	pb_results_file_free(&c);
	pb_results_file_free(&sys);
}

/* How many times needle occurs in s. */
static size_t count_of(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* pb_plot_panels lists what pb_plot_write draws; .panel = k draws the
 * k-th alone, titled by its own title (no multiplot title); past the
 * last is refused. */
static void test_panels(void **state)
{
	(void)state;
	struct pb_results_file f;
	load("plot/mem_threads.json", &f);
	struct pb_plot_input in = {"threads", &f};
	struct pb_plot_panel *p;
	size_t np;
	if (pb_plot_panels(&in, 1, PB_UNIT_GB_S, &p, &np) != 0)
		fail_msg("%s", pb_error());
	/* 2 size panels and 4 scaling panels, as test_scaling draws them */
	assert_int_equal(np, 6);
	assert_string_equal(p[0].title, "memset, hot (the same buffers every call), 1 thread");
	assert_string_equal(p[2].title, "memset 4K, hot (the same buffers every call): "
	                                "aggregate GB/s by threads");
	for (size_t k = 0; k < np; k++) {
		clean();
		assert_non_null(strstr(p[k].alt, "libc"));
		assert_non_null(strstr(p[k].alt, "rep_stosb"));
		struct pb_plot_opts o = {.output = "k.svg", .unit = PB_UNIT_GB_S, .panel = k + 1};
		if (pb_plot_write(&in, 1, &o, dir) != 0)
			fail_msg("%s", pb_error());
		char *s = slurp(PB_PLOT_SCRIPT);
		assert_non_null(strstr(s, "set multiplot layout 1,1\n"));
		assert_int_equal(count_of(s, "\n# panel ") + count_of(s, "\n# scaling "), 1);
		char want[300];
		snprintf(want, sizeof want, "set title \"%s\"", p[k].title);
		assert_non_null(strstr(s, want));
		/* one panel's data files: one per kernel */
		assert_int_equal(count_dat(), 2);
		free(s);
	}
	struct pb_plot_opts o = {.output = "k.svg", .unit = PB_UNIT_GB_S, .panel = np + 1};
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), -1);
	assert_string_equal(pb_error(), "panel 7 of 6");
	pb_plot_panels_free(p, np);
	pb_results_file_free(&f);

	/* a cmd A/B: one panel; a latency file with its loaded panel */
	load("plot/cmd_ab.json", &f);
	in = (struct pb_plot_input){"ab", &f};
	assert_int_equal(pb_plot_panels(&in, 1, PB_UNIT_GB_S, &p, &np), 0);
	assert_int_equal(np, 1);
	assert_non_null(strstr(p[0].alt, "side A and side B"));
	pb_plot_panels_free(p, np);
	o.panel = 2;
	assert_int_equal(pb_plot_write(&in, 1, &o, dir), -1);
	assert_string_equal(pb_error(), "panel 2 of 1");
	pb_results_file_free(&f);

	load("latency/loaded.json", &f);
	in = (struct pb_plot_input){"loaded", &f};
	assert_int_equal(pb_plot_panels(&in, 1, PB_UNIT_GB_S, &p, &np), 0);
	assert_true(np >= 1);
	assert_non_null(strstr(p[np - 1].title, "loaded latency"));
	clean();
	o.panel = np;
	if (pb_plot_write(&in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	char *s = slurp(PB_PLOT_SCRIPT);
	assert_non_null(strstr(s, "# panel: loaded latency"));
	assert_int_equal(count_of(s, "# panel: the latency curve"), 0);
	free(s);
	pb_plot_panels_free(p, np);
	pb_results_file_free(&f);

	/* what cannot be drawn is refused as pb_plot_write refuses it */
	load("format/syscall.json", &f);
	in = (struct pb_plot_input){"sys", &f};
	assert_int_equal(pb_plot_panels(&in, 1, PB_UNIT_GB_S, &p, &np), -1);
	assert_null(p);
	assert_int_equal(np, 0);
	pb_results_file_free(&f);
}

/* .bands: each size-panel line over a shaded band of its CI, in place of
 * error bars; the band from the same data file's lo and hi columns. */
static void test_bands(void **state)
{
	(void)state;
	clean();
	struct pb_results_file f;
	load("plot/mem_sweep.json", &f);
	struct pb_plot_input in = {"sweep", &f};
	struct pb_plot_opts o = {.output = "b.svg", .unit = PB_UNIT_GB_S, .bands = true};
	if (pb_plot_write(&in, 1, &o, dir) != 0)
		fail_msg("%s", pb_error());
	char *s = slurp(PB_PLOT_SCRIPT);
	size_t lines = count_of(s, " using 1:2 with linespoints lw 1.5 ");
	assert_true(lines > 0);
	assert_int_equal(count_of(s, " using 1:3:4 with filledcurves fc rgb "), lines);
	assert_int_equal(count_of(s, "with yerrorlines"), 0);
	assert_int_equal(lines, count_dat());
	free(s);
	pb_results_file_free(&f);
}

int main(void)
{
	/* into tests/data, found from this file's path (CMake compiles with
	 * absolute source paths) */
	char src[PATH_MAX], data[PATH_MAX + 16];
	snprintf(src, sizeof src, "%s", __FILE__);
	snprintf(data, sizeof data, "%s/data", dirname(src));
	if (chdir(data) != 0) {
		perror(data);
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mem_sweep),
	    cmocka_unit_test(test_panels),
	    cmocka_unit_test(test_bands),
	    cmocka_unit_test(test_before_after),
	    cmocka_unit_test(test_page_op_titles),
	    cmocka_unit_test(test_grid),
	    cmocka_unit_test(test_cmd),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_breakeven_suffix),
	    cmocka_unit_test(test_mixed_suites),
	    cmocka_unit_test(test_replay),
	    cmocka_unit_test(test_cmd_too_few_runs),
	    cmocka_unit_test(test_many_kernels_distinct),
	    cmocka_unit_test(test_replay_many_kernels),
	    cmocka_unit_test(test_one_thread_unchanged),
	    cmocka_unit_test(test_scaling),
	    cmocka_unit_test(test_cmd_labels),
	    cmocka_unit_test(test_cmd_env_title),
	    cmocka_unit_test(test_cmd_two_files_title),
	    cmocka_unit_test(test_cmd_metric_user),
	    cmocka_unit_test(test_cmd_metric_mismatch),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
