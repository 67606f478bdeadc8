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

/* The fake device. clear_page: kernel, avx512 (not available), movnti,
 * sse2 (FPU); copy_page: kernel, avx2 (FPU); fpu: begin_end,
 * save_restore, ioctl_null, ioctl_fpu (CALL); user_copy: copy_to_user,
 * clear_user. It checks every field as the module does (EINVAL). Ticks:
 * a page = (variant + 1) x 100 x (state + 1) for 4 KiB, x 512 for 2 MiB;
 * a begin/end pair (TIME) = 20 + 10 x upper; a user copy = 50 x (state +
 * 1) + bytes / 64; a batch's ticks = OVERHEAD + calls x that. A CALL
 * advances the fake's TSC (fake_tsc) by 1000 (ioctl_null) or 1000 + 300 x
 * (upper + 1) (ioctl_fpu), the upper state the one set last. */
enum {
	FV_KERNEL,
	FV_AVX512,
	FV_MOVNTI,
	FV_SSE2,
	FV_COPY_KERNEL,
	FV_COPY_AVX2,
	FV_BEGIN_END,
	FV_SAVE_RESTORE,
	FV_IOCTL_NULL,
	FV_IOCTL_FPU,
	FV_COPY_TO_USER,
	FV_CLEAR_USER,
	FV_COUNT
};

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
	size_t n_call;         /* CALL requests so far */
	size_t n_einval;       /* requests refused as the module would */
	uint32_t log[LOG_MAX]; /* each TIME's case: variant << 8 | order << 1 | state */
	size_t n_log_ops[PB_KOP_COUNT];
	uint32_t op_log[LOG_MAX]; /* each TIME's or CALL loop's op, in order */
	size_t n_op_log;
	uint64_t checked_bytes[8]; /* user_copy CHECK sizes seen */
	size_t n_checked;
	bool closed;
	bool jitter;                       /* the fixture's: a few ticks more on some batches */
	volatile sig_atomic_t *raise_stop; /* set by the failing TIME (a signal's flag) */
};

static uint32_t fake_upper; /* the state set last (fake_set_upper) */
static uint64_t fake_ticks; /* the fake's TSC */
static uint32_t last_call = UINT32_MAX;

static void fake_set_upper(uint32_t u)
{
	fake_upper = u;
}

static uint64_t fake_tsc(void)
{
	return fake_ticks;
}

static uint64_t per_page(uint32_t v, uint32_t order, uint32_t state)
{
	if (v == FV_SSE2) /* faster than the kernel's: a break-even to find */
		return (uint64_t)60 * (state + 1) << order;
	return (uint64_t)(v + 1) * 100 * (state + 1) << order;
}

static uint64_t per_fpu(uint32_t upper)
{
	return 20 + 10 * (uint64_t)upper;
}

static uint64_t per_copy(uint64_t bytes, uint32_t state)
{
	return 50 * (uint64_t)(state + 1) + bytes / 64;
}

