/* kernel.c - the kernel suite: clear_page, copy_page, fpu and user_copy
 * variants timed by primbench's module through /dev/primbench (include/primbench/kernel_suite.h;
 * the interface: include/primbench/kmod_abi.h). This file only asks: the module allocates, flushes,
 * disables preemption and reads the TSC (kmod/primbench_kmod.c); the harness (harness.h) decides
 * what to ask for and when. Only the fpu op's CALL variants are timed here, from user space, as
 * their meaning asks (the cost of an ioctl as its caller sees it). Builds on every architecture
 * (the ioctl numbers come from <linux/ioctl.h>); the command refuses to run off x86-64. */
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
#include <sys/mman.h>
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

static int dev_call(void *ctx, int fd, uint32_t variant)
{
	(void)ctx;
	return ioctl(fd, PB_KMOD_IOC_CALL, (unsigned long)variant) < 0 ? -1 : 0;
}

static const struct pb_kmod_ops device_ops = {dev_open,  dev_close, dev_info,
                                              dev_check, dev_time,  dev_call};

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
	bool ops_ok = info->n_ops >= 1 && info->n_ops <= PB_KOP_COUNT;
	for (uint32_t i = 0; ops_ok && i < info->n_variants && i < PB_KMOD_MAX_VARIANTS; i++)
		ops_ok = info->variants[i].op < info->n_ops;
	/* a 2 MiB page is one call's bytes: max_calls_bytes must hold it */
	if (info->n_variants > PB_KMOD_MAX_VARIANTS || !ops_ok || info->page_bytes != 4096 ||
	    info->huge_page_bytes != 4096u << PB_KMOD_ORDER_2M || info->max_batches < 1 ||
	    info->max_calls_bytes < info->huge_page_bytes || info->max_user_bytes < 4096 ||
	    info->max_user_bytes > (1ull << 30)) {
		pb_kmod_close(dev);
		return pb_fail("the module at %s gave a bad INFO (%u variants of %u ops, pages of "
		               "%u and %u bytes, at most %u batches, %u bytes of pages and %llu "
		               "user bytes a request)",
		               path, info->n_variants, info->n_ops, info->page_bytes,
		               info->huge_page_bytes, info->max_batches, info->max_calls_bytes,
		               (unsigned long long)info->max_user_bytes);
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

int pb_kmod_variant_find(const struct pb_kmod_info *info, uint32_t op, const char *name)
{
	for (uint32_t i = 0; i < info->n_variants; i++)
		if (info->variants[i].op == op && !strcmp(info->variants[i].name, name))
			return (int)i;
	return -1;
}

size_t pb_kmod_available_variants(const struct pb_kmod_info *info, uint32_t ops, uint32_t *out)
{
	size_t n = 0;
	for (uint32_t i = 0; i < info->n_variants; i++)
		if ((info->variants[i].flags & PB_KVF_AVAILABLE) &&
		    (ops & PB_KOP_BIT(info->variants[i].op)))
			out[n++] = i;
	return n;
}

bool pb_kmod_list_has_empty_item(const char *list)
{
	size_t n = strlen(list);
	if (strspn(list, ",") == n)
		return false; /* no item at all: the callers' "empty list" */
	return list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,");
}

uint32_t pb_kmod_parse_ops(const struct pb_kmod_info *info, const char *list)
{
	if (pb_kmod_list_has_empty_item(list))
		return pb_fail("bad op list '%s': empty item", list), 0;
	char *copy = strdup(list);
	if (!copy)
		return pb_fail("out of memory"), 0;
	uint32_t ops = 0;
	int rc = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		uint32_t bits = 0;
		if (!strcmp(w, "all")) {
			for (uint32_t o = 0; o < PB_KOP_COUNT; o++) {
				bool has = !info;
				for (uint32_t i = 0; info && i < info->n_variants && !has; i++)
					has = info->variants[i].op == o;
				if (has)
					bits |= PB_KOP_BIT(o);
			}
		} else {
			for (uint32_t o = 0; o < PB_KOP_COUNT; o++)
				if (!strcmp(w, pb_kmod_op_name(o)))
					bits = PB_KOP_BIT(o);
			if (!bits) {
				rc = pb_fail(
				    "unknown op '%s' (clear_page, copy_page, fpu, user_copy "
				    "or all)",
				    w);
				break;
			}
		}
		if (ops & bits && strcmp(w, "all")) {
			rc = pb_fail("op '%s' twice", w);
			break;
		}
		ops |= bits;
	}
	free(copy);
	if (rc)
		return 0;
	if (!ops)
		return pb_fail("empty op list (clear_page, copy_page, fpu, user_copy or all)"), 0;
	for (uint32_t o = 0; info && o < PB_KOP_COUNT; o++) {
		bool has = false;
		for (uint32_t i = 0; i < info->n_variants && !has; i++)
			has = info->variants[i].op == o;
		if ((ops & PB_KOP_BIT(o)) && !has)
			return pb_fail("the module has no %s variants (ABI %u, module %s)",
			               pb_kmod_op_name(o), info->abi_version, info->module_version),
			       0;
	}
	return ops;
}

