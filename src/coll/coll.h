/*
 * Collectives: broadcast, collect and fcollect, alltoall(s), barriers and
 * the reductions (coll_reduce.h), built from the primitives of the team
 * layer (src/team/team.h: a put with signal, a signal, a wait, epochs).
 * What the collectives keep on a team (their counts, the node groups of
 * the hierarchical algorithms) hangs on the team's coll pointer
 * (struct shmemi_coll_team), attached at the first use and freed by the
 * team layer through the team's coll_free.
 *
 * The algorithms come in three families, each kind's table in its file
 * (coll_bcast.c, coll_collect.c, coll_alltoall.c, coll_reduce.c, the
 * barriers in coll_barrier.c):
 *   - node paths, when every member maps every member's heap: the
 *     low-latency lines and the one-sync small paths (team.h), and direct:
 *     a sync, every member copies what it needs straight out of its peers'
 *     buffers, a sync so that nobody returns while a peer still reads;
 *   - over the transport: put with signal straight into the members'
 *     symmetric dest (binomial tree or linear broadcast, ring, recursive
 *     doubling or Bruck's collect, pairwise alltoall, rd and rsag
 *     reductions).  A member writes into a peer's dest only after that
 *     peer has entered the same collective (an "entered" signal), so a fast
 *     member never overwrites a result that a slow one has not returned;
 *   - hierarchical (coll_hier.c, the reduction in coll_reduce.c) on teams
 *     that span nodes with several members on some node.
 * Signals: sig[j] is written only by member j, with shmemi_team_sigval
 * (epoch, step); step 0 is "entered", steps from 1 carry data.
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
#include "core/sync.h"

/* ---- the algorithms' registry (coll_registry.c) ----
 *
 * Every collective kind has a table of its algorithms (struct
 * shmemi_coll_row), in the order in which auto considers them: the name
 * (of the one enum below), what it is, the predicate that says whether it
 * can run for this call (team, sizes, buffers), the rule by which auto
 * takes it, the algorithm that a forced choice that cannot run falls back
 * to, and the function.  FABSHMEM_<KIND>_ALGO is parsed once at init
 * (shmemi_coll_algo_init), where a bad name fails init naming the valid
 * ones; docs/env.md, fabshmem_info and shmemx_team_coll_count take the
 * names and the documentation from the same tables.  Adding an algorithm
 * is a row in its kind's table (coll_<kind>.c) and its function. */
enum {
    SHMEMI_CK_BARRIER, SHMEMI_CK_BCAST, SHMEMI_CK_COLLECT, SHMEMI_CK_ALLTOALL, SHMEMI_CK_REDUCE,
    SHMEMI_CK_GPU_REDUCE,
    SHMEMI_CK_COUNT
};
/* Every algorithm of every kind (a kind's table holds some of them);
 * SHMEMI_CA_AUTO: none forced. */
enum {
    SHMEMI_CA_AUTO = -1,
    SHMEMI_CA_DIRECT, SHMEMI_CA_SMALL, SHMEMI_CA_LL, SHMEMI_CA_CENTRAL, SHMEMI_CA_DISSEMINATION,
    SHMEMI_CA_TREE, SHMEMI_CA_LINEAR, SHMEMI_CA_RING, SHMEMI_CA_RD, SHMEMI_CA_BRUCK,
    SHMEMI_CA_PAIRWISE, SHMEMI_CA_RSAG, SHMEMI_CA_HIER, SHMEMI_CA_ONESHOT, SHMEMI_CA_RMA,
    SHMEMI_CA_COUNT
};
/* The name of algorithm a ("direct", ...; "auto" for SHMEMI_CA_AUTO) and
 * of kind k ("barrier", "broadcast", "collect", "alltoall", "reduce",
 * "gpu_reduce"). */
const char *shmemi_coll_algo_name(int a);
const char *shmemi_coll_kind_name(int k);

struct shmemi_rkern;