static uint64_t per_ioctl(uint32_t v, uint32_t upper)
{
	return v == FV_IOCTL_NULL ? 1000 : 1000 + 300 * (uint64_t)(upper + 1);
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

static int einval(struct fake *f)
{
	f->n_einval++;
	errno = EINVAL;
	return -1;
}

static int f_check(void *ctx, int fd, struct pb_kmod_check *io)
{
	struct fake *f = ctx;
	(void)fd;
	io->bad_offset_bytes = -1;
	if (io->variant >= f->info.n_variants)
		return einval(f);
	uint32_t op = f->info.variants[io->variant].op;
	if (op == PB_KOP_USER_COPY) {
		if (!io->user_ptr || io->bytes < 1 || io->bytes > f->info.max_user_bytes ||
		    io->page_order)
			return einval(f);
		/* the module writes the guards and the region (put_user): a
		 * buffer without the room is ASan's error here */
		uint8_t *u = (uint8_t *)(uintptr_t)io->user_ptr;
		memset(u - PB_KMOD_GUARD_BYTES, 0xA5, io->bytes + 2 * PB_KMOD_GUARD_BYTES);
		if (f->n_checked < 8)
			f->checked_bytes[f->n_checked++] = io->bytes;
	} else if (io->user_ptr || io->bytes ||
	           (io->page_order != PB_KMOD_ORDER_4K &&
	            (op == PB_KOP_FPU || io->page_order != PB_KMOD_ORDER_2M)))
		return einval(f);
	if (!(f->info.variants[io->variant].flags & PB_KVF_AVAILABLE)) {
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
	if (io->variant >= f->info.n_variants)
		return einval(f);
	const struct pb_kmod_variant_info *vi = &f->info.variants[io->variant];
	if (vi->flags & PB_KVF_CALL)
		return einval(f);
	if (vi->op == PB_KOP_USER_COPY) {
		if (!io->user_ptr || io->bytes < 1 || io->bytes > f->info.max_user_bytes ||
		    io->page_order ||
		    (io->state == PB_KS_FLUSHED &&
		     (uint64_t)io->calls * io->bytes > f->info.max_user_bytes))
			return einval(f);
		/* the module copies into the caller's buffer: all of it must be there */
		memset((void *)(uintptr_t)io->user_ptr, 0,
		       io->bytes * (io->state == PB_KS_FLUSHED ? io->calls : 1));
	} else {
		if (io->user_ptr || io->bytes)
			return einval(f);
		if ((uint64_t)io->calls << (12 + io->page_order) > f->info.max_calls_bytes)
			return einval(f);
		if (vi->op == PB_KOP_FPU && (io->page_order || io->state != PB_KS_HOT))
			return einval(f);
	}
	size_t n = f->n_time++;
	if (n < LOG_MAX)
		f->log[n] = io->variant << 8 | io->page_order << 1 | io->state;
	if (f->n_op_log < LOG_MAX)
		f->op_log[f->n_op_log++] = vi->op;
	f->n_log_ops[vi->op]++;
	io->overhead_ticks = OVERHEAD;
	io->batches_done = 0;
	io->cpu = 0;
	io->cpu_changed = 0;
	if (f->nomem_2m_time && io->page_order == PB_KMOD_ORDER_2M) {
		errno = ENOMEM;
		return -1;
	}
	uint64_t per = vi->op == PB_KOP_FPU ? per_fpu(fake_upper)
	               : vi->op == PB_KOP_USER_COPY
	                   ? per_copy(io->bytes, io->state)
	                   : per_page(io->variant, io->page_order, io->state);
	uint64_t *ticks = (uint64_t *)(uintptr_t)io->ticks_ptr;
	if (f->time_errno && n == f->time_fail_at) {
		io->batches_done = f->fail_done;
		if (f->fail_done)
			ticks[0] = OVERHEAD + io->calls * per;
		if (f->raise_stop)
			*f->raise_stop = 1;
		errno = f->time_errno;
		return -1;
	}
	ticks[0] = OVERHEAD + io->calls * per;
	if (f->jitter)
		ticks[0] += (n * 37 % 11) * io->calls * (io->variant + 1);
	io->batches_done = 1;
	return 0;
}

static int f_call(void *ctx, int fd, uint32_t variant)
{
	struct fake *f = ctx;
	(void)fd;
	if (variant >= f->info.n_variants || !(f->info.variants[variant].flags & PB_KVF_CALL))
		return einval(f);
	if (!(f->info.variants[variant].flags & PB_KVF_AVAILABLE)) {
		errno = EOPNOTSUPP;
		return -1;
	}
	f->n_call++;
	/* a CALL loop is one entry of the op log */
	if (variant != last_call && f->n_op_log < LOG_MAX)
		f->op_log[f->n_op_log++] = PB_KOP_FPU;
	last_call = variant;
	fake_ticks += per_ioctl(variant, fake_upper);
	return 0;
}

static const struct pb_kmod_ops fake_ops = {f_open, f_close, f_info, f_check, f_time, f_call};

static void add_variant(struct pb_kmod_info *in, uint32_t v, uint32_t op, const char *name,
                        uint32_t flags, const char *why)
{
	snprintf(in->variants[v].name, 32, "%s", name);
	in->variants[v].op = op;
	in->variants[v].flags = flags;
	snprintf(in->variants[v].why, 64, "%s", why);
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof *f);
	fake_upper = 0;
	fake_ticks = 1000000;
	last_call = UINT32_MAX;
	struct pb_kmod_info *in = &f->info;
	in->abi_version = PB_KMOD_ABI_VERSION;
	in->n_variants = FV_COUNT;
	in->n_ops = PB_KOP_COUNT;
	in->page_bytes = 4096;
	in->huge_page_bytes = 2u << 20;
	in->tsc_khz = 2000000; /* 2 GHz: 1 tick = 0.5 ns */
	in->max_calls_bytes = 16u << 20;
	in->max_batches = 64;
	in->max_request_ms = 1000;
	in->max_user_bytes = 4u << 20;
	snprintf(in->release, sizeof in->release, "6.1.0-fake");
	snprintf(in->module_version, sizeof in->module_version, "fake");
	const uint32_t A = PB_KVF_AVAILABLE;
	add_variant(in, FV_KERNEL, PB_KOP_CLEAR_PAGE, "kernel", A | PB_KVF_KERNEL, "");
	add_variant(in, FV_AVX512, PB_KOP_CLEAR_PAGE, "avx512", PB_KVF_FPU, "CPU lacks AVX-512F");
	add_variant(in, FV_MOVNTI, PB_KOP_CLEAR_PAGE, "movnti", A | PB_KVF_NT, "");
	add_variant(in, FV_SSE2, PB_KOP_CLEAR_PAGE, "sse2", A | PB_KVF_FPU, "");
	add_variant(in, FV_COPY_KERNEL, PB_KOP_COPY_PAGE, "kernel", A | PB_KVF_KERNEL, "");
	add_variant(in, FV_COPY_AVX2, PB_KOP_COPY_PAGE, "avx2", A | PB_KVF_FPU, "");
	add_variant(in, FV_BEGIN_END, PB_KOP_FPU, "begin_end", A, "");
	add_variant(in, FV_SAVE_RESTORE, PB_KOP_FPU, "save_restore", A, "");
	add_variant(in, FV_IOCTL_NULL, PB_KOP_FPU, "ioctl_null", A | PB_KVF_CALL, "");
	add_variant(in, FV_IOCTL_FPU, PB_KOP_FPU, "ioctl_fpu", A | PB_KVF_CALL | PB_KVF_FPU, "");
	add_variant(in, FV_COPY_TO_USER, PB_KOP_USER_COPY, "copy_to_user", A, "");
	add_variant(in, FV_CLEAR_USER, PB_KOP_USER_COPY, "clear_user", A, "");
}

static int cpu_zero(void)
{
	return 0;
}

static const uint32_t all_orders[2] = {PB_KMOD_ORDER_4K, PB_KMOD_ORDER_2M},
                      all_states[2] = {PB_KS_HOT, PB_KS_FLUSHED},
                      all_uppers[3] = {PB_KU_CLEAN, PB_KU_DIRTY, PB_KU_DIRTY512};
static const uint64_t some_sizes[3] = {64, 4096, 1u << 20};

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
	                                 .cpu_now = cpu_zero,
	                                 .sizes = some_sizes,
	                                 .n_sizes = 3,
	                                 .uppers = all_uppers,
	                                 .n_uppers = 3,
	                                 .set_upper = fake_set_upper,
	                                 .tsc_now = fake_tsc};
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

