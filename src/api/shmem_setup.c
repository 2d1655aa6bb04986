/*
 * Setup: init, finalize, global exit, the thread level, and the
 * extensions of include/fabshmem/shmemx_init.h (shmemx_init_attr, its
 * attribute helpers, the unique id, shmemx_init_status).  Thin wrappers
 * over src/init.
 */
#include "api/api.h"
#include "init/init.h"

void shmemi_api_init_fail(int rc, const char *rtn)
{
    if (shmemi_api_returns())
        return;
    shmemi_api_status(rc);
    shmemi_fatal("%s: initialization failed (see the messages above)", rtn);
}

SHMEM_API int pshmem_init_thread(int requested, int *provided)
{
    return shmemi_api_status(shmemi_init_thread(requested, provided, "shmem_init_thread"));
}
SHMEMI_ALIAS(shmem_init_thread)

SHMEM_API void pshmem_init(void)
{
    int rc = shmemi_init_thread(SHMEM_THREAD_SINGLE, NULL, "shmem_init");

    if (rc)
        shmemi_api_init_fail(rc, "shmem_init");
}
SHMEMI_ALIAS(shmem_init)

SHMEM_API void pshmem_query_thread(int *provided)
{
    if (shmemi_api_init_check("shmem_query_thread"))
        return;
    *provided = shmemi_g.thread_level;
}
SHMEMI_ALIAS(shmem_query_thread)

SHMEM_API void pshmem_query_initialized(int *initialized)
{
    *initialized = atomic_load(&shmemi_g.state) == SHMEMI_STATE_INITIALIZED;
}
SHMEMI_ALIAS(shmem_query_initialized)

SHMEM_API void pshmem_finalize(void)
{
    if (atomic_load(&shmemi_g.state) == SHMEMI_STATE_INITIALIZED)
        shmemi_api_check(shmemi_devapi_check("shmem_finalize"));
    shmemi_finalize();
}
SHMEMI_ALIAS(shmem_finalize)

SHMEM_API void pshmem_global_exit(int status)
{
    shmemi_global_exit(status);
}
SHMEMI_ALIAS(shmem_global_exit)

/* ---- shmemx_init.h ---- */

SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr)
{
    return shmemi_api_status(shmemi_init_attr(flags, attr, "shmemx_init_attr"));
}

SHMEM_API int shmemx_init_status(void)
{
    return shmemi_init_status();
}

SHMEM_API int shmemx_get_uniqueid(shmemx_uniqueid_t *uid)
{
    return shmemi_api_status(shmemi_uniqueid_get(uid, "shmemx_get_uniqueid"));
}

SHMEM_API int shmemx_set_attr_uniqueid_args(int rank, int nranks, const shmemx_uniqueid_t *uid,
                                            shmemx_init_attr_t *attr)
{
    return shmemi_api_status(
        shmemi_attr_uniqueid_set(rank, nranks, uid, attr, "shmemx_set_attr_uniqueid_args"));
}

SHMEM_API int shmemx_set_attr_mpi_comm_args(void *mpi_comm, shmemx_init_attr_t *attr)
{
    return shmemi_api_status(
        shmemi_attr_mpi_comm_set(mpi_comm, attr, "shmemx_set_attr_mpi_comm_args"));
}
