/* counter.h (arm64) - one addition to a counter of the accounting file.
 *
 * Always an atomic add, threads or not. AArch64 is a load/store
 * architecture: no instruction adds to memory except the atomics, so the
 * cheap single-thread path of x86 (one add to memory, which a signal
 * handler cannot split) has no equivalent; a plain load, add and store
 * would lose a count to a handler that interrupts it. The relaxed
 * __atomic_fetch_add whose result is unused becomes STADD with FEAT_LSE
 * (Arm ARM C6.2 "STADD, STADDL": one instruction, no ordering) and an
 * LDXR/STXR loop without it; GCC's default -moutline-atomics chooses
 * between the two at run time (libgcc's __aarch64_ldadd8_relax, which
 * reads HWCAP_ATOMICS from a constructor and uses the LDXR/STXR loop until
 * then). That is the generic file's add: it is included here. account.c
 * only.
 */
#include "../none/counter.h"
