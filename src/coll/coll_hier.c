/*
 * Hierarchical collectives of teams that span (virtual) nodes: the barrier,
 * the broadcast and collect/fcollect in three phases, node-local, between
 * the nodes' leaders, node-local again.  (The hierarchical reduction is in
 * coll_reduce.c; alltoall has no hierarchical form, see docs/design.md.)
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
 * rule of docs/design.md asks.
 *
 * A member that reads its leader's buffer tells the leader when it is done
 * (a signal), and the leader returns only then: the user may overwrite its
 * buffers as soon as the call returns.
 */
#include "coll/coll.h"
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

/* ---- the node groups ---- */

/* NULL or partly allocated too. */
void shmemi_coll_hier_free(struct shmemi_coll_hier *h)
{
    if (!h)
        return;
    free(h->gfirst);
    free(h->mem);
    free(h->group_of);
    free(h->lead);
    free(h->rfirst);
    free(h->rs);
    free(h->re);
    free(h);
}

const struct shmemi_coll_hier *shmemi_coll_hier_make(struct shmemi_team *t)
{
    struct shmemi_coll_hier *h = calloc(1, sizeof(*h));
    int n = t->n_pes, nn = shmemi_g.n_nodes, i, g, *gid = NULL, *fill = NULL, nr;

    if (!h)
        goto err_oom;
    h->gfirst = malloc(sizeof(int) * (size_t)(n + 1));
    h->mem = malloc(sizeof(int) * (size_t)n);
    h->group_of = malloc(sizeof(int) * (size_t)n);
    h->lead = malloc(sizeof(int) * (size_t)n);
    h->rfirst = malloc(sizeof(int) * (size_t)(n + 1));
    h->rs = malloc(sizeof(int) * (size_t)n);
    h->re = malloc(sizeof(int) * (size_t)n);
    gid = malloc(sizeof(int) * (size_t)(nn > 0 ? nn : 1));
    fill = calloc((size_t)n + 1, sizeof(int));
    if (!h->gfirst || !h->mem || !h->group_of || !h->lead || !h->rfirst || !h->rs || !h->re || !gid ||
        !fill)
        goto err_oom;
    /* Group ids in the order of the groups' first members. */
    for (i = 0; i < nn; i++)
        gid[i] = -1;
    for (i = 0; i < n; i++) {
        int nd = shmemi_g.node_of[t->pes[i]];
        if (gid[nd] < 0)
            gid[nd] = h->ng++;
        h->group_of[i] = gid[nd];
        fill[gid[nd] + 1]++;
    }
    /* Members of each group in team order (a counting sort). */
    for (g = 0; g < h->ng; g++)
        fill[g + 1] += fill[g];
    for (g = 0; g <= h->ng; g++)
        h->gfirst[g] = fill[g];
    for (i = 0; i < n; i++)
        h->mem[fill[h->group_of[i]]++] = i;
    for (g = 0; g < h->ng; g++)
        h->lead[g] = h->mem[h->gfirst[g]];
    /* Runs of consecutive team indices within each group. */
    for (g = 0, nr = 0; g < h->ng; g++) {
        h->rfirst[g] = nr;
        for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++) {
            if (i > h->gfirst[g] && h->mem[i] == h->re[nr - 1]) {
                h->re[nr - 1]++;
                continue;
            }
            h->rs[nr] = h->mem[i];
            h->re[nr++] = h->mem[i] + 1;
        }
    }
    h->rfirst[h->ng] = nr;
    h->my_group = h->group_of[t->my_pe];
    h->ok = shmemi_g.env.direct && h->ng > 1 && h->ng < n;
    /* The node-local phases read the group's slots through the mapping. */
    for (i = h->gfirst[h->my_group]; h->ok && i < h->gfirst[h->my_group + 1]; i++)
        if (!shmemi_g.peer_heap[t->pes[h->mem[i]]])
            shmemi_fatal("collective: PE %d shares node %d with PE %d but does not map its "
                         "heap, which the hierarchical collectives need; set FABSHMEM_DIRECT=0",
                         shmemi_g.my_pe, shmemi_g.node_of[shmemi_g.my_pe], t->pes[h->mem[i]]);
    free(gid);
    free(fill);
    shmemi_coll_of(t)->hier = h;
    return h;

