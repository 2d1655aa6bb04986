/*
 * The collectives on GPU memory of the device heap (docs/gpu.md,
 * "Collectives on device buffers"): broadcast, fcollect and alltoall, by
 * copies of the GPU from the peers' mapped heaps where the team's members
 * all map each other's device heaps, else by the core's gets (the
 * provider or staging reach the PEs that are not mapped): each PE pulls
 * what it receives, between two syncs of the team: the first says that every source is ready, the
 * second that every copy reading it is done.  Like RMA on device memory,
 * each is complete at return, and a source written by the caller's own
 * kernels must be synchronized by the caller first.  The reductions are
 * coll_dev_reduce.c's.  The other forms (scans, the strided alltoall,
 * collect) refuse device buffers.
 */
#include "coll/coll_reduce.h"
#include "core/dev.h"
#include "core/rma.h"
#include <stdlib.h>

int shmemi_coll_dev_case(const void *dest, const void *src)
{
    uint64_t off;

    return shmemi_g.dheap_size &&
           (shmemi_dev_range(dest, 1, &off) || shmemi_dev_range(src, 1, &off));
}

/* The common checks: the team, both buffers inside the device heap (their
 * offsets in *doff_p and *soff_p). */
static int dev_check(struct shmemi_team *t, const void *dest, size_t dlen, const void *src,
                     size_t slen, uint64_t *doff_p, uint64_t *soff_p, const char *rtn)
{
    int rc = shmemi_coll_check_team(t, rtn);

    if (rc)
        return rc;
    if (!shmemi_dev_range(dest, dlen ? dlen : 1, doff_p) ||
        !shmemi_dev_range(src, slen ? slen : 1, soff_p))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "dest (%p, %zu bytes) and source "
                          "(%p, %zu bytes) must both lie in the device heap when one of them "
                          "is GPU memory of it", dest, dlen, src, slen);
    return 0;
}

int shmemi_coll_dev_mapped(shmem_team_t team)
{
    struct shmemi_team *t = team;

    for (int i = 0; i < t->n_pes; i++)
        if (!shmemi_g.peer_dheap[t->pes[i]])
            return 0;
    return 1;
}

/* Pulls n blocks of len bytes between two syncs of the team: dst[i] gets
 * what sym[i] (an address of the device heap) holds on member mem[i]
 * (member i where mem is NULL).
 * Where every member maps every other's heap, copies of the GPU queued
 * together and waited for once; else the core's gets (copies of the GPU
 * from mapped PEs, the provider or staging from the others). */
