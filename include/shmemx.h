/*
 * fabshmem: extensions to OpenSHMEM (the NVSHMEM programming model over
 * libfabric).  Everything here is named shmemx_ / SHMEMX_.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this library (not of the specification). */
SHMEM_API void shmemx_vendor_get_version_info(int *major, int *minor, int *patch);

#include <fabshmem/shmemx_error.h>
#include <fabshmem/shmemx_init.h>
#include <fabshmem/shmemx_team.h>
#include <fabshmem/shmemx_coll.h>
#include <fabshmem/shmemx_stream.h>
#include <fabshmem/shmemx_mem.h>
#include <fabshmem/shmemx_device.h>

/* Updates the signal word sig_addr on pe with signal: sig_op is
 * SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD (NVSHMEM's nvshmemx_signal_op). */
SHMEM_API void shmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#ifdef __cplusplus
}

/* GNU C++: reduce-scatter on C's _Complex types (shmemx_coll.h). */
#ifdef SHMEMI_API_REDUCESCATTER_COMPLEX_GNU_FNS
#define SHMEMI_XFN(ret, name, args) \
    SHMEM_API ret shmemx_##name args SHMEMI_CXX_SYMBOL(shmemx_##name);
SHMEMI_API_REDUCESCATTER_COMPLEX_GNU_FNS
#undef SHMEMI_XFN
#endif
#endif
#endif
