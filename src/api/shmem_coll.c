/*
 * The collectives of the API other than the reductions (reduce_typed.c):
 * barriers and syncs, broadcast, collect, fcollect, alltoall(s) in their
 * typed, mem and deprecated active-set forms, and shmemx_team_coll_count;
 * thin wrappers over the entry points of src/coll (coll.h), which check
 * the arguments and return a status.  The team forms return it
 * (coll_status.h says which failures end the job in the default mode); the
 * void forms end the job on a failure in the default mode.
 */
#include "api/coll_status.h"
#include "init/init.h"
#include <pshmem.h>

/* ---- barriers and syncs ---- */

SHMEM_API void pshmem_barrier_all(void)
{
    shmemi_api_check(shmemi_devapi_check("shmem_barrier_all"));
    shmemi_api_check(shmemi_coll_barrier(SHMEM_TEAM_WORLD, "shmem_barrier_all"));
}
SHMEMI_ALIAS(shmem_barrier_all)

SHMEM_API void pshmem_sync_all(void)
{
    shmemi_api_check(shmemi_coll_sync(SHMEM_TEAM_WORLD, "shmem_sync_all"));
}
SHMEMI_ALIAS(shmem_sync_all)

SHMEM_API int pshmem_team_sync(shmem_team_t team)
{
    return shmemi_api_coll_status(shmemi_coll_sync(team, "shmem_team_sync"), team);
}
SHMEMI_ALIAS(shmem_team_sync)

/* An unknown name gets the warning and -1; so does a destroyed team's
 * handle (or, with FABSHMEM_CHECKS=1, no handle at all); an invalid team
 * gets -1 without a message. */
SHMEM_API long shmemx_team_coll_count(shmem_team_t team, const char *coll, const char *algo)
{
    long n = -1;
    int rc = shmemi_coll_count_get(team, coll, algo, &n, "shmemx_team_coll_count");

    if (rc == SHMEMX_ERROR_INVALID_STATE)
        shmemi_api_fail(rc);
    else if (rc && (shmemi_team_ok(team) || shmemi_team_destroyed(team)))
        (void)shmemi_api_status(rc);
    return rc ? -1 : n;
}

/* ---- the team-based routines ---- */

