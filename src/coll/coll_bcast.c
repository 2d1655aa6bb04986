/*
 * Broadcast: the direct path of node teams, the binomial tree and the
 * linear broadcast of put with signal, and their table in the registry
 * (the hierarchical form is in coll_hier.c).
 */
#include "coll/coll.h"

/* Bytes per pipelined chunk of the tree broadcast. */
#define BCAST_CHUNK (64 * 1024)

/* The tree (binomial, rooted at root) or linear broadcast: each member
 * announces that it entered to its parent, waits for its children's
 * announcements, then forwards the data chunk by chunk as it arrives. */
static int bcast_tree(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    char *dest = a->dest;
    const char *src = a->src;
    size_t len = a->len;
    int root = a->root, linear = a->algo == SHMEMI_CA_LINEAR;
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int kids[64], nk, rc, parent = shmemi_sched_tree(t->n_pes, root, t->my_pe, linear, kids, &nk);
    uint64_t e = shmemi_team_begin_rooted(t);
    size_t nchunks = len ? (len + BCAST_CHUNK - 1) / BCAST_CHUNK : 0, c;
    if (parent >= 0) {
        if ((rc = shmemi_coll_announce(t, e, parent)))
            return rc;
    } else if (a->write_root && dest != src) {
        memmove(dest, src, len);
    }
    for (int k = 0; k < nk; k++)
        shmemi_team_wait(&s->sig[kids[k]], shmemi_team_sigval(e, 0));
    for (c = 0; c < nchunks || (c == 0 && nchunks == 0); c++) {
        size_t off = c * BCAST_CHUNK, clen = len - off < BCAST_CHUNK ? len - off : BCAST_CHUNK;
        if (!len)
            clen = 0;
        if (parent >= 0)
            shmemi_team_wait(&s->sig[parent], shmemi_team_sigval(e, (unsigned)c + 1));
        for (int k = 0; k < nk; k++)
            if ((rc = shmemi_team_put_signal(dest + off, (parent >= 0 ? dest : src) + off, clen,
                                             &s->sig[t->my_pe],
                                             shmemi_team_sigval(e, (unsigned)c + 1),
                                             t->pes[kids[k]])))
                return rc;
        if (!len)
            break;
    }
    return 0;
}

/* Direct broadcast: every non-root copies out of the root's source.  From
 * BCAST_SPLIT bytes on, the root (otherwise idle) writes the last 1/n of
 * every member's dest itself, so the root and the members copy about the
 * same amount at once. */
#define BCAST_SPLIT (64 * 1024)

/* Below BCAST_SPLIT: one wait each.  The root publishes "src ready" (the
 * broadcast's epoch) in its slot and waits until the n - 1 members have
 * counted themselves done on its counter; each member waits for the
 * root's word, copies, and counts itself.  The words are the root's, so
 * successive broadcasts with other roots do not interfere, and the root
 * clears its counter before it publishes (the members of its previous
 * broadcast are all counted by then). */
static void bcast_flag(struct shmemi_team *t, void *dest, const void *src, size_t len, int root,
                       int write_root)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int rpe = t->pes[root];
    uint64_t e = shmemi_team_begin_rooted(t);
    uint64_t *ready = (uint64_t *)shmemi_direct((const void *)&s->bar[SHMEMI_TEAM_BAR_BCAST_READY],
                                                sizeof(uint64_t), rpe);
    uint64_t *done = (uint64_t *)shmemi_direct((const void *)&s->bar[SHMEMI_TEAM_BAR_BCAST_DONE],
                                               sizeof(uint64_t), rpe);

    if (t->my_pe == root) {
        if (write_root && dest != src)
            memmove(dest, src, len);
        __atomic_store_n(done, 0, __ATOMIC_RELAXED);
        __atomic_store_n(ready, e, __ATOMIC_RELEASE);
        shmemi_wake(ready);
        shmemi_team_wait(done, (uint64_t)t->n_pes - 1);
    } else {
        shmemi_team_wait(ready, e);
        memcpy(dest, shmemi_direct(src, len, rpe), len);
        __atomic_fetch_add(done, 1, __ATOMIC_RELEASE);
        shmemi_wake(done);
    }
}

