/*
 * The internal teams of the deprecated active-set collectives (PE_start,
 * logPE_stride, PE_size), and the agreement on their slots.
 */
#include "team/team.h"
#include "core/sync.h"
#include <pthread.h>
#include <stdlib.h>

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

size_t shmemi_active_sets_bytes(int n_pes)
{
    return sizeof(struct as_area) + (size_t)n_pes * sizeof(struct as_word2);
}

static struct as_area *as_area(void)
{
    return (struct as_area *)shmemi_team_as_area();
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
 * Sets *k_p to the slot index within the active-set slots, or -1. */
static int as_lead(const struct shmemi_team *t, uint64_t code, int *full_pe_p, int *full_n_p,
                   int *k_p)
{
    struct as_area *a = as_area();
    uint64_t common = ~as_used, ans;
    int i, k = -1, fewest = SHMEMI_SLOT_ACTIVE_SETS + 1, rc;

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
        if (t->pes[i] != shmemi_g.my_pe &&
            (rc = shmemi_team_put_signal((void *)&a->inbox.data, &ans, sizeof(ans),
                                         &a->inbox.code, code, t->pes[i])))
            return rc;
    *k_p = k;
    return 0;
}

/* A member's side: its record to the leader, then the answer (*k_p). */
static int as_follow(const struct shmemi_team *t, uint64_t code, int *k_p)
{
    struct as_area *a = as_area();
    uint64_t m = ~as_used;
    int rc;

    if ((rc = shmemi_team_put_signal((void *)&a->board[shmemi_g.my_pe].data, &m, sizeof(m),
                                     &a->board[shmemi_g.my_pe].code, code, t->pes[0])))
        return rc;
    as_wait_code(&a->inbox.code, code);
    *k_p = (int)a->inbox.data - 1;
    return 0;
}

/* Makes set a's team (its first use on this PE) and agrees on its slot
 * index (*k_p: -1 when none is free on every member, the message
 * recorded).  The caller holds as_lock. */
static int as_make(struct active_set *a, uint64_t code, int PE_start, int logPE_stride,
                   int PE_size, const char *rtn, int *k_p)
{
    int i, *list, ret, full_pe = -1, full_n = 0;

    list = malloc(sizeof(int) * PE_size);
    if (!list)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    for (i = 0; i < PE_size; i++)
        list[i] = PE_start + (i << logPE_stride);
    ret = shmemi_team_set_members(&a->team, list, PE_size);
    free(list);
    if (ret)
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    if (a->team.my_pe < 0)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "PE %d is not in the active set "
                          "PE_start=%d logPE_stride=%d PE_size=%d", shmemi_g.my_pe, PE_start,
                          logPE_stride, PE_size);
    if (shmemi_g.n_pes > (1 << 28))
        return shmemi_err_fatal(SHMEMX_ERROR_NOT_SUPPORTED, "%s: active sets need a job of at "
                                "most 2^28 PEs", rtn);
    ret = a->team.my_pe == 0 ? as_lead(&a->team, code, &full_pe, &full_n, k_p)
                             : as_follow(&a->team, code, k_p);
    if (ret || *k_p >= 0)
        return ret;
    if (a->team.my_pe == 0)
        return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "active set PE_start=%d "
                          "logPE_stride=%d PE_size=%d: none of the %d internal slots for active "
                          "sets is free on every member (PE %d already takes part in %d other "
                          "active sets); use teams (shmem_team_split_strided) instead of pSync "
                          "collectives", PE_start, logPE_stride, PE_size,
                          SHMEMI_SLOT_ACTIVE_SETS, full_pe, full_n);
    return shmemi_err(SHMEMX_ERROR_OUT_OF_MEMORY, rtn, "active set PE_start=%d logPE_stride=%d "
                      "PE_size=%d: no internal slot for active sets is free on every member "
                      "(PE %d says which)", PE_start, logPE_stride, PE_size, PE_start);
}

int shmemi_active_set_team(int PE_start, int logPE_stride, int PE_size, const char *rtn,
                           struct shmemi_team **t_p)
{
    struct active_set *a;
    uint64_t code;
    unsigned b;
    int ret, k = -1;

    if ((ret = shmemi_check_init(rtn)))
        return ret;
    if (PE_size < 1 || PE_start < 0 || logPE_stride < 0 || logPE_stride > 30)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "active set PE_start=%d "
                          "logPE_stride=%d PE_size=%d is not valid", PE_start, logPE_stride,
                          PE_size);
    if ((long long)PE_start + (long long)(PE_size - 1) * (1LL << logPE_stride) >= shmemi_g.n_pes)
        return shmemi_err(SHMEMX_ERROR_INVALID_VALUE, rtn, "active set PE_start=%d "
                          "logPE_stride=%d PE_size=%d reaches past the last PE (%d)", PE_start,
                          logPE_stride, PE_size, shmemi_g.n_pes - 1);
    if (PE_start == 0 && logPE_stride == 0 && PE_size == shmemi_g.n_pes) {
        *t_p = SHMEM_TEAM_WORLD;
        return 0;
    }
    code = as_code(PE_start, logPE_stride, PE_size);
    b = as_bucket(code);
    pthread_mutex_lock(&as_lock);
    for (a = as_table[b]; a; a = a->next)
        if (a->code == code) {
            pthread_mutex_unlock(&as_lock);
            *t_p = &a->team;
            return 0;
        }
    /* First use on this PE: make the team and agree on its slot (the lock
     * keeps this PE in one agreement at a time). */
    a = calloc(1, sizeof(*a));
    if (!a) {
        pthread_mutex_unlock(&as_lock);
        return shmemi_err_fatal(SHMEMX_ERROR_OUT_OF_MEMORY, "%s: out of memory", rtn);
    }
    if ((ret = as_make(a, code, PE_start, logPE_stride, PE_size, rtn, &k)) || k < 0) {
        pthread_mutex_unlock(&as_lock);
        shmemi_team_free_members(&a->team);
        shmemi_team_forget(&a->team);
        free(a);
        return ret ? ret : SHMEMX_ERROR_OUT_OF_MEMORY;
    }
    as_used |= 1ull << k;
    a->code = code;
    a->team.slot = shmemi_teams_max - SHMEMI_SLOT_ACTIVE_SETS + k;
    a->team.predefined = 1;
    a->next = as_table[b];
    as_table[b] = a;
    pthread_mutex_unlock(&as_lock);
    *t_p = &a->team;
    return 0;
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
            shmemi_team_forget(&a->team);
            free(a);
        }
        as_table[b] = NULL;
    }
    as_used = 0;
    pthread_mutex_unlock(&as_lock);
}
