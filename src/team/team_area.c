/*
 * The team area and its slots: the layout of the area (the slots, the
 * active sets' words, the unique-id registry) and this PE's bookkeeping of
 * which slots are taken, with the collective agreement on a free one.
 */
#include "team/team.h"
#include <stdlib.h>
#include <unistd.h>

char *shmemi_team_area;
int shmemi_teams_max;
size_t shmemi_team_slot_size;

/* Slots taken on this PE: bit s of used_mask[s / 64]. */
static uint64_t *used_mask;
static int mask_words;
/* Where the active sets' words and the unique-id registry begin. */
static size_t area_as_off, area_uid_off, area_wake_off;

size_t shmemi_team_area_size(long teams_max, int n_pes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t slot = sizeof(shmemi_team_slot_t) + (size_t)n_pes * sizeof(uint64_t), len;

    slot = (slot + 63) & ~(size_t)63;
    shmemi_team_slot_size = slot;
    area_as_off = (size_t)teams_max * slot;
    len = area_as_off + shmemi_active_sets_bytes(n_pes);
    area_uid_off = len = (len + 63) & ~(size_t)63;
    len += shmemi_team_uid_bytes(teams_max, n_pes);
    /* Three lines: the node's count of sleepers, this PE's doorbell, the
     * node's count of sleepers on doorbells. */
    area_wake_off = len = (len + 63) & ~(size_t)63;
    len += 192;
    return (len + page - 1) & ~(page - 1);
}

void *shmemi_team_uid_area(void)
{
    return shmemi_team_area + area_uid_off;
}

void *shmemi_team_wake_area(void)
{
    return shmemi_team_area + area_wake_off;
}

void *shmemi_team_as_area(void)
{
    return shmemi_team_area + area_as_off;
}

/* ---- this PE's slots ---- */

int shmemi_team_slots_init(int teams_max)
{
    shmemi_teams_max = teams_max;
    mask_words = (teams_max + 63) / 64;
    used_mask = calloc((size_t)mask_words, sizeof(uint64_t));
    if (!used_mask)
        return -ENOMEM;
    /* The slots past teams_max and the active-set slots are never free. */
    for (int s = teams_max - SHMEMI_SLOT_ACTIVE_SETS; s < mask_words * 64; s++)
        shmemi_team_slot_take(s);
    for (int s = 0; s < SHMEMI_SLOT_FIRST_FREE; s++)
        shmemi_team_slot_take(s);
    return 0;
}

void shmemi_team_slots_fini(void)
{
    free(used_mask);
    used_mask = NULL;
    mask_words = 0;
}

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

int shmemi_team_slot_common(const uint64_t *masks, int n, size_t stride, int nwords)
{
    for (int w = 0; w < nwords; w++) {
        uint64_t m = ~0ull;
        for (int i = 0; i < n; i++)
            m &= masks[(size_t)i * stride + (size_t)w];
        if (m)
            return w * 64 + __builtin_ctzll(m);
    }
    return -1;
}

int shmemi_team_slot_agree(struct shmemi_team *parent, int want_member, int *slot_p)
{
    uint64_t mask[64];
    int slot, rc;

    shmemi_team_slot_mask(mask);
    if ((rc = shmemi_team_allreduce_u64(parent, mask, mask_words, SHMEMI_IOP_AND)))
        return rc;
    slot = shmemi_team_slot_common(mask, 1, 0, mask_words);
    if (slot >= 0 && want_member)
        shmemi_team_slot_take(slot);
    *slot_p = slot;
    return 0;
}
