/* libc_rows.c - the catalogue's `libc` rows inside libprimswitch.so, in
 * place of src/kernels/libc.c: that file calls memset by name, which here
 * is this library's own memset. These call the functions dlsym(RTLD_NEXT)
 * found (init.c), and the bootstrap kernels until those are known. A
 * policy that is `libc` alone skips these: its entry is libc's function.
 */
#include "kernels/generic/protos.h"
#include "preload.h"

/* After protos.h: the rows become prototypes. */
#include "kernels/generic/generic_rows.h"

void *pb_memset_libc(void *dst, int c, size_t n)
{
	pb_memset_fn f = __atomic_load_n(&pb_sw_libc.memset, __ATOMIC_ACQUIRE);
	return f ? f(dst, c, n) : pb_boot_memset(dst, c, n);
}

void *pb_memcpy_libc(void *restrict dst, const void *restrict src, size_t n)
{
	pb_memcpy_fn f = __atomic_load_n(&pb_sw_libc.memcpy, __ATOMIC_ACQUIRE);
	return f ? f(dst, src, n) : pb_boot_memcpy(dst, src, n);
}

void *pb_memmove_libc(void *dst, const void *src, size_t n)
{
	pb_memmove_fn f = __atomic_load_n(&pb_sw_libc.memmove, __ATOMIC_ACQUIRE);
	return f ? f(dst, src, n) : pb_boot_memmove(dst, src, n);
}
