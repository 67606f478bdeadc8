/* kernel.c - the kernel suite: clear_page variants timed by primbench's
 * module through /dev/primbench (include/primbench/kernel_suite.h; the
 * interface: include/primbench/kmod_abi.h). This file only asks: the
 * module allocates, flushes, disables preemption and reads the TSC
 * (kmod/primbench_kmod.c); the harness (harness.h) decides what to ask
 * for and when. Builds on every architecture (the ioctl numbers come from
 * <linux/ioctl.h>); the command refuses to run off x86-64. */
#define _GNU_SOURCE
#include "primbench/kernel_suite.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "primbench/error.h"
#include "primbench/harness.h"
#include "primbench/replicates.h"
#include "primbench/text.h"

/* ---- the real device --------------------------------------------------- */

/* Whether a character device's sysfs entry names another driver's device:
 * /sys/dev/char/MAJOR:MINOR links to the device's directory, whose name
 * for the module's misc device is "primbench" (Documentation/ABI/testing/
 * sysfs-dev). False when sysfs cannot tell (not mounted): the INFO ioctl
 * decides then. */
static bool other_driver(dev_t rdev)
{
	char link[64], target[256];
	snprintf(link, sizeof link, "/sys/dev/char/%u:%u", major(rdev), minor(rdev));
	ssize_t n = readlink(link, target, sizeof target - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	return strcmp(base ? base + 1 : target, "primbench") != 0;
}

static int dev_open(void *ctx, const char *path)
{
	(void)ctx;
	/* Before opening it read-write: opening some devices acts (a
	 * watchdog starts its timer), so only a character device that sysfs
	 * does not name as another driver's is opened. */
	struct stat pre;
	if (stat(path, &pre) == 0 && (!S_ISCHR(pre.st_mode) || other_driver(pre.st_rdev))) {
		errno = S_ISCHR(pre.st_mode) ? EMEDIUMTYPE : ENOTTY;
		return -1;
	}
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		errno = ENOTTY;
		return -1;
	}
	return fd;
}

static void dev_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static int dev_info(void *ctx, int fd, struct pb_kmod_info *out)
{
	(void)ctx;
	return ioctl(fd, PB_KMOD_IOC_INFO, out) < 0 ? -1 : 0;
}

static int dev_check(void *ctx, int fd, struct pb_kmod_check *io)
{
	(void)ctx;
	return ioctl(fd, PB_KMOD_IOC_CHECK, io) < 0 ? -1 : 0;
}

static int dev_time(void *ctx, int fd, struct pb_kmod_time *io)
{
	(void)ctx;
	return ioctl(fd, PB_KMOD_IOC_TIME, io) < 0 ? -1 : 0;
}

static const struct pb_kmod_ops device_ops = {dev_open, dev_close, dev_info, dev_check, dev_time};

const struct pb_kmod_ops *pb_kmod_device_ops(void)
{
	return &device_ops;
}

/* ---- opening, INFO, names ------------------------------------------------ */

