/*
 * Team synchronization and collectives on streams: barrier_all, sync_all,
 * barrier and team_sync, and broadcast, fcollect, alltoall (typed and mem
 * forms), the team reductions and reducescatter as shmemx_*_on_stream,
 * each one enqueued and run by the stream's worker (stream.c) in stream
 * order.  Every member of the team enqueues the collective on one of its
 * streams, in the same order as its other collectives on that team, and
 * the team stays alive until the stream has executed it.
 *
 * Every argument is checked here, when the work is enqueued, as the team
 * routine would check it when it runs: the team, PE_root, the sizes
 * (nelems times the element size, times the team's size for the gathered
 * and scattered buffers, without overflow), the symmetric extents of dest
 * and source, and for reductions that dest and source are one array or
 * disjoint.  Bad work is refused and the next shmemx_stream_sync reports
 * it, naming the on-stream routine; the worker then never meets an
 * argument that would end the job.  Arguments that must agree across the
 * members (nelems, PE_root) are each PE's own business, as for the team
 * routines.
 */
#include "stream/stream.h"
#include <shmemx.h>

/* ---- barriers and syncs ---- */

static int team_on_stream(enum shmemi_wkind kind, shmem_team_t team, shmemx_stream_t stream,
                          const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = kind, .rtn = rtn, .team = team };

    if (shmemi_stream_check_team(s, team, rtn))
        return SHMEMX_ERROR_INVALID_VALUE;
    shmemi_stream_enqueue(s, &w);
    return 0;
}

SHMEM_API void shmemx_barrier_all_on_stream(shmemx_stream_t stream)
{
    (void)team_on_stream(SHMEMI_W_BARRIER, SHMEM_TEAM_WORLD, stream,
                         "shmemx_barrier_all_on_stream");
}

SHMEM_API void shmemx_sync_all_on_stream(shmemx_stream_t stream)
{
    (void)team_on_stream(SHMEMI_W_SYNC, SHMEM_TEAM_WORLD, stream, "shmemx_sync_all_on_stream");
}

SHMEM_API int shmemx_barrier_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    return team_on_stream(SHMEMI_W_BARRIER, team, stream, "shmemx_barrier_on_stream");
}

SHMEM_API int shmemx_team_sync_on_stream(shmem_team_t team, shmemx_stream_t stream)
{
    return team_on_stream(SHMEMI_W_SYNC, team, stream, "shmemx_team_sync_on_stream");
}

/* ---- the checks of the collectives ---- */

enum coll_shape {
    C_BCAST,   /* dest, source: nelems each; PE_root */
    C_GATHER,  /* source nelems, dest nelems per member (fcollect) */
    C_ALL,     /* dest, source: nelems per member (alltoall) */
    C_REDUCE,  /* dest, source: nelems each, the same array or disjoint */
    C_SCATTER  /* dest nelems, source nelems per member (reducescatter) */
};

/* Checks a collective's arguments and enqueues call(work) on the stream:
 * 0, or SHMEMX_ERROR_INVALID_VALUE when the work is refused (which the
 * next sync reports too). */
