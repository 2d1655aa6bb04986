/*
 * Collectives on streams: broadcast, fcollect, alltoall, the team
 * reductions and reducescatter as shmemx_*_on_stream, each one enqueued
 * and run by the stream's worker (stream.c) in stream order.  Every
 * member of the team enqueues the collective on one of its streams, in
 * the same order as its other collectives on that team.
 */
#include "stream.h"
#include <shmemx.h>

#define NELEMS_CALL(NAME, CALL) \
    static void call_##NAME(const struct shmemi_stream_coll *c) { CALL; }

/* ---- broadcast, fcollect, alltoall: the RMA types and the mem forms ---- */

#define RMA_COLL(TYPE, TN) \
    NELEMS_CALL(TN##_broadcast, pshmem_##TN##_broadcast(c->team, c->dest, c->src, c->nelems, \
                                                         c->root)) \
    NELEMS_CALL(TN##_fcollect, pshmem_##TN##_fcollect(c->team, c->dest, c->src, c->nelems)) \
    NELEMS_CALL(TN##_alltoall, pshmem_##TN##_alltoall(c->team, c->dest, c->src, c->nelems)) \
    SHMEM_API void shmemx_##TN##_broadcast_on_stream(shmem_team_t team, TYPE *dest, \
                                                     const TYPE *source, size_t nelems, \
                                                     int PE_root, shmemx_stream_t stream) \
    { \
        struct shmemi_stream_coll a = { team, dest, source, nelems, PE_root, NULL }; \
        shmemi_stream_call(stream, "shmemx_" #TN "_broadcast_on_stream", \
                           call_##TN##_broadcast, &a); \
    } \
    SHMEM_API void shmemx_##TN##_fcollect_on_stream(shmem_team_t team, TYPE *dest, \
                                                    const TYPE *source, size_t nelems, \
                                                    shmemx_stream_t stream) \
    { \
        struct shmemi_stream_coll a = { team, dest, source, nelems, 0, NULL }; \
        shmemi_stream_call(stream, "shmemx_" #TN "_fcollect_on_stream", \
                           call_##TN##_fcollect, &a); \
    } \
    SHMEM_API void shmemx_##TN##_alltoall_on_stream(shmem_team_t team, TYPE *dest, \
                                                    const TYPE *source, size_t nelems, \
                                                    shmemx_stream_t stream) \
    { \
        struct shmemi_stream_coll a = { team, dest, source, nelems, 0, NULL }; \
        shmemi_stream_call(stream, "shmemx_" #TN "_alltoall_on_stream", \
                           call_##TN##_alltoall, &a); \
    }
SHMEMI_RMA_TYPES(RMA_COLL)

NELEMS_CALL(broadcastmem, pshmem_broadcastmem(c->team, c->dest, c->src, c->nelems, c->root))
NELEMS_CALL(fcollectmem, pshmem_fcollectmem(c->team, c->dest, c->src, c->nelems))
NELEMS_CALL(alltoallmem, pshmem_alltoallmem(c->team, c->dest, c->src, c->nelems))

SHMEM_API void shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                             size_t nelems, int PE_root, shmemx_stream_t stream)
{
    struct shmemi_stream_coll a = { team, dest, source, nelems, PE_root, NULL };
    shmemi_stream_call(stream, "shmemx_broadcastmem_on_stream", call_broadcastmem, &a);
}

SHMEM_API void shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                            size_t nelems, shmemx_stream_t stream)
{
    struct shmemi_stream_coll a = { team, dest, source, nelems, 0, NULL };
    shmemi_stream_call(stream, "shmemx_fcollectmem_on_stream", call_fcollectmem, &a);
}

SHMEM_API void shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                            size_t nelems, shmemx_stream_t stream)
{
    struct shmemi_stream_coll a = { team, dest, source, nelems, 0, NULL };
    shmemi_stream_call(stream, "shmemx_alltoallmem_on_stream", call_alltoallmem, &a);
}

/* ---- reductions and reducescatter ---- */

#define RED_OP(TYPE, TN, OP) \
    NELEMS_CALL(TN##_##OP##_reduce, \
                pshmem_##TN##_##OP##_reduce(c->team, c->dest, c->src, c->nelems)) \
    NELEMS_CALL(TN##_##OP##_reducescatter, \
                shmemx_##TN##_##OP##_reducescatter(c->team, c->dest, c->src, c->nelems)) \
    SHMEM_API void shmemx_##TN##_##OP##_reduce_on_stream(shmem_team_t team, TYPE *dest, \
                                                         const TYPE *source, size_t nreduce, \
                                                         shmemx_stream_t stream) \
    { \
        struct shmemi_stream_coll a = { team, dest, source, nreduce, 0, NULL }; \
        shmemi_stream_call(stream, "shmemx_" #TN "_" #OP "_reduce_on_stream", \
                           call_##TN##_##OP##_reduce, &a); \
    } \
    SHMEM_API void shmemx_##TN##_##OP##_reducescatter_on_stream( \
        shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce, \
        shmemx_stream_t stream) \
    { \
        struct shmemi_stream_coll a = { team, dest, source, nreduce, 0, NULL }; \
        shmemi_stream_call(stream, "shmemx_" #TN "_" #OP "_reducescatter_on_stream", \
                           call_##TN##_##OP##_reducescatter, &a); \
    }
#define RED_BITWISE(TYPE, TN) RED_OP(TYPE, TN, and) RED_OP(TYPE, TN, or) RED_OP(TYPE, TN, xor)
#define RED_MINMAX(TYPE, TN) RED_OP(TYPE, TN, max) RED_OP(TYPE, TN, min)
#define RED_ARITH(TYPE, TN) RED_OP(TYPE, TN, sum) RED_OP(TYPE, TN, prod)
SHMEMI_REDUCE_BITWISE_TYPES(RED_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(RED_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(RED_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(RED_ARITH)
