/*
 * collect and fcollect: the low-latency lines, the one-sync small path and
 * the direct path of node teams, recursive doubling (Bruck's on team sizes
 * that are not powers of two) and the ring of put with signal, and their
 * table in the registry (the hierarchical form is in coll_hier.c).
 */
#include "coll/coll.h"
#include <stdlib.h>

/* Bytes in all (n times each member's) up to which auto takes the
 * hierarchical fcollect on teams that span nodes.  Measured with 4 PEs in
 * virtual nodes of 2 over tcp (bench/fcollect_lat, medians of 3): hier
 * 65-115 us up to 512 bytes per PE against rd's 100-130, but from 1 KiB
 * per PE on 490-520 us against rd's 126-139 (the leaders' exchange of
 * whole node blocks leaves the one-message put with signal, and each
 * leader then waits a round trip), and 3.3 ms at 1 MiB against rd's 1.9.
 * collect, whose total is known only after its counts, keeps hier. */
#define SHMEMI_COLL_HIER_FCOLLECT_MAX 2048

/* Ring allgather of variable blocks straight into every member's dest:
 * in step k member i forwards block (i - k) to member i + 1. */
static int collect_ring(struct shmemi_team *t, char *dest, const char *src, const size_t *off,
                        const size_t *len, uint64_t e, unsigned step0)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, right = (me + 1) % n, left = (me - 1 + n) % n, k, rc;

    if (dest + off[me] != src)
        memmove(dest + off[me], src, len[me]);
    shmemi_team_wait(&s->sig[right], shmemi_team_sigval(e, 0));
    for (k = 0; k < n - 1; k++) {
        int b = shmemi_sched_ring_block(n, me, k);
        if (k > 0)
            shmemi_team_wait(&s->sig[left], shmemi_team_sigval(e, step0 + k - 1));
        if ((rc = shmemi_team_put_signal(dest + off[b], dest + off[b], len[b], &s->sig[me],
                                         shmemi_team_sigval(e, step0 + k), t->pes[right])))
            return rc;
    }
    shmemi_team_wait(&s->sig[left], shmemi_team_sigval(e, step0 + n - 2));
    return 0;
}

/* Recursive doubling (power-of-two teams): in round k member i sends the
 * blocks of its aligned group of 2^k members to member i ^ 2^k. */
static int collect_rd(struct shmemi_team *t, char *dest, const char *src, const size_t *off,
                      const size_t *len, uint64_t e, unsigned step0)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, k = 0, dist, rc;

    if (dest + off[me] != src)
        memmove(dest + off[me], src, len[me]);
    for (dist = 1; dist < n; dist <<= 1)
        shmemi_team_wait(&s->sig[me ^ dist], shmemi_team_sigval(e, 0));
    for (dist = 1; dist < n; dist <<= 1, k++) {
        /* I hold the blocks of my aligned group of dist members; the
         * partner holds the next (or previous) group. */
        int g0, partner = shmemi_sched_rd_partner(me, k, &g0);
        size_t goff = off[g0], glen = off[g0 + dist] - goff;
        if ((rc = shmemi_team_put_signal(dest + goff, dest + goff, glen, &s->sig[me],
                                         shmemi_team_sigval(e, step0 + k), t->pes[partner])))
            return rc;
        shmemi_team_wait(&s->sig[partner], shmemi_team_sigval(e, step0 + k));
    }
    return 0;
}

/* Bruck's allgather, any team size: in round k (distance d = 2^k) member i
 * holds the blocks i .. i + d - 1 (mod n) and sends the first min(d, n - d)
 * of them to member i - d, which holds the d blocks before them; after
 * ceil(log2 n) rounds every member holds all.  The blocks go straight to
 * their place in the receiver's dest: one put with signal, or two where
 * the range wraps past the last member (steps step0 + 2k and
 * step0 + 2k + 1; the receiver waits for the second).  off[] has n + 1
 * entries (off[n]: the total).  counts: dest and off are the counts in the
 * scratch (nobody needs to have entered), else the user's dest, which
 * member i - d must have entered before it receives. */