static int coll_on_stream(enum coll_shape shape, shmem_team_t team, void *dest,
                          const void *source, size_t nelems, size_t elsize, int root,
                          void (*call)(const struct shmemi_work *), shmemx_stream_t stream,
                          const char *rtn)
{
    struct shmemx_stream *s = shmemi_stream_get(stream, rtn);
    struct shmemi_work w = { .kind = SHMEMI_W_CALL, .rtn = rtn, .team = team, .dest = dest,
                             .src = source, .nelems = nelems, .pe = root, .call = call };
    size_t bytes, all, dlen, slen;
    int n;

    if (shmemi_stream_check_team(s, team, rtn) ||
        shmemi_stream_check_bytes(s, nelems, elsize, "nelems", &bytes, rtn))
        return SHMEMX_ERROR_INVALID_VALUE;
    n = team->n_pes;
    if (shmemi_stream_check_bytes(s, bytes, (size_t)n, "nelems times the element size, times "
                                  "the team's PEs:", &all, rtn))
        return SHMEMX_ERROR_INVALID_VALUE;
    dlen = shape == C_GATHER || shape == C_ALL ? all : bytes;
    slen = shape == C_ALL || shape == C_SCATTER ? all : bytes;
    if (shape == C_BCAST && (root < 0 || root >= n)) {
        shmemi_stream_refuse(s, rtn, "PE_root %d is out of range (the team has %d PEs)", root,
                             n);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (shmemi_stream_check_sym(s, dest, dlen, "dest", rtn) ||
        shmemi_stream_check_sym(s, source, slen, "source", rtn))
        return SHMEMX_ERROR_INVALID_VALUE;
    if (shape == C_REDUCE && dest != source && bytes &&
        (uintptr_t)dest < (uintptr_t)source + bytes && (uintptr_t)source < (uintptr_t)dest + bytes) {
        shmemi_stream_refuse(s, rtn, "dest %p and source %p overlap in part (%zu bytes each): "
                             "they must be the same array or disjoint", dest, source, bytes);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    shmemi_stream_enqueue(s, &w);
    return 0;
}

/* ---- broadcast, fcollect, alltoall: the RMA types and the mem forms ---- */

#define CALL(NAME, CALLEXPR) \
    static void call_##NAME(const struct shmemi_work *c) { CALLEXPR; }

#define RMA_COLL(TYPE, TN) \
    CALL(TN##_broadcast, pshmem_##TN##_broadcast(c->team, c->dest, c->src, c->nelems, c->pe)) \
    CALL(TN##_fcollect, pshmem_##TN##_fcollect(c->team, c->dest, c->src, c->nelems)) \
    CALL(TN##_alltoall, pshmem_##TN##_alltoall(c->team, c->dest, c->src, c->nelems)) \
    SHMEM_API int shmemx_##TN##_broadcast_on_stream(shmem_team_t team, TYPE *dest, \
                                                    const TYPE *source, size_t nelems, \
                                                    int PE_root, shmemx_stream_t stream) \
    { \
        return coll_on_stream(C_BCAST, team, dest, source, nelems, sizeof(TYPE), PE_root, \
                              call_##TN##_broadcast, stream, \
                              "shmemx_" #TN "_broadcast_on_stream"); \
    } \
    SHMEM_API int shmemx_##TN##_fcollect_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream) \
    { \
        return coll_on_stream(C_GATHER, team, dest, source, nelems, sizeof(TYPE), 0, \
                              call_##TN##_fcollect, stream, \
                              "shmemx_" #TN "_fcollect_on_stream"); \
    } \
    SHMEM_API int shmemx_##TN##_alltoall_on_stream(shmem_team_t team, TYPE *dest, \
                                                   const TYPE *source, size_t nelems, \
                                                   shmemx_stream_t stream) \
    { \
        return coll_on_stream(C_ALL, team, dest, source, nelems, sizeof(TYPE), 0, \
                              call_##TN##_alltoall, stream, \
                              "shmemx_" #TN "_alltoall_on_stream"); \
    }
SHMEMI_RMA_TYPES(RMA_COLL)

CALL(broadcastmem, pshmem_broadcastmem(c->team, c->dest, c->src, c->nelems, c->pe))
CALL(fcollectmem, pshmem_fcollectmem(c->team, c->dest, c->src, c->nelems))
CALL(alltoallmem, pshmem_alltoallmem(c->team, c->dest, c->src, c->nelems))

SHMEM_API int shmemx_broadcastmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                            size_t nelems, int PE_root, shmemx_stream_t stream)
{
    return coll_on_stream(C_BCAST, team, dest, source, nelems, 1, PE_root, call_broadcastmem,
                          stream, "shmemx_broadcastmem_on_stream");
}

SHMEM_API int shmemx_fcollectmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream)
{
    return coll_on_stream(C_GATHER, team, dest, source, nelems, 1, 0, call_fcollectmem, stream,
                          "shmemx_fcollectmem_on_stream");
}

SHMEM_API int shmemx_alltoallmem_on_stream(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, shmemx_stream_t stream)
{
    return coll_on_stream(C_ALL, team, dest, source, nelems, 1, 0, call_alltoallmem, stream,
                          "shmemx_alltoallmem_on_stream");
}

/* ---- reductions and reducescatter ---- */

#define RED_OP(TYPE, TN, OP) \
    CALL(TN##_##OP##_reduce, \
         pshmem_##TN##_##OP##_reduce(c->team, c->dest, c->src, c->nelems)) \
    CALL(TN##_##OP##_reducescatter, \
         shmemx_##TN##_##OP##_reducescatter(c->team, c->dest, c->src, c->nelems)) \
    SHMEM_API int shmemx_##TN##_##OP##_reduce_on_stream(shmem_team_t team, TYPE *dest, \
                                                        const TYPE *source, size_t nreduce, \
                                                        shmemx_stream_t stream) \
    { \
        return coll_on_stream(C_REDUCE, team, dest, source, nreduce, sizeof(TYPE), 0, \
                              call_##TN##_##OP##_reduce, stream, \
                              "shmemx_" #TN "_" #OP "_reduce_on_stream"); \
    } \
    SHMEM_API int shmemx_##TN##_##OP##_reducescatter_on_stream( \
        shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce, \
        shmemx_stream_t stream) \
    { \
        return coll_on_stream(C_SCATTER, team, dest, source, nreduce, sizeof(TYPE), 0, \
                              call_##TN##_##OP##_reducescatter, stream, \
                              "shmemx_" #TN "_" #OP "_reducescatter_on_stream"); \
    }
#define RED_BITWISE(TYPE, TN) RED_OP(TYPE, TN, and) RED_OP(TYPE, TN, or) RED_OP(TYPE, TN, xor)
#define RED_MINMAX(TYPE, TN) RED_OP(TYPE, TN, max) RED_OP(TYPE, TN, min)
#define RED_ARITH(TYPE, TN) RED_OP(TYPE, TN, sum) RED_OP(TYPE, TN, prod)
SHMEMI_REDUCE_BITWISE_TYPES(RED_BITWISE)
SHMEMI_REDUCE_MINMAX_TYPES(RED_MINMAX)
SHMEMI_REDUCE_ARITH_TYPES(RED_ARITH)
SHMEMI_REDUCE_COMPLEX_TYPES(RED_ARITH)
