/*
 * The collectives on GPU memory of the device heap (docs/gpu.md,
 * "Collectives on device buffers"): broadcast, fcollect and alltoall on a
 * team whose members all map each other's device heaps, by copies of the
 * GPU from the peers' mapped heaps (each PE pulls what it receives), between
 * two syncs of the team: the first says that every source is ready, the
 * second that every copy reading it is done.  Like RMA on device memory,
 * each is complete at return, and a source written by the caller's own
 * kernels must be synchronized by the caller first.  The reductions
 * (every type and operation of the host's but long double) and
 * reduce-scatter are the library's kernels (core/cuda.h), one-shot: each
 * PE combines every member's source (for reduce-scatter, the member's
 * block for this PE), read through its mapping, into its dest.  The other
 * forms (scans, the strided alltoall, collect) refuse device buffers.
 */
#include "coll/coll_reduce.h"
#include "core/dev.h"
#include <stdlib.h>

int shmemi_coll_dev_case(const void *dest, const void *src)
{
    uint64_t off;

    return shmemi_g.dheap_size &&
           (shmemi_dev_range(dest, 1, &off) || shmemi_dev_range(src, 1, &off));
}

/* The common checks: the team, both buffers inside the device heap (their
 * offsets in *doff_p and *soff_p), every member's heap mapped here. */
static int dev_check(struct shmemi_team *t, const void *dest, size_t dlen, const void *src,
                     size_t slen, uint64_t *doff_p, uint64_t *soff_p, const char *rtn)
{
    int rc = shmemi_coll_check_team(t, rtn), i;

    if (rc)
        return rc;
    if (!shmemi_dev_range(dest, dlen ? dlen : 1, doff_p) ||
        !shmemi_dev_range(src, slen ? slen : 1, soff_p))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "dest (%p, %zu bytes) and source "
                          "(%p, %zu bytes) must both lie in the device heap when one of them "
                          "is GPU memory of it", dest, dlen, src, slen);
    for (i = 0; i < t->n_pes; i++)
        if (!shmemi_g.peer_dheap[t->pes[i]])
            return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "dest and source are GPU memory, "
                              "and PE %d of the team does not map this PE's device heap: "
                              "collectives on GPU memory take teams within "
                              "SHMEM_TEAM_SHARED (docs/gpu.md)", t->pes[i]);
    return 0;
}

/* Pulls n blocks (dst[i] <- src[i], len bytes each) between two syncs of
 * the team. */
static int dev_pull(struct shmemi_team *t, void **dst, const void **src, int n, size_t len,
                    const char *rtn)
{
    size_t *lens = malloc(sizeof(size_t) * (size_t)(n ? n : 1));
    int rc, i;

    if (!lens)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    for (i = 0; i < n; i++)
        lens[i] = len;
    rc = shmemi_coll_ready(t);
    if (!rc)
        rc = shmemi_coll_sync_team(t);
    if (!rc) {
        /* The second sync even after a failed copy: the peers wait for it. */
        int rc2;
        rc = shmemi_cuda_copyv(dst, src, lens, n, rtn);
        rc2 = shmemi_coll_sync_team(t);
        rc = rc ? rc : rc2;
    }
    free(lens);
    return rc;
}

int shmemi_coll_dev_bcast(shmem_team_t team, void *dest, const void *src, size_t nelems,
                          size_t elsize, int root, int write_root, const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len;
    void *d[1];
    const void *s[1];
    int rc;

    if ((rc = shmemi_nbytes(nelems, elsize, &len, rtn)) ||
        (rc = dev_check(t, dest, len, src, len, &doff, &soff, rtn)))
        return rc;
    if (root < 0 || root >= t->n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE_root %d is out of range (the "
                          "team has %d PEs)", root, t->n_pes);
    d[0] = dest;
    s[0] = shmemi_g.peer_dheap[t->pes[root]] + soff;
    return dev_pull(t, d, s, t->my_pe != root || write_root ? 1 : 0, len, rtn);
}

int shmemi_coll_dev_fcollect(shmem_team_t team, void *dest, const void *src, size_t nelems,
                             size_t elsize, const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len, all;
    void **d;
    const void **s;
    int rc, i;

    if ((rc = shmemi_nbytes(nelems, elsize, &len, rtn)))
        return rc;
    if (__builtin_mul_overflow(len, (size_t)(t && shmemi_team_ok(t) ? t->n_pes : 1), &all))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nelems, elsize);
    if ((rc = dev_check(t, dest, all, src, len, &doff, &soff, rtn)))
        return rc;
    d = malloc(sizeof(void *) * (size_t)t->n_pes);
    s = malloc(sizeof(void *) * (size_t)t->n_pes);
    if (!d || !s) {
        free(d);
        free(s);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    for (i = 0; i < t->n_pes; i++) {
        d[i] = (char *)dest + (size_t)i * len;
        s[i] = shmemi_g.peer_dheap[t->pes[i]] + soff;
    }
    rc = dev_pull(t, d, s, t->n_pes, len, rtn);
    free(d);
    free(s);
    return rc;
}

int shmemi_coll_dev_alltoall(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len, all;
    void **d;
    const void **s;
    int rc, i;

    if (dst != 1 || sst != 1)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "strides dst %td and sst %td: the "
                          "strided alltoall does not take GPU memory yet (docs/gpu.md)", dst,
                          sst);
    if ((rc = shmemi_nbytes(nelems, elsize, &len, rtn)))
        return rc;
    if (__builtin_mul_overflow(len, (size_t)(t && shmemi_team_ok(t) ? t->n_pes : 1), &all))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nelems, elsize);
    if ((rc = dev_check(t, dest, all, src, all, &doff, &soff, rtn)))
        return rc;
    d = malloc(sizeof(void *) * (size_t)t->n_pes);
    s = malloc(sizeof(void *) * (size_t)t->n_pes);
    if (!d || !s) {
        free(d);
        free(s);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    /* Block j of my dest is block me of member j's source. */
    for (i = 0; i < t->n_pes; i++) {
        d[i] = (char *)dest + (size_t)i * len;
        s[i] = shmemi_g.peer_dheap[t->pes[i]] + soff + (size_t)t->my_pe * len;
    }
    rc = dev_pull(t, d, s, t->n_pes, len, rtn);
    free(d);
    free(s);
    return rc;
}

