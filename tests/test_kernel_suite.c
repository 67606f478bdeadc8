/* test_kernel_suite.c - the kernel suite (include/primbench/kernel_suite.h)
 * driven through a fake device in this process, never the module: the
 * open errors (absent, no permission, not the device, another ABI), the
 * variant list, the checks, a whole run (every case, interleaved, the
 * module's overhead subtracted exactly), a signal's EINTR keeping what was
 * measured, ENOMEM skipping the 2 MiB cases, EIO and an unavailable
 * variant as errors, and the result file read back. The fake's ticks are
 * arithmetic, so the medians are known exactly; nothing here is a
 * measurement.
 *
 * `test_kernel_suite --write-fixture PATH` writes the fake's run as a
 * result file (tests/data/format/kernel.json is one, its notes saying
 * it is synthetic). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "primbench/cpu.h"
#include "primbench/error.h"
#include "primbench/file_units.h"
#include "primbench/kernel_suite.h"
#include "primbench/kernel_text.h"
#include "primbench/reader.h"
#include "primbench/results.h"
#include "primbench/timer.h"
#include "results/results_json.h"

#define OVERHEAD 30u /* the fake module's empty batch, ticks */
#define LOG_MAX  100000

/* The fake device: three variants (the second not available), ticks per
 * page = (variant + 1) x 100 x (state + 1) for 4 KiB, x 512 for 2 MiB;
 * a batch's ticks = OVERHEAD + calls x that. */
struct fake {
	struct pb_kmod_info info;
	int open_errno;  /* open fails with it (0: opens) */
	int info_errno;  /* INFO fails with it */
	int check_errno; /* CHECK of check_variant fails with it */
	uint32_t check_variant;
	int64_t bad_offset;
	bool nomem_2m_check; /* CHECK of a 2 MiB page: ENOMEM */
	bool nomem_2m_time;  /* TIME of a 2 MiB page: ENOMEM */
	int time_errno;      /* TIME number time_fail_at fails with it */
	size_t time_fail_at;
	uint32_t fail_done;    /* batches_done of that failure */
	size_t n_time;         /* TIME requests so far */
	uint32_t log[LOG_MAX]; /* each TIME's case: variant << 8 | order << 1 | state */
	bool closed;
	bool jitter;                       /* the fixture's: a few ticks more on some batches */
	volatile sig_atomic_t *raise_stop; /* set by the failing TIME (a signal's flag) */
};

static uint64_t per_page(uint32_t v, uint32_t order, uint32_t state)
{
	return (uint64_t)(v + 1) * 100 * (state + 1) << order;
}

static int f_open(void *ctx, const char *path)
{
	struct fake *f = ctx;
	(void)path;
	if (f->open_errno) {
		errno = f->open_errno;
		return -1;
	}
	return 7;
}

static void f_close(void *ctx, int fd)
{
	struct fake *f = ctx;
	assert_int_equal(fd, 7);
	f->closed = true;
}

static int f_info(void *ctx, int fd, struct pb_kmod_info *out)
{
	struct fake *f = ctx;
	assert_int_equal(fd, 7);
	if (f->info_errno) {
		errno = f->info_errno;
		return -1;
	}
	*out = f->info;
	return 0;
}