#define ALL_OPS 0xfu
#define CLEAR   PB_KOP_BIT(PB_KOP_CLEAR_PAGE)
#define COPY    PB_KOP_BIT(PB_KOP_COPY_PAGE)
#define FPU     PB_KOP_BIT(PB_KOP_FPU)
#define UCOPY   PB_KOP_BIT(PB_KOP_USER_COPY)

static void test_variant_list(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	uint32_t v[PB_KMOD_MAX_VARIANTS];
	assert_int_equal(pb_kmod_available_variants(&f.info, CLEAR, v), 3);
	assert_int_equal(v[0], FV_KERNEL);
	assert_int_equal(v[1], FV_MOVNTI);
	assert_int_equal(pb_kmod_available_variants(&f.info, ALL_OPS, v), FV_COUNT - 1);
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR, "movnti,kernel", v), 2);
	assert_int_equal(v[0], FV_MOVNTI);
	assert_int_equal(v[1], FV_KERNEL);
	/* a name in two ops: both */
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR | COPY, "kernel", v), 2);
	assert_int_equal(v[0], FV_KERNEL);
	assert_int_equal(v[1], FV_COPY_KERNEL);
	assert_int_equal(pb_kmod_parse_variants(&f.info, COPY | FPU, "kernel,ioctl_fpu", v), 2);
	assert_int_equal(v[0], FV_COPY_KERNEL);
	assert_int_equal(v[1], FV_IOCTL_FPU);
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR, "avx512", v), -1);
	assert_string_equal(pb_error(),
	                    "clear_page variant 'avx512' is not available: CPU lacks AVX-512F");
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR | FPU, "avx3", v), -1);
	assert_string_equal(pb_error(), "unknown variant 'avx3' (clear_page has: kernel, avx512, "
	                                "movnti, sse2; fpu has: begin_end, save_restore, "
	                                "ioctl_null, ioctl_fpu)");
	/* a name of an op not selected */
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR, "clear_user", v), -1);
	assert_non_null(strstr(pb_error(), "unknown variant 'clear_user' (clear_page has:"));
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR, "kernel,kernel", v), -1);
	assert_int_equal(pb_kmod_parse_variants(&f.info, CLEAR, ",", v), -1);
	assert_string_equal(pb_kmod_variant_name(&f.info, FV_MOVNTI), "movnti");
	assert_null(pb_kmod_variant_name(&f.info, FV_COUNT));
	assert_string_equal(pb_kmod_state_name(PB_KS_FLUSHED), "flushed");
	assert_int_equal(pb_kmod_variant_find(&f.info, PB_KOP_COPY_PAGE, "kernel"), FV_COPY_KERNEL);
	assert_int_equal(pb_kmod_variant_find(&f.info, PB_KOP_FPU, "kernel"), -1);
	/* ops */
	assert_int_equal(pb_kmod_parse_ops(NULL, "fpu,clear_page"), FPU | CLEAR);
	assert_int_equal(pb_kmod_parse_ops(NULL, "all"), ALL_OPS);
	assert_int_equal(pb_kmod_parse_ops(&f.info, "all"), ALL_OPS);
	assert_int_equal(pb_kmod_parse_ops(NULL, "clear_page,memcpy"), 0);
	assert_string_equal(pb_error(),
	                    "unknown op 'memcpy' (clear_page, copy_page, fpu, user_copy or all)");
	assert_int_equal(pb_kmod_parse_ops(NULL, "fpu,fpu"), 0);
	assert_int_equal(pb_kmod_parse_ops(NULL, ","), 0);
	/* a module without user_copy variants: "all" leaves it out, naming it fails */
	f.info.n_variants = FV_COPY_TO_USER;
	assert_int_equal(pb_kmod_parse_ops(&f.info, "all"), CLEAR | COPY | FPU);
	assert_int_equal(pb_kmod_parse_ops(&f.info, "user_copy"), 0);
	assert_non_null(strstr(pb_error(), "has no user_copy variants"));
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
	assert_string_equal(pb_error(), "clear_page variant 'movnti' failed its correctness "
	                                "check: byte at offset 4032 of a 4 KiB page not zero");
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
	assert_non_null(strstr(pb_error(), "clear_page variant 'kernel'"));
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
	assert_string_equal(pb_error(),
	                    "clear_page variant 'avx512' is not available: CPU lacks AVX-512F");
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
	assert_int_equal(json_array_size(json_object_get(k, "variants")), FV_COUNT);
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

/* The variants of every op the fake has (available ones). */
static const uint32_t mixed[] = {FV_KERNEL,       FV_SSE2,         FV_COPY_KERNEL, FV_COPY_AVX2,
                                 FV_BEGIN_END,    FV_SAVE_RESTORE, FV_IOCTL_NULL,  FV_IOCTL_FPU,
                                 FV_COPY_TO_USER, FV_CLEAR_USER};