err_oom:
    free(gid);
    free(fill);
    shmemi_coll_hier_free(h);
    shmemi_fatal("collective: out of memory for the node groups of a team of %d PEs", n);
}

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
    int g, lead, i, k, dist;

    g = h->my_group;
    lead = SHMEMI_HIER_LEADER(h, g);
    if (t->my_pe != lead) {
        __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_HIER_ARRIVE], b, __ATOMIC_RELEASE);
        shmemi_team_wait(peer_word(t, &s->bar[SHMEMI_TEAM_BAR_HIER_RELEASE], lead), b);
        return 0;
    }
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(peer_word(t, &s->bar[SHMEMI_TEAM_BAR_HIER_ARRIVE], h->mem[i]), b);
    /* The leaders' dissemination: round k signals leader g + 2^k, whose
     * word SHMEMI_TEAM_BAR_LEADERS + k has that one writer (not the plain
     * dissemination's words: the team layer's own barrier may run on this
     * team between two of these). */
    for (k = 0, dist = 1; dist < h->ng; k++, dist <<= 1) {
        volatile uint64_t *w = &s->bar[SHMEMI_TEAM_BAR_LEADERS + k];
        shmemi_team_signal(w, b, t->pes[SHMEMI_HIER_LEADER(h, (g + dist) % h->ng)]);
        shmemi_team_wait(w, b);
    }
    __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_HIER_RELEASE], b, __ATOMIC_RELEASE);
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
int shmemi_coll_bcast_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    char *dest = a->dest;
    const char *src = a->src, *rtn = a->rtn;
    size_t len = a->len;
    int root = a->root, write_root = a->write_root;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int ng = h->ng, me = t->my_pe, rg = h->group_of[root], g = h->my_group;
    int lead = g == rg ? root : SHMEMI_HIER_LEADER(h, g), r, mask, parent = -1, kids[64], nk = 0;
    int i;
    uint64_t e = shmemi_team_begin_rooted(t);
    size_t nchunks = len ? (len + HIER_CHUNK - 1) / HIER_CHUNK : 1, c;
    const char *have;

    if (me != lead) {
        const char *from = lead == root ? src : dest;
        for (c = 0; c < nchunks; c++) {
            size_t off = c * HIER_CHUNK, clen = len - off < HIER_CHUNK ? len - off : HIER_CHUNK;
            shmemi_team_wait(&s->sig[lead], shmemi_team_sigval(e, (unsigned)c + 1));
            if (clen)
                shmemi_must(shmemi_get_w(SHMEM_CTX_DEFAULT, dest + off, from + off, clen, t->pes[lead], 0,
                             rtn));
        }
        shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[lead]);
        return 0;
    }
    /* The tree over relative ranks; rank q is group (q + rg) % ng. */
#define ACTING(q) ((((q) + rg) % ng) == rg ? root : SHMEMI_HIER_LEADER(h, ((q) + rg) % ng))
    r = (g - rg + ng) % ng;
    for (mask = 1; mask < ng; mask <<= 1)
        if (r & mask) {
            parent = ACTING(r - mask);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (r + mask < ng)
            kids[nk++] = ACTING(r + mask);
#undef ACTING
    if (parent >= 0)
        shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 0), t->pes[parent]);
    else if (write_root && dest != src)
        memmove(dest, src, len);
    have = parent >= 0 ? dest : src;
    if (parent < 0)
        for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++)
            if (h->mem[i] != me)
                shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, (unsigned)nchunks),
                                   t->pes[h->mem[i]]);
    for (i = 0; i < nk; i++)
        shmemi_team_wait(&s->sig[kids[i]], shmemi_team_sigval(e, 0));
    for (c = 0; c < nchunks; c++) {
        size_t off = c * HIER_CHUNK, clen = len - off < HIER_CHUNK ? len - off : HIER_CHUNK;
        uint64_t v = shmemi_team_sigval(e, (unsigned)c + 1);
        if (parent >= 0)
            shmemi_team_wait(&s->sig[parent], v);
        for (i = 0; i < nk; i++)
            shmemi_team_put_signal(dest + off, have + off, clen, &s->sig[me], v, t->pes[kids[i]]);
        if (parent >= 0)
            for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++)
                if (h->mem[i] != me)
                    shmemi_team_signal(&s->sig[me], v, t->pes[h->mem[i]]);
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
int shmemi_coll_collect_hier(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    char *dest = a->dest;
    const char *src = a->src, *rtn = a->rtn;
    size_t mylen = a->len;
    int fixed = a->fixed;
    const struct shmemi_coll_hier *h = shmemi_coll_hier(t);
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int n = t->n_pes, me = t->my_pe, g = h->my_group, lead = SHMEMI_HIER_LEADER(h, g);
    int ng = h->ng, i, j, q, r;
    uint64_t e = shmemi_team_begin(t);
    uint64_t *cnt = (uint64_t *)s->scratch[e & 1];
    size_t *off, total, mine_off;

    if (me != lead) {
        if (fixed) {
            shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[lead]);
        } else {
            uint64_t c64 = mylen;
            shmemi_team_put_signal(&cnt[me], &c64, sizeof(c64), &s->sig[me],
                                   shmemi_team_sigval(e, 1), t->pes[lead]);
        }
        shmemi_team_wait(&s->sig[lead], shmemi_team_sigval(e, 1));
        if (fixed) {
            mine_off = (size_t)me * mylen;
            total = (size_t)n * mylen;
        } else {
            mine_off = (size_t)s->aux[HIER_AUX_OFF];
            total = (size_t)s->aux[HIER_AUX_TOTAL];
        }
        if (dest + mine_off != src)
            memmove(dest + mine_off, src, mylen);
        if (mine_off)
            shmemi_must(shmemi_get_w(SHMEM_CTX_DEFAULT, dest, dest, mine_off, t->pes[lead], 0, rtn));
        if (total > mine_off + mylen)
            shmemi_must(shmemi_get_w(SHMEM_CTX_DEFAULT, dest + mine_off + mylen, dest + mine_off + mylen,
                         total - mine_off - mylen, t->pes[lead], 0, rtn));
        shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 2), t->pes[lead]);
        return 0;
    }
    off = malloc(sizeof(size_t) * ((size_t)n + 1));
    if (!off)
        shmemi_fatal("%s: out of memory", rtn);
    if (!fixed)
        cnt[me] = mylen;
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(&s->sig[h->mem[i]], shmemi_team_sigval(e, 1));
    /* Entered, or my group's counts, to the other leaders. */
    for (q = 0; q < ng; q++) {
        int pe = t->pes[SHMEMI_HIER_LEADER(h, q)];
        if (q == g)
            continue;
        if (fixed) {
            shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), pe);
            continue;
        }
        for (r = h->rfirst[g]; r < h->rfirst[g + 1]; r++)
            shmemi_team_put_signal(&cnt[h->rs[r]], &cnt[h->rs[r]],
                                   sizeof(uint64_t) * (size_t)(h->re[r] - h->rs[r]), &s->sig[me],
                                   shmemi_team_sigval(e, (unsigned)(r - h->rfirst[g]) + 1), pe);
    }
