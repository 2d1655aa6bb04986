/*
 * The reductions (allreduce, team-based and active-set): the node paths
 * (direct, small, ll), the hierarchical form and the table of the registry;
 * rd and rsag are in coll_reduce_xport.c, the scans and reduce-scatter in
 * coll_scan.c, the kernels in coll_reduce_kern.c.
 *
 * Allreduce (FABSHMEM_REDUCE_ALGO, parsed at init; the table of the registry
 * is at the end of this file):
 * - direct: every member maps every member's heap and dest and source are
 *   in the heap.  Sync; member i reduces slice i of nreduce (n near-equal
 *   slices, cache-line multiples) straight out of every member's source and
 *   stores the result into slice i of every member's dest; sync.  Slice i
 *   of any source is read and slice i of any dest written by member i only,
 *   so dest == source is safe.  The slice goes in blocks that stay in the
 *   cache between the reduction and the copies.
 * - rd: recursive doubling of the dest arrays through the team's scratch,
 *   in chunks (one collective epoch each, so the halves of the scratch
 *   alternate by the parity rule of team.h).  A team that is not a power
 *   of two first folds its extra members into the power-of-two set and
 *   sends them the result at the end, straight into their dest.
 * - rsag: ring reduce-scatter, then ring allgather, over put with signal
 *   (the partials through the receivers' scratch, one epoch per piece;
 *   the reduced slices straight into the dests): each member sends and
 *   receives 2 (n - 1) / n of the array, for any n up to 512 (beyond, a
 *   piece would be less than a cache line: rd).
 * - hier: the team spans nodes and some node holds several members.  Each
 *   node's first member (its leader) reduces its node's sources (mapped),
 *   the leaders allreduce among themselves (rd or rsag by size), and each
 *   node's members copy the result out of their leader's dest.
 * - ll (every member maps every member): up to SHMEMI_TEAM_LL_BYTES, each
 *   member's source and the epoch in one cache line of its own (coll.h);
 *   every member reduces the members' lines.
 * - small (the same teams): one sync: each member copies its source into
 *   its scratch (up to a scratch half), syncs and reduces every member's
 *   copy.
 * - auto: ll where it applies, small up to shmemi_coll_small_max bytes
 *   (coll.h; divided by the team size when direct applies), else direct
 *   when it applies, else hier when it applies, else rd up to
 *   FABSHMEM_COLL_SMALL bytes and rsag above.  A forced algorithm that
 *   cannot apply is auto (shmemx_team_coll_count says what ran); the table
 * of the registry at the end of this file says the same.
 * Every member of a team makes the same choice: all_mapped, the node map,
 * the host's oversubscription, the segment of the buffers and the size are
 * the same on every member.
 *
 * Every path combines a given element in one fixed order on one member, or
 * (rd) in pairs whose two members compute the same commutative a op b, so
 * all members receive the same bits, floating point included.
 */
#include "coll/coll_reduce.h"
#include "core/rma.h"

/* Bytes of one block of the direct path (reduced, then copied to every
 * member while it is in the cache). */
#define DIRECT_BLOCK (16 * 1024)

/* ---- direct ---- */

static int allreduce_direct(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    const shmemi_rkern_t *k = a->k;
    size_t esize = a->elsize, nelems = a->nelems;
    char *dest = a->dest;
    const char *source = a->src;
    int n = t->n_pes, me = t->my_pe, j, rc;
    size_t per = shmemi_reduce_slice(nelems, n, esize);
    size_t lo = (size_t)me * per < nelems ? (size_t)me * per : nelems;
    size_t hi = nelems - lo < per ? nelems : lo + per;
    size_t blk = DIRECT_BLOCK / esize, off, len;

    if ((rc = shmemi_coll_sync_team(t)))
        return rc;
    for (off = lo; off < hi; off += len) {
        size_t boff;
        char *out;
        const char *mine;

        len = hi - off < blk ? hi - off : blk;
        boff = off * esize;
        out = dest + boff;
        mine = source + boff;
        /* Mine first: in place, out is my source block, read only here. */
        if (out == mine)
            k->k2(out, shmemi_reduce_peer(source, t->pes[(me + 1) % n]) + boff, len);
        else
            k->k3(out, mine, shmemi_reduce_peer(source, t->pes[(me + 1) % n]) + boff, len);
        for (j = 2; j < n; j++)
            k->k2(out, shmemi_reduce_peer(source, t->pes[(me + j) % n]) + boff, len);
        for (j = 1; j < n; j++)
            memcpy(shmemi_reduce_peer(dest, t->pes[(me + j) % n]) + boff, out, len * esize);
    }
    return shmemi_coll_sync_team(t);
}