static int f_check(void *ctx, int fd, struct pb_kmod_check *io)
{
	struct fake *f = ctx;
	(void)fd;
	io->bad_offset_bytes = -1;
	if (io->variant >= f->info.n_variants ||
	    !(f->info.variants[io->variant].flags & PB_KVF_AVAILABLE)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (f->nomem_2m_check && io->page_order == PB_KMOD_ORDER_2M) {
		errno = ENOMEM;
		return -1;
	}
	if (f->check_errno && io->variant == f->check_variant) {
		io->bad_offset_bytes = f->bad_offset;
		errno = f->check_errno;
		return -1;
	}
	return 0;
}

static int f_time(void *ctx, int fd, struct pb_kmod_time *io)
{
	struct fake *f = ctx;
	(void)fd;
	assert_int_equal(io->batches, 1);
	assert_int_equal(io->reserved, 0);
	assert_true(io->calls >= 1);
	assert_true((uint64_t)io->calls << (12 + io->page_order) <= f->info.max_calls_bytes);
	size_t n = f->n_time++;
	if (n < LOG_MAX)
		f->log[n] = io->variant << 8 | io->page_order << 1 | io->state;
	io->overhead_ticks = OVERHEAD;
	io->batches_done = 0;
	io->cpu = 0;
	io->cpu_changed = 0;
	if (f->nomem_2m_time && io->page_order == PB_KMOD_ORDER_2M) {
		errno = ENOMEM;
		return -1;
	}
	uint64_t *ticks = (uint64_t *)(uintptr_t)io->ticks_ptr;
	if (f->time_errno && n == f->time_fail_at) {
		io->batches_done = f->fail_done;
		if (f->fail_done)
			ticks[0] =
			    OVERHEAD + io->calls * per_page(io->variant, io->page_order, io->state);
		if (f->raise_stop)
			*f->raise_stop = 1;
		errno = f->time_errno;
		return -1;
	}
	ticks[0] = OVERHEAD + io->calls * per_page(io->variant, io->page_order, io->state);
	if (f->jitter)
		ticks[0] += (n * 37 % 11) * io->calls * (io->variant + 1);
	io->batches_done = 1;
	return 0;
}

static const struct pb_kmod_ops fake_ops = {f_open, f_close, f_info, f_check, f_time};

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof *f);
	struct pb_kmod_info *in = &f->info;
	in->abi_version = PB_KMOD_ABI_VERSION;
	in->n_variants = 3;
	in->page_bytes = 4096;
	in->huge_page_bytes = 2u << 20;
	in->tsc_khz = 2000000; /* 2 GHz: 1 tick = 0.5 ns */
	in->max_calls_bytes = 16u << 20;
	in->max_batches = 64;
	in->max_request_ms = 1000;
	snprintf(in->release, sizeof in->release, "6.1.0-fake");
	snprintf(in->module_version, sizeof in->module_version, "fake");
	snprintf(in->variants[0].name, 32, "kernel");
	in->variants[0].flags = PB_KVF_AVAILABLE | PB_KVF_KERNEL;
	snprintf(in->variants[1].name, 32, "avx512");
	in->variants[1].flags = PB_KVF_FPU;
	snprintf(in->variants[1].why, 64, "CPU lacks AVX-512F");
	snprintf(in->variants[2].name, 32, "movnti");
	in->variants[2].flags = PB_KVF_AVAILABLE | PB_KVF_NT;
}

static int cpu_zero(void)
{
	return 0;
}

static const uint32_t all_orders[2] = {PB_KMOD_ORDER_4K, PB_KMOD_ORDER_2M},
                      all_states[2] = {PB_KS_HOT, PB_KS_FLUSHED};

/* Parameters for the fake's available variants, every page size and state. */
static struct pb_kernel_params params(const uint32_t *vars, size_t nv, volatile sig_atomic_t *stop)
{
	return (struct pb_kernel_params){.variants = vars,
	                                 .n_variants = nv,
	                                 .orders = all_orders,
	                                 .n_orders = 2,
	                                 .states = all_states,
	                                 .n_states = 2,
	                                 .budget_s = 0.001,
	                                 .min_samples = 5,
	                                 .max_samples = 9,
	                                 .warmup_samples = 1,
	                                 .seed = 42,
	                                 .stop = stop,
	                                 .target_ticks = 20000,
	                                 .cpu_now = cpu_zero};
}

static int setup(void **state)
{
	(void)state;
	return pb_timer_init();
}

static void open_fake(struct fake *f, struct pb_kmod_dev *dev, struct pb_kernel_result *r)
{
	memset(r, 0, sizeof *r);
	if (pb_kmod_open(&fake_ops, f, "/dev/fake", dev, &r->info) != 0)
		fail_msg("%s", pb_error());
}

