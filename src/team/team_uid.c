/*
 * Teams from any set of PEs: shmemx_team_get_uniqueid and shmemx_team_init
 * (src/api/shmem_team.c), which meet in a registry of the team area.
 */
#include "team/team.h"
#include "core/rma.h"
#include "core/sync.h"
#include <stdlib.h>

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

size_t shmemi_team_uid_bytes(long teams_max, int n_pes)
{
    uid_rec_words = REC_MASK + (size_t)(teams_max + 63) / 64;
    uid_entry_words = 1 + (size_t)n_pes * uid_rec_words;
    /* The parser of the configuration keeps FABSHMEM_TEAM_UIDS in its
     * range (src/core/env.def); a configuration that was not parsed (the
     * unit tests' zeroes) makes no registry. */
    uid_entries = shmemi_g.env.team_uids >= 1 && shmemi_g.env.team_uids <= 4096
                      ? (int)shmemi_g.env.team_uids : 0;
    return (size_t)uid_entries * uid_entry_words * sizeof(uint64_t);
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

int shmemi_team_get_uniqueid(shmemx_team_uniqueid_t *uid, const char *rtn)
{
    struct uid_wire w;
    uint64_t *e, tag;
    int entry = -1, i, rc;

    if ((rc = shmemi_check_init(rtn)))
        return rc;
    if (!uid)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "uid is NULL");
    for (i = 0; i < uid_entries && entry < 0; i++)
        if (!reg_busy(reg_entry((uid_next + i) % uid_entries)))
            entry = (uid_next + i) % uid_entries;
    if (entry < 0)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "all %d ids of this PE are in use "
                          "(each until every member of its team has returned from "
                          "shmemx_team_init; FABSHMEM_TEAM_UIDS=%d)", uid_entries, uid_entries);
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
static int reg_fetch(const struct uid_wire *w, uint64_t *recs, int npes, const char *rtn)
{
    uint64_t *remote = reg_entry((int)w->entry) + 1;

    return shmemi_get(SHMEM_CTX_DEFAULT, recs, remote, (size_t)npes * rec_words() * 8,
                      w->creator, rtn);
}

/* Polls the creator's records until word field (REC_TAG, REC_READY) of
 * every member's holds the id's tag. */
static int reg_wait(const struct uid_wire *w, uint64_t *recs, int npes, int field,
                    const char *rtn)
{
    unsigned long it = 0;
    int rc;

    for (;;) {
        int all = 1;
        if ((rc = reg_fetch(w, recs, npes, rtn)))
            return rc;
        for (int i = 0; i < npes && all; i++) {
            const uint64_t *r = recs + (size_t)i * rec_words();
            if (!r[REC_PE] || r[field] != w->tag)
                all = 0;
        }
        if (all)
            return 0;
        shmemi_wait_backoff(&it);
    }
}

/* Puts len bytes of src at word word of record idx of the creator's entry
 * and completes the put. */
static int reg_put(const struct uid_wire *w, int idx, int word, const uint64_t *src,
                   size_t nwords, const char *rtn)
{
    uint64_t *remote = reg_entry((int)w->entry) + 1 + (size_t)idx * rec_words() + word;
    int rc = shmemi_put(SHMEM_CTX_DEFAULT, remote, src, nwords * 8, w->creator, rtn);

    return rc ? rc : shmemi_team_quiet();
}

/* The checks of shmemx_team_init that need no other member: the arguments
 * and the id, whose entry must still be the creator's (*w the id). */
static int uid_args(shmem_team_t *team, int npes, int pe_idx_in_team,
                    const shmemx_team_uniqueid_t *uid, struct uid_wire *w, const char *rtn)
{
    uint64_t head;
    int rc;

    if ((rc = shmemi_check_init(rtn)))
        return rc;
    if (!team || !uid)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "%s is NULL", !team ? "team" : "uid");
    memcpy(w, uid->internal, sizeof(*w));
    if (w->magic != UID_MAGIC || w->creator < 0 || w->creator >= shmemi_g.n_pes ||
        w->entry >= (uint32_t)uid_entries)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "uid was not made by "
                          "shmemx_team_get_uniqueid");
    if (npes < 1 || npes > shmemi_g.n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "npes %d is out of range (1 to %d)",
                          npes, shmemi_g.n_pes);
    if (pe_idx_in_team < 0 || pe_idx_in_team >= npes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe_idx_in_team %d is out of range "
                          "(0 to %d)", pe_idx_in_team, npes - 1);
    if ((rc = shmemi_get(SHMEM_CTX_DEFAULT, &head, reg_entry((int)w->entry), sizeof(head),
                         w->creator, rtn)))
        return rc;
    if (head != w->tag)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "uid is stale: its team was complete "
                          "and PE %d has made newer ids since", w->creator);
    return 0;
}

