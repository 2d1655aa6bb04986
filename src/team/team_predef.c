/*
 * The members of a team (the arrays every team carries, and the pure
 * arithmetic of the splits) and the predefined teams: SHMEM_TEAM_WORLD,
 * SHMEM_TEAM_SHARED, SHMEMX_TEAM_NODE and SHMEMX_TEAM_SAME_MYPE_NODE (the
 * NUMA teams are in team_numa.c).
 */
#include "team/team.h"
#include <stdlib.h>

/* ---- the registry of handles ----
 * Every team struct this PE made and has not freed (predefined, split,
 * from unique ids, active sets', and the tombstones of destroyed teams),
 * in an open-addressing set of pointers under a lock, so that
 * FABSHMEM_CHECKS=1 can tell a handle from garbage without reading it.
 * It changes only when a team is made or freed. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *reg;            /* 0: empty, 1: removed, else a team */
static size_t reg_cap, reg_used;  /* used: teams and removed marks */

static size_t reg_hash(uintptr_t p, size_t cap)
{
    return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* The index of p in reg, or of the empty entry that ends its probe. */
static size_t reg_find(uintptr_t p)
{
    size_t i = reg_hash(p, reg_cap);

    while (reg[i] && reg[i] != p)
        i = (i + 1) & (reg_cap - 1);
    return i;
}

/* Rebuilds the set with cap entries (a power of two); -ENOMEM. */
static int reg_rehash(size_t cap)
{
    uintptr_t *old = reg, *n = calloc(cap, sizeof(*n));
    size_t old_cap = reg_cap, i;

    if (!n)
        return -ENOMEM;
    reg = n;
    reg_cap = cap;
    reg_used = 0;
    for (i = 0; i < old_cap; i++)
        if (old[i] > 1) {
            reg[reg_find(old[i])] = old[i];
            reg_used++;
        }
    free(old);
    return 0;
}

static int team_register(struct shmemi_team *t)
{
    int rc = 0;
    size_t i;

    pthread_mutex_lock(&reg_lock);
    if ((reg_used + 1) * 2 > reg_cap)
        rc = reg_rehash(reg_cap ? reg_cap * 2 : 64);
    if (!rc) {
        i = reg_find((uintptr_t)t);
        if (!reg[i]) {
            reg[i] = (uintptr_t)t;
            reg_used++;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void shmemi_team_forget(struct shmemi_team *t)
{
    size_t i;

    pthread_mutex_lock(&reg_lock);
    if (reg) {
        i = reg_find((uintptr_t)t);
        if (reg[i])
            reg[i] = 1;
    }
    pthread_mutex_unlock(&reg_lock);
}

int shmemi_team_known_slow(const struct shmemi_team *team)
{
    int known;

    pthread_mutex_lock(&reg_lock);
    known = reg && reg[reg_find((uintptr_t)team)] == (uintptr_t)team;
    pthread_mutex_unlock(&reg_lock);
    return known;
}

const char *shmemi_team_bad_msg(const struct shmemi_team *team)
{
    static __thread char msg[200];

    if (!shmemi_team_unknown(team))
        return SHMEMI_TEAM_DESTROYED_MSG;
    snprintf(msg, sizeof(msg), "(%p) is not a team handle: no team of this PE has it (never "
             "made, or destroyed long ago; checked with FABSHMEM_CHECKS=1)", (const void *)team);
    return msg;
}

static void team_registry_fini(void)
{
    pthread_mutex_lock(&reg_lock);
    free(reg);
    reg = NULL;
    reg_cap = reg_used = 0;
    pthread_mutex_unlock(&reg_lock);
}

static struct shmemi_team team_world_s, team_shared_s, team_node_s, team_same_mype_s;
SHMEM_API shmem_team_t SHMEM_TEAM_WORLD = &team_world_s;
SHMEM_API shmem_team_t SHMEM_TEAM_SHARED = &team_shared_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_NODE = &team_node_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_SAME_MYPE_NODE = &team_same_mype_s;

/* ---- members ---- */

int shmemi_team_set_members(struct shmemi_team *t, const int *world_pes, int n)
{
    int i, pe;

    t->pes = malloc(sizeof(int) * (n ? n : 1));
    t->world_to_team = malloc(sizeof(int) * shmemi_g.n_pes);
    if (!t->pes || !t->world_to_team || team_register(t)) {
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
    if (t->coll_free)
        t->coll_free(t);
    t->coll = NULL;
    t->coll_free = NULL;
    free(t->pes);
    free(t->world_to_team);
    t->pes = t->world_to_team = NULL;
    /* The predefined teams are static and start over at the next init,
     * with a fresh slot: a synced_epoch left from this one would let
     * shmemi_team_guard skip its wait for as many epochs as this init ran
     * (wrong sums in the first rd reductions after a broadcast on a node
     * team of 4 PEs, tests/coll/coll_race). */
    t->epoch = t->bar_epoch = t->central_epoch = t->synced_epoch = 0;
    t->gpu_epoch = 0;
}

int shmemi_team_strided_pes(const struct shmemi_team *p, int me, int start, int stride, int size,
                            int *pes)
{
    int i, in = 0;

    for (i = 0; i < size; i++)
        if (start + i * stride == me)
            in = 1;
    if (!in)
        return 0;
    for (i = 0; i < size; i++)
        pes[i] = p->pes[start + i * stride];
    return size;
}

int shmemi_team_2d_pes(const struct shmemi_team *p, int me, int xrange, int axis, int *pes)
{
    int n = 0, i, x = me % xrange, y = me / xrange;

    if (axis == 0) {
        /* My row (same y), in x order. */
        for (i = y * xrange; i < p->n_pes && i < (y + 1) * xrange; i++)
            pes[n++] = p->pes[i];
    } else {
        /* My column (same x), in y order. */
        for (i = x; i < p->n_pes; i += xrange)
            pes[n++] = p->pes[i];
    }
    return n;
}

/* ---- predefined teams ---- */

int shmemi_team_predef_set(struct shmemi_team *t, int slot, const int *world_pes, int n)
{
    int ret = shmemi_team_set_members(t, world_pes, n);

    if (ret)
        return ret;
    t->slot = slot;
    t->predefined = 1;
    t->epoch = t->bar_epoch = t->central_epoch = 0;
    t->gpu_epoch = 0;
    t->parent = NULL;
    t->config.num_contexts = 0;
    t->config_mask = 0;
    return 0;
}

static int fill_predef(struct shmemi_team *t, int slot, int (*member)(int pe))
{
    int *list = malloc(sizeof(int) * shmemi_g.n_pes), n = 0, pe, ret;

    if (!list)
        return -ENOMEM;
    for (pe = 0; pe < shmemi_g.n_pes; pe++)
        if (member(pe))
            list[n++] = pe;
    ret = shmemi_team_predef_set(t, slot, list, n);
    free(list);
    if (ret)
        return ret;
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

int shmemi_teams_init(void)
{
    int ret;

    if ((ret = shmemi_team_slots_init((int)shmemi_g.env.teams_max)) ||
        (ret = fill_predef(&team_world_s, SHMEMI_SLOT_WORLD, member_all)) ||
        (ret = fill_predef(&team_shared_s, SHMEMI_SLOT_SHARED, member_shared)) ||
        (ret = fill_predef(&team_node_s, SHMEMI_SLOT_NODE, member_node)) ||
        (ret = fill_predef(&team_same_mype_s, SHMEMI_SLOT_SAME_MYPE_NODE, member_same_mype)) ||
        (ret = shmemi_teams_numa_init()) || (ret = shmemi_teams_gpu_init()))
        shmemi_teams_fini(); /* frees what was made */
    return ret;
}

void shmemi_teams_fini(void)
{
    shmemi_active_sets_fini();
    shmemi_teams_numa_fini();
    shmemi_teams_gpu_fini();
    shmemi_team_free_members(&team_world_s);
    shmemi_team_free_members(&team_shared_s);
    shmemi_team_free_members(&team_node_s);
    shmemi_team_free_members(&team_same_mype_s);
    shmemi_team_tombs_fini();
    shmemi_team_slots_fini();
    team_registry_fini();
}
