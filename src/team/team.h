/*
 * Teams: the team object, its symmetric slot, the predefined teams, and the
 * primitives that every collective algorithm (src/coll) is built from: a
 * put, a signal, a wait, the epochs that order them, and the team's own
 * barrier.  The team layer knows nothing of the collectives above it: what
 * they keep on a team hangs on t->coll, which they attach and free
 * (t->coll_free).
 *
 * Every team owns one slot of the team area, a region of the reserved part
 * of the symmetric heap at the same offset on every PE.  The slot holds the
 * team's signal words and its scratch buffers, so team collectives need no
 * user pSync.  Because the slot lives in the heap, the local address of a
 * slot field is also its symmetric address: pass &slot->field to
 * shmemi_team_signal / shmemi_team_put_signal with any member's world PE.
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
 * which it does only after leaving e'.  Node teams (all_mapped) get that
 * from shmemi_team_guard (below); on the other teams the collectives see
 * to it (the argument, collective by collective, is in src/coll/coll.h),
 * with shmemi_team_begin_rooted for those that are not full.
 *
 * Signal words are not reused by parity: sig[] values carry their epoch
 * and only grow, the barriers' words carry the barrier's count, and every
 * other word of bar[] and aux[] is described where it is defined.  Only
 * the low-latency lines (node teams, under the guard) alternate by parity.
 */
#ifndef SHMEMI_TEAM_H
#define SHMEMI_TEAM_H

#include "core/addr.h"
#include "core/sync.h"
#include "team/team_sched.h"

/* ---- the slot ---- */

#define SHMEMI_TEAM_BAR_ROUNDS 72
#define SHMEMI_TEAM_AUX        128
/* Words of one low-latency line: the epoch, then the data. */
#define SHMEMI_TEAM_LL_WORDS   8
#define SHMEMI_TEAM_LL_BYTES   ((SHMEMI_TEAM_LL_WORDS - 1) * 8)
/* Bytes of scratch per slot (two halves, one per epoch parity). */
#define SHMEMI_TEAM_SCRATCH    (64 * 1024)
#define SHMEMI_TEAM_HALF       (SHMEMI_TEAM_SCRATCH / 2)

/* The words of bar[]: each has one writer and one use.
 *  - 0 .. SHMEMI_TEAM_DISS_ROUNDS - 1: the dissemination barrier, round k
 *    written by member (me - 2^k) mod n;
 *  - SHMEMI_TEAM_BAR_LEADERS .. + SHMEMI_TEAM_DISS_ROUNDS - 1: the
 *    dissemination among the node leaders of the hierarchical barrier
 *    (src/coll), so that it and the plain dissemination may follow each
 *    other on one team;
 *  - the last nine, below (the rest is unused). */
#define SHMEMI_TEAM_DISS_ROUNDS 28 /* 2^28 PEs at most */
#define SHMEMI_TEAM_BAR_LEADERS SHMEMI_TEAM_DISS_ROUNDS
/* Arrivals: on entering a barrier every member stores, in its own slot,
 * the barrier's count (t->central_epoch for the central barrier into
 * ARRIVED_CENTRAL, t->bar_epoch for the dissemination and hierarchical
 * ones into ARRIVED), so that a member that waits in one can tell which
 * members have not arrived (shmemi_team_barrier_absent, for the
 * watchdog); the hierarchical barrier's leaders wait on their members'
 * ARRIVED.  Its group's leader stores the count into its HIER_RELEASE
 * word. */
#define SHMEMI_TEAM_BAR_ARRIVED_CENTRAL (SHMEMI_TEAM_BAR_ROUNDS - 9)
#define SHMEMI_TEAM_BAR_HIER_RELEASE (SHMEMI_TEAM_BAR_ROUNDS - 8)
#define SHMEMI_TEAM_BAR_ARRIVED      (SHMEMI_TEAM_BAR_ROUNDS - 7)
/* shmemi_team_ready's word (node teams). */
#define SHMEMI_TEAM_BAR_READY        (SHMEMI_TEAM_BAR_ROUNDS - 6)
/* shmemi_team_guard's word (node teams). */
#define SHMEMI_TEAM_BAR_BEGUN        (SHMEMI_TEAM_BAR_ROUNDS - 5)
/* The direct broadcast of node teams (src/coll): the root's "source
 * ready" word and the counter of the members done with it. */
