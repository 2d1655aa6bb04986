/*
 * Hierarchical collectives of teams that span (virtual) nodes: the barrier,
 * the broadcast and collect/fcollect in three phases, node-local, between
 * the nodes' leaders, node-local again.  (The hierarchical reduction is in
 * coll_reduce.c; alltoall has no hierarchical form, see
 * docs/design/collectives.md.)
 *
 * A team's members fall into groups, one per node, each in team order; a
 * group's first member leads it (struct shmemi_coll_hier in coll.h).  The
 * node-local phases go through memory that the group's members map from
 * each other: a member's arrival is a store into its own slot that the
 * leader reads, the data a memcpy out of a peer's mapped buffer (a get
 * where the buffer is not mapped: globals of a PE that keeps them
 * private).  Only the leaders talk across nodes, with the put and signal
 * of coll.h.  Every signal word keeps one writer and one path (a store
 * from a node peer, or the transport from another node), as the atomicity
 * rule of docs/design/core.md ("Atomics") asks.
 *
 * A member that reads its leader's buffer tells the leader when it is done
 * (a signal), and the leader returns only then: the user may overwrite its
 * buffers as soon as the call returns.
 */
#include "coll/coll.h"
#include "core/rma.h"
#include <stdlib.h>

/* Bytes per pipelined chunk of the broadcast (the leaders' tree and the
 * members' copies). */
#define HIER_CHUNK (64 * 1024)
/* Words of a member's aux[] that its leader fills for a collect: the
 * offset of the member's block in dest and the length of the result.
 * The leader writes them before its release signal, and the member reads
 * them before it signals that it is done. */
#define HIER_AUX_OFF 8
#define HIER_AUX_TOTAL 9

/* The mapped address of the word w of member j's slot (mapped: checked
 * when the groups were made). */
static inline volatile uint64_t *peer_word(struct shmemi_team *t, volatile uint64_t *w, int j)
{
    return (volatile uint64_t *)shmemi_direct((const void *)w, sizeof(uint64_t), t->pes[j]);
}

/* ---- barrier ---- */

int shmemi_coll_barrier_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t b = ++t->bar_epoch;
    int g = h->my_group, lead = SHMEMI_HIER_LEADER(h, g), i, k, dist, rc;

    __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_ARRIVED], b, __ATOMIC_RELEASE);
    shmemi_wake(&s->bar[SHMEMI_TEAM_BAR_ARRIVED]);
    if (t->my_pe != lead) {
        shmemi_team_wait(peer_word(t, &s->bar[SHMEMI_TEAM_BAR_HIER_RELEASE], lead), b);
        return 0;
    }
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(peer_word(t, &s->bar[SHMEMI_TEAM_BAR_ARRIVED], h->mem[i]), b);
    /* The leaders' dissemination: round k signals leader g + 2^k, whose
     * word SHMEMI_TEAM_BAR_LEADERS + k has that one writer (not the plain
     * dissemination's words: the team layer's own barrier may run on this
     * team between two of these). */
    for (k = 0, dist = 1; dist < h->ng; k++, dist <<= 1) {
        volatile uint64_t *w = &s->bar[SHMEMI_TEAM_BAR_LEADERS + k];
        int to = SHMEMI_HIER_LEADER(h, shmemi_sched_diss_to(h->ng, g, k));
        if ((rc = shmemi_team_signal(w, b, t->pes[to])))
            return rc;
        shmemi_team_wait(w, b);
    }
    __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_HIER_RELEASE], b, __ATOMIC_RELEASE);
    shmemi_wake(&s->bar[SHMEMI_TEAM_BAR_HIER_RELEASE]);
    return 0;
}

/* ---- broadcast ----
 * The root stands in for its group's leader.  The acting leaders form a
 * binomial tree rooted at the root (relative rank of group g: g - root's
 * group), pipelined in HIER_CHUNK pieces of put with signal into the
 * leaders' dests, after each child signalled that it entered.  Each acting
 * leader signals its members chunk by chunk (the root all at once), and
 * the members copy each chunk out of its mapped buffer: the root's source,
 * another leader's dest.  Signal steps: leader to leader 0 (entered) and
 * c + 1 (chunk c), leader to member c + 1, member to leader 1 (done). */