/* "unknown variant 'X' (clear_page has: a, b; fpu has: c)" */
static int unknown_variant(const struct pb_kmod_info *info, uint32_t ops, const char *w)
{
	char names[PB_KMOD_MAX_VARIANTS * 34 + 128] = "";
	for (uint32_t o = 0; o < PB_KOP_COUNT; o++) {
		if (!(ops & PB_KOP_BIT(o)))
			continue;
		size_t u = strlen(names);
		snprintf(names + u, sizeof names - u, "%s%s has:", *names ? "; " : "",
		         pb_kmod_op_name(o));
		bool first = true;
		for (uint32_t i = 0; i < info->n_variants; i++) {
			if (info->variants[i].op != o)
				continue;
			u = strlen(names);
			snprintf(names + u, sizeof names - u, "%s %s", first ? "" : ",",
			         info->variants[i].name);
			first = false;
		}
	}
	return pb_fail("unknown variant '%s' (%s)", w, names);
}

int pb_kmod_parse_variants(const struct pb_kmod_info *info, uint32_t ops, const char *list,
                           uint32_t *out)
{
	if (pb_kmod_list_has_empty_item(list))
		return pb_fail("bad --variants '%s': empty item", list);
	char *copy = strdup(list);
	if (!copy)
		return pb_fail("out of memory");
	int n = 0, rc = 0;
	char *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
		int found = 0;
		for (uint32_t o = 0; o < PB_KOP_COUNT && rc == 0; o++) {
			if (!(ops & PB_KOP_BIT(o)))
				continue;
			int v = pb_kmod_variant_find(info, o, w);
			if (v < 0)
				continue;
			found++;
			if (!(info->variants[v].flags & PB_KVF_AVAILABLE)) {
				rc = pb_fail("%s variant '%s' is not available: %s",
				             pb_kmod_op_name(o), w,
				             info->variants[v].why[0] ? info->variants[v].why
				                                      : "the module says so");
				break;
			}
			for (int j = 0; j < n && rc == 0; j++)
				if (out[j] == (uint32_t)v)
					rc = pb_fail("variant '%s' twice", w);
			if (rc == 0 && n < PB_KMOD_MAX_VARIANTS)
				out[n++] = (uint32_t)v;
		}
		if (rc == 0 && !found)
			rc = unknown_variant(info, ops, w);
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

/* "clear_page variant 'X'" of variant v */
static const char *vlabel(const struct pb_kmod_info *info, uint32_t v)
{
	static char buf[80];
	const char *name = pb_kmod_variant_name(info, v);
	const char *op = name ? pb_kmod_op_name(info->variants[v].op) : NULL;
	snprintf(buf, sizeof buf, "%s variant '%s'", op ? op : "?", name ? name : "?");
	return buf;
}

/* EOPNOTSUPP for variant v: the module's reason. */
static int unavailable(const struct pb_kernel_result *r, uint32_t v)
{
	return pb_fail("%s is not available: %s", vlabel(&r->info, v),
	               v < r->info.n_variants && r->info.variants[v].why[0]
	                   ? r->info.variants[v].why
	                   : "the module says so");
}

/* EIO from CHECK: where, in the words of the op. size_bytes: the region
 * (user_copy), else the page's. */
static int check_failed(const struct pb_kernel_result *r, uint32_t v, uint32_t order,
                        uint64_t size_bytes, int64_t off)
{
	const char *who = vlabel(&r->info, v);
	uint32_t op = v < r->info.n_variants ? r->info.variants[v].op : PB_KOP_CLEAR_PAGE;
	char where[64];
	if (op == PB_KOP_USER_COPY)
		snprintf(where, sizeof where, "a region of %llu bytes",
		         (unsigned long long)size_bytes);
	else
		snprintf(where, sizeof where, "a %s page", order_text(order));
	uint64_t len = op == PB_KOP_USER_COPY ? size_bytes : 4096ull << order;
	if (off < 0)
		return pb_fail("%s failed its correctness check: the guard byte %lld bytes before "
		               "%s was written",
		               who, (long long)-off, where);
	if ((uint64_t)off >= len)
		return pb_fail("%s failed its correctness check: the guard byte at offset %lld "
		               "after %s was written",
		               who, (long long)off, where);
	const char *what = op == PB_KOP_CLEAR_PAGE  ? "not zero"
	                   : op == PB_KOP_COPY_PAGE ? "not the source's"
	                                            : "wrong";
	return pb_fail("%s failed its correctness check: byte at offset %lld of %s %s", who,
	               (long long)off, where, what);
}

static void skip_case(struct pb_kernel_case *c, const char *why)
{
	c->skipped = true;
	snprintf(c->skip_reason, sizeof c->skip_reason, "%s", why);
}

#define NO_HUGE_PAGE "no 2 MiB page: the module could not allocate 512 contiguous pages"

static struct pb_kernel_case *new_case(struct pb_kernel_result *r, const struct pb_kernel_params *p,
                                       uint32_t v)
{
	struct pb_kernel_case *c = &r->cases[r->n_cases++];
	c->variant = v;
	c->op = r->info.variants[v].op;
	const char *name = pb_kmod_variant_name(&r->info, v);
	snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
	c->page_order = PB_KMOD_ORDER_4K;
	c->page_bytes = 4096;
	c->state = PB_KS_HOT;
	c->user_timed = r->info.variants[v].flags & PB_KVF_CALL;
	c->irqs_off = p->irqs_off && !c->user_timed;
	return c;
}

/* The cases of p, variant-major. Returns 0 or -1 with pb_error(). */
static int build_cases(const struct pb_kernel_params *p, struct pb_kernel_result *r)
{
	size_t n = 0;
	for (size_t v = 0; v < p->n_variants; v++) {
		if (p->variants[v] >= r->info.n_variants)
			return pb_fail("variant number %u: the module has %u", p->variants[v],
			               r->info.n_variants);
		switch (r->info.variants[p->variants[v]].op) {
		case PB_KOP_CLEAR_PAGE:
		case PB_KOP_COPY_PAGE:
			n += p->n_orders * p->n_states;
			break;
		case PB_KOP_FPU:
			n += p->n_uppers;
			break;
		case PB_KOP_USER_COPY:
			n += p->n_sizes * p->n_states;
			break;
		default:
			return pb_fail("variant '%s' of an unknown op %u",
			               r->info.variants[p->variants[v]].name,
			               r->info.variants[p->variants[v]].op);
		}
	}
	if (!n)
		return pb_fail("nothing selected: variants, page sizes, sizes, upper states and "
		               "cache states");
	r->cases = calloc(n, sizeof *r->cases);
	if (!r->cases)
		return pb_fail("out of memory");
	for (size_t v = 0; v < p->n_variants; v++) {
		uint32_t var = p->variants[v];
		switch (r->info.variants[var].op) {
		case PB_KOP_CLEAR_PAGE:
		case PB_KOP_COPY_PAGE:
			for (size_t o = 0; o < p->n_orders; o++)
				for (size_t s = 0; s < p->n_states; s++) {
					struct pb_kernel_case *c = new_case(r, p, var);
					c->page_order = p->orders[o];
					c->page_bytes = 4096u << p->orders[o];
					c->state = p->states[s];
				}
			break;
		case PB_KOP_FPU:
			for (size_t u = 0; u < p->n_uppers; u++)
				new_case(r, p, var)->upper = p->uppers[u];
			break;
		case PB_KOP_USER_COPY:
			for (size_t z = 0; z < p->n_sizes; z++)
				for (size_t s = 0; s < p->n_states; s++) {
					struct pb_kernel_case *c = new_case(r, p, var);
					c->size_bytes = p->sizes[z];
					c->state = p->states[s];
				}
			break;
		}
	}
	return 0;
}

/* One CHECK into r->checks. Returns 0 (k->ok or k->no_memory), 1 when a
 * signal ended it (nothing recorded), or -1 with pb_error(). */
static int check_one(struct pb_kmod_dev *dev, struct pb_kernel_result *r, uint32_t v,
                     uint32_t order, uint64_t size_bytes)
{
	if (r->n_checks >= PB_KERNEL_MAX_CHECKS)
		return pb_fail("more than %d correctness checks", PB_KERNEL_MAX_CHECKS);
	uint32_t op = r->info.variants[v].op;
	struct pb_kmod_check io = {.variant = v, .page_order = order};
	uint8_t *buf = NULL;
	size_t buf_bytes = 0;
	if (op == PB_KOP_USER_COPY) {
		if (size_bytes < 1 || size_bytes > r->info.max_user_bytes)
			return pb_fail("size %llu: user_copy takes 1 to %llu bytes (the module's "
			               "max_user_bytes)",
			               (unsigned long long)size_bytes,
			               (unsigned long long)r->info.max_user_bytes);
		/* the region where TIME puts its first one, page-aligned (and,
		 * when TIME's flushed regions after it are not line-aligned,
		 * also where its second one starts: offset size_bytes), with
		 * PB_KMOD_GUARD_BYTES of writable room either side: the module
		 * writes and reads the guards itself. The routines take
		 * alignment-dependent paths (heads, tails): check the ones
		 * timed. */
		buf_bytes = ((size_t)size_bytes * 2 + 2 * 4096 + 4095) & ~(size_t)4095;
		buf = mmap(NULL, buf_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		           0);
		if (buf == MAP_FAILED)
			return pb_fail("out of memory (a check of %llu bytes)",
			               (unsigned long long)size_bytes);
		io.user_ptr = (uint64_t)(uintptr_t)(buf + 4096);
		io.bytes = size_bytes;
	}
	struct pb_kernel_check *k = &r->checks[r->n_checks++];
	*k = (struct pb_kernel_check){.variant = v,
	                              .op = op,
	                              .page_order = order,
	                              .size_bytes = op == PB_KOP_USER_COPY ? size_bytes : 0,
	                              .bad_offset_bytes = -1};
	int rc = dev->ops->check(dev->ctx, dev->fd, &io);
	int e = errno;
	if (rc == 0 && buf && size_bytes % 64) {
		io.user_ptr += size_bytes;
		io.bad_offset_bytes = 0;
		rc = dev->ops->check(dev->ctx, dev->fd, &io);
		e = errno;
	}
	if (buf)
		munmap(buf, buf_bytes);
	if (rc == 0) {
		k->ok = true;
		return 0;
	}
	switch (e) {
	case EIO:
		k->bad_offset_bytes = io.bad_offset_bytes;
		return check_failed(r, v, order, size_bytes, io.bad_offset_bytes);
	case EOPNOTSUPP:
		return unavailable(r, v);
	case ENOMEM:
		if (op == PB_KOP_USER_COPY || op == PB_KOP_FPU)
			break;
		k->no_memory = true;
		for (size_t i = 0; i < r->n_cases; i++)
			if (r->cases[i].variant == v && r->cases[i].page_order == order)
				skip_case(&r->cases[i], order ? NO_HUGE_PAGE : "out of memory");
		pb_kernel_note(r, "%s %s, %s pages: not checked nor timed: %s", pb_kmod_op_name(op),
		               pb_kmod_variant_name(&r->info, v), order_text(order),
		               order ? NO_HUGE_PAGE : "out of memory");
		return 0;
	case EINTR:
		r->n_checks--;
		r->interrupted = true;
		return 1;
	default:
		break;
	}
	if (op == PB_KOP_USER_COPY)
		return pb_fail("PB_KMOD_IOC_CHECK of %s, %llu bytes: %s", vlabel(&r->info, v),
		               (unsigned long long)size_bytes, strerror(e));
	return pb_fail("PB_KMOD_IOC_CHECK of %s, %s page: %s", vlabel(&r->info, v),
	               order_text(order), strerror(e));
}

int pb_kernel_check(struct pb_kmod_dev *dev, const struct pb_kernel_params *p,
                    struct pb_kernel_result *r)
{
	r->device = dev->path;
	if (build_cases(p, r) != 0)
		return -1;
	for (size_t v = 0; v < p->n_variants; v++) {
		uint32_t var = p->variants[v], op = r->info.variants[var].op;
		size_t n = op == PB_KOP_FPU ? 1 : op == PB_KOP_USER_COPY ? p->n_sizes : p->n_orders;
		for (size_t j = 0; j < n; j++) {
			if (p->stop && *p->stop) {
				r->interrupted = true;
				return 0;
			}
			int rc = op == PB_KOP_USER_COPY ? check_one(dev, r, var, 0, p->sizes[j])
			         : op == PB_KOP_FPU     ? check_one(dev, r, var, 0, 0)
			                                : check_one(dev, r, var, p->orders[j], 0);
			if (rc < 0)
				return -1;
			if (rc > 0)
				return 0;
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
	bool probing;  /* the untimed probe: ENOMEM skips the case (noted there) */
	int err;       /* the errno that ended the run with -1 */
	uint8_t *ubuf; /* user_copy's user buffer, page-aligned, ubuf_bytes */
	size_t ubuf_bytes;
	void (*set_upper)(uint32_t upper);
	uint64_t (*tsc_now)(void);
};

/* "4 KiB page, hot", "64 bytes, flushed", "dirty upper state" */
static const char *case_text(const struct pb_kernel_case *c)
{
	static char buf[64];
	if (c->op == PB_KOP_FPU)
		snprintf(buf, sizeof buf, "%s upper state", pb_kernel_upper_name(c->upper));
	else if (c->op == PB_KOP_USER_COPY)
		snprintf(buf, sizeof buf, "%llu bytes, %s", (unsigned long long)c->size_bytes,
		         pb_kmod_state_name(c->state));
	else
		snprintf(buf, sizeof buf, "%s page, %s", order_text(c->page_order),
		         pb_kmod_state_name(c->state));
	return buf;
}

/* The calls one request of case c may hold (the ABI's bounds). */
static size_t max_calls(const struct pb_kmod_info *in, const struct pb_kernel_case *c)
{
	uint64_t max = in->max_calls_bytes >> (12 + c->page_order);
	/* user_copy: the module bounds calls by max_calls_bytes >> 12 and
	 * calls * bytes by max_user_bytes in both states (a hot batch too
	 * runs with preemption off: its length is bounded) */
	if (c->op == PB_KOP_USER_COPY && c->size_bytes && in->max_user_bytes / c->size_bytes < max)
		max = in->max_user_bytes / c->size_bytes;
	/* a flushed case's span stays on one side of the module's
	 * direct-mapped limit, so that every sample copies to or from the
	 * same kind of kernel buffer (kmod_abi.h PB_KMOD_USER_DIRECT_BYTES) */
	if (c->op == PB_KOP_USER_COPY && c->state == PB_KS_FLUSHED && c->size_bytes &&
	    c->size_bytes <= PB_KMOD_USER_DIRECT_BYTES &&
	    PB_KMOD_USER_DIRECT_BYTES / c->size_bytes < max)
		max = PB_KMOD_USER_DIRECT_BYTES / c->size_bytes;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	return max ? (size_t)max : 1;
}

/* The user buffer's bytes one request of c with `calls` calls needs. */
static size_t user_bytes(const struct pb_kernel_case *c, size_t calls)
{
	if (c->op != PB_KOP_USER_COPY)
		return 0;
	return (size_t)c->size_bytes * (c->state == PB_KS_FLUSHED ? calls : 1);
}

/* An errno that ends the run: noted, or -1 with pb_error(). Returns 2
 * (stopped), 1 (the case dead, the run goes on) or -1. */
static int request_failed(struct run *x, size_t i, int e, const char *req, size_t calls)
{
	struct pb_kernel_case *c = x->live[i];
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
			pb_kernel_note(x->r,
			               "%s %s, %s: stopped early: the module could not allocate "
			               "its pages (ENOMEM)",
			               pb_kmod_op_name(c->op), c->name, case_text(c));
		x->dead[i] = true;
		return 1;
	case EIO:
		return pb_fail("%s failed its correctness check (TIME, %s)",
		               vlabel(&x->r->info, c->variant), case_text(c));
	case EOPNOTSUPP:
		return unavailable(x->r, c->variant);
	default:
		return pb_fail("%s of %s (%s, %zu calls): %s", req, vlabel(&x->r->info, c->variant),
		               case_text(c), calls, strerror(e));
	}
}

/* One TIME request: batches 1, `calls` calls (with one batch the module's
 * cpu_changed cannot be set: the harness's CPU queries around the request
 * catch a migration, as for every suite). fpu: the upper state set right
 * before it. Returns 0 with *ticks (raw) filled, 1 when nothing was timed
 * and the run is to go on (ENOMEM marks the case dead), 2 when a signal or
 * the deadline stopped it (*ticks set when its batch was done: *done), or
 * -1 with pb_error(). */
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
	if (c->op == PB_KOP_USER_COPY) {
		if (user_bytes(c, calls) > x->ubuf_bytes)
			return pb_fail("internal: a user_copy request of %zu bytes, the buffer %zu",
			               user_bytes(c, calls), x->ubuf_bytes);
		io.user_ptr = (uint64_t)(uintptr_t)x->ubuf;
		io.bytes = c->size_bytes;
	}
	*done = false;
	if (c->op == PB_KOP_FPU)
		x->set_upper(c->upper);
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
	return request_failed(x, i, e, "PB_KMOD_IOC_TIME", calls);
}

/* One sample of a PB_KVF_CALL variant: `calls` PB_KMOD_IOC_CALL ioctls in
 * a loop, the upper state set before each (the save kernel_fpu_begin
 * makes is of the state the task holds at the ioctl), between two reads
 * of the TSC. Nothing subtracted: the setting of the state and the loop
 * are in ioctl_null's figure as in ioctl_fpu's, and their difference is
 * what the break-even uses. Returns as time_once. */
static int call_once(struct run *x, size_t i, size_t calls, double *ticks, bool *done)
{
	struct pb_kernel_case *c = x->live[i];
	const struct pb_kmod_dev *d = x->dev;
	*done = false;
	uint64_t t0 = x->tsc_now();
	for (size_t j = 0; j < calls; j++) {
		x->set_upper(c->upper);
		if (d->ops->call(d->ctx, d->fd, c->variant) != 0)
			return request_failed(x, i, errno, "PB_KMOD_IOC_CALL", calls);
	}
	uint64_t t1 = x->tsc_now();
	*done = true;
	*ticks = t1 > t0 ? (double)(t1 - t0) : 0;
	return 0;
}

/* The batch callback: one request (or CALL loop) of k calls of live
 * case i; the module's overhead subtracted from a TIME's ticks. */
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
	bool user = x->live[i]->user_timed;
	int rc = user ? call_once(x, i, k, &ticks, &done) : time_once(x, i, k, &ticks, &done);
	if (rc < 0)
		return -1;
	if (!done)
		return 1;
	if (!user)
		ticks = ticks > x->r->overhead_ticks ? ticks - x->r->overhead_ticks : 0;
	out->ticks = ticks;
	return 0;
}