static void test_open_errors(void **state)
{
	(void)state;
	struct fake f;
	struct pb_kmod_dev dev;
	struct pb_kmod_info info;
	fake_init(&f);
	int absent[] = {ENOENT, ENODEV, ENXIO};
	for (size_t i = 0; i < 3; i++) {
		f.open_errno = absent[i];
		assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/primbench", &dev, &info), -1);
		assert_non_null(strstr(pb_error(), "/dev/primbench is absent"));
		assert_non_null(strstr(pb_error(), "not loaded"));
		assert_non_null(strstr(pb_error(), "make kmod"));
		assert_non_null(strstr(pb_error(), "sudo insmod kmod/primbench_kmod.ko"));
		assert_non_null(strstr(pb_error(), "docs/kernel.md"));
	}
	f.open_errno = EACCES;
	assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/primbench", &dev, &info), -1);
	assert_non_null(strstr(pb_error(), "run as root"));
	f.open_errno = ENOTTY;
	assert_int_equal(pb_kmod_open(&fake_ops, &f, "/tmp/x", &dev, &info), -1);
	assert_non_null(strstr(pb_error(), "/tmp/x is not primbench's device"));
	/* opens, but INFO is not understood: closed again */
	f.open_errno = 0;
	f.info_errno = ENOTTY;
	assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/null", &dev, &info), -1);
	assert_non_null(strstr(pb_error(), "not primbench's device"));
	assert_true(f.closed);
	assert_int_equal(dev.fd, -1);
	/* another ABI version: both named */
	f.info_errno = 0;
	f.closed = false;
	f.info.abi_version = PB_KMOD_ABI_VERSION + 6;
	assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/primbench", &dev, &info), -1);
	char want[128];
	snprintf(want, sizeof want, "ABI version %u, this primbench speaks version %u",
	         PB_KMOD_ABI_VERSION + 6, PB_KMOD_ABI_VERSION);
	assert_non_null(strstr(pb_error(), want));
	assert_true(f.closed);
	/* a bad INFO */
	f.info.abi_version = PB_KMOD_ABI_VERSION;
	f.info.n_variants = PB_KMOD_MAX_VARIANTS + 1;
	assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/primbench", &dev, &info), -1);
	assert_non_null(strstr(pb_error(), "bad INFO"));
	/* the real device ops on a path that is not there */
	assert_int_equal(
	    pb_kmod_open(pb_kmod_device_ops(), NULL, "/nonexistent/primbench", &dev, &info), -1);
	assert_non_null(strstr(pb_error(), "is absent"));
}

static void test_variant_list(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	uint32_t v[PB_KMOD_MAX_VARIANTS];
	assert_int_equal(pb_kmod_available_variants(&f.info, v), 2);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 2);
	assert_int_equal(pb_kmod_parse_variants(&f.info, "movnti,kernel", v), 2);
	assert_int_equal(v[0], 2);
	assert_int_equal(v[1], 0);
	assert_int_equal(pb_kmod_parse_variants(&f.info, "avx512", v), -1);
	assert_string_equal(pb_error(), "variant 'avx512' is not available: CPU lacks AVX-512F");
	assert_int_equal(pb_kmod_parse_variants(&f.info, "avx3", v), -1);
	assert_string_equal(pb_error(),
	                    "unknown variant 'avx3' (the module has: kernel, avx512, movnti)");
	assert_int_equal(pb_kmod_parse_variants(&f.info, "kernel,kernel", v), -1);
	assert_int_equal(pb_kmod_parse_variants(&f.info, ",", v), -1);
	assert_string_equal(pb_kmod_variant_name(&f.info, 2), "movnti");
	assert_null(pb_kmod_variant_name(&f.info, 3));
	assert_string_equal(pb_kmod_state_name(PB_KS_FLUSHED), "flushed");
}

/* A whole run: every case measured, its per-page median exactly the
 * fake's (the module's overhead subtracted), the contenders interleaved. */
static void test_run(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	uint32_t v[2] = {0, 2};
	struct pb_kernel_params p = params(v, 2, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(r.n_checks, 4);
	for (size_t i = 0; i < r.n_checks; i++)
		assert_true(r.checks[i].ok);
	assert_int_equal(r.n_cases, 8);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
	assert_false(r.interrupted);
	assert_true(r.overhead_ticks == OVERHEAD);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_kernel_case *c = &r.cases[i];
		assert_false(c->skipped);
		assert_true(c->n_samples >= p.min_samples);
		assert_true(c->n_samples <= p.max_samples);
		double want = (double)per_page(c->variant, c->page_order, c->state);
		assert_true(fabs(c->ticks_per_call.median - want) < 1e-9 * want);
		assert_int_equal(c->page_bytes, 4096u << c->page_order);
		for (size_t j = 0; j < c->n_samples; j++)
			assert_true(c->batch_calls[j] >= 1);
	}
	/* 4 KiB hot pages of 100 ticks: the calibration put several in a request */
	assert_true(r.cases[0].batch_calls[0] > 1);
	/* interleaved: after the probe and calibration, no case runs twice in
	 * a row for a whole round's worth of requests */
	size_t changes = 0;
	for (size_t i = 1; i < f.n_time && i < LOG_MAX; i++)
		changes += f.log[i] != f.log[i - 1];
	assert_true(changes > f.n_time / 2);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* Replicates: the samples grouped per replicate, adding up. */
static void test_replicates(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	uint32_t v[1] = {2};
	struct pb_kernel_params p = params(v, 1, NULL);
	p.max_samples = 30;
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 3, &r), 0);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_kernel_case *c = &r.cases[i];
		assert_int_equal(c->n_replicates, 3);
		size_t sum = 0;
		for (size_t k = 0; k < 3; k++)
			sum += c->replicate_samples[k];
		assert_int_equal(sum, c->n_samples);
		assert_int_equal(c->ticks_per_call.replicates, 3);
		double want = (double)per_page(c->variant, c->page_order, c->state);
		assert_true(fabs(c->ticks_per_call.median - want) < 1e-9 * want);
	}
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* A signal mid-run: EINTR (its batch done) ends the run, what was
 * measured kept, the stop flag raised. */
