/*
 * Collectives: broadcast, collect and fcollect, alltoall(s), barriers and
 * the reductions (coll_reduce.h), built from the primitives of the team
 * layer (src/team/team.h: a put with signal, a signal, a wait, epochs).
 * What the collectives keep on a team (their counts, the node groups of
 * the hierarchical algorithms) hangs on the team's coll pointer
 * (struct shmemi_coll_team), attached at the first use and freed by the
 * team layer through the team's coll_free.
 *
 * The scratch halves of a team's slot alternate by epoch parity, and two
 * uses of one half must be separated by a full epoch (team.h).  Node teams
 * (all_mapped) get that from shmemi_team_guard.  On the other teams,
 * collective by collective:
 *  - full: the reductions (rd: every chunk's result holds every member's
 *    input; rsag: every piece's partial passes every member, and the
 *    allgather epoch brings every member's slice; hier: the leaders wait
 *    for their members before the leaders' epochs, the members for their
 *    leader after them), collect and fcollect (ring, rd, Bruck's: every
 *    block leaves its owner only after it entered; hier: as the reduction),
 *    alltoall pairwise (a member waits for every member's block) and
 *    shmemi_team_allreduce_u64 (a dissemination);
 *  - not full: the broadcasts.  The root of a tree waits only for its
 *    children (from 4 members a grandchild may still be in the epoch
 *    before), and in hier the root's node peers wait only for the root,
 *    the acting leaders for their parent and children.  (linear is full,
 *    but is treated alike.)
 * A reduction, a broadcast and a reduction in a row, epochs e - 1, e, e + 1,
 * would let a member that left the broadcast early write the second
 * reduction's data into the half where a slow member was still reading the
 * first's (wrong sums at 4 PEs on tcp without the direct path,
 * tests/coll/coll_race).  So off node teams a broadcast takes two epochs
 * (shmemi_team_begin_rooted): the epochs between two full collectives with
 * no full one between them all belong to broadcasts, two each, so those
 * two are an odd number of epochs apart and use different halves.  Two
 * uses of one half are therefore always separated by a full epoch.  The
 * scratch users off node teams are rd, the pieces of rsag, collect's counts
 * (Bruck's rounds into the members' halves without an "entered" signal;
 * hier: into the leaders' halves) and shmemi_team_allreduce_u64; on node
 * teams also the one-sync small paths (each member's own half, which all
 * read after the sync).  Barriers and syncs take no epoch; they are full,
 * which only helps.
 *
 * Signal words: sig[] values carry their epoch and only grow, the
 * barriers' words carry the barrier's count, hier's aux words are read
 * before the "done" signal that their writer waits for, and the direct
 * broadcast's counter (node teams) is reset by its root only after it
 * counted every member of its previous broadcast.
 */
#ifndef SHMEMI_COLL_H
#define SHMEMI_COLL_H

#include "team/team.h"

/* Collective kinds and algorithms, for the per-team counts that
 * shmemx_team_coll_count reports (tests check with them that a forced
 * algorithm really ran).  The names are those of coll_kind_names and
 * coll_algo_names in coll.c. */
enum {
    SHMEMI_CK_BARRIER, SHMEMI_CK_BCAST, SHMEMI_CK_COLLECT, SHMEMI_CK_ALLTOALL, SHMEMI_CK_REDUCE,
    SHMEMI_CK_COUNT
};
enum {
    SHMEMI_CA_DIRECT, SHMEMI_CA_SMALL, SHMEMI_CA_LL, SHMEMI_CA_CENTRAL, SHMEMI_CA_DISSEMINATION,
    SHMEMI_CA_TREE, SHMEMI_CA_LINEAR, SHMEMI_CA_RING, SHMEMI_CA_RD, SHMEMI_CA_BRUCK,
    SHMEMI_CA_PAIRWISE, SHMEMI_CA_RSAG, SHMEMI_CA_HIER,
    SHMEMI_CA_COUNT
};

/* The node groups of a team (coll_hier.c), made at the first collective
 * that asks: members grouped by (virtual) node, each group in team order,
 * the groups ordered by their first member, which leads the group. */
struct shmemi_coll_hier {
    /* 1: the direct path is on, the team spans nodes and some node holds
     * several members (the same answer on every member: the node map and
     * the environment are global). */
    int ok;
    int ng;        /* groups */
    int my_group;
    int *gfirst;   /* [ng + 1]: group g is mem[gfirst[g] .. gfirst[g + 1]) */
    int *mem;      /* [n]: team indices, group by group */
    int *group_of; /* [n]: the group of each member */
    int *lead;     /* [ng]: the team index of each group's leader */
    /* Runs of consecutive team indices of each group (the blocks of a
     * group in a collect's dest): group g has runs rfirst[g] ..
     * rfirst[g + 1] - 1, run r covering team indices rs[r] .. re[r] - 1. */
    int *rfirst, *rs, *re;
};
/* The team index of group g's leader. */
#define SHMEMI_HIER_LEADER(h, g) ((h)->lead[g])

/* What the collectives keep on a team (t->coll). */
struct shmemi_coll_team {
    /* Node groups (NULL until a collective needs them). */
    struct shmemi_coll_hier *hier;
    /* Collectives run on this team by kind and algorithm. */
    unsigned long count[SHMEMI_CK_COUNT][SHMEMI_CA_COUNT];
};