#define N_MIXED (sizeof mixed / sizeof *mixed)

/* The cases of each op: pages x states, upper states, sizes x states, with
 * their keys; the checks: variant x page, variant, variant x size. */
static void test_cases_per_op(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	struct pb_kernel_params p = params(mixed, N_MIXED, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	/* 4 page variants x 2 x 2, 4 fpu x 3, 2 user_copy x 3 x 2 */
	assert_int_equal(r.n_cases, 16 + 12 + 12);
	/* checks: 4 x 2 pages, 4 fpu, 2 x 3 sizes */
	assert_int_equal(r.n_checks, 8 + 4 + 6);
	for (size_t i = 0; i < r.n_checks; i++)
		assert_true(r.checks[i].ok);
	assert_int_equal(f.n_einval, 0);
	size_t per_op[PB_KOP_COUNT] = {0};
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_kernel_case *c = &r.cases[i];
		per_op[c->op]++;
		assert_int_equal(c->op, f.info.variants[c->variant].op);
		assert_string_equal(c->name, f.info.variants[c->variant].name);
		switch (c->op) {
		case PB_KOP_FPU:
			assert_int_equal(c->page_order, 0);
			assert_int_equal(c->state, PB_KS_HOT);
			assert_true(c->upper < PB_KU_COUNT);
			assert_int_equal(c->user_timed,
			                 c->variant == FV_IOCTL_NULL || c->variant == FV_IOCTL_FPU);
			break;
		case PB_KOP_USER_COPY:
			assert_int_equal(c->page_order, 0);
			assert_true(c->size_bytes == 64 || c->size_bytes == 4096 ||
			            c->size_bytes == 1u << 20);
			break;
		default:
			assert_int_equal(c->page_bytes, 4096u << c->page_order);
			assert_int_equal(c->size_bytes, 0);
		}
	}
	assert_int_equal(per_op[PB_KOP_CLEAR_PAGE], 8);
	assert_int_equal(per_op[PB_KOP_COPY_PAGE], 8);
	assert_int_equal(per_op[PB_KOP_FPU], 12);
	assert_int_equal(per_op[PB_KOP_USER_COPY], 12);
	/* user_copy checked once per variant x size, each with its guards
	 * (the fake writes them: ASan's error if the room is not there) */
	assert_int_equal(f.n_checked, 6);
	assert_int_equal(f.checked_bytes[0], 64);
	assert_int_equal(f.checked_bytes[2], 1u << 20);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* Every op in one run: each median exactly the fake's (overhead
 * subtracted from TIME's, nothing from the CALL loops'), the upper state
 * set before each request, the ops interleaved, no request the module
 * would refuse. */
static void test_mixed_run(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	struct pb_kernel_params p = params(mixed, N_MIXED, NULL);
	p.irqs_off = true;
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
	assert_false(r.interrupted);
	assert_int_equal(f.n_einval, 0);
	assert_true(f.n_call > 0);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_kernel_case *c = &r.cases[i];
		assert_true(c->n_samples >= p.min_samples);
		double want = c->op == PB_KOP_FPU
		                  ? (double)(c->user_timed ? per_ioctl(c->variant, c->upper)
		                                           : per_fpu(c->upper))
		              : c->op == PB_KOP_USER_COPY
		                  ? (double)per_copy(c->size_bytes, c->state)
		                  : (double)per_page(c->variant, c->page_order, c->state);
		if (fabs(c->ticks_per_call.median - want) > 1e-9 * want)
			fail_msg("%s %s: median %g, want %g", pb_kmod_op_name(c->op), c->name,
			         c->ticks_per_call.median, want);
		/* the CALL loop: k ioctls, its ticks k times one's */
		for (size_t j = 0; c->user_timed && j < c->n_samples; j++)
			assert_true(c->batch_ticks[j] ==
			            (double)(c->batch_calls[j] * per_ioctl(c->variant, c->upper)));
		/* interrupts off on TIME requests only */
		assert_int_equal(c->irqs_off, !c->user_timed);
		/* user_copy flushed: calls x bytes within max_user_bytes */
		for (size_t j = 0;
		     c->op == PB_KOP_USER_COPY && c->state == PB_KS_FLUSHED && j < c->n_samples;
		     j++)
			assert_true(c->batch_calls[j] * c->size_bytes <= f.info.max_user_bytes);
	}
	/* interleaved: the op changes from one request to the next often */
	size_t changes = 0;
	for (size_t i = 1; i < f.n_op_log; i++)
		changes += f.op_log[i] != f.op_log[i - 1];
	assert_true(changes > f.n_op_log / 4);
	for (uint32_t op = 0; op < PB_KOP_COUNT; op++)
		if (op != PB_KOP_FPU)
			assert_true(f.n_log_ops[op] > 0);
	if (getenv("PB_SHOW"))
		pb_print_kernel_tables(stderr, &r);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* A copy of json object o's member `name` as a string ("" when absent). */
static const char *jstr(json_t *o, const char *name)
{
	const char *v = json_string_value(json_object_get(o, name));
	return v ? v : "";
}

/* The file of a mixed run: each op's keys and derived figures, the
 * kernel object's variants and checks with their op, the break-evens. */