static int bcast_direct(shmemi_coll_args_t *a)
{
    struct shmemi_team *t = a->t;
    void *dest = a->dest;
    const void *src = a->src;
    size_t len = a->len;
    int n = t->n_pes, root = a->root, rc;
    size_t share = len >= BCAST_SPLIT ? (len / (size_t)n) & ~(size_t)63 : 0, head = len - share;

    if (len < BCAST_SPLIT) {
        bcast_flag(t, dest, src, len, root, a->write_root);
        return 0;
    }
    if ((rc = shmemi_coll_sync_team(t)))
        return rc;
    if (t->my_pe != root) {
        if (head)
            memcpy(dest, shmemi_direct(src, head, t->pes[root]), head);
    } else {
        if (a->write_root && dest != src)
            memmove(dest, src, len);
        for (int k = 1; share && k < n; k++)
            memcpy(shmemi_direct((char *)dest + head, share, t->pes[(root + k) % n]),
                   (const char *)src + head, share);
    }
    return shmemi_coll_sync_team(t);
}

/* ---- the table ---- */

static int direct_can(const shmemi_coll_args_t *a) { return a->dok; }
static int hier_can(const shmemi_coll_args_t *a) { return shmemi_coll_hier_ok(a->t); }
static int tree_pick(const shmemi_coll_args_t *a)
{
    return a->len <= shmemi_g.env.coll_small || a->t->n_pes > 8;
}
/* A linear broadcast to many takes the tree. */
static int linear_can(const shmemi_coll_args_t *a) { return a->t->n_pes - 1 <= 64; }

const shmemi_coll_row_t shmemi_coll_bcast_rows[] = {
    { SHMEMI_CA_DIRECT, "every PE copies from the root's mapped buffer; node teams",
      "wherever it applies", direct_can, direct_can, SHMEMI_CA_AUTO, bcast_direct },
    { SHMEMI_CA_HIER, "teams that span nodes: the root and the other nodes' leaders form the "
      "tree, each node's members copy from their leader's mapped buffer", "wherever it applies",
      hier_can, hier_can, SHMEMI_CA_AUTO, shmemi_coll_bcast_hier },
    { SHMEMI_CA_TREE, "binomial tree of put with signal, pipelined in 64 KiB chunks",
      "up to FABSHMEM_COLL_SMALL bytes, or on teams of more than 8 PEs", NULL, tree_pick,
      SHMEMI_CA_AUTO, bcast_tree },
    { SHMEMI_CA_LINEAR, "the root puts to every PE; teams of up to 65 PEs, larger ones take "
      "tree", "elsewhere", linear_can, NULL, SHMEMI_CA_TREE, bcast_tree },
    { .run = NULL },
};

int shmemi_coll_bcast(shmem_team_t team, void *dest, const void *src, size_t nelems,
                      size_t elsize, int root, int write_root, const char *rtn)
{
    struct shmemi_team *t = team;
    shmemi_coll_args_t a = { .t = t, .dest = dest, .src = src, .len = nelems * elsize,
                             .root = root, .write_root = write_root, .rtn = rtn };
    int rc;

    if (shmemi_coll_dev_case(dest, src))
        return shmemi_coll_dev_bcast(team, dest, src, nelems, elsize, root, write_root, rtn);
    if ((rc = shmemi_coll_agree(team, shmemi_coll_bcast_check(team, dest, src, nelems, elsize,
                                                              root, rtn),
                                nelems, root, 0, 0, rtn)))
        return rc;
    if (t->n_pes == 1) {
        if (write_root && dest != src)
            memmove(dest, src, a.len);
        return 0;
    }
    if ((rc = shmemi_coll_ready(t)))
        return rc;
    a.dok = shmemi_coll_direct_ok(t, dest, a.len, src, a.len);
    return shmemi_coll_dispatch(SHMEMI_CK_BCAST, &a);
}