static void test_eintr(void **state)
{
	(void)state;
	for (uint32_t done = 0; done <= 1; done++) {
		struct fake f;
		fake_init(&f);
		struct pb_kmod_dev dev;
		struct pb_kernel_result r;
		open_fake(&f, &dev, &r);
		volatile sig_atomic_t stop = 0;
		uint32_t v[2] = {0, 2};
		struct pb_kernel_params p = params(v, 2, &stop);
		p.min_samples = 20;
		p.max_samples = 40;
		f.time_errno = EINTR;
		f.time_fail_at = 60; /* after the probe (8) and calibration (32) */
		f.fail_done = done;
		assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
		assert_int_equal(pb_kernel_run_replicates(&dev, &p, 3, &r), 0);
		assert_true(r.interrupted);
		assert_int_equal(stop, 1);
		assert_int_equal(f.n_time, 61); /* nothing asked after it */
		size_t n = 0;
		for (size_t i = 0; i < r.n_cases; i++) {
			n += r.cases[i].n_samples;
			assert_true(r.cases[i].n_samples < p.min_samples);
			if (r.cases[i].n_samples) {
				double want = (double)per_page(
				    r.cases[i].variant, r.cases[i].page_order, r.cases[i].state);
				assert_true(fabs(r.cases[i].ticks_per_call.median - want) <
				            1e-9 * want);
			}
		}
		/* 60 - 8 - 32 = 20 requests: 8 warm-up, 12 kept (+1 when done) */
		assert_int_equal(n, 12 + done);
		pb_kernel_result_free(&r);
		pb_kmod_close(&dev);
	}
}

/* The stop flag (SIGINT/TERM's) before the rounds: nothing timed, no error. */
static void test_stop_flag(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	volatile sig_atomic_t stop = 0;
	uint32_t v[1] = {0};
	struct pb_kernel_params p = params(v, 1, &stop);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	stop = 1;
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 2, &r), 0);
	assert_int_equal(f.n_time, 0);
	for (size_t i = 0; i < r.n_cases; i++)
		assert_int_equal(r.cases[i].n_samples, 0);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* No 2 MiB page: those cases skipped with a note, the 4 KiB ones timed;
 * from the check, or (check passed) from the first TIME. */
static void test_enomem(void **state)
{
	(void)state;
	for (int at_time = 0; at_time <= 1; at_time++) {
		struct fake f;
		fake_init(&f);
		f.nomem_2m_check = !at_time;
		f.nomem_2m_time = at_time;
		struct pb_kmod_dev dev;
		struct pb_kernel_result r;
		open_fake(&f, &dev, &r);
		uint32_t v[2] = {0, 2};
		struct pb_kernel_params p = params(v, 2, NULL);
		assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
		assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
		assert_false(r.interrupted);
		for (size_t i = 0; i < r.n_cases; i++) {
			const struct pb_kernel_case *c = &r.cases[i];
			if (c->page_order == PB_KMOD_ORDER_2M) {
				assert_true(c->skipped);
				assert_int_equal(c->n_samples, 0);
				assert_non_null(strstr(c->skip_reason, "no 2 MiB page"));
			} else {
				assert_false(c->skipped);
				assert_true(c->n_samples >= p.min_samples);
			}
		}
		if (!at_time) {
			assert_non_null(
			    strstr(r.notes, "kernel, 2 MiB pages: not checked nor timed"));
			assert_non_null(strstr(r.notes, "movnti, 2 MiB pages"));
		}
		/* the file: 4 cases, the skipped ones as notes */
		struct pb_cache_info caches;
		assert_int_equal(pb_cache_detect(&caches, NULL), 0);
		char *argv[] = {"primbench", "kernel", NULL};
		struct pb_results_doc *rdoc = pb_results_new(2, argv, 0, &caches, -1);
		assert_int_equal(pb_results_add_kernel(rdoc, &r), 0);
		json_t *doc = pb_results_doc_json(rdoc);
		assert_int_equal(json_array_size(json_object_get(doc, "cases")), 4);
		char *notes = json_dumps(json_object_get(doc, "notes"), 0);
		assert_non_null(strstr(notes, "no 2 MiB page"));
		free(notes);
		pb_results_doc_free(rdoc);
		pb_kernel_result_free(&r);
		pb_kmod_close(&dev);
	}
}