int pb_kmod_open(const struct pb_kmod_ops *ops, void *ctx, const char *path,
                 struct pb_kmod_dev *dev, struct pb_kmod_info *info)
{
	*dev = (struct pb_kmod_dev){.ops = ops, .ctx = ctx, .fd = -1, .path = path};
	int fd = ops->open(ctx, path);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT || e == ENODEV || e == ENXIO)
			return pb_fail("%s is absent: the module " PB_KMOD_NAME " is not loaded "
			               "(primbench never loads it): build it with `make kmod` and "
			               "load it with `sudo insmod kmod/" PB_KMOD_NAME ".ko` "
			               "(docs/kernel.md)",
			               path);
		if (e == EACCES || e == EPERM)
			return pb_fail("cannot open %s: %s (the device is mode 0600: run as root)",
			               path, strerror(e));
		if (e == ENOTTY)
			return pb_fail("%s is not primbench's device (not a character device; the "
			               "module's is " PB_KMOD_DEVICE ")",
			               path);
		if (e == EMEDIUMTYPE)
			return pb_fail("%s is not primbench's device (sysfs names it another "
			               "driver's; the module's is " PB_KMOD_DEVICE ")",
			               path);
		return pb_fail("cannot open %s: %s", path, strerror(e));
	}
	dev->fd = fd;
	memset(info, 0, sizeof *info);
	if (ops->info(ctx, fd, info) != 0) {
		int e = errno;
		pb_kmod_close(dev);
		if (e == ENOTTY || e == EINVAL)
			return pb_fail("%s is not primbench's device: it does not answer "
			               "PB_KMOD_IOC_INFO (%s)",
			               path, strerror(e));
		return pb_fail("%s: PB_KMOD_IOC_INFO: %s", path, strerror(e));
	}
	if (info->abi_version != PB_KMOD_ABI_VERSION) {
		pb_kmod_close(dev);
		return pb_fail("the module at %s has ABI version %u, this primbench speaks "
		               "version %u: rebuild and reload the module (make kmod)",
		               path, info->abi_version, PB_KMOD_ABI_VERSION);
	}
	if (info->n_variants > PB_KMOD_MAX_VARIANTS || info->page_bytes != 4096 ||
	    info->huge_page_bytes != 4096u << PB_KMOD_ORDER_2M || info->max_batches < 1) {
		pb_kmod_close(dev);
		return pb_fail("the module at %s gave a bad INFO (%u variants, pages of %u and "
		               "%u bytes, at most %u batches)",
		               path, info->n_variants, info->page_bytes, info->huge_page_bytes,
		               info->max_batches);
	}
	/* The module's strings as C strings whatever it wrote. */
	info->release[sizeof info->release - 1] = '\0';
	info->module_version[sizeof info->module_version - 1] = '\0';
	for (uint32_t i = 0; i < info->n_variants; i++) {
		info->variants[i].name[sizeof info->variants[i].name - 1] = '\0';
		info->variants[i].why[sizeof info->variants[i].why - 1] = '\0';
	}
	return 0;
}

void pb_kmod_close(struct pb_kmod_dev *dev)
{
	if (dev->fd >= 0)
		dev->ops->close(dev->ctx, dev->fd);
	dev->fd = -1;
}

int pb_kmod_variant_find(const struct pb_kmod_info *info, const char *name)
{
	/* clear_page's variants only: a name is unique within its op (ABI v2) */
	for (uint32_t i = 0; i < info->n_variants; i++)
		if (info->variants[i].op == PB_KOP_CLEAR_PAGE &&
		    !strcmp(info->variants[i].name, name))
			return (int)i;
	return -1;
}

size_t pb_kmod_available_variants(const struct pb_kmod_info *info, uint32_t *out)
{
	size_t n = 0;
	for (uint32_t i = 0; i < info->n_variants; i++)
		if (info->variants[i].op == PB_KOP_CLEAR_PAGE &&
		    (info->variants[i].flags & PB_KVF_AVAILABLE))
			out[n++] = i;
	return n;
}

int pb_kmod_parse_variants(const struct pb_kmod_info *info, const char *list, uint32_t *out)
{
	char *copy = strdup(list);
	if (!copy)
		return pb_fail("out of memory");
	int n = 0, rc = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		int v = pb_kmod_variant_find(info, w);
		if (v < 0) {
			char names[PB_KMOD_MAX_VARIANTS * 34] = "";
			for (uint32_t i = 0; i < info->n_variants; i++) {
				size_t u = strlen(names);
				snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "",
				         info->variants[i].name);
			}
			rc = pb_fail("unknown variant '%s' (the module has: %s)", w, names);
			break;
		}
		if (!(info->variants[v].flags & PB_KVF_AVAILABLE)) {
			rc = pb_fail("variant '%s' is not available: %s", w,
			             info->variants[v].why[0] ? info->variants[v].why
			                                      : "the module says so");
			break;
		}
		for (int j = 0; j < n; j++)
			if (out[j] == (uint32_t)v)
				rc = pb_fail("variant '%s' twice", w);
		if (rc == 0 && n < PB_KMOD_MAX_VARIANTS)
			out[n++] = (uint32_t)v;
	}
	free(copy);
	if (rc == 0 && n == 0)
		rc = pb_fail("empty variant list");
	return rc ? -1 : n;
}