/* ---- small, node teams: one sync ----
 * Every member copies its source into its scratch of the epoch, syncs,
 * and reduces all the members' copies in member order (so every member
 * computes the same bits). */
static int allreduce_small(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t e = shmemi_team_begin(t);
    int n = t->n_pes, j, rc;

    memcpy(s->scratch[e & 1], a->src, a->len);
    if ((rc = shmemi_team_ready(t, e)))
        return rc;
    a->k->k3(a->dest, shmemi_reduce_peer(s->scratch[e & 1], t->pes[0]),
             shmemi_reduce_peer(s->scratch[e & 1], t->pes[1]), a->nelems);
    for (j = 2; j < n; j++)
        a->k->k2(a->dest, shmemi_reduce_peer(s->scratch[e & 1], t->pes[j]), a->nelems);
    return 0;
}

/* ---- tiny, node teams: low-latency lines (team.h) ----
 * Every member publishes its source in its line and combines the members'
 * lines in member order (so every member computes the same bits). */
static int allreduce_ll(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    uint64_t e = shmemi_team_begin(t);
    size_t nbytes = a->len;
    int n = t->n_pes, j;
    /* A line's data sits 8 bytes into the line, and long double (and its
     * complex) must be 16-byte aligned: the kernels read aligned copies
     * (at most 56 bytes each; found by UBSan). */
    char x[SHMEMI_TEAM_LL_BYTES] __attribute__((aligned(16)));
    char y[SHMEMI_TEAM_LL_BYTES] __attribute__((aligned(16)));

    shmemi_team_ll_publish(t, e, a->src, nbytes);
    memcpy(x, shmemi_team_ll_wait(t, e, 0), nbytes);
    memcpy(y, shmemi_team_ll_wait(t, e, 1), nbytes);
    a->k->k3(a->dest, x, y, a->nelems);
    for (j = 2; j < n; j++) {
        memcpy(y, shmemi_team_ll_wait(t, e, j), nbytes);
        a->k->k2(a->dest, y, a->nelems);
    }
    shmemi_team_synced(t, e);
    return 0;
}

/* ---- hier: node groups, then their leaders ----
 * The members of each node (a group of coll.h's struct shmemi_coll_hier)
 * signal its first member, the leader, that they entered; the leader
 * reduces the group's sources (mapped, in team order) into its dest.  The
 * leaders then allreduce their dests in place among themselves (rd up to
 * FABSHMEM_COLL_SMALL bytes, else rsag; the other members count those
 * epochs without taking part).  Each leader finally releases its members,
 * which copy the result out of its mapped dest and signal that they are
 * done; the leader returns when all are.  The node phases take no epoch of
 * their own: their signals carry the leaders' first epoch e (member to
 * leader: step 1 entered, 2 done; leader to member: 1), on words that the
 * leaders' algorithm does not use.  An epoch of their own would put two
 * leaders' epochs of the same parity one after the other without an
 * exchange between them, and a leader could then write into the scratch
 * half that another still reads (coll.h). */