/* A member that does not lead: chunk by chunk out of its acting leader's
 * buffer, then done. */
static int bcast_member(shmemi_coll_args_t *a, uint64_t e, int lead, size_t nchunks)
{
    struct shmemi_team *t = a->t;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    char *dest = a->dest;
    const char *from = lead == a->root ? (const char *)a->src : dest;
    size_t len = a->len, c;
    int rc;

    for (c = 0; c < nchunks; c++) {
        size_t off = c * HIER_CHUNK, clen = len - off < HIER_CHUNK ? len - off : HIER_CHUNK;
        shmemi_team_wait(&s->sig[lead], shmemi_team_sigval(e, (unsigned)c + 1));
        if (clen && (rc = shmemi_get_w(SHMEM_CTX_DEFAULT, dest + off, from + off, clen,
                                       t->pes[lead], 0, a->rtn)))
            return rc;
    }
    return shmemi_team_signal(&s->sig[t->my_pe], shmemi_team_sigval(e, 1), t->pes[lead]);
}

/* Signals value to every member of my group but me. */
static int signal_group(struct shmemi_team *t, const struct shmemi_coll_hier *h, uint64_t v)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int rc;

    for (int i = h->gfirst[h->my_group]; i < h->gfirst[h->my_group + 1]; i++)
        if (h->mem[i] != t->my_pe &&
            (rc = shmemi_team_signal(&s->sig[t->my_pe], v, t->pes[h->mem[i]])))
            return rc;
    return 0;
}

int shmemi_coll_bcast_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    char *dest = a->dest;
    const char *src = a->src;
    size_t len = a->len;
    int root = a->root;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int ng = h->ng, me = t->my_pe, rg = h->group_of[root], g = h->my_group;
    int lead = g == rg ? root : SHMEMI_HIER_LEADER(h, g), parent, kids[64], nk, i, rc;
    uint64_t e = shmemi_team_begin_rooted(t);
    size_t nchunks = len ? (len + HIER_CHUNK - 1) / HIER_CHUNK : 1, c;
    const char *have;

    if (me != lead)
        return bcast_member(a, e, lead, nchunks);
    /* The tree over the groups, rooted at the root's; each group's acting
     * member is the root in its group, the leader in the others. */
#define ACTING(q) ((q) == rg ? root : SHMEMI_HIER_LEADER(h, q))
    parent = shmemi_sched_tree(ng, rg, g, 0, kids, &nk);
    if (parent >= 0)
        parent = ACTING(parent);
    for (i = 0; i < nk; i++)
        kids[i] = ACTING(kids[i]);
#undef ACTING
    if (parent >= 0) {
        if ((rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 0), t->pes[parent])))
            return rc;
    } else if (a->write_root && dest != src) {
        memmove(dest, src, len);
    }
    have = parent >= 0 ? dest : src;
    if (parent < 0 && (rc = signal_group(t, h, shmemi_team_sigval(e, (unsigned)nchunks))))
        return rc;
    for (i = 0; i < nk; i++)
        shmemi_team_wait(&s->sig[kids[i]], shmemi_team_sigval(e, 0));
    for (c = 0; c < nchunks; c++) {
        size_t off = c * HIER_CHUNK, clen = len - off < HIER_CHUNK ? len - off : HIER_CHUNK;
        uint64_t v = shmemi_team_sigval(e, (unsigned)c + 1);
        if (parent >= 0)
            shmemi_team_wait(&s->sig[parent], v);
        for (i = 0; i < nk; i++)
            if ((rc = shmemi_team_put_signal(dest + off, have + off, clen, &s->sig[me], v,
                                             t->pes[kids[i]])))
                return rc;
        if (parent >= 0 && (rc = signal_group(t, h, v)))
            return rc;
    }
    for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++)
        if (h->mem[i] != me)
            shmemi_team_wait(&s->sig[h->mem[i]], shmemi_team_sigval(e, 1));
    return 0;
}