static void test_mixed_file(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	struct pb_kernel_params p = params(mixed, N_MIXED, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 2, &r), 0);
	struct pb_cache_info caches;
	assert_int_equal(pb_cache_detect(&caches, NULL), 0);
	char *argv[] = {"primbench", "kernel", "all", NULL};
	struct pb_results_doc *rdoc = pb_results_new(3, argv, 0, &caches, -1);
	assert_int_equal(pb_results_add_kernel(rdoc, &r), 0);
	char *text = json_dumps(pb_results_doc_json(rdoc), JSON_INDENT(1));
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr); /* parsed back, as a reader would */
	assert_non_null(doc);
	json_t *cases = json_object_get(doc, "cases");
	assert_int_equal(json_array_size(cases), r.n_cases);
	size_t seen[PB_KOP_COUNT] = {0};
	for (size_t i = 0; i < json_array_size(cases); i++) {
		json_t *o = json_array_get(cases, i), *key = json_object_get(o, "key");
		json_t *dv = json_object_get(o, "median_derived");
		assert_string_equal(jstr(key, "suite"), "kernel");
		assert_string_equal(jstr(o, "unit"), "tsc_ticks");
		assert_non_null(json_object_get(dv, "ns_per_call"));
		const char *op = jstr(key, "op");
		double med =
		    json_number_value(json_object_get(json_object_get(o, "per_call"), "median"));
		if (!strcmp(op, "clear_page") || !strcmp(op, "copy_page")) {
			seen[!strcmp(op, "copy_page")]++;
			assert_true(json_is_integer(json_object_get(key, "page_bytes")));
			assert_non_null(json_object_get(key, "cache_state"));
			assert_null(json_object_get(key, "upper_state"));
			assert_null(json_object_get(key, "size_bytes"));
			assert_non_null(json_object_get(dv, "ticks_per_page"));
			assert_non_null(json_object_get(dv, "gb_per_s"));
			assert_null(json_object_get(o, "timed_from"));
		} else if (!strcmp(op, "fpu")) {
			seen[PB_KOP_FPU]++;
			const char *u = jstr(key, "upper_state");
			assert_true(!strcmp(u, "clean") || !strcmp(u, "dirty") ||
			            !strcmp(u, "dirty512"));
			assert_null(json_object_get(key, "cache_state"));
			assert_null(json_object_get(key, "page_bytes"));
			assert_null(json_object_get(dv, "gb_per_s"));
			const char *v = jstr(key, "variant");
			bool user = !strcmp(v, "ioctl_null") || !strcmp(v, "ioctl_fpu");
			assert_string_equal(jstr(o, "timed_from"), user ? "user" : "kernel");
			assert_true(json_is_boolean(json_object_get(o, "overhead_subtracted")));
			assert_int_equal(json_is_true(json_object_get(o, "overhead_subtracted")),
			                 !user);
		} else {
			assert_string_equal(op, "user_copy");
			seen[PB_KOP_USER_COPY]++;
			json_int_t sz = json_integer_value(json_object_get(key, "size_bytes"));
			assert_true(sz == 64 || sz == 4096 || sz == 1 << 20);
			assert_non_null(json_object_get(key, "cache_state"));
			assert_null(json_object_get(key, "page_bytes"));
			double gb = json_number_value(json_object_get(dv, "gb_per_s"));
			/* 2 GHz: bytes / (med / 2 ns) */
			assert_true(fabs(gb - (double)sz / (med / 2)) < 1e-6 * gb);
		}
	}
	assert_int_equal(seen[0], 8);
	assert_int_equal(seen[1], 8);
	assert_int_equal(seen[PB_KOP_FPU], 12);
	assert_int_equal(seen[PB_KOP_USER_COPY], 12);
	json_t *k = json_object_get(doc, "kernel");
	json_t *vs = json_object_get(k, "variants");
	assert_string_equal(jstr(json_array_get(vs, FV_COPY_KERNEL), "op"), "copy_page");
	assert_string_equal(jstr(json_array_get(vs, FV_COPY_KERNEL), "name"), "kernel");
	assert_string_equal(jstr(json_array_get(vs, FV_CLEAR_USER), "op"), "user_copy");
	json_t *checks = json_object_get(k, "checks");
	size_t uc = 0;
	for (size_t i = 0; i < json_array_size(checks); i++) {
		json_t *c = json_array_get(checks, i);
		assert_string_equal(jstr(c, "result"), "ok");
		if (!strcmp(jstr(c, "op"), "user_copy")) {
			uc++;
			assert_non_null(json_object_get(c, "size_bytes"));
			assert_null(json_object_get(c, "page_bytes"));
		} else {
			assert_true(*jstr(c, "op"));
		}
	}
	assert_int_equal(uc, 6);
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(k, "limits"), "max_user_bytes")),
	    4 << 20);
	/* break-evens: clear_page sse2 (60/page) against kernel (100); copy_page
	 * avx2 (600) against kernel (500): never; per upper state */
	json_t *be = json_object_get(k, "breakeven");
	assert_int_equal(json_array_size(be), 2 * 3);
	json_t *b0 = json_array_get(be, 0);
	assert_string_equal(jstr(b0, "op"), "clear_page");
	assert_string_equal(jstr(b0, "upper_state"), "clean");
	assert_string_equal(jstr(b0, "simd_variant"), "sse2");
	assert_string_equal(jstr(b0, "rep_variant"), "kernel");
	/* the medians of 2 replicates: exact to rounding */
	assert_true(fabs(json_number_value(json_object_get(b0, "roundtrip_ticks")) - 300) < 1e-6);
	assert_true(fabs(json_number_value(json_object_get(b0, "simd_ticks_per_page")) - 60) <
	            1e-6);
	assert_true(fabs(json_number_value(json_object_get(b0, "rep_ticks_per_page")) - 100) <
	            1e-6);
	/* 300 / (100 - 60) = 7.5: 8 pages */
	assert_int_equal(json_integer_value(json_object_get(b0, "pages")), 8);
	assert_int_equal(json_integer_value(json_object_get(b0, "bytes")), 8 * 4096);
	json_t *b3 = json_array_get(be, 3);
	assert_string_equal(jstr(b3, "simd_variant"), "avx2");
	assert_true(json_is_null(json_object_get(b3, "pages")));
	assert_true(json_is_null(json_object_get(b3, "bytes")));
	assert_string_equal(jstr(json_array_get(be, 3), "op"), "copy_page");
	/* the readers take it: every op's cases */
	struct pb_results_file rf;
	if (pb_results_load_text(text, strlen(text), "kernel-mixed", &rf) != 0)
		fail_msg("%s", pb_error());
	assert_int_equal(rf.ncases, r.n_cases);
	pb_results_file_free(&rf);
	json_decref(doc);
	free(text);
	pb_results_doc_free(rdoc);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* A synthetic case for the break-even: variant v of the fake, median m. */
