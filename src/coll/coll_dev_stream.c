/*
 * Team synchronizations and collectives on a CUDA stream (coll.h,
 * docs/gpu.md "CUDA streams"), for teams whose members map each other's
 * device heaps.
 *
 * The synchronization: the team's slot owns SHMEMI_DSYNC_MEMBERS words of
 * shmemi_g.dheap_sync on every member; word j is written only by member
 * j.  The k-th synchronization of the team on a member queues, on its
 * CUDA stream, a write of k into its word on every other member (through
 * the mapping, a stream memory operation that is ordered after the work
 * before it and fenced), then a wait until each other member's word on
 * itself is at least k.  The GPU does all of it: no host thread polls.
 * The words are zero when a team takes the slot: at init, and
 * shmem_team_destroy clears them after its sync of the team
 * (shmemi_dev_sync_clear), so nothing of this PE's host waits for a
 * peer's when work is enqueued.
 *
 * A collective is a synchronization (every source is ready), the copies
 * or the reduction kernel on the stream, reading the peers' sources
 * through the mappings, and a second synchronization (every read of this
 * PE's source is done before its owner may write it again).
 *
 * A reduction or reducescatter that is not in place and whose result has
 * at most SHMEMI_DSTREAM_FUSED_MAX bytes is one kernel (the fused one,
 * shmemi_redf_* of src/cuda/cuda_kern.cu) that makes both
 * synchronizations itself, with the same words and the next two epochs:
 * each stream memory operation costs about 2 us, which dominates a small
 * reduction.  Its block 0 stores the first epoch into this PE's word on
 * every peer and every block waits for the peers' before reading; the
 * last block to finish (counted on shmemi_g.dheap_ctr[slot], which it
 * resets to 0) stores the second epoch and waits for the peers', so the
 * kernel ends when every peer has read this PE's source.  All its blocks
 * are resident at once (at most 128).  The epochs are the team's one
 * counter, so fused and unfused collectives follow each other freely.
 */
#include "coll/coll_reduce.h"
#include "core/dev.h"
#include "core/rma.h"

int shmemi_coll_dev_stream_team(shmem_team_t team)
{
    struct shmemi_team *t = team;
    int i;

    if (!shmemi_g.dheap_sync || !shmemi_team_ok(t) || t->slot < 0 ||
        t->slot >= shmemi_g.env.teams_max || t->n_pes > SHMEMI_DSYNC_MEMBERS)
        return 0;
    for (i = 0; i < t->n_pes; i++)
        if (!shmemi_g.peer_dheap[t->pes[i]])
            return 0;
    return 1;
}

/* This member's words of t's slot. */
static uint64_t *sync_words(const struct shmemi_team *t)
{
    return shmemi_dev_sync_row(t->slot);
}

/* The offset in the device heap of this member's word among the words
 * of t's slot (on every member: the same offset everywhere). */
static size_t my_word_off(const struct shmemi_team *t)
{
    return (size_t)((char *)sync_words(t) - shmemi_g.dheap_base) +
           (size_t)t->my_pe * sizeof(uint64_t);
}

int shmemi_coll_dev_gpu_sync(struct shmemi_team *t, void *cs, const char *rtn)
{
    size_t off = my_word_off(t);
    uint64_t k;
    int rc, j;

    k = ++t->gpu_epoch;
    for (j = 0; j < t->n_pes; j++)
        if (j != t->my_pe &&
            (rc = shmemi_cuda_write_on(cs, shmemi_g.peer_dheap[t->pes[j]] + off, k, 8, rtn)))
            return rc;
    for (j = 0; j < t->n_pes; j++)
        if (j != t->my_pe &&
            (rc = shmemi_cuda_wait_on(cs, sync_words(t) + j, 8, 0, SHMEM_CMP_GE, k, rtn)))
            return rc;
    return 0;
}

/* The team is one whose synchronizations can be the GPU's. */
static int team_check(struct shmemi_team *t, const char *rtn)
{
    int rc = shmemi_coll_check_team(t, rtn);

    if (rc)
        return rc;
    if (!shmemi_coll_dev_stream_team(t))
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "a collective on a CUDA stream takes "
                          "teams whose PEs map each other's device heaps (within "
                          "SHMEM_TEAM_SHARED), of at most %d PEs", SHMEMI_DSYNC_MEMBERS);
    return 0;
}

int shmemi_coll_dev_sync_on(shmem_team_t team, void *cs, const char *rtn)
{
    int rc = team_check(team, rtn);

    return rc ? rc : shmemi_coll_dev_gpu_sync(team, cs, rtn);
}

/* Pulls n blocks of len bytes (dst[i] <- src[i]) between two
 * synchronizations on cs. */
