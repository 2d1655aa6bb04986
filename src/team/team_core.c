/*
 * The team machinery every collective stands on: the team area and its
 * slots, the predefined teams, the signal and put-with-signal primitives,
 * the team barrier and a small allreduce used to agree on slots.
 */
#define _GNU_SOURCE
#include "coll/coll.h"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

char *shmemi_team_area;
int shmemi_teams_max;
size_t shmemi_team_slot_size;

/* Slots taken on this PE: bit s of used_mask[s / 64]. */
static uint64_t *used_mask;
static int mask_words;

static struct shmemi_team team_world_s, team_shared_s, team_node_s, team_same_mype_s;
SHMEM_API shmem_team_t SHMEM_TEAM_WORLD = &team_world_s;
SHMEM_API shmem_team_t SHMEM_TEAM_SHARED = &team_shared_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_NODE = &team_node_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_SAME_MYPE_NODE = &team_same_mype_s;

static size_t as_area_size(int n_pes);

/* The registry of the teams made from unique ids (team.c), after the slots
 * and the active sets' words; weak so that the core links without it. */
size_t shmemi_team_uid_bytes(long teams_max, int n_pes) __attribute__((weak));
static size_t team_area_uid_off;

size_t shmemi_team_area_size(long teams_max, int n_pes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t slot = sizeof(shmemi_team_slot_t) + (size_t)n_pes * sizeof(uint64_t), len;

    slot = (slot + 63) & ~(size_t)63;
    shmemi_team_slot_size = slot;
    len = (size_t)teams_max * slot + as_area_size(n_pes);
    team_area_uid_off = len = (len + 63) & ~(size_t)63;
    if (shmemi_team_uid_bytes)
        len += shmemi_team_uid_bytes(teams_max, n_pes);
    return (len + page - 1) & ~(page - 1);
}

void *shmemi_team_uid_area(void)
{
    return shmemi_team_area + team_area_uid_off;
}

int shmemi_team_set_members(struct shmemi_team *t, const int *world_pes, int n)
{
    int i, pe;

    t->pes = malloc(sizeof(int) * (n ? n : 1));
    t->world_to_team = malloc(sizeof(int) * shmemi_g.n_pes);
    if (!t->pes || !t->world_to_team) {
        free(t->pes);
        free(t->world_to_team);
        t->pes = t->world_to_team = NULL;
        return -ENOMEM;
    }
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        t->world_to_team[pe] = -1;
    t->my_pe = -1;
    t->all_mapped = 1;
    for (i = 0; i < n; i++) {
        pe = world_pes[i];
        t->pes[i] = pe;
        t->world_to_team[pe] = i;
        if (pe == shmemi_g.my_pe)
            t->my_pe = i;
        if (!shmemi_g.peer_heap[pe])
            t->all_mapped = 0;
    }
    t->n_pes = n;
    /* Strided description, when the members form one. */
    t->start = n ? world_pes[0] : -1;
    t->stride = n > 1 ? world_pes[1] - world_pes[0] : 1;
    for (i = 2; i < n; i++)
        if (world_pes[i] - world_pes[i - 1] != t->stride)
            t->start = t->stride = -1;
    return 0;
}

void shmemi_team_free_members(struct shmemi_team *t)
{
    shmemi_coll_team_fini(t);
    free(t->pes);
    free(t->world_to_team);
    t->pes = t->world_to_team = NULL;
}

/* ---- slots ---- */

int shmemi_team_slot_mask_words(void) { return mask_words; }

void shmemi_team_slot_mask(uint64_t *mask)
{
    int w;
    for (w = 0; w < mask_words; w++)
        mask[w] = ~used_mask[w];
}

void shmemi_team_slot_take(int slot)
{
    used_mask[slot / 64] |= 1ull << (slot % 64);
}

void shmemi_team_slot_release(int slot)
{
    if (slot >= 0)
        used_mask[slot / 64] &= ~(1ull << (slot % 64));
}

void shmemi_team_slot_clear(int slot)
{
    shmemi_team_slot_t *s = (shmemi_team_slot_t *)(shmemi_team_area +
                                                  (size_t)slot * shmemi_team_slot_size);
    memset((void *)s->bar, 0, sizeof(s->bar));
    memset((void *)s->aux, 0, sizeof(s->aux));
    memset((void *)s->sig, 0, (size_t)shmemi_g.n_pes * sizeof(uint64_t));
    atomic_thread_fence(memory_order_seq_cst);
}