static int dev_pull(struct shmemi_team *t, void **dst, const char *const *sym, const int *mem,
                    int n, size_t len, const char *rtn)
{
    size_t *lens = malloc(sizeof(size_t) * (size_t)(n ? n : 1));
    const void **src = malloc(sizeof(void *) * (size_t)(n ? n : 1));
    int mapped = shmemi_coll_dev_mapped(t), rc, rc2, i;

    if (!lens || !src) {
        free(lens);
        free(src);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    for (i = 0; i < n; i++) {
        uint64_t off = 0;

        lens[i] = len;
        src[i] = mapped && shmemi_dev_range(sym[i], len ? len : 1, &off)
                     ? shmemi_g.peer_dheap[t->pes[mem ? mem[i] : i]] + off
                     : NULL;
    }
    rc = shmemi_coll_ready(t);
    if (!rc)
        rc = shmemi_coll_sync_team(t);
    if (!rc) {
        /* The second sync even after a failed copy: the peers wait for it. */
        if (mapped)
            rc = shmemi_cuda_copyv(dst, src, lens, n, rtn);
        for (i = 0; !mapped && i < n && !rc; i++)
            rc = shmemi_get_w(SHMEM_CTX_DEFAULT, dst[i], sym[i], len, t->pes[mem ? mem[i] : i],
                              0, rtn);
        rc2 = shmemi_coll_sync_team(t);
        rc = rc ? rc : rc2;
    }
    free(lens);
    free(src);
    return rc;
}

/* The checks of the broadcast: the bytes into *len_p. */
static int bcast_check(struct shmemi_team *t, void *dest, const void *src, size_t nelems,
                       size_t elsize, int root, size_t *len_p, const char *rtn)
{
    uint64_t doff, soff;
    int rc;

    if ((rc = shmemi_nbytes(nelems, elsize, len_p, rtn)) ||
        (rc = dev_check(t, dest, *len_p, src, *len_p, &doff, &soff, rtn)))
        return rc;
    if (root < 0 || root >= t->n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE_root %d is out of range (the "
                          "team has %d PEs)", root, t->n_pes);
    return 0;
}

int shmemi_coll_dev_bcast(shmem_team_t team, void *dest, const void *src, size_t nelems,
                          size_t elsize, int root, int write_root, const char *rtn)
{
    struct shmemi_team *t = team;
    size_t len;
    void *d[1] = { dest };
    const char *s[1] = { src };
    int rc;

    if ((rc = bcast_check(t, dest, src, nelems, elsize, root, &len, rtn)))
        return rc;
    return dev_pull(t, d, s, &root, t->my_pe != root || write_root ? 1 : 0, len, rtn);
}

/* The checks of fcollect (alltoall 0) and alltoall: the bytes of a block
 * into *len_p. */
static int collect_check(struct shmemi_team *t, void *dest, const void *src, size_t nelems,
                         size_t elsize, int alltoall, size_t *len_p, const char *rtn)
{
    uint64_t doff, soff;
    size_t all;
    int rc;

    if ((rc = shmemi_nbytes(nelems, elsize, len_p, rtn)))
        return rc;
    if (__builtin_mul_overflow(*len_p, (size_t)(t && shmemi_team_ok(t) ? t->n_pes : 1), &all))
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "nelems %zu times element size %zu "
                          "times the team's PEs overflows size_t", nelems, elsize);
    return dev_check(t, dest, all, src, alltoall ? all : *len_p, &doff, &soff, rtn);
}

/* fcollect (alltoall 0: block j of dest is member j's source) or alltoall
 * (block j of dest is block me of member j's source). */
static int dev_collect(struct shmemi_team *t, void *dest, const void *src, size_t nelems,
                       size_t elsize, int alltoall, const char *rtn)
{
    size_t len;
    void **d;
    const char **s;
    int rc, i;

    if ((rc = collect_check(t, dest, src, nelems, elsize, alltoall, &len, rtn)))
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
        s[i] = (const char *)src + (alltoall ? (size_t)t->my_pe * len : 0);
    }
    rc = dev_pull(t, d, s, NULL, t->n_pes, len, rtn);
    free(d);
    free(s);
    return rc;
}

int shmemi_coll_dev_fcollect(shmem_team_t team, void *dest, const void *src, size_t nelems,
                             size_t elsize, const char *rtn)
{
    return dev_collect(team, dest, src, nelems, elsize, 0, rtn);
}

int shmemi_coll_dev_alltoall(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn)
{
    if (dst != 1 || sst != 1)
        return shmemi_err(SHMEMX_ERROR_NOT_SUPPORTED, rtn, "strides dst %td and sst %td: the "
                          "strided alltoall does not take GPU memory yet (docs/gpu.md)", dst,
                          sst);
    return dev_collect(team, dest, src, nelems, elsize, 1, rtn);
}

int shmemi_coll_dev_check_coll(shmem_team_t team, int kind, void *dest, const void *src,
                               size_t nelems, size_t elsize, int root, int tc, int op,
                               const char *rtn)
{
    struct shmemi_team *t = team;
    const void *srcs[SHMEMI_CUDA_RED_MAXSRC];
    size_t len;
    int rc = shmemi_coll_check_team(t, rtn), overlap, mapped;

    if (rc)
        return rc;
    switch (kind) {
    case SHMEMI_CK_BCAST:
        return bcast_check(t, dest, src, nelems, elsize, root, &len, rtn);
    case SHMEMI_CK_COLLECT:
    case SHMEMI_CK_ALLTOALL:
        return collect_check(t, dest, src, nelems, elsize, kind == SHMEMI_CK_ALLTOALL, &len,
                             rtn);
    default: /* SHMEMI_CK_REDUCE; root 1: reduce-scatter */
        return shmemi_coll_dev_red_prep(t, tc, op, elsize, dest, src, nelems, root, srcs, &len,
                                        &overlap, &mapped, rtn);
    }
}

int shmemi_coll_dev_check(shmem_team_t team, const void *dest, size_t dlen, const void *src,
                          size_t slen, uint64_t *doff_p, uint64_t *soff_p, const char *rtn)
{
    return dev_check(team, dest, dlen, src, slen, doff_p, soff_p, rtn);
}