/* A failed correctness check: an error naming the variant and the offset,
 * nothing timed; EIO from TIME names the variant too. */
static void test_eio(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	f.check_errno = EIO;
	f.check_variant = 2;
	f.bad_offset = 4032;
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	uint32_t v[2] = {0, 2};
	struct pb_kernel_params p = params(v, 2, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), -1);
	assert_string_equal(pb_error(), "variant 'movnti' failed its correctness check: byte at "
	                                "offset 4032 of a 4 KiB page not zero");
	pb_kernel_result_free(&r);
	/* the guard before the page */
	open_fake(&f, &dev, &r);
	f.bad_offset = -3;
	assert_int_equal(pb_kernel_check(&dev, &p, &r), -1);
	assert_non_null(strstr(pb_error(), "guard byte 3 bytes before a 4 KiB page"));
	pb_kernel_result_free(&r);
	assert_int_equal(f.n_time, 0);
	/* EIO from TIME */
	fake_init(&f);
	f.time_errno = EIO;
	f.time_fail_at = 3;
	open_fake(&f, &dev, &r);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), -1);
	assert_non_null(strstr(pb_error(), "failed its correctness check (TIME"));
	assert_non_null(strstr(pb_error(), "variant 'kernel'"));
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* A variant the module refuses (EOPNOTSUPP): its why in the error. */
static void test_unavailable(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	uint32_t v[1] = {1};
	struct pb_kernel_params p = params(v, 1, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), -1);
	assert_string_equal(pb_error(), "variant 'avx512' is not available: CPU lacks AVX-512F");
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* A run of the fake into a result document, with the note that it is
 * synthetic. */
static struct pb_results_doc *fake_doc(struct pb_kernel_result *r)
{
	struct fake *f = calloc(1, sizeof *f);
	assert_non_null(f);
	fake_init(f);
	f->jitter = true;
	struct pb_kmod_dev dev;
	open_fake(f, &dev, r);
	uint32_t v[2] = {0, 2};
	struct pb_kernel_params p = params(v, 2, NULL);
	p.max_samples = 15;
	assert_int_equal(pb_kernel_check(&dev, &p, r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 3, r), 0);
	snprintf(r->notes, sizeof r->notes,
	         "synthetic: made by tests/test_kernel_suite.c's fake device through the real "
	         "writer; no module ran, nothing was measured\n");
	pb_kmod_close(&dev);
	free(f);
	struct pb_cache_info caches;
	assert_int_equal(pb_cache_detect(&caches, NULL), 0);
	char *argv[] = {"primbench", "kernel", "clear_page", NULL};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, -1);
	assert_int_equal(pb_results_add_kernel(rdoc, r), 0);
	return rdoc;
}