int shmemi_team_slot_agree(struct shmemi_team *parent, int want_member)
{
    uint64_t mask[64];
    int w, slot = -1;

    shmemi_team_slot_mask(mask);
    shmemi_team_allreduce_u64(parent, mask, mask_words, SHMEMI_IOP_AND);
    for (w = 0; w < mask_words && slot < 0; w++)
        if (mask[w])
            slot = w * 64 + __builtin_ctzll(mask[w]);
    if (slot >= 0 && want_member)
        shmemi_team_slot_take(slot);
    return slot;
}

/* ---- predefined teams ---- */

static int fill_predef(struct shmemi_team *t, int slot, int (*member)(int pe))
{
    int *list = malloc(sizeof(int) * shmemi_g.n_pes), n = 0, pe, ret;

    if (!list)
        return -ENOMEM;
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (member(pe))
            list[n++] = pe;
    ret = shmemi_team_set_members(t, list, n);
    free(list);
    if (ret)
        return ret;
    t->slot = slot;
    t->predefined = 1;
    t->epoch = t->bar_epoch = 0;
    t->parent = NULL;
    t->config.num_contexts = 0;
    t->config_mask = 0;
    shmemi_team_slot_take(slot);
    return 0;
}

static int member_all(int pe) { return 1; }
/* With device heaps, TEAM_SHARED is also the set of PEs whose GPUs map
 * each other's (docs/gpu.md). */
static int member_shared(int pe)
{
    return shmemi_g.peer_heap[pe] != NULL && (!shmemi_g.dheap_size || shmemi_g.peer_dheap[pe]);
}
static int member_node(int pe) { return shmemi_g.node_of[pe] == shmemi_g.node_of[shmemi_g.my_pe]; }
static int local_rank(int pe)
{
    int i, r = 0;
    for (i = 0; i < pe; i++)
        r += shmemi_g.node_of[i] == shmemi_g.node_of[pe];
    return r;
}
static int member_same_mype(int pe) { return local_rank(pe) == local_rank(shmemi_g.my_pe); }

/* NUMA teams (team.c) fill the fixed NUMA slots; weak so that the core
 * links without them. */
int shmemi_teams_numa_init(void) __attribute__((weak));
void shmemi_teams_numa_fini(void) __attribute__((weak));
int shmemi_teams_uid_check(void) __attribute__((weak));

int shmemi_teams_init(void)
{
    int ret;

    if (shmemi_teams_uid_check && (ret = shmemi_teams_uid_check()))
        return ret;
    if (shmemi_g.env.coll_delay < 0 || shmemi_g.env.coll_delay > 1000000) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_COLL_DELAY: invalid value %ld (expected 0 to "
                   "1000000 microseconds)", shmemi_g.env.coll_delay);
        return -EINVAL;
    }
    shmemi_teams_max = (int)shmemi_g.env.teams_max;
    mask_words = (shmemi_teams_max + 63) / 64;
    used_mask = calloc(mask_words, sizeof(uint64_t));
    if (!used_mask)
        return -ENOMEM;
    /* The slots past teams_max and the active-set slots are never free. */
    for (int s = shmemi_teams_max - SHMEMI_SLOT_ACTIVE_SETS; s < mask_words * 64; s++)
        shmemi_team_slot_take(s);
    for (int s = 0; s < SHMEMI_SLOT_FIRST_FREE; s++)
        shmemi_team_slot_take(s);
    if ((ret = fill_predef(&team_world_s, SHMEMI_SLOT_WORLD, member_all)) ||
        (ret = fill_predef(&team_shared_s, SHMEMI_SLOT_SHARED, member_shared)) ||
        (ret = fill_predef(&team_node_s, SHMEMI_SLOT_NODE, member_node)) ||
        (ret = fill_predef(&team_same_mype_s, SHMEMI_SLOT_SAME_MYPE_NODE, member_same_mype)))
        return ret;
    if (shmemi_teams_numa_init && (ret = shmemi_teams_numa_init()))
        return ret;
    return 0;
}

void shmemi_active_sets_fini(void);

