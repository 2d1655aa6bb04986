/*
 * Team routines: queries, splits, configuration, destruction, teams from
 * any set of PEs (shmemx_team_get_uniqueid / shmemx_team_init) and the
 * NUMA teams.
 */
#include "coll/coll.h"
#include <stdlib.h>

SHMEM_API void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    SHMEMI_CHECK_INIT("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->n_pes)
        return NULL;
    return shmemi_ptr_world(dest, team->pes[pe]);
}
SHMEMI_ALIAS(shmem_team_ptr)

SHMEM_API int pshmem_team_my_pe(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_my_pe");
    return team == SHMEM_TEAM_INVALID ? -1 : team->my_pe;
}
SHMEMI_ALIAS(shmem_team_my_pe)

SHMEM_API int pshmem_team_n_pes(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_n_pes");
    return team == SHMEM_TEAM_INVALID ? -1 : team->n_pes;
}
SHMEMI_ALIAS(shmem_team_n_pes)

SHMEM_API int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    SHMEMI_CHECK_INIT("shmem_team_translate_pe");
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->n_pes)
        return -1;
    return dest_team->world_to_team[src_team->pes[src_pe]];
}
SHMEMI_ALIAS(shmem_team_translate_pe)


/* ---- configuration ---- */

SHMEM_API int pshmem_team_get_config(shmem_team_t team, long config_mask,
                                     shmem_team_config_t *config)
{
    SHMEMI_CHECK_INIT("shmem_team_get_config");
    if (team == SHMEM_TEAM_INVALID || !config)
        return SHMEMX_ERROR_INVALID_VALUE;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
SHMEMI_ALIAS(shmem_team_get_config)

/* ---- splits ---- */

/* Makes this PE's team of a family of disjoint teams split from parent:
 * every parent member calls it once per family, with the world PEs of its
 * own new team (n >= 1, in team order) or n == 0 when it is in none.  The
 * teams of one family share a slot number, agreed over the whole parent.
 * Returns 0 (and *new_team, SHMEM_TEAM_INVALID for non-members) or
 * SHMEMX_ERROR_OUT_OF_MEMORY (no slot) on every parent member; what names
 * the output argument in the message. */
static int split_family(struct shmemi_team *parent, const int *pes, int n,
                        const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team,
                        const char *rtn, const char *what)
{
    struct shmemi_team *t = NULL;
    int slot;

    *new_team = SHMEM_TEAM_INVALID;
    slot = shmemi_team_slot_agree(parent, n > 0);
    if (slot < 0) {
        if (parent->my_pe == 0)
            shmemi_log(SHMEMI_LOG_ERR, "%s: %s: no free team slot on some PE of the parent "
                       "team (FABSHMEM_TEAMS_MAX=%d; destroy unused teams or raise it)", rtn,
                       what, shmemi_teams_max);
        shmemi_team_sync(parent);
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    if (n > 0) {
        t = calloc(1, sizeof(*t));
        if (!t || shmemi_team_set_members(t, pes, n))
            shmemi_fatal("%s: out of memory", rtn);
        t->slot = slot;
        t->parent = parent;
        t->config_mask = config_mask;
        if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS))
            t->config.num_contexts = config->num_contexts;
        shmemi_team_slot_clear(slot);
        *new_team = t;
    }
    /* Nobody signals into the new slot before every member cleared it. */
    shmemi_team_sync(parent);
    return 0;
}

