/*
 * The public routines of GPU memory (include/fabshmem/shmemx_mem.h,
 * docs/gpu.md).  Device allocations go through shmem_malloc_with_hints
 * (src/api/shmem_mem.c); RMA on device objects through the usual routines.
 */
#include "api/api.h"
#include "init/init.h"
#include <fabshmem/shmemx_device.h>

SHMEM_API int shmemx_cuda_device(void)
{
    if (shmemi_api_init_check("shmemx_cuda_device"))
        return -1;
    return shmemi_g.dheap_size ? shmemi_cuda.device : -1;
}

/* ---- the device API's host routines (include/fabshmem/shmemx_device.h,
 * docs/device.md), over src/init/init_devapi.c ---- */

SHMEM_API int shmemx_device_state(void *buf, size_t len)
{
    int rc = shmemi_api_init_check("shmemx_device_state");
    return rc ? rc : shmemi_api_status(shmemi_devapi_state(buf, len, "shmemx_device_state"));
}

SHMEM_API int shmemx_team_device(shmem_team_t team)
{
    if (shmemi_api_init_check("shmemx_team_device"))
        return -1;
    return shmemi_devapi_team(team, "shmemx_team_device");
}

SHMEM_API int shmemx_device_check(void)
{
    int rc = shmemi_api_init_check("shmemx_device_check");
    return rc ? rc : shmemi_api_status(shmemi_devapi_check("shmemx_device_check"));
}

SHMEM_API void shmemx_device_state_hook(void (*fn)(const void *state, size_t len))
{
    shmemi_devapi_hook(fn);
}