void shmemi_teams_fini(void)
{
    shmemi_active_sets_fini();
    if (shmemi_teams_numa_fini)
        shmemi_teams_numa_fini();
    shmemi_team_free_members(&team_world_s);
    shmemi_team_free_members(&team_shared_s);
    shmemi_team_free_members(&team_node_s);
    shmemi_team_free_members(&team_same_mype_s);
    free(used_mask);
    used_mask = NULL;
}

/* ---- primitives ---- */

static void __attribute__((noinline)) tp_signal(volatile uint64_t *sig, uint64_t value, int pe)
{
    int seg, ret;
    uint64_t off;

    if (shmemi_addr_seg((const void *)sig, sizeof(uint64_t), &seg, &off))
        shmemi_fatal("collective signal word %p is not symmetric", (const void *)sig);
    /* Every collective signal is awaited by its receiver: the transport
     * need not make quiet wait for it (active messages send no
     * acknowledgement). */
    ret = shmemi_g.tp->ops->signal(shmemi_g.tp, pe, seg, off, value);
    shmemi_tp_issued();
    if (ret)
        shmemi_fatal("collective: signalling PE %d failed: %s", pe, strerror(-ret));
}

/* The data and the signal in one transport operation: 1 when done, 0 when
 * the transport cannot (the caller puts, fences and signals). */
static int tp_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                         uint64_t value, int pe)
{
    int done, rc = shmemi_tp_put_signal(shmemi_g.tp, dest, src, len, sig, value, SHMEMT_AOP_SET,
                                        pe, &done, "collective");

    if (done)
        shmemi_tp_issued();
    shmemi_must(rc);
    return done;
}

void shmemi_coll_signal(volatile uint64_t *sig, uint64_t value, int pe)
{
    uint64_t *p = (uint64_t *)shmemi_direct((const void *)sig, sizeof(uint64_t), pe);

    if (p)
        __atomic_store_n(p, value, __ATOMIC_RELEASE);
    else
        tp_signal(sig, value, pe);
}

void shmemi_coll_put_signal(void *dest, const void *src, size_t len, volatile uint64_t *sig,
                            uint64_t value, int pe)
{
    char *d = len ? shmemi_direct(dest, len, pe) : NULL;
    int ret;

    if (!len || d) {
        if (len)
            memcpy(d, src, len);
        shmemi_coll_signal(sig, value, pe); /* a release store or a later op */
        return;
    }
    /* The data goes through the transport: in one message with the signal
     * where the transport can (active messages), else a put (src reusable
     * at return), a fence and the signal. */
    if (!shmemi_direct((const void *)sig, sizeof(uint64_t), pe) && tp_put_signal(dest, src, len,
                                                                                 sig, value, pe))
        return;
    shmemi_must(shmemi_put_slow(SHMEM_CTX_DEFAULT, dest, src, len, pe, 0, "collective"));
    if (shmemi_direct((const void *)sig, sizeof(uint64_t), pe)) {
        /* The transport cannot order its put with a CPU store. */
        shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
        shmemi_coll_signal(sig, value, pe);
        return;
    }
    if ((ret = shmemi_g.tp->ops->fence(shmemi_g.tp)))
        shmemi_fatal("collective: ordering data before the signal failed: %s", strerror(-ret));
    tp_signal(sig, value, pe);
}

/* FABSHMEM_COLL_DELAY (developers): one wait in eight, at random, sleeps
 * between half the value and the value in microseconds once the signal has
 * come, before its caller reads what the signal announced.  The state is
 * per thread (streams run collectives on their workers). */