static int bad_split(struct shmemi_team *parent, shmem_team_t *new_team, const char *rtn,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int bad_split(struct shmemi_team *parent, shmem_team_t *new_team, const char *rtn,
                     const char *fmt, ...)
{
    char msg[200];
    va_list ap;

    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (!parent || parent->my_pe <= 0)
        shmemi_warn("%s: %s", rtn, msg);
    return SHMEMX_ERROR_INVALID_VALUE;
}

SHMEM_API int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                        const shmem_team_config_t *config, long config_mask,
                                        shmem_team_t *new_team)
{
    const char *rtn = "shmem_team_split_strided";
    struct shmemi_team *p = parent_team;
    int *pes, n = 0, i, ret;

    SHMEMI_CHECK_INIT(rtn);
    if (!new_team)
        shmemi_user_error(rtn, "new_team is NULL");
    if (!shmemi_team_ok(p))
        return bad_split(NULL, new_team, rtn, "parent_team is SHMEM_TEAM_INVALID or this PE is "
                         "not a member");
    if (size < 1 || start < 0 || start >= p->n_pes)
        return bad_split(p, new_team, rtn, "start %d / size %d out of range (parent has %d PEs)",
                         start, size, p->n_pes);
    if (stride == 0 && size != 1)
        return bad_split(p, new_team, rtn, "stride 0 needs size 1 (size is %d)", size);
    {
        long long last = (long long)start + (long long)stride * (size - 1);
        if (last < 0 || last >= p->n_pes)
            return bad_split(p, new_team, rtn, "start %d + stride %d * (size %d - 1) = %lld is "
                             "outside the parent (%d PEs)", start, stride, size, last, p->n_pes);
    }
    pes = malloc(sizeof(int) * size);
    if (!pes)
        shmemi_fatal("%s: out of memory", rtn);
    for (i = 0; i < size; i++)
        if (start + i * stride == p->my_pe)
            n = size;
    if (n)
        for (i = 0; i < size; i++)
            pes[i] = p->pes[start + i * stride];
    ret = split_family(p, pes, n, config, config_mask, new_team, rtn, "new_team");
    free(pes);
    return ret;
}
SHMEMI_ALIAS(shmem_team_split_strided)

SHMEM_API int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                                   const shmem_team_config_t *xaxis_config, long xaxis_mask,
                                   shmem_team_t *xaxis_team,
                                   const shmem_team_config_t *yaxis_config, long yaxis_mask,
                                   shmem_team_t *yaxis_team)
{
    const char *rtn = "shmem_team_split_2d";
    struct shmemi_team *p = parent_team;
    int *pes, n, i, x, y, ret, ret_y;

    SHMEMI_CHECK_INIT(rtn);
    if (!xaxis_team || !yaxis_team)
        shmemi_user_error(rtn, "%s is NULL", !xaxis_team ? "xaxis_team" : "yaxis_team");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!shmemi_team_ok(p))
        return bad_split(NULL, NULL, rtn, "parent_team is SHMEM_TEAM_INVALID or this PE is not "
                         "a member");
    /* OpenSHMEM 1.6 asks for a nonnegative xrange.  xrange 0 is a grid of
     * no columns: no PE has a place in it, so neither team is made (both
     * SHMEM_TEAM_INVALID) and the call returns nonzero, without a message,
     * the same on every PE. */
    if (xrange < 0)
        return bad_split(p, NULL, rtn, "xrange %d is negative", xrange);
    if (xrange == 0) {
        shmemi_debug("%s: xrange 0: a grid without columns, no team is made", rtn);
        return SHMEMX_ERROR_INVALID_VALUE;
    }
    if (xrange > p->n_pes)
        xrange = p->n_pes;
    x = p->my_pe % xrange;
    y = p->my_pe / xrange;
    pes = malloc(sizeof(int) * p->n_pes);
    if (!pes)
        shmemi_fatal("%s: out of memory", rtn);
    /* The x-axis team: my row (same y), in x order.  Each axis is made on
     * its own: a y-axis team that cannot be made (no team slot) leaves a
     * good x-axis team alone, as the specification asks ("if either team
     * cannot be created, that team will be assigned SHMEM_TEAM_INVALID"),
     * and the return is nonzero unless both were made.  Both results are
     * the same on every parent member (each split agrees over the whole
     * parent). */
    for (n = 0, i = y * xrange; i < p->n_pes && i < (y + 1) * xrange; i++)
        pes[n++] = p->pes[i];
    ret = split_family(p, pes, n, xaxis_config, xaxis_mask, xaxis_team, rtn, "xaxis_team");
    /* The y-axis team: my column (same x), in y order. */
    for (n = 0, i = x; i < p->n_pes; i += xrange)
        pes[n++] = p->pes[i];
    ret_y = split_family(p, pes, n, yaxis_config, yaxis_mask, yaxis_team, rtn, "yaxis_team");
    free(pes);
    return ret ? ret : ret_y;
}
SHMEMI_ALIAS(shmem_team_split_2d)