/* A member that does not lead. */
static int hier_member(shmemi_coll_args_t *a, int lead, int ring, uint64_t e)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int me = t->my_pe, rc;

    if ((rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[lead])))
        return rc;
    t->epoch += ring ? shmemi_reduce_ring_epochs(a->nelems, h->ng, a->elsize)
                     : shmemi_reduce_rd_epochs(a->nelems, h->ng, a->elsize);
    shmemi_team_wait(&s->sig[lead], shmemi_team_sigval(e, 1));
    if ((rc = shmemi_get_w(SHMEM_CTX_DEFAULT, a->dest, a->dest, a->len, t->pes[lead], 0,
                           a->rtn)))
        return rc;
    return shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 2), t->pes[lead]);
}

static int allreduce_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int me = t->my_pe, g = h->my_group, lead = SHMEMI_HIER_LEADER(h, g), i, rc;
    int first = h->gfirst[g], cnt = h->gfirst[g + 1] - first;
    int ring = a->len > shmemi_g.env.coll_small && shmemi_reduce_ring_piece(h->ng, a->elsize) > 0;
    uint64_t e = t->epoch + 1;
    shmemi_parts_t lp = { h->ng, g, h->lead };
    shmemi_gather_t gr;

    if (me != lead)
        return hier_member(a, lead, ring, e);
    for (i = 1; i < cnt; i++)
        shmemi_team_wait(&s->sig[h->mem[first + i]], shmemi_team_sigval(e, 1));
    shmemi_gather_init(&gr, t, a->k, a->elsize, 1, cnt, a->rtn);
    rc = shmemi_gather_reduce(&gr, a->dest, a->src, 0, a->nelems, &h->mem[first], cnt);
    shmemi_gather_fini(&gr);
    if (rc)
        return rc;
    rc = ring ? shmemi_allreduce_ring(t, &lp, a->k, a->elsize, a->dest, a->dest, a->nelems)
              : shmemi_allreduce_rd(t, &lp, a->k, a->elsize, a->dest, a->dest, a->nelems);
    if (rc)
        return rc;
    for (i = 1; i < cnt; i++)
        if ((rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1),
                                     t->pes[h->mem[first + i]])))
            return rc;
    for (i = 1; i < cnt; i++)
        shmemi_team_wait(&s->sig[h->mem[first + i]], shmemi_team_sigval(e, 2));
    return 0;
}

/* ---- rd and rsag over the whole team (coll_reduce_xport.c) ---- */

static int run_rd(shmemi_coll_args_t *a)
{
    shmemi_parts_t all = { a->t->n_pes, a->t->my_pe, NULL };

    return shmemi_allreduce_rd(a->t, &all, a->k, a->elsize, a->dest, a->src, a->nelems);
}

static int run_rsag(shmemi_coll_args_t *a)
{
    shmemi_parts_t all = { a->t->n_pes, a->t->my_pe, NULL };

    return shmemi_allreduce_ring(a->t, &all, a->k, a->elsize, a->dest, a->src, a->nelems);
}

/* ---- the table ---- */

static int ll_can(const shmemi_coll_args_t *a) { return shmemi_team_ll_ok(a->t, a->len); }
static int small_can(const shmemi_coll_args_t *a)
{
    return a->t->all_mapped && a->len <= SHMEMI_TEAM_HALF;
}
/* The small path reduces every member's whole copy: with the direct path
 * at hand (each member reduces 1/n) it pays while the n copies together
 * stay within the limit (4 PEs on 2 cores: 2 KiB 5.8 against 6.3 us, 8 KiB
 * 9.2 against 7.3 us). */
static int small_pick(const shmemi_coll_args_t *a)
{
    size_t small_auto = shmemi_coll_small_max(a->t, a->heap);

    if (a->heap && a->t->n_pes > 2)
        small_auto /= (size_t)a->t->n_pes;
    return a->t->all_mapped && a->len <= small_auto;
}
static int direct_can(const shmemi_coll_args_t *a) { return a->dok; }
static int hier_can(const shmemi_coll_args_t *a) { return shmemi_coll_hier_ok(a->t); }
static int rd_pick(const shmemi_coll_args_t *a)
{
    return a->len <= shmemi_g.env.coll_small || !shmemi_reduce_ring_piece(a->t->n_pes, a->elsize);
}
static int rsag_can(const shmemi_coll_args_t *a)
{
    return shmemi_reduce_ring_piece(a->t->n_pes, a->elsize) > 0;
}

