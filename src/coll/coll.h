/*
 * Teams and collectives: the team object, the per-team symmetric slot and
 * the two primitives every collective algorithm is built from (a put and a
 * signal), plus the team barrier.
 *
 * Every team owns one slot of the team area, a region of the reserved part
 * of the symmetric heap at the same offset on every PE.  The slot holds the
 * team's signal words and its scratch buffers, so team collectives need no
 * user pSync.  Because the slot lives in the heap, the local address of a
 * slot field is also its symmetric address: pass &slot->field to
 * shmemi_put_nbi / shmemi_coll_signal with any member's world PE.
 *
 * Signals carry epochs.  Each team counts its collectives (t->epoch, the
 * same on every member because every member calls the same collectives in
 * the same order); a signal word has one writer and only ever grows, so
 * "wait until word >= value" needs no reset and an early signal of the
 * next collective is harmless.
 *
 * Scratch is double-buffered by the parity of the epoch: a member writes
 * into a peer's half (e & 1) in epoch e as soon as it has left e - 1, so
 * the peer may still be reading that half for an earlier epoch e' of the
 * same parity.  That is safe when a "full" epoch lies between e' and e:
 * one that no member can leave before every member has entered it.  The
 * writer left it before it began e, so by then the peer had entered it,
 * which it does only after leaving e'.
 *
 * Node teams (all_mapped) get that from shmemi_coll_guard (below).  On the
 * other teams, collective by collective:
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
 * (shmemi_coll_begin_rooted): the epochs between two full collectives with
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
 * Signal words are not reused by parity: sig[] values carry their epoch
 * and only grow, the barriers' words carry the barrier's count, hier's aux
 * words are read before the "done" signal that their writer waits for, and
 * the direct broadcast's counter (node teams) is reset by its root only
 * after it counted every member of its previous broadcast.  Only the
 * low-latency lines (node teams, under the guard) alternate by parity.
 */
#ifndef SHMEMI_COLL_H
#define SHMEMI_COLL_H

#include "core/shmemi.h"

#define SHMEMI_TEAM_BAR_ROUNDS 64
#define SHMEMI_TEAM_SIGS       64
#define SHMEMI_TEAM_AUX        128
/* Words of one low-latency line: the epoch, then the data. */
#define SHMEMI_COLL_LL_WORDS   8
#define SHMEMI_COLL_LL_BYTES   ((SHMEMI_COLL_LL_WORDS - 1) * 8)
/* Bytes of scratch per slot (two halves, one per epoch parity). */
#define SHMEMI_COLL_SCRATCH    (64 * 1024)
#define SHMEMI_COLL_HALF       (SHMEMI_COLL_SCRATCH / 2)

typedef struct shmemi_team_slot {
    /* Team barrier (dissemination): round k of barrier b stores b here;
     * the writer of round k is always member (me - 2^k) mod n. */
    volatile uint64_t bar[SHMEMI_TEAM_BAR_ROUNDS];
    /* Small per-collective exchanges (counts, offsets, masks); the last
     * 2 * SHMEMI_COLL_LL_WORDS are the member's low-latency lines (see
     * shmemi_coll_ll_publish). */
    volatile uint64_t aux[SHMEMI_TEAM_AUX];
    /* Scratch, indexed by epoch parity. */
    char scratch[2][SHMEMI_COLL_HALF] __attribute__((aligned(64)));
    /* Algorithm signals: sig[j] is written only by team member j, with
     * values shmemi_coll_sigval(epoch, step) that grow from one signal of
     * j to the next (connections deliver one sender's signals in order).
     * One word per world PE (the slot size depends on the job size). */
    volatile uint64_t sig[];
} shmemi_team_slot_t;

_Static_assert(offsetof(shmemi_team_slot_t, aux) % 64 == 0 &&
                   (SHMEMI_TEAM_AUX - 2 * SHMEMI_COLL_LL_WORDS) * 8 % 64 == 0 &&
                   SHMEMI_COLL_LL_WORDS * 8 == 64,
               "the low-latency lines are whole cache lines");

/* Bytes of one slot in this job. */
extern size_t shmemi_team_slot_size SHMEMI_HIDDEN;

/* The signal value of step (< 2^20) of collective epoch. */
static inline uint64_t shmemi_coll_sigval(uint64_t epoch, unsigned step)
{
    return (epoch << 20) | step;
}