SHMEM_API void pshmem_team_destroy(shmem_team_t team)
{
    SHMEMI_CHECK_INIT("shmem_team_destroy");
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team->predefined)
        shmemi_user_error("shmem_team_destroy", "team is a predefined team (SHMEM_TEAM_WORLD, "
                          "SHMEM_TEAM_SHARED, SHMEMX_TEAM_*), which cannot be destroyed");
    if (team->my_pe < 0)
        return;
    /* The contexts of the team go with it. */
    shmemi_must(shmemi_ctxs_release(team, "shmem_team_destroy"));
    /* Every member is done with the team: no signal is in flight to us. */
    shmemi_team_sync(team);
    shmemi_team_slot_release(team->slot);
    shmemi_team_free_members(team);
    free(team);
}
SHMEMI_ALIAS(shmem_team_destroy)

/* ---- teams from any set of PEs: shmemx_team_get_uniqueid / team_init ----
 *
 * The PE that makes an id keeps a registry in the team area
 * (shmemi_team_uid_area): FABSHMEM_TEAM_UIDS entries, each a header (the
 * id's tag) and room for one record per PE of the job, so a team made from
 * an id may hold every PE.  Members find each other there with plain puts
 * and gets (no atomics, so every provider works): each puts its record
 * (tag, team size, free-slot mask, then its world PE) at its index, polls
 * until every record is there, ANDs the masks to pick the lowest slot free
 * on every member, clears it, then announces "ready" and waits for all,
 * and finally "departed".  An entry is held from shmemx_team_get_uniqueid
 * until every member has departed; when all are held the call returns
 * SHMEMX_ERROR_OUT_OF_MEMORY. */
enum { REC_PE, REC_TAG, REC_READY, REC_DEPARTED, REC_NPES, REC_MASK };

struct uid_wire {
    uint32_t magic;
    int32_t creator;
    uint32_t entry;
    uint32_t pad;
    uint64_t tag;
};
#define UID_MAGIC 0x7465616du

static uint32_t uid_counter;
static int uid_next;
/* The registry's shape, fixed at init (the same on every PE). */
static size_t uid_rec_words, uid_entry_words;
static int uid_entries;

size_t shmemi_team_uid_bytes(long teams_max, int n_pes);
void *shmemi_team_uid_area(void);

size_t shmemi_team_uid_bytes(long teams_max, int n_pes)
{
    uid_rec_words = REC_MASK + (size_t)(teams_max + 63) / 64;
    uid_entry_words = 1 + (size_t)n_pes * uid_rec_words;
    /* A value out of range makes no registry; shmemi_teams_uid_check
     * reports it at init. */
    uid_entries = shmemi_g.env.team_uids >= 1 && shmemi_g.env.team_uids <= 4096
                      ? (int)shmemi_g.env.team_uids : 0;
    return (size_t)uid_entries * uid_entry_words * sizeof(uint64_t);
}

int shmemi_teams_uid_check(void);
int shmemi_teams_uid_check(void)
{
    if (uid_entries > 0)
        return 0;
    shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_TEAM_UIDS: invalid value %ld (expected 1 to 4096)",
               (long)shmemi_g.env.team_uids);
    return -EINVAL;
}

static size_t rec_words(void) { return uid_rec_words; }
static uint64_t *reg_entry(int entry)
{
    return (uint64_t *)shmemi_team_uid_area() + (size_t)entry * uid_entry_words;
}

/* Whether an entry of my registry holds an id whose team is not complete:
 * issued and not yet used, or some member has not departed. */
static int reg_busy(const uint64_t *e)
{
    uint64_t tag = __atomic_load_n(&e[0], __ATOMIC_ACQUIRE);
    int i, npes = -1;

    if (!tag)
        return 0;
    for (i = 0; i < shmemi_g.n_pes && npes < 0; i++) {
        const uint64_t *r = e + 1 + (size_t)i * rec_words();
        if (__atomic_load_n(&r[REC_PE], __ATOMIC_ACQUIRE) &&
            __atomic_load_n(&r[REC_TAG], __ATOMIC_ACQUIRE) == tag)
            npes = (int)__atomic_load_n(&r[REC_NPES], __ATOMIC_ACQUIRE);
    }
    if (npes < 1 || npes > shmemi_g.n_pes)
        return 1;
    for (i = 0; i < npes; i++) {
        const uint64_t *r = e + 1 + (size_t)i * rec_words();
        if (!__atomic_load_n(&r[REC_PE], __ATOMIC_ACQUIRE) ||
            __atomic_load_n(&r[REC_DEPARTED], __ATOMIC_ACQUIRE) != tag)
            return 1;
    }
    return 0;
}

