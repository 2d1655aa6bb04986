/*
 * The registration of buffers that the application allocated itself
 * (include/fabshmem/shmemx_mem.h): thin wrappers over src/mem/mem_reg.c.
 * The routines return a status (or, for
 * shmemx_buffer_register_symmetric, NULL) with the message printed in
 * SHMEMX_ERRORS_ABORT mode; a call before shmem_init, and a quiet that
 * failed while unregistering, end the job there, as in every routine.
 */
#include "api/api.h"
#include "mem/mem.h"

SHMEM_API int shmemx_buffer_register(void *addr, size_t length)
{
    const char *rtn = "shmemx_buffer_register";
    int rc = shmemi_api_init_check(rtn);

    return rc ? rc : shmemi_api_status(shmemi_buffer_register(addr, length, rtn));
}

SHMEM_API int shmemx_buffer_unregister(void *addr)
{
    const char *rtn = "shmemx_buffer_unregister";
    int rc = shmemi_api_init_check(rtn);

    return rc ? rc : shmemi_api_status(shmemi_buffer_unregister(addr, rtn));
}

SHMEM_API void shmemx_buffer_unregister_all(void)
{
    const char *rtn = "shmemx_buffer_unregister_all";

    if (shmemi_api_init_check(rtn))
        return;
    shmemi_api_check(shmemi_buffer_unregister_all(rtn));
}

SHMEM_API void *shmemx_buffer_register_symmetric(void *addr, size_t length, int flags)
{
    const char *rtn = "shmemx_buffer_register_symmetric";
    int rc = shmemi_api_init_check(rtn);

    if (rc)
        return NULL;
    if (shmemi_api_status(shmemi_buffer_register_symmetric(addr, length, flags, rtn)))
        return NULL;
    return addr;
}

SHMEM_API int shmemx_buffer_load_store(const void *addr)
{
    const char *rtn = "shmemx_buffer_load_store";
    int rc = shmemi_api_init_check(rtn);

    return rc ? rc : shmemi_api_status(shmemi_buffer_load_store(addr, rtn));
}

SHMEM_API int shmemx_buffer_unregister_symmetric(void *addr, size_t length)
{
    const char *rtn = "shmemx_buffer_unregister_symmetric";
    int rc = shmemi_api_init_check(rtn);

    return rc ? rc : shmemi_api_status(shmemi_buffer_unregister_symmetric(addr, length, rtn));
}

SHMEM_API int shmemx_buffer_unregister_symmetric_all(void)
{
    const char *rtn = "shmemx_buffer_unregister_symmetric_all";
    int rc = shmemi_api_init_check(rtn);

    return rc ? rc : shmemi_api_status(shmemi_buffer_unregister_symmetric_all(rtn));
}