/* ---- the cases and their checks ----------------------------------------- */

static const char *order_text(uint32_t order)
{
	return order == PB_KMOD_ORDER_2M ? "2 MiB" : "4 KiB";
}

void pb_kernel_note(struct pb_kernel_result *r, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	size_t u = strlen(r->notes);
	snprintf(r->notes + u, sizeof r->notes - u, "%s\n", line);
}

/* EOPNOTSUPP for variant v: the module's reason. */
static int unavailable(const struct pb_kernel_result *r, uint32_t v)
{
	const char *name = pb_kmod_variant_name(&r->info, v);
	return pb_fail("variant '%s' is not available: %s", name ? name : "?",
	               r->info.variants[v].why[0] ? r->info.variants[v].why : "the module says so");
}

/* "failed its correctness check: byte at offset N of a 4 KiB page" */
static int check_failed(const struct pb_kernel_result *r, uint32_t v, uint32_t order, int64_t off)
{
	const char *name = pb_kmod_variant_name(&r->info, v);
	if (off < 0)
		return pb_fail("variant '%s' failed its correctness check: the guard byte %lld "
		               "bytes before a %s page was written",
		               name, (long long)-off, order_text(order));
	if (off >= (int64_t)(4096u << order))
		return pb_fail("variant '%s' failed its correctness check: the guard byte at "
		               "offset %lld after a %s page was written",
		               name, (long long)off, order_text(order));
	return pb_fail("variant '%s' failed its correctness check: byte at offset %lld of a %s "
	               "page not zero",
	               name, (long long)off, order_text(order));
}

static void skip_case(struct pb_kernel_case *c, const char *why)
{
	c->skipped = true;
	snprintf(c->skip_reason, sizeof c->skip_reason, "%s", why);
}

#define NO_HUGE_PAGE "no 2 MiB page: the module could not allocate 512 contiguous pages"

int pb_kernel_check(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                    struct pb_kernel_result *r)
{
	if (!p->n_variants || !p->n_orders || !p->n_states)
		return pb_fail("nothing selected: variants, page sizes and cache states");
	r->device = dev->path;
	r->cases = calloc(p->n_variants * p->n_orders * p->n_states, sizeof *r->cases);
	if (!r->cases)
		return pb_fail("out of memory");
	for (size_t v = 0; v < p->n_variants; v++)
		for (size_t o = 0; o < p->n_orders; o++)
			for (size_t s = 0; s < p->n_states; s++) {
				struct pb_kernel_case *c = &r->cases[r->n_cases++];
				c->variant = p->variants[v];
				const char *name = pb_kmod_variant_name(&r->info, c->variant);
				snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
				c->page_order = p->orders[o];
				c->page_bytes = 4096u << p->orders[o];
				c->state = p->states[s];
				c->irqs_off = p->irqs_off;
			}
	for (size_t v = 0; v < p->n_variants; v++)
		for (size_t o = 0; o < p->n_orders; o++) {
			if (p->stop && *p->stop) {
				r->interrupted = true;
				return 0;
			}
			struct pb_kmod_check io = {.variant = p->variants[v],
			                           .page_order = p->orders[o]};
			struct pb_kernel_check *k = &r->checks[r->n_checks++];
			*k = (struct pb_kernel_check){.variant = io.variant,
			                              .page_order = io.page_order,
			                              .bad_offset_bytes = -1};
			const char *name = pb_kmod_variant_name(&r->info, io.variant);
			if (dev->ops->check(dev->ctx, dev->fd, &io) == 0) {
				k->ok = true;
				continue;
			}
			int e = errno;
			switch (e) {
			case EIO:
				k->bad_offset_bytes = io.bad_offset_bytes;
				return check_failed(r, io.variant, io.page_order,
				                    io.bad_offset_bytes);
			case EOPNOTSUPP:
				return unavailable(r, io.variant);
			case ENOMEM:
				k->no_memory = true;
				for (size_t i = 0; i < r->n_cases; i++)
					if (r->cases[i].variant == io.variant &&
					    r->cases[i].page_order == io.page_order)
						skip_case(&r->cases[i], io.page_order
						                            ? NO_HUGE_PAGE
						                            : "out of memory");
				pb_kernel_note(r, "%s, %s pages: not checked nor timed: %s", name,
				               order_text(io.page_order),
				               io.page_order ? NO_HUGE_PAGE : "out of memory");
				continue;
			case EINTR:
				r->n_checks--;
				r->interrupted = true;
				return 0;
			default:
				return pb_fail("PB_KMOD_IOC_CHECK of '%s', %s page: %s", name,
				               order_text(io.page_order), strerror(e));
			}
		}
	return 0;
}