static void __attribute__((noinline, cold)) coll_delay(void)
{
    static __thread uint64_t x;
    uint64_t d = (uint64_t)shmemi_g.env.coll_delay;

    if (!x)
        x = ((uint64_t)shmemi_g.my_pe + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 20 ^
            (uint64_t)(uintptr_t)&x;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if ((x & 7) == 0)
        usleep((useconds_t)(d / 2 + (x >> 8) % (d - d / 2 + 1)));
}

void shmemi_coll_wait(volatile uint64_t *sig, uint64_t value)
{
    unsigned long it = 0;
    int i;

    /* A short spin without progress calls: on mapped peers the answer
     * usually comes within a few hundred nanoseconds (unless the PEs
     * outnumber the cores: the peer may not even be running). */
    for (i = 0; i < 256 && i < shmemi_g.wait_spin; i++) {
        if (__atomic_load_n(sig, __ATOMIC_ACQUIRE) >= value)
            goto done;
        shmemi_cpu_relax();
    }
    while (__atomic_load_n(sig, __ATOMIC_ACQUIRE) < value)
        shmemi_wait_backoff(&it);
done:
    if (__builtin_expect(shmemi_g.env.coll_delay > 0, 0))
        coll_delay();
}

/* The words of a team slot's bar[] that the central barrier uses on the
 * team's PE 0 (dissemination uses bar[0 .. log2(n) - 1]). */
#define BAR_COUNT (SHMEMI_TEAM_BAR_ROUNDS - 2)
#define BAR_RELEASE (SHMEMI_TEAM_BAR_ROUNDS - 1)

/* 1: central, 0: dissemination. */
static int barrier_central(const struct shmemi_team *t)
{
    const char *a = shmemi_g.env.barrier_algo;

    /* Central on mapped peers that outnumber the cores (a dissemination
     * round waits for a peer that may not be running), and for 2 PEs
     * (0.038 against 0.058 us here, each PE on its own core). */
    if (!strcmp(a, "auto") || !strcmp(a, "hier"))
        return t->all_mapped && (shmemi_g.oversubscribed || t->n_pes <= 2);
    if (!strcmp(a, "dissemination"))
        return 0;
    if (!strcmp(a, "central"))
        return t->all_mapped;
    shmemi_user_error("shmem_barrier", "FABSHMEM_BARRIER_ALGO: unknown value '%s' (auto, "
                      "dissemination, central or hier)", a);
}

/* Node teams: stores value into my word bar[w] of the team's slot, then
 * waits until every other member's bar[w] holds at least wait_for. */
static void publish_wait_all(struct shmemi_team *t, int w, uint64_t value, uint64_t wait_for)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int j, n = t->n_pes;

    __atomic_store_n(&s->bar[w], value, __ATOMIC_RELEASE);
    for (j = 1; j < n; j++)
        shmemi_coll_wait((volatile uint64_t *)shmemi_direct((const void *)&s->bar[w],
                                                            sizeof(uint64_t),
                                                            t->pes[(t->my_pe + j) % n]),
                         wait_for);
}

void shmemi_coll_guard(struct shmemi_team *t, uint64_t e)
{
    /* Every member has begun e - 1 if I saw all of them in e - 1. */
    if (e < 2 || t->synced_epoch + 1 >= e) {
        __atomic_store_n(&shmemi_team_slot(t)->bar[SHMEMI_TEAM_BAR_BEGUN], e, __ATOMIC_RELEASE);
        return;
    }
    publish_wait_all(t, SHMEMI_TEAM_BAR_BEGUN, e, e - 1);
}

void shmemi_coll_ready(struct shmemi_team *t, uint64_t e)
{
    if (t->n_pes > SHMEMI_COLL_READY_MAX || shmemi_g.oversubscribed)
        shmemi_team_sync(t);
    else
        publish_wait_all(t, SHMEMI_TEAM_BAR_READY, e, e);
    /* Either way every member has begun e. */
    shmemi_coll_synced(t, e);
}

static inline volatile uint64_t *ll_line(struct shmemi_team *t, uint64_t e, int j)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    volatile uint64_t *l = &s->aux[SHMEMI_TEAM_AUX - (2 - (e & 1)) * SHMEMI_COLL_LL_WORDS];

    return j == t->my_pe ? l : (volatile uint64_t *)shmemi_direct((const void *)l,
                                                                  SHMEMI_COLL_LL_WORDS * 8,
                                                                  t->pes[j]);
}

void shmemi_coll_ll_publish(struct shmemi_team *t, uint64_t e, const void *src, size_t len)
{
    volatile uint64_t *l = ll_line(t, e, t->my_pe);

    memcpy((void *)(l + 1), src, len);
    __atomic_store_n(l, e, __ATOMIC_RELEASE);
}

const void *shmemi_coll_ll_wait(struct shmemi_team *t, uint64_t e, int j)
{
    volatile uint64_t *l = ll_line(t, e, j);

    shmemi_coll_wait(l, e);
    return (const void *)(l + 1);
}