/* The writer and the reader: keys, units, derived figures, names. */
static void test_roundtrip(void **state)
{
	(void)state;
	struct pb_kernel_result r;
	struct pb_results_doc *rdoc = fake_doc(&r);
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), 8);
	json_t *k = json_object_get(doc, "kernel");
	assert_int_equal(json_integer_value(json_object_get(k, "abi_version")),
	                 PB_KMOD_ABI_VERSION);
	assert_int_equal(json_integer_value(json_object_get(k, "tsc_khz")), 2000000);
	assert_int_equal(json_array_size(json_object_get(k, "variants")), 3);
	assert_int_equal(json_array_size(json_object_get(k, "checks")), 4);
	assert_string_equal(json_string_value(json_object_get(
	                        json_array_get(json_object_get(k, "variants"), 1), "why")),
	                    "CPU lacks AVX-512F");
	for (size_t i = 0; i < 8; i++) {
		json_t *o = json_array_get(cases, i), *key = json_object_get(o, "key");
		assert_string_equal(json_string_value(json_object_get(key, "suite")), "kernel");
		assert_string_equal(json_string_value(json_object_get(key, "op")), "clear_page");
		assert_null(json_object_get(key, "irqs_off"));
		assert_string_equal(json_string_value(json_object_get(o, "unit")), "tsc_ticks");
		json_int_t page = json_integer_value(json_object_get(key, "page_bytes"));
		assert_true(page == 4096 || page == 2097152);
		json_t *dv = json_object_get(o, "median_derived");
		double med =
		    json_number_value(json_object_get(json_object_get(o, "per_call"), "median"));
		double tpp = json_number_value(json_object_get(dv, "ticks_per_page"));
		assert_true(fabs(tpp - med * 4096 / (double)page) < 1e-6 * tpp);
		/* 2 GHz: a tick is 0.5 ns */
		double ns = json_number_value(json_object_get(dv, "ns_per_call"));
		assert_true(fabs(ns - med / 2) < 1e-6 * ns);
		double gb = json_number_value(json_object_get(dv, "gb_per_s"));
		assert_true(fabs(gb - (double)page / ns) < 1e-6 * gb);
	}
	char *text = json_dumps(doc, JSON_INDENT(1));
	assert_non_null(strstr(text, "figures are TSC ticks"));
	assert_non_null(strstr(text, "synthetic"));
	struct pb_results_file f;
	if (pb_results_load_text(text, strlen(text), "kernel-fake", &f) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(f.ncases, 8);
	assert_int_equal(pb_results_name(&f, 1), 0);
	assert_string_equal(f.cases[0].group, "kernel clear_page hot");
	assert_string_equal(f.cases[0].label, "kernel 4K");
	assert_string_equal(f.cases[3].group, "kernel clear_page flushed");
	assert_string_equal(f.cases[3].label, "kernel 2M");
	assert_string_equal(f.cases[0].unit, "tsc_ticks");
	assert_int_equal(f.cases[0].n_rep, 3);
	pb_results_file_free(&f);
	free(text);
	pb_results_doc_free(rdoc);
	pb_kernel_result_free(&r);
}

/* The rate of a kernel file's TSC ticks (reader.h, pb_results_file.tsc_hz)
 * is the module's tsc_khz whatever the user timer was: a TSC calibrated
 * otherwise, or clock_gettime (timer.hz 1e9 is the rate of ns, not of the
 * kernel's ticks), so report, compare and the CI formats convert the
 * kernel's ticks as the file's median_derived does. */
static void test_tick_rate(void **state)
{
	(void)state;
	struct pb_kernel_result r;
	struct pb_results_doc *rdoc = fake_doc(&r);
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *timer = json_object_get(json_object_get(doc, "machine"), "timer");
	for (int ns_timer = 0; ns_timer < 2; ns_timer++) {
		json_object_set_new(timer, "clock",
		                    json_string(ns_timer ? "clock_monotonic_raw" : "tsc"));
		json_object_set_new(timer, "hz", json_real(ns_timer ? 1e9 : 3e9));
		char *text = json_dumps(doc, 0);
		struct pb_results_file f;
		if (pb_results_load_text(text, strlen(text), "kernel-fake", &f) != 0)
			fail_msg("%s", pb_error());
		/* the fake module's tsc_khz is 2000000 */
		assert_true(fabs(f.tsc_hz - 2e9) < 1);
		assert_true(fabs(pb_file_ns_per_value(&f, "tsc_ticks") - 0.5) < 1e-9);
		pb_results_file_free(&f);
		free(text);
	}
	pb_results_doc_free(rdoc);
	pb_kernel_result_free(&r);
}

/* A kernel file the readers refuse: its tick rate missing or absurd (every
 * ns and comparison would use another clock's), a page that is not whole
 * 4 KiB pages. */