static void synth(struct pb_kernel_result *r, uint32_t v, uint32_t upper, double m)
{
	struct pb_kernel_case *c = &r->cases[r->n_cases++];
	memset(c, 0, sizeof *c);
	c->variant = v;
	c->op = r->info.variants[v].op;
	snprintf(c->name, sizeof c->name, "%s", r->info.variants[v].name);
	c->page_bytes = 4096;
	c->state = PB_KS_HOT;
	c->upper = upper;
	c->user_timed = r->info.variants[v].flags & PB_KVF_CALL;
	c->n_samples = 1;
	c->ticks_per_call.median = m;
}

/* pb_kernel_breakevens on figures made up: the ceiling, one more when the
 * quotient is whole (strictly faster), never, inputs missing. */
static void test_breakeven(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kernel_result r;
	memset(&r, 0, sizeof r);
	r.info = f.info;
	struct pb_kernel_case cases[16];
	r.cases = cases;
	struct pb_kernel_breakeven b[8];
	/* nothing measured */
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 0);
	synth(&r, FV_KERNEL, 0, 1000); /* rep at 1000 a page */
	synth(&r, FV_MOVNTI, 0, 1500); /* slower non-FPU: not the rep */
	synth(&r, FV_SSE2, 0, 700);    /* SIMD 300 a page faster */
	synth(&r, FV_IOCTL_NULL, 1, 2000);
	/* no ioctl_fpu: no break-even */
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 0);
	synth(&r, FV_IOCTL_FPU, 1, 2000 + 1000); /* round trip 1000 at dirty */
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 1);
	assert_int_equal(b[0].op, PB_KOP_CLEAR_PAGE);
	assert_int_equal(b[0].upper, PB_KU_DIRTY);
	assert_string_equal(b[0].simd_name, "sse2");
	assert_string_equal(b[0].rep_name, "kernel");
	assert_true(b[0].roundtrip_ticks == 1000);
	assert_false(b[0].never);
	/* 1000 / 300 = 3.33: 4 pages (1000 + 4 x 700 = 3800 < 4000) */
	assert_int_equal(b[0].pages, 4);
	/* whole quotient: 1200 / 300 = 4, and 4 pages tie (4000 = 4000): 5 */
	r.cases[4].ticks_per_call.median = 2000 + 1200;
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 1);
	assert_int_equal(b[0].pages, 5);
	/* a round trip of 0 or less: from 1 page */
	r.cases[4].ticks_per_call.median = 1900;
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 1);
	assert_int_equal(b[0].pages, 1);
	/* SIMD not faster per page: never */
	r.cases[4].ticks_per_call.median = 3000;
	r.cases[2].ticks_per_call.median = 1000;
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 1);
	assert_true(b[0].never);
	/* the text says so */
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	pb_print_kernel_breakevens(m, &r);
	r.cases[2].ticks_per_call.median = 700;
	pb_print_kernel_breakevens(m, &r);
	fclose(m);
	assert_non_null(strstr(text, "clear_page: sse2 inside kernel_fpu_begin/end never beats "
	                             "kernel (not faster per page), dirty upper state\n"));
	assert_non_null(strstr(text, "clear_page: sse2 inside kernel_fpu_begin/end beats kernel "
	                             "from 4 pages (16 KiB) per system call, dirty upper state\n"));
	free(text);
	/* a 2M or flushed SIMD case is not the 4K hot one: no entry */
	r.cases[2].state = PB_KS_FLUSHED;
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 0);
	r.cases[2].state = PB_KS_HOT;
	/* no non-FPU variant at 4K hot: no entry */
	r.cases[0].n_samples = 0;
	r.cases[1].skipped = true;
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 0);
	/* a second upper state with both ioctls: one more entry */
	r.cases[0].n_samples = 1;
	synth(&r, FV_IOCTL_NULL, 0, 2000);
	synth(&r, FV_IOCTL_FPU, 0, 2600);
	assert_int_equal(pb_kernel_breakevens(&r, b, 8), 2);
	assert_int_equal(b[0].upper, PB_KU_CLEAN);
	assert_int_equal(b[0].pages, 3); /* 600 / 300 = 2, whole: 3 */
	assert_int_equal(b[1].upper, PB_KU_DIRTY);
	/* at most max */
	assert_int_equal(pb_kernel_breakevens(&r, b, 1), 1);
}

