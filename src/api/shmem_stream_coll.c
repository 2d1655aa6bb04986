/*
 * Team synchronization and collectives on streams: barrier_all, sync_all,
 * barrier and team_sync, and broadcast, fcollect, alltoall (typed and mem
 * forms), the team reductions and reducescatter as shmemx_*_on_stream,
 * thin wrappers over src/stream (stream.h).  The routines with a team
 * return the refusal of bad work (which the next shmemx_stream_sync
 * reports too), as NVSHMEM's return int.
 */
#include "api/api.h"
#include "stream/stream.h"

/* ---- barriers and syncs ---- */

SHMEM_API void shmemx_barrier_all_on_stream(shmemx_stream_t stream)
{
    shmemi_api_stream(shmemi_stream_barrier(stream, SHMEM_TEAM_WORLD, 0,
                                            "shmemx_barrier_all_on_stream"));
}

SHMEM_API void shmemx_sync_all_on_stream(shmemx_stream_t stream)
{
    shmemi_api_stream(shmemi_stream_barrier(stream, SHMEM_TEAM_WORLD, 1,
                                            "shmemx_sync_all_on_stream"));
}

SHMEM_API int shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    return shmemi_api_stream(shmemi_stream_barrier(stream, team, 0, "shmemx_barrier_on_stream"));
}

SHMEM_API int shmemx_team_sync_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    return shmemi_api_stream(shmemi_stream_barrier(stream, team, 1,
                                                   "shmemx_team_sync_on_stream"));
}

/* ---- broadcast, fcollect, alltoall: the RMA types and the mem forms ---- */

#define RMA_COLL(TYPE, TN) \
    SHMEM_API int shmemx_##TN##_broadcast_on_stream(shmem_team_t team, TYPE *dest, \
                                                    const TYPE *source, size_t nelems, \
                                                    int PE_root, shmemx_stream_t stream) \
    { \
        return shmemi_api_stream(shmemi_stream_bcast(stream, team, dest, source, nelems, \
                                                     sizeof(TYPE), PE_root, \
                                                     "shmemx_" #TN "_broadcast_on_stream")); \
    } \
    SHMEM_API int shmemx_##TN##_fcollect_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream) \
    { \
        return shmemi_api_stream(shmemi_stream_fcollect(stream, team, dest, source, nelems, \
                                                        sizeof(TYPE), \
                                                        "shmemx_" #TN "_fcollect_on_stream")); \
    } \
    SHMEM_API int shmemx_##TN##_alltoall_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream) \
    { \
        return shmemi_api_stream(shmemi_stream_alltoall(stream, team, dest, source, nelems, \
                                                        sizeof(TYPE), \
                                                        "shmemx_" #TN "_alltoall_on_stream")); \
    }
SHMEMI_RMA_TYPES(RMA_COLL)

SHMEM_API int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                            size_t nelems, int PE_root, shmemx_stream_t stream)
{
    return shmemi_api_stream(shmemi_stream_bcast(stream, team, dest, source, nelems, 1, PE_root,
                                                 "shmemx_broadcastmem_on_stream"));
}

SHMEM_API int shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream)
{
    return shmemi_api_stream(shmemi_stream_fcollect(stream, team, dest, source, nelems, 1,
                                                    "shmemx_fcollectmem_on_stream"));
}

SHMEM_API int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream)
{
    return shmemi_api_stream(shmemi_stream_alltoall(stream, team, dest, source, nelems, 1,
                                                    "shmemx_alltoallmem_on_stream"));
}

/* ---- reductions and reducescatter ----
 * The type code of the engine comes from the C type (SHMEMI_RT_CODE,
 * coll_reduce.h), as for the team routines (reduce_typed.c). */

#define RED_OP(TYPE, TN, OP, OPC, TC) \
    SHMEM_API int shmemx_##TN##_##OP##_reduce_on_stream(shmem_team_t team, TYPE *dest, \
                                                        const TYPE *source, size_t nreduce, \
                                                        shmemx_stream_t stream) \
    { \
        return shmemi_api_stream(shmemi_stream_reduce(stream, team, TC, OPC, sizeof(TYPE), dest, \
                                                      source, nreduce, 0, \
                                                      "shmemx_" #TN "_" #OP \
                                                      "_reduce_on_stream")); \
    } \
    SHMEM_API int shmemx_##TN##_##OP##_reducescatter_on_stream( \
        shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce, \
        shmemx_stream_t stream) \
    { \
        return shmemi_api_stream(shmemi_stream_reduce(stream, team, TC, OPC, sizeof(TYPE), dest, \
                                                      source, nreduce, 1, \
                                                      "shmemx_" #TN "_" #OP \
                                                      "_reducescatter_on_stream")); \
    }
#define RED_BITWISE(TYPE, TN) \
    RED_OP(TYPE, TN, and, SHMEMI_ROP_AND, SHMEMI_RT_CODE(TYPE)) \
    RED_OP(TYPE, TN, or, SHMEMI_ROP_OR, SHMEMI_RT_CODE(TYPE)) \
    RED_OP(TYPE, TN, xor, SHMEMI_ROP_XOR, SHMEMI_RT_CODE(TYPE))
#define RED_MINMAX(TYPE, TN) \
    RED_OP(TYPE, TN, max, SHMEMI_ROP_MAX, SHMEMI_RT_CODE(TYPE)) \
    RED_OP(TYPE, TN, min, SHMEMI_ROP_MIN, SHMEMI_RT_CODE(TYPE))
#define RED_ARITH_TC(TYPE, TN, TC) \
    RED_OP(TYPE, TN, sum, SHMEMI_ROP_SUM, TC) \
    RED_OP(TYPE, TN, prod, SHMEMI_ROP_PROD, TC)
#define RED_ARITH(TYPE, TN) RED_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE(TYPE))
#define RED_ARITH_C(TYPE, TN) RED_ARITH_TC(TYPE, TN, SHMEMI_RT_CODE_C(TYPE))
SHMEMI_REDUCE_BITWISE_TYPES(RED_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(RED_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(RED_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(RED_ARITH_C)