/* An untimed request of one call of each live case before the rounds:
 * the module's overhead, and the cases that cannot get their pages.
 * Returns 0 or -1 with pb_error(). */
static int probe(struct run *x, size_t n)
{
	for (size_t i = 0; i < n && !*x->stop; i++) {
		double t;
		bool done;
		int rc = x->live[i]->user_timed ? call_once(x, i, 1, &t, &done)
		                                : time_once(x, i, 1, &t, &done);
		if (rc < 0)
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
                   struct pb_kernel_result *r, struct pb_kernel_case *one, uint8_t *ubuf,
                   size_t ubuf_bytes)
{
	volatile sig_atomic_t local_stop = 0;
	struct run x = {.dev = dev,
	                .r = r,
	                .stop = p->stop ? p->stop : &local_stop,
	                .flags = p->irqs_off ? PB_KT_IRQS_OFF : 0,
	                .ubuf = ubuf,
	                .ubuf_bytes = ubuf_bytes,
	                .set_upper = p->set_upper ? p->set_upper : pb_kernel_set_upper,
	                .tsc_now = p->tsc_now ? p->tsc_now : pb_kernel_tsc_now};
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
		hc[n] = (struct pb_harness_contender){.max_k = max_calls(&r->info, &r->cases[i])};
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
			pb_kernel_note(r,
			               "%s %s, %s: fewer replicates: the module could not allocate "
			               "its pages (ENOMEM)",
			               pb_kmod_op_name(c->op), c->name, case_text(c));
			continue;
		}
		if (x.dead[i]) {
			struct pb_kernel_case *c = x.live[i];
			skip_case(c, c->page_order
			                 ? NO_HUGE_PAGE
			                 : "the module could not allocate its pages (ENOMEM)");
			pb_kernel_note(r, "%s %s, %s: not timed: %s", pb_kmod_op_name(c->op),
			               c->name, case_text(c), c->skip_reason);
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
	    /* run_batch subtracts the module's overhead from TIME's ticks
	     * only: a CALL loop's have nothing to subtract */
	    .overhead_ticks = 0,
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
	/* user_copy's buffer: page-aligned, the largest request's bytes (hot:
	 * one size; flushed: as many sizes as the calibration may ask) */
	size_t ubuf_bytes = 0;
	for (size_t i = 0; i < r->n_cases; i++) {
		size_t b = user_bytes(&r->cases[i], max_calls(&r->info, &r->cases[i]));
		if (!r->cases[i].skipped && b > ubuf_bytes)
			ubuf_bytes = b;
	}
	uint8_t *ubuf = NULL;
	if (ubuf_bytes) {
		void *m = mmap(NULL, ubuf_bytes, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			free(one);
			return pb_fail("cannot map user_copy's buffer of %zu bytes: %s", ubuf_bytes,
			               strerror(errno));
		}
		ubuf = m;
	}
	int rc = 0;
	for (size_t rep = 0; rep < reps && rc == 0; rep++) {
		if (r->interrupted || (p->stop && *p->stop))
			break;
		memset(one, 0, r->n_cases * sizeof *one);
		rc = run_one(dev, &kp, pb_replicate_seed(p->seed, rep), r, one, ubuf, ubuf_bytes);
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
	if (ubuf)
		munmap(ubuf, ubuf_bytes);
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