/* The checks of the reductions beyond dev_check's: a GPU kernel for the
 * type and operation, and a team small enough for it. */
static int dev_red_check(struct shmemi_team *t, int tc, int op, const char *rtn)
{
    if (tc == SHMEMI_RT_LD)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "dest and source are GPU memory, "
                          "and long double cannot be reduced on the GPU (it has no such "
                          "type): reduce long double in host memory");
    if (!shmemi_cuda_reduce_ok(tc, op))
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "%s: internal: no GPU reduction kernel "
                                "for type %d and operation %d", rtn, tc, op);
    if (t->n_pes > SHMEMI_CUDA_RED_MAXSRC)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "dest and source are GPU memory: "
                          "the reductions on GPU memory take teams of up to %d PEs yet (this "
                          "one has %d)", SHMEMI_CUDA_RED_MAXSRC, t->n_pes);
    return 0;
}

/* The one-shot reduction of count elements of the team's sources srcs[]
 * into dest (len bytes) between the syncs of the team.  With via_scratch
 * (dest overlaps this PE's source, which the peers read until the second
 * sync) the kernel writes a scratch block that is copied into dest after
 * the second sync, and a third sync keeps the peers from writing that dest
 * before the copy is done.  After a failure here (the scratch, the kernel)
 * the syncs are still taken: the peers wait for them. */
static int dev_red_run(struct shmemi_team *t, int tc, int op, void *dest, const void *const *srcs,
                       size_t count, size_t len, int via_scratch, const char *rtn)
{
    void *out = dest;
    int rc, rc2;

    /* Nothing to reduce: no communication, as on the host. */
    if (len == 0)
        return 0;
    if ((rc = shmemi_coll_ready(t)) || (rc = shmemi_coll_sync_team(t)))
        return rc;
    if (via_scratch && !(out = shmemi_cuda_scratch(len, rtn)))
        rc = shmemi_err_last()->code;
    if (!rc)
        rc = shmemi_cuda_reduce(tc, op, out, srcs, t->n_pes, count, NULL, rtn);
    rc2 = shmemi_coll_sync_team(t);
    rc = rc ? rc : rc2;
    if (via_scratch) {
        if (!rc)
            rc = shmemi_cuda_copy(dest, out, len, rtn);
        rc2 = shmemi_coll_sync_team(t);
        rc = rc ? rc : rc2;
    }
    return rc;
}

int shmemi_coll_dev_red_prep(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                             const void *source, size_t nreduce, int scatter,
                             const void **srcs, size_t *len_p, int *via_scratch_p,
                             const char *rtn)
{
    struct shmemi_team *t = team;
    uint64_t doff, soff;
    size_t len, all;
    int rc, i, overlap;

    if ((rc = shmemi_nbytes(nreduce, esize, &len, rtn)))
        return rc;
    if (__builtin_mul_overflow(len, (size_t)(t && shmemi_team_ok(t) ? t->n_pes : 1), &all))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nreduce, esize);
    if (!scatter)
        all = len;
    if ((rc = dev_check(t, dest, len, source, all, &doff, &soff, rtn)) ||
        (rc = dev_red_check(t, tc, op, rtn)))
        return rc;
    overlap = (uintptr_t)dest < (uintptr_t)source + all &&
              (uintptr_t)source < (uintptr_t)dest + len;
    /* A reduction takes dest == source (in place), not a partial overlap;
     * a reduce-scatter's dest may lie anywhere in its source. */
    if (!scatter && overlap && dest != source)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "arguments dest (%p) and source "
                          "(%p) overlap", dest, source);
    for (i = 0; i < t->n_pes; i++)
        srcs[i] = shmemi_g.peer_dheap[t->pes[i]] + soff + (scatter ? (size_t)t->my_pe * len : 0);
    *len_p = len;
    *via_scratch_p = overlap;
    return 0;
}

/* The reduction and the reduce-scatter: the checks, then the one-shot
 * kernel between the syncs (through the scratch block when dest overlaps
 * this PE's source). */
int shmemi_coll_dev_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                           const void *source, size_t nreduce, const char *rtn)
{
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t len;
    int rc, via_scratch;

    if ((rc = shmemi_coll_dev_red_prep(team, tc, op, esize, dest, source, nreduce, 0, srcs, &len,
                                       &via_scratch, rtn)))
        return rc;
    return dev_red_run(team, tc, op, dest, srcs, nreduce, len, via_scratch, rtn);
}

int shmemi_coll_dev_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                                  const void *source, size_t nreduce, const char *rtn)
{
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t len;
    int rc, via_scratch;

    if ((rc = shmemi_coll_dev_red_prep(team, tc, op, esize, dest, source, nreduce, 1, srcs, &len,
                                       &via_scratch, rtn)))
        return rc;
    return dev_red_run(team, tc, op, dest, srcs, nreduce, len, via_scratch, rtn);
}

int shmemi_coll_dev_check(shmem_team_t team, const void *dest, size_t dlen, const void *src,
                          size_t slen, uint64_t *doff_p, uint64_t *soff_p, const char *rtn)
{
    return dev_check(team, dest, dlen, src, slen, doff_p, soff_p, rtn);
}