static void dissemination(struct shmemi_team *t)
{
    shmemi_team_slot_t *s;
    int n = t->n_pes, me = t->my_pe, k, dist;
    uint64_t b;

    if (n <= 1)
        return;
    s = shmemi_team_slot(t);
    b = ++t->bar_epoch;
    if (!t->all_mapped && shmemi_coll_barrier_hier(t, b))
        return;
    if (barrier_central(t)) {
        shmemi_coll_count(t, SHMEMI_CK_BARRIER, SHMEMI_CA_CENTRAL);
        /* Every member counts itself in on PE 0's counter; the last one
         * releases the others, who each wait once (with more PEs than
         * cores, every wait is a trip through the scheduler). */
        uint64_t *cnt = (uint64_t *)shmemi_direct((const void *)&s->bar[BAR_COUNT],
                                                  sizeof(uint64_t), t->pes[0]);
        uint64_t *rel = (uint64_t *)shmemi_direct((const void *)&s->bar[BAR_RELEASE],
                                                  sizeof(uint64_t), t->pes[0]);
        if (__atomic_add_fetch(cnt, 1, __ATOMIC_ACQ_REL) == b * (uint64_t)n)
            __atomic_store_n(rel, b, __ATOMIC_RELEASE);
        else
            shmemi_coll_wait(rel, b);
        return;
    }
    shmemi_coll_count(t, SHMEMI_CK_BARRIER, SHMEMI_CA_DISSEMINATION);
    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        shmemi_coll_signal(&s->bar[k], b, t->pes[(me + dist) % n]);
        shmemi_coll_wait(&s->bar[k], b);
    }
}

void shmemi_team_barrier(struct shmemi_team *t)
{
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
    dissemination(t);
}

void shmemi_team_sync(struct shmemi_team *t)
{
    /* No completion of earlier puts is promised, but the signals must not
     * overtake stores to mapped peers made before the sync. */
    atomic_thread_fence(memory_order_release);
    dissemination(t);
}

static void iop(uint64_t *acc, const uint64_t *in, int nwords, int op)
{
    int i;
    for (i = 0; i < nwords; i++) {
        switch (op) {
        case SHMEMI_IOP_AND: acc[i] &= in[i]; break;
        case SHMEMI_IOP_OR:  acc[i] |= in[i]; break;
        case SHMEMI_IOP_MAX: if (in[i] > acc[i]) acc[i] = in[i]; break;
        default:             if (in[i] < acc[i]) acc[i] = in[i]; break;
        }
    }
}

void shmemi_team_allreduce_u64(struct shmemi_team *t, uint64_t *vals, int nwords, int op)
{
    shmemi_team_slot_t *s;
    int n = t->n_pes, me = t->my_pe, k, dist;
    size_t len = (size_t)nwords * sizeof(uint64_t);
    uint64_t e, in[64];
    char *buf;

    if (n <= 1 || nwords <= 0)
        return;
    if (nwords > 64)
        shmemi_fatal("internal: allreduce of %d words (at most 64)", nwords);
    s = shmemi_team_slot(t);
    e = shmemi_coll_begin(t);
    buf = s->scratch[e & 1];
    /* Dissemination: in round k send the partial result to me + 2^k and
     * combine the one of me - 2^k; idempotent ops make the overlaps of a
     * non-power-of-two team harmless. */
    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int to = (me + dist) % n, from = (me - dist % n + n) % n;
        shmemi_coll_put_signal(buf + (size_t)k * 512, vals, len, &s->sig[me],
                               shmemi_coll_sigval(e, k + 1), t->pes[to]);
        shmemi_coll_wait(&s->sig[from], shmemi_coll_sigval(e, k + 1));
        memcpy(in, buf + (size_t)k * 512, len);
        iop(vals, in, nwords, op);
    }
}