static int pull_on(struct shmemi_team *t, void *const *dst, const void *const *src, int n,
                   size_t len, void *cs, const char *rtn)
{
    int rc, i;

    if ((rc = shmemi_coll_dev_gpu_sync(t, cs, rtn)))
        return rc;
    for (i = 0; i < n; i++)
        if ((rc = shmemi_cuda_copy_on(cs, dst[i], src[i], len, rtn)))
            return rc;
    return shmemi_coll_dev_gpu_sync(t, cs, rtn);
}

/* len = nelems * elsize (times members when per_member), checked. */
static int sizes(struct shmemi_team *t, size_t nelems, size_t elsize, size_t *len_p,
                 size_t *all_p, const char *rtn)
{
    int rc = shmemi_nbytes(nelems, elsize, len_p, rtn);

    if (rc)
        return rc;
    if (__builtin_mul_overflow(*len_p, (size_t)t->n_pes, all_p))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nelems, elsize);
    return 0;
}

int shmemi_coll_dev_bcast_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                             size_t elsize, int root, void *cs, const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len, all;
    void *d[1] = { dest };
    const void *s[1];
    int rc;

    if ((rc = team_check(t, rtn)) || (rc = sizes(t, nelems, elsize, &len, &all, rtn)) ||
        (rc = shmemi_coll_dev_check(t, dest, len, src, len, &doff, &soff, rtn)))
        return rc;
    if (root < 0 || root >= t->n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE_root %d is out of range (the "
                          "team has %d PEs)", root, t->n_pes);
    s[0] = shmemi_g.peer_dheap[t->pes[root]] + soff;
    /* The root's dest too, as the host broadcast of OpenSHMEM 1.5 does. */
    return pull_on(t, d, s, dest == src && t->my_pe == root ? 0 : 1, len, cs, rtn);
}

/* fcollect (alltoall 0: block j of dest is member j's source) or
 * alltoall (block j of dest is block me of member j's source). */
static int collect_on(struct shmemi_team *t, void *dest, const void *src, size_t nelems,
                      size_t elsize, int alltoall, void *cs, const char *rtn)
{
    void *d[SHMEMI_DSYNC_MEMBERS];
    const void *s[SHMEMI_DSYNC_MEMBERS];
    uint64_t doff, soff;
    size_t len, all;
    int rc, i;

    if ((rc = team_check(t, rtn)) || (rc = sizes(t, nelems, elsize, &len, &all, rtn)) ||
        (rc = shmemi_coll_dev_check(t, dest, all, src, alltoall ? all : len, &doff, &soff,
                                    rtn)))
        return rc;
    for (i = 0; i < t->n_pes; i++) {
        d[i] = (char *)dest + (size_t)i * len;
        s[i] = shmemi_g.peer_dheap[t->pes[i]] + soff + (alltoall ? (size_t)t->my_pe * len : 0);
    }
    return pull_on(t, d, s, t->n_pes, len, cs, rtn);
}

int shmemi_coll_dev_fcollect_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                                size_t elsize, void *cs, const char *rtn)
{
    return collect_on(team, dest, src, nelems, elsize, 0, cs, rtn);
}

int shmemi_coll_dev_alltoall_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                                size_t elsize, void *cs, const char *rtn)
{
    return collect_on(team, dest, src, nelems, elsize, 1, cs, rtn);
}

int shmemi_coll_dev_fused_on(struct shmemi_team *t, int tc, int op, void *out,
                             const void *const *srcs, size_t nreduce, void *cs, const char *rtn)
{
    void *peer[SHMEMI_CUDA_RED_MAXSRC];
    size_t off = my_word_off(t);
    uint64_t k1, k2;
    int j;

    k1 = ++t->gpu_epoch;
    k2 = ++t->gpu_epoch;
    for (j = 0; j < t->n_pes; j++)
        peer[j] = shmemi_g.peer_dheap[t->pes[j]] + off;
    return shmemi_cuda_reduce_fused(tc, op, out, srcs, t->n_pes, nreduce, sync_words(t), peer,
                                    t->my_pe, k1, k2, shmemi_g.dheap_ctr + t->slot, cs, rtn);
}

/* The reduction or reduce-scatter: the checks (coll_dev_reduce.c's, the
 * same as the blocking forms'), then the registry's algorithm with the
 * synchronizations on cs. */
int shmemi_coll_dev_reduce_on(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                              const void *source, size_t nreduce, int scatter, void *cs,
                              const char *rtn)
{
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t len;
    int rc, overlap, mapped;

    if ((rc = team_check(team, rtn)) ||
        (rc = shmemi_coll_dev_red_prep(team, tc, op, esize, dest, source, nreduce, scatter, srcs,
                                       &len, &overlap, &mapped, rtn)))
        return rc;
    return shmemi_coll_dev_red_run(team, tc, op, esize, dest, source, srcs, nreduce, len,
                                   scatter, overlap, mapped, cs, rtn);
}
