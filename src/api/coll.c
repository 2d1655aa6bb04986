/*
 * The collectives of the API other than the reductions (reduce_typed.c):
 * barriers and syncs, broadcast, collect, fcollect, alltoall(s) in their
 * typed, mem and deprecated active-set forms, and shmemx_team_coll_count;
 * thin wrappers over src/coll.
 */
#include "coll/coll.h"
#include <pshmem.h>

/* Checks a team argument; 0 when this PE may go on. */
static int team_arg(shmem_team_t team, const char *rtn)
{
    SHMEMI_CHECK_INIT(rtn);
    return shmemi_team_ok(team) ? 0 : -1;
}

/* ---- barriers and syncs ---- */

SHMEM_API void pshmem_barrier_all(void)
{
    SHMEMI_CHECK_INIT("shmem_barrier_all");
    shmemi_coll_barrier(SHMEM_TEAM_WORLD);
}
SHMEMI_ALIAS(shmem_barrier_all)

SHMEM_API void pshmem_sync_all(void)
{
    SHMEMI_CHECK_INIT("shmem_sync_all");
    shmemi_coll_sync(SHMEM_TEAM_WORLD);
}
SHMEMI_ALIAS(shmem_sync_all)

SHMEM_API int pshmem_team_sync(shmem_team_t team)
{
    if (team_arg(team, "shmem_team_sync"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_sync(team);
    return 0;
}
SHMEMI_ALIAS(shmem_team_sync)

SHMEM_API long shmemx_team_coll_count(shmem_team_t team, const char *coll, const char *algo)
{
    SHMEMI_CHECK_INIT("shmemx_team_coll_count");
    return shmemi_coll_count_get(team, coll, algo, "shmemx_team_coll_count");
}

/* ---- the team-based routines ---- */

#define TEAM_COLL_DEFS(TYPE, TN) \
    SHMEM_API int pshmem_##TN##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          size_t nelems, int PE_root) \
    { \
        const char *rtn = "shmem_" #TN "_broadcast"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_coll_bcast(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), PE_root, 1, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_broadcast) \
    SHMEM_API int pshmem_##TN##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                        size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_collect"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_coll_collect(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), \
                            0, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_collect) \
    SHMEM_API int pshmem_##TN##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_fcollect"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_coll_collect(team, dest, source, shmemi_nbytes_must(nelems, sizeof(TYPE), rtn), \
                            1, rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_fcollect) \
    SHMEM_API int pshmem_##TN##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_alltoall"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_nbytes_must(nelems * (size_t)team->n_pes, sizeof(TYPE), rtn); \
        shmemi_coll_alltoall(team, (char *)dest, (const char *)source, 1, 1, nelems, sizeof(TYPE), \
                        rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoall) \
    SHMEM_API int pshmem_##TN##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems) \
    { \
        const char *rtn = "shmem_" #TN "_alltoalls"; \
        if (team_arg(team, rtn)) \
            return SHMEMX_ERROR_INVALID_VALUE; \
        shmemi_coll_alltoall(team, (char *)dest, (const char *)source, dst, sst, nelems, \
                        sizeof(TYPE), rtn); \
        return 0; \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoalls)
SHMEMI_RMA_TYPES(TEAM_COLL_DEFS)

SHMEM_API int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root)
{
    if (team_arg(team, "shmem_broadcastmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_bcast(team, dest, source, nelems, PE_root, 1, "shmem_broadcastmem");
    return 0;
}
SHMEMI_ALIAS(shmem_broadcastmem)

SHMEM_API int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_collectmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_collect(team, dest, source, nelems, 0, "shmem_collectmem");
    return 0;
}
SHMEMI_ALIAS(shmem_collectmem)

SHMEM_API int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_fcollectmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_collect(team, dest, source, nelems, 1, "shmem_fcollectmem");
    return 0;
}
SHMEMI_ALIAS(shmem_fcollectmem)

SHMEM_API int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    if (team_arg(team, "shmem_alltoallmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_alltoall(team, dest, source, 1, 1, nelems, 1, "shmem_alltoallmem");
    return 0;
}
SHMEMI_ALIAS(shmem_alltoallmem)

SHMEM_API int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                  ptrdiff_t sst, size_t nelems)
{
    if (team_arg(team, "shmem_alltoallsmem"))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_coll_alltoall(team, dest, source, dst, sst, nelems, 1, "shmem_alltoallsmem");
    return 0;
}
SHMEMI_ALIAS(shmem_alltoallsmem)

/* ---- the deprecated active-set forms ---- */

SHMEM_API void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHMEMI_CHECK_INIT("shmem_barrier");
    shmemi_coll_barrier(shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_barrier"));
}
SHMEMI_ALIAS(shmem_barrier)

SHMEM_API void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHMEMI_CHECK_INIT("shmem_sync");
    shmemi_coll_sync(shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_sync"));
}
SHMEMI_ALIAS(shmem_sync)

#define ACTIVE_SET_DEFS(BITS) \
    SHMEM_API void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, \
                                          int PE_root, int PE_start, int logPE_stride, \
                                          int PE_size, long *pSync) \
    { \
        const char *rtn = "shmem_broadcast" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        shmemi_coll_bcast(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, source, \
              shmemi_nbytes_must(nelems, BITS / 8, rtn), PE_root, 0, rtn); \
    } \
    SHMEMI_ALIAS(shmem_broadcast##BITS) \
    SHMEM_API void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, \
                                        int PE_start, int logPE_stride, int PE_size, \
                                        long *pSync) \
    { \
        const char *rtn = "shmem_collect" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        shmemi_coll_collect(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                       source, shmemi_nbytes_must(nelems, BITS / 8, rtn), 0, rtn); \
    } \
    SHMEMI_ALIAS(shmem_collect##BITS) \
    SHMEM_API void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    { \
        const char *rtn = "shmem_fcollect" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        shmemi_coll_collect(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                       source, shmemi_nbytes_must(nelems, BITS / 8, rtn), 1, rtn); \
    } \
    SHMEMI_ALIAS(shmem_fcollect##BITS) \
    SHMEM_API void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    { \
        const char *rtn = "shmem_alltoall" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        shmemi_coll_alltoall(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                        source, 1, 1, nelems, BITS / 8, rtn); \
    } \
    SHMEMI_ALIAS(shmem_alltoall##BITS) \
    SHMEM_API void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, \
                                          ptrdiff_t sst, size_t nelems, int PE_start, \
                                          int logPE_stride, int PE_size, long *pSync) \
    { \
        const char *rtn = "shmem_alltoalls" #BITS; \
        SHMEMI_CHECK_INIT(rtn); \
        shmemi_coll_alltoall(shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn), dest, \
                        source, dst, sst, nelems, BITS / 8, rtn); \
    } \
    SHMEMI_ALIAS(shmem_alltoalls##BITS)
ACTIVE_SET_DEFS(32)
ACTIVE_SET_DEFS(64)