/* ---- active sets (the deprecated pSync collectives) ----
 * An active set (PE_start, logPE_stride, PE_size) becomes an internal team
 * kept for the rest of the job, in one of the last SHMEMI_SLOT_ACTIVE_SETS
 * slots.  Every PE keeps an exact table from the triple to its team.  The
 * first time a set is used its members agree on a slot free on all of
 * them, with puts and local polls only (so every provider works, with or
 * without atomics) and without the user's pSync, through the tail of the
 * team area (struct as_area):
 *  - each member puts its record into the board of the set's leader (its
 *    first PE), at the index of its own world PE: its mask of free
 *    active-set slots, then (as the signal of a put with signal) the set's
 *    code;
 *  - the leader waits until every member's record carries the code, ANDs
 *    the masks, and puts the lowest common free slot (plus one, 0 for
 *    none) and the code into every member's inbox;
 *  - a member takes the slot when its inbox carries the set's code.
 * A PE takes part in one agreement at a time and takes no slot while it
 * waits, so the mask it sent is still true when the answer comes: the slot
 * is free on every member, whatever other sets are agreed at the same time
 * (two overlapping sets that both want slot s: whichever a shared member
 * answered first holds s in the mask that member sends for the other).
 * One record per PE at each leader and one inbox per PE are enough: a
 * member sends a leader a new record only after the answer to its last
 * one, which the leader sends after reading it.  The slots are never
 * reused within a job, so they need no clearing before use.  Like the
 * collective itself, the agreement needs every member: PEs must call
 * collectives on overlapping sets in the same order. */
struct active_set {
    uint64_t code;
    struct active_set *next;
    struct shmemi_team team;
};
#define AS_BUCKETS 64
static struct active_set *as_table[AS_BUCKETS];
static uint64_t as_used; /* bit k: active-set slot k is taken on this PE */
static pthread_mutex_t as_lock = PTHREAD_MUTEX_INITIALIZER;

/* The agreement's words in the team area: the inbox (the answer to this
 * PE's last record), then one record per world PE (the board). */
struct as_word2 {
    volatile uint64_t data, code;
};
struct as_area {
    struct as_word2 inbox;
    struct as_word2 board[];
};

static size_t as_area_size(int n_pes)
{
    return sizeof(struct as_area) + (size_t)n_pes * sizeof(struct as_word2);
}

static struct as_area *as_area(void)
{
    return (struct as_area *)(shmemi_team_area + (size_t)shmemi_teams_max *
                                                     shmemi_team_slot_size);
}

/* A set's code: exact (and never 0) for jobs of up to 2^28 PEs.  The
 * stride of a set of one PE does not matter: one code for all of them. */
static uint64_t as_code(int start, int log_stride, int size)
{
    if (size == 1)
        log_stride = 0;
    return ((uint64_t)size << 34) | ((uint64_t)log_stride << 29) | (uint64_t)start;
}

static unsigned as_bucket(uint64_t code)
{
    return (unsigned)((code * 0x9e3779b97f4a7c15ull) >> 58) % AS_BUCKETS;
}

static void as_wait_code(volatile uint64_t *w, uint64_t code)
{
    unsigned long it = 0;

    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != code)
        shmemi_wait_backoff(&it);
}

/* The leader's side: every member's mask, the answer to every member.
 * Returns the slot index within the active-set slots, or -1. */
static int as_lead(const struct shmemi_team *t, uint64_t code, int *full_pe_p, int *full_n_p)
{
    struct as_area *a = as_area();
    uint64_t common = ~as_used, ans;
    int i, k = -1, fewest = SHMEMI_SLOT_ACTIVE_SETS + 1;

    *full_pe_p = -1;
    for (i = 0; i < t->n_pes; i++) {
        int pe = t->pes[i], nfree;
        uint64_t m;

        if (pe == shmemi_g.my_pe) {
            m = ~as_used;
        } else {
            as_wait_code(&a->board[pe].code, code);
            m = a->board[pe].data;
        }
        common &= m;
        nfree = __builtin_popcountll(m);
        if (nfree < fewest) {
            fewest = nfree;
            *full_pe_p = pe;
        }
    }
    *full_n_p = SHMEMI_SLOT_ACTIVE_SETS - fewest;
    if (common)
        k = __builtin_ctzll(common);
    ans = (uint64_t)(k + 1);
    for (i = 0; i < t->n_pes; i++)
        if (t->pes[i] != shmemi_g.my_pe)
            shmemi_coll_put_signal((void *)&a->inbox.data, &ans, sizeof(ans), &a->inbox.code,
                                   code, t->pes[i]);
    return k;
}

/* A member's side: its record to the leader, then the answer. */
static int as_follow(const struct shmemi_team *t, uint64_t code)
{
    struct as_area *a = as_area();
    uint64_t m = ~as_used;

    shmemi_coll_put_signal((void *)&a->board[shmemi_g.my_pe].data, &m, sizeof(m),
                           &a->board[shmemi_g.my_pe].code, code, t->pes[0]);
    as_wait_code(&a->inbox.code, code);
    return (int)a->inbox.data - 1;
}