#define TEAM_COLL_DEFS(TYPE, TN) \
    SHMEM_API int pshmem_##TN##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          size_t nelems, int PE_root) \
    { \
        return shmemi_api_coll_status(shmemi_coll_bcast(team, dest, source, nelems, \
                                                        sizeof(TYPE), PE_root, 1, \
                                                        "shmem_" #TN "_broadcast"), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_broadcast) \
    SHMEM_API int pshmem_##TN##_collect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                        size_t nelems) \
    { \
        return shmemi_api_coll_status(shmemi_coll_collect(team, dest, source, nelems, \
                                                          sizeof(TYPE), 0, \
                                                          "shmem_" #TN "_collect"), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_collect) \
    SHMEM_API int pshmem_##TN##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        return shmemi_api_coll_status(shmemi_coll_collect(team, dest, source, nelems, \
                                                          sizeof(TYPE), 1, \
                                                          "shmem_" #TN "_fcollect"), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_fcollect) \
    SHMEM_API int pshmem_##TN##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                         size_t nelems) \
    { \
        return shmemi_api_coll_status(shmemi_coll_alltoall(team, dest, source, 1, 1, nelems, \
                                                           sizeof(TYPE), \
                                                           "shmem_" #TN "_alltoall"), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoall) \
    SHMEM_API int pshmem_##TN##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems) \
    { \
        return shmemi_api_coll_status(shmemi_coll_alltoall(team, dest, source, dst, sst, \
                                                           nelems, sizeof(TYPE), \
                                                           "shmem_" #TN "_alltoalls"), team); \
    } \
    SHMEMI_ALIAS(shmem_##TN##_alltoalls)
SHMEMI_RMA_TYPES(TEAM_COLL_DEFS)

SHMEM_API int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                                  size_t nelems, int PE_root)
{
    return shmemi_api_coll_status(shmemi_coll_bcast(team, dest, source, nelems, 1, PE_root, 1,
                                                    "shmem_broadcastmem"), team);
}
SHMEMI_ALIAS(shmem_broadcastmem)

SHMEM_API int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_api_coll_status(shmemi_coll_collect(team, dest, source, nelems, 1, 0,
                                                      "shmem_collectmem"), team);
}
SHMEMI_ALIAS(shmem_collectmem)

SHMEM_API int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_api_coll_status(shmemi_coll_collect(team, dest, source, nelems, 1, 1,
                                                      "shmem_fcollectmem"), team);
}
SHMEMI_ALIAS(shmem_fcollectmem)

SHMEM_API int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmemi_api_coll_status(shmemi_coll_alltoall(team, dest, source, 1, 1, nelems, 1,
                                                       "shmem_alltoallmem"), team);
}
SHMEMI_ALIAS(shmem_alltoallmem)

SHMEM_API int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                                  ptrdiff_t sst, size_t nelems)
{
    return shmemi_api_coll_status(shmemi_coll_alltoall(team, dest, source, dst, sst, nelems, 1,
                                                       "shmem_alltoallsmem"), team);
}
SHMEMI_ALIAS(shmem_alltoallsmem)

/* ---- the deprecated active-set forms ----
 * Each runs on the set's internal team (src/team/team_active.c); pSync is
 * not used. */

SHMEM_API void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team *t;
    int rc = shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_barrier", &t);

    shmemi_api_check(rc ? rc : shmemi_coll_barrier(t, "shmem_barrier"));
}
SHMEMI_ALIAS(shmem_barrier)

SHMEM_API void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team *t;
    int rc = shmemi_active_set_team(PE_start, logPE_stride, PE_size, "shmem_sync", &t);

    shmemi_api_check(rc ? rc : shmemi_coll_sync(t, "shmem_sync"));
}
SHMEMI_ALIAS(shmem_sync)

/* One active-set form: the set's team into t, then CALL (which names t,
 * rtn and the arguments), its status to the API. */
#define ACTIVE_SET_BODY(NAME, CALL) \
    { \
        const char *rtn = NAME; \
        struct shmemi_team *t; \
        int rc = shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn, &t); \
        shmemi_api_check(rc ? rc : CALL); \
    }

#define ACTIVE_SET_DEFS(BITS) \
    SHMEM_API void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, \
                                          int PE_root, int PE_start, int logPE_stride, \
                                          int PE_size, long *pSync) \
    ACTIVE_SET_BODY("shmem_broadcast" #BITS, \
                    shmemi_coll_bcast(t, dest, source, nelems, BITS / 8, PE_root, 0, rtn)) \
    SHMEMI_ALIAS(shmem_broadcast##BITS) \
    SHMEM_API void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, \
                                        int PE_start, int logPE_stride, int PE_size, \
                                        long *pSync) \
    ACTIVE_SET_BODY("shmem_collect" #BITS, \
                    shmemi_coll_collect(t, dest, source, nelems, BITS / 8, 0, rtn)) \
    SHMEMI_ALIAS(shmem_collect##BITS) \
    SHMEM_API void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    ACTIVE_SET_BODY("shmem_fcollect" #BITS, \
                    shmemi_coll_collect(t, dest, source, nelems, BITS / 8, 1, rtn)) \
    SHMEMI_ALIAS(shmem_fcollect##BITS) \
    SHMEM_API void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, \
                                         int PE_start, int logPE_stride, int PE_size, \
                                         long *pSync) \
    ACTIVE_SET_BODY("shmem_alltoall" #BITS, \
                    shmemi_coll_alltoall(t, dest, source, 1, 1, nelems, BITS / 8, rtn)) \
    SHMEMI_ALIAS(shmem_alltoall##BITS) \
    SHMEM_API void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, \
                                          ptrdiff_t sst, size_t nelems, int PE_start, \
                                          int logPE_stride, int PE_size, long *pSync) \
    ACTIVE_SET_BODY("shmem_alltoalls" #BITS, \
                    shmemi_coll_alltoall(t, dest, source, dst, sst, nelems, BITS / 8, rtn)) \
    SHMEMI_ALIAS(shmem_alltoalls##BITS)
ACTIVE_SET_DEFS(32)
ACTIVE_SET_DEFS(64)