/* ---- the timing ---------------------------------------------------------- */

/* The harness's context: the live cases of one replicate. */
struct run {
	struct pb_kmod_dev *dev;
	struct pb_kernel_result *r;
	struct pb_kernel_case **live; /* [n] */
	bool *dead;                   /* [n]: ENOMEM mid-run, nothing more asked */
	volatile sig_atomic_t *stop;
	uint32_t flags;
	bool probing; /* the untimed probe: ENOMEM skips the case (noted there) */
	int err;      /* the errno that ended the run with -1 */
};

/* One TIME request: batches 1, `calls` pages (with one batch the module's
 * cpu_changed cannot be set: the harness's CPU queries around the request
 * catch a migration, as for every suite). Returns 0 with *ticks and *io
 * filled, 1 when nothing was timed and the run is to go on (ENOMEM marks
 * the case dead), 2 when a signal or the deadline
 * stopped it (*ticks set when its batch was done: *done), or -1 with
 * pb_error(). */
static int time_once(struct run *x, size_t i, size_t calls, double *ticks, bool *done)
{
	struct pb_kernel_case *c = x->live[i];
	uint64_t t = 0;
	struct pb_kmod_time io = {.variant = c->variant,
	                          .page_order = c->page_order,
	                          .state = c->state,
	                          .calls = (uint32_t)calls,
	                          .batches = 1,
	                          .flags = x->flags,
	                          .ticks_ptr = (uint64_t)(uintptr_t)&t};
	*done = false;
	int rc = x->dev->ops->time(x->dev->ctx, x->dev->fd, &io);
	int e = errno;
	if (rc == 0 || ((e == EINTR || e == ETIME) && io.batches_done == 1)) {
		*done = true;
		*ticks = (double)t;
		/* overhead_ticks is 0 when the module timed no empty batch; only
		 * the probe sets it (the least it saw), so that every sample of
		 * the run has the same figure subtracted */
		if (x->probing && io.overhead_ticks &&
		    (x->r->overhead_ticks == 0 || (double)io.overhead_ticks < x->r->overhead_ticks))
			x->r->overhead_ticks = (double)io.overhead_ticks;
	}
	if (rc == 0)
		return 0;
	x->err = e;
	switch (e) {
	case EINTR:
	case ETIME:
		if (e == ETIME)
			pb_kernel_note(
			    x->r,
			    "a request outlasted the module's %u ms (ETIME): the run ended "
			    "there",
			    x->r->info.max_request_ms);
		x->r->interrupted = true;
		*x->stop = 1;
		return 2;
	case ENOMEM:
		if (!x->dead[i] && !x->probing)
			pb_kernel_note(
			    x->r,
			    "%s, %s, %s: stopped early: the module could not allocate its "
			    "pages (ENOMEM)",
			    c->name, order_text(c->page_order), pb_kmod_state_name(c->state));
		x->dead[i] = true;
		return 1;
	case EIO:
		return pb_fail("variant '%s' failed its correctness check (TIME, %s page, %s)",
		               c->name, order_text(c->page_order), pb_kmod_state_name(c->state));
	case EOPNOTSUPP:
		return unavailable(x->r, c->variant);
	default:
		return pb_fail("PB_KMOD_IOC_TIME of '%s' (%s page, %s, %zu calls): %s", c->name,
		               order_text(c->page_order), pb_kmod_state_name(c->state), calls,
		               strerror(e));
	}
}