/* Attaches the collectives' state to t (coll_team.c). */
struct shmemi_coll_team *shmemi_coll_attach(struct shmemi_team *t);
static inline struct shmemi_coll_team *shmemi_coll_of(struct shmemi_team *t)
{
    return t->coll ? (struct shmemi_coll_team *)t->coll : shmemi_coll_attach(t);
}

static inline void shmemi_coll_count(struct shmemi_team *t, int kind, int algo)
{
    shmemi_coll_of(t)->count[kind][algo]++;
}

/* Bytes (the same on every member) up to which a node team takes the
 * one-sync small paths of fcollect, alltoall and the reductions (each
 * member copies its part into its scratch, one sync, everybody reads
 * everybody's scratch) rather than the two-sync direct paths (sync, each
 * member reads its share straight out of the peers' buffers, sync).  One
 * sync fewer pays where a sync is dear: more PEs than cores (each wait a
 * trip through the scheduler) or more than two members.  Two members with
 * a core each sync in about 0.1 us, and the direct paths, which copy
 * nothing into the scratch and read only what they need, win from
 * SHMEMI_COLL_SMALL_PAIR bytes on (2 PEs, 1 KiB: reduction 1.5 -> 0.5 us,
 * fcollect 0.41 -> 0.23 us, alltoall 0.36 -> 0.21 us).  direct: whether
 * the direct path applies to the buffers (else the small path is the
 * fastest on a node team at any size it takes). */
#define SHMEMI_COLL_SMALL_PAIR 512
static inline size_t shmemi_coll_small_max(const struct shmemi_team *t, int direct)
{
    size_t m = shmemi_g.env.coll_small < SHMEMI_TEAM_HALF ? shmemi_g.env.coll_small
                                                           : SHMEMI_TEAM_HALF;

    if (direct && t->n_pes <= 2 && !shmemi_g.oversubscribed && m > SHMEMI_COLL_SMALL_PAIR)
        m = SHMEMI_COLL_SMALL_PAIR;
    return m;
}

/* ---- barriers (coll_barrier.c) ---- */

/* The public barrier and sync of a team (shmem_barrier_all, shmem_sync_all,
 * shmem_team_sync, the active-set forms, the streams' barriers) and the
 * syncs inside the collectives' algorithms: a quiet (barrier) or a release
 * fence (sync), then the barrier algorithm of FABSHMEM_BARRIER_ALGO.
 * Non-members must not call. */
void shmemi_coll_barrier(struct shmemi_team *t);
void shmemi_coll_sync(struct shmemi_team *t);

/* ---- hierarchical collectives (coll_hier.c) ---- */

/* The node groups of t, made at the first call. */
const struct shmemi_coll_hier *shmemi_coll_hier_make(struct shmemi_team *t);
/* Frees node groups (NULL too). */
void shmemi_coll_hier_free(struct shmemi_coll_hier *h);
/* 1 when the hierarchical algorithms apply to t: the team spans nodes,
 * some node holds several members and the direct path maps them to each
 * other (so never on a node team, nor with FABSHMEM_DIRECT=0). */
static inline int shmemi_coll_hier_ok(struct shmemi_team *t)
{
    const struct shmemi_coll_hier *h;

    if (t->all_mapped || !shmemi_g.env.direct || t->n_pes < 3)
        return 0;
    h = shmemi_coll_of(t)->hier;
    return (h ? h : shmemi_coll_hier_make(t))->ok;
}
/* The node groups of t (after shmemi_coll_hier_ok said 1). */
static inline const struct shmemi_coll_hier *shmemi_coll_hier(struct shmemi_team *t)
{
    return ((struct shmemi_coll_team *)t->coll)->hier;
}
/* The barrier of a team that spans nodes: each group's members arrive at
 * their leader, the leaders run a dissemination, each leader releases its
 * group.  The caller checked shmemi_coll_hier_ok. */
void shmemi_coll_barrier_hier(struct shmemi_team *t);
/* Broadcast of len bytes from member root (write_root: into the root's
 * dest too); the caller checked shmemi_coll_hier_ok. */
void shmemi_coll_bcast_hier(struct shmemi_team *t, char *dest, const char *src, size_t len,
                            int root, int write_root, const char *rtn);
/* collect (fixed 0: mylen may differ between members) and fcollect; the
 * caller checked shmemi_coll_hier_ok and, for collect, that the counts of
 * the members fit in a scratch half. */
void shmemi_coll_collect_hier(struct shmemi_team *t, char *dest, const char *src, size_t mylen,
                              int fixed, const char *rtn);

/* ---- broadcast, collect, alltoall (coll.c) ---- */

/* Broadcast of len bytes from member root of t (write_root: the root's
 * dest gets them too, as in the team forms). */
void shmemi_coll_bcast(struct shmemi_team *t, void *dest, const void *src, size_t len, int root,
                       int write_root, const char *rtn);
/* collect (fixed 0: mylen bytes from each member, which may differ) and
 * fcollect (fixed 1) of elements of elsize bytes. */
void shmemi_coll_collect(struct shmemi_team *t, void *dest, const void *src, size_t mylen,
                         size_t elsize, int fixed, const char *rtn);
/* alltoall (dst = sst = 1) and alltoalls: nelems elements of elsize bytes
 * to every member, strides in elements. */
void shmemi_coll_alltoall(struct shmemi_team *t, char *dest, const char *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn);
/* shmemx_team_coll_count: the count of kind coll and algorithm algo on
 * team, or -1 (with a warning for unknown names). */
long shmemi_coll_count_get(shmem_team_t team, const char *coll, const char *algo,
                           const char *rtn);

#endif
