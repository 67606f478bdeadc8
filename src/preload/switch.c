/* switch.c - the exported functions of libprimswitch.so, the entries they
 * call, and the state word (docs/preload.md).
 *
 * Each exported function is one load of its primitive's entry and one
 * call. Before the library is ready the entry is that primitive's cold
 * function: it makes the library ready (the first call of the process
 * may come before the constructor: another library's constructor) or,
 * while initialisation runs (in another thread, or further up this
 * thread's stack: dlsym and the policy parser call memcpy too, and land
 * here), serves the call with the bootstrap kernel. Nothing here locks,
 * allocates or calls the function it replaces.
 *
 * The _chk forms check as glibc's debug/memcpy_chk.c and friends do
 * (dstlen < len: __chk_fail(), which prints "*** buffer overflow detected
 * ***: terminated" and aborts), then do what their plain form does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preload.h"

/* The replaced symbols without a declaration in the headers (glibc
 * declares them only as compiler builtins). */
PB_EXPORT void *__memset_chk(void *dst, int c, size_t n, size_t dstlen);
PB_EXPORT void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen);
PB_EXPORT void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen);
PB_EXPORT void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n,
                              size_t dstlen);
PB_EXPORT void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);

#ifdef __GLIBC__
/* glibc's (debug/chk_fail.c, exported since GLIBC_2.3.4). */
extern void __chk_fail(void) __attribute__((noreturn));
#define CHK_FAIL() __chk_fail()
#else
#define CHK_FAIL() abort()
#endif

/* The _FORTIFY_SOURCE check of the __*_chk entry points: writing n bytes
 * into a destination of dstlen bytes fails as glibc's own do. */
static inline void check_len(size_t n, size_t dstlen)
{
	if (__builtin_expect(dstlen < n, 0))
		CHK_FAIL();
}

struct pb_sw_impl pb_sw_impl;
struct pb_policy pb_sw_policy[PB_OP_COUNT];
uint64_t pb_sw_boot_calls;

static int state = PB_SW_UNINIT;

/* ---- cold functions: not ready yet -------------------------------------- */

static struct pb_sw_entries entry;

#define LOAD(field) __atomic_load_n(&entry.field, __ATOMIC_ACQUIRE)

static void boot_counted(void)
{
	__atomic_fetch_add(&pb_sw_boot_calls, 1, __ATOMIC_RELAXED);
}

static void *memset_cold(void *dst, int c, size_t n)
{
	if (pb_sw_ready(PB_ACCT_MEMSET))
		return LOAD(memset)(dst, c, n);
	boot_counted();
	return pb_boot_memset(dst, c, n);
}

static void *bzero_cold(void *dst, int c, size_t n)
{
	if (pb_sw_ready(PB_ACCT_BZERO))
		return LOAD(bzero)(dst, c, n);
	boot_counted();
	return pb_boot_memset(dst, c, n);
}

static void *explicit_bzero_cold(void *dst, int c, size_t n)
{
	if (pb_sw_ready(PB_ACCT_EXPLICIT_BZERO))
		return LOAD(explicit_bzero)(dst, c, n);
	boot_counted();
	return pb_boot_memset(dst, c, n);
}

static void *memcpy_cold(void *restrict dst, const void *restrict src, size_t n)
{
	if (pb_sw_ready(PB_ACCT_MEMCPY))
		return LOAD(memcpy)(dst, src, n);
	boot_counted();
	return pb_boot_memcpy(dst, src, n);
}

static void *mempcpy_cold(void *restrict dst, const void *restrict src, size_t n)
{
	if (pb_sw_ready(PB_ACCT_MEMPCPY))
		return LOAD(mempcpy)(dst, src, n);
	boot_counted();
	return pb_boot_memcpy(dst, src, n);
}

static void *memmove_cold(void *dst, const void *src, size_t n)
{
	if (pb_sw_ready(PB_ACCT_MEMMOVE))
		return LOAD(memmove)(dst, src, n);
	boot_counted();
	return pb_boot_memmove(dst, src, n);
}

static struct pb_sw_entries entry = PB_SW_ENTRIES(cold);

/* ---- initialisation and publication -------------------------------------- */