/* The arguments of one collective call as its algorithms see them.  The
 * entry point of the kind fills what its algorithms read. */
typedef struct shmemi_coll_args {
    struct shmemi_team *t;
    void *dest;
    const void *src;
    /* Bytes: the broadcast's; collect: this member's (fcollect: every
     * member's); alltoall: one block (nelems elements); reductions: the
     * array. */
    size_t len;
    size_t nelems, elsize;   /* alltoall(s), reductions: elements, their size */
    ptrdiff_t dst, sst;      /* alltoalls: the strides in elements (1, 1: alltoall) */
    int root, write_root;    /* broadcast: the root; 1: its dest gets the data too */
    int fixed;               /* collect 0, fcollect 1 */
    int dok;                 /* the direct path applies to dest and src */
    int heap;                /* reductions: dest and src are in the heap */
    const struct shmemi_rkern *k; /* reductions: the kernels of the type and op */
    /* Reductions on GPU memory (coll_dev_reduce.c): the type and operation
     * codes (base/rtype.h), 1 for reduce-scatter, 1 when dest overlaps
     * this PE's source, the CUDA stream (NULL: blocking) and every
     * member's source as this PE maps it. */
    int tc, op, scatter, overlap;
    void *cs;
    const void *const *srcs;
    int algo;                /* set by the dispatch: the row's algorithm; the
                              * function may change it to what really ran */
    int by_auto;             /* 1: auto chose the row */
    const char *rtn;
} shmemi_coll_args_t;

/* One algorithm of a kind. */
typedef struct shmemi_coll_row {
    int algo;                /* SHMEMI_CA_* */
    const char *doc;         /* what it is and where it runs (docs/env.md) */
    const char *pick_doc;    /* when auto takes it */
    /* 1 when it can run for a (NULL: always). */
    int (*can)(const shmemi_coll_args_t *a);
    /* 1 when auto takes it (the first row whose pick says 1; NULL: always). */
    int (*pick)(const shmemi_coll_args_t *a);
    /* A forced choice whose can says 0 runs this row instead, or auto's
     * choice (SHMEMI_CA_AUTO). */
    int fallback;
    int (*run)(shmemi_coll_args_t *a);
} shmemi_coll_row_t;

/* One collective kind: its name, variable and table. */
typedef struct shmemi_coll_kind {
    const char *name;        /* shmemx_team_coll_count's name */
    const char *var;         /* FABSHMEM_<KIND>_ALGO */
    size_t env_off;          /* offsetof(shmemi_env_t, the variable's field) */
    const char *doc;         /* what the kind covers, before the list of names */
    const shmemi_coll_row_t *rows; /* ended by a row whose run is NULL */
} shmemi_coll_kind_t;

/* The tables of the kinds (coll_barrier.c, coll_bcast.c, coll_collect.c,
 * coll_alltoall.c, coll_reduce.c, coll_dev_reduce.c), each ended by a row
 * whose run is NULL. */
extern const shmemi_coll_row_t shmemi_coll_barrier_rows[] SHMEMI_HIDDEN;
extern const shmemi_coll_row_t shmemi_coll_bcast_rows[] SHMEMI_HIDDEN;
extern const shmemi_coll_row_t shmemi_coll_collect_rows[] SHMEMI_HIDDEN;
extern const shmemi_coll_row_t shmemi_coll_alltoall_rows[] SHMEMI_HIDDEN;
extern const shmemi_coll_row_t shmemi_coll_reduce_rows[] SHMEMI_HIDDEN;
extern const shmemi_coll_row_t shmemi_coll_gpu_reduce_rows[] SHMEMI_HIDDEN;
/* Kind k (SHMEMI_CK_*). */
const shmemi_coll_kind_t *shmemi_coll_kind(int k);

/* Parses the FABSHMEM_*_ALGO variables of env: 0, or
 * SHMEMX_ERROR_INVALID_VALUE with the message (the variable, the value and
 * the valid names) recorded.  Called by init before the bootstrap. */
