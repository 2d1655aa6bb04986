/*
 * fabshmem's device API: OpenSHMEM communication started by CUDA kernels
 * (docs/device.md).  Include it in .cu files (or NVRTC sources) after
 * <shmem.h>; build with `oshnvcc` (nvcc -rdc=true with the device library
 * libfabshmem_device.a), or whole-program with shmemx_device_load(), or
 * through fabshmem.core.device for CuPy.
 *
 * The names are the OpenSHMEM routines' with the prefix shmemd_
 * (shmemd_int_p, shmemd_putmem_block, shmemd_barrier_all): the host API is
 * C, declared for C compilers, and a __device__ function cannot share a
 * name and signature with a host one in CUDA C++; one prefix keeps both
 * callable from one file and makes a kernel's communication plain in
 * review.  Teams are shmemd_team_t slots: SHMEMD_TEAM_WORLD,
 * SHMEMD_TEAM_SHARED, SHMEMD_TEAM_NODE, or shmemx_team_device(team).
 *
 * It reaches the PEs this GPU maps (SHMEM_TEAM_SHARED: the same GPU, or
 * GPUs joined by NVLink or PCIe peer access) through the mapping, and the
 * others through the host's proxy thread (device/proxy.cuh).  Without a
 * proxy (FABSHMEM_PROXY=0) a routine aimed at such a PE does nothing and
 * records the error, which the host reports at its next check
 * (shmemx_device_check, shmem_barrier_all, shmem_quiet,
 * shmemx_stream_sync, shmem_finalize) naming the routine and the PE.
 */
#ifndef FABSHMEM_SHMEM_DEVICE_CUH
#define FABSHMEM_SHMEM_DEVICE_CUH

#include <fabshmem/device/base.cuh>
#include <fabshmem/device/rma.cuh>
#include <fabshmem/device/amo.cuh>
#include <fabshmem/device/sync.cuh>
#include <fabshmem/device/coll.cuh>

#ifndef __CUDACC_RTC__
#include <shmem.h>
#include <fabshmem/shmemx_device.h>
#include <cuda_runtime.h>

/* Fills this file's state (shmemd_state_c) from the host library's, after
 * shmem_init.  Needed only for files compiled whole (nvcc without -rdc):
 * with the device library the state of the program is filled by itself.
 * 0, or the error of shmemx_device_state or of the CUDA runtime (-1). */
static inline int shmemx_device_load(void)
{
    shmemd_state_t s;
    int rc = shmemx_device_state(&s, sizeof(s));
    if (rc)
        return rc;
    return cudaMemcpyToSymbol(shmemd_state_c, &s, sizeof(s)) == cudaSuccess ? 0 : -1;
}

/* Launches func as a cooperative kernel (every block resident at once, so
 * that blocks may wait for each other and for other PEs' kernels) on
 * stream, after checking that the grid fits the GPU: 0, or -1 with a
 * message naming the largest grid that does (device library). */
extern "C" int shmemx_collective_launch(const void *func, dim3 grid, dim3 block, void **args,
                                        size_t shared_mem, cudaStream_t stream);
/* The largest grid (in blocks) of func with block threads and shared_mem
 * bytes that can be resident at once: *grid_p; 0, or -1 (device library). */
extern "C" int shmemx_collective_launch_query_gridsize(const void *func, dim3 block,
                                                       size_t shared_mem, int *grid_p);
#endif

#endif