SHMEM_API int shmemx_team_get_uniqueid(shmemx_team_uniqueid_t *uid)
{
    const char *rtn = "shmemx_team_get_uniqueid";
    struct uid_wire w;
    uint64_t *e, tag;
    int entry = -1, i;

    SHMEMI_CHECK_INIT(rtn);
    if (!uid)
        shmemi_user_error(rtn, "uid is NULL");
    for (i = 0; i < uid_entries && entry < 0; i++)
        if (!reg_busy(reg_entry((uid_next + i) % uid_entries)))
            entry = (uid_next + i) % uid_entries;
    if (entry < 0) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: all %d ids of this PE are in use (each until every "
                   "member of its team has returned from shmemx_team_init; "
                   "FABSHMEM_TEAM_UIDS=%d)", rtn, uid_entries, uid_entries);
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    uid_next = (entry + 1) % uid_entries;
    e = reg_entry(entry);
    memset(e, 0, uid_entry_words * sizeof(uint64_t));
    tag = ((uint64_t)(uint32_t)random() << 32) ^ ((uint64_t)++uid_counter << 8) ^ 0x5a;
    if (!tag)
        tag = 1;
    __atomic_store_n(&e[0], tag, __ATOMIC_RELEASE);
    w.magic = UID_MAGIC;
    w.creator = shmemi_g.my_pe;
    w.entry = (uint32_t)entry;
    w.pad = 0;
    w.tag = tag;
    memset(uid, 0, sizeof(*uid));
    memcpy(uid->internal, &w, sizeof(w));
    return 0;
}

/* Gets the records of all npes members from the creator into recs. */
static void reg_fetch(const struct uid_wire *w, uint64_t *recs, int npes, const char *rtn)
{
    uint64_t *remote = reg_entry((int)w->entry) + 1;
    shmemi_must(shmemi_get(SHMEM_CTX_DEFAULT, recs, remote, (size_t)npes * rec_words() * 8, w->creator, rtn));
}

/* Polls the creator's records until word field (REC_TAG, REC_READY) of
 * every member's holds the id's tag. */
static void reg_wait(const struct uid_wire *w, uint64_t *recs, int npes, int field,
                     const char *rtn)
{
    unsigned long it = 0;
    for (;;) {
        int all = 1;
        reg_fetch(w, recs, npes, rtn);
        for (int i = 0; i < npes && all; i++) {
            const uint64_t *r = recs + (size_t)i * rec_words();
            if (!r[REC_PE] || r[field] != w->tag)
                all = 0;
        }
        if (all)
            return;
        shmemi_wait_backoff(&it);
    }
}

static void reg_put_word(const struct uid_wire *w, int idx, int word, uint64_t v, const char *rtn)
{
    uint64_t *remote = reg_entry((int)w->entry) + 1 + (size_t)idx * rec_words() + word;
    shmemi_must(shmemi_put(SHMEM_CTX_DEFAULT, remote, &v, sizeof(v), w->creator, rtn));
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
}