#define SHMEMI_TEAM_BAR_BCAST_DONE   (SHMEMI_TEAM_BAR_ROUNDS - 4)
#define SHMEMI_TEAM_BAR_BCAST_READY  (SHMEMI_TEAM_BAR_ROUNDS - 3)
/* The central barrier (node teams), on the team's member 0: the arrival
 * counter and the release word. */
#define SHMEMI_TEAM_BAR_COUNT        (SHMEMI_TEAM_BAR_ROUNDS - 2)
#define SHMEMI_TEAM_BAR_RELEASE      (SHMEMI_TEAM_BAR_ROUNDS - 1)

typedef struct shmemi_team_slot {
    /* Barrier words (above). */
    volatile uint64_t bar[SHMEMI_TEAM_BAR_ROUNDS];
    /* Small per-collective exchanges (counts, offsets, masks); the last
     * 2 * SHMEMI_TEAM_LL_WORDS are the member's low-latency lines (see
     * shmemi_team_ll_publish). */
    volatile uint64_t aux[SHMEMI_TEAM_AUX];
    /* Scratch, indexed by epoch parity. */
    char scratch[2][SHMEMI_TEAM_HALF] __attribute__((aligned(64)));
    /* Algorithm signals: sig[j] is written only by team member j, with
     * values shmemi_team_sigval(epoch, step) that grow from one signal of
     * j to the next (connections deliver one sender's signals in order).
     * One word per world PE (the slot size depends on the job size). */
    volatile uint64_t sig[];
} shmemi_team_slot_t;

_Static_assert(offsetof(shmemi_team_slot_t, aux) % 64 == 0 &&
                   (SHMEMI_TEAM_AUX - 2 * SHMEMI_TEAM_LL_WORDS) * 8 % 64 == 0 &&
                   SHMEMI_TEAM_LL_WORDS * 8 == 64,
               "the low-latency lines are whole cache lines");
_Static_assert(SHMEMI_TEAM_BAR_LEADERS + SHMEMI_TEAM_DISS_ROUNDS <= SHMEMI_TEAM_BAR_ARRIVED_CENTRAL,
               "the barriers' words do not overlap");

/* The signal value of step (< 2^20) of collective epoch. */
static inline uint64_t shmemi_team_sigval(uint64_t epoch, unsigned step)
{
    return (epoch << 20) | step;
}

/* Fixed slots of the predefined teams; slots from SHMEMI_SLOT_FIRST_FREE
 * to teams_max - SHMEMI_SLOT_ACTIVE_SETS - 1 go to teams made at run time;
 * the last SHMEMI_SLOT_ACTIVE_SETS slots serve the deprecated active-set
 * collectives (team_active.c). */
enum {
    SHMEMI_SLOT_WORLD = 0,
    SHMEMI_SLOT_SHARED = 1,
    SHMEMI_SLOT_NODE = 2,
    SHMEMI_SLOT_SAME_MYPE_NODE = 3,
    SHMEMI_SLOT_NUMA = 4,
    SHMEMI_SLOT_NUMA_LEADERS = 5,
    SHMEMI_SLOT_SAME_GPU = 6,
    SHMEMI_SLOT_GPU_LEADERS = 7,
    SHMEMI_SLOT_FIRST_FREE = 8,
};
#define SHMEMI_SLOT_ACTIVE_SETS 64
_Static_assert(SHMEMI_ENV_TEAMS_MAX_MIN == SHMEMI_SLOT_FIRST_FREE + SHMEMI_SLOT_ACTIVE_SETS + 1,
               "FABSHMEM_TEAMS_MAX's least value (src/core/env.h) leaves one slot to split");

/* ---- the team ---- */