/* The batch callback: one request of k pages of live case i. */
static int run_batch(void *ctx, size_t i, unsigned thread, size_t k, enum pb_harness_phase phase,
                     struct pb_harness_batch *out)
{
	struct run *x = ctx;
	(void)thread;
	(void)phase;
	if (x->dead[i] || *x->stop)
		return 1;
	double ticks = 0;
	bool done;
	int rc = time_once(x, i, k, &ticks, &done);
	if (rc < 0)
		return -1;
	if (!done)
		return 1;
	out->ticks = ticks;
	return 0;
}

/* An untimed request of one page of each live case before the rounds:
 * the module's overhead, and the cases that cannot get their pages.
 * Returns 0 or -1 with pb_error(). */
static int probe(struct run *x, size_t n)
{
	for (size_t i = 0; i < n && !*x->stop; i++) {
		double t;
		bool done;
		if (time_once(x, i, 1, &t, &done) < 0)
			return -1;
	}
	return 0;
}

static int cpu_default(void)
{
	return sched_getcpu();
}

/* One replicate of r's cases that are not skipped: samples into one (its
 * cases, a copy of r's keys). */
static int run_one(struct pb_kmod_dev *dev, const struct pb_kernel_params *p, uint64_t seed,
                   struct pb_kernel_result *r, struct pb_kernel_case *one)
{
	volatile sig_atomic_t local_stop = 0;
	struct run x = {.dev = dev,
	                .r = r,
	                .stop = p->stop ? p->stop : &local_stop,
	                .flags = p->irqs_off ? PB_KT_IRQS_OFF : 0};
	size_t n = 0;
	x.live = calloc(r->n_cases ? r->n_cases : 1, sizeof *x.live);
	x.dead = calloc(r->n_cases ? r->n_cases : 1, sizeof *x.dead);
	struct pb_harness_contender *hc = calloc(r->n_cases ? r->n_cases : 1, sizeof *hc);
	size_t *where = calloc(r->n_cases ? r->n_cases : 1, sizeof *where);
	int rc = -1;
	if (!x.live || !x.dead || !hc || !where) {
		pb_fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_cases; i++) {
		if (r->cases[i].skipped)
			continue;
		uint32_t max = r->info.max_calls_bytes >> (12 + r->cases[i].page_order);
		hc[n] = (struct pb_harness_contender){.max_k = max ? max : 1};
		where[n] = i;
		x.live[n++] = &r->cases[i];
	}
	/* the first replicate's probe fixes the overhead for the whole run */
	double overhead_before = r->overhead_ticks;
	x.probing = true;
	if (probe(&x, n) != 0)
		goto out;
	x.probing = false;
	if (overhead_before > 0)
		r->overhead_ticks = overhead_before;
	/* ENOMEM in the probe: a skipped case with its note, not a short one */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (x.dead[i] && x.live[i]->n_samples) {
			/* measured in an earlier replicate: kept, with fewer */
			struct pb_kernel_case *c = x.live[i];
			pb_kernel_note(
			    r,
			    "%s, %s, %s: fewer replicates: the module could not allocate its "
			    "pages (ENOMEM)",
			    c->name, order_text(c->page_order), pb_kmod_state_name(c->state));
			continue;
		}
		if (x.dead[i]) {
			struct pb_kernel_case *c = x.live[i];
			skip_case(c, c->page_order
			                 ? NO_HUGE_PAGE
			                 : "the module could not allocate its pages (ENOMEM)");
			pb_kernel_note(r, "%s, %s pages, %s: not timed: %s", c->name,
			               order_text(c->page_order), pb_kmod_state_name(c->state),
			               c->skip_reason);
			continue;
		}
		hc[m] = hc[i];
		where[m] = where[i];
		x.live[m++] = x.live[i];
	}
	n = m;
	memset(x.dead, 0, n * sizeof *x.dead);
	if (*x.stop) {
		rc = 0;
		goto out;
	}
	double target = p->target_ticks;
	if (target <= 0)
		target = r->info.tsc_khz ? (double)r->info.tsc_khz / 20.0 : 100000.0; /* 50 us */
	uint64_t rng = pb_seed_or_default(seed);
	struct pb_harness_params hp = {
	    .n_contenders = n,
	    .contenders = hc,
	    .time_batch = run_batch,
	    .ctx = &x,
	    .warmup_samples = p->warmup_samples,
	    .min_samples = p->min_samples,
	    .max_samples = p->max_samples,
	    .budget_s = p->budget_s,
	    .stop = x.stop,
	    .stop_check = PB_HARNESS_STOP_EACH_SAMPLE,
	    .rng = &rng,
	    .overhead_ticks = r->overhead_ticks,
	    .target_ticks = target,
	    .cpu_now = p->cpu_now ? p->cpu_now : cpu_default,
	};
	struct pb_harness_result hr;
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if (pb_harness_run(&hp, &hr) != 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct pb_kernel_case *c = &one[where[i]];
		struct pb_harness_samples *h = &hr.c[i];
		c->batch_ticks = h->ticks;
		c->batch_calls = h->calls;
		h->ticks = NULL;
		h->calls = NULL;
		c->n_samples = h->n_samples;
		c->migrations = (unsigned)h->migrations;
		c->ticks_per_call = h->per_call;
		c->outliers = h->outliers;
	}
	if (hr.interrupted)
		r->interrupted = true;
	pb_harness_result_free(&hr);
	rc = 0;