/* ---- collect, fcollect ----
 * 1. Each member signals its leader that it entered (collect: after
 *    putting its count into the leader's scratch).
 * 2. The leaders exchange their groups' counts (collect) or an "entered"
 *    signal (fcollect), then every leader copies its group's blocks out of
 *    the members' mapped sources into its dest and puts them into every
 *    other leader's dest, one put with signal per run of consecutive team
 *    indices.
 * 3. Each leader releases its members, which copy the whole result out of
 *    the leader's mapped dest (their own block from their source) and
 *    signal that they are done.
 * Signal steps: member to leader 1 (entered), 2 (done); leader to member
 * 1 (release); leader of group g to leader: 1 .. base(g) (entered, with
 * the counts of run r at step r + 1 for collect), then base(g) + 1 + r
 * (the data of run r), where base(g) is 1 (fcollect) or the number of runs
 * of group g (collect). */

/* The steps of group q's leader's "entered" (or counts) signals. */
static inline unsigned hier_base(const struct shmemi_coll_hier *h, int q, int fixed)
{
    return fixed ? 1u : (unsigned)(h->rfirst[q + 1] - h->rfirst[q]);
}

/* A member that does not lead: steps 1 and 3. */
static int collect_member(shmemi_coll_args_t *a, uint64_t e, int lead)
{
    struct shmemi_team *t = a->t;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t *cnt = (uint64_t *)s->scratch[e & 1], c64 = a->len;
    char *dest = a->dest;
    size_t mylen = a->len, mine_off, total;
    int me = t->my_pe, rc;

    rc = a->fixed ? shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[lead])
                  : shmemi_team_put_signal(&cnt[me], &c64, sizeof(c64), &s->sig[me],
                                           shmemi_team_sigval(e, 1), t->pes[lead]);
    if (rc)
        return rc;
    shmemi_team_wait(&s->sig[lead], shmemi_team_sigval(e, 1));
    if (a->fixed) {
        mine_off = (size_t)me * mylen;
        total = (size_t)t->n_pes * mylen;
    } else {
        mine_off = (size_t)s->aux[HIER_AUX_OFF];
        total = (size_t)s->aux[HIER_AUX_TOTAL];
    }
    if (dest + mine_off != a->src)
        memmove(dest + mine_off, a->src, mylen);
    if (mine_off &&
        (rc = shmemi_get_w(SHMEM_CTX_DEFAULT, dest, dest, mine_off, t->pes[lead], 0, a->rtn)))
        return rc;
    if (total > mine_off + mylen &&
        (rc = shmemi_get_w(SHMEM_CTX_DEFAULT, dest + mine_off + mylen, dest + mine_off + mylen,
                           total - mine_off - mylen, t->pes[lead], 0, a->rtn)))
        return rc;
    return shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 2), t->pes[lead]);
}

/* A leader, step 2 up to the offsets: my members' entries, "entered" or
 * my group's counts to the other leaders, theirs (collect), the offsets
 * of every block (off[n + 1]). */