struct shmemi_team {
    int my_pe;          /* my index in the team, -1 if not a member */
    int n_pes;
    int *pes;           /* team index -> world PE */
    int *world_to_team; /* world PE -> team index or -1 (n_pes of world) */
    int slot;           /* index in the team area, -1 without one */
    int predefined;     /* 1: a SHMEM_TEAM_ / SHMEMX_TEAM_ constant */
    int all_mapped;     /* every member maps every member's heap */
    uint64_t epoch;     /* collectives started on this team */
    uint64_t bar_epoch; /* dissemination and hierarchical barriers started */
    uint64_t central_epoch; /* central barriers started */
    /* The dissemination barrier's round that this member waits in, plus
     * 1 (0: none), for the watchdog (shmemi_team_barrier_absent). */
    int diss_wait;
    /* Synchronizations of the team on CUDA streams (src/coll/
     * coll_dev_stream.c): their count (the words of shmemi_g.dheap_sync
     * are zero when the team takes its slot: shmemi_dev_sync_clear). */
    uint64_t gpu_epoch;
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
    /* What the collectives keep on this team (src/coll: their counts, the
     * node groups), NULL until they attach it; coll_free, which they set
     * with it, frees it when the team's members are freed. */
    void *coll;
    void (*coll_free)(struct shmemi_team *t);
    /* 1: shmem_team_destroy destroyed the team.  The struct stays, a
     * tombstone with no members (my_pe -1, n_pes 0), so that a stale
     * handle is refused with a message rather than read freed memory;
     * the last SHMEMI_TEAM_TOMBS tombstones are kept (team_split.c). */
    int destroyed;
};

/* Tombstones kept of destroyed teams: a handle stays recognizable as
 * destroyed until this many teams were destroyed after it (a bounded
 * number, so that a program that makes and destroys teams without end
 * does not grow: tests/team/team checks 3000 cycles). */
#define SHMEMI_TEAM_TOMBS 64

/* The registry of handles (team_predef.c): every team struct this PE
 * made and has not freed, tombstones included.  shmemi_team_set_members
 * registers a team, shmemi_team_forget takes it out before it is freed;
 * shmemi_team_known_slow: 1 when team is registered. */
void shmemi_team_forget(struct shmemi_team *t);
int shmemi_team_known_slow(const struct shmemi_team *team);
/* With FABSHMEM_CHECKS=1: 1 when team is neither SHMEM_TEAM_INVALID nor a
 * registered handle (garbage, or a team freed long ago), which must not
 * be read.  Without the checks handles are trusted: 0. */
static inline int shmemi_team_unknown(const struct shmemi_team *team)
{
    return SHMEMI_UNLIKELY(shmemi_g.env.checks) && team != SHMEM_TEAM_INVALID &&
           !shmemi_team_known_slow(team);
}
/* A valid team handle of which this PE is a member: 1, else 0. */
static inline int shmemi_team_ok(const struct shmemi_team *team)
{
    return team != SHMEM_TEAM_INVALID && !shmemi_team_unknown(team) && team->my_pe >= 0;
}
/* A handle that cannot be used and is not SHMEM_TEAM_INVALID: a destroyed
 * team's (a tombstone) or, with FABSHMEM_CHECKS=1, an unknown one: 1,
 * else 0.  The team routines refuse it with shmemi_team_bad_msg. */
static inline int shmemi_team_destroyed(const struct shmemi_team *team)
{
    return team != SHMEM_TEAM_INVALID && (shmemi_team_unknown(team) || team->destroyed);
}
/* The message of a team argument that was destroyed, after "team ". */
#define SHMEMI_TEAM_DESTROYED_MSG "was destroyed (shmem_team_destroy): the handle is no longer valid"
/* The message, after "team ", of a handle for which shmemi_team_destroyed
 * holds: SHMEMI_TEAM_DESTROYED_MSG, or what an unknown handle is (with its
 * value). */
const char *shmemi_team_bad_msg(const struct shmemi_team *team);

