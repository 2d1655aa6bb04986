/*
 * The barriers of the API and of the collectives' algorithms: the
 * algorithm of FABSHMEM_BARRIER_ALGO over the team layer's central and
 * dissemination barriers and the hierarchical one of coll_hier.c.
 */
#include "coll/coll.h"

/* 1: central, 0: dissemination. */
static int barrier_central(const struct shmemi_team *t)
{
    const char *a = shmemi_g.env.barrier_algo;

    if (!strcmp(a, "auto") || !strcmp(a, "hier"))
        return shmemi_team_central_fits(t);
    if (!strcmp(a, "dissemination"))
        return 0;
    if (!strcmp(a, "central"))
        return t->all_mapped;
    shmemi_user_error("shmem_barrier", "FABSHMEM_BARRIER_ALGO: unknown value '%s' (auto, "
                      "dissemination, central or hier)", a);
}

static void barrier_run(struct shmemi_team *t)
{
    const char *a = shmemi_g.env.barrier_algo;

    if (t->n_pes <= 1)
        return;
    if (!t->all_mapped && shmemi_coll_hier_ok(t) && (!strcmp(a, "auto") || !strcmp(a, "hier"))) {
        shmemi_coll_barrier_hier(t);
        return;
    }
    if (barrier_central(t)) {
        shmemi_coll_count(t, SHMEMI_CK_BARRIER, SHMEMI_CA_CENTRAL);
        shmemi_team_barrier_central(t);
    } else {
        shmemi_coll_count(t, SHMEMI_CK_BARRIER, SHMEMI_CA_DISSEMINATION);
        shmemi_team_barrier_dissemination(t);
    }
}

void shmemi_coll_barrier(struct shmemi_team *t)
{
    shmemi_quiet(SHMEM_CTX_DEFAULT);
    barrier_run(t);
}

void shmemi_coll_sync(struct shmemi_team *t)
{
    /* No completion of earlier puts is promised, but the signals must not
     * overtake stores to mapped peers made before the sync. */
    atomic_thread_fence(memory_order_release);
    barrier_run(t);
}
