/*
 * The barriers of the API and of the collectives' algorithms, and their
 * table in the registry: the team layer's central and dissemination
 * barriers and the hierarchical one of coll_hier.c.  The choice depends on
 * the team alone, so each team keeps it from its first barrier on.
 */
#include "coll/coll.h"

static int hier_can(const shmemi_coll_args_t *a)
{
    return !a->t->all_mapped && shmemi_coll_hier_ok(a->t);
}

static int central_can(const shmemi_coll_args_t *a)
{
    return a->t->all_mapped;
}

static int central_pick(const shmemi_coll_args_t *a)
{
    return shmemi_team_central_fits(a->t);
}

static int run_central(shmemi_coll_args_t *a)
{
    shmemi_team_barrier_central(a->t);
    return 0;
}

static int run_dissemination(shmemi_coll_args_t *a)
{
    return shmemi_team_barrier_dissemination(a->t);
}

const shmemi_coll_row_t shmemi_coll_barrier_rows[] = {
    { SHMEMI_CA_HIER, "teams that span nodes with several members on some node: each node's "
      "members arrive at their leader, the leaders run a dissemination, each leader releases "
      "its node", "wherever it applies", hier_can, hier_can, SHMEMI_CA_AUTO,
      shmemi_coll_barrier_hier },
    { SHMEMI_CA_CENTRAL, "node teams: a counter on the first PE, the last to arrive releases "
      "the others; other teams take dissemination", "on node teams of 2 PEs or when the PEs "
      "outnumber the cores they may run on together", central_can, central_pick,
      SHMEMI_CA_DISSEMINATION, run_central },
    { SHMEMI_CA_DISSEMINATION, "ceil(log2 n) rounds of one signal each", "elsewhere", NULL, NULL,
      SHMEMI_CA_AUTO, run_dissemination },
    { .run = NULL },
};

static int barrier_run(struct shmemi_team *t)
{
    struct shmemi_coll_team *c;
    const shmemi_coll_row_t *r;
    shmemi_coll_args_t a;
    int rc;

    if (t->n_pes <= 1)
        return 0;
    if ((rc = shmemi_coll_ready(t)))
        return rc;
    c = shmemi_coll_of(t);
    a.t = t;
    a.rtn = NULL;
    if (!(r = c->barrier))
        r = c->barrier = shmemi_coll_choose(SHMEMI_CK_BARRIER, &a);
    if ((rc = r->run(&a)))
        return rc;
    c->count[SHMEMI_CK_BARRIER][r->algo]++;
    return 0;
}

int shmemi_coll_barrier_team(struct shmemi_team *t)
{
    int rc = shmemi_team_quiet();

    return rc ? rc : barrier_run(t);
}

int shmemi_coll_sync_team(struct shmemi_team *t)
{
    /* No completion of earlier puts is promised, but the signals must not
     * overtake stores to mapped peers made before the sync. */
    atomic_thread_fence(memory_order_release);
    return barrier_run(t);
}

/* A barrier or sync of team under the watchdog's name rtn. */
static int __attribute__((noinline, cold)) watched(struct shmemi_team *t, int sync,
                                                   const char *rtn)
{
    shmemi_coll_watch_t w;
    int rc;

    shmemi_coll_watch_begin(&w, t, -1, rtn);
    rc = sync ? shmemi_coll_sync_team(t) : shmemi_coll_barrier_team(t);
    shmemi_coll_watch_end(&w);
    return rc;
}

int shmemi_coll_barrier(shmem_team_t team, const char *rtn)
{
    int rc = shmemi_coll_agree(team, shmemi_coll_check_team(team, rtn), 0, -1, 0, 0, rtn);

    if (rc)
        return rc;
    return SHMEMI_UNLIKELY(shmemi_g.env.watchdog) ? watched(team, 0, rtn)
                                                  : shmemi_coll_barrier_team(team);
}

int shmemi_coll_sync(shmem_team_t team, const char *rtn)
{
    int rc = shmemi_coll_agree(team, shmemi_coll_check_team(team, rtn), 0, -1, 0, 0, rtn);

    if (rc)
        return rc;
    return SHMEMI_UNLIKELY(shmemi_g.env.watchdog) ? watched(team, 1, rtn)
                                                  : shmemi_coll_sync_team(team);
}