SHMEM_API int shmemx_team_init(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                               int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid)
{
    const char *rtn = "shmemx_team_init";
    struct uid_wire w;
    size_t rw = rec_words();
    int mw = shmemi_team_slot_mask_words(), i, k, slot = -1;
    uint64_t *recs, *rec, mask[64], head;
    struct shmemi_team *t;
    int *pes;

    SHMEMI_CHECK_INIT(rtn);
    if (!team || !uid)
        shmemi_user_error(rtn, "%s is NULL", !team ? "team" : "uid");
    memcpy(&w, uid->internal, sizeof(w));
    if (w.magic != UID_MAGIC || w.creator < 0 || w.creator >= shmemi_g.n_pes ||
        w.entry >= (uint32_t)uid_entries)
        shmemi_user_error(rtn, "uid was not made by shmemx_team_get_uniqueid");
    if (npes < 1 || npes > shmemi_g.n_pes)
        shmemi_user_error(rtn, "npes %d is out of range (1 to %d)", npes, shmemi_g.n_pes);
    if (pe_idx_in_team < 0 || pe_idx_in_team >= npes)
        shmemi_user_error(rtn, "pe_idx_in_team %d is out of range (0 to %d)", pe_idx_in_team,
                          npes - 1);
    shmemi_must(shmemi_get(SHMEM_CTX_DEFAULT, &head, reg_entry((int)w.entry), sizeof(head), w.creator, rtn));
    if (head != w.tag)
        shmemi_user_error(rtn, "uid is stale: its team was complete and PE %d has made newer "
                          "ids since", w.creator);
    recs = calloc((size_t)npes * rw, sizeof(uint64_t));
    rec = calloc(rw, sizeof(uint64_t));
    pes = malloc(sizeof(int) * npes);
    if (!recs || !rec || !pes)
        shmemi_fatal("%s: out of memory", rtn);
    /* Arrive: tag, team size and mask first, then the PE word that makes
     * the record count. */
    rec[REC_TAG] = w.tag;
    rec[REC_NPES] = (uint64_t)npes;
    shmemi_team_slot_mask(rec + REC_MASK);
    shmemi_must(shmemi_put(SHMEM_CTX_DEFAULT, reg_entry((int)w.entry) + 1 + (size_t)pe_idx_in_team * rw + 1,
               rec + 1, (rw - 1) * 8, w.creator, rtn));
    shmemi_must(shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet"));
    reg_put_word(&w, pe_idx_in_team, REC_PE, (uint64_t)shmemi_g.my_pe + 1, rtn);
    reg_wait(&w, recs, npes, REC_TAG, rtn);
    /* The fetch that saw the last PE word may have read that record's
     * other words before it (a copy from a mapped peer loads in any
     * order): once every PE word is seen, a second fetch sees whole
     * records. */
    atomic_thread_fence(memory_order_acquire);
    reg_fetch(&w, recs, npes, rtn);
    for (k = 0; k < mw; k++)
        mask[k] = ~0ull;
    for (i = 0; i < npes; i++) {
        const uint64_t *r = recs + (size_t)i * rw;
        pes[i] = (int)r[REC_PE] - 1;
        if ((int)r[REC_NPES] != npes)
            shmemi_user_error(rtn, "npes is %d here and %d on PE %d (index %d)", npes,
                              (int)r[REC_NPES], pes[i], i);
        for (int j = 0; j < i; j++)
            if (pes[j] == pes[i])
                shmemi_user_error(rtn, "PE %d takes part at two indices (%d and %d)", pes[i], j,
                                  i);
        for (k = 0; k < mw; k++)
            mask[k] &= r[REC_MASK + k];
    }
    if (pes[pe_idx_in_team] != shmemi_g.my_pe)
        shmemi_user_error(rtn, "pe_idx_in_team %d is also claimed by PE %d", pe_idx_in_team,
                          pes[pe_idx_in_team]);
    for (k = 0; k < mw && slot < 0; k++)
        if (mask[k])
            slot = k * 64 + __builtin_ctzll(mask[k]);
    t = NULL;
    if (slot >= 0) {
        shmemi_team_slot_take(slot);
        shmemi_team_slot_clear(slot);
        t = calloc(1, sizeof(*t));
        if (!t || shmemi_team_set_members(t, pes, npes))
            shmemi_fatal("%s: out of memory", rtn);
        t->slot = slot;
        t->config_mask = config_mask;
        if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS))
            t->config.num_contexts = config->num_contexts;
    }
    /* Ready (slot cleared) on every member before anyone uses the team. */
    reg_put_word(&w, pe_idx_in_team, REC_READY, w.tag, rtn);
    reg_wait(&w, recs, npes, REC_READY, rtn);
    reg_put_word(&w, pe_idx_in_team, REC_DEPARTED, w.tag, rtn);
    free(pes);
    free(rec);
    free(recs);
    *team = t ? t : SHMEM_TEAM_INVALID;
    if (!t) {
        shmemi_log(SHMEMI_LOG_ERR, "%s: no team slot is free on every member "
                   "(FABSHMEM_TEAMS_MAX=%d)", rtn, shmemi_teams_max);
        return SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    return 0;
}

/* ---- NUMA teams (hooks called by team_core.c at init) ---- */

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