const shmemi_coll_row_t shmemi_coll_reduce_rows[] = {
    { SHMEMI_CA_LL, "node teams, up to 56 bytes: one cache line per PE", "wherever it applies",
      ll_can, ll_can, SHMEMI_CA_AUTO, allreduce_ll },
    { SHMEMI_CA_SMALL, "node teams: one sync through the team's scratch", "up to "
      "FABSHMEM_COLL_SMALL bytes, with heap buffers 512 for two PEs with a core each and "
      "FABSHMEM_COLL_SMALL divided by the team size beyond two PEs", small_can, small_pick, SHMEMI_CA_AUTO,
      allreduce_small },
    { SHMEMI_CA_DIRECT, "each PE reduces its slice straight out of its peers' mapped buffers "
      "and writes it to all of them; node teams", "wherever it applies", direct_can, direct_can,
      SHMEMI_CA_AUTO, allreduce_direct },
    { SHMEMI_CA_HIER, "teams that span nodes: each node's leader reduces its node's buffers, "
      "the leaders allreduce, each node copies the result", "wherever it applies", hier_can,
      hier_can, SHMEMI_CA_AUTO, allreduce_hier },
    { SHMEMI_CA_RD, "recursive doubling through the team's scratch", "up to "
      "FABSHMEM_COLL_SMALL bytes, and on teams of more than 512 PEs", NULL, rd_pick,
      SHMEMI_CA_AUTO, run_rd },
    { SHMEMI_CA_RSAG, "ring reduce-scatter then ring allgather of put with signal; teams of up "
      "to 512 PEs", "elsewhere", rsag_can, NULL, SHMEMI_CA_AUTO, run_rsag },
    { .run = NULL },
};

/* ---- the entry points ---- */

/* The reduction of nreduce elements on t (checked). */
static int reduce_run(struct shmemi_team *t, int tc, int op, size_t esize, void *dest,
                      const void *source, size_t nreduce, const char *rtn)
{
    size_t nbytes = nreduce * esize;
    shmemi_coll_args_t a = { .t = t, .dest = dest, .src = source, .len = nbytes,
                             .nelems = nreduce, .elsize = esize, .rtn = rtn };
    int rc;

    if (nbytes == 0)
        return 0;
    if (t->n_pes == 1) {
        if (dest != source)
            memcpy(dest, source, nbytes);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)))
        return rc;
    a.k = shmemi_reduce_kernel(tc, op);
    a.heap = shmemi_coll_in_heap(dest, nbytes) && shmemi_coll_in_heap(source, nbytes);
    a.dok = a.heap && t->all_mapped;
    return shmemi_coll_dispatch(SHMEMI_CK_REDUCE, &a);
}

int shmemi_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                  const void *source, size_t nreduce, const char *rtn)
{
    int rc;

    if (shmemi_coll_dev_case(dest, source))
        return shmemi_coll_dev_reduce(team, tc, op, esize, dest, source, nreduce, rtn);
    rc = shmemi_coll_agree(team, shmemi_reduce_check(team, tc, op, esize, dest, source, nreduce,
                                                     rtn),
                           nreduce, -1, 0, 0, rtn);

    return rc ? rc : reduce_run(team, tc, op, esize, dest, source, nreduce, rtn);
}

int shmemi_reduce_to_all(int tc, int op, size_t esize, void *dest, const void *source,
                         int nreduce, int PE_start, int logPE_stride, int PE_size,
                         const char *rtn)
{
    struct shmemi_team *t;
    int rc;

    if ((rc = shmemi_check_init(rtn)))
        return rc;
    if (nreduce < 0)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "argument nreduce (%d) is negative",
                          nreduce);
    if ((rc = shmemi_active_set_team(PE_start, logPE_stride, PE_size, rtn, &t)))
        return rc;
    return shmemi_reduce(t, tc, op, esize, dest, source, (size_t)nreduce, rtn);
}
