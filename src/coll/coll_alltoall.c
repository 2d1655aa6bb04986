/*
 * alltoall and alltoalls: the low-latency lines, the one-sync small path
 * and the direct path of node teams, and the pairwise exchange of put with
 * signal, and their table in the registry.  No hierarchical form (it would
 * move the same bytes between nodes through one PE per node,
 * docs/design/collectives.md).
 */
#include "coll/coll.h"
#include "core/rma.h"

/* Copies nelems elements of elsize bytes from from (every fst-th element)
 * to to (every tst-th): one memcpy when both are contiguous. */
static void copy_strided(char *to, ptrdiff_t tst, const char *from, ptrdiff_t fst, size_t nelems,
                         size_t elsize)
{
    if (tst == 1 && fst == 1) {
        if (nelems)  /* a zero-size alltoall may pass null buffers */
            memcpy(to, from, nelems * elsize);
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        memcpy(to + i * (size_t)tst * elsize, from + i * (size_t)fst * elsize, elsize);
}

/* The same with memmove (a member's own block, which may overlap). */
static void move_strided(char *to, ptrdiff_t tst, const char *from, ptrdiff_t fst, size_t nelems,
                         size_t elsize)
{
    if (tst == 1 && fst == 1) {
        if (nelems)  /* a zero-size alltoall may pass null buffers */
            memmove(to, from, nelems * elsize);
        return;
    }
    for (size_t i = 0; i < nelems; i++)
        memmove(to + i * (size_t)tst * elsize, from + i * (size_t)fst * elsize, elsize);
}

/* Bytes between the starts of two blocks of dest and of src. */
static inline size_t bstride(const shmemi_coll_args_t *a, ptrdiff_t st)
{
    return a->nelems * (size_t)st * a->elsize;
}

/* Tiny: my n blocks packed in my low-latency line, then my block out of
 * every member's. */
static int alltoall_ll(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    int n = t->n_pes, me = t->my_pe, k;
    size_t blk = a->len, bd = bstride(a, a->dst), bs = bstride(a, a->sst);
    char mine[SHMEMI_TEAM_LL_BYTES];
    uint64_t e = shmemi_team_begin(t);

    for (k = 0; k < n; k++)
        copy_strided(mine + (size_t)k * blk, 1, (const char *)a->src + (size_t)k * bs, a->sst,
                     a->nelems, a->elsize);
    shmemi_team_ll_publish(t, e, mine, (size_t)n * blk);
    for (k = 0; k < n; k++)
        copy_strided((char *)a->dest + (size_t)k * bd, a->dst,
                     (const char *)shmemi_team_ll_wait(t, e, k) + (size_t)me * blk, 1, a->nelems,
                     a->elsize);
    shmemi_team_synced(t, e);
    return 0;
}

/* One sync: my n blocks packed into my scratch, then everybody takes its
 * block from every member's scratch. */
static int alltoall_small(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    int n = t->n_pes, me = t->my_pe, k, rc;
    size_t blk = a->len, bd = bstride(a, a->dst), bs = bstride(a, a->sst);
    uint64_t e = shmemi_team_begin(t);
    char *mine = shmemi_coll_small_buf(t, e, t->pes[me]);

    for (k = 0; k < n; k++)
        copy_strided(mine + (size_t)k * blk, 1, (const char *)a->src + (size_t)k * bs, a->sst,
                     a->nelems, a->elsize);
    if ((rc = shmemi_team_ready(t, e)))
        return rc;
    for (k = 0; k < n; k++)
        copy_strided((char *)a->dest + (size_t)k * bd, a->dst,
                     shmemi_coll_small_buf(t, e, t->pes[k]) + (size_t)me * blk, 1, a->nelems,
                     a->elsize);
    return 0;
}

/* Sync, every member copies its block straight out of every member's
 * source, sync. */
static int alltoall_direct(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    int n = t->n_pes, me = t->my_pe, k;
    size_t bd = bstride(a, a->dst), bs = bstride(a, a->sst);
    size_t span_s = (a->nelems ? (a->nelems - 1) * (size_t)a->sst + 1 : 0) * a->elsize;
    const char *src = a->src;
    int rc;

    if ((rc = shmemi_coll_sync_team(t)))
        return rc;
    for (k = 0; k < n && a->nelems; k++) {
        int p = (me + k) % n;
        const char *from = p == me ? src + (size_t)me * bs
                                   : shmemi_direct(src + (size_t)me * bs, span_s, t->pes[p]);
        move_strided((char *)a->dest + (size_t)p * bd, a->dst, from, a->sst, a->nelems,
                     a->elsize);
    }
    return shmemi_coll_sync_team(t);
}

/* Pairwise through the transport: everyone announces its entry to all,
 * then in step k puts its block for member me + k into that member's
 * dest (block me) and signals; then waits for every sender. */
static int alltoall_pairwise(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, k, strided = a->dst != 1 || a->sst != 1, rc;
    size_t bd = bstride(a, a->dst), bs = bstride(a, a->sst);
    uint64_t e = shmemi_team_begin(t);

    for (k = 1; k < n; k++)
        if ((rc = shmemi_coll_announce(t, e, shmemi_sched_pairwise_to(n, me, k))))
            return rc;
    for (k = 0; k < n; k++) {
        int p = shmemi_sched_pairwise_to(n, me, k);
        const char *from = (const char *)a->src + (size_t)p * bs;
        char *to = (char *)a->dest + (size_t)me * bd;
        if (p == me) {
            move_strided(to, a->dst, from, a->sst, a->nelems, a->elsize);
            continue;
        }
        shmemi_team_wait(&s->sig[p], shmemi_team_sigval(e, 0));
        if (!strided) {
            rc = shmemi_team_put_signal(to, from, a->nelems * a->elsize, &s->sig[me],
                                        shmemi_team_sigval(e, 1), t->pes[p]);
        } else {
            rc = a->nelems ? shmemi_iput(SHMEM_CTX_DEFAULT, to, from, a->dst, a->sst, 1,
                                         a->nelems, a->elsize, t->pes[p], a->rtn) : 0;
            if (!rc)
                rc = shmemi_team_quiet();
            if (!rc)
                rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[p]);
        }
        if (rc)
            return rc;
    }
    for (k = 1; k < n; k++)
        shmemi_team_wait(&s->sig[(me + k) % n], shmemi_team_sigval(e, 1));
    return 0;
}