static struct shmemi_team team_same_numa_s, team_numa_leaders_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_SAME_NUMA = &team_same_numa_s;
SHMEM_API shmem_team_t SHMEMX_TEAM_NUMA_LEADERS = &team_numa_leaders_s;

/* The NUMA domain of this PE, from its CPU affinity (not from the CPU it
 * last ran on, which moves with the scheduler for a PE that is not bound):
 * the lowest (hwloc logical index) NUMA node whose CPUs meet the PE's
 * affinity.  A PE bound within one domain is in that domain; a PE whose
 * affinity spans several (not bound, e.g. mpirun --bind-to none) is in the
 * lowest of them, so the unbound PEs of a host form one SAME_NUMA team.
 * Domain 0 without hwloc or when hwloc cannot tell. */
static int my_numa_domain(void)
{
    int dom = 0;
#ifdef HAVE_HWLOC
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();

    if (!cpus)
        return 0;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0 &&
            hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) == 0) {
            hwloc_obj_t numa = NULL;
            while ((numa = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, numa)))
                if (numa->cpuset && hwloc_bitmap_intersects(numa->cpuset, cpus)) {
                    dom = (int)numa->logical_index;
                    break;
                }
        }
        hwloc_topology_destroy(topo);
    }
    hwloc_bitmap_free(cpus);
#endif
    return dom;
}

/* FABSHMEM_NUMA_DOMAINS=k (developers): k domains made up by cutting the
 * PEs of each node, in PE order, into k groups of consecutive node-local
 * ranks (node-local rank r of s PEs is in domain r * k / s), so that the
 * NUMA teams have several domains on any machine. */
static int fake_numa_domain(long k)
{
    int me = shmemi_g.my_pe, rank = 0, size = 0;

    for (int pe = 0; pe < shmemi_g.n_pes; pe++)
        if (shmemi_g.node_of[pe] == shmemi_g.node_of[me]) {
            rank += pe < me;
            size++;
        }
    return (int)((long long)rank * k / size);
}

static int numa_fill(struct shmemi_team *t, int slot, const int *list, int n)
{
    int ret = shmemi_team_set_members(t, list, n);

    if (ret)
        return ret;
    t->slot = slot;
    t->predefined = 1;
    t->epoch = t->bar_epoch = 0;
    return 0;
}

int shmemi_teams_numa_init(void)
{
    int n = shmemi_g.n_pes, me = shmemi_g.my_pe, mine, *dom, *list, k = 0, ret;
    long fake = shmemi_g.env.numa_domains;

    if (fake < 0 || fake > 4096) {
        shmemi_log(SHMEMI_LOG_ERR, "FABSHMEM_NUMA_DOMAINS: invalid value %ld (expected 0 to "
                   "4096)", fake);
        return -EINVAL;
    }
    mine = fake ? fake_numa_domain(fake) : my_numa_domain();
    shmemi_debug("NUMA domain %d (%s)", mine, fake ? "FABSHMEM_NUMA_DOMAINS" : "affinity");
    dom = malloc(sizeof(int) * n);
    list = malloc(sizeof(int) * n);
    if (!dom || !list) {
        free(dom);
        free(list);
        return -ENOMEM;
    }
    ret = shmemi_g.boot->allgather(shmemi_g.boot, &mine, dom, sizeof(int));
    if (ret)
        goto out;
    for (int pe = 0; pe < n; pe++)
        if (shmemi_g.node_of[pe] == shmemi_g.node_of[me] && dom[pe] == dom[me])
            list[k++] = pe;
    if ((ret = numa_fill(&team_same_numa_s, SHMEMI_SLOT_NUMA, list, k)))
        goto out;
    /* Leaders: the lowest PE of each (node, domain). */
    k = 0;
    for (int pe = 0; pe < n; pe++) {
        int first = 1;
        for (int q = 0; q < pe && first; q++)
            if (shmemi_g.node_of[q] == shmemi_g.node_of[pe] && dom[q] == dom[pe])
                first = 0;
        if (first)
            list[k++] = pe;
    }
    ret = numa_fill(&team_numa_leaders_s, SHMEMI_SLOT_NUMA_LEADERS, list, k);
out:
    free(dom);
    free(list);
    return ret;
}

void shmemi_teams_numa_fini(void)
{
    shmemi_team_free_members(&team_same_numa_s);
    shmemi_team_free_members(&team_numa_leaders_s);
}