/* Fixed slots of the predefined teams; slots from SHMEMI_SLOT_FIRST_FREE
 * to teams_max - SHMEMI_SLOT_ACTIVE_SETS - 1 go to teams made at run time;
 * the last SHMEMI_SLOT_ACTIVE_SETS slots serve the deprecated active-set
 * collectives (hashed by the (PE_start, logPE_stride, PE_size) triple). */
enum {
    SHMEMI_SLOT_WORLD = 0,
    SHMEMI_SLOT_SHARED = 1,
    SHMEMI_SLOT_NODE = 2,
    SHMEMI_SLOT_SAME_MYPE_NODE = 3,
    SHMEMI_SLOT_NUMA = 4,
    SHMEMI_SLOT_NUMA_LEADERS = 5,
    SHMEMI_SLOT_FIRST_FREE = 8,
};
#define SHMEMI_SLOT_ACTIVE_SETS 64

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

struct shmemi_team {
    int my_pe;          /* my index in the team, -1 if not a member */
    int n_pes;
    int *pes;           /* team index -> world PE */
    int *world_to_team; /* world PE -> team index or -1 (n_pes of world) */
    int slot;           /* index in the team area, -1 without one */
    int predefined;     /* 1: a SHMEM_TEAM_ / SHMEMX_TEAM_ constant */
    int all_mapped;     /* every member maps every member's heap */
    uint64_t epoch;     /* collectives started on this team */
    uint64_t bar_epoch; /* barriers started on this team */
    /* An epoch that this member saw every member begin (node teams: the
     * small paths wait for every member's part of their epoch); the
     * guard of the next collective then has nothing to wait for. */
    uint64_t synced_epoch;
    shmem_team_config_t config;
    long config_mask;
    struct shmemi_team *parent;
    /* Split parameters in world PEs (for translate, debugging): -1 if
     * the team is not a strided set. */
    int start, stride;
    /* Node groups (NULL until a collective needs them). */
    struct shmemi_coll_hier *hier;
    /* Collectives run on this team by kind and algorithm. */
    unsigned long coll_count[SHMEMI_CK_COUNT][SHMEMI_CA_COUNT];
};

static inline void shmemi_coll_count(struct shmemi_team *t, int kind, int algo)
{
    t->coll_count[kind][algo]++;
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
    size_t m = shmemi_g.env.coll_small < SHMEMI_COLL_HALF ? shmemi_g.env.coll_small
                                                           : SHMEMI_COLL_HALF;

    if (direct && t->n_pes <= 2 && !shmemi_g.oversubscribed && m > SHMEMI_COLL_SMALL_PAIR)
        m = SHMEMI_COLL_SMALL_PAIR;
    return m;
}

/* The team area: base address (my heap) and slot count (teams_max). */
extern char *shmemi_team_area SHMEMI_HIDDEN;
extern int shmemi_teams_max SHMEMI_HIDDEN;

static inline shmemi_team_slot_t *shmemi_team_slot(const struct shmemi_team *t)
{
    return (shmemi_team_slot_t *)(shmemi_team_area + (size_t)t->slot * shmemi_team_slot_size);
}

/* Bytes the team area needs (page multiple) for teams_max slots in a job
 * of n_pes PEs; sets shmemi_team_slot_size. */
size_t shmemi_team_area_size(long teams_max, int n_pes);

/* Predefined teams, built at init after the heap and node map exist. */
int shmemi_teams_init(void);
void shmemi_teams_fini(void);

/* Fills t->pes / world_to_team / my_pe / n_pes / all_mapped from a list
 * of n world PEs (in team order).  t->slot is left alone.  -ENOMEM. */
int shmemi_team_set_members(struct shmemi_team *t, const int *world_pes, int n);
/* Frees the member arrays. */
void shmemi_team_free_members(struct shmemi_team *t);

/* Slot management.  shmemi_team_slot_agree is collective over parent (its
 * members only): it ANDs every member's free-slot mask and returns the
 * lowest slot free on all of them, reserved on the calling PE, or -1 when
 * none is free anywhere (every member gets -1).  want_member: 0 when the
 * calling PE will not be in the new team (it takes part in the agreement
 * but reserves nothing).  The slot's words are cleared for reuse by
 * shmemi_team_slot_clear, which the caller must follow with a sync of the
 * parent before anyone uses the new team. */