/* Fills t->pes / world_to_team / my_pe / n_pes / all_mapped / start /
 * stride from a list of n world PEs (in team order).  t->slot is left
 * alone.  -ENOMEM. */
int shmemi_team_set_members(struct shmemi_team *t, const int *world_pes, int n);
/* Makes t the predefined team of slot whose members are the world PEs
 * world_pes[0 .. n) (team_predef.c); the caller takes the slot unless
 * team_area.c reserved it (the NUMA and GPU teams).  0 or -errno. */
int shmemi_team_predef_set(struct shmemi_team *t, int slot, const int *world_pes, int n);
/* Frees the member arrays and what the collectives keep on the team
 * (t->coll_free), and clears its epochs. */
void shmemi_team_free_members(struct shmemi_team *t);

/* ---- team arithmetic (pure: no communication, no state) ---- */

/* The index in dest of member src_pe of src, or -1 (either team invalid,
 * src_pe out of range, or not in dest). */
static inline int shmemi_team_translate(const struct shmemi_team *src, int src_pe,
                                        const struct shmemi_team *dest)
{
    if (src == SHMEM_TEAM_INVALID || dest == SHMEM_TEAM_INVALID || shmemi_team_destroyed(src) ||
        shmemi_team_destroyed(dest) || src_pe < 0 || src_pe >= src->n_pes)
        return -1;
    return dest->world_to_team[src->pes[src_pe]];
}
/* The world PEs, in team order, of the team of the strided split (start,
 * stride, size: checked by the caller) of parent p that holds p's member
 * me, into pes (size entries): size, or 0 when me is in none. */
int shmemi_team_strided_pes(const struct shmemi_team *p, int me, int start, int stride, int size,
                            int *pes);
/* The world PEs, in team order, of member me's team of axis (0: x, its row;
 * 1: y, its column) of the 2-D split of p with xrange columns (1 to
 * p->n_pes), into pes (p->n_pes entries); returns their count. */
int shmemi_team_2d_pes(const struct shmemi_team *p, int me, int xrange, int axis, int *pes);

/* ---- the team area and its slots (team_area.c) ---- */

/* The team area: base address (my heap) and slot count (teams_max). */
extern char *shmemi_team_area SHMEMI_HIDDEN;
extern int shmemi_teams_max SHMEMI_HIDDEN;
/* Bytes of one slot in this job. */
extern size_t shmemi_team_slot_size SHMEMI_HIDDEN;

static inline shmemi_team_slot_t *shmemi_team_slot(const struct shmemi_team *t)
{
    return (shmemi_team_slot_t *)(shmemi_team_area + (size_t)t->slot * shmemi_team_slot_size);
}

/* Bytes the team area needs (page multiple) for teams_max slots in a job
 * of n_pes PEs, the active sets' words and the unique-id registry; sets
 * shmemi_team_slot_size. */
size_t shmemi_team_area_size(long teams_max, int n_pes);
/* The start of the unique-id registry (team_uid.c) in my team area. */
void *shmemi_team_uid_area(void);
/* The three lines of the waits' wake-ups (core/sync.c) in my team area: the
 * node's count of sleepers (the count of the node's lowest mapped PE
 * serves the node), then, 64 bytes on, this PE's doorbell, then the node's
 * count of sleepers on doorbells (the lowest mapped PE's). */
void *shmemi_team_wake_area(void);
/* The start of the active sets' words (team_active.c) in my team area. */
void *shmemi_team_as_area(void);

/* Slot management.  shmemi_team_slot_agree is collective over parent (its
 * members only): it ANDs every member's free-slot mask and sets *slot_p to
 * the lowest slot free on all of them, reserved on the calling PE, or -1
 * when none is free anywhere (every member gets -1); it fails only when
 * the transport does.  want_member: 0 when the calling PE will not be in
 * the new team (it takes part in the agreement but reserves nothing).  The slot's words are cleared for reuse by
 * shmemi_team_slot_clear, which the caller must follow with a sync of the
 * parent before anyone uses the new team. */