struct shmemi_team *shmemi_active_set_team(int PE_start, int logPE_stride, int PE_size,
                                           const char *rtn)
{
    struct active_set *a;
    uint64_t code;
    unsigned b;
    int i, *list, ret, k, full_pe = -1, full_n = 0;

    if (PE_size < 1 || PE_start < 0 || logPE_stride < 0 || logPE_stride > 30)
        shmemi_user_error(rtn, "active set PE_start=%d logPE_stride=%d PE_size=%d is not valid",
                          PE_start, logPE_stride, PE_size);
    if ((long long)PE_start + (long long)(PE_size - 1) * (1LL << logPE_stride) >= shmemi_g.n_pes)
        shmemi_user_error(rtn, "active set PE_start=%d logPE_stride=%d PE_size=%d reaches past "
                          "the last PE (%d)", PE_start, logPE_stride, PE_size, shmemi_g.n_pes - 1);
    if (PE_start == 0 && logPE_stride == 0 && PE_size == shmemi_g.n_pes)
        return SHMEM_TEAM_WORLD;
    code = as_code(PE_start, logPE_stride, PE_size);
    b = as_bucket(code);
    pthread_mutex_lock(&as_lock);
    for (a = as_table[b]; a; a = a->next)
        if (a->code == code) {
            pthread_mutex_unlock(&as_lock);
            return &a->team;
        }
    /* First use on this PE: make the team and agree on its slot (the lock
     * keeps this PE in one agreement at a time). */
    a = calloc(1, sizeof(*a));
    list = malloc(sizeof(int) * PE_size);
    if (!a || !list)
        shmemi_fatal("%s: out of memory", rtn);
    for (i = 0; i < PE_size; i++)
        list[i] = PE_start + (i << logPE_stride);
    ret = shmemi_team_set_members(&a->team, list, PE_size);
    free(list);
    if (ret)
        shmemi_fatal("%s: out of memory", rtn);
    if (a->team.my_pe < 0)
        shmemi_user_error(rtn, "PE %d is not in the active set PE_start=%d logPE_stride=%d "
                          "PE_size=%d", shmemi_g.my_pe, PE_start, logPE_stride, PE_size);
    if (shmemi_g.n_pes > (1 << 28))
        shmemi_fatal("%s: active sets need a job of at most 2^28 PEs", rtn);
    if (a->team.my_pe == 0)
        k = as_lead(&a->team, code, &full_pe, &full_n);
    else
        k = as_follow(&a->team, code);
    if (k < 0) {
        if (a->team.my_pe == 0)
            shmemi_user_error(rtn, "active set PE_start=%d logPE_stride=%d PE_size=%d: none of "
                              "the %d internal slots for active sets is free on every member "
                              "(PE %d already takes part in %d other active sets); use teams "
                              "(shmem_team_split_strided) instead of pSync collectives",
                              PE_start, logPE_stride, PE_size, SHMEMI_SLOT_ACTIVE_SETS, full_pe,
                              full_n);
        shmemi_user_error(rtn, "active set PE_start=%d logPE_stride=%d PE_size=%d: no internal "
                          "slot for active sets is free on every member (PE %d says which)",
                          PE_start, logPE_stride, PE_size, PE_start);
    }
    as_used |= 1ull << k;
    a->code = code;
    a->team.slot = shmemi_teams_max - SHMEMI_SLOT_ACTIVE_SETS + k;
    a->team.predefined = 1;
    a->next = as_table[b];
    as_table[b] = a;
    pthread_mutex_unlock(&as_lock);
    return &a->team;
}

void shmemi_active_sets_fini(void)
{
    struct active_set *a, *next;
    int b;

    pthread_mutex_lock(&as_lock);
    for (b = 0; b < AS_BUCKETS; b++) {
        for (a = as_table[b]; a; a = next) {
            next = a->next;
            shmemi_team_slot_clear(a->team.slot);
            shmemi_team_free_members(&a->team);
            free(a);
        }
        as_table[b] = NULL;
    }
    as_used = 0;
    pthread_mutex_unlock(&as_lock);
}