static int bruck_rounds(struct shmemi_team *t, char *dest, const size_t *off, uint64_t e,
                        unsigned step0, int counts)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, k, dist, rc;

    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int from, cnt, to = shmemi_sched_bruck(n, me, k, &from, &cnt), end = me + cnt;
        unsigned last = step0 + 2 * (unsigned)k + 1;
        int pe = t->pes[to];

        if (!counts)
            shmemi_team_wait(&s->sig[to], shmemi_team_sigval(e, 0));
        if (end <= n) {
            rc = shmemi_team_put_signal(dest + off[me], dest + off[me], off[end] - off[me],
                                        &s->sig[t->my_pe], shmemi_team_sigval(e, last), pe);
        } else {
            rc = shmemi_team_put_signal(dest + off[me], dest + off[me], off[n] - off[me],
                                        &s->sig[t->my_pe], shmemi_team_sigval(e, last - 1), pe);
            if (!rc)
                rc = shmemi_team_put_signal(dest, dest, off[end - n], &s->sig[t->my_pe],
                                            shmemi_team_sigval(e, last), pe);
        }
        if (rc)
            return rc;
        shmemi_team_wait(&s->sig[from], shmemi_team_sigval(e, last));
    }
    return 0;
}

/* Rounds of recursive doubling (and of Bruck's variant) for n members. */
static unsigned rd_rounds(int n)
{
    unsigned L = 0;

    while ((1 << L) < n)
        L++;
    return L;
}

/* The counts of a collect over the transport: every member's mylen in
 * len[], by Bruck's rounds over the counts in the scratch of epoch e
 * (steps 1 .. 2 * rd_rounds(n)); coff (n + 1 entries, the caller's block
 * offsets, not yet in use) holds the offsets of the counts meanwhile. */
static int collect_counts(struct shmemi_team *t, uint64_t e, size_t mylen, size_t *len,
                          size_t *coff)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, j, rc;
    uint64_t *cnt = (uint64_t *)s->scratch[e & 1];

    for (j = 0; j <= n; j++)
        coff[j] = (size_t)j * sizeof(uint64_t);
    cnt[t->my_pe] = mylen;
    if ((rc = bruck_rounds(t, (char *)cnt, coff, e, 1, 1)))
        return rc;
    /* Copied out at once: a member two epochs ahead may write here as soon
     * as my data has reached it. */
    for (j = 0; j < n; j++)
        len[j] = (size_t)cnt[j];
    return 0;
}

/* Beyond the node paths collect's counts go through a scratch half. */
static int counts_fit(const shmemi_coll_args_t *a)
{
    int n = a->t->n_pes;

    if (!a->fixed && (size_t)n * sizeof(uint64_t) > SHMEMI_TEAM_HALF)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, a->rtn, "a collect over the transport "
                          "takes teams of up to %zu PEs (this one has %d); fcollect has no "
                          "limit", SHMEMI_TEAM_HALF / sizeof(uint64_t), n);
    return 0;
}

/* The block offsets (off[n + 1]) and lengths (len[n]) of a collect. */
static int blocks_alloc(int n, size_t **off_p, size_t **len_p, const char *rtn)
{
    *off_p = malloc(sizeof(size_t) * ((size_t)n + 1));
    *len_p = malloc(sizeof(size_t) * (size_t)n);
    if (*off_p && *len_p)
        return 0;
    free(*off_p);
    free(*len_p);
    return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
}

/* Tiny: my block in my low-latency line, everybody's from theirs. */
static int collect_ll(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    size_t mylen = a->len;
    uint64_t e = shmemi_team_begin(t);

    shmemi_team_ll_publish(t, e, a->src, mylen);
    for (int j = 0; j < t->n_pes; j++) {
        const void *b = shmemi_team_ll_wait(t, e, j);
        if (mylen) /* a fcollect of 0 elements may pass null buffers */
            memcpy((char *)a->dest + (size_t)j * mylen, b, mylen);
    }
    shmemi_team_synced(t, e);
    return 0;
}

/* One sync: my block into my scratch, then everybody reads. */
static int collect_small(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    size_t mylen = a->len;
    uint64_t e = shmemi_team_begin(t);
    int rc;

    if (mylen) /* as collect_ll */
        memcpy(shmemi_coll_small_buf(t, e, t->pes[t->my_pe]), a->src, mylen);
    if ((rc = shmemi_team_ready(t, e)) || !mylen)
        return rc;
    for (int j = 0; j < t->n_pes; j++)
        memcpy((char *)a->dest + (size_t)j * mylen, shmemi_coll_small_buf(t, e, t->pes[j]),
               mylen);
    return 0;
}