int shmemi_team_slot_agree(struct shmemi_team *parent, int want_member, int *slot_p) SHMEMI_WUR;
void shmemi_team_slot_clear(int slot);
void shmemi_team_slot_release(int slot);
/* This PE's free-slot mask, for agreements done another way
 * (shmemx_team_init): nwords() words, bit s set when slot s is free. */
int shmemi_team_slot_mask_words(void);
void shmemi_team_slot_mask(uint64_t *mask);
/* The lowest slot set in every one of the n masks of nwords words each
 * (mask i at masks + i * stride words), or -1. */
int shmemi_team_slot_common(const uint64_t *masks, int n, size_t stride, int nwords);
/* Marks slot s taken on this PE (after an agreement done another way). */
void shmemi_team_slot_take(int slot);
/* The slot bookkeeping of this PE for teams_max slots: all free but the
 * predefined teams' and the active sets'. -ENOMEM. */
int shmemi_team_slots_init(int teams_max);
void shmemi_team_slots_fini(void);

/* ---- the predefined teams (team_predef.c, team_numa.c, team_gpu.c) ---- */

/* Built at init after the heap and node map exist: 0 or a negative errno
 * (logged). */
int shmemi_teams_init(void);
void shmemi_teams_fini(void);
/* The NUMA teams, filled by shmemi_teams_init. */
int shmemi_teams_numa_init(void);
void shmemi_teams_numa_fini(void);
/* The GPU teams (SHMEMX_TEAM_SAME_GPU, SHMEMX_TEAM_GPU_LEADERS), from
 * shmemi_g.gpu_of; filled by shmemi_teams_init.  0 or -ENOMEM. */
int shmemi_teams_gpu_init(void);
void shmemi_teams_gpu_fini(void);

/* ---- primitives (team_signal.c) ---- */

/* Every routine of the team layer that can fail returns 0 or the
 * SHMEMX_ERROR_* class of the failure with its message recorded
 * (base/error.h); the primitives fail only when the transport does. */

/* Stores value into the signal word sig (a symmetric address) of world PE
 * pe: a release store when pe is mapped, else an atomic set (or an 8-byte
 * put on providers without atomics) through the transport. */
int shmemi_team_signal_tp(volatile uint64_t *sig, uint64_t value, int pe) SHMEMI_WUR;
static inline SHMEMI_WUR int shmemi_team_signal(volatile uint64_t *sig, uint64_t value, int pe)
{
    uint64_t *p = (uint64_t *)shmemi_direct((const void *)sig, sizeof(uint64_t), pe);

    if (SHMEMI_LIKELY(p != NULL)) {
        __atomic_store_n(p, value, __ATOMIC_RELEASE);
        shmemi_wake(p);
        return 0;
    }
    return shmemi_team_signal_tp(sig, value, pe);
}
/* Puts len bytes from src (any local memory) to the symmetric dest on world
 * PE pe, then signals value into sig there; whoever sees the signal sees
 * the data.  src may be reused when the call returns. */
int shmemi_team_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                           uint64_t value, int pe) SHMEMI_WUR;
/* Waits (spin, then yield, then sleep) until *sig >= value. */
void shmemi_team_wait(volatile uint64_t *sig, uint64_t value);
/* Completes the default context's outstanding operations (a quiet), with
 * shmem_quiet's message on a failure. */
int shmemi_team_quiet(void) SHMEMI_WUR;

/* ---- epochs (team_epoch.c) ---- */

/* Starts collective e = ++t->epoch (>= 1) and returns e.  On node teams
 * (all_mapped) some algorithms let a member finish without waiting for
 * every other member (the root-driven broadcast; the one-sync small paths
 * read the peers' scratch after their only sync), so the full-epoch rule
 * above does not hold there: each member records "begun e" in its slot
 * (so finished e - 1) and waits until every member has begun e - 1, i.e.
 * has finished reading what epoch e - 2 left in the buffer that e reuses. */