static void test_bad_files(void **state)
{
	(void)state;
	struct pb_kernel_result r;
	struct pb_results_doc *rdoc = fake_doc(&r);
	json_t *doc = pb_results_doc_json(rdoc);
	json_t *k = json_object_get(doc, "kernel");
	json_t *bad_rates[] = {json_integer(0),
	                       json_integer(-1),
	                       json_string("2000000"),
	                       json_real(2e6),
	                       json_integer(999),
	                       json_integer(100000001),
	                       NULL};
	for (size_t i = 0; i < sizeof bad_rates / sizeof *bad_rates; i++) {
		if (bad_rates[i])
			json_object_set_new(k, "tsc_khz", bad_rates[i]);
		else
			json_object_del(k, "tsc_khz");
		char *text = json_dumps(doc, 0);
		struct pb_results_file f;
		assert_int_not_equal(pb_results_load_text(text, strlen(text), "bad", &f), 0);
		assert_non_null(strstr(pb_error(), "kernel.tsc_khz"));
		pb_results_file_free(&f);
		free(text);
	}
	json_object_set_new(k, "tsc_khz", json_integer(2000000));
	json_t *key = json_object_get(json_array_get(json_object_get(doc, "cases"), 0), "key");
	json_t *bad_pages[] = {json_integer(0), json_integer(-4096), json_integer(3),
	                       json_string("4096")};
	for (size_t i = 0; i < sizeof bad_pages / sizeof *bad_pages; i++) {
		json_object_set_new(key, "page_bytes", bad_pages[i]);
		char *text = json_dumps(doc, 0);
		struct pb_results_file f;
		assert_int_not_equal(pb_results_load_text(text, strlen(text), "bad", &f), 0);
		assert_non_null(
		    strstr(pb_error(), "page_bytes must be a positive multiple of 4096"));
		pb_results_file_free(&f);
		free(text);
	}
	pb_results_doc_free(rdoc);
	pb_kernel_result_free(&r);
}

/* The text tables: a table per state, a row per variant, 4K and 2M
 * columns in ticks per 4 KiB page (a 2 MiB page's / 512), the fastest
 * marked; then GB/s; a skipped case '-'. */
static void test_tables(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	f.nomem_2m_time = true;
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	uint32_t v[2] = {0, 2};
	struct pb_kernel_params p = params(v, 2, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	pb_print_kernel_tables(m, &r);
	fclose(m);
	if (getenv("PB_SHOW"))
		fputs(text, stderr);
	assert_non_null(strstr(text, "\nkernel clear_page, hot (the same 2 pages"));
	assert_non_null(strstr(text, "\nkernel clear_page, flushed ("));
	assert_non_null(strstr(text, "median ticks/page (TSC ticks, per 4 KiB"));
	/* kernel: 100 ticks a page hot, fastest; movnti 300; no 2M page */
	assert_non_null(strstr(text, "variant                 4K       2M\n"
	                             "kernel                100*        -\n"
	                             "movnti                300         -\n"));
	/* 4096 bytes in 100 ticks at 2 GHz (50 ns): 81.9 GB/s */
	assert_non_null(strstr(text, "kernel               81.9*        -\n"));
	assert_non_null(strstr(text, "median GB/s"));
	if (getenv("PB_SHOW"))
		fputs(text, stderr);
	free(text);
	/* --list */
	m = open_memstream(&text, &len);
	pb_print_kernel_info(m, &r.info, "/dev/fake");
	fclose(m);
	assert_non_null(strstr(text, "avx512             no        CPU lacks AVX-512F\n"));
	assert_non_null(strstr(text, "tsc_khz 2000000"));
	assert_null(strstr(text, " \n")); /* no trailing blanks */
	free(text);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-fixture")) {
		if (pb_timer_init() != 0)
			return 1;
		struct pb_kernel_result r;
		struct pb_results_doc *rdoc = fake_doc(&r);
		int rc = pb_results_write(rdoc, argv[2]);
		if (rc != 0)
			fprintf(stderr, "%s\n", pb_error());
		pb_results_doc_free(rdoc);
		pb_kernel_result_free(&r);
		return rc ? 1 : 0;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_open_errors), cmocka_unit_test(test_variant_list),
	    cmocka_unit_test(test_run),         cmocka_unit_test(test_replicates),
	    cmocka_unit_test(test_eintr),       cmocka_unit_test(test_stop_flag),
	    cmocka_unit_test(test_enomem),      cmocka_unit_test(test_eio),
	    cmocka_unit_test(test_unavailable), cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_tables),      cmocka_unit_test(test_tick_rate),
	    cmocka_unit_test(test_bad_files),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