int shmemi_team_slot_agree(struct shmemi_team *parent, int want_member);
void shmemi_team_slot_clear(int slot);
void shmemi_team_slot_release(int slot);
/* This PE's free-slot mask, for agreements done another way
 * (shmemx_team_init): nwords() words, bit s set when slot s is free. */
int shmemi_team_slot_mask_words(void);
void shmemi_team_slot_mask(uint64_t *mask);
/* Marks slot s taken on this PE (after an agreement done another way). */
void shmemi_team_slot_take(int slot);

/* ---- primitives ---- */

/* Starts collective e = ++t->epoch (>= 1) and returns e.  On node teams
 * (all_mapped) some algorithms let a member finish without waiting for
 * every other member (the root-driven broadcast; the one-sync small paths
 * read the peers' scratch after their only sync), so the shape argument
 * above does not hold there: each member records "begun e" in its slot
 * (so finished e - 1) and waits until every member has begun e - 1, i.e.
 * has finished reading what epoch e - 2 left in the buffer that e reuses. */
void shmemi_coll_guard(struct shmemi_team *t, uint64_t e);
static inline uint64_t shmemi_coll_begin(struct shmemi_team *t)
{
    uint64_t e = ++t->epoch;
    if (t->all_mapped && t->n_pes > 1)
        shmemi_coll_guard(t, e);
    return e;
}
/* Starts a broadcast (a collective that may let a member leave before
 * every member has entered it) and returns its epoch.  Off node teams it
 * takes two epochs, so that the full collectives before and after it use
 * different scratch halves (the rule at the top); node teams have the
 * guard, which a skipped epoch would turn into a full sync. */
static inline uint64_t shmemi_coll_begin_rooted(struct shmemi_team *t)
{
    if (!t->all_mapped)
        t->epoch++;
    return shmemi_coll_begin(t);
}
/* The word of a node team's slot that shmemi_coll_guard uses. */
#define SHMEMI_TEAM_BAR_BEGUN (SHMEMI_TEAM_BAR_ROUNDS - 5)
/* The one synchronization of the small paths of node teams (every member
 * maps every member): this member's part of epoch e is in its scratch;
 * returns when every member's is.  Up to SHMEMI_COLL_READY_MAX members
 * each member stores e into its own word and waits on the others' (one
 * phase; the central barrier takes two: 2 PEs, 8-byte reduction 0.23 ->
 * 0.17 us); beyond that, or with more PEs than cores (where it measured
 * no better than the central barrier's single wait), a team sync. */
#define SHMEMI_TEAM_BAR_READY (SHMEMI_TEAM_BAR_ROUNDS - 6)
/* The words of the hierarchical barrier (coll_hier.c): a member stores
 * the barrier's epoch into its ARRIVE word, its group's leader into its
 * RELEASE word; the leaders' dissemination uses bar[0 ..]. */
#define SHMEMI_TEAM_BAR_HIER_ARRIVE (SHMEMI_TEAM_BAR_ROUNDS - 7)
#define SHMEMI_TEAM_BAR_HIER_RELEASE (SHMEMI_TEAM_BAR_ROUNDS - 8)
#define SHMEMI_COLL_READY_MAX 8
void shmemi_coll_ready(struct shmemi_team *t, uint64_t e);

/* Low-latency lines: the smallest collectives of node teams (up to
 * SHMEMI_COLL_LL_BYTES per member) carry each member's part and the epoch
 * in one cache line of its own slot, one line per epoch parity.  A member
 * writes its data, then (release) the epoch; the others wait for the
 * epoch and read the data from the line the wait brought in: one cache
 * line transfer per member where the small path takes a guard, a scratch
 * line, a ready word and a barrier.  A line of epoch e is rewritten at
 * e + 2 only after the writer's guard saw every member begin e + 1 (so
 * done reading e).  Node teams only (every member maps every member). */