out:
	free(x.live);
	free(x.dead);
	free(hc);
	free(where);
	return rc;
}

static void cases_free(struct pb_kernel_case *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].batch_ticks);
		free(c[i].batch_calls);
		free(c[i].replicate_samples);
		c[i].batch_ticks = NULL;
		c[i].batch_calls = NULL;
		c[i].replicate_samples = NULL;
	}
}

int pb_kernel_run_replicates(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                             size_t replicates, struct pb_kernel_result *r)
{
	if (p->min_samples < 1 || p->max_samples < p->min_samples)
		return pb_fail("bad sample counts: min %zu, max %zu", p->min_samples,
		               p->max_samples);
	size_t reps = replicates ? replicates : 1;
	struct pb_kernel_params kp = *p;
	kp.budget_s = p->budget_s / (double)reps;
	size_t per = p->max_samples / reps; /* their sum stays within max_samples */
	kp.max_samples = per > p->min_samples ? per : p->min_samples;
	struct pb_kernel_case *one = calloc(r->n_cases ? r->n_cases : 1, sizeof *one);
	if (!one)
		return pb_fail("out of memory");
	int rc = 0;
	for (size_t rep = 0; rep < reps && rc == 0; rep++) {
		if (r->interrupted || (p->stop && *p->stop))
			break;
		memset(one, 0, r->n_cases * sizeof *one);
		rc = run_one(dev, &kp, pb_replicate_seed(p->seed, rep), r, one);
		for (size_t i = 0; i < r->n_cases && rc == 0; i++) {
			struct pb_kernel_case *c = &r->cases[i], *o = &one[i];
			if (c->skipped)
				continue;
			if (pb_replicate_join(&c->batch_ticks, &c->batch_calls, c->n_samples,
			                      &c->replicate_samples, &c->n_replicates,
			                      o->batch_ticks, o->batch_calls, o->n_samples) != 0) {
				rc = -1;
				break;
			}
			c->n_samples += o->n_samples;
			c->outliers += o->outliers;
			c->migrations += o->migrations;
			if (reps == 1)
				c->ticks_per_call = o->ticks_per_call;
		}
		cases_free(one, r->n_cases);
	}
	free(one);
	if (rc != 0)
		return -1;
	for (size_t i = 0; i < r->n_cases; i++) {
		struct pb_kernel_case *c = &r->cases[i];
		if (c->n_samples == 0 || reps == 1)
			continue;
		if (pb_summarize_batch_replicates(c->batch_ticks, c->batch_calls, c->n_samples,
		                                  c->replicate_samples, c->n_replicates, 0.95,
		                                  &c->ticks_per_call) != 0)
			return -1;
	}
	return 0;
}