/* Sync, every member copies every block straight out of its owner's
 * source (collect: the counts through the members' aux words), sync. */
static int collect_direct(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, j, rc;
    size_t mylen = a->len, *off, *len, total;
    char *dest = a->dest;

    if ((rc = blocks_alloc(n, &off, &len, a->rtn)))
        return rc;
    s->aux[0] = mylen;
    if ((rc = shmemi_coll_sync_team(t)))
        goto out;
    for (j = 0; j < n; j++)
        len[j] = a->fixed ? mylen : *(volatile uint64_t *)shmemi_direct((const void *)&s->aux[0],
                                                                       8, t->pes[j]);
    for (total = 0, j = 0; j < n; j++) {
        off[j] = total;
        total += len[j];
    }
    for (j = 0; j < n; j++) {
        int p = (me + j) % n;
        if (p == me) {
            if (dest + off[me] != a->src)
                memmove(dest + off[me], a->src, len[me]);
        } else if (len[p]) {
            memcpy(dest + off[p], shmemi_direct(a->src, len[p], t->pes[p]), len[p]);
        }
    }
    rc = shmemi_coll_sync_team(t);
out:
    free(off);
    free(len);
    return rc;
}

/* Over the transport, once off and len hold the blocks: recursive doubling
 * (Bruck's where the team size is not a power of two) or the ring; alg is
 * the one that runs (*alg_p: what ran). */
static int xport_data(struct shmemi_team *t, shmemi_coll_args_t *a, const size_t *off,
                      const size_t *len, uint64_t e, unsigned step0, int *alg_p)
{
    int n = t->n_pes, me = t->my_pe;
    char *dest = a->dest;

    if (*alg_p == SHMEMI_CA_RD && (n & (n - 1)) == 0)
        return collect_rd(t, dest, a->src, off, len, e, step0);
    if (*alg_p == SHMEMI_CA_RD) {
        *alg_p = SHMEMI_CA_BRUCK;
        if (dest + off[me] != a->src)
            memmove(dest + off[me], a->src, len[me]);
        return bruck_rounds(t, dest, off, e, step0, 0);
    }
    return collect_ring(t, dest, a->src, off, len, e, step0);
}

/* Over the transport.  "Entered" goes first, to the members that will
 * write into my dest (collect under auto: to those of either algorithm,
 * chosen only once the counts give the total); then the counts (collect),
 * then the data. */
static int collect_xport(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    int n = t->n_pes, me = t->my_pe, j, pow2 = (n & (n - 1)) == 0, alg = a->algo, rc;
    int deferred = !a->fixed && a->by_auto;
    size_t *off, *len, total;
    unsigned step0 = 1;
    uint64_t e;

    if ((rc = counts_fit(a)) || (rc = blocks_alloc(n, &off, &len, a->rtn)))
        return rc;
    e = shmemi_team_begin(t);
    if (deferred || alg == SHMEMI_CA_RING)
        rc = shmemi_coll_announce(t, e, (me - 1 + n) % n);
    if (deferred || alg == SHMEMI_CA_RD)
        for (int dist = 1; dist < n && !rc; dist <<= 1)
            rc = shmemi_coll_announce(t, e, pow2 ? me ^ dist : (me + dist) % n);
    if (rc)
        goto out;
    if (a->fixed) {
        for (j = 0; j < n; j++)
            len[j] = a->len;
    } else {
        if ((rc = collect_counts(t, e, a->len, len, off)))
            goto out;
        step0 = 2 * rd_rounds(n) + 1;
    }
    for (total = 0, j = 0; j < n; j++) {
        off[j] = total;
        total += len[j];
    }
    off[n] = total;
    if (deferred)
        alg = total <= shmemi_g.env.coll_small ? SHMEMI_CA_RD : SHMEMI_CA_RING;
    rc = xport_data(t, a, off, len, e, step0, &alg);
    a->algo = alg;
out:
    free(off);
    free(len);
    return rc;
}