void shmemi_team_guard(struct shmemi_team *t, uint64_t e);
static inline uint64_t shmemi_team_begin(struct shmemi_team *t)
{
    uint64_t e = ++t->epoch;
    if (t->all_mapped && t->n_pes > 1)
        shmemi_team_guard(t, e);
    return e;
}
/* Starts a collective that may let a member leave before every member has
 * entered it (a broadcast) and returns its epoch.  Off node teams it takes
 * two epochs, so that the full collectives before and after it use
 * different scratch halves (src/coll/coll.h says why that is enough); node
 * teams have the guard, which a skipped epoch would turn into a full sync. */
static inline uint64_t shmemi_team_begin_rooted(struct shmemi_team *t)
{
    if (!t->all_mapped)
        t->epoch++;
    return shmemi_team_begin(t);
}
/* The one synchronization of the small paths of node teams (every member
 * maps every member): this member's part of epoch e is in its scratch;
 * returns when every member's is.  Up to SHMEMI_TEAM_READY_MAX members
 * each member stores e into its own word and waits on the others' (one
 * phase; the central barrier takes two: 2 PEs, 8-byte reduction 0.23 ->
 * 0.17 us); beyond that, or with more PEs than cores (where it measured
 * no better than the central barrier's single wait), a team sync. */
#define SHMEMI_TEAM_READY_MAX 8
int shmemi_team_ready(struct shmemi_team *t, uint64_t e) SHMEMI_WUR;

/* Low-latency lines: the smallest collectives of node teams (up to
 * SHMEMI_TEAM_LL_BYTES per member) carry each member's part and the epoch
 * in one cache line of its own slot, one line per epoch parity.  A member
 * writes its data, then (release) the epoch; the others wait for the
 * epoch and read the data from the line the wait brought in: one cache
 * line transfer per member where the small path takes a guard, a scratch
 * line, a ready word and a barrier.  A line of epoch e is rewritten at
 * e + 2 only after the writer's guard saw every member begin e + 1 (so
 * done reading e).  Node teams only (every member maps every member). */
static inline int shmemi_team_ll_ok(const struct shmemi_team *t, size_t bytes)
{
    return t->all_mapped && bytes <= SHMEMI_TEAM_LL_BYTES;
}
void shmemi_team_ll_publish(struct shmemi_team *t, uint64_t e, const void *src, size_t len);
/* Waits for member j's line of epoch e and returns its data. */
const void *shmemi_team_ll_wait(struct shmemi_team *t, uint64_t e, int j);
/* After waiting for every member's line (or ready word) of epoch e. */
static inline void shmemi_team_synced(struct shmemi_team *t, uint64_t e)
{
    t->synced_epoch = e;
}

/* ---- the team's own barrier (team_barrier.c) ---- */

/* The barriers over the team's members, without the quiet: central (node
 * teams only: a counter on member 0 that the last to arrive turns into a
 * release) and dissemination (ceil(log2 n) rounds of one signal each).
 * The collectives' registry (src/coll) offers both beside its own. */
void shmemi_team_barrier_central(struct shmemi_team *t);
int shmemi_team_barrier_dissemination(struct shmemi_team *t) SHMEMI_WUR;
/* The team layer's choice between them, by the team's shape alone: central
 * on mapped peers that outnumber the cores (a dissemination round waits
 * for a peer that may not be running) and on node teams of 2 PEs (0.038
 * against 0.058 us here, each PE on its own core), else dissemination. */
static inline int shmemi_team_central_fits(const struct shmemi_team *t)
{
    return t->all_mapped && (shmemi_g.oversubscribed || t->n_pes <= 2);
}
/* For the watchdog: the members of t that have not arrived at the barrier
 * this PE waits in, as far as it can tell.  Each member that maps the
 * others reads their arrival words (a member whose word is below this
 * PE's count of that barrier kind has not arrived: this PE completed the
 * barrier before, so every member had arrived at it); a member it does not
 * map is known to have arrived when its dissemination signal of this
 * barrier came.  Writes up to max members into absent and returns how many
 * there are; *unseen_p: the members whose arrival it cannot see; *round_p
 * and *from_p: the dissemination round it waits in and the member it
 * waits for there (-1, -1 when it waits in none). */