/* ---- the table ---- */

static int ll_can(const shmemi_coll_args_t *a)
{
    return shmemi_team_ll_ok(a->t, (size_t)a->t->n_pes * a->len);
}
static int small_can(const shmemi_coll_args_t *a)
{
    return a->t->all_mapped && (size_t)a->t->n_pes * a->len <= SHMEMI_TEAM_HALF;
}
static int small_pick(const shmemi_coll_args_t *a)
{
    return a->dok && small_can(a) &&
           (size_t)a->t->n_pes * a->len <= shmemi_coll_small_max(a->t, 1);
}
static int direct_can(const shmemi_coll_args_t *a) { return a->dok; }

const shmemi_coll_row_t shmemi_coll_alltoall_rows[] = {
    { SHMEMI_CA_LL, "node teams, up to 56 bytes per PE: one cache line per PE",
      "wherever it applies", ll_can, ll_can, SHMEMI_CA_AUTO, alltoall_ll },
    { SHMEMI_CA_SMALL, "node teams: one sync through the team's scratch", "with heap buffers, "
      "up to FABSHMEM_COLL_SMALL bytes per PE, 512 for two PEs with a core each", small_can,
      small_pick, SHMEMI_CA_AUTO, alltoall_small },
    { SHMEMI_CA_DIRECT, "every PE copies its blocks from its peers' mapped buffers; node teams",
      "wherever it applies", direct_can, direct_can, SHMEMI_CA_AUTO, alltoall_direct },
    { SHMEMI_CA_PAIRWISE, "n-1 steps of put with signal", "elsewhere", NULL, NULL,
      SHMEMI_CA_AUTO, alltoall_pairwise },
    { .run = NULL },
};

int shmemi_coll_alltoall(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn)
{
    struct shmemi_team *t = team;
    shmemi_coll_args_t a = { .t = t, .dest = dest, .src = src, .len = nelems * elsize,
                             .nelems = nelems, .elsize = elsize, .dst = dst, .sst = sst,
                             .rtn = rtn };
    size_t dspan, sspan;
    int rc;

    if (shmemi_coll_dev_case(dest, src))
        return shmemi_coll_dev_alltoall(team, dest, src, dst, sst, nelems, elsize, rtn);
    if ((rc = shmemi_coll_agree(team, shmemi_coll_alltoall_check(team, dest, src, dst, sst,
                                                                 nelems, elsize, rtn),
                                nelems, -1, dst, sst, rtn)))
        return rc;
    if (t->n_pes == 1) {
        move_strided(dest, dst, src, sst, nelems, elsize);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)))
        return rc;
    dspan = (size_t)t->n_pes * bstride(&a, dst);
    sspan = (size_t)t->n_pes * bstride(&a, sst);
    a.dok = shmemi_coll_direct_ok(t, dest, dspan ? dspan : 1, src, sspan ? sspan : 1);
    return shmemi_coll_dispatch(SHMEMI_CK_ALLTOALL, &a);
}