/* A failed check of each op: its words; copy_page without a 2 MiB page:
 * those cases skipped, the 4 KiB ones timed. */
static void test_ops_failures(void **state)
{
	(void)state;
	struct {
		uint32_t v;
		int64_t off;
		const char *want;
	} fails[] = {
	    {FV_COPY_AVX2, 100,
	     "copy_page variant 'avx2' failed its correctness check: byte at offset 100 of a "
	     "4 KiB page not the source's"},
	    {FV_CLEAR_USER, 70,
	     "user_copy variant 'clear_user' failed its correctness check: the guard byte at "
	     "offset 70 after a region of 64 bytes was written"},
	    {FV_COPY_TO_USER, -2,
	     "user_copy variant 'copy_to_user' failed its correctness check: the guard byte 2 "
	     "bytes before a region of 64 bytes was written"},
	    {FV_BEGIN_END, 0,
	     "fpu variant 'begin_end' failed its correctness check: byte at offset 0 of a 4 "
	     "KiB page wrong"},
	};
	for (size_t i = 0; i < sizeof fails / sizeof *fails; i++) {
		struct fake f;
		fake_init(&f);
		f.check_errno = EIO;
		f.check_variant = fails[i].v;
		f.bad_offset = fails[i].off;
		struct pb_kmod_dev dev;
		struct pb_kernel_result r;
		open_fake(&f, &dev, &r);
		struct pb_kernel_params p = params(mixed, N_MIXED, NULL);
		assert_int_equal(pb_kernel_check(&dev, &p, &r), -1);
		assert_string_equal(pb_error(), fails[i].want);
		assert_int_equal(f.n_time, 0);
		pb_kernel_result_free(&r);
		pb_kmod_close(&dev);
	}
	/* no 2 MiB page for copy_page */
	struct fake f;
	fake_init(&f);
	f.nomem_2m_time = true;
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	const uint32_t v[] = {FV_COPY_KERNEL, FV_COPY_AVX2};
	struct pb_kernel_params p = params(v, 2, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
	for (size_t i = 0; i < r.n_cases; i++) {
		const struct pb_kernel_case *c = &r.cases[i];
		assert_int_equal(c->skipped, c->page_order == PB_KMOD_ORDER_2M);
		assert_int_equal(c->n_samples > 0, c->page_order == PB_KMOD_ORDER_4K);
	}
	assert_non_null(strstr(r.notes, "copy_page kernel, 2 MiB page, hot: not timed: no 2 MiB"));
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* The fpu and user_copy tables and the break-even lines of a run. */
static void test_mixed_tables(void **state)
{
	(void)state;
	struct fake f;
	fake_init(&f);
	struct pb_kmod_dev dev;
	struct pb_kernel_result r;
	open_fake(&f, &dev, &r);
	struct pb_kernel_params p = params(mixed, N_MIXED, NULL);
	assert_int_equal(pb_kernel_check(&dev, &p, &r), 0);
	assert_int_equal(pb_kernel_run_replicates(&dev, &p, 1, &r), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	pb_print_kernel_tables(m, &r);
	fclose(m);
	if (getenv("PB_SHOW"))
		fputs(text, stderr);
	assert_non_null(strstr(text, "\nkernel clear_page, hot"));
	assert_non_null(strstr(text, "\nkernel copy_page, flushed"));
	assert_non_null(strstr(text, "\nkernel fpu: "));
	/* ioctl_fpu 1300/1600/1900 ticks, ioctl_null 1000: round trip 300 ... */
	assert_non_null(
	    strstr(text, "round trip (ioctl_fpu - ioctl_null)      300      600      900\n"));
	assert_non_null(
	    strstr(text, "begin_end                               20.0     30.0     40.0\n"));
	/* ns at 2 GHz */
	assert_non_null(
	    strstr(text, "round trip (ioctl_fpu - ioctl_null)      150      300      450\n"));
	assert_non_null(strstr(text, "\nkernel user_copy: "));
	/* 64 bytes hot: 51 ticks; 1M flushed: 100 + 16384 */
	assert_non_null(strstr(text, "copy_to_user hot            51.0      114    16434\n"));
	assert_non_null(strstr(text, "clear_user flushed           101      164    16484\n"));
	assert_non_null(strstr(text, "break-even"));
	assert_non_null(strstr(text, "copy_page: avx2 inside kernel_fpu_begin/end never beats "
	                             "kernel (not faster per page), dirty512 upper state\n"));
	/* 300 / 40 = 7.5: 8; 600 / 40 = 15, whole: 16; 900 / 40 = 22.5: 23 */
	assert_non_null(strstr(text, "clear_page: sse2 inside kernel_fpu_begin/end beats kernel "
	                             "from 8 pages (32 KiB) per system call, clean upper state\n"));
	assert_non_null(strstr(text, "from 16 pages (64 KiB) per system call, dirty upper"));
	assert_non_null(strstr(text, "from 23 pages (92 KiB) per system call, dirty512 upper"));
	assert_null(strstr(text, " \n"));
	free(text);
	/* --list: grouped by op */
	m = open_memstream(&text, &len);
	pb_print_kernel_info(m, &r.info, "/dev/fake");
	fclose(m);
	if (getenv("PB_SHOW"))
		fputs(text, stderr);
	assert_non_null(strstr(text, "\nclear_page\nvariant "));
	assert_non_null(strstr(text, "\ncopy_page\nvariant "));
	assert_non_null(strstr(text, "\nfpu\nvariant "));
	assert_non_null(strstr(text, "ioctl_fpu          yes       fpu timed-from-user\n"));
	assert_non_null(strstr(text, "\nuser_copy\nvariant "));
	assert_null(strstr(text, " \n"));
	free(text);
	pb_kernel_result_free(&r);
	pb_kmod_close(&dev);
}

/* An INFO out of range: n_ops, a variant's op, max_calls_bytes below a
 * 2 MiB page, max_user_bytes. */
static void test_bad_info(void **state)
{
	(void)state;
	struct fake f;
	struct pb_kmod_dev dev;
	struct pb_kmod_info info;
	for (int i = 0; i < 5; i++) {
		fake_init(&f);
		if (i == 0)
			f.info.n_ops = PB_KOP_COUNT + 1;
		if (i == 1)
			f.info.variants[3].op = PB_KOP_COUNT;
		if (i == 2)
			f.info.max_calls_bytes = (2u << 20) - 4096;
		if (i == 3)
			f.info.max_user_bytes = 0;
		if (i == 4)
			f.info.n_ops = 0;
		assert_int_equal(pb_kmod_open(&fake_ops, &f, "/dev/primbench", &dev, &info), -1);
		assert_non_null(strstr(pb_error(), "bad INFO"));
		assert_true(f.closed);
	}
}

#if defined(__x86_64__)
#include <cpuid.h>
/* XINUSE (xgetbv with ECX 1, Intel SDM Vol. 1 13.6) where the CPU has it
 * (CPUID.(EAX=0DH,ECX=1):EAX[2]); else -1. */
static int64_t xinuse(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a >> 2 & 1))
		return -1;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	return (int64_t)((uint64_t)hi << 32 | lo);
}
#else
static int64_t xinuse(void)
{
	return -1;
}
#endif

/* This build's own upper states and TSC (no module needed): clean is
 * always possible; each possible state can be set (dirty512 where the CPU
 * and the OS have it: a SIGILL otherwise); the TSC moves forward. Off
 * x86-64: nothing possible, no TSC. */
static void test_arch(void **state)
{
	(void)state;
	if (!pb_kernel_arch_supported(NULL)) {
		assert_false(pb_kernel_upper_possible(PB_KU_CLEAN, NULL));
		assert_int_equal(pb_kernel_tsc_now(), 0);
		return;
	}
	assert_true(pb_kernel_upper_possible(PB_KU_CLEAN, NULL));
	const char *why = NULL;
	assert_false(pb_kernel_upper_possible(PB_KU_COUNT, &why));
	assert_non_null(why);
	for (uint32_t u = 0; u < PB_KU_COUNT; u++) {
		why = NULL;
		if (!pb_kernel_upper_possible(u, &why)) {
			assert_non_null(why);
			continue;
		}
		pb_kernel_set_upper(u);
		/* the state as set, at the return (no vzeroupper on the way
		 * out): AVX bit 2, ZMM_Hi256 bit 6, Hi16_ZMM bit 7 */
		int64_t in = xinuse();
		if (in < 0)
			continue;
		uint64_t want = u == PB_KU_CLEAN   ? 0
		                : u == PB_KU_DIRTY ? 1u << 2
		                                   : (1u << 2 | 1u << 6 | 1u << 7);
		if (((uint64_t)in & (1u << 2 | 1u << 6 | 1u << 7)) != want)
			fail_msg("upper state %s: XINUSE %#llx", pb_kernel_upper_name(u),
			         (unsigned long long)in);
	}
	/* dirty512 needs dirty */
	if (pb_kernel_upper_possible(PB_KU_DIRTY512, NULL))
		assert_true(pb_kernel_upper_possible(PB_KU_DIRTY, NULL));
	/* the clean state keeps MXCSR (an xrstor from an area of zeros would
	 * unmask every SSE exception): a division by zero still gives inf */
	pb_kernel_set_upper(PB_KU_CLEAN);
	volatile double zero = 0, one = 1;
	assert_true(isinf(one / zero));
	uint64_t a = pb_kernel_tsc_now(), b = pb_kernel_tsc_now();
	assert_true(a > 0 && b >= a);
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
	    cmocka_unit_test(test_open_errors),  cmocka_unit_test(test_variant_list),
	    cmocka_unit_test(test_run),          cmocka_unit_test(test_replicates),
	    cmocka_unit_test(test_eintr),        cmocka_unit_test(test_stop_flag),
	    cmocka_unit_test(test_enomem),       cmocka_unit_test(test_eio),
	    cmocka_unit_test(test_unavailable),  cmocka_unit_test(test_roundtrip),
	    cmocka_unit_test(test_tables),       cmocka_unit_test(test_tick_rate),
	    cmocka_unit_test(test_bad_files),    cmocka_unit_test(test_cases_per_op),
	    cmocka_unit_test(test_mixed_run),    cmocka_unit_test(test_mixed_file),
	    cmocka_unit_test(test_breakeven),    cmocka_unit_test(test_ops_failures),
	    cmocka_unit_test(test_mixed_tables), cmocka_unit_test(test_bad_info),
	    cmocka_unit_test(test_arch),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
