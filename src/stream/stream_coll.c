/*
 * The enqueue of team synchronizations and collectives on streams
 * (stream.h): barrier, sync, broadcast, fcollect, alltoall, the
 * reductions and reduce-scatter, each checked when it is enqueued by the
 * collective's own check (coll.h, coll_reduce.h: the team, PE_root, the
 * sizes, the symmetric extents, the overlap of a reduction's buffers),
 * which the executor's call of the collective makes again when it runs.
 * Every member of the team enqueues the collective on one of its streams,
 * in the same order as its other collectives on that team, and the team
 * stays alive until the stream has executed it.  Arguments that must
 * agree across the members (nelems, PE_root) are each PE's own business,
 * as for the team routines.
 */
#include "stream/stream_int.h"

/* The check of a collective's work item. */
typedef int (*coll_check_t)(const shmemi_work_t *w);

/* Looks the stream up, checks w (a refusal is the stream's), enqueues it. */
static int coll_enqueue(shmemx_stream_t stream, const shmemi_work_t *w, coll_check_t check)
{
    struct shmemx_stream *s;
    int rc = shmemi_stream_lookup(stream, &s, w->rtn);

    if (rc)
        return rc;
    /* Device buffers on a CUDA stream: the GPU's collective checks them
     * as it issues them (src/coll/coll_dev_stream.c). */
    if (shmemi_stream_is_cuda(s) && w->kind == SHMEMI_W_COLL &&
        shmemi_coll_dev_case(w->dest, w->src))
        return shmemi_stream_enqueue(s, w);
    if ((rc = check(w)))
        return shmemi_stream_refused(s, rc);
    return shmemi_stream_enqueue(s, w);
}

static int check_team(const shmemi_work_t *w)
{
    return shmemi_coll_check_team(w->team, w->rtn);
}

static int check_bcast(const shmemi_work_t *w)
{
    return shmemi_coll_bcast_check(w->team, w->dest, w->src, w->nelems, w->len, w->pe, w->rtn);
}

static int check_fcollect(const shmemi_work_t *w)
{
    return shmemi_coll_collect_check(w->team, w->dest, w->src, w->nelems, w->len, 1, w->rtn);
}

static int check_alltoall(const shmemi_work_t *w)
{
    return shmemi_coll_alltoall_check(w->team, w->dest, w->src, 1, 1, w->nelems, w->len,
                                      w->rtn);
}

static int check_reduce(const shmemi_work_t *w)
{
    if (w->coll == SHMEMI_WC_REDUCESCATTER)
        return shmemi_reducescatter_check(w->team, w->tc, w->op, w->len, w->dest, w->src,
                                          w->nelems, w->rtn);
    return shmemi_reduce_check(w->team, w->tc, w->op, w->len, w->dest, w->src, w->nelems,
                               w->rtn);
}

int shmemi_stream_barrier(shmemx_stream_t stream, shmem_team_t team, int sync_only,
                          const char *rtn)
{
    shmemi_work_t w = { .kind = sync_only ? SHMEMI_W_SYNC : SHMEMI_W_BARRIER, .rtn = rtn,
                        .team = team };

    return coll_enqueue(stream, &w, check_team);
}

int shmemi_stream_bcast(shmemx_stream_t stream, shmem_team_t team, void *dest, const void *src,
                        size_t nelems, size_t elsize, int root, const char *rtn)
{
    shmemi_work_t w = { .kind = SHMEMI_W_COLL, .coll = SHMEMI_WC_BCAST, .rtn = rtn,
                        .team = team, .dest = dest, .src = src, .nelems = nelems,
                        .len = elsize, .pe = root };

    return coll_enqueue(stream, &w, check_bcast);
}

int shmemi_stream_fcollect(shmemx_stream_t stream, shmem_team_t team, void *dest,
                           const void *src, size_t nelems, size_t elsize, const char *rtn)
{
    shmemi_work_t w = { .kind = SHMEMI_W_COLL, .coll = SHMEMI_WC_FCOLLECT, .rtn = rtn,
                        .team = team, .dest = dest, .src = src, .nelems = nelems,
                        .len = elsize };

    return coll_enqueue(stream, &w, check_fcollect);
}

int shmemi_stream_alltoall(shmemx_stream_t stream, shmem_team_t team, void *dest,
                           const void *src, size_t nelems, size_t elsize, const char *rtn)
{
    shmemi_work_t w = { .kind = SHMEMI_W_COLL, .coll = SHMEMI_WC_ALLTOALL, .rtn = rtn,
                        .team = team, .dest = dest, .src = src, .nelems = nelems,
                        .len = elsize };

    return coll_enqueue(stream, &w, check_alltoall);
}

int shmemi_stream_reduce(shmemx_stream_t stream, shmem_team_t team, int tc, int op,
                         size_t esize, void *dest, const void *src, size_t nreduce, int scatter,
                         const char *rtn)
{
    shmemi_work_t w = { .kind = SHMEMI_W_COLL,
                        .coll = scatter ? SHMEMI_WC_REDUCESCATTER : SHMEMI_WC_REDUCE,
                        .rtn = rtn, .team = team, .dest = dest, .src = src, .nelems = nreduce,
                        .len = esize, .tc = tc, .op = op };

    return coll_enqueue(stream, &w, check_reduce);
}