int shmemi_team_barrier_absent(const struct shmemi_team *t, int *absent, int max, int *unseen_p,
                               int *round_p, int *from_p);
/* Barrier over the team's members for the team layer's own use (splits,
 * slot agreements, destroy) and its callers below the collectives: a
 * quiet (barrier) or a release fence (sync), then the barrier of the
 * team's shape.  Non-members must not call.  The public barriers go
 * through the collectives' registry (FABSHMEM_BARRIER_ALGO). */
int shmemi_team_barrier(struct shmemi_team *t) SHMEMI_WUR;
int shmemi_team_sync(struct shmemi_team *t) SHMEMI_WUR;
/* shmemi_team_barrier on SHMEM_TEAM_WORLD (allocation, finalize). */
int shmemi_team_barrier_world(void) SHMEMI_WUR;

/* Allreduce of nwords 64-bit words over the team with an idempotent op
 * (SHMEMI_IOP_AND/OR/MAX/MIN, unsigned), in place: a dissemination in
 * ceil(log2 n) rounds through the slot's scratch.  nwords <= 64. */
enum { SHMEMI_IOP_AND, SHMEMI_IOP_OR, SHMEMI_IOP_MAX, SHMEMI_IOP_MIN };
int shmemi_team_allreduce_u64(struct shmemi_team *t, uint64_t *vals, int nwords, int op)
    SHMEMI_WUR;

/* ---- active sets (team_active.c) ---- */

/* The internal team of a deprecated active set (PE_start, logPE_stride,
 * PE_size) into *t_p: checks the triple (and that this PE is in it), and
 * at the set's first use agrees on its slot with the other members.  The
 * world set gives SHMEM_TEAM_WORLD. */
int shmemi_active_set_team(int PE_start, int logPE_stride, int PE_size, const char *rtn,
                           struct shmemi_team **t_p) SHMEMI_WUR;
void shmemi_active_sets_fini(void);
/* Bytes of the active sets' words in the team area for n_pes PEs. */
size_t shmemi_active_sets_bytes(int n_pes);

/* ---- splits, destruction, teams from unique ids (team_split.c, team_uid.c) ---- */

/* shmem_team_split_strided, shmem_team_split_2d, shmem_team_destroy,
 * shmemx_team_get_uniqueid and shmemx_team_init, with the arguments of the
 * public routines (src/api/shmem_team.c) and rtn naming the routine; each checks
 * that the library is initialized.  A bad value (a range, a parent that is
 * not a team of this PE) is recorded as a warning (shmemi_err_warn) and
 * no team is made; so are the outcomes the specification defines as
 * ordinary (a parent of SHMEM_TEAM_INVALID, a strided split of size 0,
 * split_2d's xrange 0), recorded at debug level only (shmemi_err_quiet);
 * a split without a free slot is SHMEMX_ERROR_OUT_OF_MEMORY on every
 * parent member; a NULL output argument, a bad unique id, a
 * predefined team to destroy are errors (shmemi_err); a failure inside the
 * library is fatal (shmemi_err_fatal).  The API decides which of them end
 * the job (src/api/shmem_team.c). */
int shmemi_team_split_strided(struct shmemi_team *parent, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team, const char *rtn) SHMEMI_WUR;
int shmemi_team_split_2d(struct shmemi_team *parent, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team, const char *rtn) SHMEMI_WUR;
int shmemi_team_destroy(struct shmemi_team *t, const char *rtn) SHMEMI_WUR;
/* Frees the tombstones of the destroyed teams (finalize). */
void shmemi_team_tombs_fini(void);
int shmemi_team_get_uniqueid(shmemx_team_uniqueid_t *uid, const char *rtn) SHMEMI_WUR;
int shmemi_team_init_uid(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                         int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid,
                         const char *rtn) SHMEMI_WUR;
/* Bytes of the unique-id registry for teams_max slots and n_pes PEs. */
size_t shmemi_team_uid_bytes(long teams_max, int n_pes);

#endif