bool pb_sw_ready(enum pb_acct_prim who)
{
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
	if (s == PB_SW_READY)
		return true;
	if (s != PB_SW_UNINIT)
		return false;
	int expected = PB_SW_UNINIT;
	if (!__atomic_compare_exchange_n(&state, &expected, PB_SW_INITIALISING, false,
	                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return expected == PB_SW_READY;
	int saved_errno = errno;
	pb_sw_publish(pb_sw_init(who));
	__atomic_store_n(&state, PB_SW_READY, __ATOMIC_RELEASE);
	errno = saved_errno;
	return true;
}

void pb_sw_publish(const struct pb_sw_entries *e)
{
	struct pb_sw_entries plain = {
	    .memset = pb_sw_impl.set,
	    .bzero = pb_sw_impl.set,
	    .explicit_bzero = pb_sw_impl.set,
	    .memcpy = pb_sw_impl.cpy,
	    .mempcpy = pb_sw_impl.cpy,
	    .memmove = pb_sw_impl.move,
	};
	if (!e)
		e = &plain;
	__atomic_store_n(&entry.memset, e->memset, __ATOMIC_RELEASE);
	__atomic_store_n(&entry.bzero, e->bzero, __ATOMIC_RELEASE);
	__atomic_store_n(&entry.explicit_bzero, e->explicit_bzero, __ATOMIC_RELEASE);
	__atomic_store_n(&entry.memcpy, e->memcpy, __ATOMIC_RELEASE);
	__atomic_store_n(&entry.mempcpy, e->mempcpy, __ATOMIC_RELEASE);
	__atomic_store_n(&entry.memmove, e->memmove, __ATOMIC_RELEASE);
}

/* ---- banded policies: the kernel of the call's size band ------------------ */

void *pb_sw_set_banded(void *dst, int c, size_t n)
{
	return pb_policy_pick(&pb_sw_policy[PB_OP_MEMSET], n)->memset_fn(dst, c, n);
}

void *pb_sw_cpy_banded(void *restrict dst, const void *restrict src, size_t n)
{
	return pb_policy_pick(&pb_sw_policy[PB_OP_MEMCPY], n)->memcpy_fn(dst, src, n);
}

void *pb_sw_move_banded(void *dst, const void *src, size_t n)
{
	return pb_policy_pick(&pb_sw_policy[PB_OP_MEMMOVE], n)->memmove_fn(dst, src, n);
}

/* ---- the exported functions ------------------------------------------------ */

PB_EXPORT void *memset(void *dst, int c, size_t n)
{
	return LOAD(memset)(dst, c, n);
}

PB_EXPORT void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return LOAD(memcpy)(dst, src, n);
}

PB_EXPORT void *memmove(void *dst, const void *src, size_t n)
{
	return LOAD(memmove)(dst, src, n);
}

PB_EXPORT void *mempcpy(void *restrict dst, const void *restrict src, size_t n)
{
	return (char *)LOAD(mempcpy)(dst, src, n) + n;
}

PB_EXPORT void bzero(void *dst, size_t n)
{
	LOAD(bzero)(dst, 0, n);
}

/* The store must not be dropped as dead (the point of explicit_bzero): the
 * call through a pointer already hides it from the caller's compiler, and
 * the barrier, as in glibc's string/explicit_bzero.c, keeps it so under
 * link-time optimisation too. */
PB_EXPORT void explicit_bzero(void *dst, size_t n)
{
	LOAD(explicit_bzero)(dst, 0, n);
	__asm__ volatile("" ::"r"(dst) : "memory");
}

PB_EXPORT void *__memset_chk(void *dst, int c, size_t n, size_t dstlen)
{
	check_len(n, dstlen);
	return LOAD(memset)(dst, c, n);
}

PB_EXPORT void *__memcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
	check_len(n, dstlen);
	return LOAD(memcpy)(dst, src, n);
}

PB_EXPORT void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen)
{
	check_len(n, dstlen);
	return LOAD(memmove)(dst, src, n);
}

PB_EXPORT void *__mempcpy_chk(void *restrict dst, const void *restrict src, size_t n, size_t dstlen)
{
	check_len(n, dstlen);
	return (char *)LOAD(mempcpy)(dst, src, n) + n;
}

PB_EXPORT void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen)
{
	check_len(n, dstlen);
	LOAD(explicit_bzero)(dst, 0, n);
	__asm__ volatile("" ::"r"(dst) : "memory");
}
