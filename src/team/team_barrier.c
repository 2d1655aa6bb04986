/*
 * The team's own barriers (central and dissemination), the team layer's
 * barrier and sync, and the small allreduce of the slot agreements.
 */
#include "team/team.h"
#include "core/sync.h"
#include <stdlib.h>

void shmemi_team_barrier_central(struct shmemi_team *t)
{
    shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t c, n = (uint64_t)t->n_pes, *cnt, *rel;

    if (n <= 1)
        return;
    /* Every member counts itself in on member 0's counter; the last one
     * releases the others, who each wait once (with more PEs than cores,
     * every wait is a trip through the scheduler).  The count is that of
     * the central barriers alone, so the other barriers may come between. */
    c = ++t->central_epoch;
    __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_ARRIVED_CENTRAL], c, __ATOMIC_RELAXED);
    cnt = (uint64_t *)shmemi_direct((const void *)&s->bar[SHMEMI_TEAM_BAR_COUNT],
                                    sizeof(uint64_t), t->pes[0]);
    rel = (uint64_t *)shmemi_direct((const void *)&s->bar[SHMEMI_TEAM_BAR_RELEASE],
                                    sizeof(uint64_t), t->pes[0]);
    if (__atomic_add_fetch(cnt, 1, __ATOMIC_ACQ_REL) == c * n) {
        __atomic_store_n(rel, c, __ATOMIC_RELEASE);
        shmemi_wake(rel);
    } else
        shmemi_team_wait(rel, c);
}

int shmemi_team_barrier_dissemination(struct shmemi_team *t)
{
    shmemi_team_slot_t *s;
    int n = t->n_pes, me = t->my_pe, k, dist, rc = 0;
    uint64_t b;

    if (n <= 1)
        return 0;
    s = shmemi_team_slot(t);
    b = ++t->bar_epoch;
    __atomic_store_n(&s->bar[SHMEMI_TEAM_BAR_ARRIVED], b, __ATOMIC_RELAXED);
    shmemi_wake(&s->bar[SHMEMI_TEAM_BAR_ARRIVED]);
    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        if ((rc = shmemi_team_signal(&s->bar[k], b, t->pes[shmemi_sched_diss_to(n, me, k)])))
            break;
        t->diss_wait = k + 1;
        shmemi_team_wait(&s->bar[k], b);
    }
    t->diss_wait = 0;
    return rc;
}

int shmemi_team_barrier_absent(const struct shmemi_team *t, int *absent, int max, int *unseen_p,
                               int *round_p, int *from_p)
{
    const shmemi_team_slot_t *s = shmemi_team_slot(t);
    uint64_t b = t->bar_epoch, c = t->central_epoch;
    int n = t->n_pes, me = t->my_pe, j, k, dist, count = 0;
    unsigned char *seen = calloc((size_t)n, 1);

    *unseen_p = 0;
    *round_p = *from_p = -1;
    /* In a dissemination: the rounds whose signal of barrier b came tell
     * that their senders arrived; the round it waits in names one that
     * has not. */
    if (t->diss_wait > 0 && n > 1) {
        *round_p = t->diss_wait - 1;
        *from_p = shmemi_sched_diss_from(n, me, *round_p);
        for (k = 0, dist = 1; dist < n; k++, dist <<= 1)
            if (seen && k != *round_p && __atomic_load_n(&s->bar[k], __ATOMIC_ACQUIRE) >= b)
                seen[shmemi_sched_diss_from(n, me, k)] = 1;
    }
    for (j = 0; j < n; j++) {
        const uint64_t *w, *wc;
        int late;

        if (j == me)
            continue;
        w = (const uint64_t *)shmemi_direct((const void *)&s->bar[SHMEMI_TEAM_BAR_ARRIVED],
                                            sizeof(uint64_t), t->pes[j]);
        wc = (const uint64_t *)shmemi_direct(
            (const void *)&s->bar[SHMEMI_TEAM_BAR_ARRIVED_CENTRAL], sizeof(uint64_t), t->pes[j]);
        if (w && wc)
            late = __atomic_load_n(w, __ATOMIC_RELAXED) < b ||
                   __atomic_load_n(wc, __ATOMIC_RELAXED) < c;
        else if (seen && seen[j])
            late = 0;
        else if (j == *from_p)
            late = 1;
        else {
            (*unseen_p)++;
            continue;
        }
        if (late) {
            if (count < max)
                absent[count] = j;
            count++;
        }
    }
    free(seen);
    return count;
}

static inline int team_barrier_shaped(struct shmemi_team *t)
{
    if (!shmemi_team_central_fits(t))
        return shmemi_team_barrier_dissemination(t);
    shmemi_team_barrier_central(t);
    return 0;
}

int shmemi_team_quiet(void)
{
    return shmemi_quiet(SHMEM_CTX_DEFAULT, "shmem_quiet");
}

int shmemi_team_barrier(struct shmemi_team *t)
{
    int rc = shmemi_team_quiet();

    return rc ? rc : team_barrier_shaped(t);
}

int shmemi_team_sync(struct shmemi_team *t)
{
    /* No completion of earlier puts is promised, but the signals must not
     * overtake stores to mapped peers made before the sync. */
    atomic_thread_fence(memory_order_release);
    return team_barrier_shaped(t);
}

int shmemi_team_barrier_world(void)
{
    return shmemi_team_barrier(SHMEM_TEAM_WORLD);
}

/* ---- the small allreduce ---- */

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

int shmemi_team_allreduce_u64(struct shmemi_team *t, uint64_t *vals, int nwords, int op)
{
    shmemi_team_slot_t *s;
    int n = t->n_pes, me = t->my_pe, k, dist, rc;
    size_t len = (size_t)nwords * sizeof(uint64_t);
    uint64_t e, in[64];
    char *buf;

    if (n <= 1 || nwords <= 0)
        return 0;
    if (nwords > 64)
        return shmemi_err_fatal(SHMEMX_ERROR_INTERNAL, "internal: allreduce of %d words (at "
                                "most 64)", nwords);
    s = shmemi_team_slot(t);
    e = shmemi_team_begin(t);
    buf = s->scratch[e & 1];
    /* Dissemination: in round k send the partial result to me + 2^k and
     * combine the one of me - 2^k; idempotent ops make the overlaps of a
     * non-power-of-two team harmless. */
    for (k = 0, dist = 1; dist < n; k++, dist <<= 1) {
        int to = shmemi_sched_diss_to(n, me, k), from = shmemi_sched_diss_from(n, me, k);
        if ((rc = shmemi_team_put_signal(buf + (size_t)k * 512, vals, len, &s->sig[me],
                                         shmemi_team_sigval(e, k + 1), t->pes[to])))
            return rc;
        shmemi_team_wait(&s->sig[from], shmemi_team_sigval(e, k + 1));
        memcpy(in, buf + (size_t)k * 512, len);
        iop(vals, in, nwords, op);
    }
    return 0;
}