static int collect_hier(shmemi_coll_args_t *a)
{
    int rc = counts_fit(a);

    return rc ? rc : shmemi_coll_collect_hier(a);
}
/* ---- the table ---- */

static int ll_can(const shmemi_coll_args_t *a)
{
    return a->fixed && shmemi_team_ll_ok(a->t, a->len);
}
static int small_can(const shmemi_coll_args_t *a)
{
    return a->fixed && a->t->all_mapped && a->len <= SHMEMI_TEAM_HALF;
}
static int small_pick(const shmemi_coll_args_t *a)
{
    return a->dok && small_can(a) && a->len <= shmemi_coll_small_max(a->t, 1);
}
static int direct_can(const shmemi_coll_args_t *a) { return a->dok; }
static int hier_can(const shmemi_coll_args_t *a)
{
    return !a->t->all_mapped && shmemi_coll_hier_ok(a->t);
}
static int hier_pick(const shmemi_coll_args_t *a)
{
    return hier_can(a) &&
           (!a->fixed || (size_t)a->t->n_pes * a->len <= SHMEMI_COLL_HIER_FCOLLECT_MAX);
}
static int rd_pick(const shmemi_coll_args_t *a)
{
    return a->fixed && (size_t)a->t->n_pes * a->len <= shmemi_g.env.coll_small;
}

const shmemi_coll_row_t shmemi_coll_collect_rows[] = {
    { SHMEMI_CA_LL, "fcollect on node teams, up to 56 bytes per PE: one cache line per PE",
      "wherever it applies", ll_can, ll_can, SHMEMI_CA_AUTO, collect_ll },
    { SHMEMI_CA_SMALL, "fcollect on node teams: one sync through the team's scratch",
      "with heap buffers, up to FABSHMEM_COLL_SMALL bytes per PE, 512 for two PEs with a core each",
      small_can, small_pick, SHMEMI_CA_AUTO, collect_small },
    { SHMEMI_CA_DIRECT, "every PE copies from its peers' mapped buffers; node teams",
      "wherever it applies", direct_can, direct_can, SHMEMI_CA_AUTO, collect_direct },
    { SHMEMI_CA_HIER, "teams that span nodes: node-local gather, the leaders exchange their "
      "nodes' blocks, node-local copy", "for collect, and for fcollect up to 2 KiB in all",
      hier_can, hier_pick, SHMEMI_CA_AUTO, collect_hier },
    { SHMEMI_CA_RD, "recursive doubling; Bruck's variant for team sizes that are not powers of "
      "two", "up to FABSHMEM_COLL_SMALL bytes in all, known to collect once the counts are in",
      NULL, rd_pick, SHMEMI_CA_AUTO, collect_xport },
    { SHMEMI_CA_RING, "n-1 steps to the next PE", "elsewhere", NULL, NULL, SHMEMI_CA_AUTO,
      collect_xport },
    { .run = NULL },
};

int shmemi_coll_collect(shmem_team_t team, void *dest, const void *src, size_t nelems,
                        size_t elsize, int fixed, const char *rtn)
{
    struct shmemi_team *t = team;
    size_t mylen = nelems * elsize;
    shmemi_coll_args_t a = { .t = t, .dest = dest, .src = src, .len = mylen, .fixed = fixed,
                             .rtn = rtn };
    int rc;

    if (fixed && shmemi_coll_dev_case(dest, src))
        return shmemi_coll_dev_fcollect(team, dest, src, nelems, elsize, rtn);
    /* collect's nelems may differ between the members. */
    if ((rc = shmemi_coll_agree(team, shmemi_coll_collect_check(team, dest, src, nelems, elsize,
                                                                fixed, rtn),
                                fixed ? nelems : 0, -1, 0, 0, rtn)))
        return rc;
    if (t->n_pes == 1) {
        if (dest != src)
            memmove(dest, src, mylen);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)))
        return rc;
    /* The direct path needs the whole dest in the heap: the total is only
     * known after the counts, so decide on the segment of dest. */
    a.dok = shmemi_coll_direct_ok(t, dest, 1, src, mylen ? mylen : 1);
    return shmemi_coll_dispatch(SHMEMI_CK_COLLECT, &a);
}