static int collect_lead_counts(shmemi_coll_args_t *a, uint64_t e, size_t *off)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t *cnt = (uint64_t *)s->scratch[e & 1];
    int n = t->n_pes, me = t->my_pe, g = h->my_group, fixed = a->fixed, i, j, q, r, rc;
    size_t total;

    if (!fixed)
        cnt[me] = a->len;
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(&s->sig[h->mem[i]], shmemi_team_sigval(e, 1));
    for (q = 0; q < h->ng; q++) {
        int pe = t->pes[SHMEMI_HIER_LEADER(h, q)];
        if (q == g)
            continue;
        if (fixed) {
            if ((rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), pe)))
                return rc;
            continue;
        }
        for (r = h->rfirst[g]; r < h->rfirst[g + 1]; r++)
            if ((rc = shmemi_team_put_signal(&cnt[h->rs[r]], &cnt[h->rs[r]],
                                             sizeof(uint64_t) * (size_t)(h->re[r] - h->rs[r]),
                                             &s->sig[me],
                                             shmemi_team_sigval(e, (unsigned)(r - h->rfirst[g]) +
                                                                       1), pe)))
                return rc;
    }
    if (!fixed)
        for (q = 0; q < h->ng; q++)
            if (q != g)
                shmemi_team_wait(&s->sig[SHMEMI_HIER_LEADER(h, q)],
                                 shmemi_team_sigval(e, hier_base(h, q, 0)));
    for (total = 0, j = 0; j < n; j++) {
        off[j] = total;
        total += fixed ? a->len : (size_t)cnt[j];
    }
    off[n] = total;
    return 0;
}

/* A leader, the rest of step 2 and step 3: my group's blocks out of the
 * members' sources, to the other leaders, theirs in, my members released. */
static int collect_lead_data(shmemi_coll_args_t *a, uint64_t e, const size_t *off)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, g = h->my_group, fixed = a->fixed, i, j, q, r, rc;
    char *dest = a->dest;

    for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++) {
        j = h->mem[i];
        if (j == me) {
            if (dest + off[me] != a->src)
                memmove(dest + off[me], a->src, a->len);
        } else if (off[j + 1] > off[j] &&
                   (rc = shmemi_get_w(SHMEM_CTX_DEFAULT, dest + off[j], a->src,
                                      off[j + 1] - off[j], t->pes[j], 0, a->rtn))) {
            return rc;
        }
    }
    /* To the other leaders, once they entered. */
    for (q = 0; q < h->ng; q++) {
        int ql = SHMEMI_HIER_LEADER(h, q);
        if (q == g)
            continue;
        if (fixed)
            shmemi_team_wait(&s->sig[ql], shmemi_team_sigval(e, 1));
        for (r = h->rfirst[g]; r < h->rfirst[g + 1]; r++) {
            size_t lo = off[h->rs[r]], hi = off[h->re[r]];
            unsigned step = hier_base(h, g, fixed) + 1 + (unsigned)(r - h->rfirst[g]);
            if ((rc = shmemi_team_put_signal(dest + lo, dest + lo, hi - lo, &s->sig[me],
                                             shmemi_team_sigval(e, step), t->pes[ql])))
                return rc;
        }
    }
    for (q = 0; q < h->ng; q++)
        if (q != g)
            shmemi_team_wait(&s->sig[SHMEMI_HIER_LEADER(h, q)],
                             shmemi_team_sigval(e, hier_base(h, q, fixed) +
                                                       (unsigned)(h->rfirst[q + 1] -
                                                                  h->rfirst[q])));
    /* The members copy the result out of my dest (collect: told where
     * their block goes and how long the result is, in their own words). */
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++) {
        j = h->mem[i];
        if (!fixed) {
            volatile uint64_t *w = (volatile uint64_t *)shmemi_direct(
                (const void *)s->aux, sizeof(s->aux), t->pes[j]);
            w[HIER_AUX_OFF] = off[j];
            w[HIER_AUX_TOTAL] = off[n];
        }
        if ((rc = shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[j])))
            return rc;
    }
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(&s->sig[h->mem[i]], shmemi_team_sigval(e, 2));
    return 0;
}

int shmemi_coll_collect_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    int lead = SHMEMI_HIER_LEADER(h, h->my_group), rc;
    uint64_t e = shmemi_team_begin(t);
    size_t *off;

    if (t->my_pe != lead)
        return collect_member(a, e, lead);
    off = malloc(sizeof(size_t) * ((size_t)t->n_pes + 1));
    if (!off)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", a->rtn);
    if (!(rc = collect_lead_counts(a, e, off)))
        rc = collect_lead_data(a, e, off);
    free(off);
    return rc;
}