static inline int shmemi_coll_ll_ok(const struct shmemi_team *t, size_t bytes)
{
    return t->all_mapped && bytes <= SHMEMI_COLL_LL_BYTES;
}
void shmemi_coll_ll_publish(struct shmemi_team *t, uint64_t e, const void *src, size_t len);
/* Waits for member j's line of epoch e and returns its data. */
const void *shmemi_coll_ll_wait(struct shmemi_team *t, uint64_t e, int j);
/* After waiting for every member's line (or ready word) of epoch e. */
static inline void shmemi_coll_synced(struct shmemi_team *t, uint64_t e)
{
    t->synced_epoch = e;
}

/* Stores value into the signal word sig (a symmetric address) of world PE
 * pe: a release store when pe is mapped, else an atomic set (or an 8-byte
 * put on providers without atomics) through the transport. */
void shmemi_coll_signal(volatile uint64_t *sig, uint64_t value, int pe);
/* Puts len bytes from src (any local memory) to the symmetric dest on world
 * PE pe, then signals value into sig there; whoever sees the signal sees
 * the data.  src may be reused when the call returns. */
void shmemi_coll_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                            uint64_t value, int pe);
/* Waits (spin, then yield, then sleep) until *sig >= value. */
void shmemi_coll_wait(volatile uint64_t *sig, uint64_t value);

/* Barrier over the team's members: a quiet (barrier) or not (sync), then
 * a dissemination over the slot's bar words.  Non-members must not call. */
void shmemi_team_barrier(struct shmemi_team *t);
void shmemi_team_sync(struct shmemi_team *t);

/* ---- hierarchical collectives (coll_hier.c) ---- */

/* The node groups of t, made at the first call. */
const struct shmemi_coll_hier *shmemi_coll_hier_make(struct shmemi_team *t);
/* 1 when the hierarchical algorithms apply to t: the team spans nodes,
 * some node holds several members and the direct path maps them to each
 * other (so never on a node team, nor with FABSHMEM_DIRECT=0). */
static inline int shmemi_coll_hier_ok(struct shmemi_team *t)
{
    if (t->all_mapped || !shmemi_g.env.direct || t->n_pes < 3)
        return 0;
    return (t->hier ? t->hier : shmemi_coll_hier_make(t))->ok;
}
/* Frees what the collectives keep on a team and clears its counts and
 * epochs (the team's members are being freed). */
void shmemi_coll_team_fini(struct shmemi_team *t);
/* The barrier of a team that spans nodes: each group's members arrive at
 * their leader, the leaders run a dissemination, each leader releases its
 * group.  b is the barrier's epoch.  Returns 1 when it ran (FABSHMEM_
 * BARRIER_ALGO auto or hier and shmemi_coll_hier_ok), else 0. */
int shmemi_coll_barrier_hier(struct shmemi_team *t, uint64_t b);
/* Broadcast of len bytes from member root (write_root: into the root's
 * dest too); the caller checked shmemi_coll_hier_ok. */
void shmemi_coll_bcast_hier(struct shmemi_team *t, char *dest, const char *src, size_t len,
                            int root, int write_root, const char *rtn);
/* collect (fixed 0: mylen may differ between members) and fcollect; the
 * caller checked shmemi_coll_hier_ok and, for collect, that the counts of
 * the members fit in a scratch half. */
void shmemi_coll_collect_hier(struct shmemi_team *t, char *dest, const char *src, size_t mylen,
                              int fixed, const char *rtn);

/* Allreduce of nwords 64-bit words over the team with an idempotent op
 * (SHMEMI_IOP_AND/OR/MAX/MIN, unsigned), in place: a dissemination in
 * ceil(log2 n) rounds through the slot's scratch.  nwords <= 64. */
enum { SHMEMI_IOP_AND, SHMEMI_IOP_OR, SHMEMI_IOP_MAX, SHMEMI_IOP_MIN };
void shmemi_team_allreduce_u64(struct shmemi_team *t, uint64_t *vals, int nwords, int op);

/* A valid team handle of which this PE is a member: 1, else 0. */
static inline int shmemi_team_ok(shmem_team_t team)
{
    return team != SHMEM_TEAM_INVALID && team->my_pe >= 0;
}

/* The internal team of a deprecated active set (PE_start, logPE_stride,
 * PE_size): checks the triple (and that this PE is in it), ending the job
 * naming rtn otherwise.  The world set gives SHMEM_TEAM_WORLD. */
struct shmemi_team *shmemi_active_set_team(int PE_start, int logPE_stride, int PE_size,
                                           const char *rtn);

#endif
