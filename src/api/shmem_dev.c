/*
 * The public routines of GPU memory (include/fabshmem/shmemx_mem.h,
 * docs/gpu.md).  Device allocations go through shmem_malloc_with_hints
 * (src/api/shmem_mem.c); RMA on device objects through the usual routines.
 */
#include "api/api.h"

SHMEM_API int shmemx_cuda_device(void)
{
    if (shmemi_api_init_check("shmemx_cuda_device"))
        return -1;
    return shmemi_g.dheap_size ? shmemi_cuda.device : -1;
}