#define BASE(q) (fixed ? 1u : (unsigned)(h->rfirst[(q) + 1] - h->rfirst[q]))
    if (!fixed)
        for (q = 0; q < ng; q++)
            if (q != g)
                shmemi_team_wait(&s->sig[SHMEMI_HIER_LEADER(h, q)], shmemi_team_sigval(e, BASE(q)));
    for (total = 0, j = 0; j < n; j++) {
        off[j] = total;
        total += fixed ? mylen : (size_t)cnt[j];
    }
    off[n] = total;
    /* My group's blocks, out of the members' sources. */
    for (i = h->gfirst[g]; i < h->gfirst[g + 1]; i++) {
        j = h->mem[i];
        if (j == me) {
            if (dest + off[me] != src)
                memmove(dest + off[me], src, mylen);
        } else if (off[j + 1] > off[j]) {
            shmemi_must(shmemi_get_w(SHMEM_CTX_DEFAULT, dest + off[j], src, off[j + 1] - off[j], t->pes[j],
                         0, rtn));
        }
    }
    /* To the other leaders, once they entered. */
    for (q = 0; q < ng; q++) {
        int ql = SHMEMI_HIER_LEADER(h, q);
        if (q == g)
            continue;
        if (fixed)
            shmemi_team_wait(&s->sig[ql], shmemi_team_sigval(e, 1));
        for (r = h->rfirst[g]; r < h->rfirst[g + 1]; r++) {
            size_t a = off[h->rs[r]], b = off[h->re[r]];
            shmemi_team_put_signal(dest + a, dest + a, b - a, &s->sig[me],
                                   shmemi_team_sigval(e, BASE(g) + 1 +
                                                             (unsigned)(r - h->rfirst[g])),
                                   t->pes[ql]);
        }
    }
    for (q = 0; q < ng; q++)
        if (q != g)
            shmemi_team_wait(&s->sig[SHMEMI_HIER_LEADER(h, q)],
                             shmemi_team_sigval(e, BASE(q) + (unsigned)(h->rfirst[q + 1] -
                                                                         h->rfirst[q])));
#undef BASE
    /* The members copy the result out of my dest (collect: told where
     * their block goes and how long the result is, in their own words). */
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++) {
        j = h->mem[i];
        if (!fixed) {
            volatile uint64_t *a = (volatile uint64_t *)shmemi_direct(
                (const void *)s->aux, sizeof(s->aux), t->pes[j]);
            a[HIER_AUX_OFF] = off[j];
            a[HIER_AUX_TOTAL] = total;
        }
        shmemi_team_signal(&s->sig[me], shmemi_team_sigval(e, 1), t->pes[j]);
    }
    for (i = h->gfirst[g] + 1; i < h->gfirst[g + 1]; i++)
        shmemi_team_wait(&s->sig[h->mem[i]], shmemi_team_sigval(e, 2));
    free(off);
    return 0;
}
