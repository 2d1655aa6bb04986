/*
 * The epochs of node teams: the guard at the start of a collective, the
 * one-phase "ready" synchronization of the small paths, and the
 * low-latency lines (team.h).
 */
#include "team/team.h"

/* Node teams: stores value into my word bar[w] of the team's slot, then
 * waits until every other member's bar[w] holds at least wait_for. */
static void publish_wait_all(struct shmemi_team *t, int w, uint64_t value, uint64_t wait_for)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    int j, n = t->n_pes;

    __atomic_store_n(&s->bar[w], value, __ATOMIC_RELEASE);
    shmemi_wake(&s->bar[w]);
    for (j = 1; j < n; j++)
        shmemi_team_wait((volatile uint64_t *)shmemi_direct((const void *)&s->bar[w],
                                                            sizeof(uint64_t),
                                                            t->pes[(t->my_pe + j) % n]),
                         wait_for);
}

void shmemi_team_guard(struct shmemi_team *t, uint64_t e)
{
    /* Every member has begun e - 1 if I saw all of them in e - 1. */
    if (e < 2 || t->synced_epoch + 1 >= e) {
        __atomic_store_n(&shmemi_team_slot(t)->bar[SHMEMI_TEAM_BAR_BEGUN], e, __ATOMIC_RELEASE);
        shmemi_wake(&shmemi_team_slot(t)->bar[SHMEMI_TEAM_BAR_BEGUN]);
        return;
    }
    publish_wait_all(t, SHMEMI_TEAM_BAR_BEGUN, e, e - 1);
}

int shmemi_team_ready(struct shmemi_team *t, uint64_t e)
{
    int rc;

    if (t->n_pes > SHMEMI_TEAM_READY_MAX || shmemi_g.oversubscribed) {
        if ((rc = shmemi_team_sync(t)))
            return rc;
    } else {
        publish_wait_all(t, SHMEMI_TEAM_BAR_READY, e, e);
    }
    /* Either way every member has begun e. */
    shmemi_team_synced(t, e);
    return 0;
}

static inline volatile uint64_t *ll_line(struct shmemi_team *t, uint64_t e, int j)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    volatile uint64_t *l = &s->aux[SHMEMI_TEAM_AUX - (2 - (e & 1)) * SHMEMI_TEAM_LL_WORDS];

    return j == t->my_pe ? l : (volatile uint64_t *)shmemi_direct((const void *)l,
                                                                  SHMEMI_TEAM_LL_WORDS * 8,
                                                                  t->pes[j]);
}

void shmemi_team_ll_publish(struct shmemi_team *t, uint64_t e, const void *src, size_t len)
{
    volatile uint64_t *l = ll_line(t, e, t->my_pe);

    if (len) /* a collective of 0 bytes may pass a null src */
        memcpy((void *)(l + 1), src, len);
    __atomic_store_n(l, e, __ATOMIC_RELEASE);
    shmemi_wake(l);
}

const void *shmemi_team_ll_wait(struct shmemi_team *t, uint64_t e, int j)
{
    volatile uint64_t *l = ll_line(t, e, j);

    shmemi_team_wait(l, e);
    return (const void *)(l + 1);
}
