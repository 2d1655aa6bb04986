/*
 * The queries: who this PE is, what it can reach (shmem_pe_accessible,
 * shmem_addr_accessible, shmem_ptr), the library's name and version, and
 * the profiling control.  Before shmem_init a query fails like every
 * routine (SHMEMX_ERRORS_ABORT: the message and the end of the job;
 * SHMEMX_ERRORS_RETURN: -1, 0 or NULL with SHMEMX_ERROR_INVALID_STATE).
 */
#include "api/api.h"

SHMEM_API int pshmem_my_pe(void)
{
    if (shmemi_api_init_check("shmem_my_pe"))
        return -1;
    return shmemi_g.my_pe;
}
SHMEMI_ALIAS(shmem_my_pe)

SHMEM_API int pshmem_n_pes(void)
{
    if (shmemi_api_init_check("shmem_n_pes"))
        return -1;
    return shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_n_pes)

SHMEM_API int pshmem_pe_accessible(int pe)
{
    if (shmemi_api_init_check("shmem_pe_accessible"))
        return 0;
    return pe >= 0 && pe < shmemi_g.n_pes;
}
SHMEMI_ALIAS(shmem_pe_accessible)

SHMEM_API int pshmem_addr_accessible(const void *addr, int pe)
{
    int seg;
    uint64_t off;

    if (shmemi_api_init_check("shmem_addr_accessible"))
        return 0;
    return pe >= 0 && pe < shmemi_g.n_pes &&
           (shmemi_addr_seg(addr, 1, &seg, &off) == 0 || shmemi_dev_range(addr, 1, &off));
}
SHMEMI_ALIAS(shmem_addr_accessible)

SHMEM_API void *pshmem_ptr(const void *dest, int pe)
{
    if (shmemi_api_init_check("shmem_ptr"))
        return NULL;
    return shmemi_ptr_world(dest, pe);
}
SHMEMI_ALIAS(shmem_ptr)

SHMEM_API void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
SHMEMI_ALIAS(shmem_info_get_version)

SHMEM_API void pshmem_info_get_name(char *name)
{
    strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
    name[SHMEM_MAX_NAME_LEN - 1] = '\0';
}
SHMEMI_ALIAS(shmem_info_get_name)

SHMEM_API void pshmem_pcontrol(const int level, ...)
{
    /* Profiling hook: no built-in profiler, so every level is accepted. */
}
SHMEMI_ALIAS(shmem_pcontrol)

SHMEM_API void shmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    *major = FABSHMEM_VERSION_MAJOR;
    *minor = FABSHMEM_VERSION_MINOR;
    *patch = FABSHMEM_VERSION_PATCH;
}