int shmemi_coll_algo_init(const shmemi_env_t *env) SHMEMI_WUR;
/* The algorithm forced for kind k (SHMEMI_CA_AUTO: none). */
int shmemi_coll_forced(int k);
/* Parses name for kind k: the algorithm, SHMEMI_CA_AUTO for "auto", or
 * SHMEMI_CA_COUNT when k has no such algorithm. */
int shmemi_coll_algo_parse(int k, const char *name);
/* The documentation of variable var (FABSHMEM_*_ALGO) composed from its
 * table into buf: 1, or 0 when var is not one of them. */
int shmemi_coll_env_doc(const char *var, char *buf, size_t len);
/* The row that runs kind k for a: the forced one where it can run (or
 * its fallbacks), else the first that auto picks. */
const shmemi_coll_row_t *shmemi_coll_choose(int k, shmemi_coll_args_t *a);
/* Chooses, runs and counts kind k for a. */
int shmemi_coll_dispatch(int k, shmemi_coll_args_t *a);
/* shmemx_team_coll_count: the count of kind coll and algorithm algo on
 * team into *count_p; an unknown name is recorded as a warning. */
int shmemi_coll_count_get(shmem_team_t team, const char *coll, const char *algo, long *count_p,
                          const char *rtn) SHMEMI_WUR;

/* The node groups of a team (coll_groups.c), made when the collectives
 * attach to it: members grouped by (virtual) node, each group in team order,
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
    /* The barrier's algorithm on this team (it depends on the team
     * alone), NULL until the first barrier. */
    const shmemi_coll_row_t *barrier;
    /* Collectives run on this team by kind and algorithm. */
    unsigned long count[SHMEMI_CK_COUNT][SHMEMI_CA_COUNT];
};

/* Attaches the collectives' state to t, with its node groups (coll_team.c):
 * 0 or the class of the failure, recorded.  The entry points attach it
 * after their checks, before anything else, so that the algorithms find it
 * (shmemi_coll_of). */
