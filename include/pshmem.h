/*
 * fabshmem: the OpenSHMEM 1.6 profiling interface.
 *
 * Every shmem_ routine of shmem.h is also reachable as pshmem_ (the same
 * parameters): the library implements pshmem_x and exports shmem_x as a
 * weak alias of it, so a tool may define its own shmem_x and call pshmem_x
 * from it.  The C11 type-generic forms have no pshmem_ counterpart.
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEMI_FN(ret, name, args) SHMEM_API SHMEMI_FN_ATTR(name) ret pshmem_##name args;
#include <fabshmem/api_core.def>
SHMEMI_RMA_TYPES(SHMEMI_RMA_TYPED_FNS)
SHMEMI_RMA_SIZES(SHMEMI_RMA_SIZED_FNS)
SHMEMI_API_AMO_FNS
SHMEMI_API_SYNC_FNS
SHMEMI_API_TEAM_FNS
SHMEMI_API_CTX_FNS
SHMEMI_API_COLL_FNS
SHMEMI_API_REDUCE_FNS
#undef SHMEMI_FN

#ifdef __cplusplus
}

/* GNU C++: the overloads on C's _Complex types, as in shmem.h. */
#ifdef SHMEMI_API_REDUCE_COMPLEX_GNU_FNS
#define SHMEMI_FN(ret, name, args) \
    SHMEM_API ret pshmem_##name args SHMEMI_CXX_SYMBOL(pshmem_##name);
SHMEMI_API_REDUCE_COMPLEX_GNU_FNS
#undef SHMEMI_FN
#endif
#endif
#endif