/* The world PEs of the members from their records (pes[npes]), checked
 * against each other and against pe_idx_in_team. */
static int uid_members(const uint64_t *recs, int npes, int pe_idx_in_team, int *pes,
                       const char *rtn)
{
    for (int i = 0; i < npes; i++) {
        const uint64_t *r = recs + (size_t)i * rec_words();
        pes[i] = (int)r[REC_PE] - 1;
        if ((int)r[REC_NPES] != npes)
            return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "npes is %d here and %d on PE %d "
                              "(index %d)", npes, (int)r[REC_NPES], pes[i], i);
        for (int j = 0; j < i; j++)
            if (pes[j] == pes[i])
                return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE %d takes part at two "
                                  "indices (%d and %d)", pes[i], j, i);
    }
    if (pes[pe_idx_in_team] != shmemi_g.my_pe)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "pe_idx_in_team %d is also claimed "
                          "by PE %d", pe_idx_in_team, pes[pe_idx_in_team]);
    return 0;
}

/* The team of slot (cleared and taken on this PE) over pes into *t_p. */
static int uid_team(const int *pes, int npes, int slot, shmem_team_config_t *config,
                    long config_mask, struct shmemi_team **t_p, const char *rtn)
{
    struct shmemi_team *t = calloc(1, sizeof(*t));

    if (!t || shmemi_team_set_members(t, pes, npes)) {
        free(t);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    shmemi_team_slot_take(slot);
    shmemi_team_slot_clear(slot);
    t->slot = slot;
    t->config_mask = config_mask;
    if (config && (config_mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    *t_p = t;
    return 0;
}

int shmemi_team_init_uid(shmem_team_t *team, shmem_team_config_t *config, long config_mask,
                         int npes, int pe_idx_in_team, const shmemx_team_uniqueid_t *uid,
                         const char *rtn)
{
    struct uid_wire w;
    size_t rw = rec_words();
    uint64_t *recs = NULL, *rec = NULL;
    struct shmemi_team *t = NULL;
    int *pes = NULL, slot, rc;

    if ((rc = uid_args(team, npes, pe_idx_in_team, uid, &w, rtn)))
        return rc;
    *team = SHMEM_TEAM_INVALID;
    recs = calloc((size_t)npes * rw, sizeof(uint64_t));
    rec = calloc(rw, sizeof(uint64_t));
    pes = malloc(sizeof(int) * npes);
    if (!recs || !rec || !pes) {
        rc = shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
        goto out;
    }
    /* Arrive: tag, team size and mask first, then the PE word that makes
     * the record count. */
    rec[REC_TAG] = w.tag;
    rec[REC_NPES] = (uint64_t)npes;
    shmemi_team_slot_mask(rec + REC_MASK);
    rec[REC_PE] = (uint64_t)shmemi_g.my_pe + 1;
    if ((rc = reg_put(&w, pe_idx_in_team, 1, rec + 1, rw - 1, rtn)) ||
        (rc = reg_put(&w, pe_idx_in_team, REC_PE, &rec[REC_PE], 1, rtn)) ||
        (rc = reg_wait(&w, recs, npes, REC_TAG, rtn)))
        goto out;
    /* The fetch that saw the last PE word may have read that record's
     * other words before it (a copy from a mapped peer loads in any
     * order): once every PE word is seen, a second fetch sees whole
     * records. */
    atomic_thread_fence(memory_order_acquire);
    if ((rc = reg_fetch(&w, recs, npes, rtn)) ||
        (rc = uid_members(recs, npes, pe_idx_in_team, pes, rtn)))
        goto out;
    slot = shmemi_team_slot_common(recs + REC_MASK, npes, rw, shmemi_team_slot_mask_words());
    if (slot >= 0 && (rc = uid_team(pes, npes, slot, config, config_mask, &t, rtn)))
        goto out;
    /* Ready (slot cleared) on every member before anyone uses the team. */
    rec[REC_READY] = rec[REC_DEPARTED] = w.tag;
    if ((rc = reg_put(&w, pe_idx_in_team, REC_READY, &rec[REC_READY], 1, rtn)) ||
        (rc = reg_wait(&w, recs, npes, REC_READY, rtn)) ||
        (rc = reg_put(&w, pe_idx_in_team, REC_DEPARTED, &rec[REC_DEPARTED], 1, rtn)))
        goto out;
    if (!t)
        rc = shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "no team slot is free on every member "
                        "(FABSHMEM_TEAMS_MAX=%d)", shmemi_teams_max);
out:
    if (rc && t) {
        shmemi_team_slot_release(t->slot);
        shmemi_team_free_members(t);
        shmemi_team_forget(t);
        free(t);
        t = NULL;
    }
    *team = t ? t : SHMEM_TEAM_INVALID;
    free(pes);
    free(rec);
    free(recs);
    return rc;
}