int shmemi_coll_attach(struct shmemi_team *t) SHMEMI_WUR;
static inline SHMEMI_WUR int shmemi_coll_ready(struct shmemi_team *t)
{
    return SHMEMI_LIKELY(t->coll != NULL) ? 0 : shmemi_coll_attach(t);
}
static inline struct shmemi_coll_team *shmemi_coll_of(struct shmemi_team *t)
{
    return (struct shmemi_coll_team *)t->coll;
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

/* 1 when [addr, addr+len) is in the heap, so every member maps it. */
static inline int shmemi_coll_in_heap(const void *addr, size_t len)
{
    uintptr_t off = (uintptr_t)addr - (uintptr_t)shmemi_g.heap_base;
    return off < shmemi_g.heap_size && len <= shmemi_g.heap_size - off;
}

/* 1 when the direct path of node teams applies: every member maps every
 * member's heap and both ranges are in it. */
static inline int shmemi_coll_direct_ok(const struct shmemi_team *t, const void *a, size_t alen,
                                        const void *b, size_t blen)
{
    return t->all_mapped && shmemi_coll_in_heap(a, alen) && shmemi_coll_in_heap(b, blen);
}

/* Signals "entered epoch e" to member idx. */
static inline SHMEMI_WUR int shmemi_coll_announce(struct shmemi_team *t, uint64_t e, int idx)
{
    return shmemi_team_signal(&shmemi_team_slot(t)->sig[t->my_pe], shmemi_team_sigval(e, 0),
                              t->pes[idx]);
}

/* The one-sync small path of node teams: the scratch buffer of epoch e on
 * world PE pe (mapped). */
static inline char *shmemi_coll_small_buf(struct shmemi_team *t, uint64_t e, int pe)
{
    return shmemi_direct(shmemi_team_slot(t)->scratch[e & 1], SHMEMI_TEAM_HALF, pe);
}

/* ---- barriers (coll_barrier.c) ---- */

/* The barrier (a quiet first) and the sync (a release fence first) of the
 * team, by FABSHMEM_BARRIER_ALGO, without checks: the syncs inside the
 * collectives' algorithms. */
int shmemi_coll_barrier_team(struct shmemi_team *t) SHMEMI_WUR;
int shmemi_coll_sync_team(struct shmemi_team *t) SHMEMI_WUR;

/* ---- hierarchical collectives (coll_hier.c) ---- */

/* The node groups of t into *h_p, made when the collectives attach to t
 * (NULL where no hierarchical algorithm can apply: a node team, the
 * direct path off, fewer than 3 members). */
int shmemi_coll_hier_make(struct shmemi_team *t, struct shmemi_coll_hier **h_p) SHMEMI_WUR;
/* Node groups for n members (the arrays allocated), NULL when out of
 * memory, and their release (NULL too). */
struct shmemi_coll_hier *shmemi_coll_hier_alloc(int n);
void shmemi_coll_hier_free(struct shmemi_coll_hier *h);
/* The grouping itself (pure, for the unit tests too): member i of n is on
 * node node[i] (0 .. nnodes - 1), me is this PE's member; work holds
 * nnodes + n + 1 ints.  Sets ok when there are several groups and some
 * group has several members. */
void shmemi_coll_hier_group(struct shmemi_coll_hier *h, const int *node, int n, int nnodes,
                            int me, int *work);
/* 1 when the hierarchical algorithms apply to t: the team spans nodes,
 * some node holds several members and the direct path maps them to each
 * other (so never on a node team, nor with FABSHMEM_DIRECT=0). */
static inline int shmemi_coll_hier_ok(struct shmemi_team *t)
{
    const struct shmemi_coll_hier *h = shmemi_coll_of(t)->hier;

    return h && h->ok;
}
/* The node groups of t (after shmemi_coll_hier_ok said 1). */
static inline const struct shmemi_coll_hier *shmemi_coll_hier(struct shmemi_team *t)
{
    return ((struct shmemi_coll_team *)t->coll)->hier;
}
/* The hierarchical barrier, broadcast and collect/fcollect (rows of the
 * tables; the callers checked shmemi_coll_hier_ok and, for collect, that
 * the counts of the members fit in a scratch half). */
int shmemi_coll_barrier_hier(shmemi_coll_args_t *a) SHMEMI_WUR;
int shmemi_coll_bcast_hier(shmemi_coll_args_t *a) SHMEMI_WUR;
int shmemi_coll_collect_hier(shmemi_coll_args_t *a) SHMEMI_WUR;

/* ---- the entry points ----
 * Every collective has a check and a run.  The check (coll_check.c) looks
 * at the arguments only, without communication, so a stream can refuse
 * bad work when it is enqueued: the library is initialized, the team is a
 * valid team of this PE, PE_root is one of its members, the byte counts
 * (nelems times the element size, times the team's size for the buffers
 * that hold a block per member) do not overflow, dest and source lie in
 * a symmetric segment over their whole extent (nothing is checked for an
 * extent of 0 bytes), the strides of alltoalls are positive, and for the
 * reductions that dest and source are one array or disjoint.  The run
 * (coll_<kind>.c) makes the same check first (a few compares; the API and
 * a stream's executor call the same routine) and then the collective.
 * Both return 0 or the class of the failure with its message recorded
 * (base/error.h); rtn names the routine in the messages.  Arguments that
 * must agree across the members (the routine, nelems, PE_root, strides)
 * are each PE's own: with FABSHMEM_CHECKS=0 a disagreement is not
 * detected (docs/env.md says what happens); with FABSHMEM_CHECKS=1 every
 * run compares them across the team first (shmemi_coll_agree), and every
 * member fails, naming the argument and the PEs, when they differ. */

/* The words compared by shmemi_coll_agree: the routine (a hash of rtn,
 * filled in), nelems, PE_root, dst, sst (0 where a collective has no such
 * argument or they may differ), whether the member's own check failed
 * (filled in). */
#define SHMEMI_COLL_AGREE_WORDS 6
int shmemi_coll_agree_slow(struct shmemi_team *t, int local_rc, uint64_t nelems, int64_t root,
                           int64_t dst, int64_t sst, const char *rtn) SHMEMI_WUR;
/* After a collective's own check (local_rc, its status): with
 * FABSHMEM_CHECKS=1, one allreduce over team of the words, and on a
 * disagreement the message on every member (SHMEMX_ERROR_INVALID_VALUE;
 * a member whose own check failed keeps its own message, the others say
 * that it was refused).  Returns local_rc when they agree, and at once
 * when the team cannot be used (not initialized, not a team of this PE).
 * With FABSHMEM_CHECKS=0: local_rc, at the cost of a branch. */
SHMEMI_INLINE SHMEMI_WUR int shmemi_coll_agree(shmem_team_t team, int local_rc, uint64_t nelems,
                                               int64_t root, int64_t dst, int64_t sst,
                                               const char *rtn)
{
    if (SHMEMI_LIKELY(!shmemi_g.env.checks) ||
        (local_rc && (local_rc == SHMEMX_ERROR_INVALID_STATE || !shmemi_team_ok(team))))
        return local_rc;
    return shmemi_coll_agree_slow(team, local_rc, nelems, root, dst, sst, rtn);
}

/* The hang diagnostic (FABSHMEM_WATCHDOG, core/sync.h; coll_watch.c): a
 * collective names itself (rtn, the team, its algorithm, -1 for the
 * team's barrier) for the waits of its run; begin and end nest.  Called
 * only when FABSHMEM_WATCHDOG is set. */
typedef struct shmemi_coll_watch {
    shmemi_wait_site_t site;
    struct shmemi_team *t;
    int algo;
    const shmemi_wait_site_t *prev;
} shmemi_coll_watch_t;
void shmemi_coll_watch_begin(shmemi_coll_watch_t *w, struct shmemi_team *t, int algo,
                             const char *rtn);
void shmemi_coll_watch_end(shmemi_coll_watch_t *w);

/* The library is initialized and team is a valid team of this PE. */
int shmemi_coll_check_team(shmem_team_t team, const char *rtn) SHMEMI_WUR;
/* [p, p + len) lies in one symmetric segment (len 0: nothing to check);
 * what names the argument. */
int shmemi_coll_check_sym(const void *p, size_t len, const char *what, const char *rtn)
    SHMEMI_WUR;

/* ---- collectives on GPU memory (coll_dev.c) ---- */

/* 1 when dest or src lies in the device heap: the entry points below hand
 * the collective to coll_dev.c instead of their host algorithms. */
int shmemi_coll_dev_case(const void *dest, const void *src);
/* Broadcast, fcollect and (contiguous) alltoall on device buffers of a
 * team whose members map each other's device heaps: copies of the GPU
 * between two syncs of the team, complete at return.  The same arguments
 * as shmemi_coll_bcast, shmemi_coll_collect (fixed) and
 * shmemi_coll_alltoall; 0 or the class, recorded naming rtn. */
int shmemi_coll_dev_bcast(shmem_team_t team, void *dest, const void *src, size_t nelems,
                          size_t elsize, int root, int write_root, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_fcollect(shmem_team_t team, void *dest, const void *src, size_t nelems,
                             size_t elsize, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_alltoall(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t elsize,
                             const char *rtn) SHMEMI_WUR;
/* The reduction (type tc, op: base/rtype.h's codes) and the reduce-scatter
 * on device buffers of such a team (teams of up to SHMEMI_CUDA_RED_MAXSRC
 * PEs), by the library's kernels (coll_dev_reduce.c: the algorithms of
 * the kind SHMEMI_CK_GPU_REDUCE): every type and operation but long
 * double, which is refused (NOT_SUPPORTED).  The same arguments as
 * shmemi_reduce and shmemi_reducescatter. */
int shmemi_coll_dev_reduce(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                           const void *source, size_t nreduce, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_reducescatter(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                                  const void *source, size_t nreduce,
                                  const char *rtn) SHMEMI_WUR;
/* Runs the reduction (scatter 0) or reduce-scatter (scatter 1) that
 * shmemi_coll_dev_red_prep checked (its srcs, len, overlap and mapped), blocking
 * (cs NULL) or on the CUDA stream cs: the registry's algorithm. */
int shmemi_coll_dev_red_run(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                            const void *source, const void *const *srcs, size_t nreduce,
                            size_t len, int scatter, int overlap, int mapped, void *cs,
                            const char *rtn) SHMEMI_WUR;
/* 1 when every member of team maps every member's device heap. */
int shmemi_coll_dev_mapped(shmem_team_t team);
/* The checks, and nothing else, of a collective on device buffers that
 * the blocking entry point will run later (the on-stream forms held for a
 * host thread): kind SHMEMI_CK_BCAST (root), SHMEMI_CK_COLLECT (fcollect),
 * SHMEMI_CK_ALLTOALL or SHMEMI_CK_REDUCE (tc and op; root 1 for a
 * reduce-scatter).  0 or the class, recorded naming rtn. */
int shmemi_coll_dev_check_coll(shmem_team_t team, int kind, void *dest, const void *src,
                               size_t nelems, size_t elsize, int root, int tc, int op,
                               const char *rtn) SHMEMI_WUR;

/* The checks of a collective on device buffers: team, dest (dlen bytes)
 * and src (slen bytes) both inside the device heap (their offsets into
 * *doff_p and *soff_p). */
int shmemi_coll_dev_check(shmem_team_t team, const void *dest, size_t dlen, const void *src,
                          size_t slen, uint64_t *doff_p, uint64_t *soff_p,
                          const char *rtn) SHMEMI_WUR;

/* The checks of a reduction (scatter 0) or reduce-scatter (scatter 1) on
 * device buffers, for the blocking and the on-stream forms: the bytes of
 * dest into *len_p, every member's source as this PE maps it (for a
 * reduce-scatter its block of this PE) into srcs[] (SHMEMI_CUDA_RED_MAXSRC
 * of them; NULL where the team's PEs do not all map each other, which
 * *mapped_p says), and into *via_scratch_p whether dest overlaps this PE's
 * source (a reduction in place; a partial overlap of a reduction is
 * refused). */
int shmemi_coll_dev_red_prep(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                             const void *source, size_t nreduce, int scatter,
                             const void **srcs, size_t *len_p, int *via_scratch_p,
                             int *mapped_p, const char *rtn) SHMEMI_WUR;

/* ---- synchronizations and collectives on a CUDA stream (coll_dev_stream.c) ----
 * cs is the CUstream (void *) of a CUDA stream of the library's context.
 * Each routine checks its arguments, queues the whole collective on cs
 * and returns: the team's synchronizations are the GPU's own (stream
 * memory operations on words of shmemi_g.dheap_sync, written into the
 * peers' mapped device heaps), the data moves by copies of the GPU and
 * the library's reduction kernels; no host thread takes part.  Every
 * member enqueues the collective on a CUDA stream of its own, in the same
 * order as its other on-stream collectives on the team.  0 or the class,
 * recorded naming rtn. */
/* 1 when team's synchronizations can be the GPU's: every member maps
 * every member's device heap and the team has a slot and at most
 * SHMEMI_DSYNC_MEMBERS members. */
int shmemi_coll_dev_stream_team(shmem_team_t team);
int shmemi_coll_dev_sync_on(shmem_team_t team, void *cs, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_bcast_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                             size_t elsize, int root, void *cs, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_fcollect_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                                size_t elsize, void *cs, const char *rtn) SHMEMI_WUR;
int shmemi_coll_dev_alltoall_on(shmem_team_t team, void *dest, const void *src, size_t nelems,
                                size_t elsize, void *cs, const char *rtn) SHMEMI_WUR;
/* The synchronization of t (checked: shmemi_coll_dev_stream_team) on cs:
 * this PE's next epoch written into its word on every member, then a wait
 * for every member's word here. */
int shmemi_coll_dev_gpu_sync(struct shmemi_team *t, void *cs, const char *rtn) SHMEMI_WUR;
/* The largest reduction (bytes of this PE's result) that is one fused
 * kernel on a stream; above it the synchronizations are cheap next to the
 * data and the plain kernel's larger grid pays.  Measured on 2 H200 (run
 * 10): fused 8.9 us at 4 KiB (13.0 unfused), both 18 us at 1 MiB, fused
 * 41 us at 4 MiB where the unfused one is about 25. */
#define SHMEMI_DSTREAM_FUSED_MAX ((size_t)1 << 20)
/* The fused reduction of nreduce elements into out (which is not this
 * PE's source) on cs: one kernel that makes both synchronizations of t
 * itself, with its next two epochs, so that it and
 * shmemi_coll_dev_gpu_sync may follow each other. */
int shmemi_coll_dev_fused_on(struct shmemi_team *t, int tc, int op, void *out,
                             const void *const *srcs, size_t nreduce, void *cs,
                             const char *rtn) SHMEMI_WUR;
/* The reduction (scatter 0) or reduce-scatter (scatter 1) of type tc and
 * operation op (coll_reduce.h's codes) on device buffers. */
int shmemi_coll_dev_reduce_on(shmem_team_t team, int tc, int op, size_t esize, void *dest,
                              const void *source, size_t nreduce, int scatter, void *cs,
                              const char *rtn) SHMEMI_WUR;

/* Barrier and sync of team (shmem_barrier_all, shmem_sync_all,
 * shmem_team_sync, the active-set forms, the streams' barriers). */
int shmemi_coll_barrier(shmem_team_t team, const char *rtn) SHMEMI_WUR;
int shmemi_coll_sync(shmem_team_t team, const char *rtn) SHMEMI_WUR;

/* Broadcast of nelems elements of elsize bytes from member root
 * (write_root: the root's dest gets them too, as in the team forms; the
 * active-set forms leave it). */
int shmemi_coll_bcast_check(shmem_team_t team, const void *dest, const void *src,
                            size_t nelems, size_t elsize, int root, const char *rtn) SHMEMI_WUR;
int shmemi_coll_bcast(shmem_team_t team, void *dest, const void *src, size_t nelems,
                      size_t elsize, int root, int write_root, const char *rtn) SHMEMI_WUR;
/* collect (fixed 0: nelems may differ between members; dest is checked
 * over this member's block only) and fcollect (fixed 1: dest holds a
 * block per member). */
int shmemi_coll_collect_check(shmem_team_t team, const void *dest, const void *src,
                              size_t nelems, size_t elsize, int fixed, const char *rtn)
    SHMEMI_WUR;
int shmemi_coll_collect(shmem_team_t team, void *dest, const void *src, size_t nelems,
                        size_t elsize, int fixed, const char *rtn) SHMEMI_WUR;
/* alltoall (dst = sst = 1) and alltoalls: nelems elements of elsize bytes
 * to every member, strides in elements. */
int shmemi_coll_alltoall_check(shmem_team_t team, const void *dest, const void *src,
                               ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elsize,
                               const char *rtn) SHMEMI_WUR;
int shmemi_coll_alltoall(shmem_team_t team, void *dest, const void *src, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t elsize, const char *rtn) SHMEMI_WUR;
/* (The reductions, scans and reduce-scatter: coll_reduce.h.) */

#endif
